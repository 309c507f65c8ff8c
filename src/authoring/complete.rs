//! Completion: what may be typed at a position, ranked by the context the cursor is in — after
//! `[` commands and macros, after `S.` states, in the initial line values and flags, in `':`
//! keys and commands, in `~` settings — and matched across full-width, katakana/hiragana and
//! half-width forms ([`fold`]).

use crate::symbols::{SymKind, SymbolIndex, fold, match_rank};
use crate::syntax::lexer::{is_name_char, norm};
use std::ops::Range;

/// What a completion item is (for its icon and the language server's kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// A state.
    State,
    /// A command.
    Command,
    /// A command macro.
    Macro,
    /// A constant.
    Constant,
    /// A side prefix `S.` …
    Prefix,
    /// A statement head or setting.
    Keyword,
    /// `min` `max` `abs` `rand`.
    Function,
}

/// One proposal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// Shown in the list.
    pub label: String,
    /// Text that replaces [`Completion::replace`].
    pub insert: String,
    /// What it is.
    pub kind: ItemKind,
    /// A short description (signature, use count).
    pub detail: String,
}

/// The proposals at one position.
#[derive(Clone, Debug, Default)]
pub struct Completion {
    /// Bytes an accepted item replaces (the name being typed).
    pub replace: Range<usize>,
    /// Best first.
    pub items: Vec<Item>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Line {
    Init,
    Keys,
    Settings,
    Macros,
    Rule,
}

/// The kind of statement line `at` is on, looking back for an open `${` block.
fn line_kind(text: &str, line_start: usize) -> Line {
    let head: String = text[line_start..]
        .chars()
        .map(norm)
        .skip_while(|c| *c == ' ' || *c == '\t')
        .take(2)
        .collect();
    if head.starts_with("!:") {
        return Line::Init;
    }
    if head.starts_with("':") {
        return Line::Keys;
    }
    if head.starts_with('~') {
        return Line::Settings;
    }
    // Inside a macro block? The nearest line above that opens or closes a block decides.
    for line in text[..line_start].lines().rev() {
        let t: String = line
            .chars()
            .map(norm)
            .filter(|c| !c.is_whitespace())
            .collect();
        if t.starts_with('#') || t.is_empty() {
            continue;
        }
        if t.starts_with('}') || t.ends_with('}') {
            return Line::Rule;
        }
        if t.ends_with('{') {
            return if t.starts_with('$') {
                Line::Macros
            } else {
                Line::Rule
            };
        }
        if matches!(t.chars().next(), Some('!' | '\'' | '~')) && t[1..].starts_with(':')
            || t.starts_with('~')
        {
            return Line::Rule;
        }
    }
    Line::Rule
}

struct Ranked {
    item: Item,
    key: (u8, u8, std::cmp::Reverse<usize>),
}

struct Collector<'a> {
    typed: String,
    out: Vec<Ranked>,
    seen: rustc_hash::FxHashSet<String>,
    _ix: &'a SymbolIndex,
}

impl Collector<'_> {
    /// Offers `item` if `name` matches what was typed; `prio` orders the kinds a context
    /// prefers (0 first), `uses` breaks ties (used more, first).
    fn offer(&mut self, name: &str, item: Item, prio: u8, uses: usize) {
        let Some(m) = match_rank(&self.typed, &fold(name)) else {
            return;
        };
        if !self.seen.insert(item.insert.clone()) {
            return;
        }
        self.out.push(Ranked {
            item,
            key: (m, prio, std::cmp::Reverse(uses)),
        });
    }
}

fn item(label: String, insert: String, kind: ItemKind, detail: String) -> Item {
    Item {
        label,
        insert,
        kind,
        detail,
    }
}

