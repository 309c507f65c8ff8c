//! Differential tests: the engine against an independent interpreter of LANGUAGE.md §8
//! (`tests/reference/mod.rs`, written from the spec), on
//!
//! - the four hand-written cases of the bug report (expected values from the spec),
//! - the example files in `rules/`,
//! - generated programs: perft counts from the start, then random games compared after every
//!   turn (every state of both sides, every enabled flag while undecided, the outcome, the turn).
//!
//! Three engine paths are compared with the spec: `Engine::new` (fast paths on),
//! `Engine::new(..).reference()`, and `Engine::new` playing with a trace. The fast ones are also
//! compared with the reference path directly, so a fast-path bug shows even where both paths
//! differ from the spec.
//!
//! The generator writes general programs (all constructs: macros, constants, mirror blocks,
//! sequences, `O.[X]`, `::`, periods, victory rules, both modes, turn limits, full-width lines,
//! sometimes `rand`), a *simple* profile aimed at the engine's direct resolution path (no
//! expression conditions, constant operands, read and written states kept apart but for a
//! crossing read), and *probes* (one rule writes a state, another reads it in one of the forms a
//! condition takes). Programs are built from a seed (SplitMix64), printed on failure.
//!
//! A discrepancy is shrunk (lines, then conditions, effects and initial items removed while the
//! same kind of discrepancy remains in the same mode) and printed with its seed, its program,
//! its expanded form and the moves that show it.
//!
//! Not compared: which rule a runtime error names (the spec leaves the evaluation order open);
//! a runtime error raised by one side only counts as agreement when the interpreter, evaluating
//! conditions in the engine's order (command atoms first, then left to right), raises it too —
//! such cases are counted and printed, not failed.
//!
//! `rand`: both sides get the same draw function, a hash of (side, rule, slot) into [lo, hi]
//! (the turn is left out: which turn number a draw in the next turn's availability carries is
//! the engine's business, not the spec's).
//!
//! Run: `cargo test --release --test differential` (500,000 compared turns, a few seconds), and
//! `cargo test --release --test suite differential:: -- --ignored --nocapture` for the long run
//! (10 M turns on all cores).

use crate::common;
use crate::reference;
use kumite::side::Side;

use kumite::engine::{Engine, Outcome, RuntimeError, State, TurnTrace};
use kumite::pipeline::{compile, expanded_kmt};
use kumite::program::{CmdId, RuleProgram};
use reference::{ConditionOrder, Game, Interp, RunError};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

// ---------------------------------------------------------------------------------------------
// A small deterministic generator (SplitMix64)

#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pct(&mut self, p: usize) -> bool {
        self.below(100) < p
    }
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The shared `rand` replacement: a hash of (side, rule, slot) into [lo, hi].
fn chance(side: usize, rule: usize, slot: u16, lo: i64, hi: i64) -> i64 {
    let h = mix(mix(side as u64 + 1) ^ mix((rule as u64) << 16 | u64::from(slot)));
    let size = (i128::from(hi) - i128::from(lo) + 1).max(1) as u128;
    (i128::from(lo) + (u128::from(h) % size) as i128) as i64
}

// ---------------------------------------------------------------------------------------------
// Program generator

const STATES: [&str; 6] = ["x", "y", "体力", "力", "b", "z_2"];
const COMMANDS: [&str; 5] = ["a", "押す", "引く", "d", "c1"];
const LR_STATES: [&str; 2] = ["左手", "右手"];
const LR_COMMANDS: [&str; 2] = ["左突き", "右突き"];
const CMP_OPS: [&str; 7] = ["==", "=", "!=", "<", "<=", ">", ">="];
const VICTORY: [&str; 7] = [
    "S.勝利", "O.敗北", "S.敗北", "O.勝利", "S.win", "O.lose", "h.勝利",
];

/// What one generated program may use.
struct Gen<'r> {
    rng: &'r mut Rng,
    states: Vec<&'static str>,
    /// Commands that can be named in rules: real ones and the macro `攻撃`.
    cmds: Vec<&'static str>,
    macro_cmd: bool,
    consts: Vec<&'static str>,
    rand: bool,
    /// The simple profile, if chosen.
    simple: Option<Simple>,
}

