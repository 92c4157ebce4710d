//! The full write: a new mirror made in a temporary file from the sidecar files, read a
//! batch at a time, and renamed into place; and the row writers the update in place
//! shares.

use super::fresh::{DB_FILE, DB_SCHEMA, Spec, db_path, fts_flag, sidecar_digest, sql_err, tokenizer_id};
use crate::error::Error;
use crate::model::backlog::{BacklogRow, BacklogTable};
use crate::model::section::{SectionRow, title_text};
use crate::model::{Edge, Node};
use crate::store::postings;
use crate::store::sidecar::Meta;
use crate::store::statcache::Stamp;
use rayon::prelude::*;
use rusqlite::{Connection, params};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Rebuild the mirror from nodes and edges (sorted as in the sidecar), as `spec` asks
/// (the tests' way to make a mirror of a graph they hold).
#[cfg(test)]
pub(crate) fn rebuild(index_dir: &Path, meta: &Meta, nodes: &[Node], edges: &[Edge], spec: &Spec) -> Result<(), Error> {
    rebuild_from(index_dir, meta, &Memory { nodes, edges }, spec)
}

/// Rebuild the mirror from the sidecar files `meta` describes, read batch by batch and
/// checked against their digests, except files whose stamp is in `written` (those this
/// process just wrote, with the digests of `meta`).
pub fn rebuild_from_files(
    index_dir: &Path,
    meta: &Meta,
    spec: &Spec,
    written: &[(String, Stamp)],
) -> Result<(), Error> {
    rebuild_from(
        index_dir,
        meta,
        &Files {
            dir: index_dir,
            meta,
            written,
        },
        spec,
    )
}

/// Rebuild the mirror from a graph given a batch at a time: memory holds the documents,
/// the links between them and the postings (encoded), besides what `source` holds, never
/// a node per section.
pub fn rebuild_from(index_dir: &Path, meta: &Meta, source: &dyn Batches, spec: &Spec) -> Result<(), Error> {
    replace(index_dir, |tmp| write_db(tmp, meta, source, spec).map(|()| true)).map(|_| ())
}

/// A graph given to a rebuild in sidecar order, a batch of owned records at a time. As in
/// every sidecar, each section has its `section_of` edge: those say which documents have
/// sections.
pub trait Batches: Sync {
    /// Give every edge (`section_of` included), in order.
    fn edges(&self, f: &mut dyn FnMut(Vec<Edge>) -> Result<(), Error>) -> Result<(), Error>;
    /// Give every node, in order.
    fn nodes(&self, f: &mut dyn FnMut(Vec<Node>) -> Result<(), Error>) -> Result<(), Error>;
}

/// Records given to a rebuild at a time.
pub const BATCH: usize = 8192;

/// Nodes and edges in memory.
#[cfg(test)]
struct Memory<'a> {
    nodes: &'a [Node],
    edges: &'a [Edge],
}

#[cfg(test)]
impl Batches for Memory<'_> {
    fn edges(&self, f: &mut dyn FnMut(Vec<Edge>) -> Result<(), Error>) -> Result<(), Error> {
        self.edges.chunks(BATCH).try_for_each(|b| f(b.to_vec()))
    }

    fn nodes(&self, f: &mut dyn FnMut(Vec<Node>) -> Result<(), Error>) -> Result<(), Error> {
        self.nodes.chunks(BATCH).try_for_each(|b| f(b.to_vec()))
    }
}

/// The sidecar files of an index folder.
struct Files<'a> {
    dir: &'a Path,
    meta: &'a Meta,
    written: &'a [(String, Stamp)],
}

impl Files<'_> {
    fn read<T: serde::de::DeserializeOwned + Send>(
        &self,
        name: &str,
        f: &mut dyn FnMut(Vec<T>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let known = self.written.iter().find(|(n, _)| n == name).map(|(_, st)| st);
        crate::store::sidecar::read_batches(self.dir, name, self.meta, BATCH, known, f)
    }
}

impl Batches for Files<'_> {
    fn edges(&self, f: &mut dyn FnMut(Vec<Edge>) -> Result<(), Error>) -> Result<(), Error> {
        self.read(crate::store::files::EDGES, f)
    }

    fn nodes(&self, f: &mut dyn FnMut(Vec<Node>) -> Result<(), Error>) -> Result<(), Error> {
        self.read(crate::store::files::NODES, f)
    }
}

