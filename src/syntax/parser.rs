//! The parser of a whole file: classifies each line by how it begins, tracks blocks, and parses
//! each line's tokens with the grammar of [`super::grammar`]. Lines are parsed independently, so
//! one broken line never hides another line's errors, and the studio's [`ParseCache`] reuses the
//! parses of unchanged lines. A line with an error contributes nothing to the tree.

use super::ast::*;
pub use super::grammar::{Builtin, LOSE, WIN, hint_bare_names, new_names};
use super::grammar::{Parsers, parsers, run};
use super::lexer::{self, LineKind, Spanned, Sym, Tok, describe};
use super::names::{NameId, Names};
pub use super::settings::parse_setting;
use super::settings::{parse_keys, parse_settings};
use crate::diag::{DiagCode, Diagnostic};
use chumsky::span::SimpleSpan;

/// The result of parsing a file: statements in file order, the names, and all syntax diagnostics.
#[derive(Clone, Debug)]
pub struct ParsedFile {
    /// Statements in file order.
    pub stmts: Vec<Stmt>,
    /// Interned names.
    pub names: Names,
    /// Syntax and block-structure diagnostics.
    pub diags: Vec<Diagnostic>,
    /// Constants whose definition line (`名前:…` in a macro block) has a syntax error: they
    /// are defined, so their uses are not reported again as unknown (E020).
    pub broken_consts: Vec<NameId>,
}

impl ParsedFile {
    /// The block each line of `text` (0-based) lies in, read from the statements: `'%'` for a
    /// line of an advantage block, `'&'` for a rule of a symmetric block, `'$'` for a
    /// definition of a macro block — an opening line too when it holds one — and None for a
    /// line outside blocks or one that holds none of their lines (blank, comment, `}`, a line
    /// with a syntax error).
    pub fn block_lines(&self, text: &str) -> Vec<Option<char>> {
        let index = crate::diag::LineIndex::new(text);
        let mut out = vec![None; index.line_count()];
        let mut mark = |span: &Span, c: char| {
            if let Some(l) = out.get_mut(index.line_of(span.start)) {
                *l = Some(c);
            }
        };
        for stmt in &self.stmts {
            match stmt {
                Stmt::Advantage { lines, .. } => lines.iter().for_each(|l| mark(&l.span, '%')),
                Stmt::Symmetric { rules, .. } => rules.iter().for_each(|r| mark(&r.span, '&')),
                Stmt::Macros { defs, .. } => defs.iter().for_each(|d| match d {
                    MacroDef::Commands { span, .. } | MacroDef::Const { span, .. } => {
                        mark(span, '$')
                    }
                }),
                Stmt::Init(_) | Stmt::Keys(_) | Stmt::Settings(_) | Stmt::Rule(_) => {}
            }
        }
        out
    }
}

struct OpenBlock {
    kind: char,
    open: Span,
    weight: f64,
    pairs: Option<Vec<(String, String)>>,
    rules: Vec<Rule>,
    defs: Vec<MacroDef>,
    lines: Vec<AdvLine>,
}

impl OpenBlock {
    fn finish(self) -> Stmt {
        match self.kind {
            '%' => Stmt::Advantage {
                weight: self.weight,
                open: self.open,
                lines: self.lines,
            },
            '&' => Stmt::Symmetric {
                pairs: self.pairs,
                open: self.open,
                rules: self.rules,
            },
            _ => Stmt::Macros {
                open: self.open,
                defs: self.defs,
            },
        }
    }
}

/// Deepest nesting we accept on one line (keeps every later recursive walk shallow).
const MAX_NESTING: usize = 64;

/// The most arithmetic operators one line may hold. Deeper trees than this would only risk the
/// recursion of later stages (a chain of tens of thousands of `+` overflowed the studio's
/// checker thread); no real rule comes near it.
const MAX_OPERATORS: usize = 1000;

