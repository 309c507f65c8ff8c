//! The open document's file work, as the studio's actions: new, open, reload, save, save as,
//! export, close (each asking about unsaved changes first), and crash-recovery autosave.

use super::dialogs::Modal;
use super::files::{
    self, DialogKind, NativeAnswer, PathDialog, push_recent, read_rule_file, save_rule_file,
};
use super::i18n::{T, tr, trf};
use super::{Action, Document, StudioApp};
use egui::ViewportCommand;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

impl StudioApp {
    pub(super) fn request(&mut self, ctx: &egui::Context, action: Action) {
        if self.dirty {
            // Asked before any file dialog, so the answer is never lost behind it.
            self.open_modal(Modal::Unsaved(action));
        } else {
            self.perform(ctx, action);
        }
    }

    pub(super) fn perform(&mut self, ctx: &egui::Context, action: Action) {
        match action {
            Action::New => {
                self.load_text(ctx, String::new(), None, None);
            }
            Action::Open => self.ask_path(DialogKind::Open, None),
            Action::OpenPath(p) => self.open_path(ctx, &p),
            Action::OpenExample(name) => {
                let text = files::example(name).unwrap_or_default().to_string();
                self.load_text(ctx, text, None, Some(name));
            }
            Action::Reload => {
                if let Some(p) = self.doc.path.clone() {
                    self.open_path(ctx, &p);
                }
            }
            Action::Close => {
                self.clear_recovery();
                self.allow_close = true;
                ctx.send_viewport_cmd(ViewportCommand::Close);
            }
        }
    }

    pub(super) fn open_path(&mut self, ctx: &egui::Context, p: &Path) {
        match read_rule_file(p) {
            Ok(text) => {
                self.load_text(ctx, text, Some(p.to_path_buf()), None);
                push_recent(&mut self.persisted.recent, p);
                self.persisted.last_file = Some(p.to_path_buf());
            }
            Err(e) => {
                let e = format!("{}: {e}", trf(self.lang(), T::OpenFailed, p.display()));
                self.open_modal(Modal::Error(e));
            }
        }
    }

    pub(super) fn load_text(
        &mut self,
        ctx: &egui::Context,
        text: String,
        path: Option<PathBuf>,
        example: Option<&'static str>,
    ) {
        self.doc = Document {
            path,
            example,
            saved_text: text.clone(),
        };
        self.editor.set_text(ctx, text);
        self.notice = None;
        self.dirty = false;
        self.disk_changed = false;
        self.watch.reset(self.doc.path.as_deref());
        self.diagnostics.selected = None;
        self.clear_recovery();
        if self.doc.path.is_none() {
            self.persisted.last_file = None;
        }
    }

    /// Saves to the file's path (or asks for one, then runs `then`); true if saved now. A
    /// failure is shown in an error dialog.
    pub(super) fn save(&mut self, then: Option<Action>) -> bool {
        match self.doc.path.clone() {
            Some(p) => match self.save_to(&p) {
                Ok(()) => true,
                Err(e) => {
                    self.open_modal(Modal::Error(e));
                    false
                }
            },
            None => {
                self.ask_path(DialogKind::SaveAs, then);
                false
            }
        }
    }

    pub(super) fn save_to(&mut self, p: &Path) -> Result<(), String> {
        match save_rule_file(p, &self.editor.text) {
            Ok(()) => {
                self.doc.path = Some(p.to_path_buf());
                self.doc.example = None;
                self.doc.saved_text = self.editor.text.clone();
                self.dirty = false;
                self.disk_changed = false;
                self.watch.reset(Some(p));
                push_recent(&mut self.persisted.recent, p);
                self.persisted.last_file = Some(p.to_path_buf());
                self.clear_recovery();
                self.notice = Some(trf(self.lang(), T::Saved, p.display()));
                Ok(())
            }
            Err(e) => Err(format!(
                "{}: {e}",
                trf(self.lang(), T::SaveFailed, p.display())
            )),
        }
    }

    pub(super) fn export_to(&mut self, p: &Path) -> Result<(), String> {
        let Some(view) = self.last_good.clone() else {
            return Ok(());
        };
        let text = crate::pipeline::expanded_kmt(&view.compiled, &self.file_name_for_reports());
        save_rule_file(p, &text)
            .map(|()| self.notice = Some(trf(self.lang(), T::Exported, p.display())))
            .map_err(|e| format!("{}: {e}", trf(self.lang(), T::SaveFailed, p.display())))
    }

