//! What an unreachable (∞) condition of the victory graph means for a win. A condition is ∞ for
//! a side when the side cannot bring it about by its own moves from the position (often only the
//! opponent's moves can: being held, being knocked down). Most such nodes are alternatives the
//! side does not need — its win goes another way — and only those on the way to a win that
//! cannot be reached stand in the way. The tree text and the studio's tree say which is which.

use super::{Distances, UNREACHABLE, VictoryGraph};

/// Why a condition is shown as ∞, for one pursuing side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutOfReach {
    /// The side cannot win, and this condition is on the way: a condition of one of its
    /// decisive rules that cannot be brought about, or one beneath such a condition.
    BlocksTheWin,
    /// The side cannot bring it about, and can still win: its win goes another way (a rule
    /// that needs the condition may well be shown right above it — that rule is not the way).
    WinGoesAnotherWay,
    /// The side cannot bring it about and cannot win, but this condition is not what stops it:
    /// it only feeds an alternative, and what needs it is reached another way.
    NotNeeded,
}

/// Per node of `g`: whether (and why) it is out of reach for the side whose distances are `d`;
/// None for a node the side can bring about (or that holds).
pub fn out_of_reach(g: &VictoryGraph, d: &Distances) -> Vec<Option<OutOfReach>> {
    let inf = |i: usize| d.node.get(i).is_some_and(|&c| c >= UNREACHABLE);
    if d.to_win < UNREACHABLE {
        return (0..g.nodes.len())
            .map(|i| inf(i).then_some(OutOfReach::WinGoesAnotherWay))
            .collect();
    }
    let mut out: Vec<Option<OutOfReach>> = (0..g.nodes.len())
        .map(|i| inf(i).then_some(OutOfReach::NotNeeded))
        .collect();
    // Every ∞ condition of a decisive rule, and the ∞ conditions beneath it.
    let mut stack: Vec<usize> = g
        .decisive
        .iter()
        .zip(&d.decisive)
        .filter(|(_, cost)| **cost >= UNREACHABLE)
        .flat_map(|(r, _)| r.conds.iter().copied())
        .filter(|&c| inf(c))
        .collect();
    while let Some(i) = stack.pop() {
        if out[i] == Some(OutOfReach::BlocksTheWin) {
            continue;
        }
        out[i] = Some(OutOfReach::BlocksTheWin);
        for a in &g.nodes[i].achievers {
            stack.extend(a.conds.iter().copied().filter(|&c| inf(c)));
        }
    }
    out
}

/// The note the tree text puts after an ∞ node (empty for one that is finite for both sides):
/// `h` and `c` are the two sides' answers from [`out_of_reach`].
pub fn out_of_reach_note(h: Option<OutOfReach>, c: Option<OutOfReach>) -> String {
    use OutOfReach::*;
    let what = |w: OutOfReach, s: &str| match w {
        BlocksTheWin => format!("it blocks {s}'s win"),
        WinGoesAnotherWay => format!("{s}'s win goes another way"),
        NotNeeded => format!("what needs it is reached another way for {s}"),
    };
    match (h, c) {
        (None, None) => String::new(),
        (Some(a), Some(b)) if a == b => {
            let tail = match a {
                BlocksTheWin => "it blocks both sides' wins".to_string(),
                WinGoesAnotherWay => "both sides' wins go another way".to_string(),
                NotNeeded => "what needs it is reached another way".to_string(),
            };
            format!("   ∞: neither side brings it about by its own moves; {tail}")
        }
        _ => {
            let parts: Vec<String> = [(h, "h"), (c, "c")]
                .into_iter()
                .filter_map(|(w, s)| {
                    Some(format!("{s} cannot bring it about, and {}", what(w?, s)))
                })
                .collect();
            format!("   ∞: {}", parts.join("; "))
        }
    }
}

/// The legend the tree text prints once when some node is ∞.
pub const OUT_OF_REACH_LEGEND: &str = "∞ marks a condition a side cannot bring about by its own moves from this position (the opponent's moves may); each one says whether it blocks the side's win or the win goes another way.";
