//! A second, independent implementation of a turn (LANGUAGE.md v1.3, §8), written from the
//! text of the spec and not from the engine, so that the two can be compared on generated
//! programs (see `tests/differential.rs`).
//!
//! It reads the *expanded* rule text (`kumite::pipeline::expanded_kmt`): flat rules one per line,
//! the `!:` initial line, the `':` keys line and the `~` settings line; advantage blocks are
//! skipped. It has its own small parser for that flat form and its own evaluator. Clarity wins
//! over speed everywhere: states are plain vectors, a turn clones the snapshot it reads.
//!
//! Readings of the spec where the text leaves room (each is a choice, written down here):
//!
//! 1. **Victory rules take part in resolution too.** §8 step 3 says *every* rule whose period
//!    allows the turn is evaluated and applies its effects, naming only one exception (the
//!    enable/disable effects of rules without command atoms). Step 4 then evaluates victory
//!    rules *again*, for both sides, on the post-resolution state. So a victory rule of the
//!    acting side fires on the snapshot in resolution and once more in the end check. (The
//!    switch [`Reading::victory_rules_in_resolution`] turns this off, to see whether the engine
//!    follows the other reading.)
//! 2. **Periods of non-victory rules** allow turn n when `n % N == 0`, n = the side's own turn
//!    count *including* the turn being played (resolution) or about to be played
//!    (availability: own turns + 1). In the end check, a victory rule written with a period
//!    (`@1/` included) is checked for a side only when that side's own count n (after this
//!    turn) is ≥ 1 and a multiple of N; a victory rule without a period is checked for both
//!    sides on every end check, also for a side that has not acted yet.
//! 3. **Victory rules** are the rules without command atoms whose effects all target `勝利` or
//!    `敗北` (of any side, in any form: `S.勝利`, `!O.敗北`, `S.勝利+=1`, …).
//! 4. **The merge** (simultaneous resolution, simultaneous availability, and the end check in
//!    both modes): for each state or flag, the writes made with S = the other side are applied
//!    first, then those made with S = its owner, each group in file order. In alternate mode
//!    resolution and availability have one writer, so this is plain file order.
//! 5. **Turn limit**: `T<n>` ends an undecided match in a draw after the end check of turn n
//!    (`turn` counts one side's turn in alternate mode, one joint turn in simultaneous mode).
//!    A decided match stops; availability is not run after the deciding turn.
//! 6. **Runtime errors**: §4 says the conditions must *all* hold, not in which order they are
//!    tested, so the order must not matter: a rule with a condition that is false (evaluated
//!    without error) does not hold, whatever its other conditions do; an error in evaluating a
//!    condition stops the match only when every other condition holds (so `S.y!=0,10/S.y>1`
//!    never divides by zero, and neither does a rule whose command atom is not this turn's
//!    command). A rule with nothing to apply in a phase (e.g. an availability rule during
//!    resolution) is not evaluated in that phase, so its conditions cannot raise an error there.
//!    Effects' operands are evaluated when the rule fires (on the snapshot); the update itself
//!    (`+=` overflow, `/=0`) fails when applied. The engine tests command atoms first and then
//!    the rest left to right ([`ConditionOrder::AtomsFirst`]), which differs only in which
//!    errors are raised; the differential test accepts either.
//! 7. `rand(a,b)` calls an injected draw function `(turn, side, rule, slot, a, b) → value`, where
//!    rule is the 0-based index of the expanded rule and slot numbers the rule's `rand` calls in
//!    the order the text writes them, an inner call before the call around it. `turn` is the
//!    match's turn counter at the moment of the draw. Without a draw function, `rand` is an
//!    error.

// Each test binary that includes this module uses a different part of it.
#![allow(dead_code)]

use std::collections::HashMap;

/// The side h (the human).
pub const H: usize = 0;
/// The side c (the CPU).
pub const C: usize = 1;

/// A side as written in a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideRef {
    /// `S.` — the acting side.
    S,
    /// `O.` — its opponent.
    O,
    /// `h.`
    H,
    /// `c.`
    C,
}

impl SideRef {
    /// The absolute side (0 = h, 1 = c) when `acting` acts.
    fn resolve(self, acting: usize) -> usize {
        match self {
            SideRef::S => acting,
            SideRef::O => 1 - acting,
            SideRef::H => H,
            SideRef::C => C,
        }
    }
}

/// Binary arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (truncating)
    Div,
    /// `%` (truncating)
    Mod,
}

