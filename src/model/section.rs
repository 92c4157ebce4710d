//! The searchable rows both search engines share: one per section (chunk node), numbered
//! in node order, with the normalized section name that section weights key on.

use crate::model::{Kind, Node};

/// The normalized section name used for section weights: the heading lowercased with
/// single spaces (`Acceptance Criteria` → `acceptance criteria`).
pub fn section_name(heading: &str) -> String {
    heading.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The text of the title column (FTS5 and BM25) for a document: its title. (Ids are matched
/// exactly, not through full text: id fragments like `qry` would match every row.)
pub fn title_text(doc: &Node) -> String {
    doc.label().to_string()
}

/// A searchable section: its row number, chunk node, document id and heading. Documents
/// without any section get one empty row so their title stays searchable.
pub struct SectionRow<'a> {
    /// Row number (1-based), shared by both engines.
    pub rowid: i64,
    /// The chunk node (or the document itself for an empty document).
    pub chunk: &'a Node,
    /// The document id.
    pub doc: &'a str,
    /// The heading ("" for a document's only, empty row).
    pub heading: &'a str,
}

/// The searchable rows of a node list, in node order.
pub fn sections(nodes: &[Node]) -> Vec<SectionRow<'_>> {
    let with_sections: std::collections::HashSet<&str> = nodes.iter().filter_map(|n| n.doc.as_deref()).collect();
    let mut out = Vec::new();
    for n in nodes {
        let (doc, heading) = match n.kind {
            Kind::Chunk => (n.doc.as_deref().unwrap_or(""), n.heading.as_deref().unwrap_or("")),
            _ if !with_sections.contains(n.id.as_str()) => (n.id.as_str(), ""),
            _ => continue,
        };
        out.push(SectionRow {
            rowid: out.len() as i64 + 1,
            chunk: n,
            doc,
            heading,
        });
    }
    out
}
