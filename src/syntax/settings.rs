//! The two lines parsed character by character rather than by the token grammar: key bindings
//! (`':j=[ジャブ],…`) and the CPU and match settings (`~P300,S3,D1,E0,T400,同時`).

use super::ast::*;
use super::grammar::convert_errors;
use super::lexer::{self, norm};
use super::names::Names;
use crate::diag::{DiagCode, Diagnostic, FixHint};
use chumsky::prelude::*;

/// Folds `text[start..end]` (stopping at a `#` comment) and returns the folded text with a map
/// from each folded byte offset (and the end) to the original byte offset.
fn fold(text: &str, start: usize, end: usize) -> (String, Vec<usize>) {
    let mut s = String::new();
    let mut map = Vec::new();
    let mut last = start;
    for (i, c) in text[start..end].char_indices() {
        let f = norm(c);
        if f == '#' {
            break;
        }
        for _ in 0..f.len_utf8() {
            map.push(start + i);
        }
        s.push(f);
        last = start + i + c.len_utf8();
    }
    map.push(last);
    (s, map)
}

fn char_errors(errs: Vec<Rich<'_, char>>, map: &[usize], text: &str) -> Vec<Diagnostic> {
    let eoi = *map.last().unwrap_or(&0);
    let mut ds = convert_errors(errs, |c: &char| char_word(*c), |_| None, eoi);
    for d in &mut ds {
        let s = map.get(d.span.start).copied().unwrap_or(eoi);
        let e = map.get(d.span.end).copied().unwrap_or(eoi).max(s);
        // Extend a one-character span to cover the whole (possibly multi-byte) original char.
        let one_char = text
            .get(s..)
            .and_then(|t| t.chars().next())
            .map_or(s, |c| s + c.len_utf8());
        d.span = s..if e == s && s < eoi {
            one_char.min(eoi)
        } else {
            e
        };
    }
    ds
}

/// A character as an error message names it: quoted, or in words where quoting would print an
/// invisible or control character (`a tab`, `a space`).
fn char_word(c: char) -> String {
    match c {
        ' ' => "a space".into(),
        '\t' => "a tab".into(),
        '\r' | '\n' => "the end of the line".into(),
        c if c.is_control() || c.is_whitespace() => format!("the character U+{:04X}", c as u32),
        c => format!("'{c}'"),
    }
}

/// What every key line's syntax error adds: the form it must take.
const KEY_LINE_FORM: &str =
    "a key line is ':KEY=[command],KEY=[command]…, for example ':w=[前進],s=[後退]'";

/// The first binding of a key line (`folded`, already without a comment) that does not have the
/// form `KEY=[command]`, as a diagnostic saying what is missing and how to write it; `map` takes
/// folded offsets back to `text`. None when every item has that form (the error is elsewhere).
fn key_item_problem(folded: &str, map: &[usize], text: &str) -> Option<Diagnostic> {
    let body = folded.strip_prefix("':")?;
    if body.trim().is_empty() {
        return Some(
            Diagnostic::error(
                DiagCode::E001,
                map[0]..map[2],
                "a key line with no bindings",
            )
            .with_help(KEY_LINE_FORM),
        );
    }
    let mut at = 2;
    for raw in body.split(',') {
        let (a, b) = (at, at + raw.len());
        at = b + 1;
        let lead = raw.len() - raw.trim_start().len();
        let item = raw.trim();
        let (ia, ib) = (a + lead, a + lead + item.len());
        let span = map[ia]..map[ib];
        let original = text.get(span.clone()).unwrap_or(item);
        // Shown in messages: a tab between the key and the command prints as a space.
        let shown: String = item
            .chars()
            .map(|c| {
                if c.is_whitespace() || c.is_control() {
                    ' '
                } else {
                    c
                }
            })
            .collect();
        let item = shown.as_str();
        let problem = |message: String, to: Option<String>| {
            let help = match &to {
                Some(t) => format!("write {t}: {KEY_LINE_FORM}"),
                None => KEY_LINE_FORM.to_string(),
            };
            let d = Diagnostic::error(DiagCode::E001, span.clone(), message).with_help(help);
            Some(match to {
                Some(to) => d.with_fix(FixHint::Replace {
                    from: original.to_string(),
                    to,
                }),
                None => d,
            })
        };
        if item.is_empty() {
            // The comma after the empty item, or the one before it at the end of the line.
            let span = if b < body.len() + 2 {
                map[b]..map[b + 1]
            } else {
                map[a - 1]..map[a]
            };
            return Some(
                Diagnostic::error(DiagCode::E001, span, "empty key binding (an extra ',')")
                    .with_help(format!("remove the extra ','; {KEY_LINE_FORM}")),
            );
        }
        let (key, cmd) = match item.split_once('=') {
            Some((k, c)) => (k.trim(), Some(c.trim())),
            None => match item.find('[') {
                Some(i) => (item[..i].trim(), None),
                None => {
                    return problem(
                        format!(
                            "'{item}' is not a key binding: it needs a key, '=' and a command in brackets"
                        ),
                        None,
                    );
                }
            },
        };
        let Some(cmd) = cmd else {
            let cmd = item[item.find('[').unwrap_or(0)..].trim();
            if key.is_empty() {
                return problem(format!("the binding '{item}' has no key"), None);
            }
            return problem(
                format!("the binding '{item}' has no '=' between the key and the command"),
                Some(format!("{key}={cmd}")),
            );
        };
        if key.is_empty() {
            return problem(format!("the binding '{item}' has no key before '='"), None);
        }
        let name = cmd.strip_prefix('[').and_then(|c| c.strip_suffix(']'));
        match name {
            Some(n) if !n.is_empty() && n.chars().all(lexer::is_name_char) => {}
            Some(_) => {
                return problem(format!("'{cmd}' is not a command name in brackets"), None);
            }
            None => {
                let bare = cmd.trim_start_matches('[').trim_end_matches(']');
                let fix = (!bare.is_empty() && bare.chars().all(lexer::is_name_char))
                    .then(|| format!("{key}=[{bare}]"));
                return problem(
                    format!("the command after '=' goes in brackets: '{cmd}' is not [command]"),
                    fix,
                );
            }
        }
    }
    None
}

