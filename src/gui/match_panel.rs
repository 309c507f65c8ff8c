//! The match panel: play the CPU with the keys of the `':` lines (or by clicking), watch both
//! sides' states, the derived evaluation and the turn log.

use super::i18n::{Lang, T, tr, trf, trn};
use super::job::{Job, Polled};
use super::session::{Controller, MatchSession, key_name};
use super::worker::ProgramView;
use crate::engine::{Outcome, Side};
use crate::program::CmdId;
use crate::search::CpuSettings;
use egui::{Color32, Id, RichText, Sense, Stroke, Ui, Vec2};
use std::sync::Arc;
use std::time::Duration;

/// What the panel asks of the app.
pub enum MatchAction {
    /// Show this 1-based source line in the editor.
    ShowLine(usize),
}

/// One line of the turn log.
struct LogLine {
    text: String,
    kind: LogKind,
    line: Option<usize>,
}

#[derive(Clone, Copy, PartialEq)]
enum LogKind {
    Turn,
    Rule,
    Change,
    Error,
    Result,
}

/// What the match panel remembers between runs (stored under [`MatchSettings::KEY`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct MatchSettings {
    /// Who plays h and c in the next match.
    pub players: [Controller; 2],
    /// Use the file's `~` CPU settings (else the panel's).
    pub file_cpu: bool,
    /// The panel's CPU settings (when not the file's).
    pub cpu: CpuSettings,
    /// Real-time play.
    pub realtime: bool,
    /// Seconds between turns when no human plays (CPU against CPU, to watch).
    pub watch_seconds: f64,
}

impl MatchSettings {
    /// The panel's key in the studio's storage.
    pub const KEY: &'static str = "kumite-match-panel";
}

impl Default for MatchSettings {
    fn default() -> Self {
        Self {
            players: [Controller::Human, Controller::Cpu],
            file_cpu: true,
            cpu: CpuSettings {
                depth: 3,
                thin: 1.0,
                mistakes: 0,
                period_ms: 500,
                exact: false,
                matrix: false,
                trained: false,
                nodes: None,
            },
            realtime: false,
            watch_seconds: 1.0,
        }
    }
}

/// The match panel: its remembered settings, the match, and what is shown about it.
pub struct MatchPanel {
    /// Remembered settings (players, CPU level, real time).
    pub settings: MatchSettings,
    /// The match, if one was started.
    pub session: Option<MatchSession>,
    /// Seed of the next match.
    pub seed: u64,
    /// Last complaint (a key that is not your turn …), shown until the next turn.
    pub message: Option<String>,
    /// The rules changed since the match started and the user chose to keep playing.
    pub keep_old_rules: bool,
    /// The learned evaluation of the current rules (for `cpu:trained`), or why there is none;
    /// the studio sets it after each check.
    pub learned: Result<Arc<crate::program::Learned>, crate::program::NoLearned>,
    /// The saved file whose learned evaluation the Learn button writes: None while the
    /// document is unsaved or has unsaved changes (see [`Self::document_changed`]).
    pub learn_path: Option<std::path::PathBuf>,
    /// The document (its path, and whether it has unsaved changes) `learned` and `learn_path`
    /// were last set for.
    learn_for: Option<(Option<std::path::PathBuf>, bool)>,
    /// Whether `learned` was looked up for the rules the checker gave last.
    looked_up: bool,
    /// A learning run started with the Learn button.
    training: Option<Training>,
    /// What the last learning run ended with.
    learn_message: Option<String>,
    log_cache: (usize, Vec<LogLine>),
}

/// Games the Learn button plays (as `kumite train`'s default).
pub const LEARN_GAMES: u64 = 10_000;

/// A learning run on its own thread.
struct Training {
    watch: Arc<crate::search::trained::Watch>,
    games: u64,
    /// The rule file learned (its evaluation is written next to it).
    file: std::path::PathBuf,
    /// The file written, or why not, and the seconds it took.
    job: Job<(Result<std::path::PathBuf, String>, f64)>,
}

impl Default for MatchPanel {
    fn default() -> Self {
        Self {
            settings: MatchSettings::default(),
            session: None,
            seed: 1,
            message: None,
            keep_old_rules: false,
            learned: Err(crate::program::NoLearned::NotRead),
            learn_path: None,
            learn_for: None,
            looked_up: false,
            training: None,
            learn_message: None,
            log_cache: (usize::MAX, Vec::new()),
        }
    }
}

