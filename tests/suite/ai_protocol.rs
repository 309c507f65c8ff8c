//! The external AI protocol with real processes: the example AIs play matches and arenas, each
//! kind of misbehaviour is provoked and must end in a forfeit with its own message and exit
//! status, and logs replay to the same outcome.

use crate::common;

use common::kumite;

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

fn tmp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("kumite-ai-{}-{name}", std::process::id()))
}

#[test]
fn example_ais_play_full_matches_on_either_side() {
    for (h, c) in [
        ("ai:python3 tests/ai/random_ai.py", "random"),
        ("random", "ai:python3 tests/ai/greedy_ai.py"),
        (
            "ai:python3 tests/ai/greedy_ai.py",
            "ai:python3 tests/ai/random_ai.py",
        ),
    ] {
        for rules in [
            "rules/cc_lemon.kmt",
            "rules/moge_battle.kmt",
            "rules/sumo.kmt",
        ] {
            let (code, out, err) = kumite(&[
                "match", rules, "--h", h, "--c", c, "--seed", "3", "--format", "json",
            ]);
            assert_eq!(code, 0, "{h} vs {c} on {rules}: {err}");
            let v = json(&out);
            assert!(
                ["h", "c", "draw"].contains(&v["result"].as_str().unwrap_or("")),
                "{v}"
            );
            assert!(v.get("forfeit").is_none());
            assert!(v["turns"].as_u64().unwrap_or(0) >= 1);
        }
    }
}

