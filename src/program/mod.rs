//! The compiled rule program (the IR the engine, analysis and search read): states and commands
//! interned to small ids, rules as flat tables (conditions, effects and expression bytecode in
//! shared vectors, addressed by ranges), plus the origins needed for display.
//!
//! - [`lower`]: the expansion to these tables, in small phases;
//! - [`checks`]: the semantic checks on names and rules;
//! - [`print`]: every way the program and the syntax are written back as rule text.
//!
//! The pipeline that runs them in order is [`crate::pipeline`].

pub(crate) mod checks;
mod facts;
pub mod lower;
pub mod print;

pub use print::{conds_text, effects_text, expr_text, rule_text};

use crate::expand::Origin;
use crate::syntax::ast::*;

/// Index of a state (shared by both sides).
pub type StateId = u32;
/// Index of a command.
pub type CmdId = u32;

/// State id of `勝利` (always 0).
pub const WIN_STATE: StateId = 0;
/// State id of `敗北` (always 1).
pub const LOSE_STATE: StateId = 1;

/// Match settings from the `~` lines, with defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// `P`: turn period in ms (real time) / CPU thinking budget per move.
    pub period_ms: u32,
    /// `S`: search depth in plies.
    pub depth: u32,
    /// `D`: thinning (below the root, each move examined with probability 1/D).
    pub thin: f64,
    /// `E`: mistakes per 10 moves.
    pub mistakes: u32,
    /// `同時`: simultaneous mode.
    pub simultaneous: bool,
    /// `先手c`: the CPU moves first.
    pub cpu_first: bool,
    /// `T`: turn limit.
    pub turn_limit: u32,
}

impl Settings {
    /// Applies one `~` setting.
    pub fn apply(&mut self, s: &Setting) {
        match *s {
            Setting::Period(v) => self.period_ms = v,
            Setting::Depth(v) => self.depth = v,
            Setting::Thin(v) => self.thin = v,
            Setting::Mistakes(v) => self.mistakes = v,
            Setting::Simultaneous => self.simultaneous = true,
            Setting::CpuFirst(v) => self.cpu_first = v,
            Setting::TurnLimit(v) => self.turn_limit = v,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            period_ms: 500,
            depth: 3,
            thin: 1.0,
            mistakes: 0,
            simultaneous: false,
            cpu_first: false,
            turn_limit: 1000,
        }
    }
}

/// Expression bytecode (a stack machine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Push a constant.
    Push(i64),
    /// Push a state of a side (relative or absolute).
    Load(SideRef, StateId),
    /// Negate the top.
    Neg,
    /// Pop b, pop a, push a op b.
    Bin(BinOp),
    /// Pop two, push the smaller.
    Min,
    /// Pop two, push the larger.
    Max,
    /// Absolute value of the top.
    Abs,
    /// Pop b, pop a, push a uniform integer in [a, b]; the slot is the draw's position in its rule.
    Rand(u16),
}

/// A compiled condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CCond {
    /// Compare two expressions (code ranges).
    Cmp {
        /// Operator.
        op: CmpOp,
        /// Left operand code.
        lhs: (u32, u32),
        /// Right operand code.
        rhs: (u32, u32),
    },
    /// A state is non-zero (or zero, if `neg`).
    Truth {
        /// Negated.
        neg: bool,
        /// Whose.
        side: SideRef,
        /// Which.
        state: StateId,
    },
    /// A command of the acting side (or its opponent), `back` turns ago (0 = this turn).
    Cmd {
        /// Negated.
        neg: bool,
        /// The opponent's command rather than the acting side's.
        opp: bool,
        /// Position in the sequence: 0 = the latest.
        back: u8,
        /// Which command.
        cmd: CmdId,
    },
}

/// A compiled effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CEffect {
    /// Set a boolean state to 1 or 0.
    Bool {
        /// Whose.
        side: SideRef,
        /// Which.
        state: StateId,
        /// The value.
        value: bool,
    },
    /// Update a state by an expression.
    Update {
        /// Whose.
        side: SideRef,
        /// Which.
        state: StateId,
        /// How.
        op: UpdOp,
        /// Operand code range.
        expr: (u32, u32),
    },
    /// Enable or disable a command.
    Enable {
        /// The opponent's command rather than the acting side's.
        opp: bool,
        /// Which.
        cmd: CmdId,
        /// Enable (true) or disable.
        on: bool,
    },
}

