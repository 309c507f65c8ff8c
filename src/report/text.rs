//! The report as text (`kumite report`, the default format).

use super::{Outcomes, Rate, Report, SkillVerdict};
use std::fmt::Write;

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn interval(r: &Rate) -> String {
    match (r.low, r.high) {
        (Some(lo), Some(hi)) => format!("{} (95% {}–{})", pct(r.value), pct(lo), pct(hi)),
        _ => format!("{} (every game the same game: no interval)", pct(r.value)),
    }
}

/// Points (an advantage of 0.1 is +10.0 points) with the interval, if there is one.
fn points(r: &Rate) -> String {
    match (r.low, r.high) {
        (Some(lo), Some(hi)) => format!(
            "{:+.1} points (95% {:+.1} to {:+.1})",
            100.0 * r.value,
            100.0 * lo,
            100.0 * hi
        ),
        _ => format!(
            "{:+.1} points (every game the same game: no interval)",
            100.0 * r.value
        ),
    }
}

/// "200 games, 37 different" — or that they were one game.
fn games_line(n: u64, distinct: u64) -> String {
    if distinct <= 1 && n > 1 {
        format!("{n} games, all the same game")
    } else {
        format!("{n} games, {distinct} different")
    }
}

fn outcomes(o: &Outcomes) -> String {
    let mut s = format!(
        "h {} wins, c {} wins, {} draws, {} turn-limit draws",
        o.h_wins, o.c_wins, o.draws, o.timeouts
    );
    if o.forfeits > 0 {
        let _ = write!(s, " ({} of the wins by a forfeit)", o.forfeits);
    }
    if o.errors > 0 {
        let _ = write!(s, "; {} ended by a RULE ERROR", o.errors);
    }
    s
}

/// What stands in for a figure that rule errors decide ([`super::errors_decide`]).
fn not_computed(errors: u64, games: u64) -> String {
    format!(
        "not computed — {errors} of {games} games ended in a rule error (see RULE ERRORS above)"
    )
}

/// The lead: games that rule errors ended or failing players lost, before any figure.
fn problems(s: &mut String, p: &super::GameProblems) {
    if p.rule_error_games > 0 {
        let _ = writeln!(
            s,
            "\nRULE ERRORS — {} of the report's {} games ended in a rule error; first: {}\n  Those games count in no score; a figure of which they are more than one game in twenty is not computed. Fix the rule (or see `kumite match --log`).",
            p.rule_error_games,
            p.games,
            p.first_rule_error.as_deref().unwrap_or("?")
        );
    }
    if p.forfeit_games > 0 {
        let _ = writeln!(
            s,
            "\nFORFEITS — {} of the report's {} games were lost by a player that failed; first: {}\n  Each counts as a win for the other side: the figures measure that player's failures, not the rules.",
            p.forfeit_games,
            p.games,
            p.first_forfeit.as_deref().unwrap_or("?")
        );
        for who in &p.never_moved {
            let _ = writeln!(
                s,
                "  {who} never played a move: it forfeited every game it played before its first choice."
            );
        }
    }
}

/// The exact verdict on the start in one line.
fn exact_text(e: &super::Exact) -> String {
    match e.value {
        Some(v) if e.kind == super::ExactKind::Value => {
            format!("value {v:+.4} for h — {}", e.detail)
        }
        _ => e.detail.clone(),
    }
}

/// The report as text; sections not computed (a cancelled report) are left out.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    header(&mut s, r);
    outcome_section(&mut s, r);
    length_and_tension(&mut s, r);
    decisions_section(&mut s, r);
    rules_section(&mut s, r);
    restricted_section(&mut s, r);
    skill_section(&mut s, r);
    sweep_section(&mut s, r);
    let _ = writeln!(
        s,
        "\n{:.1} s{}",
        r.seconds,
        if r.cancelled {
            " — cancelled before the end"
        } else {
            ""
        }
    );
    s
}

