//! What several commands share: the run's context, the `--format` of most commands, the
//! `--limit` and `--budget` of the listings, how output is written (a closed pipe is not
//! an error), opening the index for a query and the messages after it, and the text of
//! diagnostics and of an index run's summary.

use super::Cli;
use super::term::{Paint, Terminal};
use mdgraph::model::diag::{Diagnostic, Severity};
use mdgraph::{Bounded, Bounds, BuildReport, Config, Error, Index, Timings};
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

/// Output format of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Format {
    /// Human-readable text.
    #[default]
    Text,
    /// JSON for scripts.
    Json,
}

/// How much of a listing to print (`tree`, `list`, `ready`, `neighbors`): by default all
/// of it.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct BoundArgs {
    /// Most entries to print (work first); the rest are counted (`more` in JSON).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Most tokens to print, counted as `pack` counts them (work first); the rest are
    /// counted (`more` in JSON).
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u32).range(1..))]
    pub budget: Option<u32>,
}

impl BoundArgs {
    fn bounds(self) -> Bounds {
        Bounds {
            limit: self.limit,
            budget: self.budget,
        }
    }
}

/// `full` cut to what `b` allows, with its printed form (`render`), counted with the
/// index's tokenizer.
pub fn bounded<T: Bounded>(
    index: &Index,
    full: &T,
    b: BoundArgs,
    render: impl Fn(&T) -> Result<String, Failure>,
) -> Result<(T, String), Failure> {
    let failed = std::cell::RefCell::new(None);
    let (t, text) = mdgraph::fit_bounds(full, b.bounds(), index.config().settings.tokenizer, |t| {
        render(t).unwrap_or_else(|e| {
            failed.borrow_mut().get_or_insert(e);
            String::new()
        })
    });
    match failed.into_inner() {
        Some(e) => Err(e),
        None => Ok((t, text)),
    }
}

/// What every command needs to know about the run.
pub struct Ctx<'a> {
    /// The global flags.
    pub cli: &'a Cli,
    /// The working directory, which relative paths in arguments start from.
    pub cwd: &'a Path,
    term: &'a Terminal,
    /// Paint for stdout.
    pub out_paint: Paint,
    /// Paint for stderr.
    pub err_paint: Paint,
}

impl<'a> Ctx<'a> {
    /// The context of a run with these flags in `cwd`, for the streams `term` describes.
    pub fn new(cli: &'a Cli, cwd: &'a Path, term: &'a Terminal) -> Ctx<'a> {
        Ctx {
            cli,
            cwd,
            term,
            out_paint: term.stdout_paint(cli.color),
            err_paint: term.stderr_paint(cli.color),
        }
    }

    /// `mdgraph: warning: …` on stderr.
    pub fn warn(&self, err: &mut dyn Write, w: &str) -> Result<(), Failure> {
        writeln!(err, "mdgraph: {} {w}", self.err_paint.warning("warning:"))?;
        Ok(())
    }

    /// A progress line for an index run, when stderr is an interactive terminal.
    pub fn progress(&self) -> Option<mdgraph::Progress> {
        self.term.progress(self.cli.quiet)
    }
}

/// Why a command stopped early.
pub enum Failure {
    /// The reader of stdout went away (`| head`): not an error.
    Pipe,
    /// A real error.
    Error(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Error(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::Pipe
        } else {
            Failure::Error(Error::io("<stdout>", e))
        }
    }
}

/// Write command output; a reader that went away (`| head`) is not an error, and the
/// command's own exit code stands (a failed check stays failed).
pub fn emit(out: &mut dyn Write, bytes: &[u8], code: i32) -> Result<i32, Failure> {
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(code),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(code),
        Err(e) => Err(Failure::Error(Error::io("<stdout>", e))),
    }
}

/// The pretty JSON form of `v`, ending in a newline.
pub fn json(v: &impl serde::Serialize) -> Result<String, Failure> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| Failure::Error(Error::Other(e.to_string())))
}

/// Open the index for a query: refreshed first (with a summary when something was
/// rebuilt), or as it is under `--no-refresh` when there is one.
pub fn open_index(ctx: &Ctx, cfg: Config, err: &mut dyn Write, no_refresh: bool) -> Result<Index, Failure> {
    if no_refresh && Index::exists(&cfg) {
        return Ok(Index::open_as_is(cfg)?);
    }
    // A running watcher (`index --watch`, `mcp`) vouches for the index: no probe.
    #[cfg(unix)]
    let why = {
        let asked = std::time::Instant::now();
        match super::vouch::ask(&cfg) {
            Ok(token) if Index::digest(&cfg).as_deref() == Some(token.digest.as_str()) => {
                if ctx.cli.verbose {
                    writeln!(
                        err,
                        "freshness: watcher (run {}, seq {}) vouched in {:.1}ms",
                        token.run,
                        token.seq,
                        asked.elapsed().as_secs_f64() * 1000.0
                    )?;
                }
                return Ok(Index::open_as_is(cfg)?);
            }
            Ok(_) => "the index is not the one the watcher vouched for".to_string(),
            Err(why) => why,
        }
    };
    #[cfg(not(unix))]
    let why = "no watcher on this platform";
    let probed = std::time::Instant::now();
    let progress = ctx.progress();
    let (index, report) = Index::open_with(cfg, progress.as_ref())?;
    drop(progress);
    if ctx.cli.verbose {
        let what = if report.is_some() { "refreshed" } else { "fresh" };
        writeln!(
            err,
            "freshness: probe ({why}): {what} in {:.1}ms",
            probed.elapsed().as_secs_f64() * 1000.0
        )?;
    }
    if let Some(r) = report.filter(|r| !r.up_to_date && !ctx.cli.quiet) {
        writeln!(err, "{}", build_summary(&r))?;
    }
    Ok(index)
}

/// Messages after a query: phase timings under `--verbose`, and the engine's warnings.
pub fn notes(ctx: &Ctx, err: &mut dyn Write, t: Option<&Timings>, index: &Index) -> Result<(), Failure> {
    if let Some(t) = t.filter(|_| ctx.cli.verbose) {
        writeln!(err, "{}", t.render())?;
    }
    for w in index.take_warnings() {
        ctx.warn(err, &w)?;
    }
    Ok(())
}

/// Diagnostics, one compiler-style line each (`path:line:col` bold, the severity red or
/// yellow when painting).
pub fn diagnostics(diags: &[Diagnostic], paint: Paint) -> String {
    let mut s = String::new();
    for d in diags {
        // The same text as Diagnostic's Display; painting off leaves it unchanged.
        let what = match d.severity {
            Severity::Error => paint.error(&d.label()),
            Severity::Warning => paint.warning(&d.label()),
        };
        let _ = writeln!(s, "{}: {what}: {}", paint.bold(&d.location()), d.message);
    }
    s
}

/// The one-line summary of an index run.
pub fn build_summary(r: &BuildReport) -> String {
    let c = &r.meta.counts;
    let tail = format!("{} errors, {} warnings", c.errors, c.warnings);
    if r.up_to_date {
        return format!(
            "index is up to date: {} files, {} documents, {} edges; {tail}",
            c.files, c.documents, c.edges
        );
    }
    let wrote = if r.written.is_empty() {
        "nothing changed".to_string()
    } else {
        format!("wrote {}", r.written.join(", "))
    };
    format!(
        "indexed {} files ({} parsed, {} unchanged): {} documents, {} sections, {} edges; {tail}; {wrote}",
        c.files, r.parsed, r.reused, c.documents, c.chunks, c.edges
    )
}
