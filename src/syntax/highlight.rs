//! Syntax colouring for one line of rule text.
//!
//! The parser's lexer drops comments and tells no statement kinds apart, so the editor has its
//! own small scanner over the folded characters ([`norm`]): it never fails, and every byte of the
//! line gets a [`Kind`]. Spans are byte ranges into the line as written (full-width included).

use crate::syntax::lexer::{is_name_char, norm};
use std::ops::Range;

/// What a piece of rule text is, for colouring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// White space and anything not otherwise coloured.
    Plain,
    /// `# …` to the end of the line.
    Comment,
    /// Statement and block sigils: `!:` `':` `~` `@3/` `%0.6{` `&{` `${` `}`.
    Sigil,
    /// Side prefixes `S.` `O.` `h.` `c.` (any case, full-width too).
    Side,
    /// A command in brackets, `[押す]`.
    Command,
    /// A state name after a side prefix (or set in the initial line).
    State,
    /// A bare name: a constant or macro.
    Name,
    /// A number.
    Number,
    /// Operators: `! + - * / % = == != < <= > >= += -= *= /= ( )`.
    Operator,
    /// Separators: `:` `::` `,` `;`.
    Punct,
    /// `min` `max` `abs` `rand`.
    Function,
    /// A setting in a `~` line (`P50`, `同時`).
    Setting,
    /// A key in a `':` line.
    Key,
}

/// Every kind, for legends and tests.
pub const ALL_KINDS: [Kind; 13] = [
    Kind::Plain,
    Kind::Comment,
    Kind::Sigil,
    Kind::Side,
    Kind::Command,
    Kind::State,
    Kind::Name,
    Kind::Number,
    Kind::Operator,
    Kind::Punct,
    Kind::Function,
    Kind::Setting,
    Kind::Key,
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Rule,
    Init,
    Keys,
    Settings,
}

