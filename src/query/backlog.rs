//! The structured questions people ask a backlog: which items match these filters
//! ([`Backlog::list`]), what can be started now ([`Backlog::ready`]), and how far an
//! epic is ([`Backlog::tree`]).
//!
//! States fall into five groups ([`Group`]) by name, with the config's `[states]` lists
//! added to the built-in names. Blocking follows the graph: an item is blocked by the
//! targets of its `blocked_by` and `depends_on` edges and by the sources of `blocks`
//! edges pointing at it (the same relation read from both ends); `relates` never blocks.
//! A parent that is blocked, or waits on an unfinished blocker, blocks its children.

use crate::config::StateGroups;
use crate::model::backlog::{BacklogRow, BacklogTable, ListQuery};
pub use crate::model::backlog::{Group, Item, Ready};
use crate::model::{Edge, EdgeType, Kind, Node};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Version of the JSON shapes of `list`, `ready` and `tree`.
pub const LIST_SCHEMA: &str = "mdgraph.list/1";
/// See [`LIST_SCHEMA`].
pub const READY_SCHEMA: &str = "mdgraph.ready/1";
/// See [`LIST_SCHEMA`].
pub const TREE_SCHEMA: &str = "mdgraph.tree/1";

/// A state name folded for comparison: lowercase, without spaces, `-`, `_` and
/// apostrophes (`Won't Do` → `wontdo`).
fn fold(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '-' | '_' | '\'' | '’'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The group of a state, by the config's lists, then the built-in names.
pub fn group_of(state: Option<&str>, g: &StateGroups) -> Group {
    let Some(state) = state else { return Group::Open };
    let s = fold(state);
    let listed = [
        (Group::Done, &g.done),
        (Group::Dropped, &g.dropped),
        (Group::Blocked, &g.blocked),
        (Group::InProgress, &g.in_progress),
        (Group::Open, &g.open),
    ];
    if let Some((group, _)) = listed.iter().find(|(_, names)| names.iter().any(|n| fold(n) == s)) {
        return *group;
    }
    match s.as_str() {
        "done" | "closed" | "resolved" | "complete" | "completed" | "finished" | "final" | "merged" | "shipped"
        | "released" | "fixed" | "living" => Group::Done,
        "dropped" | "cancelled" | "canceled" | "wontdo" | "wontfix" | "rejected" | "withdrawn" | "obsolete"
        | "abandoned" | "duplicate" | "superseded" | "deprecated" | "stagnant" | "moved" => Group::Dropped,
        "blocked" | "onhold" | "waiting" | "paused" => Group::Blocked,
        "inprogress" | "doing" | "active" | "started" | "review" | "inreview" | "wip" | "testing" | "lastcall" => {
            Group::InProgress
        }
        _ => Group::Open,
    }
}

/// Filters of [`Backlog::list`]; empty filters match everything.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Types (case-insensitive; `adr` and `doc` name node kinds).
    pub types: Vec<String>,
    /// States or group names (`open`, `in_progress`, `blocked`, `done`, `dropped`).
    pub states: Vec<String>,
    /// `KEY=VALUE` on any frontmatter field (a list matches by member; case-insensitive).
    pub fields: Vec<(String, String)>,
    /// Items under this parent (direct children unless `deep`).
    pub parent: Option<String>,
    /// With `parent`: every descendant.
    pub deep: bool,
    /// Sort by this field (`id` by default; `priority`, `state`, `title`, `type`, or any
    /// frontmatter field).
    pub sort: Option<String>,
}

/// What `[states] paths` says of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathState {
    /// In this group whatever its state says.
    Group(Group),
    /// Its state's group, but never ready.
    Draft,
}

/// The compiled `[states] paths` globs, in sorted order (the first match wins).
struct PathRules<'a> {
    set: globset::GlobSet,
    rules: Vec<(&'a str, PathState)>,
}

