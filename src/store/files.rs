//! Files of the index folder: the names of the outputs, and writing a file so that a
//! reader sees the old bytes or the new ones, never a mix (through a temporary
//! file renamed into place), skipped when the bytes would not change; and the folder's own
//! `.gitignore` and `.gitattributes` ([`write_folder_files`]).
//!
//! A temporary file for `dir/name` is `dir/.name.tmp-<pid>`: the index lock removes such
//! leftovers of killed runs, and a commit journal may name only such files.

use crate::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Node file name.
pub const NODES: &str = "graph_nodes.jsonl";
/// Edge file name.
pub const EDGES: &str = "graph_edges.jsonl";
/// Diagnostics file name.
pub const DIAGNOSTICS: &str = "diagnostics.jsonl";
/// Meta file name.
pub const META: &str = "meta.json";
/// The output files whose digests `meta.json` records.
pub const OUTPUTS: [&str; 3] = [NODES, EDGES, DIAGNOSTICS];

/// The digest `meta.json` records of a JSON-lines output: the sum of the blake3 of each
/// line (newline included), four 64-bit lanes added with wraparound. A sum over lines,
/// not a hash of the file, so that an edit patches it without reading the whole file; any
/// changed, added, removed or repeated line changes it. (Two lines swapped do not: the
/// files are written sorted, and `check` of a committed index compares whole files.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineDigest([u64; 4]);

impl LineDigest {
    /// The digest of the lines of `bytes` (a last line without a newline counts too).
    pub fn of(bytes: &[u8]) -> LineDigest {
        let mut d = LineDigest::default();
        d.add(bytes);
        d
    }

    /// Add the lines of `bytes`, which must end at a line end (or be the end).
    pub fn add(&mut self, bytes: &[u8]) {
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            let h = blake3::hash(line);
            for (lane, chunk) in self.0.iter_mut().zip(h.as_bytes().chunks_exact(8)) {
                let mut word = [0u8; 8];
                word.copy_from_slice(chunk);
                *lane = lane.wrapping_add(u64::from_le_bytes(word));
            }
        }
    }

    /// The digest of both line sets: `self + other`, lane by lane.
    pub fn plus(self, other: LineDigest) -> LineDigest {
        self.merged(other, LineDigest::default())
    }

    /// `self + other − base`, lane by lane.
    pub fn merged(self, other: LineDigest, base: LineDigest) -> LineDigest {
        let mut out = self;
        for i in 0..4 {
            out.0[i] = self.0[i].wrapping_add(other.0[i]).wrapping_sub(base.0[i]);
        }
        out
    }

    /// 64 hex digits.
    pub fn hex(self) -> String {
        self.0.iter().map(|l| format!("{l:016x}")).collect()
    }

    /// Read [`LineDigest::hex`] back.
    pub fn parse(hex: &str) -> Option<LineDigest> {
        if hex.len() != 64 || !hex.is_ascii() {
            return None;
        }
        let mut d = LineDigest::default();
        for (i, lane) in d.0.iter_mut().enumerate() {
            *lane = u64::from_str_radix(&hex[i * 16..i * 16 + 16], 16).ok()?;
        }
        Some(d)
    }
}

/// The first words of every file mdgraph writes into an index folder besides its
/// outputs (`.gitignore`, `.gitattributes`): a file that does not start so is the
/// user's, and is never replaced.
pub const MARK: &str = "# Written by mdgraph";

/// Whether the file at `path` was written by mdgraph (it starts with [`MARK`]).
pub fn written_by_mdgraph(path: &Path) -> bool {
    let mut head = [0u8; MARK.len()];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| head == MARK.as_bytes())
}

/// [`write_if_changed`], unless a file not written by mdgraph is there (left as it is).
pub fn write_ours(path: &Path, bytes: &[u8]) -> Result<bool, Error> {
    if path.exists() && !written_by_mdgraph(path) {
        return Ok(false);
    }
    write_if_changed(path, bytes)
}

