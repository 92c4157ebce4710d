//! `mdgraph eval`: retrieval metrics for a labeled query file. Text and JSON are the
//! library's renderings of an `EvalReport`.

use super::EXIT_OK;
use super::common::{Ctx, Failure, Format, emit, json, notes, open_index};
use mdgraph::{Config, Error, EvalOptions};
use std::io::Write;
use std::path::PathBuf;

/// Retrieval metrics for a labeled query file: nDCG@10, Recall@10/20, MRR and pack
/// recall, with the graph (or without it, or both side by side).
#[derive(Debug, clap::Args)]
pub struct Args {
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
    /// Packs fill the budget (no relevance cliff), as `pack --fill`.
    #[arg(long)]
    fill: bool,
    /// Also print each query's figures.
    #[arg(long)]
    per_query: bool,
    /// Do not refresh a stale index first.
    #[arg(long)]
    no_refresh: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Evaluate the queries in `args.queries` (relative to the working directory).
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let cli = ctx.cli;
    let path = ctx.cwd.join(&args.queries);
    let name = args.queries.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&name, e))?;
    let parsed = mdgraph::parse_queries(&name, &text)?;
    let budgets = if args.budget.is_empty() {
        vec![cfg.pack_budget]
    } else {
        args.budget.clone()
    };
    let graph = cfg.retrieval.graph.enabled && !args.no_graph;
    if args.compare && !cfg.retrieval.graph.enabled && !cli.quiet {
        ctx.warn(
            err,
            "--compare: retrieval.graph.enabled is false in the config; only the plain ranking is evaluated",
        )?;
    }
    let index = open_index(ctx, cfg, err, args.no_refresh)?;
    let opts = EvalOptions {
        graph,
        no_graph: !graph || args.compare,
        budgets,
        candidates: args.candidates,
        tokenizer: index.config().settings.tokenizer,
        cliff: if args.fill { 0.0 } else { index.config().pack_cliff },
    };
    let report = index.evaluate(&name, &parsed, &opts)?;
    notes(ctx, err, None, &index)?;
    if !cli.quiet {
        for w in &report.warnings {
            ctx.warn(err, w)?;
        }
    }
    match args.format {
        Format::Json => emit(out, json(&report)?.as_bytes(), EXIT_OK),
        Format::Text => emit(out, report.to_text(&name, args.per_query).as_bytes(), EXIT_OK),
    }
}
