//! Two versions side by side (`kumite report A --against B`, the studio's Report tab): the same
//! sections of two reports made with the same players, seed and games, each difference with
//! its 95% interval.
//!
//! A difference is A − B: how the file reported on differs from the one it is compared
//! against (in the studio, the editor's text against another file or the saved version).
//! The two reports' games are separate samples (different rules play different games even
//! from the same seeds), so a difference's interval combines the two figures' own intervals
//! (MOVER: Newcombe's method for two proportions, Zou and Donner's for other estimates). Where
//! a figure has no interval — exact values, one game repeated — the difference is exact for
//! those players, and differs when it is not 0. Means the report keeps without a spread
//! (tension, branching) are compared without an interval, and say so.

use super::{Rate, Report, RuleLine};
use serde::Serialize;
use std::fmt::Write;

/// How a figure is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// A share (0.45 → 45.0%); differences in points.
    Share,
    /// Points around 0 (an advantage 0.1 → +10.0 points).
    Points,
    /// Turns.
    Turns,
    /// A count.
    Count,
    /// A game value (+1 a sure win for h now).
    Value,
    /// A plain number (branching).
    Number,
    /// A verdict in words (no difference is computed).
    Word,
}

/// How a difference's interval was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// From the two figures' 95% intervals (independent samples).
    Sampled,
    /// From the two samples' spreads (Welch).
    Spread,
    /// Both figures are exact (a solved value, or one game repeated): the difference is exact.
    Exact,
    /// A mean the report keeps without its spread: no interval.
    NoInterval,
    /// One of the two has no figure (the row is only in one version, or rule errors decide it).
    Missing,
}

/// What a row measures (worded by [`Measure::english`] here, and by the studio in either
/// language).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Measure {
    /// h's score.
    HScore,
    /// The first mover's score − ½.
    FirstMover,
    /// Draws and turn-limit draws.
    NoWinner,
    /// Outcome games a rule error ended.
    RuleErrorGames,
    /// Outcome games won by a forfeit.
    ForfeitGames,
    /// h's score with the depth check's deeper CPUs.
    HScoreDeeper,
    /// The first-mover advantage with them.
    FirstMoverDeeper,
    /// The exact verdict's kind.
    ExactVerdict,
    /// The exact game value.
    ExactValue,
    /// Mean turns.
    MeanTurns,
    /// Median turns.
    MedianTurns,
    /// 90th percentile of turns.
    P90Turns,
    /// Lead changes per game.
    LeadChanges,
    /// The winner's worst deficit.
    Drama,
    /// The share played before the winner went ahead for good.
    Decisiveness,
    /// Commands enabled per choice.
    Branching,
    /// Choices with more than one command.
    ChoiceShare,
    /// A side's use of a command (outcome players).
    CommandUse {
        /// "h" or "c".
        side: String,
        /// The command.
        command: String,
    },
    /// Games a source line fires in.
    RuleFires {
        /// Its line in A (None: not in A).
        a_line: Option<usize>,
        /// Its line in B.
        b_line: Option<usize>,
        /// Its text.
        text: String,
    },
    /// A side's score change without a command.
    Restricted {
        /// "h" or "c".
        side: String,
        /// The command.
        command: String,
    },
    /// The weaker level's score in a skill pairing.
    Skill {
        /// The weaker level.
        a: String,
        /// The stronger.
        b: String,
    },
    /// The skill verdict.
    SkillVerdict,
    /// The sweep's fair values.
    SweepFair {
        /// What was swept.
        name: String,
    },
    /// h's score at one sweep value.
    SweepScore {
        /// What was swept.
        name: String,
        /// The value.
        value: i64,
    },
}

