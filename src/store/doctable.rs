//! The document table (`.doc-table`): for every document of the index, what other files'
//! references can see of it (path, id as written, node id, whether the id only comes from
//! the file name, state, uid, line of the id). An edit that keeps these resolves against
//! this table alone (the edit path of `mdgraph index`), without loading the graph.
//!
//! A local cache like `.stat-cache`: ignored by git, not part of the index contract,
//! safe to delete (the next edit then takes the full path, which writes it again). Its
//! first line names the sidecar digest it describes; a table of another index is not used.

use crate::model::Node;
use crate::store::files;
use crate::store::patch::{Patch, Sorted};
use std::path::Path;

/// File name inside the index folder.
pub const FILE: &str = ".doc-table";
const MAGIC: &str = "mdgraph-doc-table 2";

/// One document as other files' references see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Root-relative path.
    pub path: String,
    /// The id as written (or derived from the file name).
    pub raw: String,
    /// The node id resolve gave it (`raw`, or `raw@…` when the id is shared).
    pub node: String,
    /// The id comes from the file name, not the file.
    pub derived: bool,
    /// The document's state.
    pub state: Option<String>,
    /// The document's uid.
    pub uid: Option<String>,
    /// The line of the document's id.
    pub line: Option<u32>,
    /// An item written inside its file beside others ([`Node::inline`]).
    pub inline: bool,
}

impl Row {
    /// The row of a resolved document node.
    pub fn of(doc: &Node) -> Row {
        Row {
            path: doc.path.clone(),
            raw: doc.raw_id.clone().unwrap_or_else(|| doc.id.clone()),
            node: doc.id.clone(),
            derived: doc.id_derived,
            state: doc.state.clone(),
            uid: doc.uid.clone(),
            line: doc.line,
            inline: doc.inline,
        }
    }

    fn write(&self, out: &mut String) {
        let opt = |o: &Option<String>| o.as_ref().map_or("-".to_string(), |s| format!("+{s}"));
        let line = self.line.map_or("-".to_string(), |l| l.to_string());
        let derived = match (self.inline, self.derived) {
            (true, false) => "i",
            // An item whose id yields (an archived OpenSpec change's).
            (true, true) => "j",
            (false, true) => "1",
            (false, false) => "0",
        };
        let fields = [
            self.path.as_str(),
            &self.raw,
            &self.node,
            derived,
            &opt(&self.state),
            &opt(&self.uid),
            &line,
        ];
        out.push_str(&fields.join("\t"));
        out.push('\n');
    }

    fn parse(line: &str) -> Option<Row> {
        let mut it = line.split('\t');
        let mut next = || it.next();
        let opt = |s: &str| match s {
            "-" => Some(None),
            s => s.strip_prefix('+').map(|v| Some(v.to_string())),
        };
        let (path, raw, node, flag) = (next()?, next()?, next()?, next()?);
        let row = Row {
            path: path.to_string(),
            raw: raw.to_string(),
            node: node.to_string(),
            inline: matches!(flag, "i" | "j"),
            derived: match flag {
                "1" | "j" => true,
                "0" | "i" => false,
                _ => return None,
            },
            state: opt(next()?)?,
            uid: opt(next()?)?,
            line: match next()? {
                "-" => None,
                n => Some(n.parse().ok()?),
            },
        };
        next().is_none().then_some(row)
    }

    /// Can this row be written on one line and read back?
    fn writable(&self) -> bool {
        let bad = |s: &str| s.contains(['\t', '\n', '\r']);
        ![&self.path, &self.raw, &self.node].into_iter().any(|s| bad(s))
            && !self.state.as_deref().is_some_and(bad)
            && !self.uid.as_deref().is_some_and(bad)
    }
}

/// The table of an index: its sidecar digest and the rows, sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocTable {
    /// The sidecar digest (`mirror::sidecar_digest`) of the index the rows describe.
    pub sidecar: String,
    /// One row per document, sorted by path.
    pub rows: Vec<Row>,
}

