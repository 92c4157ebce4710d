//! Text: how mdgraph cuts and counts text. Query and index terms ([`tokenize`]), token
//! counts for pack budgets ([`tokens`]), how documents and sections print in a pack
//! ([`render`]), id mentions in prose ([`mentions`]) and paths as shown and stored
//! ([`path`]), line ends as git stores them ([`eol`]). No I/O beyond path resolution; everything above uses it.

pub mod bpe;
pub mod eol;
pub mod ids;
pub mod mentions;
pub mod path;
pub mod render;
pub mod tokenize;
pub mod tokens;
