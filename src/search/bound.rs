//! A lower bound on the plies a side needs to win: never more than the true number, in any
//! position, whatever both sides play and however chance falls (an *admissible* bound, for
//! A*/IDA*-style pruning of the win-path searches).
//!
//! The derived distance of §10 is an estimate (it adds the costs of a rule's conditions, and
//! leaves `O.[X]` and excluded conditions to the search), so it may overstate the turns a win
//! needs and cannot prune a proof. This bound is built from the same rules, counting only what
//! no play can beat:
//!
//! - per state value, the most it can move in one ply: for each acting side, the rules that
//!   fire without a command of its own plus the best single command's rules (a side chooses
//!   one command a turn), each update at its most favourable `rand` outcome; assignments
//!   (`=`, boolean sets) are jumps to a constant range; an operand that reads a state, `*=` and
//!   `/=` leave the value unbounded (one ply can bring it anywhere);
//! - per rule that makes the side win, its conditions on single states compared with
//!   constants: the plies until each can hold (alternate mode: the two sides' rates take turns,
//!   starting with the side to move), the largest of them, plus the ply in which the rule then
//!   fires — unless it is a victory rule, checked at the end of the very ply its conditions
//!   come to hold;
//! - the bound is the smallest over those rules; with no rule that can make the side win it is
//!   [`NO_WIN`].
//!
//! Conditions on commands, on sequences and on expressions of several states count 0.
//! Periods are ignored (a periodic rule is counted as if it fired every ply). Admissibility is
//! checked against the unpruned searches on generated programs (`tests/suite/search.rs`).

use crate::engine::{Engine, State};
use crate::program::{CCond, CEffect, LOSE_STATE, Op, RuleProgram, WIN_STATE};
use crate::side::Side;
use crate::syntax::ast::{BinOp, CmpOp, UpdOp};

/// The bound when no rule can make the side win from here on.
pub const NO_WIN: u32 = u32::MAX;

/// How one state value can move in one ply.
#[derive(Clone, Debug, Default)]
struct Rate {
    /// Per acting side: the most the value can rise in one of its plies.
    up: [i128; 2],
    /// Per acting side: the most it can fall in one of its plies.
    down: [i128; 2],
    /// Constant ranges an assignment can set it to.
    jumps: Vec<(i128, i128)>,
    /// One ply can bring it anywhere (an operand that reads a state, `*=`, `/=`).
    unbounded: bool,
}

/// A condition of a winning rule, as the bound reads it.
#[derive(Clone, Copy, Debug)]
enum Need {
    /// Value `v` within `lo..=hi`.
    Range { v: usize, lo: i128, hi: i128 },
    /// Value `v` other than `k`.
    Not { v: usize, k: i128 },
}

/// A rule that can make the side win, for one acting side.
#[derive(Clone, Debug)]
struct Winning {
    /// A victory rule (checked at the end of the ply its conditions come to hold).
    victory: bool,
    needs: Vec<Need>,
}

/// The bound for one program (both sides).
#[derive(Clone, Debug)]
pub struct WinBound {
    simultaneous: bool,
    rates: Vec<Rate>,
    /// Per side: the rules that can make it win.
    winning: [Vec<Winning>; 2],
    /// Some rule may raise a rule error at any size of numbers (a division by a state, a
    /// product of states, a draw with bounds read from states, a huge constant).
    may_err: bool,
    /// Per ply, numbers grow at most by this factor ...
    growth: f64,
    /// ... plus this much.
    added: f64,
}

