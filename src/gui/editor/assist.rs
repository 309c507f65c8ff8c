//! Authoring help in the editor, answered from the checker's symbol index
//! ([`crate::authoring`]): the completion popup (typing, or Ctrl+Space), hover cards, go to
//! definition (F12, Ctrl+click), find all uses (Shift+F12), rename with a preview (F2, one undo
//! step) and quick fixes (Ctrl+. or the right-click menu).

use super::EditorPanel;
use crate::authoring::complete::{self, Item, ItemKind};
use crate::authoring::fixes::{self, Fix};
use crate::authoring::hover;
use crate::diag::Diagnostic;
use crate::gui::i18n::{Lang, T, tr, trf, trn};
use crate::gui::worker::{Checked, ProgramView};
use crate::symbols::{Role, SymKind, SymbolIndex, apply_edits};
use crate::syntax::lexer::{is_name_char, norm};
use egui::{Color32, Key, Modifiers, Pos2, RichText, Ui};
use std::ops::Range;
use std::sync::Arc;

/// The completion popup.
pub struct Popup {
    /// Bytes an accepted item replaces.
    pub replace: Range<usize>,
    /// Proposals, best first.
    pub items: Vec<Item>,
    /// The highlighted one.
    pub sel: usize,
    /// Fixes shown instead of completions (Ctrl+.).
    pub fixes: Vec<Fix>,
}

/// The "find all uses" list.
pub struct UsesList {
    /// `体力 — 12 uses`.
    pub title: String,
    /// (span, 1-based line, role, line text).
    pub rows: Vec<(Range<usize>, usize, &'static str, String)>,
}

/// The rename dialog.
pub struct RenameDialog {
    kind: SymKind,
    old: String,
    /// The new name being typed.
    pub new: String,
    focus: bool,
}

/// Everything the assist keeps between frames.
#[derive(Default)]
pub struct Assist {
    /// The index of the last checked text and that text's version.
    symbols: Arc<SymbolIndex>,
    symbols_version: u64,
    diags: Vec<Diagnostic>,
    /// The last program that compiled (hover cards: initial values, victory tree).
    view: Option<Arc<ProgramView>>,
    /// The completion or fix popup.
    pub popup: Option<Popup>,
    /// The uses list.
    pub uses: Option<UsesList>,
    /// The rename dialog.
    pub rename: Option<RenameDialog>,
    /// A short message ("no definition here").
    pub status: Option<String>,
    /// Where the popup goes (screen position under the cursor).
    pub anchor: Option<Pos2>,
    /// Byte offset of the last right-click (the context menu acts there).
    pub menu_at: Option<usize>,
    /// An item was just accepted: the edit it made opens no new popup.
    pub accepted: bool,
}

fn role_text(r: Role, lang: Lang) -> &'static str {
    match r {
        Role::Define => tr(lang, T::Definition),
        Role::Init => tr(lang, T::InitialValue),
        Role::Read => tr(lang, T::Read),
        Role::Write => tr(lang, T::Write),
        Role::Use => tr(lang, T::Condition),
        Role::Enable => tr(lang, T::Enable),
        Role::Disable => tr(lang, T::Disable),
        Role::Bind => tr(lang, T::Key),
        Role::Alternative => tr(lang, T::Macro),
    }
}

fn kind_icon(k: ItemKind) -> &'static str {
    match k {
        ItemKind::State => "●",
        ItemKind::Command => "▶",
        ItemKind::Macro => "◆",
        ItemKind::Constant => "π",
        ItemKind::Prefix => "·",
        ItemKind::Keyword => "#",
        ItemKind::Function => "ƒ",
    }
}

impl Assist {
    /// The index of the last check.
    pub fn symbols(&self) -> Arc<SymbolIndex> {
        self.symbols.clone()
    }
    /// Takes a new check result (the index, the diagnostics, the last good program).
    pub fn update(&mut self, c: &Checked, last_good: Option<&Arc<ProgramView>>) {
        self.symbols = c.symbols.clone();
        self.symbols_version = c.version;
        self.diags = c.diags.iter().map(|d| d.diag.clone()).collect();
        self.view = last_good.cloned();
    }
}

