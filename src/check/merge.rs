//! The `mdgraph` merge driver for a committed index (`commit_index = true`): git hands
//! it the three versions of one index file and it merges them record by record, so two
//! branches that edited different items merge with no conflict in the index files.
//!
//! - `graph_nodes.jsonl`: records keyed by node id; the side that changed a record
//!   wins. The other JSON-lines files are sets of lines (an edge or a diagnostic is its
//!   whole line): a line either side added is in, one either side removed is out.
//!   Records are written whole, as the sides wrote them, sorted as `mdgraph index`
//!   sorts them (never in a hash map's order, and no field is dropped).
//! - `meta.json`: the file map merged path by path, the source digest recomputed from
//!   it. An output's digest and counts are taken from the side that changed that output;
//!   where both did, the merged file is not in sight (git runs the driver one file at a
//!   time, `meta.json` before the JSON-lines files), so nothing is added up: the record
//!   is marked `unproven` and `mdgraph check` fails naming `mdgraph index`.
//!
//! The driver never guesses: a record both sides changed differently (two files adding
//! one id, both sides editing one item), a line that does not parse, a file that is not
//! an index file, or a config or schema both sides changed is a [`Conflict`]: the
//! driver exits non-zero, git stops and shows the conflict, and the message says what to
//! run. Whatever merges cleanly is still only a proposal: `check` rebuilds a committed
//! index that this machine did not write and compares it byte for byte (see
//! `check/committed.rs`), since a merge of records each right on its side can be wrong
//! as a whole (an edge to an id the other side removed, a rule the other side turned off).

use crate::check::sides::Outputs;
use crate::error::Error;
use crate::model::diag::Diagnostic;
use crate::model::{Edge, EdgeType};
use crate::store::files::{DIAGNOSTICS, EDGES, LineDigest, META, NODES};
use crate::store::sidecar::{Meta, source_digest};
use std::collections::BTreeMap;

/// A merged file: its bytes, or why it cannot be merged without a guess (then the
/// bytes are ours, a valid file for git to leave in the working tree).
#[derive(Debug)]
pub struct Merged {
    /// The merged bytes (ours when it did not merge).
    pub bytes: Vec<u8>,
    /// Why it did not merge cleanly; None when it did.
    pub conflict: Option<String>,
}

/// Three-way choice: the side that changed, or `Err` when both changed differently.
fn pick<'a, T: PartialEq>(base: &'a T, ours: &'a T, theirs: &'a T) -> Result<&'a T, ()> {
    if ours == theirs || theirs == base {
        Ok(ours)
    } else if ours == base {
        Ok(theirs)
    } else {
        Err(())
    }
}

/// Merge the index file `name` (its file name) from its base, our and their versions.
pub fn merge(name: &str, base: &[u8], ours: &[u8], theirs: &[u8]) -> Merged {
    let merged = match name {
        META => merge_meta(base, ours, theirs, None),
        NODES => merge_lines(base, ours, theirs, node_key, node_order),
        EDGES => merge_lines(base, ours, theirs, line_key, edge_order),
        DIAGNOSTICS => merge_lines(base, ours, theirs, line_key, diagnostic_order),
        _ => Err(format!("`{name}` is not a file of an mdgraph index")),
    };
    match merged {
        Ok(bytes) => Merged { bytes, conflict: None },
        Err(why) => Merged {
            bytes: ours.to_vec(),
            conflict: Some(why),
        },
    }
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

/// The records of one version of a JSON-lines file by key, each with its sort key; an
/// error names the version and line that is not a record (or a key seen twice).
fn records<'a>(
    side: &str,
    bytes: &'a [u8],
    key: Key,
    order: Order,
) -> Result<BTreeMap<String, (&'a str, SortKey)>, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("{side}'s version is not UTF-8 ({e})"))?;
    if !text.is_empty() && !text.ends_with('\n') {
        return Err(format!("{side}'s version is cut short (its last line has no line end)"));
    }
    let mut out = BTreeMap::new();
    for (i, l) in text.lines().enumerate() {
        let bad = || format!("{side}'s version, line {}: not a record of this file", i + 1);
        let (k, o) = (key(l).ok_or_else(bad)?, order(l).ok_or_else(bad)?);
        if out.insert(k, (l, o)).is_some() {
            return Err(format!("{side}'s version, line {}: a record repeated", i + 1));
        }
    }
    Ok(out)
}

