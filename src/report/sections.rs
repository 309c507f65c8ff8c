//! Running a report: [`run`] plays the game sets and computes the sections in order —
//! outcome, length and tension; decisions and rules; the exact verdict; restricted play; skill;
//! the sweep — each a method of [`ReportRun`].

use super::*;
use crate::program::RunConfig;
use crate::report::games::{play_range, play_sets};
use crate::side::Side;

/// Seeds of the report's game sets, so that sets share games where they should (restricted
/// play replays the outcome games) and differ where they should.
pub(crate) const SEED_OUTCOME: u64 = 0x0u64;
const SEED_SAMPLE: u64 = 0x5A5A_0001;
const SEED_SKILL: u64 = 0x5A5A_0100;
pub(crate) const SEED_DEPTH: u64 = 0x5A5A_1000;

/// How many plies deeper than the outcome players the depth check's CPUs search (see
/// `ReportRun::depth_players`).
pub const DEPTH_CHECK_PLIES: u32 = 1;

/// Computes the report. `source` is the rule file (for line texts and constant sweeps);
/// `update` gets the report so far after each section.
///
/// The sections run in order — outcome, length and tension (one set of games); decisions and
/// rules (random games); the exact verdict; restricted play; skill; the sweep — each a method
/// of [`ReportRun`]. A cancelled run returns what it has, marked `cancelled`.
pub fn run(
    source: &str,
    file: &str,
    prog: &RuleProgram,
    opts: &ReportOptions,
    progress: &Arc<Progress>,
    mut update: impl FnMut(&Report),
) -> Result<Report, ReportError> {
    let r = ReportRun::new(source, prog, opts, progress);
    r.set_total();
    let mut rep = r.empty_report(file);
    let sec = opts.sections;
    let mut done = |rep: &mut Report| {
        rep.seconds = r.t0.elapsed().as_secs_f64();
        rep.problems = progress
            .problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        rep.problems.games = progress.done.load(std::sync::atomic::Ordering::Relaxed);
        update(rep);
    };
    macro_rules! or_stop {
        ($e:expr) => {
            match $e {
                Some(v) => v,
                None => {
                    rep.cancelled = true;
                    done(&mut rep);
                    return Ok(rep);
                }
            }
        };
    }
    let outcome_recs = or_stop!(r.outcome_games()?);
    let all: Vec<&GameRec> = outcome_recs.iter().flatten().collect();
    let cpu_use = command_use(prog, &all);
    if sec.outcome {
        r.outcome_section(&outcome_recs, &mut rep);
        done(&mut rep);
        if let Some(check) = or_stop!(r.depth_check()?)
            && let Some(o) = rep.outcome.as_mut()
        {
            // No verdict where rule errors decide either side's figures.
            let base = o.first_mover_advantage.or(o.h_score);
            let deep = check.first_mover_advantage.or(check.h_score);
            o.depth_check = Some(DepthCheck {
                agrees: match (base, deep) {
                    (Some(base), Some(deep)) => agree(&base, &deep),
                    _ => None,
                },
                ..check
            });
            done(&mut rep);
        }
    }
    let sample_recs = or_stop!(r.sample_games()?);
    if sec.sample {
        r.sample_section(&sample_recs, cpu_use, &mut rep);
        done(&mut rep);
    }
    if sec.exact && !progress.cancelled() {
        r.exact_section(&mut rep);
        done(&mut rep);
    }
    if sec.restricted {
        let mut lines = Vec::new();
        for side in Side::BOTH {
            lines.extend(or_stop!(r.restricted_side(side, &outcome_recs)?));
            rep.restricted = Some(lines.clone());
            done(&mut rep);
        }
    }
    if sec.skill {
        let skill = or_stop!(r.skill_section()?);
        rep.skill_verdict = skill
            .iter()
            .find(|p| p.a == SKILL_LEVELS[0] && p.b == SKILL_LEVELS[SKILL_LEVELS.len() - 1])
            .filter(|p| !super::errors_decide(p.errors, p.games + p.errors))
            .map(skill_verdict);
        rep.skill = Some(skill);
        done(&mut rep);
    }
    if let Some(sw) = &opts.sweep {
        let mut points = Vec::new();
        for &v in &sw.values {
            points.push(or_stop!(r.sweep_point(sw, v)?));
            // A value is fair when its interval contains ½ (one game repeated: when it is ½).
            let fair = points
                .iter()
                .filter(|p| {
                    p.h_win_rate.is_some_and(|rate| {
                        p.low.unwrap_or(rate) <= 0.5 && 0.5 <= p.high.unwrap_or(rate)
                    })
                })
                .map(|p| p.value)
                .collect();
            rep.sweep = Some(SweepReport {
                name: sw.name.clone(),
                points: points.clone(),
                fair,
            });
            done(&mut rep);
        }
    }
    done(&mut rep);
    Ok(rep)
}

