//! External AI programs as players, over standard input and output, one JSON object per line
//! (in the spirit of the mogeRPG server). The protocol is documented in `tests/ai/README.md`.
//!
//! The AI prints its name on one line; Kumite then sends `start`, one `turn` per decision (the AI
//! answers with a command name or key on one line) and `end`; a new `start` follows for the next
//! game, so one process can play thousands of games. Any failure makes the AI forfeit the game
//! with a clear reason; the process is restarted before the next game.

use crate::engine::players::{FailKind, GameInfo, Player, PlayerError, side_states};
use crate::engine::{Engine, NONE, Outcome, Side, State};
use crate::program::CmdId;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::{Duration, Instant};

struct Proc {
    child: Child,
    /// None once closed (the AI then reads the end of its input).
    stdin: Option<BufWriter<ChildStdin>>,
    /// The AI's lines, in batches: every complete line one read of its output brought, so
    /// lines the AI wrote together arrive together; `Err` once a line was too long (nothing is
    /// read after it).
    lines: Receiver<Vec<Result<String, String>>>,
    /// Lines of a batch not taken yet.
    pending: std::collections::VecDeque<Result<String, String>>,
}

impl Proc {
    /// Ends the AI after its last game: its input is closed, so it reads the end of it after
    /// the last `end` message, and it gets up to `grace` to exit by itself (to log or learn
    /// from that game) before it is killed.
    fn close(mut self, grace: Duration) {
        drop(self.stdin.take());
        let t0 = Instant::now();
        while t0.elapsed() < grace {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // A misbehaving AI (or one still running after its grace) is killed at once, with
        // everything it started: an AI run through `sh -c` leaves its children behind when
        // only the shell is killed, and they keep our standard error open (a pipe reading it
        // would wait for them).
        kill_group(self.child.id());
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let id = self.child.id();
        live().retain(|&p| p != id);
    }
}

/// The process groups of the AIs running now (each AI leads its own: see [`AiPlayer::spawn`]).
static LIVE: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<u32>> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Kills every running AI with everything it started. An AI runs in its own process group, so
/// a Ctrl-C at the terminal (sent to Kumite's group) does not reach it: the command line calls
/// this when it is interrupted or terminated, before it exits.
pub fn kill_all() {
    for &pid in live().iter() {
        kill_group(pid);
    }
}

/// Kills process group `pid`; a group already gone is no error.
#[cfg(unix)]
fn kill_group(pid: u32) {
    use rustix::process::{Pid, Signal, kill_process_group};
    if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        let _ = kill_process_group(pid, Signal::KILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_pid: u32) {}

/// How long an AI may take to exit by itself after its last game (see [`Proc::close`]).
const EXIT_GRACE: Duration = Duration::from_secs(1);

impl Drop for AiPlayer {
    fn drop(&mut self) {
        if let Some(p) = self.proc.take() {
            p.close(EXIT_GRACE.min(self.timeout));
        }
    }
}

/// A player that is an external program.
pub struct AiPlayer {
    command: String,
    timeout: Duration,
    proc: Option<Proc>,
    /// The name the AI gave.
    pub ai_name: Option<String>,
    side: Side,
    turn: u32,
}

/// Characters that make us hand the command to `sh -c` rather than start it directly.
const SHELL_CHARS: &str = "|&;<>()$`\\\"'*?[]#~={}%";

impl AiPlayer {
    /// A player for `command` (started lazily, when its first game begins).
    pub fn new(command: &str, timeout: Duration) -> Self {
        Self {
            command: command.to_string(),
            timeout,
            proc: None,
            ai_name: None,
            side: Side::H,
            turn: 0,
        }
    }

    fn spawn(&mut self) -> Result<(), PlayerError> {
        let cmd = self.command.trim().to_string();
        let cmd = cmd.as_str();
        if cmd.is_empty() {
            return Err(PlayerError::new(
                FailKind::CannotStart,
                "the AI command is empty (write ai:COMMAND)",
            ));
        }
        let mut c = if cmd.chars().any(|ch| SHELL_CHARS.contains(ch)) {
            let mut c = Command::new("sh");
            c.arg("-c").arg(cmd);
            c
        } else {
            let mut parts = cmd.split_whitespace();
            let mut c = Command::new(parts.next().unwrap_or(cmd));
            c.args(parts);
            c
        };
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        // Its own process group, so that ending it ends what it started (see Proc's drop).
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut c, 0);
        let mut child = c.spawn().map_err(|e| {
            PlayerError::new(
                FailKind::CannotStart,
                format!("cannot start the AI command '{cmd}': {e}"),
            )
        })?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                return Err(PlayerError::new(
                    FailKind::CannotStart,
                    format!("cannot open pipes to the AI command '{cmd}'"),
                ));
            }
        };
        live().push(child.id());
        // Bounded: an AI that floods its output waits on its pipe instead of filling memory.
        let (tx, rx) = sync_channel(16);
        std::thread::spawn(move || read_lines(stdout, &tx));
        self.proc = Some(Proc {
            child,
            stdin: Some(BufWriter::new(stdin)),
            lines: rx,
            pending: std::collections::VecDeque::new(),
        });
        // The name comes first.
        match self.recv("its name") {
            Ok(name) => {
                let name = name.trim().to_string();
                if name.is_empty() {
                    self.proc = None;
                    return Err(PlayerError::new(
                        FailKind::EmptyName,
                        format!(
                            "the AI '{cmd}' sent an empty name (its first line must be its name)"
                        ),
                    ));
                }
                self.ai_name = Some(name);
                Ok(())
            }
            Err(e) => {
                let kind = if e.kind == FailKind::Timeout {
                    FailKind::Timeout
                } else {
                    FailKind::NoName
                };
                Err(PlayerError::new(
                    kind,
                    format!("no name from the AI '{cmd}': {}", e.message),
                ))
            }
        }
    }

    fn exit_status(&mut self) -> String {
        let Some(p) = self.proc.as_mut() else {
            return String::new();
        };
        // Give a process that closed its output a moment to exit, so its status can be told.
        let until = Instant::now() + Duration::from_millis(200);
        while Instant::now() < until {
            if let Ok(Some(s)) = p.child.try_wait() {
                return match s.code() {
                    Some(127) => " (exit status 127: command not found)".into(),
                    Some(c) => format!(" (exit status {c})"),
                    None => " (killed by a signal)".into(),
                };
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        String::new()
    }

    /// Reads one line within the time limit.
    fn recv(&mut self, what: &str) -> Result<String, PlayerError> {
        let Some(p) = self.proc.as_mut() else {
            return Err(PlayerError::new(FailKind::Exited, "the AI is not running"));
        };
        let next = match p.pending.pop_front() {
            Some(l) => Ok(l),
            None => p.lines.recv_timeout(self.timeout).map(|batch| {
                p.pending.extend(batch);
                p.pending
                    .pop_front()
                    .unwrap_or_else(|| Err("an empty batch".into()))
            }),
        };
        match next {
            Ok(Ok(l)) => Ok(l.trim_end_matches('\r').to_string()),
            Ok(Err(why)) => {
                self.proc = None;
                Err(PlayerError::new(
                    FailKind::BadReply,
                    format!("{why} while Kumite waited for {what}"),
                ))
            }
            Err(RecvTimeoutError::Timeout) => {
                self.proc = None;
                Err(PlayerError::new(
                    FailKind::Timeout,
                    format!(
                        "no reply within {:.3} s while waiting for {what}",
                        self.timeout.as_secs_f64()
                    ),
                ))
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.exit_status();
                self.proc = None;
                Err(PlayerError::new(
                    FailKind::Exited,
                    format!("the AI closed its output while Kumite waited for {what}{status}"),
                ))
            }
        }
    }

    /// Fails when the AI printed a line that no message asked for — a second answer to one
    /// `turn`, or a line after a game's `end` — that Kumite would otherwise take as its next
    /// answer. `before` names the message about to be sent.
    fn stray_lines(&mut self, before: &str) -> Result<(), PlayerError> {
        let Some(p) = self.proc.as_mut() else {
            return Ok(());
        };
        let mut extra: Vec<_> = p.pending.drain(..).collect();
        // An AI that keeps printing is not followed forever.
        while extra.len() < 1000
            && let Ok(batch) = p.lines.try_recv()
        {
            extra.extend(batch);
        }
        let Some(first) = extra.first() else {
            return Ok(());
        };
        let first = match first {
            Ok(l) => format!("{:?}", l.trim_end_matches('\r')),
            Err(why) => why.clone(),
        };
        let after = if self.turn == 0 {
            "before its first turn".to_string()
        } else {
            format!("after its answer on turn {}", self.turn)
        };
        self.proc = None; // out of step with us: restart before the next game
        Err(PlayerError::new(
            FailKind::BadReply,
            format!(
                "the AI printed {}{} line{} that nothing asked for {after} (first: {first}), found before {before}: answer each turn with exactly one line",
                if extra.len() >= 1000 { "at least " } else { "" },
                extra.len(),
                if extra.len() == 1 { "" } else { "s" }
            ),
        ))
    }

    fn send(&mut self, msg: &serde_json::Value) -> Result<(), PlayerError> {
        let Some(p) = self.proc.as_mut() else {
            return Err(PlayerError::new(FailKind::Exited, "the AI is not running"));
        };
        let r = match p.stdin.as_mut() {
            Some(w) => writeln!(w, "{msg}").and_then(|_| w.flush()),
            None => Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
        };
        if let Err(e) = r {
            let status = self.exit_status();
            self.proc = None;
            return Err(PlayerError::new(
                FailKind::Exited,
                format!("cannot write to the AI on turn {}: {e}{status}", self.turn),
            ));
        }
        Ok(())
    }
}

/// The `start` message.
pub fn start_message(eng: &Engine, info: &GameInfo) -> serde_json::Value {
    let p = eng.prog;
    let commands: Vec<serde_json::Value> = p
        .commands
        .iter()
        .enumerate()
        .map(|(i, n)| serde_json::json!({"name": n, "key": p.key_for(i as CmdId)}))
        .collect();
    serde_json::json!({
        "type": "start",
        "rules": info.rules,
        "side": info.side.name(),
        "mode": if eng.simultaneous { "simultaneous" } else { "alternate" },
        "first": Side::first_mover(p.settings.cpu_first).name(),
        "commands": commands,
        "states": p.states,
        "seed": info.seed,
        "game": info.game,
        "turn_limit": p.settings.turn_limit,
    })
}

/// The `turn` message for `side`.
pub fn turn_message(
    eng: &Engine,
    st: &State,
    side: Side,
    enabled: &[CmdId],
    time_left: f64,
) -> serde_json::Value {
    let p = eng.prog;
    let recent = |s: Side| -> Vec<Option<&str>> {
        // Oldest first, most recent last.
        (0..eng.hl)
            .rev()
            .map(|k| st.hist[s.index() * eng.hl + k])
            .map(|c| (c != NONE).then(|| p.commands[c as usize].as_str()))
            .collect()
    };
    serde_json::json!({
        "type": "turn",
        "turn": st.turn + 1,
        "side": side.name(),
        "you": side_states(eng, st, side),
        "opponent": side_states(eng, st, side.opponent()),
        "commands": enabled.iter().map(|&c| p.commands[c as usize].as_str()).collect::<Vec<_>>(),
        "recent": {"you": recent(side), "opponent": recent(side.opponent())},
        "time_left": time_left,
    })
}

impl Player for AiPlayer {
    fn begin(&mut self, eng: &Engine, info: &GameInfo) -> Result<(), PlayerError> {
        self.side = info.side;
        if self.proc.is_none() {
            self.turn = 0;
            self.spawn()?;
        } else {
            // A line after the last game's answer would be read as this game's first answer.
            let stray = self.stray_lines(&format!("game {}'s start", info.game));
            self.turn = 0;
            stray?;
        }
        self.send(&start_message(eng, info))
    }

    fn choose(
        &mut self,
        eng: &Engine,
        st: &State,
        side: Side,
        enabled: &[CmdId],
    ) -> Result<Option<CmdId>, PlayerError> {
        self.stray_lines(&format!("turn {}", st.turn + 1))?;
        self.turn = st.turn + 1;
        self.send(&turn_message(
            eng,
            st,
            side,
            enabled,
            self.timeout.as_secs_f64(),
        ))?;
        let turn = self.turn;
        let reply = self.recv(&format!("its command on turn {turn}"))?;
        let p = eng.prog;
        let found = p.command_from_input(&reply);
        match found {
            Some(c) if enabled.contains(&c) => Ok(Some(c)),
            _ => {
                let list: Vec<String> = enabled
                    .iter()
                    .map(|&c| format!("[{}]", p.commands[c as usize]))
                    .collect();
                let what = match found {
                    Some(c) => format!("[{}] is not enabled now", p.commands[c as usize]),
                    None => "it is neither a command nor a key".to_string(),
                };
                self.proc = None; // out of step with us: restart before the next game
                Err(PlayerError::new(
                    FailKind::BadReply,
                    format!(
                        "the AI replied {reply:?} on turn {turn}: {what}; enabled: {}",
                        list.join(" ")
                    ),
                ))
            }
        }
    }

    fn finish(
        &mut self,
        eng: &Engine,
        st: &State,
        side: Side,
        outcome: Outcome,
        reason: Option<&str>,
    ) {
        let result = match outcome {
            Outcome::Draw => "draw",
            Outcome::H if side == Side::H => "win",
            Outcome::C if side == Side::C => "win",
            _ => "lose",
        };
        let msg = serde_json::json!({
            "type": "end",
            "result": result,
            "winner": outcome.as_str(),
            "turns": st.turn,
            "reason": reason,
            "you": side_states(eng, st, side),
            "opponent": side_states(eng, st, side.opponent()),
        });
        // A failure to tell the end is noticed at the next game's start.
        let _ = self.send(&msg);
    }

    fn name(&self) -> String {
        self.ai_name.clone().unwrap_or_else(|| self.command.clone())
    }
}

/// The longest line Kumite reads from an AI: a reply is a short JSON object, and an AI that
/// never ends its line must not fill the memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Sends the AI's output line by line (invalid UTF-8 replaced, not fatal) until it ends, the
/// receiver goes, or a line exceeds [`MAX_LINE_BYTES`]. Every complete line already read into
/// the buffer goes in one batch with the first, so a second answer written together with the
/// first is seen with it, not after Kumite has sent the next message.
fn read_lines(out: impl Read, tx: &std::sync::mpsc::SyncSender<Vec<Result<String, String>>>) {
    let mut r = BufReader::new(out);
    let mut buf = Vec::new();
    let mut batch = Vec::new();
    loop {
        buf.clear();
        let limit = MAX_LINE_BYTES as u64 + 1;
        let mut stop = false;
        match (&mut r).take(limit).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => stop = true,
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                    batch.push(Ok(String::from_utf8_lossy(&buf).into_owned()));
                } else if buf.len() > MAX_LINE_BYTES {
                    batch.push(Err(format!(
                        "the AI sent a line longer than {MAX_LINE_BYTES} bytes"
                    )));
                    stop = true;
                } else {
                    // The last line, without its newline.
                    batch.push(Ok(String::from_utf8_lossy(&buf).into_owned()));
                }
            }
        }
        // More complete lines waiting in the buffer join this batch.
        if !stop && r.buffer().contains(&b'\n') {
            continue;
        }
        if !batch.is_empty() && tx.send(std::mem::take(&mut batch)).is_err() {
            break;
        }
        if stop {
            break;
        }
    }
}
