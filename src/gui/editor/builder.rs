//! The rule builder (F4): a form for authors who would rather not learn the syntax. Conditions
//! and effects are picked from menus of the file's states and commands with a comparison and a
//! value; the `::` (if and only if) and mirror (`&{ }`) choices are check boxes. It writes a
//! valid line at the cursor, and reads the rule under the cursor back into the form.

use super::EditorPanel;
use crate::gui::i18n::{Lang, T, tr};
use crate::symbols::SymKind;
use crate::syntax::ast::{CmdSide, Cond, Effect, Stmt};
use egui::{ComboBox, RichText, Ui};

/// One condition row.
#[derive(Clone, Debug, PartialEq)]
pub enum CondRow {
    /// `S.name OP value`.
    Compare {
        side: String,
        state: String,
        op: String,
        value: String,
    },
    /// `[X]` / `O.[X]` / `![X]` / `!O.[X]`.
    Command { opp: bool, neg: bool, cmd: String },
    /// Anything else, as written.
    Raw(String),
}

/// One effect row.
#[derive(Clone, Debug, PartialEq)]
pub enum EffRow {
    /// `S.name OP= value`.
    Update {
        side: String,
        state: String,
        op: String,
        value: String,
    },
    /// `[X]` (on) / `![X]` (off), own or opponent's.
    Switch { opp: bool, on: bool, cmd: String },
    /// Anything else, as written.
    Raw(String),
}

/// The form.
#[derive(Clone, Debug, Default)]
pub struct RuleBuilder {
    /// Conditions.
    pub conds: Vec<CondRow>,
    /// Effects.
    pub effects: Vec<EffRow>,
    /// `::` rather than `:`.
    pub iff: bool,
    /// Wrap in a left/right symmetric block.
    pub mirror: bool,
    /// The 0-based line it was read from (Replace writes it back there).
    pub from_line: Option<usize>,
    /// The last line checked, the text version it was checked in, and its problems.
    checked: Option<(String, u64, Vec<String>)>,
}

impl RuleBuilder {
    /// The rule line the form describes.
    pub fn line(&self) -> String {
        let conds: Vec<String> = self
            .conds
            .iter()
            .map(|c| match c {
                CondRow::Compare {
                    side,
                    state,
                    op,
                    value,
                } => format!("{side}.{state}{op}{value}"),
                CondRow::Command { opp, neg, cmd } => format!(
                    "{}{}[{cmd}]",
                    if *neg { "!" } else { "" },
                    if *opp { "O." } else { "" }
                ),
                CondRow::Raw(t) => t.clone(),
            })
            .collect();
        let effects: Vec<String> = self
            .effects
            .iter()
            .map(|e| match e {
                EffRow::Update {
                    side,
                    state,
                    op,
                    value,
                } => format!("{side}.{state}{op}{value}"),
                EffRow::Switch { opp, on, cmd } => format!(
                    "{}{}[{cmd}]",
                    if *on { "" } else { "!" },
                    if *opp { "O." } else { "" }
                ),
                EffRow::Raw(t) => t.clone(),
            })
            .collect();
        let line = format!(
            "{}{}{}",
            conds.join(","),
            if self.iff { "::" } else { ":" },
            effects.join(",")
        );
        if self.mirror {
            format!("&{{\n{line}\n}}")
        } else {
            line
        }
    }

    /// True if a row still lacks its state or command name.
    pub fn missing_name(&self) -> bool {
        self.conds.iter().any(|c| match c {
            CondRow::Compare { state, .. } => state.trim().is_empty(),
            CondRow::Command { cmd, .. } => cmd.trim().is_empty(),
            CondRow::Raw(t) => t.trim().is_empty(),
        }) || self.effects.iter().any(|e| match e {
            EffRow::Update { state, .. } => state.trim().is_empty(),
            EffRow::Switch { cmd, .. } => cmd.trim().is_empty(),
            EffRow::Raw(t) => t.trim().is_empty(),
        })
    }

