//! The rule editor: an egui `TextEdit` with line numbers, syntax colours, diagnostics underlined
//! at their spans, current-line highlight, find, comment toggle and indentation.
//!
//! Speed: a 10,000-line file must not drop a frame while typing. The layouter therefore lays out
//! each line as its own small galley, cached by (line text, its decorations, style), and joins
//! them with `Galley::concat` (which only clones `Arc`s of rows). A keystroke re-colours and
//! re-lays one line; the whole text is compared and hashed once, which is cheap. The joined
//! galley itself is cached until the text or the decorations change.

mod assist;
mod builder;

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

/// One text change: bytes `start..old_end` of the old text became `start..new_end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edit {
    /// Where the change starts.
    pub start: usize,
    /// End of the replaced bytes in the old text.
    pub old_end: usize,
    /// End of the new bytes in the new text.
    pub new_end: usize,
}

impl Edit {
    /// The smallest edit turning `old` into `new` (common prefix and suffix kept).
    pub fn between(old: &str, new: &str) -> Edit {
        let (ob, nb) = (old.as_bytes(), new.as_bytes());
        let mut p = common_prefix(ob, nb);
        while !old.is_char_boundary(p) || !new.is_char_boundary(p) {
            p -= 1;
        }
        let max_s = ob.len().min(nb.len()) - p;
        let mut s = common_suffix(ob, nb).min(max_s);
        while !old.is_char_boundary(ob.len() - s) || !new.is_char_boundary(nb.len() - s) {
            s -= 1;
        }
        Edit {
            start: p,
            old_end: ob.len() - s,
            new_end: nb.len() - s,
        }
    }

    /// Where byte `pos` of the old text is in the new one.
    pub fn map(&self, pos: usize, is_end: bool) -> usize {
        if pos <= self.start {
            pos
        } else if pos >= self.old_end {
            pos - self.old_end + self.new_end
        } else if is_end {
            self.new_end
        } else {
            self.start
        }
    }
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    // Compare in chunks first: this runs on every keystroke over the whole text.
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 64 <= n && a[i..i + 64] == b[i..i + 64] {
        i += 64;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 64 <= n && a[a.len() - i - 64..a.len() - i] == b[b.len() - i - 64..b.len() - i] {
        i += 64;
    }
    while i < n && a[a.len() - i - 1] == b[b.len() - i - 1] {
        i += 1;
    }
    i
}

/// A diagnostic's place in the current text.
#[derive(Clone, Debug)]
pub struct Mark {
    /// Byte span in the current text.
    pub span: Range<usize>,
    /// Error or warning.
    pub severity: Severity,
    /// Index into the diagnostics list it came from.
    pub index: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Deco {
    Error,
    Warning,
    Find,
    FindCurrent,
}

/// Colours of the editor.
#[derive(Clone, Copy, Debug)]
pub struct Palette {
    kinds: [Color32; 13],
    error: Color32,
    warning: Color32,
    find: Color32,
    find_current: Color32,
    current_line: Color32,
    picked_line: Color32,
    gutter_bg: Color32,
    gutter_text: Color32,
    gutter_current: Color32,
}

impl Palette {
    fn new(dark: bool) -> Self {
        let c = Color32::from_rgb;
        if dark {
            Self {
                kinds: [
                    c(212, 212, 212), // Plain
                    c(110, 160, 95),  // Comment
                    c(207, 140, 210), // Sigil
                    c(90, 160, 225),  // Side
                    c(230, 175, 95),  // Command
                    c(150, 215, 250), // State
                    c(80, 205, 180),  // Name
                    c(185, 210, 160), // Number
                    c(200, 200, 200), // Operator
                    c(140, 140, 140), // Punct
                    c(225, 220, 160), // Function
                    c(207, 140, 210), // Setting
                    c(235, 150, 120), // Key
                ],
                error: c(245, 80, 80),
                warning: c(230, 185, 50),
                find: Color32::from_rgba_unmultiplied(230, 200, 60, 60),
                find_current: Color32::from_rgba_unmultiplied(240, 150, 40, 150),
                current_line: Color32::from_rgba_unmultiplied(255, 255, 255, 12),
                picked_line: Color32::from_rgba_unmultiplied(90, 160, 255, 45),
                gutter_bg: c(30, 30, 30),
                gutter_text: c(110, 110, 110),
                gutter_current: c(220, 220, 220),
            }
        } else {
            Self {
                kinds: [
                    c(30, 30, 30),    // Plain
                    c(40, 120, 40),   // Comment
                    c(160, 30, 170),  // Sigil
                    c(20, 70, 200),   // Side
                    c(170, 80, 0),    // Command
                    c(10, 40, 120),   // State
                    c(20, 120, 130),  // Name
                    c(10, 125, 80),   // Number
                    c(70, 70, 70),    // Operator
                    c(120, 120, 120), // Punct
                    c(120, 90, 20),   // Function
                    c(160, 30, 170),  // Setting
                    c(150, 30, 30),   // Key
                ],
                error: c(220, 20, 20),
                warning: c(200, 140, 0),
                find: Color32::from_rgba_unmultiplied(250, 210, 0, 90),
                find_current: Color32::from_rgba_unmultiplied(250, 140, 0, 160),
                current_line: Color32::from_rgba_unmultiplied(0, 0, 0, 12),
                picked_line: Color32::from_rgba_unmultiplied(40, 110, 255, 40),
                gutter_bg: c(240, 240, 240),
                gutter_text: c(150, 150, 150),
                gutter_current: c(30, 30, 30),
            }
        }
    }

