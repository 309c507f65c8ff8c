//! Chance: `rand` draws — seeded, scripted by a search (every outcome of a turn enumerated with
//! its probability), or sampled.

use super::*;

/// One `rand(lo,hi)` draw made during a scripted turn (see [`Engine::play_scripted`]).
///
/// A draw whose value only decides one comparison with a constant (`rand(1,100)<=30`) has two
/// outcomes, "holds" and "fails", weighted by how many values of the range give each; any other
/// draw has one outcome per value of its range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Draw {
    /// Lower bound of the range.
    pub lo: i64,
    /// Upper bound of the range.
    pub hi: i64,
    /// Number of outcomes (at least 1).
    pub outcomes: u64,
    /// The outcome that was used (0-based).
    pub pick: u64,
    /// The value that was used.
    pub value: i64,
    /// Probability of the outcome that was used.
    pub prob: f64,
}

/// Drives the `rand` draws of one turn for a search: draw k takes outcome `picks[k]`; draws past
/// the end of `picks` take outcome 0, or, when `sampler` is set, an outcome drawn at random with
/// its probability. Every draw made is recorded in `draws`, so a caller can count the draws of a
/// turn, see their ranges, and enumerate their outcomes.
#[derive(Clone, Debug, Default)]
pub struct ChanceScript {
    /// Chosen outcome per draw, in the order the turn draws them.
    pub picks: Vec<u64>,
    /// The draws the last scripted turn made.
    pub draws: Vec<Draw>,
    /// State of a SplitMix64 stream used for draws past `picks` (None: outcome 0).
    pub sampler: Option<u64>,
}

impl ChanceScript {
    /// Probability of the outcomes the last scripted turn used (1 with no draws).
    pub fn probability(&self) -> f64 {
        self.draws.iter().map(|d| d.prob).product()
    }

    /// Number of outcome combinations of the last turn's draws (saturating).
    pub fn combinations(&self) -> u64 {
        self.draws
            .iter()
            .fold(1u64, |a, d| a.saturating_mul(d.outcomes))
    }
}

/// A `rand` draw that only decides `rand(..) OP k` (or `k OP rand(..)`, stored mirrored).
#[derive(Clone, Copy, Debug)]
pub(super) struct BinaryDraw {
    pub(super) rule: u32,
    pub(super) slot: u16,
    pub(super) op: CmpOp,
    pub(super) k: i64,
}

/// How many values of [lo, hi] satisfy `v OP k`, a value that does and one that does not.
pub(super) fn split_range(op: CmpOp, k: i64, lo: i64, hi: i64) -> (u64, i64, i64) {
    let (lo128, hi128, k128) = (lo as i128, hi as i128, k as i128);
    let count = |a: i128, b: i128| if b < a { 0 } else { (b - a + 1) as u64 };
    let size = count(lo128, hi128);
    let (n, yes, no) = match op {
        CmpOp::Eq => (
            u64::from(lo <= k && k <= hi),
            k,
            if lo != k { lo } else { hi },
        ),
        CmpOp::Ne => (
            size - u64::from(lo <= k && k <= hi),
            if lo != k { lo } else { hi },
            k,
        ),
        CmpOp::Lt => (count(lo128, hi128.min(k128 - 1)), lo, hi),
        CmpOp::Le => (count(lo128, hi128.min(k128)), lo, hi),
        CmpOp::Gt => (count(lo128.max(k128 + 1), hi128), hi, lo),
        CmpOp::Ge => (count(lo128.max(k128), hi128), hi, lo),
    };
    (n.min(size), yes, no)
}

/// Replaces `rand` draws: (turn, side, rule, slot, lo, hi) → value.
pub type ChanceFn<'p> = Box<dyn Fn(u32, Side, u32, u16, i64, i64) -> i64 + Send + 'p>;

impl<'p> Engine<'p> {
    pub(super) fn draw(
        &self,
        turn: u32,
        side: Side,
        rule: u32,
        slot: u16,
        lo: i64,
        hi: i64,
    ) -> i64 {
        if self.scripted.get() {
            return self.scripted_draw(rule, slot, lo, hi);
        }
        if let Some(f) = &self.chance {
            return f(turn, side, rule, slot, lo, hi);
        }
        rng::draw(self.seed, turn, side.index(), rule, slot, lo, hi)
    }

    pub(super) fn scripted_draw(&self, rule: u32, slot: u16, lo: i64, hi: i64) -> i64 {
        let binary = self
            .binary_draws
            .iter()
            .find(|b| b.rule == rule && b.slot == slot)
            .map(|b| split_range(b.op, b.k, lo, hi));
        self.scripted_pick(lo, hi, binary)
    }