impl EditorPanel {
    /// The symbol index of the text as it is now (checked here and now if the last check is of
    /// an older version: an explicit action must not act on stale positions).
    fn fresh_symbols(&mut self) -> Arc<SymbolIndex> {
        if self.assist.symbols_version != self.view.version || self.assist.symbols.occ().is_empty()
        {
            let c = crate::pipeline::compile(&self.text);
            self.assist.symbols = c.symbols.clone();
            self.assist.diags = c.diags;
            self.assist.symbols_version = self.view.version;
        }
        self.assist.symbols.clone()
    }

    fn cursor_byte(&self, ctx: &egui::Context) -> usize {
        self.selection(ctx).0.end
    }

    /// Keys of the assist; true if one was used (the `TextEdit` must not see it).
    pub(super) fn assist_keys(&mut self, ctx: &egui::Context, lang: Lang) -> bool {
        let press = |m: Modifiers, k: Key| ctx.input_mut(|i| i.consume_key(m, k));
        if self.assist.popup.is_some() {
            let n = self.assist.popup.as_ref().map_or(0, |p| {
                if p.fixes.is_empty() {
                    p.items.len()
                } else {
                    p.fixes.len()
                }
            });
            if press(Modifiers::NONE, Key::ArrowDown) {
                if let Some(p) = &mut self.assist.popup {
                    p.sel = (p.sel + 1) % n.max(1);
                }
                return true;
            }
            if press(Modifiers::NONE, Key::ArrowUp) {
                if let Some(p) = &mut self.assist.popup {
                    p.sel = (p.sel + n.max(1) - 1) % n.max(1);
                }
                return true;
            }
            let enter = press(Modifiers::NONE, Key::Enter);
            if enter || press(Modifiers::NONE, Key::Tab) {
                let sel = self.assist.popup.as_ref().map_or(0, |p| p.sel);
                // Enter accepts only what changes the text; on a word already typed in full it
                // is a new line, as the user expects (Tab always accepts).
                if enter && self.accepting_changes_nothing(sel) {
                    self.assist.popup = None;
                    self.newline(ctx);
                    return true;
                }
                self.accept(ctx, sel);
                return true;
            }
            if press(Modifiers::NONE, Key::Escape) {
                self.assist.popup = None;
                return true;
            }
        }
        if self.assist.uses.is_some() && press(Modifiers::NONE, Key::Escape) {
            self.assist.uses = None;
            return true;
        }
        if press(Modifiers::COMMAND, Key::Space) {
            self.open_completion(ctx, lang, true);
            return true;
        }
        if press(Modifiers::SHIFT, Key::F12) {
            let at = self.cursor_byte(ctx);
            self.find_uses(at, lang);
            return true;
        }
        if press(Modifiers::NONE, Key::F12) {
            let at = self.cursor_byte(ctx);
            self.go_to_definition(at, lang);
            return true;
        }
        if press(Modifiers::NONE, Key::F2) {
            let at = self.cursor_byte(ctx);
            self.start_rename(at, lang);
            return true;
        }
        if press(Modifiers::COMMAND, Key::Period) {
            let at = self.cursor_byte(ctx);
            self.open_fixes(at, lang);
            return true;
        }
        false
    }

    /// Opens (or refreshes) the completion popup at the cursor; `explicit` shows it even with
    /// nothing typed yet.
    pub(super) fn open_completion(&mut self, ctx: &egui::Context, lang: Lang, explicit: bool) {
        let at = self.cursor_byte(ctx);
        let c = complete::complete(&self.text, at, &self.assist.symbols, lang == Lang::Ja);
        if c.items.is_empty() || (!explicit && c.replace.start == at && !self.after_trigger(at)) {
            self.assist.popup = None;
            return;
        }
        let keep = self
            .assist
            .popup
            .as_ref()
            .and_then(|p| p.items.get(p.sel))
            .and_then(|it| c.items.iter().position(|x| x.insert == it.insert))
            .unwrap_or(0);
        self.assist.popup = Some(Popup {
            replace: c.replace,
            items: c.items,
            sel: keep,
            fixes: Vec::new(),
        });
    }

