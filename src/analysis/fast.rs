//! The evaluation of §10.6 for the search's inner loop: the same numbers as
//! [`super::evaluate`], from flat tables built once per program, with node sets as bit masks and
//! no allocation per call.
//!
//! The distance of a node is the cost of its cheapest achiever tree, where a tree's cost is the
//! sum of the own costs of its *distinct* nodes. Every node occurs in any tree with one own cost
//! (that of its own cheapest achiever, or 0 when it holds), so a tree is a set of nodes and its
//! cost the sum of their own costs: a `u128` per node, when the graph has at most 128 nodes.
//! Larger graphs fall back to [`super::evaluate`].

use super::{
    CondKind, Evaluate, Step, Target, UNREACHABLE, VictoryGraph, classify, decided_value,
    own_cost_of,
};
use crate::engine::{CondTest, Engine, Side, State};
use crate::program::{CCond, Op};
use crate::syntax::ast::SideRef;
use std::cell::RefCell;

/// A node, flattened.
struct FNode {
    side: SideRef,
    id: u32,
    target: Target,
    /// The achievers that fire without a command: step / period, and their condition nodes
    /// (they count toward the rate when all of those hold, see [`super::free_rate`]).
    free: Vec<(f64, u128, Option<Side>)>,
    /// An achiever's own cost reads the node's current value (a range reached by steps).
    reads_cur: bool,
    /// As [`super::Node::grid`].
    grid: i64,
}

/// Whether a node holds, flattened: the value at `off[x]` in `State::vals` lies in
/// [lo, lo + span] (compared as unsigned offsets from `lo`, one comparison; `neg`: does not)
/// when `x` is evaluated. Its node's bit in the signature's mask is `mask` (the mask's two
/// words, one of them 0).
#[derive(Clone, Copy)]
struct ValTest {
    off: [u32; 2],
    lo: i64,
    span: u64,
    neg: bool,
    mask: [u64; 2],
}

impl ValTest {
    #[inline(always)]
    fn held(&self, v: i64) -> bool {
        (v.wrapping_sub(self.lo) as u64 <= self.span) != self.neg
    }
}

/// A node's test, before it is sorted into the signature's lists.
#[derive(Clone, Copy)]
struct NodeTest {
    off: [u32; 2],
    /// In `State::enabled` (a command's flag) instead of `State::vals`.
    enabled: bool,
    lo: i64,
    hi: i64,
    neg: bool,
    /// As [`FNode::reads_cur`].
    reads_cur: bool,
    /// An achiever uses the node up ([`super::Spend`]): its value matters even when it holds.
    reads_reserve: bool,
}

/// The signature's tests (see [`FastEval::signature`]), by what they read: value tests whose
/// value the trees never read, value tests whose value they read when the node does not hold
/// (`cur`) or always (`reserve`), and enabled flags (`off[x]` in `State::enabled`, mask).
#[derive(Default)]
struct Tests {
    plain: Vec<ValTest>,
    cur: Vec<ValTest>,
    reserve: Vec<ValTest>,
    flags: Vec<([u32; 2], [u64; 2])>,
}

impl Tests {
    /// The lists (empty beyond 128 nodes, where the general evaluation serves).
    fn sort(tests: &[NodeTest]) -> Self {
        let mut t = Tests::default();
        if tests.len() > 128 {
            return t;
        }
        for (i, n) in tests.iter().enumerate() {
            let b = 1u128 << i;
            let mask = [b as u64, (b >> 64) as u64];
            if n.enabled {
                t.flags.push((n.off, mask));
                continue;
            }
            // An empty range never holds: "not always".
            let (lo, span, neg) = if n.lo <= n.hi {
                (n.lo, n.hi.wrapping_sub(n.lo) as u64, n.neg)
            } else {
                (i64::MIN, u64::MAX, !n.neg)
            };
            let v = ValTest {
                off: n.off,
                lo,
                span,
                neg,
                mask,
            };
            if n.reads_reserve {
                t.reserve.push(v);
            } else if n.reads_cur {
                t.cur.push(v);
            } else {
                t.plain.push(v);
            }
        }
        t
    }
}

/// An achiever, flattened.
#[derive(Clone, Copy)]
struct FAch {
    /// As [`super::Achiever::rearm`].
    rearm: u32,
    /// As [`super::Achiever::only`].
    only: Option<Side>,
    step: Step,
    needs_command: bool,
    period: u32,
    conds: (u32, u32),
    /// Its [`super::Achiever::spends`], addressed in `FastEval::spends`.
    spends: (u32, u32),
    /// It counts on a move of the opponent ([`super::Achiever::assumes`] is not empty): of
    /// two trees of equal cost, the one that does not is chosen, as in `TreeWalk::tree`.
    assumes: bool,
}

