//! An edit's update of the `backlog` table over the part of the backlog it can change:
//! the ids tied to the edited documents, directly or not, by the links the table is made
//! from ([`BACKLOG_TYPES`], followed either way). A document's row (its group, parent,
//! whether it is ready, what it unblocks and why) reads only documents so tied to it, so
//! every row outside the part stays as it is but for its place in `ready`'s order, which
//! the part's ready items move, and so do the blocker cycles outside it. In a spec folder
//! a part is one feature (73 of 3,650 documents in `bench/spec_bench.py`): the update
//! reads and writes its rows and the places of the ready items, instead of every document
//! and link.
//!
//! Why the part is enough: an edit that takes the short cut changes the edited documents
//! and the links from them, nothing else (it keeps every id). The part starts from the
//! edited documents and the ends of their backlog links before the edit ([`seeds`]), and
//! takes every id tied to those after it ([`put_part`]). A document tied to an edited one
//! before the edit is tied after it to an edited document or to an old end of its links
//! (follow the path to the first edited document on it: the links before it are not the
//! edit's). A document outside the part is then tied, before and after the edit, to the
//! same documents by the same links, none of them edited.

use super::fresh::{Spec, meta_value};
use super::read::{BACKLOG_TYPES, Link, Ranked, docs_among, type_list};
use super::write::{BACKLOG_WIDTH, backlog_values, holds};
use crate::model::backlog::{BacklogRow, BacklogTable};
use rusqlite::{Connection, params};
use std::collections::{BTreeSet, HashMap};

/// A part of at most this share of the documents (one in eight) is made again by itself.
/// A larger one (a backlog whose items an epic tree and blockers tie together, as
/// `bench/gen_backlog.py` ties 9,854 of 10,100) takes the whole table's way: the search
/// for the part stops there, having cost about 1.2 µs an id (1.5 ms at 10k documents,
/// against about 30 ms for the whole table), and a part's rows cost more each than a
/// whole table's (one lookup each instead of one pass over all).
const MAX_SHARE: usize = 8;

/// Before the edit's rows change: the edited documents `docs` and the ends of their
/// backlog links (a link the edit removes may have tied them to others).
pub(super) fn seeds<'d>(conn: &Connection, docs: impl Iterator<Item = &'d str>) -> rusqlite::Result<Vec<String>> {
    let mut targets = conn.prepare(&format!(
        "SELECT target FROM edges INDEXED BY edges_source WHERE source = ?1 AND type IN ({})",
        type_list(&BACKLOG_TYPES)
    ))?;
    let mut out = Vec::new();
    for doc in docs {
        out.push(doc.to_string());
        let mut q = targets.query([doc])?;
        while let Some(r) = q.next()? {
            out.push(r.get(0)?);
        }
    }
    Ok(out)
}

/// After the edit's rows changed: make the `backlog` rows of the part tied to `seeds`
/// again (by `spec`'s code, numbered among the ready items elsewhere), move the ready
/// items elsewhere to their new places, and list the cycles elsewhere with the part's.
/// Ok(false), having written nothing, when the part holds more than an eighth of the
/// documents, or the table is not as a build leaves it (its `ready` places not 0, 1, 2,
/// …, its cycles unreadable): then the caller makes the whole table again.
pub(super) fn put_part(conn: &Connection, seeds: &[String], spec: &Spec) -> rusqlite::Result<bool> {
    let documents: i64 = conn.query_row("SELECT count(*) FROM nodes", [], |r| r.get(0))?;
    let Some((ids, links)) = part(conn, seeds, documents as usize / MAX_SHARE)? else {
        return Ok(false);
    };
    let Some((elsewhere, places)) = ready_elsewhere(conn, &ids)? else {
        return Ok(false);
    };
    let cycles = meta_value(conn, "cycles").and_then(|c| serde_json::from_str::<Vec<Vec<String>>>(&c).ok());
    let Some(cycles) = cycles else {
        return Ok(false);
    };
    let Some(mut docs) = docs_among(conn, &ids, links) else {
        return Ok(false);
    };
    docs.elsewhere = elsewhere;
    let table = (spec.backlog_docs)(&docs, spec.states);
    put_rows(conn, &ids, &table)?;
    renumber(conn, &docs.elsewhere, &places, &table)?;
    // A cycle lies within one part: those outside this one stay. Sorted, as `ready`
    // lists them.
    let mut now: Vec<Vec<String>> = cycles
        .iter()
        .filter(|c| !c.iter().any(|id| ids.contains(id)))
        .cloned()
        .collect();
    now.extend(table.cycles.iter().cloned());
    now.sort();
    if now != cycles {
        let json = serde_json::to_string(&now).unwrap_or_default();
        conn.execute("UPDATE meta SET value = ?1 WHERE key = 'cycles'", [json])?;
    }
    Ok(true)
}

