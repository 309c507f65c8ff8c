//! The balance report (`kumite report`, the studio's Report tab): what the rules *do* over many
//! games — outcome and first-mover advantage, length, decisions, which rules fire, which
//! commands matter, whether skill matters, tension, and sweeps of a starting value — each figure
//! labelled exact or sampled. The README's "Balance report" section defines every measure.
//!
//! A report is computed section by section; after each one the caller gets the report so far
//! (the studio fills its tab in as results arrive). Every figure depends on the seed only, not
//! on the number of worker threads.

pub mod games;
pub mod reach;
pub mod text;

use crate::analysis::VictoryGraph;
use crate::engine::Side;
use crate::program::RuleProgram;
use games::{End, GameRec, GameSet, play_set};
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

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
    /// True once cancelled.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// What `--sweep` varies.
#[derive(Clone, Debug, PartialEq)]
pub enum SweepTarget {
    /// A starting state value of one or both sides (`c.体力`, `体力` for both).
    State {
        /// The sides whose value is set.
        sides: Vec<Side>,
        /// The state's name.
        name: String,
    },
    /// A constant of a macro block (`費用`): the file is compiled again with each value.
    Constant(String),
}

/// `--sweep NAME=LO..HI[:STEP]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// What is varied.
    pub target: SweepTarget,
    /// The text before `=` as given.
    pub name: String,
    /// The values, low to high.
    pub values: Vec<i64>,
}

/// A `--sweep` that cannot be run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SweepError {
    /// Not `NAME=LO..HI[:STEP]`.
    #[error(
        "--sweep takes NAME=LO..HI or NAME=LO..HI:STEP (e.g. c.体力=16..28 or 費用=3..7:2), not '{0}'"
    )]
    Form(String),
    /// A step below 1.
    #[error("--sweep {0}: the step must be at least 1")]
    Step(String),
    /// LO above HI.
    #[error("--sweep {spec}: the range is empty ({lo} > {hi})")]
    Empty {
        /// The sweep as given.
        spec: String,
        /// Its low end.
        lo: i64,
        /// Its high end.
        hi: i64,
    },
    /// More than [`MAX_SWEEP_POINTS`] values.
    #[error("--sweep {spec}: {count} values; at most {MAX_SWEEP_POINTS} (use a larger step)")]
    TooMany {
        /// The sweep as given.
        spec: String,
        /// How many values it has.
        count: u128,
    },
    /// A side prefix other than h or c.
    #[error("--sweep {spec}: the side must be h or c, not '{side}'")]
    Side {
        /// The sweep as given.
        spec: String,
        /// The prefix.
        side: String,
    },
    /// No such state or constant.
    #[error("--sweep {spec}: the rules have no state or constant '{name}'{hint}")]
    Unknown {
        /// The sweep as given.
        spec: String,
        /// The name.
        name: String,
        /// " (did you mean X?)" or nothing.
        hint: String,
    },
    /// The program lost the state.
    #[error("no state {0}")]
    NoState(String),
    /// The constant's definition is not in the rule file.
    #[error("cannot find the definition of the constant {0}")]
    NoDefinition(String),
    /// The rules break with the swept value.
    #[error("the rules do not compile with {name} = {value}")]
    DoesNotCompile {
        /// The constant.
        name: String,
        /// The value.
        value: i64,
    },
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

/// Most values one sweep may take.
pub const MAX_SWEEP_POINTS: usize = 200;

