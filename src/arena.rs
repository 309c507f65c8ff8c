//! Many games between two players, for statistics: `kumite arena` and `kumite merge`.
//!
//! Each worker thread owns one engine, one position and its two players and reuses them for
//! every game it plays (a game only reseeds them); a game's result goes straight into the
//! worker's counts, so nothing is allocated per move or per game. Game `i` always has the same
//! seed, so a run can be cut into shards (`--shard I/N`, a contiguous slice of the games) on
//! other machines, and the shards' JSON results add up ([`ArenaStats::merge`]) to exactly the
//! counts of the whole run.

use crate::engine::players::{GameEnd, MatchOptions, Player, RandomPlayer, SearchWork, play_game};
use crate::engine::{Engine, GameResult, Side, State};
use crate::players::{PlayerSpec, SpecError, ready_player};
use crate::program::{CmdId, RuleProgram, RunConfig};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Most games a worker plays between two looks at the shared work queue (random play runs a
/// million games a second, so a look per game would cost more than the game).
const BLOCK: u64 = 1024;

/// Blocks per worker thread at least, when the run has games enough: a run of a few hundred
/// CPU games (a thousandth of a second each) must still be shared among the threads — with
/// blocks of 1,024 it was one block, played by one thread.
const BLOCKS_PER_THREAD: u64 = 16;

/// Forfeit messages kept in a result (those of the lowest game numbers).
const EXAMPLES: usize = 5;

/// The seed of game `i` of a run with `seed`. The run's seed is mixed before the game number
/// is added, so runs with nearby seeds share no games (with `seed + i`, `--seed 0` and
/// `--seed 5` played the same games but five).
pub fn game_seed(seed: u64, i: u64) -> u64 {
    use crate::engine::rng::mix;
    mix(mix(seed).wrapping_add(i.wrapping_mul(0x2545_F491_4F6C_DD1D)))
}

/// A slice of a run: shard `index` of `count` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which slice, 0 ≤ index < count.
    pub index: u64,
    /// How many slices.
    pub count: u64,
}

impl Shard {
    /// Parses `I/N` (0 ≤ I < N).
    pub fn parse(s: &str) -> Result<Self, ShardError> {
        let bad = || ShardError(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u64 = i.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Self { index, count })
    }

    /// The games of this shard out of `games`: a contiguous slice; the shards of a run are
    /// disjoint and cover it.
    pub fn range(&self, games: u64) -> Range<u64> {
        let at = |k: u64| (games as u128 * k as u128 / self.count as u128) as u64;
        at(self.index)..at(self.index + 1)
    }
}

/// Counts over games, added up in place and mergeable across workers and shards.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ArenaStats {
    /// Games played.
    pub games: u64,
    /// Games h won.
    pub h_wins: u64,
    /// Games c won.
    pub c_wins: u64,
    /// Draws (the turn limit included).
    pub draws: u64,
    /// Games ended by a runtime error.
    pub errors: u64,
    /// Games decided by a forfeit (counted as a win for the other side too).
    pub forfeits: u64,
    /// Per side (h, c): games that side forfeited before it had chosen a move.
    #[serde(default)]
    pub silent_forfeits: [u64; 2],
    /// Turns over all games.
    pub turns_total: u64,
    /// `lengths[t]`: games that lasted `t` turns.
    #[serde(skip)]
    pub lengths: Vec<u64>,
    /// (game, message) of the first forfeits, by game number.
    #[serde(skip)]
    pub forfeit_examples: Vec<(u64, String)>,
    /// Per side, the search work of a player that searches (the CPU): moves, nodes, seconds.
    #[serde(skip)]
    pub search: [Option<SearchWork>; 2],
}

