//! `kumite suggest`: the smallest edits of a rule file's numbers that make a game fair, each
//! certified by the exact game value of the edited file.
//!
//! **Edits** are the integer literals of the file — constants and macros in `${}`, start values
//! (`!:`), costs, damages, thresholds and periods in the rules, the turn limit `T` of the `~`
//! line — changed by a few units, one or two at a time. Advantage weights (`%{}`) are left
//! alone: they steer the CPU's evaluation, not the game. Only the number's characters change,
//! so an edited file means what the original means except where the edit says; an edit after
//! which the file does not compile is dropped.
//!
//! **Certification**: the game value for h — the same value iteration as `kumite solve --value`
//! over the same positions — before and after. `method` is "exact" when every reachable
//! position was solved and the iteration converged; otherwise the value is labelled
//! "estimated" with what limited it (the bound on state values, the iterations).
//!
//! **Search**: cheapest first — every single edit by ±1, then ±2 and ±3 — within the time
//! budget; when no single edit meets the goal, pairs of the single edits that came nearest.
//!
//! **Alternate games** have no game value here (their exact tables rarely fit): their balance
//! is **sampled** — the report's CPU against itself, both seatings, the same seeds for every
//! edit — as h's score and the first mover's, each with its 95% interval, and single edits by
//! ±1 are compared by successive halving (16 games a seating, the better half with twice as
//! many, up to 100).

use crate::diag::Diagnostic;
use crate::pipeline::compile;
use crate::search::{GameValue, VALUE_BOUND, VALUE_POSITIONS};
use crate::syntax::lexer::{LineKind, Spanned, Sym, Tok, lex_line, line_kind, norm};
use crate::syntax::names::Names;
use serde::Serialize;
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a suggestion must reach.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Goals {
    /// The game value for h within ±this (0 = even).
    pub max_abs_value: f64,
    /// Under optimal play, games that end without a winner (a draw, or play that never ends)
    /// at most this share: an edit that makes a game even by making it undecidable (a charge
    /// that adds nothing) is no fix.
    pub max_draws: f64,
    /// Every command of each side is played by optimal play in some position (exact verdicts:
    /// [`Verdict::unused`] empty; a sampled verdict cannot tell and does not meet it).
    pub every_command: bool,
    /// Skill matters: random loses to the report's deepest CPU level (the report's key skill
    /// pairing, checked on the file and on each suggestion found — not during the search).
    pub skill_matters: bool,
    /// Games last at most this many turns on average: the expected length under optimal play
    /// (exact verdicts of games of at most [`crate::search::solve::LENGTH_POSITIONS`]
    /// positions), the CPU games' mean (sampled). A verdict without a length does not meet it.
    pub max_turns: Option<f64>,
}

impl Default for Goals {
    fn default() -> Self {
        Goals {
            max_abs_value: 0.05,
            max_draws: 0.10,
            every_command: false,
            skill_matters: false,
            max_turns: None,
        }
    }
}

/// The report's key skill pairing on a file: random against the deepest level.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkillCheck {
    /// The deepest level's spec.
    pub deepest: String,
    /// Random's score against it.
    pub random_score: f64,
    /// Its 95% interval (None: one game repeated).
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
    /// Games played, and how many were planned (fewer: stopped early, its 99.9% interval clear
    /// of ½).
    pub games: u64,
    /// See `games`.
    pub planned_games: u64,
    /// Random loses: the interval lies below ½.
    pub matters: bool,
}

/// Seed of the skill checks' games (the same for the file and every suggestion).
const SKILL_SEED: u64 = 0x5C11_1C4E;

/// The key skill pairing on `prog` (see [`SkillCheck`]).
fn skill_check(prog: &crate::program::RuleProgram, progress: &Arc<super::Progress>) -> SkillCheck {
    use super::sections::{a_score, play_pairing, skill_key_games};
    let deepest = super::varied_cpu(super::SKILL_LEVELS[super::SKILL_LEVELS.len() - 1], prog);
    let random = super::varied_cpu(super::SKILL_LEVELS[0], prog);
    let half = skill_key_games(2 * SAMPLE_GAMES) / 2;
    let first = crate::engine::Side::first_mover(prog.settings.cpu_first);
    let sets = play_pairing(
        prog,
        [random.as_str(), deepest.as_str()],
        first,
        half,
        SKILL_SEED,
        None,
        progress,
    )
    .unwrap_or_default();
    let (rate, games) = a_score(&sets);
    let r = super::sampled(
        rate,
        games,
        super::games::varied(sets.iter().map(Vec::as_slice)),
    );
    SkillCheck {
        deepest,
        random_score: r.value,
        low: r.low,
        high: r.high,
        games,
        planned_games: 2 * half,
        matters: r.high.unwrap_or(r.value) < 0.5,
    }
}

/// How the search runs.
#[derive(Clone, Debug)]
pub struct SuggestOptions {
    /// The goals.
    pub goals: Goals,
    /// Edits per suggestion at most (1 or 2).
    pub max_edits: usize,
    /// The time cap, the file's own measurement included: past it the search stops and says
    /// where. It never changes which games are played before it (see [`Self::games`]).
    pub budget: Duration,
    /// CPU moves the sampled search plans at most (the games it plans times the moves a game
    /// of the file takes, as its own measurement played them): its rounds are sized by this,
    /// not by the machine's pace, so the same file, goals and seed give the same suggestions on
    /// any machine that finishes within the cap.
    pub moves: u64,
    /// Suggestions listed at most.
    pub max_suggestions: usize,
    /// Lines (1-based) whose numbers no edit may change (`--keep`), besides those the file
    /// locks with a `# kumite: keep` comment ([`kept_lines`]).
    pub keep: Vec<usize>,
    /// Games played (sampled verdicts) and a cancel flag, shared with whoever watches (the
    /// studio); a cancel ends the search at the next edited file, as a gave-up.
    pub progress: Arc<super::Progress>,
}

impl Default for SuggestOptions {
    fn default() -> Self {
        SuggestOptions {
            goals: Goals::default(),
            max_edits: 2,
            budget: Duration::from_secs(60),
            moves: DEFAULT_MOVES,
            max_suggestions: 5,
            keep: Vec::new(),
            progress: super::Progress::new(),
        }
    }
}

/// Moves' work a sampled search plans by default (a move counts once, and once more for every
/// [`NODES_A_MOVE`] search nodes it costs): the boxing design (66 moves a game, 1.9 moves'
/// work each) and karate (31 moves, 8.2 each) plan about 25 s on the 2-core development
/// machine, sumo a few seconds — within the 60 s cap with a core busy.
pub const DEFAULT_MOVES: u64 = 800_000;

/// A number of the file that an edit may change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters) of the number's first character.
    pub column: usize,
    /// Its bytes in the file.
    pub span: Range<usize>,
    /// Its value.
    pub value: i64,
    /// A number that moves with it (see [`link_sites`]): its index, and whether their sum is
    /// kept (start values held together) rather than their equality (a transfer's amounts).
    pub partner: Option<(usize, bool)>,
    /// The least value it can take: 1 for a period (`@3/`) and the turn limit, else 0.
    pub least: i64,
    /// How readily a designer edits it ([`tier_of`]): 0 a start value or a named number, 1 a
    /// cost, 2 a threshold or an effect. Suggestions are ranked by it before their size.
    pub tier: u8,
    /// An amount an effect adds to or takes from a state, the whole effect (`S.マナ+1`,
    /// `O.体力-=3`): at 0 the effect does nothing, so no edit takes it there.
    pub effect: bool,
}

/// One edit: the number at `line`:`column` from `from` to `to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Edit {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters).
    pub column: usize,
    /// The number's text before.
    pub from: String,
    /// After.
    pub to: String,
    /// The line before and after, for the diff (`line 12: 費用:5 → 費用:4`).
    pub before_line: String,
    /// The edited number's [`Site::tier`].
    #[serde(skip)]
    pub tier: u8,
    /// The line after.
    pub after_line: String,
}

/// How a verdict knows: every position solved (exact), values partly estimated by the derived
/// evaluation (estimated), or CPU games (sampled). Lower-case in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Every reachable position solved and converged.
    Exact,
    /// Value iteration with positions past a bound estimated, or not converged.
    Estimated,
    /// The CPU's games.
    Sampled,
}

impl Method {
    /// "exact", "estimated" or "sampled".
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Estimated => "estimated",
            Method::Sampled => "sampled",
        }
    }
}

/// A game value and how it was found: the figures every verdict has, and the evidence behind
/// them (a solved game's mixes, or the CPU games played).
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The value for h (+1 win, −1 loss, 0 draw or endless); sampled, h's score − ½.
    pub value: f64,
    /// Positions solved, and which limit left the rest to an estimate; or the games played.
    pub how: String,
    /// Under both optimal mixes (solved), or in the CPU games (sampled), the share of games
    /// that end without a winner (a draw, play that never ends, the turn limit).
    pub draws: f64,
    /// The mean length of a game in turns: expected under both optimal mixes (solved; None for
    /// a game too large, or play that goes on to the turn limit), or the CPU games' (sampled).
    pub turns: Option<f64>,
    /// Rule errors met, in words: the games they ended (sampled, left out of the score) or the
    /// moves that raised one (solved, each valued as a loss for the side whose move it was).
    /// Where they decide the figures the verdict meets no goal.
    pub rule_errors: Option<String>,
    /// The rule errors decide this verdict's figures ([`super::errors_decide`]): it is no
    /// evidence of balance.
    pub errors_decide: bool,
    /// Solved or sampled, with what only that kind of verdict has.
    pub evidence: Evidence,
}

/// What a verdict stands on.
#[derive(Clone, Debug, PartialEq)]
pub enum Evidence {
    /// Value iteration over the game's positions ([`Method::Exact`] or [`Method::Estimated`]).
    Solved(Solution),
    /// The CPU's games ([`Method::Sampled`]).
    Sampled(Sample),
}

/// A solved verdict's own figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// Every reachable position solved and the iteration converged (exact); else estimated.
    pub exact: bool,
    /// h's optimal mix at the start: command and probability (those above 0).
    pub h_mix: Vec<(String, f64)>,
    /// c's.
    pub c_mix: Vec<(String, f64)>,
    /// The commands optimal play never plays in any solved position, as `h [X]` / `c [Y]` —
    /// never worth choosing.
    pub unused: Vec<String>,
}

/// A sampled verdict's own figures: alternate games, both seatings.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The games played, per seating (h first, c first).
    pub games: u64,
    /// The players (the report's CPU, the same for both sides).
    pub players: String,
    /// The 95% interval of the verdict's value (h's score − ½); None when each seating played
    /// one game over and over.
    pub interval: Option<(f64, f64)>,
    /// The first mover's score − ½ over both seatings, with its 95% interval (None in a
    /// simultaneous game: nobody moves first).
    pub first_mover: Option<(f64, f64, f64)>,
    /// How many different games were played in all. When each seating played one game over
    /// and over (nothing random left in the rules or the players), the scores are that one
    /// game's and have no interval.
    pub distinct_games: u64,
    /// The seed of the games (with `games`, they replay exactly: [`replay`]).
    pub seed: u64,
    /// Search nodes a choice cost the players: the plan of a sampled search counts them
    /// ([`work_a_game`]).
    pub nodes_a_move: f64,
    /// How far ahead h starts by the derived distances to winning ([`start_lead`]): where
    /// every edit near the file leaves the score at 100% or 0%, it still says which way an edit
    /// moved the game.
    pub lead: f64,
}

impl Verdict {
    /// Exact or estimated (solved), or sampled.
    pub fn method(&self) -> Method {
        match &self.evidence {
            Evidence::Solved(s) if s.exact => Method::Exact,
            Evidence::Solved(_) => Method::Estimated,
            Evidence::Sampled(_) => Method::Sampled,
        }
    }

    /// The solved verdict's figures (None for a sampled one).
    pub fn solution(&self) -> Option<&Solution> {
        match &self.evidence {
            Evidence::Solved(s) => Some(s),
            Evidence::Sampled(_) => None,
        }
    }

    /// The sampled verdict's figures (None for a solved one).
    pub fn sample(&self) -> Option<&Sample> {
        match &self.evidence {
            Evidence::Solved(_) => None,
            Evidence::Sampled(s) => Some(s),
        }
    }

    /// The commands never worth playing (a solved verdict's; none for a sampled one, which
    /// cannot tell).
    pub fn unused(&self) -> &[String] {
        self.solution().map_or(&[][..], |s| &s.unused[..])
    }

    /// h's and c's optimal mixes at the start (a solved verdict's; none for a sampled one).
    fn mixes(&self) -> [&[(String, f64)]; 2] {
        match &self.evidence {
            Evidence::Solved(s) => [&s.h_mix, &s.c_mix],
            Evidence::Sampled(_) => [&[], &[]],
        }
    }

    /// The first mover's score − ½ with its interval (sampled alternate games only).
    pub fn first_mover(&self) -> Option<(f64, f64, f64)> {
        self.sample().and_then(|s| s.first_mover)
    }

    /// The 95% interval of `value` (sampled games that vary only).
    pub fn interval(&self) -> Option<(f64, f64)> {
        self.sample().and_then(|s| s.interval)
    }
}