fn nesting_ok(toks: &[Spanned], diags: &mut Vec<Diagnostic>) -> bool {
    let mut depth = 0usize;
    let mut run = 0usize;
    let mut ops = 0usize;
    for (t, s) in toks {
        if matches!(
            t,
            Tok::Sym(Sym::Plus | Sym::Minus | Sym::Star | Sym::Slash | Sym::Percent)
        ) {
            ops += 1;
            if ops > MAX_OPERATORS {
                diags.push(
                    Diagnostic::error(
                        DiagCode::E005,
                        s.start..s.end,
                        format!("a line may hold at most {MAX_OPERATORS} operators"),
                    )
                    .with_help("split the computation with a named constant or a macro"),
                );
                return false;
            }
        }
        match t {
            Tok::Sym(Sym::LParen) => depth += 1,
            Tok::Sym(Sym::RParen) => depth = depth.saturating_sub(1),
            _ => {}
        }
        if matches!(t, Tok::Sym(Sym::Minus)) {
            run += 1;
        } else {
            run = 0;
        }
        if depth > MAX_NESTING || run > MAX_NESTING {
            diags.push(Diagnostic::error(
                DiagCode::E005,
                s.start..s.end,
                format!("expression nested more than {MAX_NESTING} levels deep"),
            ));
            return false;
        }
    }
    true
}

/// What one line asks of the parser, decided by a first, sequential pass over line kinds.
enum Action {
    /// Parse slot `job` and add the result to the current block or the file.
    Parse(usize),
    /// Parse slot `job` as a block header and open a block.
    Open {
        kind: char,
        open: Span,
        header: usize,
        content: Option<usize>,
        closes: bool,
    },
    /// Close the open block (`None`: reported as stray).
    Close,
    /// The `':` line.
    Keys { start: usize, end: usize },
    /// The `~` line.
    Settings { start: usize, end: usize },
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum JobKind {
    Rule,
    Init,
    Def,
    Adv,
    Pct,
    Amp,
    Dollar,
}

struct Job {
    kind: JobKind,
    toks: std::ops::Range<usize>,
    eoi: usize,
    /// The parse is already known (a line whose text was seen in the same place before, see
    /// [`ParseCache`]): `Planner::ready` holds it and nothing is parsed.
    ready: bool,
}

#[derive(Clone)]
enum Parsed {
    Rule(Rule),
    Init(Vec<InitItem>),
    Def(MacroDef),
    /// A constant definition that did not parse: its name.
    BrokenConst(NameId),
    Adv(AdvLine),
    Pct(Option<f64>),
    Amp(Option<Vec<(NameId, NameId)>>),
    Dollar,
}

fn run_job<'t>(
    p: &Parsers<'t>,
    job: &Job,
    toks: &'t [Spanned],
    names: &Names,
    diags: &mut Vec<Diagnostic>,
) -> Option<Parsed> {
    let slice = &toks[job.toks.clone()];
    match job.kind {
        JobKind::Rule => run(&p.rule, slice, job.eoi, names, diags).map(Parsed::Rule),
        JobKind::Init => run(&p.init, slice, job.eoi, names, diags).map(Parsed::Init),
        JobKind::Def => run(&p.macro_def, slice, job.eoi, names, diags)
            .map(Parsed::Def)
            .or(match slice {
                [(Tok::Name(n), _), (Tok::Sym(Sym::Colon), _), ..] => Some(Parsed::BrokenConst(*n)),
                _ => None,
            }),
        JobKind::Adv => run(&p.adv_line, slice, job.eoi, names, diags).map(Parsed::Adv),
        JobKind::Pct => run(&p.pct_header, slice, job.eoi, names, diags).map(Parsed::Pct),
        JobKind::Amp => run(&p.amp_header, slice, job.eoi, names, diags).map(Parsed::Amp),
        JobKind::Dollar => {
            run(&p.dollar_header, slice, job.eoi, names, diags).map(|_| Parsed::Dollar)
        }
    }
}

impl Parsed {
    /// Moves every span by `to - from` (a parse made for a line at `from`, reused at `to`).
    fn rebase(&mut self, from: usize, to: usize) {
        let mut f = |s: &mut Span| *s = shift(s, from, to);
        match self {
            Parsed::Rule(r) => r.spans(&mut f),
            Parsed::Init(items) => items.iter_mut().for_each(|i| i.spans(&mut f)),
            Parsed::Def(d) => d.spans(&mut f),
            Parsed::Adv(l) => l.spans(&mut f),
            Parsed::BrokenConst(_) | Parsed::Pct(_) | Parsed::Amp(_) | Parsed::Dollar => {}
        }
    }
}

/// `s` moved by `to - from`. Wrapping arithmetic: a span before `from` (none is expected) still
/// comes back exactly where it was when moved back.
fn shift(s: &Span, from: usize, to: usize) -> Span {
    let m = |x: usize| x.wrapping_sub(from).wrapping_add(to);
    m(s.start)..m(s.end)
}