/// The header: the file, seed, mode and players, and the problems the games met.
fn header(s: &mut String, r: &Report) {
    let players = &r.players;
    let _ = writeln!(
        s,
        "Balance report for {} — seed {}, {} mode",
        r.file,
        r.seed,
        if r.simultaneous {
            "simultaneous"
        } else {
            "alternate"
        }
    );
    let _ = writeln!(
        s,
        "players: {} vs {} (outcome, length, tension, restricted play, sweeps); {} vs {} (decisions, rules)",
        players["outcome"]["h"].as_str().unwrap_or("?"),
        players["outcome"]["c"].as_str().unwrap_or("?"),
        players["sample"]["h"].as_str().unwrap_or("?"),
        players["sample"]["c"].as_str().unwrap_or("?"),
    );
    let any_cpu = ["outcome", "sample"].iter().any(|k| {
        ["h", "c"]
            .iter()
            .any(|x| players[k][x].as_str().is_some_and(|p| p.starts_with("cpu")))
    });
    if any_cpu {
        let _ = writeln!(
            s,
            "  (cpu:… settings: S depth, E reading mistakes in 10 moves — the report adds E1 to its own CPUs so that games differ —, N search nodes per move, so every game replays exactly)"
        );
    }
    problems(s, &r.problems);
}

/// Sections 1 and 8: outcome (with the depth check) and the exact verdict.
fn outcome_section(s: &mut String, r: &Report) {
    if let Some(o) = r.outcome.as_ref().filter(|o| o.games == 0) {
        // Only the exact verdict was asked for (`--sections exact`): no sampled lines.
        if let Some(e) = &o.exact {
            let _ = writeln!(s, "\nEXACT\n  {}", exact_text(e));
        }
    } else if let Some(o) = &r.outcome {
        let n = r.games;
        if o.one_game_per_seating {
            let _ = writeln!(
                s,
                "\nOUTCOME — one game per seating: the {n} games of each seating were all the same game ({}), so the figures below describe that game, not a sample",
                if o.forfeits > 0 {
                    "a player failed the same way in each: see FORFEITS above"
                } else {
                    "the players and the rules are deterministic"
                }
            );
        } else {
            let per = if r.simultaneous { "" } else { " per seating" };
            let _ = writeln!(
                s,
                "\nOUTCOME — sampled ({n} games{per}; {} different games; 95% intervals)",
                o.distinct_games
            );
        }
        if r.simultaneous {
            let _ = writeln!(s, "  {}", outcomes(&o.h_first));
        } else {
            let _ = writeln!(s, "  h moves first: {}", outcomes(&o.h_first));
            if let Some(c) = &o.c_first {
                let _ = writeln!(s, "  c moves first: {}", outcomes(c));
            }
        }
        if let Some(h) = &o.h_score {
            let _ = writeln!(s, "  h's score (a draw counts ½): {}", interval(h));
            if let Some(f) = &o.first_mover_advantage {
                let _ = writeln!(s, "  first-mover advantage: {}", points(f));
            }
        } else {
            let _ = writeln!(
                s,
                "  h's score and the first-mover advantage: {}",
                not_computed(o.errors, o.games)
            );
        }
        if let Some(d) = &o.depth_check
            && d.h_score.is_none()
        {
            let _ = writeln!(
                s,
                "  deeper CPUs ({} vs {}): {}",
                d.players[0],
                d.players[1],
                not_computed(d.errors, d.games * o.per_seatings())
            );
        } else if let Some(d) = &o.depth_check {
            let what = match (&d.first_mover_advantage, &d.h_score) {
                (Some(f), _) => format!("first-mover advantage {}", points(f)),
                (None, Some(h)) => format!("h's score {}", interval(h)),
                (None, None) => String::new(),
            };
            let games = if r.simultaneous {
                games_line(d.games, d.distinct_games)
            } else {
                format!(
                    "{} games per seating, {}",
                    d.games,
                    games_line(2 * d.games, d.distinct_games).replacen(
                        " games,",
                        " games in all,",
                        1
                    )
                )
            };
            let _ = writeln!(
                s,
                "  deeper CPUs ({} vs {}; {games}): {what} — {}",
                d.players[0],
                d.players[1],
                match d.agrees {
                    Some(true) => "agrees with the outcome above (within 10 points)",
                    Some(false) => {
                        "DISAGREES with the outcome above: the verdict depends on how deep the CPU looks"
                    }
                    None => {
                        "differs from the outcome above by more than 10 points, but too few games to tell (raise --games)"
                    }
                }
            );
        }
        if let Some(e) = &o.exact {
            let _ = writeln!(s, "  exact: {}", exact_text(e));
        }
    }
}

