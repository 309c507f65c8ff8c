//! `kumite suggest`: the smallest edits of a rule file's numbers that make a game fair, each
//! certified by the exact game value of the edited file (issue 42, first part).
//!
//! **Edits** are the integer literals of the file — constants and macros in `${}`, start values
//! (`!:`), costs, damages, thresholds and periods in the rules, the turn limit `T` of the `~`
//! line — changed by a few units, one or two at a time. Advantage weights (`%{}`) are left
//! alone: they steer the CPU's evaluation, not the game. Only the number's characters change,
//! so an edited file means what the original means except where the edit says; an edit after
//! which the file does not compile is dropped.
//!
//! **Certification**: the game value for h — the same value iteration as `kumite solve --value`
//! over the same positions — before and after. `method` is "exact" when every reachable
//! position was solved and the iteration converged; otherwise the value is labelled
//! "estimated" with what limited it (the bound on state values, the iterations). Games whose
//! value `solve --value` does not compute (alternate mode) are refused with a reason; sampled
//! certification by CPU games is not built yet.
//!
//! **Search**: cheapest first — every single edit by ±1, then ±2 and ±3 — within the time
//! budget; when no single edit meets the goal, pairs of the single edits that came nearest.

use crate::diag::Diagnostic;
use crate::pipeline::compile;
use crate::search::{GameValue, VALUE_BOUND, VALUE_POSITIONS, value_iteration};
use crate::syntax::lexer::{LineKind, Tok, lex_line, line_kind, norm};
use crate::syntax::names::Names;
use serde::Serialize;
use std::ops::Range;
use std::time::{Duration, Instant};

/// What a suggestion must reach.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Goals {
    /// The game value for h within ±this (0 = even).
    pub max_abs_value: f64,
    /// Under optimal play, games that end without a winner (a draw, or play that never ends)
    /// at most this share: an edit that makes a game even by making it undecidable (a charge
    /// that adds nothing) is no fix.
    pub max_draws: f64,
}

impl Default for Goals {
    fn default() -> Self {
        Goals {
            max_abs_value: 0.05,
            max_draws: 0.10,
        }
    }
}

/// How the search runs.
#[derive(Clone, Copy, Debug)]
pub struct SuggestOptions {
    /// The goals.
    pub goals: Goals,
    /// Edits per suggestion at most (1 or 2).
    pub max_edits: usize,
    /// Time budget for the search (the edited files' values).
    pub budget: Duration,
    /// Suggestions listed at most.
    pub max_suggestions: usize,
}

impl Default for SuggestOptions {
    fn default() -> Self {
        SuggestOptions {
            goals: Goals::default(),
            max_edits: 2,
            budget: Duration::from_secs(60),
            max_suggestions: 5,
        }
    }
}

/// A number of the file that an edit may change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters) of the number's first character.
    pub column: usize,
    /// Its bytes in the file.
    pub span: Range<usize>,
    /// Its value.
    pub value: i64,
}

/// One edit: the number at `line`:`column` from `from` to `to`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Edit {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters).
    pub column: usize,
    /// The number's text before.
    pub from: String,
    /// After.
    pub to: String,
    /// The line before and after, for the diff (`line 12: 費用:5 → 費用:4`).
    pub before_line: String,
    /// The line after.
    pub after_line: String,
}

/// A game value and how it was found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The value for h (+1 win, −1 loss, 0 draw or endless).
    pub value: f64,
    /// "exact" (every position solved, converged) or "estimated".
    pub method: &'static str,
    /// Positions solved, and which limit left the rest to an estimate.
    pub how: String,
    /// h's optimal mix at the start: command and probability (those above 0).
    pub h_mix: Vec<(String, f64)>,
    /// c's.
    pub c_mix: Vec<(String, f64)>,
    /// Under both optimal mixes, the share of games that end without a winner (a draw, or
    /// play that never ends).
    pub draws: f64,
}

/// One suggestion: its edits and the value before and after.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Suggestion {
    /// The edits, in file order.
    pub edits: Vec<Edit>,
    /// The file as it is.
    pub before: Verdict,
    /// The file with the edits.
    pub after: Verdict,
    /// "exact" when both values are, else "estimated".
    pub method: &'static str,
    /// Commands that enter (+) or leave (−) the start's optimal mixes.
    pub mix_changes: Vec<String>,
}

