//! Show: one node with its sections and its incoming and outgoing edges.

use crate::error::Error;
use crate::model::{EdgeType, Kind, Node, Origin};
use crate::store::sidecar::Loaded;
use crate::text::ids::{self, Form};
use serde::Serialize;
use std::collections::BTreeMap;

/// An edge as seen from the shown node.
#[derive(Debug, Clone, Serialize)]
pub struct EdgeView {
    /// Edge type.
    pub r#type: EdgeType,
    /// The node at the other end.
    pub id: String,
    /// Its kind.
    pub kind: Kind,
    /// Its title.
    pub title: String,
    /// Where the edge was written.
    pub origin: Origin,
    /// The file it was written in.
    pub path: String,
    /// The line it was written on.
    pub line: u32,
}

/// A section of the shown document.
#[derive(Debug, Clone, Serialize)]
pub struct SectionView {
    /// Chunk node id.
    pub id: String,
    /// Heading.
    pub heading: String,
    /// Heading level.
    pub level: u8,
    /// Line.
    pub line: u32,
}

/// A node with its neighbourhood.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// The node.
    pub node: Node,
    /// Its sections (documents only).
    pub sections: Vec<SectionView>,
    /// Edges from it (section edges left out).
    pub outgoing: Vec<EdgeView>,
    /// Edges to it (section edges left out).
    pub incoming: Vec<EdgeView>,
}

/// Find a node by node id, then case-insensitively by id or raw id, then by path.
pub fn find<'a>(nodes: &'a [Node], query: &str, aliases: &BTreeMap<String, String>) -> Result<&'a Node, Error> {
    if let Ok(i) = nodes.binary_search_by(|n| n.id.as_str().cmp(query)) {
        return Ok(&nodes[i]);
    }
    let q = query.trim().trim_start_matches("./");
    let docs = || nodes.iter().filter(|n| !n.is_chunk());
    let hits: Vec<&Node> = docs()
        .filter(|n| {
            n.id.eq_ignore_ascii_case(q)
                || n.raw_id.as_deref().is_some_and(|r| r.eq_ignore_ascii_case(q))
                || n.path == q
        })
        .collect();
    if !hits.is_empty() {
        return one_of(query, hits);
    }
    // Ids as people type them: the same id with other separators or a prefix alias,
    // then the number it ends with, then a file name.
    let forms = ids::forms(q, aliases);
    let lower = |s: &str| s.to_lowercase();
    for form in &forms {
        if let Form::Id(k) = form {
            let hits: Vec<&Node> = docs()
                .filter(|n| lower(&n.id) == *k || n.raw_id.as_deref().is_some_and(|r| lower(r) == *k))
                .collect();
            if !hits.is_empty() {
                return one_of(query, hits);
            }
        }
    }
    for form in &forms {
        if let Form::Number(num) = form {
            // The document whose id is the number, else the one whose id ends with it.
            let exact: Vec<&Node> = docs().filter(|n| lower(&n.id) == *num).collect();
            if !exact.is_empty() {
                return one_of(query, exact);
            }
            let tails: Vec<&Node> = docs()
                .filter(|n| ids::number_tail(n.raw_id.as_deref().unwrap_or(&n.id)) == Some(num.as_str()))
                .collect();
            if !tails.is_empty() {
                return one_of(query, tails);
            }
        }
    }
    for form in &forms {
        if let Form::Id(k) = form {
            let hits: Vec<&Node> = docs()
                .filter(|n| {
                    let stem = lower(crate::text::path::file_stem(&n.path));
                    stem == *k || stem.split(" - ").next() == Some(k.as_str())
                })
                .collect();
            if !hits.is_empty() {
                return one_of(query, hits);
            }
        }
    }
    Err(Error::NotFound(query.to_string()))
}

/// The one node, or an error listing the candidates.
fn one_of<'a>(query: &str, hits: Vec<&'a Node>) -> Result<&'a Node, Error> {
    match hits.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::NotFound(query.to_string())),
        many => {
            let ids: Vec<&str> = many.iter().map(|n| n.id.as_str()).collect();
            Err(Error::Other(format!(
                "`{query}` matches several nodes: {}",
                ids.join(", ")
            )))
        }
    }
}

/// Build the view of one node.
pub fn show(index: &Loaded, query: &str, aliases: &BTreeMap<String, String>) -> Result<Shown, Error> {
    let node = find(&index.nodes, query, aliases)?;
    let by_id = |id: &str| {
        index
            .nodes
            .binary_search_by(|n| n.id.as_str().cmp(id))
            .ok()
            .map(|i| &index.nodes[i])
    };
    let view = |id: &str, e: &crate::model::Edge| {
        let other = by_id(id);
        EdgeView {
            r#type: e.r#type,
            id: id.to_string(),
            kind: other.map(|n| n.kind).unwrap_or_default(),
            title: other.map(|n| n.label().to_string()).unwrap_or_default(),
            origin: e.origin,
            path: e.path.clone(),
            line: e.line,
        }
    };
    let mut outgoing = Vec::new();
    let mut incoming = Vec::new();
    let mut sections = Vec::new();
    for e in &index.edges {
        if e.r#type == EdgeType::SectionOf {
            if e.target == node.id
                && let Some(c) = by_id(&e.source)
            {
                sections.push(SectionView {
                    id: c.id.clone(),
                    heading: c.heading.clone().unwrap_or_default(),
                    level: c.level.unwrap_or(0),
                    line: c.line.unwrap_or(0),
                });
            }
            continue;
        }
        if e.source == node.id {
            outgoing.push(view(&e.target, e));
        }
        if e.target == node.id {
            incoming.push(view(&e.source, e));
        }
    }
    sections.sort_by_key(|s| s.line);
    incoming.sort_by(|a, b| (a.r#type, &a.id).cmp(&(b.r#type, &b.id)));
    Ok(Shown {
        schema: "mdgraph.show/1",
        node: node.clone(),
        sections,
        outgoing,
        incoming,
    })
}
