//! Grammar-aware fuzzing of the whole pipeline.
//!
//! Rule *text* is generated from the grammar of LANGUAGE.md (§2–§7, §9): every statement kind
//! (`!:` `':` `~` `@N/` rules with `:` and `::`, `%w{}` `&{}` `&左/右,上/下{` `${}` blocks with
//! command macros and constants), expressions with nested calls of every arity (wrong ones too),
//! deep parentheses, numbers past 64 bits, zero divisors in constants, long chains and cycles of
//! constants and macros; then it is disturbed: full-width and IME forms, CR / CRLF / U+2028 line
//! ends, NUL bytes, combining marks, emoji, unbalanced blocks, and random edits of the real files
//! in `rules/`.
//!
//! In process, every text goes through `compile`, the diagnostics (spans, JSON positions, the
//! ariadne rendering), `expanded_kmt`, the studio's checker and highlighter, and — when it
//! compiled — the expanded round trip, the victory graph and distances (`kumite tree`), the
//! compiled evaluation against the general one, a bounded solve (`kumite solve`) whose win path
//! must replay to h's win and whose forced win must be consistent, the searcher's chance
//! outcomes (a distribution; the engine's own turn without chance), a CPU move (taking a win at
//! once when there is one), engine turns on the fast, traced and reference engines (which must
//! agree), and a short match.
//! Out of process, generated files, non-UTF-8 files and odd player specs / `--set` values go
//! through the real binary with a timeout: exit statuses must be 0–3 (10–16 for an AI's
//! forfeit), never a panic (101), a signal or a hang.
//!
//! `cargo test --release --test fuzz_inputs` runs well over 10,000 generated cases.
//! `cargo test --release --test suite fuzz_inputs:: -- --ignored --nocapture` runs the campaign: a
//! million cases (`FUZZ_CASES=n` to change it, `FUZZ_SEED=n` for the seed) that keeps going past
//! failures, groups them by where they panic, shrinks one input per group and prints them all.

use crate::common;
use kumite::side::Side;

use kumite::analysis::{Evaluate, FastEval, VictoryGraph, distances, evaluate};
use kumite::cli::analyse;
use kumite::diag::{JsonDiagnostic, LineIndex, render_ariadne};
use kumite::engine::players::{MatchOptions, Player, RandomPlayer, play_match};
use kumite::engine::{Engine, State, TurnTrace};
use kumite::pipeline::{Compiled, compile, expanded_kmt};
use kumite::program::RuleProgram;
use kumite::search::solve::{
    ShortestWin, forced_win_in, shortest_win_in, strategy_text, value_iteration_in,
};
use kumite::search::{CpuPlayer, CpuSettings, Mover, Searcher, search_engine};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

// ───────────────────────────── vocabulary ─────────────────────────────

fn pick(xs: &'static [&'static str]) -> BoxedStrategy<String> {
    prop::sample::select(xs).prop_map(str::to_string).boxed()
}

const SIDES: &[&str] = &[
    "S.", "O.", "h.", "c.", "s.", "o.", "H.", "C.", "Ｓ．", "Ｏ．", "ｈ．", "Ｃ．",
];
const BAD_SIDES: &[&str] = &["", "x.", "S", "S..", ".", "S ."];
const STATES: &[&str] = &[
    "体力",
    "x",
    "y",
    "左手",
    "右手",
    "精神力",
    "left_grip",
    "right",
    "HP",
    "ー力",
    "a・b",
    "気",
    "チャージ",
    "勝利",
    "敗北",
    "win",
    "lose",
    "e\u{301}",
    "😀",
    "Ｘ",
    "_",
    "後ろ余裕度",
    "左右",
];
const CMDS: &[&str] = &[
    "押す",
    "左打",
    "右打",
    "待つ",
    "攻撃",
    "技",
    "M0",
    "left",
    "右左",
    "ガード",
    "x",
    "投げる",
    "左に構える",
    "ー",
    "😀",
];
const BAD_CMDS: &[&str] = &[
    "[]",
    "[押す",
    "押す]",
    "[[押す]]",
    "[ 押す ]",
    "[押 す]",
    "[1]",
    "[S.x]",
    "［押す］",
    "[勝利]",
    "[#]",
    "[\u{301}]",
];
const CONSTS: &[&str] = &["費用", "K0", "K1", "K2", "未定義", "最大", "費 用", "Ｋ０"];
const FUNCS: &[&str] = &[
    "min",
    "max",
    "abs",
    "rand",
    "MIN",
    "Rand",
    "ｍｉｎ",
    "foo",
    "min ",
    "abs\u{3000}",
];
const BIG_INTS: &[&str] = &[
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999999999",
    "4294967295",
    "4294967296",
    "2147483648",
    "0",
    "00",
    "007",
    "1000000",
    "１２",
    "0.5",
    "1e3",
];

fn int_lit() -> BoxedStrategy<String> {
    prop_oneof![
        8 => (0u32..12).prop_map(|n| n.to_string()),
        2 => pick(BIG_INTS),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => any::<i64>().prop_map(|n| n.to_string()),
    ]
    .boxed()
}

fn state_ref() -> BoxedStrategy<String> {
    prop_oneof![
        10 => (pick(SIDES), pick(STATES)).prop_map(|(s, n)| format!("{s}{n}")),
        1 => (pick(BAD_SIDES), pick(STATES)).prop_map(|(s, n)| format!("{s}{n}")),
        1 => (pick(SIDES), "[a-zA-Zぁ-ん0-9_ー]{0,6}").prop_map(|(s, n)| format!("{s}{n}")),
    ]
    .boxed()
}

fn cmd_atom() -> BoxedStrategy<String> {
    prop_oneof![
        10 => pick(CMDS).prop_map(|c| format!("[{c}]")),
        1 => pick(BAD_CMDS),
    ]
    .boxed()
}

/// An expression: literals, states, constants, calls of 0–3 arguments, operators, parentheses.
fn expr() -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        5 => int_lit(),
        5 => state_ref(),
        2 => pick(CONSTS),
        1 => int_lit().prop_map(|n| format!("ー{n}")),
        1 => int_lit().prop_map(|n| format!("−{n}")),
        1 => Just(String::new()),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            4 => (inner.clone(), pick(&["+", "-", "*", "/", "%", "**", "//", " + ", "ー", "−", "＊"]), inner.clone())
                .prop_map(|(a, o, b)| format!("{a}{o}{b}")),
            2 => inner.clone().prop_map(|a| format!("({a})")),
            1 => inner.clone().prop_map(|a| format!("-{a}")),
            1 => inner.clone().prop_map(|a| format!("--{a}")),
            4 => (pick(FUNCS), prop::collection::vec(inner.clone(), 0..=3))
                .prop_map(|(f, a)| format!("{f}({})", a.join(","))),
            1 => (pick(FUNCS), inner.clone()).prop_map(|(f, a)| format!("{f}({a}")),
            1 => (1usize..80, inner.clone())
                .prop_map(|(d, a)| format!("{}{a}{}", "(".repeat(d), ")".repeat(d))),
        ]
    })
    .boxed()
}

fn cmp_op() -> BoxedStrategy<String> {
    pick(&[
        "==", "=", "!=", "<", "<=", ">", ">=", "=<", "=>", "<>", "===", "＜＝", "! =", "< =",
    ])
}

fn cond() -> BoxedStrategy<String> {
    prop_oneof![
        3 => state_ref(),
        2 => state_ref().prop_map(|s| format!("!{s}")),
        6 => (expr(), cmp_op(), expr()).prop_map(|(a, o, b)| format!("{a}{o}{b}")),
        3 => cmd_atom(),
        2 => cmd_atom().prop_map(|c| format!("!{c}")),
        2 => cmd_atom().prop_map(|c| format!("O.{c}")),
        1 => cmd_atom().prop_map(|c| format!("!O.{c}")),
        1 => (pick(&["h.", "c.", "S.", "o."]), cmd_atom()).prop_map(|(s, c)| format!("{s}{c}")),
        1 => expr(),
    ]
    .boxed()
}

/// A factor/term for the short effect forms.
fn term() -> BoxedStrategy<String> {
    let factor = prop_oneof![
        3 => int_lit(),
        2 => state_ref(),
        1 => pick(CONSTS),
        2 => (pick(FUNCS), prop::collection::vec(expr(), 0..=3))
            .prop_map(|(f, a)| format!("{f}({})", a.join(","))),
    ];
    prop_oneof![
        3 => factor.clone(),
        1 => (factor.clone(), factor).prop_map(|(a, b)| format!("{a}*{b}")),
    ]
    .boxed()
}

fn effect() -> BoxedStrategy<String> {
    prop_oneof![
        2 => state_ref(),
        1 => state_ref().prop_map(|s| format!("!{s}")),
        4 => (state_ref(), pick(&["=", "+=", "-=", "*=", "/=", "%=", "＋＝", "=+", "=="]), expr())
            .prop_map(|(s, o, e)| format!("{s}{o}{e}")),
        4 => (state_ref(), pick(&["+", "-", "*", "/", "ー", "−"]), term())
            .prop_map(|(s, o, t)| format!("{s}{o}{t}")),
        1 => (state_ref(), term(), term()).prop_map(|(s, a, b)| format!("{s}-{a}-{b}")),
        2 => cmd_atom(),
        2 => cmd_atom().prop_map(|c| format!("!{c}")),
        1 => cmd_atom().prop_map(|c| format!("O.{c}")),
        1 => cmd_atom().prop_map(|c| format!("!O.{c}")),
        // The shapes that crashed before, and their neighbours.
        2 => pick(&[
            "S.x-min(1)", "O.体力-abs(S.y,5)", "S.x-rand(1)", "S.x+=min()", "S.x=max(1,2,3)",
            "S.x-rand(5,1)", "S.x-rand(0,9223372036854775807)", "S.x+=rand(-9223372036854775807-1,9223372036854775807)",
            "O.体力-=abs(-9223372036854775807-1)", "S.x=min(1)", "S.x*abs()", "S.x/max(1,2,3)",
            "S.x%=0", "S.x/0", "S.x-=1/0", "S.x=rand(1,1)", "S.x-rand()", "S.x-abs(,)", "S.x-min(,1)",
        ]),
    ]
    .boxed()
}

fn period() -> BoxedStrategy<String> {
    prop_oneof![
        6 => Just(String::new()),
        1 => Just("@".to_string()),
        3 => pick(&[
            "@1/", "@2/", "@3/", "@10/", "@0/", "@4294967295/", "@4294967296/",
            "@99999999999999999999/", "@/", "@-1/", "@3", "＠２／", "@2//", "@@2/", "@ 2 /",
        ]),
    ]
    .boxed()
}

fn rule() -> BoxedStrategy<String> {
    (
        period(),
        prop::collection::vec(cond(), 0..4),
        pick(&[":", ":", ":", "::", ":::", "：：", ": :", "："]),
        prop::collection::vec(effect(), 0..4),
    )
        .prop_map(|(p, c, s, e)| format!("{p}{}{s}{}", c.join(","), e.join(",")))
        .boxed()
}

fn init_line() -> BoxedStrategy<String> {
    let item = prop_oneof![
        4 => (pick(&["h.", "c.", "", "H.", "ｈ．", "S.", "O.", "x."]), pick(STATES), pick(&["", "-", "ー", "−", "--", "+"]), int_lit())
            .prop_map(|(s, n, m, v)| format!("{s}{n}={m}{v}")),
        2 => (pick(&["", "!", "h.", "!h.", "c.", "!c.", "S.", "!O."]), cmd_atom()).prop_map(|(p, c)| format!("{p}{c}")),
        1 => pick(&["", "x", "=5", "x=", "x==5", "x=S.y", "x=1+1", "[押す]=1", "h.", "!", "!:"]),
    ];
    prop::collection::vec(item, 0..6)
        .prop_map(|v| format!("!:{}", v.join(",")))
        .boxed()
}

fn key_line() -> BoxedStrategy<String> {
    let key = pick(&[
        "a",
        "A",
        "p",
        "Space",
        "Enter",
        "Tab",
        "Up",
        "Down",
        "Left",
        "Right",
        "space",
        "ab",
        "",
        "あ",
        "😀",
        ",",
        "=",
        " ",
        "\u{3000}",
        "Ａ",
        "e\u{301}",
        "#",
        "ＳＰＡＣＥ",
        "\t",
        "1",
    ]);
    let item = prop_oneof![
        5 => (key.clone(), cmd_atom()).prop_map(|(k, c)| format!("{k}={c}")),
        1 => pick(&["a=", "a", "=", "a=[押す]=[待つ]", "a==[押す]", "a=[攻撃]", "a=[未知]", "a=押す"]),
    ];
    prop::collection::vec(item, 0..5)
        .prop_map(|v| format!("':{}", v.join(",")))
        .boxed()
}

const SETTINGS: &[&str] = &[
    "同時",
    "simultaneous",
    "SIMULTANEOUS",
    "先手c",
    "先手h",
    "first=c",
    "first=h",
    "first=x",
    "先手",
    "P0",
    "P1",
    "P50",
    "P3600000",
    "P3600001",
    "S0",
    "S1",
    "S3",
    "S30",
    "S31",
    "S4294967297",
    "S-1",
    "D0",
    "D0.5",
    "D1",
    "D1.5",
    "D1000",
    "D1000.0001",
    "D1e309",
    "D.",
    "D1..2",
    "D",
    "D5.",
    "DNaN",
    "Dinf",
    "E0",
    "E10",
    "E11",
    "T0",
    "T1",
    "T3",
    "T1000000",
    "T1000001",
    "T99999999999999999999",
    "X",
    "",
    "Ｓ３",
    "Ｐ５０",
    "Ｔ１０",
    "同 時",
    "p50",
    "s3",
    "d2",
    "e1",
    "t5",
    "S3 ",
    "S 3",
    "D.5",
    " ",
    "同時同時",
    "先手Ｃ",
];

