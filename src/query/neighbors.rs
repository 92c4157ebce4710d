//! Neighbors: a node's neighborhood up to a depth, as text, JSON, Mermaid or Graphviz
//! DOT, so a person can look at it as a picture.
//!
//! A breadth-first walk over document-level edges (both directions; `--edges` limits the
//! types), at most [`MAX_NODES`] nodes (the rest is counted, not drawn). Every edge among
//! the nodes shown is drawn, not only the ones the walk used.

use crate::model::{EdgeType, Kind};
use crate::query::search::Engine;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Most nodes drawn.
pub const MAX_NODES: usize = 200;

/// A node of the neighborhood.
#[derive(Debug, Clone, Serialize)]
pub struct HoodNode {
    /// Node id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Kind.
    pub kind: Kind,
    /// Type.
    pub r#type: Option<String>,
    /// State.
    pub state: Option<String>,
    /// Hops from the root.
    pub hop: usize,
}

/// An edge between two nodes of the neighborhood.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct HoodEdge {
    /// Source id.
    pub source: String,
    /// Target id.
    pub target: String,
    /// Edge type.
    pub r#type: EdgeType,
}

/// The neighborhood of one node.
#[derive(Debug, Clone, Serialize)]
pub struct Hood {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// The node asked for.
    pub root: String,
    /// Nodes by hop, then id.
    pub nodes: Vec<HoodNode>,
    /// Edges among them, sorted.
    pub edges: Vec<HoodEdge>,
    /// Nodes reached but not shown (over 200, or cut by a limit or a budget).
    pub omitted: usize,
}

/// The nodes nearest the root are kept, work (a node with a state) before the rest at
/// each hop, and the edges among them.
impl crate::query::bound::Bounded for Hood {
    fn entries(&self) -> usize {
        self.nodes.len()
    }

    fn keep(&mut self, n: usize) {
        // The nodes are in that order already (see `neighborhood`); the root stays.
        let n = n.max(1);
        if self.nodes.len() <= n {
            return;
        }
        self.omitted += self.nodes.len() - n;
        self.nodes.truncate(n);
        let kept: BTreeSet<&str> = self.nodes.iter().map(|x| x.id.as_str()).collect();
        self.edges
            .retain(|e| kept.contains(e.source.as_str()) && kept.contains(e.target.as_str()));
    }
}

impl Hood {
    /// The neighborhood as indented text, one node per line with its hop.
    pub fn to_text(&self) -> String {
        to_text(self)
    }

    /// The neighborhood as a Mermaid flowchart.
    pub fn to_mermaid(&self) -> String {
        to_mermaid(self)
    }

    /// The neighborhood as a Graphviz digraph.
    pub fn to_dot(&self) -> String {
        to_dot(self)
    }
}

/// Walk from `root` up to `depth` hops over `types` (all document edge types if empty).
pub fn neighborhood(engine: &dyn Engine, root: &str, depth: usize, types: &[EdgeType]) -> Hood {
    let allowed = |t: EdgeType| t != EdgeType::SectionOf && (types.is_empty() || types.contains(&t));
    let mut hop_of: BTreeMap<String, usize> = BTreeMap::from([(root.to_string(), 0)]);
    let mut frontier = vec![root.to_string()];
    let mut omitted = BTreeSet::new();
    for hop in 1..=depth {
        let mut next = BTreeSet::new();
        for id in &frontier {
            for e in engine.edges(id).iter() {
                if !allowed(e.r#type) || hop_of.contains_key(&e.other) {
                    continue;
                }
                if hop_of.len() + next.len() >= MAX_NODES && !next.contains(&e.other) {
                    omitted.insert(e.other.clone());
                    continue;
                }
                next.insert(e.other.clone());
            }
        }
        for id in &next {
            hop_of.insert(id.clone(), hop);
            omitted.remove(id);
        }
        frontier = next.into_iter().collect();
    }
    let mut edges = BTreeSet::new();
    for id in hop_of.keys() {
        for e in engine.edges(id).iter() {
            if allowed(e.r#type) && e.forward && hop_of.contains_key(&e.other) {
                edges.insert(HoodEdge {
                    source: id.clone(),
                    target: e.other.clone(),
                    r#type: e.r#type,
                });
            }
        }
    }
    let mut nodes: Vec<HoodNode> = hop_of
        .into_iter()
        .map(|(id, hop)| {
            let info = engine.doc(&id);
            HoodNode {
                title: info.as_ref().map(|i| i.title.clone()).unwrap_or_default(),
                kind: info.as_ref().map(|i| i.kind).unwrap_or_default(),
                r#type: info.as_ref().and_then(|i| i.r#type.clone()),
                state: info.and_then(|i| i.state),
                id,
                hop,
            }
        })
        .collect();
    // By hop; at each hop work (a node with a state: tasks, stories) before documents
    // and requirements, so a cut keeps the work.
    nodes.sort_by(|a, b| (a.hop, a.state.is_none(), &a.id).cmp(&(b.hop, b.state.is_none(), &b.id)));
    Hood {
        schema: "mdgraph.neighbors/1",
        root: root.to_string(),
        nodes,
        edges: edges.into_iter().collect(),
        omitted: omitted.len(),
    }
}