/// One report being computed: its inputs and the sizes of its game sets.
struct ReportRun<'a> {
    source: &'a str,
    prog: &'a RuleProgram,
    opts: &'a ReportOptions,
    progress: &'a Arc<Progress>,
    t0: Instant,
    /// Who moves first in the outcome games: both sides in turn, or h only (simultaneous).
    seatings: Vec<Side>,
    /// Games per seating.
    n: u64,
    /// The outcome players and the sample (random) players.
    pair: [String; 2],
    sample: [String; 2],
    sample_games: u64,
    restricted_games: u64,
    skill_games: u64,
    skill_key_games: u64,
    /// The side the file's `~` line lets move first.
    file_first: Side,
    graph: VictoryGraph,
}

impl<'a> ReportRun<'a> {
    fn new(
        source: &'a str,
        prog: &'a RuleProgram,
        opts: &'a ReportOptions,
        progress: &'a Arc<Progress>,
    ) -> Self {
        let n = opts.games.max(1);
        let cpu = varied_cpu("cpu", prog);
        Self {
            source,
            prog,
            opts,
            progress,
            t0: Instant::now(),
            seatings: if prog.settings.simultaneous {
                vec![Side::H]
            } else {
                vec![Side::H, Side::C]
            },
            n,
            pair: opts
                .players
                .clone()
                .map(|[a, b]| [reproducible(&a), reproducible(&b)])
                .unwrap_or([cpu.clone(), cpu]),
            sample: opts
                .sample_players
                .clone()
                .map(|[a, b]| [reproducible(&a), reproducible(&b)])
                .unwrap_or(["random".into(), "random".into()]),
            sample_games: n * SAMPLE_FACTOR,
            restricted_games: (n / 4).clamp(10, 50).min(n),
            skill_games: (n / 4).max(10) & !1,
            skill_key_games: skill_key_games(n),
            file_first: Side::first_mover(prog.settings.cpu_first),
            graph: VictoryGraph::build(prog),
        }
    }

    /// Tells `progress` how many games the whole report plays.
    fn set_total(&self) {
        let sec = self.opts.sections;
        let seatings = self.seatings.len() as u64;
        let nc = self.prog.commands.len() as u64;
        let sweep_points = self
            .opts
            .sweep
            .as_ref()
            .map_or(0, |s| s.values.len() as u64);
        let count = |on: bool, n: u64| if on { n } else { 0 };
        self.progress.total.store(
            count(sec.outcome || sec.restricted, self.n * seatings)
                + count(sec.sample, self.sample_games)
                + count(sec.restricted, 2 * nc * self.restricted_games * seatings)
                + count(sec.skill, 5 * self.skill_games + self.skill_key_games)
                + count(
                    sec.outcome && self.depth_players().is_some(),
                    self.depth_games() * seatings,
                )
                + sweep_points * self.n,
            Ordering::Relaxed,
        );
    }

