//! The studio at its default window size (1360×860) with a designer's own 34-line game
//! (tests/designs/boxing.kmt): long rules are shown whole — wrapped inside the panel, never cut
//! at its edge or elided — in the victory tree, the graph, the expanded rules and the report.

use egui::{Key, Modifiers, Rect};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

/// A node's text: a label's name or value.
fn text_of(n: &egui_kittest::kittest::AccessKitNode<'_>) -> String {
    n.label().or_else(|| n.value()).unwrap_or_default()
}
use kumite::gui::StudioApp;
use kumite::gui::i18n::Lang;
use std::time::{Duration, Instant};

fn harness(app: StudioApp) -> Harness<'static, StudioApp> {
    Harness::builder()
        .with_max_steps(32)
        .with_size([1360.0, 860.0])
        .build_ui_state(|ui, app: &mut StudioApp| app.show(ui), app)
}

fn step_until(h: &mut Harness<'static, StudioApp>, what: &str, done: impl Fn(&StudioApp) -> bool) {
    let t0 = Instant::now();
    h.step();
    while !done(h.state()) {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(3));
        h.step();
    }
    for _ in 0..3 {
        h.step();
    }
}

fn boxing() -> Harness<'static, StudioApp> {
    let text = std::fs::read_to_string("tests/designs/boxing.kmt").unwrap();
    let mut h = harness(StudioApp::new_for_test(Lang::En, &text));
    step_until(&mut h, "the checker", |a| a.is_checked());
    h
}

/// Where the views' panel ends: the match panel's first button starts right of it.
fn panel_right(h: &Harness<'static, StudioApp>) -> f32 {
    h.get_by_label("New match").rect().left()
}

/// The monospace font's line height and `text`'s width drawn on one line.
fn mono(h: &Harness<'static, StudioApp>, text: &str) -> (f32, f32) {
    let font = egui::TextStyle::Monospace.resolve(&h.ctx.global_style());
    h.ctx.fonts_mut(|f| {
        (
            f.row_height(&font),
            f.layout_no_wrap(text.to_owned(), font.clone(), egui::Color32::WHITE)
                .size()
                .x,
        )
    })
}

/// The label shows all of `text`: its lines together are as long as the text on one line (an
/// elided label is one line shorter than the text).
fn shown_whole(h: &Harness<'static, StudioApp>, r: Rect, text: &str) -> bool {
    let (line_h, width) = mono(h, text);
    let lines = (r.height() / line_h).round().max(1.0);
    r.width() * lines + 0.5 >= width
}

#[test]
fn the_victory_tree_wraps_its_rows_inside_the_panel() {
    let mut h = boxing();
    h.get_by_label("Victory conditions").click();
    h.run();
    let right = panel_right(&h);
    let rows: Vec<(String, Rect)> = h
        .query_all_by(|n| {
            let l = text_of(n);
            l.starts_with("★ L") || l.starts_with("Lv")
        })
        .map(|n| (text_of(&n.accesskit_node()), n.rect()))
        .collect();
    assert!(rows.len() >= 6, "{rows:?}");
    for (l, r) in &rows {
        assert!(
            r.right() <= right,
            "{l:?} ends at {} past the panel's {right}",
            r.right()
        );
    }
    // The decisive rule's row is long enough that it must wrap to stay inside.
    let (label, r) = rows
        .iter()
        .find(|(l, _)| l.contains("[uppercut],!O.[guard],O.down>=2:S.勝利"))
        .unwrap();
    assert!(label.contains("counts on the opponent"), "{label}");
    assert!(shown_whole(&h, *r, label), "{label:?} {r:?}");
}

#[test]
fn a_graph_box_grows_to_show_a_long_rule() {
    let mut h = boxing();
    h.get_by_label("Victory conditions").click();
    h.run();
    h.get_by_label("Graph").click();
    h.run();
    let short = h.get_by_label_contains("S.down>=3:O.勝利 L33").rect();
    let long = h
        .get_by_label_contains("[uppercut],!O.[guard],O.down>=2:S.勝利 L34")
        .rect();
    // Same width, the long rule's box one line taller (it was cut at the box's edge).
    assert!((short.width() - long.width()).abs() < 0.5);
    assert!(long.height() > short.height() * 1.2, "{short:?} {long:?}");
}

