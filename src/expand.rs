//! Expansion: macros (command alternatives and constants), symmetric blocks and advantage blocks
//! become flat rules, each remembering where it came from.

use crate::diag::{DiagCode, Diagnostic, FixHint, LineIndex, did_you_mean};
use crate::syntax::ast::*;
use crate::syntax::names::{NameId, Names};
use crate::syntax::parser::ParsedFile;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// The most rules an expansion may produce.
pub const MAX_RULES: usize = 100_000;

/// The most commands all command macros may stand for together (each macro's list is kept).
pub const MAX_MACRO_LEAVES: usize = 2_000_000;

/// Where an expanded rule came from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Origin {
    /// 1-based source line.
    pub line: usize,
    /// Span of the source rule.
    pub span: Span,
    /// True for the mirrored copy made by a symmetric block.
    pub mirrored: bool,
    /// Macro instances: (macro, chosen alternative), in order of first use.
    pub macros: Vec<(String, String)>,
}

impl Origin {
    /// Short description, e.g. `line 12 & $[攻撃]=[蹴る]`.
    pub fn describe(&self) -> String {
        let mut s = format!("line {}", self.line);
        if self.mirrored {
            s.push_str(" & mirror");
        }
        for (m, a) in &self.macros {
            s.push_str(&format!(" ${m}={a}"));
        }
        s
    }
}

/// A rule after expansion.
#[derive(Clone, Debug)]
pub struct ExpRule {
    /// The rule, with macros replaced by alternatives and constants by numbers.
    pub rule: Rule,
    /// Where it came from.
    pub origin: Origin,
}

/// An advantage line after expansion.
#[derive(Clone, Debug)]
pub struct ExpAdv {
    /// The block's weight.
    pub weight: f64,
    /// The line.
    pub line: AdvLine,
    /// Where it came from.
    pub origin: Origin,
}

/// The whole file after expansion.
#[derive(Clone, Debug, Default)]
pub struct Expanded {
    /// Initial items in file order (macros expanded, constants resolved).
    pub init: Vec<InitItem>,
    /// Key bindings in file order.
    pub keys: Vec<KeyBind>,
    /// Settings in file order.
    pub settings: Vec<(Setting, Span)>,
    /// Flat rules in file order.
    pub rules: Vec<ExpRule>,
    /// Flat advantage lines.
    pub adv: Vec<ExpAdv>,
    /// Names of command macros (they are not commands).
    pub macro_names: HashSet<NameId>,
    /// Constants and their values.
    pub constants: Vec<(NameId, i64)>,
    /// Command macros in definition order, each with its leaf commands.
    pub macros: Vec<(NameId, Vec<NameId>)>,
}

pub(crate) struct Macros {
    /// Flattened alternatives of each command macro (leaf commands, in order).
    alts: HashMap<NameId, Vec<NameId>>,
    /// Command macros in the order they are defined.
    order: Vec<NameId>,
    consts: HashMap<NameId, i64>,
    /// Constants that are defined (their value may have failed to compute, already reported).
    defined: HashSet<NameId>,
}

/// Expands a parsed file, moving its statements into the expansion (`file.stmts` is left
/// empty). Diagnostics are appended to `diags`.
pub fn expand(file: &mut ParsedFile, index: &LineIndex, diags: &mut Vec<Diagnostic>) -> Expanded {
    let macros = macros_of(&file.stmts, &file.broken_consts, &file.names, diags);
    let mut out = header(&macros, &file.names);
    let stmts = std::mem::take(&mut file.stmts);
    expand_stmts(stmts, &macros, &mut file.names, index, diags, &mut out);
    out
}

/// The command macros and constants the `${}` blocks among `stmts` define (constants whose
/// definition line is broken, `broken_consts`, count as defined: their syntax error is the one
/// report). Problems of the definitions are appended to `diags`.
pub(crate) fn macros_of(
    stmts: &[Stmt],
    broken_consts: &[NameId],
    names: &Names,
    diags: &mut Vec<Diagnostic>,
) -> Macros {
    let mut macros = collect_macros(stmts, names, diags);
    macros.defined.extend(broken_consts.iter().copied());
    macros
}