    fn empty_report(&self, file: &str) -> Report {
        Report {
            file: file.to_string(),
            games: self.n,
            seed: self.opts.seed,
            players: serde_json::json!({
                "outcome": {"h": self.pair[0], "c": self.pair[1]},
                "sample": {"h": self.sample[0], "c": self.sample[1]},
            }),
            simultaneous: self.prog.settings.simultaneous,
            sample_games: self.sample_games,
            restricted_games: self.restricted_games,
            skill_games: self.skill_games,
            skill_key_games: self.skill_key_games,
            ..Default::default()
        }
    }

    /// A set of games between `players` on `prog` (the file's or a variant of it).
    #[allow(clippy::too_many_arguments)]
    fn games(
        &self,
        prog: &RuleProgram,
        config: &RunConfig,
        players: [&str; 2],
        first: Side,
        games: u64,
        seed: u64,
        count_rules: bool,
        record_uses: bool,
        tension: bool,
    ) -> Result<Vec<GameRec>, ReportError> {
        Ok(play_set(
            &GameSet {
                prog,
                config,
                players,
                first,
                games,
                seed,
                count_rules,
                record_uses,
                tension: tension.then_some(&self.graph),
                jobs: self.opts.jobs,
                ai_timeout: self.opts.ai_timeout,
            },
            self.progress,
        )?)
    }

    /// The outcome players' games, one set per seating (played when the outcome or the
    /// restricted-play section asks for them); None if cancelled.
    fn outcome_games(&self) -> Result<Option<Vec<Vec<GameRec>>>, ReportError> {
        let sec = self.opts.sections;
        let mut sets = Vec::new();
        for &first in self
            .seatings
            .iter()
            .filter(|_| sec.outcome || sec.restricted)
        {
            let seed = self.opts.seed ^ SEED_OUTCOME ^ (first as u64) << 40;
            let [a, b] = [self.pair[0].as_str(), self.pair[1].as_str()];
            sets.push(self.games(
                self.prog,
                &self.opts.config,
                [a, b],
                first,
                self.n,
                seed,
                false,
                true,
                true,
            )?);
        }
        Ok((!self.progress.cancelled()).then_some(sets))
    }

    /// Sections 1–2 and 7: outcome, length and tension.
    fn outcome_section(&self, sets: &[Vec<GameRec>], rep: &mut Report) {
        let all: Vec<&GameRec> = sets.iter().flatten().collect();
        let per: Vec<Outcomes> = sets.iter().map(|r| Outcomes::of(r)).collect();
        let mut total = Outcomes::default();
        for o in &per {
            total.h_wins += o.h_wins;
            total.c_wins += o.c_wins;
            total.draws += o.draws;
            total.timeouts += o.timeouts;
            total.errors += o.errors;
            total.forfeits += o.forfeits;
        }
        let distinct = distinct_games(all.iter().copied());
        let varied = varied(sets.iter().map(Vec::as_slice));
        // Where rule errors decide the figures there are none (the errors lead instead).
        let scored = !super::errors_decide(total.errors, total.games());
        let first_mover_advantage =
            (!self.prog.settings.simultaneous && scored).then(|| first_mover(&per, varied));
        rep.outcome = Some(OutcomeReport {
            games: total.games(),
            h_first: per[0],
            c_first: per.get(1).copied(),
            first_mover_advantage,
            h_score: scored.then(|| sampled(total.score(Side::H), total.scored(), varied)),
            distinct_games: distinct,
            one_game_per_seating: !varied,
            depth_check: None,
            exact: None,
            errors: total.errors,
            forfeits: total.forfeits,
        });
        rep.length = Some(length_of(&all));
        rep.tension = Some(tension_of(&all));
    }