/// What `kumite suggest` found.
#[derive(Clone, Debug, Serialize)]
pub struct Suggestions {
    /// The goals, in words.
    pub goals: Vec<String>,
    /// The file's own value.
    pub before: Verdict,
    /// Whether the file meets the goals already.
    pub already_met: bool,
    /// Suggestions meeting the goals, fewest and smallest edits first.
    pub suggestions: Vec<Suggestion>,
    /// Edited files evaluated.
    pub tried: usize,
    /// Numbers of the file that edits may change.
    pub sites: usize,
    /// Seconds the search took.
    pub seconds: f64,
    /// What ran out before every edit was tried (None: all were).
    pub gave_up: Option<String>,
}

/// The numbers of `text` an edit may change (see the module documentation).
pub fn sites(text: &str) -> Vec<Site> {
    let mut out = Vec::new();
    let mut in_advantage = false;
    let mut start = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let end = start + raw.trim_end_matches(['\n', '\r']).len();
        let line = &text[start..end];
        let (kind, _) = line_kind(line);
        match kind {
            LineKind::Open('%') => in_advantage = !line.contains('}'),
            LineKind::Close => in_advantage = false,
            _ => {}
        }
        let skip =
            in_advantage || matches!(kind, LineKind::Blank | LineKind::Keys | LineKind::Open('%'));
        if kind == LineKind::Settings {
            // The turn limit: T followed by digits (full-width read as ASCII).
            let chars: Vec<(usize, char)> = line.char_indices().collect();
            let mut k = 0;
            while k < chars.len() {
                if norm(chars[k].1) == '#' {
                    break;
                }
                if norm(chars[k].1) == 'T' {
                    let d0 = k + 1;
                    let mut d1 = d0;
                    while d1 < chars.len() && norm(chars[d1].1).is_ascii_digit() {
                        d1 += 1;
                    }
                    if d1 > d0 {
                        let b0 = chars[d0].0;
                        let b1 = chars.get(d1).map_or(line.len(), |c| c.0);
                        let digits: String = chars[d0..d1].iter().map(|c| norm(c.1)).collect();
                        if let Ok(v) = digits.parse() {
                            out.push(Site {
                                line: i + 1,
                                column: d0 + 1,
                                span: start + b0..start + b1,
                                value: v,
                            });
                        }
                    }
                    k = d1;
                    continue;
                }
                k += 1;
            }
        } else if !skip {
            let mut names = Names::default();
            let mut toks = Vec::new();
            let mut diags: Vec<Diagnostic> = Vec::new();
            lex_line(text, start, end, &mut names, &mut toks, &mut diags);
            for (t, sp) in toks {
                if let Tok::Int(v) = t {
                    out.push(Site {
                        line: i + 1,
                        column: text[start..sp.start].chars().count() + 1,
                        span: sp.start..sp.end,
                        value: v,
                    });
                }
            }
        }
        start += raw.len();
    }
    out
}

/// `text` with the numbers at `sites` set to `values` (ASCII digits).
fn edited(text: &str, changes: &[(&Site, i64)]) -> String {
    let mut order: Vec<&(&Site, i64)> = changes.iter().collect();
    order.sort_by_key(|(s, _)| std::cmp::Reverse(s.span.start));
    let mut t = text.to_string();
    for (s, v) in order {
        t.replace_range(s.span.clone(), &v.to_string());
    }
    t
}

/// The game value of `text` as `kumite solve --value` computes it, or why there is none.
pub fn verdict_of(text: &str) -> Result<Verdict, String> {
    let c = compile(text);
    let Some(prog) = c.program else {
        return Err(format!(
            "the file has {} error(s)",
            c.diags.iter().filter(|d| d.is_error()).count()
        ));
    };
    if !prog.settings.simultaneous {
        return Err("suggestions need the game value that `kumite solve --value` computes, which is for simultaneous games (~同時); for an alternate game use `kumite report --sweep` for now".into());
    }
    let eng = crate::search::search_engine(&prog);
    let st = eng
        .initial(crate::engine::Side::H)
        .map_err(|e| format!("runtime error in the initial position: {}", e.message))?;
    let gv = value_iteration(&prog, &st, VALUE_BOUND, VALUE_POSITIONS);
    Ok(verdict(&prog, &gv))
}