/// The JSON of a verdict is one flat object, in the order the figures are read: value, method,
/// how, h_mix, c_mix, draws, turns, then the sampled verdict's games, players, interval,
/// first_mover and distinct_games, unused, the sampled seed, rule_errors, errors_decide.
/// The mixes and `unused` are there for every verdict (empty for a sampled one); the sampled
/// figures only for a sampled one; `interval` and `first_mover` only where there is one;
/// `rule_errors` where there are some; `errors_decide` only when true.
impl Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let [h_mix, c_mix] = self.mixes();
        let sample = self.sample();
        let len =
            8 + sample.map_or(0, |s| {
                4 + usize::from(s.interval.is_some()) + usize::from(s.first_mover.is_some())
            }) + usize::from(self.rule_errors.is_some())
                + usize::from(self.errors_decide);
        let mut m = serializer.serialize_struct("Verdict", len)?;
        m.serialize_field("value", &self.value)?;
        m.serialize_field("method", &self.method())?;
        m.serialize_field("how", &self.how)?;
        m.serialize_field("h_mix", h_mix)?;
        m.serialize_field("c_mix", c_mix)?;
        m.serialize_field("draws", &self.draws)?;
        m.serialize_field("turns", &self.turns)?;
        if let Some(s) = sample {
            m.serialize_field("games", &s.games)?;
            m.serialize_field("players", &s.players)?;
            if let Some(i) = &s.interval {
                m.serialize_field("interval", i)?;
            }
            if let Some(f) = &s.first_mover {
                m.serialize_field("first_mover", f)?;
            }
            m.serialize_field("distinct_games", &s.distinct_games)?;
        }
        m.serialize_field("unused", self.unused())?;
        if let Some(s) = sample {
            m.serialize_field("seed", &s.seed)?;
        }
        if let Some(e) = &self.rule_errors {
            m.serialize_field("rule_errors", e)?;
        }
        if self.errors_decide {
            m.serialize_field("errors_decide", &true)?;
        }
        m.end()
    }
}

/// How far ahead h starts by the derived distances to winning (§10): (c's − h's) / (c's +
/// h's), from −1 (c wins at once, or h cannot win) to +1, averaged over both seatings
/// (alternate play). A ratio, not a difference: an edit that makes every game shorter shrinks
/// the difference without evening anything.
fn start_lead(prog: &crate::program::RuleProgram) -> f64 {
    use crate::analysis::UNREACHABLE;
    use crate::engine::{Engine, Side};
    let g = crate::analysis::VictoryGraph::build(prog);
    let eng = Engine::new(prog, 0);
    let firsts: &[Side] = if prog.settings.simultaneous {
        &[Side::H]
    } else {
        &[Side::H, Side::C]
    };
    let cap = prog.settings.turn_limit.clamp(1, UNREACHABLE);
    let mut sum = 0.0;
    for &first in firsts {
        let Ok(st) = eng.initial(first) else {
            continue;
        };
        let [h, c] = [Side::H, Side::C]
            .map(|x| f64::from(crate::analysis::distances(&g, &eng, &st, x).to_win.min(cap)));
        if h + c > 0.0 {
            sum += (c - h) / (c + h);
        }
    }
    sum / firsts.len() as f64
}

/// One suggestion: its edits and the value before and after.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Suggestion {
    /// The edits, in file order.
    pub edits: Vec<Edit>,
    /// The file as it is.
    pub before: Verdict,
    /// The file with the edits.
    pub after: Verdict,
    /// Exact when both values are, sampled when the after is, else estimated.
    pub method: Method,
    /// Commands that enter (+) or leave (−) the start's optimal mixes.
    pub mix_changes: Vec<String>,
    /// With the skill goal: the key skill pairing on the edited file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill: Option<SkillCheck>,
    /// Sampled files: the report's depth check on the edited file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deeper: Option<DeeperCheck>,
}

/// The report's depth check on a sampled verdict: the same kind of games played by CPUs one ply
/// deeper (25 a seating, their own seeds), and whether they tell the same story.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeeperCheck {
    /// The deeper players (both sides).
    pub players: String,
    /// Their verdict.
    pub verdict: Verdict,
    /// true: h's score and the first mover's advantage (alternate games) each within 10 points
    /// of the verdict it checks; false: one of them further apart and the intervals do not
    /// overlap — the verdict depends on how deep the CPU looks; null: further apart, too few
    /// games to tell.
    pub agrees: Option<bool>,
}

/// What `kumite suggest` found.
#[derive(Clone, Debug, Serialize)]
pub struct Suggestions {
    /// The goals, in words.
    pub goals: Vec<String>,
    /// The file's own value.
    pub before: Verdict,
    /// With the skill goal: the key skill pairing on the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_skill: Option<SkillCheck>,
    /// Sampled files: the report's depth check on the file (None: not a CPU game, or the cap
    /// came first — `gave_up` then says so).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_deeper: Option<DeeperCheck>,
    /// With the skill goal: suggestions found for balance but dropped because skill no longer
    /// matters in them.
    pub dropped_for_skill: usize,
    /// Whether the file meets the goals already.
    pub already_met: bool,
    /// Suggestions meeting the goals, fewest and smallest edits first.
    pub suggestions: Vec<Suggestion>,
    /// When none meets the goals: the edits that came nearest (at most 3), with their evidence.
    pub nearest: Vec<Suggestion>,
    /// Edited files evaluated.
    pub tried: usize,
    /// Numbers of the file that edits may change.
    pub sites: usize,
    /// Numbers held as they are: on lines given by `--keep` or locked by a `# kumite: keep`
    /// comment.
    pub kept: usize,
    /// The held lines (1-based) that hold numbers, in order.
    pub kept_lines: Vec<usize>,
    /// Seconds the search took.
    pub seconds: f64,
    /// What ran out before every edit was tried (None: all were).
    pub gave_up: Option<String>,
    /// How the sampled search's plan was cut to fit `--moves`, when it was (None: every edit
    /// of the plan was planned).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_note: Option<String>,
    /// Edited files rejected without being measured because they break the design (a
    /// victory rule that can no longer decide a game, a new warning of the checker).
    pub rejected: usize,
    /// The first few of them, with why.
    pub rejected_examples: Vec<String>,
}

/// The lines (1-based) a designer locked against edits in the file itself: a line whose
/// comment says `kumite: keep` (`!:hp=10  # kumite: keep`), and the line after a comment line
/// that says only that (full-width forms read as ASCII).
pub fn kept_lines(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut next = false;
    for (i, line) in text.lines().enumerate() {
        let folded: String = line.chars().map(norm).collect();
        let code_blank = folded.trim().is_empty();
        if next && !code_blank {
            out.push(i + 1);
            next = false;
        }
        let Some(at) = folded.find('#') else {
            continue;
        };
        let comment = folded[at + 1..].trim();
        let says = comment
            .strip_prefix("kumite:")
            .is_some_and(|r| r.trim() == "keep");
        if says {
            if folded[..at].trim().is_empty() {
                next = true;
            } else if out.last() != Some(&(i + 1)) {
                out.push(i + 1);
            }
        }
    }
    out
}

/// The numbers of `text` an edit may change (see the module documentation).
pub fn sites(text: &str) -> Vec<Site> {
    let mut out = Vec::new();
    // Which block each line is in, as the parser read the file.
    let blocks = crate::syntax::parser::parse(text).block_lines(text);
    let mut start = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let end = start + raw.trim_end_matches(['\n', '\r']).len();
        let line = &text[start..end];
        let (kind, _) = line_kind(line);
        let block = blocks.get(i).copied().flatten();
        let (in_advantage, in_macros) = (block == Some('%'), block == Some('$'));
        let skip =
            in_advantage || matches!(kind, LineKind::Blank | LineKind::Keys | LineKind::Open('%'));
        if kind == LineKind::Settings {
            // The turn limit: T followed by digits (full-width read as ASCII).
            let chars: Vec<(usize, char)> = line.char_indices().collect();
            let mut k = 0;
            while k < chars.len() {
                if norm(chars[k].1) == '#' {
                    break;
                }
                if norm(chars[k].1) == 'T' {
                    let d0 = k + 1;
                    let mut d1 = d0;
                    while d1 < chars.len() && norm(chars[d1].1).is_ascii_digit() {
                        d1 += 1;
                    }
                    if d1 > d0 {
                        let b0 = chars[d0].0;
                        let b1 = chars.get(d1).map_or(line.len(), |c| c.0);
                        let digits: String = chars[d0..d1].iter().map(|c| norm(c.1)).collect();
                        if let Ok(v) = digits.parse() {
                            out.push(Site {
                                line: i + 1,
                                column: d0 + 1,
                                span: start + b0..start + b1,
                                value: v,
                                partner: None,
                                least: 1,
                                tier: 2,
                                effect: false,
                            });
                        }
                    }
                    k = d1;
                    continue;
                }
                k += 1;
            }
        } else if !skip {
            let mut names = Names::default();
            let mut toks = Vec::new();
            let mut diags: Vec<Diagnostic> = Vec::new();
            lex_line(text, start, end, &mut names, &mut toks, &mut diags);
            for (k, (t, sp)) in toks.iter().enumerate() {
                if let Tok::Int(v) = *t {
                    // A period (`@3/`, `＠３／`) is at least 1: `@0/` does not compile.
                    let before = text[start..sp.start].trim_end();
                    let period = before.ends_with('@') || before.ends_with('＠');
                    out.push(Site {
                        line: i + 1,
                        column: text[start..sp.start].chars().count() + 1,
                        span: sp.start..sp.end,
                        value: v,
                        partner: None,
                        least: i64::from(period),
                        tier: tier_of(text, kind, in_macros, &toks, k),
                        effect: kind == LineKind::Rule && !in_macros && is_effect_amount(&toks, k),
                    });
                }
            }
        }
        start += raw.len();
    }
    link_sites(text, &mut out);
    out
}

/// How readily a designer edits the number that is token `k` of a line of `kind` (the
/// order in which suggestions are offered, before the size of their change):
///
/// - 0: a **start value** (a number on a `!:` line) or a **named number** (a constant of a
///   `${}` block, `ハンデ:3`): the knobs a designer set out to tune;
/// - 1: a **cost**: what a command spends of its own side's state (`[走る]:S.体力-1`, a rule
///   whose conditions name a command), or what an availability line asks of it
///   (`S.チャージ>=3::[ビーム]`);
/// - 2: anything else: thresholds, effects, periods, the turn limit.
fn tier_of(text: &str, kind: LineKind, in_macros: bool, toks: &[Spanned], k: usize) -> u8 {
    if kind == LineKind::Init {
        return 0;
    }
    let sym = |j: usize, s: Sym| is_sym(toks, j, s);
    let own = |j: usize| {
        toks.get(j).is_some_and(|t| {
            matches!(t.0, Tok::Name(_))
                && text[t.1.start..t.1.end].chars().map(norm).eq("S".chars())
        })
    };
    if in_macros
        && toks.len() == 3
        && k == 2
        && matches!(toks[0].0, Tok::Name(_))
        && sym(1, Sym::Colon)
    {
        return 0;
    }
    let Some(split) = separator(toks) else {
        return 2;
    };
    let names_command = toks[..split].iter().any(|t| t.0 == Tok::Sym(Sym::LBrack));
    // `S.x-N` / `S.x-=N` among the effects of a command's rule.
    if k > split
        && k >= 4
        && (sym(k - 1, Sym::Minus) || sym(k - 1, Sym::MinusEq))
        && matches!(toks[k - 2].0, Tok::Name(_))
        && sym(k - 3, Sym::Dot)
        && own(k - 4)
        && names_command
    {
        return 1;
    }
    // `S.x>=N::[cmd]`: the amount a command asks for.
    if k < split
        && k >= 1
        && sym(split, Sym::DColon)
        && (sym(k - 1, Sym::Ge) || sym(k - 1, Sym::Gt))
        && toks[split + 1..]
            .iter()
            .any(|t| t.0 == Tok::Sym(Sym::LBrack))
    {
        return 1;
    }
    2
}

/// Whether token `j` of a line is the symbol `s`.
fn is_sym(toks: &[Spanned], j: usize, s: Sym) -> bool {
    toks.get(j).is_some_and(|t| t.0 == Tok::Sym(s))
}

/// A rule line's own separator (`:` or `::`): conditions before it, effects after.
fn separator(toks: &[Spanned]) -> Option<usize> {
    toks.iter()
        .position(|t| matches!(t.0, Tok::Sym(Sym::Colon | Sym::DColon)))
}

/// Whether token `k` (a number) of a rule line is the whole amount of an effect that adds to
/// or takes from a state: `side.state + N` (or `-`, `+=`, `-=`) standing alone between the
/// rule's separator or commas.
fn is_effect_amount(toks: &[Spanned], k: usize) -> bool {
    let sym = |j: usize, s: Sym| is_sym(toks, j, s);
    let name = |j: usize| toks.get(j).is_some_and(|t| matches!(t.0, Tok::Name(_)));
    let Some(split) = separator(toks) else {
        return false;
    };
    k >= split + 5
        && [Sym::Plus, Sym::Minus, Sym::PlusEq, Sym::MinusEq]
            .iter()
            .any(|&s| sym(k - 1, s))
        && name(k - 2)
        && sym(k - 3, Sym::Dot)
        && name(k - 4)
        && (k - 5 == split || sym(k - 5, Sym::Comma))
        && (k + 1 == toks.len() || sym(k + 1, Sym::Comma))
}