    /// The colour of a token kind.
    pub fn kind(&self, k: Kind) -> Color32 {
        self.kinds[k as usize]
    }
}

/// Everything the layouter needs; kept apart from the text so the `TextEdit` can borrow the
/// text while the layouter borrows this.
pub struct EditorView {
    /// Bumped on every change of the text.
    pub version: u64,
    /// The text as of the last layout (to see what changed).
    text: String,
    /// Start byte of every line of `text`.
    line_starts: Vec<usize>,
    /// Recent edits, (version after the edit, edit), to carry diagnostics of an older version
    /// over to the current text while the worker catches up.
    edits: VecDeque<(u64, Edit)>,
    /// Diagnostic spans in the current text, sorted by start.
    pub marks: Vec<Mark>,
    /// Worst severity per line (0-based), sorted by line.
    line_marks: Vec<(usize, Severity)>,
    find_query: String,
    find_case: bool,
    /// Matches of the find query, sorted.
    pub find_ranges: Vec<Range<usize>>,
    /// The match that Next/Previous selected.
    pub find_current: Option<usize>,
    decor_gen: u64,
    style_key: u64,
    /// Per line of the last layout: (key of text and decorations, its galley).
    lines: Vec<(u64, Arc<Galley>)>,
    galley: Option<(u64, u64, Arc<Galley>)>,
    palette: Palette,
    font: FontId,
    atlas_fill: f32,
}

impl Default for EditorView {
    fn default() -> Self {
        Self {
            version: 0,
            text: String::new(),
            line_starts: vec![0],
            edits: VecDeque::new(),
            marks: Vec::new(),
            line_marks: Vec::new(),
            find_query: String::new(),
            find_case: true,
            find_ranges: Vec::new(),
            find_current: None,
            decor_gen: 0,
            style_key: 0,
            lines: Vec::new(),
            galley: None,
            palette: Palette::new(true),
            font: FontId::monospace(FONT_SIZE),
            atlas_fill: 0.0,
        }
    }
}

impl EditorView {
    /// Notes that the text is now `new` (no-op if unchanged).
    fn sync(&mut self, new: &str) {
        if self.text.as_str() == new {
            return;
        }
        let e = Edit::between(&self.text, new);
        self.version += 1;
        self.edits.push_back((self.version, e));
        while self.edits.len() > 1024 {
            self.edits.pop_front();
        }
        for m in &mut self.marks {
            let s = e.map(m.span.start, false);
            let t = e.map(m.span.end, true).max(s);
            m.span = s..t;
        }
        self.text.clear();
        self.text.push_str(new);
        self.line_starts = line_starts(new);
        self.refind();
        self.decor_gen += 1;
    }

    /// Replaces everything (a file was loaded): no edit history, no marks.
    fn reset(&mut self, text: &str) {
        self.version += 1;
        self.text.clear();
        self.text.push_str(text);
        self.line_starts = line_starts(text);
        self.edits.clear();
        self.marks.clear();
        self.refind();
        self.decor_gen += 1;
    }

    /// Takes the diagnostics of a finished check, carried over any edits made since.
    pub fn set_marks(&mut self, checked: &Checked) {
        let mut marks: Vec<Mark> = checked
            .diags
            .iter()
            .enumerate()
            .map(|(index, d)| Mark {
                span: d.diag.span.clone(),
                severity: d.diag.severity,
                index,
            })
            .collect();
        if checked.version != self.version {
            let mut later = self
                .edits
                .iter()
                .filter(|(v, _)| *v > checked.version)
                .peekable();
            if later.peek().is_none_or(|(v, _)| *v != checked.version + 1) {
                // Too old to carry over: wait for the next check.
                marks.clear();
            }
            for (_, e) in later {
                for m in &mut marks {
                    let s = e.map(m.span.start, false);
                    let t = e.map(m.span.end, true).max(s);
                    m.span = s..t;
                }
            }
        }
        let len = self.text.len();
        for m in &mut marks {
            m.span.start = m.span.start.min(len);
            m.span.end = m.span.end.min(len);
        }
        marks.sort_by_key(|m| m.span.start);
        let same_places = marks.len() == self.marks.len()
            && marks
                .iter()
                .zip(&self.marks)
                .all(|(a, b)| a.span == b.span && a.severity == b.severity);
        self.marks = marks;
        if !same_places {
            // Only a change of what is underlined needs a new layout.
            self.decor_gen += 1;
        }
    }

