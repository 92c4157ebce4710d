//! `mdgraph index`: build or refresh the index. Text output is the diagnostics and a
//! summary on stderr; JSON is [`IndexJson`] on stdout.

use super::EXIT_OK;
use super::common::{Ctx, Failure, Format, build_summary, diagnostics, json};
use mdgraph::model::diag::{Diagnostic, Severity};
use mdgraph::{Config, Index, MetaCounts};
use std::io::Write;

/// Build or refresh the index (incremental; unchanged files are not re-parsed).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Re-parse every file instead of reusing unchanged ones.
    #[arg(long)]
    full: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// `mdgraph index --format json`.
#[derive(serde::Serialize)]
struct IndexJson<'a> {
    schema: &'static str,
    up_to_date: bool,
    parsed: usize,
    reused: usize,
    written: &'a [String],
    counts: &'a MetaCounts,
    diagnostics: &'a [Diagnostic],
}

/// Build the index and report on it.
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let cli = ctx.cli;
    let progress = ctx.progress();
    let report = Index::build(&cfg, args.full, progress.as_ref())?;
    drop(progress);
    match args.format {
        Format::Json => {
            out.write_all(
                json(&IndexJson {
                    schema: "mdgraph.index/1",
                    up_to_date: report.up_to_date,
                    parsed: report.parsed,
                    reused: report.reused,
                    written: &report.written,
                    counts: &report.meta.counts,
                    diagnostics: &report.diagnostics,
                })?
                .as_bytes(),
            )?;
        }
        Format::Text => {
            let shown: Vec<Diagnostic> = report
                .diagnostics
                .iter()
                .filter(|d| !cli.quiet || d.severity == Severity::Error)
                .cloned()
                .collect();
            err.write_all(diagnostics(&shown, ctx.err_paint).as_bytes())?;
            if !cli.quiet {
                writeln!(err, "{}", build_summary(&report))?;
            }
        }
    }
    if cli.verbose {
        writeln!(err, "{}", report.timings.render())?;
    }
    Ok(EXIT_OK)
}