/// Replace the mirror under the index lock with what `fill` writes to a temporary file in
/// the same folder: switched in ([`crate::store::files::switch_in`]) when `fill` returns
/// true, removed when it returns false or fails.
pub(super) fn replace(index_dir: &Path, fill: impl FnOnce(&Path) -> Result<bool, Error>) -> Result<bool, Error> {
    let _lock = crate::store::lock::IndexLock::acquire(index_dir)?;
    // An update in place killed mid-transaction left a journal: roll it back before the
    // file is copied (`update`) or replaced.
    super::recover(index_dir);
    let path = db_path(index_dir);
    let tmp = index_dir.join(format!(".{DB_FILE}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let result = fill(&tmp).and_then(|keep| {
        if keep {
            // Not fsynced, as the sidecar files are not (see `files::write_temp`). A journal
            // `recover` could not roll back (the file too damaged to open) belongs to the
            // file being replaced, never to the new one.
            let mut journal = path.clone().into_os_string();
            journal.push("-journal");
            let _ = std::fs::remove_file(journal);
            crate::store::files::switch_in(&tmp, &path).map_err(|e| Error::io(&path, e))?;
        }
        Ok(keep)
    });
    // Not kept, or switched in: then (after an exchange) it holds the old mirror.
    let _ = std::fs::remove_file(&tmp);
    result
}

/// The tables every mirror has. The partial index of `backlog` covers what `ready`
/// prints: its answer is one range of that index, with no lookup of each row (at 10k
/// items, 2,300 lookups were a third of the command's time).
const TABLES: &str = "
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE nodes(id TEXT PRIMARY KEY, lid TEXT NOT NULL, raw_lid TEXT NOT NULL, uid TEXT,
                       kind TEXT NOT NULL, path TEXT NOT NULL, type TEXT, title TEXT NOT NULL,
                       state TEXT, raw_id TEXT, priority TEXT,
                       nav INTEGER NOT NULL, json TEXT NOT NULL);
    CREATE TABLE edges(source TEXT NOT NULL, target TEXT NOT NULL, type TEXT NOT NULL,
                       origin TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL,
                       weight REAL NOT NULL);
    CREATE TABLE sections(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
                          heading TEXT NOT NULL, level INTEGER NOT NULL,
                          line INTEGER NOT NULL, text TEXT NOT NULL, tokens INTEGER NOT NULL);
    CREATE TABLE postings(term TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID;
    CREATE TABLE corpus(key TEXT PRIMARY KEY, value BLOB NOT NULL);
    CREATE TABLE backlog(id TEXT PRIMARY KEY, kind TEXT NOT NULL, path TEXT NOT NULL, title TEXT NOT NULL,
                         type TEXT, state TEXT, priority TEXT, grp TEXT NOT NULL, folded TEXT, parent TEXT,
                         ready INTEGER, unblocks INTEGER NOT NULL, why TEXT) WITHOUT ROWID;
    CREATE INDEX backlog_ready ON backlog(ready, path, title, type, state, grp, parent, priority, unblocks, why)
                 WHERE ready IS NOT NULL;";

/// The full-text table of `sqlite_fts = true`: the stemmed terms of each section's title,
/// heading and body (contentless: the text is in `sections`), rowid as in `sections`.
const FTS_TABLE: &str = "CREATE VIRTUAL TABLE sections_fts USING fts5(title, heading, body, content='',
                                                  tokenize='unicode61 remove_diacritics 0');";

/// Secondary indexes of the sections and edges, created once their rows are in.
const INDEXES: &str = "
    CREATE INDEX edges_source ON edges(source, type, target, weight);
    CREATE INDEX sections_doc ON sections(doc, line);
    CREATE INDEX edges_target ON edges(target, type, source, weight);
    CREATE INDEX edges_links ON edges(type, source, target);";

/// Secondary indexes of the nodes, created once their rows are in.
const NODE_INDEXES: &str = "
    CREATE INDEX nodes_lid ON nodes(lid);
    CREATE INDEX nodes_nav ON nodes(id) WHERE nav <> 0;
    CREATE INDEX nodes_raw_lid ON nodes(raw_lid);
    CREATE INDEX nodes_backlog ON nodes(id, kind, path, raw_id, type, title, state, priority);";

/// What the writer is sent: edges for the table, a batch of nodes made ready, and the
/// end (a producer that fails sends no end: the writer then stops without making the
/// indexes).
enum Batch {
    Edges(Vec<Edge>),
    Nodes(Prepared),
    End,
}

