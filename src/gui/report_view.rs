//! The Report tab (Ctrl+4): the balance report of `kumite report`, computed on a background
//! thread with a progress bar and Cancel (Esc), filled in section by section as results arrive,
//! with plots where a person would rather look than read. Clicking a rule goes to its line.

use super::i18n::{Lang, T, tr, trf, trn};
use super::job::{Job, Polled};
use crate::program::RuleProgram;
use crate::report::compare::{Basis, Comparison, Diff, Measure, Unit};
use crate::report::suggest::{SuggestOptions, Suggestions};
use crate::report::{Progress, Rate, Report, ReportOptions, SkillVerdict, Sweep};
use egui::{Color32, RichText, Ui, Vec2};
use egui_plot::{Bar, BarChart, FilledArea, HLine, Line, Plot, Points};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// What the tab asks the app to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportAction {
    /// Show this 1-based source line in the editor.
    ShowLine(usize),
    /// Apply a suggestion's edits to the editor (one undo step); the index is the
    /// suggestion's, to mark it applied.
    Apply(usize, Vec<crate::report::suggest::Edit>),
    /// Compare the editor's rules with the version saved on disk.
    CompareSaved,
    /// Compare them with another rule file (ask which).
    CompareFile,
}

/// The other version of a comparison: its text, its name and its program.
pub struct Other {
    /// Its text.
    pub source: String,
    /// Its name as shown.
    pub name: String,
    /// Its program.
    pub prog: RuleProgram,
}

/// A suggestion search running on a background thread.
struct SuggestRunning {
    /// Its games so far, and its Cancel (the search checks this, not the job's flag).
    progress: Arc<Progress>,
    job: Job<Result<Suggestions, String>>,
}

/// An applied suggestion measured again on the editor's text (its balance, the way the
/// suggestion measured it), shown beside the file's before.
struct Remeasure {
    /// The suggestion's index.
    k: usize,
    job: Option<Job<Result<crate::report::suggest::Verdict, String>>>,
    result: Option<Result<crate::report::suggest::Verdict, String>>,
}

/// How a report run ends: one report, or the comparison of two.
enum Ended {
    Report(Result<Box<Report>, String>),
    Compared(Result<Box<Comparison>, String>),
}

/// A report running on a background thread; its progress messages are the (first) report so
/// far, after each section.
struct Running {
    /// Its games so far, and its Cancel (the report checks this, not the job's flag).
    progress: Arc<Progress>,
    /// The second report's, when two versions are compared.
    second: Option<Arc<Progress>>,
    job: Job<Ended, Report>,
}

/// The tab's state: its settings, the running report and the last result.
pub struct ReportView {
    /// CPU games per seating.
    pub games: u64,
    /// Seed.
    pub seed: u64,
    /// `NAME=LO..HI[:STEP]`, or empty for no sweep.
    pub sweep: String,
    running: Option<Running>,
    /// The report so far (complete when nothing runs).
    pub report: Option<Report>,
    /// Why the last report could not run.
    pub error: Option<String>,
    /// Seconds the last report took (or ran until cancelled).
    elapsed: f64,
    /// The last report was cancelled.
    cancelled: bool,
    suggesting: Option<SuggestRunning>,
    /// The last suggestions (Suggest fixes).
    pub suggestions: Option<Suggestions>,
    /// Why the last suggestion search could not run.
    pub suggest_error: Option<String>,
    /// Suggestions applied (by index), and those that no longer fit the text.
    applied: Vec<usize>,
    stale: Vec<usize>,
    remeasure: Option<Remeasure>,
    /// The goals Suggest fixes searches for (`kumite suggest`'s defaults until changed).
    pub goals: crate::report::suggest::Goals,
    /// The text the report was run on, the suggestions were found on, and the editor's text
    /// right after the last Apply.
    report_text: Option<String>,
    suggest_text: Option<String>,
    applied_text: Option<String>,
    /// Whether the editor's text is still the report's / the suggestions' (see
    /// [`ReportView::follow_text`]).
    report_current: bool,
    suggest_current: bool,
    /// A sweep example from the file's own states (`c.体力=6..14`).
    sweep_hint: String,
    /// The goal's turn limit as last set (kept while the limit is unticked).
    goal_turns: f64,
    /// The last comparison of two versions (Compare with…).
    pub comparison: Option<Comparison>,
    /// The two versions' names while a comparison runs.
    comparing: Option<(String, String)>,
}

