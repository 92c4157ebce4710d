//! One edited file's records replaced where they land: every document the file yields
//! (its own and, in a spec folder, its items), their sections, edges and diagnostics, in
//! the patches of the sorted files, the document table's rows, and the mirror's edit.

use super::records::{Old, Patches, parse, patch_diags, patch_edges, patch_nodes};
use crate::model::diag::{Code, Diagnostic};
use crate::model::{Edge, EdgeType, Graph, Node};
use crate::store::doctable::{DocTable, Row};
use crate::store::mirror;
use std::collections::HashMap;

/// What the edit changes: the outputs' patches, and the documents the mirror takes in.
#[derive(Default)]
pub(super) struct Patched {
    pub(super) files: Patches,
    /// How many sections the edited documents had.
    pub(super) old_chunks: usize,
    /// The edited documents as the new index holds them.
    pub(super) docs: Vec<mirror::DocEdit>,
    /// Whether what the `backlog` table reads of them changed.
    pub(super) backlog: bool,
    /// Whether the old index holds a parent cycle (read once, when a file's parent links
    /// moved to other lines).
    cycles: Option<bool>,
}

/// An edited file: its path, and the ids as written of its documents in file order (its
/// own, then its items), as the parse gave them.
pub(super) struct FileDocs {
    pub(super) path: String,
    pub(super) order: Vec<String>,
}

/// Replace the old records of each edited file by its new ones in the patches, and its
/// rows in `table`; None when a file's documents are not the ones it had (ids), or its
/// parent links changed.
pub(super) fn patch_outputs(
    old: &Old,
    edited: &[FileDocs],
    graph: &Graph,
    new_diags: &[Diagnostic],
    table: &mut DocTable,
) -> Option<Patched> {
    let mut out = Patched::default();
    for f in edited {
        let rows = patch_file(old, f, graph, new_diags, &mut out, table.rows_of(&f.path))?;
        table.set_file(&f.path, rows);
    }
    Some(out)
}

/// [`patch_outputs`] of one file whose documents had the table's `rows`: its new rows.
fn patch_file(
    old: &Old,
    f: &FileDocs,
    graph: &Graph,
    new_diags: &[Diagnostic],
    out: &mut Patched,
    rows: &[Row],
) -> Option<Vec<Row>> {
    let path = f.path.as_str();
    let own_id = rows.first()?.node.as_str();
    let docs: Vec<&Node> = graph.nodes.iter().filter(|n| n.path == path && !n.is_chunk()).collect();
    let mut old_ids: Vec<&str> = rows.iter().map(|r| r.node.as_str()).collect();
    old_ids.sort_unstable();
    let mut new_ids: Vec<&str> = docs.iter().map(|n| n.id.as_str()).collect();
    new_ids.sort_unstable();
    if old_ids != new_ids || !docs.iter().any(|d| !d.inline && d.id == own_id) {
        return None;
    }
    let (old_docs, old_chunks) = patch_nodes(&old.nodes, &mut out.files.nodes, &old_ids, path, graph)?;
    let (old_edges, new_edges) = patch_edges(&old.edges, &mut out.files.edges, &old_ids, path, graph)?;
    // Parent links decide cycles: a file's stay, or only move to other lines in an index
    // without a cycle.
    let moved = !same_parents(&old_edges, &new_edges, false);
    if moved && (!same_parents(&old_edges, &new_edges, true) || out.has_cycles(old)?) {
        return None;
    }
    let old_by_id: HashMap<&str, &Node> = old_docs.iter().map(|n| (n.id.as_str(), n)).collect();
    for d in &docs {
        let was = old_by_id.get(d.id.as_str())?;
        let (of_old, of_new) = (sourced(&old_edges, &d.id), sourced(&new_edges, &d.id));
        out.backlog |= backlog_view(was, &of_old) != backlog_view(d, &of_new);
    }
    patch_diags(&old.diags, &mut out.files.diags, path, new_diags)?;
    out.old_chunks += old_chunks;
    // The mirror takes one document at a time: its node, sections and edges.
    for d in &docs {
        let nodes: Vec<Node> = graph
            .nodes
            .iter()
            .filter(|n| n.path == path && (n.id == d.id || n.doc.as_deref() == Some(d.id.as_str())))
            .cloned()
            .collect();
        out.docs.push(mirror::DocEdit {
            nodes,
            edges: sourced(&new_edges, &d.id),
        });
    }
    // The rows as a full build writes them: the file's own document, then its items in
    // file order (an item's node id is its id as written: none shares one).
    let by_id: HashMap<&str, &Node> = docs.iter().map(|n| (n.id.as_str(), *n)).collect();
    let mut new_rows = vec![Row::of(by_id.get(own_id)?)];
    for raw in f.order.iter().skip(1) {
        new_rows.push(Row::of(by_id.get(raw.as_str())?));
    }
    (new_rows.len() == docs.len()).then_some(new_rows)
}

impl Patched {
    /// Whether the old index has a parent cycle; None when its diagnostics cannot be read.
    fn has_cycles(&mut self, old: &Old) -> Option<bool> {
        if self.cycles.is_none() {
            let lines = old.diags.lines(0, u64::MAX).ok()?;
            let any = lines
                .iter()
                .any(|(_, l)| parse::<Diagnostic>(l).is_none_or(|d| d.code == Code::ParentCycle));
            self.cycles = Some(any);
        }
        self.cycles
    }
}

/// The edges whose source is the document `id` or one of its sections.
fn sourced(edges: &[Edge], id: &str) -> Vec<Edge> {
    edges
        .iter()
        .filter(|e| e.source == id || e.source.strip_prefix(id).is_some_and(|rest| rest.starts_with('#')))
        .cloned()
        .collect()
}

/// What the `backlog` table reads of a document and its edges.
fn backlog_view<'a>(doc: &'a Node, edges: &'a [Edge]) -> impl PartialEq + 'a {
    let priority = doc.field_values("priority").into_iter().next();
    let typed = |t| links(edges, t, false);
    (
        (
            doc.kind,
            doc.path.as_str(),
            doc.label(),
            doc.r#type.as_deref(),
            doc.state.as_deref(),
        ),
        priority,
        [
            typed(EdgeType::Parent),
            typed(EdgeType::BlockedBy),
            typed(EdgeType::DependsOn),
            typed(EdgeType::Blocks),
        ],
    )
}

/// The (source, target[, line]) of edges of one type, sorted.
fn links(edges: &[Edge], t: EdgeType, with_line: bool) -> Vec<(&str, &str, u32)> {
    let mut out: Vec<(&str, &str, u32)> = edges
        .iter()
        .filter(|e| e.r#type == t)
        .map(|e| (e.source.as_str(), e.target.as_str(), if with_line { e.line } else { 0 }))
        .collect();
    out.sort_unstable();
    out
}

/// Parent edges (with their lines, unless `any_line`) decide parent cycles and their
/// diagnostics: an edit takes the short cut only when a file's stay as they were.
pub(super) fn same_parents(old: &[Edge], new: &[Edge], any_line: bool) -> bool {
    links(old, EdgeType::Parent, !any_line) == links(new, EdgeType::Parent, !any_line)
}

impl FileDocs {
    /// The documents of a parsed file, in file order.
    pub(super) fn of(p: &crate::ingest::parse::ParsedFile) -> FileDocs {
        let raw = |d: &Node| d.raw_id.clone().unwrap_or_else(|| d.id.clone());
        FileDocs {
            path: p.doc.path.clone(),
            order: std::iter::once(&p.doc)
                .chain(p.items.iter().map(|i| &i.doc))
                .map(raw)
                .collect(),
        }
    }
}