/// Completion at byte `offset` of `text`, from the index of the last check (`ja` for Japanese
/// details).
pub fn complete(text: &str, offset: usize, ix: &SymbolIndex, ja: bool) -> Completion {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    // The name being typed: back and forward over name characters.
    let start = text[line_start..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_name_char(norm(*c)))
        .last()
        .map_or(offset, |(i, _)| line_start + i);
    let end = text[offset..line_end]
        .char_indices()
        .find(|(_, c)| !is_name_char(norm(*c)))
        .map_or(line_end, |(i, _)| offset + i);
    let before: Vec<char> = text[line_start..start].chars().map(norm).collect();
    let prev = before.last().copied();
    let after_next = text[end..line_end].chars().map(norm).next();
    // Inside a comment: nothing.
    if before.contains(&'#') {
        return Completion {
            replace: start..end,
            items: Vec::new(),
        };
    }
    let kind = line_kind(text, line_start);
    let mut c = Collector {
        typed: fold(&text[start..offset]),
        out: Vec::new(),
        seen: Default::default(),
        _ix: ix,
    };
    let uses = |k: SymKind| ix.names(k);
    let states = uses(SymKind::State);
    let mut commands = uses(SymKind::Command);
    // Commands only bound or declared are still commands; macros go with them after `[`.
    let macros = uses(SymKind::Macro);
    let consts = uses(SymKind::Constant);
    let key_of = |cmd: &str| {
        ix.bindings
            .iter()
            .find(|(_, c)| c.as_ref() == cmd)
            .map(|(k, _)| k.to_string())
    };
    let cmd_detail = |n: &str, u: usize| {
        let key = key_of(n).map(|k| {
            if ja {
                format!("、キー {k}")
            } else {
                format!(", key {k}")
            }
        });
        if ja {
            format!("コマンド({u} 箇所{})", key.unwrap_or_default())
        } else {
            format!("command ({u} uses{})", key.unwrap_or_default())
        }
    };
    let state_detail = |u: usize| {
        if ja {
            format!("状態({u} 箇所)")
        } else {
            format!("state ({u} uses)")
        }
    };
    let close = if after_next == Some(']') { "" } else { "]" };
    // Commands or macros offered as `[名前]` (label and text).
    let offer_bracketed =
        |c: &mut Collector, list: &[(std::sync::Arc<str>, usize)], kind: ItemKind, prio: u8| {
            for (n, u) in list {
                let detail = match kind {
                    ItemKind::Macro => (if ja { "マクロ" } else { "macro" }).to_string(),
                    _ => cmd_detail(n, *u),
                };
                c.offer(
                    n,
                    item(format!("[{n}]"), format!("[{n}]"), kind, detail),
                    prio,
                    *u,
                );
            }
        };
    let side_letter = |ch: char| matches!(ch.to_ascii_lowercase(), 's' | 'o' | 'h' | 'c');
    let is_prefix_dot = prev == Some('.')
        && before.len() >= 2
        && side_letter(before[before.len() - 2])
        && (before.len() < 3 || !is_name_char(before[before.len() - 3]));

    if prev == Some('[') {
        commands.sort_by_key(|(_, u)| std::cmp::Reverse(*u));
        for (n, u) in &commands {
            c.offer(
                n,
                item(
                    n.to_string(),
                    format!("{n}{close}"),
                    ItemKind::Command,
                    cmd_detail(n, *u),
                ),
                0,
                *u,
            );
        }
        for (n, u) in &macros {
            let detail = if ja { "マクロ" } else { "macro" };
            c.offer(
                n,
                item(
                    n.to_string(),
                    format!("{n}{close}"),
                    ItemKind::Macro,
                    detail.into(),
                ),
                1,
                *u,
            );
        }
    } else if is_prefix_dot {
        for (n, u) in &states {
            c.offer(
                n,
                item(
                    n.to_string(),
                    n.to_string(),
                    ItemKind::State,
                    state_detail(*u),
                ),
                0,
                *u,
            );
        }
        if kind != Line::Init {
            for n in ["勝利", "敗北"] {
                let detail = if ja {
                    "勝敗(組み込み)"
                } else {
                    "win/lose (built in)"
                };
                c.offer(
                    n,
                    item(n.into(), n.into(), ItemKind::State, detail.into()),
                    1,
                    0,
                );
            }
        }
    } else {
        match kind {
            Line::Settings => {
                for (s, en, jp) in [
                    ("P", "P<ms>: CPU thinking period", "P<ms>: CPU の思考周期"),
                    ("S", "S<n>: search depth", "S<n>: 探索の深さ"),
                    ("D", "D<x>: thinning", "D<x>: 間引き"),
                    ("E", "E<n>: mistakes", "E<n>: ミスの回数"),
                    ("T", "T<n>: turn limit", "T<n>: ターン上限"),
                    ("同時", "simultaneous turns", "同時手番"),
                    ("先手c", "the CPU moves first", "CPU が先手"),
                    ("先手h", "the human moves first", "人が先手"),
                ] {
                    let d = if ja { jp } else { en };
                    c.offer(
                        s,
                        item(s.into(), s.into(), ItemKind::Keyword, d.into()),
                        0,
                        0,
                    );
                }
            }
            Line::Keys => {
                if prev == Some('=') {
                    offer_bracketed(&mut c, &commands, ItemKind::Command, 0);
                }
            }
            Line::Init => {
                for (n, u) in &states {
                    for p in ["", "h.", "c."] {
                        let ins = format!("{p}{n}=");
                        c.offer(
                            n,
                            item(format!("{p}{n}"), ins, ItemKind::State, state_detail(*u)),
                            u8::from(!p.is_empty()),
                            *u,
                        );
                    }
                }
                offer_bracketed(&mut c, &commands, ItemKind::Command, 2);
                for p in ["h.", "c."] {
                    let d = if ja { "側の指定" } else { "side prefix" };
                    c.offer(
                        p,
                        item(p.into(), p.into(), ItemKind::Prefix, d.into()),
                        3,
                        0,
                    );
                }
            }
            Line::Macros => {
                offer_bracketed(&mut c, &commands, ItemKind::Command, 0);
                offer_bracketed(&mut c, &macros, ItemKind::Macro, 0);
            }
            Line::Rule => {
                let at_line_start = before.iter().all(|ch| ch.is_whitespace());
                if at_line_start && c.typed.is_empty() {
                    for (s, en, jp) in [
                        ("!:", "initial states and commands", "初期の状態とコマンド"),
                        ("':", "key bindings", "キー割り当て"),
                        ("~", "CPU level and match settings", "CPU レベルと対戦設定"),
                        ("${", "macro block", "マクロのブロック"),
                        ("&{", "left/right symmetric block", "左右対称のブロック"),
                        ("%{", "advantage block", "有利条件のブロック"),
                        (
                            "@3/",
                            "a rule that runs every 3rd turn",
                            "3 ターンごとのルール",
                        ),
                    ] {
                        let d = if ja { jp } else { en };
                        c.offer(
                            s,
                            item(s.into(), s.into(), ItemKind::Keyword, d.into()),
                            5,
                            0,
                        );
                    }
                }
                for (p, en, jp) in [
                    ("S.", "the acting side", "自分側"),
                    ("O.", "the opponent", "相手側"),
                    ("h.", "the human", "人"),
                    ("c.", "the CPU", "CPU"),
                ] {
                    let d = if ja { jp } else { en };
                    c.offer(
                        p,
                        item(p.into(), p.into(), ItemKind::Prefix, d.into()),
                        0,
                        0,
                    );
                }
                // States with their side: typing a bare name offers S.名前 and O.名前.
                if !c.typed.is_empty() {
                    for (n, u) in &states {
                        for p in ["S.", "O."] {
                            c.offer(
                                n,
                                item(
                                    format!("{p}{n}"),
                                    format!("{p}{n}"),
                                    ItemKind::State,
                                    state_detail(*u),
                                ),
                                1,
                                *u,
                            );
                        }
                    }
                }
                offer_bracketed(&mut c, &commands, ItemKind::Command, 2);
                offer_bracketed(&mut c, &macros, ItemKind::Macro, 2);
                for (n, u) in &consts {
                    let detail = if ja { "定数" } else { "constant" };
                    c.offer(
                        n,
                        item(
                            n.to_string(),
                            n.to_string(),
                            ItemKind::Constant,
                            detail.into(),
                        ),
                        3,
                        *u,
                    );
                }
                for (f, sig, en, jp) in [
                    (
                        "min",
                        "min(a,b)",
                        "the smaller of a and b",
                        "a と b の小さい方",
                    ),
                    (
                        "max",
                        "max(a,b)",
                        "the larger of a and b",
                        "a と b の大きい方",
                    ),
                    ("abs", "abs(a)", "the absolute value", "絶対値"),
                    (
                        "rand",
                        "rand(lo,hi)",
                        "a uniform integer in [lo, hi]",
                        "lo 以上 hi 以下の一様な整数",
                    ),
                ] {
                    let d = format!("{sig} — {}", if ja { jp } else { en });
                    c.offer(
                        f,
                        item(sig.into(), format!("{f}("), ItemKind::Function, d),
                        4,
                        0,
                    );
                }
            }
        }
    }
    c.out.sort_by(|a, b| {
        a.key
            .cmp(&b.key)
            .then_with(|| a.item.label.cmp(&b.item.label))
    });
    c.out.truncate(200);
    Completion {
        replace: start..end,
        items: c.out.into_iter().map(|r| r.item).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::compile;

    const SRC: &str = "!:h.体力=3,c.体力=3,[ジャブ],[タックル]\n':j=[ジャブ]\n${\n費用:2\n}\n[ジャブ]:O.体力-費用\n[タックル]:O.体力-2\nO.体力<=0:S.勝利\n";

    fn labels(text: &str, at: usize) -> Vec<String> {
        let c = compile(SRC);
        complete(text, at, &c.symbols, false)
            .items
            .into_iter()
            .map(|i| i.label)
            .collect()
    }

    #[test]
    fn after_a_bracket_commands_come() {
        let t = format!("{SRC}[");
        let l = labels(&t, t.len());
        assert_eq!(l[..2], ["ジャブ", "タックル"]);
        let t = format!("{SRC}[ﾀｯ");
        assert_eq!(labels(&t, t.len())[0], "タックル");
    }

    #[test]
    fn after_a_prefix_states_come() {
        let t = format!("{SRC}[ジャブ]:O.");
        let l = labels(&t, t.len());
        assert_eq!(l[0], "体力");
        assert!(l.contains(&"勝利".to_string()));
        let t = format!("{SRC}[ジャブ]:Ｏ．た");
        assert_eq!(
            labels(&t, t.len()),
            Vec::<String>::new(),
            "no kana reading of kanji"
        );
    }

    #[test]
    fn a_bare_name_offers_the_prefixed_state_and_rule_heads_at_line_start() {
        let t = format!("{SRC}[ジャブ]:体");
        let l = labels(&t, t.len());
        assert_eq!(l[..2], ["O.体力", "S.体力"]);
        let t = SRC.to_string();
        let l = labels(&t, t.len());
        assert!(l.contains(&"!:".to_string()) && l.contains(&"S.".to_string()));
        let t = "!:h.体力=3\n~S";
        let l = labels(t, t.len());
        assert_eq!(l[0], "S");
        let t = format!("{SRC}':k=");
        assert!(labels(&t, t.len()).contains(&"[タックル]".to_string()));
    }
}