/// Numbers that move together, so an edit keeps what the designer wrote:
///
/// - a **transfer**: one rule moving the same state of the two sides by the same amount in
///   opposite directions (`O.余裕-1,S.余裕+1`): both amounts are edited together (a push stays
///   a push of one square, never a loss of one and a gain of two);
/// - **start values held together**: on a `!:` line marked `# kumite: together`, the two
///   sides' values of one state (`!:h.余裕=5,c.余裕=3  # kumite: together`) keep their sum
///   (Oshi-Zumo's `h.余裕 + c.余裕 = 2K+2`): one goes up by what the other goes down.
///
/// Read with full-width forms as ASCII (`！：ｈ．余裕＝５` links as `!:h.余裕=5` does).
fn link_sites(text: &str, sites: &mut [Site]) {
    use crate::syntax::lexer::norm;
    let at = |start: usize| sites.iter().position(|s| s.span.start == start);
    let mut links: Vec<(usize, usize, bool)> = Vec::new();
    let mut line_start = 0;
    for raw in text.split_inclusive('\n') {
        let written = raw.trim_end_matches(['\n', '\r']);
        // The line in ASCII forms, and for each of its bytes the written line's byte offset
        // of the character it came from.
        let mut ascii = String::with_capacity(written.len());
        let mut map: Vec<usize> = Vec::with_capacity(written.len() + 1);
        for (b, ch) in written.char_indices() {
            let before = ascii.len();
            ascii.push(norm(ch));
            map.extend(std::iter::repeat_n(b, ascii.len() - before));
        }
        map.push(written.len());
        let line = ascii.as_str();
        let (code, comment) = match line.find('#') {
            Some(h) => (&line[..h], &line[h + 1..]),
            None => (line, ""),
        };
        let together = comment
            .trim()
            .strip_prefix("kumite:")
            .is_some_and(|r| r.trim() == "together");
        // Items: (side prefix, state, sign, number's byte offset in the line).
        let mut items: Vec<(char, &str, i8, usize)> = Vec::new();
        let init = code.trim_start().starts_with("!:");
        let body_at = if init {
            code.find("!:").map(|k| k + 2)
        } else if code
            .trim_start()
            .starts_with(['[', 'S', 'O', 'h', 'c', '!', '@'])
        {
            // A rule: its effects follow the first ':' outside brackets.
            let mut depth = 0i32;
            code.char_indices()
                .find(|&(_, ch)| {
                    match ch {
                        '[' | '(' => depth += 1,
                        ']' | ')' => depth -= 1,
                        _ => {}
                    }
                    ch == ':' && depth == 0
                })
                .map(|(k, _)| k + 1 + usize::from(code[k + 1..].starts_with(':')))
        } else {
            None
        };
        let Some(body_at) = body_at else {
            line_start += raw.len();
            continue;
        };
        let mut off = body_at;
        for item in code[body_at..].split(',') {
            let t = item.trim_start();
            let lead = item.len() - t.len();
            let bytes = t.as_bytes();
            if bytes.len() > 2 && b"SOhc".contains(&bytes[0]) && bytes[1] == b'.' {
                let rest = &t[2..];
                if let Some(opk) = rest.find(['+', '-', '=']) {
                    let name = &rest[..opk];
                    let op = &rest[opk..];
                    let (sign, digits_at) = if init {
                        (0, op.strip_prefix('=').map(|_| 1))
                    } else if let Some(r) = op.strip_prefix("+=").or(op.strip_prefix('+')) {
                        (1, Some(op.len() - r.len()))
                    } else if let Some(r) = op.strip_prefix("-=").or(op.strip_prefix('-')) {
                        (-1, Some(op.len() - r.len()))
                    } else {
                        (0, None)
                    };
                    if let Some(d) = digits_at {
                        let num = op[d..].trim_end();
                        if !name.is_empty()
                            && !num.is_empty()
                            && num.bytes().all(|b| b.is_ascii_digit())
                        {
                            items.push((bytes[0] as char, name, sign, off + lead + 2 + opk + d));
                        }
                    }
                }
            }
            off += item.len() + 1;
        }
        for i in 0..items.len() {
            for j in i + 1..items.len() {
                let (a, b) = (items[i], items[j]);
                let pair = matches!(
                    (a.0, b.0),
                    ('S', 'O') | ('O', 'S') | ('h', 'c') | ('c', 'h')
                );
                if !pair || a.1 != b.1 {
                    continue;
                }
                let (Some(x), Some(y)) = (at(line_start + map[a.3]), at(line_start + map[b.3]))
                else {
                    continue;
                };
                if init && together {
                    links.push((x, y, true));
                } else if !init && a.2 == -b.2 && sites[x].value == sites[y].value {
                    links.push((x, y, false));
                }
            }
        }
        line_start += raw.len();
    }
    for (x, y, sum) in links {
        if sites[x].partner.is_none() && sites[y].partner.is_none() {
            sites[x].partner = Some((y, sum));
            sites[y].partner = Some((x, sum));
        }
    }
}

/// Start values one side has and the other has differently (`!:h.hp=14,c.hp=10`): for each
/// such number, the values within 2 of the other side's (the designer's first edit: a
/// planted head start 4 away was out of ±2's reach). The site's index and its values.
fn mirror_values(text: &str, all: &[Site]) -> Vec<(usize, Vec<i64>)> {
    use crate::syntax::lexer::norm;
    // `h.hp=` before the number, back to the item's start (`,` or `:`), as ASCII.
    let prefix = |s: &Site| -> Option<(char, String)> {
        let line_start = text[..s.span.start].rfind('\n').map_or(0, |i| i + 1);
        let before: String = text[line_start..s.span.start].chars().map(norm).collect();
        if !before.starts_with("!:") {
            return None;
        }
        let item = before.rsplit([',', ':']).next()?.trim();
        let name = item.strip_suffix('=')?;
        let (side, rest) = name.split_once('.')?;
        matches!(side, "h" | "c").then(|| (side.chars().next().unwrap_or('h'), rest.to_string()))
    };
    let named: Vec<Option<(char, String)>> = all.iter().map(prefix).collect();
    let mut out = Vec::new();
    for (k, n) in named.iter().enumerate() {
        let Some((side, name)) = n else { continue };
        let other = if *side == 'h' { 'c' } else { 'h' };
        let Some(j) = named.iter().position(|m| {
            m.as_ref()
                .is_some_and(|(s2, n2)| *s2 == other && n2 == name)
        }) else {
            continue;
        };
        let (v, w) = (all[k].value, all[j].value);
        if v == w {
            continue;
        }
        let values: Vec<i64> = (w - 2..=w + 2).filter(|&x| x >= 0 && x != v).collect();
        out.push((k, values));
    }
    out
}

/// `text` with the numbers at `sites` set to `values` (ASCII digits).
fn edited(text: &str, changes: &[(&Site, i64)]) -> String {
    let mut order: Vec<&(&Site, i64)> = changes.iter().collect();
    order.sort_by_key(|(s, _)| std::cmp::Reverse(s.span.start));
    let mut t = text.to_string();
    for (s, v) in order {
        t.replace_range(s.span.clone(), &v.to_string());
    }
    t
}

/// [`edited`] when the edit changes nothing but numbers' values (the token check of
/// [`crate::authoring::fmt::same_but_numbers`]); None (the edit is not tried) otherwise.
fn edited_checked(text: &str, changes: &[(&Site, i64)]) -> Option<String> {
    let t = edited(text, changes);
    crate::authoring::fmt::same_but_numbers(text, &t).then_some(t)
}

/// The balance of `text`: a simultaneous game's value as `kumite solve --value` computes it,
/// or an alternate game's sampled verdict of [`SAMPLE_GAMES`] games a seating; or why there is
/// none.
pub fn verdict_of(text: &str) -> Result<Verdict, SuggestError> {
    verdict_with(text, &super::Progress::new(), Judge::Decide)
}

/// `v` measured again on `text` the same way (a sampled verdict: the same games a seating and
/// seed): a suggestion's evidence replays exactly.
pub fn replay(text: &str, v: &Verdict) -> Result<Verdict, SuggestError> {
    let Some(s) = v.sample() else {
        return verdict_of(text);
    };
    let c = compile(text);
    let errors = c.error_count();
    let prog = c.program.ok_or(SuggestError::Errors(errors))?;
    Ok(sampled_verdict(
        &prog,
        s.games,
        s.seed,
        &super::Progress::new(),
    ))
}

/// How an alternate game is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Judge {
    /// Exactly if every position reachable fits [`ALTERNATE_EXACT_POSITIONS`], else sampled.
    Decide,
    /// By its game value (the file before the edits was solved exactly).
    Exact,
    /// By CPU games.
    Sampled,
}

/// An alternate game is judged by its exact value when all its positions number at most this
/// (a dice race, a small duel): listing them fails fast beyond.
const ALTERNATE_EXACT_POSITIONS: usize = 20_000;

/// A simultaneous game is judged by its value when value iteration settles within this work
/// ([`crate::search::exact::Iterated::solves`]: joint moves of the positions solved, over all
/// sweeps) over fewer than [`SIMULTANEOUS_SOLVE_POSITIONS`] positions; else by CPU games. A
/// budget in work, so that the choice is the same on any machine: 60 million is about 4 s of
/// the fencing duel's matrix games on the 2-core development machine (63 ns a joint move; CC
/// Lemon needs 92,000, Oshi-Zumo 171,000).
const SIMULTANEOUS_SOLVE_WORK: u64 = 60_000_000;

/// A safety stop on the time of that iteration, far past what the work budget takes here: only
/// a machine several times slower could reach it first.
const SIMULTANEOUS_SOLVE_TIME: Duration = Duration::from_secs(30);

/// See [`SIMULTANEOUS_SOLVE_TIME`].
const SIMULTANEOUS_SOLVE_POSITIONS: usize = 50_000;

/// A flag for work that polls a flag rather than the clock (the value iteration): set once
/// `progress` is cancelled or its cap passes, by a watcher thread that ends with the guard.
struct CapFlag {
    flag: Arc<std::sync::atomic::AtomicBool>,
    _stop: std::sync::mpsc::Sender<()>,
}

impl CapFlag {
    /// How often the watcher looks at the cap.
    const POLL: Duration = Duration::from_millis(20);

    fn watch(progress: &Arc<super::Progress>) -> Self {
        use std::sync::atomic::Ordering;
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(progress.cancelled()));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (f, p) = (flag.clone(), progress.clone());
        // If no thread can be made, the flag is only set here: the work runs uncapped.
        let _ = std::thread::Builder::new()
            .name("kumite-suggest-cap".into())
            .spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    rx.recv_timeout(Self::POLL)
                {
                    if p.cancelled() {
                        f.store(true, Ordering::Relaxed);
                        return;
                    }
                }
            });
        Self { flag, _stop: tx }
    }
}

fn verdict_with(
    text: &str,
    progress: &Arc<super::Progress>,
    judge: Judge,
) -> Result<Verdict, SuggestError> {
    let c = compile(text);
    let Some(prog) = c.program else {
        return Err(SuggestError::Errors(c.error_count()));
    };
    let simultaneous = prog.settings.simultaneous;
    if judge == Judge::Sampled {
        return Ok(sampled_verdict(&prog, SAMPLE_GAMES, SAMPLE_SEED, progress));
    }
    let eng = crate::search::search_engine(&prog);
    // The file's first mover (alternate games): the value is the game's as written.
    let first = crate::engine::Side::first_mover(prog.settings.cpu_first && !simultaneous);
    let st = eng
        .initial(first)
        .map_err(|e| SuggestError::Start(e.message))?;
    let max = if simultaneous {
        VALUE_POSITIONS
    } else {
        ALTERNATE_EXACT_POSITIONS
    };
    // The value iterations poll a flag, not the clock: it is set when the cap passes.
    let stop = CapFlag::watch(progress);
    if simultaneous && judge == Judge::Decide {
        // A simultaneous game whose value takes long to find (fencing: 63,672 positions, 28 s,
        // not converged) cannot have every edit solved: it is judged by CPU games instead.
        let gv = crate::search::solve::value_iteration_budgeted(
            &prog,
            &st,
            VALUE_BOUND,
            SIMULTANEOUS_SOLVE_POSITIONS,
            SIMULTANEOUS_SOLVE_TIME,
            Some(SIMULTANEOUS_SOLVE_WORK),
            Some(&stop.flag),
        )
        .ok_or(SuggestError::Cancelled)?;
        if gv.out_of_work || gv.timed_out || gv.states >= SIMULTANEOUS_SOLVE_POSITIONS {
            return Ok(sampled_verdict(&prog, SAMPLE_GAMES, SAMPLE_SEED, progress));
        }
        return Ok(verdict(&prog, &gv));
    }
    let gv =
        crate::search::solve::value_iteration_in(&prog, &st, VALUE_BOUND, max, Some(&stop.flag))
            .ok_or(SuggestError::Cancelled)?;
    drop(stop);
    let v = verdict(&prog, &gv);
    if !simultaneous && judge == Judge::Decide && v.method() != Method::Exact {
        return Ok(sampled_verdict(&prog, SAMPLE_GAMES, SAMPLE_SEED, progress));
    }
    Ok(v)
}