/// An expansion with nothing in it yet but what `macros` define.
pub(crate) fn header(macros: &Macros, names: &Names) -> Expanded {
    let mut out = Expanded {
        macro_names: macros.alts.keys().copied().collect(),
        macros: macros
            .order
            .iter()
            .filter_map(|m| Some((*m, macros.alts.get(m)?.clone())))
            .collect(),
        ..Default::default()
    };
    out.constants = macros.consts.iter().map(|(k, v)| (*k, *v)).collect();
    // By name (not by id: ids depend on what the interner saw before).
    out.constants
        .sort_by(|a, b| names.get(a.0).cmp(names.get(b.0)));
    out
}

/// Expands `stmts` (the statements are moved into the expansion, not copied) with `macros`,
/// appending to `out`; `index` gives the lines of their text. Returns whether the expansion
/// budget ([`MAX_RULES`] rules, counted in `out`) was hit.
pub(crate) fn expand_stmts(
    stmts: Vec<Stmt>,
    macros: &Macros,
    names: &mut Names,
    index: &LineIndex,
    diags: &mut Vec<Diagnostic>,
    out: &mut Expanded,
) -> bool {
    let mut x = Expander {
        macros,
        names,
        diags,
        index,
        out: std::mem::take(out),
        budget_hit: false,
    };
    for stmt in stmts {
        match stmt {
            Stmt::Init(items) => x.init(&items),
            Stmt::Keys(k) => x.out.keys.extend(k),
            Stmt::Settings(s) => x.out.settings.extend(s),
            Stmt::Rule(r) => {
                let origin = x.origin(&r.span);
                x.rule(r, origin);
            }
            Stmt::Symmetric { pairs, rules, .. } => x.symmetric(pairs.as_deref(), rules),
            Stmt::Macros { .. } => {}
            Stmt::Advantage { weight, lines, .. } => x.advantage(weight, lines),
        }
    }
    *out = x.out;
    x.budget_hit
}

/// Expansion of one file's statements, in order, into [`Expanded`].
struct Expander<'a> {
    macros: &'a Macros,
    names: &'a mut Names,
    diags: &'a mut Vec<Diagnostic>,
    index: &'a LineIndex,
    out: Expanded,
    /// The expansion budget was hit (reported once).
    budget_hit: bool,
}

