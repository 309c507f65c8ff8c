//! The studio's part 2 driven like a person would: the victory-condition tree, matches played
//! with the keys of the `':` lines, the win path and its replay. No display is needed.
//!
//! The CPU and the searches run on their own threads, so the tests step frames (with short
//! sleeps) until those have answered, with a bound.

use crate::common;
use kumite::side::Side;

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use kumite::gui::StudioApp;
use kumite::gui::i18n::Lang;
use std::time::{Duration, Instant};

fn harness(app: StudioApp) -> Harness<'static, StudioApp> {
    Harness::builder()
        // A background check that finishes asks for repaints of its own (seen on CI:
        // 6 steps to settle); a UI that never settles still fails at 32.
        .with_max_steps(32)
        .with_size([1500.0, 950.0])
        .build_ui_state(|ui, app: &mut StudioApp| app.show(ui), app)
}

/// Steps frames until `done` holds (panics after 60 s).
fn step_until(h: &mut Harness<'static, StudioApp>, what: &str, done: impl Fn(&StudioApp) -> bool) {
    let t0 = Instant::now();
    h.step();
    while !done(h.state()) {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(3));
        h.step();
    }
    h.step();
    h.step();
}

fn settle(h: &mut Harness<'static, StudioApp>) {
    step_until(h, "the checker", |a| a.is_checked());
}

/// Until no CPU is thinking.
fn cpu_done(h: &mut Harness<'static, StudioApp>) {
    step_until(h, "the CPU", |a| {
        a.matchp
            .session
            .as_ref()
            .is_none_or(|s| s.thinking().is_none() && (s.over() || s.human_to_choose().is_some()))
    });
}

fn open_example(h: &mut Harness<'static, StudioApp>, name: &str) {
    h.get_by_label("Examples").click();
    h.run();
    h.get_by_label(name).click();
    settle(h);
    assert_eq!(h.state().text(), kumite::gui::files::example(name).unwrap());
}

#[test]
fn example1_shows_its_tree_with_distances_11_and_is_won_with_the_bound_key() {
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    settle(&mut h);
    open_example(&mut h, "ex1_push.kmt");
    h.get_by_label("Victory conditions").click();
    h.step();
    h.step();
    // The derived tree: the decisive rule, its level-1 condition, both distances 11.
    h.get_by_label("h 11 · c 11");
    h.get_by_label_contains("O.後ろ余裕度<=0,[押す]:S.勝利");
    h.get_by_label_contains("Lv1 O.後ろ余裕度<=0");
    h.get_by_label_contains("(initial position)");

    // F5 starts a match with the keys active; h (human) pushes with `p`, the CPU answers.
    h.key_press(Key::F5);
    h.step();
    h.get_by_label_contains("keys active");
    for push in 1..=11 {
        cpu_done(&mut h);
        if h.state().matchp.session.as_ref().unwrap().over() {
            break;
        }
        if push == 2 {
            // The panel says how hard the CPU looked for its last move.
            h.step();
            let nodes = h
                .state()
                .matchp
                .session
                .as_ref()
                .unwrap()
                .cpu_last
                .unwrap()
                .0;
            assert!(nodes > 0, "the CPU searched");
            h.get_by_label_contains(&format!("CPU's last move: {nodes} positions in "));
        }
        h.key_press(Key::P);
        h.step();
        // The tree follows the match: after h's 3rd push h's distance is 8.
        if push == 3 {
            h.step();
            h.get_by_label_contains("(match, after turn");
            let s = h.state().matchp.session.as_ref().unwrap();
            assert_eq!(s.judgement().dist[0], 8, "after three pushes");
        }
    }
    cpu_done(&mut h);
    h.get_by_label_contains("h wins!");
    let s = h.state().matchp.session.as_ref().unwrap();
    assert_eq!(s.st.turn, 21);
    assert_eq!(s.turns.iter().filter(|t| t.cmds[0].is_some()).count(), 11);
    // The log names the rule that decided it, as a clickable source line.
    h.get_by_label_contains("L9 h: O.後ろ余裕度<=0,[押す]:S.勝利")
        .click();
    h.step();
    assert_eq!(h.state().picked_line(), Some(8));
    // The match is over: the tree reads its final position and says so, and no distances
    // stand beside the decided evaluation.
    h.get_by_label_contains("(match over, after turn 21)");
    assert!(h.query_by_label_contains("(initial position)").is_none());
    assert!(h.query_by_label_contains("distance to win").is_none());
    // The tree's header says who won instead of distances to a win.
    h.get_by_label("Decided: h won — the rows show the final position");
    assert!(h.query_by_label("Distance to win").is_none());
    // A finished match is not offered to be kept playing on changed rules.
    h.get_by_label("Rule editor").focus();
    h.run();
    h.get_by_label("Rule editor").type_text("# changed");
    settle(&mut h);
    assert!(h.query_by_label("Keep playing").is_none());
    assert!(h.query_by_label("Restart with the new rules").is_none());
    // Undo turn: the CPU's last move it described is gone, and distances come back.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    h.get_by_label("Undo turn").click();
    h.step();
    h.step();
    assert!(!h.state().matchp.session.as_ref().unwrap().over());
    assert!(h.query_by_label_contains("CPU's last move").is_none());
    h.get_by_label_contains("distance to win");
    h.get_by_label("Distance to win");
}

