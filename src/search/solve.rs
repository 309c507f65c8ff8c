//! The solver behind `kumite solve` and the studio's win-path view: the shortest win (h and c
//! cooperating, chance favourable), the forced win (h against every reply and every chance
//! outcome) with its strategy tree, and value iteration for simultaneous games.
//!
//! The public entry points ([`shortest_win`], [`forced_win`], [`value_iteration`], re-exported
//! by `search`) are thin wrappers over the functions `…_in` below, which also take an
//! optional cancel flag.

use super::base::{RuleErrorSummary, RuleErrors, moves};
use super::exact;
use super::keys::position_key;
use super::searcher::Searcher;
use crate::engine::{Outcome, State};
use crate::program::{CmdId, RuleProgram};
use crate::side::Side;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Outcome combinations per move up to which the solver enumerates chance exactly (beyond it,
/// seeded samples stand for them and the result says so).
pub const SOLVER_CHANCE_EXACT: u64 = exact::CHANCE_LIMIT;

fn cancelled(cancel: Option<&Arc<AtomicBool>>) -> bool {
    cancel.is_some_and(|c| c.load(Ordering::Relaxed))
}

/// Every joint move of a position: one side's moves (alternate) or all (h, c) pairs.
fn joint_moves(s: &Searcher, st: &State) -> Vec<[Option<CmdId>; 2]> {
    let eng = &s.eng;
    if eng.simultaneous {
        let cm = moves(eng, st, Side::C);
        moves(eng, st, Side::H)
            .into_iter()
            .flat_map(|a| cm.iter().map(move |&b| [a, b]))
            .collect()
    } else {
        let side = st.to_move;
        moves(eng, st, side)
            .into_iter()
            .map(|m| side.seat(m, None))
            .collect()
    }
}

fn cmd_name(prog: &RuleProgram, c: Option<CmdId>) -> String {
    c.map_or_else(|| "pass".into(), |c| prog.commands[c as usize].clone())
}

/// Memory the shortest-win search may fill with positions by default (about 1.5 GB): on the
/// 11-ply win of a wrestling match with a dozen commands that is 6 M positions, where 3.5 M
/// are needed.
pub const SHORTEST_MEMORY: usize = 1_500_000_000;

/// Chance outcomes the shortest-win search may resolve (about two seconds' work): a chance
/// move can resolve thousands of outcomes that all fold into a few positions, so positions
/// alone do not bound its work.
pub const SHORTEST_CHANCE: u64 = 6_000_000;

/// What ran out when a search gave up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// It held this many positions (the memory budget).
    Positions(usize),
    /// The system refused more memory after this many positions (a smaller address space or
    /// less free memory than the budget assumes).
    SystemMemory(usize),
    /// It resolved this many chance outcomes.
    ChanceOutcomes(u64),
    /// It searched this many nodes.
    Nodes(u64),
    /// It was cancelled.
    Cancelled,
}

impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Budget::Positions(n) => write!(
                f,
                "the memory budget: {} positions held",
                thousands(*n as u64)
            ),
            Budget::SystemMemory(n) => write!(
                f,
                "the system's memory: more was refused after {} positions",
                thousands(*n as u64)
            ),
            Budget::ChanceOutcomes(n) => {
                write!(
                    f,
                    "the chance budget: {} chance outcomes resolved",
                    thousands(*n)
                )
            }
            Budget::Nodes(n) => write!(f, "the node budget: {} positions searched", thousands(*n)),
            Budget::Cancelled => f.write_str("cancelled"),
        }
    }
}

pub use super::base::thousands;

/// What the shortest-win search found: one of three things, never "none" when it gave up.
#[derive(Clone, Debug)]
pub enum ShortestWin {
    /// A shortest win (no win has fewer plies), with the positions searched.
    Found {
        path: Vec<PathStep>,
        positions: usize,
    },
    /// Proved: h cannot win within `plies` plies however both sides play and chance falls
    /// (every position within them was searched). `exhausted`: the game has no position
    /// beyond them, so h cannot win at all.
    NoneWithin {
        plies: u32,
        positions: usize,
        exhausted: bool,
        /// Positions not searched because the admissible bound ([`super::bound`]) shows h
        /// needs more plies from them than were left.
        set_aside: u64,
    },
    /// Gave up: `budget` ran out while searching ply `complete + 1`; no win exists within
    /// `complete` plies. `longer`: a win the guided search found (more plies than `complete`,
    /// not proved shortest).
    GaveUp {
        complete: u32,
        positions: usize,
        budget: Budget,
        longer: Option<Vec<PathStep>>,
    },
}

impl ShortestWin {
    /// The path, when one was found.
    pub fn path(&self) -> Option<&[PathStep]> {
        match self {
            ShortestWin::Found { path, .. } => Some(path),
            ShortestWin::GaveUp { longer, .. } => longer.as_deref(),
            _ => None,
        }
    }

    /// The path is proved the shortest (false for a win the guided search found after the
    /// breadth-first search gave up).
    pub fn proved_shortest(&self) -> bool {
        matches!(self, ShortestWin::Found { .. })
    }

    /// The path, when one was found.
    pub fn into_path(self) -> Option<Vec<PathStep>> {
        match self {
            ShortestWin::Found { path, .. } => Some(path),
            ShortestWin::GaveUp { longer, .. } => longer,
            _ => None,
        }
    }

    /// "found", "none", "found_unproved" (a win the guided search found, not proved shortest)
    /// or "gave_up".
    pub fn status(&self) -> &'static str {
        match self {
            ShortestWin::Found { .. } => "found",
            ShortestWin::NoneWithin { .. } => "none",
            ShortestWin::GaveUp {
                longer: Some(_), ..
            } => "found_unproved",
            ShortestWin::GaveUp { .. } => "gave_up",
        }
    }

    /// One line for a designer: what was found, proved or given up, and why.
    pub fn summary(&self) -> String {
        match self {
            ShortestWin::Found { path, positions } => format!(
                "shortest win for h: {} (found; no shorter win exists — {} positions searched)",
                plies_text(path.len() as u32),
                thousands(*positions as u64)
            ),
            ShortestWin::NoneWithin {
                plies,
                positions,
                exhausted: true,
                ..
            } => format!(
                "no win for h at all (proved: all {} reachable positions searched, none within {} is a win for h)",
                thousands(*positions as u64),
                plies_text(*plies)
            ),
            ShortestWin::NoneWithin {
                plies,
                positions,
                set_aside: 0,
                ..
            } => format!(
                "no win for h within {} (proved: every one of the {} positions within them searched; try a larger --depth)",
                plies_text(*plies),
                thousands(*positions as u64)
            ),
            ShortestWin::NoneWithin {
                plies,
                positions,
                set_aside,
                ..
            } => format!(
                "no win for h within {} (proved: {} positions searched, and {} more set aside because the rules show h needs more plies from them than were left; try a larger --depth)",
                plies_text(*plies),
                thousands(*positions as u64),
                thousands(*set_aside)
            ),
            ShortestWin::GaveUp {
                complete,
                budget,
                longer: Some(path),
                ..
            } => format!(
                "a win for h in {} (found by a search guided by the derived distance; not proved shortest: the search for shorter ones gave up at ply {} ({budget}); no win exists within {})",
                plies_text(path.len() as u32),
                complete + 1,
                plies_text(*complete)
            ),
            ShortestWin::GaveUp {
                complete, budget, ..
            } => format!(
                "shortest win for h: gave up at ply {} ({budget}); no win exists within {}",
                complete + 1,
                plies_text(*complete)
            ),
        }
    }
}

