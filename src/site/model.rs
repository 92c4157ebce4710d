//! The index as the site sees it: every document with its item (as `list` prints it), its
//! page, whether it is blocked, its sections and its edges both ways; the backlog that
//! `tree` and `ready` read, built once for all pages.

use crate::config::Config;
use crate::model::backlog::{Group, Item};
use crate::model::{Edge, EdgeType, Kind, Node};
use crate::query::backlog::{Backlog, Filter, ReadyReport};
use crate::store::apart::Apart;
use std::collections::{BTreeMap, HashMap};

/// One document of the backlog.
pub struct Doc<'a> {
    /// Its node.
    pub node: &'a Node,
    /// As `list` prints it (state group, parent).
    pub item: Item,
    /// Its page, from the site's root (`items/ID.html`).
    pub href: String,
    /// Blocked: its state says so, or an unfinished blocker holds it
    /// (`Backlog::standing`): on the board it is in the Blocked column.
    pub blocked: bool,
    /// Waiting for its turn: only the step before it in its sequence is unfinished.
    pub waiting: bool,
    /// Unfinished items it holds up directly, while it is unfinished itself.
    pub blocking: usize,
    /// The planning fields of its frontmatter: owner, labels, milestone, dates.
    pub plan: Plan,
    /// A digest of what another page shows of it: id, path, title, state, type, group,
    /// parent, priority, line and flags.
    pub digest: blake3::Hash,
}

impl<'a> Doc<'a> {
    /// The document `node` as `item`, with its flags.
    pub fn new(node: &'a Node, item: Item, blocked: bool, waiting: bool, blocking: usize) -> Doc<'a> {
        Doc {
            digest: summary(node, &item, blocked, waiting, blocking),
            plan: Plan::of(node),
            href: format!("items/{}.html", slug(&node.id)),
            node,
            blocked,
            waiting,
            blocking,
            item,
        }
    }

    /// Its state as written, or `-`.
    pub fn state(&self) -> &str {
        self.item.state.as_deref().unwrap_or("-")
    }

    /// Its column on the board, its group where the roll-ups count it: its state's
    /// group, or blocked when an unfinished blocker holds it.
    pub fn column(&self) -> Group {
        if self.blocked && !self.item.group.is_closed() {
            Group::Blocked
        } else {
            self.item.group
        }
    }

    /// Its type, else its kind's name.
    pub fn kind_label(&self) -> &str {
        self.item.r#type.as_deref().unwrap_or(self.node.kind.as_str())
    }
}

/// The frontmatter keys each planning field is read from, first found first: the names
/// Backlog.md, GitHub-style issue files, Jira exports and the fixtures use.
const OWNER: [&str; 7] = [
    "owner",
    "owners",
    "assignee",
    "assignees",
    "assigned_to",
    "assigned",
    "lead",
];
const LABELS: [&str; 3] = ["labels", "tags", "label"];
const MILESTONE: [&str; 4] = ["milestone", "iteration", "sprint", "release"];
const DUE: [&str; 4] = ["due", "due_date", "deadline", "target_date"];
const UPDATED: [&str; 5] = ["updated", "updated_date", "updated_at", "last_updated", "modified"];

/// What a team plans by, as the frontmatter writes it (`priority` is the item's own).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// Who owns it or is assigned to it.
    pub owner: Vec<String>,
    /// Its labels or tags.
    pub labels: Vec<String>,
    /// Its milestone, iteration or sprint.
    pub milestone: Option<String>,
    /// When it is due.
    pub due: Option<String>,
    /// When it was last updated.
    pub updated: Option<String>,
}

impl Plan {
    /// The fields of `node`'s frontmatter (none when it has none or it is not a map).
    pub fn of(node: &Node) -> Plan {
        let Some(map) = node
            .fields
            .as_deref()
            .and_then(|raw| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(raw.get()).ok())
        else {
            return Plan::default();
        };
        let values = |keys: &[&str]| -> Vec<String> {
            let found = keys
                .iter()
                .find_map(|k| map.iter().find(|(key, _)| key.eq_ignore_ascii_case(k)).map(|(_, v)| v));
            let text = |v: &serde_json::Value| match v {
                serde_json::Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
                serde_json::Value::Null | serde_json::Value::Object(_) | serde_json::Value::Array(_) => None,
                other => Some(other.to_string()),
            };
            match found {
                Some(serde_json::Value::Array(xs)) => xs.iter().filter_map(text).collect(),
                Some(v) => text(v).into_iter().collect(),
                None => Vec::new(),
            }
        };
        let first = |keys: &[&str]| values(keys).into_iter().next();
        Plan {
            owner: values(&OWNER),
            labels: values(&LABELS),
            milestone: first(&MILESTONE),
            due: first(&DUE),
            updated: first(&UPDATED),
        }
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        *self == Plan::default()
    }
}