/// Games per seating of a sampled verdict when nothing is being compared (the file itself).
pub const SAMPLE_GAMES: u64 = 100;

/// Seed of the sampled verdicts' games: every candidate plays the same seeds (common random
/// numbers, so that differences between edits are not noise between seeds). They are the
/// report's outcome games at its default seed, so the file's own verdict ("now", 400 games a
/// seating) is what `kumite report FILE --games 400` shows.
const SAMPLE_SEED: u64 = super::DEFAULT_SEED ^ super::sections::SEED_OUTCOME;

/// Seed of the last round's games (the edits that reach it play fresh seeds, all the same):
/// the evidence shown is not the games the edits were picked on, so picking the best of many
/// noisy estimates does not flatter them.
const CONFIRM_SEED: u64 = 0xC0F1_53ED;

/// An alternate game's balance from CPU games: the report's CPU (one reading mistake in ten
/// moves, a node budget per move, so the games replay exactly) against itself, `games` games
/// with h moving first and `games` with c moving first. `value` is h's score − ½ over both.
fn sampled_verdict(
    prog: &crate::program::RuleProgram,
    games: u64,
    seed: u64,
    progress: &Arc<super::Progress>,
) -> Verdict {
    let spec = super::varied_cpu("cpu", prog);
    sampled_verdict_by(prog, &spec, games, seed, progress)
}

/// [`sampled_verdict`] with the players `spec` (both sides).
fn sampled_verdict_by(
    prog: &crate::program::RuleProgram,
    spec: &str,
    games: u64,
    seed: u64,
    progress: &Arc<super::Progress>,
) -> Verdict {
    use super::games::{GameSet, play_set};
    use crate::engine::Side;
    let mut per = Vec::new();
    let mut sets = Vec::new();
    for first in [Side::H, Side::C] {
        let set = GameSet {
            prog,
            // An edited text's rules: a learned evaluation of the file's would not fit them.
            config: &crate::program::RunConfig::default(),
            players: [spec, spec],
            first,
            games,
            seed: seed ^ (first as u64) << 40,
            count_rules: false,
            record_uses: false,
            tension: None,
            jobs: None,
            ai_timeout: super::games::AI_TIMEOUT,
        };
        let recs = play_set(&set, progress).unwrap_or_default();
        per.push(super::Outcomes::of(&recs));
        sets.push(recs);
    }
    let varied = super::games::varied(sets.iter().map(Vec::as_slice));
    let distinct = super::games::distinct_games(sets.iter().flatten());
    let n: u64 = per.iter().map(super::Outcomes::scored).sum();
    let h = (per[0].score(Side::H) * per[0].scored() as f64
        + per[1].score(Side::H) * per[1].scored() as f64)
        / n.max(1) as f64;
    let mover = (per[0].score(Side::H) * per[0].scored() as f64
        + per[1].score(Side::C) * per[1].scored() as f64)
        / n.max(1) as f64;
    let undecided: u64 = per.iter().map(|o| o.draws + o.timeouts).sum();
    let errors: u64 = per.iter().map(|o| o.errors).sum();
    let played: u64 = per.iter().map(super::Outcomes::games).sum();
    let first_error = progress
        .problems
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .first_rule_error
        .clone();
    // One game repeated is one observation: no interval (the report's rule).
    let bounds = |x: f64| {
        if varied {
            let (lo, hi) = super::wilson_bounds(x, n);
            (lo - 0.5, hi - 0.5)
        } else {
            (x - 0.5, x - 0.5)
        }
    };
    let (hl, hh) = bounds(h);
    let (ml, mh) = bounds(mover);
    Verdict {
        value: h - 0.5,
        how: if varied {
            format!(
                "{games} games per seating ({n} in all, {distinct} different) of {spec} against itself, {}",
                if seed == SAMPLE_SEED {
                    "the same seeds for every edit"
                } else {
                    "on fresh seeds (not those the edits were picked on), the same for every edit"
                }
            )
        } else {
            format!(
                "{spec} against itself plays one game over and over in each seating ({distinct} different in {n}): nothing random is left in the rules or the players, so the scores are those games', not a sample"
            )
        },
        draws: undecided as f64 / n.max(1) as f64,
        turns: Some(
            sets.iter()
                .flatten()
                .map(|r| f64::from(r.turns))
                .sum::<f64>()
                / n.max(1) as f64,
        ),
        rule_errors: (errors > 0).then(|| {
            format!(
                "{errors} of {played} games ended in a rule error (left out of the score); first: {}",
                first_error.as_deref().unwrap_or("?")
            )
        }),
        errors_decide: super::errors_decide(errors, played),
        evidence: Evidence::Sampled(Sample {
            games,
            players: spec.to_string(),
            interval: varied.then_some((hl, hh)),
            // Both choose at once: nobody moves first.
            first_mover: (!prog.settings.simultaneous).then_some((mover - 0.5, ml, mh)),
            distinct_games: distinct,
            seed,
            nodes_a_move: {
                let (nodes, moves) = sets.iter().flatten().fold((0u64, 0u64), |(n, m), r| {
                    (n + r.nodes, m + u64::from(r.choices))
                });
                nodes as f64 / moves.max(1) as f64
            },
            lead: start_lead(prog),
        }),
    }
}

fn verdict(prog: &crate::program::RuleProgram, gv: &GameValue) -> Verdict {
    let converged = gv.residual < 1e-10;
    let exact = gv.frontier == 0 && converged;
    let mix = |v: &[(Option<u32>, f64)]| -> Vec<(String, f64)> {
        v.iter()
            .filter(|(_, p)| *p > 1e-9)
            .map(|(m, p)| {
                (
                    m.map_or("pass".to_string(), |c| prog.commands[c as usize].clone()),
                    *p,
                )
            })
            .collect()
    };
    let mut how = gv.positions_text();
    if !converged {
        how.push_str(&format!(
            "; not converged ({} iterations, last change {:.1e})",
            gv.iterations, gv.residual
        ));
    }
    Verdict {
        value: if gv.value.abs() < 1e-12 {
            0.0
        } else {
            gv.value
        },
        how,
        draws: (1.0 - gv.decisive).clamp(0.0, 1.0),
        turns: gv.length,
        rule_errors: gv.errors_text(),
        errors_decide: false,
        evidence: Evidence::Solved(Solution {
            exact,
            h_mix: mix(&gv.h),
            c_mix: mix(&gv.c),
            unused: unused(prog, gv),
        }),
    }
}

fn meets(g: &Goals, v: &Verdict) -> bool {
    !v.errors_decide
        && distance(v) <= g.max_abs_value + 1e-12
        && v.draws <= g.max_draws + 1e-9
        && (!g.every_command || v.solution().is_some_and(|s| s.unused.is_empty()))
        && g.max_turns
            .is_none_or(|m| v.turns.is_some_and(|t| t <= m + 1e-9))
}

/// The commands of each side that optimal play never plays (see [`GameValue::used`]).
fn unused(prog: &crate::program::RuleProgram, gv: &GameValue) -> Vec<String> {
    let mut out = Vec::new();
    for (side, name) in [(0, "h"), (1, "c")] {
        for (c, cmd) in prog.commands.iter().enumerate() {
            if !gv.used[side].contains(&Some(c as u32)) {
                out.push(format!("{name} [{cmd}]"));
            }
        }
    }
    out
}

/// Whether a sampled verdict's intervals reach into the goals' band: its h score's and its
/// first mover's both overlap ±`max_abs_value`.
fn within_noise(g: &Goals, v: &Verdict) -> bool {
    let band = g.max_abs_value;
    let overlaps = |lo: f64, hi: f64| lo <= band && hi >= -band;
    match (v.interval(), v.first_mover()) {
        (Some((lo, hi)), Some((_, flo, fhi))) => overlaps(lo, hi) && overlaps(flo, fhi),
        (Some((lo, hi)), None) => overlaps(lo, hi),
        _ => false,
    }
}

/// Whether an interval of a sampled verdict reaches outside the goals' band around even (the
/// estimate may be inside it).
fn reaches_out(g: &Goals, v: &Verdict) -> bool {
    let band = g.max_abs_value;
    let out = |lo: f64, hi: f64| lo < -band || hi > band;
    v.interval().is_some_and(|(lo, hi)| out(lo, hi))
        || v.first_mover().is_some_and(|(_, lo, hi)| out(lo, hi))
}

/// How far from even: the value's size, or (sampled) the larger of h's and the first mover's
/// distance from ½.
fn distance(v: &Verdict) -> f64 {
    v.value
        .abs()
        .max(v.first_mover().map_or(0.0, |f| f.0.abs()))
}

/// Commands entering (+name) or leaving (−name) either side's start mix (solved verdicts; a
/// sampled verdict has no mix).
fn mix_changes(a: &Verdict, b: &Verdict) -> Vec<String> {
    let ([ah, ac], [bh, bc]) = (a.mixes(), b.mixes());
    let mut out = Vec::new();
    for (side, x, y) in [("h", ah, bh), ("c", ac, bc)] {
        for (m, _) in y {
            if !x.iter().any(|(n, _)| n == m) {
                out.push(format!("{side} +{m}"));
            }
        }
        for (m, _) in x {
            if !y.iter().any(|(n, _)| n == m) {
                out.push(format!("{side} −{m}"));
            }
        }
    }
    out
}

fn line_of(text: &str, line: usize) -> String {
    text.lines().nth(line - 1).unwrap_or("").trim().to_string()
}

/// Searches for the smallest edits of `text`'s numbers that meet the goals.
pub fn suggest(text: &str, opts: &SuggestOptions) -> Result<Suggestions, SuggestError> {
    let mut out = suggest_balance(text, opts)?;
    check_deeper(text, opts, &mut out);
    if !opts.goals.skill_matters {
        return Ok(out);
    }
    // Skill is checked on the file and on each suggestion the balance search found (each
    // check plays up to 200 games: too many to check every edit tried).
    let t0 = Instant::now();
    out.goals.push(
        "skill matters: random loses to the deepest CPU level (checked on the file and on each suggestion, not during the search)"
            .into(),
    );
    if let Some(prog) = compile(text).program {
        let before = skill_check(&prog, &opts.progress);
        if !before.matters {
            out.already_met = false;
        }
        out.before_skill = Some(before);
    }
    let found = std::mem::take(&mut out.suggestions);
    if opts.progress.cancelled() {
        // Past the cap (or cancelled): skill cannot be checked on them, so none is offered.
        out.dropped_for_skill += found.len();
        out.gave_up.get_or_insert_with(|| {
            "the cap passed (or a cancel came) before skill was checked on the suggestions".into()
        });
        out.seconds += t0.elapsed().as_secs_f64();
        return Ok(out);
    }
    for mut sg in found {
        let edited_text = apply_edits(text, &sg.edits);
        if let Some(prog) = compile(&edited_text).program {
            let check = skill_check(&prog, &opts.progress);
            let matters = check.matters;
            sg.skill = Some(check);
            if matters {
                out.suggestions.push(sg);
                continue;
            }
        }
        out.dropped_for_skill += 1;
    }
    out.seconds += t0.elapsed().as_secs_f64();
    Ok(out)
}

/// Games a seating of the depth check (the report's: a quarter of its outcome games).
const DEEPER_GAMES: u64 = SAMPLE_GAMES / 4;

/// Seed of the depth check's games: the report's at its default seed.
const DEEPER_SEED: u64 = super::DEFAULT_SEED ^ super::sections::SEED_DEPTH;

/// The report's depth check on `text` (a sampled verdict `base`): None when the players are not
/// CPUs that can look deeper, or the cap came first.
fn deeper_check(
    text: &str,
    base: &Verdict,
    progress: &Arc<super::Progress>,
) -> Option<DeeperCheck> {
    let prog = compile(text).program?;
    let spec = super::varied_cpu("cpu", &prog);
    let players = super::sections::deeper(&spec, &prog, super::sections::DEPTH_CHECK_PLIES)?;
    let verdict = sampled_verdict_by(&prog, &players, DEEPER_GAMES, DEEPER_SEED, progress);
    if progress.cancelled() {
        return None;
    }
    // Both figures the goals read: h's score, and the first mover's advantage where there is
    // one (alternate games). Each within 10 points agrees; further apart with intervals that
    // do not overlap disagrees; the check agrees when both do, disagrees when either does.
    let one = |a: (f64, f64, f64), b: (f64, f64, f64)| {
        if (a.0 - b.0).abs() <= super::SKILL_POINTS {
            Some(true)
        } else {
            (!(a.1 <= b.2 && b.1 <= a.2)).then_some(false)
        }
    };
    let score = |v: &Verdict| {
        let (lo, hi) = v.interval().unwrap_or((v.value, v.value));
        (v.value, lo, hi)
    };
    let mut checks = vec![one(score(base), score(&verdict))];
    if let (Some(a), Some(b)) = (base.first_mover(), verdict.first_mover()) {
        checks.push(one(a, b));
    }
    let agrees = if checks.contains(&Some(false)) {
        Some(false)
    } else if checks.contains(&None) {
        None
    } else {
        Some(true)
    };
    Some(DeeperCheck {
        players,
        verdict,
        agrees,
    })
}