/// "1 ply", "7 plies".
pub fn plies_text(n: u32) -> String {
    if n == 1 {
        "1 ply".into()
    } else {
        format!("{n} plies")
    }
}

/// Positions the shortest-win search can hold in `bytes` of memory for positions like `st`.
pub fn positions_for_memory(st: &State, bytes: usize) -> usize {
    // Less one chunk: the last chunk is allocated whole.
    let n = bytes / Arena::bytes_per_position(st);
    if n > 2 * CHUNK { n - CHUNK } else { n.max(1) }
}

/// The positions of the breadth-first search, packed: each position's values, flags and
/// history in flat arrays (no allocation per position), with how it was reached. A ply's
/// positions are a contiguous range (breadth-first order). The arrays are kept in chunks of
/// [`CHUNK`] positions that never move: a growing array is copied into a larger one (the
/// allocator holds both for a moment), and that made the peak twice the positions held.
struct Arena {
    vals: Chunked<i64>,
    enabled: Chunked<bool>,
    hist: Chunked<u32>,
    meta: Chunked<Meta>,
}

/// Positions per chunk of the arena.
const CHUNK: usize = 1 << 16;

/// Rows of `width` items in chunks of [`CHUNK`] rows, each allocated once at its full size.
struct Chunked<T> {
    width: usize,
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T: Copy> Chunked<T> {
    fn new(width: usize) -> Self {
        Chunked {
            width,
            chunks: Vec::new(),
            len: 0,
        }
    }

    /// Makes sure the next row has room; false when the system refuses the memory.
    fn room(&mut self) -> bool {
        if self.len.is_multiple_of(CHUNK) && self.chunks.len() * CHUNK <= self.len {
            let mut c = Vec::new();
            if c.try_reserve_exact(CHUNK * self.width).is_err()
                || self.chunks.try_reserve(1).is_err()
            {
                return false;
            }
            self.chunks.push(c);
        }
        true
    }

    /// Appends a row ([`Chunked::room`] made room for it).
    fn push(&mut self, row: &[T]) {
        debug_assert_eq!(row.len(), self.width);
        if let Some(c) = self.chunks.last_mut() {
            c.extend_from_slice(row);
        }
        self.len += 1;
    }

    fn row(&self, i: usize) -> &[T] {
        let at = (i % CHUNK) * self.width;
        &self.chunks[i / CHUNK][at..at + self.width]
    }
}

/// How a packed position was reached, and its counters.
#[derive(Clone, Copy)]
struct Meta {
    /// The position it was reached from (`u32::MAX` for the start).
    parent: u32,
    /// The joint move played there (`u32::MAX` for no command).
    cmds: [u32; 2],
    /// Who moved (alternate mode).
    mover: u8,
    /// The probability of the chance outcome that led here.
    prob: f64,
    own_turns: [u32; 2],
    turn: u32,
    to_move: u8,
    outcome: Option<Outcome>,
}

const NO_CMD: u32 = u32::MAX;

impl Arena {
    fn new(st: &State) -> Self {
        Arena {
            vals: Chunked::new(st.vals.len()),
            enabled: Chunked::new(st.enabled.len()),
            hist: Chunked::new(st.hist.len()),
            meta: Chunked::new(1),
        }
    }

    /// Memory per position at the search's peak: the packed position (its chunk is allocated
    /// whole, so up to one chunk more is held), and the set of seen keys while it doubles (old
    /// and new tables, 9 bytes a slot, at most 7/8 full: 31 bytes a key).
    fn bytes_per_position(st: &State) -> usize {
        st.vals.len() * 8 + st.enabled.len() + st.hist.len() * 4 + std::mem::size_of::<Meta>() + 32
    }

    fn len(&self) -> usize {
        self.meta.len
    }

    fn meta(&self, i: usize) -> &Meta {
        &self.meta.row(i)[0]
    }

    /// Room for one more position; false when the system refuses the memory.
    fn room(&mut self) -> bool {
        self.vals.room() && self.enabled.room() && self.hist.room() && self.meta.room()
    }

    fn push(&mut self, st: &State, parent: u32, cmds: [Option<CmdId>; 2], mover: usize, prob: f64) {
        self.vals.push(&st.vals);
        self.enabled.push(&st.enabled);
        self.hist.push(&st.hist);
        self.meta.push(&[Meta {
            parent,
            cmds: cmds.map(|c| c.unwrap_or(NO_CMD)),
            mover: mover as u8,
            prob,
            own_turns: st.own_turns,
            turn: st.turn,
            to_move: st.to_move as u8,
            outcome: st.outcome,
        }]);
    }

    /// Position `i` into `st` (whose buffers have the right lengths).
    fn load(&self, i: usize, st: &mut State) {
        st.vals.copy_from_slice(self.vals.row(i));
        st.enabled.copy_from_slice(self.enabled.row(i));
        st.hist.copy_from_slice(self.hist.row(i));
        let m = self.meta(i);
        st.own_turns = m.own_turns;
        st.turn = m.turn;
        st.to_move = Side::from_index(m.to_move as usize);
        st.outcome = m.outcome;
    }

