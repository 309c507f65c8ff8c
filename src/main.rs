//! Starts the studio, or runs a subcommand.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = kumite::cli::Cli::parse();
    match cli.command {
        Some(cmd) => kumite::cli::run(cmd),
        None => {
            eprintln!("the studio window is not built yet; try `kumite check rules/sumo.kmt`");
            ExitCode::from(2)
        }
    }
}
