//! The win-path searches' admissible bound (`kumite::search::bound`) and the searches it prunes,
//! checked against a plain search written here from the spec: every reachable position of a
//! game, up to a depth, by the engine's own turns (every joint move, every chance outcome
//! enumerated by replaying the turn with each draw), then
//!
//! - the cooperative distance to a win of each side by backward breadth-first search: the bound
//!   may never exceed it (it would prune a win);
//! - the forced win by plain AND-OR recursion over the same graph: `forced_win_in` must give
//!   the same verdict and fastest depth;
//! - the shortest win: `shortest_win_in` must give the same number of plies.
//!
//! On generated programs (the differential generator) and on the bundled and design files.

use kumite::engine::{Engine, Outcome, State};
use kumite::program::{CmdId, RuleProgram};
use kumite::search::bound::WinBound;
use kumite::search::solve::{ShortestWin, forced_win_in, shortest_win_in};
use kumite::side::Side;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A reachable graph of positions.
struct Graph {
    states: Vec<State>,
    depth: Vec<u32>,
    /// Per position: per joint move, its outcomes' positions.
    moves: Vec<Vec<Vec<usize>>>,
    /// The graph is complete below `depth`: positions at `limit` were not expanded.
    limit: u32,
}

#[derive(Default)]
struct Script {
    values: Vec<i64>,
    at: usize,
    ranges: Vec<(i64, i64)>,
}

fn key(st: &State) -> Vec<i64> {
    let mut k = st.vals.clone();
    k.extend(st.enabled.iter().map(|&b| b as i64));
    k.extend(st.hist.iter().map(|&h| h as i64));
    k.extend([
        st.own_turns[0] as i64,
        st.own_turns[1] as i64,
        st.turn as i64,
        st.to_move as i64,
        st.outcome.map_or(-1, |o| o as i64),
    ]);
    k
}

fn side_moves(e: &Engine, st: &State, side: Side) -> Vec<Option<CmdId>> {
    let mut v = Vec::new();
    e.enabled_commands(st, side, &mut v);
    if v.is_empty() {
        vec![None]
    } else {
        v.into_iter().map(Some).collect()
    }
}

/// Every outcome of a joint move: the turn replayed with each combination of draws (None when
/// there are more than `cap`). A turn that raises a rule error is a loss for the side whose
/// move raised it.
fn outcomes(
    e: &Engine,
    script: &Arc<Mutex<Script>>,
    st: &State,
    cmds: [Option<CmdId>; 2],
    cap: usize,
) -> Option<Vec<State>> {
    let mut out = Vec::new();
    let mut stack: Vec<Vec<i64>> = vec![vec![]];
    while let Some(values) = stack.pop() {
        {
            let mut s = script.lock().unwrap();
            s.values = values.clone();
            s.at = 0;
            s.ranges.clear();
        }
        let mut next = st.clone();
        let played = e.play(&mut next, cmds, None);
        let ranges = script.lock().unwrap().ranges.clone();
        if ranges.len() > values.len() {
            let (lo, hi) = ranges[values.len()];
            for v in lo..=hi {
                let mut more = values.clone();
                more.push(v);
                stack.push(more);
            }
        } else {
            if let Err(err) = played {
                // Every search values a move that raises a rule error as a loss for the
                // side whose move it was.
                let loser = kumite::search::rule_error_loser(e.simultaneous, st, &err);
                next = st.clone();
                next.outcome = Some(if loser == Side::H {
                    Outcome::C
                } else {
                    Outcome::H
                });
            }
            out.push(next);
        }
        if out.len() + stack.len() > cap {
            return None;
        }
    }
    Some(out)
}

