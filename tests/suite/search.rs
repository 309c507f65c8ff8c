//! Derived victory conditions, the CPU's search and the solver, checked against hand-worked
//! numbers from LANGUAGE.md §10 and the patent's examples.

use crate::common;
use kumite::analysis::{VictoryGraph, distances};
use kumite::engine::Engine;
use kumite::pipeline::compile;
use kumite::program::RuleProgram;
use kumite::search::{Searcher, forced_win, moves, search_engine, shortest_win};
use kumite::side::Side;

fn file(name: &str) -> RuleProgram {
    let c = compile(&common::read(&common::root().join("rules").join(name)));
    c.program.unwrap_or_else(|| panic!("errors: {:?}", c.diags))
}

#[test]
fn example1_distances_are_11_and_fall_to_8_after_three_pushes() {
    let p = file("ex1_push.kmt");
    let g = VictoryGraph::build(&p);
    let e = Engine::new(&p, 0);
    let mut st = e.initial(Side::H).expect("start");
    assert_eq!(
        (
            distances(&g, &e, &st, Side::H).to_win,
            distances(&g, &e, &st, Side::C).to_win
        ),
        (11, 11)
    );
    let push = p.command_id("押す");
    for _ in 0..3 {
        e.play(&mut st, [push, None], None).expect("ok");
        e.play(&mut st, [None, None], None).expect("ok");
    }
    assert_eq!(distances(&g, &e, &st, Side::H).to_win, 8);
    assert_eq!(distances(&g, &e, &st, Side::C).to_win, 11);
}

#[test]
fn example3_and_cc_lemon_distances_match_the_spec() {
    for (f, want) in [("ex3_grips.kmt", 3), ("cc_lemon.kmt", 2)] {
        let p = file(f);
        let g = VictoryGraph::build(&p);
        let e = Engine::new(&p, 0);
        let st = e.initial(Side::H).expect("start");
        assert_eq!(distances(&g, &e, &st, Side::H).to_win, want, "{f}");
        assert!(!g.nodes.is_empty() && !g.decisive.is_empty());
    }
}

#[test]
fn example1_shortest_win_is_21_plies_and_forced() {
    let p = file("ex1_push.kmt");
    let e = search_engine(&p);
    let st = e.initial(Side::H).expect("start");
    let path = shortest_win(&p, &st, 30, 1_000_000)
        .into_path()
        .expect("a win");
    assert_eq!(path.len(), 21);
    assert!(path.iter().all(|s| s.command.as_deref() == Some("押す")));
    assert_eq!(forced_win(&p, &st, 21, 10_000_000).0, Some(true));
    assert_eq!(
        forced_win(&p, &st, 20, 10_000_000).0,
        Some(false),
        "no win before turn 21"
    );
}

#[test]
fn example3_shortest_win_is_5_plies() {
    let p = file("ex3_grips.kmt");
    let e = search_engine(&p);
    let st = e.initial(Side::H).expect("start");
    let path = shortest_win(&p, &st, 20, 1_000_000)
        .into_path()
        .expect("a win");
    assert_eq!(path.len(), 5);
    assert_eq!(path[4].command.as_deref(), Some("投げる"));
}

/// Plays a move of the side to move chosen by the generator `x` (alternate mode).
fn random_move(e: &kumite::engine::Engine, st: &mut kumite::engine::State, x: &mut u64) {
    let side = e.movers(st)[0];
    let ms = moves(e, st, side);
    *x = kumite::engine::rng::mix(*x);
    let mut cmds = [None, None];
    cmds[side] = ms[(*x % ms.len() as u64) as usize];
    e.play(st, cmds, None).expect("ok");
}

#[test]
fn alpha_beta_with_the_table_equals_plain_minimax_on_random_positions() {
    for f in [
        "ex1_push.kmt",
        "ex2_spirit.kmt",
        "ex3_grips.kmt",
        "sumo.kmt",
        "karate.kmt",
        "moge_battle.kmt",
    ] {
        let p = file(f);
        let e = search_engine(&p);
        let mut st = e.initial(Side::H).expect("start");
        let mut x = 99u64;
        for step in 0..12 {
            if st.outcome.is_some() {
                break;
            }
            for depth in 1..=3 {
                let mut a = Searcher::new(&p, 1);
                let mut b = Searcher::new(&p, 1);
                let v1 = a.negamax(&st, depth, f64::NEG_INFINITY, f64::INFINITY, true);
                let v2 = b.minimax(&st, depth);
                assert!(
                    (v1 - v2).abs() < 1e-6,
                    "{f} step {step} depth {depth}: alpha-beta {v1} vs minimax {v2}"
                );
                // In a window the search is exact inside it and a bound on the right side of it
                // outside (fail-soft): windows above, below and around the value, narrow and wide.
                for (lo, hi) in [
                    (v2 - 1e6, v2 + 1e6),
                    (v2 + 1.0, v2 + 3e8),
                    (v2 + 2e8, f64::INFINITY),
                    (v2 - 3e8, v2 - 1.0),
                    (f64::NEG_INFINITY, v2 - 2e8),
                ] {
                    let mut w = Searcher::new(&p, 1);
                    let r = w.negamax(&st, depth, lo, hi, true);
                    let ok = if v2 <= lo {
                        r <= lo + 1e-6 && r >= v2 - 1e-6
                    } else if v2 >= hi {
                        r >= hi - 1e-6 && r <= v2 + 1e-6
                    } else {
                        (r - v2).abs() < 1e-6
                    };
                    assert!(
                        ok,
                        "{f} step {step} depth {depth}: window ({lo}, {hi}) gave {r}, value {v2}"
                    );
                }
            }
            random_move(&e, &mut st, &mut x);
        }
    }
}

#[test]
fn deepening_that_reuses_played_moves_searches_the_same_tree() {
    // The CPU's deepening keeps each iteration's moves with their chance outcomes and takes them
    // back in the next: the values and the nodes counted must be those of a search that plays
    // every move again.
    for f in ["sumo.kmt", "karate.kmt", "moge_battle.kmt", "ex1_push.kmt"] {
        let p = file(f);
        let e = search_engine(&p);
        let mut st = e.initial(Side::H).expect("start");
        let mut x = 7u64;
        let mut reused = 0;
        for step in 0..8 {
            if st.outcome.is_some() {
                break;
            }
            let mut a = Searcher::new(&p, 1);
            let mut b = Searcher::new(&p, 1);
            for depth in 1..=4 {
                a.keep_outcomes = depth < 4;
                let v1 = a.negamax(&st, depth, f64::NEG_INFINITY, f64::INFINITY, true);
                let v2 = b.negamax(&st, depth, f64::NEG_INFINITY, f64::INFINITY, true);
                assert_eq!(v1, v2, "{f} step {step} depth {depth}");
                assert_eq!(a.nodes, b.nodes, "{f} step {step} depth {depth}");
            }
            assert_eq!(b.reused, 0);
            reused += a.reused;
            random_move(&e, &mut st, &mut x);
        }
        assert!(reused > 0, "{f}: nothing was reused");
    }
}