impl Sweep {
    /// Parses `NAME=LO..HI[:STEP]` against the program (a state, `h.`/`c.` state or constant).
    pub fn parse(spec: &str, prog: &RuleProgram) -> Result<Self, SweepError> {
        let spec: String = spec.chars().map(crate::syntax::lexer::norm).collect();
        let bad = || SweepError::Form(spec.clone());
        let (name, range) = spec.split_once('=').ok_or_else(bad)?;
        let (range, step) = match range.split_once(':') {
            Some((r, s)) => (r, s.trim().parse::<i64>().map_err(|_| bad())?),
            None => (range, 1),
        };
        let (lo, hi) = range.split_once("..").ok_or_else(bad)?;
        let lo: i64 = lo.trim().parse().map_err(|_| bad())?;
        let hi: i64 = hi.trim().parse().map_err(|_| bad())?;
        if step <= 0 {
            return Err(SweepError::Step(spec));
        }
        if hi < lo {
            return Err(SweepError::Empty { spec, lo, hi });
        }
        let count = ((hi as i128 - lo as i128) / step as i128 + 1) as u128;
        if count > MAX_SWEEP_POINTS as u128 {
            return Err(SweepError::TooMany { spec, count });
        }
        let values: Vec<i64> = (0..count as i64).map(|k| lo + k * step).collect();
        let name = name.trim();
        let (sides, state): (Vec<Side>, &str) = match name.split_once('.') {
            Some(("h" | "H", n)) => (vec![0], n),
            Some(("c" | "C", n)) => (vec![1], n),
            Some(("S" | "s", n)) => (vec![0, 1], n),
            Some((p, _)) => {
                return Err(SweepError::Side {
                    side: p.to_string(),
                    spec,
                });
            }
            None => (vec![0, 1], name),
        };
        let target = if prog.state_id(state.trim()).is_some() {
            SweepTarget::State {
                sides,
                name: state.trim().to_string(),
            }
        } else if sides.len() == 2 && prog.constants.iter().any(|(n, _)| n == state.trim()) {
            SweepTarget::Constant(state.trim().to_string())
        } else {
            let known: Vec<&str> = prog
                .states
                .iter()
                .skip(2)
                .chain(prog.constants.iter().map(|c| &c.0))
                .map(String::as_str)
                .collect();
            let hint = crate::diag::did_you_mean(state.trim(), known.iter().copied())
                .map(|k| format!(" (did you mean {k}?)"))
                .unwrap_or_default();
            return Err(SweepError::Unknown {
                name: state.trim().to_string(),
                hint,
                spec,
            });
        };
        Ok(Self {
            target,
            name: name.to_string(),
            values,
        })
    }

    /// The program with the swept value set to `v` (`source` is the rule file, compiled again
    /// for a constant).
    pub fn apply(
        &self,
        prog: &RuleProgram,
        source: &str,
        v: i64,
    ) -> Result<RuleProgram, SweepError> {
        match &self.target {
            SweepTarget::State { sides, name } => {
                let mut p = prog.clone();
                let id = p
                    .state_id(name)
                    .ok_or_else(|| SweepError::NoState(name.clone()))?;
                for &s in sides {
                    p.init_values[s][id as usize] = v;
                }
                Ok(p)
            }
            SweepTarget::Constant(name) => {
                let text = set_constant(source, name, v)
                    .ok_or_else(|| SweepError::NoDefinition(name.clone()))?;
                crate::pipeline::compile(&text)
                    .program
                    .ok_or_else(|| SweepError::DoesNotCompile {
                        name: name.clone(),
                        value: v,
                    })
            }
        }
    }
}

/// The rule file with the constant `name`'s definition (`name:V` in a macro block) set to `v`.
pub fn set_constant(source: &str, name: &str, v: i64) -> Option<String> {
    let mut out = String::with_capacity(source.len() + 8);
    let mut found = false;
    for line in source.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let norm: String = body.chars().map(crate::syntax::lexer::norm).collect();
        let t = norm.trim();
        if !found
            && let Some((n, val)) = t.split_once(':')
            && n.trim() == name
            && val.trim().parse::<i64>().is_ok()
        {
            let indent: String = body.chars().take_while(|c| c.is_whitespace()).collect();
            out.push_str(&format!("{indent}{name}:{v}"));
            out.push_str(&line[body.len()..]);
            found = true;
            continue;
        }
        out.push_str(line);
    }
    found.then_some(out)
}

