//! Distances to winning in a position: the tree walk over the graph (each node's cheapest
//! achiever tree, own turns, spending and regaining, periods, clamps) and the reasons a win
//! is out of reach.

use super::{
    Achiever, Clamped, CondKind, DEPTH_CAP, Node, NodeKey, Spend, Step, Target, UNREACHABLE,
    VictoryGraph, classify, with_rearm,
};
use crate::engine::{Engine, Side, State};
use rustc_hash::FxHashMap as HashMap;

/// True if value `v` meets `t` (a command target is never met by a value).
pub(super) fn target_holds(t: Target, v: i64) -> bool {
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
    /// Per node: its distance counts on a move of the opponent — its cheapest achiever tree
    /// has a rule with a condition on the opponent's command (`[フック],O.[ガード]:…`, which
    /// §10.5 costs 0 and leaves to the search). Per decisive rule in `decisive_assumes`, and
    /// for the distance to winning in `to_win_assumes`.
    pub assumes: Vec<bool>,
    /// Per decisive rule: its distance counts on a move of the opponent.
    pub decisive_assumes: Vec<bool>,
    /// The distance to winning counts on a move of the opponent (every cheapest decisive rule
    /// does).
    pub to_win_assumes: bool,
}

/// Why no decisive rule can be achieved: the first one's first condition that cannot be
/// brought about, followed down to a condition with nothing that achieves it.
pub(super) fn unreachable_reason(g: &VictoryGraph, node: &[u32], cap: u32, x: Side) -> String {
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
    /// Per node walked: its cheapest tree counts on a move of the opponent.
    assume: HashMap<usize, bool>,
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
        let mut best_assumes = false;
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
            let mut assumes = !a.assumes.is_empty();
            for &c in &a.conds {
                match self.tree(c, stack) {
                    Some((_, sub)) => {
                        merge(&mut parts, &sub);
                        assumes |= self.assume.get(&c).copied().unwrap_or(false);
                    }
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
            // Of equal costs, the tree that counts on no move of the opponent is the one shown.
            if best
                .as_ref()
                .is_none_or(|b| total < b.0 || (total == b.0 && best_assumes && !assumes))
            {
                best = Some((total, parts));
                best_assumes = assumes;
            }
        }
        stack.pop();
        self.assume.insert(i, best.is_some() && best_assumes);
        self.memo.insert(i, best.clone());
        best
    }
}

/// The total cost of a tree's parts; huge gaps stay at `u32::MAX` instead of wrapping.
pub(super) fn saturating_sum(parts: &[(usize, u32)]) -> u32 {
    parts.iter().fold(0u32, |t, p| t.saturating_add(p.1))
}

pub(super) fn merge(into: &mut Vec<(usize, u32)>, from: &[(usize, u32)]) {
    for &(n, c) in from {
        if !into.iter().any(|x| x.0 == n) {
            into.push((n, c));
        }
    }
}

/// Own turns for an achiever to bring `cur` into the target.
pub(super) fn own_cost(
    t: Target,
    cur: i64,
    a: &Achiever,
    free_rate: f64,
    grid: i64,
) -> Option<u32> {
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
pub(super) const CLAMP_TURNS: u32 = 1000;

/// Own turns until an achiever `x = c(x)` or `x ±= c(x)` ([`Step::Clamp`]) brings `cur` into
/// `t`, played out turn by turn: it fires every turn (needing a command) or every `period` turns (by itself), and the
/// command-free achievers move the value `free_rate` a turn toward the target besides. None
/// when the value stops moving toward it (a clamp below the target) or past [`CLAMP_TURNS`].
pub(super) fn clamp_turns(
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
pub(super) fn ceil_u32(x: f64) -> u32 {
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

/// A decisive rule's cost to the pursuer: `base` (firing it and the trees of its conditions)
/// plus one turn per excluded condition that does not hold (`unmet`), rounded up to the rule's
/// period on the acting side's turns (`taken` so far), capped at `cap`. The one formula of the
/// reference walk ([`distances`]) and the compiled evaluation ([`super::FastEval`]).
#[inline]
pub(crate) fn decisive_cost(base: u32, unmet: u32, taken: u32, period: u32, cap: u32) -> u32 {
    on_period(base.saturating_add(unmet).min(UNREACHABLE), taken, period).min(cap)
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
        assume: HashMap::default(),
    };
    let mut stack = Vec::new();
    let node: Vec<u32> = (0..g.nodes.len())
        .map(|i| ev.tree(i, &mut stack).map_or(cap, |t| t.0.min(cap)))
        .collect();
    let holds: Vec<bool> = g.nodes.iter().map(|n| ev.holds(&n.key)).collect();
    let assumes: Vec<bool> = (0..g.nodes.len())
        .map(|i| ev.assume.get(&i).copied().unwrap_or(false))
        .collect();
    let mut decisive_assumes = vec![false; g.decisive.len()];
    let decisive: Vec<u32> = g
        .decisive
        .iter()
        .enumerate()
        .map(|(k, d)| {
            if !d.counts_for(x) || d.never {
                return cap;
            }
            let mut parts: Vec<(usize, u32)> = Vec::new();
            decisive_assumes[k] = !d.assumes.is_empty();
            for &c in &d.conds {
                match ev.tree(c, &mut stack) {
                    Some((_, sub)) => {
                        merge(&mut parts, &sub);
                        decisive_assumes[k] |= assumes[c];
                    }
                    None => return cap,
                }
            }
            // An excluded condition costs 0 if it holds, else 1 (read as the rule's acting
            // side: the opponent for its own instance).
            let p = eng.prog;
            let r = &p.rules[d.rule];
            let acting = crate::side::relative(d.opponent, x);
            let extra = p
                .rule_conds(r)
                .iter()
                .filter(|c| {
                    matches!(classify(p, c), CondKind::Excluded(..))
                        && !eng.cond_holds(c, st, acting)
                })
                .count() as u32;
            let fire: u32 = if d.victory { 0 } else { 1 };
            let base = fire.saturating_add(saturating_sum(&parts));
            decisive_cost(base, extra, st.own_turns[acting], d.period, cap)
        })
        .collect();
    let to_win = decisive.iter().copied().min().unwrap_or(cap);
    let unreachable = (to_win >= cap).then(|| unreachable_reason(g, &node, cap, x));
    let to_win_assumes = to_win < cap
        && decisive
            .iter()
            .zip(&decisive_assumes)
            .filter(|(d, _)| **d == to_win)
            .all(|(_, a)| *a);
    Distances {
        node,
        holds,
        decisive,
        to_win,
        unreachable,
        assumes,
        decisive_assumes,
        to_win_assumes,
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
