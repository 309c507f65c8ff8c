//! The grammar of one line: chumsky parsers for every statement kind, built from shared pieces
//! ([`atoms`]: names, sides, states, commands, expressions, conditions), the builtin names the
//! parser knows by id, and the conversion of chumsky's errors to diagnostics. The driver over
//! a whole file (line kinds, blocks, the parse cache) is [`super::parser`].

use super::ast::*;
use super::lexer::{Spanned, Sym, Tok, describe, is_name_char, norm};
use super::names::{NameId, Names};
use crate::diag::{DiagCode, DiagKind, Diagnostic};
use chumsky::input::MappedInput;
use chumsky::prelude::*;
use chumsky::span::SimpleSpan;

/// The names the parser recognises by id: interned first by [`new_names`], in this order, so a
/// name's id tells whether it is a side letter, a function or a reserved state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `S`, `s`: the acting side.
    S,
    /// Lower-case `s`.
    SLower,
    /// `O`: the opponent.
    O,
    /// Lower-case `o`.
    OLower,
    /// `H`: the human's side.
    HUpper,
    /// `h`.
    H,
    /// `C`: the CPU's side.
    CUpper,
    /// `c`.
    C,
    /// `min`.
    Min,
    /// `max`.
    Max,
    /// `abs`.
    Abs,
    /// `rand`.
    Rand,
    /// `勝利`, the reserved win state.
    Win,
    /// `敗北`, the reserved lose state.
    Lose,
    /// `win`, an alias of 勝利.
    WinAlias,
    /// `lose`, an alias of 敗北.
    LoseAlias,
}

impl Builtin {
    /// Every builtin, in id order.
    pub const ALL: [Builtin; 16] = [
        Builtin::S,
        Builtin::SLower,
        Builtin::O,
        Builtin::OLower,
        Builtin::HUpper,
        Builtin::H,
        Builtin::CUpper,
        Builtin::C,
        Builtin::Min,
        Builtin::Max,
        Builtin::Abs,
        Builtin::Rand,
        Builtin::Win,
        Builtin::Lose,
        Builtin::WinAlias,
        Builtin::LoseAlias,
    ];

    /// How it is written.
    pub fn text(self) -> &'static str {
        match self {
            Builtin::S => "S",
            Builtin::SLower => "s",
            Builtin::O => "O",
            Builtin::OLower => "o",
            Builtin::HUpper => "H",
            Builtin::H => "h",
            Builtin::CUpper => "C",
            Builtin::C => "c",
            Builtin::Min => "min",
            Builtin::Max => "max",
            Builtin::Abs => "abs",
            Builtin::Rand => "rand",
            Builtin::Win => "勝利",
            Builtin::Lose => "敗北",
            Builtin::WinAlias => "win",
            Builtin::LoseAlias => "lose",
        }
    }

    /// Its id in every interner made by [`new_names`].
    pub const fn id(self) -> NameId {
        NameId(self as u32)
    }

    /// The builtin a name id stands for, if any.
    pub fn of(n: NameId) -> Option<Builtin> {
        Self::ALL.get(n.0 as usize).copied()
    }

    /// The side a side letter names.
    pub fn side(self) -> Option<SideRef> {
        Some(match self {
            Builtin::S | Builtin::SLower => SideRef::S,
            Builtin::O | Builtin::OLower => SideRef::O,
            Builtin::HUpper | Builtin::H => SideRef::H,
            Builtin::CUpper | Builtin::C => SideRef::C,
            _ => return None,
        })
    }

    /// The function a function name names.
    pub fn func(self) -> Option<Func> {
        Some(match self {
            Builtin::Min => Func::Min,
            Builtin::Max => Func::Max,
            Builtin::Abs => Func::Abs,
            Builtin::Rand => Func::Rand,
            _ => return None,
        })
    }
}

