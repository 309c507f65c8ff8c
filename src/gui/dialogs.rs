//! The studio's modal dialogs — recover unsaved work, save changes first, the studio's own
//! path dialog, an error — on one stack: the newest is shown and answered first, and the one
//! under it comes back afterwards.

use super::files::{DialogKind, PathDialog, Recovered, read_rule_file};
use super::i18n::{T, tr, trf};
use super::{Action, StudioApp};
use egui::Key;
use std::path::PathBuf;

/// A modal dialog. They stack: a dialog opened while another is shown (an error while saving
/// from the path dialog, say) goes on top and is answered first; the one below then comes back.
pub(super) enum Modal {
    /// "Recover unsaved work?" for a copy found at start.
    Recovery(Recovered),
    /// "Save changes?" before an action that would drop unsaved edits.
    Unsaved(Action),
    /// The studio's own path dialog; `then` runs after a successful Save As.
    Path {
        dialog: PathDialog,
        then: Option<Action>,
    },
    /// An error message with OK.
    Error(String),
}

/// The answer to "save changes?" before an action that would drop unsaved edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum UnsavedAnswer {
    /// Save, then go on.
    Save,
    /// Go on without saving.
    Discard,
    /// Stay.
    Cancel,
}

impl StudioApp {
    /// Shows `m` on top of any open dialog (replacing an open dialog of the same kind).
    pub(super) fn open_modal(&mut self, m: Modal) {
        let same = |a: &Modal| std::mem::discriminant(a) == std::mem::discriminant(&m);
        self.modals.retain(|a| !same(a));
        self.modals.push(m);
    }

    /// The top modal dialog, if any: shown, and answered or kept for the next frame.
    pub(super) fn dialogs(&mut self, ctx: &egui::Context) {
        let Some(top) = self.modals.pop() else {
            return;
        };
        let depth = self.modals.len();
        let kept = match top {
            Modal::Recovery(r) => self.recovery_dialog(ctx, r),
            Modal::Unsaved(action) => self.unsaved_dialog(ctx, action),
            Modal::Path { dialog, then } => self.path_dialog_ui(ctx, dialog, then),
            Modal::Error(e) => self.error_dialog(ctx, e),
        };
        if let Some(m) = kept {
            // Under whatever its answer opened (an error from the path dialog, say).
            let at = depth.min(self.modals.len());
            self.modals.insert(at, m);
        }
    }