/// The range of a constant expression (`rand(a,b)` its whole range); None when it reads a
/// state or cannot be bounded.
fn interval(code: &[Op]) -> Option<(i128, i128)> {
    let mut st: Vec<(i128, i128)> = Vec::new();
    const LIM: i128 = i64::MAX as i128 * 4;
    for op in code {
        let r = match *op {
            Op::Push(k) => (k as i128, k as i128),
            Op::Load(..) => return None,
            Op::Neg => {
                let (a, b) = st.pop()?;
                (-b, -a)
            }
            Op::Abs => {
                let (a, b) = st.pop()?;
                if a >= 0 {
                    (a, b)
                } else if b <= 0 {
                    (-b, -a)
                } else {
                    (0, b.max(-a))
                }
            }
            Op::Min | Op::Max | Op::Bin(_) | Op::Rand(_) => {
                let (c, d) = st.pop()?;
                let (a, b) = st.pop()?;
                match *op {
                    Op::Min => (a.min(c), b.min(d)),
                    Op::Max => (a.max(c), b.max(d)),
                    Op::Rand(_) => (a, d),
                    Op::Bin(BinOp::Add) => (a + c, b + d),
                    Op::Bin(BinOp::Sub) => (a - d, b - c),
                    Op::Bin(BinOp::Mul) => {
                        let p = [a * c, a * d, b * c, b * d];
                        (*p.iter().min()?, *p.iter().max()?)
                    }
                    // Division and remainder: bounded by the dividend's size.
                    Op::Bin(BinOp::Div | BinOp::Mod) => {
                        let m = a.abs().max(b.abs());
                        (-m, m)
                    }
                    _ => return None,
                }
            }
        };
        if r.0 < -LIM || r.1 > LIM {
            return None;
        }
        st.push(r);
    }
    st.pop()
}

/// The fewest plies for `gap` of progress when the sides' plies alternate, the first moving
/// at most `first` per ply and the other at most `second` (None: never).
fn alternating(gap: i128, first: i128, second: i128) -> Option<u64> {
    if gap <= 0 {
        return Some(0);
    }
    let pair = first + second;
    if pair <= 0 {
        return None;
    }
    // 2m plies make m·pair; 2m+1 plies make m·pair + first.
    let even = 2 * ((gap + pair - 1) / pair);
    let odd = 2 * ((gap - first).max(0) + pair - 1).div_euclid(pair) + 1;
    Some(even.min(odd) as u64)
}

