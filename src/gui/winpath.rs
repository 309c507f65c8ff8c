//! The win-path view (勝ち筋): the shortest sequence by which h wins, a forced-win proof, and for
//! simultaneous games the game value with both mixed strategies — computed on a thread with a
//! Cancel that stops it at once.

use super::i18n::{Lang, T, tr, trf, trn};
use super::job::{Job, Polled};
use crate::engine::players::{BothStates, StateValues};
use crate::engine::{Side, State};
use crate::pipeline::Compiled;
use crate::program::{CmdId, RuleProgram};
use crate::search::solve::{Budget, ShortestWin, shortest_win_in, thousands, value_iteration_in};
use crate::search::{GameValue, Mover, PathStep};
use egui::{Color32, RichText, Ui};
use std::sync::Arc;
use std::time::Duration;

/// State-value bound for the game value (see `kumite solve --value`).
const VALUE_BOUND: i64 = crate::search::VALUE_BOUND;

/// What one search found.
#[derive(Clone, Debug)]
pub struct WinPathResult {
    /// The position searched from.
    pub start: State,
    /// Whether it was the match's current position (else the initial position).
    pub from_match: bool,
    /// The depth asked for, in plies.
    pub plies: u32,
    /// The shortest win: found, proved none within the depth, or gave up (and why).
    pub shortest: ShortestWin,
    /// The same as joint moves, for replaying.
    pub moves: Vec<[Option<CmdId>; 2]>,
    /// Forced win within the depth: Some(true/false), or None if the budget ran out.
    pub forced: Option<bool>,
    /// What ran out when the forced-win search stopped undecided.
    pub forced_gave_up: Option<Budget>,
    /// When it gave up: the plies proved free of a forced win.
    pub forced_none_within: Option<u32>,
    /// h's first move of the forced win.
    pub forced_first: Option<String>,
    /// The fewest plies within which h forces the win.
    pub forced_plies: Option<u32>,
    /// The forced win's strategy as an indented tree of lines.
    pub strategy: Option<String>,
    /// The proof covers sampled chance outcomes only (too many to enumerate).
    pub sampled: bool,
    /// Simultaneous games: the value and strategies.
    pub value: Option<GameValue>,
    /// The rules use `rand`.
    pub has_chance: bool,
    /// Time taken.
    pub elapsed: Duration,
    /// Command names of the program searched.
    pub names: Vec<String>,
    /// Both sides' states at the start (as the steps show them).
    pub start_states: crate::engine::players::BothStates,
}

/// The commands of a path as joint moves; None if a name does not resolve (cannot happen for a
/// path of the same program).
pub fn path_moves(prog: &RuleProgram, steps: &[PathStep]) -> Option<Vec<[Option<CmdId>; 2]>> {
    let one = |name: &str| -> Option<Option<CmdId>> {
        if name == "pass" {
            Some(None)
        } else {
            prog.command_id(name).map(Some)
        }
    };
    steps
        .iter()
        .map(|s| match s.side {
            Mover::H => Some([one(s.command.as_deref().unwrap_or("pass"))?, None]),
            Mover::C => Some([None, one(s.command.as_deref().unwrap_or("pass"))?]),
            Mover::Both | Mover::Win => {
                // "a/b": a command name may itself contain '/', so try every split.
                let t = s.command.as_deref()?;
                t.match_indices('/')
                    .find_map(|(i, _)| Some([one(&t[..i])?, one(&t[i + 1..])?]))
            }
        })
        .collect()
}

/// Runs the searches (on the calling thread; the view runs it on a [`Job`]). None if cancelled.
pub fn compute(
    compiled: &Compiled,
    start: &State,
    from_match: bool,
    plies: u32,
    cancel: &Arc<std::sync::atomic::AtomicBool>,
    phase: &std::sync::atomic::AtomicU8,
) -> Option<WinPathResult> {
    use std::sync::atomic::Ordering::Relaxed;
    let prog = compiled.program.as_ref()?;
    let t0 = std::time::Instant::now();
    phase.store(0, Relaxed);
    let cap =
        crate::search::solve::positions_for_memory(start, crate::search::solve::SHORTEST_MEMORY);
    let shortest = shortest_win_in(prog, start, plies, cap, Some(cancel));
    if cancel.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    phase.store(1, Relaxed);
    let f = crate::search::solve::forced_win_in(
        prog,
        start,
        plies,
        crate::search::solve::FORCED_NODES,
        Some(cancel),
    );
    if cancel.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    let value = if prog.settings.simultaneous {
        phase.store(2, Relaxed);
        Some(value_iteration_in(
            prog,
            start,
            VALUE_BOUND,
            crate::search::VALUE_POSITIONS,
            Some(cancel),
        )?)
    } else {
        None
    };
    let moves = shortest
        .path()
        .and_then(|s| path_moves(prog, s))
        .unwrap_or_default();
    Some(WinPathResult {
        start: start.clone(),
        from_match,
        plies,
        shortest,
        moves,
        forced: f.exists,
        forced_gave_up: f.gave_up,
        forced_none_within: f.none_within,
        forced_first: f.first_move,
        forced_plies: f.min_plies,
        strategy: f
            .strategy
            .as_ref()
            .map(|s| crate::search::solve::strategy_text(s, 16, 60)),
        sampled: f.sampled,
        value,
        has_chance: prog.rules.iter().any(|r| r.has_rand),
        elapsed: t0.elapsed(),
        names: prog.commands.clone(),
        start_states: crate::engine::players::both_states(
            &crate::engine::Engine::new(prog, 0),
            start,
        ),
    })
}

