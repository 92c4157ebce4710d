//! The library facade: [`Index`] opens the index a [`Config`] describes (building or
//! refreshing it first) and answers the questions the CLI answers: search, pack, one
//! node, a neighborhood, the whole graph. The CLI's query commands go through it too.
//!
//! ```
//! use mdgraph::{Config, Index, Overrides};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // The sample backlog of this repository, indexed into a temporary folder.
//! let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
//! let tmp = tempfile::tempdir()?;
//! let config = Config::load(repo, &Overrides {
//!     root: Some(repo.join("backlog-fixtures")),
//!     index_dir: Some(tmp.path().join("_index")),
//!     ..Overrides::default()
//! })?;
//! let index = Index::open(config)?; // builds the missing index
//!
//! let results = index.search("why did we stop using last-write-wins for checklist sync")?;
//! assert_eq!(results.results[0].id, "ADR-0006");
//!
//! let pack = index.pack("what is blocking the PDF export", 2000)?;
//! assert!(pack.used <= 2000);
//! assert!(pack.markdown.starts_with("# Context pack: what is blocking the PDF export"));
//!
//! let adr = index.node("adr-0006")?; // any case, `ID@uidprefix`, or a path
//! assert_eq!(adr.node.state.as_deref(), Some("Accepted"));
//! # Ok(())
//! # }
//! ```
//!
//! [`Index`] and what it keeps (the search engine and the graph, loaded on first use) are
//! here; its methods are split by job: opening and refreshing the index (`open.rs`),
//! the search questions (`queries.rs`), the backlog questions (`backlog.rs`), and taking
//! in an edit in place (`edits.rs`).

mod backlog;
mod edits;
mod open;
mod queries;
mod work;

use crate::config::Config;
use crate::error::Error;
use crate::query::search::{self, Engine, EngineKind};
use crate::store::mirror;
use crate::store::sidecar::{self, Loaded};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// How a query is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchOptions {
    /// Most results (for a pack: most candidates considered, best first).
    pub limit: usize,
    /// Expand the seeds along the graph and re-rank (when `retrieval.graph.enabled`);
    /// false gives the plain full-text ranking.
    pub graph: bool,
}

impl Default for SearchOptions {
    /// 10 results, graph expansion on.
    fn default() -> Self {
        SearchOptions { limit: 10, graph: true }
    }
}

/// Candidates a pack considers by default.
pub const PACK_CANDIDATES: usize = 30;

