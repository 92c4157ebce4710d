//! `mdgraph site`: write the static HTML view of the index (overview, board, item pages,
//! dependency graphs, decisions, search) into a folder that opens from `file://`. JSON
//! is the library's `SiteReport`.

use super::EXIT_OK;
use super::common::{Ctx, Failure, Format, emit, json, notes, open_index};
use mdgraph::Config;
use std::io::Write;
use std::path::PathBuf;

/// Write a static, self-contained HTML site of the backlog: an overview with roll-ups,
/// a board, a page per item, a dependency graph per epic or feature, the decisions and a
/// search. It opens from `file://` with no network; an edit rewrites only the pages it
/// changes.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The site's folder (default: `site/` in the index folder). It must be empty, new,
    /// or a site mdgraph wrote.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Do not refresh a stale index first.
    #[arg(long)]
    no_refresh: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Write the site and say what changed.
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let dir = args.out.as_ref().map(|d| ctx.cwd.join(d));
    let index = open_index(ctx, cfg, err, args.no_refresh)?;
    let report = mdgraph::build_site(&index, dir.as_deref())?;
    notes(ctx, err, Some(&report.timings), &index)?;
    match args.format {
        Format::Json => emit(out, json(&report)?.as_bytes(), EXIT_OK),
        Format::Text => {
            if ctx.cli.quiet {
                return Ok(EXIT_OK);
            }
            let shown = mdgraph::shown_from(ctx.cwd, &report.dir);
            let mut line = format!(
                "site: {} files in {}: {} written, {} unchanged",
                report.pages,
                shown,
                report.written.len(),
                report.unchanged
            );
            if !report.removed.is_empty() {
                line.push_str(&format!(", {} removed", report.removed.len()));
            }
            line.push_str(&format!("; open {}/index.html\n", shown));
            emit(out, line.as_bytes(), EXIT_OK)
        }
    }
}
