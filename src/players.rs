//! Players from their specs — `human`, `random`, `cpu[:S5,D1,E0,P200]`, `cpu:exact`,
//! `ai:COMMAND` — for matches, arenas and reports alike, and the terminal player.

use crate::engine::players::{FailKind, Player, PlayerError, RandomPlayer};
use crate::engine::{Engine, Side, State};
use crate::program::{CmdId, RuleProgram, RunConfig};
use crate::search::CpuSpecError;
use std::io::Write;

/// A player spec that makes no player.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// A `cpu:` setting that cannot be read.
    #[error(transparent)]
    Cpu(#[from] CpuSpecError),
    /// `ai:` with nothing after it.
    #[error("ai: needs a command, e.g. ai:'python3 my_ai.py'")]
    NoCommand,
    /// An AI's time limit that is not a positive number of seconds.
    #[error("--ai-timeout must be a positive number of seconds, not {0}")]
    Timeout(f64),
    /// Not a kind of player.
    #[error("unknown player '{0}': use human, random, cpu[:S5,D1,E0,P200] or ai:COMMAND")]
    Unknown(String),
}

/// A player spec, read once: what kind of player it makes, with its settings.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// `human`: the terminal player.
    Human,
    /// `random`: a uniformly random enabled command.
    Random,
    /// `cpu[:…]`: the CPU with its settings (the file's `~` line, overridden by the spec's).
    Cpu(crate::search::CpuSettings),
    /// `ai:COMMAND`: an external program (its command line, not empty).
    Ai(String),
}

impl PlayerSpec {
    /// Reads `spec` for `prog` (whose `~` settings a `cpu` spec starts from) run under
    /// `config` (which must hold a learned evaluation for `cpu:trained`).
    pub fn parse(prog: &RuleProgram, config: &RunConfig, spec: &str) -> Result<Self, SpecError> {
        if let Some(settings) = crate::search::CpuSettings::of_player(prog, spec) {
            let settings = settings?;
            settings.check_trained(config)?;
            return Ok(Self::Cpu(settings));
        }
        match spec {
            "random" => Ok(Self::Random),
            "human" => Ok(Self::Human),
            s => match s.strip_prefix("ai:") {
                Some(cmd) if cmd.trim().is_empty() => Err(SpecError::NoCommand),
                Some(cmd) => Ok(Self::Ai(cmd.to_string())),
                None => Err(SpecError::Unknown(s.to_string())),
            },
        }
    }

    /// Whether it is an external program (one process, so its games run one after another).
    pub fn is_ai(&self) -> bool {
        matches!(self, Self::Ai(_))
    }

    /// The seed its player gets on `side` for a game seed.
    pub fn seed(&self, seed: u64, side: Side) -> u64 {
        if *self == Self::Random {
            seed.wrapping_add(side as u64 * 0x9E37_79B9)
        } else {
            seed.wrapping_add(side as u64 * 0x51ED)
        }
    }

    /// Its player for `prog` run under `config` on `side` in a game of `seed`; an external AI
    /// gets `ai_timeout` seconds a move.
    pub fn player<'a>(
        &self,
        prog: &'a RuleProgram,
        config: &RunConfig,
        seed: u64,
        side: Side,
        ai_timeout: f64,
    ) -> Result<Box<dyn Player + Send + 'a>, SpecError> {
        let seed = self.seed(seed, side);
        Ok(match self {
            Self::Cpu(settings) => Box::new(crate::search::CpuPlayer::with_config(
                prog,
                settings.clone(),
                seed,
                config,
            )),
            Self::Random => Box::new(RandomPlayer::new(seed)),
            Self::Human => Box::new(HumanPlayer),
            Self::Ai(cmd) => {
                if !(ai_timeout.is_finite() && ai_timeout > 0.0) {
                    return Err(SpecError::Timeout(ai_timeout));
                }
                Box::new(crate::ai_protocol::AiPlayer::new(
                    cmd,
                    std::time::Duration::try_from_secs_f64(ai_timeout)
                        .unwrap_or(std::time::Duration::from_secs(86_400)),
                ))
            }
        })
    }
}

/// A player from its spec: `human`, `random`, `cpu[:…]` or `ai:COMMAND` ([`PlayerSpec`]),
/// for `prog` run under `config`.
pub fn make_player<'a>(
    prog: &'a RuleProgram,
    config: &RunConfig,
    spec: &str,
    seed: u64,
    side: Side,
    ai_timeout: f64,
) -> Result<Box<dyn Player + Send + 'a>, SpecError> {
    PlayerSpec::parse(prog, config, spec)?.player(prog, config, seed, side, ai_timeout)
}

/// Makes `player` (made from `spec`) play the next game as [`PlayerSpec::player`] would make
/// it for `seed`: reseeded in place where it can be, made anew otherwise. External AIs keep
/// their process (they are told each game's seed when it begins).
pub fn ready_player<'a>(
    player: &mut Box<dyn Player + Send + 'a>,
    prog: &'a RuleProgram,
    config: &RunConfig,
    spec: &PlayerSpec,
    seed: u64,
    side: Side,
    ai_timeout: f64,
) -> Result<(), SpecError> {
    if spec.is_ai() || player.reseed(spec.seed(seed, side)) {
        return Ok(());
    }
    *player = spec.player(prog, config, seed, side, ai_timeout)?;
    Ok(())
}