/// A decisive rule, flattened.
struct FDecisive {
    conds: Vec<usize>,
    /// The turn firing it costs: 0 for a victory rule, else 1.
    fire: u32,
    /// Its excluded conditions (cost 1 each unless they hold), read as the acting side.
    excluded: Vec<CondTest>,
    /// The opponent's instance: excluded conditions are read for the other side.
    opponent: bool,
    /// Decisive for this side only.
    only: Option<Side>,
    /// It can never fire (a condition never holds).
    never: bool,
    /// As [`super::Decisive::period`].
    period: u32,
}

/// An advantage line, flattened.
struct FAdv {
    weight: f64,
    conds: Vec<CondTest>,
    /// The value when it is a constant.
    constant: Option<i64>,
    value: (u32, u32),
}

/// Most slots in the memo of trees by signature (a power of two): 32 Ki, as many as fit in
/// [`MEMO_BYTES`]. Karate's signatures (health, stamina and flags of both sides) fill 4 Ki
/// slots many times over: 32 Ki halved the trees rebuilt and saved 8 % of the CPU's
/// instructions.
const MEMO: usize = 1 << 15;

/// The memo's size bound: a slot is 48 bytes and 4 per decisive rule.
const MEMO_BYTES: usize = 2 << 20;

/// A decisive rule none of whose trees exists, in the memo.
const NOT_OK: u32 = u32::MAX;

/// The trees' results by signature (see [`FastEval::both`]): per slot its key, the nodes that
/// hold, and each decisive rule's cost before its excluded conditions.
struct Memo {
    /// [`MEMO`] slots, or 1 for a program with very many decisive rules.
    slots: Vec<MemoSlot>,
    /// Per slot, each decisive rule's cost before its excluded conditions.
    bases: Vec<u32>,
}

/// One slot of the memo, read together (one cache line; the search's lookups are scattered).
#[derive(Clone, Copy)]
struct MemoSlot {
    key: u64,
    holds: u128,
    /// The distance and soft distance, when no decisive rule has excluded conditions (they are
    /// then a function of the bases alone).
    result: (u32, f64),
}

/// The evaluation cache: per slot its key, the evaluation for h, and the search's squashed
/// form of it (NaN until asked for) — side by side, so a lookup touches one cache line.
struct Cache {
    slots: Vec<CacheSlot>,
    /// The scale the squashed values were made with.
    scale: f64,
}

#[derive(Clone, Copy)]
struct CacheSlot {
    key: u64,
    val: f64,
    squashed: f64,
}

/// Slots in the evaluation cache (a power of two; 24 bytes each). 2^14 instead of 2^12: karate
/// CPU -5.7% instructions (fewer evaluations recomputed), 384 KiB per player.
const CACHE: usize = 1 << 14;

/// One slot of the memo of [`super::regain_turns`] (see [`FastEval::spent`]): the spend's
/// id, the side, the firings and the condition's value it was asked for, and the answer.
#[derive(Clone, Copy)]
struct RegainSlot {
    spend: u32,
    firings: u32,
    cur: i64,
    x: u8,
    /// The answer; `empty` until the slot is first written.
    turns: Option<u32>,
    empty: bool,
}

/// Slots in the memo of [`super::regain_turns`] (a power of two; 40 bytes each). Its answer
/// depends only on the spend, the side, the firings and the condition's value — a few hundred
/// combinations in a fight — while the evaluation asks for it on every achiever that uses a
/// condition up: karate spent a third of its search there, playing clamped recoveries out.
const REGAIN: usize = 1 << 12;

/// One slot of the memo of [`own_cost_of`] for the achievers whose price is played out turn
/// by turn (a clamped step with a command, a scaling step): the achiever, the node's value and
/// the command-free rate it was asked for, and the answer (`ach` u32::MAX: empty).
#[derive(Clone, Copy)]
struct CostSlot {
    ach: u32,
    cur: i64,
    rate: u64,
    own: Option<u32>,
}

/// Slots in the memo of played-out own costs (a power of two; 32 bytes each). Karate's
/// stamina recovery (`+=max(0,min(1,…))` with a command) asks a few dozen distinct questions
/// thousands of times.
const COSTS: usize = 1 << 11;