/// The sweep a studio user means by right-clicking character `col` (0-based, in characters) of
/// `line`: a number in the initial line (`!:c.体力=20` → `c.体力=…`) or a constant's
/// definition (`費用:5` → `費用=…`). The range spans about a third of the value each way (at
/// least 2), in at most 11 steps.
pub fn sweep_at(line: &str, col: usize) -> Option<String> {
    let norm: Vec<char> = line.chars().map(crate::syntax::lexer::norm).collect();
    let text: String = norm.iter().collect();
    let lead = text.len() - text.trim_start().len();
    let body = text.trim();
    // Byte offset of the clicked character in `text`.
    let at = norm.iter().take(col).map(|c| c.len_utf8()).sum::<usize>();
    let (name, value) = if let Some(items) = body.strip_prefix("!:") {
        let mut start = lead + 2;
        let mut found = None;
        for item in items.split(',') {
            let end = start + item.len();
            if (start..=end).contains(&at)
                && let Some((n, v)) = item.split_once('=')
                && let Ok(v) = v.trim().parse::<i64>()
            {
                found = Some((n.trim().to_string(), v));
            }
            start = end + 1;
        }
        found?
    } else {
        let (n, v) = body.split_once(':')?;
        let n = n.trim();
        if n.is_empty() || n.contains(['[', '.', '!', '~', '%', '&', '$', '\'', '@', '#']) {
            return None;
        }
        (n.to_string(), v.trim().parse::<i64>().ok()?)
    };
    if name.is_empty() {
        return None;
    }
    let span = (value.unsigned_abs() / 3).max(2) as i64;
    let (lo, hi) = (value.saturating_sub(span), value.saturating_add(span));
    let step = ((hi - lo) / 10).max(1);
    Some(if step > 1 {
        format!("{name}={lo}..{hi}:{step}")
    } else {
        format!("{name}={lo}..{hi}")
    })
}

/// Which sections to compute (`--sections`): all by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sections {
    /// Outcome, length and tension (the outcome players' games).
    pub outcome: bool,
    /// Decisions and rules (the random games).
    pub sample: bool,
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
            exact: false,
            restricted: false,
            skill: false,
        };
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            match item {
                "outcome" | "length" | "tension" => x.outcome = true,
                "decisions" | "rules" => x.sample = true,
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
}

impl Default for ReportOptions {
    fn default() -> Self {
        Self {
            games: DEFAULT_GAMES,
            seed: 1,
            players: None,
            sample_players: None,
            sweep: None,
            jobs: None,
            exact_budget: Duration::from_secs(2),
            sections: Sections::default(),
        }
    }
}

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
    /// Games ended by a runtime error or a player that failed.
    pub errors: u64,
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
        }
        o
    }
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.h_wins + self.c_wins + self.draws + self.timeouts + self.errors
    }
    /// `side`'s score: its wins plus half the draws and timeouts, over the games.
    pub fn score(&self, side: Side) -> f64 {
        let w = if side == 0 { self.h_wins } else { self.c_wins };
        (w as f64 + 0.5 * (self.draws + self.timeouts) as f64) / self.games().max(1) as f64
    }
}

/// A rate with its 95% Wilson interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Rate {
    /// The estimate.
    pub value: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// The 95% Wilson score interval of a proportion `p` observed over `n` trials.
pub fn wilson(p: f64, n: u64) -> Rate {
    if n == 0 {
        return Rate {
            value: p,
            low: 0.0,
            high: 1.0,
        };
    }
    let z = 1.959_963_984_540_054_f64;
    let n = n as f64;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    Rate {
        value: p,
        low: (c - h).max(0.0),
        high: (c + h).min(1.0),
    }
}

