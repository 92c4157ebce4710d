//! `mdgraph mcp`: a Model Context Protocol server on stdin/stdout (rmcp, the official
//! Rust SDK), exposing `search`, `pack`, `show`, `neighbors`, `list`, `ready` and `tree` as tools. The index is
//! opened once and kept; before each call a watch on the backlog (see [`super::watch`])
//! says whether anything may have changed, and only then the library's refresh runs (the
//! stat probe, then an incremental build when something did change) and the index is
//! reopened. Nothing is written but the index folder; stdout carries only the protocol,
//! messages go to stderr.
//!
//! Tool descriptions and argument schemas are kept short (a client sends them with every
//! conversation), and results are compact JSON with empty fields left out: the JSON is
//! the call's `structuredContent` and, serialized, its text content, except for `pack`,
//! whose text content is the pack's Markdown.

use super::common::{Ctx, Failure, build_summary, open_index};
use super::watch::Watch;
use super::{EXIT_ERROR, EXIT_OK};
use mdgraph::model::EdgeType;
use mdgraph::{Config, Error, Index, SearchOptions};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

/// Serve search, pack, show, neighbors, list, ready and tree to MCP clients (Claude, Cursor, VS Code, …)
/// over stdio. The index is kept in memory and refreshed when the backlog changes.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Serve until the client closes stdin.
pub fn run(ctx: &Ctx, _args: &Args, cfg: Config, err: &mut dyn Write) -> Result<i32, Failure> {
    let budget = cfg.pack_budget;
    // A server answers many questions from one process: the index is searched in memory.
    let index = open_index(ctx, cfg, err, false)?.in_memory();
    let watch = Watch::new(&index.config().root, &index.config().index_dir);
    if ctx.cli.verbose {
        let how = if watch.active() {
            "a watch on the backlog"
        } else {
            "the stat probe before every call"
        };
        writeln!(err, "mdgraph: serving MCP on stdio; freshness: {how}")?;
    }
    let config_stamp = super::index::file_stamp(index.config().config_file.as_deref());
    let server = Server::new(State {
        reload: Box::new({
            let (ov, cwd) = (super::overrides(ctx.cli), ctx.cwd.to_path_buf());
            move || Config::load(&cwd, &ov)
        }),
        config_stamp,
        index,
        watch,
        // The watch starts after the index was opened: the first call probes, so an edit
        // made in between is not missed.
        stale: true,
        budget,
        quiet: ctx.cli.quiet,
        vouched: None,
        seq: 0,
        cookies: 0,
    });
    // Vouch for the index to queries (Linux: the watch can read a cookie's event).
    #[cfg(unix)]
    let _vouching = vouch(ctx, &server, err)?;
    keep_fresh(&server);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Other(format!("cannot start the async runtime: {e}")))?;
    let served: Result<(), String> = runtime.block_on(async {
        let stdin = super::mcp_input::Guarded::new(tokio::io::stdin());
        let service = server.serve((stdin, Stdout)).await.map_err(|e| e.to_string())?;
        service.waiting().await.map(|_| ()).map_err(|e| e.to_string())
    });
    match served {
        Ok(()) => Ok(EXIT_OK),
        Err(e) => {
            writeln!(err, "mdgraph: {} MCP session ended: {e}", ctx.err_paint.error("error:"))?;
            Ok(EXIT_ERROR)
        }
    }
}

