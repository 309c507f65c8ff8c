//! The command line: thin wrappers over the library.

/// `print!` that ends the process quietly when stdout is a closed pipe (`kumite … | head`).
macro_rules! out {
    ($($t:tt)*) => { $crate::cli::write_out(format_args!($($t)*)) };
}

/// `println!` that ends the process quietly when stdout is a closed pipe.
macro_rules! outln {
    () => { $crate::cli::write_out(format_args!("\n")) };
    ($($t:tt)*) => { $crate::cli::write_out(format_args!("{}\n", format_args!($($t)*))) };
}

pub mod analyse;
pub mod exit;
pub mod play;
pub mod turns;

/// Writes to stdout; a reader that went away (a broken pipe) ends the process with status 0,
/// as for other command-line tools, instead of a panic.
pub fn write_out(args: std::fmt::Arguments) {
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_fmt(args).and_then(|()| o.flush())
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

use crate::diag::{AriadneRenderer, DiagCode, JsonDiagnostic, LineIndex, Severity};
use crate::pipeline::{compile, expanded_kmt};
use crate::side::Side;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A `--delay` value: seconds, 0 to 60.
fn parse_delay(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=60.0).contains(&v) => Ok(v),
        Ok(_) => Err("the delay must be between 0 and 60 seconds".into()),
        Err(_) => Err(format!("'{s}' is not a number of seconds")),
    }
}

/// Stack bytes per ply of `solve --depth` (the forced-win proof recurses once per ply; a ply
/// takes well under this).
const SOLVE_STACK_PER_PLY: usize = 4096;

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

/// When `check` colours its reports (`--color`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorArg {
    /// On a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// `tree`'s output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum TreeFormat {
    /// Human-readable text.
    #[default]
    Text,
    /// JSON.
    Json,
    /// Graphviz DOT.
    Dot,
}

/// A side named on the command line (`--first h|c`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SideArg {
    /// h (the human's side).
    H,
    /// c (the CPU's side).
    C,
}

/// The start position of the commands that play or search from it: `--set` and `--first`.
#[derive(Args, Clone, Debug, Default)]
pub struct StartArgs {
    /// Override an initial value: h.NAME=V, c.NAME=V or NAME=V (both). Repeatable.
    #[arg(long = "set", value_name = "NAME=V")]
    pub set: Vec<String>,
    /// Who moves first (alternate mode); default from the file's ~ line.
    #[arg(long, value_enum)]
    pub first: Option<SideArg>,
}

/// `--set` alone, for the commands that start from the file's first mover.
#[derive(Args, Clone, Debug, Default)]
pub struct SetArgs {
    /// Override an initial value: h.NAME=V, c.NAME=V or NAME=V (both). Repeatable.
    #[arg(long = "set", value_name = "NAME=V")]
    pub set: Vec<String>,
}

/// Subcommands.
/// `kumite match`'s arguments.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Rule file.
    file: PathBuf,
    /// Player for h: human, random, cpu[:S5,D1,E0,P200,N100000], cpu:exact or ai:COMMAND.
    #[arg(long = "h", default_value = "human")]
    h: String,
    /// Player for c: human, random, cpu[:…], cpu:exact or ai:COMMAND.
    #[arg(long = "c", default_value = "random")]
    c: String,
    /// Seed for rand() and random players.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    start: StartArgs,
    /// Stop after this many turns (a draw).
    #[arg(long)]
    max_turns: Option<u32>,
    /// Seconds to wait after each turn, to watch (0 to 60).
    #[arg(long, default_value_t = 0.0, value_parser = parse_delay)]
    delay: f64,
    /// Show which rules fired and what changed each turn.
    #[arg(long)]
    trace: bool,
    /// Seconds an external AI may take per decision.
    #[arg(long, default_value_t = 5.0)]
    ai_timeout: f64,
    /// Write the whole match as JSON lines to this file (replay it with `kumite replay`).
    #[arg(long)]
    log: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// `kumite suggest`'s arguments.