/// [`Parsed::rebase`] for a diagnostic.
fn rebase_diag(d: &mut Diagnostic, from: usize, to: usize) {
    let f = |s: &mut Span| *s = shift(s, from, to);
    f(&mut d.span);
    d.labels.iter_mut().for_each(|(s, _)| f(s));
}

/// Copies of `diags` moved by `to - from` (between a line's place and positions relative to it).
fn moved_diags(diags: &[Diagnostic], from: usize, to: usize) -> Vec<Diagnostic> {
    diags
        .iter()
        .map(|d| {
            let mut d = d.clone();
            rebase_diag(&mut d, from, to);
            d
        })
        .collect()
}

/// What a line's parse depends on: the kind of statement expected there, its tokens (names as
/// ids of the cache's interner) with spans relative to the first token, and where its input ends.
#[derive(Clone, PartialEq, Eq, Hash)]
struct JobKey {
    kind: JobKind,
    toks: Vec<(Tok, u32, u32)>,
    eoi: u32,
}

/// A line's parse, with spans relative to the line's first token.
#[derive(Clone)]
struct JobResult {
    parsed: Option<Parsed>,
    diags: Vec<Diagnostic>,
}

impl JobResult {
    /// A copy moved by `to - from` (between a line's place and positions relative to it).
    fn moved(&self, from: usize, to: usize) -> JobResult {
        let mut parsed = self.parsed.clone();
        if let Some(p) = &mut parsed {
            p.rebase(from, to);
        }
        JobResult {
            parsed,
            diags: moved_diags(&self.diags, from, to),
        }
    }
}

/// Per-line parse results kept between checks of a text being edited: a line whose tokens are
/// unchanged is not parsed again, only moved to where it now stands. The cache keeps one
/// interner for all the versions it sees (so a name keeps its id) and only the lines of the
/// latest version. [`parse_cached`] with a cache gives exactly what [`parse`] gives, up to the
/// numbering of names.
#[derive(Default)]
pub struct ParseCache {
    names: Option<Names>,
    lines: rustc_hash::FxHashMap<JobKey, JobResult>,
    /// Each line's tokens and lexer diagnostics by its text (spans relative to the line start):
    /// an unchanged line is not lexed again.
    lexed: rustc_hash::FxHashMap<Box<str>, LexedLine>,
    /// A rule line's whole result by the block it stands in ([`block_slot`]) and its text: an
    /// unchanged line is neither lexed nor looked up by its tokens, only moved to where it now
    /// stands.
    texts: [TextMap; 4],
    /// Lines parsed / reused by the latest parse.
    pub last_parsed: usize,
    /// Lines reused by the latest parse.
    pub last_reused: usize,
}

/// A rule line's lexer diagnostics and (when it lexed) its parse, spans relative to the line's
/// start.
struct LineResult {
    lex_diags: Vec<Diagnostic>,
    parse: Option<JobResult>,
}

type TextMap = rustc_hash::FxHashMap<Box<str>, LineResult>;

/// Which of [`ParseCache::texts`] holds the lines of a block opened by `open` (none: the top
/// level).
fn block_slot(open: Option<char>) -> usize {
    match open {
        None => 0,
        Some('&') => 1,
        Some('$') => 2,
        Some(_) => 3,
    }
}

/// Whether a line's result may be kept by its text: a rule line (in a block or not) that cannot
/// open or close a block, so its tokens alone decide its parse.
fn by_text(kind: LineKind, line: &str) -> bool {
    kind == LineKind::Rule && !line.contains(['{', '}', '｛', '｝'])
}

/// A line's lexer output, spans relative to the line's start.
struct LexedLine {
    toks: Vec<(Tok, u32, u32)>,
    diags: Vec<Diagnostic>,
}

/// Files at least this long are parsed on several threads.
const PARALLEL_LINES: usize = 800;

/// Parses a whole rule file.
pub fn parse(text: &str) -> ParsedFile {
    parse_cached(text, None)
}

/// [`parse`], reusing the parses of unchanged lines from `cache` and leaving this text's there.
///
/// Three phases: [`Planner`] lexes each line (reusing cached tokens) and turns the file's
/// block structure into parse jobs and assembly actions; [`run_jobs`] parses the jobs (reusing
/// cached parses, in parallel for long files); [`assemble`] builds the statements in file order.
pub fn parse_cached(text: &str, mut cache: Option<&mut ParseCache>) -> ParsedFile {
    let names = cache
        .as_mut()
        .and_then(|c| c.names.take())
        .unwrap_or_else(new_names);
    let parsed = parse_with(text, names, cache.as_deref_mut());
    if let Some(c) = cache {
        c.names = Some(parsed.names.clone());
    }
    parsed
}

