//! Reading a rule's conditions and effects into the graph's terms: a condition becomes a node
//! (a target on one state), a free condition or an excluded one with its reason; an effect
//! becomes a step; a rule becomes the ways it decides a game.

use super::{Clamped, CondKind, NodeKey, Step, Target};
use crate::engine::Side;
use crate::program::{CCond, CEffect, CRule, Op, RuleProgram, StateId};
use crate::syntax::ast::{CmpOp, SideRef, UpdOp};

/// The reason given for a condition that holds for no value of its state (`S.x*2==7`): a rule
/// with it can never fire.
pub(super) const NEVER_HOLDS: &str = "never holds for a whole number";

pub(super) fn single_load(code: &[Op]) -> Option<(SideRef, StateId)> {
    match code {
        [Op::Load(s, id)] => Some((*s, *id)),
        _ => None,
    }
}

pub(super) fn constant(code: &[Op]) -> Option<i64> {
    match code {
        [Op::Push(v)] => Some(*v),
        _ => None,
    }
}

pub(super) fn range_of(op: CmpOp, k: i64, flipped: bool) -> Option<Target> {
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
pub(super) fn reads(code: &[Op]) -> Vec<(SideRef, StateId)> {
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
pub(super) fn linear(code: &[Op], x: (SideRef, StateId)) -> Option<(i64, i64)> {
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
pub(super) fn linear_target(a: i64, b: i64, op: CmpOp) -> Option<Result<Target, ()>> {
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
pub(super) fn step_of(p: &RuleProgram, e: &CEffect, k: &NodeKey) -> Result<Option<Step>, String> {
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
pub(super) fn decisive_ways(p: &RuleProgram, r: &CRule) -> Vec<(bool, Option<Side>)> {
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
