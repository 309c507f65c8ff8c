//! Diagnostics as plain data, and the two ways of printing them (ariadne text, JSON).
//!
//! Everything the pipeline finds wrong with a rule file ends up as a [`Diagnostic`]: severity,
//! a stable code, a message, a primary byte span into the *original* text, extra labels and an
//! optional help line. Printing happens at the edges (CLI, studio window).

use serde::Serialize;
use std::ops::Range;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The file cannot be compiled as written.
    Error,
    /// The file compiles, but something is probably not what the author meant.
    Warning,
}

/// Every diagnostic code: the one list (the table in `rules/README.md` is tested against it).
/// Errors are `E…`, warnings `W…`; a code never changes meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DiagCode {
    /// a file that cannot be read as rules (not found, not UTF-8)
    E000,
    /// syntax error: the offending token and what was expected; also an expression used as a condition without a comparison, and a function with the wrong number of arguments; a bare name where an effect starts gets a help naming `S.`/`O.`
    E001,
    /// a character that cannot start a token
    E002,
    /// a number too large for 64 bits
    E003,
    /// a short-form update with more than one term (`S.x-1-1`; write `S.x-=2`)
    E004,
    /// an expression nested too deeply, or a line with too many operators
    E005,
    /// a name that starts with a digit
    E006,
    /// a block not closed (points at its `{`)
    E010,
    /// a `}` that closes no block
    E011,
    /// a block opened inside another block
    E012,
    /// unknown constant (a bare name in an expression); the help suggests a near name and the `S.`/`O.` prefix
    E020,
    /// a symmetric copy uses a macro that is not defined
    E021,
    /// a macro or constant defined twice
    E022,
    /// a macro or constant cycle
    E023,
    /// expansion over 100,000 rules
    E024,
    /// a constant that cannot be computed
    E025,
    /// `::` with an effect that has no inverse
    E030,
    /// period `@0/` (or one too large)
    E031,
    /// unknown `~` setting
    E032,
    /// `~` setting out of range
    E033,
    /// a key bound twice
    E040,
    /// a key bound to a macro
    E041,
    /// a key bound to a command that nothing else mentions
    E042,
    /// not a key (more than one character and not a named key)
    E043,
    /// the same initial value or flag set twice
    E050,
    /// `S.`/`O.` in the initial line
    E051,
    /// `h.`/`c.` on a command in a rule
    E060,
    /// internal error: the checker itself failed (a bug in Kumite); shown at the line being edited, and the studio keeps the last good version
    E099,
    /// `ー` before a digit read as a minus
    W001,
    /// a state read but never set or initialised (with "did you mean")
    W010,
    /// a command that can never become enabled (with "did you mean")
    W011,
    /// a command that can be enabled but no rule uses
    W012,
    /// no rule lets anyone win
    W013,
    /// a line of a symmetric block with nothing to exchange (it gets no copy)
    W014,
    /// a setting given twice
    W015,
    /// a state set by rules but never read
    W016,
    /// a victory rule that draws `rand`
    W017,
    /// two lines switch the same command opposite ways and can apply together
    W018,
    /// a sequence of command atoms that are all negated (`!O.[受け],!O.[後退]`): one position each, not "neither now"
    W019,
}