impl Default for ReportView {
    fn default() -> Self {
        Self {
            games: 100,
            seed: 1,
            sweep: String::new(),
            running: None,
            report: None,
            error: None,
            elapsed: 0.0,
            cancelled: false,
            suggesting: None,
            suggestions: None,
            suggest_error: None,
            applied: Vec::new(),
            stale: Vec::new(),
            remeasure: None,
            goals: Default::default(),
            report_text: None,
            suggest_text: None,
            applied_text: None,
            report_current: true,
            suggest_current: true,
            sweep_hint: "c.hp=6..14".into(),
            goal_turns: 30.0,
            comparison: None,
            comparing: None,
        }
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn rate_text(lang: Lang, r: &Rate) -> String {
    match (r.low, r.high) {
        (Some(lo), Some(hi)) => format!("{}  ({}–{})", pct(r.value), pct(lo), pct(hi)),
        _ => format!("{}  ({})", pct(r.value), tr(lang, T::OneGameRepeated)),
    }
}

/// The header's sample line with how many of the games differed (`one_game`: each seating
/// played one game over and over).
fn sampled_distinct(lang: Lang, n: u64, distinct: u64, one_game: bool) -> String {
    if one_game {
        trf(lang, T::SampledAllTheSame, n)
    } else {
        trn(lang, T::SampledGamesDistinct, &[&n, &distinct])
    }
}

/// Games behind the outcome, length and tension: N per seating.
fn outcome_games(r: &Report) -> u64 {
    r.games * if r.simultaneous { 1 } else { 2 }
}

fn sampled(lang: Lang, n: u64) -> String {
    trf(lang, T::SampledGames, n)
}

impl ReportView {
    /// True while a report runs.
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// The report options of the tab's settings for `prog` (its sweep checked on it).
    fn options(
        &self,
        source: &str,
        prog: &RuleProgram,
        lang: Lang,
    ) -> Result<ReportOptions, String> {
        let sweep = if self.sweep.trim().is_empty() {
            None
        } else {
            match Sweep::parse(&self.sweep, prog)
                .and_then(|s| s.apply(prog, source, s.values[0]).map(|_| s))
            {
                Ok(s) => Some(s),
                Err(e) => {
                    return Err(e
                        .to_string()
                        .replace("--sweep ", &format!("{} ", tr(lang, T::Sweep))));
                }
            }
        };
        // Every core plays games, as `kumite report` does: the window needs little of one (a
        // frame in about a millisecond, ten a second while a report runs) and the system gives
        // it its share when it wakes. (Leaving it a core of its own made a report on a 2-core
        // machine take twice as long as on the command line.)
        Ok(ReportOptions {
            games: self.games.max(1),
            seed: self.seed,
            sweep,
            ..Default::default()
        })
    }

    /// Starts a report of the editor's program, or (with `other`) a comparison of it with
    /// another version: both reported with the same options, one after the other.
    pub fn start_with(
        &mut self,
        ctx: &egui::Context,
        source: &str,
        file: &str,
        prog: &RuleProgram,
        other: Option<Other>,
        lang: Lang,
    ) {
        self.cancel();
        self.cancelled = false;
        self.error = None;
        self.report_text = Some(source.to_string());
        let opts = match self.options(source, prog, lang) {
            Ok(o) => o,
            Err(e) => {
                self.error = Some(e);
                return;
            }
        };
        let other = match other {
            Some(o) => match self.options(&o.source, &o.prog, lang) {
                Ok(opts) => Some((o, opts)),
                Err(e) => {
                    self.error = Some(format!("{}: {e}", o.name));
                    return;
                }
            },
            None => None,
        };
        let progress = Progress::new();
        let second = other.as_ref().map(|_| Progress::new());
        self.comparing = other
            .as_ref()
            .map(|(o, _)| (file.to_string(), o.name.clone()));
        let (p, p2, src, name, prog) = (
            progress.clone(),
            second.clone(),
            source.to_string(),
            file.to_string(),
            prog.clone(),
        );
        let spawned = Job::spawn("kumite-report", Some(ctx.clone()), move |h| {
            let r = crate::report::run(&src, &name, &prog, &opts, &p, |r| h.progress(r.clone()));
            match (other, p2) {
                (Some((o, opts)), Some(p2)) => {
                    let both = r.and_then(|a| {
                        crate::report::run(&o.source, &o.name, &o.prog, &opts, &p2, |_| h.repaint())
                            .map(|b| Box::new(Comparison::new(a, b)))
                    });
                    Ended::Compared(both.map_err(|e| e.to_string()))
                }
                _ => Ended::Report(r.map(Box::new).map_err(|e| e.to_string())),
            }
        });
        let job = match spawned {
            Ok(job) => job,
            Err(e) => {
                self.error = Some(trf(lang, T::ReportCannotStart, e));
                return;
            }
        };
        self.report = None;
        self.comparison = None;
        self.running = Some(Running {
            progress,
            second,
            job,
        });
    }

    /// True while a suggestion search runs.
    pub fn suggesting(&self) -> bool {
        self.suggesting.is_some()
    }

    /// The goals of Suggest fixes, as `kumite suggest`'s options set them.
    fn goals_ui(&mut self, ui: &mut Ui, lang: Lang) {
        let g = &mut self.goals;
        let kept_turns = &mut self.goal_turns;
        egui::Grid::new("suggest-goals")
            .num_columns(2)
            .show(ui, |ui| {
                // In points, as the report gives balance (± 0.05 of a game value is ± 5 points).
                let l = ui.label(tr(lang, T::GoalEven));
                let mut points = g.max_abs_value * 100.0;
                if ui
                    .add(
                        egui::DragValue::new(&mut points)
                            .range(0.0..=100.0)
                            .speed(0.5)
                            .max_decimals(1)
                            .suffix(tr(lang, T::PointsSuffix)),
                    )
                    .labelled_by(l.id)
                    .on_hover_text(tr(lang, T::GoalEvenHover))
                    .changed()
                {
                    g.max_abs_value = points / 100.0;
                }
                ui.end_row();
                let l = ui.label(tr(lang, T::GoalDraws));
                let mut pct = g.max_draws * 100.0;
                if ui
                    .add(egui::DragValue::new(&mut pct).range(0.0..=100.0).speed(1.0))
                    .labelled_by(l.id)
                    .changed()
                {
                    g.max_draws = pct / 100.0;
                }
                ui.end_row();
                let mut limit = g.max_turns.is_some();
                let l = ui.checkbox(&mut limit, tr(lang, T::GoalTurns));
                // Unticked, the number stays as it was set, for ticking again.
                let mut turns = g.max_turns.unwrap_or(*kept_turns);
                ui.add_enabled(
                    limit,
                    egui::DragValue::new(&mut turns)
                        .range(1.0..=100_000.0)
                        .speed(0.5),
                )
                .labelled_by(l.id);
                *kept_turns = turns;
                g.max_turns = limit.then_some(turns);
                ui.end_row();
            });
        ui.checkbox(&mut g.every_command, tr(lang, T::GoalEveryCommand));
        ui.checkbox(&mut g.skill_matters, tr(lang, T::GoalSkill));
    }

    /// Starts `kumite suggest` on `source` on a background thread.
    pub fn start_suggest(&mut self, ctx: &egui::Context, source: &str) {
        self.cancel_suggest();
        self.suggest_text = Some(source.to_string());
        self.applied_text = None;
        self.suggest_error = None;
        self.suggestions = None;
        self.applied.clear();
        self.stale.clear();
        self.remeasure = None;
        let progress = Progress::new();
        let opts = SuggestOptions {
            progress: progress.clone(),
            goals: self.goals,
            ..Default::default()
        };
        let src = source.to_string();
        let spawned = Job::spawn("kumite-suggest", Some(ctx.clone()), move |_| {
            crate::report::suggest::suggest(&src, &opts).map_err(|e| e.to_string())
        });
        match spawned {
            Ok(job) => self.suggesting = Some(SuggestRunning { progress, job }),
            Err(e) => self.suggest_error = Some(e.to_string()),
        }
    }

    /// Stops a suggestion search (it ends at its next edited file, reporting what it found).
    pub fn cancel_suggest(&mut self) {
        if let Some(r) = &self.suggesting {
            r.progress.cancel();
        }
    }

    /// Marks suggestion `k` applied to `text` (or no longer fitting the text).
    pub fn mark(&mut self, k: usize, applied: bool, text: &str) {
        if applied {
            self.applied.push(k);
            self.applied_text = Some(text.to_string());
        } else {
            self.stale.push(k);
        }
    }

    /// The sweep field's example (from the file's own states).
    pub fn sweep_hint(&self) -> &str {
        &self.sweep_hint
    }

    /// Follows the editor's text (each frame): the report and the suggestions say when the
    /// text is no longer theirs, and an applied suggestion that was undone (or replaced by a
    /// reload) is no longer shown as applied, with its before/after gone. `prog`, when the text
    /// compiled, gives the sweep field its example.
    pub fn follow_text(&mut self, text: &str, prog: Option<&RuleProgram>) {
        self.report_current = self.report_text.as_deref().is_none_or(|t| t == text);
        self.suggest_current = self.suggest_text.as_deref().is_none_or(|t| t == text)
            || self.applied_text.as_deref() == Some(text);
        if !self.applied.is_empty() && self.applied_text.as_deref() != Some(text) {
            self.applied.clear();
            self.remeasure = None;
            self.applied_text = None;
            // Back on the text they were found on, the suggestions fit again.
            if self.suggest_text.as_deref() == Some(text) {
                self.stale.clear();
            }
        }
        if let Some(p) = prog {
            self.sweep_hint = sweep_example(p);
        }
    }

    /// True once an applied suggestion has been measured again (or failed to be).
    pub fn remeasured(&self) -> bool {
        self.remeasure.as_ref().is_some_and(|r| r.result.is_some())
    }

    /// Measures applied suggestion `k` again on `text` (the editor's text after the edits), on a
    /// background thread: the same games (or the same solve) as its evidence.
    pub fn remeasure(&mut self, ctx: &egui::Context, k: usize, text: String) {
        let Some(sg) = self.suggestions.as_ref().and_then(|s| s.suggestions.get(k)) else {
            return;
        };
        let after = sg.after.clone();
        let spawned = Job::spawn("kumite-remeasure", Some(ctx.clone()), move |_| {
            crate::report::suggest::replay(&text, &after).map_err(|e| e.to_string())
        });
        self.remeasure = Some(match spawned {
            Ok(job) => Remeasure {
                k,
                job: Some(job),
                result: None,
            },
            Err(e) => Remeasure {
                k,
                job: None,
                result: Some(Err(e.to_string())),
            },
        });
    }

    fn poll_remeasure(&mut self) {
        if let Some(r) = &mut self.remeasure
            && let Some(job) = &r.job
        {
            match job.poll() {
                Polled::Done(v) => {
                    r.result = Some(v);
                    r.job = None;
                }
                Polled::Pending => {}
                Polled::Died => {
                    r.result = Some(Err("the measurement stopped".into()));
                    r.job = None;
                }
            }
        }
    }

    /// Before and after side by side for an applied suggestion, once measured again.
    fn remeasure_ui(
        &self,
        ui: &mut Ui,
        lang: Lang,
        k: usize,
        sg: &crate::report::suggest::Suggestion,
    ) {
        let Some(r) = self.remeasure.as_ref().filter(|r| r.k == k) else {
            return;
        };
        let ev = crate::report::suggest::evidence;
        match &r.result {
            None => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(tr(lang, T::SuggestRemeasuring));
                });
                ui.ctx().request_repaint_after(Duration::from_millis(100));
            }
            Some(Err(e)) => {
                ui.colored_label(Color32::from_rgb(230, 90, 80), e);
            }
            Some(Ok(now)) => {
                // Two columns of the panel's width (their text wraps: the panel keeps its size).
                // Each column left-aligned, not justified (a justified column stretched the
                // wrapped text's letter spacing).
                ui.columns(2, |cols| {
                    cols[0].vertical(|ui| {
                        ui.strong(tr(lang, T::SuggestBefore));
                        ui.label(ev(&sg.before));
                    });
                    cols[1].vertical(|ui| {
                        ui.strong(tr(lang, T::SuggestAfterNow));
                        ui.label(ev(now));
                    });
                });
                if *now == sg.after {
                    ui.weak(tr(lang, T::SuggestSameAsShown));
                } else {
                    ui.colored_label(
                        Color32::from_rgb(230, 170, 60),
                        tr(lang, T::SuggestDiffersFromShown),
                    );
                }
            }
        }
    }

    fn poll_suggest(&mut self) {
        let Some(run) = &self.suggesting else {
            return;
        };
        match run.job.poll() {
            Polled::Done(Ok(s)) => {
                self.suggestions = Some(s);
                self.suggesting = None;
            }
            Polled::Done(Err(e)) => {
                self.suggest_error = Some(e);
                self.suggesting = None;
            }
            Polled::Pending => {}
            Polled::Died => {
                self.suggest_error = Some("the suggestion search stopped".into());
                self.suggesting = None;
            }
        }
    }

    /// The Suggestions section: goals, the file now, each suggestion with its evidence and
    /// Apply.
    fn suggestions_ui(&self, ui: &mut Ui, lang: Lang) -> Option<ReportAction> {
        let mut action = None;
        if let Some(run) = &self.suggesting {
            let games = run.progress.done.load(Ordering::Relaxed);
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(trn(
                    lang,
                    T::SuggestProgress,
                    &[&games, &format!("{:.1}", run.job.elapsed().as_secs_f64())],
                ));
            });
            ui.ctx().request_repaint_after(Duration::from_millis(100));
        }
        if let Some(e) = &self.suggest_error {
            ui.colored_label(Color32::from_rgb(230, 90, 80), e);
        }
        let Some(s) = &self.suggestions else {
            return None;
        };
        ui.heading(tr(lang, T::Suggestions));
        for g in &s.goals {
            ui.weak(format!("• {g}"));
        }
        ui.label(trf(
            lang,
            T::SuggestNow,
            crate::report::suggest::evidence(&s.before),
        ));
        if let Some(d) = &s.before_deeper {
            deeper_ui(ui, lang, d);
        }
        if s.already_met {
            ui.label(tr(lang, T::SuggestAlreadyFair));
        } else if s.suggestions.is_empty() {
            ui.label(tr(lang, T::SuggestNoneFound));
            if !s.nearest.is_empty() {
                ui.weak(tr(lang, T::SuggestNearest));
            }
        }
        let list = if s.suggestions.is_empty() {
            &s.nearest
        } else {
            &s.suggestions
        };
        for (k, sg) in list.iter().enumerate() {
            ui.group(|ui| {
                for e in &sg.edits {
                    ui.horizontal_wrapped(|ui| {
                        ui.monospace(format!("{}:{}", e.line, e.column));
                        ui.label(RichText::new(&e.before_line).strikethrough());
                        ui.label("→");
                        ui.label(RichText::new(&e.after_line).strong());
                    });
                }
                ui.label(format!("→ {}", crate::report::suggest::evidence(&sg.after)));
                if let Some(d) = &sg.deeper {
                    deeper_ui(ui, lang, d);
                }
                if !sg.mix_changes.is_empty() {
                    ui.weak(trf(lang, T::SuggestMixChanges, sg.mix_changes.join(", ")));
                }
                if !s.suggestions.is_empty() {
                    if self.applied.contains(&k) {
                        ui.label(
                            RichText::new(tr(lang, T::SuggestApplied))
                                .color(Color32::from_rgb(90, 180, 110)),
                        );
                        self.remeasure_ui(ui, lang, k, sg);
                    } else if self.stale.contains(&k) {
                        ui.colored_label(
                            Color32::from_rgb(230, 170, 60),
                            tr(lang, T::SuggestStale),
                        );
                    } else if ui
                        .button(tr(lang, T::ApplyEdit))
                        .on_hover_text(tr(lang, T::ApplyEditHover))
                        .clicked()
                    {
                        action = Some(ReportAction::Apply(k, sg.edits.clone()));
                    }
                }
            });
        }
        ui.weak(trn(
            lang,
            T::SuggestTried,
            &[&s.sites, &s.tried, &format!("{:.1}", s.seconds)],
        ));
        if s.rejected > 0 {
            // Edits that would break the design are never offered: how many, and why (hover).
            ui.weak(trf(lang, T::SuggestRejected, s.rejected))
                .on_hover_text(s.rejected_examples.join("\n"));
        }
        if let Some(g) = &s.gave_up {
            ui.weak(trf(lang, T::SuggestGaveUp, g));
        }
        ui.separator();
        action
    }

    /// Stops a running report at once: the window stops waiting; the games in progress end
    /// and the thread winds down by itself.
    pub fn cancel(&mut self) {
        if let Some(r) = self.running.take() {
            r.progress.cancel();
            if let Some(p) = &r.second {
                p.cancel();
            }
            self.comparing = None;
            self.cancelled = true;
            self.elapsed = r.job.elapsed().as_secs_f64();
            if let Some(rep) = self.report.as_mut() {
                rep.cancelled = true;
            }
        }
    }

    /// Takes what the thread has sent.
    fn poll(&mut self, lang: Lang) {
        let Some(run) = &self.running else {
            return;
        };
        loop {
            match run.job.poll() {
                Polled::Progress(r) => self.report = Some(r),
                Polled::Done(Ended::Report(r)) => {
                    self.elapsed = run.job.elapsed().as_secs_f64();
                    match r {
                        Ok(r) => self.report = Some(*r),
                        Err(e) => self.error = Some(e),
                    }
                    self.running = None;
                    return;
                }
                Polled::Done(Ended::Compared(r)) => {
                    self.elapsed = run.job.elapsed().as_secs_f64();
                    match r {
                        Ok(c) => {
                            self.report = Some(c.a.clone());
                            self.comparison = Some(*c);
                        }
                        Err(e) => self.error = Some(e),
                    }
                    self.comparing = None;
                    self.running = None;
                    return;
                }
                Polled::Pending => return,
                Polled::Died => {
                    self.error = Some(tr(lang, T::ReportDied).into());
                    self.comparing = None;
                    self.running = None;
                    return;
                }
            }
        }
    }

    /// Draws the tab. `runnable`: a program to report on exists. Returns whether to start a
    /// report, whether to start suggesting, and an action.
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        lang: Lang,
        runnable: bool,
    ) -> (bool, bool, Option<ReportAction>) {
        self.poll(lang);
        self.poll_suggest();
        self.poll_remeasure();
        let mut start = false;
        let mut suggest = false;
        let mut action = None;
        ui.horizontal_wrapped(|ui| {
            let l = ui.label(tr(lang, T::Games));
            ui.add(egui::DragValue::new(&mut self.games).range(2..=100_000))
                .labelled_by(l.id)
                .on_hover_text(tr(lang, T::CPUGamesPerSeating));
            let l = ui.label(tr(lang, T::SeedLabel));
            ui.add(egui::DragValue::new(&mut self.seed))
                .labelled_by(l.id);
            let l = ui.label(tr(lang, T::Sweep));
            ui.add(
                egui::TextEdit::singleline(&mut self.sweep)
                    .hint_text(self.sweep_hint.as_str())
                    .desired_width(130.0),
            )
            .labelled_by(l.id);
            if self.busy() {
                if ui
                    .button(tr(lang, T::Cancel))
                    .on_hover_text("Esc")
                    .clicked()
                {
                    self.cancel();
                }
            } else if ui
                .add_enabled(runnable, egui::Button::new(tr(lang, T::RunReport)))
                .clicked()
            {
                start = true;
            }
            if !self.busy() {
                let (menu, _) = egui::containers::menu::MenuButton::new(tr(lang, T::CompareWith))
                    .ui(ui, |ui| {
                        if ui
                            .add_enabled(runnable, egui::Button::new(tr(lang, T::CompareSaved)))
                            .clicked()
                        {
                            action = Some(ReportAction::CompareSaved);
                        }
                        if ui
                            .add_enabled(runnable, egui::Button::new(tr(lang, T::CompareFile)))
                            .clicked()
                        {
                            action = Some(ReportAction::CompareFile);
                        }
                    });
                menu.on_hover_text(tr(lang, T::CompareHover));
            }
            if self.suggesting() {
                if ui.button(tr(lang, T::Cancel)).clicked() {
                    self.cancel_suggest();
                }
            } else if ui
                .add_enabled(runnable, egui::Button::new(tr(lang, T::SuggestFixes)))
                .on_hover_text(tr(lang, T::SuggestFixesHover))
                .clicked()
            {
                suggest = true;
            }
            // A small form: it stays open while its fields are set (a click outside closes it).
            let (goals, _) = egui::containers::menu::MenuButton::new(tr(lang, T::SuggestGoals))
                .config(
                    egui::containers::menu::MenuConfig::new()
                        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside),
                )
                .ui(ui, |ui| self.goals_ui(ui, lang));
            goals.on_hover_text(tr(lang, T::SuggestGoalsHover));
        });
        if self.suggestions.is_some() && !self.suggest_current {
            ui.colored_label(
                Color32::from_rgb(230, 170, 60),
                tr(lang, T::SuggestionsOutdated),
            );
        }
        if let Some(a) = self.suggestions_ui(ui, lang) {
            action = Some(a);
        }
        if let Some(run) = &self.running {
            // A comparison: the first report's games, then the second's.
            let p = match &run.second {
                Some(p2) if p2.total.load(Ordering::Relaxed) > 0 => p2,
                _ => &run.progress,
            };
            if let Some((a, b)) = &self.comparing {
                let which = if std::ptr::eq(p, &run.progress) {
                    "A"
                } else {
                    "B"
                };
                ui.label(format!(
                    "{which} — {}",
                    trn(lang, T::CompareRunning, &[a, b])
                ));
            }
            let done = p.done.load(Ordering::Relaxed);
            let total = p.total.load(Ordering::Relaxed).max(1);
            let secs = run.job.elapsed().as_secs_f64();
            ui.add(egui::ProgressBar::new(done as f32 / total as f32).text(trn(
                lang,
                T::GamesProgress,
                &[&done, &total, &format!("{secs:.1}")],
            )));
            ui.ctx().request_repaint_after(Duration::from_millis(100));
        }
        if let Some(e) = &self.error {
            ui.colored_label(Color32::from_rgb(230, 90, 80), e);
        }
        ui.separator();
        if self.cancelled {
            ui.colored_label(
                Color32::from_rgb(230, 170, 60),
                tr(lang, T::CancelledTheSectionsComputed),
            );
        }
        let Some(r) = self.report.clone() else {
            if !self.busy() && self.error.is_none() {
                ui.weak(tr(lang, T::RunAReportTo));
            }
            return (start, suggest, action);
        };
        if !self.report_current {
            ui.colored_label(Color32::from_rgb(230, 170, 60), tr(lang, T::ReportOutdated));
        }
        if !self.busy() && !self.cancelled && !r.cancelled {
            ui.weak(trf(
                lang,
                T::DoneIn,
                format!("{:.1}", self.elapsed.max(r.seconds)),
            ));
        }
        // Both ways, so nothing can widen the panel (and squeeze the editor); the text wraps at
        // the panel's visible width (inside a horizontal scroll it saw no edge and ran past it).
        let visible = ui.available_width().max(360.0);
        egui::ScrollArea::both()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.set_max_width(visible);
                if let Some(c) = &self.comparison {
                    comparison(ui, lang, c);
                    ui.separator();
                }
                problems(ui, lang, &r.problems);
                outcome(ui, lang, &r);
                length(ui, lang, &r);
                decisions(ui, lang, &r);
                if let Some(l) = rules(ui, lang, &r) {
                    action = Some(ReportAction::ShowLine(l));
                }
                restricted(ui, lang, &r);
                skill(ui, lang, &r);
                tension(ui, lang, &r);
                sweep(ui, lang, &r);
            });
        (start, suggest, action)
    }
}

