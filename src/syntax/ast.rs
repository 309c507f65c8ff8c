//! The syntax tree of one rule file. Every node keeps its byte span in the original text.

use super::names::NameId;
use std::ops::Range;

/// Byte range in the original text.
pub type Span = Range<usize>;

/// A side as written: relative (`S.`, `O.`) or absolute (`h.`, `c.`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SideRef {
    /// `S.` — the acting side.
    S,
    /// `O.` — its opponent.
    O,
    /// `h.` — the human.
    H,
    /// `c.` — the CPU.
    C,
}

impl SideRef {
    /// The prefix as written canonically.
    pub fn prefix(self) -> &'static str {
        match self {
            SideRef::S => "S",
            SideRef::O => "O",
            SideRef::H => "h",
            SideRef::C => "c",
        }
    }
}

/// A state reference `S.名前`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateRef {
    /// Whose state.
    pub side: SideRef,
    /// The state's name (aliases `win`/`lose` already folded to `勝利`/`敗北`).
    pub name: NameId,
    /// Span of the whole reference.
    pub span: Span,
}

/// Binary arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl BinOp {
    /// How it is written.
    pub fn text(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
        }
    }
    /// The language's one arithmetic for `a op b`: checked 64-bit, `/` and `%` truncating
    /// toward zero; None on overflow or division by zero. Used by constant folding, expansion
    /// and the engine alike.
    #[inline]
    pub fn apply(self, a: i64, b: i64) -> Option<i64> {
        match self {
            BinOp::Add => a.checked_add(b),
            BinOp::Sub => a.checked_sub(b),
            BinOp::Mul => a.checked_mul(b),
            BinOp::Div => a.checked_div(b),
            BinOp::Mod => a.checked_rem(b),
        }
    }
}

/// Built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Func {
    Min,
    Max,
    Abs,
    Rand,
}

impl Func {
    /// How it is written.
    pub fn name(self) -> &'static str {
        match self {
            Func::Min => "min",
            Func::Max => "max",
            Func::Abs => "abs",
            Func::Rand => "rand",
        }
    }
    /// Number of arguments.
    pub fn arity(self) -> usize {
        if self == Func::Abs { 1 } else { 2 }
    }
    /// The value of `min`, `max` or `abs` on `args`; None for `rand` (not a function of its
    /// arguments), for the wrong number of arguments, and for `abs(i64::MIN)`.
    #[inline]
    pub fn apply(self, args: &[i64]) -> Option<i64> {
        match (self, args) {
            (Func::Min, &[a, b]) => Some(a.min(b)),
            (Func::Max, &[a, b]) => Some(a.max(b)),
            (Func::Abs, &[a]) => a.checked_abs(),
            _ => None,
        }
    }
}

/// Why an expression has no constant value (see [`Expr::const_eval`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstError {
    /// It reads a state (at this span).
    ReadsState(Span),
    /// It draws a random number (at this span).
    Random(Span),
    /// Overflow, or (for a binary operator) division by zero, at this span.
    Overflow {
        /// Where.
        span: Span,
        /// A binary operator (which can also divide by zero), not a negation or `abs`.
        binary: bool,
    },
    /// A constant has no value, or a call has the wrong number of arguments: already reported
    /// elsewhere, nothing more to say.
    Reported,
}

/// An integer expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A literal.
    Int(i64, Span),
    /// A state value.
    State(StateRef),
    /// A bare name: a constant from a macro block.
    Const(NameId, Span),
    /// Negation.
    Neg(Box<Expr>, Span),
    /// `a op b`.
    Bin(BinOp, Box<Expr>, Box<Expr>, Span),
    /// `min(a,b)`, `max(a,b)`, `abs(a)`, `rand(a,b)`.
    Call(Func, Vec<Expr>, Span),
}

