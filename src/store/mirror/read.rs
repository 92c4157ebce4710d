//! The readers: the search corpus's statistics and the navigation pages, and what the
//! backlog questions read (documents, their links, the `backlog` table's rows).

use super::fresh::{Spec, current, db_path, meta_value, sidecar_digest};
use crate::model::backlog::{Group, Item, ListQuery, Ready};
use crate::model::{Edge, EdgeType, Kind, Node};
use crate::store::postings;
use crate::store::sidecar;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;

/// The ids of the navigation pages (from the partial index `nodes_nav`).
pub fn nav_ids(conn: &Connection) -> rusqlite::Result<std::collections::HashSet<String>> {
    let mut st = conn.prepare("SELECT id FROM nodes INDEXED BY nodes_nav WHERE nav <> 0")?;
    st.query_map([], |r| r.get(0))?.collect()
}

/// Read the row statistics stored by [`rebuild`](super::write::rebuild).
pub fn load_corpus(conn: &Connection) -> Result<postings::Corpus, String> {
    let mut st = conn
        .prepare("SELECT key, value FROM corpus")
        .map_err(|e| e.to_string())?;
    let mut rows = st.query([]).map_err(|e| e.to_string())?;
    let mut c = postings::Corpus::default();
    // Each value is read in place (no copy of the blob before it is decoded).
    while let Some(row) = rows.next().map_err(|e| e.to_string())? {
        let k = row
            .get_ref(0)
            .and_then(|k| Ok(k.as_str()?))
            .map_err(|e| e.to_string())?;
        let v = row
            .get_ref(1)
            .and_then(|v| Ok(v.as_blob()?))
            .map_err(|e| e.to_string())?;
        let damaged = || format!("damaged corpus `{k}`");
        let u32s = |v: &[u8]| postings::bytes_to_u32s(v).ok_or_else(damaged);
        match k {
            "row_len" => c.row_len = u32s(v)?,
            "row_doc" => c.row_doc = u32s(v)?,
            "row_name" => c.row_name = u32s(v)?,
            "row_rank" => c.row_rank = u32s(v)?,
            "names" => c.names = serde_json::from_slice(v).map_err(|e| format!("{}: {e}", damaged()))?,
            "docs" => c.docs = postings::Strings::from_bytes(v).ok_or_else(damaged)?,
            _ => {}
        }
    }
    let ranks = c.row_rank.is_empty() || c.row_rank.len() == c.row_len.len();
    if c.row_doc.len() != c.row_len.len() || c.row_name.len() != c.row_len.len() || !ranks {
        return Err("damaged corpus: row tables disagree".into());
    }
    c.holes = c.row_doc.iter().filter(|&&d| d == postings::HOLE).count();
    Ok(c)
}

/// The documents (no sections) and the edges of `types` from a mirror that mirrors the
/// current sidecar, for the backlog questions; None when there is no such mirror. With
/// `fields`, the documents are whole (their frontmatter too, parsed from each row's JSON);
/// without, they are read from the columns (id, kind, path, raw id, type, title, state),
/// and the priority of each is in [`Docs::priorities`].
pub fn load_docs(index_dir: &Path, types: &[EdgeType], spec: &Spec, fields: bool) -> Option<Docs> {
    docs_of(&open_current(index_dir, spec)?, types, fields)
}

/// The edge types the `backlog` table is made from.
pub const BACKLOG_TYPES: [EdgeType; 4] = [
    EdgeType::Parent,
    EdgeType::BlockedBy,
    EdgeType::Blocks,
    EdgeType::DependsOn,
];

/// [`load_docs`] from an open mirror.
pub(super) fn docs_of(conn: &Connection, types: &[EdgeType], fields: bool) -> Option<Docs> {
    let (nodes, priorities) = if fields {
        let mut st = conn
            .prepare("SELECT json FROM nodes WHERE kind <> 'chunk' ORDER BY id")
            .ok()?;
        let nodes: Vec<Node> = st
            .query_map([], |r| r.get::<_, String>(0))
            .ok()?
            .map(|j| j.ok().and_then(|j| serde_json::from_str(&j).ok()))
            .collect::<Option<_>>()?;
        (nodes, None)
    } else {
        // From the covering index, in id order, never the rows with their JSON.
        let mut st = conn
            .prepare(&format!(
                "SELECT {DOC_COLUMNS} FROM nodes INDEXED BY nodes_backlog WHERE kind <> 'chunk' ORDER BY id"
            ))
            .ok()?;
        let (nodes, priorities) = doc_columns(st.query([]).ok()?)?;
        (nodes, Some(priorities))
    };
    let list = type_list(types);
    // From the covering index, in (type, source, target) order: each source's parents
    // by target, as in the sidecar.
    let mut st = conn
        .prepare(&format!(
            "SELECT source, target, type FROM edges INDEXED BY edges_links WHERE type IN ({list}) \
             ORDER BY type, source, target"
        ))
        .ok()?;
    let mut rows = st.query([]).ok()?;
    let mut links = Vec::new();
    while let Some(r) = rows.next().ok()? {
        let text = |i: usize| r.get_ref(i).ok().and_then(|v| v.as_str().ok());
        links.push(Link {
            source: text(0)?.to_string(),
            target: text(1)?.to_string(),
            r#type: text(2)?.parse().ok()?,
        });
    }
    Some(Docs {
        nodes,
        links,
        priorities,
        elsewhere: Vec::new(),
    })
}