impl Measure {
    /// Its section: "outcome", "length", "tension", "decisions", "rules", "restricted",
    /// "skill" or "sweep".
    pub fn section(&self) -> &'static str {
        use Measure::*;
        match self {
            HScore | FirstMover | NoWinner | RuleErrorGames | ForfeitGames | HScoreDeeper
            | FirstMoverDeeper | ExactVerdict | ExactValue => "outcome",
            MeanTurns | MedianTurns | P90Turns => "length",
            LeadChanges | Drama | Decisiveness => "tension",
            Branching | ChoiceShare | CommandUse { .. } => "decisions",
            RuleFires { .. } => "rules",
            Restricted { .. } => "restricted",
            Skill { .. } | SkillVerdict => "skill",
            SweepFair { .. } | SweepScore { .. } => "sweep",
        }
    }

    /// In English, as the command line prints it.
    pub fn english(&self) -> String {
        use Measure::*;
        match self {
            HScore => "h's score".into(),
            FirstMover => "first-mover advantage".into(),
            NoWinner => "games without a winner".into(),
            RuleErrorGames => "games ended by a rule error".into(),
            ForfeitGames => "games won by a forfeit".into(),
            HScoreDeeper => "h's score, deeper CPUs".into(),
            FirstMoverDeeper => "first-mover advantage, deeper CPUs".into(),
            ExactVerdict => "exact verdict".into(),
            ExactValue => "exact game value for h".into(),
            MeanTurns => "mean turns".into(),
            MedianTurns => "median turns".into(),
            P90Turns => "90th percentile of turns".into(),
            LeadChanges => "lead changes per game".into(),
            Drama => "drama (worst deficit of the winner)".into(),
            Decisiveness => "decisiveness".into(),
            Branching => "commands enabled per choice".into(),
            ChoiceShare => "choices with more than one command".into(),
            CommandUse { side, command } => format!("{side} plays [{command}] (outcome players)"),
            RuleFires {
                a_line,
                b_line,
                text,
            } => {
                let line = match (a_line, b_line) {
                    (Some(x), Some(y)) if x == y => format!("line {x}"),
                    (Some(x), Some(y)) => format!("line {x} (B: {y})"),
                    (Some(x), None) => format!("line {x} (not in B)"),
                    (None, Some(y)) => format!("B line {y} (not in A)"),
                    (None, None) => String::new(),
                };
                format!("{line}: games it fires in — {text}")
            }
            Restricted { side, command } => format!("{side} never plays [{command}]: score change"),
            Skill { a, b } => format!("{a} against {b}: {a}'s score"),
            SkillVerdict => "skill verdict".into(),
            SweepFair { name } => format!("fair values of {name}"),
            SweepScore { name, value } => format!("h's score at {name} = {value}"),
        }
    }
}

/// One measure in both versions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diff {
    /// The section ("outcome", "length", "tension", "decisions", "rules", "restricted",
    /// "skill", "sweep").
    pub section: &'static str,
    /// What is measured, in English.
    pub measure: String,
    /// What is measured, as data.
    pub what: Measure,
    /// How the figures are written.
    pub unit: Unit,
    /// A's figure (None: A has none).
    pub a: Option<f64>,
    /// B's figure.
    pub b: Option<f64>,
    /// A's verdict in words, where the measure is one.
    pub a_word: Option<String>,
    /// B's.
    pub b_word: Option<String>,
    /// A − B.
    pub diff: Option<f64>,
    /// Its 95% interval, lower end.
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
    /// How the interval was found.
    pub basis: Basis,
    /// The two differ: the interval leaves out 0 (an exact difference: it is not 0; words:
    /// they are not the same). None: cannot tell (no interval, or a figure is missing).
    pub differs: Option<bool>,
}

/// Two reports and their differences.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The report of the file (A).
    pub a: Report,
    /// The report of the file it is compared against (B).
    pub b: Report,
    /// Whether both were played by the same players (the default players are each file's own
    /// CPU, which may differ).
    pub same_players: bool,
    /// The measures, section by section.
    pub differences: Vec<Diff>,
}

impl Comparison {
    /// Compares two finished reports.
    pub fn new(a: Report, b: Report) -> Self {
        let differences = differences(&a, &b);
        Comparison {
            same_players: a.players == b.players,
            a,
            b,
            differences,
        }
    }
}

/// The difference of two estimates from their 95% intervals (MOVER): `None` bounds when
/// either has no interval.
fn mover(a: &Rate, b: &Rate) -> (f64, Option<(f64, f64)>) {
    let d = a.value - b.value;
    match (a.low, a.high, b.low, b.high) {
        (Some(al), Some(ah), Some(bl), Some(bh)) => {
            let lo = d - ((a.value - al).powi(2) + (bh - b.value).powi(2)).sqrt();
            let hi = d + ((ah - a.value).powi(2) + (b.value - bl).powi(2)).sqrt();
            (d, Some((lo, hi)))
        }
        _ => (d, None),
    }
}

