//! The studio window: a rule editor with live diagnostics and the expanded-rules view.
//!
//! [`StudioApp`] holds the live state (text, worker, caches) and the [`Persisted`] settings
//! separately; [`run`] opens the window, and tests build the app with
//! [`StudioApp::new_for_test`] and drive it with `egui_kittest`. `show` draws one frame. One
//! panel per file: [`editor`], [`diagnostics`], [`expanded`], [`tree_view`], [`winpath`],
//! [`report_view`], [`match_panel`] (over [`session`]); `document.rs` holds the file actions
//! (open, save, export, autosave), `dialogs.rs` the modal dialogs on their stack, [`files`] the
//! file system work, [`worker`] checks the text off the UI thread, [`job`] runs the longer work
//! (reports, searches, learning) off it, [`i18n`] holds every UI string, [`fonts`] the bundled
//! Japanese fonts.

pub mod balance;
pub mod diagnostics;
mod dialogs;
mod document;
pub mod editor;
pub mod expanded;
pub mod files;
pub mod fonts;
pub mod i18n;
pub mod job;
pub mod match_panel;
pub mod report_view;
pub mod session;
pub mod tree_view;
mod views;
pub mod winpath;
pub mod worker;

use diagnostics::DiagnosticsPanel;
use dialogs::Modal;
use editor::EditorPanel;
use egui::{Key, KeyboardShortcut, Modifiers, RichText, Ui, ViewportCommand};
use expanded::{ExpandedAction, ExpandedPanel};
use files::{DialogKind, DiskWatch, Recovery, read_rule_file};
use i18n::{Lang, T, tr, trf, trn};
use match_panel::{MatchPanel, MatchSettings};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tree_view::TreeView;
use winpath::WinPathView;
use worker::{Checked, ProgramView, Worker};

/// Light or dark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThemeChoice {
    /// Dark background.
    #[default]
    Dark,
    /// Light background.
    Light,
}

/// What the studio remembers between runs (eframe storage). The window size and position are
/// remembered by eframe itself (`persist_window`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct Persisted {
    /// UI language.
    pub lang: Lang,
    /// Colour theme.
    pub theme: ThemeChoice,
    /// The file open when the studio last closed.
    pub last_file: Option<PathBuf>,
    /// Recently opened or saved files, newest first.
    pub recent: Vec<PathBuf>,
    /// Width of the expanded-rules panel.
    pub expanded_width: f32,
    /// Height of the problems panel.
    pub diagnostics_height: f32,
    /// The tab shown in the right-hand view panel.
    pub view_tab: ViewTab,
    /// Show the match panel.
    pub show_match: bool,
    /// Width of the match panel.
    pub match_width: f32,
}

/// The tabs of the view panel beside the editor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ViewTab {
    /// The expanded rules.
    #[default]
    Expanded,
    /// The victory-condition tree and graph.
    Tree,
    /// The win path.
    WinPath,
    /// The balance report.
    Report,
}

impl Default for Persisted {
    fn default() -> Self {
        Self {
            lang: Lang::from_env(),
            theme: ThemeChoice::Dark,
            last_file: None,
            recent: Vec::new(),
            expanded_width: 390.0,
            diagnostics_height: 150.0,
            view_tab: ViewTab::Expanded,
            show_match: true,
            match_width: 350.0,
        }
    }
}

/// Something that replaces the open text, and so may need the user's word first.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Action {
    New,
    Open,
    OpenPath(PathBuf),
    OpenExample(&'static str),
    Reload,
    Close,
}

/// The text being edited and where it lives.
struct Document {
    /// The file, if it has one.
    path: Option<PathBuf>,
    /// The bundled example it was opened from (saving asks for a path).
    example: Option<&'static str>,
    /// The text as last loaded or saved (to tell whether there are unsaved changes).
    saved_text: String,
}

