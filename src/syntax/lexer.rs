//! The lexer: one line of original text to tokens with byte spans into the original text.
//!
//! Full-width and IME forms are folded to ASCII here ([`norm`]), one character for one, so
//! every later stage sees ASCII syntax while spans still point at what the author typed.

use super::names::{NameId, Names};
use crate::diag::{DiagCode, Diagnostic};
use chumsky::span::SimpleSpan;

/// Folds a full-width or IME character to its ASCII meaning (other characters unchanged).
pub fn norm(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{3000}' | '\u{FEFF}' => ' ',
        '\u{2212}' => '-',
        '\u{2018}' | '\u{2019}' => '\'',
        '\u{201C}' | '\u{201D}' => '"',
        '\u{301C}' => '~',
        _ => c,
    }
}

/// True if `c` (already folded) may appear in a name.
pub fn is_name_char(c: char) -> bool {
    !c.is_whitespace()
        && !matches!(
            c,
            '!' | '"'
                | '#'
                | '$'
                | '%'
                | '&'
                | '\''
                | '('
                | ')'
                | '*'
                | '+'
                | ','
                | '-'
                | '.'
                | '/'
                | ':'
                | ';'
                | '<'
                | '='
                | '>'
                | '?'
                | '@'
                | '['
                | ']'
                | '{'
                | '}'
                | '~'
                | '|'
        )
}

/// A token. Names are interned; numbers keep their value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tok {
    /// A name (state, command, macro, constant, side letter, function name).
    Name(NameId),
    /// An unsigned integer.
    Int(i64),
    /// A decimal number such as `0.6` (only valid as an advantage weight), as its f64 bits.
    Dec(DecBits),
    /// A symbol.
    Sym(Sym),
}

/// A decimal stored as its f64 bits (so the token stays `Eq`/`Hash`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DecBits(pub u64);

impl DecBits {
    /// The value.
    pub fn value(self) -> f64 {
        f64::from_bits(self.0)
    }
}

/// Symbols, one or two characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Sym {
    Bang,
    Colon,
    DColon,
    Comma,
    Dot,
    LBrack,
    RBrack,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Eq,
    EqEq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    At,
    Tilde,
    Amp,
    Dollar,
    Semi,
    Quote,
    DQuote,
    Pipe,
    Question,
}

impl Sym {
    /// How the symbol is written.
    pub fn text(self) -> &'static str {
        use Sym::*;
        match self {
            Bang => "!",
            Colon => ":",
            DColon => "::",
            Comma => ",",
            Dot => ".",
            LBrack => "[",
            RBrack => "]",
            LParen => "(",
            RParen => ")",
            LBrace => "{",
            RBrace => "}",
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Percent => "%",
            Eq => "=",
            EqEq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            PlusEq => "+=",
            MinusEq => "-=",
            StarEq => "*=",
            SlashEq => "/=",
            At => "@",
            Tilde => "~",
            Amp => "&",
            Dollar => "$",
            Semi => ";",
            Quote => "'",
            DQuote => "\"",
            Pipe => "|",
            Question => "?",
        }
    }
}

/// A token with its span (byte offsets into the original text).
pub type Spanned = (Tok, SimpleSpan);

/// Describes a token for error messages.
pub fn describe(t: &Tok, names: &Names) -> String {
    match t {
        Tok::Name(n) => format!("name '{}'", names.get(*n)),
        Tok::Int(v) => format!("number {v}"),
        Tok::Dec(d) => format!("number {}", d.value()),
        Tok::Sym(s) => format!("'{}'", s.text()),
    }
}

/// Lexes `text[start..end]` (one line, without its newline), appending tokens to `out`.
/// Comments (`#` to the end) are dropped. Problems are appended to `diags`; a character that
/// cannot start a token is reported and skipped.
pub fn lex_line(
    text: &str,
    start: usize,
    end: usize,
    names: &mut Names,
    out: &mut Vec<Spanned>,
    diags: &mut Vec<Diagnostic>,
) {
    lex_line_with(text, start, end, names, out, diags, &mut Vec::new());
}

