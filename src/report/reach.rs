//! Rules that provably cannot fire: an over-approximation of every value each state can ever
//! take and every command that can ever be enabled, from the initial line and the rules.
//!
//! Each side's state starts as the one value of the initial line; a rule whose conditions can
//! hold under the current ranges (for either acting side) widens the ranges its effects write —
//! `=E` adds E's range, `+k` with k possibly positive opens the top, `-k` the bottom, anything
//! else (`*=`, `/=`) opens both — and `::` rules may also apply their inverse. This repeats until
//! nothing changes (ranges that keep growing are opened fully after a few rounds). Every
//! reachable position lies inside the result, so a rule whose conditions cannot hold inside it
//! can never fire in any game: a condition that contradicts every reachable value, or a command
//! that can never be enabled.

use crate::program::{CCond, CEffect, CRule, Op, RuleProgram};
use crate::side::Side;
use crate::syntax::ast::{BinOp, CmpOp, UpdOp};

const INF: i128 = i128::MAX / 8;

/// A range of values, `lo..=hi`; ±[`INF`] for unbounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Iv {
    lo: i128,
    hi: i128,
}

impl Iv {
    const TOP: Iv = Iv { lo: -INF, hi: INF };
    fn one(v: i128) -> Self {
        Iv { lo: v, hi: v }
    }
    fn join(self, o: Iv) -> Iv {
        Iv {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }
    fn sat(v: i128) -> i128 {
        v.clamp(-INF, INF)
    }
    fn single(self) -> Option<i128> {
        (self.lo == self.hi && self.lo.abs() < INF).then_some(self.lo)
    }
}

/// What can ever hold: value ranges per side and state, and the commands that can be enabled.
struct Reach {
    ns: usize,
    nc: usize,
    vals: Vec<Iv>,
    enabled: Vec<bool>,
}

impl Reach {
    fn expr(&self, code: &[Op], acting: usize) -> Iv {
        let mut st: Vec<Iv> = Vec::with_capacity(code.len());
        for op in code {
            let v = match *op {
                Op::Push(v) => Iv::one(v as i128),
                Op::Load(who, s) => {
                    self.vals[who.resolve(Side::from_index(acting)).index() * self.ns + s as usize]
                }
                Op::Neg => {
                    let a = st.pop().unwrap_or(Iv::TOP);
                    Iv {
                        lo: -a.hi,
                        hi: -a.lo,
                    }
                }
                Op::Abs => {
                    let a = st.pop().unwrap_or(Iv::TOP);
                    if a.lo >= 0 {
                        a
                    } else if a.hi <= 0 {
                        Iv {
                            lo: -a.hi,
                            hi: -a.lo,
                        }
                    } else {
                        Iv {
                            lo: 0,
                            hi: a.hi.max(-a.lo),
                        }
                    }
                }
                Op::Bin(b) => {
                    let y = st.pop().unwrap_or(Iv::TOP);
                    let x = st.pop().unwrap_or(Iv::TOP);
                    match b {
                        BinOp::Add => Iv {
                            lo: Iv::sat(x.lo + y.lo),
                            hi: Iv::sat(x.hi + y.hi),
                        },
                        BinOp::Sub => Iv {
                            lo: Iv::sat(x.lo - y.hi),
                            hi: Iv::sat(x.hi - y.lo),
                        },
                        _ => match (x.single(), y.single()) {
                            (Some(a), Some(c)) => match b {
                                BinOp::Mul => Iv::one(Iv::sat(a.saturating_mul(c))),
                                BinOp::Div if c != 0 => Iv::one(a / c),
                                BinOp::Mod if c != 0 => Iv::one(a % c),
                                _ => Iv::TOP,
                            },
                            _ => Iv::TOP,
                        },
                    }
                }
                Op::Min | Op::Max => {
                    let y = st.pop().unwrap_or(Iv::TOP);
                    let x = st.pop().unwrap_or(Iv::TOP);
                    if matches!(op, Op::Min) {
                        Iv {
                            lo: x.lo.min(y.lo),
                            hi: x.hi.min(y.hi),
                        }
                    } else {
                        Iv {
                            lo: x.lo.max(y.lo),
                            hi: x.hi.max(y.hi),
                        }
                    }
                }
                Op::Rand(_) => {
                    let y = st.pop().unwrap_or(Iv::TOP);
                    let x = st.pop().unwrap_or(Iv::TOP);
                    Iv {
                        lo: x.lo,
                        hi: y.hi.max(x.lo),
                    }
                }
            };
            st.push(v);
        }
        st.pop().unwrap_or(Iv::TOP)
    }