/// Parses `text` (whole lines: a file, or a piece of one) interning into `names`, which the
/// result gives back (the incremental checker parses a file's pieces with one interner).
pub(crate) fn parse_with(
    text: &str,
    names: Names,
    mut cache: Option<&mut ParseCache>,
) -> ParsedFile {
    let old_lexed = cache
        .as_mut()
        .map(|c| std::mem::take(&mut c.lexed))
        .unwrap_or_default();
    let old_texts = cache
        .as_mut()
        .map(|c| std::mem::take(&mut c.texts))
        .unwrap_or_default();
    let mut plan = Planner {
        names,
        diags: Vec::new(),
        toks: Vec::new(),
        actions: Vec::new(),
        jobs: Vec::new(),
        open: None,
        scratch: Vec::new(),
        caching: cache.is_some(),
        old_lexed,
        new_lexed: Default::default(),
        old_texts,
        new_texts: Default::default(),
        ready: Vec::new(),
        pending: Vec::new(),
    };
    let mut pos = 0;
    for raw in text.split('\n') {
        let start = pos;
        pos += raw.len() + 1;
        let end = start + raw.strip_suffix('\r').map_or(raw.len(), |s| s.len());
        plan.line(text, start, end);
    }
    plan.end_of_file();
    let Planner {
        mut names,
        mut diags,
        toks,
        actions,
        jobs,
        new_lexed,
        mut new_texts,
        mut ready,
        pending,
        ..
    } = plan;
    let outs = run_jobs(&jobs, &mut ready, &toks, &names, cache.as_deref_mut());
    if let Some(c) = cache {
        c.lexed = new_lexed;
        // This version's new rule lines, relative to their starts.
        for p in pending {
            let parse = p.job.map(|j| outs[j].moved(p.start, 0));
            new_texts[p.slot].entry(p.text).or_insert(LineResult {
                lex_diags: p.lex_diags,
                parse,
            });
        }
        c.texts = new_texts;
    }
    let mut results = Vec::with_capacity(outs.len());
    for o in outs {
        diags.extend(o.diags);
        results.push(o.parsed);
    }
    let (stmts, broken_consts) = assemble(text, actions, &mut results, &mut names, &mut diags);
    ParsedFile {
        stmts,
        names,
        diags,
        broken_consts,
    }
}

/// The first phase of a parse: every line's tokens, and the jobs and actions its kind and the
/// open block call for.
struct Planner {
    names: Names,
    diags: Vec<Diagnostic>,
    toks: Vec<Spanned>,
    actions: Vec<Action>,
    jobs: Vec<Job>,
    /// The kind of the open block and its `{`, while one is open.
    open: Option<(char, Span)>,
    scratch: Vec<(usize, char, usize)>,
    caching: bool,
    /// The previous version's lexed lines (moved out; this version's go back).
    old_lexed: rustc_hash::FxHashMap<Box<str>, LexedLine>,
    new_lexed: rustc_hash::FxHashMap<Box<str>, LexedLine>,
    /// The previous version's rule lines by text (moved out; this version's go back).
    old_texts: [TextMap; 4],
    new_texts: [TextMap; 4],
    /// Per job: its result when the line's text was known (then nothing is parsed).
    ready: Vec<Option<JobResult>>,
    /// Rule lines not known by their text: kept for the cache once their jobs have run.
    pending: Vec<PendingLine>,
}

/// A rule line whose result goes into [`ParseCache::texts`] when its job has run.
struct PendingLine {
    slot: usize,
    text: Box<str>,
    start: usize,
    lex_diags: Vec<Diagnostic>,
    job: Option<usize>,
}

/// The job kind of a line inside a block opened by `c`.
fn content_kind(c: char) -> JobKind {
    match c {
        '&' => JobKind::Rule,
        '$' => JobKind::Def,
        _ => JobKind::Adv,
    }
}