    fn cmds(&self, i: usize) -> [Option<CmdId>; 2] {
        self.meta(i).cmds.map(|c| (c != NO_CMD).then_some(c))
    }
}

/// [`super::shortest_win`]: breadth-first over positions (h and c cooperating, chance outcomes
/// as branches, so the path may assume favourable outcomes; each step says how likely the
/// outcome it assumed was), holding at most `position_cap` positions and resolving at most
/// [`SHORTEST_CHANCE`] chance outcomes, and stopping soon after `cancel` is set. Which of the three
/// answers it is, the result says.
pub fn shortest_win_in(
    prog: &RuleProgram,
    start: &State,
    max_plies: u32,
    position_cap: usize,
    cancel: Option<&Arc<AtomicBool>>,
) -> ShortestWin {
    let s = Searcher::new(prog, 0);
    let bound = super::bound::WinBound::new(&s.eng);
    drop(s);
    // First a win by the guided search: its length bounds the breadth-first search, which
    // then only looks for shorter ones (and, finding none, proves it the shortest).
    let guided = guided_win(
        prog,
        start,
        max_plies,
        position_cap.min(GUIDED_POSITIONS),
        cancel,
        &bound,
    );
    let Some((path, guided_positions)) = guided else {
        return breadth_first(prog, start, max_plies, position_cap, cancel, &bound);
    };
    let found = path.len() as u32;
    if found <= 1 {
        return ShortestWin::Found {
            path,
            positions: guided_positions,
        };
    }
    // Breadth-first for a shorter win only: the bound sets aside every position from which h
    // needs more plies than are left, and finding none proves the guided win the shortest.
    match breadth_first(prog, start, found - 1, position_cap, cancel, &bound) {
        ShortestWin::NoneWithin { positions, .. } => ShortestWin::Found {
            path,
            positions: positions + guided_positions,
        },
        ShortestWin::GaveUp {
            complete,
            positions,
            budget,
            ..
        } => ShortestWin::GaveUp {
            complete,
            positions,
            budget,
            longer: Some(path),
        },
        shorter => shorter,
    }
}

/// Positions the guided search may hold (a tenth of the breadth-first search's default).
pub const GUIDED_POSITIONS: usize = 1_000_000;

/// A win for h (h and c cooperating, chance favourable) by best-first search on plies played
/// plus twice h's derived distance to winning (its own turns; a ply in alternate mode is one
/// side's turn): not necessarily the shortest. None when none was found within `max_plies`,
/// `cap` positions or [`SHORTEST_CHANCE`] / 4 chance outcomes.
fn guided_win(
    prog: &RuleProgram,
    start: &State,
    max_plies: u32,
    cap: usize,
    cancel: Option<&Arc<AtomicBool>>,
    bound: &super::bound::WinBound,
) -> Option<(Vec<PathStep>, usize)> {
    use std::cmp::Reverse;
    if bound.cannot_win_within(start, Side::H, max_plies) {
        return None;
    }
    let mut s = Searcher::new(prog, 0);
    let lcm = s.lcm;
    let per_turn: u64 = if s.eng.simultaneous { 1 } else { 2 };
    let priority = |s: &Searcher, st: &State, g: u32| {
        let d = s.fast.to_win(&s.eng, st, Side::H).min(100_000) as u64;
        g as u64 + per_turn * d
    };
    let mut arena = Arena::new(start);
    if !arena.room() {
        return None;
    }
    arena.push(start, u32::MAX, [None, None], start.to_move.index(), 1.0);
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    seen.insert(position_key(start, lcm));
    // Ties go to the deeper position, then to the likelier line (its chance outcomes'
    // probabilities multiplied, in millionths), so a win that needs no luck comes first.
    let likely = |p: f64| (p * 1e6).round() as u64;
    let mut chance_of: Vec<f64> = vec![1.0];
    let mut heap = std::collections::BinaryHeap::new();
    heap.push((Reverse(priority(&s, start, 0)), 0u32, likely(1.0), 0u32));
    let mut st = start.clone();
    while let Some((_, g, _, i)) = heap.pop() {
        if cancelled(cancel) || g >= max_plies {
            if cancelled(cancel) {
                return None;
            }
            continue;
        }
        arena.load(i as usize, &mut st);
        let mover = st.to_move;
        for cmds in joint_moves(&s, &st) {
            let kids = s.outcomes(&st, cmds, SOLVER_CHANCE_EXACT);
            for (c, p) in &kids {
                if !arena.room() || seen.try_reserve(1).is_err() {
                    return None;
                }
                if c.outcome.is_none() && bound.cannot_win_within(c, Side::H, max_plies - g - 1) {
                    continue;
                }
                if !seen.insert(position_key(c, lcm)) {
                    continue;
                }
                arena.push(c, i, cmds, mover.index(), *p);
                let k = arena.len() - 1;
                let line = chance_of[i as usize] * p;
                chance_of.push(line);
                match c.outcome {
                    Some(Outcome::H) => {
                        let path = path_to(prog, &s, &arena, k, start);
                        return Some((path, arena.len()));
                    }
                    Some(_) => {}
                    None => heap.push((
                        Reverse(priority(&s, c, g + 1)),
                        g + 1,
                        likely(line),
                        k as u32,
                    )),
                }
            }
            s.recycle(kids);
            if arena.len() > cap || s.nodes > SHORTEST_CHANCE / 4 {
                return None;
            }
        }
    }
    None
}

/// The breadth-first search for a win within `max_plies` (see [`shortest_win_in`]); a position
/// from which `bound` shows h cannot win within the plies left is not searched.
fn breadth_first(
    prog: &RuleProgram,
    start: &State,
    max_plies: u32,
    position_cap: usize,
    cancel: Option<&Arc<AtomicBool>>,
    bound: &super::bound::WinBound,
) -> ShortestWin {
    let mut s = Searcher::new(prog, 0);
    let lcm = s.lcm;
    let work_cap = SHORTEST_CHANCE;
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let mut arena = Arena::new(start);
    if !arena.room() {
        return ShortestWin::GaveUp {
            complete: 0,
            positions: 0,
            budget: Budget::SystemMemory(0),
            longer: None,
        };
    }
    arena.push(start, u32::MAX, [None, None], start.to_move.index(), 1.0);
    seen.insert(position_key(start, lcm));
    let mut st = start.clone();
    let mut layer = 0..1usize;
    // Positions set aside because h cannot win from them within the plies left (but could
    // later): the search then no longer shows that the game has no win at all.
    let mut set_aside = 0u64;
    // Undecided positions reached at the last ply (so the game goes on beyond it).
    let mut beyond = false;
    let gave_up = |complete: u32, budget: Budget, arena: Arena, seen: FxHashSet<u64>| {
        // A few flat arrays and one table: freed at once, before anything else allocates.
        let positions = arena.len();
        drop((arena, seen));
        ShortestWin::GaveUp {
            complete,
            positions,
            budget,
            longer: None,
        }
    };
    for ply in 0..max_plies {
        let left = max_plies - ply - 1;
        for li in layer.clone() {
            if cancelled(cancel) {
                return gave_up(ply, Budget::Cancelled, arena, seen);
            }
            if arena.meta(li).outcome.is_some() {
                continue;
            }
            arena.load(li, &mut st);
            let mover = st.to_move;
            for cmds in joint_moves(&s, &st) {
                let kids = s.outcomes(&st, cmds, SOLVER_CHANCE_EXACT);
                for (c, p) in &kids {
                    // Memory the system refuses ends the search with that answer, not an
                    // abort (a smaller address space than the budget assumes).
                    if !arena.room() || seen.try_reserve(1).is_err() {
                        let held = arena.len();
                        return gave_up(ply, Budget::SystemMemory(held), arena, seen);
                    }
                    if c.outcome.is_none() && bound.cannot_win_within(c, Side::H, left) {
                        // (At the last ply no position is kept: none can win in no plies.)
                        if bound.plies(c, Side::H) != super::bound::NO_WIN {
                            if left > 0 {
                                set_aside += 1;
                            } else {
                                beyond = true;
                            }
                        }
                        continue;
                    }
                    if !seen.insert(position_key(c, lcm)) {
                        continue;
                    }
                    arena.push(c, li as u32, cmds, mover.index(), *p);
                    if c.outcome == Some(Outcome::H) {
                        let positions = arena.len();
                        let path = path_to(prog, &s, &arena, positions - 1, start);
                        return ShortestWin::Found { path, positions };
                    }
                }
                s.recycle(kids);
                // Resolutions count as well as positions: a chance move can resolve thousands
                // of outcomes that all fold into a few positions.
                if arena.len() > position_cap {
                    return gave_up(ply, Budget::Positions(position_cap), arena, seen);
                }
                // (The searcher counts every chance outcome it resolves as a node.)
                if s.nodes > work_cap {
                    return gave_up(ply, Budget::ChanceOutcomes(work_cap), arena, seen);
                }
            }
        }
        // The next ply: the undecided positions just found (decided ones end there).
        let next = layer.end..arena.len();
        let exhausted = next.clone().all(|i| arena.meta(i).outcome.is_some());
        if exhausted {
            // (Set-aside positions cannot win within `max_plies` either.)
            let cut = set_aside > 0 || beyond;
            return ShortestWin::NoneWithin {
                plies: if cut { max_plies } else { ply + 1 },
                positions: arena.len(),
                exhausted: !cut,
                set_aside,
            };
        }
        layer = next;
    }
    ShortestWin::NoneWithin {
        plies: max_plies,
        positions: arena.len(),
        exhausted: false,
        set_aside,
    }
}

fn path_to(
    prog: &RuleProgram,
    s: &Searcher,
    arena: &Arena,
    mut k: usize,
    start: &State,
) -> Vec<PathStep> {
    let mut steps = Vec::new();
    let mut stt = start.clone();
    while k != 0 {
        let m = arena.meta(k);
        let (cm, mover) = (arena.cmds(k), m.mover as usize);
        let (side, command) = if s.eng.simultaneous {
            (
                Mover::Both,
                Some(format!(
                    "{}/{}",
                    cmd_name(prog, cm[0]),
                    cmd_name(prog, cm[1])
                )),
            )
        } else {
            (
                Mover::from(Side::from_index(mover)),
                cm[mover].map(|c| prog.commands[c as usize].clone()),
            )
        };
        arena.load(k, &mut stt);
        steps.push(PathStep {
            side,
            command,
            states: crate::engine::players::both_states(&s.eng, &stt),
            probability: m.prob,
        });
        k = m.parent as usize;
    }
    steps.reverse();
    steps
}

/// A forced-win strategy for h, as a tree: h's move at each h node, and below it every reply of
/// c and every chance outcome.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Strategy {
    /// Who moves here: h, c, both (simultaneous), or nobody: h has won.
    pub to_move: Mover,
    /// h's move (at "h" and "both" nodes; "pass" for no command).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub h: Option<String>,
    /// Every continuation: each reply of c (at "c" and "both" nodes) and each chance outcome.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub next: Vec<Branch>,
    /// The tree was cut here (size cap): the proof holds below, but is not shown.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// One continuation in a [`Strategy`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Branch {
    /// c's reply ("pass" for no command), at "c" and "both" nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c: Option<String>,
    /// Probability of the chance outcome this branch follows (1 without chance: not written).
    #[serde(skip_serializing_if = "is_one")]
    pub p: f64,
    /// What the chance outcome drew, as the values it leads to that differ between the
    /// outcomes of the same move (`c.体力=27`); not written without chance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// What follows.
    pub then: Strategy,
}

