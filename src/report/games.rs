//! Playing the games of a report: many games between two players, one record per game, in
//! game order whatever the number of worker threads (so every figure depends on the seed only).

use super::Progress;
use crate::analysis::{VictoryGraph, evaluate};
use crate::arena::ArenaError;
use crate::arena::game_seed;
use crate::engine::players::{GameEnd, MatchOptions, Player, PlayerError, play_game};
use crate::engine::{Engine, GameResult, Outcome, Side, State};
use crate::players::{PlayerSpec, SpecError, is_ai, ready_player};
use crate::program::{CmdId, RuleProgram, RunConfig};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Seconds an external AI may take per decision in a report.
pub(crate) const AI_TIMEOUT: f64 = 5.0;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum End {
    /// h won.
    H,
    /// c won.
    C,
    /// A draw by the rules.
    #[default]
    Draw,
    /// The turn limit was reached.
    Timeout,
    /// A runtime error (or a player failed to start).
    Error,
}

/// What the evaluation said along one game (see `Tension` in the README).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GameTension {
    /// Times the side ahead changed.
    pub lead_changes: u32,
    /// How far behind the winner was at worst (evaluation points; 0 if never behind).
    pub drama: f64,
    /// The share of the game played before the winner went ahead for good.
    pub decided_at: f64,
}

/// One game's record.
#[derive(Clone, Debug, Default)]
pub struct GameRec {
    /// How it ended.
    pub end: End,
    /// The loser's player failed (an external AI that crashed, went silent or broke the
    /// protocol): the game was won by a forfeit.
    pub forfeit: bool,
    /// Turns played.
    pub turns: u32,
    /// Choices made (a side with at least one enabled command asked to choose).
    pub choices: u32,
    /// Choices with more than one enabled command.
    pub multi: u32,
    /// Enabled commands over all choices.
    pub options: u64,
    /// Commands chosen: `side * commands + command` → times (empty unless asked for).
    pub uses: Vec<u32>,
    /// Times each rule fired (empty unless asked for).
    pub fires: Vec<u32>,
    /// The evaluation along the game (when asked for; decided games only).
    pub tension: Option<GameTension>,
    /// A fingerprint of the whole game: every turn's commands and the position after it (so
    /// chance outcomes count). Two games with the same trail are the same game.
    pub trail: u64,
    /// Search nodes both players visited (CPU players; a node budget a move makes the count
    /// the same on any machine).
    pub nodes: u64,
}

/// Whether the games of each set (one set per seating) were not all one game: a set of two
/// or more games whose games are all the same is one observation, not a sample.
pub fn varied<'r>(sets: impl IntoIterator<Item = &'r [GameRec]>) -> bool {
    sets.into_iter()
        .all(|s| s.len() <= 1 || distinct_games(s) > 1)
}

/// How many different games `recs` holds (by [`GameRec::trail`]).
pub fn distinct_games<'r>(recs: impl IntoIterator<Item = &'r GameRec>) -> u64 {
    let mut t: Vec<u64> = recs.into_iter().map(|r| r.trail).collect();
    t.sort_unstable();
    t.dedup();
    t.len() as u64
}

/// A set of games to play.
pub struct GameSet<'a> {
    /// The program (possibly with a swept value).
    pub prog: &'a RuleProgram,
    /// What the run varies: restricted play's banned command, the learned evaluation a
    /// `cpu:trained` player values by.
    pub config: &'a RunConfig,
    /// Player specs for h and c.
    pub players: [&'a str; 2],
    /// Who moves first (alternate mode).
    pub first: Side,
    /// Games 0..games of the set.
    pub games: u64,
    /// The set's seed: game i plays with `game_seed(seed, i)`.
    pub seed: u64,
    /// Count rule firings.
    pub count_rules: bool,
    /// Record which commands were chosen.
    pub record_uses: bool,
    /// Follow the derived evaluation along the game.
    pub tension: Option<&'a VictoryGraph>,
    /// Worker threads (None: one per core).
    pub jobs: Option<usize>,
    /// Seconds an external AI may take per decision.
    pub ai_timeout: f64,
}

