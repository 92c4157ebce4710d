//! A local stat cache, as git's index does it.
//!
//! For every source file hashed by `index`, remember (size, mtime, ctime, inode) →
//! blake3; when a file's stat is unchanged its hash is taken from the cache instead of
//! reading it, so a no-change `check` only stats files. Freshness is still decided by
//! content hashes; the cache only skips re-hashing a file that provably was not touched.
//!
//! It also records the stamps of every walked folder and of the ignore files that shape
//! the walk, so [`probe`] can tell "nothing changed" from stats alone, without
//! walking the tree (a new or deleted file changes its folder's mtime). `search`, `pack`,
//! `show` and `neighbors` use [`probe`] to skip the refresh.
//!
//! The cache lives in the index folder as `.stat-cache`, is ignored by git (the index
//! folder's own `.gitignore`), is not part of the index contract, and is safe to delete.
//! Files and folders modified within [`RACY_NS`] of the scan are not trusted (git's "racy
//! clean" problem: a later edit in the same timestamp tick would go unnoticed); while any
//! is pending the probe answers "don't know" and callers scan.

use rayon::prelude::*;
use std::collections::HashMap;
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Cache file name inside the index folder.
pub const FILE: &str = ".stat-cache";
const MAGIC: &str = "mdgraph-stat-cache 2";
/// Files modified less than this long before the scan started are not cached.
pub const RACY_NS: i128 = 2_000_000_000;
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
            Stamp {
                size: md.len(),
                mtime: md.mtime() as i128 * 1_000_000_000 + md.mtime_nsec() as i128,
                ctime: md.ctime() as i128 * 1_000_000_000 + md.ctime_nsec() as i128,
                ino: md.ino(),
            }
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

    /// The stamp of a path, None when it does not exist.
    pub fn of_path(p: &Path) -> Option<Stamp> {
        std::fs::metadata(p).ok().map(|m| Stamp::of(&m))
    }

    fn settled(&self, scan_start: i128) -> bool {
        self.mtime < scan_start - RACY_NS && self.ctime < scan_start - RACY_NS
    }

    fn write(&self, out: &mut String) {
        out.push_str(&format!("{} {} {} {}", self.size, self.mtime, self.ctime, self.ino));
    }
}

/// The stat cache of one index folder.
#[derive(Debug, Default, Clone)]
pub struct StatCache {
    /// Source path → (stamp, content hash).
    files: HashMap<String, (Stamp, String)>,
    /// Index output name → (stamp, digest).
    outputs: HashMap<String, (Stamp, String)>,
    /// Walked folders (root-relative, "" is the root) → stamp.
    dirs: Vec<(String, Stamp)>,
    /// Ignore files around the root (absolute) → stamp, None when absent.
    watch: Vec<(PathBuf, Option<Stamp>)>,
    /// Config digest of the index this cache describes.
    pub config_digest: String,
    /// Digest of the sidecar files (see [`crate::store::sidecar_digest`]).
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

/// Ignore files in the root and each of its ancestors.
fn watch_paths(root: &Path) -> Vec<PathBuf> {
    let abs = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    abs.ancestors()
        .flat_map(|a| IGNORE_FILES.iter().map(move |f| a.join(f)))
        .collect()
}

impl StatCache {
    /// Build the cache from an index run.
    pub fn from_snapshot(s: Snapshot<'_>) -> StatCache {
        let mut complete = true;
        let mut files = HashMap::with_capacity(s.files.len());
        for (p, st, h) in s.files {
            if st.settled(s.scan_start) {
                files.insert(p.to_string(), (st, h.to_string()));
            } else {
                complete = false;
            }
        }
        let mut dirs = Vec::with_capacity(s.dirs.len());
        for (d, st) in s.dirs {
            if st.settled(s.scan_start) {
                dirs.push((d.clone(), *st));
            } else {
                complete = false;
            }
        }
        // Ignore files shape the walk: those of the root's ancestors and of every walked
        // folder are watched (present with their stamp, or absent).
        let mut paths = watch_paths(s.root);
        for (d, _) in s.dirs {
            for f in [".gitignore", ".ignore"] {
                paths.push(s.root.join(d).join(f));
            }
        }
        paths.sort();
        paths.dedup();
        let watch = paths.into_iter().map(|p| (p.clone(), Stamp::of_path(&p))).collect();
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
                Line::Dir(p, st) => c.dirs.push((p.to_string(), st)),
                Line::Watch(p, st) => c.watch.push((PathBuf::from(p), st)),
            }
        }
        Some(c)
    }

    /// The cached hash of `path` if its stamp is unchanged.
    pub fn get(&self, path: &str, stamp: &Stamp) -> Option<&str> {
        self.files
            .get(path)
            .filter(|(s, _)| s == stamp)
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
            out.push_str(kind);
            out.push(' ');
            st.write(&mut out);
            out.push_str(&format!(" {hash} {path}\n"));
        }
        for (d, st) in &self.dirs {
            out.push_str("D ");
            st.write(&mut out);
            out.push_str(&format!(" - {d}\n"));
        }
        for (p, st) in &self.watch {
            let stamp = st
                .map(|s| format!("{},{},{},{}", s.size, s.mtime, s.ctime, s.ino))
                .unwrap_or_else(|| "-".into());
            out.push_str(&format!("W {stamp} {}\n", p.display()));
        }
        let _ = crate::sidecar::write_if_changed(&index_dir.join(FILE), out.as_bytes());
    }
}

