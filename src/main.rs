//! Starts the studio, or runs a subcommand.

use clap::Parser;
use std::process::ExitCode;

/// mimalloc: small allocations (syntax trees, positions) are much cheaper than with glibc's.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = kumite::cli::Cli::parse();
    match cli.command {
        Some(kumite::cli::Command::Studio { file }) => studio(file),
        Some(cmd) => kumite::cli::run(cmd),
        None => studio(None),
    }
}

#[cfg(not(feature = "studio"))]
fn studio(_file: Option<std::path::PathBuf>) -> ExitCode {
    eprintln!(
        "kumite: this build has no studio window (built without the `studio` feature); \
         every other command works: kumite --help"
    );
    ExitCode::from(2)
}

#[cfg(feature = "studio")]
fn studio(file: Option<std::path::PathBuf>) -> ExitCode {
    match kumite::gui::run_with(file) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kumite: could not open the studio window: {e}");
            ExitCode::from(2)
        }
    }
}