#[derive(Args, Debug)]
pub struct SuggestArgs {
    /// Rule file.
    file: PathBuf,
    /// The goal: the game value for h within ±this.
    #[arg(long, default_value_t = 0.05)]
    max_value: f64,
    /// The goal: under optimal play, at most this share of games without a winner.
    #[arg(long, default_value_t = 0.10)]
    max_draws: f64,
    /// The goal: every command of each side is played by optimal play in some position
    /// (no command that is never worth playing; games judged exactly only).
    #[arg(long)]
    every_command: bool,
    /// The goal: skill matters — random loses to the deepest CPU level (the report's key
    /// skill pairing, checked on the file and on each suggestion found).
    #[arg(long)]
    skill_matters: bool,
    /// The goal: games last at most N turns on average (expected under optimal play, or
    /// the CPU games' mean when sampled).
    #[arg(long, value_name = "N")]
    max_turns: Option<f64>,
    /// Edits per suggestion at most (1 or 2).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=2))]
    max_edits: u64,
    /// The time cap, in seconds, the file's own measurement included: past it the search
    /// stops and says where. It never changes which games are played before it.
    #[arg(long, default_value_t = 60.0)]
    seconds: f64,
    /// Moves' work the sampled search plans (games times the moves a game of the file
    /// takes, a move counted once more per 250 search nodes it costs): the search's size,
    /// the same on every machine.
    #[arg(long, value_name = "N", default_value_t = crate::report::suggest::DEFAULT_MOVES,
          value_parser = clap::value_parser!(u64).range(1_000..))]
    moves: u64,
    /// Lines whose numbers no edit may change: `--keep 9`, `--keep 9,12`, `--keep 20-25`
    /// (repeatable). A line can also lock itself with a `# kumite: keep` comment.
    #[arg(long, value_name = "LINES", value_parser = parse_lines)]
    keep: Vec<Vec<usize>>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Open the studio window (the same as no command), with FILE if given.
    Studio {
        /// A rule file to open (else the last file, or the bundled sumo example).
        file: Option<PathBuf>,
    },
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
        #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
        color: ColorArg,
    },
    /// Play one match and print the result.
    Match(MatchArgs),
    /// Play many matches in parallel and report wins, draws and losses.
    Arena {
        /// Rule file.
        file: PathBuf,
        /// Player for h: random, cpu[:…], cpu:exact or ai:COMMAND.
        #[arg(long = "h", default_value = "random")]
        h: String,
        /// Player for c: random, cpu[:…], cpu:exact or ai:COMMAND.
        #[arg(long = "c", default_value = "random")]
        c: String,
        /// Number of games.
        #[arg(long, default_value_t = 100)]
        games: u64,
        /// Base seed (game i uses a seed derived from it and i).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Worker threads (results do not depend on it; games with an ai: player run one after
        /// another through one AI process).
        #[arg(long)]
        jobs: Option<usize>,
        /// Seconds an external AI may take per decision.
        #[arg(long, default_value_t = 5.0)]
        ai_timeout: f64,
        #[command(flatten)]
        start: StartArgs,
        /// Play only slice I of N of the games (0 ≤ I < N; game i keeps its seed); merge the
        /// slices' JSON results with `kumite merge`.
        #[arg(long, value_name = "I/N", value_parser = crate::arena::Shard::parse)]
        shard: Option<crate::arena::Shard>,
        /// Output format (json carries everything `kumite merge` needs).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Add up the JSON results of arena shards (`kumite arena --shard I/N --format json`).
    Merge {
        /// Result files (`-` reads standard input).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Count move sequences to a depth (tests move generation).
    Perft {
        /// Rule file.
        file: PathBuf,
        /// Depth in turns.
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// Seed for rand() draws along the way.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        start: StartArgs,
    },
    /// Show the derived victory-condition graph with both sides' distances to winning.
    Tree {
        /// Rule file.
        file: PathBuf,
        #[command(flatten)]
        sets: SetArgs,
        /// Output format: text, json or dot (Graphviz).
        #[arg(long, value_enum, default_value_t = TreeFormat::Text)]
        format: TreeFormat,
    },
    /// Find the shortest win for h (勝ち筋) and whether h can force a win; for simultaneous games
    /// also the depth-limited game value and both mixed strategies at the start.
    Solve {
        /// Rule file.
        file: PathBuf,
        #[command(flatten)]
        start: StartArgs,
        /// Search depth in plies (alternate: single moves; simultaneous: joint turns), at most
        /// 100,000.
        #[arg(long, default_value_t = crate::search::solve::WIN_PATH_PLIES, value_parser = clap::value_parser!(u32).range(0..=100_000))]
        depth: u32,
        /// Also compute the game value and mixed strategies (simultaneous games).
        #[arg(long)]
        value: bool,
        /// Positions the shortest-win search may hold (default: as many as fit in about
        /// 1.5 GB); when they run out, it says so and up to which ply no win exists.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        positions: Option<u64>,
        /// With --value: how much a best reply gains against this player (random, cpu[:…],
        /// cpu:exact or ai:COMMAND) playing c — a level's exploitability.
        #[arg(long, value_name = "PLAYER")]
        against: Option<String>,
        /// Seconds an external AI (--against ai:…) may take per position asked.
        #[arg(long, default_value_t = 5.0)]
        ai_timeout: f64,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// A balance report: outcome and first-mover advantage, length, decisions, which rules fire,
    /// which commands matter, whether skill matters, tension, and sweeps of a starting value
    /// (every measure is defined in the README).
    Report {
        /// Rule file.
        file: PathBuf,
        /// CPU games per seating for the outcome; the other sections scale from it (random
        /// games ×10; restricted play ×¼ per command and seating, 10 to 50; skill ×¼ per
        /// pairing, at least 10).
        #[arg(long, default_value_t = crate::report::DEFAULT_GAMES, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
        games: u64,
        /// Seed: every figure is reproducible from it, whatever --jobs is.
        #[arg(long, default_value_t = crate::report::DEFAULT_SEED)]
        seed: u64,
        /// Two player specs, h's then c's (e.g. cpu:S5,random or cpu,ai:'python3 my.py'),
        /// for every section but the skill round robin (default: the file's CPU for the
        /// outcome, random vs random for rules and decisions).
        #[arg(long)]
        players: Option<String>,
        /// Sweep a starting value or a constant: NAME=LO..HI[:STEP] (c.体力=16..28, 費用=3..7).
        #[arg(long)]
        sweep: Option<String>,
        /// Only these sections, comma-separated: outcome, length, tension, decisions, rules,
        /// exact, restricted, skill (default all; a --sweep always runs).
        #[arg(long)]
        sections: Option<String>,
        /// Worker threads (default: one per core).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
        jobs: Option<u64>,
        /// Seconds an external AI (--players ai:…) may take per decision.
        #[arg(long, default_value_t = 5.0)]
        ai_timeout: f64,
        /// Compare with another version of the rules: both reports with the same players, seed
        /// and games, side by side, each difference (FILE − AGAINST) with its 95% interval.
        #[arg(long, value_name = "AGAINST")]
        against: Option<PathBuf>,
        #[command(flatten)]
        sets: SetArgs,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Suggest the smallest edits of the file's numbers (constants, start values, costs,
    /// thresholds, periods, the turn limit) that make the game fair, each with its evidence
    /// before and after: the exact game value where the game can be solved for every edit (the
    /// value of `kumite solve --value`), else the report's CPU games with their intervals.
    Suggest(SuggestArgs),
    /// Replay a match log written by `kumite match --log` and verify that the rules and seed
    /// give the same outcome.
    Replay {
        /// The log file (JSON lines).
        log: PathBuf,
    },
    /// Rewrite rule files in canonical spacing (comments and full-width characters kept; lines
    /// with a syntax error left as they are).
    Fmt {
        /// Rule files (.kmt); `-` reads standard input and writes standard output.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Change nothing: list the files that are not in canonical form and exit with status 1
        /// if there are any (for CI).
        #[arg(long)]
        check: bool,
    },
    /// Run the language server over standard input and output (for VS Code, Helix, Neovim …):
    /// diagnostics as you type, completion, hover, go to definition, references, rename,
    /// document symbols, semantic tokens, formatting and quick fixes.
    Lsp {
        /// Accepted and ignored (some clients pass it; standard input/output is the only
        /// transport).
        #[arg(long)]
        stdio: bool,
    },
    /// Print the expanded program (macros and symmetric copies written out) as a .kmt file.
    Expand {
        /// Rule file.
        file: PathBuf,
        /// Write to this file instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Learn an evaluation from self-play (the CPU at S2 with three mistakes in ten, against
    /// itself): a logistic regression that predicts h's result from a position's state values,
    /// enabled commands, derived distances and derived evaluation. Writes FILE.trained.json
    /// next to the file (FILE's name with .trained.json for .kmt); `cpu:trained` then plays
    /// with it (alternate games).
    Train {
        /// Rule file.
        file: PathBuf,
        /// Self-play games (10,000: karate learns in about 30 s on two cores).
        #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
        games: u64,
        /// Seed of the first game (game k is seeded SEED + k).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write here instead of next to the rule file.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Output format of the summary.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

/// `kumite train`.
fn train(file: &Path, games: u64, seed: u64, output: Option<&PathBuf>, format: Format) -> ExitCode {
    let prog = match load_program(file, &[]) {
        Ok((p, _)) => p,
        Err(e) => return fail(&e),
    };
    if prog.settings.simultaneous {
        return fail(&format!(
            "{}: a simultaneous game — its CPU plays the local game graph's mixes, which a learned evaluation does not change; `kumite train` is for alternate games",
            file.display()
        ));
    }
    let out = output
        .cloned()
        .unwrap_or_else(|| crate::search::trained::trained_path(file));
    if let Err(e) = refuse_onto_input(file, &out, "the output") {
        return fail(&e);
    }
    // Find out now, not after every game has been played, that the output cannot be written.
    if let Err(e) = crate::fsutil::check_writable(&out) {
        return fail(&format!("cannot write {}: {e}", out.display()));
    }
    let t0 = std::time::Instant::now();
    let learned = crate::search::trained::train(&prog, games, seed);
    let secs = t0.elapsed().as_secs_f64();
    let results = learned.results.unwrap_or_default();
    if let Some(why) = results.nothing_to_learn() {
        eprintln!(
            "kumite train: {}: {why} (cpu:{} against itself, {} distinct game{}); nothing written — a learned evaluation needs games won and lost (or drawn) from different positions",
            file.display(),
            crate::search::trained::TRAIN_PLAYERS,
            results.distinct,
            if results.distinct == 1 { "" } else { "s" }
        );
        return exit::code(exit::FOUND);
    }
    let json = match serde_json::to_string_pretty(&learned) {
        Ok(j) => j,
        Err(e) => return fail(&e),
    };
    if let Err(e) = crate::fsutil::write_atomic(&out, (json + "\n").as_bytes()) {
        return fail(&format!("cannot write {}: {e}", out.display()));
    }
    if format == Format::Json {
        outln!(
            "{}",
            serde_json::json!({
                "file": out.display().to_string(),
                "games": learned.games,
                "positions": learned.positions,
                "players": learned.players,
                "log_loss": learned.log_loss,
                "derived_log_loss": learned.derived_log_loss,
                "results": results,
                "seconds": secs,
            })
        );
    } else {
        outln!(
            "learned from {} self-play games ({}, seeds {} to {}), {} positions, in {secs:.1} s",
            learned.games,
            learned.players,
            seed,
            seed.wrapping_add(games - 1),
            learned.positions
        );
        outln!(
            "results: h won {}, c won {}, {} drawn{}; {} distinct games",
            results.h_wins,
            results.c_wins,
            results.draws,
            if results.errors > 0 {
                format!(", {} ended by a rule error (left out)", results.errors)
            } else {
                String::new()
            },
            results.distinct
        );
        outln!(
            "predicting h's result: log loss {:.4} (the derived evaluation alone: {:.4}; a coin: 0.6931)",
            learned.log_loss,
            learned.derived_log_loss
        );
        let mut top: Vec<(&String, f64)> = learned
            .features
            .iter()
            .zip(&learned.weights)
            .map(|(n, w)| (n, *w))
            .collect();
        top.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
        let shown: Vec<String> = top
            .iter()
            .take(6)
            .map(|(n, w)| format!("{n} {w:+.2}"))
            .collect();
        outln!(
            "heaviest features (per standard deviation, for h): {}",
            shown.join(", ")
        );
        outln!("wrote {} — play it with cpu:trained", out.display());
    }
    ExitCode::SUCCESS
}

/// `kumite fmt`. Every file is tried: one that cannot be read or written is reported and the
/// others are still formatted (exit 2 at the end if any failed).
fn fmt(files: &[PathBuf], check: bool) -> ExitCode {
    use std::io::Read;
    let mut unformatted = 0;
    let mut failed = 0;
    for f in files {
        if f.as_os_str() == "-" {
            let mut t = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut t) {
                eprintln!("error: cannot read standard input: {e}");
                failed += 1;
                continue;
            }
            let out = crate::authoring::fmt::format(&t);
            if check {
                if out != t {
                    outln!("-");
                    unformatted += 1;
                }
            } else {
                out!("{out}");
            }
            continue;
        }
        let t = match read_rules(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
                continue;
            }
        };
        let out = crate::authoring::fmt::format(&t);
        if out == t {
            continue;
        }
        unformatted += 1;
        if check {
            outln!("{}", f.display());
        } else if let Err(e) = crate::fsutil::write_atomic(f, out.as_bytes()) {
            eprintln!("error: cannot write {}: {e} (left as it was)", f.display());
            failed += 1;
        } else {
            outln!("formatted {}", f.display());
        }
    }
    if failed > 0 {
        eprintln!(
            "kumite: {failed} of {} file{} could not be formatted (see above)",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        );
        return exit::code(exit::CANNOT);
    }
    if check && unformatted > 0 {
        eprintln!(
            "kumite: {unformatted} file{} not in canonical form (run kumite fmt FILE)",
            if unformatted == 1 { " is" } else { "s are" }
        );
        return exit::code(exit::FOUND);
    }
    ExitCode::SUCCESS
}

/// Refuses an output path that names the input file (through links, either way): writing it
/// would replace the user's rules.
fn refuse_onto_input(input: &Path, out: &Path, what: &str) -> Result<(), String> {
    if crate::fsutil::same_file(input, out) {
        return Err(format!(
            "{what} {} is the rule file {} itself: writing it would replace the rules; choose another path",
            out.display(),
            input.display()
        ));
    }
    Ok(())
}

pub use crate::load::read_rules;

/// Runs a subcommand and returns the process exit code.
pub fn run(cmd: Command) -> ExitCode {
    match cmd {
        Command::Studio { .. } => {
            eprintln!("kumite: the studio is opened by the kumite binary itself");
            exit::code(exit::CANNOT)
        }
        Command::Check {
            files,
            format,
            deny_warnings,
            color,
        } => check(&files, format, deny_warnings, color),
        Command::Expand { file, output } => expand(&file, output.as_ref()),
        Command::Train {
            file,
            games,
            seed,
            output,
            format,
        } => train(&file, games, seed, output.as_ref(), format),
        Command::Fmt { files, check } => fmt(&files, check),
        Command::Lsp { .. } => match crate::lsp::run_stdio() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("kumite: language server: {e}");
                exit::code(exit::FOUND)
            }
        },
        Command::Match(a) => run_match(a),
        Command::Arena {
            file,
            h,
            c,
            games,
            seed,
            jobs,
            ai_timeout,
            start: StartArgs { set, first },
            shard,
            format,
        } => {
            if let Err(e) =
                check_not_human(&h, "an arena").and_then(|_| check_not_human(&c, "an arena"))
            {
                return fail(&e);
            }
            let (prog, config) = match load_program(&file, &set) {
                Ok(p) => p,
                Err(e) => return fail(&e),
            };
            let run = crate::arena::ArenaRun {
                prog: &prog,
                config: &config,
                rules_name: file.display().to_string(),
                h,
                c,
                games,
                seed,
                first: side_of(first, &prog),
                ai_timeout,
                shard,
                jobs,
            };
            arena(&run, format)
        }
        Command::Merge { files, format } => merge(&files, format),
        Command::Tree {
            file,
            sets: SetArgs { set },
            format,
        } => tree(&file, &set, format),
        Command::Solve {
            file,
            start: StartArgs { set, first },
            depth,
            value,
            positions,
            against,
            ai_timeout,
            format,
        } => solve(
            &file,
            &set,
            depth,
            first,
            value,
            positions,
            against.as_deref().map(|a| (a, ai_timeout)),
            format,
        ),
        Command::Report {
            file,
            games,
            seed,
            players,
            sweep,
            sections,
            jobs,
            ai_timeout,
            against,
            sets: SetArgs { set },
            format,
        } => {
            let sections = match sections.as_deref().map(crate::report::Sections::parse) {
                None => crate::report::Sections::default(),
                Some(Ok(s)) => s,
                Some(Err(e)) => return fail(&e),
            };
            report(
                &file,
                &ReportArgs {
                    games,
                    seed,
                    players: players.as_deref(),
                    sweep: sweep.as_deref(),
                    sections,
                    jobs,
                    ai_timeout,
                },
                against.as_deref(),
                &set,
                format,
            )
        }
        Command::Suggest(a) => run_suggest(a),
        Command::Replay { log } => match play::replay(&log) {
            Ok(msg) => {
                outln!("{msg}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("replay failed: {e}");
                exit::code(exit::FOUND)
            }
        },
        Command::Perft {
            file,
            depth,
            seed,
            start: StartArgs { set, first },
        } => perft(&file, depth, seed, &set, first),
    }
}

/// `kumite tree`: the victory-condition graph with both sides' distances, as text, JSON or dot.
fn tree(file: &Path, set: &[String], format: TreeFormat) -> ExitCode {
    let prog = match load_program(file, set) {
        Ok((p, _)) => p,
        Err(e) => return fail(&e),
    };
    let g = crate::analysis::VictoryGraph::build(&prog);
    let eng = crate::engine::Engine::new(&prog, 0);
    // Each side's commands as it meets them at its own next turn, as the studio's tree shows.
    let st = match eng
        .initial(side_of(None, &prog))
        .and_then(|s| eng.as_each_side_meets_it(&s))
    {
        Ok(s) => s,
        Err(e) => return rule_error(&e),
    };
    match format {
        TreeFormat::Json => outln!("{}", analyse::tree_json(&prog, &g, &eng, &st)),
        TreeFormat::Dot => out!("{}", analyse::tree_dot(&g, &eng, &st)),
        TreeFormat::Text => out!("{}", analyse::tree_text(&g, &eng, &st)),
    }
    ExitCode::SUCCESS
}

/// `kumite match`: one match, its result printed (and logged).
fn run_match(a: MatchArgs) -> ExitCode {
    let MatchArgs {
        file,
        h,
        c,
        seed,
        start: StartArgs { set, first },
        max_turns,
        delay,
        trace,
        ai_timeout,
        log,
        format,
    } = a;
    let (prog, config) = match load_program(&file, &set) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let opts = crate::engine::players::MatchOptions {
        seed,
        first: side_of(first, &prog),
        trace,
        max_turns,
        rules_name: file.display().to_string(),
        game: 0,
        lean: false,
    };
    let setup = play::MatchSetup {
        file: &file,
        sets: &set,
        config: &config,
        h: &h,
        c: &c,
        delay,
        ai_timeout,
        log: log.as_deref(),
        turns: play::TurnDisplay::for_match(trace, format == Format::Json, [&h, &c], delay),
        json: format == Format::Json,
    };
    match play::match_command(&prog, &opts, &setup) {
        Ok(p) => {
            play::print_result(&p, format == Format::Json);
            play::exit_code(&p.result)
        }
        Err(e) => fail(&e),
    }
}

/// `kumite suggest`: the smallest edits of the numbers that meet the goals.
fn run_suggest(a: SuggestArgs) -> ExitCode {
    let SuggestArgs {
        file,
        max_value,
        max_draws,
        every_command,
        skill_matters,
        max_turns,
        max_edits,
        seconds,
        moves,
        keep,
        format,
    } = a;
    let text = match read_rules(&file)
        .map_err(|e| e.to_string())
        .and_then(|t| load_program(&file, &[]).map(|_| t))
    {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    if !(max_value.is_finite()
        && max_value >= 0.0
        && (0.0..=1.0).contains(&max_draws)
        && seconds.is_finite()
        && seconds > 0.0
        && max_turns.is_none_or(|t| t.is_finite() && t > 0.0))
    {
        return fail(
            "--max-value must be 0 or more, --max-draws within 0..1, --max-turns and --seconds above 0",
        );
    }
    let opts = crate::report::suggest::SuggestOptions {
        goals: crate::report::suggest::Goals {
            max_abs_value: max_value,
            max_draws,
            every_command,
            skill_matters,
            max_turns,
        },
        max_edits: max_edits as usize,
        budget: std::time::Duration::from_secs_f64(seconds.min(1e6)),
        moves,
        keep: keep.into_iter().flatten().collect(),
        ..Default::default()
    };
    match crate::report::suggest::suggest(&text, &opts) {
        Ok(s) => {
            match format {
                Format::Text => print!("{}", crate::report::suggest::text(&s)),
                Format::Json => println!(
                    "{}",
                    serde_json::to_string(&s).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
                ),
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(&format!("{}: {e}", file.display())),
    }
}

/// `kumite solve`: the shortest win for h and a forced-win proof (the game value and mixed
/// strategies with `--value`, the exploitation of a player with `--against`).
#[allow(clippy::too_many_arguments)]
fn solve(
    file: &Path,
    set: &[String],
    depth: u32,
    first: Option<SideArg>,
    value: bool,
    positions: Option<u64>,
    against: Option<(&str, f64)>,
    format: Format,
) -> ExitCode {
    let (prog, config) = match load_program(file, set) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let first = side_of(first, &prog);
    // The forced-win proof recurses once per ply: give it a stack to match the depth.
    let stack = (16 << 20) + depth as usize * SOLVE_STACK_PER_PLY;
    let out = match std::thread::scope(|sc| {
        std::thread::Builder::new()
            .name("kumite-solve".into())
            .stack_size(stack)
            .spawn_scoped(sc, || {
                analyse::solve(&prog, first, depth, value, positions.map(|p| p as usize))
            })
            .map(|h| h.join())
    }) {
        Ok(Ok(out)) => out,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(e) => {
            eprintln!("error: cannot start the solver for depth {depth}: {e}");
            return exit::code(exit::CANNOT);
        }
    };
    let mut out = match out {
        Ok(out) => out,
        Err(e) => return fail(&e),
    };
    if let Some((spec, ai_timeout)) = against {
        match analyse::against(&prog, &config, first, spec, out.game_value(), ai_timeout) {
            Ok(a) => out.against = Some(a),
            Err(e) => return fail(&e),
        }
    }
    if format == Format::Json {
        outln!("{}", serde_json::to_string(&out).unwrap_or_default());
    } else {
        out!("{}", analyse::solve_text(&out));
    }
    ExitCode::SUCCESS
}

/// `kumite perft`: move sequences counted to each depth up to `depth`.
fn perft(file: &Path, depth: u32, seed: u64, set: &[String], first: Option<SideArg>) -> ExitCode {
    let prog = match load_program(file, set) {
        Ok((p, _)) => p,
        Err(e) => return fail(&e),
    };
    let eng = crate::engine::Engine::new(&prog, seed);
    let st = match eng.initial(side_of(first, &prog)) {
        Ok(s) => s,
        Err(e) => return rule_error(&e),
    };
    let t0 = std::time::Instant::now();
    for d in 1..=depth {
        let mut decided = 0;
        match play::perft(&eng, &st, d, &mut decided) {
            Ok(n) => outln!("depth {d}: {n} sequences ({decided} decided earlier)"),
            Err(e) => return rule_error(&e),
        }
    }
    eprintln!("{:.3} s", t0.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}

/// `kumite report`'s settings.
struct ReportArgs<'a> {
    games: u64,
    seed: u64,
    players: Option<&'a str>,
    sweep: Option<&'a str>,
    sections: crate::report::Sections,
    jobs: Option<u64>,
    ai_timeout: f64,
}

/// `kumite report`.
/// A file's program, text and report options from the command line.
fn report_setup(
    file: &Path,
    a: &ReportArgs,
    set: &[String],
) -> Result<
    (
        crate::program::RuleProgram,
        String,
        crate::report::ReportOptions,
    ),
    String,
> {
    let ReportArgs {
        games,
        seed,
        players,
        sweep,
        sections,
        jobs,
        ai_timeout,
    } = *a;
    let (prog, config) = load_program(file, set)?;
    let source = read_rules(file).unwrap_or_default();
    let mut opts = crate::report::ReportOptions {
        games,
        seed,
        jobs: jobs.map(|j| j as usize),
        sections,
        ai_timeout,
        config,
        ..Default::default()
    };
    if let Some(p) = players {
        let pair = crate::report::split_players(p).map_err(|e| e.to_string())?;
        for spec in &pair {
            crate::players::make_player(&prog, &opts.config, spec, 0, Side::H, ai_timeout)
                .map_err(|e| e.to_string())
                .and_then(|_| check_not_human(spec, "a report"))
                .map_err(|e| format!("--players: {e}"))?;
        }
        opts.players = Some(pair.clone());
        opts.sample_players = Some(pair);
    }
    if let Some(s) = sweep {
        let sw = crate::report::Sweep::parse(s, &prog).map_err(|e| e.to_string())?;
        if let Some(v) = sw.values.first() {
            sw.apply(&prog, &source, *v)
                .map_err(|e| format!("--sweep: {e}"))?;
        }
        opts.sweep = Some(sw);
    }
    Ok((prog, source, opts))
}

fn report(
    file: &Path,
    a: &ReportArgs,
    against: Option<&Path>,
    set: &[String],
    format: Format,
) -> ExitCode {
    let mut runs = Vec::new();
    for f in std::iter::once(file).chain(against) {
        match report_setup(f, a, set) {
            Ok(r) => runs.push((f, r)),
            // With two files, the message names the one it is about.
            Err(e) if against.is_some() && !e.contains(&f.display().to_string()) => {
                return fail(&format!("{}: {e}", f.display()));
            }
            Err(e) => return fail(&e),
        }
    }
    let tty = std::io::stderr().is_terminal() && format == Format::Text;
    let mut reports = Vec::new();
    for (k, (f, (prog, source, opts))) in runs.iter().enumerate() {
        let progress = crate::report::Progress::new();
        let name = f.display().to_string();
        let t0 = std::time::Instant::now();
        let label = if against.is_some() {
            ["A: ", "B: "][k]
        } else {
            ""
        };
        let result = crate::report::run(source, &name, prog, opts, &progress, |_| {
            if tty {
                eprint!(
                    "\r{label}{} of {} games, {:.0} s   ",
                    progress.done.load(std::sync::atomic::Ordering::Relaxed),
                    progress.total.load(std::sync::atomic::Ordering::Relaxed),
                    t0.elapsed().as_secs_f64()
                );
            }
        });
        if tty {
            eprint!("\r{:60}\r", "");
        }
        match result {
            Ok(r) => reports.push(r),
            Err(e) if against.is_some() => return fail(&format!("{name}: {e}")),
            Err(e) => return fail(&e),
        }
    }
    let silent: Vec<String> = reports
        .iter()
        .flat_map(|r| r.problems.never_moved.iter().cloned())
        .collect();
    let mut reports = reports.into_iter();
    let first = reports.next().expect("one report at least");
    match reports.next() {
        Some(second) => {
            let c = crate::report::compare::Comparison::new(first, second);
            if format == Format::Json {
                outln!(
                    "{}",
                    serde_json::to_value(&c).unwrap_or(serde_json::Value::Null)
                );
            } else {
                out!("{}", crate::report::compare::render(&c));
            }
        }
        None => {
            if format == Format::Json {
                outln!("{}", first.to_json());
            } else {
                out!("{}", crate::report::text::render(&first));
            }
        }
    }
    for p in &silent {
        eprintln!(
            "error: {p} never played a move: it forfeited every game of the report before its first choice"
        );
    }
    if silent.is_empty() {
        ExitCode::SUCCESS
    } else {
        exit::code(exit::SILENT_AI)
    }
}

fn check_not_human(spec: &str, what: &str) -> Result<(), String> {
    if spec.trim() == "human" {
        Err(format!(
            "{what} plays many games unattended: human is not a player here (kumite match --h human plays one game at the terminal)"
        ))
    } else {
        Ok(())
    }
}

fn fail(msg: &(impl std::fmt::Display + ?Sized)) -> ExitCode {
    eprintln!("error: {msg}");
    exit::code(exit::CANNOT)
}

/// A rule's runtime error during play: status 3, as `match` gives.
fn rule_error(e: &(impl std::fmt::Display + ?Sized)) -> ExitCode {
    eprintln!("runtime error at {e}");
    exit::code(exit::RULE_ERROR)
}

/// The side that moves first: `--first`, else the file's `~` line.
fn side_of(first: Option<SideArg>, prog: &crate::program::RuleProgram) -> Side {
    match first {
        Some(SideArg::C) => crate::side::C,
        Some(SideArg::H) => crate::side::H,
        None => Side::first_mover(prog.settings.cpu_first),
    }
}

/// Reads, compiles (reporting errors) and applies `--set` overrides; the run's config holds the
/// learned evaluation read beside the file.
pub fn load_program(
    file: &Path,
    sets: &[String],
) -> Result<(crate::program::RuleProgram, crate::program::RunConfig), String> {
    crate::load::load_file(file, sets).map_err(|e| {
        // A file with errors: each at its line and column, as `kumite check` shows them.
        if let crate::load::LoadError::Errors {
            name,
            text,
            compiled,
        } = &e
        {
            let mut r = AriadneRenderer::new(name, text, std::io::stderr().is_terminal());
            for d in compiled.diags.iter().filter(|d| d.is_error()) {
                eprint!("{}", r.render(d));
            }
        }
        e.to_string()
    })
}

fn arena(run: &crate::arena::ArenaRun, format: Format) -> ExitCode {
    let t0 = std::time::Instant::now();
    let stats = match crate::arena::run(run) {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let secs = t0.elapsed().as_secs_f64();
    let json = crate::arena::result_json(run, &stats, secs);
    print_arena(&json, &stats, format);
    let silent = stats.never_moved();
    if !silent.is_empty() {
        for s in &silent {
            eprintln!(
                "error: {} ({}) never played a move: it forfeited all {} games before its first choice{}",
                s.name(),
                if *s == Side::H { &run.h } else { &run.c },
                stats.games,
                stats
                    .forfeit_examples
                    .first()
                    .map(|(g, m)| format!(" (game {g}: {m})"))
                    .unwrap_or_default()
            );
        }
        exit::code(exit::SILENT_AI)
    } else if stats.errors > 0 {
        exit::code(exit::RULE_ERROR)
    } else {
        ExitCode::SUCCESS
    }
}

/// Prints an arena result (a run's or merged shards').
fn print_arena(json: &serde_json::Value, stats: &crate::arena::ArenaStats, format: Format) {
    if format == Format::Json {
        outln!("{json}");
        return;
    }
    let s = stats;
    let ranges = json["game_ranges"].as_array().map_or(0, Vec::len);
    let total = json["total_games"].as_u64().unwrap_or(s.games);
    if s.games != total || ranges > 1 {
        outln!("games {} of a run of {total}", json["game_ranges"]);
    }
    outln!(
        "{} games: h {} wins, c {} wins, {} draws, {} errors, {} forfeits",
        s.games,
        s.h_wins,
        s.c_wins,
        s.draws,
        s.errors,
        s.forfeits
    );
    for (g, m) in &s.forfeit_examples {
        outln!("  game {g}: {m}");
    }
    // One convention with the report: a draw counts half a win.
    let n = s.games.max(1) as f64;
    let score = (s.h_wins as f64 + 0.5 * s.draws as f64) / n;
    let (lo, hi) = crate::report::wilson_bounds(score, s.games);
    outln!(
        "h's score {:.1}% (a draw counts ½; 95% CI {:.1}–{:.1}%; h wins {:.1}% of games), mean {:.1} turns (median {}, p90 {}), {:.0} games/s",
        100.0 * score,
        lo * 100.0,
        hi * 100.0,
        100.0 * s.h_wins as f64 / n,
        s.mean_turns(),
        s.quantile(0.5),
        s.quantile(0.9),
        json["games_per_second"].as_f64().unwrap_or(0.0)
    );
    for (side, w) in s.search.iter().enumerate() {
        if let Some(w) = w.filter(|w| w.moves > 0) {
            outln!(
                "{} ({}): {} moves searched, {:.0} nodes a move, {:.2} M nodes/s over {:.2} s of thinking",
                Side::from_index(side).name(),
                json["players"][Side::from_index(side).name()]
                    .as_str()
                    .unwrap_or(""),
                w.moves,
                w.nodes as f64 / w.moves as f64,
                w.nodes_per_second() / 1e6,
                w.seconds
            );
        }
    }
}

fn merge(files: &[PathBuf], format: Format) -> ExitCode {
    let mut results = Vec::new();
    for f in files {
        let name = f.display().to_string();
        let text = if name == "-" {
            let mut t = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut t).map(|_| t)
        } else {
            std::fs::read_to_string(f)
        };
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: cannot read {name}: {e}");
                return exit::code(exit::CANNOT);
            }
        };
        if text.trim().is_empty() {
            eprintln!("error: {name} is empty: it holds no result of kumite arena --format json");
            return exit::code(exit::CANNOT);
        }
        // A file may hold several results, one per line (shards appended to one file).
        for (k, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
            match serde_json::from_str::<serde_json::Value>(line) {
                Ok(v) => results.push((format!("{name}:{}", k + 1), v)),
                Err(e) => {
                    eprintln!("error: {name}:{}: not JSON: {e}", k + 1);
                    return exit::code(exit::CANNOT);
                }
            }
        }
    }
    let merged = match crate::arena::merge(&results) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::code(exit::CANNOT);
        }
    };
    let stats = match crate::arena::parse_result(&merged) {
        Ok((_, s, _)) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::code(exit::CANNOT);
        }
    };
    print_arena(&merged, &stats, format);
    ExitCode::SUCCESS
}

fn check(files: &[PathBuf], format: Format, deny_warnings: bool, color: ColorArg) -> ExitCode {
    let color = match color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
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
                    json.push(serde_json::json!({"severity":"error","code":DiagCode::E000.as_str(),"message":e.to_string(),"file":name,"line":0,"column":0,"end_line":0,"end_column":0,"help":null}));
                } else {
                    let _ = writeln!(stderr, "error[{}]: {e}", DiagCode::E000);
                }
                continue;
            }
        };
        let c = compile(&text);
        let idx = LineIndex::new(&text);
        let mut renderer = AriadneRenderer::new(&name, &text, color);
        for d in &c.diags {
            if d.severity == Severity::Error || deny_warnings {
                failed = true;
            }
            match format {
                Format::Json => {
                    let mut v = serde_json::to_value(JsonDiagnostic::new(d, &name, &text, &idx))
                        .unwrap_or_default();
                    // Quick fixes as edits (1-based positions, end exclusive), when there are any.
                    let fixes = crate::authoring::fixes::fixes(&text, d, &c.symbols, false);
                    if !fixes.is_empty()
                        && let Some(o) = v.as_object_mut()
                    {
                        let list: Vec<serde_json::Value> = fixes
                            .iter()
                            .map(|f| {
                                let edits: Vec<serde_json::Value> = f
                                    .edits
                                    .iter()
                                    .map(|e| {
                                        let (l, col) = idx.line_col(&text, e.span.start);
                                        let (el, ec) = idx.line_col(&text, e.span.end);
                                        serde_json::json!({
                                            "line": l, "column": col,
                                            "end_line": el, "end_column": ec,
                                            "text": e.text,
                                        })
                                    })
                                    .collect();
                                serde_json::json!({ "title": f.title, "edits": edits })
                            })
                            .collect();
                        o.insert("fixes".into(), serde_json::Value::Array(list));
                    }
                    json.push(v);
                }
                Format::Text => {
                    let _ = write!(stderr, "{}", renderer.render(d));
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
                c.program
                    .as_ref()
                    .map(|p| format!(
                        " — {} rules, {} states, {} commands",
                        p.rules.len(),
                        p.states.len(),
                        p.commands.len()
                    ))
                    .unwrap_or_default()
            );
        }
    }
    if format == Format::Json {
        outln!("{}", serde_json::Value::Array(json));
    }
    if failed {
        exit::code(exit::FOUND)
    } else {
        ExitCode::SUCCESS
    }
}