/// The ids tied to `seeds` by backlog links, either way (documents, and the ends of links
/// that are none), with every backlog link from them; None past `max` ids.
fn part(conn: &Connection, seeds: &[String], max: usize) -> rusqlite::Result<Option<(BTreeSet<String>, Vec<Link>)>> {
    // Both ends of an id's edges in one statement, each found by one seek of an index
    // (the types are told apart here: a list of them would seek once per type).
    let mut ends = conn.prepare(
        "SELECT target, type, 1 FROM edges INDEXED BY edges_source WHERE source = ?1 \
         UNION ALL SELECT source, type, 0 FROM edges INDEXED BY edges_target WHERE target = ?1",
    )?;
    let mut ids: BTreeSet<String> = seeds.iter().cloned().collect();
    let mut todo: Vec<String> = ids.iter().cloned().collect();
    let mut links = Vec::new();
    while let Some(id) = todo.pop() {
        if ids.len() > max {
            return Ok(None);
        }
        let mut q = ends.query([&id])?;
        while let Some(r) = q.next()? {
            let kind = r.get_ref(1)?.as_str()?;
            let Some(r#type) = BACKLOG_TYPES.into_iter().find(|t| t.as_str() == kind) else {
                continue;
            };
            let end = r.get_ref(0)?.as_str()?;
            if !ids.contains(end) {
                ids.insert(end.to_string());
                todo.push(end.to_string());
            }
            if r.get::<_, i64>(2)? == 1 {
                links.push(Link {
                    source: id.clone(),
                    target: end.to_string(),
                    r#type,
                });
            }
        }
    }
    Ok((ids.len() <= max).then_some((ids, links)))
}

/// The ready items outside `ids` in `ready`'s order, with their places (from the covering
/// index `backlog_ready`); None when the places are not 0, 1, 2, … as a build numbers
/// them.
fn ready_elsewhere(conn: &Connection, ids: &BTreeSet<String>) -> rusqlite::Result<Option<(Vec<Ranked>, Vec<usize>)>> {
    let mut st = conn.prepare(
        "SELECT id, priority, unblocks, ready FROM backlog INDEXED BY backlog_ready WHERE ready IS NOT NULL ORDER BY ready",
    )?;
    let mut q = st.query([])?;
    let (mut items, mut places) = (Vec::new(), Vec::new());
    let mut place = 0usize;
    while let Some(r) = q.next()? {
        if r.get::<_, i64>(3)? != place as i64 {
            return Ok(None);
        }
        let id: String = r.get(0)?;
        if !ids.contains(&id) {
            items.push(Ranked {
                id,
                priority: r.get(1)?,
                unblocks: r.get::<_, i64>(2)? as usize,
            });
            places.push(place);
        }
        place += 1;
    }
    Ok(Some((items, places)))
}

/// Write the part's rows that differ from the rows the table holds (compared in place),
/// and remove the rows of its ids that are no documents (none while edits keep every
/// document).
fn put_rows(conn: &Connection, ids: &BTreeSet<String>, table: &BacklogTable) -> rusqlite::Result<()> {
    let rows: HashMap<&str, &BacklogRow> = table.rows.iter().map(|r| (r.item.id.as_str(), r)).collect();
    let mut held = conn.prepare("SELECT * FROM backlog WHERE id = ?1")?;
    let width = held.column_count();
    let mut put =
        conn.prepare("INSERT OR REPLACE INTO backlog VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")?;
    let mut drop = conn.prepare("DELETE FROM backlog WHERE id = ?1")?;
    for id in ids {
        let row = rows.get(id.as_str()).copied();
        // Whether the table holds the row as it is (None: it holds no row of `id`).
        let same = match (held.query([id])?.next()?, row) {
            (Some(h), Some(r)) => Some(width == BACKLOG_WIDTH && holds(h, r)?),
            (Some(_), None) => Some(false),
            (None, _) => None,
        };
        match (row, same) {
            (Some(r), None | Some(false)) => {
                put.execute(rusqlite::params_from_iter(backlog_values(r)))?;
            }
            (None, Some(_)) => {
                drop.execute([id])?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Move the ready items elsewhere (`elsewhere`, at `places`) to their new places: in
/// order, the places the part's ready rows leave free.
fn renumber(conn: &Connection, elsewhere: &[Ranked], places: &[usize], table: &BacklogTable) -> rusqlite::Result<()> {
    let mut taken: Vec<usize> = table.rows.iter().filter_map(|r| r.ready).collect();
    taken.sort_unstable();
    let mut taken = taken.into_iter().peekable();
    let mut set = conn.prepare("UPDATE backlog SET ready = ?2 WHERE id = ?1")?;
    let mut slot = 0usize;
    for (item, &was) in elsewhere.iter().zip(places) {
        while taken.next_if_eq(&slot).is_some() {
            slot += 1;
        }
        if slot != was {
            set.execute(params![item.id, slot as i64])?;
        }
        slot += 1;
    }
    Ok(())
}
