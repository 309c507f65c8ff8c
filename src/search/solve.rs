//! The solver behind `kumite solve` and the studio's win-path view: the shortest win (h and c
//! cooperating, chance favourable), the forced win (h against every reply and every chance
//! outcome) with its strategy tree, and value iteration for simultaneous games.
//!
//! The public entry points ([`super::shortest_win`], [`super::forced_win`],
//! [`super::value_iteration`]) are thin wrappers over the functions here, which also take an
//! optional cancel flag.

use super::matrix;
use super::{GameValue, PathStep, Searcher, moves, position_key};
use crate::analysis::evaluate;
use crate::engine::{Outcome, State};
use crate::program::{CmdId, RuleProgram};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Outcome combinations per move up to which the solver enumerates chance exactly (beyond it,
/// seeded samples stand for them and the result says so).
pub const SOLVER_CHANCE_EXACT: u64 = 4096;

fn cancelled(cancel: Option<&Arc<AtomicBool>>) -> bool {
    cancel.is_some_and(|c| c.load(Ordering::Relaxed))
}

/// Every joint move of a position: one side's moves (alternate) or all (h, c) pairs.
fn joint_moves(s: &Searcher, st: &State) -> Vec<[Option<CmdId>; 2]> {
    let eng = &s.eng;
    if eng.simultaneous {
        let cm = moves(eng, st, 1);
        moves(eng, st, 0)
            .into_iter()
            .flat_map(|a| cm.iter().map(move |&b| [a, b]))
            .collect()
    } else {
        let side = st.to_move;
        moves(eng, st, side)
            .into_iter()
            .map(|m| if side == 0 { [m, None] } else { [None, m] })
            .collect()
    }
}

fn cmd_name(prog: &RuleProgram, c: Option<CmdId>) -> String {
    c.map_or_else(|| "pass".into(), |c| prog.commands[c as usize].clone())
}

/// [`super::shortest_win`], stopping (None) soon after `cancel` is set, or once it holds more
/// than `state_cap` positions or has resolved more than 8 × `state_cap` chance outcomes. Chance outcomes are
/// branches of the search, so the path may assume favourable outcomes (each step says how likely
/// the outcome it assumed was).
pub fn shortest_win_in(
    prog: &RuleProgram,
    start: &State,
    max_plies: u32,
    state_cap: usize,
    cancel: Option<&Arc<AtomicBool>>,
) -> Option<Vec<PathStep>> {
    let mut s = Searcher::new(prog, 0);
    let lcm = s.lcm;
    let work_cap = (state_cap as u64).saturating_mul(8);
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let mut layer: Vec<(State, usize)> = vec![(start.clone(), usize::MAX)];
    let mut parents: Vec<Parent> = Vec::new();
    seen.insert(position_key(start, lcm));
    for _ in 0..max_plies {
        let mut next = Vec::new();
        for li in 0..layer.len() {
            if cancelled(cancel) {
                // Millions of positions can be held here: free them on a thread of their own,
                // so a cancelled search ends at once.
                let big = (parents, layer, next, seen);
                let _ = std::thread::Builder::new()
                    .name("kumite-free".into())
                    .spawn(move || drop(big));
                return None;
            }
            let (st, pi) = (&layer[li].0, &layer[li].1);
            let mover = st.to_move;
            for cmds in joint_moves(&s, st) {
                // Resolutions count as well as positions: a chance move can resolve thousands
                // of outcomes that all fold into a few positions.
                if s.nodes > work_cap {
                    return None;
                }
                let kids = s.outcomes(st, cmds, SOLVER_CHANCE_EXACT);
                for (c, p) in &kids {
                    if !seen.insert(position_key(c, lcm)) {
                        continue;
                    }
                    parents.push((*pi, cmds, mover, *p, c.clone()));
                    let me = parents.len() - 1;
                    if c.outcome == Some(Outcome::H) {
                        return Some(path_to(prog, &s, &parents, me));
                    }
                    if c.outcome.is_none() {
                        next.push((c.clone(), me));
                    }
                    if seen.len() > state_cap {
                        return None;
                    }
                }
                s.recycle(kids);
            }
        }
        layer = next;
        if layer.is_empty() {
            break;
        }
    }
    None
}

/// A position reached in the breadth-first search: (parent, joint move, mover, probability of
/// the chance outcome assumed, the position).
type Parent = (usize, [Option<CmdId>; 2], usize, f64, State);

fn path_to(prog: &RuleProgram, s: &Searcher, parents: &[Parent], mut k: usize) -> Vec<PathStep> {
    let mut steps = Vec::new();
    while k != usize::MAX {
        let (p, cm, mover, prob, ref stt) = parents[k];
        let (side, command) = if s.eng.simultaneous {
            (
                "both",
                Some(format!(
                    "{}/{}",
                    cmd_name(prog, cm[0]),
                    cmd_name(prog, cm[1])
                )),
            )
        } else {
            (
                crate::side::name(mover),
                cm[mover].map(|c| prog.commands[c as usize].clone()),
            )
        };
        steps.push(PathStep {
            side,
            command,
            states: crate::engine::players::final_states(&s.eng, stt),
            probability: prob,
        });
        k = p;
    }
    steps.reverse();
    steps
}

/// A forced-win strategy for h, as a tree: h's move at each h node, and below it every reply of
/// c and every chance outcome.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Strategy {
    /// Who moves here: "h", "c", "both" (simultaneous), or "win" (h has won).
    pub to_move: &'static str,
    /// h's move (at "h" and "both" nodes; "pass" for no command).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub h: Option<String>,
    /// Every continuation: each reply of c (at "c" and "both" nodes) and each chance outcome.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub next: Vec<Branch>,
    /// The tree was cut here (size cap): the proof holds below, but is not shown.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// One continuation in a [`Strategy`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Branch {
    /// c's reply ("pass" for no command), at "c" and "both" nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c: Option<String>,
    /// Probability of the chance outcome this branch follows (1 without chance: not written).
    #[serde(skip_serializing_if = "is_one")]
    pub p: f64,
    /// What the chance outcome drew, as the values it leads to that differ between the
    /// outcomes of the same move (`c.体力=27`); not written without chance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// What follows.
    pub then: Strategy,
}

