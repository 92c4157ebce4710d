//! A local stat cache, as git's index does it.
//!
//! For every source file hashed by `index`, remember (size, mtime, ctime, inode) →
//! blake3; when a file's stat is unchanged its hash is taken from the cache instead of
//! reading it, so a no-change `check` only stats files. Freshness is still decided by
//! content hashes; the cache only skips re-hashing a file that provably was not touched.
//!
//! It also records the stamps of every walked folder and of the ignore files that shape
//! the walk (those of the root's ancestors, of walked folders, and git's global excludes
//! file with the git configuration that may name another), so [`probe`] can tell
//! "nothing changed" from stats alone, without walking the tree (a new or deleted file
//! changes its folder's mtime). Not watched: a global excludes file at a custom
//! `core.excludesFile` path, and `.git/info/exclude` of nested repositories. `search`, `pack`,
//! `show` and `neighbors` use [`probe`] to skip the refresh.
//!
//! The cache lives in the index folder as `.stat-cache`, is ignored by git (the index
//! folder's own `.gitignore`), is not part of the index contract, and is safe to delete.
//! Files modified within [`RACY_NS`] of the scan are not trusted by their stamp (git's
//! "racy clean" problem: a later edit in the same timestamp tick would go unnoticed): they
//! are recorded as racy, and the probe reads and hashes them (a few files: the ones just
//! edited) instead of trusting the stat. A folder modified that recently is recorded as
//! racy too, and the probe lists it instead of trusting its stamp; an ignore file
//! modified that recently makes the cache incomplete: the probe answers "don't know" and
//! callers scan.
//!
//! A folder whose stamp changed is not yet a changed tree: an editor that saves by
//! writing a new file and renaming it over the old one (vim, JetBrains, `sed -i`) changes
//! the folder's stamp and the file's inode. The probe lists such a folder and accepts it
//! when every entry is one the walk took or would leave out (see `same_entries`), and the
//! file's own stat shows the edit.
//!
//! [`delta`] answers the incremental build's question: which cached files may have changed
//! (their stat differs, or they are racy), when nothing else did.

use crate::config::ScanSettings;
use format::{Line, entry_line, parse_header, parse_line};
use listing::same_entries;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Cache file name inside the index folder.
pub const FILE: &str = ".stat-cache";
const MAGIC: &str = "mdgraph-stat-cache 4";
/// Prefix of a racy entry's hash: its stat cannot vouch for its bytes.
const RACY: char = '?';
/// Files modified less than this long before the scan started are not cached.
pub const RACY_NS: i128 = 2_000_000_000;
/// The racy window in use: [`RACY_NS`] but where a test suite shortened it
/// ([`set_racy_window_ms`]).
static RACY_WINDOW_NS: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(RACY_NS as i64);

/// The racy window in nanoseconds.
pub fn racy_ns() -> i128 {
    i128::from(RACY_WINDOW_NS.load(std::sync::atomic::Ordering::Relaxed))
}

/// Shorten the racy window for this process: the test suite's edits would otherwise
/// wait out 2 s each to be trusted by their stamps. On a filesystem with fine stamps
/// (ext4, tmpfs: nanoseconds) a few hundred milliseconds are as safe; nothing but tests
/// sets it.
pub fn set_racy_window_ms(ms: u64) {
    let ns = i64::try_from(ms.saturating_mul(1_000_000))
        .unwrap_or(i64::MAX)
        .min(RACY_NS as i64);
    RACY_WINDOW_NS.store(ns, std::sync::atomic::Ordering::Relaxed);
}
/// Ignore files the walk reads in the root and its ancestors.
pub const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".git/info/exclude"];

/// What a stat says about a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, ns since the epoch.
    pub mtime: i128,
    /// Status change time, ns since the epoch (0 where unavailable).
    pub ctime: i128,
    /// Inode number (0 where unavailable).
    pub ino: u64,
}

fn ns(t: std::io::Result<SystemTime>) -> i128 {
    t.ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

impl Stamp {
    /// The stamp of a file's metadata.
    pub fn of(md: &Metadata) -> Stamp {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Stamp::from_unix(
                md.len(),
                (md.mtime().into(), md.mtime_nsec().into()),
                (md.ctime().into(), md.ctime_nsec().into()),
                md.ino(),
            )
        }
        #[cfg(not(unix))]
        {
            Stamp {
                size: md.len(),
                mtime: ns(md.modified()),
                ctime: 0,
                ino: 0,
            }
        }
    }

    /// A stamp from a unix stat's fields: size, (seconds, nanoseconds) of the mtime and
    /// the ctime, inode.
    #[cfg(unix)]
    fn from_unix(size: u64, mtime: (i128, i128), ctime: (i128, i128), ino: u64) -> Stamp {
        let ns = |(s, n): (i128, i128)| s * 1_000_000_000 + n;
        Stamp {
            size,
            mtime: ns(mtime),
            ctime: ns(ctime),
            ino,
        }
    }

    /// The stamp of a path, None when it does not exist.
    pub fn of_path(p: &Path) -> Option<Stamp> {
        std::fs::metadata(p).ok().map(|m| Stamp::of(&m))
    }

    /// Whether the stamp can vouch for the bytes at `scan_start`: the file was last
    /// changed before the racy window (a later change in the same timestamp tick would
    /// leave the stamp as it is).
    pub fn settled(&self, scan_start: i128) -> bool {
        self.mtime < scan_start - racy_ns() && self.ctime < scan_start - racy_ns()
    }

    fn write(&self, out: &mut String) {
        out.push_str(&format!("{} {} {} {}", self.size, self.mtime, self.ctime, self.ino));
    }
}

