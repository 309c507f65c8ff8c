//! Derived victory-evaluation conditions (勝利評価条件, rules/README.md §11, the contract's §10): from the compiled rules
//! alone, the graph of conditions that lead to a win, each side's estimated distance to winning
//! in a position, and the evaluation the CPU searches with.
//!
//! This module holds the graph's data model (targets, nodes, achievers, decisive rules); the
//! work is split by concern:
//! - [`conditions`] reads a rule's conditions and effects into targets, steps and decisive ways;
//! - [`graph`] builds the [`VictoryGraph`] from the rules (nodes to [`DEPTH_CAP`], spends, re-arms);
//! - [`steps`] is how an effect moves a state, with clamped (`min`/`max`) steps;
//! - [`distance`] walks the tree in a position: each side's [`Distances`] and why a win is
//!   out of reach;
//! - [`evaluate`] turns distances into the search's evaluation, and [`fast`] compiles the same
//!   walk for the CPU (same formulas: [`decisive_cost`], [`own_cost_of`]);
//! - [`out_of_reach`] explains ∞ distances in the tree view.

use crate::engine::{Engine, Side, State};
use crate::program::RuleProgram;
use crate::syntax::ast::SideRef;
use rustc_hash::FxHashMap as HashMap;

mod conditions;
mod distance;
mod evaluate;
pub mod fast;
mod graph;
mod out_of_reach;
mod steps;
pub(crate) use conditions::classify;
use conditions::{NEVER_HOLDS, decisive_ways, step_of};
use distance::target_holds;
pub use distance::{Distances, distances};
pub(crate) use distance::{decisive_cost, free_rate, free_step, own_cost_of, regain_turns};
pub(crate) use evaluate::SoftMin;
pub use evaluate::{Evaluate, GraphEval, decided_value, evaluate, soft_distance};
pub use fast::FastEval;
pub use out_of_reach::{OUT_OF_REACH_LEGEND, OutOfReach, out_of_reach, out_of_reach_note};
use steps::moves_toward;
pub use steps::{Clamped, Step};

/// Distances are capped here: at or above it a distance is unreachable (∞). The tree and the
/// studio show distances up to it (a win 2,000 turns away under `T300` is shown as 2,000, not
/// as unreachable); only the evaluation counts them at the turn limit (§10.5).
pub const UNREACHABLE: u32 = 1_000_000;
/// How deep the graph goes below the decisive rules.
pub const DEPTH_CAP: u32 = 8;

/// What a victory-evaluation condition asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// The state lies in [lo, hi].
    Range(i64, i64),
    /// The state is non-zero.
    NonZero,
    /// The command is enabled.
    Enabled,
}

/// A node of the graph: a condition in side-relative form (S = the side pursuing the win).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeKey {
    /// Whose state or command, as written (S, O, h or c).
    pub side: SideRef,
    /// State id, or command id for [`Target::Enabled`].
    pub id: u32,
    /// What must hold.
    pub target: Target,
}

/// An achiever: a rule whose effect moves a node toward its target.
#[derive(Clone, Debug, PartialEq)]
pub struct Achiever {
    /// Rule index.
    pub rule: usize,
    /// Source line.
    pub line: usize,
    /// How the effect moves the value.
    pub step: Step,
    /// Needs a command of its own (false: fires by itself, e.g. a periodic or availability rule).
    pub needs_command: bool,
    /// Period of the rule.
    pub period: u32,
    /// The achiever's own conditions that are nodes (indices into the graph's nodes).
    pub conds: Vec<usize>,
    /// Its conditions that were excluded (texts).
    pub excluded: Vec<String>,
    /// Its conditions on the opponent's move (`O.[ガード]`, `!O.[ガード]`): a distance through
    /// it counts on the opponent playing so (see [`Distances::assumes`]).
    pub assumes: Vec<String>,
    /// The opponent's own instance of the rule (it fires by itself on the opponent's side, e.g.
    /// `S.体力<=0:S.ダウン+1` seen from the side that knocks the other down); its conditions
    /// are written from the pursuer's side.
    pub opponent: bool,
    /// An achiever for this pursuer only: the node names a side absolutely (`h.点>=3`) and
    /// the rule writes it relatively (`S.点+1` moves h's 点 when h acts), or the other way
    /// round; None: for either.
    pub only: Option<Side>,
    /// Turns to bring its conditions back after each firing when its own effects undo one of
    /// them (`S.体力<=0:S.ダウン+1,S.体力=10` resets 体力, so every further knockdown needs
    /// 体力 brought down from 10 again); 0 when it undoes none, [`NO_REARM`] when an undone
    /// condition cannot be brought back.
    pub rearm: u32,
    /// The conditions it uses up: each firing moves them away from their targets (see
    /// [`Spend`]); empty for an achiever that needs no command.
    pub spends: Vec<Spend>,
}

