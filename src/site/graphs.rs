//! A dependency graph per epic or feature (`graphs/ID.html`): the item and its
//! descendants (the subtree `tree` walks) with the roll-up, their parent and blocking
//! edges, and the blockers from outside the subtree, drawn as a layered SVG.

use super::model::{Doc, Site, blocking_pair, slug};
use super::shell::{badge, entry, page, progress};
use super::svg::{self, GEdge, GNode, Style};
use crate::model::EdgeType;
use crate::query::backlog::TreeNode;
use std::collections::{BTreeMap, HashSet};

/// A container's graph: its members (the subtree first, then outside blockers) and
/// edges as (upper, lower, style).
pub struct Graph<'s, 'a> {
    /// The documents drawn, with whether each is outside the subtree.
    pub members: Vec<(&'s Doc<'a>, bool)>,
    /// Edges between members by index.
    pub edges: Vec<GEdge>,
}

/// The subtree of `root` with its blockers and edges.
pub fn graph<'s, 'a>(site: &'s Site<'a>, tree: &TreeNode) -> Graph<'s, 'a> {
    let mut members = Vec::new();
    let mut idx: BTreeMap<&str, usize> = BTreeMap::new();
    let mut stack = vec![tree];
    while let Some(t) = stack.pop() {
        if let Some((id, d)) = site.docs.get_key_value(t.item.id.as_str()) {
            idx.insert(id, members.len());
            members.push((d, false));
        }
        stack.extend(t.children.iter().rev());
    }
    let mut edges = Vec::new();
    let inside: Vec<&str> = idx.keys().copied().collect();
    for id in inside {
        for l in site.links(id) {
            let Some((blocked, blocker)) = blocking_pair(l.source, l.target, l.edge.r#type) else {
                continue;
            };
            // Only blockers from outside come in; each edge once (from its source).
            if l.source != id && idx.contains_key(l.source) {
                continue;
            }
            if !idx.contains_key(blocker)
                && blocked == id
                && let Some((bid, d)) = site.docs.get_key_value(blocker)
            {
                idx.insert(bid, members.len());
                members.push((d, true));
            }
            if let (Some(&a), Some(&b)) = (idx.get(blocker), idx.get(blocked)) {
                edges.push(GEdge {
                    from: a,
                    to: b,
                    style: Style::Blocks,
                });
            }
        }
        for l in site
            .out
            .get(id)
            .into_iter()
            .flatten()
            .filter(|l| l.edge.r#type == EdgeType::Parent)
        {
            if let (Some(&child), Some(&parent)) = (idx.get(l.source), idx.get(l.target)) {
                edges.push(GEdge {
                    from: parent,
                    to: child,
                    style: Style::Parent,
                });
            }
        }
    }
    edges.sort_by_key(|e| (e.from, e.to, e.style as u8));
    edges.dedup_by_key(|e| (e.from, e.to, e.style as u8));
    Graph { members, edges }
}

/// A digest of what the graph page of `root` shows: each document of its subtree (found
/// along parent edges, as `tree` walks them) and the ends of their blocking edges, as
/// other pages show them. Cheaper than the graph itself: no tree is built.
pub fn key(site: &Site, root: &Doc) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    let mut seen: HashSet<&str> = HashSet::from([root.node.id.as_str()]);
    let mut stack = vec![root.node.id.as_str()];
    while let Some(id) = stack.pop() {
        let Some(d) = site.docs.get(id) else { continue };
        h.update(d.digest.as_bytes());
        for l in site.inc.get(id).into_iter().flatten() {
            if l.edge.r#type == EdgeType::Parent && site.docs.contains_key(l.source) && seen.insert(l.source) {
                h.update(b"child");
                h.update(l.source.as_bytes());
                stack.push(l.source);
            }
        }
        for l in site.links(id) {
            if let Some((blocked, blocker)) = blocking_pair(l.source, l.target, l.edge.r#type) {
                for end in [blocked, blocker] {
                    h.update(end.as_bytes());
                    if let Some(x) = site.docs.get(end) {
                        h.update(x.digest.as_bytes());
                    }
                }
            }
        }
    }
    h.finalize()
}

/// The file of `root`'s graph page, from the site's root.
pub fn href(root: &Doc) -> String {
    format!("graphs/{}.html", slug(&root.node.id))
}

/// Most boxes a graph page draws: past them (an epic of a thousand items) the page
/// draws the subtree's first ones, nearest the root, and says how many it left out.
const MOST_DRAWN: usize = 300;

/// The graph page of `root`.
pub fn render(root: &Doc, tree: &TreeNode, g: &Graph) -> String {
    let drawn = g.members.len().min(MOST_DRAWN);
    let edges: Vec<GEdge> = g
        .edges
        .iter()
        .filter(|e| e.from < drawn && e.to < drawn)
        .map(|e| GEdge {
            from: e.from,
            to: e.to,
            style: e.style,
        })
        .collect();
    let nodes: Vec<GNode> = g
        .members
        .iter()
        .take(drawn)
        .map(|(d, outside)| GNode {
            doc: d,
            focus: std::ptr::eq(*d, root),
            outside: *outside,
        })
        .collect();
    let blocked: Vec<&Doc> = g
        .members
        .iter()
        .filter(|(d, _)| d.column() == crate::model::backlog::Group::Blocked)
        .map(|(d, _)| *d)
        .collect();
    let body = maud::html! {
        h1 { "Dependency graph: " bdi.id { (root.node.id) } " " bdi { (root.item.title) } }
        p.meta { (badge(root)) " " (progress(root, &tree.rollup)) " · " a href={ "../" (root.href) } { "item page" } }
        (svg::legend("⊘ blocked · ▲N holds up N open items · grey lines: parent → child · red: blocker → blocked · dashed box: from outside"))
        @if drawn < g.members.len() {
            p.more { "The first " (drawn) " of " (g.members.len()) " items are drawn; the board's parent filter shows them all." }
        }
        (svg::figure(&nodes, &edges, "../"))
        @if !blocked.is_empty() {
            h2 { "Blocked (" (blocked.len()) ")" }
            ul { @for d in blocked.iter().take(super::paged::IN_PLACE) { li { (entry(d, "../")) } } }
            @if blocked.len() > super::paged::IN_PLACE { p.more { "… and " (blocked.len() - super::paged::IN_PLACE) " more on the board." } }
        }
    };
    page(&format!("Graph {}", root.node.id), "../", "", body)
}