    /// The form for rule text `line` (one rule line), if it is one.
    pub fn read(line: &str) -> Option<Self> {
        let parsed = crate::syntax::parse(line);
        if parsed.diags.iter().any(|d| d.is_error()) {
            return None;
        }
        let Some(Stmt::Rule(r)) = parsed.stmts.first() else {
            return None;
        };
        if r.period.is_some() {
            return None;
        }
        let names = &parsed.names;
        let text = |sp: &std::ops::Range<usize>| line[sp.clone()].to_string();
        let conds = r
            .conds
            .iter()
            .map(|c| match c {
                Cond::Cmp { op, lhs, rhs, .. } => match lhs {
                    crate::syntax::ast::Expr::State(s) => CondRow::Compare {
                        side: s.side.prefix().into(),
                        state: names.get(s.name).into(),
                        op: op.text().into(),
                        value: text(&rhs.span()),
                    },
                    _ => CondRow::Raw(text(&c.span())),
                },
                Cond::Cmd { neg, side, cmd, .. } => CondRow::Command {
                    opp: *side == CmdSide::Opp,
                    neg: *neg,
                    cmd: names.get(cmd.name).into(),
                },
                Cond::Truth { .. } => CondRow::Raw(text(&c.span())),
            })
            .collect();
        let effects = r
            .effects
            .iter()
            .map(|e| match e {
                Effect::Update {
                    op, state, expr, ..
                } => EffRow::Update {
                    side: state.side.prefix().into(),
                    state: names.get(state.name).into(),
                    op: op.assign_text().into(),
                    value: text(&expr.span()),
                },
                Effect::Enable { on, side, cmd, .. } => EffRow::Switch {
                    opp: *side == CmdSide::Opp,
                    on: *on,
                    cmd: names.get(cmd.name).into(),
                },
                Effect::Bool { .. } => EffRow::Raw(text(&e.span())),
            })
            .collect();
        Some(Self {
            conds,
            effects,
            iff: r.iff,
            mirror: false,
            from_line: None,
            checked: None,
        })
    }
}

fn named(ui: &Ui, id: egui::Id, label: &str) {
    ui.ctx().accesskit_node_builder(id, |n| n.set_label(label));
}

fn text_field(ui: &mut Ui, value: &mut String, width: f32, label: &str) {
    let r = ui.add(egui::TextEdit::singleline(value).desired_width(width));
    named(ui, r.id, label);
}

fn pick_name(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    value: &mut String,
    names: &[String],
    label: &str,
) {
    text_field(ui, value, 110.0, label);
    let r = ComboBox::from_id_salt(id)
        .selected_text("")
        .width(24.0)
        .show_ui(ui, |ui| {
            for n in names {
                ui.selectable_value(value, n.clone(), n);
            }
        });
    named(ui, r.response.id, label);
}

fn pick_str(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    value: &mut String,
    options: &[&str],
    label: &str,
) {
    let r = ComboBox::from_id_salt(id)
        .selected_text(value.as_str())
        .width(44.0)
        .show_ui(ui, |ui| {
            for o in options {
                ui.selectable_value(value, o.to_string(), *o);
            }
        });
    named(ui, r.response.id, label);
}

