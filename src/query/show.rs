//! Show: one node with its sections and its incoming and outgoing edges.

use crate::error::Error;
use crate::model::{EdgeType, Kind, Node, Origin};
use crate::store::sidecar::Loaded;
use crate::text::ids::{self, Form};
use serde::Serialize;
use std::collections::BTreeMap;

/// An edge as seen from the shown node.
#[derive(Debug, Clone, Serialize)]
pub struct EdgeView {
    /// Edge type.
    pub r#type: EdgeType,
    /// The node at the other end.
    pub id: String,
    /// Its kind.
    pub kind: Kind,
    /// Its title.
    pub title: String,
    /// Where the edge was written.
    pub origin: Origin,
    /// The file it was written in.
    pub path: String,
    /// The line it was written on.
    pub line: u32,
}

/// A section of the shown document.
#[derive(Debug, Clone, Serialize)]
pub struct SectionView {
    /// Chunk node id.
    pub id: String,
    /// Heading.
    pub heading: String,
    /// Heading level.
    pub level: u8,
    /// Line.
    pub line: u32,
}

/// A node with its neighbourhood.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// The node.
    pub node: Node,
    /// Its sections (documents only).
    pub sections: Vec<SectionView>,
    /// Edges from it (section edges left out).
    pub outgoing: Vec<EdgeView>,
    /// Edges to it (section edges left out).
    pub incoming: Vec<EdgeView>,
}

/// Find a node by node id, then case-insensitively by id or raw id, then by path (as
/// written from the backlog root, from a folder above it, or a file name alone), then
/// by the ways people type ids (other separators, a prefix alias, the number of the
/// id's own family), then by file name. `ID@fragment` narrows an id to the document
/// whose path or uid holds the fragment. A typed id never names a document of another
/// family: `epic-6` is not `task-6`.
pub fn find<'a>(nodes: &'a [Node], query: &str, aliases: &BTreeMap<String, String>) -> Result<&'a Node, Error> {
    if let Ok(i) = nodes.binary_search_by(|n| n.id.as_str().cmp(query)) {
        return Ok(&nodes[i]);
    }
    let q = query.trim().trim_start_matches("./");
    let docs = || nodes.iter().filter(|n| !n.is_chunk());
    let all: Vec<&Node> = docs().collect();
    // A scope written beside a local id (`billing 2.1`, `003/T012`, `T012@chat`) names
    // that scope's item, before a word and a number typed apart name the document whose
    // id is the number (`billing 2.1` is no BMAD story 2.1).
    let scoped = q.contains([' ', '/', '@']);
    if scoped && let Some(found) = by_scope(&all, q) {
        return one_of(query, found);
    }
    if let Some(found) = by_id(&all, q, aliases) {
        return one_of(query, found);
    }
    if !scoped && let Some(found) = by_scope(&all, q) {
        return one_of(query, found);
    }
    // Paths as people paste them: a path names its file's own document, not the items
    // written inside it (a spec folder's tasks share their file's path).
    let by_path: Vec<&Node> = all
        .iter()
        .copied()
        .filter(|n| !n.inline && path_names(q, &n.path))
        .collect();
    if !by_path.is_empty() {
        return one_of(query, by_path);
    }
    // `ID@fragment`: the id's documents whose path or uid holds the fragment.
    if let Some((id, fragment)) = q.rsplit_once('@')
        && !id.is_empty()
        && !fragment.is_empty()
        && let Some(found) = by_id(&all, id, aliases)
    {
        let f = fragment.to_lowercase();
        let narrowed: Vec<&Node> = found
            .iter()
            .copied()
            .filter(|n| {
                n.path.to_lowercase().contains(&f) || n.uid.as_deref().is_some_and(|u| u.to_lowercase().starts_with(&f))
            })
            .collect();
        if narrowed.is_empty() {
            return Err(Error::NotFound {
                query: query.to_string(),
                close: found.iter().map(|n| n.id.clone()).collect(),
            });
        }
        return one_of(query, narrowed);
    }
    // A file name without its extension, or the id part of `ID - Title.md`.
    for form in ids::forms(q, aliases) {
        if let Form::Id(k) = form {
            let hits: Vec<&Node> = all
                .iter()
                .copied()
                .filter(|n| {
                    let stem = crate::text::path::file_stem(&n.path).to_lowercase();
                    stem == k || stem.split(" - ").next() == Some(k.as_str())
                })
                .collect();
            if !hits.is_empty() {
                return one_of(query, hits);
            }
        }
    }
    Err(Error::NotFound {
        query: query.to_string(),
        close: closest(q, &all, aliases),
    })
}