/// While the watch on the backlog works, apply edits as they come (looked for every
/// [`KEEP_FRESH`]) rather than at the next call or query: the index on disk, which CLI
/// queries read, stays fresh, and a call or sync after a quiet moment has nothing to do.
fn keep_fresh(server: &Server) {
    let state = Arc::downgrade(&server.state);
    let _ = std::thread::Builder::new()
        .name("mdgraph-mcp-fresh".into())
        .spawn(move || {
            // At start too: the index was just built.
            let mut settle = Some(std::time::Instant::now() + super::index::SETTLE);
            loop {
                std::thread::sleep(KEEP_FRESH);
                let Some(state) = state.upgrade() else { return };
                let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
                if !st.watch.active() {
                    return;
                }
                if st.watch.changed() {
                    st.stale = true;
                    // A failure is the next call's to report (it refreshes again).
                    let _ = st.refresh();
                    settle = Some(std::time::Instant::now() + super::index::SETTLE);
                    continue;
                }
                // Past the stat cache's racy window after a change, one more run records
                // what it could not vouch for, so the next edit takes the short cut.
                if settle.is_some_and(|t| t <= std::time::Instant::now()) {
                    settle = None;
                    // Through `refresh`, so that whatever the run finds is also what the
                    // server answers from.
                    st.stale = true;
                    let _ = st.refresh();
                    continue;
                }
                // Quiet, and serving from the mirror since an edit: load the index into
                // memory without the lock, and swap it in unless the index changed
                // meanwhile.
                if st.index.is_in_memory() || st.stale || st.vouched.is_none() {
                    continue;
                }
                let (cfg, digest, stamp) = (st.index.config().clone(), st.vouched.clone(), st.config_stamp);
                drop(st);
                let Ok(warm) = Index::open_as_is(cfg).map(Index::in_memory) else {
                    continue;
                };
                if warm.warm().is_err() || Index::digest(warm.config()) != digest {
                    continue;
                }
                let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
                let same = !st.stale && st.config_stamp == stamp && st.vouched == digest;
                if same && Index::digest(st.index.config()) == digest {
                    st.index = warm;
                }
            }
        });
}

/// How often the MCP server looks for edits between calls.
const KEEP_FRESH: std::time::Duration = std::time::Duration::from_millis(250);

/// Serve syncs on the index folder's socket while the watch on the backlog works (see
/// [`super::vouch`]); None when it does not, or the socket cannot be served (a warning).
#[cfg(unix)]
fn vouch(ctx: &Ctx, server: &Server, err: &mut dyn Write) -> Result<Option<super::vouch::Server>, Failure> {
    use super::vouch::{self, Answer};
    let st = server.state.lock().unwrap_or_else(|p| p.into_inner());
    if !st.watch.active() {
        return Ok(None);
    }
    let index_dir = st.index.config().index_dir.clone();
    drop(st);
    let run = vouch::new_run();
    let state = server.state.clone();
    let handler: Arc<vouch::Handler> = Arc::new({
        let run = run.clone();
        move |key: &str, answer: &mut dyn FnMut(Answer) -> bool| {
            // Busy (a refresh, or a call): say so at once, so the query waits for the
            // refresh rather than probe and build it again, then wait for the state.
            let mut st = match state.try_lock() {
                Ok(st) => st,
                Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {
                    if !answer(Answer::Building) {
                        return;
                    }
                    state.lock().unwrap_or_else(|p| p.into_inner())
                }
            };
            let last = st.vouch(key, &run, answer);
            answer(last);
        }
    });
    match vouch::Server::start(&index_dir, &run, handler) {
        Ok(s) => {
            if ctx.cli.verbose {
                writeln!(
                    err,
                    "mdgraph: vouching for the index on {} (run {run})",
                    index_dir.join(vouch::SOCKET).display()
                )?;
            }
            Ok(Some(s))
        }
        Err(e) => {
            ctx.warn(err, &format!("not vouching for the index to queries: {e}"))?;
            Ok(None)
        }
    }
}

/// The protocol's output: stdout, written on the runtime's one thread, which is the main
/// thread. `main` holds the (reentrant) stdout lock for the whole run, so tokio's own
/// stdout, which writes from a pool thread, would wait for it forever.
struct Stdout;

impl tokio::io::AsyncWrite for Stdout {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Poll::Ready(std::io::stdout().write(buf))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(std::io::stdout().flush())
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.poll_flush(cx)
    }
}

/// What the server keeps between calls.
struct State {
    /// Loads the configuration again, as at start (the same flags and folder).
    reload: Box<dyn Fn() -> Result<Config, Error> + Send>,
    /// The config file's stamp when it was last loaded.
    config_stamp: Option<(u64, u64, std::time::SystemTime)>,
    index: Index,
    watch: Watch,
    /// The watch saw a change that no refresh has taken in yet.
    stale: bool,
    /// The default pack budget (`pack.budget`).
    budget: u32,
    quiet: bool,
    /// The digest of the index on disk when this server last made it fresh (None: not
    /// since the start or the last config change).
    vouched: Option<String>,
    /// Index states vouched for so far (the tokens' sequence number).
    seq: u64,
    /// Cookies made so far (their names).
    cookies: u64,
}

