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
fn the_reports_rules_restrictions_and_skill_rows_stay_inside_the_panel() {
    let mut h = boxing();
    h.key_press_modifiers(Modifiers::COMMAND, Key::Num4);
    h.run();
    h.state_mut().report.games = 20;
    h.get_by_label("Run report").click();
    h.step();
    step_until(&mut h, "the report", |a| !a.report.busy());
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
