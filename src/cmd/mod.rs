//! The command line: arguments ([`cli`]), one run per command, text output ([`output`])
//! and terminal manners ([`term`]). Everything here speaks to the library through its
//! public API.

pub mod cli;
pub mod output;
pub mod term;
#[cfg(test)]
mod tests;

use clap::Parser;
use cli::{Cli, Command, Format, HookAction};
use mdgraph::{Config, Error, Index, Overrides, SearchOptions, Timings};
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use term::{Paint, Terminal};

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: a check failed or nothing was found.
pub const EXIT_FAIL: i32 = 1;
/// Exit code: usage or runtime error.
pub const EXIT_ERROR: i32 = 2;

/// Run mdgraph with `args` (including the program name) in `cwd`, writing data to `out`
/// and messages to `err`, for the streams `term` describes (the binary passes [`Terminal::from_env`]).
pub fn run_with_terminal(
    args: Vec<OsString>,
    cwd: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
    term: &Terminal,
) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
            let text = e.render().to_string();
            let _ = if e.use_stderr() {
                err.write_all(text.as_bytes())
            } else {
                out.write_all(text.as_bytes())
            };
            return code;
        }
    };
    let ctx = Ctx {
        cli: &cli,
        term,
        out_paint: term.stdout_paint(cli.color),
        err_paint: term.stderr_paint(cli.color),
    };
    match execute(&ctx, cwd, out, err) {
        Ok(code) => code,
        Err(Failure::Pipe) => EXIT_OK,
        Err(Failure::Error(e)) => {
            let _ = writeln!(err, "mdgraph: {} {e}", ctx.err_paint.error("error:"));
            match e {
                Error::NotFound(_) => EXIT_FAIL,
                _ => EXIT_ERROR,
            }
        }
    }
}

/// What every command needs to know about the run.
struct Ctx<'a> {
    cli: &'a Cli,
    term: &'a Terminal,
    out_paint: Paint,
    err_paint: Paint,
}

impl Ctx<'_> {
    /// `mdgraph: warning: …` on stderr.
    fn warn(&self, err: &mut dyn Write, w: &str) -> Result<(), Failure> {
        writeln!(err, "mdgraph: {} {w}", self.err_paint.warning("warning:"))?;
        Ok(())
    }

    /// A progress line for an index run, when stderr is an interactive terminal.
    fn progress(&self) -> Option<mdgraph::Progress> {
        self.term.progress(self.cli.quiet)
    }
}

/// Why a command stopped early.
enum Failure {
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
fn emit(out: &mut dyn Write, bytes: &[u8], code: i32) -> Result<i32, Failure> {
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(code),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(code),
        Err(e) => Err(Failure::Error(Error::io("<stdout>", e))),
    }
}

fn json(v: &impl serde::Serialize) -> Result<String, Failure> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| Failure::Error(Error::Other(e.to_string())))
}

/// Open the index for a query: refreshed first (with a summary when something was
/// rebuilt), or as it is under `--no-refresh` when there is one.
fn open_index(ctx: &Ctx, cfg: Config, err: &mut dyn Write, no_refresh: bool) -> Result<Index, Failure> {
    if no_refresh && Index::exists(&cfg) {
        return Ok(Index::open_as_is(cfg)?);
    }
    let progress = ctx.progress();
    let (index, report) = Index::open_with(cfg, progress.as_ref())?;
    drop(progress);
    if let Some(r) = report.filter(|r| !r.up_to_date && !ctx.cli.quiet) {
        writeln!(err, "{}", output::build_summary(&r))?;
    }
    Ok(index)
}

/// Messages after a query: phase timings under `--verbose`, and the engine's warnings.
fn notes(ctx: &Ctx, err: &mut dyn Write, t: Option<&Timings>, index: &Index) -> Result<(), Failure> {
    if let Some(t) = t.filter(|_| ctx.cli.verbose) {
        writeln!(err, "{}", t.render())?;
    }
    for w in index.take_warnings() {
        ctx.warn(err, &w)?;
    }
    Ok(())
}

