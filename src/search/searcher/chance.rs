//! Chance inside the search: a move's outcomes played under chance scripts, every combination
//! enumerated when there are few or seeded samples otherwise, identical positions merged, and
//! the outcomes of the moves of one search kept for the deepening's next iteration.

use super::{Played, Searcher, pooled_copy};
use crate::engine::{Outcome, State};
use crate::program::CmdId;
use crate::search::base::{CHANCE_SAMPLES, MIN_CHANCE_WIDTH, rule_error_loser};
use crate::search::keys::{played_key, position_key};
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};

impl<'p> Searcher<'p> {
    /// Plays `cmds` from `st` with the draws of `self.script`; a rule error ends the line as a
    /// loss for the side whose move raised it ([`rule_error_loser`](crate::search::base::rule_error_loser)), and is counted.
    fn play_one(&mut self, st: &State, cmds: [Option<CmdId>; 2]) -> State {
        let mut c = self.copy_of(st);
        if let Err(e) = self.eng.play_scripted(&mut c, cmds, &mut self.script) {
            self.erred(st, cmds, &e, &mut c);
        }
        c
    }

    /// A move from `st` raised `e`: `c` is decided against the side whose move it was.
    fn erred(
        &mut self,
        st: &State,
        cmds: [Option<CmdId>; 2],
        e: &crate::engine::RuntimeError,
        c: &mut State,
    ) {
        let loser = rule_error_loser(self.eng.simultaneous, st, e);
        c.outcome = Some(match loser {
            crate::engine::Side::H => Outcome::C,
            crate::engine::Side::C => Outcome::H,
        });
        self.rule_errors.note(self.eng.prog, st, cmds, e, loser);
    }

    /// Another chance outcome of the move that [`Self::play_one`] played last, `cmds` from
    /// `st`, under the draws of `self.script`: played from that turn's resolution when the
    /// engine could keep it (only values drew), else from the start. The same position either
    /// way.
    fn replay_one(&mut self, st: &State, cmds: [Option<CmdId>; 2]) -> State {
        let mut c = self.pool.pop().unwrap_or_default();
        match self.eng.replay_scripted(&mut c, &mut self.script) {
            Some(r) => {
                if let Err(e) = r {
                    self.erred(st, cmds, &e, &mut c);
                }
                c
            }
            None => {
                self.pool.push(c);
                self.play_one(st, cmds)
            }
        }
    }

    /// Plays `cmds` from `st` with every draw at its first outcome (for tie-breaks).
    pub(in crate::search) fn play_first_outcome(
        &mut self,
        st: &State,
        cmds: [Option<CmdId>; 2],
    ) -> State {
        self.script.picks.clear();
        self.script.sampler = None;
        self.play_one(st, cmds)
    }

    /// Returns the positions of an outcome list to the pool.
    pub(in crate::search) fn recycle(&mut self, mut kids: Vec<(State, f64)>) {
        self.pool.extend(kids.drain(..).map(|k| k.0));
        self.kid_pool.push(kids);
    }

    /// The chance outcomes of playing `cmds` from `st`, with their probabilities (summing to 1).
    /// Every combination of outcomes is enumerated when there are at most `limit`; otherwise
    /// `limit` samples (at most [`CHANCE_SAMPLES`]) are drawn, seeded by the position and the move (so a search is
    /// reproducible), and identical positions are merged.
    pub fn outcomes(
        &mut self,
        st: &State,
        cmds: [Option<CmdId>; 2],
        limit: u64,
    ) -> Vec<(State, f64)> {
        let mut out = self.kid_pool.pop().unwrap_or_default();
        self.script.picks.clear();
        self.script.sampler = None;
        let c = self.play_one(st, cmds);
        if self.script.draws.is_empty() {
            out.push((c, 1.0));
            return out;
        }
        if self.script.combinations() <= limit {
            out.push((c, self.script.probability()));
            loop {
                // The next combination, odometer-wise: the last draw that has another outcome
                // moves on; the draws after it start again from outcome 0.
                let mut picks = std::mem::take(&mut self.script.picks);
                picks.clear();
                picks.extend(self.script.draws.iter().map(|d| d.pick));
                while let Some(&last) = picks.last() {
                    let k = picks.len() - 1;
                    if last + 1 < self.script.draws[k].outcomes {
                        picks[k] += 1;
                        break;
                    }
                    picks.pop();
                }
                let done = picks.is_empty();
                self.script.picks = picks;
                if done {
                    self.merge_same(&mut out);
                    return out;
                }
                // Every further outcome is a resolution like a node's: it counts against the
                // node budget, so chance-heavy games cannot outrun it.
                self.nodes = self.nodes.saturating_add(1);
                let c = self.replay_one(st, cmds);
                out.push((c, self.script.probability()));
                if out.len() as u64 > limit.saturating_mul(4) {
                    break; // later draws multiplied the outcomes: sample instead
                }
            }
            self.pool.extend(out.drain(..).map(|k| k.0));
        } else {
            self.pool.push(c);
        }
        self.sampled = true;
        let seed = position_key(st, self.lcm)
            ^ crate::engine::rng::mix(
                cmds[0].map_or(0xFFFF, u64::from) << 32 | cmds[1].map_or(0xFFFF, u64::from),
            );
        self.script.picks.clear();
        let samples = limit.clamp(1, u64::from(CHANCE_SAMPLES)) as u32;
        let w = 1.0 / samples as f64;
        let mut keys: Vec<u64> = Vec::with_capacity(samples as usize);
        for i in 0..samples {
            self.script.sampler = Some(crate::engine::rng::mix(seed.wrapping_add(i as u64)));
            self.nodes = self.nodes.saturating_add(1);
            let c = self.replay_one(st, cmds);
            let k = position_key(&c, self.lcm);
            if let Some(j) = keys.iter().position(|&x| x == k) {
                out[j].1 += w;
                self.pool.push(c);
            } else {
                keys.push(k);
                out.push((c, w));
            }
        }
        self.script.sampler = None;
        out
    }

