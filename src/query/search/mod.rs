//! Search's shapes: the answer to a query (ranked hits and why each is there) and the
//! [`Engine`] trait that both engines implement.
//!
//! Search finds full-text seeds for a query, expands them along the graph and re-ranks.
//! BM25 over sections (title, heading and body as weighted columns, then a weight per
//! section name), aggregated to documents (best section + 0.3·Σ others / √n), an exact
//! id in the query on top, and a relevance cliff. Two engines feed the same scorer
//! ([`crate::store::postings`]): the SQLite mirror (postings and row statistics read from
//! `index.sqlite`), and the JSONL sidecar tokenized in memory (the fallback when the
//! mirror is off or unusable). Same tokens, same formula: the same ranking.
//!
//! `rank.rs` scores and re-ranks ([`search`]), `sqlite.rs` and `memory.rs` are the two
//! engines, `open.rs` chooses one for a configuration.

use crate::error::Error;
use crate::model::{Kind, Node};
use crate::query::expand::{GraphSource, Step};
use crate::store::postings::{Corpus, Posting, RowInfo};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::HashSet;

mod hits;
mod implement;
mod memory;
mod named;
mod open;
mod rank;
mod scoped;
mod sqlite;
mod successor;
mod work;

pub use memory::{MemoryEngine, memory_engine};
pub use open::open_engine;
pub use rank::search;
pub use sqlite::SqliteEngine;
pub use work::{SCOPE, SCOPE_PARENT, work_left};

/// Which engine answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// The SQLite mirror (postings and row statistics in `index.sqlite`).
    Sqlite,
    /// In-memory BM25 over the JSONL sidecar.
    Memory,
}

/// Why a document is in the results: it matched the query (a seed), or the graph walk
/// from a seed reached it (a neighbor).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Why {
    /// Full-text match or an id named in the query.
    Seed {
        /// The query names this document's id.
        exact_id: bool,
        /// Query words found in the best section (as the user wrote them).
        matched: Vec<String>,
        /// Heading of the best-matching section ("" for text before the first heading).
        section: String,
        /// Chunk id of that section.
        section_id: Option<String>,
        /// Its weighted BM25 score.
        section_score: f64,
        /// How many sections of the document matched.
        sections_matched: usize,
        /// Other seeds whose walk also reached it.
        also_reached: usize,
    },
    /// Work left, for a question that asks what is left or can start and names nothing
    /// to search for ("what remains to be done?", "what should I work on next?") or only
    /// the scope of the work ("what is still open in the billing spec?"): the items under
    /// way, then those `ready` offers, in its order, then the rest unfinished.
    Work {
        /// `in progress`, `ready`, `waiting` or `blocked`; `scope` for the document a
        /// question about its work names, after its work.
        status: &'static str,
        /// Its place among the items of that status (1-based).
        place: usize,
        /// How many items have that status.
        of: usize,
        /// The documents the question names as the scope of the work (a feature, a
        /// story, an epic), when it names one.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        scope: Vec<String>,
    },
    /// Reached along the graph.
    Neighbor {
        /// The seed the best path starts from.
        seed: String,
        /// The edges walked, seed first.
        path: Vec<Step>,
        /// How many seeds' walks reached it.
        paths: usize,
    },
}

impl Why {
    /// True when the query names this document (its id, or its path).
    pub fn is_exact(&self) -> bool {
        matches!(self, Why::Seed { exact_id: true, .. })
    }

