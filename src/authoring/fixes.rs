//! Quick fixes: a diagnostic's [`FixHint`]s made into edits of the text, for the studio's
//! "Fix" buttons and the language server's code actions.

use crate::diag::{Diagnostic, FixHint};
use crate::symbols::{SymKind, SymbolIndex, TextEdit};
use crate::syntax::lexer::norm;

/// A fix ready to apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// What it does, for a button or a menu.
    pub title: String,
    /// The edits.
    pub edits: Vec<TextEdit>,
}

/// The fixes `d` offers on `text`, titles in Japanese when `ja`.
pub fn fixes(text: &str, d: &Diagnostic, ix: &SymbolIndex, ja: bool) -> Vec<Fix> {
    let mut out = Vec::new();
    for h in &d.fixes {
        match h {
            FixHint::Replace { from, to } => {
                let edits: Vec<TextEdit> = ix
                    .occ()
                    .iter()
                    .filter(|o| {
                        o.name.as_ref() == from
                            && o.span.start >= d.span.start
                            && o.span.end <= d.span.end
                    })
                    .map(|o| TextEdit {
                        span: o.span.clone(),
                        text: to.clone(),
                    })
                    .collect();
                let edits = if edits.is_empty() {
                    // Not indexed (a line the parser could not read): the first match in the span.
                    text.get(d.span.clone())
                        .and_then(|s| s.find(from.as_str()))
                        .map(|i| {
                            vec![TextEdit {
                                span: d.span.start + i..d.span.start + i + from.len(),
                                text: to.clone(),
                            }]
                        })
                        .unwrap_or_default()
                } else {
                    edits
                };
                if !edits.is_empty() {
                    out.push(Fix {
                        title: if ja {
                            format!("{to} に直す")
                        } else {
                            format!("Change to {to}")
                        },
                        edits,
                    });
                }
            }
            FixHint::InitState(name) => out.push(Fix {
                title: if ja {
                    format!("初期値の行に {name}=0 を加える")
                } else {
                    format!("Add {name}=0 to the initial line")
                },
                edits: vec![add_to_init(text, ix, &format!("{name}=0"), true)],
            }),
            FixHint::EnableCommand(name) => out.push(Fix {
                title: if ja {
                    format!("初期値の行で [{name}] を使えるようにする")
                } else {
                    format!("Enable [{name}] in the initial line")
                },
                edits: vec![add_to_init(text, ix, &format!("[{name}]"), false)],
            }),
            FixHint::AddPrefix(name) => {
                let Some(at) = text
                    .get(d.span.clone())
                    .and_then(|s| s.find(name.as_str()))
                    .map(|i| d.span.start + i)
                else {
                    continue;
                };
                for (p, ja_t, en_t) in [
                    ("S.", "自分側", "the acting side"),
                    ("O.", "相手側", "the opponent"),
                ] {
                    out.push(Fix {
                        title: if ja {
                            format!("{p}{name} と書く({ja_t})")
                        } else {
                            format!("Write {p}{name} ({en_t})")
                        },
                        edits: vec![TextEdit {
                            span: at..at,
                            text: p.into(),
                        }],
                    });
                }
            }
            FixHint::CommandSequence { opp, cmds } => {
                // Spans from another version of the text are not edited.
                let fits = std::iter::once(&d.span)
                    .chain(d.labels.iter().map(|(s, _)| s))
                    .all(|s| text.get(s.clone()).is_some());
                if fits {
                    out.extend(neither_now(text, d, ix, *opp, cmds, ja));
                    out.push(sequence_meant(text, d, *opp, cmds, ja));
                }
            }
        }
    }
    out
}

