//! `kumite tree`: the derived victory-condition graph with both sides' distances.

use crate::analysis::{VictoryGraph, distances};
use crate::engine::{Engine, State};
use crate::program::RuleProgram;

/// The graph and distances as the JSON `kumite tree --format json` prints.
pub fn tree_json(p: &RuleProgram, g: &VictoryGraph, eng: &Engine, st: &State) -> serde_json::Value {
    let dh = distances(g, eng, st, 0);
    let dc = distances(g, eng, st, 1);
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
                "distance": {"h": dh.node[i], "c": dc.node[i]},
                "achievers": n.achievers.iter().map(|a| serde_json::json!({
                    "line": a.line, "rule": a.text, "origin": a.origin, "needs_command": a.needs_command,
                    "step": format!("{:?}", a.step), "conditions": a.conds,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let decisive: Vec<serde_json::Value> = g
        .decisive
        .iter()
        .enumerate()
        .map(|(k, d)| serde_json::json!({"line": d.line, "rule": d.text, "conditions": d.conds, "excluded": d.excluded, "distance": {"h": dh.decisive[k], "c": dc.decisive[k]}}))
        .collect();
    let _ = p;
    serde_json::json!({
        "decisive": decisive,
        "nodes": nodes,
        "excluded": g.excluded,
        "distance_to_win": {"h": dh.to_win, "c": dc.to_win},
    })
}

/// The graph as text: decisive rules, then nodes by level with achievers.
pub fn tree_text(g: &VictoryGraph, eng: &Engine, st: &State) -> String {
    let dh = distances(g, eng, st, 0);
    let dc = distances(g, eng, st, 1);
    let mut s = format!(
        "distance to winning: h {}, c {}\n\ndecisive rules:\n",
        dh.to_win, dc.to_win
    );
    for (k, d) in g.decisive.iter().enumerate() {
        s.push_str(&format!(
            "  line {:>3}  {}   (h {}, c {})\n",
            d.line, d.text, dh.decisive[k], dc.decisive[k]
        ));
        for &c in &d.conds {
            s.push_str(&format!("      needs #{c} {}\n", g.nodes[c].text));
        }
    }
    let max_level = g.nodes.iter().map(|n| n.level).max().unwrap_or(0);
    for level in 1..=max_level {
        s.push_str(&format!("\nlevel {level}:\n"));
        for (i, n) in g.nodes.iter().enumerate().filter(|(_, n)| n.level == level) {
            let mark = |h: bool| if h { "✓" } else { " " };
            s.push_str(&format!(
                "  #{i:<3} {:<28} h {:>4}{}  c {:>4}{}\n",
                n.text,
                dh.node[i],
                mark(dh.holds[i]),
                dc.node[i],
                mark(dc.holds[i])
            ));
            for a in &n.achievers {
                let conds: Vec<String> = a.conds.iter().map(|c| format!("#{c}")).collect();
                s.push_str(&format!(
                    "        ← line {:>3} {}{}\n",
                    a.line,
                    a.text,
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
    let dh = distances(g, eng, st, 0);
    let dc = distances(g, eng, st, 1);
    let esc = |t: &str| t.replace('\\', "\\\\").replace('"', "\\\"");
    let mut s = String::from(
        "digraph victory {\n  rankdir=LR;\n  node [shape=box, fontname=\"Noto Sans CJK JP\"];\n  win [label=\"勝利\", shape=doublecircle];\n",
    );
    for (k, d) in g.decisive.iter().enumerate() {
        s.push_str(&format!(
            "  d{k} [label=\"line {}\\n{}\", shape=ellipse];\n  d{k} -> win;\n",
            d.line,
            esc(&d.text)
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
            dh.node[i],
            dc.node[i]
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