/// For the chance outcomes of one move: each outcome's values that differ between them
/// (`c.体力=27, c.力=12`; at most three), or the switches that differ; empty without chance.
fn outcome_labels(prog: &RuleProgram, kids: &[(State, f64)]) -> Vec<String> {
    if kids.len() < 2 {
        return Vec::new();
    }
    let ns = prog.states.len();
    let nc = prog.commands.len().max(1);
    let side = |i: usize, n: usize| if i / n == 0 { "h" } else { "c" };
    let differ = |get: &dyn Fn(&State) -> Vec<i64>| -> Vec<usize> {
        let first = get(&kids[0].0);
        (0..first.len())
            .filter(|&i| kids.iter().any(|(s, _)| get(s).get(i) != first.get(i)))
            .collect()
    };
    // 勝利/敗北 (ids 0 and 1) are left out: "(win)" says it.
    let vals: Vec<usize> = differ(&|s: &State| s.vals.clone())
        .into_iter()
        .filter(|&i| i % ns >= 2)
        .collect();
    let flags = differ(&|s: &State| s.enabled.iter().map(|&b| i64::from(b)).collect());
    kids.iter()
        .map(|(s, _)| {
            let mut parts: Vec<String> = vals
                .iter()
                .take(3)
                .map(|&i| format!("{}.{}={}", side(i, ns), prog.states[i % ns], s.vals[i]))
                .collect();
            if parts.is_empty() {
                parts = flags
                    .iter()
                    .take(3)
                    .map(|&i| {
                        let on = if s.enabled[i] { "" } else { "!" };
                        format!("{on}{}.[{}]", side(i, nc), prog.commands[i % nc])
                    })
                    .collect();
            }
            parts.join(", ")
        })
        .collect()
}

fn is_one(p: &f64) -> bool {
    *p >= 1.0 - 1e-12
}

/// The result of the forced-win search.
#[derive(Clone, Debug, PartialEq)]
pub struct ForcedWin {
    /// Some(true/false), or None when the budget or a cancel stopped the search undecided.
    pub exists: Option<bool>,
    /// The fewest plies within which h forces the win (when it does).
    pub min_plies: Option<u32>,
    /// When the search stopped undecided: the plies within which it proved h has no forced
    /// win (it deepens one ply at a time).
    pub none_within: Option<u32>,
    /// h's first move (when h moves first and the win exists).
    pub first_move: Option<String>,
    /// The strategy (when the win exists).
    pub strategy: Option<Strategy>,
    /// Some move had too many chance outcomes to enumerate, so samples stood for them: the
    /// proof then covers the sampled outcomes only.
    pub sampled: bool,
    /// What ran out when the search stopped undecided (`exists` is None).
    pub gave_up: Option<Budget>,
    /// The moves the search played that raised a rule error (each a loss for the side whose
    /// move it was, as in every search: [`rule_error_loser`](super::base::rule_error_loser)).
    pub rule_errors: RuleErrors,
}