impl RuleBuilder {
    /// The condition rows, each with its remove button, and the buttons that add one.
    fn conditions_ui(&mut self, ui: &mut Ui, lang: Lang, states: &[String], commands: &[String]) {
        ui.label(RichText::new(tr(lang, T::WhenAllOfThese)).strong());
        let mut remove = None;
        for (i, c) in self.conds.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                match c {
                    CondRow::Compare {
                        side,
                        state,
                        op,
                        value,
                    } => {
                        pick_str(
                            ui,
                            ("cs", i),
                            side,
                            &["S", "O", "h", "c"],
                            tr(lang, T::Side),
                        );
                        ui.label(".");
                        pick_name(ui, ("cn", i), state, states, tr(lang, T::State));
                        pick_str(
                            ui,
                            ("co", i),
                            op,
                            &["==", "!=", "<", "<=", ">", ">="],
                            tr(lang, T::Comparison),
                        );
                        text_field(ui, value, 70.0, tr(lang, T::Value));
                    }
                    CondRow::Command { opp, neg, cmd } => {
                        ui.checkbox(neg, tr(lang, T::Not));
                        ui.checkbox(opp, tr(lang, T::OpponentS));
                        ui.label(tr(lang, T::Command));
                        pick_name(ui, ("cc", i), cmd, commands, tr(lang, T::Command));
                    }
                    CondRow::Raw(t) => {
                        text_field(ui, t, 300.0, tr(lang, T::AsWritten));
                    }
                }
                if ui.small_button("×").clicked() {
                    remove = Some(i);
                }
            });
        }
        if let Some(i) = remove {
            self.conds.remove(i);
        }
        ui.horizontal(|ui| {
            if ui.button(tr(lang, T::AddCommand)).clicked() {
                self.conds.push(CondRow::Command {
                    opp: false,
                    neg: false,
                    cmd: commands.first().cloned().unwrap_or_default(),
                });
            }
            if ui.button(tr(lang, T::AddComparison)).clicked() {
                self.conds.push(CondRow::Compare {
                    side: "S".into(),
                    state: states.first().cloned().unwrap_or_default(),
                    op: ">=".into(),
                    value: "1".into(),
                });
            }
            if ui.button(tr(lang, T::Text)).clicked() {
                self.conds.push(CondRow::Raw(String::new()));
            }
        });
    }

    /// The effect rows, each with its remove button, and the buttons that add one.
    fn effects_ui(&mut self, ui: &mut Ui, lang: Lang, states: &[String], commands: &[String]) {
        ui.label(RichText::new(tr(lang, T::Then)).strong());
        let mut remove = None;
        for (i, e) in self.effects.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                match e {
                    EffRow::Update {
                        side,
                        state,
                        op,
                        value,
                    } => {
                        pick_str(
                            ui,
                            ("es", i),
                            side,
                            &["S", "O", "h", "c"],
                            tr(lang, T::Side),
                        );
                        ui.label(".");
                        pick_name(ui, ("en", i), state, states, tr(lang, T::State));
                        pick_str(
                            ui,
                            ("eo", i),
                            op,
                            &["=", "+=", "-=", "*=", "/="],
                            tr(lang, T::Operation),
                        );
                        text_field(ui, value, 70.0, tr(lang, T::Value));
                    }
                    EffRow::Switch { opp, on, cmd } => {
                        ui.checkbox(on, tr(lang, T::EnableOffDisable));
                        ui.checkbox(opp, tr(lang, T::OpponentS));
                        pick_name(ui, ("ec", i), cmd, commands, tr(lang, T::Command));
                    }
                    EffRow::Raw(t) => {
                        text_field(ui, t, 300.0, tr(lang, T::AsWritten));
                    }
                }
                if ui.small_button("×").clicked() {
                    remove = Some(i);
                }
            });
        }
        if let Some(i) = remove {
            self.effects.remove(i);
        }
        ui.horizontal(|ui| {
            if ui.button(tr(lang, T::ChangeAState)).clicked() {
                self.effects.push(EffRow::Update {
                    side: "O".into(),
                    state: states.first().cloned().unwrap_or_default(),
                    op: "-=".into(),
                    value: "1".into(),
                });
            }
            if ui.button(tr(lang, T::SwitchACommand)).clicked() {
                self.effects.push(EffRow::Switch {
                    opp: false,
                    on: true,
                    cmd: commands.first().cloned().unwrap_or_default(),
                });
            }
            if ui.button(tr(lang, T::Win)).clicked() {
                self.effects.push(EffRow::Raw("S.勝利".into()));
            }
        });
    }
}

impl EditorPanel {
    /// F4: opens the builder, filled from the rule under the cursor if there is one.
    pub fn open_builder(&mut self, ctx: &egui::Context) {
        let at = self.selection(ctx).0.end;
        let line = self.view.line_of(at);
        let lr = self.view.line_range(line);
        // Not on a rule: a starting form from the file's most used command and state.
        let ix = self.assist.symbols();
        let most_used = |k: SymKind| {
            ix.names(k)
                .into_iter()
                .max_by_key(|(_, n)| *n)
                .map(|(name, _)| name.to_string())
                .unwrap_or_default()
        };
        let read = RuleBuilder::read(self.text[lr].trim());
        let from_rule = read.is_some();
        let mut b = read.unwrap_or_else(|| RuleBuilder {
            conds: vec![CondRow::Command {
                opp: false,
                neg: false,
                cmd: most_used(SymKind::Command),
            }],
            effects: vec![EffRow::Update {
                side: "O".into(),
                state: most_used(SymKind::State),
                op: "-=".into(),
                value: "1".into(),
            }],
            ..Default::default()
        });
        if from_rule {
            b.from_line = Some(line);
        }
        self.builder = Some(b);
    }

