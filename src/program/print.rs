//! Printing: the program and the syntax written back as rule text — expressions with only the
//! parentheses they need, conditions, effects, rules, settings, and the whole expanded program
//! as a `.kmt` file (`kumite expand`).

use super::*;
use crate::expand::Expanded;
use crate::syntax::names::Names;
use std::fmt::Write as _;

impl RuleProgram {
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
        let period = if r.periodic {
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
    /// A hash of what the rules do rather than how their text is written: states, commands,
    /// start values, settings, every expanded rule and advantage line (with its weight) as
    /// compiled — so comments, spacing, full-width forms and macros written out or not leave it
    /// alone, and any change of a number, a rule or a name changes it. A learned evaluation is
    /// kept for the rules of this hash (`kumite train`).
    pub fn behaviour_hash(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(
            s,
            // The closing `[]` held the banned commands when the program carried them (now
            // in `RunConfig`): kept so the hashes learned evaluations were written with hold.
            "{:?}|{:?}|{:?}|{:?}|{:?}|[]",
            self.states, self.commands, self.init_values, self.init_enabled, self.settings,
        );
        for i in 0..self.rules.len() {
            let _ = writeln!(s, "{}", self.rule_text(i));
        }
        for (i, a) in self.adv.iter().enumerate() {
            let _ = writeln!(s, "{}×{}", a.weight, self.adv_text(i));
        }
        super::text_hash(&s)
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
}

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
        None => String::new(),
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
/// its origin. `settings` are the program's (with defaults filled in) when it compiled; else
/// the expansion's settings are applied to the defaults. Checking the output gives the same
/// program as the original.
pub fn expanded_text(
    x: &Expanded,
    names: &Names,
    settings: Option<&Settings>,
    source_name: &str,
) -> String {
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
                    format!("{p}{}={}", names.get(*name), value.fold().unwrap_or(0))
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
    let settings = settings.cloned().unwrap_or_else(|| {
        let mut s = Settings::default();
        for (st, _) in &x.settings {
            s.apply(st);
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
