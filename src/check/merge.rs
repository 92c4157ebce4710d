//! The `mdgraph` merge driver for a committed index (`commit_index = true`): git hands
//! it the three versions of one index file and it merges them record by record, so two
//! branches that edited different items merge with no conflict and a fresh index.
//!
//! - `graph_nodes.jsonl`: records keyed by node id; the side that changed a record
//!   wins. The other JSON-lines files are sets of lines (an edge or a diagnostic is its
//!   whole line): a line either side added is in, one either side removed is out.
//!   Records are written whole, as the sides wrote them, sorted as `mdgraph index`
//!   sorts them (never in a hash map's order, and no field is dropped).
//! - `meta.json`: the file map merged path by path, its digest recomputed; counts and
//!   output digests as `ours + theirs − base` (the output digest is a sum over lines,
//!   see [`LineDigest`]), which is exactly the merged files' when the sides changed
//!   different records.
//!
//! Where both sides changed one record differently, ours is kept and the result is
//! still a valid file: its digest then disagrees with `meta.json`, so `mdgraph check`
//! says the index is stale (and the Markdown the record came from conflicts in git
//! anyway). A merge that runs no driver (a web UI's) leaves the same verdict.

use crate::error::Error;
use crate::model::diag::Diagnostic;
use crate::model::{Edge, EdgeType};
use crate::store::files::{DIAGNOSTICS, EDGES, LineDigest, META, NODES};
use crate::store::sidecar::{Meta, source_digest};
use std::collections::BTreeMap;

/// A merged file, and whether every record merged cleanly.
#[derive(Debug)]
pub struct Merged {
    /// The merged bytes.
    pub bytes: Vec<u8>,
    /// False when both sides changed one record differently (ours was kept).
    pub clean: bool,
}

/// Three-way choice: the side that changed, or ours when both changed differently.
fn pick<T: PartialEq + Clone>(base: &T, ours: &T, theirs: &T, clean: &mut bool) -> T {
    if ours == theirs || theirs == base {
        ours.clone()
    } else if ours == base {
        theirs.clone()
    } else {
        *clean = false;
        ours.clone()
    }
}

/// Merge the index file `name` (its file name) from its base, our and their versions.
/// A file that is not an index file, or a version that does not parse, keeps ours and
/// is not clean.
pub fn merge(name: &str, base: &[u8], ours: &[u8], theirs: &[u8]) -> Merged {
    let merged = match name {
        META => merge_meta(base, ours, theirs),
        NODES => merge_lines(base, ours, theirs, node_key, node_order),
        EDGES => merge_lines(base, ours, theirs, line_key, edge_order),
        DIAGNOSTICS => merge_lines(base, ours, theirs, line_key, diagnostic_order),
        _ => None,
    };
    merged.unwrap_or_else(|| Merged {
        bytes: ours.to_vec(),
        clean: false,
    })
}

type Key = fn(&str) -> Option<String>;
type Order = fn(&str) -> Option<SortKey>;

/// How a record sorts: a node by id, an edge by (source, type, target, line), a
/// diagnostic by its derived order.
#[derive(Debug, PartialEq, PartialOrd)]
enum SortKey {
    Node(String),
    Edge(String, EdgeType, String, u32),
    Diagnostic(Diagnostic),
}

fn node_key(line: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    v.get("id")?.as_str().map(str::to_string)
}

fn line_key(line: &str) -> Option<String> {
    Some(line.to_string())
}

fn node_order(line: &str) -> Option<SortKey> {
    node_key(line).map(SortKey::Node)
}

