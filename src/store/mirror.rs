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
//! same sections as before, updated on a copy ([`update`]) to exactly what a rebuild
//! would hold. Sections are keyed by their position in the sorted node list (`rowid`),
//! the same numbering the in-memory fallback uses, so both engines rank identically.

use crate::config::StateGroups;
use crate::error::Error;
use crate::model::backlog::{BacklogTable, Group, Item, ListQuery, Ready};
use crate::model::section::{SectionRow, section_name, sections, title_text};
use crate::model::{Edge, EdgeType, Kind, Node};
use crate::store::postings;
use crate::store::sidecar::{self, Meta};
use rayon::prelude::*;
use rusqlite::{Connection, OpenFlags, params};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// File name of the mirror inside the index folder.
pub const DB_FILE: &str = "index.sqlite";
/// Version of the mirror's tables; another version is rebuilt. 8: `nodes` has `raw_id`
/// and `priority` columns and covering indexes for the backlog questions (`nodes_backlog`,
/// `edges_links`), which read those ([`load_docs`]) instead of every document's JSON
/// (10 MB at 10k items). 9: `nodes.nav` (navigation pages, which search follows but does
/// not rank). 10: no `degree` column (expansion counts the walked edges itself; a new link
/// rewrote the rows of both its ends). 11: the edge indexes cover what the graph walk and
/// a pack's relations read (no table row per edge), and the sections' index is in line
/// order (no sort per document); the corpus's document ids are one blob
/// ([`postings::Strings`]); the navigation pages have an index of their own. 12: the
/// `backlog` table, made under the `[states]` config named by the `states` meta key
/// ([`Spec`]).
pub const DB_SCHEMA: i64 = 12;

/// What the terms in a mirror depend on: the mdgraph version and the terms the tokenizer
/// makes of a fixed text (case folding, diacritics, scripts, the stemmer). A mirror
/// written under another is rebuilt: its terms would not match the queries', and an
/// update in place removes a changed row's old terms by tokenizing its old text again.
pub fn tokenizer_id() -> String {
    const SAMPLE: &str =
        "Running runners ran; Ünïcödé CAFÉ naïve — straße İstanbul ΣΊΣΥΦΟΣ 東京 ﬁnal x86_64 can't 42nd";
    let terms = crate::text::tokenize::terms(SAMPLE).join(" ");
    format!(
        "{} {}",
        env!("CARGO_PKG_VERSION"),
        blake3::hash(terms.as_bytes()).to_hex()
    )
}

/// Path of the mirror.
pub fn db_path(index_dir: &Path) -> PathBuf {
    index_dir.join(DB_FILE)
}

fn sql_err(path: &Path, e: rusqlite::Error) -> Error {
    Error::Other(format!("{}: sqlite: {e}", path.display()))
}

/// What a mirror is made for besides the sidecar it mirrors: with the FTS5 table or
/// not, and the `backlog` table under which `[states]` config.
#[derive(Clone, Copy)]
pub struct Spec<'a> {
    /// Add the FTS5 table (`sqlite_fts`).
    pub fts: bool,
    /// The state groups the `backlog` table is made under. They are query-time config,
    /// outside the config digest the sidecar records: the mirror records their digest,
    /// and a mirror made under other groups is stale.
    pub states: &'a StateGroups,
    /// Makes the `backlog` table from the graph: the backlog questions' own code, which
    /// lives a layer above this one.
    pub backlog: fn(&[Node], &[Edge], &StateGroups) -> BacklogTable,
}

impl Spec<'_> {
    /// The digest of the state groups (the `states` meta key).
    fn states_digest(&self) -> String {
        let json = serde_json::to_vec(self.states).unwrap_or_default();
        blake3::hash(&json).to_hex().to_string()
    }
}

/// True when the mirror exists, opens, has the current schema, has the FTS5 table exactly
/// when `spec` asks for it, was made under its state groups, and mirrors exactly the
/// sidecar described by `meta`. Any error (corrupt or truncated file) means "not fresh".
pub fn is_fresh(index_dir: &Path, outputs: &BTreeMap<String, String>, spec: &Spec) -> bool {
    mirrors(index_dir, &sidecar_digest(outputs), spec)
}

