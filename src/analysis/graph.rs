//! Building the victory-condition graph from the rules: the decisive rules, the nodes below them
//! to [`DEPTH_CAP`], their achievers, what each spends and how it re-arms.

use super::{
    Achiever, CondKind, DEPTH_CAP, Decisive, Excluded, NEVER_HOLDS, NO_REARM, Node, NodeKey, Spend,
    Step, Target, VictoryGraph, classify, decisive_ways, free_rate, moves_toward, node_text,
    own_cost_of, step_of, target_holds,
};
use crate::engine::Side;
use crate::program::{CCond, CEffect, CRule, CmdId, Op, RuleProgram};
use crate::syntax::ast::SideRef;
use rustc_hash::FxHashMap as HashMap;

impl VictoryGraph {
    /// Derives the graph from the rules.
    pub fn build(p: &RuleProgram) -> Self {
        let mut g = VictoryGraph {
            nodes: vec![],
            decisive: vec![],
            excluded: vec![],
            index: HashMap::default(),
        };
        // The nodes still to expand, in the order they were made (breadth first).
        let mut queue: Vec<usize> = Vec::new();
        g.add_decisive(p, &mut queue);
        let writers = writers_of(p);
        let mut qi = 0;
        while qi < queue.len() {
            let ni = queue[qi];
            qi += 1;
            if g.nodes[ni].level >= DEPTH_CAP {
                continue;
            }
            let candidates = candidates(p, &writers, g.nodes[ni].key);
            g.add_achievers(p, ni, candidates, &mut queue);
        }
        g.set_rearm(p);
        g.set_spends(p);
        g
    }

    /// The decisive rules — those that set 勝利 or 敗北, each way they can decide — with the
    /// nodes of their conditions (level 1), queued for expansion.
    fn add_decisive(&mut self, p: &RuleProgram, queue: &mut Vec<usize>) {
        let g = self;
        for (ri, r) in p.rules.iter().enumerate() {
            for (opponent, only) in decisive_ways(p, r) {
                let (conds, excluded, never, assumes) = g.cond_nodes(p, ri, r, 1, opponent, queue);
                // A rule written with absolute sides only (`h.綱>=3:h.勝利`) reads the same
                // from either instance: listed once.
                if opponent
                    && excluded.is_empty()
                    && g.decisive.iter().any(|d| {
                        d.rule == ri && d.only == only && d.conds == conds && d.excluded.is_empty()
                    })
                {
                    continue;
                }
                g.decisive.push(Decisive {
                    rule: ri,
                    line: p.meta[ri].origin.line,
                    text: p.rule_text(ri),
                    conds,
                    excluded,
                    assumes,
                    victory: r.victory,
                    opponent,
                    only,
                    never,
                    period: if r.periodic { r.period.max(1) } else { 0 },
                });
            }
        }
    }

