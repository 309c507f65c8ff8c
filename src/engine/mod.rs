//! The match engine: exact turn semantics (rules/README.md §9, the language contract's §8) over a compiled [`RuleProgram`].
//!
//! A [`State`] is always *ready to choose*: the availability rules of the side(s) about to move
//! have run. [`Engine::play`] resolves one turn (one side in alternate mode, both in simultaneous
//! mode), runs the end check, and prepares the next turn. State is flat integers; the engine
//! keeps its scratch buffers, so a turn allocates nothing.

pub mod players;
pub mod rng;

use crate::program::{CCond, CEffect, CRule, CmdId, LOSE_STATE, Op, RuleProgram, WIN_STATE};
use crate::syntax::ast::{CmpOp, Func, SideRef, UpdOp};
use std::cell::{Cell, RefCell};

/// No command (a pass) in the history.
pub const NONE: u32 = u32::MAX;

/// A side: 0 = h, 1 = c.
pub type Side = usize;

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
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
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

/// One state or flag change, for traces.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Change {
    /// "h" or "c".
    pub side: &'static str,
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

#[derive(Clone, Copy, Debug)]
enum Target {
    Val(usize),
    Flag(usize),
}

#[derive(Clone, Copy, Debug)]
struct Write {
    target: Target,
    owner: Side,
    writer: Side,
    op: UpdOp,
    value: i64,
    rule: u32,
}

#[derive(Default)]
struct Scratch {
    writes: Vec<Write>,
    stack: Vec<i64>,
}

/// One `rand(lo,hi)` draw made during a scripted turn (see [`Engine::play_scripted`]).
///
/// A draw whose value only decides one comparison with a constant (`rand(1,100)<=30`) has two
/// outcomes, "holds" and "fails", weighted by how many values of the range give each; any other
/// draw has one outcome per value of its range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Draw {
    /// Lower bound of the range.
    pub lo: i64,
    /// Upper bound of the range.
    pub hi: i64,
    /// Number of outcomes (at least 1).
    pub outcomes: u64,
    /// The outcome that was used (0-based).
    pub pick: u64,
    /// The value that was used.
    pub value: i64,
    /// Probability of the outcome that was used.
    pub prob: f64,
}

/// Drives the `rand` draws of one turn for a search: draw k takes outcome `picks[k]`; draws past
/// the end of `picks` take outcome 0, or, when `sampler` is set, an outcome drawn at random with
/// its probability. Every draw made is recorded in `draws`, so a caller can count the draws of a
/// turn, see their ranges, and enumerate their outcomes.
#[derive(Clone, Debug, Default)]
pub struct ChanceScript {
    /// Chosen outcome per draw, in the order the turn draws them.
    pub picks: Vec<u64>,
    /// The draws the last scripted turn made.
    pub draws: Vec<Draw>,
    /// State of a SplitMix64 stream used for draws past `picks` (None: outcome 0).
    pub sampler: Option<u64>,
}

impl ChanceScript {
    /// Probability of the outcomes the last scripted turn used (1 with no draws).
    pub fn probability(&self) -> f64 {
        self.draws.iter().map(|d| d.prob).product()
    }

    /// Number of outcome combinations of the last turn's draws (saturating).
    pub fn combinations(&self) -> u64 {
        self.draws
            .iter()
            .fold(1u64, |a, d| a.saturating_mul(d.outcomes))
    }
}

/// A `rand` draw that only decides `rand(..) OP k` (or `k OP rand(..)`, stored mirrored).
#[derive(Clone, Copy, Debug)]
struct BinaryDraw {
    rule: u32,
    slot: u16,
    op: CmpOp,
    k: i64,
}

/// How many values of [lo, hi] satisfy `v OP k`, a value that does and one that does not.
fn split_range(op: CmpOp, k: i64, lo: i64, hi: i64) -> (u64, i64, i64) {
    let (lo128, hi128, k128) = (lo as i128, hi as i128, k as i128);
    let count = |a: i128, b: i128| if b < a { 0 } else { (b - a + 1) as u64 };
    let size = count(lo128, hi128);
    let (n, yes, no) = match op {
        CmpOp::Eq => (
            u64::from(lo <= k && k <= hi),
            k,
            if lo != k { lo } else { hi },
        ),
        CmpOp::Ne => (
            size - u64::from(lo <= k && k <= hi),
            if lo != k { lo } else { hi },
            k,
        ),
        CmpOp::Lt => (count(lo128, hi128.min(k128 - 1)), lo, hi),
        CmpOp::Le => (count(lo128, hi128.min(k128)), lo, hi),
        CmpOp::Gt => (count(lo128.max(k128 + 1), hi128), hi, lo),
        CmpOp::Ge => (count(lo128.max(k128), hi128), hi, lo),
    };
    (n.min(size), yes, no)
}

/// Replaces `rand` draws: (turn, side, rule, slot, lo, hi) → value.
pub type ChanceFn<'p> = Box<dyn Fn(u32, Side, u32, u16, i64, i64) -> i64 + Send + 'p>;

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
    /// Resolution may apply each effect as its rule is evaluated (see `direct_resolution`).
    direct: bool,
    /// The availability rules in a compact form, when none has a condition that needs an
    /// expression evaluated (so none can fail): used when no trace is recorded.
    avail_fast: Option<Vec<Avail>>,
    /// The direct path's rules per command (and one more list for a pass, last): ranges into
    /// `direct_rules`, whose effects are ranges into `direct_fx`.
    direct_lists: Vec<(u32, u32)>,
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
    scratch: RefCell<Scratch>,
    /// Draws that only decide one comparison with a constant.
    binary_draws: Vec<BinaryDraw>,
    /// A scripted turn is being played: draws follow `script`.
    scripted: Cell<bool>,
    script: RefCell<ChanceScript>,
    /// Firing counts per rule, when counting (see [`Engine::counting`]).
    fires: Option<RefCell<Vec<u32>>>,
    /// When set, `rand` draws are replaced: (turn, side, rule, slot, lo, hi) → value. Used by search.
    pub chance: Option<ChanceFn<'p>>,
}

