//! The logic behind the match panel, free of drawing so tests can drive it directly: a match on
//! one compiled program (kept even when the text is later edited), its history for undo, the
//! CPU thinking on its own thread, real-time ticks, and replays of a win path.

use super::i18n::{Lang, T, tr, trf, trn};
use super::job::{Job, Polled};
use crate::analysis::{VictoryGraph, distances, evaluate};
use crate::engine::{Engine, Outcome, RuntimeError, Side, State, TurnTrace};
use crate::pipeline::Compiled;
use crate::program::{CmdId, RuleProgram};
use crate::search::{CpuPlayer, CpuSettings, CpuStreams};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why a choice was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The match has ended.
    Over,
    /// It is not that side's (or any human's) turn.
    NotYourTurn,
    /// The command is not enabled for the side now.
    NotEnabled(String, Side),
}

impl Refusal {
    /// The message in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        match self {
            Refusal::Over => tr(lang, T::TheMatchIsOver).into(),
            Refusal::NotYourTurn => tr(lang, T::WaitItIsNot).into(),
            Refusal::NotEnabled(c, side) => trn(lang, T::CIsNotEnabled, &[c, &side.name()]),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text(Lang::En))
    }
}

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Controller {
    /// A person at the keyboard (or mouse).
    Human,
    /// The CPU, with the panel's settings.
    Cpu,
}

/// One turn played.
#[derive(Clone, Debug)]
pub struct TurnRecord {
    /// The position before the turn.
    pub before: State,
    /// The commands chosen (for the side(s) that moved).
    pub cmds: [Option<CmdId>; 2],
    /// What happened.
    pub trace: TurnTrace,
    /// A runtime error that ended the match in this turn.
    pub error: Option<RuntimeError>,
    /// Where each CPU's random streams stood before the turn (an undo takes them back).
    pub streams: [Option<CpuStreams>; 2],
}

/// The derived judgement of one position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Judgement {
    /// Evaluation for h (§10.6); ±1e9 once decided.
    pub eval: f64,
    /// Distances to winning of h and c.
    pub dist: [u32; 2],
}

impl Judgement {
    /// The judgement of `st`.
    pub fn of(graph: &VictoryGraph, eng: &Engine, st: &State) -> Self {
        Self {
            eval: evaluate(graph, eng, st, Side::H),
            dist: [
                distances(graph, eng, st, Side::H).to_win,
                distances(graph, eng, st, Side::C).to_win,
            ],
        }
    }
}

/// A replay of a win path: the moves still to play and the states the path expects after each.
#[derive(Clone, Debug, Default)]
pub struct Replay {
    /// Joint moves still to play.
    pub moves: VecDeque<[Option<CmdId>; 2]>,
    /// Steps played so far.
    pub played: usize,
    /// The first step after which the match differs from the path (chance went otherwise).
    pub diverged: Option<usize>,
    /// Expected both-sides states after each remaining step (as the solver printed them).
    pub expected: VecDeque<crate::engine::players::BothStates>,
    /// Step automatically.
    pub auto: bool,
    /// When the next automatic step is due.
    pub next: Option<Instant>,
}

/// What a CPU's thinking thread returns: its move, the nodes it searched, how long it took,
/// where its random streams stand after it, and whether it stopped at its time limit.
type Thought = (Option<CmdId>, u64, Duration, CpuStreams, bool);

