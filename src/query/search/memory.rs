//! The in-memory engine: the JSONL sidecar tokenized and indexed in memory (the
//! fallback when the SQLite mirror is off or unusable).

use super::{DocInfo, Engine, EngineKind, SectionText};
use crate::error::Error;
use crate::model::graph::{self, GraphEdge};
use crate::model::{Edge, Node};
use crate::query::expand::GraphSource;
use crate::store::mirror::DocEdit;
use crate::store::postings::{self, Corpus, Posting, RowInfo};
use crate::text::tokenize;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Search over the JSONL sidecar, tokenized in memory.
pub struct MemoryEngine {
    index: postings::Index,
    docs: HashMap<String, DocInfo>,
    /// lowercase id → node id; lowercase raw id → [(node id, lowercase uid)].
    ids: HashMap<String, String>,
    raw_ids: HashMap<String, Vec<(String, String)>>,
    /// Row → its title, heading and body text, for explanations.
    texts: Vec<[String; 3]>,
    /// Document → its document-level edges, both directions.
    adjacency: HashMap<String, Vec<GraphEdge>>,
    /// Document nodes by id.
    nodes: HashMap<String, Node>,
    /// Document id → its sections in order.
    sections: HashMap<String, Vec<SectionText>>,
}

impl MemoryEngine {
    /// Build from the nodes and edges of an index (sorted as in the sidecar).
    pub fn new(nodes: &[Node], edges: &[crate::model::Edge]) -> MemoryEngine {
        let index = postings::build(nodes);
        let mut docs = HashMap::new();
        let mut ids = HashMap::new();
        let mut raw_ids: HashMap<String, Vec<(String, String)>> = HashMap::new();
        for n in nodes.iter().filter(|n| !n.is_chunk()) {
            docs.insert(n.id.clone(), doc_info(n));
            ids.insert(n.id.to_lowercase(), n.id.clone());
            raw_ids
                .entry(n.raw_id.as_deref().unwrap_or(&n.id).to_lowercase())
                .or_default()
                .push((n.id.clone(), n.uid.as_deref().unwrap_or("").to_lowercase()));
        }
        let texts = crate::model::section::sections(nodes)
            .iter()
            .map(|r| {
                let title = docs.get(r.doc).map(|d: &DocInfo| d.title.clone()).unwrap_or_default();
                [title, r.heading.to_string(), r.chunk.text.clone().unwrap_or_default()]
            })
            .collect();
        let adjacency = graph::adjacency(edges);
        let mut sections: HashMap<String, Vec<SectionText>> = HashMap::new();
        let mut by_id = HashMap::new();
        let mut line_of: HashMap<&str, u32> = HashMap::new();
        for n in nodes {
            if n.is_chunk() {
                line_of.insert(n.id.as_str(), n.line.unwrap_or(0));
                sections
                    .entry(n.doc.clone().unwrap_or_default())
                    .or_default()
                    .push(section_text(n));
            } else {
                by_id.insert(n.id.clone(), n.clone());
            }
        }
        // Nodes are sorted by id; a document's sections go in file order.
        for list in sections.values_mut() {
            list.sort_by_key(|s| line_of.get(s.chunk.as_str()).copied().unwrap_or(0));
        }
        MemoryEngine {
            index,
            docs,
            ids,
            raw_ids,
            texts,
            adjacency,
            nodes: by_id,
            sections,
        }
    }
}

/// What the engine keeps of a document.
fn doc_info(n: &Node) -> DocInfo {
    DocInfo {
        path: n.path.clone(),
        title: n.label().to_string(),
        kind: n.kind,
        r#type: n.r#type.clone(),
        state: n.state.clone(),
        nav: n.nav,
    }
}

/// The heading and body a row holding `n` searches (none for a document without
/// sections, whose row is the document itself).
fn row_text(n: &Node) -> (String, String) {
    match n.is_chunk() {
        true => (
            n.heading.clone().unwrap_or_default(),
            n.text.clone().unwrap_or_default(),
        ),
        false => (String::new(), String::new()),
    }
}

/// What the engine keeps of a section.
fn section_text(n: &Node) -> SectionText {
    SectionText {
        chunk: n.id.clone(),
        heading: n.heading.clone().unwrap_or_default(),
        text: n.text.clone().unwrap_or_default(),
        tokens: n.tokens.unwrap_or(0),
    }
}

/// An edited document, its rows (in row order) and the nodes its rows now hold (its
/// sections by id, or the document itself when it has none).
type RowPlan<'e> = (&'e Node, Vec<u32>, Vec<&'e Node>);

