//! `mdgraph pack`: a context pack for a prompt. Markdown output is the pack's own
//! rendering; JSON is the library's `Pack`.

use super::common::{Ctx, Failure, emit, json, notes, open_index};
use super::{EXIT_FAIL, EXIT_OK};
use mdgraph::{Config, SearchOptions, Timings};
use std::io::Write;

/// A context pack for a prompt: the best results fitted into a token budget, each
/// with the reason it is there.
#[derive(Debug, clap::Args)]
pub struct Args {
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
    /// Fill the budget with every candidate that fits, however far below the best match
    /// (no relevance cliff, `[pack] cliff`).
    #[arg(long)]
    fill: bool,
    /// Do not refresh a stale index first.
    #[arg(long)]
    no_refresh: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: PackFormat,
}

/// Output format of `pack`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
enum PackFormat {
    /// Markdown, ready to paste into a prompt.
    #[default]
    Md,
    /// JSON for scripts.
    Json,
}

/// Pack the best results into the budget; exit 1 when the pack is empty.
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let mut t = Timings::default();
    let budget = args.budget.unwrap_or(cfg.pack_budget);
    let index = open_index(ctx, cfg, err, args.no_refresh)?;
    t.mark("refresh");
    let opts = SearchOptions {
        limit: args.candidates,
        graph: !args.no_graph,
    };
    let cliff = if args.fill { 0.0 } else { index.config().pack_cliff };
    let p = index.pack_cliff(&args.query, budget, opts, cliff)?;
    t.mark("search and pack");
    notes(ctx, err, Some(&t), &index)?;
    let code = if p.items.is_empty() { EXIT_FAIL } else { EXIT_OK };
    if p.items.is_empty() && !p.not_included.is_empty() {
        writeln!(
            err,
            "mdgraph: {} a budget of {budget} tokens holds not even the pack's header and one reference ({} matching items left out); try --budget 200 or more",
            ctx.err_paint.error("error:"),
            p.not_included.len()
        )?;
    } else if p.items.is_empty() && !ctx.cli.quiet {
        ctx.warn(err, &format!("nothing matches `{}`", args.query))?;
    }
    match args.format {
        PackFormat::Md => emit(out, p.markdown.as_bytes(), code),
        PackFormat::Json => emit(out, json(&p)?.as_bytes(), code),
    }
}
