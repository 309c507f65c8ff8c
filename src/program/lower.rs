//! Lowering: the expanded syntax ([`Expanded`]) to the flat tables of a [`RuleProgram`], in small
//! phases — initial line, keys, rules, advantage lines, settings — then the checks of
//! [`super::checks`] and the program assembled. Names are interned in order of first appearance
//! (initial line, keys, rules, advantage), so ids follow the file.

use super::checks;
use super::facts::Facts;
use super::*;
use crate::diag::{DiagCode, Diagnostic};
use crate::expand::{ExpRule, Expanded};
use crate::side::Side;
use crate::syntax::ast::*;
use crate::syntax::names::{NameId, Names};
use crate::syntax::parser::{LOSE, WIN};
use rustc_hash::FxHashMap as HashMap;

/// Lowers an expansion to a program, adding the errors and warnings found on the way.
pub fn lower(x: &Expanded, names: &Names, diags: &mut Vec<Diagnostic>) -> RuleProgram {
    let mut lowered = start(x, names, diags);
    let Start { b, facts, t, .. } = &mut lowered;
    let anyone_wins = lower_rules(b, x, facts, t, diags);
    lower_adv(b, x, facts, t);
    let first_rule = x.rules.first().map(|r| r.origin.span.clone());
    finish(lowered, x, first_rule, names, anyone_wins, diags)
}

/// A program being lowered: the interned names and bytecode, what the checks learn, the
/// initial line, the keys and the tables. [`lower`] and [`link`] begin it alike ([`start`]),
/// fill the rule and advantage tables their own way, and end it alike ([`finish`]).
struct Start<'a> {
    b: Builder<'a>,
    facts: Facts,
    init: Init,
    keys: Vec<KeyBinding>,
    t: Tables,
}

/// Phases 1–2: 勝利/敗北 interned, then the initial line and the key lines.
fn start<'a>(x: &Expanded, names: &'a Names, diags: &mut Vec<Diagnostic>) -> Start<'a> {
    let mut b = Builder::new(names);
    let mut facts = Facts::default();
    let init = lower_init(&mut b, x, &mut facts, diags);
    let keys = lower_keys(&mut b, x, diags);
    Start {
        b,
        facts,
        init,
        keys,
        t: Tables::default(),
    }
}

/// After the tables: the settings, the name checks, the program assembled, and (when the file
/// has no errors) the rule lints.
fn finish(
    s: Start,
    x: &Expanded,
    first_rule: Option<Span>,
    names: &Names,
    anyone_wins: bool,
    diags: &mut Vec<Diagnostic>,
) -> RuleProgram {
    let settings = lower_settings(x, diags);
    checks::names(x, first_rule, names, &s.facts, anyone_wins, diags);
    let prog = assemble(s.b, s.init, s.keys, settings, s.t, x, names);
    if !diags.iter().any(|d| d.is_error()) {
        checks::lint_rules(&prog, diags);
    }
    prog
}

/// The rule and advantage tables while they are built.
#[derive(Default)]
struct Tables {
    rules: Vec<CRule>,
    conds: Vec<CCond>,
    effects: Vec<CEffect>,
    meta: Vec<RuleMeta>,
    max_seq: [u8; 2],
    adv: Vec<CAdv>,
    adv_meta: Vec<RuleMeta>,
}

/// The initial line's values and flags: (side, id, value).
struct Init {
    vals: Vec<(usize, StateId, i64)>,
    flags: Vec<(usize, CmdId, bool)>,
}

/// Interns names to ids (in order of first appearance) and emits expression bytecode.
struct Builder<'a> {
    names: &'a Names,
    states: Vec<String>,
    state_ix: HashMap<NameId, StateId>,
    commands: Vec<String>,
    cmd_ix: HashMap<NameId, CmdId>,
    /// The names of `states` and `commands`, in the same order.
    state_names: Vec<NameId>,
    cmd_names: Vec<NameId>,
    code: Vec<Op>,
}