/// A sweep example from the file's own states: the first numeric state with c's start value
/// and a range around it (`c.体力=6..14`).
fn sweep_example(p: &RuleProgram) -> String {
    let vals = &p.init_values[crate::side::C.index()];
    let pick = (2..p.states.len().min(vals.len()))
        .find(|&i| vals[i] > 1)
        .or_else(|| (2..p.states.len()).next());
    match pick {
        Some(i) => {
            let v = vals.get(i).copied().unwrap_or(0);
            let d = (v.abs() / 2).max(2);
            format!(
                "c.{}={}..{}",
                p.states[i],
                v.saturating_sub(d).max(0),
                v.saturating_add(d)
            )
        }
        None => "c.x=0..4".into(),
    }
}

/// Each fixed column's width: its widest text (header or cell) and a gap.
fn widths<const N: usize>(ui: &Ui, heads: &[&str; N], cols: &[[String; N]]) -> [f32; N] {
    let gap = ui.spacing().item_spacing.x * 2.0;
    let body = egui::TextStyle::Body.resolve(ui.style());
    let measure = |t: &str| {
        ui.painter()
            .layout_no_wrap(t.to_owned(), body.clone(), Color32::WHITE)
            .size()
            .x
    };
    std::array::from_fn(|c| {
        cols.iter()
            .map(|r| measure(&r[c]))
            .fold(measure(heads[c]), f32::max)
            + gap
    })
}

