//! The balance report (`kumite report`, the studio's Report tab): what the rules *do* over many
//! games — outcome and first-mover advantage, length, decisions, which rules fire, which
//! commands matter, whether skill matters, tension, and sweeps of a starting value — each figure
//! labelled exact or sampled. The README's "Balance report" section defines every measure.
//!
//! A report is computed section by section; after each one the caller gets the report so far
//! (the studio fills its tab in as results arrive). Every figure depends on the seed only, not
//! on the number of worker threads.

pub mod compare;
pub mod games;
pub mod reach;
mod sections;
pub mod suggest;
pub mod sweep;
pub mod text;

use crate::analysis::VictoryGraph;
use crate::engine::Side;
use crate::program::RuleProgram;
use games::{End, GameRec, GameSet, distinct_games, play_set, varied};
pub use sections::run;
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
pub use sweep::{MAX_SWEEP_POINTS, Sweep, SweepError, SweepTarget, set_constant, sweep_at};

/// Games done, games planned, and a cancel flag, shared with whoever watches a report.
#[derive(Debug, Default)]
pub struct Progress {
    /// Games played so far.
    pub done: AtomicU64,
    /// Games planned in all.
    pub total: AtomicU64,
    /// Set to stop the report (games in progress end at once).
    pub cancel: AtomicBool,
    /// The same flag as an `Arc`, handed to CPU players so their searches stop too.
    pub cancel_flag: Arc<AtomicBool>,
    /// The games so far that a rule error or a failing player ended.
    pub problems: std::sync::Mutex<GameProblems>,
    /// A time cap (`kumite suggest --seconds`): past it the work stops as if cancelled, and
    /// [`Self::past_cap`] says why.
    pub cap: std::sync::Mutex<Option<std::time::Instant>>,
}

/// The games of a report that a rule error ended, or that a player lost by failing (an
/// external AI that crashed, went silent or answered out of turn): every figure computed from
/// such games says less than it seems, so the report leads with them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GameProblems {
    /// Games played in all (every section; filled in from [`Progress::done`]).
    pub games: u64,
    /// Games ended by a rule error.
    pub rule_error_games: u64,
    /// The first: the error (its line and message), the players and the turn.
    pub first_rule_error: Option<String>,
    /// Games lost by a player's failure.
    pub forfeit_games: u64,
    /// The first: who failed, how, and the turn.
    pub first_forfeit: Option<String>,
    /// Per player spec: games it played, and games it forfeited before its first choice.
    #[serde(skip)]
    pub seats: std::collections::BTreeMap<String, [u64; 2]>,
    /// The external players that never played a move: every game they played (at least one)
    /// they forfeited before their first choice.
    pub never_moved: Vec<String>,
}

impl GameProblems {
    /// The players that never played a move, from `seats`.
    fn silent_players(&self) -> Vec<String> {
        self.seats
            .iter()
            .filter(|(_, [games, silent])| *games > 0 && silent == games)
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// Counts one game of `players` (h's, c's) that ended as `end` says.
    pub fn note(&mut self, players: [&str; 2], end: &crate::engine::players::GameEnd) {
        if let Some(e) = &end.error {
            self.rule_error_games += 1;
            self.first_rule_error.get_or_insert_with(|| {
                format!("{e} (turn {}, {} vs {})", end.turns, players[0], players[1])
            });
        }
        if let Some((side, why)) = &end.forfeit {
            self.forfeit_games += 1;
            self.first_forfeit.get_or_insert_with(|| {
                format!(
                    "{} ({}) failed on turn {}: {}",
                    side.name(),
                    players[side.index()],
                    end.turns + 1,
                    why.message
                )
            });
        }
        // External programs: which of them ever played a move.
        for side in Side::BOTH {
            let spec = players[side.index()];
            if crate::players::is_ai(spec) {
                let seat = self.seats.entry(spec.to_string()).or_default();
                seat[0] += 1;
                if !end.moved[side.index()] && end.forfeit.as_ref().is_some_and(|(s, _)| *s == side)
                {
                    seat[1] += 1;
                }
                self.never_moved = self.silent_players();
            }
        }
    }
}

/// Whether the games a rule error ended decide a figure: more than one in twenty of its games
/// (a score over the rest could then be off by more than the 5 points that the report's
/// verdicts are sized to see). Such a figure is not printed.
pub fn errors_decide(errors: u64, games: u64) -> bool {
    errors > 0 && errors * 20 > games
}

impl Progress {
    /// A new progress record.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }
    /// Asks the report to stop.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
        self.cancel_flag.store(true, Ordering::Relaxed);
    }
    /// True once cancelled, or past the time cap.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed) || self.past_cap()
    }
    /// Sets a time cap: past it the work stops as if cancelled.
    pub fn set_cap(&self, at: std::time::Instant) {
        *self.cap.lock().unwrap_or_else(|e| e.into_inner()) = Some(at);
    }
    /// True once the time cap has passed (and not cancelled by a person).
    pub fn past_cap(&self) -> bool {
        self.cap
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some_and(|c| std::time::Instant::now() >= c)
    }
}

