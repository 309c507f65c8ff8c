//! Files: the bundled examples, reading and saving rule files, the recovery copy, watching the
//! open file for changes on disk, and the file dialogs (the system's, or the studio's own path
//! field when the system has none).

use crate::fsutil::write_atomic;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// The rule files in `rules/`, compiled into the binary so the Examples menu works from any
/// directory: (file name, text).
pub const EXAMPLES: &[(&str, &str)] = &[
    ("sumo.kmt", include_str!("../../rules/sumo.kmt")),
    ("karate.kmt", include_str!("../../rules/karate.kmt")),
    ("cc_lemon.kmt", include_str!("../../rules/cc_lemon.kmt")),
    (
        "moge_battle.kmt",
        include_str!("../../rules/moge_battle.kmt"),
    ),
    ("ex1_push.kmt", include_str!("../../rules/ex1_push.kmt")),
    ("ex2_spirit.kmt", include_str!("../../rules/ex2_spirit.kmt")),
    ("ex3_grips.kmt", include_str!("../../rules/ex3_grips.kmt")),
    (
        "ex4_grips_symmetric.kmt",
        include_str!("../../rules/ex4_grips_symmetric.kmt"),
    ),
    ("ex5_macro.kmt", include_str!("../../rules/ex5_macro.kmt")),
];

/// The learned evaluations (`kumite train`) of the bundled examples that have one: (file name,
/// its `.trained.json`).
pub const EXAMPLE_LEARNED: &[(&str, &str)] = &[
    ("sumo.kmt", include_str!("../../rules/sumo.trained.json")),
    (
        "karate.kmt",
        include_str!("../../rules/karate.trained.json"),
    ),
    (
        "moge_battle.kmt",
        include_str!("../../rules/moge_battle.trained.json"),
    ),
];

/// The learned evaluation `cpu:trained` uses for the document at `path` (or unsaved) that
/// compiled to `prog`: the file next to it, else a bundled example's when the rules do what
/// that example's do; or why there is none.
pub fn learned_for(
    path: Option<&Path>,
    prog: &crate::program::RuleProgram,
) -> Result<std::sync::Arc<crate::program::Learned>, crate::program::NoLearned> {
    use crate::search::trained::{parse_for, read_for, trained_path};
    if prog.settings.simultaneous {
        return Err(crate::program::NoLearned::Simultaneous);
    }
    if let Some(p) = path
        && trained_path(p).exists()
    {
        return read_for(p, prog);
    }
    let bundled = EXAMPLE_LEARNED
        .iter()
        .find_map(|(name, json)| parse_for(json, &format!("the bundled {name}"), name, prog).ok());
    match (bundled, path) {
        (Some(l), _) => Ok(l),
        (None, Some(p)) => read_for(p, prog),
        (None, None) => Err(crate::program::NoLearned::NotSaved),
    }
}

/// The text of a bundled example by file name.
pub fn example(name: &str) -> Option<&'static str> {
    EXAMPLES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Reads a rule file as UTF-8 (invalid bytes become U+FFFD, which the checker then reports,
/// rather than refusing the whole file).
pub fn read_rule_file(path: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Saves `text` to `path` atomically (a crash mid-save leaves the old file whole).
pub fn save_rule_file(path: &Path, text: &str) -> std::io::Result<()> {
    write_atomic(path, text.as_bytes())
}

/// What identifies one version of a file on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskStamp {
    modified: Option<SystemTime>,
    len: u64,
}

/// The file's current stamp, or `None` if it cannot be read.
pub fn disk_stamp(path: &Path) -> Option<DiskStamp> {
    let m = std::fs::metadata(path).ok()?;
    Some(DiskStamp {
        modified: m.modified().ok(),
        len: m.len(),
    })
}

/// Polls the open file's stamp about once a second (cheaper and more portable than a file
/// watcher, and a second is quick enough for a person switching between editors).
#[derive(Debug, Default)]
pub struct DiskWatch {
    /// The stamp when we last read or wrote the file.
    pub known: Option<DiskStamp>,
    last_poll: Option<Instant>,
}

impl DiskWatch {
    /// Remembers the file as we have just read or written it.
    pub fn reset(&mut self, path: Option<&Path>) {
        self.known = path.and_then(disk_stamp);
        self.last_poll = Some(Instant::now());
    }

    /// True if a poll is due and the file on disk differs from what we know.
    pub fn changed(&mut self, path: &Path) -> bool {
        let now = Instant::now();
        if self
            .last_poll
            .is_some_and(|t| now.duration_since(t) < Duration::from_secs(1))
        {
            return false;
        }
        self.last_poll = Some(now);
        let current = disk_stamp(path);
        // A file that vanished (e.g. a rename-over save by another editor in progress) is not
        // a change yet.
        current.is_some() && current != self.known
    }
}

/// The autosave/recovery copy of unsaved work: `recovery.kmt` (the text) and
/// `recovery.path` (the file it belongs to, if any) in a state directory. Written every few
/// seconds while there are unsaved changes, removed when the work is saved or deliberately
/// discarded, so finding it at start-up means the studio did not close normally.
#[derive(Clone, Debug)]
pub struct Recovery {
    dir: PathBuf,
}

/// Work found in the recovery copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recovered {
    /// The unsaved text.
    pub text: String,
    /// The file it belonged to.
    pub path: Option<PathBuf>,
}