/// True if the player spec is an external AI (one process, so games run one after another):
/// what [`PlayerSpec::parse`] reads as [`PlayerSpec::Ai`], told without reading the rest.
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
            if side == Side::H { "h (you)" } else { "c" }
        );
        for s in Side::BOTH {
            let vals: Vec<String> = (2..p.states.len())
                .map(|i| format!("{}={}", p.states[i], eng.val(st, s, i as u32)))
                .collect();
            let _ = writeln!(out, "  {}: {}", s.name(), vals.join("  "));
        }
        let list: Vec<String> = enabled
            .iter()
            .map(|&c| match p.key_for(c) {
                Some(k) => format!("{k}=[{}]", p.commands[c as usize]),
                None => format!("[{}]", p.commands[c as usize]),
            })
            .collect();
        loop {
            let _ = write!(out, "  commands: {}   (? for help)\n  > ", list.join("  "));
            let _ = out.flush();
            let line = read_terminal_line(&mut std::io::stdin().lock())?;
            // Full-width input (an IME left on) reads as ASCII, as in rule files.
            let line: String = line.chars().map(crate::syntax::lexer::norm).collect();
            let t = line.trim();
            match p.command_from_input(&line) {
                Some(c) if enabled.contains(&c) => return Ok(Some(c)),
                Some(c) => {
                    let _ = writeln!(
                        out,
                        "  [{}] is not enabled now (help or ? lists what is)",
                        p.commands[c as usize]
                    );
                }
                None if matches!(t, "?" | "help" | "ヘルプ") => {
                    let _ = write!(out, "{}", human_help(p, enabled));
                }
                None => {
                    let shown: String = t.chars().take(40).collect();
                    let more = if shown.len() < t.len() { "…" } else { "" };
                    let _ = writeln!(
                        out,
                        "  '{}{more}' is neither a key nor a command (help or ? lists them)",
                        shown.escape_debug()
                    );
                }
            }
        }
    }
}

/// The longest line a terminal player may type (a key or a command's name is far shorter).
pub const MAX_HUMAN_LINE: usize = 4096;

/// One line typed by the terminal player, read without holding more than
/// [`MAX_HUMAN_LINE`] bytes: a longer line, input that is not UTF-8 and the end of input end
/// the player's part in the game (input that never brings a newline cannot grow memory).
pub fn read_terminal_line(r: &mut impl std::io::BufRead) -> Result<String, PlayerError> {
    let gone = |m: String| PlayerError::new(FailKind::HumanInputEnded, m);
    let mut line: Vec<u8> = Vec::new();
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(gone(format!("cannot read the terminal: {e}"))),
        };
        if buf.is_empty() {
            if line.is_empty() {
                return Err(gone("end of input on the terminal".into()));
            }
            break;
        }
        let (chunk, used, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        if line.len() + chunk.len() > MAX_HUMAN_LINE {
            return Err(gone(format!(
                "the terminal sent a line longer than {MAX_HUMAN_LINE} bytes: not a key or a command; input refused"
            )));
        }
        line.extend_from_slice(chunk);
        r.consume(used);
        if done {
            break;
        }
    }
    String::from_utf8(line).map_err(|e| {
        gone(format!(
            "the terminal sent text that is not UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// What `help` or `?` shows the terminal player: how to answer, the file's key bindings (its
/// `':` lines), the commands enabled now and those that are not.
pub fn human_help(p: &RuleProgram, enabled: &[CmdId]) -> String {
    let named = |c: CmdId| match p.key_for(c) {
        Some(k) => format!("{k}=[{}]", p.commands[c as usize]),
        None => format!("[{}]", p.commands[c as usize]),
    };
    let mut s = String::from(
        "  Type a key or a command's name and press Enter (help or ? shows this again).\n",
    );
    if p.keys.is_empty() {
        s.push_str("  keys: none (the file has no ':' line); type the command's name\n");
    } else {
        let keys: Vec<String> = p
            .keys
            .iter()
            .map(|k| format!("{}=[{}]", k.key, p.commands[k.cmd as usize]))
            .collect();
        s.push_str(&format!(
            "  keys (the file's ':' line): {}\n",
            keys.join("  ")
        ));
    }
    let now: Vec<String> = enabled.iter().map(|&c| named(c)).collect();
    s.push_str(&format!("  enabled now: {}\n", now.join("  ")));
    let others: Vec<String> = (0..p.commands.len() as CmdId)
        .filter(|c| !enabled.contains(c))
        .map(named)
        .collect();
    if !others.is_empty() {
        s.push_str(&format!("  not enabled now: {}\n", others.join("  ")));
    }
    s
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
    fn take_search_work(&mut self) -> Option<crate::engine::players::SearchWork> {
        (**self).take_search_work()
    }
}