impl WinBound {
    /// The bound for `prog` as `eng` plays it.
    pub fn new(eng: &Engine) -> Self {
        let prog = eng.prog;
        let ns = eng.ns;
        let nc = prog.commands.len();
        let mut rates = vec![Rate::default(); 2 * ns];
        let mut winning: [Vec<Winning>; 2] = [vec![], vec![]];
        for x in Side::BOTH {
            // Per value: what the rules without an own command add (`base`), and per command
            // what its rules add; a side picks one command, so the best one counts.
            let mut base = vec![(0i128, 0i128); 2 * ns];
            let mut by_cmd: Vec<Vec<(usize, i128, i128)>> = vec![vec![]; nc];
            for r in &prog.rules {
                let conds = prog.rule_conds(r);
                let mut need: Option<u32> = None;
                let mut never = false;
                for c in conds {
                    if let CCond::Cmd {
                        neg: false,
                        opp: false,
                        back: 0,
                        cmd,
                    } = *c
                    {
                        match need {
                            Some(n) if n != cmd => never = true,
                            _ => need = Some(cmd),
                        }
                    }
                }
                if never {
                    continue;
                }
                for e in prog.rule_effects(r) {
                    match *e {
                        CEffect::Bool { side, state, value } => {
                            let who = side.resolve(x);
                            if state == WIN_STATE || state == LOSE_STATE {
                                // `::` sets the flag when its conditions fail.
                                if value || r.iff {
                                    let w = if state == WIN_STATE {
                                        who
                                    } else {
                                        who.opponent()
                                    };
                                    winning_for(&mut winning, w, prog, r, x);
                                }
                                continue;
                            }
                            let v = who.index() * ns + state as usize;
                            rates[v].jumps.push((value as i128, value as i128));
                            if r.iff {
                                rates[v].jumps.push((!value as i128, !value as i128));
                            }
                        }
                        CEffect::Update {
                            side,
                            state,
                            op,
                            expr,
                        } => {
                            let who = side.resolve(x);
                            if state == WIN_STATE {
                                winning_for(&mut winning, who, prog, r, x);
                                continue;
                            }
                            if state == LOSE_STATE {
                                winning_for(&mut winning, who.opponent(), prog, r, x);
                                continue;
                            }
                            let v = who.index() * ns + state as usize;
                            let range = interval(prog.code_of(expr));
                            let step = match (op, range) {
                                (UpdOp::Add, Some((a, b))) => (b.max(0), (-a).max(0)),
                                (UpdOp::Sub, Some((a, b))) => ((-a).max(0), b.max(0)),
                                (UpdOp::Set, Some(ab)) => {
                                    rates[v].jumps.push(ab);
                                    continue;
                                }
                                _ => {
                                    rates[v].unbounded = true;
                                    continue;
                                }
                            };
                            match need {
                                Some(c) if (c as usize) < nc => {
                                    by_cmd[c as usize].push((v, step.0, step.1))
                                }
                                _ => {
                                    base[v].0 += step.0;
                                    base[v].1 += step.1;
                                }
                            }
                        }
                        CEffect::Enable { .. } => {}
                    }
                }
            }
            // The best command per value and direction (directions counted apart: an upper
            // bound either way).
            let mut best = vec![(0i128, 0i128); 2 * ns];
            let mut sum = vec![(0i128, 0i128); 2 * ns];
            for list in &by_cmd {
                for &(v, u, d) in list {
                    sum[v].0 += u;
                    sum[v].1 += d;
                }
                for &(v, ..) in list {
                    best[v].0 = best[v].0.max(sum[v].0);
                    best[v].1 = best[v].1.max(sum[v].1);
                }
                for &(v, ..) in list {
                    sum[v] = (0, 0);
                }
            }
            for v in 0..2 * ns {
                rates[v].up[x.index()] = base[v].0 + best[v].0;
                rates[v].down[x.index()] = base[v].1 + best[v].1;
            }
        }
        let (may_err, growth, added) = error_risk(prog);
        WinBound {
            simultaneous: eng.simultaneous,
            rates,
            winning,
            may_err,
            growth,
            added,
        }
    }

