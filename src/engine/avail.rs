//! Availability (step 1 of a turn): the rules without command atoms that enable or disable
//! commands, run for the side(s) about to move; in simultaneous mode merged per flag (§8).

use super::*;
use crate::program::CEffect;
use crate::side::Side;

impl<'p> Engine<'p> {
    /// Availability for the side(s) about to move from the compact rules (they cannot fail).
    ///
    /// In simultaneous mode both sides' availability is evaluated on one state (conditions of
    /// availability rules read only state values and histories, which availability never
    /// writes) and merged per flag: the other side's writes first, the owner's last (§8). When
    /// no rule sets an opponent's flag each flag has one writer, and one pass is the same.
    #[inline(always)]
    pub(super) fn prepare_fast(&self, st: &mut State, movers: &[Side], avail: &[Avail]) {
        let passes: &[Option<bool>] = if movers.len() > 1 && self.avail_cross {
            &[Some(true), Some(false)]
        } else {
            &[None]
        };
        for &pass in passes {
            for &side in movers {
                let n = st.own_turns[side] + 1;
                for a in avail {
                    if a.period > 1 && !n.is_multiple_of(a.period) {
                        continue;
                    }
                    let held = self.fast_conds(a.conds, st, side);
                    if !held && !a.iff {
                        continue;
                    }
                    for &(off, on, opp) in &self.avail_en[a.en.0 as usize..a.en.1 as usize] {
                        if pass.is_none_or(|p| p == opp) {
                            st.enabled[off[side] as usize] = held == on;
                        }
                    }
                }
            }
        }
        self.apply_bans(st);
    }

    /// Keeps the run's banned commands off ([`crate::program::RunConfig::banned`]).
    #[inline(always)]
    pub(super) fn apply_bans(&self, st: &mut State) {
        for &i in &self.config.banned {
            st.enabled[i as usize] = false;
        }
    }

    /// Availability for the side(s) about to move, recording flag changes in `trace`; merged
    /// as in [`Engine::prepare_fast`].
    pub(super) fn prepare(&self, st: &mut State, trace: Option<&mut TurnTrace>) -> Res<()> {
        let movers: &[Side] = if self.simultaneous {
            &[Side::H, Side::C]
        } else if st.to_move == Side::H {
            &[Side::H]
        } else {
            &[Side::C]
        };
        if let (Some(avail), None) = (&self.flat_avail, &trace) {
            for &side in movers {
                self.flat_prepare(st, side, avail);
            }
            self.apply_bans(st);
            return Ok(());
        }
        if let (Some(avail), None) = (&self.avail_fast, &trace) {
            self.prepare_fast(st, movers, avail);
            return Ok(());
        }
        let mut sc = self.scratch.borrow_mut();
        let Scratch { stack, writes, .. } = &mut *sc;
        writes.clear();
        // Evaluate every mover's availability on the same state first, then apply.
        for &side in movers {
            let n = st.own_turns[side] + 1;
            let turn = st.turn + 1;
            for &ri in &self.avail_rules {
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
                for e in self.prog.rule_effects(r) {
                    if let CEffect::Enable { opp, cmd, on } = *e {
                        writes.push(self.flag_write(opp, cmd, side, held == on, ri));
                    }
                }
            }
        }
        let writes = std::mem::take(writes);
        drop(sc);
        let result = self.apply_merged(st, &writes, trace);
        self.scratch.borrow_mut().writes = writes;
        self.apply_bans(st);
        result
    }
}