fn row(what: Measure, unit: Unit) -> Diff {
    Diff {
        section: what.section(),
        measure: what.english(),
        what,
        unit,
        a: None,
        b: None,
        a_word: None,
        b_word: None,
        diff: None,
        low: None,
        high: None,
        basis: Basis::Missing,
        differs: None,
    }
}

/// A row of two rates (either may be missing).
fn rates(what: Measure, unit: Unit, a: Option<&Rate>, b: Option<&Rate>) -> Diff {
    let mut r = row(what, unit);
    r.a = a.map(|x| x.value);
    r.b = b.map(|x| x.value);
    if let (Some(a), Some(b)) = (a, b) {
        let (d, ci) = mover(a, b);
        r.diff = Some(d);
        match ci {
            Some((lo, hi)) => {
                r.low = Some(lo);
                r.high = Some(hi);
                r.basis = Basis::Sampled;
                r.differs = Some(lo > 0.0 || hi < 0.0);
            }
            // A figure without an interval is one game repeated: exact for those players;
            // compared with a sampled one, the other's interval alone bounds the difference.
            None => match (b.low, b.high, a.low, a.high) {
                (Some(bl), Some(bh), None, _) => {
                    r.low = Some(a.value - bh);
                    r.high = Some(a.value - bl);
                    r.basis = Basis::Sampled;
                    r.differs = Some(a.value - bh > 0.0 || a.value - bl < 0.0);
                }
                (None, _, Some(al), Some(ah)) => {
                    r.low = Some(al - b.value);
                    r.high = Some(ah - b.value);
                    r.basis = Basis::Sampled;
                    r.differs = Some(al - b.value > 0.0 || ah - b.value < 0.0);
                }
                _ => {
                    r.basis = Basis::Exact;
                    r.differs = Some(d.abs() > 1e-12);
                }
            },
        }
    }
    r
}

/// A row of two numbers with no interval (means kept without their spread, or exact values).
fn plain(what: Measure, unit: Unit, basis: Basis, a: Option<f64>, b: Option<f64>) -> Diff {
    let mut r = row(what, unit);
    r.a = a;
    r.b = b;
    if let (Some(x), Some(y)) = (a, b) {
        r.diff = Some(x - y);
        r.basis = basis;
        if basis == Basis::Exact {
            r.differs = Some((x - y).abs() > 1e-12);
        }
    }
    r
}

/// A verdict token of the report's JSON in words ("skill_matters" → "skill matters").
///
/// The rows keep the tokens (`a_word`, `b_word`: the report's own, such as `skill_matters`,
/// `cannot_fire`, and `forced_win_h`, `solved`, `no_forced_win`, `undecided`, `fires`,
/// `absent`); front ends word them.
pub fn spoken(token: &str) -> String {
    match token {
        "forced_win_h" => "forced win for h".into(),
        "forced_win_c" => "forced win for c".into(),
        "absent" => "—".into(),
        _ => token.replace('_', " "),
    }
}

fn words(what: Measure, a: Option<String>, b: Option<String>) -> Diff {
    let mut r = row(what, Unit::Word);
    r.differs = match (&a, &b) {
        (Some(x), Some(y)) => Some(x != y),
        _ => None,
    };
    if a.is_some() && b.is_some() {
        r.basis = Basis::Exact;
    }
    r.a_word = a;
    r.b_word = b;
    r
}

/// Mean, variance and games of a length histogram.
fn moments(h: &[[u64; 2]]) -> (f64, f64, u64) {
    let n: u64 = h.iter().map(|e| e[1]).sum();
    if n == 0 {
        return (0.0, 0.0, 0);
    }
    let mean = h.iter().map(|e| e[0] as f64 * e[1] as f64).sum::<f64>() / n as f64;
    let ss: f64 = h
        .iter()
        .map(|e| (e[0] as f64 - mean).powi(2) * e[1] as f64)
        .sum();
    (mean, if n > 1 { ss / (n - 1) as f64 } else { 0.0 }, n)
}

