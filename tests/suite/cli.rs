//! The command line as a user runs it: real processes, exit codes and JSON.

use crate::common;

use common::kumite;

#[test]
fn check_reports_json_with_lines_and_character_columns() {
    let dir = std::env::temp_dir().join(format!("kumite-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let f = dir.join("broken.kmt");
    std::fs::write(
        &f,
        "!:体力=3\n[押す]:O.体力-1\nＳ．体力＜＝０：［押す］\nO.体力<=0,[投げ]:S.勝利\n&{\n",
    )
    .expect("write");
    let (code, out, _) = kumite(&["check", "--format", "json", f.to_str().expect("path")]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON array");
    let items = v.as_array().expect("array");
    let find = |code: &str| {
        items
            .iter()
            .find(|d| d["code"] == code)
            .unwrap_or_else(|| panic!("{code} in {out}"))
    };
    let e = find("E010");
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(5), Some(2))
    );
    // While the file has errors, whole-file warnings wait (a broken line could be the one that
    // enables [投げ]); without the broken block the W011 comes, in character columns.
    assert!(items.iter().all(|d| d["code"] != "W011"), "{out}");
    let f = dir.join("warn.kmt");
    std::fs::write(
        &f,
        "!:体力=3\n[押す]:O.体力-1\nＳ．体力＜＝０：［押す］\nO.体力<=0,[投げ]:S.勝利\n",
    )
    .expect("write");
    let (code, out, _) = kumite(&["check", "--format", "json", f.to_str().expect("path")]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON array");
    let w = v
        .as_array()
        .and_then(|a| a.iter().find(|d| d["code"] == "W011"))
        .unwrap_or_else(|| panic!("W011 in {out}"));
    assert_eq!(
        (w["line"].as_u64(), w["column"].as_u64()),
        (Some(4), Some(9))
    );
    assert!(
        w["help"].as_str().unwrap_or("").contains("[投げる]")
            || w["help"].as_str().unwrap_or("").contains("[押す]")
            || !w["help"].is_null()
    );
    for k in [
        "severity",
        "code",
        "message",
        "file",
        "line",
        "column",
        "end_line",
        "end_column",
        "help",
    ] {
        assert!(e.get(k).is_some(), "{k} missing");
    }
    let (code, _, err) = kumite(&[
        "check",
        "--color",
        "never",
        "rules/sumo.kmt",
        "rules/karate.kmt",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, _) = kumite(&["check", "--deny-warnings", "rules/ex5_macro.kmt"]);
    assert_eq!(code, 1, "ex5 has warnings");
    let (code, _, err) = kumite(&["check", "no/such/file.kmt"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read"), "{err}");
}

#[test]
fn expand_writes_a_file_that_checks_clean() {
    let out = std::env::temp_dir().join(format!("kumite-exp-{}.kmt", std::process::id()));
    let (code, _, err) = kumite(&[
        "expand",
        "rules/karate.kmt",
        "-o",
        out.to_str().expect("path"),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).expect("written");
    assert!(
        text.lines()
            .any(|l| l.contains("# line") && l.contains("& mirror"))
    );
    assert!(text.lines().any(|l| l.contains("$[")));
    let (code, _, err) = kumite(&["check", out.to_str().expect("path")]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn match_json_is_reproducible_and_set_overrides_values() {
    let args = [
        "match",
        "rules/sumo.kmt",
        "--h",
        "random",
        "--c",
        "random",
        "--seed",
        "42",
        "--format",
        "json",
    ];
    let (code, a, _) = kumite(&args);
    assert_eq!(code, 0);
    let (_, b, _) = kumite(&args);
    assert_eq!(a, b);
    let v: serde_json::Value = serde_json::from_str(&a).expect("json");
    assert!(["h", "c", "draw"].contains(&v["result"].as_str().unwrap_or("")));
    assert_eq!(v["seed"], 42);
    assert_eq!(
        v["moves"].as_array().map(Vec::len),
        v["turns"].as_u64().map(|t| t as usize)
    );
    // h starts at the edge: c wins with its first push.
    let (_, out, _) = kumite(&[
        "match",
        "rules/ex1_push.kmt",
        "--h",
        "random",
        "--c",
        "random",
        "--set",
        "h.後ろ余裕度=0",
        "--first",
        "c",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        (v["result"].as_str(), v["turns"].as_u64()),
        (Some("c"), Some(1))
    );
    let (code, _, err) = kumite(&["match", "rules/ex1_push.kmt", "--set", "体力=1"]);
    assert_eq!(code, 2);
    assert!(err.contains("no state"), "{err}");
}

#[test]
fn arena_counts_add_up_and_do_not_depend_on_jobs() {
    // Random play, and a CPU (whose few hundred games are shared among the threads in small
    // blocks): the same games, counts and search nodes whatever the number of threads.
    for (file, h, games) in [
        ("rules/cc_lemon.kmt", "random", 300u64),
        ("rules/ex1_push.kmt", "cpu:S2,P3600000,N1000000", 60),
    ] {
        let run = |jobs: &str| {
            let n = games.to_string();
            let (code, out, err) = kumite(&[
                "arena", file, "--h", h, "--games", &n, "--seed", "5", "--jobs", jobs, "--format",
                "json",
            ]);
            assert_eq!(code, 0, "{err}");
            let v: serde_json::Value = serde_json::from_str(&out).expect("json");
            let sum = v["h_wins"].as_u64().unwrap_or(0)
                + v["c_wins"].as_u64().unwrap_or(0)
                + v["draws"].as_u64().unwrap_or(0)
                + v["errors"].as_u64().unwrap_or(0);
            assert_eq!(sum, games);
            (
                v["h_wins"].clone(),
                v["c_wins"].clone(),
                v["draws"].clone(),
                v["mean_turns"].clone(),
                v["length_histogram"].clone(),
                v["search"]["h"]["moves"].clone(),
                v["search"]["h"]["nodes"].clone(),
            )
        };
        assert_eq!(run("1"), run("2"), "{file}");
    }
}

#[test]
fn perft_counts_sequences() {
    let (code, out, _) = kumite(&["perft", "rules/ex3_grips.kmt", "--depth", "5"]);
    assert_eq!(code, 0);
    assert!(out.contains("depth 5: 4 sequences"), "{out}");
}

#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    // A long output (the expansion of a big file) read for one line only, as `| head -1` does.
    let dir = std::env::temp_dir().join(format!("kumite-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.kmt");
    let mut text = String::from("!:体力=30,[殴る]\n");
    for i in 0..20_000 {
        text.push_str(&format!("[殴る],S.体力>={}:O.体力-1\n", i % 50));
    }
    std::fs::write(&big, text).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kumite"))
        .args(["expand", big.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(!first.is_empty());
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn solve_prints_the_forced_win_as_a_strategy_tree_and_says_how_chance_was_treated() {
    let root = common::root();
    let grips = root.join("rules").join("ex3_grips.kmt");
    let g = grips.to_str().expect("path");
    let (code, out, _) = kumite(&["solve", g, "--depth", "9", "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["shortest_win"]["plies"], 5);
    let f = &v["forced_win"];
    assert_eq!(
        (f["exists"].as_bool(), f["plies"].as_u64()),
        (Some(true), Some(9))
    );
    assert_eq!(f["min_plies"], 5);
    assert_eq!(f["strategy"]["to_move"], "h");
    assert_eq!(f["strategy"]["h"], "左マワシ取る");
    assert_eq!(v["chance"], "none");
    let (code, text, _) = kumite(&["solve", g, "--depth", "9"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("h: 左マワシ取る") && text.contains("投げる (win)"),
        "{text}"
    );
    // With rand: the path may assume lucky outcomes, the forced win needs every outcome.
    let sumo = root.join("rules").join("sumo.kmt");
    let (code, out, _) = kumite(&[
        "solve",
        sumo.to_str().expect("path"),
        "--depth",
        "5",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["shortest_win"]["plies"], 5);
    assert_eq!(v["forced_win"]["exists"], false);
    assert!(v["chance"].as_str().unwrap_or("").contains("every outcome"));
    // A game with no states of its own: the path's lines show the moves alone.
    let dir = std::env::temp_dir().join(format!("kumite-cli-solve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let f = dir.join("one_shot.kmt");
    std::fs::write(&f, "~同時\n!:[上],[下]\n[上],O.[下]:S.勝利\n").expect("write");
    let (code, text, _) = kumite(&["solve", f.to_str().expect("path")]);
    assert_eq!(code, 0);
    assert!(text.contains("1. both [上/下]\n"), "{text}");
}

#[test]
fn traces_label_the_end_check_and_the_next_movers_availability() {
    let dir = std::env::temp_dir().join(format!("kumite-cli-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let f = dir.join("ko.kmt");
    std::fs::write(
        &f,
        "!:体力=2,[打つ]\n[打つ]:O.体力-1\nS.体力<=1:![打つ]\nO.体力<=0:S.勝利\n",
    )
    .expect("write");
    let p = f.to_str().expect("path");
    let (code, out, err) = kumite(&[
        "match", p, "--h", "random", "--c", "random", "--seed", "1", "--trace",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = format!("{out}{err}");
    // Turn 1: h hits, then c's availability is run (c at 1 health loses [打つ]).
    let turn1 = text.split("turn   2").next().expect("turn 1");
    assert!(
        turn1.contains("availability for c:\n    c.[打つ]: 1 → 0"),
        "{text}"
    );
    // h's second blow wins in the end check, which names the victory rule's line.
    assert!(text.contains("end check (h): line 4"), "{text}");
    assert!(!text.contains("availability for h:\n    result"), "{text}");
}

#[test]
fn strategy_trees_say_what_each_chance_outcome_drew() {
    let dir = std::env::temp_dir().join(format!("kumite-cli-chance-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let f = dir.join("dmg.kmt");
    std::fs::write(
        &f,
        "!:h.体力=10,c.体力=3,[打つ]\n[打つ]:O.体力-=rand(2,3)\nO.体力<=0:S.勝利\n",
    )
    .expect("write");
    let p = f.to_str().expect("path");
    let (code, out, err) = kumite(&["solve", p, "--depth", "6"]);
    assert_eq!(code, 0, "{err}");
    // h's blow leaves c at 1 or at 0 (a win at once); c's reply leaves h at 8 or 7.
    assert!(out.contains("(50%: c.体力=1)"), "{out}");
    assert!(out.contains("(50%: c.体力=0) (win)"), "{out}");
    assert!(out.contains("c: 打つ (50%: h.体力=8)"), "{out}");
    let (_, out, _) = kumite(&["solve", p, "--depth", "6", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let first = &v["forced_win"]["strategy"]["next"][0];
    assert_eq!(first["outcome"], "c.体力=1", "{first}");
}

#[test]
fn fmt_rewrites_in_place_keeps_meaning_and_check_fails_until_it_has() {
    let dir = std::env::temp_dir().join(format!("kumite-fmt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let f = dir.join("spaced.kmt");
    let src = "# 押し出し\n\n\n!: h.余裕 = 3 , c.余裕=3 ,[押す]   \n  [押す] : O.余裕 - 1 # 一歩\nO.余裕 <= 0 : S.勝利\n\n";
    std::fs::write(&f, src).expect("write");
    let p = f.to_str().expect("path");
    let (code, out, err) = kumite(&["fmt", "--check", p]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("spaced.kmt"), "{out}");
    assert_eq!(
        std::fs::read_to_string(&f).expect("read"),
        src,
        "--check writes nothing"
    );
    let (code, _, err) = kumite(&["fmt", p]);
    assert_eq!(code, 0, "{err}");
    let formatted = std::fs::read_to_string(&f).expect("read");
    assert_eq!(
        formatted,
        "# 押し出し\n\n!:h.余裕=3,c.余裕=3,[押す]\n[押す]:O.余裕-1 # 一歩\nO.余裕<=0:S.勝利\n"
    );
    // The same game: the same match for the same seed.
    let g = dir.join("orig.kmt");
    std::fs::write(&g, src).expect("write");
    let run = |file: &str| {
        kumite(&[
            "match", file, "--h", "random", "--c", "random", "--seed", "5", "--format", "json",
        ])
        .1
    };
    assert_eq!(run(p), run(g.to_str().expect("path")));
    let (code, _, _) = kumite(&["fmt", "--check", p]);
    assert_eq!(code, 0);
    let (code, _, err) = kumite(&["fmt", "--check", "rules/karate.kmt", "rules/sumo.kmt"]);
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_json_carries_the_quick_fixes_as_edits() {
    let dir = std::env::temp_dir().join(format!("kumite-fix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let f = dir.join("typo.kmt");
    std::fs::write(
        &f,
        "!:体力=3,[ジャブ]\n[ジャブ]:O.体カ-1\n[ジャブ],!体力:S.疲れ+1\nO.体力<=0:S.勝利\n",
    )
    .expect("write");
    let (_, out, _) = kumite(&["check", "--format", "json", f.to_str().expect("path")]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let e001 = v
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "E001")
        .expect("E001");
    assert_eq!(e001["line"], 3);
    assert_eq!(e001["fixes"][0]["title"], "Write S.体力 (the acting side)");
    assert_eq!(e001["fixes"][0]["edits"][0]["column"], 8);
    assert_eq!(e001["fixes"][0]["edits"][0]["text"], "S.");
    // Fixed, the typo is the next problem, with its own fix.
    std::fs::write(
        &f,
        "!:体力=3,[ジャブ]\n[ジャブ]:O.体カ-1\nO.体力<=0:S.勝利\n",
    )
    .expect("write");
    let (_, out, _) = kumite(&["check", "--format", "json", f.to_str().expect("path")]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let w = v
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "W016")
        .expect("W016");
    assert_eq!(w["fixes"][0]["title"], "Change to 体力");
    assert_eq!(w["fixes"][0]["edits"][0]["line"], 2);
    assert_eq!(w["fixes"][0]["edits"][0]["text"], "体力");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs kumite with `input` on its standard input: (exit status, stdout, stderr).
fn kumite_with_input(args: &[&str], input: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kumite"))
        .args(args)
        .current_dir(common::root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run kumite");
    // The match may end before it reads everything: a closed pipe is not a failure here.
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes());
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Terminal play without --trace: every turn in a line (the CPU's move too), `?` lists the keys
/// and the enabled commands, and the end says which rule decided the game.
#[test]
fn terminal_play_shows_each_turn_help_and_how_the_game_was_won() {
    // h pushes eleven times with its key; `?` and a typo on the way are answered, not played.
    let input = format!("?\nzz\n{}", "p\n".repeat(11));
    let (code, out, err) = kumite_with_input(
        &[
            "match",
            "rules/ex1_push.kmt",
            "--h",
            "human",
            "--c",
            "cpu:S2",
        ],
        &input,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("keys (the file's ':' line): p=[押す]"),
        "{err}"
    );
    assert!(err.contains("enabled now: p=[押す]"), "{err}");
    assert!(err.contains("'zz' is neither a key nor a command"), "{err}");
    // Each turn in a line, the CPU's included, with what it changed; no trace flood.
    assert!(
        err.contains("turn 1: h [押す] → c.後ろ余裕度 10→9"),
        "{err}"
    );
    assert!(
        err.contains("turn 2: c [押す] → h.後ろ余裕度 10→9"),
        "{err}"
    );
    assert!(!err.contains("fired ("), "{err}");
    assert_eq!(
        out,
        "result: h wins after 21 turns (seed 0)\ndecided by line 9: h [押す] with c.後ろ余裕度<=0\n"
    );
    // The wrestling file: keys from its ':' line, a move that is not enabled, the CPU answering.
    let (code, out, err) = kumite_with_input(
        &[
            "match",
            "tests/designs/wrestling.kmt",
            "--h",
            "human",
            "--c",
            "cpu:S2",
            "--max-turns",
            "4",
        ],
        "help\nフォール\ng\nｇ\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("g=[組む]  c=[チョップ]  b=[ボディスラム]"),
        "{err}"
    );
    assert!(
        err.contains("not enabled now: F=[必殺技]  p=[フォール]"),
        "{err}"
    );
    assert!(err.contains("[フォール] is not enabled now"), "{err}");
    assert!(err.contains("turn 1: h [組む] → h.溜め 0→1"), "{err}");
    // A full-width key (an IME left on) is the same key.
    assert!(err.contains("turn 3: h [組む]"), "{err}");
    let cpu_move = err
        .lines()
        .find(|l| l.starts_with("turn 2: c ["))
        .unwrap_or_else(|| panic!("the CPU's move is shown: {err}"));
    assert!(cpu_move.contains(" → "), "{cpu_move}");
    assert!(
        out.ends_with("decided by the turn limit: 4 turns, a draw\n"),
        "{out}"
    );
}

/// A match nobody watches (CPU against CPU, output read by a script) prints the result and how
/// it was decided on stdout and nothing else; JSON has no trace unless asked for.
#[test]
fn a_match_between_programs_prints_only_its_result() {
    let (code, out, err) = kumite(&[
        "match",
        "rules/ex1_push.kmt",
        "--h",
        "random",
        "--c",
        "cpu:S2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    assert_eq!(
        out,
        "result: h wins after 21 turns (seed 0)\ndecided by line 9: h [押す] with c.後ろ余裕度<=0\n"
    );
    let (_, out, _) = kumite_with_input(
        &[
            "match",
            "rules/ex1_push.kmt",
            "--h",
            "human",
            "--format",
            "json",
        ],
        &"p\n".repeat(11),
    );
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["result"], "h");
    assert!(v.get("trace").is_none(), "{out}");
    // A victory rule without a command: the side it was checked for is written out.
    let (_, out, _) = kumite(&[
        "match",
        "rules/cc_lemon.kmt",
        "--h",
        "random",
        "--c",
        "random",
        "--seed",
        "4",
    ]);
    assert!(
        out.contains("decided by line 24: c [ビーム], h [チャージ]"),
        "{out}"
    );
}

#[test]
fn train_writes_a_learned_evaluation_that_cpu_trained_plays_and_refuses_when_stale() {
    let dir = std::env::temp_dir().join(format!("kumite-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let f = dir.join("karate.kmt");
    let text = common::read(&common::root().join("rules").join("karate.kmt"));
    std::fs::write(&f, &text).expect("write");
    let path = f.to_str().expect("path");
    let play = |spec: &str| {
        kumite(&[
            "match", path, "--h", spec, "--c", "random", "--seed", "3", "--format", "json",
        ])
    };
    // No learned file yet: a clear error that says what to run.
    let (code, _, err) = play("cpu:trained");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("kumite train"), "{err}");
    // Learn (a small run), twice: the same file both times.
    let (code, out, err) = kumite(&["train", path, "--games", "80", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert!(v["positions"].as_u64().unwrap_or(0) > 80, "{out}");
    // How the games ended: all 80 counted, and many different games (E3 mistakes vary them).
    let r = &v["results"];
    let count = |k: &str| r[k].as_u64().expect("count");
    assert_eq!(
        count("h_wins") + count("c_wins") + count("draws"),
        80,
        "{out}"
    );
    assert!(count("h_wins") > 0 && count("c_wins") > 0, "{out}");
    assert!(count("distinct") > 40, "{out}");
    // The regression includes the derived evaluation, so on its own positions it predicts the
    // results at least as well as the derived evaluation alone.
    let (loss, derived) = (
        v["log_loss"].as_f64().expect("loss"),
        v["derived_log_loss"].as_f64().expect("derived"),
    );
    assert!(loss <= derived + 1e-9 && derived < 0.6932, "{out}");
    let learned = dir.join("karate.trained.json");
    let first = std::fs::read_to_string(&learned).expect("written next to the file");
    kumite(&["train", path, "--games", "80"]);
    assert_eq!(first, std::fs::read_to_string(&learned).expect("again"));
    let l: serde_json::Value = serde_json::from_str(&first).expect("json");
    assert_eq!(l["kind"], "kumite-trained");
    assert!(
        l["features"]
            .as_array()
            .expect("features")
            .iter()
            .any(|n| n == "c.体力"),
        "{first}"
    );
    // The trained CPU plays, and replays the same game.
    let (code, a, err) = play("cpu:trained,N20000");
    assert_eq!(code, 0, "{err}");
    assert_eq!(a, play("cpu:trained,N20000").1);
    // Comments and blank lines leave the rules as they were: still played, the same game.
    std::fs::write(&f, format!("# a note\n\n{text}\n\n# the end\n")).expect("edit");
    assert_eq!(play("cpu:trained,N20000").1, a);
    // A changed number makes the learned evaluation stale: refused, with what to do.
    assert!(text.contains("突き費用:2"));
    std::fs::write(&f, text.replace("突き費用:2", "突き費用:3")).expect("edit");
    let (code, _, err) = play("cpu:trained");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("other rules") && err.contains("kumite train"),
        "{err}"
    );
    // A simultaneous game has nothing to learn here, and says so.
    let cc = common::root().join("rules").join("cc_lemon.kmt");
    let (code, _, err) = kumite(&[
        "train",
        cc.to_str().expect("path"),
        "--games",
        "5",
        "-o",
        dir.join("cc.json").to_str().expect("path"),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("alternate games"), "{err}");
    // Games that all end the same way teach nothing: said, and no file written.
    let ex5 = common::root().join("rules").join("ex5_macro.kmt");
    let out5 = dir.join("ex5.json");
    let (code, _, err) = kumite(&[
        "train",
        ex5.to_str().expect("path"),
        "--games",
        "20",
        "-o",
        out5.to_str().expect("path"),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("all 20 self-play games were draws") && err.contains("nothing written"),
        "{err}"
    );
    assert!(!out5.exists());
}
