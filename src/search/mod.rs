//! Search over the real rules: the CPU player (negamax with alpha-beta, a transposition table and
//! iterative deepening; a mixed strategy from the matrix game in simultaneous mode), and the
//! win-path / forced-win solver.
//!
//! Inside a search `rand(a,b)` is replaced by its midpoint (a deterministic stand-in for chance),
//! so a search never touches a match's draws.

pub mod matrix;

use crate::analysis::{VictoryGraph, evaluate};
use crate::engine::players::{Player, PlayerError};
use crate::engine::rng::SplitMix;
use crate::engine::{Engine, Outcome, Side, State};
use crate::program::{CmdId, RuleProgram};
use rand::RngExt;
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// An engine whose `rand` draws are the midpoint of their range.
pub fn search_engine(prog: &RuleProgram) -> Engine<'_> {
    let mut e = Engine::new(prog, 0);
    e.chance = Some(Box::new(|_, _, _, _, lo, hi| lo + (hi - lo) / 2));
    e
}

/// A key for a position that ignores the turn counter (periods are kept modulo their lcm).
pub fn position_key(st: &State, lcm: u32) -> u64 {
    let mut h = FxHasher::default();
    st.vals.hash(&mut h);
    st.enabled.hash(&mut h);
    st.hist.hash(&mut h);
    (st.own_turns[0] % lcm, st.own_turns[1] % lcm).hash(&mut h);
    st.to_move.hash(&mut h);
    st.outcome.hash(&mut h);
    h.finish()
}

fn lcm_of(periods: &[u32]) -> u32 {
    fn gcd(a: u32, b: u32) -> u32 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    periods
        .iter()
        .fold(1u32, |l, &p| (l / gcd(l, p)).saturating_mul(p).min(1 << 20))
}

/// Moves of a side: its enabled commands, or a single pass.
pub fn moves(eng: &Engine, st: &State, side: Side) -> Vec<Option<CmdId>> {
    let mut buf = Vec::new();
    eng.enabled_commands(st, side, &mut buf);
    if buf.is_empty() {
        vec![None]
    } else {
        buf.into_iter().map(Some).collect()
    }
}

/// CPU settings (`cpu:S5,D1,E0,P200`).
#[derive(Clone, Debug, PartialEq)]
pub struct CpuSettings {
    /// Depth in plies (simultaneous: joint turns).
    pub depth: u32,
    /// Thinning: below the root each move is examined with probability 1/thin.
    pub thin: f64,
    /// Mistakes per 10 moves.
    pub mistakes: u32,
    /// Thinking budget per move, ms.
    pub period_ms: u32,
}

impl CpuSettings {
    /// The file's `~` settings, overridden by `spec` (e.g. `S5,E2`).
    pub fn parse(prog: &RuleProgram, spec: &str) -> Result<Self, String> {
        let s = &prog.settings;
        let mut c = CpuSettings {
            depth: s.depth,
            thin: s.thin,
            mistakes: s.mistakes,
            period_ms: s.period_ms,
        };
        for item in spec.split(',').map(str::trim).filter(|x| !x.is_empty()) {
            let (k, v) = item.split_at(1);
            let bad = || {
                format!(
                    "cpu setting '{item}': expected S<depth>, D<thinning>, E<mistakes> or P<ms>"
                )
            };
            match k.to_ascii_uppercase().as_str() {
                "S" => c.depth = v.parse().map_err(|_| bad())?,
                "D" => c.thin = v.parse().map_err(|_| bad())?,
                "E" => c.mistakes = v.parse().map_err(|_| bad())?,
                "P" => c.period_ms = v.parse().map_err(|_| bad())?,
                _ => return Err(bad()),
            }
        }
        if c.depth == 0 || c.depth > 30 || c.thin < 1.0 || c.mistakes > 10 || c.period_ms == 0 {
            return Err(format!(
                "cpu settings out of range: {c:?} (S 1–30, D >= 1, E 0–10, P >= 1)"
            ));
        }
        Ok(c)
    }
}