/// Indented text: the root, then each node with the edges (`A —type→ B`) that connect it
/// to nodes one hop closer.
pub fn to_text(h: &Hood) -> String {
    let mut s = String::new();
    let hop: BTreeMap<&str, usize> = h.nodes.iter().map(|n| (n.id.as_str(), n.hop)).collect();
    for n in &h.nodes {
        let label = n.r#type.clone().unwrap_or_else(|| n.kind.as_str().to_string());
        let state = n.state.as_deref().map(|st| format!(", {st}")).unwrap_or_default();
        if n.hop == 0 {
            let _ = writeln!(s, "{}  {}  ({label}{state})", n.id, n.title);
            continue;
        }
        let closer = |id: &str| hop.get(id) == Some(&(n.hop - 1));
        let via: Vec<String> = h
            .edges
            .iter()
            .filter(|e| (e.source == n.id && closer(&e.target)) || (e.target == n.id && closer(&e.source)))
            .map(|e| format!("{} —{}→ {}", e.source, e.r#type.as_str(), e.target))
            .collect();
        let _ = writeln!(
            s,
            "{}{}  {}  ({label}{state})  via {}",
            "  ".repeat(n.hop),
            n.id,
            n.title,
            via.join("; ")
        );
    }
    if h.omitted > 0 {
        let _ = writeln!(s, "({} more nodes not shown)", h.omitted);
    }
    s
}

/// Text inside a Mermaid `["..."]` label: one line, no raw quote.
fn mermaid_text(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('"', "#quot;")
}

/// A DOT quoted string's content: quotes and backslashes escaped, line breaks as `\n`,
/// so two ids that differ only there stay two nodes.
fn dot_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A Mermaid flowchart.
pub fn to_mermaid(h: &Hood) -> String {
    let idx: BTreeMap<&str, usize> = h.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let mut s = String::from("graph LR\n");
    for (i, n) in h.nodes.iter().enumerate() {
        let _ = writeln!(s, "  n{i}[\"{}: {}\"]", mermaid_text(&n.id), mermaid_text(&n.title));
    }
    for e in &h.edges {
        let _ = writeln!(
            s,
            "  n{} -->|{}| n{}",
            idx[e.source.as_str()],
            e.r#type.as_str(),
            idx[e.target.as_str()]
        );
    }
    if let Some(root) = idx.get(h.root.as_str()) {
        let _ = writeln!(s, "  style n{root} stroke-width:3px");
    }
    s
}

/// A Graphviz DOT digraph.
pub fn to_dot(h: &Hood) -> String {
    let mut s = String::from("digraph neighbors {\n  rankdir=LR;\n  node [shape=box];\n");
    for n in &h.nodes {
        let bold = if n.id == h.root { ", penwidth=3" } else { "" };
        let _ = writeln!(
            s,
            "  \"{}\" [label=\"{}\\n{}\"{bold}];",
            dot_text(&n.id),
            dot_text(&n.id),
            dot_text(&n.title)
        );
    }
    for e in &h.edges {
        let _ = writeln!(
            s,
            "  \"{}\" -> \"{}\" [label=\"{}\"];",
            dot_text(&e.source),
            dot_text(&e.target),
            e.r#type.as_str()
        );
    }
    s.push_str("}\n");
    s
}