    /// "Recover unsaved work?" for a copy found at start.
    fn recovery_dialog(&mut self, ctx: &egui::Context, r: Recovered) -> Option<Modal> {
        let lang = self.lang();
        let name = r
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| tr(lang, T::Untitled).to_string());
        let mut answer = None;
        egui::Modal::new(egui::Id::unique("kumite-recovery")).show(ctx, |ui| {
            ui.heading(tr(lang, T::RecoveryTitle));
            ui.label(trf(lang, T::RecoveryBody, &name));
            ui.horizontal(|ui| {
                if ui.button(tr(lang, T::RecoverBtn)).clicked() {
                    answer = Some(true);
                }
                if ui.button(tr(lang, T::DiscardRecoveryBtn)).clicked() {
                    answer = Some(false);
                }
            });
        });
        match answer {
            Some(true) => {
                let saved = r
                    .path
                    .as_ref()
                    .and_then(|p| read_rule_file(p).ok())
                    .unwrap_or_default();
                self.load_text(ctx, r.text, r.path, None);
                self.doc.saved_text = saved;
                // Keep the copy until this work is saved.
                self.autosave.written = true;
                None
            }
            Some(false) => {
                if let Some(rec) = &self.autosave.store {
                    rec.clear();
                }
                None
            }
            None => Some(Modal::Recovery(r)),
        }
    }

    /// "Save changes?" before `action` drops unsaved edits.
    fn unsaved_dialog(&mut self, ctx: &egui::Context, action: Action) -> Option<Modal> {
        let lang = self.lang();
        let name = self.display_name();
        let mut answer = None;
        egui::Modal::new(egui::Id::unique("kumite-unsaved")).show(ctx, |ui| {
            ui.heading(tr(lang, T::UnsavedTitle));
            ui.label(trf(lang, T::UnsavedBody, &name));
            ui.horizontal(|ui| {
                if ui.button(tr(lang, T::SaveBtn)).clicked() {
                    answer = Some(UnsavedAnswer::Save);
                }
                if ui.button(tr(lang, T::DiscardBtn)).clicked() {
                    answer = Some(UnsavedAnswer::Discard);
                }
                if ui.button(tr(lang, T::CancelBtn)).clicked() {
                    answer = Some(UnsavedAnswer::Cancel);
                }
            });
        });
        match answer {
            Some(UnsavedAnswer::Save) => {
                if self.save(Some(action.clone())) {
                    self.perform(ctx, action);
                }
                None
            }
            Some(UnsavedAnswer::Discard) => {
                if action != Action::Close {
                    self.clear_recovery();
                }
                self.perform(ctx, action);
                None
            }
            Some(UnsavedAnswer::Cancel) => None,
            None => Some(Modal::Unsaved(action)),
        }
    }

    /// The studio's own path dialog (when the system's file dialog is unavailable or in tests).
    fn path_dialog_ui(
        &mut self,
        ctx: &egui::Context,
        mut d: PathDialog,
        then: Option<Action>,
    ) -> Option<Modal> {
        let lang = self.lang();
        let title = match d.kind {
            DialogKind::Open => T::PathDialogOpen,
            DialogKind::SaveAs => T::PathDialogSave,
            DialogKind::Export => T::PathDialogExport,
            DialogKind::SaveMatch => T::PathDialogSaveMatch,
            DialogKind::OpenMatch => T::PathDialogOpenMatch,
            DialogKind::CompareWith => T::PathDialogCompare,
        };
        let mut done = None;
        let mut keep = true;
        egui::Modal::new(egui::Id::unique("kumite-path")).show(ctx, |ui| {
            ui.set_min_width(520.0);
            ui.heading(tr(lang, title));
            if self.portal_missing {
                ui.weak(tr(lang, T::NoPortal));
            }
            let label = ui.label(tr(lang, T::PathLabel));
            let resp = ui
                .add(
                    egui::TextEdit::singleline(&mut d.input)
                        .hint_text(tr(lang, T::PathHint))
                        .desired_width(f32::INFINITY),
                )
                .labelled_by(label.id);
            if !resp.has_focus() && !resp.lost_focus() && d.error.is_none() {
                resp.request_focus();
            }
            if resp.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                done = Some(PathBuf::from(d.input.trim()));
            }
            if let Some(e) = &d.error {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            let near = d.neighbours();
            if !near.is_empty() {
                egui::ScrollArea::vertical()
                    .max_height(160.0)
                    .show(ui, |ui| {
                        for p in near {
                            let name = p
                                .file_name()
                                .map(|n| n.to_string_lossy().into_owned())
                                .unwrap_or_default();
                            if ui.selectable_label(false, name).clicked() {
                                d.input = p.display().to_string();
                            }
                        }
                    });
            }
            ui.horizontal(|ui| {
                if ui.button(tr(lang, T::OkBtn)).clicked() {
                    done = Some(PathBuf::from(d.input.trim()));
                }
                if ui.button(tr(lang, T::CancelBtn)).clicked() {
                    keep = false;
                }
            });
        });
        if let Some(p) = done {
            match self.path_chosen(d.kind, p, then.clone()) {
                Ok(()) => keep = false,
                // Shown in the dialog, which stays open to try another path.
                Err(e) => d.error = Some(e),
            }
        }
        keep.then_some(Modal::Path { dialog: d, then })
    }

    /// An error message with OK.
    fn error_dialog(&mut self, ctx: &egui::Context, e: String) -> Option<Modal> {
        let lang = self.lang();
        let mut ok = false;
        egui::Modal::new(egui::Id::unique("kumite-error")).show(ctx, |ui| {
            ui.heading(tr(lang, T::ErrorTitle));
            ui.label(&e);
            ok = ui.button(tr(lang, T::OkBtn)).clicked();
        });
        (!ok).then_some(Modal::Error(e))
    }
}