fn expand(file: &Path, output: Option<&PathBuf>) -> ExitCode {
    let text = match read_rules(file) {
        Ok(t) => t,
        Err(e) => {
            // As `check`: a file that cannot be read as rules is an error in the file (E000).
            eprintln!("error[{}]: {e}", DiagCode::E000);
            return exit::code(exit::FOUND);
        }
    };
    if let Some(p) = output
        && let Err(e) = refuse_onto_input(file, p, "the output")
    {
        return fail(&e);
    }
    let c = compile(&text);
    let name = file.display().to_string();
    if c.program.is_none() {
        let mut r = AriadneRenderer::new(&name, &text, std::io::stderr().is_terminal());
        for d in c.diags.iter().filter(|d| d.is_error()) {
            eprint!("{}", r.render(d));
        }
        eprintln!("{name}: cannot expand a file with errors");
        return exit::code(exit::FOUND);
    }
    let out = expanded_kmt(&c, &name);
    match output {
        Some(p) => {
            if let Err(e) = crate::fsutil::write_atomic(p, out.as_bytes()) {
                eprintln!("error: cannot write {}: {e}", p.display());
                return exit::code(exit::CANNOT);
            }
        }
        None => out!("{out}"),
    }
    ExitCode::SUCCESS
}

/// `--keep` lines: `9`, `9,12` or `20-25` (1-based, at most 1,000,000).
fn parse_lines(s: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let num = |t: &str| -> Result<usize, String> {
            match t.trim().parse::<usize>() {
                Ok(n) if (1..=1_000_000).contains(&n) => Ok(n),
                _ => Err(format!("'{t}' is not a line number (1 or more)")),
            }
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return Err(format!("'{part}': the range runs backwards"));
                }
                out.extend(a..=b);
            }
            None => out.push(num(part)?),
        }
    }
    if out.is_empty() {
        return Err("no line given".into());
    }
    Ok(out)
}