/// The index read for the site.
pub struct Site<'a> {
    /// The index: documents, edges, diagnostics; sections as lines.
    pub index: &'a Apart,
    /// The backlog `list`, `ready` and `tree` answer from.
    pub backlog: Backlog<'a>,
    /// Documents by id.
    pub docs: BTreeMap<&'a str, Doc<'a>>,
    /// Document ids in `list`'s order.
    pub order: Vec<&'a str>,
    /// Edges between documents by source (a section's edge counts as its document's).
    pub out: ByDoc<'a>,
    /// The same by target.
    pub inc: ByDoc<'a>,
    /// What `ready` answers.
    pub ready: ReadyReport,
}

/// Edges by document.
type ByDoc<'a> = HashMap<&'a str, Vec<Link<'a>>>;

/// An edge between two documents.
#[derive(Clone, Copy)]
pub struct Link<'a> {
    /// Source document.
    pub source: &'a str,
    /// Target document.
    pub target: &'a str,
    /// The edge as written.
    pub edge: &'a Edge,
}

/// True for the edge types that block: (blocked, blocker) of an edge.
pub fn blocking_pair<'a>(source: &'a str, target: &'a str, t: EdgeType) -> Option<(&'a str, &'a str)> {
    match t {
        EdgeType::BlockedBy | EdgeType::DependsOn => Some((source, target)),
        EdgeType::Blocks => Some((target, source)),
        _ => None,
    }
}

