//! Checks the rule text off the UI thread.
//!
//! The editor sends every new text with its version; the worker skips to the newest one waiting,
//! runs the whole pipeline ([`compile`]), prepares what the views show (rule texts, line and
//! column of each diagnostic) and sends it back, then wakes the UI with `request_repaint`.
//! A 10,000-line file takes longer than a frame to check, so typing never waits for it.

use crate::diag::{DiagCode, Diagnostic, LineIndex, Severity};
use crate::incremental::Checker;
use crate::incremental::compile_cached;
use crate::pipeline::{Compiled, compile};
use crate::program::Settings;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

/// One diagnostic, resolved to a line and column of the text it was found in.
#[derive(Clone, Debug)]
pub struct DiagItem {
    /// The diagnostic itself.
    pub diag: Diagnostic,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters.
    pub col: usize,
}

impl DiagItem {
    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.diag.severity == Severity::Error
    }
}

/// One expanded rule, ready to show.
#[derive(Clone, Debug)]
pub struct RuleRow {
    /// 1-based source line.
    pub line: usize,
    /// The symmetric copy made by a `&` block.
    pub mirrored: bool,
    /// Macro instances, `$[攻撃]=[蹴る]`, space separated (empty if none).
    pub macros: String,
    /// `@n/` prefix (empty for every turn).
    pub period: String,
    /// Conditions as text.
    pub conds: String,
    /// `:` or `::`.
    pub sep: &'static str,
    /// Effects as text.
    pub effects: String,
    /// (narrow, wide) characters of the origin, conditions (with the period) and effects
    /// cells, counted here off the window's thread: the table sizes its wrapped rows from them.
    pub widths: [(u32, u32); 3],
}

/// (narrow, wide) characters of `s`: a wide one (kanji, kana, full-width forms) is drawn about
/// twice as wide in the monospace font.
fn char_widths(s: &str) -> (u32, u32) {
    s.chars().fold((0, 0), |(n, w), c| {
        if unicode_width::UnicodeWidthChar::width(c).unwrap_or(1) >= 2 {
            (n, w + 1)
        } else {
            (n + 1, w)
        }
    })
}

/// One advantage line, ready to show.
#[derive(Clone, Debug)]
pub struct AdvRow {
    /// 1-based source line.
    pub line: usize,
    /// The block's weight.
    pub weight: f64,
    /// `conditions:value`.
    pub text: String,
}

/// Everything the expanded view shows about a program that compiled.
#[derive(Debug)]
pub struct ProgramView {
    /// Expanded rules in order.
    pub rules: Vec<RuleRow>,
    /// Advantage lines.
    pub adv: Vec<AdvRow>,
    /// (state, initial h, initial c), without 勝利/敗北.
    pub states: Vec<(String, i64, i64)>,
    /// (command, enabled for h, enabled for c) as each side meets them at its first turn
    /// (the `!:` lines, then the availability rules).
    pub commands: Vec<(String, bool, bool)>,
    /// (key, command).
    pub keys: Vec<(String, String)>,
    /// Settings.
    pub settings: Settings,
    /// Constants.
    pub constants: Vec<(String, i64)>,
    /// Macros and their alternatives.
    pub macros: Vec<(String, Vec<String>)>,
    /// The whole pipeline output, for "Export expanded".
    pub compiled: Arc<Compiled>,
    /// The derived victory-condition graph.
    pub graph: Arc<crate::analysis::VictoryGraph>,
    /// The text it was compiled from.
    pub source: Arc<str>,
}