/// The depth check on a sampled file and on each suggestion: where deeper CPUs disagree, the
/// verdict depends on how deep the CPU looks, and the output says so beside it.
fn check_deeper(text: &str, opts: &SuggestOptions, out: &mut Suggestions) {
    if out.before.method() != Method::Sampled || out.before.errors_decide {
        return;
    }
    let t0 = Instant::now();
    out.before_deeper = deeper_check(text, &out.before, &opts.progress);
    for sg in &mut out.suggestions {
        if opts.progress.cancelled() {
            break;
        }
        sg.deeper = deeper_check(&apply_edits(text, &sg.edits), &sg.after, &opts.progress);
    }
    if opts.progress.cancelled() {
        out.gave_up.get_or_insert_with(|| {
            "the cap passed (or a cancel came) before the depth check was done".into()
        });
    }
    out.seconds += t0.elapsed().as_secs_f64();
}

/// A depth check in words.
fn deeper_text(d: &DeeperCheck) -> String {
    format!(
        "deeper CPUs ({}): {} — {}",
        d.players,
        evidence_figures(&d.verdict),
        match d.agrees {
            Some(true) => "agree",
            Some(false) => "DISAGREE: the verdict depends on how deep the CPU looks",
            None => "differ by more than 10 points, too few games to tell",
        }
    )
}

/// What an edit must keep of the file's design: the victory rules that can decide a game from
/// the start (the victory tree reaches them for a side), and the checker's warnings (by code
/// and line: an edit changes numbers only, never lines).
struct Design {
    deciding: Vec<usize>,
    warnings: std::collections::HashSet<(String, usize)>,
    /// Source lines with a rule that could fire (not proved dead by [`super::reach`]), and
    /// per line how many of its rules' comparisons hold in every reachable position.
    live: Vec<usize>,
    vacuous: std::collections::BTreeMap<usize, usize>,
}

/// Source lines with a rule the reachability analysis does not prove unable to fire, and per
/// source line the comparisons that hold in every reachable position.
fn live_lines(
    prog: &crate::program::RuleProgram,
) -> (Vec<usize>, std::collections::BTreeMap<usize, usize>) {
    let (dead, vacuous) = super::reach::dead_and_vacuous(prog);
    let mut lines: Vec<usize> = prog
        .meta
        .iter()
        .zip(&dead)
        .filter(|(_, dead)| !**dead)
        .map(|(m, _)| m.origin.line)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    let mut per_line = std::collections::BTreeMap::new();
    for (m, n) in prog.meta.iter().zip(vacuous) {
        *per_line.entry(m.origin.line).or_insert(0) += n;
    }
    (lines, per_line)
}

impl Design {
    fn of(text: &str) -> Option<Self> {
        let c = compile(text);
        let prog = c.program.as_ref()?;
        let (live, vacuous) = live_lines(prog);
        Some(Self {
            deciding: deciding_lines(prog),
            warnings: warnings_of(text, &c.diags),
            live,
            vacuous,
        })
    }

    /// Why `text` (the file with an edit) breaks the design, if it does.
    fn broken_by(&self, text: &str) -> Option<String> {
        let c = compile(text);
        let Some(prog) = c.program.as_ref() else {
            return Some("the edited file does not compile".into());
        };
        let now = deciding_lines(prog);
        if let Some(l) = self.deciding.iter().find(|l| !now.contains(l)) {
            return Some(format!(
                "the victory rule at line {l} can no longer decide a game (the victory tree finds no way to it)"
            ));
        }
        let (live, vacuous) = live_lines(prog);
        if let Some(l) = self.live.iter().find(|l| live.binary_search(l).is_err()) {
            return Some(format!(
                "line {l} could fire and now cannot (no reachable value satisfies its conditions)"
            ));
        }
        if let Some((l, _)) = vacuous
            .iter()
            .find(|(l, n)| **n > self.vacuous.get(l).copied().unwrap_or(0))
        {
            return Some(format!(
                "a condition at line {l} now holds in every reachable position: it no longer asks anything"
            ));
        }
        let mut new: Vec<(String, usize)> = warnings_of(text, &c.diags)
            .into_iter()
            .filter(|w| !self.warnings.contains(w))
            .collect();
        new.sort();
        new.first().map(|(code, line)| {
            let msg = c
                .diags
                .iter()
                .find(|d| d.code.to_string() == *code)
                .map_or(String::new(), |d| format!(": {}", d.message));
            format!("a new warning at line {line}, {code}{msg}")
        })
    }
}

/// Whether `t` (the file with `changes`) breaks the design; if so it is counted, and one of
/// the first few is kept as an example.
fn rejects(
    design: Option<&Design>,
    text: &str,
    t: &str,
    changes: &[(&Site, i64)],
    out: &mut Suggestions,
) -> bool {
    // What the victory tree and the checker say first; then an effect's amount taken to 0:
    // the effect is gone (a push that no longer pushes).
    let why = design.and_then(|d| d.broken_by(t)).or_else(|| {
        changes
            .iter()
            .find(|(s, v)| s.effect && *v == 0 && s.value != 0)
            .map(|(s, _)| {
                format!(
                    "the effect at line {}:{} would do nothing (+0): the rule loses it",
                    s.line, s.column
                )
            })
    });
    let Some(why) = why else {
        return false;
    };
    count_rejected(out, text, t, changes, &why);
    true
}

/// Why an edited file's play no longer is the design's, if it is not: no game has a winner any
/// more (where some had), or games last less than half or more than twice as long on average
/// (a pace the goals did not ask for: with `--max-turns` below the file's length, down to half
/// of that is allowed). Both are even, and no fix: bids made pointless in Oshi-Zumo (every
/// game a draw) were all five suggestions under --max-draws 1.
fn breaks_play(before: &Verdict, after: &Verdict, goals: &Goals) -> Option<String> {
    if after.draws >= 0.999 && before.draws < 0.999 {
        return Some("no game has a winner any more".into());
    }
    let (Some(b), Some(a)) = (before.turns, after.turns) else {
        return None;
    };
    let least = goals.max_turns.map_or(b, |m| m.min(b)) / 2.0;
    if b >= 2.0 && (a < least || a > 2.0 * b) {
        return Some(format!(
            "games last {a:.1} turns on average, {} {b:.1}: the game's pace is not kept",
            if a < b { "down from" } else { "up from" }
        ));
    }
    None
}

/// Counts an edit rejected for breaking the design (`why`), keeping the first few as examples.
fn count_rejected(out: &mut Suggestions, text: &str, t: &str, changes: &[(&Site, i64)], why: &str) {
    out.rejected += 1;
    if out.rejected_examples.len() < 5 {
        let what: Vec<String> = changes
            .iter()
            .map(|(s, _)| {
                format!(
                    "line {}: {} → {}",
                    s.line,
                    line_of(text, s.line),
                    line_of(t, s.line)
                )
            })
            .collect();
        out.rejected_examples
            .push(format!("{}: {why}", what.join("; ")));
    }
}

/// The lines of the victory rules some side can reach from the start, by the victory tree.
fn deciding_lines(prog: &crate::program::RuleProgram) -> Vec<usize> {
    let g = crate::analysis::VictoryGraph::build(prog);
    let eng = crate::engine::Engine::new(prog, 0);
    let first = crate::engine::Side::first_mover(prog.settings.cpu_first);
    let Ok(st) = eng.initial(first) else {
        return Vec::new();
    };
    let d = [crate::engine::Side::H, crate::engine::Side::C]
        .map(|x| crate::analysis::distances(&g, &eng, &st, x));
    g.decisive
        .iter()
        .enumerate()
        .filter(|(di, _)| {
            d.iter()
                .any(|d| d.decisive[*di] < crate::analysis::UNREACHABLE)
        })
        .map(|(_, r)| r.line)
        .collect()
}

/// The checker's warnings of `text` by code and line.
fn warnings_of(
    text: &str,
    diags: &[crate::diag::Diagnostic],
) -> std::collections::HashSet<(String, usize)> {
    diags
        .iter()
        .filter(|d| !d.is_error())
        .map(|d| {
            let line = text[..d.span.start.min(text.len())].matches('\n').count() + 1;
            (d.code.to_string(), line)
        })
        .collect()
}

/// `text` with `edits` applied (each at its line and column, replacing `from` by `to`).
fn apply_edits(text: &str, edits: &[Edit]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for e in edits {
        if let Some(l) = lines.get_mut(e.line - 1)
            && let Some((at, _)) = l.char_indices().nth(e.column - 1)
            && l[at..].starts_with(&e.from)
        {
            l.replace_range(at..at + e.from.len(), &e.to);
        }
    }
    lines.join("\n") + "\n"
}

/// The balance goals' search (everything but the skill check): the file measured, then its
/// edits searched the way the file was judged (CPU games, or solved exactly).
fn suggest_balance(text: &str, opts: &SuggestOptions) -> Result<Suggestions, SuggestError> {
    let t0 = Instant::now();
    // The cap counts from here: the file's own measurement is inside it.
    opts.progress.set_cap(t0 + opts.budget);
    let before = measure_file(text, opts)?;
    // Numbers the designer holds (`--keep`, `# kumite: keep`) are not editable.
    let mut kept_at: Vec<usize> = kept_lines(text);
    kept_at.extend(&opts.keep);
    kept_at.sort_unstable();
    kept_at.dedup();
    let (held, all): (Vec<Site>, Vec<Site>) = sites(text)
        .into_iter()
        .partition(|s| kept_at.binary_search(&s.line).is_ok());
    // What every edit must keep (an edit that breaks it is rejected before it is measured).
    let design = Design::of(text);
    let mut out = Suggestions {
        goals: goal_lines(&opts.goals, &before),
        already_met: meets(&opts.goals, &before),
        before_skill: None,
        before_deeper: None,
        dropped_for_skill: 0,
        before: before.clone(),
        suggestions: Vec::new(),
        nearest: Vec::new(),
        tried: 0,
        sites: all.len(),
        kept: held.len(),
        // The held lines that hold numbers (a range past the file's end names nothing).
        kept_lines: {
            let mut l: Vec<usize> = held.iter().map(|s| s.line).collect();
            l.dedup();
            l
        },
        seconds: 0.0,
        gave_up: None,
        plan_note: None,
        rejected: 0,
        rejected_examples: Vec::new(),
    };
    if out.already_met {
        out.seconds = t0.elapsed().as_secs_f64();
        return Ok(out);
    }
    let make = |changes: &[(&Site, i64)], after: Verdict| -> Suggestion {
        suggestion(text, &before, changes, after)
    };
    // The edited files are judged as the file is: an alternate game solved exactly stays so.
    let search = EditSearch {
        text,
        all: &all,
        opts,
        make: &make,
        design: design.as_ref(),
    };
    if before.method() == Method::Sampled {
        sampled_search(search, &mut out);
    } else {
        exact_search(search, &mut out);
    }
    out.seconds = t0.elapsed().as_secs_f64();
    Ok(out)
}

/// The file's own verdict for the search: judged as [`verdict_of`] judges it, and a sampled
/// verdict too close to the goals' edge to tell measured again on four times the games (when
/// they fit the plan). Err when the cap or a cancel came first.
fn measure_file(text: &str, opts: &SuggestOptions) -> Result<Verdict, SuggestError> {
    let mut before = match verdict_with(text, &opts.progress, Judge::Decide) {
        Ok(v) => v,
        Err(_) if opts.progress.cancelled() => return Err(stopped_measuring(opts)),
        Err(e) => return Err(e),
    };
    let met = meets(&opts.goals, &before);
    if before.method() == Method::Sampled
        && (if met {
            reaches_out(&opts.goals, &before)
        } else {
            within_noise(&opts.goals, &before)
        })
        && (8 * SAMPLE_GAMES) as f64 * work_a_game(&before) <= opts.moves as f64 / 4.0
    {
        // Outside the goals by the estimate, inside them by its interval, or inside by the
        // estimate and outside by the interval: too few games to tell. Four times as many
        // decide it better (the interval halves), when they take at most a quarter of the
        // games planned.
        if let Some(prog) = compile(text).program {
            before = sampled_verdict(&prog, 4 * SAMPLE_GAMES, SAMPLE_SEED, &opts.progress);
        }
    }
    if opts.progress.cancelled() {
        return Err(stopped_measuring(opts));
    }
    Ok(before)
}

/// Stopped while measuring the file itself: no figure of it to stand on.
fn stopped_measuring(opts: &SuggestOptions) -> SuggestError {
    if opts.progress.past_cap() {
        SuggestError::CapWhileMeasuring {
            seconds: opts.budget.as_secs_f64(),
            games: opts
                .progress
                .done
                .load(std::sync::atomic::Ordering::Relaxed),
        }
    } else {
        SuggestError::CancelledWhileMeasuring
    }
}