fn explore(prog: &RuleProgram, limit: u32, max_positions: usize) -> Option<Graph> {
    let mut e = Engine::new(prog, 0);
    let script = Arc::new(Mutex::new(Script::default()));
    let sc = script.clone();
    e.chance = Some(Box::new(move |_turn, _side, _rule, _slot, lo, hi| {
        let mut s = sc.lock().unwrap();
        let i = s.at;
        s.at += 1;
        s.ranges.push((lo, hi));
        s.values.get(i).copied().unwrap_or(lo).clamp(lo, hi)
    }));
    let first = Side::first_mover(prog.settings.cpu_first);
    let start = e.initial(first).ok()?;
    let mut g = Graph {
        states: vec![start.clone()],
        depth: vec![0],
        moves: vec![vec![]],
        limit,
    };
    let mut index: HashMap<Vec<i64>, usize> = HashMap::new();
    index.insert(key(&start), 0);
    let mut i = 0;
    while i < g.states.len() {
        let st = g.states[i].clone();
        if st.outcome.is_some() || g.depth[i] >= limit {
            i += 1;
            continue;
        }
        let joint: Vec<[Option<CmdId>; 2]> = if e.simultaneous {
            let cm = side_moves(&e, &st, Side::C);
            side_moves(&e, &st, Side::H)
                .into_iter()
                .flat_map(|a| cm.iter().map(move |&b| [a, b]))
                .collect()
        } else {
            side_moves(&e, &st, st.to_move)
                .into_iter()
                .map(|m| st.to_move.seat(m, None))
                .collect()
        };
        for cmds in joint {
            let kids = outcomes(&e, &script, &st, cmds, 64)?;
            let mut to = Vec::new();
            for k in kids {
                let n = *index.entry(key(&k)).or_insert_with(|| {
                    g.states.push(k);
                    g.depth.push(g.depth[i] + 1);
                    g.moves.push(vec![]);
                    g.states.len() - 1
                });
                to.push(n);
            }
            g.moves[i].push(to);
        }
        if g.states.len() > max_positions {
            return None;
        }
        i += 1;
    }
    Some(g)
}