fn settings_line() -> BoxedStrategy<String> {
    prop::collection::vec(pick(SETTINGS), 0..5)
        .prop_map(|v| format!("~{}", v.join(",")))
        .boxed()
}

fn adv_block() -> BoxedStrategy<String> {
    let w = pick(&[
        "",
        "0.6",
        "1",
        "0",
        "-1",
        "1e9",
        "99999999999999999999",
        "0.",
        ".5",
        "abc",
        "1.2.3",
        " 2 ",
        "NaN",
        "inf",
        "1e309",
        "０．６",
    ]);
    let line = prop_oneof![
        3 => (prop::collection::vec(cond(), 0..3), expr()).prop_map(|(c, e)| format!("{}:{e}", c.join(","))),
        1 => cond().prop_map(|c| format!("{c}:")),
        1 => rule(),
    ];
    (w, prop::collection::vec(line, 0..4), any::<bool>())
        .prop_map(|(w, ls, same_line)| {
            if same_line && ls.len() == 1 {
                format!("%{w}{{{}}}", ls[0])
            } else {
                format!("%{w}{{\n{}\n}}", ls.join("\n"))
            }
        })
        .boxed()
}

fn mirror_block() -> BoxedStrategy<String> {
    let head = pick(&[
        "&{",
        "&{",
        "&左/右,上/下{",
        "&上/下{",
        "&a/b{",
        "&/{",
        "&左/{",
        "&/右{",
        "&左/右,左/右{",
        "&left/right{",
        "&左右/右左{",
        "&左/左{",
        "&,{",
        "&左/右,{",
        "&{{",
        "&左{",
        "& {",
        "&\u{3000}{",
        "&上/下,下/上{",
        "&左/右/上{",
    ]);
    let mirrored_rule = prop_oneof![
        2 => rule(),
        3 => pick(&[
            "[左打]:O.体力-1", "!S.左手::[左打]", "[左打],S.左構え:O.右手-1,!O.左手",
            "[left]:S.left_grip", "[上段蹴り],O.[上段受け]:O.[正拳突き]", "S.左右>0:S.右左+1",
            "[左打],[右打]:S.左手", "O.左手,S.体力>=3:[左打]",
        ]),
    ];
    (head, prop::collection::vec(mirrored_rule, 0..4))
        .prop_map(|(h, rs)| format!("{h}\n{}\n}}", rs.join("\n")))
        .boxed()
}

fn macro_def() -> BoxedStrategy<String> {
    let mname = pick(&["攻撃", "技", "M0", "M1", "左技", "押す", "費用"]);
    let alts = prop::collection::vec(pick(CMDS), 0..4);
    prop_oneof![
        4 => (mname.clone(), alts).prop_map(|(m, a)| format!("[{m}]:{}", a.iter().map(|c| format!("[{c}]")).collect::<Vec<_>>().join(";"))),
        3 => (pick(CONSTS), expr()).prop_map(|(k, e)| format!("{k}:{e}")),
        3 => pick(&[
            "費用:5", "[攻撃]:[殴る];[蹴る]", "[技]:[攻撃];[投げる]", "K0:K1+1", "K1:K0", "K0:1/0",
            "K1:5%0", "K2:9223372036854775807+1", "K0:-9223372036854775807-1", "K1:abs(-9223372036854775807-1)",
            "K2:min(1)", "K0:rand(1,2)", "K1:S.x", "K2:O.[押す]", "[M0]:[M0]", "[M0]:[M1]", "[M1]:[M0]",
            "[M0]:[A];;[B]", "[M0]:", "K0:", ":5", "[M0]:K0", "K0:[押す]", "[攻撃]:[攻撃];[蹴る]",
            "最大:max(1,2,3)", "最大:abs()", "K0:K0", "K0:費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用*費用",
        ]),
        1 => rule(),
    ]
    .boxed()
}

fn macro_block() -> BoxedStrategy<String> {
    prop::collection::vec(macro_def(), 0..6)
        .prop_map(|d| format!("${{\n{}\n}}", d.join("\n")))
        .boxed()
}

fn raw_char() -> BoxedStrategy<char> {
    prop_oneof![
        4 => prop::sample::select(vec![
            '!', ':', '\'', '~', '@', '%', '&', '$', '#', '{', '}', '[', ']', '(', ')', ',', '.',
            '=', '<', '>', '+', '-', '*', '/', ';', '"', '|', '?', ' ', '\t', '\n', '\r', 'S',
            'O', 'h', 'c', 'x', '0', '1', '9', '_', 'ー', '左', '右', '押', 'す', '勝', '利',
            '\u{3000}', 'Ｓ', '．', '＜', '＝', '０', '：', '［', '］', '｛', '｝', '！', '〜', '−',
            '‘', '’', '“', '”', '・', '\0', '\u{301}', '\u{3099}', '😀', '\u{FEFF}', '\u{200D}',
            '\u{2028}', '\u{85}', '\u{B}', '\u{C}', '\u{FFFD}', '\u{10FFFF}', 'İ', 'K', 'ﬃ',
        ]),
        1 => any::<char>(),
    ]
    .boxed()
}

fn raw_line() -> BoxedStrategy<String> {
    prop::collection::vec(raw_char(), 0..40)
        .prop_map(|v| v.into_iter().collect())
        .boxed()
}

fn statement() -> BoxedStrategy<String> {
    prop_oneof![
        12 => rule(),
        2 => init_line(),
        1 => key_line(),
        2 => settings_line(),
        1 => adv_block(),
        2 => mirror_block(),
        2 => macro_block(),
        1 => pick(&["# comment", "#", "", "   ", "\t", "}", "{", "${", "&{", "%{", "%0.6{S.x:1}", "${}", "&{}", "# }{"]),
        1 => raw_line(),
    ]
    .boxed()
}

/// Any file from the grammar, valid or not.
fn grammar_file() -> BoxedStrategy<String> {
    prop::collection::vec(statement(), 0..14)
        .prop_map(|v| v.join("\n"))
        .boxed()
}

// ─────────────────── files that mostly compile (to reach the engine) ───────────────────

const VSTATES: &[&str] = &["体力", "気", "左手", "右手", "x", "left_grip", "右構え"];
const VCMDS: &[&str] = &["押す", "左打", "右打", "待つ", "左構え", "投げる"];

fn vexpr() -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        4 => (0i64..6).prop_map(|n| n.to_string()),
        4 => (pick(&["S.", "O.", "h.", "c."]), pick(VSTATES)).prop_map(|(s, n)| format!("{s}{n}")),
        2 => pick(&["費用", "K"]),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            4 => (inner.clone(), pick(&["+", "-", "*", "/", "%"]), inner.clone()).prop_map(|(a, o, b)| format!("{a}{o}{b}")),
            1 => inner.clone().prop_map(|a| format!("({a})")),
            1 => inner.clone().prop_map(|a| format!("-{a}")),
            2 => (pick(&["min", "max", "rand"]), inner.clone(), inner.clone()).prop_map(|(f, a, b)| format!("{f}({a},{b})")),
            1 => inner.clone().prop_map(|a| format!("abs({a})")),
        ]
    })
    .boxed()
}

fn vcmd() -> BoxedStrategy<String> {
    prop_oneof![5 => pick(VCMDS).prop_map(|c| format!("[{c}]")), 1 => pick(&["[攻撃]", "[技]"])]
        .boxed()
}

fn vcond() -> BoxedStrategy<String> {
    prop_oneof![
        2 => (pick(&["S.", "O."]), pick(VSTATES)).prop_map(|(s, n)| format!("{s}{n}")),
        2 => (pick(&["S.", "O."]), pick(VSTATES)).prop_map(|(s, n)| format!("!{s}{n}")),
        4 => (vexpr(), pick(&["==", "=", "!=", "<", "<=", ">", ">="]), vexpr()).prop_map(|(a, o, b)| format!("{a}{o}{b}")),
        3 => vcmd(),
        1 => vcmd().prop_map(|c| format!("!{c}")),
        2 => vcmd().prop_map(|c| format!("O.{c}")),
        1 => vcmd().prop_map(|c| format!("!O.{c}")),
        // Sequences (combos) of the acting side and of the opponent.
        1 => (vcmd(), vcmd()).prop_map(|(a, b)| format!("{a},{b}")),
        1 => (vcmd(), vcmd()).prop_map(|(a, b)| format!("!{a},{b}")),
        1 => (vcmd(), vcmd(), vcmd()).prop_map(|(a, b, c)| format!("O.{a},!O.{b},O.{c}")),
        1 => (pick(&["h.", "c."]), pick(VSTATES), pick(&["<=", ">", "=="]), -2i64..4).prop_map(|(s, n, o, v)| format!("{s}{n}{o}{v}")),
    ]
    .boxed()
}

fn veffect(iff: bool) -> BoxedStrategy<String> {
    let boolean = prop_oneof![
        2 => (pick(&["S.", "O."]), pick(VSTATES)).prop_map(|(s, n)| format!("{s}{n}")),
        1 => (pick(&["S.", "O."]), pick(VSTATES)).prop_map(|(s, n)| format!("!{s}{n}")),
        3 => vcmd(),
        2 => vcmd().prop_map(|c| format!("!{c}")),
        1 => vcmd().prop_map(|c| format!("O.{c}")),
        1 => vcmd().prop_map(|c| format!("!O.{c}")),
        1 => pick(&["O.勝利", "S.敗北", "c.勝利", "h.敗北", "!O.勝利", "h.気", "!c.左手"]),
    ];
    if iff {
        return boolean.boxed();
    }
    prop_oneof![
        3 => boolean,
        3 => (pick(&["S.", "O."]), pick(VSTATES), pick(&["=", "+=", "-=", "*=", "/="]), vexpr())
            .prop_map(|(s, n, o, e)| format!("{s}{n}{o}{e}")),
        3 => (pick(&["S.", "O."]), pick(VSTATES), pick(&["+", "-", "*", "/"]), pick(&["1", "2", "費用", "rand(1,3)", "O.気", "max(1,S.x)"]))
            .prop_map(|(s, n, o, t)| format!("{s}{n}{o}{t}")),
    ]
    .boxed()
}

fn vrule() -> BoxedStrategy<String> {
    (
        any::<bool>(),
        pick(&["", "", "", "@", "@2/", "@3/", "@1/", "@4/"]),
    )
        .prop_flat_map(|(iff, p)| {
            (
                Just(p),
                prop::collection::vec(vcond(), if iff { 1..3 } else { 0..3 }),
                Just(if iff { "::" } else { ":" }),
                prop::collection::vec(veffect(iff), 1..3),
            )
        })
        .prop_map(|(p, c, s, e)| format!("{p}{}{s}{}", c.join(","), e.join(",")))
        .boxed()
}

const VICTORY: &[&str] = &[
    "O.体力<=0,[押す]:S.勝利",
    "S.体力<=-3:S.敗北",
    "h.x>=2:h.勝利",
    "[待つ],[待つ]:O.勝利",
    "@3/:S.勝利",
    "O.[押す],O.[押す]:S.勝利",
    "S.気>9223372036854775806:S.勝利",
    "O.体力<=0:S.勝利",
    "S.x>=3:S.勝利",
    "[押す],O.[待つ]:S.勝利",
    "S.気>=5:O.敗北",
    "@2/S.x>0:S.勝利",
    "S.左手,S.右手,[投げる]:S.勝利",
    "[左打],[右打]:S.勝利",
    "O.left_grip<0:S.勝利",
];

/// A file that compiles most of the time, so the engine, analysis and search get real work.
fn valid_file() -> BoxedStrategy<String> {
    let inits = prop::collection::vec(
        (
            pick(&[
                "体力", "気", "x", "h.体力", "c.気", "左手", "勝利", "c.敗北",
            ]),
            prop_oneof![8 => -3i64..8, 1 => Just(i64::MAX), 1 => Just(-i64::MAX)],
        ),
        0..4,
    );
    let settings = prop::option::of(pick(&[
        "~同時",
        "~T30",
        "~S2,T50",
        "~先手c",
        "~同時,T20",
        "~T1",
        "~E3,D2,P10",
        "~T3,先手c",
        "~T5,同時",
        "~S1",
        "~同時,先手c",
    ]));
    let mirrored = prop::collection::vec(
        pick(&[
            "[左打]:O.体力-1",
            "!S.左手::[左打]",
            "[左打]:S.左手,!O.右手",
            "[左構え]:S.左手",
            "S.左手>0:O.[右打]",
            "[左打],[右打]:S.left_grip",
            "S.left_grip,[右打]:O.right_grip-1",
            "[上段]:S.上",
            "[左打],O.[右打]:S.左手=O.右手+1",
        ]),
        0..3,
    );
    let extra = (
        any::<bool>(),
        prop_oneof![6 => Just(0u8), 1 => 1u8..4],
        pick(&["&{", "&{", "&左/右,上/下{", "&left/right{", "&上/下{"]),
    );
    (
        any::<bool>(),
        inits,
        prop::collection::vec(pick(VCMDS), 0..4),
        settings,
        prop::collection::vec(vrule(), 1..10),
        mirrored,
        prop::option::of(prop::collection::vec((vcond(), vexpr()), 1..3)),
        prop::collection::vec(pick(VICTORY), 1..3),
        extra,
    )
        .prop_map(|(macros, inits, enabled, settings, rules, mirrored, adv, wins, (keys, extreme, mirror_head))| {
            let mut s = String::new();
            s.push_str(match (macros, extreme) {
                (true, 0) => "${\n[攻撃]:[左打];[右打]\n[技]:[攻撃];[待つ]\n費用:2\nK:費用*2+1\n}\n",
                (false, 0) => "${\n費用:1\nK:3\n}\n",
                (_, 1) => "${\n[攻撃]:[左打];[右打]\n[技]:[攻撃];[待つ]\n費用:9223372036854775807\nK:-9223372036854775807-1\n}\n",
                (_, 2) => "${\n費用:-1\nK:-(費用)\n}\n",
                _ => "${\n[技]:[攻撃];[待つ]\n[攻撃]:[左打];[右打]\nK:費用-1\n費用:0\n}\n",
            });
            let mut seen = std::collections::HashSet::new();
            let mut items: Vec<String> = inits
                .into_iter()
                .filter(|(n, _)| seen.insert(n.trim_start_matches("h.").trim_start_matches("c.").to_string()))
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            let mut seen_c = std::collections::HashSet::new();
            items.extend(enabled.into_iter().filter(|c| seen_c.insert(c.clone())).map(|c| format!("[{c}]")));
            if !items.is_empty() {
                s.push_str(&format!("!:{}\n", items.join(",")));
            }
            if keys {
                s.push_str("':p=[押す],w=[待つ]\n");
            }
            if let Some(st) = settings {
                s.push_str(&st);
                s.push('\n');
            }
            s.push_str(":[押す]\n[押す]:O.体力-1\n");
            s.push_str(&rules.join("\n"));
            s.push('\n');
            if !mirrored.is_empty() {
                s.push_str(&format!("{mirror_head}\n{}\n}}\n", mirrored.join("\n")));
            }
            if let Some(a) = adv {
                let lines: Vec<String> = a.iter().map(|(c, e)| format!("{c}:{e}")).collect();
                s.push_str(&format!("%0.5{{\n{}\n}}\n", lines.join("\n")));
            }
            s.push_str(&wins.join("\n"));
            s.push('\n');
            s
        })
        .boxed()
}