/// Whether `name` in an index folder is something mdgraph writes there: the outputs,
/// its dot files, the SQLite mirror (`index.sqlite` and SQLite's side files) and the
/// temporary files of a write. `path` is looked into for the files a user may also
/// have: `meta.json` must be mdgraph's, `.gitignore` and `.gitattributes` must start
/// with [`MARK`].
fn is_index_entry(name: &str, path: &Path) -> bool {
    match name {
        NODES | EDGES | DIAGNOSTICS | ".lock" | ".stat-cache" | ".doc-table" | ".findings" | ".commit" => true,
        META => {
            let mut head = Vec::with_capacity(256);
            let _ = std::fs::File::open(path)
                .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 256), &mut head));
            let head = String::from_utf8_lossy(&head);
            head.contains("\"schema\"") && head.contains("\"config_digest\"")
        }
        ".gitignore" | ".gitattributes" => written_by_mdgraph(path),
        // The watcher's socket, run file and cookies (`index --watch`, `mcp`).
        ".watch.sock" | ".watch.run" => true,
        // The static site of `mdgraph site` (its mark file says so).
        "site" => path.join(".mdgraph-site").is_file(),
        n if n.starts_with(".watch-cookie-") => true,
        n => n.starts_with("index.sqlite") || (n.starts_with('.') && n.contains(".tmp-")),
    }
}

/// Whether the entry `name` at `path` marks its folder as mdgraph's: a `meta.json`
/// mdgraph wrote, or a `.gitignore`, `.gitattributes` or `.lock` starting with [`MARK`]
/// (the lock is written first, so a first run killed early leaves the mark too). A file
/// that merely has an index file's name (`graph_nodes.jsonl`, `index.sqlite`,
/// `.stat-cache`) is no mark.
fn is_mark(name: &str, path: &Path) -> bool {
    match name {
        META => is_index_entry(name, path),
        ".gitignore" | ".gitattributes" | ".lock" => written_by_mdgraph(path),
        _ => false,
    }
}

/// Make sure `dir` is an mdgraph index folder, or none yet, before anything is written
/// into it: an empty folder, or one that carries mdgraph's mark ([`is_mark`]) and holds
/// nothing but what mdgraph writes there. Anything else (a folder of the user's files
/// given as `--index-dir` by mistake, even files with index names) is an error naming
/// what it holds, and nothing is written.
pub fn claim(dir: &Path) -> Result<(), Error> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let entries: Vec<(String, PathBuf)> = entries
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect();
    let marked = entries.iter().any(|(name, path)| is_mark(name, path));
    // A damaged `meta.json` (truncated, `{}`, not JSON) in a folder another mark names as
    // mdgraph's is the index's own, to be rebuilt, not a user's file.
    let mut foreign: Vec<String> = entries
        .iter()
        .filter(|(name, path)| !(is_index_entry(name, path) || (marked && name == META)))
        .map(|(name, _)| name.clone())
        .collect();
    if foreign.is_empty() && (marked || entries.is_empty()) {
        return Ok(());
    }
    if foreign.is_empty() {
        let mut names: Vec<String> = entries.into_iter().map(|(n, _)| n).collect();
        names.sort();
        let shown: Vec<String> = names.iter().take(5).map(|n| format!("`{n}`")).collect();
        return Err(Error::Other(format!(
            "{}: not an mdgraph index folder: it holds {}, but no mark of mdgraph (a `meta.json` \
             it wrote); remove those files if they are an old index, or give the index a folder \
             of its own (--index-dir, index_dir in mdgraph.toml). Nothing was written",
            dir.display(),
            shown.join(", ")
        )));
    }
    foreign.sort();
    let shown: Vec<String> = foreign.iter().take(5).map(|n| format!("`{n}`")).collect();
    let more = foreign.len().saturating_sub(5);
    Err(Error::Other(format!(
        "{}: not an mdgraph index folder (it holds {}{}); give the index a folder of its own \
         (--index-dir, index_dir in mdgraph.toml). Nothing was written",
        dir.display(),
        shown.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )))
}

/// The temporary file a write to `dir/name` goes through (removed by the next run if the
/// writer is killed before using it).
fn temp_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(".{name}.tmp-{}", std::process::id()))
}

