//! `kumite fmt`: canonical spacing.
//!
//! The canonical form is the one the bundled rule files use: no spaces between tokens (one where
//! two names or numbers meet, or where two symbols would otherwise read as one, `: :`), no
//! indentation, one space before a comment that follows code, no trailing white space, at most
//! one blank line in a row, no blank lines at the start or the end, one newline at the end.
//! Characters are kept as typed — full-width forms stay full-width — and comments are kept word
//! for word. A line with a syntax error is left as it is, and a line is only rewritten when it
//! lexes to the same tokens afterwards, so formatting never changes what a file means.

use crate::diag::{Diagnostic, LineIndex};
use crate::syntax::lexer::{Tok, lex_line, norm};
use crate::syntax::names::Names;

/// Lexes one line's code: tokens with their original text.
fn tokens(code: &str) -> Option<Vec<(Tok, String, std::ops::Range<usize>)>> {
    let mut names = Names::default();
    let mut out = Vec::new();
    let mut diags: Vec<Diagnostic> = Vec::new();
    lex_line(code, 0, code.len(), &mut names, &mut out, &mut diags);
    if diags.iter().any(Diagnostic::is_error) {
        return None;
    }
    Some(
        out.into_iter()
            .map(|(t, sp)| {
                let r = sp.start..sp.end;
                // Names compare by text: a fresh interner per line numbers them differently.
                let t = match t {
                    Tok::Name(_) => Tok::Name(crate::syntax::names::NameId(0)),
                    t => t,
                };
                (t, code[r.clone()].to_string(), r)
            })
            .collect(),
    )
}

fn is_word(t: &Tok) -> bool {
    matches!(t, Tok::Name(_) | Tok::Int(_) | Tok::Dec(_))
}

/// The code of one line in canonical spacing, or `None` to keep the line as it is.
fn format_code(code: &str) -> Option<String> {
    let toks = tokens(code)?;
    let mut out = String::with_capacity(code.len());
    for (i, (t, s, r)) in toks.iter().enumerate() {
        if i > 0 {
            let (pt, ps, pr) = &toks[i - 1];
            let gap = pr.end < r.start;
            let last = ps.chars().last().map(norm).unwrap_or(' ');
            let first = s.chars().next().map(norm).unwrap_or(' ');
            let merge = matches!(
                (last, first),
                (':', ':') | ('=' | '!' | '<' | '>' | '+' | '-' | '*' | '/', '=')
            );
            // The first two tokens decide the statement kind (`!:`, `':`): a space the author
            // put between them stays.
            let head = i == 1 && matches!(last, '!' | '\'') && first == ':';
            if (is_word(pt) && is_word(t)) || (gap && (merge || head)) {
                out.push(' ');
            }
        }
        out.push_str(s);
    }
    // Same tokens, same names, afterwards.
    let again = tokens(&out)?;
    let same = again.len() == toks.len()
        && again
            .iter()
            .zip(&toks)
            .all(|(a, b)| a.0 == b.0 && (!matches!(a.0, Tok::Name(_)) || a.1 == b.1));
    same.then_some(out)
}

/// Whether `after` means what `before` means but for the values of integer literals — the check
/// `kumite suggest` makes of every edit: line by line, the same comments and the same tokens
/// (names by their text), an integer only for an integer, and no other text changed.
pub fn same_but_numbers(before: &str, after: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) =
        (before.split('\n').collect(), after.split('\n').collect());
    a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| {
            if x == y {
                return true;
            }
            let ((xc, xm), (yc, ym)) = (split_comment(x), split_comment(y));
            let (Some(xt), Some(yt)) = (tokens(xc), tokens(yc)) else {
                return false;
            };
            xm == ym
                && xt.len() == yt.len()
                && xt.iter().zip(&yt).all(|(p, q)| match (&p.0, &q.0) {
                    (Tok::Int(_), Tok::Int(_)) => true,
                    _ => p.0 == q.0 && p.1 == q.1,
                })
        })
}

/// Splits a line into code and comment (the comment with its `#`).
fn split_comment(line: &str) -> (&str, &str) {
    match line.char_indices().find(|(_, c)| norm(*c) == '#') {
        Some((i, _)) => (&line[..i], &line[i..]),
        None => (line, ""),
    }
}