/// A seat at the table: the player, with what it chose recorded and the report's cancel flag
/// obeyed (a cancelled report ends its games at once, as a forfeit nobody counts).
struct Seat<'p> {
    inner: Box<dyn Player + Send + 'p>,
    progress: Arc<Progress>,
    choices: u32,
    multi: u32,
    options: u64,
    uses: Vec<u32>,
    record_uses: bool,
}

impl Player for Seat<'_> {
    fn begin(
        &mut self,
        eng: &Engine,
        info: &crate::engine::players::GameInfo,
    ) -> Result<(), PlayerError> {
        self.inner.begin(eng, info)
    }
    fn choose(
        &mut self,
        eng: &Engine,
        st: &State,
        side: Side,
        enabled: &[CmdId],
    ) -> Result<Option<CmdId>, PlayerError> {
        if self.progress.cancel.load(Ordering::Relaxed) {
            return Err(PlayerError::new(
                crate::engine::players::FailKind::Exited,
                "report cancelled",
            ));
        }
        let c = self.inner.choose(eng, st, side, enabled)?;
        self.choices += 1;
        self.multi += u32::from(enabled.len() > 1);
        self.options += enabled.len() as u64;
        if self.record_uses
            && let Some(c) = c.filter(|c| enabled.contains(c))
        {
            self.uses[c as usize] += 1;
        }
        Ok(c)
    }
    fn finish(&mut self, eng: &Engine, st: &State, side: Side, o: Outcome, reason: Option<&str>) {
        self.inner.finish(eng, st, side, o, reason);
    }
    fn reseed(&mut self, seed: u64) -> bool {
        self.inner.reseed(seed)
    }
}

/// A player from a spec; a CPU plays under the run's `config` and listens to the report's
/// cancel flag inside its search.
fn player<'p>(
    prog: &'p RuleProgram,
    config: &RunConfig,
    spec: &PlayerSpec,
    side: Side,
    progress: &Arc<Progress>,
    ai_timeout: f64,
) -> Result<Box<dyn Player + Send + 'p>, SpecError> {
    if let PlayerSpec::Cpu(settings) = spec {
        let mut p = crate::search::CpuPlayer::with_config(prog, settings.clone(), 0, config);
        p.set_cancel_flag(progress.cancel_flag.clone());
        return Ok(Box::new(p));
    }
    spec.player(prog, config, 0, side, ai_timeout)
}

struct Worker<'p> {
    eng: Engine<'p>,
    st: State,
    seats: [Seat<'p>; 2],
    /// The seats' player specs, read once.
    specs: [PlayerSpec; 2],
    enabled: Vec<CmdId>,
    opts: MatchOptions,
    leads: Vec<f64>,
    fires: Vec<u32>,
}

