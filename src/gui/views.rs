//! The studio's part-2 panels wired to the app: the victory-condition tab, the win-path tab and
//! the match panel, with their shortcuts (function keys, so they never clash with game keys).

use super::i18n::{Lang, T, tr};
use super::match_panel::{self, MatchAction};
use super::session::{Controller, MatchSession};
use super::tree_view::TreeAction;
use super::winpath::WinPathAction;
use super::{StudioApp, ViewTab};
use crate::analysis::VictoryGraph;
use crate::engine::{Engine, State};
use crate::side::Side;
use egui::{Key, Sense, Ui};
use std::sync::Arc;

impl StudioApp {
    /// The last win-path result (for tests and tools).
    pub fn winpath_result(&self) -> Option<&super::winpath::WinPathResult> {
        self.winpath.result.as_ref()
    }

    /// Cancels a running win-path search, as the Cancel button does; the flag turns true when
    /// its thread has ended.
    pub fn cancel_win_path(&mut self) -> Option<Arc<std::sync::atomic::AtomicBool>> {
        self.winpath.cancel()
    }

    /// The initial position of the last good program.
    fn initial_position(&mut self) -> Option<State> {
        let v = self.last_good.clone()?;
        let key = Arc::as_ptr(&v.compiled) as usize;
        if let Some((k, st)) = &self.initial
            && *k == key
        {
            return Some(st.clone());
        }
        let prog = v.compiled.program.as_ref()?;
        let first = Side::first_mover(prog.settings.cpu_first);
        let st = Engine::new(prog, 0).initial(first).ok()?;
        self.initial = Some((key, st.clone()));
        Some(st)
    }

    /// The match's position if a match of the current rules is under way.
    fn match_position(&self) -> Option<(State, u32)> {
        let v = self.last_good.as_ref()?;
        let s = self.matchp.session.as_ref()?;
        (s.started && Arc::ptr_eq(&s.compiled, &v.compiled)).then(|| (s.st.clone(), s.st.turn))
    }

    /// Where the tree is read: the match's position (over or not), else the initial one.
    fn tree_where(&self, lang: Lang, turn: u32) -> String {
        if self.matchp.session.as_ref().is_some_and(|s| s.over()) {
            format!("{} {turn}", tr(lang, T::MatchOverAfterTurn))
        } else {
            format!("{} {turn}", tr(lang, T::MatchAfterTurn))
        }
    }

    pub(super) fn tree_tab(&mut self, ui: &mut Ui, lang: Lang, stale: bool) -> Option<usize> {
        let Some(v) = self.last_good.clone() else {
            ui.weak(tr(lang, T::TheRulesHaveNot));
            return None;
        };
        let prog = v.compiled.program.as_ref()?;
        let (st, where_) = match self.match_position() {
            Some((st, turn)) => (st, self.tree_where(lang, turn)),
            None => (
                self.initial_position()?,
                tr(lang, T::InitialPosition).to_string(),
            ),
        };
        self.tree
            .ui(ui, lang, &v.graph, prog, &st, &where_, stale)
            .map(|TreeAction::ShowLine(l)| l)
    }

    /// Starts the win-path search from the match position (if asked and there is one) or the
    /// initial position.
    pub(super) fn find_win_path(&mut self, ctx: &egui::Context) {
        let Some(v) = self.last_good.clone() else {
            return;
        };
        let from_match = if self.winpath.from_match {
            self.match_position().map(|p| p.0)
        } else {
            None
        };
        let (start, is_match) = match from_match {
            Some(st) => (st, true),
            None => match self.initial_position() {
                Some(st) => (st, false),
                None => return,
            },
        };
        self.winpath_compiled = Some(v.compiled.clone());
        self.winpath
            .start(Some(ctx.clone()), v.compiled.clone(), start, is_match);
    }

    pub(super) fn winpath_tab(&mut self, ui: &mut Ui, lang: Lang) -> Option<usize> {
        if let (Some(a), Some(b)) = (&self.winpath_compiled, &self.last_good)
            && !Arc::ptr_eq(a, &b.compiled)
            && self.winpath.result.is_some()
        {
            self.winpath.outdated = true;
        }
        let in_match = self.match_position().is_some();
        let can = self.last_good.is_some();
        match self.winpath.ui(ui, lang, can, in_match) {
            Some(WinPathAction::Find) => self.find_win_path(ui.ctx()),
            Some(WinPathAction::Replay) => self.replay_win_path(),
            Some(WinPathAction::ShowLine(l)) => return Some(l),
            None => {}
        }
        None
    }

