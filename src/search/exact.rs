//! Exact play where a game is small enough (`cpu:exact`): every position reachable from the
//! current one is enumerated, and each is valued by discounted value iteration — a win is worth
//! `+1`, a loss `−1`, a draw (or a game without end) `0`, and every turn multiplies by
//! [`DISCOUNT`], so a sooner win is worth more than a later one and a later loss less bad than a
//! sooner one (LANGUAGE.md §11). In alternate play the side to move takes the best value; in
//! simultaneous play each position is a matrix game, solved by linear programming, and the
//! player draws its move from the optimal mixed strategy. Chance outcomes are averaged.
//!
//! When the positions do not fit in the budget (count or time), the table is built within a
//! bound on the state values instead, positions beyond it valued by the derived evaluation, and
//! says so; when even that does not fit, the player falls back to the ordinary search.

use super::base::moves;
use super::keys::lcm_of;
use super::keys::position_key;
use super::keys::table_key;
use super::matrix;
use super::searcher::Searcher;
use crate::engine::{Outcome, Side, State};
use crate::program::{CmdId, RuleProgram, RunConfig};
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use super::base::DISCOUNT;

/// Value iteration stops when no value changed by more than this in a sweep.
const TOLERANCE: f64 = 1e-10;

/// Tables of at most this many positions keep the positions themselves
/// ([`ExactTable::all_positions`]).
const KEEP_POSITIONS: usize = 200_000;

/// Chance outcome combinations per move enumerated exactly; beyond, sampled (and said so).
/// The same for every table: `cpu:exact`, `solve --value`, `--against` and the report.
pub const CHANCE_LIMIT: u64 = 4096;

/// How a table's positions are valued by value iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TableSettings {
    /// Each turn multiplies a value by this: below 1, a sooner win is worth more.
    pub discount: f64,
    /// Iteration stops once no value changed by more than this in a sweep.
    pub tolerance: f64,
    /// … or after this many sweeps.
    pub max_sweeps: u32,
}

/// Play (`cpu:exact`): discounted by [`DISCOUNT`], so the table's strategies win as soon and
/// lose as late as they can, and iterated until settled.
pub const PLAY: TableSettings = TableSettings {
    discount: DISCOUNT,
    tolerance: TOLERANCE,
    max_sweeps: 100_000,
};

/// The mixes whose games [`ExactTable::decisive_share`] follows after a game value: discounted
/// as in play, iterated from the game value's own values (they settle in few sweeps).
pub const PLAY_SHARE: TableSettings = TableSettings {
    discount: DISCOUNT,
    tolerance: 1e-9,
    max_sweeps: 5_000,
};

/// The game value (`solve --value`, the report's exact section, `--against`): undiscounted —
/// a win is +1 however late, as game theory (and OpenSpiel) count it — and at most 5,000
/// sweeps, after which the values reached are reported as not converged.
pub const GAME_VALUE: TableSettings = TableSettings {
    discount: 1.0,
    tolerance: TOLERANCE,
    max_sweeps: 5_000,
};

/// What to do with positions beyond a table's count (or listed after its time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PastMax {
    /// Give up ([`Stop::Size`], [`Stop::Time`]).
    Fail,
    /// Value them by the derived evaluation, as if past the bound.
    Estimate,
}

/// How far a table may reach.
pub(super) struct Limits<'c> {
    /// The bound on state values around the root's (None: every reachable position).
    pub bound: Option<i64>,
    /// Most positions.
    pub max_positions: usize,
    /// Beyond them: give up or estimate.
    pub past_max: PastMax,
    /// Listing stops at this time ([`Stop::Time`]; with [`PastMax::Estimate`] the positions
    /// not yet expanded are valued by the evaluation instead).
    pub until: Instant,
    /// Listing stops when this is set ([`Stop::Cancelled`]).
    pub cancel: Option<&'c Arc<AtomicBool>>,
}

/// A root's matrix game: its value for h, both sides' moves with their optimal mixes, and how
/// much a best reply gains against them.
pub(super) type RootGame = (
    f64,
    Vec<(Option<CmdId>, f64)>,
    Vec<(Option<CmdId>, f64)>,
    f64,
);

/// How value iteration ended.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Iterated {
    /// Sweeps made.
    pub sweeps: u32,
    /// The largest change of a value in the last sweep (below the tolerance: converged).
    pub residual: f64,
    /// The time ran out first.
    pub timed_out: bool,
    /// The values by turns left outgrew [`HISTORY_CAP`] first (see [`LimitUse::Counted`]).
    pub out_of_memory: bool,
    /// The iteration's work, the same on any machine: over all sweeps, the joint moves of every
    /// position solved (a matrix game of 4 × 4 moves counts 16, a maximum over 3 moves 3).
    pub solves: u64,
    /// The solve budget ([`ExactTable::solve_budget`]) ran out first.
    pub out_of_work: bool,
}

/// How a table took the turn limit `T` into account (LANGUAGE.md §7: reaching it ends an
/// undecided match in a draw). A position's value depends on the turns left only where play
/// from it can reach the limit undecided; the tables find out which case they are in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LimitUse {
    /// Not iterated yet.
    #[default]
    Unknown,
    /// Every line of play from the root is decided within `longest` turns, no more than the
    /// `left` turns left: the limit cannot end a game, and the values are those of the game as
    /// written.
    CannotBind {
        /// The most turns play from the root can last.
        longest: u32,
        /// Turns left at the root before the limit.
        left: u32,
    },
    /// Some line of play reaches the limit undecided: each position is valued with the turns
    /// left in it, by backward induction over the turns left (the value with k turns left
    /// from those with k − 1, a draw at 0).
    Counted {
        /// The limit `T`.
        limit: u32,
        /// Turns left at the root.
        left: u32,
        /// The most turns play from the root can last before it is decided; None when it can
        /// go on for ever (a cycle of undecided positions).
        longest: Option<u32>,
        /// From this many turns left on no value changed any more (beyond the tolerance): more
        /// turns left give the same values. None when the values still changed at the root's
        /// turns left (then the limit changes the values) or the iteration stopped first.
        settled: Option<u32>,
    },
}

impl LimitUse {
    /// In words, for the outputs that say how a value was found.
    pub fn text(&self) -> String {
        match *self {
            LimitUse::Unknown => String::new(),
            LimitUse::CannotBind { longest, left } => format!(
                "the turn limit cannot bind: every line of play is decided within {longest} turn{}, and {left} are left",
                if longest == 1 { "" } else { "s" }
            ),
            LimitUse::Counted {
                limit,
                left,
                longest,
                settled,
            } => {
                let why = match longest {
                    Some(l) => format!("play can last {l} turns"),
                    None => "play can go on for ever".to_string(),
                };
                match settled {
                    Some(k) if k < left => format!(
                        "the turn limit T{limit} counted ({why}): valued by turns left, the values settle at {k} turns left, so the {left} left change nothing"
                    ),
                    _ => format!(
                        "the turn limit T{limit} counted ({why}): every position valued with the turns left in it ({left} at the start), by backward induction"
                    ),
                }
            }
        }
    }
}

/// Values kept by turns left in [`LimitUse::Counted`] tables, at most this many changes (16
/// bytes each): past it the iteration stops and says so.
pub const HISTORY_CAP: usize = 16_000_000;

/// The values of a table whose positions are valued by turns left: per position, the layers
/// (turns left) at which its value changed, with the new value.
#[derive(Clone, Debug, Default)]
struct Horizon {
    /// Layers computed: with more turns left than this, a position has its last value.
    layers: u32,
    /// Per position, its changes' range in `changes`.
    offsets: Vec<u32>,
    /// (layer, value from that layer on), per position in layer order.
    changes: Vec<(u32, f64)>,
}

