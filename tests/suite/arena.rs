//! `kumite arena` and `kumite merge` as a user runs them: the reused engine and players give the
//! same games as separate matches, shards merged equal one run, and bad merges are refused.

use crate::common;
use kumite::side::Side;

use common::{kumite, root};
use kumite::engine::GameResult;
use kumite::engine::players::MatchOptions;
use kumite::pipeline::compile;
use serde_json::Value;

/// The counts of a result (timing left out).
fn counts(v: &Value) -> Value {
    let mut v = v.clone();
    let m = v.as_object_mut().expect("object");
    m.remove("seconds");
    m.remove("games_per_second");
    // The CPU's moves and nodes are counts; its thinking time is timing.
    for side in ["h", "c"] {
        if let Some(w) = m["search"][side].as_object_mut() {
            w.remove("seconds");
            w.remove("nodes_per_second");
        }
    }
    v
}

fn arena_json(args: &[&str]) -> Value {
    let mut all = vec!["arena"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let (code, out, err) = kumite(&all);
    assert!(code == 0 || code == 3, "exit {code}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn shards_merged_equal_one_run() {
    let dir = std::env::temp_dir().join(format!("kumite-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (file, seed, games, h, c) in [
        ("rules/cc_lemon.kmt", "1", "5000", "random", "random"),
        ("rules/cc_lemon.kmt", "77", "4001", "random", "random"),
        ("rules/ex1_push.kmt", "3", "2999", "random", "random"),
        ("rules/sumo.kmt", "9", "1000", "random", "random"),
        (
            "rules/ex1_push.kmt",
            "4",
            "40",
            "cpu:S2,P3600000,N1000000",
            "random",
        ),
    ] {
        let whole = arena_json(&[file, "--seed", seed, "--games", games, "--h", h, "--c", c]);
        let mut paths = Vec::new();
        for i in 0..4 {
            let shard = format!("{i}/4");
            let part = arena_json(&[
                file, "--seed", seed, "--games", games, "--h", h, "--c", c, "--shard", &shard,
                "--jobs", "1",
            ]);
            let p = dir.join(format!("{seed}-{i}.json"));
            std::fs::write(&p, part.to_string()).unwrap();
            paths.push(p.display().to_string());
        }
        // Merged in a shuffled order.
        paths.swap(0, 3);
        let mut args = vec!["merge"];
        args.extend(paths.iter().map(String::as_str));
        args.extend_from_slice(&["--format", "json"]);
        let (code, out, err) = kumite(&args);
        assert_eq!(code, 0, "{err}");
        let merged: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(counts(&merged), counts(&whole), "{file} seed {seed}");
        // A CPU's search work is reported (and adds up over shards); random play has none.
        for (side, spec) in [("h", h), ("c", c)] {
            let w = &whole["search"][side];
            if spec.starts_with("cpu") {
                assert!(w["moves"].as_u64().unwrap() > 0, "{w}");
                assert!(
                    w["nodes"].as_u64().unwrap() >= w["moves"].as_u64().unwrap(),
                    "{w}"
                );
                assert!(w["nodes_per_second"].as_f64().unwrap() > 0.0, "{w}");
            } else {
                assert!(w.is_null(), "{w}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merge_refuses_what_does_not_belong_together() {
    let dir = std::env::temp_dir().join(format!("kumite-badmerge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, v: &Value| {
        let p = dir.join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p.display().to_string()
    };
    let a = write(
        "a.json",
        &arena_json(&["rules/cc_lemon.kmt", "--games", "100", "--shard", "0/2"]),
    );
    let b_seed = write(
        "b.json",
        &arena_json(&[
            "rules/cc_lemon.kmt",
            "--games",
            "100",
            "--shard",
            "1/2",
            "--seed",
            "2",
        ]),
    );
    let (code, _, err) = kumite(&["merge", &a, &b_seed]);
    assert_eq!(code, 2);
    assert!(err.contains("seed"), "{err}");
    let (code, _, err) = kumite(&["merge", &a, &a]);
    assert_eq!(code, 2);
    assert!(err.contains("overlap"), "{err}");
    let junk = write("junk.json", &serde_json::json!({"games": 3}));
    let (code, _, err) = kumite(&["merge", &a, &junk]);
    assert_eq!(code, 2);
    assert!(err.contains("junk.json"), "{err}");
    // Half a run merges and says which games it covers.
    let (code, out, _) = kumite(&["merge", &a]);
    assert_eq!(code, 0);
    assert!(out.contains("of a run of 100"), "{out}");
    for bad in ["4/4", "1/0", "x", "-1/2"] {
        let (code, _, err) = kumite(&["arena", "rules/cc_lemon.kmt", "--shard", bad]);
        assert_eq!(code, 2, "--shard {bad}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The arena reuses one engine, position and pair of players per worker; every game must still
/// be the match `kumite match` would play with that game's seed.
#[test]
fn arena_games_are_the_matches_of_their_seeds() {
    for (file, h, c, games) in [
        ("rules/cc_lemon.kmt", "random", "random", 400u64),
        ("rules/karate.kmt", "random", "random", 200),
        (
            "rules/ex1_push.kmt",
            "cpu:S2,P3600000,N1000000",
            "random",
            30,
        ),
        (
            "rules/cc_lemon.kmt",
            "random",
            "cpu:S1,P3600000,N1000000",
            30,
        ),
    ] {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let prog = compile(&text).program.expect("compiles");
        let (mut h_wins, mut c_wins, mut draws, mut turns) = (0u64, 0u64, 0u64, 0u64);
        for i in 0..games {
            let opts = MatchOptions {
                seed: kumite::arena::game_seed(11, i),
                first: Side::from_index(usize::from(prog.settings.cpu_first)),
                trace: false,
                max_turns: None,
                rules_name: file.into(),
                game: i,
                lean: false,
            };
            let r = kumite::cli::play::run_match(&prog, &Default::default(), [h, c], &opts, 5.0)
                .unwrap();
            match r.result {
                GameResult::H => h_wins += 1,
                GameResult::C => c_wins += 1,
                GameResult::Draw => draws += 1,
                GameResult::Error => panic!("{file} game {i}: error"),
            }
            turns += u64::from(r.turns);
        }
        let g = games.to_string();
        for jobs in ["1", "2"] {
            let v = arena_json(&[
                file, "--h", h, "--c", c, "--games", &g, "--seed", "11", "--jobs", jobs,
            ]);
            let got = (
                v["h_wins"].as_u64(),
                v["c_wins"].as_u64(),
                v["draws"].as_u64(),
                v["turns_total"].as_u64(),
            );
            assert_eq!(
                got,
                (Some(h_wins), Some(c_wins), Some(draws), Some(turns)),
                "{file} {h} vs {c}, --jobs {jobs}"
            );
        }
    }
}

/// Runs with nearby seeds are independent samples: no game of `--seed 0` is a game of
/// `--seed 5` (game i once played with seed + i, so the two runs shared all games but five).
#[test]
fn nearby_seeds_share_no_games() {
    use kumite::arena::game_seed;
    let a: std::collections::HashSet<u64> = (0..4000).map(|i| game_seed(0, i)).collect();
    let shared = (0..4000).filter(|&i| a.contains(&game_seed(5, i))).count();
    assert_eq!(shared, 0);
    assert_eq!(a.len(), 4000, "every game of a run has its own seed");
}
