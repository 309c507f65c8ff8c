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

/// The offers made so far, and what they are made from.
struct Collector<'a> {
    /// The name typed so far (folded).
    typed: String,
    out: Vec<Ranked>,
    seen: rustc_hash::FxHashSet<String>,
    ix: &'a SymbolIndex,
    ja: bool,
    /// The file's names with their numbers of uses.
    states: Vec<(std::sync::Arc<str>, usize)>,
    commands: Vec<(std::sync::Arc<str>, usize)>,
    macros: Vec<(std::sync::Arc<str>, usize)>,
    consts: Vec<(std::sync::Arc<str>, usize)>,
    /// `]` to insert after a command name, unless one follows already.
    close: &'static str,
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

    /// `en` or `ja`, as the details are asked for.
    fn say<'s>(&self, en: &'s str, ja: &'s str) -> &'s str {
        if self.ja { ja } else { en }
    }

    /// Fixed words (settings letters, statement starts, prefixes) with their details.
    fn offer_words(&mut self, words: &[(&str, &str, &str)], kind: ItemKind, prio: u8) {
        for &(w, en, jp) in words {
            let d = self.say(en, jp).to_string();
            self.offer(w, item(w.into(), w.into(), kind, d), prio, 0);
        }
    }

    fn cmd_detail(&self, n: &str, u: usize) -> String {
        let key = self
            .ix
            .bindings
            .iter()
            .find(|(_, c)| c.as_ref() == n)
            .map(|(k, _)| k.to_string());
        let key = key.map(|k| {
            if self.ja {
                format!("、キー {k}")
            } else {
                format!(", key {k}")
            }
        });
        if self.ja {
            format!("コマンド({u} 箇所{})", key.unwrap_or_default())
        } else {
            format!("command ({u} uses{})", key.unwrap_or_default())
        }
    }

    fn state_detail(&self, u: usize) -> String {
        if self.ja {
            format!("状態({u} 箇所)")
        } else {
            format!("state ({u} uses)")
        }
    }

    /// Commands (or macros) offered as `[名前]`.
    fn offer_bracketed(&mut self, kind: ItemKind, prio: u8) {
        let list = if kind == ItemKind::Macro {
            self.macros.clone()
        } else {
            self.commands.clone()
        };
        for (n, u) in &list {
            let detail = match kind {
                ItemKind::Macro => self.say("macro", "マクロ").to_string(),
                _ => self.cmd_detail(n, *u),
            };
            let text = format!("[{n}]");
            self.offer(n, item(text.clone(), text, kind, detail), prio, *u);
        }
    }

    /// Just after `[`: command names (most used first), then macros, closed with `]`.
    fn after_bracket(&mut self) {
        let mut commands = self.commands.clone();
        commands.sort_by_key(|(_, u)| std::cmp::Reverse(*u));
        for (n, u) in &commands {
            let detail = self.cmd_detail(n, *u);
            let ins = format!("{n}{}", self.close);
            self.offer(
                n,
                item(n.to_string(), ins, ItemKind::Command, detail),
                0,
                *u,
            );
        }
        for (n, u) in &self.macros.clone() {
            let detail = self.say("macro", "マクロ").to_string();
            let ins = format!("{n}{}", self.close);
            self.offer(n, item(n.to_string(), ins, ItemKind::Macro, detail), 1, *u);
        }
    }

    /// Just after a side prefix `S.`: state names, and 勝利/敗北 outside the initial line.
    fn after_side_prefix(&mut self, kind: Line) {
        for (n, u) in &self.states.clone() {
            let detail = self.state_detail(*u);
            self.offer(
                n,
                item(n.to_string(), n.to_string(), ItemKind::State, detail),
                0,
                *u,
            );
        }
        if kind != Line::Init {
            for n in ["勝利", "敗北"] {
                let detail = self
                    .say("win/lose (built in)", "勝敗(組み込み)")
                    .to_string();
                self.offer(n, item(n.into(), n.into(), ItemKind::State, detail), 1, 0);
            }
        }
    }

    /// The initial line: `名前=`, `h.名前=`, `c.名前=`, commands, side prefixes.
    fn initial_line(&mut self) {
        for (n, u) in &self.states.clone() {
            for p in ["", "h.", "c."] {
                let detail = self.state_detail(*u);
                let it = item(
                    format!("{p}{n}"),
                    format!("{p}{n}="),
                    ItemKind::State,
                    detail,
                );
                self.offer(n, it, u8::from(!p.is_empty()), *u);
            }
        }
        self.offer_bracketed(ItemKind::Command, 2);
        self.offer_words(
            &[
                ("h.", "side prefix", "側の指定"),
                ("c.", "side prefix", "側の指定"),
            ],
            ItemKind::Prefix,
            3,
        );
    }

    /// A rule line: statement starts (on an empty line), side prefixes, sided states,
    /// commands, macros, constants, functions.
    fn rule_line(&mut self, at_line_start: bool) {
        if at_line_start && self.typed.is_empty() {
            self.offer_words(STATEMENT_STARTS, ItemKind::Keyword, 5);
        }
        self.offer_words(SIDE_PREFIXES, ItemKind::Prefix, 0);
        // States with their side: typing a bare name offers S.名前 and O.名前.
        if !self.typed.is_empty() {
            for (n, u) in &self.states.clone() {
                for p in ["S.", "O."] {
                    let detail = self.state_detail(*u);
                    let t = format!("{p}{n}");
                    self.offer(n, item(t.clone(), t, ItemKind::State, detail), 1, *u);
                }
            }
        }
        self.offer_bracketed(ItemKind::Command, 2);
        self.offer_bracketed(ItemKind::Macro, 2);
        for (n, u) in &self.consts.clone() {
            let detail = self.say("constant", "定数").to_string();
            let it = item(n.to_string(), n.to_string(), ItemKind::Constant, detail);
            self.offer(n, it, 3, *u);
        }
        for &(f, sig, en, jp) in FUNCTIONS {
            let d = format!("{sig} — {}", self.say(en, jp));
            self.offer(
                f,
                item(sig.into(), format!("{f}("), ItemKind::Function, d),
                4,
                0,
            );
        }
    }
}

