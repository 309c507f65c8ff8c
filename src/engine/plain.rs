//! The plain turn: [`Engine::play`] without a trace for a program whose tables allow the
//! direct resolution path and whose availability rules are flat (range tests only, one entry
//! per flag effect). The same steps in the same order as the general turn, written
//! without the general turn's indirections — it is what arenas and reports spend their time in.

use super::*;
use crate::side::Side;

/// A range test of one state: `vals[val[s]]` in `[lo, lo + span]` (`neg`: not in it) when
/// side `s` acts, compared as an unsigned offset from `lo` (one comparison).
#[derive(Clone, Copy, Debug)]
struct Range {
    val: [u32; 2],
    lo: i64,
    span: u64,
    neg: bool,
}

impl Range {
    /// A range every value lies in (a rule without conditions).
    const ALWAYS: Range = Range {
        val: [0, 0],
        lo: i64::MIN,
        span: u64::MAX,
        neg: false,
    };

    /// `vals[off[s]]` in `[lo, hi]` (`neg`: not in it); an empty range never holds.
    fn new(off: [u32; 2], lo: i64, hi: i64, neg: bool) -> Self {
        if lo <= hi {
            Range {
                val: off,
                lo,
                span: hi.wrapping_sub(lo) as u64,
                neg,
            }
        } else {
            Range {
                val: off,
                neg: !neg,
                ..Range::ALWAYS
            }
        }
    }

    #[inline(always)]
    fn holds(&self, vals: &[i64], side: Side) -> bool {
        let v = vals[self.val[side] as usize];
        (v.wrapping_sub(self.lo) as u64 <= self.span) != self.neg
    }
}

/// One availability effect with its rule's conditions: the first two inline (`ALWAYS` for
/// a missing one), any others in [`FlatAvailability::more`]; then `enabled[flag[s]] = held == on` (an `iff` rule also
/// writes when it fails).
#[derive(Clone, Copy, Debug)]
struct FlatAvail {
    period: u32,
    iff: bool,
    on: bool,
    flag: [u32; 2],
    first: Range,
    second: Range,
    /// The rule has a second condition (and maybe more).
    two: bool,
    more: (u32, u32),
}

/// The compact availability rules flattened to one entry per effect, in order.
#[derive(Debug)]
pub(super) struct FlatAvailability {
    entries: Vec<FlatAvail>,
    more: Vec<Range>,
    /// Every entry is an `iff` rule of every turn with one range test (CC Lemon's `S.x>=k::[X]`):
    /// each writes its flag from that test alone.
    simple: bool,
}

/// The flat availability when every condition of the compact rules is a range test and no
/// two sides' writes need merging (an opponent's flag written in simultaneous mode).
pub(super) fn flat_availability(
    avail: &[Avail],
    en: &[([u32; 2], bool, bool)],
    fast: &[Fast],
    simultaneous: bool,
) -> Option<FlatAvailability> {
    let mut out = FlatAvailability {
        entries: Vec::new(),
        more: Vec::new(),
        simple: false,
    };
    for a in avail {
        let mut ranges = fast[a.conds.0 as usize..a.conds.1 as usize]
            .iter()
            .map(|f| match *f {
                Fast::Range { off, lo, hi, neg } => Some(Range::new(off, lo, hi, neg)),
                _ => None,
            });
        let first = ranges.next().unwrap_or(Some(Range::ALWAYS))?;
        let second = ranges.next();
        let two = second.is_some();
        let second = second.unwrap_or(Some(Range::ALWAYS))?;
        let m0 = out.more.len() as u32;
        for r in ranges {
            out.more.push(r?);
        }
        let more = (m0, out.more.len() as u32);
        for &(flag, on, opp) in &en[a.en.0 as usize..a.en.1 as usize] {
            if opp && simultaneous {
                return None;
            }
            out.entries.push(FlatAvail {
                period: a.period,
                iff: a.iff,
                on,
                flag,
                first,
                second,
                two,
                more,
            });
        }
    }
    out.simple = out.entries.iter().all(|a| a.period <= 1 && a.iff && !a.two);
    Some(out)
}

impl Engine<'_> {
    /// One turn the plain way (see the module); `avail` is the program's flat availability.
    #[inline]
    pub(super) fn play_plain(
        &self,
        st: &mut State,
        cmds: [Option<CmdId>; 2],
        avail: &FlatAvailability,
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
        avail: &FlatAvailability,
    ) -> Res<()> {
        let movers = |st: &State| {
            let lo = if SIM { 0 } else { st.to_move.index() };
            let hi = if SIM { 2 } else { lo + 1 };
            (lo..hi).map(Side::from_index)
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
            st.to_move = st.to_move.opponent();
        }
        for s in movers(st) {
            self.flat_prepare(st, s, avail);
        }
        self.apply_bans(st);
        Ok(())
    }

    /// Availability for `side` from the flat entries.
    #[inline(always)]
    pub(super) fn flat_prepare(&self, st: &mut State, side: Side, avail: &FlatAvailability) {
        if avail.simple {
            // An `iff` rule writes its flag whether it holds or not.
            for a in &avail.entries {
                let held = a.first.holds(&st.vals, side);
                st.enabled[a.flag[side] as usize] = held == a.on;
            }
            return;
        }
        let n = st.own_turns[side] + 1;
        for a in &avail.entries {
            if a.period > 1 && !n.is_multiple_of(a.period) {
                continue;
            }
            let mut held = a.first.holds(&st.vals, side);
            if a.two {
                held &= a.second.holds(&st.vals, side);
                if a.more.0 < a.more.1 {
                    held &= avail.more[a.more.0 as usize..a.more.1 as usize]
                        .iter()
                        .all(|r| r.holds(&st.vals, side));
                }
            }
            // Written when the rule holds or is an `iff` rule; kept otherwise (no branch on
            // `held`, which is as unpredictable as the game).
            let flag = &mut st.enabled[a.flag[side] as usize];
            *flag = if held | a.iff { held == a.on } else { *flag };
        }
    }
}
