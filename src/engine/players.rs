//! Players that choose commands, and the match loop that runs them.

use super::{Engine, GameResult, Outcome, RuntimeError, Side, State, TurnTrace};
use crate::program::{CmdId, RuleProgram};

/// Why a player could not go on; the player forfeits the game. The number is the process exit
/// status `kumite match` uses for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailKind {
    /// The AI command could not be started.
    CannotStart = 10,
    /// The AI printed an empty name.
    EmptyName = 11,
    /// The AI's output ended before its name.
    NoName = 12,
    /// The AI exited or closed its pipes mid-match.
    Exited = 13,
    /// The reply was not an enabled command.
    BadReply = 14,
    /// No reply within the time limit.
    Timeout = 15,
    /// A human player's input ended (end of file, a closed terminal) or could not be read.
    HumanInputEnded = 16,
}

/// A player's failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerError {
    /// What kind.
    pub kind: FailKind,
    /// What happened, quoting the player where it can.
    pub message: String,
}

impl PlayerError {
    /// A new failure.
    pub fn new(kind: FailKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

/// What a player is told when a game begins.
#[derive(Clone, Debug)]
pub struct GameInfo<'a> {
    /// Rule file name.
    pub rules: &'a str,
    /// Which side the player plays.
    pub side: Side,
    /// The game's seed.
    pub seed: u64,
    /// Index of the game in an arena run (0 for a single match).
    pub game: u64,
}

/// Something that picks a command for a side.
pub trait Player {
    /// A game begins.
    fn begin(&mut self, _eng: &Engine, _info: &GameInfo) -> Result<(), PlayerError> {
        Ok(())
    }
    /// Chooses one of `enabled` (never empty) for `side`; `None` passes.
    fn choose(
        &mut self,
        eng: &Engine,
        st: &State,
        side: Side,
        enabled: &[CmdId],
    ) -> Result<Option<CmdId>, PlayerError>;
    /// The game ended: the outcome, and the forfeit reason if there was one.
    fn finish(
        &mut self,
        _eng: &Engine,
        _st: &State,
        _side: Side,
        _outcome: Outcome,
        _reason: Option<&str>,
    ) {
    }
    /// A short name for reports.
    fn name(&self) -> String {
        "player".into()
    }
    /// Starts afresh as if just made with `seed` (the seed its constructor took), so one player
    /// can serve many games; false if this player cannot (make a new one instead).
    fn reseed(&mut self, _seed: u64) -> bool {
        false
    }
    /// The search work done since the last call, and restarts the count (None: this player does
    /// not search). The arena adds it up, so its nodes per second are those of the command run.
    fn take_search_work(&mut self) -> Option<SearchWork> {
        None
    }
}

/// Search work of a player over some moves: how many moves, nodes and seconds of thinking.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SearchWork {
    /// Moves chosen.
    pub moves: u64,
    /// Search nodes visited.
    pub nodes: u64,
    /// Seconds spent choosing.
    pub seconds: f64,
}

impl SearchWork {
    /// Adds another count.
    pub fn add(&mut self, o: &SearchWork) {
        self.moves += o.moves;
        self.nodes += o.nodes;
        self.seconds += o.seconds;
    }

    /// Nodes per second of thinking (0 when no time was measured).
    pub fn nodes_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.nodes as f64 / self.seconds
        } else {
            0.0
        }
    }
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
    ) -> Result<Option<CmdId>, PlayerError> {
        Ok(Some(enabled[self.rng.below(enabled.len())]))
    }
    fn name(&self) -> String {
        "random".into()
    }
    fn reseed(&mut self, seed: u64) -> bool {
        *self = Self::new(seed);
        true
    }
}

/// One recorded move.
/// (No text of its own: a million-turn match's list shares the command names.)
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MoveRecord {
    /// Turn number.
    pub turn: u32,
    /// "h" or "c".
    pub side: &'static str,
    /// Command name, or null for a pass.
    pub command: Option<std::sync::Arc<str>>,
}

/// A forfeit: which side gave up the game and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Forfeit {
    /// The side (written "h" or "c").
    pub side: crate::side::Side,
    /// What went wrong.
    pub kind: FailKind,
    /// The message.
    pub reason: String,
}

