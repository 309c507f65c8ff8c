//! Kumite: a rule-design studio for two-sided command games (patent JP6735482B2).
//!
//! The library is the product: rule text → syntax → expansion → compiled [`program::RuleProgram`],
//! then the engine, analysis and search. The studio window and the command line are thin shells.

pub mod ai_protocol;
pub mod analysis;
pub mod arena;
pub mod authoring;
#[cfg(feature = "cli")]
pub mod cli;
pub mod diag;
pub mod engine;
pub mod expand;
pub mod fsutil;
#[cfg(feature = "studio")]
pub mod gui;
pub mod incremental;
pub mod load;
pub mod lsp;
pub mod pipeline;
pub mod players;
pub mod program;
pub mod report;
pub mod search;
pub mod side;
pub mod symbols;
pub mod syntax;
