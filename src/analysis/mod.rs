//! Derived victory-evaluation conditions (勝利評価条件, rules/README.md §11, the contract's §10): from the compiled rules
//! alone, the graph of conditions that lead to a win, each side's estimated distance to winning
//! in a position, and the evaluation the CPU searches with.

use crate::engine::{Engine, Side, State};
use crate::program::{CCond, CEffect, CRule, CmdId, Op, RuleProgram, StateId};
use crate::syntax::ast::{CmpOp, SideRef, UpdOp};
use rustc_hash::FxHashMap as HashMap;

mod evaluate;
pub mod fast;
mod out_of_reach;
pub(crate) use evaluate::SoftMin;
pub use evaluate::{Evaluate, GraphEval, decided_value, evaluate, soft_distance};
pub use fast::FastEval;
pub use out_of_reach::{OUT_OF_REACH_LEGEND, OutOfReach, out_of_reach, out_of_reach_note};

/// Distances are capped here: at or above it a distance is unreachable (∞). The tree and the
/// studio show distances up to it (a win 2,000 turns away under `T300` is shown as 2,000, not
/// as unreachable); only the evaluation counts them at the turn limit (§10.5).
pub const UNREACHABLE: u32 = 1_000_000;
/// How deep the graph goes below the decisive rules.
pub const DEPTH_CAP: u32 = 8;

/// What a victory-evaluation condition asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// The state lies in [lo, hi].
    Range(i64, i64),
    /// The state is non-zero.
    NonZero,
    /// The command is enabled.
    Enabled,
}

/// A node of the graph: a condition in side-relative form (S = the side pursuing the win).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeKey {
    /// Whose state or command, as written (S, O, h or c).
    pub side: SideRef,
    /// State id, or command id for [`Target::Enabled`].
    pub id: u32,
    /// What must hold.
    pub target: Target,
}

/// An achiever: a rule whose effect moves a node toward its target.
#[derive(Clone, Debug, PartialEq)]
pub struct Achiever {
    /// Rule index.
    pub rule: usize,
    /// Source line.
    pub line: usize,
    /// How the effect moves the value.
    pub step: Step,
    /// Needs a command of its own (false: fires by itself, e.g. a periodic or availability rule).
    pub needs_command: bool,
    /// Period of the rule.
    pub period: u32,
    /// The achiever's own conditions that are nodes (indices into the graph's nodes).
    pub conds: Vec<usize>,
    /// Its conditions that were excluded (texts).
    pub excluded: Vec<String>,
    /// The opponent's own instance of the rule (it fires by itself on the opponent's side, e.g.
    /// `S.体力<=0:S.ダウン+1` seen from the side that knocks the other down); its conditions
    /// are written from the pursuer's side.
    pub opponent: bool,
    /// An achiever for this pursuer only: the node names a side absolutely (`h.点>=3`) and
    /// the rule writes it relatively (`S.点+1` moves h's 点 when h acts), or the other way
    /// round; None: for either.
    pub only: Option<Side>,
    /// Turns to bring its conditions back after each firing when its own effects undo one of
    /// them (`S.体力<=0:S.ダウン+1,S.体力=10` resets 体力, so every further knockdown needs
    /// 体力 brought down from 10 again); 0 when it undoes none, [`NO_REARM`] when an undone
    /// condition cannot be brought back.
    pub rearm: u32,
    /// The conditions it uses up: each firing moves them away from their targets (see
    /// [`Spend`]); empty for an achiever that needs no command.
    pub spends: Vec<Spend>,
}

/// A condition an achiever uses up (`S.溜め>=2::[必殺]` with `[必殺]:S.溜め-2,O.体力-2`): every
/// firing moves the condition's state `per` away from its target, so firing it `n` times needs
/// `(n − 1)·per` beyond what the current value holds in reserve, brought back by the node's own
/// achievers (§10.5 refined; see rules/README.md §11 "Using up a condition").
#[derive(Clone, Debug, PartialEq)]
pub struct Spend {
    /// The condition node (a range open on one side).
    pub node: usize,
    /// How far each firing moves it away from its target.
    pub per: f64,
    /// The node's rate from every command-free achiever (as for re-arming).
    pub free: f64,
}

impl Achiever {
    /// Whether it achieves the node for pursuer `x`.
    pub fn serves(&self, x: Side) -> bool {
        self.only.is_none_or(|s| s == x)
    }

    /// The rule as text (made when shown: a big file has thousands of achievers).
    pub fn text(&self, p: &RuleProgram) -> String {
        p.rule_text(self.rule)
    }
    /// Where the rule came from (line, & mirror, $ macro).
    pub fn origin(&self, p: &RuleProgram) -> String {
        p.meta[self.rule].origin.describe()
    }
}

/// [`Achiever::rearm`] of an achiever that can fire only once.
pub const NO_REARM: u32 = u32::MAX;

/// An achiever's own cost, `own` firings' worth, with the turns to re-arm it between firings.
pub(crate) fn with_rearm(own: u32, rearm: u32) -> Option<u32> {
    match (own, rearm) {
        (_, 0) | (0 | 1, _) => Some(own),
        (_, NO_REARM) => None,
        _ => Some(own.saturating_add((own - 1).saturating_mul(rearm))),
    }
}

impl Target {
    /// The target that holds exactly when this one does not, when it is one (a range open on
    /// one side, non-zero, zero); None for a range bounded on both sides or a command.
    pub fn negated(self) -> Option<Target> {
        Some(match self {
            Target::NonZero => Target::Range(0, 0),
            Target::Range(0, 0) => Target::NonZero,
            Target::Range(i64::MIN, hi) if hi != i64::MAX => {
                Target::Range(hi.checked_add(1)?, i64::MAX)
            }
            Target::Range(lo, i64::MAX) if lo != i64::MIN => {
                Target::Range(i64::MIN, lo.checked_sub(1)?)
            }
            _ => return None,
        })
    }
}

/// How an achiever changes the target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// Adds this much per firing (negative: subtracts); rand ranges count by their mean.
    Add(f64),
    /// Sets it to a value.
    Set(i64),
    /// Multiplies or divides by a constant: iterated from the current value.
    Scale(UpdOp, i64),
    /// Sets it to, or changes it by, the target itself through `min`/`max`
    /// (`S.気=min(S.気+2,5)`, `S.スタミナ+=min(3,10-S.スタミナ)`): iterated from the current value
    /// (§10.5), so a clamp that stops short of the target is never met.
    Clamp(Clamped),
    /// Enables the command.
    Enable,
}

/// An operand `clamp(a·x + b, lo, hi)` of the one state `x` it reads: a linear expression
/// under `min`/`max` with constants (`i64::MIN`/`MAX`: no bound on that side), and how the
/// effect uses it: `x = clamp(…)` (`sign` 0), `x += clamp(…)` (1) or `x -= clamp(…)` (−1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clamped {
    /// 0: the effect sets x to the operand; ±1: adds it to x or subtracts it from x.
    pub sign: i8,
    /// Factor of x.
    pub a: i64,
    /// Constant term.
    pub b: i64,
    /// Lower bound.
    pub lo: i64,
    /// Upper bound.
    pub hi: i64,
}

impl Clamped {
    /// The constant `v`.
    const fn konst(v: i64) -> Clamped {
        Clamped {
            sign: 0,
            a: 0,
            b: v,
            lo: i64::MIN,
            hi: i64::MAX,
        }
    }

    /// The target's value after one firing from `x` (None on overflow).
    pub fn at(&self, x: i64) -> Option<i64> {
        let v = (self.a as i128)
            .checked_mul(x as i128)?
            .checked_add(self.b as i128)?
            .clamp(self.lo as i128, self.hi as i128);
        let x = x as i128;
        i64::try_from(match self.sign {
            0 => v,
            s if s > 0 => x + v,
            _ => x - v,
        })
        .ok()
    }

    /// Whether a firing's result never falls as `x` rises (then a value that moved away from
    /// the target keeps moving away).
    fn nondecreasing(&self) -> bool {
        match self.sign {
            0 => self.a > 0,
            s => 1 + (s as i128) * (self.a as i128) >= 0,
        }
    }

