//! `kumite match`, `kumite arena`, `kumite perft`.

use crate::engine::players::{MatchOptions, MatchResult, MoveRecord, Player, play_match_with};
use crate::engine::{Engine, GameResult, State};
use crate::players::make_player;
use crate::program::{CmdId, RuleProgram, RunConfig};
use crate::side::Side;
use std::io::Write;

pub use crate::load::apply_sets;

/// What a match prints on standard error after each turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnDisplay {
    /// Nothing (a script reads the result).
    Quiet,
    /// The moves and what they changed, in a line or two ([`super::turns::turn_summary`]).
    Summary,
    /// Every fired rule and change (`--trace`).
    Trace,
}

impl TurnDisplay {
    /// What `kumite match` shows: the full trace when asked for (in text), else the summary
    /// when someone is watching — a human plays, `--delay` is given, or standard error is a
    /// terminal — else nothing.
    pub fn for_match(trace: bool, json: bool, players: [&str; 2], delay: f64) -> Self {
        use std::io::IsTerminal;
        if trace && !json {
            TurnDisplay::Trace
        } else if players.contains(&"human")
            || (!json && (delay > 0.0 || std::io::stderr().is_terminal()))
        {
            TurnDisplay::Summary
        } else {
            TurnDisplay::Quiet
        }
    }
}