    /// Adds to node `ni` its achievers among `candidates` (rule, the opponent's instance, for one
    /// pursuer only, the side its effect names): the first effect of each rule that moves the
    /// node's state toward its target, with the nodes of the rule's conditions (queued one
    /// level deeper); an effect that cannot be read is listed as excluded, with why.
    fn add_achievers(
        &mut self,
        p: &RuleProgram,
        ni: usize,
        candidates: Vec<(usize, bool, Option<Side>, SideRef)>,
        queue: &mut Vec<usize>,
    ) {
        let g = self;
        let level = g.nodes[ni].level;
        let key = g.nodes[ni].key;
        for (ri, opponent, only, written) in candidates {
            let r = &p.rules[ri];
            let seen = NodeKey {
                side: written,
                ..key
            };
            for e in p.rule_effects(r) {
                match step_of(p, e, &seen) {
                    // A `::` rule's inverse half (§4: the opposite flag when its condition
                    // fails), for a rule of one condition whose failure is one node.
                    Ok(Some(Step::Set(v)))
                        if r.iff
                            && matches!(e, CEffect::Bool { .. })
                            && !moves_toward(Step::Set(v), key.target)
                            && moves_toward(Step::Set(1 - v), key.target) =>
                    {
                        let [c] = p.rule_conds(r) else { continue };
                        let CondKind::Node(mut k) = classify(p, c) else {
                            continue;
                        };
                        let Some(t) = k.target.negated() else {
                            continue;
                        };
                        k.target = t;
                        if opponent {
                            k.side = k.side.swapped().unwrap_or(k.side);
                        }
                        let cond = g.node_for(p, k, level + 1, queue);
                        let m = &p.meta[ri];
                        g.nodes[ni].achievers.push(Achiever {
                            rule: ri,
                            line: m.origin.line,
                            step: Step::Set(1 - v),
                            needs_command: r.has_cmd_atoms,
                            period: r.period,
                            conds: vec![cond],
                            excluded: vec![],
                            assumes: opponent_moves(p, r, opponent),
                            opponent,
                            only,
                            rearm: 0,
                            spends: vec![],
                        });
                        break;
                    }
                    Ok(Some(step)) => {
                        if !moves_toward(step, key.target) {
                            continue;
                        }
                        if matches!(step, Step::Add(_))
                            || matches!(step, Step::Clamp(c) if c.sign != 0)
                        {
                            let unit = match *e {
                                CEffect::Update { expr, .. } => match p.code_of(expr) {
                                    [Op::Push(v)] => v.unsigned_abs().min(1 << 62) as i64,
                                    _ => 1,
                                },
                                _ => 1,
                            };
                            let n = &mut g.nodes[ni];
                            n.grid = crate::program::gcd(n.grid.unsigned_abs(), unit.unsigned_abs())
                                as i64;
                        }
                        let (conds, excluded, never, assumes) =
                            g.cond_nodes(p, ri, r, level + 1, opponent, queue);
                        if never {
                            break; // it can never fire (the excluded list says why)
                        }
                        let m = &p.meta[ri];
                        g.nodes[ni].achievers.push(Achiever {
                            rule: ri,
                            line: m.origin.line,
                            step,
                            needs_command: r.has_cmd_atoms,
                            period: r.period,
                            conds,
                            excluded,
                            assumes,
                            opponent,
                            only,
                            rearm: 0,
                            spends: vec![],
                        });
                        break;
                    }
                    Ok(None) => {}
                    Err(reason) => {
                        let what = p.rule_text(ri);
                        let line = p.meta[ri].origin.line;
                        if !g
                            .excluded
                            .iter()
                            .any(|x| x.what == what && x.reason == reason)
                        {
                            g.excluded.push(Excluded {
                                what,
                                line,
                                reason: format!("effect on {}: {reason}", g.nodes[ni].text),
                            });
                        }
                    }
                }
            }
        }
    }