// ───────────────────────────── disturbances ─────────────────────────────

/// One way to disturb a whole text.
#[derive(Clone, Debug)]
enum Disturb {
    /// ASCII syntax → full-width with this probability (per mille), spaces → U+3000.
    FullWidth(u32),
    /// IME habits: `-` → `ー` / `−`, `~` → `〜`, `'` → `’`, `"` → `“`.
    Ime(u32),
    /// Line ends: 0 CRLF, 1 CR, 2 LF CR, 3 U+2028, 4 U+0085, 5 mixed.
    LineEnds(u8),
    /// Insert special characters at positions.
    Insert(Vec<(usize, char)>),
    /// Random edits (insert / delete / replace characters).
    Edit(Vec<(usize, u8, char)>),
    /// Line-level edits: drop, duplicate, swap, truncate.
    Lines(Vec<(usize, usize, u8)>),
}

fn disturb() -> BoxedStrategy<Disturb> {
    let special = prop::sample::select(vec![
        '\0',
        '\u{301}',
        '\u{3099}',
        '😀',
        '\u{FEFF}',
        '\u{200B}',
        '\u{200D}',
        '\u{2028}',
        '\u{2029}',
        '\u{85}',
        '\r',
        '\t',
        '\u{B}',
        '\u{C}',
        '\u{FFFD}',
        '\u{10FFFF}',
        '👨',
        '\u{1F3FB}',
        'İ',
        'K',
        'ﬃ',
        '\u{202E}',
        '{',
        '}',
        '\n',
        '#',
        'ー',
        '\u{3000}',
    ]);
    prop_oneof![
        3 => prop_oneof![Just(1000u32), 0u32..1000].prop_map(Disturb::FullWidth),
        2 => (0u32..1000).prop_map(Disturb::Ime),
        2 => (0u8..6).prop_map(Disturb::LineEnds),
        3 => prop::collection::vec((any::<usize>(), special), 1..6).prop_map(Disturb::Insert),
        3 => prop::collection::vec((any::<usize>(), 0u8..3, raw_char()), 1..8).prop_map(Disturb::Edit),
        2 => prop::collection::vec((any::<usize>(), any::<usize>(), 0u8..4), 1..4).prop_map(Disturb::Lines),
    ]
    .boxed()
}

fn apply(text: &str, d: &Disturb) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let mut k = 0u64;
    let mut coin = |per_mille: u32| {
        k = kumite::engine::rng::mix(k.wrapping_add(0x9E37_79B9));
        (k % 1000) < per_mille as u64
    };
    match d {
        Disturb::FullWidth(p) => chars
            .into_iter()
            .map(|c| match c {
                '!'..='~' if coin(*p) => char::from_u32(c as u32 + 0xFEE0).unwrap_or(c),
                ' ' if coin(*p) => '\u{3000}',
                _ => c,
            })
            .collect(),
        Disturb::Ime(p) => {
            let mut out = String::new();
            for (i, &c) in chars.iter().enumerate() {
                let next_digit = chars.get(i + 1).is_some_and(|n| n.is_ascii_digit());
                out.push(match c {
                    '-' if next_digit && coin(*p) => 'ー',
                    '-' if coin(*p) => '−',
                    '~' if coin(*p) => '〜',
                    '\'' if coin(*p) => '’',
                    '"' if coin(*p) => '“',
                    c => c,
                });
            }
            out
        }
        Disturb::LineEnds(m) => {
            let mut out = String::new();
            for c in chars {
                if c == '\n' {
                    let m = if *m == 5 { (k % 5) as u8 } else { *m };
                    k = k.wrapping_add(7);
                    out.push_str(match m {
                        0 => "\r\n",
                        1 => "\r",
                        2 => "\n\r",
                        3 => "\u{2028}",
                        _ => "\u{85}",
                    });
                } else {
                    out.push(c);
                }
            }
            out
        }
        Disturb::Insert(v) => {
            for &(p, c) in v {
                let p = p % (chars.len() + 1);
                chars.insert(p, c);
            }
            chars.into_iter().collect()
        }
        Disturb::Edit(v) => {
            for &(p, op, c) in v {
                let p = p % (chars.len() + 1);
                match op {
                    0 => chars.insert(p, c),
                    1 if p < chars.len() => {
                        chars.remove(p);
                    }
                    _ if p < chars.len() => chars[p] = c,
                    _ => chars.push(c),
                }
            }
            chars.into_iter().collect()
        }
        Disturb::Lines(v) => {
            let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
            for &(a, b, op) in v {
                let n = lines.len();
                let (a, b) = (a % n, b % n);
                match op {
                    0 if n > 1 => {
                        lines.remove(a);
                    }
                    1 => {
                        let l = lines[a].clone();
                        lines.insert(b, l);
                    }
                    2 => lines.swap(a, b),
                    _ => {
                        let l = &mut lines[a];
                        let cut = l
                            .char_indices()
                            .nth(b % (l.chars().count() + 1))
                            .map_or(l.len(), |x| x.0);
                        l.truncate(cut);
                    }
                }
            }
            lines.join("\n")
        }
    }
}

fn real_files() -> &'static Vec<String> {
    static FILES: OnceLock<Vec<String>> = OnceLock::new();
    FILES.get_or_init(|| {
        common::kmt_files("rules")
            .iter()
            .map(common::read)
            .collect()
    })
}

/// A real rule file from `rules/`, disturbed one to three times, sometimes with generated lines
/// spliced in.
fn mutated_real_file() -> BoxedStrategy<String> {
    (
        0usize..64,
        prop::collection::vec(disturb(), 1..4),
        prop::option::of((any::<usize>(), statement())),
    )
        .prop_map(|(f, ds, splice)| {
            let files = real_files();
            let mut t = files[f % files.len()].clone();
            if let Some((at, st)) = splice {
                let mut lines: Vec<&str> = t.split('\n').collect();
                let at = at % (lines.len() + 1);
                lines.insert(at, &st);
                t = lines.join("\n");
            }
            for d in &ds {
                t = apply(&t, d);
            }
            t
        })
        .boxed()
}

/// Any text the fuzzer makes: grammar files, near-valid files, mutated real files, each maybe
/// disturbed.
fn any_text() -> BoxedStrategy<String> {
    prop_oneof![
        3 => (grammar_file(), prop::collection::vec(disturb(), 0..2)).prop_map(|(t, ds)| ds.iter().fold(t, |t, d| apply(&t, d))),
        4 => (valid_file(), prop::collection::vec(disturb(), 0..2)).prop_map(|(t, ds)| ds.iter().fold(t, |t, d| apply(&t, d))),
        3 => mutated_real_file(),
    ]
    .boxed()
}

// ───────────────────────────── chains ─────────────────────────────

/// Chains of constants or macros of length `n`, in some order, maybe closed into a cycle, maybe
/// fanning out (each macro two alternatives: 2^n instances).
fn chain_text(n: usize, kind: u8, order: u8, cycle: bool) -> String {
    let mut defs: Vec<String> = (0..n)
        .map(|i| match kind {
            0 => format!("K{i}:K{}+1", i + 1),
            1 => format!("[M{i}]:[M{}]", i + 1),
            2 => format!("[M{i}]:[M{}];[X{i}]", i + 1),
            3 => format!("[M{i}]:[M{}];[M{}]", i + 1, i + 1),
            _ => format!("K{i}:K{}*K{}", i + 1, i + 1),
        })
        .collect();
    let last = match kind {
        0 | 4 => format!("K{n}:{}", if cycle { "K0".into() } else { "2".to_string() }),
        _ => format!("[M{n}]:{}", if cycle { "[M0]" } else { "[押す]" }),
    };
    defs.push(last);
    match order {
        0 => {}
        1 => defs.reverse(),
        _ => {
            let mut k = n as u64;
            for i in (1..defs.len()).rev() {
                k = kumite::engine::rng::mix(k);
                defs.swap(i, (k % (i as u64 + 1)) as usize);
            }
        }
    }
    let use_line = match kind {
        0 | 4 => ":S.x+K0\nS.x>=3:S.勝利",
        _ => ":[M0]\n[M0]:S.勝利",
    };
    format!("${{\n{}\n}}\n{use_line}\n", defs.join("\n"))
}

// ───────────────────────────── the in-process run ─────────────────────────────

#[derive(Default, Debug, Clone)]
struct Tally {
    cases: u64,
    compiled: u64,
    diags: u64,
    turns: u64,
    solved: u64,
    runtime_errors: u64,
}

fn check_diags(text: &str, c: &Compiled) -> Result<(), String> {
    let index = LineIndex::new(text);
    for d in &c.diags {
        let spans = std::iter::once(&d.span).chain(d.labels.iter().map(|l| &l.0));
        for s in spans {
            if !(s.start <= s.end && s.end <= text.len()) {
                return Err(format!(
                    "span: {} {:?} outside the text of {} bytes: {d:?}",
                    d.code,
                    s,
                    text.len()
                ));
            }
            if !(text.is_char_boundary(s.start) && text.is_char_boundary(s.end)) {
                return Err(format!(
                    "span: {} {:?} splits a character: {d:?}",
                    d.code, s
                ));
            }
        }
        if text[d.span.clone()].contains('\n') {
            return Err(format!(
                "span: {} {:?} crosses a line end: {d:?}",
                d.code, d.span
            ));
        }
        let j = JsonDiagnostic::new(d, "x.kmt", text, &index);
        if j.line == 0 || j.column == 0 || (j.end_line, j.end_column) < (j.line, j.column) {
            return Err(format!("json position: {} {j:?}", d.code));
        }
    }
    // Render a few (ariadne is the slow part of `kumite check`).
    for d in c.diags.iter().take(6) {
        let _ = render_ariadne(d, "x.kmt", text, false);
    }
    Ok(())
}

/// The studio's highlighter on every line of `text`: the runs must cover each line in order
/// without gaps. It runs on a helper thread, so that a line on which it never returns is
/// reported (once; the thread is then left spinning, and later texts are only checked for
/// that line) instead of hanging the test.
fn highlight_guarded(text: &str) -> Result<(), String> {
    type Job = (String, std::sync::mpsc::Sender<Result<(), String>>);
    static WORKER: OnceLock<Mutex<std::sync::mpsc::Sender<Job>>> = OnceLock::new();
    static HUNG: Mutex<Option<String>> = Mutex::new(None);
    // One highlighting thread for all cases: serialise its use.
    static ONE: Mutex<()> = Mutex::new(());
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(line) = HUNG.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        return if text.split('\n').any(|l| l == line) {
            Err(format!("highlight: highlight_line({line:?}) never returns"))
        } else {
            Ok(())
        };
    }
    let tx = WORKER
        .get_or_init(|| {
            let (tx, rx) = std::sync::mpsc::channel::<Job>();
            std::thread::spawn(move || {
                for (text, back) in rx {
                    let mut r = Ok(());
                    for line in text.split('\n') {
                        *LINE.lock().unwrap_or_else(|e| e.into_inner()) = line.to_string();
                        let runs = kumite::syntax::highlight::highlight_line(line);
                        let mut at = 0;
                        for (g, _) in &runs {
                            if g.start != at || g.end <= g.start || !line.is_char_boundary(g.end) {
                                r = Err(format!(
                                    "highlight: runs {:?} of line {line:?} leave a gap or overlap",
                                    runs.iter().map(|r| r.0.clone()).collect::<Vec<_>>()
                                ));
                            }
                            at = g.end;
                        }
                        if r.is_ok() && at != line.len() && !runs.is_empty() {
                            r = Err(format!(
                                "highlight: runs end at {at}, line {line:?} has {} bytes",
                                line.len()
                            ));
                        }
                        if r.is_err() {
                            break;
                        }
                    }
                    let _ = back.send(r);
                }
            });
            Mutex::new(tx)
        })
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    static LINE: Mutex<String> = Mutex::new(String::new());
    let (back, result) = std::sync::mpsc::channel();
    if tx.send((text.to_string(), back)).is_err() {
        return Err("highlight: the worker died on an earlier case (see its panic above)".into());
    }
    // A hang, not a slow machine: a line highlights in microseconds; a minute is only reached
    // by a loop that never ends.
    match result.recv_timeout(Duration::from_secs(60)) {
        Ok(r) => r,
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            let line = LINE.lock().unwrap_or_else(|e| e.into_inner()).clone();
            Err(format!("highlight: highlight_line({line:?}) panicked"))
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            let line = LINE.lock().unwrap_or_else(|e| e.into_inner()).clone();
            *HUNG.lock().unwrap_or_else(|e| e.into_inner()) = Some(line.clone());
            Err(format!("highlight: highlight_line({line:?}) never returns"))
        }
    }
}