/// Id of `勝利`.
pub const WIN: NameId = Builtin::Win.id();
/// Id of `敗北`.
pub const LOSE: NameId = Builtin::Lose.id();

/// A new interner holding the builtin names.
pub fn new_names() -> Names {
    let mut n = Names::default();
    for b in Builtin::ALL {
        n.intern(b.text());
    }
    n
}

/// The side a name id stands for, if it is a side letter.
fn side_of(n: NameId) -> Option<SideRef> {
    Builtin::of(n).and_then(Builtin::side)
}

/// The function a name id stands for, if it is a function name.
fn func_of(n: NameId) -> Option<Func> {
    Builtin::of(n).and_then(Builtin::func)
}

/// Folds the aliases `win`/`lose` to the reserved states.
fn state_name(n: NameId) -> NameId {
    match Builtin::of(n) {
        Some(Builtin::WinAlias) => WIN,
        Some(Builtin::LoseAlias) => LOSE,
        _ => n,
    }
}

type Err<'t> = extra::Err<Rich<'t, Tok, SimpleSpan>>;
type SplitFn<'t> = fn(&'t Spanned) -> (&'t Tok, &'t SimpleSpan);
type In<'t> = MappedInput<'t, Tok, SimpleSpan, &'t [Spanned], SplitFn<'t>>;
type P<'t, O> = Boxed<'t, 't, In<'t>, O, Err<'t>>;

fn split(x: &Spanned) -> (&Tok, &SimpleSpan) {
    (&x.0, &x.1)
}

fn sp(s: SimpleSpan) -> Span {
    s.start..s.end
}

/// Custom errors carry their code and help inside the message, separated by U+0001 (chumsky's
/// `Rich` holds a message only); [`convert_errors`] turns them back into typed diagnostics, the
/// one place where they are read.
fn custom(
    code: DiagCode,
    span: SimpleSpan,
    msg: &str,
    help: &str,
) -> Rich<'static, Tok, SimpleSpan> {
    Rich::custom(span, format!("{code}\u{1}{msg}\u{1}{help}"))
}

/// The tag of [`DiagKind::NotACondition`] in a custom error (chumsky's custom errors carry one
/// string: code, message, help and this tag, separated by U+0001).
const NOT_A_CONDITION: &str = "not-a-condition";

/// The label of a side prefix in the grammar (what [`hint_bare_names`] looks for among the
/// expected tokens).
const SIDE_PREFIX: &str = "side prefix (S. O. h. c.)";

fn sym<'t>(s: Sym) -> impl Parser<'t, In<'t>, Tok, Err<'t>> + Clone {
    just(Tok::Sym(s))
}

/// A function call `min(a,b)`, `max(a,b)`, `abs(a)`, `rand(a,b)`: the same parser in full
/// expressions and in short-form terms, so the argument count is checked everywhere (E001).
fn call<'t>(
    expr: impl Parser<'t, In<'t>, Expr, Err<'t>> + Clone,
) -> impl Parser<'t, In<'t>, Expr, Err<'t>> + Clone {
    select! { Tok::Name(n) if func_of(n).is_some() => func_of(n).unwrap_or(Func::Rand) }
        .then(
            expr.separated_by(sym(Sym::Comma))
                .collect::<Vec<_>>()
                .delimited_by(sym(Sym::LParen), sym(Sym::RParen)),
        )
        .validate(|(f, args): (Func, Vec<Expr>), e, em| {
            if args.len() != f.arity() {
                em.emit(custom(
                    DiagCode::E001,
                    e.span(),
                    &format!(
                        "{}() takes {} argument{}, not {}",
                        f.name(),
                        f.arity(),
                        if f.arity() == 1 { "" } else { "s" },
                        args.len()
                    ),
                    "",
                ));
            }
            Expr::Call(f, args, sp(e.span()))
        })
}

