//! `.findings`: the backlog hygiene warnings of the last `check`, kept beside the key of
//! everything they were judged from, so a `check` of an unchanged index reads them back
//! instead of loading the whole graph again (at 10k items the judgment took about 230 ms,
//! the rest of a no-change check 10 ms).
//!
//! The key is the blake3 of the stamps (size, mtime, ctime, inode) of the graph files and
//! `meta.json`, and of the rules' settings the caller gives. Every write of an output is a
//! new file switched in (a new inode and ctime), so a rebuilt or hand-edited graph never
//! meets an old key. A local cache like `.stat-cache`: ignored by git, never part of the
//! index contract; a damaged or foreign file is judged again and rewritten.

use super::files::{self, EDGES, META, NODES};
use super::statcache::Stamp;
use crate::model::diag::Diagnostic;
use std::path::Path;

/// Cache file name inside the index folder.
pub const FILE: &str = ".findings";
const MAGIC: &str = "mdgraph-findings 1";

/// The key of the findings judged from the index in `index_dir` as it is now, with the
/// rules' settings `rules` (their `Debug` form: any change of them is a new key), and
/// whether findings judged now may be kept under it: not while a graph file is within
/// the stat cache's racy window (a rewrite in the same timestamp tick could keep its
/// stamp). None when a graph file has no stamp.
pub fn key(index_dir: &Path, rules: &str) -> Option<(String, bool)> {
    let now = super::statcache::now_ns();
    let mut h = blake3::Hasher::new();
    h.update(MAGIC.as_bytes());
    let mut settled = true;
    for name in [NODES, EDGES, META] {
        let stamp = Stamp::of_path(&index_dir.join(name))?;
        settled &= stamp.settled(now);
        h.update(format!("\n{name} {stamp:?}").as_bytes());
    }
    h.update(b"\n");
    h.update(rules.as_bytes());
    Some((h.finalize().to_hex().to_string(), settled))
}

/// The findings kept under `key`, if the cache holds that key.
pub fn read(index_dir: &Path, key: &str) -> Option<Vec<Diagnostic>> {
    let text = std::fs::read_to_string(index_dir.join(FILE)).ok()?;
    let mut lines = text.lines();
    if lines.next()? != MAGIC || lines.next()? != key {
        return None;
    }
    lines.map(|l| serde_json::from_str(l).ok()).collect()
}

/// Keep `found` under `key` (atomically; a failure only costs the next check a judgment).
pub fn write(index_dir: &Path, key: &str, found: &[Diagnostic]) {
    let mut out = format!("{MAGIC}\n{key}\n");
    for d in found {
        if let Ok(line) = serde_json::to_string(d) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    let _ = files::write_if_changed(&index_dir.join(FILE), out.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::diag::{Code, Severity};

    #[test]
    fn kept_under_its_key_and_only_that_key() {
        let dir = tempfile::tempdir().unwrap();
        for name in [NODES, EDGES, META] {
            std::fs::write(dir.path().join(name), "{}\n").unwrap();
        }
        let (k, settled) = key(dir.path(), "rules").unwrap();
        assert!(!settled, "files written just now are within the racy window");
        assert_ne!(k, key(dir.path(), "other rules").unwrap().0);
        let found = vec![Diagnostic::new(
            "a.md",
            3,
            Severity::Warning,
            Code::DoneWithOpenChildren,
            "open children",
        )];
        write(dir.path(), &k, &found);
        assert_eq!(read(dir.path(), &k), Some(found));
        // A graph file written again (a new file switched in) is a new key.
        std::fs::remove_file(dir.path().join(EDGES)).unwrap();
        std::fs::write(dir.path().join(EDGES), "{}\n{}\n").unwrap();
        let k2 = key(dir.path(), "rules").unwrap().0;
        assert_ne!(k, k2);
        assert_eq!(read(dir.path(), &k2), None);
    }
}
