//! `mdgraph neighbors`: a node's neighborhood. Every format is the library's rendering
//! of a `Neighborhood`.

use super::EXIT_OK;
use super::common::{BoundArgs, Ctx, Failure, bounded, emit, json, notes, open_index};
use mdgraph::Config;
use mdgraph::model::EdgeType;
use std::io::Write;

/// A node's neighborhood as text, JSON, Mermaid or Graphviz DOT.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Node id, raw id (any case) or root-relative path.
    id: String,
    /// Hops from the node.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=6))]
    depth: u8,
    /// Edge types to follow (comma-separated; default all).
    #[arg(long, value_delimiter = ',', value_parser = parse_edge_type)]
    edges: Vec<EdgeType>,
    #[command(flatten)]
    bound: BoundArgs,
    /// Do not refresh a stale index first.
    #[arg(long)]
    no_refresh: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: GraphFormat,
}

/// Output format of `neighbors`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
enum GraphFormat {
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

fn parse_edge_type(s: &str) -> Result<EdgeType, String> {
    s.trim().parse()
}

/// Print the neighborhood; an unknown id is an error (exit 1).
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let index = open_index(ctx, cfg, err, args.no_refresh)?;
    let hood = index.neighbors(&args.id, args.depth as usize, &args.edges)?;
    notes(ctx, err, None, &index)?;
    let (_, text) = bounded(&index, &hood, args.bound, |h| {
        Ok(match args.format {
            GraphFormat::Text => h.to_text(),
            GraphFormat::Json => json(h)?,
            GraphFormat::Mermaid => h.to_mermaid(),
            GraphFormat::Dot => h.to_dot(),
        })
    })?;
    emit(out, text.as_bytes(), EXIT_OK)
}