impl Recovery {
    /// A recovery copy kept in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// `$XDG_STATE_HOME/kumite`, else `~/.local/state/kumite` (on Windows `%LOCALAPPDATA%\kumite`).
    pub fn default_dir() -> Option<PathBuf> {
        let non_empty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        if let Some(d) = non_empty("XDG_STATE_HOME") {
            return Some(PathBuf::from(d).join("kumite"));
        }
        if let Some(d) = non_empty("LOCALAPPDATA") {
            return Some(PathBuf::from(d).join("kumite"));
        }
        non_empty("HOME").map(|h| PathBuf::from(h).join(".local/state/kumite"))
    }

    fn text_path(&self) -> PathBuf {
        self.dir.join("recovery.kmt")
    }

    fn meta_path(&self) -> PathBuf {
        self.dir.join("recovery.path")
    }

    /// Writes the copy (atomically, so a crash mid-write keeps the previous copy).
    pub fn save(&self, text: &str, path: Option<&Path>) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let meta = path.map(|p| p.to_string_lossy().into_owned());
        write_atomic(&self.meta_path(), meta.unwrap_or_default().as_bytes())?;
        write_atomic(&self.text_path(), text.as_bytes())
    }

    /// The copy left by an earlier run, if any.
    pub fn load(&self) -> Option<Recovered> {
        let text = read_rule_file(&self.text_path()).ok()?;
        let path = std::fs::read_to_string(self.meta_path())
            .ok()
            .map(|s| s.trim_end_matches('\n').to_string())
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        Some(Recovered { text, path })
    }

    /// Removes the copy (the work was saved or deliberately dropped).
    pub fn clear(&self) {
        let _ = std::fs::remove_file(self.text_path());
        let _ = std::fs::remove_file(self.meta_path());
    }
}

/// What a file dialog is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogKind {
    /// Pick a rule file to open.
    Open,
    /// Pick where to save the rule file.
    SaveAs,
    /// Pick where to write the expanded rules.
    Export,
    /// Pick where to save the finished match (as `kumite match --log` writes it).
    SaveMatch,
    /// Pick a match log to replay.
    OpenMatch,
    /// Pick a rule file to compare the editor's rules with (Report tab).
    CompareWith,
}

/// The answer of the system's file dialog.
#[derive(Debug, PartialEq, Eq)]
pub enum NativeAnswer {
    /// The user picked a path.
    Picked(PathBuf),
    /// The user cancelled.
    Cancelled,
    /// No dialog could be shown (no desktop portal): ask with the studio's own dialog.
    Unavailable,
}

/// Shows the system's file dialog (blocking). rfd answers `None` both for "cancelled" and for
/// "no portal to ask"; a person needs far longer than a quarter of a second to cancel, so a
/// `None` that quick means no dialog was shown.
pub fn native_dialog(
    kind: DialogKind,
    filter_name: &str,
    dir: Option<&Path>,
    file_name: &str,
) -> NativeAnswer {
    let mut d = match kind {
        DialogKind::SaveMatch | DialogKind::OpenMatch => {
            rfd::FileDialog::new().add_filter("JSON lines", &["jsonl"])
        }
        _ => rfd::FileDialog::new().add_filter(filter_name, &["kmt"]),
    };
    if let Some(dir) = dir {
        d = d.set_directory(dir);
    }
    let t0 = Instant::now();
    let picked = match kind {
        DialogKind::Open | DialogKind::OpenMatch | DialogKind::CompareWith => d.pick_file(),
        DialogKind::SaveAs | DialogKind::Export | DialogKind::SaveMatch => {
            d.set_file_name(file_name).save_file()
        }
    };
    match picked {
        Some(p) => NativeAnswer::Picked(p),
        None if t0.elapsed() < Duration::from_millis(250) => NativeAnswer::Unavailable,
        None => NativeAnswer::Cancelled,
    }
}