fn execute(ctx: &Ctx, cwd: &Path, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let cli = ctx.cli;
    let ov = Overrides {
        config: cli.config.clone(),
        root: cli.root.clone(),
        index_dir: cli.index_dir.clone(),
        no_sqlite: cli.no_sqlite,
    };
    // Commands that need no configuration.
    match &cli.command {
        Command::Completions { shell } => {
            let mut buf = Vec::new();
            clap_complete::generate(
                *shell,
                &mut <Cli as clap::CommandFactory>::command(),
                "mdgraph",
                &mut buf,
            );
            return emit(out, &buf, EXIT_OK);
        }
        Command::Man => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(<Cli as clap::CommandFactory>::command())
                .render(&mut buf)
                .map_err(|e| Failure::Error(Error::io("<stdout>", e)))?;
            return emit(out, &buf, EXIT_OK);
        }
        Command::Init => return init_command(ctx, cwd, err),
        _ => {}
    }
    let cfg = Config::load(cwd, &ov)?;
    // A commit a killed run left half done is finished before anything reads the index.
    Index::recover(&cfg)?;
    match &cli.command {
        // Answered above, before any configuration is read.
        Command::Completions { .. } | Command::Man | Command::Init => Ok(EXIT_OK),
        Command::Index { full, format } => {
            let progress = ctx.progress();
            let report = Index::build(&cfg, *full, progress.as_ref())?;
            drop(progress);
            match format {
                Format::Json => {
                    #[derive(serde::Serialize)]
                    struct IndexJson<'a> {
                        up_to_date: bool,
                        parsed: usize,
                        reused: usize,
                        written: &'a [String],
                        counts: &'a mdgraph::MetaCounts,
                        diagnostics: &'a [mdgraph::model::diag::Diagnostic],
                    }
                    out.write_all(
                        json(&IndexJson {
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
                    let shown: Vec<mdgraph::model::diag::Diagnostic> = report
                        .diagnostics
                        .iter()
                        .filter(|d| !cli.quiet || d.severity == mdgraph::model::diag::Severity::Error)
                        .cloned()
                        .collect();
                    err.write_all(output::diagnostics(&shown, ctx.err_paint).as_bytes())?;
                    if !cli.quiet {
                        writeln!(err, "{}", output::build_summary(&report))?;
                    }
                }
            }
            if cli.verbose {
                writeln!(err, "{}", report.timings.render())?;
            }
            Ok(EXIT_OK)
        }
        Command::Check { strict, format } => {
            let report = Index::check(&cfg, *strict)?;
            let code = if report.ok { EXIT_OK } else { EXIT_FAIL };
            match format {
                Format::Json => emit(out, json(&report)?.as_bytes(), code),
                Format::Text => {
                    if !cli.quiet {
                        writeln!(err, "{}", output::check_summary(&report, ctx.err_paint))?;
                    }
                    emit(
                        out,
                        output::diagnostics(&report.diagnostics, ctx.out_paint).as_bytes(),
                        code,
                    )
                }
            }
        }
        Command::Search {
            query,
            limit,
            no_graph,
            no_refresh,
            format,
        } => {
            let mut t = Timings::default();
            let index = open_index(ctx, cfg, err, *no_refresh)?;
            t.mark("refresh");
            let opts = SearchOptions {
                limit: *limit,
                graph: !*no_graph,
            };
            let results = index.search_with(query, opts)?;
            t.mark("search");
            notes(ctx, err, Some(&t), &index)?;
            let code = if results.results.is_empty() { EXIT_FAIL } else { EXIT_OK };
            match format {
                Format::Json => emit(out, json(&results)?.as_bytes(), code),
                Format::Text => emit(out, output::search_results(&results, ctx.out_paint).as_bytes(), code),
            }
        }
        Command::Pack {
            query,
            budget,
            candidates,
            no_graph,
            no_refresh,
            format,
        } => {
            let mut t = Timings::default();
            let budget = budget.unwrap_or(cfg.pack_budget);
            let index = open_index(ctx, cfg, err, *no_refresh)?;
            t.mark("refresh");
            let opts = SearchOptions {
                limit: *candidates,
                graph: !*no_graph,
            };
            let p = index.pack_with(query, budget, opts)?;
            t.mark("search and pack");
            notes(ctx, err, Some(&t), &index)?;
            let code = if p.items.is_empty() { EXIT_FAIL } else { EXIT_OK };
            match format {
                cli::PackFormat::Md => emit(out, p.markdown.as_bytes(), code),
                cli::PackFormat::Json => emit(out, json(&p)?.as_bytes(), code),
            }
        }
        Command::Neighbors {
            id,
            depth,
            edges,
            no_refresh,
            format,
        } => {
            let index = open_index(ctx, cfg, err, *no_refresh)?;
            let hood = index.neighbors(id, *depth as usize, edges)?;
            notes(ctx, err, None, &index)?;
            let text = match format {
                cli::GraphFormat::Text => hood.to_text(),
                cli::GraphFormat::Json => json(&hood)?,
                cli::GraphFormat::Mermaid => hood.to_mermaid(),
                cli::GraphFormat::Dot => hood.to_dot(),
            };
            emit(out, text.as_bytes(), EXIT_OK)
        }
        Command::Eval {
            queries,
            budget,
            candidates,
            no_graph,
            compare,
            per_query,
            no_refresh,
            format,
        } => {
            let path = cwd.join(queries);
            let name = queries.display().to_string();
            let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&name, e))?;
            let parsed = mdgraph::parse_queries(&name, &text)?;
            let budgets = if budget.is_empty() {
                vec![cfg.pack_budget]
            } else {
                budget.clone()
            };
            let graph = cfg.retrieval.graph.enabled && !*no_graph;
            if *compare && !cfg.retrieval.graph.enabled && !cli.quiet {
                ctx.warn(
                    err,
                    "--compare: retrieval.graph.enabled is false in the config; only the plain ranking is evaluated",
                )?;
            }
            let index = open_index(ctx, cfg, err, *no_refresh)?;
            let opts = mdgraph::EvalOptions {
                graph,
                no_graph: !graph || *compare,
                budgets,
                candidates: *candidates,
                tokenizer: index.config().settings.tokenizer,
            };
            let report = index.evaluate(&name, &parsed, &opts)?;
            notes(ctx, err, None, &index)?;
            if !cli.quiet {
                for w in &report.warnings {
                    ctx.warn(err, w)?;
                }
            }
            match format {
                Format::Json => emit(out, json(&report)?.as_bytes(), EXIT_OK),
                Format::Text => emit(out, report.to_text(&name, *per_query).as_bytes(), EXIT_OK),
            }
        }
        Command::Show { id, no_refresh, format } => {
            let index = open_index(ctx, cfg, err, *no_refresh)?;
            let view = index.node(id)?;
            notes(ctx, err, None, &index)?;
            match format {
                Format::Json => emit(out, json(&view)?.as_bytes(), EXIT_OK),
                Format::Text => emit(out, output::shown(&view, ctx.out_paint).as_bytes(), EXIT_OK),
            }
        }
        Command::Hook {
            action: HookAction::Install { force },
        } => {
            let (path, outcome) = mdgraph::install_hook(&cfg, *force)?;
            let path = cfg.display(&path);
            if !cli.quiet {
                match outcome {
                    mdgraph::HookOutcome::Unchanged => {
                        writeln!(err, "the pre-commit hook {path} is already installed")?
                    }
                    mdgraph::HookOutcome::Installed | mdgraph::HookOutcome::Replaced => writeln!(
                        err,
                        "{} the pre-commit hook {path}: `mdgraph check` runs before each commit (mdgraph must be on PATH)",
                        if outcome == mdgraph::HookOutcome::Installed {
                            "installed"
                        } else {
                            "replaced"
                        }
                    )?,
                }
            }
            Ok(EXIT_OK)
        }
    }
}

