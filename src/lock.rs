//! The index folder's write lock: concurrent `index` runs (two hooks, an editor plugin
//! and a terminal) take turns instead of interleaving their files. It is an OS file lock
//! on `.lock`, so a run that is killed releases it with its process: a stale lock file
//! never blocks the next run. Whoever holds the lock also removes temporary files left by
//! killed runs.

use crate::error::Error;
use std::fs::{File, OpenOptions};
use std::path::Path;

/// Lock file name inside the index folder.
pub const FILE: &str = ".lock";

/// Held while writing the index; released on drop.
#[derive(Debug)]
pub struct IndexLock {
    _file: File,
}

impl IndexLock {
    /// Wait for and take the lock of `index_dir` (created if missing).
    pub fn acquire(index_dir: &Path) -> Result<IndexLock, Error> {
        std::fs::create_dir_all(index_dir).map_err(|e| Error::io(index_dir, e))?;
        let path = index_dir.join(FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        file.lock().map_err(|e| Error::io(&path, e))?;
        // No other writer is running: temporary files are leftovers of killed runs.
        if let Ok(entries) = std::fs::read_dir(index_dir) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if name.starts_with('.') && name.contains(".tmp-") {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        Ok(IndexLock { _file: file })
    }
}