/// Crash recovery: the autosaved copy of unsaved work and what became of it (a copy found at
/// start is offered back by [`Modal::Recovery`]).
struct Autosave {
    /// Where copies are kept (None: no writable place, or tests without one).
    store: Option<Recovery>,
    /// A copy of this session's work has been written (and must be cleared once saved).
    written: bool,
    /// The editor version last written.
    version: u64,
    /// When it was written.
    last: Instant,
}

/// The studio application.
pub struct StudioApp {
    /// Remembered settings.
    pub persisted: Persisted,
    editor: EditorPanel,
    diagnostics: DiagnosticsPanel,
    expanded: ExpandedPanel,
    doc: Document,
    dirty: bool,
    seen_version: u64,
    worker: Worker,
    checked: Option<Checked>,
    last_good: Option<Arc<ProgramView>>,
    /// The balance meter in the status bar.
    pub balance: balance::BalanceMeter,
    autosave: Autosave,
    watch: DiskWatch,
    disk_changed: bool,
    /// Open dialogs, newest on top (only the top one is shown and answered).
    modals: Vec<Modal>,
    /// An action to perform at the start of the next frame (after a dialog closed).
    pending: Option<Action>,
    notice: Option<String>,
    native_dialogs: bool,
    portal_missing: bool,
    allow_close: bool,
    fonts_installed: bool,
    title: String,
    applied_theme: Option<ThemeChoice>,
    tree: TreeView,
    winpath: WinPathView,
    /// The Report tab.
    pub report: report_view::ReportView,
    /// A version to compare the editor's rules with, chosen in a dialog: the Report tab starts
    /// the comparison on its next frame.
    pending_compare: Option<report_view::Other>,
    /// The program the last win-path search ran on.
    winpath_compiled: Option<Arc<crate::pipeline::Compiled>>,
    /// The match panel.
    pub matchp: MatchPanel,
    /// The initial position of the last good program (by its address).
    initial: Option<(usize, crate::engine::State)>,
    /// A layout preset to apply on the next frame.
    pending_layout: Option<views::Layout>,
    /// Panel widths forced this frame by a preset: (expanded view, match panel).
    forced_widths: Option<(f32, f32)>,
}

/// The signal that asked the window to close (0: none).
static SIGNALLED: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);
/// The open window's context, for a signal to wake it.
static WINDOW: std::sync::OnceLock<egui::Context> = std::sync::OnceLock::new();

/// Asks the open studio window to close because signal `sig` is ending Kumite: at its next
/// frame it writes the recovery copy of unsaved work and closes, so no thread exits the
/// process while the window renders. False when no window is open (the caller ends the
/// process itself).
pub fn close_for_signal(sig: i32) -> bool {
    let Some(ctx) = WINDOW.get() else {
        return false;
    };
    SIGNALLED.store(sig, std::sync::atomic::Ordering::SeqCst);
    ctx.request_repaint();
    true
}

/// Opens the studio window with `file` open (else the last file or the bundled example).
pub fn run_with(file: Option<PathBuf>) -> eframe::Result {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Kumite")
            .with_app_id("kumite")
            .with_inner_size([1360.0, 860.0])
            .with_min_inner_size([720.0, 420.0]),
        persist_window: true,
        ..Default::default()
    };
    eframe::run_native(
        "kumite",
        options,
        Box::new(move |cc| {
            let _ = WINDOW.set(cc.egui_ctx.clone());
            let mut app = StudioApp::new(cc);
            if let Some(f) = file {
                app.open_file_at_start(&cc.egui_ctx, &f);
            }
            Ok(Box::new(app))
        }),
    )
}

