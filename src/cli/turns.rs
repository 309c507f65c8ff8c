//! What terminal play shows without `--trace`: each turn's moves and what they changed in one
//! or two lines, and at the end how the game was decided (the deciding rule's line and its
//! conditions, with the sides written out).
//!
//! ```text
//! turn 7: h [組む]  c [ボディスラム] → c.体力 19→16, c.ダウン 0→1
//!    c may no longer [組む] [チョップ]; c may now [起き上がる]
//! …
//! decided by line 33: h [フォール] with c.体力<=8
//! ```

use crate::engine::{Change, GameResult, TurnTrace};
use crate::program::{CCond, CEffect, LOSE_STATE, RuleProgram, WIN_STATE};
use crate::side::Side;
use crate::syntax::lexer::is_name_char;

/// One turn in a line: the moves and the state changes they caused; a second line when
/// commands were switched on or off (for the coming turn too).
pub fn turn_summary(t: &TurnTrace) -> String {
    let moves: Vec<String> = t
        .moves
        .iter()
        .map(|(s, c)| match c {
            Some(c) => format!("{s} [{c}]"),
            None => format!("{s} (pass)"),
        })
        .collect();
    let (states, switches): (Vec<&Change>, Vec<&Change>) =
        t.changes.iter().partition(|c| !c.name.starts_with('['));
    let mut s = format!("turn {}: {}", t.turn, moves.join("  "));
    let changed = net(&states);
    if changed.is_empty() {
        s.push_str(" → no change");
    } else {
        let parts: Vec<String> = changed
            .iter()
            .map(|(side, name, from, to)| format!("{side}.{name} {from}→{to}"))
            .collect();
        s.push_str(&format!(" → {}", parts.join(", ")));
    }
    let switched = net(&switches);
    let mut said: Vec<String> = Vec::new();
    for side in Side::BOTH {
        for (on, words) in [(false, "may no longer"), (true, "may now")] {
            let cmds: Vec<&str> = switched
                .iter()
                .filter(|(s, _, _, to)| *s == side && (*to != 0) == on)
                .map(|(_, name, ..)| *name)
                .collect();
            if !cmds.is_empty() {
                said.push(format!("{side} {words} {}", cmds.join(" ")));
            }
        }
    }
    if !said.is_empty() {
        s.push_str(&format!("\n   {}", said.join("; ")));
    }
    s
}

