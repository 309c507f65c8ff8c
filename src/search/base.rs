//! What every search here shares, and nothing of the searches themselves: the engine they use,
//! a side's moves, the evaluation scale, the chance and history constants, the discount of a
//! turn's delay, and how a move that raised a rule error is valued. A leaf: it names no other
//! submodule of `search`, so each of them can use it without a circle.

use crate::analysis::FastEval;
use crate::engine::{Engine, Side, State};
use crate::program::{CmdId, RuleProgram, RunConfig};

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
                format!("{} {unit}", thousands(self.moves))
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
    search_engine_with(prog, &RunConfig::default())
}

/// [`search_engine`] for one run of `prog` under `config` (restricted play's banned commands).
pub fn search_engine_with<'p>(prog: &'p RuleProgram, config: &RunConfig) -> Engine<'p> {
    let mut e = Engine::with_config(prog, 0, config);
    e.chance = Some(Box::new(|_, _, _, _, lo, hi| {
        ((i128::from(lo) + i128::from(hi)) / 2) as i64
    }));
    e
}

/// The evaluation that is worth tanh(1) ≈ 0.76 of a win: twice the larger distance to winning
/// at the start (between 4 and 32: a game won from 2 turns away, like CC Lemon, needs a finer
/// scale than one won from 11, like example 1), plus the largest advantage the file's constant
/// advantage lines can give, so that advantage blocks do not saturate it.
pub(super) fn eval_scale(prog: &RuleProgram, fast: &FastEval, eng: &Engine) -> f64 {
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

/// Earlier positions of the game that the search looks for (the latest ones).
pub const HISTORY: usize = 32;

/// The value of a turn's delay: a win in n turns is worth `DISCOUNT^n` (the exact tables, and
/// the matrix game's positions that come back).
pub const DISCOUNT: f64 = 0.999;

/// 1234567 → "1,234,567".
pub fn thousands(n: u64) -> String {
    let d = n.to_string();
    let mut s = String::new();
    for (i, ch) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            s.push(',');
        }
        s.push(ch);
    }
    s
}