/// The simple profile, aimed at the engine's direct resolution path: conditions that need no
/// expression, constant operands, and the states that conditions read kept apart from those
/// that effects write — except for at most `crossings` reads of a written state, the kind of
/// dependency a fast path must not miss.
struct Simple {
    reads: Vec<&'static str>,
    writes: Vec<&'static str>,
    crossings: usize,
    /// Effects only on the acting side's own states and commands.
    own_only: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Command atoms of the acting side (and maybe the opponent's).
    Cmd,
    /// Only `O.[X]` atoms.
    OppOnly,
    /// No atoms, enable/disable effects.
    Avail,
    /// No atoms, state effects.
    StateRule,
    /// A victory rule.
    Victory,
}

impl Gen<'_> {
    fn side(&mut self) -> &'static str {
        let &s = self.rng.pick(&["S", "S", "S", "O", "O", "h", "c"]);
        s
    }
    fn state(&mut self) -> &'static str {
        let &s = self.rng.pick(&self.states);
        s
    }
    fn cmd(&mut self) -> &'static str {
        if self.macro_cmd && self.rng.pct(12) {
            "攻撃"
        } else {
            let &c = self.rng.pick(&self.cmds);
            c
        }
    }
    fn small(&mut self) -> String {
        if !self.consts.is_empty() && self.rng.pct(20) {
            self.rng.pick(&self.consts).to_string()
        } else {
            self.rng.int(0, 5).to_string()
        }
    }
    fn state_ref(&mut self) -> String {
        format!("{}.{}", self.side(), self.state())
    }
    /// A state a condition reads.
    fn read_ref(&mut self) -> String {
        let side = self.side();
        let Some(sp) = self.simple.as_mut() else {
            return self.state_ref();
        };
        let name = if sp.crossings > 0 && self.rng.pct(30) {
            sp.crossings -= 1;
            *self.rng.pick(&sp.writes)
        } else {
            *self.rng.pick(&sp.reads)
        };
        format!("{side}.{name}")
    }
    /// A state an effect writes.
    fn write_ref(&mut self) -> String {
        let side = self.side();
        match &self.simple {
            None => self.state_ref(),
            Some(sp) => format!(
                "{}.{}",
                if sp.own_only { "S" } else { side },
                *self.rng.pick(&sp.writes)
            ),
        }
    }
    fn own_only(&self) -> bool {
        self.simple.as_ref().is_some_and(|s| s.own_only)
    }
    /// An effect's operand: any expression, or a constant in the simple profile.
    fn operand(&mut self) -> String {
        if self.simple.is_some() {
            self.small()
        } else {
            self.expr(2)
        }
    }
    fn victory_effect(&mut self) -> String {
        if self.own_only() {
            self.rng.pick(&["S.勝利", "S.敗北", "S.win"]).to_string()
        } else {
            self.rng.pick(&VICTORY).to_string()
        }
    }
    /// An expression of at most `depth` operator levels (no division by a state).
    fn expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.pct(40) {
            return match self.rng.below(10) {
                0..=2 => self.small(),
                _ => self.state_ref(),
            };
        }
        let d = depth - 1;
        match self.rng.below(13) {
            0 | 1 => format!("{}+{}", self.expr(d), self.expr(d)),
            2 | 3 => format!("{}-{}", self.expr(d), self.expr(d)),
            4 => format!("{}*{}", self.expr(d), self.rng.int(-2, 3)),
            5 => format!("({})", self.expr(d)),
            6 => format!("-{}", self.expr(d)),
            7 => format!("({})/{}", self.expr(d), *self.rng.pick(&[2, 3, -2])),
            8 => format!("({})%{}", self.expr(d), *self.rng.pick(&[2, 3, -3])),
            9 => format!("min({},{})", self.expr(d), self.expr(d)),
            10 => format!("max({},{})", self.expr(d), self.expr(d)),
            11 => format!("abs({})", self.expr(d)),
            _ if self.rand => {
                let lo = self.rng.int(-1, 3);
                format!("rand({lo},{})", lo + self.rng.int(0, 4))
            }
            _ => format!("{}*{}", self.small(), self.expr(d)),
        }
    }
    /// A condition on states (no command atoms).
    fn state_cond(&mut self) -> String {
        let op = *self.rng.pick(&CMP_OPS);
        let n = if self.simple.is_some() { 17 } else { 22 };
        match self.rng.below(n) {
            0..=4 => format!(
                "{}{}",
                if self.rng.pct(40) { "!" } else { "" },
                self.read_ref()
            ),
            // The constant first.
            9..=12 => format!("{}{op}{}", self.rng.int(-1, 6), self.read_ref()),
            13..=14 if !self.consts.is_empty() => {
                let k = *self.rng.pick(&self.consts);
                if self.rng.pct(50) {
                    format!("{k}{op}{}", self.read_ref())
                } else {
                    format!("{}{op}{k}", self.read_ref())
                }
            }
            5..=14 => format!("{}{op}{}", self.read_ref(), self.rng.int(-1, 6)),
            // Two states compared (`S.体力>O.体力`).
            15..=16 => format!("{}{op}{}", self.read_ref(), self.read_ref()),
            _ => format!("{}{op}{}", self.expr(2), self.expr(2)),
        }
    }
    /// An effect with an inverse (allowed under `::`).
    fn invertible_effect(&mut self) -> String {
        let neg = if self.rng.pct(40) { "!" } else { "" };
        match self.rng.below(4) {
            0 => format!("{neg}{}", self.write_ref()),
            1 if !self.own_only() => format!("{neg}O.[{}]", self.cmd()),
            _ => format!("{neg}[{}]", self.cmd()),
        }
    }
    fn enable_effect(&mut self) -> String {
        let neg = if self.rng.pct(35) { "!" } else { "" };
        let opp = if !self.own_only() && self.rng.pct(30) {
            "O."
        } else {
            ""
        };
        format!("{neg}{opp}[{}]", self.cmd())
    }
    fn update_effect(&mut self) -> String {
        let target = self.write_ref();
        let simple = self.simple.is_some();
        match self.rng.below(12) {
            0..=4 => {
                let op = *self.rng.pick(&["+", "+", "-", "-", "*", "/"]);
                let t = match op {
                    "*" => self.rng.pick(&["2", "-1", "0"]).to_string(),
                    "/" => self.rng.pick(&["2", "-2", "3"]).to_string(),
                    _ => match self.rng.below(4) {
                        _ if simple => self.small(),
                        0 => self.state_ref(),
                        1 => format!("{}*2", self.state_ref()),
                        _ => self.small(),
                    },
                };
                format!("{target}{op}{t}")
            }
            5..=9 => {
                let op = *self.rng.pick(&["=", "+=", "-=", "=", "+="]);
                format!("{target}{op}{}", self.operand())
            }
            10 => format!("{target}*={}", self.rng.pick(&["2", "-1"])),
            _ => format!("{target}/={}", self.rng.pick(&["2", "-3"])),
        }
    }
    fn general_effect(&mut self) -> String {
        match self.rng.below(20) {
            0..=8 => self.update_effect(),
            9..=11 => self.invertible_effect(),
            12..=18 => self.enable_effect(),
            _ => self.victory_effect(),
        }
    }
    /// Own command atoms (a sequence), interleaved with the opponent's and with state
    /// conditions, each sequence kept in order.
    fn cmd_conds(&mut self, own: usize, opp: usize, states: usize) -> Vec<String> {
        let mut own_atoms: Vec<String> = (0..own)
            .map(|_| {
                format!(
                    "{}[{}]",
                    if self.rng.pct(15) { "!" } else { "" },
                    self.cmd()
                )
            })
            .collect();
        let mut opp_atoms: Vec<String> = (0..opp)
            .map(|_| {
                format!(
                    "{}O.[{}]",
                    if self.rng.pct(30) { "!" } else { "" },
                    self.cmd()
                )
            })
            .collect();
        let mut out = Vec::new();
        own_atoms.reverse();
        opp_atoms.reverse();
        while !own_atoms.is_empty() || !opp_atoms.is_empty() {
            let from_own = opp_atoms.is_empty() || (!own_atoms.is_empty() && self.rng.pct(60));
            let a = if from_own {
                own_atoms.pop()
            } else {
                opp_atoms.pop()
            };
            out.extend(a);
        }
        for _ in 0..states {
            let c = self.state_cond();
            let at = self.rng.below(out.len() + 1);
            out.insert(at, c);
        }
        out
    }
    fn rule(&mut self) -> String {
        let period = if self.rng.pct(15) {
            format!("@{}/", self.rng.pick(&[2, 3]))
        } else {
            String::new()
        };
        let kind = match self.rng.below(20) {
            0..=6 => Kind::Cmd,
            7 => Kind::OppOnly,
            8..=12 => Kind::Avail,
            13..=15 => Kind::StateRule,
            _ => Kind::Victory,
        };
        let n_states = *self.rng.pick(&[0, 0, 1, 1, 2]);
        let (conds, iff, effects): (Vec<String>, bool, Vec<String>) = match kind {
            Kind::Cmd | Kind::OppOnly => {
                let own = if kind == Kind::OppOnly {
                    0
                } else {
                    *self.rng.pick(&[1, 1, 1, 1, 1, 1, 2, 2, 2, 3])
                };
                let opp = if kind == Kind::OppOnly {
                    *self.rng.pick(&[1, 1, 2])
                } else {
                    *self.rng.pick(&[0, 0, 0, 1, 1, 2])
                };
                let conds = self.cmd_conds(own, opp, n_states);
                let iff = self.rng.pct(10);
                let n = self.rng.int(1, 3);
                let effects = (0..n)
                    .map(|_| {
                        if iff {
                            self.invertible_effect()
                        } else {
                            self.general_effect()
                        }
                    })
                    .collect();
                (conds, iff, effects)
            }
            Kind::Avail => {
                let conds = (0..n_states).map(|_| self.state_cond()).collect();
                let iff = self.rng.pct(60);
                let mut effects: Vec<String> = (0..self.rng.int(1, 2))
                    .map(|_| self.enable_effect())
                    .collect();
                if self.rng.pct(15) {
                    effects.push(if iff {
                        self.invertible_effect()
                    } else {
                        self.general_effect()
                    });
                }
                (conds, iff, effects)
            }
            Kind::StateRule => {
                let conds = (0..n_states).map(|_| self.state_cond()).collect();
                let iff = self.rng.pct(20);
                let effects = (0..self.rng.int(1, 2))
                    .map(|_| {
                        if iff {
                            format!(
                                "{}{}",
                                if self.rng.pct(40) { "!" } else { "" },
                                self.write_ref()
                            )
                        } else {
                            self.update_effect()
                        }
                    })
                    .collect();
                (conds, iff, effects)
            }
            Kind::Victory => {
                let conds = (0..self.rng.int(1, 2)).map(|_| self.state_cond()).collect();
                let iff = self.rng.pct(15);
                let mut effects = vec![self.victory_effect()];
                if self.rng.pct(10) {
                    effects.push(self.victory_effect());
                }
                (conds, iff, effects)
            }
        };
        format!(
            "{period}{}{}{}",
            conds.join(","),
            if iff { "::" } else { ":" },
            effects.join(",")
        )
    }
}

/// A random program (source text) for `seed`: mostly general programs, some probes.
pub(crate) fn gen_program(seed: u64) -> String {
    let mut rng = Rng(seed);
    if rng.pct(12) {
        gen_probe(&mut rng)
    } else {
        gen_general(&mut rng)
    }
}

/// A probe of a fast path's dependency analysis: one rule writes `x`, another reads it in one of
/// the forms a condition can take (constant first or last, a named constant, a truth test, any
/// side prefix), and writes something else; the rules fire in the same resolution.
fn gen_probe(rng: &mut Rng) -> String {
    let side = |rng: &mut Rng| *rng.pick(&["S", "O", "h", "c"]);
    let mut lines = Vec::new();
    if rng.pct(35) {
        lines.push("~同時".to_string());
    }
    lines.push("${\n費用:2\n}".to_string());
    lines.push(format!("!:[a],x={}", rng.int(0, 4)));
    let guard = if rng.pct(50) { "[a]" } else { "" };
    let ws = side(rng);
    let writer = match rng.below(3) {
        0 => format!("{guard}:{ws}.x+{}", rng.int(1, 3)),
        1 => format!("{guard}:{ws}.x-={}", rng.int(1, 3)),
        _ => format!("{guard}:{ws}.x={}", rng.int(0, 6)),
    };
    let rs = side(rng);
    let op = *rng.pick(&CMP_OPS);
    let k = rng.int(0, 6);
    let read = match rng.below(6) {
        0 => format!("{k}{op}{rs}.x"),
        1 => format!("{rs}.x{op}{k}"),
        2 => format!("費用{op}{rs}.x"),
        3 => format!("{rs}.x{op}費用"),
        4 => format!("{rs}.x"),
        _ => format!("!{rs}.x"),
    };
    let atom = if rng.pct(50) { "[a]," } else { "" };
    let reader = match rng.below(5) {
        0 => format!("{atom}{read}::[b]"),
        1 => format!("{atom}{read}:S.勝利"),
        2 => format!("{atom}{read}:{}.y+1", side(rng)),
        _ => format!("{atom}{read}:S.y={}", rng.int(1, 3)),
    };
    if rng.pct(70) {
        lines.push(writer);
        lines.push(reader);
    } else {
        lines.push(reader);
        lines.push(writer);
    }
    if rng.pct(30) {
        lines.push(":[b]".to_string());
    }
    lines.join("\n") + "\n"
}