/// The searcher: shared by the CPU player and the solver.
pub struct Searcher<'p> {
    /// Engine with midpoint chance.
    pub eng: Engine<'p>,
    /// The derived graph.
    pub graph: VictoryGraph,
    tt: FxHashMap<u64, (u32, f64, u8)>,
    /// Nodes visited so far.
    pub nodes: u64,
    /// Stop as soon as this is set.
    pub cancel: Arc<AtomicBool>,
    /// Stop at this many nodes.
    pub node_budget: u64,
    deadline: Option<Instant>,
    thin: f64,
    rng: SplitMix,
    lcm: u32,
    stopped: bool,
}

const EXACT: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;

impl<'p> Searcher<'p> {
    /// A searcher for a program.
    pub fn new(prog: &'p RuleProgram, seed: u64) -> Self {
        Self {
            eng: search_engine(prog),
            graph: VictoryGraph::build(prog),
            tt: FxHashMap::default(),
            nodes: 0,
            cancel: Arc::new(AtomicBool::new(false)),
            node_budget: u64::MAX,
            deadline: None,
            thin: 1.0,
            rng: SplitMix(seed),
            lcm: lcm_of(&prog.periods()),
            stopped: false,
        }
    }

    fn out_of_time(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes >= self.node_budget
            || self.cancel.load(Ordering::Relaxed)
            || (self.nodes.is_multiple_of(256)
                && self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.stopped = true;
        }
        self.stopped
    }

    fn child(&self, st: &State, cmds: [Option<CmdId>; 2]) -> State {
        let mut c = st.clone();
        if self.eng.play(&mut c, cmds, None).is_err() {
            c.outcome = Some(Outcome::Draw); // a runtime error ends the line as a draw
        }
        c
    }

    /// Negamax value of `st` for the side to move (alternate mode).
    pub fn negamax(
        &mut self,
        st: &State,
        depth: u32,
        mut alpha: f64,
        beta: f64,
        root: bool,
    ) -> f64 {
        self.nodes += 1;
        let side = st.to_move;
        if st.outcome.is_some() || depth == 0 || self.out_of_time() {
            return evaluate(&self.graph, &self.eng, st, side);
        }
        let key = position_key(st, self.lcm) ^ (depth as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        if let Some(&(d, v, flag)) = self.tt.get(&key)
            && d >= depth
            && (flag == EXACT || (flag == LOWER && v >= beta) || (flag == UPPER && v <= alpha))
        {
            return v;
        }
        let alpha0 = alpha;
        let mut best = f64::NEG_INFINITY;
        let ms = moves(&self.eng, st, side);
        for (k, m) in ms.iter().enumerate() {
            if !root && k > 0 && self.thin > 1.0 && self.rng.random_range(0.0..self.thin) >= 1.0 {
                continue;
            }
            let mut cmds = [None, None];
            cmds[side] = *m;
            let c = self.child(st, cmds);
            // Prefer quicker wins: a decided child is worth a little less the deeper it lies.
            let v = if c.outcome.is_some() {
                evaluate(&self.graph, &self.eng, &c, side)
                    * (1.0 - 1e-6 * (64 - depth.min(64)) as f64)
            } else {
                -self.negamax(&c, depth - 1, -beta, -alpha, false)
            };
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
            }
            if alpha >= beta {
                break;
            }
        }
        if !self.stopped {
            let flag = if best <= alpha0 {
                UPPER
            } else if best >= beta {
                LOWER
            } else {
                EXACT
            };
            self.tt.insert(key, (depth, best, flag));
        }
        best
    }

    /// Plain minimax (no pruning, no table): the reference the tests compare against.
    pub fn minimax(&mut self, st: &State, depth: u32) -> f64 {
        let side = st.to_move;
        if st.outcome.is_some() || depth == 0 {
            return evaluate(&self.graph, &self.eng, st, side);
        }
        let mut best = f64::NEG_INFINITY;
        for m in moves(&self.eng, st, side) {
            let mut cmds = [None, None];
            cmds[side] = m;
            let c = self.child(st, cmds);
            let v = if c.outcome.is_some() {
                evaluate(&self.graph, &self.eng, &c, side)
                    * (1.0 - 1e-6 * (64 - depth.min(64)) as f64)
            } else {
                -self.minimax(&c, depth - 1)
            };
            best = best.max(v);
        }
        best
    }

