//! `kumite tree`: the derived victory-condition graph with both sides' distances.

use crate::analysis::{VictoryGraph, distances};
use crate::engine::{Engine, State};
use crate::program::RuleProgram;
use crate::side::Side;

/// A distance as JSON: a number, or null when it is infinite (nothing reaches it).
fn dist_json(d: u32, cap: u32) -> serde_json::Value {
    if d >= cap {
        serde_json::Value::Null
    } else {
        d.into()
    }
}

/// A distance as text: a number, or ∞.
fn dist_text(d: u32, cap: u32) -> String {
    if d >= cap {
        "∞".into()
    } else {
        d.to_string()
    }
}

/// The cap the distances use for "unreachable" (not the turn limit: §10.5).
fn cap_of(_eng: &Engine) -> u32 {
    crate::analysis::UNREACHABLE
}

/// The graph and distances as the JSON `kumite tree --format json` prints.
pub fn tree_json(p: &RuleProgram, g: &VictoryGraph, eng: &Engine, st: &State) -> serde_json::Value {
    let dh = distances(g, eng, st, Side::H);
    let dc = distances(g, eng, st, Side::C);
    let cap = cap_of(eng);
    let dj = |d: u32| dist_json(d, cap);
    let nodes: Vec<serde_json::Value> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            serde_json::json!({
                "id": i,
                "condition": n.text,
                "level": n.level,
                "holds": {"h": dh.holds[i], "c": dc.holds[i]},
                "distance": {"h": dj(dh.node[i]), "c": dj(dc.node[i])},
                "achievers": n.achievers.iter().map(|a| serde_json::json!({
                    "line": a.line, "rule": a.text(p), "origin": a.origin(p), "needs_command": a.needs_command,
                    "opponent": a.opponent, "only": a.only.map(Side::name),
                    "step": format!("{:?}", a.step), "conditions": a.conds,
                    "uses": a.spends.iter().map(|sp| serde_json::json!({"node": sp.node, "per_firing": sp.per})).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let decisive: Vec<serde_json::Value> = g
        .decisive
        .iter()
        .enumerate()
        .map(|(k, d)| serde_json::json!({"line": d.line, "rule": d.text, "conditions": d.conds, "excluded": d.excluded, "victory_rule": d.victory, "opponent": d.opponent, "only": d.only.map(Side::name), "distance": {"h": dj(dh.decisive[k]), "c": dj(dc.decisive[k])}}))
        .collect();
    let _ = p;
    serde_json::json!({
        "decisive": decisive,
        "nodes": nodes,
        "excluded": g.excluded,
        "distance_to_win": {"h": dj(dh.to_win), "c": dj(dc.to_win)},
        "unreachable": {"h": dh.unreachable, "c": dc.unreachable},
    })
}

/// The graph as text: decisive rules, then nodes by level with achievers.
pub fn tree_text(g: &VictoryGraph, eng: &Engine, st: &State) -> String {
    let dh = distances(g, eng, st, Side::H);
    let dc = distances(g, eng, st, Side::C);
    let cap = cap_of(eng);
    let dt = |d: u32| dist_text(d, cap);
    let to_win = |d: &crate::analysis::Distances| match &d.unreachable {
        Some(why) => format!("unreachable ({why})"),
        None => d.to_win.to_string(),
    };
    let mut s = format!(
        "distance to winning: h {}, c {}\n\ndecisive rules:\n",
        to_win(&dh),
        to_win(&dc)
    );
    for (k, d) in g.decisive.iter().enumerate() {
        let whose = d.whose();
        s.push_str(&format!(
            "  line {:>3}  {}   (h {}, c {}{}{}{})\n",
            d.line,
            d.text,
            dt(dh.decisive[k]),
            dt(dc.decisive[k]),
            if d.victory { "; victory rule" } else { "" },
            if whose.is_empty() { "" } else { "; " },
            whose
        ));
        for &c in &d.conds {
            s.push_str(&format!("      needs #{c} {}\n", g.nodes[c].text));
        }
    }
    let max_level = g.nodes.iter().map(|n| n.level).max().unwrap_or(0);
    let reach = [&dh, &dc].map(|d| crate::analysis::out_of_reach(g, d));
    if reach.iter().flatten().any(Option::is_some) {
        s.push_str(&format!("\n{}\n", crate::analysis::OUT_OF_REACH_LEGEND));
    }
    for level in 1..=max_level {
        s.push_str(&format!("\nlevel {level}:\n"));
        for (i, n) in g.nodes.iter().enumerate().filter(|(_, n)| n.level == level) {
            let mark = |h: bool| if h { "✓" } else { " " };
            s.push_str(&format!(
                "  #{i:<3} {:<28} h {:>4}{}  c {:>4}{}{}\n",
                n.text,
                dt(dh.node[i]),
                mark(dh.holds[i]),
                dt(dc.node[i]),
                mark(dc.holds[i]),
                crate::analysis::out_of_reach_note(reach[0][i], reach[1][i])
            ));
            for a in &n.achievers {
                let conds: Vec<String> = a.conds.iter().map(|c| format!("#{c}")).collect();
                let spends: String = a
                    .spends
                    .iter()
                    .map(|sp| format!("   [uses {} of #{} each firing]", sp.per, sp.node))
                    .collect();
                s.push_str(&format!(
                    "        ← line {:>3} {}{}{}{}{spends}\n",
                    a.line,
                    a.text(eng.prog),
                    if a.opponent {
                        "   (the opponent's own rule, fires by itself)"
                    } else {
                        ""
                    },
                    a.only
                        .map(|x| format!("   ({} only)", x.name()))
                        .unwrap_or_default(),
                    if conds.is_empty() {
                        String::new()
                    } else {
                        format!("   [needs {}]", conds.join(" "))
                    }
                ));
            }
        }
    }
    if !g.excluded.is_empty() {
        s.push_str("\nexcluded:\n");
        for x in &g.excluded {
            s.push_str(&format!(
                "  line {:>3}  {} — {}\n",
                x.line, x.what, x.reason
            ));
        }
    }
    s
}

/// The graph in Graphviz DOT.
pub fn tree_dot(g: &VictoryGraph, eng: &Engine, st: &State) -> String {
    let dh = distances(g, eng, st, Side::H);
    let dc = distances(g, eng, st, Side::C);
    let esc = |t: &str| t.replace('\\', "\\\\").replace('"', "\\\"");
    let mut s = String::from(
        "digraph victory {\n  rankdir=LR;\n  node [shape=box, fontname=\"Noto Sans CJK JP\"];\n  win [label=\"勝利\", shape=doublecircle];\n",
    );
    for (k, d) in g.decisive.iter().enumerate() {
        s.push_str(&format!(
            "  d{k} [label=\"line {}\\n{}{}\", shape=ellipse];\n  d{k} -> win;\n",
            d.line,
            esc(&d.text),
            match d.whose() {
                w if w.is_empty() => String::new(),
                w => format!("\\n({})", esc(&w)),
            }
        ));
        for &c in &d.conds {
            s.push_str(&format!("  n{c} -> d{k};\n"));
        }
    }
    for (i, n) in g.nodes.iter().enumerate() {
        s.push_str(&format!(
            "  n{i} [label=\"L{} {}\\nh {} · c {}\"];\n",
            n.level,
            esc(&n.text),
            dist_text(dh.node[i], cap_of(eng)),
            dist_text(dc.node[i], cap_of(eng))
        ));
        for a in &n.achievers {
            for &c in &a.conds {
                s.push_str(&format!("  n{c} -> n{i} [label=\"line {}\"];\n", a.line));
            }
        }
    }
    s.push_str("}\n");
    s
}

pub use crate::search::VALUE_BOUND;

/// The shortest-win answer as JSON: `status` ("found", "none" or "gave_up"), the positions
/// searched, the path when found, the plies proved free of a win otherwise, and what ran out.
fn shortest_json(w: &crate::search::solve::ShortestWin) -> serde_json::Value {
    use crate::search::solve::ShortestWin;
    let mut v = match w {
        ShortestWin::Found { path: p, positions } => serde_json::json!({
            "plies": p.len(),
            "positions": positions,
            "moves": p.iter().map(|s| {
                let mut m = serde_json::json!({"side": s.side, "command": s.command});
                if s.probability < 1.0 {
                    m["probability"] = serde_json::json!(s.probability);
                }
                m
            }).collect::<Vec<_>>(),
            "states": p.iter().map(|s| s.states.clone()).collect::<Vec<_>>(),
        }),
        ShortestWin::NoneWithin {
            plies,
            positions,
            exhausted,
        } => serde_json::json!({
            "none_within": plies,
            "positions": positions,
            "exhausted": exhausted,
        }),
        ShortestWin::GaveUp {
            complete,
            positions,
            budget,
        } => serde_json::json!({
            "none_within": complete,
            "positions": positions,
            "gave_up": budget.to_string(),
        }),
    };
    v["status"] = serde_json::json!(w.status());
    v["summary"] = serde_json::json!(w.summary());
    v
}

/// `kumite solve` as JSON: shortest win, forced win, and (asked for, simultaneous) the value.
pub fn solve(
    prog: &RuleProgram,
    first: Side,
    depth: u32,
    value: bool,
    positions: Option<usize>,
) -> serde_json::Value {
    use crate::search::search_engine;
    use crate::search::solve::{forced_win_in, shortest_win_in};
    let eng = search_engine(prog);
    let Ok(st) = eng.initial(first) else {
        return serde_json::json!({"error": "runtime error in the initial position"});
    };
    let t0 = std::time::Instant::now();
    let cap = positions.unwrap_or_else(|| {
        crate::search::solve::positions_for_memory(&st, crate::search::solve::SHORTEST_MEMORY)
    });
    let shortest = shortest_win_in(prog, &st, depth, cap, None);
    let forced = forced_win_in(prog, &st, depth, 20_000_000, None);
    let has_rand = prog.rules.iter().any(|r| r.has_rand);
    let chance = if !has_rand {
        "none".to_string()
    } else {
        let mut t = String::from(
            "rand(a,b) is chance: the shortest win may assume favourable outcomes (each step gives the probability of the outcome it assumes); the forced win holds for every outcome",
        );
        if forced.sampled {
            t.push_str(&format!(
                " (some moves had more than {} outcome combinations: the proof covers seeded samples of them, not every one)",
                crate::search::solve::SOLVER_CHANCE_EXACT
            ));
        }
        t
    };
    let mut out = serde_json::json!({
        "shortest_win": shortest_json(&shortest),
        "forced_win": {
            "exists": forced.exists,
            "plies": depth,
            "min_plies": forced.min_plies,
            "first_move": forced.first_move,
            "strategy": forced.strategy,
            "gave_up": forced.gave_up.map(|b| b.to_string()),
        },
        "chance": chance,
    });
    if value && eng.simultaneous {
        let gv =
            crate::search::value_iteration(prog, &st, VALUE_BOUND, crate::search::VALUE_POSITIONS);
        let name =
            |m: &Option<u32>| m.map_or("pass".to_string(), |c| prog.commands[c as usize].clone());
        let strat = |v: &[(Option<u32>, f64)]| -> serde_json::Map<String, serde_json::Value> {
            v.iter()
                .map(|(m, p)| (name(m), serde_json::json!(p)))
                .collect()
        };
        out["value"] = serde_json::json!(gv.value);
        out["strategy"] = serde_json::json!({"h": strat(&gv.h), "c": strat(&gv.c)});
        out["exploitability"] = serde_json::json!(gv.exploitability);
        out["converged"] = serde_json::json!(gv.residual < 1e-10);
        out["value_method"] = serde_json::json!(format!(
            "value iteration with a linear program per position over {}, {} iterations{}",
            gv.positions_text(),
            gv.iterations,
            if gv.residual < 1e-10 {
                String::new()
            } else {
                format!(
                    "; NOT converged{}: the last iteration still changed a value by {:.1e}, so \
                     the value and strategies are estimates and the exploitability is only \
                     that of the start's strategies in the values reached",
                    if gv.timed_out {
                        format!(
                            " (stopped after {} s)",
                            crate::search::solve::VALUE_TIME.as_secs()
                        )
                    } else {
                        String::new()
                    },
                    gv.residual
                )
            }
        ));
    } else if value {
        out["value"] = serde_json::Value::Null;
        out["value_method"] = serde_json::json!(
            "--value is for simultaneous games; see forced_win for alternate games"
        );
    }
    out["seconds"] = serde_json::json!(t0.elapsed().as_secs_f64());
    out
}

/// `kumite solve --against PLAYER`: how much a best reply (h) gains against PLAYER playing c,
/// over the positions within ±[`VALUE_BOUND`] of the start. `game_value` (the equilibrium value,
/// when known) turns it into the player's exploitability.
pub fn against(
    prog: &RuleProgram,
    first: Side,
    spec: &str,
    game_value: Option<f64>,
) -> Result<serde_json::Value, String> {
    use crate::engine::players::{GameInfo, Player};
    let eng = crate::search::search_engine(prog);
    let st = eng
        .initial(first)
        .map_err(|e| format!("runtime error in the initial position: {e}"))?;
    // c's policy: uniform for random, the CPU's own distribution for cpu levels, and one
    // answer per position for an external program.
    let mut policy: Box<crate::search::exact::Policy> = if spec == "random" {
        let e = crate::search::search_engine(prog);
        Box::new(move |s: &State| {
            let ms = crate::search::moves(&e, s, Side::C);
            let p = 1.0 / ms.len() as f64;
            ms.into_iter().map(|m| (m, p)).collect()
        })
    } else if let Some(settings) = crate::search::CpuSettings::of_player(prog, spec) {
        let mut cpu = crate::search::CpuPlayer::new(prog, settings.map_err(|e| e.to_string())?, 0);
        Box::new(move |s: &State| {
            cpu.reseed(crate::search::position_key(s, 1));
            cpu.policy(s, Side::C)
        })
    } else if spec.starts_with("ai:") {
        let mut ai =
            crate::players::make_player(prog, spec, 0, Side::C, 5.0).map_err(|e| e.to_string())?;
        let e = crate::search::search_engine(prog);
        ai.begin(
            &e,
            &GameInfo {
                rules: "",
                side: Side::C,
                seed: 0,
                game: 0,
            },
        )
        .map_err(|e| format!("{spec}: {}", e.message))?;
        Box::new(move |s: &State| {
            let mut enabled = Vec::new();
            e.enabled_commands(s, Side::C, &mut enabled);
            if enabled.is_empty() {
                return vec![(None, 1.0)];
            }
            match ai.choose(&e, s, Side::C, &enabled) {
                Ok(m) => vec![(m, 1.0)],
                // A program that fails here counts as passing: the reply exploits that.
                Err(_) => vec![(None, 1.0)],
            }
        })
    } else {
        return Err(format!(
            "--against {spec}: use random, cpu[:S3,…], cpu:exact or ai:COMMAND"
        ));
    };
    let br = crate::search::exact::best_response(
        prog,
        &st,
        VALUE_BOUND,
        crate::search::VALUE_POSITIONS,
        std::time::Duration::from_secs(600),
        &mut *policy,
    )
    .map_err(|e| e.to_string())?;
    Ok(serde_json::json!({
        "player": spec,
        "side": "c",
        "best_reply_value": br.value,
        "game_value": game_value,
        "exploitability": game_value.map(|g| (br.value - g).max(0.0)),
        "positions": br.positions,
        "frontier": br.frontier,
    }))
}

/// `kumite solve` as text.
pub fn solve_text(v: &serde_json::Value) -> String {
    let mut s = String::new();
    let sw = &v["shortest_win"];
    s.push_str(sw["summary"].as_str().unwrap_or("shortest win: ?"));
    s.push('\n');
    if let Some(p) = sw.as_object().filter(|p| p["status"] == "found")
        && let (Some(moves), Some(states)) = (p["moves"].as_array(), p["states"].as_array())
    {
        for (i, (m, st)) in moves.iter().zip(states).enumerate() {
            let cmd = m["command"].as_str().unwrap_or("(pass)");
            let luck = m["probability"]
                .as_f64()
                .map_or(String::new(), |p| format!(" (chance {:.0}%)", p * 100.0));
            let (h, c) = (compact(&st["h"]), compact(&st["c"]));
            // A game without states of its own (only 勝利/敗北) has none to show.
            let after = if h.is_empty() && c.is_empty() {
                String::new()
            } else {
                format!("   h {h}  c {c}")
            };
            s.push_str(&format!(
                "  {:>3}. {} [{}]{luck}{after}\n",
                i + 1,
                m["side"].as_str().unwrap_or("?"),
                cmd,
            ));
        }
    }
    match v["forced_win"]["exists"].as_bool() {
        Some(true) => {
            s.push_str(&format!(
                "forced win: yes, within {} (fastest: {}); first move {}\n",
                plies(&v["forced_win"]["plies"]),
                v["forced_win"]["min_plies"],
                v["forced_win"]["first_move"]
            ));
            let tree = &v["forced_win"]["strategy"];
            if !tree.is_null() {
                s.push_str("strategy (h's move, then every c reply and chance outcome):\n");
                s.push_str(&crate::search::solve::strategy_json_text(tree, 40, 40));
            }
        }
        Some(false) => s.push_str(&format!(
            "forced win: no forced win within {}\n",
            plies(&v["forced_win"]["plies"])
        )),
        None => s.push_str(&format!(
            "forced win: undecided — gave up ({})\n",
            v["forced_win"]["gave_up"]
                .as_str()
                .unwrap_or("budget exhausted")
        )),
    }
    if !v["value"].is_null() {
        s.push_str(&format!(
            "value for h: {:.4} ({})\nstrategy h: {}\nstrategy c: {}\nexploitability: {:.1e}\n",
            v["value"].as_f64().unwrap_or(0.0),
            v["value_method"].as_str().unwrap_or(""),
            mix_text(&v["strategy"]["h"]),
            mix_text(&v["strategy"]["c"]),
            v["exploitability"].as_f64().unwrap_or(0.0)
        ));
    }
    if let Some(a) = v.get("against").filter(|a| !a.is_null()) {
        s.push_str(&format!(
            "against {} (as c): a best reply gets {:+.4} for h over {} positions{}\n",
            a["player"].as_str().unwrap_or("?"),
            a["best_reply_value"].as_f64().unwrap_or(0.0),
            a["positions"],
            match a["exploitability"].as_f64() {
                Some(x) => format!(
                    "; game value {:+.4}, so it gives away {x:.4}",
                    a["game_value"].as_f64().unwrap_or(0.0)
                ),
                None => String::new(),
            }
        ));
    }
    if v["chance"] != "none" {
        s.push_str(&format!("note: {}\n", v["chance"].as_str().unwrap_or("")));
    }
    s
}

/// "1 ply", "7 plies".
fn plies(n: &serde_json::Value) -> String {
    match n.as_u64() {
        Some(1) => "1 ply".into(),
        _ => format!("{n} plies"),
    }
}

/// A mixed strategy as text: `グー 22.1%, パー 55.8%, チョキ 22.1%` (the JSON keeps the exact
/// probabilities).
fn mix_text(v: &serde_json::Value) -> String {
    match v.as_object() {
        Some(m) => m
            .iter()
            .map(|(k, p)| match p.as_f64() {
                Some(p) => format!("{k} {:.1}%", p * 100.0),
                None => format!("{k} {p}"),
            })
            .collect::<Vec<_>>()
            .join(", "),
        None => v.to_string(),
    }
}

fn compact(v: &serde_json::Value) -> String {
    v.as_object()
        .map(|m| {
            m.iter()
                .filter(|(k, _)| *k != "勝利" && *k != "敗北")
                .map(|(k, x)| format!("{k}={x}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}
