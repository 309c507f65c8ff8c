//! The incremental checker: a text is cut into chunks — each top-level line, and each block
//! from its `{` line to its `}` line — and every chunk is parsed, expanded, lowered and indexed
//! on its own, with spans relative to its start, and kept by its text. A keystroke changes one
//! chunk: that chunk is compiled again, the others are taken as they are, and [`link`] puts
//! the program, the diagnostics and the symbol index of the whole text together from them.
//! The work per keystroke is one chunk plus a pass over the chunks' flat tables, not the
//! parse, expansion and lowering of the whole file.
//!
//! What a chunk's expansion depends on besides its text — the command macros and constants of
//! the `${}` blocks — is the *context*, made from the macro blocks' texts and places; when it
//! changes, every chunk is compiled again. Texts whose block structure is broken (an unclosed
//! block, a `}` that closes nothing, a block opened inside another), and expansions over the
//! rule budget, go through the whole-file pipeline instead, which reports them.
//!
//! [`link`]: crate::program::lower::link

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::diag::{Diagnostic, LineIndex};
use crate::expand::{self, Expanded, Macros};
use crate::pipeline::Compiled;
use crate::program::lower::{self, Fragment, Placed};
use crate::symbols::{Piece, SymbolIndex};
use crate::syntax::ast::{Span, Spans, Stmt};
use crate::syntax::grammar::new_names;
use crate::syntax::lexer::{LineKind, line_kind};
use crate::syntax::names::Names;
use crate::syntax::parser::{self, ParseCache};

/// [`crate::pipeline::compile`] while a text is being edited: only the parts of the text that
/// changed since the last call with the same `checker` are compiled again. Gives what
/// `compile` gives, up to the numbering of names.
pub fn compile_cached(text: &str, checker: &mut Checker) -> Compiled {
    checker.check(text)
}

/// What the studio's and the language server's checker keep between versions of one text.
#[derive(Default)]
pub struct Checker {
    /// One interner for every chunk, so a chunk's ids stay valid while it is kept.
    names: Option<Names>,
    ctx: Option<Arc<Context>>,
    /// Chunks by text, with the check that last used each.
    chunks: FxHashMap<Box<str>, (Arc<Chunk>, u64)>,
    /// Checks made.
    checks: u64,
    /// Contexts made so far (a chunk is valid for the context it was made in).
    contexts: u64,
    /// The whole-file pipeline's cache, for texts the chunks cannot take.
    fallback: ParseCache,
    /// Chunks compiled by the latest check (`None`: it went through the whole-file pipeline).
    pub last_compiled: Option<usize>,
    /// Chunks reused by the latest check.
    pub last_reused: usize,
}

/// The macro blocks of a text, and what they define.
struct Context {
    /// Each macro block's place and text.
    key: Vec<(usize, Box<str>)>,
    id: u64,
    macros: Macros,
    /// The expansion's header (macro names, macros, constants).
    header: Expanded,
    /// Problems of the definitions (positions in the text).
    diags: Vec<Diagnostic>,
    /// Names the macro blocks define as command macros (a command of that name is the macro).
    macro_names: FxHashSet<Arc<str>>,
}

/// One chunk compiled on its own; positions relative to its start.
struct Chunk {
    /// The context it was compiled in.
    ctx: u64,
    diags: Vec<Diagnostic>,
    symbols: Piece,
    /// Initial items, keys and settings (linked with the whole file's).
    rest: Expanded,
    frag: Fragment,
    /// The span of its first expanded rule.
    first_rule: Option<Span>,
    /// Rules it expands to (the expansion budget counts them).
    rules: usize,
    budget_hit: bool,
}

/// A chunk of a text: bytes and the 0-based line it starts on.
struct Cut {
    start: usize,
    end: usize,
    line: usize,
    macros: bool,
}

/// Whether `line` holds a brace, half or full width (by bytes: `｛` and `｝` are EF BD 9B and
/// EF BD 9D, and only full-width forms start with EF).
fn has_brace(line: &str) -> bool {
    let b = line.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        c == b'{'
            || c == b'}'
            || (c == 0xEF && matches!(b.get(i + 1..i + 3), Some([0xBD, 0x9B | 0x9D])))
    })
}