/// `FUZZ_SKIP=highlight,studio,…` steps past a stage with a known hang or crash, so that a
/// campaign can look for the others (stages: highlight, studio, roundtrip, fasteval, solve,
/// search, cpu, match; `bigvals` leaves positions with values past 2^31 out of the evaluation
/// comparison).
fn skip(stage: &str) -> bool {
    static SKIP: OnceLock<Vec<String>> = OnceLock::new();
    SKIP.get_or_init(|| {
        std::env::var("FUZZ_SKIP")
            .map(|s| s.split(',').map(|x| x.trim().to_string()).collect())
            .unwrap_or_default()
    })
    .iter()
    .any(|s| s == stage)
}

/// Replays a shortest-win path (no chance) on the engine: every move enabled, h wins at the end.
fn replay_path(
    prog: &RuleProgram,
    eng: &Engine,
    s0: &State,
    path: &[kumite::search::PathStep],
) -> Result<(), String> {
    let id = |n: &str| {
        if n == "pass" {
            Ok(None)
        } else {
            prog.command_id(n)
                .map(Some)
                .ok_or(format!("solve: the path names an unknown command {n}"))
        }
    };
    let mut st = s0.clone();
    for (i, step) in path.iter().enumerate() {
        let mut cmds = [None, None];
        match (step.side, &step.command) {
            (Mover::Both, Some(c)) => {
                let (a, b) = c.split_once('/').ok_or(format!("solve: step {i} {c}"))?;
                cmds = [id(a)?, id(b)?];
            }
            (Mover::H, c) => cmds[0] = c.as_deref().map(id).transpose()?.flatten(),
            (Mover::C, c) => cmds[1] = c.as_deref().map(id).transpose()?.flatten(),
            (s, c) => return Err(format!("solve: step {i} side {s:?} command {c:?}")),
        }
        for (s, c) in cmds.iter().enumerate() {
            if let Some(c) = c
                && (!eng.movers(&st).contains(&Side::from_index(s))
                    || !eng.is_enabled(&st, Side::from_index(s), *c))
            {
                return Err(format!(
                    "solve: step {} plays [{}] for side {s}, which cannot play it",
                    i + 1,
                    prog.commands[*c as usize]
                ));
            }
        }
        let before = st.clone();
        if let Err(e) = eng.play(&mut st, cmds, None) {
            // A rule error loses for the side whose move raised it: a path may end there when
            // that side is c, and the answer names the error.
            let loser = kumite::search::rule_error_loser(eng.simultaneous, &before, &e);
            if i + 1 == path.len() && loser == Side::C {
                return Ok(());
            }
            return Err(format!("solve: step {} fails on the engine: {e}", i + 1));
        }
        if i + 1 < path.len() && st.outcome.is_some() {
            return Err(format!(
                "solve: the game ends ({:?}) at step {} of a path of {}",
                st.outcome,
                i + 1,
                path.len()
            ));
        }
    }
    if st.outcome != Some(kumite::engine::Outcome::H) {
        return Err(format!(
            "solve: the path of {} plies ends in {:?}, not h's win",
            path.len(),
            st.outcome
        ));
    }
    Ok(())
}

/// A tiny deterministic stream for choosing moves.
struct Mix(u64);
impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = kumite::engine::rng::mix(self.0.wrapping_add(0x9E37_79B9_7F4A_7C15));
        self.0
    }
}

fn states_agree(a: &State, b: &State) -> bool {
    a.vals == b.vals
        && a.enabled == b.enabled
        && a.hist == b.hist
        && a.turn == b.turn
        && a.own_turns == b.own_turns
        && a.to_move == b.to_move
        && a.outcome == b.outcome
}

/// Runs one text through everything; `Err` is a property violation (a panic unwinds instead).
fn exercise(text: &str, seed: u64, tally: &mut Tally) -> Result<(), String> {
    tally.cases += 1;
    let c = compile(text);
    tally.diags += c.diags.len() as u64;
    check_diags(text, &c)?;
    let out = expanded_kmt(&c, "x");
    // The studio's checker and highlighter, on every few texts.
    #[cfg(feature = "studio")]
    if seed.is_multiple_of(4) && !skip("studio") {
        let _ = kumite::gui::worker::check(0, Arc::from(text));
    }
    if !skip("highlight") {
        highlight_guarded(text)?;
    }
    let Some(prog) = c.program.as_ref() else {
        return Ok(());
    };
    tally.compiled += 1;
    // The expanded file is a file that checks clean and behaves the same.
    if skip("roundtrip") {
        return analyse_and_play(prog, seed, tally);
    }
    let c2 = compile(&out);
    if c2.error_count() > 0 {
        return Err(format!(
            "expand-roundtrip: the expanded output has errors {:?}\n--- expanded ---\n{out}",
            c2.diags
                .iter()
                .filter(|d| d.is_error())
                .map(|d| (&d.code, &d.message))
                .collect::<Vec<_>>()
        ));
    }
    if !c2
        .program
        .as_ref()
        .is_some_and(|p2| prog.same_behaviour(p2))
    {
        return Err(format!(
            "expand-roundtrip: the expanded output behaves differently\n--- expanded ---\n{out}"
        ));
    }
    analyse_and_play(prog, seed, tally)
}

fn analyse_and_play(prog: &RuleProgram, seed: u64, tally: &mut Tally) -> Result<(), String> {
    let first = if seed.is_multiple_of(3) {
        usize::from(prog.settings.cpu_first)
    } else {
        (seed % 2) as usize
    };
    // `kumite tree`.
    let g = VictoryGraph::build(prog);
    let eng = Engine::new(prog, seed);
    let st0 = match eng.initial(Side::from_index(first)) {
        Ok(s) => s,
        Err(_) => {
            tally.runtime_errors += 1;
            return Ok(());
        }
    };
    let _ = analyse::tree_text(&g, &eng, &st0);
    let _ = analyse::tree_json(prog, &g, &eng, &st0);
    let _ = analyse::tree_dot(&g, &eng, &st0);
    // The compiled evaluation gives the general one's numbers (on the search's engine).
    let seng = search_engine(prog);
    let fast = FastEval::new(&g, &seng);
    let compare_eval = |st: &State, when: &str| -> Result<(), String> {
        // FUZZ_SKIP=bigvals: leave out positions with values past 2^31 (distances overflow there).
        if skip("bigvals") && st.vals.iter().any(|v| v.unsigned_abs() >= 1 << 31) {
            return Ok(());
        }
        for x in 0..2 {
            // The evaluation counts a distance at or past the turn limit as the limit (§10.5);
            // the tree shows it as it is.
            let d = distances(&g, &seng, st, Side::from_index(x))
                .to_win
                .min(prog.settings.turn_limit);
            let f = fast.to_win(&seng, st, Side::from_index(x));
            if d != f {
                return Err(format!(
                    "fast-eval: to_win for side {x} {when}: general {d}, compiled {f}"
                ));
            }
            let e = evaluate(&g, &seng, st, Side::from_index(x));
            let fe = fast.evaluate(&seng, st, Side::from_index(x));
            if !(e == fe || (e - fe).abs() <= 1e-6 * e.abs().max(1.0)) {
                return Err(format!(
                    "fast-eval: evaluate for side {x} {when}: general {e}, compiled {fe}"
                ));
            }
            let o = evaluate(&g, &seng, st, Side::from_index(1 - x));
            if (e + o).abs() > 1e-6 * e.abs().max(1.0) {
                return Err(format!(
                    "eval-antisymmetric: side {x} {e}, side {} {o} {when}",
                    1 - x
                ));
            }
        }
        Ok(())
    };
    if !skip("fasteval") {
        compare_eval(&st0, "at the start")?;
    }

    // Engine turns on the fast, traced and reference engines, which must agree.
    let slow = Engine::new(prog, seed).reference();
    let mut a = st0.clone();
    let mut b = match slow.initial(Side::from_index(first)) {
        Ok(s) => s,
        Err(e) => {
            return Err(format!(
                "engine-differential: the reference engine fails at the start ({e}) where the fast one does not"
            ));
        }
    };
    let mut t = st0.clone();
    let mut rng = Mix(seed ^ 0xABCD);
    let mut buf = Vec::new();
    let mut positions = vec![st0.clone()];
    for _ in 0..24 {
        if a.outcome.is_some() {
            break;
        }
        let mut cmds = [None, None];
        for &s in eng.movers(&a) {
            eng.enabled_commands(&a, s, &mut buf);
            let r = rng.next();
            cmds[s] = match r % 10 {
                0 => None,
                1 => Some((r >> 8) as u32 % (eng.nc as u32 + 1)), // maybe not enabled: a pass
                _ if buf.is_empty() => None,
                _ => Some(buf[(r >> 16) as usize % buf.len()]),
            };
        }
        let ra = eng.play(&mut a, cmds, None);
        let rb = slow.play(&mut b, cmds, None);
        let mut trace = TurnTrace::default();
        let rt = eng.play(&mut t, cmds, Some(&mut trace));
        tally.turns += 1;
        if ra.is_err() != rb.is_err() || ra.is_err() != rt.is_err() {
            return Err(format!(
                "engine-differential: turn {} cmds {cmds:?}: fast {ra:?}, reference {rb:?}, traced {rt:?}",
                a.turn
            ));
        }
        if ra.is_err() {
            tally.runtime_errors += 1;
            break;
        }
        if !states_agree(&a, &b) || !states_agree(&a, &t) {
            return Err(format!(
                "engine-differential: turn {} cmds {cmds:?}: fast {a:?}\nreference {b:?}\ntraced {t:?}",
                a.turn
            ));
        }
        let _ = kumite::cli::play::trace_text(&eng, &trace);
        positions.push(a.clone());
    }
    for (i, p) in positions
        .iter()
        .enumerate()
        .skip(1)
        .step_by(3)
        .filter(|_| !skip("fasteval"))
    {
        compare_eval(p, &format!("after {i} turns"))?;
    }

    // A bounded solve (`kumite solve`), on the search engine's start as the CLI does.
    if let Ok(s0) = seng.initial(Side::from_index(first))
        && !skip("solve")
    {
        let depth = 1 + (seed % 4) as u32;
        let chance = prog.rules.iter().any(|r| r.has_rand);
        let shortest = shortest_win_in(prog, &s0, depth, 300, None);
        let path = shortest.path();
        let d = depth.min(3);
        let f = forced_win_in(prog, &s0, d, 60, None);
        if let Some(s) = &f.strategy {
            let _ = strategy_text(s, 10, 20);
        }
        if !chance {
            // Without chance the path replays on the engine to h's win.
            if let Some(path) = path {
                replay_path(prog, &seng, &s0, path)?;
                if f.exists == Some(true) && f.min_plies.is_some_and(|m| (path.len() as u32) > m) {
                    return Err(format!(
                        "solve: the shortest win has {} plies, the forced win {:?}",
                        path.len(),
                        f.min_plies
                    ));
                }
            }
            if f.exists == Some(true) {
                if f.min_plies.is_none_or(|m| m > d) {
                    return Err(format!(
                        "solve: forced win within {d} plies, fastest {:?}",
                        f.min_plies
                    ));
                }
                // A forced win is a win: the shortest-win search cannot have proved there is
                // none within as many plies.
                let proved_none = match &shortest {
                    ShortestWin::NoneWithin { plies, .. } => Some(*plies),
                    ShortestWin::GaveUp { complete, .. } => Some(*complete),
                    ShortestWin::Found { .. } => None,
                };
                if let (Some(none), Some(m)) = (proved_none, f.min_plies)
                    && m <= none
                {
                    return Err(format!(
                        "solve: a forced win in {m} plies but the shortest-win search says none within {none} ({})",
                        shortest.summary()
                    ));
                }
                // A forced win within d is one within d + 1.
                let g2 = forced_win_in(prog, &s0, d + 1, 200, None);
                if g2.exists == Some(false) {
                    return Err(format!(
                        "solve: forced win within {d} plies but none within {}",
                        d + 1
                    ));
                }
                if let Some(m) = &f.first_move
                    && (s0.to_move == Side::H || seng.simultaneous)
                    && !(m == "pass"
                        || prog
                            .command_id(m)
                            .is_some_and(|c| seng.is_enabled(&s0, Side::H, c)))
                {
                    return Err(format!(
                        "solve: the forced win's first move {m} is not enabled for h"
                    ));
                }
            }
        }
        // The searcher's chance outcomes are a distribution; without chance, its one outcome
        // is the engine's turn.
        let mut sr = kumite::search::Searcher::new(prog, seed);
        let mut buf = Vec::new();
        for p in positions.iter().take(4).filter(|p| p.outcome.is_none()) {
            let mut moves: [Vec<Option<u32>>; 2] = [vec![None], vec![None]];
            for &s in seng.movers(p) {
                seng.enabled_commands(p, s, &mut buf);
                moves[s].extend(buf.iter().map(|&c| Some(c)));
            }
            for &a in moves[0].iter().take(3) {
                for &b in moves[1].iter().take(3) {
                    let kids = sr.outcomes(p, [a, b], 64);
                    let total: f64 = kids.iter().map(|k| k.1).sum();
                    if kids.is_empty()
                        || (total - 1.0).abs() > 1e-9
                        || kids.iter().any(|k| !(k.1 > 0.0 && k.1 <= 1.0 + 1e-12))
                    {
                        return Err(format!(
                            "outcomes: probabilities {:?} for moves {:?}",
                            kids.iter().map(|k| k.1).collect::<Vec<_>>(),
                            [a, b]
                        ));
                    }
                    if !chance {
                        let mut e = p.clone();
                        let r = seng.play(&mut e, [a, b], None);
                        let k = &kids[0].0;
                        let same = if let Err(err) = &r {
                            // A rule error is a loss for the side whose move raised it.
                            let loser = kumite::search::rule_error_loser(seng.simultaneous, p, err);
                            k.outcome
                                == Some(match loser {
                                    kumite::engine::Side::H => kumite::engine::Outcome::C,
                                    kumite::engine::Side::C => kumite::engine::Outcome::H,
                                })
                        } else {
                            states_agree(&e, k)
                        };
                        if kids.len() != 1 || !same {
                            return Err(format!(
                                "outcomes: the searcher's turn differs from the engine's for {:?}: {} outcomes, engine {r:?}",
                                [a, b],
                                kids.len()
                            ));
                        }
                    }
                }
            }
        }
        if seed % 8 == 1
            && let Ok(v) = analyse::solve(prog, Side::from_index(first), 1, false, None)
        {
            let _ = analyse::solve_text(&v);
            let _ = serde_json::to_string(&v);
        }
        if seng.simultaneous && seed % 4 == 2 {
            let cancel = Arc::new(AtomicBool::new(false));
            let _ = value_iteration_in(prog, &s0, 1, 40, Some(&cancel));
        }
        tally.solved += 1;
    }

    // A CPU that can win at once (alternate mode, no chance) does so (§11).
    if !skip("cpu") && !eng.simultaneous && !prog.rules.iter().any(|r| r.has_rand) {
        for p in positions.iter().take(6).filter(|p| p.outcome.is_none()) {
            let side = p.to_move;
            eng.enabled_commands(p, side, &mut buf);
            let wins = |m: u32| {
                let mut q = p.clone();
                let mut cmds = [None, None];
                cmds[side] = Some(m);
                eng.play(&mut q, cmds, None).is_ok()
                    && q.outcome
                        == Some(if side == Side::H {
                            kumite::engine::Outcome::H
                        } else {
                            kumite::engine::Outcome::C
                        })
            };
            if buf.iter().any(|&m| wins(m)) {
                let settings = CpuSettings {
                    depth: 1 + (seed % 2) as u32,
                    thin: 1.0,
                    mistakes: 0,
                    period_ms: 300,
                    exact: false,
                    matrix: false,
                    trained: false,
                    nodes: None,
                };
                let mut cpu = CpuPlayer::new(prog, settings, seed);
                match cpu.think(p, side) {
                    Some(m) if wins(m) => {}
                    m => {
                        return Err(format!(
                            "cpu: side {side} can win at once with {:?} but chose {:?}",
                            buf.iter()
                                .filter(|&&m| wins(m))
                                .map(|&m| &prog.commands[m as usize])
                                .collect::<Vec<_>>(),
                            m.map(|m| &prog.commands[m as usize])
                        ));
                    }
                }
                break;
            }
        }
    }

    // The CPU's pruned search (alpha-beta, table, move ordering, Star1/Star2 below chance) gives
    // plain expectiminimax's value inside a window and a bound on the right side outside it.
    if seed % 3 == 2 && !eng.simultaneous && !skip("search") {
        let p = &positions[(seed as usize / 3) % positions.len()];
        let depth = if eng.nc <= 6 { 2 } else { 1 };
        if p.outcome.is_none() {
            let v = Searcher::new(prog, seed).minimax(p, depth);
            for (lo, hi) in [
                (f64::NEG_INFINITY, f64::INFINITY),
                (v - 1e6, v + 1e6),
                (v + 1.0, v + 3e8),
                (v - 3e8, v - 1.0),
            ] {
                let r = Searcher::new(prog, seed).negamax(p, depth, lo, hi, true);
                let ok = if v <= lo {
                    r <= lo + 1e-6 && r >= v - 1e-6
                } else if v >= hi {
                    r >= hi - 1e-6 && r <= v + 1e-6
                } else {
                    (r - v).abs() < 1e-6
                };
                if !ok {
                    return Err(format!(
                        "search: depth {depth} window ({lo}, {hi}) gave {r}, expectiminimax {v}"
                    ));
                }
            }
        }
    }

    // A CPU move from a position of the playout.
    if seed % 3 == 1 && !skip("cpu") {
        let p = &positions[(seed as usize / 3) % positions.len()];
        if p.outcome.is_none() {
            let settings = CpuSettings {
                depth: 1 + (seed % 2) as u32,
                thin: if seed.is_multiple_of(5) { 2.0 } else { 1.0 },
                mistakes: (seed % 4) as u32,
                period_ms: 5,
                exact: false,
                matrix: false,
                trained: false,
                nodes: None,
            };
            let mut cpu = CpuPlayer::new(prog, settings, seed);
            let side = eng.movers(p)[0];
            let m = cpu.think(p, side);
            if let Some(m) = m
                && !eng.is_enabled(p, side, m)
            {
                return Err(format!(
                    "cpu: chose [{}], which is not enabled",
                    prog.commands[m as usize]
                ));
            }
        }
    }

    // A little learning (`kumite train`): two short self-play games, every result counted, the
    // weights finite, and the file it would write read back for these rules.
    if seed % 13 == 3 && !prog.settings.simultaneous && !skip("train") {
        let learned = kumite::search::trained::train_within(prog, 2, seed, Some(8));
        let r = learned.results.unwrap_or_default();
        if r.h_wins + r.c_wins + r.draws + r.errors != 2 || r.distinct == 0 || r.distinct > 2 {
            return Err(format!("train: results {r:?} for 2 games"));
        }
        if !learned.bias.is_finite() || learned.weights.iter().any(|w| !w.is_finite()) {
            return Err(format!("train: weights not finite: {:?}", learned.weights));
        }
        let json = serde_json::to_string(&learned).map_err(|e| format!("train: {e}"))?;
        if let Err(e) = kumite::search::trained::parse_for(&json, "x.trained.json", "x.kmt", prog) {
            return Err(format!("train: its own file refused: {e}"));
        }
    }

    // A short match with traces (`kumite match --h random --c random --max-turns …`).
    if seed.is_multiple_of(2) && !skip("match") {
        let mut h = RandomPlayer::new(seed);
        let mut cpl = RandomPlayer::new(seed ^ 1);
        let mut ps: [&mut dyn Player; 2] = [&mut h, &mut cpl];
        let opts = MatchOptions {
            seed,
            first: Side::from_index(first),
            trace: true,
            max_turns: Some(15),
            rules_name: "x.kmt".into(),
            game: 0,
            lean: false,
        };
        let r = play_match(prog, &mut ps, &opts, |_, _, _| {});
        let _ = serde_json::to_string(&r);
    }
    Ok(())
}