    /// The largest change one firing of a `+=`/`-=` clamp makes (the operand's upper bound; 1
    /// when it has none), for the rate of a command-free one.
    fn max_step(&self) -> f64 {
        if self.hi == i64::MAX {
            1.0
        } else {
            (self.hi as f64).max(1.0)
        }
    }

    /// Reads `code` as a clamped linear expression of `x`, when it is one and does clamp.
    fn of(code: &[Op], x: (SideRef, StateId)) -> Option<Clamped> {
        use crate::syntax::ast::BinOp;
        const FREE: (i64, i64) = (i64::MIN, i64::MAX);
        let konst = |c: &Clamped| (c.a == 0 && (c.lo, c.hi) == FREE).then_some(c.b);
        let mut st: Vec<Clamped> = Vec::new();
        // `c + k` and `k·c`, bounds moved along (saturating: an open side stays open).
        let shift = |c: Clamped, k: i64| -> Option<Clamped> {
            Some(Clamped {
                sign: 0,
                a: c.a,
                b: c.b.checked_add(k)?,
                lo: if c.lo == i64::MIN {
                    c.lo
                } else {
                    c.lo.checked_add(k)?
                },
                hi: if c.hi == i64::MAX {
                    c.hi
                } else {
                    c.hi.checked_add(k)?
                },
            })
        };
        let scale = |c: Clamped, k: i64| -> Option<Clamped> {
            if k == 0 {
                return Some(Clamped::konst(0));
            }
            let bound = |v: i64, open: bool| {
                if open {
                    Some(if k >= 0 {
                        v
                    } else if v == i64::MIN {
                        i64::MAX
                    } else {
                        i64::MIN
                    })
                } else {
                    v.checked_mul(k)
                }
            };
            let lo = bound(c.lo, c.lo == i64::MIN)?;
            let hi = bound(c.hi, c.hi == i64::MAX)?;
            let (lo, hi) = if k >= 0 { (lo, hi) } else { (hi, lo) };
            Some(Clamped {
                sign: 0,
                a: c.a.checked_mul(k)?,
                b: c.b.checked_mul(k)?,
                lo,
                hi,
            })
        };
        for op in code {
            let c = match *op {
                Op::Push(v) => Clamped::konst(v),
                Op::Load(s, id) if (s, id) == x => Clamped {
                    a: 1,
                    ..Clamped::konst(0)
                },
                Op::Neg => scale(st.pop()?, -1)?,
                Op::Bin(bin) => {
                    let r = st.pop()?;
                    let l = st.pop()?;
                    match (bin, konst(&l), konst(&r)) {
                        (_, Some(p), Some(q)) => Clamped::konst(bin.apply(p, q)?),
                        (BinOp::Add, Some(k), None) => shift(r, k)?,
                        (BinOp::Add | BinOp::Sub, None, Some(k)) => shift(
                            l,
                            if bin == BinOp::Add {
                                k
                            } else {
                                k.checked_neg()?
                            },
                        )?,
                        (BinOp::Sub, Some(k), None) => shift(scale(r, -1)?, k)?,
                        (BinOp::Mul, Some(k), None) => scale(r, k)?,
                        (BinOp::Mul, None, Some(k)) => scale(l, k)?,
                        _ => return None,
                    }
                }
                Op::Min | Op::Max => {
                    let r = st.pop()?;
                    let l = st.pop()?;
                    let (c, k) = match (konst(&l), konst(&r)) {
                        (Some(p), Some(q)) => {
                            let v = if *op == Op::Min { p.min(q) } else { p.max(q) };
                            st.push(Clamped::konst(v));
                            continue;
                        }
                        (Some(k), None) => (r, k),
                        (None, Some(k)) => (l, k),
                        (None, None) => return None,
                    };
                    if *op == Op::Min {
                        Clamped {
                            lo: c.lo.min(k),
                            hi: c.hi.min(k),
                            ..c
                        }
                    } else {
                        Clamped {
                            lo: c.lo.max(k),
                            hi: c.hi.max(k),
                            ..c
                        }
                    }
                }
                _ => return None,
            };
            st.push(c);
        }
        match st[..] {
            [c] if c.a != 0 && (c.lo, c.hi) != FREE => Some(c),
            _ => None,
        }
    }
}

/// A node with its level and achievers.
#[derive(Clone, Debug)]
pub struct Node {
    /// The condition.
    pub key: NodeKey,
    /// Display text, e.g. `O.後ろ余裕度<=0`.
    pub text: String,
    /// 1 = a condition of a decisive rule; deeper levels are conditions of achievers.
    pub level: u32,
    /// Rules that move it toward its target.
    pub achievers: Vec<Achiever>,
    /// The greatest common divisor of its achievers' constant steps (`S.点+3`: 3; 1 once a
    /// step is a `rand` range or not a constant; 0 while none adds): the values they can land
    /// on from the current one, so a bounded target between them is never hit (§10.5's
    /// overshoot: `S.点+3` from 0 never makes `S.点==7` hold).
    pub grid: i64,
}

/// A decisive rule: one that makes S win.
#[derive(Clone, Debug)]
pub struct Decisive {
    /// Rule index.
    pub rule: usize,
    /// Source line.
    pub line: usize,
    /// The rule as text.
    pub text: String,
    /// Its conditions that are nodes.
    pub conds: Vec<usize>,
    /// Its excluded conditions.
    pub excluded: Vec<String>,
    /// A victory rule (no command atoms, only 勝利/敗北 effects): checked at the end of the turn
    /// its conditions come to hold, so firing it costs no turn of its own.
    pub victory: bool,
    /// The opponent's own instance of a command-free rule whose effect makes the pursuer win
    /// (`S.体力<=0:S.敗北` seen from the other side): its conditions are read with S and O
    /// exchanged (§10.3's reasoning applied to §10.1, see rules/README.md §11).
    pub opponent: bool,
    /// Decisive for this side only (a win or loss written with `h.`/`c.`); None: for either.
    pub only: Option<Side>,
    /// One of its conditions never holds (`S.x*2==7`): it can never fire, so it is unreachable.
    pub never: bool,
    /// Its period when written with one (`@5/S.点>=2:S.勝利`), else 0: it runs only on its
    /// side's own turns that are multiples of it (see [`on_period`]).
    pub period: u32,
}

impl Decisive {
    /// Whether the rule is decisive for pursuer `x`.
    pub fn counts_for(&self, x: Side) -> bool {
        self.only.is_none_or(|s| s == x)
    }

    /// How the rule is decisive, for display: empty for the pursuer's own rule.
    pub fn whose(&self) -> String {
        let only = self.only.map(|s| format!("{} only", s.name()));
        match (self.opponent, only) {
            (false, None) => String::new(),
            (false, Some(o)) => o,
            (true, None) => "the opponent's own rule, fires by itself".into(),
            (true, Some(o)) => format!("the opponent's own rule, fires by itself; {o}"),
        }
    }
}

/// Something left out of the graph, with the reason.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Excluded {
    /// The condition or effect as text.
    pub what: String,
    /// Source line of its rule.
    pub line: usize,
    /// Why.
    pub reason: String,
}

/// The victory-condition graph of a program.
#[derive(Clone, Debug)]
pub struct VictoryGraph {
    /// Nodes (identical conditions are one node).
    pub nodes: Vec<Node>,
    /// Decisive rules.
    pub decisive: Vec<Decisive>,
    /// What was excluded, and why.
    pub excluded: Vec<Excluded>,
    index: HashMap<NodeKey, usize>,
}

/// What one condition of a rule becomes.
pub(crate) enum CondKind {
    Node(NodeKey),
    /// `O.[X]`, `![X]` …: decided by the search, cost 0.
    Free,
    /// Left out: (text, reason).
    Excluded(String, String),
}

/// The reason given for a condition that holds for no value of its state (`S.x*2==7`): a rule
/// with it can never fire.
const NEVER_HOLDS: &str = "never holds for a whole number";

