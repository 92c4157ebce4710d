//! The graph seen as a backlog: each document with its state group (by its state or its
//! path) and priority, each item's parent and children, and who blocks whom.

use super::states::{PathRules, PathState, group_of};
use crate::config::StateGroups;
use crate::model::backlog::{Group, Item};
use crate::model::{Edge, EdgeType, Kind, Node};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A document as the backlog sees it.
pub(super) struct Doc<'a> {
    pub(super) node: &'a Node,
    /// Its state's group (or its path's, see `[states] paths`).
    pub(super) group: Group,
    /// The glob that decided the group or made it a draft.
    pub(super) rule: Option<(&'a str, PathState)>,
    pub(super) priority: Option<String>,
}

/// The graph seen as a backlog: documents by id, parents, blockers.
pub struct Backlog<'a> {
    pub(super) docs: BTreeMap<&'a str, Doc<'a>>,
    pub(super) groups: &'a StateGroups,
    pub(super) rules: PathRules<'a>,
    pub(super) parent: HashMap<&'a str, &'a str>,
    pub(super) children: HashMap<&'a str, Vec<&'a str>>,
    pub(super) blockers: HashMap<&'a str, BTreeSet<&'a str>>,
    pub(super) blocks: HashMap<&'a str, BTreeSet<&'a str>>,
}

