//! Search: full-text seeds for a query.
//!
//! BM25 over sections (title, heading and body as weighted columns, then a weight per
//! section name), aggregated to documents (best section + 0.3·Σ others / √n), an exact
//! id in the query on top, and a relevance cliff. Two engines feed the same scorer
//! ([`crate::bm25`]): the SQLite mirror (postings and row statistics read from
//! `index.sqlite`), and the JSONL sidecar tokenized in memory (the fallback when the
//! mirror is off or unusable). Same tokens, same formula: the same ranking.

use crate::bm25::{self, Corpus, Posting, RowInfo};
use crate::config::Retrieval;
use crate::error::Error;
use crate::model::{Kind, Node};
use crate::resolve::mention_candidates;
use crate::store;
use crate::tokenize::{self, QueryTerm};
use rusqlite::{Connection, OpenFlags};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// Which engine answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// The SQLite FTS5 mirror.
    Sqlite,
    /// In-memory BM25 over the JSONL sidecar.
    Memory,
}

/// Why a document is in the results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Why {
    /// Always `seed` for search results.
    pub kind: &'static str,
    /// The query names this document's id.
    pub exact_id: bool,
    /// Query words found in the best section (as the user wrote them).
    pub matched: Vec<String>,
    /// Heading of the best-matching section ("" for text before the first heading).
    pub section: String,
    /// Chunk id of that section.
    pub section_id: Option<String>,
    /// Its weighted BM25 score.
    pub section_score: f64,
    /// How many sections of the document matched.
    pub sections_matched: usize,
}

/// One ranked document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// Node id.
    pub id: String,
    /// Root-relative path.
    pub path: String,
    /// Title.
    pub title: String,
    /// Node kind.
    pub kind: Kind,
    /// Work item type or document type.
    pub r#type: Option<String>,
    /// State or status.
    pub state: Option<String>,
    /// Document score (higher is better).
    pub score: f64,
    /// Why it is here.
    pub why: Why,
}

/// The answer to a query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Results {
    /// The query as given.
    pub query: String,
    /// Which engine answered.
    pub engine: EngineKind,
    /// The query terms searched for (stemmed).
    pub terms: Vec<String>,
    /// Ranked documents above the relevance cliff.
    pub results: Vec<Hit>,
}

/// Document facts needed for output.
#[derive(Debug, Clone)]
pub struct DocInfo {
    /// Path.
    pub path: String,
    /// Title.
    pub title: String,
    /// Kind.
    pub kind: Kind,
    /// Type.
    pub r#type: Option<String>,
    /// State.
    pub state: Option<String>,
}

/// What a search engine must answer.
pub trait Engine {
    /// Row statistics.
    fn corpus(&self) -> &Corpus;
    /// Postings of an index term (empty when no row has it).
    fn postings(&self, term: &str) -> Result<Vec<Posting>, Error>;
    /// Identity of a row (0-based).
    fn row(&self, row: u32) -> Option<RowInfo>;
    /// Facts about a document.
    fn doc(&self, id: &str) -> Option<DocInfo>;
    /// The document an id-like token names exactly (any case, `ID@uidprefix`).
    fn exact_id(&self, token: &str) -> Option<String>;
    /// Index terms of a row's title, heading and body columns.
    fn row_terms(&self, row: u32) -> HashSet<String>;
    /// Which engine this is.
    fn kind(&self) -> EngineKind;
}

/// A matching section: row, document ordinal, weighted score.
struct SectionHit {
    row: u32,
    doc: u32,
    score: f64,
}

