//! The learned evaluation (`kumite train`, `cpu:trained`): self-play games of the CPU, then a
//! logistic regression that predicts h's result from a position's features — both sides' state
//! values, their enabled commands, both derived distances to winning, the derived evaluation
//! itself and the side to move. The search then values its leaves by that prediction instead of
//! the derived evaluation alone (the same search, depth and chance handling).

use super::cpu::CpuPlayer;
use super::searcher::Searcher;
use super::settings::CpuSettings;
use crate::engine::players::{MatchOptions, Player, play_match};
use crate::engine::{GameResult, Side, State};
use crate::program::{Learned, NoLearned, RuleProgram, SelfPlayResults};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The players of the self-play games: a shallow search with a few deliberate mistakes, so the
/// games visit varied positions (`E3`: three moves in ten are another enabled command), bounded
/// by nodes rather than time (a minute a move is never reached first), so that the same seeds
/// give the same games on any machine, however loaded.
pub const TRAIN_PLAYERS: &str = "S2,E3,P60000,N100000";

/// Distances to winning are capped here as features (an unreachable win is this far).
const DISTANCE_CAP: u32 = 40;

/// Gradient steps of the regression (full batch, standardised features).
const STEPS: usize = 600;

/// Slots of the learned values' cache (a power of two).
const LEARNED_CACHE: usize = 1 << 14;

/// Positions per block of the gradient's partial sums.
const BLOCK: usize = 4096;

/// The names of the features [`features`] writes, in order.
pub fn feature_names(prog: &RuleProgram) -> Vec<String> {
    let mut names = Vec::new();
    for side in ["h", "c"] {
        names.extend(prog.states.iter().map(|s| format!("{side}.{s}")));
    }
    for side in ["h", "c"] {
        names.extend(prog.commands.iter().map(|c| format!("{side}.[{c}]")));
    }
    names.extend(
        [
            "h distance to winning",
            "c distance to winning",
            "derived evaluation (h)",
            "h to move",
        ]
        .map(String::from),
    );
    names
}

impl Searcher<'_> {
    /// Writes the features of `st` (h's view) into `out`, in [`feature_names`]' order.
    pub fn features(&self, st: &State, out: &mut Vec<f64>) {
        out.clear();
        out.extend(st.vals.iter().map(|&v| v as f64));
        out.extend(st.enabled.iter().map(|&b| f64::from(u8::from(b))));
        for x in [Side::H, Side::C] {
            out.push(f64::from(
                self.fast.to_win(&self.eng, st, x).min(DISTANCE_CAP),
            ));
        }
        out.push(self.fast.squashed(&self.eng, st, Side::H, self.scale) / 0.9e9);
        out.push(if st.to_move == Side::H { 1.0 } else { -1.0 });
    }

    /// Values leaves by `learned` from now on (see [`Searcher::eval`]).
    pub fn set_learned(&mut self, learned: &Learned) {
        let w: Vec<f64> = learned
            .weights
            .iter()
            .zip(&learned.sd)
            .map(|(w, sd)| w / sd)
            .collect();
        let offset = learned.bias - w.iter().zip(&learned.mean).map(|(w, m)| w * m).sum::<f64>();
        self.learned = Some((w, offset));
        self.learned_cache.clear();
    }

    /// The learned prediction of h's result in `st`, on the search's scale (±0.9e9); kept in
    /// a small direct-mapped cache by position (the search meets the same leaves again).
    pub(super) fn learned_value(&mut self, st: &State) -> f64 {
        let key = super::keys::node_key(st, self.lcm) | 1;
        let slot = (key ^ (key >> 32)) as usize & (LEARNED_CACHE - 1);
        if self.learned_cache.len() != LEARNED_CACHE {
            self.learned_cache = vec![(0, 0.0); LEARNED_CACHE];
        }
        if self.learned_cache[slot].0 == key {
            return self.learned_cache[slot].1;
        }
        let mut f = std::mem::take(&mut self.feature_buf);
        self.features(st, &mut f);
        let (w, offset) = self.learned.as_ref().expect("learned weights");
        let z = offset + w.iter().zip(&f).map(|(w, x)| w * x).sum::<f64>();
        self.feature_buf = f;
        // 2·σ(z) − 1, h's expected result.
        let v = 0.9e9 * (z / 2.0).tanh();
        self.learned_cache[slot] = (key, v);
        v
    }
}

/// Learns an evaluation for `prog` from `games` self-play games of [`TRAIN_PLAYERS`] (game k
/// seeded `seed + k`), on every core.
pub fn train(prog: &RuleProgram, games: u64, seed: u64) -> Learned {
    train_within(prog, games, seed, None)
}