/// The hash a cache records for a file with stamp `st` and content hash `h`, seen by a
/// scan that started at `scan_start`: marked racy when the stamp cannot vouch for it.
fn cached_hash(st: &Stamp, scan_start: i128, h: &str) -> String {
    match st.settled(scan_start) {
        true => h.to_string(),
        false => format!("{RACY}{h}"),
    }
}

mod format;
mod listing;

/// The stat cache of one index folder.
#[derive(Debug, Default, Clone)]
pub struct StatCache {
    /// Source path → (stamp, content hash).
    files: HashMap<String, (Stamp, String)>,
    /// Index output name → (stamp, digest).
    outputs: HashMap<String, (Stamp, String)>,
    /// Walked folders (root-relative, "" is the root) → stamp, and whether it is racy
    /// (then the probe lists the folder instead of trusting the stamp).
    dirs: Vec<(String, Stamp, bool)>,
    /// Ignore files around the root (absolute) → stamp, None when absent.
    watch: Vec<(PathBuf, Option<Stamp>)>,
    /// Config digest of the index this cache describes.
    pub config_digest: String,
    /// Digest of the sidecar files (the one the SQLite mirror records: `mirror::sidecar_digest`).
    pub sidecar_digest: String,
    /// Every file and folder was settled when the cache was written (the probe can
    /// answer).
    complete: bool,
}

/// Everything needed to write a cache after an index run.
pub struct Snapshot<'a> {
    /// When the scan started (ns since the epoch).
    pub scan_start: i128,
    /// The root.
    pub root: &'a Path,
    /// (path, stamp, hash) of every scanned source file.
    pub files: Vec<(&'a str, Stamp, &'a str)>,
    /// Walked folders.
    pub dirs: &'a [(String, Stamp)],
    /// Config digest.
    pub config_digest: &'a str,
    /// Sidecar digest.
    pub sidecar_digest: &'a str,
    /// (name, stamp, digest) of the index outputs.
    pub outputs: Vec<(&'a str, Stamp, String)>,
    /// Files the scan skipped (not UTF-8, too large, unreadable): they have no stamp, so
    /// while there are any the probe cannot vouch for the tree.
    pub skipped: usize,
}

/// Ignore files in the root and each of its ancestors, and git's global excludes file with
/// the configuration files that may name another one.
fn watch_paths(root: &Path) -> Vec<PathBuf> {
    let abs = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut paths: Vec<PathBuf> = abs
        .ancestors()
        .flat_map(|a| IGNORE_FILES.iter().map(move |f| a.join(f)))
        .collect();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    if let Some(h) = &home {
        paths.push(h.join(".gitconfig"));
    }
    if let Some(c) = config {
        paths.push(c.join("git/config"));
        paths.push(c.join("git/ignore"));
    }
    paths
}

impl StatCache {
    /// Build the cache from an index run.
    pub fn from_snapshot(s: Snapshot<'_>) -> StatCache {
        let mut complete = true;
        let mut files = HashMap::with_capacity(s.files.len());
        for (p, st, h) in s.files {
            files.insert(p.to_string(), (st, cached_hash(&st, s.scan_start, h)));
        }
        let mut dirs = Vec::with_capacity(s.dirs.len());
        // A folder changed within the racy window (the root, when this run made the
        // index folder; one where an editor just saved by renaming) cannot be vouched for
        // by its stamp: the probe lists it.
        for (d, st) in s.dirs {
            dirs.push((d.clone(), *st, !st.settled(s.scan_start)));
        }
        // Ignore files shape the walk: those of the root's ancestors are watched, present
        // with their stamp or absent, and those of walked folders when there is an entry
        // by that name (creating one changes its folder's stamp, which the probe checks;
        // a dangling symlink's target can appear without the folder changing).
        let mut watch: Vec<(PathBuf, Option<Stamp>)> = watch_paths(s.root)
            .into_iter()
            .map(|p| (p.clone(), Stamp::of_path(&p)))
            .collect();
        for (d, _) in s.dirs {
            for f in [".gitignore", ".ignore"] {
                let p = s.root.join(d).join(f);
                if std::fs::symlink_metadata(&p).is_ok() {
                    let st = Stamp::of_path(&p);
                    watch.push((p, st));
                }
            }
        }
        watch.sort_by(|a, b| a.0.cmp(&b.0));
        watch.dedup_by(|a, b| a.0 == b.0);
        // Ignore files are stamped now, after the build: one changed since the walk began
        // may not be what the walk read.
        if watch
            .iter()
            .any(|(_, st)| st.is_some_and(|st| !st.settled(s.scan_start)))
        {
            complete = false;
        }
        if s.skipped > 0 {
            complete = false;
        }
        StatCache {
            files,
            outputs: s
                .outputs
                .into_iter()
                .map(|(n, st, d)| (n.to_string(), (st, d)))
                .collect(),
            dirs,
            watch,
            config_digest: s.config_digest.to_string(),
            sidecar_digest: s.sidecar_digest.to_string(),
            complete,
        }
    }

