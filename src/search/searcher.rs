//! The searcher shared by the CPU player and the solvers: negamax with alpha-beta, a
//! transposition table, the best move and killer moves tried first and Star1/Star2 pruning below
//! chance (alternate mode), and the depth-limited matrix game (simultaneous mode). How it plays a
//! move's chance outcomes is in [`chance`].

mod chance;

use super::base::{
    CHANCE_EXACT, DISCOUNT, HISTORY, RuleErrors, eval_scale, moves, search_engine_with,
};
use super::keys::{key_of, lcm_of, node_key, tt_key};
use super::matrix;
use crate::analysis::{Evaluate, FastEval, VictoryGraph};
use crate::engine::rng::SplitMix;
use crate::engine::{ChanceScript, Engine, Outcome, Side, State};
use crate::program::{CmdId, RuleProgram, RunConfig};
use rand::RngExt;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The searcher: shared by the CPU player and the solver.
pub struct Searcher<'p> {
    /// Engine (its `rand` draws are driven by chance scripts; unscripted draws take the midpoint).
    pub eng: Engine<'p>,
    /// The derived graph.
    pub graph: VictoryGraph,
    /// Its evaluation, compiled for speed.
    pub(super) fast: FastEval,
    pub(super) tt: FxHashMap<u64, (u32, f64, u8)>,
    /// Star2 probes (see [`Self::chance_value`]) by position and depth (the key of `tt`): the
    /// move probed first and its exact value, reused when negamax then searches that position
    /// at that depth and tries the same move first.
    pub(super) probed: FxHashMap<u64, (Option<CmdId>, f64)>,
    /// The best move found for a position (by its key, any depth), tried first when the
    /// position is searched again: the next iteration of the deepening and transpositions.
    pub(super) best_moves: FxHashMap<u64, Option<CmdId>>,
    /// The chance outcomes of the moves played in this search, by position and move (see
    /// [`Self::move_outcomes`]), while [`Self::keep_outcomes`] is set.
    pub(super) played: FxHashMap<u64, Played>,
    /// Whether [`Self::move_outcomes`] keeps what it plays: in every iteration of the deepening
    /// but the last, as the next one plays the same moves again.
    pub keep_outcomes: bool,
    /// Moves whose outcomes [`Self::move_outcomes`] took from [`Self::played`].
    pub reused: u64,
    /// The keys of the positions on the line being searched (alternate mode), the root first:
    /// a position that comes back on its own line is a draw (see [`Self::negamax`]).
    pub(super) line: Vec<u64>,
    /// Per remaining depth, the move that last caused a cut-off there (the killer heuristic).
    pub(super) killers: [Option<Option<CmdId>>; 16],
    /// Nodes visited so far.
    pub nodes: u64,
    /// Stop as soon as this is set.
    pub cancel: Arc<AtomicBool>,
    /// Stop at this many nodes.
    pub node_budget: u64,
    /// Enumerate chance exactly up to this many outcome combinations per move, else sample.
    pub chance_exact: u64,
    /// The depth of the deepening's current iteration in the CPU's alternate search (0 outside
    /// it): a move `p` plies below the root's gets a chance width of
    /// [`Self::chance_exact`] halved `p` times, at least [`MIN_CHANCE_WIDTH`] (see
    /// [`Self::move_outcomes`]).
    pub root_depth: u32,
    /// Set once a move's chance was sampled rather than enumerated.
    pub sampled: bool,
    /// Moves played in this searcher that raised a rule error (each valued as a loss for the
    /// side whose move it was: see [`rule_error_loser`](super::base::rule_error_loser)), and the
    /// first of them.
    pub rule_errors: RuleErrors,
    pub(super) deadline: Option<Instant>,
    pub(super) thin: f64,
    pub(super) rng: SplitMix,
    pub(super) lcm: u32,
    pub(super) stopped: bool,
    pub(super) script: ChanceScript,
    /// Spare positions and outcome lists, reused so the search allocates little.
    pub(super) pool: Vec<State>,
    pub(super) kid_pool: Vec<Vec<(State, f64)>>,
    move_pool: Vec<Vec<Option<CmdId>>>,
    bound_pool: Vec<Vec<(f64, bool, f64)>>,
    /// Evaluation units that make a position about three-quarters of a win (see `eval`).
    pub(super) scale: f64,
    /// `cpu:trained`: the learned evaluation's weights on the raw features and its intercept
    /// (see [`super::trained`]); None for the derived evaluation.
    pub(super) learned: Option<(Vec<f64>, f64)>,
    /// The features of the position being valued, reused.
    pub(super) feature_buf: Vec<f64>,
    /// Learned values by position key (see `learned_value`).
    pub(super) learned_cache: Vec<(u64, f64)>,
}

