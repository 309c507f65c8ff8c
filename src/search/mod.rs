//! Search over the real rules: the CPU player (negamax with alpha-beta, a transposition table,
//! iterative deepening, the best move and killer moves tried first, and Star1/Star2 pruning below
//! chance; a mixed strategy from the matrix game in simultaneous mode), and the win-path /
//! forced-win solver.
//!
//! Inside a search `rand(a,b)` is chance: a move's value is the mean over its outcomes (every
//! combination when there are few, seeded samples otherwise — see [`Searcher::outcomes`]), the
//! shortest win may pick the favourable outcomes, and a forced win must hold for every outcome.
//! A search never touches a match's draws.
//!
//! The submodules:
//! - `searcher.rs`: the [`Searcher`] (negamax, Star2 below chance, the simultaneous matrix
//!   game), its value constants and the matrix game's cells;
//! - `chance.rs`: the searcher's chance outcomes of a move (enumerated or sampled, merged, kept
//!   for the deepening's next iteration);
//! - `keys.rs`: the position keys ([`position_key`] and the search's cheaper ones), and which
//!   table uses each;
//! - `cpu.rs`: the [`CpuPlayer`];
//! - `settings.rs`: the CPU's settings ([`CpuSettings`]);
//! - [`exact`]: the exact table behind `cpu:exact`;
//! - [`matrix`]: matrix games (linear programming);
//! - [`solve`]: the shortest win, the forced win and value iteration behind the public API here
//!   ([`shortest_win`], [`forced_win`], [`value_iteration`]).
//!
//! This file keeps the engine the searches use, the moves of a side, the evaluation scale, the
//! chance constants and that public analysis API.

pub mod bound;
mod chance;
mod cpu;
pub mod exact;
mod keys;
pub mod local;
pub mod matrix;
mod searcher;
mod settings;
pub mod solve;
pub mod tactics;
pub mod trained;
pub use cpu::{CpuPlayer, CpuStreams};
pub use keys::position_key;
pub use searcher::Searcher;
pub use settings::{CpuSettings, CpuSpecError, CpuSpecProblem, EXACT_BUDGET, EXACT_POSITIONS};

use crate::analysis::FastEval;
use crate::engine::{Engine, Side, State};
use crate::program::{CmdId, RuleProgram};

/// Who loses by a move that raised a rule error (an overflow, a division by zero: LANGUAGE.md
/// §5), in every search, solver and exact table. The project's reading, written down in
/// docs: a rule error is a defect of the rules that the side whose move raised it must not
/// profit from, so that side loses — in alternate play the side that moved (the error arose in
/// its turn: its resolution, the end check or the availability after it), in simultaneous play
/// the side the failing rule was evaluated for (its `S`). Valuing it as a draw let a side
/// escape a certain loss by overflowing a state; valuing it as anything at all is only sound
/// because every answer that meets one says so ([`RuleErrors`]).
pub fn rule_error_loser(
    simultaneous: bool,
    before: &State,
    e: &crate::engine::RuntimeError,
) -> Side {
    if simultaneous { e.side } else { before.to_move }
}

/// The rule errors a search or table met: how many moves raised one, and the first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RuleErrors {
    /// Moves that raised a rule error (a move with several chance outcomes counts each).
    pub moves: u64,
    /// The first: the error, the turn of the position it was played from, the moves (h's,
    /// c's) and the side that was valued as losing.
    pub first: Option<FirstRuleError>,
}

/// The rule errors a search or table met, as `--format json` gives them.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RuleErrorSummary {
    /// In words, as the text output leads with it.
    pub text: String,
    /// Moves that raised one (a move with several chance outcomes counts each).
    pub moves: u64,
    /// The first one's source line.
    pub line: usize,
    /// What went wrong.
    pub message: String,
    /// The turn (from 1) it was played on.
    pub turn: u32,
    /// The moves, in words ("h played a").
    pub played: String,
    /// The side valued as losing by it: "h" or "c".
    pub loser: String,
}

/// The first move that raised a rule error in a search or table.
#[derive(Clone, Debug, PartialEq)]
pub struct FirstRuleError {
    /// The error (its line and message).
    pub error: crate::engine::RuntimeError,
    /// The turn counter of the position the move was played from.
    pub turn: u32,
    /// The moves played: h's and c's (None: a pass, or the side that did not move).
    pub moves: [Option<CmdId>; 2],
    /// The moves in words ("h played a").
    pub played: String,
    /// The side valued as losing by it.
    pub loser: Side,
}

