//! Tests: an edit's update of the mirror's `backlog` table (made again over the part of
//! the backlog the edit can change, or whole when that part is large) holds what a
//! rebuild of the edited graph holds, row for row, with the same cycles.

use super::fixture::{edges, item, with_priority};
use super::{materialize, materialize_docs};
use crate::config::StateGroups;
use crate::model::{Edge, EdgeType, Node};
use crate::store::mirror::{self, BacklogWay, DocEdit, Spec};
use crate::store::sidecar::Meta;
use rusqlite::types::Value;
use std::path::Path;

fn spec(groups: &StateGroups) -> Spec<'_> {
    Spec {
        fts: false,
        states: groups,
        backlog: materialize,
        backlog_docs: materialize_docs,
    }
}

/// The `backlog` table's rows by id, and the `cycles` meta value.
fn backlog(dir: &Path) -> (Vec<Vec<Value>>, String) {
    let conn = rusqlite::Connection::open(mirror::db_path(dir)).unwrap();
    let mut st = conn.prepare("SELECT * FROM backlog ORDER BY id").unwrap();
    let width = st.column_count();
    let rows = st
        .query_map([], |r| (0..width).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let cycles = conn
        .query_row("SELECT value FROM meta WHERE key = 'cycles'", [], |r| r.get(0))
        .unwrap();
    (rows, cycles)
}

/// The place in `ready`'s order of each ready row: (id, place).
fn places(rows: &[Vec<Value>]) -> Vec<(String, i64)> {
    rows.iter()
        .filter_map(|r| match (&r[0], &r[10]) {
            (Value::Text(id), Value::Integer(p)) => Some((id.clone(), *p)),
            _ => None,
        })
        .collect()
}

/// A backlog in a mirror, edited document by document as the edit short cut edits it.
struct Mirror {
    dir: tempfile::TempDir,
    groups: StateGroups,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// Edits so far (each has its own sidecar digest).
    n: usize,
}

impl Mirror {
    fn new(nodes: Vec<Node>, edges: Vec<Edge>) -> Mirror {
        let m = Mirror {
            dir: tempfile::tempdir().unwrap(),
            groups: StateGroups::default(),
            nodes,
            edges,
            n: 0,
        };
        mirror::rebuild(m.dir.path(), &Meta::default(), &m.nodes, &m.edges, &spec(&m.groups)).unwrap();
        m
    }

    /// Replace the document `id` and the backlog links from it, update the mirror in
    /// place, and check it against a rebuild. Returns how the table was made again.
    fn edit(&mut self, id: &str, node: Node, links: &[(EdgeType, &str)]) -> BacklogWay {
        let at = self.nodes.iter().position(|n| n.id == id).unwrap();
        self.nodes[at] = node;
        self.edges.retain(|e| e.source != id);
        let list: Vec<(&str, EdgeType, &str)> = links.iter().map(|&(t, target)| (id, t, target)).collect();
        self.edges.extend(edges(&list));
        self.edges
            .sort_by(|a, b| (&a.source, a.r#type, &a.target).cmp(&(&b.source, b.r#type, &b.target)));
        let doc = DocEdit {
            nodes: vec![self.nodes[at].clone()],
            edges: self.edges.iter().filter(|e| e.source == id).cloned().collect(),
        };
        let digest = |n: usize| match n {
            0 => mirror::sidecar_digest(&Meta::default().outputs),
            n => format!("edit {n}"),
        };
        let (old, new) = (digest(self.n), digest(self.n + 1));
        let spec = spec(&self.groups);
        let way = mirror::update_docs_by(self.dir.path(), (&old, &new), &[doc], true, &spec).expect("updated in place");
        self.n += 1;
        let rebuilt = tempfile::tempdir().unwrap();
        mirror::rebuild(rebuilt.path(), &Meta::default(), &self.nodes, &self.edges, &spec).unwrap();
        assert_eq!(
            backlog(self.dir.path()),
            backlog(rebuilt.path()),
            "after editing {id} ({way:?})"
        );
        way
    }

    fn node(&self, id: &str) -> Node {
        self.nodes.iter().find(|n| n.id == id).unwrap().clone()
    }
}

/// `features` features of five tasks each (`F3/T1` … `F3/T5`, each after the one
/// before), under their spec (`F3`), with priorities P0 to P2 by feature.
fn features(features: usize) -> (Vec<Node>, Vec<Edge>) {
    let mut nodes = Vec::new();
    let mut links: Vec<(String, EdgeType, String)> = Vec::new();
    for f in 1..=features {
        nodes.push(item(&format!("F{f}"), "In Progress"));
        for t in 1..=5 {
            let id = format!("F{f}/T{t}");
            nodes.push(with_priority(item(&id, "To Do"), &format!("P{}", f % 3)));
            links.push((id.clone(), EdgeType::Parent, format!("F{f}")));
            if t > 1 {
                links.push((id, EdgeType::DependsOn, format!("F{f}/T{}", t - 1)));
            }
        }
    }
    nodes.sort_by(|a, b| a.id.cmp(&b.id));
    let list: Vec<(&str, EdgeType, &str)> = links.iter().map(|(s, t, d)| (s.as_str(), *t, d.as_str())).collect();
    (nodes, edges(&list))
}

/// The links a task of `features` has: its parent and the task before it.
fn task_links(id: &str) -> Vec<(EdgeType, String)> {
    let (f, t) = id.split_once("/T").unwrap();
    let t: usize = t.parse().unwrap();
    let mut out = vec![(EdgeType::Parent, f.to_string())];
    if t > 1 {
        out.push((EdgeType::DependsOn, format!("{f}/T{}", t - 1)));
    }
    out
}

fn with_links<'a>(base: &'a [(EdgeType, String)], more: &[(EdgeType, &'a str)]) -> Vec<(EdgeType, &'a str)> {
    base.iter()
        .map(|(t, d)| (*t, d.as_str()))
        .chain(more.iter().copied())
        .collect()
}

#[test]
fn a_tick_makes_its_feature_again_and_moves_the_ready_items_after_it() {
    let (nodes, edges) = features(20);
    let mut m = Mirror::new(nodes, edges);
    let before = places(&backlog(m.dir.path()).0);
    // F3/T1 done: F3/T2 is ready in its place (same priority, same count unblocked).
    let done = item("F3/T1", "Done");
    let done = with_priority(done, "P0");
    let links = task_links("F3/T1");
    assert_eq!(m.edit("F3/T1", done, &with_links(&links, &[])), BacklogWay::Part);
    // F4/T2 done while F4/T1 is not: nothing ready changes but F4/T2's row.
    let links = task_links("F4/T2");
    assert_eq!(
        m.edit(
            "F4/T2",
            with_priority(item("F4/T2", "Done"), "P1"),
            &with_links(&links, &[])
        ),
        BacklogWay::Part
    );
    // F5/T1 first of all (P0 → critical does not move it; "P0" for a P2 feature does):
    // the ready items before its old place move down.
    let links = task_links("F5/T1");
    assert_eq!(
        m.edit(
            "F5/T1",
            with_priority(item("F5/T1", "To Do"), "P0"),
            &with_links(&links, &[])
        ),
        BacklogWay::Part
    );
    let after = places(&backlog(m.dir.path()).0);
    let moved = after
        .iter()
        .filter(|(id, p)| !id.starts_with("F5/") && before.iter().any(|(b, q)| b == id && q != p))
        .count();
    assert!(moved > 0, "ready items of other features moved: {before:?} → {after:?}");
}

#[test]
fn a_blocker_into_another_feature_makes_both_again() {
    let (nodes, edges) = features(20);
    let mut m = Mirror::new(nodes, edges);
    // F1/T1 waits on F2/T3: F1's tasks are held, F2's unblock more.
    let links = task_links("F1/T1");
    let node = m.node("F1/T1");
    let chained = with_links(&links, &[(EdgeType::BlockedBy, "F2/T3")]);
    assert_eq!(m.edit("F1/T1", node.clone(), &chained), BacklogWay::Part);
    // F2/T1 done: the chain into F1 is part of what changes.
    let links2 = task_links("F2/T1");
    let done = with_priority(item("F2/T1", "Done"), "P2");
    assert_eq!(m.edit("F2/T1", done, &with_links(&links2, &[])), BacklogWay::Part);
    // The link removed again: both features are made again, as the link tied them.
    assert_eq!(m.edit("F1/T1", node, &with_links(&links, &[])), BacklogWay::Part);
}

#[test]
fn a_blocker_cycle_made_and_broken_by_an_edit() {
    let (nodes, edges) = features(20);
    let mut m = Mirror::new(nodes, edges);
    let (c1, c2) = ("[]", r#"[["F4/T1","F4/T5","F4/T4","F4/T3","F4/T2"]]"#);
    assert_eq!(backlog(m.dir.path()).1, c1);
    let links = task_links("F4/T1");
    let node = m.node("F4/T1");
    let cycle = with_links(&links, &[(EdgeType::DependsOn, "F4/T5")]);
    assert_eq!(m.edit("F4/T1", node.clone(), &cycle), BacklogWay::Part);
    assert_eq!(backlog(m.dir.path()).1, c2);
    // A cycle elsewhere stays when another feature is edited.
    let links7 = task_links("F7/T1");
    assert_eq!(
        m.edit(
            "F7/T1",
            with_priority(item("F7/T1", "Done"), "P1"),
            &with_links(&links7, &[])
        ),
        BacklogWay::Part
    );
    assert_eq!(backlog(m.dir.path()).1, c2);
    assert_eq!(m.edit("F4/T1", node, &with_links(&links, &[])), BacklogWay::Part);
    assert_eq!(backlog(m.dir.path()).1, c1);
}

#[test]
fn a_part_past_an_eighth_of_the_documents_makes_the_whole_table() {
    let (nodes, edges) = features(20);
    let mut m = Mirror::new(nodes, edges);
    // F1 to F3 tied together: 18 of 120 documents, past 15.
    let links = task_links("F1/T1");
    let node = m.node("F1/T1");
    let tied = with_links(&links, &[(EdgeType::BlockedBy, "F2/T5"), (EdgeType::Blocks, "F3/T2")]);
    assert_eq!(m.edit("F1/T1", node.clone(), &tied), BacklogWay::Whole);
    // A tick in a feature of its own is a part again.
    let links5 = task_links("F5/T2");
    assert_eq!(
        m.edit(
            "F5/T2",
            with_priority(item("F5/T2", "In Progress"), "P2"),
            &with_links(&links5, &[])
        ),
        BacklogWay::Part
    );
    // Untied: the part before the edit was large, so is the one it starts from.
    assert_eq!(m.edit("F1/T1", node, &with_links(&links, &[])), BacklogWay::Whole);
}

/// Random edits (states, priorities, blockers to any task, which tie features together
/// and make cycles) on forty features: each update equals a rebuild, and most take the
/// part's way.
#[test]
fn random_edits_equal_rebuilds() {
    let (nodes, edges) = features(40);
    let mut m = Mirror::new(nodes, edges);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let states = ["To Do", "In Progress", "Done", "Blocked", "Dropped"];
    let mut parts = 0;
    for _ in 0..40 {
        let id = format!("F{}/T{}", 1 + next(40), 1 + next(5));
        let node = with_priority(item(&id, states[next(states.len())]), &format!("P{}", next(4)));
        let base = task_links(&id);
        let other = format!("F{}/T{}", 1 + next(40), 1 + next(5));
        let ty = [EdgeType::BlockedBy, EdgeType::Blocks, EdgeType::DependsOn][next(3)];
        let links = if next(3) == 0 {
            with_links(&base, &[(ty, other.as_str())])
        } else {
            with_links(&base, &[])
        };
        parts += usize::from(m.edit(&id, node, &links) == BacklogWay::Part);
    }
    assert!(parts > 20, "{parts} of 40 edits took the part's way");
}