/// What one search may spend.
#[derive(Clone, Copy, Debug)]
pub struct SearchLimits {
    /// The deepest iteration of the deepening, in plies.
    pub depth: u32,
    /// Stop at this many nodes.
    pub nodes: u64,
    /// Stop at this time (None: no deadline).
    pub deadline: Option<Instant>,
}

/// A move's chance outcomes as [`Searcher::outcomes`] gave them, with the nodes it counted and
/// whether it sampled.
pub(super) struct Played {
    pub(super) kids: Vec<(State, f64)>,
    pub(super) nodes: u64,
    pub(super) sampled: bool,
}

/// A copy of `st` in a position from `pool` (its buffers reused), or a new one.
pub(super) fn pooled_copy(pool: &mut Vec<State>, st: &State) -> State {
    match pool.pop() {
        Some(mut c) => {
            c.clone_from(st);
            c
        }
        None => st.clone(),
    }
}

const EXACT: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;

/// No search value lies outside ±this: a decided game is worth ±1e9 (a little less the deeper
/// it lies), an undecided position less than 0.9e9 (see `eval`).
const VALUE_LIMIT: f64 = 1e9;

/// A decided value at or above this (for the side) is a certain win.
pub(super) const SURE_WIN: f64 = 0.999e9;

/// What a turn that comes back to the same position is worth, as a share of that position's
/// value (see [`matrix::solve_looping`]).
const LOOP_DISCOUNT: f64 = DISCOUNT;

impl<'p> Searcher<'p> {
    /// A searcher for a program (the default [`RunConfig`]).
    pub fn new(prog: &'p RuleProgram, seed: u64) -> Self {
        Self::with_config(prog, seed, &RunConfig::default())
    }

    /// A searcher for one run of a program under `config`.
    pub fn with_config(prog: &'p RuleProgram, seed: u64, config: &RunConfig) -> Self {
        let eng = search_engine_with(prog, config);
        let graph = VictoryGraph::build(prog);
        let fast = FastEval::new(&graph, &eng);
        let scale = eval_scale(prog, &fast, &eng);
        Self {
            eng,
            graph,
            fast,
            tt: FxHashMap::default(),
            probed: FxHashMap::default(),
            best_moves: FxHashMap::default(),
            played: FxHashMap::default(),
            line: Vec::new(),
            keep_outcomes: false,
            reused: 0,
            killers: [None; 16],
            nodes: 0,
            cancel: Arc::new(AtomicBool::new(false)),
            node_budget: u64::MAX,
            chance_exact: CHANCE_EXACT,
            root_depth: 0,
            sampled: false,
            rule_errors: RuleErrors::default(),
            deadline: None,
            thin: 1.0,
            rng: SplitMix(seed),
            lcm: lcm_of(&prog.periods()),
            stopped: false,
            script: ChanceScript::default(),
            pool: Vec::new(),
            kid_pool: Vec::new(),
            move_pool: Vec::new(),
            bound_pool: Vec::new(),
            scale,
            learned: None,
            feature_buf: Vec::new(),
            learned_cache: Vec::new(),
        }
    }

