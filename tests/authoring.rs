//! Authoring help against what it must not break: renaming a state used on 1,000 lines gives
//! the same game under the new name; formatting every bundled and generated file keeps its
//! meaning and is idempotent; completion and hover answer on every name of a 10,000-line file.
//! The ignored test measures the studio's and the language server's answers on 10,000 lines.

mod common;

use kumite::authoring::{complete, fmt, hover};
use kumite::pipeline::{Compiled, compile};
use kumite::symbols;
use std::time::Instant;

/// The rules of a compiled text as text, one per line (what the game is, without positions).
fn meaning(c: &Compiled) -> Vec<String> {
    let p = c.program.as_ref().expect("compiles");
    let mut v: Vec<String> = (0..p.rules.len())
        .map(|i| format!("{} : {}", p.cond_text(i), p.effect_text(i)))
        .collect();
    v.push(format!("{:?} {:?}", p.init_values, p.init_enabled));
    v.push(format!("{:?}", p.settings));
    v
}

#[test]
fn renaming_a_state_used_on_1000_lines_gives_the_same_game() {
    let text = common::generated(10_000);
    let before = compile(&text);
    let uses = before.symbols.uses(symbols::SymKind::State, "体力");
    let lines: std::collections::BTreeSet<usize> = uses.iter().map(|o| o.line).collect();
    assert!(lines.len() >= 1000, "{} lines", lines.len());
    let at = uses[uses.len() / 2].span.start;
    let plan = before.symbols.rename(at, "ヒットポイント").expect("rename");
    assert_eq!(plan.edits.len(), uses.len());
    let out = symbols::apply_edits(&text, &plan.edits);
    let after = compile(&out);
    assert_eq!(after.error_count(), 0);
    let want: Vec<String> = meaning(&before)
        .iter()
        .map(|l| l.replace("体力", "ヒットポイント"))
        .collect();
    assert_eq!(meaning(&after), want);
    assert!(
        after
            .symbols
            .uses(symbols::SymKind::State, "体力")
            .is_empty()
    );
}

#[test]
fn formatting_keeps_the_meaning_and_is_idempotent() {
    let mut texts: Vec<String> = common::kmt_files("rules")
        .iter()
        .map(common::read)
        .collect();
    texts.push(common::generated(2_000));
    // Spaced-out versions of each, full-width ones too.
    let spaced: Vec<String> = texts
        .iter()
        .map(|t| {
            t.replace(':', " : ")
                .replace(',', " , ")
                .replace("<=", " <= ")
                .replace('+', " + ")
        })
        .collect();
    let wide: Vec<String> = texts.iter().map(|t| common::to_fullwidth(t)).collect();
    for t in texts.iter().chain(&spaced).chain(&wide) {
        let f = fmt::format(t);
        assert_eq!(fmt::format(&f), f, "not idempotent");
        let (a, b) = (compile(t), compile(&f));
        assert_eq!(a.error_count(), b.error_count());
        if a.program.is_some() {
            assert_eq!(meaning(&a), meaning(&b));
        }
    }
}

#[test]
fn every_name_of_a_big_file_has_a_hover_card_and_completes() {
    let text = common::generated(10_000);
    let c = compile(&text);
    let p = c.program.as_ref().expect("compiles");
    let g = kumite::analysis::VictoryGraph::build(p);
    for (k, n) in c.symbols.symbols() {
        let o = c.symbols.definition(k, &n).expect("a definition");
        let written: String = text[o.span.clone()]
            .chars()
            .map(kumite::syntax::lexer::norm)
            .collect();
        assert_eq!(written, n.as_ref());
        let h = hover::hover(&c.symbols, o.span.start, Some(p), Some(&g), false).expect("card");
        assert!(h.title.contains(n.as_ref()), "{} / {n}", h.title);
    }
    // Completion after `[` at the end lists every command.
    let t = format!("{text}[");
    let items = complete::complete(&t, t.len(), &c.symbols, false).items;
    for cmd in ["殴る", "蹴る", "守る"] {
        assert!(items.iter().any(|i| i.label == cmd), "{cmd}");
    }
}

/// Timings on 10,000 lines (run in release: `cargo test --release --test authoring --
/// --ignored --nocapture`). A measurement, not a check.
#[test]
#[ignore]
fn measure_answers_on_10k_lines() {
    let text = common::generated(10_000);
    let t0 = Instant::now();
    let c = compile(&text);
    let full = t0.elapsed();
    let mut times = Vec::new();
    for i in 0..200 {
        let at = text.len() * i / 200;
        let t = Instant::now();
        let _ = complete::complete(&text, at, &c.symbols, false);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "check {:.1} ms; completion at 200 places: median {:.3} ms, max {:.3} ms",
        full.as_secs_f64() * 1e3,
        times[100],
        times[199]
    );
    let at = c.symbols.uses(symbols::SymKind::State, "体力")[0]
        .span
        .start;
    let t = Instant::now();
    let plan = c.symbols.rename(at, "HP").expect("rename");
    let out = symbols::apply_edits(&text, &plan.edits);
    println!(
        "rename 体力 ({} places): {:.2} ms",
        plan.edits.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    assert!(out.len() < text.len());
    let t = Instant::now();
    let f = fmt::format(&text);
    println!("fmt: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    assert!(!f.is_empty());
}
