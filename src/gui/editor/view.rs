//! The editor's view of the text: line index, syntax colours, diagnostic marks, find matches,
//! and the layout.
//!
//! Speed: a 10,000-line file must not drop a frame while typing. The layouter therefore lays out
//! each line as its own small galley, cached by (line text, its decorations, style), and joins
//! them with `Galley::concat` (which only clones `Arc`s of rows). A keystroke re-colours and
//! re-lays one line; the whole text is compared and hashed once, which is cheap. The joined
//! galley itself is cached until the text or the decorations change.

use super::*;

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
    pub(super) error: Color32,
    pub(super) warning: Color32,
    pub(super) find: Color32,
    pub(super) find_current: Color32,
    pub(super) current_line: Color32,
    pub(super) picked_line: Color32,
    pub(super) gutter_bg: Color32,
    pub(super) gutter_text: Color32,
    pub(super) gutter_current: Color32,
}

impl Palette {
    pub(super) fn new(dark: bool) -> Self {
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
    pub(super) text: String,
    /// Start byte of every line of `text`.
    line_starts: Vec<usize>,
    /// Recent edits, (version after the edit, edit), to carry diagnostics of an older version
    /// over to the current text while the worker catches up.
    pub(super) edits: VecDeque<(u64, Edit)>,
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
    pub(super) decor_gen: u64,
    style_key: u64,
    /// Per line of the last layout: (key of text and decorations, its galley).
    pub(super) lines: Vec<(u64, Arc<Galley>)>,
    pub(super) galley: Option<(u64, u64, Arc<Galley>)>,
    pub(super) palette: Palette,
    pub(super) font: FontId,
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
    pub(super) fn sync(&mut self, new: &str) {
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
    pub(super) fn reset(&mut self, text: &str) {
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

    pub(super) fn set_find(&mut self, query: &str, case: bool) {
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

    pub(super) fn line_severity(&self, line: usize) -> Option<Severity> {
        self.line_marks
            .binary_search_by_key(&line, |(l, _)| *l)
            .ok()
            .map(|i| self.line_marks[i].1)
    }

    /// The layouter: the galley of `text`, from cache when possible.
    pub(super) fn layout(&mut self, ui: &Ui, text: &str) -> Arc<Galley> {
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