/// Sections 2 and 7: length and tension.
fn length_and_tension(s: &mut String, r: &Report) {
    let one_game = r.outcome.as_ref().is_some_and(|o| o.one_game_per_seating);
    if let Some(l) = &r.length {
        if one_game {
            let lengths: Vec<String> = l.histogram.iter().map(|h| h[0].to_string()).collect();
            let _ = writeln!(
                s,
                "\nLENGTH — the outcome's one game per seating: {} turns",
                lengths.join(" and ")
            );
        } else {
            let _ = writeln!(
                s,
                "\nLENGTH — sampled (the outcome games)\n  mean {:.1} turns, median {}, p90 {}",
                l.mean, l.median, l.p90
            );
        }
    }
    if let Some(t) = &r.tension {
        let _ = writeln!(
            s,
            "\nTENSION — sampled (the derived evaluation along the outcome games)\n  lead changes {:.2} per game, drama {:.1} points, decisiveness {:.2}",
            t.lead_changes, t.drama, t.decisiveness
        );
    }
}

/// Section 3: decisions.
fn decisions_section(s: &mut String, r: &Report) {
    if let Some(d) = &r.decisions {
        let _ = writeln!(
            s,
            "\nDECISIONS — sampled ({})\n  {:.2} enabled commands per choice; {} of choices have more than one option",
            games_line(r.sample_games, r.sample_distinct_games),
            d.branching_mean,
            pct(d.choice_share)
        );
        // The outcome players' uses only when their games were played.
        let played = [true, r.outcome.is_some()];
        for ((label, u), _) in [
            ("random", &d.command_use),
            ("outcome players", &d.cpu_command_use),
        ]
        .into_iter()
        .zip(played)
        .filter(|(_, p)| *p)
        {
            for (side, m) in [("h", &u.h), ("c", &u.c)] {
                let list: Vec<String> = m
                    .iter()
                    .map(|(k, v)| format!("{k} {}", pct(v.as_f64().unwrap_or(0.0))))
                    .collect();
                let _ = writeln!(s, "  {side} uses ({label}): {}", list.join(", "));
            }
        }
    }
}

/// Section 4: rules.
fn rules_section(s: &mut String, r: &Report) {
    if let Some(rules) = &r.rules {
        let _ = writeln!(
            s,
            "\nRULES — fired in how many of {} random games, how often (cannot fire: proved)",
            r.sample_games
        );
        for l in rules {
            let mark = match (l.dead, l.proof) {
                (Some("cannot_fire"), Some("exhaustive")) => {
                    "  ← cannot fire (no turn from any reachable position fires it)"
                }
                (Some("cannot_fire"), _) => "  ← cannot fire (no reachable value satisfies it)",
                (Some("never_fired"), _) => "  ← never fired",
                _ => "",
            };
            let _ = writeln!(
                s,
                "  line {:>4}  {:>6} games {:>9} times  {}{mark}",
                l.line, l.games_fired, l.fires, l.text
            );
        }
    }
}