/// Edge types as an SQL list (`'parent','blocks'`).
pub(super) fn type_list(types: &[EdgeType]) -> String {
    let quoted: Vec<String> = types.iter().map(|t| format!("'{}'", t.as_str())).collect();
    quoted.join(",")
}

/// [`docs_of`] for some ids only (those that are documents, read without their
/// frontmatter), with their backlog `links` as the caller found them (sorted here as
/// `docs_of` reads them): one part of the backlog, which an edit's update of the
/// `backlog` table makes again.
pub(super) fn docs_among(
    conn: &Connection,
    ids: &std::collections::BTreeSet<String>,
    mut links: Vec<Link>,
) -> Option<Docs> {
    let mut st = conn
        .prepare(&format!(
            "SELECT {DOC_COLUMNS} FROM nodes INDEXED BY nodes_backlog WHERE id = ?1 AND kind <> 'chunk'"
        ))
        .ok()?;
    let (mut nodes, mut priorities) = (Vec::with_capacity(ids.len()), Vec::with_capacity(ids.len()));
    // In id order (a set of strings sorts as SQLite's binary collation does).
    for id in ids {
        doc_columns_into(st.query([id]).ok()?, &mut nodes, &mut priorities)?;
    }
    links.sort_by(|a, b| (a.r#type.as_str(), &a.source, &a.target).cmp(&(b.r#type.as_str(), &b.source, &b.target)));
    Some(Docs {
        nodes,
        links,
        priorities: Some(priorities),
        elsewhere: Vec::new(),
    })
}

/// The columns [`load_docs`] reads of each document (all in the `nodes_backlog` index).
const DOC_COLUMNS: &str = "id, kind, path, raw_id, type, title, state, priority";

/// The documents and edges the backlog questions read ([`load_docs`]).
#[derive(Debug, Default)]
pub struct Docs {
    /// The documents, by id.
    pub nodes: Vec<Node>,
    /// The edges asked for, each source's by type and target.
    pub links: Vec<Link>,
    /// Each document's `priority` field (its first value), in node order, when the
    /// documents were read without their frontmatter.
    pub priorities: Option<Vec<Option<String>>>,
    /// When these documents are one part of the backlog (an edit's update of the
    /// `backlog` table): the ready items of the rest, in `ready`'s order, among which the
    /// part's ready items are numbered. Empty otherwise.
    pub elsewhere: Vec<Ranked>,
}

/// A ready item as `ready`'s order reads it (the `backlog` table's columns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    /// Node id.
    pub id: String,
    /// Its priority.
    pub priority: Option<String>,
    /// Unfinished items waiting on it.
    pub unblocks: usize,
}

/// An edge as the backlog questions read it: its ends and type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// Source node id.
    pub source: String,
    /// Target node id.
    pub target: String,
    /// Edge type.
    pub r#type: EdgeType,
}

impl From<&Edge> for Link {
    fn from(e: &Edge) -> Link {
        Link {
            source: e.source.clone(),
            target: e.target.clone(),
            r#type: e.r#type,
        }
    }
}

/// The columns of documents ([`DOC_COLUMNS`]) as nodes without their frontmatter, and
/// each one's priority.
fn doc_columns(rows: rusqlite::Rows) -> Option<(Vec<Node>, Vec<Option<String>>)> {
    let (mut nodes, mut priorities) = (Vec::with_capacity(1024), Vec::with_capacity(1024));
    doc_columns_into(rows, &mut nodes, &mut priorities)?;
    Some((nodes, priorities))
}

