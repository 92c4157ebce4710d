//! The in-memory engine: the JSONL sidecar tokenized and indexed in memory (the
//! fallback when the SQLite mirror is off or unusable).

use super::{DocInfo, Engine, EngineKind, SectionText};
use crate::error::Error;
use crate::model::Node;
use crate::model::graph::{self, GraphEdge};
use crate::query::expand::GraphSource;
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
            docs.insert(
                n.id.clone(),
                DocInfo {
                    path: n.path.clone(),
                    title: n.label().to_string(),
                    kind: n.kind,
                    r#type: n.r#type.clone(),
                    state: n.state.clone(),
                    nav: n.nav,
                },
            );
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
                    .push(SectionText {
                        chunk: n.id.clone(),
                        heading: n.heading.clone().unwrap_or_default(),
                        text: n.text.clone().unwrap_or_default(),
                        tokens: n.tokens.unwrap_or(0),
                    });
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
}

// ---------------------------------------------------------------------------------------
// Choosing an engine

/// The in-memory engine over an index folder's sidecar.
pub fn memory_engine(index_dir: &Path) -> Result<MemoryEngine, Error> {
    let loaded = crate::store::sidecar::load_parts(index_dir, true)
        .ok_or_else(|| Error::Other(format!("{}: no usable index; run `mdgraph index`", index_dir.display())))?;
    Ok(MemoryEngine::new(&loaded.nodes, &loaded.edges))
}