impl Planner {
    /// One line, `text[start..end]`: a rule line known by its text takes its kept result,
    /// others are lexed and planned.
    fn line(&mut self, text: &str, start: usize, end: usize) {
        let line = &text[start..end];
        let (kind, lead) = lexer::line_kind(line);
        if !self.caching || !by_text(kind, line) {
            self.plan_line(text, kind, lead, start, end);
            return;
        }
        let slot = block_slot(self.open.as_ref().map(|o| o.0));
        let moved = self.old_texts[slot].remove_entry(line);
        if let Some(known) = moved
            .as_ref()
            .map(|m| &m.1)
            .or_else(|| self.new_texts[slot].get(line))
        {
            self.diags.extend(moved_diags(&known.lex_diags, 0, start));
            if let Some(r) = known.parse.as_ref().map(|r| r.moved(0, start)) {
                let t = self.toks.len();
                let j = self.job_range(JobKind::Rule, t..t, end);
                self.jobs[j].ready = true;
                self.ready[j] = Some(r);
                self.actions.push(Action::Parse(j));
            }
            if let Some((k, v)) = moved {
                self.new_texts[slot].insert(k, v);
            }
            return;
        }
        let (d0, j0) = (self.diags.len(), self.jobs.len());
        self.plan_line(text, kind, lead, start, end);
        let lex_diags = moved_diags(&self.diags[d0..], start, 0);
        self.pending.push(PendingLine {
            slot,
            text: line.into(),
            start,
            lex_diags,
            job: (self.jobs.len() > j0).then_some(j0),
        });
    }

    /// One line, `text[start..end]`, lexed and turned into jobs and actions.
    fn plan_line(&mut self, text: &str, kind: LineKind, lead: usize, start: usize, end: usize) {
        let t0 = self.toks.len();
        let lex_ok = matches!(kind, LineKind::Blank | LineKind::Keys | LineKind::Settings)
            || self.lex(text, start, end);
        // Block bookkeeping first.
        if let Some((_, bopen)) = self.open.clone() {
            self.statement_in_open_block(text, kind, lead, start, end, t0, bopen);
        }
        if !lex_ok {
            // The lexer already reported; keep the block structure going on a best-effort basis.
            if kind == LineKind::Close && self.open.take().is_some() {
                self.actions.push(Action::Close);
            }
            return;
        }
        match kind {
            LineKind::Blank => {}
            LineKind::Init => {
                // Skip the `!` `:` tokens.
                let j = self.job(JobKind::Init, (t0 + 2).min(self.toks.len()), end);
                self.actions.push(Action::Parse(j));
            }
            LineKind::Keys => self.actions.push(Action::Keys {
                start: start + lead,
                end,
            }),
            LineKind::Settings => self.actions.push(Action::Settings {
                start: start + lead,
                end,
            }),
            LineKind::Open(c) => self.open_block(c, lead, start, end, t0),
            LineKind::Close => self.close_block(t0),
            LineKind::Rule => match self.open.clone() {
                Some((c, _)) => {
                    let (cend, ceoi) = self.content_end(t0, end);
                    if t0 < cend {
                        let j = self.job_range(content_kind(c), t0..cend, ceoi);
                        self.actions.push(Action::Parse(j));
                    }
                    if cend < self.toks.len() {
                        self.actions.push(Action::Close);
                        self.open = None;
                    }
                }
                None => {
                    let j = self.job(JobKind::Rule, t0, end);
                    self.actions.push(Action::Parse(j));
                }
            },
        }
    }

    /// Lexes `text[start..end]` onto `toks` (or copies its cached tokens); false if the lexer
    /// reported an error or the brackets do not nest.
    fn lex(&mut self, text: &str, start: usize, end: usize) -> bool {
        let t0 = self.toks.len();
        let before = self.diags.len();
        let line = &text[start..end];
        let moved = self.old_lexed.remove_entry(line);
        let known = moved
            .as_ref()
            .map(|(_, l)| l)
            .or_else(|| self.new_lexed.get(line));
        if let Some(l) = known {
            self.toks.extend(
                l.toks.iter().map(|&(t, a, b)| {
                    (t, SimpleSpan::from(start + a as usize..start + b as usize))
                }),
            );
            self.diags.extend(moved_diags(&l.diags, 0, start));
        } else {
            lexer::lex_line_with(
                text,
                start,
                end,
                &mut self.names,
                &mut self.toks,
                &mut self.diags,
                &mut self.scratch,
            );
        }
        if let Some((k, l)) = moved {
            self.new_lexed.insert(k, l);
        } else if self.caching && !self.new_lexed.contains_key(line) {
            let l = LexedLine {
                toks: self.toks[t0..]
                    .iter()
                    .map(|(t, sp)| (*t, (sp.start - start) as u32, (sp.end - start) as u32))
                    .collect(),
                diags: moved_diags(&self.diags[before..], start, 0),
            };
            self.new_lexed.insert(line.into(), l);
        }
        !self.diags[before..].iter().any(|d| d.is_error())
            && nesting_ok(&self.toks[t0..], &mut self.diags)
    }

