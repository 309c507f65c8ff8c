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

/// True for a character that acts on a terminal or reorders text instead of showing itself:
/// C0/C1 controls other than the tab, and the bidirectional overrides and isolates. Such a
/// character is refused anywhere in a rule file (E002), so no name or comment can carry one
/// to the user's terminal.
pub fn is_hidden_control(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// True if `c` (already folded) may appear in a name.
pub fn is_name_char(c: char) -> bool {
    !c.is_whitespace()
        && !is_hidden_control(c)
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

/// A piece of one line as written. The scan is lossless: every byte of the line lies in
/// exactly one piece, so the parser's tokens ([`lex_line`]), the editor's colours
/// ([`super::highlight`]) and the formatter all read the same scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// White space.
    Space,
    /// `#` to the end of the line.
    Comment,
    /// Digits.
    Int,
    /// Digits, `.`, digits (an advantage weight such as `0.6`).
    Dec,
    /// Digits directly followed by name characters: a name that starts with a digit (E006).
    DigitName,
    /// A name: a state, command, macro, constant, side letter, setting or function name.
    Name,
    /// `ー` directly before a digit: a minus sign typed in kana mode (W001).
    KanaMinus,
    /// A symbol of one or two characters.
    Sym(Sym),
    /// A character that can start no token (E002).
    Unknown,
}

/// The two-character symbol that starts with `c` followed by `next`, if any.
fn two_char_sym(c: char, next: char) -> Option<Sym> {
    Some(match (c, next) {
        (':', ':') => Sym::DColon,
        ('=', '=') => Sym::EqEq,
        ('!', '=') => Sym::Ne,
        ('<', '=') => Sym::Le,
        ('>', '=') => Sym::Ge,
        ('+', '=') => Sym::PlusEq,
        ('-', '=') => Sym::MinusEq,
        ('*', '=') => Sym::StarEq,
        ('/', '=') => Sym::SlashEq,
        _ => return None,
    })
}

/// The one-character symbol `c`, if it is one.
fn one_char_sym(c: char) -> Option<Sym> {
    Some(match c {
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
        _ => return None,
    })
}

/// Scans one line (without its newline) into pieces with byte ranges relative to the line.
/// `chars` is scratch space: on return it holds the line's folded characters as
/// (start, folded char, end).
pub fn scan_line(
    line: &str,
    chars: &mut Vec<(usize, char, usize)>,
    out: &mut Vec<(std::ops::Range<usize>, Piece)>,
) {
    chars.clear();
    chars.extend(
        line.char_indices()
            .map(|(i, c)| (i, norm(c), i + c.len_utf8())),
    );
    let chars = &chars[..];
    let n = chars.len();
    let c_at = |k: usize| if k < n { chars[k].1 } else { '\0' };
    let is_digit = |k: usize| c_at(k).is_ascii_digit();
    let mut i = 0;
    while i < n {
        let s = i;
        let c = chars[i].1;
        let blank = |c: char| c.is_whitespace() && c != '\r' && !is_hidden_control(c);
        let piece = if blank(c) {
            while i < n && blank(chars[i].1) {
                i += 1;
            }
            Piece::Space
        } else if c == '#' {
            i = n;
            Piece::Comment
        } else if c == 'ー' && is_digit(i + 1) {
            i += 1;
            Piece::KanaMinus
        } else if c.is_ascii_digit() {
            while is_digit(i) {
                i += 1;
            }
            if c_at(i) == '.' && is_digit(i + 1) {
                i += 1;
                while is_digit(i) {
                    i += 1;
                }
                Piece::Dec
            } else if i < n && is_name_char(c_at(i)) && !(c_at(i) == 'ー' && is_digit(i + 1)) {
                while i < n && is_name_char(c_at(i)) {
                    i += 1;
                }
                Piece::DigitName
            } else {
                Piece::Int
            }
        } else if is_name_char(c) {
            while i < n && is_name_char(c_at(i)) && !(c_at(i) == 'ー' && is_digit(i + 1) && i > s)
            {
                i += 1;
            }
            Piece::Name
        } else if let Some(sym) = two_char_sym(c, c_at(i + 1)) {
            i += 2;
            Piece::Sym(sym)
        } else if let Some(sym) = one_char_sym(c) {
            i += 1;
            Piece::Sym(sym)
        } else {
            i += 1;
            Piece::Unknown
        };
        let end = if i < n { chars[i].0 } else { line.len() };
        out.push((chars[s].0..end, piece));
    }
}

/// What a line is, from its first two folded non-blank characters.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LineKind {
    /// Empty, white space or a comment.
    Blank,
    /// `!:` the initial line.
    Init,
    /// `':` key bindings.
    Keys,
    /// `~` settings.
    Settings,
    /// `%`, `&` or `$`: a block opens (the character says which).
    Open(char),
    /// `}`: a block closes.
    Close,
    /// Anything else: a rule (or a line of a block).
    Rule,
}

