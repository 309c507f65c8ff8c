//! The end check (step 4 of a turn): both sides' victory rules on the same post-resolution
//! state, merged, then who won.

use super::*;
use crate::program::CEffect;
use crate::side::Side;

impl<'p> Engine<'p> {
    #[inline(always)]
    pub(super) fn end_check(&self, st: &mut State, trace: Option<&mut TurnTrace>) -> Res<()> {
        match (&self.flat_victory, &trace) {
            (Some(flat), None) => self.flat_victory_check(st, flat),
            _ if !self.victory_rules.is_empty() => self.victory_check(st, trace)?,
            _ => {}
        }
        // Side s won if its 勝利 or the other's 敗北 is set (`|`: no branch per test).
        let (h, c) = st.vals.split_at(self.ns);
        let (win, lose) = (WIN_STATE as usize, LOSE_STATE as usize);
        let won = [
            (h[win] != 0) | (c[lose] != 0),
            (c[win] != 0) | (h[lose] != 0),
        ];
        st.outcome = match won {
            [false, false] if st.turn < self.turn_limit => None,
            [true, false] => Some(Outcome::H),
            [false, true] => Some(Outcome::C),
            // Both won at the same check, or the turn limit.
            _ => Some(Outcome::Draw),
        };
        Ok(())
    }

    /// [`Engine::victory_check`] for flat victory rules: every rule evaluated for both sides on
    /// the same state, then the flags they set are set.
    #[inline(always)]
    fn flat_victory_check(&self, st: &mut State, flat: &[tables::FlatVictory]) {
        let mut set = 0u8;
        for side in 0..2 {
            let n = st.own_turns[side];
            for v in flat {
                if v.period > 0 && !(n >= 1 && n.is_multiple_of(v.period)) {
                    continue;
                }
                if self.fast_conds(v.conds, st, Side::from_index(side)) {
                    set |= v.sets[side];
                }
            }
        }
        for k in 0..4 {
            if set & (1 << k) != 0 {
                let state = if k & 1 == 0 { WIN_STATE } else { LOSE_STATE };
                st.vals[(k >> 1) * self.ns + state as usize] = 1;
            }
        }
    }

    /// Step 4's victory rules, for both sides: all evaluated on the same post-resolution
    /// state, then applied with the merge (so one side's end-check write never hides the
    /// other's).
    pub(super) fn victory_check(
        &self,
        st: &mut State,
        mut trace: Option<&mut TurnTrace>,
    ) -> Res<()> {
        let mut sc = self.scratch.borrow_mut();
        let Scratch { writes, stack, .. } = &mut *sc;
        writes.clear();
        for side in 0..2 {
            let n = st.own_turns[side];
            for &ri in &self.victory_rules {
                let r = &self.prog.rules[ri as usize];
                if !Self::victory_period_ok(r, n) {
                    continue;
                }
                let held = self.holds(ri, r, st, Side::from_index(side), st.turn, stack)?;
                if held {
                    self.note_fire(ri);
                    if let Some(t) = trace.as_deref_mut() {
                        let m = &self.prog.meta[ri as usize];
                        t.end_check.push((
                            Side::from_index(side).name(),
                            ri as usize,
                            m.origin.line,
                            m.origin.describe(),
                        ));
                    }
                }
                if !held && !r.iff {
                    continue;
                }
                for e in self.prog.rule_effects(r) {
                    let w = match *e {
                        CEffect::Bool {
                            side: who,
                            state,
                            value,
                        } => self.value_write(
                            who,
                            state,
                            Side::from_index(side),
                            UpdOp::Set,
                            (held == value) as i64,
                            ri,
                        ),
                        CEffect::Update {
                            side: who,
                            state,
                            op,
                            expr,
                        } if held => {
                            let v = self.eval(
                                self.prog.code_of(expr),
                                &st.vals,
                                Side::from_index(side),
                                st.turn,
                                ri,
                                stack,
                            )?;
                            self.value_write(who, state, Side::from_index(side), op, v, ri)
                        }
                        _ => continue,
                    };
                    writes.push(w);
                }
            }
        }
        let writes = std::mem::take(writes);
        drop(sc);
        let result = self.apply_merged(st, &writes, trace);
        self.scratch.borrow_mut().writes = writes;
        result
    }
}