impl RuleErrors {
    /// Counts a move from `st` that raised `e`, valued as a loss for `loser`.
    pub fn note(
        &mut self,
        prog: &RuleProgram,
        st: &State,
        moves: [Option<CmdId>; 2],
        e: &crate::engine::RuntimeError,
        loser: Side,
    ) {
        self.moves += 1;
        if self.first.is_some() {
            return;
        }
        let name = |m: Option<CmdId>| {
            m.map_or("(pass)".to_string(), |c| prog.commands[c as usize].clone())
        };
        let played = match moves {
            [Some(a), Some(b)] => format!("h played {} and c {}", name(Some(a)), name(Some(b))),
            [a @ Some(_), None] => format!("h played {}", name(a)),
            [None, b @ Some(_)] => format!("c played {}", name(b)),
            _ => "a side passed".to_string(),
        };
        self.first = Some(FirstRuleError {
            error: e.clone(),
            turn: st.turn,
            moves,
            played,
            loser,
        });
    }

    /// The facts for JSON, with [`RuleErrors::text`] among them (None: no move raised one).
    pub fn summary(&self, unit: &str) -> Option<RuleErrorSummary> {
        let f = self.first.as_ref()?;
        Some(RuleErrorSummary {
            text: self.text(unit)?,
            moves: self.moves,
            line: f.error.line,
            message: f.error.message.clone(),
            turn: f.turn + 1,
            played: f.played.clone(),
            loser: f.loser.name().to_string(),
        })
    }

    /// In words: None when no move raised an error. "RULE ERROR: 1 move raised a rule error —
    /// line 2: overflow updating x (…) (first on turn 1 when h played a) — each valued as a
    /// loss for the side whose move raised it (here h)". `unit` names what was counted.
    pub fn text(&self, unit: &str) -> Option<String> {
        let f = self.first.as_ref()?;
        let played = &f.played;
        Some(format!(
            "RULE ERROR: {} raised a rule error — line {}: {} (first on turn {} when {played}) — each valued as a loss for the side whose move raised it (here {})",
            if self.moves == 1 {
                format!("1 of the {unit}")
            } else {
                format!("{} {unit}", solve::thousands(self.moves))
            },
            f.error.line,
            f.error.message,
            // Turns are counted from 1 in every answer; the position's counter from 0.
            f.turn + 1,
            f.loser.name()
        ))
    }
}

/// An engine whose unscripted `rand` draws are the midpoint of their range (the searches drive
/// the draws with [`ChanceScript`]s and average over the outcomes).
///
/// [`ChanceScript`]: crate::engine::ChanceScript
pub fn search_engine(prog: &RuleProgram) -> Engine<'_> {
    let mut e = Engine::new(prog, 0);
    e.chance = Some(Box::new(|_, _, _, _, lo, hi| {
        ((i128::from(lo) + i128::from(hi)) / 2) as i64
    }));
    e
}

/// The evaluation that is worth tanh(1) ≈ 0.76 of a win: twice the larger distance to winning
/// at the start (between 4 and 32: a game won from 2 turns away, like CC Lemon, needs a finer
/// scale than one won from 11, like example 1), plus the largest advantage the file's constant
/// advantage lines can give, so that advantage blocks do not saturate it.
fn eval_scale(prog: &RuleProgram, fast: &FastEval, eng: &Engine) -> f64 {
    let adv: f64 = prog
        .adv
        .iter()
        .map(|a| match prog.code_of(a.value) {
            [crate::program::Op::Push(v)] => (a.weight * *v as f64).abs(),
            _ => 0.0,
        })
        .sum();
    let d = match eng.initial(Side::H) {
        Ok(st) => fast
            .to_win(eng, &st, Side::H)
            .max(fast.to_win(eng, &st, Side::C)),
        Err(_) => 8,
    };
    (2.0 * d as f64).clamp(4.0, 32.0) + adv
}