#[test]
fn the_cpu_beats_random_players() {
    use kumite::engine::players::{MatchOptions, Player, RandomPlayer, play_match};
    use kumite::search::{CpuPlayer, CpuSettings};
    for (f, games, min_wins) in [("ex3_grips.kmt", 20, 20), ("sumo.kmt", 40, 34)] {
        let p = file(f);
        let mut wins = 0;
        for g in 0..games {
            let mut cpu =
                CpuPlayer::new(&p, CpuSettings::parse(&p, "S3,P1000").expect("settings"), g);
            let mut rnd = RandomPlayer::new(g + 100);
            let mut players: [&mut dyn Player; 2] = [&mut cpu, &mut rnd];
            let r = play_match(
                &p,
                &mut players,
                &MatchOptions {
                    seed: g,
                    ..Default::default()
                },
                |_, _, _| {},
            );
            wins += usize::from(r.result == kumite::engine::GameResult::H);
        }
        assert!(wins >= min_wins, "{f}: cpu won {wins} of {games}");
    }
}

#[test]
fn cpu_settings_parse_and_reject() {
    let p = file("sumo.kmt");
    let s = kumite::search::CpuSettings::parse(&p, "S5,D2,E1,P200").expect("ok");
    assert_eq!((s.depth, s.thin, s.mistakes, s.period_ms), (5, 2.0, 1, 200));
    assert!(kumite::search::CpuSettings::parse(&p, "Q3").is_err());
    assert!(kumite::search::CpuSettings::parse(&p, "E11").is_err());
}

fn cc_lemon_at(h: i64, c: i64) -> (RuleProgram, kumite::engine::State) {
    let mut p = file("cc_lemon.kmt");
    let id = p.state_id("チャージ").expect("state") as usize;
    p.init_values[0][id] = h;
    p.init_values[1][id] = c;
    let st = search_engine(&p).initial(Side::H).expect("start");
    (p, st)
}

#[test]
fn cc_lemon_values_match_the_spec_and_are_unexploitable() {
    use kumite::search::value_iteration;
    let (p, st) = cc_lemon_at(0, 0);
    let v = value_iteration(&p, &st, 12, 200_000);
    assert!(
        v.value.abs() < 1e-6,
        "start is worth 0 by symmetry, got {}",
        v.value
    );
    assert!(v.exploitability < 1e-6);
    let (p, st) = cc_lemon_at(1, 0);
    let v = value_iteration(&p, &st, 12, 200_000);
    assert!(
        (v.value - 0.47).abs() < 0.02,
        "(1,0) ≈ +0.47, got {}",
        v.value
    );
    let mix = |name: &str| {
        v.h.iter()
            .find(|(m, _)| m.map(|c| p.commands[c as usize].as_str()) == Some(name))
            .map_or(0.0, |x| x.1)
    };
    assert!(
        (mix("チャージ") - 0.70).abs() < 0.03 && (mix("ビーム") - 0.30).abs() < 0.03,
        "{:?}",
        v.h
    );
    assert!(v.exploitability < 1e-6);
    // Asymmetric positions: strictly between −1 and 1, and antisymmetric.
    for (a, b) in [(1, 0), (2, 1), (3, 0), (2, 0)] {
        let (p1, s1) = cc_lemon_at(a, b);
        let (p2, s2) = cc_lemon_at(b, a);
        let x = value_iteration(&p1, &s1, 12, 200_000).value;
        let y = value_iteration(&p2, &s2, 12, 200_000).value;
        assert!(x > -1.0 && x < 1.0 && x != 0.0, "({a},{b}) = {x}");
        assert!((x + y).abs() < 1e-6, "({a},{b}) = {x} but ({b},{a}) = {y}");
    }
    // h with 4 charges against none: a forced win (cost 5).
    let (p, st) = cc_lemon_at(4, 0);
    assert_eq!(forced_win(&p, &st, 4, 10_000_000).0, Some(true));
    assert!((value_iteration(&p, &st, 12, 200_000).value - 1.0).abs() < 1e-9);
}

/// Two bets: a 30% roll and a 70% roll; a hit wins at once, a miss loses at once. Taking
/// `rand(1,100)` at its midpoint (50) would make the 30% bet always miss and the 70% bet always
/// hit.
const BETS: &str = "!:[小さく賭ける],[大きく賭ける]
[小さく賭ける],rand(1,100)<=30:S.当たり
[大きく賭ける],rand(1,100)<=70:S.当たり
[小さく賭ける]:S.賭けた
[大きく賭ける]:S.賭けた
S.当たり:S.勝利
S.賭けた,!S.当たり:S.敗北
";

fn bets() -> RuleProgram {
    let c = compile(BETS);
    c.program.unwrap_or_else(|| panic!("errors: {:?}", c.diags))
}

#[test]
fn search_values_average_over_chance_outcomes() {
    let p = bets();
    let mut s = Searcher::new(&p, 1);
    let st = s.eng.initial(Side::H).expect("start");
    // The best bet is the 70% one: worth 0.7 − 0.3 = 0.4 of a win (the midpoint would say 1).
    let v = s.negamax(&st, 1, f64::NEG_INFINITY, f64::INFINITY, true);
    assert!((v / 1e9 - 0.4).abs() < 1e-3, "value {v}");
    let mut m = Searcher::new(&p, 1);
    assert!((m.minimax(&st, 1) - v).abs() < 1e-6);
    // Each bet has two outcomes with the roll's probabilities.
    let small = p.command_id("小さく賭ける");
    let big = p.command_id("大きく賭ける");
    for (cmd, hit) in [(small, 0.3), (big, 0.7)] {
        let outs = s.outcomes(&st, [cmd, None], 16);
        assert_eq!(outs.len(), 2);
        let won: f64 = outs
            .iter()
            .filter(|(c, _)| c.outcome == Some(kumite::engine::Outcome::H))
            .map(|x| x.1)
            .sum();
        assert!((won - hit).abs() < 1e-12, "{cmd:?}: {won}");
    }
}

#[test]
fn shortest_win_assumes_a_favourable_roll_and_forced_win_needs_every_roll() {
    let p = bets();
    let st = search_engine(&p).initial(Side::H).expect("start");
    let path = shortest_win(&p, &st, 3, 10_000)
        .into_path()
        .expect("a lucky win");
    assert_eq!(path.len(), 1);
    assert!(path[0].probability < 1.0, "{:?}", path[0]);
    // No bet wins for every outcome (the midpoint would call the 70% bet a forced win).
    assert_eq!(forced_win(&p, &st, 1, 10_000).0, Some(false));
    assert_eq!(forced_win(&p, &st, 5, 10_000).0, Some(false));
}