/// The "none of these now" reading of a negated sequence (W019): its atoms (the diagnostic's
/// labels) become one atom of a macro of every other command, defined at the top of the file
/// (unless the file defines it already). None when an atom names a macro, or no command is
/// left. (It differs from "none of these now" only on a pass, which no command atom matches.)
fn neither_now(
    text: &str,
    d: &Diagnostic,
    ix: &SymbolIndex,
    opp: bool,
    cmds: &[String],
    ja: bool,
) -> Option<Fix> {
    let written = crate::syntax::lint::distinct(cmds.iter().map(String::as_str));
    if written
        .iter()
        .any(|c| !ix.uses(SymKind::Macro, c).is_empty())
    {
        return None;
    }
    let others: Vec<String> = ix
        .names(SymKind::Command)
        .into_iter()
        .map(|(n, _)| n.to_string())
        .filter(|n| !written.contains(&n.as_str()))
        .collect();
    let first = d.labels.first()?;
    if others.is_empty() || d.labels.len() != cmds.len() {
        return None;
    }
    let name = crate::syntax::lint::others_macro_name(&written);
    let atom = format!("{}[{name}]", if opp { "O." } else { "" });
    let mut edits = vec![TextEdit {
        span: first.0.clone(),
        text: atom,
    }];
    for (span, _) in &d.labels[1..] {
        edits.push(TextEdit {
            span: comma_before(text, span.start)..span.end,
            text: String::new(),
        });
    }
    let defined = ix
        .uses(SymKind::Macro, &name)
        .iter()
        .any(|o| o.role == crate::symbols::Role::Define);
    if !defined {
        let alts: Vec<String> = others.iter().map(|c| format!("[{c}]")).collect();
        let at = top_insertion(text);
        let def = format!("${{\n[{name}]:{}\n}}\n", alts.join(";"));
        edits.insert(
            0,
            TextEdit {
                span: at..at,
                text: if at > 0 && !text[..at].ends_with('\n') {
                    format!("\n{}", def.trim_end())
                } else {
                    def
                },
            },
        );
    }
    let listed: Vec<String> = written.iter().map(|c| format!("[{c}]")).collect();
    Some(Fix {
        title: if ja {
            format!(
                "「今は{}のどれでもない」に直す(マクロ [{name}])",
                listed.join("・")
            )
        } else {
            format!(
                "Rewrite as \"none of {} now\" (macro [{name}])",
                listed.join(", ")
            )
        },
        edits,
    })
}

/// The "sequence is meant" reading of a negated sequence (W019): a comment on the line that
/// spells the sequence out (and names it, so the warning is not given again).
fn sequence_meant(text: &str, d: &Diagnostic, opp: bool, cmds: &[String], ja: bool) -> Fix {
    let n = cmds.len();
    let parts: Vec<String> = cmds
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let back = n - 1 - i;
            if ja {
                let at = match (opp, back) {
                    (true, 0) => "相手の最新".to_string(),
                    (true, k) => format!("相手の{k}つ前"),
                    (false, 0) => "今回".to_string(),
                    (false, 1) => "前回".to_string(),
                    (false, k) => format!("{k}回前"),
                };
                format!("{at}が[{c}]でない")
            } else {
                format!(
                    "not [{c}] {}{}",
                    if opp { "on " } else { "" },
                    crate::syntax::lint::position_words(opp, back)
                )
            }
        })
        .collect();
    let note = if ja {
        format!("順番: {}", parts.join("、"))
    } else {
        format!("sequence: {}", parts.join(", "))
    };
    let at = d.span.start;
    let (s, e) = line_bounds(text, at);
    let line = &text[s..e];
    let has_comment = line.chars().any(|c| norm(c) == '#');
    let at = if has_comment {
        s + line.trim_end().len()
    } else {
        code_end(text, at)
    };
    Fix {
        title: if ja {
            "順番の意味のまま残す(行末のコメントで明示)".into()
        } else {
            "Keep the sequence (say so in a comment on the line)".into()
        },
        edits: vec![TextEdit {
            span: at..at,
            text: if has_comment {
                format!(" — {note}")
            } else {
                format!("  # {note}")
            },
        }],
    }
}

/// Where the comma before the condition at `at` begins (full-width too), skipping white space;
/// `at` itself when there is none.
fn comma_before(text: &str, at: usize) -> usize {
    let head = &text[..at];
    for (i, c) in head.char_indices().rev() {
        match norm(c) {
            ',' => return i,
            c if c.is_whitespace() && c != '\n' => continue,
            _ => break,
        }
    }
    at
}

/// Where a new statement goes at the top of a file: after its leading comments, blank lines
/// and `':` / `~` lines.
fn top_insertion(text: &str) -> usize {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t: String = line.trim_start().chars().take(2).map(norm).collect();
        if t.is_empty() || t.starts_with('#') || t.starts_with("':") || t.starts_with('~') {
            at += line.len();
        } else {
            break;
        }
    }
    at
}

