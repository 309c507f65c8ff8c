//! The CPU's search in simultaneous games: the **local game graph**.
//!
//! A depth-limited tree of matrix games (the CPU before this module, still `cpu:matrix`) pays
//! for every path to a position again, cannot see that play comes back to where it was (CC
//! Lemon's charging and guarding, Oshi-Zumo's equal bids), and values its leaves with the
//! derived evaluation however near a decided game they lie. Its mixes were more exploitable
//! than random play (CC Lemon: a best reply gained 0.946 against it, 0.889 against random).
//!
//! This search lists the positions reachable from the current one breadth-first — each once,
//! however many paths lead to it — up to a budget of positions that grows with the level `S`
//! ([`positions_for_level`]; fewer when the node budget `N`, one node per joint move, runs out
//! first; within the period `P`), values those past the budget by the derived
//! evaluation, and solves the graph by value iteration with a matrix game per position
//! (the same table builder as `cpu:exact`, [`ExactTable`], rooted at the current position and
//! rebuilt at every move: no table of the whole game is kept). It plays the root's optimal
//! mix. Where the budget covers every position that matters, the mix is the game's
//! equilibrium; where it does not, positions nearer the root are solved exactly and the
//! estimate is pushed to the budget's edge — a larger budget never sees less.

use super::exact::{ExactTable, Limits, PastMax, TableSettings};
use super::searcher::Searcher;
use crate::engine::{Side, State};
use crate::program::CmdId;
use std::time::Instant;

/// How the local graph is valued: a turn's delay discounted as in `cpu:exact` play (a sooner
/// win is worth more, so a side ahead presses), iterated until values settle to 1e-4 or for at
/// most 100 sweeps (a fixed count, so a node budget replays exactly on any machine). Measured
/// against 1e-7 and 2,000 sweeps: CC Lemon's default CPU gives away 0.0051 instead of 0.0047
/// and Oshi-Zumo's the same 0.0015, in a fifth of the time (the report's restricted play on
/// CC Lemon: 4.1 s instead of 21.9 s).
const LOCAL: TableSettings = TableSettings {
    discount: super::base::DISCOUNT,
    tolerance: 1e-4,
    max_sweeps: 100,
};

/// Positions the local graph lists at level `S` when no node budget is given: 2^(S+7), so
/// S1 lists 256, the default S3 1,024, S5 4,096 and S10 131,072 (capped at 1,048,576).
pub fn positions_for_level(depth: u32) -> usize {
    1usize << (depth.clamp(1, 13) + 7)
}

/// `side`'s mixed strategy over `mine` (its moves in `st`, in [`super::moves`] order) from the
/// local game graph of at most `positions` positions, listed and solved before `until`. The
/// positions listed are added to the searcher's node count. With it, whether the mix is a
/// function of the position and the budget alone — listed and solved before `until`, no chance
/// sampled — so that a cache may keep it.
pub(super) fn local_strategy(
    s: &mut Searcher,
    st: &State,
    side: Side,
    mine: &[Option<CmdId>],
    positions: usize,
    until: Instant,
) -> (Vec<f64>, bool) {
    let uniform = || (vec![1.0 / mine.len() as f64; mine.len()], false);
    let cancel = s.cancel.clone();
    let limits = Limits {
        bound: None,
        max_positions: positions.max(1),
        past_max: PastMax::Estimate,
        until,
        cancel: Some(&cancel),
    };
    let Ok(mut table) = ExactTable::enumerate_in(s, st, &limits, false) else {
        return uniform();
    };
    s.nodes += table.positions as u64;
    if table.iterate(&LOCAL, until, Some(&cancel)).is_err() {
        return uniform();
    }
    let Some(mix) = table.strategy(st, side) else {
        return uniform();
    };
    let pure = !table.sampled && Instant::now() < until;
    let p = mine
        .iter()
        .map(|m| mix.iter().find(|(x, _)| x == m).map_or(0.0, |(_, p)| *p))
        .collect();
    (p, pure)
}
