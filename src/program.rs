//! The compiled rule program: states and commands interned to small ids, rules as flat tables
//! (conditions, effects and expression bytecode in shared vectors, addressed by ranges), plus
//! the names, spans and source text needed for display. Also the semantic checks, and printing
//! the expanded program back as a `.kmt` file.

use crate::diag::{DiagCode, Diagnostic, FixHint, LineIndex, did_you_mean};
use crate::expand::{self, ExpRule, Expanded, Origin};
use crate::syntax::ast::*;
use crate::syntax::names::{NameId, Names};
use crate::syntax::parser::{self, LOSE, WIN};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Index of a state (shared by both sides).
pub type StateId = u32;
/// Index of a command.
pub type CmdId = u32;

/// State id of `勝利` (always 0).
pub const WIN_STATE: StateId = 0;
/// State id of `敗北` (always 1).
pub const LOSE_STATE: StateId = 1;

/// Match settings from the `~` lines, with defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// `P`: turn period in ms (real time) / CPU thinking budget per move.
    pub period_ms: u32,
    /// `S`: search depth in plies.
    pub depth: u32,
    /// `D`: thinning (below the root, each move examined with probability 1/D).
    pub thin: f64,
    /// `E`: mistakes per 10 moves.
    pub mistakes: u32,
    /// `同時`: simultaneous mode.
    pub simultaneous: bool,
    /// `先手c`: the CPU moves first.
    pub cpu_first: bool,
    /// `T`: turn limit.
    pub turn_limit: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            period_ms: 500,
            depth: 3,
            thin: 1.0,
            mistakes: 0,
            simultaneous: false,
            cpu_first: false,
            turn_limit: 1000,
        }
    }
}

/// Expression bytecode (a stack machine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Push a constant.
    Push(i64),
    /// Push a state of a side (relative or absolute).
    Load(SideRef, StateId),
    /// Negate the top.
    Neg,
    /// Pop b, pop a, push a op b.
    Bin(BinOp),
    /// Pop two, push the smaller.
    Min,
    /// Pop two, push the larger.
    Max,
    /// Absolute value of the top.
    Abs,
    /// Pop b, pop a, push a uniform integer in [a, b]; the slot is the draw's position in its rule.
    Rand(u16),
}

/// A compiled condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CCond {
    /// Compare two expressions (code ranges).
    Cmp {
        /// Operator.
        op: CmpOp,
        /// Left operand code.
        lhs: (u32, u32),
        /// Right operand code.
        rhs: (u32, u32),
    },
    /// A state is non-zero (or zero, if `neg`).
    Truth {
        /// Negated.
        neg: bool,
        /// Whose.
        side: SideRef,
        /// Which.
        state: StateId,
    },
    /// A command of the acting side (or its opponent), `back` turns ago (0 = this turn).
    Cmd {
        /// Negated.
        neg: bool,
        /// The opponent's command rather than the acting side's.
        opp: bool,
        /// Position in the sequence: 0 = the latest.
        back: u8,
        /// Which command.
        cmd: CmdId,
    },
}

/// A compiled effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CEffect {
    /// Set a boolean state to 1 or 0.
    Bool {
        /// Whose.
        side: SideRef,
        /// Which.
        state: StateId,
        /// The value.
        value: bool,
    },
    /// Update a state by an expression.
    Update {
        /// Whose.
        side: SideRef,
        /// Which.
        state: StateId,
        /// How.
        op: UpdOp,
        /// Operand code range.
        expr: (u32, u32),
    },
    /// Enable or disable a command.
    Enable {
        /// The opponent's command rather than the acting side's.
        opp: bool,
        /// Which.
        cmd: CmdId,
        /// Enable (true) or disable.
        on: bool,
    },
}

/// A compiled rule: ranges into the program's condition and effect tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CRule {
    /// Runs on the acting side's turns n with n % period == 0.
    pub period: u32,
    /// Conditions.
    pub conds: (u32, u32),
    /// Effects.
    pub effects: (u32, u32),
    /// `::` — apply the inverse when the conditions fail.
    pub iff: bool,
    /// Has command atoms (`[X]`, `O.[X]`) among its conditions.
    pub has_cmd_atoms: bool,
    /// A victory rule (§8 step 4): no command atoms, only 勝利/敗北 effects.
    pub victory: bool,
    /// Has at least one enable/disable effect.
    pub has_enable: bool,
    /// Uses `rand`.
    pub has_rand: bool,
}

/// A compiled advantage line.
#[derive(Clone, Debug, PartialEq)]
pub struct CAdv {
    /// The block's weight.
    pub weight: f64,
    /// Conditions.
    pub conds: (u32, u32),
    /// Value code.
    pub value: (u32, u32),
}

/// Display data of one compiled rule (its text is rebuilt on demand from the tables, see
/// [`RuleProgram::rule_text`], so compiling stays cheap on every keystroke).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleMeta {
    /// Where it came from.
    pub origin: Origin,
}

/// A key binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyBinding {
    /// The key (`L`, `c`, `Space` …).
    pub key: String,
    /// The command.
    pub cmd: CmdId,
}