fn exact_word(r: &Report) -> Option<String> {
    let e = r.outcome.as_ref()?.exact.as_ref()?;
    Some(match e.kind {
        super::ExactKind::ForcedWin => {
            format!("forced_win_{}", e.winner.map_or("?", |w| w.as_str()))
        }
        super::ExactKind::Value => "solved".to_string(),
        super::ExactKind::None => "no_forced_win".to_string(),
        super::ExactKind::Undecided => "undecided".to_string(),
    })
}

/// The rule lines of B matched to A's: by their text (a line that moved still matches), in
/// order where a text occurs more than once.
fn match_lines<'r>(
    a: &'r [RuleLine],
    b: &'r [RuleLine],
) -> Vec<(Option<&'r RuleLine>, Option<&'r RuleLine>)> {
    let mut used = vec![false; b.len()];
    let mut out = Vec::new();
    for x in a {
        let m = b
            .iter()
            .enumerate()
            .find(|(i, y)| !used[*i] && y.text.trim() == x.text.trim())
            .map(|(i, y)| {
                used[i] = true;
                y
            });
        out.push((Some(x), m));
    }
    for (i, y) in b.iter().enumerate() {
        if !used[i] {
            out.push((None, Some(y)));
        }
    }
    out
}

/// Every measure both reports have (or one has), section by section.
pub fn differences(a: &Report, b: &Report) -> Vec<Diff> {
    let mut out = Vec::new();
    // Outcome.
    if a.outcome.is_some() || b.outcome.is_some() {
        let (oa, ob) = (a.outcome.as_ref(), b.outcome.as_ref());
        let played = |o: Option<&super::OutcomeReport>| o.is_some_and(|o| o.games > 0);
        if played(oa) || played(ob) {
            out.push(rates(
                Measure::HScore,
                Unit::Share,
                oa.and_then(|o| o.h_score.as_ref()),
                ob.and_then(|o| o.h_score.as_ref()),
            ));
            if oa.is_some_and(|o| o.c_first.is_some()) || ob.is_some_and(|o| o.c_first.is_some()) {
                out.push(rates(
                    Measure::FirstMover,
                    Unit::Points,
                    oa.and_then(|o| o.first_mover_advantage.as_ref()),
                    ob.and_then(|o| o.first_mover_advantage.as_ref()),
                ));
            }
            let share = |o: Option<&super::OutcomeReport>, f: fn(&super::Outcomes) -> u64| {
                o.filter(|o| o.games > 0).map(|o| {
                    let n = f(&o.h_first) + o.c_first.as_ref().map_or(0, f);
                    n as f64 / o.games as f64
                })
            };
            let rate_of = |o: Option<&super::OutcomeReport>, f: fn(&super::Outcomes) -> u64| {
                o.filter(|o| o.games > 0).zip(share(o, f)).map(|(o, p)| {
                    let varied = !o.one_game_per_seating;
                    super::sampled(p, o.games, varied)
                })
            };
            let no_winner = |o: &super::Outcomes| o.draws + o.timeouts;
            out.push(rates(
                Measure::NoWinner,
                Unit::Share,
                rate_of(oa, no_winner).as_ref(),
                rate_of(ob, no_winner).as_ref(),
            ));
            for (name, f) in [
                (
                    Measure::RuleErrorGames,
                    (|o: &super::Outcomes| o.errors) as fn(&super::Outcomes) -> u64,
                ),
                (Measure::ForfeitGames, |o: &super::Outcomes| o.forfeits),
            ] {
                let count = |o: Option<&super::OutcomeReport>| {
                    o.filter(|o| o.games > 0)
                        .map(|o| (f(&o.h_first) + o.c_first.as_ref().map_or(0, f)) as f64)
                };
                let (x, y) = (count(oa), count(ob));
                if x.unwrap_or(0.0) > 0.0 || y.unwrap_or(0.0) > 0.0 {
                    out.push(plain(name, Unit::Count, Basis::Exact, x, y));
                }
            }
        }
        let (da, db) = (
            oa.and_then(|o| o.depth_check.as_ref()),
            ob.and_then(|o| o.depth_check.as_ref()),
        );
        if da.is_some() || db.is_some() {
            out.push(rates(
                Measure::HScoreDeeper,
                Unit::Share,
                da.and_then(|d| d.h_score.as_ref()),
                db.and_then(|d| d.h_score.as_ref()),
            ));
            if da.is_some_and(|d| d.first_mover_advantage.is_some())
                || db.is_some_and(|d| d.first_mover_advantage.is_some())
            {
                out.push(rates(
                    Measure::FirstMoverDeeper,
                    Unit::Points,
                    da.and_then(|d| d.first_mover_advantage.as_ref()),
                    db.and_then(|d| d.first_mover_advantage.as_ref()),
                ));
            }
        }
        let (wa, wb) = (exact_word(a), exact_word(b));
        if wa.is_some() || wb.is_some() {
            out.push(words(Measure::ExactVerdict, wa, wb));
            let value = |r: &Report| r.outcome.as_ref()?.exact.as_ref()?.value;
            if value(a).is_some() || value(b).is_some() {
                out.push(plain(
                    Measure::ExactValue,
                    Unit::Value,
                    Basis::Exact,
                    value(a),
                    value(b),
                ));
            }
        }
    }
    // Length.
    if let (Some(la), Some(lb)) = (a.length.as_ref(), b.length.as_ref()) {
        let (ma, va, na) = moments(&la.histogram);
        let (mb, vb, nb) = moments(&lb.histogram);
        let mut r = plain(
            Measure::MeanTurns,
            Unit::Turns,
            Basis::Exact,
            Some(la.mean),
            Some(lb.mean),
        );
        let one_game = |r: &Report| r.outcome.as_ref().is_some_and(|o| o.one_game_per_seating);
        if na > 1 && nb > 1 && !(one_game(a) && one_game(b)) {
            let d = ma - mb;
            let se = (va / na as f64 + vb / nb as f64).sqrt();
            r.diff = Some(d);
            r.low = Some(d - 1.96 * se);
            r.high = Some(d + 1.96 * se);
            r.basis = Basis::Spread;
            r.differs = Some(d - 1.96 * se > 0.0 || d + 1.96 * se < 0.0);
        }
        out.push(r);
        out.push(plain(
            Measure::MedianTurns,
            Unit::Count,
            Basis::NoInterval,
            Some(f64::from(la.median)),
            Some(f64::from(lb.median)),
        ));
        out.push(plain(
            Measure::P90Turns,
            Unit::Count,
            Basis::NoInterval,
            Some(f64::from(la.p90)),
            Some(f64::from(lb.p90)),
        ));
    }
    // Tension.
    if let (Some(ta), Some(tb)) = (a.tension.as_ref(), b.tension.as_ref()) {
        for (name, unit, x, y) in [
            (
                Measure::LeadChanges,
                Unit::Number,
                ta.lead_changes,
                tb.lead_changes,
            ),
            (Measure::Drama, Unit::Number, ta.drama, tb.drama),
            (
                Measure::Decisiveness,
                Unit::Share,
                ta.decisiveness,
                tb.decisiveness,
            ),
        ] {
            out.push(plain(name, unit, Basis::NoInterval, Some(x), Some(y)));
        }
    }
    // Decisions.
    if let (Some(da), Some(db)) = (a.decisions.as_ref(), b.decisions.as_ref()) {
        out.push(plain(
            Measure::Branching,
            Unit::Number,
            Basis::NoInterval,
            Some(da.branching_mean),
            Some(db.branching_mean),
        ));
        out.push(plain(
            Measure::ChoiceShare,
            Unit::Share,
            Basis::NoInterval,
            Some(da.choice_share),
            Some(db.choice_share),
        ));
        for (side, ua, ub) in [
            ("h", &da.cpu_command_use.h, &db.cpu_command_use.h),
            ("c", &da.cpu_command_use.c, &db.cpu_command_use.c),
        ] {
            let mut names: Vec<&String> = ua.keys().chain(ub.keys()).collect();
            names.sort();
            names.dedup();
            for n in names {
                let (x, y) = (
                    ua.get(n).and_then(|v| v.as_f64()),
                    ub.get(n).and_then(|v| v.as_f64()),
                );
                out.push(plain(
                    Measure::CommandUse {
                        side: side.to_string(),
                        command: n.clone(),
                    },
                    Unit::Share,
                    Basis::NoInterval,
                    Some(x.unwrap_or(0.0)),
                    Some(y.unwrap_or(0.0)),
                ));
            }
        }
    }
    // Rules.
    if let (Some(ra), Some(rb)) = (a.rules.as_ref(), b.rules.as_ref()) {
        let fired = |r: &Report, l: &RuleLine| {
            let n = r.sample_games;
            (n > 0).then(|| {
                super::sampled(
                    l.games_fired as f64 / n as f64,
                    n,
                    r.sample_distinct_games > 1,
                )
            })
        };
        for (x, y) in match_lines(ra, rb) {
            let text = x.or(y).map_or("", |l| l.text.trim()).to_string();
            let mut r = rates(
                Measure::RuleFires {
                    a_line: x.map(|l| l.line),
                    b_line: y.map(|l| l.line),
                    text,
                },
                Unit::Share,
                x.and_then(|l| fired(a, l)).as_ref(),
                y.and_then(|l| fired(b, l)).as_ref(),
            );
            let dead = |l: Option<&RuleLine>| l.and_then(|l| l.dead).map(str::to_string);
            if dead(x) != dead(y) {
                r.a_word = Some(dead(x).unwrap_or_else(|| {
                    if x.is_some() {
                        "fires".into()
                    } else {
                        "absent".into()
                    }
                }));
                r.b_word = Some(dead(y).unwrap_or_else(|| {
                    if y.is_some() {
                        "fires".into()
                    } else {
                        "absent".into()
                    }
                }));
                r.differs = Some(true);
            }
            out.push(r);
        }
    }
    // Restricted play.
    if let (Some(ra), Some(rb)) = (a.restricted.as_ref(), b.restricted.as_ref()) {
        let mut keys: Vec<(crate::side::Side, &String)> =
            ra.iter().chain(rb).map(|r| (r.side, &r.command)).collect();
        keys.sort();
        keys.dedup();
        for (side, cmd) in keys {
            let find = |v: &'_ [super::Restricted]| {
                v.iter()
                    .find(|r| r.side == side && &r.command == cmd)
                    .map(|r| Rate {
                        value: r.delta,
                        low: r.delta_low,
                        high: r.delta_high,
                    })
            };
            out.push(rates(
                Measure::Restricted {
                    side: side.to_string(),
                    command: cmd.clone(),
                },
                Unit::Points,
                find(ra).as_ref(),
                find(rb).as_ref(),
            ));
        }
    }
    // Skill.
    if let (Some(sa), Some(sb)) = (a.skill.as_ref(), b.skill.as_ref()) {
        let mut keys: Vec<(&String, &String)> = sa.iter().chain(sb).map(|p| (&p.a, &p.b)).collect();
        keys.sort();
        keys.dedup();
        for (pa, pb) in keys {
            let find = |v: &'_ [super::SkillPair]| {
                v.iter().find(|p| &p.a == pa && &p.b == pb).map(|p| Rate {
                    value: p.a_win_rate,
                    low: p.low,
                    high: p.high,
                })
            };
            out.push(rates(
                Measure::Skill {
                    a: pa.clone(),
                    b: pb.clone(),
                },
                Unit::Share,
                find(sa).as_ref(),
                find(sb).as_ref(),
            ));
        }
        out.push(words(
            Measure::SkillVerdict,
            a.skill_verdict.map(|v| v.token().to_string()),
            b.skill_verdict.map(|v| v.token().to_string()),
        ));
    }
    // Sweep.
    if let (Some(sa), Some(sb)) = (a.sweep.as_ref(), b.sweep.as_ref()) {
        let fair = |s: &super::SweepReport| {
            if s.fair.is_empty() {
                "none".to_string()
            } else {
                s.fair
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        out.push(words(
            Measure::SweepFair {
                name: sa.name.clone(),
            },
            Some(fair(sa)),
            Some(fair(sb)),
        ));
        for p in &sa.points {
            let q = sb.points.iter().find(|q| q.value == p.value);
            let rate = |p: &super::SweepPoint| {
                p.h_win_rate.map(|v| Rate {
                    value: v,
                    low: p.low,
                    high: p.high,
                })
            };
            out.push(rates(
                Measure::SweepScore {
                    name: sa.name.clone(),
                    value: p.value,
                },
                Unit::Share,
                rate(p).as_ref(),
                q.and_then(rate).as_ref(),
            ));
        }
    }
    out
}

fn figure(unit: Unit, x: f64, pts: &str) -> String {
    match unit {
        Unit::Share => format!("{:.1}%", 100.0 * x),
        Unit::Points => format!("{:+.1}{pts}", 100.0 * x),
        Unit::Turns => format!("{x:.1}"),
        Unit::Count => format!("{x:.0}"),
        Unit::Value => format!("{x:+.4}"),
        Unit::Number | Unit::Word => format!("{x:.2}"),
    }
}

fn difference(unit: Unit, d: f64) -> String {
    match unit {
        Unit::Share | Unit::Points => format!("{:+.1} points", 100.0 * d),
        Unit::Turns => format!("{d:+.1} turns"),
        Unit::Count => format!("{d:+.0}"),
        Unit::Value => format!("{d:+.4}"),
        Unit::Number | Unit::Word => format!("{d:+.2}"),
    }
}

fn bound(unit: Unit, x: f64) -> String {
    match unit {
        Unit::Share | Unit::Points => format!("{:+.1}", 100.0 * x),
        Unit::Value => format!("{x:+.4}"),
        _ => format!("{x:+.1}"),
    }
}

/// A row's A and B as printed.
pub fn sides(d: &Diff) -> [String; 2] {
    sides_with(d, spoken, " pts")
}

/// [`sides`] with the words given by `word` (a token to words) and `pts` after points.
pub fn sides_with(d: &Diff, word: impl Fn(&str) -> String, pts: &str) -> [String; 2] {
    let one = |x: Option<f64>, w: &Option<String>| match (w, x) {
        (Some(w), Some(x)) if d.unit != Unit::Word => {
            format!("{} ({})", figure(d.unit, x, pts), word(w))
        }
        (Some(w), _) => word(w),
        (None, Some(x)) => figure(d.unit, x, pts),
        (None, None) => "—".to_string(),
    };
    [one(d.a, &d.a_word), one(d.b, &d.b_word)]
}

/// A row's difference as printed: the difference and its interval, or why there is none.
pub fn change(d: &Diff) -> String {
    if d.unit == Unit::Word {
        return match d.differs {
            Some(true) => "changed".to_string(),
            Some(false) => "the same".to_string(),
            None => String::new(),
        };
    }
    let Some(x) = d.diff else {
        return match (d.a, d.b) {
            (Some(_), None) | (None, Some(_)) => "only in one".to_string(),
            _ => "not computed".to_string(),
        };
    };
    match (d.basis, d.low, d.high) {
        (_, Some(lo), Some(hi)) => format!(
            "{} (95% {} to {})",
            difference(d.unit, x),
            bound(d.unit, lo),
            bound(d.unit, hi)
        ),
        (Basis::Exact, ..) => format!("{} (exact)", difference(d.unit, x)),
        _ => format!("{} (no interval)", difference(d.unit, x)),
    }
}

/// Whether a row is listed at once (the rest are counted, or folded in the studio): the
/// outcome, length, tension and sweep always; other rows when they differ, move by 5 points
/// (shares) without an interval, or are only in one version.
pub fn shown(d: &Diff) -> bool {
    matches!(d.section, "outcome" | "length" | "tension" | "sweep")
        || d.differs == Some(true)
        || (d.differs.is_none()
            && d.diff.is_some_and(|x| match d.unit {
                Unit::Share | Unit::Points => x.abs() >= 0.05,
                _ => x.abs() >= 0.1,
            }))
        || d.a.is_none() != d.b.is_none()
        || d.what == Measure::SkillVerdict
}

fn section_title(s: &str) -> &'static str {
    match s {
        "outcome" => "OUTCOME",
        "length" => "LENGTH",
        "tension" => "TENSION",
        "decisions" => "DECISIONS",
        "rules" => "RULES (games each line fires in, random players)",
        "restricted" => "RESTRICTED PLAY (a side's score change without one command)",
        "skill" => "SKILL",
        _ => "SWEEP",
    }
}