    /// Read the cache of an index folder; empty when absent or unreadable.
    pub fn load(index_dir: &Path) -> StatCache {
        std::fs::read_to_string(index_dir.join(FILE))
            .ok()
            .and_then(|t| Self::parse(&t))
            .unwrap_or_default()
    }

    fn parse(text: &str) -> Option<StatCache> {
        let mut lines = text.lines();
        let (complete, config, sidecar) = parse_header(lines.next()?)?;
        let mut c = StatCache {
            complete,
            config_digest: config.to_string(),
            sidecar_digest: sidecar.to_string(),
            ..StatCache::default()
        };
        for line in lines {
            match parse_line(line)? {
                Line::File(p, st, h) => {
                    c.files.insert(p.to_string(), (st, h.to_string()));
                }
                Line::Output(p, st, h) => {
                    c.outputs.insert(p.to_string(), (st, h.to_string()));
                }
                Line::Dir(p, st, racy) => c.dirs.push((p.to_string(), st, racy)),
                Line::Watch(p, st) => c.watch.push((PathBuf::from(p), st)),
            }
        }
        Some(c)
    }

    /// The cached hash of `path` if its stamp is unchanged (and vouches for it: not racy).
    pub fn get(&self, path: &str, stamp: &Stamp) -> Option<&str> {
        self.files
            .get(path)
            .filter(|(s, h)| s == stamp && !h.starts_with(RACY))
            .map(|(_, h)| h.as_str())
    }

    /// The cached digest of an output file if its stamp is unchanged.
    pub fn output(&self, name: &str, stamp: &Stamp) -> Option<&str> {
        self.outputs
            .get(name)
            .filter(|(s, _)| s == stamp)
            .map(|(_, h)| h.as_str())
    }

    /// Write atomically; a failure only costs speed, so it is ignored.
    pub fn save(&self, index_dir: &Path) {
        let mut out = String::with_capacity(self.files.len() * 150 + 256);
        // A path with a newline cannot be written on one line: then the cache does not
        // cover every file and must not vouch for the tree.
        let all_written = !self.files.keys().any(|p| p.contains('\n'));
        let flag = if self.complete && all_written { "1" } else { "0" };
        out.push_str(&format!(
            "{MAGIC} {flag} {} {}\n",
            self.config_digest, self.sidecar_digest
        ));
        let mut rows: Vec<(&str, &String, &(Stamp, String))> = self
            .files
            .iter()
            .map(|(p, v)| ("F", p, v))
            .chain(self.outputs.iter().map(|(p, v)| ("O", p, v)))
            .collect();
        rows.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        for (kind, path, (st, hash)) in rows {
            if path.contains('\n') {
                continue;
            }
            out.push_str(&entry_line(kind, st, hash, path));
            out.push('\n');
        }
        for (d, st, racy) in &self.dirs {
            out.push_str("D ");
            st.write(&mut out);
            let mark = if *racy { RACY } else { '-' };
            out.push_str(&format!(" {mark} {d}\n"));
        }
        for (p, st) in &self.watch {
            let stamp = st
                .map(|s| format!("{},{},{},{}", s.size, s.mtime, s.ctime, s.ino))
                .unwrap_or_else(|| "-".into());
            out.push_str(&format!("W {stamp} {}\n", p.display()));
        }
        let _ = crate::store::files::write_if_changed(&index_dir.join(FILE), out.as_bytes());
    }
}

/// From stats alone: is the index in `index_dir` still what `root` and a config with
/// `config_digest` would produce? Returns the sidecar digest when it is; None means
/// "changed or don't know" (callers then scan).
///
/// Every walked folder must keep its stamp (a new, deleted or renamed entry changes its
/// folder's mtime) or, listed, hold what the walk took from it, and every cached file
/// must be there with its stamp. Source files are the first lines of the cache, sorted
/// by path, so a folder's files are consecutive: the block of them is cut into chunks
/// that workers parse and check in parallel, each opening a folder once per run of its
/// files and stat'ing them by name relative to it (cheaper than a stat by full path).
/// Only a folder whose stamp changed or is racy is listed.
pub fn probe(index_dir: &Path, root: &Path, config_digest: &str, scan: &ScanSettings) -> Option<String> {
    let text = std::fs::read_to_string(index_dir.join(FILE)).ok()?;
    let tree = settled_tree(&text, index_dir, root, config_digest, scan)?;
    // A racy file is vouched for by its bytes: read and hashed.
    let same = |hash: &str, stamp_same: bool, read: &dyn Fn() -> Option<Vec<u8>>| {
        stamp_same
            && hash
                .strip_prefix(RACY)
                .is_none_or(|h| read().is_some_and(|b| blake3::hash(&crate::text::eol::lf(b)).to_hex().as_str() == h))
    };
    let files_ok = chunks(tree.files, rayon::current_num_threads() * 8)
        .par_iter()
        .all(|chunk| visit_files(root, chunk, &tree.walked, &mut |_, h, st, read| same(h, st, read)));
    files_ok.then(|| tree.sidecar.to_string())
}