/// The value of a position past a table's bound, from the derived evaluation: within ±0.9, so
/// that no estimate is worth as much as a decided game.
fn frontier_value(s: &Searcher, st: &State) -> f64 {
    s.fast.squashed(&s.eng, st, Side::H, s.scale) / 1e9
}

/// Moves of h, moves of c, and per joint move (row-major) its outcomes with probabilities.
type Kids = (Vec<Option<CmdId>>, Vec<Option<CmdId>>, Vec<Vec<(u32, f64)>>);

/// An exact (or, past its bound, estimated) table of position values for h.
pub struct ExactTable {
    /// The positions themselves (kept only for [`best_response`]).
    states: Vec<State>,
    /// Values of decided positions and of those past the bound.
    fixed: Vec<Option<f64>>,
    /// The positions decided as draws (both sides won at once), by index.
    drawn: FxHashSet<u32>,
    index: FxHashMap<u64, u32>,
    lcm: u32,
    /// Whether the index keys include the last commands ([`table_key`]).
    with_hist: bool,
    kids: Vec<Kids>,
    value: Vec<f64>,
    simultaneous: bool,
    /// Positions in the table.
    pub positions: usize,
    /// Positions past the bound, valued by the derived evaluation (0 when the table is exact).
    pub frontier: usize,
    /// The bound on state values (distance from the root's), if one was needed.
    pub bound: Option<i64>,
    /// True when some move's chance outcomes were sampled rather than enumerated.
    pub sampled: bool,
    /// Sweeps of value iteration.
    pub sweeps: u32,
    /// How long the build took.
    pub elapsed: Duration,
    /// The expected game length from the root under both optimal strategies, if finite.
    pub root_length: Option<f64>,
    /// The program's turn limit: no game lasts longer, so a longer expectation means play that
    /// goes on to the limit.
    turn_limit: u32,
    /// The root's turn counter (the turns left at the root are `turn_limit − root_turn`).
    root_turn: u32,
    /// Values by turns left, when the limit counts ([`LimitUse::Counted`]).
    horizon: Option<Horizon>,
    /// How the turn limit was taken into account (set by [`Self::iterate`]).
    pub limit: LimitUse,
    /// The moves between the table's positions that raised a rule error (each valued as a loss
    /// for the side whose move it was).
    pub rule_errors: super::base::RuleErrors,
    /// The work an iteration may do at most, in joint moves of the positions it solves (None:
    /// no limit but its time): whether a game's value is found then does not depend on the
    /// machine.
    pub solve_budget: Option<u64>,
}

/// A table, or why there is none.
pub type Built = Result<Arc<ExactTable>, NoTable>;

/// Why no table was built.
#[derive(Clone, Debug, PartialEq)]
pub struct NoTable(pub String);

impl std::fmt::Display for NoTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl ExactTable {
    /// Builds the table for the positions reachable from `root`: exactly when they number at
    /// most `max_positions` and the build fits in `budget`; else within growing bounds on the
    /// state values while time remains.
    pub fn build(
        prog: &RuleProgram,
        root: &State,
        budget: Duration,
        max_positions: usize,
    ) -> Result<Self, NoTable> {
        Self::build_with(prog, &RunConfig::default(), root, budget, max_positions)
    }

    /// [`Self::build`] for one run of `prog` under `config` (a CPU of restricted play).
    pub fn build_with(
        prog: &RuleProgram,
        config: &RunConfig,
        root: &State,
        budget: Duration,
        max_positions: usize,
    ) -> Result<Self, NoTable> {
        let t0 = Instant::now();
        let end = t0 + budget;
        // Every position, if they can be listed in two fifths of the budget (a game whose
        // values grow without end never can: the rest of the budget goes to bounded tables);
        // once listed, solving them may take the whole budget (an exact table of every position
        // beats a bounded one, and the bounded ones would list most of them again).
        let listed = t0 + budget * 2 / 5;
        match Self::build_within(prog, config, root, None, max_positions, (listed, end), true) {
            Ok(t) => return Ok(t.finished(t0, end)),
            Err(Stop::Time) if Instant::now() >= end => {
                return Err(NoTable(format!(
                    "every position was listed but could not be solved within {:.1} s",
                    budget.as_secs_f64()
                )));
            }
            Err(_) => {}
        }
        // Too many positions: solve within a bound on the state values, the widest that fits.
        // Each doubling costs several times the last: stop when the next would not fit.
        let mut best: Option<Self> = None;
        let mut bound = 4;
        while bound <= 64 {
            let t1 = Instant::now();
            match Self::build_within(
                prog,
                config,
                root,
                Some(bound),
                max_positions,
                (end, end),
                true,
            ) {
                Ok(t) => best = Some(t),
                Err(_) => break,
            }
            if t1.elapsed() * 6 > end.saturating_duration_since(Instant::now()) {
                break;
            }
            bound *= 2;
        }
        best.map(|t| t.finished(t0, end)).ok_or_else(|| {
            NoTable(format!(
                "the positions could not be solved within {:.1} s, not even within a bound of ±4 on the state values",
                budget.as_secs_f64()
            ))
        })
    }

    fn finished(mut self, t0: Instant, end: Instant) -> Self {
        self.root_length = self.length_from(0, self.root_left(), Some(end));
        self.elapsed = t0.elapsed();
        self
    }

    /// Lists the positions reachable from `root` (within `bound` of its state values, those
    /// past it valued by the derived evaluation) and, with `solve`, values them by value
    /// iteration with [`PLAY`].
    fn build_within(
        prog: &RuleProgram,
        config: &RunConfig,
        root: &State,
        bound: Option<i64>,
        max_positions: usize,
        (end, solve_end): (Instant, Instant),
        solve: bool,
    ) -> Result<Self, Stop> {
        let limits = Limits {
            bound,
            max_positions,
            past_max: PastMax::Fail,
            until: end,
            cancel: None,
        };
        let mut table = Self::enumerate_in(
            &mut Searcher::with_config(prog, 0, config),
            root,
            &limits,
            !solve,
        )?;
        if solve {
            let it = table.iterate(&PLAY, solve_end, None)?;
            if it.timed_out {
                return Err(Stop::Time);
            }
        }
        Ok(table)
    }

    /// Every position reachable from `root` within `limits`, with its moves and each joint
    /// move's chance outcomes ([`CHANCE_LIMIT`] combinations at most enumerated, beyond that
    /// sampled and said so). Decided positions are worth +1, −1 or 0 for h, positions past the
    /// bound (or past the count, with [`PastMax::Estimate`]) [`frontier_value`]; the rest are
    /// left to [`Self::iterate`]. `keep` keeps the positions themselves whatever their number.
    pub(super) fn enumerate(
        prog: &RuleProgram,
        root: &State,
        limits: &Limits,
        keep: bool,
    ) -> Result<Self, Stop> {
        Self::enumerate_in(&mut Searcher::new(prog, 0), root, limits, keep)
    }

    /// [`Self::enumerate`] with a searcher already made for the program (the CPU's own: its
    /// evaluation and caches are reused from move to move).
    pub(super) fn enumerate_in(
        s: &mut Searcher,
        root: &State,
        limits: &Limits,
        keep: bool,
    ) -> Result<Self, Stop> {
        // The positions are listed as if the game had no limit: a position's key leaves the
        // turn counter out, so one position stands for all the turns it can be met at, and
        // [`Self::iterate`] values it by the turns left instead.
        let limit = std::mem::replace(&mut s.eng.turn_limit, u32::MAX);
        let saved = std::mem::take(&mut s.rule_errors);
        let listed = Self::enumerate_unlimited(s, root, limits, keep);
        s.eng.turn_limit = limit;
        let errors = std::mem::replace(&mut s.rule_errors, saved);
        let mut table = listed?;
        table.root_turn = root.turn;
        table.rule_errors = errors;
        Ok(table)
    }