impl<'a> Builder<'a> {
    /// A builder with 勝利 and 敗北 interned first (ids 0 and 1).
    fn new(names: &'a Names) -> Self {
        let mut b = Builder {
            names,
            states: vec![],
            state_ix: HashMap::default(),
            commands: vec![],
            cmd_ix: HashMap::default(),
            state_names: vec![],
            cmd_names: vec![],
            code: vec![],
        };
        b.state(WIN);
        b.state(LOSE);
        b
    }
    fn state(&mut self, n: NameId) -> StateId {
        if let Some(i) = self.state_ix.get(&n) {
            return *i;
        }
        let i = self.states.len() as StateId;
        self.states.push(self.names.get(n).to_string());
        self.state_names.push(n);
        self.state_ix.insert(n, i);
        i
    }
    fn cmd(&mut self, n: NameId) -> CmdId {
        if let Some(i) = self.cmd_ix.get(&n) {
            return *i;
        }
        let i = self.commands.len() as CmdId;
        self.commands.push(self.names.get(n).to_string());
        self.cmd_names.push(n);
        self.cmd_ix.insert(n, i);
        i
    }
    fn expr(&mut self, e: &Expr, rand_slot: &mut u16) -> (u32, u32) {
        let s = self.code.len() as u32;
        self.emit(e, rand_slot);
        (s, self.code.len() as u32)
    }
    fn emit(&mut self, e: &Expr, rand_slot: &mut u16) {
        if let Some(v) = e.fold() {
            self.code.push(Op::Push(v));
            return;
        }
        match e {
            Expr::Int(v, _) => self.code.push(Op::Push(*v)),
            Expr::State(r) => {
                let id = self.state(r.name);
                self.code.push(Op::Load(r.side, id));
            }
            Expr::Const(..) => self.code.push(Op::Push(0)), // unreachable: constants are resolved
            Expr::Neg(a, _) => {
                self.emit(a, rand_slot);
                self.code.push(Op::Neg);
            }
            Expr::Bin(op, a, b, _) => {
                self.emit(a, rand_slot);
                self.emit(b, rand_slot);
                self.code.push(Op::Bin(*op));
            }
            Expr::Call(f, args, _) => {
                for a in args {
                    self.emit(a, rand_slot);
                }
                self.code.push(match f {
                    Func::Min => Op::Min,
                    Func::Max => Op::Max,
                    Func::Abs => Op::Abs,
                    Func::Rand => {
                        let s = *rand_slot;
                        *rand_slot = rand_slot.saturating_add(1);
                        Op::Rand(s)
                    }
                });
            }
        }
    }
}

/// Compiles a condition list (of a rule or an advantage line); returns the number of the acting
/// side's and the opponent's command atoms (the lengths of the two sequences).
fn compile_conds(
    b: &mut Builder,
    conds_in: &[Cond],
    out: &mut Vec<CCond>,
    facts: &mut Facts,
    slot: &mut u16,
) -> (usize, usize) {
    let n_own = conds_in
        .iter()
        .filter(|c| {
            matches!(
                c,
                Cond::Cmd {
                    side: CmdSide::Own,
                    ..
                }
            )
        })
        .count();
    let n_opp = conds_in
        .iter()
        .filter(|c| {
            matches!(
                c,
                Cond::Cmd {
                    side: CmdSide::Opp,
                    ..
                }
            )
        })
        .count();
    let (mut i_own, mut i_opp) = (0usize, 0usize);
    for c in conds_in {
        out.push(match c {
            Cond::Truth { neg, state, .. } => {
                facts.state_read.push((state.name, state.span.clone()));
                CCond::Truth {
                    neg: *neg,
                    side: state.side,
                    state: b.state(state.name),
                }
            }
            Cond::Cmp { op, lhs, rhs, .. } => {
                for e in [lhs, rhs] {
                    e.for_each_state(&mut |r| facts.state_read.push((r.name, r.span.clone())));
                }
                let l = b.expr(lhs, slot);
                let r = b.expr(rhs, slot);
                CCond::Cmp {
                    op: *op,
                    lhs: l,
                    rhs: r,
                }
            }
            Cond::Cmd { neg, side, cmd, .. } => {
                facts.cmd_mention.push((cmd.name, cmd.span.clone()));
                facts.cmd_used.entry(cmd.name).or_insert(cmd.span.clone());
                let (opp, back) = match side {
                    CmdSide::Own => {
                        i_own += 1;
                        (false, n_own - i_own)
                    }
                    CmdSide::Opp => {
                        i_opp += 1;
                        (true, n_opp - i_opp)
                    }
                };
                CCond::Cmd {
                    neg: *neg,
                    opp,
                    back: back.min(255) as u8,
                    cmd: b.cmd(cmd.name),
                }
            }
        });
    }
    (n_own, n_opp)
}