/// An operand: a number, a call, a state, a constant or a parenthesised expression, after any
/// number of minus signs. `label` names it in "expected …" messages.
fn operand<'t>(
    expr: impl Parser<'t, In<'t>, Expr, Err<'t>> + Clone + 't,
    state_ref: P<'t, StateRef>,
    label: &'static str,
) -> impl Parser<'t, In<'t>, Expr, Err<'t>> + Clone {
    let int = int_tok();
    let name = select! { Tok::Name(n) => n }.labelled("name");
    let atom = choice((
        int.map_with(|v, e| Expr::Int(v, sp(e.span()))),
        call(expr.clone()),
        state_ref.map(Expr::State),
        name.then_ignore(sym(Sym::Dot).not())
            .map_with(|n, e| Expr::Const(n, sp(e.span()))),
        expr.delimited_by(sym(Sym::LParen), sym(Sym::RParen)),
    ))
    .labelled(label);
    sym(Sym::Minus)
        .map_with(|_, e| e.span())
        .repeated()
        .foldr(atom, |m: SimpleSpan, a: Expr| {
            let s = m.start..a.span().end;
            Expr::Neg(Box::new(a), s)
        })
}

/// `a op b op c …`, grouped from the left.
fn left_assoc<'t>(
    operand: impl Parser<'t, In<'t>, Expr, Err<'t>> + Clone,
    op: impl Parser<'t, In<'t>, BinOp, Err<'t>> + Clone,
) -> impl Parser<'t, In<'t>, Expr, Err<'t>> + Clone {
    operand.clone().foldl(
        op.then(operand).repeated(),
        |a: Expr, (op, b): (BinOp, Expr)| {
            let s = a.span().start..b.span().end;
            Expr::Bin(op, Box::new(a), Box::new(b), s)
        },
    )
}

/// `*`, `/`, `%`.
fn mul_op<'t>() -> impl Parser<'t, In<'t>, BinOp, Err<'t>> + Clone {
    choice((
        sym(Sym::Star).to(BinOp::Mul),
        sym(Sym::Slash).to(BinOp::Div),
        sym(Sym::Percent).to(BinOp::Mod),
    ))
}

/// `+`, `-`.
fn add_op<'t>() -> impl Parser<'t, In<'t>, BinOp, Err<'t>> + Clone {
    choice((
        sym(Sym::Plus).to(BinOp::Add),
        sym(Sym::Minus).to(BinOp::Sub),
    ))
}

/// All line parsers, built once per file.
pub(super) struct Parsers<'t> {
    pub(super) rule: P<'t, Rule>,
    pub(super) init: P<'t, Vec<InitItem>>,
    pub(super) macro_def: P<'t, MacroDef>,
    pub(super) adv_line: P<'t, AdvLine>,
    pub(super) pct_header: P<'t, Option<f64>>,
    pub(super) amp_header: P<'t, Option<Vec<(NameId, NameId)>>>,
    pub(super) dollar_header: P<'t, ()>,
}

pub(super) fn parsers<'t>() -> Parsers<'t> {
    let a = atoms();
    let (pct_header, amp_header, dollar_header) = headers();
    Parsers {
        rule: rule(&a),
        init: init(&a),
        macro_def: macro_def(&a),
        adv_line: adv_line(&a),
        pct_header,
        amp_header,
        dollar_header,
    }
}

/// A name.
fn name_tok<'t>() -> impl Parser<'t, In<'t>, NameId, Err<'t>> + Copy {
    select! { Tok::Name(n) => n }.labelled("name")
}

/// A number.
fn int_tok<'t>() -> impl Parser<'t, In<'t>, i64, Err<'t>> + Copy {
    select! { Tok::Int(v) => v }.labelled("number")
}

/// A side prefix `S.`, `O.`, `h.` or `c.`.
fn side_prefix<'t>() -> impl Parser<'t, In<'t>, SideRef, Err<'t>> + Clone {
    select! { Tok::Name(n) if side_of(n).is_some() => side_of(n).unwrap_or(SideRef::C) }
        .then_ignore(sym(Sym::Dot))
        .labelled(SIDE_PREFIX)
}

