//! The update of an edit, in one transaction (SQLite's rollback journal keeps it whole if
//! the process is killed), when each edited document keeps its `backlog` row inputs (the
//! caller checks those). A document that keeps its sections (same ids, same headings,
//! same order) has its rows changed in place. One whose sections changed (added,
//! removed, renamed) has its rows moved: its old rows are left empty (holes) and the new
//! ones appended, with their places in a rebuild's order kept in the corpus
//! (`Corpus::row_rank`), which ties between equal scores follow; a rebuild (any run that
//! is not an edit) numbers the rows afresh. The result answers every query as a
//! rebuild's does (a test compares their contents under a rebuild's numbering, and
//! their searches and packs); the rowids of a document's edges differ when links were
//! added or removed, and those of its sections when they moved.

use super::fresh::{Spec, current, db_path, sql_err};
use super::part;
use super::read::{BACKLOG_TYPES, docs_of, load_corpus};
use super::update::{Reindex, SectionFields};
use super::write::{NodeRow, insert_edges, node_row, put_backlog, put_corpus, table_edges};
use crate::error::Error;
use crate::model::section::{SectionRow, sections, title_text};
use crate::model::{Edge, Node};
use crate::store::postings::Corpus;
use rusqlite::{Connection, params};
use std::path::Path;

/// One edited document as the new sidecar holds it.
#[derive(Debug, Clone)]
pub struct DocEdit {
    /// The document node and its sections (any order).
    pub nodes: Vec<Node>,
    /// Its edges, sorted as the sidecar sorts them (`section_of` ones may be included).
    pub edges: Vec<Edge>,
}

/// Apply `edits` to the mirror of the sidecar `old_sidecar`, making it the mirror of
/// `new_sidecar`; with `backlog`, the `backlog` table is made again from the updated rows
/// (an edit changed what it reads: a title, a state, a blocking link): the part of it the
/// edit can change (`part.rs`), or the whole table when that part is large. Returns false,
/// having changed nothing, when the mirror is not that of `old_sidecar` under `spec`, a
/// document's rows cannot be changed or moved (not one block of rowids; a section of
/// another document among its own in id order), or SQLite fails (a reader holding the
/// file for more than a second, a damaged file): then the caller takes the full path,
/// which writes a new mirror beside this one.
pub fn update_docs(
    index_dir: &Path,
    (old_sidecar, new_sidecar): (&str, &str),
    edits: &[DocEdit],
    backlog: bool,
    spec: &Spec,
) -> bool {
    let sidecars = (old_sidecar, new_sidecar);
    try_update(index_dir, sidecars, edits, backlog, spec)
        .ok()
        .flatten()
        .is_some()
}

/// How [`update_docs`] made the `backlog` table again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BacklogWay {
    /// Not at all: the edit changed nothing it reads.
    Kept,
    /// The part of the backlog the edit can change (`part.rs`).
    Part,
    /// The whole table.
    Whole,
}

/// [`update_docs`], saying how it made the `backlog` table again; None when it wrote
/// nothing.
#[cfg(test)]
pub(crate) fn update_docs_by(
    index_dir: &Path,
    sidecars: (&str, &str),
    edits: &[DocEdit],
    backlog: bool,
    spec: &Spec,
) -> Option<BacklogWay> {
    try_update(index_dir, sidecars, edits, backlog, spec).ok().flatten()
}

