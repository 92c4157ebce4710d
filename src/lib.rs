//! mdgraph: derive a deterministic, rebuildable context graph from a Markdown backlog
//! (work items and ADRs with YAML frontmatter) and answer questions from it.
//!
//! The pipeline, one folder of `src/` per stage, layers pointing one way:
//!
//! ```text
//! model, text        the JSONL contract (nodes, edges, diagnostics, section rows);
//!                    tokenizing, token counts, rendering, paths, id mentions
//!   → config         mdgraph.toml, validated into a typed Config
//!   → store          the index folder: sidecar, stat cache, lock, postings, SQLite mirror
//!   → ingest         scan → parse → resolve → build: Markdown in, graph out
//!   | query          search (BM25 seeds) → expand → re-rank → pack; show, neighbors, eval
//!   → check, api     freshness and errors for hooks; the Index front door
//!   → site           the static HTML view of the index (feature `site`)
//!   → binary         src/main.rs + src/cmd/: the command line
//! ```
//!
//! Ingest and query never import each other. See ARCHITECTURE.md for the walk through.
//!
//! Library users start from [`Index`]: load a [`Config`], open the index (it is built
//! or refreshed as needed), and ask it questions. The JSONL records are in [`model`].
//!
//! ```
//! use mdgraph::{Config, Index, Overrides};
//! # fn main() -> Result<(), mdgraph::Error> {
//! # let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
//! # let tmp = tempfile::tempdir().map_err(|e| mdgraph::Error::io("tmp", e))?;
//! // As `mdgraph --root backlog-fixtures --index-dir <tmp>/_index` would, from the repo root.
//! let config = Config::load(repo, &Overrides {
//!     root: Some("backlog-fixtures".into()),
//!     index_dir: Some(tmp.path().join("_index")),
//!     ..Overrides::default()
//! })?;
//! let index = Index::open(config)?;
//! for hit in index.search("photo upload resume")?.results.iter().take(3) {
//!     println!("{:<14} {:.3}  {}  [{}]", hit.id, hit.score, hit.title, hit.why.line());
//! }
//! let pack = index.pack("what is blocking the PDF export", 1000)?;
//! println!("{}", pack.markdown); // Markdown for a prompt, within 1000 tokens
//! # assert!(pack.used <= 1000);
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod api;
mod check;
mod config;
mod error;
mod ingest;
mod init;
pub mod model;
mod progress;
mod query;
#[cfg(feature = "site")]
mod site;
mod store;
mod text;
mod timing;

pub use api::{Index, PACK_CANDIDATES, SearchOptions};
pub use check::baseline::{Baseline, Entry as BaselineEntry, Split as BaselineSplit};
pub use check::hook::{Installed as HooksInstalled, Outcome as HookOutcome, install as install_hook};
pub use check::merge::{Merged, merge as merge_index_file, run_driver as run_merge_driver};
pub use check::{BaselineReport, CheckOptions, CheckReport};
pub use config::{BASELINE_FILE, CONFIG_FILE, CheckSettings, Config, Level, Overrides};
// The types of `Config`'s fields, so a library user can name what it reads.
pub use check::staged::staged_config_of;
/// The one walk of a backlog root (which folders hold the backlog), for front ends that
/// watch the same folders the scan reads.
pub use config::walk;
pub use config::{
    FieldSettings, FieldWeights, GraphSettings, IdSettings, KindSettings, PathKind, PathKinds, Retrieval, ScanSettings,
    Settings, StateGroups, Weights,
};
pub use error::{Error, Result};
pub use ingest::report::BuildReport;
pub use init::{Written as Initialized, init};
pub use progress::{Progress, Sink as ProgressSink};
pub use query::backlog::{
    Filter as ListFilter, Group as StateGroup, Hold, Item as ListItem, ListReport, Ready, ReadyReport, Rollup,
    TreeNode, TreeReport,
};
pub use query::bound::{Bounded, Bounds, fit as fit_bounds};
pub use query::eval::{Options as EvalOptions, Query as EvalQuery, Report as EvalReport, parse_queries};
pub use query::neighbors::Hood as Neighborhood;
pub use query::pack::MAX_BUDGET as MAX_PACK_BUDGET;
pub use query::pack::{Mode as PackMode, Pack, PackItem};
pub use query::search::{Hit, Results as SearchResults, Why};
pub use query::show::Shown;
#[cfg(feature = "site")]
pub use site::{SITE_SCHEMA, SiteReport, build as build_site};
pub use store::sidecar::MetaCounts;
pub use store::sidecar::meta_damaged as index_meta_damaged;
/// The stat cache's racy window, which the test suite shortens (the binary reads
/// `MDGRAPH_TEST_RACY_MS`). Not part of the API.
#[doc(hidden)]
pub use store::statcache::{racy_ns, set_racy_window_ms};
pub use text::path::shown_from;
pub use text::tokens::Tokenizer;
pub use timing::{Timings, record_memory};

/// Internals for mdgraph's fuzz targets, its floors bench and the integration tests that
/// check internals. Not part of the API: anything in it may change in any release.
#[doc(hidden)]
pub mod internal;
