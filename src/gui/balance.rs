//! The balance meter: after each edit that compiles, a background run of the report's outcome
//! and exact sections (a few CPU games a seating, one worker thread, so typing stays fast)
//! gives h's score and the first-mover advantage with their intervals and how many distinct
//! games they rest on — or the exact verdict where the solver decides it. The next edit cancels
//! a run still going. The figures of every finished run stay in a history drawn as a sparkline,
//! so a designer sees which edit moved the balance.

use super::i18n::{Lang, T, tr, trn};
use super::job::{Job, Polled};
use super::worker::ProgramView;
use crate::report::{ExactKind, Progress, Rate, Report, ReportOptions, Sections};
use egui::{Color32, RichText, Sense, Ui, Vec2};
use std::sync::Arc;

/// CPU games per seating for one reading (the report's default is 200).
pub const METER_GAMES: u64 = 30;
/// The most readings kept.
const HISTORY: usize = 200;

/// One finished reading.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// h's score (a draw counts half), with its interval.
    pub h_score: Option<Rate>,
    /// The first mover's advantage in points of score (alternate games).
    pub first_mover: Option<Rate>,
    /// CPU games played, and how many of them were different.
    pub games: u64,
    /// Distinct games among them.
    pub distinct: u64,
    /// The exact verdict, where the solver decided it.
    pub exact: Option<crate::report::Exact>,
    /// Games a rule error or a failing player decided (then no score is given).
    pub problems: u64,
}

struct Running {
    /// The run's Cancel (the report checks this, not the job's flag).
    progress: Arc<Progress>,
    job: Job<Result<Report, String>>,
}

/// The meter's state.
pub struct BalanceMeter {
    /// Off: nothing runs.
    pub on: bool,
    running: Option<Running>,
    /// The compiled program the last run was started for.
    started_for: usize,
    /// Finished readings, oldest first (at most [`HISTORY`]).
    pub history: Vec<Reading>,
    /// Why the last run could not finish.
    pub error: Option<String>,
}

impl Default for BalanceMeter {
    fn default() -> Self {
        Self {
            on: true,
            running: None,
            started_for: 0,
            history: Vec::new(),
            error: None,
        }
    }
}