/// Why a report cannot be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReportError {
    /// The games cannot be played (a player spec, the worker threads).
    #[error(transparent)]
    Games(#[from] crate::arena::ArenaError),
    /// The sweep cannot be run.
    #[error(transparent)]
    Sweep(#[from] SweepError),
}

/// An unknown `--sections` item.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "--sections: unknown section '{0}' (expected outcome, length, tension, decisions, rules, exact, restricted, skill or sweep)"
)]
pub struct SectionError(pub String);

/// A `--players` value that is not two player specs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "--players takes two player specs separated by a comma (e.g. cpu,random or cpu:S5,ai:'python3 my.py'), not '{0}'"
)]
pub struct PlayersError(pub String);

/// Which sections to compute (`--sections`): all by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sections {
    /// Outcome, length and tension (the outcome players' games).
    pub outcome: bool,
    /// Decisions or rules (the random games).
    pub sample: bool,
    /// Of the random games' sections: decisions shown.
    pub decisions: bool,
    /// Of the random games' sections: rules shown.
    pub rules: bool,
    /// The solver on the start.
    pub exact: bool,
    /// Restricted play (plays the outcome games too, as its baseline).
    pub restricted: bool,
    /// The skill round robin.
    pub skill: bool,
}

impl Default for Sections {
    fn default() -> Self {
        Self {
            outcome: true,
            sample: true,
            decisions: true,
            rules: true,
            exact: true,
            restricted: true,
            skill: true,
        }
    }
}

impl Sections {
    /// Parses a comma-separated list of outcome, length, tension, decisions, rules, exact,
    /// restricted, skill (a sweep runs whenever one is asked for).
    pub fn parse(s: &str) -> Result<Self, SectionError> {
        let mut x = Self {
            outcome: false,
            sample: false,
            decisions: false,
            rules: false,
            exact: false,
            restricted: false,
            skill: false,
        };
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            match item {
                "outcome" | "length" | "tension" => x.outcome = true,
                "decisions" => (x.sample, x.decisions) = (true, true),
                "rules" => (x.sample, x.rules) = (true, true),
                "exact" => x.exact = true,
                "restricted" => x.restricted = true,
                "skill" => x.skill = true,
                "sweep" => {}
                _ => {
                    return Err(SectionError(item.to_string()));
                }
            }
        }
        Ok(x)
    }
}

/// What to compute.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// Games per seating for the outcome (CPU games); the other sections scale from it.
    pub games: u64,
    /// The seed every game derives from.
    pub seed: u64,
    /// Players for the outcome, length, tension, restricted play and sweeps (default: the
    /// file's CPU on both sides).
    pub players: Option<[String; 2]>,
    /// Players for rules and decisions (default random vs random; `--players` sets both).
    pub sample_players: Option<[String; 2]>,
    /// A value to sweep.
    pub sweep: Option<Sweep>,
    /// Worker threads (None: one per core).
    pub jobs: Option<usize>,
    /// Time allowed to build an exact table of the start.
    pub exact_budget: Duration,
    /// The sections to compute.
    pub sections: Sections,
    /// Seconds an external AI may take per decision.
    pub ai_timeout: f64,
    /// The run's config: the learned evaluation a `cpu:trained` player values by (restricted
    /// play adds its bans to it).
    pub config: crate::program::RunConfig,
}

/// The report's seed when none is given (`--seed`).
pub const DEFAULT_SEED: u64 = 1;

impl Default for ReportOptions {
    fn default() -> Self {
        Self {
            games: DEFAULT_GAMES,
            seed: DEFAULT_SEED,
            players: None,
            sample_players: None,
            sweep: None,
            jobs: None,
            exact_budget: Duration::from_secs(2),
            sections: Sections::default(),
            ai_timeout: games::AI_TIMEOUT,
            config: crate::program::RunConfig::default(),
        }
    }
}