fn side_index(s: Option<SideRef>) -> Vec<usize> {
    match s {
        Some(SideRef::H) => vec![0],
        Some(SideRef::C) => vec![1],
        _ => vec![0, 1],
    }
}

/// Phase 1: the initial line (`!:`); a value or flag set twice is an error (E050).
fn lower_init(
    b: &mut Builder,
    x: &Expanded,
    facts: &mut Facts,
    diags: &mut Vec<Diagnostic>,
) -> Init {
    let mut init_vals: Vec<(usize, StateId, i64)> = vec![];
    let mut init_flags: Vec<(usize, CmdId, bool)> = vec![];
    let mut seen_val: HashMap<(usize, StateId), Span> = HashMap::default();
    let mut seen_flag: HashMap<(usize, CmdId), Span> = HashMap::default();
    for it in &x.init {
        match it {
            InitItem::Value {
                side,
                name,
                value,
                span,
            } => {
                let id = b.state(*name);
                facts.state_set.entry(*name).or_insert(span.clone());
                let v = value.fold().unwrap_or(0);
                for s in side_index(*side) {
                    if let Some(first) = seen_val.get(&(s, id)) {
                        diags.push(
                            Diagnostic::error(
                                DiagCode::E050,
                                span.clone(),
                                format!(
                                    "the initial value of {}.{} is set twice",
                                    Side::from_index(s).name(),
                                    b.names.get(*name)
                                ),
                            )
                            .with_label(first.clone(), "first set here"),
                        );
                        break;
                    }
                    seen_val.insert((s, id), span.clone());
                    init_vals.push((s, id, v));
                }
            }
            InitItem::Enabled {
                side,
                on,
                cmd,
                span,
            } => {
                let id = b.cmd(cmd.name);
                facts.cmd_mention.push((cmd.name, cmd.span.clone()));
                if *on {
                    facts.cmd_enable.entry(cmd.name).or_insert(span.clone());
                }
                for s in side_index(*side) {
                    if let Some(first) = seen_flag.get(&(s, id)) {
                        diags.push(
                            Diagnostic::error(
                                DiagCode::E050,
                                span.clone(),
                                format!(
                                    "the initial flag of {}.[{}] is set twice",
                                    Side::from_index(s).name(),
                                    b.names.get(cmd.name)
                                ),
                            )
                            .with_label(first.clone(), "first set here"),
                        );
                        break;
                    }
                    seen_flag.insert((s, id), span.clone());
                    init_flags.push((s, id, *on));
                }
            }
        }
    }

    Init {
        vals: init_vals,
        flags: init_flags,
    }
}

/// Phase 2: key bindings (`':`); a key bound twice (E040) or to a macro (E041) is an error.
fn lower_keys(b: &mut Builder, x: &Expanded, diags: &mut Vec<Diagnostic>) -> Vec<KeyBinding> {
    let mut keys = Vec::new();
    let mut seen_key: HashMap<&str, Span> = HashMap::default();
    for k in &x.keys {
        if let Some(first) = seen_key.get(k.key.0.as_str()) {
            diags.push(
                Diagnostic::error(
                    DiagCode::E040,
                    k.key_span.clone(),
                    format!("key '{}' is bound twice", k.key.0),
                )
                .with_label(first.clone(), "first bound here")
                .with_help("upper and lower case are different keys: 'C' is Shift+c"),
            );
            continue;
        }
        seen_key.insert(&k.key.0, k.key_span.clone());
        if x.macro_names.contains(&k.cmd.name) {
            diags.push(
                Diagnostic::error(
                    DiagCode::E041,
                    k.cmd.span.clone(),
                    format!(
                        "[{}] is a macro, not a command; it cannot be bound to a key",
                        b.names.get(k.cmd.name)
                    ),
                )
                .with_help("bind each of its alternatives to its own key"),
            );
            continue;
        }
        let id = b.cmd(k.cmd.name);
        keys.push(KeyBinding {
            key: k.key.0.clone(),
            cmd: id,
        });
    }

    keys
}

