//! Paths as mdgraph shows and stores them: root-relative with `/` separators, relative to
//! the working directory for messages, symlinks resolved where files are compared.

use std::path::{Path, PathBuf};

/// Read a file that must be a regular file (a config, a baseline): a FIFO, a device or
/// a folder in its place is an `InvalidInput` error instead of a read that blocks
/// forever or returns nonsense. A missing file is `NotFound`, as with `read_to_string`.
pub fn read_regular(p: &Path) -> std::io::Result<String> {
    let meta = std::fs::metadata(p)?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a folder"
        } else {
            "not a regular file (a FIFO, socket or device)"
        };
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("is {what}"),
        ));
    }
    std::fs::read_to_string(p)
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

/// `p` with symlinks resolved as far as it exists: the deepest existing ancestor is
/// canonicalized and the rest appended (so a file not yet written still compares right).
pub fn absolute(p: &Path) -> PathBuf {
    p.ancestors()
        .find_map(|a| {
            a.canonicalize()
                .ok()
                .map(|c| c.join(p.strip_prefix(a).unwrap_or(Path::new(""))))
        })
        .unwrap_or_else(|| p.to_path_buf())
}

/// `p` relative to `base` with `/` separators when it is below it ("." for `base`
/// itself), else `p` as given: for messages.
pub fn shown_from(base: &Path, p: &Path) -> String {
    match p.strip_prefix(base) {
        Ok(r) if r.as_os_str().is_empty() => ".".into(),
        Ok(r) => rel_of(Path::new(""), r),
        Err(_) if p.is_relative() => rel_of(Path::new(""), p),
        Err(_) => p.display().to_string(),
    }
}

/// `p` relative to `base` after resolving both with [`absolute`], else absolute: for
/// paths written into files that are read from `base`.
pub fn relative_to(base: &Path, p: &Path) -> String {
    shown_from(&absolute(base), &absolute(p))
}

/// The file name without folders and extension.
pub fn file_stem(rel: &str) -> &str {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    match name.rfind('.') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    }
}
