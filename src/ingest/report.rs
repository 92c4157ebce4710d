//! What a build run hands back, whichever path made the index: the [`BuildReport`], the
//! edit short cut's change of the index ([`Edits`]), and the token counts both paths
//! give a parsed file. It sits below `build.rs` and `edit.rs` so that the build can try
//! the short cut without the short cut knowing the build.

use crate::ingest::parse::ParsedFile;
use crate::model::diag::Diagnostic;
use crate::store::mirror::DocEdit;
use crate::store::sidecar::Meta;
use crate::text::{render, tokens};
use crate::timing::Timings;

/// What a build did.
#[derive(Debug, Clone, Default)]
pub struct BuildReport {
    /// The index was already up to date; nothing was computed or written.
    pub up_to_date: bool,
    /// Files parsed in this run.
    pub parsed: usize,
    /// Files whose previous parse was reused.
    pub reused: usize,
    /// Output files that were (re)written.
    pub written: Vec<String>,
    /// The meta record of the result.
    pub meta: Meta,
    /// All diagnostics of the result, sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// How long each phase took.
    pub timings: Timings,
    /// When the edit short cut made the index: what it changed (an index held in memory
    /// applies it, see `Index::apply_edits`).
    pub(crate) edits: Option<Edits>,
    /// For a build that only computes (`write: false`): the blake3 of the bytes each
    /// output and `meta.json` would have, by file name, for a byte for byte comparison
    /// with a committed index.
    pub(crate) bytes: std::collections::BTreeMap<String, blake3::Hash>,
}

/// The edit short cut's change of the index.
#[derive(Debug, Clone)]
pub(crate) struct Edits {
    /// The sidecar digest of the index they were applied to.
    pub(crate) from: String,
    /// The edited documents as the new index holds them.
    pub(crate) docs: Vec<DocEdit>,
}

impl BuildReport {
    /// The report of a run that found the index up to date (`meta` and its diagnostics).
    pub(crate) fn unchanged(meta: Meta, diagnostics: Vec<Diagnostic>, timings: Timings) -> BuildReport {
        BuildReport {
            up_to_date: true,
            reused: meta.files.len(),
            meta,
            diagnostics,
            timings,
            ..BuildReport::default()
        }
    }
}

/// Token counts of a document's header and sections as a pack prints them.
pub(crate) fn count_tokens(p: &mut ParsedFile, t: tokens::Tokenizer) {
    p.doc.tokens = Some(tokens::count(t, &render::doc_header(&p.doc)));
    for s in &mut p.sections {
        s.tokens = tokens::count(t, &render::section_block(&s.heading, &s.text));
    }
    for item in &mut p.items {
        count_tokens(item, t);
    }
}