impl Expr {
    /// The expression's span.
    pub fn span(&self) -> Span {
        match self {
            Expr::Int(_, s)
            | Expr::Const(_, s)
            | Expr::Neg(_, s)
            | Expr::Bin(_, _, _, s)
            | Expr::Call(_, _, s) => s.clone(),
            Expr::State(r) => r.span.clone(),
        }
    }
    /// Calls `f` on every state reference inside.
    pub fn for_each_state(&self, f: &mut impl FnMut(&StateRef)) {
        match self {
            Expr::State(r) => f(r),
            Expr::Int(..) | Expr::Const(..) => {}
            Expr::Neg(a, _) => a.for_each_state(f),
            Expr::Bin(_, a, b, _) => {
                a.for_each_state(f);
                b.for_each_state(f);
            }
            Expr::Call(_, args, _) => args.iter().for_each(|a| a.for_each_state(f)),
        }
    }
    /// The value of an expression that reads no state and draws nothing, with the language's
    /// arithmetic ([`BinOp::apply`], [`Func::apply`]); `constant` gives the value of a bare
    /// name. Expansion (macro-block constants), lowering (folding) and the printer use it.
    pub fn const_eval(
        &self,
        constant: &mut dyn FnMut(NameId, &Span) -> Result<i64, ConstError>,
    ) -> Result<i64, ConstError> {
        match self {
            Expr::Int(v, _) => Ok(*v),
            Expr::Const(n, s) => constant(*n, s),
            Expr::State(r) => Err(ConstError::ReadsState(r.span.clone())),
            Expr::Neg(a, s) => a
                .const_eval(constant)?
                .checked_neg()
                .ok_or(ConstError::Overflow {
                    span: s.clone(),
                    binary: false,
                }),
            Expr::Bin(op, a, b, s) => {
                let a = a.const_eval(constant)?;
                let b = b.const_eval(constant)?;
                op.apply(a, b).ok_or(ConstError::Overflow {
                    span: s.clone(),
                    binary: true,
                })
            }
            Expr::Call(Func::Rand, _, s) => Err(ConstError::Random(s.clone())),
            Expr::Call(f, args, s) => {
                let vals = args
                    .iter()
                    .map(|a| a.const_eval(constant))
                    .collect::<Result<Vec<i64>, _>>()?;
                if vals.len() != f.arity() {
                    // The wrong number of arguments has its own error (E001).
                    return Err(ConstError::Reported);
                }
                f.apply(&vals).ok_or(ConstError::Overflow {
                    span: s.clone(),
                    binary: false,
                })
            }
        }
    }
    /// The value of an expression made of literals only (constants resolved), if it computes.
    pub fn fold(&self) -> Option<i64> {
        self.const_eval(&mut |_, _| Err(ConstError::Reported)).ok()
    }
    /// True if the expression contains `rand`.
    pub fn has_rand(&self) -> bool {
        match self {
            Expr::Call(Func::Rand, _, _) => true,
            Expr::Int(..) | Expr::Const(..) | Expr::State(_) => false,
            Expr::Neg(a, _) => a.has_rand(),
            Expr::Bin(_, a, b, _) => a.has_rand() || b.has_rand(),
            Expr::Call(_, args, _) => args.iter().any(Expr::has_rand),
        }
    }
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The operator with its operands swapped: `k < x` is `x > k`.
    pub fn mirrored(self) -> Self {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            o => o,
        }
    }

    /// How it is written.
    pub fn text(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
    /// Applies the comparison.
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

/// A command reference `[X]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CmdRef {
    /// The command (or macro) name.
    pub name: NameId,
    /// Span of `[X]` including brackets.
    pub span: Span,
}

/// Whose command a command atom or enable effect names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CmdSide {
    /// The acting side (`[X]` or `S.[X]`).
    Own,
    /// The opponent (`O.[X]`).
    Opp,
}

/// A condition of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `S.x` (non-zero) or `!S.x` (zero).
    Truth {
        /// True for `!S.x`.
        neg: bool,
        /// The state.
        state: StateRef,
        /// Whole condition.
        span: Span,
    },
    /// `a OP b`.
    Cmp {
        /// Operator.
        op: CmpOp,
        /// Left side.
        lhs: Expr,
        /// Right side.
        rhs: Expr,
        /// Whole condition.
        span: Span,
    },
    /// `[X]`, `![X]`, `O.[X]`, `!O.[X]`.
    Cmd {
        /// True for a negated atom.
        neg: bool,
        /// Whose command.
        side: CmdSide,
        /// Which command.
        cmd: CmdRef,
        /// Whole condition.
        span: Span,
    },
}

impl Cond {
    /// The condition's span.
    pub fn span(&self) -> Span {
        match self {
            Cond::Truth { span, .. } | Cond::Cmp { span, .. } | Cond::Cmd { span, .. } => {
                span.clone()
            }
        }
    }
}

/// Update operators of effects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum UpdOp {
    Set,
    Add,
    Sub,
    Mul,
    Div,
}

