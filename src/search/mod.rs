//! Search over the real rules: the CPU player (negamax with alpha-beta, a transposition table,
//! iterative deepening, the best move and killer moves tried first, and Star1/Star2 pruning below
//! chance; a mixed strategy from the matrix game in simultaneous mode), and the win-path /
//! forced-win solver.
//!
//! Inside a search `rand(a,b)` is chance: a move's value is the mean over its outcomes (every
//! combination when there are few, seeded samples otherwise — see [`Searcher::outcomes`]), the
//! shortest win may pick the favourable outcomes, and a forced win must hold for every outcome.
//! A search never touches a match's draws.

pub mod exact;
pub mod matrix;
mod settings;
pub mod solve;
pub use settings::{CpuSettings, CpuSpecError, CpuSpecProblem, EXACT_BUDGET, EXACT_POSITIONS};

use crate::analysis::{Evaluate, FastEval, VictoryGraph};
use crate::engine::players::{Player, PlayerError};
use crate::engine::rng::SplitMix;
use crate::engine::{ChanceScript, Engine, Outcome, Side, State};
use crate::program::{CmdId, RuleProgram};
use crate::syntax::ast::Setting;
use rand::RngExt;
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// An engine whose unscripted `rand` draws are the midpoint of their range (the searches drive
/// the draws with [`ChanceScript`]s and average over the outcomes).
pub fn search_engine(prog: &RuleProgram) -> Engine<'_> {
    let mut e = Engine::new(prog, 0);
    e.chance = Some(Box::new(|_, _, _, _, lo, hi| {
        ((i128::from(lo) + i128::from(hi)) / 2) as i64
    }));
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

/// The key of a position in the search's own tables (the transposition table, the best moves,
/// the probes): the same position as [`position_key`], from [`State::fingerprint`] (several
/// times cheaper; the search computes one per node). Only caches use it: seeds and the exact
/// tables keep `position_key`, so what is played does not depend on it.
#[inline]
fn node_key(st: &State, lcm: u32) -> u64 {
    key_of(st, lcm, true)
}

/// [`node_key`], with or without the commands of the history.
#[inline]
fn key_of(st: &State, lcm: u32, with_hist: bool) -> u64 {
    let counters = u64::from(st.own_turns[0] % lcm)
        | u64::from(st.own_turns[1] % lcm) << 21
        | (st.to_move as u64) << 42
        | (st.outcome.map_or(0, |o| o as u64 + 1)) << 44;
    st.fingerprint(with_hist) ^ crate::engine::rng::mix(counters ^ 0x006B_6579)
}

fn lcm_of(periods: &[u32]) -> u32 {
    crate::program::period_lcm(periods.iter().copied())
}

