//! `kumite match`, `kumite arena`, `kumite perft`.

use crate::engine::players::{
    FailKind, MatchOptions, MatchResult, Player, PlayerError, RandomPlayer, play_match,
};
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

/// A player chosen on the command line: `human`, `random` or `ai:COMMAND`.
pub fn make_player<'a>(
    prog: &'a RuleProgram,
    spec: &str,
    seed: u64,
    side: Side,
    ai_timeout: f64,
) -> Result<Box<dyn Player + Send + 'a>, String> {
    if let Some(settings) = crate::search::CpuSettings::of_player(prog, spec) {
        return Ok(Box::new(crate::search::CpuPlayer::new(
            prog,
            settings.map_err(|e| e.to_string())?,
            player_seed(spec, seed, side),
        )));
    }
    match spec {
        "random" => Ok(Box::new(RandomPlayer::new(player_seed(spec, seed, side)))),
        "human" => Ok(Box::new(HumanPlayer)),
        s if s.starts_with("ai:") => {
            let cmd = &s[3..];
            if cmd.trim().is_empty() {
                return Err("ai: needs a command, e.g. ai:'python3 my_ai.py'".into());
            }
            if !(ai_timeout.is_finite() && ai_timeout > 0.0) {
                return Err(format!(
                    "--ai-timeout must be a positive number of seconds, not {ai_timeout}"
                ));
            }
            Ok(Box::new(crate::ai_protocol::AiPlayer::new(
                cmd,
                std::time::Duration::try_from_secs_f64(ai_timeout)
                    .unwrap_or(std::time::Duration::from_secs(86_400)),
            )))
        }
        other => Err(format!(
            "unknown player '{other}': use human, random, cpu[:S5,D1,E0,P200] or ai:COMMAND"
        )),
    }
}

/// The seed [`make_player`] gives the player of `spec` on `side` for a game seed.
fn player_seed(spec: &str, seed: u64, side: Side) -> u64 {
    if spec == "random" {
        seed.wrapping_add(side as u64 * 0x9E37_79B9)
    } else {
        seed.wrapping_add(side as u64 * 0x51ED)
    }
}

/// Makes `player` (made from `spec`) play the next game as [`make_player`] would make it for
/// `seed`: reseeded in place where it can be, made anew otherwise. External AIs keep their
/// process (they are told each game's seed when it begins).
pub fn ready_player<'a>(
    player: &mut Box<dyn Player + Send + 'a>,
    prog: &'a RuleProgram,
    spec: &str,
    seed: u64,
    side: Side,
    ai_timeout: f64,
) -> Result<(), String> {
    if is_ai(spec) || player.reseed(player_seed(spec, seed, side)) {
        return Ok(());
    }
    *player = make_player(prog, spec, seed, side, ai_timeout)?;
    Ok(())
}

/// True if the player spec is an external AI (one process, so games run one after another).
pub fn is_ai(spec: &str) -> bool {
    spec.starts_with("ai:")
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
    ) -> Result<Option<CmdId>, PlayerError> {
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
            let _ = writeln!(out, "  {}: {}", crate::side::name(s), vals.join("  "));
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
            let n = std::io::stdin().lock().read_line(&mut line).map_err(|e| {
                PlayerError::new(
                    FailKind::HumanInputEnded,
                    format!("cannot read the terminal: {e}"),
                )
            })?;
            if n == 0 {
                return Err(PlayerError::new(
                    FailKind::HumanInputEnded,
                    "end of input on the terminal",
                ));
            }
            let t = line.trim();
            let found = p.command_from_input(&line);
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

impl Player for Box<dyn Player + Send + '_> {
    fn begin(
        &mut self,
        eng: &Engine,
        info: &crate::engine::players::GameInfo,
    ) -> Result<(), PlayerError> {
        (**self).begin(eng, info)
    }
    fn choose(
        &mut self,
        eng: &Engine,
        st: &State,
        side: Side,
        enabled: &[CmdId],
    ) -> Result<Option<CmdId>, PlayerError> {
        (**self).choose(eng, st, side, enabled)
    }
    fn finish(
        &mut self,
        eng: &Engine,
        st: &State,
        side: Side,
        o: crate::engine::Outcome,
        reason: Option<&str>,
    ) {
        (**self).finish(eng, st, side, o, reason)
    }
    fn name(&self) -> String {
        (**self).name()
    }
    fn reseed(&mut self, seed: u64) -> bool {
        (**self).reseed(seed)
    }
}

