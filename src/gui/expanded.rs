//! The expanded-rules view: every rule after macros and symmetric blocks are written out, with
//! where it came from; also the initial state, key bindings, CPU settings and advantage lines.

use super::i18n::{Lang, T, tr, trf};
use super::worker::{ProgramView, origin_text};
use egui::{Align, Color32, RichText, Ui};
use egui_extras::{Column, TableBuilder};
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tab {
    Rules,
    Initial,
    Keys,
    Advantage,
}

/// What the user asked for in the view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpandedAction {
    /// A row was clicked: highlight this 1-based source line in the editor.
    ShowLine(usize),
    /// "Export expanded…".
    Export,
}

/// The expanded view's state.
pub struct ExpandedPanel {
    tab: Tab,
    /// Selected rule rows.
    pub selected: Range<usize>,
    scroll_to: Option<usize>,
    last_cursor_line: Option<usize>,
    /// The origin, conditions and effects columns' widths as last drawn: rows wrap in them.
    col_w: [f32; 3],
}

impl Default for ExpandedPanel {
    fn default() -> Self {
        Self {
            tab: Tab::Rules,
            selected: 0..0,
            scroll_to: None,
            last_cursor_line: None,
            col_w: [0.0; 3],
        }
    }
}

impl ExpandedPanel {
    /// Shows the view. `cursor_line` is the editor cursor's 1-based line: when it moves, the rows
    /// of that line are selected.
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        lang: Lang,
        view: Option<&ProgramView>,
        stale: bool,
        cursor_line: usize,
    ) -> Option<ExpandedAction> {
        let mut action = None;
        if let Some(v) = view
            && self.last_cursor_line != Some(cursor_line)
        {
            self.last_cursor_line = Some(cursor_line);
            self.selected = v.rows_of_line(cursor_line);
            if !self.selected.is_empty() {
                self.scroll_to = Some(self.selected.start);
            }
        }
        ui.horizontal(|ui| {
            ui.strong(tr(lang, T::ExpandedTitle));
            if let Some(v) = view {
                ui.weak(trf(lang, T::RulesCount, v.rules.len()));
            }
            ui.with_layout(egui::Layout::right_to_left(Align::Center), |ui| {
                if ui
                    .add_enabled(
                        view.is_some(),
                        egui::Button::new(tr(lang, T::ExportExpanded)),
                    )
                    .clicked()
                {
                    action = Some(ExpandedAction::Export);
                }
            });
        });
        if stale && view.is_some() {
            let c = if ui.visuals().dark_mode {
                Color32::from_rgb(230, 185, 50)
            } else {
                Color32::from_rgb(150, 100, 0)
            };
            ui.label(RichText::new(tr(lang, T::Stale)).color(c));
        }
        let Some(v) = view else {
            ui.label(tr(lang, T::NoProgram));
            return action;
        };
        ui.horizontal(|ui| {
            for (tab, key) in [
                (Tab::Rules, T::TabRules),
                (Tab::Initial, T::TabInitial),
                (Tab::Keys, T::TabKeys),
                (Tab::Advantage, T::TabAdvantage),
            ] {
                ui.selectable_value(&mut self.tab, tab, tr(lang, key));
            }
        });
        ui.separator();
        match self.tab {
            Tab::Rules => {
                if let Some(a) = self.rules_table(ui, lang, v) {
                    action = Some(a);
                }
            }
            Tab::Initial => initial_tab(ui, lang, v),
            Tab::Keys => keys_tab(ui, lang, v),
            Tab::Advantage => advantage_tab(ui, lang, v),
        }
        action
    }

    fn rules_table(&mut self, ui: &mut Ui, lang: Lang, v: &ProgramView) -> Option<ExpandedAction> {
        let mut action = None;
        let mono = egui::TextStyle::Monospace;
        let line_h = ui.text_style_height(&mono);
        let row_h = line_h + 6.0;
        // Long rules wrap inside their cells (cut at the column's edge, they were readable only
        // on hover). Each row is as tall as its longest cell wrapped at any character in the
        // width the column had last frame; with wide characters a line may end a narrow one's
        // gap early, so such a line is counted one wide character short.
        let font = mono.resolve(ui.style());
        let (narrow, wide) =
            ui.fonts_mut(|f| (f.glyph_width(&font, 'M'), f.glyph_width(&font, '字')));
        let col_w = self.col_w;
        let mut col_w_seen = col_w;
        let colour = ui.visuals().text_color();
        let ctx = ui.ctx().clone();
        let heights = v.rules.iter().map(move |r| {
            let lines = (0..3)
                .map(|c| {
                    let (n, w) = r.widths[c];
                    if col_w[c] <= 0.0 {
                        return 1.0;
                    }
                    if w == 0 {
                        // Narrow characters only: a line holds a whole number of them.
                        let per_line = (col_w[c] / narrow).floor().max(1.0);
                        return (n as f32 / per_line).ceil().max(1.0);
                    }
                    let px = n as f32 * narrow + w as f32 * wide;
                    (px / (col_w[c] - wide).max(wide)).ceil().max(1.0)
                })
                .fold(1.0, f32::max);
            lines * line_h + 6.0
        });
        // Initial column widths follow the panel, so the table never widens it.
        let w = ui.available_width();
        let (w_origin, w_conds) = ((w * 0.2).clamp(50.0, 160.0), (w * 0.42).clamp(60.0, 420.0));
        let mut table = TableBuilder::new(ui)
            .id_salt("kumite-rules-table")
            .striped(true)
            .sense(egui::Sense::click())
            .auto_shrink([false, false])
            .min_scrolled_height(0.0)
            .column(
                Column::initial(w_origin)
                    .at_least(50.0)
                    .resizable(true)
                    .clip(true),
            )
            .column(
                Column::initial(w_conds)
                    .at_least(60.0)
                    .resizable(true)
                    .clip(true),
            )
            .column(Column::exact(22.0))
            .column(Column::remainder().at_least(60.0).clip(true));
        if let Some(r) = self.scroll_to.take() {
            table = table.scroll_to_row(r, Some(Align::Center));
        }
        table
            .header(row_h, |mut h| {
                h.col(|ui| {
                    ui.strong(tr(lang, T::ColOrigin))
                        .on_hover_text(tr(lang, T::OriginHelp));
                });
                h.col(|ui| {
                    ui.strong(tr(lang, T::ColConditions));
                });
                h.col(|_| {});
                h.col(|ui| {
                    ui.strong(tr(lang, T::ColEffects));
                });
            })
            .body(|body| {
                body.heterogeneous_rows(heights, |mut row| {
                    let i = row.index();
                    let r = &v.rules[i];
                    row.set_selected(self.selected.contains(&i));
                    let mut cell = |ui: &mut Ui, text: String, c: Option<usize>| {
                        let w = ui.available_width();
                        if let Some(c) = c {
                            col_w_seen[c] = w;
                        }
                        let mut job = egui::text::LayoutJob::simple(text, font.clone(), colour, w);
                        job.wrap.break_anywhere = true;
                        let galley = ui.painter().layout_job(job);
                        ui.add(egui::Label::new(galley).selectable(false));
                    };
                    row.col(|ui| cell(ui, origin_text(r.line, r.mirrored, &r.macros), Some(0)));
                    row.col(|ui| cell(ui, format!("{}{}", r.period, r.conds), Some(1)));
                    row.col(|ui| cell(ui, r.sep.to_string(), None));
                    row.col(|ui| cell(ui, r.effects.clone(), Some(2)));
                    if row.response().clicked() {
                        self.selected = i..i + 1;
                        action = Some(ExpandedAction::ShowLine(r.line));
                    }
                });
            });
        // A column resized (or the first frame) sizes the rows again in the next one.
        if col_w_seen
            .iter()
            .zip(self.col_w)
            .any(|(a, b)| (a - b).abs() > 0.5)
        {
            self.col_w = col_w_seen;
            ctx.request_repaint();
        }
        action
    }
}