/// Why there is no verdict, or no search: each worded as the command line says it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SuggestError {
    /// The text does not compile (its error count).
    #[error("the file has {0} error(s)")]
    Errors(usize),
    /// A rule error in the start position.
    #[error("runtime error in the initial position: {0}")]
    Start(String),
    /// Cancelled (or past the cap) inside a measurement.
    #[error("cancelled")]
    Cancelled,
    /// The cap passed while the file itself was measured.
    #[error(
        "the {seconds} s cap passed while the file itself was measured ({games} games played): nothing was tried"
    )]
    CapWhileMeasuring {
        /// The cap, in seconds.
        seconds: f64,
        /// Games played by then.
        games: u64,
    },
    /// Cancelled while the file itself was measured.
    #[error("cancelled while the file itself was measured")]
    CancelledWhileMeasuring,
}

/// The goals in words, as the file's verdict `before` can judge them (by CPU games, or under
/// optimal play).
fn goal_lines(goals: &Goals, before: &Verdict) -> Vec<String> {
    let sampled = before.method() == Method::Sampled;
    let mut lines = vec![
        if sampled && before.first_mover().is_none() {
            format!(
                "h's score within 50% ± {} points (CPU games: the game is too large to solve for every edit)",
                100.0 * goals.max_abs_value
            )
        } else if sampled {
            format!(
                "h's score and the first mover's within 50% ± {} points",
                100.0 * goals.max_abs_value
            )
        } else {
            format!(
                "game value for h within ±{} (± {} points, the report's unit; 0 = even)",
                goals.max_abs_value,
                100.0 * goals.max_abs_value
            )
        },
        format!(
            "at most {:.0}% of games end without a winner ({})",
            100.0 * goals.max_draws,
            if sampled {
                "in the CPU games"
            } else {
                "under optimal play"
            }
        ),
    ];
    if let Some(t) = goals.max_turns {
        lines.push(if sampled {
            format!("games last at most {t} turns on average (in the CPU games)")
        } else {
            format!("games last at most {t} turns on average under optimal play")
        });
    }
    if goals.every_command {
        lines.push(if sampled {
            "every command played by optimal play somewhere (cannot be judged from CPU games: not met)".into()
        } else {
            "every command played by optimal play in some position".into()
        });
    }
    lines
}

/// A suggestion: `changes` to `text` (whose verdict is `before`), and the edited file's
/// verdict.
fn suggestion(
    text: &str,
    before: &Verdict,
    changes: &[(&Site, i64)],
    after: Verdict,
) -> Suggestion {
    let new_text = edited(text, changes);
    let mut edits: Vec<Edit> = changes
        .iter()
        .map(|(s, v)| Edit {
            line: s.line,
            column: s.column,
            from: text[s.span.clone()].to_string(),
            to: v.to_string(),
            before_line: line_of(text, s.line),
            after_line: line_of(&new_text, s.line),
            tier: s.tier,
        })
        .collect();
    edits.sort_by_key(|e| (e.line, e.column));
    let method = if after.method() == Method::Sampled {
        Method::Sampled
    } else if before.method() == Method::Exact && after.method() == Method::Exact {
        Method::Exact
    } else {
        Method::Estimated
    };
    Suggestion {
        edits,
        mix_changes: mix_changes(before, &after),
        before: before.clone(),
        after,
        method,
        skill: None,
        deeper: None,
    }
}

/// What every edit of one search is made against: the file, its editable numbers, the
/// options, how a suggestion is made, and the design an edit must keep.
#[derive(Clone, Copy)]
struct EditSearch<'a> {
    text: &'a str,
    all: &'a [Site],
    opts: &'a SuggestOptions,
    make: &'a MakeSuggestion<'a>,
    design: Option<&'a Design>,
}

impl EditSearch<'_> {
    /// The file `changes` make, to be measured — counted as tried — when it changes nothing
    /// but numbers and keeps the design (a rejected one is counted in `out` instead).
    fn edit(&self, changes: &[(&Site, i64)], out: &mut Suggestions) -> Option<String> {
        let t = edited_checked(self.text, changes)?;
        if rejects(self.design, self.text, &t, changes, out) {
            return None;
        }
        out.tried += 1;
        Some(t)
    }
}

/// The search on a file solved exactly (or estimated), every edited file solved the same way:
/// single edits by the smallest changes first ([`exact_singles`]); when none meets the goals,
/// the numbers that moved toward even followed further ([`exact_follow`]); then pairs of the
/// single edits that came nearest ([`exact_pairs`]).
fn exact_search(search: EditSearch, out: &mut Suggestions) {
    let EditSearch {
        all, opts, make, ..
    } = search;
    // An edit and its partner's make the same file: measured once.
    let mut files = std::collections::HashSet::new();
    let mut near = exact_singles(search, out, &mut files);
    near.sort_by(|a, b| a.0.total_cmp(&b.0));
    if out.suggestions.is_empty() && out.gave_up.is_none() {
        exact_follow(search, out, &near, &mut files);
    }
    // Pairs of the single edits that came nearest, when no single edit was enough.
    near.truncate(8);
    if out.suggestions.is_empty() && opts.max_edits >= 2 && out.gave_up.is_none() {
        exact_pairs(search, out, &near);
    }
    rank(&mut out.suggestions);
    out.suggestions.truncate(opts.max_suggestions);
    if out.suggestions.is_empty() {
        out.nearest = nearest(&near, all, make, &opts.goals);
    }
}

/// Single edits, solved exactly, the smallest changes first: rounds of a start value that one
/// side has and the other has differently, brought near the other side's (a head start is what
/// a designer evens out first), then every number by ±1, ±2, ±3. Those that meet the goals are
/// suggested; returned are those that came nearer even (or, with the every-command goal, left
/// fewer commands unused) without too many draws.
fn exact_singles(
    search: EditSearch,
    out: &mut Suggestions,
    files: &mut std::collections::HashSet<Vec<(usize, i64)>>,
) -> Vec<Tried> {
    let EditSearch {
        text,
        all,
        opts,
        make,
        ..
    } = search;
    let before = out.before.clone();
    let mut near: Vec<Tried> = Vec::new();
    let mut rounds: Vec<(i64, Vec<(usize, i64)>)> = vec![(
        0,
        mirror_values(text, all)
            .into_iter()
            .flat_map(|(k, vs)| vs.into_iter().map(move |v| (k, v)))
            .collect(),
    )];
    for delta in [1i64, -1, 2, -2, 3, -3] {
        let round = all
            .iter()
            .enumerate()
            .map(|(k, s)| (k, s.value + delta))
            .filter(|&(k, v)| v >= all[k].least && !rounds[0].1.contains(&(k, v)))
            .collect();
        rounds.push((delta, round));
    }
    'deltas: for (delta, round) in rounds {
        for (k, v) in round {
            if let Some(why) = stopped(opts, out.tried) {
                out.gave_up = Some(if delta == 0 {
                    format!("{why} (start values near the other side's)")
                } else {
                    format!("{why} (single edits by up to ±{})", delta.abs())
                });
                break 'deltas;
            }
            // An edit and its partner's make the same file: measured once.
            if !files.insert(change_key(all, &[(k, v)])) {
                continue;
            }
            let one = changes_of(all, &[(k, v)]);
            let Some(t) = search.edit(&one, out) else {
                continue;
            };
            let Ok(after) = verdict_with(&t, &opts.progress, Judge::Exact) else {
                continue;
            };
            if let Some(why) = breaks_play(&out.before, &after, &opts.goals) {
                count_rejected(out, text, &t, &one, &why);
            } else if meets(&opts.goals, &after) {
                out.suggestions.push(make(&one, after));
            } else if (after.value.abs() < before.value.abs()
                || (opts.goals.every_command && after.unused().len() < before.unused().len()))
                && after.draws <= opts.goals.max_draws
            {
                near.push((after.value.abs(), vec![(k, v)], after));
            }
        }
        if out.suggestions.len() >= opts.max_suggestions {
            break;
        }
    }
    near
}

/// Beyond ±3: a number whose step moved the value toward even (`near`, nearest first) is
/// followed further that way — doubling steps until the value crosses even or the goals are
/// met — and then bisected between the last two (the value taken as monotone in the number
/// there), so a fix 5 or 40 away costs a few solves, not one per step. The smallest change of
/// each number that meets the goals is suggested.
fn exact_follow(
    search: EditSearch,
    out: &mut Suggestions,
    near: &[Tried],
    files: &mut std::collections::HashSet<Vec<(usize, i64)>>,
) {
    let EditSearch {
        text,
        all,
        opts,
        make,
        ..
    } = search;
    let mut ways: Vec<(usize, i64)> = Vec::new();
    for (_, ch, _) in near {
        let (k, v) = ch[0];
        let dir = (v - all[k].value).signum();
        if dir != 0 && !ways.contains(&(k, dir)) {
            ways.push((k, dir));
        }
    }
    ways.truncate(8);
    let sign0 = out.before.value.signum();
    for (k, dir) in ways {
        if let Some(why) = stopped(opts, out.tried) {
            out.gave_up = Some(format!("{why} (following numbers beyond ±3)"));
            break;
        }
        let v0 = all[k].value;
        // The verdict at value x (None: not measurable — an error, a rejected edit, a
        // cap — which ends the way).
        let mut at = |x: i64, out: &mut Suggestions| -> Option<Verdict> {
            if stopped(opts, out.tried).is_some() || !files.insert(change_key(all, &[(k, x)])) {
                return None;
            }
            let one = changes_of(all, &[(k, x)]);
            let t = search.edit(&one, out)?;
            let after = verdict_with(&t, &opts.progress, Judge::Exact).ok()?;
            if let Some(why) = breaks_play(&out.before, &after, &opts.goals) {
                count_rejected(out, text, &t, &one, &why);
                return None;
            }
            Some(after)
        };
        let crossed = |v: &Verdict| v.value.signum() != sign0 || meets(&opts.goals, v);
        let limit = v0.unsigned_abs().saturating_mul(4).clamp(64, 1 << 20) as i64;
        let found: Vec<(i64, Verdict)> = follow(
            Way {
                from: v0,
                dir,
                tried: 3,
                least: all[k].least,
                limit,
            },
            |x| at(x, out),
            crossed,
        )
        .into_iter()
        .filter(|(_, f)| meets(&opts.goals, f))
        .collect();
        // The smallest change that meets the goals.
        if let Some((x, f)) = found.into_iter().min_by_key(|(x, _)| (x - v0).abs()) {
            out.suggestions.push(make(&changes_of(all, &[(k, x)]), f));
        }
    }
}

/// Pairs of the single edits that came nearest (`near`, on different numbers), solved
/// exactly; those that meet the goals are suggested.
fn exact_pairs(search: EditSearch, out: &mut Suggestions, near: &[Tried]) {
    let EditSearch {
        all, opts, make, ..
    } = search;
    'pairs: for i in 0..near.len() {
        for j in i + 1..near.len() {
            let (a, b) = (near[i].1[0], near[j].1[0]);
            if a.0 == b.0 {
                continue;
            }
            if let Some(why) = stopped(opts, out.tried) {
                out.gave_up = Some(format!("{why} (pairs of edits)"));
                break 'pairs;
            }
            let changes = changes_of(all, &[a, b]);
            let Some(t) = search.edit(&changes, out) else {
                continue;
            };
            if let Ok(after) = verdict_with(&t, &opts.progress, Judge::Exact)
                && meets(&opts.goals, &after)
                && breaks_play(&out.before, &after, &opts.goals).is_none()
            {
                out.suggestions.push(make(&changes, after));
            }
        }
    }
}

/// Why the search must stop now, if it must: the time cap passed, or cancelled.
fn stopped(opts: &SuggestOptions, tried: usize) -> Option<String> {
    if opts.progress.past_cap() {
        Some(format!(
            "stopped after {tried} edited files: the {} s cap",
            opts.budget.as_secs_f64()
        ))
    } else if opts.progress.cancelled() {
        Some(format!("cancelled after {tried} edited files"))
    } else {
        None
    }
}

/// Builds a suggestion from its changes and the edited file's verdict.
type MakeSuggestion<'a> = dyn Fn(&[(&Site, i64)], Verdict) -> Suggestion + 'a;

/// An edited file tried: its distance from even, its changes (site index, new value) and the
/// verdict.
type Tried = (f64, Vec<(usize, i64)>, Verdict);

/// The file `ch` makes, as a key: its changes with their partners', by site, sorted.
fn change_key(all: &[Site], ch: &[(usize, i64)]) -> Vec<(usize, i64)> {
    let mut key: Vec<(usize, i64)> = changes_of(all, ch)
        .iter()
        .map(|(s, v)| {
            (
                all.iter()
                    .position(|x| std::ptr::eq(x, *s))
                    .unwrap_or(usize::MAX),
                *v,
            )
        })
        .collect();
    key.sort_unstable();
    key
}

/// The changes `ch` with their sites, and each one's partner moved with it ([`link_sites`]):
/// to the same value (a transfer), or by the opposite amount (start values held together).
fn changes_of<'s>(all: &'s [Site], ch: &[(usize, i64)]) -> Vec<(&'s Site, i64)> {
    let mut out: Vec<(&Site, i64)> = ch.iter().map(|&(k, v)| (&all[k], v)).collect();
    for &(k, v) in ch {
        if let Some((j, sum)) = all[k].partner
            && !ch.iter().any(|c| c.0 == j)
        {
            let to = if sum {
                all[j].value + all[k].value - v
            } else {
                v
            };
            out.push((&all[j], to));
        }
    }
    out
}

