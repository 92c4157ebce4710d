//! An edited document's records in the sidecar's sorted JSON-lines files: found by
//! binary search over the old files ([`Sorted`]), replaced by the new ones in a
//! [`Patch`] each, in the files' order.

use crate::model::diag::{Code, Diagnostic};
use crate::model::{Edge, EdgeType, Graph, Node};
use crate::store::files;
use crate::store::patch::{Patch, Sorted};
use serde::Deserialize;

/// The sidecar's three sorted files as the edit found them.
pub(super) struct Old {
    pub(super) nodes: Sorted,
    pub(super) edges: Sorted,
    pub(super) diags: Sorted,
}

impl Old {
    pub(super) fn open(dir: &std::path::Path) -> Option<Old> {
        Some(Old {
            nodes: Sorted::open(&dir.join(files::NODES)).ok()?,
            edges: Sorted::open(&dir.join(files::EDGES)).ok()?,
            diags: Sorted::open(&dir.join(files::DIAGNOSTICS)).ok()?,
        })
    }
}

/// The patches of the three sorted files (nodes, edges, diagnostics).
#[derive(Default)]
pub(super) struct Patches {
    pub(super) nodes: Patch,
    pub(super) edges: Patch,
    pub(super) diags: Patch,
}

/// Nodes: the documents' own (`ids`: a file's own and its items'), and their sections'
/// (`id#…`, of this path), replaced by the graph's of `path`. Returns the old documents
/// (one per id) and how many sections they had.
pub(super) fn patch_nodes(
    file: &Sorted,
    patch: &mut Patch,
    ids: &[&str],
    path: &str,
    graph: &Graph,
) -> Option<(Vec<Node>, usize)> {
    let range = Range::read(file, ids, node_key)?;
    let (mut old_docs, mut old_chunks) = (Vec::with_capacity(ids.len()), 0);
    for (start, line) in range.of_path(path) {
        let n: Node = serde_json::from_slice(line).ok()?;
        if n.is_chunk() {
            old_chunks += 1;
        } else {
            old_docs.push(n);
        }
        patch.remove(start, line.to_vec());
    }
    if old_docs.len() != ids.len() {
        return None;
    }
    for n in graph.nodes.iter().filter(|n| n.path == path) {
        let pos = range.lower_bound(|(id, _, _)| id.as_str() >= n.id.as_str());
        patch.insert(pos, jsonl(n)?);
    }
    Some((old_docs, old_chunks))
}