/// For the chance outcomes of one move: each outcome's values that differ between them
/// (`c.体力=27, c.力=12`; at most three), or the switches that differ; empty without chance.
fn outcome_labels(prog: &RuleProgram, kids: &[(State, f64)]) -> Vec<String> {
    if kids.len() < 2 {
        return Vec::new();
    }
    let ns = prog.states.len();
    let nc = prog.commands.len().max(1);
    let side = |i: usize, n: usize| if i / n == 0 { "h" } else { "c" };
    let differ = |get: &dyn Fn(&State) -> Vec<i64>| -> Vec<usize> {
        let first = get(&kids[0].0);
        (0..first.len())
            .filter(|&i| kids.iter().any(|(s, _)| get(s).get(i) != first.get(i)))
            .collect()
    };
    // 勝利/敗北 (ids 0 and 1) are left out: "(win)" says it.
    let vals: Vec<usize> = differ(&|s: &State| s.vals.clone())
        .into_iter()
        .filter(|&i| i % ns >= 2)
        .collect();
    let flags = differ(&|s: &State| s.enabled.iter().map(|&b| i64::from(b)).collect());
    kids.iter()
        .map(|(s, _)| {
            let mut parts: Vec<String> = vals
                .iter()
                .take(3)
                .map(|&i| format!("{}.{}={}", side(i, ns), prog.states[i % ns], s.vals[i]))
                .collect();
            if parts.is_empty() {
                parts = flags
                    .iter()
                    .take(3)
                    .map(|&i| {
                        let on = if s.enabled[i] { "" } else { "!" };
                        format!("{on}{}.[{}]", side(i, nc), prog.commands[i % nc])
                    })
                    .collect();
            }
            parts.join(", ")
        })
        .collect()
}

fn is_one(p: &f64) -> bool {
    *p >= 1.0 - 1e-12
}

