//! Tiny backlogs for the unit tests of this folder: work items and typed edges.

use crate::model::{Edge, EdgeType, Kind, Node, Origin};

/// A work item `id` in `state`, at `<id>.md`, titled after its id.
pub(super) fn item(id: &str, state: &str) -> Node {
    Node {
        id: id.into(),
        kind: Kind::WorkItem,
        path: format!("{id}.md"),
        title: Some(id.into()),
        state: Some(state.into()),
        ..Node::default()
    }
}

/// `item` with a `priority` field in its frontmatter.
pub(super) fn with_priority(mut n: Node, priority: &str) -> Node {
    let json = serde_json::json!({ "priority": priority }).to_string();
    n.fields = serde_json::value::RawValue::from_string(json).ok();
    n
}

/// Frontmatter edges `source -type-> target`, sorted as in the sidecar.
pub(super) fn edges(list: &[(&str, EdgeType, &str)]) -> Vec<Edge> {
    let mut out: Vec<Edge> = list
        .iter()
        .map(|&(source, r#type, target)| Edge {
            source: source.into(),
            target: target.into(),
            r#type,
            origin: Origin::Frontmatter,
            path: format!("{source}.md"),
            line: 1,
            weight: r#type.weight(),
        })
        .collect();
    out.sort_by(|a, b| (&a.source, a.r#type, &a.target).cmp(&(&b.source, b.r#type, &b.target)));
    out
}