/// The difference in score (10 points) the skill verdict is sized to see.
pub const SKILL_POINTS: f64 = 0.10;

/// Default `--games`: CPU games per seating.
pub const DEFAULT_GAMES: u64 = 200;
/// Random games for rules and decisions, per outcome game.
pub const SAMPLE_FACTOR: u64 = 10;
/// The CPU levels of the skill round robin.
pub const SKILL_LEVELS: [&str; 4] = ["random", "cpu:S1", "cpu:S3", "cpu:S5"];

/// Counts of outcomes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Outcomes {
    /// Games h won.
    pub h_wins: u64,
    /// Games c won.
    pub c_wins: u64,
    /// Draws by the rules.
    pub draws: u64,
    /// Games stopped by the turn limit.
    pub timeouts: u64,
    /// Games ended by a rule error (left out of the score).
    pub errors: u64,
    /// Games won because the other side's player failed (counted in the wins).
    pub forfeits: u64,
}

impl Outcomes {
    fn of(recs: &[GameRec]) -> Self {
        let mut o = Self::default();
        for r in recs {
            match r.end {
                End::H => o.h_wins += 1,
                End::C => o.c_wins += 1,
                End::Draw => o.draws += 1,
                End::Timeout => o.timeouts += 1,
                End::Error => o.errors += 1,
            }
            o.forfeits += u64::from(r.forfeit);
        }
        o
    }
    /// Games that count in the score: those not ended by a rule error.
    pub fn scored(&self) -> u64 {
        self.games() - self.errors
    }
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.h_wins + self.c_wins + self.draws + self.timeouts + self.errors
    }
    /// `side`'s score: its wins plus half the draws and timeouts, over the games that no rule
    /// error ended.
    pub fn score(&self, side: Side) -> f64 {
        let w = if side == Side::H {
            self.h_wins
        } else {
            self.c_wins
        };
        (w as f64 + 0.5 * (self.draws + self.timeouts) as f64) / self.scored().max(1) as f64
    }
}

/// A rate with its 95% Wilson interval — or none, when every game of the sample was the same
/// game (the players and the rules were deterministic: one game repeated is one observation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Rate {
    /// The estimate.
    pub value: f64,
    /// Lower end of the 95% interval (None: one game repeated, no interval).
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
}

impl Rate {
    /// The rate moved by `d` (an interval moves with it).
    pub fn shifted(self, d: f64) -> Rate {
        Rate {
            value: self.value + d,
            low: self.low.map(|x| x + d),
            high: self.high.map(|x| x + d),
        }
    }
}

/// The 95% Wilson score interval of a proportion `p` observed over `n` trials.
pub fn wilson(p: f64, n: u64) -> Rate {
    let (low, high) = wilson_bounds(p, n);
    Rate {
        value: p,
        low: Some(low),
        high: Some(high),
    }
}

/// The ends of the 95% Wilson score interval of a proportion `p` over `n` trials.
pub fn wilson_bounds(p: f64, n: u64) -> (f64, f64) {
    wilson_bounds_z(p, n, 1.959_963_984_540_054)
}

/// The Wilson interval of `p` over `n` games for the normal quantile `z` (1.96: 95%).
pub fn wilson_bounds_z(p: f64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    ((c - h).max(0.0), (c + h).min(1.0))
}

/// A sampled rate `p` over `n` games: the Wilson interval when the games `varied` (see
/// [`games::varied`]), no interval when each seating played one game over and over.
pub fn sampled(p: f64, n: u64, varied: bool) -> Rate {
    if !varied && n > 1 {
        return Rate {
            value: p,
            low: None,
            high: None,
        };
    }
    wilson(p, n)
}

/// What kind of exact verdict the solver reached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExactKind {
    /// A side forces a win (`winner`).
    ForcedWin,
    /// The game value for h (`value`).
    Value,
    /// Proved: no forced win within the search's plies.
    #[default]
    None,
    /// The search gave up (its budget ran out, or it was cancelled): nothing is claimed.
    Undecided,
}

/// The exact verdict on the start, where the solver decides it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Exact {
    /// "forced_win", "value", "none" (proved within the search's plies) or "undecided".
    pub kind: ExactKind,
    /// The side with a forced win ("h" or "c").
    pub winner: Option<crate::engine::Outcome>,
    /// The game value for h (+1 a sure win now, −1 a sure loss, discounted per turn).
    pub value: Option<f64>,
    /// How it was found.
    pub detail: String,
}