fn initial_tab(ui: &mut Ui, lang: Lang, v: &ProgramView) {
    egui::ScrollArea::vertical()
        .id_salt("kumite-initial")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            egui::Grid::new("kumite-initial-states")
                .striped(true)
                .num_columns(3)
                .show(ui, |ui| {
                    ui.strong(tr(lang, T::StateCol));
                    ui.strong(tr(lang, T::SideH));
                    ui.strong(tr(lang, T::SideC));
                    ui.end_row();
                    for (s, h, c) in &v.states {
                        ui.monospace(s);
                        ui.monospace(h.to_string());
                        ui.monospace(c.to_string());
                        ui.end_row();
                    }
                });
            ui.add_space(8.0);
            ui.strong(tr(lang, T::CommandsEnabled));
            egui::Grid::new("kumite-initial-cmds")
                .striped(true)
                .num_columns(3)
                .show(ui, |ui| {
                    ui.strong(tr(lang, T::CommandCol));
                    ui.strong(tr(lang, T::SideH));
                    ui.strong(tr(lang, T::SideC));
                    ui.end_row();
                    let mark = |on: bool| if on { "●" } else { "—" };
                    for (cmd, h, c) in &v.commands {
                        ui.monospace(format!("[{cmd}]"));
                        ui.monospace(mark(*h));
                        ui.monospace(mark(*c));
                        ui.end_row();
                    }
                });
            if !v.constants.is_empty() {
                ui.add_space(8.0);
                ui.strong(tr(lang, T::ConstantsTitle));
                egui::Grid::new("kumite-constants")
                    .striped(true)
                    .show(ui, |ui| {
                        for (n, val) in &v.constants {
                            ui.monospace(n);
                            ui.monospace(val.to_string());
                            ui.end_row();
                        }
                    });
            }
            if !v.macros.is_empty() {
                ui.add_space(8.0);
                ui.strong(tr(lang, T::MacrosTitle));
                egui::Grid::new("kumite-macros")
                    .striped(true)
                    .show(ui, |ui| {
                        for (n, alts) in &v.macros {
                            ui.monospace(format!("[{n}]"));
                            let alts: Vec<String> = alts.iter().map(|a| format!("[{a}]")).collect();
                            ui.monospace(alts.join(" ; "));
                            ui.end_row();
                        }
                    });
            }
        });
}