/// The pieces the line grammars share: names, side prefixes, states, commands, numbers,
/// expressions and terms, and conditions.
#[derive(Clone)]
struct Atoms<'t> {
    state_ref: P<'t, StateRef>,
    cmd: P<'t, CmdRef>,
    expr: P<'t, Expr>,
    term: P<'t, Expr>,
    cmd_atom: P<'t, (CmdSide, CmdRef)>,
    cond: P<'t, Cond>,
}

fn atoms<'t>() -> Atoms<'t> {
    let name = name_tok();
    let side = side_prefix();
    let state_ref = side
        .clone()
        .then(name)
        .map_with(|(side, n), e| StateRef {
            side,
            name: state_name(n),
            span: sp(e.span()),
        })
        .labelled("state")
        .boxed();
    let cmd = name
        .delimited_by(sym(Sym::LBrack), sym(Sym::RBrack))
        .map_with(|n, e| CmdRef {
            name: n,
            span: sp(e.span()),
        })
        .labelled("command")
        .boxed();

    // Full expressions and short-form terms are built from the same operands and operators.
    let expr = recursive(|expr| {
        let product = left_assoc(
            operand(expr.clone(), state_ref.clone(), "expression"),
            mul_op(),
        );
        left_assoc(product, add_op())
    })
    .boxed();
    // A term for short-form effects: a product of operands.
    let term = left_assoc(operand(expr.clone(), state_ref.clone(), "term"), mul_op()).boxed();

    let cmd_atom = side
        .clone()
        .map_with(|s, e| (s, e.span()))
        .or_not()
        .then(cmd.clone())
        .validate(
            |(side, c): (Option<(SideRef, SimpleSpan)>, CmdRef), _e, em| match side {
                None | Some((SideRef::S, _)) => (CmdSide::Own, c),
                Some((SideRef::O, _)) => (CmdSide::Opp, c),
                Some((s, span)) => {
                    em.emit(custom(
                        DiagCode::E060,
                        span,
                        &format!(
                            "a command in a rule belongs to S or O, not to '{}.'",
                            s.prefix()
                        ),
                        "write [X] for the acting side's command or O.[X] for the opponent's",
                    ));
                    (CmdSide::Own, c)
                }
            },
        )
        .boxed();

    let cmp_op = choice((
        sym(Sym::EqEq).to(CmpOp::Eq),
        sym(Sym::Eq).to(CmpOp::Eq),
        sym(Sym::Ne).to(CmpOp::Ne),
        sym(Sym::Le).to(CmpOp::Le),
        sym(Sym::Lt).to(CmpOp::Lt),
        sym(Sym::Ge).to(CmpOp::Ge),
        sym(Sym::Gt).to(CmpOp::Gt),
    ))
    .labelled("comparison operator");

    let cond = choice((
        sym(Sym::Bang)
            .ignore_then(cmd_atom.clone())
            .map_with(|(side, cmd), e| Cond::Cmd { neg: true, side, cmd, span: sp(e.span()) }),
        sym(Sym::Bang)
            .ignore_then(state_ref.clone())
            .map_with(|state, e| Cond::Truth { neg: true, state, span: sp(e.span()) }),
        cmd_atom.clone().map_with(|(side, cmd), e| Cond::Cmd { neg: false, side, cmd, span: sp(e.span()) }),
        expr.clone().then(cmp_op.then(expr.clone()).or_not()).validate(|(lhs, rest): (Expr, Option<(CmpOp, Expr)>), e, em| {
            match (lhs, rest) {
                (lhs, Some((op, rhs))) => Cond::Cmp { op, lhs, rhs, span: sp(e.span()) },
                (Expr::State(state), None) => Cond::Truth { neg: false, state, span: sp(e.span()) },
                (lhs, None) => {
                    em.emit(Rich::custom(
                        e.span(),
                        format!(
                            "{}\u{1}{}\u{1}{}\u{1}{NOT_A_CONDITION}",
                            DiagCode::E001,
                            "this expression is not a condition",
                            "compare it with something (==, !=, <, <=, >, >=), or test a state such as S.名前",
                        ),
                    ));
                    Cond::Cmp { op: CmpOp::Ne, lhs, rhs: Expr::Int(0, 0..0), span: sp(e.span()) }
                }
            }
        }),
    ))
    .labelled("condition")
    .boxed();

    Atoms {
        state_ref,
        cmd,
        expr,
        term,
        cmd_atom,
        cond,
    }
}

