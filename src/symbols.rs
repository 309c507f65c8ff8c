//! The symbol index: every state, command, macro, constant and key of a rule file, with every
//! place it is written — its definition or first setting, each read and write with the side as
//! written, mirror pairs of symmetric blocks, macro alternatives.
//!
//! The checker builds it from the syntax tree ([`crate::pipeline::Compiled::symbols`]); the
//! studio's editor (completion, hover, go to definition, find uses, rename) and the language
//! server (`kumite lsp`) both answer from it, so they always agree.

use crate::diag::LineIndex;
use crate::syntax::ast::{
    CmdRef, CmdSide, Cond, Effect, Expr, InitItem, MacroDef, Rule, SideRef, Span, Stmt,
};
use crate::syntax::lexer::{is_name_char, norm};
use crate::syntax::names::{NameId, Names};
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use std::sync::Arc;

/// What a name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SymKind {
    /// A state (`S.体力`): one name for both sides.
    State,
    /// A command (`[押す]`).
    Command,
    /// A command macro (`[攻撃]:[殴る];[蹴る]` in `${ }`).
    Macro,
    /// A constant (`費用:5` in `${ }`).
    Constant,
    /// A key of the `':` line.
    Key,
}

/// What one occurrence does with its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The definition of a macro, constant or key.
    Define,
    /// A value in the initial line `!:`.
    Init,
    /// Read by a condition, an expression or an advantage line.
    Read,
    /// Written by a rule effect.
    Write,
    /// A command in a rule's conditions (`[X]`, `O.[X]`, `![X]`).
    Use,
    /// A command turned on (by an effect, or in the initial line).
    Enable,
    /// A command turned off (by an effect, or in the initial line).
    Disable,
    /// The command a key is bound to.
    Bind,
    /// An alternative of a command macro.
    Alternative,
}

/// One place a name is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// What the name is.
    pub kind: SymKind,
    /// The name as the checker reads it (full-width folded).
    pub name: Arc<str>,
    /// Byte span of the name alone (without prefix or brackets) in the text.
    pub span: Span,
    /// What this place does with it.
    pub role: Role,
    /// The side as written: `S`, `O`, `h`, `c`, or none (both sides / not a side's).
    pub side: Option<SideRef>,
    /// 0-based line.
    pub line: usize,
    /// Inside a symmetric block (the line also has a mirrored copy).
    pub mirrored_block: bool,
}

/// Occurrence indices by kind and name.
type ByName = HashMap<(SymKind, Arc<str>), Vec<u32>>;

/// The index of one text.
#[derive(Clone, Default)]
pub struct SymbolIndex {
    /// Every occurrence, by position: made from `pieces` when first asked for (a check of a
    /// 10,000-line file needs none; completion, hover and rename do).
    occ: std::sync::OnceLock<Vec<Occurrence>>,
    pieces: Option<Arc<dyn Pieces>>,
    /// Occurrences by kind and name: made on first use (a check of a 10,000-line file needs
    /// none; references, rename and completion do).
    by_name: std::sync::OnceLock<ByName>,
    /// Mirror pairs of the file's symmetric blocks (`左`/`右` by default).
    pub mirror_pairs: Vec<(String, String)>,
    /// Key bindings: (key, command).
    pub bindings: Vec<(Arc<str>, Arc<str>)>,
}

/// A text edit: replace `span` by `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    /// Bytes replaced.
    pub span: Span,
    /// New text.
    pub text: String,
}

/// Applies `edits` (non-overlapping) to `text`.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> String {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| e.span.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in sorted {
        if e.span.start < at {
            continue;
        }
        out.push_str(&text[at..e.span.start]);
        out.push_str(&e.text);
        at = e.span.end;
    }
    out.push_str(&text[at..]);
    out
}

fn side_of(c: CmdSide) -> SideRef {
    match c {
        CmdSide::Own => SideRef::S,
        CmdSide::Opp => SideRef::O,
    }
}

/// Trims white space (full-width too) off both ends of `span` in `text`.
fn trim(text: &str, span: Span) -> Span {
    let s = &text[span.clone()];
    let lead = s.len() - s.trim_start().len();
    let tail = s.len() - s.trim_end().len();
    span.start + lead..(span.end - tail).max(span.start + lead)
}