    /// Fills in [`Achiever::spends`] for the achievers that need a command: the one-sided range
    /// conditions they use (their own, and those of the rules that enable their commands) that
    /// their rule, or a rule whose only condition is one of its commands (`[強打]:S.溜め-2`),
    /// moves away from the target by a step (net of what the same firing gives back).
    fn set_spends(&mut self, p: &RuleProgram) {
        // The rules that fire whenever a command is played, whatever else holds.
        let mut with_cmd: HashMap<CmdId, Vec<usize>> = HashMap::default();
        for (ri, r) in p.rules.iter().enumerate() {
            if let [
                CCond::Cmd {
                    neg: false,
                    opp: false,
                    back: 0,
                    cmd,
                },
            ] = p.rule_conds(r)
                && r.period <= 1
            {
                with_cmd.entry(*cmd).or_default().push(ri);
            }
        }
        let free_rates: Vec<f64> = self
            .nodes
            .iter()
            .map(|n| free_rate(n, None, |_| true))
            .collect();
        let mut all: Vec<Vec<Vec<Spend>>> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let per_node = n
                .achievers
                .iter()
                .map(|a| {
                    if !a.needs_command || a.opponent {
                        return vec![];
                    }
                    let mut conds: Vec<usize> = Vec::new();
                    for &c in &a.conds {
                        if self.nodes[c].key.target == Target::Enabled {
                            for b in &self.nodes[c].achievers {
                                if b.step == Step::Enable {
                                    conds.extend(&b.conds);
                                }
                            }
                        } else {
                            conds.push(c);
                        }
                    }
                    conds.sort_unstable();
                    conds.dedup();
                    let mut rules = vec![a.rule];
                    for c in p.rule_conds(&p.rules[a.rule]) {
                        if let CCond::Cmd {
                            neg: false,
                            opp: false,
                            back: 0,
                            cmd,
                        } = c
                        {
                            for &r in with_cmd.get(cmd).into_iter().flatten() {
                                if !rules.contains(&r) {
                                    rules.push(r);
                                }
                            }
                        }
                    }
                    conds
                        .into_iter()
                        .filter_map(|c| {
                            let node = &self.nodes[c];
                            let Target::Range(lo, hi) = node.key.target else {
                                return None;
                            };
                            if (lo == i64::MIN) == (hi == i64::MAX) {
                                return None; // bounded on both sides, or no bound
                            }
                            let mut per = 0.0;
                            for &r in &rules {
                                for e in p.rule_effects(&p.rules[r]) {
                                    // Net of what the same firing gives back.
                                    let d = match step_of(p, e, &node.key) {
                                        Ok(Some(Step::Add(d))) => Some(d),
                                        // A clamped `+=`/`-=` nets as a step of 1.
                                        Ok(Some(Step::Clamp(c))) if c.sign != 0 => {
                                            Some(c.sign as f64)
                                        }
                                        _ => None,
                                    };
                                    if let Some(d) = d {
                                        if moves_toward(Step::Add(d), node.key.target) {
                                            per -= d.abs();
                                        } else {
                                            per += d.abs();
                                        }
                                    }
                                }
                            }
                            (per > 0.0).then_some(Spend {
                                node: c,
                                per,
                                free: free_rates[c],
                            })
                        })
                        .collect()
                })
                .collect();
            all.push(per_node);
        }
        for (n, per) in self.nodes.iter_mut().zip(all) {
            for (a, s) in n.achievers.iter_mut().zip(per) {
                a.spends = s;
            }
        }
    }

    /// Fills in [`Achiever::rearm`]: for each achiever, the effects of its rule that set one of
    /// its condition nodes' states outside the node's target, and the cheapest own cost of
    /// bringing that node back from the value set (its achievers' own conditions left out).
    fn set_rearm(&mut self, p: &RuleProgram) {
        // Bringing a condition back is estimated with every command-free achiever firing.
        let free_rates: Vec<f64> = self
            .nodes
            .iter()
            .map(|n| free_rate(n, None, |_| true))
            .collect();
        let mut rearm: Vec<Vec<u32>> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let mut per = Vec::with_capacity(n.achievers.len());
            for a in &n.achievers {
                let mut total = 0u32;
                for &c in &a.conds {
                    let node = &self.nodes[c];
                    // The condition as the rule's own effects name it (S and O exchanged for
                    // the opponent's rule).
                    let seen = if a.opponent {
                        NodeKey {
                            side: node.key.side.swapped().unwrap_or(node.key.side),
                            ..node.key
                        }
                    } else {
                        node.key
                    };
                    for e in p.rule_effects(&p.rules[a.rule]) {
                        let Ok(Some(Step::Set(v))) = step_of(p, e, &seen) else {
                            continue;
                        };
                        if target_holds(node.key.target, v) {
                            continue;
                        }
                        let back = node
                            .achievers
                            .iter()
                            .filter_map(|b| {
                                own_cost_of(
                                    node.key.target,
                                    v,
                                    b.step,
                                    b.needs_command,
                                    b.period,
                                    free_rates[c],
                                    node.grid,
                                )
                            })
                            .min()
                            .unwrap_or(NO_REARM);
                        total = total.saturating_add(back);
                    }
                }
                per.push(total);
            }
            rearm.push(per);
        }
        for (n, per) in self.nodes.iter_mut().zip(rearm) {
            for (a, r) in n.achievers.iter_mut().zip(per) {
                a.rearm = r;
            }
        }
    }

    /// The node of `k`, made (at `level`, queued for its achievers) if it is new.
    fn node_for(
        &mut self,
        p: &RuleProgram,
        k: NodeKey,
        level: u32,
        queue: &mut Vec<usize>,
    ) -> usize {
        if let Some(&i) = self.index.get(&k) {
            return i;
        }
        let i = self.nodes.len();
        self.nodes.push(Node {
            key: k,
            text: node_text(p, &k),
            level,
            achievers: vec![],
            grid: 0,
        });
        self.index.insert(k, i);
        queue.push(i);
        i
    }

    fn cond_nodes(
        &mut self,
        p: &RuleProgram,
        ri: usize,
        r: &CRule,
        level: u32,
        opponent: bool,
        queue: &mut Vec<usize>,
    ) -> (Vec<usize>, Vec<String>, bool, Vec<String>) {
        let mut nodes = Vec::new();
        let mut excluded = Vec::new();
        let mut never = false;
        for c in p.rule_conds(r) {
            match classify(p, c) {
                CondKind::Node(mut k) => {
                    // The opponent's own rule: its S is the pursuer's O.
                    if opponent {
                        k.side = k.side.swapped().unwrap_or(k.side);
                    }
                    let i = self.node_for(p, k, level, queue);
                    if !nodes.contains(&i) {
                        nodes.push(i);
                    }
                }
                CondKind::Free => {}
                CondKind::Excluded(text, reason) => {
                    never |= reason == NEVER_HOLDS;
                    let line = p.meta[ri].origin.line;
                    if !self
                        .excluded
                        .iter()
                        .any(|x| x.what == text && x.line == line)
                    {
                        self.excluded.push(Excluded {
                            what: text.clone(),
                            line,
                            reason,
                        });
                    }
                    excluded.push(text);
                }
            }
        }
        (nodes, excluded, never, opponent_moves(p, r, opponent))
    }
}

