//! `ready`: the work that can start now, with the blocking rules (its own state, its
//! unfinished blockers, a blocked or waiting ancestor, a finished document it is written
//! in), what holds one item back (`holds`), and the blocker cycles.

use super::graph::{Backlog, Doc};
use super::order::ready_key;
use super::states::PathState;
use crate::model::backlog::{Group, Ready};
use crate::model::{Kind, Node};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

/// Version of the JSON shape of `ready`.
pub const READY_SCHEMA: &str = "mdgraph.ready/1";

/// What keeps an item from starting.
#[derive(Debug, Clone, Serialize)]
pub struct Hold {
    /// The item or blocker that holds it.
    pub id: String,
    /// Its state.
    pub state: Option<String>,
    /// In words.
    pub reason: String,
}

/// The answer of `ready`.
#[derive(Debug, Clone, Serialize)]
pub struct ReadyReport {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// Items ready.
    pub count: usize,
    /// Ready items, best first (all of them unless a limit or a budget cut the list).
    pub items: Vec<Ready>,
    /// Ready items not listed (`count` − the items listed).
    pub more: usize,
    /// Cycles among unfinished blockers (each from its smallest id).
    pub cycles: Vec<Vec<String>>,
}

/// Every ready item is work: the best first are kept.
impl crate::query::bound::Bounded for ReadyReport {
    fn entries(&self) -> usize {
        self.items.len()
    }

    fn keep(&mut self, n: usize) {
        self.more += self.items.len().saturating_sub(n);
        self.items.truncate(n);
    }
}

impl<'a> Backlog<'a> {
    /// Work that can be tracked: documents with a state, ADRs aside.
    fn is_work(&self, n: &Node) -> bool {
        n.state.is_some() && n.kind != Kind::Adr
    }

    /// Why `id` cannot start: its own group, its unfinished blockers, and those of its
    /// ancestors (a blocked parent blocks its children), and the document it is written
    /// in when that is done or dropped ([`Backlog::written_in`]). Empty when it can.
    pub fn holds(&self, id: &str) -> Vec<Hold> {
        let mut out = Vec::new();
        let Some(d) = self.docs.get(id) else { return out };
        let (n, g) = (d.node, d.group);
        if g.is_closed() || g == Group::Blocked {
            let reason = match d.rule {
                Some((glob, PathState::Group(_))) => format!("it is under {glob} ({})", g.as_str()),
                _ => format!("its state is {}", n.state.as_deref().unwrap_or("-")),
            };
            out.push(Hold {
                id: n.id.clone(),
                state: n.state.clone(),
                reason,
            });
            if g.is_closed() {
                return out;
            }
        }
        if let Some(file) = self.written_in(n.id.as_str()).filter(|f| f.group.is_closed()) {
            out.push(Hold {
                id: file.node.id.clone(),
                state: file.node.state.clone(),
                reason: format!(
                    "it is part of {}, which is {}",
                    file.node.id,
                    file.node.state.as_deref().unwrap_or(file.group.as_str())
                ),
            });
        }
        if let Some((glob, PathState::Draft)) = d.rule {
            out.push(Hold {
                id: n.id.clone(),
                state: n.state.clone(),
                reason: format!("it is a draft (under {glob})"),
            });
        }
        let mut cur = Some(n.id.as_str());
        let mut seen = BTreeSet::new();
        let mut depth = 0;
        while let Some(c) = cur.filter(|c| seen.insert(*c)) {
            for &b in self.blockers.get(c).into_iter().flatten() {
                if out.iter().any(|h: &Hold| h.id == b) {
                    continue;
                }
                let state = self.node(b).and_then(|x| x.state.clone());
                if !self.is_closed(b) {
                    let via = if depth == 0 {
                        String::new()
                    } else {
                        format!(" (blocks its ancestor {c})")
                    };
                    out.push(Hold {
                        id: b.to_string(),
                        state,
                        reason: format!(
                            "blocker {b} is {}{via}",
                            self.node(b).and_then(|x| x.state.as_deref()).unwrap_or("-")
                        ),
                    });
                }
            }
            if depth > 0
                && let Some(p) = self.docs.get(c)
                && p.group == Group::Blocked
            {
                out.push(Hold {
                    id: c.to_string(),
                    state: p.node.state.clone(),
                    reason: format!("its ancestor {c} is {}", p.node.state.as_deref().unwrap_or("-")),
                });
            }
            cur = self.parent.get(c).copied();
            depth += 1;
        }
        out
    }

