//! Hand-checked match traces for the example rule files and the turn semantics of §8.

use crate::common;
use kumite::engine::{Engine, Outcome, State};
use kumite::pipeline::compile;
use kumite::program::RuleProgram;
use kumite::side::Side;

fn prog(text: &str) -> RuleProgram {
    let c = compile(text);
    c.program.unwrap_or_else(|| panic!("errors: {:?}", c.diags))
}

fn file(name: &str) -> RuleProgram {
    prog(&common::read(&common::root().join("rules").join(name)))
}

fn cmd(p: &RuleProgram, name: &str) -> Option<u32> {
    Some(
        p.command_id(name)
            .unwrap_or_else(|| panic!("no command {name}")),
    )
}

fn val(e: &Engine, st: &State, side: usize, name: &str) -> i64 {
    e.val(
        st,
        Side::from_index(side),
        e.prog
            .state_id(name)
            .unwrap_or_else(|| panic!("no state {name}")),
    )
}

#[test]
fn example1_first_mover_wins_on_turn_21() {
    let p = file("ex1_push.kmt");
    for first in [0, 1] {
        let e = Engine::new(&p, 0);
        let mut st = e.initial(Side::from_index(first)).expect("start");
        let push = cmd(&p, "押す");
        while st.outcome.is_none() {
            e.play(&mut st, [push, push], None)
                .expect("no runtime error");
        }
        assert_eq!(st.turn, 21);
        assert_eq!(
            st.outcome,
            Some(if first == 0 { Outcome::H } else { Outcome::C })
        );
        // The winner's 11th push sees 0 on the snapshot and pushes once more; the loser pushed 10 times.
        assert_eq!(val(&e, &st, 1 - first, "後ろ余裕度"), -1);
        assert_eq!(val(&e, &st, first, "後ろ余裕度"), 0);
    }
}

#[test]
fn example2_periods_count_each_sides_own_turns() {
    let p = file("ex2_spirit.kmt");
    let e = Engine::new(&p, 0);
    let mut st = e.initial(Side::H).expect("start");
    // Spirit starts at 0, so nobody can push at first: both pass.
    assert!(!e.is_enabled(&st, Side::H, cmd(&p, "押す").unwrap_or(0)));
    for _ in 0..19 {
        e.play(&mut st, [None, None], None).expect("ok");
    }
    // h has taken 10 turns, c 9: +2 per turn, +1 more on each side's 10th turn.
    assert_eq!(val(&e, &st, 0, "精神力"), 21);
    assert_eq!(val(&e, &st, 1, "精神力"), 18);
    e.play(&mut st, [None, None], None).expect("ok");
    assert_eq!(val(&e, &st, 1, "精神力"), 21);
}

#[test]
fn example3_throw_on_turn_5_with_shift_c() {
    let p = file("ex3_grips.kmt");
    assert_eq!(p.command_for_key("C"), p.command_id("投げる"));
    assert_eq!(p.command_for_key("c"), None);
    let e = Engine::new(&p, 0);
    let mut st = e.initial(Side::H).expect("start");
    let (l, r, t) = (
        cmd(&p, "左マワシ取る"),
        cmd(&p, "右マワシ取る"),
        cmd(&p, "投げる"),
    );
    e.play(&mut st, [l, None], None).expect("ok");
    assert!(
        e.is_enabled(&st, Side::H, l.unwrap_or(0)),
        "availability runs only right before h's next choice"
    );
    e.play(&mut st, [None, l], None).expect("ok");
    assert!(
        !e.is_enabled(&st, Side::H, l.unwrap_or(0)),
        "a held grip cannot be taken again (:: disables it)"
    );
    e.play(&mut st, [r, None], None).expect("ok");
    e.play(&mut st, [None, r], None).expect("ok");
    assert!(
        e.is_enabled(&st, Side::H, t.unwrap_or(0)),
        "both grips held: the throw is enabled before h chooses"
    );
    e.play(&mut st, [t, None], None).expect("ok");
    assert_eq!((st.turn, st.outcome), (5, Some(Outcome::H)));
}