/// The name of a state reference `S.名前` (the part after the prefix's dot).
fn after_dot(text: &str, span: Span) -> Span {
    let s = &text[span.clone()];
    let start = s
        .char_indices()
        .filter(|(_, c)| norm(*c) == '.')
        .map(|(i, c)| i + c.len_utf8())
        .next_back()
        .unwrap_or(0);
    // `!S.x`: the dot decides; a bare name (`x=3` in `!:`) keeps the whole span.
    let s2 = &s[start..];
    let lead_bang = if start == 0 {
        s2.char_indices()
            .take_while(|(_, c)| norm(*c) == '!' || c.is_whitespace())
            .map(|(i, c)| i + c.len_utf8())
            .last()
            .unwrap_or(0)
    } else {
        0
    };
    trim(text, span.start + start + lead_bang..span.end)
}

/// The name inside `[名前]`.
fn in_brackets(text: &str, span: Span) -> Span {
    let s = &text[span.clone()];
    let open = s
        .char_indices()
        .find(|(_, c)| norm(*c) == '[')
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0);
    let close = s
        .char_indices()
        .filter(|(_, c)| norm(*c) == ']')
        .map(|(i, _)| i)
        .next_back()
        .filter(|i| *i >= open)
        .unwrap_or(s.len());
    trim(text, span.start + open..span.start + close)
}

/// The name of an initial-line item `h.名前=N` (before its `=`).
fn init_name(text: &str, span: Span) -> Span {
    let s = &text[span.clone()];
    let eq = s
        .char_indices()
        .find(|(_, c)| norm(*c) == '=')
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    after_dot(text, span.start..span.start + eq)
}

struct Builder<'a> {
    text: &'a str,
    names: &'a Names,
    lines: &'a LineIndex,
    interned: HashMap<NameId, Arc<str>>,
    occ: Vec<Occurrence>,
    mirrored: bool,
    bindings: Vec<(Arc<str>, Arc<str>)>,
}