    /// The one-line reason used in text output.
    pub fn line(&self) -> String {
        match self {
            Why::Seed {
                exact_id,
                matched,
                section,
                section_id,
                ..
            } => {
                let mut parts = Vec::new();
                if *exact_id {
                    parts.push("id in query".to_string());
                }
                if section_id.is_some() {
                    let name = if section.is_empty() { "(intro)" } else { section };
                    let words: Vec<String> = matched.iter().map(|w| format!("\"{w}\"")).collect();
                    parts.push(format!("matched {} in § {name}", words.join(", ")));
                }
                format!("seed: {}", parts.join("; "))
            }
            Why::Work {
                status,
                place,
                of,
                scope,
            } => match scope.as_slice() {
                [] => format!("work left: {status} ({place} of {of})"),
                _ => format!("work left in {}: {status} ({place} of {of})", scope.join(", ")),
            },
            Why::Neighbor { path, .. } => {
                let mut s = String::from("neighbor: ");
                for (i, st) in path.iter().enumerate() {
                    if i == 0 {
                        s.push_str(&st.from);
                    }
                    s.push_str(&format!(" —{}→ {}", st.edge, st.to));
                }
                s
            }
        }
    }
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
    /// A navigation page: ranked far below content and packed as a reference line
    /// (`NAV_WEIGHT`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nav: bool,
    /// Why it is here.
    pub why: Why,
}

/// Score factor of a navigation page (an index, a README of links, a Dataview page;
/// [`Node::nav`]) that matched the query or was reached along a body link: below any
/// document with content. Its links are walked as a seed's would be (it is a *pivot*),
/// so what it points to is found without it taking a place among the answers. Reached
/// along a typed relation (an EIP `requires` a Meta EIP), it keeps its rank: the relation
/// says it matters to the document that declares it.
pub const NAV_WEIGHT: f64 = 0.1;

/// The answer to a query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Results {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
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
    /// A navigation page ([`Node::nav`]).
    pub nav: bool,
}

/// A section's text for a pack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionText {
    /// Chunk id.
    pub chunk: String,
    /// Heading.
    pub heading: String,
    /// Markdown text.
    pub text: String,
    /// Tokens of the section as a pack prints it.
    pub tokens: u32,
}

/// What a search engine must answer.
pub trait Engine: GraphSource {
    /// Row statistics.
    fn corpus(&self) -> &Corpus;
    /// Postings of an index term (empty when no row has it).
    fn postings(&self, term: &str) -> Result<Cow<'_, [Posting]>, Error>;
    /// Identity of a row (0-based).
    fn row(&self, row: u32) -> Option<RowInfo>;
    /// Facts about a document.
    fn doc(&self, id: &str) -> Option<DocInfo>;
    /// Is `id` a navigation page? (Asked of every node the walk leaves; few documents are.)
    fn is_nav(&self, id: &str) -> bool {
        self.doc(id).is_some_and(|d| d.nav)
    }
    /// A document's state (asked for every target a pack's relations lines show).
    fn state(&self, id: &str) -> Option<String> {
        self.doc(id).and_then(|d| d.state)
    }
    /// The document an id-like token names exactly (any case, `ID@uidprefix`).
    fn exact_id(&self, token: &str) -> Option<String>;
    /// The documents whose id is `scope/local` for this `local` (any case, sorted): the
    /// items of spec folders, whose ids are scoped by their feature (`003-chat/T012`).
    fn scoped_ids(&self, local: &str) -> Vec<String>;
    /// A document node (with its token count).
    fn node(&self, id: &str) -> Option<Node>;
    /// A document's sections in order, with text and token counts.
    fn sections_of(&self, doc: &str) -> Vec<SectionText>;
    /// Index terms of a row's title, heading and body columns.
    fn row_terms(&self, row: u32) -> HashSet<String>;
    /// Which engine this is.
    fn kind(&self) -> EngineKind;
    /// Take in the edit short cut's documents (`edges`: the whole new edge list, in
    /// order) in place, as a fresh engine over the new index would answer. False, having
    /// changed nothing, when this engine cannot (it reads the mirror, which the edit
    /// updated itself) or an edit does not fit; the engine must then be opened again.
    fn apply_edits(
        &mut self,
        _edits: &[crate::store::mirror::DocEdit],
        _edges: &mut dyn Iterator<Item = &crate::model::Edge>,
    ) -> bool {
        false
    }
}