/// A match in the studio.
pub struct MatchSession {
    /// The program this match runs (a later edit of the text does not change it).
    pub compiled: Arc<Compiled>,
    /// Its victory-condition graph.
    pub graph: Arc<VictoryGraph>,
    /// The match seed (chance in `rand`, and the CPU's own choices).
    pub seed: u64,
    /// Who plays h and c.
    pub players: [Controller; 2],
    /// The CPU's settings.
    pub cpu: CpuSettings,
    /// The position the match started from.
    pub start: State,
    /// The current position.
    pub st: State,
    /// Turns played.
    pub turns: Vec<TurnRecord>,
    /// Judgement of the start and after each turn.
    pub judgements: Vec<Judgement>,
    /// The error that ended the match.
    pub error: Option<RuntimeError>,
    /// Choices made this turn and not yet resolved (simultaneous mode, real-time play).
    pub pending: [Option<Option<CmdId>>; 2],
    thinking: Option<(Side, Job<Thought>)>,
    /// The `cpu:exact` table of this match's program, once built.
    exact: Arc<std::sync::Mutex<Option<crate::search::exact::Built>>>,
    /// When the match (and so the table's build) started.
    exact_since: Instant,
    /// The CPU's thread died: shown, and the CPU passes.
    pub cpu_failed: bool,
    /// Nodes the CPU searched for its last move, and how long its search took (0 nodes: the
    /// move came from the exact table).
    pub cpu_last: Option<(u64, Duration)>,
    /// The CPU's last move stopped at its time limit (`P`) before its depth: another machine
    /// may choose otherwise there.
    pub cpu_timed_out: bool,
    /// Where each side's CPU left its random streams (None: as `kumite match` seeds them), so
    /// that a CPU made anew for each move plays as `kumite match`'s one player does.
    streams: [Option<CpuStreams>; 2],
    /// The streams as this turn began (recorded with it).
    streams_before: [Option<CpuStreams>; 2],
    /// Real-time play: one turn every P ms.
    pub realtime: bool,
    /// With no human playing, the least time between turns (to watch CPU against CPU).
    pub watch_pace: Duration,
    /// When the last turn was played.
    last_turn_at: Option<Instant>,
    next_tick: Option<Instant>,
    /// False while the start position is being edited.
    pub started: bool,
    /// A win path being replayed.
    pub replay: Option<Replay>,
    /// The learned evaluation a `trained` CPU plays with (see `MatchPanel::learned`).
    pub learned: Option<Arc<crate::program::Learned>>,
}

/// The program of a compiled text that has one.
fn program_of(c: &Compiled) -> &RuleProgram {
    c.program
        .as_ref()
        .expect("a match is only made from a program that compiled")
}

impl MatchSession {
    /// A new match of `compiled` (which must have a program) from its initial position, or from
    /// `start` if given. Not started while `edit` is true (the position can still be changed).
    pub fn new(
        compiled: Arc<Compiled>,
        graph: Arc<VictoryGraph>,
        seed: u64,
        players: [Controller; 2],
        cpu: CpuSettings,
        start: Option<State>,
    ) -> Result<Self, String> {
        let prog = compiled
            .program
            .as_ref()
            .ok_or("the rules have errors: fix them to start a match")?;
        let eng = Engine::new(prog, seed);
        let first = Side::first_mover(prog.settings.cpu_first);
        let st = match start {
            Some(s) => s,
            None => eng.initial(first).map_err(|e| e.to_string())?,
        };
        let j = Judgement::of(&graph, &eng, &st);
        drop(eng);
        // The exact CPU's table is built in the background as the match starts (the CPU's
        // first move waits for it if it comes first).
        let exact: Arc<std::sync::Mutex<Option<crate::search::exact::Built>>> = Default::default();
        // A plain thread, not a `Job`: nothing polls it, it fills the slot the CPU's jobs read.
        if cpu.exact && players.contains(&Controller::Cpu) {
            let (compiled, st, slot) = (compiled.clone(), st.clone(), exact.clone());
            let _ = std::thread::Builder::new()
                .name("kumite-exact".into())
                .spawn(move || {
                    let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
                    if slot.is_none() {
                        *slot = Some(crate::search::exact::TableCache::process().get(
                            program_of(&compiled),
                            &crate::program::RunConfig::default(),
                            &st,
                            crate::search::EXACT_BUDGET,
                            crate::search::EXACT_POSITIONS,
                        ));
                    }
                });
        }
        Ok(Self {
            compiled,
            graph,
            seed,
            players,
            cpu,
            start: st.clone(),
            st,
            turns: Vec::new(),
            judgements: vec![j],
            error: None,
            pending: [None, None],
            thinking: None,
            exact,
            exact_since: Instant::now(),
            cpu_failed: false,
            cpu_last: None,
            cpu_timed_out: false,
            streams: [None, None],
            streams_before: [None, None],
            realtime: false,
            watch_pace: Duration::ZERO,
            last_turn_at: None,
            next_tick: None,
            started: true,
            replay: None,
            learned: None,
        })
    }