impl<'a> Backlog<'a> {
    /// Read the backlog out of a graph's nodes and edges.
    pub fn new(nodes: &'a [Node], edges: &'a [Edge], groups: &'a StateGroups) -> Backlog<'a> {
        let links = edges.iter().map(|e| (e.source.as_str(), e.target.as_str(), e.r#type));
        Backlog::with_priorities(nodes, None, links, groups)
    }

    /// [`Backlog::new`] from documents and links as the mirror or the JSONL files give
    /// them for the backlog questions ([`crate::store::mirror::load_docs`]).
    pub fn of_docs(docs: &'a crate::store::mirror::Docs, groups: &'a StateGroups) -> Backlog<'a> {
        let links = docs
            .links
            .iter()
            .map(|l| (l.source.as_str(), l.target.as_str(), l.r#type));
        Backlog::with_priorities(&docs.nodes, docs.priorities.as_deref(), links, groups)
    }

    /// [`Backlog::new`] from the edges' (source, target, type), each source's parent
    /// edges by target (the first is its parent), for documents read without their
    /// frontmatter: `priorities` holds each node's `priority` field (in node order),
    /// which is otherwise read from the frontmatter.
    pub fn with_priorities(
        nodes: &'a [Node],
        priorities: Option<&'a [Option<String>]>,
        links: impl IntoIterator<Item = (&'a str, &'a str, EdgeType)>,
        groups: &'a StateGroups,
    ) -> Backlog<'a> {
        let rules = PathRules::new(groups);
        // A backlog has a handful of distinct states: each is grouped once.
        let mut state_group: HashMap<Option<&str>, Group> = HashMap::new();
        let docs: BTreeMap<&str, Doc> = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.kind != Kind::Chunk)
            .map(|(i, n)| {
                let priority = match priorities {
                    Some(p) => p.get(i).cloned().flatten(),
                    None => n.field_values("priority").into_iter().next(),
                };
                let rule = rules.find(&n.path);
                let group = match rule {
                    Some((_, PathState::Group(g))) => g,
                    _ => *state_group
                        .entry(n.state.as_deref())
                        .or_insert_with(|| group_of(n.state.as_deref(), groups)),
                };
                let doc = Doc {
                    node: n,
                    group,
                    rule,
                    priority,
                };
                (n.id.as_str(), doc)
            })
            .collect();
        let mut b = Backlog {
            docs,
            groups,
            rules,
            parent: HashMap::new(),
            children: HashMap::new(),
            blockers: HashMap::new(),
            blocks: HashMap::new(),
        };
        for (s, t, ty) in links {
            let (blocked, blocker) = match ty {
                EdgeType::Parent => {
                    b.parent.entry(s).or_insert(t);
                    b.children.entry(t).or_default().push(s);
                    continue;
                }
                EdgeType::BlockedBy | EdgeType::DependsOn => (s, t),
                EdgeType::Blocks => (t, s),
                _ => continue,
            };
            if blocked != blocker {
                b.blockers.entry(blocked).or_default().insert(blocker);
                b.blocks.entry(blocker).or_default().insert(blocked);
            }
        }
        for v in b.children.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        b
    }

    pub(super) fn node(&self, id: &str) -> Option<&'a Node> {
        self.docs.get(id).map(|d| d.node)
    }

    /// The group of a document's state (or of its path, see `[states] paths`).
    pub fn group(&self, n: &Node) -> Group {
        match self.docs.get(n.id.as_str()) {
            Some(d) if std::ptr::eq(d.node, n) => d.group,
            _ => match self.rules.find(&n.path) {
                Some((_, PathState::Group(g))) => g,
                _ => group_of(n.state.as_deref(), self.groups),
            },
        }
    }

    /// The group of the document `id`; open when it is not a document.
    pub(super) fn group_by_id(&self, id: &str) -> Group {
        self.docs.get(id).map_or(Group::Open, |d| d.group)
    }

    pub(super) fn is_closed(&self, id: &str) -> bool {
        self.group_by_id(id).is_closed()
    }

    /// Where `id` stands, the one meaning of blocked the board, the overview, the graphs
    /// and `tree`'s roll-ups share: its state's group, except that an open or started
    /// item with an unfinished blocker is blocked whatever its state says, unless every
    /// such blocker is only the step before it in its own sequence (a sibling written in
    /// the same file: Kiro's previous task, a Spec Kit phase or task run), when it is
    /// waiting for its turn: (group, waiting).
    pub fn standing(&self, id: &str) -> (Group, bool) {
        let Some(d) = self.docs.get(id) else {
            return (Group::Open, false);
        };
        if !matches!(d.group, Group::Open | Group::InProgress) {
            return (d.group, false);
        }
        let (mut blocked, mut waiting) = (false, false);
        for &b in self
            .blockers
            .get(id)
            .into_iter()
            .flatten()
            .filter(|b| !self.is_closed(b))
        {
            let in_turn = self.docs.get(b).is_some_and(|x| {
                x.node.path == d.node.path && self.parent.contains_key(b) && self.parent.get(b) == self.parent.get(id)
            });
            if in_turn {
                waiting = true;
            } else {
                blocked = true;
            }
        }
        if blocked {
            (Group::Blocked, false)
        } else {
            (d.group, waiting)
        }
    }

    pub(super) fn item(&self, d: &Doc) -> Item {
        let n = d.node;
        Item {
            id: n.id.clone(),
            path: n.path.clone(),
            title: n.label().to_string(),
            r#type: n.r#type.clone(),
            state: n.state.clone(),
            group: d.group,
            parent: self.parent.get(n.id.as_str()).map(|p| p.to_string()),
            priority: d.priority.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{edges, item, with_priority};
    use super::*;

    #[test]
    fn documents_parents_and_priorities() {
        let groups = StateGroups::default();
        let links = edges(&[("A", EdgeType::Parent, "P"), ("A", EdgeType::Parent, "Q")]);
        let section = Node {
            id: "A#s".into(),
            kind: Kind::Chunk,
            ..Node::default()
        };
        let nodes = vec![with_priority(item("A", "Done"), "P1"), section];
        let b = Backlog::new(&nodes, &links, &groups);
        assert_eq!(b.docs.keys().copied().collect::<Vec<_>>(), ["A"]);
        let a = b.item(&b.docs["A"]);
        // The first parent edge by target is the parent.
        assert_eq!(a.parent.as_deref(), Some("P"));
        assert_eq!(a.priority.as_deref(), Some("P1"));
        assert_eq!(a.group, Group::Done);
        assert_eq!(b.children["P"], ["A"]);
        // Priorities given (documents read without frontmatter) are used instead.
        let given = [Some("P3".to_string()), None];
        let links = links.iter().map(|e| (e.source.as_str(), e.target.as_str(), e.r#type));
        let b = Backlog::with_priorities(&nodes, Some(&given), links, &groups);
        assert_eq!(b.item(&b.docs["A"]).priority.as_deref(), Some("P3"));
        // Not a document: open.
        assert_eq!(b.group_by_id("P"), Group::Open);
    }

    #[test]
    fn an_open_blocker_blocks_and_the_step_before_makes_wait() {
        let groups = StateGroups::default();
        // T2 waits for T1 (its sibling in tasks.md); X is blocked by B, in another file;
        // D is done whatever blocks it; Y's blocker is finished.
        let links = edges(&[
            ("T1", EdgeType::Parent, "F"),
            ("T2", EdgeType::Parent, "F"),
            ("T2", EdgeType::DependsOn, "T1"),
            ("X", EdgeType::BlockedBy, "B"),
            ("D", EdgeType::BlockedBy, "B"),
            ("Y", EdgeType::BlockedBy, "Z"),
        ]);
        let at = |n: Node, path: &str| Node { path: path.into(), ..n };
        let nodes = vec![
            at(item("F", "To Do"), "spec/tasks.md"),
            at(item("T1", "To Do"), "spec/tasks.md"),
            at(item("T2", "To Do"), "spec/tasks.md"),
            at(item("X", "In Progress"), "x.md"),
            at(item("B", "To Do"), "b.md"),
            at(item("D", "Done"), "d.md"),
            at(item("Y", "To Do"), "y.md"),
            at(item("Z", "Done"), "z.md"),
        ];
        let b = Backlog::new(&nodes, &links, &groups);
        assert_eq!(b.standing("T2"), (Group::Open, true));
        assert_eq!(b.standing("T1"), (Group::Open, false));
        assert_eq!(b.standing("X"), (Group::Blocked, false));
        assert_eq!(b.standing("D"), (Group::Done, false));
        assert_eq!(b.standing("Y"), (Group::Open, false));
    }
}