struct Prover<'s, 'p> {
    s: &'s mut Searcher<'p>,
    memo: Memo,
    /// The admissible bound: a position from which the side cannot win within the plies left
    /// is refuted without a search.
    bound: super::bound::WinBound,
    /// Positions so refuted.
    pruned: u64,
    built: usize,
    /// The side whose forced win is sought (the strategy tree and the winning move are h's).
    winner: Side,
}

/// Positions the forced-win search remembers at most (under 2^23 slots of 17 bytes: about
/// 215 MB at its peak, while its table doubles): beyond, the table is emptied and the search
/// goes on without what it had learnt.
pub const FORCED_MEMO: usize = 7_000_000;

/// Nodes the forced-win search may visit (`kumite solve` and the studio's Win path alike).
pub const FORCED_NODES: u64 = 14_000_000;

/// Plies the win path searches by default (`kumite solve --depth`, the studio's Win path).
pub const WIN_PATH_PLIES: u32 = 30;

/// Nodes at most in a strategy tree.
const TREE_CAP: usize = 2000;

/// What the forced-win search knows of a position, for every depth at once: a win within `d`
/// plies is a win within any more, and no win within `d` is none within any fewer.
#[derive(Clone, Copy)]
struct Known {
    /// No win within fewer than this many plies (every `d < lo` is refuted).
    lo: u32,
    /// A win within this many plies (every `d >= hi` is proved; `u32::MAX`: none proved).
    hi: u32,
}

/// The forced-win search's memory of positions, keyed by position (not by depth).
#[derive(Default)]
struct Memo(FxHashMap<u64, Known>);

impl Memo {
    fn get(&self, key: u64, d: u32) -> Option<bool> {
        let k = self.0.get(&key)?;
        if d >= k.hi {
            Some(true)
        } else if d < k.lo {
            Some(false)
        } else {
            None
        }
    }

    fn put(&mut self, key: u64, d: u32, won: bool) {
        // A cache: emptied when full rather than grown past its budget.
        if self.0.len() >= FORCED_MEMO {
            self.0 = FxHashMap::default();
        }
        let k = self.0.entry(key).or_insert(Known {
            lo: 0,
            hi: u32::MAX,
        });
        if won {
            k.hi = k.hi.min(d);
        } else {
            k.lo = k.lo.max(d + 1);
        }
    }
}

impl Prover<'_, '_> {
    fn key(&self, st: &State) -> u64 {
        position_key(st, self.s.lcm)
    }

    /// All outcomes of `cmds` win for h within `d` plies.
    fn all_outcomes_win(&mut self, st: &State, cmds: [Option<CmdId>; 2], d: u32) -> bool {
        if self.s.out_of_time() {
            return false;
        }
        let kids = self.s.outcomes(st, cmds, SOLVER_CHANCE_EXACT);
        let r = !(kids.len() > 1 && self.cheap_fail(&kids, d))
            && kids.iter().all(|(c, _)| self.win(c, d));
        self.s.recycle(kids);
        r
    }

    /// Some outcome is known not to win within `d` plies without a search: decided otherwise,
    /// out of reach by the bound, or refuted in the memo (an enhanced transposition cutoff).
    fn cheap_fail(&self, kids: &[(State, f64)], d: u32) -> bool {
        let won = Some(if self.winner == Side::H {
            Outcome::H
        } else {
            Outcome::C
        });
        kids.iter().any(|(c, _)| {
            c.outcome != won
                && (c.outcome.is_some()
                    || d == 0
                    || self.bound.cannot_win_within(c, self.winner, d)
                    || self.memo.get(self.key(c), d) == Some(false))
        })
    }

    /// How many of `cmds`' chance outcomes win for the winner within `d` plies, and how many
    /// outcomes there are.
    fn outcomes_won(&mut self, st: &State, cmds: [Option<CmdId>; 2], d: u32) -> (usize, usize) {
        let kids = self.s.outcomes(st, cmds, SOLVER_CHANCE_EXACT);
        let mut won = 0;
        for (c, _) in &kids {
            if self.win(c, d) {
                won += 1;
            }
        }
        let n = kids.len();
        self.s.recycle(kids);
        (won, n)
    }

    /// h wins from `st` within `d` plies against every reply and chance outcome.
    fn win(&mut self, st: &State, d: u32) -> bool {
        let w = self.winner;
        let won = if w == Side::H { Outcome::H } else { Outcome::C };
        if st.outcome == Some(won) {
            return true;
        }
        if st.outcome.is_some() || d == 0 || self.s.out_of_time() {
            return false;
        }
        if self.bound.cannot_win_within(st, w, d) {
            self.pruned += 1;
            return false;
        }
        self.s.nodes += 1;
        let key = self.key(st);
        if let Some(v) = self.memo.get(key, d) {
            return v;
        }
        let mine = moves(&self.s.eng, st, w);
        let theirs = moves(&self.s.eng, st, w.opponent());
        let joint = |a: Option<CmdId>, b: Option<CmdId>| {
            let mut cmds = [None, None];
            cmds[w] = a;
            cmds[w.opponent()] = b;
            cmds
        };
        let r = if self.s.eng.simultaneous {
            mine.iter().any(|&a| {
                theirs
                    .iter()
                    .all(|&b| self.all_outcomes_win(st, joint(a, b), d - 1))
            })
        } else if st.to_move == w {
            mine.iter()
                .any(|&a| self.all_outcomes_win(st, joint(a, None), d - 1))
        } else {
            theirs
                .iter()
                .all(|&b| self.all_outcomes_win(st, joint(None, b), d - 1))
        };
        if !self.s.stopped {
            self.memo.put(key, d, r);
        }
        r
    }

    /// The fewest plies (≤ d) within which h wins from `st`, if any.
    fn fastest(&mut self, st: &State, d: u32) -> Option<u32> {
        (0..=d).find(|&n| self.win(st, n))
    }

    /// h's winning move from `st` within `d` plies (h or both to move).
    fn winning_move(&mut self, st: &State, d: u32) -> Option<Option<CmdId>> {
        let hm = moves(&self.s.eng, st, Side::H);
        let cm = moves(&self.s.eng, st, Side::C);
        hm.into_iter().find(|&a| {
            if self.s.eng.simultaneous {
                cm.iter().all(|&b| self.all_outcomes_win(st, [a, b], d - 1))
            } else {
                self.all_outcomes_win(st, [a, None], d - 1)
            }
        })
    }