    /// [`Self::outcomes`] of a move of the search (enumerated up to [`Self::chance_exact`]),
    /// taken from [`Self::played`] when this search played it before: the deepening's next
    /// iteration plays the moves of the one before again, and a turn with its chance outcomes
    /// costs several times the copies. The nodes and the sampling are counted as if played, so
    /// the search and its node budget are the same either way. `depth` counts this move: a move
    /// at depth 1 (its outcomes are leaves) was not played by the iteration before, one
    /// shallower, so it is not looked for.
    pub(in crate::search) fn move_outcomes(
        &mut self,
        st: &State,
        cmds: [Option<CmdId>; 2],
        depth: u32,
    ) -> Vec<(State, f64)> {
        let width = self.chance_width(depth);
        if depth < 2 && !self.keep_outcomes {
            return self.outcomes(st, cmds, width);
        }
        let key = played_key(st, cmds) ^ crate::engine::rng::mix(width);
        if let Some(p) = self.played.get(&key) {
            self.reused += 1;
            self.nodes = self.nodes.saturating_add(p.nodes);
            self.sampled |= p.sampled;
            let mut out = self.kid_pool.pop().unwrap_or_default();
            for (k, w) in &p.kids {
                out.push((pooled_copy(&mut self.pool, k), *w));
            }
            return out;
        }
        if !self.keep_outcomes {
            return self.outcomes(st, cmds, width);
        }
        let (nodes, sampled) = (self.nodes, self.sampled);
        self.sampled = false;
        let out = self.outcomes(st, cmds, width);
        let kids = out.iter().map(|(c, w)| (self.copy_of(c), *w)).collect();
        let p = Played {
            kids,
            nodes: self.nodes - nodes,
            sampled: self.sampled,
        };
        self.sampled |= sampled;
        self.played.insert(key, p);
        out
    }

    /// How many chance outcomes a move `depth` plies from the horizon gets (see
    /// [`Self::outcomes`]): the root's moves [`Self::chance_exact`], each ply below half as
    /// many, at least [`MIN_CHANCE_WIDTH`]. Sparse sampling: the root's choice needs the
    /// precise means; deeper, fewer samples of each move do almost as well — an error there is
    /// averaged again on the way up — and leave the nodes to search deeper (moge_battle's
    /// depth 3 read 48 children a ply with 16 samples a move).
    pub(in crate::search) fn chance_width(&self, depth: u32) -> u64 {
        let ply = self.root_depth.saturating_sub(depth);
        if self.root_depth == 0 || ply == 0 {
            return self.chance_exact;
        }
        (self.chance_exact >> ply.min(63)).max(MIN_CHANCE_WIDTH.min(self.chance_exact))
    }

    /// Forgets [`Self::played`] (a new search), its positions back to the pool.
    pub(in crate::search) fn forget_played(&mut self) {
        for (_, p) in self.played.drain() {
            if self.pool.len() < 4096 {
                self.pool.extend(p.kids.into_iter().map(|k| k.0));
            }
        }
    }

    /// Merges outcomes that reach the same position (summing their probabilities).
    fn merge_same(&mut self, out: &mut Vec<(State, f64)>) {
        if out.len() < 2 {
            return;
        }
        if out.len() > 16 {
            // Many outcomes (two rolls already give 4096): hash, then confirm equality.
            let mut first: FxHashMap<u64, usize> = FxHashMap::default();
            let mut kept: Vec<(State, f64)> = Vec::with_capacity(out.len());
            for (c, p) in out.drain(..) {
                let h = {
                    let mut hs = FxHasher::default();
                    c.hash(&mut hs);
                    hs.finish()
                };
                match first.get(&h) {
                    Some(&j) if kept[j].0 == c => {
                        kept[j].1 += p;
                        self.pool.push(c);
                    }
                    Some(_) => kept.push((c, p)),
                    None => {
                        first.insert(h, kept.len());
                        kept.push((c, p));
                    }
                }
            }
            *out = kept;
            return;
        }
        // Few outcomes: compare positions directly (no hashing, no allocation).
        let mut k = out.len();
        while k > 1 {
            k -= 1;
            if let Some(j) = (0..k).find(|&j| out[j].0 == out[k].0) {
                let (c, p) = out.swap_remove(k);
                out[j].1 += p;
                self.pool.push(c);
            }
        }
    }
}