/// Runs one match with the given players, printing each turn as asked and waiting `delay`
/// seconds after it. (Turns can only be shown when `opts.trace` records them.)
pub fn run_with(
    prog: &RuleProgram,
    players: &mut [Box<dyn Player + Send + '_>; 2],
    opts: &MatchOptions,
    delay: f64,
    display: TurnDisplay,
    mut on_moves: impl FnMut(&[MoveRecord]),
) -> MatchResult {
    let [hp, cp] = players;
    let mut ps: [&mut dyn Player; 2] = [hp, cp];
    play_match_with(prog, &mut ps, opts, |eng, _st, moves, t| {
        on_moves(moves);
        match (display, t) {
            (TurnDisplay::Trace, Some(t)) => eprintln!("{}", trace_text(eng, t)),
            (TurnDisplay::Summary, Some(t)) => eprintln!("{}", super::turns::turn_summary(t)),
            _ => {}
        }
        if delay > 0.0 {
            std::thread::sleep(
                std::time::Duration::try_from_secs_f64(delay.min(60.0)).unwrap_or_default(),
            );
        }
    })
}

/// Runs one match between players given as specs (`[h, c]`), printing nothing.
pub fn run_match(
    prog: &RuleProgram,
    config: &RunConfig,
    specs: [&str; 2],
    opts: &MatchOptions,
    ai_timeout: f64,
) -> Result<MatchResult, String> {
    run_players(
        prog,
        config,
        specs,
        opts,
        0.0,
        TurnDisplay::Quiet,
        ai_timeout,
        |_| {},
    )
}

/// [`run_match`] with any [`TurnDisplay`].
#[allow(clippy::too_many_arguments)]
fn run_players(
    prog: &RuleProgram,
    config: &RunConfig,
    specs: [&str; 2],
    opts: &MatchOptions,
    delay: f64,
    display: TurnDisplay,
    ai_timeout: f64,
    on_moves: impl FnMut(&[MoveRecord]),
) -> Result<MatchResult, String> {
    let mut players = [
        make_player(prog, config, specs[0], opts.seed, Side::H, ai_timeout)
            .map_err(|e| e.to_string())?,
        make_player(prog, config, specs[1], opts.seed, Side::C, ai_timeout)
            .map_err(|e| e.to_string())?,
    ];
    Ok(run_with(prog, &mut players, opts, delay, display, on_moves))
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
    for (side, _, _, origin) in &t.fired {
        s.push_str(&format!("\n    fired ({side}) {origin}"));
    }
    for (side, _, _, origin) in &t.end_check {
        s.push_str(&format!("\n    end check ({side}): {origin}"));
    }
    let split = t
        .availability_from
        .unwrap_or(t.changes.len())
        .min(t.changes.len());
    let change = |s: &mut String, ch: &crate::engine::Change| {
        s.push_str(&format!(
            "\n    {}.{}: {} → {}",
            ch.side, ch.name, ch.from, ch.to
        ));
    };
    for ch in &t.changes[..split] {
        change(&mut s, ch);
    }
    if split < t.changes.len() {
        s.push_str(&format!(
            "\n    availability for {}:",
            t.next_movers.join(" and ")
        ));
        for ch in &t.changes[split..] {
            change(&mut s, ch);
        }
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

/// What `kumite match` was asked for, besides the match options.
pub struct MatchSetup<'a> {
    /// Rule file.
    pub file: &'a std::path::Path,
    /// `--set` overrides.
    pub sets: &'a [String],
    /// The run's config (the learned evaluation read beside the file).
    pub config: &'a RunConfig,
    /// Player specs.
    pub h: &'a str,
    /// Player specs.
    pub c: &'a str,
    /// Seconds between turns.
    pub delay: f64,
    /// Seconds per AI decision.
    pub ai_timeout: f64,
    /// Log file.
    pub log: Option<&'a std::path::Path>,
    /// What to print after each turn.
    pub turns: TurnDisplay,
    /// The result is printed as JSON (then how the game was decided is not worked out).
    pub json: bool,
}

/// A finished `kumite match`: its result, and for the text output how it was decided.
pub struct Played {
    /// The result (its `trace` only when `--trace` asked for it).
    pub result: MatchResult,
    /// The deciding rule's line and conditions, or the turn limit ([`super::turns::decided_by`]).
    pub decided: Option<String>,
}

/// A stable hash of rule text, to tell in a replay whether the rules changed.
pub fn text_hash(text: &str) -> String {
    crate::program::text_hash(text)
}

/// Runs `kumite match`, writing the log if asked (also when a player failed).
pub fn match_command(
    prog: &RuleProgram,
    opts: &MatchOptions,
    s: &MatchSetup,
) -> Result<Played, String> {
    // The log is opened first (refused if it is the rule file), and each move is written as
    // it is made: a long match holds no list of its moves for the log.
    let mut log = match s.log {
        Some(path) => {
            if crate::fsutil::same_file(s.file, path) {
                return Err(format!(
                    "the log {} is the rule file {} itself: writing it would replace the rules; choose another path",
                    path.display(),
                    s.file.display()
                ));
            }
            let text = std::fs::read_to_string(s.file).unwrap_or_default();
            let mut f = crate::fsutil::AtomicFile::create(path)
                .map_err(|e| format!("cannot write the log {}: {e}", path.display()))?;
            let header = serde_json::json!({
                "type": "match", "rules": s.file.display().to_string(), "rules_hash": text_hash(&text),
                "seed": opts.seed, "first": opts.first.name(), "set": s.sets,
                "h": s.h, "c": s.c, "max_turns": opts.max_turns, "kumite": env!("CARGO_PKG_VERSION"),
            });
            writeln!(f, "{header}")
                .map_err(|e| format!("cannot write the log {}: {e}", path.display()))?;
            Some((path, f))
        }
        None => None,
    };
    let mut log_error: Option<std::io::Error> = None;
    // Turns are recorded to be shown, and to tell how the game was decided; the result keeps
    // them only when --trace asked for them, and its move list only for JSON.
    let mut run_opts = opts.clone();
    run_opts.trace = opts.trace || s.turns != TurnDisplay::Quiet || !s.json;
    run_opts.lean = !s.json && !opts.trace;
    let mut r = run_players(
        prog,
        s.config,
        [s.h, s.c],
        &run_opts,
        s.delay,
        s.turns,
        s.ai_timeout,
        |moves| {
            if let (Some((_, f)), None) = (log.as_mut(), &log_error) {
                for m in moves {
                    let line = serde_json::json!({"type": "move", "turn": m.turn, "side": m.side, "command": m.command});
                    if let Err(e) = writeln!(f, "{line}") {
                        log_error = Some(e);
                        break;
                    }
                }
            }
        },
    )?;
    let limit = opts
        .max_turns
        .unwrap_or(u32::MAX)
        .min(prog.settings.turn_limit);
    let decided = (!s.json)
        .then(|| super::turns::decided_by(prog, r.trace.last(), r.result, r.turns, Some(limit)))
        .flatten();
    if !opts.trace {
        r.trace.clear();
    }
    if let Some((path, mut f)) = log {
        let end = serde_json::json!({"type": "end", "result": r.result, "turns": r.turns, "forfeit": r.forfeit, "error": r.error, "final_states": r.final_states});
        let done = match log_error {
            Some(e) => Err(e),
            None => writeln!(f, "{end}").and_then(|()| f.commit()),
        };
        done.map_err(|e| format!("cannot write the log {}: {e}", path.display()))?;
    }
    Ok(Played { result: r, decided })
}

/// A value's JSON written straight into the output as it is formatted (a million-move result
/// is not built as one string first).
struct JsonText<'a, T>(&'a T);

impl<T: serde::Serialize> std::fmt::Display for JsonText<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        struct Adapter<'a, 'b>(&'a mut std::fmt::Formatter<'b>);
        impl std::io::Write for Adapter<'_, '_> {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                let s = std::str::from_utf8(buf).map_err(std::io::Error::other)?;
                self.0.write_str(s).map_err(std::io::Error::other)?;
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        serde_json::to_writer(Adapter(f), self.0).map_err(|_| std::fmt::Error)
    }
}

