//! `mdgraph tree`: an epic or feature with its descendants and a roll-up per level.
//! JSON is the library's `TreeReport`; Mermaid and DOT draw it. `--limit` and `--budget`
//! keep the work first and count what they leave out.

use super::EXIT_OK;
use super::common::{BoundArgs, Ctx, Failure, bounded, emit, json, notes, open_index};
use mdgraph::Config;
use std::io::Write;

/// An item with its descendants (parent edges), each with its state, and per level the
/// counts per state group and the done fraction.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The epic, feature or any item (id as typed, or path).
    id: String,
    #[command(flatten)]
    bound: BoundArgs,
    /// Do not refresh a stale index first.
    #[arg(long)]
    no_refresh: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: TreeFormat,
}

/// Output format of `tree`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
enum TreeFormat {
    /// Indented text with roll-ups.
    #[default]
    Text,
    /// JSON: the root with nested children and roll-ups.
    Json,
    /// A Mermaid flowchart.
    Mermaid,
    /// A Graphviz DOT digraph.
    Dot,
}

/// Print the tree; an unknown id is an error (exit 1).
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let index = open_index(ctx, cfg, err, args.no_refresh)?;
    let report = index.tree(&args.id)?;
    notes(ctx, err, None, &index)?;
    let (_, text) = bounded(&index, &report, args.bound, |r| {
        Ok(match args.format {
            TreeFormat::Text => r.root.to_text(),
            TreeFormat::Json => json(r)?,
            TreeFormat::Mermaid => r.root.to_mermaid(),
            TreeFormat::Dot => r.root.to_dot(),
        })
    })?;
    emit(out, text.as_bytes(), EXIT_OK)
}