/// The result of a match.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MatchResult {
    /// Who won, a draw, or an error.
    pub result: GameResult,
    /// Turns played.
    pub turns: u32,
    /// Seed.
    pub seed: u64,
    /// Every move.
    pub moves: Vec<MoveRecord>,
    /// The runtime error, if the match ended with one.
    pub error: Option<String>,
    /// The forfeit, if a player failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<Forfeit>,
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
    /// Stop after this many turns (a draw).
    pub max_turns: Option<u32>,
    /// Rule file name (told to players).
    pub rules_name: String,
    /// Index of the game in an arena run.
    pub game: u64,
    /// Keep no move list and only the last turn's trace (a long match shown as text needs
    /// no more; [`play_match_with`] still hands every move to its caller as it is made).
    pub lean: bool,
}

/// How a game ended, without its record (see [`play_game`]).
#[derive(Debug)]
pub struct GameEnd {
    /// Who won, a draw, or an error.
    pub result: GameResult,
    /// Turns played.
    pub turns: u32,
    /// The runtime error, if the game ended with one.
    pub error: Option<String>,
    /// The side that forfeited and why.
    pub forfeit: Option<(Side, PlayerError)>,
    /// Whether each side (h, c) chose a move at least once.
    pub moved: [bool; 2],
}

/// Plays a match between two players. `on_turn` is called after every turn.
pub fn play_match(
    prog: &RuleProgram,
    players: &mut [&mut dyn Player; 2],
    opts: &MatchOptions,
    mut on_turn: impl FnMut(&Engine, &State, Option<&TurnTrace>),
) -> MatchResult {
    play_match_with(prog, players, opts, |e, s, _, t| on_turn(e, s, t))
}

/// [`play_match`], handing `on_turn` the turn's moves as well (to stream a log).
pub fn play_match_with(
    prog: &RuleProgram,
    players: &mut [&mut dyn Player; 2],
    opts: &MatchOptions,
    mut on_turn: impl FnMut(&Engine, &State, &[MoveRecord], Option<&TurnTrace>),
) -> MatchResult {
    let eng = Engine::new(prog, opts.seed);
    let mut moves = Vec::new();
    let mut turn_moves = Vec::with_capacity(2);
    let names: Vec<std::sync::Arc<str>> = prog.commands.iter().map(|c| c.as_str().into()).collect();
    let mut traces = Vec::new();
    let mut st = State::default();
    let end = play_game(
        &eng,
        &mut st,
        players,
        opts,
        &mut Vec::new(),
        |eng, st, movers, cmds, t| {
            turn_moves.clear();
            for &s in movers {
                turn_moves.push(MoveRecord {
                    turn: st.turn,
                    side: s.name(),
                    command: cmds[s].map(|c| names[c as usize].clone()),
                });
            }
            on_turn(eng, st, &turn_moves, t.as_ref());
            if !opts.lean {
                moves.append(&mut turn_moves);
            }
            if let Some(t) = t {
                if opts.lean {
                    traces.clear();
                }
                traces.push(t);
            }
        },
    );
    MatchResult {
        result: end.result,
        turns: end.turns,
        seed: opts.seed,
        moves,
        error: end.error,
        forfeit: end.forfeit.map(|(s, e)| Forfeit {
            side: s,
            kind: e.kind,
            reason: e.message,
        }),
        trace: traces,
        final_states: if st.vals.is_empty() {
            serde_json::Value::Null
        } else {
            final_states(&eng, &st)
        },
    }
}