impl DiagCode {
    /// Every code, in order.
    pub const ALL: &'static [DiagCode] = &[
        DiagCode::E000,
        DiagCode::E001,
        DiagCode::E002,
        DiagCode::E003,
        DiagCode::E004,
        DiagCode::E005,
        DiagCode::E006,
        DiagCode::E010,
        DiagCode::E011,
        DiagCode::E012,
        DiagCode::E020,
        DiagCode::E021,
        DiagCode::E022,
        DiagCode::E023,
        DiagCode::E024,
        DiagCode::E025,
        DiagCode::E030,
        DiagCode::E031,
        DiagCode::E032,
        DiagCode::E033,
        DiagCode::E040,
        DiagCode::E041,
        DiagCode::E042,
        DiagCode::E043,
        DiagCode::E050,
        DiagCode::E051,
        DiagCode::E060,
        DiagCode::E099,
        DiagCode::W001,
        DiagCode::W010,
        DiagCode::W011,
        DiagCode::W012,
        DiagCode::W013,
        DiagCode::W014,
        DiagCode::W015,
        DiagCode::W016,
        DiagCode::W017,
        DiagCode::W018,
        DiagCode::W019,
    ];

    /// The code as written in reports, e.g. `"E001"`.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagCode::E000 => "E000",
            DiagCode::E001 => "E001",
            DiagCode::E002 => "E002",
            DiagCode::E003 => "E003",
            DiagCode::E004 => "E004",
            DiagCode::E005 => "E005",
            DiagCode::E006 => "E006",
            DiagCode::E010 => "E010",
            DiagCode::E011 => "E011",
            DiagCode::E012 => "E012",
            DiagCode::E020 => "E020",
            DiagCode::E021 => "E021",
            DiagCode::E022 => "E022",
            DiagCode::E023 => "E023",
            DiagCode::E024 => "E024",
            DiagCode::E025 => "E025",
            DiagCode::E030 => "E030",
            DiagCode::E031 => "E031",
            DiagCode::E032 => "E032",
            DiagCode::E033 => "E033",
            DiagCode::E040 => "E040",
            DiagCode::E041 => "E041",
            DiagCode::E042 => "E042",
            DiagCode::E043 => "E043",
            DiagCode::E050 => "E050",
            DiagCode::E051 => "E051",
            DiagCode::E060 => "E060",
            DiagCode::E099 => "E099",
            DiagCode::W001 => "W001",
            DiagCode::W010 => "W010",
            DiagCode::W011 => "W011",
            DiagCode::W012 => "W012",
            DiagCode::W013 => "W013",
            DiagCode::W014 => "W014",
            DiagCode::W015 => "W015",
            DiagCode::W016 => "W016",
            DiagCode::W017 => "W017",
            DiagCode::W018 => "W018",
            DiagCode::W019 => "W019",
        }
    }

    /// What the code means, in one line, in Japanese: the studio words a problem with it
    /// when its language is Japanese (the message with its names and tokens follows in
    /// English, as the checker wrote it).
    pub fn summary_ja(self) -> &'static str {
        match self {
            DiagCode::E000 => "ルールとして読めないファイル（見つからない、UTF-8 でない）",
            DiagCode::E001 => "構文エラー: この位置の字句と、ここに書けるもの",
            DiagCode::E002 => "字句を始められない文字",
            DiagCode::E003 => "64 ビットに収まらない大きな数",
            DiagCode::E004 => "項が二つ以上ある短縮形の更新（S.x-1-1 は S.x-=2 と書く）",
            DiagCode::E005 => "入れ子が深すぎる式、または演算子が多すぎる行",
            DiagCode::E006 => "数字で始まる名前",
            DiagCode::E010 => "閉じていないブロック（{ を指す）",
            DiagCode::E011 => "閉じるブロックのない }",
            DiagCode::E012 => "ブロックの中で開いたブロック",
            DiagCode::E020 => "定義されていない定数（式の中の接頭辞のない名前）",
            DiagCode::E021 => "対称コピーが定義されていないマクロを使う",
            DiagCode::E022 => "二度定義されたマクロまたは定数",
            DiagCode::E023 => "マクロまたは定数の循環",
            DiagCode::E024 => "展開すると 100,000 ルールを超える",
            DiagCode::E025 => "計算できない定数",
            DiagCode::E030 => "逆のない効果を持つ ::",
            DiagCode::E031 => "周期 @0/（または大きすぎる周期）",
            DiagCode::E032 => "知らない ~ 設定",
            DiagCode::E033 => "範囲外の ~ 設定",
            DiagCode::E040 => "二度割り当てられたキー",
            DiagCode::E041 => "マクロに割り当てられたキー",
            DiagCode::E042 => "ほかのどこにも出てこないコマンドに割り当てられたキー",
            DiagCode::E043 => "キーではない（二文字以上で、名前付きのキーでもない）",
            DiagCode::E050 => "同じ初期値またはフラグを二度設定",
            DiagCode::E051 => "初期行の S. / O.",
            DiagCode::E060 => "ルールのコマンドに付いた h. / c.",
            DiagCode::E099 => "内部エラー: チェッカー自身が失敗した（Kumite の不具合）",
            DiagCode::W001 => "数字の前の「ー」をマイナスとして読んだ",
            DiagCode::W010 => "読まれるが、設定も初期化もされない状態",
            DiagCode::W011 => "有効になりえないコマンド",
            DiagCode::W012 => "有効になりうるが、どのルールも使わないコマンド",
            DiagCode::W013 => "勝利を設定するルールがない（誰も勝てない）",
            DiagCode::W014 => "入れ替えるものがない対称ブロックの行（コピーされない）",
            DiagCode::W015 => "二度書かれた設定",
            DiagCode::W016 => "ルールで設定されるが、どこでも読まれない状態",
            DiagCode::W017 => "rand を引く勝利ルール（終了判定のたびに振り直す）",
            DiagCode::W018 => {
                "同じコマンドを逆向きに切り替える二行が同時に当てはまりうる（順序で決まる）"
            }
            DiagCode::W019 => {
                "すべて否定のコマンド列（「今どちらでもない」ではなく、直前の手から一手ずつさかのぼる）"
            }
        }
    }

    /// What the code means, in one line (as the table in `rules/README.md` says).
    pub fn summary(self) -> &'static str {
        match self {
            DiagCode::E000 => "a file that cannot be read as rules (not found, not UTF-8)",
            DiagCode::E001 => {
                "syntax error: the offending token and what was expected; also an expression used as a condition without a comparison, and a function with the wrong number of arguments; a bare name where an effect starts gets a help naming `S.`/`O.`"
            }
            DiagCode::E002 => "a character that cannot start a token",
            DiagCode::E003 => "a number too large for 64 bits",
            DiagCode::E004 => {
                "a short-form update with more than one term (`S.x-1-1`; write `S.x-=2`)"
            }
            DiagCode::E005 => "an expression nested too deeply, or a line with too many operators",
            DiagCode::E006 => "a name that starts with a digit",
            DiagCode::E010 => "a block not closed (points at its `{`)",
            DiagCode::E011 => "a `}` that closes no block",
            DiagCode::E012 => "a block opened inside another block",
            DiagCode::E020 => {
                "unknown constant (a bare name in an expression); the help suggests a near name and the `S.`/`O.` prefix"
            }
            DiagCode::E021 => "a symmetric copy uses a macro that is not defined",
            DiagCode::E022 => "a macro or constant defined twice",
            DiagCode::E023 => "a macro or constant cycle",
            DiagCode::E024 => "expansion over 100,000 rules",
            DiagCode::E025 => "a constant that cannot be computed",
            DiagCode::E030 => "`::` with an effect that has no inverse",
            DiagCode::E031 => "period `@0/` (or one too large)",
            DiagCode::E032 => "unknown `~` setting",
            DiagCode::E033 => "`~` setting out of range",
            DiagCode::E040 => "a key bound twice",
            DiagCode::E041 => "a key bound to a macro",
            DiagCode::E042 => "a key bound to a command that nothing else mentions",
            DiagCode::E043 => "not a key (more than one character and not a named key)",
            DiagCode::E050 => "the same initial value or flag set twice",
            DiagCode::E051 => "`S.`/`O.` in the initial line",
            DiagCode::E060 => "`h.`/`c.` on a command in a rule",
            DiagCode::E099 => {
                "internal error: the checker itself failed (a bug in Kumite); shown at the line being edited, and the studio keeps the last good version"
            }
            DiagCode::W001 => "`ー` before a digit read as a minus",
            DiagCode::W010 => "a state read but never set or initialised (with \"did you mean\")",
            DiagCode::W011 => "a command that can never become enabled (with \"did you mean\")",
            DiagCode::W012 => "a command that can be enabled but no rule uses",
            DiagCode::W013 => "no rule lets anyone win",
            DiagCode::W014 => {
                "a line of a symmetric block with nothing to exchange (it gets no copy)"
            }
            DiagCode::W015 => "a setting given twice",
            DiagCode::W016 => "a state set by rules but never read (with \"did you mean\")",
            DiagCode::W017 => "a victory rule that draws `rand` (rolled again at every end check)",
            DiagCode::W018 => {
                "two lines switch the same command opposite ways and can apply together (their order decides)"
            }
            DiagCode::W019 => {
                "a sequence of command atoms that are all negated (`!O.[受け],!O.[後退]`): one position each (not 受け before, not 後退 now), not \"neither now\"; a comment with 順番 or sequence on the line says the sequence is meant"
            }
        }
    }

    /// The code written as `text` (`"E001"`), if there is one.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.as_str() == text)
    }
}

