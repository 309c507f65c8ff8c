//! The CPU player: iterative deepening over the root moves (alternate mode) or a mixed strategy
//! from the matrix game (simultaneous mode), the `cpu:exact` table, reading mistakes, and the
//! game's earlier positions counted as draws.

use super::keys::node_key;
use super::local::{local_strategy, positions_for_level};
use super::searcher::{Cells, SURE_WIN, Searcher};
use super::{CpuSettings, EXACT_BUDGET, EXACT_POSITIONS, exact, moves};
use crate::engine::players::{Player, PlayerError};
use crate::engine::rng::SplitMix;
use crate::engine::{Engine, Side, State};
use crate::program::{CmdId, RuleProgram};
use rand::RngExt;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

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
    /// Simultaneous mode: the local graph's mixes already computed, by position (its turn
    /// included) and side, with the nodes they cost — only those that depend on the position
    /// and the budget alone, so a game plays the same whether or not an earlier game filled
    /// the cache (the report and the arena meet the same positions over and over).
    mixes: FxHashMap<u64, (Vec<f64>, u64)>,
}

/// Where a CPU's random streams stand (its search's thinning and its own picks). A player made
/// anew for each move — the studio's, on a thread of its own — that takes them over from the
/// last one, with the same earlier positions, plays as one player kept for the whole game does
/// (`kumite match`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuStreams {
    search: u64,
    pick: u64,
}

/// Mixes the cache keeps at most (it is emptied when full).
const MIX_CACHE: usize = 1 << 16;

/// Joint moves at the root above which a simultaneous game is searched by the matrix games
/// instead of the local graph (a 100 × 100 position).
const LOCAL_JOINT_LIMIT: usize = 10_000;

/// Earlier positions of the game that the search looks for (the latest ones).
pub(super) const HISTORY: usize = 32;

impl<'p> CpuPlayer<'p> {
    /// A CPU for `prog` with settings and a seed.
    pub fn new(prog: &'p RuleProgram, settings: CpuSettings, seed: u64) -> Self {
        let mut searcher = Searcher::new(prog, seed ^ 0xC0FFEE);
        searcher.thin = settings.thin;
        if settings.trained
            && let Ok(learned) = &prog.learned
        {
            searcher.set_learned(learned);
        }
        Self {
            settings,
            table: None,
            searcher,
            rng: SplitMix(crate::engine::rng::mix(seed ^ 0xC9)),
            last_nodes: 0,
            work: Default::default(),
            history: Vec::new(),
            last_turn: None,
            mixes: FxHashMap::default(),
        }
    }