impl ArenaStats {
    /// Adds game `game`'s end.
    #[inline]
    pub fn record(&mut self, game: u64, end: &GameEnd) {
        self.games += 1;
        match end.result {
            GameResult::H => self.h_wins += 1,
            GameResult::C => self.c_wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::Error => self.errors += 1,
        }
        self.turns_total += u64::from(end.turns);
        let t = end.turns as usize;
        if t >= self.lengths.len() {
            self.lengths.resize(t + 1, 0);
        }
        self.lengths[t] += 1;
        if let Some((side, e)) = &end.forfeit {
            self.forfeits += 1;
            if !end.moved[side.index()] {
                self.silent_forfeits[side.index()] += 1;
            }
            let msg = format!("{} forfeits: {}", side.name(), e.message);
            self.add_examples(&[(game, msg)]);
        }
    }

    fn add_examples(&mut self, more: &[(u64, String)]) {
        self.forfeit_examples.extend_from_slice(more);
        self.forfeit_examples.sort_by_key(|e| e.0);
        self.forfeit_examples.truncate(EXAMPLES);
    }

    /// Adds another set of counts (another worker's, another shard's).
    pub fn merge(&mut self, o: &ArenaStats) {
        self.games += o.games;
        self.h_wins += o.h_wins;
        self.c_wins += o.c_wins;
        self.draws += o.draws;
        self.errors += o.errors;
        self.forfeits += o.forfeits;
        for (a, b) in self.silent_forfeits.iter_mut().zip(o.silent_forfeits) {
            *a += b;
        }
        self.turns_total += o.turns_total;
        if o.lengths.len() > self.lengths.len() {
            self.lengths.resize(o.lengths.len(), 0);
        }
        for (a, b) in self.lengths.iter_mut().zip(&o.lengths) {
            *a += b;
        }
        self.add_examples(&o.forfeit_examples);
        for (a, b) in self.search.iter_mut().zip(&o.search) {
            if let Some(b) = b {
                a.get_or_insert_default().add(b);
            }
        }
    }

    /// The sides that never played a move: every game (at least one) ended with that side's
    /// forfeit before its first choice — an AI that cannot start, or fails at once.
    pub fn never_moved(&self) -> Vec<Side> {
        Side::BOTH
            .into_iter()
            .filter(|s| self.games > 0 && self.silent_forfeits[s.index()] == self.games)
            .collect()
    }

    /// Mean game length in turns.
    pub fn mean_turns(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.turns_total as f64 / self.games as f64
        }
    }

    /// The length at quantile `q` (0..=1) of the games, in turns.
    pub fn quantile(&self, q: f64) -> u32 {
        if self.games == 0 {
            return 0;
        }
        let want = ((q * self.games as f64).ceil() as u64).clamp(1, self.games);
        let mut seen = 0;
        for (t, &n) in self.lengths.iter().enumerate() {
            seen += n;
            if seen >= want {
                return t as u32;
            }
        }
        self.lengths.len().saturating_sub(1) as u32
    }

    /// The histogram as `[[turns, games], …]` (nonzero entries only).
    pub fn histogram(&self) -> Vec<[u64; 2]> {
        self.lengths
            .iter()
            .enumerate()
            .filter(|x| *x.1 > 0)
            .map(|(t, &n)| [t as u64, n])
            .collect()
    }
}

/// What to run.
pub struct ArenaRun<'a> {
    /// The program.
    pub prog: &'a RuleProgram,
    /// What the run varies (the learned evaluation a `cpu:trained` player values by).
    pub config: &'a RunConfig,
    /// Rule file name (told to players, written in the result).
    pub rules_name: String,
    /// h's player spec.
    pub h: String,
    /// c's player spec.
    pub c: String,
    /// Games in the whole run.
    pub games: u64,
    /// The run's seed.
    pub seed: u64,
    /// Who moves first (alternate mode).
    pub first: Side,
    /// Seconds an external AI may take per decision.
    pub ai_timeout: f64,
    /// The slice to play (None: all).
    pub shard: Option<Shard>,
    /// Worker threads (None: one per core). External AIs always play one game at a time.
    pub jobs: Option<usize>,
}