/// CC Lemon: every cell of the article's win table, with both sides able to afford anything.
#[test]
fn cc_lemon_all_sixteen_cells() {
    let mut p = file("cc_lemon.kmt");
    let ch = p.state_id("チャージ").expect("state") as usize;
    p.init_values[0][ch] = 5;
    p.init_values[1][ch] = 5;
    let names = ["ガード", "チャージ", "ビーム", "スペシウム光線"];
    // Rows: h's command; columns: c's command. '.' = the game goes on.
    let table = ["...c", "..cc", ".h.c", "hhh."];
    let cost = |n: &str| match n {
        "チャージ" => -1,
        "ビーム" => 1,
        "スペシウム光線" => 5,
        _ => 0,
    };
    for (i, hn) in names.iter().enumerate() {
        for (j, cn) in names.iter().enumerate() {
            let e = Engine::new(&p, 0);
            let mut st = e.initial(Side::H).expect("start");
            for n in names {
                assert!(
                    e.is_enabled(&st, Side::H, cmd(&p, n).unwrap_or(0)),
                    "{n} enabled with 5 charges"
                );
            }
            e.play(&mut st, [cmd(&p, hn), cmd(&p, cn)], None)
                .expect("ok");
            let want = match table[i].as_bytes()[j] {
                b'h' => Some(Outcome::H),
                b'c' => Some(Outcome::C),
                _ => None,
            };
            assert_eq!(st.outcome, want, "h {hn} vs c {cn}");
            assert_eq!(val(&e, &st, 0, "チャージ"), 5 - cost(hn), "h pays for {hn}");
            assert_eq!(val(&e, &st, 1, "チャージ"), 5 - cost(cn), "c pays for {cn}");
        }
    }
}

#[test]
fn simultaneous_resolution_reads_one_snapshot_and_owner_assignment_prevails() {
    let p = prog("~同時\n!:[a],x=10\n[a]:O.x=1,S.y=O.x\n[a]:S.x=S.x+5\nO.x<0:S.勝利\n");
    let e = Engine::new(&p, 0);
    let mut st = e.initial(Side::H).expect("start");
    let a = cmd(&p, "a");
    e.play(&mut st, [a, a], None).expect("ok");
    // Both read the snapshot (x = 10); the owner's own assignment (x = 15) is applied last.
    assert_eq!(val(&e, &st, 0, "x"), 15);
    assert_eq!(val(&e, &st, 1, "x"), 15);
    assert_eq!(val(&e, &st, 0, "y"), 10);
}

#[test]
fn updates_add_up_and_both_winning_is_a_draw() {
    let p = prog("~同時\n!:[a]\n[a]:S.n+1\n[a]:S.n+1\nS.n>=2:S.勝利\n");
    let e = Engine::new(&p, 0);
    let mut st = e.initial(Side::H).expect("start");
    e.play(&mut st, [cmd(&p, "a"), cmd(&p, "a")], None)
        .expect("ok");
    assert_eq!(val(&e, &st, 0, "n"), 2);
    assert_eq!(st.outcome, Some(Outcome::Draw));
}

#[test]
fn combos_need_consecutive_turns_of_the_same_side() {
    let p = prog("!:[左],[右],[待つ]\n[左],[右]:S.連打+1\n[待つ]:S.待った+1\nS.連打>=2:S.勝利\n");
    let e = Engine::new(&p, 0);
    let mut st = e.initial(Side::H).expect("start");
    let (l, r, w) = (cmd(&p, "左"), cmd(&p, "右"), cmd(&p, "待つ"));
    // h: 左 then 右 (c's turn in between does not break h's own sequence).
    for (h, c) in [(l, w), (r, w), (w, w), (r, w), (l, w), (r, None)] {
        e.play(&mut st, [h, None], None).expect("ok");
        if st.outcome.is_some() {
            break;
        }
        e.play(&mut st, [None, c], None).expect("ok");
    }
    assert_eq!(
        val(&e, &st, 0, "連打"),
        2,
        "左,右 twice; 待つ,右 does not count"
    );
    assert_eq!(st.outcome, Some(Outcome::H));
}

#[test]
fn opponent_command_and_iff_work_both_ways() {
    let p = prog(
        "!:[受け],[打つ]\nO.[打つ]::S.警戒\n[打つ],!O.[受け]:O.体力-1\n!:体力=2\nO.体力<=0:S.勝利\n",
    );
    let e = Engine::new(&p, 0);
    let mut st = e.initial(Side::H).expect("start");
    let (g, hit) = (cmd(&p, "受け"), cmd(&p, "打つ"));
    e.play(&mut st, [hit, None], None).expect("ok");
    assert_eq!(val(&e, &st, 1, "体力"), 1);
    e.play(&mut st, [None, g], None).expect("ok");
    assert_eq!(val(&e, &st, 1, "警戒"), 1, "c saw h's 打つ");
    e.play(&mut st, [hit, None], None).expect("ok");
    assert_eq!(val(&e, &st, 1, "体力"), 1, "guarded");
    e.play(&mut st, [None, g], None).expect("ok");
    e.play(&mut st, [g, None], None).expect("ok");
    e.play(&mut st, [None, g], None).expect("ok");
    assert_eq!(
        val(&e, &st, 1, "警戒"),
        0,
        ":: clears it when h did not hit"
    );
}