/// Runs one match with the given players, printing traces and waiting as asked.
pub fn run_with(
    prog: &RuleProgram,
    players: &mut [Box<dyn Player + Send + '_>; 2],
    opts: &MatchOptions,
    delay: f64,
    text_trace: bool,
) -> MatchResult {
    let [hp, cp] = players;
    let mut ps: [&mut dyn Player; 2] = [hp, cp];
    play_match(prog, &mut ps, opts, |eng, _st, t| {
        if text_trace && let Some(t) = t {
            eprintln!("{}", trace_text(eng, t));
        }
        if delay > 0.0 {
            std::thread::sleep(
                std::time::Duration::try_from_secs_f64(delay.min(60.0)).unwrap_or_default(),
            );
        }
    })
}

/// Runs one match between players given on the command line.
pub fn run_match(
    prog: &RuleProgram,
    h: &str,
    c: &str,
    opts: &MatchOptions,
    delay: f64,
    text_trace: bool,
    ai_timeout: f64,
) -> Result<MatchResult, String> {
    let mut players = [
        make_player(prog, h, opts.seed, 0, ai_timeout)?,
        make_player(prog, c, opts.seed, 1, ai_timeout)?,
    ];
    Ok(run_with(prog, &mut players, opts, delay, text_trace))
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

/// What `kumite match` was asked for, besides the match options.
pub struct MatchSetup<'a> {
    /// Rule file.
    pub file: &'a std::path::Path,
    /// `--set` overrides.
    pub sets: &'a [String],
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
    /// Print traces as text.
    pub text_trace: bool,
}

/// A stable hash of rule text, to tell in a replay whether the rules changed.
pub fn text_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Runs `kumite match`, writing the log if asked (also when a player failed).
pub fn match_command(
    prog: &RuleProgram,
    opts: &MatchOptions,
    s: &MatchSetup,
) -> Result<MatchResult, String> {
    let r = run_match(prog, s.h, s.c, opts, s.delay, s.text_trace, s.ai_timeout)?;
    if let Some(path) = s.log {
        let text = std::fs::read_to_string(s.file).unwrap_or_default();
        let mut out = String::new();
        let header = serde_json::json!({
            "type": "match", "rules": s.file.display().to_string(), "rules_hash": text_hash(&text),
            "seed": opts.seed, "first": crate::side::name(opts.first), "set": s.sets,
            "h": s.h, "c": s.c, "max_turns": opts.max_turns, "kumite": env!("CARGO_PKG_VERSION"),
        });
        out.push_str(&format!("{header}\n"));
        for m in &r.moves {
            out.push_str(&format!("{}\n", serde_json::json!({"type": "move", "turn": m.turn, "side": m.side, "command": m.command})));
        }
        let end = serde_json::json!({"type": "end", "result": r.result, "turns": r.turns, "forfeit": r.forfeit, "error": r.error, "final_states": r.final_states});
        out.push_str(&format!("{end}\n"));
        crate::fsutil::write_atomic(path, out.as_bytes())
            .map_err(|e| format!("cannot write the log {}: {e}", path.display()))?;
    }
    Ok(r)
}

/// Prints a match result as a line of text or as JSON.
pub fn print_result(r: &MatchResult, json: bool) {
    if json {
        outln!("{}", serde_json::to_string(r).unwrap_or_default());
        return;
    }
    let who = |x: &str| match x {
        "h" => "h wins",
        "c" => "c wins",
        "draw" => "draw",
        _ => "error",
    };
    match (&r.error, &r.forfeit) {
        (Some(e), _) => outln!("error after {} turns: {e}", r.turns),
        (None, Some(f)) => outln!(
            "result: {} by forfeit after {} turns — {} forfeits: {}",
            who(r.result),
            r.turns,
            f.side,
            f.reason
        ),
        (None, None) => outln!(
            "result: {} after {} turns (seed {})",
            who(r.result),
            r.turns,
            r.seed
        ),
    }
}

/// The exit status for a match: 0 finished, 3 runtime error, 10–16 a player's failure.
pub fn exit_code(r: &MatchResult) -> std::process::ExitCode {
    if let Some(f) = &r.forfeit {
        return std::process::ExitCode::from(f.kind as u8);
    }
    if r.error.is_some() {
        std::process::ExitCode::from(3)
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
    apply_sets(&mut prog, &sets)?;
    let seed = header["seed"].as_u64().ok_or("the header has no seed")?;
    let first = if header["first"] == "c" { 1 } else { 0 };
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
                let side = if m["side"] == "c" { 1 } else { 0 };
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