impl BalanceMeter {
    /// True while a reading is being taken.
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// Follows the last program that compiled: a new one cancels the run going and starts a
    /// reading of it; a finished run is added to the history.
    pub fn follow(&mut self, ctx: &egui::Context, view: Option<&Arc<ProgramView>>, file: &str) {
        self.poll();
        let Some(v) = view else {
            return;
        };
        let key = Arc::as_ptr(&v.compiled) as usize;
        if !self.on || key == self.started_for {
            return;
        }
        self.started_for = key;
        if let Some(r) = self.running.take() {
            r.progress.cancel();
        }
        let Some(prog) = v.compiled.program.clone() else {
            return;
        };
        let progress = Progress::new();
        let opts = ReportOptions {
            games: METER_GAMES,
            jobs: Some(1),
            exact_budget: std::time::Duration::from_millis(500),
            sections: Sections {
                outcome: true,
                sample: false,
                decisions: false,
                rules: false,
                exact: true,
                restricted: false,
                skill: false,
            },
            ..Default::default()
        };
        let (src, name, p) = (v.source.clone(), file.to_string(), progress.clone());
        let spawned = Job::spawn("kumite-balance", Some(ctx.clone()), move |_| {
            crate::report::run(&src, &name, &prog, &opts, &p, |_| {}).map_err(|e| e.to_string())
        });
        match spawned {
            Ok(job) => self.running = Some(Running { progress, job }),
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    fn poll(&mut self) {
        let Some(r) = &self.running else {
            return;
        };
        match r.job.poll() {
            Polled::Done(Ok(rep)) => {
                self.running = None;
                self.error = None;
                if rep.cancelled {
                    return;
                }
                if let Some(o) = &rep.outcome {
                    self.history.push(Reading {
                        h_score: o.h_score,
                        first_mover: o.first_mover_advantage,
                        games: o.games,
                        distinct: o.distinct_games,
                        exact: o.exact.clone(),
                        problems: o.errors + o.forfeits,
                    });
                    if self.history.len() > HISTORY {
                        self.history.remove(0);
                    }
                }
            }
            Polled::Done(Err(e)) => {
                self.running = None;
                self.error = Some(e);
            }
            Polled::Pending => {}
            Polled::Died => {
                self.running = None;
                self.error = Some("the balance run stopped unexpectedly".into());
            }
        }
    }

    /// The meter in the status bar: the latest reading, how it knows, and the sparkline.
    pub fn ui(&mut self, ui: &mut Ui, lang: Lang) {
        ui.checkbox(&mut self.on, tr(lang, T::BalanceMeter))
            .on_hover_text(tr(lang, T::BalanceMeterHover));
        if !self.on {
            if let Some(r) = self.running.take() {
                r.progress.cancel();
            }
            self.started_for = 0;
            return;
        }
        if let Some(last) = self.history.last() {
            ui.label(RichText::new(reading_text(lang, last)).small());
        }
        if self.busy() {
            ui.weak(RichText::new(tr(lang, T::BalanceMeasuring)).small());
        } else if let Some(e) = &self.error {
            ui.colored_label(Color32::from_rgb(230, 90, 80), RichText::new(e).small());
        }
        sparkline(ui, &self.history);
    }
}

/// A reading in words: exact where the solver decided it, else the sampled score and first-mover
/// advantage with intervals and the distinct games they rest on.
pub fn reading_text(lang: Lang, r: &Reading) -> String {
    let pts = |x: &Rate| match (x.low, x.high) {
        (Some(l), Some(h)) => format!(
            "{:+.1} ({:+.1}…{:+.1})",
            100.0 * x.value,
            100.0 * l,
            100.0 * h
        ),
        _ => format!("{:+.1}", 100.0 * x.value),
    };
    let pct = |x: &Rate| match (x.low, x.high) {
        (Some(l), Some(h)) => format!(
            "{:.1}% ({:.0}–{:.0}%)",
            100.0 * x.value,
            100.0 * l,
            100.0 * h
        ),
        _ => format!("{:.1}%", 100.0 * x.value),
    };
    if let Some(e) = &r.exact {
        match (e.kind, e.value) {
            (ExactKind::Value, Some(v)) => {
                return trn(lang, T::BalanceExact, &[&format!("{v:+.3}")]);
            }
            (ExactKind::ForcedWin, _) => {
                return trn(
                    lang,
                    T::BalanceForced,
                    &[&e.winner.map_or("?", |w| w.as_str())],
                );
            }
            _ => {}
        }
    }
    let score = r.h_score.as_ref().map_or_else(|| "—".to_string(), pct);
    let fm = r.first_mover.as_ref().map_or_else(|| "—".to_string(), pts);
    trn(
        lang,
        T::BalanceSampled,
        &[&score, &fm, &r.games, &r.distinct],
    )
}

/// h's score over the readings, 50% marked.
fn sparkline(ui: &mut Ui, history: &[Reading]) {
    let (rect, resp) = ui.allocate_exact_size(Vec2::new(90.0, 14.0), Sense::hover());
    let painter = ui.painter();
    painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
    let mid = rect.center().y;
    painter.hline(rect.x_range(), mid, (1.0, ui.visuals().weak_text_color()));
    let vals: Vec<f64> = history
        .iter()
        .map(|r| match (&r.exact, &r.h_score) {
            (Some(e), _) if e.kind == ExactKind::Value => e.value.map_or(0.5, |v| (v + 1.0) / 2.0),
            (_, Some(s)) => s.value,
            _ => 0.5,
        })
        .collect();
    if vals.len() >= 2 {
        let n = vals.len() - 1;
        let pts: Vec<egui::Pos2> = vals
            .iter()
            .enumerate()
            .map(|(i, v)| {
                egui::pos2(
                    rect.left() + rect.width() * i as f32 / n as f32,
                    rect.bottom() - rect.height() * (*v as f32).clamp(0.0, 1.0),
                )
            })
            .collect();
        painter.add(egui::Shape::line(
            pts,
            (1.5, Color32::from_rgb(110, 160, 230)),
        ));
    }
    resp.on_hover_text(format!("{} / {}", history.len(), HISTORY));
}
