//! Search: full-text seeds for a query.
//!
//! BM25 over sections (title, heading and body as weighted columns, then a weight per
//! section name), aggregated to documents (best section + 0.3·Σ others / √n), an exact
//! id in the query on top, and a relevance cliff. Two engines compute the same ranking:
//! the SQLite FTS5 mirror, and an in-memory BM25 over the JSONL sidecar (the fallback
//! when the mirror is off or unusable). Both use [`crate::tokenize`] and FTS5's bm25
//! formula, so they agree.

use crate::config::{FieldWeights, Retrieval};
use crate::error::Error;
use crate::model::{Kind, Node};
use crate::resolve::mention_candidates;
use crate::store::{self, section_name};
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

/// A matching section with its weighted score.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionHit {
    /// Shared row number.
    pub rowid: i64,
    /// Chunk id (or document id for an empty document).
    pub chunk: String,
    /// Document id.
    pub doc: String,
    /// Heading.
    pub heading: String,
    /// Weighted BM25 score.
    pub score: f64,
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
    /// Matching sections with their BM25 score (FTS5's formula, column weights
    /// `fields`), best first (score desc, rowid asc), at most `max`.
    fn sections(&self, terms: &[QueryTerm], fields: FieldWeights, max: usize) -> Result<Vec<SectionHit>, Error>;
    /// Facts about a document.
    fn doc(&self, id: &str) -> Option<DocInfo>;
    /// The document an id-like token names exactly (any case, `ID@uidprefix`).
    fn exact_id(&self, token: &str) -> Option<String>;
    /// Index terms of a section's title, heading and body columns.
    fn section_terms(&self, chunk: &str) -> HashSet<String>;
    /// Which engine this is.
    fn kind(&self) -> EngineKind;
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
    let mut hits = engine.sections(&terms, r.weights.field, r.max_sections)?;
    // Section weights (Decision up, Worklog down) apply to the best `max_sections` rows.
    for h in &mut hits {
        h.score *= r.weights.section.get(&section_name(&h.heading)).copied().unwrap_or(1.0);
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.rowid.cmp(&b.rowid)));

    // Aggregate sections to documents: best + 0.3 · Σ(others) / √n.
    let mut per_doc: BTreeMap<&str, Vec<&SectionHit>> = BTreeMap::new();
    for h in &hits {
        per_doc.entry(h.doc.as_str()).or_default().push(h);
    }
    let mut docs: Vec<(f64, &str, &SectionHit, usize)> = per_doc
        .iter()
        .map(|(doc, hs)| {
            let best = hs[0];
            let others: f64 = hs[1..].iter().map(|h| h.score).sum();
            let n = hs.len() - 1;
            let score = best.score + if n > 0 { 0.3 * others / (n as f64).sqrt() } else { 0.0 };
            (score, *doc, best, hs.len())
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
            let have = engine.section_terms(&h.chunk);
            let matched = terms
                .iter()
                .filter(|t| have.contains(&t.stem))
                .map(|t| t.word.clone())
                .collect();
            (matched, h.heading.clone(), Some(h.chunk.clone()), round(h.score), n)
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

/// Search through the FTS5 mirror.
pub struct SqliteEngine {
    conn: Connection,
}

impl SqliteEngine {
    /// Open the mirror read-only.
    pub fn open(index_dir: &Path) -> Result<SqliteEngine, Error> {
        let path = store::db_path(index_dir);
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| Error::Other(format!("{}: {e}", path.display())))?;
        Ok(SqliteEngine { conn })
    }
}

fn sqlerr(e: rusqlite::Error) -> Error {
    Error::Other(format!("sqlite: {e}"))
}

impl Engine for SqliteEngine {
    fn sections(&self, terms: &[QueryTerm], f: FieldWeights, max: usize) -> Result<Vec<SectionHit>, Error> {
        let Some(expr) = tokenize::fts_expression(terms) else {
            return Ok(Vec::new());
        };
        // Rank inside FTS5 first, then join the few best rows to their section facts.
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT t.rowid, s.id, s.doc, s.heading, t.score FROM
                   (SELECT rowid, -bm25(sections_fts, ?2, ?3, ?4) AS score FROM sections_fts
                    WHERE sections_fts MATCH ?1 ORDER BY score DESC, rowid ASC LIMIT ?5) t
                 JOIN sections s ON s.rowid = t.rowid
                 ORDER BY t.score DESC, t.rowid ASC",
            )
            .map_err(sqlerr)?;
        let rows = stmt
            .query_map(rusqlite::params![expr, f.title, f.heading, f.body, max as i64], |r| {
                Ok(SectionHit {
                    rowid: r.get(0)?,
                    chunk: r.get(1)?,
                    doc: r.get(2)?,
                    heading: r.get(3)?,
                    score: r.get(4)?,
                })
            })
            .map_err(sqlerr)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(sqlerr)
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

    fn section_terms(&self, chunk: &str) -> HashSet<String> {
        let row = self.conn.query_row(
            "SELECT n.title, s.heading, s.text FROM sections s JOIN nodes n ON n.id = s.doc WHERE s.id = ?1",
            [chunk],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)),
        );
        match row {
            Ok((title, heading, text)) => {
                let mut t: HashSet<String> = tokenize::terms(&title).into_iter().collect();
                t.extend(tokenize::terms(&heading));
                t.extend(tokenize::terms(&text));
                t
            }
            Err(_) => HashSet::new(),
        }
    }

    fn kind(&self) -> EngineKind {
        EngineKind::Sqlite
    }
}