#[test]
fn dice_are_enumerated_exactly_and_wide_ranges_are_sampled() {
    let c = compile("!:[振る],[大振り]\n[振る]:S.目+=rand(1,6)\n[大振り]:S.目+=rand(1,1000)\n");
    let p = c.program.expect("compiles");
    let mut s = Searcher::new(&p, 1);
    let st = s.eng.initial(Side::H).expect("start");
    let die = s.outcomes(&st, [p.command_id("振る"), None], 16);
    assert_eq!(die.len(), 6);
    assert!(die.iter().all(|(_, q)| (q - 1.0 / 6.0).abs() < 1e-12));
    assert!(!s.sampled);
    let wide = s.outcomes(&st, [p.command_id("大振り"), None], 16);
    assert!(s.sampled && !wide.is_empty() && wide.len() <= 16);
    assert!((wide.iter().map(|x| x.1).sum::<f64>() - 1.0).abs() < 1e-9);
}

#[test]
fn forced_win_comes_with_a_strategy_tree() {
    use kumite::search::solve::{forced_win_in, strategy_text};
    let p = file("ex3_grips.kmt");
    let st = search_engine(&p).initial(Side::H).expect("start");
    let f = forced_win_in(&p, &st, 9, 1_000_000, None);
    assert_eq!((f.exists, f.min_plies), (Some(true), Some(5)));
    let tree = f.strategy.expect("a strategy");
    assert_eq!(tree.to_move, kumite::search::Mover::H);
    // Every reply of c is answered, and every line ends in a win.
    fn check(n: &kumite::search::solve::Strategy, plies: u32) -> u32 {
        if n.to_move == kumite::search::Mover::Win {
            return plies;
        }
        assert!(!n.truncated && !n.next.is_empty());
        n.next
            .iter()
            .map(|b| check(&b.then, plies + 1))
            .max()
            .unwrap_or(0)
    }
    assert_eq!(check(&tree, 0), 5);
    assert!(tree.next[0].then.next.len() >= 2, "c has several replies");
    let text = strategy_text(&tree, 40, 40);
    assert!(
        text.contains("h: 左マワシ取る") && text.contains("(win)"),
        "{text}"
    );
}

#[test]
fn the_compiled_evaluation_equals_the_reference_on_random_positions() {
    use kumite::analysis::{Evaluate, FastEval, evaluate};
    for f in [
        "ex1_push.kmt",
        "ex2_spirit.kmt",
        "ex3_grips.kmt",
        "ex4_grips_symmetric.kmt",
        "ex5_macro.kmt",
        "sumo.kmt",
        "karate.kmt",
        "moge_battle.kmt",
        "cc_lemon.kmt",
        "(boxing)",
        "(poison)",
    ] {
        let p = if f == "(boxing)" {
            compile(BOXING).program.expect("compiles")
        } else if f == "(poison)" {
            compile(POISON).program.expect("compiles")
        } else {
            file(f)
        };
        let g = VictoryGraph::build(&p);
        let e = Engine::new(&p, 3);
        let fast = FastEval::new(&g, &e);
        let mut x = 7u64;
        for game in 0..20 {
            let mut st = e.initial(Side::from_index(game % 2)).expect("start");
            while st.outcome.is_none() && st.turn < 150 {
                for side in 0..2 {
                    let want = evaluate(&g, &e, &st, Side::from_index(side));
                    let got = fast.evaluate(&e, &st, Side::from_index(side));
                    assert!((want - got).abs() < 1e-9, "{f}: {want} vs {got} in {st:?}");
                }
                let mut cmds = [None, None];
                for &s in e.movers(&st) {
                    let ms = moves(&e, &st, s);
                    x = kumite::engine::rng::mix(x);
                    cmds[s] = ms[(x % ms.len() as u64) as usize];
                }
                if e.play(&mut st, cmds, None).is_err() {
                    break;
                }
            }
        }
    }
}

/// A boxing game that counts knockdowns on the victim (LANGUAGE.md §10.3): the victim's own
/// command-free rule adds the knockdown, so it is an achiever of the puncher's goal.
const BOXING: &str = "!:体力=10,ダウン=0,[パンチ],[休む]
[パンチ]:O.体力-3
S.体力<=0:S.ダウン+1,S.体力=10
O.ダウン>=3:S.勝利
";

fn h_distance(text: &str, sets: &[(&str, i64)]) -> kumite::analysis::Distances {
    let mut p = compile(text).program.expect("compiles");
    for (name, v) in sets {
        let id = p.state_id(name).expect("state") as usize;
        p.init_values[1][id] = *v;
    }
    let g = VictoryGraph::build(&p);
    let e = Engine::new(&p, 0);
    let st = e.initial(Side::H).expect("start");
    distances(&g, &e, &st, Side::H)
}

#[test]
fn a_victory_rule_costs_no_turn_of_its_own() {
    // Push-out with a command-free victory rule: six pushes from a margin of 6 (§10.5).
    let text = "!:余裕=6,[押す]\n[押す]:O.余裕-1\nO.余裕<=0:S.勝利\n";
    assert_eq!(h_distance(text, &[]).to_win, 6);
    assert_eq!(h_distance(text, &[("余裕", 1)]).to_win, 1);
    // With the command among the winning rule's conditions it is a rule like any other: 1 + 6.
    let text = "!:余裕=6,[押す]\n[押す]:O.余裕-1\nO.余裕<=0,[押す]:S.勝利\n";
    assert_eq!(h_distance(text, &[]).to_win, 7);
}

/// A poison that ticks on the poisoned side by itself (a command-free achiever of the
/// opponent's, LANGUAGE.md §10.3), and the same game where nobody can ever be poisoned.
const POISON: &str = "!:体力=10,[攻撃]
!O.毒::[毒を盛る]
[攻撃]:O.体力-2
[毒を盛る]:O.毒=1
S.毒>=1:S.体力-1
O.体力<=0:S.勝利
";

#[test]
fn a_command_free_achiever_counts_only_once_its_conditions_hold() {
    // Nobody poisoned: the tick does not fire, five attacks of 2 (the tick's rate is not added).
    assert_eq!(h_distance(POISON, &[]).to_win, 5);
    // c poisoned: 2 per attack + 1 per tick, ceil(10 / 3) = 4.
    assert_eq!(h_distance(POISON, &[("毒", 1)]).to_win, 4);
    // A tick whose condition can never hold (毒 is never set) never helps.
    let never = "!:体力=10,[攻撃]\n[攻撃]:O.体力-2\nS.毒>=1:S.体力-1\nO.体力<=0:S.勝利\n";
    assert_eq!(h_distance(never, &[]).to_win, 5);
}