impl<'p> Worker<'p> {
    fn new(set: &GameSet<'p>, progress: &Arc<Progress>) -> Result<Self, SpecError> {
        let config = set.config;
        let specs = [
            PlayerSpec::parse(set.prog, config, set.players[0])?,
            PlayerSpec::parse(set.prog, config, set.players[1])?,
        ];
        let nc = set.prog.commands.len();
        let seat = |side: Side| -> Result<Seat<'p>, SpecError> {
            Ok(Seat {
                inner: player(
                    set.prog,
                    config,
                    &specs[side.index()],
                    side,
                    progress,
                    set.ai_timeout,
                )?,
                progress: progress.clone(),
                choices: 0,
                multi: 0,
                options: 0,
                uses: vec![0; if set.record_uses { nc } else { 0 }],
                record_uses: set.record_uses,
            })
        };
        let eng = Engine::with_config(set.prog, 0, config);
        Ok(Self {
            eng: if set.count_rules { eng.counting() } else { eng },
            st: State::default(),
            seats: [seat(Side::H)?, seat(Side::C)?],
            specs,
            enabled: Vec::new(),
            opts: MatchOptions {
                seed: 0,
                first: set.first,
                trace: false,
                max_turns: None,
                rules_name: "report".into(),
                game: 0,
                lean: false,
            },
            leads: Vec::new(),
            fires: Vec::new(),
        })
    }

    fn play(&mut self, set: &GameSet<'p>, i: u64, progress: &Arc<Progress>) -> GameRec {
        let seed = game_seed(set.seed, i);
        self.opts.seed = seed;
        self.opts.game = i;
        self.eng.seed = seed;
        let mut rec = GameRec::default();
        for side in 0..2 {
            let s = &mut self.seats[side];
            s.choices = 0;
            s.multi = 0;
            s.options = 0;
            s.uses.iter_mut().for_each(|u| *u = 0);
            // A player that cannot start this game forfeits it (reported as an error).
            let _ = ready_player(
                &mut s.inner,
                set.prog,
                set.config,
                &self.specs[side],
                seed,
                Side::from_index(side),
                set.ai_timeout,
            );
        }
        self.eng.take_fires(&mut self.fires);
        self.leads.clear();
        let graph = set.tension;
        let mut trail = 0x6B75_6D69_7465u64;
        let end: GameEnd = {
            let Worker {
                eng,
                st,
                seats,
                enabled,
                opts,
                leads,
                ..
            } = self;
            let [a, b] = seats;
            let mut ps: [&mut dyn Player; 2] = [a, b];
            if let Some(g) = graph {
                // The position before the first move counts too.
                if let Ok(s0) = eng.initial(opts.first) {
                    leads.push(evaluate(g, eng, &s0, Side::H));
                }
            }
            let trail = &mut trail;
            play_game(eng, st, &mut ps, opts, enabled, |eng, st, _, cmds, _| {
                let mix = crate::engine::rng::mix;
                let moves = cmds.map(|c| c.map_or(0, |c| u64::from(c) + 1));
                *trail = mix(*trail ^ mix(moves[0] << 32 ^ moves[1]) ^ st.fingerprint(false));
                if let Some(g) = graph
                    && st.outcome.is_none()
                {
                    leads.push(evaluate(g, eng, st, Side::H));
                }
            })
        };
        progress.done.fetch_add(1, Ordering::Relaxed);
        rec.turns = end.turns;
        rec.trail = trail;
        let limit = set.prog.settings.turn_limit;
        rec.end = match end.result {
            GameResult::H => End::H,
            GameResult::C => End::C,
            GameResult::Draw if end.turns >= limit => End::Timeout,
            GameResult::Draw => End::Draw,
            GameResult::Error => End::Error,
        };
        rec.forfeit = end.forfeit.is_some();
        if end.error.is_some() || end.forfeit.is_some() || set.players.iter().any(|p| is_ai(p)) {
            progress
                .problems
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .note(set.players, &end);
        }
        for s in &mut self.seats {
            if let Some(w) = s.inner.take_search_work() {
                rec.nodes += w.nodes;
            }
        }
        for (side, s) in self.seats.iter().enumerate() {
            rec.choices += s.choices;
            rec.multi += s.multi;
            rec.options += s.options;
            if set.record_uses {
                if rec.uses.is_empty() {
                    rec.uses = vec![0; 2 * s.uses.len()];
                }
                let nc = s.uses.len();
                rec.uses[side * nc..(side + 1) * nc].copy_from_slice(&s.uses);
            }
        }
        if set.count_rules {
            self.eng.take_fires(&mut self.fires);
            rec.fires = self.fires.clone();
        }
        if graph.is_some() {
            rec.tension = Some(tension_of(&self.leads, rec.end));
        }
        rec
    }
}

/// Lead changes, drama and when the game was decided, from h's evaluation after each turn.
fn tension_of(leads: &[f64], end: End) -> GameTension {
    let mut t = GameTension::default();
    let mut last = 0.0f64;
    for &v in leads {
        if v != 0.0 {
            if last != 0.0 && (v > 0.0) != (last > 0.0) {
                t.lead_changes += 1;
            }
            last = v;
        }
    }
    let sign = match end {
        End::H => 1.0,
        End::C => -1.0,
        _ => return t,
    };
    let mut behind_last = None;
    for (k, &v) in leads.iter().enumerate() {
        let w = sign * v;
        t.drama = t.drama.max(-w);
        if w <= 0.0 {
            behind_last = Some(k);
        }
    }
    t.decided_at = match behind_last {
        Some(k) if !leads.is_empty() => (k + 1) as f64 / leads.len() as f64,
        _ => 0.0,
    };
    t
}

/// Games a worker plays between two looks at the queue, at most: a set too small for every
/// thread to get several blocks plays smaller ones (8 games on two threads were one block on
/// one thread, the other idle).
const BLOCK: u64 = 8;