    /// Depth-limited value for h of a simultaneous position, and both sides' mixed strategies.
    pub fn matrix_value(
        &mut self,
        st: &State,
        depth: u32,
    ) -> (
        f64,
        Vec<Option<CmdId>>,
        Vec<Option<CmdId>>,
        matrix::MatrixSolution,
    ) {
        let hm = moves(&self.eng, st, 0);
        let cm = moves(&self.eng, st, 1);
        let mut a = vec![vec![0.0; cm.len()]; hm.len()];
        for (i, &x) in hm.iter().enumerate() {
            for (j, &y) in cm.iter().enumerate() {
                let c = self.child(st, [x, y]);
                a[i][j] = self.sim_value(&c, depth.saturating_sub(1));
            }
        }
        let s = matrix::solve(&a);
        (s.value, hm, cm, s)
    }

    fn sim_value(&mut self, st: &State, depth: u32) -> f64 {
        self.nodes += 1;
        if st.outcome.is_some() || depth == 0 || self.out_of_time() {
            // Scale the evaluation into (-1, 1) so decided and undecided values mix sensibly.
            let e = evaluate(&self.graph, &self.eng, st, 0);
            return if e.abs() >= 1e8 {
                e.signum()
            } else {
                (e / 16.0).tanh() * 0.99
            };
        }
        let key = position_key(st, self.lcm) ^ (depth as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        if let Some(&(d, v, _)) = self.tt.get(&key)
            && d >= depth
        {
            return v;
        }
        let v = self.matrix_value(st, depth).0;
        if !self.stopped {
            self.tt.insert(key, (depth, v, EXACT));
        }
        v
    }
}

/// The CPU player.
pub struct CpuPlayer<'p> {
    settings: CpuSettings,
    searcher: Searcher<'p>,
    rng: SplitMix,
    /// Nodes searched for the last move.
    pub last_nodes: u64,
}

impl<'p> CpuPlayer<'p> {
    /// A CPU for `prog` with settings and a seed.
    pub fn new(prog: &'p RuleProgram, settings: CpuSettings, seed: u64) -> Self {
        let mut searcher = Searcher::new(prog, seed ^ 0xC0FFEE);
        searcher.thin = settings.thin;
        Self {
            settings,
            searcher,
            rng: SplitMix(crate::engine::rng::mix(seed ^ 0xC9)),
            last_nodes: 0,
        }
    }

    /// The cancel flag (set it to stop a search at once).
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.searcher.cancel.clone()
    }

    /// Uses `flag` as the cancel flag (a window shares one flag with its thinking thread).
    pub fn set_cancel_flag(&mut self, flag: Arc<AtomicBool>) {
        self.searcher.cancel = flag;
    }

    /// Best move for the side to move, or a mixed choice in simultaneous mode.
    pub fn think(&mut self, st: &State, side: Side) -> Option<CmdId> {
        let s = &mut self.searcher;
        s.nodes = 0;
        s.stopped = false;
        s.tt.clear();
        s.deadline = Some(Instant::now() + Duration::from_millis(self.settings.period_ms as u64));
        let choice;
        let all = moves(&s.eng, st, side);
        if s.eng.simultaneous {
            let (_, hm, cm, sol) = s.matrix_value(st, self.settings.depth.min(4));
            let (ms, probs) = if side == 0 {
                (hm, sol.rows)
            } else {
                (cm, sol.cols)
            };
            let r: f64 = self.rng.random_range(0.0..1.0);
            let mut acc = 0.0;
            let mut pick = ms.len() - 1;
            for (k, p) in probs.iter().enumerate() {
                acc += p;
                if r < acc {
                    pick = k;
                    break;
                }
            }
            choice = ms[pick];
        } else {
            let mut best = all[0];
            for depth in 1..=self.settings.depth {
                s.stopped = false;
                let mut best_here = None;
                let mut best_v = f64::NEG_INFINITY;
                for &m in &all {
                    let mut cmds = [None, None];
                    cmds[side] = m;
                    let c = s.child(st, cmds);
                    let v = if c.outcome.is_some() {
                        evaluate(&s.graph, &s.eng, &c, side)
                    } else {
                        -s.negamax(&c, depth - 1, f64::NEG_INFINITY, -best_v, false)
                    };
                    if v > best_v {
                        best_v = v;
                        best_here = Some(m);
                    }
                    if s.stopped {
                        break;
                    }
                }
                if s.stopped && depth > 1 {
                    break; // keep the last complete iteration's move
                }
                if let Some(b) = best_here {
                    best = b;
                }
                if best_v >= 1e8 {
                    break; // a forced win found
                }
            }
            choice = best;
        }
        self.last_nodes = s.nodes;
        // Reading mistakes: in E of every 10 moves play another enabled command.
        if self.settings.mistakes > 0
            && all.len() > 1
            && self.rng.random_range(0..10) < self.settings.mistakes
        {
            let others: Vec<Option<CmdId>> = all.iter().copied().filter(|m| *m != choice).collect();
            return others[self.rng.random_range(0..others.len())];
        }
        choice
    }
}