/// A general random program.
fn gen_general(rng: &mut Rng) -> String {
    let mut states: Vec<&'static str> = STATES.to_vec();
    let mut cmds: Vec<&'static str> = COMMANDS.to_vec();
    shuffle(rng, &mut states);
    shuffle(rng, &mut cmds);
    states.truncate(rng.int(2, 4) as usize);
    cmds.truncate(rng.int(2, 4) as usize);
    let mirror = rng.pct(30);
    if mirror {
        states.extend(LR_STATES);
        cmds.extend(LR_COMMANDS);
    }
    let sim = rng.pct(35);
    let consts: Vec<&'static str> = if rng.pct(40) {
        ["費用", "K"][..rng.int(1, 2) as usize].to_vec()
    } else {
        vec![]
    };
    let macro_cmd = rng.pct(25);
    let rand = rng.pct(12);
    let mut lines: Vec<String> = Vec::new();

    let mut settings = Vec::new();
    if sim {
        settings.push(
            if rng.pct(80) {
                "同時"
            } else {
                "simultaneous"
            }
            .to_string(),
        );
    }
    if rng.pct(30) {
        settings.push(format!("T{}", rng.int(2, 40)));
    }
    if rng.pct(25) {
        settings.push(if rng.pct(80) { "先手c" } else { "first=c" }.to_string());
    }
    if !settings.is_empty() {
        lines.push(format!("~{}", settings.join(",")));
    }
    if !consts.is_empty() || macro_cmd {
        lines.push("${".into());
        for k in &consts {
            lines.push(format!("{k}:{}", rng.int(-1, 4)));
        }
        if macro_cmd {
            lines.push(format!("[攻撃]:[{}];[{}]", cmds[0], cmds[1]));
        }
        lines.push("}".into());
    }

    // The initial line: each (side, name) set at most once.
    let mut init = Vec::new();
    for s in &states {
        match rng.below(6) {
            0 | 1 => init.push(format!("{s}={}", rng.int(-2, 6))),
            2 => init.push(format!("h.{s}={}", rng.int(-2, 6))),
            3 => init.push(format!("h.{s}={},c.{s}={}", rng.int(-2, 6), rng.int(-2, 6))),
            _ => {}
        }
    }
    let mut any_on = false;
    for c in &cmds {
        match rng.below(6) {
            0 | 1 => {
                init.push(format!("[{c}]"));
                any_on = true;
            }
            2 => {
                init.push(format!("h.[{c}],!c.[{c}]"));
                any_on = true;
            }
            3 => init.push(format!("![{c}]")),
            _ => {}
        }
    }
    if !any_on && rng.pct(70) {
        // Enable one command: replace its `![X]` item, or add one for an unset command.
        let c = cmds[0];
        let off = format!("![{c}]");
        match init.iter().position(|i| *i == off) {
            Some(k) => init[k] = format!("[{c}]"),
            None => init.push(format!("[{c}]")),
        }
    }
    shuffle(rng, &mut init);
    if !init.is_empty() {
        lines.push(format!("!:{}", init.join(",")));
    }

    let simple = rng.pct(35).then(|| {
        let mut pool = states.clone();
        shuffle(rng, &mut pool);
        let cut = rng.int(1, pool.len() as i64 - 1) as usize;
        Simple {
            writes: pool[..cut].to_vec(),
            reads: pool[cut..].to_vec(),
            crossings: rng.int(0, 2) as usize,
            own_only: sim && rng.pct(60),
        }
    });
    let mut g = Gen {
        rng,
        states,
        cmds,
        macro_cmd,
        consts,
        rand: rand && simple.is_none(),
        simple,
    };
    for _ in 0..g.rng.int(3, 10) {
        let mut r = g.rule();
        if g.rng.pct(4) {
            r = common::to_fullwidth(&r);
        }
        lines.push(r);
    }
    if mirror {
        lines.push(if g.rng.pct(80) { "&{" } else { "&左/右{" }.into());
        for _ in 0..g.rng.int(1, 3) {
            // A mirrored line must name a left/right thing, or it gets no copy (a warning).
            let mut r = g.rule();
            for _ in 0..5 {
                if r.contains('左') || r.contains('右') {
                    break;
                }
                r = g.rule();
            }
            lines.push(r);
        }
        lines.push("}".into());
    }
    // A key for a command that some line mentions.
    if g.rng.pct(10) {
        let c = *g.rng.pick(&g.cmds);
        // Macro definitions are not mentions.
        if lines
            .iter()
            .any(|l| !l.starts_with("[攻撃]:") && l.contains(&format!("[{c}]")))
        {
            lines.push(format!("':k=[{c}]"));
        }
    }
    lines.join("\n") + "\n"
}

fn shuffle<T>(rng: &mut Rng, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i + 1);
        v.swap(i, j);
    }
}

// ---------------------------------------------------------------------------------------------
// One program, compiled for the engine and parsed by the reference interpreter

struct Subject {
    source: String,
    expanded: String,
    prog: RuleProgram,
    refp: reference::Program,
    /// Engine state id → reference state index.
    state_map: Vec<Option<usize>>,
    /// Engine command id → reference command index.
    cmd_to_ref: Vec<Option<usize>>,
    /// Reference command index → engine command id.
    cmd_to_eng: Vec<Option<CmdId>>,
}

fn subject(source: &str) -> Result<Subject, String> {
    let c = compile(source);
    let Some(prog) = c.program.clone() else {
        let errs: Vec<String> = c
            .diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("{} {}", d.code, d.message))
            .collect();
        return Err(format!("does not compile: {}", errs.join("; ")));
    };
    let expanded = expanded_kmt(&c, "x");
    let refp = reference::parse(&expanded).map_err(|e| format!("reference parser: {e}"))?;
    // States 0 and 1 are the reserved 勝利 and 敗北, shown as the file spells them (`win`).
    let state_map = prog
        .states
        .iter()
        .enumerate()
        .map(|(i, n)| {
            refp.state(match i {
                0 => "勝利",
                1 => "敗北",
                _ => n,
            })
        })
        .collect();
    let cmd_to_ref = prog.commands.iter().map(|n| refp.command(n)).collect();
    let cmd_to_eng = refp.commands.iter().map(|n| prog.command_id(n)).collect();
    Ok(Subject {
        source: source.to_string(),
        expanded,
        prog,
        refp,
        state_map,
        cmd_to_ref,
        cmd_to_eng,
    })
}

/// The engine's paths under test: the default (fast paths on), the plain reference path, and
/// the default engine playing with a trace (which takes the collecting path).
const VARIANTS: [&str; 3] = [
    "Engine::new",
    "Engine::new(..).reference()",
    "Engine::new + play(.., Some(trace))",
];
const NV: usize = VARIANTS.len();

/// Plays one turn on variant `v` (with a trace for the traced variant).
fn engine_play(
    e: &Engine,
    v: usize,
    st: &mut State,
    cmds: [Option<CmdId>; 2],
) -> Result<(), RuntimeError> {
    if v == 2 {
        let mut t = TurnTrace::default();
        e.play(st, cmds, Some(&mut t))
    } else {
        e.play(st, cmds, None)
    }
}

fn engine(prog: &RuleProgram, variant: usize) -> Engine<'_> {
    let mut e = Engine::new(prog, 0);
    if variant == 1 {
        e = e.reference();
    }
    e.chance = Some(Box::new(|_turn, side, rule, slot, lo, hi| {
        chance(side.index(), rule as usize, slot, lo, hi)
    }));
    e
}

