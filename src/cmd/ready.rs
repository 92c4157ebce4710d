//! `mdgraph ready`: open work whose blockers are all done, best first; `--explain ID`
//! says what holds one item. JSON is the library's `ReadyReport`.

use super::common::{BoundArgs, Ctx, Failure, Format, bounded, emit, json, notes, open_index};
use super::{EXIT_FAIL, EXIT_OK};
use mdgraph::Config;
use std::fmt::Write as _;
use std::io::Write;

/// Work that can start now: not done or dropped, every blocker (blocked_by, depends_on,
/// blocks) done, no blocked ancestor, not written in a finished document (a box of a Done
/// story); by priority, then by how much it unblocks.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Explain why this item is or is not ready.
    #[arg(long, value_name = "ID")]
    explain: Option<String>,
    #[command(flatten)]
    bound: BoundArgs,
    /// Do not refresh a stale index first.
    #[arg(long)]
    no_refresh: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Print the ready items (exit 1 when there are none), or one item's explanation.
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let index = open_index(ctx, cfg, err, args.no_refresh)?;
    if let Some(id) = &args.explain {
        let (id, holds) = index.holds(id)?;
        notes(ctx, err, None, &index)?;
        let code = if holds.is_empty() { EXIT_OK } else { EXIT_FAIL };
        return match args.format {
            Format::Json => {
                #[derive(serde::Serialize)]
                struct Explain<'a> {
                    schema: &'static str,
                    id: &'a str,
                    ready: bool,
                    holds: &'a [mdgraph::Hold],
                }
                let v = Explain {
                    schema: "mdgraph.explain/1",
                    id: &id,
                    ready: holds.is_empty(),
                    holds: &holds,
                };
                emit(out, json(&v)?.as_bytes(), code)
            }
            Format::Text => {
                let mut s = String::new();
                if holds.is_empty() {
                    let _ = writeln!(s, "{id} is ready: every blocker is done");
                } else {
                    let _ = writeln!(s, "{id} is not ready:");
                    for h in &holds {
                        let _ = writeln!(s, "  {}", h.reason);
                    }
                }
                emit(out, s.as_bytes(), code)
            }
        };
    }
    let report = index.ready()?;
    notes(ctx, err, None, &index)?;
    let code = if report.items.is_empty() { EXIT_FAIL } else { EXIT_OK };
    for c in &report.cycles {
        ctx.warn(err, &format!("blocker cycle: {} → {}", c.join(" → "), c[0]))?;
    }
    let (_, text) = bounded(&index, &report, args.bound, |r| match args.format {
        Format::Json => json(r),
        Format::Text => Ok(text(r)),
    })?;
    emit(out, text.as_bytes(), code)
}

/// One line per ready item with why it is ready, and a line for those left out.
fn text(report: &mdgraph::ReadyReport) -> String {
    let mut s = String::new();
    for (line, r) in super::list::lines(report.items.iter().map(|r| &r.item))
        .lines()
        .zip(&report.items)
    {
        let unblocks = if r.unblocks > 0 {
            format!("; unblocks {}", r.unblocks)
        } else {
            String::new()
        };
        let _ = writeln!(s, "{line}  [{}{unblocks}]", r.why);
    }
    s + &super::list::more_line(report.more, "listed")
}