impl ProgramView {
    fn new(compiled: Arc<Compiled>, source: Arc<str>) -> Option<Self> {
        let p = compiled.program.as_ref()?;
        let rules = (0..p.rules.len())
            .map(|i| {
                let o = &p.meta[i].origin;
                let r = &p.rules[i];
                let macros = o
                    .macros
                    .iter()
                    .map(|(m, a)| format!("${m}={a}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                let period = if r.periodic {
                    format!("@{}/", r.period)
                } else {
                    String::new()
                };
                let conds = p.cond_text(i);
                let effects = p.effect_text(i);
                let widths = [
                    char_widths(&origin_text(o.line, o.mirrored, &macros)),
                    char_widths(&format!("{period}{conds}")),
                    char_widths(&effects),
                ];
                RuleRow {
                    line: o.line,
                    mirrored: o.mirrored,
                    macros,
                    period,
                    conds,
                    sep: if r.iff { "::" } else { ":" },
                    effects,
                    widths,
                }
            })
            .collect();
        let adv = (0..p.adv.len())
            .map(|i| AdvRow {
                line: p.adv_meta[i].origin.line,
                weight: p.adv[i].weight,
                text: p.adv_text(i),
            })
            .collect();
        let states = p
            .states
            .iter()
            .enumerate()
            .skip(2)
            .map(|(i, s)| (s.clone(), p.init_values[0][i], p.init_values[1][i]))
            .collect();
        // Each side's commands as it meets them at its first turn (the `!:` lines, then the
        // availability rules): the same position the victory tree judges.
        let eng = crate::engine::Engine::new(p, 0);
        let met = eng
            .initial(crate::side::Side::first_mover(p.settings.cpu_first))
            .and_then(|st| eng.as_each_side_meets_it(&st))
            .ok();
        let commands = p
            .commands
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let on = |x: crate::side::Side| match &met {
                    Some(st) => eng.is_enabled(st, x, i as u32),
                    None => p.init_enabled[x.index()][i],
                };
                (
                    c.clone(),
                    on(crate::side::Side::H),
                    on(crate::side::Side::C),
                )
            })
            .collect();
        let keys = p
            .keys
            .iter()
            .map(|k| (k.key.clone(), p.commands[k.cmd as usize].clone()))
            .collect();
        Some(Self {
            rules,
            adv,
            states,
            commands,
            keys,
            settings: p.settings.clone(),
            constants: p.constants.clone(),
            macros: p.macros.clone(),
            graph: Arc::new(crate::analysis::VictoryGraph::build(p)),
            compiled: compiled.clone(),
            source,
        })
    }

    /// Indices of the rules that come from 1-based source `line`.
    pub fn rows_of_line(&self, line: usize) -> std::ops::Range<usize> {
        // Rules are in file order, so the rows of one line are contiguous.
        let start = self.rules.partition_point(|r| r.line < line);
        let end = start + self.rules[start..].partition_point(|r| r.line <= line);
        start..end
    }
}

/// The result of checking one version of the text.
#[derive(Debug)]
pub struct Checked {
    /// The editor's text version this is for.
    pub version: u64,
    /// The text that was checked.
    pub text: Arc<str>,
    /// Its diagnostics in order.
    pub diags: Vec<DiagItem>,
    /// Number of errors.
    pub errors: usize,
    /// The program's views, if it compiled.
    pub view: Option<Arc<ProgramView>>,
    /// Every name of this text and where it is written (also when it has errors).
    pub symbols: Arc<crate::symbols::SymbolIndex>,
    /// How long the check took.
    pub elapsed: Duration,
}

/// Checks one text (what the worker thread runs; also usable directly).
pub fn check(version: u64, text: Arc<str>) -> Checked {
    check_with(version, text, None)
}

/// [`check`], reusing the parses of the lines that did not change since the last text checked
/// with `cache` (what the worker thread runs: a keystroke re-parses one line).
pub fn check_with(version: u64, text: Arc<str>, cache: Option<&mut Checker>) -> Checked {
    let t0 = Instant::now();
    let compiled = match cache {
        Some(c) => compile_cached(&text, c),
        None => compile(&text),
    };
    let index = LineIndex::new(&text);
    let diags: Vec<DiagItem> = compiled
        .diags
        .iter()
        .map(|d| {
            let (line, col) = index.line_col(&text, d.span.start);
            DiagItem {
                diag: d.clone(),
                line,
                col,
            }
        })
        .collect();
    let errors = compiled.error_count();
    let symbols = compiled.symbols.clone();
    let view = ProgramView::new(Arc::new(compiled), text.clone()).map(Arc::new);
    Checked {
        version,
        text,
        diags,
        errors,
        view,
        symbols,
        elapsed: t0.elapsed(),
    }
}

struct Job {
    version: u64,
    text: Arc<str>,
    /// The 0-based line being edited: where an internal error is shown.
    line: usize,
    ctx: Option<egui::Context>,
}

/// Checks `text`, turning a panic inside the checker into an internal-error diagnostic (E099)
/// on the line being edited, so the checker thread lives on and the next edit is checked. After
/// a panic the cache starts afresh (it may have been left half updated).
fn check_guarded(version: u64, text: Arc<str>, line: usize, cache: &mut Checker) -> Checked {
    use std::panic::AssertUnwindSafe;
    let mut ok = false;
    let (cache_in, ok_in) = (AssertUnwindSafe(&mut *cache), AssertUnwindSafe(&mut ok));
    let out = guarded(version, text, line, move |v, t| {
        // Moved whole (not field by field) so the closure holds the wrappers.
        let (c, done) = (cache_in, ok_in);
        let checked = check_with(v, t, Some(c.0));
        *done.0 = true;
        checked
    });
    if !ok {
        *cache = Checker::default();
    }
    out
}

