//! Taking in an edit in place: the change the short cut of `mdgraph index` made, applied
//! to an index held in memory (its graph and search engine) as a reload would give it.

use super::Index;
use crate::ingest::build::BuildReport;
use crate::model::{Edge, EdgeType, Node};
use crate::store::mirror;

impl Index {
    /// Take in the change of an edit that the short cut of `mdgraph index` made
    /// (`report`), when this index is held in memory and loaded, and is the index the
    /// edit was applied to: its graph and search engine are changed in place, as they
    /// would be loaded from the new index, instead of loaded again. Returns false, having
    /// changed nothing, when it cannot: the index must then be opened again.
    pub fn apply_edits(&mut self, report: &BuildReport) -> bool {
        let Some(edits) = &report.edits else {
            return false;
        };
        let Some(graph) = self.graph.get_mut() else {
            return false;
        };
        if !self.in_memory || mirror::sidecar_digest(&graph.meta.outputs) != edits.from {
            return false;
        }
        // Every edited document is one the graph holds (same id, same path). Its nodes
        // are replaced in place when the edit brings the same ones; when its sections
        // changed (the engine moves its rows), they are removed and the new ones inserted.
        let mut slots = Vec::new();
        let mut same_nodes = true;
        for edit in &edits.docs {
            let Some(doc) = edit.nodes.iter().find(|n| !n.is_chunk()) else {
                return false;
            };
            match graph.nodes.binary_search_by(|x| x.id.cmp(&doc.id)) {
                Ok(i) if graph.nodes[i].path == doc.path => {}
                _ => return false,
            }
            let (from, to) = (format!("{}#", doc.id), format!("{}$", doc.id));
            let lo = graph.nodes.partition_point(|x| x.id < from);
            let hi = graph.nodes.partition_point(|x| x.id < to);
            let held = graph.nodes[lo..hi]
                .iter()
                .filter(|x| x.doc.as_deref() == Some(doc.id.as_str()) && x.path == doc.path)
                .count();
            same_nodes &= held == edit.nodes.iter().filter(|n| n.is_chunk()).count();
        }
        for n in edits.docs.iter().flat_map(|e| &e.nodes) {
            match graph.nodes.binary_search_by(|x| x.id.cmp(&n.id)) {
                Ok(i) if graph.nodes[i].path == n.path => slots.push((i, n)),
                Ok(_) => return false,
                Err(_) => same_nodes = false,
            }
        }
        // The new edge list: each document's edges are those its file wrote, from it or
        // its sections; the others' stay. Read as a merge (the graph is changed only once
        // the engine took the edit, and never copied).
        let mut owners: Vec<(&str, String, &str)> = Vec::new();
        for edit in &edits.docs {
            let Some(doc) = edit.nodes.iter().find(|n| !n.is_chunk()) else {
                return false;
            };
            owners.push((doc.id.as_str(), format!("{}#", doc.id), doc.path.as_str()));
        }
        let own = |e: &Edge| {
            owners
                .iter()
                .any(|(id, prefix, path)| e.path == *path && (e.source == *id || e.source.starts_with(prefix.as_str())))
        };
        let mut added: Vec<Edge> = edits.docs.iter().flat_map(|e| e.edges.iter().cloned()).collect();
        added.sort_by(|x, y| edge_key(x).cmp(&edge_key(y)));
        let kept = graph.edges.iter().filter(|e| !own(e));
        let mut merged = Merge {
            a: kept.peekable(),
            b: added.iter().peekable(),
        };
        // The engine first: it changes nothing when it cannot take the edit. One not
        // loaded yet loads the new index when first asked.
        let engine = self.engine.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = engine.as_mut()
            && !e.apply_edits(&edits.docs, &mut merged)
        {
            return false;
        }
        if same_nodes {
            for (i, n) in slots {
                graph.nodes[i] = n.clone();
            }
        } else {
            let theirs = |n: &Node| {
                owners
                    .iter()
                    .any(|(id, _, path)| n.path == *path && (n.id == *id || n.doc.as_deref() == Some(*id)))
            };
            graph.nodes.retain(|n| !theirs(n));
            for n in edits.docs.iter().flat_map(|e| &e.nodes) {
                let at = graph.nodes.partition_point(|x| x.id < n.id);
                graph.nodes.insert(at, n.clone());
            }
        }
        graph.edges.retain(|e| !own(e));
        for e in added {
            let at = graph.edges.partition_point(|x| edge_key(x) < edge_key(&e));
            graph.edges.insert(at, e);
        }
        graph.meta = report.meta.clone();
        graph.diagnostics = report.diagnostics.clone();
        // Read from the mirror or the graph when next asked.
        self.docs.take();
        self.docs_with_fields.take();
        true
    }
}

/// The order of the sidecar's edges.
fn edge_key(e: &Edge) -> (&str, EdgeType, &str, u32) {
    (e.source.as_str(), e.r#type, e.target.as_str(), e.line)
}

/// Two edge lists in sidecar order, read as one.
struct Merge<'a, A: Iterator<Item = &'a Edge>, B: Iterator<Item = &'a Edge>> {
    a: std::iter::Peekable<A>,
    b: std::iter::Peekable<B>,
}

impl<'a, A: Iterator<Item = &'a Edge>, B: Iterator<Item = &'a Edge>> Iterator for Merge<'a, A, B> {
    type Item = &'a Edge;

    fn next(&mut self) -> Option<&'a Edge> {
        match (self.a.peek(), self.b.peek()) {
            (Some(x), Some(y)) if edge_key(y) < edge_key(x) => self.b.next(),
            (Some(_), _) => self.a.next(),
            (None, _) => self.b.next(),
        }
    }
}

#[cfg(test)]
mod merge_tests {
    use super::*;

    /// Two sorted edge lists read as one sorted list, whichever runs out first.
    #[test]
    fn merge_reads_two_sorted_lists_as_one() {
        let edge = |s: &str, t: &str| Edge {
            source: s.into(),
            target: t.into(),
            r#type: EdgeType::Relates,
            origin: crate::model::Origin::Body,
            path: "p.md".into(),
            line: 1,
            weight: 0.7,
        };
        let a = [edge("B", "X"), edge("D", "X")];
        let b = [edge("A", "X"), edge("C", "X"), edge("E", "X"), edge("F", "X")];
        for (a, b) in [(&a[..], &b[..]), (&b[..], &a[..]), (&a[..0], &b[..]), (&a[..], &b[..0])] {
            let merged: Vec<&str> = Merge {
                a: a.iter().peekable(),
                b: b.iter().peekable(),
            }
            .map(|e| e.source.as_str())
            .collect();
            let mut want: Vec<&str> = a.iter().chain(b).map(|e| e.source.as_str()).collect();
            want.sort();
            assert_eq!(merged, want);
        }
    }
}
