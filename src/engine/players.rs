//! Players that choose commands, and a whole match loop.

use super::{Engine, Outcome, RuntimeError, Side, State, TurnTrace};
use crate::program::{CmdId, RuleProgram};

/// Something that picks a command for a side.
pub trait Player {
    /// Chooses one of `enabled` (never empty) for `side`; `None` passes.
    fn choose(
        &mut self,
        eng: &Engine,
        st: &State,
        side: Side,
        enabled: &[CmdId],
    ) -> Result<Option<CmdId>, String>;
    /// Told the outcome at the end of a match.
    fn finish(&mut self, _eng: &Engine, _st: &State, _outcome: Option<Outcome>) {}
}

/// Uniform over the enabled commands, from its own seeded stream.
pub struct RandomPlayer {
    rng: super::rng::SplitMix,
}

impl RandomPlayer {
    /// A random player with its own seed.
    pub fn new(seed: u64) -> Self {
        Self {
            rng: super::rng::SplitMix(super::rng::mix(seed ^ 0x005E_ED0F_4A4D)),
        }
    }
}

impl Player for RandomPlayer {
    fn choose(
        &mut self,
        _eng: &Engine,
        _st: &State,
        _side: Side,
        enabled: &[CmdId],
    ) -> Result<Option<CmdId>, String> {
        use rand::RngExt;
        Ok(Some(enabled[self.rng.random_range(0..enabled.len())]))
    }
}

/// One recorded move.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MoveRecord {
    /// Turn number.
    pub turn: u32,
    /// "h" or "c".
    pub side: &'static str,
    /// Command name, or null for a pass.
    pub command: Option<String>,
}

/// The result of a match.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MatchResult {
    /// "h", "c", "draw" or "error".
    pub result: &'static str,
    /// Turns played.
    pub turns: u32,
    /// Seed.
    pub seed: u64,
    /// Every move.
    pub moves: Vec<MoveRecord>,
    /// The error, if the match ended with one.
    pub error: Option<String>,
    /// Per-turn traces, when asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<TurnTrace>,
    /// Final state values: side → state → value.
    pub final_states: serde_json::Value,
}

/// Options of a match.
#[derive(Clone, Debug, Default)]
pub struct MatchOptions {
    /// Seed.
    pub seed: u64,
    /// Side to move first (alternate mode).
    pub first: Side,
    /// Record traces.
    pub trace: bool,
    /// Called after each turn (for printing or delays).
    pub max_turns: Option<u32>,
}

/// Plays a match between two players.
pub fn play_match(
    prog: &RuleProgram,
    players: &mut [&mut dyn Player; 2],
    opts: &MatchOptions,
    mut on_turn: impl FnMut(&Engine, &State, Option<&TurnTrace>),
) -> MatchResult {
    let eng = Engine::new(prog, opts.seed);
    let mut moves = Vec::new();
    let mut traces = Vec::new();
    let finish = |eng: &Engine,
                  st: Option<&State>,
                  result: &'static str,
                  error: Option<String>,
                  moves: Vec<MoveRecord>,
                  trace: Vec<TurnTrace>| MatchResult {
        result,
        turns: st.map_or(0, |s| s.turn),
        seed: opts.seed,
        moves,
        error,
        trace,
        final_states: st
            .map(|s| final_states(eng, s))
            .unwrap_or(serde_json::Value::Null),
    };
    let mut st = match eng.initial(opts.first) {
        Ok(s) => s,
        Err(e) => return finish(&eng, None, "error", Some(e.to_string()), moves, traces),
    };
    let mut enabled = Vec::new();
    loop {
        if let Some(o) = st.outcome {
            for p in players.iter_mut() {
                p.finish(&eng, &st, Some(o));
            }
            return finish(&eng, Some(&st), o.as_str(), None, moves, traces);
        }
        if opts.max_turns.is_some_and(|m| st.turn >= m) {
            for p in players.iter_mut() {
                p.finish(&eng, &st, Some(Outcome::Draw));
            }
            return finish(&eng, Some(&st), "draw", None, moves, traces);
        }
        let mut cmds = [None, None];
        for &s in eng.movers(&st) {
            eng.enabled_commands(&st, s, &mut enabled);
            if enabled.is_empty() {
                continue;
            }
            match players[s].choose(&eng, &st, s, &enabled) {
                Ok(c) => cmds[s] = c.filter(|c| enabled.contains(c)),
                Err(e) => {
                    for p in players.iter_mut() {
                        p.finish(&eng, &st, None);
                    }
                    return finish(
                        &eng,
                        Some(&st),
                        "error",
                        Some(format!("{} player: {e}", if s == 0 { "h" } else { "c" })),
                        moves,
                        traces,
                    );
                }
            }
        }
        let mut t = TurnTrace::default();
        let movers = eng.movers(&st);
        let res: Result<(), RuntimeError> =
            eng.play(&mut st, cmds, if opts.trace { Some(&mut t) } else { None });
        for &s in movers {
            moves.push(MoveRecord {
                turn: st.turn,
                side: if s == 0 { "h" } else { "c" },
                command: cmds[s].map(|c| prog.commands[c as usize].clone()),
            });
        }
        on_turn(&eng, &st, opts.trace.then_some(&t));
        if opts.trace {
            traces.push(t);
        }
        if let Err(e) = res {
            return finish(
                &eng,
                Some(&st),
                "error",
                Some(format!("runtime error at {e}")),
                moves,
                traces,
            );
        }
    }
}

/// Both sides' state values as JSON.
pub fn final_states(eng: &Engine, st: &State) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for side in 0..2 {
        let mut m = serde_json::Map::new();
        for (i, n) in eng.prog.states.iter().enumerate() {
            m.insert(n.clone(), serde_json::json!(eng.val(st, side, i as u32)));
        }
        out.insert(
            if side == 0 { "h" } else { "c" }.into(),
            serde_json::Value::Object(m),
        );
    }
    serde_json::Value::Object(out)
}
