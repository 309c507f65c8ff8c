//! Hover cards: what the name under the cursor is — its initial value or definition, its key,
//! the lines that write, read, enable and disable it, and where it stands in the derived
//! victory-condition tree.

use crate::analysis::{Target, VictoryGraph};
use crate::program::RuleProgram;
use crate::symbols::{Occurrence, Role, SymKind, SymbolIndex};

/// A hover card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    /// The name's span (what the card is about).
    pub span: std::ops::Range<usize>,
    /// First line, e.g. `state 体力`.
    pub title: String,
    /// Further lines.
    pub lines: Vec<String>,
}

impl Hover {
    /// The card as Markdown (for the language server).
    pub fn markdown(&self) -> String {
        let mut s = format!("**{}**", self.title);
        for l in &self.lines {
            s.push_str("\n\n");
            s.push_str(l);
        }
        s
    }
}

/// 1-based line numbers of `occ`, at most eight, then how many more.
fn line_list(occ: &[&Occurrence]) -> String {
    let mut v: Vec<usize> = occ.iter().map(|o| o.line + 1).collect();
    v.dedup();
    let more = v.len().saturating_sub(8);
    let mut s = v
        .iter()
        .take(8)
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if more > 0 {
        s.push_str(&format!(" … (+{more})"));
    }
    s
}

fn add(lines: &mut Vec<String>, ja: bool, en: &str, jp: &str, occ: &[&Occurrence]) {
    if !occ.is_empty() {
        lines.push(format!("{}: {}", if ja { jp } else { en }, line_list(occ)));
    }
}

/// The card for the name at byte `offset`; `program` and `graph` (of the last text that
/// compiled) add initial values and the victory tree.
pub fn hover(
    ix: &SymbolIndex,
    offset: usize,
    program: Option<&RuleProgram>,
    graph: Option<&VictoryGraph>,
    ja: bool,
) -> Option<Hover> {
    let o = ix.at(offset)?;
    let name = o.name.as_ref();
    let uses = ix.uses(o.kind, name);
    let with = |roles: &[Role]| -> Vec<&Occurrence> {
        uses.iter()
            .filter(|u| roles.contains(&u.role))
            .copied()
            .collect()
    };
    let mut lines = Vec::new();
    let title = match o.kind {
        SymKind::State => state_card(name, program, ja, &with, &mut lines),
        SymKind::Command => command_card(ix, name, program, ja, &with, &mut lines),
        SymKind::Macro => macro_card(name, program, ja, &with, &mut lines),
        SymKind::Constant => constant_card(name, program, ja, &with, &mut lines),
        SymKind::Key => key_card(ix, name, ja, &mut lines),
    };
    if matches!(o.kind, SymKind::State | SymKind::Command)
        && let (Some(p), Some(g)) = (program, graph)
    {
        let m = tree_mentions(p, g, o.kind, name);
        if m.is_empty() {
            lines.push(
                if ja {
                    "勝利評価条件の木: なし"
                } else {
                    "victory tree: not in it"
                }
                .into(),
            );
        } else {
            let more = m.len().saturating_sub(4);
            let mut s = m.into_iter().take(4).collect::<Vec<_>>().join("; ");
            if more > 0 {
                s.push_str(&format!(" … (+{more})"));
            }
            lines.push(format!(
                "{}: {s}",
                if ja {
                    "勝利評価条件の木"
                } else {
                    "victory tree"
                }
            ));
        }
    }
    if o.mirrored_block
        && let Some((twin, _)) = ix.mirror_of(name)
    {
        lines.push(if ja {
            format!("対称ブロックの鏡像: {twin}")
        } else {
            format!("mirrored in its symmetric block as {twin}")
        });
    }
    Some(Hover {
        span: o.span.clone(),
        title,
        lines,
    })
}