impl MemoryEngine {
    /// The rows of each edited document and the nodes they now hold; None when a
    /// document is unknown, or its sections changed (its rows would move) and another
    /// document's row sorts among its old or new ones, as the mirror's move requires
    /// (`mirror::update_docs`).
    fn rows_of<'e>(&self, edits: &'e [DocEdit]) -> Option<Vec<RowPlan<'e>>> {
        let corpus = &self.index.corpus;
        let ordinal: HashMap<&str, u32> = corpus.docs.iter().enumerate().map(|(i, d)| (d, i as u32)).collect();
        let mut rows_by_doc: HashMap<u32, Vec<u32>> = HashMap::new();
        let wanted: HashSet<u32> = edits
            .iter()
            .filter_map(|e| e.nodes.iter().find(|n| !n.is_chunk()))
            .filter_map(|d| ordinal.get(d.id.as_str()).copied())
            .collect();
        for (r, d) in corpus.row_doc.iter().enumerate() {
            if wanted.contains(d) {
                rows_by_doc.entry(*d).or_default().push(r as u32);
            }
        }
        edits
            .iter()
            .map(|e| {
                let doc = e.nodes.iter().find(|n| !n.is_chunk())?;
                let rows = rows_by_doc.get(ordinal.get(doc.id.as_str())?)?;
                // Rows run in node order: a document's sections by id.
                let mut chunks: Vec<&Node> = e.nodes.iter().filter(|n| n.is_chunk()).collect();
                chunks.sort_by(|a, b| a.id.cmp(&b.id));
                if chunks.is_empty() {
                    chunks.push(doc);
                }
                (self.fits(rows, &chunks) || !self.foreign_among(rows, &chunks)).then(|| (doc, rows.clone(), chunks))
            })
            .collect()
    }

    /// Do the `rows` hold the sections `chunks` brings (same ids and headings)?
    fn fits(&self, rows: &[u32], chunks: &[&Node]) -> bool {
        chunks.len() == rows.len()
            && rows.iter().zip(chunks).all(|(&r, c)| {
                self.index
                    .rows
                    .get(r as usize)
                    .is_some_and(|info| info.chunk == c.id && info.heading == c.heading.as_deref().unwrap_or(""))
            })
    }

    /// Does a row of another document sort among a document's `rows` and the `chunks`
    /// it brings (or does it have no rows)?
    fn foreign_among(&self, rows: &[u32], chunks: &[&Node]) -> bool {
        let c = &self.index.corpus;
        let Some(&own) = rows.first().and_then(|&r| c.row_doc.get(r as usize)) else {
            return true;
        };
        let mut ids: Vec<&str> = chunks.iter().map(|n| n.id.as_str()).collect();
        for &r in rows {
            match self.index.rows.get(r as usize) {
                Some(info) => ids.push(&info.chunk),
                None => return true,
            }
        }
        let (Some(&lo), Some(&hi)) = (ids.iter().min(), ids.iter().max()) else {
            return true;
        };
        self.index
            .rows
            .iter()
            .zip(&c.row_doc)
            .any(|(info, &d)| d != own && d != postings::HOLE && (lo..=hi).contains(&info.chunk.as_str()))
    }

    /// Move a document's rows (its sections changed), as the mirror does: its old
    /// `rows` become holes, the `chunks` it now brings are appended, their places in a
    /// rebuild's order (`Corpus::row_rank`) those of the old block.
    fn move_rows(&mut self, doc: &Node, rows: &[u32], chunks: &[Node]) {
        let texts: Vec<(String, String)> = chunks.iter().map(row_text).collect();
        let headings: Vec<&str> = texts.iter().map(|(h, _)| h.as_str()).collect();
        let Some(base) = self.index.corpus.move_rows(rows, &headings) else {
            return;
        };
        for &r in rows {
            self.reindex(r, Default::default());
        }
        let title = crate::model::section::title_text(doc);
        for ((n, (heading, body)), row) in chunks.iter().zip(texts).zip(base..) {
            self.index.rows.push(RowInfo {
                chunk: n.id.clone(),
                heading: heading.clone(),
            });
            self.texts.push(Default::default());
            self.reindex(row, [title.clone(), heading, body]);
        }
    }

    /// Row `row` now reads `text` (title, heading, body): its postings and length follow.
    fn reindex(&mut self, row: u32, text: [String; 3]) {
        let Some(old) = self.texts.get(row as usize) else {
            return;
        };
        if *old == text {
            return;
        }
        let old_terms: HashSet<String> = old.iter().flat_map(|x| tokenize::terms(x)).collect();
        for t in &old_terms {
            if let Some(list) = self.index.postings.get_mut(t) {
                if let Ok(i) = list.binary_search_by_key(&row, |p| p.row) {
                    list.remove(i);
                }
                if list.is_empty() {
                    self.index.postings.remove(t);
                }
            }
        }
        let new_terms = text.each_ref().map(|x| tokenize::terms(x));
        for (t, p) in postings::row_postings(row, &new_terms) {
            let list = self.index.postings.entry(t.to_string()).or_default();
            let i = list.partition_point(|x| x.row < row);
            list.insert(i, p);
        }
        if let Some(len) = self.index.corpus.row_len.get_mut(row as usize) {
            *len = new_terms.iter().map(|c| c.len() as u32).sum();
        }
        self.texts[row as usize] = text;
    }
}