    /// True if the character before `at` opens a completion (`[`, `.` of a prefix, `=`).
    fn after_trigger(&self, at: usize) -> bool {
        self.text[..at]
            .chars()
            .next_back()
            .map(norm)
            .is_some_and(|c| matches!(c, '[' | '.'))
    }

    /// After an edit: open, refresh or close the popup as the typed character asks.
    pub(super) fn after_edit(&mut self, ctx: &egui::Context, lang: Lang) {
        if self.ime_composing {
            return;
        }
        let at = self.cursor_byte(ctx);
        let prev = self.text[..at].chars().next_back().map(norm);
        let typing_name = prev.is_some_and(|c| is_name_char(c) || c == '[' || c == '.');
        if typing_name {
            self.open_completion(ctx, lang, false);
        } else {
            self.assist.popup = None;
        }
        self.assist.status = None;
    }

    /// Accepts item `i` of the popup.
    /// True if accepting completion `i` would leave the text as it is (the word typed is the
    /// item already).
    fn accepting_changes_nothing(&self, i: usize) -> bool {
        self.assist.popup.as_ref().is_some_and(|p| {
            p.fixes.is_empty()
                && p.items
                    .get(i)
                    .is_some_and(|it| self.text.get(p.replace.clone()) == Some(it.insert.as_str()))
        })
    }

    fn accept(&mut self, ctx: &egui::Context, i: usize) {
        let Some(p) = self.assist.popup.take() else {
            return;
        };
        if !p.fixes.is_empty() {
            if let Some(f) = p.fixes.get(i) {
                self.apply_whole(ctx, &f.edits.clone());
            }
            return;
        }
        let Some(it) = p.items.get(i) else {
            return;
        };
        if p.replace.end > self.text.len() {
            return;
        }
        let end = p.replace.start + it.insert.len();
        self.replace(ctx, p.replace.clone(), &it.insert.clone(), end..end);
        self.assist.accepted = true;
    }

    /// Applies `edits` to the whole text as one undo step; the cursor goes to the end of the
    /// first edit.
    fn apply_whole(&mut self, ctx: &egui::Context, edits: &[crate::symbols::TextEdit]) {
        let new = apply_edits(&self.text, edits);
        let cursor = edits.first().map_or(0, |e| e.span.start + e.text.len());
        let cursor = cursor.min(new.len());
        let len = self.text.len();
        self.replace(ctx, 0..len, &new, cursor..cursor);
        self.assist.accepted = true;
        self.focus_frames = 1;
    }

    /// Shift+Alt+F: the whole file in canonical spacing (`kumite fmt`), as one undo step.
    pub fn format_file(&mut self, ctx: &egui::Context) {
        let out = crate::authoring::fmt::format(&self.text);
        if out != self.text {
            let at = self.cursor_byte(ctx);
            let line = self.view.line_of(at);
            let len = self.text.len();
            // The cursor goes to the start of the same line, or the nearest line that is left.
            let cur = out
                .match_indices('\n')
                .nth(line.saturating_sub(1))
                .map_or(0, |(i, _)| if line == 0 { 0 } else { i + 1 })
                .min(out.len());
            self.replace(ctx, 0..len, &out, cur..cur);
            self.assist.accepted = true;
        }
    }

    /// F12: selects the definition of the name at `at`.
    pub(super) fn go_to_definition(&mut self, at: usize, lang: Lang) {
        let ix = self.fresh_symbols();
        match ix.at(at).and_then(|o| ix.definition(o.kind, &o.name)) {
            Some(d) => {
                self.pending_select = Some((d.span.clone(), true));
                self.assist.status = None;
            }
            None => self.assist.status = Some(tr(lang, T::NoStateCommandMacro).into()),
        }
    }

