//! `cpu:exact` against games whose answers are known from mathematics, played as a user plays
//! them: `kumite arena` processes with `--format json`.
//!
//! - The subtraction game (take 1, 2 or 3 stones, who takes the last wins): the side to move
//!   wins exactly when the pile is not a multiple of 4. From every such pile up to 40 the exact
//!   player wins every game as the first mover, against random and against the ordinary CPU;
//!   from every multiple of 4 it wins every game as the second mover.
//! - CC Lemon: the game is symmetric, so its value is 0 and exact play against itself wins half
//!   the games; with 5 charges against none, スペシウム光線 wins on turn 1 whatever the seed.
//! - A race nobody can lose: sooner beats later.

use crate::common;
use kumite::side::Side;

use kumite::engine::Engine;
use kumite::pipeline::compile;
use kumite::search::exact::ExactTable;
use std::process::Command;
use std::time::Duration;

/// The subtraction game as a rule file (each side keeps a copy of the shared pile).
const NIM: &str = "# 石取り: 1〜3個取る、最後の石を取った方の勝ち
!:石=9,[一つ取る]
S.石>=1::[一つ取る]
S.石>=2::[二つ取る]
S.石>=3::[三つ取る]
[一つ取る]:S.石-1,O.石-1
[二つ取る]:S.石-2,O.石-2
[三つ取る]:S.石-3,O.石-3
[一つ取る],S.石==1:S.勝利
[二つ取る],S.石==2:S.勝利
[三つ取る],S.石==3:S.勝利
";

/// The file's CPU with a node budget instead of its thinking time: its games replay exactly,
/// however fast or loaded the machine is (the budget is far above what its depth needs).
const CPU: &str = "cpu:P3600000,N1000000";