#[test]
fn turn_limit_ends_in_a_draw() {
    let p = prog("~T7\n!:[a]\n[a]:S.n+1\nS.n>100:S.勝利\n");
    let e = Engine::new(&p, 0);
    let mut st = e.initial(Side::H).expect("start");
    while st.outcome.is_none() {
        e.play(&mut st, [cmd(&p, "a"), cmd(&p, "a")], None)
            .expect("ok");
    }
    assert_eq!((st.turn, st.outcome), (7, Some(Outcome::Draw)));
}

#[test]
fn runtime_errors_name_the_line_and_never_panic() {
    let p = prog("!:[a],x=5\n[a]:S.y=S.x/S.z\nS.y>0:S.勝利\n");
    let e = Engine::new(&p, 0);
    let mut st = e.initial(Side::H).expect("start");
    let err = e
        .play(&mut st, [cmd(&p, "a"), None], None)
        .expect_err("division by zero");
    assert_eq!(err.line, 2);
    assert!(err.message.contains("division by zero"), "{}", err.message);
    let p = prog("!:[a],x=9223372036854775807\n[a]:S.x+1\nS.x<0:S.勝利\n");
    let e = Engine::new(&p, 0);
    let mut st = e.initial(Side::H).expect("start");
    assert_eq!(
        e.play(&mut st, [cmd(&p, "a"), None], None)
            .expect_err("overflow")
            .line,
        2
    );
}

#[test]
fn a_seed_reproduces_a_whole_match() {
    use kumite::engine::players::{MatchOptions, Player, RandomPlayer, play_match};
    let p = file("karate.kmt");
    let run = |seed| {
        let (mut a, mut b) = (RandomPlayer::new(seed), RandomPlayer::new(seed + 1));
        let mut players: [&mut dyn Player; 2] = [&mut a, &mut b];
        let r = play_match(
            &p,
            &mut players,
            &MatchOptions {
                seed,
                trace: true,
                ..Default::default()
            },
            |_, _, _| {},
        );
        (
            r.result,
            r.moves,
            serde_json::to_string(&r.trace).unwrap_or_default(),
        )
    };
    assert_eq!(run(7), run(7));
    let differ = (1..6).any(|s| run(s).2 != run(7).2);
    assert!(differ, "different seeds give different matches");
}

#[test]
fn perft_of_the_grip_game_by_hand() {
    // h: 2 grips; c: 2 grips; h: its other grip; c: its other grip; h: only the throw — game over.
    let p = file("ex3_grips.kmt");
    let e = Engine::new(&p, 0);
    let st = e.initial(Side::H).expect("start");
    let counts: Vec<(u64, u64)> = (1..=6)
        .map(|d| {
            let mut decided = 0;
            let n = kumite::cli::play::perft(&e, &st, d, &mut decided).expect("ok");
            (n, decided)
        })
        .collect();
    assert_eq!(counts, [(2, 0), (4, 0), (4, 0), (4, 0), (4, 0), (0, 4)]);
}