#[test]
fn the_graph_shows_the_boxes_and_the_tree_links_to_the_lines() {
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    settle(&mut h);
    open_example(&mut h, "ex1_push.kmt");
    h.get_by_label("Victory conditions").click();
    h.run();
    h.get_by_label("Graph").click();
    h.run();
    h.get_by_label("勝利");
    h.get_by_label_contains("Lv1   h × 10 · c × 10");
    h.get_by_label("O.後ろ余裕度<=0,[押す]:S.勝利 L9   h 11 · c 11");
    h.get_by_label_contains("[押す]:O.後ろ余裕度-=1 L8");
    // In the tree, the achieving rule's line link shows line 8.
    h.get_by_label("Tree").click();
    h.run();
    h.get_by_label("L8").click();
    h.run();
    assert_eq!(h.state().picked_line(), Some(7));
}

#[test]
fn sumo_shift_c_throws_only_when_both_grips_are_held() {
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    settle(&mut h);
    open_example(&mut h, "sumo.kmt");
    // Both sides human (hot seat), so no CPU chance decides the test.
    h.get_by_label("c").click();
    h.run();
    h.get_all_by_label("human").last().unwrap().click();
    h.run();
    assert_eq!(
        h.state().matchp.settings.players[1],
        kumite::gui::session::Controller::Human
    );
    h.key_press(Key::F5);
    h.step();
    let shift = |h: &mut Harness<'static, StudioApp>, k: Key| {
        h.key_press_modifiers(Modifiers::SHIFT, k);
        h.step();
        h.step();
    };
    // Shift+C before holding both grips: 投げる is not enabled, nothing is played.
    shift(&mut h, Key::C);
    assert_eq!(h.state().matchp.session.as_ref().unwrap().st.turn, 0);
    h.get_by_label_contains("is not enabled");
    // A plain `c` is not bound in sumo: ignored.
    h.key_press(Key::C);
    h.step();
    assert_eq!(h.state().matchp.session.as_ref().unwrap().st.turn, 0);
    shift(&mut h, Key::L); // h: 左マワシ取る
    h.key_press(Key::F); // c: 踏ん張る
    h.step();
    shift(&mut h, Key::R); // h: 右マワシ取る
    h.key_press(Key::F); // c: 踏ん張る
    h.step();
    let s = h.state().matchp.session.as_ref().unwrap();
    assert_eq!(s.st.turn, 4);
    let p = s.prog();
    let throw = p.command_id("投げる").unwrap();
    assert!(
        s.is_enabled(Side::H, throw),
        "both grips held: 投げる enabled"
    );
    shift(&mut h, Key::C);
    h.get_by_label_contains("h wins!");
    assert_eq!(h.state().matchp.session.as_ref().unwrap().st.turn, 5);
    // Undo (F8) takes the throw back.
    h.key_press(Key::F8);
    h.step();
    let s = h.state().matchp.session.as_ref().unwrap();
    assert_eq!((s.st.turn, s.over()), (4, false));
}