    /// The Report tab; starting a report takes the last program that compiled.
    pub(super) fn report_tab(&mut self, ui: &mut Ui, lang: Lang) -> Option<usize> {
        let can = self.last_good.is_some();
        let prog = self
            .last_good
            .as_ref()
            .and_then(|v| v.compiled.program.as_ref());
        self.report.follow_text(&self.editor.text, prog);
        let (start, suggest, action) = self.report.ui(ui, lang, can);
        if start {
            self.start_report(ui.ctx());
        }
        if let Some(other) = self.pending_compare.take() {
            self.start_comparison(ui.ctx(), other);
        }
        if suggest && let Some(v) = self.last_good.clone() {
            self.report.start_suggest(ui.ctx(), &v.source);
        }
        match action {
            Some(super::report_view::ReportAction::ShowLine(l)) => Some(l),
            Some(super::report_view::ReportAction::CompareSaved) => {
                let name = format!(
                    "{} ({})",
                    self.file_name_for_reports(),
                    tr(lang, T::CompareSaved)
                );
                match self.other_version(self.doc.saved_text.to_string(), name) {
                    Ok(o) => self.start_comparison(ui.ctx(), o),
                    Err(e) => self.report.error = Some(e),
                }
                None
            }
            Some(super::report_view::ReportAction::CompareFile) => {
                self.ask_path(super::files::DialogKind::CompareWith, None);
                None
            }
            Some(super::report_view::ReportAction::Apply(k, edits)) => {
                let ok = self.editor.apply_edits(ui.ctx(), &edits);
                self.report.mark(k, ok, &self.editor.text);
                if ok {
                    self.report.remeasure(ui.ctx(), k, self.editor.text.clone());
                }
                None
            }
            None => None,
        }
    }

    /// Another version of the rules, compiled, to compare the editor's with; or why it cannot
    /// be (it does not compile: its first error, with its line).
    pub(super) fn other_version(
        &self,
        source: String,
        name: String,
    ) -> Result<super::report_view::Other, String> {
        let c = crate::pipeline::compile(&source);
        match c.program {
            Some(prog) => Ok(super::report_view::Other { source, name, prog }),
            None => {
                let why = c
                    .diags
                    .iter()
                    .find(|d| d.is_error())
                    .map(|d| {
                        let line = source[..d.span.start.min(source.len())]
                            .matches('\n')
                            .count()
                            + 1;
                        format!("line {line}: {}", d.message)
                    })
                    .unwrap_or_default();
                Err(super::i18n::trn(
                    self.lang(),
                    T::CompareHasErrors,
                    &[&name, &why],
                ))
            }
        }
    }

    /// Compares the last program that compiled with another version (Report tab).
    pub fn start_comparison(&mut self, ctx: &egui::Context, other: super::report_view::Other) {
        self.start_report_with(ctx, Some(other));
    }

    /// Starts a balance report of the last program that compiled.
    pub fn start_report(&mut self, ctx: &egui::Context) {
        self.start_report_with(ctx, None);
    }

    /// A report of the last program that compiled, or its comparison with `other`.
    fn start_report_with(&mut self, ctx: &egui::Context, other: Option<super::report_view::Other>) {
        let Some(v) = self.last_good.clone() else {
            return;
        };
        let Some(prog) = v.compiled.program.as_ref() else {
            return;
        };
        let name = self.file_name_for_reports();
        let lang = self.persisted.lang;
        self.persisted.view_tab = ViewTab::Report;
        self.report
            .start_with(ctx, &v.source, &name, prog, other, lang);
    }

    /// Loads the last win path into a new match from the position it was found from.
    pub(super) fn replay_win_path(&mut self) {
        let (Some(r), Some(c)) = (self.winpath.result.clone(), self.winpath_compiled.clone())
        else {
            return;
        };
        let graph = match &self.last_good {
            Some(v) if Arc::ptr_eq(&v.compiled, &c) => v.graph.clone(),
            _ => match c.program.as_ref() {
                Some(p) => Arc::new(VictoryGraph::build(p)),
                None => return,
            },
        };
        let settings = match (&self.last_good, c.program.as_ref()) {
            (Some(v), _) if Arc::ptr_eq(&v.compiled, &c) => self.matchp.cpu_settings(v),
            (_, Some(p)) if self.matchp.settings.file_cpu => match_panel::file_cpu(&p.settings),
            _ => self.matchp.settings.cpu.clone(),
        };
        if let Some(s) = self.matchp.session.as_mut() {
            s.stop_thinking();
        }
        match MatchSession::new(
            c,
            graph,
            self.matchp.seed,
            self.matchp.settings.players,
            settings,
            Some(r.start.clone()),
        ) {
            Ok(mut s) => {
                let expected = r
                    .shortest
                    .path()
                    .map(|p| p.iter().map(|s| s.states.clone()).collect())
                    .unwrap_or_default();
                s.load_replay(r.moves.clone(), expected);
                self.matchp.session = Some(s);
                self.matchp.keep_old_rules = true;
                self.matchp.message = None;
                self.persisted.show_match = true;
            }
            Err(e) => self.matchp.message = Some(e),
        }
    }

