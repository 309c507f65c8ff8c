//! Resolution, the direct path: effects applied as each rule is evaluated, when
//! [`super::tables`] proved that gives the reference path's result (see `direct_resolution`).

use super::*;

impl<'p> Engine<'p> {
    /// `side`'s resolution when [`direct_resolution`] holds: each rule's effects are applied as
    /// soon as it is evaluated — no rule reads what any rule writes, operands are constants and
    /// conditions cannot fail, so this is the snapshot semantics of §8 with the same order of
    /// application (and of overflow errors).
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
                                let w = Write {
                                    target: Target::Val(i),
                                    owner: i / self.ns,
                                    writer: side,
                                    op,
                                    value: v,
                                    rule: r.rule,
                                };
                                return self.apply(st, &w, None);
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