/// Phase 3: the rules, in expansion order. Returns whether any rule can make someone win.
fn lower_rules(
    b: &mut Builder,
    x: &Expanded,
    facts: &mut Facts,
    t: &mut Tables,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let Tables {
        rules,
        conds,
        effects,
        meta,
        max_seq,
        ..
    } = t;
    let mut anyone_wins = false;
    for ExpRule { rule, origin } in &x.rules {
        let mut slot = 0u16;
        let c0 = conds.len() as u32;
        let (n_own, n_opp) = compile_conds(b, &rule.conds, conds, facts, &mut slot);
        max_seq[0] = max_seq[0].max(n_own.min(255) as u8);
        max_seq[1] = max_seq[1].max(n_opp.min(255) as u8);
        let e0 = effects.len() as u32;
        let mut only_win = !rule.effects.is_empty();
        let mut has_enable = false;
        for e in &rule.effects {
            effects.push(match e {
                Effect::Bool { value, state, .. } => {
                    facts.state_set.entry(state.name).or_insert(state.span.clone());
                    facts.state_effect.push((state.name, state.span.clone()));
                    if *value && (state.name == WIN || state.name == LOSE) {
                        anyone_wins = true;
                    }
                    if state.name != WIN && state.name != LOSE {
                        only_win = false;
                    }
                    CEffect::Bool { side: state.side, state: b.state(state.name), value: *value }
                }
                Effect::Update { op, state, expr, span, .. } => {
                    if rule.iff {
                        diags.push(
                            Diagnostic::error(DiagCode::E030, span.clone(), "this effect has no inverse, so it cannot be used with '::'")
                                .with_label(rule.op_span.clone(), "'::' applies the inverse when the conditions fail")
                                .with_help("use ':' for numeric updates; '::' takes only S.x, !S.x, [X] and ![X]"),
                        );
                    }
                    facts.state_set.entry(state.name).or_insert(state.span.clone());
                    facts.state_effect.push((state.name, state.span.clone()));
                    expr.for_each_state(&mut |r| facts.state_read.push((r.name, r.span.clone())));
                    if state.name == WIN || state.name == LOSE {
                        // `S.勝利=0` or `S.勝利*=0` cannot make anyone win.
                        if !(matches!(op, UpdOp::Set | UpdOp::Mul) && expr.fold() == Some(0)) {
                            anyone_wins = true;
                        }
                    } else {
                        only_win = false;
                    }
                    let id = b.state(state.name);
                    let ex = b.expr(expr, &mut slot);
                    CEffect::Update { side: state.side, state: id, op: *op, expr: ex }
                }
                Effect::Enable { on, side, cmd, span } => {
                    only_win = false;
                    has_enable = true;
                    facts.cmd_mention.push((cmd.name, cmd.span.clone()));
                    if *on {
                        facts.cmd_enable.entry(cmd.name).or_insert(span.clone());
                    }
                    CEffect::Enable { opp: *side == CmdSide::Opp, cmd: b.cmd(cmd.name), on: *on }
                }
            });
        }
        let has_cmd_atoms = n_own + n_opp > 0;
        let has_rand = slot > 0;
        rules.push(CRule {
            period: rule.period.as_ref().map_or(1, |p| p.0),
            periodic: rule.period.is_some(),
            conds: (c0, conds.len() as u32),
            effects: (e0, effects.len() as u32),
            iff: rule.iff,
            has_cmd_atoms,
            victory: !has_cmd_atoms && only_win,
            has_enable,
            has_rand,
        });
        meta.push(RuleMeta {
            origin: origin.clone(),
        });
    }

    anyone_wins
}

/// Phase 4: the advantage lines (`%{}`).
fn lower_adv(b: &mut Builder, x: &Expanded, facts: &mut Facts, t: &mut Tables) {
    for a in &x.adv {
        let mut slot = 0u16;
        let c0 = t.conds.len() as u32;
        compile_conds(b, &a.line.conds, &mut t.conds, facts, &mut slot);
        a.line
            .value
            .for_each_state(&mut |r| facts.state_read.push((r.name, r.span.clone())));
        let v = b.expr(&a.line.value, &mut slot);
        t.adv.push(CAdv {
            weight: a.weight,
            conds: (c0, t.conds.len() as u32),
            value: v,
        });
        t.adv_meta.push(RuleMeta {
            origin: a.origin.clone(),
        });
    }
}

/// Phase 5: the settings (`~`); a setting given twice warns (W015) and the later one counts.
fn lower_settings(x: &Expanded, diags: &mut Vec<Diagnostic>) -> Settings {
    let mut settings = Settings::default();
    let mut seen_setting: HashMap<std::mem::Discriminant<Setting>, Span> = HashMap::default();
    for (s, span) in &x.settings {
        if let Some(first) = seen_setting.insert(std::mem::discriminant(s), span.clone()) {
            diags.push(
                Diagnostic::warning(
                    DiagCode::W015,
                    span.clone(),
                    "this setting is given twice; the later one is used",
                )
                .with_label(first, "first given here"),
            );
        }
        settings.apply(s);
    }

    settings
}