fn side_name(s: Side) -> &'static str {
    if s == 0 { "h" } else { "c" }
}

impl<'p> Engine<'p> {
    /// A new engine.
    pub fn new(prog: &'p RuleProgram, seed: u64) -> Self {
        let hl = (prog.max_seq[0].max(prog.max_seq[1]) as usize).max(1);
        let avail_rules: Vec<u32> = (0..prog.rules.len() as u32)
            .filter(|&i| !prog.rules[i as usize].has_cmd_atoms && prog.rules[i as usize].has_enable)
            .collect();
        let victory_rules = (0..prog.rules.len() as u32)
            .filter(|&i| prog.rules[i as usize].victory)
            .collect();
        let need_cmd: Vec<u32> = prog
            .rules
            .iter()
            .map(|r| {
                prog.rule_conds(r)
                    .iter()
                    .find_map(|c| match *c {
                        CCond::Cmd {
                            neg: false,
                            opp: false,
                            back: 0,
                            cmd,
                        } => Some(cmd),
                        _ => None,
                    })
                    .unwrap_or(NONE)
            })
            .collect();
        let ns = prog.states.len();
        let mut fast: Vec<Fast> = prog
            .conds
            .iter()
            .map(|c| match *c {
                CCond::Cmp { op, lhs, rhs } => match (prog.code_of(lhs), prog.code_of(rhs)) {
                    ([Op::Load(who, id)], [Op::Push(k)]) => {
                        range_of(val_off(*who, *id, ns), op, *k)
                    }
                    ([Op::Push(k)], [Op::Load(who, id)]) => {
                        range_of(val_off(*who, *id, ns), op.mirrored(), *k)
                    }
                    _ => Fast::General,
                },
                // Non-zero is "not in [0, 0]".
                CCond::Truth { neg, side, state } => Fast::Range {
                    off: val_off(side, state, ns),
                    lo: 0,
                    hi: 0,
                    neg: !neg,
                },
                CCond::Cmd {
                    neg,
                    opp,
                    back,
                    cmd,
                } => {
                    // Index into the history for each acting side (NONE_AT: before the kept
                    // history, i.e. no command).
                    let at = |acting: usize| {
                        let s = if opp { 1 - acting } else { acting };
                        if (back as usize) < hl {
                            (s * hl + back as usize) as u32
                        } else {
                            NONE_AT
                        }
                    };
                    Fast::Cmd {
                        off: [at(0), at(1)],
                        cmd,
                        neg,
                    }
                }
            })
            .collect();
        let mut binary_draws = Vec::new();
        for (ri, r) in prog.rules.iter().enumerate() {
            for c in prog.rule_conds(r) {
                let CCond::Cmp { op, lhs, rhs } = *c else {
                    continue;
                };
                let only_rand_last = |code: &[Op]| match code.split_last() {
                    Some((Op::Rand(s), rest)) => {
                        (!rest.iter().any(|o| matches!(o, Op::Rand(_)))).then_some(*s)
                    }
                    _ => None,
                };
                let (l, rc) = (prog.code_of(lhs), prog.code_of(rhs));
                let found = match (only_rand_last(l), rc, l, only_rand_last(rc)) {
                    (Some(slot), [Op::Push(k)], _, _) => Some((slot, op, *k)),
                    (_, _, [Op::Push(k)], Some(slot)) => Some((slot, op.mirrored(), *k)),
                    _ => None,
                };
                if let Some((slot, op, k)) = found {
                    binary_draws.push(BinaryDraw {
                        rule: ri as u32,
                        slot,
                        op,
                        k,
                    });
                }
            }
        }
        let nc = prog.commands.len();
        let by_cmd: Vec<Vec<u32>> = (0..=nc as u32)
            .map(|c| {
                let c = if c as usize == nc { NONE } else { c };
                (0..prog.rules.len() as u32)
                    .filter(|&i| {
                        let r = &prog.rules[i as usize];
                        // Availability-only rules (no command atoms, only enable effects) do
                        // nothing in resolution.
                        let only_enables = prog
                            .rule_effects(r)
                            .iter()
                            .all(|e| matches!(e, CEffect::Enable { .. }));
                        if !r.has_cmd_atoms && only_enables {
                            return false;
                        }
                        let need: u32 = need_cmd[i as usize];
                        need == NONE || need == c || r.iff
                    })
                    .collect()
            })
            .collect();
        let direct = direct_resolution(prog, &by_cmd, &fast);
        let mut avail_en = Vec::new();
        let avail_fast = avail_rules
            .iter()
            .map(|&ri: &u32| {
                let r = &prog.rules[ri as usize];
                let conds = &fast[r.conds.0 as usize..r.conds.1 as usize];
                if conds.iter().any(|f| matches!(f, Fast::General)) {
                    return None;
                }
                let e0 = avail_en.len() as u32;
                for e in prog.rule_effects(r) {
                    if let CEffect::Enable { opp, cmd, on } = *e {
                        // The flag's index in `State::enabled` for either acting side.
                        let at = |acting: usize| {
                            let s = if opp { 1 - acting } else { acting };
                            (s * prog.commands.len() + cmd as usize) as u32
                        };
                        avail_en.push(([at(0), at(1)], on, opp));
                    }
                }
                Some(Avail {
                    period: r.period,
                    iff: r.iff,
                    conds: r.conds,
                    en: (e0, avail_en.len() as u32),
                })
            })
            .collect::<Option<Vec<Avail>>>();
        let effect_const = prog
            .effects
            .iter()
            .map(|e| match *e {
                CEffect::Update { expr, .. } => match prog.code_of(expr) {
                    [Op::Push(v)] => Some(*v),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let (mut direct_lists, mut direct_rules, mut direct_fx) = (vec![], vec![], vec![]);
        if direct {
            let ns = prog.states.len();
            for (c, list) in by_cmd.iter().enumerate() {
                let l0 = direct_rules.len() as u32;
                for &ri in list {
                    let r = &prog.rules[ri as usize];
                    // In the list of the command a rule needs, that need is already met: its
                    // condition is dropped (a copy of the other conditions goes at the end of
                    // `fast`), so the turn tests only what can still fail.
                    let (mut need, mut conds) = (need_cmd[ri as usize], r.conds);
                    if need != NONE && need as usize == c {
                        let at = |f: &Fast| {
                            matches!(*f, Fast::Cmd { off, cmd, neg: false }
                            if cmd == need && off == [0, hl as u32])
                        };
                        let own = fast[r.conds.0 as usize..r.conds.1 as usize].to_vec();
                        if let Some(k) = own.iter().position(at) {
                            let c0 = fast.len() as u32;
                            fast.extend(own.iter().enumerate().filter(|e| e.0 != k).map(|e| *e.1));
                            (need, conds) = (NONE, (c0, fast.len() as u32));
                        }
                    }
                    let f0 = direct_fx.len() as u32;
                    for e in prog.rule_effects(r) {
                        direct_fx.push(match *e {
                            CEffect::Bool { side, state, value } => DirectFx::Bool {
                                off: val_off(side, state, ns),
                                value,
                            },
                            CEffect::Update {
                                side,
                                state,
                                op,
                                expr,
                            } => DirectFx::Update {
                                off: val_off(side, state, ns),
                                op,
                                v: match prog.code_of(expr) {
                                    [Op::Push(v)] => *v,
                                    _ => unreachable!("direct resolution needs constant operands"),
                                },
                            },
                            CEffect::Enable { opp, cmd, on } => {
                                if !r.has_cmd_atoms {
                                    continue; // belongs to availability
                                }
                                let at = |acting: usize| {
                                    let s = if opp { 1 - acting } else { acting };
                                    (s * nc + cmd as usize) as u32
                                };
                                DirectFx::Flag {
                                    off: [at(0), at(1)],
                                    on,
                                }
                            }
                        });
                    }
                    direct_rules.push(DirectRule {
                        rule: ri,
                        period: r.period,
                        need,
                        conds,
                        iff: r.iff,
                        fx: (f0, direct_fx.len() as u32),
                    });
                }
                direct_lists.push((l0, direct_rules.len() as u32));
            }
        }
        Self {
            direct_lists,
            direct_rules,
            direct_fx,
            effect_const,
            avail_fast,
            avail_cross: avail_en.iter().any(|e| e.2),
            avail_en,
            direct,
            by_cmd,
            need_cmd,
            fast,
            prog,
            seed,
            ns: prog.states.len(),
            nc: prog.commands.len(),
            hl,
            simultaneous: prog.settings.simultaneous,
            avail_rules,
            victory_rules,
            scratch: RefCell::new(Scratch::default()),
            binary_draws,
            scripted: Cell::new(false),
            script: RefCell::new(ChanceScript::default()),
            fires: None,
            chance: None,
        }
    }

    /// The same engine with its fast paths off (resolution always collects writes on the
    /// snapshot first): the plain §8 algorithm, which tests compare the fast paths against.
    pub fn reference(mut self) -> Self {
        self.direct = false;
        self
    }

    /// Whether resolution takes the direct fast path (see [`Engine::reference`]).
    pub fn is_direct(&self) -> bool {
        self.direct
    }

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

    /// Runs availability for the side(s) about to move again, e.g. after a position was edited
    /// by hand before a match starts from it.
    pub fn refresh_availability(&self, st: &mut State) -> Result<(), RuntimeError> {
        self.prepare(st, None).map_err(|e| *e)
    }

    /// Resets `st` to the starting position with `first` to move, reusing its buffers (as
    /// [`Engine::initial`], without allocating).
    pub fn reset(&self, st: &mut State, first: Side) -> Result<(), RuntimeError> {
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
        st.vals[side * self.ns + state as usize]
    }

    /// True if `cmd` is enabled for `side`.
    pub fn is_enabled(&self, st: &State, side: Side, cmd: CmdId) -> bool {
        st.enabled[side * self.nc + cmd as usize]
    }

    /// The enabled commands of `side`, appended to `out` (in command order).
    pub fn enabled_commands(&self, st: &State, side: Side, out: &mut Vec<CmdId>) {
        out.clear();
        let base = side * self.nc;
        out.extend((0..self.nc as u32).filter(|&c| st.enabled[base + c as usize]));
    }

    /// The sides that choose now.
    pub fn movers(&self, st: &State) -> &'static [Side] {
        if self.simultaneous {
            &[0, 1]
        } else if st.to_move == 0 {
            &[0]
        } else {
            &[1]
        }
    }

    fn draw(&self, turn: u32, side: Side, rule: u32, slot: u16, lo: i64, hi: i64) -> i64 {
        if self.scripted.get() {
            return self.scripted_draw(rule, slot, lo, hi);
        }
        if let Some(f) = &self.chance {
            return f(turn, side, rule, slot, lo, hi);
        }
        rng::draw(self.seed, turn, side, rule, slot, lo, hi)
    }

    #[cold]
    fn scripted_draw(&self, rule: u32, slot: u16, lo: i64, hi: i64) -> i64 {
        let mut sc = self.script.borrow_mut();
        let size = ((hi as i128 - lo as i128 + 1) as u128).min(u64::MAX as u128) as u64;
        let binary = self
            .binary_draws
            .iter()
            .find(|b| b.rule == rule && b.slot == slot)
            .map(|b| split_range(b.op, b.k, lo, hi));
        let outcomes = match binary {
            Some((n, _, _)) if n == 0 || n == size => 1,
            Some(_) => 2,
            None => size,
        };
        let k = sc.draws.len();
        let pick = if let Some(&p) = sc.picks.get(k) {
            p.min(outcomes - 1)
        } else if let Some(state) = sc.sampler.as_mut() {
            *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let u = rng::mix(*state);
            match binary {
                Some((n, _, _)) if outcomes == 2 => u64::from(u % size >= n),
                _ => u % outcomes,
            }
        } else {
            0
        };
        let (value, prob) = match binary {
            Some((n, yes, no)) if outcomes == 2 => {
                if pick == 0 {
                    (yes, n as f64 / size as f64)
                } else {
                    (no, (size - n) as f64 / size as f64)
                }
            }
            Some((n, yes, no)) => (if n == size { yes } else { no }, 1.0),
            None => (lo.wrapping_add(pick as i64), 1.0 / size as f64),
        };
        sc.draws.push(Draw {
            lo,
            hi,
            outcomes,
            pick,
            value,
            prob,
        });
        value
    }

    /// Plays one turn like [`Engine::play`], with every `rand` draw (of the resolution, the end
    /// check and the next turn's availability) taken from `script`, which records the draws made.
    pub fn play_scripted(
        &self,
        st: &mut State,
        cmds: [Option<CmdId>; 2],
        script: &mut ChanceScript,
    ) -> Result<(), RuntimeError> {
        script.draws.clear();
        std::mem::swap(&mut *self.script.borrow_mut(), script);
        self.scripted.set(true);
        let r = self.play(st, cmds, None);
        self.scripted.set(false);
        std::mem::swap(&mut *self.script.borrow_mut(), script);
        r
    }

    #[cold]
    fn err(&self, rule: u32, msg: impl Into<String>) -> Box<RuntimeError> {
        let line = self
            .prog
            .meta
            .get(rule as usize)
            .map_or(0, |m| m.origin.line);
        Box::new(RuntimeError {
            rule: rule as usize,
            line,
            message: msg.into(),
        })
    }

    fn eval(
        &self,
        code: &[Op],
        vals: &[i64],
        side: Side,
        turn: u32,
        rule: u32,
        stack: &mut Vec<i64>,
    ) -> Res<i64> {
        stack.clear();
        for op in code {
            match *op {
                Op::Push(v) => stack.push(v),
                Op::Load(who, id) => {
                    let s = resolve_side(who, side);
                    stack.push(vals[s * self.ns + id as usize]);
                }
                Op::Neg => {
                    let a = stack.pop().unwrap_or(0);
                    stack.push(
                        a.checked_neg()
                            .ok_or_else(|| self.err(rule, "overflow in negation"))?,
                    );
                }
                Op::Bin(b) => {
                    let y = stack.pop().unwrap_or(0);
                    let x = stack.pop().unwrap_or(0);
                    let r = b.apply(x, y).ok_or_else(|| {
                        if y == 0
                            && matches!(
                                b,
                                crate::syntax::ast::BinOp::Div | crate::syntax::ast::BinOp::Mod
                            )
                        {
                            self.err(rule, format!("division by zero ({x} {} 0)", b.text()))
                        } else {
                            self.err(rule, format!("overflow in {x} {} {y}", b.text()))
                        }
                    })?;
                    stack.push(r);
                }
                Op::Min | Op::Max => {
                    let y = stack.pop().unwrap_or(0);
                    let x = stack.pop().unwrap_or(0);
                    let f = if matches!(op, Op::Min) {
                        Func::Min
                    } else {
                        Func::Max
                    };
                    stack.push(f.apply(&[x, y]).unwrap_or(0));
                }
                Op::Abs => {
                    let a = stack.pop().unwrap_or(0);
                    stack.push(
                        Func::Abs
                            .apply(&[a])
                            .ok_or_else(|| self.err(rule, "overflow in abs"))?,
                    );
                }
                Op::Rand(slot) => {
                    let hi = stack.pop().unwrap_or(0);
                    let lo = stack.pop().unwrap_or(0);
                    if lo > hi {
                        return Err(self.err(
                            rule,
                            format!("rand({lo},{hi}): the lower bound is above the upper bound"),
                        ));
                    }
                    stack.push(self.draw(turn, side, rule, slot, lo, hi));
                }
            }
        }
        Ok(stack.pop().unwrap_or(0))
    }

    /// Evaluates rule `ri`'s conditions for `side` on `st` (command atoms read the history).
    #[inline(always)]
    fn holds(
        &self,
        ri: u32,
        r: &CRule,
        st: &State,
        side: Side,
        turn: u32,
        stack: &mut Vec<i64>,
    ) -> Res<bool> {
        let need = self.need_cmd[ri as usize];
        if need != NONE && st.hist[side * self.hl] != need {
            return Ok(false);
        }
        let base = r.conds.0 as usize;
        for (k, f) in self.fast[base..r.conds.1 as usize].iter().enumerate() {
            let ok = match self.fast_one(f, st, side) {
                Some(ok) => ok,
                None => match self.prog.conds[base + k] {
                    CCond::Cmp { op, lhs, rhs } => {
                        let a =
                            self.eval(self.prog.code_of(lhs), &st.vals, side, turn, ri, stack)?;
                        let b =
                            self.eval(self.prog.code_of(rhs), &st.vals, side, turn, ri, stack)?;
                        op.holds(a, b)
                    }
                    _ => false,
                },
            };
            if !ok {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// One condition in fast form for `side` on `st`; None when it needs the general evaluator.
    #[inline(always)]
    fn fast_one(&self, f: &Fast, st: &State, side: Side) -> Option<bool> {
        match *f {
            Fast::Range { off, lo, hi, neg } => {
                let v = st.vals[off[side] as usize];
                Some((lo <= v && v <= hi) != neg)
            }
            Fast::Cmd { off, cmd, neg } => {
                let at = off[side];
                let c = if at == NONE_AT {
                    NONE
                } else {
                    st.hist[at as usize]
                };
                Some((c == cmd) != neg)
            }
            Fast::General => None,
        }
    }

    /// Conditions that all have fast forms (no expression to evaluate), for `side` on `st`.
    #[inline(always)]
    fn fast_conds(&self, range: (u32, u32), st: &State, side: Side) -> bool {
        for f in &self.fast[range.0 as usize..range.1 as usize] {
            if self.fast_one(f, st, side) != Some(true) {
                return false;
            }
        }
        true
    }

    /// The command `side` played `back` turns ago (0 = the latest), or NONE.
    #[inline]
    pub fn command_at(&self, st: &State, side: Side, back: u8) -> u32 {
        if (back as usize) < self.hl {
            st.hist[side * self.hl + back as usize]
        } else {
            NONE
        }
    }

    /// Whether one condition holds for `side` (for analysis; a runtime error counts as false).
    pub fn cond_holds(&self, c: &CCond, st: &State, side: Side) -> bool {
        self.cond_holds_with(c, st, side, &mut Vec::new())
    }

    /// [`Engine::cond_holds`] with a caller's evaluation stack (no allocation once it has grown).
    pub fn cond_holds_with(&self, c: &CCond, st: &State, side: Side, stack: &mut Vec<i64>) -> bool {
        match *c {
            CCond::Truth {
                neg,
                side: who,
                state,
            } => (st.vals[resolve_side(who, side) * self.ns + state as usize] != 0) != neg,
            CCond::Cmp { op, lhs, rhs } => {
                let a = self.eval(
                    self.prog.code_of(lhs),
                    &st.vals,
                    side,
                    st.turn + 1,
                    0,
                    stack,
                );
                let b = self.eval(
                    self.prog.code_of(rhs),
                    &st.vals,
                    side,
                    st.turn + 1,
                    0,
                    stack,
                );
                matches!((a, b), (Ok(a), Ok(b)) if op.holds(a, b))
            }
            CCond::Cmd {
                neg,
                opp,
                back,
                cmd,
            } => (self.command_at(st, if opp { 1 - side } else { side }, back) == cmd) != neg,
        }
    }

    /// Value of an expression for `side` (for analysis; a runtime error gives 0).
    pub fn eval_code(&self, code: (u32, u32), st: &State, side: Side) -> i64 {
        self.eval_code_with(code, st, side, &mut Vec::new())
    }

    /// [`Engine::eval_code`] with a caller's evaluation stack.
    pub fn eval_code_with(
        &self,
        code: (u32, u32),
        st: &State,
        side: Side,
        stack: &mut Vec<i64>,
    ) -> i64 {
        self.eval(
            self.prog.code_of(code),
            &st.vals,
            side,
            st.turn + 1,
            0,
            stack,
        )
        .unwrap_or(0)
    }

    /// Whether a rule with this period runs on a side's `n`-th own turn (n ≥ 1 in resolution
    /// and availability, where n counts the turn being taken or about to be taken).
    fn period_ok(r: &CRule, n: u32) -> bool {
        r.period <= 1 || n.is_multiple_of(r.period)
    }

    /// Whether a victory rule runs in the end check when the side has taken `n` turns: a
    /// periodic one only when n ≥ 1 and n is a multiple of its period (§8 step 4), so a side
    /// that has not acted yet is not checked by it. A rule without a period (or `@1/`, which
    /// is the same rule) runs at every end check.
    fn victory_period_ok(r: &CRule, n: u32) -> bool {
        r.period <= 1 || (n >= 1 && n.is_multiple_of(r.period))
    }

    /// Availability for the side(s) about to move from the compact rules (they cannot fail).
    ///
    /// In simultaneous mode both sides' availability is evaluated on one state (conditions of
    /// availability rules read only state values and histories, which availability never
    /// writes) and merged per flag: the other side's writes first, the owner's last (§8). When
    /// no rule sets an opponent's flag each flag has one writer, and one pass is the same.
    #[inline(always)]
    fn prepare_fast(&self, st: &mut State, movers: &[Side], avail: &[Avail]) {
        let passes: &[Option<bool>] = if movers.len() > 1 && self.avail_cross {
            &[Some(true), Some(false)]
        } else {
            &[None]
        };
        for &pass in passes {
            for &side in movers {
                let n = st.own_turns[side] + 1;
                for a in avail {
                    if a.period > 1 && !n.is_multiple_of(a.period) {
                        continue;
                    }
                    let held = self.fast_conds(a.conds, st, side);
                    if !held && !a.iff {
                        continue;
                    }
                    for &(off, on, opp) in &self.avail_en[a.en.0 as usize..a.en.1 as usize] {
                        if pass.is_none_or(|p| p == opp) {
                            st.enabled[off[side] as usize] = held == on;
                        }
                    }
                }
            }
        }
        self.apply_bans(st);
    }

    /// Keeps the program's banned commands off.
    #[inline(always)]
    fn apply_bans(&self, st: &mut State) {
        for &i in &self.prog.banned {
            st.enabled[i as usize] = false;
        }
    }

    /// Counts a firing of rule `ri` when the engine counts them (see [`Engine::counting`]).
    #[inline(always)]
    fn note_fire(&self, ri: u32) {
        if let Some(f) = &self.fires {
            f.borrow_mut()[ri as usize] += 1;
        }
    }

    /// The same engine counting how often each rule fires (its conditions hold where it is
    /// evaluated: in resolution, in the end check, and in availability), with the fast paths
    /// off so that every rule is evaluated by itself. See [`Engine::take_fires`].
    pub fn counting(mut self) -> Self {
        self.direct = false;
        self.avail_fast = None;
        self.fires = Some(RefCell::new(vec![0; self.prog.rules.len()]));
        self
    }

    /// The firing counts per rule since the last call (all zero unless [`Engine::counting`]),
    /// written into `out`, and the counts reset.
    pub fn take_fires(&self, out: &mut Vec<u32>) {
        out.clear();
        if let Some(f) = &self.fires {
            let mut f = f.borrow_mut();
            out.extend_from_slice(&f);
            f.iter_mut().for_each(|x| *x = 0);
        }
    }

    /// Availability for the side(s) about to move, recording flag changes in `trace`; merged
    /// as in [`Engine::prepare_fast`].
    fn prepare(&self, st: &mut State, trace: Option<&mut TurnTrace>) -> Res<()> {
        let movers: &[Side] = if self.simultaneous {
            &[0, 1]
        } else if st.to_move == 0 {
            &[0]
        } else {
            &[1]
        };
        if let (Some(avail), None) = (&self.avail_fast, &trace) {
            self.prepare_fast(st, movers, avail);
            return Ok(());
        }
        let mut sc = self.scratch.borrow_mut();
        let Scratch { stack, writes, .. } = &mut *sc;
        writes.clear();
        // Evaluate every mover's availability on the same state first, then apply.
        for &side in movers {
            let n = st.own_turns[side] + 1;
            let turn = st.turn + 1;
            for &ri in &self.avail_rules {
                let r = &self.prog.rules[ri as usize];
                if !Self::period_ok(r, n) {
                    continue;
                }
                let held = self.holds(ri, r, st, side, turn, stack)?;
                if held {
                    self.note_fire(ri);
                }
                if !held && !r.iff {
                    continue;
                }
                for e in self.prog.rule_effects(r) {
                    if let CEffect::Enable { opp, cmd, on } = *e {
                        let s = if opp { 1 - side } else { side };
                        writes.push(Write {
                            target: Target::Flag(s * self.nc + cmd as usize),
                            owner: s,
                            writer: side,
                            op: UpdOp::Set,
                            value: (held == on) as i64,
                            rule: ri,
                        });
                    }
                }
            }
        }
        let writes = std::mem::take(writes);
        drop(sc);
        let result = self.apply_merged(st, &writes, trace);
        self.scratch.borrow_mut().writes = writes;
        self.apply_bans(st);
        result
    }

    /// Applies collected writes: the writes to a side's state or flag made by the other side
    /// first, then its owner's own, each group in the order collected (file order per side).
    /// With one writer, or no write across sides, that is simply the order collected (the
    /// result per target is the same, and so is which overflow is reported first).
    fn apply_merged(
        &self,
        st: &mut State,
        writes: &[Write],
        mut trace: Option<&mut TurnTrace>,
    ) -> Res<()> {
        let one_writer = writes.windows(2).all(|p| p[0].writer == p[1].writer);
        if one_writer || writes.iter().all(|w| w.owner == w.writer) {
            for w in writes {
                self.apply(st, w, trace.as_deref_mut())?;
            }
            return Ok(());
        }
        for own in [false, true] {
            for w in writes.iter().filter(|w| (w.owner == w.writer) == own) {
                self.apply(st, w, trace.as_deref_mut())?;
            }
        }
        Ok(())
    }

    /// `side`'s resolution when [`direct_resolution`] holds: each rule's effects are applied as
    /// soon as it is evaluated — no rule reads what any rule writes, operands are constants and
    /// conditions cannot fail, so this is the snapshot semantics of §8 with the same order of
    /// application (and of overflow errors).
    fn resolve_direct(&self, st: &mut State, side: Side) -> Res<()> {
        let n = st.own_turns[side];
        let now = st.hist[side * self.hl];
        let (a, b) = self.direct_lists[if now == NONE { self.nc } else { now as usize }];
        for r in &self.direct_rules[a as usize..b as usize] {
            if r.period > 1 && !n.is_multiple_of(r.period) {
                continue;
            }
            let held = (r.need == NONE || r.need == now) && self.fast_conds(r.conds, st, side);
            if !held && !r.iff {
                continue;
            }
            for fx in &self.direct_fx[r.fx.0 as usize..r.fx.1 as usize] {
                match *fx {
                    DirectFx::Bool { off, value } => {
                        st.vals[off[side] as usize] = (held == value) as i64
                    }
                    DirectFx::Flag { off, on } => st.enabled[off[side] as usize] = held == on,
                    DirectFx::Update { off, op, v } => {
                        if !held {
                            continue;
                        }
                        let i = off[side] as usize;
                        let cur = st.vals[i];
                        match op.apply(cur, v) {
                            Some(x) => st.vals[i] = x,
                            None => {
                                // Overflow or division by zero: the general path words the error.
                                let w = Write {
                                    target: Target::Val(i),
                                    owner: i / self.ns,
                                    writer: side,
                                    op,
                                    value: v,
                                    rule: r.rule,
                                };
                                return self.apply(st, &w, None);
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Collects the writes of `side`'s resolution on the snapshot `st`.
    fn resolve(
        &self,
        st: &State,
        side: Side,
        sc: &mut Scratch,
        mut trace: Option<&mut TurnTrace>,
    ) -> Res<()> {
        let n = st.own_turns[side];
        let turn = st.turn;
        let Scratch { writes, stack } = sc;
        let now = st.hist[side * self.hl];
        let list = &self.by_cmd[if now == NONE { self.nc } else { now as usize }];
        for &ri in list {
            let r = &self.prog.rules[ri as usize];
            if !Self::period_ok(r, n) {
                continue;
            }
            let held = self.holds(ri, r, st, side, turn, stack)?;
            if held {
                self.note_fire(ri);
            }
            if !held && !r.iff {
                continue;
            }
            if held && let Some(t) = trace.as_deref_mut() {
                let m = &self.prog.meta[ri as usize];
                t.fired.push((
                    side_name(side),
                    ri as usize,
                    m.origin.line,
                    m.origin.describe(),
                ));
            }
            let e0 = r.effects.0 as usize;
            for (k, e) in self.prog.rule_effects(r).iter().enumerate() {
                match *e {
                    CEffect::Bool {
                        side: who,
                        state,
                        value,
                    } => {
                        let s = resolve_side(who, side);
                        let v = if held { value } else { !value };
                        writes.push(Write {
                            target: Target::Val(s * self.ns + state as usize),
                            owner: s,
                            writer: side,
                            op: UpdOp::Set,
                            value: v as i64,
                            rule: ri,
                        });
                    }
                    CEffect::Update {
                        side: who,
                        state,
                        op,
                        expr,
                    } => {
                        if !held {
                            continue;
                        }
                        let s = resolve_side(who, side);
                        let v = match self.effect_const[e0 + k] {
                            Some(v) => v,
                            None => {
                                self.eval(self.prog.code_of(expr), &st.vals, side, turn, ri, stack)?
                            }
                        };
                        writes.push(Write {
                            target: Target::Val(s * self.ns + state as usize),
                            owner: s,
                            writer: side,
                            op,
                            value: v,
                            rule: ri,
                        });
                    }
                    CEffect::Enable { opp, cmd, on } => {
                        if !r.has_cmd_atoms {
                            continue; // belongs to availability
                        }
                        let s = if opp { 1 - side } else { side };
                        let v = if held { on } else { !on };
                        writes.push(Write {
                            target: Target::Flag(s * self.nc + cmd as usize),
                            owner: s,
                            writer: side,
                            op: UpdOp::Set,
                            value: v as i64,
                            rule: ri,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    fn apply(&self, st: &mut State, w: &Write, trace: Option<&mut TurnTrace>) -> Res<()> {
        match w.target {
            Target::Val(i) => {
                let cur = st.vals[i];
                if w.op == UpdOp::Div && w.value == 0 {
                    return Err(self.err(w.rule, format!("division by zero ({cur} / 0)")));
                }
                let new = w.op.apply(cur, w.value).ok_or_else(|| {
                    self.err(
                        w.rule,
                        format!(
                            "overflow updating {} ({cur} and {})",
                            self.prog.states[i % self.ns],
                            w.value
                        ),
                    )
                })?;
                if new != cur {
                    if let Some(t) = trace {
                        t.changes.push(Change {
                            side: side_name(i / self.ns),
                            name: self.prog.states[i % self.ns].clone(),
                            from: cur,
                            to: new,
                        });
                    }
                    st.vals[i] = new;
                }
            }
            Target::Flag(i) => {
                let v = w.value != 0;
                if st.enabled[i] != v {
                    if let Some(t) = trace {
                        t.changes.push(Change {
                            side: side_name(i / self.nc),
                            name: format!("[{}]", self.prog.commands[i % self.nc]),
                            from: st.enabled[i] as i64,
                            to: v as i64,
                        });
                    }
                    st.enabled[i] = v;
                }
            }
        }
        Ok(())
    }

    fn push_hist(&self, st: &mut State, side: Side, cmd: Option<CmdId>) {
        let base = side * self.hl;
        if self.hl > 1 {
            st.hist.copy_within(base..base + self.hl - 1, base + 1);
        }
        st.hist[base] = cmd.unwrap_or(NONE);
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
        let movers: &[Side] = self.movers(st);
        st.turn += 1;
        if let Some(t) = trace.as_deref_mut() {
            t.turn = st.turn;
        }
        for &s in movers {
            let c = cmds[s].filter(|&c| (c as usize) < self.nc && self.is_enabled(st, s, c));
            if let Some(t) = trace.as_deref_mut() {
                t.moves.push((
                    side_name(s),
                    c.map(|c| self.prog.commands[c as usize].clone()),
                ));
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
            for &s in movers {
                self.resolve(st, s, sc, trace.as_deref_mut())?;
            }
            let writes = std::mem::take(&mut sc.writes);
            drop(guard);
            let result = self.apply_merged(st, &writes, trace.as_deref_mut());
            self.scratch.borrow_mut().writes = writes;
            result?;
        }
        self.end_check(st, trace.as_deref_mut())?;
        if st.outcome.is_none() {
            if !self.simultaneous {
                st.to_move = 1 - st.to_move;
            }
            if let Some(t) = trace.as_deref_mut() {
                t.availability_from = Some(t.changes.len());
                t.next_movers = self.movers(st).iter().map(|&s| side_name(s)).collect();
            }
            match (&self.avail_fast, &trace) {
                (Some(avail), None) => self.prepare_fast(st, self.movers(st), avail),
                _ => self.prepare(st, trace)?,
            }
        }
        Ok(())
    }

    #[inline]
    fn end_check(&self, st: &mut State, trace: Option<&mut TurnTrace>) -> Res<()> {
        if !self.victory_rules.is_empty() {
            self.victory_check(st, trace)?;
        }
        let won = |s: Side| {
            st.vals[s * self.ns + WIN_STATE as usize] != 0
                || st.vals[(1 - s) * self.ns + LOSE_STATE as usize] != 0
        };
        st.outcome = match (won(0), won(1)) {
            (true, true) => Some(Outcome::Draw),
            (true, false) => Some(Outcome::H),
            (false, true) => Some(Outcome::C),
            _ if st.turn >= self.prog.settings.turn_limit => Some(Outcome::Draw),
            _ => None,
        };
        Ok(())
    }

    /// Step 4's victory rules, for both sides: all evaluated on the same post-resolution
    /// state, then applied with the merge (so one side's end-check write never hides the
    /// other's).
    fn victory_check(&self, st: &mut State, mut trace: Option<&mut TurnTrace>) -> Res<()> {
        let mut sc = self.scratch.borrow_mut();
        let Scratch { writes, stack, .. } = &mut *sc;
        writes.clear();
        for side in 0..2 {
            let n = st.own_turns[side];
            for &ri in &self.victory_rules {
                let r = &self.prog.rules[ri as usize];
                if !Self::victory_period_ok(r, n) {
                    continue;
                }
                let held = self.holds(ri, r, st, side, st.turn, stack)?;
                if held {
                    self.note_fire(ri);
                    if let Some(t) = trace.as_deref_mut() {
                        let m = &self.prog.meta[ri as usize];
                        t.end_check.push((
                            side_name(side),
                            ri as usize,
                            m.origin.line,
                            m.origin.describe(),
                        ));
                    }
                }
                if !held && !r.iff {
                    continue;
                }
                for e in self.prog.rule_effects(r) {
                    let w = match *e {
                        CEffect::Bool {
                            side: who,
                            state,
                            value,
                        } => {
                            let s = resolve_side(who, side);
                            Write {
                                target: Target::Val(s * self.ns + state as usize),
                                owner: s,
                                writer: side,
                                op: UpdOp::Set,
                                value: (held == value) as i64,
                                rule: ri,
                            }
                        }
                        CEffect::Update {
                            side: who,
                            state,
                            op,
                            expr,
                        } if held => {
                            let s = resolve_side(who, side);
                            let v = self.eval(
                                self.prog.code_of(expr),
                                &st.vals,
                                side,
                                st.turn,
                                ri,
                                stack,
                            )?;
                            Write {
                                target: Target::Val(s * self.ns + state as usize),
                                owner: s,
                                writer: side,
                                op,
                                value: v,
                                rule: ri,
                            }
                        }
                        _ => continue,
                    };
                    writes.push(w);
                }
            }
        }
        let writes = std::mem::take(writes);
        drop(sc);
        let result = self.apply_merged(st, &writes, trace);
        self.scratch.borrow_mut().writes = writes;
        result
    }
}

/// Whether resolution can apply effects at once instead of collecting writes: every condition
/// of the rules that take part in resolution has a fast form (no expression to evaluate, so no
/// runtime error), every numeric operand is a constant, no such rule reads a state that one of
/// them writes (so the live state equals the snapshot for everything read), and — in
/// simultaneous mode — every effect is on the acting side's own states and commands (so §8's
/// "other side's writes first" pass is empty and the application order is file order per side).
fn direct_resolution(prog: &RuleProgram, by_cmd: &[Vec<u32>], fast: &[Fast]) -> bool {
    let mut rules: Vec<u32> = by_cmd.iter().flatten().copied().collect();
    rules.sort_unstable();
    rules.dedup();
    let mut read = std::collections::HashSet::new();
    let mut written = std::collections::HashSet::new();
    for &ri in &rules {
        let r = &prog.rules[ri as usize];
        for (k, c) in prog.rule_conds(r).iter().enumerate() {
            match (fast[r.conds.0 as usize + k], c) {
                (Fast::General, _) => return false,
                (_, CCond::Truth { state, .. }) => {
                    read.insert(*state);
                }
                (_, CCond::Cmp { lhs, rhs, .. }) => {
                    // Either side of a comparison may hold the state (`3<S.x` as well as
                    // `S.x>3`).
                    for op in prog.code_of(*lhs).iter().chain(prog.code_of(*rhs)) {
                        if let Op::Load(_, id) = op {
                            read.insert(*id);
                        }
                    }
                }
                _ => {}
            }
        }
        for e in prog.rule_effects(r) {
            match *e {
                CEffect::Bool { side, state, .. } => {
                    if prog.settings.simultaneous && side != SideRef::S {
                        return false;
                    }
                    written.insert(state);
                }
                CEffect::Update {
                    side, state, expr, ..
                } => {
                    if prog.settings.simultaneous && side != SideRef::S {
                        return false;
                    }
                    if !matches!(prog.code_of(expr), [Op::Push(_)]) {
                        return false;
                    }
                    written.insert(state);
                }
                CEffect::Enable { opp, .. } => {
                    if prog.settings.simultaneous && opp {
                        return false;
                    }
                }
            }
        }
    }
    read.is_disjoint(&written)
}

/// A rule on the direct resolution path, compact.
#[derive(Clone, Copy, Debug)]
struct DirectRule {
    rule: u32,
    period: u32,
    need: u32,
    conds: (u32, u32),
    iff: bool,
    fx: (u32, u32),
}

/// An effect on the direct path, with its target's index for either acting side.
#[derive(Clone, Copy, Debug)]
enum DirectFx {
    Bool { off: [u32; 2], value: bool },
    Update { off: [u32; 2], op: UpdOp, v: i64 },
    Flag { off: [u32; 2], on: bool },
}

/// An availability rule, compact.
#[derive(Clone, Copy, Debug)]
struct Avail {
    period: u32,
    iff: bool,
    conds: (u32, u32),
    en: (u32, u32),
}

/// A condition decoded for speed, with its indices resolved for either acting side.
#[derive(Clone, Copy, Debug)]
enum Fast {
    /// `X.state` lies in [lo, hi] (`neg`: does not) — every comparison of one state with a
    /// constant, and every truth test, without dispatching on the operator. `off[s]` is the
    /// state's index in `State::vals` when side `s` acts.
    Range {
        off: [u32; 2],
        lo: i64,
        hi: i64,
        neg: bool,
    },
    /// A command `back` turns ago of self or the opponent: `off[s]` is its index in
    /// `State::hist` when side `s` acts ([`NONE_AT`]: before the kept history).
    Cmd { off: [u32; 2], cmd: u32, neg: bool },
    /// Anything else: evaluate the general way.
    General,
}

/// A history index that means "no command".
const NONE_AT: u32 = u32::MAX;

/// The index of `who.id` in `State::vals` when side 0 or side 1 acts.
fn val_off(who: SideRef, id: u32, ns: usize) -> [u32; 2] {
    let at = |acting: usize| (resolve_side(who, acting) * ns + id as usize) as u32;
    [at(0), at(1)]
}

/// `X.state OP k` as a range test.
fn range_of(off: [u32; 2], op: CmpOp, k: i64) -> Fast {
    let (lo, hi, neg) = match op {
        CmpOp::Eq => (k, k, false),
        CmpOp::Ne => (k, k, true),
        CmpOp::Lt => match k.checked_sub(1) {
            Some(h) => (i64::MIN, h, false),
            None => (1, 0, false), // empty: never holds
        },
        CmpOp::Le => (i64::MIN, k, false),
        CmpOp::Gt => match k.checked_add(1) {
            Some(l) => (l, i64::MAX, false),
            None => (1, 0, false),
        },
        CmpOp::Ge => (k, i64::MAX, false),
    };
    Fast::Range { off, lo, hi, neg }
}

/// The absolute side a written side names when `side` acts.
#[inline]
fn resolve_side(who: SideRef, side: Side) -> Side {
    match who {
        SideRef::S => side,
        SideRef::O => 1 - side,
        SideRef::H => 0,
        SideRef::C => 1,
    }
}