/// The documents an id names: its node id or raw id in any case, then its typed
/// readings (separators, prefix alias), then its number within its own family (or a
/// document whose id is that bare number, as EIPs are). `None` when nothing matches.
fn by_id<'a>(docs: &[&'a Node], q: &str, aliases: &BTreeMap<String, String>) -> Option<Vec<&'a Node>> {
    let some = |v: Vec<&'a Node>| (!v.is_empty()).then_some(v);
    let raw = |n: &Node| n.raw_id.as_deref().unwrap_or(&n.id).to_string();
    if let Some(v) = some(
        docs.iter()
            .copied()
            .filter(|n| n.id.eq_ignore_ascii_case(q) || n.raw_id.as_deref().is_some_and(|r| r.eq_ignore_ascii_case(q)))
            .collect(),
    ) {
        return Some(v);
    }
    let forms = ids::forms(q, aliases);
    for form in &forms {
        if let Form::Id(k) = form
            && let Some(v) = some(
                docs.iter()
                    .copied()
                    .filter(|n| n.id.to_lowercase() == *k || raw(n).to_lowercase() == *k)
                    .collect(),
            )
        {
            return Some(v);
        }
    }
    let typed = ids::unify(q);
    let family = ids::family(&typed).unwrap_or_default();
    for form in &forms {
        if let Form::Number(num) = form {
            // The document whose id is the number, else those of the typed family
            // (or of any family, for a bare number) whose id ends with it.
            if let Some(v) = some(docs.iter().copied().filter(|n| n.id.to_lowercase() == *num).collect()) {
                return Some(v);
            }
            if let Some(v) = some(
                docs.iter()
                    .copied()
                    .filter(|n| ids::number_names(&family, num, &raw(n), aliases))
                    .collect(),
            ) {
                return Some(v);
            }
        }
    }
    None
}

/// Spec-folder items by their id inside their scope (`T012` is `003-chat/T012`): the
/// local id alone names the items of every scope; `003/T012`, `003 T012` and
/// `T012@chat` those of the scopes whose name holds `003` or `chat`.
fn by_scope<'a>(docs: &[&'a Node], q: &str) -> Option<Vec<&'a Node>> {
    let (scope, local) = match q.rsplit_once('@') {
        Some((local, scope)) => (scope, local),
        None => match q.rsplit_once('/').or_else(|| q.trim().rsplit_once(' ')) {
            Some((scope, local)) => (scope, local),
            None => ("", q),
        },
    };
    let (scope, local) = (scope.trim().to_lowercase(), local.trim());
    if local.is_empty() || !local.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let hits: Vec<&Node> = docs
        .iter()
        .copied()
        .filter(|n| {
            n.id.rsplit_once('/')
                .is_some_and(|(sc, lo)| lo.eq_ignore_ascii_case(local) && sc.to_lowercase().contains(&scope))
        })
        .collect();
    (!hits.is_empty()).then_some(hits)
}

/// Whether a pasted path names the document at root-relative `path`: the same path,
/// the path as written from a folder above the root (`backlog/tasks/x.md`), or the file
/// name alone.
fn path_names(q: &str, path: &str) -> bool {
    if q.eq_ignore_ascii_case(path) {
        return true;
    }
    if !q.contains('.') {
        return false;
    }
    if q.contains('/') {
        q.len() > path.len() && q.ends_with(path) && q.as_bytes()[q.len() - path.len() - 1] == b'/'
    } else {
        path.rsplit('/').next() == Some(q)
    }
}