/// Patch the cache file of `index_dir` after an edit that changed no folder, ignore file
/// or config: new stamps (and hashes) for `files` (which must be in it; racy ones marked
/// as a scan starting at `scan_start` marks them), new output stamps and digests, a new
/// sidecar digest. Each line is found by a binary search (`F` lines come first, sorted by
/// path, then `O` lines sorted by name) and the rest is copied in the kernel
/// ([`crate::store::patch::Patch`]), not parsed and written again (19 MB at 100k files).
/// False (the file left as it was) when the cache does not hold every such line.
pub fn patch_file(
    index_dir: &Path,
    scan_start: i128,
    files: &[(String, Stamp, String)],
    sidecar_digest: &str,
    outputs: &[(&str, Stamp, String)],
) -> bool {
    use crate::store::patch::{Patch, Sorted};
    let path = index_dir.join(FILE);
    let patched = || -> Option<()> {
        let src = Sorted::open(&path).ok()?;
        let head = src.line(0).ok()?;
        let (complete, config, _) = parse_header(std::str::from_utf8(&head).ok()?.trim_end())?;
        let flag = if complete { "1" } else { "0" };
        let mut patch = Patch::default();
        let new_head = format!("{MAGIC} {flag} {config} {sidecar_digest}\n").into_bytes();
        // A run that finds the same stamps and hashes writes nothing.
        let mut same = new_head == head;
        patch.insert(0, new_head);
        patch.remove(0, head);
        // The path or name of a line of `kind` (after its stamp and hash).
        let key = |l: &[u8], kind: &[u8]| -> Option<Vec<u8>> {
            let rest = l.strip_prefix(kind)?;
            let k = rest.splitn(6, |&b| b == b' ').nth(5)?;
            Some(k.strip_suffix(b"\n").unwrap_or(k).to_vec())
        };
        let mut replace = |kind: &str, name: &str, line: String| -> Option<()> {
            let (k, header) = (kind.as_bytes(), MAGIC.as_bytes());
            // False for the header, then for lines before `name`'s among its kind's.
            let before = |l: &[u8]| l.starts_with(header) || (kind == "O " && l.starts_with(b"F "));
            let ge = |l: &[u8]| !before(l) && key(l, k).is_none_or(|x| x.as_slice() >= name.as_bytes());
            let at = src.lower_bound(ge).ok()?;
            let old = src.line(at).ok()?;
            if key(&old, k)? != name.as_bytes() {
                return None;
            }
            let new = format!("{line}\n").into_bytes();
            same &= new == old;
            patch.remove(at, old);
            patch.insert(at, new);
            Some(())
        };
        for (p, st, h) in files {
            replace("F ", p, entry_line("F", st, &cached_hash(st, scan_start, h), p))?;
        }
        for (n, st, d) in outputs {
            replace("O ", n, entry_line("O", st, d, n))?;
        }
        if same {
            return Some(());
        }
        crate::store::files::atomic_write(&path, |f| patch.write(&src, f)).ok()
    };
    patched().is_some()
}

/// What may have changed since the cache was written, when the change can only be edits
/// of cached files: the cache is complete, of this config, every ignore file and index
/// output keeps its stamp, and every walked folder its stamp or its entries (so no file
/// was added, removed or renamed, and the walk would take the same files). None
/// otherwise ("scan").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delta {
    /// The sidecar digest the cache describes.
    pub sidecar: String,
    /// The files whose stat differs or is racy, sorted by path: read them to know
    /// whether their bytes changed.
    pub touched: Vec<String>,
}

/// [`Delta`] of the index in `index_dir` against `root`, from stats alone.
pub fn delta(index_dir: &Path, root: &Path, config_digest: &str, scan: &ScanSettings) -> Option<Delta> {
    let text = std::fs::read_to_string(index_dir.join(FILE)).ok()?;
    let tree = settled_tree(&text, index_dir, root, config_digest, scan)?;
    let found: Option<Vec<Vec<String>>> = chunks(tree.files, rayon::current_num_threads() * 8)
        .par_iter()
        .map(|chunk| {
            let mut out = Vec::new();
            let ok = visit_files(root, chunk, &tree.walked, &mut |p, h, same, _| {
                if !same || h.starts_with(RACY) {
                    out.push(p.to_string());
                }
                true
            });
            ok.then_some(out)
        })
        .collect();
    Some(Delta {
        sidecar: tree.sidecar.to_string(),
        touched: found?.into_iter().flatten().collect(),
    })
}

/// A cache whose folders, ignore files and outputs all keep their stamps: its sidecar
/// digest, the block of its `F` lines and the walked folders.
struct Tree<'a> {
    sidecar: &'a str,
    files: &'a str,
    walked: HashSet<&'a str>,
}