    /// The random games of sections 3–4 (rule firings counted); None if cancelled.
    fn sample_games(&self) -> Result<Option<Vec<GameRec>>, ReportError> {
        let mut recs = Vec::new();
        let seatings = self.seatings.len() as u64;
        for (k, &first) in self.seatings.iter().enumerate() {
            if !self.opts.sections.sample {
                break;
            }
            let games =
                self.sample_games / seatings + u64::from(k == 0) * (self.sample_games % seatings);
            let seed = self.opts.seed ^ SEED_SAMPLE ^ (first as u64) << 40;
            let [a, b] = [self.sample[0].as_str(), self.sample[1].as_str()];
            recs.extend(self.games(
                self.prog,
                &self.opts.config,
                [a, b],
                first,
                games,
                seed,
                true,
                true,
                false,
            )?);
        }
        Ok((!self.progress.cancelled()).then_some(recs))
    }

    /// Sections 3–4: decisions and rules.
    fn sample_section(&self, recs: &[GameRec], cpu_use: CommandUse, rep: &mut Report) {
        let srefs: Vec<&GameRec> = recs.iter().collect();
        let choices: u64 = srefs.iter().map(|r| r.choices as u64).sum();
        let sec = self.opts.sections;
        rep.decisions = sec.decisions.then(|| DecisionReport {
            branching_mean: srefs.iter().map(|r| r.options).sum::<u64>() as f64
                / choices.max(1) as f64,
            choice_share: srefs.iter().map(|r| r.multi as u64).sum::<u64>() as f64
                / choices.max(1) as f64,
            command_use: command_use(self.prog, &srefs),
            cpu_command_use: cpu_use,
        });
        rep.sample_distinct_games = distinct_games(recs);
        rep.rules = sec
            .rules
            .then(|| rule_lines(self.source, self.prog, &srefs));
    }

