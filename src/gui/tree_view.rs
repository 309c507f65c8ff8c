//! The victory-condition view (勝利評価条件): the graph the analysis derives from the rules, as a
//! collapsible tree and as a drawn graph (zoom and pan), with each condition's state in a
//! position — the match's current one during a match, else the initial one.

use super::i18n::{Lang, T, tr, trf, trn};
use crate::analysis::{Distances, OutOfReach, Step, VictoryGraph, distances, out_of_reach};
use crate::engine::{Engine, State};
use crate::program::RuleProgram;
use crate::side::Side;
use egui::{Align2, Color32, CornerRadius, FontId, Pos2, Rect, RichText, Sense, Stroke, Ui, Vec2};
use std::collections::HashMap;
use std::sync::Arc;

/// Victory rules whose trees are open at first (the rest are one line each until opened).
const OPEN_DECISIVE: usize = 8;

/// Victory rules listed until "show all" is clicked (each is laid out every frame).
const SHOWN_DECISIVE: usize = 20;

/// Achieving rules listed under a node until "show all" is clicked (about a screenful: every listed rule and its conditions are laid out each frame).
const SHOWN_ACHIEVERS: usize = 12;

/// The judged position: both pursuers' distances.
pub struct Judged {
    /// Distances with h pursuing the win, and with c.
    pub d: [Distances; 2],
    /// Per pursuer, per node: whether an ∞ node blocks the win or is not needed.
    pub reach: [Vec<Option<OutOfReach>>; 2],
    /// Per node, per achiever: its rule as text and its origin (made once per graph).
    pub texts: Arc<Vec<Vec<(String, String)>>>,
    /// The reserved state 勝利 as the file spells it (`win` where it writes that).
    pub win_name: String,
}

impl Judged {
    /// Computes both sides' distances in `st`.
    pub fn new(graph: &VictoryGraph, prog: &RuleProgram, st: &State) -> Self {
        Self::with_texts(graph, prog, st, Arc::new(achiever_texts(graph, prog)))
    }

    fn with_texts(
        graph: &VictoryGraph,
        prog: &RuleProgram,
        st: &State,
        texts: Arc<Vec<Vec<(String, String)>>>,
    ) -> Self {
        let eng = Engine::new(prog, 0);
        // Each side's commands as it meets them at its own next turn (the same position the
        // Initial state view and `kumite tree` show).
        let met = eng.as_each_side_meets_it(st);
        let st = met.as_ref().unwrap_or(st);
        let d = [
            distances(graph, &eng, st, Side::H),
            distances(graph, &eng, st, Side::C),
        ];
        Self {
            reach: [out_of_reach(graph, &d[0]), out_of_reach(graph, &d[1])],
            d,
            texts,
            win_name: prog.states.first().cloned().unwrap_or_default(),
        }
    }
}

/// Every achiever's rule text and origin, by node.
fn achiever_texts(graph: &VictoryGraph, prog: &RuleProgram) -> Vec<Vec<(String, String)>> {
    graph
        .nodes
        .iter()
        .map(|n| {
            n.achievers
                .iter()
                .map(|a| (a.text(prog), a.origin(prog)))
                .collect()
        })
        .collect()
}

/// What the view asks of the app.
pub enum TreeAction {
    /// Show this 1-based source line in the editor.
    ShowLine(usize),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Tree,
    Graph,
}

/// The view.
pub struct TreeView {
    mode: Mode,
    scene_rect: Rect,
    /// The graph's canvas as last drawn (its scale is this over `scene_rect`).
    canvas: Vec2,
    /// Cache: (graph pointer, position) → judgement.
    cache: Option<(usize, State, Arc<Judged>)>,
    layout: Option<(usize, Arc<GraphLayout>)>,
}

impl Default for TreeView {
    fn default() -> Self {
        Self {
            mode: Mode::Tree,
            scene_rect: Rect::ZERO,
            canvas: Vec2::ZERO,
            cache: None,
            layout: None,
        }
    }
}

/// Colours that read on both themes.
struct Palette {
    holds: Color32,
    open: Color32,
    win: Color32,
    rule: Color32,
    text: Color32,
    weak: Color32,
}