impl StudioApp {
    fn with_state(persisted: Persisted, text: String, doc: Document) -> Self {
        Self {
            persisted,
            editor: EditorPanel::new(text),
            diagnostics: DiagnosticsPanel::default(),
            expanded: ExpandedPanel::default(),
            doc,
            dirty: false,
            seen_version: 0,
            worker: Worker::spawn(),
            checked: None,
            last_good: None,
            balance: Default::default(),
            autosave: Autosave {
                store: None,
                written: false,
                version: 0,
                last: Instant::now(),
            },
            watch: DiskWatch::default(),
            disk_changed: false,
            modals: Vec::new(),
            pending: None,
            notice: None,
            native_dialogs: true,
            portal_missing: false,
            allow_close: false,
            fonts_installed: false,
            title: String::new(),
            applied_theme: None,
            tree: TreeView::default(),
            winpath: WinPathView::default(),
            report: report_view::ReportView::default(),
            pending_compare: None,
            winpath_compiled: None,
            matchp: MatchPanel::default(),
            initial: None,
            pending_layout: None,
            forced_widths: None,
        }
    }

    /// The app as the window starts it: remembered settings, the last file if it still exists
    /// (else the bundled sumo example), and an offer to recover unsaved work after a crash.
    pub fn new(cc: &eframe::CreationContext<'_>) -> Self {
        fonts::install(&cc.egui_ctx);
        let persisted: Persisted = cc
            .storage
            .and_then(|s| eframe::get_value(s, eframe::APP_KEY))
            .unwrap_or_default();
        let last = persisted
            .last_file
            .clone()
            .and_then(|p| read_rule_file(&p).ok().map(|t| (p, t)));
        let mut app = match last {
            Some((path, text)) => {
                let doc = Document {
                    path: Some(path.clone()),
                    example: None,
                    saved_text: text.clone(),
                };
                let mut app = Self::with_state(persisted, text, doc);
                app.watch.reset(Some(&path));
                app
            }
            None => Self::with_example(persisted, "sumo.kmt"),
        };
        app.fonts_installed = true;
        if let Some(m) = cc
            .storage
            .and_then(|s| eframe::get_value(s, MatchSettings::KEY))
        {
            app.matchp.settings = m;
        }
        app.autosave.store = Recovery::default_dir().map(Recovery::new);
        if let Some(r) = app.autosave.store.as_ref().and_then(Recovery::load) {
            app.modals.push(Modal::Recovery(r));
        }
        app
    }