#[test]
fn knockdowns_counted_on_the_victim_give_finite_shrinking_distances() {
    let fresh = h_distance(BOXING, &[]);
    assert!(fresh.unreachable.is_none(), "{:?}", fresh.unreachable);
    // 3 knockdowns by the victim's own rule (3), the first needing 体力 from 10 to 0 (4
    // punches), and each later one 体力 brought down again from the 10 the rule sets (2 × 4).
    assert_eq!(fresh.to_win, 3 + 4 + 2 * 4);
    let weak = h_distance(BOXING, &[("体力", 1)]).to_win;
    let down_once = h_distance(BOXING, &[("ダウン", 1)]).to_win;
    let down_twice = h_distance(BOXING, &[("ダウン", 2)]).to_win;
    assert!(weak < fresh.to_win, "{weak}");
    // The punch that knocks the victim down (体力 1 → reset to 10, ダウン 0 → 1) brings the
    // win nearer, so the CPU is not put off knocking anyone down.
    assert!(down_once < weak, "{down_once} vs {weak}");
    assert!(down_twice < down_once, "{down_once} {down_twice}");
    let g = VictoryGraph::build(&compile(BOXING).program.unwrap());
    assert!(
        g.nodes
            .iter()
            .flat_map(|n| &n.achievers)
            .any(|a| a.opponent),
        "the victim's own rule is an achiever"
    );
    // And the CPU wins it against a random opponent.
    let f = std::env::temp_dir().join(format!("kumite-boxing-{}.kmt", std::process::id()));
    std::fs::write(&f, BOXING).expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kumite"))
        .arg("arena")
        .arg(&f)
        .args(["--h", "cpu:S2,P60000", "--c", "random", "--games", "20"])
        .args(["--seed", "3", "--format", "json"])
        .output()
        .expect("run kumite");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["h_wins"], 20, "{v}");
}

#[test]
fn an_unreachable_win_is_null_with_its_reason_in_json() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kumite"))
        .args(["tree", "rules/moge_battle.kmt", "--format", "json"])
        .current_dir(common::root())
        .output()
        .expect("run kumite");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(
        v["distance_to_win"]["h"].is_null(),
        "{}",
        v["distance_to_win"]
    );
    let why = v["unreachable"]["h"].as_str().expect("a reason");
    assert!(
        why.contains("O.HP<=0") && why.contains("reads another state"),
        "{why}"
    );
    // A reachable win: a number, and no reason.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kumite"))
        .args(["tree", "rules/ex1_push.kmt", "--format", "json"])
        .current_dir(common::root())
        .output()
        .expect("run kumite");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["distance_to_win"]["h"], 11);
    assert!(v["unreachable"]["h"].is_null());
}

/// Both sides' distances at the start of `text` (h to move).
fn both_distances(text: &str) -> [kumite::analysis::Distances; 2] {
    let p = compile(text).program.expect("compiles");
    let g = VictoryGraph::build(&p);
    let e = Engine::new(&p, 0);
    let st = e.initial(Side::H).expect("start");
    [
        distances(&g, &e, &st, Side::H),
        distances(&g, &e, &st, Side::C),
    ]
}

/// Distances worked out by hand by an outside check (files written from the spec, not from the
/// code), each of which the derivation once got wrong; see rules/README.md §11.
#[test]
fn hand_computed_distances_from_an_outside_check() {
    // A command step of 1 and a free +2 every 3rd turn: a rate of 5/3, so 10 points take
    // ceil(6) = 6 turns (floating point once made it 7), 5 take 3 and 20 take 12.
    for (goal, want) in [(10, 6), (5, 3), (20, 12)] {
        let text = format!("!:点=0\n:[進む]\n[進む]:S.点+1\n@3/:S.点+2\nS.点>={goal}:S.勝利\n");
        assert_eq!(h_distance(&text, &[]).to_win, want, "goal {goal}");
    }
    // Steps of 3 from 0 jump over 7 (0, 3, 6, 9 …): unreachable; 9 is 3 steps away.
    let over = h_distance("!:点=0,[進む]\n[進む]:S.点+3\nS.点==7:S.勝利\n", &[]);
    assert!(over.unreachable.is_some(), "{}", over.to_win);
    let on = h_distance("!:点=0,[進む]\n[進む]:S.点+3\nS.点==9:S.勝利\n", &[]);
    assert_eq!(on.to_win, 3);
    // Going down: 10, 6, 2, −2 never hits 0.
    let down = h_distance("!:点=10,[減る]\n[減る]:S.点-4\nS.点==0:S.勝利\n", &[]);
    assert!(down.unreachable.is_some(), "{}", down.to_win);
    // Steps of 2 and 3 together can land on 7, and a rand step can land anywhere.
    let mixed = "!:点=0,[二],[三]\n[二]:S.点+2\n[三]:S.点+3\nS.点==7:S.勝利\n";
    assert!(h_distance(mixed, &[]).unreachable.is_none());
    let dice = "!:点=0,[振る]\n[振る]:S.点+=rand(2,4)\nS.点==7:S.勝利\n";
    assert!(h_distance(dice, &[]).unreachable.is_none());
    // A win written with h. and c.: decisive for that side only, reached by S.点+1.
    let [h, c] = both_distances("!:点=0,[進む]\n[進む]:S.点+1\nh.点>=3:h.勝利\nc.点>=5:c.勝利\n");
    assert_eq!((h.to_win, c.to_win), (3, 5));
    // `S.点!=0` is `S.点`: three charges enable the push, one push wins.
    let ne = "!:点=0,[溜める]\n[溜める]:S.気+1\nS.気>=3::[進む]\n[進む]:S.点+1\nS.点!=0:S.勝利\n";
    assert_eq!(h_distance(ne, &[]).to_win, 4);
    // A loss written on the loser (`S.体力<=0:S.敗北`) is the other side's win: four shots.
    let [h, c] = both_distances("!:体力=4,[撃つ]\n[撃つ]:O.体力-1\nS.体力<=0:S.敗北\n");
    assert_eq!((h.to_win, c.to_win), (4, 4));
}