/// The evaluation that is worth tanh(1) ≈ 0.76 of a win: twice the larger distance to winning
/// at the start (between 4 and 32: a game won from 2 turns away, like CC Lemon, needs a finer
/// scale than one won from 11, like example 1), plus the largest advantage the file's constant
/// advantage lines can give, so that advantage blocks do not saturate it.
fn eval_scale(prog: &RuleProgram, fast: &FastEval, eng: &Engine) -> f64 {
    let adv: f64 = prog
        .adv
        .iter()
        .map(|a| match prog.code_of(a.value) {
            [crate::program::Op::Push(v)] => (a.weight * *v as f64).abs(),
            _ => 0.0,
        })
        .sum();
    let d = match eng.initial(Side::H) {
        Ok(st) => fast
            .to_win(eng, &st, Side::H)
            .max(fast.to_win(eng, &st, Side::C)),
        Err(_) => 8,
    };
    (2.0 * d as f64).clamp(4.0, 32.0) + adv
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

/// Outcome combinations of one move up to which chance is enumerated exactly inside the CPU's
/// search; beyond it, [`CHANCE_SAMPLES`] seeded samples stand for the distribution.
pub const CHANCE_EXACT: u64 = 16;
/// Samples drawn for a move with more than [`CHANCE_EXACT`] outcome combinations.
pub const CHANCE_SAMPLES: u32 = 16;

/// The searcher: shared by the CPU player and the solver.
pub struct Searcher<'p> {
    /// Engine (its `rand` draws are driven by chance scripts; unscripted draws take the midpoint).
    pub eng: Engine<'p>,
    /// The derived graph.
    pub graph: VictoryGraph,
    /// Its evaluation, compiled for speed.
    fast: FastEval,
    tt: FxHashMap<u64, (u32, f64, u8)>,
    /// Star2 probes (see [`Self::chance_value`]) by position and depth (the key of `tt`): the
    /// move probed first and its exact value, reused when negamax then searches that position
    /// at that depth and tries the same move first.
    probed: FxHashMap<u64, (Option<CmdId>, f64)>,
    /// The best move found for a position (by its key, any depth), tried first when the
    /// position is searched again: the next iteration of the deepening and transpositions.
    best_move: FxHashMap<u64, Option<CmdId>>,
    /// The chance outcomes of the moves played in this search, by position and move (see
    /// [`Self::move_outcomes`]), while [`Self::keep_outcomes`] is set.
    played: FxHashMap<u64, Played>,
    /// Whether [`Self::move_outcomes`] keeps what it plays: in every iteration of the deepening
    /// but the last, as the next one plays the same moves again.
    pub keep_outcomes: bool,
    /// Moves whose outcomes [`Self::move_outcomes`] took from [`Self::played`].
    pub reused: u64,
    /// The keys of the positions on the line being searched (alternate mode), the root first:
    /// a position that comes back on its own line is a draw (see [`Self::negamax`]).
    line: Vec<u64>,
    /// Per remaining depth, the move that last caused a cut-off there (the killer heuristic).
    killers: [Option<Option<CmdId>>; 16],
    /// Nodes visited so far.
    pub nodes: u64,
    /// Stop as soon as this is set.
    pub cancel: Arc<AtomicBool>,
    /// Stop at this many nodes.
    pub node_budget: u64,
    /// Enumerate chance exactly up to this many outcome combinations per move, else sample.
    pub chance_exact: u64,
    /// Set once a move's chance was sampled rather than enumerated.
    pub sampled: bool,
    deadline: Option<Instant>,
    thin: f64,
    rng: SplitMix,
    lcm: u32,
    stopped: bool,
    script: ChanceScript,
    /// Spare positions and outcome lists, reused so the search allocates little.
    pool: Vec<State>,
    kid_pool: Vec<Vec<(State, f64)>>,
    move_pool: Vec<Vec<Option<CmdId>>>,
    bound_pool: Vec<Vec<(f64, bool, f64)>>,
    /// Evaluation units that make a position about three-quarters of a win (see `eval`).
    scale: f64,
}

/// A move's chance outcomes as [`Searcher::outcomes`] gave them, with the nodes it counted and
/// whether it sampled.
struct Played {
    kids: Vec<(State, f64)>,
    nodes: u64,
    sampled: bool,
}

/// The key of playing `cmds` from `st` in [`Searcher::played`]: the whole position, its turn
/// counters included (the turn limit and the periods read them), and the move.
fn played_key(st: &State, cmds: [Option<CmdId>; 2]) -> u64 {
    let counters = u64::from(st.turn) | u64::from(st.own_turns[0]) << 32;
    let moves = u64::from(cmds[0].map_or(u32::MAX, |c| c)) << 32
        | u64::from(cmds[1].map_or(u32::MAX, |c| c));
    let mix = crate::engine::rng::mix;
    key_of(st, u32::MAX, true) ^ mix(counters ^ mix(moves ^ mix(u64::from(st.own_turns[1]))))
}

