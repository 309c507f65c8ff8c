//! The pipeline: rule text → syntax ([`crate::syntax`]) → expansion ([`crate::expand`]) →
//! lowering and checks ([`crate::program`]). Every stage depends only on the stages before it;
//! this module is the one place that runs them in order.

use crate::diag::{DiagCode, Diagnostic, FixHint, LineIndex};
use crate::expand::{self, Expanded};
use crate::program::{RuleProgram, lower, print};
use crate::symbols::{SymKind, SymbolIndex};
use crate::syntax::names::Names;
use crate::syntax::parser;

/// Everything the pipeline knows about one text.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The program, if the text has no errors.
    pub program: Option<RuleProgram>,
    /// All diagnostics, sorted by position.
    pub diags: Vec<Diagnostic>,
    /// Every name of the text and where it is written (completion, hover, rename).
    pub symbols: std::sync::Arc<crate::symbols::SymbolIndex>,
    /// The expansion (also when there are errors elsewhere) and the names: made when first
    /// asked for after an incremental check, which does not need them.
    expansion: std::sync::Arc<std::sync::OnceLock<(Expanded, Names)>>,
    /// The text, while the expansion is not made.
    text: Option<std::sync::Arc<str>>,
}

impl Compiled {
    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.diags.iter().filter(|d| d.is_error()).count()
    }

    /// The expansion (also available when there are errors elsewhere).
    pub fn expanded(&self) -> &Expanded {
        &self.expansion().0
    }

    /// The names.
    pub fn names(&self) -> &Names {
        &self.expansion().1
    }

    /// A result whose expansion is made from `text` when first asked for.
    pub(crate) fn lazy(
        program: Option<RuleProgram>,
        diags: Vec<Diagnostic>,
        symbols: std::sync::Arc<crate::symbols::SymbolIndex>,
        text: std::sync::Arc<str>,
    ) -> Self {
        Compiled {
            program,
            diags,
            symbols,
            expansion: Default::default(),
            text: Some(text),
        }
    }

    fn expansion(&self) -> &(Expanded, Names) {
        self.expansion.get_or_init(|| {
            let text = self.text.as_deref().unwrap_or("");
            let index = LineIndex::new(text);
            let mut parsed = parser::parse(text);
            let mut diags = Vec::new();
            let x = expand::expand(&mut parsed, &index, &mut diags);
            let spelled = reserved_spellings(text, &self.symbols);
            as_written(&spelled, None, &mut parsed.names);
            (x, parsed.names)
        })
    }
}

/// Runs the whole pipeline: parse, expand, compile, check.
pub fn compile(text: &str) -> Compiled {
    compile_with(text, None)
}

/// The whole-file pipeline; lines unchanged since the last call with the same `cache` are not
/// parsed again.
pub(crate) fn compile_with(text: &str, cache: Option<&mut parser::ParseCache>) -> Compiled {
    let index = LineIndex::new(text);
    let mut parsed = parser::parse_cached(text, cache);
    let mut diags = crate::syntax::lint::line_checks(text, &mut parsed);
    let symbols = std::sync::Arc::new(crate::symbols::SymbolIndex::build(
        text,
        &parsed.stmts,
        &parsed.names,
        &index,
    ));
    let expanded = expand::expand(&mut parsed, &index, &mut diags);
    let mut names = parsed.names;
    let mut program = lower::lower(&expanded, &names, &mut diags);
    let spelled = reserved_spellings(text, &symbols);
    as_written(&spelled, Some(&mut program), &mut names);
    finish_diags(&symbols, &mut diags);
    let ok = !diags.iter().any(|d| d.is_error());
    Compiled {
        program: if ok { Some(program) } else { None },
        diags,
        symbols,
        expansion: std::sync::Arc::new(std::sync::OnceLock::from((expanded, names))),
        text: None,
    }
}

/// How the file spells the reserved states 勝利 and 敗北: `win` / `lose` where every use is
/// written so (the designer's own words are shown back), else the Japanese name.
pub(crate) fn reserved_spellings(text: &str, symbols: &SymbolIndex) -> [Option<&'static str>; 2] {
    use crate::symbols::SymKind;
    [("勝利", "win"), ("敗北", "lose")].map(|(name, alias)| {
        let uses = symbols.uses(SymKind::State, name);
        let all_alias = !uses.is_empty()
            && uses.iter().all(|o| {
                text.get(o.span.clone())
                    .is_some_and(|t| t.chars().map(crate::syntax::lexer::norm).eq(alias.chars()))
            });
        all_alias.then_some(alias)
    })
}

/// Shows the reserved states as the file spells them: in the program's state names (the tree,
/// the turn log, match results) and in the names the expanded rules are printed with.
pub(crate) fn as_written(
    spelled: &[Option<&'static str>; 2],
    program: Option<&mut crate::program::RuleProgram>,
    names: &mut crate::syntax::names::Names,
) {
    let ids = [crate::syntax::grammar::WIN, crate::syntax::grammar::LOSE];
    if let Some(p) = program {
        for (k, s) in spelled.iter().enumerate() {
            if let (Some(s), Some(slot)) = (s, p.states.get_mut(k)) {
                *slot = (*s).to_string();
            }
        }
    }
    for (id, s) in ids.iter().zip(spelled) {
        if let Some(s) = s {
            names.set_display(*id, s);
        }
    }
}

/// The expanded program of `c` as a `.kmt` file (see [`print::expanded_text`]).
pub fn expanded_kmt(c: &Compiled, source_name: &str) -> String {
    print::expanded_text(
        c.expanded(),
        c.names(),
        c.program.as_ref().map(|p| &p.settings),
        source_name,
    )
}

/// The last step of both checkers (this pipeline and the incremental one): what needs every
/// name of the file, then [`sort_diags`]. An unknown constant that is the name of a state is a
/// state written without its side: E020's help and quick fix then say `S.`/`O.` rather than
/// proposing a near constant (`スタミナ` is `S.スタミナ`, not 最大スタミナ).
pub(crate) fn finish_diags(symbols: &SymbolIndex, diags: &mut Vec<Diagnostic>) {
    for d in diags.iter_mut().filter(|d| d.code == DiagCode::E020) {
        let Some(name) = d.fixes.iter().find_map(|f| match f {
            FixHint::AddPrefix(n) => Some(n.clone()),
            _ => None,
        }) else {
            continue;
        };
        if symbols.uses(SymKind::State, &name).is_empty() {
            continue;
        }
        d.help = Some(format!(
            "{name} is a state: write S.{name} (the side the rule runs for) or O.{name} (its opponent); a bare name is a constant from a ${{ }} block"
        ));
        d.fixes.retain(|f| matches!(f, FixHint::AddPrefix(_)));
    }
    sort_diags(diags);
}

/// Sorts diagnostics by position and removes repeats. Ties go by message, so the order never
/// depends on the numbering of names.
pub(crate) fn sort_diags(diags: &mut Vec<Diagnostic>) {
    diags.sort_by(|a, b| {
        (a.span.start, a.severity, a.code, &a.message).cmp(&(
            b.span.start,
            b.severity,
            b.code,
            &b.message,
        ))
    });
    diags.dedup();
}
