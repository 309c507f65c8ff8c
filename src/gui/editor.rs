//! The rule editor: an egui `TextEdit` with line numbers, syntax colours, diagnostics underlined
//! at their spans, current-line highlight, find, comment toggle and indentation. `view.rs` holds
//! what is drawn (line index, colours, marks, the per-line galley cache), `assist.rs` the writing
//! help (completion, hover, definition, uses, rename, fixes), `builder.rs` the rule builder.

mod assist;
mod builder;
mod view;

pub use view::{Edit, EditorView, Mark, Palette};

use super::i18n::{Lang, T, tr, trf};
use super::worker::{Checked, DiagItem};
use crate::diag::Severity;
use crate::syntax::highlight::{Kind, highlight_line};
use egui::text::{CCursor, CCursorRange, LayoutJob, TextFormat};
use egui::{
    Align, Color32, Event, FontId, Galley, Id, Key, Modifiers, Rect, Sense, Shape, Stroke,
    TextEdit, Ui, pos2, vec2,
};
use rustc_hash::FxHasher;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::Arc;

/// Size of the editor font.
pub const FONT_SIZE: f32 = 14.0;

/// The find bar's state.
#[derive(Default)]
pub struct FindBar {
    /// Shown.
    pub open: bool,
    /// The text to find.
    pub query: String,
    /// Case-sensitive.
    pub match_case: bool,
    focus: bool,
}

/// What the editor reports to the app after a frame.
#[derive(Default)]
pub struct EditorOutput {
    /// The text changed this frame.
    pub changed: bool,
    /// "Sweep this value" was chosen: the sweep (`c.体力=16..28`).
    pub sweep: Option<String>,
}

/// The editor panel.
pub struct EditorPanel {
    /// The rule text.
    pub text: String,
    /// The sweep offered by the open context menu.
    sweep_menu: Option<String>,
    /// Layout, decorations and edit tracking.
    pub view: EditorView,
    /// Find.
    pub find: FindBar,
    id: Id,
    /// Selection to apply next frame (byte range) and whether to focus the editor.
    pending_select: Option<(Range<usize>, bool)>,
    scroll_to_line: Option<usize>,
    /// A line picked in the expanded view (0-based), drawn highlighted.
    pub picked_line: Option<usize>,
    /// 0-based line and 1-based character column of the cursor.
    pub cursor: (usize, usize),
    ime_composing: bool,
    focus_frames: u8,
    gutter_width: f32,
    content_width: f32,
    /// Completion, hover cards, definition, uses, rename, quick fixes.
    pub assist: assist::Assist,
    /// The rule builder (F4), when open.
    pub builder: Option<builder::RuleBuilder>,
}

impl EditorPanel {
    /// An editor holding `text`.
    pub fn new(text: String) -> Self {
        let mut view = EditorView::default();
        view.reset(&text);
        Self {
            text,
            sweep_menu: None,
            view,
            find: FindBar::default(),
            id: Id::unique("kumite-rule-editor"),
            pending_select: None,
            scroll_to_line: None,
            picked_line: None,
            cursor: (0, 1),
            ime_composing: false,
            focus_frames: 0,
            gutter_width: 40.0,
            content_width: 0.0,
            assist: Default::default(),
            builder: None,
        }
    }

    /// The `TextEdit`'s id.
    pub fn id(&self) -> Id {
        self.id
    }

    /// Replaces the whole text (a file was opened): cursor to the start, no undo history.
    pub fn set_text(&mut self, ctx: &egui::Context, text: String) {
        self.text = text;
        self.view.reset(&self.text);
        self.picked_line = None;
        self.cursor = (0, 1);
        let mut state = TextEdit::load_state(ctx, self.id).unwrap_or_default();
        state.clear_undoer();
        state
            .cursor
            .set_char_range(Some(CCursorRange::one(CCursor::new(0))));
        TextEdit::store_state(ctx, self.id, state);
        self.scroll_to_line = Some(0);
    }

    /// Selects byte range `span`, focuses the editor and scrolls to it.
    pub fn select(&mut self, span: Range<usize>) {
        self.pending_select = Some((span, true));
    }

    /// Scrolls so 0-based `line` is visible.
    pub fn reveal_line(&mut self, line: usize) {
        self.scroll_to_line = Some(line);
    }

    /// Opens the find bar and focuses its field.
    pub fn open_find(&mut self) {
        self.find.open = true;
        self.find.focus = true;
    }