/// An opened index: the configuration, the search engine (the SQLite mirror, or the
/// in-memory fallback over the JSONL files), and the graph once it is asked for.
pub struct Index {
    config: Config,
    engine: Mutex<Option<Box<dyn Engine + Send>>>,
    graph: OnceLock<Loaded>,
    /// Documents (without their frontmatter) and their parent and blocking edges only
    /// (see `backlog_graph`).
    docs: OnceLock<mirror::Docs>,
    /// The same with the documents' frontmatter (`list --where`, a sort on a field).
    docs_with_fields: OnceLock<mirror::Docs>,
    warnings: Mutex<Vec<String>>,
    /// Search the index held in memory, not through the SQLite mirror ([`Index::in_memory`]).
    in_memory: bool,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Index {
    fn new(config: Config) -> Index {
        Index {
            config,
            engine: Mutex::new(None),
            graph: OnceLock::new(),
            docs: OnceLock::new(),
            docs_with_fields: OnceLock::new(),
            warnings: Mutex::new(Vec::new()),
            in_memory: false,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The whole graph as written to the index folder: nodes (documents and their
    /// sections, sorted by id), edges and diagnostics. Read once, then kept.
    ///
    /// ```
    /// # use mdgraph::{Config, Index, Overrides};
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    /// # let tmp = tempfile::tempdir()?;
    /// # let config = Config::load(repo, &Overrides {
    /// #     root: Some(repo.join("backlog-fixtures")),
    /// #     index_dir: Some(tmp.path().join("_index")),
    /// #     ..Overrides::default()
    /// # })?;
    /// use mdgraph::model::{EdgeType, Kind};
    /// let index = Index::open(config)?;
    /// let graph = index.graph()?;
    /// let adrs = graph.nodes.iter().filter(|n| n.kind == Kind::Adr).count();
    /// let blockers = graph.edges.iter().filter(|e| e.r#type == EdgeType::Blocks).count();
    /// assert_eq!(adrs, 8);
    /// assert!(blockers > 0 && graph.diagnostics.is_empty());
    /// # Ok(())
    /// # }
    /// ```
    pub fn graph(&self) -> Result<&Loaded, Error> {
        if let Some(g) = self.graph.get() {
            return Ok(g);
        }
        let loaded = sidecar::load(&self.config.index_dir).ok_or_else(|| no_index(&self.config))?;
        Ok(self.graph.get_or_init(|| loaded))
    }

    /// Warnings collected so far (the SQLite mirror was unusable and the JSONL files
    /// answered, or it was rebuilt), oldest first; the list is emptied.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.warnings))
    }

    fn warn(&self, w: impl Into<String>) {
        lock(&self.warnings).push(w.into());
    }

    /// Run `f` against the search engine (for questions of your own, as
    /// [`Index::evaluate`] asks its own), opened on first use. A mirror that fails during the
    /// query (corrupt pages) is rebuilt from the JSONL files once and `f` retried; if
    /// that fails too, the in-memory engine answers.
    pub fn with_engine<T>(&self, f: impl Fn(&dyn Engine) -> Result<T, Error>) -> Result<T, Error> {
        let mut slot = lock(&self.engine);
        let engine = match slot.take() {
            Some(e) => e,
            None => self.open_engine()?,
        };
        match f(engine.as_ref()) {
            Ok(r) => {
                *slot = Some(engine);
                Ok(r)
            }
            // Only a failing mirror is rebuilt; other errors (an unknown id) are the answer.
            Err(err @ Error::Store(_)) if engine.kind() == EngineKind::Sqlite => {
                drop(engine);
                let _ = std::fs::remove_file(mirror::db_path(&self.config.index_dir));
                let note = match mirror::sync(&self.config.index_dir, &mirror_spec(&self.config)) {
                    Ok(_) => format!("rebuilt the SQLite mirror after: {err}"),
                    Err(e2) => format!("SQLite mirror unusable ({err}; rebuild failed: {e2})"),
                };
                let engine = self.open_engine_quietly(note)?;
                let r = f(engine.as_ref());
                *slot = Some(engine);
                r
            }
            Err(err) => {
                *slot = Some(engine);
                Err(err)
            }
        }
    }

    fn open_engine(&self) -> Result<Box<dyn Engine + Send>, Error> {
        if self.in_memory {
            return Ok(Box::new(search::memory_engine(&self.config.index_dir)?));
        }
        let (engine, warning) = search::open_engine(&self.config)?;
        if let Some(w) = warning {
            self.warn(w);
        }
        Ok(engine)
    }

    /// Reopen after a rebuild: one warning, the engine's own or `note`.
    fn open_engine_quietly(&self, note: String) -> Result<Box<dyn Engine + Send>, Error> {
        let (engine, warning) = search::open_engine(&self.config)?;
        self.warn(warning.unwrap_or(note));
        Ok(engine)
    }
}

/// The SQLite mirror as `config` asks for it: with the FTS5 table or not, and the
/// backlog table under its state groups, made by the backlog questions' own code.
pub fn mirror_spec(config: &Config) -> mirror::Spec<'_> {
    crate::query::backlog::mirror_spec(config)
}

/// The error for an index that cannot be read, saying how to get one.
pub(crate) fn no_index(cfg: &Config) -> Error {
    Error::Other(format!(
        "cannot read the index at {}; run `mdgraph index`",
        cfg.display(&cfg.index_dir)
    ))
}

fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