/// Learns the rules saved in `file` as `kumite train` does (its default games and seed) and
/// writes the result next to it: the path written, or why nothing was (the file cannot be read
/// or has errors, cancelled, every game alike, the result cannot be written). The text on disk
/// is learned, so the evaluation written is the saved rules' own.
fn learn_and_write(
    file: &std::path::Path,
    watch: &crate::search::trained::Watch,
) -> Result<std::path::PathBuf, String> {
    use crate::search::trained::{train_watched, trained_path};
    // Read as `kumite train` reads it (UTF-8 only): the studio learns what the command line
    // would, and refuses what it refuses.
    let text = crate::load::read_rules(file).map_err(|e| e.to_string())?;
    let prog = crate::pipeline::compile(&text)
        .program
        .ok_or_else(|| format!("{} has errors", file.display()))?;
    let learned =
        train_watched(&prog, LEARN_GAMES, 1, None, watch).ok_or_else(|| "cancelled".to_string())?;
    if let Some(why) = learned.results.and_then(|r| r.nothing_to_learn()) {
        return Err(why);
    }
    let out = trained_path(file);
    let json = serde_json::to_string_pretty(&learned).map_err(|e| e.to_string())?;
    crate::fsutil::write_atomic(&out, (json + "\n").as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    Ok(out)
}

/// The CPU settings of a file's `~` line.
pub fn file_cpu(s: &crate::program::Settings) -> CpuSettings {
    CpuSettings {
        depth: s.depth,
        thin: s.thin,
        mistakes: s.mistakes,
        period_ms: s.period_ms,
        exact: false,
        matrix: false,
        trained: false,
        nodes: None,
    }
}

/// The id that holds keyboard focus while the match panel is being played.
pub fn focus_id() -> Id {
    Id::unique("kumite-match-focus")
}

fn side_color(ui: &Ui, side: Side) -> Color32 {
    match (side, ui.visuals().dark_mode) {
        (Side::H, true) => Color32::from_rgb(100, 160, 255),
        (Side::H, false) => Color32::from_rgb(20, 80, 200),
        (_, true) => Color32::from_rgb(255, 120, 110),
        (_, false) => Color32::from_rgb(190, 40, 30),
    }
}

fn changed_color(ui: &Ui) -> Color32 {
    if ui.visuals().dark_mode {
        Color32::from_rgb(250, 210, 80)
    } else {
        Color32::from_rgb(170, 110, 0)
    }
}

impl MatchPanel {
    /// The CPU settings a new match uses with `view`'s program.
    pub fn cpu_settings(&self, view: &ProgramView) -> CpuSettings {
        let mut c = if self.settings.file_cpu {
            file_cpu(&view.settings)
        } else {
            self.settings.cpu.clone()
        };
        c.exact = self.settings.cpu.exact;
        c.trained = self.settings.cpu.trained && self.learned.is_ok();
        c
    }

    /// Starts a new match of `view`'s program (`edit`: first let the user edit the position).
    pub fn new_match(&mut self, view: &Arc<ProgramView>, edit: bool) -> Result<(), String> {
        if let Some(s) = self.session.as_mut() {
            s.stop_thinking();
        }
        let mut s = MatchSession::new(
            view.compiled.clone(),
            view.graph.clone(),
            self.seed,
            self.settings.players,
            self.cpu_settings(view),
            None,
        )?;
        s.learned = self.learned.as_ref().ok().cloned();
        s.realtime = self.settings.realtime;
        s.watch_pace =
            std::time::Duration::from_secs_f64(self.settings.watch_seconds.clamp(0.0, 60.0));
        s.started = !edit;
        self.session = Some(s);
        self.message = None;
        self.keep_old_rules = false;
        self.log_cache.0 = usize::MAX;
        Ok(())
    }

    /// Takes back a turn.
    pub fn undo(&mut self) {
        if let Some(s) = self.session.as_mut() {
            s.undo();
            self.message = None;
        }
    }

    /// True if the match runs an older program than `view`'s (and the behaviour differs).
    pub fn rules_changed(&self, view: Option<&Arc<ProgramView>>) -> bool {
        let (Some(s), Some(v)) = (&self.session, view) else {
            return false;
        };
        if Arc::ptr_eq(&s.compiled, &v.compiled) {
            return false;
        }
        match (&s.compiled.program, &v.compiled.program) {
            (Some(a), Some(b)) => !a.same_behaviour(b),
            _ => true,
        }
    }

    /// Handles the game keys (call only while the panel has focus).
    pub fn keys(&mut self, ctx: &egui::Context, lang: Lang) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        let events = ctx.input(|i| i.events.clone());
        for ev in &events {
            let Some(k) = key_name(ev) else { continue };
            match s.key(&k) {
                Ok(Some(_)) => self.message = None,
                Ok(None) => {}
                Err(e) => self.message = Some(e.text(lang)),
            }
        }
    }

    /// Advances the CPU, real-time ticks and replays; asks for a repaint when waiting.
    pub fn tick(&mut self, ctx: &egui::Context) {
        if let Some(s) = self.session.as_mut()
            && let Some(d) = s.tick(Some(ctx))
        {
            ctx.request_repaint_after(d);
        }
    }

    /// The panel.
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        lang: Lang,
        view: Option<&Arc<ProgramView>>,
        focused: bool,
    ) -> Option<MatchAction> {
        let mut action = None;
        ui.horizontal(|ui| {
            ui.strong(tr(lang, T::Match));
            if focused {
                ui.label(
                    RichText::new(tr(lang, T::KeysActive))
                        .small()
                        .color(side_color(ui, Side::H)),
                );
            } else {
                ui.weak(tr(lang, T::ClickHereF6To));
            }
        });
        self.controls(ui, lang, view);
        ui.separator();
        // A match that is over has nothing to keep playing: New match starts one on the rules
        // as they are.
        let over = self.session.as_ref().is_some_and(|s| s.over());
        if view.is_some() && self.rules_changed(view) && !self.keep_old_rules && !over {
            egui::Frame::new()
                .fill(ui.visuals().faint_bg_color)
                .inner_margin(6.0)
                .show(ui, |ui| {
                    ui.label(tr(lang, T::TheRulesChangedThis));
                    ui.horizontal(|ui| {
                        if ui.button(tr(lang, T::RestartWithTheNew)).clicked()
                            && let Some(v) = view
                            && let Err(e) = self.new_match(v, false)
                        {
                            self.message = Some(e);
                        }
                        if ui.button(tr(lang, T::KeepPlaying)).clicked() {
                            self.keep_old_rules = true;
                        }
                    });
                });
        }
        let Some(s) = self.session.as_mut() else {
            ui.add_space(10.0);
            ui.label(match view {
                Some(_) => tr(lang, T::PressNewMatchF5),
                None => tr(lang, T::FixTheErrorsIn),
            });
            return None;
        };
        if !s.started {
            Self::edit_position(ui, lang, s, &mut self.message);
            return None;
        }
        Self::status(ui, lang, s, self.message.as_deref());
        self.replay_controls(ui, lang);
        let s = self.session.as_mut()?;
        Self::states_grid(ui, lang, s);
        ui.add_space(4.0);
        for side in Side::BOTH {
            Self::commands(ui, lang, s, side, &mut self.message);
        }
        ui.separator();
        Self::meter(ui, lang, s);
        self.log(ui, lang, &mut action);
        action
    }

    fn replay_controls(&mut self, ui: &mut Ui, lang: Lang) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        let Some((auto, played, total)) = s
            .replay
            .as_ref()
            .map(|r| (r.auto, r.played, r.played + r.moves.len()))
        else {
            return;
        };
        let (mut step, mut toggle, mut stop) = (false, false, false);
        let mut to = played;
        ui.horizontal_wrapped(|ui| {
            ui.label(tr(lang, T::Replay));
            // A slider over the turns: drag back and forth through the match.
            let l = ui.label(tr(lang, T::ReplayTurn));
            ui.add(egui::Slider::new(&mut to, 0..=total).suffix(format!(" / {total}")))
                .labelled_by(l.id);
            if played < total {
                step = ui.button(tr(lang, T::NextStep)).clicked();
                toggle = ui
                    .button(if auto {
                        tr(lang, T::Pause)
                    } else {
                        tr(lang, T::PlayAll)
                    })
                    .clicked();
            }
            stop = ui.button(tr(lang, T::StopReplay)).clicked();
        });
        if stop {
            s.replay = None;
        } else if to != played {
            s.replay_to(to);
        } else if step {
            s.replay_step();
        } else if toggle && let Some(r) = s.replay.as_mut() {
            r.auto = !auto;
            r.next = None;
        }
    }

    fn controls(&mut self, ui: &mut Ui, lang: Lang, view: Option<&Arc<ProgramView>>) {
        self.match_buttons(ui, lang, view);
        self.players_row(ui, lang);
        self.cpu_row(ui, lang, view);
        self.learned_line(ui, lang, view);
        self.learn_ui(ui, lang, view);
        self.same_match_line(ui, lang, view);
        self.exact_line(ui, lang);
    }

    /// New match, undo a turn, a match from a position.
    fn match_buttons(&mut self, ui: &mut Ui, lang: Lang, view: Option<&Arc<ProgramView>>) {
        ui.horizontal_wrapped(|ui| {
            let can = view.is_some();
            if ui
                .add_enabled(can, egui::Button::new(tr(lang, T::NewMatch)))
                .on_hover_text("F5")
                .clicked()
                && let Some(v) = view
                && let Err(e) = self.new_match(v, false)
            {
                self.message = Some(e);
            }
            let undo_ok = self.session.as_ref().is_some_and(|s| !s.turns.is_empty());
            if ui
                .add_enabled(undo_ok, egui::Button::new(tr(lang, T::UndoTurn)))
                .on_hover_text("F8")
                .clicked()
            {
                self.undo();
            }
            if ui
                .add_enabled(can, egui::Button::new(tr(lang, T::FromAPosition)))
                .on_hover_text(tr(lang, T::EditBothSidesStates))
                .clicked()
                && let Some(v) = view
                && let Err(e) = self.new_match(v, true)
            {
                self.message = Some(e);
            }
        });
    }

    /// Who plays each side, the watching pace, the seed and real time.
    fn players_row(&mut self, ui: &mut Ui, lang: Lang) {
        ui.horizontal_wrapped(|ui| {
            for side in Side::BOTH {
                let label = ui.label(
                    RichText::new(side.name())
                        .strong()
                        .color(side_color(ui, side)),
                );
                let who = |c: Controller| match c {
                    Controller::Human => tr(lang, T::Human),
                    Controller::Cpu => "CPU",
                };
                egui::ComboBox::from_id_salt(("player", side))
                    .width(70.0)
                    .selected_text(who(self.settings.players[side]))
                    .show_ui(ui, |ui| {
                        ui.selectable_value(
                            &mut self.settings.players[side],
                            Controller::Human,
                            who(Controller::Human),
                        );
                        ui.selectable_value(
                            &mut self.settings.players[side],
                            Controller::Cpu,
                            "CPU",
                        );
                    })
                    .response
                    .labelled_by(label.id);
            }
            if let Some(s) = self.session.as_mut()
                && s.players != self.settings.players
            {
                s.stop_thinking();
                s.players = self.settings.players;
            }
            // CPU against CPU: watched at a pace the designer sets.
            if !self.settings.players.contains(&Controller::Human) {
                let l = ui.label(tr(lang, T::WatchPace));
                if ui
                    .add(
                        egui::DragValue::new(&mut self.settings.watch_seconds)
                            .range(0.0..=60.0)
                            .speed(0.05)
                            .suffix(" s"),
                    )
                    .labelled_by(l.id)
                    .on_hover_text(tr(lang, T::WatchPaceHover))
                    .changed()
                    && let Some(s) = self.session.as_mut()
                {
                    s.watch_pace = std::time::Duration::from_secs_f64(self.settings.watch_seconds);
                }
            }
            let l = ui.label(tr(lang, T::Seed));
            ui.add(egui::DragValue::new(&mut self.seed).speed(1.0))
                .labelled_by(l.id);
            if ui
                .small_button(tr(lang, T::NewSeed))
                .on_hover_text(tr(lang, T::NewRandomSeed))
                .clicked()
            {
                let t = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(7);
                self.seed = crate::engine::rng::mix(t) % 1_000_000;
            }
            if ui
                .checkbox(&mut self.settings.realtime, tr(lang, T::RealTime))
                .on_hover_text(tr(lang, T::OneTurnEveryP))
                .changed()
                && let Some(s) = self.session.as_mut()
            {
                s.realtime = self.settings.realtime;
                s.pending = [None, None];
            }
        });
    }

    /// The CPU's level: the file's `~` line or the panel's own, exact play, the learned
    /// evaluation; a running match takes a changed level at once.
    fn cpu_row(&mut self, ui: &mut Ui, lang: Lang, view: Option<&Arc<ProgramView>>) {
        ui.horizontal_wrapped(|ui| {
            ui.checkbox(&mut self.settings.file_cpu, tr(lang, T::CPULevelOfThe));
            if self.settings.file_cpu {
                if let Some(v) = view {
                    let s = &v.settings;
                    ui.weak(format!(
                        "S{} D{} E{} P{}",
                        s.depth, s.thin, s.mistakes, s.period_ms
                    ));
                }
            } else {
                let c = &mut self.settings.cpu;
                let l = ui.label("S");
                ui.add(egui::DragValue::new(&mut c.depth).range(1..=30))
                    .labelled_by(l.id);
                let l = ui.label("D");
                ui.add(
                    egui::DragValue::new(&mut c.thin)
                        .range(1.0..=100.0)
                        .speed(0.1),
                )
                .labelled_by(l.id);
                let l = ui.label("E");
                ui.add(egui::DragValue::new(&mut c.mistakes).range(0..=10))
                    .labelled_by(l.id);
                let l = ui.label("P");
                ui.add(
                    egui::DragValue::new(&mut c.period_ms)
                        .range(1..=60_000)
                        .suffix(" ms"),
                )
                .labelled_by(l.id);
                // A node budget makes the CPU's moves the same on every machine (0: none, the
                // time P alone bounds it).
                let l = ui.label("N");
                let mut n = c.nodes.unwrap_or(0);
                if ui
                    .add(
                        egui::DragValue::new(&mut n)
                            .range(0..=10_000_000_000u64)
                            .speed(1000.0),
                    )
                    .labelled_by(l.id)
                    .on_hover_text(tr(lang, T::NodeBudgetHover))
                    .changed()
                {
                    c.nodes = (n > 0).then_some(n.max(100));
                }
            }
            // Ticked for a match whose table could not be built, the box says that this match
            // plays by search instead of promising an unbeatable CPU.
            let unavailable = self.settings.cpu.exact
                && self
                    .session
                    .as_ref()
                    .is_some_and(|s| s.cpu.exact && s.exact_unavailable());
            let label = if unavailable {
                RichText::new(tr(lang, T::ExactUnbeatableNotHere)).weak()
            } else {
                RichText::new(tr(lang, T::ExactUnbeatable))
            };
            ui.checkbox(&mut self.settings.cpu.exact, label)
                .on_hover_text(tr(lang, T::PlaysFromAnExact));
            ui.checkbox(
                &mut self.settings.cpu.trained,
                tr(lang, T::LearnedEvaluation),
            )
            .on_hover_text(tr(lang, T::LearnedHover));
            if let (Some(s), Some(v)) = (self.session.as_mut(), view) {
                let mut want = if self.settings.file_cpu {
                    file_cpu(&v.settings)
                } else {
                    self.settings.cpu.clone()
                };
                want.exact = self.settings.cpu.exact;
                want.trained = self.settings.cpu.trained && self.learned.is_ok();
                if s.cpu != want && Arc::ptr_eq(&s.compiled, &v.compiled) {
                    s.cpu = want;
                    s.learned = self.learned.as_ref().ok().cloned();
                }
            }
        });
    }

    /// What the learned evaluation was learned from, or why there is none.
    fn learned_line(&self, ui: &mut Ui, lang: Lang, view: Option<&Arc<ProgramView>>) {
        if self.settings.cpu.trained {
            ui.weak(match &self.learned {
                Ok(l) => trn(
                    lang,
                    T::LearnedFrom,
                    &[
                        &l.games,
                        &l.positions,
                        &format!("{:.3}", l.log_loss),
                        &format!("{:.3}", l.derived_log_loss),
                    ],
                ),
                // A saved file never learned, in an alternate game: the button below says
                // what to do, in the studio's words.
                Err(_)
                    if view.is_some_and(|v| !v.settings.simultaneous)
                        && self
                            .learn_path
                            .as_deref()
                            .is_some_and(|p| !crate::search::trained::trained_path(p).exists()) =>
                {
                    tr(lang, T::LearnedNever).to_string()
                }
                Err(why) => trf(lang, T::LearnedMissing, super::i18n::no_learned(lang, why)),
            });
        }
    }

    /// The command line that plays the same CPU, so a match can be repeated outside.
    fn same_match_line(&self, ui: &mut Ui, lang: Lang, view: Option<&Arc<ProgramView>>) {
        if let Some(v) = view {
            let spec = |c: Controller| match c {
                Controller::Human => "human".to_string(),
                Controller::Cpu => self.cpu_settings(v).spec(),
            };
            let file = self.learn_path.as_ref().map_or("FILE".to_string(), |p| {
                p.file_name()
                    .map_or("FILE".into(), |n| n.to_string_lossy().into_owned())
            });
            let seed = self.session.as_ref().map_or(self.seed, |s| s.seed);
            ui.horizontal_wrapped(|ui| {
                ui.weak(tr(lang, T::SamePlayerAs));
                ui.add(
                    egui::Label::new(
                        RichText::new(format!(
                            "kumite match {file} --h {} --c {} --seed {seed}",
                            spec(self.settings.players[0]),
                            spec(self.settings.players[1])
                        ))
                        .monospace()
                        .weak(),
                    )
                    .wrap(),
                );
            });
        }
    }

    /// What the exact CPU plays from (its table, or that it is being built).
    fn exact_line(&self, ui: &mut Ui, lang: Lang) {
        if self.settings.cpu.exact
            && let Some(status) = self.session.as_ref().and_then(|s| s.exact_status(lang))
        {
            if status.contains('…') {
                // Building: keep the elapsed time moving.
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_millis(200));
            }
            ui.weak(status);
        }
    }

    /// The studio's document is `path` (None: never saved), `dirty` when it has unsaved
    /// changes, and `prog` the rules shown: the learned evaluation is looked up again when
    /// either changed (a save, Save As, an edit, another file), and the Learn button writes
    /// only next to a saved file without unsaved changes.
    pub fn document_changed(
        &mut self,
        path: Option<&std::path::Path>,
        dirty: bool,
        prog: Option<&crate::program::RuleProgram>,
    ) {
        let key = (path.map(std::path::Path::to_path_buf), dirty);
        if self.learn_for.as_ref() == Some(&key) && self.looked_up {
            return;
        }
        self.looked_up = prog.is_some();
        if self.learn_for.as_ref().map(|k| &k.0) != Some(&key.0) {
            self.learn_message = None; // about another file
        }
        if let Some(prog) = prog {
            self.learned = super::files::learned_for(path, prog);
        }
        self.learn_path = if dirty { None } else { key.0.clone() };
        self.learn_for = Some(key);
    }

    /// The checker gave new rules: [`Self::document_changed`] looks their learned evaluation up.
    pub fn rules_changed_since_lookup(&mut self) {
        self.looked_up = false;
    }

    /// Takes a finished learning run's answer (every frame, whether or not the panel is
    /// shown): the evaluation it wrote is looked up again for the rules shown now.
    pub fn poll_learning(&mut self, lang: Lang, prog: Option<&crate::program::RuleProgram>) {
        let Some(t) = &self.training else { return };
        let (answer, secs) = match t.job.poll() {
            Polled::Done(a) => a,
            Polled::Pending => return,
            Polled::Died => (Err("stopped".to_string()), t.job.elapsed().as_secs_f64()),
        };
        let cancelled = t.watch.cancel.load(std::sync::atomic::Ordering::Relaxed);
        let file = t.file.clone();
        self.training = None;
        self.learn_message = Some(match answer {
            Ok(written) => {
                let shown = self.learn_for.as_ref().and_then(|k| k.0.clone());
                if let Some(prog) = prog
                    && shown.as_deref() == Some(file.as_path())
                {
                    self.learned = super::files::learned_for(Some(&file), prog);
                }
                trn(
                    lang,
                    T::LearnWrote,
                    &[&format!("{secs:.1}"), &written.display()],
                )
            }
            Err(_) if cancelled => tr(lang, T::LearnCancelled).to_string(),
            Err(e) => trf(lang, T::LearnFailed, e),
        });
    }

    /// True while a learning run started from the panel is going.
    pub fn is_learning(&self) -> bool {
        self.training.is_some()
    }

    /// The Learn button (learn an evaluation for the saved rules, as `kumite train`) when the
    /// learned evaluation is asked for and missing, the progress of a run (whatever is ticked)
    /// and what the last run ended with.
    fn learn_ui(&mut self, ui: &mut Ui, lang: Lang, view: Option<&Arc<ProgramView>>) {
        if let Some(t) = &self.training {
            use std::sync::atomic::Ordering;
            let done = t.watch.games_done.load(Ordering::Relaxed);
            let secs = t.job.elapsed().as_secs();
            let name = t
                .file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // The games, then the regressions (a few seconds for karate's 300,000 positions).
            let fitted = t.watch.fit_steps.load(Ordering::Relaxed);
            let part = if done < t.games {
                ui.label(trn(lang, T::Learning, &[&name, &done, &t.games, &secs]));
                done as f32 / t.games.max(1) as f32
            } else {
                ui.label(trn(lang, T::LearnFitting, &[&name, &secs]));
                fitted as f32 / crate::search::trained::Watch::FIT_STEPS as f32
            };
            ui.horizontal(|ui| {
                ui.add(
                    egui::ProgressBar::new(part)
                        .desired_width((ui.available_width() - 80.0).max(60.0))
                        .show_percentage(),
                );
                if ui.button(tr(lang, T::LearnCancel)).clicked() {
                    t.watch.cancel.store(true, Ordering::Relaxed);
                }
            });
            ui.ctx().request_repaint_after(Duration::from_millis(200));
            return;
        }
        if !self.settings.cpu.trained {
            return;
        }
        let Some(v) = view else { return };
        if !v.settings.simultaneous && self.learned.is_err() {
            let path = self.learn_path.clone();
            let hover = match &path {
                Some(p) => trn(
                    lang,
                    T::LearnNowHover,
                    &[
                        &LEARN_GAMES,
                        &crate::search::trained::trained_path(p).display(),
                    ],
                ),
                None => tr(lang, T::LearnSaveFirst).to_string(),
            };
            let clicked = ui
                .add_enabled(path.is_some(), egui::Button::new(tr(lang, T::LearnNow)))
                .on_hover_text(&hover)
                .on_disabled_hover_text(&hover)
                .clicked();
            if clicked && let Some(p) = path {
                self.start_training(p, ui.ctx().clone());
            }
        }
        if let Some(m) = &self.learn_message {
            ui.weak(m);
        }
    }

    /// Starts learning the rules saved in `path` on a thread, writing next to it.
    fn start_training(&mut self, path: std::path::PathBuf, ctx: egui::Context) {
        let watch = Arc::new(crate::search::trained::Watch::default());
        let (w, file) = (watch.clone(), path.clone());
        // Cancel is the watch's own flag (the learning checks it), not the job's.
        let spawned = Job::spawn("kumite-learn", Some(ctx), move |_| {
            let started = std::time::Instant::now();
            let r = learn_and_write(&file, &w);
            (r, started.elapsed().as_secs_f64())
        });
        self.learn_message = None;
        match spawned {
            Ok(job) => {
                self.training = Some(Training {
                    watch,
                    games: LEARN_GAMES,
                    file: path,
                    job,
                });
            }
            Err(e) => self.learn_message = Some(e.to_string()),
        }
    }

    fn status(ui: &mut Ui, lang: Lang, s: &MatchSession, message: Option<&str>) {
        let text = if let Some(e) = &s.error {
            RichText::new(format!("{} {e}", tr(lang, T::RuntimeError)))
                .color(ui.visuals().error_fg_color)
                .strong()
        } else if let Some(o) = s.outcome() {
            let t = match o {
                Outcome::H => tr(lang, T::HWins),
                Outcome::C => tr(lang, T::CWins),
                Outcome::Draw => tr(lang, T::Draw),
            };
            RichText::new(format!("{t}  ({} {})", s.st.turn, tr(lang, T::Turns)))
                .strong()
                .size(18.0)
                .color(match o {
                    Outcome::H => side_color(ui, Side::H),
                    Outcome::C => side_color(ui, Side::C),
                    Outcome::Draw => ui.visuals().text_color(),
                })
        } else if let Some((side, t)) = s.thinking().filter(|_| !s.simultaneous()) {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!(
                    "{} {} {:.1} s",
                    side.name(),
                    tr(lang, T::CPUIsThinking),
                    t.as_secs_f64()
                ));
            });
            RichText::new("")
        } else if let Some(r) = &s.replay
            && !r.moves.is_empty()
        {
            RichText::new(format!(
                "{} {}/{}",
                tr(lang, T::ReplayingTheWinPath),
                r.played,
                r.played + r.moves.len()
            ))
            .strong()
        } else {
            let turn = s.st.turn + 1;
            let who: Vec<&str> = s.waiting_for().into_iter().map(Side::name).collect();
            let mut t = format!("{} {turn}: ", tr(lang, T::Turn));
            if s.simultaneous() {
                t.push_str(tr(lang, T::BothChoose));
                if !who.is_empty() {
                    t.push_str(&format!(
                        " ({} {})",
                        tr(lang, T::WaitingFor),
                        who.join(", ")
                    ));
                }
            } else {
                t.push_str(&format!("{} {}", s.st.to_move.name(), tr(lang, T::ToMove)));
            }
            if s.human_to_choose().is_some() {
                t.push_str(tr(lang, T::YourMovePressA));
            }
            RichText::new(t).strong()
        };
        if !text.text().is_empty() {
            ui.label(text);
        }
        if s.simultaneous()
            && let Some((_, t)) = s.thinking()
        {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak(format!(
                    "{} {:.1} s",
                    tr(lang, T::CPUIsChoosing),
                    t.as_secs_f64()
                ));
            });
        }
        if let Some(r) = &s.replay
            && let Some(k) = r.diverged
        {
            ui.colored_label(
                changed_color(ui),
                format!("{} {k}", tr(lang, T::ChanceWentOtherwiseThan)),
            );
        }
        if let Some(m) = message {
            ui.colored_label(changed_color(ui), m);
        }
        if s.cpu_failed {
            ui.colored_label(ui.visuals().error_fg_color, tr(lang, T::CpuSearchDied));
        } else if let Some((nodes, took)) = s.cpu_last.filter(|c| c.0 > 0 && s.thinking().is_none())
        {
            // How hard the CPU looked, so an author can compare levels (S, D, P) by feel and
            // by number.
            let secs = took.as_secs_f64();
            let ms = secs * 1e3;
            let time = if ms < 10.0 {
                format!("{ms:.1} ms")
            } else {
                format!("{ms:.0} ms")
            };
            let rate = format!("{:.2}", nodes as f64 / secs.max(1e-9) / 1e6);
            ui.weak(trn(lang, T::CpuLastSearch, &[&nodes, &time, &rate]));
            if s.cpu_timed_out {
                ui.colored_label(
                    changed_color(ui),
                    trn(lang, T::CpuTimedOut, &[&s.cpu.period_ms, &s.cpu.depth]),
                );
            }
        }
    }

    fn states_grid(ui: &mut Ui, lang: Lang, s: &MatchSession) {
        let prog = s.compiled.clone();
        let Some(p) = prog.program.as_ref() else {
            return;
        };
        let ns = p.states.len();
        egui::Grid::new("match-states")
            .num_columns(3)
            .striped(true)
            .min_col_width(40.0)
            .show(ui, |ui| {
                ui.label("");
                for side in Side::BOTH {
                    let color = side_color(ui, side);
                    ui.horizontal(|ui| {
                        ui.label(RichText::new(side.name()).strong().size(16.0).color(color));
                        ui.weak(match s.players[side] {
                            Controller::Human => tr(lang, T::Human),
                            Controller::Cpu => "CPU",
                        });
                        if s.movers().contains(&side) {
                            let chosen = s.pending[side].is_some();
                            ui.label(
                                RichText::new(if chosen {
                                    tr(lang, T::Chosen)
                                } else {
                                    tr(lang, T::ToMoveMarker)
                                })
                                .color(color),
                            );
                        }
                    });
                }
                ui.end_row();
                for (i, name) in p.states.iter().enumerate().skip(2) {
                    let hi = value_max(s, i, ns);
                    let changed_any = Side::BOTH.into_iter().any(|side| {
                        s.previous_value(side, i)
                            .is_some_and(|pv| pv != s.value(side, i))
                    });
                    let mut t = RichText::new(name);
                    if changed_any {
                        t = t.color(changed_color(ui));
                    }
                    ui.label(t);
                    for side in Side::BOTH {
                        let color = side_color(ui, side);
                        let v = s.value(side, i);
                        let prev = s.previous_value(side, i).filter(|&pv| pv != v);
                        ui.horizontal(|ui| {
                            if p.is_flag(i) {
                                let on = v != 0;
                                ui.label(RichText::new(if on { "○" } else { "—" }).strong().color(
                                    if on {
                                        color
                                    } else {
                                        ui.visuals().weak_text_color()
                                    },
                                ));
                            } else {
                                let mut num = RichText::new(format!("{v:>3}")).monospace();
                                if prev.is_some() {
                                    num = num.color(changed_color(ui)).strong();
                                }
                                ui.label(num);
                                // The bar runs from 0 to the highest value seen; at or below 0
                                // it stays, empty.
                                if hi > 0 {
                                    let frac = (v.max(0) as f32 / hi as f32).clamp(0.0, 1.0);
                                    let (r, bar) = ui
                                        .allocate_exact_size(Vec2::new(56.0, 8.0), Sense::hover());
                                    bar.widget_info(|| {
                                        egui::WidgetInfo::labeled(
                                            egui::Role::ProgressIndicator,
                                            true,
                                            format!("{} {name} {v} / {hi}", side.name()),
                                        )
                                    });
                                    let painter = ui.painter();
                                    painter.rect_filled(r, 2.0, ui.visuals().extreme_bg_color);
                                    let mut f = r;
                                    f.set_width(r.width() * frac);
                                    painter.rect_filled(f, 2.0, color.gamma_multiply(0.8));
                                }
                            }
                            if let Some(pv) = prev {
                                ui.label(
                                    RichText::new(format!("{:+}", v - pv))
                                        .small()
                                        .color(changed_color(ui)),
                                );
                            }
                        });
                    }
                    ui.end_row();
                }
            });
    }

    fn commands(
        ui: &mut Ui,
        lang: Lang,
        s: &mut MatchSession,
        side: Side,
        message: &mut Option<String>,
    ) {
        let color = side_color(ui, side);
        let prog = s.compiled.clone();
        let Some(p) = prog.program.as_ref() else {
            return;
        };
        let to_move = s.movers().contains(&side);
        let human_turn = s.players[side] == Controller::Human
            && to_move
            && s.pending[side].is_none()
            && s.replay.as_ref().is_none_or(|r| r.moves.is_empty());
        let mut clicked: Option<Option<CmdId>> = None;
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(side.name()).strong().color(color));
            for (c, name) in p.commands.iter().enumerate() {
                let on = s.is_enabled(side, c as CmdId);
                let label = match p.key_for(c as CmdId) {
                    Some(k) => format!("{name}  {k}"),
                    None => name.clone(),
                };
                let mut text = RichText::new(label);
                if on {
                    text = text.strong();
                }
                let btn = egui::Button::new(text).stroke(if on && human_turn {
                    Stroke::new(1.0, color)
                } else {
                    Stroke::NONE
                });
                let resp = ui.add_enabled(on && human_turn, btn);
                let resp = if on {
                    resp
                } else {
                    resp.on_disabled_hover_text(tr(lang, T::NotEnabledNow))
                };
                if resp.clicked() {
                    clicked = Some(Some(c as CmdId));
                }
            }
            if human_turn && ui.button(tr(lang, T::Pass)).clicked() {
                clicked = Some(None);
            }
        });
        if let Some(c) = clicked
            && let Err(e) = s.choose(side, c)
        {
            *message = Some(e.text(lang));
        }
    }

    fn meter(ui: &mut Ui, lang: Lang, s: &MatchSession) {
        let j = s.judgement();
        let cap = crate::analysis::UNREACHABLE;
        let d = |x: u32| {
            if x >= cap {
                "∞".to_string()
            } else {
                x.to_string()
            }
        };
        ui.horizontal(|ui| {
            ui.label(tr(lang, T::EvaluationH));
            let shown = if j.eval.abs() >= 1e8 {
                if j.eval > 0.0 {
                    "+∞".to_string()
                } else {
                    "−∞".to_string()
                }
            } else {
                format!("{:+.1}", j.eval)
            };
            ui.label(RichText::new(shown).monospace().strong());
            // Distances are for a game still being played: at the end they would contradict
            // the result beside them.
            if !s.over() {
                ui.weak(format!(
                    "{} h {} · c {}",
                    tr(lang, T::DistanceToWin),
                    d(j.dist[0]),
                    d(j.dist[1])
                ));
            }
        });
        // The meter: h's share grows to the left, c's to the right.
        let (r, _) = ui.allocate_exact_size(Vec2::new(ui.available_width(), 12.0), Sense::hover());
        let x = (j.eval / 8.0).tanh() as f32; // +1: h winning
        let painter = ui.painter();
        painter.rect_filled(r, 3.0, side_color(ui, Side::C).gamma_multiply(0.55));
        let mut h = r;
        h.set_width(r.width() * (0.5 + x / 2.0));
        painter.rect_filled(h, 3.0, side_color(ui, Side::H).gamma_multiply(0.85));
        painter.line_segment(
            [r.center_top(), r.center_bottom()],
            Stroke::new(1.0, ui.visuals().text_color()),
        );
        let pts: Vec<[f64; 2]> = s
            .judgements
            .iter()
            .enumerate()
            .map(|(i, j)| [i as f64, j.eval.clamp(-40.0, 40.0)])
            .collect();
        egui_plot::Plot::new("eval-plot")
            .height(90.0)
            .allow_scroll(false)
            .allow_zoom(false)
            .allow_drag(false)
            .show_x(true)
            .show_y(true)
            .include_y(0.0)
            .show(ui, |p| {
                p.line(egui_plot::Line::new(tr(lang, T::EvaluationForH), pts));
            });
    }

    fn log(&mut self, ui: &mut Ui, lang: Lang, action: &mut Option<MatchAction>) {
        let Some(s) = self.session.as_ref() else {
            return;
        };
        let key = s.turns.len() * 2 + s.over() as usize;
        if self.log_cache.0 != key {
            self.log_cache = (key, build_log(s, lang));
        }
        ui.strong(tr(lang, T::TurnLog));
        let lines = &self.log_cache.1;
        let row_h = 18.0;
        egui::ScrollArea::vertical()
            .id_salt("match-log")
            .auto_shrink([false, false])
            .stick_to_bottom(true)
            .show_rows(ui, row_h, lines.len(), |ui, range| {
                for l in &lines[range] {
                    let (color, indent) = match l.kind {
                        LogKind::Turn => (ui.visuals().strong_text_color(), 0.0),
                        LogKind::Rule => (ui.visuals().hyperlink_color, 12.0),
                        LogKind::Change => (ui.visuals().text_color(), 12.0),
                        LogKind::Error => (ui.visuals().error_fg_color, 12.0),
                        LogKind::Result => (changed_color(ui), 0.0),
                    };
                    ui.horizontal(|ui| {
                        ui.set_height(row_h - 2.0);
                        ui.add_space(indent);
                        let t = RichText::new(&l.text).size(12.0).color(color);
                        match l.line {
                            Some(n) => {
                                if ui
                                    .add(egui::Label::new(t).sense(Sense::click()))
                                    .on_hover_text(tr(lang, T::ShowTheLine))
                                    .clicked()
                                {
                                    *action = Some(MatchAction::ShowLine(n));
                                }
                            }
                            None => {
                                ui.label(t);
                            }
                        }
                    });
                }
            });
    }

    fn edit_position(ui: &mut Ui, lang: Lang, s: &mut MatchSession, message: &mut Option<String>) {
        ui.label(RichText::new(tr(lang, T::EditThePositionThen)).strong());
        let prog = s.compiled.clone();
        let Some(p) = prog.program.as_ref() else {
            return;
        };
        let (ns, nc) = (p.states.len(), p.commands.len());
        if !p.settings.simultaneous {
            ui.horizontal(|ui| {
                ui.label(tr(lang, T::ToMoveColon));
                ui.selectable_value(&mut s.st.to_move, Side::H, "h");
                ui.selectable_value(&mut s.st.to_move, Side::C, "c");
            });
        }
        egui::ScrollArea::vertical()
            .id_salt("edit-pos")
            .max_height(ui.available_height() - 40.0)
            .show(ui, |ui| {
                egui::Grid::new("edit-grid")
                    .num_columns(3)
                    .striped(true)
                    .show(ui, |ui| {
                        ui.strong(tr(lang, T::State));
                        ui.strong("h");
                        ui.strong("c");
                        ui.end_row();
                        for (i, name) in p.states.iter().enumerate().skip(2) {
                            let l = ui.label(name);
                            for side in Side::BOTH {
                                ui.add(egui::DragValue::new(&mut s.st.vals[side.index() * ns + i]))
                                    .labelled_by(l.id);
                            }
                            ui.end_row();
                        }
                        for (c, name) in p.commands.iter().enumerate() {
                            let l = ui.label(format!("[{name}]"));
                            for side in Side::BOTH {
                                ui.checkbox(&mut s.st.enabled[side.index() * nc + c], "")
                                    .labelled_by(l.id);
                            }
                            ui.end_row();
                        }
                    });
            });
        ui.weak(tr(lang, T::AvailabilityRulesRunAgain));
        if ui
            .button(RichText::new(tr(lang, T::StartFromThisPosition)).strong())
            .clicked()
            && let Err(e) = s.start_from_edited()
        {
            *message = Some(e);
        }
    }
}