/// Named keys accepted in `':` lines.
pub const NAMED_KEYS: [&str; 7] = ["Space", "Enter", "Up", "Down", "Left", "Right", "Tab"];

pub(super) fn parse_keys(
    text: &str,
    start: usize,
    stop: usize,
    names: &mut Names,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<KeyBind>> {
    let (folded, map) = fold(text, start, stop);
    let ws = one_of::<_, &str, extra::Err<Rich<char>>>(" \t").repeated();
    let key = none_of(",= \t")
        .repeated()
        .at_least(1)
        .to_slice()
        .map_with(|s: &str, e| (s.to_string(), e.span()))
        .labelled("key");
    let cname = any()
        .filter(|c: &char| lexer::is_name_char(*c))
        .repeated()
        .at_least(1)
        .to_slice()
        .labelled("command name");
    let cmd = just('[')
        .ignore_then(cname)
        .then_ignore(just(']'))
        .map_with(|s: &str, e| (s.to_string(), e.span()))
        .labelled("command [X]");
    let bind = ws
        .ignore_then(key)
        .then_ignore(ws)
        .then_ignore(just('='))
        .then_ignore(ws)
        .then(cmd)
        .then_ignore(ws);
    let line = just("':")
        .ignore_then(bind.separated_by(just(',')).at_least(1).collect::<Vec<_>>())
        .then_ignore(end());
    let (out, errs) = line.parse(folded.as_str()).into_output_errors();
    if !errs.is_empty() {
        match key_item_problem(&folded, &map, text) {
            Some(d) => diags.push(d),
            None => diags.extend(
                char_errors(errs, &map, text)
                    .into_iter()
                    .map(|d| d.with_help(KEY_LINE_FORM)),
            ),
        }
        return None;
    }
    let mut binds = Vec::new();
    let mut ok = true;
    for ((k, ks), (c, cs)) in out.unwrap_or_default() {
        let kspan = map[ks.start]..map[ks.end];
        let cspan = map[cs.start]..map[cs.end];
        if k.chars().count() != 1 && !NAMED_KEYS.contains(&k.as_str()) {
            diags.push(
                Diagnostic::error(DiagCode::E043, kspan.clone(), format!("'{k}' is not a key"))
                    .with_help(format!(
                        "a key is one character (upper case = Shift) or one of {}",
                        NAMED_KEYS.join(" ")
                    )),
            );
            ok = false;
            continue;
        }
        binds.push(KeyBind {
            key: Key(k),
            key_span: kspan,
            cmd: CmdRef {
                name: names.intern(&c),
                span: cspan,
            },
        });
    }
    ok.then_some(binds)
}

pub(super) fn parse_settings(
    text: &str,
    start: usize,
    stop: usize,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<(Setting, Span)>> {
    let (folded, map) = fold(text, start, stop);
    let item = none_of::<_, &str, extra::Err<Rich<char>>>(",")
        .repeated()
        .to_slice()
        .map_with(|s: &str, e| (s.to_string(), e.span()));
    let line = just('~')
        .ignore_then(item.separated_by(just(',')).collect::<Vec<_>>())
        .then_ignore(end());
    let (out, errs) = line.parse(folded.as_str()).into_output_errors();
    if !errs.is_empty() {
        diags.extend(char_errors(errs, &map, text));
        return None;
    }
    let mut res = Vec::new();
    let mut ok = true;
    for (raw, s) in out.unwrap_or_default() {
        let lead = raw.len() - raw.trim_start().len();
        let item = raw.trim();
        let a = s.start + lead;
        let span = map[a]..map[a + item.len()];
        if item.is_empty() {
            diags.push(
                Diagnostic::error(DiagCode::E032, map[s.start]..map[s.end], "empty setting")
                    .with_help("remove the extra ','"),
            );
            ok = false;
            continue;
        }
        match parse_setting(item) {
            Ok(st) => res.push((st, span)),
            Err((code, msg, help)) => {
                diags.push(Diagnostic::error(code, span, msg).with_help(help));
                ok = false;
            }
        }
    }
    ok.then_some(res)
}

/// Valid ranges of numeric settings (documented in rules/README.md).
pub const SETTING_RANGES: [(char, u32, u32); 5] = [
    ('P', 1, 3_600_000),
    ('S', 1, 30),
    ('E', 0, 10),
    ('T', 1, 1_000_000),
    ('D', 1, 1000),
];

/// One `~` setting (already folded to ASCII forms): the setting, or (code, message, help).
pub fn parse_setting(item: &str) -> Result<Setting, (DiagCode, String, String)> {
    let lower = item.to_ascii_lowercase();
    match lower.as_str() {
        "同時" | "simultaneous" => return Ok(Setting::Simultaneous),
        "先手c" | "first=c" => return Ok(Setting::CpuFirst(true)),
        "先手h" | "first=h" => return Ok(Setting::CpuFirst(false)),
        _ => {}
    }
    let unknown = || {
        (
            DiagCode::E032,
            format!("unknown setting '{item}'"),
            "settings are P<ms>, S<depth>, D<thinning>, E<mistakes>, T<turn limit>, 同時 (simultaneous), 先手c (first=c)".to_string(),
        )
    };
    let mut chars = item.chars();
    let letter = chars
        .next()
        .map(|c| c.to_ascii_uppercase())
        .ok_or_else(unknown)?;
    let num = chars.as_str();
    let Some(&(_, lo, hi)) = SETTING_RANGES.iter().find(|r| r.0 == letter) else {
        return Err(unknown());
    };
    if num.is_empty() || !num.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return Err(unknown());
    }
    let range_err = |v: &str| {
        (
            DiagCode::E033,
            format!("{letter}{v} is out of range"),
            format!("{letter} must be between {lo} and {hi}"),
        )
    };
    if letter == 'D' {
        let v: f64 = num.parse().map_err(|_| unknown())?;
        if !(lo as f64..=hi as f64).contains(&v) {
            return Err(range_err(num));
        }
        return Ok(Setting::Thin(v));
    }
    if num.contains('.') {
        return Err((
            DiagCode::E033,
            format!("{letter} takes a whole number, not '{num}'"),
            format!("{letter} must be between {lo} and {hi}"),
        ));
    }
    let v: u64 = num.parse().map_err(|_| range_err(num))?;
    if v < lo as u64 || v > hi as u64 {
        return Err(range_err(num));
    }
    let v = v as u32;
    Ok(match letter {
        'P' => Setting::Period(v),
        'S' => Setting::Depth(v),
        'E' => Setting::Mistakes(v),
        _ => Setting::TurnLimit(v),
    })
}

#[cfg(test)]
mod tests {
    /// An "expected" list names white space in words: a raw tab in a message is invisible.
    #[test]
    fn white_space_is_named_in_words() {
        assert_eq!(super::char_word('\t'), "a tab");
        assert_eq!(super::char_word(' '), "a space");
        assert_eq!(super::char_word('\u{7}'), "the character U+0007");
        assert_eq!(super::char_word('='), "'='");
    }
}