/// One effect: `[X]`, `!O.[X]`, `S.名前`, `!S.名前`, `S.名前=式`, `S.名前+項` ….
fn effect<'t>(a: &Atoms<'t>) -> P<'t, Effect> {
    let state_ref = a.state_ref.clone();
    let expr = a.expr.clone();
    let term = a.term.clone();
    let cmd_atom = a.cmd_atom.clone();
    let assign_op = choice((
        sym(Sym::Eq).to(UpdOp::Set),
        sym(Sym::PlusEq).to(UpdOp::Add),
        sym(Sym::MinusEq).to(UpdOp::Sub),
        sym(Sym::StarEq).to(UpdOp::Mul),
        sym(Sym::SlashEq).to(UpdOp::Div),
    ));
    let short_op = choice((
        sym(Sym::Plus).to(UpdOp::Add),
        sym(Sym::Minus).to(UpdOp::Sub),
        sym(Sym::Star).to(UpdOp::Mul),
        sym(Sym::Slash).to(UpdOp::Div),
    ));
    let extra_terms = choice((sym(Sym::Plus), sym(Sym::Minus)))
        .ignore_then(term.clone())
        .map_with(|_, e| e.span())
        .repeated()
        .collect::<Vec<SimpleSpan>>();
    enum Tail {
        Assign(UpdOp, Expr),
        Short(UpdOp, Expr),
    }
    let tail = choice((
        assign_op
            .then(expr.clone())
            .map(|(op, x)| Tail::Assign(op, x)),
        short_op.then(term.clone()).then(extra_terms).validate(
            |((op, x), extras): ((UpdOp, Expr), Vec<SimpleSpan>), e, em| {
                if let Some(first) = extras.first() {
                    let last = extras.last().copied().unwrap_or(*first);
                    em.emit(custom(
                        DiagCode::E004,
                        SimpleSpan::from(first.start..last.end),
                        "the short form of an update takes exactly one term",
                        &format!(
                            "write the whole change as one expression with '{}='",
                            op.short_text().unwrap_or("+")
                        ),
                    ));
                }
                let _ = e;
                Tail::Short(op, x)
            },
        ),
    ));
    choice((
        sym(Sym::Bang)
            .ignore_then(cmd_atom.clone())
            .map_with(|(side, cmd), e| Effect::Enable {
                on: false,
                side,
                cmd,
                span: sp(e.span()),
            }),
        sym(Sym::Bang)
            .ignore_then(state_ref.clone())
            .map_with(|state, e| Effect::Bool {
                value: false,
                state,
                span: sp(e.span()),
            }),
        cmd_atom.clone().map_with(|(side, cmd), e| Effect::Enable {
            on: true,
            side,
            cmd,
            span: sp(e.span()),
        }),
        state_ref
            .clone()
            .then(tail.or_not())
            .map_with(|(state, tail), e| match tail {
                None => Effect::Bool {
                    value: true,
                    state,
                    span: sp(e.span()),
                },
                Some(Tail::Assign(op, expr)) => Effect::Update {
                    op,
                    state,
                    expr,
                    short: false,
                    span: sp(e.span()),
                },
                Some(Tail::Short(op, expr)) => Effect::Update {
                    op,
                    state,
                    expr,
                    short: true,
                    span: sp(e.span()),
                },
            }),
    ))
    .labelled("effect")
    .boxed()
}