/// Write `fill` to a new temporary file for `dir/name`.
///
/// It is not fsynced: everything in the index folder is derived and rebuilt from the
/// Markdown. The rename protocol keeps the folder whole when the process is killed; after
/// a crash of the whole system a file may hold less than `meta.json` says, which its
/// digest shows and the next `index` repairs. (An fsync of the 33 MB node file of a 10k
/// backlog took 90–140 ms here, more than the rest of an incremental run.)
pub fn write_temp(
    dir: &Path,
    name: &str,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<PathBuf, Error> {
    let tmp = temp_path(dir, name);
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        fill(&mut f)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(dir.join(name), e)
    })?;
    Ok(tmp)
}

/// Write through a temporary file in the same folder ([`write_temp`]), switched in over
/// `path` ([`switch_in`]).
pub fn atomic_write(path: &Path, fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>) -> Result<(), Error> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = write_temp(dir, &name, fill)?;
    let switched = switch_in(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    switched.map(|_| ()).map_err(|e| Error::io(path, e))
}

/// Move the file `from` to `to` in one step: a reader of `to` sees the old file or the
/// new one. Returns true when `from` now holds the old file, for the caller to remove.
///
/// On Linux an existing `to` is exchanged with `from` (`renameat2(RENAME_EXCHANGE)`)
/// rather than renamed over: ext4 makes a rename that replaces a file first write the
/// new file's blocks out (its `auto_da_alloc`), which took 110–170 ms for the 330 MB
/// node file of a 100k-item backlog; an exchange does not. Where the system cannot
/// exchange (another kernel or file system), or `to` does not exist, this renames.
pub fn switch_in(from: &Path, to: &Path) -> std::io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        use rustix::io::Errno;
        match renameat_with(CWD, from, CWD, to, RenameFlags::EXCHANGE) {
            Ok(()) => return Ok(true),
            // `to` absent (or `from`: then the rename says so), or no exchange here.
            Err(Errno::NOENT | Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP | Errno::PERM | Errno::XDEV) => {}
            Err(e) => return Err(e.into()),
        }
    }
    std::fs::rename(from, to).map(|()| false)
}

/// True when the file at `path` holds exactly `bytes` (compared in blocks, without
/// reading the whole file into memory).
pub fn same_contents(path: &Path, bytes: &[u8]) -> bool {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    if f.metadata().map(|m| m.len()).ok() != Some(bytes.len() as u64) {
        return false;
    }
    let mut buf = vec![0u8; 1 << 16];
    let mut pos = 0;
    loop {
        match f.read(&mut buf) {
            Ok(0) => return pos == bytes.len(),
            Ok(n) => {
                if pos + n > bytes.len() || buf[..n] != bytes[pos..pos + n] {
                    return false;
                }
                pos += n;
            }
            Err(_) => return false,
        }
    }
}

/// True when the files at `a` and `b` hold the same bytes (compared in blocks).
pub fn same_files(a: &Path, b: &Path) -> bool {
    use std::io::Read;
    let open = |p: &Path| {
        std::fs::File::open(p)
            .ok()
            .and_then(|f| Some((f.metadata().ok()?.len(), f)))
    };
    let (Some((len_a, fa)), Some((len_b, fb))) = (open(a), open(b)) else {
        return false;
    };
    if len_a != len_b {
        return false;
    }
    let (mut ra, mut rb) = (std::io::BufReader::new(fa), std::io::BufReader::new(fb));
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = match ra.read(&mut ba) {
            Ok(0) => return rb.read(&mut bb).is_ok_and(|n| n == 0),
            Ok(n) => n,
            Err(_) => return false,
        };
        if rb.read_exact(&mut bb[..n]).is_err() || ba[..n] != bb[..n] {
            return false;
        }
    }
}

/// Write `bytes` to `path` atomically unless the file already holds exactly these bytes.
/// Returns whether the file was written.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<bool, Error> {
    if same_contents(path, bytes) {
        return Ok(false);
    }
    atomic_write(path, |f| f.write_all(bytes))?;
    Ok(true)
}

/// The index folder's own `.gitignore` in commit mode (`commit_index = true`): the graph
/// files are committed, local caches and the SQLite mirror stay out of git.
pub const GITIGNORE: &str = "# Written by mdgraph: local caches are not part of the index.
.stat-cache
.doc-table
.findings
.lock
*.sqlite
*.sqlite-*
.*.tmp-*
.commit
.watch*
";