impl ArenaRun<'_> {
    /// h's and c's player specs, read.
    pub fn specs(&self) -> Result<[PlayerSpec; 2], SpecError> {
        Ok([
            PlayerSpec::parse(self.prog, self.config, &self.h)?,
            PlayerSpec::parse(self.prog, self.config, &self.c)?,
        ])
    }
}

/// One worker's engine, position, players and scratch, reused for every game it plays.
struct Worker<'p> {
    eng: Engine<'p>,
    st: State,
    players: [Box<dyn Player + Send + 'p>; 2],
    /// Both sides are `random`: played through these, statically dispatched (the same draws).
    randoms: Option<[RandomPlayer; 2]>,
    /// The players' specs, read once.
    specs: [PlayerSpec; 2],
    enabled: Vec<CmdId>,
    opts: MatchOptions,
}

impl<'p> Worker<'p> {
    fn new(run: &ArenaRun<'p>) -> Result<Self, SpecError> {
        let specs = run.specs()?;
        Ok(Self {
            eng: Engine::with_config(run.prog, 0, run.config),
            st: State::default(),
            players: [
                specs[0].player(run.prog, run.config, 0, Side::H, run.ai_timeout)?,
                specs[1].player(run.prog, run.config, 0, Side::C, run.ai_timeout)?,
            ],
            randoms: (specs == [PlayerSpec::Random, PlayerSpec::Random])
                .then(|| [RandomPlayer::new(0), RandomPlayer::new(0)]),
            specs,
            enabled: Vec::new(),
            opts: MatchOptions {
                seed: 0,
                first: run.first,
                trace: false,
                max_turns: None,
                rules_name: run.rules_name.clone(),
                game: 0,
                lean: false,
            },
        })
    }

    /// Plays game `i` of `run` into `stats`.
    fn play(&mut self, run: &ArenaRun<'p>, i: u64, stats: &mut ArenaStats) {
        let seed = game_seed(run.seed, i);
        self.opts.seed = seed;
        self.opts.game = i;
        self.eng.seed = seed;
        if let Some([a, b]) = &mut self.randoms {
            a.reseed(PlayerSpec::Random.seed(seed, Side::H));
            b.reseed(PlayerSpec::Random.seed(seed, Side::C));
            let end = play_game(
                &self.eng,
                &mut self.st,
                &mut [a, b],
                &self.opts,
                &mut self.enabled,
                |_, _, _, _, _| {},
            );
            stats.record(i, &end);
            return;
        }
        for (side, spec) in self.specs.iter().enumerate() {
            if let Err(e) = ready_player(
                &mut self.players[side],
                run.prog,
                run.config,
                spec,
                seed,
                Side::from_index(side),
                run.ai_timeout,
            ) {
                // Checked when the run began; should a player still fail, the game is an error.
                stats.record(
                    i,
                    &GameEnd {
                        result: GameResult::Error,
                        turns: 0,
                        error: Some(e.to_string()),
                        forfeit: None,
                        moved: [false; 2],
                    },
                );
                return;
            }
        }
        let [a, b] = &mut self.players;
        let mut ps: [&mut dyn Player; 2] = [a.as_mut(), b.as_mut()];
        let end = play_game(
            &self.eng,
            &mut self.st,
            &mut ps,
            &self.opts,
            &mut self.enabled,
            |_, _, _, _, _| {},
        );
        stats.record(i, &end);
        for (side, p) in self.players.iter_mut().enumerate() {
            if let Some(w) = p.take_search_work() {
                stats.search[side].get_or_insert_default().add(&w);
            }
        }
    }
}

