//! `mdgraph check`: the pre-commit verdict. Text output is a summary on stderr and the
//! diagnostics on stdout; JSON is the library's `CheckReport`. With a baseline file only
//! the diagnostics it does not cover are printed (`--verbose` adds the known ones).

use super::common::{Ctx, Failure, Format, diagnostics, emit, json};
use super::term::Paint;
use super::{EXIT_FAIL, EXIT_OK};
use mdgraph::model::diag::Severity;
use mdgraph::{CheckOptions, CheckReport, Config, Index};
use std::io::Write;

/// Exit 1 if the backlog has new errors, or a committed index is stale (for pre-commit
/// hooks and CI).
///
/// With a baseline file (`mdgraph baseline`) only errors it does not cover fail the check.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Fail on (new) warnings too.
    #[arg(long)]
    strict: bool,
    /// Check what is staged in git (the staged sources, config and baseline, and in
    /// commit mode the staged index; never the working tree), as the pre-commit hook does.
    #[arg(long)]
    staged: bool,
    /// Ignore the baseline file: every diagnostic counts.
    #[arg(long)]
    no_baseline: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl Args {
    /// Whether this is the staged check (the hook's).
    pub fn staged(&self) -> bool {
        self.staged
    }
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
            // For a commit: the errors first (those of the files being committed before
            // the others), then the verdict and what to do about old errors.
            if args.staged {
                let shown = shown(ctx, args, &report);
                out.write_all(diagnostics(&shown, ctx.out_paint).as_bytes())?;
                out.flush()?;
                if !ctx.cli.quiet || !report.ok {
                    writeln!(err, "{}", summary(&report, ctx.err_paint))?;
                    for line in staged_notes(&report) {
                        writeln!(err, "{line}")?;
                    }
                }
                return Ok(code);
            }
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
            let shown = shown(ctx, args, &report);
            emit(out, diagnostics(&shown, ctx.out_paint).as_bytes(), code)
        }
    }
}

/// The diagnostics to print: `--quiet` keeps errors only (and warnings under
/// `--strict`, where they fail); `--verbose` adds the known ones.
fn shown(ctx: &Ctx, args: &Args, report: &CheckReport) -> Vec<mdgraph::model::diag::Diagnostic> {
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
    shown
}

/// After a staged check: one line for the known errors, and for errors in files the
/// commit does not change, each naming `mdgraph baseline`.
fn staged_notes(r: &CheckReport) -> Vec<String> {
    let mut lines = Vec::new();
    if r.known > 0 {
        lines.push(format!(
            "{} known errors and warnings (in the baseline {}) are not shown and do not refuse a commit; \
             `mdgraph baseline` records the backlog's current ones",
            r.known,
            r.baseline.as_deref().unwrap_or("")
        ));
    }
    if r.elsewhere > 0 {
        lines.push(format!(
            "{} of these errors are in files this commit does not change: to commit while they are \
             fixed, record them with `mdgraph baseline` and commit the baseline file",
            r.elsewhere
        ));
    }
    lines
}

/// The summary line of a check.
fn summary(r: &CheckReport, paint: Paint) -> String {
    let state = match (r.fresh, r.staged) {
        (true, false) => "index is fresh",
        (false, false) => "index is STALE",
        (true, true) => "staged backlog",
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
