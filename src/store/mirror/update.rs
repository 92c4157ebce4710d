//! The update in place: a copy of the mirror changed where the graph differs (the
//! common edit keeps its sections), holding exactly what a rebuild would write.

use super::fresh::{Spec, built_from, db_path, sidecar_digest, sql_err};
use super::read::load_corpus;
use super::write::{NodeRow, insert_edges, node_rows, put_backlog, put_corpus, replace, table_edges};
use crate::error::Error;
use crate::model::backlog::BacklogTable;
use crate::model::section::{SectionRow, section_name, sections, title_text};
use crate::model::{Edge, Node};
use crate::store::postings;
use crate::store::sidecar::Meta;
use rusqlite::{Connection, params};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Bring the mirror up to date with new nodes and edges by changing only what differs,
/// when the searchable rows are the same sections in the same order (edits inside
/// existing sections, state changes, new links: the common edit). The result holds
/// exactly what [`rebuild`](super::write::rebuild) would write (a test compares every table and the full-text
/// index), so both answer every query alike. Like a rebuild it works on a copy that is
/// renamed into place. Returns false, having changed nothing, when it cannot: no mirror,
/// another schema or tokenizer ([`tokenizer_id`](super::fresh::tokenizer_id)), the FTS5 table not as `spec` asks,
/// sections added, removed or reordered; then [`rebuild`](super::write::rebuild). Other state groups are no
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
pub(super) struct SectionFields {
    pub(super) heading: String,
    pub(super) level: i64,
    pub(super) line: i64,
    pub(super) text: String,
    pub(super) tokens: i64,
}