/// Plays the run's games (its shard's, if any) and returns their counts.
pub fn run(run: &ArenaRun) -> Result<ArenaStats, ArenaError> {
    let range = run.shard.map_or(0..run.games, |s| s.range(run.games));
    if run.specs()?.iter().any(PlayerSpec::is_ai) {
        // One process per AI for the whole run: games one after another.
        let mut w = Worker::new(run)?;
        let mut stats = ArenaStats::default();
        for i in range {
            w.play(run, i, &mut stats);
        }
        return Ok(stats);
    }
    // Fail early, with the player's message, rather than once per worker.
    Worker::new(run)?;
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(run.jobs.unwrap_or(0))
        .build()
        .map_err(|e| ArenaError::Threads(e.to_string()))?;
    let games = range.end - range.start;
    let block = games
        .div_ceil(pool.current_num_threads() as u64 * BLOCKS_PER_THREAD)
        .clamp(1, BLOCK);
    let blocks = games.div_ceil(block);
    let stats = pool.install(|| {
        (0..blocks)
            .into_par_iter()
            .map_init(
                || Worker::new(run),
                |w, b| {
                    let mut stats = ArenaStats::default();
                    let lo = range.start + b * block;
                    let hi = (lo + block).min(range.end);
                    if let Ok(w) = w {
                        for i in lo..hi {
                            w.play(run, i, &mut stats);
                        }
                    }
                    stats
                },
            )
            .reduce(ArenaStats::default, |mut a, b| {
                a.merge(&b);
                a
            })
    });
    Ok(stats)
}

/// A run's result as JSON: the counts and everything needed to merge shards.
pub fn result_json(run: &ArenaRun, stats: &ArenaStats, seconds: f64) -> serde_json::Value {
    let range = run.shard.map_or(0..run.games, |s| s.range(run.games));
    result_json_of(
        &Meta {
            rules: run.rules_name.clone(),
            h: run.h.clone(),
            c: run.c.clone(),
            seed: run.seed,
            total_games: run.games,
            first: run.first,
            ranges: vec![[range.start, range.end]],
        },
        stats,
        seconds,
    )
}

/// What identifies a run, for merging.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    /// Rule file name.
    pub rules: String,
    /// h's player spec.
    pub h: String,
    /// c's player spec.
    pub c: String,
    /// The run's seed.
    pub seed: u64,
    /// Games in the whole run.
    pub total_games: u64,
    /// Who moved first.
    pub first: Side,
    /// The game ranges covered, `[start, end)`.
    pub ranges: Vec<[u64; 2]>,
}

fn result_json_of(m: &Meta, s: &ArenaStats, seconds: f64) -> serde_json::Value {
    serde_json::json!({
        "kind": "kumite-arena",
        "rules": m.rules,
        "players": {"h": m.h, "c": m.c},
        "seed": m.seed,
        "first": m.first.name(),
        "total_games": m.total_games,
        "game_ranges": m.ranges,
        "games": s.games,
        "h_wins": s.h_wins,
        "c_wins": s.c_wins,
        "draws": s.draws,
        "errors": s.errors,
        "forfeits": s.forfeits,
        "silent_forfeits": {"h": s.silent_forfeits[0], "c": s.silent_forfeits[1]},
        "turns_total": s.turns_total,
        "mean_turns": s.mean_turns(),
        "median_turns": s.quantile(0.5),
        "p90_turns": s.quantile(0.9),
        "length_histogram": s.histogram(),
        "forfeit_examples": s.forfeit_examples.iter()
            .map(|(g, m)| serde_json::json!({"game": g, "message": m}))
            .collect::<Vec<_>>(),
        "seconds": seconds,
        "games_per_second": s.games as f64 / seconds.max(1e-9),
        "search": {"h": search_json(&s.search[0]), "c": search_json(&s.search[1])},
    })
}

/// A side's search work as JSON (null for a player that does not search).
fn search_json(w: &Option<SearchWork>) -> serde_json::Value {
    match w {
        Some(w) => serde_json::json!({
            "moves": w.moves,
            "nodes": w.nodes,
            "seconds": w.seconds,
            "nodes_per_second": w.nodes_per_second(),
        }),
        None => serde_json::Value::Null,
    }
}

/// Why an arena cannot run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ArenaError {
    /// A player spec makes no player.
    #[error(transparent)]
    Player(#[from] SpecError),
    /// The worker threads could not be started.
    #[error("cannot start worker threads: {0}")]
    Threads(String),
}