/// A table row that fits the panel: the fixed columns at their widths, then the last cell
/// wrapped in what is left (a Grid's cells never wrap, and a long rule or note ran past the
/// panel's edge), or on a line of its own under the row when less is left than it needs
/// (`needs`: its width unwrapped, up to 200 points); `stripe` shades the row as a striped grid.
fn fitted_row<const N: usize>(
    ui: &mut Ui,
    stripe: bool,
    widths: &[f32; N],
    needs: f32,
    mut cell: impl FnMut(&mut Ui, usize),
    last: impl FnOnce(&mut Ui),
) {
    let bg = ui.painter().add(egui::Shape::Noop);
    let spacing = ui.spacing().item_spacing.x;
    let fixed: f32 = widths.iter().map(|w| w + spacing).sum();
    let beside = ui.available_width() - fixed >= needs.min(200.0);
    let mut fixed_cells = |ui: &mut Ui| {
        for (c, &w) in widths.iter().enumerate() {
            ui.allocate_ui_with_layout(
                Vec2::new(w, 0.0),
                egui::Layout::left_to_right(egui::Align::Min),
                |ui| {
                    ui.set_min_width(w);
                    cell(ui, c);
                },
            );
        }
    };
    let row = if beside {
        ui.horizontal_top(|ui| {
            fixed_cells(ui);
            last(ui);
        })
    } else {
        ui.vertical(|ui| {
            ui.horizontal_top(|ui| fixed_cells(ui));
            ui.indent("under", last);
        })
    };
    if stripe {
        let rect = row.response.rect.expand2(Vec2::new(2.0, 1.0));
        let fill = ui.visuals().faint_bg_color;
        ui.painter()
            .set(bg, egui::Shape::rect_filled(rect, 2.0, fill));
    }
}