#[test]
fn the_tree_marks_a_decisive_rule_of_the_opponent_and_one_for_one_side() {
    let run = |file: &str| -> serde_json::Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kumite"))
            .args(["tree", file, "--format", "json"])
            .current_dir(common::root())
            .output()
            .expect("run kumite");
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    // Karate's third warning loses: a decisive rule of the opponent's own.
    let v = run("rules/karate.kmt");
    let warning = v["decisive"]
        .as_array()
        .expect("decisive")
        .iter()
        .find(|d| d["rule"].as_str().is_some_and(|r| r.contains("S.敗北")))
        .cloned()
        .expect("the warning rule is decisive");
    assert_eq!(warning["opponent"], true);
    assert_eq!(warning["only"], serde_json::Value::Null);
    let f = std::env::temp_dir().join(format!("kumite_abs_{}.kmt", std::process::id()));
    std::fs::write(&f, "!:点=0,[進む]\n[進む]:S.点+1\nh.点>=3:h.勝利\n").expect("write");
    let v = run(f.to_str().expect("path"));
    assert_eq!(v["distance_to_win"]["h"], 3);
    assert!(v["distance_to_win"]["c"].is_null());
    assert!(
        v["decisive"]
            .as_array()
            .expect("decisive")
            .iter()
            .any(|d| d["only"] == "h")
    );
    let _ = std::fs::remove_file(f);
}

/// An ∞ node says whether it matters: in the wrestling file every one (being held, the rope
/// break, getting up) is something a side cannot bring about by its own moves while its win
/// goes another way; where a win needs such a condition, it blocks that win.
#[test]
fn the_tree_says_which_unreachable_conditions_block_a_win() {
    use kumite::analysis::{OutOfReach, out_of_reach};
    let reach = |text: &str| {
        let p = compile(text).program.expect("compiles");
        let g = VictoryGraph::build(&p);
        let eng = Engine::new(&p, 0);
        let st = eng.initial(Side::H).expect("start");
        let d = distances(&g, &eng, &st, Side::H);
        let texts: Vec<String> = g.nodes.iter().map(|n| n.text.clone()).collect();
        (out_of_reach(&g, &d), texts)
    };
    let wrestling = common::read(&common::root().join("tests/designs/wrestling.kmt"));
    let (r, texts) = reach(&wrestling);
    let infinite: Vec<&str> = texts
        .iter()
        .zip(&r)
        .filter(|(_, w)| w.is_some())
        .map(|(t, _)| t.as_str())
        .collect();
    assert!(
        infinite.contains(&"S.[ロープブレイク] enabled"),
        "{infinite:?}"
    );
    assert!(
        r.iter()
            .flatten()
            .all(|w| *w == OutOfReach::WinGoesAnotherWay),
        "{r:?}"
    );
    // Held is only the opponent's doing: a win that needs it is blocked by it.
    let (r, texts) = reach("!:体力=10,[殴る]\n[殴る]:O.体力-1\nS.捕まった,O.体力<=0:S.勝利\n");
    let held = texts.iter().position(|t| t == "S.捕まった").expect("node");
    assert_eq!(r[held], Some(OutOfReach::BlocksTheWin));
    assert!(r.iter().enumerate().all(|(i, w)| i == held || w.is_none()));
    // The text says so on the node's line.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kumite"))
        .args(["tree", "tests/designs/wrestling.kmt"])
        .current_dir(common::root())
        .output()
        .expect("run kumite");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("S.[ロープブレイク] enabled"))
        .expect("the rope break's node");
    assert!(
        line.contains(
            "∞: neither side brings it about by its own moves; both sides' wins go another way"
        ),
        "{line}"
    );
}

/// A second outside check: one state in arithmetic, an operand that reads its own target, and
/// the inverse half of a `::` rule (rules/README.md §11).
#[test]
fn linear_conditions_self_reading_steps_and_iff_inverses_count() {
    // `S.x*2>=10`, `S.x+3>=8` are `S.x>=5`; `-S.x>=0` is `S.x<=0` (from 10: ten steps).
    for cond in ["S.x*2>=10", "S.x+3>=8", "5<=S.x"] {
        let text = format!("!:[a]\n[a]:S.x+1\n{cond}:S.勝利\n");
        assert_eq!(h_distance(&text, &[]).to_win, 5, "{cond}");
    }
    let down = "!:x=10,[a]\n[a]:S.x-1\n-S.x>=0:S.勝利\n";
    assert_eq!(h_distance(down, &[]).to_win, 10);
    // `S.x*2==7` holds for no whole number: excluded (cost 1 each time it is unmet).
    let p = compile("!:[a]\n[a]:S.x+1\nS.x*2==7:S.勝利\n")
        .program
        .expect("compiles");
    let g = VictoryGraph::build(&p);
    assert!(
        g.excluded.iter().any(|x| x.reason.contains("never holds")),
        "{:?}",
        g.excluded
    );
    // An assignment or update reading its own target: a step of 3, a doubling, a constant.
    assert_eq!(
        h_distance("!:[a]\n[a]:S.x=S.x+3\nS.x>=9:S.勝利\n", &[]).to_win,
        3
    );
    assert_eq!(
        h_distance("!:[a],x=10\n[a]:S.x=S.x-3\nS.x<=1:S.勝利\n", &[]).to_win,
        3
    );
    assert_eq!(
        h_distance("!:x=1,[倍]\n[倍]:S.x+=S.x\nS.x>=8:S.勝利\n", &[]).to_win,
        3
    );
    assert_eq!(
        h_distance("!:[a]\n[a]:S.x=S.x*0+9\nS.x>=9:S.勝利\n", &[]).to_win,
        1
    );
    // `S.p::S.f` turns f off when p is off: the same distance as the two lines written out.
    let iff = "!:h.f=1,c.f=1,h.p=1,c.p=1,[a]\n[a]:!S.p\nS.p::S.f\n!S.f,[a]:S.勝利\n";
    let two = "!:h.f=1,c.f=1,h.p=1,c.p=1,[a]\n[a]:!S.p\nS.p:S.f\n!S.p:!S.f\n!S.f,[a]:S.勝利\n";
    assert_eq!(h_distance(iff, &[]).to_win, 3);
    assert_eq!(h_distance(two, &[]).to_win, 3);
}

