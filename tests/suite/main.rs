//! Kumite's integration tests, one binary (one link instead of one per file): each module
//! is one area, as the files were before. Run one area with a filter, e.g.
//! `cargo test --release --test suite report::`; the measurements marked `#[ignore]` with
//! `cargo test --release --test suite gui_match:: -- --ignored --nocapture`.

mod common;
mod reference;

mod ai_protocol;
mod architecture;
mod arena;
mod authoring;
mod cli;
mod cpu_strength;
mod diagnostics;
mod differential;
mod docs_cli;
mod editor_clients;
mod engine;
mod exact_play;
mod fuzz_inputs;
mod golden;
#[cfg(feature = "studio")]
mod gui;
#[cfg(feature = "studio")]
mod gui_assist;
#[cfg(feature = "studio")]
mod gui_layout;
#[cfg(feature = "studio")]
mod gui_match;
#[cfg(feature = "studio")]
mod gui_report;
mod hardening;
mod headless;
mod lsp;
#[cfg(feature = "studio")]
mod match_session;
mod parse_cache;
mod parser_props;
mod python;
mod regressions;
mod report;
mod rules_files;
mod search;
mod suggest;
mod verdicts;
mod win_bound;