    /// Asks for a path: the system's dialog, or (when there is none) the studio's own. `then`
    /// runs after a successful Save As.
    pub(super) fn ask_path(&mut self, kind: DialogKind, then: Option<Action>) {
        let dir = self
            .doc
            .path
            .as_ref()
            .and_then(|p| p.parent())
            .map(Path::to_path_buf)
            .or_else(|| std::env::current_dir().ok());
        let name = match kind {
            DialogKind::Export => {
                let stem = self.file_name_for_reports();
                format!("{}_expanded.kmt", stem.trim_end_matches(".kmt"))
            }
            DialogKind::SaveMatch => {
                let stem = self.file_name_for_reports();
                format!("{}_match.jsonl", stem.trim_end_matches(".kmt"))
            }
            _ => self.file_name_for_reports(),
        };
        if self.native_dialogs {
            match files::native_dialog(kind, tr(self.lang(), T::FileFilter), dir.as_deref(), &name)
            {
                NativeAnswer::Picked(p) => {
                    if let Err(e) = self.path_chosen(kind, p, then) {
                        self.open_modal(Modal::Error(e));
                    }
                    return;
                }
                NativeAnswer::Cancelled => return,
                NativeAnswer::Unavailable => {
                    self.native_dialogs = false;
                    self.portal_missing = true;
                }
            }
        }
        let initial = match kind {
            DialogKind::Open | DialogKind::OpenMatch | DialogKind::CompareWith => {
                dir.map(|d| format!("{}/", d.display())).unwrap_or_default()
            }
            _ => dir
                .map(|d| d.join(&name).display().to_string())
                .unwrap_or(name),
        };
        self.open_modal(Modal::Path {
            dialog: PathDialog::new(kind, initial),
            then,
        });
    }

    /// Acts on a path from either dialog (`then` after a Save As); returns why it failed.
    pub(super) fn path_chosen(
        &mut self,
        kind: DialogKind,
        p: PathBuf,
        then: Option<Action>,
    ) -> Result<(), String> {
        match kind {
            DialogKind::Open => {
                if let Err(e) = read_rule_file(&p) {
                    return Err(format!(
                        "{}: {e}",
                        trf(self.lang(), T::OpenFailed, p.display())
                    ));
                }
                self.pending = Some(Action::OpenPath(p));
                Ok(())
            }
            DialogKind::SaveAs => {
                self.save_to(&p)?;
                if then.is_some() {
                    self.pending = then;
                }
                Ok(())
            }
            DialogKind::Export => self.export_to(&p),
            DialogKind::SaveMatch => self.save_match_to(&p),
            DialogKind::OpenMatch => self.open_match(&p),
            DialogKind::CompareWith => {
                let text = read_rule_file(&p).map_err(|e| {
                    format!("{}: {e}", trf(self.lang(), T::OpenFailed, p.display()))
                })?;
                let name = p.display().to_string();
                self.pending_compare = Some(self.other_version(text, name)?);
                Ok(())
            }
        }
    }