/// Rank documents for `query`.
pub fn search(engine: &dyn Engine, query: &str, r: &Retrieval, limit: usize) -> Result<Results, Error> {
    // Ids named in the query are seeds by themselves; the rest of the query is full text.
    let mut exact: Vec<String> = Vec::new();
    let mut text = query.to_string();
    for (tok, _) in mention_candidates(query) {
        if let Some(id) = engine.exact_id(tok) {
            text = text.replace(tok, " ");
            if !exact.contains(&id) {
                exact.push(id);
            }
        }
    }
    let terms = tokenize::query_terms(&text);
    let postings = terms
        .iter()
        .map(|t| engine.postings(&t.stem))
        .collect::<Result<Vec<_>, _>>()?;
    let corpus = engine.corpus();
    // The best `max_sections` rows by BM25, then section weights (Decision up, Worklog down).
    let name_weight: Vec<f64> = corpus
        .names
        .iter()
        .map(|n| r.weights.section.get(n).copied().unwrap_or(1.0))
        .collect();
    let mut hits: Vec<SectionHit> = bm25::score(corpus, &postings, r.weights.field, r.max_sections)
        .into_iter()
        .map(|(row, score)| {
            let w = corpus
                .row_name
                .get(row as usize)
                .and_then(|&n| name_weight.get(n as usize))
                .copied()
                .unwrap_or(1.0);
            SectionHit {
                row,
                doc: corpus.row_doc.get(row as usize).copied().unwrap_or(0),
                score: score * w,
            }
        })
        .collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.row.cmp(&b.row)));

    // Aggregate sections to documents: best + 0.3 · Σ(others) / √n.
    let mut per_doc: BTreeMap<u32, Vec<&SectionHit>> = BTreeMap::new();
    for h in &hits {
        per_doc.entry(h.doc).or_default().push(h);
    }
    let doc_id = |d: u32| corpus.docs.get(d as usize).map(String::as_str).unwrap_or("");
    let mut docs: Vec<(f64, &str, &SectionHit, usize)> = per_doc
        .iter()
        .map(|(&doc, hs)| {
            let best = hs[0];
            let others: f64 = hs[1..].iter().map(|h| h.score).sum();
            let n = hs.len() - 1;
            let score = best.score + if n > 0 { 0.3 * others / (n as f64).sqrt() } else { 0.0 };
            (score, doc_id(doc), best, hs.len())
        })
        .collect();
    docs.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let best = docs.first().map(|d| d.0).unwrap_or(0.0);
    docs.retain(|d| d.0 >= r.cliff * best && d.0 > 0.0);

    // Ids named in the query come first, in query order.
    let mut results = Vec::new();
    let top = best.max(0.0) + 1.0;
    for (i, id) in exact.iter().enumerate() {
        let found = docs.iter().find(|d| d.1 == id);
        results.push(make_hit(
            engine,
            id,
            top + (exact.len() - i) as f64,
            true,
            found.map(|d| (d.2, d.3)),
            &terms,
        ));
    }
    for (score, doc, best_hit, n) in &docs {
        if results.len() >= limit {
            break;
        }
        if exact.iter().any(|e| e == doc) {
            continue;
        }
        results.push(make_hit(engine, doc, *score, false, Some((best_hit, *n)), &terms));
    }
    results.retain(|h| !h.path.is_empty());
    results.truncate(limit);
    Ok(Results {
        query: query.to_string(),
        engine: engine.kind(),
        terms: terms.iter().map(|t| t.stem.clone()).collect(),
        results,
    })
}

fn make_hit(
    engine: &dyn Engine,
    id: &str,
    score: f64,
    exact_id: bool,
    best: Option<(&SectionHit, usize)>,
    terms: &[QueryTerm],
) -> Hit {
    let info = engine.doc(id);
    let (matched, section, section_id, section_score, n) = match best {
        Some((h, n)) => {
            let have = engine.row_terms(h.row);
            let matched = terms
                .iter()
                .filter(|t| have.contains(&t.stem))
                .map(|t| t.word.clone())
                .collect();
            let row = engine.row(h.row);
            (
                matched,
                row.as_ref().map(|r| r.heading.clone()).unwrap_or_default(),
                row.map(|r| r.chunk),
                round(h.score),
                n,
            )
        }
        None => (Vec::new(), String::new(), None, 0.0, 0),
    };
    Hit {
        id: id.to_string(),
        path: info.as_ref().map(|i| i.path.clone()).unwrap_or_default(),
        title: info.as_ref().map(|i| i.title.clone()).unwrap_or_default(),
        kind: info.as_ref().map(|i| i.kind).unwrap_or_default(),
        r#type: info.as_ref().and_then(|i| i.r#type.clone()),
        state: info.as_ref().and_then(|i| i.state.clone()),
        score: round(score),
        why: Why {
            kind: "seed",
            exact_id,
            matched,
            section,
            section_id,
            section_score,
            sections_matched: n,
        },
    }
}

/// Scores are reported to 6 decimals so text and JSON output are stable across engines.
fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

// ---------------------------------------------------------------------------------------
// SQLite engine