#[derive(Default)]
struct Scratch {
    /// Bit i: node i holds in the position being evaluated.
    holds: u128,
    /// Per node: 0 not yet, 1 done with a tree, 2 done without one.
    state: Vec<u8>,
    own: Vec<u32>,
    set: Vec<u128>,
    /// Bit i: node i's chosen tree counts on a move of the opponent (read when state is 1).
    assume: u128,
    stack: Vec<i64>,
}

/// The evaluation compiled for one program and graph.
pub struct FastEval {
    nodes: Vec<FNode>,
    /// The nodes' tests (the signature's loops).
    tests: Tests,
    /// Per node: the range of its achievers in `ach`.
    ach_of: Vec<(u32, u32)>,
    ach: Vec<FAch>,
    /// The achievers' condition nodes, addressed by `FAch::conds`.
    ach_conds: Vec<u32>,
    /// The conditions the achievers use up, addressed by `FAch::spends`.
    spends: Vec<super::Spend>,
    /// Per spend: the first spend with the same condition and rates (the memo's key).
    spend_ids: Vec<u32>,
    decisive: Vec<FDecisive>,
    /// Some decisive rule has excluded conditions (they read the position beyond the trees).
    any_excluded: bool,
    /// The least common multiple of the decisive rules' periods (capped), when one has a
    /// period: the distances then read the turn counts, which the caches' keys must include.
    turns: Option<u32>,
    adv: Vec<FAdv>,
    cap: u32,
    /// Too many nodes for the bit masks: the graph, for the general evaluation.
    general: Option<Box<VictoryGraph>>,
    /// When the graph has no cycle: its nodes with every achiever condition before the node.
    order: Option<Vec<u32>>,
    /// The evaluation reads the command history (an advantage line or an excluded condition
    /// has a command atom), so the cache key must include it.
    reads_history: bool,
    /// A direct-mapped cache of evaluations for h (key 0 = empty).
    cache: RefCell<Cache>,
    memo: RefCell<Memo>,
    regain: RefCell<Vec<RegainSlot>>,
    costs: RefCell<Vec<CostSlot>>,
    scratch: RefCell<Scratch>,
}