impl Builder<'_> {
    fn name(&mut self, n: NameId) -> Arc<str> {
        let names = self.names;
        self.interned
            .entry(n)
            .or_insert_with(|| Arc::from(names.get(n)))
            .clone()
    }
    fn push(&mut self, kind: SymKind, n: NameId, span: Span, role: Role, side: Option<SideRef>) {
        if span.is_empty() || span.end > self.text.len() {
            return;
        }
        let name = self.name(n);
        self.occ.push(Occurrence {
            kind,
            name,
            line: self.lines.line_of(span.start),
            span,
            role,
            side,
            mirrored_block: self.mirrored,
        });
    }
    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Int(..) => {}
            Expr::State(r) => {
                let sp = after_dot(self.text, r.span.clone());
                self.push(SymKind::State, r.name, sp, Role::Read, Some(r.side));
            }
            Expr::Const(n, sp) => {
                let sp = trim(self.text, sp.clone());
                self.push(SymKind::Constant, *n, sp, Role::Read, None);
            }
            Expr::Neg(a, _) => self.expr(a),
            Expr::Bin(_, a, b, _) => {
                self.expr(a);
                self.expr(b);
            }
            Expr::Call(_, args, _) => args.iter().for_each(|a| self.expr(a)),
        }
    }
    fn cmd(&mut self, c: &CmdRef, role: Role, side: Option<SideRef>) {
        let sp = in_brackets(self.text, c.span.clone());
        self.push(SymKind::Command, c.name, sp, role, side);
    }
    fn cond(&mut self, c: &Cond) {
        match c {
            Cond::Truth { state, .. } => {
                let sp = after_dot(self.text, state.span.clone());
                self.push(SymKind::State, state.name, sp, Role::Read, Some(state.side));
            }
            Cond::Cmp { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            Cond::Cmd { side, cmd, .. } => self.cmd(cmd, Role::Use, Some(side_of(*side))),
        }
    }
    fn rule(&mut self, r: &Rule) {
        r.conds.iter().for_each(|c| self.cond(c));
        for e in &r.effects {
            match e {
                Effect::Bool { state, .. } => {
                    let sp = after_dot(self.text, state.span.clone());
                    self.push(
                        SymKind::State,
                        state.name,
                        sp,
                        Role::Write,
                        Some(state.side),
                    );
                }
                Effect::Update { state, expr, .. } => {
                    let sp = after_dot(self.text, state.span.clone());
                    self.push(
                        SymKind::State,
                        state.name,
                        sp,
                        Role::Write,
                        Some(state.side),
                    );
                    self.expr(expr);
                }
                Effect::Enable { on, side, cmd, .. } => {
                    let role = if *on { Role::Enable } else { Role::Disable };
                    self.cmd(cmd, role, Some(side_of(*side)));
                }
            }
        }
    }
    fn stmt(&mut self, s: &Stmt) -> Option<Vec<(String, String)>> {
        match s {
            Stmt::Init(items) => {
                for it in items {
                    match it {
                        InitItem::Value {
                            side,
                            name,
                            value,
                            span,
                        } => {
                            let sp = init_name(self.text, span.clone());
                            self.push(SymKind::State, *name, sp, Role::Init, *side);
                            self.expr(value);
                        }
                        InitItem::Enabled { side, on, cmd, .. } => {
                            let role = if *on { Role::Enable } else { Role::Disable };
                            self.cmd(cmd, role, *side);
                        }
                    }
                }
            }
            Stmt::Keys(binds) => {
                for b in binds {
                    let key = Arc::<str>::from(b.key.0.as_str());
                    let sp = trim(self.text, b.key_span.clone());
                    if !sp.is_empty() {
                        self.occ.push(Occurrence {
                            kind: SymKind::Key,
                            name: key,
                            line: self.lines.line_of(sp.start),
                            span: sp,
                            role: Role::Define,
                            side: None,
                            mirrored_block: false,
                        });
                    }
                    self.cmd(&b.cmd, Role::Bind, None);
                    let cmd = self.name(b.cmd.name);
                    self.bindings.push((Arc::from(b.key.0.as_str()), cmd));
                }
            }
            Stmt::Settings(_) => {}
            Stmt::Rule(r) => self.rule(r),
            Stmt::Symmetric { pairs, rules, .. } => {
                self.mirrored = true;
                rules.iter().for_each(|r| self.rule(r));
                self.mirrored = false;
                return Some(
                    pairs
                        .clone()
                        .unwrap_or_else(|| vec![("左".into(), "右".into())]),
                );
            }
            Stmt::Macros { defs, .. } => {
                for d in defs {
                    match d {
                        MacroDef::Commands { name, alts, .. } => {
                            let sp = in_brackets(self.text, name.span.clone());
                            self.push(SymKind::Macro, name.name, sp, Role::Define, None);
                            for a in alts {
                                self.cmd(a, Role::Alternative, None);
                            }
                        }
                        MacroDef::Const {
                            name,
                            name_span,
                            value,
                            ..
                        } => {
                            let sp = trim(self.text, name_span.clone());
                            self.push(SymKind::Constant, *name, sp, Role::Define, None);
                            self.expr(value);
                        }
                    }
                }
            }
            Stmt::Advantage { lines, .. } => {
                for l in lines {
                    l.conds.iter().for_each(|c| self.cond(c));
                    self.expr(&l.value);
                }
            }
        }
        None
    }
}

impl std::fmt::Debug for SymbolIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SymbolIndex")
            .field("occ", &self.occ())
            .field("mirror_pairs", &self.mirror_pairs)
            .field("bindings", &self.bindings)
            .finish()
    }
}

/// The pieces an index is made of.
pub(crate) trait Pieces: Send + Sync {
    /// Calls `f` on each piece with the byte and 0-based line where it stands, in text order.
    fn each(&self, f: &mut dyn FnMut(&Piece, usize, usize));
}

/// A whole text is one piece.
impl Pieces for Piece {
    fn each(&self, f: &mut dyn FnMut(&Piece, usize, usize)) {
        f(self, 0, 0)
    }
}

/// The index of a piece of a text (all of it, or one chunk of the incremental checker).
#[derive(Debug, Default)]
pub(crate) struct Piece {
    /// Occurrences by position (spans and lines relative to the piece).
    occ: Vec<Occurrence>,
    mirror_pairs: Vec<(String, String)>,
    bindings: Vec<(Arc<str>, Arc<str>)>,
}