/// [`train`] with the self-play games cut off as draws after `max_turns` turns.
pub fn train_within(prog: &RuleProgram, games: u64, seed: u64, max_turns: Option<u32>) -> Learned {
    train_watched(prog, games, seed, max_turns, &Watch::default())
        .expect("training is cancelled only through its watch")
}

/// How far a training run is, and a way to stop it (the studio's Learn button).
#[derive(Debug, Default)]
pub struct Watch {
    /// Self-play games finished.
    pub games_done: std::sync::atomic::AtomicU64,
    /// Steps of the regressions done after the games (of [`Watch::FIT_STEPS`]).
    pub fit_steps: std::sync::atomic::AtomicU64,
    /// Set to stop: the games not yet started are skipped and nothing is learned.
    pub cancel: std::sync::atomic::AtomicBool,
}

impl Watch {
    /// The regressions' steps in all (the learned evaluation's and the derived one's alone).
    pub const FIT_STEPS: u64 = 2 * STEPS as u64;
}

/// [`train_within`], counting finished games in `watch` and stopping (None) when it is
/// cancelled.
pub fn train_watched(
    prog: &RuleProgram,
    games: u64,
    seed: u64,
    max_turns: Option<u32>,
    watch: &Watch,
) -> Option<Learned> {
    use std::sync::atomic::Ordering;
    let per_game: Vec<(Vec<Vec<f64>>, GameResult, u64)> = (0..games)
        .into_par_iter()
        .map(|k| {
            if watch.cancel.load(Ordering::Relaxed) {
                return (Vec::new(), GameResult::Draw, 0);
            }
            let g = seed.wrapping_add(k);
            let settings = CpuSettings::parse(prog, TRAIN_PLAYERS).expect("settings");
            let mut a = CpuPlayer::new(prog, settings.clone(), crate::engine::rng::mix(g));
            let mut b = CpuPlayer::new(prog, settings, crate::engine::rng::mix(g ^ 0xC));
            let fs = Searcher::new(prog, 1);
            let mut players: [&mut dyn Player; 2] = [&mut a, &mut b];
            let mut rows = Vec::new();
            let mut first = Vec::new();
            // The game's fingerprint: the positions it went through, in order.
            let mut path = 0u64;
            // The starting position too, then every undecided position after a turn.
            let r = play_match(
                prog,
                &mut players,
                &MatchOptions {
                    seed: g,
                    max_turns,
                    ..Default::default()
                },
                |_, st, _| {
                    path = crate::engine::rng::mix(path ^ st.fingerprint(true));
                    if st.outcome.is_none() {
                        fs.features(st, &mut first);
                        rows.push(first.clone());
                    }
                },
            );
            watch.games_done.fetch_add(1, Ordering::Relaxed);
            (rows, r.result, path)
        })
        .collect();
    if watch.cancel.load(Ordering::Relaxed) {
        return None;
    }
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    let mut results = SelfPlayResults::default();
    let mut paths = rustc_hash::FxHashSet::default();
    for (rows, result, path) in per_game {
        paths.insert(path);
        let y = match result {
            GameResult::H => {
                results.h_wins += 1;
                1.0
            }
            GameResult::C => {
                results.c_wins += 1;
                0.0
            }
            GameResult::Draw => {
                results.draws += 1;
                0.5
            }
            GameResult::Error => {
                // A rule error says nothing about who was winning: left out.
                results.errors += 1;
                continue;
            }
        };
        ys.extend(std::iter::repeat_n(y, rows.len()));
        xs.extend(rows);
    }
    let names = feature_names(prog);
    let d = names.len();
    let n = xs.len().max(1) as f64;
    let mut mean = vec![0.0; d];
    let mut sd = vec![0.0; d];
    for x in &xs {
        for k in 0..d {
            mean[k] += x[k] / n;
        }
    }
    for x in &xs {
        for k in 0..d {
            sd[k] += (x[k] - mean[k]).powi(2) / n;
        }
    }
    for s in &mut sd {
        *s = if *s < 1e-12 { 1.0 } else { s.sqrt() };
    }
    let z: Vec<Vec<f64>> = xs
        .iter()
        .map(|x| (0..d).map(|k| (x[k] - mean[k]) / sd[k]).collect())
        .collect();
    let (bias, weights, log_loss) = fit(&z, &ys, d, |_| true, watch);
    let derived = d - 2;
    let (_, _, derived_log_loss) = fit(&z, &ys, d, |k| k == derived, watch);
    if watch.cancel.load(Ordering::Relaxed) {
        return None;
    }
    Some(Learned {
        kind: "kumite-trained".into(),
        rules_hash: prog.behaviour_hash(),
        features: names,
        mean,
        sd,
        bias,
        weights,
        games,
        positions: xs.len() as u64,
        players: format!("cpu:{TRAIN_PLAYERS} against itself"),
        seed,
        log_loss,
        derived_log_loss,
        results: Some(SelfPlayResults {
            distinct: paths.len() as u64,
            ..results
        }),
    })
}

