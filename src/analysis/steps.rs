//! How an effect moves a state: the steps of achievers (add, set, scale, enable) and the
//! clamped steps (`min`/`max` of a linear operand), iterated from the current value.

use super::Target;
use crate::program::{Op, StateId};
use crate::syntax::ast::{SideRef, UpdOp};

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
    pub(super) fn nondecreasing(&self) -> bool {
        match self.sign {
            0 => self.a > 0,
            s => 1 + (s as i128) * (self.a as i128) >= 0,
        }
    }

    /// The largest change one firing of a `+=`/`-=` clamp makes (the operand's upper bound; 1
    /// when it has none), for the rate of a command-free one.
    pub(super) fn max_step(&self) -> f64 {
        if self.hi == i64::MAX {
            1.0
        } else {
            (self.hi as f64).max(1.0)
        }
    }

    /// Reads `code` as a clamped linear expression of `x`, when it is one and does clamp.
    pub(super) fn of(code: &[Op], x: (SideRef, StateId)) -> Option<Clamped> {
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

pub(super) fn moves_toward(step: Step, t: Target) -> bool {
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
