//! The SQLite engine: postings, row statistics and documents read from the mirror
//! (`index.sqlite`).

use super::{DocInfo, Engine, EngineKind, SectionText};
use crate::error::Error;
use crate::model::Node;
use crate::model::graph::GraphEdge;
use crate::query::expand::GraphSource;
use crate::store::mirror;
use crate::store::postings::{self, Corpus, Posting, RowInfo};
use crate::text::tokenize;
use rusqlite::{Connection, OpenFlags};
use std::borrow::Cow;
use std::collections::HashSet;
use std::path::Path;

/// Search through the SQLite mirror (`index.sqlite`): the postings and row statistics
/// it stores.
pub struct SqliteEngine {
    conn: Connection,
    corpus: Corpus,
    /// The navigation pages' ids (from a partial index: usually none).
    nav: HashSet<String>,
}

impl SqliteEngine {
    /// Open the mirror read-only and load its row statistics.
    pub fn open(index_dir: &Path) -> Result<SqliteEngine, Error> {
        let path = mirror::db_path(index_dir);
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| Error::Other(format!("{}: {e}", path.display())))?;
        // A long-lived engine (`mdgraph mcp`) keeps the pages it read: a cache of up to
        // 64 MiB (filled on demand; the default is 2 MiB) and the file memory-mapped, so
        // a page read again is neither a `pread` nor a copy. A failed pragma only costs
        // speed.
        let _ = conn.execute_batch("PRAGMA cache_size = -65536; PRAGMA mmap_size = 1073741824;");
        // An edit commits in place (`mirror::update_docs`): wait out its commit.
        let _ = conn.busy_timeout(std::time::Duration::from_secs(2));
        let damaged = |e: String| Error::Other(format!("{}: {e}", path.display()));
        let corpus = mirror::load_corpus(&conn).map_err(damaged)?;
        let nav = mirror::nav_ids(&conn).map_err(|e| damaged(e.to_string()))?;
        Ok(SqliteEngine { conn, corpus, nav })
    }
}

fn sqlerr(e: rusqlite::Error) -> Error {
    Error::Store(e.to_string())
}

impl GraphSource for SqliteEngine {
    fn edges(&self, id: &str) -> Cow<'_, [GraphEdge]> {
        let Ok(mut st) = self.conn.prepare_cached(
            "SELECT target, type, weight, 1 FROM edges WHERE source = ?1 AND type <> 'section_of'
             UNION ALL
             SELECT source, type, weight, 0 FROM edges WHERE target = ?1 AND type <> 'section_of'",
        ) else {
            return Cow::Borrowed(&[]);
        };
        let rows = st.query_map([id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, f64>(2)?,
                r.get::<_, i64>(3)?,
            ))
        });
        rows.map(|rows| {
            rows.flatten()
                .filter_map(|(other, t, weight, fwd)| {
                    Some(GraphEdge {
                        other,
                        r#type: t.parse().ok()?,
                        forward: fwd == 1,
                        weight,
                    })
                })
                .collect()
        })
        .map_or(Cow::Borrowed(&[]), Cow::Owned)
    }
}