impl FastEval {
    /// Compiles the evaluation of `g` for the engine's program.
    pub fn new(g: &VictoryGraph, eng: &Engine) -> Self {
        let p = eng.prog;
        let nodes: Vec<FNode> = g
            .nodes
            .iter()
            .map(|n| FNode {
                side: n.key.side,
                id: n.key.id,
                target: n.key.target,
                free: n
                    .achievers
                    .iter()
                    .filter_map(|a| {
                        let mask = a
                            .conds
                            .iter()
                            .fold(0u128, |m, &c| m | 1u128.checked_shl(c as u32).unwrap_or(0));
                        super::free_step(a).map(|r| (r, mask, a.only))
                    })
                    .collect(),
                reads_cur: matches!(n.key.target, Target::Range(..))
                    && n.achievers.iter().any(|a| {
                        matches!(a.step, Step::Add(_) | Step::Scale(..) | Step::Clamp(..))
                    }),
                grid: n.grid,
            })
            .collect();
        let decisive: Vec<FDecisive> = g
            .decisive
            .iter()
            .map(|d| FDecisive {
                conds: d.conds.clone(),
                fire: if d.victory { 0 } else { 1 },
                excluded: p
                    .rule_conds(&p.rules[d.rule])
                    .iter()
                    .filter(|c| matches!(classify(p, c), CondKind::Excluded(..)))
                    .map(|c| eng.cond_test(c))
                    .collect(),
                opponent: d.opponent,
                only: d.only,
                never: d.never,
                period: d.period,
            })
            .collect();
        let adv: Vec<FAdv> = p
            .adv
            .iter()
            .map(|a| FAdv {
                weight: a.weight,
                conds: p.conds[a.conds.0 as usize..a.conds.1 as usize]
                    .iter()
                    .map(|c| eng.cond_test(c))
                    .collect(),
                constant: match p.code_of(a.value) {
                    [Op::Push(v)] => Some(*v),
                    _ => None,
                },
                value: a.value,
            })
            .collect();
        let tests = nodes
            .iter()
            .map(|n: &FNode| {
                let (enabled, width) = match n.target {
                    Target::Enabled => (true, eng.nc),
                    _ => (false, eng.ns),
                };
                let at = |x: Side| (n.side.resolve(x).index() * width + n.id as usize) as u32;
                let (lo, hi, neg) = match n.target {
                    Target::Enabled => (1, 1, false),
                    Target::NonZero => (0, 0, true),
                    Target::Range(lo, hi) => (lo, hi, false),
                };
                NodeTest {
                    off: [at(Side::H), at(Side::C)],
                    enabled,
                    lo,
                    hi,
                    neg,
                    reads_cur: n.reads_cur,
                    reads_reserve: false,
                }
            })
            .collect::<Vec<NodeTest>>();
        let mut tests = tests;
        let n = g.nodes.len();
        let has_cmd = |c: &CondTest| matches!(c.cond(), CCond::Cmd { .. });
        let reads_history = adv.iter().any(|a: &FAdv| a.conds.iter().any(has_cmd))
            || decisive
                .iter()
                .any(|d: &FDecisive| d.excluded.iter().any(has_cmd));
        let mut ach = Vec::new();
        let mut ach_conds = Vec::new();
        let mut ach_of = Vec::new();
        let mut spends = Vec::new();
        let mut spend_ids: Vec<u32> = Vec::new();
        for node in &g.nodes {
            let start = ach.len() as u32;
            for a in &node.achievers {
                let c0 = ach_conds.len() as u32;
                ach_conds.extend(a.conds.iter().map(|&c| c as u32));
                let s0 = spends.len() as u32;
                for s in &a.spends {
                    tests[s.node].reads_reserve = true;
                    spends.push(s.clone());
                    // Achievers that use the same condition up at the same rate share answers.
                    let same = spends[..spends.len() - 1]
                        .iter()
                        .position(|o: &super::Spend| {
                            (o.node, o.per.to_bits(), o.free.to_bits())
                                == (s.node, s.per.to_bits(), s.free.to_bits())
                        });
                    spend_ids.push(same.map_or(spend_ids.len() as u32, |j| spend_ids[j]));
                }
                ach.push(FAch {
                    spends: (s0, spends.len() as u32),
                    rearm: a.rearm,
                    only: a.only,
                    step: a.step,
                    needs_command: a.needs_command,
                    period: a.period,
                    conds: (c0, ach_conds.len() as u32),
                    assumes: !a.assumes.is_empty(),
                });
            }
            ach_of.push((start, ach.len() as u32));
        }
        let order = topological(&ach_of, &ach, &ach_conds);
        let periodic = || decisive.iter().filter(|d| d.period > 0).map(|d| d.period);
        let turns = periodic()
            .next()
            .is_some()
            .then(|| crate::program::period_lcm(periodic()));
        Self {
            any_excluded: decisive.iter().any(|d| !d.excluded.is_empty()),
            turns,
            order,
            ach_of,
            ach,
            ach_conds,
            spends,
            spend_ids,
            reads_history,
            cache: RefCell::new(Cache {
                slots: vec![
                    CacheSlot {
                        key: 0,
                        val: 0.0,
                        squashed: f64::NAN,
                    };
                    CACHE
                ],
                scale: f64::NAN,
            }),
            regain: RefCell::new(vec![
                RegainSlot {
                    spend: 0,
                    firings: 0,
                    cur: 0,
                    x: 0,
                    turns: None,
                    empty: true,
                };
                REGAIN
            ]),
            costs: RefCell::new(vec![
                CostSlot {
                    ach: u32::MAX,
                    cur: 0,
                    rate: 0,
                    own: None,
                };
                COSTS
            ]),
            memo: RefCell::new({
                // Up to 2 MiB (4 Ki slots of 64 decisive rules); beyond 64, one slot.
                let per = std::mem::size_of::<MemoSlot>() + 4 * g.decisive.len();
                let fit = (MEMO_BYTES / per).max(1);
                let slots = if g.decisive.len() <= 64 {
                    MEMO.min(1 << fit.ilog2())
                } else {
                    1
                };
                Memo {
                    slots: vec![
                        MemoSlot {
                            key: 0,
                            holds: 0,
                            result: (0, 0.0),
                        };
                        slots
                    ],
                    bases: vec![NOT_OK; slots * g.decisive.len()],
                }
            }),
            nodes,
            tests: Tests::sort(&tests),
            decisive,
            adv,
            cap: p.settings.turn_limit.min(UNREACHABLE),
            general: (n > 128).then(|| Box::new(g.clone())),
            scratch: RefCell::new(Scratch {
                holds: 0,
                assume: 0,
                state: vec![0; n],
                own: vec![0; n],
                set: vec![0; n],
                stack: Vec::new(),
            }),
        }
    }

    fn cost(sc: &Scratch, mut set: u128) -> u32 {
        let mut total = 0u32;
        while set != 0 {
            let k = set.trailing_zeros() as usize;
            total = total.saturating_add(sc.own[k]);
            set &= set - 1;
        }
        total
    }