    /// A job over the tokens from `t0` to the end of the line.
    fn job(&mut self, kind: JobKind, t0: usize, eoi: usize) -> usize {
        self.job_range(kind, t0..self.toks.len(), eoi)
    }

    fn job_range(&mut self, kind: JobKind, toks: std::ops::Range<usize>, eoi: usize) -> usize {
        self.jobs.push(Job {
            kind,
            toks,
            eoi,
            ready: false,
        });
        self.ready.push(None);
        self.jobs.len() - 1
    }

    /// Where a block's content on this line ends (before a closing `}`) and its end of input.
    fn content_end(&self, t0: usize, end: usize) -> (usize, usize) {
        let n = self.toks.len();
        match self.toks[t0.min(n)..].last() {
            Some((Tok::Sym(Sym::RBrace), s)) => (n - 1, s.start),
            _ => (n, end),
        }
    }

    /// A line that cannot be inside the open block (opened at `bopen`): the block is reported
    /// unclosed and closed here.
    #[allow(clippy::too_many_arguments)]
    fn statement_in_open_block(
        &mut self,
        text: &str,
        kind: LineKind,
        lead: usize,
        start: usize,
        end: usize,
        t0: usize,
        bopen: Span,
    ) {
        match kind {
            LineKind::Init | LineKind::Keys | LineKind::Settings => {
                self.diags.push(
                    Diagnostic::error(DiagCode::E010, bopen, "this block is not closed")
                        .with_label(
                            start + lead..char_end(text, start + lead, 2, end),
                            "a new statement begins here",
                        )
                        .with_help(
                            "close the block with '}' on its own line before this statement",
                        ),
                );
            }
            LineKind::Open(_) => {
                let brace = self.toks[t0..]
                    .iter()
                    .find(|(t, _)| *t == Tok::Sym(Sym::LBrace))
                    .map(|(_, s)| s.start..s.end);
                let here = brace.unwrap_or(start + lead..char_end(text, start + lead, 1, end));
                // The spec reads this as the outer block left unclosed (E010 at its `{`);
                // the inner `{` gets its own error so the author sees both ends.
                self.diags.push(
                    Diagnostic::error(DiagCode::E010, bopen.clone(), "this block is not closed")
                        .with_label(here.clone(), "another block opens here")
                        .with_help(
                            "close the block with '}' on its own line before the next block",
                        ),
                );
                self.diags.push(
                    Diagnostic::error(
                        DiagCode::E012,
                        here,
                        "a block cannot be opened inside another block",
                    )
                    .with_label(bopen, "the enclosing block opens here")
                    .with_help("close the enclosing block with '}' first; blocks do not nest"),
                );
            }
            _ => return,
        }
        self.actions.push(Action::Close);
        self.open = None;
    }

    /// A `%{`, `&{` or `${` line: the header job, the content on the same line, and the block
    /// left open unless the line closes it.
    fn open_block(&mut self, c: char, lead: usize, start: usize, end: usize, t0: usize) {
        let Some(bpos) = self.toks[t0..]
            .iter()
            .position(|(t, _)| *t == Tok::Sym(Sym::LBrace))
        else {
            self.diags.push(
                Diagnostic::error(
                    DiagCode::E001,
                    start + lead..end,
                    format!("expected '{{' to open the '{c}' block"),
                )
                .with_help(match c {
                    '%' => "an advantage block starts with %{ or %0.6{",
                    '&' => "a symmetric block starts with &{ or &左/右,上/下{",
                    _ => "a macro block starts with ${",
                }),
            );
            return;
        };
        let brace = self.toks[t0 + bpos].1;
        let header_kind = match c {
            '%' => JobKind::Pct,
            '&' => JobKind::Amp,
            _ => JobKind::Dollar,
        };
        let header = self.job_range(header_kind, t0..t0 + bpos + 1, brace.start);
        let rest = t0 + bpos + 1;
        let (content_end, ceoi) = self.content_end(rest, end);
        let closes = content_end < self.toks.len();
        let content =
            (rest < content_end).then(|| self.job_range(content_kind(c), rest..content_end, ceoi));
        self.actions.push(Action::Open {
            kind: c,
            open: brace.start..brace.end,
            header,
            content,
            closes,
        });
        if !closes {
            self.open = Some((c, brace.start..brace.end));
        }
    }

