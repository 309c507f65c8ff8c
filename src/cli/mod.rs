//! The command line: thin wrappers over the library.

use crate::diag::{JsonDiagnostic, LineIndex, Severity, render_ariadne};
use crate::program::{compile, expanded_kmt};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Kumite: design, check, play and analyse two-sided command games written as rule files.
#[derive(Parser, Debug)]
#[command(name = "kumite", version, about, long_about = None)]
pub struct Cli {
    /// What to do (without one, the studio window opens).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Human-readable text.
    #[default]
    Text,
    /// JSON.
    Json,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check rule files and report every problem with its line and column.
    Check {
        /// Rule files (.kmt).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Treat warnings as errors (exit status 1).
        #[arg(long)]
        deny_warnings: bool,
        /// Colour: auto (on a terminal), always, never.
        #[arg(long, default_value = "auto")]
        color: String,
    },
    /// Print the expanded program (macros and symmetric copies written out) as a .kmt file.
    Expand {
        /// Rule file.
        file: PathBuf,
        /// Write to this file instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

/// Reads a rule file, with a clear message on failure.
pub fn read_rules(path: &PathBuf) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| format!("{} is not UTF-8 text (invalid byte at offset {})", path.display(), e.utf8_error().valid_up_to()))
}

/// Runs a subcommand and returns the process exit code.
pub fn run(cmd: Command) -> ExitCode {
    match cmd {
        Command::Check { files, format, deny_warnings, color } => check(&files, format, deny_warnings, &color),
        Command::Expand { file, output } => expand(&file, output.as_ref()),
    }
}

fn check(files: &[PathBuf], format: Format, deny_warnings: bool, color: &str) -> ExitCode {
    let color = match color {
        "always" => true,
        "never" => false,
        _ => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let mut failed = false;
    let mut json = Vec::new();
    let mut stderr = std::io::stderr().lock();
    for f in files {
        let name = f.display().to_string();
        let text = match read_rules(f) {
            Ok(t) => t,
            Err(e) => {
                failed = true;
                if format == Format::Json {
                    json.push(serde_json::json!({"severity":"error","code":"E000","message":e,"file":name,"line":0,"column":0,"end_line":0,"end_column":0,"help":null}));
                } else {
                    let _ = writeln!(stderr, "error: {e}");
                }
                continue;
            }
        };
        let c = compile(&text);
        let idx = LineIndex::new(&text);
        for d in &c.diags {
            if d.severity == Severity::Error || deny_warnings {
                failed = true;
            }
            match format {
                Format::Json => json.push(serde_json::to_value(JsonDiagnostic::new(d, &name, &text, &idx)).unwrap_or_default()),
                Format::Text => {
                    let _ = write!(stderr, "{}", render_ariadne(d, &name, &text, color));
                }
            }
        }
        if format == Format::Text {
            let errors = c.error_count();
            let warnings = c.diags.len() - errors;
            let _ = writeln!(
                stderr,
                "{name}: {} error{}, {} warning{}{}",
                errors,
                if errors == 1 { "" } else { "s" },
                warnings,
                if warnings == 1 { "" } else { "s" },
                c.program.as_ref().map(|p| format!(" — {} rules, {} states, {} commands", p.rules.len(), p.states.len(), p.commands.len())).unwrap_or_default()
            );
        }
    }
    if format == Format::Json {
        println!("{}", serde_json::Value::Array(json));
    }
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

fn expand(file: &PathBuf, output: Option<&PathBuf>) -> ExitCode {
    let text = match read_rules(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let c = compile(&text);
    let name = file.display().to_string();
    if c.program.is_none() {
        for d in c.diags.iter().filter(|d| d.is_error()) {
            eprint!("{}", render_ariadne(d, &name, &text, std::io::stderr().is_terminal()));
        }
        eprintln!("{name}: cannot expand a file with errors");
        return ExitCode::from(1);
    }
    let out = expanded_kmt(&c, &name);
    match output {
        Some(p) => {
            if let Err(e) = crate::fsutil::write_atomic(p, out.as_bytes()) {
                eprintln!("error: cannot write {}: {e}", p.display());
                return ExitCode::from(2);
            }
        }
        None => print!("{out}"),
    }
    ExitCode::SUCCESS
}