/// Outcome section.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OutcomeReport {
    /// Outcome games played in all (0 when only the exact verdict was asked for).
    pub games: u64,
    /// h moves first (alternate), or every game (simultaneous).
    pub h_first: Outcomes,
    /// c moves first (alternate games only).
    pub c_first: Option<Outcomes>,
    /// Score of the side that moves first − ½ (alternate games only; None also where rule
    /// errors decide it, [`errors_decide`]).
    pub first_mover_advantage: Option<Rate>,
    /// h's score over the outcome games that no rule error ended (None: rule errors decide
    /// it, [`errors_decide`]).
    pub h_score: Option<Rate>,
    /// How many of the outcome games were different games (by their moves and positions).
    pub distinct_games: u64,
    /// Each seating played one game over and over (deterministic players on deterministic
    /// rules): the figures describe that game, and no interval is given.
    pub one_game_per_seating: bool,
    /// The outcome again with deeper-searching players (when the outcome players are CPUs):
    /// whether the verdict depends on how deep the CPU looks.
    pub depth_check: Option<DepthCheck>,
    /// Exact verdict on the start.
    pub exact: Option<Exact>,
    /// Outcome games ended by a rule error (left out of the scores).
    pub errors: u64,
    /// Outcome games won by a forfeit.
    pub forfeits: u64,
}

impl OutcomeReport {
    /// Seatings played: 2 in alternate play (h first, c first), 1 in simultaneous play.
    pub fn per_seatings(&self) -> u64 {
        if self.c_first.is_some() { 2 } else { 1 }
    }
}

/// The outcome replayed with deeper CPUs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DepthCheck {
    /// The deeper players, h's and c's.
    pub players: [String; 2],
    /// How many plies deeper than the outcome players they search.
    pub plies: u32,
    /// Games per seating.
    pub games: u64,
    /// h's score with them (None: rule errors decide it).
    pub h_score: Option<Rate>,
    /// The first mover's advantage with them (alternate games).
    pub first_mover_advantage: Option<Rate>,
    /// Different games among them.
    pub distinct_games: u64,
    /// Whether the two depths agree: true when the scores differ by at most 10 points, false
    /// when they differ by more and their intervals do not overlap (the verdict depends on how
    /// deep the CPU looks), null when they differ by more but the games are too few to tell
    /// (or when rule errors decide the figures).
    pub agrees: Option<bool>,
    /// Games ended by a rule error.
    pub errors: u64,
}

/// Length section.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LengthReport {
    /// Mean turns.
    pub mean: f64,
    /// Median turns.
    pub median: u32,
    /// 90th percentile.
    pub p90: u32,
    /// `[turns, games]`, nonzero entries.
    pub histogram: Vec<[u64; 2]>,
}

/// Decisions section.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DecisionReport {
    /// Mean enabled commands per choice.
    pub branching_mean: f64,
    /// Share of choices with more than one enabled command.
    pub choice_share: f64,
    /// Each side's command use (share of its choices), random players.
    pub command_use: CommandUse,
    /// The same with the outcome's players (the CPU by default).
    pub cpu_command_use: CommandUse,
}

/// Command → share of a side's choices, per side.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CommandUse {
    /// h's.
    pub h: serde_json::Map<String, serde_json::Value>,
    /// c's.
    pub c: serde_json::Map<String, serde_json::Value>,
}

/// One source line's rules.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RuleLine {
    /// 1-based source line.
    pub line: usize,
    /// Its text.
    pub text: String,
    /// Games in which one of its rules fired.
    pub games_fired: u64,
    /// Times its rules fired over all games.
    pub fires: u64,
    /// "never_fired", "cannot_fire" or null.
    pub dead: Option<&'static str>,
    /// How "cannot_fire" was proved: "static" (no reachable value satisfies a condition) or
    /// "exhaustive" (it fires in no turn from any reachable position of a small game).
    pub proof: Option<&'static str>,
}