/// [`doc_columns`] appended to `nodes` and `priorities`.
fn doc_columns_into(
    mut rows: rusqlite::Rows,
    nodes: &mut Vec<Node>,
    priorities: &mut Vec<Option<String>>,
) -> Option<()> {
    while let Some(r) = rows.next().ok()? {
        let text = |i: usize| r.get::<_, String>(i).ok();
        let opt = |i: usize| r.get::<_, Option<String>>(i).ok();
        let kind = text(1)?;
        nodes.push(Node {
            id: text(0)?,
            kind: [Kind::WorkItem, Kind::Adr, Kind::Doc, Kind::Chunk]
                .into_iter()
                .find(|k| k.as_str() == kind)?,
            path: text(2)?,
            raw_id: opt(3)?,
            r#type: opt(4)?,
            title: Some(text(5)?),
            state: opt(6)?,
            ..Node::default()
        });
        priorities.push(opt(7)?);
    }
    Some(())
}

/// The mirror opened read-only, when it mirrors the current sidecar as `spec` asks.
fn open_current(index_dir: &Path, spec: &Spec) -> Option<Connection> {
    let head = sidecar::read_meta_head(index_dir)?;
    // One thread reads: no SQLite mutex taken per column read.
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(db_path(index_dir), flags).ok()?;
    // An edit commits in place (`update_docs`): wait out its commit.
    let _ = conn.busy_timeout(std::time::Duration::from_secs(2));
    current(&conn, &sidecar_digest(&head.outputs), spec).then_some(conn)
}

/// The columns of an [`Item`] (the `backlog` table's).
const ITEM_COLUMNS: &str = "id, path, title, type, state, grp, parent, priority";

/// What `more` makes of each row's [`Item`] (of [`ITEM_COLUMNS`]) and the row (for the
/// columns after those); None when a row is damaged.
fn items<T>(mut rows: rusqlite::Rows, more: impl Fn(Item, &rusqlite::Row) -> Option<T>) -> Option<Vec<T>> {
    let mut out = Vec::new();
    while let Some(r) = rows.next().ok()? {
        let text = |i: usize| r.get::<_, String>(i).ok();
        let opt = |i: usize| r.get::<_, Option<String>>(i).ok();
        let item = Item {
            id: text(0)?,
            path: text(1)?,
            title: text(2)?,
            r#type: opt(3)?,
            state: opt(4)?,
            group: Group::from_name(&text(5)?)?,
            parent: opt(6)?,
            priority: opt(7)?,
        };
        out.push(more(item, r)?);
    }
    Some(out)
}

/// `ready`'s items in its order and its blocker cycles, as the `backlog` table holds
/// them; None without a mirror of the current sidecar made as `spec` asks.
pub fn load_ready(index_dir: &Path, spec: &Spec) -> Option<(Vec<Ready>, Vec<Vec<String>>)> {
    let conn = open_current(index_dir, spec)?;
    let cycles = serde_json::from_str(&meta_value(&conn, "cycles")?).ok()?;
    let mut st = conn
        .prepare(&format!(
            "SELECT {ITEM_COLUMNS}, unblocks, why FROM backlog WHERE ready IS NOT NULL ORDER BY ready"
        ))
        .ok()?;
    let ready = items(st.query([]).ok()?, |item, r| {
        Some(Ready {
            item,
            unblocks: r.get::<_, i64>(8).ok()? as usize,
            why: r.get(9).ok()?,
        })
    })?;
    Some((ready, cycles))
}

/// Is `id` a document's id? False too without a mirror of the current sidecar made as
/// `spec` asks.
pub fn is_document(index_dir: &Path, spec: &Spec, id: &str) -> bool {
    open_current(index_dir, spec).is_some_and(|conn| {
        conn.query_row("SELECT 1 FROM nodes WHERE id = ?1", [id], |_| Ok(()))
            .is_ok()
    })
}

