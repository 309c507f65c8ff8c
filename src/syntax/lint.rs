//! Warnings about lines that parse but probably do not say what their author meant, read off
//! the syntax tree as written (before macros are expanded, so they name what the author wrote).
//!
//! - W019: a command sequence whose atoms are all negated. `!O.[受け],!O.[後退]` reads like
//!   "the opponent neither parries nor retreats", but the opponent's atoms form a sequence with
//!   one position per atom (§4): "not 受け on the move before, and not 後退 on its latest". A
//!   comment on the line that names the sequence (`# 順番…` or `# sequence…`) says it is meant.

use super::ast::{CmdSide, Cond, Rule, Span, Stmt};
use super::lexer::norm;
use super::names::Names;
use crate::diag::{DiagCode, Diagnostic, FixHint};

/// The diagnostics of one parsed text, taken from `parsed`: the parser's own, with every check
/// that reads the text's lines on their own (the side-prefix hint at a bare state name, W019).
/// The whole-file check and each chunk of the incremental one call this, so a new check of
/// this kind is added here once.
pub fn line_checks(text: &str, parsed: &mut crate::syntax::parser::ParsedFile) -> Vec<Diagnostic> {
    let mut diags = std::mem::take(&mut parsed.diags);
    crate::syntax::grammar::hint_bare_names(text, &mut diags);
    negated_sequences(text, &parsed.stmts, &parsed.names, &mut diags);
    diags
}

/// W019 for every rule among `stmts` (those in symmetric blocks too) whose own or opponent
/// command atoms are two or more, all negated; `text` is what the spans point into.
pub fn negated_sequences(text: &str, stmts: &[Stmt], names: &Names, diags: &mut Vec<Diagnostic>) {
    for s in stmts {
        match s {
            Stmt::Rule(r) => rule_sequences(text, r, names, diags),
            Stmt::Symmetric { rules, .. } => {
                for r in rules {
                    rule_sequences(text, r, names, diags);
                }
            }
            _ => {}
        }
    }
}

/// One command atom of a sequence: negated, its command and its span.
struct Atom<'a> {
    neg: bool,
    name: &'a str,
    span: Span,
}

/// W019 for the rule's own sequence and its opponent sequence, each on its own.
fn rule_sequences(text: &str, r: &Rule, names: &Names, diags: &mut Vec<Diagnostic>) {
    for side in [CmdSide::Own, CmdSide::Opp] {
        let atoms: Vec<Atom> = r
            .conds
            .iter()
            .filter_map(|c| match c {
                Cond::Cmd {
                    neg,
                    side: s,
                    cmd,
                    span,
                } if *s == side => Some(Atom {
                    neg: *neg,
                    name: names.get(cmd.name),
                    span: span.clone(),
                }),
                _ => None,
            })
            .collect();
        // `!O.[受け],!O.[受け]` (not twice running) can only mean the sequence.
        let one_command = atoms.iter().all(|a| a.name == atoms[0].name);
        if atoms.len() < 2
            || one_command
            || atoms.iter().any(|a| !a.neg)
            || sequence_is_meant(text, &r.span)
        {
            continue;
        }
        diags.push(warning(&atoms, side == CmdSide::Opp));
    }
}

/// Whether the line holding `span` has a comment naming the sequence (`順番`, `sequence`).
fn sequence_is_meant(text: &str, span: &Span) -> bool {
    let Some(end) = text.get(span.end..) else {
        return false;
    };
    let line = &end[..end.find('\n').unwrap_or(end.len())];
    match line.char_indices().find(|(_, c)| norm(*c) == '#') {
        Some((i, _)) => {
            let comment = &line[i..];
            comment.contains("順番") || comment.to_ascii_lowercase().contains("sequence")
        }
        None => false,
    }
}

/// Where position `back` (0 = the latest) of a sequence lies, in words.
pub fn position_words(opp: bool, back: usize) -> String {
    match (opp, back) {
        (true, 0) => "its latest move".into(),
        (true, 1) => "its move before the latest".into(),
        (true, n) => format!("its move {n} before the latest"),
        (false, 0) => "this turn".into(),
        (false, 1) => "last turn".into(),
        (false, n) => format!("{n} turns ago"),
    }
}

/// The warning for one all-negated sequence: both readings, each atom labelled with its place.
fn warning(atoms: &[Atom], opp: bool) -> Diagnostic {
    let n = atoms.len();
    let prefix = if opp { "O." } else { "" };
    let whose = if opp {
        "the opponent's moves"
    } else {
        "the acting side's moves"
    };
    let cmds = distinct(atoms.iter().map(|a| a.name));
    let listed: Vec<String> = cmds.iter().map(|c| format!("[{c}]")).collect();
    let neither = match listed.as_slice() {
        [a, b] => format!("neither {a} nor {b}"),
        _ => format!("none of {}", listed.join(", ")),
    };
    let written: Vec<String> = atoms
        .iter()
        .map(|a| format!("!{prefix}[{}]", a.name))
        .collect();
    let reading: Vec<String> = atoms
        .iter()
        .enumerate()
        .map(|(i, a)| format!("not [{}] {}", a.name, at_words(opp, n - 1 - i)))
        .collect();
    let span = atoms[0].span.start..atoms[n - 1].span.end;
    let macro_name = others_macro_name(&cmds);
    let mut d = Diagnostic::warning(
        DiagCode::W019,
        span,
        format!(
            "{} is a sequence of {whose}, one atom per move: {} — it does not mean \"{neither} now\"",
            written.join(","),
            reading.join(", then ")
        ),
    );
    for (i, a) in atoms.iter().enumerate() {
        d = d.with_label(
            a.span.clone(),
            format!("not [{}] {}", a.name, at_words(opp, n - 1 - i)),
        );
    }
    d.with_help(format!(
        "for \"{neither} now\", name the moves that remain: a macro ${{ [{macro_name}]:[…];[…] }} of the other commands and the one atom {prefix}[{macro_name}] (or one rule per remaining move); if the sequence is meant, say so in a comment on the line (# 順番 or # sequence)"
    ))
    .with_fix(FixHint::CommandSequence {
        opp,
        cmds: atoms.iter().map(|a| a.name.to_string()).collect(),
    })
}

/// "on its latest move", "on the move before", "this turn" …
fn at_words(opp: bool, back: usize) -> String {
    let w = position_words(opp, back);
    if opp { format!("on {w}") } else { w }
}

/// The names in their first order, each once.
pub fn distinct<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut v: Vec<&str> = Vec::new();
    for n in names {
        if !v.contains(&n) {
            v.push(n);
        }
    }
    v
}

/// The name of the macro that stands for every command but `cmds`: `受け・後退以外` (`・` is a
/// name character).
pub fn others_macro_name(cmds: &[&str]) -> String {
    format!("{}以外", cmds.join("・"))
}