fn keys_tab(ui: &mut Ui, lang: Lang, v: &ProgramView) {
    egui::ScrollArea::vertical()
        .id_salt("kumite-keys")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            if v.keys.is_empty() {
                ui.label(tr(lang, T::NoKeys));
            } else {
                egui::Grid::new("kumite-keys-grid")
                    .striped(true)
                    .num_columns(2)
                    .show(ui, |ui| {
                        ui.strong(tr(lang, T::KeyCol));
                        ui.strong(tr(lang, T::CommandCol));
                        ui.end_row();
                        for (k, c) in &v.keys {
                            ui.monospace(k);
                            ui.monospace(format!("[{c}]"));
                            ui.end_row();
                        }
                    });
            }
            ui.add_space(8.0);
            ui.strong(tr(lang, T::SettingsTitle));
            let s = &v.settings;
            egui::Grid::new("kumite-settings")
                .striped(true)
                .num_columns(2)
                .show(ui, |ui| {
                    let mut row = |k: T, val: String| {
                        ui.label(tr(lang, k));
                        ui.monospace(val);
                        ui.end_row();
                    };
                    row(T::SetPeriod, format!("{} ms", s.period_ms));
                    row(T::SetDepth, s.depth.to_string());
                    row(T::SetThin, s.thin.to_string());
                    row(T::SetMistakes, s.mistakes.to_string());
                    row(
                        T::SetMode,
                        tr(
                            lang,
                            if s.simultaneous {
                                T::ModeSimultaneous
                            } else {
                                T::ModeAlternate
                            },
                        )
                        .to_string(),
                    );
                    row(T::SetFirst, if s.cpu_first { "c" } else { "h" }.to_string());
                    row(T::SetTurnLimit, s.turn_limit.to_string());
                });
        });
}

fn advantage_tab(ui: &mut Ui, lang: Lang, v: &ProgramView) {
    egui::ScrollArea::vertical()
        .id_salt("kumite-adv")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            if v.adv.is_empty() {
                ui.label(tr(lang, T::NoAdvantage));
                return;
            }
            egui::Grid::new("kumite-adv-grid")
                .striped(true)
                .num_columns(3)
                .show(ui, |ui| {
                    ui.strong(tr(lang, T::ColOrigin));
                    ui.strong(tr(lang, T::WeightCol));
                    ui.strong(tr(lang, T::AdvLineCol));
                    ui.end_row();
                    for a in &v.adv {
                        ui.monospace(a.line.to_string());
                        ui.monospace(a.weight.to_string());
                        ui.monospace(&a.text);
                        ui.end_row();
                    }
                });
        });
}
