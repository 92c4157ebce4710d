//! The mirror's `backlog` table made from the graph by the backlog questions' own code,
//! so that the fast paths of `list` and `ready` answer exactly what it does.

use super::graph::Backlog;
use super::order::ready_key;
use super::states::fold;
use crate::config::StateGroups;
use crate::model::backlog::{BacklogRow, BacklogTable, Ready};
use crate::model::{Edge, Kind, Node};
use crate::store::mirror::{Docs, Ranked};
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
/// update in place makes the table again from its own rows). When they are one part of
/// the backlog, closed under its links (every parent, blocker and blocked item of a
/// document in it is in it), the rows are those a whole build gives these documents,
/// their `ready` places counted among the ready items elsewhere ([`Docs::elsewhere`]),
/// and the cycles those among them: every rule of `ready` (a document's group, its
/// blockers, its ancestors' blockers and groups, its children, what it unblocks) reads
/// only documents it is linked to.
pub fn materialize_docs(docs: &Docs, groups: &StateGroups) -> BacklogTable {
    let mut table = table_of(Backlog::of_docs(docs, groups));
    if !docs.elsewhere.is_empty() {
        place(&mut table, &docs.elsewhere);
    }
    table
}

/// Number the ready rows of a part of the backlog among the ready items of the rest
/// (`elsewhere`, in `ready`'s order): each moves down by the items elsewhere that come
/// before it.
fn place(table: &mut BacklogTable, elsewhere: &[Ranked]) {
    let mut ready: Vec<&mut BacklogRow> = table.rows.iter_mut().filter(|r| r.ready.is_some()).collect();
    ready.sort_by_key(|r| r.ready);
    for (i, r) in ready.into_iter().enumerate() {
        let key = ready_key(r.item.priority.as_deref(), r.unblocks, &r.item.id);
        // A binary search: a key is made for a few of the items elsewhere only.
        let before = elsewhere.partition_point(|o| ready_key(o.priority.as_deref(), o.unblocks, &o.id) < key);
        r.ready = Some(i + before);
    }
}

fn table_of(b: Backlog<'_>) -> BacklogTable {
    let report = b.ready();
    // Each ready item by its document's id, with its place: its row takes the item as
    // `ready` made it (no second copy of its fields).
    let mut rank: HashMap<&str, (usize, Ready)> = HashMap::with_capacity(report.items.len());
    for (i, r) in report.items.into_iter().enumerate() {
        if let Some(n) = b.node(&r.item.id) {
            rank.insert(n.id.as_str(), (i, r));
        }
    }
    let rows = b
        .docs
        .values()
        .map(|d| {
            let kind = d.node.kind;
            let folded = d.node.state.as_deref().map(fold);
            match rank.remove(d.node.id.as_str()) {
                Some((i, r)) => BacklogRow {
                    item: r.item,
                    kind,
                    folded,
                    ready: Some(i),
                    unblocks: r.unblocks,
                    why: Some(r.why),
                },
                None => BacklogRow {
                    item: b.item(d),
                    kind,
                    folded,
                    ready: None,
                    unblocks: 0,
                    why: None,
                },
            }
        })
        .collect();
    BacklogTable {
        rows,
        cycles: report.cycles,
    }
}

#[cfg(test)]
mod tests {
    use super::super::Filter;
    use super::super::fixture::{edges, item, with_priority};
    use super::*;
    use crate::model::EdgeType;
    use crate::model::backlog::Item;
    use crate::store::mirror::{BACKLOG_TYPES, Link};
    use std::collections::BTreeSet;

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