    /// The strategy tree from `st`, where h wins within `d` plies; each h node plays its
    /// quickest win.
    fn build(&mut self, st: &State, d: u32) -> Strategy {
        self.built += 1;
        let mut node = Strategy {
            to_move: Mover::Win,
            h: None,
            next: vec![],
            truncated: false,
        };
        if st.outcome == Some(Outcome::H) {
            return node;
        }
        let d = self.fastest(st, d).unwrap_or(d);
        let prog = self.s.eng.prog;
        let sim = self.s.eng.simultaneous;
        node.to_move = if sim {
            Mover::Both
        } else {
            Mover::from(st.to_move)
        };
        if self.built >= TREE_CAP || d == 0 {
            node.truncated = true;
            return node;
        }
        let replies: Vec<[Option<CmdId>; 2]> = if sim || st.to_move == Side::H {
            let Some(a) = self.winning_move(st, d) else {
                node.truncated = true;
                return node;
            };
            node.h = Some(cmd_name(prog, a));
            if sim {
                moves(&self.s.eng, st, Side::C)
                    .into_iter()
                    .map(|b| [a, b])
                    .collect()
            } else {
                vec![[a, None]]
            }
        } else {
            moves(&self.s.eng, st, Side::C)
                .into_iter()
                .map(|b| [None, b])
                .collect()
        };
        for cmds in replies {
            let kids = self.s.outcomes(st, cmds, SOLVER_CHANCE_EXACT);
            let labels = outcome_labels(prog, &kids);
            for (k, (c, p)) in kids.iter().enumerate() {
                if self.built >= TREE_CAP {
                    node.truncated = true;
                    break;
                }
                let then = self.build(c, d - 1);
                node.next.push(Branch {
                    c: (sim || st.to_move == Side::C).then(|| cmd_name(prog, cmds[1])),
                    p: *p,
                    outcome: labels.get(k).cloned(),
                    then,
                });
            }
            self.s.recycle(kids);
        }
        node
    }
}

/// [`super::forced_win`] with the strategy tree and the fewest plies; stops undecided soon after
/// `cancel` is set. A forced win must hold for every chance outcome.
pub fn forced_win_in(
    prog: &RuleProgram,
    start: &State,
    plies: u32,
    node_cap: u64,
    cancel: Option<&Arc<AtomicBool>>,
) -> ForcedWin {
    let mut s = Searcher::new(prog, 0);
    s.node_budget = node_cap;
    if let Some(c) = cancel {
        s.cancel = c.clone();
    }
    let bound = super::bound::WinBound::new(&s.eng);
    let mut pr = Prover {
        s: &mut s,
        memo: Memo::default(),
        bound,
        pruned: 0,
        built: 0,
        winner: Side::H,
    };
    // Deepening from the bound (no win can come sooner) a quarter at a time, on half the
    // budget: what the memo learns at each depth serves the next, the first depth that wins is
    // narrowed to the fastest, and the depths completed are proved free of a forced win even
    // when the budget runs out. Then, if undecided, the full depth on the rest of the budget
    // (with all that was learnt).
    let first = if pr.bound.no_error_within(start, plies) {
        pr.bound.plies(start, Side::H).max(1)
    } else {
        1
    };
    let mut result = false;
    let mut none_within = first.saturating_sub(1).min(plies);
    let mut d = first.min(plies);
    pr.s.node_budget = node_cap / 2;
    if first <= plies {
        loop {
            result = pr.win(start, d);
            if result || pr.s.stopped || d == plies {
                break;
            }
            none_within = d;
            d = (d + (d / 4).max(1)).min(plies);
        }
    }
    if pr.s.stopped && !cancelled(cancel) {
        pr.s.stopped = false;
        pr.s.node_budget = node_cap;
        d = plies;
        result = pr.win(start, d);
        if !result && !pr.s.stopped {
            none_within = plies;
        }
    }
    if result {
        while d > none_within + 1 && pr.win(start, d - 1) && !pr.s.stopped {
            d -= 1;
        }
    }
    let mut out = ForcedWin {
        exists: Some(result),
        min_plies: None,
        none_within: None,
        first_move: None,
        strategy: None,
        sampled: false,
        gave_up: None,
        rule_errors: Default::default(),
    };
    if pr.s.stopped && !result {
        out.exists = None;
        out.none_within = Some(none_within);
        out.gave_up = Some(if cancelled(cancel) {
            Budget::Cancelled
        } else {
            Budget::Nodes(node_cap)
        });
    } else if result {
        // A fresh budget for the tree (a cancel still stops it).
        pr.s.node_budget = pr.s.nodes.saturating_add(node_cap);
        pr.s.stopped = false;
        out.min_plies = Some(d);
        if pr.s.eng.simultaneous || start.to_move == Side::H {
            out.first_move = pr.winning_move(start, d).map(|m| cmd_name(prog, m));
        }
        out.strategy = Some(pr.build(start, d));
    }
    out.sampled = pr.s.sampled;
    out.rule_errors = std::mem::take(&mut pr.s.rule_errors);
    out
}

/// A side's moves in an alternate position, judged by exact forced-win search (the tactics
/// suite, `benches/tactics.rs`): for each move, whether `side` then forces a win within
/// `plies - 1` further plies against every reply and chance outcome (`Some(true)`), whether
/// the opponent does (`Some(false)`: the move loses by force), or neither (`None`). None when
/// the node budget ran out first. The opponent's forced win after a move counts only when it
/// holds for every chance outcome of the move.
pub fn judge_moves(
    prog: &RuleProgram,
    st: &State,
    plies: u32,
    node_cap: u64,
) -> Option<Vec<(Option<CmdId>, Option<bool>)>> {
    let side = st.to_move;
    if plies == 0 || st.outcome.is_some() {
        return Some(Vec::new());
    }
    let mut s = Searcher::new(prog, 0);
    s.node_budget = node_cap;
    let mine = moves(&s.eng, st, side);
    let mut out = Vec::with_capacity(mine.len());
    let mut memo = [Memo::default(), Memo::default()];
    let bound = super::bound::WinBound::new(&s.eng);
    for m in mine {
        let mut cmds = [None, None];
        cmds[side] = m;
        let mut verdict = None;
        for (w, want) in [(side, true), (side.opponent(), false)] {
            let mut pr = Prover {
                s: &mut s,
                memo: std::mem::take(&mut memo[w.index()]),
                bound: bound.clone(),
                pruned: 0,
                built: 0,
                winner: w,
            };
            let (won, n) = pr.outcomes_won(st, cmds, plies - 1);
            let stopped = pr.s.stopped;
            memo[w.index()] = std::mem::take(&mut pr.memo);
            if stopped {
                return None;
            }
            if n > 0 && won == n {
                verdict = Some(want);
                break;
            }
        }
        out.push((m, verdict));
    }
    Some(out)
}