/// The headings of a table of [`fitted_row`]s: `heads` over the fixed columns, `last` over
/// the wrapped one.
fn heading_row<const N: usize>(ui: &mut Ui, widths: &[f32; N], heads: &[&str; N], last: &str) {
    fitted_row(
        ui,
        false,
        widths,
        0.0,
        |ui, c| {
            ui.strong(heads[c]);
        },
        |ui| {
            if !last.is_empty() {
                ui.strong(last);
            }
        },
    );
}

/// How wide `text` is drawn unwrapped in the body font (monospace if asked).
fn text_width(ui: &Ui, text: &str, monospace: bool) -> f32 {
    let style = if monospace {
        egui::TextStyle::Monospace
    } else {
        egui::TextStyle::Body
    };
    ui.painter()
        .layout_no_wrap(text.to_owned(), style.resolve(ui.style()), Color32::WHITE)
        .size()
        .x
}

fn header(ui: &mut Ui, title: &str, label: &str, add: impl FnOnce(&mut Ui)) {
    egui::CollapsingHeader::new(RichText::new(title).strong())
        .id_salt(title)
        .default_open(true)
        .show(ui, |ui| {
            ui.label(RichText::new(label).small().weak());
            add(ui);
        });
}

fn pending(ui: &mut Ui, lang: Lang, title: &str) {
    ui.horizontal(|ui| {
        ui.label(RichText::new(title).strong().weak());
        ui.weak(tr(lang, T::NotComputedYet));
    });
}

/// Rule errors and forfeits lead, before any figure they may have decided.
fn problems(ui: &mut Ui, lang: Lang, p: &crate::report::GameProblems) {
    let red = Color32::from_rgb(235, 90, 80);
    if p.rule_error_games > 0 {
        let first = p.first_rule_error.as_deref().unwrap_or("?");
        ui.colored_label(
            red,
            trn(
                lang,
                T::ReportRuleErrors,
                &[&p.rule_error_games, &p.games, &first],
            ),
        );
    }
    if p.forfeit_games > 0 {
        let first = p.first_forfeit.as_deref().unwrap_or("?");
        ui.colored_label(
            red,
            trn(
                lang,
                T::ReportForfeits,
                &[&p.forfeit_games, &p.games, &first],
            ),
        );
    }
}

fn outcome(ui: &mut Ui, lang: Lang, r: &Report) {
    let title = tr(lang, T::Outcome);
    let Some(o) = &r.outcome else {
        return pending(ui, lang, title);
    };
    let n = outcome_games(r);
    header(
        ui,
        title,
        &sampled_distinct(lang, n, o.distinct_games, o.one_game_per_seating),
        |ui| {
            egui::Grid::new("rep-outcome").striped(true).show(ui, |ui| {
                ui.label("");
                for h in [
                    tr(lang, T::ColHWins),
                    tr(lang, T::ColCWins),
                    tr(lang, T::Draws),
                    tr(lang, T::TurnLimit),
                    tr(lang, T::Errors),
                ] {
                    ui.strong(h);
                }
                ui.end_row();
                let row = |ui: &mut Ui, name: &str, x: &crate::report::Outcomes| {
                    ui.label(name);
                    for v in [x.h_wins, x.c_wins, x.draws, x.timeouts, x.errors] {
                        ui.label(v.to_string());
                    }
                    ui.end_row();
                };
                if r.simultaneous {
                    row(ui, tr(lang, T::AllGames), &o.h_first);
                } else {
                    row(ui, tr(lang, T::HFirst), &o.h_first);
                    if let Some(c) = &o.c_first {
                        row(ui, tr(lang, T::CFirst), c);
                    }
                }
            });
            match &o.h_score {
                Some(h) => {
                    ui.label(format!("{} {}", tr(lang, T::HSScoreA), rate_text(lang, h)));
                }
                None => {
                    ui.colored_label(
                        Color32::from_rgb(235, 90, 80),
                        trn(lang, T::ScoreNotComputed, &[&o.errors, &o.games]),
                    );
                }
            }
            if let Some(f) = &o.first_mover_advantage {
                let (lo, hi) = (f.low.unwrap_or(f.value), f.high.unwrap_or(f.value));
                let strong = lo > 0.05 || hi < -0.05;
                let range = match (f.low, f.high) {
                    (Some(lo), Some(hi)) => format!("({:+.1} … {:+.1})", 100.0 * lo, 100.0 * hi),
                    _ => format!("({})", tr(lang, T::OneGameRepeated)),
                };
                let text = format!(
                    "{} {:+.1} {} {range}",
                    tr(lang, T::FirstMoverAdvantage),
                    100.0 * f.value,
                    tr(lang, T::Points),
                );
                if strong {
                    ui.colored_label(Color32::from_rgb(230, 170, 60), text);
                } else {
                    ui.label(text);
                }
            }
            if let Some(d) = &o.depth_check
                && let Some(deep) = d
                    .first_mover_advantage
                    .or_else(|| d.h_score.map(|h| h.shifted(-0.5)))
            {
                let label = if d.first_mover_advantage.is_some() {
                    T::DeeperCpusFirstMover
                } else {
                    T::DeeperCpusHScore
                };
                let range = match (deep.low, deep.high) {
                    (Some(lo), Some(hi)) => format!(
                        "{:+.1} ({:+.1} … {:+.1})",
                        100.0 * deep.value,
                        100.0 * lo,
                        100.0 * hi
                    ),
                    _ => format!("{:+.1}", 100.0 * deep.value),
                };
                let text = trn(lang, label, &[&d.plies, &range, &d.games]);
                let warn = Color32::from_rgb(230, 170, 60);
                match d.agrees {
                    Some(true) => {
                        ui.label(format!("{text} — {}", tr(lang, T::DepthAgrees)));
                    }
                    Some(false) => {
                        ui.colored_label(warn, format!("{text} — {}", tr(lang, T::DepthDisagrees)));
                    }
                    None => {
                        ui.colored_label(warn, format!("{text} — {}", tr(lang, T::DepthUnclear)));
                    }
                }
            }
            if let Some(e) = &o.exact {
                ui.horizontal_wrapped(|ui| {
                    ui.strong(tr(lang, T::Exact));
                    use crate::report::ExactKind;
                    let verdict = match (e.kind, e.winner, e.value) {
                        (ExactKind::ForcedWin, Some(w), _) => {
                            trf(lang, T::ForcedWinFor, w.as_str())
                        }
                        (ExactKind::Value, _, Some(v)) => {
                            trf(lang, T::GameValueOf, format!("{v:+.4}"))
                        }
                        // The same words as the command line: a proof of no forced win is not
                        // "not decided"; a search that gave up is.
                        (ExactKind::None, _, _) => tr(lang, T::NoForcedWinProved).to_string(),
                        _ => tr(lang, T::NotDecided).to_string(),
                    };
                    ui.label(RichText::new(verdict).strong());
                });
                ui.label(RichText::new(&e.detail).small().weak());
            }
        },
    );
}