/// A batch of nodes made ready for the writer: its searchable rows as (rowid, node), the
/// document rows, and the full-text terms of its rows (with `sqlite_fts`).
struct Prepared {
    nodes: Vec<Node>,
    rows: Vec<(i64, usize)>,
    docs: Vec<NodeRow>,
    fts: Option<Vec<[String; 3]>>,
}

/// The gathered postings, sorted by term, and the row statistics.
type Postings = (Vec<(String, Vec<u8>)>, postings::Corpus);

/// Read `source` and send the writer its rows in order: the edges the table holds first
/// (the `section_of` ones say which documents have sections: the others get one empty
/// searchable row), then each batch of nodes with its rows made. Returns the backlog
/// table and the postings, made once everything is sent.
fn prepare(
    source: &dyn Batches,
    spec: &Spec,
    fts: bool,
    send: std::sync::mpsc::SyncSender<Batch>,
) -> Result<(BacklogTable, Postings), Error> {
    // A writer gone has failed; its error is the one returned.
    let stopped = |_| Error::Other("the mirror's writer stopped".into());
    let mut links: Vec<Edge> = Vec::new();
    let mut with_sections: HashSet<String> = HashSet::new();
    source.edges(&mut |batch| {
        let mut table = Vec::with_capacity(batch.len());
        for ed in batch {
            if ed.r#type == crate::model::EdgeType::SectionOf {
                with_sections.insert(ed.target);
            } else {
                links.push(ed.clone());
                table.push(ed);
            }
        }
        send.send(Batch::Edges(table)).map_err(stopped)
    })?;
    let mut gather = postings::Gather::default();
    let mut titles: HashMap<String, String> = HashMap::new();
    let mut docs: Vec<Node> = Vec::new();
    let mut next_row = 0i64;
    source.nodes(&mut |nodes| {
        let mut rows = Vec::new();
        for (i, n) in nodes.iter().enumerate() {
            if !n.is_chunk() {
                titles.insert(n.id.clone(), title_text(n));
                docs.push(n.clone());
            }
            if n.is_chunk() || !with_sections.contains(&n.id) {
                next_row += 1;
                rows.push((next_row, i));
            }
        }
        let section_rows: Vec<SectionRow<'_>> = rows.iter().map(|&(rowid, i)| row_of(rowid, &nodes[i])).collect();
        let ((), (doc_rows, fts_terms)) = rayon::join(
            || gather.add(&section_rows, &titles),
            || {
                rayon::join(
                    || node_rows(&nodes),
                    || {
                        fts.then(|| {
                            postings::row_terms(&titles, &section_rows)
                                .into_par_iter()
                                .map(|cols| cols.map(|c| c.join(" ")))
                                .collect()
                        })
                    },
                )
            },
        );
        drop(section_rows);
        let batch = Prepared {
            docs: doc_rows?,
            fts: fts_terms,
            nodes,
            rows,
        };
        send.send(Batch::Nodes(batch)).map_err(stopped)
    })?;
    send.send(Batch::End).map_err(stopped)?;
    drop(send);
    Ok(rayon::join(
        || (spec.backlog)(&docs, &links, spec.states),
        || gather.finish(),
    ))
}