    /// Opens `p` as the window starts (a file named on the command line); a file that cannot
    /// be read is reported in the window.
    pub fn open_file_at_start(&mut self, ctx: &egui::Context, p: &Path) {
        // A path that does not exist yet, in a folder that does: a new, empty document with
        // that name, written by the first save.
        let folder_ok = p
            .parent()
            .is_none_or(|d| d.as_os_str().is_empty() || d.is_dir());
        if folder_ok
            && matches!(std::fs::symlink_metadata(p), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
        {
            self.load_text(ctx, String::new(), Some(p.to_path_buf()), None);
            self.notice = Some(trf(self.lang(), T::NewFileNotice, p.display()));
            return;
        }
        self.open_path(ctx, p);
    }

    fn with_example(persisted: Persisted, name: &'static str) -> Self {
        let text = files::example(name).unwrap_or_default().to_string();
        let doc = Document {
            path: None,
            example: Some(name),
            saved_text: text.clone(),
        };
        Self::with_state(persisted, text, doc)
    }

    /// The victory graph's scale as last drawn (1 = full size), while it is shown.
    pub fn graph_scale(&self) -> Option<f32> {
        self.tree.graph_scale()
    }

    /// An app for tests: the given language and text (an untitled file), no storage, no
    /// recovery copy, and the studio's own path dialog instead of the system's.
    pub fn new_for_test(lang: Lang, text: &str) -> Self {
        let persisted = Persisted {
            lang,
            ..Persisted::default()
        };
        let doc = Document {
            path: None,
            example: None,
            saved_text: text.to_string(),
        };
        let mut app = Self::with_state(persisted, text.to_string(), doc);
        app.native_dialogs = false;
        // Tests that are not about the balance meter do not share the machine with it.
        app.balance.on = false;
        app
    }

    /// Uses (and offers back) the recovery copy in `dir` (for tests of crash recovery).
    pub fn with_recovery_dir(mut self, dir: &Path) -> Self {
        let r = Recovery::new(dir);
        self.modals.retain(|m| !matches!(m, Modal::Recovery(_)));
        if let Some(copy) = r.load() {
            self.modals.push(Modal::Recovery(copy));
        }
        self.autosave.store = Some(r);
        self
    }

    /// The editor's text.
    pub fn text(&self) -> &str {
        &self.editor.text
    }

    /// True while there are unsaved changes.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// The window title as last set.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The newest check finished for the current text (false while the worker is busy).
    pub fn is_checked(&self) -> bool {
        self.checked
            .as_ref()
            .is_some_and(|c| c.version == self.editor.view.version)
    }

    /// The source line (0-based) highlighted from the expanded view.
    pub fn picked_line(&self) -> Option<usize> {
        self.editor.picked_line
    }

    /// The expanded-rule rows selected in the table.
    pub fn selected_rows(&self) -> std::ops::Range<usize> {
        self.expanded.selected.clone()
    }

    /// Gives the editor the keyboard focus.
    pub fn focus_editor(&self, ctx: &egui::Context) {
        ctx.memory_mut(|m| m.request_focus(self.editor.id()));
    }

    /// The file being edited.
    pub fn path(&self) -> Option<&Path> {
        self.doc.path.as_deref()
    }

    fn lang(&self) -> Lang {
        self.persisted.lang
    }

    fn display_name(&self) -> String {
        if let Some(p) = &self.doc.path {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.display().to_string())
        } else if let Some(e) = self.doc.example {
            format!("{e} {}", tr(self.lang(), T::ExampleSuffix))
        } else {
            tr(self.lang(), T::Untitled).to_string()
        }
    }

    fn file_name_for_reports(&self) -> String {
        self.doc
            .path
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .or_else(|| self.doc.example.map(str::to_string))
            .unwrap_or_else(|| "untitled.kmt".into())
    }

    // ----- frame -----

    /// Shows the whole studio in `ui` (the window's root ui, or a test harness's).
    pub fn show(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        self.begin_frame(&ctx);
        let lang = self.lang();
        egui::Panel::top("kumite-menu").show(ui, |ui| self.menu_bar(ui));
        egui::Panel::bottom("kumite-status").show(ui, |ui| self.status_bar(ui));
        self.diagnostics_panel(ui, lang);
        self.forced_widths = self.layout_widths(ui.available_width());
        if self.persisted.show_match {
            self.match_panel(ui, lang);
        }
        self.view_panel(ui, lang);
        self.editor_panel(ui, lang);
        self.end_frame(&ctx);
    }