impl Expander<'_> {
    /// The origin of a line written at `span`.
    fn origin(&self, span: &Span) -> Origin {
        Origin {
            line: self.index.line_of(span.start) + 1,
            span: span.clone(),
            ..Default::default()
        }
    }

    /// One rule, macros and constants expanded, into the rule list.
    fn rule(&mut self, r: Rule, origin: Origin) {
        expand_rule(
            r,
            origin,
            self.macros,
            self.names,
            self.diags,
            &mut self.out.rules,
            &mut self.budget_hit,
        );
    }

    /// The initial line: constants resolved, a macro enabling each of its commands.
    fn init(&mut self, items: &[InitItem]) {
        for it in items {
            match it {
                InitItem::Value {
                    side,
                    name,
                    value,
                    span,
                } => {
                    let mut v = value.clone();
                    if resolve_consts(&mut v, self.macros, self.names, self.diags) {
                        self.out.init.push(InitItem::Value {
                            side: *side,
                            name: *name,
                            value: v,
                            span: span.clone(),
                        });
                    }
                }
                InitItem::Enabled {
                    side,
                    on,
                    cmd,
                    span,
                } => match self.macros.alts.get(&cmd.name) {
                    Some(alts) => {
                        for a in alts {
                            self.out.init.push(InitItem::Enabled {
                                side: *side,
                                on: *on,
                                cmd: CmdRef {
                                    name: *a,
                                    span: cmd.span.clone(),
                                },
                                span: span.clone(),
                            });
                        }
                    }
                    None => self.out.init.push(it.clone()),
                },
            }
        }
    }

    /// A symmetric block: each rule, then its mirrored copy (names exchanged by `pairs`, or
    /// 左/右 and left/right).
    fn symmetric(&mut self, pairs: Option<&[(String, String)]>, rules: Vec<Rule>) {
        let pairs: Vec<(String, String)> = match pairs {
            Some(p) => p.to_vec(),
            None => vec![
                ("左".into(), "右".into()),
                ("left".into(), "right".into()),
                ("Left".into(), "Right".into()),
            ],
        };
        for r in rules {
            let origin = self.origin(&r.span);
            let mut m = r.clone();
            let mut unknown_macro = false;
            let (names, diags, macros) = (&mut *self.names, &mut *self.diags, self.macros);
            map_rule_names(&mut m, &mut |id, is_cmd| {
                let new = mirror_name(names.get(id), &pairs);
                let nid = names.intern(&new);
                if is_cmd
                    && macros.alts.contains_key(&id)
                    && !macros.alts.contains_key(&nid)
                    && !unknown_macro
                {
                    unknown_macro = true;
                    diags.push(
                        Diagnostic::error(DiagCode::E021, r.span.clone(), format!("the mirrored copy uses macro [{new}], which is not defined"))
                            .with_help(format!("define [{new}] in a ${{ }} block, or move this line out of the symmetric block")),
                    );
                }
                nid
            });
            let same = m == r;
            let span = r.span.clone();
            self.rule(r, origin.clone());
            if same {
                self.diags.push(
                    Diagnostic::warning(DiagCode::W014, span, "nothing to exchange on this line of a symmetric block")
                        .with_help("it gets no mirrored copy (a copy would fire twice); move it out of the block, or name the pairs with &左/右{"),
                );
            } else if !unknown_macro {
                self.rule(
                    m,
                    Origin {
                        mirrored: true,
                        ..origin
                    },
                );
            }
        }
    }

    /// An advantage block: each line's conditions expanded as a rule's, its value resolved.
    fn advantage(&mut self, weight: f64, lines: Vec<AdvLine>) {
        for l in lines {
            let origin = self.origin(&l.span);
            // Reuse rule expansion by wrapping the line as a rule with no effects.
            let mut tmp = Vec::new();
            let AdvLine {
                conds,
                mut value,
                span,
            } = l;
            let as_rule = Rule {
                period: None,
                conds,
                iff: false,
                op_span: 0..0,
                effects: vec![],
                span: span.clone(),
            };
            if !resolve_consts(&mut value, self.macros, self.names, self.diags) {
                continue;
            }
            expand_rule(
                as_rule,
                origin,
                self.macros,
                self.names,
                self.diags,
                &mut tmp,
                &mut self.budget_hit,
            );
            for e in tmp {
                self.out.adv.push(ExpAdv {
                    weight,
                    line: AdvLine {
                        conds: e.rule.conds,
                        value: value.clone(),
                        span: span.clone(),
                    },
                    origin: e.origin,
                });
            }
        }
    }
}

fn collect_macros(stmts: &[Stmt], names: &Names, diags: &mut Vec<Diagnostic>) -> Macros {
    let mut cmd_defs: HashMap<NameId, (Vec<CmdRef>, Span)> = HashMap::default();
    let mut const_defs: HashMap<NameId, (Expr, Span)> = HashMap::default();
    let mut order = Vec::new();
    for s in stmts {
        if let Stmt::Macros { defs, .. } = s {
            for d in defs {
                match d {
                    MacroDef::Commands { name, alts, span } => {
                        if let Some((_, first)) = cmd_defs.get(&name.name) {
                            diags.push(
                                Diagnostic::error(
                                    DiagCode::E022,
                                    name.span.clone(),
                                    format!("macro [{}] is defined twice", names.get(name.name)),
                                )
                                .with_label(first.clone(), "first defined here"),
                            );
                        } else {
                            cmd_defs.insert(name.name, (alts.clone(), span.clone()));
                            order.push(name.name);
                        }
                    }
                    MacroDef::Const {
                        name,
                        name_span,
                        value,
                        span,
                    } => {
                        if let Some((_, first)) = const_defs.get(name) {
                            diags.push(
                                Diagnostic::error(
                                    DiagCode::E022,
                                    name_span.clone(),
                                    format!("constant {} is defined twice", names.get(*name)),
                                )
                                .with_label(first.clone(), "first defined here"),
                            );
                        } else {
                            const_defs.insert(*name, (value.clone(), span.clone()));
                        }
                    }
                }
            }
        }
    }
    let alts = flatten_macros(&cmd_defs, &order, names, diags);
    let consts = eval_consts(&const_defs, names, diags);
    let defined = const_defs.keys().copied().collect();
    Macros {
        alts,
        order,
        consts,
        defined,
    }
}

/// A step of an explicit depth-first walk: enter a node, or leave it once its children are
/// done. The walks over macro and constant definitions use an explicit stack, so a chain of
/// thousands of definitions cannot overflow the thread's stack.
#[derive(Clone, Copy)]
enum Visit {
    Enter(NameId),
    Exit(NameId),
}