impl Player for CpuPlayer<'_> {
    fn choose(
        &mut self,
        _eng: &Engine,
        st: &State,
        side: Side,
        _enabled: &[CmdId],
    ) -> Result<Option<CmdId>, PlayerError> {
        Ok(self.think(st, side))
    }
    fn name(&self) -> String {
        format!(
            "cpu S{} D{} E{} P{}",
            self.settings.depth,
            self.settings.thin,
            self.settings.mistakes,
            self.settings.period_ms
        )
    }
}

/// One step of a win path.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PathStep {
    /// "h" or "c" (or "both" in simultaneous mode).
    pub side: &'static str,
    /// The command (null for a pass); in simultaneous mode "h/c".
    pub command: Option<String>,
    /// Both sides' states after the step.
    pub states: serde_json::Value,
}

/// The shortest sequence of moves (h and c cooperating) that ends with h winning, by breadth-first
/// search over positions (the turn counter is not part of a position), up to `max_plies`.
pub fn shortest_win(
    prog: &RuleProgram,
    start: &State,
    max_plies: u32,
    state_cap: usize,
) -> Option<Vec<PathStep>> {
    shortest_win_cancellable(prog, start, max_plies, state_cap, &Arc::default())
}

/// [`shortest_win`] that gives up (returns `None`) soon after `cancel` is set.
pub fn shortest_win_cancellable(
    prog: &RuleProgram,
    start: &State,
    max_plies: u32,
    state_cap: usize,
    cancel: &Arc<AtomicBool>,
) -> Option<Vec<PathStep>> {
    let s = Searcher::new(prog, 0);
    let eng = &s.eng;
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let mut layer: Vec<(State, usize)> = vec![(start.clone(), usize::MAX)];
    let mut parents: Vec<(usize, [Option<CmdId>; 2], State)> = Vec::new();
    seen.insert(position_key(start, s.lcm));
    for _ in 0..max_plies {
        let mut next = Vec::new();
        for (st, pi) in &layer {
            let movers = eng.movers(st).to_vec();
            let combos: Vec<[Option<CmdId>; 2]> = if movers.len() == 2 {
                moves(eng, st, 0)
                    .into_iter()
                    .flat_map(|a| moves(eng, st, 1).into_iter().map(move |b| [a, b]))
                    .collect()
            } else {
                moves(eng, st, movers[0])
                    .into_iter()
                    .map(|m| if movers[0] == 0 { [m, None] } else { [None, m] })
                    .collect()
            };
            if cancel.load(Ordering::Relaxed) {
                return None;
            }
            for cmds in combos {
                let c = s.child(st, cmds);
                if !seen.insert(position_key(&c, s.lcm)) {
                    continue;
                }
                parents.push((*pi, cmds, c.clone()));
                let me = parents.len() - 1;
                if c.outcome == Some(Outcome::H) {
                    let mut steps = Vec::new();
                    let mut k = me;
                    while k != usize::MAX {
                        let (p, cm, ref stt) = parents[k];
                        let mover = if cm[0].is_some() || (cm[1].is_none() && stt.to_move == 1) {
                            0
                        } else {
                            1
                        };
                        let name = |c: Option<CmdId>| c.map(|c| prog.commands[c as usize].clone());
                        let (side, command) = if eng.simultaneous {
                            (
                                "both",
                                Some(format!(
                                    "{}/{}",
                                    name(cm[0]).unwrap_or_else(|| "pass".into()),
                                    name(cm[1]).unwrap_or_else(|| "pass".into())
                                )),
                            )
                        } else {
                            (if mover == 0 { "h" } else { "c" }, name(cm[mover]))
                        };
                        steps.push(PathStep {
                            side,
                            command,
                            states: crate::engine::players::final_states(eng, stt),
                        });
                        k = p;
                    }
                    steps.reverse();
                    return Some(steps);
                }
                if c.outcome.is_none() {
                    next.push((c, me));
                }
                if seen.len() > state_cap {
                    return None;
                }
            }
        }
        layer = next;
        if layer.is_empty() {
            break;
        }
    }
    None
}