/// The strategy as indented text: one line per line of play, " → " between plies, a new
/// indented line for each of several replies or chance outcomes; at most `max_plies` deep and
/// `max_lines` lines.
pub fn strategy_text(st: &Strategy, max_plies: u32, max_lines: usize) -> String {
    fn join(line: &mut String, seg: &str) {
        if !line.trim().is_empty() {
            line.push_str(" → ");
        }
        line.push_str(seg);
    }
    fn label(b: &Branch) -> String {
        let p = match b.outcome.as_deref().filter(|o| !o.is_empty()) {
            _ if b.p >= 1.0 - 1e-12 => String::new(),
            Some(o) => format!("({:.0}%: {o})", b.p * 100.0),
            None => format!("({:.0}%)", b.p * 100.0),
        };
        match (&b.c, p.is_empty()) {
            (Some(c), true) => format!("c: {c}"),
            (Some(c), false) => format!("c: {c} {p}"),
            (None, _) => p,
        }
    }
    fn walk(
        n: &Strategy,
        mut line: String,
        indent: usize,
        depth: u32,
        out: &mut Vec<String>,
        max_lines: usize,
    ) {
        if out.len() >= max_lines {
            return;
        }
        if let Some(h) = &n.h {
            join(&mut line, &format!("h: {h}"));
        }
        if n.to_move == Mover::Win {
            line.push_str(" (win)");
            out.push(line);
            return;
        }
        if n.truncated || depth == 0 || n.next.is_empty() {
            join(&mut line, "…");
            out.push(line);
            return;
        }
        if let [only] = n.next.as_slice() {
            let l = label(only);
            if !l.is_empty() {
                join(&mut line, &l);
            }
            walk(&only.then, line, indent, depth - 1, out, max_lines);
        } else {
            if !line.trim().is_empty() {
                out.push(line);
            }
            for b in &n.next {
                let mut l = " ".repeat(indent + 2);
                l.push_str(&label(b));
                walk(&b.then, l, indent + 2, depth - 1, out, max_lines);
            }
        }
    }
    let mut out = Vec::new();
    walk(st, "  ".into(), 2, max_plies, &mut out, max_lines);
    if out.len() >= max_lines {
        out.push("  … (more lines not shown)".into());
    }
    out.join("\n") + "\n"
}

/// [`super::value_iteration`], stopping (None) soon after `cancel` is set. A joint move with
/// random effects leads to a distribution over positions; its payoff is the mean.
pub fn value_iteration_in(
    prog: &RuleProgram,
    start: &State,
    bound: i64,
    max_states: usize,
    cancel: Option<&Arc<AtomicBool>>,
) -> Option<GameValue> {
    value_iteration_timed(prog, start, bound, max_states, VALUE_TIME, cancel)
}

/// [`value_iteration_in`] with `time` for iterating instead of [`VALUE_TIME`] (past it the
/// values reached are returned with `timed_out`).
pub fn value_iteration_timed(
    prog: &RuleProgram,
    start: &State,
    bound: i64,
    max_states: usize,
    time: Duration,
    cancel: Option<&Arc<AtomicBool>>,
) -> Option<GameValue> {
    value_iteration_budgeted(prog, start, bound, max_states, time, None, cancel)
}

/// [`value_iteration_timed`] that also stops after `solves` positions solved (over all
/// sweeps; then `out_of_work`): a budget in work, so that whether the value is found within
/// it is the same on any machine.
pub fn value_iteration_budgeted(
    prog: &RuleProgram,
    start: &State,
    bound: i64,
    max_states: usize,
    time: Duration,
    solves: Option<u64>,
    cancel: Option<&Arc<AtomicBool>>,
) -> Option<GameValue> {
    let mut table = match exact::game_table(prog, start, bound, max_states, cancel, false) {
        Ok(t) => t,
        Err(_) => return None, // cancelled (a bounded listing stops at nothing else)
    };
    table.solve_budget = solves;
    let it = table
        .iterate(&exact::GAME_VALUE, Instant::now() + time, cancel)
        .ok()?;
    let limit = table.limit;
    let (value, h, c, exploitability) = table.root_game();
    // Whether games end is read from the mixes of play (discounted, as `cpu:exact` plays):
    // undiscounted, a side sure to win may as well wait forever, and the solver's mix may.
    let share_out_of_work;
    let (decisive, used) = match table.iterate(&exact::PLAY_SHARE, Instant::now() + time, cancel) {
        Ok(share) => {
            share_out_of_work = share.out_of_work;
            table.decisive_and_used(Instant::now() + time)
        }
        Err(_) => return None,
    };
    let length = (table.positions <= LENGTH_POSITIONS)
        .then(|| table.expected_length_at_start(Instant::now() + time))
        .flatten();
    Some(GameValue {
        decisive,
        used,
        length,
        value,
        h,
        c,
        exploitability,
        states: table.positions,
        frontier: table.frontier,
        iterations: it.sweeps,
        residual: it.residual,
        timed_out: it.timed_out,
        out_of_work: it.out_of_work || share_out_of_work,
        bound: table.bound,
        limit,
        out_of_memory: it.out_of_memory,
        rule_errors: table.rule_errors.clone(),
    })
}

/// Games of at most this many positions get their expected length under optimal play
/// ([`GameValue::length`]; `kumite suggest --max-turns` reads it).
pub const LENGTH_POSITIONS: usize = 20_000;

/// The time value iteration may take once the positions are listed: past it the values
/// reached are reported as not converged (a game with a vast bounded state space would
/// otherwise run its 5,000 iterations for hours).
pub const VALUE_TIME: Duration = Duration::from_secs(60);

/// The game-value table of [`value_iteration_in`] itself, for callers that read the value of
/// any position (the Python package compares it with OpenSpiel's value iteration): the same
/// positions and bound, iterated undiscounted ([`exact::GAME_VALUE`]) — or, with `play`, as
/// `cpu:exact` plays ([`exact::PLAY`], discounted: its strategies win rather than wait, where
/// the undiscounted values may leave a stationary mix that never wins and can be exploited) —
/// with how the iteration ended. None if cancelled.
pub fn game_value_table(
    prog: &RuleProgram,
    start: &State,
    bound: i64,
    max_states: usize,
    play: bool,
    cancel: Option<&Arc<AtomicBool>>,
) -> Option<(exact::ExactTable, exact::Iterated)> {
    let mut table = exact::game_table(prog, start, bound, max_states, cancel, true).ok()?;
    let settings = if play {
        &exact::PLAY
    } else {
        &exact::GAME_VALUE
    };
    let it = table
        .iterate(settings, Instant::now() + VALUE_TIME, cancel)
        .ok()?;
    Some((table, it))
}

/// Who moves at a step or node: "h", "c", "both" (simultaneous), or "win" (h has won: a
/// strategy tree's leaf) in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mover {
    /// h alone.
    H,
    /// c alone.
    C,
    /// Both at once (simultaneous mode).
    Both,
    /// Nobody: h has won.
    Win,
}

impl Mover {
    /// "h", "c", "both" or "win".
    pub fn as_str(self) -> &'static str {
        match self {
            Mover::H => "h",
            Mover::C => "c",
            Mover::Both => "both",
            Mover::Win => "win",
        }
    }
}

impl From<Side> for Mover {
    fn from(s: Side) -> Self {
        match s {
            Side::H => Mover::H,
            Side::C => Mover::C,
        }
    }
}