/// The range a state's value has taken in this match (start and every turn), for bars.
/// The highest value state `i` has had for either side in the match so far (the top of its bar).
fn value_max(s: &MatchSession, i: usize, ns: usize) -> i64 {
    let mut hi = i64::MIN;
    let mut see = |st: &crate::engine::State| {
        for side in Side::BOTH {
            hi = hi.max(st.vals[side.index() * ns + i]);
        }
    };
    see(&s.start);
    see(&s.st);
    for t in &s.turns {
        see(&t.before);
    }
    hi
}

fn build_log(s: &MatchSession, lang: Lang) -> Vec<LogLine> {
    let mut out = Vec::new();
    let p = s.prog();
    for t in &s.turns {
        let moves: Vec<String> = t
            .trace
            .moves
            .iter()
            .map(|(side, c)| {
                let key = c
                    .as_deref()
                    .and_then(|n| p.command_id(n))
                    .and_then(|id| p.key_for(id))
                    .map(|k| format!(" ({k})"))
                    .unwrap_or_default();
                format!(
                    "{side}: {}{key}",
                    c.as_deref()
                        .map_or_else(|| tr(lang, T::Pass).to_string(), |c| format!("[{c}]"))
                )
            })
            .collect();
        out.push(LogLine {
            text: format!("T{}  {}", t.trace.turn, moves.join("   ")),
            kind: LogKind::Turn,
            line: None,
        });
        for (side, rule, line, _origin) in &t.trace.fired {
            out.push(LogLine {
                text: format!("L{line} {side}: {}", p.rule_text(*rule)),
                kind: LogKind::Rule,
                line: Some(*line),
            });
        }
        let changes: Vec<String> = t
            .trace
            .changes
            .iter()
            .map(|c| format!("{}.{} {}→{}", c.side, c.name, c.from, c.to))
            .collect();
        for chunk in changes.chunks(3) {
            out.push(LogLine {
                text: chunk.join("   "),
                kind: LogKind::Change,
                line: None,
            });
        }
        if let Some(e) = &t.error {
            out.push(LogLine {
                text: format!("{} {e}", tr(lang, T::RuntimeErrorLower)),
                kind: LogKind::Error,
                line: Some(e.line),
            });
        }
    }
    if let Some(o) = s.outcome() {
        out.push(LogLine {
            text: match o {
                Outcome::H => tr(lang, T::HWinsLower).to_string(),
                Outcome::C => tr(lang, T::CWinsLower).to_string(),
                Outcome::Draw => tr(lang, T::DrawLower).to_string(),
            },
            kind: LogKind::Result,
            line: None,
        });
    }
    let _ = Duration::ZERO;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_and_missing_fields_take_defaults() {
        let mut m = MatchSettings {
            players: [Controller::Cpu, Controller::Human],
            ..Default::default()
        };
        m.cpu.exact = true;
        m.cpu.depth = 6;
        let back: MatchSettings =
            serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
        // Settings written by an older studio (or hand-edited) keep what they have.
        let old: MatchSettings = serde_json::from_str(r#"{"realtime":true}"#).unwrap();
        assert!(old.realtime);
        assert_eq!(old.players, MatchSettings::default().players);
    }
}
