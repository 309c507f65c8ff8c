//! The evaluation of §10.6, once: [`Evaluate`] turns the primitives an evaluator provides
//! (distance, advantage) into a score, over the soft minimum of the decisive rules' distances.

use super::*;
use crate::side::Side;

/// The distance a position's evaluation uses: the soft minimum `−ln Σ exp(−d)` over the
/// decisive rules' distances (unreachable ones left out; `cap` when none is reachable). It is
/// the distance to winning when one way to win is far nearer than the others, and a little
/// less when several are about as near — so a step toward a second way to win (a charge toward
/// スペシウム光線 while ビーム is already ready) counts in the evaluation, where the plain
/// minimum would not move.
pub fn soft_distance(decisive: &[u32], cap: u32) -> f64 {
    let mut s = SoftMin::default();
    for &d in decisive {
        s.add(d, cap);
    }
    s.value(cap)
}

/// An accumulator for [`soft_distance`].
#[derive(Default)]
pub(crate) struct SoftMin {
    min: Option<u32>,
    /// Σ exp(−(d − min)) over the distances added so far.
    sum: f64,
}

impl SoftMin {
    pub(crate) fn add(&mut self, d: u32, cap: u32) {
        if d >= cap {
            return;
        }
        match self.min {
            None => {
                self.min = Some(d);
                self.sum = 1.0;
            }
            Some(m) if d < m => {
                self.sum = self.sum * (-((m - d) as f64)).exp() + 1.0;
                self.min = Some(d);
            }
            Some(m) => self.sum += (-((d - m) as f64)).exp(),
        }
    }

    pub(crate) fn value(&self, cap: u32) -> f64 {
        match self.min {
            None => cap as f64,
            // One way to win (the common case): ln 1 = 0 without the call.
            Some(m) if self.sum == 1.0 => m as f64,
            Some(m) => m as f64 - self.sum.ln(),
        }
    }
}

/// The evaluation of §10.6 for side `x`, built from two primitives — a side's soft distance to
/// winning and its advantage-block sum — so the formula lives in one place. Two evaluators
/// implement the primitives: [`GraphEval`], the reference that walks the graph, and
/// [`fast::FastEval`], the same numbers from flat tables for the search's inner loop (tests
/// hold them equal on generated programs).
pub trait Evaluate {
    /// The plain distance to winning of side `x` in `st`, and its soft form over every decisive
    /// rule (see [`soft_distance`]).
    fn distance(&self, eng: &Engine, st: &State, x: Side) -> (u32, f64);
    /// The advantage-block sum for side `x` (each line that holds adds weight × value).
    fn advantage(&self, eng: &Engine, st: &State, x: Side) -> f64;
    /// The evaluation of an undecided position for `x`: the opponent's soft distance minus
    /// one's own, plus one's advantage minus the opponent's. The two differences are taken
    /// first, so the score is exactly antisymmetric however large the advantage sums (2^62
    /// each: summed left to right, a distance of 1,024 was lost in one side's rounding).
    fn score(&self, eng: &Engine, st: &State, x: Side) -> f64 {
        let dx = self.distance(eng, st, x).1;
        let dy = self.distance(eng, st, x.opponent()).1;
        (dy - dx) + (self.advantage(eng, st, x) - self.advantage(eng, st, x.opponent()))
    }
    /// The evaluation for `x`: ±1e9 once decided (0 for a draw), else [`Evaluate::score`].
    fn evaluate(&self, eng: &Engine, st: &State, x: Side) -> f64 {
        decided_value(st, x).unwrap_or_else(|| self.score(eng, st, x))
    }
}

/// The value of a decided position for `x`: 1e9 won, −1e9 lost, 0 drawn; None while undecided.
pub fn decided_value(st: &State, x: Side) -> Option<f64> {
    use crate::engine::Outcome;
    match st.outcome? {
        Outcome::Draw => Some(0.0),
        Outcome::H => Some(if x == Side::H { 1e9 } else { -1e9 }),
        Outcome::C => Some(if x == Side::C { 1e9 } else { -1e9 }),
    }
}

/// The reference evaluator: distances by walking the graph ([`distances`]).
pub struct GraphEval<'g> {
    /// The graph.
    pub graph: &'g VictoryGraph,
}

impl Evaluate for GraphEval<'_> {
    fn distance(&self, eng: &Engine, st: &State, x: Side) -> (u32, f64) {
        let cap = eng.prog.settings.turn_limit.min(UNREACHABLE);
        let d = distances(self.graph, eng, st, x);
        (d.to_win.min(cap), soft_distance(&d.decisive, cap))
    }
    fn advantage(&self, eng: &Engine, st: &State, x: Side) -> f64 {
        let p = eng.prog;
        let mut sum = 0.0;
        for a in &p.adv {
            let conds = &p.conds[a.conds.0 as usize..a.conds.1 as usize];
            if conds.iter().all(|c| eng.cond_holds(c, st, x)) {
                sum += a.weight * eng.eval_code(a.value, st, x) as f64;
            }
        }
        sum
    }
}

/// The evaluation of §10.6 for side `x` by the reference evaluator (see [`Evaluate`]).
pub fn evaluate(g: &VictoryGraph, eng: &Engine, st: &State, x: Side) -> f64 {
    GraphEval { graph: g }.evaluate(eng, st, x)
}