    fn char_index(&self, byte: usize) -> usize {
        let b = byte.min(self.text.len());
        let mut b = b;
        while !self.text.is_char_boundary(b) {
            b -= 1;
        }
        self.text[..b].chars().count()
    }

    fn byte_index(&self, ch: usize) -> usize {
        self.text
            .char_indices()
            .nth(ch)
            .map(|(i, _)| i)
            .unwrap_or(self.text.len())
    }

    /// The selection as a byte range (start, end sorted) from the stored state.
    fn selection(&self, ctx: &egui::Context) -> (Range<usize>, CCursorRange) {
        let state = TextEdit::load_state(ctx, self.id).unwrap_or_default();
        let r = state
            .cursor
            .char_range()
            .unwrap_or_else(|| CCursorRange::one(CCursor::new(0)));
        let [a, b] = r.sorted_cursors();
        (self.byte_index(a.index.0)..self.byte_index(b.index.0), r)
    }

    /// Replaces `range` by `insert` as one undoable step and selects `select` (bytes of the
    /// new text).
    fn replace(
        &mut self,
        ctx: &egui::Context,
        range: Range<usize>,
        insert: &str,
        select: Range<usize>,
    ) {
        let mut state = TextEdit::load_state(ctx, self.id).unwrap_or_default();
        let old_sel = state
            .cursor
            .char_range()
            .unwrap_or_else(|| CCursorRange::one(CCursor::new(0)));
        let mut undoer = state.undoer();
        undoer.add_undo(&(old_sel, self.text.clone()));
        self.text.replace_range(range, insert);
        undoer.add_undo(&(
            CCursorRange::two(
                CCursor::new(self.char_index(select.start)),
                CCursor::new(self.char_index(select.end)),
            ),
            self.text.clone(),
        ));
        state.set_undoer(undoer);
        let sel = CCursorRange::two(
            CCursor::new(self.char_index(select.start)),
            CCursor::new(self.char_index(select.end)),
        );
        state.cursor.set_char_range(Some(sel));
        TextEdit::store_state(ctx, self.id, state);
    }

    /// Applies a suggestion's edits — each the number `from` at a 1-based line and character
    /// column, replaced by `to` — as one undoable step, and selects the first. False (and
    /// nothing changed) when the text no longer holds one of them there.
    pub fn apply_edits(
        &mut self,
        ctx: &egui::Context,
        edits: &[crate::report::suggest::Edit],
    ) -> bool {
        let mut spans = Vec::new();
        for e in edits {
            if e.line == 0 || e.column == 0 {
                return false;
            }
            let start: usize = self
                .text
                .split_inclusive('\n')
                .take(e.line - 1)
                .map(str::len)
                .sum();
            let line = self.text[start..].split('\n').next().unwrap_or("");
            let Some(at) = line.char_indices().nth(e.column - 1).map(|x| start + x.0) else {
                return false;
            };
            if !self.text[at..].starts_with(&e.from) {
                return false;
            }
            spans.push((at..at + e.from.len(), e.to.as_str()));
        }
        if spans.is_empty() {
            return false;
        }
        spans.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        let mut new = self.text.clone();
        for (r, to) in &spans {
            new.replace_range(r.clone(), to);
        }
        // The first edit's new number, in the new text (later edits do not move it).
        let (first, to) = spans
            .last()
            .map(|(r, to)| (r.start, to.len()))
            .unwrap_or((0, 0));
        let len = self.text.len();
        self.replace(ctx, 0..len, &new, first..first + to);
        true
    }

    /// Undo (or redo) one step of the editor's history.
    pub fn undo(&mut self, ctx: &egui::Context, redo: bool) {
        let mut state = TextEdit::load_state(ctx, self.id).unwrap_or_default();
        let cur = (
            state
                .cursor
                .char_range()
                .unwrap_or_else(|| CCursorRange::one(CCursor::new(0))),
            self.text.clone(),
        );
        let mut undoer = state.undoer();
        let mut step = |from: &(CCursorRange, String)| {
            if redo {
                undoer.redo(from).cloned()
            } else {
                undoer.undo(from).cloned()
            }
        };
        let mut target = step(&cur);
        // The history records the cursor with the text: a point of the same text but another
        // cursor (the editor was clicked since) is not a step back — take the one before it.
        if let Some(t) = target.clone()
            && t.1 == self.text
        {
            target = step(&t).or(Some(t));
        }
        if let Some((sel, text)) = target {
            self.text = text;
            state.cursor.set_char_range(Some(sel));
        }
        state.set_undoer(undoer);
        TextEdit::store_state(ctx, self.id, state);
        ctx.memory_mut(|m| m.request_focus(self.id));
    }

