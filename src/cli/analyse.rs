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
                "counts_on_opponent": {"h": dh.assumes[i], "c": dc.assumes[i]},
                "achievers": n.achievers.iter().map(|a| serde_json::json!({
                    "line": a.line, "rule": a.text(p), "origin": a.origin(p), "needs_command": a.needs_command,
                    "opponent_moves": a.assumes,
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
        .map(|(k, d)| serde_json::json!({"line": d.line, "rule": d.text, "conditions": d.conds, "excluded": d.excluded, "victory_rule": d.victory, "opponent": d.opponent, "only": d.only.map(Side::name), "opponent_moves": d.assumes, "distance": {"h": dj(dh.decisive[k]), "c": dj(dc.decisive[k])}, "counts_on_opponent": {"h": dh.decisive_assumes[k], "c": dc.decisive_assumes[k]}}))
        .collect();
    let _ = p;
    serde_json::json!({
        "decisive": decisive,
        "nodes": nodes,
        "excluded": g.excluded,
        "distance_to_win": {"h": dj(dh.to_win), "c": dj(dc.to_win)},
        "distance_to_win_counts_on_opponent": {"h": dh.to_win_assumes, "c": dc.to_win_assumes},
        "unreachable": {"h": dh.unreachable, "c": dc.unreachable},
    })
}

/// The legend under a tree with a distance that counts on the opponent's move.
pub const ASSUMES_LEGEND: &str = "* the distance counts on a move of the opponent: a rule on its way has a condition on the opponent's command (O.[X] or !O.[X]), which the distance costs 0 and leaves to the search; ✓ and the distances read each side's commands as it meets them at its next turn.";

/// The graph as text: decisive rules, then nodes by level with achievers.
pub fn tree_text(g: &VictoryGraph, eng: &Engine, st: &State) -> String {
    let dh = distances(g, eng, st, Side::H);
    let dc = distances(g, eng, st, Side::C);
    let cap = cap_of(eng);
    // `*`: the distance counts on a move of the opponent.
    let star = |a: bool| if a { "*" } else { "" };
    let dm = |d: u32, a: bool| format!("{}{}", dist_text(d, cap), star(a && d < cap));
    let to_win = |d: &crate::analysis::Distances| match &d.unreachable {
        Some(why) => format!("unreachable ({why})"),
        None => format!("{}{}", d.to_win, star(d.to_win_assumes)),
    };
    let mut s = format!(
        "distance to winning: h {}, c {}\n\ndecisive rules:\n",
        to_win(&dh),
        to_win(&dc)
    );
    for (k, d) in g.decisive.iter().enumerate() {
        let whose = d.whose();
        s.push_str(&format!(
            "  line {:>3}  {}   (h {}, c {}{}{}{}{})\n",
            d.line,
            d.text,
            dm(dh.decisive[k], dh.decisive_assumes[k]),
            dm(dc.decisive[k], dc.decisive_assumes[k]),
            if d.victory { "; victory rule" } else { "" },
            if whose.is_empty() { "" } else { "; " },
            whose,
            if d.assumes.is_empty() {
                String::new()
            } else {
                format!("; counts on the opponent: {}", d.assumes.join(", "))
            }
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
    if [&dh, &dc]
        .iter()
        .any(|d| d.assumes.iter().chain(&d.decisive_assumes).any(|a| *a))
    {
        s.push_str(&format!("\n{ASSUMES_LEGEND}\n"));
    }
    for level in 1..=max_level {
        s.push_str(&format!("\nlevel {level}:\n"));
        for (i, n) in g.nodes.iter().enumerate().filter(|(_, n)| n.level == level) {
            let mark = |h: bool| if h { "✓" } else { " " };
            // The distance, `*` (counts on the opponent's move) or a space, ✓ (holds) or a space.
            let col = |d: &crate::analysis::Distances| {
                format!(
                    "{:>4}{}{}",
                    dist_text(d.node[i], cap),
                    if d.assumes[i] && d.node[i] < cap {
                        "*"
                    } else {
                        " "
                    },
                    mark(d.holds[i])
                )
            };
            s.push_str(&format!(
                "  #{i:<3} {:<28} h {}  c {}{}\n",
                n.text,
                col(&dh),
                col(&dc),
                crate::analysis::out_of_reach_note(reach[0][i], reach[1][i])
            ));
            for a in &n.achievers {
                let conds: Vec<String> = a.conds.iter().map(|c| format!("#{c}")).collect();
                let spends: String = a
                    .spends
                    .iter()
                    .map(|sp| format!("   [uses {} of #{} each firing]", sp.per, sp.node))
                    .collect();
                let assumes = if a.assumes.is_empty() {
                    String::new()
                } else {
                    format!("   [counts on the opponent: {}]", a.assumes.join(", "))
                };
                s.push_str(&format!(
                    "        ← line {:>3} {}{}{}{}{spends}{assumes}\n",
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

/// What `kumite solve` found, typed: the text and the JSON are both worded from it at the edge
/// ([`solve_text`], `serde_json::to_string`).
#[derive(serde::Serialize)]
pub struct Solved {
    /// The shortest win for h (h and c cooperating).
    #[serde(serialize_with = "shortest_json")]
    pub shortest_win: ShortestWin,
    /// Whether h forces a win within the plies asked for.
    pub forced_win: Forced,
    /// "none", or how chance was treated.
    pub chance: String,
    /// The game value (`--value`): solved, or why not.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub value: Option<ValuePart>,
    /// Wall-clock seconds of the shortest-win, forced-win and value searches.
    pub seconds: f64,
    /// `--against PLAYER`: how much a best reply gains against it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against: Option<Against>,
}

/// The forced-win part of [`Solved`].
#[derive(serde::Serialize)]
pub struct Forced {
    /// true/false, or null when the search gave up undecided (`gave_up` says why).
    pub exists: Option<bool>,
    /// The plies searched.
    pub plies: u32,
    /// The fewest plies within which h forces the win.
    pub min_plies: Option<u32>,
    /// h's first move of the win.
    pub first_move: Option<String>,
    /// The winning strategy tree.
    pub strategy: Option<crate::search::solve::Strategy>,
    /// The budget that ran out when undecided.
    pub gave_up: Option<String>,
    /// When undecided: the plies proved free of a forced win (the search deepens one ply at
    /// a time).
    pub none_within: Option<u32>,
    /// The moves the search played that raised a rule error (each valued as a loss for the
    /// side whose move raised it); None when none did.
    pub rule_errors: Option<crate::search::RuleErrorSummary>,
}

/// The value part of [`Solved`]: the game value — a simultaneous game's equilibrium, an
/// alternate game's value under optimal play (chance averaged).
#[derive(serde::Serialize)]
#[serde(untagged)]
pub enum ValuePart {
    /// Value iteration's answer.
    Solved {
        /// h's value (+1 win, −1 loss).
        value: f64,
        /// Each side's mixed strategy at the start: command → probability.
        strategy: Mixes,
        /// How much a best reply to the start's strategies gains.
        exploitability: f64,
        /// Whether the iteration converged (changes below 1e-10).
        converged: bool,
        /// How the value was computed, in words.
        value_method: String,
        /// Moves between the solved positions that raised a rule error (each valued as a loss
        /// for the side whose move raised it); None when none did.
        rule_errors: Option<crate::search::RuleErrorSummary>,
    },
}

/// Both sides' mixed strategies, command name → probability, in the rules' command order.
#[derive(serde::Serialize)]
pub struct Mixes {
    /// h's.
    pub h: Mix,
    /// c's.
    pub c: Mix,
}

/// One side's mixed strategy: (command name, probability) in the rules' command order, written
/// as a JSON object.
pub struct Mix(pub Vec<(String, f64)>);

impl serde::Serialize for Mix {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        crate::engine::players::serialize_pairs(&self.0, ser)
    }
}

/// `--against PLAYER`: a best reply's value against the player as c.
#[derive(serde::Serialize)]
pub struct Against {
    /// The player spec.
    pub player: String,
    /// The side it plays (c).
    pub side: Side,
    /// h's value when replying best.
    pub best_reply_value: f64,
    /// The equilibrium value, when known.
    pub game_value: Option<f64>,
    /// How much the player gives away (best reply − game value), when the value is known.
    pub exploitability: Option<f64>,
    /// Positions solved.
    pub positions: usize,
    /// Positions past the bound, valued by the evaluation.
    pub frontier: usize,
    /// How the turn limit was taken into account, in words.
    pub turn_limit: String,
}

impl Solved {
    /// The game value, when `--value` solved it.
    pub fn game_value(&self) -> Option<f64> {
        match self.value {
            Some(ValuePart::Solved { value, .. }) => Some(value),
            _ => None,
        }
    }
}

use crate::search::solve::ShortestWin;

/// The shortest-win answer as JSON: `status` ("found", "none" or "gave_up"), the positions
/// searched, the path when found, the plies proved free of a win otherwise, and what ran out.
fn shortest_json<S: serde::Serializer>(w: &ShortestWin, ser: S) -> Result<S::Ok, S::Error> {
    use serde::Serialize;
    let path_json = |p: &[crate::search::PathStep]| {
        serde_json::json!({
            "plies": p.len(),
            "moves": p.iter().map(|s| {
                let mut m = serde_json::json!({"side": s.side, "command": s.command});
                if s.probability < 1.0 {
                    m["probability"] = serde_json::json!(s.probability);
                }
                m
            }).collect::<Vec<_>>(),
            "states": p.iter().map(|s| s.states.clone()).collect::<Vec<_>>(),
        })
    };
    let mut v = match w {
        ShortestWin::Found { path: p, positions } => {
            let mut v = path_json(p);
            v["positions"] = serde_json::json!(positions);
            v
        }
        ShortestWin::NoneWithin {
            plies,
            positions,
            exhausted,
            set_aside,
        } => serde_json::json!({
            "none_within": plies,
            "positions": positions,
            "exhausted": exhausted,
            "set_aside": set_aside,
        }),
        ShortestWin::GaveUp {
            complete,
            positions,
            budget,
            longer,
        } => {
            let mut v = longer
                .as_deref()
                .map_or_else(|| serde_json::json!({}), path_json);
            v["none_within"] = serde_json::json!(complete);
            v["positions"] = serde_json::json!(positions);
            v["gave_up"] = serde_json::json!(budget.to_string());
            v
        }
    };
    v["status"] = serde_json::json!(w.status());
    v["summary"] = serde_json::json!(w.summary());
    v.serialize(ser)
}

/// `kumite solve`: shortest win, forced win, and (asked for, simultaneous) the value.
pub fn solve(
    prog: &RuleProgram,
    first: Side,
    depth: u32,
    value: bool,
    positions: Option<usize>,
) -> Result<Solved, String> {
    use crate::search::search_engine;
    use crate::search::solve::{forced_win_in, shortest_win_in};
    let eng = search_engine(prog);
    let st = eng
        .initial(first)
        .map_err(|e| format!("runtime error in the initial position: {e}"))?;
    let t0 = std::time::Instant::now();
    let cap = positions.unwrap_or_else(|| {
        crate::search::solve::positions_for_memory(&st, crate::search::solve::SHORTEST_MEMORY)
    });
    let shortest = shortest_win_in(prog, &st, depth, cap, None);
    let forced = forced_win_in(prog, &st, depth, crate::search::solve::FORCED_NODES, None);
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
    let value = if value {
        let gv =
            crate::search::value_iteration(prog, &st, VALUE_BOUND, crate::search::VALUE_POSITIONS);
        let name =
            |m: &Option<u32>| m.map_or("pass".to_string(), |c| prog.commands[c as usize].clone());
        let strat = |v: &[(Option<u32>, f64)]| Mix(v.iter().map(|(m, p)| (name(m), *p)).collect());
        let converged = gv.residual < 1e-10;
        let value_method = format!(
            "value iteration with {} over {}, {} iterations{}",
            if eng.simultaneous {
                "a linear program per position"
            } else {
                "the mover's best move per position (chance averaged)"
            },
            gv.positions_text(),
            gv.iterations,
            if converged {
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
                    } else if gv.out_of_memory {
                        format!(
                            " (stopped: the values by turns left outgrew {} kept changes)",
                            crate::search::solve::thousands(
                                crate::search::exact::HISTORY_CAP as u64
                            )
                        )
                    } else {
                        String::new()
                    },
                    gv.residual
                )
            }
        );
        Some(ValuePart::Solved {
            value: gv.value,
            strategy: Mixes {
                h: strat(&gv.h),
                c: strat(&gv.c),
            },
            exploitability: gv.exploitability,
            converged,
            value_method,
            rule_errors: gv.errors_summary(),
        })
    } else {
        None
    };
    Ok(Solved {
        shortest_win: shortest,
        forced_win: Forced {
            exists: forced.exists,
            plies: depth,
            min_plies: forced.min_plies,
            first_move: forced.first_move,
            strategy: forced.strategy,
            gave_up: forced.gave_up.map(|b| b.to_string()),
            none_within: forced.none_within,
            rule_errors: forced.rule_errors.summary("moves searched"),
        },
        chance,
        value,
        seconds: t0.elapsed().as_secs_f64(),
        against: None,
    })
}

/// `kumite solve --against PLAYER`: how much a best reply (h) gains against PLAYER playing c,
/// over the positions within ±[`VALUE_BOUND`] of the start. `game_value` (the equilibrium value,
/// when known) turns it into the player's exploitability.
pub fn against(
    prog: &RuleProgram,
    config: &crate::program::RunConfig,
    first: Side,
    spec: &str,
    game_value: Option<f64>,
    ai_timeout: f64,
) -> Result<Against, String> {
    use crate::engine::players::{GameInfo, Player};
    let eng = crate::search::search_engine(prog);
    let st = eng
        .initial(first)
        .map_err(|e| format!("runtime error in the initial position: {e}"))?;
    // c's policy: uniform for random, the CPU's own distribution for cpu levels, and one
    // answer per position for an external program. An external program that fails is not a
    // player that passes: its first failure ends the question (`failed`).
    let failed: std::rc::Rc<std::cell::RefCell<Option<(u64, String)>>> = Default::default();
    use crate::players::{PlayerSpec, SpecError};
    let wrong = || format!("--against {spec}: use random, cpu[:S3,…], cpu:exact or ai:COMMAND");
    let parsed = match PlayerSpec::parse(prog, config, spec) {
        Ok(PlayerSpec::Human) | Err(SpecError::Unknown(_)) => return Err(wrong()),
        other => other.map_err(|e| e.to_string())?,
    };
    let mut policy: Box<crate::search::exact::Policy> = match parsed {
        PlayerSpec::Random => {
            let e = crate::search::search_engine(prog);
            Box::new(move |s: &State| {
                let ms = crate::search::moves(&e, s, Side::C);
                let p = 1.0 / ms.len() as f64;
                ms.into_iter().map(|m| (m, p)).collect()
            })
        }
        PlayerSpec::Cpu(settings) => {
            let mut cpu = crate::search::CpuPlayer::with_config(prog, settings, 0, config);
            Box::new(move |s: &State| {
                cpu.reseed(crate::search::position_key(s, 1));
                cpu.policy(s, Side::C)
            })
        }
        ai @ PlayerSpec::Ai(_) => {
            let mut ai = ai
                .player(prog, config, 0, Side::C, ai_timeout)
                .map_err(|e| e.to_string())?;
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
            let failed = failed.clone();
            let mut asked = 0u64;
            Box::new(move |s: &State| {
                let mut enabled = Vec::new();
                e.enabled_commands(s, Side::C, &mut enabled);
                if enabled.is_empty() || failed.borrow().is_some() {
                    return vec![(None, 1.0)];
                }
                asked += 1;
                match ai.choose(&e, s, Side::C, &enabled) {
                    Ok(m) => vec![(m, 1.0)],
                    Err(err) => {
                        *failed.borrow_mut() = Some((asked, err.message));
                        vec![(None, 1.0)]
                    }
                }
            })
        }
        PlayerSpec::Human => return Err(wrong()),
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
    if let Some((asked, why)) = failed.borrow_mut().take() {
        return Err(format!(
            "--against {spec}: the AI failed on the {} position it was asked about, so no best reply was computed (a player that does not answer has no strategy to reply to): {why}",
            ordinal(asked)
        ));
    }
    Ok(Against {
        player: spec.to_string(),
        side: Side::C,
        best_reply_value: br.value,
        game_value,
        exploitability: game_value.map(|g| (br.value - g).max(0.0)),
        positions: br.positions,
        frontier: br.frontier,
        turn_limit: match br.limit {
            crate::search::exact::LimitUse::Counted { left, .. } if br.asked_turns_left < left => {
                format!(
                    "{}; the player was asked in each position with 1 to {} turns left, and taken to play with more as with {} (too many positions × turns to ask each)",
                    br.limit.text(),
                    br.asked_turns_left,
                    br.asked_turns_left
                )
            }
            _ => br.limit.text(),
        },
    })
}

/// 1st, 2nd, 3rd, 4th …
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `kumite solve` as text.
pub fn solve_text(v: &Solved) -> String {
    let mut s = String::new();
    // Rule errors lead: every verdict below values them (as losses for the side that erred).
    if let Some(e) = &v.forced_win.rule_errors {
        s.push_str(&e.text);
        s.push('\n');
    }
    let sw = &v.shortest_win;
    s.push_str(&sw.summary());
    s.push('\n');
    if let Some(path) = sw.path() {
        for (i, m) in path.iter().enumerate() {
            let cmd = m.command.as_deref().unwrap_or("(pass)");
            let luck = if m.probability < 1.0 {
                format!(" (chance {:.0}%)", m.probability * 100.0)
            } else {
                String::new()
            };
            let (h, c) = (compact(&m.states.h), compact(&m.states.c));
            // A game without states of its own (only 勝利/敗北) has none to show.
            let after = if h.is_empty() && c.is_empty() {
                String::new()
            } else {
                format!("   h {h}  c {c}")
            };
            s.push_str(&format!(
                "  {:>3}. {} [{}]{luck}{after}\n",
                i + 1,
                m.side.as_str(),
                cmd
            ));
        }
    }
    let f = &v.forced_win;
    match f.exists {
        Some(true) => {
            s.push_str(&format!(
                "forced win: yes, within {} (fastest: {}); first move {}\n",
                plies(f.plies),
                f.min_plies.map_or("?".into(), |p| p.to_string()),
                f.first_move
                    .as_deref()
                    .map_or("null".into(), |m| format!("\"{m}\""))
            ));
            if let Some(tree) = &f.strategy {
                s.push_str("strategy (h's move, then every c reply and chance outcome):\n");
                s.push_str(&crate::search::solve::strategy_text(tree, 40, 40));
            }
        }
        Some(false) => s.push_str(&format!(
            "forced win: no forced win within {}\n",
            plies(f.plies)
        )),
        None => {
            let why = f.gave_up.as_deref().unwrap_or("budget exhausted");
            s.push_str(&match f.none_within {
                Some(n) if n > 0 => format!(
                    "forced win: none within {} (proved); undecided beyond — gave up ({why})\n",
                    plies(n)
                ),
                _ => format!("forced win: undecided — gave up ({why})\n"),
            })
        }
    }
    if let Some(ValuePart::Solved {
        value,
        strategy,
        exploitability,
        value_method,
        rule_errors,
        ..
    }) = &v.value
    {
        if let Some(e) = rule_errors {
            s.push_str(&e.text);
            s.push('\n');
        }
        s.push_str(&format!(
            "value for h: {value:.4} ({value_method})\nstrategy h: {}\nstrategy c: {}\nexploitability: {exploitability:.1e}\n",
            mix_text(&strategy.h),
            mix_text(&strategy.c),
        ));
    }
    if let Some(a) = &v.against {
        s.push_str(&format!(
            "against {} (as c): a best reply gets {:+.4} for h over {} positions ({}){}\n",
            a.player,
            a.best_reply_value,
            a.positions,
            a.turn_limit,
            match (a.exploitability, a.game_value) {
                (Some(x), Some(g)) => format!("; game value {g:+.4}, so it gives away {x:.4}"),
                _ => String::new(),
            }
        ));
    }
    if v.chance != "none" {
        s.push_str(&format!("note: {}\n", v.chance));
    }
    s
}

/// "1 ply", "7 plies".
fn plies(n: u32) -> String {
    match n {
        1 => "1 ply".into(),
        _ => format!("{n} plies"),
    }
}

/// A mixed strategy as text: `グー 22.1%, パー 55.8%, チョキ 22.1%` (the JSON keeps the exact
/// probabilities).
fn mix_text(m: &Mix) -> String {
    m.0.iter()
        .map(|(k, p)| format!("{k} {:.1}%", p * 100.0))
        .collect::<Vec<_>>()
        .join(", ")
}

fn compact(v: &crate::engine::players::StateValues) -> String {
    v.0.iter()
        .skip(2) // the reserved states 勝利 and 敗北, however the file spells them
        .map(|(k, x)| format!("{k}={x}"))
        .collect::<Vec<_>>()
        .join(" ")
}