    /// The cheapest tree of node `i` (its node set, its own cost in `sc.own[i]`), as in
    /// `TreeWalk::tree`: the same order of visits, so cycles are cut the same way.
    fn tree(
        &self,
        eng: &Engine,
        st: &State,
        x: Side,
        i: usize,
        on_stack: &mut u128,
        sc: &mut Scratch,
    ) -> Option<u128> {
        match sc.state[i] {
            1 => return Some(sc.set[i]),
            2 => return None,
            _ => {}
        }
        let bit = 1u128 << i;
        if sc.holds & bit != 0 {
            sc.state[i] = 1;
            sc.own[i] = 0;
            sc.set[i] = bit;
            sc.assume &= !bit;
            return Some(bit);
        }
        if *on_stack & bit != 0 {
            return None; // a cycle: cut
        }
        *on_stack |= bit;
        let best = self.best_achiever(eng, st, x, i, sc, |sc, c| {
            self.tree(eng, st, x, c, on_stack, sc)
        });
        *on_stack &= !bit;
        Self::record(sc, i, best)
    }

    /// The cheapest achiever of node `i` (which does not hold): its node set and own cost.
    /// `child` gives the node set of a condition node (None: unreachable).
    #[inline]
    fn best_achiever(
        &self,
        eng: &Engine,
        st: &State,
        x: Side,
        i: usize,
        sc: &mut Scratch,
        mut child: impl FnMut(&mut Scratch, usize) -> Option<u128>,
    ) -> Option<(u128, u32, bool)> {
        let bit = 1u128 << i;
        let n = &self.nodes[i];
        let cur = if n.target == Target::Enabled {
            0
        } else {
            eng.val(st, n.side.resolve(x), n.id)
        };
        let free_rate: f64 = n
            .free
            .iter()
            .filter(|&&(_, mask, only)| sc.holds & mask == mask && only.is_none_or(|s| s == x))
            .map(|&(r, _, _)| r)
            .sum();
        let mut best: Option<(u32, u128, u32, bool)> = None;
        let (a0, a1) = self.ach_of[i];
        'ach: for (ai, a) in (a0..).zip(&self.ach[a0 as usize..a1 as usize]) {
            if a.only.is_some_and(|s| s != x) {
                continue;
            }
            let Some(own) = self.own_cost(ai, a, n, cur, free_rate) else {
                continue;
            };
            let Some(spent) = self.spent(eng, st, x, a, own) else {
                continue;
            };
            let Some(own) = super::with_rearm(own, a.rearm) else {
                continue;
            };
            let own = own.saturating_add(spent);
            let mut set = bit;
            let mut assumes = a.assumes;
            for &c in &self.ach_conds[a.conds.0 as usize..a.conds.1 as usize] {
                match child(sc, c as usize) {
                    Some(sub) => {
                        set |= sub;
                        assumes |= sc.assume >> c & 1 != 0;
                    }
                    None => continue 'ach,
                }
            }
            let total = own.saturating_add(Self::cost(sc, set & !bit));
            // Of equal costs, the tree that counts on no move of the opponent.
            if best.is_none_or(|b| total < b.0 || (total == b.0 && b.3 && !assumes)) {
                best = Some((total, set, own, assumes));
            }
        }
        best.map(|(_, set, own, assumes)| (set, own, assumes))
    }

    /// [`own_cost_of`] for achiever `ai` (`a`) of node `n` at value `cur`; through a memo when
    /// the price is played out turn by turn.
    #[inline]
    fn own_cost(&self, ai: u32, a: &FAch, n: &FNode, cur: i64, free_rate: f64) -> Option<u32> {
        let price = || {
            own_cost_of(
                n.target,
                cur,
                a.step,
                a.needs_command,
                a.period,
                free_rate,
                n.grid,
            )
        };
        let played_out = match a.step {
            Step::Clamp(c) => a.needs_command || c.sign == 0,
            Step::Scale(..) => true,
            _ => false,
        };
        if !played_out || !matches!(n.target, Target::Range(..)) {
            return price();
        }
        let rate = free_rate.to_bits();
        let h = (u64::from(ai) << 32 ^ rate.rotate_left(17))
            .wrapping_add(cur as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = (h >> 40) as usize & (COSTS - 1);
        let m = self.costs.borrow()[slot];
        if (m.ach, m.cur, m.rate) == (ai, cur, rate) {
            return m.own;
        }
        let own = price();
        self.costs.borrow_mut()[slot] = CostSlot {
            ach: ai,
            cur,
            rate,
            own,
        };
        own
    }

    /// As `TreeWalk::spent`: the turns to bring back what `firings` firings of `a` use up.
    #[inline]
    fn spent(&self, eng: &Engine, st: &State, x: Side, a: &FAch, firings: u32) -> Option<u32> {
        let mut total = 0u32;
        for k in a.spends.0..a.spends.1 {
            let s = &self.spends[k as usize];
            let c = &self.nodes[s.node];
            let cur = eng.val(st, c.side.resolve(x), c.id);
            let k = self.spend_ids[k as usize];
            let h = (u64::from(k) << 40 ^ u64::from(firings) << 8 ^ x as u64)
                .wrapping_add(cur as u64)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let slot = (h >> 40) as usize & (REGAIN - 1);
            let hit = {
                let memo = self.regain.borrow();
                let m = memo[slot];
                (!m.empty && (m.spend, m.firings, m.cur, m.x) == (k, firings, cur, x as u8))
                    .then_some(m.turns)
            };
            let t = match hit {
                Some(t) => t,
                None => {
                    let (b0, b1) = self.ach_of[s.node];
                    // The condition's achievers priced through the memo of played-out costs.
                    let t = super::regain_turns(c.target, cur, s, firings, |from| {
                        (b0..)
                            .zip(&self.ach[b0 as usize..b1 as usize])
                            .filter(|(_, b)| b.only.is_none_or(|o| o == x))
                            .filter_map(|(bi, b)| self.own_cost(bi, b, c, from, s.free))
                            .min()
                    });
                    self.regain.borrow_mut()[slot] = RegainSlot {
                        spend: k,
                        firings,
                        cur,
                        x: x as u8,
                        turns: t,
                        empty: false,
                    };
                    t
                }
            };
            total = total.saturating_add(t?);
        }
        Some(total)
    }

    /// Stores node `i`'s result in the scratch tables.
    #[inline]
    fn record(sc: &mut Scratch, i: usize, best: Option<(u128, u32, bool)>) -> Option<u128> {
        match best {
            Some((set, own, assumes)) => {
                sc.state[i] = 1;
                sc.own[i] = own;
                sc.set[i] = set;
                if assumes {
                    sc.assume |= 1u128 << i;
                } else {
                    sc.assume &= !(1u128 << i);
                }
                Some(set)
            }
            None => {
                sc.state[i] = 2;
                None
            }
        }
    }

    /// Node `i` when all nodes its achievers need are done (acyclic graphs: the same result as
    /// `tree`, whose order of visits only matters where a cycle is cut).
    #[inline]
    fn node_bottom_up(&self, eng: &Engine, st: &State, x: Side, i: usize, sc: &mut Scratch) {
        let bit = 1u128 << i;
        if sc.holds & bit != 0 {
            sc.state[i] = 1;
            sc.own[i] = 0;
            sc.set[i] = bit;
            sc.assume &= !bit;
            return;
        }
        let best = self.best_achiever(eng, st, x, i, sc, |sc, c| {
            (sc.state[c] == 1).then(|| sc.set[c])
        });
        Self::record(sc, i, best);
    }

    /// The distance to winning of side `x` (as [`super::distances`]`.to_win`).
    pub fn to_win(&self, eng: &Engine, st: &State, x: Side) -> u32 {
        self.both(eng, st, x).0
    }

    /// The distance to winning of `x` and its soft form over every decisive rule (as
    /// [`super::soft_distance`]).
    ///
    /// The trees read a position only through which nodes hold and the current values of the
    /// nodes whose achievers step toward a range, so their result — each decisive rule's cost
    /// before its excluded conditions — is memoised by those: positions that differ elsewhere
    /// (another side's stamina, the history, a value no node tests) share one entry.
    fn both(&self, eng: &Engine, st: &State, x: Side) -> (u32, f64) {
        if let Some(g) = &self.general {
            let d = super::distances(g, eng, st, x);
            return (
                d.to_win.min(self.cap),
                super::soft_distance(&d.decisive, self.cap),
            );
        }
        let mut sc = self.scratch.borrow_mut();
        let sc = &mut *sc;
        let key = self.signature(st, x, sc);
        let nd = self.decisive.len();
        let mut memo = self.memo.borrow_mut();
        let memo = &mut *memo;
        let slot = (key as usize ^ (key >> 29) as usize) & (memo.slots.len() - 1);
        let m = memo.slots[slot];
        let hit = m.key == key && m.holds == sc.holds;
        if hit && !self.any_excluded && self.turns.is_none() {
            return m.result;
        }
        let bases = &mut memo.bases[slot * nd..(slot + 1) * nd];
        if !hit {
            self.trees(eng, st, x, sc);
            for (b, d) in bases.iter_mut().zip(&self.decisive) {
                *b = self.base_cost(sc, d);
            }
            memo.slots[slot].key = key;
            memo.slots[slot].holds = sc.holds;
        }
        let mut best = self.cap;
        let mut soft = super::SoftMin::default();
        for (&b, d) in bases.iter().zip(&self.decisive) {
            let cost = if b == NOT_OK || d.never || d.only.is_some_and(|s| s != x) {
                self.cap
            } else {
                let acting = crate::side::relative(d.opponent, x);
                let extra = d
                    .excluded
                    .iter()
                    .filter(|c| !eng.test(c, st, acting, &mut sc.stack))
                    .count() as u32;
                super::decisive_cost(b, extra, st.own_turns[acting], d.period, self.cap)
            };
            best = best.min(cost);
            soft.add(cost, self.cap);
        }
        let r = (best, soft.value(self.cap));
        memo.slots[slot].result = r;
        r
    }

    /// Sets `sc.holds` to the nodes that hold for `x` in `st` and returns a key of them and of
    /// the current values the trees read (never 0).
    fn signature(&self, st: &State, x: Side, sc: &mut Scratch) -> u64 {
        const K: u64 = 0x9E37_79B9_7F4A_7C15;
        // The mask in two words (a shift of a u128 by a variable amount costs branches).
        let mut bits = [0u64; 2];
        let mut set = |mask: [u64; 2], held: bool| {
            let all = u64::from(held).wrapping_neg();
            bits[0] |= mask[0] & all;
            bits[1] |= mask[1] & all;
        };
        let t = &self.tests;
        for v in &t.plain {
            set(v.mask, v.held(st.vals[v.off[x] as usize]));
        }
        for &(off, mask) in &t.flags {
            set(mask, st.enabled[off[x] as usize]);
        }
        // The values the trees read: mixed in (0 in place of a value not read, which the mask
        // then tells apart).
        let mut h = 0x243F_6A88_85A3_08D3u64;
        for v in &t.cur {
            let val = st.vals[v.off[x] as usize];
            let held = v.held(val);
            set(v.mask, held);
            h = (h ^ (val as u64 & u64::from(!held).wrapping_neg()))
                .wrapping_mul(K)
                .rotate_left(26);
        }
        for v in &t.reserve {
            let val = st.vals[v.off[x] as usize];
            set(v.mask, v.held(val));
            h = (h ^ val as u64).wrapping_mul(K).rotate_left(26);
        }
        let holds = u128::from(bits[0]) | u128::from(bits[1]) << 64;
        sc.holds = holds;
        // The side last, after a multiply: mixed in earlier it could cancel a value's low bit.
        ((h ^ holds as u64 ^ (holds >> 64) as u64).wrapping_mul(K) ^ (x as u64) << 1) | 1
    }

    /// Every node's cheapest tree for `x` (`sc.holds` set by [`Self::signature`]).
    fn trees(&self, eng: &Engine, st: &State, x: Side, sc: &mut Scratch) {
        if let Some(order) = &self.order {
            for &i in order {
                self.node_bottom_up(eng, st, x, i as usize, sc);
            }
        } else {
            sc.state.fill(0);
            let mut on_stack = 0u128;
            // Every node in order, as `distances` does: the memo then holds the same trees.
            for i in 0..self.nodes.len() {
                self.tree(eng, st, x, i, &mut on_stack, sc);
            }
        }
    }

    /// A decisive rule's cost before its excluded conditions ([`NOT_OK`] when a condition has
    /// no tree).
    fn base_cost(&self, sc: &Scratch, d: &FDecisive) -> u32 {
        let mut set = 0u128;
        for &c in &d.conds {
            match sc.state[c] {
                1 => set |= sc.set[c],
                _ => return NOT_OK,
            }
        }
        d.fire.saturating_add(Self::cost(sc, set))
    }
}