/// Prints a match result as text — the result line, then how the game was decided — or as JSON.
pub fn print_result(p: &Played, json: bool) {
    let r = &p.result;
    if json {
        outln!("{}", JsonText(r));
        return;
    }
    let who = |x: GameResult| match x {
        GameResult::H => "h wins",
        GameResult::C => "c wins",
        GameResult::Draw => "draw",
        GameResult::Error => "error",
    };
    let turns = |n: u32| format!("{n} turn{}", if n == 1 { "" } else { "s" });
    match (&r.error, &r.forfeit) {
        (Some(e), _) => outln!("error after {}: {e}", turns(r.turns)),
        (None, Some(f)) => outln!(
            "result: {} by forfeit after {} — {} forfeits: {}",
            who(r.result),
            turns(r.turns),
            f.side,
            f.reason
        ),
        (None, None) => outln!(
            "result: {} after {} (seed {})",
            who(r.result),
            turns(r.turns),
            r.seed
        ),
    }
    if r.error.is_none()
        && r.forfeit.is_none()
        && let Some(d) = &p.decided
    {
        outln!("{d}");
    }
}

/// The exit status for a match: 0 finished, 3 runtime error, 10–16 a player's failure.
pub fn exit_code(r: &MatchResult) -> std::process::ExitCode {
    if let Some(f) = &r.forfeit {
        return std::process::ExitCode::from(f.kind as u8);
    }
    if r.error.is_some() {
        super::exit::code(super::exit::RULE_ERROR)
    } else {
        std::process::ExitCode::SUCCESS
    }
}