/// A third outside check (52 files written from the spec by someone who had not seen the code;
/// rules/README.md §11): clamped operands, a condition that never holds, sequences, conditions
/// used up by the achiever (directly or through the rule that enables its command), and
/// distances longer than the turn limit.
#[test]
fn clamps_never_holding_sequences_used_up_conditions_and_long_ways() {
    let unreachable = |text: &str| {
        let d = h_distance(text, &[]);
        assert!(d.unreachable.is_some(), "{text}: {}", d.to_win);
        d.unreachable.unwrap()
    };
    // `=min(S.気+2,5)` from 0 toward 4: 0, 2, 4 (it was dropped and called unreachable).
    assert_eq!(
        h_distance(
            "!:[溜める]\n[溜める]:S.気=min(S.気+2,5)\nS.気>=4:S.勝利\n",
            &[]
        )
        .to_win,
        2
    );
    assert_eq!(
        h_distance(
            "!:体力=9,[攻撃]\n[攻撃]:O.体力=max(O.体力-3,0)\nO.体力<=0:S.勝利\n",
            &[]
        )
        .to_win,
        3
    );
    // A clamp below the target never gets there, nor one that moves away from it.
    unreachable("!:[溜める]\n[溜める]:S.気=min(S.気+1,3)\nS.気>=5:S.勝利\n");
    unreachable("!:[下げる],x=5\n[下げる]:S.x=max(S.x-1,0)\nS.x>=8:S.勝利\n");
    // A clamped `+=`/`-=` is played out like a clamped `=`: 0, 3, 6, 9 is 3 (it was a step
    // of 1, 9, until the karate file's advantage weights were fixed; rules/README.md §11).
    assert_eq!(
        h_distance(
            "!:[溜める]\n[溜める]:S.気+=min(3,10-S.気)\nS.気>=9:S.勝利\n",
            &[]
        )
        .to_win,
        3
    );
    // Capped at 8: 0, 3, 6, 8 is 3 turns to 8, and 9 is never reached.
    assert_eq!(
        h_distance(
            "!:[溜める]\n[溜める]:S.気+=max(0,min(3,8-S.気))\nS.気>=8:S.勝利\n",
            &[]
        )
        .to_win,
        3
    );
    unreachable("!:[溜める]\n[溜める]:S.気+=max(0,min(3,8-S.気))\nS.気>=9:S.勝利\n");
    // `-=` what is left, at most 4: 10, 6, 2, 0.
    assert_eq!(
        h_distance(
            "!:体力=10,[打つ]\n[打つ]:O.体力-=min(4,O.体力)\nO.体力<=0:S.勝利\n",
            &[]
        )
        .to_win,
        3
    );
    // A command-free one counts at its largest step: 2 every 3rd turn toward 6 is 9.
    assert_eq!(
        h_distance("!:気=0\n@3/:S.気+=min(2,12-S.気)\nS.気>=6:S.勝利\n", &[]).to_win,
        9
    );
    // A condition no whole number meets: the rule can never fire.
    let why = unreachable("!:[溜める]\n[溜める]:S.x+1\nS.x*2==7:S.勝利\n");
    assert!(why.contains("never"), "{why}");
    // The earlier atom of a sequence must be enabled too: [左] never is.
    unreachable("!:[右],体力=2\n[左],[右]:O.体力-1\nO.体力<=0:S.勝利\n");
    // 1,000 shots under the default turn limit are 1,000, not unreachable; the evaluation
    // still counts them at the turn limit.
    let long = "!:体力=1000,[撃つ]\n[撃つ]:O.体力-1\nO.体力<=0:S.勝利\n";
    let d = h_distance(long, &[]);
    assert_eq!((d.to_win, d.unreachable.is_none()), (1000, true));
}

#[test]
fn an_achiever_that_uses_up_its_condition_pays_to_bring_it_back() {
    // Distances for h with h's and c's starting values set (worked out by hand).
    let at = |text: &str, h: &[(&str, i64)], c: &[(&str, i64)]| {
        let mut p = compile(text).program.expect("compiles");
        for (side, sets) in [(0, h), (1, c)] {
            for (name, v) in sets {
                let id = p.state_id(name).expect("state") as usize;
                p.init_values[side][id] = *v;
            }
        }
        let g = VictoryGraph::build(&p);
        let e = Engine::new(&p, 0);
        let st = e.initial(Side::H).expect("start");
        let d = distances(&g, &e, &st, Side::H);
        // The search's evaluation agrees (it counts an unreachable win at the turn limit).
        let fast = kumite::analysis::FastEval::new(&g, &e).to_win(&e, &st, Side::H);
        let cap = p.settings.turn_limit;
        assert_eq!(fast, d.to_win.min(cap), "{text} {h:?} {c:?}");
        if d.unreachable.is_some() {
            None
        } else {
            Some(d.to_win)
        }
    };
    // A heavy blow needs 2 charge, which the rule of the command alone spends.
    let strike = "!:体力=10,[打つ],[溜める]\nS.溜め>=2::[強打]\n[打つ]:O.体力-1\n\
                  [溜める]:S.溜め+1\n[強打]:S.溜め-2\n[強打]:O.体力-4\nO.体力<=0:S.勝利\n";
    // Three blows: charge to 2, blow, charge twice, blow, charge twice, blow.
    assert_eq!(at(strike, &[], &[]), Some(9));
    // Charged already: the first blow is paid for.
    assert_eq!(at(strike, &[("溜め", 2)], &[]), Some(7));
    // Enough in reserve for all three.
    assert_eq!(at(strike, &[("溜め", 6)], &[]), Some(3));
    // After a blow (6 left, nothing charged): two blows, two charges before each.
    assert_eq!(at(strike, &[], &[("体力", 6)]), Some(6));
    // A firing that gives part back uses the rest (2 spent, 1 returned: 1 a firing).
    let guarded = format!("{strike}[強打],O.[防御]:O.体力-1,S.溜め+1\n");
    let g = VictoryGraph::build(&compile(&guarded).program.expect("compiles"));
    let uses: Vec<(usize, f64)> = g.nodes[0]
        .achievers
        .iter()
        .flat_map(|a| a.spends.iter().map(move |sp| (a.line, sp.per)))
        .collect();
    assert_eq!(uses, vec![(6, 2.0), (8, 1.0)], "{guarded}");
    // The condition and its price in the achiever itself: three 2-energy shots.
    let shots = "!:体力=6,[溜める],[撃つ]\n[溜める]:S.エネ+1\n\
                 S.エネ>=2,[撃つ]:O.体力-2,S.エネ-2\nO.体力<=0:S.勝利\n";
    assert_eq!(at(shots, &[], &[]), Some(9));
    // Stamina that pays for every push costs nothing more (sumo: six pushes are six)…
    let push = "!:余裕=6,スタミナ=9,[押す],[休む]\n[休む]:S.スタミナ+1\n\
                S.スタミナ>=1,[押す]:O.余裕-1,S.スタミナ-1\nO.余裕<=0:S.勝利\n";
    assert_eq!(at(push, &[], &[]), Some(6));
    // …and with 3 it needs three rests for the last three pushes.
    assert_eq!(at(push, &[("スタミナ", 3)], &[]), Some(9));
    // Nothing brings it back: the achiever cannot fire often enough (the tree finds none).
    let once = "!:体力=4,エネ=2,[撃つ]\nS.エネ>=2,[撃つ]:O.体力-2,S.エネ-2\nO.体力<=0:S.勝利\n";
    assert_eq!(at(once, &[], &[]), None);
    assert_eq!(at(once, &[("エネ", 4)], &[]), Some(2));
}