impl Piece {
    /// Indexes `stmts` (parsed from `text`); commands named like a macro are marked by
    /// [`Piece::mark_macros`].
    pub(crate) fn collect(text: &str, stmts: &[Stmt], names: &Names, lines: &LineIndex) -> Self {
        let mut b = Builder {
            text,
            names,
            lines,
            interned: HashMap::default(),
            occ: Vec::new(),
            mirrored: false,
            bindings: Vec::new(),
        };
        let mut mirror_pairs: Vec<(String, String)> = Vec::new();
        for s in stmts {
            if let Some(pairs) = b.stmt(s) {
                for p in pairs {
                    if !mirror_pairs.contains(&p) {
                        mirror_pairs.push(p);
                    }
                }
            }
        }
        Self {
            bindings: std::mem::take(&mut b.bindings),
            occ: b.occ,
            mirror_pairs,
        }
    }

    /// The names the piece defines as macros.
    pub(crate) fn macro_names(&self) -> rustc_hash::FxHashSet<Arc<str>> {
        self.occ
            .iter()
            .filter(|o| o.kind == SymKind::Macro)
            .map(|o| o.name.clone())
            .collect()
    }

    /// Commands named like a macro (of `macros`, the text's) are the macro; then the
    /// occurrences in order of position, each place once.
    pub(crate) fn mark_macros(&mut self, macros: &rustc_hash::FxHashSet<Arc<str>>) {
        let occ = &mut self.occ;
        if !macros.is_empty() {
            for o in occ.iter_mut() {
                if o.kind == SymKind::Command && macros.contains(&o.name) {
                    o.kind = SymKind::Macro;
                }
            }
        }
        occ.sort_by_key(|o| (o.span.start, o.span.end));
        occ.dedup_by(|a, b| a.span == b.span && a.kind == b.kind);
    }
}

impl SymbolIndex {
    /// Indexes `stmts` (parsed from `text`).
    pub fn build(text: &str, stmts: &[Stmt], names: &Names, lines: &LineIndex) -> Self {
        let mut piece = Piece::collect(text, stmts, names, lines);
        let macros = piece.macro_names();
        piece.mark_macros(&macros);
        Self::from_pieces(Arc::new(piece))
    }

    /// The index of a whole text from the indexes of its pieces (in text order, each with the
    /// byte and 0-based line where it stands); the occurrences are moved into place when first
    /// asked for.
    pub(crate) fn from_pieces(pieces: Arc<dyn Pieces>) -> Self {
        let mut mirror_pairs: Vec<(String, String)> = Vec::new();
        let mut bindings = Vec::new();
        pieces.each(&mut |p, _, _| {
            for pair in &p.mirror_pairs {
                if !mirror_pairs.contains(pair) {
                    mirror_pairs.push(pair.clone());
                }
            }
            bindings.extend(p.bindings.iter().cloned());
        });
        Self {
            occ: Default::default(),
            pieces: Some(pieces),
            by_name: Default::default(),
            mirror_pairs,
            bindings,
        }
    }

    /// Every occurrence, by position.
    pub fn occ(&self) -> &[Occurrence] {
        self.occ.get_or_init(|| {
            let Some(pieces) = &self.pieces else {
                return Vec::new();
            };
            let mut n = 0;
            pieces.each(&mut |p, _, _| n += p.occ.len());
            let mut occ = Vec::with_capacity(n);
            pieces.each(&mut |p, at, line| {
                occ.extend(p.occ.iter().map(|o| Occurrence {
                    name: o.name.clone(),
                    span: o.span.start + at..o.span.end + at,
                    line: o.line + line,
                    ..*o
                }))
            });
            occ
        })
    }

    /// Occurrences by kind and name (indices into `occ`).
    fn by_name(&self) -> &ByName {
        self.by_name.get_or_init(|| {
            let mut by_name = ByName::default();
            for (i, o) in self.occ().iter().enumerate() {
                by_name
                    .entry((o.kind, o.name.clone()))
                    .or_default()
                    .push(i as u32);
            }
            by_name
        })
    }