    /// Before the panels: fonts and theme, the checker's answer, shortcuts, the match's keys
    /// and clock, a close request, the file on disk.
    fn begin_frame(&mut self, ctx: &egui::Context) {
        if SIGNALLED.load(std::sync::atomic::Ordering::SeqCst) != 0 && !self.allow_close {
            // A terminate signal: keep unsaved work in the recovery copy, then close (the AIs
            // were ended by the signal's handler; main exits with 128 + the signal).
            self.save_recovery_now();
            self.allow_close = true;
            ctx.send_viewport_cmd(ViewportCommand::Close);
        }
        if !self.fonts_installed {
            fonts::install(ctx);
            self.fonts_installed = true;
        }
        if self.applied_theme != Some(self.persisted.theme) {
            ctx.set_theme(match self.persisted.theme {
                ThemeChoice::Dark => egui::Theme::Dark,
                ThemeChoice::Light => egui::Theme::Light,
            });
            self.applied_theme = Some(self.persisted.theme);
        }
        if let Some(c) = self.worker.poll() {
            self.editor.view.set_marks(&c);
            if let Some(v) = &c.view {
                self.last_good = Some(v.clone());
                // New rules: their learned evaluation is looked up below.
                self.matchp.rules_changed_since_lookup();
            }
            self.editor.assist.update(&c, self.last_good.as_ref());
            self.checked = Some(c);
        }
        self.shortcuts(ctx);
        if ctx.memory(|m| m.has_focus(match_panel::focus_id())) {
            self.matchp.keys(ctx, self.lang());
        }
        // A save, Save As or the first edit since one: the learned evaluation and where Learn
        // writes follow the document.
        let prog = self
            .last_good
            .as_ref()
            .and_then(|v| v.compiled.program.as_ref());
        self.matchp
            .document_changed(self.doc.path.as_deref(), self.dirty, prog);
        let lang = self.lang();
        self.matchp.poll_learning(lang, prog);
        self.matchp.tick(ctx);
        self.close_request(ctx);
        if let Some(p) = self.doc.path.clone()
            && !self.disk_changed
        {
            if self.watch.changed(&p) {
                self.disk_changed = true;
            }
            ctx.request_repaint_after(Duration::from_secs(1));
        }
    }

    /// The problems list (bottom); a picked problem selects its text, "Fix…" offers its fixes.
    fn diagnostics_panel(&mut self, ui: &mut Ui, lang: Lang) {
        let diag_panel = egui::Panel::bottom("kumite-diagnostics")
            .resizable(true)
            .default_size(self.persisted.diagnostics_height)
            .size_range(80.0..=900.0)
            .show(ui, |ui| {
                // Fill the panel, so it keeps its size when the list is short.
                ui.set_min_size(ui.available_size());
                let file = self.file_name_for_reports();
                let busy = self.worker.busy();
                self.diagnostics
                    .ui(ui, lang, self.checked.as_ref(), busy, &file)
            });
        if let Some(i) = diag_panel.inner {
            let span = self.editor.view.mark_span(i).or_else(|| {
                self.checked
                    .as_ref()
                    .and_then(|c| c.diags.get(i))
                    .map(|d| d.diag.span.clone())
            });
            if let Some(span) = span {
                self.editor.select(span);
            }
        }
        self.persisted.diagnostics_height = diag_panel.response.rect.height();
        if let Some(i) = self.diagnostics.fix_request.take()
            && let Some(d) = self.checked.as_ref().and_then(|c| c.diags.get(i))
        {
            let span = self.editor.view.mark_span(i).unwrap_or(d.diag.span.clone());
            self.editor.select(span.start..span.start);
            self.editor.offer_fixes(span.start, lang);
        }
    }

    /// The view panel (right): expanded rules, victory conditions, win path, report.
    fn view_panel(&mut self, ui: &mut Ui, lang: Lang) {
        let stale = self.checked.as_ref().is_some_and(|c| c.errors > 0);
        let cursor_line = self.editor.cursor.0 + 1;
        // The editor keeps at least 320 points: a panel widened once (by a long line, or by
        // dragging) and remembered would otherwise hide it.
        let widest = (ui.available_width() - 320.0).max(240.0);
        let exp_panel = egui::Panel::right("kumite-expanded")
            .resizable(true)
            .default_size(self.persisted.expanded_width.min(widest))
            .size_range(240.0..=widest);
        let exp_panel = match self.forced_widths {
            Some((w, _)) => exp_panel.exact_size(w),
            None => exp_panel,
        };
        let exp_panel = exp_panel.show(ui, |ui| {
            ui.set_min_size(ui.available_size());
            // Wraps in a narrow panel rather than widening it.
            ui.horizontal_wrapped(|ui| {
                let tab = &mut self.persisted.view_tab;
                ui.selectable_value(tab, ViewTab::Expanded, tr(lang, T::ExpandedRules));
                ui.selectable_value(tab, ViewTab::Tree, tr(lang, T::VictoryConditions));
                ui.selectable_value(tab, ViewTab::WinPath, tr(lang, T::WinPath));
                ui.selectable_value(tab, ViewTab::Report, tr(lang, T::Report));
            });
            ui.separator();
            match self.persisted.view_tab {
                ViewTab::Expanded => self
                    .expanded
                    .ui(ui, lang, self.last_good.as_deref(), stale, cursor_line)
                    .map(|a| match a {
                        ExpandedAction::ShowLine(l) => Some(l),
                        ExpandedAction::Export => None,
                    }),
                ViewTab::Tree => self.tree_tab(ui, lang, stale).map(Some),
                ViewTab::WinPath => self.winpath_tab(ui, lang).map(Some),
                ViewTab::Report => self.report_tab(ui, lang).map(Some),
            }
        });
        self.persisted.expanded_width = exp_panel.response.rect.width();
        match exp_panel.inner {
            Some(Some(line)) => {
                self.editor.picked_line = Some(line.saturating_sub(1));
                self.editor.reveal_line(line.saturating_sub(1));
            }
            Some(None) => self.ask_path(DialogKind::Export, None),
            None => {}
        }
    }