#[test]
fn fast_paths_play_exactly_like_the_reference_engine() {
    // Every rule file, plus small programs that take the direct path with updates, overflow
    // errors and `::` inverses, in both modes.
    let mut programs: Vec<(String, RuleProgram)> = [
        "ex1_push.kmt",
        "ex2_spirit.kmt",
        "ex3_grips.kmt",
        "ex4_grips_symmetric.kmt",
        "ex5_macro.kmt",
        "sumo.kmt",
        "karate.kmt",
        "moge_battle.kmt",
        "cc_lemon.kmt",
    ]
    .iter()
    .map(|f| (f.to_string(), file(f)))
    .collect();
    let direct_alt = "!:[増やす],[倍],[戻す]\nS.x>=3::[戻す]\n[増やす]:S.x+1,O.y+2\n[倍]:S.x*=4000000000\n[戻す]:S.x=0,!S.旗\n[倍],O.[増やす]:S.旗\n";
    for (name, text) in [
        ("direct alternate", direct_alt.to_string()),
        (
            "direct simultaneous",
            format!("~同時\n{direct_alt}").replace(",O.y+2", ""),
        ),
        (
            // A later rule reads what an earlier one wrote, operands are expressions, a
            // condition draws, and both kinds of runtime error: the two-phase direct path.
            "direct two-phase",
            "!:x=1,w=0,[a],[b],[c]\n[a]:S.x+1,S.y=S.x*3\n[a],S.x>=2:S.z+1\n\
             [a],rand(1,6)<=3:S.y-1\n[b]:S.x+9223372036854775800\n[b]:S.v=S.x/S.w\n\
             [c]:S.x=S.x*S.x+O.y\nS.z>=5:S.勝利\n"
                .to_string(),
        ),
    ] {
        programs.push((name.into(), prog(&text)));
    }
    let mut x = 5u64;
    for (name, p) in &programs {
        let fast = Engine::new(p, 11);
        let slow = Engine::new(p, 11).reference();
        if name.starts_with("direct") || name == "cc_lemon.kmt" {
            assert!(fast.is_direct(), "{name} should take the direct path");
        }
        let mut buf = Vec::new();
        for game in 0..40 {
            let mut a = fast.initial(Side::from_index(game % 2)).expect("start");
            let mut b = slow.initial(Side::from_index(game % 2)).expect("start");
            while a.outcome.is_none() && a.turn < 200 {
                let mut cmds = [None, None];
                for &s in fast.movers(&a) {
                    fast.enabled_commands(&a, s, &mut buf);
                    x = kumite::engine::rng::mix(x);
                    if !buf.is_empty() {
                        cmds[s] = Some(buf[(x % buf.len() as u64) as usize]);
                    }
                }
                let ra = fast.play(&mut a, cmds, None);
                let rb = slow.play(&mut b, cmds, None);
                assert_eq!(ra, rb, "{name}: results differ");
                assert_eq!(a, b, "{name}: positions differ");
                if ra.is_err() {
                    break;
                }
            }
        }
    }
}

/// An overflow on the direct path (where `- k` is applied as `+ -k`) is the same runtime error,
/// worded as written, as on the reference path.
#[test]
fn direct_path_overflow_is_worded_as_written() {
    for (init, effect, expect) in [
        (
            "9223372036854775800",
            "S.x+10",
            "(9223372036854775800 and 10)",
        ),
        (
            "-9223372036854775800",
            "S.x-10",
            "(-9223372036854775800 and 10)",
        ),
        (
            "5",
            "S.x*9223372036854775807",
            "(5 and 9223372036854775807)",
        ),
    ] {
        let p = prog(&format!("!:x={init},[a],[b]\n[a]:{effect}\n[b]:S.y+1\n"));
        let fast = Engine::new(&p, 0);
        assert!(fast.is_direct(), "{effect}: expected the direct path");
        let slow = Engine::new(&p, 0).reference();
        let mut errors = Vec::new();
        for e in [&fast, &slow] {
            let mut st = e.initial(Side::H).expect("start");
            let err = e
                .play(&mut st, [cmd(&p, "a"), None], None)
                .expect_err("overflow");
            assert!(err.message.contains(expect), "{effect}: {}", err.message);
            errors.push(err);
        }
        assert_eq!(errors[0], errors[1], "{effect}");
    }
}

/// Every way to pick the draws of a turn that the checks below try: all outcomes of each draw
/// with the others at their first outcome, and all of them at their last.
fn pick_lists(draws: &[kumite::engine::Draw]) -> Vec<Vec<u64>> {
    let mut out = vec![draws.iter().map(|d| d.outcomes - 1).collect()];
    for (k, d) in draws.iter().enumerate() {
        for o in 0..d.outcomes.min(8) {
            let mut p = vec![0; draws.len()];
            p[k] = o;
            out.push(p);
        }
    }
    out
}