/// The exact verdict on the start, where the solver decides it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Exact {
    /// "forced_win", "value" or "none".
    pub kind: &'static str,
    /// The side with a forced win.
    pub winner: Option<&'static str>,
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
    /// Score of the side that moves first − ½ (alternate games only).
    pub first_mover_advantage: Option<Rate>,
    /// h's score over all outcome games.
    pub h_score: Rate,
    /// Exact verdict on the start.
    pub exact: Option<Exact>,
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
    /// "h" or "c".
    pub side: &'static str,
    /// The command.
    pub command: String,
    /// The restricted side's score.
    pub win_rate: f64,
    /// Its 95% interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// Score minus the same side's score in the same games without the restriction.
    pub delta: f64,
    /// 95% interval of `delta` (paired: each game against the unrestricted game with its seed).
    pub delta_low: f64,
    /// Upper end.
    pub delta_high: f64,
    /// Games whose result differed from the unrestricted game with the same seed.
    pub games_changed: u64,
    /// "no_effect" (no game changed, or a change under 5 points whose interval contains 0),
    /// "decisive" (|delta| ≥ 25 points, interval clear of 0) or null.
    pub verdict: Option<&'static str>,
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
    /// Its 95% interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
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
    /// h's score.
    pub h_win_rate: f64,
    /// 95% interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
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
    /// Restricted play.
    pub restricted: Option<Vec<Restricted>>,
    /// Games per restricted run (per seating).
    pub restricted_games: u64,
    /// Skill round robin.
    pub skill: Option<Vec<SkillPair>>,
    /// "skill_matters" (random scores significantly under ½ against the deepest level),
    /// "no_evidence" (its interval contains ½ or lies above), or null before the round robin.
    pub skill_verdict: Option<&'static str>,
    /// Games per pairing.
    pub skill_games: u64,
    /// Tension.
    pub tension: Option<TensionReport>,
    /// Sweep.
    pub sweep: Option<SweepReport>,
    /// Seconds taken so far.
    pub seconds: f64,
    /// Set when the report was cancelled before the end.
    pub cancelled: bool,
}

impl Report {
    /// The report as the JSON `kumite report --format json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
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

/// Seeds of the report's game sets, so that sets share games where they should (restricted
/// play replays the outcome games) and differ where they should.
const SEED_OUTCOME: u64 = 0x0u64;
const SEED_SAMPLE: u64 = 0x5A5A_0001;
const SEED_SKILL: u64 = 0x5A5A_0100;

/// Computes the report. `source` is the rule file (for line texts and constant sweeps);
/// `update` gets the report so far after each section.
///
/// The sections run in order — outcome, length and tension (one set of games); decisions and
/// rules (random games); the exact verdict; restricted play; skill; the sweep — each a method
/// of [`ReportRun`]. A cancelled run returns what it has, marked `cancelled`.
pub fn run(
    source: &str,
    file: &str,
    prog: &RuleProgram,
    opts: &ReportOptions,
    progress: &Arc<Progress>,
    mut update: impl FnMut(&Report),
) -> Result<Report, ReportError> {
    let r = ReportRun::new(source, prog, opts, progress);
    r.set_total();
    let mut rep = r.empty_report(file);
    let sec = opts.sections;
    let mut done = |rep: &mut Report| {
        rep.seconds = r.t0.elapsed().as_secs_f64();
        update(rep);
    };
    macro_rules! or_stop {
        ($e:expr) => {
            match $e {
                Some(v) => v,
                None => {
                    rep.cancelled = true;
                    done(&mut rep);
                    return Ok(rep);
                }
            }
        };
    }
    let outcome_recs = or_stop!(r.outcome_games()?);
    let all: Vec<&GameRec> = outcome_recs.iter().flatten().collect();
    let cpu_use = command_use(prog, &all);
    if sec.outcome {
        r.outcome_section(&outcome_recs, &mut rep);
        done(&mut rep);
    }
    let sample_recs = or_stop!(r.sample_games()?);
    if sec.sample {
        r.sample_section(&sample_recs, cpu_use, &mut rep);
        done(&mut rep);
    }
    if sec.exact && !progress.cancelled() {
        r.exact_section(&mut rep);
        done(&mut rep);
    }
    if sec.restricted {
        let mut lines = Vec::new();
        for side in 0..2 {
            lines.extend(or_stop!(r.restricted_side(side, &outcome_recs)?));
            rep.restricted = Some(lines.clone());
            done(&mut rep);
        }
    }
    if sec.skill {
        let skill = or_stop!(r.skill_section()?);
        rep.skill_verdict = skill
            .iter()
            .find(|p| p.a == SKILL_LEVELS[0] && p.b == SKILL_LEVELS[SKILL_LEVELS.len() - 1])
            .map(|p| {
                if p.high < 0.5 {
                    "skill_matters"
                } else {
                    "no_evidence"
                }
            });
        rep.skill = Some(skill);
        done(&mut rep);
    }
    if let Some(sw) = &opts.sweep {
        let mut points = Vec::new();
        for &v in &sw.values {
            points.push(or_stop!(r.sweep_point(sw, v)?));
            let fair = points
                .iter()
                .filter(|p| p.low <= 0.5 && 0.5 <= p.high)
                .map(|p| p.value)
                .collect();
            rep.sweep = Some(SweepReport {
                name: sw.name.clone(),
                points: points.clone(),
                fair,
            });
            done(&mut rep);
        }
    }
    done(&mut rep);
    Ok(rep)
}

/// One report being computed: its inputs and the sizes of its game sets.
struct ReportRun<'a> {
    source: &'a str,
    prog: &'a RuleProgram,
    opts: &'a ReportOptions,
    progress: &'a Arc<Progress>,
    t0: Instant,
    /// Who moves first in the outcome games: both sides in turn, or h only (simultaneous).
    seatings: Vec<Side>,
    /// Games per seating.
    n: u64,
    /// The outcome players and the sample (random) players.
    pair: [String; 2],
    sample: [String; 2],
    sample_games: u64,
    restricted_games: u64,
    skill_games: u64,
    /// The side the file's `~` line lets move first.
    file_first: Side,
    graph: VictoryGraph,
}