impl Engine for SqliteEngine {
    fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    fn postings(&self, term: &str) -> Result<Cow<'_, [Posting]>, Error> {
        let mut st = self
            .conn
            .prepare_cached("SELECT data FROM postings WHERE term = ?1")
            .map_err(sqlerr)?;
        // Decoded where SQLite holds the blob (no copy of it first).
        let mut rows = st.query([term]).map_err(sqlerr)?;
        let Some(row) = rows.next().map_err(sqlerr)? else {
            return Ok(Cow::Borrowed(&[]));
        };
        let blob = row
            .get_ref(0)
            .map_err(sqlerr)?
            .as_blob()
            .map_err(|e| Error::Store(e.to_string()))?;
        postings::decode(blob)
            .map(Cow::Owned)
            .ok_or_else(|| Error::Store(format!("damaged postings for `{term}`")))
    }

    fn row(&self, row: u32) -> Option<RowInfo> {
        let mut st = self
            .conn
            .prepare_cached("SELECT id, heading FROM sections WHERE rowid = ?1")
            .ok()?;
        st.query_row([row as i64 + 1], |r| {
            Ok(RowInfo {
                chunk: r.get(0)?,
                heading: r.get(1)?,
            })
        })
        .ok()
    }

    fn doc(&self, id: &str) -> Option<DocInfo> {
        let mut st = self
            .conn
            .prepare_cached("SELECT path, title, kind, type, state, nav FROM nodes WHERE id = ?1")
            .ok()?;
        st.query_row([id], |r| {
            let kind: String = r.get(2)?;
            Ok(DocInfo {
                path: r.get(0)?,
                title: r.get(1)?,
                kind: serde_json::from_value(serde_json::Value::String(kind)).unwrap_or_default(),
                r#type: r.get(3)?,
                state: r.get(4)?,
                nav: r.get::<_, i64>(5)? != 0,
            })
        })
        .ok()
    }

    fn is_nav(&self, id: &str) -> bool {
        self.nav.contains(id)
    }

    fn scoped_ids(&self, local: &str) -> Vec<String> {
        let tail = format!("/{}", local.to_lowercase());
        let Ok(mut st) = self
            .conn
            .prepare_cached("SELECT id FROM nodes WHERE substr(lid, -length(?1)) = ?1 ORDER BY id")
        else {
            return Vec::new();
        };
        st.query_map([tail], |r| r.get::<_, String>(0))
            .map(|rows| rows.flatten().collect())
            .unwrap_or_default()
    }

    fn exact_id(&self, token: &str) -> Option<String> {
        let t = token.to_lowercase();
        // Both lookups use an index; uid prefixes are compared in Rust (no LIKE, whose
        // wildcards would come from user text).
        let rows = |sql: &str, key: &str| -> Vec<(String, Option<String>)> {
            let Ok(mut st) = self.conn.prepare_cached(sql) else {
                return Vec::new();
            };
            st.query_map([key], |r| Ok((r.get(0)?, r.get(1)?)))
                .map(|rows| rows.flatten().collect())
                .unwrap_or_default()
        };
        if let [(id, _)] = rows("SELECT id, uid FROM nodes WHERE lid = ?1", &t).as_slice() {
            return Some(id.clone());
        }
        let (raw, uid) = t.split_once('@').unwrap_or((&t, ""));
        let hits: Vec<String> = rows("SELECT id, uid FROM nodes WHERE raw_lid = ?1", raw)
            .into_iter()
            .filter(|(_, u)| u.as_deref().unwrap_or("").starts_with(uid))
            .map(|(id, _)| id)
            .collect();
        match hits.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    fn node(&self, id: &str) -> Option<Node> {
        let mut st = self.conn.prepare_cached("SELECT json FROM nodes WHERE id = ?1").ok()?;
        let json: String = st.query_row([id], |r| r.get(0)).ok()?;
        serde_json::from_str(&json).ok()
    }

    fn sections_of(&self, doc: &str) -> Vec<SectionText> {
        let Ok(mut st) = self
            .conn
            .prepare_cached("SELECT id, heading, text, tokens FROM sections WHERE doc = ?1 ORDER BY line")
        else {
            return Vec::new();
        };
        st.query_map([doc], |r| {
            Ok(SectionText {
                chunk: r.get(0)?,
                heading: r.get(1)?,
                text: r.get(2)?,
                tokens: r.get(3)?,
            })
        })
        .map(|rows| rows.flatten().filter(|s| s.chunk != doc).collect())
        .unwrap_or_default()
    }

    fn row_terms(&self, row: u32) -> HashSet<String> {
        let Ok(mut st) = self.conn.prepare_cached(
            "SELECT n.title, s.heading, s.text FROM sections s JOIN nodes n ON n.id = s.doc WHERE s.rowid = ?1",
        ) else {
            return HashSet::new();
        };
        let found = st.query_row([row as i64 + 1], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))
        });
        match found {
            Ok((title, heading, text)) => [title, heading, text].iter().flat_map(|t| tokenize::terms(t)).collect(),
            Err(_) => HashSet::new(),
        }
    }

    fn kind(&self) -> EngineKind {
        EngineKind::Sqlite
    }
}
