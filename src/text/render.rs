//! How documents and sections appear in a context pack. Shared by indexing (which counts
//! their tokens) and packing (which prints them), so the stored counts are the counts of
//! exactly what is printed.

use crate::model::Node;

/// A document's two header lines: `## ID — Title` and `Type · State · path`.
pub fn doc_header(doc: &Node) -> String {
    // A duplicated id prints as its node id (`ID@path`), so two documents that share an
    // id are told apart, and `show` takes what is printed.
    let id = match doc.id.contains('@') {
        true => doc.id.as_str(),
        false => doc.raw_id.as_deref().unwrap_or(&doc.id),
    };
    let label = doc.r#type.clone().unwrap_or_else(|| doc.kind.as_str().to_string());
    let state = doc.state.as_deref().unwrap_or("-");
    format!("## {id} — {}\n{label} · {state} · {}", one_line(doc.label()), doc.path)
        .trim()
        .to_string()
}

/// A section as a block: `### Heading`, a blank line, the text (text before the first
/// heading is printed as is).
pub fn section_block(heading: &str, text: &str) -> String {
    let text = text.trim();
    match (heading.is_empty(), text.is_empty()) {
        (true, _) => text.to_string(),
        (false, true) => format!("### {}", one_line(heading)),
        (false, false) => format!("### {}\n\n{text}", one_line(heading)),
    }
}

/// Newlines and runs of whitespace folded to single spaces.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