impl State {
    /// Bring the index up to date when the backlog may have changed.
    fn refresh(&mut self) -> Result<(), Error> {
        // An edited config shapes everything: load it again and start over with it (a
        // config that does not load is the call's error; the next call tries again).
        let now = super::index::file_stamp(self.index.config().config_file.as_deref());
        if now != self.config_stamp {
            let cfg = (self.reload)()?;
            if let Some(report) = Index::refresh(&cfg, None)?
                && !report.up_to_date
                && !self.quiet
            {
                eprintln!("{}", build_summary(&report));
            }
            self.watch = Watch::new(&cfg.root, &cfg.index_dir);
            self.config_stamp = super::index::file_stamp(cfg.config_file.as_deref());
            self.index = Index::open_as_is(cfg)?.in_memory();
            self.stale = false;
            self.note_digest();
            return Ok(());
        }
        self.stale |= self.watch.changed();
        if !self.stale {
            return Ok(());
        }
        let cfg = self.index.config().clone();
        // The watch saw a change: build at once (an edit takes the short cut of
        // `mdgraph index`) rather than stat every file first as `Index::refresh` does.
        // The index is opened again when it is not the one this server last opened (a
        // CLI `index` may have taken the edit in already).
        Index::recover(&cfg)?;
        let report = Index::build(&cfg, false, None)?;
        if !report.up_to_date && !self.quiet {
            eprintln!("{}", build_summary(&report));
        }
        // An edit the short cut took is applied to the index in memory (when this is
        // the index it was made from). Otherwise, with the mirror (which the edit
        // updated in place), the next call reads it at once instead of loading the whole
        // index into memory first (0.3 s at 10k items); `keep_fresh` loads the in-memory
        // index off the callers' path and swaps it in.
        let applied = !report.up_to_date && self.index.apply_edits(&report);
        if !applied && (!report.up_to_date || Index::digest(&cfg) != self.vouched) {
            self.index = match cfg.sqlite {
                true => Index::open_as_is(cfg)?,
                false => Index::open_as_is(cfg)?.in_memory(),
            };
        }
        self.stale = false;
        self.note_digest();
        Ok(())
    }

    /// Record the digest of the index on disk, just made fresh (a new one is a new
    /// sequence number for the tokens).
    fn note_digest(&mut self) {
        let now = Index::digest(self.index.config());
        if now != self.vouched {
            self.seq += 1;
        }
        self.vouched = now;
    }

    /// Answer a query's sync (see [`super::vouch`]): read the watch's events up to a
    /// cookie, make the index fresh when anything changed (or when the index on disk is
    /// not the one this server last made fresh), and give the token; `answer` gets
    /// `building` first when that takes a refresh.
    #[cfg(unix)]
    fn vouch(
        &mut self,
        key: &str,
        run: &str,
        answer: &mut dyn FnMut(super::vouch::Answer) -> bool,
    ) -> super::vouch::Answer {
        use super::vouch::{Answer, COOKIE_PREFIX, Token, config_key};
        self.cookies += 1;
        let cookie = format!("{COOKIE_PREFIX}{run}-{}", self.cookies);
        let index_dir = self.index.config().index_dir.clone();
        let Some(changed) = self.watch.sync(&index_dir, &cookie) else {
            return Answer::No("the watch on the backlog is not working".into());
        };
        self.stale |= changed;
        let config = super::index::file_stamp(self.index.config().config_file.as_deref());
        if self.stale || config != self.config_stamp || Index::digest(self.index.config()) != self.vouched {
            if !answer(Answer::Building) {
                return Answer::No("the client went away".into());
            }
            // Made fresh by the probe, not only by what the watch saw.
            self.stale = true;
            if let Err(e) = self.refresh() {
                self.vouched = None;
                return Answer::No(format!("the index could not be refreshed: {e}"));
            }
        }
        if key != config_key(self.index.config()) {
            return Answer::No("this server serves another root, index folder or configuration".into());
        }
        match &self.vouched {
            Some(digest) => Answer::Token(Token {
                run: run.to_string(),
                seq: self.seq,
                digest: digest.clone(),
            }),
            None => Answer::No("no index to vouch for".into()),
        }
    }
}

#[derive(Clone)]
struct Server {
    state: Arc<Mutex<State>>,
    tool_router: ToolRouter<Server>,
}

// Argument structs: no doc comment on the struct itself, so the schema carries only the
// fields' descriptions.

