//! `kumite report` on games whose properties are known by construction: a rule that can never
//! fire, a command that changes nothing, a first-mover forced win, a value that makes a game
//! fair, a game decided by chance alone — through the real command line, JSON out.

use crate::common;
use kumite::side::Side;

use common::{kumite, root};
use kumite::report::{Sweep, SweepTarget, set_constant, split_players, wilson};
use serde_json::Value;

fn write(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("kumite-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let f = dir.join(name);
    std::fs::write(&f, text).expect("write");
    f.to_string_lossy().into_owned()
}

fn report(args: &[&str]) -> Value {
    let mut a = vec!["report", "--format", "json"];
    a.extend_from_slice(args);
    let (code, out, err) = kumite(&a);
    assert_eq!(code, 0, "kumite {a:?} failed: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// 体力 only ever falls, so a rule asking for more than 100 can never fire; [回復] is never
/// enabled; [待つ] has no rule at all. Whoever moves first lands the 5th blow first.
const DEAD: &str = "!:体力=5,[殴る],[待つ]\n[殴る]:O.体力-1\nS.体力>100:S.勝利\n[回復]:S.体力+1\nO.体力<=0:S.勝利\n";

#[test]
fn dead_rules_useless_commands_and_a_first_mover_forced_win() {
    let f = write("dead.kmt", DEAD);
    // Deterministic players (no reading mistakes): a useless command's ban changes no game.
    let r = report(&[&f, "--games", "40", "--players", "cpu,cpu"]);
    let rules = r["rules"].as_array().expect("rules");
    let line = |n: u64| {
        rules
            .iter()
            .find(|l| l["line"] == n)
            .unwrap_or_else(|| panic!("line {n} in {rules:?}"))
    };
    assert_eq!(line(2)["dead"], Value::Null);
    assert!(line(2)["games_fired"].as_u64() == Some(r["sample_games"].as_u64().expect("n")));
    assert_eq!(line(3)["dead"], "cannot_fire");
    assert_eq!(line(4)["dead"], "cannot_fire");
    assert_eq!(line(3)["fires"], 0);
    assert_eq!(line(5)["dead"], Value::Null);
    assert_eq!(line(5)["text"], "O.体力<=0:S.勝利");

    let restricted = r["restricted"].as_array().expect("restricted");
    let find = |side: &str, cmd: &str| {
        restricted
            .iter()
            .find(|x| x["side"] == side && x["command"] == cmd)
            .unwrap_or_else(|| panic!("{side} {cmd} in {restricted:?}"))
    };
    for side in ["h", "c"] {
        assert_eq!(find(side, "待つ")["verdict"], "no_effect");
        assert_eq!(find(side, "回復")["verdict"], "no_effect");
        let hit = find(side, "殴る");
        assert_eq!(hit["verdict"], "decisive");
        assert_eq!(
            hit["win_rate"].as_f64(),
            Some(0.0),
            "no blows, no win: {hit}"
        );
    }

    let o = &r["outcome"];
    assert_eq!(o["h_first"]["h_wins"], 40);
    assert_eq!(o["c_first"]["c_wins"], 40);
    let fma = &o["first_mover_advantage"];
    assert_eq!(fma["value"].as_f64(), Some(0.5));
    // One game per seating (deterministic players and rules): no interval over it.
    assert_eq!(o["one_game_per_seating"], true);
    assert_eq!(o["distinct_games"], 2);
    assert_eq!(fma["low"], Value::Null);
    assert_eq!(o["h_score"]["high"], Value::Null);
    assert_eq!(o["depth_check"]["agrees"], true);
    assert_eq!(o["exact"]["kind"], "forced_win");
    assert_eq!(o["exact"]["winner"], "h");
    // Five blows by the first mover: turns 1, 3, 5, 7, 9.
    assert_eq!(r["length"]["median"], 9);
    assert_eq!(r["length"]["histogram"], serde_json::json!([[9, 80]]));
    assert_eq!(r["skill_verdict"], "skill_matters");
}

/// A coin race: each [進む] moves 1 with probability ½, first to 0 wins. h moves first, so equal
/// distances slightly favour h: the fair value of c.距離 is at or just above h's 6.
const RACE: &str =
    "${\n初期:6\n}\n!:h.距離=6,c.距離=6,[進む]\n[進む],rand(1,2)<=1:S.距離-1\nS.距離<=0:S.勝利\n";

#[test]
fn a_sweep_finds_the_fair_starting_value_and_does_not_depend_on_jobs() {
    let f = write("race.kmt", RACE);
    let run = |jobs: &str| {
        let mut r = report(&[
            &f,
            "--games",
            "200",
            "--seed",
            "7",
            "--jobs",
            jobs,
            "--sweep",
            "c.距離=2..10:2",
        ]);
        r["seconds"] = Value::Null;
        r
    };
    let r = run("2");
    let sw = &r["sweep"];
    let pts = sw["points"].as_array().expect("points");
    let values: Vec<i64> = pts
        .iter()
        .map(|p| p["value"].as_i64().expect("v"))
        .collect();
    assert_eq!(values, [2, 4, 6, 8, 10]);
    let rate = |k: usize| pts[k]["h_win_rate"].as_f64().expect("rate");
    assert!(rate(0) < 0.2 && rate(4) > 0.8, "{pts:?}");
    assert!(
        (0..4).all(|k| rate(k) < rate(k + 1)),
        "h's chances grow with c's distance: {pts:?}"
    );
    let fair: Vec<i64> = sw["fair"]
        .as_array()
        .expect("fair")
        .iter()
        .map(|v| v.as_i64().expect("v"))
        .collect();
    assert_eq!(fair, [6], "{pts:?}");
    for p in pts {
        let (lo, v, hi) = (
            p["low"].as_f64(),
            p["h_win_rate"].as_f64(),
            p["high"].as_f64(),
        );
        assert!(lo <= v && v <= hi, "{p}");
    }
    assert_eq!(run("1"), r, "the report depends on the seed only");
    assert_eq!(
        r["skill_verdict"], "no_difference",
        "a race of coin flips has no skill"
    );
}

#[test]
fn a_constant_can_be_swept() {
    let text = "${\n歩幅:1\n}\n!:h.距離=6,c.距離=6,[進む]\n[進む]:S.距離-歩幅\nS.距離<=0:S.勝利\n";
    let f = write("stride.kmt", text);
    let r = report(&[&f, "--games", "20", "--sweep", "歩幅=1..3"]);
    let pts = r["sweep"]["points"].as_array().expect("points");
    assert_eq!(pts.len(), 3);
    // A deterministic race: h moves first and wins every game, whatever the stride.
    assert!(pts.iter().all(|p| p["h_win_rate"] == 1.0), "{pts:?}");
    assert_eq!(r["sweep"]["fair"], serde_json::json!([]));
    let (code, _, err) = kumite(&["report", &f, "--sweep", "歩巾=1..3"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("歩幅"),
        "a did-you-mean for a misspelt name: {err}"
    );
    let (code, _, err) = kumite(&["report", &f, "--sweep", "歩幅=3..1"]);
    assert_eq!(code, 2);
    assert!(err.contains("empty"), "{err}");
}

/// Pure chance: one command, a coin decides each point.
const DICE: &str = "~同時\n!:[振る]\n[振る],rand(1,2)<=1:S.点+1\nS.点>=5:S.勝利\n";

#[test]
fn a_game_of_chance_alone_has_no_choices_and_no_skill() {
    let f = write("dice.kmt", DICE);
    let r = report(&[&f, "--games", "200"]);
    assert_eq!(r["simultaneous"], true);
    assert_eq!(r["outcome"]["c_first"], Value::Null);
    assert_eq!(r["outcome"]["first_mover_advantage"], Value::Null);
    let d = &r["decisions"];
    assert_eq!(d["branching_mean"].as_f64(), Some(1.0));
    assert_eq!(d["choice_share"].as_f64(), Some(0.0));
    assert_eq!(d["command_use"]["h"]["振る"].as_f64(), Some(1.0));
    assert_eq!(r["skill_verdict"], "no_difference");
    // Nothing to stop early on: random against the deepest level plays all its games.
    for p in r["skill"].as_array().expect("skill") {
        assert_eq!(p["games"], p["planned_games"], "{p}");
    }
    let e = &r["outcome"]["exact"];
    assert_eq!(e["kind"], "value");
    assert!(
        e["value"].as_f64().expect("value").abs() < 1e-6,
        "a symmetric game: {e}"
    );
    let score = r["outcome"]["h_score"].clone();
    assert!(
        score["low"].as_f64() < Some(0.5) && score["high"].as_f64() > Some(0.5),
        "{score}"
    );
}

#[test]
fn exact_parts_agree_with_solve_on_the_bundled_examples() {
    let ex1 = root().join("rules/ex1_push.kmt");
    let ex1 = ex1.to_str().expect("path");
    let r = report(&[ex1, "--games", "10"]);
    let (_, out, _) = kumite(&["solve", ex1, "--format", "json"]);
    let s: Value = serde_json::from_str(&out).expect("solve json");
    assert_eq!(s["forced_win"]["exists"], true);
    assert_eq!(r["outcome"]["exact"]["kind"], "forced_win");
    assert_eq!(r["outcome"]["exact"]["winner"], "h");

    let cc = root().join("rules/cc_lemon.kmt");
    let cc = cc.to_str().expect("path");
    // Only the sections read here: the skill round robin and the rest play CPU games that
    // have nothing to do with the exact value or the rules' liveness.
    let r = report(&[cc, "--games", "20", "--sections", "outcome,exact,rules"]);
    let (_, out, _) = kumite(&["solve", cc, "--value", "--format", "json"]);
    let s: Value = serde_json::from_str(&out).expect("solve json");
    let v = r["outcome"]["exact"]["value"].as_f64().expect("value");
    assert!(v.abs() < 1e-6 && s["value"].as_f64().expect("solve value").abs() < 1e-6);
    assert_eq!(s["converged"], true, "CC Lemon settles in 57 iterations");
    // Every rule of the bundled CC Lemon can fire.
    for l in r["rules"].as_array().expect("rules") {
        assert_ne!(l["dead"], "cannot_fire", "{l}");
    }
}

#[test]
fn bad_arguments_say_what_is_wrong() {
    let f = write("dead2.kmt", DEAD);
    for (args, want) in [
        (vec!["--players", "cpu"], "two player specs"),
        (vec!["--players", "human,random"], "human"),
        (vec!["--players", "cpu:Q9,random"], "cpu setting"),
        (vec!["--sweep", "体力"], "NAME=LO..HI"),
        (vec!["--sweep", "x.体力=1..3"], "side must be h or c"),
        (vec!["--sweep", "体力=1..100000"], "at most"),
    ] {
        let mut a = vec!["report", &f];
        a.extend(args.iter().copied());
        let (code, _, err) = kumite(&a);
        assert_eq!(code, 2, "{a:?}");
        assert!(err.contains(want), "{a:?}: {err}");
    }
    // Players with commas inside their specs split where the second begins.
    assert_eq!(
        split_players("cpu:S3,D2,random").expect("split"),
        ["cpu:S3,D2".to_string(), "random".to_string()]
    );
    let r = report(&[&f, "--games", "10", "--players", "cpu:S2,random"]);
    assert_eq!(r["players"]["outcome"]["c"], "random");
    assert_eq!(r["players"]["sample"]["h"], "cpu:S2,P3600000,N100000");
}

#[test]
fn wilson_intervals_and_constant_rewriting() {
    assert_eq!(kumite::report::reproducible("cpu"), "cpu:P3600000,N100000");
    assert_eq!(
        kumite::report::reproducible("cpu:S5,N500"),
        "cpu:S5,N500,P3600000"
    );
    assert_eq!(kumite::report::reproducible("cpu:P200"), "cpu:P200,N100000");
    assert_eq!(kumite::report::reproducible("random"), "random");
    let r = wilson(0.5, 100);
    assert!(
        (r.low.unwrap() - 0.4038).abs() < 1e-3 && (r.high.unwrap() - 0.5962).abs() < 1e-3,
        "{r:?}"
    );
    let r = wilson(0.0, 20);
    assert_eq!(r.low, Some(0.0));
    assert!((r.high.unwrap() - 0.1611).abs() < 1e-3, "{r:?}");
    let t = set_constant("${\n 費用：5\n}\n[a]:S.x-費用\n", "費用", 9).expect("found");
    assert_eq!(t, "${\n 費用:9\n}\n[a]:S.x-費用\n");
    assert!(set_constant("[a]:S.x-1\n", "費用", 9).is_none());
    let prog = kumite::pipeline::compile(RACE).program.expect("compiles");
    let s = Sweep::parse("ｃ．距離＝３．．５", &prog).expect("full-width forms read");
    assert_eq!(s.values, [3, 4, 5]);
    assert_eq!(
        s.target,
        SweepTarget::State {
            sides: vec![Side::C],
            name: "距離".into()
        }
    );
    assert_eq!(
        Sweep::parse("初期=1..2", &prog).expect("constant").target,
        SweepTarget::Constant("初期".into())
    );
}

#[test]
fn a_cancelled_report_stops_and_says_so() {
    let prog = kumite::pipeline::compile(&common::read(&root().join("rules/karate.kmt")))
        .program
        .expect("karate compiles");
    let progress = kumite::report::Progress::new();
    let p2 = progress.clone();
    let canceller = std::thread::spawn(move || {
        while p2.done.load(std::sync::atomic::Ordering::Relaxed) < 3 {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        p2.cancel();
    });
    let mut updates = 0;
    let r = kumite::report::run(
        "",
        "karate",
        &prog,
        &kumite::report::ReportOptions::default(),
        &progress,
        |_| updates += 1,
    )
    .expect("runs");
    canceller.join().expect("join");
    assert!(r.cancelled);
    assert!(r.skill.is_none() && r.sweep.is_none());
    assert!(updates >= 1);
    let done = progress.done.load(std::sync::atomic::Ordering::Relaxed);
    let total = progress.total.load(std::sync::atomic::Ordering::Relaxed);
    assert!(done < total, "{done} of {total}");
}

#[test]
fn right_click_targets_for_sweeps() {
    use kumite::report::sweep_at;
    let line = "!:h.体力=30,c.体力=30,スタミナ=12";
    let col = |s: &str| {
        line.find(s)
            .map(|b| line[..b].chars().count())
            .expect("in line")
    };
    assert_eq!(
        sweep_at(line, col("h.体力")).as_deref(),
        Some("h.体力=20..40:2")
    );
    assert_eq!(
        sweep_at(line, col("c.体力") + 5).as_deref(),
        Some("c.体力=20..40:2")
    );
    assert_eq!(
        sweep_at(line, col("スタミナ")).as_deref(),
        Some("スタミナ=8..16")
    );
    assert_eq!(sweep_at("  費用：5", 4).as_deref(), Some("費用=3..7"));
    assert_eq!(
        sweep_at("!:体力=300", 3).as_deref(),
        Some("体力=200..400:20")
    );
    assert_eq!(sweep_at("[押す]:O.体力-1", 8), None);
    assert_eq!(
        sweep_at("!:[押す],体力=3", 3),
        None,
        "a command is not a value"
    );
    assert_eq!(sweep_at("~P50,S3", 2), None);
}

#[test]
fn sections_can_be_chosen() {
    let f = write("dead3.kmt", DEAD);
    let r = report(&[&f, "--games", "10", "--sections", "rules,exact"]);
    assert!(
        r["rules"].is_array() && r["decisions"].is_null(),
        "only the sections asked for"
    );
    assert_eq!(r["outcome"]["exact"]["kind"], "forced_win");
    for absent in ["length", "tension", "restricted", "skill", "sweep"] {
        assert_eq!(r[absent], Value::Null, "{absent}");
    }
    assert_eq!(r["outcome"]["games"], 0, "no outcome games were played");
    // The text shows the exact verdict alone, not empty sampled lines.
    let (code, text, _) = kumite(&["report", &f, "--sections", "exact"]);
    assert_eq!(code, 0);
    assert!(text.contains("EXACT\n  "), "{text}");
    assert!(
        !text.contains("OUTCOME") && !text.contains("0.0%"),
        "{text}"
    );
    // Decisions and rules come from the same random games, but each shows only when asked
    // for; the outcome players' command uses only when their games were played.
    let (code, text, _) = kumite(&["report", &f, "--games", "10", "--sections", "rules"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("RULES") && !text.contains("DECISIONS"),
        "{text}"
    );
    let (code, text, _) = kumite(&["report", &f, "--games", "10", "--sections", "decisions"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("DECISIONS") && !text.contains("RULES"),
        "{text}"
    );
    assert!(
        text.contains("(random)") && !text.contains("outcome players"),
        "{text}"
    );
    let (_, text, _) = kumite(&[
        "report",
        &f,
        "--games",
        "10",
        "--sections",
        "outcome,decisions",
    ]);
    assert!(text.contains("uses (outcome players)"), "{text}");
    let (code, _, err) = kumite(&["report", &f, "--sections", "outcome,luck"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown section 'luck'"), "{err}");
}

#[test]
fn a_rule_dead_by_correlation_is_proved_dead_by_exhausting_a_small_game() {
    // x and y can each be 1, but never both: only enumerating the positions shows it.
    let text = "!:[a],[b],[c]\n[a]:S.x=1,S.y=0\n[b]:S.x=0,S.y=1\nS.x>0,S.y>0:S.勝利\n[c]:S.点+1\nS.点>=3:S.勝利\n";
    let f = write("corr.kmt", text);
    let r = report(&[&f, "--games", "20", "--sections", "rules,exact"]);
    let rules = r["rules"].as_array().expect("rules");
    let line = |n: u64| rules.iter().find(|l| l["line"] == n).expect("line");
    assert_eq!(line(4)["dead"], "cannot_fire", "{rules:?}");
    assert_eq!(line(4)["proof"], "exhaustive");
    assert_eq!(line(6)["dead"], Value::Null);
    // The dead rule of DEAD is caught without enumerating: by the value ranges.
    let f = write("dead4.kmt", DEAD);
    let r = report(&[&f, "--games", "10", "--sections", "rules"]);
    let l3 = r["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|l| l["line"] == 3)
        .cloned();
    assert_eq!(l3.expect("line 3")["proof"], "static");
}

/// How long a report takes to stop after Cancel (prints it; no timing assertion).
#[test]
#[ignore = "measurement: cargo test --release --test suite report:: -- --ignored --nocapture"]
fn cancel_latency() {
    let prog = kumite::pipeline::compile(&common::read(&root().join("rules/karate.kmt")))
        .program
        .expect("karate compiles");
    let mut worst = std::time::Duration::ZERO;
    for wait_ms in [300u64, 1500, 4000] {
        let progress = kumite::report::Progress::new();
        let p2 = progress.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(wait_ms));
            p2.cancel();
            std::time::Instant::now()
        });
        let r = kumite::report::run("", "karate", &prog, &Default::default(), &progress, |_| {})
            .expect("runs");
        let stopped = std::time::Instant::now();
        let asked = t.join().expect("join");
        let lat = stopped.duration_since(asked);
        worst = worst.max(lat);
        eprintln!(
            "cancel after {wait_ms} ms: stopped {lat:?} later (cancelled {})",
            r.cancelled
        );
    }
    eprintln!("worst cancel latency {worst:?}");
}

/// The wrestling match a designer wrote (tests/designs/wrestling.kmt): its deterministic CPUs played one game
/// per seating over and over, which the report showed as a sample with intervals. The
/// report's own CPUs now make a reading mistake in ten moves, so games differ, and it says
/// how many did and whether deeper CPUs agree.
#[test]
fn the_report_counts_different_games_and_checks_a_deeper_cpu() {
    let f = common::root().join("tests/designs/wrestling.kmt");
    let r = report(&[
        f.to_str().unwrap(),
        "--games",
        "20",
        "--sections",
        "outcome",
    ]);
    let o = &r["outcome"];
    assert!(
        r["players"]["outcome"]["h"]
            .as_str()
            .is_some_and(|p| p.contains("E1")),
        "{}",
        r["players"]
    );
    assert_eq!(o["one_game_per_seating"], false);
    assert!(o["distinct_games"].as_u64().expect("distinct") > 20, "{o}");
    assert!(o["h_score"]["low"].as_f64().is_some(), "{o}");
    let d = &o["depth_check"];
    assert!(
        d["players"][0].as_str().expect("deeper").contains("S4"),
        "{d}"
    );
    assert_eq!(d["plies"], 1, "{d}");
    assert!(d["agrees"].is_boolean() || d["agrees"].is_null(), "{d}");
    // Deterministic players: one game per seating, said so, with no interval.
    let args = [
        "report",
        f.to_str().unwrap(),
        "--games",
        "20",
        "--sections",
        "outcome",
        "--players",
        "cpu,cpu",
    ];
    let r = report(&args[1..]);
    assert_eq!(r["outcome"]["one_game_per_seating"], true);
    assert_eq!(r["outcome"]["first_mover_advantage"]["low"], Value::Null);
    let (code, text, _) = common::kumite(&args);
    assert_eq!(code, 0);
    assert!(text.contains("all the same game"), "{text}");
    assert!(!text.contains("(95%"), "{text}");
}

#[test]
fn the_key_skill_pairing_stops_once_its_interval_is_clear_of_even() {
    // Sumo: the deepest level beats random nearly every game; the pairing looks at its games
    // every fifth of the way and stops once a 99.9% interval excludes an even score.
    let sumo = root().join("rules/sumo.kmt");
    let r = report(&[sumo.to_str().unwrap(), "--sections", "skill"]);
    let key = r["skill"]
        .as_array()
        .expect("skill")
        .iter()
        .find(|p| p["a"] == "random" && p["b"] == "cpu:S5")
        .expect("the key pairing")
        .clone();
    let (games, planned) = (
        key["games"].as_u64().unwrap(),
        key["planned_games"].as_u64().unwrap(),
    );
    assert!(
        games < planned && planned % 5 == 0 && games % (planned / 5) == 0,
        "{key}"
    );
    assert!(key["high"].as_f64().unwrap() < 0.5, "{key}");
    assert_eq!(r["skill_verdict"], "skill_matters");
}

/// A ban that raises the side's score names a trap (the side is better off never playing it);
/// a ban that lowers it stays "decisive" (the side needs the command).
#[test]
fn a_command_the_side_is_better_without_is_named_a_trap() {
    let d = std::env::temp_dir().join(format!("kumite-trap-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("trap.kmt");
    std::fs::write(
        &f,
        "!:hp=3,[hit],[oops]\n[hit]:O.hp-1\n[oops]:S.hp-2\nS.hp<=0:O.勝利\nO.hp<=0:S.勝利\n",
    )
    .unwrap();
    let (code, out, err) = crate::common::kumite(&[
        "report",
        f.to_str().unwrap(),
        "--games",
        "40",
        "--sections",
        "restricted",
        "--players",
        "random,random",
    ]);
    assert_eq!(code, 0, "{err}");
    let line = |what: &str| {
        out.lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("{what}: {out}"))
            .to_string()
    };
    assert!(
        line("h without oops").contains("a trap: banning oops raises h's score by"),
        "{out}"
    );
    let hit = line("h without hit");
    assert!(hit.ends_with("decisive") && !hit.contains("trap"), "{hit}");
}

/// `report A --against B`: a planted imbalance shows as a difference whose interval leaves out
/// 0; a file against itself differs in nothing; a missing file or a sweep B cannot take is named.
#[test]
fn two_versions_side_by_side() {
    let fair = root()
        .join("tests/designs/boxing.kmt")
        .to_string_lossy()
        .into_owned();
    let text = std::fs::read_to_string(&fair).expect("boxing");
    assert!(
        text.contains("!:hp=10,stamina=6"),
        "the design file changed"
    );
    let strong = write(
        "boxing_h14.kmt",
        &text.replace("!:hp=10,stamina=6", "!:h.hp=14,c.hp=10,stamina=6"),
    );
    let args = ["--games", "60", "--sections", "outcome,length"];
    let mut a = vec![strong.as_str(), "--against", fair.as_str()];
    a.extend(args);
    let c = report(&a);
    let rows = c["differences"].as_array().expect("rows");
    let row = |m: &str| {
        rows.iter()
            .find(|r| r["measure"] == m)
            .unwrap_or_else(|| panic!("no row {m}: {c}"))
    };
    let h = row("h's score");
    assert_eq!(h["differs"], true, "{h}");
    assert!(h["low"].as_f64().expect("low") > 0.0, "{h}");
    let (x, y) = (h["a"].as_f64().expect("a"), h["b"].as_f64().expect("b"));
    assert!((h["diff"].as_f64().expect("diff") - (x - y)).abs() < 1e-9);
    // Each side's figure is that file's own report.
    let alone = report(&[&strong, "--games", "60", "--sections", "outcome,length"]);
    assert_eq!(alone["outcome"]["h_score"]["value"].as_f64(), Some(x));
    assert_eq!(c["a"]["outcome"], alone["outcome"]);
    assert_eq!(row("mean turns")["basis"], "spread");
    // The text says so.
    let mut t = vec!["report", strong.as_str(), "--against", fair.as_str()];
    t.extend(args);
    let (code, out, err) = kumite(&t);
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("h's score "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("DIFFERS"), "{out}");
    // A file against itself: the same games, no difference.
    let same = report(&[&fair, "--against", &fair, "--games", "30"]);
    assert_eq!(same["same_players"], true);
    for r in same["differences"].as_array().expect("rows") {
        assert_ne!(r["differs"], true, "{r}");
        if let Some(d) = r["diff"].as_f64() {
            assert_eq!(d, 0.0, "{r}");
        }
    }
    // Bad partners are named.
    let (code, _, err) = kumite(&["report", &fair, "--against", "/nonexistent/b.kmt"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/b.kmt"), "{err}");
    let other = write("other.kmt", "!:x=1,[a]\n[a]:S.x+1\nS.x>=3:S.勝利\n");
    let (code, _, err) = kumite(&[
        "report",
        &fair,
        "--against",
        &other,
        "--sweep",
        "h.hp=8..12",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("other.kmt") && err.contains("hp"), "{err}");
}