/// The first three of `tried` (nearest first) as suggestions — only edits that keep games
/// decided as often and as short as the goals ask (one that makes every game a draw is even,
/// and no nearer a fix).
fn nearest(tried: &[Tried], all: &[Site], make: &MakeSuggestion, goals: &Goals) -> Vec<Suggestion> {
    tried
        .iter()
        .filter(|(_, _, v)| {
            v.draws <= goals.max_draws
                && v.draws < 0.999
                && goals
                    .max_turns
                    .is_none_or(|t| v.turns.is_none_or(|x| x <= t))
        })
        .take(3)
        .map(|(_, ch, after)| make(&changes_of(all, ch), after.clone()))
        .collect()
}

/// A number followed one way beyond the steps already tried: from `from`, in direction `dir`,
/// `tried` already measured (the first value followed is twice that far), never below `least`
/// nor further than `limit` from `from`.
#[derive(Clone, Copy, Debug)]
struct Way {
    from: i64,
    dir: i64,
    tried: i64,
    least: i64,
    limit: i64,
}

/// Follows a number along `way` by doubling steps until its verdict `crossed` (passed even, or
/// met the goals), then bisects between the last value short of that and the first past it
/// (the verdict taken as monotone in the number there): a fix 5 or 40 away costs a few
/// measurements, not one per step. `at` measures a value (None: not measurable — an error, a
/// rejected edit, the cap — which ends the way). Returns every value measured, in order.
fn follow(
    way: Way,
    mut at: impl FnMut(i64) -> Option<Verdict>,
    crossed: impl Fn(&Verdict) -> bool,
) -> Vec<(i64, Verdict)> {
    let Way {
        from,
        dir,
        tried,
        least,
        limit,
    } = way;
    let mut seen: Vec<(i64, Verdict)> = Vec::new();
    let (mut lo, mut hi) = ((from + tried * dir).max(least), None);
    let mut step = 2 * tried.max(1);
    while step <= limit {
        let x = (from + dir * step).max(least);
        if x == lo {
            break;
        }
        let Some(f) = at(x) else { break };
        let past = crossed(&f);
        seen.push((x, f));
        if past {
            hi = Some(x);
            break;
        }
        lo = x;
        step *= 2;
    }
    if let Some(mut h) = hi {
        while (h - lo).abs() > 1 {
            let m = lo + (h - lo) / 2;
            let Some(f) = at(m) else { break };
            let past = crossed(&f);
            seen.push((m, f));
            if past {
                h = m;
            } else {
                lo = m;
            }
        }
    }
    seen
}

/// Fewest edits first, then the edits a designer makes first (start values and named numbers,
/// then costs, then thresholds and effects: [`tier_of`]), then the smallest change, then the
/// verdict nearest even.
fn rank(suggestions: &mut [Suggestion]) {
    let tier = |s: &Suggestion| s.edits.iter().map(|e| e.tier).max().unwrap_or(0);
    let size = |s: &Suggestion| {
        s.edits
            .iter()
            .map(|e| (e.to.parse::<i64>().unwrap_or(0) - e.from.parse::<i64>().unwrap_or(0)).abs())
            .sum::<i64>()
    };
    suggestions.sort_by(|a, b| {
        (a.edits.len(), tier(a), size(a))
            .cmp(&(b.edits.len(), tier(b), size(b)))
            .then(distance(&a.after).total_cmp(&distance(&b.after)))
    });
}

/// The steps a sampled search tries on a number `v`: ±1 and ±2, and ±a quarter for numbers
/// of 12 or more (hit points, costs in the tens); none that would make it negative.
fn steps(v: i64) -> Vec<i64> {
    let q = v.abs() / 4;
    let mut d = vec![1, -1, 2, -2];
    if v.abs() >= 12 {
        d.extend([q, -q]);
    }
    d.retain(|&d| v + d >= 0);
    d.dedup();
    d
}

/// The moves a game of the file takes, from its sampled verdict (both sides move each turn of
/// a simultaneous game; at least one).
fn moves_a_game(v: &Verdict) -> f64 {
    let per_turn = if v.first_mover().is_none() { 2.0 } else { 1.0 };
    (v.turns.unwrap_or(1.0) * per_turn).max(1.0)
}

/// Search nodes that cost as much as one CPU move's own work (measured on the bundled and
/// design files: a game's time is about 0.05 ms a move plus 0.2 µs a node on the 2-core
/// machine).
const NODES_A_MOVE: f64 = 250.0;

/// The work a game of the file costs, in CPU moves: its moves, each counted once more for every
/// [`NODES_A_MOVE`] nodes its search visits (karate's CPU visits about 1,800 a move, sumo's
/// 100). Counted from the file's own measurement, so the plan is the same on any machine.
fn work_a_game(v: &Verdict) -> f64 {
    let nodes_a_move = v.sample().map_or(0.0, |s| s.nodes_a_move);
    moves_a_game(v) * (1.0 + nodes_a_move / NODES_A_MOVE)
}

/// Games per seating of the first round of a sampled search (the rounds after double it, up
/// to [`SAMPLE_GAMES`]).
const FIRST_ROUND_GAMES: u64 = 8;

/// Every round keeps at least this many edits (so the last, on fresh seeds, judges as many:
/// picked on noisy estimates, some fall back there).
const KEEP_AT_LEAST: usize = 8;

/// Pairs are made of this many of the first round's nearest single edits (on distinct
/// numbers): 15 pairs. (More pairs were tried: pairs of large steps then crowd the rounds'
/// places and the single edit that holds up on fresh seeds is lost — sumo, measured.)
const PAIR_FROM: usize = 6;

/// Games the rounds of [`sampled_search`] would play for `n` single edits: `first` games a
/// seating each, then the better half (at most 16, at least [`KEEP_AT_LEAST`]; with `pairs`
/// pairs of the best singles) with twice the games, up to `full`.
fn planned_games(n: usize, pairs: usize, first: u64, full: u64) -> f64 {
    let mut planned = (n as u64 * 2 * first) as f64;
    let mut n = (n / 2).min(16).max(KEEP_AT_LEAST.min(n)) + pairs;
    let mut g = first * 2;
    while g < full {
        planned += (n as u64 * 2 * g) as f64;
        n = (n / 2).max(KEEP_AT_LEAST.min(n));
        g *= 2;
    }
    planned + (n as u64 * 2 * full) as f64
}

/// A sampled search's plan: edits of the first round, pairs, games a seating of the first
/// round and of the last.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Plan {
    edits: usize,
    pairs: usize,
    first: u64,
    full: u64,
}

/// The plan for `n` single edits that fits `opts.moves` at `per_game` moves' work a game: the
/// first that fits of — every edit with 8×, 4×, 2× or 1× the games; without pairs; the first
/// edits only (at least twice [`KEEP_AT_LEAST`]); those confirmed on half the games. None: not
/// even that fits. It depends on the file and the options alone.
fn plan(n: usize, opts: &SuggestOptions, per_game: f64) -> Option<Plan> {
    let pairs = if opts.max_edits >= 2 {
        PAIR_FROM * (PAIR_FROM - 1) / 2
    } else {
        0
    };
    let fits =
        |p: &Plan| planned_games(p.edits, p.pairs, p.first, p.full) * per_game <= opts.moves as f64;
    let at = |edits: usize, pairs: usize, scale: u64, full: u64| Plan {
        edits,
        pairs,
        first: FIRST_ROUND_GAMES * scale,
        full: full * scale,
    };
    let least = (2 * KEEP_AT_LEAST).min(n);
    [8u64, 4, 2, 1]
        .into_iter()
        .map(|s| at(n, pairs, s, SAMPLE_GAMES))
        .chain(std::iter::once(at(n, 0, 1, SAMPLE_GAMES)))
        .find(fits)
        .or_else(|| {
            [SAMPLE_GAMES, SAMPLE_GAMES / 2]
                .into_iter()
                .find_map(|full| (least..n).rev().map(|k| at(k, 0, 1, full)).find(fits))
        })
}

/// Alternate games (sampled): every single edit of [`steps`] plays [`FIRST_ROUND_GAMES`] games
/// per seating; the nearer-to-even half (at most 16), with pairs of the best singles when two
/// edits are allowed, plays again with twice the games, and so on up to [`SAMPLE_GAMES`]
/// (successive halving, the same seeds for every edit); the last round plays fresh seeds
/// ([`CONFIRM_SEED`]), and the edits that meet the goals on them are suggested, fewest and
/// smallest edits first. The plan depends on the file and [`SuggestOptions::games`] alone,
/// never on the machine's pace: the time cap only stops it, saying where.
fn sampled_search(search: EditSearch, out: &mut Suggestions) {
    let EditSearch {
        text,
        all,
        opts,
        make,
        ..
    } = search;
    // Ring by ring: every number ±1 first, then ±2, then the larger steps.
    // A game far from even (by 15 points or more) needs large steps: their ring comes first.
    let rings: [usize; 3] = if distance(&out.before) >= 0.15 {
        [2, 1, 0]
    } else {
        [0, 1, 2]
    };
    let mut cands: Vec<Vec<(usize, i64)>> = Vec::new();
    // Start values brought near the other side's first (a head start is what a designer
    // evens out first), then ring by ring.
    for (k, values) in mirror_values(text, all) {
        for v in values {
            cands.push(vec![(k, v)]);
        }
    }
    for ring in rings {
        for (k, s) in all.iter().enumerate() {
            for d in steps(s.value)
                .into_iter()
                .filter(|d| s.value + d >= s.least)
            {
                if ring == (d.abs().min(3) - 1) as usize && !cands.contains(&vec![(k, s.value + d)])
                {
                    cands.push(vec![(k, s.value + d)]);
                }
            }
        }
    }
    // An edit and its partner's ([`link_sites`]) make the same file: measured once.
    let mut files = std::collections::HashSet::new();
    cands.retain(|ch| files.insert(change_key(all, ch)));
    // Where the plan at FIRST_ROUND_GAMES .. SAMPLE_GAMES is a small part of the games planned
    // (sumo), every round plays `scale` times as many (8×, 4× or 2×): the games buy estimates
    // with less noise instead of going unused.
    let per_game = work_a_game(&out.before);
    let Some(plan) = plan(cands.len(), opts, per_game) else {
        let need = planned_games(
            KEEP_AT_LEAST.min(cands.len()),
            0,
            FIRST_ROUND_GAMES,
            SAMPLE_GAMES / 2,
        ) * per_game;
        // Said before any game is played: a plan cut by the clock would depend on the machine.
        out.gave_up = Some(format!(
            "no plan fits: a game of this file costs {per_game:.0} moves' work ({:.0} moves, {:.0} search nodes a move), so even {} edits need --moves {:.0} (given {})",
            moves_a_game(&out.before),
            out.before.sample().map_or(0.0, |s| s.nodes_a_move),
            KEEP_AT_LEAST.min(cands.len()),
            need.ceil(),
            opts.moves
        ));
        return;
    };
    if plan.edits < cands.len()
        || plan.pairs == 0 && opts.max_edits >= 2
        || plan.full < SAMPLE_GAMES
    {
        out.plan_note = Some(format!(
            "{} of {} edits planned{}, confirmed on {} games a seating: a game of this file costs {per_game:.0} moves' work ({:.0} moves, {:.0} search nodes a move), and --moves {} allows no more",
            plan.edits,
            cands.len(),
            if plan.pairs == 0 && opts.max_edits >= 2 {
                ", no pairs"
            } else {
                ""
            },
            plan.full,
            moves_a_game(&out.before),
            out.before.sample().map_or(0.0, |s| s.nodes_a_move),
            opts.moves
        ));
        // The first ones in the order above: start values brought near the other side's,
        // then the nearest steps.
        cands.truncate(plan.edits);
    }
    // What the plan leaves of --moves buys numbers followed beyond their steps after the
    // first round ([`sampled_follow`]): the plan itself stays as it was.
    let follow_probes = if plan.edits == cands.len() {
        (1..=FOLLOW_PROBES)
            .rev()
            .find(|&p| {
                planned_games(plan.edits + p, plan.pairs, plan.first, plan.full) * per_game
                    <= opts.moves as f64
            })
            .unwrap_or(0)
    } else {
        0
    };
    let first_games = plan.first;
    let full_games = plan.full;
    let mut games = first_games;
    let mut last: Vec<Tried> = Vec::new();
    loop {
        let confirm = games >= full_games;
        let seed = if confirm { CONFIRM_SEED } else { SAMPLE_SEED };
        let mut scored: Vec<Tried> = Vec::new();
        for ch in &cands {
            if let Some(why) = stopped(opts, out.tried) {
                out.gave_up = Some(format!(
                    "{why} (the round of {games} games per seating, after {} of {} edits)",
                    scored.len(),
                    cands.len()
                ));
                if confirm && !scored.is_empty() {
                    // The last round's edits judged in full before the cap stand.
                    break;
                }
                // The last complete round's best, on fewer games (their evidence says how many).
                out.nearest = nearest(&last, all, make, &opts.goals);
                return;
            }
            let changes = changes_of(all, ch);
            // Judged once: a rejected edit is never scored, so no later round meets it.
            let Some(t) = search.edit(&changes, out) else {
                continue;
            };
            let Some(prog) = compile(&t).program else {
                continue;
            };
            let after = sampled_verdict(&prog, games, seed, &opts.progress);
            if opts.progress.cancelled() {
                // Cut short by the cap or a cancel: not a verdict on its games. The check at
                // the top of the loop says so.
                out.tried -= 1;
                continue;
            }
            if let Some(why) = breaks_play(&out.before, &after, &opts.goals) {
                count_rejected(out, text, &t, &changes, &why);
                continue;
            }
            scored.push((distance(&after), ch.clone(), after));
        }
        if games == first_games && !confirm && follow_probes > 0 {
            sampled_follow(search, out, &mut files, (games, follow_probes), &mut scored);
        }
        scored.sort_by(|a, b| a.0.total_cmp(&b.0));
        if confirm {
            for (_, ch, after) in &scored {
                if meets(&opts.goals, after)
                    && breaks_play(&out.before, after, &opts.goals).is_none()
                {
                    out.suggestions
                        .push(make(&changes_of(all, ch), after.clone()));
                }
            }
            rank(&mut out.suggestions);
            out.suggestions.truncate(opts.max_suggestions);
            if out.suggestions.is_empty() {
                out.nearest = nearest(&scored, all, make, &opts.goals);
            }
            return;
        }
        let keep = (scored.len() / 2)
            .min(16)
            .max(KEEP_AT_LEAST.max(opts.max_suggestions).min(scored.len()));
        cands = scored.iter().take(keep).map(|x| x.1.clone()).collect();
        if games == first_games && plan.pairs > 0 {
            // Pairs of the nearest single edits, each on its own number.
            let mut best: Vec<(usize, i64)> = Vec::new();
            for (_, ch, _) in &scored {
                if best.len() < PAIR_FROM && !best.iter().any(|b| b.0 == ch[0].0) {
                    best.push(ch[0]);
                }
            }
            for i in 0..best.len() {
                for j in i + 1..best.len() {
                    cands.push(vec![best[i], best[j]]);
                }
            }
        }
        last = scored;
        games = (games * 2).min(full_games);
    }
}