/// What the view asks of the app.
pub enum WinPathAction {
    /// Search from this position (None: the initial one).
    Find,
    /// Load the path into the match panel.
    Replay,
    /// Jump to a source line.
    ShowLine(usize),
}

/// The win-path view.
pub struct WinPathView {
    /// Depth in plies.
    pub plies: u32,
    /// Search from the match's position when a match is open.
    pub from_match: bool,
    job: Option<Job<Option<WinPathResult>>>,
    phase: Arc<std::sync::atomic::AtomicU8>,
    /// The last result.
    pub result: Option<WinPathResult>,
    /// The result belongs to an older version of the rules.
    pub outdated: bool,
    /// Why there is no result: cancelled, or the search thread died.
    pub message: Option<T>,
}

impl Default for WinPathView {
    fn default() -> Self {
        Self {
            // The same default as `kumite solve --depth`, so the two give the same verdict.
            plies: crate::search::solve::WIN_PATH_PLIES,
            from_match: true,
            job: None,
            phase: Arc::default(),
            result: None,
            outdated: false,
            message: None,
        }
    }
}

impl WinPathView {
    /// Starts a search.
    pub fn start(
        &mut self,
        ctx: Option<egui::Context>,
        compiled: Arc<Compiled>,
        start: State,
        from_match: bool,
    ) {
        self.cancel();
        let plies = self.plies;
        self.message = None;
        let phase = Arc::new(std::sync::atomic::AtomicU8::new(0));
        self.phase = phase.clone();
        let job = Job::spawn("kumite-winpath", ctx, move |h| {
            compute(
                &compiled,
                &start,
                from_match,
                plies,
                h.cancel_flag(),
                &phase,
            )
        });
        match job {
            Ok(job) => self.job = Some(job),
            // As if it had died at once (as a panic would leave it).
            Err(_) => self.message = Some(T::SearchDied),
        }
    }

    /// True while searching.
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Stops the search; returns a flag that turns true when its thread has ended.
    pub fn cancel(&mut self) -> Option<Arc<std::sync::atomic::AtomicBool>> {
        let job = self.job.take()?;
        job.cancel();
        self.message = Some(T::SearchCancelled);
        Some(job.finished_flag())
    }

    /// Collects a finished search.
    pub fn poll(&mut self) {
        let Some(job) = &self.job else { return };
        match job.poll() {
            Polled::Pending => {}
            Polled::Done(r) => {
                self.job = None;
                if let Some(r) = r {
                    self.result = Some(r);
                    self.outdated = false;
                }
            }
            Polled::Died => {
                self.job = None;
                self.message = Some(T::SearchDied);
            }
        }
    }

    /// The view. `prog` is the program the result belongs to (for names).
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        lang: Lang,
        can_search: bool,
        in_match: bool,
    ) -> Option<WinPathAction> {
        self.poll();
        let mut action = None;
        ui.horizontal_wrapped(|ui| {
            let l = ui.label(tr(lang, T::Depth));
            ui.add(
                egui::DragValue::new(&mut self.plies)
                    .range(1..=200)
                    .suffix(tr(lang, T::Plies)),
            )
            .labelled_by(l.id);
            if in_match {
                ui.checkbox(&mut self.from_match, tr(lang, T::FromTheMatchPosition));
            }
            let find = ui
                .add_enabled(
                    can_search && !self.busy(),
                    egui::Button::new(tr(lang, T::FindWinPath)),
                )
                .on_hover_text("F7");
            if find.clicked() {
                action = Some(WinPathAction::Find);
            }
            if self.busy()
                && ui
                    .button(tr(lang, T::Cancel))
                    .on_hover_text("Esc")
                    .clicked()
            {
                self.cancel();
            }
        });
        if let Some(job) = &self.job {
            ui.horizontal(|ui| {
                ui.spinner();
                let what = match self.phase.load(std::sync::atomic::Ordering::Relaxed) {
                    0 => tr(lang, T::TheShortestWin),
                    1 => tr(lang, T::AForcedWin),
                    _ => tr(lang, T::TheGameValue),
                };
                ui.label(format!(
                    "{} {what} ({}/3) {:.1} s",
                    tr(lang, T::Searching),
                    self.phase.load(std::sync::atomic::Ordering::Relaxed) + 1,
                    job.elapsed().as_secs_f64()
                ));
            });
            ui.ctx().request_repaint_after(Duration::from_millis(100));
        }
        if let Some(m) = self.message {
            ui.weak(tr(lang, m));
        }
        let Some(r) = &self.result else {
            if !self.busy() {
                ui.add_space(8.0);
                ui.weak(tr(lang, T::PressFindWinPath));
            }
            return action;
        };
        if self.outdated {
            ui.colored_label(warn_color(ui), tr(lang, T::TheRulesChangedSince));
        }
        ui.separator();
        egui::ScrollArea::vertical()
            .id_salt("winpath-scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                show_result(ui, lang, r, &mut action);
            });
        action
    }
}

