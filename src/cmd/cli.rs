//! Command-line arguments (clap derive). Validated into a `mdgraph::Config` by
//! [`super::run`] before any work starts.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Derive a context graph from a Markdown backlog and answer questions from it.
#[derive(Debug, Parser)]
#[command(name = "mdgraph", version, about, propagate_version = true)]
pub struct Cli {
    /// Config file (default: mdgraph.toml in the working directory or an ancestor).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Backlog root (overrides `root` in the config).
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Index folder (overrides `index_dir` in the config).
    #[arg(long, global = true, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
    /// Print only errors.
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Do not build or use the SQLite mirror (search runs from the JSONL sidecar).
    #[arg(long, global = true)]
    pub no_sqlite: bool,
    /// Print phase timings and more detail.
    #[arg(long, short, global = true)]
    pub verbose: bool,
    /// When to use colour: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN")]
    pub color: super::term::ColorChoice,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Output format of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Human-readable text.
    #[default]
    Text,
    /// JSON for scripts.
    Json,
}

/// Output format of `pack`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum PackFormat {
    /// Markdown, ready to paste into a prompt.
    #[default]
    Md,
    /// JSON for scripts.
    Json,
}

/// Output format of `neighbors`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum GraphFormat {
    /// Indented text.
    #[default]
    Text,
    /// JSON: root, nodes, edges.
    Json,
    /// A Mermaid flowchart.
    Mermaid,
    /// A Graphviz DOT digraph.
    Dot,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build or refresh the index (incremental; unchanged files are not re-parsed).
    Index {
        /// Re-parse every file instead of reusing unchanged ones.
        #[arg(long)]
        full: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Exit 1 if the index is stale or the graph has errors (for pre-commit hooks and CI).
    Check {
        /// Fail on warnings too.
        #[arg(long)]
        strict: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Full-text search: ranked documents with the reason each matched.
    Search {
        /// The question or keywords (plain text; no query syntax).
        query: String,
        /// Most results to print.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Plain full-text ranking: no graph expansion or re-rank.
        #[arg(long)]
        no_graph: bool,
        /// Do not refresh a stale index first.
        #[arg(long)]
        no_refresh: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// A context pack for a prompt: the best results fitted into a token budget, each
    /// with the reason it is there.
    Pack {
        /// The question or keywords (plain text).
        query: String,
        /// Token budget (default: pack.budget, 4000).
        #[arg(long)]
        budget: Option<u32>,
        /// Candidates considered, best first.
        #[arg(long, default_value_t = mdgraph::PACK_CANDIDATES)]
        candidates: usize,
        /// Plain full-text ranking: no graph expansion or re-rank.
        #[arg(long)]
        no_graph: bool,
        /// Do not refresh a stale index first.
        #[arg(long)]
        no_refresh: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: PackFormat,
    },
    /// A node's neighborhood as text, JSON, Mermaid or Graphviz DOT.
    Neighbors {
        /// Node id, raw id (any case) or root-relative path.
        id: String,
        /// Hops from the node.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=6))]
        depth: u8,
        /// Edge types to follow (comma-separated; default all).
        #[arg(long, value_delimiter = ',', value_parser = parse_edge_type)]
        edges: Vec<mdgraph::model::EdgeType>,
        /// Do not refresh a stale index first.
        #[arg(long)]
        no_refresh: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: GraphFormat,
    },
    /// Retrieval metrics for a labeled query file: nDCG@10, Recall@10/20, MRR and pack
    /// recall, with the graph (or without it, or both side by side).
    Eval {
        /// JSONL file, one `{"id", "query", "relevant": {id or path: grade}}` per line.
        queries: PathBuf,
        /// Pack budgets in tokens for pack recall, comma-separated (default: pack.budget, 4000).
        #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
        budget: Vec<u32>,
        /// Candidates a pack considers, best first (as `pack --candidates`).
        #[arg(long, default_value_t = mdgraph::PACK_CANDIDATES)]
        candidates: usize,
        /// Evaluate the plain full-text ranking only.
        #[arg(long, conflicts_with = "compare")]
        no_graph: bool,
        /// Evaluate with and without the graph and print both with the difference.
        #[arg(long)]
        compare: bool,
        /// Also print each query's figures.
        #[arg(long)]
        per_query: bool,
        /// Do not refresh a stale index first.
        #[arg(long)]
        no_refresh: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Write a commented starter mdgraph.toml here (or in --root, or at --config FILE),
    /// detecting the layout: kano items/decisions, Backlog.md, EIP-style `eip:` ids.
    Init,
    /// Git hooks: `mdgraph hook install` writes a pre-commit hook running `mdgraph check`.
    Hook {
        /// What to do.
        #[command(subcommand)]
        action: HookAction,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout: `mdgraph man > mdgraph.1`.
    Man,
    /// Print one node (by id, `ID@uid`, or path) with its sections and edges.
    Show {
        /// Node id, raw id (any case) or root-relative path.
        id: String,
        /// Do not refresh a stale index first.
        #[arg(long)]
        no_refresh: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

/// `mdgraph hook` actions.
#[derive(Debug, Subcommand)]
pub enum HookAction {
    /// Write the git pre-commit hook (in `git rev-parse --git-path hooks`: worktrees and
    /// core.hooksPath are honoured); it runs `mdgraph check` and refuses a commit whose
    /// index is stale or whose backlog has errors.
    Install {
        /// Replace an existing pre-commit hook.
        #[arg(long)]
        force: bool,
    },
}

fn parse_edge_type(s: &str) -> Result<mdgraph::model::EdgeType, String> {
    s.trim().parse()
}
