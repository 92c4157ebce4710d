//! The optional SQLite mirror `index.sqlite`: nodes, edges, sections, a contentless FTS5
//! table over the sections' stemmed title, heading and body, and the postings and row
//! statistics that search scores (with FTS5's bm25 formula, see [`crate::bm25`]).
//!
//! It is derived from the JSONL sidecar, built into a temporary file and renamed into
//! place, and records the digests of the sidecar files it mirrors: when they differ (or
//! the file is missing, of another schema, or corrupt) it is rebuilt. Sections are keyed
//! by their position in the sorted node list (`rowid`), the same numbering the in-memory
//! fallback uses, so both engines rank identically.

use crate::bm25;
use crate::error::Error;
use crate::model::{Edge, Kind, Node};
use crate::sidecar::{self, Meta};
use rayon::prelude::*;
use rusqlite::{Connection, OpenFlags, params};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// File name of the mirror inside the index folder.
pub const DB_FILE: &str = "index.sqlite";
/// Version of the mirror's tables; another version is rebuilt.
pub const DB_SCHEMA: i64 = 6;

/// Path of the mirror.
pub fn db_path(index_dir: &Path) -> PathBuf {
    index_dir.join(DB_FILE)
}

fn sql_err(path: &Path, e: rusqlite::Error) -> Error {
    Error::Other(format!("{}: sqlite: {e}", path.display()))
}

