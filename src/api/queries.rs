//! The search questions: ranked documents, a context pack, one node, a neighborhood,
//! and retrieval measured against labeled queries.

use super::{Index, PACK_CANDIDATES, SearchOptions, no_index};
use crate::error::Error;
use crate::model::EdgeType;
use crate::query::eval;
use crate::query::neighbors::{self, Hood};
use crate::query::pack::{self, Pack};
use crate::query::search::{self, Results};
use crate::query::show::{self, Shown};
use crate::store::sidecar;

impl Index {
    /// Ranked documents for a plain-text query: 10 results, graph expansion as
    /// configured.
    pub fn search(&self, query: &str) -> Result<Results, Error> {
        self.search_with(query, SearchOptions::default())
    }

    /// Ranked documents for a query, with options.
    pub fn search_with(&self, query: &str, opts: SearchOptions) -> Result<Results, Error> {
        if let Some(work) = self.work_left(query, opts.limit)? {
            return Ok(work);
        }
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
        let work = self.work_left(query, opts.limit)?;
        self.with_engine(|e| {
            let results = match &work {
                Some(w) => w.clone(),
                None => search::search(e, query, &self.config.retrieval, opts.limit, graph)?,
            };
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

    /// Evaluate retrieval on labeled queries (`name` is the file they came from, for
    /// messages), as `mdgraph eval` does.
    pub fn evaluate(&self, name: &str, queries: &[eval::Query], opts: &eval::Options) -> Result<eval::Report, Error> {
        let cfg = &self.config;
        // Only the nodes, and only while the keys are made.
        let loaded = sidecar::load_parts(&cfg.index_dir, false).ok_or_else(|| no_index(cfg))?;
        let keys = eval::Keys::new(&loaded.nodes);
        drop(loaded);
        // The questions the backlog answers (the work left, in a scope or not) are
        // measured by that answer, as `search` and `pack` give it.
        let limit = eval::depth(opts);
        let given = queries
            .iter()
            .map(|q| self.work_left(&q.query, limit))
            .collect::<Result<Vec<_>, Error>>()?;
        self.with_engine(|e| eval::evaluate(e, &cfg.retrieval, &keys, name, queries, &given, opts))
    }
}