/// A `--shard` value that is not `I/N` with 0 ≤ I < N.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--shard takes I/N with 0 ≤ I < N, e.g. 0/4, not '{0}'")]
pub struct ShardError(pub String);

/// Why a file is not a readable arena result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResultError {
    /// Not `kind: "kumite-arena"`.
    #[error("not a result of `kumite arena --format json`")]
    NotArena,
    /// A count is missing or not a whole number.
    #[error("the field \"{0}\" is missing or not a whole number")]
    NotANumber(String),
    /// A text field is missing.
    #[error("the field \"{0}\" is missing")]
    Missing(String),
    /// A list field is missing or malformed.
    #[error("the field \"{0}\" is missing or malformed")]
    Malformed(&'static str),
    /// An impossible game length.
    #[error("a game length of {0} turns in \"length_histogram\" is out of range")]
    LengthOutOfRange(u64),
    /// The histogram and the game count disagree.
    #[error("\"length_histogram\" does not add up to \"games\"")]
    HistogramSum,
    /// A field disagrees with the others (what, and why).
    #[error("the field \"{0}\" {1}")]
    Inconsistent(&'static str, String),
}

/// Why results cannot be merged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// One file is not a readable result.
    #[error("{file}: {error}")]
    InFile {
        /// The file.
        file: String,
        /// What is wrong with it.
        error: ResultError,
    },
    /// A file belongs to another run.
    #[error("{file}: its {what} ({this}) differs from the first file's ({first})")]
    Differs {
        /// The file.
        file: String,
        /// What differs: rule file, players, seed, total games, first mover.
        what: &'static str,
        /// Its value.
        this: String,
        /// The first file's value.
        first: String,
    },
    /// Two files hold the same games.
    #[error(
        "{file}: games {}..{} overlap games {}..{} of an earlier file (the same shard twice?)",
        games[0], games[1], earlier[0], earlier[1]
    )]
    Overlap {
        /// The file.
        file: String,
        /// Its games.
        games: [u64; 2],
        /// The earlier file's games they overlap.
        earlier: [u64; 2],
    },
    /// No files.
    #[error("no results to merge")]
    Nothing,
}