fn write_db(path: &Path, meta: &Meta, source: &dyn Batches, spec: &Spec) -> Result<(), Error> {
    let fts = spec.fts;
    let mut conn = Connection::open(path).map_err(|e| sql_err(path, e))?;
    let e = |err| sql_err(path, err);
    // A new temporary file that nothing else opens until it is renamed into
    // place (see `replace`): no journal and no syncs; a run that fails or is killed
    // leaves only the temporary file. All rows go in in one transaction.
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
        .map_err(e)?;
    conn.execute_batch(TABLES).map_err(e)?;
    if fts {
        conn.execute_batch(FTS_TABLE).map_err(e)?;
    }
    let tx = conn.transaction().map_err(e)?;
    {
        let mut put_meta = tx.prepare("INSERT INTO meta(key, value) VALUES (?1, ?2)").map_err(e)?;
        put_meta.execute(params!["schema", DB_SCHEMA.to_string()]).map_err(e)?;
        put_meta.execute(params!["tokenizer", tokenizer_id()]).map_err(e)?;
        put_meta.execute(params!["fts", fts_flag(fts)]).map_err(e)?;
        put_meta
            .execute(params!["sidecar", sidecar_digest(&meta.outputs)])
            .map_err(e)?;
        // A thread reads the graph and does the work of all cores (parsing, tokenizing,
        // serializing, the backlog table, sorting the postings) while this one writes
        // what it sends, in order.
        let (backlog, (encoded, corpus)) = std::thread::scope(|scope| -> Result<_, Error> {
            let (send, batches) = std::sync::mpsc::sync_channel::<Batch>(2);
            let producer = scope.spawn(move || prepare(source, spec, fts, send));
            // The indexes are made on this thread while the other finishes, once it has
            // sent everything.
            let indexed = write_batches(&tx, batches).map_err(e).and_then(|complete| {
                if complete {
                    tx.execute_batch(INDEXES).map_err(e)?;
                    tx.execute_batch(NODE_INDEXES).map_err(e)?;
                }
                Ok(())
            });
            let produced = producer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            indexed?;
            produced
        })?;
        put_backlog(&tx, &backlog, spec).map_err(e)?;
        let mut put_posting = tx.prepare("INSERT INTO postings VALUES (?1, ?2)").map_err(e)?;
        for (term, data) in &encoded {
            put_posting.execute(params![term, data]).map_err(e)?;
        }
        put_corpus(&tx, &corpus).map_err(e)?;
    }
    tx.commit().map_err(e)?;
    Ok(())
}

/// The searchable row `rowid` of a chunk, or of a document without sections.
fn row_of(rowid: i64, n: &Node) -> SectionRow<'_> {
    match n.kind {
        crate::model::Kind::Chunk => SectionRow {
            rowid,
            chunk: n,
            doc: n.doc.as_deref().unwrap_or(""),
            heading: n.heading.as_deref().unwrap_or(""),
        },
        _ => SectionRow {
            rowid,
            chunk: n,
            doc: &n.id,
            heading: "",
        },
    }
}

/// Write what [`prepare`] sends as it comes: edges, then each batch's sections,
/// full-text rows and document rows. Returns whether the end came.
fn write_batches(tx: &Connection, batches: std::sync::mpsc::Receiver<Batch>) -> rusqlite::Result<bool> {
    let mut put_edge = EdgeWriter::new(tx)?;
    let mut put_section = tx.prepare("INSERT INTO sections VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")?;
    let mut put_fts = None;
    let mut put_node =
        tx.prepare("INSERT INTO nodes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")?;
    for batch in batches {
        let b = match batch {
            Batch::Edges(edges) => {
                for ed in &edges {
                    put_edge.put(ed)?;
                }
                continue;
            }
            Batch::Nodes(b) => b,
            Batch::End => return Ok(true),
        };
        for &(rowid, i) in &b.rows {
            let row = row_of(rowid, &b.nodes[i]);
            let c = row.chunk;
            put_section.execute(params![
                rowid,
                c.id,
                row.doc,
                row.heading,
                c.level.unwrap_or(0),
                c.line.unwrap_or(0),
                c.text.as_deref().unwrap_or(""),
                c.tokens.unwrap_or(0)
            ])?;
        }
        if let Some(terms) = &b.fts {
            if put_fts.is_none() {
                put_fts =
                    Some(tx.prepare("INSERT INTO sections_fts(rowid, title, heading, body) VALUES (?1, ?2, ?3, ?4)")?);
            }
            if let Some(put) = &mut put_fts {
                for (&(rowid, _), [t_title, t_heading, t_body]) in b.rows.iter().zip(terms) {
                    put.execute(params![rowid, t_title, t_heading, t_body])?;
                }
            }
        }
        for row in &b.docs {
            put_node.execute(rusqlite::params_from_iter(row.values()))?;
        }
    }
    Ok(false)
}

/// The values of a document's row in the `nodes` table, in column order.
#[derive(PartialEq)]
pub(super) struct NodeRow(pub(super) Vec<rusqlite::types::Value>);

impl NodeRow {
    pub(super) fn values(&self) -> impl Iterator<Item = &rusqlite::types::Value> {
        self.0.iter()
    }

    fn text(&self, column: usize) -> &str {
        match self.0.get(column) {
            Some(rusqlite::types::Value::Text(t)) => t,
            _ => "",
        }
    }

    /// The document id (column `id`).
    pub(super) fn id(&self) -> &str {
        self.text(0)
    }

    /// The node as JSON (column `json`, the last; every other column is made from it).
    pub(super) fn json(&self) -> &str {
        self.text(12)
    }

