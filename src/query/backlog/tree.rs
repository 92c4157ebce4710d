//! `tree`: an item with its descendants along parent edges, and per node the roll-up of
//! its descendants' state groups; as text, Mermaid or Graphviz.

use super::graph::Backlog;
use super::order::natural;
use crate::model::backlog::{Group, Item};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Version of the JSON shape of `tree`.
pub const TREE_SCHEMA: &str = "mdgraph.tree/1";

/// Counts per state group below a node, and the done share.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Rollup {
    /// Descendants not started.
    pub open: usize,
    /// Descendants in progress.
    pub in_progress: usize,
    /// Descendants blocked.
    pub blocked: usize,
    /// Descendants done.
    pub done: usize,
    /// Descendants dropped.
    pub dropped: usize,
    /// All descendants.
    pub total: usize,
    /// done / (total − dropped); 1 when nothing is left to do.
    pub done_fraction: f64,
}

impl Rollup {
    /// The counts below a node that does not count itself.
    fn add_below(&mut self, below: &Rollup) {
        self.count(None, below);
    }

    fn add(&mut self, g: Group, below: &Rollup) {
        self.count(Some(g), below);
    }

    fn count(&mut self, own: Option<Group>, below: &Rollup) {
        for (group, n) in [
            (Group::Open, below.open),
            (Group::InProgress, below.in_progress),
            (Group::Blocked, below.blocked),
            (Group::Done, below.done),
            (Group::Dropped, below.dropped),
        ]
        .into_iter()
        .chain(own.map(|g| (g, 1)))
        {
            match group {
                Group::Open => self.open += n,
                Group::InProgress => self.in_progress += n,
                Group::Blocked => self.blocked += n,
                Group::Done => self.done += n,
                Group::Dropped => self.dropped += n,
            }
        }
        self.total = self.open + self.in_progress + self.blocked + self.done + self.dropped;
        let live = self.total - self.dropped;
        self.done_fraction = if live == 0 {
            1.0
        } else {
            (self.done as f64 / live as f64 * 1000.0).round() / 1000.0
        };
    }
}

/// A node of `tree`.
#[derive(Debug, Clone, Serialize)]
pub struct TreeNode {
    /// The item.
    #[serde(flatten)]
    pub item: Item,
    /// Its own state group.
    #[serde(skip)]
    pub group: Group,
    /// Counts over its descendants.
    pub rollup: Rollup,
    /// Its children: work (items with a state, and what holds them) first, then
    /// documents, then other items (stories, requirements, criteria); by id within each.
    pub children: Vec<TreeNode>,
    /// Descendants not shown (cut by a limit or a budget) whose nearest shown ancestor
    /// is this node; each left-out node is counted once, at one node.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Where a child goes among its siblings, and in what order a cut keeps nodes: work
/// first, then documents, then the other items.
fn place(n: &TreeNode) -> u8 {
    if n.item.state.is_some() || n.rollup.total > 0 || n.item.r#type.as_deref() == Some(crate::model::backlog::PHASE) {
        0
    } else if n.item.r#type.is_none() {
        1
    } else {
        2
    }
}

impl TreeNode {
    /// Indented text: one line per node with its state and, for parents, the roll-up.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        self.text_into(&mut s, 0);
        s
    }

    fn text_into(&self, s: &mut String, depth: usize) {
        use std::fmt::Write;
        let i = &self.item;
        let _ = write!(
            s,
            "{}{}  {}  {}  {}",
            "  ".repeat(depth),
            i.id,
            i.r#type.as_deref().unwrap_or("-"),
            i.state.as_deref().unwrap_or("-"),
            crate::text::render::one_line(&i.title)
        );
        if self.rollup.total > 0 {
            let r = &self.rollup;
            let _ = write!(
                s,
                "  [{}/{} done ({:.0} %): {} open, {} in progress, {} blocked, {} dropped]",
                r.done,
                r.total - r.dropped,
                r.done_fraction * 100.0,
                r.open,
                r.in_progress,
                r.blocked,
                r.dropped
            );
        }
        s.push('\n');
        for c in &self.children {
            c.text_into(s, depth + 1);
        }
        if self.more > 0 {
            let _ = writeln!(s, "{}… {} more not shown", "  ".repeat(depth + 1), self.more);
        }
    }

    /// A Mermaid flowchart of the tree, each node labelled with its state.
    pub fn to_mermaid(&self) -> String {
        let mut s = String::from("flowchart TD\n");
        let mut ids = BTreeMap::new();
        self.walk(&mut |n, parent| {
            let k = format!("n{}", ids.len());
            ids.insert(n.item.id.clone(), k.clone());
            let label = format!("{} · {}", n.item.id, n.item.state.as_deref().unwrap_or("-")).replace('"', "'");
            s.push_str(&format!("  {k}[\"{label}\"]\n"));
            if let Some(p) = parent.and_then(|p| ids.get(p)) {
                s.push_str(&format!("  {p} --> {k}\n"));
            }
        });
        s
    }

    /// A Graphviz digraph of the tree.
    pub fn to_dot(&self) -> String {
        let mut s = String::from("digraph tree {\n  rankdir=TB;\n");
        self.walk(&mut |n, parent| {
            let q = |x: &str| format!("\"{}\"", x.replace('\\', "\\\\").replace('"', "\\\""));
            let label = format!("{}\\n{}", n.item.id, n.item.state.as_deref().unwrap_or("-"));
            s.push_str(&format!(
                "  {} [label={}];\n",
                q(&n.item.id),
                q(&label).replace("\\\\n", "\\n")
            ));
            if let Some(p) = parent {
                s.push_str(&format!("  {} -> {};\n", q(p), q(&n.item.id)));
            }
        });
        s.push_str("}\n");
        s
    }

    fn walk(&self, f: &mut dyn FnMut(&TreeNode, Option<&str>)) {
        fn go(n: &TreeNode, parent: Option<&str>, f: &mut dyn FnMut(&TreeNode, Option<&str>)) {
            f(n, parent);
            for c in &n.children {
                go(c, Some(&n.item.id), f);
            }
        }
        go(self, None, f);
    }
}