    fn enumerate_unlimited(
        s: &mut Searcher,
        root: &State,
        limits: &Limits,
        keep: bool,
    ) -> Result<Self, Stop> {
        let simultaneous = s.eng.simultaneous;
        let bound = limits.bound;
        let inside = |st: &State| {
            bound.is_none_or(|b| {
                st.vals
                    .iter()
                    .zip(&root.vals)
                    .all(|(v, v0)| v.abs_diff(*v0) <= b.unsigned_abs())
            })
        };
        let cancelled = || limits.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
        let mut index: FxHashMap<u64, u32> = FxHashMap::default();
        let mut states: Vec<State> = vec![root.clone()];
        // Positions that differ only in the last commands are one when nothing reads them.
        let with_hist = !(simultaneous && s.eng.hl <= 1);
        index.insert(table_key(root, s.lcm, with_hist), 0);
        let mut kids: Vec<Kids> = Vec::new();
        let mut fixed: Vec<Option<f64>> = Vec::new();
        let mut drawn = FxHashSet::default();
        let mut frontier = 0;
        let mut sampled = false;
        let mut i = 0;
        let mut late = false;
        while i < states.len() {
            if i % 64 == 0 {
                if cancelled() {
                    return Err(Stop::Cancelled);
                }
                if Instant::now() >= limits.until {
                    if limits.past_max == PastMax::Fail {
                        return Err(Stop::Time);
                    }
                    late = true;
                }
            }
            let st = states[i].clone();
            let full = limits.past_max == PastMax::Estimate
                && (late || states.len() >= limits.max_positions);
            let terminal = match st.outcome {
                Some(Outcome::H) => Some(1.0),
                Some(Outcome::C) => Some(-1.0),
                Some(Outcome::Draw) => Some(0.0),
                None if !inside(&st) || full => {
                    frontier += 1;
                    Some(frontier_value(s, &st))
                }
                None => None,
            };
            if st.outcome == Some(Outcome::Draw) {
                drawn.insert(fixed.len() as u32);
            }
            fixed.push(terminal);
            if terminal.is_some() {
                kids.push((vec![], vec![], vec![]));
                i += 1;
                continue;
            }
            let (hm, cm) = if simultaneous {
                (moves(&s.eng, &st, Side::H), moves(&s.eng, &st, Side::C))
            } else if st.to_move == Side::H {
                (moves(&s.eng, &st, Side::H), vec![None])
            } else {
                (vec![None], moves(&s.eng, &st, Side::C))
            };
            let mut idx = Vec::with_capacity(hm.len() * cm.len());
            let mut cut = false;
            'joint: for &a in &hm {
                for &b in &cm {
                    // A position of very many joint moves is timed as it is listed: past the
                    // time it is not expanded (the root: no table at all).
                    if idx.len() % 256 == 255 && Instant::now() >= limits.until {
                        if limits.past_max == PastMax::Fail || i == 0 {
                            return Err(Stop::Time);
                        }
                        late = true;
                        cut = true;
                        break 'joint;
                    }
                    let outs = s.outcomes(&st, [a, b], CHANCE_LIMIT);
                    sampled |= s.sampled;
                    let mut dist = Vec::with_capacity(outs.len());
                    for (c, p) in &outs {
                        let k = table_key(c, s.lcm, with_hist);
                        let j = match index.get(&k) {
                            Some(j) => *j,
                            None => {
                                if states.len() >= limits.max_positions
                                    && limits.past_max == PastMax::Fail
                                {
                                    return Err(Stop::Size);
                                }
                                states.push(c.clone());
                                let j = (states.len() - 1) as u32;
                                index.insert(k, j);
                                j
                            }
                        };
                        dist.push((j, *p));
                    }
                    s.recycle(outs);
                    idx.push(dist);
                }
            }
            if cut {
                frontier += 1;
                fixed[i] = Some(frontier_value(s, &st));
                kids.push((vec![], vec![], vec![]));
            } else {
                kids.push((hm, cm, idx));
            }
            i += 1;
        }
        let n = states.len();
        Ok(ExactTable {
            // Kept for small tables (the balance report enumerates them), dropped for large
            // ones to save memory.
            states: if !keep && n > KEEP_POSITIONS {
                Vec::new()
            } else {
                states
            },
            value: fixed.iter().map(|f| f.unwrap_or(0.0)).collect(),
            fixed,
            drawn,
            index,
            lcm: s.lcm,
            with_hist,
            kids,
            simultaneous,
            positions: n,
            frontier,
            bound,
            sampled,
            sweeps: 0,
            elapsed: Duration::ZERO,
            root_length: None,
            turn_limit: s.eng.prog.settings.turn_limit,
            root_turn: root.turn,
            horizon: None,
            limit: LimitUse::Unknown,
            rule_errors: super::base::RuleErrors::default(),
            solve_budget: None,
        })
    }

    /// Values the table's undecided positions by value iteration with `settings`: each
    /// position's value is its matrix game's (a plain max or min in alternate play) over its
    /// children's values, times the discount. Gauss–Seidel sweeps, deepest positions first
    /// (the breadth-first order reversed), so values flow back from the ends in few sweeps; a
    /// position is solved again only when one of its successors changed since it was last
    /// solved (the same values, fewer matrix games: most of a large table settles in the first
    /// sweeps). Stops when no value changed by more than the tolerance, after the most sweeps,
    /// or at `until` (then `timed_out`, with the values reached).
    ///
    /// Where the turn limit can end play from the root undecided ([`LimitUse::Counted`]), the
    /// positions are valued by turns left instead ([`Self::iterate_layers`]).
    pub(super) fn iterate(
        &mut self,
        settings: &TableSettings,
        until: Instant,
        cancel: Option<&Arc<AtomicBool>>,
    ) -> Result<Iterated, Stop> {
        let left = self.turn_limit.saturating_sub(self.root_turn);
        let longest = self.longest_play();
        self.horizon = None;
        match longest {
            Some(l) if l <= left => {
                self.limit = LimitUse::CannotBind { longest: l, left };
                self.value = self.fixed.iter().map(|f| f.unwrap_or(0.0)).collect();
                self.iterate_stationary(settings, until, cancel)
            }
            _ => self.iterate_layers(settings, until, cancel, left, longest),
        }
    }

    /// The most turns play from the root can last before it is decided (positions past the
    /// bound count as ends), or None when it can go on for ever: some undecided position can
    /// come back. A depth-first walk over the table.
    fn longest_play(&self) -> Option<u32> {
        const OPEN: u32 = u32::MAX - 1;
        const NEW: u32 = u32::MAX;
        let n = self.kids.len();
        if n == 0 {
            return Some(0);
        }
        let mut depth = vec![NEW; n];
        // (position, joint move, outcome) of the next successor to look at.
        let mut stack: Vec<(u32, u32, u32)> = vec![(0, 0, 0)];
        depth[0] = OPEN;
        while let Some(top) = stack.last_mut() {
            let (k, a, i) = *top;
            let idx = &self.kids[k as usize].2;
            if self.fixed[k as usize].is_some() || a as usize >= idx.len() {
                let d = if self.fixed[k as usize].is_some() {
                    0
                } else {
                    // The successors' depths were folded in below as each finished.
                    idx.iter()
                        .flatten()
                        .map(|&(j, _)| depth[j as usize])
                        .max()
                        .map_or(0, |m| m.saturating_add(1))
                };
                depth[k as usize] = d;
                stack.pop();
                continue;
            }
            let outs = &idx[a as usize];
            if i as usize >= outs.len() {
                *top = (k, a + 1, 0);
                continue;
            }
            *top = (k, a, i + 1);
            let j = outs[i as usize].0 as usize;
            match depth[j] {
                OPEN => return None,
                NEW => {
                    depth[j] = OPEN;
                    stack.push((j as u32, 0, 0));
                }
                _ => {}
            }
        }
        Some(depth[0])
    }

    /// Values every position by the turns left in it: with 0 left an undecided position is a
    /// draw (0); with k left, its matrix game (a plain max or min in alternate play) over its
    /// successors' values with k − 1 left, times the discount — backward induction over the
    /// turns left, as the game is written. Each layer solves again only the positions one of
    /// whose successors changed in the last. Stops at the root's turns left, or once no value
    /// changes by the tolerance (more turns left change nothing), after the most sweeps, at
    /// `until` (then `timed_out`) or when the changes kept outgrow [`HISTORY_CAP`]. Every
    /// change is kept, so that a position met with any number of turns left is valued with
    /// them ([`Self::value`], [`Self::strategy`]).
    fn iterate_layers(
        &mut self,
        settings: &TableSettings,
        until: Instant,
        cancel: Option<&Arc<AtomicBool>>,
        left: u32,
        longest: Option<u32>,
    ) -> Result<Iterated, Stop> {
        let n = self.kids.len();
        let preds = self.predecessors();
        let mut value: Vec<f64> = self.fixed.iter().map(|f| f.unwrap_or(0.0)).collect();
        let mut dirty: Vec<u32> = (0..n as u32)
            .filter(|&k| self.fixed[k as usize].is_none())
            .collect();
        let mut changes: Vec<(u32, u32, f64)> = Vec::new();
        let mut mark = vec![0u32; n];
        let mut fresh: Vec<(u32, f64)> = Vec::new();
        let mut out = Iterated::default();
        let mut settled = None;
        let most = left.min(settings.max_sweeps);
        let cancelled = || cancel.is_some_and(|c| c.load(Ordering::Relaxed));
        while out.sweeps < most {
            if dirty.is_empty() {
                settled = Some(out.sweeps);
                out.residual = 0.0;
                break;
            }
            if cancelled() {
                return Err(Stop::Cancelled);
            }
            if out.sweeps > 0 && Instant::now() >= until {
                out.timed_out = true;
                break;
            }
            let layer = out.sweeps + 1;
            fresh.clear();
            for (i, &k) in dirty.iter().enumerate() {
                if i % 256 == 255 && out.sweeps > 0 && Instant::now() >= until {
                    out.timed_out = true;
                    break;
                }
                if self.solve_budget.is_some_and(|b| out.solves >= b) {
                    out.out_of_work = true;
                    break;
                }
                out.solves += self.cells(k as usize);
                let v = settings.discount * self.value_at(&value, k as usize);
                fresh.push((k, v));
            }
            if out.timed_out || out.out_of_work {
                break;
            }
            let mut delta: f64 = 0.0;
            let mut next = Vec::new();
            for &(k, v) in &fresh {
                let d = (v - value[k as usize]).abs();
                // A change far below the tolerance is neither kept nor passed on.
                if d > settings.tolerance * 1e-3 {
                    delta = delta.max(d);
                    value[k as usize] = v;
                    changes.push((k, layer, v));
                    for &p in &preds[k as usize] {
                        if mark[p as usize] != layer {
                            mark[p as usize] = layer;
                            next.push(p);
                        }
                    }
                }
            }
            out.sweeps = layer;
            out.residual = delta;
            dirty = next;
            if delta < settings.tolerance {
                settled = Some(layer);
                break;
            }
            if changes.len() > HISTORY_CAP {
                out.out_of_memory = true;
                break;
            }
        }
        if out.sweeps >= left && !out.timed_out && !out.out_of_memory && !out.out_of_work {
            // Every layer up to the root's turns left: exact for the game as written.
            out.residual = 0.0;
        }
        changes.sort_by_key(|c| c.0);
        let mut offsets = vec![0u32; n + 1];
        for c in &changes {
            offsets[c.0 as usize + 1] += 1;
        }
        for k in 0..n {
            offsets[k + 1] += offsets[k];
        }
        self.horizon = Some(Horizon {
            layers: out.sweeps,
            offsets,
            changes: changes.into_iter().map(|(_, l, v)| (l, v)).collect(),
        });
        self.limit = LimitUse::Counted {
            limit: self.turn_limit,
            left,
            longest,
            settled,
        };
        self.sweeps = out.sweeps;
        self.value = value;
        Ok(out)
    }

    /// Position `k`'s value with `left` turns left (its last value in a table not valued by
    /// turns left, or with more turns left than were computed).
    fn value_left(&self, k: usize, left: u32) -> f64 {
        let Some(h) = &self.horizon else {
            return self.value[k];
        };
        if left >= h.layers {
            return self.value[k];
        }
        let ch = &h.changes[h.offsets[k] as usize..h.offsets[k + 1] as usize];
        let at = ch.partition_point(|&(l, _)| l <= left);
        if at == 0 {
            self.fixed[k].unwrap_or(0.0)
        } else {
            ch[at - 1].1
        }
    }

    /// Whether `st` is in the table with no more turns left than it was valued for (a table
    /// valued by turns left from a later root does not know the values with more).
    pub fn covers(&self, st: &State) -> bool {
        self.index.contains_key(&self.key(st))
            && match (&self.horizon, self.limit) {
                (
                    Some(_),
                    LimitUse::Counted {
                        settled: None,
                        left,
                        ..
                    },
                ) => self.left_in(st) <= left,
                _ => true,
            }
    }

    /// The turns left before the limit at the root.
    fn root_left(&self) -> u32 {
        self.turn_limit.saturating_sub(self.root_turn)
    }

    /// The turns left before the limit in `st`.
    fn left_in(&self, st: &State) -> u32 {
        self.turn_limit.saturating_sub(st.turn)
    }

    /// The values of every position with `left` turns left, for the matrix games of positions
    /// with one more: the table's own values when they do not depend on the turns left.
    fn values_left(&self, left: u32) -> std::borrow::Cow<'_, [f64]> {
        match &self.horizon {
            Some(h) if left < h.layers => (0..self.kids.len())
                .map(|k| self.value_left(k, left))
                .collect(),
            _ => std::borrow::Cow::Borrowed(&self.value),
        }
    }

    /// The stationary values iterated Gauss–Seidel ([`Self::iterate`] where the limit cannot
    /// bind).
    fn iterate_stationary(
        &mut self,
        settings: &TableSettings,
        until: Instant,
        cancel: Option<&Arc<AtomicBool>>,
    ) -> Result<Iterated, Stop> {
        let n = self.kids.len();
        let mut value = std::mem::take(&mut self.value);
        let preds = self.predecessors();
        // The positions to solve in this sweep (a max-heap: deepest, i.e. highest index, first)
        // and in the next. A position is solved again in a sweep when a successor changed
        // since it was last solved: every predecessor of a position that changed is solved in
        // the next sweep, and those the sweep has not reached yet (lower indexes) in this one
        // too — the positions a scan of the whole table would pick, in the same order, without
        // scanning it (a sweep of the fencing duel's 63,672 positions looked at every one of
        // their 1.6 million successors to solve a few hundred).
        let mut heap: std::collections::BinaryHeap<u32> = (0..n as u32)
            .filter(|&k| self.fixed[k as usize].is_none())
            .collect();
        let mut next: Vec<u32> = Vec::new();
        // The sweep each position was last queued for: the first sweep queues every one.
        let mut in_heap = vec![1u32; n];
        let mut in_next = vec![0u32; n];
        let mut out = Iterated::default();
        let cancelled = || cancel.is_some_and(|c| c.load(Ordering::Relaxed));
        'sweeps: loop {
            if cancelled() {
                self.value = value;
                return Err(Stop::Cancelled);
            }
            if out.sweeps > 0 && Instant::now() >= until {
                out.timed_out = true;
                break;
            }
            out.sweeps += 1;
            let sweep = out.sweeps;
            if sweep > 1 {
                heap.extend(next.drain(..).inspect(|&k| in_heap[k as usize] = sweep));
            }
            let mut delta: f64 = 0.0;
            let mut solved = 0u64;
            while let Some(k) = heap.pop() {
                let k = k as usize;
                if solved % 256 == 255 && Instant::now() >= until {
                    out.timed_out = true;
                    out.residual = out.residual.max(delta);
                    break 'sweeps;
                }
                if self.solve_budget.is_some_and(|b| out.solves >= b) {
                    out.out_of_work = true;
                    out.residual = out.residual.max(delta);
                    break 'sweeps;
                }
                solved += 1;
                out.solves += self.cells(k);
                let nv = settings.discount * self.value_at(&value, k);
                let d = (nv - value[k]).abs();
                delta = delta.max(d);
                value[k] = nv;
                // A change far below the tolerance is not passed on.
                if d > settings.tolerance * 1e-3 {
                    for &p in &preds[k] {
                        let pu = p as usize;
                        if in_next[pu] != sweep + 1 {
                            in_next[pu] = sweep + 1;
                            next.push(p);
                        }
                        if pu < k && in_heap[pu] != sweep {
                            in_heap[pu] = sweep;
                            heap.push(p);
                        }
                    }
                }
            }
            out.residual = delta;
            if delta < settings.tolerance || out.sweeps >= settings.max_sweeps {
                break;
            }
        }
        self.sweeps = out.sweeps;
        self.value = value;
        Ok(out)
    }

    /// Per position, the undecided positions that have it among their successors (each
    /// once).
    fn predecessors(&self) -> Vec<Vec<u32>> {
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); self.kids.len()];
        for (k, (_, _, idx)) in self.kids.iter().enumerate() {
            if self.fixed[k].is_some() {
                continue;
            }
            for &(j, _) in idx.iter().flatten() {
                let pj = &mut preds[j as usize];
                if pj.last() != Some(&(k as u32)) {
                    pj.push(k as u32);
                }
            }
        }
        preds
    }

    /// The joint moves at position `k` (at least 1): the work of solving it, for
    /// [`Iterated::solves`].
    fn cells(&self, k: usize) -> u64 {
        let (hm, cm, _) = &self.kids[k];
        (hm.len() * cm.len()).max(1) as u64
    }

    /// The value for h of the matrix game at position `k` under values `v` (as
    /// [`Self::solve_at`]), without solving it when it has a saddle point — a pure strategy
    /// for each side, which most positions of a large table have.
    fn value_at(&self, v: &[f64], k: usize) -> f64 {
        let (hm, cm, _) = &self.kids[k];
        matrix::saddle_value(hm.len(), cm.len(), |a, b| self.payoff(v, k, a, b))
            .unwrap_or_else(|| self.solve_at(v, k).0)
    }

    /// h's expected value under `v` of the joint move (h's `a`, c's `b`) at position `k`.
    fn payoff(&self, v: &[f64], k: usize, a: usize, b: usize) -> f64 {
        let (_, cm, idx) = &self.kids[k];
        idx[a * cm.len() + b]
            .iter()
            .map(|&(j, p)| p * v[j as usize])
            .sum()
    }

    /// The matrix game at position `k` under values `v`: its value for h, and (for the
    /// simultaneous case) both sides' optimal mixes.
    fn solve_at(&self, v: &[f64], k: usize) -> (f64, Vec<f64>, Vec<f64>) {
        let (hm, cm, _) = &self.kids[k];
        let payoff = |a: usize, b: usize| self.payoff(v, k, a, b);
        if hm.len() == 1 || cm.len() == 1 {
            // One side has a single move (alternate play, or a forced move): a plain max or min.
            let vals: Vec<f64> = if cm.len() == 1 {
                (0..hm.len()).map(|a| payoff(a, 0)).collect()
            } else {
                (0..cm.len()).map(|b| payoff(0, b)).collect()
            };
            let best = if cm.len() == 1 {
                vals.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            } else {
                vals.iter().copied().fold(f64::INFINITY, f64::min)
            };
            let pure = |len: usize| {
                let mut p = vec![0.0; len];
                if let Some(i) = vals.iter().position(|x| (x - best).abs() <= 1e-12) {
                    p[i] = 1.0;
                }
                p
            };
            return if cm.len() == 1 {
                (best, pure(hm.len()), vec![1.0])
            } else {
                (best, vec![1.0], pure(cm.len()))
            };
        }
        let a: Vec<Vec<f64>> = (0..hm.len())
            .map(|x| (0..cm.len()).map(|y| payoff(x, y)).collect())
            .collect();
        let sol = matrix::solve(&a);
        (sol.value, sol.rows, sol.cols)
    }

    /// The root's matrix game under the table's values: its value for h, both sides' moves with
    /// their optimal mixes, and how much a best reply gains against those mixes.
    pub(super) fn root_game(&self) -> RootGame {
        let (hm, cm, _) = &self.kids[0];
        if self.fixed[0].is_some() || hm.is_empty() {
            return (self.value[0], vec![], vec![], 0.0);
        }
        let v = self.values_left(
            self.turn_limit
                .saturating_sub(self.root_turn)
                .saturating_sub(1),
        );
        let a: Vec<Vec<f64>> = (0..hm.len())
            .map(|x| (0..cm.len()).map(|y| self.payoff(&v, 0, x, y)).collect())
            .collect();
        let sol = matrix::solve(&a);
        (
            sol.value,
            hm.iter().copied().zip(sol.rows.iter().copied()).collect(),
            cm.iter().copied().zip(sol.cols.iter().copied()).collect(),
            matrix::exploitability(&a, &sol),
        )
    }

    /// The key of `st` in this table's index.
    fn key(&self, st: &State) -> u64 {
        table_key(st, self.lcm, self.with_hist)
    }

    /// h's value of `st` (+1 a sure win now, −1 a sure loss, discounted by the turns to it), if
    /// the position is in the table.
    pub fn value(&self, st: &State) -> Option<f64> {
        let k = *self.index.get(&self.key(st))?;
        Some(self.value_left(k as usize, self.left_in(st)))
    }

    /// `side`'s optimal strategy in `st`: its moves with their probabilities (in alternate play
    /// every best move, equally likely; a win sooner is better). None if `st` is not in the
    /// table.
    pub fn strategy(&self, st: &State, side: Side) -> Option<Vec<(Option<CmdId>, f64)>> {
        let k = *self.index.get(&self.key(st))? as usize;
        let (hm, cm, idx) = &self.kids[k];
        if hm.is_empty() {
            return None; // decided or past the bound
        }
        let mine = if side == Side::H { hm } else { cm };
        // The successors are met with one turn fewer left.
        let v = self.values_left(self.left_in(st).saturating_sub(1));
        if self.simultaneous && hm.len() > 1 && cm.len() > 1 {
            // Each side's mix is read as the row player's of its own matrix (c's: the game
            // transposed and negated). Read off one solution, h's and c's mixes come from
            // different ends of the simplex — the primal and the dual —, which pick different
            // optimal mixes when there are several: against a side that errs, h's then
            // punished mistakes more than c's (fencing, the CPU against itself with one
            // reading mistake in ten moves: h 59% in a symmetric game).
            let p = match side {
                Side::H => self.solve_at(&v, k).1,
                Side::C => {
                    let a: Vec<Vec<f64>> = (0..cm.len())
                        .map(|y| (0..hm.len()).map(|x| -self.payoff(&v, k, x, y)).collect())
                        .collect();
                    matrix::solve(&a).rows
                }
            };
            return Some(mine.iter().copied().zip(p).collect());
        }
        if mine.len() == 1 {
            return Some(vec![(mine[0], 1.0)]);
        }
        // Every move of the best value for `side`, equally likely.
        let sign = side.sign();
        let vals: Vec<f64> = (0..mine.len())
            .map(|m| {
                // One side has a single move, so the joint move's index is the other's.
                sign * idx[m].iter().map(|&(j, p)| p * v[j as usize]).sum::<f64>()
            })
            .collect();
        let best = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let tied = vals.iter().filter(|v| best - **v <= 1e-12).count() as f64;
        Some(
            mine.iter()
                .zip(&vals)
                .map(|(m, v)| (*m, if best - *v <= 1e-12 { 1.0 / tied } else { 0.0 }))
                .collect(),
        )
    }

    /// The expected number of turns until the game ends from `st` when both sides play the
    /// table's optimal strategies (positions past the bound count as ends); None if `st` is not
    /// in the table or the expectation does not settle (play that can go on for ever).
    pub fn expected_length(&self, st: &State) -> Option<f64> {
        self.length_from(
            *self.index.get(&self.key(st))? as usize,
            self.left_in(st),
            None,
        )
    }

    /// [`Self::expected_length`] from the start, giving up (None) at `until`.
    pub fn expected_length_at_start(&self, until: Instant) -> Option<f64> {
        self.length_from(0, self.root_left(), Some(until))
    }

    /// The expected length from position `root` by value iteration; None when it exceeds the
    /// turn limit (optimal play goes on until the limit ends it) or `deadline` passes first.
    ///
    /// Where the limit counts ([`LimitUse::Counted`]) a game ends at it: the length is iterated
    /// over the turns left (`left` at `root`), each position's strategies those of its last
    /// values.
    fn length_from(&self, root: usize, left: u32, deadline: Option<Instant>) -> Option<f64> {
        let n = self.kids.len();
        // Per position: the probability of each child under both optimal strategies.
        let flows: Vec<Vec<(u32, f64)>> = (0..n)
            .map(|k| {
                let (hm, cm, idx) = &self.kids[k];
                if hm.is_empty() {
                    return Vec::new();
                }
                let (_, rows, cols) = self.solve_at(&self.value, k);
                let mut out: Vec<(u32, f64)> = Vec::new();
                for (a, pa) in rows.iter().enumerate() {
                    for (b, pb) in cols.iter().enumerate() {
                        let w = pa * pb;
                        if w <= 0.0 {
                            continue;
                        }
                        for &(j, p) in &idx[a * cm.len() + b] {
                            out.push((j, w * p));
                        }
                    }
                }
                out
            })
            .collect();
        let mut len = vec![0.0f64; n];
        if matches!(self.limit, LimitUse::Counted { .. }) {
            for _ in 0..left {
                let prev = len.clone();
                let mut delta: f64 = 0.0;
                for k in 0..n {
                    if flows[k].is_empty() {
                        continue;
                    }
                    let nv = 1.0
                        + flows[k]
                            .iter()
                            .map(|&(j, p)| p * prev[j as usize])
                            .sum::<f64>();
                    delta = delta.max((nv - len[k]).abs());
                    len[k] = nv;
                }
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return None;
                }
                if delta < 1e-9 {
                    break;
                }
            }
            return Some(len[root]);
        }
        for _ in 0..100_000 {
            let mut delta: f64 = 0.0;
            for k in (0..n).rev() {
                if flows[k].is_empty() {
                    continue;
                }
                let nv = 1.0
                    + flows[k]
                        .iter()
                        .map(|&(j, p)| p * len[j as usize])
                        .sum::<f64>();
                delta = delta.max((nv - len[k]).abs());
                len[k] = nv;
            }
            if len[root] > f64::from(self.turn_limit).min(1e7)
                || deadline.is_some_and(|d| Instant::now() >= d)
            {
                return None;
            }
            if delta < 1e-9 {
                return Some(len[root]);
            }
        }
        None
    }

    /// The probability that play from the root ends with a winner when both sides follow the
    /// table's optimal mixes at every position: a draw, or play that never ends, is the rest.
    /// Positions past the bound count as ending with a winner (they are estimates). Iterated
    /// until it settles to 1e-9, for at most 10,000 sweeps or until `until`.
    pub fn decisive_share(&self, until: Instant) -> f64 {
        self.decisive_and_used(until).0
    }

    /// [`Self::decisive_share`], and each side's moves that its optimal mix plays with a
    /// positive probability in some position (solved, not decided, not past the bound): the
    /// moves good play uses somewhere. A command missing from them is never worth playing.
    pub fn decisive_and_used(&self, until: Instant) -> (f64, [Vec<Option<CmdId>>; 2]) {
        let n = self.kids.len();
        let mut used: [Vec<Option<CmdId>>; 2] = [Vec::new(), Vec::new()];
        // Each position's joint moves with their probabilities under the optimal mixes.
        let joint: Vec<Vec<(usize, f64)>> = (0..n)
            .map(|k| {
                let (hm, cm, _) = &self.kids[k];
                if self.fixed[k].is_some() || hm.is_empty() {
                    return Vec::new();
                }
                let (_, rows, cols) = self.solve_at(&self.value, k);
                for (side, moves, mix) in [(0, hm, &rows), (1, cm, &cols)] {
                    for (m, &p) in moves.iter().zip(mix.iter()) {
                        if p > 1e-6 && !used[side].contains(m) {
                            used[side].push(*m);
                        }
                    }
                }
                let mut out = Vec::new();
                for (a, x) in rows.iter().enumerate() {
                    for (b, y) in cols.iter().enumerate() {
                        if x * y > 0.0 {
                            out.push((a * cm.len() + b, x * y));
                        }
                    }
                }
                out
            })
            .collect();
        let mut p: Vec<f64> = self
            .fixed
            .iter()
            .enumerate()
            .map(|(k, f)| {
                if f.is_some() && !self.drawn.contains(&(k as u32)) {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        // Where the limit counts, a game still undecided at it has no winner: the share is
        // iterated over the turns left (from none), not to a fixed point.
        let layers = match self.limit {
            LimitUse::Counted { left, .. } => Some(left),
            _ => None,
        };
        for sweep in 0..layers.unwrap_or(10_000) {
            let prev = layers.map(|_| p.clone());
            let mut delta: f64 = 0.0;
            for k in (0..n).rev() {
                if joint[k].is_empty() {
                    continue;
                }
                let idx = &self.kids[k].2;
                let nv: f64 = {
                    let from: &[f64] = prev.as_deref().unwrap_or(&p);
                    joint[k]
                        .iter()
                        .map(|&(c, w)| {
                            w * idx[c]
                                .iter()
                                .map(|&(j, q)| q * from[j as usize])
                                .sum::<f64>()
                        })
                        .sum()
                };
                delta = delta.max((nv - p[k]).abs());
                p[k] = nv;
            }
            if delta < 1e-9 || (sweep % 64 == 63 && Instant::now() >= until) {
                break;
            }
        }
        (p.first().copied().unwrap_or(0.0), used)
    }

    /// How much a best reply gains against the table's strategies at `st` (in the discounted
    /// matrix game of that position; 0 for an exact solution).
    pub fn exploitability(&self, st: &State) -> Option<f64> {
        let k = *self.index.get(&self.key(st))? as usize;
        let (hm, cm, _) = &self.kids[k];
        if hm.is_empty() {
            return Some(0.0);
        }
        let v = self.values_left(self.left_in(st).saturating_sub(1));
        let a: Vec<Vec<f64>> = (0..hm.len())
            .map(|x| (0..cm.len()).map(|y| self.payoff(&v, k, x, y)).collect())
            .collect();
        let (value, rows, cols) = self.solve_at(&v, k);
        Some(matrix::exploitability(
            &a,
            &matrix::MatrixSolution { value, rows, cols },
        ))
    }

    /// Every position reachable from the root, when the table holds them all (no bound was
    /// needed and chance was enumerated); the root first.
    pub fn all_positions(&self) -> Option<&[State]> {
        (self.bound.is_none() && self.is_exact() && self.states.len() == self.positions)
            .then_some(self.states.as_slice())
    }

    /// True when every position's value is exact (no bound was needed and chance was
    /// enumerated).
    pub fn is_exact(&self) -> bool {
        self.frontier == 0 && !self.sampled
    }

    /// A one-line description, e.g. for the CLI and the studio.
    pub fn describe(&self) -> String {
        self.describe_timed(true)
    }

    /// [`describe`](Self::describe) without the time the build took, for output that must
    /// depend on the seed only (the balance report).
    pub fn describe_untimed(&self) -> String {
        self.describe_timed(false)
    }

    fn describe_timed(&self, timed: bool) -> String {
        let mut s = if timed {
            format!(
                "{} positions solved in {:.2} s ({} sweeps)",
                self.positions,
                self.elapsed.as_secs_f64(),
                self.sweeps
            )
        } else {
            format!(
                "{} positions solved ({} sweeps)",
                self.positions, self.sweeps
            )
        };
        if let Some(b) = self.bound {
            s.push_str(&format!(
                "; exact within ±{b} of the starting values, {} positions beyond valued by the derived evaluation",
                self.frontier
            ));
        }
        if self.sampled {
            s.push_str("; some chance outcomes sampled");
        }
        if let Some(l) = self.root_length {
            s.push_str(&format!("; optimal play lasts {l:.1} turns on average"));
        }
        let limit = self.limit.text();
        if !limit.is_empty() {
            s.push_str("; ");
            s.push_str(&limit);
        }
        if let Some(e) = self.rule_errors.text("moves between its positions") {
            s.push_str("; ");
            s.push_str(&e);
        }
        s
    }
}

/// Exact tables (and failures) of recent programs and roots, shared by the players that hold
/// the same cache: a handle, cloned to share. A CPU uses [`TableCache::process`] unless it is
/// given another ([`super::CpuPlayer::set_tables`]), so both sides of a match and every worker
/// of an arena use one build; a caller that must not meet another's tables makes its own.
#[derive(Clone, Default)]
pub struct TableCache(Arc<Mutex<Vec<(TableKey, Built)>>>);

/// A cached table's key: the program's behaviour and bans, hashed, and the root position's key.
type TableKey = (u64, u64);

impl std::fmt::Debug for TableCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().map_or(0, |c| c.len());
        write!(f, "TableCache({n} tables)")
    }
}