    /// Shift+F12: lists every use of the name at `at`.
    pub(super) fn find_uses(&mut self, at: usize, lang: Lang) {
        let ix = self.fresh_symbols();
        let Some(o) = ix.at(at) else {
            self.go_to_definition(at, lang);
            return;
        };
        let uses = ix.uses(o.kind, &o.name);
        let shown = match o.kind {
            SymKind::Command | SymKind::Macro => format!("[{}]", o.name),
            SymKind::Key => format!("key {}", o.name),
            _ => o.name.to_string(),
        };
        let rows = uses
            .iter()
            .map(|u| {
                let lr = self.view.line_range(u.line);
                (
                    u.span.clone(),
                    u.line + 1,
                    role_text(u.role, lang),
                    self.text[lr].trim().to_string(),
                )
            })
            .collect::<Vec<_>>();
        self.assist.uses = Some(UsesList {
            title: trn(lang, T::UsesOf, &[&shown, &rows.len()]),
            rows,
        });
    }

    /// F2: opens the rename dialog for the name at `at`.
    pub(super) fn start_rename(&mut self, at: usize, lang: Lang) {
        let ix = self.fresh_symbols();
        match ix.at(at) {
            Some(o) => {
                self.assist.rename = Some(RenameDialog {
                    kind: o.kind,
                    old: o.name.to_string(),
                    new: o.name.to_string(),
                    focus: true,
                });
            }
            None => self.go_to_definition(at, lang),
        }
    }

    /// The quick fixes at byte `at` as a popup (the problems list's "Fix…").
    pub fn offer_fixes(&mut self, at: usize, lang: Lang) {
        self.open_fixes(at, lang);
    }

    /// Ctrl+.: the fixes of the diagnostics at `at`, as a popup.
    pub(super) fn open_fixes(&mut self, at: usize, lang: Lang) {
        let ix = self.fresh_symbols();
        let line = self.view.line_of(at);
        let lr = self.view.line_range(line);
        let mut list: Vec<Fix> = Vec::new();
        for d in &self.assist.diags {
            let here = d.span.start <= at && at <= d.span.end;
            let on_line = d.span.start >= lr.start && d.span.start <= lr.end;
            if here || on_line {
                for f in fixes::fixes(&self.text, d, &ix, lang == Lang::Ja) {
                    if !list.contains(&f) {
                        list.push(f);
                    }
                }
            }
        }
        if list.is_empty() {
            self.assist.status = Some(tr(lang, T::NoQuickFixOn).into());
            return;
        }
        self.assist.popup = Some(Popup {
            replace: at..at,
            items: Vec::new(),
            sel: 0,
            fixes: list,
        });
    }

    /// The fixes the right-click menu offers at `at`.
    fn fixes_at(&mut self, at: usize, lang: Lang) -> Vec<Fix> {
        let ix = self.fresh_symbols();
        self.assist
            .diags
            .iter()
            .filter(|d| d.span.start <= at && at <= d.span.end)
            .flat_map(|d| fixes::fixes(&self.text, d, &ix, lang == Lang::Ja))
            .collect()
    }

    /// Items of the editor's right-click menu: definition, uses, rename, fixes.
    pub(super) fn assist_menu(&mut self, ui: &mut Ui, lang: Lang) {
        let Some(at) = self.assist.menu_at else {
            return;
        };
        let ctx = ui.ctx().clone();
        let on_name = self.fresh_symbols().at(at).is_some();
        if on_name {
            if ui.button(tr(lang, T::GoToDefinitionF12)).clicked() {
                self.go_to_definition(at, lang);
                ui.close();
            }
            if ui.button(tr(lang, T::FindAllUsesShift)).clicked() {
                self.find_uses(at, lang);
                ui.close();
            }
            if ui.button(tr(lang, T::RenameF2)).clicked() {
                self.start_rename(at, lang);
                ui.close();
            }
        }
        for f in self.fixes_at(at, lang) {
            if ui
                .button(format!("{} {}", tr(lang, T::FixColon), f.title))
                .clicked()
            {
                self.apply_whole(&ctx, &f.edits);
                ui.close();
            }
        }
        if on_name {
            ui.separator();
        }
    }

    /// The hover card of the name at `byte`, if the index is of this text.
    pub(super) fn hover_card(&self, byte: usize, lang: Lang) -> Option<hover::Hover> {
        if self.assist.symbols_version != self.view.version {
            return None;
        }
        let v = self.assist.view.as_deref();
        hover::hover(
            &self.assist.symbols,
            byte,
            v.and_then(|v| v.compiled.program.as_ref()),
            v.map(|v| v.graph.as_ref()),
            lang == Lang::Ja,
        )
    }