/// The normalized section name used for section weights: the heading lowercased with
/// single spaces (`Acceptance Criteria` → `acceptance criteria`).
pub fn section_name(heading: &str) -> String {
    heading.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The text of the title column (FTS5 and BM25) for a document: its title. (Ids are matched
/// exactly, not through full text: id fragments like `qry` would match every row.)
pub fn title_text(doc: &Node) -> String {
    doc.label().to_string()
}

/// True when the mirror exists, opens, has the current schema, and mirrors exactly the
/// sidecar described by `meta`. Any error (corrupt or truncated file) means "not fresh".
pub fn is_fresh(index_dir: &Path, outputs: &BTreeMap<String, String>) -> bool {
    mirrors(index_dir, &sidecar_digest(outputs))
}

/// True when the mirror exists, opens, has the current schema and was built from the
/// sidecar with this digest.
pub fn mirrors(index_dir: &Path, sidecar: &str) -> bool {
    let path = db_path(index_dir);
    if !path.is_file() {
        return false;
    }
    let check = || -> rusqlite::Result<bool> {
        let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let get = |k: &str| conn.query_row("SELECT value FROM meta WHERE key = ?1", [k], |r| r.get::<_, String>(0));
        Ok(get("schema")? == DB_SCHEMA.to_string() && get("sidecar")? == sidecar)
    };
    check().unwrap_or(false)
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

/// Rebuild the mirror from nodes and edges (sorted as in the sidecar).
pub fn rebuild(index_dir: &Path, meta: &Meta, nodes: &[Node], edges: &[Edge]) -> Result<(), Error> {
    let _lock = crate::lock::IndexLock::acquire(index_dir)?;
    let path = db_path(index_dir);
    let tmp = index_dir.join(format!(".{DB_FILE}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let result = write_db(&tmp, meta, nodes, edges).and_then(|()| {
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn write_db(path: &Path, meta: &Meta, nodes: &[Node], edges: &[Edge]) -> Result<(), Error> {
    let mut conn = Connection::open(path).map_err(|e| sql_err(path, e))?;
    let e = |err| sql_err(path, err);
    conn.execute_batch(
        "PRAGMA journal_mode = OFF;
         PRAGMA synchronous = OFF;
         CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
         CREATE TABLE nodes(id TEXT PRIMARY KEY, lid TEXT NOT NULL, raw_lid TEXT NOT NULL, uid TEXT,
                            kind TEXT NOT NULL, path TEXT NOT NULL, type TEXT, title TEXT NOT NULL,
                            state TEXT, degree INTEGER NOT NULL, json TEXT NOT NULL);
         CREATE TABLE edges(source TEXT NOT NULL, target TEXT NOT NULL, type TEXT NOT NULL,
                            origin TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL,
                            weight REAL NOT NULL);
         CREATE TABLE sections(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
                               heading TEXT NOT NULL, level INTEGER NOT NULL,
                               line INTEGER NOT NULL, text TEXT NOT NULL, tokens INTEGER NOT NULL);
         CREATE TABLE postings(term TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID;
         CREATE TABLE corpus(key TEXT PRIMARY KEY, value BLOB NOT NULL);
         CREATE VIRTUAL TABLE sections_fts USING fts5(title, heading, body, content='',
                               tokenize='unicode61 remove_diacritics 0');",
    )
    .map_err(e)?;
    let tx = conn.transaction().map_err(e)?;
    {
        let mut put_meta = tx.prepare("INSERT INTO meta(key, value) VALUES (?1, ?2)").map_err(e)?;
        put_meta.execute(params!["schema", DB_SCHEMA.to_string()]).map_err(e)?;
        put_meta
            .execute(params!["sidecar", sidecar_digest(&meta.outputs)])
            .map_err(e)?;
        let mut put_node = tx
            .prepare("INSERT INTO nodes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)")
            .map_err(e)?;
        let mut put_section = tx
            .prepare("INSERT INTO sections VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
            .map_err(e)?;
        let mut put_fts = tx
            .prepare("INSERT INTO sections_fts(rowid, title, heading, body) VALUES (?1, ?2, ?3, ?4)")
            .map_err(e)?;
        // Tokenizing (stemming) is the costly part: done once, on all cores, for both
        // the FTS5 table and the postings mdgraph ranks with.
        let (rows, terms) = bm25::row_terms(nodes);
        let index = bm25::index_rows(&rows, &terms);
        let tokens: Vec<[String; 3]> = terms.par_iter().map(|cols| cols.each_ref().map(|c| c.join(" "))).collect();
        for (row, [t_title, t_heading, t_body]) in rows.iter().zip(tokens) {
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
            put_fts
                .execute(params![row.rowid, t_title, t_heading, t_body])
                .map_err(e)?;
        }
        // Degree = distinct documents linked, either direction (hub damping).
        let degrees = crate::expand::degrees(&crate::expand::adjacency(edges));
        for n in nodes.iter().filter(|n| !n.is_chunk()) {
            let json = serde_json::to_string(n).map_err(|err| Error::Other(err.to_string()))?;
            let degree = degrees.get(&n.id).copied().unwrap_or(0) as i64;
            put_node
                .execute(params![
                    n.id,
                    n.id.to_lowercase(),
                    n.raw_id.as_deref().unwrap_or(&n.id).to_lowercase(),
                    n.uid.as_deref().map(str::to_lowercase),
                    n.kind.as_str(),
                    n.path,
                    n.r#type,
                    n.label(),
                    n.state,
                    degree,
                    json
                ])
                .map_err(e)?;
        }
        let mut put_posting = tx.prepare("INSERT INTO postings VALUES (?1, ?2)").map_err(e)?;
        let mut sorted: Vec<(&String, &Vec<bm25::Posting>)> = index.postings.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        for (term, list) in sorted {
            put_posting.execute(params![term, bm25::encode(list)]).map_err(e)?;
        }
        let c = &index.corpus;
        let json = |v: &Vec<String>| serde_json::to_vec(v).unwrap_or_default();
        let mut put_corpus = tx.prepare("INSERT INTO corpus VALUES (?1, ?2)").map_err(e)?;
        for (k, v) in [
            ("row_len", bm25::u32s_to_bytes(&c.row_len)),
            ("row_doc", bm25::u32s_to_bytes(&c.row_doc)),
            ("row_name", bm25::u32s_to_bytes(&c.row_name)),
            ("names", json(&c.names)),
            ("docs", json(&c.docs)),
        ] {
            put_corpus.execute(params![k, v]).map_err(e)?;
        }
        let mut put_edge = tx
            .prepare("INSERT INTO edges VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            .map_err(e)?;
        for ed in edges {
            let origin = ed.origin.as_str();
            put_edge
                .execute(params![
                    ed.source,
                    ed.target,
                    ed.r#type.as_str(),
                    origin,
                    ed.path,
                    ed.line,
                    ed.weight
                ])
                .map_err(e)?;
        }
    }
    tx.execute_batch(
        "CREATE INDEX nodes_lid ON nodes(lid);
         CREATE INDEX nodes_raw_lid ON nodes(raw_lid);
         CREATE INDEX edges_source ON edges(source);
         CREATE INDEX sections_doc ON sections(doc);
         CREATE INDEX edges_target ON edges(target);
",
    )
    .map_err(e)?;
    tx.commit().map_err(e)?;
    Ok(())
}

/// Read the row statistics stored by [`rebuild`].
pub fn load_corpus(conn: &Connection) -> Result<bm25::Corpus, String> {
    let mut st = conn
        .prepare("SELECT key, value FROM corpus")
        .map_err(|e| e.to_string())?;
    let rows = st
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?)))
        .map_err(|e| e.to_string())?;
    let mut c = bm25::Corpus::default();
    for row in rows {
        let (k, v) = row.map_err(|e| e.to_string())?;
        let u32s = |v: &[u8]| bm25::bytes_to_u32s(v).ok_or_else(|| format!("damaged corpus `{k}`"));
        let strings =
            |v: &[u8]| serde_json::from_slice::<Vec<String>>(v).map_err(|e| format!("damaged corpus `{k}`: {e}"));
        match k.as_str() {
            "row_len" => c.row_len = u32s(&v)?,
            "row_doc" => c.row_doc = u32s(&v)?,
            "row_name" => c.row_name = u32s(&v)?,
            "names" => c.names = strings(&v)?,
            "docs" => c.docs = strings(&v)?,
            _ => {}
        }
    }
    if c.row_doc.len() != c.row_len.len() || c.row_name.len() != c.row_len.len() {
        return Err("damaged corpus: row tables disagree".into());
    }
    Ok(c)
}

/// A searchable section: its row number, chunk node, document id and heading. Documents
/// without any section get one empty row so their title stays searchable.
pub struct SectionRow<'a> {
    /// Row number (1-based), shared by both engines.
    pub rowid: i64,
    /// The chunk node (or the document itself for an empty document).
    pub chunk: &'a Node,
    /// The document id.
    pub doc: &'a str,
    /// The heading ("" for a document's only, empty row).
    pub heading: &'a str,
}

/// The searchable rows of a node list, in node order.
pub fn sections(nodes: &[Node]) -> Vec<SectionRow<'_>> {
    let with_sections: std::collections::HashSet<&str> = nodes.iter().filter_map(|n| n.doc.as_deref()).collect();
    let mut out = Vec::new();
    for n in nodes {
        let (doc, heading) = match n.kind {
            Kind::Chunk => (n.doc.as_deref().unwrap_or(""), n.heading.as_deref().unwrap_or("")),
            _ if !with_sections.contains(n.id.as_str()) => (n.id.as_str(), ""),
            _ => continue,
        };
        out.push(SectionRow {
            rowid: out.len() as i64 + 1,
            chunk: n,
            doc,
            heading,
        });
    }
    out
}

/// Make sure the mirror matches the sidecar, rebuilding it from the sidecar files when
/// needed. Returns whether it was rebuilt.
pub fn sync(index_dir: &Path) -> Result<bool, Error> {
    let outputs = sidecar::read_outputs(index_dir)
        .ok_or_else(|| Error::Other(format!("{}: no index to mirror", index_dir.display())))?;
    if is_fresh(index_dir, &outputs) {
        return Ok(false);
    }
    let loaded = sidecar::load(index_dir).ok_or_else(|| {
        Error::Other(format!(
            "{}: the index is damaged; run `mdgraph index`",
            index_dir.display()
        ))
    })?;
    rebuild(index_dir, &loaded.meta, &loaded.nodes, &loaded.edges)?;
    Ok(true)
}
