//! The pack's shapes: what a context pack holds (its items, their relations, what did
//! not fit) as JSON and Markdown callers receive it.
//!
//! A pack is the ranked results fitted into a token budget as a Markdown document ready
//! to paste into a prompt, saying for every item why it is there and how it relates to
//! the rest of the backlog.
//!
//! Answer first, then breadth. The best item gets generous but bounded room (up to
//! [`FIRST_SHARE`] of the budget); then every further item gets its header, its relations
//! line and its most relevant section (cut at a line boundary when the section alone is
//! larger than an item's share); then the room left deepens the items in rank order with
//! their further sections. An item whose text fits nowhere becomes a one-line reference,
//! the last resort; what does not fit at all is counted under "Not included". A
//! navigation page is only ever a reference unless the query names its id.
//!
//! Every line is counted with the index's tokenizer (o200k by default): section texts
//! and document headers from the counts stored at index time, everything made at pack
//! time (relations, reasons, the title, the stats line) as it is printed, and `used` is
//! the count of the whole emitted Markdown.
//!
//! A spec's requirements and criteria (a short line each, written inside the spec) go in
//! as one block under the best ranked of them, each in its own turn (`cand.rs`,
//! `group_small_items`).
//!
//! For a question that asks why, a decision block (Decision, Rationale, Alternatives,
//! Trade-offs) is a unit: whole when it fits the room left, never cut after its first
//! bullet (`decision.rs`).
//!
//! `fit.rs` chooses what each item contributes ([`pack`]), `cand.rs` holds a candidate
//! and what its copies share, `relations.rs` reads an item's relations, `render.rs`
//! writes and counts the pack, `count.rs` counts an item's block from its parts.

use crate::query::search::Why;
use crate::text::tokens::Tokenizer;
use serde::Serialize;
use std::collections::BTreeMap;

mod cand;
mod count;
mod decision;
mod fit;
mod relations;
mod render;

pub use fit::{MAX_BUDGET, pack};
/// Version of the pack's JSON shape (`schema` field).
pub const SCHEMA: &str = "mdgraph.pack/2";

/// At most this many targets of one relation are listed; the rest are counted.
pub const MAX_TARGETS: usize = 8;

/// How much of an item is in the pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every section.
    Full,
    /// The most relevant sections (the last one possibly cut).
    Excerpt,
    /// The header and the reason only.
    Reference,
}

impl Mode {
    fn as_str(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::Excerpt => "excerpt",
            Mode::Reference => "reference",
        }
    }
}

/// One relation of an item, as its relations line shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Relation {
    /// The relation as read from the item (`parent`, `blocked_by`, `blocks`, `depends_on`,
    /// `required_by`, `decisions`, `decides`, `supersedes`, `superseded_by`, `children`).
    pub rel: &'static str,
    /// The other document.
    pub id: String,
    /// Its state, when it has one.
    pub state: Option<String>,
}

/// One item of a pack.
#[derive(Debug, Clone, Serialize)]
pub struct PackItem {
    /// Node id.
    pub id: String,
    /// Root-relative path.
    pub path: String,
    /// Title.
    pub title: String,
    /// Type or kind.
    pub r#type: Option<String>,
    /// State.
    pub state: Option<String>,
    /// How much is included.
    pub mode: Mode,
    /// Tokens of its Markdown in the pack (`text`).
    pub tokens: u32,
    /// Sections included (chunk ids), in document order.
    pub sections: Vec<String>,
    /// Its frontmatter relations with their targets' states: at most `MAX_TARGETS` (8) of
    /// each relation, as the relations line names them.
    pub relations: Vec<Relation>,
    /// How many further targets each relation has beyond those listed (`"children": 92`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub relations_more: BTreeMap<&'static str, usize>,
    /// Why it is here.
    pub why: Why,
    /// The small items of the same document packed in this item's block (requirements,
    /// criteria: their text without a header of their own), in rank order, with the
    /// tokens of their text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<Member>,
    /// The item as the Markdown pack prints it.
    pub text: String,
}

/// A small item packed in another item's block.
#[derive(Debug, Clone, Serialize)]
pub struct Member {
    /// Node id.
    pub id: String,
    /// Tokens of its text in the block.
    pub tokens: u32,
}

/// A relevant item that did not fit.
#[derive(Debug, Clone, Serialize)]
pub struct Omitted {
    /// Node id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Why it was relevant.
    pub why: Why,
}

/// A context pack.
#[derive(Debug, Clone, Serialize)]
pub struct Pack {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// The query.
    pub query: String,
    /// The budget in tokens.
    pub budget: u32,
    /// Tokens of the emitted Markdown, counted with `tokenizer` (never above the budget).
    pub used: u32,
    /// Counter the sizes come from.
    pub tokenizer: Tokenizer,
    /// Items in rank order.
    pub items: Vec<PackItem>,
    /// Ranked candidates that did not fit, in rank order (the Markdown's "not included").
    pub not_included: Vec<Omitted>,
    /// Candidates scoring below the relevance cliff (a share of the best candidate's
    /// score), not packed however much room is left; in rank order. Empty with `fill`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub below_cliff: Vec<String>,
    /// The pack as Markdown.
    #[serde(skip)]
    pub markdown: String,
}