impl Evaluate for FastEval {
    fn distance(&self, eng: &Engine, st: &State, x: Side) -> (u32, f64) {
        self.both(eng, st, x)
    }

    fn advantage(&self, eng: &Engine, st: &State, x: Side) -> f64 {
        self.advantages(eng, st, [x])[0]
    }

    /// As [`Evaluate::score`], with both sides' advantage sums in one pass over the lines.
    fn score(&self, eng: &Engine, st: &State, x: Side) -> f64 {
        let dx = self.distance(eng, st, x).1;
        let dy = self.distance(eng, st, x.opponent()).1;
        let [ax, ay] = self.advantages(eng, st, [x, x.opponent()]);
        (dy - dx) + (ax - ay)
    }

    /// [`Evaluate::evaluate`] through a direct-mapped cache: the evaluation is antisymmetric,
    /// so one entry (the value for h) serves both sides.
    fn evaluate(&self, eng: &Engine, st: &State, x: Side) -> f64 {
        if let Some(v) = decided_value(st, x) {
            return v;
        }
        let v = self.cached(eng, st).1;
        if x == Side::H { v } else { -v }
    }
}

impl FastEval {
    /// The advantage-block sums for the sides `xs` (each line that holds adds weight × value).
    fn advantages<const N: usize>(&self, eng: &Engine, st: &State, xs: [Side; N]) -> [f64; N] {
        let mut sc = self.scratch.borrow_mut();
        let mut sum = [0.0; N];
        for a in &self.adv {
            for (s, &x) in sum.iter_mut().zip(&xs) {
                if a.conds.iter().all(|c| eng.test(c, st, x, &mut sc.stack)) {
                    let v = match a.constant {
                        Some(v) => v,
                        None => eng.eval_code_with(a.value, st, x, &mut sc.stack),
                    };
                    *s += a.weight * v as f64;
                }
            }
        }
        sum
    }

