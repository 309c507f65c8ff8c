//! Starts the studio, or runs a subcommand.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = kumite::cli::Cli::parse();
    match cli.command {
        Some(cmd) => kumite::cli::run(cmd),
        None => match kumite::gui::run() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("kumite: could not open the studio window: {e}");
                ExitCode::from(2)
            }
        },
    }
}