impl<'a> PathRules<'a> {
    fn new(g: &'a StateGroups) -> PathRules<'a> {
        let mut b = globset::GlobSetBuilder::new();
        let mut rules = Vec::new();
        for (glob, name) in &g.paths {
            let state = match Group::from_name(name) {
                Some(x) => PathState::Group(x),
                None if name == "draft" => PathState::Draft,
                // Validated when the config was loaded.
                None => continue,
            };
            if let Ok(compiled) = globset::GlobBuilder::new(glob).literal_separator(false).build() {
                b.add(compiled);
                rules.push((glob.as_str(), state));
            }
        }
        PathRules {
            set: b.build().unwrap_or_else(|_| globset::GlobSet::empty()),
            rules,
        }
    }

    /// The first rule matching `path`.
    fn find(&self, path: &str) -> Option<(&'a str, PathState)> {
        if self.rules.is_empty() {
            return None;
        }
        self.set
            .matches(path)
            .into_iter()
            .min()
            .and_then(|i| self.rules.get(i).copied())
    }
}

/// A document as the backlog sees it.
struct Doc<'a> {
    node: &'a Node,
    /// Its state's group (or its path's, see `[states] paths`).
    group: Group,
    /// The glob that decided the group or made it a draft.
    rule: Option<(&'a str, PathState)>,
    priority: Option<String>,
}

/// The graph seen as a backlog: documents by id, parents, blockers.
pub struct Backlog<'a> {
    docs: BTreeMap<&'a str, Doc<'a>>,
    groups: &'a StateGroups,
    rules: PathRules<'a>,
    parent: HashMap<&'a str, &'a str>,
    children: HashMap<&'a str, Vec<&'a str>>,
    blockers: HashMap<&'a str, BTreeSet<&'a str>>,
    blocks: HashMap<&'a str, BTreeSet<&'a str>>,
}

