//! The match engine: exact turn semantics (rules/README.md §9, the language contract's §8) over a compiled [`RuleProgram`].
//!
//! A [`State`] is always *ready to choose*: the availability rules of the side(s) about to move
//! have run. [`Engine::play`] resolves one turn (one side in alternate mode, both in simultaneous
//! mode), runs the end check, and prepares the next turn. State is flat integers; the engine
//! keeps its scratch buffers, so a turn allocates nothing.
//!
//! One turn, by concern: [`tables`] (what `Engine::new` builds once per program) · [`avail`]
//! (step 1, which commands are enabled) · [`resolve`] (step 2, the reference path: writes
//! collected on the snapshot, then merged) and [`direct`] (the fast path: every alternate-mode
//! program, and simultaneous ones where the tables prove it equal) ·
//! [`end`] (step 4, victory rules and who won; checked flat when they are range tests that
//! set 勝利/敗北) · [`eval`] (conditions and expressions) · [`chance`] (`rand` draws, scripted
//! or sampled). [`Engine::play`] below runs them in order; [`plain`] is the same turn written
//! flat for programs whose tables allow it (direct resolution, availability made only of range
//! tests), taken when no trace is kept.

mod avail;
mod chance;
mod direct;
mod end;
mod eval;
mod plain;
mod resolve;
mod tables;

pub mod players;
pub mod rng;

use chance::BinaryDraw;
pub use chance::{ChanceFn, ChanceScript, Draw};
use resolve::{Target, Write};
use tables::{Avail, DirectFx, DirectRule, Fast, NONE_AT};

use crate::program::{CCond, CRule, CmdId, LOSE_STATE, Op, RuleProgram, RunConfig, WIN_STATE};
use crate::syntax::ast::{CmpOp, Func, SideRef, UpdOp};
use std::cell::{Cell, RefCell};

/// No command (a pass) in the history.
pub const NONE: u32 = u32::MAX;

/// A side (see [`crate::side`]).
pub use crate::side::Side;

/// How a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// h won.
    H,
    /// c won.
    C,
    /// Both won at the same check, or the turn limit was reached.
    Draw,
}

impl Outcome {
    /// "h", "c" or "draw".
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::H => "h",
            Outcome::C => "c",
            Outcome::Draw => "draw",
        }
    }

    /// The side that won (None for a draw).
    pub fn winner(self) -> Option<Side> {
        match self {
            Outcome::H => Some(Side::H),
            Outcome::C => Some(Side::C),
            Outcome::Draw => None,
        }
    }
}

/// How a played game ended: a winner, a draw, or an error (a runtime error or a game that could
/// not start: no winner). Written "h", "c", "draw" or "error" in JSON and logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GameResult {
    /// h won (or c forfeited).
    H,
    /// c won (or h forfeited).
    C,
    /// Both won at the same check, or the turn limit was reached.
    Draw,
    /// A runtime error ended the game.
    Error,
}

impl GameResult {
    /// "h", "c", "draw" or "error".
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::H => "h",
            GameResult::C => "c",
            GameResult::Draw => "draw",
            GameResult::Error => "error",
        }
    }

    /// The game's outcome (None after an error).
    pub fn outcome(self) -> Option<Outcome> {
        match self {
            GameResult::H => Some(Outcome::H),
            GameResult::C => Some(Outcome::C),
            GameResult::Draw => Some(Outcome::Draw),
            GameResult::Error => None,
        }
    }
}

impl From<Outcome> for GameResult {
    fn from(o: Outcome) -> Self {
        match o {
            Outcome::H => GameResult::H,
            Outcome::C => GameResult::C,
            Outcome::Draw => GameResult::Draw,
        }
    }
}

/// An arithmetic error during a match: it ends the match cleanly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    /// Index of the expanded rule.
    pub rule: usize,
    /// 1-based source line of that rule.
    pub line: usize,
    /// What went wrong.
    pub message: String,
    /// The side the failing rule was evaluated for (its `S`): in simultaneous play, the side
    /// whose move raised the error.
    pub side: Side,
}