/// Restricted play: one side never uses one command.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Restricted {
    /// The side (written "h" or "c").
    pub side: crate::side::Side,
    /// The command.
    pub command: String,
    /// The restricted side's score.
    pub win_rate: f64,
    /// Its 95% interval (None: one game repeated).
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
    /// Score minus the same side's score in the same games without the restriction.
    pub delta: f64,
    /// 95% interval of `delta` (paired: each game against the unrestricted game with its seed;
    /// None: one game repeated).
    pub delta_low: Option<f64>,
    /// Upper end.
    pub delta_high: Option<f64>,
    /// Games whose result differed from the unrestricted game with the same seed.
    pub games_changed: u64,
    /// Different games among the restricted games.
    pub distinct_games: u64,
    /// "no_effect" (no game's result changed), "no_net_effect" (results changed, but the score
    /// moved under 5 points with an interval within ±10 points: it changes which games are won,
    /// not how often), "decisive" (|delta| ≥ 25 points, interval clear of 0) or null (also when
    /// rule errors decide the figures: [`errors_decide`]).
    pub verdict: Option<&'static str>,
    /// Restricted games ended by a rule error.
    pub errors: u64,
    /// Restricted games won by a forfeit.
    pub forfeits: u64,
}

/// One pairing of the skill round robin.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkillPair {
    /// The weaker level.
    pub a: String,
    /// The stronger level.
    pub b: String,
    /// a's score against b (each side half the games).
    pub a_win_rate: f64,
    /// Its 95% interval (None: one game repeated).
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
    /// Games played.
    pub games: u64,
    /// Different games among them.
    pub distinct_games: u64,
    /// Games the pairing would have played: more than `games` when it stopped early, its
    /// 99.9% interval already clear of an even score (random against the deepest level).
    pub planned_games: u64,
    /// Games ended by a rule error.
    pub errors: u64,
    /// Games won by a forfeit.
    pub forfeits: u64,
}

/// Tension section (means over the outcome games).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TensionReport {
    /// Lead changes per game.
    pub lead_changes: f64,
    /// How far behind the eventual winner was at worst (evaluation points), decided games.
    pub drama: f64,
    /// The share of the game played before the winner went ahead for good, decided games.
    pub decisiveness: f64,
}

/// One sweep value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepPoint {
    /// The value.
    pub value: i64,
    /// h's score (None: not computed — rule errors decide it, see [`errors_decide`]).
    pub h_win_rate: Option<f64>,
    /// 95% interval (None: one game repeated, or no score).
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
    /// Different games among them.
    pub distinct_games: u64,
    /// Games ended by a rule error.
    pub errors: u64,
    /// Games played.
    pub games: u64,
}

/// Sweep section.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepReport {
    /// What was swept.
    pub name: String,
    /// Per value.
    pub points: Vec<SweepPoint>,
    /// Values whose interval contains ½.
    pub fair: Vec<i64>,
}

/// Whether skill matters: random play against the deepest level of the round robin. In JSON,
/// its snake_case token (`"skill_matters"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillVerdict {
    /// Random scores significantly under ½.
    SkillMatters,
    /// Random scores significantly over ½: the CPU misjudges the game.
    RandomBetter,
    /// The interval contains ½ over enough games to see a difference of [`SKILL_POINTS`]
    /// with 80% power, or every game was the same game.
    NoDifference,
    /// The interval contains ½ over fewer games.
    TooFewGames,
}

impl SkillVerdict {
    /// Its JSON token (`"skill_matters"`), which comparison rows carry.
    pub fn token(self) -> &'static str {
        match self {
            Self::SkillMatters => "skill_matters",
            Self::RandomBetter => "random_better",
            Self::NoDifference => "no_difference",
            Self::TooFewGames => "too_few_games",
        }
    }
}

/// The report (sections are None until computed).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    /// Rule file name.
    pub file: String,
    /// Outcome games per seating.
    pub games: u64,
    /// The seed.
    pub seed: u64,
    /// Players: outcome pair and sampling pair.
    pub players: serde_json::Value,
    /// Simultaneous mode.
    pub simultaneous: bool,
    /// Outcome.
    pub outcome: Option<OutcomeReport>,
    /// Length.
    pub length: Option<LengthReport>,
    /// Decisions.
    pub decisions: Option<DecisionReport>,
    /// Rules, per source line.
    pub rules: Option<Vec<RuleLine>>,
    /// Games behind `rules` and `decisions`.
    pub sample_games: u64,
    /// Different games among them.
    pub sample_distinct_games: u64,
    /// Restricted play.
    pub restricted: Option<Vec<Restricted>>,
    /// Games per restricted run (per seating).
    pub restricted_games: u64,
    /// Skill round robin.
    pub skill: Option<Vec<SkillPair>>,
    /// Random against the deepest level ([`SkillVerdict`]), or null before the round robin.
    pub skill_verdict: Option<SkillVerdict>,
    /// Games per pairing (the pairing of random against the deepest level plays
    /// `skill_key_games`).
    pub skill_games: u64,
    /// Games of random against the deepest level: enough that a difference of
    /// [`SKILL_POINTS`] shows with 80% power.
    pub skill_key_games: u64,
    /// Tension.
    pub tension: Option<TensionReport>,
    /// Sweep.
    pub sweep: Option<SweepReport>,
    /// Seconds taken so far.
    pub seconds: f64,
    /// Set when the report was cancelled before the end.
    pub cancelled: bool,
    /// The games of every section that a rule error or a failing player ended.
    pub problems: GameProblems,
}