/// Changes folded per (side, name) into first value → last value, in the order first seen;
/// those that came back to where they started are left out.
fn net<'a>(changes: &[&'a Change]) -> Vec<(Side, &'a str, i64, i64)> {
    let mut out: Vec<(Side, &'a str, i64, i64)> = Vec::new();
    for c in changes {
        match out
            .iter_mut()
            .find(|(s, n, ..)| *s == c.side && *n == c.name)
        {
            Some(e) => e.3 = c.to,
            None => out.push((c.side, c.name.as_str(), c.from, c.to)),
        }
    }
    out.retain(|(_, _, from, to)| from != to);
    out
}

/// How a finished game was decided, from its last turn's trace: the rules that made the winner
/// win (their lines and conditions, sides written out), both sides' when both won at once, or
/// the turn limit. None when the trace does not show it (a forfeit, an error).
pub fn decided_by(
    p: &RuleProgram,
    last: Option<&TurnTrace>,
    result: GameResult,
    turns: u32,
    max_turns: Option<u32>,
) -> Option<String> {
    let winners: &[Side] = match result {
        GameResult::H => &[Side::H],
        GameResult::C => &[Side::C],
        GameResult::Draw => &[Side::H, Side::C],
        GameResult::Error => return None,
    };
    let mut found: Vec<(usize, Side, String)> = Vec::new();
    if let Some(t) = last {
        for (side, rule, line, _) in t.fired.iter().chain(&t.end_check) {
            let acting: Side = if *side == "c" { Side::C } else { Side::H };
            let Some(r) = p.rules.get(*rule) else {
                continue;
            };
            let wins = p
                .rule_effects(r)
                .iter()
                .filter_map(|e| winner_of(e, acting));
            let mut wins: Vec<Side> = wins.filter(|w| winners.contains(w)).collect();
            wins.dedup();
            if wins.is_empty() || found.iter().any(|(l, a, _)| l == line && *a == acting) {
                continue;
            }
            found.push((*line, acting, conditions_text(p, *rule, acting)));
        }
    }
    if found.is_empty() {
        return match (result, max_turns) {
            (GameResult::Draw, Some(m)) if turns >= m => {
                Some(format!("decided by the turn limit: {m} turns, a draw"))
            }
            _ => None,
        };
    }
    let parts: Vec<String> = found
        .iter()
        .map(|(line, _, conds)| format!("line {line}: {conds}"))
        .collect();
    Some(if result == GameResult::Draw {
        format!("both won at the same end check — {}", parts.join("; "))
    } else {
        format!("decided by {}", parts.join("; "))
    })
}

/// The side an effect makes win when `acting` applies it (`S.勝利`, `O.敗北`, `c.勝利` …).
fn winner_of(e: &CEffect, acting: Side) -> Option<Side> {
    let (side, state) = match *e {
        CEffect::Bool {
            side,
            state,
            value: true,
        } => (side, state),
        CEffect::Update { side, state, .. } => (side, state),
        _ => return None,
    };
    let whose = side.resolve(acting);
    match state {
        WIN_STATE => Some(whose),
        LOSE_STATE => Some(whose.opponent()),
        _ => None,
    }
}

/// A rule's conditions read for `acting`: its command atoms as `h [フォール]` (`c not [受け]`,
/// `h [ジャブ] 1 turn before`), then the other conditions with `S.`/`O.` written as the sides
/// they are (`with c.体力<=8`).
pub fn conditions_text(p: &RuleProgram, rule: usize, acting: Side) -> String {
    let Some(r) = p.rules.get(rule) else {
        return String::new();
    };
    let name = Side::name;
    let (c0, c1) = r.conds;
    let mut moves = Vec::new();
    let mut others = Vec::new();
    for k in c0..c1 {
        match p.conds.get(k as usize) {
            Some(CCond::Cmd {
                neg,
                opp,
                back,
                cmd,
            }) => {
                let side = if *opp { acting.opponent() } else { acting };
                let when = match back {
                    0 => String::new(),
                    1 => " the turn before".to_string(),
                    n => format!(" {n} turns before"),
                };
                moves.push(format!(
                    "{} {}[{}]{when}",
                    name(side),
                    if *neg { "not " } else { "" },
                    p.commands.get(*cmd as usize).map_or("?", String::as_str)
                ));
            }
            Some(_) => others.push(absolute(&p.conds_text((k, k + 1)), acting)),
            None => {}
        }
    }
    match (moves.is_empty(), others.is_empty()) {
        (true, true) => "(no conditions)".into(),
        (false, true) => moves.join(", "),
        (true, false) => others.join(", "),
        (false, false) => format!("{} with {}", moves.join(", "), others.join(", ")),
    }
}

/// Condition text with the relative prefixes `S.` and `O.` written as the sides they stand for
/// when `acting` acts (a name never holds a `.`, so a prefix is an `S`/`O` before a `.` that no
/// name character precedes).
fn absolute(text: &str, acting: Side) -> String {
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let starts = prev.is_none_or(|p| !is_name_char(p));
        if starts && (c == 'S' || c == 'O') && chars.peek() == Some(&'.') {
            let side = if c == 'S' { acting } else { acting.opponent() };
            out.push_str(side.name());
        } else {
            out.push(c);
        }
        prev = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::side::Side;
    #[test]
    fn relative_prefixes_become_sides() {
        assert_eq!(super::absolute("O.体力<=8", Side::H), "c.体力<=8");
        assert_eq!(
            super::absolute("S.溜め>=O.溜め+1", Side::C),
            "c.溜め>=h.溜め+1"
        );
        assert_eq!(super::absolute("abs(S.x-O.y)>0", Side::H), "abs(h.x-c.y)>0");
        // A name ending in S or O is not a prefix (names hold no '.', but stay safe).
        assert_eq!(super::absolute("BOSS>0", Side::H), "BOSS>0");
    }
}