    /// A tiny random number generator (xorshift), the same sequence on every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// The documents and backlog links of a graph as the mirror reads them (by id; links
    /// by type name, source and target), each document's priority from its frontmatter.
    fn docs_of(nodes: &[Node], edges: &[Edge], keep: impl Fn(&str) -> bool) -> Docs {
        let mut nodes: Vec<Node> = nodes.iter().filter(|n| keep(&n.id)).cloned().collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let priorities = nodes
            .iter()
            .map(|n| n.field_values("priority").into_iter().next())
            .collect();
        let mut links: Vec<Link> = edges
            .iter()
            .filter(|e| BACKLOG_TYPES.contains(&e.r#type) && keep(&e.source))
            .map(Link::from)
            .collect();
        links.sort_by(|a, b| (a.r#type.as_str(), &a.source, &a.target).cmp(&(b.r#type.as_str(), &b.source, &b.target)));
        Docs {
            nodes,
            links,
            priorities: Some(priorities),
            elsewhere: Vec::new(),
        }
    }

    /// The ids tied to `start` by backlog links, either way.
    fn part_of(start: &str, edges: &[Edge]) -> BTreeSet<String> {
        let mut part = BTreeSet::from([start.to_string()]);
        let mut todo = vec![start.to_string()];
        while let Some(id) = todo.pop() {
            for e in edges.iter().filter(|e| BACKLOG_TYPES.contains(&e.r#type)) {
                let other = if e.source == id {
                    &e.target
                } else if e.target == id {
                    &e.source
                } else {
                    continue;
                };
                if part.insert(other.clone()) {
                    todo.push(other.clone());
                }
            }
        }
        part
    }

    /// A random backlog: items in every state group, some with priorities (ids that tie
    /// in natural order too, `T-1` and `t-01`), and backlog links (to items and to ids
    /// that are no document), which make parent and blocker cycles.
    fn random_backlog(rng: &mut Rng, n: usize) -> (Vec<Node>, Vec<Edge>) {
        let states = ["To Do", "In Progress", "Blocked", "Done", "Dropped", "To Do"];
        let priorities = [None, Some("P1"), Some("P0"), Some("high"), None];
        let id = |i: usize| {
            if i % 7 == 3 {
                format!("t-0{i}")
            } else {
                format!("T-{i}")
            }
        };
        let nodes = (0..n)
            .map(|i| {
                let node = item(&id(i), states[rng.below(states.len())]);
                match priorities[rng.below(priorities.len())] {
                    Some(p) => with_priority(node, p),
                    None => node,
                }
            })
            .collect();
        let types = [
            EdgeType::Parent,
            EdgeType::BlockedBy,
            EdgeType::Blocks,
            EdgeType::DependsOn,
            EdgeType::Relates,
        ];
        let links: Vec<(String, EdgeType, String)> = (0..n)
            .map(|_| (id(rng.below(n)), types[rng.below(types.len())], id(rng.below(n + 3))))
            .collect();
        let list: Vec<(&str, EdgeType, &str)> = links.iter().map(|(s, t, d)| (s.as_str(), *t, d.as_str())).collect();
        (nodes, edges(&list))
    }

    /// A part of the backlog closed under its links, made by itself and numbered among
    /// the ready items elsewhere, holds the rows a whole table gives its documents, and
    /// the cycles among them: what an edit's update of the mirror relies on.
    #[test]
    fn a_part_closed_under_its_links_gets_the_rows_of_the_whole() {
        let groups = StateGroups::default();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        // Rounds whose part has ready items with items elsewhere before them.
        let mut moved = 0;
        for round in 0..60 {
            let (nodes, links) = random_backlog(&mut rng, 8 + round % 30);
            let whole = materialize_docs(&docs_of(&nodes, &links, |_| true), &groups);
            let start = &nodes[rng.below(nodes.len())].id;
            let part = part_of(start, &links);
            let mut docs = docs_of(&nodes, &links, |id| part.contains(id));
            let mut elsewhere: Vec<&BacklogRow> = whole
                .rows
                .iter()
                .filter(|r| r.ready.is_some() && !part.contains(&r.item.id))
                .collect();
            elsewhere.sort_by_key(|r| r.ready);
            docs.elsewhere = elsewhere
                .iter()
                .map(|r| Ranked {
                    id: r.item.id.clone(),
                    priority: r.item.priority.clone(),
                    unblocks: r.unblocks,
                })
                .collect();
            let made = materialize_docs(&docs, &groups);
            let first = made.rows.iter().filter_map(|r| r.ready).min();
            moved += usize::from(first.is_some_and(|p| p > 0));
            let want: Vec<&BacklogRow> = whole.rows.iter().filter(|r| part.contains(&r.item.id)).collect();
            assert_eq!(
                made.rows.iter().collect::<Vec<_>>(),
                want,
                "round {round}, part of {start}"
            );
            let cycles: Vec<&Vec<String>> = whole.cycles.iter().filter(|c| part.contains(&c[0])).collect();
            assert_eq!(made.cycles.iter().collect::<Vec<_>>(), cycles, "round {round}");
        }
        assert!(moved > 10, "{moved} rounds numbered a part among others");
    }
}