impl SectionFields {
    /// The fields of a `sections` row read from `heading, level, line, text, tokens`
    /// starting at column `at`.
    pub(super) fn read(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<SectionFields> {
        Ok(SectionFields {
            heading: r.get(at)?,
            level: r.get(at + 1)?,
            line: r.get(at + 2)?,
            text: r.get(at + 3)?,
            tokens: r.get(at + 4)?,
        })
    }

    pub(super) fn of(r: &SectionRow<'_>) -> SectionFields {
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
        out.push((r.get(1)?, r.get(2)?, SectionFields::read(r, 3)?));
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

/// A row's change in place: its `sections` row rewritten where it differs, and, when its
/// searchable text (title, heading, body) changed, the full-text table's row (when the
/// mirror has it) at once and its postings gathered for [`merge_postings`] ([`Reindex::finish`]).
pub(super) struct Reindex<'c> {
    set_section: rusqlite::Statement<'c>,
    fts: Option<(rusqlite::Statement<'c>, rusqlite::Statement<'c>)>,
    /// Terms of the changed rows, with the new postings of the changed rows.
    changed: BTreeMap<String, Vec<postings::Posting>>,
    /// Of those, the terms whose posting in some changed row is not what it was (only
    /// their lists are rewritten: a word added to a section changes one or two).
    differs: std::collections::HashSet<String>,
    rows: std::collections::HashSet<u32>,
}

impl<'c> Reindex<'c> {
    pub(super) fn new(conn: &'c Connection, fts: bool) -> rusqlite::Result<Reindex<'c>> {
        let fts = match fts {
            true => Some((
                conn.prepare(
                    "INSERT INTO sections_fts(sections_fts, rowid, title, heading, body) VALUES ('delete', ?1, ?2, ?3, ?4)",
                )?,
                conn.prepare("INSERT INTO sections_fts(rowid, title, heading, body) VALUES (?1, ?2, ?3, ?4)")?,
            )),
            false => None,
        };
        Ok(Reindex {
            set_section: conn.prepare(
                "UPDATE sections SET heading = ?2, level = ?3, line = ?4, text = ?5, tokens = ?6 WHERE rowid = ?1",
            )?,
            fts,
            changed: BTreeMap::new(),
            differs: std::collections::HashSet::new(),
            rows: std::collections::HashSet::new(),
        })
    }

    /// Row `rowid` went from `was` (under the document title `title_was`) to `now` (under
    /// `title`). Returns the row's new term count when its searchable text changed.
    pub(super) fn row(
        &mut self,
        rowid: i64,
        (title_was, was): (&str, &SectionFields),
        (title, now): (&str, &SectionFields),
    ) -> rusqlite::Result<Option<u32>> {
        if was != now {
            self.set_section
                .execute(params![rowid, now.heading, now.level, now.line, now.text, now.tokens])?;
        }
        // A row whose searchable text changed leaves the postings (and the full-text
        // table) with the terms it entered with, and enters again.
        let before = [title_was, was.heading.as_str(), was.text.as_str()];
        let after = [title, now.heading.as_str(), now.text.as_str()];
        if before == after {
            return Ok(None);
        }
        let old_terms = before.map(crate::text::tokenize::terms);
        let new_terms = after.map(crate::text::tokenize::terms);
        if let Some((delete_fts, put_fts)) = &mut self.fts {
            let [t, h, b] = old_terms.each_ref().map(|c| c.join(" "));
            delete_fts.execute(params![rowid, t, h, b])?;
            let [t, h, b] = new_terms.each_ref().map(|c| c.join(" "));
            put_fts.execute(params![rowid, t, h, b])?;
        }
        let row = (rowid - 1) as u32;
        let mut old: HashMap<&str, postings::Posting> = postings::row_postings(row, &old_terms).into_iter().collect();
        for (t, p) in postings::row_postings(row, &new_terms) {
            if old.remove(t) != Some(p) {
                self.differs.insert(t.to_string());
            }
            self.changed.entry(t.to_string()).or_default().push(p);
        }
        // Terms the row no longer has.
        for t in old.into_keys() {
            self.differs.insert(t.to_string());
            self.changed.entry(t.to_string()).or_default();
        }
        self.rows.insert(row);
        Ok(Some(new_terms.iter().map(|c| c.len() as u32).sum()))
    }

    /// Row `rowid` (`was`, under the document title `title_was`) leaves: its `sections`
    /// row, its full-text row and its postings.
    pub(super) fn remove(
        &mut self,
        conn: &Connection,
        rowid: i64,
        (title_was, was): (&str, &SectionFields),
    ) -> rusqlite::Result<()> {
        conn.execute("DELETE FROM sections WHERE rowid = ?1", [rowid])?;
        let old_terms = [title_was, was.heading.as_str(), was.text.as_str()].map(crate::text::tokenize::terms);
        if let Some((delete_fts, _)) = &mut self.fts {
            let [t, h, b] = old_terms.each_ref().map(|c| c.join(" "));
            delete_fts.execute(params![rowid, t, h, b])?;
        }
        for t in old_terms.iter().flatten() {
            self.differs.insert(t.clone());
            self.changed.entry(t.clone()).or_default();
        }
        self.rows.insert((rowid - 1) as u32);
        Ok(())
    }

    /// A new row `rowid`: the section `r` (`now`) of the document `doc` under the title
    /// `title`. Returns its term count.
    pub(super) fn add(
        &mut self,
        conn: &Connection,
        rowid: i64,
        (id, doc): (&str, &str),
        (title, now): (&str, &SectionFields),
    ) -> rusqlite::Result<u32> {
        conn.execute(
            "INSERT INTO sections VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![rowid, id, doc, now.heading, now.level, now.line, now.text, now.tokens],
        )?;
        let new_terms = [title, now.heading.as_str(), now.text.as_str()].map(crate::text::tokenize::terms);
        if let Some((_, put_fts)) = &mut self.fts {
            let [t, h, b] = new_terms.each_ref().map(|c| c.join(" "));
            put_fts.execute(params![rowid, t, h, b])?;
        }
        let row = (rowid - 1) as u32;
        for (t, p) in postings::row_postings(row, &new_terms) {
            self.differs.insert(t.to_string());
            self.changed.entry(t.to_string()).or_default().push(p);
        }
        self.rows.insert(row);
        Ok(new_terms.iter().map(|c| c.len() as u32).sum())
    }

    /// Write the gathered postings.
    pub(super) fn finish(self, conn: &Connection) -> Result<(), String> {
        let Reindex {
            mut changed,
            differs,
            rows,
            ..
        } = self;
        changed.retain(|t, _| differs.contains(t));
        merge_postings(conn, changed, &rows)
    }
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
        // Rows an edit moved (see `Corpus::row_rank`): numbered otherwise than these.
        if corpus.holes > 0 || !corpus.row_rank.is_empty() {
            return Ok(false);
        }
        let mut reindex = Reindex::new(&tx, fts).map_err(e)?;
        for (i, ((_, doc, was), r)) in old.iter().zip(&rows).enumerate() {
            let title = new_title.get(r.doc).map_or("", String::as_str);
            let now = SectionFields::of(r);
            if let Some(len) = reindex
                .row(i as i64 + 1, (old_title(doc), was), (title, &now))
                .map_err(e)?
                && let Some(l) = corpus.row_len.get_mut(i)
            {
                *l = len;
            }
        }
        reindex.finish(&tx).map_err(damaged)?;
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
