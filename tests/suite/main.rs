//! Integration tests: the real binary on fixture copies in temp dirs, plus property tests
//! through the library API.

mod common;

mod adrs;
mod backlog;
mod baseline;
mod check;
mod commit_hook;
mod corpora;
mod docs;
mod eval;
mod git_stored;
mod hook;
mod hostile;
mod incremental;
mod index;
mod init;

mod links;
mod mcp;
mod mcp_bounded;
mod merges;
mod nav;
mod never_hang;
mod newcomer;
mod openspec;
mod pack;
mod search;
mod show;
mod site;
mod site_plan;
mod spec;
mod spec_edits;
mod spec_parts;
mod spec_real;
mod spec_small;
mod spec_variants;
mod spec_why;
mod spec_work;
mod term;
mod tidy;
mod untouched;
mod vouch;