fn interp(s: &Subject) -> Interp<'_> {
    let mut i = Interp::new(&s.refp);
    i.draw = Some(Box::new(|_turn, side, rule, slot, lo, hi| {
        chance(side, rule, slot, lo, hi)
    }));
    i
}

fn first_side(s: &Subject) -> usize {
    usize::from(s.refp.cpu_first)
}

// ---------------------------------------------------------------------------------------------
// Comparing

/// What differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum What {
    /// A fast path differs from `Engine::new(..).reference()` (whatever the spec says).
    FastPath,
    Perft,
    Outcome,
    Turn,
    Value,
    Flag,
    Error,
}

#[derive(Clone, Debug)]
struct Discrepancy {
    variant: usize,
    what: What,
    detail: String,
    moves: Vec<String>,
}

fn side_name(s: usize) -> &'static str {
    ["h", "c"][s]
}

fn ref_outcome(o: Option<reference::Outcome>) -> Option<Outcome> {
    o.map(|o| match o {
        reference::Outcome::H => Outcome::H,
        reference::Outcome::C => Outcome::C,
        reference::Outcome::Draw => Outcome::Draw,
    })
}

/// The first difference between the engine's position and the interpreter's.
fn diff(s: &Subject, e: &Engine, st: &State, g: &Game) -> Option<(What, String)> {
    if st.turn != g.turn {
        return Some((
            What::Turn,
            format!("turn: engine {}, spec {}", st.turn, g.turn),
        ));
    }
    if st.outcome != ref_outcome(g.outcome) {
        return Some((
            What::Outcome,
            format!(
                "outcome: engine {:?}, spec {:?}",
                st.outcome,
                ref_outcome(g.outcome)
            ),
        ));
    }
    for side in 0..2 {
        for (i, name) in s.prog.states.iter().enumerate() {
            let mine = s.state_map[i].map_or(0, |j| g.vals[side][j]);
            let theirs = e.val(st, Side::from_index(side), i as u32);
            if mine != theirs {
                return Some((
                    What::Value,
                    format!("{}.{name}: engine {theirs}, spec {mine}", side_name(side)),
                ));
            }
        }
    }
    // Once decided, the flags no longer matter (no availability runs after the last turn).
    if g.outcome.is_none() {
        for side in 0..2 {
            for (i, name) in s.prog.commands.iter().enumerate() {
                let mine = s.cmd_to_ref[i].is_some_and(|j| g.enabled[side][j]);
                let theirs = e.is_enabled(st, Side::from_index(side), i as CmdId);
                if mine != theirs {
                    return Some((
                        What::Flag,
                        format!(
                            "{}.[{name}] enabled: engine {theirs}, spec {mine}",
                            side_name(side)
                        ),
                    ));
                }
            }
        }
    }
    None
}

fn err_text(e: &Result<(), RuntimeError>, r: &Result<(), RunError>) -> String {
    format!(
        "engine {}, spec {}",
        match e {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("error ({e})"),
        },
        match r {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("error at rule {} ({})", e.rule, e.message),
        }
    )
}

/// Perft of the engine variant `v`, per depth (same counting as the interpreter's).
fn engine_perft(e: &Engine, v: usize, st: &State, depth: usize) -> Result<Vec<u64>, RuntimeError> {
    fn rec(
        e: &Engine,
        v: usize,
        st: &State,
        d: usize,
        counts: &mut [u64],
    ) -> Result<(), RuntimeError> {
        if d == counts.len() || st.outcome.is_some() {
            return Ok(());
        }
        let mut lists: [Vec<Option<CmdId>>; 2] = [vec![None], vec![None]];
        let mut buf = Vec::new();
        for &s in e.movers(st) {
            e.enabled_commands(st, s, &mut buf);
            if !buf.is_empty() {
                lists[s] = buf.iter().map(|&c| Some(c)).collect();
            }
        }
        for &a in &lists[0] {
            for &b in &lists[1] {
                let mut next = st.clone();
                engine_play(e, v, &mut next, [a, b])?;
                counts[d] += 1;
                rec(e, v, &next, d + 1, counts)?;
            }
        }
        Ok(())
    }
    let mut counts = vec![0; depth];
    rec(e, v, st, 0, &mut counts)?;
    Ok(counts)
}

/// How hard to check one program.
#[derive(Clone, Copy)]
struct Effort {
    /// Perft leaves allowed (the depth is the largest that keeps the estimate below).
    perft_leaves: u64,
    games: usize,
    max_turns: usize,
}

const NORMAL: Effort = Effort {
    perft_leaves: 3000,
    games: 4,
    max_turns: 60,
};

#[derive(Default)]
struct Tally {
    /// Generated programs checked.
    programs: u64,
    /// Generated programs that did not compile (skipped).
    invalid: u64,
    turns: u64,
    perft_nodes: u64,
    /// How the interpreter's games ended: h, c, draw, still open at the turn cap, error.
    endings: [u64; 5],
    /// Programs on which `Engine::new` takes its direct resolution path.
    direct: u64,
    /// Runtime errors raised by one side only, which the engine's condition order explains.
    error_order: u64,
    /// Turns where an engine variant and the interpreter both stopped with a runtime error:
    /// [naming different rules, naming the same rule].
    errors_same_rule: [u64; 2],
    found: Vec<Discrepancy>,
}

fn perft_depth(s: &Subject, leaves: u64) -> usize {
    let b = (s.refp.commands.len().max(1) as u64).pow(if s.refp.simultaneous { 2 } else { 1 });
    let mut d = 1;
    while d < 6 && b.saturating_pow(d as u32 + 1) <= leaves {
        d += 1;
    }
    d
}

/// The first difference between two engine positions (a fast path against the reference path).
fn engine_diff(s: &Subject, e: &Engine, a: &State, b: &State) -> Option<String> {
    if (a.turn, a.outcome) != (b.turn, b.outcome) {
        return Some(format!(
            "turn/outcome: {:?} vs {:?}",
            (a.turn, a.outcome),
            (b.turn, b.outcome)
        ));
    }
    for side in 0..2 {
        for (i, name) in s.prog.states.iter().enumerate() {
            let (x, y) = (
                e.val(a, Side::from_index(side), i as u32),
                e.val(b, Side::from_index(side), i as u32),
            );
            if x != y {
                return Some(format!("{}.{name}: {x} vs {y}", side_name(side)));
            }
        }
        if a.outcome.is_none() {
            for (i, name) in s.prog.commands.iter().enumerate() {
                let (x, y) = (
                    e.is_enabled(a, Side::from_index(side), i as CmdId),
                    e.is_enabled(b, Side::from_index(side), i as CmdId),
                );
                if x != y {
                    return Some(format!("{}.[{name}] enabled: {x} vs {y}", side_name(side)));
                }
            }
        }
    }
    None
}

/// What one program's check compares and still reports: per engine variant against the spec,
/// and per fast variant (0 and 2) against the reference path (1).
struct Watch {
    spec: [bool; NV],
    fast: [bool; NV],
}

impl Watch {
    fn any(&self) -> bool {
        self.spec.iter().chain(&self.fast).any(|a| *a)
    }
}

fn report(
    tally: &mut Tally,
    watch: &mut Watch,
    v: usize,
    what: What,
    detail: String,
    moves: &[String],
) {
    let flag = if what == What::FastPath {
        &mut watch.fast[v]
    } else {
        &mut watch.spec[v]
    };
    if *flag {
        *flag = false;
        tally.found.push(Discrepancy {
            variant: v,
            what,
            detail,
            moves: moves.to_vec(),
        });
    }
}