/// The kind of a line and the byte offset of its first non-blank character.
pub fn line_kind(line: &str) -> (LineKind, usize) {
    let mut it = line
        .char_indices()
        .map(|(i, c)| (i, norm(c)))
        .skip_while(|(_, c)| c.is_whitespace());
    let Some((i, c)) = it.next() else {
        return (LineKind::Blank, 0);
    };
    let next = it.next().map(|x| x.1);
    let k = match (c, next) {
        ('#', _) => LineKind::Blank,
        ('!', Some(':')) => LineKind::Init,
        ('\'', Some(':')) => LineKind::Keys,
        ('~', _) => LineKind::Settings,
        ('%' | '&' | '$', _) => LineKind::Open(c),
        ('}', _) => LineKind::Close,
        _ => LineKind::Rule,
    };
    (k, i)
}

/// E002 for a control character, named by its code point (never printed raw).
fn control_char(c: char, span: std::ops::Range<usize>) -> Diagnostic {
    let (what, help) = if c == '\r' {
        (
            "a carriage return without a line feed".to_string(),
            "Kumite lines end with LF or CRLF; a file with old Mac line endings (CR alone) reads as one line: convert it, e.g. tr '\\r' '\\n'",
        )
    } else {
        (
            format!("control character U+{:04X}", c as u32),
            "control characters (escape, bell, NUL, direction overrides …) may not appear in a rule file, not even in a comment; delete it",
        )
    };
    Diagnostic::error(DiagCode::E002, span, format!("{what} is not allowed here")).with_help(help)
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

/// [`lex_line`] with a reusable scratch buffer: the tokens of [`scan_line`]'s pieces, with
/// spans relative to the file, names interned and every problem reported.
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
    // `out` may already hold earlier lines' tokens: only this line's count as neighbours.
    let first = out.len();
    let mut pieces = Vec::new();
    scan_line(line, chars, &mut pieces);
    let mut buf = String::new();
    for (r, piece) in pieces {
        let span = start + r.start..start + r.end;
        // The piece's folded text.
        let folded = |buf: &mut String| {
            buf.clear();
            buf.extend(line[r.clone()].chars().map(norm));
        };
        match piece {
            Piece::Space => {}
            Piece::Comment => {
                for (i, c) in line[r.clone()].char_indices() {
                    if is_hidden_control(c) {
                        let at = span.start + i;
                        diags.push(control_char(c, at..at + c.len_utf8()));
                    }
                }
                break;
            }
            Piece::KanaMinus => {
                diags.push(
                    Diagnostic::warning(
                        DiagCode::W001,
                        span.clone(),
                        "'ー' before a digit is read as a minus sign",
                    )
                    .with_help(
                        "type '-' (or full-width '－') for a minus; 'ー' is a name character elsewhere",
                    ),
                );
                out.push((Tok::Sym(Sym::Minus), SimpleSpan::from(span)));
            }
            Piece::Dec => {
                folded(&mut buf);
                let v: f64 = buf.parse().unwrap_or(0.0);
                out.push((Tok::Dec(DecBits(v.to_bits())), SimpleSpan::from(span)));
            }
            Piece::DigitName => diags.push(
                Diagnostic::error(DiagCode::E006, span, "a name cannot start with a digit")
                    .with_help(
                        "start the name with a letter or kana, e.g. 'HP2' rather than '2HP'",
                    ),
            ),
            Piece::Int => {
                folded(&mut buf);
                // `-9223372036854775808` after a unary minus is i64::MIN: fold the sign into it.
                let mine = &out[first..];
                let unary_min = buf.trim_start_matches('0') == "9223372036854775808"
                    && matches!(mine.last(), Some((Tok::Sym(Sym::Minus), _)))
                    && !matches!(
                        mine.len().checked_sub(2).map(|k| &mine[k].0),
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
                match buf.parse::<i64>() {
                    Ok(v) => out.push((Tok::Int(v), SimpleSpan::from(span))),
                    Err(_) => {
                        diags.push(Diagnostic::error(
                            DiagCode::E003,
                            span.clone(),
                            format!("number {buf} is too large (the limit is {})", i64::MAX),
                        ));
                        out.push((Tok::Int(0), SimpleSpan::from(span)));
                    }
                }
            }
            Piece::Name => {
                folded(&mut buf);
                let id = names.intern(&buf);
                out.push((Tok::Name(id), SimpleSpan::from(span)));
            }
            Piece::Sym(sym) => out.push((Tok::Sym(sym), SimpleSpan::from(span))),
            Piece::Unknown => {
                folded(&mut buf);
                match buf.chars().next() {
                    Some(c) if is_hidden_control(c) || c == '\r' => {
                        diags.push(control_char(c, span))
                    }
                    _ => diags.push(Diagnostic::error(
                        DiagCode::E002,
                        span,
                        format!("unexpected character '{buf}'"),
                    )),
                }
            }
        }
    }
}