// ───────────────────────── panics as data, watchdog ─────────────────────────

thread_local! {
    static QUIET: RefCell<bool> = const { RefCell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that records the location and message of a panic on a thread
/// running a fuzz case quietly, and leaves every other panic to the default hook.
fn install_hook() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(|q| *q.borrow()) {
                let loc = info.location().map_or("?".into(), |l| {
                    format!("{}:{}:{}", l.file(), l.line(), l.column())
                });
                let msg = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("panic at {loc}: {msg}")));
            } else {
                default(info);
            }
        }));
    });
}

/// Runs one case, turning a panic into `Err("panic at FILE:LINE:COL: message")`.
fn run_quiet(text: &str, seed: u64, tally: &mut Tally) -> Result<(), String> {
    install_hook();
    QUIET.with(|q| *q.borrow_mut() = true);
    let r = catch_unwind(AssertUnwindSafe(|| exercise(text, seed, tally)));
    QUIET.with(|q| *q.borrow_mut() = false);
    match r {
        Ok(r) => r,
        Err(_) => Err(LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "panic".into())),
    }
}

/// The failure's kind: where it panicked, or which property failed.
fn signature(err: &str) -> String {
    if let Some(rest) = err.strip_prefix("panic at ") {
        rest.split(": ").next().unwrap_or(rest).to_string()
    } else {
        // The property and the shape of its message, numbers left out (codes such as E003 kept).
        let head: String = err.lines().next().unwrap_or(err).chars().take(70).collect();
        let mut out = String::new();
        let mut prev = ' ';
        for c in head.chars() {
            if !c.is_ascii_digit() || prev.is_ascii_alphanumeric() {
                out.push(c);
            }
            if !c.is_ascii_digit() || !prev.is_ascii_uppercase() {
                prev = c;
            }
        }
        out
    }
}

/// Cases in flight, for the watchdog: (start, input).
fn in_flight() -> &'static Mutex<BTreeMap<u64, (Instant, String)>> {
    static M: OnceLock<Mutex<BTreeMap<u64, (Instant, String)>>> = OnceLock::new();
    M.get_or_init(|| {
        std::thread::spawn(|| {
            loop {
                std::thread::sleep(Duration::from_millis(500));
                let m = in_flight().lock().unwrap_or_else(|e| e.into_inner());
                if let Some((_, (t0, text))) = m.iter().find(|(_, (t0, _))| t0.elapsed() > HANG) {
                    eprintln!(
                        "\nHANG: one case has run for {:.0} s; its input:\n{text:?}\n",
                        t0.elapsed().as_secs_f64()
                    );
                    std::process::abort();
                }
            }
        });
        Mutex::new(BTreeMap::new())
    })
}

/// A case running longer than this in process is a hang: the watchdog prints it and aborts
/// (generous, so that a loaded machine is never taken for a hang: cases take milliseconds).
const HANG: Duration = Duration::from_secs(120);

struct Flight(u64);
impl Flight {
    fn new(text: &str) -> Self {
        static ID: AtomicU64 = AtomicU64::new(0);
        let id = ID.fetch_add(1, Ordering::Relaxed);
        in_flight()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, (Instant::now(), text.to_string()));
        Flight(id)
    }
}
impl Drop for Flight {
    fn drop(&mut self) {
        in_flight()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.0);
    }
}

/// The proptest body: run, and fail with the whole story.
fn fuzz_case(text: &str, seed: u64) -> Result<(), TestCaseError> {
    let _f = Flight::new(text);
    let mut t = Tally::default();
    let t0 = Instant::now();
    let r = run_quiet(text, seed, &mut t);
    let el = t0.elapsed();
    if let Err(e) = r {
        return Err(TestCaseError::fail(format!(
            "{e}\n--- input ({} bytes, seed {seed}) ---\n{text:?}",
            text.len()
        )));
    }
    // Slowness is not a failure here (the machine may be loaded): the watchdog catches hangs,
    // and the long run (`--ignored`) reports the slowest cases.
    if el > Duration::from_secs(10) {
        eprintln!(
            "slow case: {:.1} s ({} bytes, seed {seed})",
            el.as_secs_f64(),
            text.len()
        );
    }
    Ok(())
}

// ───────────────────────────── the CI tests ─────────────────────────────

fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: 2000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cfg(8000))]
    #[test]
    fn grammar_files_never_panic(text in grammar_file(), seed in any::<u64>()) {
        fuzz_case(&text, seed)?;
    }
}

proptest! {
    #![proptest_config(cfg(8000))]
    #[test]
    fn near_valid_files_run_everywhere(text in valid_file(), ds in prop::collection::vec(disturb(), 0..2), seed in any::<u64>()) {
        let text = ds.iter().fold(text, |t, d| apply(&t, d));
        fuzz_case(&text, seed)?;
    }
}

/// Found by `near_valid_files_run_everywhere` (2026-12-05): advantage sums of 2^62 a side
/// made the evaluation lose a distance of 1,024 in one side's rounding only (0 for h, −1,024
/// for c). The score now takes the advantage difference first.
#[test]
fn huge_advantages_keep_the_evaluation_antisymmetric() {
    let text = "${\n[攻撃]:[左打];[右打]\n[技]:[攻撃];[待つ]\n費用:2\nK:費用*2+1\n}\n!:h.体力=9223372036854775807\n:[押す]\n[押す]:O.体力-1\n[待つ]:S.体力\n%0.5{\n![攻撃]:((h.体力))\n}\nO.体力<=0,[押す]:S.勝利\n";
    if let Err(e) = fuzz_case(text, 0) {
        panic!("{e}");
    }
}

proptest! {
    #![proptest_config(cfg(6000))]
    #[test]
    fn mutated_real_files_never_panic(text in mutated_real_file(), seed in any::<u64>()) {
        fuzz_case(&text, seed)?;
    }
}

proptest! {
    #![proptest_config(cfg(4000))]
    #[test]
    fn disturbed_grammar_files_never_panic(text in grammar_file(), ds in prop::collection::vec(disturb(), 1..4), seed in any::<u64>()) {
        let text = ds.iter().fold(text, |t, d| apply(&t, d));
        fuzz_case(&text, seed)?;
    }
}

proptest! {
    #![proptest_config(cfg(400))]
    /// Chains of constants and macros up to a few hundred links, cycles, fan-outs (2^n
    /// instances must stop at the 100,000-rule limit, fast). Longer chains are process tests.
    #[test]
    fn chains_and_cycles_never_panic(n in 0usize..300, kind in 0u8..5, order in 0u8..3, cycle in any::<bool>(), seed in any::<u64>()) {
        let text = chain_text(n, kind, order, cycle);
        // The watchdog (HANG) catches a loop; how long a case takes is not tested.
        fuzz_case(&text, seed)?;
    }
}

proptest! {
    #![proptest_config(cfg(3000))]
    /// `cpu:` specs and `--set` values, in process (the binary's parsing of the same strings).
    #[test]
    fn player_specs_and_sets_never_panic(spec in spec_string(), set in set_string(), f in 0usize..9) {
        let files = real_files();
        let prog = compile(&files[f % files.len()]).program.expect("the real files compile");
        let _f = Flight::new(&spec);
        install_hook();
        QUIET.with(|q| *q.borrow_mut() = true);
        let r = catch_unwind(AssertUnwindSafe(|| {
            if !spec.starts_with("ai:") && spec != "human" {
                let _ = kumite::players::make_player(&prog, &Default::default(), &spec, 1, Side::H, 1.0);
            }
            let _ = CpuSettings::parse(&prog, spec.strip_prefix("cpu:").unwrap_or(&spec));
            let mut p2 = prog.clone();
            if kumite::load::apply_sets(&mut p2, std::slice::from_ref(&set)).is_ok() {
                // The overridden start must still be playable.
                let eng = Engine::new(&p2, 0);
                if let Ok(mut st) = eng.initial(Side::H) {
                    let mut buf = Vec::new();
                    for _ in 0..4 {
                        let mut cmds = [None, None];
                        for &s in eng.movers(&st) {
                            eng.enabled_commands(&st, s, &mut buf);
                            cmds[s] = buf.first().copied();
                        }
                        if eng.play(&mut st, cmds, None).is_err() { break; }
                    }
                }
            }
        }));
        QUIET.with(|q| *q.borrow_mut() = false);
        if r.is_err() {
            let e = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default();
            prop_assert!(false, "{e}\nspec {spec:?} set {set:?}");
        }
    }
}