/// [`lex_line`] with a reusable scratch buffer.
pub fn lex_line_with(
    text: &str,
    start: usize,
    end: usize,
    names: &mut Names,
    out: &mut Vec<Spanned>,
    diags: &mut Vec<Diagnostic>,
    chars: &mut Vec<(usize, char, usize)>,
) {
    let line = &text[start..end];
    // Folded characters with their original byte offsets (relative to the file).
    chars.clear();
    chars.extend(
        line.char_indices()
            .map(|(i, c)| (start + i, norm(c), start + i + c.len_utf8())),
    );
    let chars = &chars[..];
    let n = chars.len();
    let mut i = 0;
    let mut buf = String::new();
    let is_digit = |k: usize| k < n && chars[k].1.is_ascii_digit();
    while i < n {
        let (off, c, cend) = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '#' {
            break;
        }
        // `ー` directly before a digit is a minus typed in kana mode.
        if c == 'ー' && is_digit(i + 1) {
            diags.push(
                Diagnostic::warning(
                    DiagCode::W001,
                    off..cend,
                    "'ー' before a digit is read as a minus sign",
                )
                .with_help(
                    "type '-' (or full-width '－') for a minus; 'ー' is a name character elsewhere",
                ),
            );
            out.push((Tok::Sym(Sym::Minus), SimpleSpan::from(off..cend)));
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            let s = i;
            while is_digit(i) {
                i += 1;
            }
            // A decimal fraction.
            if i + 1 < n && chars[i].1 == '.' && is_digit(i + 1) {
                i += 1;
                while is_digit(i) {
                    i += 1;
                }
                let txt: String = chars[s..i].iter().map(|x| x.1).collect();
                let v: f64 = txt.parse().unwrap_or(0.0);
                out.push((
                    Tok::Dec(DecBits(v.to_bits())),
                    SimpleSpan::from(chars[s].0..chars[i - 1].2),
                ));
                continue;
            }
            if i < n && is_name_char(chars[i].1) && !(chars[i].1 == 'ー' && is_digit(i + 1)) {
                // Digits followed by name characters: a name that starts with a digit.
                while i < n && is_name_char(chars[i].1) {
                    i += 1;
                }
                diags.push(
                    Diagnostic::error(
                        DiagCode::E006,
                        chars[s].0..chars[i - 1].2,
                        "a name cannot start with a digit",
                    )
                    .with_help(
                        "start the name with a letter or kana, e.g. 'HP2' rather than '2HP'",
                    ),
                );
                continue;
            }
            let txt: String = chars[s..i].iter().map(|x| x.1).collect();
            let span = chars[s].0..chars[i - 1].2;
            // `-9223372036854775808` after a unary minus is i64::MIN: fold the sign into it.
            let unary_min = txt.trim_start_matches('0') == "9223372036854775808"
                && matches!(out.last(), Some((Tok::Sym(Sym::Minus), _)))
                && !matches!(
                    out.len().checked_sub(2).map(|k| &out[k].0),
                    Some(
                        Tok::Int(_)
                            | Tok::Dec(_)
                            | Tok::Name(_)
                            | Tok::Sym(Sym::RParen | Sym::RBrack)
                    )
                );
            if unary_min {
                let (_, minus) = out.pop().expect("checked above");
                out.push((Tok::Int(i64::MIN), SimpleSpan::from(minus.start..span.end)));
                continue;
            }
            match txt.parse::<i64>() {
                Ok(v) => out.push((Tok::Int(v), SimpleSpan::from(span))),
                Err(_) => {
                    diags.push(Diagnostic::error(
                        DiagCode::E003,
                        span.clone(),
                        format!("number {txt} is too large (the limit is {})", i64::MAX),
                    ));
                    out.push((Tok::Int(0), SimpleSpan::from(span)));
                }
            }
            continue;
        }
        if is_name_char(c) {
            let s = i;
            buf.clear();
            while i < n
                && is_name_char(chars[i].1)
                && !(chars[i].1 == 'ー' && is_digit(i + 1) && i > s)
            {
                buf.push(chars[i].1);
                i += 1;
            }
            let id = names.intern(&buf);
            out.push((Tok::Name(id), SimpleSpan::from(chars[s].0..chars[i - 1].2)));
            continue;
        }
        let next = if i + 1 < n { chars[i + 1].1 } else { '\0' };
        let two = match (c, next) {
            (':', ':') => Some(Sym::DColon),
            ('=', '=') => Some(Sym::EqEq),
            ('!', '=') => Some(Sym::Ne),
            ('<', '=') => Some(Sym::Le),
            ('>', '=') => Some(Sym::Ge),
            ('+', '=') => Some(Sym::PlusEq),
            ('-', '=') => Some(Sym::MinusEq),
            ('*', '=') => Some(Sym::StarEq),
            ('/', '=') => Some(Sym::SlashEq),
            _ => None,
        };
        if let Some(s) = two {
            out.push((Tok::Sym(s), SimpleSpan::from(off..chars[i + 1].2)));
            i += 2;
            continue;
        }
        let one = match c {
            '!' => Sym::Bang,
            ':' => Sym::Colon,
            ',' => Sym::Comma,
            '.' => Sym::Dot,
            '[' => Sym::LBrack,
            ']' => Sym::RBrack,
            '(' => Sym::LParen,
            ')' => Sym::RParen,
            '{' => Sym::LBrace,
            '}' => Sym::RBrace,
            '+' => Sym::Plus,
            '-' => Sym::Minus,
            '*' => Sym::Star,
            '/' => Sym::Slash,
            '%' => Sym::Percent,
            '=' => Sym::Eq,
            '<' => Sym::Lt,
            '>' => Sym::Gt,
            '@' => Sym::At,
            '~' => Sym::Tilde,
            '&' => Sym::Amp,
            '$' => Sym::Dollar,
            ';' => Sym::Semi,
            '\'' => Sym::Quote,
            '"' => Sym::DQuote,
            '|' => Sym::Pipe,
            '?' => Sym::Question,
            _ => {
                diags.push(Diagnostic::error(
                    DiagCode::E002,
                    off..cend,
                    format!("unexpected character '{c}'"),
                ));
                i += 1;
                continue;
            }
        };
        out.push((Tok::Sym(one), SimpleSpan::from(off..cend)));
        i += 1;
    }
}