/// Plays the set's games and returns their records in game order (fewer if cancelled).
pub fn play_set(set: &GameSet, progress: &Arc<Progress>) -> Result<Vec<GameRec>, ArenaError> {
    play_range(set, 0..set.games, progress)
}

/// Plays games `range` of the set (each with its own seed, as in the whole set) and returns
/// their records in game order (fewer if cancelled).
pub fn play_range(
    set: &GameSet,
    range: std::ops::Range<u64>,
    progress: &Arc<Progress>,
) -> Result<Vec<GameRec>, ArenaError> {
    Ok(play_sets(&[(set, range)], progress)?
        .pop()
        .unwrap_or_default())
}

/// Plays games of several sets at once — for each set the games of its range, each with its
/// own seed as in the whole set — and returns each set's records in game order (fewer if
/// cancelled). One call for all: the threads go from one set's games to the next without
/// waiting for the slowest game of each (restricted play's 22 sets of karate were 44 waits).
/// Each set is played under its own [`RunConfig`] (restricted play bans a command per set).
pub fn play_sets(
    sets: &[(&GameSet, std::ops::Range<u64>)],
    progress: &Arc<Progress>,
) -> Result<Vec<Vec<GameRec>>, ArenaError> {
    // Fail early, with the player's message.
    let checked = sets
        .iter()
        .map(|(set, _)| Worker::new(set, progress))
        .collect::<Result<Vec<_>, _>>()?;
    if sets
        .iter()
        .any(|(set, _)| set.players.iter().any(|p| is_ai(p)))
    {
        // An external AI plays one game after another through its one process.
        let mut out = Vec::new();
        for ((set, range), mut w) in sets.iter().zip(checked) {
            let mut recs = Vec::new();
            for i in range.clone() {
                if progress.cancelled() {
                    break;
                }
                recs.push(w.play(set, i, progress));
            }
            out.push(recs);
        }
        return Ok(out);
    }
    drop(checked);
    let threads = match sets.first().and_then(|(s, _)| s.jobs).unwrap_or(0) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let games: u64 = sets
        .iter()
        .map(|(_, r)| r.end.saturating_sub(r.start))
        .sum();
    let block = (games / (4 * threads as u64)).clamp(1, BLOCK);
    // Blocks of every set, in order: (set, first game, end).
    let blocks: Vec<(usize, u64, u64)> = sets
        .iter()
        .enumerate()
        .flat_map(|(k, (_, r))| {
            (r.start..r.end)
                .step_by(block as usize)
                .map(move |from| (k, from, (from + block).min(r.end)))
        })
        .collect();
    // Each thread takes the next block until none is left, keeping one worker per set for the
    // whole call: a worker's evaluation caches stay warm from one block to the next.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let play = || {
        let mut workers: Vec<Option<Worker>> = (0..sets.len()).map(|_| None).collect();
        let mut mine: Vec<(usize, usize, Vec<GameRec>)> = Vec::new();
        loop {
            let b = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(&(k, from, to)) = blocks.get(b) else {
                break;
            };
            let (set, _) = sets[k];
            if workers[k].is_none() {
                workers[k] = Worker::new(set, progress).ok();
            }
            let mut out = Vec::new();
            if let Some(w) = workers[k].as_mut() {
                for i in from..to {
                    if progress.cancelled() {
                        break;
                    }
                    out.push(w.play(set, i, progress));
                }
            }
            mine.push((b, k, out));
        }
        mine
    };
    let mut recs: Vec<(usize, usize, Vec<GameRec>)> = std::thread::scope(|sc| {
        let others: Vec<_> = (1..threads)
            .map(|_| {
                std::thread::Builder::new()
                    .name("kumite-games".into())
                    .spawn_scoped(sc, play)
            })
            .collect();
        let mut all = play();
        for h in others {
            match h {
                Ok(h) => all.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))),
                Err(e) => return Err(ArenaError::Threads(e.to_string())),
            }
        }
        Ok(all)
    })?;
    recs.sort_unstable_by_key(|r| r.0);
    let recs = recs.into_iter().map(|(_, k, r)| (k, r));
    let mut out: Vec<Vec<GameRec>> = (0..sets.len()).map(|_| Vec::new()).collect();
    for (k, r) in recs {
        out[k].extend(r);
    }
    Ok(out)
}