/// The chunks of `text`, or None when its block structure is not plain (every block opened
/// on a line without `}`, closed by a line that holds only `}`, with only rule lines, blank
/// lines and comments inside, and no braces anywhere else).
fn cut(text: &str) -> Option<Vec<Cut>> {
    let mut out = Vec::with_capacity(text.len() / 32);
    let mut open: Option<(usize, usize, bool)> = None;
    let mut pos = 0;
    for (n, raw) in text.split('\n').enumerate() {
        let start = pos;
        pos += raw.len() + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let end = start + line.len();
        let (kind, _) = line_kind(line);
        match (open, kind) {
            (_, LineKind::Blank) => {}
            // A `%`, `&` or `$` line without `{` opens nothing (its error is its own).
            (None, LineKind::Open(c)) if line.contains(['{', '｛']) => {
                if line.contains(['}', '｝']) {
                    return None; // a block closed on its opening line
                }
                open = Some((start, n, c == '$'));
            }
            (None, LineKind::Close) | (Some(_), LineKind::Open(_)) => return None,
            (None, _) => {
                if has_brace(line) {
                    return None;
                }
                out.push(Cut {
                    start,
                    end,
                    line: n,
                    macros: false,
                });
            }
            (Some((s, l, m)), LineKind::Close) => {
                if !matches!(line.trim(), "}" | "｝") {
                    return None;
                }
                out.push(Cut {
                    start: s,
                    end,
                    line: l,
                    macros: m,
                });
                open = None;
            }
            (Some(_), LineKind::Rule) if !has_brace(line) => {}
            (Some(_), _) => return None,
        }
    }
    open.is_none().then_some(out)
}

impl Checker {
    /// Checks `text`: what [`crate::pipeline::compile`] gives, up to the numbering of names.
    pub fn check(&mut self, text: &str) -> Compiled {
        let Some(cuts) = cut(text) else {
            return self.whole(text);
        };
        let mut names = self.names.take().unwrap_or_else(new_names);
        let ctx = self.context(text, &cuts, &mut names);
        self.checks += 1;
        let mut chunks: Vec<Arc<Chunk>> = Vec::with_capacity(cuts.len());
        let (mut compiled, mut reused) = (0, 0);
        for c in &cuts {
            let t = &text[c.start..c.end];
            let chunk = match self.chunks.get_mut(t) {
                Some((k, used)) if k.ctx == ctx.id => {
                    reused += 1;
                    *used = self.checks;
                    k.clone()
                }
                _ => {
                    compiled += 1;
                    let k = Arc::new(compile_chunk(t, &mut names, &ctx));
                    self.chunks.insert(t.into(), (k.clone(), self.checks));
                    k
                }
            };
            chunks.push(chunk);
        }
        // Chunks of the last two versions are kept (an undo finds them).
        if self.chunks.len() > 2 * cuts.len() + 64 {
            let now = self.checks;
            self.chunks.retain(|_, (_, used)| *used + 1 >= now);
        }
        let rules: usize = chunks.iter().map(|k| k.rules).sum();
        if chunks.iter().any(|k| k.budget_hit) || rules > expand::MAX_RULES {
            self.names = Some(names);
            return self.whole(text);
        }
        self.last_compiled = Some(compiled);
        self.last_reused = reused;
        let out = link_chunks(text, &cuts, chunks, &ctx, &names);
        self.names = Some(names);
        out
    }

    /// The whole-file pipeline (texts the chunks cannot take).
    fn whole(&mut self, text: &str) -> Compiled {
        self.last_compiled = None;
        self.last_reused = 0;
        crate::pipeline::compile_with(text, Some(&mut self.fallback))
    }

    /// The context of `text` (made again only when its macro blocks changed).
    fn context(&mut self, text: &str, cuts: &[Cut], names: &mut Names) -> Arc<Context> {
        let blocks = cuts.iter().filter(|c| c.macros);
        if let Some(ctx) = &self.ctx
            && ctx.key.len() == blocks.clone().count()
            && blocks
                .clone()
                .zip(&ctx.key)
                .all(|(c, (at, t))| c.start == *at && text[c.start..c.end] == **t)
        {
            return ctx.clone();
        }
        let mut stmts = Vec::new();
        let mut broken = Vec::new();
        let mut macro_names = FxHashSet::default();
        let mut key = Vec::new();
        for c in blocks {
            let t = &text[c.start..c.end];
            key.push((c.start, t.into()));
            let mut p = parser::parse_with(t, std::mem::take(names), None);
            *names = std::mem::take(&mut p.names);
            let piece = Piece::collect(t, &p.stmts, names, &LineIndex::new(t));
            macro_names.extend(piece.macro_names());
            for mut s in p.stmts {
                if let Stmt::Macros { open, defs } = &mut s {
                    let f = &mut |sp: &mut Span| *sp = sp.start + c.start..sp.end + c.start;
                    f(open);
                    defs.iter_mut().for_each(|d| d.spans(f));
                }
                stmts.push(s);
            }
            broken.extend(p.broken_consts);
        }
        let mut diags = Vec::new();
        let macros = expand::macros_of(&stmts, &broken, names, &mut diags);
        let header = expand::header(&macros, names);
        self.contexts += 1;
        let ctx = Arc::new(Context {
            key,
            id: self.contexts,
            macros,
            header,
            diags,
            macro_names,
        });
        self.ctx = Some(ctx.clone());
        ctx
    }
}