impl Palette {
    fn of(ui: &Ui) -> Self {
        if ui.visuals().dark_mode {
            Self {
                holds: Color32::from_rgb(100, 200, 120),
                open: Color32::from_rgb(150, 150, 160),
                win: Color32::from_rgb(235, 190, 70),
                rule: Color32::from_rgb(120, 170, 240),
                text: Color32::from_gray(225),
                weak: Color32::from_gray(140),
            }
        } else {
            Self {
                holds: Color32::from_rgb(20, 130, 50),
                open: Color32::from_rgb(110, 110, 120),
                win: Color32::from_rgb(170, 110, 0),
                rule: Color32::from_rgb(30, 90, 180),
                text: Color32::from_gray(20),
                weak: Color32::from_gray(110),
            }
        }
    }
}

/// What an ∞ node means for the two pursuers' wins: "not needed to win" when it blocks
/// neither, else whose win it blocks (empty for a node no side finds out of reach).
fn reach_note(lang: Lang, h: Option<OutOfReach>, c: Option<OutOfReach>) -> String {
    let blocks: Vec<&str> = [(h, "h"), (c, "c")]
        .into_iter()
        .filter(|(w, _)| *w == Some(OutOfReach::BlocksTheWin))
        .map(|(_, s)| s)
        .collect();
    let other_way = [h, c].contains(&Some(OutOfReach::WinGoesAnotherWay));
    match (h.or(c), blocks.as_slice()) {
        (None, _) => String::new(),
        (Some(_), []) if other_way => tr(lang, T::OutOfReachOtherWay).to_string(),
        (Some(_), []) => tr(lang, T::OutOfReachNotNeeded).to_string(),
        (Some(_), sides) => trf(lang, T::OutOfReachBlocks, sides.join(", ")),
    }
}

/// "3", or "∞" for unreachable.
/// How many of a list's `len` items are listed: `max` until its "show all" link (`id`) is clicked.
fn shown_of(ui: &Ui, id: egui::Id, len: usize, max: usize) -> usize {
    if ui.data(|d| d.get_temp::<bool>(id)).unwrap_or(false) {
        len
    } else {
        len.min(max)
    }
}

/// The "… N more …: show all" link under a list with `more` items not listed.
fn show_all_link(ui: &mut Ui, lang: Lang, key: T, id: egui::Id, more: usize) {
    if more > 0 && ui.link(trf(lang, key, more)).clicked() {
        ui.data_mut(|d| d.insert_temp(id, true));
    }
}

fn dist_text(d: u32, cap: u32) -> String {
    if d >= cap {
        "∞".into()
    } else {
        d.to_string()
    }
}

/// A distance with `*` when it counts on a move of the opponent ([`Distances::assumes`]).
fn dist_mark(d: u32, assumes: bool, cap: u32) -> String {
    let t = dist_text(d, cap);
    if assumes && d < cap { t + "*" } else { t }
}

fn step_text(lang: Lang, g: &VictoryGraph, a: &crate::analysis::Achiever) -> String {
    let how = match a.step {
        Step::Add(x) => format!("{x:+}"),
        Step::Set(v) => format!("={v}"),
        Step::Scale(op, v) => format!("{op:?} {v}"),
        Step::Clamp(c) => match c.sign {
            0 => "= min/max",
            1 => "+= min/max",
            _ => "-= min/max",
        }
        .to_string(),
        Step::Enable => tr(lang, T::Enables).to_string(),
    };
    let mut s = how;
    if a.period > 1 {
        s.push_str(&format!(" @{}/", a.period));
    }
    if a.opponent {
        s.push_str(tr(lang, T::TheOpponentSOwn));
    } else if !a.needs_command {
        s.push_str(tr(lang, T::ByItself));
    }
    if let Some(x) = a.only {
        s.push_str(&trf(lang, T::ForOneSideOnly, x.name()));
    }
    if !a.assumes.is_empty() {
        s.push_str(&trf(lang, T::CountsOnOpponent, a.assumes.join(", ")));
    }
    // What its firings use up (the distance pays for bringing it back beyond the reserve).
    for sp in &a.spends {
        s.push_str(&trn(
            lang,
            T::SpendsACondition,
            &[&g.nodes[sp.node].text, &sp.per],
        ));
    }
    s
}

/// How a decisive rule is decisive, in the studio's language: empty for the pursuer's own rule.
fn decisive_whose(lang: Lang, d: &crate::analysis::Decisive) -> String {
    let mut s = String::new();
    if d.opponent {
        s.push_str(tr(lang, T::TheOpponentSOwn));
    }
    if let Some(x) = d.only {
        s.push_str(&trf(lang, T::ForOneSideOnly, x.name()));
    }
    if !d.assumes.is_empty() {
        s.push_str(&trf(lang, T::CountsOnOpponent, d.assumes.join(", ")));
    }
    s
}