/// A compiled rule: ranges into the program's condition and effect tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CRule {
    /// Runs on the acting side's turns n with n % period == 0 (1 without a period).
    pub period: u32,
    /// Written with a period (`@N/`, `@1/` included): as a victory rule it is not checked for a
    /// side that has not acted yet (§8 step 4), which a rule without one is.
    pub periodic: bool,
    /// Conditions.
    pub conds: (u32, u32),
    /// Effects.
    pub effects: (u32, u32),
    /// `::` — apply the inverse when the conditions fail.
    pub iff: bool,
    /// Has command atoms (`[X]`, `O.[X]`) among its conditions.
    pub has_cmd_atoms: bool,
    /// A victory rule (§8 step 4): no command atoms, only 勝利/敗北 effects.
    pub victory: bool,
    /// Has at least one enable/disable effect.
    pub has_enable: bool,
    /// Uses `rand`.
    pub has_rand: bool,
}

/// A compiled advantage line.
#[derive(Clone, Debug, PartialEq)]
pub struct CAdv {
    /// The block's weight.
    pub weight: f64,
    /// Conditions.
    pub conds: (u32, u32),
    /// Value code.
    pub value: (u32, u32),
}

/// Display data of one compiled rule (its text is rebuilt on demand from the tables, see
/// [`RuleProgram::rule_text`], so compiling stays cheap on every keystroke).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleMeta {
    /// Where it came from.
    pub origin: Origin,
}

/// A key binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyBinding {
    /// The key (`L`, `c`, `Space` …).
    pub key: String,
    /// The command.
    pub cmd: CmdId,
}

/// The compiled program, ready for the engine.
#[derive(Clone, Debug)]
pub struct RuleProgram {
    /// State names by id (0 = 勝利, 1 = 敗北).
    pub states: Vec<String>,
    /// Command names by id.
    pub commands: Vec<String>,
    /// Initial state values per side (0 = h, 1 = c).
    pub init_values: [Vec<i64>; 2],
    /// Initial enabled flags per side.
    pub init_enabled: [Vec<bool>; 2],
    /// Key bindings in file order.
    pub keys: Vec<KeyBinding>,
    /// Settings.
    pub settings: Settings,
    /// Rules in expanded file order.
    pub rules: Vec<CRule>,
    /// Condition table.
    pub conds: Vec<CCond>,
    /// Effect table.
    pub effects: Vec<CEffect>,
    /// Expression bytecode.
    pub code: Vec<Op>,
    /// Advantage lines.
    pub adv: Vec<CAdv>,
    /// Display data per rule.
    pub meta: Vec<RuleMeta>,
    /// Display text per advantage line.
    pub adv_meta: Vec<RuleMeta>,
    /// Longest command sequence any rule reads, per (own, opponent).
    pub max_seq: [u8; 2],
    /// Constants from macro blocks (for display).
    pub constants: Vec<(String, i64)>,
    /// Command macros and their alternatives (for display).
    pub macros: Vec<(String, Vec<String>)>,
}

/// What one run of a program varies while the program itself stays as compiled: handed to the
/// engine ([`crate::engine::Engine::with_config`]) and the CPU
/// ([`crate::search::CpuPlayer::with_config`]) and the players made from specs
/// ([`crate::players::PlayerSpec`]); the default bans nothing and has no learned evaluation.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Commands a side may never use, as flag indices `side * commands + command`: kept off
    /// after every availability run (restricted play in `kumite report`; empty otherwise).
    pub banned: Vec<u32>,
    /// The learned evaluation `cpu:trained` plays with (`kumite train`), read by whoever read
    /// the rule file ([`crate::load::load_file`] reads `FILE.trained.json` next to it), or why
    /// there is none.
    pub learned: Result<std::sync::Arc<Learned>, NoLearned>,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            banned: Vec::new(),
            learned: Err(NoLearned::NotRead),
        }
    }
}

