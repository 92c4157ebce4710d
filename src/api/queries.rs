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

    /// For a question about the work left that names nothing to search for ("what
    /// remains to be done?"), the items under way and those `ready` offers; `None` for
    /// any other question, or when no work is left (the search answers then).
    fn work_left(&self, query: &str, limit: usize) -> Result<Option<Results>, Error> {
        use crate::model::backlog::Group;
        use crate::query::intent::{Intent, WorkAsked};
        let Some(asked) = Intent::asks_open_work(query) else {
            return Ok(None);
        };
        let ready = self.ready()?;
        let filter = |states: &[&str]| crate::query::backlog::Filter {
            states: states.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let in_progress = self.list(&filter(&["in_progress"]))?.items;
        // Each item once: `ready` offers work under way too.
        let mut seen: std::collections::HashSet<&str> = in_progress.iter().map(|i| i.id.as_str()).collect();
        let can_start: Vec<_> = ready
            .items
            .iter()
            .map(|r| &r.item)
            .filter(|i| seen.insert(i.id.as_str()))
            .collect();
        let mut listed = vec![
            ("in progress", in_progress.iter().collect::<Vec<_>>()),
            ("ready", can_start),
        ];
        // Unfinished work beyond those: items with a type and a state (a document
        // without a state lists as open, and a decision record has no type).
        let rest = match asked {
            WorkAsked::Next => Vec::new(),
            WorkAsked::Left => self.list(&filter(&["open", "blocked"]))?.items,
        };
        // Nor the open boxes of a finished story (`ready` leaves them out too).
        let backlog = self.backlog_graph(false)?;
        let rest: Vec<_> = rest
            .into_iter()
            .filter(|i| i.r#type.is_some() && i.state.is_some() && !backlog.in_finished_document(&i.id))
            .collect();
        let rest: Vec<_> = rest.iter().filter(|i| seen.insert(i.id.as_str())).collect();
        let waiting = rest.iter().copied().filter(|i| i.group != Group::Blocked).collect();
        listed.push(("waiting", waiting));
        listed.push((
            "blocked",
            rest.iter().copied().filter(|i| i.group == Group::Blocked).collect(),
        ));
        let engine = self.with_engine(|e| Ok(e.kind()))?;
        let work = search::work_left(query, engine, &listed, limit);
        Ok((!work.results.is_empty()).then_some(work))
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
        self.with_engine(|e| eval::evaluate(e, &cfg.retrieval, &keys, name, queries, opts))
    }
}