/// The compiled program, ready for the engine.
#[derive(Clone, Debug)]
pub struct RuleProgram {
    /// State names by id (0 = 勝利, 1 = 敗北).
    pub states: Vec<String>,
    /// Command names by id.
    pub commands: Vec<String>,
    /// Initial state values per side (0 = h, 1 = c).
    pub init_values: [Vec<i64>; 2],
    /// Initial enabled flags per side.
    pub init_enabled: [Vec<bool>; 2],
    /// Key bindings in file order.
    pub keys: Vec<KeyBinding>,
    /// Settings.
    pub settings: Settings,
    /// Rules in expanded file order.
    pub rules: Vec<CRule>,
    /// Condition table.
    pub conds: Vec<CCond>,
    /// Effect table.
    pub effects: Vec<CEffect>,
    /// Expression bytecode.
    pub code: Vec<Op>,
    /// Advantage lines.
    pub adv: Vec<CAdv>,
    /// Display data per rule.
    pub meta: Vec<RuleMeta>,
    /// Display text per advantage line.
    pub adv_meta: Vec<RuleMeta>,
    /// Longest command sequence any rule reads, per (own, opponent).
    pub max_seq: [u8; 2],
    /// Constants from macro blocks (for display).
    pub constants: Vec<(String, i64)>,
    /// Command macros and their alternatives (for display).
    pub macros: Vec<(String, Vec<String>)>,
    /// Commands a side may never use, as flag indices `side * commands + command`: kept off
    /// after every availability run (restricted play in `kumite report`; empty otherwise).
    pub banned: Vec<u32>,
}

impl RuleProgram {
    /// Id of a state by name.
    pub fn state_id(&self, name: &str) -> Option<StateId> {
        let name = match name {
            "win" => "勝利",
            "lose" => "敗北",
            n => n,
        };
        self.states
            .iter()
            .position(|s| s == name)
            .map(|i| i as StateId)
    }
    /// Id of a command by name (with or without brackets).
    pub fn command_id(&self, name: &str) -> Option<CmdId> {
        let name = name.trim().trim_start_matches('[').trim_end_matches(']');
        self.commands
            .iter()
            .position(|s| s == name)
            .map(|i| i as CmdId)
    }
    /// Command bound to a key.
    pub fn command_for_key(&self, key: &str) -> Option<CmdId> {
        self.keys.iter().find(|k| k.key == key).map(|k| k.cmd)
    }
    /// The command a player typed: a key (`Space` for a lone space) or a command name.
    pub fn command_from_input(&self, input: &str) -> Option<CmdId> {
        let t = input.trim_end_matches(['\n', '\r']);
        if t == " " {
            return self.command_for_key("Space");
        }
        let t = t.trim();
        self.command_for_key(t).or_else(|| self.command_id(t))
    }
    /// Key bound to a command.
    pub fn key_for(&self, cmd: CmdId) -> Option<&str> {
        self.keys
            .iter()
            .find(|k| k.cmd == cmd)
            .map(|k| k.key.as_str())
    }
    /// Conditions of rule `r`.
    pub fn rule_conds(&self, r: &CRule) -> &[CCond] {
        &self.conds[r.conds.0 as usize..r.conds.1 as usize]
    }
    /// Effects of rule `r`.
    pub fn rule_effects(&self, r: &CRule) -> &[CEffect] {
        &self.effects[r.effects.0 as usize..r.effects.1 as usize]
    }
    /// Code of a range.
    pub fn code_of(&self, r: (u32, u32)) -> &[Op] {
        &self.code[r.0 as usize..r.1 as usize]
    }
    /// Distinct periods in use (other than 1).
    pub fn periods(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .rules
            .iter()
            .map(|r| r.period)
            .filter(|p| *p > 1)
            .collect();
        v.sort();
        v.dedup();
        v
    }
    /// Conditions of rule `i` as text.
    pub fn cond_text(&self, i: usize) -> String {
        self.conds_text(self.rules[i].conds)
    }
    /// Effects of rule `i` as text.
    pub fn effect_text(&self, i: usize) -> String {
        let r = &self.rules[i];
        let parts: Vec<String> = self.effects[r.effects.0 as usize..r.effects.1 as usize]
            .iter()
            .map(|e| match *e {
                CEffect::Bool { side, state, value } => format!(
                    "{}{}.{}",
                    if value { "" } else { "!" },
                    side.prefix(),
                    self.states[state as usize]
                ),
                CEffect::Update {
                    side,
                    state,
                    op,
                    expr,
                } => {
                    format!(
                        "{}.{}{}{}",
                        side.prefix(),
                        self.states[state as usize],
                        op.assign_text(),
                        self.code_text(expr)
                    )
                }
                CEffect::Enable { opp, cmd, on } => format!(
                    "{}{}[{}]",
                    if on { "" } else { "!" },
                    if opp { "O." } else { "" },
                    self.commands[cmd as usize]
                ),
            })
            .collect();
        parts.join(",")
    }
    /// Rule `i` as rule text (rebuilt from the compiled tables; constants appear folded).
    pub fn rule_text(&self, i: usize) -> String {
        let r = &self.rules[i];
        let period = if r.period > 1 {
            format!("@{}/", r.period)
        } else {
            String::new()
        };
        format!(
            "{period}{}{}{}",
            self.cond_text(i),
            if r.iff { "::" } else { ":" },
            self.effect_text(i)
        )
    }
    /// Advantage line `i` as text.
    pub fn adv_text(&self, i: usize) -> String {
        let a = &self.adv[i];
        format!("{}:{}", self.conds_text(a.conds), self.code_text(a.value))
    }
    /// A condition range as text.
    pub fn conds_text(&self, range: (u32, u32)) -> String {
        let parts: Vec<String> = self.conds[range.0 as usize..range.1 as usize]
            .iter()
            .map(|c| match *c {
                CCond::Truth { neg, side, state } => format!(
                    "{}{}.{}",
                    if neg { "!" } else { "" },
                    side.prefix(),
                    self.states[state as usize]
                ),
                CCond::Cmp { op, lhs, rhs } => format!(
                    "{}{}{}",
                    self.code_text(lhs),
                    op.text(),
                    self.code_text(rhs)
                ),
                CCond::Cmd { neg, opp, cmd, .. } => format!(
                    "{}{}[{}]",
                    if neg { "!" } else { "" },
                    if opp { "O." } else { "" },
                    self.commands[cmd as usize]
                ),
            })
            .collect();
        parts.join(",")
    }
    /// Bytecode back to infix text.
    pub fn code_text(&self, range: (u32, u32)) -> String {
        let mut st: Vec<(String, u8)> = Vec::new();
        let wrap = |(s, p): (String, u8), min: u8| if p < min { format!("({s})") } else { s };
        for op in self.code_of(range) {
            let item = match *op {
                Op::Push(v) => (v.to_string(), if v < 0 { 3 } else { 4 }),
                Op::Load(side, id) => {
                    (format!("{}.{}", side.prefix(), self.states[id as usize]), 4)
                }
                Op::Neg => {
                    let a = st.pop().unwrap_or_default();
                    (format!("-{}", wrap(a, 4)), 3)
                }
                Op::Bin(b) => {
                    let y = st.pop().unwrap_or_default();
                    let x = st.pop().unwrap_or_default();
                    let p = if matches!(b, BinOp::Add | BinOp::Sub) {
                        1
                    } else {
                        2
                    };
                    (format!("{}{}{}", wrap(x, p), b.text(), wrap(y, p + 1)), p)
                }
                Op::Abs => {
                    let a = st.pop().unwrap_or_default();
                    (format!("abs({})", a.0), 4)
                }
                Op::Min | Op::Max | Op::Rand(_) => {
                    let y = st.pop().unwrap_or_default();
                    let x = st.pop().unwrap_or_default();
                    let f = match op {
                        Op::Min => "min",
                        Op::Max => "max",
                        _ => "rand",
                    };
                    (format!("{f}({},{})", x.0, y.0), 4)
                }
            };
            st.push(item);
        }
        st.pop().map(|x| x.0).unwrap_or_default()
    }
    /// True if two programs behave the same (everything but display data).
    pub fn same_behaviour(&self, o: &RuleProgram) -> bool {
        self.states == o.states
            && self.commands == o.commands
            && self.init_values == o.init_values
            && self.init_enabled == o.init_enabled
            && self.keys == o.keys
            && self.settings == o.settings
            && self.rules == o.rules
            && self.conds == o.conds
            && self.effects == o.effects
            && self.code == o.code
            && self.adv == o.adv
    }
}