fn settled_tree<'a>(
    text: &'a str,
    index_dir: &Path,
    root: &Path,
    config_digest: &str,
    scan: &ScanSettings,
) -> Option<Tree<'a>> {
    let (head, body) = text.split_once('\n')?;
    let (complete, config, sidecar) = parse_header(head)?;
    if !complete || config != config_digest {
        return None;
    }
    let mut split = 0;
    while body[split..].starts_with("F ") {
        split = body[split..].find('\n').map_or(body.len(), |i| split + i + 1);
    }
    let (files, rest) = body.split_at(split);
    let mut dirs: Vec<(&str, Stamp, bool)> = Vec::new();
    let mut outputs = 0;
    let mut watched: HashSet<&Path> = HashSet::new();
    for line in rest.lines() {
        match parse_line(line)? {
            Line::Watch(path, want) => {
                if Stamp::of_path(Path::new(path)) != want {
                    return None;
                }
                watched.insert(Path::new(path));
            }
            Line::Output(path, st, _) => {
                if Stamp::of_path(&index_dir.join(path)) != Some(st) {
                    return None;
                }
                outputs += 1;
            }
            Line::Dir(path, st, racy) => dirs.push((path, st, racy)),
            Line::File(..) => return None,
        }
    }
    // meta.json and the three JSONL files; the root's ancestors at least.
    if files.is_empty() || outputs != crate::store::files::OUTPUTS.len() + 1 || watched.len() < watch_paths(root).len()
    {
        return None;
    }
    // Added entries are seen through their folder's stamp: the root and the folder of
    // every cached file must have one.
    let walked: HashSet<&str> = dirs.iter().map(|(d, ..)| *d).collect();
    if !walked.contains("") {
        return None;
    }
    // A folder whose stamp changed is listed: an editor that saves by writing a new
    // file and renaming it over the old one changes the folder, not what the walk takes.
    let restamped: Option<Vec<&str>> = dirs
        .par_iter()
        .filter_map(|(d, st, racy)| match Stamp::of_path(&root.join(d)) {
            Some(now) if now == *st && !racy => None,
            Some(_) => Some(Some(*d)),
            None => Some(None),
        })
        .collect();
    let restamped = restamped?;
    let tree = Tree { sidecar, files, walked };
    (restamped.is_empty() || same_entries(&restamped, &tree, root, index_dir, &watched, scan)).then_some(tree)
}

/// Cut `block` into about `n` pieces of whole lines.
fn chunks(block: &str, n: usize) -> Vec<&str> {
    let step = block.len().div_ceil(n.max(1)).max(1);
    let mut out = Vec::with_capacity(n);
    let mut rest = block;
    while !rest.is_empty() {
        let cut = rest
            .get(step..)
            .and_then(|tail| tail.find('\n'))
            .map_or(rest.len(), |i| step + i + 1);
        let (chunk, tail) = rest.split_at(cut);
        out.push(chunk);
        rest = tail;
    }
    out
}

/// Call `each(path, cached hash, stamp unchanged, read)` for the file of every `F` line
/// (`read` gives its bytes now), while it returns true. False when it stopped, or a line
/// cannot be read, or a file's folder was not walked or a file is gone (what the walk
/// would see differs). A symlink is stat'ed itself, so its stamp never equals the
/// target's that the scan recorded: a symlinked file always counts as changed (whether
/// the scan keeps one depends on the whole path to its target, which stats of the
/// target cannot vouch for).
type Visit<'v> = dyn FnMut(&str, &str, bool, &dyn Fn() -> Option<Vec<u8>>) -> bool + 'v;

#[cfg(unix)]
fn visit_files(root: &Path, lines: &str, walked: &HashSet<&str>, each: &mut Visit<'_>) -> bool {
    use rustix::fs::{AtFlags, Mode, OFlags};
    let mut folder: Option<(&str, rustix::fd::OwnedFd)> = None;
    for line in lines.lines() {
        let Some(Line::File(path, want, hash)) = parse_line(line) else {
            return false;
        };
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let fd = match folder {
            Some((d, ref fd)) if d == dir => fd,
            _ => {
                if !walked.contains(dir) {
                    return false;
                }
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
                let Ok(fd) = rustix::fs::open(root.join(dir), flags, Mode::empty()) else {
                    return false;
                };
                &folder.insert((dir, fd)).1
            }
        };
        let Ok(st) = rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW) else {
            return false;
        };
        let read = || {
            let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
            let f = rustix::fs::openat(fd, name, flags, Mode::empty()).ok()?;
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::fs::File::from(f), &mut bytes).ok()?;
            Some(bytes)
        };
        if !each(path, hash, stamp_of_stat(&st) == want, &read) {
            return false;
        }
    }
    true
}

#[cfg(not(unix))]
fn visit_files(root: &Path, lines: &str, walked: &HashSet<&str>, each: &mut Visit<'_>) -> bool {
    for line in lines.lines() {
        let Some(Line::File(path, want, hash)) = parse_line(line) else {
            return false;
        };
        if !walked.contains(path.rsplit_once('/').map_or("", |(d, _)| d)) {
            return false;
        }
        let Ok(md) = std::fs::symlink_metadata(root.join(path)) else {
            return false;
        };
        let read = || std::fs::read(root.join(path)).ok();
        if !each(path, hash, Stamp::of(&md) == want, &read) {
            return false;
        }
    }
    true
}

