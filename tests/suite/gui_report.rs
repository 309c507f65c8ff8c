//! The Report tab driven like a person would: open an example, Ctrl+4, run the report, read the
//! sections as they fill in, click a rule to go to its line, cancel with Esc. No display needed.

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

/// Steps frames until `done` holds (panics after 120 s); returns the frames' own times.
fn step_until(
    h: &mut Harness<'static, StudioApp>,
    what: &str,
    done: impl Fn(&StudioApp) -> bool,
) -> Vec<Duration> {
    let t0 = Instant::now();
    let mut frames = Vec::new();
    h.step();
    while !done(h.state()) {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(3));
        let f = Instant::now();
        h.step();
        frames.push(f.elapsed());
    }
    h.step();
    h.step();
    frames
}

/// A right-click at `at`, press and release in frames of their own.
fn right_click(h: &mut Harness<'static, StudioApp>, at: egui::Pos2) {
    h.event(egui::Event::PointerMoved(at));
    h.step();
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Secondary,
            pressed,
            modifiers: Modifiers::default(),
        });
        h.step();
    }
    h.run();
}

fn open_example(h: &mut Harness<'static, StudioApp>, name: &str) {
    step_until(h, "the checker", |a| a.is_checked());
    h.get_by_label("Examples").click();
    h.run();
    h.get_by_label(name).click();
    step_until(h, "the checker", |a| a.is_checked());
    assert_eq!(h.state().text(), kumite::gui::files::example(name).unwrap());
}

#[test]
fn the_report_tab_runs_a_report_and_its_rules_lead_to_their_lines() {
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    open_example(&mut h, "ex1_push.kmt");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num4);
    h.run();
    h.get_by_label_contains("Run a report to see what the rules do");
    h.state_mut().report.games = 10;
    h.get_by_label("Run report").click();
    h.step();
    assert!(h.state().report.busy());
    step_until(&mut h, "the report", |a| !a.report.busy());
    let r = h.state().report.report.clone().expect("a report");
    assert!(!r.cancelled);
    // Example 1: the first mover always wins, and the solver proves it.
    h.get_by_label("h has a forced win");
    h.get_by_label_contains("First-mover advantage: +50.0 points");
    // The depth check says how much deeper its CPUs read (it said +2 when they read +1).
    h.get_by_label_contains("Deeper CPUs (+1 ply)");
    // One command only: random plays it as well as any search.
    h.get_by_label_contains("Skill makes no difference of 10 points or more");
    assert_eq!(r.length.as_ref().unwrap().median, 21);
    // Every rule line is listed; clicking one shows it in the editor.
    let push = r
        .rules
        .as_ref()
        .unwrap()
        .iter()
        .find(|l| l.text.starts_with("[押す]"))
        .unwrap()
        .line;
    // Fold the sections above the rules so that the link is on screen.
    for section in ["Outcome", "Length", "Decisions"] {
        h.get_by_label(section).click();
        h.run();
    }
    h.get_by_label(&format!("L{push}")).click();
    h.run();
    assert_eq!(h.state().picked_line(), Some(push - 1));
    // An edit makes the figures the earlier text's: the report says so; undone, it is current.
    assert!(
        h.query_by_label_contains("The file has changed since this report")
            .is_none()
    );
    let before = h.state().text().to_string();
    h.get_by_label("Rule editor").focus();
    h.run();
    h.get_by_label("Rule editor").type_text("# edit");
    step_until(&mut h, "the checker", |a| a.is_checked());
    h.run();
    assert_ne!(h.state().text(), before);
    h.get_by_label_contains("The file has changed since this report");
    // The sweep field's example comes from the file's own states, not another game's.
    let hint = h.state().report.sweep_hint().to_string();
    assert!(hint.starts_with("c.") && !hint.contains("体力"), "{hint}");
    let state = hint[2..].split('=').next().unwrap().to_string();
    assert!(h.state().text().contains(&state), "{hint}");
}