/// An expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A literal.
    Int(i64),
    /// A state of a side.
    State(SideRef, usize),
    /// `-e`
    Neg(Box<Expr>),
    /// `a op b`
    Bin(Bin, Box<Expr>, Box<Expr>),
    /// `min(a,b)`
    Min(Box<Expr>, Box<Expr>),
    /// `max(a,b)`
    Max(Box<Expr>, Box<Expr>),
    /// `abs(e)`
    Abs(Box<Expr>),
    /// `rand(a,b)` with its slot in the rule.
    Rand(u16, Box<Expr>, Box<Expr>),
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `==` or `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// A condition.
#[derive(Clone, Debug)]
pub enum Cond {
    /// `S.x` / `!S.x`
    Truth {
        /// Negated.
        neg: bool,
        /// Whose.
        side: SideRef,
        /// Which state.
        state: usize,
    },
    /// `a OP b`
    Cmp {
        /// Operator.
        op: CmpOp,
        /// Left side.
        lhs: Expr,
        /// Right side.
        rhs: Expr,
    },
    /// `[X]`, `![X]`, `O.[X]`, `!O.[X]` at a position of its sequence.
    Cmd {
        /// Negated.
        neg: bool,
        /// The opponent's sequence rather than the acting side's.
        opp: bool,
        /// 0 = the latest command, 1 = the one before, …
        back: usize,
        /// Which command.
        cmd: usize,
    },
}

/// How an update combines the operand with the current value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upd {
    /// `=`
    Set,
    /// `+=` / `+t`
    Add,
    /// `-=` / `-t`
    Sub,
    /// `*=` / `*t`
    Mul,
    /// `/=` / `/t`
    Div,
}

/// An effect.
#[derive(Clone, Debug)]
pub enum Effect {
    /// `S.x` (value true) / `!S.x` (value false).
    Bool {
        /// Whose.
        side: SideRef,
        /// Which state.
        state: usize,
        /// Set to 1 or to 0.
        value: bool,
    },
    /// `S.x=e`, `S.x+=e`, `S.x+t`, …
    Update {
        /// Whose.
        side: SideRef,
        /// Which state.
        state: usize,
        /// How.
        op: Upd,
        /// The operand.
        expr: Expr,
    },
    /// `[X]`, `![X]`, `O.[X]`, `!O.[X]`
    Enable {
        /// The opponent's flag rather than the acting side's.
        opp: bool,
        /// Which command.
        cmd: usize,
        /// Enable or disable.
        on: bool,
    },
}

/// One flat rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The rule's text as read (without the origin comment).
    pub text: String,
    /// `@N/` (1 when absent).
    pub period: u32,
    /// Written with `@N/` (`@1/` too): §8 step 4 checks such a victory rule only for a side
    /// whose own turn count n is at least 1.
    pub periodic: bool,
    /// Conditions, all of which must hold.
    pub conds: Vec<Cond>,
    /// `::` — apply the inverse effects when the conditions fail.
    pub iff: bool,
    /// Effects in the order written.
    pub effects: Vec<Effect>,
    /// Some condition is a command atom (own or opponent's).
    pub has_cmd_atoms: bool,
    /// A victory rule (§8 step 4): no command atoms, every effect targets 勝利/敗北.
    pub victory: bool,
}

/// A parsed flat program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// State names (interned in the order met).
    pub states: Vec<String>,
    /// Command names.
    pub commands: Vec<String>,
    /// Initial values per side.
    pub init_vals: [Vec<i64>; 2],
    /// Initial enabled flags per side.
    pub init_enabled: [Vec<bool>; 2],
    /// `~同時`
    pub simultaneous: bool,
    /// `~先手c`
    pub cpu_first: bool,
    /// `~T<n>`
    pub turn_limit: u32,
    /// The rules in file order.
    pub rules: Vec<Rule>,
    /// The longest own / opponent's command sequence any rule reads.
    pub hist_len: usize,
    win: usize,
    lose: usize,
}

impl Program {
    /// Index of a state by name.
    pub fn state(&self, name: &str) -> Option<usize> {
        self.states.iter().position(|s| s == name)
    }
    /// Index of a command by name.
    pub fn command(&self, name: &str) -> Option<usize> {
        self.commands.iter().position(|s| s == name)
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing the flat form

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i64),
    Name(String),
    Sym(&'static str),
}

const SYMS2: [&str; 11] = [
    "::", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "!:", "':",
];
const SYMS1: [&str; 23] = [
    "!", "\"", "$", "%", "&", "'", "(", ")", "*", "+", ",", "-", ".", "/", ":", ";", "<", "=", ">",
    "?", "@", "[", "]",
];

fn is_name_char(c: char) -> bool {
    !c.is_whitespace() && !"!\"#$%&'()*+,-./:;<=>?@[]{}~|".contains(c)
}

fn lex(line: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '#' {
            break;
        } else if c.is_ascii_digit() {
            let mut v: i64 = 0;
            while i < chars.len() && chars[i].is_ascii_digit() {
                v = v
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(i64::from(chars[i] as u8 - b'0')))
                    .ok_or("number too large")?;
                i += 1;
            }
            out.push(Tok::Int(v));
        } else if is_name_char(c) {
            let s = i;
            while i < chars.len() && is_name_char(chars[i]) {
                i += 1;
            }
            out.push(Tok::Name(chars[s..i].iter().collect()));
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            if let Some(s) = SYMS2.iter().find(|s| **s == two) {
                out.push(Tok::Sym(s));
                i += 2;
            } else if let Some(s) = SYMS1.iter().find(|s| s.starts_with(c)) {
                out.push(Tok::Sym(s));
                i += 1;
            } else {
                return Err(format!("unexpected character {c:?}"));
            }
        }
    }
    Ok(out)
}

struct Parser<'a> {
    toks: Vec<Tok>,
    pos: usize,
    prog: &'a mut Program,
    rand_slot: u16,
    state_ix: &'a mut HashMap<String, usize>,
    cmd_ix: &'a mut HashMap<String, usize>,
}

fn canonical_state(name: &str) -> &str {
    match name {
        "win" => "勝利",
        "lose" => "敗北",
        n => n,
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k)
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Sym(x)) if *x == s)
    }
    fn eat(&mut self, s: &str) -> bool {
        if self.is_sym(s) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, s: &str) -> Result<(), String> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(format!(
                "expected '{s}' at token {}: {:?}",
                self.pos,
                self.peek()
            ))
        }
    }
    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
    fn name(&mut self) -> Result<String, String> {
        match self.toks.get(self.pos) {
            Some(Tok::Name(n)) => {
                let n = n.clone();
                self.pos += 1;
                Ok(n)
            }
            t => Err(format!("expected a name, found {t:?}")),
        }
    }
    fn state(&mut self, name: &str) -> usize {
        let name = canonical_state(name);
        if let Some(&i) = self.state_ix.get(name) {
            return i;
        }
        let i = self.prog.states.len();
        self.prog.states.push(name.to_string());
        self.state_ix.insert(name.to_string(), i);
        i
    }
    fn cmd(&mut self, name: &str) -> usize {
        if let Some(&i) = self.cmd_ix.get(name) {
            return i;
        }
        let i = self.prog.commands.len();
        self.prog.commands.push(name.to_string());
        self.cmd_ix.insert(name.to_string(), i);
        i
    }
    /// A side prefix `S.` `O.` `h.` `c.` at the cursor (not consumed).
    fn side_at(&self, k: usize) -> Option<SideRef> {
        let Some(Tok::Name(n)) = self.peek_at(k) else {
            return None;
        };
        if !matches!(self.peek_at(k + 1), Some(Tok::Sym("."))) {
            return None;
        }
        match n.to_ascii_lowercase().as_str() {
            "s" => Some(SideRef::S),
            "o" => Some(SideRef::O),
            "h" => Some(SideRef::H),
            "c" => Some(SideRef::C),
            _ => None,
        }
    }
    /// `[X]` (the bracketed command name).
    fn bracket_cmd(&mut self) -> Result<usize, String> {
        self.expect("[")?;
        let n = self.name()?;
        self.expect("]")?;
        Ok(self.cmd(&n))
    }

    // Expressions: expr := term (('+'|'-') term)*, term := factor (('*'|'/'|'%') factor)*.
    fn expr(&mut self) -> Result<Expr, String> {
        let mut e = self.term()?;
        loop {
            let op = if self.eat("+") {
                Bin::Add
            } else if self.eat("-") {
                Bin::Sub
            } else {
                return Ok(e);
            };
            let r = self.term()?;
            e = Expr::Bin(op, Box::new(e), Box::new(r));
        }
    }
    fn term(&mut self) -> Result<Expr, String> {
        let mut e = self.factor()?;
        loop {
            let op = if self.eat("*") {
                Bin::Mul
            } else if self.eat("/") {
                Bin::Div
            } else if self.eat("%") {
                Bin::Mod
            } else {
                return Ok(e);
            };
            let r = self.factor()?;
            e = Expr::Bin(op, Box::new(e), Box::new(r));
        }
    }
    fn factor(&mut self) -> Result<Expr, String> {
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.factor()?)));
        }
        if self.eat("(") {
            let e = self.expr()?;
            self.expect(")")?;
            return Ok(e);
        }
        if let Some(side) = self.side_at(0) {
            self.pos += 2;
            let n = self.name()?;
            return Ok(Expr::State(side, self.state(&n)));
        }
        match self.peek().cloned() {
            Some(Tok::Int(v)) => {
                self.pos += 1;
                Ok(Expr::Int(v))
            }
            Some(Tok::Name(f)) if matches!(self.peek_at(1), Some(Tok::Sym("("))) => {
                self.pos += 2;
                let a = Box::new(self.expr()?);
                if f == "abs" {
                    self.expect(")")?;
                    return Ok(Expr::Abs(a));
                }
                self.expect(",")?;
                let b = Box::new(self.expr()?);
                self.expect(")")?;
                match f.as_str() {
                    "min" => Ok(Expr::Min(a, b)),
                    "max" => Ok(Expr::Max(a, b)),
                    "rand" => {
                        // Post-order: the arguments' draws were numbered first.
                        let slot = self.rand_slot;
                        self.rand_slot += 1;
                        Ok(Expr::Rand(slot, a, b))
                    }
                    _ => Err(format!("unknown function {f}")),
                }
            }
            t => Err(format!("expected an expression, found {t:?}")),
        }
    }

    fn cmp_op(&mut self) -> Option<CmpOp> {
        let op = match self.peek() {
            Some(Tok::Sym("==")) | Some(Tok::Sym("=")) => CmpOp::Eq,
            Some(Tok::Sym("!=")) => CmpOp::Ne,
            Some(Tok::Sym("<")) => CmpOp::Lt,
            Some(Tok::Sym("<=")) => CmpOp::Le,
            Some(Tok::Sym(">")) => CmpOp::Gt,
            Some(Tok::Sym(">=")) => CmpOp::Ge,
            _ => return None,
        };
        self.pos += 1;
        Some(op)
    }

    /// One condition. Command atoms are returned with `back` = their index among atoms of the
    /// same sequence; [`Parser::rule`] turns that into a distance from the latest command.
    fn cond(&mut self) -> Result<Cond, String> {
        let neg = self.is_sym("!");
        let k = usize::from(neg);
        if matches!(self.peek_at(k), Some(Tok::Sym("["))) {
            self.pos += k;
            let cmd = self.bracket_cmd()?;
            return Ok(Cond::Cmd {
                neg,
                opp: false,
                back: 0,
                cmd,
            });
        }
        if let Some(side) = self.side_at(k) {
            if matches!(self.peek_at(k + 2), Some(Tok::Sym("["))) {
                if side != SideRef::O {
                    return Err("only O. may prefix a command atom".into());
                }
                self.pos += k + 2;
                let cmd = self.bracket_cmd()?;
                return Ok(Cond::Cmd {
                    neg,
                    opp: true,
                    back: 0,
                    cmd,
                });
            }
            if neg {
                self.pos += 3;
                let n = self.name()?;
                return Ok(Cond::Truth {
                    neg: true,
                    side,
                    state: self.state(&n),
                });
            }
        }
        if neg {
            return Err("'!' must be followed by a side prefix or '['".into());
        }
        let lhs = self.expr()?;
        if let Some(op) = self.cmp_op() {
            let rhs = self.expr()?;
            return Ok(Cond::Cmp { op, lhs, rhs });
        }
        match lhs {
            Expr::State(side, state) => Ok(Cond::Truth {
                neg: false,
                side,
                state,
            }),
            e => Err(format!(
                "a condition that is neither a comparison nor a state: {e:?}"
            )),
        }
    }

    fn effect(&mut self) -> Result<Effect, String> {
        let neg = self.is_sym("!");
        let k = usize::from(neg);
        if matches!(self.peek_at(k), Some(Tok::Sym("["))) {
            self.pos += k;
            let cmd = self.bracket_cmd()?;
            return Ok(Effect::Enable {
                opp: false,
                cmd,
                on: !neg,
            });
        }
        let Some(side) = self.side_at(k) else {
            return Err(format!("expected an effect, found {:?}", self.peek()));
        };
        self.pos += k + 2;
        if self.is_sym("[") {
            if side != SideRef::O {
                return Err("only O. may prefix a command in an effect".into());
            }
            let cmd = self.bracket_cmd()?;
            return Ok(Effect::Enable {
                opp: true,
                cmd,
                on: !neg,
            });
        }
        let n = self.name()?;
        let state = self.state(&n);
        if neg || self.at_end() || self.is_sym(",") {
            return Ok(Effect::Bool {
                side,
                state,
                value: !neg,
            });
        }
        let (op, short) = match self.peek() {
            Some(Tok::Sym("=")) => (Upd::Set, false),
            Some(Tok::Sym("+=")) => (Upd::Add, false),
            Some(Tok::Sym("-=")) => (Upd::Sub, false),
            Some(Tok::Sym("*=")) => (Upd::Mul, false),
            Some(Tok::Sym("/=")) => (Upd::Div, false),
            Some(Tok::Sym("+")) => (Upd::Add, true),
            Some(Tok::Sym("-")) => (Upd::Sub, true),
            Some(Tok::Sym("*")) => (Upd::Mul, true),
            Some(Tok::Sym("/")) => (Upd::Div, true),
            t => return Err(format!("expected an update, found {t:?}")),
        };
        self.pos += 1;
        // The short form takes one term (a product of factors).
        let expr = if short { self.term()? } else { self.expr()? };
        Ok(Effect::Update {
            side,
            state,
            op,
            expr,
        })
    }

    /// `@N/ conds (':' | '::') effects`
    fn rule(&mut self, text: &str) -> Result<Rule, String> {
        let mut period = 1;
        let periodic = self.is_sym("@");
        if self.eat("@")
            && let Some(Tok::Int(n)) = self.peek().cloned()
        {
            self.pos += 1;
            self.expect("/")?;
            period = u32::try_from(n).map_err(|_| "period too large")?.max(1);
        }
        let mut conds = Vec::new();
        if !self.is_sym(":") && !self.is_sym("::") {
            loop {
                conds.push(self.cond()?);
                if !self.eat(",") {
                    break;
                }
            }
        }
        let iff = if self.eat("::") {
            true
        } else {
            self.expect(":")?;
            false
        };
        let mut effects = Vec::new();
        loop {
            effects.push(self.effect()?);
            if !self.eat(",") {
                break;
            }
        }
        if !self.at_end() {
            return Err(format!("trailing tokens from {:?}", self.peek()));
        }
        // Each sequence's atoms, in order, end with the latest command.
        for opp in [false, true] {
            let n = conds
                .iter()
                .filter(|c| matches!(c, Cond::Cmd { opp: o, .. } if *o == opp))
                .count();
            self.prog.hist_len = self.prog.hist_len.max(n);
            let mut i = 0;
            for c in &mut conds {
                if let Cond::Cmd { opp: o, back, .. } = c
                    && *o == opp
                {
                    i += 1;
                    *back = n - i;
                }
            }
        }
        if iff && effects.iter().any(|e| matches!(e, Effect::Update { .. })) {
            return Err("'::' with an effect that has no inverse".into());
        }
        let has_cmd_atoms = conds.iter().any(|c| matches!(c, Cond::Cmd { .. }));
        let (win, lose) = (self.prog.win, self.prog.lose);
        let victory = !has_cmd_atoms
            && effects.iter().all(|e| match e {
                Effect::Bool { state, .. } | Effect::Update { state, .. } => {
                    *state == win || *state == lose
                }
                Effect::Enable { .. } => false,
            });
        Ok(Rule {
            text: text.to_string(),
            period,
            periodic,
            conds,
            iff,
            effects,
            has_cmd_atoms,
            victory,
        })
    }

    /// The items of a `!:` line: `h.x=N`, `x=N`, `[X]`, `!c.[X]`.
    fn init(
        &mut self,
        vals: &mut Vec<(usize, usize, i64)>,
        flags: &mut Vec<(usize, usize, bool)>,
    ) -> Result<(), String> {
        loop {
            let neg = self.eat("!");
            let side = match self.side_at(0) {
                Some(SideRef::H) => Some(H),
                Some(SideRef::C) => Some(C),
                Some(_) => return Err("only h. and c. in the initial line".into()),
                None => None,
            };
            if side.is_some() {
                self.pos += 2;
            }
            let sides: Vec<usize> = side.map_or(vec![H, C], |s| vec![s]);
            if self.is_sym("[") {
                let cmd = self.bracket_cmd()?;
                for s in sides {
                    flags.push((s, cmd, !neg));
                }
            } else {
                let n = self.name()?;
                let st = self.state(&n);
                self.expect("=")?;
                let minus = self.eat("-");
                let Some(Tok::Int(v)) = self.peek().cloned() else {
                    return Err("expected a number".into());
                };
                self.pos += 1;
                for s in sides {
                    vals.push((s, st, if minus { -v } else { v }));
                }
            }
            if self.at_end() {
                return Ok(());
            }
            self.expect(",")?;
        }
    }
}

/// Parses the expanded text. Errors name the line.
pub fn parse(expanded: &str) -> Result<Program, String> {
    let mut prog = Program {
        turn_limit: 1000,
        ..Program::default()
    };
    let mut state_ix = HashMap::new();
    let mut cmd_ix = HashMap::new();
    let mut vals = Vec::new();
    let mut flags = Vec::new();
    let mut in_adv = false;
    {
        let mut p = Parser {
            toks: vec![],
            pos: 0,
            prog: &mut prog,
            rand_slot: 0,
            state_ix: &mut state_ix,
            cmd_ix: &mut cmd_ix,
        };
        // 勝利 and 敗北 exist in every program.
        p.prog.win = p.state("勝利");
        p.prog.lose = p.state("敗北");
        for (no, raw) in expanded.lines().enumerate() {
            let line = raw.trim();
            let ctx = |e: String| format!("line {}: {e}: {raw}", no + 1);
            if in_adv {
                in_adv = !line.starts_with('}');
                continue;
            }
            if line.is_empty() || line.starts_with('#') || line.starts_with("':") {
                continue;
            }
            if line.starts_with('%') {
                in_adv = !line.contains('}');
                continue;
            }
            if let Some(rest) = line.strip_prefix('~') {
                for item in rest.split(',') {
                    let item = item.trim();
                    match item {
                        "同時" | "simultaneous" => p.prog.simultaneous = true,
                        "先手c" | "first=c" => p.prog.cpu_first = true,
                        "先手h" | "first=h" => p.prog.cpu_first = false,
                        _ => {
                            if let Some(t) = item.strip_prefix('T') {
                                p.prog.turn_limit =
                                    t.parse().map_err(|_| ctx(format!("bad T {t}")))?;
                            }
                        }
                    }
                }
                continue;
            }
            let text = line.split('#').next().unwrap_or("").trim().to_string();
            p.toks = lex(&text).map_err(ctx)?;
            p.pos = 0;
            p.rand_slot = 0;
            if p.eat("!:") {
                p.init(&mut vals, &mut flags).map_err(ctx)?;
                continue;
            }
            let rule = p.rule(&text).map_err(ctx)?;
            p.prog.rules.push(rule);
        }
    }
    let (ns, nc) = (prog.states.len(), prog.commands.len());
    prog.init_vals = [vec![0; ns], vec![0; ns]];
    prog.init_enabled = [vec![false; nc], vec![false; nc]];
    for (s, st, v) in vals {
        prog.init_vals[s][st] = v;
    }
    for (s, c, on) in flags {
        prog.init_enabled[s][c] = on;
    }
    prog.hist_len = prog.hist_len.max(1);
    Ok(prog)
}

// ---------------------------------------------------------------------------------------------
// Running

/// How a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// h won.
    H,
    /// c won.
    C,
    /// Both won at one check, or the turn limit.
    Draw,
}

/// A position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// State values per side.
    pub vals: [Vec<i64>; 2],
    /// Enabled flags per side.
    pub enabled: [Vec<bool>; 2],
    /// Command history per side, oldest first (None = a pass), at most `hist_len` long.
    pub hist: [Vec<Option<usize>>; 2],
    /// Turns each side has taken.
    pub own_turns: [u32; 2],
    /// Turns played (alternate: one side's turns; simultaneous: joint turns).
    pub turn: u32,
    /// Side to move (alternate mode).
    pub to_move: usize,
    /// Set once decided.
    pub outcome: Option<Outcome>,
}

/// A runtime error (arithmetic, or `rand` without a draw function).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    /// Index of the expanded rule.
    pub rule: usize,
    /// What went wrong.
    pub message: String,
}

/// The draw function: (turn, side, rule, slot, lo, hi) → value.
pub type DrawFn<'a> = Box<dyn Fn(u32, usize, usize, u16, i64, i64) -> i64 + 'a>;

/// Switches between readings of the spec (see the module comment).
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    /// Victory rules are evaluated in resolution as well as in the end check.
    pub victory_rules_in_resolution: bool,
    /// Which conditions are evaluated, which decides whether an arithmetic error is raised.
    pub condition_order: ConditionOrder,
}

/// How a rule's conditions are tested (it matters only for runtime errors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConditionOrder {
    /// Reading 6: any condition false without error decides; an error counts only when every
    /// other condition holds.
    Independent,
    /// Command atoms first, then the other conditions left to right, stopping at the first
    /// false one or the first error (the engine's order).
    AtomsFirst,
}

impl Default for Reading {
    fn default() -> Self {
        Self {
            victory_rules_in_resolution: true,
            condition_order: ConditionOrder::Independent,
        }
    }
}

/// The three moments a rule is evaluated (§8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Step 1: only enable/disable effects of rules without command atoms.
    Availability,
    /// Step 3: all effects, except enable/disable effects of rules without command atoms.
    Resolution,
    /// Step 4: victory rules.
    EndCheck,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    State(usize, usize),
    Flag(usize, usize),
}

impl Target {
    fn owner(self) -> usize {
        match self {
            Target::State(s, _) | Target::Flag(s, _) => s,
        }
    }
}

/// One pending write: the operand is already computed on the snapshot.
#[derive(Clone, Copy, Debug)]
struct Write {
    writer: usize,
    rule: usize,
    target: Target,
    op: Upd,
    operand: i64,
}

/// The interpreter for one program.
pub struct Interp<'a> {
    /// The program.
    pub prog: &'a Program,
    /// Supplies `rand`.
    pub draw: Option<DrawFn<'a>>,
    /// Which reading of the spec to follow.
    pub reading: Reading,
}

struct Ctx<'g> {
    vals: &'g [Vec<i64>; 2],
    hist: &'g [Vec<Option<usize>>; 2],
    acting: usize,
    turn: u32,
    rule: usize,
}

impl<'a> Interp<'a> {
    /// An interpreter without `rand`, following the default reading.
    pub fn new(prog: &'a Program) -> Self {
        Self {
            prog,
            draw: None,
            reading: Reading::default(),
        }
    }

    fn err(rule: usize, msg: &str) -> RunError {
        RunError {
            rule,
            message: msg.to_string(),
        }
    }

    fn eval(&self, e: &Expr, cx: &Ctx) -> Result<i64, RunError> {
        let over = || Self::err(cx.rule, "overflow or division by zero");
        Ok(match e {
            Expr::Int(v) => *v,
            Expr::State(side, st) => cx.vals[side.resolve(cx.acting)][*st],
            Expr::Neg(a) => self.eval(a, cx)?.checked_neg().ok_or_else(over)?,
            Expr::Bin(op, a, b) => {
                let (a, b) = (self.eval(a, cx)?, self.eval(b, cx)?);
                match op {
                    Bin::Add => a.checked_add(b),
                    Bin::Sub => a.checked_sub(b),
                    Bin::Mul => a.checked_mul(b),
                    Bin::Div => a.checked_div(b),
                    Bin::Mod => a.checked_rem(b),
                }
                .ok_or_else(over)?
            }
            Expr::Min(a, b) => self.eval(a, cx)?.min(self.eval(b, cx)?),
            Expr::Max(a, b) => self.eval(a, cx)?.max(self.eval(b, cx)?),
            Expr::Abs(a) => self.eval(a, cx)?.checked_abs().ok_or_else(over)?,
            Expr::Rand(slot, a, b) => {
                let (lo, hi) = (self.eval(a, cx)?, self.eval(b, cx)?);
                let Some(f) = &self.draw else {
                    return Err(Self::err(cx.rule, "rand without a draw function"));
                };
                if lo > hi {
                    return Err(Self::err(cx.rule, "rand with an empty range"));
                }
                f(cx.turn, cx.acting, cx.rule, *slot, lo, hi)
            }
        })
    }

    fn cond_holds(&self, c: &Cond, cx: &Ctx) -> Result<bool, RunError> {
        Ok(match c {
            Cond::Truth { neg, side, state } => {
                (cx.vals[side.resolve(cx.acting)][*state] != 0) != *neg
            }
            Cond::Cmp { op, lhs, rhs } => {
                let (a, b) = (self.eval(lhs, cx)?, self.eval(rhs, cx)?);
                match op {
                    CmpOp::Eq => a == b,
                    CmpOp::Ne => a != b,
                    CmpOp::Lt => a < b,
                    CmpOp::Le => a <= b,
                    CmpOp::Gt => a > b,
                    CmpOp::Ge => a >= b,
                }
            }
            Cond::Cmd {
                neg,
                opp,
                back,
                cmd,
            } => {
                let side = if *opp { 1 - cx.acting } else { cx.acting };
                let h = &cx.hist[side];
                // Before the first turn a position holds no command.
                let at = if *back < h.len() {
                    h[h.len() - 1 - back]
                } else {
                    None
                };
                (at == Some(*cmd)) != *neg
            }
        })
    }

    /// Reading 6: one condition false (without error) decides; an error only counts when nothing
    /// else is false.
    fn all_hold_independent(&self, conds: &[Cond], cx: &Ctx) -> Result<bool, RunError> {
        let mut error = None;
        for c in conds {
            match self.cond_holds(c, cx) {
                Ok(true) => {}
                Ok(false) => return Ok(false),
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        }
        error.map_or(Ok(true), Err)
    }

    /// Command atoms first, then the rest left to right, each stopping at the first false one.
    fn all_hold_atoms_first(&self, conds: &[Cond], cx: &Ctx) -> Result<bool, RunError> {
        let atoms = conds.iter().filter(|c| matches!(c, Cond::Cmd { .. }));
        let others = conds.iter().filter(|c| !matches!(c, Cond::Cmd { .. }));
        for c in atoms.chain(others) {
            if !self.cond_holds(c, cx)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether an effect is applied in a phase by a rule.
    fn effect_in_phase(rule: &Rule, e: &Effect, phase: Phase) -> bool {
        let enable = matches!(e, Effect::Enable { .. });
        match phase {
            Phase::Availability => enable,
            Phase::Resolution => rule.has_cmd_atoms || !enable,
            Phase::EndCheck => true,
        }
    }

    /// Evaluates rule `ri` for `acting` and appends its writes for `phase`.
    fn fire(
        &self,
        ri: usize,
        phase: Phase,
        cx: &Ctx,
        out: &mut Vec<Write>,
    ) -> Result<(), RunError> {
        let rule = &self.prog.rules[ri];
        if !rule
            .effects
            .iter()
            .any(|e| Self::effect_in_phase(rule, e, phase))
        {
            return Ok(());
        }
        let held = match self.reading.condition_order {
            ConditionOrder::Independent => self.all_hold_independent(&rule.conds, cx)?,
            ConditionOrder::AtomsFirst => self.all_hold_atoms_first(&rule.conds, cx)?,
        };
        if !held && !rule.iff {
            return Ok(());
        }
        for e in &rule.effects {
            if !Self::effect_in_phase(rule, e, phase) {
                continue;
            }
            let (target, op, operand) = match e {
                // `::` inverts S.b ↔ !S.b and [X] ↔ ![X].
                Effect::Bool { side, state, value } => (
                    Target::State(side.resolve(cx.acting), *state),
                    Upd::Set,
                    i64::from(*value == held),
                ),
                Effect::Enable { opp, cmd, on } => {
                    let s = if *opp { 1 - cx.acting } else { cx.acting };
                    (Target::Flag(s, *cmd), Upd::Set, i64::from(*on == held))
                }
                Effect::Update {
                    side,
                    state,
                    op,
                    expr,
                } => (
                    Target::State(side.resolve(cx.acting), *state),
                    *op,
                    self.eval(expr, cx)?,
                ),
            };
            out.push(Write {
                writer: cx.acting,
                rule: ri,
                target,
                op,
                operand,
            });
        }
        Ok(())
    }

    /// Applies writes with the merge: per target, the other side's writes first, then the
    /// owner's, each in the order collected (file order).
    fn apply(g: &mut Game, writes: &[Write]) -> Result<(), RunError> {
        for owners_pass in [false, true] {
            for w in writes {
                if (w.writer == w.target.owner()) != owners_pass {
                    continue;
                }
                match w.target {
                    Target::Flag(s, c) => g.enabled[s][c] = w.operand != 0,
                    Target::State(s, st) => {
                        let cur = g.vals[s][st];
                        let v = match w.op {
                            Upd::Set => Some(w.operand),
                            Upd::Add => cur.checked_add(w.operand),
                            Upd::Sub => cur.checked_sub(w.operand),
                            Upd::Mul => cur.checked_mul(w.operand),
                            Upd::Div => cur.checked_div(w.operand),
                        };
                        g.vals[s][st] =
                            v.ok_or_else(|| Self::err(w.rule, "overflow or division by zero"))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The sides that choose now.
    pub fn movers(&self, g: &Game) -> Vec<usize> {
        if self.prog.simultaneous {
            vec![H, C]
        } else {
            vec![g.to_move]
        }
    }

    /// Step 1 for `sides`, evaluated on one state and merged.
    fn availability(&self, g: &mut Game, sides: &[usize]) -> Result<(), RunError> {
        let mut writes = Vec::new();
        for &s in sides {
            let n = g.own_turns[s] + 1;
            for (ri, r) in self.prog.rules.iter().enumerate() {
                if r.has_cmd_atoms || !n.is_multiple_of(r.period) {
                    continue;
                }
                let cx = Ctx {
                    vals: &g.vals,
                    hist: &g.hist,
                    acting: s,
                    turn: g.turn,
                    rule: ri,
                };
                self.fire(ri, Phase::Availability, &cx, &mut writes)?;
            }
        }
        Self::apply(g, &writes)
    }

    /// The starting position, with the side(s) to move' availability run.
    pub fn initial(&self, first: usize) -> Result<Game, RunError> {
        let p = self.prog;
        let mut g = Game {
            vals: p.init_vals.clone(),
            enabled: p.init_enabled.clone(),
            hist: [vec![], vec![]],
            own_turns: [0, 0],
            turn: 0,
            to_move: first,
            outcome: None,
        };
        let movers = self.movers(&g);
        self.availability(&mut g, &movers)?;
        Ok(g)
    }

    /// The enabled commands of a side, in command order.
    pub fn enabled_commands(&self, g: &Game, side: usize) -> Vec<usize> {
        (0..self.prog.commands.len())
            .filter(|&c| g.enabled[side][c])
            .collect()
    }

    /// Plays one turn; `cmds[s]` for each side to move (a command not enabled is a pass).
    pub fn play(&self, g: &mut Game, cmds: [Option<usize>; 2]) -> Result<(), RunError> {
        if g.outcome.is_some() {
            return Ok(());
        }
        let movers = self.movers(g);
        g.turn += 1;
        // Step 2: choice.
        for &s in &movers {
            let c = cmds[s].filter(|&c| c < self.prog.commands.len() && g.enabled[s][c]);
            g.hist[s].push(c);
            if g.hist[s].len() > self.prog.hist_len {
                g.hist[s].remove(0);
            }
            g.own_turns[s] += 1;
        }
        // Step 3: resolution on one snapshot.
        let snapshot = g.vals.clone();
        let mut writes = Vec::new();
        for &s in &movers {
            let n = g.own_turns[s];
            for (ri, r) in self.prog.rules.iter().enumerate() {
                if !n.is_multiple_of(r.period)
                    || (r.victory && !self.reading.victory_rules_in_resolution)
                {
                    continue;
                }
                let cx = Ctx {
                    vals: &snapshot,
                    hist: &g.hist,
                    acting: s,
                    turn: g.turn,
                    rule: ri,
                };
                self.fire(ri, Phase::Resolution, &cx, &mut writes)?;
            }
        }
        Self::apply(g, &writes)?;
        // Step 4: the end check, both sides on one state.
        let after = g.vals.clone();
        let mut writes = Vec::new();
        for s in [H, C] {
            let n = g.own_turns[s];
            for (ri, r) in self.prog.rules.iter().enumerate() {
                if !r.victory || (r.periodic && (n == 0 || !n.is_multiple_of(r.period))) {
                    continue;
                }
                let cx = Ctx {
                    vals: &after,
                    hist: &g.hist,
                    acting: s,
                    turn: g.turn,
                    rule: ri,
                };
                self.fire(ri, Phase::EndCheck, &cx, &mut writes)?;
            }
        }
        Self::apply(g, &writes)?;
        let (win, lose) = (self.prog.win, self.prog.lose);
        let won = |s: usize| g.vals[s][win] != 0 || g.vals[1 - s][lose] != 0;
        g.outcome = match (won(H), won(C)) {
            (true, true) => Some(Outcome::Draw),
            (true, false) => Some(Outcome::H),
            (false, true) => Some(Outcome::C),
            (false, false) if g.turn >= self.prog.turn_limit => Some(Outcome::Draw),
            _ => None,
        };
        if g.outcome.is_some() {
            return Ok(());
        }
        if !self.prog.simultaneous {
            g.to_move = 1 - g.to_move;
        }
        let next = self.movers(g);
        self.availability(g, &next)
    }

    /// The moves of one turn: one side's choices (alternate) or all joint choices
    /// (simultaneous); a side with nothing enabled has the single move "pass".
    pub fn moves(&self, g: &Game) -> Vec<[Option<usize>; 2]> {
        let mut lists: [Vec<Option<usize>>; 2] = [vec![None], vec![None]];
        for s in self.movers(g) {
            let e = self.enabled_commands(g, s);
            if !e.is_empty() {
                lists[s] = e.into_iter().map(Some).collect();
            }
        }
        let mut out = Vec::new();
        for &a in &lists[0] {
            for &b in &lists[1] {
                out.push([a, b]);
            }
        }
        out
    }

    /// Perft: `counts[d-1]` = number of move sequences of exactly d turns, d in 1..=depth
    /// (games decided earlier are not continued).
    pub fn perft(&self, g: &Game, depth: usize) -> Result<Vec<u64>, RunError> {
        let mut counts = vec![0; depth];
        self.perft_rec(g, 0, &mut counts)?;
        Ok(counts)
    }

    fn perft_rec(&self, g: &Game, d: usize, counts: &mut [u64]) -> Result<(), RunError> {
        if d == counts.len() || g.outcome.is_some() {
            return Ok(());
        }
        for m in self.moves(g) {
            let mut next = g.clone();
            self.play(&mut next, m)?;
            counts[d] += 1;
            self.perft_rec(&next, d + 1, counts)?;
        }
        Ok(())
    }
}