/// The answer of `tree`.
#[derive(Debug, Clone, Serialize)]
pub struct TreeReport {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// The root with its descendants.
    pub root: TreeNode,
    /// Descendants not shown (a limit or a budget cut them; the roll-ups still count
    /// them).
    pub more: usize,
}

impl TreeReport {
    /// The report of a whole tree.
    pub fn new(root: TreeNode) -> TreeReport {
        TreeReport {
            schema: TREE_SCHEMA,
            root,
            more: 0,
        }
    }
}

/// One node of a tree as a cut sees it: how it ranks and its parent's place.
struct Flat {
    rank: (u8, usize),
    parent: Option<usize>,
}

impl crate::query::bound::Bounded for TreeReport {
    fn entries(&self) -> usize {
        fn size(n: &TreeNode) -> usize {
            1 + n.children.iter().map(size).sum::<usize>()
        }
        size(&self.root)
    }

    /// Keep `n` nodes (the root at least): unfinished work first, then finished work,
    /// documents and the other items, shallow before deep, each with its ancestors;
    /// shown in the tree's order.
    fn keep(&mut self, n: usize) {
        fn flatten(node: &TreeNode, depth: usize, parent: Option<usize>, out: &mut Vec<Flat>) {
            let tier = match place(node) {
                0 if node.item.state.is_some() && !node.group.is_closed() => 0,
                p => p + 1,
            };
            let me = out.len();
            out.push(Flat {
                rank: (tier, depth),
                parent,
            });
            for c in &node.children {
                flatten(c, depth + 1, Some(me), out);
            }
        }
        let mut flat = Vec::new();
        flatten(&self.root, 0, None, &mut flat);
        let mut kept = vec![false; flat.len()];
        kept[0] = true;
        let mut count = 1;
        let mut order: Vec<usize> = (1..flat.len()).collect();
        order.sort_by_key(|&i| (flat[i].rank, i));
        for i in order {
            let mut chain = Vec::new();
            let mut at = Some(i);
            while let Some(x) = at.filter(|&x| !kept[x]) {
                chain.push(x);
                at = flat[x].parent;
            }
            if count + chain.len() <= n {
                count += chain.len();
                for x in chain {
                    kept[x] = true;
                }
            }
        }
        /// Drop the children of `node` that are not kept, counting each dropped subtree
        /// at `node`; `next` is the place of the next node in the walk. Returns the
        /// count of descendants left out below `node`.
        fn prune(node: &mut TreeNode, next: &mut usize, kept: &[bool]) -> usize {
            let mut left_out = 0;
            for mut c in std::mem::take(&mut node.children) {
                let at = *next;
                *next += 1;
                let below = prune(&mut c, next, kept);
                if kept[at] {
                    left_out += below;
                    node.children.push(c);
                } else {
                    // Nothing below a node left out is kept (a kept node keeps its
                    // ancestors): its whole subtree is counted here.
                    node.more += 1 + below;
                    left_out += 1 + below;
                }
            }
            left_out
        }
        let mut next = 1;
        self.more += prune(&mut self.root, &mut next, &kept);
    }
}

impl<'a> Backlog<'a> {
    /// `id` with its descendants and a roll-up per node.
    pub fn tree(&self, id: &str) -> Option<TreeNode> {
        let mut seen = BTreeSet::new();
        self.subtree(id, &mut seen)
    }