/// Runs `run` (a checker) and turns its panic into an E099 diagnostic on `line`.
fn guarded(
    version: u64,
    text: Arc<str>,
    line: usize,
    run: impl FnOnce(u64, Arc<str>) -> Checked + std::panic::UnwindSafe,
) -> Checked {
    let t0 = Instant::now();
    let attempt = {
        let text = text.clone();
        std::panic::catch_unwind(move || run(version, text))
    };
    attempt.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let start = start.min(text.len());
        let end = text[start..].find('\n').map_or(text.len(), |k| start + k);
        let diag = crate::diag::Diagnostic::error(
            DiagCode::E099,
            start..end,
            format!("internal error in the checker: {what}"),
        )
        .with_help(
            "this is a bug in Kumite, not in your rules: the views keep the last good version; please report the file",
        );
        let (l, col) = LineIndex::new(&text).line_col(&text, start);
        Checked {
            version,
            text,
            diags: vec![DiagItem {
                diag,
                line: l,
                col,
            }],
            errors: 1,
            view: None,
            symbols: Default::default(),
            elapsed: t0.elapsed(),
        }
    })
}

/// A background checker thread.
pub struct Worker {
    jobs: Sender<Job>,
    results: Receiver<Checked>,
    /// Newest version sent.
    pub sent: u64,
    /// Newest version received.
    pub received: u64,
}

impl Worker {
    /// Starts the thread.
    pub fn spawn() -> Self {
        let (jobs, job_rx) = mpsc::channel::<Job>();
        let (res_tx, results) = mpsc::channel();
        std::thread::Builder::new()
            .name("kumite-check".into())
            .spawn(move || {
                // The parser splits big files over rayon's threads; leave one core to the UI
                // thread so checking a large file never slows down drawing.
                let threads = std::thread::available_parallelism()
                    .map(|n| n.get().saturating_sub(1))
                    .unwrap_or(1)
                    .max(1);
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|i| format!("kumite-check-{i}"))
                    .build()
                    .ok();
                let mut cache = Checker::default();
                while let Ok(mut job) = job_rx.recv() {
                    // Only the newest text matters.
                    while let Ok(newer) = job_rx.try_recv() {
                        job = newer;
                    }
                    let (version, text, line) = (job.version, job.text, job.line);
                    let done = match &pool {
                        Some(pool) => {
                            pool.install(|| check_guarded(version, text, line, &mut cache))
                        }
                        None => check_guarded(version, text, line, &mut cache),
                    };
                    if res_tx.send(done).is_err() {
                        break;
                    }
                    if let Some(ctx) = job.ctx {
                        ctx.request_repaint();
                    }
                }
            })
            .ok();
        Self {
            jobs,
            results,
            sent: 0,
            received: 0,
        }
    }

    /// Queues `text` (version `version`, edited at 0-based `line`) for checking.
    pub fn submit(
        &mut self,
        version: u64,
        text: Arc<str>,
        line: usize,
        ctx: Option<egui::Context>,
    ) {
        let job = Job {
            version,
            text,
            line,
            ctx,
        };
        if let Err(mpsc::SendError(job)) = self.jobs.send(job) {
            // The thread is gone (a panic in the checker): start a new one.
            let received = self.received;
            *self = Self::spawn();
            self.received = received;
            let _ = self.jobs.send(job);
        }
        self.sent = version;
    }

    /// The newest finished result, if any arrived.
    pub fn poll(&mut self) -> Option<Checked> {
        let mut latest = None;
        while let Ok(r) = self.results.try_recv() {
            latest = Some(r);
        }
        if let Some(r) = &latest {
            self.received = r.version;
        }
        latest
    }

    /// True while a sent version has not come back.
    pub fn busy(&self) -> bool {
        self.received < self.sent
    }
}

/// `12`, `12 &`, `12 $[攻撃]=[蹴る]`: a rule's origin as shown in the table.
pub fn origin_text(line: usize, mirrored: bool, macros: &str) -> String {
    let mut s = line.to_string();
    if mirrored {
        s.push_str(" &");
    }
    if !macros.is_empty() {
        s.push(' ');
        s.push_str(macros);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_check_becomes_an_internal_error_on_the_edited_line() {
        let text: Arc<str> = Arc::from("!:[a]\n[a]:S.x+1\nS.x>3:S.勝利\n");
        let c = guarded(7, text.clone(), 1, |_, _| panic!("boom"));
        assert_eq!(c.version, 7);
        assert_eq!(c.errors, 1);
        assert!(c.view.is_none());
        let d = &c.diags[0];
        assert_eq!((d.diag.code, d.line), (DiagCode::E099, 2)); // shown 1-based
        assert!(d.diag.message.contains("boom"), "{}", d.diag.message);
        assert_eq!(&text[d.diag.span.clone()], "[a]:S.x+1");
        // A check that does not panic passes through unchanged.
        let ok = guarded(8, text, 0, check);
        assert_eq!((ok.version, ok.errors), (8, 0));
    }
}