/// Moves of a side: its enabled commands, or a single pass.
pub fn moves(eng: &Engine, st: &State, side: Side) -> Vec<Option<CmdId>> {
    let mut buf = Vec::new();
    eng.enabled_commands(st, side, &mut buf);
    if buf.is_empty() {
        vec![None]
    } else {
        buf.into_iter().map(Some).collect()
    }
}

/// Outcome combinations of one move up to which chance is enumerated exactly inside the CPU's
/// search; beyond it, [`CHANCE_SAMPLES`] seeded samples stand for the distribution.
pub const CHANCE_EXACT: u64 = 16;
/// Samples drawn for a move with more than [`CHANCE_EXACT`] outcome combinations.
pub const CHANCE_SAMPLES: u32 = 16;
/// The fewest chance outcomes a move below the root gets in the CPU's alternate search (see
/// `Searcher::chance_width`).
pub const MIN_CHANCE_WIDTH: u64 = 4;

/// Who moves at a step or node: "h", "c", "both" (simultaneous), or "win" (h has won: a
/// strategy tree's leaf) in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mover {
    /// h alone.
    H,
    /// c alone.
    C,
    /// Both at once (simultaneous mode).
    Both,
    /// Nobody: h has won.
    Win,
}

impl Mover {
    /// "h", "c", "both" or "win".
    pub fn as_str(self) -> &'static str {
        match self {
            Mover::H => "h",
            Mover::C => "c",
            Mover::Both => "both",
            Mover::Win => "win",
        }
    }
}

impl From<Side> for Mover {
    fn from(s: Side) -> Self {
        match s {
            Side::H => Mover::H,
            Side::C => Mover::C,
        }
    }
}

/// One step of a win path.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PathStep {
    /// Who moved: h or c, or both in simultaneous mode.
    pub side: Mover,
    /// The command (null for a pass); in simultaneous mode "h/c".
    pub command: Option<String>,
    /// Both sides' states after the step.
    pub states: crate::engine::players::BothStates,
    /// Probability of the chance outcome the path assumes at this step (1 without chance).
    pub probability: f64,
}

/// The shortest sequence of moves (h and c cooperating) that ends with h winning, by breadth-first
/// search over positions (the turn counter is not part of a position), up to `max_plies`. Chance
/// outcomes are branches: the path may assume favourable outcomes. (A search that another
/// thread may cancel calls [`solve::shortest_win_in`] with its flag.)
pub fn shortest_win(
    prog: &RuleProgram,
    start: &State,
    max_plies: u32,
    position_cap: usize,
) -> solve::ShortestWin {
    solve::shortest_win_in(prog, start, max_plies, position_cap, None)
}

/// Whether h can force a win within `plies` (alternate: one side's move per ply; simultaneous:
/// one joint turn per ply, h choosing without seeing c's move) against every reply and every
/// chance outcome, and h's first winning move. [`solve::forced_win_in`] also gives the tree.
pub fn forced_win(
    prog: &RuleProgram,
    start: &State,
    plies: u32,
    node_cap: u64,
) -> (Option<bool>, Option<String>) {
    let f = solve::forced_win_in(prog, start, plies, node_cap, None);
    (f.exists, f.first_move)
}

