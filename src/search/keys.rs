//! The position keys: hashes of a [`State`], one for each kind of table. What each includes,
//! and what uses it:
//!
//! - [`position_key`] — FxHash of the values, the enabled flags, the last commands, each side's
//!   own-turn counter modulo the periods' lcm, the side to move and the outcome (not the turn
//!   counter). For what is played or solved, which must not depend on a cache: the seeds of
//!   sampled chance and the merging of its samples ([`Searcher::outcomes`]), the exact tables'
//!   index and [`TableCache`]'s keys, the shortest-win search's seen positions and the
//!   forced-win prover's memo (with the depth mixed in, in [`solve`]), and the CLI's reseeding.
//! - [`table_key`] — [`position_key`] without the last commands where they cannot matter (a
//!   simultaneous game whose rules read no earlier turn's command), for the exact tables.
//! - [`node_key`] — the same position from [`State::fingerprint`] (several times cheaper; the
//!   search computes one per node). For the search's own caches only: the line being searched
//!   (a position that comes back on it is a draw), the best moves, the game's earlier positions
//!   in [`CpuPlayer`], and through [`tt_key`] the transposition table and the Star2 probes.
//! - [`key_of`] — [`node_key`] with or without the last commands. Without them for
//!   `Searcher::loop_key` when no rule reads an earlier turn's command (a simultaneous position
//!   that comes back to itself, for [`matrix::solve_looping`]).
//! - [`played_key`] — [`key_of`] with the own-turn counters whole, plus the turn counter and
//!   the move played. For `Searcher::played`: a move's chance outcomes, reused by the
//!   deepening's next iteration.
//! - [`tt_key`] — a [`node_key`] and a search depth. For `Searcher::tt` (the transposition
//!   table) and `Searcher::probed` (the Star2 probes).
//!
//! [`lcm_of`] gives the lcm that the own-turn counters are kept modulo (`Searcher::lcm`).
//!
//! [`Searcher::outcomes`]: super::Searcher::outcomes
//! [`TableCache`]: super::exact::TableCache
//! [`solve`]: super::solve
//! [`CpuPlayer`]: super::CpuPlayer
//! [`matrix::solve_looping`]: super::matrix::solve_looping

use crate::engine::State;
use crate::program::CmdId;
use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};

/// A key for a position that ignores the turn counter (periods are kept modulo their lcm).
pub fn position_key(st: &State, lcm: u32) -> u64 {
    table_key(st, lcm, true)
}

/// [`position_key`], or without the last commands (`with_hist` false): the key of the exact
/// tables ([`super::exact::ExactTable`]), which leave the commands out in a simultaneous game
/// where no rule reads an earlier turn's command — each turn's commands are overwritten before
/// anything reads them, so positions that differ only in them have the same future (Oshi-Zumo:
/// 769 positions instead of 18,122).
pub(super) fn table_key(st: &State, lcm: u32, with_hist: bool) -> u64 {
    let mut h = FxHasher::default();
    st.vals.hash(&mut h);
    st.enabled.hash(&mut h);
    if with_hist {
        st.hist.hash(&mut h);
    }
    (st.own_turns[0] % lcm, st.own_turns[1] % lcm).hash(&mut h);
    st.to_move.hash(&mut h);
    st.outcome.hash(&mut h);
    h.finish()
}

/// The key of a position in the search's own tables (the transposition table, the best moves,
/// the probes): the same position as [`position_key`], from [`State::fingerprint`] (several
/// times cheaper; the search computes one per node). Only caches use it: seeds and the exact
/// tables keep `position_key`, so what is played does not depend on it.
#[inline]
pub(super) fn node_key(st: &State, lcm: u32) -> u64 {
    key_of(st, lcm, true)
}

/// [`node_key`], with or without the commands of the history.
#[inline]
pub(super) fn key_of(st: &State, lcm: u32, with_hist: bool) -> u64 {
    let counters = u64::from(st.own_turns[0] % lcm)
        | u64::from(st.own_turns[1] % lcm) << 21
        | (st.to_move as u64) << 42
        | (st.outcome.map_or(0, |o| o as u64 + 1)) << 44;
    st.fingerprint(with_hist) ^ crate::engine::rng::mix(counters ^ 0x006B_6579)
}

/// The lcm of a program's periods, which the own-turn counters are kept modulo in
/// [`position_key`] and [`node_key`] (every periodic rule is due again at the same phase after
/// it).
pub(super) fn lcm_of(periods: &[u32]) -> u32 {
    crate::program::period_lcm(periods.iter().copied())
}

/// The key of playing `cmds` from `st` in [`Searcher::played`](super::Searcher::played): the
/// whole position, its turn counters included (the turn limit and the periods read them), and
/// the move.
pub(super) fn played_key(st: &State, cmds: [Option<CmdId>; 2]) -> u64 {
    let counters = u64::from(st.turn) | u64::from(st.own_turns[0]) << 32;
    let moves = u64::from(cmds[0].map_or(u32::MAX, |c| c)) << 32
        | u64::from(cmds[1].map_or(u32::MAX, |c| c));
    let mix = crate::engine::rng::mix;
    key_of(st, u32::MAX, true) ^ mix(counters ^ mix(moves ^ mix(u64::from(st.own_turns[1]))))
}

/// The key of a position searched to `depth` in the transposition table.
pub(super) fn tt_key(pkey: u64, depth: u32) -> u64 {
    pkey ^ (depth as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}