/// Flattens command macros to their leaf commands (in order, without repeats), reporting each
/// cycle (E023) once; a macro on a cycle keeps the leaves it reaches by other paths.
fn flatten_macros(
    defs: &HashMap<NameId, (Vec<CmdRef>, Span)>,
    order: &[NameId],
    names: &Names,
    diags: &mut Vec<Diagnostic>,
) -> HashMap<NameId, Vec<NameId>> {
    let mut done: HashMap<NameId, Vec<NameId>> = HashMap::default();
    let mut reported: HashSet<NameId> = HashSet::default();
    // Commands listed over all macros so far, and whether the limit was reported.
    let mut total = 0usize;
    let mut over = false;
    // The current path: the macros entered and not yet left (with their positions in `path`).
    let mut path: Vec<NameId> = Vec::new();
    let mut on_path: HashMap<NameId, usize> = HashMap::default();
    for &root in order {
        let mut work = vec![Visit::Enter(root)];
        while let Some(v) = work.pop() {
            match v {
                Visit::Enter(id) => {
                    if done.contains_key(&id) || !defs.contains_key(&id) {
                        continue;
                    }
                    if let Some(&at) = on_path.get(&id) {
                        // A back edge: `id` stands, through the path, for itself.
                        if reported.insert(id) {
                            let cycle: Vec<String> = path[at..]
                                .iter()
                                .chain(std::iter::once(&id))
                                .map(|x| format!("[{}]", names.get(*x)))
                                .collect();
                            diags.push(
                                Diagnostic::error(
                                    DiagCode::E023,
                                    defs[&id].1.clone(),
                                    format!("macro cycle: {}", cycle.join(" → ")),
                                )
                                .with_help(
                                    "a macro may not stand, directly or through others, for itself",
                                ),
                            );
                        }
                        continue;
                    }
                    on_path.insert(id, path.len());
                    path.push(id);
                    work.push(Visit::Exit(id));
                    work.extend(defs[&id].0.iter().rev().map(|a| Visit::Enter(a.name)));
                }
                Visit::Exit(id) => {
                    path.pop();
                    on_path.remove(&id);
                    let mut out: Vec<NameId> = Vec::new();
                    // A set beside the list: a macro with thousands of alternatives would
                    // otherwise be checked against its list once per alternative.
                    let mut seen: rustc_hash::FxHashSet<NameId> = Default::default();
                    for a in &defs[&id].0 {
                        let leaves: &[NameId] = if !defs.contains_key(&a.name) {
                            std::slice::from_ref(&a.name)
                        } else {
                            // A macro still on the path is a cycle: it adds nothing here.
                            done.get(&a.name).map_or(&[], |v| v.as_slice())
                        };
                        for &leaf in leaves {
                            if seen.insert(leaf) {
                                out.push(leaf);
                            }
                        }
                    }
                    total = total.saturating_add(out.len());
                    if total > MAX_MACRO_LEAVES {
                        // Each macro's list is kept: a chain where each macro names the next
                        // grows with the square of its length. Refuse, do not run out of memory.
                        if !over {
                            over = true;
                            diags.push(
                                Diagnostic::error(
                                    DiagCode::E024,
                                    defs[&id].1.clone(),
                                    format!(
                                        "the macros stand for more than {MAX_MACRO_LEAVES} commands in all (here [{}] reaches the limit)",
                                        names.get(id)
                                    ),
                                )
                                .with_help(
                                    "a chain of macros that each include the next grows with the square of its length; list the commands in fewer macros",
                                ),
                            );
                        }
                        out = Vec::new();
                    }
                    done.insert(id, out);
                }
            }
        }
    }
    done
}

/// The names of the constants an expression uses.
fn const_refs(e: &Expr, out: &mut Vec<NameId>) {
    match e {
        Expr::Const(n, _) => out.push(*n),
        Expr::Int(..) | Expr::State(_) => {}
        Expr::Neg(a, _) => const_refs(a, out),
        Expr::Bin(_, a, b, _) => {
            const_refs(a, out);
            const_refs(b, out);
        }
        Expr::Call(_, args, _) => args.iter().for_each(|a| const_refs(a, out)),
    }
}