/// `mdgraph init`: the config goes to `--config FILE`, else `mdgraph.toml` in `--root`,
/// else in the working directory; the layout is looked for in `--root` (or the file's
/// folder).
fn init_command(ctx: &Ctx, cwd: &Path, err: &mut dyn Write) -> Result<i32, Failure> {
    let cli = ctx.cli;
    let dir = cwd.join(cli.root.as_deref().unwrap_or(Path::new(".")));
    let file = match &cli.config {
        Some(f) => cwd.join(f),
        None => dir.join(mdgraph::CONFIG_FILE),
    };
    let dir = match (&cli.root, &cli.config) {
        (None, Some(_)) => file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| cwd.to_path_buf()),
        _ => dir,
    };
    let index_dir = cli.index_dir.as_ref().map(|d| cwd.join(d));
    let shown = |p: &Path| mdgraph::shown_from(cwd, p);
    let written = mdgraph::init(&file, &dir, index_dir.as_deref(), shown)?;
    if !cli.quiet {
        writeln!(
            err,
            "detected {}",
            written.detected.describe(&shown(&written.detected.root))
        )?;
        if let Some(other) = &written.shadows {
            ctx.warn(
                err,
                &format!(
                    "{} takes precedence over {} below its folder",
                    shown(&file),
                    shown(other)
                ),
            )?;
        }
        // Only `mdgraph.toml` is found without `--config`.
        let found_alone = file.file_name().is_some_and(|n| n == mdgraph::CONFIG_FILE);
        let next = match file.parent() {
            Some(d) if d == cwd && found_alone => "mdgraph index".to_string(),
            _ => format!("mdgraph --config {} index", shown(&file)),
        };
        writeln!(err, "wrote {}; next: `{next}`", shown(&written.path))?;
    }
    Ok(EXIT_OK)
}
