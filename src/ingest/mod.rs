//! Ingest: Markdown in, graph out. [`scan`] walks the root (ignore-aware, hashing with
//! blake3) → [`parse`] reads each file ([`frontmatter`] and [`markdown`] sections and
//! links) → [`resolve`] turns references into edges and problems into diagnostics, and
//! hands them to [`resolved`] (below it: chunk ids, the node and edge files) →
//! [`build`] orchestrates it incrementally and commits the result to the store, trying
//! [`edit`]'s short cut first; both hand back a [`report`].
//!
//! Ingest never imports the query side.

pub mod adr;
pub mod build;
pub mod edit;
pub mod frontmatter;
pub mod markdown;
pub mod overlay;
pub mod parse;
mod previous;
pub mod report;
pub mod resolve;
pub mod resolved;
pub mod scan;
pub mod spec;
pub mod status;