/// A condition an achiever uses up (`S.溜め>=2::[必殺]` with `[必殺]:S.溜め-2,O.体力-2`): every
/// firing moves the condition's state `per` away from its target, so firing it `n` times needs
/// `(n − 1)·per` beyond what the current value holds in reserve, brought back by the node's own
/// achievers (§10.5 refined; see rules/README.md §11 "Using up a condition").
#[derive(Clone, Debug, PartialEq)]
pub struct Spend {
    /// The condition node (a range open on one side).
    pub node: usize,
    /// How far each firing moves it away from its target.
    pub per: f64,
    /// The node's rate from every command-free achiever (as for re-arming).
    pub free: f64,
}

impl Achiever {
    /// Whether it achieves the node for pursuer `x`.
    pub fn serves(&self, x: Side) -> bool {
        self.only.is_none_or(|s| s == x)
    }

    /// The rule as text (made when shown: a big file has thousands of achievers).
    pub fn text(&self, p: &RuleProgram) -> String {
        p.rule_text(self.rule)
    }
    /// Where the rule came from (line, & mirror, $ macro).
    pub fn origin(&self, p: &RuleProgram) -> String {
        p.meta[self.rule].origin.describe()
    }
}

/// [`Achiever::rearm`] of an achiever that can fire only once.
pub const NO_REARM: u32 = u32::MAX;

/// An achiever's own cost, `own` firings' worth, with the turns to re-arm it between firings.
pub(crate) fn with_rearm(own: u32, rearm: u32) -> Option<u32> {
    match (own, rearm) {
        (_, 0) | (0 | 1, _) => Some(own),
        (_, NO_REARM) => None,
        _ => Some(own.saturating_add((own - 1).saturating_mul(rearm))),
    }
}

impl Target {
    /// The target that holds exactly when this one does not, when it is one (a range open on
    /// one side, non-zero, zero); None for a range bounded on both sides or a command.
    pub fn negated(self) -> Option<Target> {
        Some(match self {
            Target::NonZero => Target::Range(0, 0),
            Target::Range(0, 0) => Target::NonZero,
            Target::Range(i64::MIN, hi) if hi != i64::MAX => {
                Target::Range(hi.checked_add(1)?, i64::MAX)
            }
            Target::Range(lo, i64::MAX) if lo != i64::MIN => {
                Target::Range(i64::MIN, lo.checked_sub(1)?)
            }
            _ => return None,
        })
    }
}

/// A node with its level and achievers.
#[derive(Clone, Debug)]
pub struct Node {
    /// The condition.
    pub key: NodeKey,
    /// Display text, e.g. `O.後ろ余裕度<=0`.
    pub text: String,
    /// 1 = a condition of a decisive rule; deeper levels are conditions of achievers.
    pub level: u32,
    /// Rules that move it toward its target.
    pub achievers: Vec<Achiever>,
    /// The greatest common divisor of its achievers' constant steps (`S.点+3`: 3; 1 once a
    /// step is a `rand` range or not a constant; 0 while none adds): the values they can land
    /// on from the current one, so a bounded target between them is never hit (§10.5's
    /// overshoot: `S.点+3` from 0 never makes `S.点==7` hold).
    pub grid: i64,
}