    /// Current span of diagnostic `index` of the last check.
    pub fn mark_span(&self, index: usize) -> Option<Range<usize>> {
        self.marks
            .iter()
            .find(|m| m.index == index)
            .map(|m| m.span.clone())
    }

    fn set_find(&mut self, query: &str, case: bool) {
        if self.find_query != query || self.find_case != case {
            self.find_query = query.to_string();
            self.find_case = case;
            self.refind();
            self.decor_gen += 1;
        }
    }

    fn refind(&mut self) {
        self.find_ranges.clear();
        self.find_current = None;
        if self.find_query.is_empty() {
            return;
        }
        if self.find_case {
            self.find_ranges.extend(
                self.text
                    .match_indices(self.find_query.as_str())
                    .map(|(i, m)| i..i + m.len())
                    .take(100_000),
            );
        } else {
            // Case-insensitive for ASCII letters (names are case sensitive, but searching
            // for `s.` should find `S.`); other characters must match exactly.
            let hay = self.text.to_ascii_lowercase();
            let needle = self.find_query.to_ascii_lowercase();
            self.find_ranges.extend(
                hay.match_indices(needle.as_str())
                    .map(|(i, m)| i..i + m.len())
                    .take(100_000),
            );
        }
    }

    /// 0-based line of byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.line_starts
            .partition_point(|s| *s <= offset)
            .saturating_sub(1)
    }

    /// Byte range of 0-based `line` (without its newline).
    pub fn line_range(&self, line: usize) -> Range<usize> {
        let s = self
            .line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len());
        let e = self
            .line_starts
            .get(line + 1)
            .map(|e| e - 1)
            .unwrap_or(self.text.len());
        s..e.max(s)
    }

    /// Number of lines.
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    fn line_severity(&self, line: usize) -> Option<Severity> {
        self.line_marks
            .binary_search_by_key(&line, |(l, _)| *l)
            .ok()
            .map(|i| self.line_marks[i].1)
    }

    /// The layouter: the galley of `text`, from cache when possible.
    fn layout(&mut self, ui: &Ui, text: &str) -> Arc<Galley> {
        self.sync(text);
        let dark = ui.visuals().dark_mode;
        let mut h = FxHasher::default();
        (
            dark,
            ui.pixels_per_point().to_bits(),
            self.font.size.to_bits(),
        )
            .hash(&mut h);
        let style_key = h.finish();
        // egui empties its glyph atlas when it fills up; galleys laid out before then point
        // into the old atlas, so ours must go too.
        let fill = ui.fonts(|f| f.font_atlas_fill_ratio());
        let atlas_cleared = fill < self.atlas_fill;
        if style_key != self.style_key || atlas_cleared {
            self.style_key = style_key;
            self.palette = Palette::new(dark);
            self.lines.clear();
            self.galley = None;
        }
        if let Some((g, s, galley)) = &self.galley
            && *g == self.decor_gen
            && *s == style_key
        {
            return galley.clone();
        }
        let galley = self.build(ui);
        self.galley = Some((self.decor_gen, style_key, galley.clone()));
        self.atlas_fill = ui.fonts(|f| f.font_atlas_fill_ratio());
        galley
    }