/// Compares perft counts from the start: every engine variant against the spec, and the fast
/// variants against the reference path.
fn check_perft(
    s: &Subject,
    it: &Interp,
    engines: &[Engine],
    effort: Effort,
    tally: &mut Tally,
    watch: &mut Watch,
) {
    let first = first_side(s);
    let depth = perft_depth(s, effort.perft_leaves);
    let mine = it.initial(first).and_then(|g| it.perft(&g, depth));
    if let Ok(c) = &mine {
        tally.perft_nodes += c.iter().sum::<u64>();
    }
    let theirs: Vec<Option<Vec<u64>>> = (0..NV)
        .map(|v| {
            engines[v]
                .initial(Side::from_index(first))
                .and_then(|st| engine_perft(&engines[v], v, &st, depth))
                .ok()
        })
        .collect();
    for v in 0..NV {
        let bad = match (&theirs[v], &mine) {
            (Some(a), Ok(b)) => (a != b).then(|| {
                (
                    What::Perft,
                    format!("perft depths 1..={depth}: engine {a:?}, spec {b:?}"),
                )
            }),
            (None, Err(_)) => None,
            (a, _) if order_explains_perft(s, depth, a.as_ref()) => {
                tally.error_order += 1;
                None
            }
            (a, b) => Some((
                What::Error,
                format!(
                    "perft to depth {depth}: engine {}, spec {}",
                    if a.is_some() { "ok" } else { "error" },
                    if b.is_ok() { "ok" } else { "error" },
                ),
            )),
        };
        if let Some((what, detail)) = bad {
            report(tally, watch, v, what, detail, &[]);
        }
        if v != 1 && theirs[v] != theirs[1] {
            let detail = format!(
                "perft depths 1..={depth}: {:?}, reference path {:?}",
                theirs[v], theirs[1]
            );
            report(tally, watch, v, What::FastPath, detail, &[]);
        }
    }
}

/// The interpreter with the engine's condition order (command atoms first, then left to right).
fn interp_atoms_first(s: &Subject) -> Interp<'_> {
    let mut i = interp(s);
    i.reading.condition_order = ConditionOrder::AtomsFirst;
    i
}

/// Whether the engine's condition order explains an error that only one side raised in the turn
/// played from `prev` (the spec leaves the order open; see reading 6 of the interpreter).
fn order_explains_turn(
    s: &Subject,
    prev: &Game,
    cmds: [Option<usize>; 2],
    engine_err: bool,
) -> bool {
    let mut g = prev.clone();
    interp_atoms_first(s).play(&mut g, cmds).is_err() == engine_err
}

/// The same for a perft that only one side completed.
fn order_explains_perft(s: &Subject, depth: usize, engine: Option<&Vec<u64>>) -> bool {
    let it = interp_atoms_first(s);
    let alt = it
        .initial(first_side(s))
        .and_then(|g| it.perft(&g, depth))
        .ok();
    alt.as_ref() == engine
}

/// The commands for the side(s) to move: mostly an enabled command, sometimes a pass or any
/// command (one that is not enabled is played as a pass).
fn choose(s: &Subject, it: &Interp, g: &Game, rng: &mut Rng) -> [Option<usize>; 2] {
    let mut cmds = [None, None];
    for m in it.movers(g) {
        let en = it.enabled_commands(g, m);
        cmds[m] = match rng.below(100) {
            0..=84 if !en.is_empty() => Some(*rng.pick(&en)),
            85..=92 => None,
            _ if !s.refp.commands.is_empty() => Some(rng.below(s.refp.commands.len())),
            _ => None,
        };
    }
    cmds
}

/// A turn's moves as text, for the report.
fn moves_text(s: &Subject, it: &Interp, g: &Game, cmds: [Option<usize>; 2]) -> String {
    let text: Vec<String> = it
        .movers(g)
        .iter()
        .map(|&m| {
            let c = cmds[m].map_or("pass".to_string(), |c| {
                format!(
                    "[{}]{}",
                    s.refp.commands[c],
                    if g.enabled[m][c] {
                        ""
                    } else {
                        " (not enabled)"
                    }
                )
            });
            format!("{} {c}", side_name(m))
        })
        .collect();
    format!("turn {}: {}", g.turn + 1, text.join(", "))
}

/// Plays one random game on the interpreter and every engine variant, comparing after every
/// turn.
fn check_game(
    s: &Subject,
    it: &Interp,
    engines: &[Engine],
    effort: Effort,
    rng: &mut Rng,
    tally: &mut Tally,
    watch: &mut Watch,
) {
    let first = first_side(s);
    let Ok(mut g) = it.initial(first) else {
        return;
    };
    let mut sts: Vec<Option<State>> = (0..NV)
        .map(|v| engines[v].initial(Side::from_index(first)).ok())
        .collect();
    let mut moves: Vec<String> = Vec::new();
    let mut errored = false;
    for v in 0..NV {
        let found = match &sts[v] {
            None => Some((What::Error, "initial: engine error, spec ok".to_string())),
            Some(st) => diff(s, &engines[v], st, &g),
        };
        if let Some((what, detail)) = found {
            report(
                tally,
                watch,
                v,
                what,
                format!("at the start: {detail}"),
                &moves,
            );
        }
    }
    for _ in 0..effort.max_turns {
        if g.outcome.is_some() || !watch.any() {
            break;
        }
        let cmds = choose(s, it, &g, rng);
        moves.push(moves_text(s, it, &g, cmds));
        let prev = g.clone();
        let r = it.play(&mut g, cmds);
        let ecmds = cmds.map(|c| c.and_then(|c| s.cmd_to_eng[c]));
        tally.turns += 1;
        let mut results: Vec<Option<Result<(), RuntimeError>>> = vec![None; NV];
        for v in 0..NV {
            let Some(st) = sts[v].as_mut() else { continue };
            let er = engine_play(&engines[v], v, st, ecmds);
            let found = match (&er, &r) {
                (Ok(()), Ok(())) => diff(s, &engines[v], st, &g),
                (Err(e), Err(m)) => {
                    // Which rule raises is left to evaluation order (not compared).
                    tally.errors_same_rule[usize::from(e.rule == m.rule)] += 1;
                    None
                }
                _ if order_explains_turn(s, &prev, cmds, er.is_err()) => {
                    tally.error_order += 1;
                    None
                }
                _ => Some((What::Error, err_text(&er, &r))),
            };
            if let Some((what, detail)) = found {
                report(
                    tally,
                    watch,
                    v,
                    what,
                    format!("after turn {}: {detail}", g.turn),
                    &moves,
                );
            }
            results[v] = Some(er);
        }
        for v in [0, 2] {
            let cross = match (&results[v], &results[1], &sts[v], &sts[1]) {
                (Some(Ok(())), Some(Ok(())), Some(a), Some(b)) => engine_diff(s, &engines[1], a, b),
                (Some(Err(_)), Some(Err(_)), ..) | (None, None, ..) => None,
                (a, b, ..) => Some(format!(
                    "error: {}, reference path {}",
                    a.as_ref()
                        .map_or("stopped", |r| if r.is_ok() { "ok" } else { "error" }),
                    b.as_ref()
                        .map_or("stopped", |r| if r.is_ok() { "ok" } else { "error" }),
                )),
            };
            if let Some(detail) = cross {
                report(
                    tally,
                    watch,
                    v,
                    What::FastPath,
                    format!("after turn {}: {detail}", g.turn),
                    &moves,
                );
            }
        }
        for v in 0..NV {
            if matches!(results[v], Some(Err(_))) {
                sts[v] = None;
            }
        }
        if r.is_err() {
            errored = true;
            break;
        }
    }
    tally.endings[match g.outcome {
        _ if errored => 4,
        Some(reference::Outcome::H) => 0,
        Some(reference::Outcome::C) => 1,
        Some(reference::Outcome::Draw) => 2,
        None => 3,
    }] += 1;
}

/// Compares the engine's variants with the interpreter (and the fast paths with the reference
/// path) on one program: perft, then random games. At most one discrepancy per variant and
/// comparison is reported.
fn check(s: &Subject, seed: u64, effort: Effort, tally: &mut Tally) {
    let it = interp(s);
    let engines: Vec<Engine> = (0..NV).map(|v| engine(&s.prog, v)).collect();
    tally.direct += u64::from(engines[0].is_direct());
    let mut watch = Watch {
        spec: [true; NV],
        fast: [true, false, true],
    };
    check_perft(s, &it, &engines, effort, tally, &mut watch);
    let mut rng = Rng(seed ^ 0x5EED);
    for _ in 0..effort.games {
        if !watch.any() {
            break;
        }
        check_game(s, &it, &engines, effort, &mut rng, tally, &mut watch);
    }
}

// ---------------------------------------------------------------------------------------------
// Shrinking and reporting

/// The discrepancy of the same variant and kind that `source` shows, if any (in the same mode).
fn shows(source: &str, seed: u64, d: &Discrepancy, sim: bool) -> Option<Discrepancy> {
    let (variant, what) = (d.variant, d.what);
    let s = subject(source).ok()?;
    if s.refp.simultaneous != sim {
        return None;
    }
    let mut t = Tally::default();
    check(&s, seed, NORMAL, &mut t);
    t.found
        .into_iter()
        .find(|d| d.variant == variant && d.what == what)
}

