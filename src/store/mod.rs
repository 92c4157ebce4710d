//! Store: the index folder and everything in it. The names of its files and writing
//! them atomically ([`files`]), the JSONL sidecar and `meta.json` ([`sidecar`], the
//! contract), the local stat cache that lets a no-change run skip hashing
//! ([`statcache`]), the hygiene findings of the last check ([`findings`]), the write lock ([`lock`]), the search postings both engines score
//! ([`postings`]) and the optional SQLite mirror ([`mirror`]).
//!
//! The store knows nothing of how documents are parsed or queries answered: ingest
//! writes it, query reads it.

#[cfg(feature = "site")]
pub mod apart;
pub mod doctable;
pub mod files;
pub mod findings;
pub mod lock;
pub mod mirror;
pub mod patch;
pub mod postings;
pub mod sidecar;
pub mod statcache;