/// `text` in canonical form. Lines holding a syntax error (per `compile`) stay as written,
/// apart from trailing white space.
pub fn format(text: &str) -> String {
    format_checked(text, &crate::pipeline::compile(text).diags)
}

/// [`format`] with the diagnostics of `text` already at hand (the studio and the language
/// server have them from their last check).
pub fn format_checked(text: &str, diags: &[Diagnostic]) -> String {
    let index = LineIndex::new(text);
    let bad: std::collections::HashSet<usize> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| index.line_of(d.span.start))
        .collect();
    let crlf = text.contains("\r\n");
    let mut lines: Vec<String> = Vec::new();
    for (n, raw) in text.split('\n').enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let line = raw.trim_end();
        let formatted = if bad.contains(&n) {
            line.to_string()
        } else {
            let (code, comment) = split_comment(line);
            let comment = comment.trim_end();
            match format_code(code.trim()) {
                Some(c) if c.is_empty() => comment.to_string(),
                Some(c) if comment.is_empty() => c,
                Some(c) => format!("{c} {comment}"),
                None => line.to_string(),
            }
        };
        let blank = formatted.trim().is_empty();
        if blank && lines.last().is_none_or(|l| l.is_empty()) {
            continue;
        }
        lines.push(if blank { String::new() } else { formatted });
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    if lines.is_empty() {
        return String::new();
    }
    let nl = if crlf { "\r\n" } else { "\n" };
    let mut out = lines.join(nl);
    out.push_str(nl);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_numbers_values_may_change() {
        let f = "!:h.体力=20 # 体力 20\n[突く]:O.体力-3\n";
        assert!(same_but_numbers(f, f));
        assert!(same_but_numbers(f, &f.replace("-3", "-12")));
        assert!(same_but_numbers(f, &f.replace("=20 #", "=7 #")));
        // A comment, a name, a decimal for an integer, a sign, a line more: not numbers' values.
        assert!(!same_but_numbers(f, &f.replace("体力 20", "体力 21")));
        assert!(!same_but_numbers(f, &f.replace("O.体力-3", "O.体力+3")));
        assert!(!same_but_numbers(f, &f.replace("-3", "-3.5")));
        assert!(!same_but_numbers(f, &f.replace("体力-3", "体力x-3")));
        assert!(!same_but_numbers(f, &format!("{f}\n")));
        // Digits inside a name are the name's.
        let g = "':z=[入札1]\n";
        assert!(!same_but_numbers(g, &g.replace("入札1", "入札2")));
    }

    #[test]
    fn spaces_go_and_meaning_stays() {
        let src = "\n\n  !: h.体力 = 3 , c.体力=3   # start\n\n\n':j = [ジャブ]\n[ジャブ] : O.体力 - 1\n  O.体力 <= 0 : S.勝利\n";
        let out = format(src);
        assert_eq!(
            out,
            "!:h.体力=3,c.体力=3 # start\n\n':j=[ジャブ]\n[ジャブ]:O.体力-1\nO.体力<=0:S.勝利\n"
        );
        assert_eq!(format(&out), out);
    }

    #[test]
    fn tokens_that_would_merge_keep_a_space() {
        // `: :` is two colons, not `::`; `! :` is not the initial line.
        assert_eq!(
            format_code("[x] : : S.y"),
            None.or(Some("[x]: :S.y".into()))
        );
        assert_eq!(format_code("S.a < = 1"), Some("S.a< =1".into()));
        assert_eq!(format_code("! : h.x=1"), Some("! :h.x=1".into()));
    }

    #[test]
    fn broken_lines_and_full_width_stay_as_written() {
        let src = "Ｏ．体力　＜＝　０：Ｓ．勝利\n[ジャブ]: 体 力 - 1\n";
        let out = format(src);
        assert_eq!(out, "Ｏ．体力＜＝０：Ｓ．勝利\n[ジャブ]: 体 力 - 1\n");
    }

    #[test]
    fn bundled_files_are_canonical() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/rules");
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "kmt") {
                let t = std::fs::read_to_string(&p).unwrap();
                assert_eq!(format(&t), t, "{} is not in canonical form", p.display());
            }
        }
    }
}
