//! The graph data model: node kinds, edge types and the node/edge records written to the
//! sidecar. These types are the JSONL contract; field order here is the order on disk.

pub(crate) mod backlog;
pub mod diag;
pub mod graph;
pub mod section;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::fmt;
use std::str::FromStr;

/// What a node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A backlog item (Epic, Feature, UserStory, Task, Bug); `type` keeps the subtype.
    WorkItem,
    /// An architecture decision record.
    Adr,
    /// Any other Markdown document.
    #[default]
    Doc,
    /// One section of a document.
    Chunk,
}

impl Kind {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::WorkItem => "work_item",
            Kind::Adr => "adr",
            Kind::Doc => "doc",
            Kind::Chunk => "chunk",
        }
    }
}

/// Canonical, directed edge types (source → target).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EdgeType {
    /// child → parent.
    Parent,
    /// item → ADR that decides it.
    DecisionRef,
    /// Loosely related.
    Relates,
    /// source blocks target.
    Blocks,
    /// source is blocked by target.
    BlockedBy,
    /// source depends on (requires) target.
    DependsOn,
    /// newer ADR → the ADR it replaces.
    Supersedes,
    /// older ADR → the ADR that replaces it.
    SupersededBy,
    /// A wikilink or Markdown link in the body.
    LinksTo,
    /// A known id written in the body text.
    Mentions,
    /// chunk → its document.
    SectionOf,
}

/// All edge types, in their canonical order.
pub const EDGE_TYPES: [EdgeType; 11] = [
    EdgeType::Parent,
    EdgeType::DecisionRef,
    EdgeType::Relates,
    EdgeType::Blocks,
    EdgeType::BlockedBy,
    EdgeType::DependsOn,
    EdgeType::Supersedes,
    EdgeType::SupersededBy,
    EdgeType::LinksTo,
    EdgeType::Mentions,
    EdgeType::SectionOf,
];

impl EdgeType {
    /// The snake_case name used in JSON and config.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeType::Parent => "parent",
            EdgeType::DecisionRef => "decision_ref",
            EdgeType::Relates => "relates",
            EdgeType::Blocks => "blocks",
            EdgeType::BlockedBy => "blocked_by",
            EdgeType::DependsOn => "depends_on",
            EdgeType::Supersedes => "supersedes",
            EdgeType::SupersededBy => "superseded_by",
            EdgeType::LinksTo => "links_to",
            EdgeType::Mentions => "mentions",
            EdgeType::SectionOf => "section_of",
        }
    }

    /// Weight of an edge of this type: typed (frontmatter) relations are stronger than
    /// body links, which are stronger than bare mentions.
    pub fn weight(self) -> f64 {
        match self {
            EdgeType::Parent | EdgeType::DecisionRef | EdgeType::Supersedes | EdgeType::SupersededBy => 1.0,
            EdgeType::Blocks | EdgeType::BlockedBy | EdgeType::DependsOn => 0.9,
            EdgeType::Relates => 0.7,
            EdgeType::LinksTo => 0.6,
            EdgeType::Mentions => 0.3,
            EdgeType::SectionOf => 1.0,
        }
    }
}

impl fmt::Display for EdgeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EdgeType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EDGE_TYPES.iter().copied().find(|t| t.as_str() == s).ok_or_else(|| {
            let names: Vec<&str> = EDGE_TYPES.iter().map(|t| t.as_str()).collect();
            format!("unknown edge type `{s}`, expected one of: {}", names.join(", "))
        })
    }
}

/// Where an edge was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A frontmatter field.
    Frontmatter,
    /// The Markdown body.
    Body,
    /// Derived from document structure (sections).
    Structure,
}

impl Origin {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Frontmatter => "frontmatter",
            Origin::Body => "body",
            Origin::Structure => "structure",
        }
    }
}