impl<'a> ReportRun<'a> {
    fn new(
        source: &'a str,
        prog: &'a RuleProgram,
        opts: &'a ReportOptions,
        progress: &'a Arc<Progress>,
    ) -> Self {
        let n = opts.games.max(1);
        let cpu = reproducible("cpu");
        Self {
            source,
            prog,
            opts,
            progress,
            t0: Instant::now(),
            seatings: if prog.settings.simultaneous {
                vec![0]
            } else {
                vec![0, 1]
            },
            n,
            pair: opts
                .players
                .clone()
                .map(|[a, b]| [reproducible(&a), reproducible(&b)])
                .unwrap_or([cpu.clone(), cpu]),
            sample: opts
                .sample_players
                .clone()
                .map(|[a, b]| [reproducible(&a), reproducible(&b)])
                .unwrap_or(["random".into(), "random".into()]),
            sample_games: n * SAMPLE_FACTOR,
            restricted_games: (n / 4).clamp(10, 50).min(n),
            skill_games: (n / 4).max(10) & !1,
            file_first: usize::from(prog.settings.cpu_first),
            graph: VictoryGraph::build(prog),
        }
    }

    /// Tells `progress` how many games the whole report plays.
    fn set_total(&self) {
        let sec = self.opts.sections;
        let seatings = self.seatings.len() as u64;
        let nc = self.prog.commands.len() as u64;
        let sweep_points = self
            .opts
            .sweep
            .as_ref()
            .map_or(0, |s| s.values.len() as u64);
        let count = |on: bool, n: u64| if on { n } else { 0 };
        self.progress.total.store(
            count(sec.outcome || sec.restricted, self.n * seatings)
                + count(sec.sample, self.sample_games)
                + count(sec.restricted, 2 * nc * self.restricted_games * seatings)
                + count(sec.skill, 6 * self.skill_games)
                + sweep_points * self.n,
            Ordering::Relaxed,
        );
    }

    fn empty_report(&self, file: &str) -> Report {
        Report {
            file: file.to_string(),
            games: self.n,
            seed: self.opts.seed,
            players: serde_json::json!({
                "outcome": {"h": self.pair[0], "c": self.pair[1]},
                "sample": {"h": self.sample[0], "c": self.sample[1]},
            }),
            simultaneous: self.prog.settings.simultaneous,
            sample_games: self.sample_games,
            restricted_games: self.restricted_games,
            skill_games: self.skill_games,
            ..Default::default()
        }
    }

    /// A set of games between `players` on `prog` (the file's or a variant of it).
    #[allow(clippy::too_many_arguments)]
    fn games(
        &self,
        prog: &RuleProgram,
        players: [&str; 2],
        first: Side,
        games: u64,
        seed: u64,
        count_rules: bool,
        record_uses: bool,
        tension: bool,
    ) -> Result<Vec<GameRec>, ReportError> {
        Ok(play_set(
            &GameSet {
                prog,
                players,
                first,
                games,
                seed,
                count_rules,
                record_uses,
                tension: tension.then_some(&self.graph),
                jobs: self.opts.jobs,
            },
            self.progress,
        )?)
    }