    pub(super) fn out_of_time(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        // The clock is read every few nodes: a node of a large program (hundreds of commands)
        // can take long, and the CPU must answer within its period P.
        if self.nodes >= self.node_budget
            || self.cancel.load(Ordering::Relaxed)
            || (self.nodes.is_multiple_of(4) && self.past_deadline())
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// True once the thinking period is over.
    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Stops the search if it was cancelled or its time is up (checked now, whatever the node
    /// count): used between root moves.
    pub(super) fn stop_now(&mut self) -> bool {
        if self.cancel.load(Ordering::Relaxed) || self.past_deadline() {
            self.stopped = true;
        }
        self.stopped
    }

    /// The search value of `st` for side `x`: ±1e9 once decided (0 for a draw), else the
    /// evaluation of §10.6 squashed into (−0.9e9, 0.9e9). Averaging over chance mixes decided
    /// and undecided positions, so both must be on one scale, roughly a win expectation: an
    /// unsquashed evaluation (a few points) would make any small chance of a decided outcome
    /// outweigh every positional difference, and deeper searches (which see more such chances)
    /// would play worse.
    fn eval(&mut self, st: &State, x: Side) -> f64 {
        if st.outcome.is_some() {
            self.fast.evaluate(&self.eng, st, x)
        } else if self.learned.is_some() {
            let q = self.learned_value(st);
            if x == Side::H { q } else { -q }
        } else {
            self.fast.squashed(&self.eng, st, x, self.scale)
        }
    }

    /// Own distance to winning of `x` in `st` (for breaking ties between equal moves).
    pub(super) fn own_distance(&self, st: &State, x: Side) -> u32 {
        match st.outcome {
            Some(Outcome::H) if x == Side::H => 0,
            Some(Outcome::C) if x == Side::C => 0,
            Some(_) => u32::MAX,
            None => self.fast.to_win(&self.eng, st, x),
        }
    }

    /// A copy of `st` from the pool.
    pub(super) fn copy_of(&mut self, st: &State) -> State {
        pooled_copy(&mut self.pool, st)
    }

    /// Starts the line of a search from `root` (alternate mode), after the game's earlier
    /// positions `past` (keys, oldest first; the latest [`HISTORY`] of them count).
    pub fn start_line(&mut self, root: &State, past: &[u64]) {
        self.line.clear();
        self.line
            .extend(past[past.len().saturating_sub(HISTORY)..].iter().copied());
        self.line.push(node_key(root, self.lcm));
    }

    /// Forgets the last search (its tables, killer moves, outcomes kept and counters) and takes
    /// `limits` for the next one.
    pub fn reset(&mut self, limits: SearchLimits) {
        self.nodes = 0;
        self.stopped = false;
        self.tt.clear();
        self.forget_played();
        self.probed.clear();
        self.best_moves.clear();
        self.killers = [None; 16];
        self.deadline = limits.deadline;
        self.node_budget = limits.nodes;
    }

    /// The best move of `side` in `root` (alternate mode), by iterative deepening up to
    /// `limits.depth` plies within its node budget and deadline; `past` holds the keys of the
    /// game's earlier positions, oldest first (coming back to one is a draw). The search starts
    /// afresh ([`Self::reset`]); [`Self::nodes`] then counts what it searched.
    pub fn best_move(
        &mut self,
        root: &State,
        side: Side,
        past: &[u64],
        limits: SearchLimits,
    ) -> Option<CmdId> {
        self.reset(limits);
        let all = moves(&self.eng, root, side);
        let mut best = all[0];
        // Root moves in the order of the last iteration's values, best first, so that the
        // window below the best so far is tight from the start (ties are broken by the
        // moves' own order, so the choice does not depend on the order of search).
        let mut order: Vec<usize> = (0..all.len()).collect();
        let mut values = vec![f64::NEG_INFINITY; all.len()];
        let mut best_k = 0; // the index of `best`
        self.start_line(root, past);
        for depth in 1..=limits.depth {
            self.keep_outcomes = depth < limits.depth;
            self.root_depth = depth;
            self.stopped = false;
            if depth > 1 && self.stop_now() {
                break;
            }
            order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
            let mut best_here: Option<usize> = None;
            let mut best_v = f64::NEG_INFINITY;
            let mut best_d = u32::MAX;
            // Whether this iteration has finished searching the last one's choice.
            let mut best_searched = false;
            for &k in &order {
                // Each root move is searched only while time remains; at depth 1 the best
                // of the moves examined so far stands.
                if self.stop_now() {
                    break;
                }
                let m = all[k];
                let mut cmds = [None, None];
                cmds[side] = m;
                // Search with a window just below the best so far, so that equal moves get
                // exact values and the tie-break below can see them.
                let lo = best_v - best_v.abs() * 1e-9 - 1e-9;
                let v = self.move_value(root, cmds, side, depth, Some((lo, f64::INFINITY)));
                best_searched |= k == best_k && !self.stopped;
                // Ties go to the move that brings this side nearer to winning (in the
                // position it leads to, before any reply): the side presses instead of
                // only keeping the balance.
                let tie = (v - best_v).abs() <= best_v.abs() * 1e-9 + 1e-9;
                if self.stopped && best_here.is_some() {
                    break; // the value of an interrupted search is not comparable
                }
                values[k] = v;
                if v > best_v || tie {
                    let c = self.play_first_outcome(root, cmds);
                    let d = self.own_distance(&c, side);
                    self.pool.push(c);
                    let earlier = best_here.is_none_or(|b| k < b);
                    if !tie || d < best_d || (d == best_d && earlier) {
                        best_v = best_v.max(v);
                        best_here = Some(k);
                        best_d = d;
                    }
                }
                if self.stopped {
                    break;
                }
            }
            if self.stopped && depth > 1 && !best_searched {
                break; // keep the last complete iteration's move
            }
            // An iteration cut short by the period or the node budget still counts once it
            // has finished the last iteration's choice (searched first, or with equal
            // value among the first): every move it finished was compared with that one
            // at this depth, so a better one is played (the moves not reached were valued
            // below it one ply shallower). Karate, `cpu:S9,N10000` against S4: 41.0% of
            // the points instead of 32.0% (400 games, seats swapped).
            if let Some(b) = best_here {
                best = all[b];
                best_k = b;
            }
            if self.stopped {
                break;
            }
            if best_v >= SURE_WIN {
                break; // a certain win found
            }
        }
        self.line.clear();
        self.keep_outcomes = false;
        self.root_depth = 0;
        best
    }

    /// Of `candidates` (alternate play), the one with the best value by a search `depth` plies
    /// deep, without a deadline; the first of equal ones. The tables of earlier searches are
    /// kept.
    pub fn best_of(
        &mut self,
        st: &State,
        side: Side,
        candidates: &[Option<CmdId>],
        depth: u32,
    ) -> Option<CmdId> {
        self.stopped = false;
        self.deadline = None;
        self.nodes = 0;
        let mut best = (f64::NEG_INFINITY, candidates[0]);
        self.start_line(st, &[]);
        for &m in candidates {
            let mut cmds = [None, None];
            cmds[side] = m;
            let v = self.move_value(st, cmds, side, depth, Some((best.0, f64::INFINITY)));
            if v > best.0 {
                best = (v, m);
            }
        }
        self.line.clear();
        best.1
    }

    /// The depth-limited matrix search's mix over `mine` (`cpu:matrix`, simultaneous mode):
    /// the matrix game of `side`'s moves against the opponent's, deepened one joint turn at a
    /// time up to `max_depth` while time remains. Rows are filled one of `side`'s moves at a
    /// time, so when the period ends during the first depth the game restricted to the moves
    /// examined so far is solved; a deeper depth that did not finish is discarded.
    pub fn matrix_mix(
        &mut self,
        st: &State,
        side: Side,
        mine: &[Option<CmdId>],
        max_depth: u32,
    ) -> Vec<f64> {
        let theirs = moves(&self.eng, st, side.opponent());
        let me = self.loop_key(st);
        let mut strategy: Option<Vec<f64>> = None;
        for depth in 1..=max_depth.max(1) {
            self.keep_outcomes = depth < max_depth;
            self.stopped = false;
            if depth > 1 && self.stop_now() {
                break;
            }
            let mut cells = Cells::default();
            for &x in mine {
                if self.stop_now() {
                    break;
                }
                self.push_row(&mut cells, st, me, side, x, &theirs, depth - 1);
            }
            let complete = cells.full.len() == mine.len() && !self.stopped;
            if complete || (strategy.is_none() && !cells.full.is_empty()) {
                let sol = cells.solve(self.deadline);
                let mut p = sol.rows;
                p.resize(mine.len(), 0.0);
                strategy = Some(p);
                if sol.value >= SURE_WIN / 1e9 {
                    break; // a certain win found
                }
            }
            if !complete {
                break;
            }
        }
        strategy.unwrap_or_else(|| {
            let mut p = vec![0.0; mine.len()];
            p[0] = 1.0;
            p
        })
    }

    /// Whether the last search stopped at its deadline before its depth (not at its node
    /// budget, nor cancelled): a slower or busier machine may then choose otherwise.
    pub fn timed_out(&self) -> bool {
        self.stopped
            && self.nodes < self.node_budget
            && !self.cancel.load(Ordering::Relaxed)
            && self.past_deadline()
    }

    /// The moves of `side` (enabled commands, or a single pass) in a pooled buffer.
    fn moves_of(&mut self, st: &State, side: Side) -> Vec<Option<CmdId>> {
        let mut ms = self.move_pool.pop().unwrap_or_default();
        ms.clear();
        let eng = &self.eng;
        ms.extend(
            (0..eng.nc as u32)
                .filter(|&c| eng.is_enabled(st, side, c))
                .map(Some),
        );
        if ms.is_empty() {
            ms.push(None);
        }
        ms
    }

    /// Value for `side` of a child reached by `side`'s move (alternate mode), by alpha-beta in
    /// the window (alpha, beta), or by plain minimax when `window` is None.
    fn after(&mut self, c: &State, side: Side, depth: u32, window: Option<(f64, f64)>) -> f64 {
        if c.outcome.is_some() {
            // Prefer quicker wins: a decided child is worth a little less the deeper it lies.
            self.eval(c, side) * (1.0 - 1e-6 * (64 - depth.min(64)) as f64)
        } else if let Some((alpha, beta)) = window {
            -self.negamax(c, depth - 1, -beta, -alpha, false)
        } else {
            -self.minimax(c, depth - 1)
        }
    }

    /// Value for `side` of playing `cmds` from `st`: the mean over chance outcomes. With one
    /// outcome the window is passed on. With several (Ballard's Star2), every outcome is first
    /// probed: an outcome that is decided or a leaf is valued exactly; in any other the
    /// opponent's first move (the best one found there before) is searched, which bounds the
    /// outcome's value from above. When the bounds' mean is at most alpha the move is cut
    /// without searching further. Otherwise each outcome is searched in the window that can
    /// still move the mean across (alpha, beta), given the outcomes searched so far, the bounds
    /// of the rest and that no value lies below −[`VALUE_LIMIT`]; once the mean is certain to
    /// fall outside the window, the remaining outcomes are skipped and a bound is returned
    /// (fail-soft, as a cut-off in negamax: at most alpha when the move is worse, at least beta
    /// when better). Inside the window the mean is exact.
    pub fn move_value(
        &mut self,
        st: &State,
        cmds: [Option<CmdId>; 2],
        side: Side,
        depth: u32,
        window: Option<(f64, f64)>,
    ) -> f64 {
        let kids = self.move_outcomes(st, cmds, depth);
        let v = if kids.len() == 1 {
            self.after(&kids[0].0, side, depth, window)
        } else if let Some((alpha, beta)) = window {
            self.chance_value(&kids, side, depth, alpha, beta)
        } else {
            let mut sum = 0.0;
            for (c, p) in &kids {
                sum += p * self.after(c, side, depth, None);
            }
            sum
        };
        self.recycle(kids);
        v
    }

    /// The windowed mean over chance outcomes of [`Self::move_value`].
    fn chance_value(
        &mut self,
        kids: &[(State, f64)],
        side: Side,
        depth: u32,
        alpha: f64,
        beta: f64,
    ) -> f64 {
        const FULL: Option<(f64, f64)> = Some((f64::NEG_INFINITY, f64::INFINITY));
        // Per outcome: an upper bound of its value, whether it is exact, and the probability-
        // weighted sum of the bounds of the outcomes after it.
        let mut ub = self.bound_pool.pop().unwrap_or_default();
        ub.clear();
        for (c, _) in kids {
            let pkey = if c.outcome.is_some() || depth <= 1 {
                None
            } else {
                Some(node_key(c, self.lcm))
            };
            if let Some(pkey) = pkey.filter(|k| !self.line.contains(k)) {
                let opp = c.to_move;
                let ms = self.ordered_moves(c, opp, depth - 1, pkey);
                let first = ms[0];
                self.move_pool.push(ms);
                let mut reply = [None, None];
                reply[opp] = first;
                self.line.push(pkey);
                let w = self.move_value(c, reply, opp, depth - 1, FULL);
                self.line.pop();
                if !self.stopped {
                    self.probed.insert(tt_key(pkey, depth - 1), (first, w));
                }
                ub.push((-w, false, 0.0));
            } else {
                // Decided, a leaf, or a position already on this line (a draw): exact.
                ub.push((self.after(c, side, depth, FULL), true, 0.0));
            }
            if self.stopped {
                break;
            }
        }
        if self.stopped {
            // An interrupted search's values are not compared (the root keeps the moves its
            // iteration finished, see `CpuPlayer::think`, or at depth 1 the first examined).
            self.bound_pool.push(ub);
            return 0.0;
        }
        let mut after = 0.0;
        for (k, (_, p)) in kids.iter().enumerate().rev() {
            ub[k].2 = after;
            after += p * ub[k].0;
        }
        let v = 'mean: {
            if after <= alpha {
                break 'mean after;
            }
            let mut sum = 0.0;
            let mut rest = 1.0;
            for (k, (c, p)) in kids.iter().enumerate() {
                rest -= p;
                let low_rest = -VALUE_LIMIT * f64::max(rest, 0.0);
                let (bound, exact, bounds_after) = ub[k];
                let x = if exact {
                    bound
                } else {
                    let a = (alpha - sum - bounds_after) / p;
                    let b = (beta - sum - low_rest) / p;
                    self.after(c, side, depth, Some((a, b)))
                };
                sum += p * x;
                if sum + bounds_after <= alpha {
                    break 'mean sum + bounds_after;
                }
                if sum + low_rest >= beta {
                    break 'mean sum + low_rest;
                }
            }
            sum
        };
        self.bound_pool.push(ub);
        v
    }

    /// The moves of `side` in `st` (position key `pkey`) in the order negamax searches them at
    /// `depth`: the move that was best here before, then the one that last cut off a sibling at
    /// this depth (the killer), then the others in their own order — a cut-off then comes after
    /// one move instead of several. In a pooled buffer.
    fn ordered_moves(
        &mut self,
        st: &State,
        side: Side,
        depth: u32,
        pkey: u64,
    ) -> Vec<Option<CmdId>> {
        let mut ms = self.moves_of(st, side);
        if let Some(&Some(k)) = self.killers.get(depth as usize)
            && let Some(j) = ms.iter().position(|m| *m == k)
        {
            ms[..=j].rotate_right(1);
        }
        if let Some(b) = self.best_moves.get(&pkey)
            && let Some(j) = ms.iter().position(|m| m == b)
        {
            ms[..=j].rotate_right(1);
        }
        ms
    }

    /// Negamax value of `st` for the side to move (alternate mode); chance is averaged. A
    /// position searched to depth 1 or more that is already on the line being searched (the
    /// same values, flags, last commands, side to move and period phase) is a draw: play that
    /// comes back to where it was, if both sides keep to it, goes on until the turn limit. So
    /// the side ahead does not put off its progress for ever (guard, guard, … with a strike
    /// always one move beyond the horizon), and the side behind is glad to repeat.
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
            return self.eval(st, side);
        }
        let pkey = node_key(st, self.lcm);
        if self.line.contains(&pkey) {
            return 0.0;
        }
        let key = tt_key(pkey, depth);
        if let Some(&(d, v, flag)) = self.tt.get(&key)
            && d >= depth
            && (flag == EXACT || (flag == LOWER && v >= beta) || (flag == UPPER && v <= alpha))
        {
            return v;
        }
        let alpha0 = alpha;
        let mut best = f64::NEG_INFINITY;
        let mut best_m = None;
        let ms = self.ordered_moves(st, side, depth, pkey);
        self.line.push(pkey);
        // The first move's exact value when a probe already searched it here.
        let probed = self
            .probed
            .get(&key)
            .copied()
            .filter(|&(m, _)| Some(m) == ms.first().copied());
        for (k, m) in ms.iter().enumerate() {
            if !root && k > 0 && self.thin > 1.0 && self.rng.random_range(0.0..self.thin) >= 1.0 {
                continue;
            }
            let mut cmds = [None, None];
            cmds[side] = *m;
            let v = match probed {
                Some((_, v)) if k == 0 => v,
                _ => self.move_value(st, cmds, side, depth, Some((alpha, beta))),
            };
            if v > best {
                best = v;
                best_m = *m;
            }
            if v > alpha {
                alpha = v;
            }
            if alpha >= beta {
                if let Some(k) = self.killers.get_mut(depth as usize) {
                    *k = Some(*m);
                }
                break;
            }
        }
        self.line.pop();
        self.move_pool.push(ms);
        if !self.stopped {
            let flag = if best <= alpha0 {
                UPPER
            } else if best >= beta {
                LOWER
            } else {
                EXACT
            };
            self.tt.insert(key, (depth, best, flag));
            if best > alpha0 {
                self.best_moves.insert(pkey, best_m);
            }
        }
        best
    }

    /// Plain expectiminimax (no pruning, no table): the reference the tests compare against.
    pub fn minimax(&mut self, st: &State, depth: u32) -> f64 {
        let side = st.to_move;
        if st.outcome.is_some() || depth == 0 {
            return self.eval(st, side);
        }
        let pkey = node_key(st, self.lcm);
        if self.line.contains(&pkey) {
            return 0.0;
        }
        self.line.push(pkey);
        let mut best = f64::NEG_INFINITY;
        for m in moves(&self.eng, st, side) {
            let mut cmds = [None, None];
            cmds[side] = m;
            let v = self.move_value(st, cmds, side, depth, None);
            best = best.max(v);
        }
        self.line.pop();
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
        let hm = moves(&self.eng, st, Side::H);
        let cm = moves(&self.eng, st, Side::C);
        let me = self.loop_key(st);
        let mut cells = Cells::default();
        for &x in &hm {
            self.push_row(&mut cells, st, me, Side::H, x, &cm, depth.saturating_sub(1));
        }
        let s = cells.solve(self.deadline);
        (s.value, hm, cm, s)
    }

    /// The key under which a position is the same one again for [`matrix::solve_looping`]:
    /// [`node_key`], without the last commands when no rule reads a command of an earlier turn
    /// (the next turn's overwrite them before anything reads them).
    pub(super) fn loop_key(&self, st: &State) -> u64 {
        key_of(st, self.lcm, self.eng.hl > 1)
    }

    /// Adds to `cells` the row of `side`'s move `x` against each of `theirs` from `st` (whose
    /// [`Self::loop_key`] is `me`), in `side`'s values, each cell's outcomes searched to
    /// `depth`: over all of them, and without those that come back to `st` itself, with their
    /// probability (see [`Cells::solve`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push_row(
        &mut self,
        cells: &mut Cells,
        st: &State,
        me: u64,
        side: Side,
        x: Option<CmdId>,
        theirs: &[Option<CmdId>],
        depth: u32,
    ) {
        // sim_value is h's value.
        let sign = side.sign();
        let n = theirs.len();
        let (mut full, mut rest, mut back) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        for (j, &y) in theirs.iter().enumerate() {
            let cmds = side.seat(x, y);
            let kids = self.move_outcomes(st, cmds, depth + 1);
            for (c, p) in &kids {
                let v = sign * p * self.sim_value(c, depth);
                full[j] += v;
                if c.outcome.is_none() && self.loop_key(c) == me {
                    back[j] += p;
                } else {
                    rest[j] += v;
                }
            }
            self.recycle(kids);
        }
        cells.full.push(full);
        cells.rest.push(rest);
        cells.back.push(back);
    }

    fn sim_value(&mut self, st: &State, depth: u32) -> f64 {
        self.nodes += 1;
        if st.outcome.is_some() {
            // Decided: ±1 for h (0 for a draw), a little less the deeper it lies, so a sooner win
            // beats a later one and a later loss a sooner one (as in alternate play).
            return self.eval(st, Side::H) / 1e9 * (1.0 - 1e-6 * (64 - depth.min(64)) as f64);
        }
        if depth == 0 || self.out_of_time() {
            // Values for h in (-0.9, 0.9): the squashed evaluation.
            return self.eval(st, Side::H) / 1e9;
        }
        let key = tt_key(node_key(st, self.lcm), depth);
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

/// A simultaneous position's matrix game, row by row (see [`Searcher::push_row`]): each cell
/// valued over all its outcomes (`full`), and without the outcomes that come back to the
/// position itself (`rest`), which happen with probability `back`.
#[derive(Default)]
pub(super) struct Cells {
    pub(super) full: Vec<Vec<f64>>,
    rest: Vec<Vec<f64>>,
    back: Vec<Vec<f64>>,
}

impl Cells {
    /// Solves the game of `full`. When that solution would stay in the position for ever
    /// (every cell it plays comes back with certainty: attack against guard, and neither
    /// side's choice changes anything), that play is worth a draw, not the position's searched
    /// value, and the side ahead would stall: the game is solved again with the outcomes that
    /// come back worth the position's own discounted value ([`matrix::solve_looping`]), so the
    /// side ahead makes progress.
    pub(super) fn solve(&self, deadline: Option<Instant>) -> matrix::MatrixSolution {
        let s = matrix::solve_within(&self.full, deadline);
        if self.back.iter().flatten().all(|&p| p == 0.0) {
            return s;
        }
        let stay: f64 = s
            .rows
            .iter()
            .zip(&self.back)
            .map(|(x, b)| x * s.cols.iter().zip(b).map(|(y, p)| y * p).sum::<f64>())
            .sum();
        if stay < 1.0 - 1e-9 {
            return s;
        }
        matrix::solve_looping(&self.rest, &self.back, LOOP_DISCOUNT, deadline)
    }
}