impl std::fmt::Display for DiagCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for DiagCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for DiagCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One problem found in a rule file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Stable code such as `E001` or `W010` (documented in `rules/README.md`).
    pub code: DiagCode,
    /// One-line description of what is wrong.
    pub message: String,
    /// Byte range in the original source text; never crosses a line end.
    pub span: Range<usize>,
    /// Extra places that explain the problem, with their own short messages.
    pub labels: Vec<(Range<usize>, String)>,
    /// How to fix it, when we can say.
    pub help: Option<String>,
    /// Fixes an editor can apply (made into text edits by `authoring::fixes`).
    pub fixes: Vec<FixHint>,
    /// What kind of problem it is, with its data, for the steps that read it after it was
    /// made (the message is only its wording).
    pub kind: DiagKind,
}

/// What kind of problem a diagnostic is, where a later step needs to know (a hint added to it,
/// a fix offered): data, so that nothing reads its wording back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DiagKind {
    /// Nothing a later step reads.
    #[default]
    Other,
    /// A syntax error at a token the line's grammar did not expect there.
    Unexpected {
        /// The name found, when the token is a name.
        name: Option<String>,
        /// What could have come there, as the grammar labels it (`expected …`).
        expected: Vec<String>,
    },
    /// An expression where a condition must be (`体力:…`).
    NotACondition,
}