#[derive(Deserialize, schemars::JsonSchema)]
struct SearchArgs {
    /// Question or keywords.
    query: String,
    /// Most results.
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 100))]
    limit: u32,
}

fn ten() -> u32 {
    10
}

#[derive(Deserialize, schemars::JsonSchema)]
struct PackArgs {
    /// Question or keywords.
    query: String,
    /// Token budget (default: pack.budget, 4000).
    #[schemars(range(min = 1))]
    budget: Option<u32>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ShowArgs {
    /// Id (any case) or path.
    id: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct NeighborsArgs {
    /// Id (any case) or path.
    id: String,
    /// Hops.
    #[serde(default = "one")]
    #[schemars(range(max = 6))]
    depth: u8,
    /// Edge types to follow (default all): parent, blocks, blocked_by, depends_on, relates, decision_ref, supersedes, superseded_by, links_to, mentions.
    #[serde(default)]
    edges: Vec<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ListArgs {
    /// Item types, e.g. ["Task", "Bug"].
    #[serde(default)]
    types: Vec<String>,
    /// States as written, or groups: open, in_progress, blocked, done, dropped.
    #[serde(default)]
    states: Vec<String>,
    /// Frontmatter field filters, e.g. {"priority": "P1"} (lists match by member).
    #[serde(default)]
    fields: std::collections::BTreeMap<String, String>,
    /// Only items under this parent id (all descendants).
    parent: Option<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ReadyArgs {
    /// Explain why this id is or is not ready instead of listing.
    explain: Option<String>,
    /// Most items, default 20.
    #[serde(default = "twenty")]
    limit: u32,
}

fn twenty() -> u32 {
    20
}

#[derive(Deserialize, schemars::JsonSchema)]
struct TreeArgs {
    /// Epic, feature or any item id.
    id: String,
}

fn one() -> u8 {
    1
}

/// An argument schema without what tells a client nothing: schemars' `$schema`, `title`
/// and integer `format`s, and `null` as a type of optional arguments (leaving one out is
/// how a client says "the default").
fn lean(schema: &mut serde_json::Map<String, serde_json::Value>) {
    schema.remove("$schema");
    schema.remove("title");
    let Some(serde_json::Value::Object(props)) = schema.get_mut("properties") else {
        return;
    };
    for prop in props.values_mut() {
        let Some(prop) = prop.as_object_mut() else {
            continue;
        };
        prop.remove("format");
        if let Some(serde_json::Value::Array(types)) = prop.get("type") {
            let named: Vec<_> = types.iter().filter(|t| t.as_str() != Some("null")).cloned().collect();
            if let [one] = named.as_slice() {
                prop.insert("type".into(), one.clone());
            }
        }
    }
}

#[tool_router]
impl Server {
    fn new(state: State) -> Server {
        let mut tool_router = Server::tool_router();
        for route in tool_router.map.values_mut() {
            let mut schema = (*route.attr.input_schema).clone();
            lean(&mut schema);
            route.attr.input_schema = Arc::new(schema);
        }
        Server {
            state: Arc::new(Mutex::new(state)),
            tool_router,
        }
    }

    /// The state with a fresh index.
    fn fresh(&self) -> Result<MutexGuard<'_, State>, CallToolResult> {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        st.refresh().map_err(tool_error)?;
        Ok(st)
    }

    #[tool(
        description = "Rank backlog documents (work items, ADRs, docs) for a question. Returns id, title, type, state, path, score and why each matched."
    )]
    async fn search(&self, Parameters(a): Parameters<SearchArgs>) -> Result<CallToolResult, ErrorData> {
        let st = match self.fresh() {
            Ok(st) => st,
            Err(e) => return Ok(e),
        };
        let opts = SearchOptions {
            limit: a.limit.clamp(1, 100) as usize,
            graph: true,
        };
        let r = match st.index.search_with(&a.query, opts) {
            Ok(r) => r,
            Err(e) => return Ok(tool_error(e)),
        };
        let results = r
            .results
            .iter()
            .map(|h| Hit {
                id: &h.id,
                title: &h.title,
                r#type: h.r#type.as_deref().unwrap_or(h.kind.as_str()),
                state: h.state.as_deref(),
                path: &h.path,
                score: (h.score * 1000.0).round() / 1000.0,
                why: h.why.line(),
            })
            .collect();
        structured(&SearchOut { results })
    }

    #[tool(
        description = "Context for a question as Markdown within a token budget: the best matching documents with the relations that answer it (blockers, decisions, parents), each with why it is there."
    )]
    async fn pack(&self, Parameters(a): Parameters<PackArgs>) -> Result<CallToolResult, ErrorData> {
        let st = match self.fresh() {
            Ok(st) => st,
            Err(e) => return Ok(e),
        };
        let budget = a.budget.unwrap_or(st.budget);
        let p = match st.index.pack(&a.query, budget) {
            Ok(p) => p,
            Err(e) => return Ok(tool_error(e)),
        };
        if p.items.is_empty() && !p.not_included.is_empty() {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "a budget of {budget} tokens holds not even the pack's header and one reference; use 200 or more"
            ))]));
        }
        let out = PackOut {
            used: p.used,
            budget: p.budget,
            items: p
                .items
                .iter()
                .map(|i| PackItemOut {
                    id: &i.id,
                    mode: i.mode,
                    tokens: i.tokens,
                })
                .collect(),
            not_included: p.not_included.iter().map(|o| o.id.as_str()).collect(),
        };
        let value = json(&out)?;
        // The model reads the Markdown as it is, not escaped inside JSON (which
        // `CallToolResult::structured` would write).
        let mut result = CallToolResult::success(vec![ContentBlock::text(p.markdown)]);
        result.structured_content = Some(value);
        Ok(result)
    }

    #[tool(description = "One document by id or path: fields, sections, relations in and out.")]
    async fn show(&self, Parameters(a): Parameters<ShowArgs>) -> Result<CallToolResult, ErrorData> {
        let st = match self.fresh() {
            Ok(st) => st,
            Err(e) => return Ok(e),
        };
        let v = match st.index.node(&a.id) {
            Ok(v) => v,
            Err(e) => return Ok(tool_error(e)),
        };
        let n = &v.node;
        macro_rules! rels {
            ($list:expr) => {
                $list
                    .iter()
                    .map(|e| Rel {
                        r#type: e.r#type.as_str(),
                        id: &e.id,
                        title: &e.title,
                    })
                    .collect()
            };
        }
        let out = ShowOut {
            id: &n.id,
            r#type: n.r#type.as_deref().unwrap_or(n.kind.as_str()),
            state: n.state.as_deref(),
            title: n.label(),
            path: &n.path,
            doc: n.doc.as_deref(),
            fields: n.fields.as_deref(),
            sections: v.sections.iter().map(|s| s.heading.as_str()).collect(),
            out: rels!(v.outgoing),
            r#in: rels!(v.incoming),
            text: n.text.as_deref(),
        };
        structured(&out)
    }

    #[tool(description = "Documents linked to one, up to depth hops, and the edges among them.")]
    async fn neighbors(&self, Parameters(a): Parameters<NeighborsArgs>) -> Result<CallToolResult, ErrorData> {
        let mut types = Vec::new();
        for e in &a.edges {
            match e.trim().parse::<EdgeType>() {
                Ok(t) => types.push(t),
                Err(msg) => return Ok(CallToolResult::error(vec![ContentBlock::text(msg)])),
            }
        }
        let st = match self.fresh() {
            Ok(st) => st,
            Err(e) => return Ok(e),
        };
        let depth = usize::from(a.depth.min(6));
        let h = match st.index.neighbors(&a.id, depth, &types) {
            Ok(h) => h,
            Err(e) => return Ok(tool_error(e)),
        };
        let out = HoodOut {
            root: &h.root,
            nodes: h
                .nodes
                .iter()
                .map(|n| HoodNode {
                    id: &n.id,
                    title: &n.title,
                    r#type: n.r#type.as_deref().unwrap_or(n.kind.as_str()),
                    state: n.state.as_deref(),
                    hop: n.hop,
                })
                .collect(),
            edges: h
                .edges
                .iter()
                .map(|e| [e.source.as_str(), e.r#type.as_str(), e.target.as_str()])
                .collect(),
            omitted: h.omitted,
        };
        structured(&out)
    }

    #[tool(description = "Backlog items filtered by type, state or state group, frontmatter fields, parent.")]
    async fn list(&self, Parameters(a): Parameters<ListArgs>) -> Result<CallToolResult, ErrorData> {
        let st = match self.fresh() {
            Ok(st) => st,
            Err(e) => return Ok(e),
        };
        let parent = match a.parent.as_deref().map(|p| st.index.resolve_id(p)).transpose() {
            Ok(p) => p,
            Err(e) => return Ok(tool_error(e)),
        };
        let filter = mdgraph::ListFilter {
            types: a.types,
            states: a.states,
            fields: a.fields.into_iter().collect(),
            deep: parent.is_some(),
            parent,
            sort: None,
        };
        match st.index.list(&filter) {
            Ok(r) => structured(&r),
            Err(e) => Ok(tool_error(e)),
        }
    }

    #[tool(
        description = "Work that can start now: open items whose blockers are all done, by priority; or, with explain, what holds one item."
    )]
    async fn ready(&self, Parameters(a): Parameters<ReadyArgs>) -> Result<CallToolResult, ErrorData> {
        let st = match self.fresh() {
            Ok(st) => st,
            Err(e) => return Ok(e),
        };
        if let Some(id) = a.explain {
            return match st.index.holds(&id) {
                Ok((id, holds)) => {
                    structured(&serde_json::json!({"id": id, "ready": holds.is_empty(), "holds": holds}))
                }
                Err(e) => Ok(tool_error(e)),
            };
        }
        match st.index.ready() {
            Ok(mut r) => {
                r.items.truncate(a.limit.clamp(1, 500) as usize);
                structured(&r)
            }
            Err(e) => Ok(tool_error(e)),
        }
    }

    #[tool(description = "An epic or feature with its descendants, their states and a roll-up per level.")]
    async fn tree(&self, Parameters(a): Parameters<TreeArgs>) -> Result<CallToolResult, ErrorData> {
        let st = match self.fresh() {
            Ok(st) => st,
            Err(e) => return Ok(e),
        };
        match st.index.tree(&a.id) {
            Ok(r) => structured(&r),
            Err(e) => Ok(tool_error(e)),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("mdgraph", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Answers questions about a Markdown backlog (work items, ADRs) from its graph: pack for context on a question, search to find documents, show and neighbors for one document.",
            )
    }
}