/// A reference as written in a file, before resolution. Stored with the document node so
/// an incremental run can re-resolve unchanged files without re-reading them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRef {
    /// The edge type this reference makes.
    pub edge: EdgeType,
    /// The target as written: an id, `ID@uid`, a wikilink target, or a Markdown link's
    /// destination (without its `#anchor`; resolved against the linking file, then the
    /// repository root, at resolve time).
    pub target: String,
    /// How to resolve `target`.
    pub form: RefForm,
    /// 1-based line in the file.
    pub line: u32,
    /// The frontmatter key path (`links.relates`) for frontmatter references.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The text of a typed Markdown link (on a status line: "Superseded by
    /// [ADR-0028](0028-old-name.md)"): when the destination is broken and the text is an
    /// id that resolves, the typed edge goes to that id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// How a raw reference is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefForm {
    /// An id, possibly `ID@uidprefix` (frontmatter values).
    Id,
    /// A `[[wikilink]]` target: an id, a path, or a filename with or without `.md`.
    Wiki,
    /// A Markdown link's destination: relative to the linking file, else to the
    /// repository root (a leading `/` means the repository root).
    Path,
}

/// A node of the graph: a document (work item, ADR, doc) or one of its sections (chunk).
///
/// One flat record so the JSONL stays readable and fast to load; the document fields are
/// set on documents, the chunk fields on chunks (see [`Node::is_chunk`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Node {
    /// Unique node id (`ID`, `ID@uidprefix`, `ID@path`; chunks: `DOCID#slug`).
    pub id: String,
    /// Node kind.
    pub kind: Kind,
    /// Root-relative path of the file.
    pub path: String,
    // --- documents ---
    /// The id as written (frontmatter or filename) before disambiguation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_id: Option<String>,
    /// Work item subtype (Epic, Feature, …) or the `type` field of any document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
    /// Title: frontmatter `title`, else the first heading, else the filename.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `state` or `status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// The `uid` field, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// blake3 hash of the file's bytes (hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// True when the id was derived from the filename (no id field in the frontmatter).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub id_derived: bool,
    /// True for a navigation page (an index, a README of links, a Dataview dashboard):
    /// search follows its links but does not rank or pack it as content. The rule is
    /// in `ingest/parse.rs` (`is_nav_page`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nav: bool,
    /// True for an item written inside a file beside others (a checkbox task, a phase, a
    /// user story of a spec folder): `line` is its line and its one section its text.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inline: bool,
    /// The whole frontmatter as a JSON object (`{}` when there is none or it is invalid).
    /// Kept as raw JSON: mdgraph itself reads only the fields it extracted, so loading an
    /// index does not build a map per document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Box<RawValue>>,
    /// References as written, in file order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refs: Option<Vec<RawRef>>,
    // --- chunks ---
    /// The id of the document this section belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// Heading text ("" for text before the first heading).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// Heading level 1–6 (0 for text before the first heading).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// 1-based line of the heading (or of the first text line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Tokens of the document header or the section as a pack prints it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u32>,
    /// 1-based line where the section text starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_line: Option<u32>,
    /// Section text as Markdown, without the heading line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl Node {
    /// True for section nodes.
    pub fn is_chunk(&self) -> bool {
        self.kind == Kind::Chunk
    }

    /// Title of a document, heading of a chunk.
    pub fn label(&self) -> &str {
        self.title.as_deref().or(self.heading.as_deref()).unwrap_or("")
    }

    /// A frontmatter field's values as text (key matched ignoring ASCII case; a list
    /// gives its members, `null` nothing, other values their JSON text).
    pub(crate) fn field_values(&self, key: &str) -> Vec<String> {
        let Some(raw) = self.fields.as_deref() else {
            return Vec::new();
        };
        let Ok(map) = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(raw.get()) else {
            return Vec::new();
        };
        let v = map.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v);
        let text = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Null => None,
            other => Some(other.to_string()),
        };
        match v {
            Some(serde_json::Value::Array(xs)) => xs.iter().filter_map(text).collect(),
            Some(v) => text(v).into_iter().collect(),
            None => Vec::new(),
        }
    }
}

/// A directed, typed edge between two node ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edge {
    /// Source node id.
    pub source: String,
    /// Target node id.
    pub target: String,
    /// Edge type.
    pub r#type: EdgeType,
    /// Where it was written.
    pub origin: Origin,
    /// Root-relative path of the file it was written in.
    pub path: String,
    /// 1-based line it was written on.
    pub line: u32,
    /// Strength used by retrieval.
    pub weight: f64,
}

/// The resolved graph: nodes sorted by id, edges sorted by (source, type, target, line).
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// All nodes, sorted by id.
    pub nodes: Vec<Node>,
    /// All edges, sorted.
    pub edges: Vec<Edge>,
}