/// Edges: those whose source is one of the documents (`ids`) or one of their sections,
/// replaced by the graph's of `path`. Returns the old edges and the new.
pub(super) fn patch_edges(
    file: &Sorted,
    patch: &mut Patch,
    ids: &[&str],
    path: &str,
    graph: &Graph,
) -> Option<(Vec<Edge>, Vec<Edge>)> {
    let range = Range::read(file, ids, |l| {
        edge_key(l).map(|k| (k.source.clone(), k.path.clone(), (k.r#type, k.target, k.line)))
    })?;
    let mut old_edges: Vec<Edge> = Vec::new();
    for (start, line) in range.of_path(path) {
        old_edges.push(serde_json::from_slice(line).ok()?);
        patch.remove(start, line.to_vec());
    }
    let new_edges: Vec<Edge> = graph.edges.iter().filter(|e| e.path == path).cloned().collect();
    for e in &new_edges {
        let key = (e.source.as_str(), e.r#type, e.target.as_str(), e.line);
        let pos =
            range.lower_bound(|(source, _, (t, target, line))| (source.as_str(), *t, target.as_str(), *line) >= key);
        patch.insert(pos, jsonl(e)?);
    }
    Some((old_edges, new_edges))
}

/// The lines of a file sorted by a key that starts with a node id (nodes by `id`, edges
/// by `source`) that may belong to some documents of one file (`ids`): from the first
/// keyed by the least id to the last before every `id$` (past `id#…`, the sections),
/// read at once, each with its key (id, path and the rest of the sort key).
/// Every record of the documents is among them (a section's id sorts between its
/// document's and the next id past it); records of other documents may be too (their
/// path tells them apart: only one file's documents have its path).
struct Range<K> {
    lines: Vec<(u64, Vec<u8>, K)>,
    /// The start of the first line past the range (the file's length at its end).
    end: u64,
}

impl<R> Range<(String, String, R)> {
    fn read(file: &Sorted, ids: &[&str], key: impl Fn(&[u8]) -> Option<(String, String, R)>) -> Option<Self> {
        // Past every id's sections (`id#…` sorts before `id$`, whatever follows).
        let (Some(lo), Some(after)) = (ids.iter().min(), ids.iter().map(|id| format!("{id}$")).max()) else {
            return None;
        };
        let from = file.lower_bound(|l| key(l).is_none_or(|k| k.0.as_str() >= *lo)).ok()?;
        let end = file
            .lower_bound(|l| key(l).is_none_or(|k| k.0.as_str() >= after.as_str()))
            .ok()?;
        let lines = file
            .lines(from, end)
            .ok()?
            .into_iter()
            .map(|(start, line)| {
                let k = key(&line)?;
                Some((start, line, k))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Range { lines, end })
    }

    /// The lines of records written by `path`, with their starts.
    fn of_path<'a>(&'a self, path: &'a str) -> impl Iterator<Item = (u64, &'a [u8])> + 'a {
        self.lines
            .iter()
            .filter(move |(_, _, k)| k.1 == path)
            .map(|(start, line, _)| (*start, line.as_slice()))
    }

    /// The start of the first line whose key satisfies `ge` (monotone over the range),
    /// else of the first line past the range.
    fn lower_bound(&self, ge: impl Fn(&(String, String, R)) -> bool) -> u64 {
        let i = self.lines.partition_point(|(_, _, k)| !ge(k));
        self.lines.get(i).map_or(self.end, |(start, _, _)| *start)
    }
}

/// Diagnostics: the file's own, replaced by `new_diags` of `path`, but for those that
/// depend on every file (a shared id, a parent cycle), which cannot have changed.
pub(super) fn patch_diags(file: &Sorted, patch: &mut Patch, path: &str, new_diags: &[Diagnostic]) -> Option<()> {
    let from = file
        .lower_bound(|l| diag_path(l).is_none_or(|p| p.as_str() >= path))
        .ok()?;
    let to = file
        .lower_bound(|l| diag_path(l).is_none_or(|p| p.as_str() > path))
        .ok()?;
    for (start, line) in file.lines(from, to).ok()? {
        let d: Diagnostic = serde_json::from_slice(&line).ok()?;
        if replaced(d.code)? {
            patch.remove(start, line);
        }
    }
    for d in new_diags.iter().filter(|d| d.path == path) {
        let pos = file
            .lower_bound(|l| parse::<Diagnostic>(l).is_none_or(|x| x >= *d))
            .ok()?;
        patch.insert(pos, jsonl(d)?);
    }
    Some(())
}

/// Of an edited file's diagnostics: whether one with this code is the file's own, made
/// again from its new text (its parse's, its references'), or one that depends on every
/// file (a shared id, a parent cycle: it cannot have changed when the file keeps its id
/// surface and parent links) and stays. None for a scan-stage finding, which an indexed
/// file has none of: then the full path.
pub(super) fn replaced(c: Code) -> Option<bool> {
    match c {
        Code::DuplicateId | Code::ParentCycle => Some(false),
        Code::AmbiguousReference | Code::LinkOutsideRoot | Code::DanglingReference | Code::BrokenLink => Some(true),
        c => c.is_parse_stage().then_some(true),
    }
}

/// The edges the document `id` at `path` wrote: (start, line, record) in the edges file.
pub(super) fn edges_of(file: &Sorted, id: &str, path: &str) -> Option<Vec<(u64, Vec<u8>, Edge)>> {
    own_lines(file, id, path, |l| edge_key(l).map(|k| (k.source, k.path)))?
        .into_iter()
        .map(|(start, line)| {
            let edge = serde_json::from_slice(&line).ok()?;
            Some((start, line, edge))
        })
        .collect()
}

/// The lines of a file sorted by a key that is a node id (nodes by `id`, edges by
/// `source`) belonging to the document `id` at `path`: the one keyed `id` and those keyed
/// `id#…`, whose path is `path` (another document's id may start with `id#`).
fn own_lines(
    file: &Sorted,
    id: &str,
    path: &str,
    key: impl Fn(&[u8]) -> Option<(String, String)>,
) -> Option<Vec<(u64, Vec<u8>)>> {
    let prefix = format!("{id}#");
    let after = format!("{id}$");
    let at = |bound: &str, strict: bool| {
        file.lower_bound(|l| {
            key(l).is_none_or(|(k, _)| {
                if strict {
                    k.as_str() > bound
                } else {
                    k.as_str() >= bound
                }
            })
        })
        .ok()
    };
    let mut out = Vec::new();
    for (from, to) in [
        (at(id, false)?, at(id, true)?),
        (at(&prefix, false)?, at(&after, false)?),
    ] {
        for (start, line) in file.lines(from, to).ok()? {
            let (_, p) = key(&line)?;
            if p == path {
                out.push((start, line));
            }
        }
    }
    Some(out)
}

#[derive(Deserialize)]
struct NodeKey {
    id: String,
    path: String,
}

#[derive(Deserialize)]
struct EdgeKey {
    source: String,
    target: String,
    #[serde(rename = "type")]
    r#type: EdgeType,
    path: String,
    line: u32,
}

#[derive(Deserialize)]
struct DiagPath {
    path: String,
}

pub(super) fn parse<T: serde::de::DeserializeOwned>(line: &[u8]) -> Option<T> {
    serde_json::from_slice(line).ok()
}

fn node_key(line: &[u8]) -> Option<(String, String, ())> {
    parse::<NodeKey>(line).map(|k| (k.id, k.path, ()))
}

fn edge_key(line: &[u8]) -> Option<EdgeKey> {
    parse(line)
}

fn diag_path(line: &[u8]) -> Option<String> {
    parse::<DiagPath>(line).map(|d| d.path)
}

/// One record as a JSON line, as the sidecar writes it.
fn jsonl<T: serde::Serialize>(v: &T) -> Option<Vec<u8>> {
    let mut out = serde_json::to_vec(v).ok()?;
    out.push(b'\n');
    Some(out)
}