/// A decisive rule: one that makes S win.
#[derive(Clone, Debug)]
pub struct Decisive {
    /// Rule index.
    pub rule: usize,
    /// Source line.
    pub line: usize,
    /// The rule as text.
    pub text: String,
    /// Its conditions that are nodes.
    pub conds: Vec<usize>,
    /// Its excluded conditions.
    pub excluded: Vec<String>,
    /// Its conditions on the opponent's move, as [`Achiever::assumes`].
    pub assumes: Vec<String>,
    /// A victory rule (no command atoms, only 勝利/敗北 effects): checked at the end of the turn
    /// its conditions come to hold, so firing it costs no turn of its own.
    pub victory: bool,
    /// The opponent's own instance of a command-free rule whose effect makes the pursuer win
    /// (`S.体力<=0:S.敗北` seen from the other side): its conditions are read with S and O
    /// exchanged (§10.3's reasoning applied to §10.1, see rules/README.md §11).
    pub opponent: bool,
    /// Decisive for this side only (a win or loss written with `h.`/`c.`); None: for either.
    pub only: Option<Side>,
    /// One of its conditions never holds (`S.x*2==7`): it can never fire, so it is unreachable.
    pub never: bool,
    /// Its period when written with one (`@5/S.点>=2:S.勝利`), else 0: it runs only on its
    /// side's own turns that are multiples of it (see [`on_period`]).
    pub period: u32,
}

impl Decisive {
    /// Whether the rule is decisive for pursuer `x`.
    pub fn counts_for(&self, x: Side) -> bool {
        self.only.is_none_or(|s| s == x)
    }

    /// How the rule is decisive, for display: empty for the pursuer's own rule.
    pub fn whose(&self) -> String {
        let only = self.only.map(|s| format!("{} only", s.name()));
        match (self.opponent, only) {
            (false, None) => String::new(),
            (false, Some(o)) => o,
            (true, None) => "the opponent's own rule, fires by itself".into(),
            (true, Some(o)) => format!("the opponent's own rule, fires by itself; {o}"),
        }
    }
}

/// Something left out of the graph, with the reason.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Excluded {
    /// The condition or effect as text.
    pub what: String,
    /// Source line of its rule.
    pub line: usize,
    /// Why.
    pub reason: String,
}

/// The victory-condition graph of a program.
#[derive(Clone, Debug)]
pub struct VictoryGraph {
    /// Nodes (identical conditions are one node).
    pub nodes: Vec<Node>,
    /// Decisive rules.
    pub decisive: Vec<Decisive>,
    /// What was excluded, and why.
    pub excluded: Vec<Excluded>,
    index: HashMap<NodeKey, usize>,
}

/// What one condition of a rule becomes.
pub(crate) enum CondKind {
    Node(NodeKey),
    /// `O.[X]`, `![X]` …: decided by the search, cost 0.
    Free,
    /// Left out: (text, reason).
    Excluded(String, String),
}

/// A node's condition as text.
pub fn node_text(p: &RuleProgram, k: &NodeKey) -> String {
    let pre = k.side.prefix();
    match k.target {
        Target::Enabled => format!("{pre}.[{}] enabled", p.commands[k.id as usize]),
        Target::NonZero => format!("{pre}.{}", p.states[k.id as usize]),
        Target::Range(0, 0) => format!("!{pre}.{}", p.states[k.id as usize]),
        Target::Range(lo, hi) if lo == hi => format!("{pre}.{}=={lo}", p.states[k.id as usize]),
        Target::Range(i64::MIN, hi) => format!("{pre}.{}<={hi}", p.states[k.id as usize]),
        Target::Range(lo, i64::MAX) => format!("{pre}.{}>={lo}", p.states[k.id as usize]),
        Target::Range(lo, hi) => format!("{lo}<={pre}.{}<={hi}", p.states[k.id as usize]),
    }
}