#[test]
fn a_sweep_is_plotted_and_esc_cancels_a_long_report_at_once() {
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    open_example(&mut h, "ex1_push.kmt");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num4);
    h.run();
    h.state_mut().report.games = 10;
    h.state_mut().report.sweep = "c.後ろ余裕度=9..11".into();
    h.get_by_label("Run report").click();
    step_until(&mut h, "the report", |a| !a.report.busy());
    let sw = h
        .state()
        .report
        .report
        .clone()
        .unwrap()
        .sweep
        .expect("the sweep ran");
    assert_eq!(sw.points.len(), 3);
    h.get_by_label("Sweep c.後ろ余裕度");
    h.get_by_label_contains("Fair (interval contains 50%)");

    // A bad sweep says what is wrong and runs nothing.
    h.state_mut().report.sweep = "c.後ろ余裕=9..11".into();
    h.get_by_label("Run report").click();
    h.run();
    assert!(!h.state().report.busy());
    h.get_by_label_contains("did you mean 後ろ余裕度");

    // Karate's CPU games are slow: Esc stops the report in the frame it is pressed.
    open_example(&mut h, "karate.kmt");
    h.state_mut().report.sweep.clear();
    h.state_mut().report.games = 200;
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num4);
    h.run();
    h.get_by_label("Run report").click();
    // The event waited on: the running report's progress bar is shown (no sleep: 200 karate
    // games a seating cannot end in the frames this takes).
    let t0 = Instant::now();
    h.step();
    while h.query_by_label_contains("games ·").is_none() {
        assert!(
            h.state().report.busy(),
            "the report ended before it showed progress"
        );
        assert!(t0.elapsed() < Duration::from_secs(120), "no progress shown");
        h.step();
    }
    assert!(h.state().report.busy());
    h.key_press(Key::Escape);
    h.step();
    assert!(
        !h.state().report.busy(),
        "Esc ends the report in the same frame"
    );
    h.get_by_label("Run report");
    h.get_by_label_contains("Cancelled");
}

/// Frame times while a report runs (prints them; no timing assertion).
#[test]
#[ignore = "measurement: cargo test --release --test suite gui_report:: -- --ignored --nocapture"]
fn frame_times_while_a_report_runs() {
    let mut h = harness(StudioApp::new_for_test(Lang::En, ""));
    open_example(&mut h, "sumo.kmt");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num4);
    h.run();
    h.get_by_label("Run report").click();
    let t0 = Instant::now();
    let mut frames = step_until(&mut h, "the report", |a| !a.report.busy());
    let total = t0.elapsed();
    frames.sort();
    let q = |p: f64| frames[((frames.len() - 1) as f64 * p) as usize];
    eprintln!(
        "sumo report in the studio (100 games per seating): {:.1} s, {} frames: median {:?}, p99 {:?}, max {:?}",
        total.as_secs_f64(),
        frames.len(),
        q(0.5),
        q(0.99),
        frames.last().unwrap()
    );
}