/// Applies a binary operator with checked 64-bit arithmetic (`/` and `%` truncate toward zero).
pub fn apply_bin(op: BinOp, a: i64, b: i64) -> Option<i64> {
    match op {
        BinOp::Add => a.checked_add(b),
        BinOp::Sub => a.checked_sub(b),
        BinOp::Mul => a.checked_mul(b),
        BinOp::Div => a.checked_div(b),
        BinOp::Mod => a.checked_rem(b),
    }
}

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
    pub symbols: std::sync::Arc<crate::authoring::symbols::SymbolIndex>,
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
    let symbols = std::sync::Arc::new(crate::authoring::symbols::SymbolIndex::build(
        text,
        &parsed.stmts,
        &parsed.names,
        &index,
    ));
    let expanded = expand::expand(&mut parsed, &index, &mut diags);
    let names = parsed.names;
    let program = build(&expanded, &names, &mut diags);
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

struct Builder<'a> {
    names: &'a Names,
    states: Vec<String>,
    state_ix: HashMap<NameId, StateId>,
    commands: Vec<String>,
    cmd_ix: HashMap<NameId, CmdId>,
    code: Vec<Op>,
}

impl Builder<'_> {
    fn state(&mut self, n: NameId) -> StateId {
        if let Some(i) = self.state_ix.get(&n) {
            return *i;
        }
        let i = self.states.len() as StateId;
        self.states.push(self.names.get(n).to_string());
        self.state_ix.insert(n, i);
        i
    }
    fn cmd(&mut self, n: NameId) -> CmdId {
        if let Some(i) = self.cmd_ix.get(&n) {
            return *i;
        }
        let i = self.commands.len() as CmdId;
        self.commands.push(self.names.get(n).to_string());
        self.cmd_ix.insert(n, i);
        i
    }
    fn expr(&mut self, e: &Expr, rand_slot: &mut u16) -> (u32, u32) {
        let s = self.code.len() as u32;
        self.emit(e, rand_slot);
        (s, self.code.len() as u32)
    }
    fn emit(&mut self, e: &Expr, rand_slot: &mut u16) {
        if let Some(v) = fold_const(e) {
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

/// The value of an expression that reads no state and draws nothing, if it computes.
fn fold_const(e: &Expr) -> Option<i64> {
    match e {
        Expr::Int(v, _) => Some(*v),
        Expr::State(_) | Expr::Const(..) => None,
        Expr::Neg(a, _) => fold_const(a)?.checked_neg(),
        Expr::Bin(op, a, b, _) => apply_bin(*op, fold_const(a)?, fold_const(b)?),
        Expr::Call(Func::Rand, _, _) => None,
        Expr::Call(f, args, _) => {
            let v: Option<Vec<i64>> = args.iter().map(fold_const).collect();
            // A call with the wrong number of arguments has its own error (E001); it folds
            // to nothing rather than indexing past its arguments.
            match (f, v?.as_slice()) {
                (Func::Min, &[a, b]) => Some(a.min(b)),
                (Func::Max, &[a, b]) => Some(a.max(b)),
                (Func::Abs, &[a]) => a.checked_abs(),
                _ => None,
            }
        }
    }
}

/// What the checks need to know about names, gathered while compiling.
#[derive(Default)]
struct Facts {
    state_set: HashMap<NameId, Span>,
    state_read: Vec<(NameId, Span)>,
    /// States written by rule effects (first place each).
    state_effect: Vec<(NameId, Span)>,
    cmd_enable: HashMap<NameId, Span>,
    cmd_mention: Vec<(NameId, Span)>,
    cmd_used: HashMap<NameId, Span>,
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

fn build(x: &Expanded, names: &Names, diags: &mut Vec<Diagnostic>) -> RuleProgram {
    let mut b = Builder {
        names,
        states: vec![],
        state_ix: HashMap::new(),
        commands: vec![],
        cmd_ix: HashMap::new(),
        code: vec![],
    };
    b.state(parser::WIN);
    b.state(parser::LOSE);

    // Facts for the checks, keyed by name.
    let mut facts = Facts::default();

    // 1. Initial items (interning order: initial line, keys, rules, advantage).
    let mut init_vals: Vec<(usize, StateId, i64)> = vec![];
    let mut init_flags: Vec<(usize, CmdId, bool)> = vec![];
    let mut seen_val: HashMap<(usize, StateId), Span> = HashMap::new();
    let mut seen_flag: HashMap<(usize, CmdId), Span> = HashMap::new();
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
                let v = fold_const(value).unwrap_or(0);
                for s in side_index(*side) {
                    if let Some(first) = seen_val.get(&(s, id)) {
                        diags.push(
                            Diagnostic::error(
                                DiagCode::E050,
                                span.clone(),
                                format!(
                                    "the initial value of {}.{} is set twice",
                                    ["h", "c"][s],
                                    names.get(*name)
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
                                    ["h", "c"][s],
                                    names.get(cmd.name)
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

    // 2. Keys.
    let mut keys = Vec::new();
    let mut seen_key: HashMap<&str, Span> = HashMap::new();
    let key_cmds: Vec<&KeyBind> = x.keys.iter().collect();
    for k in &key_cmds {
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
                        names.get(k.cmd.name)
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

    // 3. Rules.
    let mut rules = Vec::new();
    let mut conds = Vec::new();
    let mut effects = Vec::new();
    let mut meta = Vec::new();
    let mut max_seq = [0u8; 2];
    let mut anyone_wins = false;
    for ExpRule { rule, origin } in &x.rules {
        let mut slot = 0u16;
        let c0 = conds.len() as u32;
        let (n_own, n_opp) = compile_conds(&mut b, &rule.conds, &mut conds, &mut facts, &mut slot);
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
                        if !(matches!(op, UpdOp::Set | UpdOp::Mul) && fold_const(expr) == Some(0)) {
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

    // 4. Advantage lines.
    let mut adv = Vec::new();
    let mut adv_meta = Vec::new();
    for a in &x.adv {
        let mut slot = 0u16;
        let c0 = conds.len() as u32;
        compile_conds(&mut b, &a.line.conds, &mut conds, &mut facts, &mut slot);
        a.line
            .value
            .for_each_state(&mut |r| facts.state_read.push((r.name, r.span.clone())));
        let v = b.expr(&a.line.value, &mut slot);
        adv.push(CAdv {
            weight: a.weight,
            conds: (c0, conds.len() as u32),
            value: v,
        });
        adv_meta.push(RuleMeta {
            origin: a.origin.clone(),
        });
    }

    // 5. Settings.
    let mut settings = Settings::default();
    let mut seen_setting: HashMap<std::mem::Discriminant<Setting>, Span> = HashMap::new();
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
        match s {
            Setting::Period(v) => settings.period_ms = *v,
            Setting::Depth(v) => settings.depth = *v,
            Setting::Thin(v) => settings.thin = *v,
            Setting::Mistakes(v) => settings.mistakes = *v,
            Setting::Simultaneous => settings.simultaneous = true,
            Setting::CpuFirst(v) => settings.cpu_first = *v,
            Setting::TurnLimit(v) => settings.turn_limit = *v,
        }
    }

    // 6. Checks over the whole program.
    // Keys bound to commands nothing else mentions.
    for k in &key_cmds {
        if x.macro_names.contains(&k.cmd.name) {
            continue;
        }
        if !facts.cmd_mention.iter().any(|(n, _)| *n == k.cmd.name) {
            let name = names.get(k.cmd.name);
            let known: Vec<&str> = facts
                .cmd_mention
                .iter()
                .map(|(n, _)| names.get(*n))
                .collect();
            let near = did_you_mean(name, known.iter().copied());
            let help = near.map(|s| format!("did you mean [{s}]?"));
            let fix = near.map(|s| FixHint::Replace {
                from: name.to_string(),
                to: s.to_string(),
            });
            diags.push(
                Diagnostic::error(
                    DiagCode::E042,
                    k.cmd.span.clone(),
                    format!(
                        "key '{}' is bound to [{name}], which no rule or initial line mentions",
                        k.key.0
                    ),
                )
                .with_help(help.unwrap_or_else(|| {
                    "a bound command must appear in a rule or in the initial line".into()
                }))
                .with_fixes(fix),
            );
        }
    }
    // The whole-program warnings below would only echo an error elsewhere (a broken line that
    // would have enabled a command or set a state): they wait until the errors are fixed.
    let has_errors = diags.iter().any(|d| d.is_error());
    // States set by rules but never read: a misspelt name in an effect (体カ for 体力) makes a
    // new state that nothing looks at.
    let read: std::collections::HashSet<NameId> =
        facts.state_read.iter().map(|(n, _)| *n).collect();
    let read_names: Vec<&str> = read.iter().map(|n| names.get(*n)).collect();
    let mut warned = std::collections::HashSet::new();
    for (n, span) in facts.state_effect.iter().filter(|_| !has_errors) {
        if read.contains(n) || *n == WIN || *n == LOSE || !warned.insert(*n) {
            continue;
        }
        let name = names.get(*n);
        let near = did_you_mean(name, read_names.iter().copied().filter(|r| *r != name));
        let fix = near.map(|s| FixHint::Replace {
            from: name.to_string(),
            to: s.to_string(),
        });
        let help = near
            .map(|s| format!("did you mean {s}?"))
            .unwrap_or_else(|| {
                format!("no condition or expression reads {name}: fine if it is only there to be shown in the match panel; otherwise use it in a condition")
            });
        diags.push(
            Diagnostic::warning(
                DiagCode::W016,
                span.clone(),
                format!("state {name} is set but never read, so setting it changes nothing"),
            )
            .with_help(help)
            .with_fixes(fix),
        );
    }
    // States read but never set or initialised.
    let mut warned = std::collections::HashSet::new();
    let set_names: Vec<&str> = facts.state_set.keys().map(|n| names.get(*n)).collect();
    for (n, span) in facts.state_read.iter().filter(|_| !has_errors) {
        if facts.state_set.contains_key(n) || !warned.insert(*n) {
            continue;
        }
        let name = names.get(*n);
        let near = did_you_mean(name, set_names.iter().copied());
        let fix = near.map(|s| FixHint::Replace {
            from: name.to_string(),
            to: s.to_string(),
        });
        let help = near
            .map(|s| format!("did you mean {s}?"))
            .unwrap_or_else(|| format!("it is always 0; give it a value in the initial line (!:{name}=N) or set it in a rule"));
        diags.push(
            Diagnostic::warning(
                DiagCode::W010,
                span.clone(),
                format!("state {name} is read but never set or initialised"),
            )
            .with_help(help)
            .with_fixes(fix)
            .with_fix(FixHint::InitState(name.to_string())),
        );
    }
    // Commands that can never become enabled.
    let mut warned = std::collections::HashSet::new();
    let enable_names: Vec<&str> = facts.cmd_enable.keys().map(|n| names.get(*n)).collect();
    for (n, span) in facts.cmd_mention.iter().filter(|_| !has_errors) {
        if facts.cmd_enable.contains_key(n) || !warned.insert(*n) {
            continue;
        }
        let name = names.get(*n);
        let near = did_you_mean(name, enable_names.iter().copied());
        let fix = near.map(|s| FixHint::Replace {
            from: name.to_string(),
            to: s.to_string(),
        });
        let help = near
            .map(|s| format!("did you mean [{s}]?"))
            .unwrap_or_else(|| {
                format!("enable it in the initial line (!:[{name}]) or with a rule effect [{name}]")
            });
        diags.push(
            Diagnostic::warning(
                DiagCode::W011,
                span.clone(),
                format!("command [{name}] can never become enabled"),
            )
            .with_help(help)
            .with_fixes(fix)
            .with_fix(FixHint::EnableCommand(name.to_string())),
        );
    }
    // Commands enabled but used by no rule.
    let mut enabled: Vec<(&NameId, &Span)> = facts.cmd_enable.iter().collect();
    enabled.sort_by_key(|(_, s)| s.start);
    let used_names: Vec<&str> = facts.cmd_used.keys().map(|n| names.get(*n)).collect();
    for (n, span) in enabled.into_iter().filter(|_| !has_errors) {
        if facts.cmd_used.contains_key(n) {
            continue;
        }
        let name = names.get(*n);
        let near = did_you_mean(name, used_names.iter().copied());
        let fix = near.map(|s| FixHint::Replace {
            from: name.to_string(),
            to: s.to_string(),
        });
        let help = near
            .map(|s| format!("did you mean [{s}]?"))
            .unwrap_or_else(|| format!("choosing it changes nothing by itself (fine for a pass or a guard); otherwise add a rule with the condition [{name}]"));
        diags.push(
            Diagnostic::warning(
                DiagCode::W012,
                span.clone(),
                format!("command [{name}] can be enabled but no rule uses it"),
            )
            .with_help(help)
            .with_fixes(fix),
        );
    }
    if !anyone_wins && !has_errors {
        let span = x.rules.first().map_or(0..0, |r| r.origin.span.clone());
        diags.push(
            Diagnostic::warning(DiagCode::W013, span, "no rule lets anyone win")
                .with_help("add a rule with the effect S.勝利 (or O.敗北), e.g. O.体力<=0:S.勝利; without one every match ends at the turn limit"),
        );
    }

    let mut init_values = [vec![0; b.states.len()], vec![0; b.states.len()]];
    for (s, id, v) in init_vals {
        init_values[s][id as usize] = v;
    }
    let mut init_enabled = [vec![false; b.commands.len()], vec![false; b.commands.len()]];
    for (s, id, on) in init_flags {
        init_enabled[s][id as usize] = on;
    }
    let constants = x
        .constants
        .iter()
        .map(|(n, v)| (names.get(*n).to_string(), *v))
        .collect();
    let prog = RuleProgram {
        banned: Vec::new(),
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
    };
    if !has_errors {
        lint_rules(&prog, diags);
    }
    prog
}

/// Rule-level warnings on a program that compiled: chance in victory rules (W017) and
/// availability lines whose order decides (W018).
fn lint_rules(p: &RuleProgram, diags: &mut Vec<Diagnostic>) {
    // W017: a victory rule is checked at every end check; a draw in it is made again each
    // time, so "a 50% knockout" while the condition holds wins far more often than half.
    let mut seen = std::collections::HashSet::new();
    for (r, m) in p.rules.iter().zip(&p.meta) {
        if r.victory && r.has_rand && seen.insert(m.origin.line) {
            diags.push(
                Diagnostic::warning(
                    DiagCode::W017,
                    m.origin.span.clone(),
                    "this victory rule draws rand(…) again at every end check while its other conditions hold",
                )
                .with_help("a chance that should be taken once belongs to the move that causes it: roll it in a rule with the command (e.g. [投げる],rand(1,100)<=50:S.勝利), or record the roll in a state"),
            );
        }
    }
    // W018: two availability lines that switch one command opposite ways and can apply at
    // once: the one later in the file wins, so moving a line changes the game.
    struct Switch {
        rule: usize,
        opp: bool,
        cmd: CmdId,
        on: bool,
    }
    let mut switches: Vec<Switch> = Vec::new();
    for (i, r) in p.rules.iter().enumerate() {
        if r.has_cmd_atoms || !r.has_enable {
            continue;
        }
        for e in p.rule_effects(r) {
            if let CEffect::Enable { opp, cmd, on } = *e {
                switches.push(Switch {
                    rule: i,
                    opp,
                    cmd,
                    on,
                });
            }
        }
    }
    // Each line is compared with the nearest earlier lines that switch the same command, and
    // warned about once (naming the nearest one it clashes with): a file with thousands of
    // switches stays linear, and one conflict is not echoed for every pair.
    const NEAREST: usize = 32;
    let mut groups: HashMap<(bool, CmdId), Vec<usize>> = HashMap::default();
    for (k, sw) in switches.iter().enumerate() {
        groups.entry((sw.opp, sw.cmd)).or_default().push(k);
    }
    let mut warned = std::collections::HashSet::new();
    let mut keys: Vec<&(bool, CmdId)> = groups.keys().collect();
    keys.sort();
    for key in keys {
        let list = &groups[key];
        for (j, &kb) in list.iter().enumerate() {
            let b = &switches[kb];
            let rb = &p.rules[b.rule];
            let lb = p.meta[b.rule].origin.line;
            let mut checked = 0;
            for &ka in list[..j].iter().rev() {
                let a = &switches[ka];
                let ra = &p.rules[a.rule];
                let la = p.meta[a.rule].origin.line;
                if la == lb {
                    continue;
                }
                checked += 1;
                if checked > NEAREST {
                    break;
                }
                // They write different values when both hold (opposite switches), or when an
                // `::` line fails while the other holds (its inverse then disagrees).
                let clash = if a.on != b.on {
                    conds_compatible(p, ra, rb)
                } else {
                    (ra.iff && !p.rule_conds(ra).is_empty())
                        || (rb.iff && !p.rule_conds(rb).is_empty())
                };
                if !clash {
                    continue;
                }
                if !warned.insert((lb, a.cmd)) {
                    break;
                }
                let name = &p.commands[a.cmd as usize];
                diags.push(
                    Diagnostic::warning(
                        DiagCode::W018,
                        p.meta[b.rule].origin.span.clone(),
                        format!("this line and line {la} both switch [{name}] and can apply together: the later line wins, so their order decides"),
                    )
                    .with_label(p.meta[a.rule].origin.span.clone(), "also switches it")
                    .with_help(format!("merge them into one line whose conditions say exactly when [{name}] is enabled (e.g. S.体力>0,S.回数<3::[{name}])")),
                );
                break;
            }
        }
    }
}

/// False when the two rules' conditions provably cannot hold together: they need the same
/// state (for the same acting side) to be in disjoint ranges, or true and false at once.
fn conds_compatible(p: &RuleProgram, a: &CRule, b: &CRule) -> bool {
    // A handful of conditions: a short list beats a hash map.
    type Bounds = (i128, i128, bool);
    let mut ranges: Vec<((SideRef, StateId), Bounds)> = Vec::new();
    let mut narrow = |key: (SideRef, StateId), lo: i128, hi: i128, nonzero: bool| -> bool {
        let i = match ranges.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                ranges.push((key, (i128::MIN, i128::MAX, false)));
                ranges.len() - 1
            }
        };
        let e = &mut ranges[i].1;
        e.0 = e.0.max(lo);
        e.1 = e.1.min(hi);
        e.2 |= nonzero;
        e.0 <= e.1 && !(e.2 && e.0 == 0 && e.1 == 0)
    };
    let one = |code: &[Op]| match code {
        [Op::Load(side, st)] => Some(Err((*side, *st))),
        [Op::Push(k)] => Some(Ok(*k as i128)),
        _ => None,
    };
    for c in p.rule_conds(a).iter().chain(p.rule_conds(b)) {
        let ok = match *c {
            CCond::Truth {
                neg: true,
                side,
                state,
            } => narrow((side, state), 0, 0, false),
            CCond::Truth {
                neg: false,
                side,
                state,
            } => narrow((side, state), i128::MIN, i128::MAX, true),
            CCond::Cmp { op, lhs, rhs } => {
                match (one(p.code_of(lhs)), one(p.code_of(rhs))) {
                    (Some(Err(key)), Some(Ok(k))) | (Some(Ok(k)), Some(Err(key))) => {
                        // `k OP x` reads as `x OP' k`.
                        let op = if matches!(one(p.code_of(lhs)), Some(Ok(_))) {
                            op.mirrored()
                        } else {
                            op
                        };
                        match op {
                            CmpOp::Eq => narrow(key, k, k, false),
                            CmpOp::Lt => narrow(key, i128::MIN, k - 1, false),
                            CmpOp::Le => narrow(key, i128::MIN, k, false),
                            CmpOp::Gt => narrow(key, k + 1, i128::MAX, false),
                            CmpOp::Ge => narrow(key, k, i128::MAX, false),
                            CmpOp::Ne => true,
                        }
                    }
                    _ => true,
                }
            }
            CCond::Cmd { .. } => true,
        };
        if !ok {
            return false;
        }
    }
    true
}

// ---------------------------------------------------------------------------------------------
// Printing

fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Bin(BinOp::Add | BinOp::Sub, ..) => 1,
        Expr::Bin(..) => 2,
        Expr::Neg(..) => 3,
        _ => 4,
    }
}

/// An expression as rule text, with only the parentheses it needs.
pub fn expr_text(e: &Expr, names: &Names) -> String {
    let mut s = String::new();
    write_expr(&mut s, e, names);
    s
}

fn write_expr(s: &mut String, e: &Expr, names: &Names) {
    match e {
        // i64::MIN has no literal of its own: `9223372036854775808` does not fit.
        Expr::Int(i64::MIN, _) => s.push_str("(-9223372036854775807-1)"),
        Expr::Int(v, _) => {
            let _ = write!(s, "{v}");
        }
        Expr::State(r) => {
            let _ = write!(s, "{}.{}", r.side.prefix(), names.get(r.name));
        }
        Expr::Const(n, _) => s.push_str(names.get(*n)),
        Expr::Neg(a, _) => {
            s.push('-');
            if prec(a) < 3 || matches!(**a, Expr::Int(v, _) if v < 0) {
                s.push('(');
                write_expr(s, a, names);
                s.push(')');
            } else {
                write_expr(s, a, names);
            }
        }
        Expr::Bin(op, a, b, _) => {
            let p = prec(e);
            let wrap_l = prec(a) < p;
            let wrap_r = prec(b) <= p;
            wrap(s, a, names, wrap_l);
            s.push_str(op.text());
            wrap(s, b, names, wrap_r);
        }
        Expr::Call(f, args, _) => {
            s.push_str(f.name());
            s.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                write_expr(s, a, names);
            }
            s.push(')');
        }
    }
}

fn wrap(s: &mut String, e: &Expr, names: &Names, yes: bool) {
    // A negative literal (from a constant) needs parentheses after an operator.
    let yes = yes || matches!(e, Expr::Int(v, _) if *v < 0);
    if yes {
        s.push('(');
    }
    write_expr(s, e, names);
    if yes {
        s.push(')');
    }
}

fn cmd_text(neg: bool, side: CmdSide, cmd: &CmdRef, names: &Names) -> String {
    format!(
        "{}{}[{}]",
        if neg { "!" } else { "" },
        if side == CmdSide::Opp { "O." } else { "" },
        names.get(cmd.name)
    )
}

/// Conditions as rule text.
pub fn conds_text(conds: &[Cond], names: &Names) -> String {
    let parts: Vec<String> = conds
        .iter()
        .map(|c| match c {
            Cond::Truth { neg, state, .. } => format!(
                "{}{}.{}",
                if *neg { "!" } else { "" },
                state.side.prefix(),
                names.get(state.name)
            ),
            Cond::Cmp { op, lhs, rhs, .. } => {
                format!(
                    "{}{}{}",
                    expr_text(lhs, names),
                    op.text(),
                    expr_text(rhs, names)
                )
            }
            Cond::Cmd { neg, side, cmd, .. } => cmd_text(*neg, *side, cmd, names),
        })
        .collect();
    parts.join(",")
}

/// Effects as rule text.
pub fn effects_text(effects: &[Effect], names: &Names) -> String {
    let parts: Vec<String> = effects
        .iter()
        .map(|e| match e {
            Effect::Bool { value, state, .. } => format!(
                "{}{}.{}",
                if *value { "" } else { "!" },
                state.side.prefix(),
                names.get(state.name)
            ),
            Effect::Update {
                op,
                state,
                expr,
                short,
                ..
            } => {
                let target = format!("{}.{}", state.side.prefix(), names.get(state.name));
                match (short, op.short_text()) {
                    (true, Some(t)) => {
                        let mut x = String::new();
                        // A short-form term is a product; wrap anything looser.
                        wrap(&mut x, expr, names, prec(expr) < 2);
                        format!("{target}{t}{x}")
                    }
                    _ => format!("{target}{}{}", op.assign_text(), expr_text(expr, names)),
                }
            }
            Effect::Enable { on, side, cmd, .. } => cmd_text(!on, *side, cmd, names),
        })
        .collect();
    parts.join(",")
}

/// A whole rule as text.
pub fn rule_text(r: &Rule, names: &Names) -> String {
    let period = match &r.period {
        Some((1, _)) | None => String::new(),
        Some((p, _)) => format!("@{p}/"),
    };
    format!(
        "{period}{}{}{}",
        conds_text(&r.conds, names),
        if r.iff { "::" } else { ":" },
        effects_text(&r.effects, names)
    )
}

fn settings_text(s: &Settings) -> String {
    let mut v = vec![
        format!("P{}", s.period_ms),
        format!("S{}", s.depth),
        format!("D{}", s.thin),
        format!("E{}", s.mistakes),
        format!("T{}", s.turn_limit),
    ];
    if s.simultaneous {
        v.push("同時".into());
    }
    if s.cpu_first {
        v.push("先手c".into());
    }
    format!("~{}", v.join(","))
}

/// The expanded program as a `.kmt` file: one rule per line, each followed by a comment naming
/// its origin. Checking the output gives the same program as the original.
pub fn expanded_kmt(c: &Compiled, source_name: &str) -> String {
    let names = &c.names;
    let x = &c.expanded;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Expanded from {source_name} by kumite expand: macros, constants and symmetric blocks are written out."
    );
    if !x.init.is_empty() {
        let items: Vec<String> = x
            .init
            .iter()
            .map(|it| match it {
                InitItem::Value {
                    side, name, value, ..
                } => {
                    let p = side.map(|s| format!("{}.", s.prefix())).unwrap_or_default();
                    format!("{p}{}={}", names.get(*name), fold_const(value).unwrap_or(0))
                }
                InitItem::Enabled { side, on, cmd, .. } => {
                    let p = side.map(|s| format!("{}.", s.prefix())).unwrap_or_default();
                    format!("{}{p}[{}]", if *on { "" } else { "!" }, names.get(cmd.name))
                }
            })
            .collect();
        let _ = writeln!(out, "!:{}", items.join(","));
    }
    if !x.keys.is_empty() {
        let items: Vec<String> = x
            .keys
            .iter()
            .map(|k| format!("{}=[{}]", k.key.0, names.get(k.cmd.name)))
            .collect();
        let _ = writeln!(out, "':{}", items.join(","));
    }
    let settings = c
        .program
        .as_ref()
        .map(|p| p.settings.clone())
        .unwrap_or_else(|| {
            let mut s = Settings::default();
            for (st, _) in &x.settings {
                match st {
                    Setting::Period(v) => s.period_ms = *v,
                    Setting::Depth(v) => s.depth = *v,
                    Setting::Thin(v) => s.thin = *v,
                    Setting::Mistakes(v) => s.mistakes = *v,
                    Setting::Simultaneous => s.simultaneous = true,
                    Setting::CpuFirst(v) => s.cpu_first = *v,
                    Setting::TurnLimit(v) => s.turn_limit = *v,
                }
            }
            s
        });
    let _ = writeln!(out, "{}", settings_text(&settings));
    for r in &x.rules {
        let _ = writeln!(
            out,
            "{}  # {}",
            rule_text(&r.rule, names),
            r.origin.describe()
        );
    }
    let mut i = 0;
    while i < x.adv.len() {
        let w = x.adv[i].weight;
        let _ = writeln!(out, "%{w}{{");
        while i < x.adv.len() && x.adv[i].weight == w {
            let a = &x.adv[i];
            let _ = writeln!(
                out,
                "{}:{}  # {}",
                conds_text(&a.line.conds, names),
                expr_text(&a.line.value, names),
                a.origin.describe()
            );
            i += 1;
        }
        let _ = writeln!(out, "}}");
    }
    out
}
