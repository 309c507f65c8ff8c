//! Golden outputs of the commands a user runs, for every bundled rule file: `expand`, `perft`,
//! `tree --format json` and seeded `arena` runs (random and CPU players). The redesign of the
//! code must leave every one of them byte for byte the same; a change of behaviour
//! shows here as a diff against `tests/golden/FILE.txt`.
//!
//! To accept a deliberate change: `KUMITE_BLESS=1 cargo test --release --test suite golden`, then
//! read the diff of `tests/golden/` before committing it.

use crate::common;

use std::process::Command;

fn kumite(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kumite"))
        .args(args)
        .current_dir(common::root())
        .output()
        .expect("run kumite");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    format!(
        "$ kumite {}\n(exit {})\n{}",
        args.join(" "),
        out.status.code().unwrap_or(-1),
        stdout
    )
}

/// An arena's JSON without its timings.
fn arena(args: &[&str]) -> String {
    let text = kumite(args);
    let (head, body) = text.split_once("\n{").unwrap_or((&text, ""));
    let mut v: serde_json::Value = match serde_json::from_str(&format!("{{{body}")) {
        Ok(v) => v,
        Err(_) => return text,
    };
    if let Some(m) = v.as_object_mut() {
        m.remove("seconds");
        m.remove("games_per_second");
        // A CPU's moves and nodes searched stay (counts: its depth ends each search).
        for side in ["h", "c"] {
            if let Some(w) = m["search"][side].as_object_mut() {
                w.remove("seconds");
                w.remove("nodes_per_second");
            }
        }
    }
    format!("{head}\n{v}\n")
}

fn golden_of(file: &str) -> String {
    let mut s = String::new();
    s.push_str(&kumite(&["expand", file]));
    for depth in ["1", "2", "3", "4"] {
        s.push_str(&kumite(&["perft", file, "--depth", depth, "--seed", "3"]));
    }
    s.push_str(&kumite(&["tree", file, "--format", "json"]));
    s.push('\n');
    for seed in ["1", "2"] {
        s.push_str(&arena(&[
            "arena", file, "--h", "random", "--c", "random", "--games", "3000", "--seed", seed,
            "--jobs", "2", "--format", "json",
        ]));
    }
    // A CPU with a generous period: its depth, not the clock, ends each search.
    s.push_str(&arena(&[
        "arena",
        file,
        "--h",
        "cpu:S2,P60000",
        "--c",
        "random",
        "--games",
        "6",
        "--seed",
        "5",
        "--jobs",
        "1",
        "--format",
        "json",
    ]));
    s
}

#[test]
fn command_outputs_on_the_bundled_rules_are_unchanged() {
    let bless = std::env::var_os("KUMITE_BLESS").is_some();
    let dir = common::root().join("tests/golden");
    let mut failures = Vec::new();
    for path in common::kmt_files("rules") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let rel = format!("rules/{name}");
        let got = golden_of(&rel);
        let want_path = dir.join(format!("{name}.txt"));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&want_path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&want_path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with KUMITE_BLESS=1)", want_path.display()));
        if got != want {
            let (line, (a, b)) = got
                .lines()
                .zip(want.lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .unwrap_or((0, ("(length differs)", "(length differs)")));
            failures.push(format!(
                "{name}, line {}:\n  now:    {a}\n  golden: {b}",
                line + 1
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
