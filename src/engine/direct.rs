//! Resolution, the direct path: no writes collected. A rule list where [`super::tables`] proved
//! it exact applies each rule's effects as the rule is evaluated; any other list (alternate
//! mode, drawn values included) evaluates every rule first and then applies, in file order
//! ([`Engine::resolve_two_phase`]).
//! Either gives the reference path's result, errors included.

use super::*;
use crate::side::Side;

/// The expression operands the two-phase direct path holds for one list (more: the reference
/// way).
pub(super) const TWO_PHASE_VALUES: usize = 16;

impl<'p> Engine<'p> {
    /// `side`'s resolution when the engine takes the direct path. In a list marked two-phase,
    /// see [`Engine::resolve_two_phase`]; in any other each rule's effects are applied as
    /// soon as it is evaluated — no rule of the list reads what an earlier one writes, operands
    /// are constants and conditions cannot fail, so this is the snapshot semantics of §8 with
    /// the same order of application (and of overflow errors).
    #[inline(always)]
    pub(super) fn resolve_direct(&self, st: &mut State, side: Side) -> Res<()> {
        let n = st.own_turns[side];
        let now = st.hist[side.index() * self.hl];
        let (a, b, two_phase, draws) =
            self.direct_lists[if now == NONE { self.nc } else { now as usize }];
        if two_phase {
            return if draws {
                self.resolve_two_phase::<true>(st, side, (a, b))
            } else {
                self.resolve_two_phase::<false>(st, side, (a, b))
            };
        }
        for r in &self.direct_rules[a as usize..b as usize] {
            if r.period > 1 && !n.is_multiple_of(r.period) {
                continue;
            }
            let held = (r.need == NONE || r.need == now) && self.fast_conds(r.conds, st, side);
            if !held && !r.iff {
                continue;
            }
            for &fx in &self.direct_fx[r.fx.0 as usize..r.fx.1 as usize] {
                self.apply_fx(st, side, fx, held, r.rule, || {
                    unreachable!("an expression operand is two-phase")
                })?;
            }
        }
        Ok(())
    }

