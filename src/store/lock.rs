//! The index folder's write lock: concurrent `index` runs (two hooks, an editor plugin
//! and a terminal) take turns instead of interleaving their files. It is an OS file lock
//! on `.lock`, so a run that is killed releases it with its process: a stale lock file
//! never blocks the next run. Whoever holds the lock also finishes a commit a killed run
//! left half done (see [`crate::store::sidecar`]) and removes temporary files left by killed
//! runs.

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
    /// Wait for and take the lock of `index_dir` (created if missing; a folder that holds
    /// anything but an mdgraph index is refused, see [`crate::store::files::claim`]).
    pub fn acquire(index_dir: &Path) -> Result<IndexLock, Error> {
        crate::store::files::claim(index_dir)?;
        std::fs::create_dir_all(index_dir).map_err(|e| Error::io(index_dir, e))?;
        let path = index_dir.join(FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        file.lock().map_err(|e| Error::io(&path, e))?;
        // The folder's mark (see `files::claim`), written before anything else.
        if file.metadata().is_ok_and(|m| m.len() == 0) {
            use std::io::Write;
            let mark = format!("{}: the index folder's write lock.\n", crate::store::files::MARK);
            (&file).write_all(mark.as_bytes()).map_err(|e| Error::io(&path, e))?;
        }
        // No other writer is running: a journal is a commit a killed run did not finish
        // (finish it first: it needs its temporary files), and temporary files are
        // leftovers of killed runs.
        crate::store::sidecar::recover(index_dir)?;
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

/// Finish a commit that a killed run left half done, if there is one: readers call this
/// before reading the index so they never see a mix of two builds. It takes the lock
/// only when a journal exists (so it waits for a writer that is committing right now),
/// and does nothing otherwise, which keeps read-only index folders readable.
pub fn finish_pending(index_dir: &Path) -> Result<(), Error> {
    if index_dir.join(crate::store::sidecar::JOURNAL).exists() {
        drop(IndexLock::acquire(index_dir)?);
    }
    sweep_dead(index_dir);
    Ok(())
}

/// Remove the temporary files (`.name.tmp-<pid>`) of writers no longer running, killed
/// with `kill -9`, so they do not wait for the next writer: a reader finds them too. A
/// commit a killed writer left is finished first (above: its journal names such files).
/// Only where a process's liveness can be read (`/proc`).
fn sweep_dead(index_dir: &Path) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(index_dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let pid = name
            .strip_prefix('.')
            .and_then(|n| n.rsplit_once(".tmp-"))
            .and_then(|(_, pid)| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && pid != std::process::id()
            && !proc.join(pid.to_string()).exists()
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}