fn edge_order(line: &str) -> Option<SortKey> {
    let e: Edge = serde_json::from_str(line).ok()?;
    Some(SortKey::Edge(e.source, e.r#type, e.target, e.line))
}

fn diagnostic_order(line: &str) -> Option<SortKey> {
    serde_json::from_str::<Diagnostic>(line).ok().map(SortKey::Diagnostic)
}

/// The records of a JSON-lines file by key; None when a line does not parse.
fn records(bytes: &[u8], key: Key) -> Option<BTreeMap<String, String>> {
    let text = std::str::from_utf8(bytes).ok()?;
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| Some((key(l)?, l.to_string())))
        .collect()
}

fn merge_lines(base: &[u8], ours: &[u8], theirs: &[u8], key: Key, order: Order) -> Option<Merged> {
    let (b, o, t) = (records(base, key)?, records(ours, key)?, records(theirs, key)?);
    let mut clean = true;
    let mut keys: Vec<&String> = b.keys().chain(o.keys()).chain(t.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut lines: Vec<(SortKey, &str)> = Vec::with_capacity(keys.len());
    for k in keys {
        let chosen = pick(&b.get(k), &o.get(k), &t.get(k), &mut clean);
        if let Some(line) = chosen {
            lines.push((order(line)?, line.as_str()));
        }
    }
    lines.sort_by(|x, y| x.0.partial_cmp(&y.0).unwrap_or(std::cmp::Ordering::Equal));
    let mut bytes = Vec::with_capacity(ours.len() + theirs.len().saturating_sub(base.len()));
    for (_, l) in lines {
        bytes.extend_from_slice(l.as_bytes());
        bytes.push(b'\n');
    }
    Some(Merged { bytes, clean })
}

fn merge_meta(base: &[u8], ours: &[u8], theirs: &[u8]) -> Option<Merged> {
    let parse = |b: &[u8]| serde_json::from_slice::<Meta>(b).ok();
    let (b, o, t) = (parse(base)?, parse(ours)?, parse(theirs)?);
    let mut clean = true;
    let mut m = o.clone();
    m.schema = pick(&b.schema, &o.schema, &t.schema, &mut clean);
    m.config_digest = pick(&b.config_digest, &o.config_digest, &t.config_digest, &mut clean);
    // The file map, path by path.
    let mut paths: Vec<&String> = b.files.keys().chain(o.files.keys()).chain(t.files.keys()).collect();
    paths.sort();
    paths.dedup();
    m.files = paths
        .into_iter()
        .filter_map(|p| {
            let h = pick(&b.files.get(p), &o.files.get(p), &t.files.get(p), &mut clean)?;
            Some((p.clone(), h.clone()))
        })
        .collect();
    m.source_digest = source_digest(&m.files);
    // Totals and output digests: ours plus what theirs changed.
    let delta = |o: usize, t: usize, b: usize| (o + t).saturating_sub(b);
    let (bc, oc, tc) = (&b.counts, &o.counts, &t.counts);
    m.counts.files = delta(oc.files, tc.files, bc.files);
    m.counts.documents = delta(oc.documents, tc.documents, bc.documents);
    m.counts.chunks = delta(oc.chunks, tc.chunks, bc.chunks);
    m.counts.edges = delta(oc.edges, tc.edges, bc.edges);
    m.counts.errors = delta(oc.errors, tc.errors, bc.errors);
    m.counts.warnings = delta(oc.warnings, tc.warnings, bc.warnings);
    for (name, digest) in m.outputs.iter_mut() {
        let (Some(bd), Some(td)) = (b.outputs.get(name), t.outputs.get(name)) else {
            clean = false;
            continue;
        };
        match (LineDigest::parse(bd), LineDigest::parse(digest), LineDigest::parse(td)) {
            (Some(bd), Some(od), Some(td)) => *digest = od.merged(td, bd).hex(),
            _ => clean = false,
        }
    }
    let mut bytes = serde_json::to_vec_pretty(&m).ok()?;
    bytes.push(b'\n');
    Some(Merged { bytes, clean })
}

/// The driver as git runs it: `mdgraph merge-driver %O %A %B %P`. The merged file is
/// written over `ours` (git's `%A`); the answer says whether it merged cleanly.
pub fn run_driver(
    base: &std::path::Path,
    ours: &std::path::Path,
    theirs: &std::path::Path,
    path: &str,
) -> Result<bool, Error> {
    let read = |p: &std::path::Path| std::fs::read(p).map_err(|e| Error::io(p, e));
    let name = path.rsplit('/').next().unwrap_or(path);
    let merged = merge(name, &read(base)?, &read(ours)?, &read(theirs)?);
    std::fs::write(ours, &merged.bytes).map_err(|e| Error::io(ours, e))?;
    Ok(merged.clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, title: &str) -> String {
        format!("{{\"id\":\"{id}\",\"kind\":\"doc\",\"title\":\"{title}\"}}\n")
    }

    #[test]
    fn nodes_merge_by_id_and_sort() {
        let base = [node("A", "a"), node("B", "b"), node("C", "c")].concat();
        let ours = [node("A", "a2"), node("B", "b"), node("C", "c")].concat();
        // Theirs edits C, removes B and adds D (written out of order on purpose).
        let theirs = [node("D", "d"), node("A", "a"), node("C", "c3")].concat();
        let m = merge(NODES, base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
        assert!(m.clean);
        let text = String::from_utf8(m.bytes).unwrap();
        assert_eq!(text, [node("A", "a2"), node("C", "c3"), node("D", "d")].concat());
    }

    #[test]
    fn both_changing_one_record_keeps_ours_and_is_not_clean() {
        let (base, ours, theirs) = (node("A", "a"), node("A", "ours"), node("A", "theirs"));
        let m = merge(NODES, base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
        assert!(!m.clean);
        assert_eq!(m.bytes, ours.as_bytes());
        // Not an index file: ours, not clean.
        assert!(!merge("notes.md", b"a", b"b", b"c").clean);
    }

    #[test]
    fn line_digests_add_up_across_a_merge() {
        let base = "x\ny\n";
        let ours = "x\ny\nz\n";
        let theirs = "y\nw\n";
        let merged =
            LineDigest::of(ours.as_bytes()).merged(LineDigest::of(theirs.as_bytes()), LineDigest::of(base.as_bytes()));
        assert_eq!(merged, LineDigest::of(b"y\nz\nw\n"));
        assert_eq!(LineDigest::parse(&merged.hex()), Some(merged));
        assert_ne!(LineDigest::of(b"y\nz\n"), LineDigest::of(b"y\nz\nz\n"));
    }
}
