//! Scan: walk the backlog root (honouring `.gitignore`, include/exclude globs, skipping the
//! index folder), read and hash every Markdown file on all cores.
//!
//! Symlinks are never followed blindly: a relative symlink to a file inside the root is
//! read, one that leads outside or names an absolute path is skipped with a diagnostic, and symlinked folders are not entered (their
//! real path inside the root is walked anyway), so loops cannot happen.

use crate::config::ScanSettings;
use crate::error::Error;
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::store::statcache::{Stamp, StatCache};
use crate::text::path::rel_of;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// One source file found by the walk, hashed (read, or looked up in the stat cache).
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Root-relative path with `/` separators.
    pub rel: String,
    /// Path on disk.
    pub abs: PathBuf,
    /// Content hash: blake3 hex of the bytes (CRLF read as LF, [`crate::text::eol`]), or `size:N` for a file too large to read.
    pub hash: String,
    /// The text, when it was read (and kept) and is UTF-8 (BOM removed).
    pub text: Option<String>,
    /// The file's stamp, for files that are indexable (readable UTF-8 under the size
    /// limit); None for skipped files.
    pub stamp: Option<Stamp>,
}

impl SourceFile {
    /// True when the file is indexable (not skipped with a diagnostic).
    pub fn indexable(&self) -> bool {
        self.stamp.is_some()
    }

    /// The text, reading the file now if the scan took its hash from the stat cache. A
    /// file edited since the scan is read as it is now but keeps the scanned hash, so
    /// the next run sees it changed and indexes it again.
    pub fn load_text(&self) -> Option<std::borrow::Cow<'_, str>> {
        if let Some(t) = &self.text {
            return Some(t.as_str().into());
        }
        decode(crate::text::eol::lf(std::fs::read(&self.abs).ok()?))
            .ok()
            .map(Into::into)
    }
}

/// UTF-8 text without a byte-order mark.
fn decode(bytes: Vec<u8>) -> Result<String, std::string::FromUtf8Error> {
    let mut s = String::from_utf8(bytes)?;
    if s.starts_with('\u{feff}') {
        s.drain(..3);
    }
    Ok(s)
}

/// The result of a scan: files sorted by path, plus scan-stage diagnostics.
#[derive(Debug, Default)]
pub struct Scan {
    /// Every candidate file, sorted by `rel`.
    pub files: Vec<SourceFile>,
    /// Files skipped or unreadable, symlinks leaving the root, walk errors.
    pub diagnostics: Vec<Diagnostic>,
    /// Every folder walked (root-relative, "" for the root) with its stamp.
    pub dirs: Vec<(String, Stamp)>,
}

/// Walk `root` and return the candidate files (root-relative, sorted) and diagnostics.
/// Files whose stamp matches `cache` are not read. `keep_text` decides whether the text
/// of files that are read is kept (indexing) or only hashed (checking).
pub fn scan(
    root: &Path,
    index_dir: &Path,
    settings: &ScanSettings,
    cache: Option<&StatCache>,
    keep_text: bool,
) -> Result<Scan, Error> {
    if !root.is_dir() {
        return Err(Error::NoRoot(root.to_path_buf()));
    }
    let canon_root = root.canonicalize().map_err(|e| Error::io(root, e))?;
    let canon_index = index_dir.canonicalize().ok();
    let filter = settings.filter();
    let mut diagnostics = Vec::new();
    let mut paths: Vec<(String, PathBuf)> = Vec::new();
    let mut dirs: Vec<(String, Stamp)> = Vec::new();

    for entry in walker(root, canon_index) {
        let entry = match entry {
            Ok(e) => e,
            Err(err) => {
                let path = match &err {
                    ignore::Error::WithPath { path, .. } => rel_of(root, path),
                    _ => String::new(),
                };
                diagnostics.push(Diagnostic::new(
                    path,
                    0,
                    Severity::Warning,
                    Code::WalkError,
                    err.to_string(),
                ));
                continue;
            }
        };
        let Some(ft) = entry.file_type() else {
            continue;
        };
        // The root is walked even when it is a symlink to a folder; its stamp is the
        // folder's (where entries are added), not the link's.
        let root_link = entry.depth() == 0 && ft.is_symlink() && entry.path().is_dir();
        if ft.is_dir() || root_link {
            let md = if root_link {
                std::fs::metadata(entry.path())
            } else {
                entry.metadata().map_err(std::io::Error::other)
            };
            // A folder without a stamp is left out; the probe then cannot vouch for the
            // files in it and scans.
            if let Ok(md) = md {
                dirs.push((rel_of(root, entry.path()), Stamp::of(&md)));
            }
            continue;
        }
        let rel = rel_of(root, entry.path());
        if !filter.takes(&rel) {
            continue;
        }
        if ft.is_symlink()
            && let Err(skipped) = symlink_taken(entry.path(), &rel, &canon_root)
        {
            diagnostics.extend(skipped);
            continue;
        }
        paths.push((rel, entry.into_path()));
    }
    paths.sort();

    let max = settings.max_file_size;
    let results: Vec<(SourceFile, Option<Diagnostic>)> = paths
        .into_par_iter()
        .map(|(rel, abs)| read_one(rel, abs, max, cache, keep_text))
        .collect();
    let mut files = Vec::with_capacity(results.len());
    for (f, d) in results {
        diagnostics.extend(d);
        files.push(f);
    }
    Ok(Scan {
        files,
        diagnostics,
        dirs,
    })
}

/// The walk of `root` by the one set of walk rules (`config::walk`), never entering the
/// index folder (`index_abs`).
fn walker(root: &Path, index_abs: Option<PathBuf>) -> ignore::Walk {
    crate::config::walk::builder(root, index_abs).build()
}