/// Reads one result written by `kumite arena --format json` (or `kumite merge`).
pub fn parse_result(v: &serde_json::Value) -> Result<(Meta, ArenaStats, f64), ResultError> {
    if v["kind"] != "kumite-arena" {
        return Err(ResultError::NotArena);
    }
    let num = |k: &str| {
        v[k].as_u64()
            .ok_or_else(|| ResultError::NotANumber(k.to_string()))
    };
    let text = |k: &serde_json::Value, name: &'static str| {
        let t = k
            .as_str()
            .ok_or_else(|| ResultError::Missing(name.to_string()))?;
        no_controls(name, t)?;
        Ok::<String, ResultError>(t.to_string())
    };
    let ranges: Vec<[u64; 2]> = serde_json::from_value(v["game_ranges"].clone())
        .map_err(|_| ResultError::Malformed("game_ranges"))?;
    let meta = Meta {
        rules: text(&v["rules"], "rules")?,
        h: text(&v["players"]["h"], "players.h")?,
        c: text(&v["players"]["c"], "players.c")?,
        seed: num("seed")?,
        total_games: num("total_games")?,
        first: Side::from_index(usize::from(v["first"] == "c")),
        ranges,
    };
    let mut stats = ArenaStats {
        games: num("games")?,
        h_wins: num("h_wins")?,
        c_wins: num("c_wins")?,
        draws: num("draws")?,
        errors: num("errors")?,
        forfeits: num("forfeits")?,
        // Optional: results written before it was reported have none.
        silent_forfeits: [&v["silent_forfeits"]["h"], &v["silent_forfeits"]["c"]]
            .map(|n| n.as_u64().unwrap_or(0)),
        turns_total: num("turns_total")?,
        lengths: Vec::new(),
        forfeit_examples: Vec::new(),
        // Optional: results written before it was reported have none.
        search: [&v["search"]["h"], &v["search"]["c"]].map(|w| {
            Some(SearchWork {
                moves: w["moves"].as_u64()?,
                nodes: w["nodes"].as_u64()?,
                seconds: w["seconds"].as_f64()?,
            })
        }),
    };
    let hist: Vec<[u64; 2]> = serde_json::from_value(v["length_histogram"].clone())
        .map_err(|_| ResultError::Malformed("length_histogram"))?;
    let overflow =
        || ResultError::Inconsistent("length_histogram", "overflows a 64-bit count".into());
    let mut turns: u64 = 0;
    let mut counted: u64 = 0;
    for [t, n] in hist {
        let at = usize::try_from(t)
            .ok()
            .filter(|&t| t <= 100_000_000)
            .ok_or(ResultError::LengthOutOfRange(t))?;
        if at >= stats.lengths.len() {
            stats.lengths.resize(at + 1, 0);
        }
        stats.lengths[at] = stats.lengths[at].checked_add(n).ok_or_else(overflow)?;
        counted = counted.checked_add(n).ok_or_else(overflow)?;
        turns = t
            .checked_mul(n)
            .and_then(|x| turns.checked_add(x))
            .ok_or_else(overflow)?;
    }
    if counted != stats.games {
        return Err(ResultError::HistogramSum);
    }
    check_counts(&meta, &stats, turns)?;
    if let Some(ex) = v["forfeit_examples"].as_array() {
        for e in ex {
            if let (Some(g), Some(m)) = (e["game"].as_u64(), e["message"].as_str()) {
                no_controls("forfeit_examples", m)?;
                stats.forfeit_examples.push((g, m.to_string()));
            }
        }
    }
    let seconds = match &v["seconds"] {
        serde_json::Value::Null => 0.0,
        x => x
            .as_f64()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .ok_or_else(|| {
                ResultError::Inconsistent("seconds", format!("is {x}, not a time in seconds"))
            })?,
    };
    for (w, side) in stats.search.iter().zip(["h", "c"]) {
        if let Some(w) = w
            && !(w.seconds.is_finite() && w.seconds >= 0.0)
        {
            return Err(ResultError::Inconsistent(
                "search",
                format!("gives {side} {} seconds", w.seconds),
            ));
        }
    }
    Ok((meta, stats, seconds))
}

/// Refuses text with control characters (a result's strings are printed to a terminal).
fn no_controls(field: &'static str, t: &str) -> Result<(), ResultError> {
    if let Some(c) = t.chars().find(|c| c.is_control()) {
        return Err(ResultError::Inconsistent(
            field,
            format!("holds the control character U+{:04X}", c as u32),
        ));
    }
    Ok(())
}

/// A shard's counts must agree with each other, with its game ranges and with its histogram
/// (`turns`: the turns the histogram adds up to).
fn check_counts(m: &Meta, s: &ArenaStats, turns: u64) -> Result<(), ResultError> {
    let bad = |f: &'static str, why: String| Err(ResultError::Inconsistent(f, why));
    let outcomes = [s.h_wins, s.c_wins, s.draws, s.errors]
        .into_iter()
        .try_fold(0u64, u64::checked_add);
    if outcomes != Some(s.games) {
        return bad(
            "games",
            format!(
                "is {}, but h_wins {} + c_wins {} + draws {} + errors {} is not",
                s.games, s.h_wins, s.c_wins, s.draws, s.errors
            ),
        );
    }
    if s.forfeits > s.games {
        return bad(
            "forfeits",
            format!("{} exceeds the {} games", s.forfeits, s.games),
        );
    }
    if s.silent_forfeits
        .iter()
        .try_fold(0u64, |a, &b| a.checked_add(b))
        .is_none_or(|n| n > s.forfeits)
    {
        return bad(
            "silent_forfeits",
            format!("{:?} exceed the {} forfeits", s.silent_forfeits, s.forfeits),
        );
    }
    if s.turns_total != turns {
        return bad(
            "turns_total",
            format!(
                "is {}, but length_histogram adds up to {turns} turns",
                s.turns_total
            ),
        );
    }
    let mut covered: u64 = 0;
    let mut sorted = m.ranges.clone();
    sorted.sort();
    for (k, r) in sorted.iter().enumerate() {
        if r[0] >= r[1] || r[1] > m.total_games {
            return bad(
                "game_ranges",
                format!(
                    "holds [{}, {}], not a range of games within the run's {}",
                    r[0], r[1], m.total_games
                ),
            );
        }
        if k > 0 && sorted[k - 1][1] > r[0] {
            return bad("game_ranges", format!("overlap at game {}", r[0]));
        }
        covered += r[1] - r[0];
    }
    if covered != s.games {
        return bad(
            "game_ranges",
            format!("cover {covered} games, but \"games\" is {}", s.games),
        );
    }
    Ok(())
}