/// Edited files a sampled search may add to its first round by following numbers beyond their
/// steps ([`sampled_follow`]), when the plan leaves room for them in --moves.
const FOLLOW_PROBES: usize = 24;

/// Numbers followed at most, each one way.
const FOLLOW_WAYS: usize = 4;

/// A sampled search's first round, extended: the numbers whose steps brought the game nearest
/// even (up to [`FOLLOW_WAYS`], each in the direction that helped) are followed further that
/// way ([`follow`]) until the larger of h's score and the first mover's advantage changes sign
/// or the goals are met, on the first round's games and seeds, up to `probes` edited files in
/// all. What they measure joins the round's `scored`, so the rounds after judge them as any
/// other edit. Nothing is followed when a step already meets the goals.
fn sampled_follow(
    search: EditSearch,
    out: &mut Suggestions,
    files: &mut std::collections::HashSet<Vec<(usize, i64)>>,
    (games, probes): (u64, usize),
    scored: &mut Vec<Tried>,
) {
    let EditSearch {
        text, all, opts, ..
    } = search;
    if scored.iter().any(|x| meets(&opts.goals, &x.2)) {
        return;
    }
    // The figure furthest from even, signed: the one a fix must bring back.
    let before = out.before.clone();
    let by_first_mover = before
        .first_mover()
        .is_some_and(|f| f.0.abs() > before.value.abs());
    let signed = |v: &Verdict| {
        if by_first_mover {
            v.first_mover().map_or(0.0, |f| f.0)
        } else {
            v.value
        }
    };
    let sign0 = signed(&before).signum();
    // A step helped when it brought the game nearer even. Where the score sits at 100% or 0%
    // (every step near the file leaves it there, or moves it by a game or two of noise), a
    // step helped when it brought the derived lead at the start ([`start_lead`]) nearer 0 —
    // only where that lead points the same way as the score.
    let d0 = distance(&before);
    let saturated = {
        let (lo, hi) = if by_first_mover {
            before.first_mover().map_or((0.0, 0.0), |f| (f.1, f.2))
        } else {
            before.interval().unwrap_or((before.value, before.value))
        };
        hi >= 0.5 - 1e-9 || lo <= -0.5 + 1e-9
    };
    // The derived lead of a sampled verdict (a solved one has none: 0).
    let lead = |v: &Verdict| v.sample().map_or(0.0, |s| s.lead);
    let lead0 = lead(&before);
    let by_lead = saturated && lead0.signum() == sign0 && lead0 != 0.0;
    let mut order: Vec<&Tried> = scored
        .iter()
        .filter(|(d, ch, v)| {
            ch.len() == 1
                && if by_lead {
                    *d <= d0 + 1e-9 && lead(v).abs() < lead0.abs() - 1e-9
                } else {
                    *d < d0 - 1e-9
                }
        })
        .collect();
    order.sort_by(|a, b| {
        if by_lead {
            lead(&a.2)
                .abs()
                .total_cmp(&lead(&b.2).abs())
                .then(a.0.total_cmp(&b.0))
        } else {
            a.0.total_cmp(&b.0)
                .then(lead(&a.2).abs().total_cmp(&lead(&b.2).abs()))
        }
    });
    let mut ways: Vec<(usize, i64)> = Vec::new();
    for (_, ch, _) in order {
        let (k, x) = ch[0];
        let dir = (x - all[k].value).signum();
        if dir != 0 && !ways.contains(&(k, dir)) {
            ways.push((k, dir));
        }
    }
    ways.truncate(FOLLOW_WAYS);
    let mut left = probes;
    for (k, dir) in ways {
        let v0 = all[k].value;
        // The furthest step already measured this way.
        let tried = scored
            .iter()
            .filter(|x| x.1.len() == 1 && x.1[0].0 == k && (x.1[0].1 - v0).signum() == dir)
            .map(|x| (x.1[0].1 - v0).abs())
            .max()
            .unwrap_or(1);
        let mut at = |x: i64| -> Option<Verdict> {
            if left == 0
                || stopped(opts, out.tried).is_some()
                || !files.insert(change_key(all, &[(k, x)]))
            {
                return None;
            }
            let changes = changes_of(all, &[(k, x)]);
            let t = search.edit(&changes, out)?;
            left -= 1;
            let prog = compile(&t).program?;
            let after = sampled_verdict(&prog, games, SAMPLE_SEED, &opts.progress);
            if opts.progress.cancelled() {
                out.tried -= 1;
                return None;
            }
            if let Some(why) = breaks_play(&out.before, &after, &opts.goals) {
                count_rejected(out, text, &t, &changes, &why);
                return None;
            }
            Some(after)
        };
        let measured = follow(
            Way {
                from: v0,
                dir,
                tried,
                least: all[k].least,
                limit: v0.unsigned_abs().saturating_mul(4).clamp(64, 1 << 20) as i64,
            },
            &mut at,
            |v| signed(v).signum() != sign0 || meets(&opts.goals, v),
        );
        for (x, after) in measured {
            scored.push((distance(&after), vec![(k, x)], after));
        }
        if left == 0 {
            break;
        }
    }
}

/// A verdict in one line: the game value (exact or estimated), or the sampled scores with
/// their intervals and games.
pub fn evidence(x: &Verdict) -> String {
    if x.errors_decide {
        return format!(
            "RULE ERRORS decide it — {}: no score computed",
            x.rule_errors.as_deref().unwrap_or("?")
        );
    }
    let lead = x.rule_errors.as_ref().map_or(String::new(), |e| {
        if e.starts_with("RULE ERROR") {
            format!("{e}; ")
        } else {
            format!("RULE ERROR: {e}; ")
        }
    });
    lead + &evidence_figures(x)
}

/// [`evidence`] without the rule errors.
fn evidence_figures(x: &Verdict) -> String {
    let turns = x
        .turns
        .map_or(String::new(), |t| format!(", {t:.1} turns on average"));
    let s = match &x.evidence {
        Evidence::Sampled(s) => s,
        Evidence::Solved(solved) => {
            let never = if solved.unused.is_empty() {
                String::new()
            } else {
                format!("; never worth playing: {}", solved.unused.join(", "))
            };
            return format!(
                "game value for h {:+.4} ({}, {:.0}% without a winner{turns}{never})",
                x.value,
                x.method().as_str(),
                100.0 * x.draws
            );
        }
    };
    let mover = |with_interval: bool| match s.first_mover {
        Some((f, lo, hi)) if with_interval => format!(
            ", first mover {:+.1} points ({:+.1} to {:+.1})",
            100.0 * f,
            100.0 * lo,
            100.0 * hi
        ),
        Some((f, _, _)) => format!(", first mover {:+.1} points", 100.0 * f),
        None => String::new(),
    };
    match s.interval {
        Some((lo, hi)) => format!(
            "h's score {:.1}% (95% {:.1}–{:.1}){}, {:.0}% without a winner{turns} (sampled, {} games a seating, {} different)",
            100.0 * (x.value + 0.5),
            100.0 * (lo + 0.5),
            100.0 * (hi + 0.5),
            mover(true),
            100.0 * x.draws,
            s.games,
            s.distinct_games
        ),
        None => format!(
            "h's score {:.1}%{}, {:.0}% without a winner{turns} (one game repeated in each seating — {} different in all — not a sample)",
            100.0 * (x.value + 0.5),
            mover(false),
            100.0 * x.draws,
            s.distinct_games
        ),
    }
}

/// A skill check in one line.
pub fn skill_text(k: &SkillCheck) -> String {
    let interval = match (k.low, k.high) {
        (Some(lo), Some(hi)) => format!(" (95% {:.1}–{:.1})", 100.0 * lo, 100.0 * hi),
        _ => " (one game repeated)".into(),
    };
    format!(
        "random scores {:.1}%{interval} against {} over {} games{} — {}",
        100.0 * k.random_score,
        k.deepest,
        k.games,
        if k.games < k.planned_games {
            format!(" (stopped early of {})", k.planned_games)
        } else {
            String::new()
        },
        if k.matters {
            "skill matters"
        } else {
            "skill is not shown to matter"
        }
    )
}

/// The suggestions as text.
pub fn text(s: &Suggestions) -> String {
    let mut o = String::new();
    let v = evidence;
    o.push_str(&format!("goals: {}\n", s.goals.join("; ")));
    o.push_str(&format!("now: {} — {}\n", v(&s.before), s.before.how));
    if let Some(k) = &s.before_skill {
        o.push_str(&format!("skill now: {}\n", skill_text(k)));
    }
    if let Some(d) = &s.before_deeper {
        o.push_str(&format!("{}\n", deeper_text(d)));
    }
    if s.already_met {
        o.push_str(if s.before_deeper.as_ref().is_some_and(|d| d.agrees == Some(false)) {
            "the file meets the goals with the report's CPUs, but deeper ones disagree: no edit suggested, and the verdict depends on how deep the CPU looks\n"
        } else {
            "the file meets the goals already: no edit suggested\n"
        });
        return o;
    }
    if s.suggestions.is_empty() {
        o.push_str("no edit tried meets the goals");
        if !s.nearest.is_empty() {
            o.push_str("; nearest:");
        }
        o.push('\n');
        for sg in &s.nearest {
            o.push_str(&format!("   → {}\n", v(&sg.after)));
            for e in &sg.edits {
                o.push_str(&format!(
                    "      line {}:{}  {}  →  {}\n",
                    e.line, e.column, e.before_line, e.after_line
                ));
            }
        }
    }
    for (i, sg) in s.suggestions.iter().enumerate() {
        o.push_str(&format!(
            "{}. → {}{}\n",
            i + 1,
            v(&sg.after),
            if sg.mix_changes.is_empty() {
                String::new()
            } else {
                format!("; optimal play: {}", sg.mix_changes.join(", "))
            }
        ));
        for e in &sg.edits {
            o.push_str(&format!(
                "   line {}:{}  {}  →  {}\n",
                e.line, e.column, e.before_line, e.after_line
            ));
        }
        if let Some(k) = &sg.skill {
            o.push_str(&format!("   skill: {}\n", skill_text(k)));
        }
        if let Some(d) = &sg.deeper {
            o.push_str(&format!("   {}\n", deeper_text(d)));
        }
    }
    if s.dropped_for_skill > 0 {
        o.push_str(&format!(
            "{} suggestion(s) for balance dropped: skill no longer matters in them\n",
            s.dropped_for_skill
        ));
    }
    if s.rejected > 0 {
        o.push_str(&format!(
            "{} edited file(s) rejected for breaking the design (never suggested, nor nearest); e.g.\n",
            s.rejected
        ));
        for e in &s.rejected_examples {
            o.push_str(&format!("   {e}\n"));
        }
    }
    let held = if s.kept > 0 {
        let lines: Vec<String> = s.kept_lines.iter().map(|l| l.to_string()).collect();
        format!(" ({} held as they are: line {})", s.kept, lines.join(", "))
    } else {
        String::new()
    };
    o.push_str(&format!(
        "{} numbers editable{held}, {} edited files solved in {:.1} s{}\n",
        s.sites,
        s.tried,
        s.seconds,
        s.gave_up
            .as_ref()
            .map_or(String::new(), |g| format!("; gave up: {g}"))
    ));
    if let Some(p) = &s.plan_note {
        o.push_str(&format!("plan: {p}\n"));
    }
    o
}
