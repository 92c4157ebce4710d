//! Internals for mdgraph's own white-box tests, benches and fuzz targets, under their
//! names from before the stage folders. Not part of the API: anything here may change
//! in any release.

#![allow(missing_docs)]

pub mod backlog {
    pub use crate::query::backlog::*;
}
pub mod bm25 {
    pub use crate::query::bm25::*;
}
pub mod config {
    pub use crate::config::*;
}
pub mod eval {
    pub use crate::query::eval::*;
}
pub mod expand {
    pub use crate::query::expand::*;
}
pub mod hook {
    pub use crate::check::hook::*;
}
pub mod index {
    pub use crate::ingest::build::*;
}
pub mod pack {
    pub use crate::query::pack::*;
}
pub mod parse {
    pub use crate::ingest::parse::*;
}
pub mod postings {
    pub use crate::store::postings::*;
}
pub mod render {
    pub use crate::text::render::*;
}
pub mod resolve {
    pub use crate::ingest::resolve::*;
}
pub mod scan {
    pub use crate::ingest::scan::*;
}
pub mod search {
    pub use crate::query::search::*;
}
pub mod sidecar {
    pub use crate::store::files::*;
    pub use crate::store::sidecar::*;
}
pub mod store {
    pub use crate::api::mirror_spec;
    pub use crate::store::mirror::*;
}
pub mod tokenize {
    pub use crate::text::tokenize::*;
}
pub mod tokens {
    pub use crate::text::tokens::*;
}
