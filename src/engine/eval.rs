//! Conditions and expressions: the bytecode evaluator, condition tests (with their pre-decoded
//! fast forms), periods, and the firing counts.

use super::*;

impl<'p> Engine<'p> {
    #[cold]
    pub(super) fn err(&self, rule: u32, side: Side, msg: impl Into<String>) -> Box<RuntimeError> {
        let line = self
            .prog
            .meta
            .get(rule as usize)
            .map_or(0, |m| m.origin.line);
        Box::new(RuntimeError {
            rule: rule as usize,
            line,
            message: msg.into(),
            side,
        })
    }

    pub(super) fn eval(
        &self,
        code: &[Op],
        vals: &[i64],
        side: Side,
        turn: u32,
        rule: u32,
        stack: &mut Vec<i64>,
    ) -> Res<i64> {
        // `rand(lo,hi)` with constant bounds (most drawn operands: `O.体力-=rand(1,3)`): the
        // draw without the stack.
        if let [Op::Push(lo), Op::Push(hi), Op::Rand(slot)] = *code
            && lo <= hi
        {
            return Ok(self.draw(turn, side, rule, slot, lo, hi));
        }
        stack.clear();
        for op in code {
            match *op {
                Op::Push(v) => stack.push(v),
                Op::Load(who, id) => {
                    let s = who.resolve(side);
                    stack.push(vals[s.index() * self.ns + id as usize]);
                }
                Op::Neg => {
                    let a = stack.pop().unwrap_or(0);
                    stack.push(
                        a.checked_neg()
                            .ok_or_else(|| self.err(rule, side, "overflow in negation"))?,
                    );
                }
                Op::Bin(b) => {
                    let y = stack.pop().unwrap_or(0);
                    let x = stack.pop().unwrap_or(0);
                    let r = b.apply(x, y).ok_or_else(|| {
                        if y == 0
                            && matches!(
                                b,
                                crate::syntax::ast::BinOp::Div | crate::syntax::ast::BinOp::Mod
                            )
                        {
                            self.err(rule, side, format!("division by zero ({x} {} 0)", b.text()))
                        } else {
                            self.err(rule, side, format!("overflow in {x} {} {y}", b.text()))
                        }
                    })?;
                    stack.push(r);
                }
                Op::Min | Op::Max => {
                    let y = stack.pop().unwrap_or(0);
                    let x = stack.pop().unwrap_or(0);
                    let f = if matches!(op, Op::Min) {
                        Func::Min
                    } else {
                        Func::Max
                    };
                    stack.push(f.apply(&[x, y]).unwrap_or(0));
                }
                Op::Abs => {
                    let a = stack.pop().unwrap_or(0);
                    stack.push(
                        Func::Abs
                            .apply(&[a])
                            .ok_or_else(|| self.err(rule, side, "overflow in abs"))?,
                    );
                }
                Op::Rand(slot) => {
                    let hi = stack.pop().unwrap_or(0);
                    let lo = stack.pop().unwrap_or(0);
                    if lo > hi {
                        return Err(self.err(
                            rule,
                            side,
                            format!("rand({lo},{hi}): the lower bound is above the upper bound"),
                        ));
                    }
                    stack.push(self.draw(turn, side, rule, slot, lo, hi));
                }
            }
        }
        Ok(stack.pop().unwrap_or(0))
    }