/// The stamp of a raw stat, equal to [`Stamp::of`] of the same file's metadata.
/// (The field types differ between targets, so some conversions are no-ops here.)
#[cfg(unix)]
#[allow(clippy::useless_conversion)]
fn stamp_of_stat(st: &rustix::fs::Stat) -> Stamp {
    Stamp::from_unix(
        u64::try_from(st.st_size).unwrap_or(u64::MAX),
        (i128::from(st.st_mtime), i128::from(st.st_mtime_nsec)),
        (i128::from(st.st_ctime), i128::from(st.st_ctime_nsec)),
        u64::from(st.st_ino),
    )
}

/// Now, in ns since the epoch.
pub fn now_ns() -> i128 {
    ns(Ok(SystemTime::now()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_racy_entries_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let old = Stamp {
            size: 10,
            mtime: 1_000,
            ctime: 1_000,
            ino: 7,
        };
        let fresh = Stamp {
            size: 10,
            mtime: 9_000_000_000,
            ctime: 9_000_000_000,
            ino: 8,
        };
        let c = StatCache::from_snapshot(Snapshot {
            scan_start: 10_000_000_000,
            root: dir.path(),
            files: vec![("a b.md", old, "h1"), ("new.md", fresh, "h2")],
            dirs: &[(String::new(), old)],
            config_digest: "cfg",
            sidecar_digest: "side",
            outputs: vec![("graph_nodes.jsonl", fresh, "d".into())],
            skipped: 0,
        });
        c.save(dir.path());
        let back = StatCache::load(dir.path());
        assert_eq!(back.get("a b.md", &old), Some("h1"));
        assert_eq!(back.get("new.md", &fresh), None, "a racy entry does not vouch");
        assert_eq!(back.get("a b.md", &Stamp { size: 11, ..old }), None);
        assert_eq!(back.output("graph_nodes.jsonl", &fresh), Some("d"));
        assert_eq!(back.sidecar_digest, "side");
        assert_eq!(back.watch.len(), c.watch.len());
        assert_eq!(
            probe(dir.path(), dir.path(), "cfg", &ScanSettings::default()),
            None,
            "the cached files are not there"
        );
    }

    /// Each file of `names` under `root`, holding its own name.
    fn write_tree(root: &Path, names: &[&str]) {
        for f in names {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, f).unwrap();
        }
    }

    /// A cache over a real tree whose stamps all count as settled.
    fn vouching_cache(root: &Path, index: &Path, files: &[&str]) {
        cache_at(root, index, files, now_ns() + 10 * RACY_NS);
    }

    /// A cache over a real tree as a scan that started at `scan_start` writes it.
    fn cache_at(root: &Path, index: &Path, files: &[&str], scan_start: i128) {
        let stamp = |p: &Path| Stamp::of_path(p).unwrap();
        let mut dirs: Vec<(String, Stamp)> = files
            .iter()
            .map(|f| f.rsplit_once('/').map_or("", |(d, _)| d).to_string())
            .map(|d| (d.clone(), stamp(&root.join(&d))))
            .collect();
        dirs.sort_by(|a, b| a.0.cmp(&b.0));
        dirs.dedup_by(|a, b| a.0 == b.0);
        let stamps: Vec<Stamp> = files.iter().map(|f| stamp(&root.join(f))).collect();
        let outputs: Vec<String> = crate::store::files::OUTPUTS
            .iter()
            .chain([&crate::store::files::META])
            .map(|s| s.to_string())
            .collect();
        for o in &outputs {
            std::fs::write(index.join(o), o).unwrap();
        }
        let hashes: Vec<String> = files
            .iter()
            .map(|f| blake3::hash(&std::fs::read(root.join(f)).unwrap()).to_hex().to_string())
            .collect();
        StatCache::from_snapshot(Snapshot {
            scan_start,
            root,
            files: files
                .iter()
                .zip(&stamps)
                .zip(&hashes)
                .map(|((f, st), h)| (*f, *st, h.as_str()))
                .collect(),
            dirs: &dirs,
            config_digest: "cfg",
            sidecar_digest: "side",
            outputs: outputs
                .iter()
                .map(|o| (o.as_str(), stamp(&index.join(o)), "d".into()))
                .collect(),
            skipped: 0,
        })
        .save(index);
    }

    #[test]
    fn probe_sees_every_edit_in_every_chunk() {
        let root = tempfile::tempdir().unwrap();
        let index = tempfile::tempdir().unwrap();
        // Sorted by path, a folder's files are split by a subfolder's ("a/b/…" sorts
        // between "a/a…" and "a/c…"), and there are enough lines for many chunks.
        let mut files = vec!["top.md".to_string()];
        for i in 0..40 {
            files.push(format!("a/a{i:02}.md"));
            files.push(format!("a/b/x{i:02}.md"));
            files.push(format!("a/c{i:02}.md"));
        }
        files.sort();
        for f in &files {
            let p = root.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, f).unwrap();
        }
        let names: Vec<&str> = files.iter().map(String::as_str).collect();
        vouching_cache(root.path(), index.path(), &names);
        assert_eq!(
            probe(index.path(), root.path(), "cfg", &ScanSettings::default()).as_deref(),
            Some("side")
        );
        assert_eq!(
            probe(index.path(), root.path(), "other", &ScanSettings::default()),
            None,
            "another config"
        );
        for f in ["top.md", "a/a00.md", "a/b/x17.md", "a/c39.md"] {
            // An in-place edit keeps the folder's stamp: only the file's own stat shows it.
            let p = root.path().join(f);
            let dir = Stamp::of_path(p.parent().unwrap());
            std::fs::write(&p, "edited, and longer than before").unwrap();
            assert_eq!(Stamp::of_path(p.parent().unwrap()), dir);
            assert_eq!(
                probe(index.path(), root.path(), "cfg", &ScanSettings::default()),
                None,
                "{f} edited"
            );
            vouching_cache(root.path(), index.path(), &names);
            assert!(probe(index.path(), root.path(), "cfg", &ScanSettings::default()).is_some());
        }
        // Absent ignore files of walked folders are not stat'ed: creating one changes the
        // folder's stamp. One that is present is watched itself.
        std::fs::write(root.path().join("a/b/.gitignore"), "x01.md\n").unwrap();
        assert_eq!(
            probe(index.path(), root.path(), "cfg", &ScanSettings::default()),
            None,
            "a new .gitignore"
        );
        vouching_cache(root.path(), index.path(), &names);
        assert!(probe(index.path(), root.path(), "cfg", &ScanSettings::default()).is_some());
        std::fs::write(root.path().join("a/b/.gitignore"), "x02.md\n").unwrap();
        assert_eq!(
            probe(index.path(), root.path(), "cfg", &ScanSettings::default()),
            None,
            "an edited .gitignore"
        );
        vouching_cache(root.path(), index.path(), &names);
        std::fs::remove_file(root.path().join("a/b/x03.md")).unwrap();
        assert_eq!(
            probe(index.path(), root.path(), "cfg", &ScanSettings::default()),
            None,
            "a deletion"
        );
    }

    #[test]
    fn racy_files_are_vouched_by_their_bytes_and_delta_lists_them() {
        let root = tempfile::tempdir().unwrap();
        let index = tempfile::tempdir().unwrap();
        let names = ["a.md", "b/c.md", "b/d.md"];
        write_tree(root.path(), &names);
        // Folders settled, files racy: as right after an edit.
        cache_at(root.path(), index.path(), &names, now_ns() + 10 * RACY_NS);
        let racy: Vec<(String, Stamp, String)> = names
            .iter()
            .map(|f| {
                let p = root.path().join(f);
                let h = blake3::hash(&std::fs::read(&p).unwrap()).to_hex().to_string();
                (f.to_string(), Stamp::of_path(&p).unwrap(), h)
            })
            .collect();
        assert!(patch_file(index.path(), now_ns(), &racy[1..2], "side", &[]));
        assert!(
            probe(index.path(), root.path(), "cfg", &ScanSettings::default()).is_some(),
            "same bytes vouch"
        );
        let d = delta(index.path(), root.path(), "cfg", &ScanSettings::default()).unwrap();
        assert_eq!(d.sidecar, "side");
        assert_eq!(d.touched, ["b/c.md"], "the racy file");
        // The same size, and (on a coarse clock) the same stamp: only the bytes tell.
        std::fs::write(root.path().join("b/c.md"), "B/C.md").unwrap();
        assert_eq!(
            probe(index.path(), root.path(), "cfg", &ScanSettings::default()),
            None,
            "a racy file edited"
        );
        std::fs::write(root.path().join("b/d.md"), "b/d.md, edited").unwrap();
        let d = delta(index.path(), root.path(), "cfg", &ScanSettings::default()).unwrap();
        assert_eq!(d.touched, ["b/c.md", "b/d.md"]);
        std::fs::write(root.path().join("b/new.md"), "new").unwrap();
        assert_eq!(
            delta(index.path(), root.path(), "cfg", &ScanSettings::default()),
            None,
            "a file added"
        );
    }

    #[test]
    fn a_save_by_rename_changes_a_folder_but_not_the_tree() {
        let root = tempfile::tempdir().unwrap();
        let index = tempfile::tempdir().unwrap();
        let names = ["a.md", "b/c.md", "b/d.md"];
        write_tree(root.path(), &names);
        vouching_cache(root.path(), index.path(), &names);
        let scan = ScanSettings::default();
        let b = root.path().join("b");
        let folder = Stamp::of_path(&b);
        // As an editor saves atomically: a new file, renamed over the old one.
        std::fs::write(b.join(".c.md.tmp"), "b/c.md, saved").unwrap();
        std::fs::rename(b.join(".c.md.tmp"), b.join("c.md")).unwrap();
        assert_ne!(Stamp::of_path(&b), folder, "the folder changed");
        let d = delta(index.path(), root.path(), "cfg", &scan).expect("still only edits");
        assert_eq!(d.touched, ["b/c.md"]);
        assert_eq!(probe(index.path(), root.path(), "cfg", &scan), None, "an edit");
        // The edit indexed: the file's new stamp recorded, the folder's left as it was.
        let p = b.join("c.md");
        let h = blake3::hash(&std::fs::read(&p).unwrap()).to_hex().to_string();
        let stamp = Stamp::of_path(&p).unwrap();
        assert!(patch_file(
            index.path(),
            now_ns() + 10 * RACY_NS,
            &[("b/c.md".into(), stamp, h)],
            "side",
            &[]
        ));
        assert_eq!(probe(index.path(), root.path(), "cfg", &scan).as_deref(), Some("side"));
        // What an editor leaves beside the file, and files the globs do not take.
        for f in ["c.md~", ".c.md.swp", "notes.txt", "4913"] {
            std::fs::write(b.join(f), "x").unwrap();
        }
        assert!(
            probe(index.path(), root.path(), "cfg", &scan).is_some(),
            "nothing the walk takes"
        );
        let drafts = ScanSettings {
            exclude: vec!["b/draft*.md".into()],
            ..ScanSettings::default()
        };
        std::fs::write(b.join("draft1.md"), "x").unwrap();
        assert!(probe(index.path(), root.path(), "cfg", &drafts).is_some(), "excluded");
        assert_eq!(
            probe(index.path(), root.path(), "cfg", &scan),
            None,
            "a new file the walk takes"
        );
        std::fs::remove_file(b.join("draft1.md")).unwrap();
        std::fs::create_dir(b.join("sub")).unwrap();
        assert_eq!(delta(index.path(), root.path(), "cfg", &scan), None, "a new folder");
        std::fs::remove_dir(b.join("sub")).unwrap();
        std::fs::write(b.join(".gitignore"), "d.md\n").unwrap();
        assert_eq!(
            delta(index.path(), root.path(), "cfg", &scan),
            None,
            "a new ignore file"
        );
        std::fs::remove_file(b.join(".gitignore")).unwrap();
        std::fs::create_dir(b.join(".git")).unwrap();
        assert_eq!(
            delta(index.path(), root.path(), "cfg", &scan),
            None,
            "now a repository of its own"
        );
        std::fs::remove_dir(b.join(".git")).unwrap();
        assert!(probe(index.path(), root.path(), "cfg", &scan).is_some());
        std::fs::remove_file(b.join("d.md")).unwrap();
        assert_eq!(delta(index.path(), root.path(), "cfg", &scan), None, "a deletion");
    }

    #[test]
    fn a_patched_cache_is_the_cache_written_whole() {
        let root = tempfile::tempdir().unwrap();
        let index = tempfile::tempdir().unwrap();
        let names = ["a.md", "b c/d.md", "b/c.md", "b/d.md", "z.md"];
        for f in names {
            let p = root.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, f).unwrap();
        }
        cache_at(root.path(), index.path(), &names, now_ns() + 10 * RACY_NS);
        let before = std::fs::read(index.path().join(FILE)).unwrap();
        let mut whole = StatCache::load(index.path());
        let st = Stamp::of_path(&root.path().join("a.md")).unwrap();
        let edited: Vec<(String, Stamp, String)> = ["z.md", "b c/d.md", "a.md"]
            .iter()
            .map(|f| (f.to_string(), st, format!("hash of {f}")))
            .collect();
        let outputs = [
            (crate::store::files::NODES, st, "d2".to_string()),
            (crate::store::files::META, st, "-".into()),
        ];
        let start = now_ns();
        assert!(patch_file(index.path(), start, &edited, "side2", &outputs));
        for (f, st, h) in &edited {
            whole.files.insert(f.clone(), (*st, cached_hash(st, start, h)));
        }
        for (n, st, d) in &outputs {
            whole.outputs.insert(n.to_string(), (*st, d.clone()));
        }
        whole.sidecar_digest = "side2".into();
        let other = tempfile::tempdir().unwrap();
        whole.save(other.path());
        let patched = std::fs::read(index.path().join(FILE)).unwrap();
        assert_ne!(patched, before);
        assert_eq!(
            String::from_utf8(patched).unwrap(),
            String::from_utf8(std::fs::read(other.path().join(FILE)).unwrap()).unwrap()
        );
        // A file the cache does not hold: nothing is written.
        let missing = [("b/e.md".to_string(), st, "h".to_string())];
        assert!(!patch_file(index.path(), start, &missing, "side3", &[]));
        assert_eq!(
            std::fs::read(index.path().join(FILE)).unwrap(),
            std::fs::read(other.path().join(FILE)).unwrap()
        );
    }

    #[test]
    fn chunks_cover_every_line_once() {
        let block: String = (0..57).map(|i| format!("F line {i}\n")).collect();
        for n in [0, 1, 2, 7, 56, 57, 58, 1000] {
            let parts = chunks(&block, n);
            assert_eq!(parts.concat(), block, "n = {n}");
            assert!(parts.iter().all(|c| c.ends_with('\n')), "n = {n}");
        }
        assert!(chunks("", 4).is_empty());
        assert_eq!(chunks("F no newline", 4), ["F no newline"]);
    }
}