    /// The document of the file `id` is written in, when `id` is an item inside it (a
    /// spec folder's box or task heading: its parents up to the file's own document share
    /// its path), else none. A story marked Done is finished with the boxes left open in
    /// it: they are no work to start (BMAD's rule, "the open subtasks of stories that are
    /// not Done"), while `list --state open` still shows each box's own state and `check`
    /// warns of them (`done-with-open-children`). A document of its own under a finished
    /// parent (a bug under a shipped feature, a task under an archived epic) is work of its
    /// own, and so is a box under a ticked box in a story still open (BMAD's dev agent
    /// takes up the first unticked box; Kiro offers an optional task under a done one).
    pub(super) fn written_in(&self, id: &str) -> Option<&Doc<'a>> {
        let path = self.docs.get(id)?.node.path.as_str();
        let mut file = None;
        // The chain walked so far: a parent cycle inside a file is walked once.
        let mut seen = vec![id];
        while let Some(p) = self.parent.get(seen[seen.len() - 1]).and_then(|p| self.docs.get(p)) {
            if p.node.path != path || seen.contains(&p.node.id.as_str()) {
                break;
            }
            file = Some(p);
            seen.push(p.node.id.as_str());
        }
        file
    }

    /// Whether `id` is an item written inside a document that is done or dropped (the
    /// open boxes of a finished story): no work left, whatever its own box says.
    pub fn in_finished_document(&self, id: &str) -> bool {
        self.written_in(id).is_some_and(|f| f.group.is_closed())
    }

    /// Every blocker of `id` finished (a blocker that is not a document counts as open).
    fn blockers_done(&self, id: &str) -> bool {
        self.blockers.get(id).into_iter().flatten().all(|b| self.is_closed(b))
    }

    /// For every parent (and its ancestors): does nothing up its parent chain hold its
    /// descendants (every blocker done, no ancestor blocked)? One pass, each chain walked
    /// once; a parent cycle is clear when all of its members are. This is
    /// [`Backlog::holds`] without the reasons, for all items at once. Only parents are
    /// asked about (an item's own blockers are read apart): the chains start there, a
    /// quarter of the documents of a generated backlog.
    fn clear_chains(&self) -> HashMap<&'a str, bool> {
        let own = |c: &str| self.blockers_done(c) && self.docs.get(c).is_none_or(|d| d.group != Group::Blocked);
        let mut memo: HashMap<&'a str, bool> = HashMap::with_capacity(self.children.len());
        let mut path: Vec<&'a str> = Vec::new();
        let mut on_path: HashMap<&'a str, usize> = HashMap::new();
        for &start in self.children.keys() {
            path.clear();
            on_path.clear();
            let mut cur = Some(start);
            let tail = loop {
                let Some(c) = cur else { break true };
                if let Some(&v) = memo.get(c) {
                    break v;
                }
                if let Some(&i) = on_path.get(c) {
                    let v = path[i..].iter().all(|x| own(x));
                    for x in path.drain(i..) {
                        memo.insert(x, v);
                    }
                    break v;
                }
                on_path.insert(c, path.len());
                path.push(c);
                cur = self.parent.get(c).copied();
            };
            let mut v = tail;
            for &x in path.iter().rev() {
                v = v && own(x);
                memo.insert(x, v);
            }
        }
        memo
    }

    /// Open or in-progress work whose blockers (and whose ancestors' blockers) are all
    /// done, not written in a finished document, by priority, then by how much other work
    /// each unblocks, then by id.
    pub fn ready(&self) -> ReadyReport {
        let clear = self.clear_chains();
        let mut items: Vec<Ready> = self
            .docs
            .values()
            .filter(|d| self.is_work(d.node) && matches!(d.group, Group::Open | Group::InProgress))
            .filter(|d| !matches!(d.rule, Some((_, PathState::Draft))))
            .filter(|d| !self.in_finished_document(d.node.id.as_str()))
            // A container whose work is in unfinished children is not itself startable
            // (optional ones aside: Kiro's `- [ ]* 2.1` need not be done before its parent).
            .filter(|d| {
                !self.children.get(d.node.id.as_str()).into_iter().flatten().any(|c| {
                    self.docs
                        .get(c)
                        .is_some_and(|x| !x.group.is_closed() && !is_optional(x.node))
                })
            })
            // What `holds` says, for all at once: own blockers done, the chain above clear.
            .filter(|d| {
                let id = d.node.id.as_str();
                self.blockers_done(id)
                    && self
                        .parent
                        .get(id)
                        .is_none_or(|p| clear.get(p).copied().unwrap_or(true))
            })
            .map(|d| {
                let n = d.node;
                let done: Vec<String> = self
                    .blockers
                    .get(n.id.as_str())
                    .into_iter()
                    .flatten()
                    .map(|b| format!("{b} ({})", self.node(b).and_then(|x| x.state.as_deref()).unwrap_or("-")))
                    .collect();
                let mut why = if done.is_empty() {
                    "no blockers".to_string()
                } else {
                    format!("blockers done: {}", done.join(", "))
                };
                if is_optional(n) {
                    why = format!("optional; {why}");
                }
                Ready {
                    unblocks: self.unblocks(&n.id),
                    item: self.item(d),
                    why,
                }
            })
            .collect();
        items.sort_by_cached_key(|r| ready_key(r.item.priority.as_deref(), r.unblocks, &r.item.id));
        let cycles = self.cycles();
        ReadyReport {
            schema: READY_SCHEMA,
            count: items.len(),
            items,
            more: 0,
            cycles,
        }
    }

    /// How many unfinished items wait on `id`, directly or through others.
    fn unblocks(&self, id: &str) -> usize {
        let mut seen = std::collections::HashSet::new();
        let mut frontier = vec![id];
        while let Some(c) = frontier.pop() {
            for &d in self.blocks.get(c).into_iter().flatten() {
                if self.docs.get(d).is_some_and(|x| !x.group.is_closed()) && seen.insert(d) {
                    frontier.push(d);
                }
            }
        }
        seen.len()
    }

    /// Cycles among the blockers of unfinished items, each listed once from its
    /// smallest id (reported, never looped on).
    pub fn cycles(&self) -> Vec<Vec<String>> {
        let open = |id: &str| self.docs.get(id).is_some_and(|d| !d.group.is_closed());
        let mut found: BTreeSet<Vec<String>> = BTreeSet::new();
        // Depth-first from each item, over unfinished blockers, bounded by the item count.
        for &start in self.blockers.keys().filter(|k| open(k)) {
            let mut stack: Vec<(&str, Vec<&str>)> = vec![(start, vec![start])];
            let mut visited = BTreeSet::new();
            while let Some((cur, path)) = stack.pop() {
                for &b in self.blockers.get(cur).into_iter().flatten() {
                    if !open(b) {
                        continue;
                    }
                    if b == start {
                        let mut cyc: Vec<String> = path.iter().map(|s| s.to_string()).collect();
                        let min = (0..cyc.len()).min_by(|&i, &j| cyc[i].cmp(&cyc[j])).unwrap_or(0);
                        cyc.rotate_left(min);
                        found.insert(cyc);
                    } else if visited.insert(b) {
                        let mut p = path.clone();
                        p.push(b);
                        stack.push((b, p));
                    }
                }
            }
        }
        found.into_iter().collect()
    }
}

