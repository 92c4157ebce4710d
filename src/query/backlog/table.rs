//! The mirror's `backlog` table made from the graph by the backlog questions' own code,
//! so that the fast paths of `list` and `ready` answer exactly what it does.

use super::graph::Backlog;
use super::states::fold;
use crate::config::StateGroups;
use crate::model::backlog::{BacklogRow, BacklogTable, Ready};
use crate::model::{Edge, Kind, Node};
use crate::store::mirror::Docs;
use std::collections::HashMap;

/// The mirror's `backlog` table for a graph: each document's group, folded state and
/// parent, and `ready`'s answer, all from [`Backlog`] itself, so that the fast paths of
/// `list` and `ready` answer exactly what it does.
pub fn materialize(nodes: &[Node], edges: &[Edge], groups: &StateGroups) -> BacklogTable {
    use rayon::prelude::*;
    // Reading a field parses the node's frontmatter: most of the time here, on all cores.
    let priorities: Vec<Option<String>> = nodes
        .par_iter()
        .map(|n| match n.kind {
            Kind::Chunk => None,
            _ => n.field_values("priority").into_iter().next(),
        })
        .collect();
    let links = edges.iter().map(|e| (e.source.as_str(), e.target.as_str(), e.r#type));
    table_of(Backlog::with_priorities(nodes, Some(&priorities), links, groups))
}

/// [`materialize`] from the documents' columns as the mirror holds them (an edit's
/// update in place makes the table again from its own rows).
pub fn materialize_docs(docs: &Docs, groups: &StateGroups) -> BacklogTable {
    table_of(Backlog::of_docs(docs, groups))
}

fn table_of(b: Backlog<'_>) -> BacklogTable {
    let ready = b.ready();
    let rank: HashMap<&str, (usize, &Ready)> = ready
        .items
        .iter()
        .enumerate()
        .map(|(i, r)| (r.item.id.as_str(), (i, r)))
        .collect();
    let rows = b
        .docs
        .values()
        .map(|d| {
            let ready = rank.get(d.node.id.as_str());
            BacklogRow {
                item: b.item(d),
                kind: d.node.kind,
                folded: d.node.state.as_deref().map(fold),
                ready: ready.map(|(i, _)| *i),
                unblocks: ready.map_or(0, |(_, r)| r.unblocks),
                why: ready.map(|(_, r)| r.why.clone()),
            }
        })
        .collect();
    BacklogTable {
        rows,
        cycles: ready.cycles,
    }
}

#[cfg(test)]
mod tests {
    use super::super::Filter;
    use super::super::fixture::{edges, item, with_priority};
    use super::*;
    use crate::model::EdgeType;
    use crate::model::backlog::Item;

    /// The table's rows are what `list` and `ready` answer from the graph itself: the
    /// same items, `ready`'s in its order with the same counts and reasons.
    #[test]
    fn the_table_holds_what_list_and_ready_answer() {
        let groups = StateGroups::default();
        let links = edges(&[
            ("A", EdgeType::Parent, "E"),
            ("B", EdgeType::BlockedBy, "A"),
            ("C", EdgeType::Blocks, "B"),
            ("D", EdgeType::DependsOn, "X"),
        ]);
        let section = Node {
            id: "A#notes".into(),
            kind: Kind::Chunk,
            doc: Some("A".into()),
            ..Node::default()
        };
        let nodes = vec![
            with_priority(item("A", "In Progress"), "P1"),
            section,
            item("B", "To Do"),
            with_priority(item("C", "Won't Do"), "P0"),
            item("D", "To Do"),
            item("E", "To Do"),
        ];
        let table = materialize(&nodes, &links, &groups);
        let b = Backlog::new(&nodes, &links, &groups);
        let items: Vec<Item> = table.rows.iter().map(|r| r.item.clone()).collect();
        assert_eq!(items, b.list(&Filter::default()));
        assert_eq!(items[0].priority.as_deref(), Some("P1"));
        assert_eq!(items[0].parent.as_deref(), Some("E"));
        let folded: Vec<Option<&str>> = table.rows.iter().map(|r| r.folded.as_deref()).collect();
        assert_eq!(
            folded,
            [
                Some("inprogress"),
                Some("todo"),
                Some("wontdo"),
                Some("todo"),
                Some("todo")
            ]
        );
        assert!(table.rows.iter().all(|r| r.kind == Kind::WorkItem));
        let mut ready: Vec<&BacklogRow> = table.rows.iter().filter(|r| r.ready.is_some()).collect();
        ready.sort_by_key(|r| r.ready);
        let report = b.ready();
        assert_eq!(ready.len(), report.items.len());
        for (row, r) in ready.iter().zip(&report.items) {
            assert_eq!(
                (&row.item, row.unblocks, row.why.as_deref()),
                (&r.item, r.unblocks, Some(r.why.as_str()))
            );
        }
        // A (unblocks B) and D (waits on X, which is no document) are not both ready.
        let ids: Vec<&str> = ready.iter().map(|r| r.item.id.as_str()).collect();
        assert_eq!(ids, ["A"]);
        assert!(
            table
                .rows
                .iter()
                .filter(|r| r.ready.is_none())
                .all(|r| r.unblocks == 0 && r.why.is_none())
        );
        assert_eq!(table.cycles, report.cycles);
    }
}