fn length(ui: &mut Ui, lang: Lang, r: &Report) {
    let title = tr(lang, T::Length);
    let Some(l) = &r.length else {
        return pending(ui, lang, title);
    };
    header(ui, title, &sampled(lang, outcome_games(r)), |ui| {
        ui.label(trn(
            lang,
            T::LengthSummary,
            &[&format!("{:.1}", l.mean), &l.median, &l.p90],
        ));
        let bars: Vec<Bar> = l
            .histogram
            .iter()
            .map(|&[t, n]| Bar::new(t as f64, n as f64).width(0.9))
            .collect();
        Plot::new("rep-length")
            .height(110.0)
            .allow_scroll(false)
            .allow_zoom(false)
            .allow_drag(false)
            .x_axis_label(tr(lang, T::Turns))
            .y_axis_label(tr(lang, T::ColGames))
            .show(ui, |p| {
                p.bar_chart(
                    BarChart::new(tr(lang, T::ColGames), bars)
                        .color(Color32::from_rgb(90, 150, 230)),
                );
            });
    });
}

fn decisions(ui: &mut Ui, lang: Lang, r: &Report) {
    let title = tr(lang, T::Decisions);
    let Some(d) = &r.decisions else {
        return pending(ui, lang, title);
    };
    header(ui, title, &sampled(lang, r.sample_games), |ui| {
        ui.label(trn(
            lang,
            T::BranchingSummary,
            &[&format!("{:.2}", d.branching_mean), &pct(d.choice_share)],
        ));
        ui.label(RichText::new(tr(lang, T::CommandUseShareOf)).small());
        let names: Vec<String> = d.command_use.h.keys().cloned().collect();
        let mut charts = Vec::new();
        let series = [
            (
                tr(lang, T::HRandom),
                &d.command_use.h,
                -0.3,
                Color32::from_rgb(120, 160, 220),
            ),
            (
                tr(lang, T::CRandom),
                &d.command_use.c,
                -0.1,
                Color32::from_rgb(220, 140, 120),
            ),
            (
                tr(lang, T::HCPU),
                &d.cpu_command_use.h,
                0.1,
                Color32::from_rgb(50, 110, 210),
            ),
            (
                tr(lang, T::CCPU),
                &d.cpu_command_use.c,
                0.3,
                Color32::from_rgb(210, 80, 60),
            ),
        ];
        // The legend on a row of its own above the chart: inside it covered the bars.
        ui.horizontal_wrapped(|ui| {
            for (name, _, _, color) in &series {
                let (r, _) = ui.allocate_exact_size(Vec2::splat(10.0), egui::Sense::hover());
                ui.painter().rect_filled(r, 2.0, *color);
                ui.label(RichText::new(*name).small());
                ui.add_space(6.0);
            }
        });
        for (name, m, off, color) in series {
            let bars: Vec<Bar> = names
                .iter()
                .enumerate()
                .map(|(k, c)| {
                    Bar::new(
                        k as f64 + off,
                        m.get(c).and_then(|v| v.as_f64()).unwrap_or(0.0),
                    )
                    .width(0.18)
                    .name(c)
                })
                .collect();
            charts.push(BarChart::new(name, bars).color(color));
        }
        let top = [&d.command_use, &d.cpu_command_use]
            .iter()
            .flat_map(|u| u.h.values().chain(u.c.values()))
            .filter_map(|v| v.as_f64())
            .fold(0.0f64, f64::max);
        let labels = names.clone();
        Plot::new("rep-use")
            .height(140.0)
            .allow_scroll(false)
            .allow_zoom(false)
            .allow_drag(false)
            .include_y(0.0)
            .include_y(top * 1.1)
            // A mark at every command (the automatic marks skipped most of their names).
            .x_grid_spacer(egui_plot::uniform_grid_spacer(|_| [1.0, 1.0, 1.0]))
            .x_axis_formatter(move |m, _| {
                let k = m.value.round();
                if (m.value - k).abs() < 1e-6 && k >= 0.0 {
                    labels.get(k as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .show(ui, |p| {
                for c in charts {
                    p.bar_chart(c);
                }
            });
    });
}

fn rules(ui: &mut Ui, lang: Lang, r: &Report) -> Option<usize> {
    let title = tr(lang, T::TabRules);
    let Some(rules) = &r.rules else {
        pending(ui, lang, title);
        return None;
    };
    let mut clicked = None;
    header(ui, title, &sampled(lang, r.sample_games), |ui| {
        let dead = rules.iter().filter(|l| l.dead.is_some()).count();
        if dead > 0 {
            ui.colored_label(
                Color32::from_rgb(230, 170, 60),
                trf(lang, T::LinesNeverFired, dead),
            );
        }
        let heads = [tr(lang, T::Line), tr(lang, T::ColGames), tr(lang, T::Times)];
        let cols: Vec<[String; 3]> = rules
            .iter()
            .map(|l| {
                [
                    format!("L{}", l.line),
                    l.games_fired.to_string(),
                    l.fires.to_string(),
                ]
            })
            .collect();
        let w = widths(ui, &heads, &cols);
        heading_row(ui, &w, &heads, tr(lang, T::Rule));
        for (i, l) in rules.iter().enumerate() {
            let needs = text_width(ui, &l.text, true);
            fitted_row(
                ui,
                i % 2 == 0,
                &w,
                needs,
                |ui, c| {
                    if c == 0 {
                        if ui.link(&cols[i][0]).clicked() {
                            clicked = Some(l.line);
                        }
                    } else {
                        ui.label(&cols[i][c]);
                    }
                },
                |ui| {
                    ui.horizontal_wrapped(|ui| {
                        ui.add(egui::Label::new(RichText::new(&l.text).monospace()).wrap());
                        match l.dead {
                            Some("cannot_fire") => {
                                ui.colored_label(
                                    Color32::from_rgb(230, 90, 80),
                                    tr(lang, T::CannotFire),
                                )
                                .on_hover_text(
                                    if l.proof == Some("exhaustive") {
                                        tr(lang, T::ProvedItFiresIn)
                                    } else {
                                        tr(lang, T::ProvedNoValueThe)
                                    },
                                );
                            }
                            Some(_) => {
                                ui.colored_label(
                                    Color32::from_rgb(230, 170, 60),
                                    tr(lang, T::NeverFired),
                                );
                            }
                            None => {}
                        }
                    });
                },
            );
        }
    });
    clicked
}

fn restricted(ui: &mut Ui, lang: Lang, r: &Report) {
    let title = tr(lang, T::RestrictedPlay);
    let Some(rs) = &r.restricted else {
        return pending(ui, lang, title);
    };
    let n = r.restricted_games * if r.simultaneous { 1 } else { 2 };
    header(ui, title, &sampled(lang, n), |ui| {
        ui.add(egui::Label::new(RichText::new(tr(lang, T::TheSideSScore)).small()).wrap());
        let heads = [
            tr(lang, T::Side),
            tr(lang, T::Without),
            tr(lang, T::Score),
            tr(lang, T::Change),
        ];
        let cols: Vec<[String; 4]> = rs
            .iter()
            .map(|x| {
                [
                    x.side.name().to_string(),
                    x.command.clone(),
                    pct(x.win_rate),
                    match (x.delta_low, x.delta_high) {
                        (Some(lo), Some(hi)) => format!(
                            "{:+.1} ({:+.1} … {:+.1})",
                            100.0 * x.delta,
                            100.0 * lo,
                            100.0 * hi
                        ),
                        _ => format!("{:+.1} ({})", 100.0 * x.delta, tr(lang, T::OneGameRepeated)),
                    },
                ]
            })
            .collect();
        let w = widths(ui, &heads, &cols);
        heading_row(ui, &w, &heads, "");
        for (i, x) in rs.iter().enumerate() {
            let verdict = match x.verdict {
                Some("no_effect") => (
                    Color32::from_rgb(150, 150, 150),
                    tr(lang, T::NoEffect).to_string(),
                ),
                Some("no_net_effect") => (
                    Color32::from_rgb(150, 150, 150),
                    trf(lang, T::NoNetEffect, x.games_changed),
                ),
                // Banning it helps the side: a trap it falls into, not a loss.
                Some("decisive") if x.delta > 0.0 => (
                    Color32::from_rgb(120, 160, 230),
                    trn(
                        lang,
                        T::TrapCommand,
                        &[
                            &x.command,
                            &x.side.name(),
                            &format!("{:.1}", 100.0 * x.delta),
                        ],
                    ),
                ),
                Some("decisive") => (
                    Color32::from_rgb(230, 170, 60),
                    tr(lang, T::Decisive).to_string(),
                ),
                _ => (Color32::TRANSPARENT, String::new()),
            };
            let needs = text_width(ui, &verdict.1, false);
            fitted_row(
                ui,
                i % 2 == 0,
                &w,
                needs,
                |ui, c| {
                    ui.label(&cols[i][c]);
                },
                |ui| {
                    if !verdict.1.is_empty() {
                        let (colour, text) = verdict;
                        ui.add(egui::Label::new(RichText::new(text).color(colour)).wrap());
                    }
                },
            );
        }
    });
}

fn skill(ui: &mut Ui, lang: Lang, r: &Report) {
    let title = tr(lang, T::Skill);
    let Some(sk) = &r.skill else {
        return pending(ui, lang, title);
    };
    let games = trn(
        lang,
        T::SkillGamesHeader,
        &[&r.skill_games, &r.skill_key_games],
    );
    let games = if sk.iter().any(|p| p.games < p.planned_games) {
        format!("{games} {}", tr(lang, T::SkillAtMost))
    } else {
        games
    };
    header(ui, title, &games, |ui| {
        let warn = Color32::from_rgb(230, 170, 60);
        match r.skill_verdict {
            Some(SkillVerdict::SkillMatters) => ui.label(tr(lang, T::SkillMattersRandomLoses)),
            Some(SkillVerdict::NoDifference) => {
                ui.colored_label(warn, tr(lang, T::NoEvidenceThatSkill))
            }
            Some(SkillVerdict::RandomBetter) => {
                ui.colored_label(warn, tr(lang, T::RandomBeatsDeepest))
            }
            Some(SkillVerdict::TooFewGames) | None => {
                ui.colored_label(warn, tr(lang, T::SkillTooFewGames))
            }
        };
        let cols: Vec<[String; 2]> = sk
            .iter()
            .map(|p| {
                [
                    format!("{} vs {}", p.a, p.b),
                    rate_text(
                        lang,
                        &Rate {
                            value: p.a_win_rate,
                            low: p.low,
                            high: p.high,
                        },
                    ),
                ]
            })
            .collect();
        let w = widths(ui, &["", ""], &cols);
        for (i, p) in sk.iter().enumerate() {
            let mut how = sampled_distinct(lang, p.games, p.distinct_games, p.low.is_none());
            // Fewer games than the header says: say why, on the row (not only on hover).
            if p.games < p.planned_games {
                how = format!(
                    "{how} · {}",
                    trn(lang, T::SkillStoppedEarly, &[&p.games, &p.planned_games])
                );
            }
            let needs = text_width(ui, &how, false);
            fitted_row(
                ui,
                i % 2 == 0,
                &w,
                needs,
                |ui, c| {
                    ui.label(&cols[i][c]);
                },
                |ui| {
                    ui.add(egui::Label::new(RichText::new(how).weak()).wrap());
                },
            );
        }
    });
}

fn tension(ui: &mut Ui, lang: Lang, r: &Report) {
    let title = tr(lang, T::Tension);
    let Some(t) = &r.tension else {
        return pending(ui, lang, title);
    };
    header(ui, title, &sampled(lang, outcome_games(r)), |ui| {
        ui.label(trn(
            lang,
            T::TensionSummary,
            &[
                &format!("{:.2}", t.lead_changes),
                &format!("{:.1}", t.drama),
                &format!("{:.2}", t.decisiveness),
            ],
        ));
    });
}

fn sweep(ui: &mut Ui, lang: Lang, r: &Report) {
    let Some(sw) = &r.sweep else {
        return;
    };
    let title = format!("{} {}", tr(lang, T::Sweep), sw.name);
    header(ui, &title, &sampled(lang, r.games), |ui| {
        let fair: Vec<String> = sw.fair.iter().map(|v| v.to_string()).collect();
        ui.label(format!(
            "{} {}",
            tr(lang, T::FairIntervalContains50),
            if fair.is_empty() {
                tr(lang, T::None).to_string()
            } else {
                fair.join(", ")
            }
        ));
        // Points where rule errors decide have no score to draw (the table names them).
        let scored: Vec<(&crate::report::SweepPoint, f64)> = sw
            .points
            .iter()
            .filter_map(|p| p.h_win_rate.map(|r| (p, r)))
            .collect();
        let xs: Vec<f64> = scored.iter().map(|(p, _)| p.value as f64).collect();
        let lo: Vec<f64> = scored.iter().map(|(p, r)| p.low.unwrap_or(*r)).collect();
        let hi: Vec<f64> = scored.iter().map(|(p, r)| p.high.unwrap_or(*r)).collect();
        let pts: Vec<[f64; 2]> = scored.iter().map(|(p, r)| [p.value as f64, *r]).collect();
        Plot::new("rep-sweep")
            .height(160.0)
            .allow_scroll(false)
            .allow_zoom(false)
            .allow_drag(false)
            .include_y(0.0)
            .include_y(1.0)
            .x_axis_label(sw.name.clone())
            .y_axis_label(tr(lang, T::HSScore))
            .show(ui, |p| {
                p.add(
                    FilledArea::new(tr(lang, T::N95Interval), &xs, &lo, &hi)
                        .fill_color(Color32::from_rgba_unmultiplied(90, 150, 230, 60)),
                );
                p.line(Line::new(tr(lang, T::HSScore), pts.clone()));
                p.points(Points::new("", pts).radius(3.0));
                p.hline(HLine::new("50%", 0.5).color(Color32::from_rgb(230, 170, 60)));
            });
    });
}

/// The report's depth check beside a suggest verdict: the deeper CPUs' figures, orange where
/// they disagree (the verdict then depends on how deep the CPU looks).
fn deeper_ui(ui: &mut Ui, lang: Lang, d: &crate::report::suggest::DeeperCheck) {
    let figures = crate::report::suggest::evidence(&d.verdict);
    let text = trn(lang, T::SuggestDeeper, &[&d.players, &figures]);
    match d.agrees {
        Some(false) => {
            ui.colored_label(
                Color32::from_rgb(230, 170, 60),
                format!("{text} — {}", tr(lang, T::DepthDisagrees)),
            );
        }
        Some(true) => {
            ui.weak(format!("{text} — {}", tr(lang, T::DepthAgrees)));
        }
        None => {
            ui.weak(format!("{text} — {}", tr(lang, T::DepthUnclear)));
        }
    }
}

/// A measure in the studio's language.
fn measure_text(lang: Lang, m: &Measure) -> String {
    use Measure::*;
    match m {
        HScore => tr(lang, T::MHScore).into(),
        FirstMover => tr(lang, T::MFirstMover).into(),
        NoWinner => tr(lang, T::MNoWinner).into(),
        RuleErrorGames => tr(lang, T::MRuleErrorGames).into(),
        ForfeitGames => tr(lang, T::MForfeitGames).into(),
        HScoreDeeper => tr(lang, T::MHScoreDeeper).into(),
        FirstMoverDeeper => tr(lang, T::MFirstMoverDeeper).into(),
        ExactVerdict => tr(lang, T::MExactVerdict).into(),
        ExactValue => tr(lang, T::MExactValue).into(),
        MeanTurns => tr(lang, T::MMeanTurns).into(),
        MedianTurns => tr(lang, T::MMedianTurns).into(),
        P90Turns => tr(lang, T::MP90Turns).into(),
        LeadChanges => tr(lang, T::MLeadChanges).into(),
        Drama => tr(lang, T::MDrama).into(),
        Decisiveness => tr(lang, T::MDecisiveness).into(),
        Branching => tr(lang, T::MBranching).into(),
        ChoiceShare => tr(lang, T::MChoiceShare).into(),
        CommandUse { side, command } => trn(lang, T::MCommandUse, &[side, command]),
        RuleFires {
            a_line,
            b_line,
            text,
        } => {
            let line = match (a_line, b_line) {
                (Some(x), Some(y)) if x == y => x.to_string(),
                (Some(x), Some(y)) => format!("{x} (B {y})"),
                (Some(x), None) => format!("{x} (A)"),
                (None, Some(y)) => format!("(B) {y}"),
                (None, None) => String::new(),
            };
            trn(lang, T::MRuleFires, &[&line, text])
        }
        Restricted { side, command } => trn(lang, T::MRestricted, &[side, command]),
        Skill { a, b } => trn(lang, T::MSkill, &[a, b]),
        SkillVerdict => tr(lang, T::MSkillVerdict).into(),
        SweepFair { name } => trf(lang, T::MSweepFair, name),
        SweepScore { name, value } => trn(lang, T::MSweepScore, &[name, value]),
    }
}

/// A verdict token of a comparison row in the studio's language.
fn word_text(lang: Lang, token: &str) -> String {
    let key = match token {
        "forced_win_h" => T::WForcedWinH,
        "forced_win_c" => T::WForcedWinC,
        "solved" => T::WSolved,
        "no_forced_win" => T::WNoForcedWin,
        "undecided" => T::WUndecided,
        "skill_matters" => T::WSkillMatters,
        "random_better" => T::WRandomBetter,
        "no_difference" => T::WNoDifference,
        "too_few_games" => T::WTooFewGames,
        "never_fired" => T::WNeverFired,
        "cannot_fire" => T::WCannotFire,
        "fires" => T::WFires,
        _ => return crate::report::compare::spoken(token),
    };
    tr(lang, key).to_string()
}

/// A row's difference in the studio's language.
fn change_text(lang: Lang, d: &Diff) -> String {
    if d.unit == Unit::Word {
        return match d.differs {
            Some(true) => tr(lang, T::CompareChanged).into(),
            Some(false) => tr(lang, T::CompareSame).into(),
            None => String::new(),
        };
    }
    let Some(x) = d.diff else {
        return tr(lang, T::CompareOnlyOne).into();
    };
    let (scale, suffix, digits) = match d.unit {
        Unit::Share | Unit::Points => (100.0, tr(lang, T::PointsSuffix), 1),
        Unit::Turns => (1.0, tr(lang, T::CompareTurns), 1),
        Unit::Count => (1.0, "", 0),
        Unit::Value => (1.0, "", 4),
        _ => (1.0, "", 2),
    };
    let f = |v: f64| format!("{:+.*}", digits, scale * v);
    match (d.basis, d.low, d.high) {
        (_, Some(lo), Some(hi)) => format!("{}{suffix}  (95% {} … {})", f(x), f(lo), f(hi)),
        (Basis::Exact, ..) => format!("{}{suffix}  ({})", f(x), tr(lang, T::CompareExact)),
        _ => format!("{}{suffix}  ({})", f(x), tr(lang, T::CompareNoInterval)),
    }
}

/// The comparison of two versions: each measure in both and their difference, the rows that
/// differ marked, the rest folded.
fn comparison(ui: &mut Ui, lang: Lang, c: &Comparison) {
    let title = trn(lang, T::CompareTitle, &[&c.a.file, &c.b.file]);
    header(ui, &title, tr(lang, T::CompareExplain), |ui| {
        if !c.same_players {
            ui.colored_label(
                Color32::from_rgb(230, 170, 60),
                tr(lang, T::ComparePlayersDiffer),
            );
        }
        // Two columns, so a narrow panel wraps instead of cutting the difference off: the
        // measure, then A · B · A − B.
        let total = ui.available_width();
        let first = (total * 0.36).clamp(110.0, 260.0);
        let second = (total - first - 24.0).max(160.0);
        let row = |ui: &mut Ui, d: &Diff| {
            let [a, b] = crate::report::compare::sides_with(
                d,
                |w| word_text(lang, w),
                tr(lang, T::PtsSuffix),
            );
            let strong = d.differs == Some(true);
            ui.scope(|ui| {
                ui.set_max_width(first);
                ui.add(egui::Label::new(measure_text(lang, &d.what)).wrap());
            });
            ui.horizontal_wrapped(|ui| {
                ui.set_max_width(second);
                ui.spacing_mut().item_spacing.x = 6.0;
                ui.monospace(a);
                ui.weak("·");
                ui.monospace(b);
                ui.weak("·");
                let t = change_text(lang, d);
                if strong {
                    ui.colored_label(
                        Color32::from_rgb(230, 140, 50),
                        RichText::new(format!("{t}  {}", tr(lang, T::CompareDiffers))).strong(),
                    );
                } else {
                    ui.label(t);
                }
            });
            ui.end_row();
        };
        let (shown, folded): (Vec<&Diff>, Vec<&Diff>) = c
            .differences
            .iter()
            .partition(|d| crate::report::compare::shown(d));
        egui::Grid::new("kumite-compare")
            .striped(true)
            .min_col_width(60.0)
            .show(ui, |ui| {
                ui.strong(tr(lang, T::CompareMeasure));
                ui.strong("A · B · A − B");
                ui.end_row();
                for d in &shown {
                    row(ui, d);
                }
            });
        if !folded.is_empty() {
            egui::CollapsingHeader::new(trf(lang, T::CompareMore, folded.len()))
                .id_salt("kumite-compare-more")
                .default_open(false)
                .show(ui, |ui| {
                    egui::Grid::new("kumite-compare-more-grid")
                        .striped(true)
                        .min_col_width(60.0)
                        .show(ui, |ui| {
                            for d in &folded {
                                row(ui, d);
                            }
                        });
                });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every verdict token a comparison row can carry is worded in Japanese, not left in the
    /// command line's English.
    #[test]
    fn comparison_words_are_translated() {
        for t in [
            "forced_win_h",
            "forced_win_c",
            "solved",
            "no_forced_win",
            "undecided",
            "skill_matters",
            "random_better",
            "no_difference",
            "too_few_games",
            "never_fired",
            "cannot_fire",
            "fires",
        ] {
            let ja = word_text(Lang::Ja, t);
            assert!(!ja.is_ascii(), "{t}: {ja}");
            assert_eq!(
                word_text(Lang::En, t),
                crate::report::compare::spoken(t),
                "{t}"
            );
        }
    }
}
