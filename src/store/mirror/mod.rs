//! The optional SQLite mirror `index.sqlite`: nodes, edges (all but `section_of`: a
//! section's document is in `sections`), sections, and the postings and row statistics
//! that search scores (with FTS5's bm25 formula, see
//! [`crate::store::postings`]). With `sqlite_fts = true` it also has a contentless FTS5
//! table over the sections' stemmed title, heading and body for SQL users' own `MATCH`
//! queries; mdgraph never reads it, and it doubles the mirror's build time, so it is off
//! by default (BENCHMARKS.md, "Cold index at 10k"). The `backlog` table holds, per
//! document, what `list` filters on and `ready`'s whole answer, made under the `[states]`
//! config by the caller's code ([`Spec`]), so that those commands read only the rows they
//! print.
//!
//! It is derived from the JSONL sidecar, built into a temporary file and renamed into
//! place, and records the digests of the sidecar files it mirrors and of the state
//! groups, and whether it has the FTS5 table: when any differs (or the file is missing,
//! of another schema, or corrupt) it is rebuilt, or, when the searchable rows are the
//! same sections as before, updated on a copy ([`update()`]) to exactly what a rebuild
//! would hold. Sections are keyed by their position in the sorted node list (`rowid`),
//! the same numbering the in-memory fallback uses, so both engines rank identically.

mod fresh;
mod read;
mod update;
mod write;

pub use fresh::{DB_FILE, DB_SCHEMA, Spec, db_path, is_fresh, mirrors, sidecar_digest, tokenizer_id};
pub use read::{Docs, Link, is_document, load_corpus, load_docs, load_list, load_ready, load_subtree, nav_ids};
pub use update::update;
pub use write::rebuild;

use crate::error::Error;
use crate::store::sidecar;
use std::path::Path;

/// Make sure the mirror matches the sidecar and `spec`, updating it in place or
/// rebuilding it from the sidecar files when needed (a change of the state groups alone
/// is an update that rewrites the backlog table). Returns whether it was written.
pub fn sync(index_dir: &Path, spec: &Spec) -> Result<bool, Error> {
    let outputs = sidecar::read_meta_head(index_dir)
        .map(|h| h.outputs)
        .ok_or_else(|| Error::Other(format!("{}: no index to mirror", index_dir.display())))?;
    if is_fresh(index_dir, &outputs, spec) {
        return Ok(false);
    }
    let loaded = sidecar::load(index_dir).ok_or_else(|| {
        Error::Other(format!(
            "{}: the index is damaged; run `mdgraph index`",
            index_dir.display()
        ))
    })?;
    let (meta, nodes, edges) = (&loaded.meta, &loaded.nodes, &loaded.edges);
    if !update(index_dir, meta, nodes, edges, spec).unwrap_or(false) {
        rebuild(index_dir, meta, nodes, edges, spec)?;
    }
    Ok(true)
}