fn warn_color(ui: &Ui) -> Color32 {
    if ui.visuals().dark_mode {
        Color32::from_rgb(230, 185, 50)
    } else {
        Color32::from_rgb(150, 100, 0)
    }
}

fn good_color(ui: &Ui) -> Color32 {
    if ui.visuals().dark_mode {
        Color32::from_rgb(110, 200, 120)
    } else {
        Color32::from_rgb(20, 120, 40)
    }
}

/// "名前 1, 名前 2" of one side's states, without 勝利/敗北; changed ones marked with *.
fn states_line(now: &StateValues, before: Option<&StateValues>) -> (String, bool) {
    let mut out = Vec::new();
    let mut changed = false;
    for (i, (k, v)) in now.0.iter().enumerate().skip(2) {
        let ch = before.is_some_and(|b| b.0.get(i) != Some(&(k.clone(), *v)));
        changed |= ch;
        out.push(format!("{k} {v}{}", if ch { "*" } else { "" }));
    }
    (out.join(", "), changed)
}

fn show_result(ui: &mut Ui, lang: Lang, r: &WinPathResult, action: &mut Option<WinPathAction>) {
    let from = if r.from_match {
        tr(lang, T::FromTheMatchPosition)
    } else {
        tr(lang, T::FromTheStart)
    };
    ui.weak(format!(
        "{from} · {} {} · {:.0} ms",
        r.plies,
        tr(lang, T::PliesUpTo),
        r.elapsed.as_secs_f64() * 1000.0
    ));
    match r.shortest.path() {
        Some(steps) => {
            let replay = |ui: &mut egui::Ui, action: &mut Option<WinPathAction>| {
                if !r.moves.is_empty() && ui.button(tr(lang, T::ReplayInMatch)).clicked() {
                    *action = Some(WinPathAction::Replay);
                }
            };
            match &r.shortest {
                // Found by the guided search; the search for shorter ones gave up. A long
                // sentence: wrapped within the panel, the button under it.
                ShortestWin::GaveUp {
                    complete, budget, ..
                } => {
                    let head = trn(
                        lang,
                        T::WinForHNotProvedShortest,
                        &[&steps.len(), complete, &budget_text(lang, *budget)],
                    );
                    ui.add(
                        egui::Label::new(RichText::new(head).strong().color(good_color(ui))).wrap(),
                    );
                    replay(ui, action);
                }
                _ => {
                    ui.horizontal(|ui| {
                        ui.label(
                            RichText::new(format!(
                                "{} {} {}",
                                tr(lang, T::ShortestWinForH),
                                steps.len(),
                                tr(lang, T::PliesUnit)
                            ))
                            .strong()
                            .color(good_color(ui)),
                        );
                        replay(ui, action);
                    });
                }
            }
            show_forced(ui, lang, r);
            ui.add_space(6.0);
            egui::Grid::new("winpath-steps")
                .striped(true)
                .num_columns(4)
                .show(ui, |ui| {
                    ui.strong("#");
                    ui.strong(tr(lang, T::Side));
                    ui.strong(tr(lang, T::Command));
                    ui.strong(tr(lang, T::StatesAfterTheStep));
                    ui.end_row();
                    let mut prev: Option<&BothStates> = Some(&r.start_states);
                    for (i, s) in steps.iter().enumerate() {
                        ui.label((i + 1).to_string());
                        ui.label(s.side.as_str());
                        ui.monospace(s.command.as_deref().unwrap_or("pass"));
                        ui.vertical(|ui| {
                            for side in Side::BOTH {
                                let (t, ch) = states_line(&s.states[side], prev.map(|p| &p[side]));
                                let text =
                                    RichText::new(format!("{}: {t}", side.name())).size(11.5);
                                ui.label(if ch { text.strong() } else { text });
                            }
                        });
                        ui.end_row();
                        prev = Some(&s.states);
                    }
                });
        }
        None => {
            let text = match &r.shortest {
                ShortestWin::NoneWithin {
                    exhausted: true,
                    positions,
                    ..
                } => trf(lang, T::NoWinForHAtAll, thousands(*positions as u64)),
                ShortestWin::GaveUp {
                    complete, budget, ..
                } => trn(
                    lang,
                    T::ShortestWinGaveUp,
                    &[&(complete + 1), &budget_text(lang, *budget), complete],
                ),
                _ => tr(lang, T::NoWinForH).to_string(),
            };
            ui.label(RichText::new(text).strong());
            show_forced(ui, lang, r);
        }
    }
    if let Some(v) = &r.value {
        ui.separator();
        ui.label(RichText::new(format!("{} {:+.3}", tr(lang, T::GameValueForH), v.value)).strong());
        ui.weak(tr(lang, T::Win1Loss1));
        for (side, mix) in [(Side::H, &v.h), (Side::C, &v.c)] {
            ui.label(RichText::new(side.name()).strong());
            for (m, p) in mix {
                ui.horizontal(|ui| {
                    let bar = egui::ProgressBar::new(*p as f32)
                        .desired_width(140.0)
                        .text(format!("{:.1}%", p * 100.0));
                    ui.add(bar);
                    ui.monospace(command_label(r, *m));
                });
            }
        }
        let n = |x: usize| thousands(x as u64);
        let positions = match v.bound {
            None => trf(lang, T::ValueAllPositions, n(v.states)),
            Some(_) if v.states >= crate::search::VALUE_POSITIONS => trn(
                lang,
                T::ValuePositionLimit,
                &[
                    &n(v.states),
                    &n(crate::search::VALUE_POSITIONS),
                    &n(v.frontier),
                ],
            ),
            Some(b) => trn(
                lang,
                T::ValueBoundLimit,
                &[&n(v.states), &b, &n(v.frontier)],
            ),
        };
        ui.weak(format!(
            "{} {:.1e} · {positions}",
            tr(lang, T::Exploitability),
            v.exploitability,
        ));
    }
}