/// From stats alone: is the index in `index_dir` still what `root` and a config with
/// `config_digest` would produce? Returns the sidecar digest when it is; None means
/// "changed or don't know" (callers then scan).
///
/// Reads the cache without building its maps, and checks each folder by listing it and
/// stat'ing its entries relative to the open folder (cheaper than a stat by full path):
/// every cached file must be there with its stamp, and every walked folder must keep its
/// stamp (a new or deleted entry changes the folder's mtime).
pub fn probe(index_dir: &Path, root: &Path, config_digest: &str) -> Option<String> {
    let text = std::fs::read_to_string(index_dir.join(FILE)).ok()?;
    let mut lines = text.lines();
    let (complete, config, sidecar) = parse_header(lines.next()?)?;
    if !complete || config != config_digest {
        return None;
    }
    let sidecar = sidecar.to_string();
    let mut by_dir: HashMap<&str, Vec<(&str, Stamp)>> = HashMap::new();
    let mut dirs: Vec<(&str, Stamp)> = Vec::new();
    let mut outputs = 0;
    let mut watched = 0;
    for line in lines {
        match parse_line(line)? {
            Line::Watch(path, want) => {
                if Stamp::of_path(Path::new(path)) != want {
                    return None;
                }
                watched += 1;
            }
            Line::File(path, st, _) => {
                let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
                by_dir.entry(dir).or_default().push((name, st));
            }
            Line::Output(path, st, _) => {
                if Stamp::of_path(&index_dir.join(path)) != Some(st) {
                    return None;
                }
                outputs += 1;
            }
            Line::Dir(path, st) => dirs.push((path, st)),
        }
    }
    // meta.json and the three JSONL files; the root's ancestors at least.
    if by_dir.is_empty() || outputs != crate::sidecar::OUTPUTS.len() + 1 || watched < watch_paths(root).len() {
        return None;
    }
    let dirs_ok = dirs
        .par_iter()
        .all(|(d, st)| Stamp::of_path(&root.join(d)).as_ref() == Some(st));
    let groups: Vec<(&&str, &Vec<(&str, Stamp)>)> = by_dir.iter().collect();
    let files_ok = dirs_ok
        && groups.par_iter().all(|(dir, files)| {
            let Ok(listing) = std::fs::read_dir(root.join(dir)) else {
                return false;
            };
            let want: HashMap<&str, &Stamp> = files.iter().map(|(n, s)| (*n, s)).collect();
            let mut seen = 0;
            for entry in listing.flatten() {
                let name = entry.file_name();
                let Some(st) = name.to_str().and_then(|n| want.get(n)) else {
                    continue;
                };
                // DirEntry::metadata stats relative to the open folder; a symlink's own
                // stamp differs from its target's, so symlinked files make the probe
                // answer "don't know" (then the caller scans).
                match entry.metadata() {
                    Ok(md) if Stamp::of(&md) == **st => seen += 1,
                    _ => return false,
                }
            }
            seen == want.len()
        });
    files_ok.then_some(sidecar)
}

/// The header of a cache file: (complete, config digest, sidecar digest).
fn parse_header(line: &str) -> Option<(bool, &str, &str)> {
    let mut head = line.strip_prefix(MAGIC)?.split_whitespace();
    Some((head.next()? == "1", head.next()?, head.next()?))
}

/// One line of a cache file.
enum Line<'a> {
    /// `F`: a source file, its stamp and hash.
    File(&'a str, Stamp, &'a str),
    /// `O`: an index output, its stamp and digest.
    Output(&'a str, Stamp, &'a str),
    /// `D`: a walked folder and its stamp.
    Dir(&'a str, Stamp),
    /// `W`: a watched ignore file and its stamp (None: absent).
    Watch(&'a str, Option<Stamp>),
}

fn parse_line(line: &str) -> Option<Line<'_>> {
    let (kind, rest) = line.split_once(' ')?;
    if kind == "W" {
        let (stamp, path) = rest.split_once(' ')?;
        let st = if stamp == "-" {
            None
        } else {
            Some(parse_stamp(&mut stamp.split(','))?)
        };
        return Some(Line::Watch(path, st));
    }
    let mut it = rest.splitn(6, ' ');
    let st = parse_stamp(&mut it)?;
    let hash = it.next()?;
    let path = it.next()?;
    match kind {
        "F" => Some(Line::File(path, st, hash)),
        "O" => Some(Line::Output(path, st, hash)),
        "D" => Some(Line::Dir(path, st)),
        _ => None,
    }
}

fn parse_stamp<'a>(it: &mut impl Iterator<Item = &'a str>) -> Option<Stamp> {
    Some(Stamp {
        size: it.next()?.parse().ok()?,
        mtime: it.next()?.parse().ok()?,
        ctime: it.next()?.parse().ok()?,
        ino: it.next()?.parse().ok()?,
    })
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
        assert_eq!(back.get("new.md", &fresh), None, "racy entry cached");
        assert_eq!(back.get("a b.md", &Stamp { size: 11, ..old }), None);
        assert_eq!(back.output("graph_nodes.jsonl", &fresh), Some("d"));
        assert!(!back.complete, "a racy file makes the cache incomplete");
        assert_eq!(back.sidecar_digest, "side");
        assert_eq!(back.watch.len(), c.watch.len());
        assert_eq!(
            probe(dir.path(), dir.path(), "cfg"),
            None,
            "an incomplete cache cannot vouch"
        );
    }
}