impl UpdOp {
    /// The assignment form (`=`, `+=` …).
    pub fn assign_text(self) -> &'static str {
        match self {
            UpdOp::Set => "=",
            UpdOp::Add => "+=",
            UpdOp::Sub => "-=",
            UpdOp::Mul => "*=",
            UpdOp::Div => "/=",
        }
    }
    /// The short form (`+`, `-` …); `None` for `=`.
    pub fn short_text(self) -> Option<&'static str> {
        match self {
            UpdOp::Set => None,
            UpdOp::Add => Some("+"),
            UpdOp::Sub => Some("-"),
            UpdOp::Mul => Some("*"),
            UpdOp::Div => Some("/"),
        }
    }
    /// The new value of a state at `cur` updated by `v` (`=` gives `v`), with the language's
    /// arithmetic; None on overflow or division by zero.
    #[inline]
    pub fn apply(self, cur: i64, v: i64) -> Option<i64> {
        match self {
            UpdOp::Set => Some(v),
            UpdOp::Add => cur.checked_add(v),
            UpdOp::Sub => cur.checked_sub(v),
            UpdOp::Mul => cur.checked_mul(v),
            UpdOp::Div => cur.checked_div(v),
        }
    }
}

/// An effect of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// `S.x` (set to 1) or `!S.x` (set to 0).
    Bool {
        /// The value set.
        value: bool,
        /// The state.
        state: StateRef,
        /// Whole effect.
        span: Span,
    },
    /// `S.x=e`, `S.x+=e`, `S.x+t` …
    Update {
        /// Operator.
        op: UpdOp,
        /// Target state.
        state: StateRef,
        /// Operand.
        expr: Expr,
        /// Written in the short form (`S.x+1`).
        short: bool,
        /// Whole effect.
        span: Span,
    },
    /// `[X]`, `![X]`, `O.[X]`, `!O.[X]`.
    Enable {
        /// True to enable.
        on: bool,
        /// Whose command.
        side: CmdSide,
        /// Which command.
        cmd: CmdRef,
        /// Whole effect.
        span: Span,
    },
}

impl Effect {
    /// The effect's span.
    pub fn span(&self) -> Span {
        match self {
            Effect::Bool { span, .. }
            | Effect::Update { span, .. }
            | Effect::Enable { span, .. } => span.clone(),
        }
    }
}

/// A rule: `@N/ conditions : effects`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// `@N/` period and its span (1 for a bare `@`).
    pub period: Option<(u32, Span)>,
    /// Conditions (all must hold).
    pub conds: Vec<Cond>,
    /// `::` (if and only if) rather than `:`.
    pub iff: bool,
    /// Span of `:` or `::`.
    pub op_span: Span,
    /// Effects in order.
    pub effects: Vec<Effect>,
    /// Span of the whole rule text.
    pub span: Span,
}

/// One item of an initial line `!:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InitItem {
    /// `h.x=N`, `c.x=N`, `x=N`.
    Value {
        /// `None` for both sides.
        side: Option<SideRef>,
        /// State name.
        name: NameId,
        /// Value (a literal, a negated literal or a constant).
        value: Expr,
        /// Span of the item.
        span: Span,
    },
    /// `h.[X]`, `!h.[X]`, `[X]`, `![X]`.
    Enabled {
        /// `None` for both sides.
        side: Option<SideRef>,
        /// Enabled or disabled.
        on: bool,
        /// The command.
        cmd: CmdRef,
        /// Span of the item.
        span: Span,
    },
}

/// A key as bound in `':`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(pub String);

/// `KEY=[X]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyBind {
    /// The key.
    pub key: Key,
    /// Span of the key.
    pub key_span: Span,
    /// The command.
    pub cmd: CmdRef,
}

/// One `~` setting.
#[derive(Clone, Debug, PartialEq)]
pub enum Setting {
    /// `P<ms>`.
    Period(u32),
    /// `S<n>`.
    Depth(u32),
    /// `D<x>`.
    Thin(f64),
    /// `E<n>`.
    Mistakes(u32),
    /// `同時` / `simultaneous`.
    Simultaneous,
    /// `先手c` / `first=c` (true) or `先手h` / `first=h` (false).
    CpuFirst(bool),
    /// `T<n>`.
    TurnLimit(u32),
}

/// A definition inside `${ }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MacroDef {
    /// `[攻撃]:[殴る];[蹴る]`.
    Commands {
        /// The macro.
        name: CmdRef,
        /// Its alternatives, in order.
        alts: Vec<CmdRef>,
        /// Whole line.
        span: Span,
    },
    /// `費用:5`.
    Const {
        /// The constant.
        name: NameId,
        /// Span of the name.
        name_span: Span,
        /// Its value.
        value: Expr,
        /// Whole line.
        span: Span,
    },
}

/// A line inside `%w{ }`: `conditions:value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdvLine {
    /// Conditions (S = the side being evaluated).
    pub conds: Vec<Cond>,
    /// Value added to that side's advantage.
    pub value: Expr,
    /// Whole line.
    pub span: Span,
}

