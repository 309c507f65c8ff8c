//! `kumite match`, `kumite arena`, `kumite perft`.

use crate::engine::players::{MatchOptions, MatchResult, Player, RandomPlayer, play_match};
use crate::engine::{Engine, Side, State};
use crate::program::{CmdId, RuleProgram};
use std::io::{BufRead, Write};

/// Parses `--set h.NAME=V` / `NAME=V` overrides into the program's initial values.
pub fn apply_sets(prog: &mut RuleProgram, sets: &[String]) -> Result<(), String> {
    for s in sets {
        let (lhs, v) = s.split_once('=').ok_or_else(|| {
            format!("--set {s}: expected NAME=VALUE, h.NAME=VALUE or c.NAME=VALUE")
        })?;
        let v: i64 = v
            .trim()
            .parse()
            .map_err(|_| format!("--set {s}: '{}' is not a whole number", v.trim()))?;
        let (sides, name): (&[usize], &str) = match lhs.split_once('.') {
            Some(("h" | "H", n)) => (&[0], n),
            Some(("c" | "C", n)) => (&[1], n),
            Some((p, _)) => return Err(format!("--set {s}: side must be h or c, not '{p}'")),
            None => (&[0, 1], lhs),
        };
        let id = prog.state_id(name.trim()).ok_or_else(|| {
            let known: Vec<&str> = prog.states.iter().map(String::as_str).collect();
            let hint = crate::diag::did_you_mean(name.trim(), known.iter().copied())
                .map(|k| format!(" (did you mean {k}?)"))
                .unwrap_or_default();
            format!(
                "--set {s}: the rules have no state '{}'{hint}; states: {}",
                name.trim(),
                known.join(", ")
            )
        })?;
        for &side in sides {
            prog.init_values[side][id as usize] = v;
        }
    }
    Ok(())
}

/// A player chosen on the command line.
pub fn make_player(spec: &str, seed: u64, side: Side) -> Result<Box<dyn Player + Send>, String> {
    match spec {
        "random" => Ok(Box::new(RandomPlayer::new(
            seed.wrapping_add(side as u64 * 0x9E37_79B9),
        ))),
        "human" => Ok(Box::new(HumanPlayer)),
        other => Err(format!("unknown player '{other}': use human or random")),
    }
}

/// Plays in the terminal: shows both sides' states and the enabled commands with their keys.
pub struct HumanPlayer;

impl Player for HumanPlayer {
    fn choose(
        &mut self,
        eng: &Engine,
        st: &State,
        side: Side,
        enabled: &[CmdId],
    ) -> Result<Option<CmdId>, String> {
        let p = eng.prog;
        let mut out = std::io::stderr().lock();
        let _ = writeln!(
            out,
            "\n── turn {} · {} to move ──",
            st.turn + 1,
            if side == 0 { "h (you)" } else { "c" }
        );
        for s in 0..2 {
            let vals: Vec<String> = (2..p.states.len())
                .map(|i| format!("{}={}", p.states[i], eng.val(st, s, i as u32)))
                .collect();
            let _ = writeln!(
                out,
                "  {}: {}",
                if s == 0 { "h" } else { "c" },
                vals.join("  ")
            );
        }
        let list: Vec<String> = enabled
            .iter()
            .map(|&c| match p.key_for(c) {
                Some(k) => format!("{k}=[{}]", p.commands[c as usize]),
                None => format!("[{}]", p.commands[c as usize]),
            })
            .collect();
        loop {
            let _ = write!(out, "  commands: {}\n  > ", list.join("  "));
            let _ = out.flush();
            let mut line = String::new();
            let n = std::io::stdin()
                .lock()
                .read_line(&mut line)
                .map_err(|e| format!("cannot read the terminal: {e}"))?;
            if n == 0 {
                return Err("end of input".into());
            }
            let t = line.trim_end_matches(['\n', '\r']);
            let t = if t.trim().is_empty() { t } else { t.trim() };
            let found = p
                .command_for_key(t)
                .or_else(|| p.command_for_key(if t == " " { "Space" } else { "" }))
                .or_else(|| p.command_id(t));
            match found {
                Some(c) if enabled.contains(&c) => return Ok(Some(c)),
                Some(c) => {
                    let _ = writeln!(out, "  [{}] is not enabled now", p.commands[c as usize]);
                }
                None => {
                    let _ = writeln!(out, "  '{t}' is neither a key nor a command");
                }
            }
        }
    }
}

