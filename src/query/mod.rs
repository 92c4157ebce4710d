//! Query: questions in, ranked and packed context out. [`intent`] reads what a question
//! asks from its shape, [`search`] finds seeds with [`bm25`] over the store's postings,
//! [`expand`] walks the graph to their load-bearing neighbors, re-ranks, and [`pack`]
//! fits the result into a token budget. [`show`] and
//! [`neighbors`] read single nodes and neighborhoods; [`eval`] measures retrieval
//! against labeled queries. [`backlog`] answers the structured questions: list with
//! filters, ready work, an epic's roll-up; [`bound`] cuts those listings to a limit or a
//! token budget.
//!
//! Query never imports the ingest side.

pub mod backlog;
pub mod bm25;
pub mod bound;
pub mod eval;
pub mod expand;
pub mod intent;
pub mod neighbors;
pub mod pack;
pub mod search;
pub mod show;