    /// One effect of `side`'s rule `rule` on the direct path (`held`: its conditions held; an
    /// update applies only then, a flag or truth value also when they failed in a `::` rule,
    /// whose caller passes it on). `value` gives an expression operand's value.
    #[inline(always)]
    fn apply_fx(
        &self,
        st: &mut State,
        side: Side,
        fx: DirectFx,
        held: bool,
        rule: u32,
        value: impl FnOnce() -> i64,
    ) -> Res<()> {
        match fx {
            DirectFx::Bool { off, value } => st.vals[off[side] as usize] = (held == value) as i64,
            DirectFx::Flag { off, on } => st.enabled[off[side] as usize] = held == on,
            DirectFx::Add { off, v, sub } if held => {
                let i = off[side] as usize;
                match st.vals[i].checked_add(v) {
                    Some(x) => st.vals[i] = x,
                    None => {
                        // Overflow, worded as written (`- k` was stored as `+ -k`).
                        let (op, value) = if sub {
                            (UpdOp::Sub, -v)
                        } else {
                            (UpdOp::Add, v)
                        };
                        return self.apply(st, &self.direct_write(i, side, op, value, rule), None);
                    }
                }
            }
            DirectFx::Update { off, op, v } if held => {
                self.update(st, off[side] as usize, side, op, v, rule)?;
            }
            DirectFx::Expr { off, op, .. } if held => {
                self.update(st, off[side] as usize, side, op, value(), rule)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// `vals[i] op= v` for `side`'s rule `rule`; an overflow or a division by zero is worded
    /// the general way.
    #[inline(always)]
    fn update(
        &self,
        st: &mut State,
        i: usize,
        side: Side,
        op: UpdOp,
        v: i64,
        rule: u32,
    ) -> Res<()> {
        match op.apply(st.vals[i], v) {
            Some(x) => {
                st.vals[i] = x;
                Ok(())
            }
            None => self.apply(st, &self.direct_write(i, side, op, v, rule), None),
        }
    }

    /// A list the direct path cannot apply rule by rule (a rule reads what an earlier one
    /// writes, or a condition or operand is an expression that may fail or draw): first every
    /// rule's conditions and every operand of a rule that holds are evaluated on the untouched
    /// position, in file order (so draws and errors come in the reference path's order and an
    /// error leaves the values untouched, as there); then the effects are applied in file order.
    /// The reference path's result without collecting writes. A scripted turn whose draws were
    /// all in operand values keeps its first phase, so that its other chance outcomes are
    /// replayed from it (`Engine::replay_scripted`), and so does one whose draws were all in
    /// `rand(lo,hi) OP k` conditions (`DRAWS`: the list has such a rule), each redone alone.
    /// A list of more than 64 rules or
    /// [`TWO_PHASE_VALUES`] expression operands is resolved the reference way.
    #[inline(never)]
    fn resolve_two_phase<const DRAWS: bool>(
        &self,
        st: &mut State,
        side: Side,
        list: (u32, u32),
    ) -> Res<()> {
        let rules = &self.direct_rules[list.0 as usize..list.1 as usize];
        if rules.len() > 64 {
            return self.resolve_collected(st, side);
        }
        let n = st.own_turns[side];
        let now = st.hist[side.index() * self.hl];
        let turn = st.turn;
        // A scripted turn whose values or `rand(lo,hi) OP k` conditions draw keeps its first
        // phase for the other outcomes (conditions: one side resolving, alternate mode).
        let scripted = self.scripted.get();
        let keep_conds = DRAWS && scripted && !self.simultaneous;
        let keep = (self.value_draws && scripted) || keep_conds;
        let mut replay = keep.then(|| self.replay.borrow_mut());
        if let Some(r) = replay.as_deref_mut() {
            r.drawn.clear();
            r.cond.clear();
        }
        let mut ph = TwoPhase {
            side,
            list,
            held: 0,
            iff: 0,
            values: [0; TWO_PHASE_VALUES],
            nv: 0,
        };
        {
            let mut guard = self.scratch.borrow_mut();
            let stack = &mut guard.stack;
            for (at, r) in rules.iter().enumerate() {
                let d0 = if DRAWS { self.draws_made.get() } else { 0 };
                let due = r.period <= 1 || n.is_multiple_of(r.period);
                ph.iff |= u64::from(r.iff && due) << at;
                let h = due
                    && if r.general {
                        let rule = &self.prog.rules[r.rule as usize];
                        self.holds(r.rule, rule, st, side, turn, stack)?
                    } else {
                        (r.need == NONE || r.need == now)
                            && if DRAWS {
                                self.fast_conds_drawing(r.conds, st, side, turn, r.rule)
                            } else {
                                self.fast_conds(r.conds, st, side)
                            }
                    };
                if keep_conds && self.draws_made.get() != d0 {
                    // It drew in a condition: the same draw comes in every outcome (the
                    // conditions before it read the position) and decides the rule with those
                    // after it. Not noted (so the turn is not kept, its draws not all noted)
                    // when the rule has two, or writes an expression, or is tested the general
                    // way.
                    let fx = &self.direct_fx[r.fx.0 as usize..r.fx.1 as usize];
                    if let (Some((lo, hi, op, k, after)), Some(rp)) =
                        (self.single_draw(r.conds, st, side), replay.as_deref_mut())
                        && !r.general
                        && !fx.iter().any(|f| matches!(f, DirectFx::Expr { .. }))
                    {
                        rp.cond.push(CondDraw {
                            at: at as u32,
                            lo,
                            hi,
                            op,
                            k,
                            after,
                        });
                    }
                }
                if !h {
                    continue;
                }
                ph.held |= 1 << at;
                for fx in &self.direct_fx[r.fx.0 as usize..r.fx.1 as usize] {
                    if let DirectFx::Expr { expr, .. } = *fx {
                        if ph.nv == TWO_PHASE_VALUES {
                            drop((guard, replay));
                            return self.resolve_collected(st, side);
                        }
                        let code = self.prog.code_of(expr);
                        let d0 = self.draws_made.get();
                        ph.values[ph.nv] = self.eval(code, &st.vals, side, turn, r.rule, stack)?;
                        let draws = self.draws_made.get().wrapping_sub(d0);
                        if let Some(rp) = replay.as_deref_mut()
                            && draws > 0
                        {
                            rp.drawn.push(Drawn {
                                at: ph.nv as u32,
                                expr,
                                rule: r.rule,
                                side,
                                draws,
                            });
                        }
                        ph.nv += 1;
                    }
                }
            }
        }
        if let Some(r) = replay.as_deref_mut() {
            // Kept only when every draw was in a value, or every draw in a condition this
            // list's replay redoes (not both: their order would have to be kept too).
            let made = self.script.borrow().draws.len();
            let in_values: usize = r.drawn.iter().map(|d| d.draws as usize).sum();
            let in_conds = r.cond.len();
            if (in_values == 0) != (in_conds == 0) && made == in_values + in_conds {
                r.valid = true;
                r.snapshot.clone_from(st);
                r.direct = Some(ph);
            }
        }
        drop(replay);
        self.apply_two_phase(st, &ph)
    }

    /// The second phase of [`Engine::resolve_two_phase`]: the effects of the rules that held
    /// (and of the `::` rules that ran and failed) applied in file order.
    pub(super) fn apply_two_phase(&self, st: &mut State, ph: &TwoPhase) -> Res<()> {
        let rules = &self.direct_rules[ph.list.0 as usize..ph.list.1 as usize];
        let side = ph.side;
        let mut next = ph.values[..ph.nv].iter();
        // Only the rules that held or ran, lowest bit (first in the file) first.
        let mut run = ph.held | ph.iff;
        while run != 0 {
            let k = run.trailing_zeros() as usize;
            run &= run - 1;
            let r = &rules[k];
            let held = ph.held >> k & 1 == 1;
            for &fx in &self.direct_fx[r.fx.0 as usize..r.fx.1 as usize] {
                self.apply_fx(st, side, fx, held, r.rule, || {
                    *next.next().expect("a value per expression operand")
                })?;
            }
        }
        Ok(())
    }

    /// `side`'s resolution the reference way (writes collected on the snapshot, then applied).
    #[cold]
    fn resolve_collected(&self, st: &mut State, side: Side) -> Res<()> {
        let mut guard = self.scratch.borrow_mut();
        let sc = &mut *guard;
        sc.writes.clear();
        self.resolve(st, side, sc, None)?;
        let writes = std::mem::take(&mut sc.writes);
        drop(guard);
        let result = self.apply_merged(st, &writes, None);
        self.scratch.borrow_mut().writes = writes;
        result
    }

    /// The write an update on the direct path stands for, to word its error the general way.
    fn direct_write(&self, i: usize, writer: Side, op: UpdOp, value: i64, rule: u32) -> Write {
        Write {
            target: Target::Val(i),
            owner: Side::from_index(i / self.ns),
            writer,
            op,
            value,
            rule,
        }
    }
}