impl TreeView {
    fn judged(&mut self, graph: &Arc<VictoryGraph>, prog: &RuleProgram, st: &State) -> Arc<Judged> {
        let key = Arc::as_ptr(graph) as usize;
        if let Some((k, s, j)) = &self.cache
            && *k == key
            && s == st
        {
            return j.clone();
        }
        // The texts belong to the graph: a new position of the same graph keeps them.
        let texts = match &self.cache {
            Some((k, _, j)) if *k == key => j.texts.clone(),
            _ => Arc::new(achiever_texts(graph, prog)),
        };
        let j = Arc::new(Judged::with_texts(graph, prog, st, texts));
        self.cache = Some((key, st.clone(), j.clone()));
        j
    }

    /// Shows the view for `graph` of `prog` in position `st`, described by `where_`.
    #[allow(clippy::too_many_arguments)]
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        lang: Lang,
        graph: &Arc<VictoryGraph>,
        prog: &RuleProgram,
        st: &State,
        where_: &str,
        stale: bool,
    ) -> Option<TreeAction> {
        let j = self.judged(graph, prog, st);
        let pal = Palette::of(ui);
        let cap = crate::analysis::UNREACHABLE;
        let mut action = None;
        // The view switch on a row of its own: beside the distances it covered "(match, after
        // turn N)" in a narrow panel.
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.mode, Mode::Tree, tr(lang, T::Tree));
            ui.selectable_value(&mut self.mode, Mode::Graph, tr(lang, T::Graph));
        });
        ui.horizontal_wrapped(|ui| {
            // A decided position has no distance left to win: it says who won instead (it
            // showed "h 7* · c 4*" beside a match c had won).
            if let Some(o) = st.outcome {
                let key = match o {
                    crate::engine::Outcome::H => T::TreeDecidedH,
                    crate::engine::Outcome::C => T::TreeDecidedC,
                    crate::engine::Outcome::Draw => T::TreeDecidedDraw,
                };
                ui.label(RichText::new(tr(lang, key)).strong().color(pal.win));
            } else {
                ui.label(RichText::new(tr(lang, T::DistanceToWinTitle)).strong());
                ui.label(
                    RichText::new(format!(
                        "h {} · c {}",
                        dist_mark(j.d[0].to_win, j.d[0].to_win_assumes, cap),
                        dist_mark(j.d[1].to_win, j.d[1].to_win_assumes, cap)
                    ))
                    .strong()
                    .color(pal.win),
                );
            }
            ui.weak(format!("({where_})"));
        });
        for (side, d) in j.d.iter().enumerate() {
            if let Some(why) = &d.unreachable {
                ui.weak(format!(
                    "{} {}: {why}",
                    Side::from_index(side).name(),
                    tr(lang, T::CannotReachAWin)
                ));
            }
        }
        if stale {
            ui.colored_label(pal.win, tr(lang, T::TheTextHasErrors));
        }
        if graph.decisive.is_empty() {
            ui.add_space(8.0);
            ui.label(tr(lang, T::NoRuleMakesA));
        }
        match self.mode {
            Mode::Tree => {
                // Vertical only: every row wraps at the panel's edge instead of running past it
                // (a horizontal scroll hid "c × 0" at the default window size).
                egui::ScrollArea::vertical()
                    .id_salt("tree-scroll")
                    .auto_shrink([false, false])
                    .show(ui, |ui| {
                        self.tree(ui, lang, graph, &j, &pal, cap, &mut action);
                    });
            }
            Mode::Graph => self.graph(ui, lang, graph, &j, &pal, cap, &mut action),
        }
        action
    }

    /// A node's row; `depth` is how deep the tree nests it (Lv1 = a condition of the victory
    /// rule it is listed under), which differs from the graph's level when a node is reached
    /// by several paths.
    /// The graph's scale as last drawn (1 = full size), while the graph is shown.
    pub fn graph_scale(&self) -> Option<f32> {
        (self.mode == Mode::Graph && self.scene_rect.width() > 0.0).then(|| {
            (self.canvas.x / self.scene_rect.width()).min(self.canvas.y / self.scene_rect.height())
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn node_row(
        ui: &mut Ui,
        node: usize,
        depth: usize,
        graph: &VictoryGraph,
        j: &Judged,
        pal: &Palette,
        cap: u32,
    ) -> egui::WidgetText {
        let n = &graph.nodes[node];
        let mut job = egui::text::LayoutJob::default();
        let font = FontId::monospace(13.0);
        let push = |job: &mut egui::text::LayoutJob, t: &str, c: Color32| {
            job.append(t, 0.0, egui::TextFormat::simple(font.clone(), c));
        };
        push(&mut job, &format!("Lv{depth} "), pal.weak);
        push(&mut job, &n.text, pal.text);
        for (side, name) in [(0usize, "h"), (1, "c")] {
            let holds = j.d[side].holds[node];
            // An ∞ that no win needs is greyed; one that blocks a win stands out.
            let colour = match j.reach[side][node] {
                _ if holds => pal.holds,
                Some(OutOfReach::NotNeeded | OutOfReach::WinGoesAnotherWay) => pal.weak,
                Some(OutOfReach::BlocksTheWin) => pal.win,
                None => pal.open,
            };
            push(
                &mut job,
                &format!(
                    "  {name} {} {}",
                    if holds { "○" } else { "×" },
                    dist_mark(j.d[side].node[node], j.d[side].assumes[node], cap)
                ),
                colour,
            );
        }
        let _ = ui;
        job.into()
    }

    #[allow(clippy::too_many_arguments)]
    fn tree(
        &mut self,
        ui: &mut Ui,
        lang: Lang,
        graph: &VictoryGraph,
        j: &Judged,
        pal: &Palette,
        cap: u32,
        action: &mut Option<TreeAction>,
    ) {
        ui.weak(tr(lang, T::HoldsNowNotYet));
        if j.d
            .iter()
            .any(|d| d.assumes.iter().chain(&d.decisive_assumes).any(|a| *a))
        {
            ui.weak(tr(lang, T::AssumesLegend));
        }
        if j.reach.iter().flatten().any(Option::is_some) {
            ui.weak(tr(lang, T::OutOfReachLegend));
        }
        // A file with hundreds of victory rules lists the first few until asked for all.
        let all_id = ui.make_persistent_id("all-decisive");
        let shown = shown_of(ui, all_id, graph.decisive.len(), SHOWN_DECISIVE);
        for (di, d) in graph.decisive.iter().enumerate().take(shown) {
            let head = format!(
                "★ {}  {}    h {} · c {}{}",
                format_args!("L{}", d.line),
                d.text,
                dist_mark(j.d[0].decisive[di], j.d[0].decisive_assumes[di], cap),
                dist_mark(j.d[1].decisive[di], j.d[1].decisive_assumes[di], cap),
                decisive_whose(lang, d)
            );
            // A file with many victory rules opens only the first few: each open tree is laid
            // out every frame.
            let id = ui.make_persistent_id(("decisive", di));
            let mut clicked = false;
            let mut header = egui::collapsing_header::CollapsingState::load_with_default_open(
                ui.ctx(),
                id,
                di < OPEN_DECISIVE,
            )
            .show_header(ui, |ui| {
                let row = RichText::new(head).monospace().color(pal.win);
                clicked = ui
                    .add(egui::Label::new(row).wrap().sense(Sense::click()))
                    .clicked();
            });
            if clicked {
                header.toggle();
            }
            header.body(|ui| {
                if ui.link(format!("→ L{}", d.line)).clicked() {
                    *action = Some(TreeAction::ShowLine(d.line));
                }
                let mut path = vec![];
                for &c in &d.conds {
                    Self::node_tree(ui, lang, graph, j, pal, cap, c, &mut path, action);
                }
                for e in &d.excluded {
                    ui.label(
                        RichText::new(format!("{e}  — {}", tr(lang, T::Excluded)))
                            .monospace()
                            .color(pal.weak),
                    );
                }
            });
        }
        let more = graph.decisive.len() - shown;
        show_all_link(ui, lang, T::MoreVictoryRulesShowAll, all_id, more);
        if !graph.excluded.is_empty() {
            ui.add_space(6.0);
            egui::CollapsingHeader::new(format!(
                "{} ({})",
                tr(lang, T::ExcludedTitle),
                graph.excluded.len()
            ))
            .id_salt("excluded")
            .default_open(false)
            .show(ui, |ui| {
                for e in &graph.excluded {
                    ui.horizontal_wrapped(|ui| {
                        if ui.link(format!("L{}", e.line)).clicked() {
                            *action = Some(TreeAction::ShowLine(e.line));
                        }
                        ui.monospace(&e.what);
                        ui.weak(&e.reason);
                    });
                }
            });
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn node_tree(
        ui: &mut Ui,
        lang: Lang,
        graph: &VictoryGraph,
        j: &Judged,
        pal: &Palette,
        cap: u32,
        node: usize,
        path: &mut Vec<usize>,
        action: &mut Option<TreeAction>,
    ) {
        let label = Self::node_row(ui, node, path.len() + 1, graph, j, pal, cap);
        if path.contains(&node) {
            ui.label(
                RichText::new(format!("↻ {}", graph.nodes[node].text))
                    .monospace()
                    .color(pal.weak),
            );
            return;
        }
        let n = &graph.nodes[node];
        let note = reach_note(lang, j.reach[0][node], j.reach[1][node]);
        let id = ui.make_persistent_id(("vec-node", path.clone(), node));
        // The row itself opens and closes the node, as the arrow beside it does.
        let mut clicked = false;
        let mut header = egui::collapsing_header::CollapsingState::load_with_default_open(
            ui.ctx(),
            id,
            path.is_empty(),
        )
        .show_header(ui, |ui| {
            let row = ui.add(egui::Label::new(label).wrap().sense(Sense::click()));
            clicked = row.clicked();
            if !note.is_empty() {
                row.on_hover_text(&note);
            }
        });
        if clicked {
            header.toggle();
        }
        header.body(|ui| {
            // Said at the top of the node's body rather than on its row, which stays narrow.
            if !note.is_empty() {
                ui.weak(&note);
            }
            if n.achievers.is_empty() {
                ui.weak(tr(lang, T::NoRuleMakesThis));
            }
            path.push(node);
            // A node many rules achieve lists the first few until asked for all.
            let all_id = id.with("all");
            let shown = shown_of(ui, all_id, n.achievers.len(), SHOWN_ACHIEVERS);
            for (ai, a) in n.achievers.iter().enumerate().take(shown) {
                let (text, origin) = &j.texts[node][ai];
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new("←").color(pal.rule));
                    if ui
                        .link(format!("L{}", a.line))
                        .on_hover_text(origin)
                        .clicked()
                    {
                        *action = Some(TreeAction::ShowLine(a.line));
                    }
                    ui.label(RichText::new(text).monospace().color(pal.rule));
                    ui.weak(step_text(lang, graph, a));
                });
                ui.indent(("ach", a.rule, node), |ui| {
                    for &c in &a.conds {
                        Self::node_tree(ui, lang, graph, j, pal, cap, c, path, action);
                    }
                    for e in &a.excluded {
                        ui.label(
                            RichText::new(format!("{e}  — {}", tr(lang, T::Excluded)))
                                .monospace()
                                .color(pal.weak),
                        );
                    }
                });
            }
            let more = n.achievers.len() - shown;
            show_all_link(ui, lang, T::MoreRulesShowAll, all_id, more);
            path.pop();
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn graph(
        &mut self,
        ui: &mut Ui,
        lang: Lang,
        graph: &Arc<VictoryGraph>,
        j: &Judged,
        pal: &Palette,
        cap: u32,
        action: &mut Option<TreeAction>,
    ) {
        let key = Arc::as_ptr(graph) as usize;
        if self.layout.as_ref().is_none_or(|(k, _)| *k != key) {
            // Each box is as tall as its rule text wrapped in it (up to four lines, the rest
            // on hover): a fixed height cut long rules at the box's edge.
            let painter = ui.painter().clone();
            let title_height = |text: &str| box_title(&painter, text, Color32::WHITE).rect.height();
            self.layout = Some((
                key,
                Arc::new(GraphLayout::new(graph, &j.texts, title_height)),
            ));
            self.scene_rect = Rect::ZERO; // fit the new graph
        }
        let layout = self
            .layout
            .as_ref()
            .map(|(_, l)| l.clone())
            .expect("set above");
        ui.horizontal(|ui| {
            if ui.button(tr(lang, T::Fit)).clicked() {
                // As at the start: the whole graph where it fits readably, else readable at the
                // win end with the rest a drag away (fitting a 9-level graph made it unreadable).
                self.scene_rect = Rect::ZERO;
            }
            ui.weak(tr(lang, T::DragToPanCtrl));
        });
        let frame = egui::Frame::canvas(ui.style());
        frame.show(ui, |ui| {
            ui.set_min_size(ui.available_size());
            self.canvas = ui.available_size();
            let bounds = layout.bounds();
            if self.scene_rect == Rect::ZERO {
                // The whole graph if it fits readably, else readable at the win end (the left),
                // vertically centred; "Fit" or Ctrl+wheel shows the rest.
                let avail = ui.available_size();
                let fit =
                    (avail.x / (bounds.width() + 40.0)).min(avail.y / (bounds.height() + 40.0));
                // Readable means the 12 px box text stays at 11 px or more.
                const READABLE: f32 = 11.0 / 12.0;
                let zoom = fit.clamp(READABLE, 1.0);
                let size = avail / zoom;
                self.scene_rect = if fit >= READABLE {
                    Rect::from_center_size(bounds.center(), size)
                } else {
                    let top = bounds.center().y - size.y / 2.0;
                    Rect::from_min_size(Pos2::new(bounds.min.x - 20.0, top), size)
                };
            }
            let before = self.scene_rect;
            egui::Scene::new()
                .zoom_range(0.05..=2.0)
                .max_inner_size(bounds.max.to_vec2() + Vec2::splat(40.0))
                .show(ui, &mut self.scene_rect, |ui| {
                    ui.expand_to_include_rect(bounds.expand(20.0));
                    layout.paint(ui, lang, graph, j, pal, cap, action);
                });
            self.scene_rect = limit_zoom_step(before, self.scene_rect);
        });
    }
}

/// A graph box's rule text, wrapped at the box's width, four lines at most (then "…").
fn box_title(painter: &egui::Painter, text: &str, colour: Color32) -> Arc<egui::Galley> {
    let mut job = egui::text::LayoutJob::simple(
        text.to_owned(),
        FontId::monospace(12.0),
        colour,
        BOX_W - 16.0,
    );
    job.wrap.max_rows = 4;
    job.wrap.break_anywhere = true;
    painter.layout_job(job)
}

/// One wheel notch zooms by at most a quarter: a larger step (egui's scene took three notches
/// from unreadable to three boxes filling the panel) is scaled back around the same centre.
fn limit_zoom_step(before: Rect, after: Rect) -> Rect {
    const STEP: f32 = 1.25;
    if before.width() <= 0.0 || after.width() <= 0.0 {
        return after;
    }
    let ratio = after.width() / before.width();
    let allowed = ratio.clamp(1.0 / STEP, STEP);
    if (ratio - allowed).abs() < 1e-4 {
        return after;
    }
    Rect::from_center_size(after.center(), before.size() * allowed)
}

/// Where each box goes: win on the left, then decisive rules, conditions and their achieving
/// rules, alternating to the right.
pub struct GraphLayout {
    /// Boxes.
    boxes: Vec<GBox>,
    /// Arrows (from box, to box, label).
    edges: Vec<(usize, usize)>,
}

enum GKind {
    Win,
    Decisive(usize),
    Node(usize),
    Rule(usize, usize),
}

struct GBox {
    kind: GKind,
    rect: Rect,
}

const BOX_W: f32 = 210.0;
const BOX_H: f32 = 46.0;
const COL_GAP: f32 = 44.0;
const ROW_GAP: f32 = 14.0;

impl GraphLayout {
    fn new(
        g: &VictoryGraph,
        texts: &[Vec<(String, String)>],
        title_height: impl Fn(&str) -> f32,
    ) -> Self {
        let mut cols: Vec<Vec<GKind>> = vec![vec![GKind::Win]];
        let mut edges_k: Vec<((usize, usize), (usize, usize))> = Vec::new();
        let mut node_at: HashMap<usize, (usize, usize)> = HashMap::new();
        let mut rule_at: HashMap<(usize, usize), (usize, usize)> = HashMap::new();
        let put = |cols: &mut Vec<Vec<GKind>>, col: usize, k: GKind| -> (usize, usize) {
            while cols.len() <= col {
                cols.push(Vec::new());
            }
            cols[col].push(k);
            (col, cols[col].len() - 1)
        };
        let mut frontier: Vec<(usize, (usize, usize))> = Vec::new();
        for (di, d) in g.decisive.iter().enumerate() {
            let at = put(&mut cols, 1, GKind::Decisive(di));
            edges_k.push((at, (0, 0)));
            for &c in &d.conds {
                frontier.push((c, at));
            }
        }
        let mut col = 2;
        while !frontier.is_empty() && col < 40 {
            let mut next = Vec::new();
            for (node, parent) in frontier {
                let at = match node_at.get(&node) {
                    Some(&a) => {
                        edges_k.push((a, parent));
                        continue;
                    }
                    None => {
                        let a = put(&mut cols, col, GKind::Node(node));
                        node_at.insert(node, a);
                        a
                    }
                };
                edges_k.push((at, parent));
                for (ai, a) in g.nodes[node].achievers.iter().enumerate() {
                    let r = put(&mut cols, col + 1, GKind::Rule(node, ai));
                    rule_at.insert((node, ai), r);
                    edges_k.push((r, at));
                    for &c in &a.conds {
                        next.push((c, r));
                    }
                }
            }
            frontier = next;
            col += 2;
        }
        let mut index: HashMap<(usize, usize), usize> = HashMap::new();
        let mut boxes = Vec::new();
        let height = |k: &GKind| {
            let title = match *k {
                GKind::Win => return BOX_H,
                GKind::Decisive(di) => &g.decisive[di].text,
                GKind::Node(n) => &g.nodes[n].text,
                GKind::Rule(n, ai) => &texts[n][ai].0,
            };
            // The title's top margin and the sub line under it.
            (title_height(title) + 31.0).max(BOX_H)
        };
        let heights: Vec<Vec<f32>> = cols
            .iter()
            .map(|c| c.iter().map(&height).collect())
            .collect();
        let col_height = |hs: &Vec<f32>| hs.iter().map(|h| h + ROW_GAP).sum::<f32>();
        let tallest = heights.iter().map(col_height).fold(BOX_H, f32::max);
        for (ci, c) in cols.into_iter().enumerate() {
            let mut y = (tallest - col_height(&heights[ci])) / 2.0;
            for (ri, k) in c.into_iter().enumerate() {
                let box_h = heights[ci][ri];
                let w = if matches!(k, GKind::Win) { 90.0 } else { BOX_W };
                let x = if ci == 0 {
                    BOX_W - 90.0
                } else {
                    ci as f32 * (BOX_W + COL_GAP)
                };
                index.insert((ci, ri), boxes.len());
                boxes.push(GBox {
                    kind: k,
                    rect: Rect::from_min_size(Pos2::new(x, y), Vec2::new(w, box_h)),
                });
                y += box_h + ROW_GAP;
            }
        }
        let edges = edges_k
            .into_iter()
            .filter_map(|(a, b)| Some((*index.get(&a)?, *index.get(&b)?)))
            .collect();
        Self { boxes, edges }
    }

    fn bounds(&self) -> Rect {
        self.boxes
            .iter()
            .fold(Rect::NOTHING, |acc, b| acc.union(b.rect))
    }

    #[allow(clippy::too_many_arguments)]
    fn paint(
        &self,
        ui: &mut Ui,
        lang: Lang,
        g: &VictoryGraph,
        j: &Judged,
        pal: &Palette,
        cap: u32,
        action: &mut Option<TreeAction>,
    ) {
        let painter = ui.painter().clone();
        let bg = ui.visuals().extreme_bg_color;
        // Arrows first, under the boxes: from the achiever (right) to what it serves (left).
        for &(from, to) in &self.edges {
            let a = self.boxes[from].rect.left_center();
            let b = self.boxes[to].rect.right_center();
            let color = pal.weak;
            let mid = (a.x + b.x) / 2.0;
            let pts = vec![a, Pos2::new(mid, a.y), Pos2::new(mid, b.y), b];
            painter.add(egui::Shape::line(pts, Stroke::new(1.2, color)));
            let tip = b;
            painter.add(egui::Shape::convex_polygon(
                vec![tip, tip + Vec2::new(7.0, -4.0), tip + Vec2::new(7.0, 4.0)],
                color,
                Stroke::NONE,
            ));
        }
        let small = FontId::proportional(11.0);
        for (bi, b) in self.boxes.iter().enumerate() {
            let r = b.rect;
            let resp = ui.interact(r, ui.scope_id().with(("gbox", bi)), Sense::click());
            let (title, sub, stroke, line, tip): (String, String, Color32, Option<usize>, String) =
                match b.kind {
                    GKind::Win => (String::new(), String::new(), pal.win, None, String::new()),
                    GKind::Decisive(di) => {
                        let d = &g.decisive[di];
                        (
                            d.text.clone(),
                            format!(
                                "L{}   h {} · c {}",
                                d.line,
                                dist_mark(j.d[0].decisive[di], j.d[0].decisive_assumes[di], cap),
                                dist_mark(j.d[1].decisive[di], j.d[1].decisive_assumes[di], cap)
                            ),
                            pal.win,
                            Some(d.line),
                            format!("{}{}", d.text, decisive_whose(lang, d)),
                        )
                    }
                    GKind::Node(n) => {
                        let node = &g.nodes[n];
                        let mark = |s: usize| if j.d[s].holds[n] { "○" } else { "×" };
                        let held = j.d[0].holds[n] || j.d[1].holds[n];
                        (
                            node.text.clone(),
                            format!(
                                "Lv{}   h {} {} · c {} {}",
                                node.level,
                                mark(0),
                                dist_mark(j.d[0].node[n], j.d[0].assumes[n], cap),
                                mark(1),
                                dist_mark(j.d[1].node[n], j.d[1].assumes[n], cap)
                            ),
                            if held { pal.holds } else { pal.open },
                            node.achievers.first().map(|a| a.line),
                            node.text.clone(),
                        )
                    }
                    GKind::Rule(n, ai) => {
                        let a = &g.nodes[n].achievers[ai];
                        let (text, origin) = &j.texts[n][ai];
                        let whose = if a.opponent {
                            tr(lang, T::OpponentSOwnRule)
                        } else {
                            ""
                        };
                        (
                            text.clone(),
                            format!("L{}  {origin}{whose}", a.line),
                            pal.rule,
                            Some(a.line),
                            text.clone(),
                        )
                    }
                };
            let rounding = if matches!(b.kind, GKind::Node(_)) {
                12
            } else {
                3
            };
            painter.rect(
                r,
                CornerRadius::same(rounding),
                bg,
                Stroke::new(if resp.hovered() { 2.5 } else { 1.5 }, stroke),
                egui::StrokeKind::Inside,
            );
            let clip = painter.with_clip_rect(r.shrink(3.0));
            if !title.is_empty() {
                clip.galley(
                    r.left_top() + Vec2::new(8.0, 5.0),
                    box_title(&painter, &title, pal.text),
                    pal.text,
                );
            }
            if !sub.is_empty() {
                clip.text(
                    r.left_bottom() + Vec2::new(8.0, -5.0),
                    Align2::LEFT_BOTTOM,
                    &sub,
                    small.clone(),
                    pal.weak,
                );
            }
            if matches!(b.kind, GKind::Win) {
                clip.text(
                    r.center(),
                    Align2::CENTER_CENTER,
                    format!("★ {}", j.win_name),
                    FontId::monospace(12.0),
                    pal.win,
                );
            }
            let name = if title.is_empty() {
                j.win_name.clone()
            } else {
                format!("{title} {sub}")
            };
            resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &name));
            let resp = if tip.is_empty() {
                resp
            } else {
                resp.on_hover_text(tip)
            };
            if resp.clicked()
                && let Some(l) = line
            {
                *action = Some(TreeAction::ShowLine(l));
            }
        }
    }
}

#[cfg(test)]
mod zoom_tests {
    use super::*;

    #[test]
    fn a_wheel_notch_zooms_by_a_quarter_at_most() {
        let before = Rect::from_min_size(Pos2::ZERO, Vec2::new(400.0, 300.0));
        // egui asked for 3× in one step: it becomes 1.25× out, about the same centre.
        let asked = Rect::from_center_size(before.center(), before.size() * 3.0);
        let got = limit_zoom_step(before, asked);
        assert!((got.width() / before.width() - 1.25).abs() < 1e-4);
        assert_eq!(got.center(), asked.center());
        // Small steps and pans pass as they are.
        let pan = before.translate(Vec2::new(30.0, 0.0));
        assert_eq!(limit_zoom_step(before, pan), pan);
        let small = Rect::from_center_size(before.center(), before.size() * 1.1);
        assert_eq!(limit_zoom_step(before, small), small);
    }
}