/// One step of a win path.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PathStep {
    /// Who moved: h or c, or both in simultaneous mode.
    pub side: Mover,
    /// The command (null for a pass); in simultaneous mode "h/c".
    pub command: Option<String>,
    /// Both sides' states after the step.
    pub states: crate::engine::players::BothStates,
    /// Probability of the chance outcome the path assumes at this step (1 without chance).
    pub probability: f64,
}

/// The shortest sequence of moves (h and c cooperating) that ends with h winning, by breadth-first
/// search over positions (the turn counter is not part of a position), up to `max_plies`. Chance
/// outcomes are branches: the path may assume favourable outcomes. (A search that another
/// thread may cancel calls [`shortest_win_in`] with its flag.)
pub fn shortest_win(
    prog: &RuleProgram,
    start: &State,
    max_plies: u32,
    position_cap: usize,
) -> ShortestWin {
    shortest_win_in(prog, start, max_plies, position_cap, None)
}

/// Whether h can force a win within `plies` (alternate: one side's move per ply; simultaneous:
/// one joint turn per ply, h choosing without seeing c's move) against every reply and every
/// chance outcome, and h's first winning move. [`forced_win_in`] also gives the tree.
pub fn forced_win(
    prog: &RuleProgram,
    start: &State,
    plies: u32,
    node_cap: u64,
) -> (Option<bool>, Option<String>) {
    let f = forced_win_in(prog, start, plies, node_cap, None);
    (f.exists, f.first_move)
}

/// The result of value iteration on a simultaneous game.
#[derive(Clone, Debug)]
pub struct GameValue {
    /// Value for h at the start (+1 win, −1 loss, 0 draw or endless).
    pub value: f64,
    /// h's moves and optimal mix at the start.
    pub h: Vec<(Option<CmdId>, f64)>,
    /// c's moves and optimal mix at the start.
    pub c: Vec<(Option<CmdId>, f64)>,
    /// How much a best reply gains against the start strategies (in the solved game).
    pub exploitability: f64,
    /// Positions in the solved game.
    pub states: usize,
    /// Positions cut off by the bound (valued by the derived evaluation, scaled into (−1, 1)).
    pub frontier: usize,
    /// Iterations until the largest change fell below 1e-10 (at most 5,000).
    pub iterations: u32,
    /// The largest change of a value in the last iteration: below 1e-10 when it converged,
    /// else the 5,000 iterations ran out first (the value and strategies are then estimates,
    /// and the exploitability is that of the start's strategies in the values reached).
    pub residual: f64,
    /// The iterations stopped at [`VALUE_TIME`] rather than by converging or at 5,000.
    pub timed_out: bool,
    /// The iterations stopped at the solve budget given (see
    /// [`value_iteration_budgeted`]) rather than by converging.
    pub out_of_work: bool,
    /// The bound on state values that was needed (None: every reachable position was solved).
    pub bound: Option<i64>,
    /// The probability that a game from the start ends with a winner when both sides play the
    /// optimal mixes (the rest: a draw, or play that never ends); positions past the bound
    /// count as ending with a winner. See [`exact::ExactTable::decisive_share`].
    pub decisive: f64,
    /// Each side's moves (h's, c's) that optimal play (discounted, as in `decisive`) uses
    /// with a positive probability in some solved position.
    pub used: [Vec<Option<CmdId>>; 2],
    /// The expected number of turns of a game from the start under those mixes, for a game
    /// of at most [`LENGTH_POSITIONS`] positions; None for a larger one, or when play
    /// goes on to the turn limit (or for ever).
    pub length: Option<f64>,
    /// How the turn limit was taken into account: it cannot end a game, or every position was
    /// valued with its turns left.
    pub limit: exact::LimitUse,
    /// The iteration stopped because the values by turns left outgrew
    /// [`exact::HISTORY_CAP`] (the value is then not converged).
    pub out_of_memory: bool,
    /// The moves between the solved positions that raised a rule error.
    pub rule_errors: RuleErrors,
}

/// What a game value's rule errors count.
const GAME_VALUE_ERRORS: &str = "moves between the solved positions";

impl GameValue {
    /// The rule errors met, in words (None: none).
    pub fn errors_text(&self) -> Option<String> {
        self.rule_errors.text(GAME_VALUE_ERRORS)
    }

    /// The rule errors met, for JSON (None: none).
    pub fn errors_summary(&self) -> Option<RuleErrorSummary> {
        self.rule_errors.summary(GAME_VALUE_ERRORS)
    }

    /// Which positions were solved, in words, and which limit left the rest to an estimate (for
    /// the outputs that say how a value was found): all of them; or, in a game with too many,
    /// those within the bound on state values; or the first [`VALUE_POSITIONS`] when even those
    /// are too many.
    pub fn positions_text(&self) -> String {
        let limit = self.limit.text();
        let scope = self.scope_text();
        if limit.is_empty() {
            scope
        } else {
            format!("{scope}; {limit}")
        }
    }

    /// [`Self::positions_text`] without the turn limit.
    fn scope_text(&self) -> String {
        let n = |x: usize| thousands(x as u64);
        match self.bound {
            None => format!(
                "all {} reachable positions (nothing estimated)",
                n(self.states)
            ),
            Some(b) if self.states >= VALUE_POSITIONS => format!(
                "the first {} positions reached — the game has more than the limit of {} positions, \
                 so {} positions past that limit are estimated by the derived evaluation, not \
                 solved (state values were also kept within ±{b} of the start)",
                n(self.states),
                n(VALUE_POSITIONS),
                n(self.frontier)
            ),
            Some(b) => format!(
                "the {} positions in which every state stays within ±{b} of its start value — the \
                 game has too many positions to solve them all, so {} positions past that bound \
                 are estimated by the derived evaluation, not solved",
                n(self.states),
                n(self.frontier)
            ),
        }
    }
}

/// How many positions `kumite solve --value`, the studio's Win path tab and the report's exact
/// section solve at most (past it, positions are estimated: see [`GameValue::positions_text`]).
pub const VALUE_POSITIONS: usize = 200_000;

/// How far state values may move from the start in the solved game of `kumite solve --value`,
/// the studio's Win path tab and the report's exact section.
pub const VALUE_BOUND: i64 = 12;

/// Solves a simultaneous game by value iteration with a linear program (matrix game) per
/// position. The state space is bounded: every position reachable from `start` whose state
/// values stay within `bound` of their starting values is solved exactly; positions beyond are a
/// frontier valued by the derived evaluation (so a small bound gives an estimate). The turn
/// counter is not part of a position: an endless game is worth 0. Chance is averaged. (A run
/// that another thread may cancel calls [`value_iteration_in`] with its flag.)
pub fn value_iteration(
    prog: &RuleProgram,
    start: &State,
    bound: i64,
    max_states: usize,
) -> GameValue {
    value_iteration_in(prog, start, bound, max_states, None).expect("not cancelled")
}