/// A rule line: `@N/` period, conditions, `:` or `::`, effects.
fn rule<'t>(a: &Atoms<'t>) -> P<'t, Rule> {
    let int = int_tok();
    let cond = a.cond.clone();
    let effect = effect(a);
    let period = sym(Sym::At)
        .ignore_then(
            int.map_with(|v, e| (v, e.span()))
                .then_ignore(sym(Sym::Slash))
                .or_not(),
        )
        .validate(|p: Option<(i64, SimpleSpan)>, e, em| match p {
            None => (1u32, sp(e.span())),
            Some((0, s)) => {
                em.emit(custom(
                    DiagCode::E031,
                    s,
                    "a period of 0 never comes",
                    "write @1/ for every turn, @N/ for every N-th turn",
                ));
                (1, sp(e.span()))
            }
            Some((v, s)) if v > u32::MAX as i64 => {
                em.emit(custom(DiagCode::E031, s, "this period is too large", ""));
                (1, sp(e.span()))
            }
            Some((v, _)) => (v as u32, sp(e.span())),
        });
    let colon = choice((sym(Sym::DColon).to(true), sym(Sym::Colon).to(false)))
        .map_with(|iff, e| (iff, sp(e.span())))
        .labelled("':' or '::'");
    period
        .or_not()
        .then(
            cond.clone()
                .separated_by(sym(Sym::Comma))
                .collect::<Vec<_>>(),
        )
        .then(colon)
        .then(
            effect
                .separated_by(sym(Sym::Comma))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .then_ignore(end())
        .map_with(|(((period, conds), (iff, op_span)), effects), e| Rule {
            period,
            conds,
            iff,
            op_span,
            effects,
            span: sp(e.span()),
        })
        .boxed()
}

/// The initial line's items after `!:`.
fn init<'t>(a: &Atoms<'t>) -> P<'t, Vec<InitItem>> {
    let name = name_tok();
    let side = side_prefix();
    let cmd = a.cmd.clone();
    let int = int_tok();
    let init_value = sym(Sym::Minus)
        .map_with(|_, e| e.span())
        .or_not()
        .then(choice((
            int.map_with(|v, e| Expr::Int(v, sp(e.span()))),
            name.map_with(|n, e| Expr::Const(n, sp(e.span()))),
        )))
        .map(|(m, v)| match m {
            Some(m) => {
                let s = m.start..v.span().end;
                Expr::Neg(Box::new(v), s)
            }
            None => v,
        })
        .labelled("initial value");
    let abs_side = side.map_with(|s, e| (s, e.span())).or_not().validate(
        |s: Option<(SideRef, SimpleSpan)>, _e, em| match s {
            Some((SideRef::S | SideRef::O, span)) => {
                em.emit(custom(
                    DiagCode::E051,
                    span,
                    "an initial value belongs to h, c or both, not to S or O",
                    "write h.名前=N, c.名前=N, or 名前=N for both sides",
                ));
                None
            }
            other => other.map(|x| x.0),
        },
    );
    let init_item = choice((
        sym(Sym::Bang)
            .or_not()
            .then(abs_side.clone())
            .then(cmd.clone())
            .map_with(|((bang, side), cmd), e| InitItem::Enabled {
                side,
                on: bang.is_none(),
                cmd,
                span: sp(e.span()),
            }),
        abs_side
            .then(name)
            .then_ignore(sym(Sym::Eq))
            .then(init_value)
            .map_with(|((side, n), value), e| InitItem::Value {
                side,
                name: state_name(n),
                value,
                span: sp(e.span()),
            }),
    ))
    .labelled("initial item (名前=N or [X])");
    init_item
        .separated_by(sym(Sym::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .then_ignore(end())
        .boxed()
}

/// A line in a `${` block: `[名前]:[X];[Y]` or `名前:式`.
fn macro_def<'t>(a: &Atoms<'t>) -> P<'t, MacroDef> {
    let name = name_tok();
    let cmd = a.cmd.clone();
    let expr = a.expr.clone();
    choice((
        cmd.clone()
            .then_ignore(sym(Sym::Colon))
            .then(
                cmd.clone()
                    .separated_by(sym(Sym::Semi))
                    .at_least(1)
                    .collect::<Vec<_>>(),
            )
            .map_with(|(name, alts), e| MacroDef::Commands {
                name,
                alts,
                span: sp(e.span()),
            }),
        name.map_with(|n, e| (n, sp(e.span())))
            .then_ignore(sym(Sym::Colon))
            .then(expr.clone())
            .map_with(|((name, name_span), value), e| MacroDef::Const {
                name,
                name_span,
                value,
                span: sp(e.span()),
            }),
    ))
    .labelled("macro definition ([名前]:[X];[Y] or 名前:N)")
    .then_ignore(end())
    .boxed()
}

