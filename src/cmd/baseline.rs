//! `mdgraph baseline`: record the current diagnostics in the baseline file, so that
//! `mdgraph check` (and the pre-commit hook) fails only on new ones. Text output is one
//! line on stderr; JSON is the library's `BaselineReport` on stdout.

use super::EXIT_OK;
use super::common::{Ctx, Failure, Format, emit, json};
use mdgraph::{BaselineReport, Config, Index};
use std::io::Write;

/// Record the current errors and warnings so that `mdgraph check` fails only on new ones.
///
/// Writes the baseline file (mdgraph-baseline.json beside mdgraph.toml, or `[check]
/// baseline`), keyed by file, code and the offending reference or id, never by line.
/// Commit it; run this again to shrink it once old errors are fixed.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only remove what has been fixed from the existing baseline; record nothing new.
    #[arg(long)]
    prune: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Write the baseline and say what changed.
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let report = Index::baseline(&cfg, args.prune)?;
    if args.format == Format::Json {
        return emit(out, json(&report)?.as_bytes(), EXIT_OK);
    }
    if !ctx.cli.quiet {
        writeln!(err, "{}", summary(&report))?;
        if report.left_out > 0 {
            writeln!(
                err,
                "{} new diagnostics left out (--prune): `mdgraph check` shows them",
                report.left_out
            )?;
        }
    }
    if !report.fresh {
        ctx.warn(
            err,
            "the index is stale: run `mdgraph index` and stage it, or `mdgraph check` still fails",
        )?;
    }
    Ok(EXIT_OK)
}

/// `wrote mdgraph-baseline.json: 48 known (45 errors, 3 warnings) in 20 files; 2 added, 1 removed`.
fn summary(r: &BaselineReport) -> String {
    let what = format!(
        "{} known ({} errors, {} warnings) in {} files",
        r.recorded, r.errors, r.warnings, r.files
    );
    if !r.written {
        return format!("{} is up to date: {what}", r.path);
    }
    format!("wrote {}: {what}; {} added, {} removed", r.path, r.added, r.removed)
}