fn merge_lines(base: &[u8], ours: &[u8], theirs: &[u8], key: Key, order: Order) -> Result<Vec<u8>, String> {
    let b = records("the base", base, key, order)?;
    let o = records("our", ours, key, order)?;
    let t = records("their", theirs, key, order)?;
    let mut keys: Vec<&String> = b.keys().chain(o.keys()).chain(t.keys()).collect();
    keys.sort();
    keys.dedup();
    fn line<'a>(m: &BTreeMap<String, (&'a str, SortKey)>, k: &str) -> Option<&'a str> {
        m.get(k).map(|(l, _)| *l)
    }
    let mut lines: Vec<(&SortKey, &str)> = Vec::with_capacity(keys.len());
    for k in keys {
        let (lb, lo, lt) = (line(&b, k), line(&o, k), line(&t, k));
        let chosen = pick(&lb, &lo, &lt).map_err(|()| {
            format!("both sides changed the record `{k}` differently (one id from two files, or one item edited on both sides)")
        })?;
        if let Some(l) = chosen {
            let from = if lo == *chosen { &o } else { &t };
            lines.push((&from[k.as_str()].1, l));
        }
    }
    lines.sort_by(|x, y| x.0.partial_cmp(y.0).unwrap_or(std::cmp::Ordering::Equal));
    let mut bytes = Vec::with_capacity(ours.len() + theirs.len().saturating_sub(base.len()));
    for (_, l) in lines {
        bytes.extend_from_slice(l.as_bytes());
        bytes.push(b'\n');
    }
    Ok(bytes)
}

/// The merged output `name` when both sides changed it, from the three sides' files
/// (each checked against its side's `meta.json` digest): its digest, and its bytes.
fn merged_output(name: &str, metas: [&Meta; 3], sides: &[Outputs; 3]) -> Option<(String, Vec<u8>)> {
    for (m, side) in metas.iter().zip(sides) {
        if m.outputs.get(name)? != &LineDigest::of(side.get(name)?).hex() {
            return None;
        }
    }
    let (key, order): (Key, Order) = match name {
        NODES => (node_key, node_order),
        EDGES => (line_key, edge_order),
        _ => (line_key, diagnostic_order),
    };
    let bytes = merge_lines(&sides[0][name], &sides[1][name], &sides[2][name], key, order).ok()?;
    Some((LineDigest::of(&bytes).hex(), bytes))
}

/// The counts `meta.json` keeps of a merged output's lines.
fn count_into(m: &mut Meta, name: &str, bytes: &[u8]) -> Option<()> {
    let text = std::str::from_utf8(bytes).ok()?;
    match name {
        NODES => {
            let (mut documents, mut chunks) = (0, 0);
            for l in text.lines() {
                let n: crate::model::Node = serde_json::from_str(l).ok()?;
                match n.kind {
                    crate::model::Kind::Chunk => chunks += 1,
                    _ if !n.inline => documents += 1,
                    _ => {}
                }
            }
            (m.counts.documents, m.counts.chunks) = (documents, chunks);
        }
        EDGES => m.counts.edges = text.lines().count(),
        _ => {
            let diags: Vec<Diagnostic> = text.lines().map(serde_json::from_str).collect::<Result<_, _>>().ok()?;
            let c = crate::model::diag::Counts::of(&diags);
            (m.counts.errors, m.counts.warnings) = (c.errors, c.warnings);
        }
    }
    Some(())
}