/// Evaluates every constant in dependency order (file order between independent ones),
/// reporting cycles (E023), unknown names (E020) and values that do not compute (E025). A
/// constant that uses a failed one fails silently (its cause is reported once).
fn eval_consts(
    defs: &HashMap<NameId, (Expr, Span)>,
    names: &Names,
    diags: &mut Vec<Diagnostic>,
) -> HashMap<NameId, i64> {
    let mut keys: Vec<NameId> = defs.keys().copied().collect();
    keys.sort_by_key(|k| defs[k].1.start);
    let mut done: HashMap<NameId, i64> = HashMap::default();
    let mut failed: HashSet<NameId> = HashSet::default();
    let mut path: Vec<NameId> = Vec::new();
    let mut on_path: HashMap<NameId, usize> = HashMap::default();
    let mut refs = Vec::new();
    for &root in &keys {
        let mut work = vec![Visit::Enter(root)];
        while let Some(v) = work.pop() {
            match v {
                Visit::Enter(id) => {
                    if done.contains_key(&id) || failed.contains(&id) || !defs.contains_key(&id) {
                        continue;
                    }
                    if let Some(&at) = on_path.get(&id) {
                        let cycle: Vec<&str> = path[at..]
                            .iter()
                            .chain(std::iter::once(&id))
                            .map(|x| names.get(*x))
                            .collect();
                        diags.push(Diagnostic::error(
                            DiagCode::E023,
                            defs[&id].1.clone(),
                            format!("constant cycle: {}", cycle.join(" → ")),
                        ));
                        // Every member of the cycle fails (each silently but this report).
                        failed.extend(path[at..].iter().copied());
                        continue;
                    }
                    on_path.insert(id, path.len());
                    path.push(id);
                    work.push(Visit::Exit(id));
                    refs.clear();
                    const_refs(&defs[&id].0, &mut refs);
                    work.extend(refs.iter().rev().map(|&n| Visit::Enter(n)));
                }
                Visit::Exit(id) => {
                    path.pop();
                    on_path.remove(&id);
                    if failed.contains(&id) {
                        continue;
                    }
                    match const_value(&defs[&id].0, defs, &done, names, diags) {
                        Some(v) => {
                            done.insert(id, v);
                        }
                        None => {
                            failed.insert(id);
                        }
                    }
                }
            }
        }
    }
    done
}

/// The value of a constant's expression once the constants it uses are evaluated (`done`;
/// a defined constant missing there has failed and was reported).
fn const_value(
    e: &Expr,
    defs: &HashMap<NameId, (Expr, Span)>,
    done: &HashMap<NameId, i64>,
    names: &Names,
    diags: &mut Vec<Diagnostic>,
) -> Option<i64> {
    let result = e.const_eval(&mut |n, s| {
        if defs.contains_key(&n) {
            done.get(&n).copied().ok_or(ConstError::Reported)
        } else {
            diags.push(unknown_const(
                n,
                s.clone(),
                names,
                defs.keys().map(|k| names.get(*k)),
            ));
            Err(ConstError::Reported)
        }
    });
    let (span, message) = match result {
        Ok(v) => return Some(v),
        Err(ConstError::Reported) => return None,
        Err(ConstError::ReadsState(s)) => (s, "a constant cannot read a state"),
        Err(ConstError::Random(s)) => (s, "a constant cannot be random"),
        Err(ConstError::Overflow { span, binary: true }) => {
            (span, "overflow or division by zero in constant")
        }
        Err(ConstError::Overflow { span, .. }) => (span, "overflow in constant"),
    };
    diags.push(Diagnostic::error(DiagCode::E025, span, message));
    None
}

fn unknown_const<'a>(
    n: NameId,
    span: Span,
    names: &Names,
    known: impl IntoIterator<Item = &'a str>,
) -> Diagnostic {
    let name = names.get(n);
    let known: Vec<&str> = known.into_iter().collect();
    let mut help = String::new();
    let near = did_you_mean(name, known.iter().copied());
    if let Some(s) = near {
        help.push_str(&format!("did you mean {s}? "));
    }
    help.push_str(&format!("a state needs its side: S.{name} or O.{name}; a constant is defined in a ${{ }} block as {name}:N"));
    Diagnostic::error(DiagCode::E020, span, format!("unknown constant '{name}'"))
        .with_help(help)
        .with_fixes(near.map(|s| FixHint::Replace {
            from: name.to_string(),
            to: s.to_string(),
        }))
        .with_fix(FixHint::AddPrefix(name.to_string()))
}