/// The studio's own path dialog: one text field, used when there is no system dialog.
#[derive(Clone, Debug)]
pub struct PathDialog {
    /// What it is for.
    pub kind: DialogKind,
    /// The path typed so far.
    pub input: String,
    /// Why the last attempt failed.
    pub error: Option<String>,
}

impl PathDialog {
    /// A dialog starting from `initial`.
    pub fn new(kind: DialogKind, initial: String) -> Self {
        Self {
            kind,
            input: initial,
            error: None,
        }
    }

    /// The `.kmt` files in the directory of the typed path (for picking with the mouse).
    pub fn neighbours(&self) -> Vec<PathBuf> {
        let p = Path::new(self.input.trim());
        let dir = if p.is_dir() {
            p.to_path_buf()
        } else {
            p.parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("."))
        };
        let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "kmt"))
                    .collect()
            })
            .unwrap_or_default();
        out.sort();
        out.truncate(200);
        out
    }
}

/// Adds `path` to the front of a recent-files list (no duplicates, at most 10).
pub fn push_recent(recent: &mut Vec<PathBuf>, path: &Path) {
    recent.retain(|p| p != path);
    recent.insert(0, path.to_path_buf());
    recent.truncate(10);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kumite-gui-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn atomic_save_replaces_the_whole_file() {
        let d = temp_dir("save");
        let f = d.join("game.kmt");
        save_rule_file(&f, "[押す]:O.後ろ余裕度-1\n").unwrap();
        save_rule_file(&f, ":[押す]\n").unwrap();
        assert_eq!(read_rule_file(&f).unwrap(), ":[押す]\n");
        // No temporary file is left beside it.
        let names: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn recovery_survives_a_crash_and_is_cleared_after_save() {
        let d = temp_dir("recovery");
        let orig = d.join("mine.kmt");
        {
            // A session writes its autosave, then "crashes" (never clears it).
            let r = Recovery::new(d.join("state"));
            r.save("S.体力<=0:O.勝利\n", Some(&orig)).unwrap();
            r.save("S.体力<=0:O.勝利\n:[殴る]\n", Some(&orig)).unwrap();
        }
        // The next start finds the newest copy and the file it belonged to.
        let r = Recovery::new(d.join("state"));
        assert_eq!(
            r.load(),
            Some(Recovered {
                text: "S.体力<=0:O.勝利\n:[殴る]\n".into(),
                path: Some(orig.clone()),
            })
        );
        r.clear();
        assert_eq!(r.load(), None);
        // Untitled work has no path.
        r.save("x", None).unwrap();
        assert_eq!(r.load().unwrap().path, None);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn disk_watch_sees_another_program_write() {
        let d = temp_dir("watch");
        let f = d.join("w.kmt");
        save_rule_file(&f, "a\n").unwrap();
        let mut w = DiskWatch::default();
        w.reset(Some(&f));
        w.last_poll = None;
        assert!(!w.changed(&f));
        std::fs::write(&f, "a longer text\n").unwrap();
        w.last_poll = None;
        assert!(w.changed(&f));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn recent_list_is_deduplicated_and_bounded() {
        let mut r = Vec::new();
        for i in 0..12 {
            push_recent(&mut r, Path::new(&format!("/x/{i}.kmt")));
        }
        push_recent(&mut r, Path::new("/x/5.kmt"));
        assert_eq!(r.len(), 10);
        assert_eq!(r[0], Path::new("/x/5.kmt"));
        assert_eq!(r.iter().filter(|p| p.ends_with("5.kmt")).count(), 1);
    }

    #[test]
    fn every_example_is_bundled() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".kmt"))
            .collect();
        on_disk.sort();
        let mut bundled: Vec<String> = EXAMPLES.iter().map(|(n, _)| n.to_string()).collect();
        bundled.sort();
        assert_eq!(on_disk, bundled);
    }
}