/// Splits at top-level commas (not inside parentheses).
fn split_items(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0;
    for ch in s.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(l) = out.last_mut() {
            l.push(ch);
        }
    }
    out
}

/// The candidates one step smaller than `line`: one item fewer in an initial or settings line,
/// one condition or effect fewer (or `:` for `::`, or no period) in a rule.
fn smaller_lines(line: &str) -> Vec<String> {
    for prefix in ["!:", "~"] {
        if let Some(rest) = line.strip_prefix(prefix) {
            let items = split_items(rest);
            return (0..items.len())
                .filter(|_| items.len() > 1)
                .map(|i| {
                    let mut c = items.clone();
                    c.remove(i);
                    format!("{prefix}{}", c.join(","))
                })
                .collect();
        }
    }
    if line.ends_with('{') || line == "}" || line.starts_with("':") {
        return vec![];
    }
    smaller_rules(line)
}

/// The candidates one step smaller than the rule `line`.
fn smaller_rules(line: &str) -> Vec<String> {
    let Some(colon) = line.find(':') else {
        return vec![];
    };
    let (head, rest) = line.split_at(colon);
    let (sep, effects) = if let Some(e) = rest.strip_prefix("::") {
        ("::", e)
    } else {
        (":", &rest[1..])
    };
    let (period, conds) = match head.find('/') {
        Some(i) if head.starts_with('@') => head.split_at(i + 1),
        _ => ("", head),
    };
    let conds: Vec<String> = if conds.is_empty() {
        vec![]
    } else {
        split_items(conds)
    };
    let effects = split_items(effects);
    let mut out = Vec::new();
    if !period.is_empty() {
        out.push(format!("{}{sep}{}", conds.join(","), effects.join(",")));
    }
    for i in 0..conds.len() {
        let mut c = conds.clone();
        c.remove(i);
        out.push(format!("{period}{}{sep}{}", c.join(","), effects.join(",")));
    }
    for i in 0..effects.len() {
        if effects.len() < 2 {
            break;
        }
        let mut e = effects.clone();
        e.remove(i);
        out.push(format!("{period}{}{sep}{}", conds.join(","), e.join(",")));
    }
    if sep == "::" {
        out.push(format!("{period}{}:{}", conds.join(","), effects.join(",")));
    }
    out
}

/// Removes lines, then parts of lines, while the discrepancy remains.
fn shrink(d: &Discrepancy, source: &str, seed: u64, sim: bool) -> (String, Discrepancy) {
    let mut lines: Vec<String> = source.lines().map(str::to_string).collect();
    let mut best = d.clone();
    let mut budget = 400;
    let mut progress = true;
    while progress && budget > 0 {
        progress = false;
        let mut i = 0;
        while i < lines.len() && budget > 0 {
            let mut cands: Vec<Vec<String>> = Vec::new();
            let mut without = lines.clone();
            without.remove(i);
            cands.push(without);
            if lines[i].ends_with('{') && lines.get(i + 1).is_some_and(|l| l == "}") {
                let mut c = lines.clone();
                c.drain(i..i + 2);
                cands.push(c);
            }
            for r in smaller_lines(&lines[i]) {
                let mut c = lines.clone();
                c[i] = r;
                cands.push(c);
            }
            let mut took = false;
            for c in cands {
                budget -= 1;
                let text = c.join("\n") + "\n";
                if let Some(nd) = shows(&text, seed, d, sim) {
                    lines = c;
                    best = nd;
                    took = true;
                    progress = true;
                    break;
                }
                if budget == 0 {
                    break;
                }
            }
            if !took {
                i += 1;
            }
        }
    }
    (lines.join("\n") + "\n", best)
}

fn describe(source: &str, seed: u64, d: &Discrepancy) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "--- {} vs {}: {:?} (program seed {seed:#x})",
        VARIANTS[d.variant],
        if d.what == What::FastPath {
            VARIANTS[1]
        } else {
            "spec"
        },
        d.what
    );
    let _ = writeln!(out, "{}", d.detail);
    let _ = writeln!(out, "program:\n{}", source.trim_end());
    if let Ok(s) = subject(source) {
        let _ = writeln!(out, "expanded:\n{}", s.expanded.trim_end());
    }
    if !d.moves.is_empty() {
        let _ = writeln!(out, "moves:\n  {}", d.moves.join("\n  "));
    }
    out
}

/// Up to this many example programs are kept (and shrunk) per group of discrepancies.
const EXAMPLES: usize = 3;

/// One example: program seed, source, what differed.
type Example = (u64, String, Discrepancy);

/// Discrepancies grouped by (variant, kind, mode), with a count and the first examples.
#[derive(Default)]
struct Findings {
    groups: BTreeMap<(usize, What, bool), (u64, Vec<Example>)>,
}

impl Findings {
    fn add(&mut self, seed: u64, s: &Subject, d: Discrepancy) {
        let key = (d.variant, d.what, s.refp.simultaneous);
        self.add_example(key, 1, (seed, s.source.clone(), d));
    }
    fn add_example(&mut self, key: (usize, What, bool), n: u64, ex: Example) {
        let e = self.groups.entry(key).or_default();
        e.0 += n;
        if e.1.len() < EXAMPLES {
            e.1.push(ex);
        }
    }
    fn merge(&mut self, other: Findings) {
        for (k, (n, exs)) in other.groups {
            self.groups.entry(k).or_default().0 += n;
            for ex in exs {
                self.add_example(k, 0, ex);
            }
        }
    }
    fn report(&self, shrink_examples: bool) -> String {
        let mut out = String::new();
        for ((v, what, sim), (n, examples)) in &self.groups {
            let _ = writeln!(
                out,
                "\n=== {} — {what:?} — {} mode: {n} program(s)",
                VARIANTS[*v],
                if *sim { "simultaneous" } else { "alternate" }
            );
            let mut seen = Vec::new();
            for (seed, src, d) in examples {
                let (src, d) = if shrink_examples {
                    shrink(d, src, *seed, *sim)
                } else {
                    (src.clone(), d.clone())
                };
                if !seen.contains(&src) {
                    out.push_str(&describe(&src, *seed, &d));
                    seen.push(src);
                }
            }
        }
        out
    }
}

/// Runs generated programs from `seeds` until `min_turns` turns were compared.
fn run_generated(
    seeds: impl Iterator<Item = u64>,
    min_turns: u64,
    effort: Effort,
) -> (Tally, Findings) {
    let mut total = Tally::default();
    let mut findings = Findings::default();
    for seed in seeds {
        if total.turns >= min_turns {
            break;
        }
        let src = gen_program(seed);
        let s = match subject(&src) {
            Ok(s) => s,
            Err(e) => {
                total.invalid += 1;
                if total.invalid <= 3 {
                    eprintln!("generated program {seed:#x} skipped: {e}\n{src}");
                }
                continue;
            }
        };
        total.programs += 1;
        let mut t = Tally::default();
        check(&s, seed, effort, &mut t);
        for d in std::mem::take(&mut t.found) {
            findings.add(seed, &s, d);
        }
        total.absorb(&t);
    }
    (total, findings)
}

impl Tally {
    /// Adds another tally's figures (not its discrepancies).
    fn absorb(&mut self, t: &Tally) {
        self.programs += t.programs;
        self.invalid += t.invalid;
        self.turns += t.turns;
        self.perft_nodes += t.perft_nodes;
        self.direct += t.direct;
        self.error_order += t.error_order;
        for k in 0..5 {
            self.endings[k] += t.endings[k];
        }
        for k in 0..2 {
            self.errors_same_rule[k] += t.errors_same_rule[k];
        }
    }
    /// The figures of a run as one paragraph.
    fn summary(&self, secs: f64) -> String {
        let e = self.endings;
        format!(
            "{} programs ({} generated programs did not compile), {} turns compared, {} perft \
             nodes, {secs:.1} s, {:.0} turns/s; games ended h {} / c {} / draw {} / still open \
             at the turn cap {} / runtime error {}; {} programs on the engine's direct path; \
             runtime errors on both sides naming a different / the same rule: {} / {}; runtime \
             errors on one side only, explained by the engine's condition order: {}",
            self.programs,
            self.invalid,
            self.turns,
            self.perft_nodes,
            self.turns as f64 / secs,
            e[0],
            e[1],
            e[2],
            e[3],
            e[4],
            self.direct,
            self.errors_same_rule[0],
            self.errors_same_rule[1],
            self.error_order,
        )
    }
}

