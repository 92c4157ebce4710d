//! Integration tests: the real binary on fixture copies in temp dirs, plus property tests
//! through the library API.

mod common;

mod check;
mod corpora;
mod eval;
mod incremental;
mod index;
mod pack;
mod search;
mod show;