impl RunConfig {
    /// The default config with a learned evaluation (or why there is none).
    pub fn with_learned(learned: Result<std::sync::Arc<Learned>, NoLearned>) -> Self {
        Self {
            learned,
            ..Self::default()
        }
    }
}

/// A learned evaluation (`kumite train`): logistic-regression weights that predict h's result
/// from a position's features (see `search::trained`), with what they were learned from.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Learned {
    /// Always "kumite-trained".
    pub kind: String,
    /// The [`RuleProgram::behaviour_hash`] of the rules it was learned on (unchanged by
    /// comments and layout, changed by any number or rule).
    pub rules_hash: String,
    /// The feature names, in order.
    pub features: Vec<String>,
    /// Each feature's mean and standard deviation over the training positions.
    pub mean: Vec<f64>,
    /// See `mean`.
    pub sd: Vec<f64>,
    /// The logistic regression's intercept and weights (on standardised features).
    pub bias: f64,
    /// See `bias`.
    pub weights: Vec<f64>,
    /// The self-play games and the positions they gave.
    pub games: u64,
    /// See `games`.
    pub positions: u64,
    /// The players of the self-play games.
    pub players: String,
    /// The seed of the first game.
    pub seed: u64,
    /// Log loss of the learned prediction of h's result over the training positions, and of
    /// the derived evaluation's alone (one weight and an intercept fitted the same way).
    pub log_loss: f64,
    /// See `log_loss`.
    pub derived_log_loss: f64,
    /// How the self-play games ended (files written before it was kept have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<SelfPlayResults>,
}

/// How the self-play games of a learned evaluation ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SelfPlayResults {
    /// Games h won.
    pub h_wins: u64,
    /// Games c won.
    pub c_wins: u64,
    /// Games drawn (both won at once, or the turn limit).
    pub draws: u64,
    /// Games ended by a rule error (left out of the learning).
    #[serde(default)]
    pub errors: u64,
    /// Different games among them (by the positions played through).
    pub distinct: u64,
}

impl SelfPlayResults {
    /// Why these games teach nothing about which positions are better, if they do not: every
    /// game ended the same way.
    pub fn nothing_to_learn(&self) -> Option<String> {
        let n = self.h_wins + self.c_wins + self.draws;
        let why = if n == 0 {
            return Some(format!(
                "all {} self-play games ended in a rule error (`kumite match FILE --trace` shows one)",
                self.errors
            ));
        } else if self.draws == n {
            format!("all {n} self-play games were draws")
        } else if self.h_wins == n {
            format!("h won all {n} self-play games")
        } else if self.c_wins == n {
            format!("c won all {n} self-play games")
        } else {
            return None;
        };
        Some(format!(
            "{why}, so no position predicts the result better than another"
        ))
    }
}

/// The hash match logs and learned evaluations keep of a rule text (64-bit FNV-1a, in hex).
pub fn text_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Why there is no learned evaluation for a run, each saying what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoLearned {
    /// None was read (rules compiled from text, not loaded from a file).
    #[error(
        "no learned evaluation was read for these rules: run `kumite train FILE` (it writes FILE's name with .trained.json next to it)"
    )]
    NotRead,
    /// A simultaneous game: its CPU does not use one.
    #[error(
        "a simultaneous game: its CPU plays the local game graph's mixes, which a learned evaluation does not change (`kumite train` is for alternate games)"
    )]
    Simultaneous,
    /// The rules are not saved to a file yet (the studio).
    #[error("the rules are not saved: save them and run `kumite train FILE`")]
    NotSaved,
    /// No learned file next to the rule file.
    #[error("no learned evaluation for {file} ({learned} not found): run `kumite train {file}`")]
    NotFound {
        /// The rule file.
        file: String,
        /// Where its learned evaluation would be.
        learned: String,
    },
    /// The learned file is not a learned evaluation.
    #[error("{learned} cannot be read: {why}")]
    Unreadable {
        /// The learned file.
        learned: String,
        /// What the JSON reader said.
        why: String,
    },
    /// Learned on rules that do something else than the file's now.
    #[error(
        "{learned} was learned on other rules than {file} has now (a number, rule or name changed): run `kumite train {file}` again"
    )]
    OtherRules {
        /// The learned file.
        learned: String,
        /// The rule file.
        file: String,
    },
    /// Learned with other features (another version of kumite).
    #[error(
        "{learned} was learned with other features (another version of kumite): run `kumite train {file}` again"
    )]
    OtherFeatures {
        /// The learned file.
        learned: String,
        /// The rule file.
        file: String,
    },
}