/// Section 5: restricted play.
fn restricted_section(s: &mut String, r: &Report) {
    if let Some(rs) = &r.restricted {
        let _ = writeln!(
            s,
            "\nRESTRICTED PLAY — sampled ({} games per seating): a side never uses a command",
            r.restricted_games
        );
        for x in rs {
            let games = r.restricted_games * if r.simultaneous { 1 } else { 2 };
            if super::errors_decide(x.errors, games) {
                let _ = writeln!(
                    s,
                    "  {} without {:<16} {}",
                    x.side,
                    x.command,
                    not_computed(x.errors, games)
                );
                continue;
            }
            let verdict = match x.verdict {
                Some("no_effect") => "  no effect: no game's result changed".to_string(),
                Some("no_net_effect") => format!(
                    "  changes how games go, not who wins: {} games ended differently, but the score moved less than 5 points",
                    x.games_changed
                ),
                // Banning a command that raises the side's score: the side is better off never
                // playing it — a trap it falls into, not a command it needs.
                Some("decisive") if x.delta > 0.0 => format!(
                    "  a trap: banning {} raises {}'s score by {:.1} points",
                    x.command,
                    x.side,
                    100.0 * x.delta
                ),
                Some("decisive") => "  decisive".to_string(),
                _ => String::new(),
            };
            let _ = writeln!(
                s,
                "  {} without {:<16} score {} — change {}, {} games ended differently{verdict}",
                x.side,
                x.command,
                interval(&Rate {
                    value: x.win_rate,
                    low: x.low,
                    high: x.high
                }),
                points(&Rate {
                    value: x.delta,
                    low: x.delta_low,
                    high: x.delta_high
                }),
                x.games_changed
            );
        }
    }
}

/// Section 6: skill, and its verdict.
fn skill_section(s: &mut String, r: &Report) {
    if let Some(sk) = &r.skill {
        let _ = writeln!(
            s,
            "\nSKILL — sampled ({} games per pairing, {} for random vs the deepest level — enough to see a 10-point difference; each level half the games on each side)",
            r.skill_games, r.skill_key_games
        );
        for p in sk {
            if super::errors_decide(p.errors, p.games + p.errors) {
                let _ = writeln!(
                    s,
                    "  {:<8} vs {:<8} {}",
                    p.a,
                    p.b,
                    not_computed(p.errors, p.games + p.errors)
                );
                continue;
            }
            let _ = writeln!(
                s,
                "  {:<8} vs {:<8} {} scores {} ({})",
                p.a,
                p.b,
                p.a,
                interval(&Rate {
                    value: p.a_win_rate,
                    low: p.low,
                    high: p.high
                }),
                games_line(p.games, p.distinct_games)
            );
            if p.games < p.planned_games {
                let _ = writeln!(
                    s,
                    "    stopped after {} of {} games: its 99.9% interval was already clear of an even score",
                    p.games, p.planned_games
                );
            }
        }
    }
    let verdict = match r.skill_verdict {
        Some(SkillVerdict::SkillMatters) => "skill matters: random loses to the deepest search",
        Some(SkillVerdict::NoDifference) => {
            "skill makes no difference of 10 points or more (the sample would show one 4 times in 5): random does as well as the deepest search"
        }
        Some(SkillVerdict::RandomBetter) => {
            "random play beats the deepest search: the CPU misjudges this game"
        }
        Some(SkillVerdict::TooFewGames) => {
            "too few games to tell whether skill matters (raise --games)"
        }
        None => "",
    };
    if !verdict.is_empty() {
        let _ = writeln!(s, "  {verdict}");
    }
}

/// The sweep.
fn sweep_section(s: &mut String, r: &Report) {
    if let Some(sw) = &r.sweep {
        let _ = writeln!(
            s,
            "\nSWEEP {} — h's score per value ({} games each)",
            sw.name, r.games
        );
        for p in &sw.points {
            let Some(rate) = p.h_win_rate else {
                let _ = writeln!(s, "  {:>6}  {}", p.value, not_computed(p.errors, p.games));
                continue;
            };
            let _ = writeln!(
                s,
                "  {:>6}  {}  ({})",
                p.value,
                interval(&Rate {
                    value: rate,
                    low: p.low,
                    high: p.high
                }),
                games_line(r.games, p.distinct_games)
            );
        }
        let fair: Vec<String> = sw.fair.iter().map(|v| v.to_string()).collect();
        let computed = sw
            .points
            .iter()
            .filter(|p| !super::errors_decide(p.errors, p.games))
            .count();
        let _ = writeln!(
            s,
            "  fair (interval contains 50%): {}",
            if computed == 0 {
                "not computed: rule errors decide every value".into()
            } else if fair.is_empty() {
                "none".into()
            } else {
                fair.join(", ")
            }
        );
    }
}