#[test]
fn right_clicking_a_starting_value_offers_to_sweep_it() {
    let text = "!:h.後ろ余裕度=10,c.後ろ余裕度=10\n:[押す]\n[押す]:O.後ろ余裕度-1\nO.後ろ余裕度<=0,[押す]:S.勝利\n";
    let mut h = harness(StudioApp::new_for_test(Lang::En, text));
    step_until(&mut h, "the checker", |a| a.is_checked());
    h.state_mut().report.games = 10;
    // Past the end of line 1: the cursor lands after its last value, c.後ろ余裕度=10.
    let r = h.get_by_label("Rule editor").rect();
    let at = egui::pos2(r.left() + 450.0, r.top() + 8.0);
    right_click(&mut h, at);
    h.get_by_label("Sweep this value (c.後ろ余裕度=7..13)")
        .click();
    h.step();
    assert!(h.state().report.busy(), "the report starts");
    assert_eq!(h.state().report.sweep, "c.後ろ余裕度=7..13");
    step_until(&mut h, "the report", |a| !a.report.busy());
    // Again, and Esc stops it even with the editor focused (the right-click was in it).
    h.state_mut().report.games = 100_000;
    right_click(&mut h, at);
    h.get_by_label("Sweep this value (c.後ろ余裕度=7..13)")
        .click();
    h.step();
    assert!(h.state().report.busy());
    h.key_press(Key::Escape);
    h.step();
    assert!(!h.state().report.busy(), "Esc cancels");
    h.state_mut().report.games = 10;
    // Let the frame after Esc settle before clicking (the editor gives up its focus).
    h.step();
    h.step();
    h.get_by_label("Run report").click();
    step_until(&mut h, "the report", |a| !a.report.busy());
    let sw = h.state().report.report.clone().unwrap().sweep.unwrap();
    assert_eq!(
        sw.points.iter().map(|p| p.value).collect::<Vec<_>>(),
        [7, 8, 9, 10, 11, 12, 13]
    );
    // A pure race with h moving first: h wins while c's margin is at most h's (10).
    let rate = |v: i64| {
        sw.points
            .iter()
            .find(|p| p.value == v)
            .unwrap()
            .h_win_rate
            .expect("a score")
    };
    assert_eq!(
        (rate(9), rate(10), rate(11), rate(12)),
        (1.0, 1.0, 0.0, 0.0)
    );
}

#[test]
fn suggest_fixes_finds_the_planted_start_charge_and_apply_is_one_undo_step() {
    // CC Lemon with h starting on one charge (worth +0.474 for h).
    let text = kumite::gui::files::example("cc_lemon.kmt")
        .unwrap()
        .replace(
            "\n!:[チャージ],[ガード]\n",
            "\n!:[チャージ],[ガード]\n!:h.チャージ=1\n",
        );
    let mut h = harness(StudioApp::new_for_test(Lang::En, &text));
    step_until(&mut h, "the checker", |a| a.is_checked());
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num4);
    h.run();
    h.get_by_label("Suggest fixes").click();
    h.step();
    assert!(h.state().report.suggesting());
    step_until(&mut h, "the suggestions", |a| !a.report.suggesting());
    let s = h.state().report.suggestions.clone().expect("suggestions");
    assert!(!s.suggestions.is_empty(), "{s:?}");
    assert_eq!(s.suggestions[0].edits[0].after_line, "!:h.チャージ=0");
    h.get_by_label_contains("Now: game value for h +0.4739");
    // Apply the first: the editor's text changes by exactly that number.
    h.get_all_by_label("Apply")
        .next()
        .expect("an Apply button")
        .click();
    step_until(&mut h, "the checker", |a| a.is_checked());
    assert_eq!(
        h.state().text(),
        text.replace("!:h.チャージ=1", "!:h.チャージ=0")
    );
    h.get_by_label("Applied.");
    // The edited text is measured again, before and after side by side: the same as the
    // suggestion's evidence.
    step_until(&mut h, "the measurement again", |a| a.report.remeasured());
    h.step();
    // Each column's text left-aligned at its own width (a justified column stretched it to the
    // column's width, spacing the letters).
    for head in [
        "Before (the file)",
        "After (measured again on the editor's text)",
    ] {
        let r = h.get_by_label(head).rect();
        let font = egui::TextStyle::Body.resolve(&h.ctx.global_style());
        let natural = h.ctx.fonts_mut(|f| {
            f.layout_no_wrap(head.to_owned(), font.clone(), egui::Color32::WHITE)
                .size()
                .x
        });
        assert!(r.width() <= natural + 1.0, "{head}: {r:?} for {natural}");
    }
    // The suggestion's own "→ …" line and the grid's after cell.
    assert_eq!(
        h.get_all_by_label_contains("game value for h +0.0000")
            .count(),
        2
    );
    h.get_by_label("The same as the suggestion's evidence.");
    // One Ctrl+Z in the editor (clicked into first, which moves its cursor) brings the planted
    // file back, and the card no longer says it is applied.
    h.get_by_label("Rule editor").click();
    h.run();
    h.key_press(Key::ArrowDown);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    step_until(&mut h, "the checker", |a| a.is_checked());
    assert_eq!(h.state().text(), text);
    h.run();
    assert!(h.query_by_label("Applied.").is_none());
    assert!(h.query_by_label("Before (the file)").is_none());
    assert!(h.get_all_by_label("Apply").count() > 0);
    // Redo applies it again (Edit → Undo, the menu's way, is the same step).
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    step_until(&mut h, "the checker", |a| a.is_checked());
    assert_eq!(
        h.state().text(),
        text.replace("!:h.チャージ=1", "!:h.チャージ=0")
    );
    h.get_by_label("Edit").click();
    h.step();
    h.step();
    h.get_by_label_contains("Undo Ctrl").click();
    step_until(&mut h, "the checker", |a| a.is_checked());
    assert_eq!(h.state().text(), text);
}