/// Adds up results of the same run (shards): they must agree on the rules, players, seed,
/// total games and first mover, and cover disjoint games. Returns the merged JSON.
pub fn merge(results: &[(String, serde_json::Value)]) -> Result<serde_json::Value, MergeError> {
    let mut acc: Option<(Meta, ArenaStats, f64)> = None;
    for (name, v) in results {
        let (m, s, secs) = parse_result(v).map_err(|error| MergeError::InFile {
            file: name.clone(),
            error,
        })?;
        match &mut acc {
            None => acc = Some((m, s, secs)),
            Some((am, as_, asecs)) => {
                let differ =
                    |what: &'static str, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
                        MergeError::Differs {
                            file: name.clone(),
                            what,
                            this: format!("{b:?}"),
                            first: format!("{a:?}"),
                        }
                    };
                let file_name = |r: &str| {
                    std::path::Path::new(r)
                        .file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                };
                if file_name(&m.rules) != file_name(&am.rules) {
                    return Err(differ("rule file", &am.rules, &m.rules));
                }
                if (&m.h, &m.c) != (&am.h, &am.c) {
                    return Err(differ("players", &(&am.h, &am.c), &(&m.h, &m.c)));
                }
                if m.seed != am.seed {
                    return Err(differ("seed", &am.seed, &m.seed));
                }
                if m.total_games != am.total_games {
                    return Err(differ("total games", &am.total_games, &m.total_games));
                }
                if m.first != am.first {
                    return Err(differ("first mover", &am.first, &m.first));
                }
                for r in &m.ranges {
                    if let Some(o) = am.ranges.iter().find(|o| r[0] < o[1] && o[0] < r[1]) {
                        return Err(MergeError::Overlap {
                            file: name.clone(),
                            games: *r,
                            earlier: *o,
                        });
                    }
                }
                am.ranges.extend_from_slice(&m.ranges);
                // Each shard is consistent, so no count exceeds its games or turns.
                if as_.games.checked_add(s.games).is_none()
                    || as_.turns_total.checked_add(s.turns_total).is_none()
                {
                    return Err(MergeError::InFile {
                        file: name.clone(),
                        error: ResultError::Inconsistent(
                            "games",
                            "added to the others overflows a 64-bit count".into(),
                        ),
                    });
                }
                as_.merge(&s);
                *asecs += secs;
            }
        }
    }
    let Some((mut m, s, secs)) = acc else {
        return Err(MergeError::Nothing);
    };
    m.ranges.sort();
    // Adjacent ranges join, so a complete set of shards reads as one run.
    let mut joined: Vec<[u64; 2]> = Vec::new();
    for r in m.ranges {
        match joined.last_mut() {
            Some(l) if l[1] == r[0] => l[1] = r[1],
            _ => joined.push(r),
        }
    }
    m.ranges = joined;
    Ok(result_json_of(&m, &s, secs))
}