/// A line in a `%{` block: conditions `:` value.
fn adv_line<'t>(a: &Atoms<'t>) -> P<'t, AdvLine> {
    let expr = a.expr.clone();
    let cond = a.cond.clone();
    cond.separated_by(sym(Sym::Comma))
        .collect::<Vec<_>>()
        .then_ignore(sym(Sym::Colon))
        .then(expr.clone())
        .then_ignore(end())
        .map_with(|(conds, value), e| AdvLine {
            conds,
            value,
            span: sp(e.span()),
        })
        .boxed()
}

/// The block headers `%w{`, `&左/右{` and `${`.
#[allow(clippy::type_complexity)]
fn headers<'t>() -> (
    P<'t, Option<f64>>,
    P<'t, Option<Vec<(NameId, NameId)>>>,
    P<'t, ()>,
) {
    let name = name_tok();
    let weight = choice((
        select! { Tok::Int(v) => v as f64 },
        select! { Tok::Dec(d) => d.value() },
    ))
    .labelled("weight");
    let pct_header = sym(Sym::Percent)
        .ignore_then(weight.or_not())
        .then_ignore(sym(Sym::LBrace))
        .then_ignore(end())
        .boxed();
    let pair = name.then_ignore(sym(Sym::Slash)).then(name);
    let amp_header = sym(Sym::Amp)
        .ignore_then(
            pair.separated_by(sym(Sym::Comma))
                .at_least(1)
                .collect::<Vec<_>>()
                .or_not(),
        )
        .then_ignore(sym(Sym::LBrace))
        .then_ignore(end())
        .boxed();
    let dollar_header = sym(Sym::Dollar)
        .ignore_then(sym(Sym::LBrace))
        .ignored()
        .then_ignore(end())
        .boxed();
    (pct_header, amp_header, dollar_header)
}

/// Adds the side-prefix hint (and its quick fix) to syntax errors at a bare state name in a
/// condition: `体力:…` ("not a condition") and `!体力:…` (a name where a side prefix must come).
pub fn hint_bare_names(text: &str, diags: &mut [Diagnostic]) {
    for d in diags
        .iter_mut()
        .filter(|d| d.code == DiagCode::E001 && d.fixes.is_empty())
    {
        let name = match &d.kind {
            DiagKind::NotACondition => text.get(d.span.clone()).map(str::trim).filter(|t| {
                !t.is_empty()
                    && t.chars().map(norm).all(is_name_char)
                    && !t
                        .chars()
                        .next()
                        .map(norm)
                        .is_some_and(|c| c.is_ascii_digit())
            }),
            DiagKind::Unexpected {
                name: Some(n),
                expected,
            } if d.help.is_none() && expected.iter().any(|e| e == SIDE_PREFIX) => Some(n.as_str()),
            _ => None,
        };
        let Some(n) = name.map(str::to_string) else {
            continue;
        };
        d.help = Some(format!(
            "a state needs its side: S.{n} (the side the rule runs for) or O.{n} (its opponent); alone it tests non-zero, compare it for more (S.{n}>0)"
        ));
        d.fixes.push(crate::diag::FixHint::AddPrefix(n));
    }
}

