//! Small file helpers shared by the CLI and the studio (the only library module that touches
//! the file system, and only when asked to).

use std::io::Write;
use std::path::Path;

/// Writes `data` to `path` atomically: a temporary file beside it, flushed, then renamed over.
/// A crash mid-write leaves the old file intact.
pub fn write_atomic(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