    /// The outcome players' games, one set per seating (played when the outcome or the
    /// restricted-play section asks for them); None if cancelled.
    fn outcome_games(&self) -> Result<Option<Vec<Vec<GameRec>>>, ReportError> {
        let sec = self.opts.sections;
        let mut sets = Vec::new();
        for &first in self
            .seatings
            .iter()
            .filter(|_| sec.outcome || sec.restricted)
        {
            let seed = self.opts.seed ^ SEED_OUTCOME ^ (first as u64) << 40;
            let [a, b] = [self.pair[0].as_str(), self.pair[1].as_str()];
            sets.push(self.games(self.prog, [a, b], first, self.n, seed, false, true, true)?);
        }
        Ok((!self.progress.cancelled()).then_some(sets))
    }

    /// Sections 1–2 and 7: outcome, length and tension.
    fn outcome_section(&self, sets: &[Vec<GameRec>], rep: &mut Report) {
        let all: Vec<&GameRec> = sets.iter().flatten().collect();
        let per: Vec<Outcomes> = sets.iter().map(|r| Outcomes::of(r)).collect();
        let mut total = Outcomes::default();
        for o in &per {
            total.h_wins += o.h_wins;
            total.c_wins += o.c_wins;
            total.draws += o.draws;
            total.timeouts += o.timeouts;
            total.errors += o.errors;
        }
        let first_mover_advantage = (!self.prog.settings.simultaneous).then(|| {
            // The first mover's score: h's in the h-first games, c's in the c-first games.
            let g = (per[0].games() + per[1].games()).max(1);
            let s = (per[0].score(0) * per[0].games() as f64
                + per[1].score(1) * per[1].games() as f64)
                / g as f64;
            let r = wilson(s, g);
            Rate {
                value: r.value - 0.5,
                low: r.low - 0.5,
                high: r.high - 0.5,
            }
        });
        rep.outcome = Some(OutcomeReport {
            games: total.games(),
            h_first: per[0],
            c_first: per.get(1).copied(),
            first_mover_advantage,
            h_score: wilson(total.score(0), total.games()),
            exact: None,
        });
        rep.length = Some(length_of(&all));
        rep.tension = Some(tension_of(&all));
    }

    /// The random games of sections 3–4 (rule firings counted); None if cancelled.
    fn sample_games(&self) -> Result<Option<Vec<GameRec>>, ReportError> {
        let mut recs = Vec::new();
        let seatings = self.seatings.len() as u64;
        for (k, &first) in self.seatings.iter().enumerate() {
            if !self.opts.sections.sample {
                break;
            }
            let games =
                self.sample_games / seatings + u64::from(k == 0) * (self.sample_games % seatings);
            let seed = self.opts.seed ^ SEED_SAMPLE ^ (first as u64) << 40;
            let [a, b] = [self.sample[0].as_str(), self.sample[1].as_str()];
            recs.extend(self.games(self.prog, [a, b], first, games, seed, true, true, false)?);
        }
        Ok((!self.progress.cancelled()).then_some(recs))
    }

    /// Sections 3–4: decisions and rules.
    fn sample_section(&self, recs: &[GameRec], cpu_use: CommandUse, rep: &mut Report) {
        let srefs: Vec<&GameRec> = recs.iter().collect();
        let choices: u64 = srefs.iter().map(|r| r.choices as u64).sum();
        rep.decisions = Some(DecisionReport {
            branching_mean: srefs.iter().map(|r| r.options).sum::<u64>() as f64
                / choices.max(1) as f64,
            choice_share: srefs.iter().map(|r| r.multi as u64).sum::<u64>() as f64
                / choices.max(1) as f64,
            command_use: command_use(self.prog, &srefs),
            cpu_command_use: cpu_use,
        });
        rep.rules = Some(rule_lines(self.source, self.prog, &srefs));
    }