    /// Section 1 (exact): the solver on the start; a small game's every reachable position is
    /// then known, so a rule that fires from none of them cannot fire at all.
    fn exact_section(&self, rep: &mut Report) {
        let prog = self.prog;
        let (e, table) = exact_of(prog, self.file_first, self.opts.exact_budget, self.progress);
        rep.outcome.get_or_insert_with(Default::default).exact = Some(e);
        if let (Some(rules), Some(all)) = (
            rep.rules.as_mut(),
            table.as_ref().and_then(|t| t.all_positions()),
        ) && let Some(fired) = reach::fires_anywhere(prog, all, EXHAUSTIVE_PLAYS)
        {
            for l in rules.iter_mut().filter(|l| l.dead == Some("never_fired")) {
                let never = prog
                    .meta
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| m.origin.line == l.line)
                    .all(|(ri, _)| !fired[ri]);
                if never {
                    l.dead = Some("cannot_fire");
                    l.proof = Some("exhaustive");
                }
            }
        }
    }

    /// Section 5 for one side: restricted play, replaying the outcome games' seeds with one of
    /// `side`'s commands banned; None if cancelled.
    fn restricted_side(
        &self,
        side: Side,
        outcome_sets: &[Vec<GameRec>],
    ) -> Result<Option<Vec<Restricted>>, ReportError> {
        let prog = self.prog;
        let games = self.restricted_games.min(self.n);
        // Every command's ban, then every ban's games in one call (see `play_sets`).
        let bans: Vec<RunConfig> = (0..prog.commands.len())
            .map(|cmd| RunConfig {
                banned: vec![(side.index() * prog.commands.len() + cmd) as u32],
                ..self.opts.config.clone()
            })
            .collect();
        let [a, b] = [self.pair[0].as_str(), self.pair[1].as_str()];
        let sets: Vec<GameSet> = bans
            .iter()
            .flat_map(|ban| {
                self.seatings.iter().map(move |&first| GameSet {
                    prog,
                    config: ban,
                    players: [a, b],
                    first,
                    games,
                    seed: self.opts.seed ^ SEED_OUTCOME ^ (first as u64) << 40,
                    count_rules: false,
                    record_uses: false,
                    tension: None,
                    jobs: self.opts.jobs,
                    ai_timeout: self.opts.ai_timeout,
                })
            })
            .collect();
        let ranges: Vec<(&GameSet, std::ops::Range<u64>)> =
            sets.iter().map(|s| (s, 0..games)).collect();
        let mut played = play_sets(&ranges, self.progress)?.into_iter();
        if self.progress.cancelled() {
            return Ok(None);
        }
        let mut out = Vec::new();
        for cmd in 0..prog.commands.len() {
            let mut recs = Vec::new();
            let mut base = Vec::new();
            for set in outcome_sets.iter().take(self.seatings.len()) {
                recs.extend(played.next().unwrap_or_default());
                base.extend(set.iter().take(games as usize));
            }
            out.push(restricted_verdict(
                prog,
                side,
                cmd,
                &recs,
                &base,
                games as usize,
            ));
        }
        Ok(Some(out))
    }

    /// Section 6: the skill round robin; None if cancelled.
    fn skill_section(&self) -> Result<Option<Vec<SkillPair>>, ReportError> {
        let mut skill = Vec::new();
        for (i, la) in SKILL_LEVELS.iter().enumerate() {
            for (j, lb) in SKILL_LEVELS.iter().enumerate().skip(i + 1) {
                let (a, b) = (varied_cpu(la, self.prog), varied_cpu(lb, self.prog));
                let (a, b) = (a.as_str(), b.as_str());
                let key = i == 0 && j == SKILL_LEVELS.len() - 1;
                let half = if key {
                    self.skill_key_games
                } else {
                    self.skill_games
                } / 2;
                let seed = self.opts.seed ^ SEED_SKILL ^ ((i * 4 + j) as u64) << 32;
                let sets = play_pairing(
                    self.prog,
                    [a, b],
                    self.file_first,
                    half,
                    // Every pairing looks up to seven times and stops once its 99.9% interval is
                    // clear of an even score (karate: random against S1 and S3 after 20 of
                    // 50 games; the pairings with S5 are the report's dearest games).
                    seed,
                    self.opts.jobs,
                    self.progress,
                )?;
                if self.progress.cancelled() {
                    return Ok(None);
                }
                let each_varied = varied(sets.iter().map(Vec::as_slice));
                let (a_rate, games) = a_score(&sets);
                let score = a_rate * games as f64;
                let all: Vec<GameRec> = sets.into_iter().flatten().collect();
                let distinct = distinct_games(&all);
                let o = Outcomes::of(&all);
                let r = sampled(score / games.max(1) as f64, games, each_varied);
                skill.push(SkillPair {
                    a: la.to_string(),
                    b: lb.to_string(),
                    a_win_rate: r.value,
                    low: r.low,
                    high: r.high,
                    games,
                    distinct_games: distinct,
                    planned_games: 2 * half,
                    errors: o.errors,
                    forfeits: o.forfeits,
                });
            }
        }
        Ok(Some(skill))
    }

    /// Section 8: one point of the sweep; None if cancelled.
    fn sweep_point(&self, sw: &Sweep, v: i64) -> Result<Option<SweepPoint>, ReportError> {
        let p = sw.apply(self.prog, self.source, v)?;
        // A constant's value changes the rules, which the file's learned evaluation was not
        // learned on; a start value does not.
        let fresh = RunConfig::default();
        let config = match sw.target {
            super::sweep::SweepTarget::Constant(_) => &fresh,
            super::sweep::SweepTarget::State { .. } => &self.opts.config,
        };
        let seed = self.opts.seed ^ SEED_OUTCOME ^ (self.file_first as u64) << 40;
        let [a, b] = [self.pair[0].as_str(), self.pair[1].as_str()];
        let recs = self.games(
            &p,
            config,
            [a, b],
            self.file_first,
            self.n,
            seed,
            false,
            false,
            false,
        )?;
        if self.progress.cancelled() {
            return Ok(None);
        }
        let o = Outcomes::of(&recs);
        let distinct = distinct_games(&recs);
        let r = sampled(o.score(Side::H), o.scored(), varied([recs.as_slice()]));
        let decided = super::errors_decide(o.errors, o.games());
        Ok(Some(SweepPoint {
            value: v,
            h_win_rate: (!decided).then_some(r.value),
            low: r.low.filter(|_| !decided),
            high: r.high.filter(|_| !decided),
            distinct_games: distinct,
            errors: o.errors,
            games: o.games(),
        }))
    }
}