#[test]
fn the_goals_menu_sets_what_suggest_fixes_searches_for() {
    // The dice race is fair as written (+0.0061, 8.1 turns on average); asked for games of at
    // most 7.5 turns through the Goals menu, Suggest fixes finds a shorter, still fair race.
    let text =
        std::fs::read_to_string(crate::common::root().join("tests/designs/dice_race.kmt")).unwrap();
    let mut h = harness(StudioApp::new_for_test(Lang::En, &text));
    step_until(&mut h, "the checker", |a| a.is_checked());
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num4);
    h.run();
    h.get_by_label("Goals").click();
    h.run();
    h.get_by_role_and_label(
        egui::accesskit::Role::CheckBox,
        "Games last at most (turns on average)",
    )
    .click();
    h.run();
    assert_eq!(h.state().report.goals.max_turns, Some(30.0));
    // The turns field, now enabled, is labelled by its checkbox.
    h.get_by_label("Games last at most (turns on average)")
        .set_value_accesskit(7.5);
    h.run();
    assert_eq!(h.state().report.goals.max_turns, Some(7.5));
    // Unticked and ticked again, the limit is still 7.5 (it was reset to 30).
    let tick = |h: &mut Harness<'static, StudioApp>| {
        h.get_by_role_and_label(
            egui::accesskit::Role::CheckBox,
            "Games last at most (turns on average)",
        )
        .click();
        h.run();
    };
    tick(&mut h);
    assert_eq!(h.state().report.goals.max_turns, None);
    tick(&mut h);
    assert_eq!(h.state().report.goals.max_turns, Some(7.5));
    // Balance is set in points, the report's unit: 5 points is a game value within ± 0.05.
    h.get_by_label("Even within ±").set_value_accesskit(4.0);
    h.run();
    assert!((h.state().report.goals.max_abs_value - 0.04).abs() < 1e-9);
    h.get_by_label("Even within ±").set_value_accesskit(5.0);
    h.run();
    h.key_press(Key::Escape);
    h.run();
    h.get_by_label("Suggest fixes").click();
    h.step();
    step_until(&mut h, "the suggestions", |a| !a.report.suggesting());
    let s = h.state().report.suggestions.clone().expect("suggestions");
    assert!(!s.already_met, "{s:?}");
    assert!(
        s.goals.iter().any(|g| g.contains("7.5 turns")),
        "{:?}",
        s.goals
    );
    assert!(!s.suggestions.is_empty(), "{s:?}");
    for sg in &s.suggestions {
        assert!(sg.after.turns.is_some_and(|t| t <= 7.5), "{sg:?}");
    }
    h.get_by_label_contains("games last at most 7.5 turns");
}

