//! `mdgraph check`: the pre-commit verdict. Text output is a summary on stderr and the
//! diagnostics on stdout; JSON is the library's `CheckReport`. With a baseline file only
//! the diagnostics it does not cover are printed (`--verbose` adds the known ones).

use super::common::{Ctx, Failure, Format, diagnostics, emit, json};
use super::term::Paint;
use super::{EXIT_FAIL, EXIT_OK};
use mdgraph::model::diag::Severity;
use mdgraph::{CheckOptions, CheckReport, Config, Index};
use std::io::Write;

/// Exit 1 if the index is stale or the graph has errors (for pre-commit hooks and CI).
///
/// With a baseline file (`mdgraph baseline`) only errors it does not cover fail the check.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Fail on (new) warnings too.
    #[arg(long)]
    strict: bool,
    /// Check what is staged in git (sources, config, baseline and index from git's
    /// index, never the working tree), as the pre-commit hook does.
    #[arg(long)]
    staged: bool,
    /// Ignore the baseline file: every diagnostic counts.
    #[arg(long)]
    no_baseline: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Check the index against the sources; exit 1 when the check fails.
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let opts = CheckOptions {
        strict: args.strict,
        baseline: !args.no_baseline,
        staged: args.staged,
    };
    let report = Index::check_with(&cfg, opts)?;
    let code = if report.ok { EXIT_OK } else { EXIT_FAIL };
    match args.format {
        Format::Json => emit(out, json(&report)?.as_bytes(), code),
        Format::Text => {
            if !ctx.cli.quiet {
                writeln!(err, "{}", summary(&report, ctx.err_paint))?;
                if let Some(note) = fixed_note(&report) {
                    writeln!(err, "{note}")?;
                }
                if ctx.cli.verbose {
                    for e in &report.fixed_entries {
                        let about = e.subject.as_deref().map(|s| format!(" `{s}`")).unwrap_or_default();
                        writeln!(err, "fixed: {}: {}{about} (×{})", e.path, e.code.as_str(), e.count)?;
                    }
                }
            }
            // `--quiet`: errors only (and warnings under `--strict`, where they fail).
            let mut shown: Vec<_> = report
                .diagnostics
                .iter()
                .filter(|d| !ctx.cli.quiet || args.strict || d.severity == Severity::Error)
                .cloned()
                .collect();
            if ctx.cli.verbose {
                shown.extend(report.known_diagnostics.iter().map(|d| {
                    let mut d = d.clone();
                    d.message.push_str(" (known: in the baseline)");
                    d
                }));
            }
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
    let mut line = format!("{verdict}: {state}; {} errors, {} warnings", r.errors, r.warnings);
    if let Some(file) = &r.baseline {
        line.push_str(&format!("; {} known, {} new (baseline {file})", r.known, r.new));
    }
    line
}

/// What to do when the baseline lists diagnostics that are gone.
fn fixed_note(r: &CheckReport) -> Option<String> {
    if r.fixed == 0 {
        return None;
    }
    let how = if r.new == 0 {
        "run `mdgraph baseline` to shrink it"
    } else {
        "run `mdgraph baseline --prune` to shrink it without recording the new ones"
    };
    Some(format!("{} fixed since the baseline: {how}", r.fixed))
}