impl<'a> Site<'a> {
    /// Read the graph once: documents, sections, edges by document, the backlog.
    pub fn new(config: &'a Config, index: &'a Apart) -> Site<'a> {
        let backlog = Backlog::new(&index.docs, &index.edges, &config.states);
        let items = backlog.list(&Filter::default());
        let by_id: HashMap<&str, &Node> = index.docs.iter().map(|n| (n.id.as_str(), n)).collect();
        let (out, inc) = by_doc(index, &by_id);
        let group: HashMap<&str, Group> = items.iter().map(|i| (i.id.as_str(), i.group)).collect();
        let mut holds: HashMap<&str, usize> = HashMap::new();
        for l in out.values().flatten() {
            if let Some((blocked, blocker)) = blocking_pair(l.source, l.target, l.edge.r#type) {
                let open = |id: &str| group.get(id).is_some_and(|g| !g.is_closed());
                if open(blocker) && open(blocked) {
                    *holds.entry(blocker).or_default() += 1;
                }
            }
        }
        let mut order = Vec::with_capacity(items.len());
        let mut docs = BTreeMap::new();
        for item in items {
            let Some(node) = by_id.get(item.id.as_str()).copied() else {
                continue;
            };
            let id = node.id.as_str();
            order.push(id);
            let open = !item.group.is_closed();
            let (standing, waiting) = backlog.standing(id);
            let blocked = standing == Group::Blocked;
            let blocking = if open { holds.get(id).copied().unwrap_or(0) } else { 0 };
            docs.insert(id, Doc::new(node, item, blocked, waiting, blocking));
        }
        let ready = backlog.ready();
        Site {
            index,
            backlog,
            docs,
            order,
            out,
            inc,
            ready,
        }
    }

    /// A part of the graph whose documents' items and flags are known from a whole
    /// one (`known`, by id: documents it does not know are left out). Its item pages
    /// and their digests are those of the whole graph for the documents whose edges
    /// it holds all of; its backlog and ready work are of the part only.
    pub fn partial(
        config: &'a Config,
        index: &'a Apart,
        known: impl Fn(&str) -> Option<(Item, bool, bool, usize)>,
    ) -> Site<'a> {
        let backlog = Backlog::new(&index.docs, &index.edges, &config.states);
        let mut docs = BTreeMap::new();
        for node in &index.docs {
            if let Some((item, blocked, waiting, blocking)) = known(&node.id) {
                docs.insert(node.id.as_str(), Doc::new(node, item, blocked, waiting, blocking));
            }
        }
        let by_id: HashMap<&str, &Node> = docs.values().map(|d| (d.node.id.as_str(), d.node)).collect();
        let (out, inc) = by_doc(index, &by_id);
        let ready = backlog.ready();
        Site {
            index,
            backlog,
            order: docs.keys().copied().collect(),
            docs,
            out,
            inc,
            ready,
        }
    }

    /// A digest of what the lists show: every document's id, title, type, state, group,
    /// parent, priority, path and flags, its frontmatter (owner, labels, an ADR's date), the parent, blocking and
    /// supersedes edges, the diagnostics, and the index settings.
    pub fn digest_all(&self) -> blake3::Hash {
        let mut h = blake3::Hasher::new();
        let put = |h: &mut blake3::Hasher, s: &str| {
            h.update(s.as_bytes());
            h.update(&[0]);
        };
        put(&mut h, &self.index.meta.config_digest);
        for d in self.order.iter().filter_map(|id| self.docs.get(id)) {
            h.update(d.digest.as_bytes());
            // The planning fields the lists show (an ADR's date among them), and a
            // decision's file (its body may give its date).
            put(&mut h, d.node.fields.as_deref().map_or("", |f| f.get()));
            if d.node.kind == Kind::Adr {
                put(&mut h, d.node.hash.as_deref().unwrap_or(""));
            }
        }
        for e in self.index.edges.iter().filter(|e| structural(e.r#type)) {
            for s in [&e.source, &e.target, e.r#type.as_str()] {
                put(&mut h, s);
            }
        }
        for d in &self.index.diagnostics {
            put(&mut h, &d.to_string());
        }
        h.finalize()
    }

    /// Every edge between documents that touches `id`: those it is the source of, then
    /// those it is the target of.
    pub fn links(&self, id: &str) -> impl Iterator<Item = &Link<'a>> {
        self.out
            .get(id)
            .into_iter()
            .flatten()
            .chain(self.inc.get(id).into_iter().flatten())
    }

    /// The sections of document `id`, in file order (decoded from their lines).
    pub fn sections(&self, id: &str) -> Vec<Node> {
        let mut v: Vec<Node> = self
            .index
            .section_lines(id)
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        v.sort_by_key(|c| (c.line.unwrap_or(0), c.level.unwrap_or(0)));
        v
    }

    /// The ancestors of `id` along parent fields, nearest first (each once: a parent
    /// cycle ends the walk).
    pub fn ancestors(&self, id: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        let mut cur = self.docs.get(id).and_then(|d| d.item.parent.as_deref());
        while let Some(p) = cur.filter(|p| *p != id && !out.contains(p)) {
            out.push(p);
            cur = self.docs.get(p).and_then(|d| d.item.parent.as_deref());
        }
        out
    }

    /// The work items, in `list`'s order.
    pub fn work_items(&self) -> impl Iterator<Item = &Doc<'a>> {
        self.order
            .iter()
            .filter_map(|id| self.docs.get(id))
            .filter(|d| d.node.kind == Kind::WorkItem)
    }

    /// The board's cards: the work items; in a backlog without any (a log of EIPs), the
    /// documents that have a state.
    pub fn board_items(&self) -> Vec<&Doc<'a>> {
        let work: Vec<&Doc> = self.work_items().collect();
        if !work.is_empty() {
            return work;
        }
        self.order
            .iter()
            .filter_map(|id| self.docs.get(id))
            .filter(|d| d.node.kind == Kind::Doc && d.item.state.is_some())
            .collect()
    }

    /// The items that get a dependency graph page: epics and features, and any document
    /// with children and no parent (a spec folder, a parent task of Backlog.md).
    pub fn containers(&self) -> Vec<&Doc<'a>> {
        self.order
            .iter()
            .filter_map(|id| self.docs.get(id))
            .filter(|d| self.is_container(d))
            .collect()
    }

    /// Whether `d` gets a graph page (see [`Site::containers`]).
    pub fn is_container(&self, d: &Doc) -> bool {
        let has_children = self.inc.get(d.node.id.as_str()).is_some_and(|ls| {
            ls.iter()
                .any(|l| l.edge.r#type == EdgeType::Parent && self.docs.contains_key(l.source))
        });
        is_epic_or_feature(d) || (has_children && d.item.parent.is_none())
    }

    /// The graph page an item page links to: its own, else its parent's (read from the
    /// item and its parent alone, so that an edit's short cut finds the same).
    pub fn graph_of(&self, d: &'_ Doc<'a>) -> Option<String> {
        if self.is_container(d) {
            return Some(format!("graphs/{}.html", slug(&d.node.id)));
        }
        let p = self.docs.get(d.item.parent.as_deref()?)?;
        self.is_container(p)
            .then(|| format!("graphs/{}.html", slug(&p.node.id)))
    }
}