impl RuleProgram {
    /// True if state `i` is a flag: both sides start it at 0 or 1 and no rule does arithmetic
    /// on it (only `S.x` / `!S.x` set it). Views draw a flag as ○/— and any other state as a
    /// number, whatever values a match has shown so far.
    pub fn is_flag(&self, i: usize) -> bool {
        let starts = self
            .init_values
            .iter()
            .all(|v| v.get(i).is_none_or(|&x| x == 0 || x == 1));
        starts
            && !self
                .effects
                .iter()
                .any(|e| matches!(e, CEffect::Update { state, .. } if *state as usize == i))
    }

    /// Id of a state by name.
    pub fn state_id(&self, name: &str) -> Option<StateId> {
        // The reserved states are 0 and 1 however the file spells them.
        match name {
            "win" | "勝利" => return Some(0),
            "lose" | "敗北" => return Some(1),
            _ => {}
        }
        self.states
            .iter()
            .position(|s| s == name)
            .map(|i| i as StateId)
    }
    /// Id of a command by name (with or without brackets).
    pub fn command_id(&self, name: &str) -> Option<CmdId> {
        let name = name.trim().trim_start_matches('[').trim_end_matches(']');
        self.commands
            .iter()
            .position(|s| s == name)
            .map(|i| i as CmdId)
    }
    /// Command bound to a key.
    pub fn command_for_key(&self, key: &str) -> Option<CmdId> {
        self.keys.iter().find(|k| k.key == key).map(|k| k.cmd)
    }
    /// The command a player typed: a key (`Space` for a lone space) or a command name.
    pub fn command_from_input(&self, input: &str) -> Option<CmdId> {
        let t = input.trim_end_matches(['\n', '\r']);
        if t == " " {
            return self.command_for_key("Space");
        }
        let t = t.trim();
        self.command_for_key(t).or_else(|| self.command_id(t))
    }
    /// Key bound to a command.
    pub fn key_for(&self, cmd: CmdId) -> Option<&str> {
        self.keys
            .iter()
            .find(|k| k.cmd == cmd)
            .map(|k| k.key.as_str())
    }
    /// Conditions of rule `r`.
    pub fn rule_conds(&self, r: &CRule) -> &[CCond] {
        &self.conds[r.conds.0 as usize..r.conds.1 as usize]
    }
    /// Effects of rule `r`.
    pub fn rule_effects(&self, r: &CRule) -> &[CEffect] {
        &self.effects[r.effects.0 as usize..r.effects.1 as usize]
    }
    /// Code of a range.
    pub fn code_of(&self, r: (u32, u32)) -> &[Op] {
        &self.code[r.0 as usize..r.1 as usize]
    }
    /// Distinct periods in use (other than 1).
    pub fn periods(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .rules
            .iter()
            .map(|r| r.period)
            .filter(|p| *p > 1)
            .collect();
        v.sort();
        v.dedup();
        v
    }
    /// True if two programs behave the same (everything but display data).
    pub fn same_behaviour(&self, o: &RuleProgram) -> bool {
        self.states == o.states
            && self.commands == o.commands
            && self.init_values == o.init_values
            && self.init_enabled == o.init_enabled
            && self.keys == o.keys
            && self.settings == o.settings
            && self.rules == o.rules
            && self.conds == o.conds
            && self.effects == o.effects
            && self.code == o.code
            && self.adv == o.adv
    }
}

/// The greatest common divisor (gcd(a, 0) = a).
pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The least common multiple of `periods`, at most 2^20 (1 for none): the cycle after which
/// every periodic rule (`@N/`) is due again at the same phase.
pub fn period_lcm(periods: impl IntoIterator<Item = u32>) -> u32 {
    periods.into_iter().fold(1u64, |l, p| {
        let p = u64::from(p.max(1));
        (l / gcd(l, p)).saturating_mul(p).min(1 << 20)
    }) as u32
}