/// A command's name for the value display.
fn command_label(r: &WinPathResult, m: Option<CmdId>) -> String {
    m.map_or_else(
        || "pass".to_string(),
        |c| {
            r.names
                .get(c as usize)
                .cloned()
                .unwrap_or_else(|| format!("#{c}"))
        },
    )
}

fn show_forced(ui: &mut Ui, lang: Lang, r: &WinPathResult) {
    ui.add_space(6.0);
    match r.forced {
        Some(true) => {
            ui.label(
                RichText::new(trf(
                    lang,
                    T::ForcedWinYesH,
                    r.forced_plies.unwrap_or(r.plies),
                ))
                .strong()
                .color(good_color(ui)),
            );
            if let Some(f) = &r.forced_first {
                ui.label(format!("{} {f}", tr(lang, T::FirstMove)));
            }
            if r.sampled {
                ui.weak(tr(lang, T::SomeMovesHadToo));
            }
            if let Some(t) = &r.strategy {
                egui::CollapsingHeader::new(tr(lang, T::WinningStrategyHS))
                    .id_salt("strategy")
                    .default_open(false)
                    .show(ui, |ui| {
                        ui.label(RichText::new(t).monospace().size(12.0));
                    });
            }
        }
        Some(false) => {
            ui.label(trf(lang, T::ForcedWinNoneWithin, r.plies));
        }
        None => {
            let why = budget_text(lang, r.forced_gave_up.unwrap_or(Budget::Cancelled));
            match r.forced_none_within {
                Some(n) if n > 0 => {
                    ui.label(trn(lang, T::ForcedWinNoneWithinGaveUp, &[&n, &why]));
                }
                _ => {
                    ui.label(trf(lang, T::ForcedWinUndecidedThe, why));
                }
            }
        }
    }
    if r.has_chance {
        ui.weak(tr(lang, T::TheseRulesUseRand));
    }
}

/// What ran out, in the studio's language.
fn budget_text(lang: Lang, b: Budget) -> String {
    match b {
        Budget::Positions(n) => trf(lang, T::BudgetPositions, thousands(n as u64)),
        Budget::SystemMemory(n) => trf(lang, T::BudgetSystemMemory, thousands(n as u64)),
        Budget::ChanceOutcomes(n) => trf(lang, T::BudgetChance, thousands(n)),
        Budget::Nodes(n) => trf(lang, T::BudgetNodes, thousands(n)),
        Budget::Cancelled => tr(lang, T::BudgetCancelled).to_string(),
    }
}