/// The comparison as text (`kumite report A --against B`).
pub fn render(c: &Comparison) -> String {
    let mut s = String::new();
    let (a, b) = (&c.a, &c.b);
    let _ = writeln!(s, "A: {}\nB: {}", a.file, b.file);
    let o = a.outcome.as_ref().or(b.outcome.as_ref());
    let _ = writeln!(
        s,
        "{} games a seating, seed {}; a difference is A − B with its 95% interval (the two reports' games are separate samples); DIFFERS: the interval leaves out 0.",
        a.games, a.seed
    );
    if !c.same_players {
        let _ = writeln!(
            s,
            "NOTE — the two files' CPUs differ (each report's default players are its file's own CPU):\n  A {}\n  B {}\n  Give --players to compare the rules alone.",
            a.players, b.players
        );
    }
    for (name, r) in [("A", a), ("B", b)] {
        let p = &r.problems;
        if p.rule_error_games > 0 {
            let _ = writeln!(
                s,
                "RULE ERRORS in {name} — {} of {} games; first: {}",
                p.rule_error_games,
                p.games,
                p.first_rule_error.as_deref().unwrap_or("?")
            );
        }
        if p.forfeit_games > 0 {
            let _ = writeln!(
                s,
                "FORFEITS in {name} — {} of {} games; first: {}",
                p.forfeit_games,
                p.games,
                p.first_forfeit.as_deref().unwrap_or("?")
            );
        }
    }
    if o.is_some_and(|o| o.one_game_per_seating) {
        let _ = writeln!(
            s,
            "Each seating played one game over and over (deterministic players and rules): those differences are exact for these players."
        );
    }
    let mut hidden = 0usize;
    let mut k = 0;
    while k < c.differences.len() {
        let section = c.differences[k].section;
        let end = c.differences[k..]
            .iter()
            .position(|d| d.section != section)
            .map_or(c.differences.len(), |e| k + e);
        let rows = &c.differences[k..end];
        k = end;
        let show: Vec<&Diff> = rows.iter().filter(|d| shown(d)).collect();
        let rest = rows.len() - show.len();
        hidden += rest;
        if show.is_empty() {
            let _ = writeln!(
                s,
                "\n{}: {} {}, none differs or moved 5 points",
                section_title(section),
                rows.len(),
                if rows.len() == 1 {
                    "measure"
                } else {
                    "measures"
                }
            );
            continue;
        }
        let _ = writeln!(s, "\n{}", section_title(section));
        let _ = writeln!(s, "  {:<36} {:>16} {:>16}   A − B", "", "A", "B");
        for d in show {
            let [x, y] = sides(d);
            let mark = if d.differs == Some(true) {
                "   DIFFERS"
            } else {
                ""
            };
            if d.measure.chars().count() > 36 {
                let _ = writeln!(s, "  {}", d.measure);
                let _ = writeln!(s, "  {:<36} {:>16} {:>16}   {}{mark}", "", x, y, change(d));
            } else {
                let _ = writeln!(
                    s,
                    "  {:<36} {:>16} {:>16}   {}{mark}",
                    d.measure,
                    x,
                    y,
                    change(d)
                );
            }
        }
        if rest > 0 {
            let _ = writeln!(
                s,
                "  ({rest} more {} the same within {} intervals or moved less than 5 points; --format json lists every row)",
                if rest == 1 {
                    "measure is"
                } else {
                    "measures are"
                },
                if rest == 1 { "its" } else { "their" }
            );
        }
    }
    let differing = c
        .differences
        .iter()
        .filter(|d| d.differs == Some(true))
        .count();
    let _ = writeln!(
        s,
        "\n{} of {} measures differ ({} not shown).",
        differing,
        c.differences.len(),
        hidden
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mover_is_newcombes_interval_for_two_proportions() {
        // Newcombe (1998), example (a): 56/70 against 48/80, difference 0.2, interval
        // 0.0524 to 0.3339 (method 10).
        let a = super::super::wilson(56.0 / 70.0, 70);
        let b = super::super::wilson(48.0 / 80.0, 80);
        let (d, ci) = mover(&a, &b);
        let (lo, hi) = ci.expect("both sampled");
        assert!((d - 0.2).abs() < 1e-12);
        assert!((lo - 0.0524).abs() < 5e-4, "{lo}");
        assert!((hi - 0.3339).abs() < 5e-4, "{hi}");
    }

    #[test]
    fn length_moments_from_a_histogram() {
        let (m, v, n) = moments(&[[2, 1], [4, 1]]);
        assert_eq!((m, v, n), (3.0, 2.0, 2));
    }
}