/// Plays one game on `eng` (its seed already set for the game) in `st`, whose buffers are reused:
/// the loop of [`play_match`] without a record, for runs of many games. `enabled` is scratch.
/// `on_turn` gets the position after each turn, the sides that moved, their commands and the
/// turn's trace (when `opts.trace`). Generic over the players' type so that runs of one
/// built-in kind (random against random) call it without dynamic dispatch.
#[inline]
pub fn play_game<P: Player + ?Sized>(
    eng: &Engine,
    st: &mut State,
    players: &mut [&mut P; 2],
    opts: &MatchOptions,
    enabled: &mut Vec<CmdId>,
    mut on_turn: impl FnMut(&Engine, &State, &[Side], [Option<CmdId>; 2], Option<TurnTrace>),
) -> GameEnd {
    let mut end = GameEnd {
        result: GameResult::Error,
        turns: 0,
        error: None,
        forfeit: None,
        moved: [false; 2],
    };
    if let Err(e) = eng.reset(st, opts.first) {
        end.error = Some(format!("runtime error at {e}"));
        st.vals.clear();
        return end;
    }
    // Room for every command: the enabled list is written in place each turn.
    if enabled.len() < eng.nc {
        enabled.resize(eng.nc, 0);
    }
    let mut forfeit: Option<(Side, PlayerError)> = None;
    for (side, player) in players.iter_mut().enumerate() {
        if forfeit.is_none()
            && let Err(e) = player.begin(
                eng,
                &GameInfo {
                    rules: &opts.rules_name,
                    side: Side::from_index(side),
                    seed: opts.seed,
                    game: opts.game,
                },
            )
        {
            forfeit = Some((Side::from_index(side), e));
        }
    }
    let mut error = None;
    let outcome = 'game: loop {
        if forfeit.is_some() {
            break 'game None;
        }
        if let Some(o) = st.outcome {
            break 'game Some(o);
        }
        if opts.max_turns.is_some_and(|m| st.turn >= m) {
            break 'game Some(Outcome::Draw);
        }
        let mut cmds = [None, None];
        for &s in eng.movers(st) {
            let n = eng.enabled_into(st, s, enabled);
            if n == 0 {
                continue;
            }
            match players[s].choose(eng, st, s, &enabled[..n]) {
                Ok(c) => {
                    end.moved[s.index()] = true;
                    cmds[s] = c.filter(|&c| (c as usize) < eng.nc && eng.is_enabled(st, s, c));
                }
                Err(e) => {
                    forfeit = Some((s, e));
                    continue 'game;
                }
            }
        }
        let movers = eng.movers(st);
        let r: Result<(), RuntimeError> = if opts.trace {
            let mut t = TurnTrace::default();
            let r = eng.play(st, cmds, Some(&mut t));
            on_turn(eng, st, movers, cmds, Some(t));
            r
        } else {
            let r = eng.play(st, cmds, None);
            on_turn(eng, st, movers, cmds, None);
            r
        };
        if let Err(e) = r {
            error = Some(format!("runtime error at {e}"));
            break 'game None;
        }
    };
    let (result, o) = match (&forfeit, outcome) {
        (Some((s, _)), _) => {
            let o = if *s == Side::H {
                Outcome::C
            } else {
                Outcome::H
            };
            (GameResult::from(o), o)
        }
        (None, Some(o)) => (GameResult::from(o), o),
        (None, None) => (GameResult::Error, Outcome::Draw),
    };
    let reason = forfeit
        .as_ref()
        .map(|(s, e)| format!("{} forfeits: {}", s.name(), e.message));
    for (side, p) in players.iter_mut().enumerate() {
        if forfeit
            .as_ref()
            .is_some_and(|(s, _)| *s == Side::from_index(side))
        {
            continue; // a failed player is not told anything more
        }
        p.finish(eng, st, Side::from_index(side), o, reason.as_deref());
    }
    end.result = result;
    end.turns = st.turn;
    end.error = error;
    end.forfeit = forfeit;
    end
}

/// One side's state values, (name, value) in the rules' order (`勝利`/`敗北` first), written as a
/// JSON object.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct StateValues(pub Vec<(String, i64)>);

impl serde::Serialize for StateValues {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        serialize_pairs(&self.0, ser)
    }
}

/// (name, value) pairs written as one JSON object, in their order.
pub fn serialize_pairs<S: serde::Serializer, T: serde::Serialize>(
    pairs: &[(String, T)],
    ser: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = ser.serialize_map(Some(pairs.len()))?;
    for (k, v) in pairs {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

/// Both sides' state values (`{"h":{…},"c":{…}}` in JSON).
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize)]
pub struct BothStates {
    /// h's.
    pub h: StateValues,
    /// c's.
    pub c: StateValues,
}

impl std::ops::Index<Side> for BothStates {
    type Output = StateValues;
    fn index(&self, side: Side) -> &StateValues {
        match side {
            Side::H => &self.h,
            Side::C => &self.c,
        }
    }
}

/// Both sides' state values (`勝利`/`敗北` included).
pub fn both_states(eng: &Engine, st: &State) -> BothStates {
    BothStates {
        h: side_states(eng, st, Side::H),
        c: side_states(eng, st, Side::C),
    }
}

/// Both sides' state values as JSON (`勝利`/`敗北` included), as logs and the AI protocol write
/// them.
pub fn final_states(eng: &Engine, st: &State) -> serde_json::Value {
    serde_json::to_value(both_states(eng, st)).unwrap_or_default()
}

/// One side's state values.
pub fn side_states(eng: &Engine, st: &State, side: Side) -> StateValues {
    StateValues(
        eng.prog
            .states
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), eng.val(st, side, i as u32)))
            .collect(),
    )
}