/// Edges between the documents `by_id` by source and by target: a section's edge
/// (its id `DOC#slug`) is its document's; `section_of` edges and edges of a document
/// to itself are left out.
fn by_doc<'a>(index: &'a Apart, by_id: &HashMap<&str, &'a Node>) -> (ByDoc<'a>, ByDoc<'a>) {
    let doc_of = |id: &'a str| -> Option<&'a str> {
        let n = by_id
            .get(id)
            .or_else(|| id.rsplit_once('#').and_then(|(d, _)| by_id.get(d)))?;
        Some(n.id.as_str())
    };
    let (mut out, mut inc): (ByDoc, ByDoc) = Default::default();
    for e in index.edges.iter().filter(|e| e.r#type != EdgeType::SectionOf) {
        let (Some(s), Some(t)) = (doc_of(&e.source), doc_of(&e.target)) else {
            continue;
        };
        if s == t {
            continue;
        }
        let link = Link {
            source: s,
            target: t,
            edge: e,
        };
        out.entry(s).or_default().push(link);
        inc.entry(t).or_default().push(link);
    }
    (out, inc)
}

/// A digest of a document's record without its file's hash and its token count: what
/// every page but its own shows of it depends on this alone (with the edges).
pub fn record(node: &Node) -> blake3::Hash {
    let mut n = node.clone();
    n.hash = None;
    n.tokens = None;
    blake3::hash(&serde_json::to_vec(&n).unwrap_or_default())
}

/// The digest of what pages show of a document (see [`Doc::digest`]).
fn summary(node: &Node, i: &Item, blocked: bool, waiting: bool, blocking: usize) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    for s in [&node.id, &node.path, &i.title, node.kind.as_str(), i.group.as_str()] {
        h.update(s.as_bytes());
        h.update(&[0]);
    }
    for s in [&i.state, &i.r#type, &i.parent, &i.priority] {
        h.update(s.as_deref().unwrap_or("\u{1}").as_bytes());
        h.update(&[0]);
    }
    h.update(&node.line.unwrap_or(0).to_le_bytes());
    h.update(&[u8::from(blocked) + 2 * u8::from(waiting)]);
    h.update(&blocking.to_le_bytes());
    h.finalize()
}

/// The edges the lists read: parent, blocking and supersedes.
fn structural(t: EdgeType) -> bool {
    matches!(
        t,
        EdgeType::Parent
            | EdgeType::Blocks
            | EdgeType::BlockedBy
            | EdgeType::DependsOn
            | EdgeType::Supersedes
            | EdgeType::SupersededBy
    )
}

/// An Epic or a Feature by its type.
pub fn is_epic_or_feature(d: &Doc) -> bool {
    d.item
        .r#type
        .as_deref()
        .is_some_and(|t| t.eq_ignore_ascii_case("epic") || t.eq_ignore_ascii_case("feature"))
}

/// A file name for a node id: the id when it is made of letters, digits, `.`, `_` and
/// `-` only (and does not start with a dot); else those kept, the rest as `_`, and a
/// short hash of the id so that two ids never share a page.
pub fn slug(id: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if !id.is_empty() && !id.starts_with('.') && id.chars().all(plain) && id.len() <= 120 {
        return id.to_string();
    }
    let kept: String = id.chars().map(|c| if plain(c) { c } else { '_' }).take(80).collect();
    let hash = blake3::hash(id.as_bytes()).to_hex();
    format!("{}-{}", kept.trim_start_matches('.'), &hash[..10])
}

#[cfg(test)]
mod tests {
    use super::slug;

    #[test]
    fn slugs_keep_plain_ids_and_hash_the_rest() {
        assert_eq!(slug("QRY-TSK-0001"), "QRY-TSK-0001");
        let s = slug("003-chat/T012");
        assert!(
            s.starts_with("003-chat_T012-") && s.len() == "003-chat_T012-".len() + 10,
            "{s}"
        );
        assert_ne!(slug("a/b"), slug("a_b"));
        assert!(!slug("../../etc").contains('/'));
        assert!(!slug("..").starts_with('.'));
    }
}