#[test]
fn a_victory_rule_with_a_period_waits_for_its_turn() {
    // `@5/`: checked at the end of h's 5th, 10th … own turn; two charges make it hold.
    let p = compile("!:[溜める]\n[溜める]:S.点+1\n@5/S.点>=2:S.勝利\n")
        .program
        .expect("compiles");
    let g = VictoryGraph::build(&p);
    let e = Engine::new(&p, 0);
    let fast = kumite::analysis::FastEval::new(&g, &e);
    let charge = p.command_id("溜める");
    let mut st = e.initial(Side::H).expect("start");
    // h charging every turn: 5, 4, 3 (点 2 already, waiting), 2, 1 — and h wins at the end of
    // its 5th turn.
    let mut seen = vec![];
    for _ in 0..5 {
        let d = distances(&g, &e, &st, Side::H).to_win;
        assert_eq!(fast.to_win(&e, &st, Side::H), d);
        seen.push(d);
        e.play(&mut st, [charge, None], None).expect("h");
        if st.outcome.is_some() {
            break;
        }
        e.play(&mut st, [None, None], None).expect("c");
    }
    assert_eq!(seen, vec![5, 4, 3, 2, 1]);
    assert_eq!(st.outcome, Some(kumite::engine::Outcome::H));
    // c, idle for its first turn then charging: at its own turn 1 with 点 0 it needs 2 charges
    // and its 5th turn, 4 away.
    let mut st = e.initial(Side::H).expect("start");
    e.play(&mut st, [None, None], None).expect("h");
    e.play(&mut st, [None, None], None).expect("c");
    assert_eq!(distances(&g, &e, &st, Side::C).to_win, 4);
    assert_eq!(fast.to_win(&e, &st, Side::C), 4);
}

/// The wrestling match a designer wrote (tests/designs/wrestling.kmt): h's 11-ply win was reported as "no win"
/// when the search's position budget ran out. The win is found; a small budget says it gave
/// up, and up to which ply it proved there is no win.
#[test]
fn the_wrestling_files_eleven_ply_win_is_found_and_a_small_budget_says_it_gave_up() {
    use kumite::search::solve::{Budget, ShortestWin};
    let c = compile(&common::read(
        &common::root().join("tests/designs/wrestling.kmt"),
    ));
    let p = c.program.expect("compiles");
    let st = search_engine(&p).initial(Side::H).expect("start");
    let cap =
        kumite::search::solve::positions_for_memory(&st, kumite::search::solve::SHORTEST_MEMORY);
    let found = shortest_win(&p, &st, 12, cap);
    let path = found
        .path()
        .unwrap_or_else(|| panic!("{}", found.summary()));
    assert_eq!(path.len(), 11);
    assert_eq!(path[10].command.as_deref(), Some("フォール"));
    // The guided search finds the 11-ply win at once; the breadth-first search then only
    // proves nothing shorter exists, setting aside what the bound rules out: 100,000
    // positions are enough (the breadth-first search alone gave up there at ply 9).
    match shortest_win(&p, &st, 12, 100_000) {
        ShortestWin::Found { path, positions } => {
            assert_eq!(path.len(), 11);
            assert!(positions <= 100_000, "{positions}");
        }
        other => panic!("expected the proved 11-ply win, got {}", other.summary()),
    }
    match shortest_win(&p, &st, 12, 2_000) {
        ShortestWin::GaveUp {
            complete,
            budget,
            longer,
            ..
        } => {
            assert!((1..11).contains(&complete), "{complete}");
            assert_eq!(budget, Budget::Positions(2_000));
            // A win the guided search found is shown, not proved shortest.
            if let Some(p) = longer {
                assert!(p.len() >= 11, "{}", p.len());
            }
        }
        other => panic!("expected gave up, got {}", other.summary()),
    }
    match shortest_win(&p, &st, 6, cap) {
        ShortestWin::NoneWithin {
            plies: 6,
            exhausted: false,
            ..
        } => {}
        other => panic!("expected proved none within 6, got {}", other.summary()),
    }
}

/// A small random alternate game: two commands per side of three, a charge, sequences (the
/// last turn's command), and a win by knockout.
fn small_game(seed: u64) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut r = |n: u64| {
        x = kumite::engine::rng::mix(x);
        x % n
    };
    let cmds = ["打", "溜", "守"];
    let mut t = format!(
        "~T{}\n!:体力={},溜=0\n!:[打],[溜],[守]\n",
        20 + r(20),
        2 + r(4)
    );
    for _ in 0..3 + r(4) {
        let a = cmds[r(3) as usize];
        let line = match r(7) {
            0 => format!("[{a}]:O.体力-{}", 1 + r(2)),
            1 => format!("[{a}]:S.溜+1"),
            2 => format!("[{a}],S.溜>={}:O.体力-{},S.溜-1", 1 + r(2), 1 + r(3)),
            3 => format!("[{a}],!O.[守]:O.体力-1"),
            4 => format!("[{}],[{a}]:O.体力-{}", cmds[r(3) as usize], 1 + r(2)),
            5 => format!("[{a}],O.[{}]:S.体力-1", cmds[r(3) as usize]),
            _ => format!("S.溜>={}::[{a}]", 1 + r(2)),
        };
        t.push_str(&line);
        t.push('\n');
    }
    if r(3) == 0 {
        t.push_str("S.溜>=3:S.勝利\n");
    }
    t.push_str("O.体力<=0:S.勝利\n");
    t
}

/// The fewest plies (≤ `d`) of a move sequence that ends in h's win: every sequence is tried,
/// with no position table (the check on the breadth-first search's merging of positions).
fn plain_shortest(e: &Engine, st: &kumite::engine::State, d: u32) -> Option<u32> {
    fn wins_within(e: &Engine, st: &kumite::engine::State, d: u32) -> bool {
        if st.outcome == Some(kumite::engine::Outcome::H) {
            return true;
        }
        if st.outcome.is_some() || d == 0 {
            return false;
        }
        let side = e.movers(st)[0];
        moves(e, st, side).into_iter().any(|m| {
            let mut next = st.clone();
            let mut cmds = [None, None];
            cmds[side] = m;
            e.play(&mut next, cmds, None).is_ok() && wins_within(e, &next, d - 1)
        })
    }
    (0..=d).find(|&n| wins_within(e, st, n))
}