/// The result of value iteration on a simultaneous game.
#[derive(Clone, Debug)]
pub struct GameValue {
    /// Value for h at the start (+1 win, −1 loss, 0 draw or endless).
    pub value: f64,
    /// h's moves and optimal mix at the start.
    pub h: Vec<(Option<CmdId>, f64)>,
    /// c's moves and optimal mix at the start.
    pub c: Vec<(Option<CmdId>, f64)>,
    /// How much a best reply gains against the start strategies (in the solved game).
    pub exploitability: f64,
    /// Positions in the solved game.
    pub states: usize,
    /// Positions cut off by the bound (valued by the derived evaluation, scaled into (−1, 1)).
    pub frontier: usize,
    /// Iterations until the largest change fell below 1e-10 (at most 5,000).
    pub iterations: u32,
    /// The largest change of a value in the last iteration: below 1e-10 when it converged,
    /// else the 5,000 iterations ran out first (the value and strategies are then estimates,
    /// and the exploitability is that of the start's strategies in the values reached).
    pub residual: f64,
    /// The iterations stopped at [`solve::VALUE_TIME`] rather than by converging or at 5,000.
    pub timed_out: bool,
    /// The iterations stopped at the solve budget given (see
    /// [`solve::value_iteration_budgeted`]) rather than by converging.
    pub out_of_work: bool,
    /// The bound on state values that was needed (None: every reachable position was solved).
    pub bound: Option<i64>,
    /// The probability that a game from the start ends with a winner when both sides play the
    /// optimal mixes (the rest: a draw, or play that never ends); positions past the bound
    /// count as ending with a winner. See [`exact::ExactTable::decisive_share`].
    pub decisive: f64,
    /// Each side's moves (h's, c's) that optimal play (discounted, as in `decisive`) uses
    /// with a positive probability in some solved position.
    pub used: [Vec<Option<CmdId>>; 2],
    /// The expected number of turns of a game from the start under those mixes, for a game
    /// of at most [`solve::LENGTH_POSITIONS`] positions; None for a larger one, or when play
    /// goes on to the turn limit (or for ever).
    pub length: Option<f64>,
    /// How the turn limit was taken into account: it cannot end a game, or every position was
    /// valued with its turns left.
    pub limit: exact::LimitUse,
    /// The iteration stopped because the values by turns left outgrew
    /// [`exact::HISTORY_CAP`] (the value is then not converged).
    pub out_of_memory: bool,
    /// The moves between the solved positions that raised a rule error.
    pub rule_errors: RuleErrors,
}

/// What a game value's rule errors count.
const GAME_VALUE_ERRORS: &str = "moves between the solved positions";

impl GameValue {
    /// The rule errors met, in words (None: none).
    pub fn errors_text(&self) -> Option<String> {
        self.rule_errors.text(GAME_VALUE_ERRORS)
    }

    /// The rule errors met, for JSON (None: none).
    pub fn errors_summary(&self) -> Option<RuleErrorSummary> {
        self.rule_errors.summary(GAME_VALUE_ERRORS)
    }

    /// Which positions were solved, in words, and which limit left the rest to an estimate (for
    /// the outputs that say how a value was found): all of them; or, in a game with too many,
    /// those within the bound on state values; or the first [`VALUE_POSITIONS`] when even those
    /// are too many.
    pub fn positions_text(&self) -> String {
        let limit = self.limit.text();
        let scope = self.scope_text();
        if limit.is_empty() {
            scope
        } else {
            format!("{scope}; {limit}")
        }
    }

    /// [`Self::positions_text`] without the turn limit.
    fn scope_text(&self) -> String {
        let n = |x: usize| solve::thousands(x as u64);
        match self.bound {
            None => format!(
                "all {} reachable positions (nothing estimated)",
                n(self.states)
            ),
            Some(b) if self.states >= VALUE_POSITIONS => format!(
                "the first {} positions reached — the game has more than the limit of {} positions, \
                 so {} positions past that limit are estimated by the derived evaluation, not \
                 solved (state values were also kept within ±{b} of the start)",
                n(self.states),
                n(VALUE_POSITIONS),
                n(self.frontier)
            ),
            Some(b) => format!(
                "the {} positions in which every state stays within ±{b} of its start value — the \
                 game has too many positions to solve them all, so {} positions past that bound \
                 are estimated by the derived evaluation, not solved",
                n(self.states),
                n(self.frontier)
            ),
        }
    }
}

/// How many positions `kumite solve --value`, the studio's Win path tab and the report's exact
/// section solve at most (past it, positions are estimated: see [`GameValue::positions_text`]).
pub const VALUE_POSITIONS: usize = 200_000;

/// How far state values may move from the start in the solved game of `kumite solve --value`,
/// the studio's Win path tab and the report's exact section.
pub const VALUE_BOUND: i64 = 12;

/// Solves a simultaneous game by value iteration with a linear program (matrix game) per
/// position. The state space is bounded: every position reachable from `start` whose state
/// values stay within `bound` of their starting values is solved exactly; positions beyond are a
/// frontier valued by the derived evaluation (so a small bound gives an estimate). The turn
/// counter is not part of a position: an endless game is worth 0. Chance is averaged. (A run
/// that another thread may cancel calls [`solve::value_iteration_in`] with its flag.)
pub fn value_iteration(
    prog: &RuleProgram,
    start: &State,
    bound: i64,
    max_states: usize,
) -> GameValue {
    solve::value_iteration_in(prog, start, bound, max_states, None).expect("not cancelled")
}