impl GraphSource for MemoryEngine {
    fn edges(&self, id: &str) -> Cow<'_, [GraphEdge]> {
        Cow::Borrowed(self.adjacency.get(id).map_or(&[], Vec::as_slice))
    }
}

impl Engine for MemoryEngine {
    fn corpus(&self) -> &Corpus {
        &self.index.corpus
    }

    fn postings(&self, term: &str) -> Result<Cow<'_, [Posting]>, Error> {
        Ok(Cow::Borrowed(self.index.postings.get(term).map_or(&[], Vec::as_slice)))
    }

    fn row(&self, row: u32) -> Option<RowInfo> {
        self.index.rows.get(row as usize).cloned()
    }

    fn doc(&self, id: &str) -> Option<DocInfo> {
        self.docs.get(id).cloned()
    }

    fn is_nav(&self, id: &str) -> bool {
        self.docs.get(id).is_some_and(|d| d.nav)
    }

    fn state(&self, id: &str) -> Option<String> {
        self.docs.get(id).and_then(|d| d.state.clone())
    }

    fn scoped_ids(&self, local: &str) -> Vec<String> {
        let tail = format!("/{}", local.to_lowercase());
        let mut out: Vec<String> = self
            .ids
            .iter()
            .filter(|(k, _)| k.ends_with(&tail))
            .map(|(_, id)| id.clone())
            .collect();
        out.sort();
        out
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

    fn node(&self, id: &str) -> Option<Node> {
        self.nodes.get(id).cloned()
    }

    fn sections_of(&self, doc: &str) -> Vec<SectionText> {
        self.sections.get(doc).cloned().unwrap_or_default()
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

    fn apply_edits(&mut self, edits: &[DocEdit], edges: &mut dyn Iterator<Item = &Edge>) -> bool {
        let Some(plan) = self.rows_of(edits) else {
            return false;
        };
        // Owned, so the engine can change while it is read.
        let plan: Vec<(Node, Vec<u32>, Vec<Node>)> = plan
            .into_iter()
            .map(|(d, rows, chunks)| (d.clone(), rows, chunks.into_iter().cloned().collect()))
            .collect();
        let mut touched: HashSet<String> = HashSet::new();
        for (doc, rows, chunks) in &plan {
            let title = crate::model::section::title_text(doc);
            if self.fits(rows, &chunks.iter().collect::<Vec<_>>()) {
                for (row, n) in rows.iter().zip(chunks) {
                    let (heading, body) = row_text(n);
                    self.reindex(*row, [title.clone(), heading, body]);
                }
            } else {
                self.move_rows(doc, rows, chunks);
            }
            // The documents whose links may change: this one, those it linked, those it links.
            touched.insert(doc.id.clone());
            touched.extend(
                self.adjacency
                    .get(&doc.id)
                    .into_iter()
                    .flatten()
                    .map(|e| e.other.clone()),
            );
            self.docs.insert(doc.id.clone(), doc_info(doc));
            self.nodes.insert(doc.id.clone(), doc.clone());
            let mut secs: Vec<&Node> = chunks.iter().filter(|n| n.is_chunk()).collect();
            secs.sort_by_key(|n| n.line.unwrap_or(0));
            if secs.is_empty() {
                // Every heading removed: a fresh engine has no sections for it.
                self.sections.remove(&doc.id);
            } else {
                self.sections
                    .insert(doc.id.clone(), secs.into_iter().map(section_text).collect());
            }
        }
        for e in edits.iter().flat_map(|e| &e.edges) {
            touched.insert(e.source.clone());
            touched.insert(e.target.clone());
        }
        // Their lists again, from the whole new edge list in its order, as `adjacency`
        // makes them.
        for id in &touched {
            self.adjacency.remove(id);
        }
        for e in edges.filter(|e| e.r#type != crate::model::EdgeType::SectionOf) {
            for (id, other, forward) in [(&e.source, &e.target, true), (&e.target, &e.source, false)] {
                if touched.contains(id) {
                    self.adjacency.entry(id.clone()).or_default().push(GraphEdge {
                        other: other.clone(),
                        r#type: e.r#type,
                        forward,
                        weight: e.weight,
                    });
                }
            }
        }
        true
    }
}

// ---------------------------------------------------------------------------------------
// Choosing an engine

/// The in-memory engine over an index folder's sidecar.
pub fn memory_engine(index_dir: &Path) -> Result<MemoryEngine, Error> {
    let loaded = crate::store::sidecar::load_parts(index_dir, true)
        .ok_or_else(|| Error::Other(format!("{}: no usable index; run `mdgraph index`", index_dir.display())))?;
    Ok(MemoryEngine::new(&loaded.nodes, &loaded.edges))
}