impl Player for Box<dyn Player + Send> {
    fn choose(
        &mut self,
        eng: &Engine,
        st: &State,
        side: Side,
        enabled: &[CmdId],
    ) -> Result<Option<CmdId>, String> {
        (**self).choose(eng, st, side, enabled)
    }
    fn finish(&mut self, eng: &Engine, st: &State, o: Option<crate::engine::Outcome>) {
        (**self).finish(eng, st, o)
    }
}

/// Runs one match.
pub fn run_match(
    prog: &RuleProgram,
    h: &str,
    c: &str,
    opts: &MatchOptions,
    delay: f64,
    text_trace: bool,
) -> Result<MatchResult, String> {
    let mut hp = make_player(h, opts.seed, 0)?;
    let mut cp = make_player(c, opts.seed, 1)?;
    let mut players: [&mut dyn Player; 2] = [&mut hp, &mut cp];
    Ok(play_match(prog, &mut players, opts, |eng, _st, t| {
        if text_trace && let Some(t) = t {
            eprintln!("{}", trace_text(eng, t));
        }
        if delay > 0.0 {
            std::thread::sleep(std::time::Duration::from_secs_f64(delay));
        }
    }))
}

/// One turn's trace as text.
pub fn trace_text(_eng: &Engine, t: &crate::engine::TurnTrace) -> String {
    let moves: Vec<String> = t
        .moves
        .iter()
        .map(|(s, c)| {
            format!(
                "{s}:{}",
                c.as_ref()
                    .map_or("(pass)".to_string(), |c| format!("[{c}]"))
            )
        })
        .collect();
    let mut s = format!("turn {:>3}  {}", t.turn, moves.join("  "));
    for (side, _, line, origin) in &t.fired {
        s.push_str(&format!("\n    fired ({side}) {origin}"));
        let _ = line;
    }
    for ch in &t.changes {
        s.push_str(&format!(
            "\n    {}.{}: {} → {}",
            ch.side, ch.name, ch.from, ch.to
        ));
    }
    s
}

/// Counts move sequences of exactly `depth` turns (alternate: one side's choice per turn;
/// simultaneous: one joint choice per turn). A side with nothing enabled has one move, the pass.
/// Sequences that end the game earlier are counted separately in `decided`.
pub fn perft(
    eng: &Engine,
    st: &State,
    depth: u32,
    decided: &mut u64,
) -> Result<u64, crate::engine::RuntimeError> {
    if depth == 0 {
        return Ok(1);
    }
    if st.outcome.is_some() {
        *decided += 1;
        return Ok(0);
    }
    let mut lists: [Vec<Option<CmdId>>; 2] = [vec![None], vec![None]];
    let mut buf = Vec::new();
    for &s in eng.movers(st) {
        eng.enabled_commands(st, s, &mut buf);
        if !buf.is_empty() {
            lists[s] = buf.iter().map(|&c| Some(c)).collect();
        }
    }
    let mut total = 0;
    for &a in &lists[0] {
        for &b in &lists[1] {
            let mut next = st.clone();
            eng.play(&mut next, [a, b], None)?;
            total += perft(eng, &next, depth - 1, decided)?;
        }
    }
    Ok(total)
}

/// Wilson score interval (95%) for a proportion.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.96f64;
    let n = n as f64;
    let p = k as f64 / n;
    let d = 1.0 + z * z / n;
    let c = p + z * z / (2.0 * n);
    let r = z * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt();
    ((c - r) / d, (c + r) / d)
}