fn spec_string() -> BoxedStrategy<String> {
    let junk = prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(vec!['S', 'D', 'E', 'P', 's', 'd', 'e', 'p', 'X', ',', ':', '.', '-', '+', ' ', '0', '1', '5', '9', 'e', 'あ', 'Ｓ', '５', '，', '\u{301}', '😀', '\0', '\u{3000}', 'N', 'a', 'i', 'n', 'f']),
            1 => any::<char>(),
        ],
        0..12,
    )
    .prop_map(|v| v.into_iter().collect::<String>());
    prop_oneof![
        3 => pick(&[
            "cpu:あ5", "cpu:Ｓ５", "cpu:D1e309", "cpu:S999999999999", "", "cpu:,,,", "cpu", "cpu:",
            "cpu:S", "cpu:S0", "cpu:S31", "cpu:D0", "cpu:DNaN", "cpu:Dinf", "cpu:D-1", "cpu:E11",
            "cpu:P0", "cpu:P99999999999", "cpu:S1,P1", "cpu:s2", "cpu: S2 ", "cpu:é", "cpu:😀",
            "cpu:\u{301}", "random", "random ", "RANDOM", "cpu:S2,S3", "cpu:D1.5", "cpu:D0.999",
            "cpu:E-1", "cpu:E10", "cpu:S30,P1", "cpu:P-5", "cpu:,S2,", "cpucpu", "cpu::S2", "cpu:S2:",
            "cpu:ＳＳ", "cpu:Sあ", "cpu:Dー1",
        ]),
        3 => junk.clone().prop_map(|j| format!("cpu:{j}")),
        1 => junk,
    ]
    .boxed()
}

fn set_string() -> BoxedStrategy<String> {
    let name = pick(&[
        "h.体力",
        "c.体力",
        "体力",
        "h.後ろ余裕度",
        "後ろ余裕度",
        "H.スタミナ",
        "h.",
        ".x",
        "x",
        "h.x.y",
        "s.体力",
        "ｈ．体力",
        "勝利",
        "h.勝利",
        "c.敗北",
        "",
        " h.体力 ",
        "h. 体力",
        "チャージ",
        "HP",
    ]);
    let value = pick(&[
        "",
        "5",
        "-5",
        "99999999999999999999",
        "-9223372036854775808",
        "9223372036854775807",
        "+5",
        "0x10",
        "５",
        "5\u{3000}",
        " 5 ",
        "5=6",
        "1e3",
        "ー5",
        "−5",
        "0",
        "-1",
    ]);
    prop_oneof![
        6 => (name, value).prop_map(|(n, v)| format!("{n}={v}")),
        1 => pick(&["=5", "h.x=", "", "=", "==", "h.体力", "h.体力==5"]),
    ]
    .boxed()
}

#[test]
fn chosen_inputs_never_panic() {
    // Hand-picked shapes from the brief and from LANGUAGE.md's corners.
    let inputs = [
        "[押す]:O.体力-min(1)\nO.体力<=0:S.勝利",
        "[押す]:O.体力-abs(S.y,5)\nO.体力<=0:S.勝利",
        "[押す]:S.x-rand(1)\nS.x<0:S.勝利",
        "[押す]:S.x+=min(1)\n[押す]:S.x-=max()\n[押す]:S.x=abs(1,2,3)\n:[押す]\nS.x<0:S.勝利",
        "${\nK:1/0\n}\n:S.x+K\nS.x>0:S.勝利",
        "${\nK:5%0\nL:K+1\n}\n:S.x+L",
        "${\nK:min(1)\n}\n:S.x+K",
        "${\nK:rand(1,2)\n}\n:S.x+K",
        "${\nK:S.x\n}\n:S.y+K",
        "S.x>99999999999999999999999:S.勝利",
        "-\n9223372036854775808+0==費用*0:[右左],!s.Ｘ",
        "S.x>1-\n-9223372036854775808==0:S.勝利",
        "!:x=-9223372036854775808\n:[押す]\n[押す]:S.x-1\nS.x>0:S.勝利",
        "!:x=9223372036854775807\n:[押す]\n[押す]:S.x+1\nS.x<0:S.勝利",
        "!:x=-9223372036854775807\n:[押す]\n[押す]:S.x=abs(S.x-1)\nS.x<0:S.勝利",
        "!:[押す]\n[押す]:S.x+=rand(-9223372036854775807-1,9223372036854775807)\nS.x>0:S.勝利",
        "!:[押す]\n[押す]:S.x+=rand(5,1)\nS.x>0:S.勝利",
        "!:[押す]\n[押す]:S.x+=rand(S.y,S.y-1)\nS.x>0:S.勝利",
        "!:[押す]\n[押す],rand(1,9223372036854775807)<=5:S.勝利",
        "!:[押す]\n[押す],rand(-9223372036854775807-1,9223372036854775807)>=0:S.勝利",
        "~同時\n!:[押す]\n[押す],rand(-9223372036854775807-1,9223372036854775807)==0:S.勝利",
        "~T1\n!:[押す]\n[押す]:S.勝利",
        "~T1000000\n",
        "@4294967295/:S.x+1\nS.x>0:S.勝利",
        "@4294967296/:S.x+1",
        "&{\n[左打]:O.体力-1\n",
        "&{\n&{\n}\n}\n}",
        "${\n${\n}\n}",
        "%{\n%0.6{S.x:1}\n}",
        "%1e309{\nS.x:1\n}\nS.x>0:S.勝利",
        "%-1{\nS.x:9223372036854775807\n}\n:S.x+1\nS.x>0:S.勝利",
        "Ｓ．後ろ余裕度＜＝０：［押す］\n！：ｈ．後ろ余裕度＝１０",
        "S.精神力ー1:S.勝利\n:S.精神力ー1",
        "\u{FEFF}!:x=1\n:S.x+1\nS.x>3:S.勝利",
        "!:x=1\r\n:S.x+1\r\nS.x>3:S.勝利\r\n",
        "!:x=1\r:S.x+1\rS.x>3:S.勝利\r",
        "!:x=1\u{2028}:S.x+1\u{2028}S.x>3:S.勝利",
        "!:x=1\u{85}:S.x+1",
        "\0\0\0",
        "S.x\0>1:S.勝利",
        "S.e\u{301}>1:S.勝利\n!:e\u{301}=2",
        "[😀]:S.勝利\n:[😀]\n':😀=[😀]",
        "':e\u{301}=[押す]\n:[押す]",
        "':\u{3000}=[押す]\n:[押す]",
        "~\u{301}",
        "~S3,S3,T5,T5",
        "~同時,先手c",
        "!:h.[押す],!h.[押す]",
        "!:[押す],![押す]\n[押す]:S.勝利",
        "&左/右,上/下{\n[左上]:S.右下\n}",
        "&左/右,左/右{\n[左]:S.右\n}",
        "&左/{\n[左]:S.右\n}",
        "&/{\n[左]:S.右\n}",
        "&{\n[左打]:S.左\n}\n&{\n[左打]:S.左\n}",
        "${\n[攻撃]:[殴る];[蹴る]\n}\n':a=[攻撃]",
        "${\n[攻撃]:[殴る];[蹴る]\n}\n!:[攻撃]\n[攻撃]:O.[攻撃],![攻撃]",
        "${\n[A]:[B];[C];[D];[E];[F];[G];[H];[I];[J];[K]\n[B2]:[A]\n}\n[A],[A],[A],[A],[A]:S.x\n[A],O.[A]:S.勝利",
        "${\n[A]:[a0];[a1];[a2];[a3];[a4];[a5];[a6];[a7];[a8];[a9]\n[B]:[b0];[b1];[b2];[b3];[b4];[b5];[b6];[b7];[b8];[b9]\n[C]:[c0];[c1];[c2];[c3];[c4];[c5];[c6];[c7];[c8];[c9]\n[D]:[d0];[d1];[d2];[d3];[d4];[d5];[d6];[d7];[d8];[d9]\n[E]:[e0];[e1];[e2];[e3];[e4];[e5];[e6];[e7];[e8];[e9]\n[F]:[f0];[f1]\n}\n[A],[B],[C],[D],[E],[F]:S.勝利",
        "${\n[A]:[a0];[a1];[a2];[a3];[a4];[a5];[a6];[a7];[a8];[a9]\n[B]:[b0];[b1];[b2];[b3];[b4];[b5];[b6];[b7];[b8];[b9]\n[C]:[c0];[c1];[c2];[c3];[c4];[c5];[c6];[c7];[c8];[c9]\n[D]:[d0];[d1];[d2];[d3];[d4];[d5];[d6];[d7];[d8];[d9]\n}\n&{\n[A],[B],[C],[D],[左]:S.右\n}",
        "[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す],[押す]:S.勝利\n:[押す]",
        "O.[押す],O.[押す],O.[押す],O.[押す],O.[押す],O.[押す],O.[押す],O.[押す],![押す],[押す]:S.勝利\n:[押す]",
        // Found by this fuzzer:
        "${\nK:-9223372036854775807-1\n}\n:S.x+=K\nS.x<0:S.勝利",
        "!:h.体力=1,[打],[る],[つ]\n〜同時,T20\n:[押す]\n[押す]:O.体力ー1\nO.体力=0,[押す]:S.勝利",
        "${}\n!:体力=22354775807,手=7,利=5,[待]\n:[押す]\nO.[つ]:[右打]\n&{[左打]:O.体力-1}\n%{}\nO.体力=0,[押す]:S.勝利",
        "~1",
        // 130 victory-graph nodes: more than the compiled evaluation's 128-bit node sets.
        "S.a0,S.a1,S.a2,S.a3,S.a4,S.a5,S.a6,S.a7,S.a8,S.a9,S.a10,S.a11,S.a12,S.a13,S.a14,S.a15,S.a16,S.a17,S.a18,S.a19,S.a20,S.a21,S.a22,S.a23,S.a24,S.a25,S.a26,S.a27,S.a28,S.a29,S.a30,S.a31,S.a32,S.a33,S.a34,S.a35,S.a36,S.a37,S.a38,S.a39,S.a40,S.a41,S.a42,S.a43,S.a44,S.a45,S.a46,S.a47,S.a48,S.a49,S.a50,S.a51,S.a52,S.a53,S.a54,S.a55,S.a56,S.a57,S.a58,S.a59,S.a60,S.a61,S.a62,S.a63,S.a64,S.a65,S.a66,S.a67,S.a68,S.a69,S.a70,S.a71,S.a72,S.a73,S.a74,S.a75,S.a76,S.a77,S.a78,S.a79,S.a80,S.a81,S.a82,S.a83,S.a84,S.a85,S.a86,S.a87,S.a88,S.a89,S.a90,S.a91,S.a92,S.a93,S.a94,S.a95,S.a96,S.a97,S.a98,S.a99,S.a100,S.a101,S.a102,S.a103,S.a104,S.a105,S.a106,S.a107,S.a108,S.a109,S.a110,S.a111,S.a112,S.a113,S.a114,S.a115,S.a116,S.a117,S.a118,S.a119,S.a120,S.a121,S.a122,S.a123,S.a124,S.a125,S.a126,S.a127,S.a128,S.a129:S.勝利\n:[x]\n:[z]\n[x]:S.a0,S.a2,S.a4,S.a6,S.a8,S.a10,S.a12,S.a14,S.a16,S.a18,S.a20,S.a22,S.a24,S.a26,S.a28,S.a30,S.a32,S.a34,S.a36,S.a38,S.a40,S.a42,S.a44,S.a46,S.a48,S.a50,S.a52,S.a54,S.a56,S.a58,S.a60,S.a62,S.a64,S.a66,S.a68,S.a70,S.a72,S.a74,S.a76,S.a78,S.a80,S.a82,S.a84,S.a86,S.a88,S.a90,S.a92,S.a94,S.a96,S.a98,S.a100,S.a102,S.a104,S.a106,S.a108,S.a110,S.a112,S.a114,S.a116,S.a118,S.a120,S.a122,S.a124,S.a126,S.a128\n[z]:S.a1,S.a3,S.a5,S.a7,S.a9,S.a11,S.a13,S.a15,S.a17,S.a19,S.a21,S.a23,S.a25,S.a27,S.a29,S.a31,S.a33,S.a35,S.a37,S.a39,S.a41,S.a43,S.a45,S.a47,S.a49,S.a51,S.a53,S.a55,S.a57,S.a59,S.a61,S.a63,S.a65,S.a67,S.a69,S.a71,S.a73,S.a75,S.a77,S.a79,S.a81,S.a83,S.a85,S.a87,S.a89,S.a91,S.a93,S.a95,S.a97,S.a99,S.a101,S.a103,S.a105,S.a107,S.a109,S.a111,S.a113,S.a115,S.a117,S.a119,S.a121,S.a123,S.a125,S.a127,S.a129",
    ];
    let mut failures = Vec::new();
    for (i, t) in inputs.iter().enumerate() {
        for seed in 0..4u64 {
            let _f = Flight::new(t);
            if let Err(e) = run_quiet(t, seed, &mut Tally::default()) {
                failures.push(format!("input #{i} seed {seed}: {e}\n  {t:?}"));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} inputs fail:\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n")
    );
}

fn wide_range() -> BoxedStrategy<(i64, i64)> {
    let end = prop_oneof![
        2 => any::<i64>(),
        1 => Just(i64::MIN),
        1 => Just(i64::MAX),
        1 => Just(-i64::MAX),
        1 => -3i64..3,
    ];
    (end.clone(), end)
        .prop_map(|(a, b)| (a.min(b), a.max(b)))
        .boxed()
}

proptest! {
    #![proptest_config(cfg(2000))]
    /// Every way a `rand(lo,hi)` is drawn stays in [lo, hi]: the match's seeded draw, the
    /// search's unscripted draw (the midpoint) and a scripted draw of a turn.
    #[test]
    fn draws_stay_in_their_range((lo, hi) in wide_range(), seed in any::<u64>(), pick in any::<u64>()) {
        let v = kumite::engine::rng::draw(seed, 1, 0, 0, 0, lo, hi);
        prop_assert!(lo <= v && v <= hi, "rng::draw({lo},{hi}) = {v}");
        let prog = compile("!:[a]\n[a]:S.x=rand(S.lo,S.hi)\nS.x>5:S.勝利\n").program.expect("compiles");
        let eng = search_engine(&prog);
        let mid = catch_unwind(AssertUnwindSafe(|| eng.chance.as_ref().map(|f| f(1, Side::H, 0, 0, lo, hi))));
        match mid {
            Ok(Some(m)) => prop_assert!(lo <= m && m <= hi, "the search's draw of rand({lo},{hi}) is {m}, outside the range"),
            Ok(None) => {}
            Err(_) => prop_assert!(false, "the search's draw of rand({lo},{hi}) panics"),
        }
        let mut p2 = prog.clone();
        kumite::load::apply_sets(&mut p2, &[format!("lo={lo}"), format!("hi={hi}")]).expect("sets");
        let e2 = Engine::new(&p2, seed);
        let mut st = e2.initial(Side::H).expect("start");
        let mut script = kumite::engine::ChanceScript { picks: vec![pick], ..Default::default() };
        let r = catch_unwind(AssertUnwindSafe(|| e2.play_scripted(&mut st, [Some(0), None], &mut script)));
        prop_assert!(r.is_ok(), "a scripted draw of rand({lo},{hi}) with pick {pick} panics");
        let x = e2.val(&st, Side::H, p2.state_id("x").expect("x"));
        prop_assert!(lo <= x && x <= hi, "a scripted draw of rand({lo},{hi}) with pick {pick} gives {x}");
    }
}

#[test]
fn huge_gaps_are_far_not_near() {
    // 2^32 pushes away is unreachable (past the distances' cap of a million turns), not 0 turns
    // away.
    let mut bad = Vec::new();
    for v in [
        "4294967295",
        "4294967296",
        "9000000000",
        "9223372036854775807",
    ] {
        let text = format!("!:体力={v}\n:[押す]\n[押す]:O.体力-1\nO.体力<=0:S.勝利\n");
        let prog = compile(&text).program.expect("compiles");
        let g = VictoryGraph::build(&prog);
        let eng = Engine::new(&prog, 0);
        let st = eng.initial(Side::H).expect("start");
        let d = distances(&g, &eng, &st, Side::H).to_win;
        if d != kumite::analysis::UNREACHABLE {
            bad.push(format!("体力={v}: distance to winning {d}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

// ───────────────────────────── the campaign ─────────────────────────────

/// Shrinks `text` while it still fails with `sig`: lines first, then characters (ddmin-like).
fn minimise(text: &str, seed: u64, sig: &str, budget: Duration) -> String {
    let t0 = Instant::now();
    let fails = |t: &str| {
        let _f = Flight::new(t);
        run_quiet(t, seed, &mut Tally::default())
            .err()
            .is_some_and(|e| signature(&e) == sig)
    };
    let mut units: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    for level in 0..2 {
        if level == 1 {
            units = units.concat().chars().map(String::from).collect();
        }
        let mut chunk = (units.len() / 2).max(1);
        while chunk >= 1 && t0.elapsed() < budget {
            let mut i = 0;
            let mut progress = false;
            while i < units.len() && t0.elapsed() < budget {
                let mut trial = units.clone();
                trial.drain(i..(i + chunk).min(trial.len()));
                if fails(&trial.concat()) {
                    units = trial;
                    progress = true;
                } else {
                    i += chunk;
                }
            }
            if !progress {
                if chunk == 1 {
                    break;
                }
                chunk /= 2;
            }
        }
    }
    units.concat()
}

#[test]
#[ignore = "a million cases: run with --ignored --nocapture"]
fn campaign_million_cases() {
    let total: u64 = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "campaign: {total} cases, seed {seed} (FUZZ_SEED={seed} repeats it), {threads} threads"
    );
    let done = AtomicU64::new(0);
    // signature → (count, shortest input, its seed, full message)
    let found: Mutex<BTreeMap<String, (u64, String, u64, String)>> = Mutex::new(BTreeMap::new());
    let sum = Mutex::new(Tally::default());
    let slowest = Mutex::new((Duration::ZERO, String::new()));
    let t0 = Instant::now();
    std::thread::scope(|sc| {
        for w in 0..threads {
            let (done, found, sum, slowest) = (&done, &found, &sum, &slowest);
            std::thread::Builder::new()
                .stack_size(8 << 20)
                .spawn_scoped(sc, move || {
                    let mut bytes = [0u8; 32];
                    bytes[..8].copy_from_slice(&seed.to_le_bytes());
                    bytes[8..16].copy_from_slice(&(w as u64).to_le_bytes());
                    let mut runner = TestRunner::new_with_rng(
                        Config::default(),
                        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
                    );
                    let strat = (any_text(), any::<u64>());
                    let chains = (0usize..300, 0u8..5, 0u8..3, any::<bool>(), any::<u64>());
                    let mut tally = Tally::default();
                    loop {
                        let i = done.fetch_add(1, Ordering::Relaxed);
                        if i >= total {
                            break;
                        }
                        let (text, s) = if i % 500 == 7 {
                            let (n, k, o, c, s) =
                                chains.new_tree(&mut runner).expect("tree").current();
                            (chain_text(n, k, o, c), s)
                        } else {
                            strat.new_tree(&mut runner).expect("tree").current()
                        };
                        let _f = Flight::new(&text);
                        let c0 = Instant::now();
                        let mut r = run_quiet(&text, s, &mut tally);
                        let el = c0.elapsed();
                        if r.is_ok() && el > Duration::from_secs(5) {
                            r = Err(format!("slow: one case took {:.1} s", el.as_secs_f64()));
                        }
                        if el > slowest.lock().expect("lock").0 {
                            *slowest.lock().expect("lock") = (el, text.clone());
                        }
                        if let Err(e) = r {
                            let sig = signature(&e);
                            let mut f = found.lock().expect("lock");
                            let entry = f.entry(sig).or_insert((0, text.clone(), s, e.clone()));
                            entry.0 += 1;
                            if text.len() < entry.1.len() {
                                entry.1 = text.clone();
                                entry.2 = s;
                                entry.3 = e;
                            }
                        }
                        if i % 100_000 == 0 && i > 0 {
                            println!(
                                "  {i} cases, {:.0} s, {} distinct failures",
                                t0.elapsed().as_secs_f64(),
                                found.lock().expect("lock").len()
                            );
                        }
                    }
                    let mut s = sum.lock().expect("lock");
                    s.cases += tally.cases;
                    s.compiled += tally.compiled;
                    s.diags += tally.diags;
                    s.turns += tally.turns;
                    s.solved += tally.solved;
                    s.runtime_errors += tally.runtime_errors;
                })
                .expect("spawn");
        }
    });
    let secs = t0.elapsed().as_secs_f64();
    let s = sum.lock().expect("lock").clone();
    println!(
        "campaign: {} cases in {secs:.1} s ({:.0}/s): {} compiled, {} diagnostics, {} engine turns, {} solves, {} runtime errors",
        s.cases,
        s.cases as f64 / secs,
        s.compiled,
        s.diags,
        s.turns,
        s.solved,
        s.runtime_errors
    );
    let sl = slowest.lock().expect("lock");
    println!("slowest case: {:.3} s: {:?}", sl.0.as_secs_f64(), sl.1);
    let found = found.into_inner().expect("lock");
    let mut report = String::new();
    for (sig, (n, text, seed, msg)) in &found {
        let small = if sig.starts_with("slow") {
            text.clone()
        } else {
            minimise(text, *seed, sig, Duration::from_secs(30))
        };
        report.push_str(&format!(
            "\n== {sig} ({n} cases)\n{}\nshortest input (seed {seed}), minimised:\n{small:?}\n",
            msg.lines().next().unwrap_or("")
        ));
    }
    println!("{} distinct failures{report}", found.len());
    assert!(
        found.is_empty(),
        "{} distinct failures (see above)",
        found.len()
    );
}

// ───────────────────────────── real processes ─────────────────────────────

/// Runs the binary with a timeout: (exit code or None for a signal, stdout, stderr). A hang is
/// killed and reported as an error.
fn run_bin(
    args: &[&str],
    dir: &Path,
    timeout: Duration,
) -> Result<(Option<i32>, String, String), String> {
    use std::io::Read;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kumite"))
        .args(args)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "0")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let ro = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let re = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let t0 = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if t0.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "HANG: killed after {:.0} s: kumite {}",
                    timeout.as_secs_f64(),
                    args.join(" ")
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("wait: {e}")),
        }
    };
    let o = String::from_utf8_lossy(&ro.join().unwrap_or_default()).into_owned();
    let e = String::from_utf8_lossy(&re.join().unwrap_or_default()).into_owned();
    Ok((status.code(), o, e))
}

const TIMEOUT: Duration = Duration::from_secs(20);

/// Clean exits of `kumite match` with an AI player: 0–3, and 10–16 for the AI's forfeit.
const CLEAN_AI: &[i32] = &[0, 1, 2, 3, 10, 11, 12, 13, 14, 15, 16];

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kumite-fuzz-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Checks an exit status: `allowed` codes only, never a signal or a hang.
fn status_ok(
    r: Result<(Option<i32>, String, String), String>,
    allowed: &[i32],
    what: &str,
) -> Result<(Option<i32>, String, String), String> {
    match r {
        Err(e) => Err(format!("{what}: {e}")),
        Ok((None, _, e)) => Err(format!("{what}: killed by a signal\n{}", tail(&e))),
        Ok((Some(c), _, e)) if !allowed.contains(&c) => Err(format!(
            "{what}: exit status {c}{}\n{}",
            if c == 101 { " (panic)" } else { "" },
            tail(&e)
        )),
        Ok(x) => Ok(x),
    }
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(6)..].join("\n")
}