// ---------------------------------------------------------------------------------------------
// The tests

#[test]
fn generated_programs_agree_with_the_spec() {
    let t0 = Instant::now();
    let (tally, findings) = run_generated(0.., 500_000, NORMAL);
    eprintln!("{}", tally.summary(t0.elapsed().as_secs_f64()));
    assert!(
        tally.invalid * 20 < tally.programs + tally.invalid,
        "too many invalid programs: {} of {}",
        tally.invalid,
        tally.programs + tally.invalid
    );
    assert!(tally.turns >= 100_000);
    if !findings.groups.is_empty() {
        panic!("the engine differs from the spec:{}", findings.report(true));
    }
}

#[test]
#[ignore = "long: 10 M turns; run with --ignored --nocapture"]
fn generated_programs_agree_with_the_spec_long() {
    let t0 = Instant::now();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    let per_thread = 10_000_000 / threads + 1;
    let results: Vec<(Tally, Findings)> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..threads)
            .map(|k| {
                sc.spawn(move || {
                    run_generated(
                        (0u64..).map(move |i| 1_000_000 + i * threads + k),
                        per_thread,
                        NORMAL,
                    )
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().expect("worker")).collect()
    });
    let secs = t0.elapsed().as_secs_f64();
    let mut findings = Findings::default();
    let mut total = Tally::default();
    for (t, f) in results {
        total.absorb(&t);
        findings.merge(f);
    }
    println!("long run on {threads} threads: {}", total.summary(secs));
    for ((v, what, sim), (n, _)) in &findings.groups {
        println!(
            "  {} {what:?} {}: {n} programs",
            VARIANTS[*v],
            if *sim { "simultaneous" } else { "alternate" }
        );
    }
    if !findings.groups.is_empty() {
        panic!("the engine differs from the spec:{}", findings.report(true));
    }
}