fn try_update(
    index_dir: &Path,
    (old_sidecar, new_sidecar): (&str, &str),
    edits: &[DocEdit],
    backlog: bool,
    spec: &Spec,
) -> Result<Option<BacklogWay>, Error> {
    let path = db_path(index_dir);
    if !path.is_file() {
        return Ok(None);
    }
    let e = |err| sql_err(&path, err);
    let mut conn = Connection::open(&path).map_err(e)?;
    conn.busy_timeout(std::time::Duration::from_secs(1)).map_err(e)?;
    conn.execute_batch("PRAGMA synchronous = OFF;").map_err(e)?;
    if !current(&conn, old_sidecar, spec) {
        return Ok(None);
    }
    let tx = conn.transaction().map_err(e)?;
    // What the edit can change of the `backlog` table starts from the edited documents and
    // their links before the edit (`part.rs`).
    let seeds = if backlog {
        let docs = edits.iter().filter_map(|ed| ed.nodes.iter().find(|n| !n.is_chunk()));
        part::seeds(&tx, docs.map(|n| n.id.as_str())).map_err(e)?
    } else {
        Vec::new()
    };
    if !apply(&tx, edits, spec.fts).map_err(|m| Error::Other(format!("{}: {m}", path.display())))? {
        return Ok(None);
    }
    // The part of the backlog the edit can change made again, or (a large part, a table
    // not as a build leaves it) the whole table, compared with its rows in place.
    let way = if !backlog {
        BacklogWay::Kept
    } else if part::put_part(&tx, &seeds, spec).map_err(e)? {
        BacklogWay::Part
    } else {
        let Some(docs) = docs_of(&tx, &BACKLOG_TYPES, false) else {
            return Ok(None);
        };
        put_backlog(&tx, &(spec.backlog_docs)(&docs, spec.states), spec).map_err(e)?;
        BacklogWay::Whole
    };
    tx.execute("UPDATE meta SET value = ?1 WHERE key = 'sidecar'", [new_sidecar])
        .map_err(e)?;
    tx.commit().map_err(e)?;
    Ok(Some(way))
}

/// A `sections` row the mirror holds: rowid, id and fields.
type OldRow = (i64, String, SectionFields);

/// A document whose sections changed (some added, removed or renamed): its old rows
/// `was` (consecutive rowids) become holes and its new `rows` are appended, their places
/// in the order a rebuild gives ([`Corpus::row_rank`]) those of the old block, the later
/// places moved by the difference. False when a row of another document sorts among the
/// document's old or new rows (its places would not be one block).
fn move_rows(
    conn: &Connection,
    c: &mut Corpus,
    reindex: &mut Reindex,
    (doc, was, rows): (&str, &[OldRow], &[SectionRow<'_>]),
    (title_was, title): (&str, &str),
) -> rusqlite::Result<bool> {
    let ids = || {
        was.iter()
            .map(|w| w.1.as_str())
            .chain(rows.iter().map(|r| r.chunk.id.as_str()))
    };
    let (Some(lo), Some(hi)) = (ids().min(), ids().max()) else {
        return Ok(false);
    };
    let foreign: bool = conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM sections WHERE id >= ?1 AND id <= ?2 AND doc != ?3)",
        params![lo, hi, doc],
        |r| r.get(0),
    )?;
    if foreign {
        return Ok(false);
    }
    let old: Vec<u32> = was.iter().map(|w| (w.0 - 1) as u32).collect();
    let headings: Vec<&str> = rows.iter().map(|r| r.heading).collect();
    let Some(base) = c.move_rows(&old, &headings) else {
        return Ok(false);
    };
    for (rowid, _, fields) in was {
        reindex.remove(conn, *rowid, (title_was, fields))?;
    }
    for (i, r) in rows.iter().enumerate() {
        let row = base as usize + i;
        let len = reindex.add(conn, row as i64 + 1, (&r.chunk.id, doc), (title, &SectionFields::of(r)))?;
        c.row_len[row] = len;
    }
    Ok(true)
}