    /// The evaluation for h of an undecided position through the cache, and its slot.
    fn cached(&self, eng: &Engine, st: &State) -> (usize, f64) {
        let mut key = st.fingerprint(self.reads_history);
        if let Some(l) = self.turns {
            let [a, b] = st.own_turns.map(|n| u64::from(n % l));
            key ^= (a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
                .rotate_left(17);
        }
        let key = key | 1;
        let slot = (key as usize ^ (key >> 32) as usize) & (CACHE - 1);
        {
            let c = self.cache.borrow();
            if c.slots[slot].key == key {
                return (slot, c.slots[slot].val);
            }
        }
        let v = self.score(eng, st, Side::H);
        let mut c = self.cache.borrow_mut();
        c.slots[slot] = CacheSlot {
            key,
            val: v,
            squashed: f64::NAN,
        };
        (slot, v)
    }

    /// The search's value of an undecided position for `x`: `0.9e9 · tanh(evaluation / scale)`,
    /// cached with the evaluation (the same numbers, without a `tanh` per visit).
    pub fn squashed(&self, eng: &Engine, st: &State, x: Side, scale: f64) -> f64 {
        let (slot, v) = self.cached(eng, st);
        let mut c = self.cache.borrow_mut();
        if c.scale.to_bits() != scale.to_bits() {
            c.slots.iter_mut().for_each(|s| s.squashed = f64::NAN);
            c.scale = scale;
        }
        let mut q = c.slots[slot].squashed;
        if q.is_nan() {
            q = 0.9e9 * (v / scale).tanh();
            c.slots[slot].squashed = q;
        }
        if x == Side::H { q } else { -q }
    }
}

/// The nodes in an order where every node comes after the nodes its achievers need, or None
/// if the graph has a cycle.
fn topological(ach_of: &[(u32, u32)], ach: &[FAch], ach_conds: &[u32]) -> Option<Vec<u32>> {
    // 0 = new, 1 = on the path, 2 = done.
    fn visit(
        i: usize,
        mark: &mut [u8],
        out: &mut Vec<u32>,
        ach_of: &[(u32, u32)],
        ach: &[FAch],
        ach_conds: &[u32],
    ) -> bool {
        match mark[i] {
            1 => return false,
            2 => return true,
            _ => {}
        }
        mark[i] = 1;
        let (a0, a1) = ach_of[i];
        for a in &ach[a0 as usize..a1 as usize] {
            for &c in &ach_conds[a.conds.0 as usize..a.conds.1 as usize] {
                if !visit(c as usize, mark, out, ach_of, ach, ach_conds) {
                    return false;
                }
            }
        }
        mark[i] = 2;
        out.push(i as u32);
        true
    }
    let mut mark = vec![0u8; ach_of.len()];
    let mut out = Vec::with_capacity(ach_of.len());
    for i in 0..ach_of.len() {
        if !visit(i, &mut mark, &mut out, ach_of, ach, ach_conds) {
            return None;
        }
    }
    Some(out)
}
