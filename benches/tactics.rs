//! The tactics suite: positions of the bundled alternate fights (and small variants)
//! whose right move is known exactly by forced-win search — win now, or avoid the move the
//! opponent punishes by force — and how many the CPU finds at its levels. See
//! `kumite::search::tactics`. Run: `cargo bench --bench tactics` (a report, not a timing).

use kumite::pipeline::compile;
use kumite::program::RuleProgram;
use kumite::search::CpuSettings;
use kumite::search::tactics::{Collect, Kind, collect, solve_with};
use std::time::Instant;

/// Files, each with `--set`-like edits of its start (a small variant reaches decisive positions
/// in fewer random moves).
const FILES: &[(&str, &[(&str, &str)])] = &[
    ("rules/karate.kmt", &[]),
    (
        "rules/karate.kmt",
        &[("h.体力=30,c.体力=31", "h.体力=8,c.体力=8")],
    ),
    ("rules/sumo.kmt", &[]),
    ("rules/sumo.kmt", &[("後ろ余裕度=6", "後ろ余裕度=3")]),
    ("rules/moge_battle.kmt", &[]),
    (
        "rules/moge_battle.kmt",
        &[("h.HP=30,", "h.HP=10,"), ("c.HP=40,", "c.HP=12,")],
    ),
    ("tests/designs/wrestling.kmt", &[]),
    ("tests/designs/wrestling.kmt", &[("体力=20", "体力=6")]),
];

const LEVELS: &[&str] = &["", "S1", "S5"];

fn program(path: &str, edits: &[(&str, &str)]) -> RuleProgram {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut text = std::fs::read_to_string(root.join(path)).expect("read");
    for (from, to) in edits {
        assert!(text.contains(from), "{path}: {from} not found");
        text = text.replace(from, to);
    }
    compile(&text).program.expect("compiles")
}

fn main() {
    let how = Collect::default();
    let mut totals = vec![(0usize, 0usize); LEVELS.len()];
    println!(
        "Tactics: forced-win search within {} plies (the move included), {} nodes a position; positions from seeded random games",
        how.plies, how.node_cap
    );
    for (path, edits) in FILES {
        let prog = program(path, edits);
        let t0 = Instant::now();
        let suite = collect(&prog, &how);
        let wins = suite.iter().filter(|t| t.kind == Kind::Win).count();
        let label = if edits.is_empty() {
            path.to_string()
        } else {
            format!(
                "{path} ({})",
                edits.iter().map(|e| e.1).collect::<Vec<_>>().join(", ")
            )
        };
        print!(
            "{label}: {} positions ({wins} win, {} defend; {:.1} s to find)",
            suite.len(),
            suite.len() - wins,
            t0.elapsed().as_secs_f64()
        );
        for (k, level) in LEVELS.iter().enumerate() {
            let settings = CpuSettings::parse(&prog, level).expect("level");
            let t1 = Instant::now();
            let mut solved = 0;
            let mut missed = Vec::new();
            for (i, t) in suite.iter().enumerate() {
                let (m, ok) = solve_with(&prog, &settings, t, i as u64);
                if ok {
                    solved += 1;
                } else {
                    let name = |m: Option<u32>| {
                        m.map_or("pass".to_string(), |c| prog.commands[c as usize].clone())
                    };
                    missed.push(format!(
                        "game {} turn {} {:?}: played {}, wanted {}",
                        t.game,
                        t.turn,
                        t.kind,
                        name(m),
                        t.good
                            .iter()
                            .map(|&g| name(g))
                            .collect::<Vec<_>>()
                            .join("/")
                    ));
                }
            }
            totals[k].0 += solved;
            totals[k].1 += suite.len();
            print!(
                "; cpu{}{level} {solved}/{} ({:.1} s)",
                if level.is_empty() { "" } else { ":" },
                suite.len(),
                t1.elapsed().as_secs_f64()
            );
            if level.is_empty() && !missed.is_empty() {
                print!("\n    missed: {}", missed.join("\n            "));
            }
        }
        println!();
    }
    for (k, level) in LEVELS.iter().enumerate() {
        let (s, n) = totals[k];
        println!(
            "cpu{}{level}: {s}/{n} = {:.1}%",
            if level.is_empty() { "" } else { ":" },
            100.0 * s as f64 / n.max(1) as f64
        );
    }
}
