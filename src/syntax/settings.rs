//! The two lines parsed character by character rather than by the token grammar: key bindings
//! (`':j=[ジャブ],…`) and the CPU and match settings (`~P300,S3,D1,E0,T400,同時`).

use super::ast::*;
use super::grammar::convert_errors;
use super::lexer::{self, norm};
use super::names::Names;
use crate::diag::{DiagCode, Diagnostic};
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
    let mut ds = convert_errors(errs, |c: &char| format!("'{c}'"), eoi);
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
        diags.extend(char_errors(errs, &map, text));
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
