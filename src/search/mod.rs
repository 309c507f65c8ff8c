//! Search over the real rules: the CPU player (negamax with alpha-beta, a transposition table,
//! iterative deepening, the best move and killer moves tried first, and Star1/Star2 pruning below
//! chance; a mixed strategy from the matrix game in simultaneous mode), and the win-path /
//! forced-win solver.
//!
//! Inside a search `rand(a,b)` is chance: a move's value is the mean over its outcomes (every
//! combination when there are few, seeded samples otherwise — see [`Searcher::outcomes`]), the
//! shortest win may pick the favourable outcomes, and a forced win must hold for every outcome.
//! A search never touches a match's draws.
//!
//! The submodules, each naming only those listed before it (tests/suite/architecture.rs
//! checks that no circle comes back):
//! - `base.rs`: what all searches share — the engine they use ([`search_engine`]), a side's
//!   [`moves`], the evaluation scale, the chance, history and discount constants, and how a move
//!   that raised a rule error is valued ([`rule_error_loser`], [`RuleErrors`]);
//! - `keys.rs`: the position keys ([`position_key`] and the search's cheaper ones), and which
//!   table uses each; `settings.rs`: the CPU's settings ([`CpuSettings`]); [`matrix`]: matrix
//!   games (linear programming); [`bound`]: the admissible bound on plies to a win;
//! - `searcher.rs`: the [`Searcher`] (negamax, Star2 below chance, the simultaneous matrix
//!   game, the iterative deepening of [`Searcher::best_move`]), with, in `searcher/chance.rs`,
//!   a move's chance outcomes (enumerated or sampled, merged, kept for the next iteration);
//! - [`exact`]: the exact table behind `cpu:exact`; [`local`]: the local game graph of a
//!   simultaneous position;
//! - `cpu.rs`: the [`CpuPlayer`], the policy around the searcher (the exact table, the mixed
//!   strategy of simultaneous play, reading mistakes, the game's earlier positions);
//! - [`solve`]: the shortest win, the forced win and value iteration ([`shortest_win`],
//!   [`forced_win`], [`value_iteration`], [`GameValue`]); [`tactics`] and [`trained`] on top.
//!
//! This file only declares them and re-exports the public API.

mod base;
pub mod bound;
mod cpu;
pub mod exact;
mod keys;
pub mod local;
pub mod matrix;
mod searcher;
mod settings;
pub mod solve;
pub mod tactics;
pub mod trained;
pub use base::{
    CHANCE_EXACT, CHANCE_SAMPLES, FirstRuleError, MIN_CHANCE_WIDTH, RuleErrorSummary, RuleErrors,
    moves, rule_error_loser, search_engine, search_engine_with,
};
pub use cpu::{CpuPlayer, CpuStreams};
pub use keys::position_key;
pub use searcher::Searcher;
pub use settings::{CpuSettings, CpuSpecError, CpuSpecProblem, EXACT_BUDGET, EXACT_POSITIONS};
pub use solve::{
    GameValue, Mover, PathStep, VALUE_BOUND, VALUE_POSITIONS, forced_win, shortest_win,
    value_iteration,
};
