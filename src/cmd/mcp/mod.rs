//! `mdgraph mcp`: a Model Context Protocol server on stdin/stdout (rmcp, the official
//! Rust SDK), exposing `search`, `pack`, `show`, `neighbors`, `list`, `ready` and `tree` as tools. The index is
//! opened once and kept; before each call a watch on the backlog (see [`super::watch`])
//! says whether anything may have changed, and only then the library's refresh runs (the
//! stat probe, then an incremental build when something did change) and the index is
//! reopened. Nothing is written but the index folder; stdout carries only the protocol,
//! messages go to stderr.
//!
//! Tool descriptions and argument schemas are kept short (a client sends them with every
//! conversation), and results are compact JSON with empty fields left out, sent once, as
//! the call's text content (`pack` sends its Markdown, with a short structured summary),
//! and bounded: at most 10,000 tokens unless the call asks for more.
//!
//! This file sets the server up and runs it; [`fresh`] holds what the server keeps
//! between calls and keeps it fresh, [`tools`] the tools with their argument schemas,
//! [`shapes`] the answers' shapes and bounds, and [`input`] guards the protocol's input.

mod fresh;
mod input;
mod shapes;
mod tools;

use super::common::{Ctx, Failure, open_index};
use super::watch::Watch;
use super::{EXIT_ERROR, EXIT_OK};
use fresh::State;
use mdgraph::{Config, Error};
use rmcp::ServiceExt;
use std::io::Write;
use std::pin::Pin;
use std::task::{Context, Poll};
use tools::Server;

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
    let server = Server::new(State::new(ctx, index, watch, budget));
    // Vouch for the index to queries (Linux: the watch can read a cookie's event).
    #[cfg(unix)]
    let _vouching = fresh::vouch(ctx, &server.state, err)?;
    fresh::keep_fresh(&server.state);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Other(format!("cannot start the async runtime: {e}")))?;
    let served: Result<(), String> = runtime.block_on(async {
        let stdin = input::Guarded::new(tokio::io::stdin());
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