/// The program from the phases' results.
fn assemble(
    b: Builder,
    init: Init,
    keys: Vec<KeyBinding>,
    settings: Settings,
    t: Tables,
    x: &Expanded,
    names: &Names,
) -> RuleProgram {
    let mut init_values = [vec![0; b.states.len()], vec![0; b.states.len()]];
    for (s, id, v) in init.vals {
        init_values[s][id as usize] = v;
    }
    let mut init_enabled = [vec![false; b.commands.len()], vec![false; b.commands.len()]];
    for (s, id, on) in init.flags {
        init_enabled[s][id as usize] = on;
    }
    let constants = x
        .constants
        .iter()
        .map(|(n, v)| (names.get(*n).to_string(), *v))
        .collect();
    let Tables {
        rules,
        conds,
        effects,
        meta,
        max_seq,
        adv,
        adv_meta,
    } = t;
    RuleProgram {
        states: b.states,
        commands: b.commands,
        init_values,
        init_enabled,
        keys,
        settings,
        rules,
        conds,
        effects,
        code: b.code,
        adv,
        meta,
        adv_meta,
        max_seq,
        constants,
        macros: x
            .macros
            .iter()
            .map(|(m, alts)| {
                let alts = alts.iter().map(|a| names.get(*a).to_string()).collect();
                (names.get(*m).to_string(), alts)
            })
            .collect(),
    }
}

/// The rules and advantage lines of one piece of a file (a chunk of the incremental checker,
/// see `incremental::Checker`) lowered on their own: states and commands numbered in the
/// piece's own order of first appearance, spans relative to the piece's text. [`link`] numbers
/// them for the whole file and moves them to where the piece stands.
pub(crate) struct Fragment {
    states: Vec<NameId>,
    commands: Vec<NameId>,
    t: Tables,
    code: Vec<Op>,
    /// Where the advantage lines' conditions and code begin in `t.conds` and `code`.
    adv_at: (usize, usize),
    rule_facts: Facts,
    adv_facts: Facts,
    anyone_wins: bool,
    /// Errors found while lowering (E030), spans relative to the piece.
    pub(crate) diags: Vec<Diagnostic>,
}

impl Fragment {
    /// Rules and advantage lines in the fragment.
    pub(crate) fn len(&self) -> usize {
        self.t.rules.len() + self.t.adv.len()
    }
}

/// Lowers the rules and advantage lines of `x` (a piece's expansion) to a [`Fragment`].
pub(crate) fn lower_fragment(x: &Expanded, names: &Names) -> Fragment {
    let mut b = Builder::new(names);
    let mut rule_facts = Facts::default();
    let mut adv_facts = Facts::default();
    let mut t = Tables::default();
    let mut diags = Vec::new();
    let anyone_wins = lower_rules(&mut b, x, &mut rule_facts, &mut t, &mut diags);
    let adv_at = (t.conds.len(), b.code.len());
    lower_adv(&mut b, x, &mut adv_facts, &mut t);
    Fragment {
        states: b.state_names,
        commands: b.cmd_names,
        t,
        code: b.code,
        adv_at,
        rule_facts,
        adv_facts,
        anyone_wins,
        diags,
    }
}

/// A fragment and where its piece's text stands in the file: byte offset and 0-based line.
pub(crate) struct Placed<'a> {
    pub(crate) frag: &'a Fragment,
    pub(crate) at: usize,
    pub(crate) line: usize,
}