    /// Whether condition `c` can hold for `acting` somewhere inside the ranges.
    fn can_hold(&self, p: &RuleProgram, c: &CCond, acting: usize) -> bool {
        match *c {
            CCond::Truth { neg, side, state } => {
                let v = self.vals
                    [side.resolve(Side::from_index(acting)).index() * self.ns + state as usize];
                if neg {
                    v.lo <= 0 && 0 <= v.hi
                } else {
                    !(v.lo == 0 && v.hi == 0)
                }
            }
            CCond::Cmd { neg, opp, cmd, .. } => {
                neg || self.enabled[(crate::side::relative(opp, Side::from_index(acting))).index()
                    * self.nc
                    + cmd as usize]
            }
            CCond::Cmp { op, lhs, rhs } => {
                let a = self.expr(p.code_of(lhs), acting);
                let b = self.expr(p.code_of(rhs), acting);
                match op {
                    CmpOp::Lt => a.lo < b.hi,
                    CmpOp::Le => a.lo <= b.hi,
                    CmpOp::Gt => a.hi > b.lo,
                    CmpOp::Ge => a.hi >= b.lo,
                    CmpOp::Eq => a.lo <= b.hi && b.lo <= a.hi,
                    CmpOp::Ne => !(a.single().is_some() && a.single() == b.single()),
                }
            }
        }
    }

    /// Whether a comparison holds for every value inside the ranges (so in every reachable
    /// position): `S.スタミナ>=0` where stamina never goes below 0.
    fn always_holds(&self, p: &RuleProgram, c: &CCond, acting: usize) -> bool {
        let CCond::Cmp { op, lhs, rhs } = *c else {
            return false;
        };
        let a = self.expr(p.code_of(lhs), acting);
        let b = self.expr(p.code_of(rhs), acting);
        match op {
            CmpOp::Lt => a.hi < b.lo,
            CmpOp::Le => a.hi <= b.lo,
            CmpOp::Gt => a.lo > b.hi,
            CmpOp::Ge => a.lo >= b.hi,
            CmpOp::Eq => a.single().is_some() && a.single() == b.single(),
            CmpOp::Ne => a.hi < b.lo || b.hi < a.lo,
        }
    }

    fn rule_can_fire(&self, p: &RuleProgram, r: &CRule, acting: usize) -> bool {
        p.rule_conds(r).iter().all(|c| self.can_hold(p, c, acting))
    }