#[test]
fn the_expanded_rules_table_wraps_a_long_rule_in_its_cell() {
    let mut h = boxing();
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num1);
    h.run();
    let right = panel_right(&h);
    // (The table draws only the rows in view: these are.)
    for text in ["S.down+=1,S.hp=10", "18 $[punch]=[uppercut]"] {
        let r = h.get_by_label(text).rect();
        assert!(shown_whole(&h, r, text), "{text:?} is cut: {r:?}");
        assert!(r.right() <= right, "{text:?} {r:?} {right}");
    }
}

#[test]
fn the_reports_words_and_rows_stay_inside_the_panel() {
    let mut h = boxing();
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num4);
    h.run();
    h.get_by_label("Run report").click();
    h.step();
    step_until(&mut h, "the report", |a| !a.report.busy());
    // In the command line's words: a proof that h has no forced win is not "not decided"; a
    // skill pairing that stopped early says so on its row.
    h.get_by_label_contains("no forced win for h (proved");
    assert!(h.query_by_label_contains("not decided").is_none());
    assert!(
        h.query_all_by_label_contains("Stopped after").count() > 0,
        "no pairing stopped early"
    );
    let right = panel_right(&h);
    let rule = "[uppercut],!O.[guard],O.down>=2:S.勝利";
    let r = h.get_by_label(rule).rect();
    assert!(r.right() <= right, "{r:?} past {right}");
    assert!(shown_whole(&h, r, rule), "{r:?}");
    // The skill rows' game counts and the restricted-play verdicts wrap inside too.
    let notes: Vec<Rect> = h
        .query_all_by(|n| {
            let l = text_of(n);
            l.starts_with("sampled ·") || l == "decisive" || l.starts_with("banning ")
        })
        .map(|n| n.rect())
        .collect();
    assert!(!notes.is_empty());
    for r in notes {
        assert!(r.right() <= right, "{r:?} past {right}");
    }
}

/// Starts a match (human h against the CPU) and waits for it to be h's turn.
fn new_match(h: &mut Harness<'static, StudioApp>) {
    h.key_press(Key::F5);
    step_until(h, "h's turn", |a| {
        a.matchp
            .session
            .as_ref()
            .is_some_and(|s| s.human_to_choose().is_some())
    });
}

#[test]
fn the_match_header_is_not_covered_by_the_tree_graph_switch() {
    let mut h = boxing();
    h.get_by_label("Victory conditions").click();
    h.run();
    new_match(&mut h);
    h.key_press(Key::J);
    step_until(&mut h, "the CPU's answer", |a| {
        a.matchp
            .session
            .as_ref()
            .is_some_and(|s| s.turns.len() >= 2 && s.human_to_choose().is_some())
    });
    let header = h.get_by_label_contains("(match, after turn 2)").rect();
    for switch in ["Tree", "Graph"] {
        let r = h.get_by_label(switch).rect();
        assert!(!r.intersects(header), "{switch} {r:?} covers {header:?}");
    }
}

/// A state is drawn as a number or as a flag by what its rules do, not by the values seen so
/// far: boxing's knockdowns stay a number at 1 (drawn as a flag "○" before), and hp keeps its
/// (empty) bar below 0 (it vanished).
#[test]
fn a_count_at_one_is_a_number_and_its_bar_stays_below_zero() {
    let mut h = boxing();
    new_match(&mut h);
    {
        let app = h.state_mut();
        let s = app.matchp.session.as_mut().unwrap();
        let p = s.prog();
        let ns = p.states.len();
        let down = p.states.iter().position(|n| n == "down").unwrap();
        let hp = p.states.iter().position(|n| n == "hp").unwrap();
        s.st.vals[down] = 1; // h has been down once
        s.st.vals[ns + hp] = -2; // c's hp below 0
    }
    h.run();
    assert!(h.query_by_label("○").is_none(), "a count drawn as a flag");
    h.get_by_label("  1");
    h.get_by_label(" -2");
    h.get_by_label("c hp -2 / 10");
    h.get_by_label("h hp 10 / 10");
}