    /// Section 1 (exact): the solver on the start; a small game's every reachable position is
    /// then known, so a rule that fires from none of them cannot fire at all.
    fn exact_section(&self, rep: &mut Report) {
        let prog = self.prog;
        let (e, table) = exact_of(prog, self.file_first, self.opts.exact_budget, self.progress);
        rep.outcome.get_or_insert_with(Default::default).exact = Some(e);
        if let (Some(rules), Some(all)) = (
            rep.rules.as_mut(),
            table.as_ref().and_then(|t| t.all_positions()),
        ) && let Some(fired) = reach::fires_anywhere(prog, all, EXHAUSTIVE_PLAYS)
        {
            for l in rules.iter_mut().filter(|l| l.dead == Some("never_fired")) {
                let never = prog
                    .meta
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| m.origin.line == l.line)
                    .all(|(ri, _)| !fired[ri]);
                if never {
                    l.dead = Some("cannot_fire");
                    l.proof = Some("exhaustive");
                }
            }
        }
    }

    /// Section 5 for one side: restricted play, replaying the outcome games' seeds with one of
    /// `side`'s commands banned; None if cancelled.
    fn restricted_side(
        &self,
        side: Side,
        outcome_sets: &[Vec<GameRec>],
    ) -> Result<Option<Vec<Restricted>>, ReportError> {
        let prog = self.prog;
        let games = self.restricted_games.min(self.n);
        let mut out = Vec::new();
        for cmd in 0..prog.commands.len() {
            let mut p = prog.clone();
            p.banned = vec![(side * prog.commands.len() + cmd) as u32];
            let mut recs = Vec::new();
            let mut base = Vec::new();
            for (k, &first) in self.seatings.iter().enumerate() {
                let seed = self.opts.seed ^ SEED_OUTCOME ^ (first as u64) << 40;
                let [a, b] = [self.pair[0].as_str(), self.pair[1].as_str()];
                recs.extend(self.games(&p, [a, b], first, games, seed, false, false, false)?);
                base.extend(outcome_sets[k].iter().take(games as usize));
            }
            if self.progress.cancelled() {
                return Ok(None);
            }
            out.push(restricted_verdict(prog, side, cmd, &recs, &base));
        }
        Ok(Some(out))
    }

    /// Section 6: the skill round robin; None if cancelled.
    fn skill_section(&self) -> Result<Option<Vec<SkillPair>>, ReportError> {
        let mut skill = Vec::new();
        for (i, la) in SKILL_LEVELS.iter().enumerate() {
            for (j, lb) in SKILL_LEVELS.iter().enumerate().skip(i + 1) {
                let (a, b) = (reproducible(la), reproducible(lb));
                let (a, b) = (a.as_str(), b.as_str());
                let half = self.skill_games / 2;
                let seed = self.opts.seed ^ SEED_SKILL ^ ((i * 4 + j) as u64) << 32;
                let mut score = 0.0;
                let mut games = 0;
                for (a_side, players) in [(0usize, [a, b]), (1usize, [b, a])] {
                    let seed = seed ^ (a_side as u64) << 48;
                    let recs = self.games(
                        self.prog,
                        players,
                        self.file_first,
                        half,
                        seed,
                        false,
                        false,
                        false,
                    )?;
                    let o = Outcomes::of(&recs);
                    score += o.score(a_side) * o.games() as f64;
                    games += o.games();
                }
                if self.progress.cancelled() {
                    return Ok(None);
                }
                let r = wilson(score / games.max(1) as f64, games);
                skill.push(SkillPair {
                    a: la.to_string(),
                    b: lb.to_string(),
                    a_win_rate: r.value,
                    low: r.low,
                    high: r.high,
                });
            }
        }
        Ok(Some(skill))
    }

    /// Section 8: one point of the sweep; None if cancelled.
    fn sweep_point(&self, sw: &Sweep, v: i64) -> Result<Option<SweepPoint>, ReportError> {
        let p = sw.apply(self.prog, self.source, v)?;
        let seed = self.opts.seed ^ SEED_OUTCOME ^ (self.file_first as u64) << 40;
        let [a, b] = [self.pair[0].as_str(), self.pair[1].as_str()];
        let recs = self.games(
            &p,
            [a, b],
            self.file_first,
            self.n,
            seed,
            false,
            false,
            false,
        )?;
        if self.progress.cancelled() {
            return Ok(None);
        }
        let o = Outcomes::of(&recs);
        let r = wilson(o.score(0), o.games());
        Ok(Some(SweepPoint {
            value: v,
            h_win_rate: r.value,
            low: r.low,
            high: r.high,
        }))
    }
}