    /// The program.
    pub fn prog(&self) -> &RuleProgram {
        program_of(&self.compiled)
    }

    fn engine(&self) -> Engine<'_> {
        Engine::new(self.prog(), self.seed)
    }

    /// True once won, lost, drawn or ended by an error.
    pub fn over(&self) -> bool {
        self.st.outcome.is_some() || self.error.is_some()
    }

    /// Simultaneous mode.
    pub fn simultaneous(&self) -> bool {
        self.prog().settings.simultaneous
    }

    /// The side(s) that act this turn (none once over).
    pub fn movers(&self) -> Vec<Side> {
        if self.over() || !self.started {
            Vec::new()
        } else if self.simultaneous() {
            vec![Side::H, Side::C]
        } else {
            vec![self.st.to_move]
        }
    }

    /// Movers that have not chosen yet.
    pub fn waiting_for(&self) -> Vec<Side> {
        self.movers()
            .into_iter()
            .filter(|&s| self.pending[s].is_none())
            .collect()
    }

    /// True once the exact table was found impossible for this match (the CPU plays by search).
    pub fn exact_unavailable(&self) -> bool {
        self.exact
            .try_lock()
            .is_ok_and(|slot| matches!(slot.as_ref(), Some(Err(_))))
    }

    /// What the `exact` CPU plays from, once its table is built.
    pub fn exact_status(&self, lang: Lang) -> Option<String> {
        let Ok(slot) = self.exact.try_lock() else {
            // Being built (or consulted by the thinking CPU).
            let secs = self.exact_since.elapsed().as_secs_f64();
            return Some(trf(lang, T::ExactBuilding, format!("{secs:.1}")));
        };
        Some(match (slot.as_ref()?, lang) {
            (Ok(t), Lang::En) => t.describe(),
            (Ok(t), Lang::Ja) => exact_table_ja(t),
            (Err(e), _) => trf(lang, T::ExactUnavailable, e),
        })
    }

    /// The side whose thinking thread runs, if any.
    pub fn thinking(&self) -> Option<(Side, Duration)> {
        self.thinking.as_ref().map(|(s, j)| (*s, j.elapsed()))
    }

    /// A state value.
    pub fn value(&self, side: Side, state: usize) -> i64 {
        self.st.vals[side.index() * self.prog().states.len() + state]
    }

    /// A state value before the last turn (for highlighting changes).
    pub fn previous_value(&self, side: Side, state: usize) -> Option<i64> {
        let n = self.prog().states.len();
        self.turns
            .last()
            .map(|t| t.before.vals[side.index() * n + state])
    }

    /// True if `cmd` is enabled for `side` now.
    pub fn is_enabled(&self, side: Side, cmd: CmdId) -> bool {
        self.st.enabled[side.index() * self.prog().commands.len() + cmd as usize]
    }

    /// The enabled commands of `side`.
    pub fn enabled(&self, side: Side) -> Vec<CmdId> {
        (0..self.prog().commands.len() as CmdId)
            .filter(|&c| self.is_enabled(side, c))
            .collect()
    }

    /// The judgement of the current position.
    pub fn judgement(&self) -> Judgement {
        *self.judgements.last().expect("the start is always judged")
    }

    /// `side` chooses `cmd` (None: pass). Resolves the turn once every mover has chosen
    /// (in real-time play, at the next tick).
    pub fn choose(&mut self, side: Side, cmd: Option<CmdId>) -> Result<(), Refusal> {
        if self.over() {
            return Err(Refusal::Over);
        }
        if !self.movers().contains(&side) {
            return Err(Refusal::NotYourTurn);
        }
        if let Some(c) = cmd
            && !self.is_enabled(side, c)
        {
            return Err(Refusal::NotEnabled(
                self.prog().commands[c as usize].clone(),
                side,
            ));
        }
        self.pending[side] = Some(cmd);
        if !self.realtime {
            self.resolve_if_ready();
        }
        Ok(())
    }

    /// The human side that may choose now (alternate: the side to move; simultaneous: h first).
    pub fn human_to_choose(&self) -> Option<Side> {
        if self.replay.as_ref().is_some_and(|r| !r.moves.is_empty()) {
            return None;
        }
        self.waiting_for()
            .into_iter()
            .find(|&s| self.players[s] == Controller::Human)
    }

    /// A key from the `':` bindings was pressed: the human to move plays its command.
    /// `Ok(None)`: the key is not bound (ignored).
    pub fn key(&mut self, key: &str) -> Result<Option<CmdId>, Refusal> {
        let Some(cmd) = self.prog().command_for_key(key) else {
            return Ok(None);
        };
        let Some(side) = self.human_to_choose() else {
            return Err(if self.over() {
                Refusal::Over
            } else {
                Refusal::NotYourTurn
            });
        };
        self.choose(side, Some(cmd)).map(|()| Some(cmd))
    }

    fn resolve_if_ready(&mut self) {
        let movers = self.movers();
        if !movers.is_empty() && movers.iter().all(|&s| self.pending[s].is_some()) {
            self.play_turn();
        }
    }

    /// Resolves the turn with the choices made (a side that has not chosen passes).
    pub fn play_turn(&mut self) {
        if self.over() || !self.started {
            return;
        }
        if let Some((_, job)) = self.thinking.take() {
            job.cancel();
        }
        let cmds = [self.pending[0].flatten(), self.pending[1].flatten()];
        self.pending = [None, None];
        self.last_turn_at = Some(Instant::now());
        let before = self.st.clone();
        let mut trace = TurnTrace::default();
        let compiled = self.compiled.clone();
        let eng = Engine::new(program_of(&compiled), self.seed);
        let error = eng.play(&mut self.st, cmds, Some(&mut trace)).err();
        let j = Judgement::of(&self.graph, &eng, &self.st);
        self.judgements.push(j);
        self.error = error.clone();
        self.turns.push(TurnRecord {
            before,
            cmds,
            trace,
            error,
            streams: self.streams_before,
        });
        self.streams_before = self.streams;
    }

    /// Takes back the last turn — and, against the CPU, back to the last position where a
    /// human was to choose. False if there is nothing to undo.
    pub fn undo(&mut self) -> bool {
        if self.turns.is_empty() {
            return false;
        }
        if let Some((_, job)) = self.thinking.take() {
            job.cancel();
        }
        while let Some(t) = self.turns.pop() {
            self.judgements.pop();
            self.st = t.before;
            self.streams = t.streams;
            self.streams_before = t.streams;
            let human_turn = if self.simultaneous() {
                self.players.contains(&Controller::Human)
            } else {
                self.players[self.st.to_move] == Controller::Human
            };
            if human_turn || !self.players.contains(&Controller::Human) {
                break;
            }
        }
        self.error = None;
        self.pending = [None, None];
        self.replay = None;
        self.next_tick = None;
        // What the CPU's last move cost described a move that is gone now.
        self.cpu_last = None;
        self.cpu_timed_out = false;
        true
    }

    /// Puts the edited start position into effect (availability for the first mover runs again)
    /// and starts the match.
    pub fn start_from_edited(&mut self) -> Result<(), String> {
        let compiled = self.compiled.clone();
        let eng = Engine::new(program_of(&compiled), self.seed);
        let mut st = self.st.clone();
        st.turn = 0;
        st.own_turns = [0, 0];
        st.outcome = None;
        eng.refresh_availability(&mut st)
            .map_err(|e| e.to_string())?;
        self.judgements = vec![Judgement::of(&self.graph, &eng, &st)];
        self.start = st.clone();
        self.st = st;
        self.turns.clear();
        self.streams = [None, None];
        self.streams_before = [None, None];
        self.error = None;
        self.pending = [None, None];
        self.started = true;
        Ok(())
    }

    /// Loads a replay of joint moves from the start position.
    pub fn load_replay(
        &mut self,
        moves: Vec<[Option<CmdId>; 2]>,
        expected: Vec<crate::engine::players::BothStates>,
    ) {
        self.replay = Some(Replay {
            moves: moves.into(),
            played: 0,
            diverged: None,
            expected: expected.into(),
            auto: false,
            next: None,
        });
    }

    /// Takes the last replayed step back: its moves return to the front of the replay.
    pub fn replay_back(&mut self) -> bool {
        let Some(r) = self.replay.as_mut() else {
            return false;
        };
        if r.played == 0 {
            return false;
        }
        let Some(t) = self.turns.pop() else {
            return false;
        };
        self.judgements.pop();
        self.st = t.before;
        self.streams = t.streams;
        self.streams_before = t.streams;
        r.moves.push_front(t.cmds);
        r.played -= 1;
        if r.diverged.is_some_and(|d| d > r.played) {
            r.diverged = None;
        }
        self.error = None;
        self.pending = [None, None];
        true
    }

    /// Moves the replay to after its `k`-th step (the slider over the turns).
    pub fn replay_to(&mut self, k: usize) {
        while self.replay.as_ref().is_some_and(|r| r.played > k) && self.replay_back() {}
        while self.replay.as_ref().is_some_and(|r| r.played < k) && self.replay_step() {}
    }

    /// The finished match as `kumite match --log` writes it (JSON lines: the header, each move,
    /// the end), for `rules` saved with `rules_text` — so `kumite replay` plays it again and
    /// checks every move, the result and the final states. A match that is not over, or that
    /// started from an edited position, cannot be replayed from the file: refused, saying why.
    pub fn log_text(
        &self,
        rules: &std::path::Path,
        rules_text: &str,
    ) -> Result<String, &'static str> {
        if !self.over() {
            return Err("the match is not over");
        }
        let eng = self.engine();
        let first = self.start.to_move;
        if eng.initial(first).ok().as_ref() != Some(&self.start) {
            return Err(
                "the match started from an edited position, which the rule file does not hold",
            );
        }
        let name = |c: Controller| match c {
            Controller::Human => "human".to_string(),
            Controller::Cpu => self.cpu.spec(),
        };
        let mut out = String::new();
        let header = serde_json::json!({
            "type": "match", "rules": rules.display().to_string(),
            "rules_hash": crate::program::text_hash(rules_text),
            "seed": self.seed, "first": first.name(), "set": [],
            "h": name(self.players[0]), "c": name(self.players[1]), "max_turns": null,
            "kumite": env!("CARGO_PKG_VERSION"),
        });
        out.push_str(&format!("{header}\n"));
        for (k, t) in self.turns.iter().enumerate() {
            for (side, cmd) in &t.trace.moves {
                let m = serde_json::json!({"type": "move", "turn": k + 1, "side": side, "command": cmd});
                out.push_str(&format!("{m}\n"));
            }
        }
        let result = match (&self.error, self.st.outcome) {
            (Some(_), _) => "error",
            (None, Some(o)) => o.as_str(),
            (None, None) => "draw",
        };
        let end = serde_json::json!({
            "type": "end", "result": result, "turns": self.st.turn, "forfeit": null,
            "error": self.error.as_ref().map(|e| e.to_string()),
            "final_states": crate::engine::players::final_states(&eng, &self.st),
        });
        out.push_str(&format!("{end}\n"));
        Ok(out)
    }

    /// Plays the next step of the replay. False when there is none.
    pub fn replay_step(&mut self) -> bool {
        let Some(mv) = self.replay.as_mut().and_then(|r| r.moves.pop_front()) else {
            return false;
        };
        if self.over() {
            return false;
        }
        self.pending = [None, None];
        for s in self.movers() {
            self.pending[s] = Some(mv[s]);
        }
        self.play_turn();
        let actual = crate::engine::players::both_states(&self.engine(), &self.st);
        if let Some(r) = self.replay.as_mut() {
            r.played += 1;
            if let Some(exp) = r.expected.pop_front()
                && exp != actual
                && r.diverged.is_none()
            {
                r.diverged = Some(r.played);
            }
        }
        true
    }

    /// Advances everything that runs by itself: the CPU's thinking, real-time ticks and an
    /// automatic replay. Returns how soon it wants to be called again, if it is waiting.
    pub fn tick(&mut self, ctx: Option<&egui::Context>) -> Option<Duration> {
        let now = Instant::now();
        let mut again: Option<Duration> = None;
        let mut want = |d: Duration| again = Some(again.map_or(d, |a: Duration| a.min(d)));
        // A replay steps on its own clock and holds the CPU back.
        let over = self.over();
        if let Some(r) = self.replay.as_mut()
            && !r.moves.is_empty()
        {
            if r.auto && !over {
                let due = *r.next.get_or_insert(now + Duration::from_millis(600));
                if now >= due {
                    r.next = Some(now + Duration::from_millis(600));
                    self.replay_step();
                }
                want(Duration::from_millis(100));
            }
            return again;
        }
        if let Some((side, job)) = &self.thinking {
            match job.poll() {
                Polled::Pending => want(Duration::from_millis(50)),
                Polled::Done((cmd, nodes, took, streams, timed_out)) => {
                    let side = *side;
                    self.cpu_last = Some((nodes, took));
                    self.cpu_timed_out = timed_out;
                    self.streams[side] = Some(streams);
                    self.thinking = None;
                    let cmd = cmd.filter(|&c| self.is_enabled(side, c));
                    self.pending[side] = Some(cmd);
                    if !self.realtime {
                        self.resolve_if_ready();
                    }
                }
                Polled::Died => {
                    let side = *side;
                    self.cpu_lost(side);
                }
            }
        }
        // CPU against CPU is watched: the next turn's thinking waits for the pace.
        let held = if !self.players.contains(&Controller::Human) && !self.realtime {
            self.last_turn_at
                .map(|t| (t + self.watch_pace).saturating_duration_since(now))
                .filter(|d| !d.is_zero())
        } else {
            None
        };
        if let Some(d) = held {
            if self.thinking.is_none() && !self.over() {
                want(d);
            }
        } else if self.thinking.is_none()
            && let Some(side) = self
                .waiting_for()
                .into_iter()
                .find(|&s| self.players[s] == Controller::Cpu)
        {
            self.start_thinking(side, ctx.cloned());
            want(Duration::from_millis(50));
        }
        if self.realtime && self.started && !self.over() {
            let period = Duration::from_millis(self.prog().settings.period_ms.max(1) as u64);
            let due = *self.next_tick.get_or_insert(now + period);
            if now >= due {
                self.play_turn();
                self.next_tick = Some(now + period);
            }
            want(
                self.next_tick
                    .map_or(period, |t| t.saturating_duration_since(now)),
            );
        } else {
            self.next_tick = None;
        }
        again
    }

    /// The CPU's thread died (or could not start): shown, and the CPU passes.
    fn cpu_lost(&mut self, side: Side) {
        self.cpu_failed = true;
        self.thinking = None;
        self.pending[side] = Some(None);
        if !self.realtime {
            self.resolve_if_ready();
        }
    }

    fn start_thinking(&mut self, side: Side, ctx: Option<egui::Context>) {
        let compiled = self.compiled.clone();
        let mut settings = self.cpu.clone();
        if self.realtime {
            // Leave room before the tick.
            settings.period_ms = (settings.period_ms * 4 / 5).max(1);
        }
        let st = self.st.clone();
        // The same player as `kumite match --seed`'s: its seed, the positions it chose in
        // before (in order), and its random streams where its last move left them.
        let eng = self.engine();
        let past: Vec<State> = self
            .turns
            .iter()
            .filter(|t| eng.movers(&t.before).contains(&side))
            .map(|t| t.before.clone())
            .collect();
        drop(eng);
        let seed = crate::players::PlayerSpec::Cpu(settings.clone()).seed(self.seed, side);
        let streams = self.streams[side];
        let exact = self.exact.clone();
        let config = crate::program::RunConfig::with_learned(
            self.learned
                .clone()
                .ok_or(crate::program::NoLearned::NotRead),
        );
        let job = Job::spawn("kumite-cpu", ctx, move |h| {
            let mut cpu = CpuPlayer::with_config(program_of(&compiled), settings, seed, &config);
            cpu.set_cancel_flag(h.cancel_flag().clone());
            cpu.set_history(&past);
            if let Some(s) = streams {
                cpu.set_streams(s);
            }
            // An exact table built for an earlier move serves the following ones.
            let mut slot = exact.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(t) = slot.clone() {
                cpu.set_exact_result(t);
            }
            let t0 = Instant::now();
            let m = cpu.play_move(&st, side);
            let took = t0.elapsed();
            if let Some(t) = cpu.exact_result() {
                *slot = Some(t);
            }
            (m, cpu.last_nodes, took, cpu.streams(), cpu.timed_out())
        });
        match job {
            Ok(job) => self.thinking = Some((side, job)),
            Err(_) => self.cpu_lost(side),
        }
    }

    /// Stops the CPU's thinking (it passes if the turn is then resolved).
    pub fn stop_thinking(&mut self) {
        if let Some((_, job)) = self.thinking.take() {
            job.cancel();
        }
    }

    /// The outcome, as text for h's point of view.
    pub fn outcome(&self) -> Option<Outcome> {
        self.st.outcome
    }
}