/// The documents matching `q`, in id order; None without a mirror of the current
/// sidecar made as `spec` asks.
pub fn load_list(index_dir: &Path, spec: &Spec, q: &ListQuery) -> Option<Vec<Item>> {
    use rusqlite::types::Value;
    let conn = open_current(index_dir, spec)?;
    let mut values: Vec<Value> = Vec::new();
    let mut arg = |v: &str| {
        values.push(Value::Text(v.to_string()));
        format!("?{}", values.len())
    };
    let mut with = String::new();
    let mut clauses = Vec::new();
    // A filter given several values matches any of them.
    let any = |parts: Vec<String>| (!parts.is_empty()).then(|| format!("({})", parts.join(" OR ")));
    let types = q.types.iter();
    let types = types.map(|(t, lower)| format!("type = {} COLLATE NOCASE OR kind = {}", arg(t), arg(lower)));
    clauses.extend(any(types.collect()));
    let states = q.states.iter();
    let states = states.map(|(folded, s)| format!("folded = {} OR grp = {}", arg(folded), arg(s)));
    clauses.extend(any(states.collect()));
    if let Some((parent, deep)) = q.parent {
        let p = arg(parent);
        let children =
            format!("SELECT source FROM edges INDEXED BY edges_target WHERE type = 'parent' AND target = {p}");
        let under = if deep {
            // Breadth first over parent edges; UNION visits each node once, cycles too.
            with = format!(
                "WITH RECURSIVE under(id) AS ({children} UNION \
                 SELECT e.source FROM under u JOIN edges e INDEXED BY edges_target ON e.target = u.id WHERE e.type = 'parent') "
            );
            "SELECT id FROM under".to_string()
        } else {
            children
        };
        clauses.push(format!("id IN ({under}) AND id <> {p}"));
    }
    let filter = if clauses.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", clauses.join(" AND "))
    };
    let mut st = conn
        .prepare(&format!("{with}SELECT {ITEM_COLUMNS} FROM backlog{filter} ORDER BY id"))
        .ok()?;
    items(st.query(rusqlite::params_from_iter(values)).ok()?, |item, _| Some(item))
}

/// The document `root` and its descendants along parent edges (by id, without their
/// frontmatter) with the parent edges from each, for `tree`; None when `root` is no
/// document's id or without a mirror of the current sidecar made as `spec` asks.
pub fn load_subtree(index_dir: &Path, spec: &Spec, root: &str) -> Option<Docs> {
    let conn = open_current(index_dir, spec)?;
    let under = "WITH RECURSIVE under(id) AS (SELECT id FROM nodes WHERE id = ?1 UNION \
                 SELECT e.source FROM under u JOIN edges e INDEXED BY edges_target ON e.target = u.id WHERE e.type = 'parent') ";
    let mut st = conn
        .prepare(&format!(
            "{under}SELECT {DOC_COLUMNS} FROM nodes WHERE id IN (SELECT id FROM under) ORDER BY id"
        ))
        .ok()?;
    let (nodes, priorities) = doc_columns(st.query([root]).ok()?)?;
    if nodes.is_empty() {
        return None;
    }
    // Each source's parents by target, as `load_docs` reads them.
    let mut st = conn
        .prepare(&format!(
            "{under}SELECT source, target FROM edges WHERE type = 'parent' \
             AND source IN (SELECT id FROM under) ORDER BY source, target"
        ))
        .ok()?;
    let mut rows = st.query([root]).ok()?;
    let mut links = Vec::new();
    while let Some(r) = rows.next().ok()? {
        links.push(Link {
            source: r.get(0).ok()?,
            target: r.get(1).ok()?,
            r#type: EdgeType::Parent,
        });
    }
    // The blocking edges of the subtree's items, and the blockers from outside it, so
    // that what `tree` counts blocked is what the whole graph says (`standing`).
    let mut st = conn
        .prepare(&format!(
            "{under}SELECT source, target, type FROM edges WHERE \
             (type IN ('blocked_by', 'depends_on') AND source IN (SELECT id FROM under)) \
             OR (type = 'blocks' AND target IN (SELECT id FROM under)) ORDER BY source, target, type"
        ))
        .ok()?;
    let mut rows = st.query([root]).ok()?;
    let mut outside: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let inside: std::collections::HashSet<String> = nodes.iter().map(|n| n.id.clone()).collect();
    while let Some(r) = rows.next().ok()? {
        let link = Link {
            source: r.get(0).ok()?,
            target: r.get(1).ok()?,
            r#type: r.get::<_, String>(2).ok()?.parse().ok()?,
        };
        let blocker = if link.r#type == EdgeType::Blocks {
            &link.source
        } else {
            &link.target
        };
        if !inside.contains(blocker) {
            outside.insert(blocker.clone());
        }
        links.push(link);
    }
    let (mut nodes, mut priorities) = (nodes, priorities);
    let mut st = conn
        .prepare(&format!("SELECT {DOC_COLUMNS} FROM nodes WHERE id = ?1"))
        .ok()?;
    for id in &outside {
        doc_columns_into(st.query([id]).ok()?, &mut nodes, &mut priorities)?;
    }
    Some(Docs {
        nodes,
        links,
        priorities: Some(priorities),
        elsewhere: Vec::new(),
    })
}
