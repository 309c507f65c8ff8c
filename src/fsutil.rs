//! Small file helpers shared by the CLI and the studio (the only library module that touches
//! the file system, and only when asked to).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `data` to `path` atomically (see [`AtomicFile`]).
pub fn write_atomic(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(data)?;
    f.commit()
}

/// Where a write to `path` lands: through a symbolic link (each link followed, as an editor
/// saving through it would), the file itself.
fn write_target(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(std::io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// A file written whole or not at all. The bytes go to a temporary file beside the target,
/// which is flushed to disk and renamed over it on [`AtomicFile::commit`]; dropped without a
/// commit, the temporary file is removed and the target untouched.
///
/// What the user owns is kept: a symbolic link is written through (the link stays a link, its
/// target gets the text); an existing file keeps its permissions and, where the process may
/// set it, its owner and group. A file with more than one hard link is rewritten in place
/// after the new text is safely on disk beside it (a rename would split the links): should
/// that write be cut short, the complete new text is left in the temporary file, named in the
/// error.
pub struct AtomicFile {
    target: PathBuf,
    tmp: PathBuf,
    file: Option<std::io::BufWriter<std::fs::File>>,
    linked: bool,
    done: bool,
}

impl AtomicFile {
    /// Starts writing `path` (nothing is changed there until [`AtomicFile::commit`]).
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let target = write_target(path)?;
        let dir = target
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "file".into());
        let old = std::fs::metadata(&target).ok();
        if old.as_ref().is_some_and(|m| m.is_dir()) {
            return Err(std::io::Error::other(format!(
                "{} is a folder",
                target.display()
            )));
        }
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .or_else(|e| {
                // A temporary file left by a crashed run of the same process id.
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    std::fs::remove_file(&tmp)?;
                    std::fs::OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .open(&tmp)
                } else {
                    Err(e)
                }
            })?;
        let mut linked = false;
        if let Some(m) = &old {
            // Permissions first: a private file's text is never readable by others, not even
            // in the temporary file.
            let _ = file.set_permissions(m.permissions());
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                let _ = std::os::unix::fs::fchown(&file, Some(m.uid()), Some(m.gid()));
                linked = m.nlink() > 1;
            }
        }
        Ok(Self {
            target,
            tmp,
            file: Some(std::io::BufWriter::new(file)),
            linked,
            done: false,
        })
    }

    /// Puts the new text in place.
    pub fn commit(mut self) -> std::io::Result<()> {
        let w = self.file.take().expect("committed once");
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        drop(f);
        if self.linked {
            let data = std::fs::read(&self.tmp)?;
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&self.target)
                .map_err(|e| self.kept(e))?;
            out.write_all(&data)
                .and_then(|()| out.sync_all())
                .map_err(|e| self.kept(e))?;
            self.done = true;
            std::fs::remove_file(&self.tmp)?;
            return Ok(());
        }
        std::fs::rename(&self.tmp, &self.target)?;
        self.done = true;
        Ok(())
    }

    /// An in-place write failed: the error names the complete copy beside the target.
    fn kept(&mut self, e: std::io::Error) -> std::io::Error {
        let tmp = std::mem::take(&mut self.tmp);
        std::io::Error::new(
            e.kind(),
            format!(
                "{e}; the complete new text is in {} ({} has more than one hard link, so it is rewritten in place)",
                tmp.display(),
                self.target.display()
            ),
        )
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.as_mut().expect("open").write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_mut().expect("open").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        drop(self.file.take());
        if !self.done && !self.tmp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// True if `out` names the same file as `input` (through links, either way), so that writing
/// `out` would overwrite `input`. False when `out` does not exist yet.
pub fn same_file(input: &Path, out: &Path) -> bool {
    let (Ok(a), Ok(b)) = (std::fs::metadata(input), std::fs::metadata(out)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        matches!(
            (std::fs::canonicalize(input), std::fs::canonicalize(out)),
            (Ok(x), Ok(y)) if x == y
        )
    }
}

/// Checks that a file can be created at `path` before work whose result goes there starts:
/// the folder exists and takes a new file (tried with a temporary file, removed at once).
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    let f = AtomicFile::create(path)?;
    drop(f);
    Ok(())
}
