//! The index read for `mdgraph site`: documents, edges and diagnostics parsed, each
//! document's sections left as their JSONL lines in the file's bytes, so that only the
//! pages being rendered decode their text (most pages of a run after an edit are not
//! rendered at all). Nothing is copied but what is parsed.

use super::files::{DIAGNOSTICS, EDGES, NODES};
use super::sidecar::{Meta, SCHEMA_VERSION, parse_jsonl, read_meta, read_verified};
use crate::model::diag::Diagnostic;
use crate::model::{Edge, Node};
use rayon::prelude::*;
use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

/// The index with its sections left as lines.
pub struct Apart {
    /// Meta.
    pub meta: Meta,
    /// The documents, sorted by id.
    pub docs: Vec<Node>,
    /// The node file's text, which the section lines are ranges of.
    nodes: String,
    /// Each document's section records, as ranges of lines in `nodes`, by document id.
    sections: HashMap<String, Vec<Range<usize>>>,
    /// The edges but `section_of`, sorted.
    pub edges: Vec<Edge>,
    /// Diagnostics, sorted.
    pub diagnostics: Vec<Diagnostic>,
}

impl Apart {
    /// The JSONL lines of document `id`'s sections, in file order.
    pub fn section_lines(&self, id: &str) -> impl Iterator<Item = &str> {
        self.sections
            .get(id)
            .into_iter()
            .flatten()
            .map(|r| &self.nodes[r.clone()])
    }
}

/// The value of the first `key` of a JSON record line (the first `"key":` of a record
/// is the key itself: string values escape their quotes).
fn value_of<'l>(line: &'l str, key: &str) -> Option<&'l str> {
    let at = line.find(key)? + key.len();
    let rest = line[at..].strip_prefix('"')?;
    Some(&rest[..rest.find('"')?])
}

/// Parse `lines` (line number, text) in parallel; None when one is damaged (its digest
/// matched, so only a record of another version is).
fn parse_lines<T: serde::de::DeserializeOwned + Send>(lines: &[(usize, &str)]) -> Option<Vec<T>> {
    lines.par_iter().map(|(_, l)| serde_json::from_str(l).ok()).collect()
}

/// Load the index as [`Apart`]; None when there is none, it has another schema version,
/// or a file does not match its recorded digest.
pub fn load_apart(index_dir: &Path) -> Option<Apart> {
    let meta = read_meta(index_dir)?;
    if meta.schema != SCHEMA_VERSION {
        return None;
    }
    let get = |name: &str| read_verified(index_dir, name, &meta);
    let text = |name: &str| get(name).and_then(|b| String::from_utf8(b).ok());
    let (nodes, edges) = rayon::join(|| text(NODES), || text(EDGES));
    let (nodes, edges) = (nodes?, edges?);
    let mut docs: Vec<(usize, &str)> = Vec::new();
    let mut sections: HashMap<String, Vec<Range<usize>>> = HashMap::new();
    let mut start = 0;
    for (n, line) in nodes.split('\n').enumerate() {
        let range = start..start + line.len();
        start = range.end + 1;
        if line.trim().is_empty() {
            continue;
        }
        match value_of(line, "\"kind\":") {
            Some("chunk") => {
                let doc = value_of(line, "\"doc\":")?;
                match sections.get_mut(doc) {
                    Some(v) => v.push(range),
                    None => {
                        sections.insert(doc.to_string(), vec![range]);
                    }
                }
            }
            _ => docs.push((n + 1, line)),
        }
    }
    let kept: Vec<(usize, &str)> = edges
        .split('\n')
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && value_of(l, "\"type\":") != Some("section_of"))
        .map(|(n, l)| (n + 1, l))
        .collect();
    let docs = parse_lines(&docs)?;
    let edges = parse_lines(&kept)?;
    Some(Apart {
        docs,
        edges,
        diagnostics: parse_jsonl(&index_dir.join(DIAGNOSTICS), &get(DIAGNOSTICS)?).ok()?,
        nodes,
        sections,
        meta,
    })
}
