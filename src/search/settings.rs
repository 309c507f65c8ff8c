//! The CPU's settings: the patent's levels (S depth, D thinning, E mistakes, P period), `exact`
//! and a node budget, read from a file's `~` line and a player spec (`cpu:S5,E2`).

use crate::diag::DiagCode;
use crate::program::{RuleProgram, RunConfig};
use crate::syntax::ast::Setting;
use std::time::Duration;

/// CPU settings (`cpu:S5,D1,E0,P200`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CpuSettings {
    /// Depth in plies (simultaneous: joint turns).
    pub depth: u32,
    /// Thinning: below the root each move is examined with probability 1/thin.
    pub thin: f64,
    /// Mistakes per 10 moves.
    pub mistakes: u32,
    /// Thinking budget per move, ms.
    pub period_ms: u32,
    /// `exact`: play from an exact table of the game when one can be built (see
    /// [`exact`](super::exact)).
    pub exact: bool,
    /// `matrix`: in simultaneous games, today's-before search — a depth-limited tree of matrix
    /// games with the evaluation at its leaves — instead of the local game graph
    /// ([`local`](super::local)); kept to measure the new search against.
    #[serde(default)]
    pub matrix: bool,
    /// `trained`: leaves valued by the learned evaluation of `kumite train` (the run's
    /// [`RunConfig::learned`], see [`Self::check_trained`]) instead of the derived one.
    #[serde(default)]
    pub trained: bool,
    /// `N<nodes>`: at most this many search nodes per move (the deepest search completed within
    /// them is played, or a move the next, unfinished one found better). Unlike P it does not
    /// depend on the machine's speed or load, so games replay exactly; `kumite report` uses it.
    pub nodes: Option<u64>,
}

/// Time allowed for building a `cpu:exact` table.
pub const EXACT_BUDGET: Duration = Duration::from_secs(5);
/// Most positions a `cpu:exact` table may hold before it is built within a bound instead.
pub const EXACT_POSITIONS: usize = 1_000_000;

impl CpuSettings {
    /// The settings of a player spec `cpu` or `cpu:…` (None for another kind of player).
    pub fn of_player(prog: &RuleProgram, spec: &str) -> Option<Result<Self, CpuSpecError>> {
        let rest = spec.strip_prefix("cpu")?;
        (rest.is_empty() || rest.starts_with(':'))
            .then(|| Self::parse(prog, rest.trim_start_matches(':')))
    }

    /// The player spec that makes these settings from any file, as [`Self::of_player`] reads
    /// it back: `cpu:S3,D1,E0,P500`, with `exact` first (it resets `E`), then `N…`, `matrix`
    /// and `trained` as set.
    pub fn spec(&self) -> String {
        let mut s = String::from("cpu:");
        if self.exact {
            s.push_str("exact,");
        }
        s.push_str(&format!(
            "S{},D{},E{},P{}",
            self.depth, self.thin, self.mistakes, self.period_ms
        ));
        if let Some(n) = self.nodes {
            s.push_str(&format!(",N{n}"));
        }
        if self.matrix {
            s.push_str(",matrix");
        }
        if self.trained {
            s.push_str(",trained");
        }
        s
    }

    /// Whether the run has what these settings play with: `trained` needs a learned
    /// evaluation in `config` (the error says why there is none and what to run).
    pub fn check_trained(&self, config: &RunConfig) -> Result<(), CpuSpecError> {
        match &config.learned {
            Err(why) if self.trained => Err(CpuSpecError {
                item: "trained".to_string(),
                problem: CpuSpecProblem::NotTrained(why.clone()),
            }),
            _ => Ok(()),
        }
    }

    /// The file's `~` settings, overridden by `spec` (e.g. `S5,E2`); whether a `trained` CPU
    /// has a learned evaluation is the run's to say ([`Self::check_trained`]).
    pub fn parse(prog: &RuleProgram, spec: &str) -> Result<Self, CpuSpecError> {
        let s = &prog.settings;
        let mut c = CpuSettings {
            depth: s.depth,
            thin: s.thin,
            mistakes: s.mistakes,
            period_ms: s.period_ms,
            exact: false,
            matrix: false,
            trained: false,
            nodes: None,
        };
        // Full-width and IME forms read as ASCII, as everywhere in the language (`Ｓ５`).
        let folded: String = spec.chars().map(crate::syntax::lexer::norm).collect();
        for item in folded.split(',').map(str::trim).filter(|x| !x.is_empty()) {
            if item.eq_ignore_ascii_case("matrix") {
                c.matrix = true;
                continue;
            }
            if item.eq_ignore_ascii_case("trained") {
                c.trained = true;
                continue;
            }
            if item.eq_ignore_ascii_case("exact") {
                // Unbeatable: no deliberate mistakes unless an E setting follows.
                c.exact = true;
                c.mistakes = 0;
                continue;
            }
            let bad = |problem: CpuSpecProblem| CpuSpecError {
                item: item.to_string(),
                problem,
            };
            if let Some(n) = item.strip_prefix(['N', 'n']) {
                match n.trim().parse::<u64>() {
                    Ok(n) if (100..=10_000_000_000).contains(&n) => {
                        c.nodes = Some(n);
                        continue;
                    }
                    _ => return Err(bad(CpuSpecProblem::NodeCount)),
                }
            }
            match crate::syntax::parser::parse_setting(item) {
                Ok(Setting::Depth(v)) => c.depth = v,
                Ok(Setting::Thin(v)) => c.thin = v,
                Ok(Setting::Mistakes(v)) => c.mistakes = v,
                Ok(Setting::Period(v)) => c.period_ms = v,
                Ok(_) => return Err(bad(CpuSpecProblem::NotCpu)),
                Err((DiagCode::E033, msg, help)) => {
                    return Err(bad(CpuSpecProblem::OutOfRange { message: msg, help }));
                }
                Err(_) => return Err(bad(CpuSpecProblem::Unknown)),
            }
        }
        Ok(c)
    }
}

/// A CPU setting that cannot be read (`kumite match --h cpu:S99`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "cpu setting '{item}': {problem} (expected exact, matrix, trained, S<depth 1–30>, D<thinning 1–1000>, E<mistakes 0–10>, P<ms 1–3600000> or N<nodes per move 100–10000000000>)"
)]
pub struct CpuSpecError {
    /// The setting as given (full-width forms folded).
    pub item: String,
    /// What is wrong with it.
    pub problem: CpuSpecProblem,
}

/// What is wrong with a CPU setting.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CpuSpecProblem {
    /// `N` out of its range.
    #[error("N takes a node count from 100 to 10000000000")]
    NodeCount,
    /// A setting of the `~` line that is not the CPU's (`同時`, `T`).
    #[error("not a CPU setting")]
    NotCpu,
    /// A value out of its range, as the `~` line's checker words it.
    #[error("{message}; {help}")]
    OutOfRange {
        /// The problem.
        message: String,
        /// The allowed range.
        help: String,
    },
    /// Nothing the CPU knows.
    #[error("unknown setting")]
    Unknown,
    /// `trained` without a learned evaluation for these rules.
    #[error("{0}")]
    NotTrained(crate::program::NoLearned),
}