#[test]
fn the_win_path_of_sumo_is_found_and_replayed_in_the_match_panel() {
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    settle(&mut h);
    open_example(&mut h, "sumo.kmt");
    h.get_by_label("Win path").click();
    h.step();
    h.get_by_label("Find win path").click();
    step_until(&mut h, "the win path", |a| a.winpath_result().is_some());
    h.get_by_label("Shortest win for h: 5 plies");
    h.get_by_label("Replay in match").click();
    h.step();
    h.step();
    h.get_by_label_contains("Replaying the win path: 0/5");
    // Ctrl+2 shows the tree, which follows the replayed match.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num2);
    h.step();
    h.get_by_label_contains("(match, after turn 0)");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num3);
    h.step();
    for _ in 0..2 {
        h.get_by_label("Next step").click();
        h.step();
        h.step();
    }
    // The rest from the keyboard (F10: the replay's next step).
    for _ in 0..3 {
        h.key_press(Key::F10);
        h.step();
    }
    h.step();
    h.get_by_label_contains("h wins!");
    let s = h.state().matchp.session.as_ref().unwrap();
    assert_eq!(s.st.turn, 5);
    assert!(s.replay.as_ref().unwrap().diverged.is_none());
}

#[test]
fn the_tree_updates_after_an_edit_and_the_match_offers_a_restart() {
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    settle(&mut h);
    open_example(&mut h, "ex1_push.kmt");
    h.get_by_label("Victory conditions").click();
    h.step();
    h.key_press(Key::F5);
    h.step();
    h.get_by_label("h 11 · c 11");
    // A second, stronger pushing rule: the best step is now 2, so 1 + ceil(10 / 2) = 6.
    h.get_by_label("Rule editor").focus();
    h.step();
    h.get_by_label("Rule editor")
        .type_text("[押す]:O.後ろ余裕度-2\n");
    settle(&mut h);
    h.get_by_label("h 6 · c 6");
    h.get_by_label_contains("The rules changed.");
    h.get_by_label("Restart with the new rules").click();
    h.step();
    let s = h.state().matchp.session.as_ref().unwrap();
    assert_eq!(s.judgement().dist, [6, 6]);
    // A broken edit keeps the last good tree and never reaches the match.
    h.get_by_label("Rule editor").focus();
    h.step();
    h.get_by_label("Rule editor").type_text("[押す]:O.");
    settle(&mut h);
    h.get_by_label("h 6 · c 6");
    h.get_by_label_contains("showing the last version that compiled");
    assert!(h.query_by_label_contains("The rules changed.").is_none());
}

#[test]
fn cancel_stops_a_long_win_path_search() {
    // Nobody can win within reach: the searches would run to their budgets. (The win reads a
    // sum of two states, which the admissible bound does not count — with `S.a>=100000` it
    // would prove at once that no win is within reach, and nothing would be left to cancel.)
    let text = "!:a=0,b=0,[x],[y],[z]\n[x]:S.a+1\n[y]:S.b+1\n[z]:S.a-1\nS.a+S.b>=200000:S.勝利\n";
    let mut h = harness(StudioApp::new_for_test(Lang::En, text));
    settle(&mut h);
    h.get_by_label("Win path").click();
    h.step();
    h.get_by_label("Find win path").click();
    h.step();
    h.step();
    h.get_by_label_contains("Searching…");
    std::thread::sleep(Duration::from_millis(300));
    let t0 = Instant::now();
    let done = h
        .state_mut()
        .cancel_win_path()
        .expect("a search was running");
    while !done.load(std::sync::atomic::Ordering::Acquire) {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "the search did not stop"
        );
        std::thread::sleep(Duration::from_micros(200));
    }
    println!(
        "cancel → search thread ended in {:.1} ms",
        t0.elapsed().as_secs_f64() * 1000.0
    );
    h.step();
    h.get_by_label("Search cancelled.");
}