    /// The scripted draw of `rand(lo,hi)`, `binary` its split when it only decides a comparison
    /// with a constant (see [`split_range`]; `rand(lo,hi) OP k` conditions pass it directly,
    /// without looking the draw up).
    pub(super) fn scripted_pick(&self, lo: i64, hi: i64, binary: Option<(u64, i64, i64)>) -> i64 {
        self.draws_made.set(self.draws_made.get().wrapping_add(1));
        let mut sc = self.script.borrow_mut();
        let size = ((hi as i128 - lo as i128 + 1) as u128).min(u64::MAX as u128) as u64;
        let outcomes = match binary {
            Some((n, _, _)) if n == 0 || n == size => 1,
            Some(_) => 2,
            None => size,
        };
        let k = sc.draws.len();
        let pick = if let Some(&p) = sc.picks.get(k) {
            p.min(outcomes - 1)
        } else if let Some(state) = sc.sampler.as_mut() {
            *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let u = rng::mix(*state);
            match binary {
                Some((n, _, _)) if outcomes == 2 => u64::from(u % size >= n),
                _ => u % outcomes,
            }
        } else {
            0
        };
        let (value, prob) = match binary {
            Some((n, yes, no)) if outcomes == 2 => {
                if pick == 0 {
                    (yes, n as f64 / size as f64)
                } else {
                    (no, (size - n) as f64 / size as f64)
                }
            }
            Some((n, yes, no)) => (if n == size { yes } else { no }, 1.0),
            None => (lo.wrapping_add(pick as i64), 1.0 / size as f64),
        };
        sc.draws.push(Draw {
            lo,
            hi,
            outcomes,
            pick,
            value,
            prob,
        });
        value
    }

    /// Plays one turn like [`Engine::play`], with every `rand` draw (of the resolution, the end
    /// check and the next turn's availability) taken from `script`, which records the draws made.
    pub fn play_scripted(
        &self,
        st: &mut State,
        cmds: [Option<CmdId>; 2],
        script: &mut ChanceScript,
    ) -> Result<(), RuntimeError> {
        script.draws.clear();
        if self.value_draws || self.cond_draws {
            self.replay.borrow_mut().valid = false;
        }
        std::mem::swap(&mut *self.script.borrow_mut(), script);
        self.scripted.set(true);
        let r = self.play(st, cmds, None);
        self.scripted.set(false);
        std::mem::swap(&mut *self.script.borrow_mut(), script);
        r
    }

    /// Keeps the resolution of the scripted turn being played for [`Engine::replay_scripted`],
    /// when every draw it made was in an effect's value (`st` is the position it read).
    pub(super) fn keep_for_replay(&self, st: &State, sc: &Scratch) {
        let made = self.script.borrow().draws.len();
        let in_values: usize = sc.drawn.iter().map(|d| d.draws as usize).sum();
        if made != in_values {
            return; // a condition drew: which rules fire depends on the draws
        }
        let mut r = self.replay.borrow_mut();
        r.valid = true;
        r.snapshot.clone_from(st);
        r.writes.clone_from(&sc.writes);
        r.drawn.clone_from(&sc.drawn);
        r.direct = None;
    }

    /// The same turn as the last [`Engine::play_scripted`] (from the same position with the
    /// same commands) under another `script`, played from that turn's resolution: the values
    /// that drew `rand` are evaluated again with the new draws, the rest of the resolution is
    /// reused, then the writes are applied and the turn ends as in [`Engine::play`]. The result
    /// and the draws recorded are those of `play_scripted`. None when the last scripted turn
    /// cannot be replayed so (a condition drew, or nothing did); the caller then plays it.
    pub fn replay_scripted(
        &self,
        st: &mut State,
        script: &mut ChanceScript,
    ) -> Option<Result<(), RuntimeError>> {
        let r = self.replay.borrow();
        if !r.valid {
            return None;
        }
        script.draws.clear();
        std::mem::swap(&mut *self.script.borrow_mut(), script);
        self.scripted.set(true);
        st.clone_from(&r.snapshot);
        if let Some(mut ph) = r.direct {
            // Kept by the two-phase direct path: the drawn conditions or values again, then its
            // second phase.
            for c in &r.cond {
                let v = self.scripted_pick(c.lo, c.hi, Some(split_range(c.op, c.k, c.lo, c.hi)));
                let bit = 1u64 << c.at;
                ph.held = if c.op.holds(v, c.k) && c.after {
                    ph.held | bit
                } else {
                    ph.held & !bit
                };
            }
            let mut result = Ok(());
            {
                let stack = &mut self.scratch.borrow_mut().stack;
                for d in &r.drawn {
                    let code = self.prog.code_of(d.expr);
                    match self.eval(code, &st.vals, d.side, st.turn, d.rule, stack) {
                        Ok(v) => ph.values[d.at as usize] = v,
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
            }
            drop(r);
            let result = result
                .and_then(|()| self.apply_two_phase(st, &ph))
                .and_then(|()| self.finish_turn(st, None));
            self.scripted.set(false);
            std::mem::swap(&mut *self.script.borrow_mut(), script);
            return Some(result.map_err(|e| *e));
        }
        let mut guard = self.scratch.borrow_mut();
        let sc = &mut *guard;
        sc.writes.clone_from(&r.writes);
        let mut result = Ok(());
        for d in &r.drawn {
            let code = self.prog.code_of(d.expr);
            match self.eval(code, &st.vals, d.side, st.turn, d.rule, &mut sc.stack) {
                Ok(v) => sc.writes[d.at as usize].value = v,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        let writes = std::mem::take(&mut sc.writes);
        drop(guard);
        drop(r);
        let result = result
            .and_then(|()| self.apply_merged(st, &writes, None))
            .and_then(|()| self.finish_turn(st, None));
        self.scratch.borrow_mut().writes = writes;
        self.scripted.set(false);
        std::mem::swap(&mut *self.script.borrow_mut(), script);
        Some(result.map_err(|e| *e))
    }
}