    /// A `}` line.
    fn close_block(&mut self, t0: usize) {
        let line_toks = &self.toks[t0..];
        let close_span = line_toks[0].1.start..line_toks[0].1.end;
        if line_toks.len() > 1 {
            let s = &line_toks[1].1;
            self.diags.push(
                Diagnostic::error(
                    DiagCode::E001,
                    s.start..s.end,
                    format!(
                        "unexpected {} after '}}'",
                        describe(&line_toks[1].0, &self.names)
                    ),
                )
                .with_help("put '}' on a line of its own"),
            );
        }
        if self.open.take().is_some() {
            self.actions.push(Action::Close);
        } else {
            self.diags.push(
                Diagnostic::error(DiagCode::E011, close_span, "'}' closes no block")
                    .with_help("remove it, or open a block with %{, &{ or ${"),
            );
        }
    }

    fn end_of_file(&mut self) {
        if let Some((_, b)) = self.open.take() {
            self.diags.push(
                Diagnostic::error(
                    DiagCode::E010,
                    b,
                    "this block is not closed before the end of the file",
                )
                .with_help("add a line with '}' after the block's last line"),
            );
            self.actions.push(Action::Close);
        }
    }
}

/// The second phase: each job's parse and diagnostics, in job order (so diagnostics come in
/// line order, as a full parse gives them): taken from `ready` (the line's text was known),
/// reused from `cache` when the line's tokens are unchanged (moved to where the line now
/// stands), else parsed (on several threads for long files). This version's lines are left in
/// the cache.
fn run_jobs(
    jobs: &[Job],
    ready: &mut [Option<JobResult>],
    toks: &[Spanned],
    names: &Names,
    mut cache: Option<&mut ParseCache>,
) -> Vec<JobResult> {
    let base_of = |j: &Job| toks.get(j.toks.start).map_or(j.eoi, |t| t.1.start);
    let mut reused: Vec<bool> = Vec::new();
    let mut keys: Vec<Option<JobKey>> = Vec::new();
    // Cached parses of this text's unchanged lines, moved out of the cache (identical lines
    // share one entry); they go back into it as they are.
    let mut taken: rustc_hash::FxHashMap<JobKey, JobResult> = Default::default();
    if let Some(c) = cache.as_deref_mut() {
        for j in jobs {
            if j.ready {
                reused.push(true);
                keys.push(None);
                continue;
            }
            let base = base_of(j);
            let key = JobKey {
                kind: j.kind,
                toks: toks[j.toks.clone()]
                    .iter()
                    .map(|(t, sp)| {
                        let r = shift(&(sp.start..sp.end), base, 0);
                        (*t, r.start as u32, r.end as u32)
                    })
                    .collect(),
                eoi: j.eoi.wrapping_sub(base) as u32,
            };
            let hit = taken.contains_key(&key)
                || match c.lines.remove(&key) {
                    Some(v) => {
                        taken.insert(key.clone(), v);
                        true
                    }
                    None => false,
                };
            reused.push(hit);
            keys.push(Some(key));
        }
    }
    let todo: Vec<usize> = (0..jobs.len())
        .filter(|&i| !reused.get(i).copied().unwrap_or(false))
        .collect();
    let fresh = parse_jobs(jobs, &todo, toks, names);
    // Put every line's result in its place and keep this version's lines for the cache.
    let mut fresh = fresh.into_iter();
    let mut kept = rustc_hash::FxHashMap::default();
    let mut results: Vec<JobResult> = Vec::with_capacity(jobs.len());
    for (i, j) in jobs.iter().enumerate() {
        if let Some(r) = ready[i].take() {
            results.push(r);
            continue;
        }
        let base = base_of(j);
        let key = keys.get_mut(i).and_then(Option::take);
        let hit = key.as_ref().and_then(|k| taken.get(k));
        let r = match hit {
            // One copy, moved to where the line now stands; the relative one stays cached.
            Some(rel) => rel.moved(0, base),
            None => {
                let (parsed, diags) = fresh.next().unwrap_or_default();
                let r = JobResult { parsed, diags };
                if let Some(key) = key {
                    kept.insert(key, r.moved(base, 0));
                }
                r
            }
        };
        results.push(r);
    }
    if let Some(c) = cache {
        c.last_parsed = todo.len();
        c.last_reused = jobs.len() - todo.len();
        kept.extend(taken);
        c.lines = kept;
    }
    results
}