    /// Widens the ranges by the effects of rule `r` for `acting` (`held`: its conditions can
    /// hold; an `::` rule's inverse is always possible). Returns true if anything grew.
    fn apply(&mut self, p: &RuleProgram, r: &CRule, acting: usize, held: bool) -> bool {
        let mut grew = false;
        for e in p.rule_effects(r) {
            match *e {
                CEffect::Bool { side, state, value } => {
                    let i =
                        side.resolve(Side::from_index(acting)).index() * self.ns + state as usize;
                    let mut add = |v: bool| {
                        let n = self.vals[i].join(Iv::one(i128::from(v)));
                        grew |= n != self.vals[i];
                        self.vals[i] = n;
                    };
                    if held {
                        add(value);
                    }
                    if r.iff {
                        add(!value);
                    }
                }
                CEffect::Update {
                    side,
                    state,
                    op,
                    expr,
                } if held => {
                    let i =
                        side.resolve(Side::from_index(acting)).index() * self.ns + state as usize;
                    let e = self.expr(p.code_of(expr), acting);
                    let cur = self.vals[i];
                    let n = match op {
                        UpdOp::Set => cur.join(e),
                        UpdOp::Add | UpdOp::Sub => {
                            let (up, down) = if op == UpdOp::Add {
                                (e.hi > 0, e.lo < 0)
                            } else {
                                (e.lo < 0, e.hi > 0)
                            };
                            Iv {
                                lo: if down { -INF } else { cur.lo },
                                hi: if up { INF } else { cur.hi },
                            }
                        }
                        UpdOp::Mul | UpdOp::Div => match e.single() {
                            Some(1) => cur,
                            _ => Iv::TOP,
                        },
                    };
                    grew |= n != cur;
                    self.vals[i] = n;
                }
                CEffect::Enable { opp, cmd, on } => {
                    let i = (crate::side::relative(opp, Side::from_index(acting))).index()
                        * self.nc
                        + cmd as usize;
                    if ((held && on) || (r.iff && !on)) && !self.enabled[i] {
                        self.enabled[i] = true;
                        grew = true;
                    }
                }
                _ => {}
            }
        }
        grew
    }
}

/// Per rule of the program: true when it can never fire from the initial position, whatever
/// either side does (see the module's comment).
pub fn cannot_fire(p: &RuleProgram) -> Vec<bool> {
    let r = ranges(p);
    p.rules
        .iter()
        .map(|rule| (0..2).all(|acting| !r.rule_can_fire(p, rule, acting)))
        .collect()
}

/// Per rule of the program: whether it can never fire ([`cannot_fire`]), and how many of its
/// comparisons hold in every reachable position whichever side acts (a condition that asks
/// nothing: `S.スタミナ>=0` where stamina never goes below 0).
pub fn dead_and_vacuous(p: &RuleProgram) -> (Vec<bool>, Vec<usize>) {
    let r = ranges(p);
    let dead = p
        .rules
        .iter()
        .map(|rule| (0..2).all(|acting| !r.rule_can_fire(p, rule, acting)))
        .collect();
    let vacuous = p
        .rules
        .iter()
        .map(|rule| {
            p.rule_conds(rule)
                .iter()
                .filter(|c| (0..2).all(|acting| r.always_holds(p, c, acting)))
                .count()
        })
        .collect();
    (dead, vacuous)
}

/// The ranges every reachable position lies inside (see the module's comment).
fn ranges(p: &RuleProgram) -> Reach {
    let (ns, nc) = (p.states.len(), p.commands.len());
    let mut r = Reach {
        ns,
        nc,
        vals: (0..2)
            .flat_map(|s| p.init_values[s].iter().map(|&v| Iv::one(v as i128)))
            .collect(),
        enabled: (0..2)
            .flat_map(|s| p.init_enabled[s].iter().copied())
            .collect(),
    };
    for round in 0.. {
        let before = r.vals.clone();
        let mut grew = false;
        for rule in &p.rules {
            for acting in 0..2 {
                let held = r.rule_can_fire(p, rule, acting);
                if held || rule.iff {
                    grew |= r.apply(p, rule, acting, held);
                }
            }
        }
        if !grew {
            break;
        }
        // Ranges still growing after a few rounds (one state set from another, in a loop)
        // are opened fully, so the rounds end.
        if round >= 8 {
            for (v, b) in r.vals.iter_mut().zip(&before) {
                if v.lo < b.lo {
                    v.lo = -INF;
                }
                if v.hi > b.hi {
                    v.hi = INF;
                }
            }
        }
        if round > 64 {
            break;
        }
    }
    r
}

/// Per rule: whether it fires anywhere in the game whose every reachable position is
/// `positions` — every move of the side(s) to move, every chance outcome, from each — or None
/// when that would take more than `max_plays` turns to replay.
pub fn fires_anywhere(
    p: &RuleProgram,
    positions: &[crate::engine::State],
    max_plays: u64,
) -> Option<Vec<bool>> {
    use crate::engine::{ChanceScript, Engine};
    if positions.is_empty() {
        return None;
    }
    let eng = Engine::new(p, 0).counting();
    let mut fired = vec![false; p.rules.len()];
    let mut counts = Vec::new();
    let mut note = |eng: &Engine, fired: &mut Vec<bool>| {
        eng.take_fires(&mut counts);
        for (f, &c) in fired.iter_mut().zip(&counts) {
            *f |= c > 0;
        }
    };
    // The start's availability.
    if let Some(s0) = positions.first() {
        let _ = eng.initial(s0.to_move);
        note(&eng, &mut fired);
    }
    let mut plays = 0u64;
    let mut script = ChanceScript::default();
    let mut en = Vec::new();
    for st in positions.iter().filter(|s| s.outcome.is_none()) {
        let mut options: [Vec<Option<u32>>; 2] = [vec![None], vec![None]];
        for &side in eng.movers(st) {
            eng.enabled_commands(st, side, &mut en);
            if !en.is_empty() {
                options[side] = en.iter().map(|&c| Some(c)).collect();
            }
        }
        for &a in &options[0] {
            for &b in &options[1] {
                // Every combination of chance outcomes, odometer-wise.
                script.picks.clear();
                loop {
                    plays += 1;
                    if plays > max_plays {
                        return None;
                    }
                    let mut s = st.clone();
                    let _ = eng.play_scripted(&mut s, [a, b], &mut script);
                    note(&eng, &mut fired);
                    let mut picks: Vec<u64> = script.draws.iter().map(|d| d.pick).collect();
                    while let Some(&last) = picks.last() {
                        let k = picks.len() - 1;
                        if last + 1 < script.draws[k].outcomes {
                            picks[k] += 1;
                            break;
                        }
                        picks.pop();
                    }
                    if picks.is_empty() {
                        break;
                    }
                    script.picks = picks;
                }
            }
        }
    }
    Some(fired)
}
