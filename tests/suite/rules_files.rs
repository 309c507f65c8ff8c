//! Properties of the bundled example files: they check clean, their expansion round-trips, and
//! their full-width copies mean exactly the same.

use crate::common;
use kumite::pipeline::{compile, expanded_kmt};

#[test]
fn every_example_has_no_errors_and_explains_itself() {
    let files = common::kmt_files("rules");
    assert!(files.len() >= 8);
    for f in files {
        let text = common::read(&f);
        assert!(
            text.starts_with('#'),
            "{} must start with comments explaining the game",
            f.display()
        );
        let c = compile(&text);
        let errors: Vec<_> = c
            .diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("{} {}", d.code, d.message))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", f.display());
        assert!(c.program.is_some());
    }
}

#[test]
fn expanded_output_compiles_to_the_same_program() {
    for f in common::kmt_files("rules") {
        let text = common::read(&f);
        let c = compile(&text);
        let p = c.program.as_ref().expect("compiles");
        let out = expanded_kmt(&c, "x");
        let c2 = compile(&out);
        let p2 = c2.program.as_ref().unwrap_or_else(|| {
            panic!(
                "{}: expanded output has errors: {:?}\n{out}",
                f.display(),
                c2.diags
            )
        });
        assert!(
            p.same_behaviour(p2),
            "{}: expanded program differs\n{out}",
            f.display()
        );
        assert!(
            c2.expanded()
                .rules
                .iter()
                .all(|r| r.origin.macros.is_empty() && !r.origin.mirrored)
        );
        // Expanding again changes nothing but the origin comments.
        let strip = |s: &str| {
            s.lines()
                .skip(1)
                .map(|l| l.split("  #").next().unwrap_or("").to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&out), strip(&expanded_kmt(&c2, "x")));
    }
}

#[test]
fn fullwidth_copies_expand_to_exactly_the_same() {
    for f in common::kmt_files("rules") {
        let text = common::read(&f);
        let wide = common::to_fullwidth(&text);
        assert_ne!(text, wide);
        let a = compile(&text);
        let b = compile(&wide);
        assert_eq!(a.error_count(), 0);
        assert_eq!(b.error_count(), 0, "{}: {:?}", f.display(), b.diags);
        assert_eq!(
            expanded_kmt(&a, "x"),
            expanded_kmt(&b, "x"),
            "{}",
            f.display()
        );
        assert!(
            a.program
                .as_ref()
                .expect("ok")
                .same_behaviour(b.program.as_ref().expect("ok"))
        );
    }
}

#[test]
fn patent_examples_expand_as_the_spec_says() {
    let c = compile(&common::read(&common::root().join("rules/ex5_macro.kmt")));
    let p = c.program.as_ref().expect("ok");
    let texts: Vec<String> = (0..p.rules.len()).map(|i| p.rule_text(i)).collect();
    assert_eq!(
        texts,
        ["S.体力>0:[はたく],[殴る]", "S.体力>0:[はたく],[蹴る]"]
    );
    // The macro table the studio's Macros grid shows.
    assert_eq!(
        p.macros,
        [(
            "攻撃".to_string(),
            vec!["殴る".to_string(), "蹴る".to_string()]
        )]
    );
    let c = compile(&common::read(
        &common::root().join("rules/ex4_grips_symmetric.kmt"),
    ));
    let p = c.program.as_ref().expect("ok");
    let i = (0..p.rules.len())
        .position(|i| p.rule_text(i) == "[左マワシ取る]:S.左マワシ取った,!O.右マワシ取った")
        .expect("source rule");
    assert_eq!(
        p.rule_text(i + 1),
        "[右マワシ取る]:S.右マワシ取った,!O.左マワシ取った"
    );
    assert!(p.meta[i + 1].origin.mirrored);
    assert_eq!(p.meta[i + 1].origin.line, p.meta[i].origin.line);
}