    /// The game's positions before this one, oldest first (for a player made for one move, as
    /// the studio's is): returning to one of them counts as a draw in the search.
    pub fn set_history<'s>(&mut self, past: impl IntoIterator<Item = &'s State>) {
        let lcm = self.searcher.lcm;
        self.history = past.into_iter().map(|st| node_key(st, lcm)).collect();
    }

    /// Where its random streams stand now.
    pub fn streams(&self) -> CpuStreams {
        CpuStreams {
            search: self.searcher.rng.0,
            pick: self.rng.0,
        }
    }

    /// Takes up the random streams where another player of the same game left them.
    pub fn set_streams(&mut self, s: CpuStreams) {
        self.searcher.rng = SplitMix(s.search);
        self.rng = SplitMix(s.pick);
    }

    /// Its move in `st` as [`Player::choose`] makes it: the position joins the game's earlier
    /// ones (a smaller turn than the last starts a new game).
    pub fn play_move(&mut self, st: &State, side: Side) -> Option<CmdId> {
        self.last_nodes = 0;
        if self.last_turn.is_some_and(|t| st.turn <= t) {
            self.history.clear(); // a new game
        }
        self.last_turn = Some(st.turn);
        let m = self.think(st, side);
        self.history.push(node_key(st, self.searcher.lcm));
        m
    }

    /// Whether the last move's search stopped at its time limit (`P`) before its depth: a
    /// slower or busier machine may then choose otherwise; a node budget (`N`) repeats it.
    pub fn timed_out(&self) -> bool {
        let s = &self.searcher;
        s.stopped
            && s.nodes < s.node_budget
            && !s.cancel.load(std::sync::atomic::Ordering::Relaxed)
            && s.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Values the search's leaves by `learned` (`cpu:trained` where the program carries none,
    /// as in the studio, which reads the file next to the document itself).
    pub fn set_learned(&mut self, learned: &crate::program::Learned) {
        self.searcher.set_learned(learned);
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
            Some(Ok(t)) => {
                (!t.covers(st) || t.strategy(st, side).is_none()) && st.outcome.is_none()
            }
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
            Self::simultaneous_strategy(&self.settings, s, &mut self.mixes, st, side, &all)
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
            let probs =
                Self::simultaneous_strategy(&self.settings, s, &mut self.mixes, st, side, &all);
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
            let mut best_k = 0; // the index of `best`
            s.start_line(st, &self.history);
            for depth in 1..=self.settings.depth {
                s.keep_outcomes = depth < self.settings.depth;
                s.root_depth = depth;
                s.stopped = false;
                if depth > 1 && s.stop_now() {
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
                    best_searched |= k == best_k && !s.stopped;
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
                if s.stopped && depth > 1 && !best_searched {
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
                if s.stopped {
                    break;
                }
                if best_v >= SURE_WIN {
                    break; // a certain win found
                }
            }
            s.line.clear();
            choice = best;
        }
        s.keep_outcomes = false;
        s.root_depth = 0;
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
    /// The CPU's mixed strategy over its moves `mine` in a simultaneous game: from the local
    /// game graph ([`super::local`]) of [`positions_for_level`] of `S` positions (fewer when
    /// the node budget `N` runs out first) within the period, or with `matrix` from the
    /// depth-limited matrix games.
    fn simultaneous_strategy(
        settings: &CpuSettings,
        s: &mut Searcher,
        cache: &mut FxHashMap<u64, (Vec<f64>, u64)>,
        st: &State,
        side: Side,
        mine: &[Option<CmdId>],
    ) -> Vec<f64> {
        // N counts nodes as the other searches do, one per joint move examined: a position of
        // the graph costs its joint moves (those of the root stand for all).
        let joint = (mine.len() * moves(&s.eng, st, side.opponent()).len()).max(1);
        // A root of very many joint moves (hundreds of commands a side) is no graph to list:
        // the matrix search fills its game row by row and solves what the period allowed.
        if settings.matrix || joint > LOCAL_JOINT_LIMIT {
            return Self::mixed_strategy(s, st, side, mine, settings.depth.min(4));
        }
        let positions = settings.nodes.map_or(usize::MAX, |n| n as usize / joint);
        let positions = positions.min(positions_for_level(settings.depth));
        let until = s
            .deadline
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
        let key = node_key(st, s.lcm)
            ^ crate::engine::rng::mix(u64::from(st.turn) << 1 | side.index() as u64);
        if let Some((p, nodes)) = cache.get(&key)
            && p.len() == mine.len()
        {
            s.nodes += nodes;
            return p.clone();
        }
        let before = s.nodes;
        let (p, pure) = local_strategy(s, st, side, mine, positions, until);
        if pure {
            if cache.len() >= MIX_CACHE {
                cache.clear();
            }
            cache.insert(key, (p.clone(), s.nodes - before));
        }
        p
    }

    /// The depth-limited matrix search's mix (`cpu:matrix`): the matrix game
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
        let m = self.play_move(st, side);
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
            "cpu{}{} S{} D{} E{} P{}",
            if self.settings.matrix { " matrix" } else { "" },
            if self.settings.trained {
                " trained"
            } else {
                ""
            },
            self.settings.depth,
            self.settings.thin,
            self.settings.mistakes,
            self.settings.period_ms
        )
    }
}