/// Search through the SQLite mirror: postings and row statistics stored by
/// [`crate::store`].
pub struct SqliteEngine {
    conn: Connection,
    corpus: Corpus,
}

impl SqliteEngine {
    /// Open the mirror read-only and load its row statistics.
    pub fn open(index_dir: &Path) -> Result<SqliteEngine, Error> {
        let path = store::db_path(index_dir);
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| Error::Other(format!("{}: {e}", path.display())))?;
        let corpus = store::load_corpus(&conn).map_err(|e| Error::Other(format!("{}: {e}", path.display())))?;
        Ok(SqliteEngine { conn, corpus })
    }
}

fn sqlerr(e: rusqlite::Error) -> Error {
    Error::Other(format!("sqlite: {e}"))
}

impl Engine for SqliteEngine {
    fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    fn postings(&self, term: &str) -> Result<Vec<Posting>, Error> {
        let mut st = self
            .conn
            .prepare_cached("SELECT data FROM postings WHERE term = ?1")
            .map_err(sqlerr)?;
        let blob: Option<Vec<u8>> = st.query_row([term], |r| r.get(0)).map(Some).or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(sqlerr(e)),
        })?;
        match blob {
            None => Ok(Vec::new()),
            Some(b) => bm25::decode(&b).ok_or_else(|| Error::Other(format!("sqlite: damaged postings for `{term}`"))),
        }
    }

    fn row(&self, row: u32) -> Option<RowInfo> {
        self.conn
            .query_row(
                "SELECT id, heading FROM sections WHERE rowid = ?1",
                [row as i64 + 1],
                |r| {
                    Ok(RowInfo {
                        chunk: r.get(0)?,
                        heading: r.get(1)?,
                    })
                },
            )
            .ok()
    }

    fn doc(&self, id: &str) -> Option<DocInfo> {
        self.conn
            .query_row(
                "SELECT path, title, kind, type, state FROM nodes WHERE id = ?1",
                [id],
                |r| {
                    let kind: String = r.get(2)?;
                    Ok(DocInfo {
                        path: r.get(0)?,
                        title: r.get(1)?,
                        kind: serde_json::from_value(serde_json::Value::String(kind)).unwrap_or_default(),
                        r#type: r.get(3)?,
                        state: r.get(4)?,
                    })
                },
            )
            .ok()
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

    fn row_terms(&self, row: u32) -> HashSet<String> {
        let found = self.conn.query_row(
            "SELECT n.title, s.heading, s.text FROM sections s JOIN nodes n ON n.id = s.doc WHERE s.rowid = ?1",
            [row as i64 + 1],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)),
        );
        match found {
            Ok((title, heading, text)) => [title, heading, text].iter().flat_map(|t| tokenize::terms(t)).collect(),
            Err(_) => HashSet::new(),
        }
    }

    fn kind(&self) -> EngineKind {
        EngineKind::Sqlite
    }
}

// ---------------------------------------------------------------------------------------
// In-memory engine

/// Search over the JSONL sidecar, tokenized in memory.
pub struct MemoryEngine {
    index: bm25::Index,
    docs: HashMap<String, DocInfo>,
    /// lowercase id → node id; lowercase raw id → [(node id, lowercase uid)].
    ids: HashMap<String, String>,
    raw_ids: HashMap<String, Vec<(String, String)>>,
    /// Row → its title, heading and body text, for explanations.
    texts: Vec<[String; 3]>,
}

impl MemoryEngine {
    /// Build from the nodes of an index (sorted by id, as in the sidecar).
    pub fn new(nodes: &[Node]) -> MemoryEngine {
        let index = bm25::build(nodes);
        let mut docs = HashMap::new();
        let mut ids = HashMap::new();
        let mut raw_ids: HashMap<String, Vec<(String, String)>> = HashMap::new();
        for n in nodes.iter().filter(|n| !n.is_chunk()) {
            docs.insert(
                n.id.clone(),
                DocInfo {
                    path: n.path.clone(),
                    title: n.label().to_string(),
                    kind: n.kind,
                    r#type: n.r#type.clone(),
                    state: n.state.clone(),
                },
            );
            ids.insert(n.id.to_lowercase(), n.id.clone());
            raw_ids
                .entry(n.raw_id.as_deref().unwrap_or(&n.id).to_lowercase())
                .or_default()
                .push((n.id.clone(), n.uid.as_deref().unwrap_or("").to_lowercase()));
        }
        let texts = store::sections(nodes)
            .iter()
            .map(|r| {
                let title = docs.get(r.doc).map(|d: &DocInfo| d.title.clone()).unwrap_or_default();
                [title, r.heading.to_string(), r.chunk.text.clone().unwrap_or_default()]
            })
            .collect();
        MemoryEngine {
            index,
            docs,
            ids,
            raw_ids,
            texts,
        }
    }
}