    /// Draws the popup, the uses list and the rename dialog (after the text).
    pub(super) fn assist_windows(&mut self, ui: &mut Ui, lang: Lang) {
        let ctx = ui.ctx().clone();
        self.popup_window(&ctx, lang);
        self.uses_window(&ctx);
        self.rename_window(&ctx, lang);
    }

    /// The completion or quick-fix popup under the cursor.
    fn popup_window(&mut self, ctx: &egui::Context, lang: Lang) {
        if let (Some(p), Some(anchor)) = (&self.assist.popup, self.assist.anchor) {
            let mut chosen = None;
            let fixes = !p.fixes.is_empty();
            egui::Area::new(self.id.with("assist-popup"))
                .order(egui::Order::Foreground)
                .fixed_pos(anchor)
                .show(ctx, |ui| {
                    egui::Frame::popup(ui.style()).show(ui, |ui| {
                        ui.set_max_width(460.0);
                        egui::ScrollArea::vertical()
                            .max_height(240.0)
                            .show(ui, |ui| {
                                if fixes {
                                    for (i, f) in p.fixes.iter().enumerate() {
                                        let r = ui.selectable_label(
                                            i == p.sel,
                                            format!("{} {}", tr(lang, T::FixColon), f.title),
                                        );
                                        if r.clicked() {
                                            chosen = Some(i);
                                        }
                                    }
                                    return;
                                }
                                egui::Grid::new("completion-grid")
                                    .num_columns(3)
                                    .spacing([6.0, 2.0])
                                    .show(ui, |ui| {
                                        for (i, it) in p.items.iter().enumerate() {
                                            ui.label(RichText::new(kind_icon(it.kind)).weak());
                                            let r = ui.selectable_label(
                                                i == p.sel,
                                                RichText::new(&it.label).monospace(),
                                            );
                                            if i == p.sel {
                                                r.scroll_to_me(None);
                                            }
                                            if r.clicked() {
                                                chosen = Some(i);
                                            }
                                            ui.label(RichText::new(&it.detail).weak().small());
                                            ui.end_row();
                                        }
                                    });
                            });
                        ui.label(
                            RichText::new(tr(lang, T::ChooseEnterTabAccept))
                                .weak()
                                .small(),
                        );
                    });
                });
            if let Some(i) = chosen {
                self.accept(ctx, i);
                self.view.sync(&self.text);
                self.focus_frames = 1;
            }
        }
    }