fn merge_meta(base: &[u8], ours: &[u8], theirs: &[u8], sides: Option<&[Outputs; 3]>) -> Result<Vec<u8>, String> {
    let parse = |side: &str, b: &[u8]| {
        serde_json::from_slice::<Meta>(b).map_err(|e| format!("{side}'s meta.json does not parse: {e}"))
    };
    let (b, o, t) = (parse("the base", base)?, parse("our", ours)?, parse("their", theirs)?);
    let both = |what: &str| format!("both sides changed the {what} differently");
    let mut m = o.clone();
    m.schema = *pick(&b.schema, &o.schema, &t.schema).map_err(|()| both("index format"))?;
    m.config_digest = pick(&b.config_digest, &o.config_digest, &t.config_digest)
        .map_err(|()| both("configuration"))?
        .clone();
    // The file map, path by path.
    let mut paths: Vec<&String> = b.files.keys().chain(o.files.keys()).chain(t.files.keys()).collect();
    paths.sort();
    paths.dedup();
    let mut files = BTreeMap::new();
    for p in paths {
        if let Some(h) =
            pick(&b.files.get(p), &o.files.get(p), &t.files.get(p)).map_err(|()| both(&format!("source file `{p}`")))?
        {
            files.insert(p.clone(), (*h).clone());
        }
    }
    m.files = files;
    m.source_digest = source_digest(&m.files);
    m.counts.files = m.files.len();
    // Each output's digest and counts from the side that changed it; both: unproven.
    let mut unproven = Vec::new();
    for name in crate::store::files::OUTPUTS {
        let digest = |m: &Meta| m.outputs.get(name).cloned();
        let side = match pick(&digest(&b), &digest(&o), &digest(&t)) {
            Ok(d) if *d == digest(&t) && d != &digest(&o) => &t,
            Ok(_) => &o,
            Err(()) => {
                let merged = sides.and_then(|s| merged_output(name, [&b, &o, &t], s));
                match merged.and_then(|(digest, bytes)| count_into(&mut m, name, &bytes).map(|()| digest)) {
                    Some(digest) => {
                        m.outputs.insert(name.to_string(), digest);
                    }
                    None => unproven.push(name),
                }
                continue;
            }
        };
        if let Some(d) = digest(side) {
            m.outputs.insert(name.to_string(), d);
        }
        match name {
            NODES => (m.counts.documents, m.counts.chunks) = (side.counts.documents, side.counts.chunks),
            EDGES => m.counts.edges = side.counts.edges,
            _ => (m.counts.errors, m.counts.warnings) = (side.counts.errors, side.counts.warnings),
        }
    }
    let notes = [b.unproven.as_ref(), o.unproven.as_ref(), t.unproven.as_ref()];
    m.unproven = if !unproven.is_empty() {
        Some(format!(
            "merged by the merge driver, which cannot prove {} exact (both sides changed {})",
            unproven.join(", "),
            if unproven.len() == 1 { "it" } else { "them" }
        ))
    } else {
        notes.into_iter().flatten().next().cloned()
    };
    let mut bytes = serde_json::to_vec_pretty(&m).map_err(|e| e.to_string())?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// The driver as git runs it: `mdgraph merge-driver -- %O %A %B %P`. The merged file is
/// written over `ours` (git's `%A`); on a conflict ours is left as it is (a valid file)
/// and the answer says why.
pub fn run_driver(
    base: &std::path::Path,
    ours: &std::path::Path,
    theirs: &std::path::Path,
    path: &str,
) -> Result<Option<String>, Error> {
    let read = |p: &std::path::Path| std::fs::read(p).map_err(|e| Error::io(p, e));
    let name = path.rsplit('/').next().unwrap_or(path);
    let (b, o, t) = (read(base)?, read(ours)?, read(theirs)?);
    let merged = if name == META {
        // The outputs this `meta.json` must describe, from the commits of the sides.
        let sides = crate::check::sides::find(path, [&b, &o, &t]);
        match merge_meta(&b, &o, &t, sides.as_ref()) {
            Ok(bytes) => Merged { bytes, conflict: None },
            Err(why) => Merged {
                bytes: o.clone(),
                conflict: Some(why),
            },
        }
    } else {
        merge(name, &b, &o, &t)
    };
    if merged.conflict.is_none() {
        std::fs::write(ours, &merged.bytes).map_err(|e| Error::io(ours, e))?;
    }
    Ok(merged.conflict)
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
        assert!(m.conflict.is_none(), "{:?}", m.conflict);
        let text = String::from_utf8(m.bytes).unwrap();
        assert_eq!(text, [node("A", "a2"), node("C", "c3"), node("D", "d")].concat());
    }

    #[test]
    fn the_driver_never_guesses() {
        let (base, ours, theirs) = (node("A", "a"), node("A", "ours"), node("A", "theirs"));
        let m = merge(NODES, base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
        assert!(m.conflict.as_deref().unwrap().contains("`A`"), "{:?}", m.conflict);
        assert_eq!(m.bytes, ours.as_bytes());
        // One new id from two files.
        let (a, b) = (
            "{\"id\":\"N\",\"kind\":\"doc\",\"path\":\"a.md\"}\n",
            "{\"id\":\"N\",\"kind\":\"doc\",\"path\":\"b.md\"}\n",
        );
        assert!(merge(NODES, b"", a.as_bytes(), b.as_bytes()).conflict.is_some());
        // Not an index file; garbage; a truncated last line; a repeated record.
        assert!(merge("notes.md", b"a", b"b", b"c").conflict.is_some());
        let good = node("A", "a");
        for bad in ["garbage\n", &good[..good.len() - 5], &format!("{good}{good}")] {
            let m = merge(NODES, good.as_bytes(), good.as_bytes(), bad.as_bytes());
            assert!(m.conflict.is_some(), "{bad:?}");
            let m = merge(EDGES, b"", b"", bad.as_bytes());
            assert!(m.conflict.is_some(), "{bad:?}");
        }
        assert!(merge(META, b"{}", b"{}", b"{").conflict.is_some());
    }

    fn meta(files: &[(&str, &str)], nodes: &str) -> Vec<u8> {
        let m = Meta {
            files: files.iter().map(|(p, h)| (p.to_string(), h.to_string())).collect(),
            outputs: [(NODES.to_string(), nodes.to_string())].into(),
            ..Meta::default()
        };
        serde_json::to_vec_pretty(&m).unwrap()
    }

    #[test]
    fn meta_takes_the_side_that_changed_and_never_adds_up() {
        let base = meta(&[("a.md", "1")], "n0");
        let ours = meta(&[("a.md", "1"), ("b.md", "2")], "n1");
        let theirs_same = meta(&[("a.md", "1")], "n0");
        let m = merge(META, &base, &ours, &theirs_same);
        let got: Meta = serde_json::from_slice(&m.bytes).unwrap();
        assert_eq!(got.outputs[NODES], "n1");
        assert_eq!(got.unproven, None);
        assert_eq!(got.source_digest, source_digest(&got.files));
        // Both changed the node file: the merged one is out of sight, so unproven.
        let theirs = meta(&[("a.md", "1"), ("c.md", "3")], "n2");
        let m = merge(META, &base, &ours, &theirs);
        assert!(m.conflict.is_none());
        let got: Meta = serde_json::from_slice(&m.bytes).unwrap();
        assert!(got.unproven.unwrap().contains(NODES));
        assert_eq!(got.files.len(), 3);
        // Both changed one source file differently: a conflict.
        let theirs = meta(&[("a.md", "9")], "n2");
        let ours = meta(&[("a.md", "8")], "n1");
        assert!(merge(META, &base, &ours, &theirs).conflict.is_some());
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