fn single_load(code: &[Op]) -> Option<(SideRef, StateId)> {
    match code {
        [Op::Load(s, id)] => Some((*s, *id)),
        _ => None,
    }
}

fn constant(code: &[Op]) -> Option<i64> {
    match code {
        [Op::Push(v)] => Some(*v),
        _ => None,
    }
}

fn range_of(op: CmpOp, k: i64, flipped: bool) -> Option<Target> {
    let op = if flipped { op.mirrored() } else { op };
    Some(match op {
        CmpOp::Eq => Target::Range(k, k),
        CmpOp::Lt => Target::Range(i64::MIN, k.checked_sub(1)?),
        CmpOp::Le => Target::Range(i64::MIN, k),
        CmpOp::Gt => Target::Range(k.checked_add(1)?, i64::MAX),
        CmpOp::Ge => Target::Range(k, i64::MAX),
        // `S.x!=0` is `S.x` (non-zero); `!=` another constant holds on two sides of it.
        CmpOp::Ne if k == 0 => Target::NonZero,
        CmpOp::Ne => return None,
    })
}

/// States an expression reads.
fn reads(code: &[Op]) -> Vec<(SideRef, StateId)> {
    let mut v: Vec<(SideRef, StateId)> = code
        .iter()
        .filter_map(|o| {
            if let Op::Load(s, id) = o {
                Some((*s, *id))
            } else {
                None
            }
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// An expression as `a·x + b` in the one state `x` it reads (`S.x*2`, `S.x+3`, `-S.x`, a
/// constant), or None when it is not linear in it (a product of states, `min`, `rand` …).
fn linear(code: &[Op], x: (SideRef, StateId)) -> Option<(i64, i64)> {
    use crate::syntax::ast::BinOp;
    let mut st: Vec<(i64, i64)> = Vec::new();
    for op in code {
        match *op {
            Op::Push(v) => st.push((0, v)),
            Op::Load(s, id) if (s, id) == x => st.push((1, 0)),
            Op::Neg => {
                let (a, b) = st.pop()?;
                st.push((a.checked_neg()?, b.checked_neg()?));
            }
            Op::Bin(bin) => {
                let (a2, b2) = st.pop()?;
                let (a1, b1) = st.pop()?;
                st.push(match bin {
                    BinOp::Add => (a1.checked_add(a2)?, b1.checked_add(b2)?),
                    BinOp::Sub => (a1.checked_sub(a2)?, b1.checked_sub(b2)?),
                    BinOp::Mul if a1 == 0 => (b1.checked_mul(a2)?, b1.checked_mul(b2)?),
                    BinOp::Mul if a2 == 0 => (a1.checked_mul(b2)?, b1.checked_mul(b2)?),
                    _ if a1 == 0 && a2 == 0 => (0, bin.apply(b1, b2)?),
                    _ => return None,
                });
            }
            _ => return None,
        }
    }
    match st[..] {
        [v] => Some(v),
        _ => None,
    }
}

/// `a·x + b OP 0` for integer x as a node target, when it is one range (or non-zero); None
/// otherwise. `Err` when it can never hold.
fn linear_target(a: i64, b: i64, op: CmpOp) -> Option<Result<Target, ()>> {
    if a == 0 {
        return None;
    }
    // a·x OP k with a > 0.
    let (a, k, op) = if a > 0 {
        (a as i128, -(b as i128), op)
    } else {
        (-(a as i128), b as i128, op.mirrored())
    };
    let floor = k.div_euclid(a);
    let ceil = -((-k).div_euclid(a));
    let fit = |v: i128| i64::try_from(v).ok();
    Some(Ok(match op {
        CmpOp::Ge => Target::Range(fit(ceil)?, i64::MAX),
        CmpOp::Gt => Target::Range(fit(floor + 1)?, i64::MAX),
        CmpOp::Le => Target::Range(i64::MIN, fit(floor)?),
        CmpOp::Lt => Target::Range(i64::MIN, fit(ceil - 1)?),
        CmpOp::Eq if k % a == 0 => Target::Range(fit(k / a)?, fit(k / a)?),
        CmpOp::Eq => return Some(Err(())),
        CmpOp::Ne if k == 0 => Target::NonZero,
        CmpOp::Ne => return None,
    }))
}

pub(crate) fn classify(p: &RuleProgram, c: &CCond) -> CondKind {
    match *c {
        CCond::Truth {
            neg: false,
            side,
            state,
        } => CondKind::Node(NodeKey {
            side,
            id: state,
            target: Target::NonZero,
        }),
        CCond::Truth {
            neg: true,
            side,
            state,
        } => CondKind::Node(NodeKey {
            side,
            id: state,
            target: Target::Range(0, 0),
        }),
        // The acting side's command now, or earlier in a sequence (`[左],[右]`: 左 on the turn
        // before): it must be enabled to be chosen.
        CCond::Cmd {
            neg: false,
            opp: false,
            cmd,
            ..
        } => CondKind::Node(NodeKey {
            side: SideRef::S,
            id: cmd,
            target: Target::Enabled,
        }),
        CCond::Cmd { .. } => CondKind::Free,
        CCond::Cmp { op, lhs, rhs } => {
            let (l, r) = (p.code_of(lhs), p.code_of(rhs));
            let text = format!("{}{}{}", p.code_text(lhs), op.text(), p.code_text(rhs));
            let mut all = reads(l);
            all.extend(reads(r));
            all.sort();
            all.dedup();
            if all.len() >= 2 {
                return CondKind::Excluded(text, "reads two or more states".into());
            }
            if l.iter().chain(r).any(|o| matches!(o, Op::Rand(_))) {
                return CondKind::Excluded(text, "depends on chance (rand)".into());
            }
            let mut t = match (single_load(l), constant(r), constant(l), single_load(r)) {
                (Some((s, id)), Some(k), _, _) => range_of(op, k, false).map(|t| (s, id, t)),
                (_, _, Some(k), Some((s, id))) => range_of(op, k, true).map(|t| (s, id, t)),
                _ => None,
            };
            // One state in arithmetic (`S.x*2>=10`, `S.x+3>=8`, `-S.x>=0`): solved for it.
            if let (None, [x]) = (t, &all[..])
                && let (Some((a1, b1)), Some((a2, b2))) = (linear(l, *x), linear(r, *x))
                && let (Some(a), Some(b)) = (a1.checked_sub(a2), b1.checked_sub(b2))
            {
                match linear_target(a, b, op) {
                    Some(Ok(target)) => t = Some((x.0, x.1, target)),
                    Some(Err(())) => {
                        return CondKind::Excluded(text, NEVER_HOLDS.into());
                    }
                    None => {}
                }
            }
            match t {
                Some((side, id, target)) => CondKind::Node(NodeKey { side, id, target }),
                None if all.is_empty() => CondKind::Excluded(text, "reads no state".into()),
                None if op == CmpOp::Ne => CondKind::Excluded(
                    text,
                    "`!=` a constant other than 0 (a target on both sides of it)".into(),
                ),
                None => {
                    CondKind::Excluded(text, "not a comparison of one state with a constant".into())
                }
            }
        }
    }
}

/// Does effect `e` of a rule (S = pursuer) move node `k`? Returns the step.
fn step_of(p: &RuleProgram, e: &CEffect, k: &NodeKey) -> Result<Option<Step>, String> {
    match (*e, k.target) {
        (
            CEffect::Enable {
                opp: false,
                cmd,
                on: true,
            },
            Target::Enabled,
        ) if k.side == SideRef::S && cmd == k.id => Ok(Some(Step::Enable)),
        (CEffect::Bool { side, state, value }, Target::NonZero | Target::Range(..))
            if side == k.side && state == k.id =>
        {
            Ok(Some(Step::Set(value as i64)))
        }
        (
            CEffect::Update {
                side,
                state,
                op,
                expr,
            },
            Target::NonZero | Target::Range(..),
        ) if side == k.side && state == k.id => {
            let code = p.code_of(expr);
            let other = reads(code)
                .into_iter()
                .any(|(s, id)| !(s == side && id == state));
            if other {
                return Err("its operand reads another state".into());
            }
            let mean = match code {
                [Op::Push(v)] => Some(*v as f64),
                [Op::Push(a), Op::Push(b), Op::Rand(_)] => Some((*a as f64 + *b as f64) / 2.0),
                _ => None,
            };
            // An operand of the target itself under `min`/`max`, set (`S.気=min(S.気+2,5)`) or
            // added (`S.スタミナ+=min(3,10-S.スタミナ)`): iterated from the current value, as
            // §10.5 says for `=` and for an overshooting step.
            if mean.is_none()
                && let Some(sign) = match op {
                    UpdOp::Set => Some(0),
                    UpdOp::Add => Some(1),
                    UpdOp::Sub => Some(-1),
                    _ => None,
                }
                && let Some(c) = Clamped::of(code, (side, state))
            {
                return Ok(Some(Step::Clamp(Clamped { sign, ..c })));
            }
            // An operand linear in the target itself (`S.x=S.x+3`, `S.x+=S.x`): the step it
            // makes, or a scaling iterated from the current value.
            if mean.is_none()
                && let Some((a, b)) = linear(code, (side, state))
            {
                let (a, b) = match op {
                    UpdOp::Set => (a, b),
                    UpdOp::Add => (a.saturating_add(1), b),
                    UpdOp::Sub => (1i64.saturating_sub(a), b.saturating_neg()),
                    _ => (0, 0),
                };
                match (op, a, b) {
                    (UpdOp::Mul | UpdOp::Div, ..) => {}
                    (_, 1, b) => return Ok((b != 0).then_some(Step::Add(b as f64))),
                    (_, 0, b) => return Ok(Some(Step::Set(b))),
                    (_, a, 0) => return Ok(Some(Step::Scale(UpdOp::Mul, a))),
                    _ => return Err("its operand both scales and shifts the target".into()),
                }
            }
            Ok(match (op, mean) {
                (UpdOp::Add, Some(m)) => Some(Step::Add(m)),
                (UpdOp::Sub, Some(m)) => Some(Step::Add(-m)),
                (UpdOp::Set, Some(m)) => Some(Step::Set(m as i64)),
                (UpdOp::Mul | UpdOp::Div, Some(m)) => Some(Step::Scale(op, m as i64)),
                // An operand we cannot size (it reads the target itself other than as a clamp,
                // e.g. S.x+=abs(S.x-5)): count it as a step of 1 toward the target.
                (UpdOp::Add | UpdOp::Sub, None) => {
                    Some(Step::Add(if op == UpdOp::Add { 1.0 } else { -1.0 }))
                }
                _ => None,
            })
        }
        _ => Ok(None),
    }
}

/// The ways rule `r` is decisive (§10.1): (the opponent's instance, for one side only), for
/// each effect that sets a 勝利 or 敗北. The pursuer's own instance counts when its effect makes
/// the acting side win (`S.勝利`, `O.敗北`, or `h.勝利`/`c.敗北` acting as h …); the opponent's
/// instance when the rule fires without a command and its effect makes the other side win
/// (`S.敗北`, `O.勝利`, or `h.敗北` acting as h for c …), as its achievers count by §10.3.
fn decisive_ways(p: &RuleProgram, r: &CRule) -> Vec<(bool, Option<Side>)> {
    use crate::program::{LOSE_STATE, WIN_STATE};
    let mut ways = Vec::new();
    for e in p.rule_effects(r) {
        let CEffect::Bool {
            side,
            state,
            value: true,
        } = *e
        else {
            continue;
        };
        let win = match state {
            WIN_STATE => true,
            LOSE_STATE => false,
            _ => continue,
        };
        // (opponent's instance, only): who wins relative to the acting side, or absolutely.
        let found: &[(bool, Option<Side>)] = match (side, win) {
            (SideRef::S, true) | (SideRef::O, false) => &[(false, None)],
            (SideRef::S, false) | (SideRef::O, true) => &[(true, None)],
            (SideRef::H, true) | (SideRef::C, false) => {
                &[(false, Some(Side::H)), (true, Some(Side::H))]
            }
            (SideRef::C, true) | (SideRef::H, false) => {
                &[(false, Some(Side::C)), (true, Some(Side::C))]
            }
        };
        for &(opponent, only) in found {
            if opponent && r.has_cmd_atoms {
                continue; // the pursuer cannot make the opponent choose a command
            }
            if !ways.contains(&(opponent, only)) {
                ways.push((opponent, only));
            }
        }
    }
    ways
}

impl VictoryGraph {
    /// Derives the graph from the rules.
    pub fn build(p: &RuleProgram) -> Self {
        let mut g = VictoryGraph {
            nodes: vec![],
            decisive: vec![],
            excluded: vec![],
            index: HashMap::default(),
        };
        let mut queue: Vec<usize> = Vec::new();
        for (ri, r) in p.rules.iter().enumerate() {
            for (opponent, only) in decisive_ways(p, r) {
                let (conds, excluded, never) = g.cond_nodes(p, ri, r, 1, opponent, &mut queue);
                // A rule written with absolute sides only (`h.綱>=3:h.勝利`) reads the same
                // from either instance: listed once.
                if opponent
                    && excluded.is_empty()
                    && g.decisive.iter().any(|d| {
                        d.rule == ri && d.only == only && d.conds == conds && d.excluded.is_empty()
                    })
                {
                    continue;
                }
                g.decisive.push(Decisive {
                    rule: ri,
                    line: p.meta[ri].origin.line,
                    text: p.rule_text(ri),
                    conds,
                    excluded,
                    victory: r.victory,
                    opponent,
                    only,
                    never,
                    period: if r.periodic { r.period.max(1) } else { 0 },
                });
            }
        }
        // The rules that write each state or enable each command (for itself): the only ones
        // `step_of` can find a step or a problem in. Without it every node scans every rule.
        let mut writers: HashMap<(bool, SideRef, u32), Vec<usize>> = HashMap::default();
        for (ri, r) in p.rules.iter().enumerate() {
            for e in p.rule_effects(r) {
                let at = match *e {
                    CEffect::Enable {
                        opp: false,
                        cmd,
                        on: true,
                    } => (true, SideRef::S, cmd),
                    CEffect::Bool { side, state, .. } | CEffect::Update { side, state, .. } => {
                        (false, side, state)
                    }
                    _ => continue,
                };
                let v = writers.entry(at).or_default();
                if v.last() != Some(&ri) {
                    v.push(ri);
                }
            }
        }
        let mut qi = 0;
        while qi < queue.len() {
            let ni = queue[qi];
            qi += 1;
            let level = g.nodes[ni].level;
            if level >= DEPTH_CAP {
                continue;
            }
            let key = g.nodes[ni].key;
            let at = (key.target == Target::Enabled, key.side, key.id);
            // The pursuer's rules that write the node's state (or enable its command), then
            // the opponent's own command-free rules that write it: seen from the opponent, the
            // pursuer's S is its O.
            let own = writers.get(&at).map_or(&[][..], |v| &v[..]);
            let theirs: &[usize] = match (key.target, key.side.swapped()) {
                (Target::Enabled, _) => &[],
                (_, Some(f)) => writers.get(&(false, f, key.id)).map_or(&[][..], |v| &v[..]),
                (_, None) => &[],
            };
            let writing = |side: SideRef| writers.get(&(false, side, key.id)).into_iter().flatten();
            // (rule, the opponent's instance, for one pursuer only, the side its effect names).
            let mut candidates: Vec<(usize, bool, Option<Side>, SideRef)> = own
                .iter()
                .map(|&ri| (ri, false, None, key.side))
                .chain(
                    theirs
                        .iter()
                        .filter(|&&ri| !p.rules[ri].has_cmd_atoms)
                        .map(|&ri| (ri, true, None, key.side.swapped().unwrap_or(key.side))),
                )
                .collect();
            if key.target != Target::Enabled {
                match key.side {
                    // h's or c's state, written relatively: by the pursuer's own instance when
                    // it is that side (S) or the other (O), and by the opponent's command-free
                    // instance the other way round.
                    SideRef::H | SideRef::C => {
                        let a: Side = if key.side == SideRef::H {
                            Side::H
                        } else {
                            Side::C
                        };
                        for (w, mine) in [(SideRef::S, a), (SideRef::O, a.opponent())] {
                            for &ri in writing(w) {
                                candidates.push((ri, false, Some(mine), w));
                                if !p.rules[ri].has_cmd_atoms {
                                    candidates.push((ri, true, Some(mine.opponent()), w));
                                }
                            }
                        }
                    }
                    // The pursuer's (S) or opponent's (O) state written as h's or c's.
                    SideRef::S | SideRef::O => {
                        for (w, abs) in [(SideRef::H, Side::H), (SideRef::C, Side::C)] {
                            for &ri in writing(w) {
                                let pursuer = if key.side == SideRef::S {
                                    abs
                                } else {
                                    abs.opponent()
                                };
                                candidates.push((ri, false, Some(pursuer), w));
                            }
                        }
                    }
                }
            }
            for (ri, opponent, only, written) in candidates {
                let r = &p.rules[ri];
                let seen = NodeKey {
                    side: written,
                    ..key
                };
                for e in p.rule_effects(r) {
                    match step_of(p, e, &seen) {
                        // A `::` rule's inverse half (§4: the opposite flag when its condition
                        // fails), for a rule of one condition whose failure is one node.
                        Ok(Some(Step::Set(v)))
                            if r.iff
                                && matches!(e, CEffect::Bool { .. })
                                && !moves_toward(Step::Set(v), key.target)
                                && moves_toward(Step::Set(1 - v), key.target) =>
                        {
                            let [c] = p.rule_conds(r) else { continue };
                            let CondKind::Node(mut k) = classify(p, c) else {
                                continue;
                            };
                            let Some(t) = k.target.negated() else {
                                continue;
                            };
                            k.target = t;
                            if opponent {
                                k.side = k.side.swapped().unwrap_or(k.side);
                            }
                            let cond = g.node_for(p, k, level + 1, &mut queue);
                            let m = &p.meta[ri];
                            g.nodes[ni].achievers.push(Achiever {
                                rule: ri,
                                line: m.origin.line,
                                step: Step::Set(1 - v),
                                needs_command: r.has_cmd_atoms,
                                period: r.period,
                                conds: vec![cond],
                                excluded: vec![],
                                opponent,
                                only,
                                rearm: 0,
                                spends: vec![],
                            });
                            break;
                        }
                        Ok(Some(step)) => {
                            if !moves_toward(step, key.target) {
                                continue;
                            }
                            if matches!(step, Step::Add(_))
                                || matches!(step, Step::Clamp(c) if c.sign != 0)
                            {
                                let unit = match *e {
                                    CEffect::Update { expr, .. } => match p.code_of(expr) {
                                        [Op::Push(v)] => v.unsigned_abs().min(1 << 62) as i64,
                                        _ => 1,
                                    },
                                    _ => 1,
                                };
                                let n = &mut g.nodes[ni];
                                n.grid =
                                    crate::program::gcd(n.grid.unsigned_abs(), unit.unsigned_abs())
                                        as i64;
                            }
                            let (conds, excluded, never) =
                                g.cond_nodes(p, ri, r, level + 1, opponent, &mut queue);
                            if never {
                                break; // it can never fire (the excluded list says why)
                            }
                            let m = &p.meta[ri];
                            g.nodes[ni].achievers.push(Achiever {
                                rule: ri,
                                line: m.origin.line,
                                step,
                                needs_command: r.has_cmd_atoms,
                                period: r.period,
                                conds,
                                excluded,
                                opponent,
                                only,
                                rearm: 0,
                                spends: vec![],
                            });
                            break;
                        }
                        Ok(None) => {}
                        Err(reason) => {
                            let what = p.rule_text(ri);
                            let line = p.meta[ri].origin.line;
                            if !g
                                .excluded
                                .iter()
                                .any(|x| x.what == what && x.reason == reason)
                            {
                                g.excluded.push(Excluded {
                                    what,
                                    line,
                                    reason: format!("effect on {}: {reason}", g.nodes[ni].text),
                                });
                            }
                        }
                    }
                }
            }
        }
        g.set_rearm(p);
        g.set_spends(p);
        g
    }

    /// Fills in [`Achiever::spends`] for the achievers that need a command: the one-sided range
    /// conditions they use (their own, and those of the rules that enable their commands) that
    /// their rule, or a rule whose only condition is one of its commands (`[強打]:S.溜め-2`),
    /// moves away from the target by a step (net of what the same firing gives back).
    fn set_spends(&mut self, p: &RuleProgram) {
        // The rules that fire whenever a command is played, whatever else holds.
        let mut with_cmd: HashMap<CmdId, Vec<usize>> = HashMap::default();
        for (ri, r) in p.rules.iter().enumerate() {
            if let [
                CCond::Cmd {
                    neg: false,
                    opp: false,
                    back: 0,
                    cmd,
                },
            ] = p.rule_conds(r)
                && r.period <= 1
            {
                with_cmd.entry(*cmd).or_default().push(ri);
            }
        }
        let free_rates: Vec<f64> = self
            .nodes
            .iter()
            .map(|n| free_rate(n, None, |_| true))
            .collect();
        let mut all: Vec<Vec<Vec<Spend>>> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let per_node = n
                .achievers
                .iter()
                .map(|a| {
                    if !a.needs_command || a.opponent {
                        return vec![];
                    }
                    let mut conds: Vec<usize> = Vec::new();
                    for &c in &a.conds {
                        if self.nodes[c].key.target == Target::Enabled {
                            for b in &self.nodes[c].achievers {
                                if b.step == Step::Enable {
                                    conds.extend(&b.conds);
                                }
                            }
                        } else {
                            conds.push(c);
                        }
                    }
                    conds.sort_unstable();
                    conds.dedup();
                    let mut rules = vec![a.rule];
                    for c in p.rule_conds(&p.rules[a.rule]) {
                        if let CCond::Cmd {
                            neg: false,
                            opp: false,
                            back: 0,
                            cmd,
                        } = c
                        {
                            for &r in with_cmd.get(cmd).into_iter().flatten() {
                                if !rules.contains(&r) {
                                    rules.push(r);
                                }
                            }
                        }
                    }
                    conds
                        .into_iter()
                        .filter_map(|c| {
                            let node = &self.nodes[c];
                            let Target::Range(lo, hi) = node.key.target else {
                                return None;
                            };
                            if (lo == i64::MIN) == (hi == i64::MAX) {
                                return None; // bounded on both sides, or no bound
                            }
                            let mut per = 0.0;
                            for &r in &rules {
                                for e in p.rule_effects(&p.rules[r]) {
                                    // Net of what the same firing gives back.
                                    let d = match step_of(p, e, &node.key) {
                                        Ok(Some(Step::Add(d))) => Some(d),
                                        // A clamped `+=`/`-=` nets as a step of 1.
                                        Ok(Some(Step::Clamp(c))) if c.sign != 0 => {
                                            Some(c.sign as f64)
                                        }
                                        _ => None,
                                    };
                                    if let Some(d) = d {
                                        if moves_toward(Step::Add(d), node.key.target) {
                                            per -= d.abs();
                                        } else {
                                            per += d.abs();
                                        }
                                    }
                                }
                            }
                            (per > 0.0).then_some(Spend {
                                node: c,
                                per,
                                free: free_rates[c],
                            })
                        })
                        .collect()
                })
                .collect();
            all.push(per_node);
        }
        for (n, per) in self.nodes.iter_mut().zip(all) {
            for (a, s) in n.achievers.iter_mut().zip(per) {
                a.spends = s;
            }
        }
    }

    /// Fills in [`Achiever::rearm`]: for each achiever, the effects of its rule that set one of
    /// its condition nodes' states outside the node's target, and the cheapest own cost of
    /// bringing that node back from the value set (its achievers' own conditions left out).
    fn set_rearm(&mut self, p: &RuleProgram) {
        // Bringing a condition back is estimated with every command-free achiever firing.
        let free_rates: Vec<f64> = self
            .nodes
            .iter()
            .map(|n| free_rate(n, None, |_| true))
            .collect();
        let mut rearm: Vec<Vec<u32>> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let mut per = Vec::with_capacity(n.achievers.len());
            for a in &n.achievers {
                let mut total = 0u32;
                for &c in &a.conds {
                    let node = &self.nodes[c];
                    // The condition as the rule's own effects name it (S and O exchanged for
                    // the opponent's rule).
                    let seen = if a.opponent {
                        NodeKey {
                            side: node.key.side.swapped().unwrap_or(node.key.side),
                            ..node.key
                        }
                    } else {
                        node.key
                    };
                    for e in p.rule_effects(&p.rules[a.rule]) {
                        let Ok(Some(Step::Set(v))) = step_of(p, e, &seen) else {
                            continue;
                        };
                        if target_holds(node.key.target, v) {
                            continue;
                        }
                        let back = node
                            .achievers
                            .iter()
                            .filter_map(|b| {
                                own_cost_of(
                                    node.key.target,
                                    v,
                                    b.step,
                                    b.needs_command,
                                    b.period,
                                    free_rates[c],
                                    node.grid,
                                )
                            })
                            .min()
                            .unwrap_or(NO_REARM);
                        total = total.saturating_add(back);
                    }
                }
                per.push(total);
            }
            rearm.push(per);
        }
        for (n, per) in self.nodes.iter_mut().zip(rearm) {
            for (a, r) in n.achievers.iter_mut().zip(per) {
                a.rearm = r;
            }
        }
    }

    /// The node of `k`, made (at `level`, queued for its achievers) if it is new.
    fn node_for(
        &mut self,
        p: &RuleProgram,
        k: NodeKey,
        level: u32,
        queue: &mut Vec<usize>,
    ) -> usize {
        if let Some(&i) = self.index.get(&k) {
            return i;
        }
        let i = self.nodes.len();
        self.nodes.push(Node {
            key: k,
            text: node_text(p, &k),
            level,
            achievers: vec![],
            grid: 0,
        });
        self.index.insert(k, i);
        queue.push(i);
        i
    }

    fn cond_nodes(
        &mut self,
        p: &RuleProgram,
        ri: usize,
        r: &CRule,
        level: u32,
        opponent: bool,
        queue: &mut Vec<usize>,
    ) -> (Vec<usize>, Vec<String>, bool) {
        let mut nodes = Vec::new();
        let mut excluded = Vec::new();
        let mut never = false;
        for c in p.rule_conds(r) {
            match classify(p, c) {
                CondKind::Node(mut k) => {
                    // The opponent's own rule: its S is the pursuer's O.
                    if opponent {
                        k.side = k.side.swapped().unwrap_or(k.side);
                    }
                    let i = self.node_for(p, k, level, queue);
                    if !nodes.contains(&i) {
                        nodes.push(i);
                    }
                }
                CondKind::Free => {}
                CondKind::Excluded(text, reason) => {
                    never |= reason == NEVER_HOLDS;
                    let line = p.meta[ri].origin.line;
                    if !self
                        .excluded
                        .iter()
                        .any(|x| x.what == text && x.line == line)
                    {
                        self.excluded.push(Excluded {
                            what: text.clone(),
                            line,
                            reason,
                        });
                    }
                    excluded.push(text);
                }
            }
        }
        (nodes, excluded, never)
    }
}

/// True if value `v` meets `t` (a command target is never met by a value).
fn target_holds(t: Target, v: i64) -> bool {
    match t {
        Target::Range(lo, hi) => v >= lo && v <= hi,
        Target::NonZero => v != 0,
        Target::Enabled => false,
    }
}

/// The rate at which a node's command-free achievers move it by themselves (per turn): those
/// whose condition nodes all hold (`holds(c)` for node c). One whose conditions do not hold does
/// not fire by itself; a plan that needs it pays for its conditions by choosing it as the
/// achiever (a poison tick counts only once someone is poisoned).
pub(crate) fn free_rate(node: &Node, x: Option<Side>, holds: impl Fn(usize) -> bool) -> f64 {
    node.achievers
        .iter()
        .filter(|a| x.is_none_or(|x| a.serves(x)))
        .filter(|a| !a.needs_command && a.conds.iter().all(|&c| holds(c)))
        .filter_map(free_step)
        .sum()
}

/// A command-free achiever's contribution to [`free_rate`]: its step per turn.
pub(crate) fn free_step(a: &Achiever) -> Option<f64> {
    match a.step {
        Step::Add(d) if !a.needs_command => Some(d.abs() / a.period.max(1) as f64),
        Step::Clamp(c) if !a.needs_command && c.sign != 0 => {
            Some(c.max_step() / a.period.max(1) as f64)
        }
        _ => None,
    }
}

fn moves_toward(step: Step, t: Target) -> bool {
    match (step, t) {
        (Step::Enable, Target::Enabled) => true,
        (Step::Set(v), Target::NonZero) => v != 0,
        (Step::Set(v), Target::Range(lo, hi)) => v >= lo && v <= hi,
        (Step::Add(d), Target::Range(lo, hi)) => {
            (d < 0.0 && hi != i64::MAX)
                || (d > 0.0 && lo != i64::MIN)
                || (lo != i64::MIN && hi != i64::MAX && d != 0.0)
        }
        (Step::Add(d), Target::NonZero) => d != 0.0,
        // A clamped `+=`/`-=` moves the way its sign says, as a step of that sign would.
        (Step::Clamp(c), _) if c.sign != 0 => moves_toward(Step::Add(c.sign as f64), t),
        (Step::Scale(..) | Step::Clamp(..), Target::Range(..) | Target::NonZero) => true,
        _ => false,
    }
}

/// A node's condition as text.
pub fn node_text(p: &RuleProgram, k: &NodeKey) -> String {
    let pre = k.side.prefix();
    match k.target {
        Target::Enabled => format!("{pre}.[{}] enabled", p.commands[k.id as usize]),
        Target::NonZero => format!("{pre}.{}", p.states[k.id as usize]),
        Target::Range(0, 0) => format!("!{pre}.{}", p.states[k.id as usize]),
        Target::Range(lo, hi) if lo == hi => format!("{pre}.{}=={lo}", p.states[k.id as usize]),
        Target::Range(i64::MIN, hi) => format!("{pre}.{}<={hi}", p.states[k.id as usize]),
        Target::Range(lo, i64::MAX) => format!("{pre}.{}>={lo}", p.states[k.id as usize]),
        Target::Range(lo, hi) => format!("{lo}<={pre}.{}<={hi}", p.states[k.id as usize]),
    }
}

/// Distances of one pursuer in one position.
#[derive(Clone, Debug)]
pub struct Distances {
    /// Per node: the cheapest total (own turns + its achiever tree), or UNREACHABLE.
    pub node: Vec<u32>,
    /// Per node: holds now.
    pub holds: Vec<bool>,
    /// Per decisive rule: its cost.
    pub decisive: Vec<u32>,
    /// The distance to winning ([`UNREACHABLE`] when no win can be reached).
    pub to_win: u32,
    /// Why no win can be reached, when none can (the distance is then infinite; the evaluation
    /// uses the turn limit in its place).
    pub unreachable: Option<String>,
}

/// Why no decisive rule can be achieved: the first one's first condition that cannot be
/// brought about, followed down to a condition with nothing that achieves it.
fn unreachable_reason(g: &VictoryGraph, node: &[u32], cap: u32, x: Side) -> String {
    let Some(d) = g.decisive.iter().find(|d| d.counts_for(x)) else {
        return "no rule makes this side win".into();
    };
    if d.never {
        return format!(
            "line {}: {} can never fire (a condition never holds)",
            d.line, d.text
        );
    }
    let Some(mut at) = d.conds.iter().copied().find(|&c| node[c] >= cap) else {
        return format!("line {}: {} cannot fire", d.line, d.text);
    };
    let mut seen = vec![at];
    loop {
        let n = &g.nodes[at];
        if n.achievers.is_empty() {
            let left_out = format!("effect on {}: ", n.text);
            if let Some(x) = g.excluded.iter().find(|x| x.reason.starts_with(&left_out)) {
                return format!(
                    "the rules that move {} are left out, e.g. line {}: {}",
                    n.text,
                    x.line,
                    &x.reason[left_out.len()..]
                );
            }
            return if n.level >= DEPTH_CAP {
                format!("{} lies beyond the depth cap", n.text)
            } else {
                format!("no rule brings about {}", n.text)
            };
        }
        // Follow an achiever's condition that cannot be reached, if there is one.
        let next = n
            .achievers
            .iter()
            .flat_map(|a| a.conds.iter().copied())
            .find(|&c| node[c] >= cap && !seen.contains(&c));
        match next {
            Some(c) => {
                seen.push(c);
                at = c;
            }
            None => {
                return format!("nothing moves {} toward its target from here", n.text);
            }
        }
    }
}

/// A cheapest achiever tree: its total and its (node, own cost) parts.
type Tree = (u32, Vec<(usize, u32)>);

/// Walks the graph for pursuer `x` in position `st`: each node's cheapest achiever tree, memoised.
struct TreeWalk<'g, 'p> {
    g: &'g VictoryGraph,
    eng: &'g Engine<'p>,
    st: &'g State,
    x: Side,
    memo: HashMap<usize, Option<Tree>>,
}

impl<'g, 'p> TreeWalk<'g, 'p> {
    fn holds(&self, k: &NodeKey) -> bool {
        let side = k.side.resolve(self.x);
        match k.target {
            Target::Enabled => self.eng.is_enabled(self.st, side, k.id),
            Target::NonZero => self.eng.val(self.st, side, k.id) != 0,
            Target::Range(lo, hi) => {
                let v = self.eng.val(self.st, side, k.id);
                v >= lo && v <= hi
            }
        }
    }

    /// Turns to bring back what `firings` firings of `a` use up of its conditions
    /// ([`regain_turns`] summed over [`Achiever::spends`]); None when one cannot be brought back.
    fn spent(&self, a: &Achiever, firings: u32) -> Option<u32> {
        let mut total = 0u32;
        for s in &a.spends {
            let c = &self.g.nodes[s.node];
            let cur = self.eng.val(self.st, c.key.side.resolve(self.x), c.key.id);
            let regen = c
                .achievers
                .iter()
                .filter(|b| b.serves(self.x))
                .map(|b| (b.step, b.needs_command, b.period));
            let t = regain_turns(c.key.target, cur, s, firings, |from| {
                regen_cost(c.key.target, from, s.free, c.grid, regen)
            })?;
            total = total.saturating_add(t);
        }
        Some(total)
    }

    /// The cheapest tree for node `i` as (node, own cost) pairs; None if unreachable.
    fn tree(&mut self, i: usize, stack: &mut Vec<usize>) -> Option<(u32, Vec<(usize, u32)>)> {
        if let Some(m) = self.memo.get(&i) {
            return m.clone();
        }
        let node = &self.g.nodes[i];
        if self.holds(&node.key) {
            let r = Some((0, vec![(i, 0)]));
            self.memo.insert(i, r.clone());
            return r;
        }
        if stack.contains(&i) {
            return None; // a cycle: cut
        }
        stack.push(i);
        let cur = if node.key.target == Target::Enabled {
            0
        } else {
            self.eng
                .val(self.st, node.key.side.resolve(self.x), node.key.id)
        };
        let free_rate = free_rate(node, Some(self.x), |c| self.holds(&self.g.nodes[c].key));
        let mut best: Option<(u32, Vec<(usize, u32)>)> = None;
        let x = self.x;
        for a in node.achievers.iter().filter(|a| a.serves(x)) {
            let Some(own) = own_cost(node.key.target, cur, a, free_rate, node.grid) else {
                continue;
            };
            let Some(spent) = self.spent(a, own) else {
                continue;
            };
            let Some(own) = with_rearm(own, a.rearm) else {
                continue;
            };
            let own = own.saturating_add(spent);
            let mut parts: Vec<(usize, u32)> = vec![(i, own)];
            let mut ok = true;
            for &c in &a.conds {
                match self.tree(c, stack) {
                    Some((_, sub)) => merge(&mut parts, &sub),
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if !ok {
                continue;
            }
            let total = saturating_sum(&parts);
            if best.as_ref().is_none_or(|b| total < b.0) {
                best = Some((total, parts));
            }
        }
        stack.pop();
        self.memo.insert(i, best.clone());
        best
    }
}

/// The total cost of a tree's parts; huge gaps stay at `u32::MAX` instead of wrapping.
fn saturating_sum(parts: &[(usize, u32)]) -> u32 {
    parts.iter().fold(0u32, |t, p| t.saturating_add(p.1))
}

fn merge(into: &mut Vec<(usize, u32)>, from: &[(usize, u32)]) {
    for &(n, c) in from {
        if !into.iter().any(|x| x.0 == n) {
            into.push((n, c));
        }
    }
}

/// Own turns for an achiever to bring `cur` into the target.
fn own_cost(t: Target, cur: i64, a: &Achiever, free_rate: f64, grid: i64) -> Option<u32> {
    own_cost_of(t, cur, a.step, a.needs_command, a.period, free_rate, grid)
}

/// Whether steps on a grid of `grid` from `cur` can land in [lo, hi] (always, unless the
/// range is bounded on both sides and narrower than the grid's spacing there).
#[inline]
pub(crate) fn lands(grid: i64, cur: i64, lo: i64, hi: i64) -> bool {
    if grid <= 1 || lo == i64::MIN || hi == i64::MAX {
        return true;
    }
    // The first value at or above lo on cur's grid.
    let first = lo as i128 + (cur as i128 - lo as i128).rem_euclid(grid as i128);
    first <= hi as i128
}

/// [`own_cost`] from the achiever's step, whether it needs a command, and its period.
#[inline]
pub(crate) fn own_cost_of(
    t: Target,
    cur: i64,
    step: Step,
    needs_command: bool,
    period: u32,
    free_rate: f64,
    grid: i64,
) -> Option<u32> {
    match (step, t) {
        (Step::Enable, _) => Some(if needs_command { 1 } else { 0 }),
        (Step::Set(_), _) => Some(if needs_command { 1 } else { period.max(1) }),
        // A command-free clamped `+=`/`-=` is in `free_rate` at its largest step: priced as
        // that step, like the other command-free steps it is summed with.
        (Step::Clamp(c), _) if !needs_command && c.sign != 0 => own_cost_of(
            t,
            cur,
            Step::Add(c.sign as f64 * c.max_step()),
            needs_command,
            period,
            free_rate,
            grid,
        ),
        (Step::Add(_), Target::Range(lo, hi)) if !lands(grid, cur, lo, hi) => None,
        (Step::Add(d), Target::Range(lo, hi)) => {
            let gap = if cur < lo {
                (lo as f64) - (cur as f64)
            } else if cur > hi {
                (cur as f64) - (hi as f64)
            } else {
                0.0
            };
            let rate = if needs_command {
                d.abs() + free_rate
            } else {
                free_rate.max(d.abs() / period.max(1) as f64)
            };
            if rate <= 0.0 {
                return None;
            }
            // Up to rounding: 10 / (1 + 2/3) is 6.000000000000001 in floating point, and six
            // turns do it.
            let turns = gap / rate;
            Some(ceil_u32(turns - turns.max(1.0) * 1e-9).max(1))
        }
        (Step::Add(_), _) => Some(1),
        (Step::Scale(op, k), Target::Range(lo, hi)) => {
            let mut v = cur;
            for n in 1..=64u32 {
                v = op.apply(v, k)?;
                if v >= lo && v <= hi {
                    return Some(n);
                }
            }
            None
        }
        (Step::Scale(..), _) => Some(1),
        (Step::Clamp(c), Target::Range(..)) => {
            clamp_turns(t, cur, c, needs_command, period, free_rate)
        }
        (Step::Clamp(..), _) => Some(1),
    }
}

/// Turns to bring back, by the achievers of a condition `t` whose value is `cur`, what
/// `firings` firings of an achiever that uses it up ([`Spend`]) need beyond the reserve above
/// the target's bound: 0 while the reserve pays for them all, None when it cannot be brought
/// back. The first firing needs only the condition to hold, which the achiever's tree pays
/// for. `regen(from)` is the cheapest own cost of the condition's achievers from the value
/// `from` (at the spend's command-free rate, see [`regen_cost`]).
#[inline]
pub(crate) fn regain_turns(
    t: Target,
    cur: i64,
    s: &Spend,
    firings: u32,
    regen: impl FnOnce(i64) -> Option<u32>,
) -> Option<u32> {
    let Target::Range(lo, hi) = t else {
        return Some(0);
    };
    if firings <= 1 {
        return Some(0);
    }
    let lower = hi == i64::MAX; // `>= lo`: firings lower it
    let reserve = if lower {
        cur as f64 - lo as f64
    } else {
        hi as f64 - cur as f64
    };
    let units = (firings - 1) as f64 * s.per - reserve.max(0.0);
    if units <= 1e-9 {
        return Some(0);
    }
    let units = ceil_u32(units - 1e-9).min(1 << 30) as i64;
    let from = if lower {
        lo.saturating_sub(units)
    } else {
        hi.saturating_add(units)
    };
    regen(from)
}

/// The cheapest own cost from the value `from` of a condition `t`'s achievers `regen` (step,
/// needs a command, period), at a spend's command-free rate `free`: the `regen` of
/// [`regain_turns`].
pub(crate) fn regen_cost(
    t: Target,
    from: i64,
    free: f64,
    grid: i64,
    regen: impl Iterator<Item = (Step, bool, u32)>,
) -> Option<u32> {
    regen
        .filter_map(|(step, needs_command, period)| {
            own_cost_of(t, from, step, needs_command, period, free, grid)
        })
        .min()
}

/// Turns at most [`clamp_turns`] plays out.
const CLAMP_TURNS: u32 = 1000;

/// Own turns until an achiever `x = c(x)` or `x ±= c(x)` ([`Step::Clamp`]) brings `cur` into
/// `t`, played out turn by turn: it fires every turn (needing a command) or every `period` turns (by itself), and the
/// command-free achievers move the value `free_rate` a turn toward the target besides. None
/// when the value stops moving toward it (a clamp below the target) or past [`CLAMP_TURNS`].
fn clamp_turns(
    t: Target,
    cur: i64,
    c: Clamped,
    needs_command: bool,
    period: u32,
    free_rate: f64,
) -> Option<u32> {
    let (mut v, mut frac, period) = (cur, 0.0f64, period.max(1));
    let gap = |v: i64| match t {
        Target::Range(lo, hi) => (lo as i128 - v as i128).max(v as i128 - hi as i128).max(0),
        _ => 0,
    };
    let mut since_move = 0;
    for n in 1..=CLAMP_TURNS {
        let before = v;
        if needs_command || n.is_multiple_of(period) {
            v = c.at(v)?;
            // Moving away (a clamp that falls where the target rises): an operand increasing in
            // x makes the values monotone, so it never gets there (one that flips the sign may
            // come back, and is played out).
            if c.nondecreasing() && free_rate <= 0.0 && gap(v) > gap(before) {
                return None;
            }
        }
        if free_rate > 0.0 && !target_holds(t, v) {
            frac += free_rate;
            // `frac` is never negative: truncating is its floor, without a call into libm
            // (this loop runs for every clamped recovery the evaluation prices).
            let w = frac as i64;
            frac -= w as f64;
            let up = matches!(t, Target::Range(lo, _) if v < lo);
            v = if up {
                v.checked_add(w)?
            } else {
                v.checked_sub(w)?
            };
        }
        if target_holds(t, v) {
            return Some(n);
        }
        since_move = if v == before { since_move + 1 } else { 0 };
        if since_move > period && free_rate <= 0.0 {
            return None; // stuck: the clamp stops it short
        }
    }
    None
}

/// `x.ceil() as u32` for `x >= 0` (NaN gives 0, too large gives `u32::MAX`, as the cast does),
/// without a call into libm: the evaluation computes it for every achiever of every leaf.
#[inline]
fn ceil_u32(x: f64) -> u32 {
    let t = x as u32;
    if (t as f64) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

/// Own turns until a decisive rule of period `period` (0: none) that could fire `cost` own
/// turns from now runs, for a side that has taken `taken` turns: it runs on its own turns
/// that are multiples of the period (§8; a victory rule is checked at the end of such a turn,
/// and never before the side's first), so the cost rounds up to the next of them.
#[inline]
pub(crate) fn on_period(cost: u32, taken: u32, period: u32) -> u32 {
    if period == 0 || cost >= UNREACHABLE {
        return cost;
    }
    let at = u64::from(taken) + u64::from(cost);
    let p = u64::from(period);
    let mut t = u64::from(cost) + (p - at % p) % p;
    if u64::from(taken) + t == 0 {
        t = p;
    }
    t.min(u64::from(u32::MAX)) as u32
}

/// Both sides' distances to winning and the evaluation of a position.
pub fn distances(g: &VictoryGraph, eng: &Engine, st: &State, x: Side) -> Distances {
    let cap = UNREACHABLE;
    let mut ev = TreeWalk {
        g,
        eng,
        st,
        x,
        memo: HashMap::default(),
    };
    let mut stack = Vec::new();
    let node: Vec<u32> = (0..g.nodes.len())
        .map(|i| ev.tree(i, &mut stack).map_or(cap, |t| t.0.min(cap)))
        .collect();
    let holds: Vec<bool> = g.nodes.iter().map(|n| ev.holds(&n.key)).collect();
    let decisive: Vec<u32> = g
        .decisive
        .iter()
        .map(|d| {
            if !d.counts_for(x) || d.never {
                return cap;
            }
            let mut parts: Vec<(usize, u32)> = Vec::new();
            for &c in &d.conds {
                match ev.tree(c, &mut stack) {
                    Some((_, sub)) => merge(&mut parts, &sub),
                    None => return cap,
                }
            }
            // An excluded condition costs 0 if it holds, else 1 (read as the rule's acting
            // side: the opponent for its own instance).
            let p = eng.prog;
            let r = &p.rules[d.rule];
            let acting = if d.opponent { x.opponent() } else { x };
            let extra = p
                .rule_conds(r)
                .iter()
                .filter(|c| {
                    matches!(classify(p, c), CondKind::Excluded(..))
                        && !eng.cond_holds(c, st, acting)
                })
                .count() as u32;
            let fire: u32 = if d.victory { 0 } else { 1 };
            let cost = fire
                .saturating_add(saturating_sum(&parts))
                .saturating_add(extra)
                .min(cap);
            on_period(cost, st.own_turns[acting], d.period).min(cap)
        })
        .collect();
    let to_win = decisive.iter().copied().min().unwrap_or(cap);
    let unreachable = (to_win >= cap).then(|| unreachable_reason(g, &node, cap, x));
    Distances {
        node,
        holds,
        decisive,
        to_win,
        unreachable,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ceil_u32_is_the_cast_of_ceil() {
        let xs = [
            0.0,
            1e-300,
            0.5,
            1.0,
            1.0000000000000002,
            2.9999999999999996,
            3.0,
            7.0 / 3.0,
            4294967294.5,
            4294967295.0,
            4294967295.5,
            1e20,
            f64::INFINITY,
            f64::NAN,
        ];
        for x in xs {
            assert_eq!(super::ceil_u32(x), x.ceil() as u32, "{x}");
        }
    }
}