/// Replaces constants by their values; reports unknown ones. Returns false if any was unknown.
fn resolve_consts(e: &mut Expr, m: &Macros, names: &Names, diags: &mut Vec<Diagnostic>) -> bool {
    let mut ok = true;
    visit_expr_mut(e, &mut |x| resolve_node(x, m, names, diags, &mut ok));
    ok
}

/// Replaces one constant node by its value; an unknown constant is reported (a defined one
/// whose value failed was reported already) and clears `ok`.
fn resolve_node(
    x: &mut Expr,
    m: &Macros,
    names: &Names,
    diags: &mut Vec<Diagnostic>,
    ok: &mut bool,
) {
    if let Expr::Const(n, s) = x {
        match m.consts.get(n) {
            Some(v) => *x = Expr::Int(*v, s.clone()),
            None => {
                *ok = false;
                if !m.defined.contains(n) {
                    diags.push(unknown_const(
                        *n,
                        s.clone(),
                        names,
                        m.defined.iter().map(|k| names.get(*k)),
                    ));
                }
            }
        }
    }
}

fn visit_expr_mut(e: &mut Expr, f: &mut impl FnMut(&mut Expr)) {
    match e {
        Expr::Neg(a, _) => visit_expr_mut(a, f),
        Expr::Bin(_, a, b, _) => {
            visit_expr_mut(a, f);
            visit_expr_mut(b, f);
        }
        Expr::Call(_, args, _) => args.iter_mut().for_each(|a| visit_expr_mut(a, f)),
        _ => {}
    }
    f(e);
}

/// If `e`'s own operation fails on operands that are all numbers (its parts compute, it does
/// not), where and why.
fn constant_fault(e: &Expr) -> Option<(Span, &'static str)> {
    let value = |x: &Expr| x.const_eval(&mut |_, _| Err(ConstError::Reported)).is_ok();
    let (parts_ok, span, what) = match e {
        Expr::Bin(op, a, b, s) => (
            value(a) && value(b),
            s,
            match op {
                BinOp::Div | BinOp::Mod => "this always overflows or divides by zero",
                _ => "this always overflows (the limit is ±9223372036854775807)",
            },
        ),
        Expr::Neg(a, s) => (value(a), s, "this always overflows"),
        Expr::Call(f, args, s) if *f != Func::Rand => (
            args.len() == f.arity() && args.iter().all(value),
            s,
            "this always overflows",
        ),
        _ => return None,
    };
    (parts_ok && !value(e)).then(|| (span.clone(), what))
}

fn rule_exprs_mut(r: &mut Rule, f: &mut impl FnMut(&mut Expr)) {
    for c in &mut r.conds {
        if let Cond::Cmp { lhs, rhs, .. } = c {
            visit_expr_mut(lhs, f);
            visit_expr_mut(rhs, f);
        }
    }
    for e in &mut r.effects {
        if let Effect::Update { expr, .. } = e {
            visit_expr_mut(expr, f);
        }
    }
}

/// Calls `f(name, is_command)` on every name of the rule and stores what it returns.
fn map_rule_names(r: &mut Rule, f: &mut impl FnMut(NameId, bool) -> NameId) {
    for c in &mut r.conds {
        match c {
            Cond::Truth { state, .. } => state.name = f(state.name, false),
            Cond::Cmd { cmd, .. } => cmd.name = f(cmd.name, true),
            Cond::Cmp { .. } => {}
        }
    }
    for e in &mut r.effects {
        match e {
            Effect::Bool { state, .. } => state.name = f(state.name, false),
            Effect::Update { state, .. } => state.name = f(state.name, false),
            Effect::Enable { cmd, .. } => cmd.name = f(cmd.name, true),
        }
    }
    rule_exprs_mut(r, &mut |x| match x {
        Expr::State(s) => s.name = f(s.name, false),
        Expr::Const(n, _) => *n = f(*n, false),
        _ => {}
    });
}

fn rule_cmds(r: &Rule) -> Vec<NameId> {
    let mut v = Vec::new();
    for c in &r.conds {
        if let Cond::Cmd { cmd, .. } = c {
            v.push(cmd.name);
        }
    }
    for e in &r.effects {
        if let Effect::Enable { cmd, .. } = e {
            v.push(cmd.name);
        }
    }
    v
}