/// True when the mirror exists, opens, has the current schema and tokenizer
/// ([`tokenizer_id`]), has the FTS5 table exactly when `spec` asks for it, was made under
/// its state groups, and was built from the sidecar with this digest.
pub fn mirrors(index_dir: &Path, sidecar: &str, spec: &Spec) -> bool {
    let path = db_path(index_dir);
    path.is_file()
        && Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .ok()
            .is_some_and(|conn| current(&conn, sidecar, spec))
}

/// Is the open mirror the one `spec` asks for, built from the sidecar `sidecar`?
fn current(conn: &Connection, sidecar: &str, spec: &Spec) -> bool {
    built_from(conn, spec.fts).is_some_and(|d| d == sidecar) && meta_value(conn, "states") == Some(spec.states_digest())
}

fn meta_value(conn: &Connection, key: &str) -> Option<String> {
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| {
        r.get::<_, String>(0)
    })
    .ok()
}

/// The value of the `fts` meta key: whether the mirror has the FTS5 table.
fn fts_flag(fts: bool) -> &'static str {
    if fts { "1" } else { "0" }
}

/// The digest of the sidecar an open mirror was built from, when its schema, tokenizer
/// and FTS5 table (present exactly when `fts`) are the ones asked for (None otherwise, or
/// when it cannot be read).
fn built_from(conn: &Connection, fts: bool) -> Option<String> {
    let get = |k: &str| meta_value(conn, k);
    (get("schema")? == DB_SCHEMA.to_string() && get("tokenizer")? == tokenizer_id() && get("fts")? == fts_flag(fts))
        .then(|| get("sidecar"))
        .flatten()
}

/// One string naming the sidecar state a mirror was built from (a digest over the
/// output digests in `meta.json`).
pub fn sidecar_digest(outputs: &BTreeMap<String, String>) -> String {
    let mut h = blake3::Hasher::new();
    for (name, d) in outputs {
        h.update(name.as_bytes());
        h.update(d.as_bytes());
    }
    h.finalize().to_hex().to_string()
}

/// Rebuild the mirror from nodes and edges (sorted as in the sidecar), as `spec` asks.
pub fn rebuild(index_dir: &Path, meta: &Meta, nodes: &[Node], edges: &[Edge], spec: &Spec) -> Result<(), Error> {
    replace(index_dir, |tmp| write_db(tmp, meta, nodes, edges, spec).map(|()| true)).map(|_| ())
}