/// A state: its initial values, the lines that write and read it.
fn state_card<'a>(
    name: &str,
    program: Option<&RuleProgram>,
    ja: bool,
    with: &dyn Fn(&[Role]) -> Vec<&'a Occurrence>,
    lines: &mut Vec<String>,
) -> String {
    let title = if ja {
        format!("状態 {name}")
    } else {
        format!("state {name}")
    };
    let init = with(&[Role::Init]);
    let vals = program.and_then(|p| {
        let i = p.state_id(name)? as usize;
        Some((p.init_values[0][i], p.init_values[1][i]))
    });
    if let Some((h, c)) = vals {
        let at = init
            .first()
            .map(|o| format!(" ({} {})", if ja { "行" } else { "line" }, o.line + 1))
            .unwrap_or_default();
        lines.push(if ja {
            format!("初期値: h {h}, c {c}{at}")
        } else {
            format!("initial: h {h}, c {c}{at}")
        });
    } else {
        add(lines, ja, "initial line", "初期値の行", &init);
    }
    add(
        lines,
        ja,
        "written by lines",
        "書く行",
        &with(&[Role::Write]),
    );
    add(lines, ja, "read by lines", "読む行", &with(&[Role::Read]));
    title
}

/// A command: its keys, who may use it at the start, the lines that enable, disable and use it.
fn command_card<'a>(
    ix: &SymbolIndex,
    name: &str,
    program: Option<&RuleProgram>,
    ja: bool,
    with: &dyn Fn(&[Role]) -> Vec<&'a Occurrence>,
    lines: &mut Vec<String>,
) -> String {
    let title = if ja {
        format!("コマンド [{name}]")
    } else {
        format!("command [{name}]")
    };
    let keys: Vec<&str> = ix
        .bindings
        .iter()
        .filter(|(_, c)| c.as_ref() == name)
        .map(|(k, _)| k.as_ref())
        .collect();
    if !keys.is_empty() {
        lines.push(format!(
            "{}: {}",
            if ja { "キー" } else { "key" },
            keys.join(", ")
        ));
    }
    if let Some((h, c)) = program.and_then(|p| {
        let i = p.command_id(name)? as usize;
        Some((p.init_enabled[0][i], p.init_enabled[1][i]))
    }) {
        let who = match (h, c) {
            (true, true) => "h, c",
            (true, false) => "h",
            (false, true) => "c",
            (false, false) => "-",
        };
        lines.push(if ja {
            format!("最初から使える: {who}")
        } else {
            format!("enabled at the start: {who}")
        });
    }
    add(
        lines,
        ja,
        "enabled by lines",
        "使えるようにする行",
        &with(&[Role::Enable]),
    );
    add(
        lines,
        ja,
        "disabled by lines",
        "使えなくする行",
        &with(&[Role::Disable]),
    );
    add(
        lines,
        ja,
        "used by rules on lines",
        "条件にする行",
        &with(&[Role::Use]),
    );
    add(
        lines,
        ja,
        "in macros on lines",
        "マクロの行",
        &with(&[Role::Alternative]),
    );
    title
}

/// A macro: its alternatives, where it is defined and used.
fn macro_card<'a>(
    name: &str,
    program: Option<&RuleProgram>,
    ja: bool,
    with: &dyn Fn(&[Role]) -> Vec<&'a Occurrence>,
    lines: &mut Vec<String>,
) -> String {
    let title = if ja {
        format!("マクロ [{name}]")
    } else {
        format!("macro [{name}]")
    };
    if let Some(p) = program
        && let Some((_, alts)) = p.macros.iter().find(|(m, _)| m == name)
    {
        let alts: Vec<String> = alts.iter().map(|a| format!("[{a}]")).collect();
        lines.push(format!("= {}", alts.join(" | ")));
    }
    defined_and_used(
        lines,
        ja,
        with,
        &[Role::Use, Role::Enable, Role::Disable, Role::Alternative],
    );
    title
}