/// Tables a cache keeps, the newest: a fifth build drops the oldest.
const CACHED_TABLES: usize = 4;

impl TableCache {
    /// The process's cache, the one a CPU uses unless given another.
    pub fn process() -> &'static TableCache {
        static PROCESS: std::sync::LazyLock<TableCache> =
            std::sync::LazyLock::new(TableCache::default);
        &PROCESS
    }

    /// [`ExactTable::build`] under `config`, or the table (or failure) this cache holds for
    /// the same program and position. Concurrent callers wait for one build.
    pub fn get(
        &self,
        prog: &RuleProgram,
        config: &RunConfig,
        root: &State,
        budget: Duration,
        max_positions: usize,
    ) -> Built {
        // The program by what its rules do, not by its text, and the run's banned commands.
        let mut h = FxHasher::default();
        prog.behaviour_hash().hash(&mut h);
        config.banned.hash(&mut h); // the learned evaluation plays no part in an exact table
        let key = (h.finish(), position_key(root, lcm_of(&prog.periods())));
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, t)) = cache
            .iter()
            .find(|(k, t)| *k == key && t.as_ref().map_or(true, |t| t.covers(root)))
        {
            return t.clone();
        }
        // A table of the same program built from another root may hold this position already
        // (a side that moves second meets a different first position in each game).
        if let Some((_, t)) = cache.iter().find(|(k, t)| {
            k.0 == key.0
                && t.as_ref().is_ok_and(|t| {
                    t.covers(root)
                        && t.index
                            .get(&t.key(root))
                            .is_some_and(|&j| t.fixed[j as usize].is_none())
                })
        }) {
            return t.clone();
        }
        let t = ExactTable::build_with(prog, config, root, budget, max_positions).map(Arc::new);
        // Said once per build, on standard error (the command line's players have no other
        // voice).
        match &t {
            Ok(t) => eprintln!("cpu:exact: {}", t.describe()),
            Err(e) => eprintln!("cpu:exact: no exact table ({e}); playing by search"),
        }
        if cache.len() >= CACHED_TABLES {
            drop(cache.remove(0));
        }
        cache.push((key, t.clone()));
        t
    }
}

