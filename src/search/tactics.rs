//! The tactics suite: alternate positions whose right move is known exactly, like the test
//! suites of chess engines. A position is a **tactic** when exact forced-win search
//! ([`super::solve::judge_moves`], every reply and every chance outcome) splits its moves:
//! - *win*: some moves force a win within the horizon and others do not — the CPU must play one
//!   that does;
//! - *defend*: some moves let the opponent force a win within the horizon (for every chance
//!   outcome) and others do not — the CPU must avoid them (a threat the opponent can execute at
//!   the next ply, seen whatever the CPU's own horizon).
//!
//! Positions come from seeded random games (each side's moves uniformly at random), so the
//! suite is the same on any machine; `benches/tactics.rs` reports it per file and a test keeps
//! a small subset.

use super::base::moves;
use super::cpu::CpuPlayer;
use super::keys::position_key;
use super::settings::CpuSettings;
use super::solve::judge_moves;
use crate::engine::rng::SplitMix;
use crate::engine::{Engine, Side, State};
use crate::program::{CmdId, RuleProgram};
use rustc_hash::FxHashSet;

/// What a tactic asks of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Play a move that forces a win within the horizon.
    Win,
    /// Avoid the moves after which the opponent forces a win within the horizon.
    Defend,
}

/// One position of the suite.
#[derive(Clone, Debug)]
pub struct Tactic {
    /// The position (its side to move chooses).
    pub state: State,
    /// Win or defend.
    pub kind: Kind,
    /// The moves that solve it.
    pub good: Vec<Option<CmdId>>,
    /// The moves that fail it (for a win: those not proved to win; for a defence: those that
    /// lose by force).
    pub bad: Vec<Option<CmdId>>,
    /// The random game it came from and the turn within it.
    pub game: u64,
    /// Turn of that game.
    pub turn: u32,
}

/// How tactics are searched for.
#[derive(Clone, Copy, Debug)]
pub struct Collect {
    /// Seed of the random games.
    pub seed: u64,
    /// Random games at most.
    pub games: u64,
    /// Plies of the forced-win search, the move included (3: a win the next time the side moves,
    /// or a loss at the opponent's next move).
    pub plies: u32,
    /// Nodes per position for the forced-win search (a position it cannot settle is skipped).
    pub node_cap: u64,
    /// Tactics at most.
    pub max: usize,
    /// Turns per random game at most.
    pub max_turns: u32,
}

impl Default for Collect {
    fn default() -> Self {
        Collect {
            seed: 1,
            games: 200,
            plies: 5,
            node_cap: 200_000,
            max: 10,
            max_turns: 200,
        }
    }
}

/// Tactics of an alternate game, from seeded random games (empty for a simultaneous game).
pub fn collect(prog: &RuleProgram, how: &Collect) -> Vec<Tactic> {
    let mut out = Vec::new();
    let mut seen = FxHashSet::default();
    let lcm = super::keys::lcm_of(&prog.periods());
    for g in 0..how.games {
        if out.len() >= how.max {
            break;
        }
        let seed = how.seed.wrapping_mul(0x9E37_79B9).wrapping_add(g);
        let eng = Engine::new(prog, seed);
        if eng.simultaneous {
            return out;
        }
        let first = if g % 2 == 0 { Side::H } else { Side::C };
        let Ok(mut st) = eng.initial(first) else {
            return out;
        };
        let mut rng = SplitMix(crate::engine::rng::mix(seed ^ 0x7AC7));
        while st.outcome.is_none() && st.turn < how.max_turns && out.len() < how.max {
            let side = st.to_move;
            let mine = moves(&eng, &st, side);
            if mine.len() >= 2
                && seen.insert(position_key(&st, lcm))
                && let Some(judged) = judge_moves(prog, &st, how.plies, how.node_cap)
                && let Some(t) = classify(&st, &judged, g)
            {
                out.push(t);
            }
            let m = mine[rng.below(mine.len())];
            let mut cmds = [None, None];
            cmds[side] = m;
            if eng.play(&mut st, cmds, None).is_err() {
                break;
            }
        }
    }
    out
}

fn classify(st: &State, judged: &[(Option<CmdId>, Option<bool>)], game: u64) -> Option<Tactic> {
    let pick = |f: &dyn Fn(Option<bool>) -> bool| -> Vec<Option<CmdId>> {
        judged
            .iter()
            .filter(|(_, v)| f(*v))
            .map(|(m, _)| *m)
            .collect()
    };
    let wins = pick(&|v| v == Some(true));
    let (kind, good, bad) = if !wins.is_empty() && wins.len() < judged.len() {
        (Kind::Win, wins, pick(&|v| v != Some(true)))
    } else {
        let lose = pick(&|v| v == Some(false));
        if lose.is_empty() || lose.len() == judged.len() {
            return None;
        }
        (Kind::Defend, pick(&|v| v != Some(false)), lose)
    };
    Some(Tactic {
        state: st.clone(),
        kind,
        good,
        bad,
        game,
        turn: st.turn,
    })
}

/// The move the CPU of `settings` plays in the tactic's position (a fresh player seeded by
/// `seed`, no game before it), and whether it solves the tactic.
pub fn solve_with(
    prog: &RuleProgram,
    settings: &CpuSettings,
    t: &Tactic,
    seed: u64,
) -> (Option<CmdId>, bool) {
    let mut cpu = CpuPlayer::new(prog, settings.clone(), seed);
    let m = cpu.think(&t.state, t.state.to_move);
    (m, t.good.contains(&m))
}