fn expand_rule(
    r: Rule,
    origin: Origin,
    m: &Macros,
    names: &mut Names,
    diags: &mut Vec<Diagnostic>,
    out: &mut Vec<ExpRule>,
    budget_hit: &mut bool,
) {
    if *budget_hit {
        return;
    }
    let mut base = r;
    let mut ok = true;
    rule_exprs_mut(&mut base, &mut |x| {
        resolve_node(x, m, names, diags, &mut ok)
    });
    if !ok {
        return;
    }
    // A part made of numbers only that cannot compute fails every time the rule is read:
    // an error in the file, as it is in a constant (E025), not a surprise during play.
    rule_exprs_mut(&mut base, &mut |x| {
        if let Some((span, what)) = constant_fault(x) {
            ok = false;
            diags.push(Diagnostic::error(DiagCode::E025, span, what));
        }
    });
    if !ok {
        return;
    }
    let mut used: Vec<NameId> = Vec::new();
    for c in rule_cmds(&base) {
        if m.alts.contains_key(&c) && !used.contains(&c) {
            used.push(c);
        }
    }
    if used.is_empty() {
        if out.len() >= MAX_RULES {
            *budget_hit = true;
            diags.push(too_many(&base));
            return;
        }
        out.push(ExpRule { rule: base, origin });
        return;
    }
    let lists: Vec<&Vec<NameId>> = used.iter().map(|u| &m.alts[u]).collect();
    if lists.iter().any(|l| l.is_empty()) {
        return; // a cyclic macro, already reported
    }
    let total = lists
        .iter()
        .try_fold(1usize, |acc, l| acc.checked_mul(l.len()));
    if total.is_none_or(|t| out.len().saturating_add(t) > MAX_RULES) {
        *budget_hit = true;
        diags.push(too_many(&base));
        return;
    }
    let mut idx = vec![0usize; lists.len()];
    loop {
        if out.len() >= MAX_RULES {
            *budget_hit = true;
            diags.push(too_many(&base));
            return;
        }
        let choice: HashMap<NameId, NameId> = used
            .iter()
            .zip(&idx)
            .map(|(u, i)| (*u, m.alts[u][*i]))
            .collect();
        let mut inst = base.clone();
        map_rule_names(&mut inst, &mut |id, is_cmd| {
            if is_cmd {
                choice.get(&id).copied().unwrap_or(id)
            } else {
                id
            }
        });
        let macros = used
            .iter()
            .zip(&idx)
            .map(|(u, i)| {
                (
                    format!("[{}]", names.get(*u)),
                    format!("[{}]", names.get(m.alts[u][*i])),
                )
            })
            .collect();
        out.push(ExpRule {
            rule: inst,
            origin: Origin {
                macros,
                ..origin.clone()
            },
        });
        // Next combination (last macro varies fastest).
        let mut k = lists.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < lists[k].len() {
                break;
            }
            idx[k] = 0;
        }
    }
}

fn too_many(r: &Rule) -> Diagnostic {
    Diagnostic::error(
        DiagCode::E024,
        r.span.clone(),
        format!("expansion produces more than {MAX_RULES} rules"),
    )
    .with_help(
        "macros used together in one rule multiply; split the rule or use fewer alternatives",
    )
}

/// Exchanges the pairs in `name` all at once (so `左右` becomes `右左`). An entry made only of
/// ASCII letters and digits is exchanged only where no ASCII letter or digit touches it.
pub fn mirror_name(name: &str, pairs: &[(String, String)]) -> String {
    let mut entries: Vec<(&str, &str)> = Vec::new();
    for (a, b) in pairs {
        entries.push((a, b));
        entries.push((b, a));
    }
    entries.sort_by_key(|(a, _)| std::cmp::Reverse(a.len()));
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    'outer: while i < name.len() {
        for (from, to) in &entries {
            if from.is_empty() || !name[i..].starts_with(from) {
                continue;
            }
            if from.bytes().all(|b| b.is_ascii_alphanumeric()) {
                let before_ok = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
                let j = i + from.len();
                let after_ok = j >= bytes.len() || !bytes[j].is_ascii_alphanumeric();
                if !(before_ok && after_ok) {
                    continue;
                }
            }
            out.push_str(to);
            i += from.len();
            continue 'outer;
        }
        let c = name[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}