    /// Evaluates rule `ri`'s conditions for `side` on `st` (command atoms read the history).
    #[inline(always)]
    pub(super) fn holds(
        &self,
        ri: u32,
        r: &CRule,
        st: &State,
        side: Side,
        turn: u32,
        stack: &mut Vec<i64>,
    ) -> Res<bool> {
        let need = self.need_cmd[ri as usize];
        if need != NONE && st.hist[side.index() * self.hl] != need {
            return Ok(false);
        }
        let base = r.conds.0 as usize;
        for (k, f) in self.fast[base..r.conds.1 as usize].iter().enumerate() {
            let ok = match self.fast_one(f, st, side) {
                Some(ok) => ok,
                None => self.evaluated_cond(ri, f, base + k, st, side, turn, stack)?,
            };
            if !ok {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Condition `ci` of rule `ri` that has no fast form (`f`): a constant-range draw compared
    /// with a constant, or any comparison evaluated the general way.
    #[allow(clippy::too_many_arguments)]
    fn evaluated_cond(
        &self,
        ri: u32,
        f: &Fast,
        ci: usize,
        st: &State,
        side: Side,
        turn: u32,
        stack: &mut Vec<i64>,
    ) -> Res<bool> {
        if let Some(held) = self.drawn_cond(f, ri, turn, side) {
            return Ok(held);
        }
        Ok(match self.prog.conds[ci] {
            CCond::Cmp { op, lhs, rhs } => {
                let (lhs, rhs) = (self.prog.code_of(lhs), self.prog.code_of(rhs));
                match (
                    self.operand(lhs, &st.vals, side),
                    self.operand(rhs, &st.vals, side),
                ) {
                    (Some(a), Some(b)) => op.holds(a, b),
                    _ => {
                        let a = self.eval(lhs, &st.vals, side, turn, ri, stack)?;
                        let b = self.eval(rhs, &st.vals, side, turn, ri, stack)?;
                        op.holds(a, b)
                    }
                }
            }
            _ => false,
        })
    }

    /// A `rand(lo,hi) OP k` condition ([`Fast::Draw`]) of rule `ri`: drawn and compared; None
    /// for any other.
    #[inline]
    fn drawn_cond(&self, f: &Fast, ri: u32, turn: u32, side: Side) -> Option<bool> {
        let Fast::Draw {
            lo,
            hi,
            slot,
            op,
            k,
        } = *f
        else {
            return None;
        };
        // Scripted (the search's chance enumeration): two outcomes, split here.
        let v = if self.scripted.get() {
            self.scripted_pick(lo, hi, Some(super::chance::split_range(op, k, lo, hi)))
        } else {
            self.draw(turn, side, ri, slot, lo, hi)
        };
        Some(op.holds(v, k))
    }

    /// Conditions with fast forms or drawn ([`Engine::drawn_cond`]) of rule `ri`, in order
    /// until one fails (so a draw is made only when the conditions before it hold, as in
    /// [`Engine::holds`]).
    #[inline(always)]
    pub(super) fn fast_conds_drawing(
        &self,
        range: (u32, u32),
        st: &State,
        side: Side,
        turn: u32,
        ri: u32,
    ) -> bool {
        for f in &self.fast[range.0 as usize..range.1 as usize] {
            let ok = match self.fast_one(f, st, side) {
                Some(ok) => ok,
                None => self.drawn_cond(f, ri, turn, side) == Some(true),
            };
            if !ok {
                return false;
            }
        }
        true
    }

    /// The one `rand(lo,hi) OP k` condition among `range` (its bounds, operator and constant),
    /// and whether the conditions after it hold for `side` on `st`; None unless there is
    /// exactly one.
    pub(super) fn single_draw(
        &self,
        range: (u32, u32),
        st: &State,
        side: Side,
    ) -> Option<(i64, i64, CmpOp, i64, bool)> {
        let conds = &self.fast[range.0 as usize..range.1 as usize];
        let mut draws = conds
            .iter()
            .enumerate()
            .filter(|(_, f)| matches!(f, Fast::Draw { .. }));
        let (at, &Fast::Draw { lo, hi, op, k, .. }) = draws.next()? else {
            return None;
        };
        if draws.next().is_some() {
            return None;
        }
        let after = conds[at + 1..]
            .iter()
            .all(|f| self.fast_one(f, st, side) == Some(true));
        Some((lo, hi, op, k, after))
    }

    /// One condition in fast form for `side` on `st`; None when it needs the general evaluator.
    #[inline(always)]
    pub(super) fn fast_one(&self, f: &Fast, st: &State, side: Side) -> Option<bool> {
        match *f {
            Fast::Range { off, lo, hi, neg } => {
                let v = st.vals[off[side] as usize];
                Some((lo <= v && v <= hi) != neg)
            }
            Fast::Cmd { off, cmd, neg } => {
                let at = off[side];
                let c = if at == NONE_AT {
                    NONE
                } else {
                    st.hist[at as usize]
                };
                Some((c == cmd) != neg)
            }
            Fast::Pair { lhs, rhs, op } => {
                Some(op.holds(st.vals[lhs[side] as usize], st.vals[rhs[side] as usize]))
            }
            Fast::Draw { .. } | Fast::General => None,
        }
    }

    /// Conditions that all have fast forms (no expression to evaluate), for `side` on `st`.
    #[inline(always)]
    pub(super) fn fast_conds(&self, range: (u32, u32), st: &State, side: Side) -> bool {
        for f in &self.fast[range.0 as usize..range.1 as usize] {
            if self.fast_one(f, st, side) != Some(true) {
                return false;
            }
        }
        true
    }

    /// The command `side` played `back` turns ago (0 = the latest), or NONE.
    #[inline]
    pub fn command_at(&self, st: &State, side: Side, back: u8) -> u32 {
        if (back as usize) < self.hl {
            st.hist[side.index() * self.hl + back as usize]
        } else {
            NONE
        }
    }

    /// `c` pre-decoded for repeated tests with [`Engine::test`] (the analysis' inner loops).
    pub fn cond_test(&self, c: &CCond) -> CondTest {
        CondTest {
            fast: tables::fast_of(self.prog, self.hl, c),
            cond: *c,
        }
    }

    /// Whether a pre-decoded condition holds for `side` (as [`Engine::cond_holds_with`]).
    #[inline(always)]
    pub fn test(&self, t: &CondTest, st: &State, side: Side, stack: &mut Vec<i64>) -> bool {
        match self.fast_one(&t.fast, st, side) {
            Some(held) => held,
            None => self.cond_holds_with(&t.cond, st, side, stack),
        }
    }

    /// The value of an expression that is a single constant or state (most operands of a
    /// comparison: `S.x>=3`, `S.x>O.y`), read without the stack machine; None for any other.
    #[inline(always)]
    pub(super) fn operand(&self, code: &[Op], vals: &[i64], side: Side) -> Option<i64> {
        match *code {
            [Op::Push(v)] => Some(v),
            [Op::Load(who, id)] => Some(vals[who.resolve(side).index() * self.ns + id as usize]),
            _ => None,
        }
    }

    /// Whether one condition holds for `side` (for analysis; a runtime error counts as false).
    pub fn cond_holds(&self, c: &CCond, st: &State, side: Side) -> bool {
        self.cond_holds_with(c, st, side, &mut Vec::new())
    }

    /// [`Engine::cond_holds`] with a caller's evaluation stack (no allocation once it has grown).
    pub fn cond_holds_with(&self, c: &CCond, st: &State, side: Side, stack: &mut Vec<i64>) -> bool {
        match *c {
            CCond::Truth {
                neg,
                side: who,
                state,
            } => (st.vals[who.resolve(side).index() * self.ns + state as usize] != 0) != neg,
            CCond::Cmp { op, lhs, rhs } => {
                let (lhs, rhs) = (self.prog.code_of(lhs), self.prog.code_of(rhs));
                if let (Some(a), Some(b)) = (
                    self.operand(lhs, &st.vals, side),
                    self.operand(rhs, &st.vals, side),
                ) {
                    return op.holds(a, b);
                }
                let a = self.eval(lhs, &st.vals, side, st.turn + 1, 0, stack);
                let b = self.eval(rhs, &st.vals, side, st.turn + 1, 0, stack);
                matches!((a, b), (Ok(a), Ok(b)) if op.holds(a, b))
            }
            CCond::Cmd {
                neg,
                opp,
                back,
                cmd,
            } => (self.command_at(st, crate::side::relative(opp, side), back) == cmd) != neg,
        }
    }

    /// Value of an expression for `side` (for analysis; a runtime error gives 0).
    pub fn eval_code(&self, code: (u32, u32), st: &State, side: Side) -> i64 {
        self.eval_code_with(code, st, side, &mut Vec::new())
    }

    /// [`Engine::eval_code`] with a caller's evaluation stack.
    pub fn eval_code_with(
        &self,
        code: (u32, u32),
        st: &State,
        side: Side,
        stack: &mut Vec<i64>,
    ) -> i64 {
        self.eval(
            self.prog.code_of(code),
            &st.vals,
            side,
            st.turn + 1,
            0,
            stack,
        )
        .unwrap_or(0)
    }

    /// Whether a rule with this period runs on a side's `n`-th own turn (n ≥ 1 in resolution
    /// and availability, where n counts the turn being taken or about to be taken).
    pub(super) fn period_ok(r: &CRule, n: u32) -> bool {
        r.period <= 1 || n.is_multiple_of(r.period)
    }

    /// Whether a victory rule runs in the end check when the side has taken `n` turns: a
    /// periodic one only when n ≥ 1 and n is a multiple of its period (§8 step 4), so a side
    /// that has not acted yet is not checked by it. A rule without a period (or `@1/`, which
    /// is the same rule) runs at every end check.
    pub(super) fn victory_period_ok(r: &CRule, n: u32) -> bool {
        !r.periodic || (n >= 1 && n.is_multiple_of(r.period))
    }

    /// Counts a firing of rule `ri` when the engine counts them (see [`Engine::counting`]).
    #[inline(always)]
    pub(super) fn note_fire(&self, ri: u32) {
        if let Some(f) = &self.fires {
            f.borrow_mut()[ri as usize] += 1;
        }
    }

    /// The firing counts per rule since the last call (all zero unless [`Engine::counting`]),
    /// written into `out`, and the counts reset.
    pub fn take_fires(&self, out: &mut Vec<u32>) {
        out.clear();
        if let Some(f) = &self.fires {
            let mut f = f.borrow_mut();
            out.extend_from_slice(&f);
            f.iter_mut().for_each(|x| *x = 0);
        }
    }
}
