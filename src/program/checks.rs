//! Semantic checks on a lowered program: names that are read but never set, commands that can
//! never be enabled or are never used, keys bound to nothing (from the facts lowering gathers),
//! and rule-level warnings on a program that compiled (W017, W018).

use super::facts::Facts;
use super::*;
use crate::diag::{DiagCode, Diagnostic, FixHint, did_you_mean};
use crate::expand::Expanded;
use crate::syntax::names::{NameId, Names};
use crate::syntax::parser::{LOSE, WIN};
use rustc_hash::FxHashMap as HashMap;

/// Whole-program checks of names: E042, and the warnings W010, W011, W012, W013 and W016
/// (which wait while the file has errors: they would only echo a broken line — one that would
/// have enabled a command or set a state).
pub(super) fn names(
    x: &Expanded,
    first_rule: Option<Span>,
    names: &Names,
    facts: &Facts,
    anyone_wins: bool,
    diags: &mut Vec<Diagnostic>,
) {
    unmentioned_keys(x, names, facts, diags);
    if diags.iter().any(|d| d.is_error()) {
        return;
    }
    set_never_read(names, facts, diags);
    read_never_set(names, facts, diags);
    never_enabled(names, facts, diags);
    never_used(names, facts, diags);
    if !anyone_wins {
        no_win(first_rule, diags);
    }
}

/// E042: keys bound to commands nothing else mentions.
fn unmentioned_keys(x: &Expanded, names: &Names, facts: &Facts, diags: &mut Vec<Diagnostic>) {
    for k in &x.keys {
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
}

/// W016: states set by rules but never read — a misspelt name in an effect (体カ for 体力)
/// makes a new state that nothing looks at.
fn set_never_read(names: &Names, facts: &Facts, diags: &mut Vec<Diagnostic>) {
    let read: rustc_hash::FxHashSet<NameId> = facts.state_read.iter().map(|(n, _)| *n).collect();
    let read_names: Vec<&str> = read.iter().map(|n| names.get(*n)).collect();
    let mut warned = rustc_hash::FxHashSet::default();
    for (n, span) in facts.state_effect.iter() {
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
}

/// W010: states read but never set or initialised.
fn read_never_set(names: &Names, facts: &Facts, diags: &mut Vec<Diagnostic>) {
    let mut warned = rustc_hash::FxHashSet::default();
    let set_names: Vec<&str> = facts.state_set.keys().map(|n| names.get(*n)).collect();
    for (n, span) in facts.state_read.iter() {
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
}

/// W011: commands that can never become enabled.
fn never_enabled(names: &Names, facts: &Facts, diags: &mut Vec<Diagnostic>) {
    let mut warned = rustc_hash::FxHashSet::default();
    let enable_names: Vec<&str> = facts.cmd_enable.keys().map(|n| names.get(*n)).collect();
    for (n, span) in facts.cmd_mention.iter() {
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
}

/// W012: commands enabled but used by no rule.
fn never_used(names: &Names, facts: &Facts, diags: &mut Vec<Diagnostic>) {
    let mut enabled: Vec<(&NameId, &Span)> = facts.cmd_enable.iter().collect();
    enabled.sort_by_key(|(_, s)| s.start);
    let used_names: Vec<&str> = facts.cmd_used.keys().map(|n| names.get(*n)).collect();
    for (n, span) in enabled.into_iter() {
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
}

/// W013: no rule lets anyone win.
fn no_win(first_rule: Option<Span>, diags: &mut Vec<Diagnostic>) {
    let span = first_rule.unwrap_or(0..0);
    diags.push(
        Diagnostic::warning(DiagCode::W013, span, "no rule lets anyone win")
            .with_help("add a rule with the effect S.勝利 (or O.敗北), e.g. O.体力<=0:S.勝利; without one every match ends at the turn limit"),
    );
}

/// Rule-level warnings on a program that compiled: chance in victory rules (W017) and
/// availability lines whose order decides (W018).
pub(super) fn lint_rules(p: &RuleProgram, diags: &mut Vec<Diagnostic>) {
    // W017: a victory rule is checked at every end check; a draw in it is made again each
    // time, so "a 50% knockout" while the condition holds wins far more often than half.
    let mut seen = rustc_hash::FxHashSet::default();
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
    let mut warned = rustc_hash::FxHashSet::default();
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