/// The restricted-play line of `side` without `cmd`: its games `recs` against the same seeds'
/// unrestricted games `base`.
fn restricted_verdict(
    prog: &RuleProgram,
    side: Side,
    cmd: usize,
    recs: &[GameRec],
    base: &[&GameRec],
    per_seating: usize,
) -> Restricted {
    let o = Outcomes::of(recs);
    let distinct = distinct_games(recs);
    let each_varied = varied(recs.chunks(per_seating.max(1)));
    let rate = sampled(o.score(side), o.scored(), each_varied);
    let changed = recs
        .iter()
        .zip(base)
        .filter(|(a, b)| a.end != b.end)
        .count() as u64;
    let (delta, half) = paired(
        recs.iter()
            .zip(base)
            .map(|(a, b)| game_score(a.end, side) - game_score(b.end, side)),
    );
    let (delta_low, delta_high) = (delta - half, delta + half);
    let interval = each_varied;
    Restricted {
        side,
        command: prog.commands[cmd].clone(),
        win_rate: rate.value,
        low: rate.low,
        high: rate.high,
        delta,
        delta_low: interval.then_some(delta_low),
        delta_high: interval.then_some(delta_high),
        games_changed: changed,
        distinct_games: distinct,
        errors: o.errors,
        forfeits: o.forfeits,
        verdict: if super::errors_decide(o.errors, o.games()) {
            None
        } else if changed == 0 {
            Some("no_effect")
        } else if delta.abs() < 0.05 && delta_low >= -SKILL_POINTS && delta_high <= SKILL_POINTS {
            Some("no_net_effect")
        } else if delta.abs() >= 0.25 && (delta_low > 0.0 || delta_high < 0.0) {
            Some("decisive")
        } else {
            None
        },
    }
}

/// A skill pairing's games: `half` with `players[0]` (a) as h, `half` with a as c, each set
/// from its own seeds. It looks at its games up to six times before the end and stops once a 99.9% interval of a's score is clear of ½ (so
/// early looks hardly add to the 5% error of the last). Returns the two sets (a as h, a as c).
pub(crate) fn play_pairing(
    prog: &RuleProgram,
    [a, b]: [&str; 2],
    first: Side,
    half: u64,
    seed: u64,
    jobs: Option<usize>,
    progress: &Arc<Progress>,
) -> Result<[Vec<GameRec>; 2], crate::arena::ArenaError> {
    let looks: Vec<u64> = {
        // 10 and 20 games first (a 0–10 score is already clear of ½ at 99.9%: random against
        // a search in karate), then every fifth of the plan: at most seven looks, so that
        // together they add under 0.7% to the last look's 5% error.
        let mut l: Vec<u64> = [5, 10]
            .into_iter()
            .chain((1..=5).map(|k| (half * k / 5).max(1)))
            .filter(|&x| x <= half)
            .collect();
        l.sort_unstable();
        l.dedup();
        l
    };
    let mut sets: [Vec<GameRec>; 2] = [Vec::new(), Vec::new()];
    let mut done = 0;
    for (n, &upto) in looks.iter().enumerate() {
        for (a_side, players) in [(0usize, [a, b]), (1usize, [b, a])] {
            let set = GameSet {
                prog,
                // The round robin's players are the built-in levels: nothing learned or banned.
                config: &RunConfig::default(),
                players,
                first,
                games: half,
                seed: seed ^ (a_side as u64) << 48,
                count_rules: false,
                record_uses: false,
                tension: None,
                jobs,
                // The round robin's players are the built-in levels.
                ai_timeout: super::games::AI_TIMEOUT,
            };
            sets[a_side].extend(play_range(&set, done..upto, progress)?);
        }
        done = upto;
        if progress.cancelled() {
            break;
        }
        if n + 1 < looks.len() {
            let (s, g) = a_score(&sets);
            let (lo, hi) = crate::report::wilson_bounds_z(s, g, EARLY_LOOK_Z);
            if hi < 0.5 || lo > 0.5 {
                break;
            }
        }
    }
    Ok(sets)
}