/// A ticked exact CPU whose table cannot be built says it plays by search (it stayed
/// "exact — unbeatable").
#[test]
fn an_exact_cpu_without_a_table_says_it_plays_by_search() {
    // Ten counters that each move pushes: too many positions even within ±4 of the start.
    let mut text = String::from("':a=[m0],b=[m1]\n!:");
    text += &(0..10)
        .map(|i| format!("[m{i}]"))
        .collect::<Vec<_>>()
        .join(",");
    text += "\n!:";
    text += &(0..10)
        .map(|i| format!("v{i}=0"))
        .collect::<Vec<_>>()
        .join(",");
    text += "\n";
    for i in 0..10 {
        text += &format!("[m{i}]:S.v{i}+1,O.v{}-1\n", (i + 1) % 10);
    }
    text += "S.v0>=50:S.勝利\n";
    let mut app = StudioApp::new_for_test(Lang::En, &text);
    app.matchp.settings.cpu.exact = true;
    let mut h = harness(app);
    step_until(&mut h, "the checker", |a| a.is_checked());
    h.get_by_label("exact — unbeatable");
    new_match(&mut h);
    h.key_press(Key::A);
    step_until(&mut h, "the CPU's answer", |a| {
        a.matchp
            .session
            .as_ref()
            .is_some_and(|s| s.turns.len() >= 2 && s.thinking().is_none())
    });
    h.get_by_label("exact — not for this game (playing by search)");
    assert!(h.query_by_label("exact — unbeatable").is_none());
    h.get_by_label_contains("no exact table");
}

/// A command the side is better off never playing is named a trap in the studio's report (it
/// was "decisive", in the colour of a loss).
#[test]
fn the_report_names_a_trap_as_a_trap() {
    // The file's CPU (the studio's report players) errs half the time, so it plays [oops].
    let text = "~S2,E5\n!:hp=3,[hit],[oops]\n[hit]:O.hp-1\n[oops]:S.hp-2\nS.hp<=0:O.勝利\nO.hp<=0:S.勝利\n";
    let mut h = harness(StudioApp::new_for_test(Lang::En, text));
    step_until(&mut h, "the checker", |a| a.is_checked());
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num4);
    h.run();
    h.state_mut().report.games = 40;
    h.get_by_label("Run report").click();
    h.step();
    step_until(&mut h, "the report", |a| !a.report.busy());
    h.get_by_label_contains("banning oops raises h's score by");
    h.get_by_label_contains("banning oops raises c's score by");
    // h needs [hit]: decisive.
    assert!(h.query_all_by_label("decisive").count() >= 1);
}

/// The graph's first view (and Fit) keeps the boxes readable — at most a small step below full
/// size, the rest a drag away — instead of fitting the whole graph into the panel at a scale
/// where the boxes' text cannot be read.
#[test]
fn the_graph_fits_at_a_readable_scale() {
    let mut h = boxing();
    h.get_by_label("Victory conditions").click();
    h.run();
    h.get_by_label("Graph").click();
    h.run();
    h.get_by_label("Fit").click();
    h.run();
    // Full size is 1; readable means the boxes' 12-point text at 11 points or more.
    let scale = h.state().graph_scale().expect("the graph is shown");
    assert!(
        (11.0 / 12.0 - 1e-3..=1.0 + 1e-3).contains(&scale),
        "{scale}"
    );
}

/// The 33-line boxing match's win path: a win the guided search found, not proved shortest —
/// a long sentence. It wraps inside the panel; written on one line it widened the panel over
/// the editor.
#[test]
fn a_win_not_proved_shortest_is_said_inside_the_panel() {
    let full = std::fs::read_to_string("tests/designs/boxing.kmt").unwrap();
    let text: String = full.lines().take(33).map(|l| format!("{l}\n")).collect();
    let mut h = harness(StudioApp::new_for_test(Lang::En, &text));
    step_until(&mut h, "the checker", |a| a.is_checked());
    h.get_by_label("Win path").click();
    h.step();
    let tab_left = h.get_by_label("Expanded rules").rect().left();
    h.get_by_label("Find win path").click();
    step_until(&mut h, "the win path", |a| a.winpath_result().is_some());
    let head = h.get_by_label_contains("not proved shortest").rect();
    let right = panel_right(&h);
    assert!(
        head.right() <= right,
        "{head:?} past the panel's edge {right}"
    );
    let now = h.get_by_label("Expanded rules").rect().left();
    assert!(
        (now - tab_left).abs() < 1.0,
        "the panel moved: {tab_left} → {now}"
    );
    h.get_by_label("Replay in match");
}
