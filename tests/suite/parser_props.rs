//! Property tests: no rule text makes the pipeline panic, and every diagnostic's span lies inside
//! the text on one line.

use crate::common;
use kumite::pipeline::{compile, expanded_kmt};
use proptest::prelude::*;

fn alphabet() -> impl Strategy<Value = char> {
    prop_oneof![
        prop::sample::select(vec![
            '!', ':', '\'', '~', '@', '%', '&', '$', '#', '{', '}', '[', ']', '(', ')', ',', '.',
            '=', '<', '>', '+', '-', '*', '/', ';', '"', '|', '?', ' ', '\t', '\n', '\r', 'S', 'O',
            'h', 'c', 'x', '0', '1', '9', '_', 'ー', '左', '右', '押', 'す', '勝', '利',
            '\u{3000}', 'Ｓ', '．', '＜', '＝', '０', '：', '［', '］', '｛', '｝', '！', '〜',
            '−', '‘', '’', '“', '”', '・',
        ]),
        any::<char>(),
    ]
}

fn check_spans(text: &str) {
    let c = compile(text);
    for d in &c.diags {
        assert!(
            d.span.start <= d.span.end && d.span.end <= text.len(),
            "{d:?} outside text of {} bytes",
            text.len()
        );
        assert!(
            text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end),
            "{d:?} splits a character"
        );
        assert!(!text[d.span.clone()].contains('\n'), "{d:?} crosses a line");
        for (s, _) in &d.labels {
            assert!(
                s.end <= text.len()
                    && text.is_char_boundary(s.start)
                    && text.is_char_boundary(s.end)
            );
        }
    }
    if c.program.is_some() {
        let out = expanded_kmt(&c, "p");
        assert_eq!(
            compile(&out).error_count(),
            0,
            "expanded output of {text:?} has errors:\n{out}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(s in prop::collection::vec(alphabet(), 0..200)) {
        check_spans(&s.into_iter().collect::<String>());
    }

    #[test]
    fn mutated_examples_never_panic(file in 0usize..8, cuts in prop::collection::vec((0usize..4000, alphabet()), 1..8)) {
        let files = common::kmt_files("rules");
        let mut chars: Vec<char> = common::read(&files[file % files.len()]).chars().collect();
        for (pos, c) in cuts {
            let p = pos % (chars.len() + 1);
            if p < chars.len() && pos % 3 == 0 { chars[p] = c; } else if pos % 3 == 1 && p < chars.len() { chars.remove(p); } else { chars.insert(p, c); }
        }
        check_spans(&chars.into_iter().collect::<String>());
    }

    #[test]
    fn deep_and_long_lines_never_panic(depth in 0usize..400, len in 0usize..3000, open in any::<bool>()) {
        let mut s = String::from("S.x>");
        s.push_str(&"(".repeat(depth));
        s.push('1');
        s.push_str(&")".repeat(depth));
        s.push_str(":S.勝利\n");
        s.push_str(&"-".repeat(depth));
        s.push_str("\n:S.y+1");
        s.push_str(&"+1".repeat(len));
        s.push('\n');
        if open { s.push_str("&{\n%{\n${\n}\n}}\n"); }
        s.push_str(&"押".repeat(len));
        check_spans(&s);
    }
}

/// A generated valid rule file: random rules over a few states and commands, macros, constants,
/// symmetric and advantage blocks.
fn generated_file() -> impl Strategy<Value = String> {
    let state = prop::sample::select(vec![
        "S.左手", "O.左手", "S.右手", "O.体力", "S.体力", "h.気", "c.気",
    ]);
    let cmd = prop::sample::select(vec!["[左打]", "[右打]", "[待つ]", "[技]"]);
    let cond = prop_oneof![
        state.clone().prop_map(|s| s.to_string()),
        state.clone().prop_map(|s| format!("!{s}")),
        (state.clone(), 0i64..5).prop_map(|(s, n)| format!("{s}>={n}")),
        cmd.clone().prop_map(|c| c.to_string()),
        cmd.clone().prop_map(|c| format!("!O.{c}")),
    ];
    let effect = prop_oneof![
        state.clone().prop_map(|s| s.to_string()),
        (state.clone(), 1i64..4).prop_map(|(s, n)| format!("{s}-{n}")),
        (state.clone(), state.clone()).prop_map(|(s, t)| format!("{s}+=max(1,{t})*費用")),
        cmd.clone().prop_map(|c| format!("!{c}")),
        Just("O.[技]".to_string()),
    ];
    let rule = (
        prop::collection::vec(cond, 0..3),
        prop::collection::vec(effect, 1..3),
        0u32..3,
    )
        .prop_map(|(c, e, p)| {
            format!(
                "{}{}:{}",
                if p > 0 {
                    format!("@{}/", p + 1)
                } else {
                    String::new()
                },
                c.join(","),
                e.join(",")
            )
        });
    (prop::collection::vec(rule.clone(), 1..8), prop::collection::vec(rule, 0..4), any::<bool>()).prop_map(|(rs, sym, sim)| {
        let mut s = String::from("${\n[技]:[左打];[右打]\n費用:2\n}\n!:体力=5,[待つ],[左打],!h.[右打]\n':a=[左打],b=[右打]\n");
        if sim { s.push_str("~同時,S2\n"); }
        s.push_str(&rs.join("\n"));
        s.push_str("\n&{\n");
        s.push_str(&sym.join("\n"));
        s.push_str("\n}\n%0.5{\nS.左手:3\n}\nO.体力<=0:S.勝利\n");
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn generated_files_expand_to_the_same_program(text in generated_file()) {
        let c = compile(&text);
        let p = c.program.as_ref();
        prop_assert!(p.is_some(), "generated file has errors: {:?}\n{}", c.diags, text);
        let out = expanded_kmt(&c, "g");
        let c2 = compile(&out);
        prop_assert!(c2.program.as_ref().is_some_and(|p2| p.is_some_and(|p| p.same_behaviour(p2))), "differs:\n{}\n---\n{}", text, out);
    }
}
