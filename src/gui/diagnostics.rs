//! The problems list under the editor, and the full ariadne report of the selected problem.

use super::i18n::{Lang, T, tr, trf, trn};
use super::worker::Checked;
use crate::diag::render_ariadne;
use egui::{Color32, RichText, Ui};
use egui_extras::{Column, TableBuilder};

/// The diagnostics panel.
#[derive(Default)]
pub struct DiagnosticsPanel {
    /// Selected entry (index into the last check's diagnostics).
    pub selected: Option<usize>,
    /// (check version, index) → rendered report.
    report: Option<((u64, usize), String)>,
    /// "Fix…" was clicked on this entry: the editor offers its quick fixes there.
    pub fix_request: Option<usize>,
}

impl DiagnosticsPanel {
    /// Shows the panel; returns the entry the user clicked (to move the cursor there).
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        lang: Lang,
        checked: Option<&Checked>,
        busy: bool,
        file_name: &str,
    ) -> Option<usize> {
        let mut clicked = None;
        let diags = checked.map(|c| c.diags.as_slice()).unwrap_or_default();
        if self.selected.is_some_and(|i| i >= diags.len()) {
            self.selected = None;
        }
        let errors = diags.iter().filter(|d| d.is_error()).count();
        let warnings = diags.len() - errors;
        ui.horizontal(|ui| {
            ui.strong(tr(lang, T::DiagnosticsTitle));
            if !diags.is_empty() {
                let e = if errors == 1 { T::OneError } else { T::NErrors };
                let w = if warnings == 1 {
                    T::OneWarning
                } else {
                    T::NWarnings
                };
                let text = trn(
                    lang,
                    T::ProblemCounts,
                    &[&trf(lang, e, errors), &trf(lang, w, warnings)],
                );
                ui.label(text);
            }
            if busy {
                ui.spinner();
                ui.weak(tr(lang, T::Checking));
            }
        });
        let dark = ui.visuals().dark_mode;
        let (err_c, warn_c) = if dark {
            (
                Color32::from_rgb(245, 90, 90),
                Color32::from_rgb(230, 185, 50),
            )
        } else {
            (
                Color32::from_rgb(200, 20, 20),
                Color32::from_rgb(170, 115, 0),
            )
        };

        if diags.is_empty() {
            if checked.is_some() && !busy {
                ui.label(tr(lang, T::NoProblems));
            }
            return None;
        }
        egui::Panel::right("kumite-diag-report")
            .resizable(true)
            .default_size(420.0)
            .size_range(160.0..=1200.0)
            .show(ui, |ui| {
                ui.strong(tr(lang, T::ReportTitle));
                match (self.selected, checked) {
                    (Some(i), Some(c)) if i < c.diags.len() => {
                        let key = (c.version, i);
                        if self.report.as_ref().is_none_or(|(k, _)| *k != key) {
                            let text = render_ariadne(&c.diags[i].diag, file_name, &c.text, false);
                            self.report = Some((key, text));
                        }
                        if let Some((_, text)) = &self.report {
                            egui::ScrollArea::both()
                                .id_salt("kumite-report-scroll")
                                .auto_shrink([false, false])
                                .show(ui, |ui| {
                                    ui.add(
                                        egui::Label::new(RichText::new(text).monospace())
                                            .wrap_mode(egui::TextWrapMode::Extend),
                                    );
                                });
                        }
                    }
                    _ => {
                        ui.weak(tr(lang, T::ReportHint));
                    }
                }
            });

        let row_h = ui.text_style_height(&egui::TextStyle::Body) + 6.0;
        TableBuilder::new(ui)
            .id_salt("kumite-diag-table")
            .striped(true)
            .sense(egui::Sense::click())
            .auto_shrink([false, false])
            .min_scrolled_height(0.0)
            .column(Column::exact(70.0))
            .column(Column::exact(80.0))
            .column(
                Column::initial(520.0)
                    .at_least(120.0)
                    .resizable(true)
                    .clip(true),
            )
            .column(Column::remainder().clip(true))
            .header(row_h, |mut h| {
                h.col(|ui| {
                    ui.strong(tr(lang, T::ColCode));
                });
                h.col(|ui| {
                    ui.strong(tr(lang, T::ColPosition));
                });
                h.col(|ui| {
                    ui.strong(tr(lang, T::ColMessage));
                });
                h.col(|ui| {
                    ui.strong(tr(lang, T::ColHelp));
                });
            })
            .body(|body| {
                body.rows(row_h, diags.len(), |mut row| {
                    let i = row.index();
                    let d = &diags[i];
                    let selected = self.selected == Some(i);
                    row.set_selected(selected);
                    let c = if d.is_error() { err_c } else { warn_c };
                    let mut hit = false;
                    row.col(|ui| {
                        let code = RichText::new(d.diag.code.as_str()).monospace().color(c);
                        hit |= ui
                            .selectable_label(selected, code)
                            .on_hover_text(code_meaning(lang, d.diag.code))
                            .clicked();
                    });
                    row.col(|ui| {
                        ui.add(egui::Label::new(format!("{}:{}", d.line, d.col)).selectable(false));
                    });
                    row.col(|ui| {
                        ui.add(
                            egui::Label::new(message(lang, &d.diag))
                                .selectable(false)
                                .truncate(),
                        );
                    });
                    row.col(|ui| {
                        if !d.diag.fixes.is_empty()
                            && ui
                                .small_button(tr(lang, T::Fix))
                                .on_hover_text(tr(lang, T::FixHint))
                                .clicked()
                        {
                            self.fix_request = Some(i);
                        }
                        if let Some(h) = &d.diag.help {
                            ui.add(
                                egui::Label::new(RichText::new(h).weak())
                                    .selectable(false)
                                    .truncate(),
                            );
                        }
                    });
                    if hit || row.response().clicked() {
                        self.selected = Some(i);
                        clicked = Some(i);
                    }
                });
            });
        clicked
    }
}

/// What a code means, in the studio's language.
fn code_meaning(lang: Lang, code: crate::diag::DiagCode) -> &'static str {
    match lang {
        Lang::En => code.summary(),
        Lang::Ja => code.summary_ja(),
    }
}

/// A problem's line in the list: the checker's message, led in Japanese by what its code
/// means (the message names the file's own names and tokens, and stays as written).
fn message(lang: Lang, d: &crate::diag::Diagnostic) -> String {
    match lang {
        Lang::En => d.message.clone(),
        Lang::Ja => format!("{} — {}", d.code.summary_ja(), d.message),
    }
}