/// The key name of a key press as the `':` line writes it: a letter (upper-case with Shift), a
/// digit, or `Space Enter Up Down Left Right Tab`; other characters come from text input.
/// Presses with Ctrl, Alt or Command are shortcuts, never game keys.
pub fn key_name(ev: &egui::Event) -> Option<String> {
    use egui::Key;
    match ev {
        egui::Event::Key {
            key,
            pressed: true,
            repeat: false,
            modifiers,
            ..
        } => {
            if modifiers.ctrl || modifiers.alt || modifiers.command || modifiers.mac_cmd {
                return None;
            }
            let named = match key {
                Key::Space => Some("Space"),
                Key::Enter => Some("Enter"),
                Key::ArrowUp => Some("Up"),
                Key::ArrowDown => Some("Down"),
                Key::ArrowLeft => Some("Left"),
                Key::ArrowRight => Some("Right"),
                Key::Tab => Some("Tab"),
                _ => None,
            };
            if let Some(n) = named {
                return Some(n.to_string());
            }
            let name = key.name();
            let mut chars = name.chars();
            let c = chars.next()?;
            if chars.next().is_some() || !c.is_ascii_alphanumeric() {
                return None; // symbols arrive as text
            }
            if c.is_ascii_digit() {
                return (!modifiers.shift).then(|| c.to_string());
            }
            Some(if modifiers.shift {
                c.to_ascii_uppercase().to_string()
            } else {
                c.to_ascii_lowercase().to_string()
            })
        }
        egui::Event::Text(t) => {
            let mut chars = t.chars();
            let c = chars.next()?;
            if chars.next().is_some() || c.is_ascii_alphanumeric() || c.is_whitespace() {
                return None; // letters, digits and space come as key events
            }
            Some(c.to_string())
        }
        _ => None,
    }
}

