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

use crate::check::{self, BaselineReport, CheckOptions, CheckReport};
use crate::config::Config;
use crate::error::Error;
use crate::ingest::build::{self, BuildReport};
use crate::model::{Edge, EdgeType, Node};
use crate::progress::Progress;
use crate::query::backlog::{self, Backlog, Filter as ListFilter, Hold, ListReport, ReadyReport, TreeReport};
use crate::query::eval;
use crate::query::neighbors::{self, Hood};
use crate::query::pack::{self, Pack};
use crate::query::search::{self, Engine, EngineKind, Results};
use crate::query::show::{self, Shown};
use crate::store::sidecar::{self, Loaded};
use crate::store::{files, mirror, statcache};
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
    /// Bring the index up to date (build it when missing; re-parse only what changed;
    /// a stat-only probe when nothing did) and open it.
    pub fn open(config: Config) -> Result<Index, Error> {
        Index::open_with(config, None).map(|(index, _)| index)
    }

    /// Like [`Index::open`], drawing `progress` while it builds; also returns the build
    /// report when something was rebuilt.
    pub fn open_with(config: Config, progress: Option<&Progress>) -> Result<(Index, Option<BuildReport>), Error> {
        let report = Index::refresh(&config, progress)?;
        Ok((Index::new(config), report))
    }

    /// Open the index as it is, without looking at the sources (`--no-refresh`). The
    /// SQLite mirror is still brought in line with the JSONL files.
    pub fn open_as_is(config: Config) -> Result<Index, Error> {
        // A commit a killed run left half done is finished first (never a mix of builds).
        crate::store::lock::finish_pending(&config.index_dir)?;
        if !config.index_dir.join(files::META).is_file() {
            return Err(no_index(&config));
        }
        let index = Index::new(config);
        if index.config.sqlite
            && let Err(e) = mirror::sync(&index.config.index_dir, &mirror_spec(&index.config))
        {
            index.warn(format!("cannot update the SQLite mirror: {e}"));
        }
        Ok(index)
    }

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

    /// Search and pack from the whole index loaded into memory (read once from the JSONL
    /// files, on the first query) instead of through the SQLite mirror, which stays as the
    /// configuration says. For a long-lived process: at 10k items the first query pays
    /// ≈0.3 s to load, then a search takes a third of the mirror's time (BENCHMARKS.md,
    /// the MCP server).
    pub fn in_memory(mut self) -> Index {
        self.in_memory = true;
        self
    }

    /// Whether this index searches in memory ([`Index::in_memory`]).
    pub fn is_in_memory(&self) -> bool {
        self.in_memory
    }

    /// Load now what the first query would (the search engine and the graph), so that
    /// it costs nothing later: for a server that opens an index off its callers' path.
    pub fn warm(&self) -> Result<(), Error> {
        self.with_engine(|_| Ok(()))?;
        self.graph().map(|_| ())
    }

    /// Take in the change of an edit that the short cut of `mdgraph index` made
    /// (`report`), when this index is held in memory and loaded, and is the index the
    /// edit was applied to: its graph and search engine are changed in place, as they
    /// would be loaded from the new index, instead of loaded again. Returns false, having
    /// changed nothing, when it cannot: the index must then be opened again.
    pub fn apply_edits(&mut self, report: &BuildReport) -> bool {
        let Some(edits) = &report.edits else {
            return false;
        };
        let Some(graph) = self.graph.get_mut() else {
            return false;
        };
        if !self.in_memory || mirror::sidecar_digest(&graph.meta.outputs) != edits.from {
            return false;
        }
        // Every edited document is one the graph holds (same id, same path). Its nodes
        // are replaced in place when the edit brings the same ones; when its sections
        // changed (the engine moves its rows), they are removed and the new ones inserted.
        let mut slots = Vec::new();
        let mut same_nodes = true;
        for edit in &edits.docs {
            let Some(doc) = edit.nodes.iter().find(|n| !n.is_chunk()) else {
                return false;
            };
            match graph.nodes.binary_search_by(|x| x.id.cmp(&doc.id)) {
                Ok(i) if graph.nodes[i].path == doc.path => {}
                _ => return false,
            }
            let (from, to) = (format!("{}#", doc.id), format!("{}$", doc.id));
            let lo = graph.nodes.partition_point(|x| x.id < from);
            let hi = graph.nodes.partition_point(|x| x.id < to);
            let held = graph.nodes[lo..hi]
                .iter()
                .filter(|x| x.doc.as_deref() == Some(doc.id.as_str()) && x.path == doc.path)
                .count();
            same_nodes &= held == edit.nodes.iter().filter(|n| n.is_chunk()).count();
        }
        for n in edits.docs.iter().flat_map(|e| &e.nodes) {
            match graph.nodes.binary_search_by(|x| x.id.cmp(&n.id)) {
                Ok(i) if graph.nodes[i].path == n.path => slots.push((i, n)),
                Ok(_) => return false,
                Err(_) => same_nodes = false,
            }
        }
        // The new edge list: each document's edges are those its file wrote, from it or
        // its sections; the others' stay. Read as a merge (the graph is changed only once
        // the engine took the edit, and never copied).
        let mut owners: Vec<(&str, String, &str)> = Vec::new();
        for edit in &edits.docs {
            let Some(doc) = edit.nodes.iter().find(|n| !n.is_chunk()) else {
                return false;
            };
            owners.push((doc.id.as_str(), format!("{}#", doc.id), doc.path.as_str()));
        }
        let own = |e: &Edge| {
            owners
                .iter()
                .any(|(id, prefix, path)| e.path == *path && (e.source == *id || e.source.starts_with(prefix.as_str())))
        };
        let mut added: Vec<Edge> = edits.docs.iter().flat_map(|e| e.edges.iter().cloned()).collect();
        added.sort_by(|x, y| edge_key(x).cmp(&edge_key(y)));
        let kept = graph.edges.iter().filter(|e| !own(e));
        let mut merged = Merge {
            a: kept.peekable(),
            b: added.iter().peekable(),
        };
        // The engine first: it changes nothing when it cannot take the edit. One not
        // loaded yet loads the new index when first asked.
        let engine = self.engine.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = engine.as_mut()
            && !e.apply_edits(&edits.docs, &mut merged)
        {
            return false;
        }
        if same_nodes {
            for (i, n) in slots {
                graph.nodes[i] = n.clone();
            }
        } else {
            let theirs = |n: &Node| {
                owners
                    .iter()
                    .any(|(id, _, path)| n.path == *path && (n.id == *id || n.doc.as_deref() == Some(*id)))
            };
            graph.nodes.retain(|n| !theirs(n));
            for n in edits.docs.iter().flat_map(|e| &e.nodes) {
                let at = graph.nodes.partition_point(|x| x.id < n.id);
                graph.nodes.insert(at, n.clone());
            }
        }
        graph.edges.retain(|e| !own(e));
        for e in added {
            let at = graph.edges.partition_point(|x| edge_key(x) < edge_key(&e));
            graph.edges.insert(at, e);
        }
        graph.meta = report.meta.clone();
        graph.diagnostics = report.diagnostics.clone();
        // Read from the mirror or the graph when next asked.
        self.docs.take();
        self.docs_with_fields.take();
        true
    }

    /// Make the index and its mirror current. Returns the build report when something
    /// was rebuilt, `None` when the index was already up to date.
    pub fn refresh(config: &Config, progress: Option<&Progress>) -> Result<Option<BuildReport>, Error> {
        crate::store::lock::finish_pending(&config.index_dir)?;
        if let Some(sidecar) = statcache::probe(&config.index_dir, &config.root, &config.settings.digest())
            && (!config.sqlite || mirror::mirrors(&config.index_dir, &sidecar, &mirror_spec(config)))
        {
            return Ok(None);
        }
        Index::build(config, false, progress).map(Some)
    }

    /// Build the index (incrementally unless `full`) and its SQLite mirror, as
    /// `mdgraph index` does.
    pub fn build(config: &Config, full: bool, progress: Option<&Progress>) -> Result<BuildReport, Error> {
        build::build_index(config, full, &mirror_spec(config), progress)
    }

    /// Is the index fresh and the graph free of errors (and warnings, when `strict`)?
    /// The same answer as `mdgraph check` (`--strict` when `strict`), with the baseline
    /// file when there is one.
    pub fn check(config: &Config, strict: bool) -> Result<CheckReport, Error> {
        check::check(
            config,
            CheckOptions {
                strict,
                ..CheckOptions::default()
            },
        )
    }

    /// [`Index::check`] with every option (`mdgraph check --no-baseline`, `--staged`).
    pub fn check_with(config: &Config, opts: CheckOptions) -> Result<CheckReport, Error> {
        check::check(config, opts)
    }

    /// Record the current diagnostics in the baseline file ([`Config::baseline`]), as
    /// `mdgraph baseline` does; with `prune`, only drop from the existing baseline what
    /// has been fixed. The index is not touched.
    pub fn baseline(config: &Config, prune: bool) -> Result<BaselineReport, Error> {
        check::record(config, prune)
    }

    /// [`Index::check`] of what is staged in git (the backlog, config and index in git's
    /// index, never the working tree), as the pre-commit hook runs it.
    pub fn check_staged(config: &Config, strict: bool) -> Result<CheckReport, Error> {
        check::check(
            config,
            CheckOptions {
                strict,
                staged: true,
                ..CheckOptions::default()
            },
        )
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Ranked documents for a plain-text query: 10 results, graph expansion as
    /// configured.
    pub fn search(&self, query: &str) -> Result<Results, Error> {
        self.search_with(query, SearchOptions::default())
    }

    /// Ranked documents for a query, with options.
    pub fn search_with(&self, query: &str, opts: SearchOptions) -> Result<Results, Error> {
        let graph = self.config.retrieval.graph.enabled && opts.graph;
        self.with_engine(|e| search::search(e, query, &self.config.retrieval, opts.limit, graph))
    }

    /// A context pack for `query` within `budget` tokens (the best
    /// [`PACK_CANDIDATES`] results considered).
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
    /// let index = Index::open(config)?;
    /// let pack = index.pack("resumable photo upload", 1500)?;
    /// for item in &pack.items {
    ///     // Each item says how much of it is included and why it is there.
    ///     println!("{} {:?} {} tokens: {}", item.id, item.mode, item.tokens, item.why.line());
    /// }
    /// assert!(pack.used <= 1500 && !pack.items.is_empty());
    /// # Ok(())
    /// # }
    /// ```
    pub fn pack(&self, query: &str, budget: u32) -> Result<Pack, Error> {
        let opts = SearchOptions {
            limit: PACK_CANDIDATES,
            graph: true,
        };
        self.pack_with(query, budget, opts)
    }

    /// A context pack with options (`opts.limit` is the number of candidates).
    pub fn pack_with(&self, query: &str, budget: u32, opts: SearchOptions) -> Result<Pack, Error> {
        self.pack_cliff(query, budget, opts, self.config.pack_cliff)
    }

    /// [`Index::pack_with`] with the relevance cliff given (0: fill the budget with every
    /// candidate, as `mdgraph pack --fill`).
    pub fn pack_cliff(&self, query: &str, budget: u32, opts: SearchOptions, cliff: f64) -> Result<Pack, Error> {
        let graph = self.config.retrieval.graph.enabled && opts.graph;
        let tokenizer = self.config.settings.tokenizer;
        // The pack counts what it prints; the counter loads while the search runs.
        crate::text::tokens::preload(tokenizer);
        self.with_engine(|e| {
            let results = search::search(e, query, &self.config.retrieval, opts.limit, graph)?;
            Ok(pack::pack(e, query, &results.results, budget, tokenizer, cliff))
        })
    }

    /// One node (by node id, raw id in any case, `ID@uidprefix`, or root-relative
    /// path) with its sections and edges. [`Error::NotFound`] when nothing matches.
    pub fn node(&self, id: &str) -> Result<Shown, Error> {
        show::show(self.graph()?, id, &self.config.settings.ids.prefix_aliases)
    }

    /// The neighborhood of a node up to `depth` hops over `edges` (all document edge
    /// types when empty).
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
    /// use mdgraph::model::EdgeType;
    /// let index = Index::open(config)?;
    /// let hood = index.neighbors("QRY-FTR-0004", 1, &[EdgeType::Parent])?;
    /// // The feature, its epic, and the story and task below it.
    /// let ids: Vec<&str> = hood.nodes.iter().map(|n| n.id.as_str()).collect();
    /// assert_eq!(ids, ["QRY-FTR-0004", "QRY-EPIC-0002", "QRY-TSK-0008", "QRY-USR-0004"]);
    /// println!("{}", hood.to_mermaid());
    /// # Ok(())
    /// # }
    /// ```
    pub fn neighbors(&self, id: &str, depth: usize, edges: &[EdgeType]) -> Result<Hood, Error> {
        self.with_engine(|e| {
            // Ids resolve through the engine; only a path needs the whole graph.
            let root = match e.node(id).map(|n| n.id).or_else(|| e.exact_id(id)) {
                Some(root) => root,
                None => show::find(&self.graph()?.nodes, id, &self.config.settings.ids.prefix_aliases)?
                    .id
                    .clone(),
            };
            Ok(neighbors::neighborhood(e, &root, depth, edges))
        })
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

    /// The documents and their parent and blocking edges, for the backlog questions: the
    /// whole graph when it is loaded already, else only those records (read once, kept):
    /// from the SQLite mirror when it is current, the documents' columns only unless
    /// `fields` asks for their frontmatter too; else from the JSONL files.
    fn backlog_graph(&self, fields: bool) -> Result<Backlog<'_>, Error> {
        let states = &self.config.states;
        if let Some(g) = self.graph.get() {
            return Ok(Backlog::new(&g.nodes, &g.edges, states));
        }
        let docs: &mirror::Docs = match (self.docs_with_fields.get(), self.docs.get()) {
            (Some(d), _) => d,
            (None, Some(d)) if !fields => d,
            _ => {
                const TYPES: [EdgeType; 4] = mirror::BACKLOG_TYPES;
                let dir = &self.config.index_dir;
                let loaded = self
                    .config
                    .sqlite
                    .then(|| mirror::load_docs(dir, &TYPES, &mirror_spec(&self.config), fields))
                    .flatten()
                    .or_else(|| {
                        sidecar::load_docs(dir, |t| TYPES.iter().any(|x| x.as_str() == t)).map(|(nodes, edges)| {
                            mirror::Docs {
                                nodes,
                                links: edges.iter().map(mirror::Link::from).collect(),
                                priorities: None,
                            }
                        })
                    })
                    .ok_or_else(|| no_index(&self.config))?;
                let slot = if loaded.priorities.is_none() {
                    &self.docs_with_fields
                } else {
                    &self.docs
                };
                slot.get_or_init(|| loaded)
            }
        };
        Ok(Backlog::of_docs(docs, states))
    }

    /// The documents for resolving an id typed by a person (no frontmatter needed).
    fn backlog_nodes(&self) -> Result<&[Node], Error> {
        self.backlog_graph(false)?;
        Ok(match (self.graph.get(), self.docs_with_fields.get(), self.docs.get()) {
            (Some(g), _, _) => &g.nodes,
            (None, Some(d), _) | (None, None, Some(d)) => &d.nodes,
            (None, None, None) => return Err(no_index(&self.config)),
        })
    }

    /// Warnings collected so far (the SQLite mirror was unusable and the JSONL files
    /// answered, or it was rebuilt), oldest first; the list is emptied.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.warnings))
    }

    /// The mirror for the backlog questions' fast paths, which read only the rows they
    /// answer with: None without one, or when the whole graph is loaded already.
    fn fast_mirror(&self) -> Option<(&std::path::Path, mirror::Spec<'_>)> {
        (self.config.sqlite && self.graph.get().is_none())
            .then(|| (self.config.index_dir.as_path(), mirror_spec(&self.config)))
    }

    /// The documents matching `filter` (`mdgraph list`).
    pub fn list(&self, filter: &ListFilter) -> Result<ListReport, Error> {
        // The mirror's backlog table answers unless a frontmatter field is asked for.
        let fast = self.fast_mirror().and_then(|(dir, spec)| {
            let rows = mirror::load_list(dir, &spec, &backlog::list_query(filter)?)?;
            Some(backlog::list_from_rows(rows, filter))
        });
        let items = match fast {
            Some(items) => items,
            None => self.backlog_graph(Backlog::needs_fields(filter))?.list(filter),
        };
        // Nothing matched: a type or state nobody has is a usage error, not "none".
        if items.is_empty() && (!filter.types.is_empty() || !filter.states.is_empty()) {
            let all = self.list(&ListFilter::default())?.items;
            if let Some(message) = backlog::unknown_values(filter, &all) {
                return Err(Error::Usage(message));
            }
        }
        Ok(ListReport {
            schema: backlog::LIST_SCHEMA,
            count: items.len(),
            items,
        })
    }

    /// The id of the document `typed` names (any form `show` accepts), without loading
    /// the sections.
    pub fn resolve_id(&self, typed: &str) -> Result<String, Error> {
        // A document's exact id names it (as `show::find` says first), without loading
        // the documents.
        if let Some((dir, spec)) = self.fast_mirror()
            && mirror::is_document(dir, &spec, typed)
        {
            return Ok(typed.to_string());
        }
        let n = self.backlog_nodes()?;
        Ok(show::find(n, typed, &self.config.settings.ids.prefix_aliases)?
            .id
            .clone())
    }

    /// Work that can start now (`mdgraph ready`).
    pub fn ready(&self) -> Result<ReadyReport, Error> {
        // The answer is in the mirror's backlog table, made when the mirror was.
        let fast = self.fast_mirror().and_then(|(dir, spec)| {
            let (rows, cycles) = mirror::load_ready(dir, &spec)?;
            Some(backlog::ready_from_rows(rows, cycles))
        });
        match fast {
            Some(report) => Ok(report),
            None => Ok(self.backlog_graph(false)?.ready()),
        }
    }

    /// What keeps `id` from starting (empty when it can), and the node's id.
    pub fn holds(&self, id: &str) -> Result<(String, Vec<Hold>), Error> {
        let node = show::find(self.backlog_nodes()?, id, &self.config.settings.ids.prefix_aliases)?;
        Ok((node.id.clone(), self.backlog_graph(false)?.holds(&node.id)))
    }

    /// `id` with its descendants along parent edges and their roll-up (`mdgraph tree`).
    pub fn tree(&self, id: &str) -> Result<TreeReport, Error> {
        // An exact id: only its subtree is read from the mirror, and the same code walks it.
        if let Some((dir, spec)) = self.fast_mirror()
            && let Some(docs) = mirror::load_subtree(dir, &spec, id)
        {
            let links = docs
                .links
                .iter()
                .map(|l| (l.source.as_str(), l.target.as_str(), l.r#type));
            let b = Backlog::with_priorities(&docs.nodes, docs.priorities.as_deref(), links, &self.config.states);
            if let Some(root) = b.tree(id) {
                return Ok(TreeReport {
                    schema: backlog::TREE_SCHEMA,
                    root,
                });
            }
        }
        let node = show::find(self.backlog_nodes()?, id, &self.config.settings.ids.prefix_aliases)?;
        let root = self
            .backlog_graph(false)?
            .tree(&node.id)
            .ok_or_else(|| Error::NotFound {
                query: id.to_string(),
                close: Vec::new(),
            })?;
        Ok(TreeReport {
            schema: backlog::TREE_SCHEMA,
            root,
        })
    }

    /// True when `config`'s index folder holds an index (it may be stale).
    pub fn exists(config: &Config) -> bool {
        config.index_dir.join(files::META).is_file()
    }

    /// The digest of the index on disk: of its sidecar files, as `meta.json` records
    /// them (the digest the SQLite mirror and the stat cache record). None when there is
    /// no index or `meta.json` cannot be read. A watcher vouches for an index by it.
    pub fn digest(config: &Config) -> Option<String> {
        sidecar::read_meta_head(&config.index_dir).map(|h| mirror::sidecar_digest(&h.outputs))
    }

    /// Finish a commit that a killed run left half done, so nothing reads a mix of two
    /// builds. Every other entry point does this itself; front ends call it once early.
    pub fn recover(config: &Config) -> Result<(), Error> {
        crate::store::lock::finish_pending(&config.index_dir)
    }

    /// Evaluate retrieval on labeled queries (`name` is the file they came from, for
    /// messages), as `mdgraph eval` does.
    pub fn evaluate(&self, name: &str, queries: &[eval::Query], opts: &eval::Options) -> Result<eval::Report, Error> {
        let cfg = &self.config;
        // Only the nodes, and only while the keys are made.
        let loaded = sidecar::load_parts(&cfg.index_dir, false).ok_or_else(|| no_index(cfg))?;
        let keys = eval::Keys::new(&loaded.nodes);
        drop(loaded);
        self.with_engine(|e| eval::evaluate(e, &cfg.retrieval, &keys, name, queries, opts))
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
    mirror::Spec {
        fts: config.sqlite_fts,
        states: &config.states,
        backlog: backlog::materialize,
        backlog_docs: backlog::materialize_docs,
    }
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

/// The order of the sidecar's edges.
fn edge_key(e: &Edge) -> (&str, EdgeType, &str, u32) {
    (e.source.as_str(), e.r#type, e.target.as_str(), e.line)
}

/// Two edge lists in sidecar order, read as one.
struct Merge<'a, A: Iterator<Item = &'a Edge>, B: Iterator<Item = &'a Edge>> {
    a: std::iter::Peekable<A>,
    b: std::iter::Peekable<B>,
}

impl<'a, A: Iterator<Item = &'a Edge>, B: Iterator<Item = &'a Edge>> Iterator for Merge<'a, A, B> {
    type Item = &'a Edge;

    fn next(&mut self) -> Option<&'a Edge> {
        match (self.a.peek(), self.b.peek()) {
            (Some(x), Some(y)) if edge_key(y) < edge_key(x) => self.b.next(),
            (Some(_), _) => self.a.next(),
            (None, _) => self.b.next(),
        }
    }
}

#[cfg(test)]
mod merge_tests {
    use super::*;

    /// Two sorted edge lists read as one sorted list, whichever runs out first.
    #[test]
    fn merge_reads_two_sorted_lists_as_one() {
        let edge = |s: &str, t: &str| Edge {
            source: s.into(),
            target: t.into(),
            r#type: EdgeType::Relates,
            origin: crate::model::Origin::Body,
            path: "p.md".into(),
            line: 1,
            weight: 0.7,
        };
        let a = [edge("B", "X"), edge("D", "X")];
        let b = [edge("A", "X"), edge("C", "X"), edge("E", "X"), edge("F", "X")];
        for (a, b) in [(&a[..], &b[..]), (&b[..], &a[..]), (&a[..0], &b[..]), (&a[..], &b[..0])] {
            let merged: Vec<&str> = Merge {
                a: a.iter().peekable(),
                b: b.iter().peekable(),
            }
            .map(|e| e.source.as_str())
            .collect();
            let mut want: Vec<&str> = a.iter().chain(b).map(|e| e.source.as_str()).collect();
            want.sort();
            assert_eq!(merged, want);
        }
    }
}
