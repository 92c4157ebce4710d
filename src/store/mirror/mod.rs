//! The optional SQLite mirror `index.sqlite`: nodes, edges (all but `section_of`: a
//! section's document is in `sections`), sections, and the postings and row statistics
//! that search scores (with FTS5's bm25 formula, see
//! [`crate::store::postings`]). With `sqlite_fts = true` it also has a contentless FTS5
//! table over the sections' stemmed title, heading and body for SQL users' own `MATCH`
//! queries; mdgraph never reads it, and it doubles the mirror's build time, so it is off
//! by default (BENCHMARKS.md, "Cold index at 10k"). The `backlog` table holds, per
//! document, what `list` filters on and `ready`'s whole answer, made under the `[states]`
//! config by the caller's code ([`Spec`]), so that those commands read only the rows they
//! print.
//!
//! It is derived from the JSONL sidecar, built into a temporary file and renamed into
//! place, and records the digests of the sidecar files it mirrors and of the state
//! groups, and whether it has the FTS5 table: when any differs (or the file is missing,
//! of another schema, or corrupt) it is rebuilt, or, when the searchable rows are the
//! same sections as before, updated on a copy ([`update()`]) to exactly what a rebuild
//! would hold. Sections are keyed by their position in the sorted node list (`rowid`),
//! the same numbering the in-memory fallback uses, so both engines rank identically.
//!
//! `fresh.rs` says whether the file on disk is the mirror wanted, `write.rs` writes a
//! new one, `update.rs` updates one in place, `docs.rs` takes in an edit's documents and
//! `part.rs` makes the part of the `backlog` table an edit can change again, `read.rs`
//! holds the readers; [`sync`] (here) picks between them.

mod docs;
mod fresh;
mod part;
mod read;
mod update;
mod write;

#[cfg(test)]
pub(crate) use docs::{BacklogWay, update_docs_by};
pub use docs::{DocEdit, update_docs};
pub use fresh::{Spec, db_path, is_fresh, mirrors, sidecar_digest};
pub use read::{
    BACKLOG_TYPES, Docs, Link, Ranked, is_document, load_corpus, load_docs, load_list, load_ready, load_subtree,
    nav_ids,
};
pub use update::update;
#[cfg(test)]
pub(crate) use write::rebuild;
pub use write::{BATCH, rebuild_from_files};

use crate::error::Error;
use crate::store::sidecar;
use std::path::Path;

/// Finish what a killed update in place ([`update_docs`]) left, under the index lock:
/// SQLite rolls a hot journal back when the mirror is opened for writing (as `update_docs`
/// opens it), but read-only readers cannot, and a copy of the file without its journal
/// would be half written. Every replacement of the mirror calls this first.
pub(crate) fn recover(index_dir: &Path) {
    let path = db_path(index_dir);
    let mut journal = path.clone().into_os_string();
    journal.push("-journal");
    if std::path::Path::new(&journal).exists()
        && let Ok(conn) = rusqlite::Connection::open(&path)
    {
        let _ = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0));
    }
}

/// The most nodes (documents and sections) of an index whose mirror is updated in place
/// from the whole graph ([`update()`]) rather than rebuilt from the files: the update holds
/// the graph and every row of the old mirror, which at 100k items (605k nodes) peaked at
/// 1.56 GB against 0.7 GB for a rebuild, for no gain in time (4.5 s against 5 s).
pub const UPDATE_MAX_NODES: usize = 200_000;

/// Make sure the mirror matches the sidecar and `spec`, updating it in place or
/// rebuilding it from the sidecar files when needed (a change of the state groups alone
/// is an update that rewrites the backlog table). Returns whether it was written.
pub fn sync(index_dir: &Path, spec: &Spec) -> Result<bool, Error> {
    let outputs = sidecar::read_meta_head(index_dir)
        .map(|h| h.outputs)
        .ok_or_else(|| Error::Other(format!("{}: no index to mirror", index_dir.display())))?;
    if is_fresh(index_dir, &outputs, spec) {
        return Ok(false);
    }
    let meta = sidecar::read_meta(index_dir).ok_or_else(|| damaged(index_dir))?;
    write_for(index_dir, meta, spec)
}