/// Positions [`game_table`] lists without a bound before it bounds the state values instead,
/// and the time it gives that attempt.
pub const UNBOUNDED_POSITIONS: usize = 20_000;
const UNBOUNDED_TIME: Duration = Duration::from_secs(1);

/// The table behind a game value (`solve --value`, `--against`, the report's exact section):
/// every position reachable from `root` when there are at most [`UNBOUNDED_POSITIONS`] (listed
/// within a second), else those within `bound` of the root's state values, at most
/// `max_positions` of them — positions past the bound or the count valued by the derived
/// evaluation. Not yet iterated; `keep` keeps the positions.
pub(super) fn game_table(
    prog: &RuleProgram,
    root: &State,
    bound: i64,
    max_positions: usize,
    cancel: Option<&Arc<AtomicBool>>,
    keep: bool,
) -> Result<ExactTable, Stop> {
    let all = Limits {
        bound: None,
        max_positions: UNBOUNDED_POSITIONS.min(max_positions),
        past_max: PastMax::Fail,
        until: Instant::now() + UNBOUNDED_TIME,
        cancel,
    };
    match ExactTable::enumerate(prog, root, &all, keep) {
        Err(Stop::Size | Stop::Time) => {
            let bounded = Limits {
                bound: Some(bound),
                max_positions,
                past_max: PastMax::Estimate,
                until: Instant::now() + Duration::from_secs(24 * 3600),
                cancel,
            };
            ExactTable::enumerate(prog, root, &bounded, keep)
        }
        other => other,
    }
}

