//! The plain turn: [`Engine::play`] without a trace for a program whose tables allow the
//! direct resolution path and whose availability rules are flat (each one range test or none,
//! each effect one flag). The same steps in the same order as the general turn, written
//! without the general turn's indirections — it is what arenas and reports spend their time in.

use super::*;

/// One availability effect with its rule's one condition: when the side acts, `vals[val[s]]`
/// in `[lo, hi]` (`neg`: not in it) holds the rule; then `enabled[flag[s]] = held == on`
/// (an `iff` rule also writes when it fails).
#[derive(Clone, Copy, Debug)]
pub(super) struct FlatAvail {
    period: u32,
    iff: bool,
    neg: bool,
    on: bool,
    val: [u32; 2],
    flag: [u32; 2],
    lo: i64,
    hi: i64,
}

/// The compact availability rules flattened to one entry per effect, in order, when each has
/// at most one condition and that a range test, and no two sides' writes need merging (an
/// opponent's flag written in simultaneous mode).
pub(super) fn flat_availability(
    avail: &[Avail],
    en: &[([u32; 2], bool, bool)],
    fast: &[Fast],
    simultaneous: bool,
) -> Option<Vec<FlatAvail>> {
    let mut out = Vec::new();
    for a in avail {
        let (val, lo, hi, neg) = match &fast[a.conds.0 as usize..a.conds.1 as usize] {
            // No condition: a range every value lies in.
            [] => ([0, 0], i64::MIN, i64::MAX, false),
            [Fast::Range { off, lo, hi, neg }] => (*off, *lo, *hi, *neg),
            _ => return None,
        };
        for &(flag, on, opp) in &en[a.en.0 as usize..a.en.1 as usize] {
            if opp && simultaneous {
                return None;
            }
            out.push(FlatAvail {
                period: a.period,
                iff: a.iff,
                neg,
                on,
                val,
                flag,
                lo,
                hi,
            });
        }
    }
    Some(out)
}

impl Engine<'_> {
    /// One turn the plain way (see the module); `avail` is the program's flat availability.
    #[inline]
    pub(super) fn play_plain(
        &self,
        st: &mut State,
        cmds: [Option<CmdId>; 2],
        avail: &[FlatAvail],
    ) -> Res<()> {
        if self.simultaneous {
            self.plain_turn::<true>(st, cmds, avail)
        } else {
            self.plain_turn::<false>(st, cmds, avail)
        }
    }

    /// The plain turn for one mode (`SIM`: simultaneous), so the mode is not tested per step.
    #[inline(always)]
    fn plain_turn<const SIM: bool>(
        &self,
        st: &mut State,
        cmds: [Option<CmdId>; 2],
        avail: &[FlatAvail],
    ) -> Res<()> {
        let movers = |st: &State| {
            if SIM {
                0..2
            } else {
                st.to_move..st.to_move + 1
            }
        };
        st.turn += 1;
        for s in movers(st) {
            let c = cmds[s].filter(|&c| (c as usize) < self.nc && self.is_enabled(st, s, c));
            self.push_hist(st, s, c);
            st.own_turns[s] += 1;
        }
        for s in movers(st) {
            self.resolve_direct(st, s)?;
        }
        self.end_check(st, None)?;
        if st.outcome.is_some() {
            return Ok(());
        }
        if !SIM {
            st.to_move = 1 - st.to_move;
        }
        for s in movers(st) {
            self.flat_prepare(st, s, avail);
        }
        self.apply_bans(st);
        Ok(())
    }

    /// Availability for `side` from the flat entries.
    #[inline(always)]
    pub(super) fn flat_prepare(&self, st: &mut State, side: Side, avail: &[FlatAvail]) {
        let n = st.own_turns[side] + 1;
        for a in avail {
            if a.period > 1 && !n.is_multiple_of(a.period) {
                continue;
            }
            let v = st.vals[a.val[side] as usize];
            let held = ((a.lo <= v) & (v <= a.hi)) != a.neg;
            // Written when the rule holds or is an `iff` rule; kept otherwise (no branch on
            // `held`, which is as unpredictable as the game).
            let flag = &mut st.enabled[a.flag[side] as usize];
            *flag = if held | a.iff { held == a.on } else { *flag };
        }
    }
}