/// Parses, indexes, expands and lowers one chunk's text on its own.
fn compile_chunk(text: &str, names: &mut Names, ctx: &Context) -> Chunk {
    let mut parsed = parser::parse_with(text, std::mem::take(names), None);
    let mut diags = crate::syntax::lint::line_checks(text, &mut parsed);
    let index = LineIndex::new(text);
    let mut symbols = Piece::collect(text, &parsed.stmts, &parsed.names, &index);
    symbols.mark_macros(&ctx.macro_names);
    let mut x = Expanded::default();
    let stmts = std::mem::take(&mut parsed.stmts);
    let budget_hit = expand::expand_stmts(
        stmts,
        &ctx.macros,
        &mut parsed.names,
        &index,
        &mut diags,
        &mut x,
    );
    *names = parsed.names;
    let mut frag = lower::lower_fragment(&x, names);
    diags.append(&mut frag.diags);
    let first_rule = x.rules.first().map(|r| r.origin.span.clone());
    let rules = x.rules.len();
    let rest = Expanded {
        init: std::mem::take(&mut x.init),
        keys: std::mem::take(&mut x.keys),
        settings: std::mem::take(&mut x.settings),
        ..Default::default()
    };
    Chunk {
        ctx: ctx.id,
        diags,
        symbols,
        rest,
        frag,
        first_rule,
        rules,
        budget_hit,
    }
}

/// The whole text's result from its chunks.
fn link_chunks(
    text: &str,
    cuts: &[Cut],
    chunks: Vec<Arc<Chunk>>,
    ctx: &Context,
    names: &Names,
) -> Compiled {
    let moved = |s: &Span, at: usize| s.start + at..s.end + at;
    let mut diags = ctx.diags.clone();
    for (c, k) in cuts.iter().zip(&chunks) {
        diags.extend(k.diags.iter().map(|d| {
            let mut d = d.clone();
            d.span = moved(&d.span, c.start);
            d.labels
                .iter_mut()
                .for_each(|(s, _)| *s = moved(s, c.start));
            d
        }));
    }
    // The small statements, moved to where they stand.
    let mut x = Expanded {
        macro_names: ctx.header.macro_names.clone(),
        constants: ctx.header.constants.clone(),
        macros: ctx.header.macros.clone(),
        ..Default::default()
    };
    for (c, k) in cuts.iter().zip(&chunks) {
        let r = &k.rest;
        let f = &mut |s: &mut Span| *s = moved(s, c.start);
        x.init.extend(r.init.iter().map(|it| {
            let mut it = it.clone();
            it.spans(f);
            it
        }));
        x.keys.extend(r.keys.iter().map(|k| {
            let mut k = k.clone();
            f(&mut k.key_span);
            k.cmd.spans(f);
            k
        }));
        x.settings.extend(
            r.settings
                .iter()
                .map(|(s, sp)| (s.clone(), moved(sp, c.start))),
        );
    }
    let first_rule = cuts
        .iter()
        .zip(&chunks)
        .find_map(|(c, k)| k.first_rule.as_ref().map(|s| moved(s, c.start)));
    let pieces: Vec<Placed> = cuts
        .iter()
        .zip(&chunks)
        .filter(|(_, k)| k.frag.len() > 0)
        .map(|(c, k)| Placed {
            frag: &k.frag,
            at: c.start,
            line: c.line,
        })
        .collect();
    let mut program = lower::link(&x, first_rule, &pieces, names, &mut diags);
    drop(pieces);
    let symbols = SymbolIndex::from_pieces(Arc::new(Placement {
        at: cuts.iter().map(|c| (c.start, c.line)).collect(),
        chunks,
    }));
    let spelled = crate::pipeline::reserved_spellings(text, &symbols);
    let mut scratch = crate::syntax::names::Names::default();
    crate::pipeline::as_written(&spelled, Some(&mut program), &mut scratch);
    crate::pipeline::finish_diags(&symbols, &mut diags);
    let ok = !diags.iter().any(|d| d.is_error());
    Compiled::lazy(
        ok.then_some(program),
        diags,
        Arc::new(symbols),
        Arc::from(text),
    )
}

/// The chunks of a text and where each stands (byte, 0-based line): the pieces of its symbol
/// index.
struct Placement {
    chunks: Vec<Arc<Chunk>>,
    at: Vec<(usize, usize)>,
}

impl crate::symbols::Pieces for Placement {
    fn each(&self, f: &mut dyn FnMut(&Piece, usize, usize)) {
        for (k, &(at, line)) in self.chunks.iter().zip(&self.at) {
            f(&k.symbols, at, line)
        }
    }
}