fn verdict(prog: &crate::program::RuleProgram, gv: &GameValue) -> Verdict {
    let converged = gv.residual < 1e-10;
    let exact = gv.frontier == 0 && converged;
    let mix = |v: &[(Option<u32>, f64)]| -> Vec<(String, f64)> {
        v.iter()
            .filter(|(_, p)| *p > 1e-9)
            .map(|(m, p)| {
                (
                    m.map_or("pass".to_string(), |c| prog.commands[c as usize].clone()),
                    *p,
                )
            })
            .collect()
    };
    let mut how = gv.positions_text();
    if !converged {
        how.push_str(&format!(
            "; not converged ({} iterations, last change {:.1e})",
            gv.iterations, gv.residual
        ));
    }
    Verdict {
        value: if gv.value.abs() < 1e-12 {
            0.0
        } else {
            gv.value
        },
        method: if exact { "exact" } else { "estimated" },
        how,
        h_mix: mix(&gv.h),
        c_mix: mix(&gv.c),
        draws: (1.0 - gv.decisive).clamp(0.0, 1.0),
    }
}

fn meets(g: &Goals, v: &Verdict) -> bool {
    v.value.abs() <= g.max_abs_value + 1e-12 && v.draws <= g.max_draws + 1e-9
}

/// Commands entering (+name) or leaving (−name) either side's start mix.
fn mix_changes(a: &Verdict, b: &Verdict) -> Vec<String> {
    let mut out = Vec::new();
    for (side, x, y) in [("h", &a.h_mix, &b.h_mix), ("c", &a.c_mix, &b.c_mix)] {
        for (m, _) in y {
            if !x.iter().any(|(n, _)| n == m) {
                out.push(format!("{side} +{m}"));
            }
        }
        for (m, _) in x {
            if !y.iter().any(|(n, _)| n == m) {
                out.push(format!("{side} −{m}"));
            }
        }
    }
    out
}

fn line_of(text: &str, line: usize) -> String {
    text.lines().nth(line - 1).unwrap_or("").trim().to_string()
}