    fn subtree<'s>(&'s self, id: &'s str, seen: &mut BTreeSet<&'s str>) -> Option<TreeNode> {
        let d = self.docs.get(id)?;
        if !seen.insert(id) {
            return None;
        }
        let mut kids: Vec<&str> = self.children.get(id).cloned().unwrap_or_default();
        kids.sort_by_cached_key(|k| natural(k));
        let mut children: Vec<TreeNode> = kids.into_iter().filter_map(|c| self.subtree(c, seen)).collect();
        // Work before documents and requirements (a stable sort keeps the id order).
        children.sort_by_key(place);
        let mut rollup = Rollup::default();
        for c in &children {
            // A document with no state (a spec's plan, a requirement) is no work of its
            // own, nor is a Spec Kit phase, whose state is its tasks' (`spec/order.rs`):
            // only the work below them counts.
            // Nor is an item without a state (a requirement, an acceptance criterion).
            // What counts is where each stands: an item held by an open blocker is
            // blocked whatever its state says (`Backlog::standing`).
            // (A path's group, `[states] paths`, is a state.)
            let stateless = c.item.state.is_none()
                && self.docs.get(c.item.id.as_str()).is_some_and(|d| {
                    d.node.kind == crate::model::Kind::Doc
                        || !matches!(d.rule, Some((_, super::states::PathState::Group(_))))
                });
            let grouping = stateless || c.item.r#type.as_deref() == Some(crate::model::backlog::PHASE);
            match grouping {
                true => rollup.add_below(&c.rollup),
                false => rollup.add(self.standing(&c.item.id).0, &c.rollup),
            }
        }
        Some(TreeNode {
            item: self.item(d),
            group: d.group,
            rollup,
            children,
            more: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{edges, item};
    use super::*;
    use crate::config::StateGroups;
    use crate::model::EdgeType;

    #[test]
    fn a_phase_counts_its_tasks_not_itself() {
        // Hackathon-II-Todo-Cli's 002-todo-cli showed 38/38 done for 29 tasks in 9 phases.
        let groups = StateGroups::default();
        let links = edges(&[
            ("P1", EdgeType::Parent, "F"),
            ("P2", EdgeType::Parent, "F"),
            ("T1", EdgeType::Parent, "P1"),
            ("T2", EdgeType::Parent, "P1"),
            ("T3", EdgeType::Parent, "P2"),
        ]);
        let phase = |id: &str, state: &str| crate::model::Node {
            r#type: Some(crate::model::backlog::PHASE.into()),
            ..item(id, state)
        };
        let nodes = vec![
            item("F", "To Do"),
            phase("P1", "Done"),
            phase("P2", "To Do"),
            item("T1", "Done"),
            item("T2", "Done"),
            item("T3", "To Do"),
        ];
        let b = Backlog::new(&nodes, &links, &groups);
        let root = b.tree("F").expect("F is a document");
        assert_eq!((root.rollup.done, root.rollup.total), (2, 3));
        assert_eq!((root.children[0].rollup.done, root.children[0].rollup.total), (2, 2));
    }

    #[test]
    fn rollups_count_every_descendant_by_group() {
        let groups = StateGroups::default();
        let links = edges(&[
            ("F1", EdgeType::Parent, "E"),
            ("F2", EdgeType::Parent, "E"),
            ("F3", EdgeType::Parent, "E"),
            ("T1", EdgeType::Parent, "F1"),
            ("T2", EdgeType::Parent, "F1"),
            ("T3", EdgeType::Parent, "F1"),
            ("T4", EdgeType::Parent, "F2"),
            ("T6", EdgeType::Parent, "F1"),
        ]);
        let nodes = vec![
            item("E", "To Do"),
            item("F1", "In Progress"),
            item("F2", "Done"),
            item("F3", "To Do"),
            item("T1", "Done"),
            item("T2", "Dropped"),
            item("T3", "Blocked"),
            item("T4", "Won't Do"),
            item("T6", "Done"),
        ];
        let b = Backlog::new(&nodes, &links, &groups);
        let root = b.tree("E").expect("E is a document");
        let kids: Vec<&str> = root.children.iter().map(|c| c.item.id.as_str()).collect();
        assert_eq!(kids, ["F1", "F2", "F3"]);
        let rollup = |open, in_progress, blocked, done, dropped, done_fraction| Rollup {
            open,
            in_progress,
            blocked,
            done,
            dropped,
            total: open + in_progress + blocked + done + dropped,
            done_fraction,
        };
        // Two done of three left to do (the dropped one does not count), rounded.
        assert_eq!(root.children[0].rollup, rollup(0, 0, 1, 2, 1, 0.667));
        // Nothing left to do: all done.
        assert_eq!(root.children[1].rollup, rollup(0, 0, 0, 0, 1, 1.0));
        // No descendants.
        assert_eq!(root.children[2].rollup, Rollup::default());
        // The children count with their own descendants.
        assert_eq!(root.rollup, rollup(1, 1, 1, 3, 2, 0.5));
        let first = root.to_text().lines().next().unwrap_or_default().to_string();
        assert_eq!(
            first,
            "E  -  To Do  E  [3/6 done (50 %): 1 open, 1 in progress, 1 blocked, 2 dropped]"
        );
    }

    #[test]
    fn a_parent_cycle_is_walked_once_and_no_document_has_no_tree() {
        let groups = StateGroups::default();
        let links = edges(&[("A", EdgeType::Parent, "B"), ("B", EdgeType::Parent, "A")]);
        let nodes = vec![item("A", "Done"), item("B", "To Do")];
        let b = Backlog::new(&nodes, &links, &groups);
        let root = b.tree("A").expect("A is a document");
        assert_eq!(root.children.len(), 1);
        assert!(root.children[0].children.is_empty());
        assert_eq!(root.rollup.total, 1);
        assert!(b.tree("nope").is_none());
    }
}