/// An exact table in Japanese: what [`ExactTable::describe`] says in English.
///
/// [`ExactTable::describe`]: crate::search::exact::ExactTable::describe
fn exact_table_ja(t: &crate::search::exact::ExactTable) -> String {
    use crate::search::exact::LimitUse;
    let mut s = format!(
        "{} 局面を {:.2} 秒で解析({} 回反復)",
        t.positions,
        t.elapsed.as_secs_f64(),
        t.sweeps
    );
    if let Some(b) = t.bound {
        s.push_str(&format!(
            "。初期値 ±{b} の範囲で厳密、その外の {} 局面は導出評価で見積もり",
            t.frontier
        ));
    }
    if t.sampled {
        s.push_str("。一部の乱数結果は標本");
    }
    if let Some(l) = t.root_length {
        s.push_str(&format!("。最善同士なら平均 {l:.1} ターンで決着"));
    }
    match t.limit {
        LimitUse::CannotBind { longest, .. } => s.push_str(&format!(
            "。どの手順も {longest} ターン以内に決着するのでターン制限は効かない"
        )),
        LimitUse::Counted { limit, .. } => {
            s.push_str(&format!("。ターン制限 T{limit} まで残りターン数ごとに評価"))
        }
        LimitUse::Unknown => {}
    }
    if let Some(f) = &t.rule_errors.first {
        s.push_str(&format!(
            "。ルールエラー: {} 手(最初は {} 行目: {})、起こした側の負けとして評価",
            t.rule_errors.moves, f.error.line, f.error.message
        ));
    }
    s
}