/// Whether h can force a win within `plies` (alternate: one side's move per ply; simultaneous:
/// one joint turn per ply, h choosing without seeing c's move), and h's first winning move.
pub fn forced_win(
    prog: &RuleProgram,
    start: &State,
    plies: u32,
    node_cap: u64,
) -> (Option<bool>, Option<String>) {
    forced_win_cancellable(prog, start, plies, node_cap, &Arc::default())
}

/// [`forced_win`] that stops (giving "unknown") soon after `cancel` is set.
pub fn forced_win_cancellable(
    prog: &RuleProgram,
    start: &State,
    plies: u32,
    node_cap: u64,
    cancel: &Arc<AtomicBool>,
) -> (Option<bool>, Option<String>) {
    let mut s = Searcher::new(prog, 0);
    s.node_budget = node_cap;
    s.cancel = cancel.clone();
    let mut memo: FxHashMap<u64, bool> = FxHashMap::default();
    fn win(s: &mut Searcher, st: &State, d: u32, memo: &mut FxHashMap<u64, bool>) -> bool {
        if st.outcome == Some(Outcome::H) {
            return true;
        }
        if st.outcome.is_some() || d == 0 || s.out_of_time() {
            return false;
        }
        s.nodes += 1;
        let key = position_key(st, s.lcm) ^ (d as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        if let Some(&v) = memo.get(&key) {
            return v;
        }
        let hm = moves(&s.eng, st, 0);
        let cm = moves(&s.eng, st, 1);
        let r = if s.eng.simultaneous {
            hm.iter().any(|&a| {
                cm.iter().all(|&b| {
                    let c = s.child(st, [a, b]);
                    win(s, &c, d - 1, memo)
                })
            })
        } else if st.to_move == 0 {
            hm.iter().any(|&a| {
                let c = s.child(st, [a, None]);
                win(s, &c, d - 1, memo)
            })
        } else {
            cm.iter().all(|&b| {
                let c = s.child(st, [None, b]);
                win(s, &c, d - 1, memo)
            })
        };
        if !s.stopped {
            memo.insert(key, r);
        }
        r
    }
    let result = win(&mut s, start, plies, &mut memo);
    if s.stopped && !result {
        return (None, None);
    }
    let first = if result && (s.eng.simultaneous || start.to_move == 0) {
        moves(&s.eng, start, 0).into_iter().find(|&a| {
            let cm = moves(&s.eng, start, 1);
            if s.eng.simultaneous {
                cm.iter().all(|&b| {
                    let c = s.child(start, [a, b]);
                    win(&mut s, &c, plies - 1, &mut memo)
                })
            } else {
                let c = s.child(start, [a, None]);
                win(&mut s, &c, plies - 1, &mut memo)
            }
        })
    } else {
        None
    };
    (
        Some(result),
        first.map(|m| m.map_or("pass".into(), |c| prog.commands[c as usize].clone())),
    )
}

/// h's moves, c's moves, and the child position of each joint move (row-major).
type JointMoves = (Vec<Option<CmdId>>, Vec<Option<CmdId>>, Vec<usize>);

/// The result of value iteration on a simultaneous game.
#[derive(Clone, Debug)]
pub struct GameValue {
    /// Value for h at the start (+1 win, −1 loss, 0 draw or endless).
    pub value: f64,
    /// h's moves and optimal mix at the start.
    pub h: Vec<(Option<CmdId>, f64)>,
    /// c's moves and optimal mix at the start.
    pub c: Vec<(Option<CmdId>, f64)>,
    /// How much a best reply gains against the start strategies (in the solved game).
    pub exploitability: f64,
    /// Positions in the solved game.
    pub states: usize,
    /// Positions cut off by the bound (valued by the derived evaluation, scaled into (−1, 1)).
    pub frontier: usize,
    /// Iterations until the largest change fell below 1e-10.
    pub iterations: u32,
}

/// Solves a simultaneous game by value iteration with a linear program (matrix game) per
/// position. The state space is bounded: every position reachable from `start` whose state
/// values stay within `bound` of their starting values is solved exactly; positions beyond are a
/// frontier valued by the derived evaluation (so a small bound gives an estimate). The turn
/// counter is not part of a position: an endless game is worth 0.
pub fn value_iteration(
    prog: &RuleProgram,
    start: &State,
    bound: i64,
    max_states: usize,
) -> GameValue {
    value_iteration_cancellable(prog, start, bound, max_states, &Arc::default())
        .expect("not cancelled")
}

/// [`value_iteration`] that gives up (returns `None`) soon after `cancel` is set.
pub fn value_iteration_cancellable(
    prog: &RuleProgram,
    start: &State,
    bound: i64,
    max_states: usize,
    cancel: &Arc<AtomicBool>,
) -> Option<GameValue> {
    let s = Searcher::new(prog, 0);
    let eng = &s.eng;
    let inside = |st: &State| {
        st.vals
            .iter()
            .zip(&start.vals)
            .all(|(v, v0)| (v - v0).abs() <= bound)
    };
    let mut index: FxHashMap<u64, usize> = FxHashMap::default();
    let mut states: Vec<State> = vec![start.clone()];
    index.insert(position_key(start, s.lcm), 0);
    // Per state: move lists and the child index of each joint move (usize::MAX for terminal).
    let mut kids: Vec<JointMoves> = Vec::new();
    let mut fixed: Vec<Option<f64>> = Vec::new();
    let mut frontier = 0;
    let mut i = 0;
    while i < states.len() {
        if i % 256 == 0 && cancel.load(Ordering::Relaxed) {
            return None;
        }
        let st = states[i].clone();
        let terminal = match st.outcome {
            Some(Outcome::H) => Some(1.0),
            Some(Outcome::C) => Some(-1.0),
            Some(Outcome::Draw) => Some(0.0),
            None if !inside(&st) || states.len() >= max_states => {
                frontier += 1;
                let e = evaluate(&s.graph, eng, &st, 0);
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
        let hm = moves(eng, &st, 0);
        let cm = moves(eng, &st, 1);
        let mut idx = Vec::with_capacity(hm.len() * cm.len());
        for &a in &hm {
            for &b in &cm {
                let c = s.child(&st, [a, b]);
                let k = position_key(&c, s.lcm);
                let j = *index.entry(k).or_insert_with(|| {
                    states.push(c);
                    states.len() - 1
                });
                idx.push(j);
            }
        }
        kids.push((hm, cm, idx));
        i += 1;
    }
    let n = states.len();
    let mut v: Vec<f64> = fixed.iter().map(|f| f.unwrap_or(0.0)).collect();
    let mut iterations = 0;
    let matrix_of = |v: &[f64], k: usize| -> Vec<Vec<f64>> {
        let (hm, cm, idx) = &kids[k];
        (0..hm.len())
            .map(|a| (0..cm.len()).map(|b| v[idx[a * cm.len() + b]]).collect())
            .collect()
    };
    for it in 0..5000 {
        iterations = it + 1;
        let mut delta: f64 = 0.0;
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        for k in 0..n {
            if fixed[k].is_some() {
                continue;
            }
            if k % 1024 == 0 && cancel.load(Ordering::Relaxed) {
                return None;
            }
            let nv = matrix::solve(&matrix_of(&v, k)).value;
            delta = delta.max((nv - v[k]).abs());
            v[k] = nv;
        }
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
    Some(GameValue {
        value,
        h,
        c,
        exploitability,
        states: n,
        frontier,
        iterations,
    })
}