#[test]
fn example_files_agree_with_the_spec() {
    let mut findings = Findings::default();
    for (k, path) in common::kmt_files("rules").iter().enumerate() {
        let src = common::read(path);
        let s = subject(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut t = Tally::default();
        check(
            &s,
            k as u64,
            Effort {
                perft_leaves: 5000,
                games: 20,
                max_turns: 400,
            },
            &mut t,
        );
        for d in t.found {
            findings.add(k as u64, &s, d);
        }
    }
    if !findings.groups.is_empty() {
        panic!(
            "the engine differs from the spec:{}",
            findings.report(false)
        );
    }
}

#[test]
fn every_generated_program_is_read_by_the_reference_parser() {
    // A program the engine compiles must parse in its expanded form; the generator's output
    // must mostly compile.
    let mut invalid = 0;
    for seed in 0..2000 {
        let src = gen_program(seed);
        let c = compile(&src);
        if c.program.is_none() {
            invalid += 1;
            continue;
        }
        if let Err(e) = subject(&src) {
            panic!("seed {seed}: {e}\n{src}");
        }
    }
    assert!(
        invalid < 100,
        "{invalid} of 2000 generated programs do not compile"
    );
}

// The four cases of the bug report, with the values §8 gives.

/// Perft on the interpreter (first) and on every engine variant.
fn all_perfts(src: &str, depth: usize) -> Vec<Vec<u64>> {
    let s = subject(src).unwrap_or_else(|e| panic!("{e}"));
    let it = interp(&s);
    let mine = it
        .initial(first_side(&s))
        .and_then(|g| it.perft(&g, depth))
        .expect("no runtime error");
    let mut out = vec![mine];
    for v in 0..NV {
        let e = engine(&s.prog, v);
        out.push(
            e.initial(Side::from_index(first_side(&s)))
                .and_then(|st| engine_perft(&e, v, &st, depth))
                .expect("no runtime error"),
        );
    }
    out
}

/// Per turn (from the start): the outcome and whether `watch` is enabled for h and for c.
type Observed = Vec<(Option<Outcome>, [bool; 2])>;

/// Plays `moves` (command names per side, "" = pass) on the interpreter (first) and on every
/// engine variant.
fn all_play(src: &str, moves: &[[&str; 2]], watch: &str) -> Vec<Observed> {
    let s = subject(src).unwrap_or_else(|e| panic!("{e}"));
    let it = interp(&s);
    let first = first_side(&s);
    let mut g = it.initial(first).expect("start");
    let wr = s.refp.command(watch);
    let flags = |g: &Game| [0, 1].map(|x| wr.is_some_and(|c| g.enabled[x][c]));
    let mut mine = vec![(None, flags(&g))];
    for m in moves {
        it.play(&mut g, m.map(|n| s.refp.command(n))).expect("turn");
        mine.push((ref_outcome(g.outcome), flags(&g)));
    }
    let mut out = vec![mine];
    for v in 0..NV {
        let e = engine(&s.prog, v);
        let we = s.prog.command_id(watch);
        let flags = |st: &State| {
            [0, 1].map(|x| we.is_some_and(|c| e.is_enabled(st, Side::from_index(x), c)))
        };
        let mut st = e.initial(Side::from_index(first)).expect("start");
        let mut obs = vec![(None, flags(&st))];
        for m in moves {
            engine_play(&e, v, &mut st, m.map(|n| s.prog.command_id(n))).expect("turn");
            obs.push((st.outcome, flags(&st)));
        }
        out.push(obs);
    }
    out
}

const WHO: [&str; 1 + NV] = ["spec interpreter", VARIANTS[0], VARIANTS[1], VARIANTS[2]];

#[test]
fn regression_a_constant_first_comparison() {
    // `3<S.x` holds only once x > 3: h's first push takes x from 3 to 4 (the snapshot still
    // reads 3), so y rises on h's second push (turn 3), and [b] opens on h's third turn
    // (turn 5). Every turn before that has exactly one move.
    let src = "!:[a],x=3\n[a]:S.x+1\n3<S.x:S.y+1\nS.y>=1::[b]\n";
    let counts = all_perfts(src, 5);
    for (who, c) in WHO.iter().zip(&counts) {
        assert_eq!(c[..3], [1, 1, 1], "{who}: perft depth 1..=3");
        assert_eq!(c, &vec![1, 1, 1, 1, 2], "{who}: perft depth 1..=5");
    }
}

#[test]
fn regression_b_simultaneous_availability_is_fair() {
    // Both availabilities on one state; per flag the other side's write first, the owner's
    // last: each side's own `:![b]` beats the opponent's `:O.[b]`, for both sides alike.
    let src = "~同時\n!:[a]\n:![b]\n:O.[b]\n";
    let counts = all_perfts(src, 2);
    for (who, c) in WHO.iter().zip(&counts) {
        assert_eq!(c, &vec![1, 1], "{who}: perft");
    }
    let obs = all_play(src, &[["a", "a"], ["a", "a"], ["", ""]], "b");
    for (who, o) in WHO.iter().zip(&obs) {
        for (turn, (outcome, b)) in o.iter().enumerate() {
            assert_eq!(*outcome, None, "{who}: after turn {turn}");
            assert_eq!(
                b[0], b[1],
                "{who}: [b] differs between h and c after turn {turn}"
            );
            assert_eq!(*b, [false, false], "{who}: [b] after turn {turn}");
        }
    }
}

#[test]
fn regression_c_end_check_on_one_state() {
    // Turn 3: h.x = 2, so h's `S.x>=2::S.勝利` sets h.勝利; c's `S.x>=9::O.勝利` fails and its
    // inverse clears h.勝利 — evaluated on the same state, merged with the owner's write
    // last, h.勝利 stays 1: h wins on turn 3.
    let src = "!:[a]\n[a]:S.x+1\nS.x>=2::S.勝利\nS.x>=9::O.勝利\n";
    let obs = all_play(src, &[["a", "a"]; 4], "a");
    for (who, o) in WHO.iter().zip(&obs) {
        let outcomes: Vec<Option<Outcome>> = o.iter().map(|x| x.0).collect();
        assert_eq!(
            outcomes,
            vec![None, None, None, Some(Outcome::H), Some(Outcome::H)],
            "{who}: outcome after turns 0..=4"
        );
    }
}

#[test]
fn regression_d_periodic_victory_rule_not_at_turn_count_0() {
    // `@2/` counts each side's own turns: after turn 1 c has 0 turns and is not checked;
    // h's 2nd turn (turn 3) fires it for h, so c wins then.
    let src = "@2/S.x<=0:S.敗北\n";
    let obs = all_play(src, &[["", ""]; 4], "none");
    for (who, o) in WHO.iter().zip(&obs) {
        let outcomes: Vec<Option<Outcome>> = o.iter().map(|x| x.0).collect();
        assert_eq!(
            outcomes,
            vec![None, None, None, Some(Outcome::C), Some(Outcome::C)],
            "{who}: outcome after turns 0..=4"
        );
    }
}

/// The balance report's "cannot fire" proof (src/report/reach.rs) is sound: on generated
/// programs, no rule it flags ever fires in random games, and counting firings does not change
/// any game.
#[test]
fn rules_proved_dead_never_fire_and_counting_changes_nothing() {
    let (mut programs, mut flagged, mut turns, mut exhausted) = (0u64, 0u64, 0u64, 0u64);
    for seed in 0..3000u64 {
        let source = gen_program(seed ^ 0xDEAD_0000);
        let Some(prog) = kumite::pipeline::compile(&source).program else {
            continue;
        };
        programs += 1;
        let cannot = kumite::report::reach::cannot_fire(&prog);
        flagged += cannot.iter().filter(|&&c| c).count() as u64;
        // Small games: the rules that fire from some reachable position (h first), by
        // enumerating every position; every firing seen in play must be among them.
        let anywhere = if seed % 16 == 0 {
            Engine::new(&prog, 0)
                .initial(Side::H)
                .ok()
                .and_then(|root| {
                    let t = kumite::search::exact::ExactTable::build(
                        &prog,
                        &root,
                        std::time::Duration::from_millis(100),
                        20_000,
                    )
                    .ok()?;
                    kumite::report::reach::fires_anywhere(&prog, t.all_positions()?, 200_000)
                })
        } else {
            None
        };
        exhausted += u64::from(anywhere.is_some());
        for game in 0..4u64 {
            let plain = Engine::new(&prog, seed + game);
            let counting = Engine::new(&prog, seed + game).counting();
            let first = (game % 2) as usize;
            let (Ok(mut a), Ok(mut b)) = (
                plain.initial(Side::from_index(first)),
                counting.initial(Side::from_index(first)),
            ) else {
                continue;
            };
            let mut rng = Rng(seed * 31 + game);
            let mut en = Vec::new();
            for _ in 0..120 {
                if a.outcome.is_some() {
                    break;
                }
                let mut cmds = [None, None];
                for &s in plain.movers(&a) {
                    plain.enabled_commands(&a, s, &mut en);
                    if !en.is_empty() {
                        cmds[s] = Some(en[rng.below(en.len())]);
                    }
                }
                let (ra, rb) = (
                    plain.play(&mut a, cmds, None),
                    counting.play(&mut b, cmds, None),
                );
                turns += 1;
                assert_eq!(ra.is_ok(), rb.is_ok(), "seed {seed}:\n{source}");
                assert_eq!(a, b, "counting changed the game, seed {seed}:\n{source}");
                if ra.is_err() {
                    break;
                }
            }
            let mut fires = Vec::new();
            counting.take_fires(&mut fires);
            for (ri, &n) in fires.iter().enumerate() {
                assert!(
                    !(n > 0 && cannot[ri]),
                    "rule {ri} ({}) was proved dead but fired {n} times, seed {seed}:\n{source}",
                    prog.rule_text(ri)
                );
                if let Some(any) = anywhere.as_ref().filter(|_| first == 0) {
                    assert!(
                        n == 0 || any[ri],
                        "rule {ri} ({}) fired {n} times but the enumeration of every position says it never fires, seed {seed}:\n{source}",
                        prog.rule_text(ri)
                    );
                }
            }
        }
    }
    eprintln!(
        "{programs} programs, {flagged} rules proved dead, {turns} turns, {exhausted} games enumerated whole"
    );
    assert!(programs > 2000 && turns > 100_000 && exhausted > 10);
}

// ---------------------------------------------------------------------------------------------
// The turn limit in exact values

/// h's value of `g` for the game as written, by plain backward induction on the spec
/// interpreter: every joint move of every turn is played out until the game is decided or the
/// turn limit ends it (a draw). Alternate turns take the mover's best; a simultaneous turn is a
/// matrix game (solved by the library's LP, which is checked against OpenSpiel elsewhere). The
/// memo is keyed by the whole position, turn counter included. None when a move raises a rule
/// error (those games are left out here).
fn induction(it: &Interp, g: &Game, memo: &mut BTreeMap<String, f64>) -> Option<f64> {
    match g.outcome {
        Some(reference::Outcome::H) => return Some(1.0),
        Some(reference::Outcome::C) => return Some(-1.0),
        Some(reference::Outcome::Draw) => return Some(0.0),
        None => {}
    }
    let key = format!("{g:?}");
    if let Some(v) = memo.get(&key) {
        return Some(*v);
    }
    let moves = it.moves(g);
    let mut vals = Vec::with_capacity(moves.len());
    for m in &moves {
        let mut next = g.clone();
        it.play(&mut next, *m).ok()?;
        vals.push(induction(it, &next, memo)?);
    }
    let movers = it.movers(g);
    let v = if movers.len() == 2 {
        // Rows: h's choices; the moves list is h-major.
        let hs: Vec<Option<usize>> = moves.iter().map(|m| m[0]).fold(Vec::new(), |mut v, x| {
            if !v.contains(&x) {
                v.push(x);
            }
            v
        });
        let cols = moves.len() / hs.len();
        let a: Vec<Vec<f64>> = (0..hs.len())
            .map(|r| vals[r * cols..(r + 1) * cols].to_vec())
            .collect();
        kumite::search::matrix::solve(&a).value
    } else if movers == [0] {
        vals.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    } else {
        vals.iter().copied().fold(f64::INFINITY, f64::min)
    };
    memo.insert(key, v);
    Some(v)
}

/// Generated alternate and simultaneous programs with short turn limits (T1–T8): the exact game
/// value (`solve --value`'s) equals the backward induction over the turns left on the spec
/// interpreter — and in enough of them the limit changes the value, so a solver that ignored
/// it would fail here.
#[test]
fn exact_values_count_a_turn_limit_that_binds() {
    let mut checked = 0;
    let mut limit_mattered = 0;
    let mut sims = 0;
    // 800 seeds: about 600 programs checked, and the limit changes the value in 19 of them.
    for seed in 0..800u64 {
        let base = gen_program(seed);
        if base.contains("rand(") {
            continue;
        }
        let t = 1 + (seed % 8) as u32;
        let source = format!("{base}~T{t}\n");
        let Ok(s) = subject(&source) else { continue };
        let it = Interp::new(&s.refp);
        let first = first_side(&s);
        let Ok(g) = it.initial(first) else { continue };
        let mut memo = BTreeMap::new();
        let Some(want) = induction(&it, &g, &mut memo) else {
            continue;
        };
        if memo.len() > 200_000 {
            continue;
        }
        let eng = Engine::new(&s.prog, 0);
        let Ok(st) = eng.initial(Side::from_index(first)) else {
            continue;
        };
        let gv = kumite::search::value_iteration(&s.prog, &st, 12, 200_000);
        if gv.frontier > 0 {
            continue;
        }
        assert!(
            (gv.value - want).abs() < 1e-6,
            "seed {seed}, T{t}: exact value {:+.6}, backward induction {want:+.6} ({})\n{source}",
            gv.value,
            gv.positions_text()
        );
        // The same program without the limit (T1000): does the limit change the value?
        let free = format!("{base}~T1000\n");
        if let Ok(f) = subject(&free)
            && let Ok(st) = Engine::new(&f.prog, 0).initial(Side::from_index(first))
        {
            let v = kumite::search::value_iteration(&f.prog, &st, 12, 200_000).value;
            if (v - want).abs() > 1e-6 {
                limit_mattered += 1;
            }
        }
        checked += 1;
        sims += usize::from(s.prog.settings.simultaneous);
    }
    assert!(checked >= 300, "only {checked} programs checked");
    assert!(sims >= 60, "only {sims} simultaneous programs checked");
    assert!(
        limit_mattered >= 15,
        "the limit changed the value in only {limit_mattered} of {checked} programs"
    );
    eprintln!(
        "{checked} programs ({sims} simultaneous), the limit changed {limit_mattered} values"
    );
}