/// The result of the forced-win search.
#[derive(Clone, Debug, PartialEq)]
pub struct ForcedWin {
    /// Some(true/false), or None when the budget or a cancel stopped the search undecided.
    pub exists: Option<bool>,
    /// The fewest plies within which h forces the win (when it does).
    pub min_plies: Option<u32>,
    /// h's first move (when h moves first and the win exists).
    pub first_move: Option<String>,
    /// The strategy (when the win exists).
    pub strategy: Option<Strategy>,
    /// Some move had too many chance outcomes to enumerate, so samples stood for them: the
    /// proof then covers the sampled outcomes only.
    pub sampled: bool,
}

struct Prover<'s, 'p> {
    s: &'s mut Searcher<'p>,
    memo: FxHashMap<u64, bool>,
    built: usize,
}

/// Nodes at most in a strategy tree.
const TREE_CAP: usize = 2000;

impl Prover<'_, '_> {
    fn key(&self, st: &State, d: u32) -> u64 {
        position_key(st, self.s.lcm) ^ (d as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// All outcomes of `cmds` win for h within `d` plies.
    fn all_outcomes_win(&mut self, st: &State, cmds: [Option<CmdId>; 2], d: u32) -> bool {
        if self.s.out_of_time() {
            return false;
        }
        let kids = self.s.outcomes(st, cmds, SOLVER_CHANCE_EXACT);
        let r = kids.iter().all(|(c, _)| self.win(c, d));
        self.s.recycle(kids);
        r
    }

    /// h wins from `st` within `d` plies against every reply and chance outcome.
    fn win(&mut self, st: &State, d: u32) -> bool {
        if st.outcome == Some(Outcome::H) {
            return true;
        }
        if st.outcome.is_some() || d == 0 || self.s.out_of_time() {
            return false;
        }
        self.s.nodes += 1;
        let key = self.key(st, d);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let hm = moves(&self.s.eng, st, 0);
        let cm = moves(&self.s.eng, st, 1);
        let r = if self.s.eng.simultaneous {
            hm.iter()
                .any(|&a| cm.iter().all(|&b| self.all_outcomes_win(st, [a, b], d - 1)))
        } else if st.to_move == 0 {
            hm.iter()
                .any(|&a| self.all_outcomes_win(st, [a, None], d - 1))
        } else {
            cm.iter()
                .all(|&b| self.all_outcomes_win(st, [None, b], d - 1))
        };
        if !self.s.stopped {
            self.memo.insert(key, r);
        }
        r
    }

    /// The fewest plies (≤ d) within which h wins from `st`, if any.
    fn fastest(&mut self, st: &State, d: u32) -> Option<u32> {
        (0..=d).find(|&n| self.win(st, n))
    }

    /// h's winning move from `st` within `d` plies (h or both to move).
    fn winning_move(&mut self, st: &State, d: u32) -> Option<Option<CmdId>> {
        let hm = moves(&self.s.eng, st, 0);
        let cm = moves(&self.s.eng, st, 1);
        hm.into_iter().find(|&a| {
            if self.s.eng.simultaneous {
                cm.iter().all(|&b| self.all_outcomes_win(st, [a, b], d - 1))
            } else {
                self.all_outcomes_win(st, [a, None], d - 1)
            }
        })
    }

    /// The strategy tree from `st`, where h wins within `d` plies; each h node plays its
    /// quickest win.
    fn build(&mut self, st: &State, d: u32) -> Strategy {
        self.built += 1;
        let mut node = Strategy {
            to_move: "win",
            h: None,
            next: vec![],
            truncated: false,
        };
        if st.outcome == Some(Outcome::H) {
            return node;
        }
        let d = self.fastest(st, d).unwrap_or(d);
        let prog = self.s.eng.prog;
        let sim = self.s.eng.simultaneous;
        node.to_move = if sim {
            "both"
        } else if st.to_move == 0 {
            "h"
        } else {
            "c"
        };
        if self.built >= TREE_CAP || d == 0 {
            node.truncated = true;
            return node;
        }
        let replies: Vec<[Option<CmdId>; 2]> = if sim || st.to_move == 0 {
            let Some(a) = self.winning_move(st, d) else {
                node.truncated = true;
                return node;
            };
            node.h = Some(cmd_name(prog, a));
            if sim {
                moves(&self.s.eng, st, 1)
                    .into_iter()
                    .map(|b| [a, b])
                    .collect()
            } else {
                vec![[a, None]]
            }
        } else {
            moves(&self.s.eng, st, 1)
                .into_iter()
                .map(|b| [None, b])
                .collect()
        };
        for cmds in replies {
            let kids = self.s.outcomes(st, cmds, SOLVER_CHANCE_EXACT);
            let labels = outcome_labels(prog, &kids);
            for (k, (c, p)) in kids.iter().enumerate() {
                if self.built >= TREE_CAP {
                    node.truncated = true;
                    break;
                }
                let then = self.build(c, d - 1);
                node.next.push(Branch {
                    c: (sim || st.to_move == 1).then(|| cmd_name(prog, cmds[1])),
                    p: *p,
                    outcome: labels.get(k).cloned(),
                    then,
                });
            }
            self.s.recycle(kids);
        }
        node
    }
}

/// [`super::forced_win`] with the strategy tree and the fewest plies; stops undecided soon after
/// `cancel` is set. A forced win must hold for every chance outcome.
pub fn forced_win_in(
    prog: &RuleProgram,
    start: &State,
    plies: u32,
    node_cap: u64,
    cancel: Option<&Arc<AtomicBool>>,
) -> ForcedWin {
    let mut s = Searcher::new(prog, 0);
    s.node_budget = node_cap;
    if let Some(c) = cancel {
        s.cancel = c.clone();
    }
    let mut pr = Prover {
        s: &mut s,
        memo: FxHashMap::default(),
        built: 0,
    };
    let result = pr.win(start, plies);
    let mut out = ForcedWin {
        exists: Some(result),
        min_plies: None,
        first_move: None,
        strategy: None,
        sampled: false,
    };
    if pr.s.stopped && !result {
        out.exists = None;
    } else if result {
        // A fresh budget for the quickest-win search and the tree (a cancel still stops them).
        pr.s.node_budget = pr.s.nodes.saturating_add(node_cap);
        pr.s.stopped = false;
        out.min_plies = pr.fastest(start, plies);
        let d = out.min_plies.unwrap_or(plies);
        if pr.s.eng.simultaneous || start.to_move == 0 {
            out.first_move = pr
                .winning_move(start, d)
                .or_else(|| pr.winning_move(start, plies))
                .map(|m| cmd_name(prog, m));
        }
        out.strategy = Some(pr.build(start, d));
    }
    out.sampled = pr.s.sampled;
    out
}

/// The strategy as indented text: one line per line of play, " → " between plies, a new
/// indented line for each of several replies or chance outcomes; at most `max_plies` deep and
/// `max_lines` lines.
pub fn strategy_text(st: &Strategy, max_plies: u32, max_lines: usize) -> String {
    strategy_json_text(&serde_json::json!(st), max_plies, max_lines)
}

/// [`strategy_text`] for a strategy in its JSON form (as `kumite solve --format json` prints it).
pub fn strategy_json_text(st: &serde_json::Value, max_plies: u32, max_lines: usize) -> String {
    use serde_json::Value;
    fn join(line: &mut String, seg: &str) {
        if !line.trim().is_empty() {
            line.push_str(" → ");
        }
        line.push_str(seg);
    }
    fn label(b: &Value) -> String {
        let p = b["p"].as_f64().unwrap_or(1.0);
        let p = match b["outcome"].as_str().filter(|o| !o.is_empty()) {
            _ if p >= 1.0 - 1e-12 => String::new(),
            Some(o) => format!("({:.0}%: {o})", p * 100.0),
            None => format!("({:.0}%)", p * 100.0),
        };
        match (b["c"].as_str(), p.is_empty()) {
            (Some(c), true) => format!("c: {c}"),
            (Some(c), false) => format!("c: {c} {p}"),
            (None, _) => p,
        }
    }
    fn walk(
        n: &Value,
        mut line: String,
        indent: usize,
        depth: u32,
        out: &mut Vec<String>,
        max_lines: usize,
    ) {
        if out.len() >= max_lines {
            return;
        }
        if let Some(h) = n["h"].as_str() {
            join(&mut line, &format!("h: {h}"));
        }
        if n["to_move"] == "win" {
            line.push_str(" (win)");
            out.push(line);
            return;
        }
        let next = n["next"].as_array().map_or(&[][..], Vec::as_slice);
        if n["truncated"] == true || depth == 0 || next.is_empty() {
            join(&mut line, "…");
            out.push(line);
            return;
        }
        if next.len() == 1 {
            let l = label(&next[0]);
            if !l.is_empty() {
                join(&mut line, &l);
            }
            walk(&next[0]["then"], line, indent, depth - 1, out, max_lines);
        } else {
            if !line.trim().is_empty() {
                out.push(line);
            }
            for b in next {
                let mut l = " ".repeat(indent + 2);
                l.push_str(&label(b));
                walk(&b["then"], l, indent + 2, depth - 1, out, max_lines);
            }
        }
    }
    let mut out = Vec::new();
    walk(st, "  ".into(), 2, max_plies, &mut out, max_lines);
    if out.len() >= max_lines {
        out.push("  … (more lines not shown)".into());
    }
    out.join("\n") + "\n"
}

/// [`super::value_iteration`], stopping (None) soon after `cancel` is set. A joint move with
/// random effects leads to a distribution over positions; its payoff is the mean.
pub fn value_iteration_in(
    prog: &RuleProgram,
    start: &State,
    bound: i64,
    max_states: usize,
    cancel: Option<&Arc<AtomicBool>>,
) -> Option<GameValue> {
    // Every reachable position when they are few (then nothing is estimated); else only those
    // within `bound` of the start.
    let all = (
        UNBOUNDED_POSITIONS.min(max_states),
        Instant::now() + UNBOUNDED_TIME,
    );
    match value_iteration_within(prog, start, None, all, cancel) {
        Err(Stop::Cancelled) => None,
        Ok(v) => Some(v),
        Err(Stop::TooMany) => {
            // (The time only limits the unbounded attempt.)
            let cap = (max_states, Instant::now());
            value_iteration_within(prog, start, Some(bound), cap, cancel).ok()
        }
    }
}

/// Positions [`value_iteration_in`] enumerates without a bound before it bounds the state
/// values instead, and the time it gives that attempt.
const UNBOUNDED_POSITIONS: usize = 20_000;
const UNBOUNDED_TIME: Duration = Duration::from_secs(1);

/// The time value iteration may take once the positions are listed: past it the values
/// reached are reported as not converged (a game with a vast bounded state space would
/// otherwise run its 5,000 iterations for hours).
pub const VALUE_TIME: Duration = Duration::from_secs(60);

/// Why [`value_iteration_within`] gave up.
enum Stop {
    Cancelled,
    /// Without a bound: more positions than allowed, or out of time.
    TooMany,
}

/// [`value_iteration_in`] within `bound` of the start's values (None: every position, giving up
/// past `limit`'s count or time; with a bound, positions past the count are estimated).
fn value_iteration_within(
    prog: &RuleProgram,
    start: &State,
    bound: Option<i64>,
    limit: (usize, Instant),
    cancel: Option<&Arc<AtomicBool>>,
) -> Result<GameValue, Stop> {
    let (max_states, until) = limit;
    let mut s = Searcher::new(prog, 0);
    let inside = |st: &State| {
        bound.is_none_or(|b| {
            st.vals
                .iter()
                .zip(&start.vals)
                .all(|(v, v0)| v.abs_diff(*v0) <= b.unsigned_abs())
        })
    };
    let mut index: FxHashMap<u64, usize> = FxHashMap::default();
    let mut states: Vec<State> = vec![start.clone()];
    index.insert(position_key(start, s.lcm), 0);
    // Per state: move lists and, per joint move (row-major), its children with probabilities.
    type Kids = (
        Vec<Option<CmdId>>,
        Vec<Option<CmdId>>,
        Vec<Vec<(usize, f64)>>,
    );
    let mut kids: Vec<Kids> = Vec::new();
    let mut fixed: Vec<Option<f64>> = Vec::new();
    let mut frontier = 0;
    let mut i = 0;
    while i < states.len() {
        if i % 256 == 0 && cancelled(cancel) {
            return Err(Stop::Cancelled);
        }
        if bound.is_none()
            && (states.len() > max_states || (i % 256 == 0 && Instant::now() >= until))
        {
            return Err(Stop::TooMany);
        }
        let st = states[i].clone();
        let terminal = match st.outcome {
            Some(Outcome::H) => Some(1.0),
            Some(Outcome::C) => Some(-1.0),
            Some(Outcome::Draw) => Some(0.0),
            None if !inside(&st) || (bound.is_some() && states.len() >= max_states) => {
                frontier += 1;
                let e = evaluate(&s.graph, &s.eng, &st, 0);
                Some((e / 16.0).tanh() * 0.99)
            }
            None => None,
        };
        fixed.push(terminal);
        if terminal.is_some() {
            kids.push((vec![], vec![], vec![]));
            i += 1;
            continue;
        }
        let hm = moves(&s.eng, &st, 0);
        let cm = moves(&s.eng, &st, 1);
        let mut idx = Vec::with_capacity(hm.len() * cm.len());
        for &a in &hm {
            for &b in &cm {
                let outs = s.outcomes(&st, [a, b], super::CHANCE_EXACT);
                let mut dist = Vec::with_capacity(outs.len());
                for (c, p) in &outs {
                    let k = position_key(c, s.lcm);
                    let j = *index.entry(k).or_insert_with(|| {
                        states.push(c.clone());
                        states.len() - 1
                    });
                    dist.push((j, *p));
                }
                s.recycle(outs);
                idx.push(dist);
            }
        }
        kids.push((hm, cm, idx));
        i += 1;
    }
    let n = states.len();
    let mut v: Vec<f64> = fixed.iter().map(|f| f.unwrap_or(0.0)).collect();
    let mut iterations = 0;
    let mut residual = 0.0;
    let (mut changed, mut solved) = (vec![0u32; n], vec![0u32; n]);
    let matrix_of = |v: &[f64], k: usize| -> Vec<Vec<f64>> {
        let (hm, cm, idx) = &kids[k];
        (0..hm.len())
            .map(|a| {
                (0..cm.len())
                    .map(|b| idx[a * cm.len() + b].iter().map(|&(j, p)| p * v[j]).sum())
                    .collect()
            })
            .collect()
    };
    let deadline = Instant::now() + VALUE_TIME;
    let mut timed_out = false;
    for it in 0..5000 {
        if cancelled(cancel) {
            return Err(Stop::Cancelled);
        }
        if it > 0 && Instant::now() >= deadline {
            timed_out = true;
            break;
        }
        iterations = it + 1;
        let mut delta: f64 = 0.0;
        let sweep = it + 1;
        for k in 0..n {
            if fixed[k].is_some() {
                continue;
            }
            // Solved again only when a successor changed since (the same values, fewer
            // linear programs).
            if sweep > 1
                && !kids[k]
                    .2
                    .iter()
                    .flatten()
                    .any(|&(j, _)| changed[j] >= solved[k])
            {
                continue;
            }
            if k % 1024 == 1023 && cancelled(cancel) {
                return Err(Stop::Cancelled);
            }
            solved[k] = sweep;
            let (hm, cm, idx) = &kids[k];
            let cell = |a: usize, b: usize| -> f64 {
                idx[a * cm.len() + b].iter().map(|&(j, p)| p * v[j]).sum()
            };
            let nv = matrix::saddle_value(hm.len(), cm.len(), cell)
                .unwrap_or_else(|| matrix::solve(&matrix_of(&v, k)).value);
            let d = (nv - v[k]).abs();
            delta = delta.max(d);
            v[k] = nv;
            if d > 0.0 {
                changed[k] = sweep;
            }
        }
        residual = delta;
        if delta < 1e-10 {
            break;
        }
    }
    let (value, h, c, exploitability) = if fixed[0].is_some() {
        (v[0], vec![], vec![], 0.0)
    } else {
        let a = matrix_of(&v, 0);
        let sol = matrix::solve(&a);
        let (hm, cm, _) = &kids[0];
        (
            sol.value,
            hm.iter().copied().zip(sol.rows.iter().copied()).collect(),
            cm.iter().copied().zip(sol.cols.iter().copied()).collect(),
            matrix::exploitability(&a, &sol),
        )
    };
    Ok(GameValue {
        value,
        h,
        c,
        exploitability,
        states: n,
        frontier,
        iterations,
        residual,
        timed_out,
        bound,
    })
}
