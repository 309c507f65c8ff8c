//! Syntax colouring for one line of rule text.
//!
//! Colours come from the lexer's own lossless scan ([`scan_line`]) and line classification
//! ([`line_kind`]), the same the parser reads, plus the context a colour needs (a side prefix
//! and its state, a command in brackets, a key, a setting). It never fails, and every byte of the
//! line gets a [`Kind`]. Spans are byte ranges into the line as written (full-width included).

use crate::syntax::lexer::{LineKind, Piece, Sym, line_kind, norm, scan_line};
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

/// Colours one line (without its newline). The runs cover the line without gaps, in order.
pub fn highlight_line(line: &str) -> Vec<(Range<usize>, Kind)> {
    let mut pieces = Vec::new();
    scan_line(line, &mut Vec::new(), &mut pieces);
    let mut runs = Runs(Vec::new());
    let n = pieces.len();
    let piece = |k: usize| pieces.get(k).map(|p| p.1);
    let range = |k: usize| pieces[k].0.clone();
    let mut i = 0;
    if piece(0) == Some(Piece::Space) {
        runs.push(range(0), Kind::Plain);
        i = 1;
    }
    let kind = line_kind(line).0;
    i = statement_head(kind, &pieces, i, &mut runs);
    // In a key line, everything from the sigil or a `,` up to `=` is a key.
    let mut expect_key = kind == LineKind::Keys;
    while i < n {
        let (r, p) = pieces[i].clone();
        let text = &line[r.clone()];
        if expect_key && p != Piece::Space && p != Piece::Comment {
            let start = r.start;
            if let Piece::Sym(sym) = p
                && sym.text().len() == 2
                && ends_key(p)
            {
                // `+=[X]`: the key `+`, then `=`.
                let first = text.chars().next().map_or(0, char::len_utf8);
                runs.push(r.start..r.start + first, Kind::Key);
                runs.push(r.start + first..r.end, Kind::Operator);
                i += 1;
                expect_key = false;
                continue;
            }
            while i < n && !ends_key(pieces[i].1) {
                i += 1;
            }
            runs.push(start..range(i - 1).end, Kind::Key);
            expect_key = false;
            continue;
        }
        i += 1;
        let k = match p {
            Piece::Space => Kind::Plain,
            Piece::Comment => Kind::Comment,
            Piece::Int | Piece::Dec => Kind::Number,
            Piece::DigitName if kind == LineKind::Settings => Kind::Setting,
            Piece::DigitName => {
                // `2HP`: the digits, then the name (the checker reports the error).
                let digits = text
                    .char_indices()
                    .find(|(_, c)| !norm(*c).is_ascii_digit())
                    .map_or(text.len(), |(j, _)| j);
                runs.push(r.start..r.start + digits, Kind::Number);
                let rest = if kind == LineKind::Init {
                    Kind::State
                } else {
                    Kind::Name
                };
                runs.push(r.start + digits..r.end, rest);
                continue;
            }
            Piece::KanaMinus | Piece::Unknown => Kind::Operator,
            Piece::Sym(Sym::LBrack) => {
                // A command up to its `]` on this line.
                match (i..n)
                    .find(|&k| matches!(piece(k), Some(Piece::Sym(Sym::RBrack | Sym::LBrack))))
                {
                    Some(k) if piece(k) == Some(Piece::Sym(Sym::RBrack)) => {
                        runs.push(r.start..range(k).end, Kind::Command);
                        i = k + 1;
                        continue;
                    }
                    _ => Kind::Operator,
                }
            }
            Piece::Sym(Sym::Colon | Sym::DColon | Sym::Semi) => Kind::Punct,
            Piece::Sym(Sym::Comma) => {
                expect_key = kind == LineKind::Keys;
                Kind::Punct
            }
            Piece::Sym(Sym::LBrace | Sym::RBrace) => Kind::Sigil,
            Piece::Sym(_) => Kind::Operator,
            Piece::Name => {
                let one: Option<char> = {
                    let mut cs = text.chars().map(norm);
                    match (cs.next(), cs.next()) {
                        (Some(c), None) => Some(c),
                        _ => None,
                    }
                };
                // A side prefix: one of S O h c (any case) directly followed by `.`, then the
                // state name (a command `[X]` is coloured on its own).
                if one.is_some_and(|c| "SsOoHhCc".contains(c))
                    && piece(i) == Some(Piece::Sym(Sym::Dot))
                {
                    runs.push(r.start..range(i).end, Kind::Side);
                    i += 1;
                    if matches!(piece(i), Some(Piece::Name | Piece::DigitName)) {
                        runs.push(range(i), Kind::State);
                        i += 1;
                    }
                    continue;
                }
                let next = (i..n).find(|&k| piece(k) != Some(Piece::Space));
                let word: String = text.chars().map(norm).collect();
                match kind {
                    LineKind::Settings => Kind::Setting,
                    LineKind::Init => Kind::State,
                    _ if matches!(word.as_str(), "min" | "max" | "abs" | "rand")
                        && next.and_then(piece) == Some(Piece::Sym(Sym::LParen)) =>
                    {
                        Kind::Function
                    }
                    _ => Kind::Name,
                }
            }
        };
        runs.push(r, k);
    }
    runs.0
}