/// The normal quantile of the key skill pairing's early looks (99.9%, two-sided).
const EARLY_LOOK_Z: f64 = 3.290_526_731_491_926;

/// Side a's score over its games on both sides (`sets[0]`: a is h; `sets[1]`: a is c), and the
/// games.
pub(crate) fn a_score(sets: &[Vec<GameRec>; 2]) -> (f64, u64) {
    let (mut score, mut games) = (0.0, 0);
    for (a_side, recs) in sets.iter().enumerate() {
        let o = Outcomes::of(recs);
        score += o.score(Side::from_index(a_side)) * o.scored() as f64;
        games += o.scored();
    }
    (score / games.max(1) as f64, games)
}

/// Games of random against the deepest level: enough to see a difference of
/// [`SKILL_POINTS`] from an even score with 80% power at the 5% level (196 games), and at
/// least the outcome's games per seating.
pub(crate) fn skill_key_games(n: u64) -> u64 {
    (n.max(skill_power_games()) + 1) & !1
}

/// Games that see a score of ½ ± [`SKILL_POINTS`] as different from ½ with 80% power (a
/// two-sided test at the 5% level).
fn skill_power_games() -> u64 {
    let (z_a, z_b) = (1.959_963_984_540_054_f64, 0.841_621_233_572_914_f64);
    ((z_a + z_b).powi(2) * 0.25 / (SKILL_POINTS * SKILL_POINTS)).ceil() as u64
}

/// The skill verdict from the pairing of random against the deepest level: a significant
/// difference either way, or none — which says "no difference of 10 points" only when the
/// pairing played enough games to see one.
fn skill_verdict(p: &SkillPair) -> SkillVerdict {
    let (low, high) = (
        p.low.unwrap_or(p.a_win_rate),
        p.high.unwrap_or(p.a_win_rate),
    );
    if high < 0.5 {
        SkillVerdict::SkillMatters
    } else if low > 0.5 {
        SkillVerdict::RandomBetter
    } else if p.games >= skill_power_games() || p.low.is_none() {
        SkillVerdict::NoDifference
    } else {
        SkillVerdict::TooFewGames
    }
}

/// A CPU spec searching `extra` plies deeper with twice the node budget (None for other
/// players).
pub(crate) fn deeper(spec: &str, prog: &RuleProgram, extra: u32) -> Option<String> {
    let settings = crate::search::CpuSettings::of_player(prog, spec)?.ok()?;
    if settings.exact {
        return None;
    }
    let depth = (settings.depth + extra).min(30);
    let nodes = settings.nodes.unwrap_or(REPORT_NODES).saturating_mul(2);
    // The spec's own items but depth and nodes, then the deeper ones.
    let rest = spec.strip_prefix("cpu")?.trim_start_matches(':');
    let mut items: Vec<String> = rest
        .split(',')
        .map(|x| x.trim().to_string())
        .filter(|x| {
            let f: String = x.chars().map(crate::syntax::lexer::norm).collect();
            !x.is_empty() && !f.starts_with(['S', 's', 'N', 'n'])
        })
        .collect();
    items.push(format!("S{depth}"));
    items.push(format!("N{nodes}"));
    Some(format!("cpu:{}", items.join(",")))
}

