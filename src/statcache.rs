//! A local stat cache, as git's index does it: for every source file hashed by `index`,
//! remember (size, mtime, ctime, inode) → blake3. When a file's stat is unchanged its
//! hash is taken from the cache instead of reading it, so a no-change `check` only stats
//! files. Freshness is still decided by content hashes; the cache only skips re-hashing
//! a file that provably was not touched.
//!
//! The cache lives in the index folder as `.stat-cache`, is ignored by git (the index
//! folder's own `.gitignore`), is not part of the index contract, and is safe to delete.
//! Files modified within [`RACY_NS`] of the scan are never cached (git's "racy clean"
//! problem: a later edit in the same timestamp tick would go unnoticed).

use std::collections::HashMap;
use std::fs::Metadata;
use std::path::Path;
use std::time::SystemTime;

/// Cache file name inside the index folder.
pub const FILE: &str = ".stat-cache";
const HEADER: &str = "mdgraph-stat-cache 1";
/// Files modified less than this long before the scan started are not cached.
pub const RACY_NS: i128 = 2_000_000_000;

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
}

/// Now, in ns since the epoch.
pub fn now_ns() -> i128 {
    ns(Ok(SystemTime::now()))
}

/// Path → (stamp, hash). Output files of the index are stored under `>name`.
#[derive(Debug, Default, Clone)]
pub struct StatCache {
    entries: HashMap<String, (Stamp, String)>,
}

impl StatCache {
    /// Read the cache of an index folder; empty when absent or unreadable.
    pub fn load(index_dir: &Path) -> StatCache {
        let Ok(text) = std::fs::read_to_string(index_dir.join(FILE)) else {
            return StatCache::default();
        };
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return StatCache::default();
        }
        let mut entries = HashMap::new();
        for line in lines {
            let mut it = line.splitn(6, ' ');
            let parsed = (|| {
                let size = it.next()?.parse().ok()?;
                let mtime = it.next()?.parse().ok()?;
                let ctime = it.next()?.parse().ok()?;
                let ino = it.next()?.parse().ok()?;
                let hash = it.next()?.to_string();
                let path = it.next()?.to_string();
                Some((
                    path,
                    (
                        Stamp {
                            size,
                            mtime,
                            ctime,
                            ino,
                        },
                        hash,
                    ),
                ))
            })();
            match parsed {
                Some((p, v)) => {
                    entries.insert(p, v);
                }
                None => return StatCache::default(),
            }
        }
        StatCache { entries }
    }

    /// The cached hash of `path` if its stamp is unchanged.
    pub fn get(&self, path: &str, stamp: &Stamp) -> Option<&str> {
        self.entries
            .get(path)
            .filter(|(s, _)| s == stamp)
            .map(|(_, h)| h.as_str())
    }

    /// Remember a hash, unless the file changed too recently to be trusted.
    pub fn insert(&mut self, path: String, stamp: Stamp, hash: String, scan_start: i128) {
        if stamp.mtime < scan_start - RACY_NS && stamp.ctime < scan_start - RACY_NS {
            self.entries.insert(path, (stamp, hash));
        }
    }

    /// Remember an output file of the index (written by us just now, so not racy).
    pub fn insert_output(&mut self, name: &str, stamp: Stamp, hash: String) {
        self.entries.insert(format!(">{name}"), (stamp, hash));
    }

    /// The cached digest of an output file if its stamp is unchanged.
    pub fn output(&self, name: &str, stamp: &Stamp) -> Option<&str> {
        self.get(&format!(">{name}"), stamp)
    }

    /// Write atomically; a failure only costs speed, so it is ignored.
    pub fn save(&self, index_dir: &Path) {
        let mut rows: Vec<(&String, &(Stamp, String))> = self.entries.iter().collect();
        rows.sort_by(|a, b| a.0.cmp(b.0));
        let mut out = String::with_capacity(rows.len() * 140 + 32);
        out.push_str(HEADER);
        out.push('\n');
        for (path, (s, hash)) in rows {
            if path.contains('\n') {
                continue;
            }
            out.push_str(&format!("{} {} {} {} {hash} {path}\n", s.size, s.mtime, s.ctime, s.ino));
        }
        let _ = crate::sidecar::write_if_changed(&index_dir.join(FILE), out.as_bytes());
    }
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
        let mut c = StatCache::default();
        c.insert("a b.md".into(), old, "h1".into(), 10_000_000_000);
        c.insert("new.md".into(), fresh, "h2".into(), 10_000_000_000);
        c.insert_output("graph_nodes.jsonl", fresh, "d".into());
        c.save(dir.path());
        let back = StatCache::load(dir.path());
        assert_eq!(back.get("a b.md", &old), Some("h1"));
        assert_eq!(back.get("new.md", &fresh), None, "racy entry cached");
        assert_eq!(back.get("a b.md", &Stamp { size: 11, ..old }), None);
        assert_eq!(back.output("graph_nodes.jsonl", &fresh), Some("d"));
    }
}