/// The restricted-play line of `side` without `cmd`: its games `recs` against the same seeds'
/// unrestricted games `base`.
fn restricted_verdict(
    prog: &RuleProgram,
    side: Side,
    cmd: usize,
    recs: &[GameRec],
    base: &[&GameRec],
) -> Restricted {
    let o = Outcomes::of(recs);
    let rate = wilson(o.score(side), o.games());
    let changed = recs
        .iter()
        .zip(base)
        .filter(|(a, b)| a.end != b.end)
        .count() as u64;
    let (delta, half) = paired(
        recs.iter()
            .zip(base)
            .map(|(a, b)| game_score(a.end, side) - game_score(b.end, side)),
    );
    let (delta_low, delta_high) = (delta - half, delta + half);
    Restricted {
        side: crate::side::name(side),
        command: prog.commands[cmd].clone(),
        win_rate: rate.value,
        low: rate.low,
        high: rate.high,
        delta,
        delta_low,
        delta_high,
        games_changed: changed,
        verdict: if changed == 0 || (delta.abs() < 0.05 && delta_low <= 0.0 && 0.0 <= delta_high) {
            Some("no_effect")
        } else if delta.abs() >= 0.25 && (delta_low > 0.0 || delta_high < 0.0) {
            Some("decisive")
        } else {
            None
        },
    }
}

/// `side`'s score in one game: 1 a win, ½ a draw or timeout, 0 a loss or an error.
fn game_score(e: End, side: Side) -> f64 {
    match (e, side) {
        (End::H, 0) | (End::C, 1) => 1.0,
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
            kind: "none",
            detail: "runtime error in the initial position".into(),
            ..Default::default()
        };
    };
    let has_rand = prog.rules.iter().any(|r| r.has_rand);
    let who = crate::side::name(first);
    let built = ExactTable::build(prog, &root, budget, crate::search::EXACT_POSITIONS).ok();
    if let Some(t) = built.filter(|t| t.is_exact())
        && let Some(v) = t.value(&root)
    {
        let how = format!("exact table: {}", t.describe());
        *keep = Some(t);
        if !has_rand && !prog.settings.simultaneous && v.abs() > 1e-9 {
            let winner = if v > 0.0 { "h" } else { "c" };
            let turns = (v.abs().ln() / crate::search::exact::DISCOUNT.ln()).round();
            return Exact {
                kind: "forced_win",
                winner: Some(winner),
                value: Some(v),
                detail: format!(
                    "{winner} forces a win in {turns} turns with {who} moving first; {how}"
                ),
            };
        }
        return Exact {
            kind: "value",
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
        let gv = crate::search::value_iteration(prog, &root, crate::search::VALUE_BOUND, 200_000);
        return Exact {
            kind: "value",
            winner: None,
            value: Some(if gv.value.abs() < 1e-9 { 0.0 } else { gv.value }),
            detail: format!(
                "value iteration over {} positions within ±{} of the starting values ({} beyond valued by the derived evaluation), as `kumite solve --value`",
                gv.states,
                crate::search::VALUE_BOUND,
                gv.frontier
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
            kind: "forced_win",
            winner: Some("h"),
            value: None,
            detail: format!(
                "h forces a win within {} plies with {who} moving first (as `kumite solve`)",
                f.min_plies.unwrap_or(DEPTH)
            ),
        },
        Some(false) => Exact {
            kind: "none",
            winner: None,
            value: None,
            detail: format!("no forced win for h within {DEPTH} plies with {who} moving first"),
        },
        None => Exact {
            kind: "none",
            winner: None,
            value: None,
            detail: format!(
                "undecided: the forced-win search for h ran out of its budget within {DEPTH} plies"
            ),
        },
    }
}