    /// The occurrence at byte `offset` (a cursor just after a name counts as on it).
    pub fn at(&self, offset: usize) -> Option<&Occurrence> {
        let occ = self.occ();
        let i = occ.partition_point(|o| o.span.end < offset);
        occ.get(i)
            .filter(|o| o.span.start <= offset && offset <= o.span.end)
    }

    /// Every occurrence of `name` as `kind`, in text order.
    pub fn uses(&self, kind: SymKind, name: &str) -> Vec<&Occurrence> {
        self.by_name()
            .get(&(kind, Arc::from(name)))
            .map(|v| v.iter().map(|&i| &self.occ()[i as usize]).collect())
            .unwrap_or_default()
    }

    /// Every distinct name of `kind`, with how often it is written.
    pub fn names(&self, kind: SymKind) -> Vec<(Arc<str>, usize)> {
        let mut v: Vec<(Arc<str>, usize)> = self
            .by_name()
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .map(|((_, n), v)| (n.clone(), v.len()))
            .collect();
        v.sort();
        v
    }

    /// Every (kind, name) in the file, sorted.
    pub fn symbols(&self) -> Vec<(SymKind, Arc<str>)> {
        let mut v: Vec<(SymKind, Arc<str>)> = self.by_name().keys().cloned().collect();
        v.sort();
        v
    }

    /// Where `name` is defined: a macro's, constant's or key's definition; a state's first
    /// initial value, else its first write; a command's first enabling (initial line or effect),
    /// else its key binding; else the first occurrence.
    pub fn definition(&self, kind: SymKind, name: &str) -> Option<&Occurrence> {
        let uses = self.uses(kind, name);
        let first = |roles: &[Role]| uses.iter().find(|o| roles.contains(&o.role)).copied();
        match kind {
            SymKind::Macro | SymKind::Constant | SymKind::Key => first(&[Role::Define]),
            SymKind::State => first(&[Role::Init]).or_else(|| first(&[Role::Write])),
            SymKind::Command => first(&[Role::Enable])
                .or_else(|| first(&[Role::Bind]))
                .or_else(|| first(&[Role::Alternative])),
        }
        .or_else(|| uses.first().copied())
    }

    /// The mirror of `name` under the file's pairs (`左パンチ` → `右パンチ`), if it differs.
    pub fn mirror_of(&self, name: &str) -> Option<(String, (String, String))> {
        for (a, b) in &self.mirror_pairs {
            if name.contains(a.as_str()) {
                return Some((name.replace(a.as_str(), b), (a.clone(), b.clone())));
            }
            if name.contains(b.as_str()) {
                return Some((name.replace(b.as_str(), a), (b.clone(), a.clone())));
            }
        }
        None
    }

    /// The edits that rename the symbol at `offset` to `new`, with its mirrored twin when the
    /// new name keeps the mirror word (renaming `左突き` to `左ストレート` also renames
    /// `右突き` to `右ストレート`).
    pub fn rename(&self, offset: usize, new: &str) -> Result<RenamePlan, RenameError> {
        let o = self.at(offset).ok_or(RenameError::NothingHere)?;
        self.rename_symbol(o.kind, &o.name.clone(), new)
    }

    /// [`SymbolIndex::rename`] by name.
    pub fn rename_symbol(
        &self,
        kind: SymKind,
        old: &str,
        new: &str,
    ) -> Result<RenamePlan, RenameError> {
        let new = new.trim();
        check_new_name(kind, new)?;
        if new == old {
            return Err(RenameError::Same);
        }
        let taken = |k: SymKind, n: &str| match k {
            SymKind::Command | SymKind::Macro => {
                !self.uses(SymKind::Command, n).is_empty()
                    || !self.uses(SymKind::Macro, n).is_empty()
            }
            _ => !self.uses(k, n).is_empty(),
        };
        if taken(kind, new) {
            return Err(RenameError::Taken(new.to_string()));
        }
        if kind == SymKind::State && matches!(old, "勝利" | "敗北") {
            return Err(RenameError::BuiltIn(old.to_string()));
        }
        let mut edits: Vec<TextEdit> = self
            .uses(kind, old)
            .iter()
            .map(|o| TextEdit {
                span: o.span.clone(),
                text: new.to_string(),
            })
            .collect();
        let mut mirrored = None;
        if kind != SymKind::Key
            && let Some((twin, (a, b))) = self.mirror_of(old)
            && new.contains(a.as_str())
        {
            let new_twin = new.replace(a.as_str(), &b);
            let twin_uses = self.uses(kind, &twin);
            if !twin_uses.is_empty() && !taken(kind, &new_twin) {
                edits.extend(twin_uses.iter().map(|o| TextEdit {
                    span: o.span.clone(),
                    text: new_twin.clone(),
                }));
                mirrored = Some((twin, new_twin));
            }
        }
        edits.sort_by_key(|e| e.span.start);
        Ok(RenamePlan {
            kind,
            old: old.to_string(),
            new: new.to_string(),
            edits,
            mirrored,
        })
    }
}