/// Cooperative distance to a win of `side` (every move and outcome at the side's choice),
/// exact for positions whose distance is at most `limit - depth`.
fn distances(g: &Graph, side: Side) -> Vec<u32> {
    let won = if side == Side::H {
        Outcome::H
    } else {
        Outcome::C
    };
    let mut d: Vec<u32> = g
        .states
        .iter()
        .map(|s| if s.outcome == Some(won) { 0 } else { u32::MAX })
        .collect();
    // Relax until stable (the graph is small).
    loop {
        let mut changed = false;
        for i in 0..g.states.len() {
            for m in &g.moves[i] {
                for &k in m {
                    if d[k] != u32::MAX && d[k] + 1 < d[i] {
                        d[i] = d[k] + 1;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return d;
        }
    }
}

/// h forces a win from `i` within `d` plies (plain AND-OR recursion).
fn forced(g: &Graph, i: usize, d: u32, memo: &mut HashMap<(usize, u32), bool>) -> bool {
    let st = &g.states[i];
    if st.outcome == Some(Outcome::H) {
        return true;
    }
    if st.outcome.is_some() || d == 0 {
        return false;
    }
    if let Some(&v) = memo.get(&(i, d)) {
        return v;
    }
    let all = |m: &Vec<usize>, memo: &mut HashMap<(usize, u32), bool>| {
        m.iter().all(|&k| forced(g, k, d - 1, memo))
    };
    let r = if st.to_move == Side::H {
        // h to move: some move whose every outcome wins.
        g.moves[i].iter().any(|m| all(m, memo))
    } else {
        g.moves[i].iter().all(|m| all(m, memo))
    };
    memo.insert((i, d), r);
    r
}

#[derive(Default)]
struct Tally {
    programs: usize,
    positions: usize,
    finite: usize,
    tight: usize,
    shortest: usize,
    forced_wins: usize,
}

/// Checks one program; the failures' descriptions.
fn check(name: &str, prog: &RuleProgram, limit: u32, tally: &mut Tally) -> Vec<String> {
    let mut bad = Vec::new();
    let Some(g) = explore(prog, limit, 60_000) else {
        return bad;
    };
    tally.programs += 1;
    let e = Engine::new(prog, 0);
    let bound = WinBound::new(&e);
    for side in Side::BOTH {
        let dist = distances(&g, side);
        for (i, st) in g.states.iter().enumerate() {
            let d = dist[i];
            // Exact only where the whole way fits below the limit.
            if d == u32::MAX || g.depth[i] + d > g.limit {
                continue;
            }
            tally.positions += 1;
            let b = bound.plies(st, side);
            if b > d {
                bad.push(format!(
                    "{name}: the bound for {} is {b} plies where a win takes {d} (position at depth {}: {:?})",
                    side.name(),
                    g.depth[i],
                    st.vals
                ));
            }
            tally.finite += 1;
            tally.tight += usize::from(b == d && d > 1);
        }
    }
    let start = &g.states[0];
    let dist_h = distances(&g, Side::H)[0];
    // The shortest win within the limit.
    let sw = shortest_win_in(prog, start, limit, 1_000_000, None);
    match (&sw, dist_h <= limit) {
        (ShortestWin::Found { path, .. }, true) if path.len() as u32 == dist_h => {
            tally.shortest += 1
        }
        (ShortestWin::GaveUp { longer, .. }, true)
            if longer.as_ref().is_some_and(|p| p.len() as u32 >= dist_h) => {}
        (ShortestWin::NoneWithin { .. }, false) => {}
        (ShortestWin::GaveUp { .. }, false) => {}
        _ => bad.push(format!(
            "{name}: shortest win {} where the plain search finds {dist_h} within {limit}",
            sw.summary()
        )),
    }
    // The forced win (alternate play; the graph's chance outcomes are all enumerated).
    if !prog.settings.simultaneous {
        let mut memo = HashMap::new();
        let plain = (1..=limit).find(|&d| forced(&g, 0, d, &mut memo));
        let f = forced_win_in(prog, start, limit, 5_000_000, None);
        if f.gave_up.is_none() && !f.sampled {
            let ours = if f.exists == Some(true) {
                f.min_plies
            } else {
                None
            };
            if ours != plain {
                bad.push(format!(
                    "{name}: forced win fastest {ours:?} where the plain search finds {plain:?} within {limit}"
                ));
            }
            tally.forced_wins += usize::from(plain.is_some());
        }
    }
    bad
}

fn load(path: &str) -> RuleProgram {
    let text = std::fs::read_to_string(path).unwrap();
    kumite::pipeline::compile(&text)
        .program
        .unwrap_or_else(|| panic!("{path} compiles"))
}

/// A race as designers write them: health and counters run down by commands (some drawn,
/// some costing a resource), knockdowns that reset health, periodic regeneration, guards, and
/// victory rules on thresholds — where the bound has something to count.
fn gen_race(seed: u64) -> String {
    let mut r = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = |n: u64| {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        r % n.max(1)
    };
    let mut l = Vec::new();
    if next(4) == 0 {
        l.push("~同時".to_string());
    } else if next(3) == 0 {
        l.push("~先手c".to_string());
    }
    let hp = 2 + next(6);
    let st = 1 + next(3);
    if next(2) == 0 {
        l.push(format!(
            "!:h.hp={hp},c.hp={},st={st},x=0,down=0",
            1 + next(7)
        ));
    } else {
        l.push(format!("!:hp={hp},st={st},x=0,down=0"));
    }
    l.push("!:[a],[b],[g]".into());
    let dmg = |n: &mut dyn FnMut(u64) -> u64| match n(4) {
        0 => format!("O.hp-={}", 1 + n(3)),
        1 => format!("O.hp-=rand({},{})", n(2), 1 + n(3)),
        2 => "O.hp-1".into(),
        _ => format!("O.hp-={}", n(2) + 1),
    };
    let d1 = dmg(&mut next);
    let d2 = dmg(&mut next);
    l.push(format!("[a],!O.[g]:{d1}"));
    l.push(format!("[b],S.st>=1:{d2},S.st-1"));
    l.push("[g]:S.st+1".into());
    if next(2) == 0 {
        l.push("[a],O.[g]:S.x+1".into());
    }
    if next(2) == 0 {
        l.push(format!("S.x>={}::[c]", 1 + next(2)));
        l.push(format!("[c]:O.hp-={},S.x=0", 2 + next(3)));
    }
    if next(3) == 0 {
        l.push(format!("@{}/:S.hp+1", 2 + next(2)));
    }
    match next(4) {
        0 => {
            l.push(format!("S.hp<=0:S.down+1,S.hp={}", 1 + next(4)));
            l.push(format!("S.down>={}:O.勝利", 1 + next(2)));
        }
        1 => l.push(format!("O.hp<={}:S.勝利", next(2))),
        2 => l.push(format!("[a],O.hp<={}:S.勝利", next(3))),
        _ => {
            l.push("O.hp<=0:S.勝利".into());
            l.push(format!("S.x>={}:S.勝利", 2 + next(3)));
        }
    }
    if next(3) == 0 {
        l.push(format!("~T{}", 3 + next(6)));
    }
    l.join("\n")
}

/// Checks programs made by `make` for `seeds` (those that compile) at depth `limit`: the
/// failures are printed with their source, the tally returned.
fn corpus(what: &str, seeds: u64, limit: u32, make: impl Fn(u64) -> String) -> Tally {
    let mut tally = Tally::default();
    let mut bad = Vec::new();
    for seed in 0..seeds {
        let src = make(seed);
        let Some(prog) = kumite::pipeline::compile(&src).program else {
            continue;
        };
        let found = check(&format!("{what} {seed}"), &prog, limit, &mut tally);
        if !found.is_empty() {
            bad.push(format!("{}\n{src}", found.join("\n")));
        }
    }
    eprintln!(
        "{} {what}s, {} positions with a win in reach ({} where the bound is exact), {} shortest wins and {} forced wins compared",
        tally.programs, tally.finite, tally.tight, tally.shortest, tally.forced_wins
    );
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    tally
}

#[test]
fn bound_never_exceeds_a_win_on_generated_races() {
    // 150 seeds reach every branch of the generator (simultaneous, c first, rand damage,
    // knockdowns, periodic healing, turn limits) many times over.
    let tally = corpus("race", 150, 8, gen_race);
    // Not vacuous: the races compile, and the bound is often exact (measured: 136 races,
    // 48,734 positions where the bound is exact, 105 shortest and 39 forced wins).
    assert!(tally.programs >= 125, "{} races", tally.programs);
    assert!(tally.tight >= 500, "{} tight", tally.tight);
    assert!(tally.shortest >= 80, "{} shortest wins", tally.shortest);
    assert!(tally.forced_wins >= 30, "{} forced wins", tally.forced_wins);
}

#[test]
fn bound_never_exceeds_a_win_and_pruned_searches_agree_on_generated_programs() {
    let tally = corpus("program", 700, 7, crate::differential::gen_program);
    assert!(tally.programs >= 300, "{} programs", tally.programs);
    assert!(tally.positions >= 2_000, "{} positions", tally.positions);
    assert!(tally.shortest >= 50, "{} shortest wins", tally.shortest);
    assert!(tally.forced_wins >= 20, "{} forced wins", tally.forced_wins);
}

#[test]
fn bound_never_exceeds_a_win_in_the_bundled_and_design_files() {
    let mut tally = Tally::default();
    let mut bad = Vec::new();
    let mut files: Vec<String> = Vec::new();
    for dir in ["rules", "tests/designs"] {
        for f in std::fs::read_dir(dir).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|x| x == "kmt") {
                files.push(p.display().to_string());
            }
        }
    }
    files.sort();
    for f in &files {
        let prog = load(f);
        bad.extend(check(f, &prog, 5, &mut tally));
    }
    eprintln!(
        "{} of {} files explored, {} positions with a win in reach",
        tally.programs,
        files.len(),
        tally.finite
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(tally.programs >= 8, "{} files explored", tally.programs);
}