/// The program of a whole file from its pieces' fragments (in file order) and `x`, which holds
/// the file's initial items, keys, settings, constants and macros (its rules and advantage
/// lines are in the fragments): what [`lower`] gives for the file's whole expansion, with the
/// same diagnostics (`first_rule`: the span of the file's first expanded rule).
pub(crate) fn link(
    x: &Expanded,
    first_rule: Option<Span>,
    pieces: &[Placed],
    names: &Names,
    diags: &mut Vec<Diagnostic>,
) -> RuleProgram {
    let mut linked = start(x, names, diags);
    let Start { b, facts, t, .. } = &mut linked;
    let size = |f: fn(&Fragment) -> usize| pieces.iter().map(|p| f(p.frag)).sum::<usize>();
    t.rules.reserve(size(|f| f.t.rules.len()));
    t.meta.reserve(size(|f| f.t.rules.len()));
    t.conds.reserve(size(|f| f.t.conds.len()));
    t.effects.reserve(size(|f| f.t.effects.len()));
    b.code.reserve(size(|f| f.code.len()));
    facts
        .state_read
        .reserve(size(|f| f.rule_facts.state_read.len()));
    facts
        .state_effect
        .reserve(size(|f| f.rule_facts.state_effect.len()));
    facts
        .state_set
        .reserve(size(|f| f.rule_facts.state_set.len()));
    let mut anyone_wins = false;
    let (mut smap, mut cmap) = (Vec::new(), Vec::new());
    // Phase 3 (rules) of every piece, then phase 4 (advantage lines), as `lower` runs them.
    for adv in [false, true] {
        for p in pieces {
            let f = p.frag;
            if if adv {
                f.t.adv.is_empty()
            } else {
                f.t.rules.is_empty()
            } {
                continue;
            }
            smap.clear();
            smap.extend(f.states.iter().map(|&n| b.state(n)));
            cmap.clear();
            cmap.extend(f.commands.iter().map(|&n| b.cmd(n)));
            let (conds, code) = if adv {
                (f.adv_at.0..f.t.conds.len(), f.adv_at.1..f.code.len())
            } else {
                (0..f.adv_at.0, 0..f.adv_at.1)
            };
            // Index moves: old index + d (wrapping: the old ranges start at `conds.start`).
            let dc = (t.conds.len() as u32).wrapping_sub(conds.start as u32);
            let dk = (b.code.len() as u32).wrapping_sub(code.start as u32);
            let de = t.effects.len() as u32;
            let mv = |r: (u32, u32), d: u32| (r.0.wrapping_add(d), r.1.wrapping_add(d));
            b.code.extend(f.code[code].iter().map(|op| match *op {
                Op::Load(side, s) => Op::Load(side, smap[s as usize]),
                op => op,
            }));
            t.conds.extend(f.t.conds[conds].iter().map(|c| match *c {
                CCond::Cmp { op, lhs, rhs } => CCond::Cmp {
                    op,
                    lhs: mv(lhs, dk),
                    rhs: mv(rhs, dk),
                },
                CCond::Truth { neg, side, state } => CCond::Truth {
                    neg,
                    side,
                    state: smap[state as usize],
                },
                CCond::Cmd {
                    neg,
                    opp,
                    back,
                    cmd,
                } => CCond::Cmd {
                    neg,
                    opp,
                    back,
                    cmd: cmap[cmd as usize],
                },
            }));
            let moved = |m: &RuleMeta| {
                let mut o = m.origin.clone();
                o.line += p.line;
                o.span = o.span.start + p.at..o.span.end + p.at;
                RuleMeta { origin: o }
            };
            if adv {
                t.adv.extend(f.t.adv.iter().map(|a| CAdv {
                    weight: a.weight,
                    conds: mv(a.conds, dc),
                    value: mv(a.value, dk),
                }));
                t.adv_meta.extend(f.t.adv_meta.iter().map(moved));
                facts.merge(&f.adv_facts, p.at);
                continue;
            }
            t.effects.extend(f.t.effects.iter().map(|e| match *e {
                CEffect::Bool { side, state, value } => CEffect::Bool {
                    side,
                    state: smap[state as usize],
                    value,
                },
                CEffect::Update {
                    side,
                    state,
                    op,
                    expr,
                } => CEffect::Update {
                    side,
                    state: smap[state as usize],
                    op,
                    expr: mv(expr, dk),
                },
                CEffect::Enable { opp, cmd, on } => CEffect::Enable {
                    opp,
                    cmd: cmap[cmd as usize],
                    on,
                },
            }));
            t.rules.extend(f.t.rules.iter().map(|r| CRule {
                conds: mv(r.conds, dc),
                effects: mv(r.effects, de),
                ..r.clone()
            }));
            t.meta.extend(f.t.meta.iter().map(moved));
            for s in 0..2 {
                t.max_seq[s] = t.max_seq[s].max(f.t.max_seq[s]);
            }
            anyone_wins |= f.anyone_wins;
            facts.merge(&f.rule_facts, p.at);
        }
    }
    finish(linked, x, first_rule, names, anyone_wins, diags)
}