/// The index folder's own `.gitignore` by default: the whole folder is local.
pub const GITIGNORE_LOCAL: &str = "# Written by mdgraph: the index is local, rebuilt from the Markdown (set\n# `commit_index = true` in mdgraph.toml to commit its graph instead).\n*\n";

/// The index folder's own `.gitattributes` in commit mode: the index files are generated
/// (collapsed in review tools), and a merge of them goes to the `mdgraph` merge driver,
/// which `mdgraph hook install` defines (it merges the records of both sides). Where
/// the driver is not defined, git merges them as text and `check` says when the result
/// is stale.
pub const GITATTRIBUTES: &str = "# Written by mdgraph: derived files, rebuilt by `mdgraph index`.\n* linguist-generated=true\n*.jsonl merge=mdgraph\nmeta.json merge=mdgraph\n";

/// Write the index folder's `.gitignore` (and, in commit mode, `.gitattributes`) when
/// they differ. A file there that mdgraph did not write is never replaced; a
/// `.gitattributes` mdgraph wrote is removed in local mode.
pub fn write_folder_files(index_dir: &Path, commit_index: bool) -> Result<(), Error> {
    let gitignore = if commit_index { GITIGNORE } else { GITIGNORE_LOCAL };
    write_ours(&index_dir.join(".gitignore"), gitignore.as_bytes())?;
    let attributes = index_dir.join(".gitattributes");
    if commit_index {
        write_ours(&attributes, GITATTRIBUTES.as_bytes())?;
    } else if written_by_mdgraph(&attributes) {
        std::fs::remove_file(&attributes).map_err(|e| Error::io(&attributes, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names in `dir` starting with a dot (temporary files).
    fn hidden(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect()
    }

    #[test]
    fn write_if_changed_says_whether_it_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        assert!(write_if_changed(&p, b"one\n").unwrap(), "a new file is written");
        assert_eq!(std::fs::read(&p).unwrap(), b"one\n");
        let before = std::fs::metadata(&p).unwrap().modified().unwrap();
        assert!(!write_if_changed(&p, b"one\n").unwrap(), "the same bytes are not");
        assert_eq!(std::fs::metadata(&p).unwrap().modified().unwrap(), before);
        // Same length, other bytes; then longer; then empty.
        for bytes in [&b"two\n"[..], b"three\n", b""] {
            assert!(write_if_changed(&p, bytes).unwrap());
            assert_eq!(std::fs::read(&p).unwrap(), bytes);
        }
        assert!(!write_if_changed(&p, b"").unwrap());
        assert!(hidden(dir.path()).is_empty(), "{:?}", hidden(dir.path()));
    }

    #[test]
    fn same_contents_compares_every_byte_past_one_block() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big");
        let mut bytes = vec![7u8; (1 << 16) + 10];
        std::fs::write(&p, &bytes).unwrap();
        assert!(same_contents(&p, &bytes));
        *bytes.last_mut().unwrap() = 8;
        assert!(!same_contents(&p, &bytes));
        assert!(!same_contents(&p, &bytes[..10]));
        assert!(!same_contents(&dir.path().join("missing"), b""));
    }

    #[test]
    fn atomic_write_replaces_whole_and_cleans_up_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, "old").unwrap();
        atomic_write(&p, |f| f.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        // A fill that fails leaves the old file and no temporary file behind.
        let err = atomic_write(&p, |f| {
            f.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("disk full"), "{err}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert!(hidden(dir.path()).is_empty(), "{:?}", hidden(dir.path()));
    }

    #[test]
    fn write_temp_names_the_file_for_the_lock_to_find() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = write_temp(dir.path(), "meta.json", |f| f.write_all(b"{}")).unwrap();
        let name = tmp.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(".meta.json.tmp-"), "{name}");
        assert_eq!(std::fs::read(&tmp).unwrap(), b"{}");
        assert!(
            !dir.path().join("meta.json").exists(),
            "only the temporary file is written"
        );
    }
}