/// An edit that adds `item` to the initial line: to the end of the first `!:` line of the same
/// kind (values, or commands), else to the first `!:` line, else as a new line at the top (after
/// the leading comments and settings).
fn add_to_init(text: &str, ix: &SymbolIndex, item: &str, value: bool) -> TextEdit {
    let init_line_of = |want_value: Option<bool>| {
        ix.occ().iter().find(|o| {
            let is_value = o.kind == SymKind::State;
            let init = match o.kind {
                SymKind::State => o.role == crate::symbols::Role::Init,
                SymKind::Command | SymKind::Macro => {
                    matches!(
                        o.role,
                        crate::symbols::Role::Enable | crate::symbols::Role::Disable
                    ) && line_starts_with_init(text, o.span.start)
                }
                _ => false,
            };
            init && want_value.is_none_or(|w| w == is_value)
        })
    };
    if let Some(o) = init_line_of(Some(value)).or_else(|| init_line_of(None)) {
        let end = code_end(text, o.span.start);
        return TextEdit {
            span: end..end,
            text: format!(",{item}"),
        };
    }
    // A new line after the leading comments, blank lines and `':` / `~` lines.
    let at = top_insertion(text);
    if at > 0 && !text[..at].ends_with('\n') {
        return TextEdit {
            span: at..at,
            text: format!("\n!:{item}"),
        };
    }
    TextEdit {
        span: at..at,
        text: format!("!:{item}\n"),
    }
}

fn line_bounds(text: &str, at: usize) -> (usize, usize) {
    let s = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let e = text[at..].find('\n').map_or(text.len(), |i| at + i);
    (s, e)
}

fn line_starts_with_init(text: &str, at: usize) -> bool {
    let (s, e) = line_bounds(text, at);
    let t: String = text[s..e].trim_start().chars().take(2).map(norm).collect();
    t == "!:"
}

/// Where the code of the line holding `at` ends (before a comment and trailing white space).
fn code_end(text: &str, at: usize) -> usize {
    let (s, e) = line_bounds(text, at);
    let line = &text[s..e];
    let code = line
        .char_indices()
        .find(|(_, c)| norm(*c) == '#')
        .map_or(line, |(i, _)| &line[..i]);
    s + code.trim_end().len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::compile;
    use crate::symbols::apply_edits;

    fn fix_all(src: &str, code: &str, pick: usize) -> String {
        let c = compile(src);
        let d = c
            .diags
            .iter()
            .find(|d| d.code == code)
            .unwrap_or_else(|| panic!("no {code} in {:?}", c.diags));
        let f = fixes(src, d, &c.symbols, false);
        apply_edits(src, &f[pick].edits)
    }

    #[test]
    fn a_typo_is_fixed_to_the_near_name() {
        let src = "!:体力=3,[ジャブ]\n[ジャブ]:O.体カ-1\nO.体力<=0:S.勝利\n";
        let out = fix_all(src, "W016", 0);
        assert!(out.contains("[ジャブ]:O.体力-1"), "{out}");
        assert!(compile(&out).diags.is_empty());
    }

    #[test]
    fn a_missing_prefix_is_added() {
        let src = "!:体力=3,[ジャブ]\n[ジャブ]:体力-1\nO.体力<=0:S.勝利\n";
        let out = fix_all(src, "E001", 1);
        assert!(out.contains("[ジャブ]:O.体力-1"), "{out}");
        assert_eq!(compile(&out).error_count(), 0);
    }

    #[test]
    fn a_bare_state_in_a_condition_gets_its_prefix() {
        let src = "!:体力=3,[ジャブ]\n[ジャブ],!体力:O.体力-1\nO.体力<=0:S.勝利\n";
        let out = fix_all(src, "E001", 0);
        assert!(out.contains("[ジャブ],!S.体力:O.体力-1"), "{out}");
        let src = "!:体力=3,[ジャブ]\n体力:S.勝利\n";
        let out = fix_all(src, "E001", 1);
        assert!(out.contains("\nO.体力:S.勝利"), "{out}");
    }

    #[test]
    fn a_state_never_set_gets_an_initial_value_and_a_command_is_enabled() {
        let src = "# test\n!:体力=3 # start\n!:[ジャブ]\n[ジャブ],S.気合>0:O.体力-1\n[キック]:O.体力-2\nO.体力<=0:S.勝利\n";
        let out = fix_all(src, "W010", 0);
        assert!(out.contains("!:体力=3,気合=0 # start"), "{out}");
        let out = fix_all(src, "W011", 0);
        assert!(out.contains("!:[ジャブ],[キック]\n"), "{out}");
        let bare = "[ジャブ],S.気合>0:O.体力-1\n";
        let out = fix_all(bare, "W011", 0);
        assert!(out.starts_with("!:[ジャブ]\n"), "{out}");
    }
}