impl From<Box<RuntimeError>> for RuntimeError {
    fn from(b: Box<RuntimeError>) -> Self {
        *b
    }
}

impl std::fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// The position of a match: flat integers only.
#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct State {
    /// State values: side * n_states + state.
    pub vals: Vec<i64>,
    /// Enabled flags: side * n_commands + command.
    pub enabled: Vec<bool>,
    /// Command history: side * hist_len + k, k = 0 the latest (NONE = no command).
    pub hist: Vec<u32>,
    /// Turns each side has taken.
    pub own_turns: [u32; 2],
    /// Turns played (alternate: single-side turns; simultaneous: joint turns).
    pub turn: u32,
    /// Side to move (alternate mode).
    pub to_move: Side,
    /// Set once the match is decided.
    pub outcome: Option<Outcome>,
}

impl State {
    /// A 64-bit fingerprint of the state values and the enabled flags (and the history when
    /// `with_hist`), for the search's caches keyed by position. Four independent multiply lanes
    /// and the flags packed eight to a word: a position of a few dozen words costs a few
    /// nanoseconds, where FxHash chains one multiply per value and one per flag. Positions that
    /// differ in one word never collide (each lane's step is a bijection); the counters
    /// (`turn`, `own_turns`) and `to_move`/`outcome` are not included.
    #[inline]
    pub fn fingerprint(&self, with_hist: bool) -> u64 {
        const K: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut lanes: [u64; 4] = [
            0x243F_6A88_85A3_08D3,
            0x1319_8A2E_0370_7344,
            0xA409_3822_299F_31D0,
            0x082E_FA98_EC4E_6C89,
        ];
        #[inline(always)]
        fn step(l: &mut u64, w: u64) {
            *l = (*l ^ w).wrapping_mul(K).rotate_left(29);
        }
        let mut chunks = self.vals.chunks_exact(4);
        for c in &mut chunks {
            for (l, &w) in lanes.iter_mut().zip(c) {
                step(l, w as u64);
            }
        }
        for (l, &w) in lanes.iter_mut().zip(chunks.remainder()) {
            step(l, w as u64 ^ 0x5555);
        }
        // The flags eight to a word (eight byte loads the compiler merges into one).
        let mut flags = self.enabled.chunks_exact(8);
        for (k, c) in (&mut flags).enumerate() {
            let w = u64::from_le_bytes(std::array::from_fn(|j| u8::from(c[j])));
            step(&mut lanes[k & 3], w ^ 0xF1A6);
        }
        let rest = flags
            .remainder()
            .iter()
            .enumerate()
            .fold(0u64, |w, (j, &on)| w | u64::from(on) << (8 * j));
        step(&mut lanes[3], rest ^ 0xF1A7);
        if with_hist {
            for (k, c) in self.hist.chunks(2).enumerate() {
                let w = u64::from(c[0]) | c.get(1).map_or(0, |&x| u64::from(x) << 32);
                step(&mut lanes[(k + 2) & 3], w ^ 0x4157);
            }
        }
        let h = lanes[0]
            ^ lanes[1].rotate_left(16)
            ^ lanes[2].rotate_left(32)
            ^ lanes[3].rotate_left(48);
        crate::engine::rng::mix(h)
    }
}

impl Clone for State {
    fn clone(&self) -> Self {
        Self {
            vals: self.vals.clone(),
            enabled: self.enabled.clone(),
            hist: self.hist.clone(),
            own_turns: self.own_turns,
            turn: self.turn,
            to_move: self.to_move,
            outcome: self.outcome,
        }
    }

    /// Copies into the existing buffers (the derived `clone_from` would allocate three new
    /// vectors): the search copies positions from a pool at every node.
    fn clone_from(&mut self, src: &Self) {
        self.vals.clone_from(&src.vals);
        self.enabled.clone_from(&src.enabled);
        self.hist.clone_from(&src.hist);
        self.own_turns = src.own_turns;
        self.turn = src.turn;
        self.to_move = src.to_move;
        self.outcome = src.outcome;
    }
}