/// Why a rename cannot be done (its message is shown as is in the studio and the language
/// server).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenameError {
    /// No symbol at the position.
    #[error("no state, command, macro, constant or key here")]
    NothingHere,
    /// The new name is empty.
    #[error("the new name is empty")]
    Empty,
    /// The new name is the old one.
    #[error("the new name is the same as the old one")]
    Same,
    /// The new name is in use.
    #[error("{0} already exists: renaming would merge two names")]
    Taken(String),
    /// 勝利 and 敗北 keep their names.
    #[error("{0} is built in and cannot be renamed")]
    BuiltIn(String),
    /// Not a key the `':` line can bind.
    #[error("{0} is not a key: one character, or one of {keys}", keys = KEY_NAMES.join(" "))]
    NotAKey(String),
    /// A character that cannot be part of a name.
    #[error("'{0}' cannot be part of a name")]
    BadChar(char),
    /// A name cannot start with a digit.
    #[error("a name cannot start with a digit")]
    DigitStart,
    /// A constant named like a function.
    #[error("{0} is a function")]
    Function(String),
}

/// Named keys a `':` line can bind besides single characters.
const KEY_NAMES: [&str; 7] = ["Space", "Enter", "Up", "Down", "Left", "Right", "Tab"];

/// What a rename will do.
#[derive(Clone, Debug)]
pub struct RenamePlan {
    /// What is renamed.
    pub kind: SymKind,
    /// Old name.
    pub old: String,
    /// New name.
    pub new: String,
    /// Every edit, in text order.
    pub edits: Vec<TextEdit>,
    /// The mirrored twin renamed with it: (old, new).
    pub mirrored: Option<(String, String)>,
}

/// Checks that `new` can be written where a `kind` name goes.
pub fn check_new_name(kind: SymKind, new: &str) -> Result<(), RenameError> {
    if new.is_empty() {
        return Err(RenameError::Empty);
    }
    if kind == SymKind::Key {
        if new.chars().count() == 1 && is_name_char(norm(new.chars().next().unwrap_or(' ')))
            || KEY_NAMES.iter().any(|n| n.eq_ignore_ascii_case(new))
        {
            return Ok(());
        }
        return Err(RenameError::NotAKey(new.to_string()));
    }
    if let Some(c) = new.chars().map(norm).find(|c| !is_name_char(*c)) {
        return Err(RenameError::BadChar(c));
    }
    if new
        .chars()
        .next()
        .map(norm)
        .is_some_and(|c| c.is_ascii_digit())
    {
        return Err(RenameError::DigitStart);
    }
    if kind == SymKind::Constant && matches!(new, "min" | "max" | "abs" | "rand") {
        return Err(RenameError::Function(new.to_string()));
    }
    Ok(())
}

/// Folds a name for matching what someone types: full-width to ASCII, katakana to hiragana
/// (half-width katakana too), lower case.
pub fn fold(s: &str) -> String {
    s.chars()
        .map(norm)
        .map(|c| match c {
            'ァ'..='ヶ' => char::from_u32(c as u32 - 0x60).unwrap_or(c),
            _ => c,
        })
        .flat_map(char::to_lowercase)
        .collect::<String>()
        .chars()
        .map(halfwidth_kana)
        .collect()
}

/// Half-width katakana (U+FF66–U+FF9D) to hiragana.
fn halfwidth_kana(c: char) -> char {
    const MAP: &str = "をぁぃぅぇぉゃゅょっーあいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわん";
    let u = c as u32;
    if (0xFF66..=0xFF9D).contains(&u) {
        MAP.chars().nth((u - 0xFF66) as usize).unwrap_or(c)
    } else {
        c
    }
}