/// Replace the mirror under the index lock with what `fill` writes to a temporary file in
/// the same folder: fsynced and renamed into place when `fill` returns true, removed
/// when it returns false or fails.
fn replace(index_dir: &Path, fill: impl FnOnce(&Path) -> Result<bool, Error>) -> Result<bool, Error> {
    let _lock = crate::store::lock::IndexLock::acquire(index_dir)?;
    let path = db_path(index_dir);
    let tmp = index_dir.join(format!(".{DB_FILE}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let result = fill(&tmp).and_then(|keep| {
        if keep {
            std::fs::File::open(&tmp)
                .and_then(|f| f.sync_all())
                .map_err(|e| Error::io(&tmp, e))?;
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
    // A new temporary file that nothing else opens until it is fsynced and renamed into
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
struct NodeRow(Vec<rusqlite::types::Value>);

impl NodeRow {
    fn values(&self) -> impl Iterator<Item = &rusqlite::types::Value> {
        self.0.iter()
    }

    fn text(&self, column: usize) -> &str {
        match self.0.get(column) {
            Some(rusqlite::types::Value::Text(t)) => t,
            _ => "",
        }
    }

    /// The document id (column `id`).
    fn id(&self) -> &str {
        self.text(0)
    }

    /// The title (column `title`: the FTS5 title column of the document's rows).
    fn title(&self) -> &str {
        self.text(7)
    }
}

/// The `nodes` rows of the documents, in node order.
fn node_rows(nodes: &[Node]) -> Result<Vec<NodeRow>, Error> {
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
fn table_edges(edges: &[Edge]) -> impl Iterator<Item = &Edge> {
    edges.iter().filter(|e| e.r#type != crate::model::EdgeType::SectionOf)
}

/// Append the edges the table holds ([`table_edges`]), in order (their rowids follow the
/// table's last).
fn insert_edges(conn: &Connection, edges: &[Edge]) -> rusqlite::Result<()> {
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
fn put_backlog(conn: &Connection, table: &BacklogTable, spec: &Spec) -> rusqlite::Result<()> {
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
fn put_corpus(conn: &Connection, c: &postings::Corpus) -> rusqlite::Result<()> {
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

/// Bring the mirror up to date with new nodes and edges by changing only what differs,
/// when the searchable rows are the same sections in the same order (edits inside
/// existing sections, state changes, new links: the common edit). The result holds
/// exactly what [`rebuild`] would write (a test compares every table and the full-text
/// index), so both answer every query alike. Like a rebuild it works on a copy that is
/// renamed into place. Returns false, having changed nothing, when it cannot: no mirror,
/// another schema or tokenizer ([`tokenizer_id`]), the FTS5 table not as `spec` asks,
/// sections added, removed or reordered; then [`rebuild`]. Other state groups are no
/// obstacle: the `backlog` table is always written whole.
pub fn update(index_dir: &Path, meta: &Meta, nodes: &[Node], edges: &[Edge], spec: &Spec) -> Result<bool, Error> {
    let path = db_path(index_dir);
    if !path.is_file() {
        return Ok(false);
    }
    replace(index_dir, |tmp| {
        std::fs::copy(&path, tmp).map_err(|e| Error::io(tmp, e))?;
        update_db(tmp, meta, nodes, edges, spec)
    })
}

/// The fields of a `sections` row besides its ids.
#[derive(PartialEq)]
struct SectionFields {
    heading: String,
    level: i64,
    line: i64,
    text: String,
    tokens: i64,
}

impl SectionFields {
    fn of(r: &SectionRow<'_>) -> SectionFields {
        SectionFields {
            heading: r.heading.to_string(),
            level: r.chunk.level.unwrap_or(0) as i64,
            line: r.chunk.line.unwrap_or(0) as i64,
            text: r.chunk.text.as_deref().unwrap_or("").to_string(),
            tokens: r.chunk.tokens.unwrap_or(0) as i64,
        }
    }
}

/// The mirror's sections in rowid order as (id, doc, fields); None when the rowids are
/// not 1, 2, 3, … (then only a rebuild knows the numbering).
fn read_sections(conn: &Connection) -> rusqlite::Result<Option<Vec<(String, String, SectionFields)>>> {
    let mut st =
        conn.prepare("SELECT rowid, id, doc, heading, level, line, text, tokens FROM sections ORDER BY rowid")?;
    let mut q = st.query([])?;
    let mut out = Vec::new();
    while let Some(r) = q.next()? {
        if r.get::<_, i64>(0)? != out.len() as i64 + 1 {
            return Ok(None);
        }
        let fields = SectionFields {
            heading: r.get(3)?,
            level: r.get(4)?,
            line: r.get(5)?,
            text: r.get(6)?,
            tokens: r.get(7)?,
        };
        out.push((r.get(1)?, r.get(2)?, fields));
    }
    Ok(Some(out))
}

/// The mirror's document rows by id.
fn read_nodes(conn: &Connection) -> rusqlite::Result<HashMap<String, NodeRow>> {
    let mut st = conn.prepare("SELECT * FROM nodes")?;
    let width = st.column_count();
    let mut q = st.query([])?;
    let mut out = HashMap::new();
    while let Some(r) = q.next()? {
        let values = (0..width).map(|i| r.get(i)).collect::<rusqlite::Result<_>>()?;
        out.insert(r.get(0)?, NodeRow(values));
    }
    Ok(out)
}

/// Does the `edges` table hold exactly the [`table_edges`] of `edges`, in this order?
fn same_edges(conn: &Connection, edges: &[Edge]) -> rusqlite::Result<bool> {
    let mut st = conn.prepare("SELECT source, target, type, origin, path, line, weight FROM edges ORDER BY rowid")?;
    let mut q = st.query([])?;
    let mut expected = table_edges(edges);
    while let Some(r) = q.next()? {
        let Some(ed) = expected.next() else {
            return Ok(false);
        };
        let same = r.get_ref(0)?.as_str()? == ed.source
            && r.get_ref(1)?.as_str()? == ed.target
            && r.get_ref(2)?.as_str()? == ed.r#type.as_str()
            && r.get_ref(3)?.as_str()? == ed.origin.as_str()
            && r.get_ref(4)?.as_str()? == ed.path
            && r.get::<_, i64>(5)? == ed.line as i64
            && r.get::<_, f64>(6)?.to_bits() == ed.weight.to_bits();
        if !same {
            return Ok(false);
        }
    }
    Ok(expected.next().is_none())
}

/// The postings of one row's terms (title, heading, body), in first-seen term order.
fn row_postings(row: u32, terms: &[Vec<String>; 3]) -> Vec<(&str, postings::Posting)> {
    let mut out: Vec<(&str, postings::Posting)> = Vec::new();
    let mut slot: HashMap<&str, usize> = HashMap::new();
    for (col, list) in terms.iter().enumerate() {
        for t in list {
            let i = *slot.entry(t).or_insert_with(|| {
                out.push((t, postings::Posting { row, tf: [0; 3] }));
                out.len() - 1
            });
            out[i].1.tf[col] += 1;
        }
    }
    out
}

/// Rewrite the posting lists of `changed` terms: the entries of `rows` leave, the new
/// ones (already in row order) enter, and a term left with none is removed.
fn merge_postings(
    conn: &Connection,
    changed: BTreeMap<String, Vec<postings::Posting>>,
    rows: &std::collections::HashSet<u32>,
) -> Result<(), String> {
    let e = |err: rusqlite::Error| err.to_string();
    let mut get = conn.prepare("SELECT data FROM postings WHERE term = ?1").map_err(e)?;
    let mut put = conn
        .prepare("INSERT OR REPLACE INTO postings VALUES (?1, ?2)")
        .map_err(e)?;
    let mut drop = conn.prepare("DELETE FROM postings WHERE term = ?1").map_err(e)?;
    for (term, fresh) in changed {
        let blob: Option<Vec<u8>> = match get.query_row([&term], |r| r.get(0)) {
            Ok(b) => Some(b),
            Err(rusqlite::Error::QueryReturnedNoRows) => None,
            Err(err) => return Err(e(err)),
        };
        let mut list = match blob {
            Some(b) => postings::decode(&b).ok_or_else(|| format!("damaged postings for `{term}`"))?,
            None => Vec::new(),
        };
        list.retain(|p| !rows.contains(&p.row));
        list.extend(fresh);
        list.sort_by_key(|p| p.row);
        if list.is_empty() {
            drop.execute([&term]).map_err(e)?;
        } else {
            put.execute(params![term, postings::encode(&list)]).map_err(e)?;
        }
    }
    Ok(())
}

fn update_db(path: &Path, meta: &Meta, nodes: &[Node], edges: &[Edge], spec: &Spec) -> Result<bool, Error> {
    // The backlog table is made on another core while the sections are compared.
    std::thread::scope(|scope| {
        let backlog = scope.spawn(|| (spec.backlog)(nodes, edges, spec.states));
        let backlog = || backlog.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        update_tables(path, meta, nodes, edges, spec, backlog)
    })
}

/// [`update_db`] once `backlog` gives the backlog table.
fn update_tables(
    path: &Path,
    meta: &Meta,
    nodes: &[Node],
    edges: &[Edge],
    spec: &Spec,
    backlog: impl FnOnce() -> BacklogTable,
) -> Result<bool, Error> {
    let e = |err| sql_err(path, err);
    let fts = spec.fts;
    let mut conn = Connection::open(path).map_err(e)?;
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
        .map_err(e)?;
    if built_from(&conn, fts).is_none() {
        return Ok(false);
    }
    // The searchable rows must be the same sections of the same documents, in order, and
    // the documents the same.
    let rows = sections(nodes);
    let Some(old) = read_sections(&conn).map_err(e)? else {
        return Ok(false);
    };
    let same_rows = old.len() == rows.len()
        && old
            .iter()
            .zip(&rows)
            .all(|((id, doc, _), r)| *id == r.chunk.id && doc == r.doc);
    let new_nodes = node_rows(nodes)?;
    let old_nodes = read_nodes(&conn).map_err(e)?;
    if !same_rows || old_nodes.len() != new_nodes.len() || new_nodes.iter().any(|n| !old_nodes.contains_key(n.id())) {
        return Ok(false);
    }
    let old_title = |doc: &str| old_nodes.get(doc).map_or("", NodeRow::title);
    let new_title: HashMap<&str, String> = nodes
        .iter()
        .filter(|n| !n.is_chunk())
        .map(|n| (n.id.as_str(), title_text(n)))
        .collect();
    let tx = conn.transaction().map_err(e)?;
    let damaged = |m: String| Error::Other(format!("{}: {m}", path.display()));
    {
        let mut corpus = load_corpus(&tx).map_err(damaged)?;
        // The full-text table's statements, when the mirror has it.
        let mut fts_statements = match fts {
            true => Some((
                tx.prepare(
                    "INSERT INTO sections_fts(sections_fts, rowid, title, heading, body) VALUES ('delete', ?1, ?2, ?3, ?4)",
                )
                .map_err(e)?,
                tx.prepare("INSERT INTO sections_fts(rowid, title, heading, body) VALUES (?1, ?2, ?3, ?4)")
                    .map_err(e)?,
            )),
            false => None,
        };
        let mut set_section = tx
            .prepare("UPDATE sections SET heading = ?2, level = ?3, line = ?4, text = ?5, tokens = ?6 WHERE rowid = ?1")
            .map_err(e)?;
        // Terms whose postings change, with the new postings of the changed rows.
        let mut changed: BTreeMap<String, Vec<postings::Posting>> = BTreeMap::new();
        let mut changed_rows = std::collections::HashSet::new();
        for (i, ((_, doc, was), r)) in old.iter().zip(&rows).enumerate() {
            let now = SectionFields::of(r);
            let rowid = i as i64 + 1;
            if *was != now {
                set_section
                    .execute(params![rowid, now.heading, now.level, now.line, now.text, now.tokens])
                    .map_err(e)?;
            }
            // Rows whose searchable text changed (the title is the document's) leave the
            // postings (and the full-text table) with the terms they entered with, and
            // re-enter.
            let title = new_title.get(r.doc).map_or("", String::as_str);
            let before = [old_title(doc), was.heading.as_str(), was.text.as_str()];
            let after = [title, now.heading.as_str(), now.text.as_str()];
            if before == after {
                continue;
            }
            let old_terms = before.map(crate::text::tokenize::terms);
            let new_terms = after.map(crate::text::tokenize::terms);
            if let Some((delete_fts, put_fts)) = &mut fts_statements {
                let [t, h, b] = old_terms.each_ref().map(|c| c.join(" "));
                delete_fts.execute(params![rowid, t, h, b]).map_err(e)?;
                let [t, h, b] = new_terms.each_ref().map(|c| c.join(" "));
                put_fts.execute(params![rowid, t, h, b]).map_err(e)?;
            }
            for t in old_terms.iter().flatten() {
                changed.entry(t.clone()).or_default();
            }
            for (t, p) in row_postings(i as u32, &new_terms) {
                changed.entry(t.to_string()).or_default().push(p);
            }
            changed_rows.insert(i as u32);
            if let Some(len) = corpus.row_len.get_mut(i) {
                *len = new_terms.iter().map(|c| c.len() as u32).sum();
            }
        }
        merge_postings(&tx, changed, &changed_rows).map_err(damaged)?;
        // Section names are numbered in order of first appearance, as a rebuild does.
        let mut names: HashMap<String, u32> = HashMap::new();
        corpus.names.clear();
        corpus.row_name.clear();
        for r in &rows {
            let name = section_name(r.heading);
            let next = names.len() as u32;
            let n = *names.entry(name.clone()).or_insert_with(|| {
                corpus.names.push(name);
                next
            });
            corpus.row_name.push(n);
        }
        put_corpus(&tx, &corpus).map_err(e)?;
        // Documents whose row changed (frontmatter, title, state).
        let mut set_node = tx
            .prepare("INSERT OR REPLACE INTO nodes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")
            .map_err(e)?;
        for n in new_nodes.iter().filter(|n| old_nodes.get(n.id()) != Some(*n)) {
            set_node.execute(rusqlite::params_from_iter(n.values())).map_err(e)?;
        }
        // Edges are rewritten whole when any differs, so their rowids run in order as in
        // a rebuild.
        if !same_edges(&tx, edges).map_err(e)? {
            tx.execute("DELETE FROM edges", []).map_err(e)?;
            insert_edges(&tx, edges).map_err(e)?;
        }
        // The backlog table depends on every document and edge and on the state groups
        // of `spec`: made whole, written where it differs.
        put_backlog(&tx, &backlog(), spec).map_err(e)?;
        tx.execute(
            "UPDATE meta SET value = ?1 WHERE key = 'sidecar'",
            [sidecar_digest(&meta.outputs)],
        )
        .map_err(e)?;
    }
    tx.commit().map_err(e)?;
    Ok(true)
}

/// The ids of the navigation pages (from the partial index `nodes_nav`).
pub fn nav_ids(conn: &Connection) -> rusqlite::Result<std::collections::HashSet<String>> {
    let mut st = conn.prepare("SELECT id FROM nodes INDEXED BY nodes_nav WHERE nav <> 0")?;
    st.query_map([], |r| r.get(0))?.collect()
}

/// Read the row statistics stored by [`rebuild`].
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
            "names" => c.names = serde_json::from_slice(v).map_err(|e| format!("{}: {e}", damaged()))?,
            "docs" => c.docs = postings::Strings::from_bytes(v).ok_or_else(damaged)?,
            _ => {}
        }
    }
    if c.row_doc.len() != c.row_len.len() || c.row_name.len() != c.row_len.len() {
        return Err("damaged corpus: row tables disagree".into());
    }
    Ok(c)
}

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
    let loaded = sidecar::load(index_dir).ok_or_else(|| {
        Error::Other(format!(
            "{}: the index is damaged; run `mdgraph index`",
            index_dir.display()
        ))
    })?;
    let (meta, nodes, edges) = (&loaded.meta, &loaded.nodes, &loaded.edges);
    if !update(index_dir, meta, nodes, edges, spec).unwrap_or(false) {
        rebuild(index_dir, meta, nodes, edges, spec)?;
    }
    Ok(true)
}

/// The documents (no sections) and the edges of `types` from a mirror that mirrors the
/// current sidecar, for the backlog questions; None when there is no such mirror. With
/// `fields`, the documents are whole (their frontmatter too, parsed from each row's JSON);
/// without, they are read from the columns (id, kind, path, raw id, type, title, state),
/// and the priority of each is in [`Docs::priorities`].
pub fn load_docs(index_dir: &Path, types: &[EdgeType], spec: &Spec, fields: bool) -> Option<Docs> {
    let conn = open_current(index_dir, spec)?;
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
    let list = types
        .iter()
        .map(|t| format!("'{}'", t.as_str()))
        .collect::<Vec<_>>()
        .join(",");
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
fn doc_columns(mut rows: rusqlite::Rows) -> Option<(Vec<Node>, Vec<Option<String>>)> {
    let (mut nodes, mut priorities) = (Vec::with_capacity(1024), Vec::with_capacity(1024));
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
    Some((nodes, priorities))
}

/// The mirror opened read-only, when it mirrors the current sidecar as `spec` asks.
fn open_current(index_dir: &Path, spec: &Spec) -> Option<Connection> {
    let head = sidecar::read_meta_head(index_dir)?;
    // One thread reads: no SQLite mutex taken per column read.
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(db_path(index_dir), flags).ok()?;
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
    Some(Docs {
        nodes,
        links,
        priorities: Some(priorities),
    })
}