/// The `~` line's settings.
const SETTINGS: &[(&str, &str, &str)] = &[
    ("P", "P<ms>: CPU thinking period", "P<ms>: CPU の思考周期"),
    ("S", "S<n>: search depth", "S<n>: 探索の深さ"),
    ("D", "D<x>: thinning", "D<x>: 間引き"),
    ("E", "E<n>: mistakes", "E<n>: ミスの回数"),
    ("T", "T<n>: turn limit", "T<n>: ターン上限"),
    ("同時", "simultaneous turns", "同時手番"),
    ("先手c", "the CPU moves first", "CPU が先手"),
    ("先手h", "the human moves first", "人が先手"),
];

/// What a statement can start with.
const STATEMENT_STARTS: &[(&str, &str, &str)] = &[
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
];

/// The side prefixes of a rule.
const SIDE_PREFIXES: &[(&str, &str, &str)] = &[
    ("S.", "the acting side", "自分側"),
    ("O.", "the opponent", "相手側"),
    ("h.", "the human", "人"),
    ("c.", "the CPU", "CPU"),
];

/// The built-in functions: name, signature, meaning.
const FUNCTIONS: &[(&str, &str, &str, &str)] = &[
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
];

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
        ix,
        ja,
        states: ix.names(SymKind::State),
        // Commands only bound or declared are still commands; macros go with them after `[`.
        commands: ix.names(SymKind::Command),
        macros: ix.names(SymKind::Macro),
        consts: ix.names(SymKind::Constant),
        close: if after_next == Some(']') { "" } else { "]" },
    };
    let side_letter = |ch: char| matches!(ch.to_ascii_lowercase(), 's' | 'o' | 'h' | 'c');
    let is_prefix_dot = prev == Some('.')
        && before.len() >= 2
        && side_letter(before[before.len() - 2])
        && (before.len() < 3 || !is_name_char(before[before.len() - 3]));

    if prev == Some('[') {
        c.after_bracket();
    } else if is_prefix_dot {
        c.after_side_prefix(kind);
    } else {
        match kind {
            Line::Settings => c.offer_words(SETTINGS, ItemKind::Keyword, 0),
            Line::Keys => {
                if prev == Some('=') {
                    c.offer_bracketed(ItemKind::Command, 0);
                }
            }
            Line::Init => c.initial_line(),
            Line::Macros => {
                c.offer_bracketed(ItemKind::Command, 0);
                c.offer_bracketed(ItemKind::Macro, 0);
            }
            Line::Rule => c.rule_line(before.iter().all(|ch| ch.is_whitespace())),
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