/// A top-level statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `!:` line.
    Init(Vec<InitItem>),
    /// `':` line.
    Keys(Vec<KeyBind>),
    /// `~` line.
    Settings(Vec<(Setting, Span)>),
    /// A rule outside any block.
    Rule(Rule),
    /// `&{ }` (pairs `None` = the default 左/右, left/right).
    Symmetric {
        /// Explicit pairs, if written.
        pairs: Option<Vec<(String, String)>>,
        /// Span of the `{`.
        open: Span,
        /// Rules inside.
        rules: Vec<Rule>,
    },
    /// `${ }`.
    Macros {
        /// Span of the `{`.
        open: Span,
        /// Definitions.
        defs: Vec<MacroDef>,
    },
    /// `%w{ }`.
    Advantage {
        /// Weight (default 1).
        weight: f64,
        /// Span of the `{`.
        open: Span,
        /// Lines.
        lines: Vec<AdvLine>,
    },
}

/// Every span inside a node, for moving a node parsed on one line of a text to where that line
/// now stands (the incremental checker reuses a line's parse when only other lines changed).
pub trait Spans {
    /// Calls `f` on every span of the node.
    fn spans(&mut self, f: &mut dyn FnMut(&mut Span));
}

impl Spans for StateRef {
    fn spans(&mut self, f: &mut dyn FnMut(&mut Span)) {
        f(&mut self.span)
    }
}

impl Spans for CmdRef {
    fn spans(&mut self, f: &mut dyn FnMut(&mut Span)) {
        f(&mut self.span)
    }
}

impl Spans for Expr {
    fn spans(&mut self, f: &mut dyn FnMut(&mut Span)) {
        match self {
            Expr::Int(_, s) | Expr::Const(_, s) => f(s),
            Expr::State(r) => r.spans(f),
            Expr::Neg(a, s) => {
                a.spans(f);
                f(s)
            }
            Expr::Bin(_, a, b, s) => {
                a.spans(f);
                b.spans(f);
                f(s)
            }
            Expr::Call(_, args, s) => {
                args.iter_mut().for_each(|a| a.spans(f));
                f(s)
            }
        }
    }
}

impl Spans for Cond {
    fn spans(&mut self, f: &mut dyn FnMut(&mut Span)) {
        match self {
            Cond::Truth { state, span, .. } => {
                state.spans(f);
                f(span)
            }
            Cond::Cmp { lhs, rhs, span, .. } => {
                lhs.spans(f);
                rhs.spans(f);
                f(span)
            }
            Cond::Cmd { cmd, span, .. } => {
                cmd.spans(f);
                f(span)
            }
        }
    }
}

impl Spans for Effect {
    fn spans(&mut self, f: &mut dyn FnMut(&mut Span)) {
        match self {
            Effect::Bool { state, span, .. } => {
                state.spans(f);
                f(span)
            }
            Effect::Update {
                state, expr, span, ..
            } => {
                state.spans(f);
                expr.spans(f);
                f(span)
            }
            Effect::Enable { cmd, span, .. } => {
                cmd.spans(f);
                f(span)
            }
        }
    }
}

impl Spans for Rule {
    fn spans(&mut self, f: &mut dyn FnMut(&mut Span)) {
        if let Some((_, s)) = &mut self.period {
            f(s)
        }
        self.conds.iter_mut().for_each(|c| c.spans(f));
        f(&mut self.op_span);
        self.effects.iter_mut().for_each(|e| e.spans(f));
        f(&mut self.span)
    }
}

impl Spans for InitItem {
    fn spans(&mut self, f: &mut dyn FnMut(&mut Span)) {
        match self {
            InitItem::Value { value, span, .. } => {
                value.spans(f);
                f(span)
            }
            InitItem::Enabled { cmd, span, .. } => {
                cmd.spans(f);
                f(span)
            }
        }
    }
}

impl Spans for MacroDef {
    fn spans(&mut self, f: &mut dyn FnMut(&mut Span)) {
        match self {
            MacroDef::Commands { name, alts, span } => {
                name.spans(f);
                alts.iter_mut().for_each(|a| a.spans(f));
                f(span)
            }
            MacroDef::Const {
                name_span,
                value,
                span,
                ..
            } => {
                f(name_span);
                value.spans(f);
                f(span)
            }
        }
    }
}

impl Spans for AdvLine {
    fn spans(&mut self, f: &mut dyn FnMut(&mut Span)) {
        self.conds.iter_mut().for_each(|c| c.spans(f));
        self.value.spans(f);
        f(&mut self.span)
    }
}