/// A copy of `st` in a position from `pool` (its buffers reused), or a new one.
fn pooled_copy(pool: &mut Vec<State>, st: &State) -> State {
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
const SURE_WIN: f64 = 0.999e9;

/// What a turn that comes back to the same position is worth, as a share of that position's
/// value (see [`matrix::solve_looping`]).
const LOOP_DISCOUNT: f64 = exact::DISCOUNT;

impl<'p> Searcher<'p> {
    /// A searcher for a program.
    pub fn new(prog: &'p RuleProgram, seed: u64) -> Self {
        let eng = search_engine(prog);
        let graph = VictoryGraph::build(prog);
        let fast = FastEval::new(&graph, &eng);
        let scale = eval_scale(prog, &fast, &eng);
        Self {
            eng,
            graph,
            fast,
            tt: FxHashMap::default(),
            probed: FxHashMap::default(),
            best_move: FxHashMap::default(),
            played: FxHashMap::default(),
            line: Vec::new(),
            keep_outcomes: false,
            reused: 0,
            killers: [None; 16],
            nodes: 0,
            cancel: Arc::new(AtomicBool::new(false)),
            node_budget: u64::MAX,
            chance_exact: CHANCE_EXACT,
            sampled: false,
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
        }
    }

    fn out_of_time(&mut self) -> bool {
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
    fn stop_now(&mut self) -> bool {
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
        } else {
            self.fast.squashed(&self.eng, st, x, self.scale)
        }
    }

    /// Own distance to winning of `x` in `st` (for breaking ties between equal moves).
    fn own_distance(&self, st: &State, x: Side) -> u32 {
        match st.outcome {
            Some(Outcome::H) if x == Side::H => 0,
            Some(Outcome::C) if x == Side::C => 0,
            Some(_) => u32::MAX,
            None => self.fast.to_win(&self.eng, st, x),
        }
    }

    /// A copy of `st` from the pool.
    fn copy_of(&mut self, st: &State) -> State {
        pooled_copy(&mut self.pool, st)
    }

    /// Plays `cmds` from `st` with the draws of `self.script`; a runtime error ends the line as
    /// a draw.
    fn play_one(&mut self, st: &State, cmds: [Option<CmdId>; 2]) -> State {
        let mut c = self.copy_of(st);
        if self
            .eng
            .play_scripted(&mut c, cmds, &mut self.script)
            .is_err()
        {
            c.outcome = Some(Outcome::Draw);
        }
        c
    }

    /// Another chance outcome of the move that [`Self::play_one`] played last, `cmds` from
    /// `st`, under the draws of `self.script`: played from that turn's resolution when the
    /// engine could keep it (only values drew), else from the start. The same position either
    /// way.
    fn replay_one(&mut self, st: &State, cmds: [Option<CmdId>; 2]) -> State {
        let mut c = self.pool.pop().unwrap_or_default();
        match self.eng.replay_scripted(&mut c, &mut self.script) {
            Some(r) => {
                if r.is_err() {
                    c.outcome = Some(Outcome::Draw);
                }
                c
            }
            None => {
                self.pool.push(c);
                self.play_one(st, cmds)
            }
        }
    }

    /// Plays `cmds` from `st` with every draw at its first outcome (for tie-breaks).
    fn play_first_outcome(&mut self, st: &State, cmds: [Option<CmdId>; 2]) -> State {
        self.script.picks.clear();
        self.script.sampler = None;
        self.play_one(st, cmds)
    }

    /// Returns the positions of an outcome list to the pool.
    fn recycle(&mut self, mut kids: Vec<(State, f64)>) {
        self.pool.extend(kids.drain(..).map(|k| k.0));
        self.kid_pool.push(kids);
    }

    /// The chance outcomes of playing `cmds` from `st`, with their probabilities (summing to 1).
    /// Every combination of outcomes is enumerated when there are at most `limit`; otherwise
    /// [`CHANCE_SAMPLES`] samples are drawn, seeded by the position and the move (so a search is
    /// reproducible), and identical positions are merged.
    pub fn outcomes(
        &mut self,
        st: &State,
        cmds: [Option<CmdId>; 2],
        limit: u64,
    ) -> Vec<(State, f64)> {
        let mut out = self.kid_pool.pop().unwrap_or_default();
        self.script.picks.clear();
        self.script.sampler = None;
        let c = self.play_one(st, cmds);
        if self.script.draws.is_empty() {
            out.push((c, 1.0));
            return out;
        }
        if self.script.combinations() <= limit {
            out.push((c, self.script.probability()));
            loop {
                // The next combination, odometer-wise: the last draw that has another outcome
                // moves on; the draws after it start again from outcome 0.
                let mut picks = std::mem::take(&mut self.script.picks);
                picks.clear();
                picks.extend(self.script.draws.iter().map(|d| d.pick));
                while let Some(&last) = picks.last() {
                    let k = picks.len() - 1;
                    if last + 1 < self.script.draws[k].outcomes {
                        picks[k] += 1;
                        break;
                    }
                    picks.pop();
                }
                let done = picks.is_empty();
                self.script.picks = picks;
                if done {
                    self.merge_same(&mut out);
                    return out;
                }
                // Every further outcome is a resolution like a node's: it counts against the
                // node budget, so chance-heavy games cannot outrun it.
                self.nodes = self.nodes.saturating_add(1);
                let c = self.replay_one(st, cmds);
                out.push((c, self.script.probability()));
                if out.len() as u64 > limit.saturating_mul(4) {
                    break; // later draws multiplied the outcomes: sample instead
                }
            }
            self.pool.extend(out.drain(..).map(|k| k.0));
        } else {
            self.pool.push(c);
        }
        self.sampled = true;
        let seed = position_key(st, self.lcm)
            ^ crate::engine::rng::mix(
                cmds[0].map_or(0xFFFF, u64::from) << 32 | cmds[1].map_or(0xFFFF, u64::from),
            );
        self.script.picks.clear();
        let w = 1.0 / CHANCE_SAMPLES as f64;
        let mut keys: Vec<u64> = Vec::with_capacity(CHANCE_SAMPLES as usize);
        for i in 0..CHANCE_SAMPLES {
            self.script.sampler = Some(crate::engine::rng::mix(seed.wrapping_add(i as u64)));
            self.nodes = self.nodes.saturating_add(1);
            let c = self.replay_one(st, cmds);
            let k = position_key(&c, self.lcm);
            if let Some(j) = keys.iter().position(|&x| x == k) {
                out[j].1 += w;
                self.pool.push(c);
            } else {
                keys.push(k);
                out.push((c, w));
            }
        }
        self.script.sampler = None;
        out
    }

    /// [`Self::outcomes`] of a move of the search (enumerated up to [`Self::chance_exact`]),
    /// taken from [`Self::played`] when this search played it before: the deepening's next
    /// iteration plays the moves of the one before again, and a turn with its chance outcomes
    /// costs several times the copies. The nodes and the sampling are counted as if played, so
    /// the search and its node budget are the same either way. `depth` counts this move: a move
    /// at depth 1 (its outcomes are leaves) was not played by the iteration before, one
    /// shallower, so it is not looked for.
    fn move_outcomes(
        &mut self,
        st: &State,
        cmds: [Option<CmdId>; 2],
        depth: u32,
    ) -> Vec<(State, f64)> {
        if depth < 2 && !self.keep_outcomes {
            return self.outcomes(st, cmds, self.chance_exact);
        }
        let key = played_key(st, cmds);
        if let Some(p) = self.played.get(&key) {
            self.reused += 1;
            self.nodes = self.nodes.saturating_add(p.nodes);
            self.sampled |= p.sampled;
            let mut out = self.kid_pool.pop().unwrap_or_default();
            for (k, w) in &p.kids {
                out.push((pooled_copy(&mut self.pool, k), *w));
            }
            return out;
        }
        if !self.keep_outcomes {
            return self.outcomes(st, cmds, self.chance_exact);
        }
        let (nodes, sampled) = (self.nodes, self.sampled);
        self.sampled = false;
        let out = self.outcomes(st, cmds, self.chance_exact);
        let kids = out.iter().map(|(c, w)| (self.copy_of(c), *w)).collect();
        let p = Played {
            kids,
            nodes: self.nodes - nodes,
            sampled: self.sampled,
        };
        self.sampled |= sampled;
        self.played.insert(key, p);
        out
    }

    /// Starts the line of a search from `root` (alternate mode), after the game's earlier
    /// positions `past` (keys, oldest first; the latest [`HISTORY`] of them count).
    fn start_line(&mut self, root: &State, past: &[u64]) {
        self.line.clear();
        self.line
            .extend(past[past.len().saturating_sub(HISTORY)..].iter().copied());
        self.line.push(node_key(root, self.lcm));
    }

    /// Forgets [`Self::played`] (a new search), its positions back to the pool.
    fn forget_played(&mut self) {
        for (_, p) in self.played.drain() {
            if self.pool.len() < 4096 {
                self.pool.extend(p.kids.into_iter().map(|k| k.0));
            }
        }
    }

    /// Merges outcomes that reach the same position (summing their probabilities).
    fn merge_same(&mut self, out: &mut Vec<(State, f64)>) {
        if out.len() < 2 {
            return;
        }
        if out.len() > 16 {
            // Many outcomes (two rolls already give 4096): hash, then confirm equality.
            let mut first: FxHashMap<u64, usize> = FxHashMap::default();
            let mut kept: Vec<(State, f64)> = Vec::with_capacity(out.len());
            for (c, p) in out.drain(..) {
                let h = {
                    let mut hs = FxHasher::default();
                    c.hash(&mut hs);
                    hs.finish()
                };
                match first.get(&h) {
                    Some(&j) if kept[j].0 == c => {
                        kept[j].1 += p;
                        self.pool.push(c);
                    }
                    Some(_) => kept.push((c, p)),
                    None => {
                        first.insert(h, kept.len());
                        kept.push((c, p));
                    }
                }
            }
            *out = kept;
            return;
        }
        // Few outcomes: compare positions directly (no hashing, no allocation).
        let mut k = out.len();
        while k > 1 {
            k -= 1;
            if let Some(j) = (0..k).find(|&j| out[j].0 == out[k].0) {
                let (c, p) = out.swap_remove(k);
                out[j].1 += p;
                self.pool.push(c);
            }
        }
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
    fn move_value(
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
            // An interrupted search's values are not compared (the root keeps its last complete
            // iteration, or at depth 1 the first move examined).
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
        if let Some(b) = self.best_move.get(&pkey)
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
                self.best_move.insert(pkey, best_m);
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
    fn loop_key(&self, st: &State) -> u64 {
        key_of(st, self.lcm, self.eng.hl > 1)
    }

    /// Adds to `cells` the row of `side`'s move `x` against each of `theirs` from `st` (whose
    /// [`Self::loop_key`] is `me`), in `side`'s values, each cell's outcomes searched to
    /// `depth`: over all of them, and without those that come back to `st` itself, with their
    /// probability (see [`Cells::solve`]).
    #[allow(clippy::too_many_arguments)]
    fn push_row(
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
struct Cells {
    full: Vec<Vec<f64>>,
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
    fn solve(&self, deadline: Option<Instant>) -> matrix::MatrixSolution {
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

/// The key of a position searched to `depth` in the transposition table.
fn tt_key(pkey: u64, depth: u32) -> u64 {
    pkey ^ (depth as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The CPU player.
pub struct CpuPlayer<'p> {
    settings: CpuSettings,
    /// `cpu:exact`: the table (built at the first move), or why there is none.
    table: Option<exact::Built>,
    searcher: Searcher<'p>,
    rng: SplitMix,
    /// Nodes searched for the last move.
    pub last_nodes: u64,
    /// Moves, nodes and thinking time since the last [`Player::take_search_work`].
    work: crate::engine::players::SearchWork,
    /// The keys of this game's earlier positions (alternate mode): the search counts coming
    /// back to one of them as a draw, as it does for its own line (see [`Searcher::negamax`]).
    history: Vec<u64>,
    /// The turn of the last position [`Player::choose`] was asked about (a smaller one starts a
    /// new game).
    last_turn: Option<u32>,
}

/// Earlier positions of the game that the search looks for (the latest ones).
const HISTORY: usize = 32;

impl<'p> CpuPlayer<'p> {
    /// A CPU for `prog` with settings and a seed.
    pub fn new(prog: &'p RuleProgram, settings: CpuSettings, seed: u64) -> Self {
        let mut searcher = Searcher::new(prog, seed ^ 0xC0FFEE);
        searcher.thin = settings.thin;
        Self {
            settings,
            table: None,
            searcher,
            rng: SplitMix(crate::engine::rng::mix(seed ^ 0xC9)),
            last_nodes: 0,
            work: Default::default(),
            history: Vec::new(),
            last_turn: None,
        }
    }

    /// The game's positions before this one, oldest first (for a player made for one move, as
    /// the studio's is): returning to one of them counts as a draw in the search.
    pub fn set_history<'s>(&mut self, past: impl IntoIterator<Item = &'s State>) {
        let lcm = self.searcher.lcm;
        self.history = past.into_iter().map(|st| node_key(st, lcm)).collect();
    }

    /// Uses `flag` as the cancel flag (a window shares one flag with its thinking thread).
    pub fn set_cancel_flag(&mut self, flag: Arc<AtomicBool>) {
        self.searcher.cancel = flag;
    }

    /// The `cpu:exact` table built so far, or why there is none (to hand to the next player of
    /// the same program).
    pub fn exact_result(&self) -> Option<exact::Built> {
        self.table.clone()
    }

    /// Plays from `table` (built by another player of the same program) where it holds the
    /// position, or (a failure) plays by search without trying again.
    pub fn set_exact_result(&mut self, table: exact::Built) {
        self.table = Some(table);
    }

    /// What `cpu:exact` plays from: the table's description, or why it plays by search.
    pub fn exact_status(&self) -> Option<String> {
        match self.table.as_ref()? {
            Ok(t) => Some(format!("exact play: {}", t.describe())),
            Err(e) => Some(format!("no exact table ({e}); playing by search")),
        }
    }

    /// `cpu:exact`: a move drawn from the table's optimal strategy, building the table from
    /// this position when it has none that holds it. None when there is no table.
    fn exact_move(&mut self, st: &State, side: Side) -> Option<Option<CmdId>> {
        let missing = match &self.table {
            None => true,
            Some(Ok(t)) => t.strategy(st, side).is_none() && st.outcome.is_none(),
            Some(Err(_)) => false,
        };
        if missing {
            let prog = self.searcher.eng.prog;
            self.table = Some(exact::shared(prog, st, EXACT_BUDGET, EXACT_POSITIONS));
        }
        let strategy = self.table.as_ref()?.as_ref().ok()?.strategy(st, side)?;
        let tied: Vec<Option<CmdId>> = strategy
            .iter()
            .filter(|(_, p)| *p > 0.0)
            .map(|(m, _)| *m)
            .collect();
        if !self.searcher.eng.simultaneous && tied.len() > 1 {
            // Moves of the same exact value (a draw, or equally quick wins): the one the
            // ordinary search likes best, so that an opponent who errs is punished.
            return Some(self.best_by_search(st, side, &tied));
        }
        let r: f64 = self.rng.random_range(0.0..1.0);
        let mut acc = 0.0;
        for (m, p) in &strategy {
            acc += p;
            if r < acc {
                return Some(*m);
            }
        }
        strategy
            .iter()
            .rev()
            .find(|(_, p)| *p > 0.0)
            .map(|(m, _)| *m)
    }

    /// Of `moves` (alternate play), the one with the best value by this level's search depth;
    /// the first of equal ones.
    fn best_by_search(&mut self, st: &State, side: Side, moves: &[Option<CmdId>]) -> Option<CmdId> {
        let depth = self.settings.depth.clamp(1, 4);
        let s = &mut self.searcher;
        s.stopped = false;
        s.deadline = None;
        s.nodes = 0;
        let mut best = (f64::NEG_INFINITY, moves[0]);
        s.start_line(st, &[]);
        for &m in moves {
            let mut cmds = [None, None];
            cmds[side] = m;
            let v = s.move_value(st, cmds, side, depth, Some((best.0, f64::INFINITY)));
            if v > best.0 {
                best = (v, m);
            }
        }
        s.line.clear();
        best.1
    }

    /// What [`think`](Self::think) draws its move from in `st`: `side`'s moves with their
    /// probabilities, reading mistakes included (for measuring how exploitable a level is).
    pub fn policy(&mut self, st: &State, side: Side) -> Vec<(Option<CmdId>, f64)> {
        if self.settings.exact {
            self.exact_move(st, side);
            if let Some(Ok(t)) = &self.table
                && let Some(s) = t.strategy(st, side)
            {
                return s;
            }
        }
        let all = moves(&self.searcher.eng, st, side);
        let base: Vec<f64> = if self.searcher.eng.simultaneous {
            let s = &mut self.searcher;
            s.nodes = 0;
            s.stopped = false;
            s.tt.clear();
            s.deadline =
                Some(Instant::now() + Duration::from_millis(self.settings.period_ms as u64));
            s.node_budget = self.settings.nodes.unwrap_or(u64::MAX);
            Self::mixed_strategy(s, st, side, &all, self.settings.depth.min(4))
        } else {
            let mistakes = std::mem::replace(&mut self.settings.mistakes, 0);
            let exact = std::mem::replace(&mut self.settings.exact, false);
            // A policy is of the position alone, whatever game came before.
            let history = std::mem::take(&mut self.history);
            let m = self.think(st, side);
            self.history = history;
            self.settings.mistakes = mistakes;
            self.settings.exact = exact;
            all.iter()
                .map(|x| if *x == m { 1.0 } else { 0.0 })
                .collect()
        };
        let n = all.len();
        let e = if n > 1 {
            f64::from(self.settings.mistakes) / 10.0
        } else {
            0.0
        };
        let total: f64 = base.iter().sum();
        all.iter()
            .zip(&base)
            .map(|(m, p)| {
                let others = if n > 1 {
                    (total - p) / (n - 1) as f64
                } else {
                    0.0
                };
                (*m, (1.0 - e) * p + e * others)
            })
            .collect()
    }

    /// Best move for the side to move, or a mixed choice in simultaneous mode.
    pub fn think(&mut self, st: &State, side: Side) -> Option<CmdId> {
        if self.settings.exact
            && let Some(m) = self.exact_move(st, side)
        {
            return m;
        }
        let s = &mut self.searcher;
        s.nodes = 0;
        s.stopped = false;
        s.tt.clear();
        s.forget_played();
        s.probed.clear();
        s.best_move.clear();
        s.killers = [None; 16];
        s.deadline = Some(Instant::now() + Duration::from_millis(self.settings.period_ms as u64));
        s.node_budget = self.settings.nodes.unwrap_or(u64::MAX);
        let choice;
        let all = moves(&s.eng, st, side);
        if s.eng.simultaneous {
            let probs = Self::mixed_strategy(s, st, side, &all, self.settings.depth.min(4));
            let r: f64 = self.rng.random_range(0.0..1.0);
            let mut acc = 0.0;
            let mut pick = all.len() - 1;
            for (k, p) in probs.iter().enumerate() {
                acc += p;
                if r < acc {
                    pick = k;
                    break;
                }
            }
            choice = all[pick];
        } else {
            let mut best = all[0];
            // Root moves in the order of the last iteration's values, best first, so that the
            // window below the best so far is tight from the start (ties are broken by the
            // moves' own order, so the choice does not depend on the order of search).
            let mut order: Vec<usize> = (0..all.len()).collect();
            let mut values = vec![f64::NEG_INFINITY; all.len()];
            s.start_line(st, &self.history);
            for depth in 1..=self.settings.depth {
                s.keep_outcomes = depth < self.settings.depth;
                s.stopped = false;
                if depth > 1 && s.stop_now() {
                    break;
                }
                order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
                let mut best_here: Option<usize> = None;
                let mut best_v = f64::NEG_INFINITY;
                let mut best_d = u32::MAX;
                for &k in &order {
                    // Each root move is searched only while time remains; at depth 1 the best
                    // of the moves examined so far stands.
                    if s.stop_now() {
                        break;
                    }
                    let m = all[k];
                    let mut cmds = [None, None];
                    cmds[side] = m;
                    // Search with a window just below the best so far, so that equal moves get
                    // exact values and the tie-break below can see them.
                    let lo = best_v - best_v.abs() * 1e-9 - 1e-9;
                    let v = s.move_value(st, cmds, side, depth, Some((lo, f64::INFINITY)));
                    // Ties go to the move that brings this side nearer to winning (in the
                    // position it leads to, before any reply): the side presses instead of
                    // only keeping the balance.
                    let tie = (v - best_v).abs() <= best_v.abs() * 1e-9 + 1e-9;
                    if s.stopped && best_here.is_some() {
                        break; // the value of an interrupted search is not comparable
                    }
                    values[k] = v;
                    if v > best_v || tie {
                        let c = s.play_first_outcome(st, cmds);
                        let d = s.own_distance(&c, side);
                        s.pool.push(c);
                        let earlier = best_here.is_none_or(|b| k < b);
                        if !tie || d < best_d || (d == best_d && earlier) {
                            best_v = best_v.max(v);
                            best_here = Some(k);
                            best_d = d;
                        }
                    }
                    if s.stopped {
                        break;
                    }
                }
                if s.stopped && depth > 1 {
                    break; // keep the last complete iteration's move
                }
                if let Some(b) = best_here {
                    best = all[b];
                }
                if best_v >= SURE_WIN {
                    break; // a certain win found
                }
            }
            s.line.clear();
            choice = best;
        }
        s.keep_outcomes = false;
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

impl CpuPlayer<'_> {
    /// The CPU's mixed strategy over its moves `mine` in a simultaneous game: the matrix game
    /// of its moves against the opponent's, deepened one joint turn at a time while time
    /// remains. Rows are filled one of the CPU's moves at a time, so when the period ends during
    /// the first depth the game restricted to the moves examined so far is solved; a deeper
    /// depth that did not finish is discarded.
    fn mixed_strategy(
        s: &mut Searcher,
        st: &State,
        side: Side,
        mine: &[Option<CmdId>],
        max_depth: u32,
    ) -> Vec<f64> {
        let theirs = moves(&s.eng, st, side.opponent());
        let me = s.loop_key(st);
        let mut strategy: Option<Vec<f64>> = None;
        for depth in 1..=max_depth.max(1) {
            s.keep_outcomes = depth < max_depth;
            s.stopped = false;
            if depth > 1 && s.stop_now() {
                break;
            }
            let mut cells = Cells::default();
            for &x in mine {
                if s.stop_now() {
                    break;
                }
                s.push_row(&mut cells, st, me, side, x, &theirs, depth - 1);
            }
            let complete = cells.full.len() == mine.len() && !s.stopped;
            if complete || (strategy.is_none() && !cells.full.is_empty()) {
                let sol = cells.solve(s.deadline);
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
}

impl Player for CpuPlayer<'_> {
    fn choose(
        &mut self,
        _eng: &Engine,
        st: &State,
        side: Side,
        _enabled: &[CmdId],
    ) -> Result<Option<CmdId>, PlayerError> {
        let t0 = Instant::now();
        self.last_nodes = 0;
        if self.last_turn.is_some_and(|t| st.turn <= t) {
            self.history.clear(); // a new game
        }
        self.last_turn = Some(st.turn);
        let m = self.think(st, side);
        self.history.push(node_key(st, self.searcher.lcm));
        self.work.add(&crate::engine::players::SearchWork {
            moves: 1,
            nodes: self.last_nodes,
            seconds: t0.elapsed().as_secs_f64(),
        });
        Ok(m)
    }
    fn take_search_work(&mut self) -> Option<crate::engine::players::SearchWork> {
        Some(std::mem::take(&mut self.work))
    }
    fn reseed(&mut self, seed: u64) -> bool {
        // As `new` seeds them; the evaluation and its cache depend on the program only.
        self.searcher.rng = SplitMix(seed ^ 0xC0FFEE);
        self.searcher.sampled = false;
        self.rng = SplitMix(crate::engine::rng::mix(seed ^ 0xC9));
        self.last_nodes = 0;
        self.history.clear();
        self.last_turn = None;
        true
    }
    fn name(&self) -> String {
        if self.settings.exact {
            return "cpu exact".into();
        }
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
    /// Probability of the chance outcome the path assumes at this step (1 without chance).
    pub probability: f64,
}

/// The shortest sequence of moves (h and c cooperating) that ends with h winning, by breadth-first
/// search over positions (the turn counter is not part of a position), up to `max_plies`. Chance
/// outcomes are branches: the path may assume favourable outcomes. (A search that another
/// thread may cancel calls [`solve::shortest_win_in`] with its flag.)
pub fn shortest_win(
    prog: &RuleProgram,
    start: &State,
    max_plies: u32,
    position_cap: usize,
) -> solve::ShortestWin {
    solve::shortest_win_in(prog, start, max_plies, position_cap, None)
}

/// Whether h can force a win within `plies` (alternate: one side's move per ply; simultaneous:
/// one joint turn per ply, h choosing without seeing c's move) against every reply and every
/// chance outcome, and h's first winning move. [`solve::forced_win_in`] also gives the tree.
pub fn forced_win(
    prog: &RuleProgram,
    start: &State,
    plies: u32,
    node_cap: u64,
) -> (Option<bool>, Option<String>) {
    let f = solve::forced_win_in(prog, start, plies, node_cap, None);
    (f.exists, f.first_move)
}

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
    /// Iterations until the largest change fell below 1e-10 (at most 5,000).
    pub iterations: u32,
    /// The largest change of a value in the last iteration: below 1e-10 when it converged,
    /// else the 5,000 iterations ran out first (the value and strategies are then estimates,
    /// and the exploitability is that of the start's strategies in the values reached).
    pub residual: f64,
    /// The iterations stopped at [`solve::VALUE_TIME`] rather than by converging or at 5,000.
    pub timed_out: bool,
    /// The bound on state values that was needed (None: every reachable position was solved).
    pub bound: Option<i64>,
}

impl GameValue {
    /// Which positions were solved, in words, and which limit left the rest to an estimate (for
    /// the outputs that say how a value was found): all of them; or, in a game with too many,
    /// those within the bound on state values; or the first [`VALUE_POSITIONS`] when even those
    /// are too many.
    pub fn positions_text(&self) -> String {
        let n = |x: usize| solve::thousands(x as u64);
        match self.bound {
            None => format!(
                "all {} reachable positions (nothing estimated)",
                n(self.states)
            ),
            Some(b) if self.states >= VALUE_POSITIONS => format!(
                "the first {} positions reached — the game has more than the limit of {} positions, \
                 so {} positions past that limit are estimated by the derived evaluation, not \
                 solved (state values were also kept within ±{b} of the start)",
                n(self.states),
                n(VALUE_POSITIONS),
                n(self.frontier)
            ),
            Some(b) => format!(
                "the {} positions in which every state stays within ±{b} of its start value — the \
                 game has too many positions to solve them all, so {} positions past that bound \
                 are estimated by the derived evaluation, not solved",
                n(self.states),
                n(self.frontier)
            ),
        }
    }
}

/// How many positions `kumite solve --value`, the studio's Win path tab and the report's exact
/// section solve at most (past it, positions are estimated: see [`GameValue::positions_text`]).
pub const VALUE_POSITIONS: usize = 200_000;

/// How far state values may move from the start in the solved game of `kumite solve --value`,
/// the studio's Win path tab and the report's exact section.
pub const VALUE_BOUND: i64 = 12;

/// Solves a simultaneous game by value iteration with a linear program (matrix game) per
/// position. The state space is bounded: every position reachable from `start` whose state
/// values stay within `bound` of their starting values is solved exactly; positions beyond are a
/// frontier valued by the derived evaluation (so a small bound gives an estimate). The turn
/// counter is not part of a position: an endless game is worth 0. Chance is averaged. (A run
/// that another thread may cancel calls [`solve::value_iteration_in`] with its flag.)
pub fn value_iteration(
    prog: &RuleProgram,
    start: &State,
    bound: i64,
    max_states: usize,
) -> GameValue {
    solve::value_iteration_in(prog, start, bound, max_states, None).expect("not cancelled")
}