/// Searches for the smallest edits of `text`'s numbers that meet the goals.
pub fn suggest(text: &str, opts: &SuggestOptions) -> Result<Suggestions, String> {
    let t0 = Instant::now();
    let end = t0 + opts.budget;
    let before = verdict_of(text)?;
    let all = sites(text);
    let goals = vec![
        format!(
            "game value for h within ±{} (0 = even)",
            opts.goals.max_abs_value
        ),
        format!(
            "under optimal play at most {:.0}% of games end without a winner",
            100.0 * opts.goals.max_draws
        ),
    ];
    let mut out = Suggestions {
        goals,
        already_met: meets(&opts.goals, &before),
        before: before.clone(),
        suggestions: Vec::new(),
        tried: 0,
        sites: all.len(),
        seconds: 0.0,
        gave_up: None,
    };
    if out.already_met {
        out.seconds = t0.elapsed().as_secs_f64();
        return Ok(out);
    }
    let make = |changes: &[(&Site, i64)], after: Verdict| -> Suggestion {
        let new_text = edited(text, changes);
        let mut edits: Vec<Edit> = changes
            .iter()
            .map(|(s, v)| Edit {
                line: s.line,
                column: s.column,
                from: text[s.span.clone()].to_string(),
                to: v.to_string(),
                before_line: line_of(text, s.line),
                after_line: line_of(&new_text, s.line),
            })
            .collect();
        edits.sort_by_key(|e| (e.line, e.column));
        let method = if before.method == "exact" && after.method == "exact" {
            "exact"
        } else {
            "estimated"
        };
        Suggestion {
            edits,
            mix_changes: mix_changes(&before, &after),
            before: before.clone(),
            after,
            method,
        }
    };
    // Single edits, the smallest changes first.
    let mut near: Vec<(f64, usize, i64)> = Vec::new();
    'deltas: for delta in [1i64, -1, 2, -2, 3, -3] {
        for (k, s) in all.iter().enumerate() {
            let v = s.value + delta;
            if v < 0 {
                continue;
            }
            if Instant::now() >= end {
                out.gave_up = Some(format!(
                    "the {:.0} s budget ran out after {} edited files (single edits by up to ±{})",
                    opts.budget.as_secs_f64(),
                    out.tried,
                    delta.abs()
                ));
                break 'deltas;
            }
            out.tried += 1;
            let Ok(after) = verdict_of(&edited(text, &[(s, v)])) else {
                continue;
            };
            if meets(&opts.goals, &after) {
                out.suggestions.push(make(&[(s, v)], after));
            } else if after.value.abs() < before.value.abs() && after.draws <= opts.goals.max_draws
            {
                near.push((after.value.abs(), k, v));
            }
        }
        if out.suggestions.len() >= opts.max_suggestions {
            break;
        }
    }
    // Pairs of the single edits that came nearest, when no single edit was enough.
    if out.suggestions.is_empty() && opts.max_edits >= 2 && out.gave_up.is_none() {
        near.sort_by(|a, b| a.0.total_cmp(&b.0));
        near.truncate(8);
        'pairs: for i in 0..near.len() {
            for j in i + 1..near.len() {
                let (a, b) = (&near[i], &near[j]);
                if a.1 == b.1 {
                    continue;
                }
                if Instant::now() >= end {
                    out.gave_up = Some(format!(
                        "the {:.0} s budget ran out after {} edited files (pairs of edits)",
                        opts.budget.as_secs_f64(),
                        out.tried
                    ));
                    break 'pairs;
                }
                out.tried += 1;
                let changes = [(&all[a.1], a.2), (&all[b.1], b.2)];
                if let Ok(after) = verdict_of(&edited(text, &changes))
                    && meets(&opts.goals, &after)
                {
                    out.suggestions.push(make(&changes, after));
                }
            }
        }
    }
    // Fewest edits, then the smallest change, then the value nearest 0.
    out.suggestions.sort_by(|a, b| {
        let size = |s: &Suggestion| {
            s.edits
                .iter()
                .map(|e| {
                    (e.to.parse::<i64>().unwrap_or(0) - e.from.parse::<i64>().unwrap_or(0)).abs()
                })
                .sum::<i64>()
        };
        (a.edits.len(), size(a))
            .cmp(&(b.edits.len(), size(b)))
            .then(a.after.value.abs().total_cmp(&b.after.value.abs()))
    });
    out.suggestions.truncate(opts.max_suggestions);
    out.seconds = t0.elapsed().as_secs_f64();
    Ok(out)
}

/// The suggestions as text.
pub fn text(s: &Suggestions) -> String {
    let mut o = String::new();
    let v = |x: &Verdict| {
        format!(
            "{:+.4} ({}, {:.0}% without a winner)",
            x.value,
            x.method,
            100.0 * x.draws
        )
    };
    o.push_str(&format!("goals: {}\n", s.goals.join("; ")));
    o.push_str(&format!(
        "now: game value for h {} — {}\n",
        v(&s.before),
        s.before.how
    ));
    if s.already_met {
        o.push_str("the file meets the goals already: no edit suggested\n");
        return o;
    }
    if s.suggestions.is_empty() {
        o.push_str("no edit of one or two numbers found that meets the goals\n");
    }
    for (i, sg) in s.suggestions.iter().enumerate() {
        o.push_str(&format!(
            "{}. value {} → {}{}\n",
            i + 1,
            v(&sg.before),
            v(&sg.after),
            if sg.mix_changes.is_empty() {
                String::new()
            } else {
                format!("; optimal play: {}", sg.mix_changes.join(", "))
            }
        ));
        for e in &sg.edits {
            o.push_str(&format!(
                "   line {}:{}  {}  →  {}\n",
                e.line, e.column, e.before_line, e.after_line
            ));
        }
    }
    o.push_str(&format!(
        "{} numbers editable, {} edited files solved in {:.1} s{}\n",
        s.sites,
        s.tried,
        s.seconds,
        s.gave_up
            .as_ref()
            .map_or(String::new(), |g| format!("; gave up: {g}"))
    ));
    o
}