impl Engine for MemoryEngine {
    fn corpus(&self) -> &Corpus {
        &self.index.corpus
    }

    fn postings(&self, term: &str) -> Result<Vec<Posting>, Error> {
        Ok(self.index.postings.get(term).cloned().unwrap_or_default())
    }

    fn row(&self, row: u32) -> Option<RowInfo> {
        self.index.rows.get(row as usize).cloned()
    }

    fn doc(&self, id: &str) -> Option<DocInfo> {
        self.docs.get(id).cloned()
    }

    fn exact_id(&self, token: &str) -> Option<String> {
        let t = token.to_lowercase();
        if let Some(id) = self.ids.get(&t) {
            return Some(id.clone());
        }
        let (raw, uid) = t.split_once('@').unwrap_or((&t, ""));
        let hits: Vec<&String> = self
            .raw_ids
            .get(raw)?
            .iter()
            .filter(|(_, u)| u.starts_with(uid))
            .map(|(id, _)| id)
            .collect();
        match hits.as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        }
    }

    fn row_terms(&self, row: u32) -> HashSet<String> {
        self.texts
            .get(row as usize)
            .map(|t| t.iter().flat_map(|x| tokenize::terms(x)).collect())
            .unwrap_or_default()
    }

    fn kind(&self) -> EngineKind {
        EngineKind::Memory
    }
}

// ---------------------------------------------------------------------------------------
// Choosing an engine

/// The in-memory engine over an index folder's sidecar.
pub fn memory_engine(index_dir: &Path) -> Result<MemoryEngine, Error> {
    let loaded = crate::sidecar::load_parts(index_dir, false)
        .ok_or_else(|| Error::Other(format!("{}: no usable index; run `mdgraph index`", index_dir.display())))?;
    Ok(MemoryEngine::new(&loaded.nodes))
}

/// The engine a configuration asks for: the SQLite mirror when enabled and readable,
/// else the in-memory fallback. The caller keeps the mirror in sync (see
/// [`crate::store::sync`]); when it cannot be used the fallback answers and the reason is
/// returned as a warning.
pub fn open_engine(cfg: &crate::config::Config) -> Result<(Box<dyn Engine>, Option<String>), Error> {
    if cfg.sqlite {
        match SqliteEngine::open(&cfg.index_dir) {
            Ok(e) => return Ok((Box::new(e), None)),
            Err(err) => {
                let e = memory_engine(&cfg.index_dir)?;
                return Ok((
                    Box::new(e),
                    Some(format!("SQLite mirror unusable ({err}); searched the JSONL sidecar")),
                ));
            }
        }
    }
    Ok((Box::new(memory_engine(&cfg.index_dir)?), None))
}

/// Run a query. A mirror that fails during the query (corrupt pages) is rebuilt from the
/// sidecar once and the query retried; if that fails too, the fallback answers.
pub fn run(cfg: &crate::config::Config, query: &str, limit: usize) -> Result<(Results, Option<String>), Error> {
    let (engine, warning) = open_engine(cfg)?;
    match search(engine.as_ref(), query, &cfg.retrieval, limit) {
        Ok(r) => Ok((r, warning)),
        Err(err) if engine.kind() == EngineKind::Sqlite => {
            drop(engine);
            let _ = std::fs::remove_file(store::db_path(&cfg.index_dir));
            let note = match store::sync(&cfg.index_dir) {
                Ok(_) => format!("rebuilt the SQLite mirror after: {err}"),
                Err(e2) => format!("SQLite mirror unusable ({err}; rebuild failed: {e2})"),
            };
            let (engine, w2) = open_engine(cfg)?;
            let r = search(engine.as_ref(), query, &cfg.retrieval, limit)?;
            Ok((r, Some(w2.unwrap_or(note))))
        }
        Err(err) => Err(err),
    }
}