/// Plays random games of `p` and, in every position, every move whose resolution draws: each
/// other outcome replayed from the first outcome's resolution (`replay_scripted`, what the CPU
/// uses) must give what playing the turn from the start gives — the position, the error, the
/// draws recorded — and playing it from the start must give what the reference engine (writes
/// collected, no direct path) gives. Returns how many outcomes were replayed.
fn replays_match_full_turns(p: &RuleProgram, games: u64) -> usize {
    use kumite::engine::ChanceScript;
    let e = Engine::new(p, 7);
    let reference = Engine::new(p, 7).reference();
    let mut replayed = 0;
    for g in 0..games {
        let mut rng = g.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        let Ok(mut st) = e.initial(Side::from_index(g as usize % 2)) else {
            return replayed;
        };
        let mut buf = Vec::new();
        for _ in 0..40 {
            if st.outcome.is_some() {
                break;
            }
            let mut choices: [Vec<Option<u32>>; 2] = [vec![None], vec![None]];
            for &s in e.movers(&st) {
                e.enabled_commands(&st, s, &mut buf);
                if !buf.is_empty() {
                    choices[s] = buf.iter().map(|&c| Some(c)).collect();
                }
            }
            for a in &choices[0] {
                for b in &choices[1] {
                    let cmds = [*a, *b];
                    let mut first = ChanceScript::default();
                    let mut x = st.clone();
                    if e.play_scripted(&mut x, cmds, &mut first).is_err() {
                        continue;
                    }
                    for picks in pick_lists(&first.draws) {
                        let mut full_script = ChanceScript {
                            picks: picks.clone(),
                            ..Default::default()
                        };
                        let mut full = st.clone();
                        let r_full = e.play_scripted(&mut full, cmds, &mut full_script);
                        let mut ref_script = ChanceScript {
                            picks: picks.clone(),
                            ..Default::default()
                        };
                        let mut by_ref = st.clone();
                        let r_ref = reference.play_scripted(&mut by_ref, cmds, &mut ref_script);
                        assert_eq!(r_full, r_ref, "{cmds:?} in {st:?}");
                        assert_eq!(full, by_ref, "{cmds:?} from {st:?}");
                        assert_eq!(full_script.draws, ref_script.draws);
                        // The first outcome again, then this one from its resolution.
                        let mut again = ChanceScript::default();
                        e.play_scripted(&mut st.clone(), cmds, &mut again)
                            .expect("played before");
                        let mut rep_script = ChanceScript {
                            picks,
                            ..Default::default()
                        };
                        let mut rep = State::default();
                        if let Some(r_rep) = e.replay_scripted(&mut rep, &mut rep_script) {
                            replayed += 1;
                            assert_eq!(r_full.is_ok(), r_rep.is_ok(), "{cmds:?} in {st:?}");
                            if r_full.is_ok() {
                                assert_eq!(full, rep, "{cmds:?} from {st:?}");
                            }
                            assert_eq!(full_script.draws, rep_script.draws);
                        }
                    }
                }
            }
            let cmds = [0, 1].map(|s| choices[s][next(choices[s].len())]);
            if e.play(&mut st, cmds, None).is_err() {
                break;
            }
        }
    }
    replayed
}

#[test]
fn chance_outcomes_replayed_from_the_resolution_equal_full_turns() {
    for name in ["karate.kmt", "moge_battle.kmt", "sumo.kmt"] {
        let n = replays_match_full_turns(&file(name), 6);
        assert!(n > 100, "{name}: only {n} outcomes replayed");
    }
    // Simultaneous, two draws in one turn, draws in a condition (no replay), overflow in a
    // drawn value and when applying one.
    let p = prog(
        "~同時\n!:体力=10,大=1000000000000000000,[打つ],[守る],[溜める],[賭ける]\n\
         [打つ],!O.[守る]:O.体力-=rand(1,3),S.気+=rand(0,2)\n\
         [打つ],O.[守る]:O.体力-=rand(0,1)\n\
         [溜める]:S.大*=rand(1,12)\n\
         [賭ける]:S.大+=rand(0,9)*S.大\n\
         [守る],rand(1,4)<=1:S.気+1\n\
         O.体力<=0:S.勝利\n",
    );
    assert!(replays_match_full_turns(&p, 30) > 100);
    // Alternate (the two-phase direct path keeps its first phase): a later rule reads what an
    // earlier one writes, values draw, a condition draws in one command's list.
    let p = prog(
        "!:体力=10,大=1000000000000000000,[打つ],[守る],[溜める],[賭ける]\n\
         [打つ],!O.[守る]:O.体力-=rand(1,3),S.気+=rand(0,2)\n\
         [打つ]:S.回=O.体力+S.気\n\
         [溜める]:S.大*=rand(1,12)\n\
         [賭ける]:S.大+=rand(0,9)*S.大\n\
         [守る],rand(1,4)<=1:S.気+1\n\
         [守る]:S.体力+=rand(0,1)\n\
         O.体力<=0:S.勝利\n",
    );
    assert!(replays_match_full_turns(&p, 30) > 100);
    // Alternate, draws in `rand(lo,hi) OP k` conditions (replayed by redoing those draws):
    // drawing rules in one list, conditions before and after a draw, a drawing rule that writes an
    // expression and one with two draws (not replayed), a list mixing a drawn condition with
    // drawn values (not replayed).
    let p = prog(
        "!:体力=10,気=0,[攻める],[構える],[賭ける]\n\
         [攻める],rand(1,100)<=30,O.体力>=5:O.体力-3\n\
         [攻める],rand(1,4)<=2:S.気+1\n\
         [攻める],S.気>=2,rand(1,3)<=1:S.気-2,O.体力-2\n\
         [攻める]:O.体力-1\n\
         [構える],S.気>=1,rand(1,3)>=2,S.体力<=9:S.体力+=min(2,10-S.体力)\n\
         [構える],rand(1,2)==1:S.気+1\n\
         [賭ける],rand(1,6)<=2,rand(1,6)>=5:O.体力-5\n\
         [賭ける],3>=rand(1,6):S.気+=rand(0,2)\n\
         O.体力<=0:S.勝利\n",
    );
    assert!(replays_match_full_turns(&p, 30) > 100);
}