/// The conditions of rule `r` on the opponent's move (`O.[ガード]`, `!O.[ガード]`), as the
/// pursuer reads them: §10.5 costs them 0 (the search decides them), so a distance through the
/// rule counts on the opponent playing — or not playing — that command, and says so. For the
/// opponent's own instance (`opponent`), its own command conditions are the opponent's move.
pub(crate) fn opponent_moves(p: &RuleProgram, r: &CRule, opponent: bool) -> Vec<String> {
    let mut out = Vec::new();
    for c in p.rule_conds(r) {
        if let crate::program::CCond::Cmd {
            neg,
            opp,
            back,
            cmd,
            ..
        } = *c
            && opp != opponent
        {
            let t = format!(
                "{}O.[{}]{}",
                if neg { "!" } else { "" },
                p.commands[cmd as usize],
                match back {
                    0 => String::new(),
                    1 => " (the turn before)".into(),
                    b => format!(" ({b} turns before)"),
                }
            );
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// The rules that write each state or enable each command (for itself), by (an enabling, the
/// side written, the state or command): the only ones `step_of` can find a step or a problem
/// in. Without it every node scans every rule.
fn writers_of(p: &RuleProgram) -> HashMap<(bool, SideRef, u32), Vec<usize>> {
    let mut writers: HashMap<(bool, SideRef, u32), Vec<usize>> = HashMap::default();
    for (ri, r) in p.rules.iter().enumerate() {
        for e in p.rule_effects(r) {
            let at = match *e {
                CEffect::Enable {
                    opp: false,
                    cmd,
                    on: true,
                } => (true, SideRef::S, cmd),
                CEffect::Bool { side, state, .. } | CEffect::Update { side, state, .. } => {
                    (false, side, state)
                }
                _ => continue,
            };
            let v = writers.entry(at).or_default();
            if v.last() != Some(&ri) {
                v.push(ri);
            }
        }
    }
    writers
}

/// The rules that may move node `key` toward its target: (rule, the opponent's instance, for
/// one pursuer only, the side its effect names).
fn candidates(
    p: &RuleProgram,
    writers: &HashMap<(bool, SideRef, u32), Vec<usize>>,
    key: NodeKey,
) -> Vec<(usize, bool, Option<Side>, SideRef)> {
    let at = (key.target == Target::Enabled, key.side, key.id);
    // The pursuer's rules that write the node's state (or enable its command), then
    // the opponent's own command-free rules that write it: seen from the opponent, the
    // pursuer's S is its O.
    let own = writers.get(&at).map_or(&[][..], |v| &v[..]);
    let theirs: &[usize] = match (key.target, key.side.swapped()) {
        (Target::Enabled, _) => &[],
        (_, Some(f)) => writers.get(&(false, f, key.id)).map_or(&[][..], |v| &v[..]),
        (_, None) => &[],
    };
    let writing = |side: SideRef| writers.get(&(false, side, key.id)).into_iter().flatten();
    // (rule, the opponent's instance, for one pursuer only, the side its effect names).
    let mut candidates: Vec<(usize, bool, Option<Side>, SideRef)> = own
        .iter()
        .map(|&ri| (ri, false, None, key.side))
        .chain(
            theirs
                .iter()
                .filter(|&&ri| !p.rules[ri].has_cmd_atoms)
                .map(|&ri| (ri, true, None, key.side.swapped().unwrap_or(key.side))),
        )
        .collect();
    if key.target != Target::Enabled {
        match key.side {
            // h's or c's state, written relatively: by the pursuer's own instance when
            // it is that side (S) or the other (O), and by the opponent's command-free
            // instance the other way round.
            SideRef::H | SideRef::C => {
                let a: Side = if key.side == SideRef::H {
                    Side::H
                } else {
                    Side::C
                };
                for (w, mine) in [(SideRef::S, a), (SideRef::O, a.opponent())] {
                    for &ri in writing(w) {
                        candidates.push((ri, false, Some(mine), w));
                        if !p.rules[ri].has_cmd_atoms {
                            candidates.push((ri, true, Some(mine.opponent()), w));
                        }
                    }
                }
            }
            // The pursuer's (S) or opponent's (O) state written as h's or c's.
            SideRef::S | SideRef::O => {
                for (w, abs) in [(SideRef::H, Side::H), (SideRef::C, Side::C)] {
                    for &ri in writing(w) {
                        let pursuer = if key.side == SideRef::S {
                            abs
                        } else {
                            abs.opponent()
                        };
                        candidates.push((ri, false, Some(pursuer), w));
                    }
                }
            }
        }
    }
    candidates
}
