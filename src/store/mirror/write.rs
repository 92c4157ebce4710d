//! The full write: a new mirror made from the graph in a temporary file and renamed
//! into place, and the row writers the update in place shares.

use super::fresh::{DB_FILE, DB_SCHEMA, Spec, db_path, fts_flag, sidecar_digest, sql_err, tokenizer_id};
use crate::error::Error;
use crate::model::backlog::BacklogTable;
use crate::model::section::sections;
use crate::model::{Edge, Node};
use crate::store::postings;
use crate::store::sidecar::Meta;
use rayon::prelude::*;
use rusqlite::{Connection, params};
use std::collections::HashMap;
use std::path::Path;

/// Rebuild the mirror from nodes and edges (sorted as in the sidecar), as `spec` asks.
pub fn rebuild(index_dir: &Path, meta: &Meta, nodes: &[Node], edges: &[Edge], spec: &Spec) -> Result<(), Error> {
    replace(index_dir, |tmp| write_db(tmp, meta, nodes, edges, spec).map(|()| true)).map(|_| ())
}

/// Replace the mirror under the index lock with what `fill` writes to a temporary file in
/// the same folder: renamed into place when `fill` returns true, removed
/// when it returns false or fails.
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
            std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
        }
        Ok(keep)
    });
    if !matches!(result, Ok(true)) {
        let _ = std::fs::remove_file(&tmp);
    }
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

fn write_db(path: &Path, meta: &Meta, nodes: &[Node], edges: &[Edge], spec: &Spec) -> Result<(), Error> {
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
        let rows = sections(nodes);
        std::thread::scope(|scope| -> Result<(), Error> {
            // Tokenizing (stemming) is the costly part: the postings (and the nodes'
            // rows) are made on all cores while this thread writes the other tables.
            let worker = scope.spawn(|| {
                let docs = node_rows(nodes);
                let backlog = (spec.backlog)(nodes, edges, spec.states);
                let index = postings::index(nodes, &rows);
                let mut encoded: Vec<(String, Vec<u8>)> = index
                    .postings
                    .into_par_iter()
                    .map(|(term, list)| (term, postings::encode(&list)))
                    .collect();
                encoded.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
                (docs, encoded, index.corpus, backlog)
            });
            let mut put_section = tx
                .prepare("INSERT INTO sections VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
                .map_err(e)?;
            for row in &rows {
                let c = row.chunk;
                put_section
                    .execute(params![
                        row.rowid,
                        c.id,
                        row.doc,
                        row.heading,
                        c.level.unwrap_or(0),
                        c.line.unwrap_or(0),
                        c.text.as_deref().unwrap_or(""),
                        c.tokens.unwrap_or(0)
                    ])
                    .map_err(e)?;
            }
            if fts {
                let mut put_fts = tx
                    .prepare("INSERT INTO sections_fts(rowid, title, heading, body) VALUES (?1, ?2, ?3, ?4)")
                    .map_err(e)?;
                let terms: Vec<[String; 3]> = postings::row_terms(nodes, &rows)
                    .into_par_iter()
                    .map(|cols| cols.map(|c| c.join(" ")))
                    .collect();
                for (row, [t_title, t_heading, t_body]) in rows.iter().zip(terms) {
                    put_fts
                        .execute(params![row.rowid, t_title, t_heading, t_body])
                        .map_err(e)?;
                }
            }
            insert_edges(&tx, edges).map_err(e)?;
            tx.execute_batch(INDEXES).map_err(e)?;
            let (docs, encoded, corpus, backlog) =
                worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            let mut put_node = tx
                .prepare("INSERT INTO nodes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")
                .map_err(e)?;
            for row in docs? {
                put_node.execute(rusqlite::params_from_iter(row.values())).map_err(e)?;
            }
            tx.execute_batch(NODE_INDEXES).map_err(e)?;
            put_backlog(&tx, &backlog, spec).map_err(e)?;
            let mut put_posting = tx.prepare("INSERT INTO postings VALUES (?1, ?2)").map_err(e)?;
            for (term, data) in &encoded {
                put_posting.execute(params![term, data]).map_err(e)?;
            }
            put_corpus(&tx, &corpus).map_err(e)?;
            Ok(())
        })?;
    }
    tx.commit().map_err(e)?;
    Ok(())
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

    /// The title (column `title`: the FTS5 title column of the document's rows).
    pub(super) fn title(&self) -> &str {
        self.text(7)
    }
}

/// The `nodes` rows of the documents, in node order.
pub(super) fn node_rows(nodes: &[Node]) -> Result<Vec<NodeRow>, Error> {
    use rusqlite::types::Value;
    let text = |s: &str| Value::Text(s.to_string());
    let opt = |s: Option<&str>| s.map_or(Value::Null, |s| Value::Text(s.to_string()));
    let docs: Vec<&Node> = nodes.iter().filter(|n| !n.is_chunk()).collect();
    docs.into_par_iter()
        .map(|n| {
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
        })
        .collect()
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
    let mut put_edge = conn.prepare("INSERT INTO edges VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
    for ed in table_edges(edges) {
        put_edge.execute(params![
            ed.source,
            ed.target,
            ed.r#type.as_str(),
            ed.origin.as_str(),
            ed.path,
            ed.line,
            ed.weight
        ])?;
    }
    Ok(())
}

/// Make the `backlog` table hold `table`'s rows and its meta keys: rows that differ
/// from what the table holds are written, rows of documents gone are removed (an edit
/// changes a few rows; a rebuild starts from an empty table).
pub(super) fn put_backlog(conn: &Connection, table: &BacklogTable, spec: &Spec) -> rusqlite::Result<()> {
    use rusqlite::types::Value;
    let text = |s: &str| Value::Text(s.to_string());
    let opt = |s: &Option<String>| s.as_deref().map_or(Value::Null, text);
    let mut old: HashMap<String, Vec<Value>> = HashMap::new();
    {
        let mut st = conn.prepare("SELECT * FROM backlog")?;
        let width = st.column_count();
        let mut q = st.query([])?;
        while let Some(r) = q.next()? {
            let values = (0..width).map(|i| r.get(i)).collect::<rusqlite::Result<_>>()?;
            old.insert(r.get(0)?, values);
        }
    }
    let mut put =
        conn.prepare("INSERT OR REPLACE INTO backlog VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")?;
    for r in &table.rows {
        let i = &r.item;
        let values = vec![
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
        ];
        if old.remove(&i.id).as_ref() != Some(&values) {
            put.execute(rusqlite::params_from_iter(values))?;
        }
    }
    let mut drop = conn.prepare("DELETE FROM backlog WHERE id = ?1")?;
    for id in old.keys() {
        drop.execute([id])?;
    }
    let cycles = serde_json::to_string(&table.cycles).unwrap_or_default();
    let mut put_meta = conn.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)")?;
    put_meta.execute(params!["states", spec.states_digest()])?;
    put_meta.execute(params!["cycles", cycles])?;
    Ok(())
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
    Ok(())
}