/// The first mover's advantage over the two seatings' outcomes (h first, c first): its score —
/// h's in the h-first games, c's in the c-first games — minus ½.
fn first_mover(per: &[Outcomes], varied: bool) -> Rate {
    let g = (per[0].scored() + per[1].scored()).max(1);
    let s = (per[0].score(Side::H) * per[0].scored() as f64
        + per[1].score(Side::C) * per[1].scored() as f64)
        / g as f64;
    sampled(s, g, varied).shifted(-0.5)
}

/// Whether two measurements of a score agree: Some(true) when they differ by at most
/// [`SKILL_POINTS`]; Some(false) when they differ by more and their intervals (or values, for
/// one game repeated) do not overlap; None when they differ by more but the intervals overlap
/// — too few games to tell.
fn agree(a: &Rate, b: &Rate) -> Option<bool> {
    if (a.value - b.value).abs() <= SKILL_POINTS {
        return Some(true);
    }
    let (al, ah) = (a.low.unwrap_or(a.value), a.high.unwrap_or(a.value));
    let (bl, bh) = (b.low.unwrap_or(b.value), b.high.unwrap_or(b.value));
    let overlap = al <= bh && bl <= ah;
    (!overlap).then_some(false)
}

impl ReportRun<'_> {
    /// The outcome players one ply deeper, when both are CPUs. (Two plies deeper cost 25
    /// times the default's nodes a move in karate, whose every move has dice: 15 of the
    /// report's 41 seconds; one ply costs 5 times. Karate's first-mover advantage read at
    /// depths 3, 4, 5 and 6: +19, +17, +12, +16 — no odd–even swing that would make one ply a
    /// worse check than two.)
    fn depth_players(&self) -> Option<[String; 2]> {
        Some([
            deeper(&self.pair[0], self.prog, DEPTH_CHECK_PLIES)?,
            deeper(&self.pair[1], self.prog, DEPTH_CHECK_PLIES)?,
        ])
    }

    /// Games per seating of the depth check.
    fn depth_games(&self) -> u64 {
        (self.n / 4).max(10).min(self.n)
    }

    /// The outcome replayed with deeper CPUs; Ok(Some(None)) when the players are not CPUs,
    /// Ok(None) if cancelled.
    fn depth_check(&self) -> Result<Option<Option<DepthCheck>>, ReportError> {
        let Some(players) = self.depth_players() else {
            return Ok(Some(None));
        };
        let games = self.depth_games();
        let mut sets = Vec::new();
        for &first in &self.seatings {
            let seed = self.opts.seed ^ SEED_DEPTH ^ (first as u64) << 40;
            let [a, b] = [players[0].as_str(), players[1].as_str()];
            sets.push(self.games(
                self.prog,
                &self.opts.config,
                [a, b],
                first,
                games,
                seed,
                false,
                false,
                false,
            )?);
            if self.progress.cancelled() {
                return Ok(None);
            }
        }
        let all: Vec<&GameRec> = sets.iter().flatten().collect();
        let distinct = distinct_games(all.iter().copied());
        let varied = varied(sets.iter().map(Vec::as_slice));
        let per: Vec<Outcomes> = sets.iter().map(|r| Outcomes::of(r)).collect();
        let (mut hs, mut g) = (0.0, 0);
        for o in &per {
            hs += o.score(Side::H) * o.scored() as f64;
            g += o.scored();
        }
        let errors: u64 = per.iter().map(|o| o.errors).sum();
        let scored = !super::errors_decide(errors, per.iter().map(Outcomes::games).sum());
        let h_score = scored.then(|| sampled(hs / g.max(1) as f64, g, varied));
        let first_mover_advantage = (per.len() == 2 && scored).then(|| first_mover(&per, varied));
        Ok(Some(Some(DepthCheck {
            players,
            plies: DEPTH_CHECK_PLIES,
            games,
            h_score,
            first_mover_advantage,
            distinct_games: distinct,
            agrees: Some(true),
            errors,
        })))
    }
}