/// Runs of one kind, adjacent runs of the same kind merged.
struct Runs(Vec<(Range<usize>, Kind)>);

impl Runs {
    fn push(&mut self, r: Range<usize>, kind: Kind) {
        if r.start >= r.end {
            return;
        }
        if let Some(last) = self.0.last_mut()
            && last.1 == kind
            && last.0.end == r.start
        {
            last.0.end = r.end;
            return;
        }
        self.0.push((r, kind));
    }
}

/// True for a piece that ends a key in a `':` line: `=` (alone or in a two-character symbol),
/// `,` or a comment.
fn ends_key(p: Piece) -> bool {
    match p {
        Piece::Comment => true,
        Piece::Sym(s) => s == Sym::Comma || s.text().contains('='),
        _ => false,
    }
}

/// Colours a statement's head — the sigil of `!:` `':` `~` `}`, a block header up to its `{`
/// (the weight a number, mirror pairs names), a periodic rule's `@3/` — from piece `i`; returns
/// the index of the first piece after it.
fn statement_head(
    kind: LineKind,
    pieces: &[(Range<usize>, Piece)],
    mut i: usize,
    runs: &mut Runs,
) -> usize {
    let piece = |k: usize| pieces.get(k).map(|p| p.1);
    let n = pieces.len();
    match kind {
        LineKind::Init | LineKind::Keys if i + 1 < n => {
            runs.push(pieces[i].0.start..pieces[i + 1].0.end, Kind::Sigil);
            i + 2
        }
        LineKind::Settings | LineKind::Close => {
            runs.push(pieces[i].0.clone(), Kind::Sigil);
            i + 1
        }
        LineKind::Open(_) => {
            let Some(brace) = (i..n).find(|&k| piece(k) == Some(Piece::Sym(Sym::LBrace))) else {
                return i;
            };
            runs.push(pieces[i].0.clone(), Kind::Sigil);
            for (r, p) in &pieces[i + 1..brace] {
                let k = match p {
                    Piece::Int | Piece::Dec => Kind::Number,
                    Piece::Name | Piece::DigitName => Kind::Name,
                    Piece::Space => Kind::Plain,
                    _ => Kind::Punct,
                };
                runs.push(r.clone(), k);
            }
            runs.push(pieces[brace].0.clone(), Kind::Sigil);
            brace + 1
        }
        LineKind::Rule if piece(i) == Some(Piece::Sym(Sym::At)) => {
            // `@`, `@3/`
            let s = pieces[i].0.start;
            i += 1;
            if piece(i) == Some(Piece::Int) {
                i += 1;
            }
            if piece(i) == Some(Piece::Sym(Sym::Slash)) {
                i += 1;
            }
            runs.push(s..pieces[i - 1].0.end, Kind::Sigil);
            i
        }
        _ => i,
    }
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
        // `ー` before a digit is a minus, as the parser reads it (W001).
        assert_eq!(
            kinds("O.体力ー1"),
            vec![
                ("O.", Kind::Side),
                ("体力", Kind::State),
                ("ー", Kind::Operator),
                ("1", Kind::Number)
            ]
        );
        assert_eq!(
            kinds("':+=[押す]"),
            vec![
                ("':", Kind::Sigil),
                ("+", Kind::Key),
                ("=", Kind::Operator),
                ("[押す]", Kind::Command)
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