/// Set the term counts of some rows (row number, count) in the corpus's `row_len`
/// table in place: 4 bytes each in a blob of 4 bytes a row, which for a 100k-item
/// mirror is 2 MB (read and written whole, this took about 20 ms of an edit). False when
/// a row is not in the table.
fn set_row_lens(conn: &Connection, lens: &[(usize, u32)]) -> Result<bool, String> {
    let e = |err: rusqlite::Error| err.to_string();
    let rowid: i64 = match conn.query_row("SELECT rowid FROM corpus WHERE key = 'row_len'", [], |r| r.get(0)) {
        Ok(id) => id,
        Err(rusqlite::Error::QueryReturnedNoRows) => return Ok(false),
        Err(err) => return Err(e(err)),
    };
    let mut blob = conn
        .blob_open(rusqlite::MAIN_DB, "corpus", "value", rowid, false)
        .map_err(e)?;
    if !blob.len().is_multiple_of(4) {
        return Err("damaged corpus `row_len`".into());
    }
    for &(row, len) in lens {
        let at = row * 4;
        if at + 4 > blob.len() {
            return Ok(false);
        }
        blob.write_at(&len.to_le_bytes(), at).map_err(e)?;
    }
    Ok(true)
}

/// The changes of [`update_docs`] inside its transaction; false when they cannot be
/// made (the transaction is then dropped).
fn apply(conn: &Connection, edits: &[DocEdit], fts: bool) -> Result<bool, String> {
    let e = |err: rusqlite::Error| err.to_string();
    let mut st = Statements::prepare(conn).map_err(e)?;
    let mut reindex = Reindex::new(conn, fts).map_err(e)?;
    let mut row_lens: Vec<(usize, u32)> = Vec::new();
    // Loaded once an edit moves a document's rows (its sections changed).
    let mut corpus: Option<Corpus> = None;
    for edit in edits {
        let mut nodes = edit.nodes.clone();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let Some(doc) = nodes.iter().find(|n| !n.is_chunk()) else {
            return Ok(false);
        };
        let rows = sections(&nodes);
        // The rows the mirror holds for the document: the same ids in the same order.
        let was = st.rows_of(&doc.id).map_err(e)?;
        let same_rows = was.len() == rows.len()
            && was
                .iter()
                .zip(&rows)
                .all(|((_, id, f), r)| *id == r.chunk.id && f.heading == r.heading);
        // Consecutive rowids: the rows are the document's block of the numbering.
        let consecutive = was.windows(2).all(|w| w[1].0 == w[0].0 + 1);
        if was.is_empty() || !consecutive {
            return Ok(false);
        }
        let held = match st.old_node.query_row([&doc.id], |r| {
            let width = r.as_ref().column_count();
            (0..width).map(|i| r.get(i)).collect::<rusqlite::Result<Vec<_>>>()
        }) {
            Ok(values) => NodeRow(values),
            Err(rusqlite::Error::QueryReturnedNoRows) => return Ok(false),
            Err(err) => return Err(e(err)),
        };
        let title_was = held.title().to_string();
        let title = title_text(doc);
        if same_rows {
            for ((rowid, _, before), r) in was.iter().zip(&rows) {
                let now = SectionFields::of(r);
                if let Some(len) = reindex.row(*rowid, (&title_was, before), (&title, &now)).map_err(e)? {
                    row_lens.push(((*rowid - 1) as usize, len));
                }
            }
        } else {
            if corpus.is_none() {
                corpus = Some(load_corpus(conn)?);
            }
            let Some(c) = corpus.as_mut() else {
                return Ok(false);
            };
            if !move_rows(conn, c, &mut reindex, (&doc.id, &was, &rows), (&title_was, &title)).map_err(e)? {
                return Ok(false);
            }
        }
        // The document's row.
        let row = node_row(doc).map_err(|err| err.to_string())?;
        if !row.same_columns(&held) {
            st.set_node
                .execute(rusqlite::params_from_iter(row.values()))
                .map_err(e)?;
        } else if row.json() != held.json() {
            // Only the JSON differs (a spec-folder item holds its file's hash): the
            // indexes, all on other columns, are left alone.
            st.set_json.execute(params![doc.id, row.json()]).map_err(e)?;
        }
        st.update_edges(conn, &doc.id, &edit.edges).map_err(e)?;
    }
    reindex.finish(conn)?;
    match corpus {
        Some(mut c) => {
            for (row, len) in row_lens {
                match c.row_len.get_mut(row) {
                    Some(l) => *l = len,
                    None => return Ok(false),
                }
            }
            put_corpus(conn, &c).map_err(e)?;
        }
        None if !row_lens.is_empty() && !set_row_lens(conn, &row_lens)? => return Ok(false),
        None => {}
    }
    Ok(true)
}