/// How well `typed` matches `name` (both folded): prefix 0, substring 1, subsequence 2.
pub fn match_rank(typed: &str, name: &str) -> Option<u8> {
    if typed.is_empty() || name.starts_with(typed) {
        return Some(0);
    }
    if name.contains(typed) {
        return Some(1);
    }
    let mut it = name.chars();
    typed
        .chars()
        .all(|c| it.by_ref().any(|n| n == c))
        .then_some(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::compile;

    const SRC: &str = "!:h.体力=3,c.体力=3,[ジャブ]\n':j=[ジャブ],l=[左突き]\n${\n[攻撃]:[ジャブ];[左突き]\n費用:2\n}\n&{\n[左突き]:O.体力-費用\n}\n[攻撃]:S.疲れ+1\nO.体力<=0:S.勝利\nS.疲れ>9::![右突き]\n";

    #[test]
    fn names_are_found_with_their_roles() {
        let c = compile(SRC);
        let ix = &c.symbols;
        let st = ix.uses(SymKind::State, "体力");
        assert_eq!(
            st.iter().map(|o| o.role).collect::<Vec<_>>(),
            [Role::Init, Role::Init, Role::Write, Role::Read]
        );
        for o in &st {
            assert_eq!(&SRC[o.span.clone()], "体力");
        }
        let m = ix.uses(SymKind::Macro, "攻撃");
        assert_eq!(m.len(), 2);
        assert_eq!(ix.definition(SymKind::Macro, "攻撃").unwrap().line, 3);
        let k = ix.uses(SymKind::Key, "j");
        assert_eq!(k.len(), 1);
        assert_eq!(ix.uses(SymKind::Constant, "費用").len(), 2);
        let jab = ix.definition(SymKind::Command, "ジャブ").unwrap();
        assert_eq!((jab.line, jab.role), (0, Role::Enable));
        assert_eq!(ix.at(jab.span.end).unwrap().name.as_ref(), "ジャブ");
    }

    #[test]
    fn full_width_names_get_their_own_spans() {
        let src = "!:ｈ．体力＝３\nＯ．体力＜＝０：Ｓ．勝利\n［押す］：Ｏ．体力－１\n";
        let c = compile(src);
        let u = c.symbols.uses(SymKind::State, "体力");
        assert_eq!(u.len(), 3);
        for o in u {
            assert_eq!(&src[o.span.clone()], "体力");
        }
        let p = c.symbols.uses(SymKind::Command, "押す");
        assert_eq!(&src[p[0].span.clone()], "押す");
    }

    #[test]
    fn rename_takes_every_use_and_the_mirror_twin() {
        let c = compile(SRC);
        let at = SRC.find("左突き]:O").unwrap();
        let plan = c.symbols.rename(at, "左ストレート").unwrap();
        let out = apply_edits(SRC, &plan.edits);
        assert!(!out.contains("左突き"), "{out}");
        assert!(out.contains("l=[左ストレート]"));
        assert!(out.contains("![右ストレート]"));
        assert_eq!(
            plan.mirrored,
            Some(("右突き".into(), "右ストレート".into()))
        );
        let after = compile(&out);
        assert_eq!(after.error_count(), 0, "{:?}", after.diags);
        assert!(c.symbols.rename(at, "ジャブ").is_err());
        assert!(c.symbols.rename(at, "1x").is_err());
        assert!(c.symbols.rename(at, "a:b").is_err());
    }

    #[test]
    fn folding_matches_kana_and_full_width() {
        assert_eq!(fold("タイリョク"), fold("たいりょく"));
        assert_eq!(fold("ＡＢ"), "ab");
        assert_eq!(fold("ﾀｲ"), "たい");
        assert_eq!(match_rank(&fold("ﾀｲ"), &fold("タイム")), Some(0));
        assert_eq!(match_rank("りょく", "たいりょく"), Some(1));
        assert_eq!(match_rank("tr", "turn"), Some(2));
        assert_eq!(match_rank("x", "turn"), None);
    }
}