    /// Draws the builder window.
    pub(super) fn builder_window(&mut self, ui: &mut Ui, lang: Lang) {
        let Some(mut b) = self.builder.take() else {
            return;
        };
        let ctx = ui.ctx().clone();
        let states: Vec<String> = self
            .assist
            .symbols()
            .names(SymKind::State)
            .into_iter()
            .map(|(n, _)| n.to_string())
            .chain(["勝利".to_string(), "敗北".to_string()])
            .collect();
        let commands: Vec<String> = self
            .assist
            .symbols()
            .names(SymKind::Command)
            .into_iter()
            .chain(self.assist.symbols().names(SymKind::Macro))
            .map(|(n, _)| n.to_string())
            .collect();
        let mut open = true;
        let mut insert = false;
        let mut replace = false;
        let area = ctx.content_rect();
        egui::Window::new(tr(lang, T::RuleBuilderTitle))
            .id(self.id.with("rule-builder"))
            .open(&mut open)
            .default_width(560.0)
            .default_pos(egui::pos2(area.center().x - 280.0, area.top() + 80.0))
            .show(&ctx, |ui| {
                b.conditions_ui(ui, lang, &states, &commands);
                ui.separator();
                b.effects_ui(ui, lang, &states, &commands);
                ui.separator();
                ui.checkbox(&mut b.iff, tr(lang, T::IfAndOnlyIf));
                ui.checkbox(&mut b.mirror, tr(lang, T::MirrorLeftRight));
                let line = b.line();
                ui.label(RichText::new(&line).monospace());
                // Checked as part of the file: the problems this line would bring.
                let problems = if b.missing_name() {
                    vec![tr(lang, T::ChooseANameFor).to_string()]
                } else {
                    match &b.checked {
                        Some((l, v, p)) if *l == line && *v == self.view.version => p.clone(),
                        _ => {
                            let p = self.builder_problems(&line);
                            b.checked = Some((line.clone(), self.view.version, p.clone()));
                            p
                        }
                    }
                };
                if problems.is_empty() {
                    ui.label(RichText::new(tr(lang, T::ValidLine)).weak());
                } else {
                    for p in &problems {
                        ui.colored_label(egui::Color32::from_rgb(220, 90, 80), p);
                    }
                }
                ui.horizontal(|ui| {
                    insert = ui
                        .add_enabled(
                            problems.is_empty(),
                            egui::Button::new(tr(lang, T::InsertBelowTheCursor)),
                        )
                        .clicked();
                    if b.from_line.is_some() {
                        replace = ui
                            .add_enabled(
                                problems.is_empty(),
                                egui::Button::new(tr(lang, T::ReplaceTheLine)),
                            )
                            .clicked();
                    }
                    if ui.button(tr(lang, T::ReadTheCursorS)).clicked() {
                        let at = self.selection(&ctx).0.end;
                        let l = self.view.line_of(at);
                        let lr = self.view.line_range(l);
                        if let Some(mut nb) = RuleBuilder::read(self.text[lr].trim()) {
                            nb.from_line = Some(l);
                            b = nb;
                        }
                    }
                });
            });
        if insert || replace {
            let line_text = b.line();
            let at = self.selection(&ctx).0.end;
            let l = b
                .from_line
                .filter(|_| replace)
                .unwrap_or_else(|| self.view.line_of(at));
            let lr = self.view.line_range(l);
            if replace {
                let end = lr.start + line_text.len();
                self.replace(&ctx, lr, &line_text, end..end);
            } else {
                let ins = format!("\n{line_text}");
                let end = lr.end + ins.len();
                self.replace(&ctx, lr.end..lr.end, &ins, end..end);
            }
            self.view.sync(&self.text);
            self.focus_frames = 2;
            b.from_line = Some(self.view.line_of(self.selection(&ctx).0.end));
        }
        if open {
            self.builder = Some(b);
        }
    }

    /// The errors `line` would have, added to the file (its constants and macros known).
    fn builder_problems(&self, line: &str) -> Vec<String> {
        let base = format!("{}\n", self.text);
        let text = format!("{base}{line}\n");
        let c = crate::pipeline::compile(&text);
        c.diags
            .iter()
            .filter(|d| d.is_error() && d.span.start >= base.len())
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_reads_into_the_form_and_back() {
        for l in [
            "[押す],O.余裕<=3:O.余裕-=2,S.疲れ+=1",
            "S.スタミナ>=2::[突き]",
            "!O.[受け],abs(S.体力-O.体力)<=5:S.勝利",
            "[受け]:!O.[正拳突き],S.スタミナ+=max(0,1)",
        ] {
            let b = RuleBuilder::read(l).unwrap_or_else(|| panic!("{l}"));
            let again = b.line();
            let c1 = crate::pipeline::compile(&format!("!:余裕=1\n{l}\n"));
            let c2 = crate::pipeline::compile(&format!("!:余裕=1\n{again}\n"));
            assert_eq!(c1.error_count(), 0, "{l}");
            let p1 = c1.program.unwrap();
            let p2 = c2.program.unwrap();
            assert_eq!(p1.cond_text(0), p2.cond_text(0), "{l} → {again}");
            assert_eq!(p1.effect_text(0), p2.effect_text(0), "{l} → {again}");
        }
        assert!(RuleBuilder::read("!:h.x=1").is_none());
        let mut b = RuleBuilder::read("[押す]:O.余裕-1").unwrap();
        b.mirror = true;
        b.iff = false;
        assert_eq!(b.line(), "&{\n[押す]:O.余裕-=1\n}");
    }
}