impl Report {
    /// The report as the JSON `kumite report --format json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

/// The report's own CPU players (the outcome's default and the skill levels): a CPU spec
/// with one reading mistake in ten moves (`E1`) unless the spec or the file's `~` line sets
/// mistakes — a deterministic CPU on deterministic rules plays one game over and over, which
/// measures nothing — made [`reproducible`].
pub fn varied_cpu(spec: &str, prog: &RuleProgram) -> String {
    let Some(rest) = spec.strip_prefix("cpu") else {
        return reproducible(spec);
    };
    let rest = rest.trim_start_matches(':');
    let folded: String = rest.chars().map(crate::syntax::lexer::norm).collect();
    let sets_e = folded.split(',').any(|x| x.trim().starts_with(['E', 'e']));
    let exact = folded
        .split(',')
        .any(|x| x.trim().eq_ignore_ascii_case("exact"));
    if sets_e || exact || prog.settings.mistakes > 0 {
        return reproducible(spec);
    }
    reproducible(&if rest.is_empty() {
        "cpu:E1".to_string()
    } else {
        format!("cpu:{rest},E1")
    })
}

/// Search nodes per move of the report's CPUs (see [`reproducible`]).
pub const REPORT_NODES: u64 = 100_000;

/// A CPU spec whose games replay exactly: the report replaces the period P (a time cap for live
/// play, which would make figures depend on the machine's speed and load) by a budget of
/// [`REPORT_NODES`] search nodes per move — unless the spec sets P or N itself.
pub fn reproducible(spec: &str) -> String {
    let Some(rest) = spec.strip_prefix("cpu") else {
        return spec.into();
    };
    let rest = rest.trim_start_matches(':');
    let folded: String = rest.chars().map(crate::syntax::lexer::norm).collect();
    let has = |c: char| {
        folded
            .split(',')
            .any(|x| x.trim().starts_with([c, c.to_ascii_lowercase()]))
    };
    let mut out = format!("cpu:{rest}");
    if !has('P') {
        out.push_str(if rest.is_empty() {
            "P3600000"
        } else {
            ",P3600000"
        });
    }
    if !has('N') {
        out.push_str(&format!(",N{REPORT_NODES}"));
    }
    out
}

/// Splits `--players A,B` where B begins (cpu specs contain commas themselves).
pub fn split_players(s: &str) -> Result<[String; 2], PlayersError> {
    let starts = |t: &str| {
        let t = t.trim_start();
        t.starts_with("cpu") || t.starts_with("random") || t.starts_with("ai:")
    };
    let parts: Vec<&str> = s.split(',').collect();
    let cuts: Vec<usize> = (1..parts.len()).filter(|&k| starts(parts[k])).collect();
    match cuts.as_slice() {
        [k] => Ok([
            parts[..*k].join(",").trim().into(),
            parts[*k..].join(",").trim().into(),
        ]),
        _ => Err(PlayersError(s.to_string())),
    }
}

/// `side`'s score in one game: 1 a win, ½ a draw or timeout, 0 a loss or an error.
fn game_score(e: End, side: Side) -> f64 {
    match (e, side) {
        (End::H, Side::H) | (End::C, Side::C) => 1.0,
        (End::Draw | End::Timeout, _) => 0.5,
        _ => 0.0,
    }
}

/// Mean of paired differences and the half-width of its 95% interval (normal approximation).
fn paired(d: impl Iterator<Item = f64>) -> (f64, f64) {
    let d: Vec<f64> = d.collect();
    let n = d.len() as f64;
    if d.is_empty() {
        return (0.0, 1.0);
    }
    let mean = d.iter().sum::<f64>() / n;
    let var = if d.len() > 1 {
        d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
    } else {
        1.0
    };
    (mean, 1.959_963_984_540_054 * (var / n).sqrt())
}

fn length_of(recs: &[&GameRec]) -> LengthReport {
    let mut lengths: Vec<u32> = recs.iter().map(|r| r.turns).collect();
    lengths.sort_unstable();
    let q = |q: f64| -> u32 {
        if lengths.is_empty() {
            return 0;
        }
        let k = ((q * lengths.len() as f64).ceil() as usize).clamp(1, lengths.len());
        lengths[k - 1]
    };
    let mut histogram: Vec<[u64; 2]> = Vec::new();
    for &t in &lengths {
        match histogram.last_mut() {
            Some(h) if h[0] == t as u64 => h[1] += 1,
            _ => histogram.push([t as u64, 1]),
        }
    }
    LengthReport {
        mean: lengths.iter().map(|&t| t as f64).sum::<f64>() / lengths.len().max(1) as f64,
        median: q(0.5),
        p90: q(0.9),
        histogram,
    }
}

fn tension_of(recs: &[&GameRec]) -> TensionReport {
    let ts: Vec<_> = recs
        .iter()
        .filter_map(|r| r.tension.map(|t| (r.end, t)))
        .collect();
    let decided: Vec<_> = ts
        .iter()
        .filter(|(e, _)| matches!(e, End::H | End::C))
        .map(|x| x.1)
        .collect();
    // (+ 0.0: an empty f64 sum is −0.0, which would print as "-0.0".)
    let mean =
        |xs: &mut dyn Iterator<Item = f64>, n: usize| xs.sum::<f64>() / n.max(1) as f64 + 0.0;
    TensionReport {
        lead_changes: mean(&mut ts.iter().map(|t| t.1.lead_changes as f64), ts.len()),
        drama: mean(&mut decided.iter().map(|t| t.drama), decided.len()),
        decisiveness: mean(&mut decided.iter().map(|t| t.decided_at), decided.len()),
    }
}

fn command_use(prog: &RuleProgram, recs: &[&GameRec]) -> CommandUse {
    let nc = prog.commands.len();
    let mut uses = vec![0u64; 2 * nc];
    for r in recs {
        for (k, &u) in r.uses.iter().enumerate() {
            uses[k] += u as u64;
        }
    }
    let side = |s: usize| {
        let total: u64 = uses[s * nc..(s + 1) * nc].iter().sum();
        (0..nc)
            .map(|c| {
                (
                    prog.commands[c].clone(),
                    serde_json::json!(uses[s * nc + c] as f64 / total.max(1) as f64),
                )
            })
            .collect()
    };
    CommandUse {
        h: side(0),
        c: side(1),
    }
}

/// Per source line: games in which it fired, times, and whether it is dead.
fn rule_lines(source: &str, prog: &RuleProgram, recs: &[&GameRec]) -> Vec<RuleLine> {
    let cannot = reach::cannot_fire(prog);
    let lines: Vec<&str> = source.lines().collect();
    let mut by_line: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (ri, m) in prog.meta.iter().enumerate() {
        by_line.entry(m.origin.line).or_default().push(ri);
    }
    by_line
        .into_iter()
        .map(|(line, rules)| {
            let games_fired = recs
                .iter()
                .filter(|r| {
                    rules
                        .iter()
                        .any(|&ri| r.fires.get(ri).is_some_and(|&f| f > 0))
                })
                .count() as u64;
            let fires = recs
                .iter()
                .map(|r| {
                    rules
                        .iter()
                        .map(|&ri| *r.fires.get(ri).unwrap_or(&0) as u64)
                        .sum::<u64>()
                })
                .sum();
            let proved = rules.iter().all(|&ri| cannot[ri]);
            let dead = if proved {
                Some("cannot_fire")
            } else if games_fired == 0 {
                Some("never_fired")
            } else {
                None
            };
            RuleLine {
                line,
                text: lines
                    .get(line.wrapping_sub(1))
                    .map_or(String::new(), |t| t.trim().to_string()),
                games_fired,
                fires,
                dead,
                proof: proved.then_some("static"),
            }
        })
        .collect()
}

/// Turns replayed at most to prove rules dead by exhaustion.
const EXHAUSTIVE_PLAYS: u64 = 2_000_000;

/// The solver's verdict on the start (and the table, when one of every reachable position was
/// built): an exact table where it can be built in the budget, else (alternate games) a
/// forced-win search for h.
fn exact_of(
    prog: &RuleProgram,
    first: Side,
    budget: Duration,
    progress: &Arc<Progress>,
) -> (Exact, Option<crate::search::exact::ExactTable>) {
    let mut table = None;
    let e = exact_verdict(prog, first, budget, progress, &mut table);
    (e, table)
}

/// Most positions the report's exact section lists before it gives the table up (and asks
/// the forced-win search instead), within its time budget. (At the `cpu:exact` limit of a
/// million, karate, wrestling and moge_battle listed for the whole 2 s budget to give up; at a
/// quarter million they give up in 0.4–1.3 s, whatever the machine's speed, with the same
/// verdicts; `kumite solve` still tries the bigger tables.)
const REPORT_TABLE_POSITIONS: usize = 250_000;

fn exact_verdict(
    prog: &RuleProgram,
    first: Side,
    budget: Duration,
    progress: &Arc<Progress>,
    keep: &mut Option<crate::search::exact::ExactTable>,
) -> Exact {
    use crate::search::exact::ExactTable;
    let eng = crate::search::search_engine(prog);
    let Ok(root) = eng.initial(first) else {
        return Exact {
            kind: ExactKind::Undecided,
            detail: "runtime error in the initial position".into(),
            ..Default::default()
        };
    };
    let has_rand = prog.rules.iter().any(|r| r.has_rand);
    let who = first.name();
    let built = ExactTable::build(prog, &root, budget, REPORT_TABLE_POSITIONS).ok();
    if let Some(t) = built.filter(|t| t.is_exact())
        && let Some(v) = t.value(&root)
    {
        let how = format!("exact table: {}", t.describe_untimed());
        *keep = Some(t);
        if !has_rand && !prog.settings.simultaneous && v.abs() > 1e-9 {
            let winner = if v > 0.0 {
                crate::engine::Outcome::H
            } else {
                crate::engine::Outcome::C
            };
            let turns = (v.abs().ln() / crate::search::exact::DISCOUNT.ln()).round();
            return Exact {
                kind: ExactKind::ForcedWin,
                winner: Some(winner),
                value: Some(v),
                detail: format!(
                    "{} forces a win in {turns} turn{} with {who} moving first; {how}",
                    winner.as_str(),
                    if turns == 1.0 { "" } else { "s" }
                ),
            };
        }
        return Exact {
            kind: ExactKind::Value,
            winner: None,
            value: Some(if v.abs() < 1e-9 { 0.0 } else { v }),
            detail: format!(
                "game value for h under best play (+1 a win now, −1 a loss now, ×{} per turn){}; {how}",
                crate::search::exact::DISCOUNT,
                if prog.settings.simultaneous {
                    " with both optimal mixed strategies"
                } else {
                    ""
                }
            ),
        };
    }
    if prog.settings.simultaneous {
        let gv = crate::search::value_iteration(
            prog,
            &root,
            crate::search::VALUE_BOUND,
            crate::search::VALUE_POSITIONS,
        );
        return Exact {
            kind: ExactKind::Value,
            winner: None,
            value: Some(if gv.value.abs() < 1e-9 { 0.0 } else { gv.value }),
            detail: format!(
                "value iteration over {}, as `kumite solve --value`",
                gv.positions_text()
            ),
        };
    }
    const DEPTH: u32 = 30;
    let f = crate::search::solve::forced_win_in(
        prog,
        &root,
        DEPTH,
        2_000_000,
        Some(&progress.cancel_flag),
    );
    match f.exists {
        Some(true) => Exact {
            kind: ExactKind::ForcedWin,
            winner: Some(crate::engine::Outcome::H),
            value: None,
            detail: format!(
                "h forces a win within {} plies with {who} moving first (as `kumite solve`)",
                f.min_plies.unwrap_or(DEPTH)
            ),
        },
        Some(false) => Exact {
            kind: ExactKind::None,
            winner: None,
            value: None,
            detail: format!("no forced win for h within {DEPTH} plies with {who} moving first"),
        },
        None => Exact {
            kind: ExactKind::Undecided,
            winner: None,
            value: None,
            detail: format!(
                "undecided: the forced-win search for h within {DEPTH} plies gave up ({})",
                f.gave_up
                    .map_or_else(|| "its budget ran out".to_string(), |b| b.to_string())
            ),
        },
    }
}
