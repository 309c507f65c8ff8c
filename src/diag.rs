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

/// One problem found in a rule file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Stable code such as `E001` or `W010` (documented in `rules/README.md`).
    pub code: &'static str,
    /// One-line description of what is wrong.
    pub message: String,
    /// Byte range in the original source text; never crosses a line end.
    pub span: Range<usize>,
    /// Extra places that explain the problem, with their own short messages.
    pub labels: Vec<(Range<usize>, String)>,
    /// How to fix it, when we can say.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A new error with the given code, span and message.
    pub fn error(code: &'static str, span: Range<usize>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            labels: Vec::new(),
            help: None,
        }
    }
    /// A new warning with the given code, span and message.
    pub fn warning(code: &'static str, span: Range<usize>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            code,
            message: message.into(),
            span,
            labels: Vec::new(),
            help: None,
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
    cache: (&'a str, ariadne::Source<&'a str>),
    text: &'a str,
    color: bool,
}

impl<'a> AriadneRenderer<'a> {
    /// A renderer for `text`, named `file` in the reports.
    pub fn new(file: &'a str, text: &'a str, color: bool) -> Self {
        Self {
            cache: (file, ariadne::Source::from(text)),
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
    cache: &mut (&'a str, ariadne::Source<&'a str>),
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
    let len = name.chars().count();
    known
        .into_iter()
        .filter(|k| *k != name)
        .map(|k| (edit_distance(name, k), k))
        .filter(|(d, k)| *d <= 2 && *d * 3 <= len.max(k.chars().count()) + 1)
        .min_by_key(|(d, k)| (*d, k.len(), *k))
        .map(|(_, k)| k)
}