    fn build(&mut self, ui: &Ui) -> Arc<Galley> {
        let text = self.text.as_str();
        let old = std::mem::take(&mut self.lines);
        // An edit keeps the lines before it at their index and shifts the lines after it by
        // the change in line count: look for each line's old galley in those two places.
        let shift = self.line_starts.len() as isize - old.len() as isize;
        let mut new_lines = Vec::with_capacity(self.line_starts.len());
        let mut galleys = Vec::with_capacity(self.line_starts.len());
        let mut line_marks = Vec::new();
        let mut decos: Vec<(Range<usize>, Deco)> = Vec::new();
        let (mut mi, mut fi) = (0, 0);
        for (li, &ls) in self.line_starts.iter().enumerate() {
            let le = self
                .line_starts
                .get(li + 1)
                .map(|e| e - 1)
                .unwrap_or(text.len());
            let line = &text[ls..le];
            decos.clear();
            let mut worst: Option<Severity> = None;
            while mi < self.marks.len() && self.marks[mi].span.start <= le {
                let m = &self.marks[mi];
                mi += 1;
                if m.span.start < ls {
                    continue;
                }
                worst = Some(worst.map_or(m.severity, |w| w.min(m.severity)));
                let (mut s, mut e) = (m.span.start - ls, m.span.end.min(le) - ls);
                if s == e {
                    // An empty span (e.g. "expected … at the end of the line"): underline
                    // the character next to it.
                    if let Some(c) = line[e..].chars().next() {
                        e += c.len_utf8();
                    } else if let Some(c) = line[..s].chars().next_back() {
                        s -= c.len_utf8();
                    }
                }
                let d = if m.severity == Severity::Error {
                    Deco::Error
                } else {
                    Deco::Warning
                };
                if s < e {
                    decos.push((s..e, d));
                }
            }
            if let Some(w) = worst {
                line_marks.push((li, w));
            }
            while fi < self.find_ranges.len() && self.find_ranges[fi].start <= le {
                let r = &self.find_ranges[fi];
                if r.start >= ls {
                    let d = if self.find_current == Some(fi) {
                        Deco::FindCurrent
                    } else {
                        Deco::Find
                    };
                    decos.push((r.start - ls..r.end.min(le) - ls, d));
                }
                fi += 1;
            }
            let mut h = FxHasher::default();
            line.hash(&mut h);
            for (r, d) in &decos {
                (r.start, r.end, *d).hash(&mut h);
            }
            let key = h.finish();
            let same = |i: isize| {
                usize::try_from(i)
                    .ok()
                    .and_then(|i| old.get(i))
                    .filter(|(k, _)| *k == key)
                    .map(|(_, g)| g.clone())
            };
            let g = same(li as isize)
                .or_else(|| same(li as isize - shift))
                .unwrap_or_else(|| {
                    let job = line_job(line, &decos, &self.palette, &self.font);
                    ui.fonts_mut(|f| f.layout_job(job))
                });
            new_lines.push((key, g.clone()));
            galleys.push(g);
        }
        self.lines = new_lines;
        self.line_marks = line_marks;
        let mut job = LayoutJob::single_section(
            text.to_owned(),
            TextFormat::simple(self.font.clone(), self.palette.kind(Kind::Plain)),
        );
        job.wrap.max_width = f32::INFINITY;
        job.keep_trailing_whitespace = true;
        Arc::new(Galley::concat(
            Arc::new(job),
            &galleys,
            ui.pixels_per_point(),
        ))
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut v = Vec::with_capacity(text.len() / 24 + 1);
    v.push(0);
    v.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    v
}

/// The layout job of one line: colours from the highlighter, then underlines and find
/// backgrounds where decorations cover it.
fn line_job(line: &str, decos: &[(Range<usize>, Deco)], pal: &Palette, font: &FontId) -> LayoutJob {
    let mut job = LayoutJob::default();
    job.wrap.max_width = f32::INFINITY;
    job.keep_trailing_whitespace = true;
    let fmt = |kind: Kind, at: Range<usize>| {
        let mut f = TextFormat::simple(font.clone(), pal.kind(kind));
        let covering = decos
            .iter()
            .filter(|(r, _)| r.start < at.end && at.start < r.end)
            .map(|(_, d)| *d);
        for d in covering {
            match d {
                Deco::Error => f.underline = Stroke::new(1.5, pal.error),
                Deco::Warning if f.underline == Stroke::NONE => {
                    f.underline = Stroke::new(1.5, pal.warning)
                }
                Deco::Warning => {}
                Deco::Find if f.background == Color32::TRANSPARENT => f.background = pal.find,
                Deco::Find => {}
                Deco::FindCurrent => f.background = pal.find_current,
            }
        }
        f
    };
    if line.is_empty() {
        job.append("", 0.0, fmt(Kind::Plain, 0..0));
        return job;
    }
    let mut cuts: Vec<usize> = decos.iter().flat_map(|(r, _)| [r.start, r.end]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    for (range, kind) in highlight_line(line) {
        let mut at = range.start;
        for &c in cuts.iter().filter(|c| **c > range.start && **c < range.end) {
            job.append(&line[at..c], 0.0, fmt(kind, at..c));
            at = c;
        }
        job.append(&line[at..range.end], 0.0, fmt(kind, at..range.end));
    }
    job
}

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
        let target = if redo {
            undoer.redo(&cur).cloned()
        } else {
            undoer.undo(&cur).cloned()
        };
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