    /// The editor (centre), under any banners; a "Sweep this value" starts a report.
    fn editor_panel(&mut self, ui: &mut Ui, lang: Lang) {
        let central = egui::CentralPanel::default().show(ui, |ui| {
            self.banners(ui);
            let Self {
                editor, checked, ..
            } = self;
            let diags = checked
                .as_ref()
                .map(|c| c.diags.as_slice())
                .unwrap_or_default();
            editor.ui(ui, lang, diags).sweep
        });
        if let Some(spec) = central.inner {
            self.report.sweep = spec;
            self.start_report(ui.ctx());
        }
    }

    /// After the panels: a changed text goes to the checker; autosave, dialogs, a deferred
    /// action, the window title.
    fn end_frame(&mut self, ctx: &egui::Context) {
        if self.editor.view.version != self.seen_version {
            self.seen_version = self.editor.view.version;
            self.dirty = self.editor.text != self.doc.saved_text;
            let text: Arc<str> = Arc::from(self.editor.text.as_str());
            self.worker.submit(
                self.editor.view.version,
                text,
                self.editor.cursor.0,
                Some(ctx.clone()),
            );
        }
        self.autosave(ctx);
        self.dialogs(ctx);
        if let Some(a) = self.pending.take() {
            self.perform(ctx, a);
        }

        let title = format!(
            "{}{} — Kumite",
            self.display_name(),
            if self.dirty { " ●" } else { "" }
        );
        if title != self.title {
            ctx.send_viewport_cmd(ViewportCommand::Title(title.clone()));
            self.title = title;
        }
    }

    fn shortcuts(&mut self, ctx: &egui::Context) {
        let sc = |m, k| KeyboardShortcut::new(m, k);
        let shift_cmd = Modifiers::COMMAND | Modifiers::SHIFT;
        if ctx.input_mut(|i| i.consume_shortcut(&sc(shift_cmd, Key::S))) {
            self.ask_path(DialogKind::SaveAs, None);
        }
        if ctx.input_mut(|i| i.consume_shortcut(&sc(Modifiers::COMMAND, Key::S))) {
            self.save(None);
        }
        if ctx.input_mut(|i| i.consume_shortcut(&sc(Modifiers::COMMAND, Key::N))) {
            self.request(ctx, Action::New);
        }
        if ctx.input_mut(|i| i.consume_shortcut(&sc(Modifiers::COMMAND, Key::O))) {
            self.request(ctx, Action::Open);
        }
        if ctx.input_mut(|i| i.consume_shortcut(&sc(Modifiers::COMMAND, Key::F))) {
            self.editor.open_find();
        }
        if ctx.input_mut(|i| i.consume_shortcut(&sc(Modifiers::NONE, Key::F4))) {
            if self.editor.builder.is_some() {
                self.editor.builder = None;
            } else {
                self.editor.open_builder(ctx);
            }
        }
        if ctx.input_mut(|i| i.consume_shortcut(&sc(Modifiers::SHIFT | Modifiers::ALT, Key::F))) {
            self.editor.format_file(ctx);
        }
        self.view_shortcuts(ctx);
    }

