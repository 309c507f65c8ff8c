//! Loading rules — reading a rule file, compiling it, its learned evaluation and `--set` start
//! values — the one way every front end does it: the command line, the studio's Learn and the
//! Python package. Nothing here prints: a file with errors comes back with its diagnostics, for
//! the caller to show (ariadne in the terminal, a list in the window, an exception in Python).

use crate::pipeline::{Compiled, compile};
use crate::program::{RuleProgram, RunConfig};
use std::path::{Path, PathBuf};

/// Why a rule file cannot be read as rules.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file system refused (missing, a directory, no permission …).
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file as given.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// It is not UTF-8 text.
    #[error("{} is not UTF-8 text (invalid byte at offset {offset})", path.display())]
    NotUtf8 {
        /// The file as given.
        path: PathBuf,
        /// The byte offset of the first invalid byte.
        offset: usize,
    },
}

/// Reads a rule file: UTF-8 text, or why not (naming the file, and the offset of a bad byte).
pub fn read_rules(path: &Path) -> Result<String, ReadError> {
    let bytes = std::fs::read(path).map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// A `--set` value that cannot be applied; each names the setting as given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetError {
    /// Not `NAME=VALUE`.
    #[error("--set {0}: expected NAME=VALUE, h.NAME=VALUE or c.NAME=VALUE")]
    Form(String),
    /// The value is not a whole number.
    #[error("--set {set}: '{value}' is not a whole number")]
    NotANumber {
        /// The setting as given.
        set: String,
        /// The value, trimmed.
        value: String,
    },
    /// A side prefix other than h or c.
    #[error("--set {set}: side must be h or c, not '{side}'")]
    Side {
        /// The setting as given.
        set: String,
        /// The prefix given.
        side: String,
    },
    /// No state of that name.
    #[error(
        "--set {set}: the rules have no state '{name}'{}; states: {}",
        did_you_mean.as_ref().map(|k| format!(" (did you mean {k}?)")).unwrap_or_default(),
        states.join(", ")
    )]
    NoState {
        /// The setting as given.
        set: String,
        /// The name given, trimmed.
        name: String,
        /// The nearest state name, if one is near.
        did_you_mean: Option<String>,
        /// The program's states.
        states: Vec<String>,
    },
}

/// Why a rule file could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// It cannot be read, or is not UTF-8 text.
    Read(ReadError),
    /// It does not compile: its name, its text and what the checker found.
    Errors {
        /// The file name as given.
        name: String,
        /// Its text.
        text: String,
        /// The compilation, with its diagnostics.
        compiled: Box<Compiled>,
    },
    /// A `--set` value is wrong.
    Set(SetError),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Read(e) => e.fmt(f),
            LoadError::Set(e) => e.fmt(f),
            LoadError::Errors { name, compiled, .. } => write!(
                f,
                "{name} has {} error(s)",
                compiled.diags.iter().filter(|d| d.is_error()).count()
            ),
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Read(e) => Some(e),
            LoadError::Set(e) => Some(e),
            LoadError::Errors { .. } => None,
        }
    }
}

/// Reads, compiles and prepares a rule file: the `--set` start values go into the program, its
/// learned evaluation (`kumite train`, read for the rules as written, so before any `--set`)
/// into the run's config beside it.
pub fn load_file(file: &Path, sets: &[String]) -> Result<(RuleProgram, RunConfig), LoadError> {
    let text = read_rules(file).map_err(LoadError::Read)?;
    let mut compiled = compile(&text);
    let Some(mut prog) = compiled.program.take() else {
        return Err(LoadError::Errors {
            name: file.display().to_string(),
            text,
            compiled: Box::new(compiled),
        });
    };
    let config = RunConfig::with_learned(crate::search::trained::read_for(file, &prog));
    apply_sets(&mut prog, sets).map_err(LoadError::Set)?;
    Ok((prog, config))
}

/// Parses `--set h.NAME=V` / `NAME=V` overrides into the program's initial values.
pub fn apply_sets(prog: &mut RuleProgram, sets: &[String]) -> Result<(), SetError> {
    for s in sets {
        let (lhs, v) = s.split_once('=').ok_or_else(|| SetError::Form(s.clone()))?;
        let v: i64 = v.trim().parse().map_err(|_| SetError::NotANumber {
            set: s.clone(),
            value: v.trim().to_string(),
        })?;
        let (sides, name): (&[usize], &str) = match lhs.split_once('.') {
            Some(("h" | "H", n)) => (&[0], n),
            Some(("c" | "C", n)) => (&[1], n),
            Some((p, _)) => {
                return Err(SetError::Side {
                    set: s.clone(),
                    side: p.to_string(),
                });
            }
            None => (&[0, 1], lhs),
        };
        let id = prog
            .state_id(name.trim())
            .ok_or_else(|| SetError::NoState {
                set: s.clone(),
                name: name.trim().to_string(),
                did_you_mean: crate::diag::did_you_mean(
                    name.trim(),
                    prog.states.iter().map(String::as_str),
                )
                .map(str::to_string),
                states: prog.states.clone(),
            })?;
        for &side in sides {
            prog.init_values[side][id as usize] = v;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("kumite-load-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("tmp");
        let f = d.join(name);
        std::fs::write(&f, bytes).expect("write");
        f
    }

    #[test]
    fn a_file_is_read_compiled_and_set_or_refused_saying_why() {
        let ok = tmp(
            "ok.kmt",
            "!:体力=3,[押す]\n[押す]:O.体力-1\nO.体力<=0:S.勝利\n".as_bytes(),
        );
        let (p, config) = load_file(&ok, &["c.体力=5".into()]).expect("loads");
        assert!(config.banned.is_empty());
        let why = config.learned.expect_err("no learned file beside it");
        assert!(
            matches!(&why, crate::program::NoLearned::NotFound { learned, .. } if learned.ends_with("ok.trained.json")),
            "{why}"
        );
        let id = p.state_id("体力").expect("state") as usize;
        assert_eq!((p.init_values[0][id], p.init_values[1][id]), (3, 5));
        // Not UTF-8: refused with the offset (the studio's Learn reads it so too).
        let bad = tmp("latin1.kmt", b"!:x=1\n# caf\xe9\n");
        let e = load_file(&bad, &[]).expect_err("not UTF-8");
        assert!(matches!(e, LoadError::Read(_)));
        assert!(
            e.to_string()
                .contains("not UTF-8 text (invalid byte at offset 11)"),
            "{e}"
        );
        // Errors come back with the diagnostics, for the caller to show.
        let broken = tmp("broken.kmt", b"[a]:S.x+\n");
        match load_file(&broken, &[]) {
            Err(LoadError::Errors { compiled, text, .. }) => {
                assert!(compiled.diags.iter().any(|d| d.is_error()));
                assert_eq!(text, "[a]:S.x+\n");
            }
            other => panic!("{other:?}"),
        }
        let e = load_file(&ok, &["c.気力=1".into()]).expect_err("no such state");
        assert!(
            matches!(&e, LoadError::Set(SetError::NoState { name, .. }) if name == "気力"),
            "{e:?}"
        );
        assert!(e.to_string().contains("no state '気力'"), "{e}");
        let e = load_file(&ok, &["h.体力=三".into()]).expect_err("not a number");
        assert_eq!(e.to_string(), "--set h.体力=三: '三' is not a whole number");
        let missing = ok.with_file_name("missing.kmt");
        let e = load_file(&missing, &[]).expect_err("no file");
        assert!(matches!(&e, LoadError::Read(ReadError::Io { .. })), "{e:?}");
    }
}