/// Frame times while the win-path search and the CPU both run (two background threads on a
/// two-core machine), and how fast Cancel stops the search. Prints figures; run with
/// `cargo test --release --test suite gui_match:: -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_frame_times_during_a_long_search() {
    let text = "!:a=0,b=0,[x],[y],[z]\n':x=[x],y=[y],z=[z]\n~P5000,S30\n[x]:S.a+1\n[y]:S.b+1\n[z]:S.a-1\nS.a>=100000,S.b>=100000:S.勝利\n";
    let mut app = StudioApp::new_for_test(Lang::En, text);
    let ctx = egui::Context::default();
    let size = egui::vec2(1500.0, 950.0);
    let frame = |app: &mut StudioApp, events: Vec<egui::Event>| {
        common::timed_frame(&ctx, app, size, events)
    };
    let t0 = Instant::now();
    while !app.is_checked() && t0.elapsed() < Duration::from_secs(30) {
        frame(&mut app, vec![]);
        std::thread::sleep(Duration::from_millis(5));
    }
    let key = |k| egui::Event::Key {
        key: k,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers: egui::Modifiers::NONE,
    };
    // c is the CPU, first to move (x is pressed for h, then the CPU thinks for up to 5 s).
    frame(&mut app, vec![key(Key::F5)]);
    frame(&mut app, vec![key(Key::X)]);
    frame(&mut app, vec![key(Key::F7)]);
    let mut times = Vec::new();
    let mut cpu_frames = 0;
    for _ in 0..180 {
        let start = Instant::now();
        // h answers at once whenever it is its turn, so the CPU keeps thinking.
        let mine = app
            .matchp
            .session
            .as_ref()
            .is_some_and(|s| s.human_to_choose().is_some());
        cpu_frames += usize::from(!mine);
        let press = if mine {
            vec![
                key(Key::X),
                egui::Event::Key {
                    key: Key::X,
                    physical_key: None,
                    pressed: false,
                    repeat: false,
                    modifiers: egui::Modifiers::NONE,
                },
            ]
        } else {
            vec![]
        };
        times.push(frame(&mut app, press));
        if let Some(rest) = Duration::from_millis(16).checked_sub(start.elapsed()) {
            std::thread::sleep(rest);
        }
    }
    let m = app.matchp.session.as_ref().expect("a match");
    let thinking = format!("{cpu_frames} frames, {} CPU moves", m.st.turn / 2);
    let searching = app.winpath_result().is_none();
    let t1 = Instant::now();
    let done = app.cancel_win_path();
    if let Some(done) = &done {
        while !done.load(std::sync::atomic::Ordering::Acquire)
            && t1.elapsed() < Duration::from_secs(10)
        {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    let cancel_ms = t1.elapsed().as_secs_f64() * 1000.0;
    times.sort_by(f64::total_cmp);
    println!(
        "{} frames with the CPU thinking ({thinking}) and the win-path search running ({searching}): \
         median {:.2} ms, p99 {:.2} ms, worst {:.2} ms; Cancel → search thread ended in {cancel_ms:.1} ms",
        times.len(),
        times[times.len() / 2],
        times[times.len() * 99 / 100],
        times[times.len() - 1]
    );
}

#[test]
fn example1_win_path_proves_the_forced_win_with_its_strategy() {
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    settle(&mut h);
    open_example(&mut h, "ex1_push.kmt");
    h.key_press(Key::F7);
    step_until(&mut h, "the win path", |a| a.winpath_result().is_some());
    h.get_by_label("Shortest win for h: 21 plies");
    h.get_by_label("Forced win: yes — h wins against every reply within 21 plies");
    h.get_by_label("First move: 押す");
    h.get_by_label("Winning strategy (h's move against every reply)");
    let r = h.state().winpath_result().unwrap();
    assert!(r.strategy.as_deref().unwrap().contains("押す"));
}

#[test]
fn the_exact_cpu_is_chosen_in_the_match_panel_and_says_what_it_solved() {
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    settle(&mut h);
    open_example(&mut h, "ex1_push.kmt");
    h.get_by_label("exact — unbeatable").click();
    h.run();
    assert!(h.state().matchp.settings.cpu.exact);
    h.key_press(Key::F5);
    h.step();
    // h pushes; the exact CPU (c) answers from its table.
    h.key_press(Key::P);
    h.step();
    cpu_done(&mut h);
    let s = h.state().matchp.session.as_ref().unwrap();
    assert!(s.cpu.exact, "the match uses the exact CPU");
    assert_eq!(s.st.turn, 2, "h and c have both moved");
    h.get_by_label_contains("positions solved");
}

#[test]
fn a_node_many_rules_achieve_lists_the_first_twelve_until_show_all_is_clicked() {
    // 45 different moves lower the opponent's margin; one victory rule.
    let mut text = String::from("!:余裕=100\n");
    for k in 1..=45 {
        text.push_str(&format!("[技{k}]:O.余裕-{k}\n"));
    }
    text.push_str("O.余裕<=0:S.勝利\n");
    let keys: Vec<String> = (1..=9).map(|k| format!("{k}=[技{k}]")).collect();
    text.push_str(&format!("':{}\n", keys.join(",")));
    let mut h = harness(StudioApp::new_for_test(Lang::En, &text));
    settle(&mut h);
    h.get_by_label("Victory conditions").click();
    h.step();
    h.step();
    let listed =
        |h: &Harness<'static, StudioApp>| h.query_all_by_label_contains(":O.余裕-=").count();
    assert_eq!(listed(&h), 12);
    // The link is below the visible part of the panel: scrolled to, as a person would.
    h.get_by_label("… 33 more rules: show all").scroll_to_me();
    h.run();
    h.get_by_label("… 33 more rules: show all").click();
    h.run();
    assert_eq!(listed(&h), 45);
    assert!(h.query_by_label_contains("more rules: show all").is_none());
}

#[test]
fn a_file_with_many_victory_rules_lists_the_first_twenty_until_show_all_is_clicked() {
    let mut text = String::from("!:余裕=10\n[押す]:O.余裕-1\n':p=[押す]\n");
    for k in 1..=25 {
        text.push_str(&format!("O.余裕<={k}:S.勝利\n"));
    }
    let mut h = harness(StudioApp::new_for_test(Lang::En, &text));
    settle(&mut h);
    h.get_by_label("Victory conditions").click();
    h.step();
    h.step();
    let listed = |h: &Harness<'static, StudioApp>| h.query_all_by_label_contains("★ L").count();
    assert_eq!(listed(&h), 20);
    h.get_by_label("… 5 more victory rules: show all")
        .scroll_to_me();
    h.run();
    h.get_by_label("… 5 more victory rules: show all").click();
    h.run();
    assert_eq!(listed(&h), 25);
}

#[test]
fn the_tree_view_says_whether_an_unreachable_condition_blocks_the_win() {
    // Being held is only the opponent's doing: a win that needs it is blocked by it.
    let text = "!:体力=10,[殴る]\n':k=[殴る]\n[殴る]:O.体力-1\nS.捕まった,O.体力<=0:S.勝利\n";
    let mut h = harness(StudioApp::new_for_test(Lang::En, text));
    settle(&mut h);
    h.get_by_label("Victory conditions").click();
    h.step();
    h.step();
    h.get_by_label_contains("∞: the side cannot bring this about by its own moves");
    h.get_by_label("∞ blocks h, c's win");
    // In the wrestling file every ∞ is a condition the win goes around.
    let text = common::read(&common::root().join("tests/designs/wrestling.kmt"));
    let mut h = harness(StudioApp::new_for_test(Lang::Ja, &text));
    settle(&mut h);
    h.get_by_label("勝利評価条件").click();
    h.step();
    h.step();
    h.get_by_label_contains("その側の手では成立させられない条件");
    assert!(h.query_by_label_contains("の勝利を阻む").is_none());
}

#[test]
fn the_learned_cpu_is_chosen_in_the_match_panel_for_a_bundled_example_and_explains_when_missing() {
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    settle(&mut h);
    open_example(&mut h, "karate.kmt");
    h.get_by_label("learned evaluation (kumite train)").click();
    h.run();
    assert!(h.state().matchp.settings.cpu.trained);
    h.get_by_label_contains("learned from 10000 self-play games");
    h.key_press(Key::F5);
    h.step();
    // h strikes (j: 左突き); the learned CPU (c) answers.
    h.key_press(Key::J);
    h.step();
    cpu_done(&mut h);
    let s = h.state().matchp.session.as_ref().unwrap();
    assert!(s.cpu.trained, "the match uses the learned evaluation");
    assert!(s.learned.is_some());
    assert_eq!(s.st.turn, 2, "h and c have both moved");

    // Rules that were never saved or trained: the box says why, and the CPU plays as before.
    let mut h = harness(StudioApp::new_for_test(
        Lang::En,
        "!:余裕=3\n[押す]:O.余裕-1\nO.余裕<=0:S.勝利\n':p=[押す]\n",
    ));
    settle(&mut h);
    h.get_by_label("learned evaluation (kumite train)").click();
    h.run();
    h.get_by_label_contains("not available: the rules are not saved");
    h.key_press(Key::F5);
    h.step();
    assert!(!h.state().matchp.session.as_ref().unwrap().cpu.trained);
}

#[test]
fn the_learn_button_learns_a_saved_file_writes_it_next_to_it_and_can_be_cancelled() {
    let dir = std::env::temp_dir().join(format!("kumite-gui-learn-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // A dice race with a choice (run or rest): short games, results that vary.
    let race = dir.join("race.kmt");
    std::fs::write(
        &race,
        "!:位置=0,[走る],[休む]\n[走る]:S.位置+=rand(1,3)\n[休む]:S.位置+=rand(0,1)\nS.位置>=4:S.勝利\n':r=[走る],s=[休む]\n",
    )
    .unwrap();
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    let ctx = h.ctx.clone();
    h.state_mut().open_file_at_start(&ctx, &race);
    settle(&mut h);
    h.get_by_label("learned evaluation (kumite train)").click();
    h.run();
    h.get_by_label_contains("not learned yet for this file: Learn now below");
    // Unsaved changes: Learn waits for a save (it learns the rules on disk, next to them).
    h.get_by_label("Rule editor").focus();
    h.run();
    h.get_by_label("Rule editor").type_text("# a note\n");
    settle(&mut h);
    assert!(h.state().is_dirty());
    assert!(h.state().matchp.learn_path.is_none());
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    h.run();
    assert!(!h.state().is_dirty());
    assert_eq!(h.state().matchp.learn_path.as_deref(), Some(race.as_path()));
    h.get_by_label("Learn now").click();
    h.step();
    h.step();
    assert!(h.state().matchp.is_learning(), "learning");
    // Unticking the box does not lose the run: its answer is still taken.
    h.get_by_label("learned evaluation (kumite train)").click();
    step_until(&mut h, "learning", |a| a.matchp.learned.is_ok());
    h.get_by_label("learned evaluation (kumite train)").click();
    h.run();
    h.get_by_label_contains("learned in");
    h.get_by_label_contains("learned from 10000 self-play games");
    assert!(
        dir.join("race.trained.json").exists(),
        "written next to the file"
    );
    h.key_press(Key::F5);
    h.step();
    assert!(h.state().matchp.session.as_ref().unwrap().cpu.trained);
    // The same command line reads what the studio wrote.
    let l = kumite::search::trained::read_for(
        &race,
        &kumite::pipeline::compile(&std::fs::read_to_string(&race).unwrap())
            .program
            .unwrap(),
    );
    assert!(l.is_ok(), "{l:?}");

    // Cancelled: nothing written, and it says so (karate with a cost changed, so that the
    // bundled example's evaluation is not its own; learning it takes half a minute).
    let karate = dir.join("karate.kmt");
    let text = common::read(&common::root().join("rules").join("karate.kmt"));
    assert!(text.contains("突き費用:2"));
    std::fs::write(&karate, text.replace("突き費用:2", "突き費用:3")).unwrap();
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    let ctx = h.ctx.clone();
    h.state_mut().open_file_at_start(&ctx, &karate);
    settle(&mut h);
    h.get_by_label("learned evaluation (kumite train)").click();
    h.run();
    h.get_by_label("Learn now").click();
    h.step();
    h.step();
    h.get_by_label_contains("learning karate.kmt from self-play");
    h.get_by_label("Cancel").click();
    step_until(&mut h, "the cancel", |a| !a.matchp.is_learning());
    h.run();
    h.get_by_label_contains("learning cancelled: nothing written");
    assert!(!dir.join("karate.trained.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The victory tree numbers a row by how deep it is nested (the uppercut is a condition of the
/// knockout rule, Lv1, and three levels down under the knockdowns, Lv3 — not Lv1 there too), and
/// the Initial state view lists the commands as the tree reads them: the hook, which an
/// availability rule enables, is on for both sides of the symmetric boxing file.
#[test]
fn the_victory_tree_numbers_rows_by_nesting_and_agrees_with_the_initial_state() {
    let text = common::read(&common::root().join("tests/designs/boxing.kmt"));
    let mut h = harness(StudioApp::new_for_test(Lang::En, &text));
    settle(&mut h);
    h.get_by_label("Victory conditions").click();
    h.step();
    h.step();
    // Under the knockout rule (line 34) the uppercut is a condition of the rule itself.
    h.get_by_label_contains("Lv1 S.[uppercut] enabled");
    // Open the knockdown rule's hp condition: the uppercut under it is three levels down.
    let hp = h
        .get_all_by_label_contains("Lv2 O.hp<=0")
        .next()
        .expect("hp row");
    hp.click();
    h.step();
    h.step();
    h.get_by_label_contains("Lv3 S.[uppercut] enabled");
    // Distances that count on the opponent's move carry a star, with the legend.
    assert_eq!(
        h.query_all_by_label_contains("S.[uppercut] enabled  h × 1*")
            .count(),
        2
    );
    h.get_by_label_contains("* the distance counts on a move of the opponent");
    // The hook is on for both sides, in the tree and in the Initial state view.
    assert!(
        h.query_all_by_label_contains("S.[hook] enabled  h ○ 0  c ○ 0")
            .count()
            >= 1
    );
    assert_eq!(
        h.query_all_by_label_contains("S.[hook] enabled  h ○ 0  c × 0")
            .count(),
        0
    );
    h.get_all_by_label("Expanded rules").next().unwrap().click();
    h.step();
    h.get_by_label("Initial state").click();
    h.step();
    h.step();
    h.get_by_label_contains("each side's first turn");
    // jab, hook, guard and rest for h and c; the uppercut for neither.
    assert_eq!(h.query_all_by_label("●").count(), 8);
    assert_eq!(h.query_all_by_label("—").count(), 2);
}

/// The studio's Win path and `kumite solve` search the same plies by default, so they give the
/// same verdict: h's push-out win here is 35 plies away, beyond both (the studio searched 40
/// and found it where the command line said there was none).
#[test]
fn the_win_path_in_the_studio_and_on_the_command_line_give_the_same_verdict() {
    let text = "!:余裕=17\n:[押す]\n[押す]:O.余裕-1\nO.余裕<=0,[押す]:S.勝利\n";
    let mut h = harness(StudioApp::new_for_test(Lang::En, text));
    settle(&mut h);
    h.key_press(Key::F7);
    step_until(&mut h, "the win path", |a| a.winpath_result().is_some());
    let plies = h.state().winpath_result().unwrap().plies;
    let dir = std::env::temp_dir().join(format!("kumite-winpath-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("push35.kmt");
    std::fs::write(&f, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kumite"))
        .args(["solve", f.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["forced_win"]["plies"], plies, "{v}");
    assert_eq!(v["shortest_win"]["status"], "none", "{v}");
    h.get_by_label_contains(&format!("within {plies} plies"));
}

/// CPU against CPU is watched at the pace set in the panel: with a minute between turns the
/// match holds after its first turn; at pace 0 it plays out to the end.
#[test]
fn cpu_against_cpu_is_watched_at_the_pace_set() {
    let mut app = StudioApp::new_for_test(Lang::En, "");
    app.matchp.settings.players = [kumite::gui::session::Controller::Cpu; 2];
    app.matchp.settings.watch_seconds = 60.0;
    let mut h = harness(app);
    settle(&mut h);
    open_example(&mut h, "ex1_push.kmt");
    h.get_by_label("pace");
    h.key_press(Key::F5);
    step_until(&mut h, "the first turn", |a| {
        a.matchp
            .session
            .as_ref()
            .is_some_and(|s| !s.turns.is_empty())
    });
    for _ in 0..20 {
        h.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        h.state().matchp.session.as_ref().unwrap().turns.len(),
        1,
        "held by the pace"
    );
    h.get_by_label("pace").set_value_accesskit(0.0);
    h.step();
    step_until(&mut h, "the end of the match", |a| {
        a.matchp.session.as_ref().is_some_and(|s| s.over())
    });
    assert_eq!(h.state().matchp.session.as_ref().unwrap().st.turn, 21);
}

/// The studio's CPU is `kumite match`'s player: the same seed, the positions it chose in before
/// and its random streams carried from move to move, so with a node budget (the same search on
/// any machine) a match in the panel plays move for move as the command line the panel names.
/// (It made each move's player with a seed of its own and every earlier position, and parted
/// from the command line at turn 10 of a boxing match.)
#[test]
fn the_studios_cpu_plays_move_for_move_as_the_command_line_it_names() {
    use kumite::gui::session::Controller;
    let text = std::fs::read_to_string(common::root().join("tests/designs/boxing.kmt")).unwrap();
    let mut app = StudioApp::new_for_test(Lang::En, &text);
    let m = &mut app.matchp.settings;
    m.players = [Controller::Cpu; 2];
    m.watch_seconds = 0.0;
    m.file_cpu = false;
    m.cpu.depth = 3;
    m.cpu.thin = 2.0; // thinning draws from the search's own stream
    m.cpu.mistakes = 2; // and mistakes from the CPU's
    m.cpu.period_ms = 60_000;
    m.cpu.nodes = Some(20_000);
    app.matchp.seed = 5;
    let mut h = harness(app);
    settle(&mut h);
    let spec = "cpu:S3,D2,E2,P60000,N20000";
    let shown = format!("kumite match FILE --h {spec} --c {spec} --seed 5");
    h.get_by_label(&shown);
    h.key_press(Key::F5);
    step_until(&mut h, "the end of the match", |a| {
        a.matchp.session.as_ref().is_some_and(|s| s.over())
    });
    let s = h.state().matchp.session.as_ref().unwrap();
    let studio: Vec<(String, String)> = s
        .turns
        .iter()
        .flat_map(|t| {
            t.trace
                .moves
                .iter()
                .map(|(side, c)| (side.to_string(), c.clone().unwrap_or_default()))
        })
        .collect();
    assert!(studio.len() > 20, "{studio:?}");

    let args: Vec<&str> = shown.split(' ').skip(1).collect();
    let args: Vec<&str> = args
        .iter()
        .map(|a| {
            if *a == "FILE" {
                "tests/designs/boxing.kmt"
            } else {
                a
            }
        })
        .chain(["--format", "json"])
        .collect();
    let (code, out, err) = common::kumite(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cli: Vec<(String, String)> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["side"].as_str().unwrap().to_string(),
                m["command"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let first_diff = studio.iter().zip(&cli).position(|(a, b)| a != b);
    assert_eq!(first_diff, None, "studio {studio:?}\ncli {cli:?}");
    assert_eq!(studio.len(), cli.len());
    assert_eq!(v["result"], s.st.outcome.map_or("draw", |o| o.as_str()));
}

/// A CPU stopped by its time limit says that another machine may choose otherwise.
#[test]
fn a_cpu_stopped_by_its_time_limit_says_its_move_may_differ_elsewhere() {
    let text = std::fs::read_to_string(common::root().join("tests/designs/boxing.kmt")).unwrap();
    let mut app = StudioApp::new_for_test(Lang::En, &text);
    app.matchp.settings.file_cpu = false;
    app.matchp.settings.cpu.depth = 30;
    app.matchp.settings.cpu.period_ms = 5;
    let mut h = harness(app);
    settle(&mut h);
    h.key_press(Key::F5);
    h.step();
    h.key_press(Key::J); // h jabs; the CPU answers
    cpu_done(&mut h);
    h.get_by_label_contains("It stopped at its time limit, 5 ms (P), before depth S30");
}