/// Replays a match log and checks that the rules and seed give the same outcome.
pub fn replay(log: &std::path::Path) -> Result<String, String> {
    let text =
        std::fs::read_to_string(log).map_err(|e| format!("cannot read {}: {e}", log.display()))?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty()).enumerate();
    let parse = |n: usize, l: &str| {
        serde_json::from_str::<serde_json::Value>(l)
            .map_err(|e| format!("line {}: not JSON: {e}", n + 1))
    };
    let (n, first) = lines.next().ok_or("the log is empty")?;
    let header = parse(n, first)?;
    if header["type"] != "match" {
        return Err("line 1: expected the match header {\"type\":\"match\",…}".into());
    }
    let rules = header["rules"]
        .as_str()
        .ok_or("the header names no rules file")?;
    let mut path = std::path::PathBuf::from(rules);
    if !path.exists()
        && let Some(dir) = log.parent()
    {
        path = dir.join(rules);
    }
    let rules_text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read the rules {}: {e}", path.display()))?;
    if header["rules_hash"].as_str() != Some(text_hash(&rules_text).as_str()) {
        return Err(format!(
            "the rules file {} changed since the match was played",
            path.display()
        ));
    }
    let sets: Vec<String> = header["set"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let mut prog = crate::pipeline::compile(&rules_text)
        .program
        .ok_or("the rules file has errors")?;
    apply_sets(&mut prog, &sets).map_err(|e| e.to_string())?;
    let seed = header["seed"].as_u64().ok_or("the header has no seed")?;
    let first = if header["first"] == "c" {
        Side::C
    } else {
        Side::H
    };
    let eng = Engine::new(&prog, seed);
    let mut st = eng
        .initial(first)
        .map_err(|e| format!("runtime error at {e}"))?;
    let mut end = None;
    let mut pending: Vec<(usize, serde_json::Value)> = Vec::new();
    let mut verified = 0;
    let mut flush =
        |st: &mut State, pending: &mut Vec<(usize, serde_json::Value)>| -> Result<(), String> {
            if pending.is_empty() {
                return Ok(());
            }
            let mut cmds = [None, None];
            for (n, m) in pending.iter() {
                let side = if m["side"] == "c" { Side::C } else { Side::H };
                if !eng.movers(st).contains(&side) {
                    return Err(format!("line {}: it is not {}'s turn", n + 1, m["side"]));
                }
                if let Some(name) = m["command"].as_str() {
                    let c = prog.command_id(name).ok_or_else(|| {
                        format!("line {}: the rules have no command [{name}]", n + 1)
                    })?;
                    if !eng.is_enabled(st, side, c) {
                        return Err(format!(
                            "line {}: [{name}] is not enabled for {} on turn {}",
                            n + 1,
                            m["side"],
                            st.turn + 1
                        ));
                    }
                    cmds[side] = Some(c);
                }
                verified += 1;
            }
            pending.clear();
            eng.play(st, cmds, None)
                .map_err(|e| format!("runtime error at {e}"))
        };
    for (n, l) in lines {
        let v = parse(n, l)?;
        match v["type"].as_str() {
            Some("move") => {
                let turn = v["turn"].as_u64().unwrap_or(0);
                if pending
                    .first()
                    .is_some_and(|(_, p)| p["turn"].as_u64() != Some(turn))
                {
                    flush(&mut st, &mut pending)?;
                }
                pending.push((n, v));
            }
            Some("end") => {
                flush(&mut st, &mut pending)?;
                end = Some(v);
            }
            _ => return Err(format!("line {}: unknown entry", n + 1)),
        }
    }
    flush(&mut st, &mut pending)?;
    let end = end.ok_or("the log has no end entry (the match was cut short)")?;
    let logged = end["result"].as_str().unwrap_or("");
    let replayed = if !end["forfeit"].is_null() {
        if st.outcome.is_some() {
            return Err(
                "the log records a forfeit, but the replayed game was already decided".into(),
            );
        }
        logged.to_string()
    } else if let Some(o) = st.outcome {
        o.as_str().to_string()
    } else if header["max_turns"]
        .as_u64()
        .is_some_and(|m| st.turn as u64 >= m)
    {
        "draw".to_string()
    } else {
        return Err(format!(
            "the replay stops undecided after {} turns, but the log says {logged}",
            st.turn
        ));
    };
    if replayed != logged || end["turns"].as_u64() != Some(st.turn as u64) {
        return Err(format!(
            "the log says {logged} after {} turns; the replay gives {replayed} after {} turns",
            end["turns"], st.turn
        ));
    }
    let finals = crate::engine::players::final_states(&eng, &st);
    if !end["final_states"].is_null() && end["final_states"] != finals {
        return Err(format!(
            "the final states differ: the log has {}, the replay gives {finals}",
            end["final_states"]
        ));
    }
    Ok(format!(
        "replay OK: {replayed} after {} turns (seed {seed}), {verified} moves verified",
        st.turn
    ))
}
