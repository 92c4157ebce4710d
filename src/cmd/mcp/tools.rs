//! The MCP server's tools (`search`, `pack`, `show`, `neighbors`, `list`, `ready`,
//! `tree`): their argument schemas, kept lean, and each tool's call on a fresh index;
//! [`super::shapes`] holds the answers' shapes and bounds (docs/commands.md, "mdgraph
//! mcp", documents them).

use super::fresh::State;
use super::shapes::{self, ShowOut, bounded, bounds, compact, plain, text_result};
use mdgraph::model::EdgeType;
use mdgraph::{Error, SearchOptions};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex, MutexGuard};

/// The server rmcp runs: the state shared with the threads that keep it fresh, and the
/// tools.
#[derive(Clone)]
pub(super) struct Server {
    pub(super) state: Arc<Mutex<State>>,
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
    /// Most nodes.
    limit: Option<u32>,
    /// Most tokens (10000).
    budget: Option<u32>,
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
    /// Most items.
    limit: Option<u32>,
    /// Most tokens (10000).
    budget: Option<u32>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ReadyArgs {
    /// Explain why this id is or is not ready instead of listing.
    explain: Option<String>,
    /// Most items.
    #[serde(default = "twenty")]
    limit: u32,
    /// Most tokens (10000).
    budget: Option<u32>,
}

fn twenty() -> u32 {
    20
}

#[derive(Deserialize, schemars::JsonSchema)]
struct TreeArgs {
    /// Epic, feature or any item id.
    id: String,
    /// Most nodes.
    limit: Option<u32>,
    /// Most tokens (10000).
    budget: Option<u32>,
}

fn one() -> u8 {
    1
}

/// An argument schema without what tells a client nothing: schemars' `$schema`, `title`
/// and integer `format`s, a minimum of 0 on an unsigned integer, an empty default list
/// or map, and `null` as a type of optional arguments (leaving one out is how a client
/// says "the default").
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
        if prop.get("minimum").and_then(serde_json::Value::as_u64) == Some(0) {
            prop.remove("minimum");
        }
        let empty_default = match prop.get("default") {
            Some(serde_json::Value::Array(a)) => a.is_empty(),
            Some(serde_json::Value::Object(m)) => m.is_empty(),
            _ => false,
        };
        if empty_default {
            prop.remove("default");
        }
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
    pub(super) fn new(state: State) -> Server {
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

    #[tool(description = "Rank backlog documents (work items, ADRs, docs) for a question, each with why it matched.")]
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
        let tokenizer = st.index.config().settings.tokenizer;
        bounded(
            &shapes::SearchOut::new(&r.results),
            bounds(None, None),
            tokenizer,
            plain,
        )
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
        let value = serde_json::to_value(&out).map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
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
        let tokenizer = st.index.config().settings.tokenizer;
        bounded(&ShowOut::new(&v), bounds(None, None), tokenizer, plain)
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
        let tokenizer = st.index.config().settings.tokenizer;
        bounded(&h, bounds(a.limit, a.budget), tokenizer, |h| plain(&shapes::hood(h)))
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
        let tokenizer = st.index.config().settings.tokenizer;
        match st.index.list(&filter) {
            Ok(r) => bounded(&r, bounds(a.limit, a.budget), tokenizer, compact),
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
                Ok((id, holds)) => Ok(text_result(compact(
                    &serde_json::json!({"id": id, "ready": holds.is_empty(), "holds": holds}),
                )?)),
                Err(e) => Ok(tool_error(e)),
            };
        }
        let tokenizer = st.index.config().settings.tokenizer;
        match st.index.ready() {
            Ok(r) => bounded(&r, bounds(Some(a.limit.clamp(1, 500)), a.budget), tokenizer, compact),
            Err(e) => Ok(tool_error(e)),
        }
    }

    #[tool(description = "An epic or feature with its descendants, their states and a roll-up per level.")]
    async fn tree(&self, Parameters(a): Parameters<TreeArgs>) -> Result<CallToolResult, ErrorData> {
        let st = match self.fresh() {
            Ok(st) => st,
            Err(e) => return Ok(e),
        };
        let tokenizer = st.index.config().settings.tokenizer;
        match st.index.tree(&a.id) {
            Ok(r) => bounded(&r, bounds(a.limit, a.budget), tokenizer, |r| plain(&shapes::tree(r))),
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

/// A failed call the client shows to the model (an unknown id, an unreadable index).
fn tool_error(e: Error) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(e.to_string())])
}

/// The pack's shape, its one structured part: the Markdown, which is the answer, is the
/// text content only.
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