/// A fix a diagnostic offers, as data; `authoring::fixes` turns it into edits of the text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FixHint {
    /// Write `to` instead of the name `from` inside the diagnostic's span (did you mean).
    Replace {
        /// The name as written.
        from: String,
        /// The suggestion.
        to: String,
    },
    /// Give the state a value in the initial line (`!:名前=0`).
    InitState(String),
    /// Enable the command in the initial line (`!:[名前]`).
    EnableCommand(String),
    /// Put a side prefix (`S.` or `O.`) before the bare name at the span's start.
    AddPrefix(String),
    /// A sequence of negated command atoms (the diagnostic's labels, oldest first): rewrite it
    /// as "none of these now" (a macro of the other commands), or mark the sequence as meant.
    CommandSequence {
        /// The opponent's atoms (`!O.[X]`) rather than the acting side's.
        opp: bool,
        /// The commands, oldest position first.
        cmds: Vec<String>,
    },
}

impl Diagnostic {
    /// A new error with the given code, span and message.
    pub fn error(code: DiagCode, span: Range<usize>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            labels: Vec::new(),
            help: None,
            fixes: Vec::new(),
            kind: DiagKind::Other,
        }
    }
    /// A new warning with the given code, span and message.
    pub fn warning(code: DiagCode, span: Range<usize>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            code,
            message: message.into(),
            span,
            labels: Vec::new(),
            help: None,
            fixes: Vec::new(),
            kind: DiagKind::Other,
        }
    }
    /// Adds a secondary label.
    pub fn with_label(mut self, span: Range<usize>, message: impl Into<String>) -> Self {
        self.labels.push((span, message.into()));
        self
    }
    /// Sets the help line (replacing any earlier one).
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    /// Adds a fix an editor can apply.
    pub fn with_fix(mut self, fix: FixHint) -> Self {
        self.fixes.push(fix);
        self
    }
    /// Adds a fix if there is one.
    pub fn with_fixes(mut self, fix: Option<FixHint>) -> Self {
        self.fixes.extend(fix);
        self
    }
    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Maps byte offsets of a text to 1-based line and character columns.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes the line starts of `text`.
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self { starts }
    }

    /// 0-based line number containing byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// Byte offset where 0-based `line` starts (the text's end for a line past the last).
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    /// Number of lines.
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// 1-based (line, column) of byte `offset`, the column counted in characters.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.line_of(offset);
        let start = self.starts[line];
        let col = text
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(0);
        (line + 1, col + 1)
    }
}