    /// The match panel, on the right edge of the window.
    pub(super) fn match_panel(&mut self, ui: &mut Ui, lang: Lang) {
        let focused = ui.ctx().memory(|m| m.has_focus(match_panel::focus_id()));
        let panel = egui::Panel::right("kumite-match")
            .resizable(true)
            .default_size(self.persisted.match_width)
            .size_range(300.0..=1200.0);
        let panel = match self.forced_widths {
            Some((_, w)) => panel.exact_size(w),
            None => panel,
        };
        let panel = panel.show(ui, |ui| {
            // The background takes clicks (and so the keyboard focus); widgets drawn later
            // lie on top of it and still get their own clicks.
            let bg = ui.interact(ui.max_rect(), match_panel::focus_id(), Sense::click());
            ui.ctx().memory_mut(|m| {
                m.set_focus_lock_filter(
                    match_panel::focus_id(),
                    egui::EventFilter {
                        tab: true,
                        horizontal_arrows: true,
                        vertical_arrows: true,
                        escape: false,
                    },
                )
            });
            if focused {
                ui.painter().rect_stroke(
                    ui.max_rect().shrink(1.0),
                    4.0,
                    egui::Stroke::new(1.5, ui.visuals().selection.stroke.color),
                    egui::StrokeKind::Inside,
                );
            }
            let action = egui::Frame::new()
                .inner_margin(egui::Margin::symmetric(6, 2))
                .show(ui, |ui| {
                    self.matchp.ui(ui, lang, self.last_good.as_ref(), focused)
                })
                .inner;
            let pressed_inside = ui.input(|i| {
                i.pointer.any_pressed()
                    && i.pointer
                        .interact_pos()
                        .is_some_and(|p| ui.max_rect().contains(p))
            });
            if bg.clicked() || pressed_inside {
                bg.request_focus();
            }
            action
        });
        self.persisted.match_width = panel.response.rect.width();
        if let Some(MatchAction::ShowLine(line)) = panel.inner {
            self.editor.picked_line = Some(line.saturating_sub(1));
            self.editor.reveal_line(line.saturating_sub(1));
        }
    }

