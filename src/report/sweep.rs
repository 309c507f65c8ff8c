//! Sweeps (`--sweep NAME=LO..HI[:STEP]`): a starting value or a constant varied over a range,
//! each point a variant of the program; and finding a sweepable number under the cursor.

use super::*;
use crate::side::Side;

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
            Some(("h" | "H", n)) => (vec![Side::H], n),
            Some(("c" | "C", n)) => (vec![Side::C], n),
            Some(("S" | "s", n)) => (vec![Side::H, Side::C], n),
            Some((p, _)) => {
                return Err(SweepError::Side {
                    side: p.to_string(),
                    spec,
                });
            }
            None => (vec![Side::H, Side::C], name),
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