    /// Comments out the selected lines with `# `, or removes the comment if all have one.
    pub fn toggle_comment(&mut self, ctx: &egui::Context) {
        let (sel, _) = self.selection(ctx);
        let (l0, l1) = self.selected_lines(&sel);
        let start = self.view.line_range(l0).start;
        let end = self.view.line_range(l1).end;
        let block = &self.text[start..end];
        let is_comment = |l: &str| {
            let t = l.trim_start();
            t.starts_with('#') || t.starts_with('＃')
        };
        let lines: Vec<&str> = block.split('\n').collect();
        let all_commented = lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .all(|l| is_comment(l));
        let indent = lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0);
        let new: Vec<String> = lines
            .iter()
            .map(|l| {
                if l.trim().is_empty() {
                    l.to_string()
                } else if all_commented {
                    let ws = l.len() - l.trim_start().len();
                    let rest = &l[ws..];
                    let hash_len = rest.chars().next().map_or(0, char::len_utf8);
                    let rest = &rest[hash_len..];
                    let rest = rest.strip_prefix(' ').unwrap_or(rest);
                    format!("{}{}", &l[..ws], rest)
                } else {
                    format!("{}# {}", &l[..indent], &l[indent..])
                }
            })
            .collect();
        let new = new.join("\n");
        let select = if l0 == l1 && sel.is_empty() {
            // Keep the cursor where it was in the line's text.
            let delta = new.len() as isize - block.len() as isize;
            let at = (sel.start as isize + delta)
                .clamp(start as isize, (start + new.len()) as isize) as usize;
            at..at
        } else {
            start..start + new.len()
        };
        self.replace(ctx, start..end, &new, select);
    }

    fn selected_lines(&self, sel: &Range<usize>) -> (usize, usize) {
        let l0 = self.view.line_of(sel.start);
        let mut l1 = self.view.line_of(sel.end);
        // A selection ending at the start of a line does not include that line.
        if l1 > l0 && self.view.line_range(l1).start == sel.end {
            l1 -= 1;
        }
        (l0, l1)
    }

    /// Indents (or outdents) the selected lines by two spaces; with no selection, Tab inserts
    /// two spaces at the cursor.
    pub fn indent(&mut self, ctx: &egui::Context, outdent: bool) {
        let (sel, _) = self.selection(ctx);
        let (l0, l1) = self.selected_lines(&sel);
        if !outdent && l0 == l1 && sel.is_empty() {
            self.replace(ctx, sel.clone(), "  ", sel.start + 2..sel.start + 2);
            return;
        }
        let start = self.view.line_range(l0).start;
        let end = self.view.line_range(l1).end;
        let block = &self.text[start..end];
        let new: Vec<String> = block
            .split('\n')
            .map(|l| {
                if outdent {
                    if let Some(r) = l.strip_prefix("  ") {
                        r.to_string()
                    } else if let Some(r) = l.strip_prefix('\t').or_else(|| l.strip_prefix(' ')) {
                        r.to_string()
                    } else {
                        l.to_string()
                    }
                } else if l.is_empty() {
                    String::new()
                } else {
                    format!("  {l}")
                }
            })
            .collect();
        let new = new.join("\n");
        let select = if sel.is_empty() {
            let delta = new.len() as isize - block.len() as isize;
            let at = (sel.start as isize + delta)
                .clamp(start as isize, (start + new.len()) as isize) as usize;
            at..at
        } else {
            start..start + new.len()
        };
        self.replace(ctx, start..end, &new, select);
    }

    /// Enter: a new line with the current line's indentation.
    fn newline(&mut self, ctx: &egui::Context) {
        let (sel, _) = self.selection(ctx);
        let line = self.view.line_of(sel.start);
        let ls = self.view.line_range(line).start;
        let indent: String = self.text[ls..sel.start]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t' || *c == '\u{3000}')
            .collect();
        let insert = format!("\n{indent}");
        let at = sel.start + insert.len();
        self.replace(ctx, sel, &insert, at..at);
    }

    fn find_step(&mut self, back: bool) {
        if self.view.find_ranges.is_empty() {
            return;
        }
        let n = self.view.find_ranges.len();
        let next = match self.view.find_current {
            Some(i) if back => (i + n - 1) % n,
            Some(i) => (i + 1) % n,
            None => {
                let cur = self.view.line_range(self.cursor.0).start;
                let i = self.view.find_ranges.partition_point(|r| r.start < cur);
                if back { (i + n - 1) % n } else { i % n }
            }
        };
        self.view.find_current = Some(next);
        self.view.decor_gen += 1;
        let r = self.view.find_ranges[next].clone();
        self.pending_select = Some((r, false));
    }

    fn find_bar(&mut self, ui: &mut Ui, lang: Lang) {
        let mut close = false;
        ui.horizontal(|ui| {
            let label = ui.label(tr(lang, T::FindLabel));
            let resp = ui
                .add(
                    TextEdit::singleline(&mut self.find.query)
                        .id(Id::unique("kumite-find"))
                        .desired_width(220.0),
                )
                .labelled_by(label.id);
            if self.find.focus {
                resp.request_focus();
                self.find.focus = false;
            }
            let enter = resp.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
            if enter {
                let back = ui.input(|i| i.modifiers.shift);
                self.view.set_find(&self.find.query, self.find.match_case);
                self.find_step(back);
                resp.request_focus();
            }
            if (resp.has_focus() || resp.lost_focus()) && ui.input(|i| i.key_pressed(Key::Escape)) {
                close = true;
            }
            ui.checkbox(&mut self.find.match_case, tr(lang, T::MatchCase));
            self.view.set_find(&self.find.query, self.find.match_case);
            if ui.button(tr(lang, T::FindPrev)).clicked() {
                self.find_step(true);
            }
            if ui.button(tr(lang, T::FindNext)).clicked() {
                self.find_step(false);
            }
            let n = self.view.find_ranges.len();
            if !self.find.query.is_empty() {
                let msg = if n == 0 {
                    tr(lang, T::NoMatches).to_string()
                } else {
                    match self.view.find_current {
                        Some(i) => format!("{} / {n}", i + 1),
                        None => trf(lang, T::MatchCount, n),
                    }
                };
                ui.label(msg);
            }
            if ui.button(tr(lang, T::FindClose)).clicked() {
                close = true;
            }
        });
        if close {
            self.find.open = false;
            self.view.set_find("", self.find.match_case);
            ui.memory_mut(|m| m.request_focus(self.id));
        }
    }

    /// Keys the editor handles itself (before the `TextEdit` sees them).
    fn handle_keys(&mut self, ui: &Ui, lang: Lang) {
        let ctx = ui.ctx().clone();
        ui.input(|i| {
            for e in &i.events {
                if let Event::Ime(ime) = e {
                    self.ime_composing = match ime {
                        egui::ImeEvent::Preedit { text, .. } => !text.is_empty(),
                        _ => false,
                    };
                }
            }
        });
        // Escape closes the popup; egui also takes the focus away on Escape: give it back.
        if (self.assist.popup.is_some() || self.assist.uses.is_some())
            && ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Escape))
        {
            if self.assist.popup.take().is_none() {
                self.assist.uses = None;
            }
            ctx.memory_mut(|m| m.request_focus(self.id));
            return;
        }
        if !ui.memory(|m| m.has_focus(self.id)) {
            return;
        }
        if ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::Slash)) {
            self.toggle_comment(&ctx);
        }
        // Undo and redo go through the editor's own history step (as Edit → Undo does), so an
        // edit made from another panel — a suggestion's Apply, a rename — is undone by the
        // first Ctrl+Z even after a click into the editor moved the cursor.
        if !self.ime_composing {
            if ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z))
                || ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::Y))
            {
                self.undo(&ctx, true);
            } else if ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::Z)) {
                self.undo(&ctx, false);
            }
        }
        if self.ime_composing {
            return;
        }
        if self.assist_keys(&ctx, lang) {
            return;
        }
        if ctx.input_mut(|i| i.consume_key(Modifiers::SHIFT, Key::Tab)) {
            self.indent(&ctx, true);
        }
        if ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Tab)) {
            self.indent(&ctx, false);
        }
        if ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Enter)) {
            self.newline(&ctx);
        }
    }

    /// Shows the editor. `diags` are the diagnostics the marks refer to (for hover text).
    pub fn ui(&mut self, ui: &mut Ui, lang: Lang, diags: &[DiagItem]) -> EditorOutput {
        let version_before = self.view.version;
        if self.find.open {
            self.find_bar(ui, lang);
            ui.separator();
        }
        self.handle_keys(ui, lang);
        let ctx = ui.ctx().clone();
        if let Some(msg) = &self.assist.status {
            ui.label(egui::RichText::new(msg).weak());
        }
        if let Some((span, focus)) = self.pending_select.take() {
            let mut state = TextEdit::load_state(&ctx, self.id).unwrap_or_default();
            state.cursor.set_char_range(Some(CCursorRange::two(
                CCursor::new(self.char_index(span.start)),
                CCursor::new(self.char_index(span.end)),
            )));
            TextEdit::store_state(&ctx, self.id, state);
            if focus {
                // Also next frame: the click that asked for this (in another panel) would
                // otherwise take the focus away again when it is released.
                self.focus_frames = 2;
            }
            self.view.sync(&self.text);
            self.scroll_to_line = Some(self.view.line_of(span.start));
        }

        if self.focus_frames > 0 {
            self.focus_frames -= 1;
            ctx.memory_mut(|m| m.request_focus(self.id));
        }
        let font = self.view.font.clone();
        let digits = self.view.line_count().max(1).to_string().len().max(3);
        let char_w = ui.fonts_mut(|f| f.glyph_width(&font, '0'));
        self.gutter_width = digits as f32 * char_w + 26.0;
        let gutter_width = self.gutter_width;
        let bg = ui.visuals().extreme_bg_color;

        let mut sweep = None;
        // The text layout syncs the view: an edit this frame shows as a new version.
        let v_before_edit = self.view.version;
        let scroll = egui::ScrollArea::both()
            .id_salt("kumite-editor-scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let full = ui.max_rect();
                ui.painter().rect_filled(
                    Rect::from_min_size(
                        full.min,
                        vec2(full.width().max(self.content_width), full.height()),
                    ),
                    0.0,
                    bg,
                );
                let under_text = ui.painter().add(Shape::Noop);
                let out = ui
                    .horizontal_top(|ui| {
                        ui.spacing_mut().item_spacing.x = 0.0;
                        ui.add_space(gutter_width + 4.0);
                        let Self { text, view, .. } = self;
                        let mut layouter = |ui: &Ui, buf: &dyn egui::TextBuffer, _wrap: f32| {
                            view.layout(ui, buf.as_str())
                        };
                        let min_w = (ui.available_width()).max(self.content_width + 40.0);
                        TextEdit::multiline(text)
                            .id(self.id)
                            .font(font.clone())
                            .code_editor()
                            .lock_focus(true)
                            .frame(egui::Frame::NONE)
                            .desired_width(f32::INFINITY)
                            .desired_rows(1)
                            .min_size(vec2(min_w, ui.available_height()))
                            .layouter(&mut layouter)
                            .show(ui)
                    })
                    .inner;
                self.view.sync(&self.text);
                let edited = self.view.version != v_before_edit;
                let galley = out.galley.clone();
                let gpos = out.galley_pos;
                let clip = ui.clip_rect();
                if (galley.size().x - self.content_width).abs() > 1.0 {
                    self.content_width = galley.size().x;
                    ui.ctx().request_repaint();
                }

                if edited {
                    if std::mem::take(&mut self.assist.accepted) {
                        self.assist.popup = None;
                    } else {
                        self.after_edit(&ctx, lang);
                    }
                }
                // The completion popup opens under the cursor.
                if let Some(r) = out.state.cursor.char_range() {
                    let at = galley.pos_from_cursor(r.primary);
                    self.assist.anchor = Some(gpos + at.left_bottom().to_vec2() + vec2(0.0, 2.0));
                }
                // The cursor's line and column (other panels follow it: draw them again).
                if let Some(r) = out.state.cursor.char_range() {
                    let lc = galley.layout_from_cursor(r.primary);
                    let cursor = (lc.row, lc.column.0 + 1);
                    if cursor != self.cursor {
                        self.cursor = cursor;
                        ui.ctx().request_repaint();
                    }
                }
                let row_rect = |line: usize| -> Option<Rect> {
                    galley.rows.get(line).map(|row| {
                        let y = gpos.y + row.pos.y;
                        Rect::from_min_max(pos2(clip.left(), y), pos2(clip.right(), y + row.size.y))
                    })
                };
                // Current line and picked line, under the text.
                let mut under = Vec::new();
                if let Some(r) = row_rect(self.cursor.0) {
                    under.push(Shape::rect_filled(r, 0.0, self.view.palette.current_line));
                }
                if let Some(r) = self.picked_line.and_then(row_rect) {
                    under.push(Shape::rect_filled(r, 0.0, self.view.palette.picked_line));
                }
                ui.painter().set(under_text, Shape::Vec(under));

                if let Some(line) = self.scroll_to_line.take()
                    && let Some(r) = row_rect(line)
                {
                    ui.scroll_to_rect(
                        r.with_min_x(gpos.x).with_max_x(gpos.x + 10.0),
                        Some(Align::Center),
                    );
                }

                self.pointer_actions(ui, &out, lang, &mut sweep);

                self.hover_tooltip(&out, diags, lang);

                self.gutter(ui, &galley, gpos, gutter_width, diags);
                out.response.id
            });
        self.assist_windows(ui, lang);
        self.builder_window(ui, lang);
        let id = scroll.inner;
        let label = tr(lang, T::EditorLabel);
        ui.ctx()
            .accesskit_node_builder(id, |node| node.set_label(label));
        EditorOutput {
            changed: self.view.version != version_before,
            sweep,
        }
    }

    /// The byte offset under the text cursor nearest to the pointer at `p`.
    fn byte_at_pointer(&self, out: &egui::text_edit::TextEditOutput, p: egui::Pos2) -> usize {
        let c = out.galley.cursor_from_pos(p - out.galley_pos);
        let lc = out.galley.layout_from_cursor(c);
        let lr = self.view.line_range(lc.row);
        self.text[lr.clone()]
            .char_indices()
            .nth(lc.column.0)
            .map_or(lr.end, |(i, _)| lr.start + i)
    }

    /// Right-click (the writing-help menu, and "Sweep this value" on a number of the initial
    /// line or a constant) and Ctrl+click (go to the definition).
    fn pointer_actions(
        &mut self,
        ui: &Ui,
        out: &egui::text_edit::TextEditOutput,
        lang: Lang,
        sweep: &mut Option<String>,
    ) {
        let resp = &out.response.response;
        if resp.secondary_clicked()
            && let Some(p) = resp.interact_pointer_pos()
        {
            let at = self.byte_at_pointer(out, p);
            self.assist.menu_at = Some(at);
            let lc = out
                .galley
                .layout_from_cursor(out.galley.cursor_from_pos(p - out.galley_pos));
            let lr = self.view.line_range(lc.row);
            self.sweep_menu = crate::report::sweep_at(&self.text[lr], lc.column.0);
        }
        if resp.clicked()
            && ui.input(|i| i.modifiers.command)
            && let Some(p) = resp.interact_pointer_pos()
        {
            let at = self.byte_at_pointer(out, p);
            self.go_to_definition(at, lang);
        }
        let target = self.sweep_menu.clone();
        resp.context_menu(|ui| {
            self.assist_menu(ui, lang);
            match &target {
                Some(spec) => {
                    if ui.button(trf(lang, T::SweepThisValue, spec)).clicked() {
                        *sweep = Some(spec.clone());
                        ui.close();
                    }
                }
                None => {
                    ui.weak(tr(lang, T::SweepHint));
                }
            }
        });
    }

    /// The diagnostics and the hover card of what is under the pointer.
    fn hover_tooltip(
        &mut self,
        out: &egui::text_edit::TextEditOutput,
        diags: &[DiagItem],
        lang: Lang,
    ) {
        let Some(p) = out.response.hover_pos() else {
            return;
        };
        let (galley, gpos) = (&out.galley, out.galley_pos);
        let c = galley.cursor_from_pos(p - gpos);
        let lc = galley.layout_from_cursor(c);
        // The character under the pointer: the cursor position is the nearest boundary, which
        // is right of the character when the pointer is on its right half.
        let mut col = lc.column.0;
        if let Some(row) = galley.rows.get(lc.row) {
            let x = p.x - gpos.x - row.pos.x;
            if col > 0 && row.glyphs.get(col).is_none_or(|g| x < g.pos.x) {
                col -= 1;
            }
        }
        let lr = self.view.line_range(lc.row);
        let byte = self.text[lr.clone()]
            .char_indices()
            .nth(col)
            .map(|(i, _)| lr.start + i)
            .unwrap_or(lr.end);
        let lines: Vec<String> = self
            .view
            .marks
            .iter()
            .filter(|m| {
                m.span.start <= byte
                    && (byte < m.span.end || (m.span.is_empty() && byte == m.span.start))
            })
            .filter_map(|m| diags.get(m.index))
            .map(describe)
            .collect();
        let card = self.hover_card(byte, lang);
        if lines.is_empty() && card.is_none() {
            return;
        }
        out.response.response.clone().on_hover_ui_at_pointer(|ui| {
            ui.set_max_width(520.0);
            for l in &lines {
                ui.label(l);
            }
            if let Some(c) = &card {
                if !lines.is_empty() {
                    ui.separator();
                }
                ui.label(egui::RichText::new(&c.title).strong());
                for l in &c.lines {
                    ui.label(l);
                }
            }
        });
    }

    /// The gutter (line numbers and problem dots), pinned to the left edge while scrolling
    /// sideways; hovering a line shows its problems.
    fn gutter(
        &self,
        ui: &Ui,
        galley: &egui::Galley,
        gpos: egui::Pos2,
        gutter_width: f32,
        diags: &[DiagItem],
    ) {
        let clip = ui.clip_rect();
        let gutter = Rect::from_min_max(
            pos2(clip.left(), clip.top()),
            pos2(clip.left() + gutter_width, clip.bottom()),
        );
        let painter = ui.painter();
        painter.rect_filled(gutter, 0.0, self.view.palette.gutter_bg);
        let first = galley
            .rows
            .partition_point(|r| gpos.y + r.pos.y + r.size.y < clip.top());
        for (i, row) in galley.rows.iter().enumerate().skip(first) {
            let y = gpos.y + row.pos.y;
            if y > clip.bottom() {
                break;
            }
            let colour = if i == self.cursor.0 {
                self.view.palette.gutter_current
            } else {
                self.view.palette.gutter_text
            };
            painter.text(
                pos2(gutter.right() - 6.0, y + row.size.y / 2.0),
                egui::Align2::RIGHT_CENTER,
                (i + 1).to_string(),
                FontId::monospace(FONT_SIZE - 2.0),
                colour,
            );
            if let Some(sev) = self.view.line_severity(i) {
                let c = if sev == Severity::Error {
                    self.view.palette.error
                } else {
                    self.view.palette.warning
                };
                painter.circle_filled(pos2(gutter.left() + 8.0, y + row.size.y / 2.0), 4.0, c);
            }
        }
        let gresp = ui.interact(gutter, self.id.with("gutter"), Sense::hover());
        if let Some(p) = gresp.hover_pos() {
            let line = galley
                .rows
                .partition_point(|r| gpos.y + r.pos.y + r.size.y < p.y);
            let lr = self.view.line_range(line);
            let lines: Vec<String> = self
                .view
                .marks
                .iter()
                .filter(|m| m.span.start >= lr.start && m.span.start <= lr.end)
                .filter_map(|m| diags.get(m.index))
                .map(describe)
                .collect();
            if !lines.is_empty() {
                gresp.on_hover_ui_at_pointer(|ui| {
                    for l in &lines {
                        ui.label(l);
                    }
                });
            }
        }
    }
}

fn describe(d: &DiagItem) -> String {
    let mut s = format!("{}: {}", d.diag.code, d.diag.message);
    if let Some(h) = &d.diag.help {
        s.push_str("\n→ ");
        s.push_str(h);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_map_spans() {
        let e = Edit::between("abc def", "abc XXdef");
        assert_eq!(
            e,
            Edit {
                start: 4,
                old_end: 4,
                new_end: 6
            }
        );
        assert_eq!(e.map(4, false), 4);
        assert_eq!(e.map(5, false), 7);
        let e = Edit::between("体力=3", "体力=30");
        assert_eq!((e.start, e.old_end, e.new_end), (8, 8, 9));
        // Multi-byte characters sharing a first byte are never split.
        let e = Edit::between("あ", "い");
        assert_eq!((e.start, e.old_end, e.new_end), (0, 3, 3));
        let e = Edit::between("", "");
        assert_eq!((e.start, e.old_end, e.new_end), (0, 0, 0));
    }
}
