//! The graph seen from its nodes: document-level edges by node in both directions.

use crate::model::{Edge, EdgeType};
use std::collections::HashMap;

/// An edge seen from one of its ends.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphEdge {
    /// The node at the other end.
    pub other: String,
    /// Edge type.
    pub r#type: EdgeType,
    /// True when the edge points from this node to `other`.
    pub forward: bool,
    /// Edge weight.
    pub weight: f64,
}

/// Document-level edges by node, both directions (no `section_of`).
pub fn adjacency(edges: &[Edge]) -> HashMap<String, Vec<GraphEdge>> {
    let mut adj: HashMap<String, Vec<GraphEdge>> = HashMap::new();
    for e in edges.iter().filter(|e| e.r#type != EdgeType::SectionOf) {
        adj.entry(e.source.clone()).or_default().push(GraphEdge {
            other: e.target.clone(),
            r#type: e.r#type,
            forward: true,
            weight: e.weight,
        });
        adj.entry(e.target.clone()).or_default().push(GraphEdge {
            other: e.source.clone(),
            r#type: e.r#type,
            forward: false,
            weight: e.weight,
        });
    }
    adj
}