/// A result whose structured content is `v`, and its text content `v` serialized.
fn structured(v: &impl Serialize) -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::structured(json(v)?))
}

/// `v` as a JSON value.
fn json(v: &impl Serialize) -> Result<serde_json::Value, ErrorData> {
    serde_json::to_value(v).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

/// A failed call the client shows to the model (an unknown id, an unreadable index).
fn tool_error(e: Error) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(e.to_string())])
}

// Result shapes (docs/commands.md, "mdgraph mcp", documents them). Empty fields are left out.

#[derive(Serialize)]
struct SearchOut<'a> {
    results: Vec<Hit<'a>>,
}

#[derive(Serialize)]
struct Hit<'a> {
    id: &'a str,
    title: &'a str,
    r#type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a str>,
    path: &'a str,
    score: f64,
    why: String,
}

/// The pack's shape; its Markdown is the text content only (the pack is most of the
/// reply, and a client that shows the model both would pay for it twice).
#[derive(Serialize)]
struct PackOut<'a> {
    used: u32,
    budget: u32,
    items: Vec<PackItemOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    not_included: Vec<&'a str>,
}

#[derive(Serialize)]
struct PackItemOut<'a> {
    id: &'a str,
    mode: mdgraph::PackMode,
    tokens: u32,
}

#[derive(Serialize)]
struct ShowOut<'a> {
    id: &'a str,
    r#type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a str>,
    title: &'a str,
    path: &'a str,
    /// The document a section belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    doc: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fields: Option<&'a serde_json::value::RawValue>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sections: Vec<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    out: Vec<Rel<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    r#in: Vec<Rel<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

#[derive(Serialize)]
struct Rel<'a> {
    r#type: &'a str,
    id: &'a str,
    title: &'a str,
}

#[derive(Serialize)]
struct HoodOut<'a> {
    root: &'a str,
    nodes: Vec<HoodNode<'a>>,
    /// `[source, type, target]`.
    edges: Vec<[&'a str; 3]>,
    #[serde(skip_serializing_if = "is_zero")]
    omitted: usize,
}

#[derive(Serialize)]
struct HoodNode<'a> {
    id: &'a str,
    title: &'a str,
    r#type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a str>,
    hop: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