/// A diagnostic with its position resolved, in the shape `kumite check --format json` prints.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct JsonDiagnostic {
    /// "error" or "warning".
    pub severity: Severity,
    /// Stable code.
    pub code: String,
    /// Message.
    pub message: String,
    /// File name as given.
    pub file: String,
    /// 1-based line of the span start.
    pub line: usize,
    /// 1-based character column of the span start.
    pub column: usize,
    /// 1-based line of the span end.
    pub end_line: usize,
    /// 1-based character column just past the span end (exclusive).
    pub end_column: usize,
    /// Help, if any.
    pub help: Option<String>,
}

impl JsonDiagnostic {
    /// Resolves `d`'s span against `text`.
    pub fn new(d: &Diagnostic, file: &str, text: &str, index: &LineIndex) -> Self {
        let (line, column) = index.line_col(text, d.span.start);
        let (end_line, end_column) = index.line_col(text, d.span.end.max(d.span.start));
        Self {
            severity: d.severity,
            code: d.code.to_string(),
            message: d.message.clone(),
            file: file.to_string(),
            line,
            column,
            end_line,
            end_column,
            help: d.help.clone(),
        }
    }
}

/// Renders one diagnostic as an ariadne report (byte-indexed spans, as chumsky produces).
pub fn render_ariadne(d: &Diagnostic, file: &str, text: &str, color: bool) -> String {
    AriadneRenderer::new(file, text, color).render(d)
}

/// Renders the diagnostics of one text as ariadne reports. The text's line table is built once
/// (building it per report made 20,000 reports on a 20,000-line file take seconds).
pub struct AriadneRenderer<'a> {
    cache: (&'a str, ariadne::Source<String>),
    text: &'a str,
    color: bool,
}