// ---------------------------------------------------------------------------------------
// In-memory engine

struct Row {
    rowid: i64,
    chunk: String,
    doc: String,
    heading: String,
    /// Term ids per column: title, heading, body.
    cols: [Vec<u32>; 3],
}

/// In-memory BM25 over the sidecar, computing exactly FTS5's bm25().
pub struct MemoryEngine {
    rows: Vec<Row>,
    vocab: HashMap<String, u32>,
    /// Term id → term.
    names: Vec<String>,
    docs: HashMap<String, DocInfo>,
    /// lowercase id → node id; lowercase raw id → [(node id, lowercase uid)].
    ids: HashMap<String, String>,
    raw_ids: HashMap<String, Vec<(String, String)>>,
    avgdl: f64,
}

impl MemoryEngine {
    /// Build from the nodes of an index (sorted by id, as in the sidecar).
    pub fn new(nodes: &[Node]) -> MemoryEngine {
        let mut vocab: HashMap<String, u32> = HashMap::new();
        let mut intern = |terms: Vec<String>| -> Vec<u32> {
            terms
                .into_iter()
                .map(|t| {
                    let n = vocab.len() as u32;
                    *vocab.entry(t).or_insert(n)
                })
                .collect()
        };
        let titles: HashMap<&str, String> = nodes
            .iter()
            .filter(|n| !n.is_chunk())
            .map(|n| (n.id.as_str(), store::title_text(n)))
            .collect();
        let mut rows = Vec::new();
        let mut total = 0usize;
        for r in store::sections(nodes) {
            let title = titles.get(r.doc).map(String::as_str).unwrap_or("");
            let cols = [
                intern(tokenize::terms(title)),
                intern(tokenize::terms(r.heading)),
                intern(tokenize::terms(r.chunk.text.as_deref().unwrap_or(""))),
            ];
            total += cols.iter().map(Vec::len).sum::<usize>();
            rows.push(Row {
                rowid: r.rowid,
                chunk: r.chunk.id.clone(),
                doc: r.doc.to_string(),
                heading: r.heading.to_string(),
                cols,
            });
        }
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
        let avgdl = if rows.is_empty() {
            1.0
        } else {
            total as f64 / rows.len() as f64
        };
        let mut names = vec![String::new(); vocab.len()];
        for (t, &i) in &vocab {
            names[i as usize] = t.clone();
        }
        MemoryEngine {
            rows,
            vocab,
            names,
            docs,
            ids,
            raw_ids,
            avgdl,
        }
    }
}

impl Engine for MemoryEngine {
    fn sections(&self, terms: &[QueryTerm], f: FieldWeights, max: usize) -> Result<Vec<SectionHit>, Error> {
        const K1: f64 = 1.2;
        const B: f64 = 0.75;
        if terms.is_empty() || self.rows.is_empty() {
            return Ok(Vec::new());
        }
        // Phrase index of each query term id.
        let mut phrase_of: HashMap<u32, usize> = HashMap::new();
        for (i, t) in terms.iter().enumerate() {
            if let Some(&id) = self.vocab.get(&t.stem) {
                phrase_of.insert(id, i);
            }
        }
        let weights = [f.title, f.heading, f.body];
        let n_rows = self.rows.len() as f64;
        let mut freqs: Vec<(usize, Vec<f64>)> = Vec::new();
        let mut n_hit = vec![0usize; terms.len()];
        for (ri, row) in self.rows.iter().enumerate() {
            // FTS5: each instance adds its column weight to the phrase frequency; a row
            // counts towards a phrase's IDF when the phrase occurs in any column.
            let mut fr: Option<(Vec<f64>, Vec<bool>)> = None;
            for (c, col) in row.cols.iter().enumerate() {
                for t in col {
                    if let Some(&p) = phrase_of.get(t) {
                        let (f, seen) = fr.get_or_insert_with(|| (vec![0.0; terms.len()], vec![false; terms.len()]));
                        f[p] += weights[c];
                        seen[p] = true;
                    }
                }
            }
            if let Some((f, seen)) = fr {
                for (p, here) in seen.iter().enumerate() {
                    if *here {
                        n_hit[p] += 1;
                    }
                }
                freqs.push((ri, f));
            }
        }
        let idf: Vec<f64> = n_hit
            .iter()
            .map(|&h| {
                let v = ((n_rows - h as f64 + 0.5) / (h as f64 + 0.5)).ln();
                if v <= 0.0 { 1e-6 } else { v }
            })
            .collect();
        let mut hits: Vec<SectionHit> = freqs
            .into_iter()
            .map(|(ri, fr)| {
                let row = &self.rows[ri];
                let d: usize = row.cols.iter().map(Vec::len).sum();
                let mut score = 0.0;
                for (p, &fq) in fr.iter().enumerate() {
                    score += idf[p] * ((fq * (K1 + 1.0)) / (fq + K1 * (1.0 - B + B * d as f64 / self.avgdl)));
                }
                SectionHit {
                    rowid: row.rowid,
                    chunk: row.chunk.clone(),
                    doc: row.doc.clone(),
                    heading: row.heading.clone(),
                    score,
                }
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.rowid.cmp(&b.rowid)));
        hits.truncate(max);
        Ok(hits)
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

    fn section_terms(&self, chunk: &str) -> HashSet<String> {
        self.rows
            .iter()
            .find(|r| r.chunk == chunk)
            .map(|r| {
                r.cols
                    .iter()
                    .flatten()
                    .map(|&t| self.names[t as usize].clone())
                    .collect()
            })
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
