//! Starts the studio, or runs a subcommand.

use clap::Parser;
use std::process::ExitCode;

/// mimalloc: small allocations (syntax trees, positions) are much cheaper than with glibc's.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The signal that is ending Kumite (0: none). Set before the AIs are killed: a match whose
/// AI then dies must not end the program with its own status first.
static ENDING: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

fn main() -> ExitCode {
    end_ais_on_signals();
    let cli = kumite::cli::Cli::parse();
    let code = match cli.command {
        Some(kumite::cli::Command::Studio { file }) => studio(file),
        Some(cmd) => kumite::cli::run(cmd),
        None => studio(None),
    };
    match ENDING.load(std::sync::atomic::Ordering::SeqCst) {
        0 => code,
        sig => std::process::exit(128 + sig),
    }
}

/// Ctrl-C, a hang-up or a terminate request ends Kumite as it would without a handler (exit
/// status 128 + the signal), but first ends the external AIs it runs: each leads its own process
/// group (so that ending one ends what it started), which the terminal's Ctrl-C does not reach.
#[cfg(unix)]
fn end_ais_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        std::thread::spawn(move || {
            let mut signals = signals.forever();
            if let Some(sig) = signals.next() {
                ENDING.store(sig, std::sync::atomic::Ordering::SeqCst);
                kumite::ai_protocol::kill_all();
                // The studio closes its window itself (recovery copy first); exiting from this
                // thread while the window renders can crash. A second signal, or a window
                // that has not closed in 10 s, ends the process here.
                #[cfg(feature = "studio")]
                if kumite::gui::close_for_signal(sig) {
                    std::thread::spawn(move || {
                        std::thread::sleep(std::time::Duration::from_secs(10));
                        std::process::exit(128 + sig);
                    });
                    let _ = signals.next();
                }
                std::process::exit(128 + sig);
            }
        });
    }
}

#[cfg(not(unix))]
fn end_ais_on_signals() {}

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