/// The text as the terminal may show it, byte for byte as long: control characters and the
/// line breaks Kumite does not count as lines (a lone CR, VT, FF, NEL, U+2028/9) become `?`s,
/// so a hostile file cannot drive the terminal and ariadne's line numbers are Kumite's.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char, next: Option<char>| {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
            || (c == '\r' && next != Some('\n'))
            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    let mut it = text.chars().peekable();
    let mut any = false;
    while let Some(c) = it.next() {
        if bad(c, it.peek().copied()) {
            any = true;
            break;
        }
    }
    if !any {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        if bad(c, it.peek().copied()) {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

impl<'a> AriadneRenderer<'a> {
    /// A renderer for `text`, named `file` in the reports.
    pub fn new(file: &'a str, text: &'a str, color: bool) -> Self {
        Self {
            cache: (
                file,
                ariadne::Source::from(terminal_safe(text).into_owned()),
            ),
            text,
            color,
        }
    }

    /// One diagnostic as a report.
    pub fn render(&mut self, d: &Diagnostic) -> String {
        render_with(d, self.cache.0, self.text, self.color, &mut self.cache)
    }
}

fn render_with<'a>(
    d: &Diagnostic,
    file: &'a str,
    text: &str,
    color: bool,
    cache: &mut (&'a str, ariadne::Source<String>),
) -> String {
    use ariadne::{Color, Config, IndexType, Label, Report, ReportKind};
    let kind = match d.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
    };
    let main_color = if d.severity == Severity::Error {
        Color::Red
    } else {
        Color::Yellow
    };
    let clamp = |r: &Range<usize>| {
        let s = r.start.min(text.len());
        let e = r.end.min(text.len()).max(s);
        s..e
    };
    let mut b = Report::build(kind, (file, clamp(&d.span)))
        .with_config(
            Config::default()
                .with_index_type(IndexType::Byte)
                .with_color(color),
        )
        .with_code(d.code)
        .with_message(&d.message)
        .with_label(
            Label::new((file, clamp(&d.span)))
                .with_message(&d.message)
                .with_color(main_color),
        );
    for (span, msg) in &d.labels {
        b = b.with_label(
            Label::new((file, clamp(span)))
                .with_message(msg)
                .with_color(Color::Blue),
        );
    }
    if let Some(h) = &d.help {
        b = b.with_help(h);
    }
    let mut out = Vec::new();
    let _ = b.finish().write(cache, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Edit distance in characters (for "did you mean" suggestions).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The known name nearest to `name`, if it is one or two edits away (and not the name itself); ties
/// go to the shorter name, then the first in text order, so the suggestion never depends on the
/// order `known` comes in.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let a: Vec<char> = name.chars().collect();
    let (mut b, mut prev, mut cur) = (Vec::new(), Vec::new(), Vec::new());
    known
        .into_iter()
        .filter(|k| *k != name)
        .filter_map(|k| {
            b.clear();
            b.extend(k.chars());
            let d = distance_within(&a, &b, 2, &mut prev, &mut cur)?;
            (d * 3 <= a.len().max(b.len()) + 1).then_some((d, k))
        })
        .min_by_key(|(d, k)| (*d, k.len(), *k))
        .map(|(_, k)| k)
}

/// The edit distance of `a` and `b` if it is at most `max` (a file's names are compared with
/// every unknown one: most are far, and given up on after a row or two).
fn distance_within(
    a: &[char],
    b: &[char],
    max: usize,
    prev: &mut Vec<usize>,
    cur: &mut Vec<usize>,
) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    // A common start and end change nothing (names often share both: 左構え12, 左構え15).
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[p..], &b[p..]);
    let q = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - q], &b[..b.len() - q]);
    if a.is_empty() || b.is_empty() {
        return Some(a.len().max(b.len())).filter(|&d| d <= max);
    }
    // Each character of `a` that `b` lacks costs an edit of its own.
    if a.iter().filter(|c| !b.contains(c)).nth(max).is_some() {
        return None;
    }
    prev.clear();
    prev.extend(0..=b.len());
    cur.clear();
    cur.resize(b.len() + 1, 0);
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            row_min = row_min.min(cur[j + 1]);
        }
        if row_min > max {
            return None;
        }
        std::mem::swap(prev, cur);
    }
    Some(prev[b.len()]).filter(|&d| d <= max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounded distance against the plain one on generated names (shared starts and ends,
    /// digits, kana, repeats): equal whenever the plain one is within the bound, none otherwise.
    #[test]
    fn the_bounded_distance_agrees_with_the_plain_one() {
        let alphabet: Vec<char> = "左構え右12ab55".chars().collect();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let (mut prev, mut cur) = (Vec::new(), Vec::new());
        for _ in 0..20_000 {
            let a: Vec<char> = (0..next(7))
                .map(|_| alphabet[next(alphabet.len())])
                .collect();
            let b: Vec<char> = (0..next(7))
                .map(|_| alphabet[next(alphabet.len())])
                .collect();
            let (sa, sb): (String, String) = (a.iter().collect(), b.iter().collect());
            let plain = edit_distance(&sa, &sb);
            for max in 0..3 {
                let bounded = distance_within(&a, &b, max, &mut prev, &mut cur);
                assert_eq!(
                    bounded,
                    (plain <= max).then_some(plain),
                    "{sa:?} {sb:?} max {max}"
                );
            }
        }
    }
}