    /// File → Open match: a log of `kumite match --log` (or Save match) played on the rules
    /// open and saved now, loaded into the match panel as a replay with a slider over its turns.
    pub(super) fn open_match(&mut self, p: &Path) -> Result<(), String> {
        let lang = self.lang();
        let why = |e: &str| format!("{}: {e}", tr(lang, T::OpenMatchFailed));
        let text = std::fs::read_to_string(p).map_err(|e| why(&e.to_string()))?;
        let mut entries = Vec::new();
        for (n, l) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
            let v: serde_json::Value = serde_json::from_str(l)
                .map_err(|e| why(&format!("line {}: not JSON: {e}", n + 1)))?;
            entries.push(v);
        }
        let header = entries
            .first()
            .filter(|h| h["type"] == "match")
            .ok_or_else(|| why("line 1 is not a match header"))?
            .clone();
        let v = self
            .last_good
            .clone()
            .ok_or_else(|| why("the rules have errors"))?;
        let hash = crate::program::text_hash(&self.doc.saved_text);
        if self.dirty
            || header["rules_hash"].as_str() != Some(hash.as_str())
            || *v.source != *self.doc.saved_text
        {
            return Err(why(&format!(
                "it was played on {} as it was then: open that rule file, unchanged and saved, first",
                header["rules"].as_str().unwrap_or("?")
            )));
        }
        if header["set"].as_array().is_some_and(|a| !a.is_empty()) {
            return Err(why(
                "it was played with --set start values, which the panel cannot replay",
            ));
        }
        let seed = header["seed"]
            .as_u64()
            .ok_or_else(|| why("the header has no seed"))?;
        let first = if header["first"] == "c" {
            crate::side::C
        } else {
            crate::side::H
        };
        let prog = v
            .compiled
            .program
            .as_ref()
            .ok_or_else(|| why("the rules have errors"))?;
        // The moves, joined per turn.
        let mut moves: Vec<(u64, [Option<crate::program::CmdId>; 2])> = Vec::new();
        for m in entries.iter().skip(1).filter(|m| m["type"] == "move") {
            let turn = m["turn"].as_u64().unwrap_or(0);
            let side = usize::from(m["side"] == "c");
            let cmd = match m["command"].as_str() {
                Some(name) => Some(
                    prog.command_id(name)
                        .ok_or_else(|| why(&format!("the rules have no command [{name}]")))?,
                ),
                None => None,
            };
            match moves.last_mut() {
                Some((t, mv)) if *t == turn => mv[side] = cmd,
                _ => {
                    let mut mv = [None, None];
                    mv[side] = cmd;
                    moves.push((turn, mv));
                }
            }
        }
        let eng = crate::engine::Engine::new(prog, seed);
        let start = eng
            .initial(first)
            .map_err(|e| why(&format!("runtime error at {e}")))?;
        if let Some(s) = self.matchp.session.as_mut() {
            s.stop_thinking();
        }
        let human = super::session::Controller::Human;
        let mut s = super::session::MatchSession::new(
            v.compiled.clone(),
            v.graph.clone(),
            seed,
            [human, human],
            self.matchp.cpu_settings(&v),
            Some(start),
        )
        .map_err(|e| why(&e))?;
        s.load_replay(moves.into_iter().map(|(_, m)| m).collect(), Vec::new());
        s.started = true;
        self.matchp.session = Some(s);
        self.matchp.keep_old_rules = true;
        self.matchp.message = None;
        self.persisted.show_match = true;
        self.notice = Some(trf(lang, T::MatchOpened, p.display()));
        Ok(())
    }

    /// File → Save match: the finished match as `kumite match --log` writes it, so that
    /// `kumite replay` checks it. The rules must be saved, and be what the match was played on.
    pub(super) fn save_match_to(&mut self, p: &Path) -> Result<(), String> {
        let lang = self.lang();
        let why = |e: &str| format!("{}: {e}", tr(lang, T::SaveMatchFailed));
        let s = self
            .matchp
            .session
            .as_ref()
            .ok_or_else(|| why("there is no match"))?;
        let rules = self
            .doc
            .path
            .clone()
            .ok_or_else(|| why("save the rule file first: the log names it"))?;
        let same_rules = self.last_good.as_ref().is_some_and(|v| {
            Arc::ptr_eq(&v.compiled, &s.compiled) && *v.source == *self.doc.saved_text
        });
        if self.dirty || !same_rules {
            return Err(why(
                "the rules were changed since the match was played, or are not saved: the log could not be replayed",
            ));
        }
        if crate::fsutil::same_file(&rules, p) {
            return Err(why("that is the rule file itself"));
        }
        let text = s.log_text(&rules, &self.doc.saved_text).map_err(why)?;
        crate::fsutil::write_atomic(p, text.as_bytes()).map_err(|e| why(&e.to_string()))?;
        self.notice = Some(trf(lang, T::Saved, p.display()));
        Ok(())
    }

    pub(super) fn clear_recovery(&mut self) {
        if let Some(r) = &self.autosave.store
            && self.autosave.written
        {
            r.clear();
        }
        self.autosave.written = false;
    }

    /// Writes the recovery copy now if there are unsaved changes (the window is closing on a
    /// signal).
    pub(super) fn save_recovery_now(&mut self) {
        if let Some(r) = &self.autosave.store
            && self.dirty
            && r.save(&self.editor.text, self.doc.path.as_deref()).is_ok()
        {
            self.autosave.written = true;
            self.autosave.version = self.editor.view.version;
        }
    }

    /// Autosave: every few seconds while there are unsaved changes.
    pub(super) fn autosave(&mut self, ctx: &egui::Context) {
        let Some(r) = &self.autosave.store else {
            return;
        };
        if self.modals.iter().any(|m| matches!(m, Modal::Recovery(_))) {
            return; // Don't overwrite the copy the user has not answered about.
        }
        if !self.dirty {
            if self.autosave.written {
                r.clear();
                self.autosave.written = false;
            }
            return;
        }
        let due = self.autosave.last.elapsed() >= Duration::from_secs(3);
        if self.autosave.version != self.editor.view.version && due {
            if r.save(&self.editor.text, self.doc.path.as_deref()).is_ok() {
                self.autosave.written = true;
            }
            self.autosave.version = self.editor.view.version;
            self.autosave.last = Instant::now();
        } else if self.autosave.version != self.editor.view.version {
            ctx.request_repaint_after(Duration::from_secs(3));
        }
    }
}