    /// Function-key shortcuts of the match and the views.
    pub(super) fn view_shortcuts(&mut self, ctx: &egui::Context) {
        let pressed = |k: Key| ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, k));
        let ctrl_alt = egui::Modifiers::COMMAND | egui::Modifiers::ALT;
        for (k, layout) in [
            (Key::Num1, Layout::Write),
            (Key::Num2, Layout::Play),
            (Key::Num3, Layout::All),
        ] {
            if ctx.input_mut(|i| i.consume_key(ctrl_alt, k)) {
                self.apply_layout(layout);
            }
        }
        if pressed(Key::F5) {
            self.start_match(ctx);
        }
        if pressed(Key::F6) {
            self.persisted.show_match = true;
            ctx.memory_mut(|m| m.request_focus(match_panel::focus_id()));
        }
        if pressed(Key::F7) {
            self.persisted.view_tab = ViewTab::WinPath;
            if !self.winpath.busy() {
                self.find_win_path(ctx);
            }
        }
        if pressed(Key::F8) {
            self.matchp.undo();
        }
        if pressed(Key::F9) {
            self.persisted.view_tab = ViewTab::Tree;
        }
        if self.winpath.busy() && pressed(Key::Escape) {
            self.winpath.cancel();
        }
        if self.report.busy() && pressed(Key::Escape) {
            self.report.cancel();
        }
        // Shift+F7: replay the path found; F10: the replay's next step.
        if ctx.input_mut(|i| i.consume_key(egui::Modifiers::SHIFT, Key::F7))
            && self
                .winpath
                .result
                .as_ref()
                .is_some_and(|r| !r.moves.is_empty())
        {
            self.replay_win_path();
        }
        if pressed(Key::F10)
            && let Some(s) = self.matchp.session.as_mut()
        {
            s.replay_step();
        }
        // Ctrl+1/2/3: the view tabs (Ctrl combinations are never game keys).
        for (k, tab) in [
            (Key::Num1, ViewTab::Expanded),
            (Key::Num2, ViewTab::Tree),
            (Key::Num3, ViewTab::WinPath),
            (Key::Num4, ViewTab::Report),
        ] {
            if ctx.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, k)) {
                self.persisted.view_tab = tab;
            }
        }
    }

    /// New match with the current rules (F5), focused for the keys.
    pub(super) fn start_match(&mut self, ctx: &egui::Context) {
        let Some(v) = self.last_good.clone() else {
            return;
        };
        self.persisted.show_match = true;
        if let Err(e) = self.matchp.new_match(&v, false) {
            self.matchp.message = Some(e);
        }
        if self.matchp.settings.players.contains(&Controller::Human) {
            ctx.memory_mut(|m| m.request_focus(match_panel::focus_id()));
        }
    }

    /// The Match menu.
    pub(super) fn match_menu(&mut self, ui: &mut Ui, lang: Lang) {
        let ctx = ui.ctx().clone();
        let item =
            |ui: &mut Ui, t: &str, k: &str| ui.add(egui::Button::new(t).shortcut_text(k)).clicked();
        ui.menu_button(tr(lang, T::Match), |ui| {
            if item(ui, tr(lang, T::NewMatch), "F5") {
                self.start_match(&ctx);
            }
            if item(ui, tr(lang, T::PlayWithTheKeys), "F6") {
                self.persisted.show_match = true;
                ctx.memory_mut(|m| m.request_focus(match_panel::focus_id()));
            }
            if item(ui, tr(lang, T::UndoTurn), "F8") {
                self.matchp.undo();
            }
            ui.separator();
            if item(ui, tr(lang, T::FindWinPath), "F7") {
                self.persisted.view_tab = ViewTab::WinPath;
                self.find_win_path(&ctx);
            }
            if item(ui, tr(lang, T::ReplayTheWinPath), "Shift+F7")
                && self
                    .winpath
                    .result
                    .as_ref()
                    .is_some_and(|r| !r.moves.is_empty())
            {
                self.replay_win_path();
            }
            if item(ui, tr(lang, T::ReplayNextStep), "F10")
                && let Some(s) = self.matchp.session.as_mut()
            {
                s.replay_step();
            }
            ui.separator();
            if item(ui, tr(lang, T::ExpandedRules), "Ctrl+1") {
                self.persisted.view_tab = ViewTab::Expanded;
            }
            if item(ui, tr(lang, T::VictoryConditions), "F9 / Ctrl+2") {
                self.persisted.view_tab = ViewTab::Tree;
            }
            if item(ui, tr(lang, T::WinPath), "Ctrl+3") {
                self.persisted.view_tab = ViewTab::WinPath;
            }
            if item(ui, tr(lang, T::Report), "Ctrl+4") {
                self.persisted.view_tab = ViewTab::Report;
            }
            if item(ui, tr(lang, T::RunTheBalanceReport), "") {
                self.start_report(&ctx);
            }
            ui.separator();
            ui.checkbox(
                &mut self.persisted.show_match,
                tr(lang, T::ShowTheMatchPanel),
            );
            ui.separator();
            ui.weak(tr(lang, T::Layout));
            for (layout, label, key) in [
                (Layout::Write, T::LayoutWrite, "Ctrl+Alt+1"),
                (Layout::Play, T::LayoutPlay, "Ctrl+Alt+2"),
                (Layout::All, T::LayoutAll, "Ctrl+Alt+3"),
            ] {
                if item(ui, tr(lang, label), key) {
                    self.apply_layout(layout);
                }
            }
        });
    }

    /// Sets the panels for a layout preset (applied on the next frame, then resizable as usual).
    pub(super) fn apply_layout(&mut self, layout: Layout) {
        self.pending_layout = Some(layout);
    }

    /// The widths (expanded view, match panel) a pending preset asks for, in a window of
    /// `width` points; the match panel is shown or hidden accordingly.
    pub(super) fn layout_widths(&mut self, width: f32) -> Option<(f32, f32)> {
        let layout = self.pending_layout.take()?;
        // The editor keeps at least ~60 characters (≈ 560 points with its gutter).
        let (exp, matchw, show) = match layout {
            Layout::Write => ((width - 600.0).clamp(240.0, width * 0.45), 350.0, false),
            Layout::Play => (
                300.0,
                (width - 300.0 - 560.0).clamp(300.0, width * 0.5),
                true,
            ),
            Layout::All => (390.0, 350.0, true),
        };
        self.persisted.show_match = show;
        Some((exp, matchw))
    }
}

/// Layout presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The editor and one view (no match panel).
    Write,
    /// The match panel wide.
    Play,
    /// Everything at its default size.
    All,
}