fn arena(file: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_kumite"))
        .arg("arena")
        .arg(file)
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("run kumite");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kumite-exact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn exact_play_wins_the_subtraction_game_from_every_winning_pile() {
    let nim = temp_file("nim.kmt", NIM);
    for pile in 1..=40 {
        let set = format!("石={pile}");
        // The side that can win: the first mover unless the pile is a multiple of 4.
        let (winner, wins) = if pile % 4 == 0 {
            ("c", "c_wins")
        } else {
            ("h", "h_wins")
        };
        for opponent in ["random", CPU] {
            let (h, c) = if winner == "h" {
                ("cpu:exact", opponent)
            } else {
                (opponent, "cpu:exact")
            };
            let games = if opponent == "random" { "200" } else { "10" };
            let r = arena(
                &nim,
                &[
                    "--h", h, "--c", c, "--games", games, "--seed", "7", "--set", &set,
                ],
            );
            assert_eq!(
                r[wins].as_u64(),
                r["games"].as_u64(),
                "pile {pile}: exact as {winner} against {opponent} lost games: {r}"
            );
        }
    }
}

#[test]
fn exact_cc_lemon_is_fair_and_unexploitable_and_takes_a_sure_win_at_once() {
    let text = common::read(&common::root().join("rules/cc_lemon.kmt"));
    let p = compile(&text).program.expect("compiles");
    let e = Engine::new(&p, 0);
    let st = e.initial(Side::H).expect("start");
    let t = ExactTable::build(&p, &st, Duration::from_secs(20), 50_000).expect("a table");
    let v = t.value(&st).expect("the start is in the table");
    assert!(v.abs() < 1e-6, "a symmetric game is worth 0, not {v}");
    let x = t.exploitability(&st).expect("in the table");
    assert!(x <= 0.01, "exploitability {x}");
    let len = t.root_length.expect("optimal play ends");
    assert!((2.0..100.0).contains(&len), "expected length {len}");
    // With 5 charges against none, h's スペシウム光線 cannot be answered.
    let file = common::root().join("rules/cc_lemon.kmt");
    for h in ["cpu:exact", CPU] {
        // Ten games, each with its own seed (derived from --seed and the game's number).
        let r = arena(
            &file,
            &[
                "--h",
                h,
                "--c",
                "random",
                "--games",
                "10",
                "--seed",
                "1",
                "--set",
                "h.チャージ=5",
            ],
        );
        assert_eq!(r["h_wins"], 10, "{h}: {r}");
        assert_eq!(r["turns_total"], 10, "{h}: not every game won at once: {r}");
    }
}

#[test]
fn exact_play_prefers_the_sooner_win() {
    // Two ways to win for sure: now (a long jump) or in three steps.
    let text = "!:距離=3,[跳ぶ],[歩く]
[歩く]:S.距離-1
[跳ぶ]:S.距離-3
S.距離<=0:S.勝利
";
    let p = compile(text).program.expect("compiles");
    let e = Engine::new(&p, 0);
    let st = e.initial(Side::H).expect("start");
    let t = ExactTable::build(&p, &st, Duration::from_secs(10), 100_000).expect("a table");
    let s = t.strategy(&st, Side::H).expect("h to move");
    let jump = p.command_id("跳ぶ");
    assert!(
        s.iter().all(|(m, pr)| (*m == jump) == (*pr == 1.0)),
        "{s:?}"
    );
}

#[test]
fn solve_against_measures_how_much_a_player_gives_away() {
    let run = |player: &str| -> serde_json::Value {
        let out = Command::new(env!("CARGO_BIN_EXE_kumite"))
            .args([
                "solve",
                "rules/cc_lemon.kmt",
                "--value",
                "--against",
                player,
            ])
            .args(["--depth", "2", "--format", "json"])
            .current_dir(common::root())
            .output()
            .expect("run kumite");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        v["against"].clone()
    };
    let exact = run("cpu:exact");
    let x = exact["exploitability"].as_f64().expect("a number");
    assert!(x <= 0.01, "cpu:exact gives away {x}: {exact}");
    // A uniformly random c charges into beams: a best reply wins most games.
    let random = run("random");
    let x = random["exploitability"].as_f64().expect("a number");
    assert!(x > 0.5, "random gives away only {x}: {random}");
    let bad = Command::new(env!("CARGO_BIN_EXE_kumite"))
        .args([
            "solve",
            "rules/cc_lemon.kmt",
            "--value",
            "--against",
            "nobody",
        ])
        .current_dir(common::root())
        .output()
        .expect("run kumite");
    assert_eq!(bad.status.code(), Some(2), "an unknown player is bad input");
}

/// No game lasts past the turn limit, so neither does an expected length: a race to 100 lasts
/// 199 turns, or 50 under `~T50`; in a game that optimal play can drag on for ever (both sides
/// guarding) the length is the limit's business and none is reported past it.
#[test]
fn expected_lengths_stay_within_the_turn_limit() {
    let table = |text: &str| {
        let p = compile(text).program.expect("compiles");
        let root = Engine::new(&p, 0).initial(Side::H).expect("start");
        ExactTable::build(&p, &root, Duration::from_secs(20), 1_000_000).expect("a table")
    };
    let race = |limit: u32| {
        table(&format!(
            "~T{limit}\n!:[進む]\n[進む]:S.数+1\nS.数>=100:S.勝利\n"
        ))
        .root_length
    };
    assert_eq!(race(1000), Some(199.0));
    assert_eq!(race(50), Some(50.0));
    let guard = table(
        "~T40\n!:[溜め],[防御]\nS.気>=1::[攻撃]\n[溜め]:S.気+1\n[攻撃]:S.気-1\n[攻撃],!O.[防御]:S.勝利\n",
    );
    assert!(
        guard.root_length.is_none_or(|l| l <= 40.0),
        "{:?}",
        guard.root_length
    );
}

/// In a game that is a draw under perfect play (guarding every turn never loses), every move
/// that keeps the draw is worth the same to the exact table; among them the exact player takes
/// the one its search likes, so it still beats a random opponent who leaves an opening (a
/// uniform pick among the drawing moves won about 71 %), and two exact players still draw.
#[test]
fn exact_play_breaks_ties_by_search_and_punishes_mistakes() {
    let f = temp_file(
        "guard",
        "~T20\n!:[溜め],[防御]\nS.気>=1::[攻撃]\n[溜め]:S.気+1\n[攻撃]:S.気-1\n[攻撃],!O.[防御]:S.勝利\n",
    );
    let v = arena(&f, &["--h", "cpu:exact", "--c", "random", "--games", "200"]);
    assert!(v["h_wins"].as_u64().unwrap() >= 190, "{v}");
    assert_eq!(v["c_wins"], 0, "{v}");
    let v = arena(
        &f,
        &["--h", "cpu:exact", "--c", "cpu:exact", "--games", "40"],
    );
    assert_eq!(v["draws"], 40, "{v}");
}

/// `solve --value` on a game that fits: every position solved, no estimate. A simultaneous race
/// to 30 (+1 or +2 a turn, arriving together is a draw) is worth exactly +1 to the side two
/// ahead — the old ±12 bound valued it at 0.06 while the same output proved a forced win.
#[test]
fn solve_value_solves_small_games_whole() {
    let f = temp_file(
        "simrace",
        "~同時\n!:[一],[二]\n[一]:S.数+1\n[二]:S.数+2\nS.数>=30:S.勝利\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_kumite"))
        .arg("solve")
        .arg(&f)
        .args(["--value", "--set", "h.数=2", "--against", "cpu:exact"])
        .args(["--format", "json"])
        .output()
        .expect("run kumite");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!((v["value"].as_f64().unwrap() - 1.0).abs() < 1e-6, "{v}");
    assert!(v["forced_win"]["exists"].as_bool().unwrap(), "{v}");
    assert!(
        v["value_method"].as_str().unwrap().contains("all"),
        "{}",
        v["value_method"]
    );
    // The best reply is computed over the same whole game: the exact player gives nothing away.
    let a = &v["against"];
    assert!(
        (a["best_reply_value"].as_f64().unwrap() - 1.0).abs() < 1e-6,
        "{a}"
    );
    assert!(a["exploitability"].as_f64().unwrap() < 1e-6, "{a}");
}