    /// Whether the columns before `json` are those of `other`.
    pub(super) fn same_columns(&self, other: &NodeRow) -> bool {
        match (self.0.split_last(), other.0.split_last()) {
            (Some((_, a)), Some((_, b))) => a == b,
            _ => false,
        }
    }

    /// The title (column `title`: the FTS5 title column of the document's rows).
    pub(super) fn title(&self) -> &str {
        self.text(7)
    }
}

/// The `nodes` rows of the documents, in node order.
pub(super) fn node_rows(nodes: &[Node]) -> Result<Vec<NodeRow>, Error> {
    let docs: Vec<&Node> = nodes.iter().filter(|n| !n.is_chunk()).collect();
    docs.into_par_iter().map(node_row).collect()
}

/// A document's row in the `nodes` table.
pub(super) fn node_row(n: &Node) -> Result<NodeRow, Error> {
    use rusqlite::types::Value;
    let text = |s: &str| Value::Text(s.to_string());
    let opt = |s: Option<&str>| s.map_or(Value::Null, |s| Value::Text(s.to_string()));
    let json = serde_json::to_string(n).map_err(|err| Error::Other(err.to_string()))?;
    Ok(NodeRow(vec![
        text(&n.id),
        text(&n.id.to_lowercase()),
        text(&n.raw_id.as_deref().unwrap_or(&n.id).to_lowercase()),
        opt(n.uid.as_deref().map(str::to_lowercase).as_deref()),
        text(n.kind.as_str()),
        text(&n.path),
        opt(n.r#type.as_deref()),
        text(n.label()),
        opt(n.state.as_deref()),
        opt(n.raw_id.as_deref()),
        opt(n.field_values("priority").first().map(String::as_str)),
        Value::Integer(n.nav as i64),
        // Last: it spills to overflow pages, which reading the columns before it
        // never touches.
        Value::Text(json),
    ]))
}

/// The edges the `edges` table holds, in order: all but `section_of`, whose every field
/// the `sections` table already has (a section's `id`, `doc` and `line`; the path is its
/// document's). They are most of the edges (50,400 of 85,246 at 10k generated items) and
/// search never walks them.
pub(super) fn table_edges(edges: &[Edge]) -> impl Iterator<Item = &Edge> {
    edges.iter().filter(|e| e.r#type != crate::model::EdgeType::SectionOf)
}

/// Append the edges the table holds ([`table_edges`]), in order (their rowids follow the
/// table's last).
pub(super) fn insert_edges(conn: &Connection, edges: &[Edge]) -> rusqlite::Result<()> {
    let mut put_edge = EdgeWriter::new(conn)?;
    for ed in table_edges(edges) {
        put_edge.put(ed)?;
    }
    Ok(())
}

/// Appends rows to the `edges` table.
struct EdgeWriter<'c>(rusqlite::Statement<'c>);

impl<'c> EdgeWriter<'c> {
    fn new(conn: &'c Connection) -> rusqlite::Result<EdgeWriter<'c>> {
        conn.prepare("INSERT INTO edges VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            .map(EdgeWriter)
    }

    fn put(&mut self, ed: &Edge) -> rusqlite::Result<usize> {
        self.0.execute(params![
            ed.source,
            ed.target,
            ed.r#type.as_str(),
            ed.origin.as_str(),
            ed.path,
            ed.line,
            ed.weight
        ])
    }
}

/// Make the `backlog` table hold `table`'s rows and its meta keys: rows that differ
/// from what the table holds are written (in `table`'s order), rows of documents gone
/// are removed (an edit changes a few rows; a rebuild starts from an empty table). The
/// rows held are compared in place, column by column, with no copy of their values (an
/// edit reads all of them and writes a few).
pub(super) fn put_backlog(conn: &Connection, table: &BacklogTable, spec: &Spec) -> rusqlite::Result<()> {
    let at: HashMap<&str, usize> = table
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.item.id.as_str(), i))
        .collect();
    // Which rows of `table` the backlog table already holds as they are.
    let mut same = vec![false; table.rows.len()];
    let mut gone: Vec<String> = Vec::new();
    {
        let mut st = conn.prepare("SELECT * FROM backlog")?;
        let width = st.column_count();
        let mut q = st.query([])?;
        while let Some(r) = q.next()? {
            let id = r.get_ref(0)?;
            match id.as_str().ok().and_then(|id| at.get(id)) {
                Some(&i) => same[i] = width == BACKLOG_WIDTH && holds(r, &table.rows[i])?,
                None => gone.push(r.get(0)?),
            }
        }
    }
    let mut put =
        conn.prepare("INSERT OR REPLACE INTO backlog VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")?;
    for (r, _) in table.rows.iter().zip(&same).filter(|(_, same)| !**same) {
        put.execute(rusqlite::params_from_iter(backlog_values(r)))?;
    }
    gone.sort();
    let mut drop = conn.prepare("DELETE FROM backlog WHERE id = ?1")?;
    for id in &gone {
        drop.execute([id])?;
    }
    let cycles = serde_json::to_string(&table.cycles).unwrap_or_default();
    let mut put_meta = conn.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)")?;
    put_meta.execute(params!["states", spec.states_digest()])?;
    put_meta.execute(params!["cycles", cycles])?;
    Ok(())
}