/// Logistic regression of `ys` (h's result: 1, ½, 0) on the features `use_k` admits, by full-
/// batch gradient descent with a small L2 penalty: (intercept, weights, mean log loss).
/// `d` features (every row of `z` has them; there may be no rows).
fn fit(
    z: &[Vec<f64>],
    ys: &[f64],
    d: usize,
    use_k: impl Fn(usize) -> bool,
    watch: &Watch,
) -> (f64, Vec<f64>, f64) {
    use std::sync::atomic::Ordering;
    let on: Vec<bool> = (0..d).map(use_k).collect();
    let n = z.len().max(1) as f64;
    let (mut b, mut w) = (0.0, vec![0.0; d]);
    let rate = 0.5;
    for _ in 0..STEPS {
        if watch.cancel.load(Ordering::Relaxed) {
            break;
        }
        watch.fit_steps.fetch_add(1, Ordering::Relaxed);
        // Partial sums over fixed blocks, added in order: the same weights on any number of
        // cores (a learned file replays the same games everywhere).
        let parts: Vec<(f64, Vec<f64>)> = z
            .par_chunks(BLOCK)
            .zip(ys.par_chunks(BLOCK))
            .map(|(xs, ys)| {
                let (mut gb, mut gw) = (0.0, vec![0.0; d]);
                for (x, &y) in xs.iter().zip(ys) {
                    let e = sigmoid(b + dot(&w, x)) - y;
                    gb += e;
                    for k in 0..d {
                        gw[k] += e * x[k];
                    }
                }
                (gb, gw)
            })
            .collect();
        let (mut gb, mut gw) = (0.0, vec![0.0; d]);
        for (pb, pw) in parts {
            gb += pb;
            for k in 0..d {
                gw[k] += pw[k];
            }
        }
        b -= rate * gb / n;
        for k in 0..d {
            if on[k] {
                w[k] -= rate * (gw[k] / n + 1e-4 * w[k]);
            }
        }
    }
    let loss = z
        .iter()
        .zip(ys)
        .map(|(x, &y)| {
            let p = sigmoid(b + dot(&w, x)).clamp(1e-12, 1.0 - 1e-12);
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum::<f64>()
        / n;
    (b, w, loss)
}

fn dot(w: &[f64], x: &[f64]) -> f64 {
    w.iter().zip(x).map(|(a, b)| a * b).sum()
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Where `kumite train` writes, and `cpu:trained` reads, the learned evaluation of `file`
/// (`rules/karate.kmt` → `rules/karate.trained.json`).
pub fn trained_path(file: &Path) -> PathBuf {
    file.with_extension("trained.json")
}

/// The learned evaluation next to `file` ([`trained_path`]), when it was learned on rules that
/// do what `prog` does (its [`RuleProgram::behaviour_hash`], before any `--set`) with the
/// features this version computes; else why not, with what to run.
pub fn read_for(file: &Path, prog: &RuleProgram) -> Result<Arc<Learned>, NoLearned> {
    if prog.settings.simultaneous {
        return Err(NoLearned::Simultaneous);
    }
    let path = trained_path(file);
    let json = std::fs::read_to_string(&path).map_err(|_| NoLearned::NotFound {
        file: file.display().to_string(),
        learned: path.display().to_string(),
    })?;
    parse_for(
        &json,
        &path.display().to_string(),
        &file.display().to_string(),
        prog,
    )
}

/// [`read_for`] of a learned file's contents `json` (named `source`) for the rule file `file`.
pub fn parse_for(
    json: &str,
    source: &str,
    file: &str,
    prog: &RuleProgram,
) -> Result<Arc<Learned>, NoLearned> {
    let learned: Learned = serde_json::from_str(json).map_err(|e| NoLearned::Unreadable {
        learned: source.to_string(),
        why: e.to_string(),
    })?;
    if learned.rules_hash != prog.behaviour_hash() {
        return Err(NoLearned::OtherRules {
            learned: source.to_string(),
            file: file.to_string(),
        });
    }
    if learned.features != feature_names(prog)
        || [learned.mean.len(), learned.sd.len(), learned.weights.len()]
            .iter()
            .any(|&n| n != learned.features.len())
    {
        return Err(NoLearned::OtherFeatures {
            learned: source.to_string(),
            file: file.to_string(),
        });
    }
    Ok(Arc::new(learned))
}
