//! Resolution, the reference path (step 2 of a turn, §8): every rule of the acting side's
//! command evaluated on the snapshot, the writes collected, then applied with the merge (the
//! other side's writes first, the owner's last).

use super::*;
use crate::program::CEffect;
use crate::side::Side;

#[derive(Clone, Copy, Debug)]
pub(super) enum Target {
    Val(usize),
    Flag(usize),
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Write {
    pub(super) target: Target,
    pub(super) owner: Side,
    pub(super) writer: Side,
    pub(super) op: UpdOp,
    pub(super) value: i64,
    pub(super) rule: u32,
}

impl Engine<'_> {
    /// A write of rule `rule`, acting for `writer`, to the state `state` of the side `who`
    /// names.
    #[inline(always)]
    pub(super) fn value_write(
        &self,
        who: SideRef,
        state: u32,
        writer: Side,
        op: UpdOp,
        value: i64,
        rule: u32,
    ) -> Write {
        let s = who.resolve(writer);
        Write {
            target: Target::Val(s.index() * self.ns + state as usize),
            owner: s,
            writer,
            op,
            value,
            rule,
        }
    }

    /// A write of rule `rule`, acting for `writer`, that turns command `cmd` of the writer (or
    /// its opponent when `opp`) on or off.
    #[inline(always)]
    pub(super) fn flag_write(
        &self,
        opp: bool,
        cmd: u32,
        writer: Side,
        on: bool,
        rule: u32,
    ) -> Write {
        let s = crate::side::relative(opp, writer);
        Write {
            target: Target::Flag(s.index() * self.nc + cmd as usize),
            owner: s,
            writer,
            op: UpdOp::Set,
            value: on as i64,
            rule,
        }
    }
}

impl<'p> Engine<'p> {
    /// Applies collected writes: the writes to a side's state or flag made by the other side
    /// first, then its owner's own, each group in the order collected (file order per side).
    /// With one writer, or no write across sides, that is simply the order collected (the
    /// result per target is the same, and so is which overflow is reported first).
    pub(super) fn apply_merged(
        &self,
        st: &mut State,
        writes: &[Write],
        mut trace: Option<&mut TurnTrace>,
    ) -> Res<()> {
        let one_writer = writes.windows(2).all(|p| p[0].writer == p[1].writer);
        if one_writer || writes.iter().all(|w| w.owner == w.writer) {
            for w in writes {
                self.apply(st, w, trace.as_deref_mut())?;
            }
            return Ok(());
        }
        for own in [false, true] {
            for w in writes.iter().filter(|w| (w.owner == w.writer) == own) {
                self.apply(st, w, trace.as_deref_mut())?;
            }
        }
        Ok(())
    }

    /// Collects the writes of `side`'s resolution on the snapshot `st`.
    pub(super) fn resolve(
        &self,
        st: &State,
        side: Side,
        sc: &mut Scratch,
        mut trace: Option<&mut TurnTrace>,
    ) -> Res<()> {
        let n = st.own_turns[side];
        let turn = st.turn;
        let Scratch {
            writes,
            stack,
            drawn,
        } = sc;
        let now = st.hist[side.index() * self.hl];
        let list = &self.by_cmd[if now == NONE { self.nc } else { now as usize }];
        for &ri in list {
            let r = &self.prog.rules[ri as usize];
            if !Self::period_ok(r, n) {
                continue;
            }
            let held = self.holds(ri, r, st, side, turn, stack)?;
            if held {
                self.note_fire(ri);
            }
            if !held && !r.iff {
                continue;
            }
            if held && let Some(t) = trace.as_deref_mut() {
                let m = &self.prog.meta[ri as usize];
                t.fired
                    .push((side.name(), ri as usize, m.origin.line, m.origin.describe()));
            }
            let e0 = r.effects.0 as usize;
            for (k, e) in self.prog.rule_effects(r).iter().enumerate() {
                match *e {
                    CEffect::Bool {
                        side: who,
                        state,
                        value,
                    } => {
                        let v = (held == value) as i64;
                        writes.push(self.value_write(who, state, side, UpdOp::Set, v, ri));
                    }
                    CEffect::Update {
                        side: who,
                        state,
                        op,
                        expr,
                    } => {
                        if !held {
                            continue;
                        }
                        let v = match self.effect_const[e0 + k] {
                            Some(v) => v,
                            None if self.value_draws && self.scripted.get() => {
                                let d0 = self.draws_made.get();
                                let code = self.prog.code_of(expr);
                                let v = self.eval(code, &st.vals, side, turn, ri, stack)?;
                                let draws = self.draws_made.get().wrapping_sub(d0);
                                if draws > 0 {
                                    drawn.push(Drawn {
                                        at: writes.len() as u32,
                                        expr,
                                        rule: ri,
                                        side,
                                        draws,
                                    });
                                }
                                v
                            }
                            None => {
                                self.eval(self.prog.code_of(expr), &st.vals, side, turn, ri, stack)?
                            }
                        };
                        writes.push(self.value_write(who, state, side, op, v, ri));
                    }
                    CEffect::Enable { opp, cmd, on } => {
                        if !r.has_cmd_atoms {
                            continue; // belongs to availability
                        }
                        writes.push(self.flag_write(opp, cmd, side, held == on, ri));
                    }
                }
            }
        }
        Ok(())
    }

    pub(super) fn apply(
        &self,
        st: &mut State,
        w: &Write,
        trace: Option<&mut TurnTrace>,
    ) -> Res<()> {
        match w.target {
            Target::Val(i) => {
                let cur = st.vals[i];
                if w.op == UpdOp::Div && w.value == 0 {
                    return Err(self.err(
                        w.rule,
                        w.writer,
                        format!("division by zero ({cur} / 0)"),
                    ));
                }
                let new = w.op.apply(cur, w.value).ok_or_else(|| {
                    self.err(
                        w.rule,
                        w.writer,
                        format!(
                            "overflow updating {} ({cur} and {})",
                            self.prog.states[i % self.ns],
                            w.value
                        ),
                    )
                })?;
                if new != cur {
                    if let Some(t) = trace {
                        t.changes.push(Change {
                            side: Side::from_index(i / self.ns),
                            name: self.prog.states[i % self.ns].clone(),
                            from: cur,
                            to: new,
                        });
                    }
                    st.vals[i] = new;
                }
            }
            Target::Flag(i) => {
                let v = w.value != 0;
                if st.enabled[i] != v {
                    if let Some(t) = trace {
                        t.changes.push(Change {
                            side: Side::from_index(i / self.nc),
                            name: format!("[{}]", self.prog.commands[i % self.nc]),
                            from: st.enabled[i] as i64,
                            to: v as i64,
                        });
                    }
                    st.enabled[i] = v;
                }
            }
        }
        Ok(())
    }

    pub(super) fn push_hist(&self, st: &mut State, side: Side, cmd: Option<CmdId>) {
        let base = side.index() * self.hl;
        if self.hl > 1 {
            st.hist.copy_within(base..base + self.hl - 1, base + 1);
        }
        st.hist[base] = cmd.unwrap_or(NONE);
    }
}