    /// The list of a name's uses (each line a link to it).
    fn uses_window(&mut self, ctx: &egui::Context) {
        let mut close_uses = false;
        let mut go = None;
        if let Some(u) = &self.assist.uses {
            let mut open = true;
            let area = ctx.content_rect();
            egui::Window::new(&u.title)
                .id(self.id.with("assist-uses"))
                .open(&mut open)
                .default_width(560.0)
                .default_height(300.0)
                .default_pos(egui::pos2(area.center().x - 280.0, area.top() + 80.0))
                .collapsible(false)
                .show(ctx, |ui| {
                    ui.set_min_width(480.0);
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        for (span, line, role, text) in &u.rows {
                            ui.horizontal(|ui| {
                                let link = ui.add_sized(
                                    [44.0, 18.0],
                                    egui::Link::new(RichText::new(format!("{line}")).monospace()),
                                );
                                if link.clicked() {
                                    go = Some(span.clone());
                                }
                                ui.add_sized(
                                    [72.0, 18.0],
                                    egui::Label::new(RichText::new(*role).weak()),
                                );
                                if ui
                                    .add(
                                        egui::Label::new(RichText::new(text).monospace())
                                            .truncate()
                                            .sense(egui::Sense::click()),
                                    )
                                    .clicked()
                                {
                                    go = Some(span.clone());
                                }
                            });
                        }
                    });
                });
            close_uses = !open;
        }
        if close_uses {
            self.assist.uses = None;
        }
        if let Some(span) = go {
            self.pending_select = Some((span, true));
        }
    }

    /// The rename dialog: the new name, what it would change, and the edits applied on OK.
    fn rename_window(&mut self, ctx: &egui::Context, lang: Lang) {
        let mut apply = None;
        let mut cancel = false;
        if let Some(r) = &mut self.assist.rename {
            let plan = self.assist.symbols.rename_symbol(r.kind, &r.old, &r.new);
            let title = trf(lang, T::RenameTitle, &r.old);
            egui::Window::new(title)
                .id(self.id.with("assist-rename"))
                .collapsible(false)
                .resizable(false)
                .anchor(egui::Align2::CENTER_TOP, [0.0, 120.0])
                .show(ctx, |ui| {
                    let field = ui.add(
                        egui::TextEdit::singleline(&mut r.new)
                            .id(self.id.with("rename-field"))
                            .desired_width(280.0),
                    );
                    ui.ctx()
                        .accesskit_node_builder(field.id, |n| n.set_label(tr(lang, T::NewName)));
                    if r.focus {
                        // The whole name selected: typing replaces it.
                        field.request_focus();
                        let mut st =
                            egui::TextEdit::load_state(ui.ctx(), field.id).unwrap_or_default();
                        st.cursor.set_char_range(Some(egui::text::CCursorRange::two(
                            egui::text::CCursor::new(0),
                            egui::text::CCursor::new(r.new.chars().count()),
                        )));
                        egui::TextEdit::store_state(ui.ctx(), field.id, st);
                        r.focus = false;
                    }
                    let enter = field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                    let esc = ui.input(|i| i.key_pressed(Key::Escape));
                    match &plan {
                        Ok(p) => {
                            let mut lines: Vec<usize> = p
                                .edits
                                .iter()
                                .map(|e| self.view.line_of(e.span.start) + 1)
                                .collect();
                            lines.dedup();
                            let shown: Vec<String> =
                                lines.iter().take(12).map(usize::to_string).collect();
                            let more = if lines.len() > 12 { " …" } else { "" };
                            ui.label(trn(
                                lang,
                                T::RenamePlaces,
                                &[
                                    &p.edits.len(),
                                    &lines.len(),
                                    &format!("{}{more}", shown.join(", ")),
                                ],
                            ));
                            if let Some((a, b)) = &p.mirrored {
                                ui.label(trn(lang, T::MirroredTwin, &[a, b]));
                            }
                        }
                        Err(e) => {
                            if r.new.trim() == r.old {
                                let uses = self.assist.symbols.uses(r.kind, &r.old);
                                let mut lines: Vec<usize> = uses.iter().map(|o| o.line).collect();
                                lines.dedup();
                                ui.weak(trn(lang, T::RenameTypeName, &[&uses.len(), &lines.len()]));
                            } else {
                                ui.colored_label(Color32::from_rgb(220, 90, 80), e.to_string());
                            }
                        }
                    }
                    ui.horizontal(|ui| {
                        let ok = plan.is_ok();
                        if ui
                            .add_enabled(ok, egui::Button::new(tr(lang, T::Rename)))
                            .clicked()
                            || (enter && ok)
                        {
                            apply = plan.as_ref().ok().cloned();
                        }
                        if ui.button(tr(lang, T::CancelBtn)).clicked() || esc {
                            cancel = true;
                        }
                    });
                });
        }
        if let Some(p) = apply {
            let at = self.cursor_byte(ctx);
            let new = apply_edits(&self.text, &p.edits);
            // The cursor stays on the same text: shifted by the edits before it.
            let mut cur = at as isize;
            for e in p.edits.iter().filter(|e| e.span.end <= at) {
                cur += e.text.len() as isize - e.span.len() as isize;
            }
            let cur = (cur.max(0) as usize).min(new.len());
            let len = self.text.len();
            self.replace(ctx, 0..len, &new, cur..cur);
            self.view.sync(&self.text);
            self.assist.rename = None;
            self.focus_frames = 2;
        } else if cancel {
            self.assist.rename = None;
            self.focus_frames = 2;
        }
    }
}