    /// No move within `d` plies of `st` can raise a rule error (which every search values as a
    /// loss for the side whose move raised it, so a win the bound cannot foresee): no rule
    /// divides by a state or multiplies states, and the numbers cannot grow near overflow.
    pub fn no_error_within(&self, st: &State, d: u32) -> bool {
        if self.may_err {
            return false;
        }
        let m = st.vals.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0) as f64;
        let d = f64::from(d);
        let grown = if self.growth <= 1.0 {
            m + d * self.added
        } else {
            (m + self.added) * self.growth.powf(d)
        };
        grown < 2f64.powi(58)
    }

    /// `side` cannot win within `d` plies of `st`: the bound is beyond them and no rule error
    /// can arise within them.
    pub fn cannot_win_within(&self, st: &State, side: Side, d: u32) -> bool {
        self.plies(st, side) > d && self.no_error_within(st, d)
    }

    /// The fewest plies in which `side` can win from `st` ([`NO_WIN`]: it cannot; 0: it has
    /// won).
    pub fn plies(&self, st: &State, side: Side) -> u32 {
        match st.outcome {
            Some(o) if o.winner() == Some(side) => return 0,
            Some(_) => return NO_WIN,
            None => {}
        }
        let mut best = NO_WIN as u64;
        for w in &self.winning[side.index()] {
            let mut worst = 0u64;
            for n in &w.needs {
                match self.until(st, *n) {
                    Some(k) => worst = worst.max(k),
                    None => {
                        worst = NO_WIN as u64;
                        break;
                    }
                }
            }
            if worst == NO_WIN as u64 {
                continue;
            }
            let fire = if w.victory { worst.max(1) } else { worst + 1 };
            best = best.min(fire);
        }
        best.min(NO_WIN as u64) as u32
    }

    /// Plies until a condition can hold (None: never).
    fn until(&self, st: &State, need: Need) -> Option<u64> {
        let (v, lo, hi) = match need {
            Need::Range { v, lo, hi } => (v, lo, hi),
            Need::Not { v, k } => {
                let r = &self.rates[v];
                let x = st.vals[v] as i128;
                return if x != k {
                    Some(0)
                } else if r.unbounded
                    || !r.jumps.is_empty()
                    || r.up.iter().chain(&r.down).any(|&s| s > 0)
                {
                    Some(1)
                } else {
                    None
                };
            }
        };
        let x = st.vals[v] as i128;
        if (lo..=hi).contains(&x) {
            return Some(0);
        }
        let r = &self.rates[v];
        if r.unbounded {
            return Some(1);
        }
        let mover = st.to_move.index();
        let direct = self.by_rates(r, x, lo, hi, Some(mover));
        // After an assignment (in some ply, whose side is not known), the value lies in the
        // assigned range moved by that ply's other updates at most.
        let (up, down) = (
            r.up[0].max(r.up[1])
                + if self.simultaneous {
                    r.up[0].min(r.up[1])
                } else {
                    0
                },
            r.down[0].max(r.down[1])
                + if self.simultaneous {
                    r.down[0].min(r.down[1])
                } else {
                    0
                },
        );
        let jumped = r
            .jumps
            .iter()
            .filter_map(|&(a, b)| {
                let (a, b) = (a - down, b + up);
                if a <= hi && b >= lo {
                    return Some(1);
                }
                let from = if b < lo { b } else { a };
                self.by_rates(r, from, lo, hi, None).map(|k| k + 1)
            })
            .min();
        match (direct, jumped) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Plies to bring value `x` into `lo..=hi` by its rates alone; `first`: the side that
    /// moves next (None: either).
    fn by_rates(&self, r: &Rate, x: i128, lo: i128, hi: i128, first: Option<usize>) -> Option<u64> {
        let (gap, rate) = if x < lo {
            (lo - x, r.up)
        } else {
            (x - hi, r.down)
        };
        if self.simultaneous {
            let per = rate[0] + rate[1];
            return (per > 0).then(|| ((gap + per - 1) / per) as u64);
        }
        match first {
            Some(f) => alternating(gap, rate[f], rate[1 - f]),
            None => match (
                alternating(gap, rate[0], rate[1]),
                alternating(gap, rate[1], rate[0]),
            ) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }
}

/// Whether some rule may raise a rule error at any size of numbers, and how fast numbers can
/// grow per ply otherwise: a factor (1 + the states an update's operand reads, for both sides'
/// rules; times the constant factors of products) and a constant part.
fn error_risk(prog: &RuleProgram) -> (bool, f64, f64) {
    const BIG: i64 = 1 << 40;
    let mut may_err = false;
    let mut factor = 1.0f64;
    let mut added = 0.0f64;
    let mut prev: Option<Op> = None;
    let mut prev2: Option<Op> = None;
    for op in &prog.code {
        match *op {
            Op::Push(k) if k.unsigned_abs() >= BIG as u64 => may_err = true,
            Op::Bin(BinOp::Div | BinOp::Mod) if !matches!(prev, Some(Op::Push(k)) if k != 0) => {
                may_err = true
            }
            Op::Bin(BinOp::Mul) => match prev {
                Some(Op::Push(k)) => factor *= (k.unsigned_abs() as f64).max(1.0),
                _ => may_err = true,
            },
            Op::Rand(_) if !matches!((prev2, prev), (Some(Op::Push(_)), Some(Op::Push(_)))) => {
                may_err = true
            }
            _ => {}
        }
        prev2 = prev;
        prev = Some(*op);
    }
    let mut loads = 0usize;
    for e in &prog.effects {
        if let CEffect::Update { op, expr, .. } = *e {
            let code = prog.code_of(expr);
            let reads = code.iter().filter(|o| matches!(o, Op::Load(..))).count();
            let konst = code
                .iter()
                .map(|o| match o {
                    Op::Push(k) => k.unsigned_abs() as f64,
                    _ => 0.0,
                })
                .sum::<f64>();
            match op {
                UpdOp::Add | UpdOp::Sub | UpdOp::Set => {
                    loads += reads;
                    added += konst;
                }
                UpdOp::Mul => match code {
                    [Op::Push(k)] => factor *= (k.unsigned_abs() as f64).max(1.0),
                    _ => may_err = true,
                },
                UpdOp::Div => {
                    if !matches!(code, [Op::Push(k)] if *k != 0) {
                        may_err = true;
                    }
                }
            }
        }
    }
    // Each rule runs for either side: twice the reads and constants.
    (may_err, factor * (1.0 + 2.0 * loads as f64), 2.0 * added)
}

/// Records rule `r`, acting as `x`, as one that can make `winner` win.
fn winning_for(
    winning: &mut [Vec<Winning>; 2],
    winner: Side,
    prog: &RuleProgram,
    r: &crate::program::CRule,
    x: Side,
) {
    let ns = prog.states.len();
    let mut needs = Vec::new();
    for c in prog.rule_conds(r) {
        match *c {
            CCond::Truth { neg, side, state } => {
                let v = side.resolve(x).index() * ns + state as usize;
                needs.push(if neg {
                    Need::Range { v, lo: 0, hi: 0 }
                } else {
                    Need::Not { v, k: 0 }
                });
            }
            CCond::Cmp { op, lhs, rhs } => {
                let (l, rr) = (prog.code_of(lhs), prog.code_of(rhs));
                let (load, k, op) = match (l, rr) {
                    ([Op::Load(s, st)], _) => ((*s, *st), rr, op),
                    (_, [Op::Load(s, st)]) => ((*s, *st), l, op.mirrored()),
                    _ => continue,
                };
                let Some((k, k2)) = interval(k) else { continue };
                if k != k2 || k.abs() > i64::MAX as i128 {
                    continue;
                }
                let v = load.0.resolve(x).index() * ns + load.1 as usize;
                let (min, max) = (i64::MIN as i128, i64::MAX as i128);
                needs.push(match op {
                    CmpOp::Eq => Need::Range { v, lo: k, hi: k },
                    CmpOp::Ne => Need::Not { v, k },
                    CmpOp::Lt => Need::Range {
                        v,
                        lo: min,
                        hi: k - 1,
                    },
                    CmpOp::Le => Need::Range { v, lo: min, hi: k },
                    CmpOp::Gt => Need::Range {
                        v,
                        lo: k + 1,
                        hi: max,
                    },
                    CmpOp::Ge => Need::Range { v, lo: k, hi: max },
                });
            }
            CCond::Cmd { .. } => {}
        }
    }
    winning[winner.index()].push(Winning {
        victory: r.victory,
        needs,
    });
}

#[cfg(test)]
mod tests {
    use super::alternating;

    /// The closed form against counting ply by ply.
    #[test]
    fn alternating_counts_plies() {
        for gap in 0..40i128 {
            for f in 0..6i128 {
                for s in 0..6i128 {
                    let mut made = 0;
                    let mut k = 0u64;
                    let counted = loop {
                        if made >= gap {
                            break Some(k);
                        }
                        if k > 200 {
                            break None;
                        }
                        made += if k.is_multiple_of(2) { f } else { s };
                        k += 1;
                    };
                    assert_eq!(
                        alternating(gap, f, s),
                        counted,
                        "gap {gap} first {f} second {s}"
                    );
                }
            }
        }
    }
}