#[test]
fn one_ai_process_plays_a_whole_arena_and_greedy_beats_random() {
    let (code, out, err) = kumite(&[
        "arena",
        "rules/cc_lemon.kmt",
        "--h",
        "ai:python3 tests/ai/greedy_ai.py",
        "--c",
        "random",
        "--games",
        "400",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["games"], 400);
    assert_eq!(v["forfeits"], 0);
    assert!(
        v["h_wins"].as_u64().unwrap_or(0) > 300,
        "greedy should beat random: {v}"
    );
}

fn forfeit(ai: &str, extra: &[&str]) -> (i32, serde_json::Value, String) {
    let log = tmp(&format!("{}.jsonl", ai.len()));
    let mut args = vec![
        "match",
        "rules/cc_lemon.kmt",
        "--h",
        "random",
        "--c",
        ai,
        "--seed",
        "2",
        "--format",
        "json",
        "--log",
        log.to_str().expect("path"),
    ];
    args.extend_from_slice(extra);
    let (code, out, _) = kumite(&args);
    let v = json(&out);
    let log_text =
        std::fs::read_to_string(&log).expect("the log is written even when the AI fails");
    assert!(
        log_text
            .lines()
            .last()
            .is_some_and(|l| l.contains("\"forfeit\"")),
        "{log_text}"
    );
    (code, v, log_text)
}

#[test]
fn each_misbehaviour_is_a_forfeit_with_its_own_message_and_status() {
    let cases: [(&str, &[&str], i32, &str); 6] = [
        (
            "ai:no-such-program-kumite --x",
            &[],
            10,
            "cannot start the AI command 'no-such-program-kumite --x'",
        ),
        (
            "ai:python3 tests/ai/bad/empty_name.py",
            &[],
            11,
            "empty name",
        ),
        (
            "ai:python3 tests/ai/bad/no_name.py",
            &[],
            12,
            "no name from the AI",
        ),
        ("ai:python3 tests/ai/bad/dies.py", &[], 13, "turn 3"),
        (
            "ai:python3 tests/ai/bad/bad_reply.py",
            &[],
            14,
            "\"かめはめ波\"",
        ),
        (
            // 1.5 s: Python gives its name in time on a loaded machine; slow.py then takes 3 s.
            "ai:python3 tests/ai/bad/slow.py",
            &["--ai-timeout", "1.5"],
            15,
            "no reply within 1.500 s",
        ),
    ];
    for (ai, extra, status, text) in cases {
        let (code, v, _) = forfeit(ai, extra);
        assert_eq!(code, status, "{ai}: {v}");
        assert_eq!(v["result"], "h", "the misbehaving AI (c) loses: {v}");
        let reason = v["forfeit"]["reason"].as_str().unwrap_or("");
        assert!(
            reason.contains(text),
            "{ai}: reason {reason:?} should contain {text:?}"
        );
        assert_eq!(v["forfeit"]["side"], "c");
    }
    // The bad reply lists the enabled commands, and dying says how the process ended.
    let (_, v, _) = forfeit("ai:python3 tests/ai/bad/bad_reply.py", &[]);
    assert!(
        v["forfeit"]["reason"]
            .as_str()
            .unwrap_or("")
            .contains("enabled: [チャージ] [ガード]"),
        "{v}"
    );
    let (_, v, _) = forfeit("ai:python3 tests/ai/bad/dies.py", &[]);
    assert!(
        v["forfeit"]["reason"]
            .as_str()
            .unwrap_or("")
            .contains("exit status 4"),
        "{v}"
    );
}

#[test]
fn a_misbehaving_ai_in_an_arena_forfeits_each_game_and_nothing_crashes() {
    let (code, out, err) = kumite(&[
        "arena",
        "rules/cc_lemon.kmt",
        "--h",
        "random",
        "--c",
        "ai:python3 tests/ai/bad/dies.py",
        "--games",
        "5",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["games"], 5);
    let forfeits = v["forfeits"].as_u64().unwrap_or(0);
    // Games that end before turn 3 finish normally; the rest are forfeits, won by h.
    assert!(
        forfeits >= 1 && v["h_wins"].as_u64().unwrap_or(0) >= forfeits,
        "{v}"
    );
}

#[test]
fn malformed_options_are_reported_by_kumite() {
    let (code, _, err) = kumite(&["match", "rules/cc_lemon.kmt", "--ai-timeout", "soon"]);
    assert_eq!(code, 2);
    assert!(err.contains("--ai-timeout"), "{err}");
    let (code, _, err) = kumite(&[
        "match",
        "rules/cc_lemon.kmt",
        "--h",
        "robot",
        "--c",
        "random",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown player 'robot'"), "{err}");
}

#[test]
fn a_logged_match_replays_to_the_same_outcome_and_a_tampered_log_does_not() {
    let log = tmp("replay.jsonl");
    let (code, _, err) = kumite(&[
        "match",
        "rules/moge_battle.kmt",
        "--h",
        "ai:python3 tests/ai/greedy_ai.py",
        "--c",
        "random",
        "--seed",
        "11",
        // This test is about replays, not time limits: a loaded CI machine once took more
        // than the default 5 s to start Python and answer.
        "--ai-timeout",
        "60",
        "--log",
        log.to_str().expect("path"),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = kumite(&["replay", log.to_str().expect("path")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("replay OK"), "{out}");
    // A different seed gives different draws: the replay must notice.
    let text = std::fs::read_to_string(&log).expect("log");
    std::fs::write(&log, text.replacen("\"seed\":11,", "\"seed\":12,", 1)).expect("write");
    let (code, _, err) = kumite(&["replay", log.to_str().expect("path")]);
    assert_eq!(
        code, 1,
        "another seed must not replay to the same outcome: {err}"
    );
    // A move the rules do not have is pointed out.
    let first_move = text.lines().nth(1).expect("a move").to_string();
    let bad = first_move.replace("\"command\":\"", "\"command\":\"かめはめ波");
    std::fs::write(&log, text.replacen(&first_move, &bad, 1)).expect("write");
    let (code, _, err) = kumite(&["replay", log.to_str().expect("path")]);
    assert_eq!(code, 1);
    assert!(
        err.contains("line 2") && err.contains("かめはめ波"),
        "{err}"
    );
}

/// An AI that learns from its games must hear how the last one ended: after the last `end`
/// its input closes and it has time to exit by itself (it was once killed straight after the
/// last `end` was written, before it could read it).
#[test]
fn the_ai_reads_every_end_including_the_last_games() {
    let dir = std::env::temp_dir().join(format!("kumite-ends-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let log = dir.join("ends.log");
    let ai = dir.join("logging_ai.py");
    std::fs::write(
        &ai,
        format!(
            "import json, sys\nprint('logger', flush=True)\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'turn':\n        print(m['commands'][0], flush=True)\n    elif m['type'] == 'end':\n        with open({:?}, 'a') as f:\n            f.write(m['result'] + '\\n')\n",
            log.to_str().expect("path")
        ),
    )
    .expect("write");
    let (code, _, err) = kumite(&[
        "arena",
        "rules/cc_lemon.kmt",
        "--h",
        &format!("ai:python3 {}", ai.to_str().expect("path")),
        "--c",
        "random",
        "--games",
        "3",
        "--jobs",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    let ends = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(ends.lines().count(), 3, "ends logged: {ends:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether process `pid` is still alive (a zombie waiting to be reaped counts as gone).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|t| !t.trim_start().starts_with('Z'))
    })
}

#[cfg(target_os = "linux")]
#[test]
fn an_ai_that_times_out_is_ended_with_everything_it_started() {
    // The AI (run through sh) starts a child that would sleep for a minute, answers once and
    // then never again: it forfeits on its timeout, and its child must not outlive the match
    // (it would keep kumite's standard error open: `kumite match … | tail` waited for it).
    // It reads the start and its first turn before answering: an answer printed before the
    // turn that asks for it is a line nothing asked for (exit 14).
    let pidfile = tmp("child.pid");
    let _ = std::fs::remove_file(&pidfile);
    let ai = format!(
        "ai:sh -c 'sleep 60 >/dev/null 2>&1 & echo $! > {}; echo n; read s; read t; echo 押す; wait'",
        pidfile.display()
    );
    let (code, out, _) = kumite(&[
        "match",
        "rules/ex1_push.kmt",
        "--h",
        &ai,
        "--c",
        "random",
        "--ai-timeout",
        "0.3",
        "--format",
        "json",
    ]);
    assert_eq!(code, 15, "{out}");
    let pid = std::fs::read_to_string(&pidfile).expect("the AI wrote its child's pid");
    let pid = pid.trim();
    // The kill is sent before kumite exits; reaping the orphan may take a moment.
    let t0 = std::time::Instant::now();
    while alive(pid) && t0.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!alive(pid), "the AI's child {pid} outlived the match");
    let _ = std::fs::remove_file(&pidfile);
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_ends_kumite_and_the_ais_it_runs() {
    // An AI leads its own process group, which the terminal's Ctrl-C does not reach: kumite
    // ends it (and what it started) before exiting with 130, as an interrupted program does.
    let pidfile = tmp("interrupted.pid");
    let _ = std::fs::remove_file(&pidfile);
    let ai = format!(
        "ai:sh -c 'sleep 60 >/dev/null 2>&1 & echo $! > {}; echo n; sleep 60'",
        pidfile.display()
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kumite"))
        .args(["match", "rules/ex1_push.kmt", "--h", &ai, "--c", "random"])
        .args(["--ai-timeout", "100"])
        .current_dir(common::root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start kumite");
    let t0 = std::time::Instant::now();
    let wait = std::time::Duration::from_secs(20);
    let pid = loop {
        match std::fs::read_to_string(&pidfile) {
            Ok(p) if p.ends_with('\n') => break p.trim().to_string(),
            _ if t0.elapsed() > wait => panic!("the AI never started"),
            _ => std::thread::sleep(std::time::Duration::from_millis(20)),
        }
    };
    // The AI is waiting for its turn now (it wrote the pid before its name).
    std::thread::sleep(std::time::Duration::from_millis(300));
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(t0.elapsed() < wait, "kumite did not end on Ctrl-C");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    while alive(&pid) && t0.elapsed() < wait {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!alive(&pid), "the AI's child {pid} outlived kumite");
    let _ = std::fs::remove_file(&pidfile);
}