/// The columns of the `backlog` table.
pub(super) const BACKLOG_WIDTH: usize = 13;

/// A `backlog` row's values, in the table's column order.
pub(super) fn backlog_values(r: &BacklogRow) -> [rusqlite::types::Value; BACKLOG_WIDTH] {
    use rusqlite::types::Value;
    let text = |s: &str| Value::Text(s.to_string());
    let opt = |s: &Option<String>| s.as_deref().map_or(Value::Null, text);
    let i = &r.item;
    [
        text(&i.id),
        text(r.kind.as_str()),
        text(&i.path),
        text(&i.title),
        opt(&i.r#type),
        opt(&i.state),
        opt(&i.priority),
        text(i.group.as_str()),
        opt(&r.folded),
        opt(&i.parent),
        r.ready.map_or(Value::Null, |i| Value::Integer(i as i64)),
        Value::Integer(r.unblocks as i64),
        opt(&r.why),
    ]
}

/// Does the `backlog` row `held` (all its columns) hold [`backlog_values`] of `r`? Read
/// in place: equal when each column has the same type and value.
pub(super) fn holds(held: &rusqlite::Row, r: &BacklogRow) -> rusqlite::Result<bool> {
    use rusqlite::types::ValueRef;
    let i = &r.item;
    let texts: [(usize, Option<&str>); 11] = [
        (0, Some(i.id.as_str())),
        (1, Some(r.kind.as_str())),
        (2, Some(i.path.as_str())),
        (3, Some(i.title.as_str())),
        (4, i.r#type.as_deref()),
        (5, i.state.as_deref()),
        (6, i.priority.as_deref()),
        (7, Some(i.group.as_str())),
        (8, r.folded.as_deref()),
        (9, i.parent.as_deref()),
        (12, r.why.as_deref()),
    ];
    for (col, want) in texts {
        let same = match (held.get_ref(col)?, want) {
            (ValueRef::Text(t), Some(w)) => t == w.as_bytes(),
            (ValueRef::Null, None) => true,
            _ => false,
        };
        if !same {
            return Ok(false);
        }
    }
    let int = |col: usize, want: Option<i64>| -> rusqlite::Result<bool> {
        Ok(match (held.get_ref(col)?, want) {
            (ValueRef::Integer(n), Some(w)) => n == w,
            (ValueRef::Null, None) => true,
            _ => false,
        })
    };
    Ok(int(10, r.ready.map(|n| n as i64))? && int(11, Some(r.unblocks as i64))?)
}

/// Write the row statistics (replacing any).
pub(super) fn put_corpus(conn: &Connection, c: &postings::Corpus) -> rusqlite::Result<()> {
    let json = |v: &Vec<String>| serde_json::to_vec(v).unwrap_or_default();
    let mut put = conn.prepare("INSERT OR REPLACE INTO corpus VALUES (?1, ?2)")?;
    for (k, v) in [
        ("row_len", postings::u32s_to_bytes(&c.row_len)),
        ("row_doc", postings::u32s_to_bytes(&c.row_doc)),
        ("row_name", postings::u32s_to_bytes(&c.row_name)),
        ("names", json(&c.names)),
        ("docs", c.docs.to_bytes()),
    ] {
        put.execute(params![k, v])?;
    }
    // A rebuilt mirror has none: its rows are in a rebuild's order.
    if c.row_rank.is_empty() {
        conn.execute("DELETE FROM corpus WHERE key = 'row_rank'", [])?;
    } else {
        put.execute(params!["row_rank", postings::u32s_to_bytes(&c.row_rank)])?;
    }
    Ok(())
}