/// [`sync`] of the index whose `meta.json` the caller read: `meta` (`mdgraph index`
/// reads it once a run).
pub fn sync_with(index_dir: &Path, meta: &sidecar::Meta, spec: &Spec) -> Result<bool, Error> {
    if is_fresh(index_dir, &meta.outputs, spec) {
        return Ok(false);
    }
    write_for(index_dir, meta.clone(), spec)
}

fn damaged(index_dir: &Path) -> Error {
    Error::Other(format!(
        "{}: the index is damaged; run `mdgraph index`",
        index_dir.display()
    ))
}

/// Update the mirror in place to `meta`'s sidecar, or rebuild it from the files.
fn write_for(index_dir: &Path, meta: sidecar::Meta, spec: &Spec) -> Result<bool, Error> {
    if meta.schema != sidecar::SCHEMA_VERSION {
        return Err(damaged(index_dir));
    }
    // An update in place compares every row with the graph, loaded whole (so only up to
    // `UPDATE_MAX_NODES`); a rebuild streams the files.
    let meta = if db_path(index_dir).is_file() && meta.counts.documents + meta.counts.chunks <= UPDATE_MAX_NODES {
        let loaded = sidecar::load_with(index_dir, meta, true).ok_or_else(|| damaged(index_dir))?;
        let (meta, nodes, edges) = (&loaded.meta, &loaded.nodes, &loaded.edges);
        if update(index_dir, meta, nodes, edges, spec).unwrap_or(false) {
            return Ok(true);
        }
        loaded.meta
    } else {
        meta
    };
    rebuild_from_files(index_dir, &meta, spec, &[])?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::StateGroups;
    use crate::model::backlog::{BacklogRow, BacklogTable, Group, Item, ListQuery, Ready};
    use crate::model::{Edge, EdgeType, Kind, Node, Origin};
    use crate::store::sidecar::Meta;

    /// A backlog table that copies the graph: this layer keeps rows, whatever made them.
    /// Documents in state `Done` are closed, the others ready in reverse id order.
    fn table(nodes: &[Node], edges: &[Edge], _: &StateGroups) -> BacklogTable {
        let docs: Vec<&Node> = nodes.iter().filter(|n| !n.is_chunk()).collect();
        let mut open = docs.iter().filter(|n| n.state.as_deref() != Some("Done")).count();
        let rows = docs
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let done = n.state.as_deref() == Some("Done");
                let parent = edges.iter().find(|e| e.source == n.id && e.r#type == EdgeType::Parent);
                BacklogRow {
                    item: Item {
                        id: n.id.clone(),
                        path: n.path.clone(),
                        title: n.label().to_string(),
                        r#type: n.r#type.clone(),
                        state: n.state.clone(),
                        group: if done { Group::Done } else { Group::Open },
                        parent: parent.map(|e| e.target.clone()),
                        priority: Some(format!("P{i}")),
                    },
                    kind: n.kind,
                    folded: n.state.as_deref().map(str::to_lowercase),
                    ready: (!done).then(|| {
                        open -= 1;
                        open
                    }),
                    unblocks: i,
                    why: (!done).then(|| format!("why {}", n.id)),
                }
            })
            .collect();
        BacklogTable {
            rows,
            cycles: vec![vec!["A".into(), "B".into()]],
        }
    }

    fn doc(id: &str, state: &str, r#type: &str) -> Node {
        Node {
            id: id.into(),
            kind: Kind::WorkItem,
            path: format!("{id}.md"),
            title: Some(format!("Title of {id}")),
            r#type: Some(r#type.into()),
            state: Some(state.into()),
            ..Node::default()
        }
    }

    fn edge(source: &str, r#type: EdgeType, target: &str) -> Edge {
        Edge {
            source: source.into(),
            target: target.into(),
            r#type,
            origin: Origin::Frontmatter,
            path: format!("{source}.md"),
            line: 1,
            weight: r#type.weight(),
        }
    }

    /// A graph in sidecar order: three documents, one with a section.
    fn graph(b_state: &str) -> (Vec<Node>, Vec<Edge>) {
        let section = Node {
            id: "A#intro".into(),
            kind: Kind::Chunk,
            path: "A.md".into(),
            doc: Some("A".into()),
            heading: Some("Intro".into()),
            level: Some(2),
            line: Some(3),
            tokens: Some(4),
            text: Some("The intro text.".into()),
            ..Node::default()
        };
        let nodes = vec![
            doc("A", "To Do", "Task"),
            section,
            doc("B", b_state, "Bug"),
            doc("E", "In Progress", "Epic"),
        ];
        let edges = vec![
            edge("A", EdgeType::Parent, "E"),
            edge("A", EdgeType::BlockedBy, "B"),
            edge("A#intro", EdgeType::SectionOf, "A"),
        ];
        (nodes, edges)
    }

    /// The sidecar's `meta.json` as the mirror's readers find it.
    fn write_meta(dir: &Path, digest: &str) -> Meta {
        let meta = Meta {
            outputs: [("nodes.jsonl".to_string(), digest.to_string())].into(),
            ..Meta::default()
        };
        std::fs::write(
            dir.join(crate::store::files::META),
            serde_json::to_vec_pretty(&meta).unwrap(),
        )
        .unwrap();
        meta
    }

    fn ids<'a>(items: impl IntoIterator<Item = &'a Item>) -> Vec<&'a str> {
        items.into_iter().map(|i| i.id.as_str()).collect()
    }

    #[test]
    fn a_written_mirror_reads_back_what_it_was_given() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let groups = StateGroups::default();
        let spec = Spec {
            fts: false,
            states: &groups,
            backlog: table,
            backlog_docs: |_, _| BacklogTable::default(),
        };
        let (nodes, edges) = graph("Done");
        let meta = write_meta(dir, "one");
        rebuild(dir, &meta, &nodes, &edges, &spec).unwrap();

        // Fresh for this sidecar and spec only.
        assert!(is_fresh(dir, &meta.outputs, &spec));
        let other_groups = StateGroups {
            done: vec!["Shipped".into()],
            ..StateGroups::default()
        };
        assert!(!is_fresh(
            dir,
            &meta.outputs,
            &Spec {
                states: &other_groups,
                ..spec
            }
        ));
        assert!(!is_fresh(dir, &meta.outputs, &Spec { fts: true, ..spec }));
        let mut moved = meta.outputs.clone();
        moved.insert("nodes.jsonl".into(), "two".into());
        assert!(!is_fresh(dir, &moved, &spec));

        // The backlog table's rows come back as they went in.
        let given = table(&nodes, &edges, &groups);
        let listed = load_list(dir, &spec, &ListQuery::default()).unwrap();
        assert_eq!(listed, given.rows.iter().map(|r| r.item.clone()).collect::<Vec<_>>());
        let query = |types: &[&'static str], states: &[(&str, &'static str)], parent| ListQuery {
            types: types.iter().map(|t| (*t, t.to_lowercase())).collect(),
            states: states.iter().map(|(f, s)| (f.to_string(), *s)).collect(),
            parent,
        };
        let list = |q: &ListQuery| load_list(dir, &spec, q).unwrap();
        assert_eq!(ids(&list(&query(&["BUG"], &[], None))), ["B"]);
        assert_eq!(ids(&list(&query(&["work_item"], &[], None))), ["A", "B", "E"]);
        assert_eq!(ids(&list(&query(&[], &[("done", "-")], None))), ["B"]);
        assert_eq!(ids(&list(&query(&[], &[("-", "open")], None))), ["A", "E"]);
        assert_eq!(ids(&list(&query(&[], &[], Some(("E", false))))), ["A"]);
        assert!(list(&query(&[], &[], Some(("A", true)))).is_empty());

        let (ready, cycles) = load_ready(dir, &spec).unwrap();
        let want: Vec<Ready> = [(&given.rows[2], 0), (&given.rows[0], 1)]
            .into_iter()
            .map(|(r, rank)| {
                assert_eq!(r.ready, Some(rank));
                Ready {
                    item: r.item.clone(),
                    unblocks: r.unblocks,
                    why: r.why.clone().unwrap(),
                }
            })
            .collect();
        assert_eq!(ready, want);
        assert_eq!(cycles, [["A", "B"]]);

        // The documents and the edges asked for, from the columns or whole.
        let docs = load_docs(dir, &[EdgeType::Parent, EdgeType::BlockedBy], &spec, false).unwrap();
        assert_eq!(
            docs.nodes.iter().map(|n| n.id.as_str()).collect::<Vec<_>>(),
            ["A", "B", "E"]
        );
        assert_eq!(docs.nodes[1].state.as_deref(), Some("Done"));
        assert_eq!(docs.priorities, Some(vec![None, None, None]));
        let links: Vec<Link> = [&edges[1], &edges[0]].into_iter().map(Link::from).collect();
        assert_eq!(docs.links, links);
        let whole = load_docs(dir, &[EdgeType::Parent], &spec, true).unwrap();
        let json = |ns: &[Node]| serde_json::to_string(ns).unwrap();
        let documents: Vec<Node> = nodes.iter().filter(|n| !n.is_chunk()).cloned().collect();
        assert_eq!(json(&whole.nodes), json(&documents));
        assert_eq!(whole.links, [Link::from(&edges[0])]);
        let sub = load_subtree(dir, &spec, "E").unwrap();
        // The subtree, then the blockers of its items from outside it (what `tree`
        // needs to count an item held by an open blocker as blocked).
        assert_eq!(
            sub.nodes.iter().map(|n| n.id.as_str()).collect::<Vec<_>>(),
            ["A", "E", "B"]
        );
        assert_eq!(sub.links, [Link::from(&edges[0]), Link::from(&edges[1])]);
        assert!(load_subtree(dir, &spec, "nope").is_none());
        assert!(is_document(dir, &spec, "A"));
        assert!(!is_document(dir, &spec, "A#intro"));
        assert!(!is_document(dir, &spec, "Z"));
        let conn = rusqlite::Connection::open(db_path(dir)).unwrap();
        // One searchable row per section, and one for each document without any.
        assert_eq!(load_corpus(&conn).unwrap().row_len.len(), 3);
        assert!(nav_ids(&conn).unwrap().is_empty());
        drop(conn);

        // Not the mirror of another sidecar: the readers say so rather than answer.
        let meta = write_meta(dir, "two");
        assert!(load_list(dir, &spec, &ListQuery::default()).is_none());
        assert!(load_ready(dir, &spec).is_none());
        assert!(!is_document(dir, &spec, "A"));

        // A state change is an update in place, after which the rows are the new ones.
        let (nodes, edges) = graph("To Do");
        assert!(update(dir, &meta, &nodes, &edges, &spec).unwrap());
        assert!(is_fresh(dir, &meta.outputs, &spec));
        let listed = load_list(dir, &spec, &ListQuery::default()).unwrap();
        assert_eq!(listed[1].group, Group::Open);
        let (ready, _) = load_ready(dir, &spec).unwrap();
        assert_eq!(ids(ready.iter().map(|r| &r.item)), ["E", "B", "A"]);
    }

    /// Every table of a mirror, rows in rowid order (the full-text table's terms too).
    fn tables(dir: &Path) -> Vec<(String, Vec<String>)> {
        let conn = rusqlite::Connection::open(db_path(dir)).unwrap();
        let names: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        names
            .into_iter()
            .map(|t| {
                // Tables without rowid (backlog, postings) in key order.
                let mut st = conn
                    .prepare(&format!("SELECT * FROM \"{t}\" ORDER BY rowid"))
                    .or_else(|_| conn.prepare(&format!("SELECT * FROM \"{t}\" ORDER BY 1")))
                    .unwrap();
                let width = st.column_count();
                let rows = st
                    .query_map([], |r| {
                        let v: Vec<rusqlite::types::Value> = (0..width).map(|i| r.get(i)).collect::<Result<_, _>>()?;
                        Ok(format!("{v:?}"))
                    })
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                (t, rows)
            })
            .collect()
    }

    /// Rebuilt from the sidecar files a batch at a time, the mirror is the one made from
    /// the graph in memory; a file that does not match its digest is refused and the
    /// mirror on disk is left as it was.
    #[test]
    fn a_mirror_streamed_from_the_files_is_the_one_made_in_memory() {
        use crate::store::files::{EDGES, LineDigest, NODES};
        let groups = StateGroups::default();
        let spec = Spec {
            fts: true,
            states: &groups,
            backlog: table,
            backlog_docs: |_, _| BacklogTable::default(),
        };
        // More nodes than a batch, sections of some documents, one document without any.
        let (mut nodes, mut edges) = graph("Done");
        for i in 0..write::BATCH + 50 {
            let id = format!("T-{i:05}");
            nodes.push(doc(&id, if i % 3 == 0 { "Done" } else { "To Do" }, "Task"));
            if i % 2 == 0 {
                let chunk = format!("{id}#notes");
                nodes.push(Node {
                    id: chunk.clone(),
                    kind: Kind::Chunk,
                    path: format!("{id}.md"),
                    doc: Some(id.clone()),
                    heading: Some("Notes".into()),
                    level: Some(2),
                    line: Some(5),
                    tokens: Some(7),
                    text: Some(format!("Resumable upload number {i}, \"quoted\"\nsecond line")),
                    ..Node::default()
                });
                edges.push(edge(&chunk, EdgeType::SectionOf, &id));
            }
            edges.push(edge(&id, EdgeType::Parent, "E"));
        }
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        edges.sort_by(|a, b| (&a.source, a.r#type, &a.target).cmp(&(&b.source, b.r#type, &b.target)));
        let jsonl = |items: &[String]| items.iter().map(|l| format!("{l}\n")).collect::<String>();
        let node_lines: Vec<String> = nodes.iter().map(|n| serde_json::to_string(n).unwrap()).collect();
        let edge_lines: Vec<String> = edges.iter().map(|e| serde_json::to_string(e).unwrap()).collect();

        let memory = tempfile::tempdir().unwrap();
        let files = tempfile::tempdir().unwrap();
        let mut meta = Meta::default();
        for (name, lines) in [(NODES, &node_lines), (EDGES, &edge_lines)] {
            let text = jsonl(lines);
            std::fs::write(files.path().join(name), &text).unwrap();
            meta.outputs
                .insert(name.to_string(), LineDigest::of(text.as_bytes()).hex());
        }
        // The folder's mark: its meta.json (see `files::claim`).
        std::fs::write(
            files.path().join(crate::store::files::META),
            serde_json::to_vec_pretty(&meta).unwrap(),
        )
        .unwrap();
        rebuild(memory.path(), &meta, &nodes, &edges, &spec).unwrap();
        rebuild_from_files(files.path(), &meta, &spec, &[]).unwrap();
        let want = tables(memory.path());
        assert!(
            want.iter()
                .any(|(t, rows)| t == "sections" && rows.len() > write::BATCH / 2)
        );
        assert_eq!(tables(files.path()), want);

        // One record changed: its digest no longer matches; nothing is replaced.
        let mut damaged = node_lines.clone();
        let last = damaged.len() - 1;
        damaged[last] = damaged[last].replace("Title of", "Title on");
        assert_ne!(damaged[last], node_lines[last]);
        std::fs::write(files.path().join(NODES), jsonl(&damaged)).unwrap();
        let err = rebuild_from_files(files.path(), &meta, &spec, &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not match its digest"), "{err}");
        // A line that is not a record is named by its line number.
        damaged[3] = "{not json".into();
        std::fs::write(files.path().join(NODES), jsonl(&damaged)).unwrap();
        let err = rebuild_from_files(files.path(), &meta, &spec, &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("{NODES}:4: damaged index record")), "{err}");
        assert_eq!(tables(files.path()), want);
        let left: Vec<String> = std::fs::read_dir(files.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp-"))
            .collect();
        assert!(left.is_empty(), "temporary files left: {left:?}");

        // An index of another schema is not mirrored (`sync` refuses it).
        let other = Meta {
            schema: sidecar::SCHEMA_VERSION - 1,
            ..meta.clone()
        };
        std::fs::write(
            files.path().join(crate::store::files::META),
            serde_json::to_vec_pretty(&other).unwrap(),
        )
        .unwrap();
        std::fs::remove_file(db_path(files.path())).unwrap();
        assert!(sync(files.path(), &spec).is_err());
        assert!(!db_path(files.path()).exists());
    }
}