/// A simultaneous fight where attack against guard changes nothing: the side ahead (h, 3 HP
/// against 2) must charge its guard-piercing special to win, and the search's matrix game once
/// valued attack-against-guard as its own searched value, so two CPUs attacked and guarded
/// until the turn limit, every game a draw. Now a stall is worth a draw and h makes progress.
const STALL_FIGHT: &str = "~同時,T200
!:h.体力=3,c.体力=2
!:[攻撃],[防御],[溜める]
S.溜め>=3::[必殺]
[溜める]:S.溜め+1
[攻撃],!O.[防御]:O.体力-1
[必殺]:S.溜め-3,O.体力-2
[必殺],O.[防御]:O.体力-1
O.体力<=0:S.勝利
";

/// Plays `games` games of the default CPU against itself (seed 3) on the rules `text` and checks
/// that h wins at least `at_least` and that the games do not stall (under 100 turns on average).
fn cpu_against_cpu_wins(name: &str, text: &str, games: u64, at_least: u64) -> serde_json::Value {
    let f = temp_file(name, text);
    let n = games.to_string();
    let r = arena(&f, &["--h", CPU, "--c", CPU, "--games", &n, "--seed", "3"]);
    let h = r["h_wins"].as_u64().expect("h_wins");
    let turns = r["turns_total"].as_u64().expect("turns_total");
    assert!(h >= at_least, "{name}: h won only {h} of {games}: {r}");
    assert!(
        turns < games * 100,
        "{name}: the games stall: {turns} turns in {games} games: {r}"
    );
    r
}

#[test]
fn the_cpu_breaks_a_stall_when_it_is_ahead() {
    let r = cpu_against_cpu_wins("stall.kmt", STALL_FIGHT, 40, 12);
    assert_eq!(r["c_wins"], 0, "{r}");
}

/// An alternate fight where h (12 HP against 8) is ahead. Both sides charge their unblockable
/// special and then guard: at depth 3 "guard now, strike at ply 3" (a strike nobody answers
/// within the horizon) beat "strike now", so two CPUs guarded until the turn limit, every game
/// a draw. Guard against guard comes back to the same position: a draw on the search's own
/// line, so the side ahead strikes.
const GUARD_FIGHT: &str = "~T200
!:h.体力=12,c.体力=8,スタミナ=3
!:[防御],[溜める],[休む]
S.スタミナ>=1::[打つ]
S.溜め>=2::[必殺]
[打つ]:S.スタミナ-1
[打つ],!O.[防御]:O.体力-2
[打つ],O.[防御]:O.体力-1
[溜める]:S.溜め+1
[必殺]:S.溜め=0,O.体力-5
[休む]:S.スタミナ+=min(2,5-S.スタミナ)
O.体力<=0:S.勝利
";

/// An alternate boxing match with dice and stamina regained every second own turn: h (15 HP
/// against 10) jabbed into c's guard for ever, a cycle of four turns (the period's phase comes
/// back after two own turns each), longer than a depth-3 search sees. The game's earlier
/// positions count as draws too, so h changes its plan.
const JAB_FIGHT: &str = "~T300,S3
!:h.体力=15,c.体力=10,スタミナ=4
!:[ジャブ],[ガード]
S.スタミナ>=2::[ストレート]
[ジャブ],!O.[ガード]:O.体力-=rand(1,2)
[ストレート]:S.スタミナ-2
[ストレート],!O.[ガード]:O.体力-=rand(2,4)
[ストレート],O.[ガード]:O.体力-=1
[ジャブ],[ストレート],!O.[ガード]:O.体力-2
@2/:S.スタミナ+=min(1,6-S.スタミナ)
O.体力<=0:S.勝利
";

#[test]
fn the_side_ahead_does_not_repeat_positions_in_alternate_play() {
    for (name, text) in [("guard.kmt", GUARD_FIGHT), ("jab.kmt", JAB_FIGHT)] {
        cpu_against_cpu_wins(name, text, 20, 18);
    }
}