/// §8 step 4: a victory rule with a period — `@1/` included — is checked for a side only once
/// that side has acted (n ≥ 1); without a period it is checked for both from the first turn.
#[test]
fn a_victory_rule_with_period_one_waits_for_the_sides_first_turn() {
    let with = prog("@1/S.回>=0:S.勝利\n!:[x]\n[x]:S.回+1\n");
    let without = prog("S.回>=0:S.勝利\n!:[x]\n[x]:S.回+1\n");
    for (p, want) in [(&with, Outcome::H), (&without, Outcome::Draw)] {
        let e = Engine::new(p, 0);
        let mut st = e.initial(Side::H).expect("start");
        e.play(&mut st, [cmd(p, "x"), None], None).expect("plays");
        assert_eq!(st.outcome, Some(want), "{:?}", p.rules);
    }
}

/// The search's position fingerprint: equal positions agree; a change of one value, one flag
/// or (when asked) one history entry always changes it; and the positions reached by random
/// play of every bundled file do not collide.
#[test]
fn fingerprints_tell_positions_apart() {
    use kumite::engine::rng::SplitMix;
    use rand::RngExt;
    let mut rng = SplitMix(11);
    let mut seen = std::collections::HashMap::new();
    for name in ["karate.kmt", "sumo.kmt", "cc_lemon.kmt", "ex1_push.kmt"] {
        let p = file(name);
        let e = Engine::new(&p, 3);
        for _game in 0..1000 {
            let mut st = e.initial(Side::H).expect("start");
            while st.outcome.is_none() {
                let mut cmds = [None, None];
                for &s in e.movers(&st) {
                    let mut en = Vec::new();
                    e.enabled_commands(&st, s, &mut en);
                    cmds[s] = en.get(rng.random_range(0..en.len().max(1))).copied();
                }
                e.play(&mut st, cmds, None).expect("turn");
                let f = st.fingerprint(true);
                assert_eq!(f, st.clone().fingerprint(true));
                let key = (st.vals.clone(), st.enabled.clone(), st.hist.clone());
                if let Some(other) = seen.insert(f, key.clone()) {
                    assert_eq!(other, key, "two positions with one fingerprint in {name}");
                }
                // One word changed: never the same fingerprint.
                let mut t = st.clone();
                let k = rng.random_range(0..t.vals.len());
                t.vals[k] = t.vals[k].wrapping_add(rng.random_range(1..1000));
                assert_ne!(t.fingerprint(true), f);
                let mut t = st.clone();
                let k = rng.random_range(0..t.enabled.len());
                t.enabled[k] = !t.enabled[k];
                assert_ne!(t.fingerprint(false), st.fingerprint(false));
                let mut t = st.clone();
                let k = rng.random_range(0..t.hist.len());
                t.hist[k] = t.hist[k].wrapping_add(1);
                assert_ne!(t.fingerprint(true), f);
                assert_eq!(t.fingerprint(false), st.fingerprint(false));
            }
        }
    }
    assert!(seen.len() > 30_000, "only {} positions", seen.len());
}