/// Colours one line (without its newline). The runs cover the line without gaps, in order.
pub fn highlight_line(line: &str) -> Vec<(Range<usize>, Kind)> {
    let chars: Vec<(usize, char)> = line.char_indices().map(|(i, c)| (i, norm(c))).collect();
    let n = chars.len();
    let end_of = |k: usize| if k < n { chars[k].0 } else { line.len() };
    let mut out: Vec<(Range<usize>, Kind)> = Vec::new();
    let push = |out: &mut Vec<(Range<usize>, Kind)>, a: usize, b: usize, kind: Kind| {
        if a >= b {
            return;
        }
        if let Some(last) = out.last_mut()
            && last.1 == kind
            && last.0.end == a
        {
            last.0.end = b;
            return;
        }
        out.push((a..b, kind));
    };
    let c_at = |k: usize| if k < n { chars[k].1 } else { '\0' };

    let mut i = 0;
    while i < n && c_at(i).is_whitespace() {
        i += 1;
    }
    push(&mut out, 0, end_of(i), Kind::Plain);

    // The statement kind and its sigil.
    let mut kind = LineKind::Rule;
    match (c_at(i), c_at(i + 1)) {
        ('!', ':') => {
            kind = LineKind::Init;
            push(&mut out, end_of(i), end_of(i + 2), Kind::Sigil);
            i += 2;
        }
        ('\'', ':') => {
            kind = LineKind::Keys;
            push(&mut out, end_of(i), end_of(i + 2), Kind::Sigil);
            i += 2;
        }
        ('~', _) => {
            kind = LineKind::Settings;
            push(&mut out, end_of(i), end_of(i + 1), Kind::Sigil);
            i += 1;
        }
        ('@', _) => {
            // `@`, `@3/`
            let s = i;
            i += 1;
            while c_at(i).is_ascii_digit() {
                i += 1;
            }
            if c_at(i) == '/' {
                i += 1;
            }
            push(&mut out, end_of(s), end_of(i), Kind::Sigil);
        }
        ('%' | '&' | '$', _) => {
            // A block header up to `{`: the weight is a number, mirror pairs are names.
            let s = i;
            if let Some(brace) = (i..n).find(|&k| c_at(k) == '{') {
                push(&mut out, end_of(s), end_of(s + 1), Kind::Sigil);
                let mut k = s + 1;
                while k < brace {
                    let c = c_at(k);
                    let st = k;
                    let kind = if c.is_ascii_digit() || c == '.' {
                        while k < brace && (c_at(k).is_ascii_digit() || c_at(k) == '.') {
                            k += 1;
                        }
                        Kind::Number
                    } else if is_name_char(c) {
                        while k < brace && is_name_char(c_at(k)) {
                            k += 1;
                        }
                        Kind::Name
                    } else {
                        k += 1;
                        if c.is_whitespace() {
                            Kind::Plain
                        } else {
                            Kind::Punct
                        }
                    };
                    push(&mut out, end_of(st), end_of(k), kind);
                }
                push(&mut out, end_of(brace), end_of(brace + 1), Kind::Sigil);
                i = brace + 1;
            }
        }
        ('}', _) => {
            push(&mut out, end_of(i), end_of(i + 1), Kind::Sigil);
            i += 1;
        }
        _ => {}
    }

    // In a key line, everything from a line start or `,` up to `=` is a key.
    let mut expect_key = kind == LineKind::Keys;
    while i < n {
        let c = c_at(i);
        let s = i;
        if expect_key && !c.is_whitespace() {
            if c == '#' {
                push(&mut out, end_of(i), line.len(), Kind::Comment);
                break;
            }
            while i < n && c_at(i) != '=' && c_at(i) != ',' && c_at(i) != '#' {
                i += 1;
            }
            push(&mut out, end_of(s), end_of(i), Kind::Key);
            expect_key = false;
            continue;
        }
        if c.is_whitespace() {
            while i < n && c_at(i).is_whitespace() {
                i += 1;
            }
            push(&mut out, end_of(s), end_of(i), Kind::Plain);
            continue;
        }
        if c == '#' {
            push(&mut out, end_of(i), line.len(), Kind::Comment);
            break;
        }
        if c == '[' {
            // A command up to its `]` on this line.
            match (i + 1..n).find(|&k| c_at(k) == ']' || c_at(k) == '[') {
                Some(k) if c_at(k) == ']' => {
                    i = k + 1;
                    push(&mut out, end_of(s), end_of(i), Kind::Command);
                }
                _ => {
                    i += 1;
                    push(&mut out, end_of(s), end_of(i), Kind::Operator);
                }
            }
            continue;
        }
        if c.is_ascii_digit() || (c == 'ー' && c_at(i + 1).is_ascii_digit()) {
            i += 1;
            while i < n
                && (c_at(i).is_ascii_digit()
                    || (c_at(i) == '.' && c_at(i + 1).is_ascii_digit())
                    || (kind == LineKind::Settings && is_name_char(c_at(i))))
            {
                i += 1;
            }
            let k = if kind == LineKind::Settings && c != 'ー' && !c.is_ascii_digit() {
                Kind::Setting
            } else if c == 'ー' {
                push(&mut out, end_of(s), end_of(s + 1), Kind::Operator);
                push(&mut out, end_of(s + 1), end_of(i), Kind::Number);
                continue;
            } else {
                Kind::Number
            };
            push(&mut out, end_of(s), end_of(i), k);
            continue;
        }
        if is_name_char(c) {
            while i < n
                && is_name_char(c_at(i))
                && !(c_at(i) == 'ー' && c_at(i + 1).is_ascii_digit())
            {
                i += 1;
            }
            let word: String = chars[s..i].iter().map(|x| x.1).collect();
            // A side prefix: one of S O h c (any case) directly followed by `.`.
            if i - s == 1
                && matches!(word.as_str(), "S" | "s" | "O" | "o" | "H" | "h" | "C" | "c")
                && c_at(i) == '.'
            {
                i += 1;
                push(&mut out, end_of(s), end_of(i), Kind::Side);
                // The state name after it (a command `[X]` is coloured on its own).
                let st = i;
                while i < n && is_name_char(c_at(i)) {
                    i += 1;
                }
                push(&mut out, end_of(st), end_of(i), Kind::State);
                continue;
            }
            let next = (i..n).map(c_at).find(|c| !c.is_whitespace());
            let k = match kind {
                LineKind::Settings => Kind::Setting,
                LineKind::Init => Kind::State,
                _ if matches!(word.as_str(), "min" | "max" | "abs" | "rand")
                    && next == Some('(') =>
                {
                    Kind::Function
                }
                _ => Kind::Name,
            };
            push(&mut out, end_of(s), end_of(i), k);
            continue;
        }
        // Symbols.
        let two = matches!(
            (c, c_at(i + 1)),
            (':', ':')
                | ('=', '=')
                | ('!', '=')
                | ('<', '=')
                | ('>', '=')
                | ('+', '=')
                | ('-', '=')
                | ('*', '=')
                | ('/', '=')
        );
        i += if two { 2 } else { 1 };
        let k = match c {
            ':' | ',' | ';' => Kind::Punct,
            '{' | '}' => Kind::Sigil,
            _ => Kind::Operator,
        };
        if c == ',' && kind == LineKind::Keys {
            expect_key = true;
        }
        push(&mut out, end_of(s), end_of(i), k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &str) -> Vec<(&str, Kind)> {
        highlight_line(line)
            .into_iter()
            .filter(|(_, k)| *k != Kind::Plain)
            .map(|(r, k)| (&line[r], k))
            .collect()
    }

    #[test]
    fn runs_cover_the_line() {
        for line in [
            "!:後ろ余裕度=6,スタミナ=10,[踏ん張る]",
            "':L=[左マワシ取る],R=[右マワシ取る],C=[投げる]",
            "~P50,S3,D1,E0,T300",
            "%0.6{S.左マワシ取った:100}",
            "&左/右{",
            "@3/:S.スタミナ+=max(0,min(2,最大スタミナ-S.スタミナ))",
            "Ｓ．スタミナ＜＝０：！［殴る］ # 全角",
            "[押す]",
            "  ",
            "",
            "S.x-ー1",
        ] {
            let runs = highlight_line(line);
            let mut at = 0;
            for (r, _) in &runs {
                assert_eq!(r.start, at, "{line}");
                at = r.end;
            }
            assert_eq!(at, line.len(), "{line}");
        }
    }

    #[test]
    fn colours_every_kind() {
        assert_eq!(
            kinds("[押す],S.x>=1:O.y-=rand(1,費用) # c"),
            vec![
                ("[押す]", Kind::Command),
                (",", Kind::Punct),
                ("S.", Kind::Side),
                ("x", Kind::State),
                (">=", Kind::Operator),
                ("1", Kind::Number),
                (":", Kind::Punct),
                ("O.", Kind::Side),
                ("y", Kind::State),
                ("-=", Kind::Operator),
                ("rand", Kind::Function),
                ("(", Kind::Operator),
                ("1", Kind::Number),
                (",", Kind::Punct),
                ("費用", Kind::Name),
                (")", Kind::Operator),
                ("# c", Kind::Comment),
            ]
        );
        assert_eq!(
            kinds("':L=[左],c=[投げる]"),
            vec![
                ("':", Kind::Sigil),
                ("L", Kind::Key),
                ("=", Kind::Operator),
                ("[左]", Kind::Command),
                (",", Kind::Punct),
                ("c", Kind::Key),
                ("=", Kind::Operator),
                ("[投げる]", Kind::Command),
            ]
        );
        assert_eq!(
            kinds("~P50,同時"),
            vec![
                ("~", Kind::Sigil),
                ("P50", Kind::Setting),
                (",", Kind::Punct),
                ("同時", Kind::Setting)
            ]
        );
        assert_eq!(
            kinds("%0.6{"),
            vec![
                ("%", Kind::Sigil),
                ("0.6", Kind::Number),
                ("{", Kind::Sigil)
            ]
        );
        assert_eq!(
            kinds("Ｓ．体力"),
            vec![("Ｓ．", Kind::Side), ("体力", Kind::State)]
        );
        assert_eq!(
            kinds("!:体力=30"),
            vec![
                ("!:", Kind::Sigil),
                ("体力", Kind::State),
                ("=", Kind::Operator),
                ("30", Kind::Number)
            ]
        );
    }
}