/// Parses the jobs numbered in `todo` (in parallel for long files: each thread builds its own
/// parsers).
fn parse_jobs(
    jobs: &[Job],
    todo: &[usize],
    toks: &[Spanned],
    names: &Names,
) -> Vec<(Option<Parsed>, Vec<Diagnostic>)> {
    let work = |chunk: &[usize]| -> Vec<(Option<Parsed>, Vec<Diagnostic>)> {
        let p = parsers();
        chunk
            .iter()
            .map(|&i| {
                let mut d = Vec::new();
                let r = run_job(&p, &jobs[i], toks, names, &mut d);
                (r, d)
            })
            .collect()
    };
    if todo.len() >= PARALLEL_LINES {
        use rayon::prelude::*;
        let size = todo
            .len()
            .div_ceil(rayon::current_num_threads().max(1) * 2)
            .max(64);
        todo.par_chunks(size)
            .map(work)
            .collect::<Vec<_>>()
            .into_iter()
            .flatten()
            .collect()
    } else {
        work(todo)
    }
}

/// The last phase: the statements in file order (rules into their blocks), and the names of
/// constants whose definitions did not parse.
fn assemble(
    text: &str,
    actions: Vec<Action>,
    results: &mut [Option<Parsed>],
    names: &mut Names,
    diags: &mut Vec<Diagnostic>,
) -> (Vec<Stmt>, Vec<NameId>) {
    let mut stmts = Vec::new();
    let mut broken_consts = Vec::new();
    let mut block: Option<OpenBlock> = None;
    for a in actions {
        match a {
            Action::Parse(j) => match (results[j].take(), block.as_mut()) {
                (Some(Parsed::Rule(r)), Some(b)) => b.rules.push(r),
                (Some(Parsed::Rule(r)), None) => stmts.push(Stmt::Rule(r)),
                (Some(Parsed::Init(items)), _) => stmts.push(Stmt::Init(items)),
                (Some(Parsed::Def(d)), Some(b)) => b.defs.push(d),
                (Some(Parsed::BrokenConst(n)), _) => broken_consts.push(n),
                (Some(Parsed::Adv(l)), Some(b)) => b.lines.push(l),
                _ => {}
            },
            Action::Open {
                kind,
                open,
                header,
                content,
                closes,
            } => {
                let mut b = OpenBlock {
                    kind,
                    open,
                    weight: 1.0,
                    pairs: None,
                    rules: vec![],
                    defs: vec![],
                    lines: vec![],
                };
                match results[header].take() {
                    Some(Parsed::Pct(w)) => b.weight = w.unwrap_or(1.0),
                    Some(Parsed::Amp(p)) => {
                        b.pairs = p.map(|v| {
                            v.into_iter()
                                .map(|(x, y)| (names.get(x).to_string(), names.get(y).to_string()))
                                .collect()
                        })
                    }
                    _ => {}
                }
                if let Some(c) = content {
                    match results[c].take() {
                        Some(Parsed::Rule(r)) => b.rules.push(r),
                        Some(Parsed::Def(d)) => b.defs.push(d),
                        Some(Parsed::BrokenConst(n)) => broken_consts.push(n),
                        Some(Parsed::Adv(l)) => b.lines.push(l),
                        _ => {}
                    }
                }
                if closes {
                    stmts.push(b.finish());
                } else {
                    block = Some(b);
                }
            }
            Action::Close => {
                if let Some(b) = block.take() {
                    stmts.push(b.finish());
                }
            }
            Action::Keys { start, end } => {
                if let Some(binds) = parse_keys(text, start, end, names, diags) {
                    stmts.push(Stmt::Keys(binds));
                }
            }
            Action::Settings { start, end } => {
                if let Some(s) = parse_settings(text, start, end, diags) {
                    stmts.push(Stmt::Settings(s));
                }
            }
        }
    }
    if let Some(b) = block.take() {
        stmts.push(b.finish());
    }
    (stmts, broken_consts)
}

/// The byte offset `n` characters after `pos` (not past `limit`).
fn char_end(text: &str, pos: usize, n: usize, limit: usize) -> usize {
    text.get(pos..limit).map_or(pos, |t| {
        pos + t.chars().take(n).map(char::len_utf8).sum::<usize>()
    })
}