    fn close_request(&mut self, ctx: &egui::Context) {
        if !ctx.input(|i| i.viewport().close_requested()) {
            return;
        }
        if self.dirty && !self.allow_close {
            ctx.send_viewport_cmd(ViewportCommand::CancelClose);
            self.open_modal(Modal::Unsaved(Action::Close));
        } else if !self.dirty {
            self.clear_recovery();
        }
    }

    fn menu_bar(&mut self, ui: &mut Ui) {
        let lang = self.lang();
        let ctx = ui.ctx().clone();
        let sc = |m, k| ctx.format_shortcut(&KeyboardShortcut::new(m, k));
        let item = |ui: &mut Ui, key: T, shortcut: String| {
            ui.add(egui::Button::new(tr(lang, key)).shortcut_text(shortcut))
                .clicked()
        };
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button(tr(lang, T::MenuFile), |ui| {
                if item(ui, T::New, sc(Modifiers::COMMAND, Key::N)) {
                    self.request(&ctx, Action::New);
                }
                if item(ui, T::Open, sc(Modifiers::COMMAND, Key::O)) {
                    self.request(&ctx, Action::Open);
                }
                if item(ui, T::Save, sc(Modifiers::COMMAND, Key::S)) {
                    self.save(None);
                }
                if item(
                    ui,
                    T::SaveAs,
                    sc(Modifiers::COMMAND | Modifiers::SHIFT, Key::S),
                ) {
                    self.ask_path(DialogKind::SaveAs, None);
                }
                ui.separator();
                ui.menu_button(tr(lang, T::Recent), |ui| {
                    if self.persisted.recent.is_empty() {
                        ui.weak(tr(lang, T::NoRecent));
                    }
                    for p in self.persisted.recent.clone() {
                        if ui.button(p.display().to_string()).clicked() {
                            self.request(&ctx, Action::OpenPath(p));
                        }
                    }
                    if !self.persisted.recent.is_empty() {
                        ui.separator();
                        if ui.button(tr(lang, T::ClearRecent)).clicked() {
                            self.persisted.recent.clear();
                        }
                    }
                });
                ui.separator();
                if ui
                    .add_enabled(
                        self.last_good.is_some(),
                        egui::Button::new(tr(lang, T::ExportExpanded)),
                    )
                    .clicked()
                {
                    self.ask_path(DialogKind::Export, None);
                }
                if ui
                    .add_enabled(
                        self.matchp.session.as_ref().is_some_and(|s| s.over()),
                        egui::Button::new(tr(lang, T::SaveMatch)),
                    )
                    .clicked()
                {
                    self.ask_path(DialogKind::SaveMatch, None);
                }
                if ui.button(tr(lang, T::OpenMatch)).clicked() {
                    self.ask_path(DialogKind::OpenMatch, None);
                }
                ui.separator();
                if ui.button(tr(lang, T::Quit)).clicked() {
                    ctx.send_viewport_cmd(ViewportCommand::Close);
                }
            });
            ui.menu_button(tr(lang, T::MenuEdit), |ui| {
                if item(ui, T::Undo, sc(Modifiers::COMMAND, Key::Z)) {
                    self.editor.undo(&ctx, false);
                }
                if item(
                    ui,
                    T::Redo,
                    sc(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z),
                ) {
                    self.editor.undo(&ctx, true);
                }
                ui.separator();
                if item(ui, T::Find, sc(Modifiers::COMMAND, Key::F)) {
                    self.editor.open_find();
                }
                if item(ui, T::ToggleComment, sc(Modifiers::COMMAND, Key::Slash)) {
                    self.editor.toggle_comment(&ctx);
                }
                if item(ui, T::Indent, "Tab".into()) {
                    self.editor.indent(&ctx, false);
                }
                if item(ui, T::Outdent, sc(Modifiers::SHIFT, Key::Tab)) {
                    self.editor.indent(&ctx, true);
                }
                ui.separator();
                if ui
                    .add(egui::Button::new(tr(lang, T::RuleBuilder)).shortcut_text("F4"))
                    .clicked()
                {
                    self.editor.open_builder(&ctx);
                    ui.close();
                }
                if ui
                    .add(egui::Button::new(tr(lang, T::FormatFile)).shortcut_text("Shift+Alt+F"))
                    .clicked()
                {
                    self.editor.format_file(&ctx);
                    ui.close();
                }
            });
            ui.menu_button(tr(lang, T::Examples), |ui| {
                for (name, _) in files::EXAMPLES {
                    if ui.button(*name).clicked() {
                        self.request(&ctx, Action::OpenExample(name));
                    }
                }
            });
            self.match_menu(ui, lang);
            ui.menu_button(tr(lang, T::MenuView), |ui| {
                ui.label(RichText::new(tr(lang, T::Theme)).weak());
                ui.radio_value(
                    &mut self.persisted.theme,
                    ThemeChoice::Dark,
                    tr(lang, T::Dark),
                );
                ui.radio_value(
                    &mut self.persisted.theme,
                    ThemeChoice::Light,
                    tr(lang, T::Light),
                );
                ui.separator();
                ui.label(RichText::new(tr(lang, T::Language)).weak());
                ui.radio_value(&mut self.persisted.lang, Lang::En, "English");
                ui.radio_value(&mut self.persisted.lang, Lang::Ja, "日本語");
            });
        });
    }

    fn status_bar(&mut self, ui: &mut Ui) {
        let lang = self.lang();
        ui.horizontal(|ui| {
            let where_ = match &self.doc.path {
                Some(p) => p.display().to_string(),
                None => self.display_name(),
            };
            ui.label(format!("{where_}{}", if self.dirty { " ●" } else { "" }));
            ui.separator();
            let (l, c) = self.editor.cursor;
            let pos = trn(lang, T::LineColumn, &[&(l + 1), &c]);
            ui.label(pos);
            if let Some(c) = &self.checked {
                ui.separator();
                ui.weak(trf(lang, T::CheckedIn, c.elapsed.as_millis()));
            }
            if let Some(n) = &self.notice {
                ui.separator();
                ui.weak(n);
            }
            ui.separator();
            let name = self.file_name_for_reports();
            self.balance
                .follow(ui.ctx(), self.last_good.as_ref(), &name);
            self.balance.ui(ui, lang);
        });
    }

    fn banners(&mut self, ui: &mut Ui) {
        let lang = self.lang();
        if self.disk_changed {
            let name = self.display_name();
            let ctx = ui.ctx().clone();
            ui.horizontal(|ui| {
                let key = if self.dirty {
                    T::ChangedOnDiskDirty
                } else {
                    T::ChangedOnDisk
                };
                ui.label(RichText::new(trf(lang, key, &name)).strong());
                if ui.button(tr(lang, T::ReloadBtn)).clicked() {
                    self.disk_changed = false;
                    self.perform(&ctx, Action::Reload);
                }
                if ui.button(tr(lang, T::IgnoreBtn)).clicked() {
                    self.disk_changed = false;
                    self.watch.reset(self.doc.path.as_deref());
                }
            });
            ui.separator();
        }
    }
}

impl eframe::App for StudioApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.persisted);
        eframe::set_value(storage, MatchSettings::KEY, &self.matchp.settings);
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        if !self.dirty {
            self.clear_recovery();
        }
    }
}
