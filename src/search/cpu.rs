//! The CPU player: iterative deepening over the root moves (alternate mode) or a mixed strategy
//! from the matrix game (simultaneous mode), the `cpu:exact` table, reading mistakes, and the
//! game's earlier positions counted as draws.

use super::base::moves;
use super::exact;
use super::keys::node_key;
use super::local::{local_strategy, positions_for_level};
use super::searcher::{SearchLimits, Searcher};
use super::settings::{CpuSettings, EXACT_BUDGET, EXACT_POSITIONS};
use crate::engine::players::{Player, PlayerError};
use crate::engine::rng::SplitMix;
use crate::engine::{Engine, Side, State};
use crate::program::{CmdId, RuleProgram, RunConfig};
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
    /// Where `table` is looked up and kept ([`exact::TableCache::process`] unless set).
    tables: exact::TableCache,
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

impl<'p> CpuPlayer<'p> {
    /// A CPU for `prog` with settings and a seed (the default [`RunConfig`]).
    pub fn new(prog: &'p RuleProgram, settings: CpuSettings, seed: u64) -> Self {
        Self::with_config(prog, settings, seed, &RunConfig::default())
    }

    /// A CPU for one run of `prog` under `config` (restricted play's banned commands; the
    /// learned evaluation a `trained` CPU values its leaves by), with settings and a seed.
    pub fn with_config(
        prog: &'p RuleProgram,
        settings: CpuSettings,
        seed: u64,
        config: &RunConfig,
    ) -> Self {
        let mut searcher = Searcher::with_config(prog, seed ^ 0xC0FFEE, config);
        searcher.thin = settings.thin;
        if settings.trained
            && let Ok(learned) = &config.learned
        {
            searcher.set_learned(learned);
        }
        Self {
            settings,
            table: None,
            tables: exact::TableCache::process().clone(),
            searcher,
            rng: SplitMix(crate::engine::rng::mix(seed ^ 0xC9)),
            last_nodes: 0,
            work: Default::default(),
            history: Vec::new(),
            last_turn: None,
            mixes: FxHashMap::default(),
        }
    }

    /// Looks its `cpu:exact` tables up in `tables`, and keeps the ones it builds there.
    pub fn set_tables(&mut self, tables: exact::TableCache) {
        self.tables = tables;
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
        self.searcher.timed_out()
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
            let eng = &self.searcher.eng;
            self.table =
                Some(
                    self.tables
                        .get(eng.prog, eng.config(), st, EXACT_BUDGET, EXACT_POSITIONS),
                );
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

    /// Of `moves` (alternate play), the one with the best value by this level's search depth
    /// (at most 4 plies); the first of equal ones.
    fn best_by_search(&mut self, st: &State, side: Side, moves: &[Option<CmdId>]) -> Option<CmdId> {
        let depth = self.settings.depth.clamp(1, 4);
        self.searcher.best_of(st, side, moves, depth)
    }

    /// What one move's search may spend: this level's depth, its node budget `N` and its
    /// period `P` from now.
    fn limits(&self) -> SearchLimits {
        SearchLimits {
            depth: self.settings.depth,
            nodes: self.settings.nodes.unwrap_or(u64::MAX),
            deadline: Some(Instant::now() + Duration::from_millis(self.settings.period_ms as u64)),
        }
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
            let limits = self.limits();
            let s = &mut self.searcher;
            s.reset(limits);
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
        let limits = self.limits();
        let s = &mut self.searcher;
        let all = moves(&s.eng, st, side);
        let choice = if s.eng.simultaneous {
            s.reset(limits);
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
            all[pick]
        } else {
            s.best_move(st, side, &self.history, limits)
        };
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
            return s.matrix_mix(st, side, mine, settings.depth.min(4));
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