/// Whether a symlink among the candidates is read: not when its target is an absolute
/// path or leads outside the root (a diagnostic), to a folder (silently) or nowhere (a
/// diagnostic).
fn symlink_taken(path: &Path, rel: &str, canon_root: &Path) -> Result<(), Option<Diagnostic>> {
    // git stores a symlink as its target's path: an absolute one leads elsewhere in a
    // clone elsewhere (or nowhere), so no checkout would index what this one reads.
    if std::fs::read_link(path).is_ok_and(|t| t.is_absolute()) {
        return Err(Some(Diagnostic::new(
            rel.to_string(),
            0,
            Severity::Warning,
            Code::SymlinkOutsideRoot,
            "symlink to an absolute path, which a clone elsewhere does not resolve here; skipped (make the link \
             relative)",
        )));
    }
    match path.canonicalize() {
        Ok(target) if !target.starts_with(canon_root) => Err(Some(Diagnostic::new(
            rel.to_string(),
            0,
            Severity::Warning,
            Code::SymlinkOutsideRoot,
            format!("symlink leads outside the root (to {}); skipped", target.display()),
        ))),
        Ok(target) if target.is_dir() => Err(None),
        Ok(_) => Ok(()),
        Err(e) => Err(Some(Diagnostic::new(
            rel.to_string(),
            0,
            Severity::Warning,
            Code::ReadError,
            format!("cannot resolve symlink: {e}; skipped"),
        ))),
    }
}

fn read_one(
    rel: String,
    abs: PathBuf,
    max: u64,
    cache: Option<&StatCache>,
    keep_text: bool,
) -> (SourceFile, Option<Diagnostic>) {
    let skipped = |rel: String, abs: PathBuf, hash: String, d: Diagnostic| {
        (
            SourceFile {
                rel,
                abs,
                hash,
                text: None,
                stamp: None,
            },
            Some(d),
        )
    };
    let md = match std::fs::metadata(&abs) {
        Ok(m) => m,
        Err(e) => {
            let d = Diagnostic::new(&rel, 0, Severity::Warning, Code::ReadError, format!("cannot read: {e}"));
            return skipped(rel, abs, "unreadable".into(), d);
        }
    };
    // A FIFO or device named `x.md` (or a symlink to one) would block or never end.
    if !md.is_file() {
        let d = Diagnostic::new(
            &rel,
            0,
            Severity::Warning,
            Code::ReadError,
            "not a regular file; skipped",
        );
        return skipped(rel, abs, "special".into(), d);
    }
    let stamp = Stamp::of(&md);
    if md.len() > max {
        let size = md.len();
        let d = Diagnostic::new(
            &rel,
            0,
            Severity::Warning,
            Code::FileTooLarge,
            format!("file is {size} bytes, over the {max}-byte limit (scan.max_file_size); skipped"),
        );
        return skipped(rel, abs, format!("size:{size}"), d);
    }
    if let Some(hash) = cache.and_then(|c| c.get(&rel, &stamp)) {
        let hash = hash.to_string();
        return (
            SourceFile {
                rel,
                abs,
                hash,
                text: None,
                stamp: Some(stamp),
            },
            None,
        );
    }
    let bytes = match std::fs::read(&abs) {
        Ok(b) => b,
        Err(e) => {
            let d = Diagnostic::new(&rel, 0, Severity::Warning, Code::ReadError, format!("cannot read: {e}"));
            return skipped(rel, abs, "unreadable".into(), d);
        }
    };
    taken(rel, abs, bytes, stamp, keep_text)
}

/// A file's content as the scan takes it when it is not on disk as it is meant (a
/// staged blob): what [`scan`] makes of a file with these bytes at `rel`.
pub fn from_bytes(rel: String, abs: PathBuf, bytes: Vec<u8>, max: u64) -> (SourceFile, Option<Diagnostic>) {
    let size = bytes.len() as u64;
    if size > max {
        let d = Diagnostic::new(
            &rel,
            0,
            Severity::Warning,
            Code::FileTooLarge,
            format!("file is {size} bytes, over the {max}-byte limit (scan.max_file_size); skipped"),
        );
        let file = SourceFile {
            rel,
            abs,
            hash: format!("size:{size}"),
            text: None,
            stamp: None,
        };
        return (file, Some(d));
    }
    let stamp = Stamp {
        size,
        mtime: 0,
        ctime: 0,
        ino: 0,
    };
    taken(rel, abs, bytes, stamp, true)
}

/// A readable file's bytes: hashed, and decoded (a file that is not UTF-8 is an error).
fn taken(rel: String, abs: PathBuf, bytes: Vec<u8>, stamp: Stamp, keep_text: bool) -> (SourceFile, Option<Diagnostic>) {
    // Line ends as git stores them: an `autocrlf` checkout indexes as an LF clone does.
    let bytes = crate::text::eol::lf(bytes);
    let hash = blake3::hash(&bytes).to_hex().to_string();
    match decode(bytes) {
        Ok(s) => (
            SourceFile {
                rel,
                abs,
                hash,
                text: keep_text.then_some(s),
                stamp: Some(stamp),
            },
            None,
        ),
        Err(e) => {
            let bytes = e.as_bytes();
            let at = e.utf8_error().valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() as u32 + 1;
            let d = Diagnostic::new(
                &rel,
                line,
                // An error, not a warning: the file is left out of the graph, so what
                // references it, and its own references, would be judged wrongly.
                Severity::Error,
                Code::NotUtf8,
                format!("not UTF-8 (invalid byte at offset {at}); not indexed until it is valid UTF-8"),
            );
            let file = SourceFile {
                rel,
                abs,
                hash,
                text: None,
                stamp: None,
            };
            (file, Some(d))
        }
    }
}
