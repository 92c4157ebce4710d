//! Internals for mdgraph's fuzz targets (`fuzz/`), its floors bench (`bench/floors.rs`)
//! and the integration tests that check internals (`tests/suite/search.rs`: the engines
//! agree and the ranking equals FTS5's bm25; `tests/suite/incremental.rs`: incremental
//! builds and in-place mirror updates equal full ones), under their names from before
//! the stage folders. Only what those use is here, besides one stopgap marked below
//! (`backlog`). Not part of the API: anything here may change in any release.

#![allow(missing_docs)]

pub mod backlog {
    // No user: this keeps `Backlog::group`, which only backlog's unit tests call, from
    // being dead code until src/query/backlog.rs (being split into a folder) marks it
    // `#[cfg(test)]`; then this goes.
    pub use crate::query::backlog::Backlog;
}
pub mod bm25 {
    pub use crate::query::bm25::score;
}
pub mod config {
    pub use crate::config::Retrieval;
}
pub mod index {
    pub use crate::ingest::build::{BuildOptions, build};
}
pub mod pack {
    pub use crate::query::pack::pack;
}
pub mod parse {
    pub use crate::ingest::parse::{filename_id, parse_file};
}
pub mod postings {
    pub use crate::store::postings::{HOLE, Strings, build, bytes_to_u32s, decode};
}
pub mod render {
    pub use crate::text::render::{doc_header, section_block};
}
pub mod resolve {
    pub use crate::ingest::resolve::resolve;
}
pub mod search {
    pub use crate::query::search::{Engine, MemoryEngine, Results, SqliteEngine, memory_engine, search};
}
pub mod sidecar {
    pub use crate::store::sidecar::{Meta, read_meta, to_jsonl_blocks};
}
pub mod store {
    pub use crate::api::mirror_spec;
    pub use crate::store::mirror::{is_fresh, sync};
}
pub mod tokenize {
    pub use crate::text::tokenize::{MAX_QUERY_TERMS, fts_expression, query_terms};
}
