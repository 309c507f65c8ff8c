//! The engine's tables, built once per program by [`Engine::new`]: rules per command, conditions
//! pre-decoded for speed, the compact availability rules, and the direct resolution path where
//! the program allows it.

use super::*;
use crate::program::{CEffect, RunConfig};
use crate::side::Side;

impl<'p> Engine<'p> {
    /// A new engine with the default [`RunConfig`] (nothing banned).
    pub fn new(prog: &'p RuleProgram, seed: u64) -> Self {
        Self::with_config(prog, seed, &RunConfig::default())
    }

    /// A new engine for one run of `prog` under `config`: its tables built in phases (see the
    /// functions below).
    pub fn with_config(prog: &'p RuleProgram, seed: u64, config: &RunConfig) -> Self {
        let hl = (prog.max_seq[0].max(prog.max_seq[1]) as usize).max(1);
        let avail_rules: Vec<u32> = (0..prog.rules.len() as u32)
            .filter(|&i| !prog.rules[i as usize].has_cmd_atoms && prog.rules[i as usize].has_enable)
            .collect();
        let victory_rules: Vec<u32> = (0..prog.rules.len() as u32)
            .filter(|&i| prog.rules[i as usize].victory)
            .collect();
        let need_cmd = needed_commands(prog);
        let mut fast = fast_conditions(prog, hl);
        let binary_draws = binary_draws(prog);
        let by_cmd = rules_by_command(prog, &need_cmd);
        // Alternate mode: one side resolves, so the direct path is exact whatever the rules
        // read and write (a list that needs it evaluates everything before applying anything,
        // see `direct_path`).
        let direct = !prog.settings.simultaneous || direct_resolution(prog, &by_cmd, &fast);
        let (avail_fast, avail_en) = compact_availability(prog, &avail_rules, &fast);
        let effect_const = prog
            .effects
            .iter()
            .map(|e| match *e {
                CEffect::Update { expr, .. } => match prog.code_of(expr) {
                    [Op::Push(v)] => Some(*v),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let value_draws = prog.effects.iter().any(|e| match *e {
            CEffect::Update { expr, .. } => prog
                .code_of(expr)
                .iter()
                .any(|op| matches!(op, Op::Rand(_))),
            _ => false,
        });
        let (direct_lists, direct_rules, direct_fx) = if direct {
            direct_path(prog, &by_cmd, &need_cmd, &mut fast, hl)
        } else {
            Default::default()
        };
        let cond_draws = direct_lists.iter().any(|l| l.3);
        let flat_avail = avail_fast.as_deref().and_then(|a| {
            plain::flat_availability(a, &avail_en, &fast, prog.settings.simultaneous)
        });
        let flat_victory = flat_victory(prog, &victory_rules, &fast);
        let mut eng = Self {
            flat_victory,
            flat_avail,
            direct_lists,
            direct_rules,
            direct_fx,
            effect_const,
            avail_fast,
            avail_cross: avail_en.iter().any(|e| e.2),
            avail_en,
            direct,
            by_cmd,
            need_cmd,
            fast,
            prog,
            seed,
            ns: prog.states.len(),
            nc: prog.commands.len(),
            hl,
            simultaneous: prog.settings.simultaneous,
            avail_rules,
            victory_rules,
            scratch: RefCell::new(Scratch::default()),
            binary_draws,
            scripted: Cell::new(false),
            script: RefCell::new(ChanceScript::default()),
            draws_made: Cell::new(0),
            value_draws,
            cond_draws,
            replay: RefCell::new(Replay::default()),
            fires: None,
            chance: None,
            ready: None,
            turn_limit: prog.settings.turn_limit,
            config: config.clone(),
        };
        // With flat availability the starting position's availability is the same for every
        // game (range tests on the initial values, nothing drawn): computed once here.
        if eng.flat_avail.is_some()
            && let (Ok(a), Ok(b)) = (eng.initial(Side::H), eng.initial(Side::C))
        {
            eng.ready = Some(Box::new([a, b]));
        }
        eng
    }

    /// The same engine with its fast paths off (resolution always collects writes on the
    /// snapshot first): the plain §8 algorithm, which tests compare the fast paths against.
    pub fn reference(mut self) -> Self {
        self.direct = false;
        self
    }

    /// Whether resolution takes the direct fast path (see [`Engine::reference`]).
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    /// The same engine counting how often each rule fires (its conditions hold where it is
    /// evaluated: in resolution, in the end check, and in availability), with the fast paths
    /// off so that every rule is evaluated by itself. See [`Engine::take_fires`].
    pub fn counting(mut self) -> Self {
        self.direct = false;
        self.avail_fast = None;
        self.flat_avail = None;
        self.flat_victory = None;
        self.ready = None;
        self.fires = Some(RefCell::new(vec![0; self.prog.rules.len()]));
        self
    }
}

/// The victory rules as [`FlatVictory`] entries, when every one has only fast conditions (no
/// expression to evaluate, so none can fail) and only sets 勝利 or 敗北 (not `::`): all writes
/// then set a flag to 1, and the merge of §8 is applying them after every rule was evaluated.
fn flat_victory(
    prog: &RuleProgram,
    victory_rules: &[u32],
    fast: &[Fast],
) -> Option<Vec<FlatVictory>> {
    if victory_rules.is_empty() {
        return None; // nothing to check
    }
    victory_rules
        .iter()
        .map(|&ri| {
            let r = &prog.rules[ri as usize];
            let conds_fast = fast[r.conds.0 as usize..r.conds.1 as usize]
                .iter()
                .all(|f| !f.needs_eval());
            if r.iff || !conds_fast {
                return None;
            }
            let mut sets = [0u8; 2];
            for e in prog.rule_effects(r) {
                match *e {
                    CEffect::Bool {
                        side,
                        state,
                        value: true,
                    } if state == WIN_STATE || state == LOSE_STATE => {
                        for (acting, set) in sets.iter_mut().enumerate() {
                            let k = side.resolve(Side::from_index(acting)).index() * 2
                                + usize::from(state == LOSE_STATE);
                            *set |= 1 << k;
                        }
                    }
                    _ => return None,
                }
            }
            Some(FlatVictory {
                // 0: no period (`@1/` is a period: never checked before a side's first turn).
                period: if r.periodic { r.period } else { 0 },
                conds: r.conds,
                sets,
            })
        })
        .collect()
}

/// Per rule: the acting side's command it needs this turn (NONE if none), checked first.
fn needed_commands(prog: &RuleProgram) -> Vec<u32> {
    prog.rules
        .iter()
        .map(|r| {
            prog.rule_conds(r)
                .iter()
                .find_map(|c| match *c {
                    CCond::Cmd {
                        neg: false,
                        opp: false,
                        back: 0,
                        cmd,
                    } => Some(cmd),
                    _ => None,
                })
                .unwrap_or(NONE)
        })
        .collect()
}

/// Per condition: its pre-decoded fast form, with indices for either acting side.
fn fast_conditions(prog: &RuleProgram, hl: usize) -> Vec<Fast> {
    prog.conds.iter().map(|c| fast_of(prog, hl, c)).collect()
}

/// One condition's fast form (see [`Fast`]).
pub(super) fn fast_of(prog: &RuleProgram, hl: usize, c: &CCond) -> Fast {
    let ns = prog.states.len();
    match *c {
        CCond::Cmp { op, lhs, rhs } => match (prog.code_of(lhs), prog.code_of(rhs)) {
            ([Op::Load(who, id)], [Op::Push(k)]) => range_of(val_off(*who, *id, ns), op, *k),
            ([Op::Push(k)], [Op::Load(who, id)]) => {
                range_of(val_off(*who, *id, ns), op.mirrored(), *k)
            }
            ([Op::Load(a, i)], [Op::Load(b, j)]) => Fast::Pair {
                lhs: val_off(*a, *i, ns),
                rhs: val_off(*b, *j, ns),
                op,
            },
            ([Op::Push(lo), Op::Push(hi), Op::Rand(slot)], [Op::Push(k)]) if lo <= hi => {
                Fast::Draw {
                    lo: *lo,
                    hi: *hi,
                    slot: *slot,
                    op,
                    k: *k,
                }
            }
            ([Op::Push(k)], [Op::Push(lo), Op::Push(hi), Op::Rand(slot)]) if lo <= hi => {
                Fast::Draw {
                    lo: *lo,
                    hi: *hi,
                    slot: *slot,
                    op: op.mirrored(),
                    k: *k,
                }
            }
            _ => Fast::General,
        },
        // Non-zero is "not in [0, 0]".
        CCond::Truth { neg, side, state } => Fast::Range {
            off: val_off(side, state, ns),
            lo: 0,
            hi: 0,
            neg: !neg,
        },
        CCond::Cmd {
            neg,
            opp,
            back,
            cmd,
        } => {
            // Index into the history for each acting side (NONE_AT: before the kept
            // history, i.e. no command).
            let at = |acting: usize| {
                let s = crate::side::relative(opp, Side::from_index(acting));
                if (back as usize) < hl {
                    (s.index() * hl + back as usize) as u32
                } else {
                    NONE_AT
                }
            };
            Fast::Cmd {
                off: [at(0), at(1)],
                cmd,
                neg,
            }
        }
    }
}

/// The draws that only decide one comparison with a constant (`rand(1,100)<=30`).
fn binary_draws(prog: &RuleProgram) -> Vec<BinaryDraw> {
    let mut binary_draws = Vec::new();
    for (ri, r) in prog.rules.iter().enumerate() {
        for c in prog.rule_conds(r) {
            let CCond::Cmp { op, lhs, rhs } = *c else {
                continue;
            };
            let only_rand_last = |code: &[Op]| match code.split_last() {
                Some((Op::Rand(s), rest)) => {
                    (!rest.iter().any(|o| matches!(o, Op::Rand(_)))).then_some(*s)
                }
                _ => None,
            };
            let (l, rc) = (prog.code_of(lhs), prog.code_of(rhs));
            let found = match (only_rand_last(l), rc, l, only_rand_last(rc)) {
                (Some(slot), [Op::Push(k)], _, _) => Some((slot, op, *k)),
                (_, _, [Op::Push(k)], Some(slot)) => Some((slot, op.mirrored(), *k)),
                _ => None,
            };
            if let Some((slot, op, k)) = found {
                binary_draws.push(BinaryDraw {
                    rule: ri as u32,
                    slot,
                    op,
                    k,
                });
            }
        }
    }
    binary_draws
}

/// Per command (and one more list for a pass, last): the rules that can matter when the acting
/// side plays it, in file order.
fn rules_by_command(prog: &RuleProgram, need_cmd: &[u32]) -> Vec<Vec<u32>> {
    let nc = prog.commands.len();
    (0..=nc as u32)
        .map(|c| {
            let c = if c as usize == nc { NONE } else { c };
            (0..prog.rules.len() as u32)
                .filter(|&i| {
                    let r = &prog.rules[i as usize];
                    // Availability-only rules (no command atoms, only enable effects) do
                    // nothing in resolution.
                    let only_enables = prog
                        .rule_effects(r)
                        .iter()
                        .all(|e| matches!(e, CEffect::Enable { .. }));
                    if !r.has_cmd_atoms && only_enables {
                        return false;
                    }
                    let need: u32 = need_cmd[i as usize];
                    need == NONE || need == c || r.iff
                })
                .collect()
        })
        .collect()
}

/// The availability rules in compact form (None when one of them has a condition that needs an
/// expression evaluated), and their enable effects.
#[allow(clippy::type_complexity)]
fn compact_availability(
    prog: &RuleProgram,
    avail_rules: &[u32],
    fast: &[Fast],
) -> (Option<Vec<Avail>>, Vec<([u32; 2], bool, bool)>) {
    let mut avail_en = Vec::new();
    let avail_fast = avail_rules
        .iter()
        .map(|&ri: &u32| {
            let r = &prog.rules[ri as usize];
            let conds = &fast[r.conds.0 as usize..r.conds.1 as usize];
            if conds.iter().any(Fast::needs_eval) {
                return None;
            }
            let e0 = avail_en.len() as u32;
            for e in prog.rule_effects(r) {
                if let CEffect::Enable { opp, cmd, on } = *e {
                    // The flag's index in `State::enabled` for either acting side.
                    let at = |acting: usize| {
                        let s = crate::side::relative(opp, Side::from_index(acting));
                        (s.index() * prog.commands.len() + cmd as usize) as u32
                    };
                    avail_en.push(([at(0), at(1)], on, opp));
                }
            }
            Some(Avail {
                period: r.period,
                iff: r.iff,
                conds: r.conds,
                en: (e0, avail_en.len() as u32),
            })
        })
        .collect::<Option<Vec<Avail>>>();
    (avail_fast, avail_en)
}

/// The direct path's rule lists per command, its rules and its effects (conditions a list's
/// command already meets are dropped; their copies go at the end of `fast`).
#[allow(clippy::type_complexity)]
fn direct_path(
    prog: &RuleProgram,
    by_cmd: &[Vec<u32>],
    need_cmd: &[u32],
    fast: &mut Vec<Fast>,
    hl: usize,
) -> (Vec<(u32, u32, bool, bool)>, Vec<DirectRule>, Vec<DirectFx>) {
    let nc = prog.commands.len();
    let (mut direct_lists, mut direct_rules, mut direct_fx) = (vec![], vec![], vec![]);
    let ns = prog.states.len();
    for (c, list) in by_cmd.iter().enumerate() {
        let l0 = direct_rules.len() as u32;
        // A state a rule of this list reads after an earlier one (or an earlier effect of
        // the same rule) wrote it, or an evaluation that can fail: the list is resolved in
        // two phases (see `Engine::resolve_two_phase`).
        let mut two_phase = false;
        let mut written = std::collections::HashSet::new();
        for &ri in list {
            let r = &prog.rules[ri as usize];
            let read = |code: &[Op], written: &std::collections::HashSet<u32>| {
                code.iter()
                    .any(|op| matches!(op, Op::Load(_, id) if written.contains(id)))
            };
            for (k, cond) in prog.rule_conds(r).iter().enumerate() {
                two_phase |= fast[r.conds.0 as usize + k].needs_eval();
                two_phase |= match *cond {
                    CCond::Truth { state, .. } => written.contains(&state),
                    CCond::Cmp { lhs, rhs, .. } => {
                        read(prog.code_of(lhs), &written) || read(prog.code_of(rhs), &written)
                    }
                    CCond::Cmd { .. } => false,
                };
            }
            for e in prog.rule_effects(r) {
                match *e {
                    CEffect::Bool { state, .. } => {
                        written.insert(state);
                    }
                    CEffect::Update { state, expr, .. } => {
                        let code = prog.code_of(expr);
                        two_phase |= !matches!(code, [Op::Push(_)]) || read(code, &written);
                        written.insert(state);
                    }
                    CEffect::Enable { .. } => {}
                }
            }
        }
        for &ri in list {
            let r = &prog.rules[ri as usize];
            // (A drawn condition, `rand(1,100)<=30`, is tested in place, see
            // `Engine::fast_conds_drawing`.)
            let general = fast[r.conds.0 as usize..r.conds.1 as usize]
                .iter()
                .any(|f| matches!(f, Fast::General));
            // In the list of the command a rule needs, that need is already met: its
            // condition is dropped (a copy of the other conditions goes at the end of
            // `fast`), so the turn tests only what can still fail. (A rule with a condition
            // to evaluate keeps its own, which the general test reads.)
            let (mut need, mut conds) = (need_cmd[ri as usize], r.conds);
            if need != NONE && need as usize == c && !general {
                let at = |f: &Fast| {
                    matches!(*f, Fast::Cmd { off, cmd, neg: false }
                            if cmd == need && off == [0, hl as u32])
                };
                let own = fast[r.conds.0 as usize..r.conds.1 as usize].to_vec();
                if let Some(k) = own.iter().position(at) {
                    let c0 = fast.len() as u32;
                    fast.extend(own.iter().enumerate().filter(|e| e.0 != k).map(|e| *e.1));
                    (need, conds) = (NONE, (c0, fast.len() as u32));
                }
            }
            let f0 = direct_fx.len() as u32;
            for e in prog.rule_effects(r) {
                direct_fx.push(match *e {
                    CEffect::Bool { side, state, value } => DirectFx::Bool {
                        off: val_off(side, state, ns),
                        value,
                    },
                    CEffect::Update {
                        side,
                        state,
                        op,
                        expr,
                    } => {
                        let off = val_off(side, state, ns);
                        let v = match prog.code_of(expr) {
                            [Op::Push(v)] => *v,
                            _ => {
                                direct_fx.push(DirectFx::Expr { off, op, expr });
                                continue;
                            }
                        };
                        match (op, v.checked_neg()) {
                            (UpdOp::Add, _) => DirectFx::Add { off, v, sub: false },
                            (UpdOp::Sub, Some(neg)) => DirectFx::Add {
                                off,
                                v: neg,
                                sub: true,
                            },
                            _ => DirectFx::Update { off, op, v },
                        }
                    }
                    CEffect::Enable { opp, cmd, on } => {
                        if !r.has_cmd_atoms {
                            continue; // belongs to availability
                        }
                        let at = |acting: usize| {
                            let s = crate::side::relative(opp, Side::from_index(acting));
                            (s.index() * nc + cmd as usize) as u32
                        };
                        DirectFx::Flag {
                            off: [at(0), at(1)],
                            on,
                        }
                    }
                });
            }
            direct_rules.push(DirectRule {
                rule: ri,
                period: r.period,
                need,
                conds,
                iff: r.iff,
                general,
                fx: (f0, direct_fx.len() as u32),
            });
        }
        // A rule of the list (kept on the direct path) draws in a condition.
        let draws = direct_rules[l0 as usize..].iter().any(|r| {
            fast[r.conds.0 as usize..r.conds.1 as usize]
                .iter()
                .any(|f| matches!(f, Fast::Draw { .. }))
        });
        direct_lists.push((l0, direct_rules.len() as u32, two_phase, draws));
    }
    (direct_lists, direct_rules, direct_fx)
}

/// Whether simultaneous resolution can apply effects at once instead of collecting writes (in
/// alternate mode one side resolves and the direct path is always exact, see `Engine::new`):
/// every condition
/// of the rules that take part in resolution has a fast form (no expression to evaluate, so no
/// runtime error), every numeric operand is a constant, no such rule reads a state that one of
/// them writes (so the live state equals the snapshot for everything read), and — in
/// simultaneous mode — every effect is on the acting side's own states and commands (so §8's
/// "other side's writes first" pass is empty and the application order is file order per side).
pub(super) fn direct_resolution(prog: &RuleProgram, by_cmd: &[Vec<u32>], fast: &[Fast]) -> bool {
    let mut rules: Vec<u32> = by_cmd.iter().flatten().copied().collect();
    rules.sort_unstable();
    rules.dedup();
    let mut read = std::collections::HashSet::new();
    let mut written = std::collections::HashSet::new();
    for &ri in &rules {
        let r = &prog.rules[ri as usize];
        for (k, c) in prog.rule_conds(r).iter().enumerate() {
            match (fast[r.conds.0 as usize + k], c) {
                (f, _) if f.needs_eval() => return false,
                (_, CCond::Truth { state, .. }) => {
                    read.insert(*state);
                }
                (_, CCond::Cmp { lhs, rhs, .. }) => {
                    // Either side of a comparison may hold the state (`3<S.x` as well as
                    // `S.x>3`).
                    for op in prog.code_of(*lhs).iter().chain(prog.code_of(*rhs)) {
                        if let Op::Load(_, id) = op {
                            read.insert(*id);
                        }
                    }
                }
                _ => {}
            }
        }
        for e in prog.rule_effects(r) {
            match *e {
                CEffect::Bool { side, state, .. } => {
                    if prog.settings.simultaneous && side != SideRef::S {
                        return false;
                    }
                    written.insert(state);
                }
                CEffect::Update {
                    side, state, expr, ..
                } => {
                    if prog.settings.simultaneous && side != SideRef::S {
                        return false;
                    }
                    if !matches!(prog.code_of(expr), [Op::Push(_)]) {
                        return false;
                    }
                    written.insert(state);
                }
                CEffect::Enable { opp, .. } => {
                    if prog.settings.simultaneous && opp {
                        return false;
                    }
                }
            }
        }
    }
    read.is_disjoint(&written)
}

/// A victory rule with fast conditions that sets 勝利/敗北 flags (see `flat_victory`).
#[derive(Clone, Copy, Debug)]
pub(super) struct FlatVictory {
    pub(super) period: u32,
    pub(super) conds: (u32, u32),
    /// When side 0 or 1 acts: the flags it sets, bit `2 * side + (0: 勝利, 1: 敗北)`.
    pub(super) sets: [u8; 2],
}

/// A rule on the direct resolution path, compact.
#[derive(Clone, Copy, Debug)]
pub(super) struct DirectRule {
    pub(super) rule: u32,
    pub(super) period: u32,
    pub(super) need: u32,
    pub(super) conds: (u32, u32),
    pub(super) iff: bool,
    /// Some condition is an expression to evaluate: tested the general way, with the rule's
    /// own conditions.
    pub(super) general: bool,
    pub(super) fx: (u32, u32),
}

/// An effect on the direct path, with its target's index for either acting side.
#[derive(Clone, Copy, Debug)]
pub(super) enum DirectFx {
    Bool {
        off: [u32; 2],
        value: bool,
    },
    Update {
        off: [u32; 2],
        op: UpdOp,
        v: i64,
    },
    /// `+ v`, or `- k` stored as `+ -k` (`sub`): the common update without dispatching on the
    /// operator.
    Add {
        off: [u32; 2],
        v: i64,
        sub: bool,
    },
    Flag {
        off: [u32; 2],
        on: bool,
    },
    /// An update whose operand is an expression (its list resolves in two phases).
    Expr {
        off: [u32; 2],
        op: UpdOp,
        expr: (u32, u32),
    },
}

/// An availability rule, compact.
#[derive(Clone, Copy, Debug)]
pub(super) struct Avail {
    pub(super) period: u32,
    pub(super) iff: bool,
    pub(super) conds: (u32, u32),
    pub(super) en: (u32, u32),
}

/// A condition decoded for speed, with its indices resolved for either acting side.
#[derive(Clone, Copy, Debug)]
pub(super) enum Fast {
    /// `X.state` lies in [lo, hi] (`neg`: does not) — every comparison of one state with a
    /// constant, and every truth test, without dispatching on the operator. `off[s]` is the
    /// state's index in `State::vals` when side `s` acts.
    Range {
        off: [u32; 2],
        lo: i64,
        hi: i64,
        neg: bool,
    },
    /// A command `back` turns ago of self or the opponent: `off[s]` is its index in
    /// `State::hist` when side `s` acts ([`NONE_AT`]: before the kept history).
    Cmd { off: [u32; 2], cmd: u32, neg: bool },
    /// `X.a OP Y.b`, two states compared (`S.体力>O.体力`): `lhs[s]`, `rhs[s]` their indices
    /// in `State::vals` when side `s` acts.
    Pair {
        lhs: [u32; 2],
        rhs: [u32; 2],
        op: CmpOp,
    },
    /// `rand(lo,hi) OP k` with constant bounds (`rand(1,100)<=30`, or `k OP rand(..)` stored
    /// mirrored): one draw and one comparison, without the stack machine. Needs the turn and
    /// the rule (the draw's key), so [`Engine::fast_one`] leaves it to `holds`.
    Draw {
        lo: i64,
        hi: i64,
        slot: u16,
        op: CmpOp,
        k: i64,
    },
    /// Anything else: evaluate the general way.
    General,
}

impl Fast {
    /// Whether testing it needs more than the position (an expression, or a draw).
    pub(super) fn needs_eval(&self) -> bool {
        matches!(self, Fast::General | Fast::Draw { .. })
    }
}

/// A history index that means "no command".
pub(super) const NONE_AT: u32 = u32::MAX;

/// The index of `who.id` in `State::vals` when side 0 or side 1 acts.
pub(super) fn val_off(who: SideRef, id: u32, ns: usize) -> [u32; 2] {
    let at =
        |acting: usize| (who.resolve(Side::from_index(acting)).index() * ns + id as usize) as u32;
    [at(0), at(1)]
}

/// `X.state OP k` as a range test.
pub(super) fn range_of(off: [u32; 2], op: CmpOp, k: i64) -> Fast {
    let (lo, hi, neg) = match op {
        CmpOp::Eq => (k, k, false),
        CmpOp::Ne => (k, k, true),
        CmpOp::Lt => match k.checked_sub(1) {
            Some(h) => (i64::MIN, h, false),
            None => (1, 0, false), // empty: never holds
        },
        CmpOp::Le => (i64::MIN, k, false),
        CmpOp::Gt => match k.checked_add(1) {
            Some(l) => (l, i64::MAX, false),
            None => (1, 0, false),
        },
        CmpOp::Ge => (k, i64::MAX, false),
    };
    Fast::Range { off, lo, hi, neg }
}
