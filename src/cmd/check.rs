//! `mdgraph check`: the pre-commit verdict. Text output is a summary on stderr and the
//! diagnostics on stdout; JSON is the library's `CheckReport`.

use super::common::{Ctx, Failure, Format, diagnostics, emit, json};
use super::term::Paint;
use super::{EXIT_FAIL, EXIT_OK};
use mdgraph::{CheckReport, Config, Index};
use std::io::Write;

/// Exit 1 if the index is stale or the graph has errors (for pre-commit hooks and CI).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Fail on warnings too.
    #[arg(long)]
    strict: bool,
    /// Check what is staged in git (sources, config and index from git's index, never
    /// the working tree), as the pre-commit hook does.
    #[arg(long)]
    staged: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Check the index against the sources; exit 1 when the check fails.
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let report = if args.staged {
        Index::check_staged(&cfg, args.strict)?
    } else {
        Index::check(&cfg, args.strict)?
    };
    let code = if report.ok { EXIT_OK } else { EXIT_FAIL };
    match args.format {
        Format::Json => emit(out, json(&report)?.as_bytes(), code),
        Format::Text => {
            if !ctx.cli.quiet {
                writeln!(err, "{}", summary(&report, ctx.err_paint))?;
            }
            // `--quiet`: errors only (and warnings under `--strict`, where they fail).
            let shown: Vec<_> = report
                .diagnostics
                .iter()
                .filter(|d| !ctx.cli.quiet || args.strict || d.severity == mdgraph::model::diag::Severity::Error)
                .cloned()
                .collect();
            emit(out, diagnostics(&shown, ctx.out_paint).as_bytes(), code)
        }
    }
}

/// The summary line of a check.
fn summary(r: &CheckReport, paint: Paint) -> String {
    let state = match (r.fresh, r.staged) {
        (true, false) => "index is fresh",
        (false, false) => "index is STALE",
        (true, true) => "staged index is fresh",
        (false, true) => "staged index is STALE",
    };
    let verdict = if r.ok {
        paint.ok("check ok")
    } else {
        paint.error("check FAILED")
    };
    format!("{verdict}: {state}; {} errors, {} warnings", r.errors, r.warnings)
}