/// A constant: its value, where it is defined and used.
fn constant_card<'a>(
    name: &str,
    program: Option<&RuleProgram>,
    ja: bool,
    with: &dyn Fn(&[Role]) -> Vec<&'a Occurrence>,
    lines: &mut Vec<String>,
) -> String {
    let title = if ja {
        format!("定数 {name}")
    } else {
        format!("constant {name}")
    };
    if let Some((_, v)) = program.and_then(|p| p.constants.iter().find(|(c, _)| c == name)) {
        lines.push(format!("= {v}"));
    }
    defined_and_used(lines, ja, with, &[Role::Read]);
    title
}

/// The lines that define a macro or constant, and those that use it (in the roles `uses`).
fn defined_and_used<'a>(
    lines: &mut Vec<String>,
    ja: bool,
    with: &dyn Fn(&[Role]) -> Vec<&'a Occurrence>,
    uses: &[Role],
) {
    add(
        lines,
        ja,
        "defined on line",
        "定義の行",
        &with(&[Role::Define]),
    );
    add(lines, ja, "used on lines", "使う行", &with(uses));
}

/// A key: the commands it plays.
fn key_card(ix: &SymbolIndex, name: &str, ja: bool, lines: &mut Vec<String>) -> String {
    let title = if ja {
        format!("キー {name}")
    } else {
        format!("key {name}")
    };
    for (k, c) in &ix.bindings {
        if k.as_ref() == name {
            lines.push(format!("→ [{c}]"));
        }
    }
    title
}

/// What the victory-condition tree says about a name: the nodes and decisive rules it appears in.
fn tree_mentions(p: &RuleProgram, g: &VictoryGraph, kind: SymKind, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let id = match kind {
        SymKind::State => p.state_id(name),
        SymKind::Command => p.command_id(name),
        _ => None,
    };
    if let Some(id) = id {
        for n in &g.nodes {
            let is_cmd = n.key.target == Target::Enabled;
            if n.key.id == id && is_cmd == (kind == SymKind::Command) {
                out.push(format!("{} (level {})", n.text, n.level));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::compile;

    #[test]
    fn a_state_card_says_where_it_starts_is_written_read_and_wins() {
        let src =
            "!:h.体力=3,c.体力=4,[ジャブ]\n':j=[ジャブ]\n[ジャブ]:O.体力-1\nO.体力<=0:S.勝利\n";
        let c = compile(src);
        let p = c.program.as_ref().unwrap();
        let g = VictoryGraph::build(p);
        let at = src.rfind("体力<=0").unwrap();
        let h = hover(&c.symbols, at, Some(p), Some(&g), false).unwrap();
        assert_eq!(h.title, "state 体力");
        assert_eq!(
            h.lines[..3],
            [
                "initial: h 3, c 4 (line 1)",
                "written by lines: 3",
                "read by lines: 4"
            ]
        );
        assert!(
            h.lines[3].starts_with("victory tree: O.体力<=0"),
            "{:?}",
            h.lines
        );
        let at = src.rfind("ジャブ]:").unwrap();
        let h = hover(&c.symbols, at, Some(p), Some(&g), true).unwrap();
        assert_eq!(h.title, "コマンド [ジャブ]");
        assert_eq!(h.lines[0], "キー: j");
    }

    #[test]
    fn a_macro_card_lists_its_alternatives_and_a_constant_its_value() {
        let src = "${\n[攻撃]:[殴る];[蹴る]\n費用:2\n}\n!:体力=3,[殴る],[蹴る]\n[攻撃]:O.体力-費用\nO.体力<=0:S.勝利\n";
        let c = compile(src);
        let p = c.program.as_ref().unwrap();
        let h = hover(&c.symbols, src.rfind("攻撃").unwrap(), Some(p), None, false).unwrap();
        assert_eq!(h.title, "macro [攻撃]");
        assert_eq!(h.lines[0], "= [殴る] | [蹴る]");
        let h = hover(&c.symbols, src.rfind("費用").unwrap(), Some(p), None, false).unwrap();
        assert_eq!(
            (h.title.as_str(), h.lines[0].as_str()),
            ("constant 費用", "= 2")
        );
    }
}