impl DocTable {
    /// The table of resolved nodes (chunks are skipped).
    pub fn of<'a>(nodes: impl IntoIterator<Item = &'a Node>, sidecar: &str) -> DocTable {
        let mut rows: Vec<Row> = nodes.into_iter().filter(|n| !n.is_chunk()).map(Row::of).collect();
        rows.sort_by(|a, b| a.path.cmp(&b.path));
        DocTable {
            sidecar: sidecar.to_string(),
            rows,
        }
    }

    /// Read the table of `index_dir` if it describes the sidecar `sidecar`.
    pub fn load(index_dir: &Path, sidecar: &str) -> Option<DocTable> {
        let text = std::fs::read_to_string(index_dir.join(FILE)).ok()?;
        let mut lines = text.lines();
        let head = lines.next()?.strip_prefix(MAGIC)?.trim();
        if head != sidecar {
            return None;
        }
        let rows: Option<Vec<Row>> = lines.map(Row::parse).collect();
        Some(DocTable {
            sidecar: sidecar.to_string(),
            rows: rows?,
        })
    }

    /// Write the table (atomically; a failure only costs the next edit its short cut,
    /// and a table whose rows cannot be written on one line each is removed instead).
    pub fn save(&self, index_dir: &Path) {
        let path = index_dir.join(FILE);
        if !self.rows.iter().all(Row::writable) {
            let _ = std::fs::remove_file(path);
            return;
        }
        let mut out = String::with_capacity(self.rows.len() * 120 + 64);
        out.push_str(&format!("{MAGIC} {}\n", self.sidecar));
        for r in &self.rows {
            r.write(&mut out);
        }
        if files::write_if_changed(&path, out.as_bytes()).is_err() {
            let _ = std::fs::remove_file(path);
        }
    }

    /// [`DocTable::save`] after an edit, when the file holds this table for the sidecar
    /// `old_sidecar` but for the rows of `paths`: the header and those rows are written,
    /// the rest is copied in the kernel ([`Patch`]; 14 MB at 100k documents, where
    /// writing every row took 22 ms). Anything unexpected: the table is saved whole.
    pub fn save_edited(&self, index_dir: &Path, old_sidecar: &str, paths: &[&str]) {
        let path = index_dir.join(FILE);
        let patched = || -> Option<()> {
            let src = Sorted::open(&path).ok()?;
            let head = src.line(0).ok()?;
            if head != format!("{MAGIC} {old_sidecar}\n").as_bytes() {
                return None;
            }
            let mut patch = Patch::default();
            patch.remove(0, head);
            patch.insert(0, format!("{MAGIC} {}\n", self.sidecar).into_bytes());
            // Rows are sorted by path, and the header (no tab) comes before them all.
            let path_of = |l: &[u8]| l.iter().position(|&b| b == b'\t').map(|i| l[..i].to_vec());
            for p in paths {
                let rows = self.rows_of(p);
                if rows.is_empty() || !rows.iter().all(Row::writable) {
                    return None;
                }
                let at = src
                    .lower_bound(|l| path_of(l).is_some_and(|lp| lp.as_slice() >= p.as_bytes()))
                    .ok()?;
                let to = src
                    .lower_bound(|l| path_of(l).is_some_and(|lp| lp.as_slice() > p.as_bytes()))
                    .ok()?;
                let old = src.lines(at, to).ok()?;
                if old.is_empty() {
                    return None;
                }
                for (start, line) in old {
                    patch.remove(start, line);
                }
                let mut lines = String::new();
                for row in rows {
                    row.write(&mut lines);
                }
                patch.insert(at, lines.into_bytes());
            }
            files::atomic_write(&path, |f| patch.write(&src, f)).ok()
        };
        if patched().is_none() {
            self.save(index_dir);
        }
    }

    /// The row of the document of `path` itself (a spec folder's file has its items'
    /// rows after it).
    pub fn get(&self, path: &str) -> Option<&Row> {
        self.rows_of(path).first()
    }

    /// The rows of every document of `path`: its own, then its items in file order.
    pub fn rows_of(&self, path: &str) -> &[Row] {
        let (lo, hi) = self.range(path);
        &self.rows[lo..hi]
    }

    fn range(&self, path: &str) -> (usize, usize) {
        let lo = self.rows.partition_point(|r| r.path.as_str() < path);
        let hi = lo + self.rows[lo..].partition_point(|r| r.path.as_str() == path);
        (lo, hi)
    }

    /// Replace the rows of every document of `path` (which must be there) by `rows`.
    pub fn set_file(&mut self, path: &str, rows: Vec<Row>) {
        let (lo, hi) = self.range(path);
        if lo < hi {
            self.rows.splice(lo..hi, rows);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_another_sidecar_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let rows = vec![
            Row {
                path: "a b/ü.md".into(),
                raw: "TASK-1".into(),
                node: "TASK-1@a b/ü.md".into(),
                derived: false,
                state: Some(String::new()),
                uid: None,
                line: Some(3),
                inline: false,
            },
            Row {
                path: "z.md".into(),
                raw: "z".into(),
                node: "z".into(),
                // An item's id is never derived from the file name.
                derived: false,
                state: None,
                uid: Some("0194-ab".into()),
                line: None,
                inline: true,
            },
        ];
        let t = DocTable {
            sidecar: "s1".into(),
            rows,
        };
        t.save(dir.path());
        assert_eq!(DocTable::load(dir.path(), "s1"), Some(t.clone()));
        assert_eq!(DocTable::load(dir.path(), "s2"), None);
        assert_eq!(t.get("z.md").map(|r| r.raw.as_str()), Some("z"));
        let mut bad = t;
        bad.rows[1].raw = "a\tb".into();
        bad.save(dir.path());
        assert!(!dir.path().join(FILE).exists(), "a row that cannot be written");
    }

    #[test]
    fn an_edited_table_is_saved_as_a_whole_one_is() {
        let row = |path: &str, state: &str| Row {
            path: path.into(),
            raw: path.trim_end_matches(".md").to_uppercase(),
            node: path.trim_end_matches(".md").to_uppercase(),
            derived: false,
            state: Some(state.into()),
            uid: None,
            line: Some(2),
            inline: false,
        };
        let paths = ["a.md", "b c.md", "b.md", "d/e.md", "z.md"];
        let whole = |t: &DocTable| {
            let dir = tempfile::tempdir().unwrap();
            t.save(dir.path());
            std::fs::read(dir.path().join(FILE)).unwrap()
        };
        for edited in [&["a.md"][..], &["z.md", "b.md"], &["d/e.md"], &[]] {
            let dir = tempfile::tempdir().unwrap();
            let mut t = DocTable {
                sidecar: "s1".into(),
                rows: paths.iter().map(|p| row(p, "Open")).collect(),
            };
            t.save(dir.path());
            t.sidecar = "s2".into();
            for p in edited {
                t.set_file(p, vec![row(p, "Done")]);
            }
            t.save_edited(dir.path(), "s1", edited);
            assert_eq!(std::fs::read(dir.path().join(FILE)).unwrap(), whole(&t), "{edited:?}");
            assert_eq!(DocTable::load(dir.path(), "s2"), Some(t.clone()));
        }
        // A file of another sidecar is not patched: the table is saved whole.
        let dir = tempfile::tempdir().unwrap();
        let mut t = DocTable {
            sidecar: "s0".into(),
            rows: paths.iter().map(|p| row(p, "Open")).collect(),
        };
        t.save(dir.path());
        t.sidecar = "s2".into();
        t.set_file("b.md", vec![row("b.md", "Done")]);
        t.save_edited(dir.path(), "s1", &["b.md"]);
        assert_eq!(std::fs::read(dir.path().join(FILE)).unwrap(), whole(&t));
    }
}