/// The closest real ids to a query that names nothing: the nearest numbers of the same
/// family, the same number in other families, else the ids nearest in spelling; at
/// most five.
fn closest(q: &str, docs: &[&Node], aliases: &BTreeMap<String, String>) -> Vec<String> {
    let raw = |n: &Node| n.raw_id.clone().unwrap_or_else(|| n.id.clone());
    let typed = ids::unify(q);
    let mut close: Vec<String> = Vec::new();
    let add = |close: &mut Vec<String>, id: String| {
        if close.len() < 5 && !close.contains(&id) {
            close.push(id);
        }
    };
    if let (Some(num), Some(family)) = (ids::number_tail(&typed), ids::family(&typed)) {
        let want = ids::plain_number(num);
        let family = aliases.get(&family).map(|a| a.to_lowercase()).unwrap_or(family);
        // The same family, nearest numbers first.
        let value = |n: &str| {
            ids::plain_number(n)
                .split('.')
                .next()
                .and_then(|x| x.parse::<u64>().ok())
        };
        if let Some(target) = value(num) {
            let mut same: Vec<(u64, String)> = docs
                .iter()
                .filter_map(|n| {
                    let id = raw(n);
                    (ids::family(&id)? == family).then_some(())?;
                    Some((value(ids::number_tail(&id)?)?.abs_diff(target), n.id.clone()))
                })
                .collect();
            same.sort();
            for (_, id) in same.into_iter().take(3) {
                add(&mut close, id);
            }
        }
        for n in docs {
            if ids::number_tail(&raw(n)).is_some_and(|t| ids::plain_number(t) == want) {
                add(&mut close, n.id.clone());
            }
        }
    }
    if close.is_empty() {
        let lower = typed.to_lowercase();
        let mut near: Vec<(usize, String)> = docs
            .iter()
            .map(|n| (strsim::levenshtein(&lower, &raw(n).to_lowercase()), n.id.clone()))
            .filter(|(d, _)| *d <= 2.max(lower.chars().count() / 4))
            .collect();
        near.sort();
        for (_, id) in near.into_iter().take(5) {
            add(&mut close, id);
        }
    }
    close
}

/// The one node, or an error listing the candidates (by id, and by path where ids
/// repeat).
fn one_of<'a>(query: &str, hits: Vec<&'a Node>) -> Result<&'a Node, Error> {
    match hits.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::NotFound {
            query: query.to_string(),
            close: Vec::new(),
        }),
        many => {
            // Duplicated ids are told apart in the node id already (`ID@path`).
            let ids: Vec<String> = many
                .iter()
                .map(|n| match n.id.contains('@') {
                    true => n.id.clone(),
                    false => format!("{} ({})", n.id, n.path),
                })
                .collect();
            Err(Error::Other(format!(
                "`{query}` matches several nodes: {}. Write one of these ids, or `ID@` and a part of its path",
                ids.join(", ")
            )))
        }
    }
}

/// Build the view of one node.
pub fn show(index: &Loaded, query: &str, aliases: &BTreeMap<String, String>) -> Result<Shown, Error> {
    let node = find(&index.nodes, query, aliases)?;
    let by_id = |id: &str| {
        index
            .nodes
            .binary_search_by(|n| n.id.as_str().cmp(id))
            .ok()
            .map(|i| &index.nodes[i])
    };
    let view = |id: &str, e: &crate::model::Edge| {
        let other = by_id(id);
        EdgeView {
            r#type: e.r#type,
            id: id.to_string(),
            kind: other.map(|n| n.kind).unwrap_or_default(),
            title: other.map(|n| n.label().to_string()).unwrap_or_default(),
            origin: e.origin,
            path: e.path.clone(),
            line: e.line,
        }
    };
    let mut outgoing = Vec::new();
    let mut incoming = Vec::new();
    let mut sections = Vec::new();
    for e in &index.edges {
        if e.r#type == EdgeType::SectionOf {
            if e.target == node.id
                && let Some(c) = by_id(&e.source)
            {
                sections.push(SectionView {
                    id: c.id.clone(),
                    heading: c.heading.clone().unwrap_or_default(),
                    level: c.level.unwrap_or(0),
                    line: c.line.unwrap_or(0),
                });
            }
            continue;
        }
        if e.source == node.id {
            outgoing.push(view(&e.target, e));
        }
        if e.target == node.id {
            incoming.push(view(&e.source, e));
        }
    }
    sections.sort_by_key(|s| s.line);
    incoming.sort_by(|a, b| (a.r#type, &a.id).cmp(&(b.r#type, &b.id)));
    Ok(Shown {
        schema: "mdgraph.show/1",
        node: node.clone(),
        sections,
        outgoing,
        incoming,
    })
}