/// A player's choice in a position: its moves with their probabilities.
pub type Policy<'a> = dyn FnMut(&State) -> Vec<(Option<CmdId>, f64)> + 'a;

/// Questions a best reply may put to the player per (position, turns left) where the limit
/// counts: 25,000 (a search answers one in about 0.5 ms on Oshi-Zumo).
const ASKED_BY_TURN: u64 = 25_000;

/// What a best reply gains against a fixed player (`kumite solve --value --against`).
#[derive(Clone, Debug)]
pub struct BestResponse {
    /// h's value (+1 win, −1 loss, 0 draw or endless) when h replies best to the player's c.
    pub value: f64,
    /// Positions solved.
    pub positions: usize,
    /// Positions past the bound, valued by the derived evaluation.
    pub frontier: usize,
    /// Sweeps of value iteration (with a turn limit that counts: turns left valued).
    pub sweeps: u32,
    /// How the turn limit was taken into account.
    pub limit: LimitUse,
    /// Where the limit counts, the player was asked in each position with each number of
    /// turns left up to this many, and with more assumed to play as with this many (0: the
    /// limit does not count; equal to the turns left: asked with every number).
    pub asked_turns_left: u32,
}

/// The value for h of the best reply to `policy` playing c, over every position reachable from
/// `root` when there are at most 20,000, else over those with state values within `bound` of
/// the root's (positions beyond are valued by the derived evaluation). `policy` gives c's
/// moves with their probabilities in a position where c chooses. The reply is chosen
/// discounted by [`DISCOUNT`] and scored undiscounted: a win is +1 however late; a game
/// without end is worth 0.
pub fn best_response(
    prog: &RuleProgram,
    root: &State,
    bound: i64,
    max_positions: usize,
    budget: Duration,
    policy: &mut Policy,
) -> Result<BestResponse, NoTable> {
    let end = Instant::now() + budget;
    let too_big = || {
        NoTable(format!(
            "the positions within ±{bound} could not be enumerated within {:.0} s and {max_positions} positions",
            budget.as_secs_f64()
        ))
    };
    // The same positions as `solve --value`'s game value, so the two compare.
    let t = game_table(prog, root, bound, max_positions, None, true).map_err(|_| too_big())?;
    let n = t.kids.len();
    // c's mix over its moves in every position where it chooses.
    // c's mix in position k met at turn `turn` (None: as first met).
    let mut mix_at = |k: usize, turn: Option<u32>| -> Vec<f64> {
        let (hm, cm, _) = &t.kids[k];
        if hm.is_empty() || (cm.len() == 1 && cm[0].is_none() && !t.simultaneous) {
            return vec![1.0; cm.len()];
        }
        let chosen = match turn {
            Some(turn) if turn != t.states[k].turn => {
                let mut st = t.states[k].clone();
                st.turn = turn;
                policy(&st)
            }
            _ => policy(&t.states[k]),
        };
        let mut q: Vec<f64> = cm
            .iter()
            .map(|m| chosen.iter().filter(|(c, _)| c == m).map(|(_, p)| p).sum())
            .collect();
        let total: f64 = q.iter().sum();
        if total > 0.0 {
            q.iter_mut().for_each(|x| *x /= total);
        } else {
            // A move outside the list (or none): counted as the first move.
            q[0] = 1.0;
        }
        q
    };
    // h's value of replying `a` in position k against c's `mix`, under values `v`.
    let row_with = |mix: &[f64], v: &[f64], k: usize, a: usize| -> f64 {
        let (_, cm, idx) = &t.kids[k];
        (0..cm.len())
            .map(|b| {
                mix[b]
                    * idx[a * cm.len() + b]
                        .iter()
                        .map(|&(j, p)| p * v[j as usize])
                        .sum::<f64>()
            })
            .sum()
    };
    let undecided = |k: usize| t.fixed[k].is_none() && !t.kids[k].0.is_empty();
    let left = t.turn_limit.saturating_sub(t.root_turn);
    let longest = t.longest_play();
    if longest.is_none_or(|l| l > left) {
        // c is asked in each position with each number of turns left (a player may play by
        // them, as `cpu:exact` and the search near the limit do) for the last `asked` turns,
        // as many as [`ASKED_BY_TURN`] questions allow; further from the limit it is taken
        // to play as with `asked` turns left (a table such as `cpu:exact`'s settles a few
        // dozen turns from the limit, and so does a search's horizon).
        let undecided_n = (0..n).filter(|&k| undecided(k)).count().max(1) as u64;
        let asked = (ASKED_BY_TURN / undecided_n).clamp(1, u64::from(left.max(1))) as u32;
        // Asked at the root first, with its turns left: a player that builds a table of its
        // own (`cpu:exact`) builds it from there, for every turn to come.
        mix_at(0, Some(t.states[0].turn));
        // The limit can end play: h's best reply with k turns left, from those with k − 1 (a
        // draw at 0) — the game as written, where waiting for the limit is a real choice.
        let mut v: Vec<f64> = t.fixed.iter().map(|f| f.unwrap_or(0.0)).collect();
        let mut far: Vec<Vec<f64>> = Vec::new();
        let mut sweeps = 0;
        let mut settled = None;
        while sweeps < left {
            if Instant::now() >= end {
                return Err(too_big());
            }
            sweeps += 1;
            let prev = v.clone();
            let mut delta: f64 = 0.0;
            // This layer's positions are met with `sweeps` turns left.
            let turn = t.turn_limit - sweeps;
            for k in 0..n {
                if undecided(k) {
                    let mix = if sweeps <= asked {
                        let m = mix_at(k, Some(turn));
                        if sweeps == asked {
                            far.resize(n, Vec::new());
                            far[k] = m.clone();
                        }
                        m
                    } else {
                        far[k].clone()
                    };
                    let nv = (0..t.kids[k].0.len())
                        .map(|a| row_with(&mix, &prev, k, a))
                        .fold(f64::NEG_INFINITY, f64::max);
                    delta = delta.max((nv - v[k]).abs());
                    v[k] = nv;
                }
            }
            // Settled once the player's answers no longer change with the turns left.
            if delta < 1e-13 && sweeps > asked {
                settled = Some(sweeps);
                break;
            }
        }
        return Ok(BestResponse {
            value: v[0],
            positions: n,
            frontier: t.frontier,
            sweeps,
            asked_turns_left: asked,
            limit: LimitUse::Counted {
                limit: t.turn_limit,
                left,
                longest,
                settled,
            },
        });
    }
    let mix: Vec<Vec<f64>> = (0..n).map(|k| mix_at(k, None)).collect();
    let row = |v: &[f64], k: usize, a: usize| row_with(&mix[k], v, k, a);
    // 1. The reply: value iteration discounted as in play ([`DISCOUNT`]). Undiscounted value
    //    iteration from 0 would credit a reply that waits in a loop (both sides passing) and
    //    strikes only when a cut-off turns the player's slow win into a draw — a horizon the
    //    positions here do not have (they hold no turn count, and a game without end is a
    //    draw); discounted, waiting gains nothing.
    let mut v: Vec<f64> = t.fixed.iter().map(|f| f.unwrap_or(0.0)).collect();
    let mut reply = vec![0usize; n];
    let mut sweeps = 0;
    loop {
        if Instant::now() >= end {
            return Err(too_big());
        }
        sweeps += 1;
        let mut delta: f64 = 0.0;
        for k in (0..n).rev() {
            if !undecided(k) {
                continue;
            }
            let (a, nv) = (0..t.kids[k].0.len())
                .map(|a| (a, DISCOUNT * row(&v, k, a)))
                .fold((0, f64::NEG_INFINITY), |b, x| {
                    if x.1 > b.1 + 1e-12 { x } else { b }
                });
            reply[k] = a;
            delta = delta.max((nv - v[k]).abs());
            v[k] = nv;
        }
        if delta < 1e-10 || sweeps >= 100_000 {
            break;
        }
    }
    // 2. What that reply gets, undiscounted: a win is +1 however late; a loop the two fixed
    //    players never leave stays at 0, a draw.
    let mut v: Vec<f64> = t.fixed.iter().map(|f| f.unwrap_or(0.0)).collect();
    for _ in 0..100_000 {
        if Instant::now() >= end {
            return Err(too_big());
        }
        sweeps += 1;
        let mut delta: f64 = 0.0;
        for k in (0..n).rev() {
            if undecided(k) {
                let nv = row(&v, k, reply[k]);
                delta = delta.max((nv - v[k]).abs());
                v[k] = nv;
            }
        }
        if delta < 1e-10 {
            break;
        }
    }
    Ok(BestResponse {
        value: v[0],
        positions: n,
        frontier: t.frontier,
        sweeps,
        asked_turns_left: 0,
        limit: LimitUse::CannotBind {
            longest: longest.unwrap_or(0),
            left,
        },
    })
}

/// Why a table was not built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// More positions than allowed.
    Size,
    /// Out of time.
    Time,
    /// Cancelled.
    Cancelled,
}