/// The statements [`apply`] runs for every edited document.
struct Statements<'c> {
    old_rows: rusqlite::Statement<'c>,
    old_node: rusqlite::Statement<'c>,
    old_edges: rusqlite::Statement<'c>,
    set_edge: rusqlite::Statement<'c>,
    drop_edges: rusqlite::Statement<'c>,
    set_node: rusqlite::Statement<'c>,
    set_json: rusqlite::Statement<'c>,
}

/// An `edges` row the mirror holds: rowid, target, type, origin, path, line, weight.
type OldEdge = (i64, String, String, String, String, i64, f64);

impl<'c> Statements<'c> {
    fn prepare(conn: &'c Connection) -> rusqlite::Result<Self> {
        Ok(Statements {
            old_rows: conn.prepare(
                "SELECT rowid, id, heading, level, line, text, tokens FROM sections WHERE doc = ?1 ORDER BY rowid",
            )?,
            old_node: conn.prepare("SELECT * FROM nodes WHERE id = ?1")?,
            old_edges: conn.prepare(
                "SELECT rowid, target, type, origin, path, line, weight FROM edges WHERE source = ?1 ORDER BY rowid",
            )?,
            set_edge: conn
                .prepare("UPDATE edges SET origin = ?2, path = ?3, line = ?4, weight = ?5 WHERE rowid = ?1")?,
            drop_edges: conn.prepare("DELETE FROM edges WHERE source = ?1")?,
            set_node: conn.prepare(
                "INSERT OR REPLACE INTO nodes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?,
            set_json: conn.prepare("UPDATE nodes SET json = ?2 WHERE id = ?1")?,
        })
    }

    /// The `sections` rows the mirror holds for a document, by rowid.
    fn rows_of(&mut self, doc: &str) -> rusqlite::Result<Vec<OldRow>> {
        let mut was: Vec<OldRow> = Vec::new();
        let mut q = self.old_rows.query([doc])?;
        while let Some(r) = q.next()? {
            was.push((r.get(0)?, r.get(1)?, SectionFields::read(r, 2)?));
        }
        Ok(was)
    }

    /// A document's edges (`edges`: sorted as the sidecar sorts them): the same targets
    /// and types in the same order have their other fields updated; else its rows go and
    /// its new ones are appended.
    fn update_edges(&mut self, conn: &Connection, doc: &str, edges: &[Edge]) -> rusqlite::Result<()> {
        let new_edges: Vec<&Edge> = table_edges(edges).filter(|ed| ed.source == doc).collect();
        let mut old: Vec<OldEdge> = Vec::new();
        let mut q = self.old_edges.query([doc])?;
        while let Some(r) = q.next()? {
            old.push((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ));
        }
        if old.len() == new_edges.len()
            && old
                .iter()
                .zip(&new_edges)
                .all(|(o, n)| o.1 == n.target && o.2 == n.r#type.as_str())
        {
            for (o, n) in old.iter().zip(&new_edges) {
                let same = o.3 == n.origin.as_str()
                    && o.4 == n.path
                    && o.5 == n.line as i64
                    && o.6.to_bits() == n.weight.to_bits();
                if !same {
                    self.set_edge
                        .execute(params![o.0, n.origin.as_str(), n.path, n.line, n.weight])?;
                }
            }
        } else {
            // Links added or removed: the document's rows go and its new ones are
            // appended. Their rowids then differ from a rebuild's, which no reader
            // sees (every query of the table goes through an index on its columns).
            self.drop_edges.execute([doc])?;
            let own: Vec<Edge> = new_edges.iter().map(|ed| (*ed).clone()).collect();
            insert_edges(conn, &own)?;
        }
        Ok(())
    }
}
