//! The exit statuses of every `kumite` command, in one table (docs: README "Exit statuses").
//!
//! | status | meaning |
//! |---|---|
//! | 0 | done |
//! | 1 | done, and the input has a problem the command reports: errors in a rule file (`check`, `expand`), files not in canonical form (`fmt --check`), a file `fmt` could not read or write (it goes on with the others), nothing to learn (`train`), a replay that does not reproduce its log, a language-server client that sent `exit` before `shutdown` |
//! | 2 | the command could not do its work: bad arguments, a player that is not allowed here, a file that cannot be read or written, output that would overwrite an input, a merge shard that does not add up |
//! | 3 | a rule raised a runtime error during play (`match`, `perft`, `tree`, `arena`) |
//! | 4 | an AI never played a move (`arena`, `report`) |
//! | 10–16 | a player failed in `match` (see the AI protocol: 10 cannot start … 16 the terminal's input ended) |
//! | 128+N | stopped by signal N (the studio saves its recovery copy first) |

use std::process::ExitCode;

/// Done.
pub const OK: u8 = 0;
/// Done, and the input has a problem the command reports.
pub const FOUND: u8 = 1;
/// The command could not do its work.
pub const CANNOT: u8 = 2;
/// A rule raised a runtime error during play.
pub const RULE_ERROR: u8 = 3;
/// An AI never played a move.
pub const SILENT_AI: u8 = 4;

/// The status as an [`ExitCode`].
pub fn code(status: u8) -> ExitCode {
    ExitCode::from(status)
}