#[test]
fn shortest_win_equals_a_plain_exhaustive_search_on_generated_games() {
    use kumite::search::solve::ShortestWin;
    let (mut found, mut none, mut gave_up) = (0, 0, 0);
    for seed in 0..120 {
        let text = small_game(seed);
        let c = compile(&text);
        let Some(p) = c.program else { continue };
        let e = search_engine(&p);
        let Ok(st) = e.initial(Side::H) else { continue };
        let d = 7;
        let plain = plain_shortest(&e, &st, d);
        match shortest_win(&p, &st, d, 1_000_000) {
            ShortestWin::Found { path, .. } => {
                found += 1;
                assert_eq!(Some(path.len() as u32), plain, "{text}");
            }
            ShortestWin::NoneWithin { plies, .. } => {
                none += 1;
                assert!(
                    plies <= d && plain.is_none_or(|m| m > plies),
                    "{text}: {plain:?}"
                );
            }
            ShortestWin::GaveUp { .. } => gave_up += 1,
        }
        // A tiny budget may give up, but never claims more than it searched.
        if let ShortestWin::GaveUp { complete, .. }
        | ShortestWin::NoneWithin {
            plies: complete, ..
        } = shortest_win(&p, &st, d, 40)
        {
            assert!(
                plain.is_none_or(|m| m > complete),
                "{text}: {plain:?} vs {complete}"
            );
        }
    }
    assert_eq!(gave_up, 0);
    assert!(found >= 30 && none >= 5, "found {found}, none {none}");
}

/// `solve --value` says which limit left positions to an estimate: none, the bound on state
/// values, or the number of positions (a fencing file whose states stay in small ranges has
/// more positions than the limit, and is not cut by the bound).
#[test]
fn the_game_value_says_which_limit_applied() {
    use kumite::search::{GameValue, VALUE_POSITIONS};
    let gv = |states: usize, frontier: usize, bound: Option<i64>| GameValue {
        value: 0.0,
        h: Vec::new(),
        c: Vec::new(),
        exploitability: 0.0,
        states,
        frontier,
        iterations: 1,
        residual: 0.0,
        timed_out: false,
        out_of_work: false,
        bound,
        decisive: 1.0,
        used: Default::default(),
        length: None,
        limit: Default::default(),
        out_of_memory: false,
        rule_errors: Default::default(),
    };
    let all = gv(6823, 0, None).positions_text();
    assert_eq!(all, "all 6,823 reachable positions (nothing estimated)");
    let count = gv(VALUE_POSITIONS + 1, 90_705, Some(12)).positions_text();
    assert!(
        count.contains("the limit of 200,000 positions")
            && count.contains("90,705 positions past that limit are estimated"),
        "{count}"
    );
    let bound = gv(15_000, 3_000, Some(12)).positions_text();
    assert!(
        bound.contains("within ±12 of its start value")
            && bound.contains("3,000 positions past that bound are estimated")
            && !bound.contains("limit"),
        "{bound}"
    );
}

#[test]
fn an_iteration_cut_short_plays_a_move_it_found_better_than_the_last_choice() {
    // With a node budget that runs out during iteration 3, the CPU plays the choice of
    // iteration 2 unless iteration 3 finished that move and found another one better at
    // depth 3 — then that one. Checked against a fresh searcher's depth-3 values, on karate
    // positions from a seeded random game; some position must see the switch.
    use kumite::search::{CpuPlayer, CpuSettings};
    let p = file("karate.kmt");
    let e = search_engine(&p);
    let mut st = e.initial(Side::H).expect("start");
    let mut x = 5u64;
    let (mut cut_short, mut switched) = (0, 0);
    let value = |st: &kumite::engine::State, m: Option<kumite::program::CmdId>| {
        let mut s = Searcher::new(&p, 0xC0FFEE);
        s.root_depth = 3;
        s.start_line(st, &[]);
        let mut cmds = [None, None];
        cmds[st.to_move] = m;
        s.move_value(st, cmds, st.to_move, 3, None)
    };
    for _ in 0..30 {
        if st.outcome.is_some() {
            break;
        }
        let side = st.to_move;
        let run = |spec: &str| {
            let mut cpu = CpuPlayer::new(&p, CpuSettings::parse(&p, spec).expect("spec"), 1);
            let m = cpu.think(&st, side);
            (m, cpu.last_nodes)
        };
        let (m2, n2) = run("S2,E0,P3600000");
        let (_, n3) = run("S3,E0,P3600000");
        let budget = n2 + (n3 - n2) / 2;
        if budget >= 100 && n3 > n2 + 2 {
            cut_short += 1;
            let (m, _) = run(&format!("S9,E0,P3600000,N{budget}"));
            if m != m2 {
                switched += 1;
                let (v, v2) = (value(&st, m), value(&st, m2));
                assert!(
                    v >= v2 - 1e-6 * v2.abs().max(1.0),
                    "played {m:?} worth {v} at depth 3 instead of iteration 2's {m2:?} worth {v2}"
                );
            }
        }
        random_move(&e, &mut st, &mut x);
    }
    assert!(
        cut_short >= 10,
        "only {cut_short} positions had a budget to cut"
    );
    assert!(
        switched > 0,
        "no cut-short iteration changed the move in {cut_short} positions"
    );
}

/// A CPU's settings written as a player spec (the studio names its CPU so) read back the same,
/// from a file whose `~` line says otherwise.
#[test]
fn cpu_settings_read_back_from_their_spec() {
    use kumite::search::CpuSettings;
    let p = file("ex1_push.kmt");
    for spec in [
        "S3,D1,E0,P500",
        "S7,D2.5,E3,P40,N20000",
        "exact,E2",
        "S1,D1000,E10,P3600000,N100,matrix",
    ] {
        let s = CpuSettings::parse(&p, spec).expect(spec);
        let back = CpuSettings::of_player(&p, &s.spec()).expect("a cpu spec");
        assert_eq!(back.as_ref(), Ok(&s), "{spec} → {}", s.spec());
    }
}

/// Value iteration stops at a budget of work (joint moves of the positions solved), not of
/// time, where one is given: CC Lemon needs about 92,000; with 10,000 it stops, says so, and
/// the same budget stops it at the same place on every run.
#[test]
fn value_iteration_stops_at_a_work_budget_the_same_way_every_time() {
    let (prog, st) = cc_lemon_at(0, 0);
    let run = |work: Option<u64>| {
        kumite::search::solve::value_iteration_budgeted(
            &prog,
            &st,
            12,
            50_000,
            std::time::Duration::from_secs(600),
            work,
            None,
        )
        .expect("not cancelled")
    };
    let full = run(None);
    assert!(!full.out_of_work && !full.timed_out);
    assert!(full.value.abs() < 1e-6, "{}", full.value);
    let cut = run(Some(10_000));
    assert!(
        cut.out_of_work,
        "10,000 joint moves are not enough for CC Lemon"
    );
    let again = run(Some(10_000));
    assert_eq!(
        (cut.iterations, cut.residual),
        (again.iterations, again.residual)
    );
    assert!(!run(Some(1_000_000)).out_of_work);
}