/// The balance meter: after an edit that compiles, a reading in the status bar (sampled, with
/// how many games and how many different), a new one after the next edit, and a history that
/// grows with the edits. Each edit's run is cancelled by the next.
#[test]
fn the_balance_meter_follows_the_edits() {
    let mut app = StudioApp::new_for_test(Lang::En, "");
    app.balance.on = true;
    let mut h = harness(app);
    open_example(&mut h, "sumo.kmt");
    step_until(&mut h, "a first reading", |a| {
        !a.balance.busy() && !a.balance.history.is_empty()
    });
    h.get_by_label_contains("sampled: 60 games");
    let first = h.state().balance.history.last().cloned().unwrap();
    assert_eq!(first.games, 60);
    assert!(first.distinct >= 1 && first.distinct <= 60);
    // Two quick edits: the first's run is cancelled, the second's reading is added.
    h.get_by_label("Rule editor").focus();
    h.run();
    h.get_by_label("Rule editor").type_text("\n# a");
    step_until(&mut h, "the checker", |a| a.is_checked());
    h.get_by_label("Rule editor")
        .type_text("\n[押す]:O.後ろ余裕度-1");
    step_until(&mut h, "the checker", |a| a.is_checked());
    step_until(&mut h, "a second reading", |a| {
        !a.balance.busy() && a.balance.history.len() >= 2
    });
    let last = h.state().balance.history.last().cloned().unwrap();
    assert_ne!(last, first, "a push twice as strong moved the balance");
    assert!(h.state().balance.history.len() <= 3);
}

/// Compare with… → The saved version: an edit that gives h 4 more hp shows, side by side with
/// the saved file, as a higher score for h whose interval leaves out 0 — the numbers of
/// `kumite report EDITED --against SAVED`.
#[test]
fn compare_with_the_saved_version_shows_what_an_edit_changed() {
    let boxing = std::fs::read_to_string(crate::common::root().join("tests/designs/boxing.kmt"))
        .expect("boxing");
    // The design file with its hp start value on a last line of its own, to edit at the end.
    let saved = boxing
        .replace("!:hp=10,stamina=6", "!:c.hp=10,stamina=6")
        .trim_end()
        .to_string()
        + "\n!:h.hp=10";
    let mut h = harness(StudioApp::new_for_test(Lang::En, &saved));
    step_until(&mut h, "the checker", |a| a.is_checked());
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num4);
    h.run();
    h.state_mut().report.games = 40;
    h.get_by_label("Rule editor").focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::End);
    h.key_press(Key::Backspace);
    h.key_press(Key::Backspace);
    h.get_by_label("Rule editor").type_text("14");
    step_until(&mut h, "the checker", |a| a.is_checked());
    assert!(
        h.state().text().ends_with("!:h.hp=14"),
        "{}",
        h.state().text()
    );
    h.get_by_label("Compare with…").click();
    h.run();
    h.get_by_label("The saved version").click();
    h.step();
    assert!(h.state().report.busy());
    step_until(&mut h, "the comparison", |a| !a.report.busy());
    assert_eq!(h.state().report.error, None);
    let c = h.state().report.comparison.clone().expect("a comparison");
    let row = c
        .differences
        .iter()
        .find(|d| d.what == kumite::report::compare::Measure::HScore)
        .expect("h's score");
    assert_eq!(row.differs, Some(true), "{row:?}");
    assert!(row.low.expect("an interval") > 0.0, "{row:?}");
    // The report below is the editor's (A), and the two are the command line's.
    assert_eq!(h.state().report.report.as_ref(), Some(&c.a));
    h.get_by_label_contains("Comparison — A:");
    assert!(h.query_all_by_label_contains("DIFFERS").count() >= 1);
    let dir = std::env::temp_dir().join(format!("kumite-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let (a, b) = (dir.join("a.kmt"), dir.join("b.kmt"));
    std::fs::write(&a, h.state().text()).expect("a");
    std::fs::write(&b, &saved).expect("b");
    let (code, out, err) = crate::common::kumite(&[
        "report",
        &a.to_string_lossy(),
        "--against",
        &b.to_string_lossy(),
        "--games",
        "40",
        // h's score is the outcome section's, played on the same seeds whichever sections
        // run: the other sections' games are left out.
        "--sections",
        "outcome",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).expect("json");
    let cli = j["differences"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|d| d["measure"] == "h's score")
        .expect("row")
        .clone();
    assert_eq!(cli["a"].as_f64(), row.a);
    assert_eq!(cli["b"].as_f64(), row.b);
}
