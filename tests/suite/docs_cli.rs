//! docs/cli.md against the command line itself (clap's `--help`), so the reference cannot drift:
//! every subcommand has a row, every option clap knows is named in its row, and every option
//! the row's synopsis names exists.

use crate::common::{kumite, root};

/// `--long` options in `text` (letters, digits and dashes after `--`).
fn options(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i + 2 < b.len() {
        if &b[i..i + 2] == b"--"
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric() && b[i - 1] != b'-')
        {
            let mut j = i + 2;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-') {
                j += 1;
            }
            if j > i + 2 && b[i + 2].is_ascii_alphabetic() {
                let o = text[i..j].to_string();
                if !out.contains(&o) {
                    out.push(o);
                }
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn docs_cli_names_every_command_and_option_that_clap_knows() {
    let doc = std::fs::read_to_string(root().join("docs/cli.md")).unwrap();
    let (_, help, _) = kumite(&["--help"]);
    let commands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 14, "{commands:?}");
    let mut missing = Vec::new();
    for c in &commands {
        // Its row: the table line whose first cell starts with `kumite <command>` (`kumite` /
        // `kumite studio` for the studio).
        let head = format!("`kumite {c}");
        let Some(row) = doc.lines().find(|l| {
            l.starts_with("| ")
                && l.split(" | ")
                    .next()
                    .is_some_and(|cell| cell.contains(&head))
        }) else {
            missing.push(format!("no row for `kumite {c}`"));
            continue;
        };
        let (_, sub_help, _) = kumite(&[c.as_str(), "--help"]);
        for o in options(&sub_help) {
            if o == "--help" || o == "--version" {
                continue;
            }
            if !row.contains(&o) {
                missing.push(format!("`kumite {c}`: {o} is not named in docs/cli.md"));
            }
        }
        let synopsis = row.split(" | ").next().unwrap();
        for o in options(synopsis) {
            if !sub_help.contains(&o) {
                missing.push(format!(
                    "`kumite {c}`: docs/cli.md names {o}, which clap does not know"
                ));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