impl<'a> Backlog<'a> {
    /// Read the backlog out of a graph's nodes and edges.
    pub fn new(nodes: &'a [Node], edges: &'a [Edge], groups: &'a StateGroups) -> Backlog<'a> {
        let links = edges.iter().map(|e| (e.source.as_str(), e.target.as_str(), e.r#type));
        Backlog::with_priorities(nodes, None, links, groups)
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

    fn node(&self, id: &str) -> Option<&'a Node> {
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
    fn group_by_id(&self, id: &str) -> Group {
        self.docs.get(id).map_or(Group::Open, |d| d.group)
    }

    fn is_closed(&self, id: &str) -> bool {
        self.group_by_id(id).is_closed()
    }

    /// Work that can be tracked: documents with a state, ADRs aside.
    fn is_work(&self, n: &Node) -> bool {
        n.state.is_some() && n.kind != Kind::Adr
    }

    fn item(&self, d: &Doc) -> Item {
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

    /// Descendants of `id` along parent edges, breadth first (each once).
    fn descendants(&self, id: &str, deep: bool) -> Vec<&'a str> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::from([id]);
        let mut frontier = vec![id];
        while let Some(cur) = frontier.pop() {
            for &c in self.children.get(cur).map(Vec::as_slice).unwrap_or_default() {
                if seen.insert(c) {
                    out.push(c);
                    if deep {
                        frontier.push(c);
                    }
                }
            }
        }
        out
    }

    /// Does `f` read frontmatter fields beyond the ones every document carries (a
    /// `--where`, or a sort on another field)? Documents read without their frontmatter
    /// ([`Backlog::with_priorities`]) cannot answer it.
    pub fn needs_fields(f: &Filter) -> bool {
        !f.fields.is_empty()
            || f.sort
                .as_deref()
                .is_some_and(|k| !["id", "title", "state", "type", "priority"].contains(&k.to_lowercase().as_str()))
    }

    /// The items matching `f`, sorted.
    pub fn list(&self, f: &Filter) -> Vec<Item> {
        let under: Option<BTreeSet<&str>> = f
            .parent
            .as_deref()
            .map(|p| self.descendants(p, f.deep).into_iter().collect());
        let types: Vec<String> = f.types.iter().map(|t| t.to_lowercase()).collect();
        let states: Vec<(String, &str)> = f.states.iter().map(|s| (fold(s), s.as_str())).collect();
        let out: Vec<(Option<&Node>, Item)> = self
            .docs
            .values()
            .filter(|d| under.as_ref().is_none_or(|u| u.contains(d.node.id.as_str())))
            .filter(|d| {
                types.is_empty()
                    || types.iter().zip(&f.types).any(|(lower, t)| {
                        d.node.r#type.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(t))
                            || d.node.kind.as_str() == lower
                    })
            })
            .filter(|d| {
                states.is_empty()
                    || states.iter().any(|(folded, s)| {
                        // The state as written; a group by its lowercase name (`in_progress`).
                        d.node.state.as_deref().is_some_and(|x| fold(x) == *folded) || d.group.as_str() == *s
                    })
            })
            .filter(|d| {
                f.fields
                    .iter()
                    .all(|(k, v)| field(d.node, k).iter().any(|x| x.eq_ignore_ascii_case(v)))
            })
            .map(|d| (Some(d.node), self.item(d)))
            .collect();
        sort_items(out, f)
    }

    /// Why `id` cannot start: its own group, its unfinished blockers, and those of its
    /// ancestors (a blocked parent blocks its children). Empty when it can.
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

    /// Every blocker of `id` finished (a blocker that is not a document counts as open).
    fn blockers_done(&self, id: &str) -> bool {
        self.blockers.get(id).into_iter().flatten().all(|b| self.is_closed(b))
    }

    /// For every document and ancestor: does nothing up its parent chain hold its
    /// descendants (every blocker done, no ancestor blocked)? One pass, each chain walked
    /// once; a parent cycle is clear when all of its members are. This is
    /// [`Backlog::holds`] without the reasons, for all items at once.
    fn clear_chains(&self) -> HashMap<&'a str, bool> {
        let own = |c: &str| self.blockers_done(c) && self.docs.get(c).is_none_or(|d| d.group != Group::Blocked);
        let mut memo: HashMap<&'a str, bool> = HashMap::with_capacity(self.docs.len());
        let mut path: Vec<&'a str> = Vec::new();
        let mut on_path: HashMap<&'a str, usize> = HashMap::new();
        for &start in self.docs.keys() {
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
    /// done, by priority, then by how much other work each unblocks, then by id.
    pub fn ready(&self) -> ReadyReport {
        let clear = self.clear_chains();
        let mut items: Vec<Ready> = self
            .docs
            .values()
            .filter(|d| self.is_work(d.node) && matches!(d.group, Group::Open | Group::InProgress))
            .filter(|d| !matches!(d.rule, Some((_, PathState::Draft))))
            // A container whose work is in unfinished children is not itself startable.
            .filter(|d| {
                !self
                    .children
                    .get(d.node.id.as_str())
                    .into_iter()
                    .flatten()
                    .any(|c| self.docs.get(c).is_some_and(|x| !x.group.is_closed()))
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
                let why = if done.is_empty() {
                    "no blockers".to_string()
                } else {
                    format!("blockers done: {}", done.join(", "))
                };
                Ready {
                    unblocks: self.unblocks(&n.id),
                    item: self.item(d),
                    why,
                }
            })
            .collect();
        items.sort_by_cached_key(|r| {
            (
                priority_rank(r.item.priority.as_deref()),
                std::cmp::Reverse(r.unblocks),
                natural(&r.item.id),
            )
        });
        let cycles = self.cycles();
        ReadyReport {
            schema: READY_SCHEMA,
            count: items.len(),
            items,
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
        let children: Vec<TreeNode> = kids.into_iter().filter_map(|c| self.subtree(c, seen)).collect();
        let mut rollup = Rollup::default();
        for c in &children {
            rollup.add(c.group, &c.rollup);
        }
        Some(TreeNode {
            item: self.item(d),
            group: d.group,
            rollup,
            children,
        })
    }
}

/// The items of `list` sorted as `f` asks; items in id order come out in id order
/// among equals. A sort on a frontmatter field reads it from the item's node.
fn sort_items(mut items: Vec<(Option<&Node>, Item)>, f: &Filter) -> Vec<Item> {
    // One key per item (a frontmatter field is parsed once, not per comparison).
    let key = f.sort.as_deref().unwrap_or("id").to_lowercase();
    items.sort_by_cached_key(|(n, i)| {
        let k: (u32, String) = match key.as_str() {
            "id" => (0, String::new()),
            "title" => (0, i.title.to_lowercase()),
            "state" => (i.group as u32, i.state.clone().unwrap_or_default().to_lowercase()),
            "type" => (0, i.r#type.clone().unwrap_or_default().to_lowercase()),
            "priority" => (priority_rank(i.priority.as_deref()), String::new()),
            other => match n.map(|n| field(n, other)).unwrap_or_default().into_iter().next() {
                Some(v) => (0, v.to_lowercase()),
                None => (1, String::new()),
            },
        };
        (k, natural(&i.id))
    });
    items.into_iter().map(|(_, i)| i).collect()
}

/// The query on the mirror's `backlog` table that answers `f`, when it can: not when
/// `f` reads other frontmatter fields ([`Backlog::needs_fields`]).
pub fn list_query(f: &Filter) -> Option<ListQuery<'_>> {
    if Backlog::needs_fields(f) {
        return None;
    }
    Some(ListQuery {
        types: f.types.iter().map(|t| (t.as_str(), t.to_lowercase())).collect(),
        states: f.states.iter().map(|s| (fold(s), s.as_str())).collect(),
        parent: f.parent.as_deref().map(|p| (p, f.deep)),
    })
}

/// [`Backlog::list`] from the items [`list_query`] selected (in id order).
pub fn list_from_rows(rows: Vec<Item>, f: &Filter) -> Vec<Item> {
    sort_items(rows.into_iter().map(|i| (None, i)).collect(), f)
}

/// [`Backlog::ready`] from the mirror's ready items (in its order) and its cycles.
pub fn ready_from_rows(items: Vec<Ready>, cycles: Vec<Vec<String>>) -> ReadyReport {
    ReadyReport {
        schema: READY_SCHEMA,
        count: items.len(),
        items,
        cycles,
    }
}

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
    let b = Backlog::with_priorities(nodes, Some(&priorities), links, groups);
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

/// A frontmatter field's values as text (a list gives its members).
pub fn field(n: &Node, key: &str) -> Vec<String> {
    n.field_values(key)
}

/// Rank of a priority value: P0/critical/highest first; none last.
fn priority_rank(p: Option<&str>) -> u32 {
    let Some(p) = p else { return 100 };
    let f = fold(p);
    if let Some(n) = f.strip_prefix('p').and_then(|d| d.parse::<u32>().ok()) {
        return n;
    }
    if let Ok(n) = f.parse::<u32>() {
        return n;
    }
    match f.as_str() {
        "critical" | "blocker" | "urgent" | "highest" => 0,
        "high" => 1,
        "medium" | "normal" => 2,
        "low" => 3,
        "lowest" | "trivial" => 4,
        _ => 50,
    }
}

/// Sort key that orders numbers in ids by value (`BACK-9` before `BACK-10`).
fn natural(id: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut num: Option<u64> = None;
    for c in id.chars() {
        if let Some(d) = c.to_digit(10) {
            num = Some(num.unwrap_or(0).saturating_mul(10).saturating_add(u64::from(d)));
        } else {
            if let Some(n) = num.take() {
                out.push((std::mem::take(&mut text), n));
            }
            text.extend(c.to_lowercase());
        }
    }
    out.push((text, num.unwrap_or(0)));
    out
}

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
    /// Ready items, best first.
    pub items: Vec<Ready>,
    /// Cycles among unfinished blockers (each from its smallest id).
    pub cycles: Vec<Vec<String>>,
}

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
    fn add(&mut self, g: Group, below: &Rollup) {
        for (group, n) in [
            (Group::Open, below.open),
            (Group::InProgress, below.in_progress),
            (Group::Blocked, below.blocked),
            (Group::Done, below.done),
            (Group::Dropped, below.dropped),
        ]
        .into_iter()
        .chain([(g, 1)])
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
    /// Its children, by id.
    pub children: Vec<TreeNode>,
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
}

/// The answer of `list`.
#[derive(Debug, Clone, Serialize)]
pub struct ListReport {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// Items listed.
    pub count: usize,
    /// The items.
    pub items: Vec<Item>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_by_name_and_config() {
        let g = StateGroups::default();
        assert_eq!(group_of(Some("In Progress"), &g), Group::InProgress);
        assert_eq!(group_of(Some("To Do"), &g), Group::Open);
        assert_eq!(group_of(Some("Won't Do"), &g), Group::Dropped);
        assert_eq!(group_of(Some("done"), &g), Group::Done);
        assert_eq!(group_of(None, &g), Group::Open);
        let g = StateGroups {
            done: vec!["Shipped to prod".into()],
            ..StateGroups::default()
        };
        assert_eq!(group_of(Some("shipped-to-prod"), &g), Group::Done);
    }

    /// `ready` decides in one pass what `holds` says item by item: they agree on every
    /// item of a graph with parent cycles, blocker cycles, blocked ancestors and blockers
    /// that are not documents.
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
                    path: format!("t{i}.md"),
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

    #[test]
    fn priorities_and_natural_order() {
        assert!(priority_rank(Some("P0")) < priority_rank(Some("P2")));
        assert!(priority_rank(Some("high")) < priority_rank(Some("low")));
        assert!(priority_rank(Some("low")) < priority_rank(None));
        assert!(natural("BACK-9") < natural("BACK-10"));
    }
}
