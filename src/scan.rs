//! Scan: walk the backlog root (honouring `.gitignore`, include/exclude globs, skipping the
//! index folder), read and hash every Markdown file on both cores.
//!
//! Symlinks are never followed blindly: a symlinked file inside the root is read, one that
//! leads outside is skipped with a diagnostic, and symlinked folders are not entered (their
//! real path inside the root is walked anyway), so loops cannot happen.

use crate::config::ScanSettings;
use crate::diag::{Code, Diagnostic, Severity};
use crate::error::Error;
use globset::{GlobSet, GlobSetBuilder};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// One source file found by the walk, read and hashed.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Root-relative path with `/` separators.
    pub rel: String,
    /// Content hash: blake3 hex of the bytes, or `size:N` for a file too large to read.
    pub hash: String,
    /// The text, when it was read and is UTF-8 (BOM removed).
    pub text: Option<String>,
}

/// The result of a scan: files sorted by path, plus scan-stage diagnostics.
#[derive(Debug, Default)]
pub struct Scan {
    /// Every candidate file, sorted by `rel`.
    pub files: Vec<SourceFile>,
    /// Files skipped or unreadable, symlinks leaving the root, walk errors.
    pub diagnostics: Vec<Diagnostic>,
}

fn globset(globs: &[String]) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        // Globs were validated when the config was loaded.
        if let Ok(glob) = globset::GlobBuilder::new(g)
            .literal_separator(false)
            .build()
        {
            b.add(glob);
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

/// Walk `root` and return the candidate paths (root-relative, sorted) and diagnostics.
/// `keep_text` decides whether file contents are kept (parsing) or only hashed (checking).
pub fn scan(
    root: &Path,
    index_dir: &Path,
    settings: &ScanSettings,
    keep_text: bool,
) -> Result<Scan, Error> {
    if !root.is_dir() {
        return Err(Error::NoRoot(root.to_path_buf()));
    }
    let canon_root = root.canonicalize().map_err(|e| Error::io(root, e))?;
    let canon_index = index_dir.canonicalize().ok();
    let include = globset(&settings.include);
    let exclude = globset(&settings.exclude);
    let mut diagnostics = Vec::new();
    let mut paths: Vec<(String, PathBuf)> = Vec::new();

    let index_abs = canon_index.clone();
    let walker = ignore::WalkBuilder::new(root)
        .follow_links(false)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            // Never index the index folder itself.
            match (
                &index_abs,
                e.file_type().map(|t| t.is_dir()).unwrap_or(false),
            ) {
                (Some(ix), true) => e.path().canonicalize().map(|p| &p != ix).unwrap_or(true),
                _ => true,
            }
        })
        .build();
    for entry in walker {
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
        if ft.is_dir() {
            continue;
        }
        let rel = rel_of(root, entry.path());
        if !include.is_match(&rel) || exclude.is_match(&rel) {
            continue;
        }
        if ft.is_symlink() {
            match entry.path().canonicalize() {
                Ok(target) if !target.starts_with(&canon_root) => {
                    diagnostics.push(Diagnostic::new(
                        rel,
                        0,
                        Severity::Warning,
                        Code::SymlinkOutsideRoot,
                        format!(
                            "symlink leads outside the root (to {}); skipped",
                            target.display()
                        ),
                    ));
                    continue;
                }
                Ok(target) if target.is_dir() => continue,
                Ok(_) => {}
                Err(e) => {
                    diagnostics.push(Diagnostic::new(
                        rel,
                        0,
                        Severity::Warning,
                        Code::ReadError,
                        format!("cannot resolve symlink: {e}; skipped"),
                    ));
                    continue;
                }
            }
        }
        paths.push((rel, entry.into_path()));
    }
    paths.sort();

    let max = settings.max_file_size;
    let results: Vec<(SourceFile, Option<Diagnostic>)> = paths
        .into_par_iter()
        .map(|(rel, abs)| read_one(rel, &abs, max, keep_text))
        .collect();
    let mut files = Vec::with_capacity(results.len());
    for (f, d) in results {
        diagnostics.extend(d);
        files.push(f);
    }
    Ok(Scan { files, diagnostics })
}

fn read_one(
    rel: String,
    abs: &Path,
    max: u64,
    keep_text: bool,
) -> (SourceFile, Option<Diagnostic>) {
    let size = std::fs::metadata(abs).map(|m| m.len()).unwrap_or(0);
    if size > max {
        let d = Diagnostic::new(
            rel.clone(),
            0,
            Severity::Warning,
            Code::FileTooLarge,
            format!(
                "file is {size} bytes, over the {max}-byte limit (scan.max_file_size); skipped"
            ),
        );
        return (
            SourceFile {
                rel,
                hash: format!("size:{size}"),
                text: None,
            },
            Some(d),
        );
    }
    let bytes = match std::fs::read(abs) {
        Ok(b) => b,
        Err(e) => {
            let d = Diagnostic::new(
                rel.clone(),
                0,
                Severity::Warning,
                Code::ReadError,
                format!("cannot read: {e}"),
            );
            return (
                SourceFile {
                    rel,
                    hash: "unreadable".into(),
                    text: None,
                },
                Some(d),
            );
        }
    };
    let hash = blake3::hash(&bytes).to_hex().to_string();
    match String::from_utf8(bytes) {
        Ok(mut s) => {
            if s.starts_with('\u{feff}') {
                s.drain(..3);
            }
            (
                SourceFile {
                    rel,
                    hash,
                    text: keep_text.then_some(s),
                },
                None,
            )
        }
        Err(e) => {
            let bytes = e.as_bytes();
            let at = e.utf8_error().valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() as u32 + 1;
            let d = Diagnostic::new(
                rel.clone(),
                line,
                Severity::Warning,
                Code::NotUtf8,
                format!("not UTF-8 (invalid byte at offset {at}); skipped"),
            );
            (
                SourceFile {
                    rel,
                    hash,
                    text: None,
                },
                Some(d),
            )
        }
    }
}

/// Root-relative path with `/` separators.
pub fn rel_of(root: &Path, p: &Path) -> String {
    let r = p.strip_prefix(root).unwrap_or(p);
    let mut s = String::new();
    for (i, c) in r.components().enumerate() {
        if i > 0 {
            s.push('/');
        }
        s.push_str(&c.as_os_str().to_string_lossy());
    }
    s
}