/// One state or flag change, for traces.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Change {
    /// The side (written "h" or "c").
    pub side: crate::side::Side,
    /// State name or `[command]`.
    pub name: String,
    /// Before.
    pub from: i64,
    /// After.
    pub to: i64,
}

/// What happened in one turn.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TurnTrace {
    /// Turn number (1-based).
    pub turn: u32,
    /// Commands chosen: (side, command or null for a pass).
    pub moves: Vec<(&'static str, Option<String>)>,
    /// Rules that fired: (acting side, rule index, source line, origin text).
    pub fired: Vec<(&'static str, usize, usize, String)>,
    /// Changes, including the availability run for the next turn.
    pub changes: Vec<Change>,
    /// Victory rules that held in the end check: (side, rule index, source line, origin text).
    pub end_check: Vec<(&'static str, usize, usize, String)>,
    /// Where in `changes` the availability run for the next turn begins (None: the game ended).
    pub availability_from: Option<usize>,
    /// The side(s) that availability run was for.
    pub next_movers: Vec<&'static str>,
}

#[derive(Default)]
struct Scratch {
    writes: Vec<Write>,
    stack: Vec<i64>,
    /// In a scripted turn: the writes whose value drew `rand` (see [`Replay`]).
    drawn: Vec<Drawn>,
}

/// A write of a scripted turn whose value came from an expression that drew `rand`.
#[derive(Clone, Copy, Debug)]
struct Drawn {
    /// Index in the turn's writes (on the two-phase direct path: in its operand values).
    at: u32,
    /// The expression's code.
    expr: (u32, u32),
    rule: u32,
    side: Side,
    /// How many draws it made.
    draws: u32,
}

/// What a scripted turn keeps so that its other chance outcomes can be played from the
/// resolution's writes instead of from the start (see [`Engine::replay_scripted`]): kept only
/// when every draw of the resolution was in an effect's value — then which rules fire and what
/// they write does not depend on the draws, only the drawn values do.
#[derive(Default)]
struct Replay {
    valid: bool,
    /// The position the resolution read (commands pushed, nothing applied).
    snapshot: State,
    writes: Vec<Write>,
    drawn: Vec<Drawn>,
    /// Kept by the two-phase direct path instead of `writes`: its first phase's result.
    direct: Option<TwoPhase>,
    /// On the two-phase direct path, when every draw was a `rand(lo,hi) OP k` condition: the
    /// rules that drew one, in order (the other rules' results do not depend on the draws).
    cond: Vec<CondDraw>,
}

/// A rule of a two-phase list that drew its one `rand(lo,hi) OP k` condition (see
/// [`Replay::cond`]): it holds when the draw does and its conditions after the draw hold.
#[derive(Clone, Copy, Debug)]
struct CondDraw {
    /// The rule's index in its list (its bit in `TwoPhase::held`).
    at: u32,
    lo: i64,
    hi: i64,
    op: CmpOp,
    k: i64,
    /// The conditions after the draw hold (they read the position only).
    after: bool,
}

/// The first phase of a two-phase direct resolution (see `Engine::resolve_two_phase`): the
/// acting side, its rule list, which rules held (and which `::` rules ran), and the operand
/// values in order.
#[derive(Clone, Copy, Debug)]
struct TwoPhase {
    side: Side,
    list: (u32, u32),
    held: u64,
    /// The `::` rules of the list that ran this turn (their period came): their flags and
    /// truth values are written whether they held or not.
    iff: u64,
    values: [i64; direct::TWO_PHASE_VALUES],
    nv: usize,
}

/// A condition pre-decoded by [`Engine::cond_test`]: a range test of one state or a command
/// of the history is tested directly, anything else the general way.
#[derive(Clone, Copy, Debug)]
pub struct CondTest {
    fast: Fast,
    cond: CCond,
}

impl CondTest {
    /// The condition.
    pub fn cond(&self) -> &CCond {
        &self.cond
    }
}

/// Internal results carry the (rare) error boxed, so the hot paths return small values.
type Res<T> = Result<T, Box<RuntimeError>>;

/// The engine for one program and one seed.
pub struct Engine<'p> {
    /// The program.
    pub prog: &'p RuleProgram,
    /// Seed of `rand`.
    pub seed: u64,
    /// Number of states.
    pub ns: usize,
    /// Number of commands.
    pub nc: usize,
    /// History length kept per side.
    pub hl: usize,
    /// Simultaneous mode.
    pub simultaneous: bool,
    /// Rules without command atoms that enable or disable commands (availability).
    avail_rules: Vec<u32>,
    victory_rules: Vec<u32>,
    /// Per rule: the acting side's command it needs this turn (NONE if none), checked first.
    need_cmd: Vec<u32>,
    /// Per command (and one more list for a pass, last): the rules that can matter when the
    /// acting side plays it, in file order — rules that need another command this turn are
    /// left out unless they are `::` rules (whose inverse applies when they fail).
    by_cmd: Vec<Vec<u32>>,
    /// Per condition: a pre-decoded fast form.
    fast: Vec<Fast>,
    /// Resolution takes the direct path (no writes collected; see [`direct`]).
    direct: bool,
    /// The availability rules in a compact form, when none has a condition that needs an
    /// expression evaluated (so none can fail): used when no trace is recorded.
    avail_fast: Option<Vec<Avail>>,
    /// The direct path's rules per command (and one more list for a pass, last): ranges into
    /// `direct_rules`, whose effects are ranges into `direct_fx`, and whether the list is
    /// resolved in two phases.
    direct_lists: Vec<(u32, u32, bool, bool)>,
    direct_rules: Vec<DirectRule>,
    direct_fx: Vec<DirectFx>,
    /// Per effect: its operand when that is a constant.
    effect_const: Vec<Option<i64>>,
    /// Their enable effects: (the flag's index for either acting side, on, on the opponent's
    /// flag).
    avail_en: Vec<([u32; 2], bool, bool)>,
    /// Some compact availability rule sets a flag of the opponent (`O.[X]`): simultaneous
    /// availability then needs its two merge passes; otherwise one pass gives the same flags.
    avail_cross: bool,
    /// The availability rules flattened (see [`plain`]), when every condition is a range test:
    /// used by every untraced availability run, in the plain turn and the general one.
    flat_avail: Option<plain::FlatAvailability>,
    scratch: RefCell<Scratch>,
    /// Draws that only decide one comparison with a constant.
    binary_draws: Vec<BinaryDraw>,
    /// A scripted turn is being played: draws follow `script`.
    scripted: Cell<bool>,
    script: RefCell<ChanceScript>,
    /// Some effect's value draws `rand` (a scripted turn then notes which values drew).
    value_draws: bool,
    /// Some rule of the direct path has a `rand(lo,hi) OP k` condition (a scripted turn then
    /// notes which rules drew, see [`Replay::cond`]).
    cond_draws: bool,
    /// Draws made by scripted turns so far (a counter: differences tell which values drew).
    draws_made: Cell<u32>,
    /// The last scripted turn's resolution, when its other outcomes can be replayed from it.
    replay: RefCell<Replay>,
    /// Firing counts per rule, when counting (see [`Engine::counting`]).
    fires: Option<RefCell<Vec<u32>>>,
    /// When set, `rand` draws are replaced: (turn, side, rule, slot, lo, hi) → value. Used by search.
    pub chance: Option<ChanceFn<'p>>,
    /// The victory rules written flat, when they allow it (see `tables::flat_victory`): the
    /// untraced end check.
    flat_victory: Option<Vec<tables::FlatVictory>>,
    /// The starting position ready to choose, h or c first, when it is the same for every game
    /// (flat availability): [`Engine::reset`] copies it.
    ready: Option<Box<[State; 2]>>,
    /// The turn at whose end an undecided match is a draw: the program's `T`, or `u32::MAX` for
    /// the exact tables, which count the turns left themselves ([`crate::search::exact`]).
    pub turn_limit: u32,
    /// What this run varies (commands banned): see [`Engine::config`].
    config: RunConfig,
}

impl<'p> Engine<'p> {
    /// The starting position, with `first` to move (alternate mode), ready to choose.
    pub fn initial(&self, first: Side) -> Result<State, RuntimeError> {
        let p = self.prog;
        let mut vals = Vec::with_capacity(2 * self.ns);
        vals.extend_from_slice(&p.init_values[0]);
        vals.extend_from_slice(&p.init_values[1]);
        let mut enabled = Vec::with_capacity(2 * self.nc);
        enabled.extend_from_slice(&p.init_enabled[0]);
        enabled.extend_from_slice(&p.init_enabled[1]);
        let mut st = State {
            vals,
            enabled,
            hist: vec![NONE; 2 * self.hl],
            own_turns: [0, 0],
            turn: 0,
            to_move: first,
            outcome: None,
        };
        self.prepare(&mut st, None)?;
        Ok(st)
    }

    /// The run's configuration it was made with ([`Engine::with_config`]): a search that makes
    /// engines of its own for the same run makes them with it.
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// Runs availability for the side(s) about to move again, e.g. after a position was edited
    /// by hand before a match starts from it.
    pub fn refresh_availability(&self, st: &mut State) -> Result<(), RuntimeError> {
        self.prepare(st, None).map_err(|e| *e)
    }

    /// The position as each side meets it at its own next turn: in an alternate game the side
    /// not to move has its availability run as well, as it will be before its move if nothing
    /// else changes (availability runs only for the side about to move). The victory tree and
    /// the Initial state view judge this position, so a command an availability rule enables
    /// reads the same for both sides of a symmetric file.
    pub fn as_each_side_meets_it(&self, st: &State) -> Result<State, RuntimeError> {
        let mut out = st.clone();
        if self.simultaneous || st.outcome.is_some() {
            return Ok(out);
        }
        let other = st.to_move.opponent();
        let mut o = st.clone();
        o.to_move = other;
        self.prepare(&mut o, None).map_err(|e| *e)?;
        let r = other.index() * self.nc..(other.index() + 1) * self.nc;
        out.enabled[r.clone()].copy_from_slice(&o.enabled[r]);
        Ok(out)
    }

    /// Resets `st` to the starting position with `first` to move, reusing its buffers (as
    /// [`Engine::initial`], without allocating).
    pub fn reset(&self, st: &mut State, first: Side) -> Result<(), RuntimeError> {
        if let Some(ready) = &self.ready {
            let r = &ready[first];
            st.vals.clone_from(&r.vals);
            st.enabled.clone_from(&r.enabled);
            st.hist.clone_from(&r.hist);
            (st.own_turns, st.turn, st.to_move, st.outcome) =
                (r.own_turns, r.turn, r.to_move, r.outcome);
            return Ok(());
        }
        let p = self.prog;
        st.vals.clear();
        st.vals.extend_from_slice(&p.init_values[0]);
        st.vals.extend_from_slice(&p.init_values[1]);
        st.enabled.clear();
        st.enabled.extend_from_slice(&p.init_enabled[0]);
        st.enabled.extend_from_slice(&p.init_enabled[1]);
        st.hist.clear();
        st.hist.resize(2 * self.hl, NONE);
        st.own_turns = [0, 0];
        st.turn = 0;
        st.to_move = first;
        st.outcome = None;
        self.prepare(st, None)?;
        Ok(())
    }

    /// Value of a state of a side.
    pub fn val(&self, st: &State, side: Side, state: u32) -> i64 {
        st.vals[side.index() * self.ns + state as usize]
    }

    /// True if `cmd` is enabled for `side`.
    pub fn is_enabled(&self, st: &State, side: Side, cmd: CmdId) -> bool {
        st.enabled[side.index() * self.nc + cmd as usize]
    }

    /// The enabled commands of `side`, appended to `out` (in command order).
    #[inline]
    pub fn enabled_commands(&self, st: &State, side: Side, out: &mut Vec<CmdId>) {
        out.clear();
        let flags = &st.enabled[side.index() * self.nc..(side.index() + 1) * self.nc];
        for (c, &on) in flags.iter().enumerate() {
            if on {
                out.push(c as CmdId);
            }
        }
    }

    /// The enabled commands of `side` written to the front of `buf` (at least
    /// [`Engine::nc`] long), in command order; returns how many. Written without a branch on
    /// each flag (every command is written, the count advances by the flag): the flags are as
    /// unpredictable as the game.
    #[inline]
    pub fn enabled_into(&self, st: &State, side: Side, buf: &mut [CmdId]) -> usize {
        let flags = &st.enabled[side.index() * self.nc..(side.index() + 1) * self.nc];
        let buf = &mut buf[..flags.len()];
        let mut n = 0;
        for (c, &on) in flags.iter().enumerate() {
            buf[n] = c as CmdId;
            n += usize::from(on);
        }
        n
    }

    /// The sides that choose now.
    pub fn movers(&self, st: &State) -> &'static [Side] {
        if self.simultaneous {
            &[Side::H, Side::C]
        } else if st.to_move == Side::H {
            &[Side::H]
        } else {
            &[Side::C]
        }
    }

    /// Plays one turn: `cmds[side]` for the side(s) to move (ignored for others). A command that
    /// is not enabled is played as a pass. Resolves, checks the end, prepares the next turn.
    pub fn play(
        &self,
        st: &mut State,
        cmds: [Option<CmdId>; 2],
        mut trace: Option<&mut TurnTrace>,
    ) -> Result<(), RuntimeError> {
        if st.outcome.is_some() {
            return Ok(());
        }
        if let (Some(avail), None, true) = (&self.flat_avail, &trace, self.direct) {
            return self.play_plain(st, cmds, avail).map_err(|e| *e);
        }
        let movers: &[Side] = self.movers(st);
        st.turn += 1;
        if let Some(t) = trace.as_deref_mut() {
            t.turn = st.turn;
        }
        for &s in movers {
            let c = cmds[s].filter(|&c| (c as usize) < self.nc && self.is_enabled(st, s, c));
            if let Some(t) = trace.as_deref_mut() {
                t.moves
                    .push((s.name(), c.map(|c| self.prog.commands[c as usize].clone())));
            }
            self.push_hist(st, s, c);
            st.own_turns[s] += 1;
        }
        if self.direct && trace.is_none() {
            for &s in movers {
                self.resolve_direct(st, s)?;
            }
        } else {
            let mut guard = self.scratch.borrow_mut();
            let sc = &mut *guard;
            sc.writes.clear();
            if self.value_draws {
                sc.drawn.clear();
            }
            for &s in movers {
                self.resolve(st, s, sc, trace.as_deref_mut())?;
            }
            if self.value_draws && self.scripted.get() && !sc.drawn.is_empty() {
                self.keep_for_replay(st, sc);
            }
            let writes = std::mem::take(&mut sc.writes);
            drop(guard);
            let result = self.apply_merged(st, &writes, trace.as_deref_mut());
            self.scratch.borrow_mut().writes = writes;
            result?;
        }
        self.finish_turn(st, trace).map_err(|e| *e)
    }

    /// The end of a turn after its writes are applied: the end check, then (if the game goes
    /// on) the next side to move and its availability.
    #[inline(always)]
    fn finish_turn(&self, st: &mut State, mut trace: Option<&mut TurnTrace>) -> Res<()> {
        self.end_check(st, trace.as_deref_mut())?;
        if st.outcome.is_none() {
            if !self.simultaneous {
                st.to_move = st.to_move.opponent();
            }
            if let Some(t) = trace.as_deref_mut() {
                t.availability_from = Some(t.changes.len());
                t.next_movers = self.movers(st).iter().map(|&s| s.name()).collect();
            }
            self.prepare(st, trace)?;
        }
        Ok(())
    }
}