#[test]
fn a_cpu_made_for_one_move_sees_the_game_so_far() {
    // The studio makes a CPU player for every move and hands it the positions before: with
    // them it finds the way out of the jab-into-guard cycle as the arena's player does.
    use kumite::search::{CpuPlayer, CpuSettings};
    let c = compile(JAB_FIGHT);
    let prog = c.program.expect("compiles");
    let eng = Engine::new(&prog, 5);
    let mut st = eng.initial(Side::H).expect("start");
    let mut past = Vec::new();
    while st.outcome.is_none() && st.turn < 300 {
        let side = st.to_move;
        let settings = CpuSettings::parse(&prog, "E0,P60000").expect("settings");
        let mut cpu = CpuPlayer::new(&prog, settings, st.turn as u64);
        cpu.set_history(&past);
        let m = cpu.think(&st, side);
        past.push(st.clone());
        let mut cmds = [None, None];
        cmds[side] = m;
        eng.play(&mut st, cmds, None).expect("plays");
    }
    assert_eq!(
        st.outcome,
        Some(kumite::engine::Outcome::H),
        "after {} turns",
        st.turn
    );
}

/// Oshi-Zumo with 4 coins against 3 on a field of 3 (tests/designs/oshi_zumo_small.kmt with
/// K=1), under turn limits: the game value is the one of the game as written — backward
/// induction over the turns left gives +0.1429 with 4 turns and +0.2331 with 6, and only from
/// about 12 turns on the limit stops mattering (+0.2338, the value without it). `solve --value`
/// once said +0.2338 "nothing estimated" for every limit from 4 on. The best reply against
/// `cpu:exact` is valued over the same turns, and the answer says how the limit was counted.
#[test]
fn solve_value_counts_the_turn_limit() {
    let base = common::read(&common::root().join("tests/designs/oshi_zumo_small.kmt"))
        .replace("土俵:2", "土俵:1")
        .replace("!:金=所持金,", "!:h.金=4,c.金=3,");
    for (t, want) in [
        (3, 0.0),
        (4, 0.1429),
        (6, 0.2331),
        (12, 0.2338),
        (1000, 0.2338),
    ] {
        let text = base.replace("~同時,T1000", &format!("~同時,T{t}"));
        let f = temp_file(&format!("oz_t{t}"), &text);
        let out = Command::new(env!("CARGO_BIN_EXE_kumite"))
            .arg("solve")
            .arg(&f)
            .args(["--value", "--against", "cpu:exact", "--format", "json"])
            .output()
            .expect("run kumite");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let value = v["value"].as_f64().unwrap();
        assert!((value - want).abs() < 5e-5, "T{t}: {value} ≠ {want}\n{v}");
        let how = v["value_method"].as_str().unwrap();
        assert!(
            how.contains(&format!("turn limit T{t} counted")),
            "T{t}: {how}"
        );
        let a = &v["against"];
        let br = a["best_reply_value"].as_f64().unwrap();
        assert!(
            br >= value - 1e-6 && br < value + 0.02,
            "T{t}: best reply {br}\n{a}"
        );
        assert!(
            a["turn_limit"].as_str().unwrap().contains("counted"),
            "T{t}: {a}"
        );
    }
}

/// A table cache shares a table between the players that hold it, keyed by what the program
/// does and the run's bans: the same program and position give the same table, a ban gives
/// another, and a second cache builds its own.
#[test]
fn an_exact_table_is_built_once_per_cache_and_per_ban() {
    use kumite::program::RunConfig;
    use kumite::search::exact::TableCache;
    use std::sync::Arc;
    let p = compile(NIM).program.expect("compiles");
    let eng = Engine::new(&p, 0);
    let st = eng.initial(Side::H).expect("start");
    let get = |cache: &TableCache, config: &RunConfig| {
        cache
            .get(&p, config, &st, Duration::from_secs(600), 100_000)
            .expect("a table of nine stones")
    };
    let plain = RunConfig::default();
    let (a, b) = (TableCache::default(), TableCache::default());
    let first = get(&a, &plain);
    assert!(
        Arc::ptr_eq(&first, &get(&a, &plain)),
        "built again in the same cache"
    );
    // The same rules written otherwise (a comment, another layout) are the same program.
    let same = compile(&NIM.replace("# 石取り", "# 石取りゲーム"))
        .program
        .expect("compiles");
    let again = a
        .get(&same, &plain, &st, Duration::from_secs(600), 100_000)
        .expect("table");
    assert!(Arc::ptr_eq(&first, &again), "a comment made another table");
    assert!(
        !Arc::ptr_eq(&first, &get(&b, &plain)),
        "two caches shared a table"
    );
    // Banning h's 一つ取る makes another game, with its own table.
    let one = p
        .commands
        .iter()
        .position(|c| c == "一つ取る")
        .expect("command");
    let banned = RunConfig {
        banned: vec![one as u32],
        ..RunConfig::default()
    };
    let restricted = get(&a, &banned);
    assert!(
        !Arc::ptr_eq(&first, &restricted),
        "a ban shared the plain table"
    );
    assert!(
        first.value(&st).expect("value") > 0.0,
        "9 stones: the first mover wins"
    );
}