fn generated_texts(n: usize, seed: u64) -> Vec<String> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    let s = any_text();
    (0..n)
        .map(|_| s.new_tree(&mut runner).expect("tree").current())
        .collect()
}

#[test]
fn process_generated_files_exit_cleanly() {
    let dir = temp_dir("gen");
    let mut failures = Vec::new();
    let texts = generated_texts(24, 0x5EED);
    for (i, text) in texts.iter().enumerate() {
        let f = dir.join(format!("g{i}.kmt"));
        std::fs::write(&f, text).expect("write");
        let p = f.to_str().expect("path");
        let runs: [&[&str]; 7] = [
            &["check", p],
            &["check", "--format", "json", p],
            &["expand", p],
            &[
                "tree",
                p,
                "--format",
                if i % 3 == 0 {
                    "json"
                } else if i % 3 == 1 {
                    "dot"
                } else {
                    "text"
                },
            ],
            &["solve", p, "--depth", "4"],
            &["perft", p, "--depth", "2"],
            &[
                "match",
                p,
                "--h",
                "random",
                "--c",
                "random",
                "--max-turns",
                "20",
            ],
        ];
        for args in runs {
            if let Err(e) = status_ok(
                run_bin(args, &dir, TIMEOUT),
                &[0, 1, 2, 3],
                &format!("kumite {}", args.join(" ")),
            ) {
                failures.push(format!("{e}\n  file {}: {text:?}", f.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn process_non_utf8_files_are_one_error_in_check_and_expand() {
    let dir = temp_dir("bytes");
    let cases: [&[u8]; 8] = [
        b"\xff",
        b"!:x=1\n:S.x+1\xff\n",
        b"\xe6\x8a",                      // a cut multi-byte character
        b"\xff\xfe!\x00:\x00",            // UTF-16 LE with its BOM
        b"S.\xe9t\xe9>1:S.win\n",         // Latin-1
        b"\xc0\xaf:S.win\n",              // an overlong encoding
        b"\xed\xa0\x80:S.win\n",          // a surrogate
        b"O.x<=0:S.\xe5\x8b\x9d\xe5\x88", // cut at the end
    ];
    let mut failures = Vec::new();
    for (i, bytes) in cases.iter().enumerate() {
        let f = dir.join(format!("b{i}.kmt"));
        std::fs::write(&f, bytes).expect("write");
        let p = f.to_str().expect("path");
        let check = status_ok(run_bin(&["check", p], &dir, TIMEOUT), &[1], "check");
        let expand = status_ok(run_bin(&["expand", p], &dir, TIMEOUT), &[1], "expand");
        match (&check, &expand) {
            (Ok((a, _, ea)), Ok((b, _, eb))) => {
                if a != b || !ea.contains("UTF-8") || !eb.contains("UTF-8") {
                    failures.push(format!("file #{i} {bytes:?}: check {a:?}, expand {b:?}"));
                }
            }
            _ => failures.push(format!(
                "file #{i} {bytes:?}: check {check:?} / expand {expand:?}"
            )),
        }
        for args in [
            &["tree", p][..],
            &["solve", p, "--depth", "2"],
            &["perft", p, "--depth", "1"],
            &["match", p, "--h", "random", "--c", "random"],
            &["check", "--format", "json", p],
        ] {
            if let Err(e) = status_ok(
                run_bin(args, &dir, TIMEOUT),
                &[1, 2],
                &format!("kumite {}", args.join(" ")),
            ) {
                failures.push(format!("file #{i}: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn process_player_specs_exit_cleanly() {
    let dir = common::root();
    let mut specs: Vec<String> = [
        "cpu:あ5",
        "cpu:Ｓ５",
        "cpu:D1e309",
        "cpu:S999999999999",
        "",
        "cpu:,,,",
        "cpu",
        "cpu:",
        "cpu:S",
        "cpu:S0",
        "cpu:S31",
        "cpu:D0",
        "cpu:DNaN",
        "cpu:Dinf",
        "cpu:D-1",
        "cpu:E11",
        "cpu:P0",
        "cpu:P99999999999",
        "cpu:S1,P1",
        "cpu:s2,p5",
        "cpu: S2 ,P5",
        "cpu:é",
        "cpu:😀",
        "cpu:\u{301}",
        "random ",
        "RANDOM",
        "cpu:Sあ",
        "cpu:ＳＳ",
        "cpu:Dー1",
        "cpu:D1.5,S1,P5",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // And some generated garbage.
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    for _ in 0..16 {
        specs.push(
            spec_string()
                .new_tree(&mut runner)
                .expect("tree")
                .current()
                .replace('\0', ""),
        );
    }
    let mut failures = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let file = if i % 2 == 0 {
            "rules/ex1_push.kmt"
        } else {
            "rules/cc_lemon.kmt"
        };
        let args = [
            "match",
            file,
            "--h",
            spec.as_str(),
            "--c",
            "random",
            "--max-turns",
            "6",
            "--seed",
            "3",
        ];
        if let Err(e) = status_ok(
            run_bin(&args, &dir, TIMEOUT),
            &[0, 1, 2, 3],
            &format!("kumite match {file} --h {spec:?}"),
        ) {
            failures.push(e);
        }
    }
    // Arena parses the specs too (before its worker threads start).
    for spec in ["cpu:あ5", "cpu:Ｓ５", "cpu:,,,", "cpu:S1,P2"] {
        let args = [
            "arena",
            "rules/ex1_push.kmt",
            "--h",
            spec,
            "--c",
            "random",
            "--games",
            "3",
        ];
        if let Err(e) = status_ok(
            run_bin(&args, &dir, TIMEOUT),
            &[0, 1, 2, 3],
            &format!("kumite arena --h {spec:?}"),
        ) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn process_ai_specs_and_odd_flags_exit_cleanly() {
    let dir = common::root();
    let ai = |s: &str| s.to_string();
    let cases: Vec<(Vec<String>, &[i32])> = vec![
        (vec![ai("--h"), ai("ai:")], &[2]),
        (vec![ai("--h"), ai("ai: ")], &[2]),
        (vec![ai("--h"), ai("ai:/no/such/program")], &[10]),
        (vec![ai("--h"), ai("ai:true")], &[12, 13]),
        (vec![ai("--h"), ai("ai:false")], &[12, 13]),
        (vec![ai("--h"), ai("ai:echo")], &[11, 13]),
        (vec![ai("--h"), ai("ai:echo name")], &[13, 14]),
        (vec![ai("--h"), ai("ai:cat")], &[14]),
        (vec![ai("--h"), ai("ai:yes")], &[14]),
        (
            vec![ai("--h"), ai("ai:printf 'n\\n\\377\\376\\n'")],
            &[13, 14],
        ),
        (
            vec![
                ai("--h"),
                ai("ai:sh -c 'echo n; echo 押す; sleep 30'"),
                ai("--ai-timeout"),
                ai("0.3"),
            ],
            // An answer printed before its turn is a line nothing asked for (14) when it
            // arrives with the name; else it is taken (0) or the next turn times out (15).
            &[0, 14, 15],
        ),
        (
            vec![ai("--h"), ai("ai:sleep 30"), ai("--ai-timeout"), ai("0.2")],
            &[15],
        ),
        (
            vec![
                ai("--h"),
                ai("ai:sleep 30"),
                ai("--ai-timeout"),
                ai("1e-300"),
            ],
            &[15, 2],
        ),
        (
            vec![ai("--h"), ai("ai:true"), ai("--ai-timeout"), ai("0")],
            &[2],
        ),
        (
            vec![ai("--h"), ai("ai:true"), ai("--ai-timeout"), ai("-1")],
            &[2],
        ),
        (
            vec![ai("--h"), ai("ai:true"), ai("--ai-timeout"), ai("nan")],
            &[2],
        ),
        (
            vec![ai("--h"), ai("ai:true"), ai("--ai-timeout"), ai("inf")],
            &[2],
        ),
        (
            vec![ai("--h"), ai("ai:true"), ai("--ai-timeout"), ai("1e300")],
            &[2, 12, 13],
        ),
        (
            vec![ai("--h"), ai("ai:true"), ai("--ai-timeout"), ai("1e20")],
            &[2, 12, 13],
        ),
        (
            vec![ai("--h"), ai("random"), ai("--delay"), ai("inf")],
            &[0, 2],
        ),
        (
            vec![ai("--h"), ai("random"), ai("--delay"), ai("1e300")],
            &[0, 2],
        ),
        (
            vec![ai("--h"), ai("random"), ai("--delay"), ai("nan")],
            &[0, 2],
        ),
        (
            vec![ai("--h"), ai("random"), ai("--delay"), ai("-1")],
            &[0, 2],
        ),
        (vec![ai("--h"), ai("human")], &[16]),
    ];
    let mut failures = Vec::new();
    for (extra, allowed) in &cases {
        let mut args: Vec<&str> = vec![
            "match",
            "rules/ex1_push.kmt",
            "--c",
            "random",
            "--max-turns",
            "4",
        ];
        args.extend(extra.iter().map(String::as_str));
        // The expected statuses are documented in tests/ai/README.md; any of 0–3 and 10–16 is
        // a clean exit, the list says which one is meant.
        let _ = allowed;
        match status_ok(
            run_bin(&args, &dir, TIMEOUT),
            CLEAN_AI,
            &format!("kumite {}", args.join(" ")),
        ) {
            Ok(_) => {}
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn process_set_values_exit_cleanly() {
    let dir = common::root();
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[9; 32]),
    );
    let mut sets: Vec<String> = [
        "h.x=",
        "=5",
        "h.x=99999999999999999999",
        "ｈ．後ろ余裕度＝５",
        "h.後ろ余裕度=５",
        "h.=5",
        ".x=5",
        "x",
        "h.後ろ余裕度=5=6",
        "h.後ろ余裕度= 5",
        "h.後ろ余裕度=-9223372036854775808",
        "h.後ろ余裕度=+5",
        "勝利=1",
        "h.勝利=1",
        "c.敗北=1",
        "H.後ろ余裕度=1",
        "s.後ろ余裕度=1",
        "後ろ余裕度=9223372036854775807",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for _ in 0..8 {
        sets.push(set_string().new_tree(&mut runner).expect("tree").current());
    }
    let mut failures = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        let cmd: &[&str] = match i % 4 {
            0 => &[
                "match",
                "rules/ex1_push.kmt",
                "--h",
                "random",
                "--c",
                "random",
                "--max-turns",
                "30",
            ],
            1 => &["tree", "rules/ex1_push.kmt"],
            2 => &["solve", "rules/ex1_push.kmt", "--depth", "4"],
            _ => &["perft", "rules/ex1_push.kmt", "--depth", "3"],
        };
        let mut args = cmd.to_vec();
        args.extend(["--set", set.as_str()]);
        if let Err(e) = status_ok(
            run_bin(&args, &dir, TIMEOUT),
            &[0, 1, 2, 3],
            &format!("kumite {}", args.join(" ")),
        ) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn process_chain_case(tag: &str, texts: &[(String, String)]) {
    let dir = temp_dir(tag);
    let mut failures = Vec::new();
    for (name, text) in texts {
        let f = dir.join(format!("{name}.kmt"));
        std::fs::write(&f, text).expect("write");
        let p = f.to_str().expect("path");
        for cmd in ["check", "expand"] {
            let t0 = Instant::now();
            if let Err(e) = status_ok(
                run_bin(&[cmd, p], &dir, TIMEOUT),
                &[0, 1],
                &format!("kumite {cmd} {name}"),
            ) {
                failures.push(e);
            } else if t0.elapsed() > Duration::from_secs(10) {
                failures.push(format!(
                    "kumite {cmd} {name}: slow, {:.1} s",
                    t0.elapsed().as_secs_f64()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn process_long_constant_chains() {
    let mut texts = Vec::new();
    for n in [1000usize, 4000, 8000, 16_000, 40_000] {
        texts.push((format!("const{n}"), chain_text(n, 0, 0, false)));
        texts.push((
            format!("const{n}-reversed-cycle"),
            chain_text(n, 0, 1, true),
        ));
    }
    process_chain_case("const", &texts);
}

#[test]
fn process_long_macro_chains() {
    let mut texts = Vec::new();
    for n in [1000usize, 8000, 16_400, 40_000] {
        texts.push((format!("macro{n}"), chain_text(n, 1, 0, false)));
        texts.push((
            format!("macro{n}-shuffled-cycle"),
            chain_text(n, 1, 2, true),
        ));
    }
    texts.push(("fanout40".into(), chain_text(40, 3, 0, false)));
    texts.push(("fanout5000".into(), chain_text(5000, 2, 0, false)));
    process_chain_case("macro", &texts);
}

#[test]
fn process_deep_and_huge_texts() {
    let deep = |d: usize| format!("S.x>{}1{}:S.勝利\n", "(".repeat(d), ")".repeat(d));
    let texts = vec![
        ("paren10k".to_string(), deep(10_000)),
        ("paren200k".to_string(), deep(200_000)),
        (
            "neg100k".to_string(),
            format!("S.x>{}1:S.勝利\n", "-".repeat(100_000)),
        ),
        (
            "calls50k".to_string(),
            format!(
                "S.x>{}1{}:S.勝利\n",
                "abs(".repeat(50_000),
                ")".repeat(50_000)
            ),
        ),
        (
            "sum100k".to_string(),
            format!(":S.x+=1{}\nS.x>0:S.勝利\n", "+1".repeat(100_000)),
        ),
        (
            "conds20k".to_string(),
            format!("{}:S.勝利\n", vec!["S.x>0"; 20_000].join(",")),
        ),
        (
            "seq2k".to_string(),
            format!("{}:S.勝利\n:[押す]\n", vec!["[押す]"; 2000].join(",")),
        ),
        (
            "lines100k".to_string(),
            ":S.x+1\n".repeat(100_000) + "S.x>3:S.勝利\n",
        ),
        ("blocks20k".to_string(), "&{\n".repeat(20_000)),
        ("closers20k".to_string(), "}\n".repeat(20_000)),
        (
            "longname".to_string(),
            format!("S.{}>0:S.勝利\n", "名".repeat(200_000)),
        ),
    ];
    process_chain_case("deep", &texts);
}

#[test]
fn process_deep_solve_and_perft() {
    // A game where nothing happens until the turn limit: the searches must not recurse once
    // per ply on the machine stack.
    let dir = temp_dir("deepsolve");
    let f = dir.join("idle.kmt");
    std::fs::write(&f, "~T1000000\n!:[待つ]\nS.x>0:S.勝利\n").expect("write");
    let p = f.to_str().expect("path");
    let mut failures = Vec::new();
    for args in [
        &["solve", p, "--depth", "200000"][..],
        &["perft", p, "--depth", "3000"],
        &[
            "match",
            p,
            "--h",
            "cpu:S30,P5",
            "--c",
            "random",
            "--max-turns",
            "3",
        ],
    ] {
        if let Err(e) = status_ok(
            run_bin(args, &dir, TIMEOUT),
            &[0, 1, 2, 3],
            &format!("kumite {}", args.join(" ")),
        ) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn process_solve_stays_within_its_budget() {
    // Four lines, two draws of eight values per side and turn: every joint move has 4,096
    // chance outcomes. The search caps count positions, not the turns played to find them.
    let dir = temp_dir("solvebudget");
    let f = dir.join("chance.kmt");
    std::fs::write(
        &f,
        "~同時\n!:[a],[b],[c],[d]\n:S.x+=rand(1,8)+rand(1,8)\nS.x>1000:S.勝利\n",
    )
    .expect("write");
    let p = f.to_str().expect("path");
    let mut failures = Vec::new();
    for args in [&["solve", p, "--depth", "2", "--format", "json"][..]] {
        if let Err(e) = status_ok(
            run_bin(args, &dir, TIMEOUT),
            &[0, 1, 2, 3],
            &format!("kumite {}", args.join(" ")),
        ) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn process_ai_that_never_ends_its_line_is_a_forfeit() {
    // An AI that writes without a line end must not make Kumite hold all of it in memory:
    // under a 1 GB address-space limit it forfeits (status 15 or 14), it does not abort.
    if !Path::new("/bin/sh").exists() || !Path::new("/dev/zero").exists() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_kumite");
    let out = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1000000; exec timeout 30 '{bin}' match rules/ex1_push.kmt --h 'ai:head -c 3000000000 /dev/zero' --c random --ai-timeout 3"
        ))
        .current_dir(common::root())
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("sh");
    let code = out.status.code();
    assert!(
        code.is_some_and(|c| CLEAN_AI.contains(&c)),
        "exit {:?} (134 = abort): {}",
        code,
        tail(&String::from_utf8_lossy(&out.stderr))
    );
}

/// Runs one file through every stage, as a fuzz case: `FUZZ_FILE=path FUZZ_SEED=n cargo test
/// --release --test suite fuzz_inputs::replay_one_file -- --ignored --nocapture`. For cutting a
/// failing case down by hand.
#[test]
#[ignore = "replays FUZZ_FILE: run with --ignored --nocapture"]
fn replay_one_file() {
    let path = std::env::var("FUZZ_FILE").expect("FUZZ_FILE names the file to replay");
    let text = std::fs::read_to_string(&path).expect("FUZZ_FILE is readable UTF-8");
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut tally = Tally::default();
    match exercise(&text, seed, &mut tally) {
        Ok(()) => println!("replay: passes"),
        Err(e) => panic!("replay: {e}"),
    }
}