/// [`Backlog::ready`] from the mirror's ready items (in its order) and its cycles.
pub fn ready_from_rows(items: Vec<Ready>, cycles: Vec<Vec<String>>) -> ReadyReport {
    ReadyReport {
        schema: READY_SCHEMA,
        count: items.len(),
        items,
        more: 0,
        cycles,
    }
}

/// Kiro's optional task (`- [ ]* 2.1`, `optional: true`): offered, and said so, but
/// never what its parent or the next task waits for.
fn is_optional(n: &Node) -> bool {
    n.field_values("optional").first().map(String::as_str) == Some("true")
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{edges, item, with_priority};
    use super::*;
    use crate::config::StateGroups;
    use crate::model::{Edge, EdgeType};

    fn ready_ids(b: &Backlog) -> Vec<String> {
        b.ready().items.into_iter().map(|r| r.item.id).collect()
    }

    #[test]
    fn a_blocker_holds_its_item_until_it_is_done() {
        let groups = StateGroups::default();
        let links = edges(&[("A", EdgeType::BlockedBy, "B")]);
        let nodes = vec![item("A", "To Do"), item("B", "In Progress")];
        let b = Backlog::new(&nodes, &links, &groups);
        let report = b.ready();
        assert_eq!(ready_ids(&b), ["B"]);
        assert_eq!(report.items[0].unblocks, 1);
        assert_eq!(report.items[0].why, "no blockers");
        let holds = b.holds("A");
        assert_eq!(holds.len(), 1);
        assert_eq!(
            (holds[0].id.as_str(), holds[0].reason.as_str()),
            ("B", "blocker B is In Progress")
        );

        let nodes = vec![item("A", "To Do"), item("B", "Done")];
        let b = Backlog::new(&nodes, &links, &groups);
        let report = b.ready();
        assert_eq!(ready_ids(&b), ["A"]);
        assert_eq!(report.items[0].why, "blockers done: B (Done)");
        assert!(b.holds("A").is_empty());
    }

    #[test]
    fn blocks_is_read_from_its_target_and_relates_never_blocks() {
        let groups = StateGroups::default();
        let links = edges(&[("X", EdgeType::Blocks, "Y"), ("Z", EdgeType::Relates, "X")]);
        let nodes = vec![item("X", "To Do"), item("Y", "To Do"), item("Z", "To Do")];
        let b = Backlog::new(&nodes, &links, &groups);
        // X first: it unblocks Y.
        assert_eq!(ready_ids(&b), ["X", "Z"]);
        assert_eq!(b.holds("Y")[0].id, "X");
        assert!(b.holds("Z").is_empty());
    }

    #[test]
    fn a_blocked_or_waiting_ancestor_holds_its_children() {
        let groups = StateGroups::default();
        let links = edges(&[
            ("C", EdgeType::Parent, "E"),
            ("D", EdgeType::Parent, "F"),
            ("F", EdgeType::DependsOn, "G"),
        ]);
        let nodes = vec![
            item("C", "To Do"),
            item("D", "To Do"),
            item("E", "Blocked"),
            item("F", "To Do"),
            item("G", "To Do"),
        ];
        let b = Backlog::new(&nodes, &links, &groups);
        // E is blocked itself, C under it; F waits on G and holds D; F is a container
        // of unfinished work.
        assert_eq!(ready_ids(&b), ["G"]);
        let reasons = |id: &str| b.holds(id).into_iter().map(|h| h.reason).collect::<Vec<_>>();
        assert_eq!(reasons("C"), ["its ancestor E is Blocked"]);
        assert_eq!(reasons("D"), ["blocker G is To Do (blocks its ancestor F)"]);
        assert_eq!(reasons("E"), ["its state is Blocked"]);
    }

    #[test]
    fn the_boxes_of_a_finished_story_are_no_work() {
        // HuskyDanny/HarshJudge: 228 of `ready`'s 293 tasks were unticked boxes of stories
        // whose Status is Done (`2.0/1 … [no blockers]`).
        let groups = StateGroups::default();
        let links = edges(&[
            ("S", EdgeType::Parent, "E"),
            ("S/1", EdgeType::Parent, "S"),
            ("S/1.1", EdgeType::Parent, "S/1"),
            ("T/1", EdgeType::Parent, "T"),
            ("T/2", EdgeType::Parent, "T"),
            ("T/2.1", EdgeType::Parent, "T/2"),
            ("U/1", EdgeType::Parent, "U"),
            ("BUG", EdgeType::Parent, "F"),
        ]);
        let in_file = |id: &str, state: &str, file: &str| Node {
            path: format!("{file}.md"),
            ..item(id, state)
        };
        let nodes = vec![
            item("S", "Done"),
            in_file("S/1", "open", "S"),
            in_file("S/1.1", "open", "S"),
            item("T", "Review"),
            in_file("T/1", "open", "T"),
            in_file("T/2", "done", "T"),
            in_file("T/2.1", "open", "T"),
            item("U", "Dropped"),
            in_file("U/1", "open", "U"),
            item("F", "Done"),
            item("BUG", "open"),
        ];
        let b = Backlog::new(&nodes, &links, &groups);
        // A done story's boxes at any depth and a dropped one's are left over; a story in
        // review keeps its open boxes, an open box under a ticked one too; a document of
        // its own under a shipped feature is work.
        assert_eq!(ready_ids(&b), ["BUG", "T/1", "T/2.1"]);
        let reasons = |id: &str| b.holds(id).into_iter().map(|h| h.reason).collect::<Vec<_>>();
        assert_eq!(reasons("S/1.1"), ["it is part of S, which is Done"]);
        assert_eq!(reasons("U/1"), ["it is part of U, which is Dropped"]);
        assert!(reasons("T/2.1").is_empty());
        assert!(reasons("BUG").is_empty());
        assert_eq!(b.written_in("S/1.1").map(|d| d.node.id.as_str()), Some("S"));
        assert!(b.written_in("S").is_none());
    }

    #[test]
    fn blocker_cycles_are_reported_once_and_hold_their_members() {
        let groups = StateGroups::default();
        let links = edges(&[
            ("P", EdgeType::BlockedBy, "Q"),
            ("Q", EdgeType::BlockedBy, "R"),
            ("R", EdgeType::BlockedBy, "P"),
        ]);
        let nodes = vec![
            item("P", "To Do"),
            item("Q", "To Do"),
            item("R", "To Do"),
            item("S", "To Do"),
        ];
        let b = Backlog::new(&nodes, &links, &groups);
        assert_eq!(b.cycles(), [["P", "Q", "R"]]);
        let report = b.ready();
        assert_eq!(report.cycles, b.cycles());
        assert_eq!(ready_ids(&b), ["S"]);
    }

    #[test]
    fn ready_orders_by_priority_then_unblocks_then_natural_id() {
        let groups = StateGroups::default();
        let links: Vec<Edge> = edges(&[("T-3", EdgeType::Blocks, "T-4")]);
        let nodes = vec![
            with_priority(item("T-1", "To Do"), "P2"),
            with_priority(item("T-10", "To Do"), "critical"),
            item("T-2", "To Do"),
            item("T-3", "To Do"),
            item("T-4", "To Do"),
            item("T-9", "In Progress"),
        ];
        let b = Backlog::new(&nodes, &links, &groups);
        assert_eq!(ready_ids(&b), ["T-10", "T-1", "T-3", "T-2", "T-9"]);
    }

    /// `ready` decides in one pass what `holds` says item by item: they agree on every
    /// item of a graph with parent cycles, blocker cycles, blocked ancestors, items written
    /// in finished documents and blockers that are not documents.
    #[test]
    fn ready_agrees_with_holds_item_by_item() {
        let states = ["To Do", "In Progress", "Blocked", "Done", "Dropped"];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..40 {
            let n = 6 + round % 20;
            let nodes: Vec<Node> = (0..n)
                .map(|i| Node {
                    id: format!("T-{i:02}"),
                    kind: Kind::WorkItem,
                    // Three documents a file: items written in another's file.
                    path: format!("t{}.md", i / 3),
                    title: Some(format!("t{i}")),
                    state: Some(states[next(5) as usize].to_string()),
                    ..Node::default()
                })
                .collect();
            let mut edges = Vec::new();
            for _ in 0..n * 2 {
                // Ids past the last node are edges to something that is no document.
                let (a, b) = (next(n + 2), next(n + 2));
                let r#type = [
                    EdgeType::Parent,
                    EdgeType::BlockedBy,
                    EdgeType::Blocks,
                    EdgeType::DependsOn,
                ][next(4) as usize];
                edges.push(Edge {
                    source: format!("T-{a:02}"),
                    target: format!("T-{b:02}"),
                    r#type,
                    origin: crate::model::Origin::Frontmatter,
                    path: String::new(),
                    line: 1,
                    weight: 1.0,
                });
            }
            edges.sort_by(|a, b| (&a.source, a.r#type, &a.target).cmp(&(&b.source, b.r#type, &b.target)));
            let groups = StateGroups::default();
            let b = Backlog::new(&nodes, &edges, &groups);
            let ready: BTreeSet<String> = b.ready().items.into_iter().map(|r| r.item.id).collect();
            let one_by_one: BTreeSet<String> = nodes
                .iter()
                .filter(|x| matches!(b.group(x), Group::Open | Group::InProgress))
                // Containers of unfinished documents are left out by both.
                .filter(|x| {
                    !b.children
                        .get(x.id.as_str())
                        .into_iter()
                        .flatten()
                        .any(|c| b.docs.get(c).is_some_and(|d| !d.group.is_closed()))
                })
                .filter(|x| b.holds(&x.id).is_empty())
                .map(|x| x.id.clone())
                .collect();
            assert_eq!(ready, one_by_one, "round {round}: {edges:?}");
        }
    }

    #[test]
    fn path_rules_decide_the_group_before_the_state() {
        let mut groups = StateGroups::default();
        groups.paths.insert("archive/**".into(), "dropped".into());
        groups.paths.insert("drafts/**".into(), "draft".into());
        let node = |id: &str, path: &str| Node {
            id: id.into(),
            kind: Kind::WorkItem,
            path: path.into(),
            state: Some("To Do".into()),
            ..Node::default()
        };
        let nodes = vec![
            node("A", "archive/tasks/a.md"),
            node("B", "tasks/b.md"),
            node("C", "drafts/c.md"),
        ];
        let b = Backlog::new(&nodes, &[], &groups);
        assert_eq!(b.group(&nodes[0]), Group::Dropped);
        assert_eq!(b.group(&nodes[1]), Group::Open);
        assert_eq!(b.group(&nodes[2]), Group::Open);
        let ready: Vec<String> = b.ready().items.into_iter().map(|r| r.item.id).collect();
        assert_eq!(ready, ["B"]);
    }
}
