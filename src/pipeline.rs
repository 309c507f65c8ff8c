//! The pipeline: rule text → syntax ([`crate::syntax`]) → expansion ([`crate::expand`]) →
//! lowering and checks ([`crate::program`]). Every stage depends only on the stages before it;
//! this module is the one place that runs them in order.

use crate::diag::{Diagnostic, LineIndex};
use crate::expand::{self, Expanded};
use crate::program::{RuleProgram, lower, print};
use crate::syntax::names::Names;
use crate::syntax::parser;

/// Everything the pipeline knows about one text.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The program, if the text has no errors.
    pub program: Option<RuleProgram>,
    /// All diagnostics, sorted by position.
    pub diags: Vec<Diagnostic>,
    /// The expansion (also available when there are errors elsewhere).
    pub expanded: Expanded,
    /// The names.
    pub names: Names,
    /// Every name of the text and where it is written (completion, hover, rename).
    pub symbols: std::sync::Arc<crate::symbols::SymbolIndex>,
}

impl Compiled {
    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.diags.iter().filter(|d| d.is_error()).count()
    }
}

/// Runs the whole pipeline: parse, expand, compile, check.
pub fn compile(text: &str) -> Compiled {
    compile_with(text, None)
}

/// [`compile`] while a text is being edited: lines unchanged since the last call with the same
/// `cache` are not parsed again. Gives what [`compile`] gives, up to the numbering of names.
pub fn compile_cached(text: &str, cache: &mut parser::ParseCache) -> Compiled {
    compile_with(text, Some(cache))
}

fn compile_with(text: &str, cache: Option<&mut parser::ParseCache>) -> Compiled {
    let index = LineIndex::new(text);
    let mut parsed = parser::parse_cached(text, cache);
    let mut diags = std::mem::take(&mut parsed.diags);
    parser::hint_bare_names(text, &mut diags);
    let symbols = std::sync::Arc::new(crate::symbols::SymbolIndex::build(
        text,
        &parsed.stmts,
        &parsed.names,
        &index,
    ));
    let expanded = expand::expand(&mut parsed, &index, &mut diags);
    let names = parsed.names;
    let program = lower::lower(&expanded, &names, &mut diags);
    // Ties go by message, so the order never depends on the numbering of names.
    diags.sort_by(|a, b| {
        (a.span.start, a.severity, a.code, &a.message).cmp(&(
            b.span.start,
            b.severity,
            b.code,
            &b.message,
        ))
    });
    diags.dedup();
    let ok = !diags.iter().any(|d| d.is_error());
    Compiled {
        program: if ok { Some(program) } else { None },
        diags,
        expanded,
        names,
        symbols,
    }
}

/// The expanded program of `c` as a `.kmt` file (see [`print::expanded_text`]).
pub fn expanded_kmt(c: &Compiled, source_name: &str) -> String {
    print::expanded_text(
        &c.expanded,
        &c.names,
        c.program.as_ref().map(|p| &p.settings),
        source_name,
    )
}