/// Converts chumsky's errors to diagnostics.
pub(super) fn convert_errors<T>(
    errs: Vec<Rich<'_, T, SimpleSpan>>,
    found: impl Fn(&T) -> String,
    name_of: impl Fn(&T) -> Option<String>,
    eoi: usize,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for e in errs {
        let span = e.span();
        let span = span.start..span.end;
        match e.reason() {
            chumsky::error::RichReason::Custom(msg) => {
                let mut parts = msg.split('\u{1}');
                let code = parts
                    .next()
                    .and_then(DiagCode::parse)
                    .unwrap_or(DiagCode::E001);
                let m = parts.next().unwrap_or("");
                let help = parts.next().unwrap_or("");
                let mut d = Diagnostic::error(code, span, m);
                if !help.is_empty() {
                    d = d.with_help(help);
                }
                if parts.next() == Some(NOT_A_CONDITION) {
                    d.kind = DiagKind::NotACondition;
                }
                out.push(d);
            }
            chumsky::error::RichReason::ExpectedFound { expected, found: f } => {
                let mut exp: Vec<String> = expected
                    .iter()
                    .map(|p| match p {
                        chumsky::error::RichPattern::Token(t) => found(t),
                        chumsky::error::RichPattern::Label(l) => l.to_string(),
                        chumsky::error::RichPattern::EndOfInput => "end of line".to_string(),
                        chumsky::error::RichPattern::Identifier(i) => format!("'{i}'"),
                        chumsky::error::RichPattern::Any => "anything".to_string(),
                        _ => "something else".to_string(),
                    })
                    .collect();
                exp.sort();
                exp.dedup();
                let found_s = match f {
                    Some(t) => found(t),
                    None => "end of line".to_string(),
                };
                let span = if f.is_none() { eoi..eoi } else { span };
                let msg = if exp.is_empty() {
                    format!("unexpected {found_s}")
                } else {
                    format!("unexpected {found_s}, expected {}", join_or(&exp))
                };
                let name = f.as_ref().and_then(|t| name_of(t));
                let mut d = Diagnostic::error(DiagCode::E001, span, msg);
                // A bare name where an effect must start: almost always a state written
                // without its side.
                if let Some(n) = &name
                    && exp.iter().any(|e| e == "effect")
                {
                    d = d
                        .with_help(format!(
                            "a state in an effect needs its side: S.{n} (the side the rule runs for) or O.{n} (its opponent); h.{n} and c.{n} name a side outright"
                        ))
                        .with_fix(crate::diag::FixHint::AddPrefix(n.to_string()));
                }
                d.kind = DiagKind::Unexpected {
                    name,
                    expected: exp,
                };
                out.push(d);
            }
        }
    }
    out
}

fn join_or(items: &[String]) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        n => format!("{} or {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

/// Runs one line parser over a line's tokens; on failure reports and returns `None`.
pub(super) fn run<'t, O>(
    p: &P<'t, O>,
    slice: &'t [Spanned],
    eoi: usize,
    names: &Names,
    diags: &mut Vec<Diagnostic>,
) -> Option<O> {
    let split_fn: SplitFn<'t> = split;
    let input = slice.map(SimpleSpan::from(eoi..eoi), split_fn);
    let (out, errs) = p.parse(input).into_output_errors();
    if errs.is_empty() {
        out
    } else {
        diags.extend(convert_errors(
            errs,
            |t| describe(t, names),
            |t| match t {
                Tok::Name(n) => Some(names.get(*n).to_string()),
                _ => None,
            },
            eoi,
        ));
        None
    }
}
