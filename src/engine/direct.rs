//! Resolution, the direct path: effects applied as each rule is evaluated, when
//! [`super::tables`] proved that gives the reference path's result (see `direct_resolution`).

use super::*;

impl<'p> Engine<'p> {
    /// `side`'s resolution when [`direct_resolution`] holds: each rule's effects are applied as
    /// soon as it is evaluated — no rule reads what any rule writes, operands are constants and
    /// conditions cannot fail, so this is the snapshot semantics of §8 with the same order of
    /// application (and of overflow errors).
    #[inline(always)]
    pub(super) fn resolve_direct(&self, st: &mut State, side: Side) -> Res<()> {
        let n = st.own_turns[side];
        let now = st.hist[side * self.hl];
        let (a, b) = self.direct_lists[if now == NONE { self.nc } else { now as usize }];
        for r in &self.direct_rules[a as usize..b as usize] {
            if r.period > 1 && !n.is_multiple_of(r.period) {
                continue;
            }
            let held = (r.need == NONE || r.need == now) && self.fast_conds(r.conds, st, side);
            if !held && !r.iff {
                continue;
            }
            for fx in &self.direct_fx[r.fx.0 as usize..r.fx.1 as usize] {
                match *fx {
                    DirectFx::Bool { off, value } => {
                        st.vals[off[side] as usize] = (held == value) as i64
                    }
                    DirectFx::Flag { off, on } => st.enabled[off[side] as usize] = held == on,
                    DirectFx::Add { off, v, sub } => {
                        if !held {
                            continue;
                        }
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
                                return self.apply(
                                    st,
                                    &self.direct_write(i, side, op, value, r.rule),
                                    None,
                                );
                            }
                        }
                    }
                    DirectFx::Update { off, op, v } => {
                        if !held {
                            continue;
                        }
                        let i = off[side] as usize;
                        let cur = st.vals[i];
                        match op.apply(cur, v) {
                            Some(x) => st.vals[i] = x,
                            None => {
                                // Overflow or division by zero: the general path words the error.
                                return self.apply(
                                    st,
                                    &self.direct_write(i, side, op, v, r.rule),
                                    None,
                                );
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The write an update on the direct path stands for, to word its error the general way.
    fn direct_write(&self, i: usize, writer: Side, op: UpdOp, value: i64, rule: u32) -> Write {
        Write {
            target: Target::Val(i),
            owner: i / self.ns,
            writer,
            op,
            value,
            rule,
        }
    }
}
