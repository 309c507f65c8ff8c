//! The report as text (`kumite report`, the default format).

use super::{Outcomes, Rate, Report};
use std::fmt::Write;

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn interval(r: &Rate) -> String {
    format!("{} (95% {}–{})", pct(r.value), pct(r.low), pct(r.high))
}

fn outcomes(o: &Outcomes) -> String {
    format!(
        "h {} wins, c {} wins, {} draws, {} turn-limit draws, {} errors",
        o.h_wins, o.c_wins, o.draws, o.timeouts, o.errors
    )
}

/// The exact verdict on the start in one line.
fn exact_text(e: &super::Exact) -> String {
    match e.value {
        Some(v) if e.kind == "value" => format!("value {v:+.4} for h — {}", e.detail),
        _ => e.detail.clone(),
    }
}

/// The report as text; sections not computed (a cancelled report) are left out.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
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
    if let Some(o) = r.outcome.as_ref().filter(|o| o.games == 0) {
        // Only the exact verdict was asked for (`--sections exact`): no sampled lines.
        if let Some(e) = &o.exact {
            let _ = writeln!(s, "\nEXACT\n  {}", exact_text(e));
        }
    } else if let Some(o) = &r.outcome {
        let n = r.games;
        let _ = writeln!(
            s,
            "\nOUTCOME — sampled ({n} games per seating, 95% intervals)"
        );
        if r.simultaneous {
            let _ = writeln!(s, "  {}", outcomes(&o.h_first));
        } else {
            let _ = writeln!(s, "  h moves first: {}", outcomes(&o.h_first));
            if let Some(c) = &o.c_first {
                let _ = writeln!(s, "  c moves first: {}", outcomes(c));
            }
        }
        let _ = writeln!(s, "  h's score (a draw counts ½): {}", interval(&o.h_score));
        if let Some(f) = &o.first_mover_advantage {
            let _ = writeln!(
                s,
                "  first-mover advantage: {:+.1} points (95% {:+.1} to {:+.1})",
                100.0 * f.value,
                100.0 * f.low,
                100.0 * f.high
            );
        }
        if let Some(e) = &o.exact {
            let _ = writeln!(s, "  exact: {}", exact_text(e));
        }
    }
    if let Some(l) = &r.length {
        let _ = writeln!(
            s,
            "\nLENGTH — sampled (the outcome games)\n  mean {:.1} turns, median {}, p90 {}",
            l.mean, l.median, l.p90
        );
    }
    if let Some(t) = &r.tension {
        let _ = writeln!(
            s,
            "\nTENSION — sampled (the derived evaluation along the outcome games)\n  lead changes {:.2} per game, drama {:.1} points, decisiveness {:.2}",
            t.lead_changes, t.drama, t.decisiveness
        );
    }
    if let Some(d) = &r.decisions {
        let _ = writeln!(
            s,
            "\nDECISIONS — sampled ({} random games)\n  {:.2} enabled commands per choice; {} of choices have more than one option",
            r.sample_games,
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
    if let Some(rs) = &r.restricted {
        let _ = writeln!(
            s,
            "\nRESTRICTED PLAY — sampled ({} games per seating): a side never uses a command",
            r.restricted_games
        );
        for x in rs {
            let verdict = match x.verdict {
                Some("no_effect") => "  no effect",
                Some("decisive") => "  decisive",
                _ => "",
            };
            let _ = writeln!(
                s,
                "  {} without {:<16} score {} — change {:+.1} points (95% {:+.1} to {:+.1}), {} games changed{verdict}",
                x.side,
                x.command,
                interval(&Rate {
                    value: x.win_rate,
                    low: x.low,
                    high: x.high
                }),
                100.0 * x.delta,
                100.0 * x.delta_low,
                100.0 * x.delta_high,
                x.games_changed
            );
        }
    }
    if let Some(sk) = &r.skill {
        let _ = writeln!(
            s,
            "\nSKILL — sampled ({} games per pairing, each level half on each side)",
            r.skill_games
        );
        for p in sk {
            let _ = writeln!(
                s,
                "  {:<8} vs {:<8} {} scores {}",
                p.a,
                p.b,
                p.a,
                interval(&Rate {
                    value: p.a_win_rate,
                    low: p.low,
                    high: p.high
                })
            );
        }
    }
    match r.skill_verdict {
        Some("skill_matters") => {
            let _ = writeln!(s, "  skill matters: random loses to the deepest search");
        }
        Some(_) => {
            let _ = writeln!(
                s,
                "  no evidence that skill matters: random does as well as the deepest search"
            );
        }
        None => {}
    }
    if let Some(sw) = &r.sweep {
        let _ = writeln!(
            s,
            "\nSWEEP {} — h's score per value ({} games each)",
            sw.name, r.games
        );
        for p in &sw.points {
            let _ = writeln!(
                s,
                "  {:>6}  {}",
                p.value,
                interval(&Rate {
                    value: p.h_win_rate,
                    low: p.low,
                    high: p.high
                })
            );
        }
        let fair: Vec<String> = sw.fair.iter().map(|v| v.to_string()).collect();
        let _ = writeln!(
            s,
            "  fair (interval contains 50%): {}",
            if fair.is_empty() {
                "none".into()
            } else {
                fair.join(", ")
            }
        );
    }
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
