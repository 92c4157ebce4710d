//! The parses of an index's files read back from its sidecar (the node file's document
//! and section records, the parse-stage diagnostics), so a build re-parses only the
//! files that changed, and `check --staged` judges staged files against the rest.

use crate::ingest::markdown::Section;
use crate::ingest::parse::ParsedFile;
use crate::model::diag::Diagnostic;
use crate::model::{Kind, Node};
use crate::store::sidecar::{self, Meta};
use crate::store::{files, mirror};
use std::collections::HashMap;

/// Each file's parse as the index in `index_dir` (whose `meta.json` is `meta`) holds it,
/// keyed by path, and all its diagnostics; None when the index is of another schema or a
/// file does not match its digest. The node file is read a batch at a time, its records
/// moved into the parses.
pub(crate) fn previous_parses(
    index_dir: &std::path::Path,
    meta: &Meta,
) -> Option<(HashMap<String, ParsedFile>, Vec<Diagnostic>)> {
    if meta.schema != sidecar::SCHEMA_VERSION {
        return None;
    }
    let bytes = sidecar::read_verified(index_dir, files::DIAGNOSTICS, meta)?;
    let all: Vec<Diagnostic> = sidecar::parse_jsonl(&index_dir.join(files::DIAGNOSTICS), &bytes).ok()?;
    let mut diags: HashMap<String, Vec<Diagnostic>> = HashMap::new();
    for d in all.iter().filter(|d| d.code.is_parse_stage()) {
        diags.entry(d.path.clone()).or_default().push(d.clone());
    }
    let mut sections: HashMap<String, Vec<Section>> = HashMap::new();
    let mut docs: Vec<Node> = Vec::new();
    sidecar::read_batches(
        index_dir,
        files::NODES,
        meta,
        mirror::BATCH,
        None,
        |batch: Vec<Node>| {
            for n in batch {
                if n.kind == Kind::Chunk {
                    sections
                        .entry(n.doc.clone().unwrap_or_default())
                        .or_default()
                        .push(Section {
                            heading: n.heading.unwrap_or_default(),
                            level: n.level.unwrap_or(0),
                            line: n.line.unwrap_or(0),
                            text_line: n.text_line.unwrap_or(0),
                            text: n.text.unwrap_or_default(),
                            tokens: n.tokens.unwrap_or(0),
                        });
                } else {
                    docs.push(n);
                }
            }
            Ok(())
        },
    )
    .ok()?;
    let (items, docs): (Vec<Node>, Vec<Node>) = docs.into_iter().partition(|d| d.inline);
    let mut parses: HashMap<String, ParsedFile> = docs
        .into_iter()
        .map(|mut doc| {
            let mut secs = sections.remove(&doc.id).unwrap_or_default();
            doc.id = doc.raw_id.clone().unwrap_or_default();
            secs.sort_by_key(|s| s.line);
            let mut ds = diags.remove(&doc.path).unwrap_or_default();
            // Parse diagnostics are produced in file order; the sidecar stores them sorted,
            // and the merged list is sorted again, so order here does not matter.
            ds.sort();
            let path = doc.path.clone();
            (path, ParsedFile::new(doc, secs, ds))
        })
        .collect();
    // Items go back inside their files, in file order.
    for mut item in items {
        let secs = sections.remove(&item.id).unwrap_or_default();
        item.id = item.raw_id.clone().unwrap_or_default();
        if let Some(file) = parses.get_mut(&item.path) {
            file.items.push(ParsedFile::new(item, secs, Vec::new()));
        }
    }
    for file in parses.values_mut() {
        file.items.sort_by_key(|i| i.doc.line);
    }
    Some((parses, all))
}
