//! mdgraph: derive a deterministic, rebuildable context graph from a Markdown backlog
//! (work items and ADRs with YAML frontmatter) and answer questions from it.
//!
//! Indexing is one module per stage: [`scan`] → [`parse`] (with [`frontmatter`] and
//! [`markdown`]) → [`resolve`] → [`sidecar`] (and the [`store`] mirror), orchestrated by
//! [`index`]; [`check`] and [`show`] read the result. Queries: [`search`] (BM25 from
//! [`bm25`] over [`tokenize`]d text) → [`expand`] along the graph → re-rank → [`pack`]
//! into a token budget ([`tokens`], [`render`]); [`neighbors`] draws a neighborhood. The
//! binary is a thin layer over [`run`].

#![deny(missing_docs)]

pub mod bm25;
pub mod check;
pub mod cli;
pub mod config;
pub mod diag;
pub mod error;
pub mod eval;
pub mod expand;
pub mod frontmatter;
pub mod index;
pub mod lock;
pub mod markdown;
pub mod model;
pub mod neighbors;
pub mod output;
pub mod pack;
pub mod parse;
pub mod render;
pub mod resolve;
pub mod scan;
pub mod search;
pub mod show;
pub mod sidecar;
pub mod statcache;
pub mod store;
pub mod timing;
pub mod tokenize;
pub mod tokens;

use clap::Parser;
use cli::{Cli, Command, Format};
use config::{Config, Overrides};
use error::Error;
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: a check failed or nothing was found.
pub const EXIT_FAIL: i32 = 1;
/// Exit code: usage or runtime error.
pub const EXIT_ERROR: i32 = 2;

/// Run mdgraph with `args` (including the program name) in `cwd`, writing data to `out`
/// and messages to `err`. Returns the process exit code.
pub fn run(args: Vec<OsString>, cwd: &Path, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
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
    match execute(&cli, cwd, out, err) {
        Ok(code) => code,
        Err(Failure::Pipe) => EXIT_OK,
        Err(Failure::Error(e)) => {
            let _ = writeln!(err, "mdgraph: error: {e}");
            match e {
                Error::NotFound(_) => EXIT_FAIL,
                _ => EXIT_ERROR,
            }
        }
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

/// Bring the index (and the SQLite mirror, when enabled) up to date; print a summary when
/// something was rebuilt.
fn refresh(cfg: &Config, cli: &Cli, err: &mut dyn Write) -> Result<index::BuildReport, Failure> {
    let mut report = index::build(
        cfg,
        index::BuildOptions {
            full: false,
            write: true,
        },
    )?;
    sync_store(cfg, &mut report)?;
    if !report.up_to_date && !cli.quiet {
        writeln!(err, "{}", output::build_summary(&report))?;
    }
    Ok(report)
}

/// Messages after a query: phase timings under `--verbose`, and the engine's warning.
fn notes(cli: &Cli, err: &mut dyn Write, t: Option<&timing::Timings>, warning: Option<String>) -> Result<(), Failure> {
    if let Some(t) = t.filter(|_| cli.verbose) {
        writeln!(err, "{}", t.render())?;
    }
    if let Some(w) = warning {
        writeln!(err, "mdgraph: warning: {w}")?;
    }
    Ok(())
}

/// The whole index, or an error saying how to get one.
fn load_index(cfg: &Config) -> Result<sidecar::Loaded, Error> {
    sidecar::load(&cfg.index_dir).ok_or_else(|| {
        Error::Other(format!(
            "cannot read the index at {}; run `mdgraph index`",
            cfg.display(&cfg.index_dir)
        ))
    })
}

/// Make the index and the mirror current before a query: the stat-cache probe answers
/// "unchanged" from stats alone; otherwise the index is refreshed. With `--no-refresh` an
/// existing index is used as it is (the mirror is still synced with it).
fn prepare(cfg: &Config, cli: &Cli, err: &mut dyn Write, no_refresh: bool) -> Result<(), Failure> {
    if no_refresh && cfg.index_dir.join(sidecar::META).is_file() {
        if cfg.sqlite
            && let Err(e) = store::sync(&cfg.index_dir)
        {
            writeln!(err, "mdgraph: warning: cannot update the SQLite mirror: {e}")?;
        }
        return Ok(());
    }
    if let Some(sidecar) = statcache::probe(&cfg.index_dir, &cfg.root, &cfg.settings.digest())
        && (!cfg.sqlite || store::mirrors(&cfg.index_dir, &sidecar))
    {
        return Ok(());
    }
    refresh(cfg, cli, err)?;
    Ok(())
}

/// Update the SQLite mirror after a build, from the graph in memory when there is one.
fn sync_store(cfg: &Config, report: &mut index::BuildReport) -> Result<(), Error> {
    if !cfg.sqlite {
        return Ok(());
    }
    if report.up_to_date {
        store::sync(&cfg.index_dir)?;
    } else if !store::is_fresh(&cfg.index_dir, &report.meta) {
        store::rebuild(&cfg.index_dir, &report.meta, &report.graph.nodes, &report.graph.edges)?;
    }
    report.timings.mark("sqlite");
    Ok(())
}

fn execute(cli: &Cli, cwd: &Path, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
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
        _ => {}
    }
    let cfg = Config::load(cwd, &ov)?;
    match &cli.command {
        // Answered above, before any configuration is read.
        Command::Completions { .. } | Command::Man => Ok(EXIT_OK),
        Command::Index { full, format } => {
            let mut report = index::build(
                &cfg,
                index::BuildOptions {
                    full: *full,
                    write: true,
                },
            )?;
            sync_store(&cfg, &mut report)?;
            match format {
                Format::Json => {
                    #[derive(serde::Serialize)]
                    struct IndexJson<'a> {
                        up_to_date: bool,
                        parsed: usize,
                        reused: usize,
                        written: &'a [String],
                        counts: &'a sidecar::MetaCounts,
                        diagnostics: &'a [diag::Diagnostic],
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
                    let shown: Vec<diag::Diagnostic> = report
                        .diagnostics
                        .iter()
                        .filter(|d| !cli.quiet || d.severity == diag::Severity::Error)
                        .cloned()
                        .collect();
                    err.write_all(output::diagnostics(&shown).as_bytes())?;
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
            let report = check::check(&cfg, *strict)?;
            let code = if report.ok { EXIT_OK } else { EXIT_FAIL };
            match format {
                Format::Json => emit(out, json(&report)?.as_bytes(), code),
                Format::Text => {
                    if !cli.quiet {
                        writeln!(err, "{}", output::check_summary(&report))?;
                    }
                    emit(out, output::diagnostics(&report.diagnostics).as_bytes(), code)
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
            let mut t = timing::Timings::default();
            prepare(&cfg, cli, err, *no_refresh)?;
            t.mark("refresh");
            let graph = cfg.retrieval.graph.enabled && !*no_graph;
            let (results, warning) =
                search::with_engine(&cfg, |e| search::search(e, query, &cfg.retrieval, *limit, graph))?;
            t.mark("search");
            notes(cli, err, Some(&t), warning)?;
            let code = if results.results.is_empty() { EXIT_FAIL } else { EXIT_OK };
            match format {
                Format::Json => emit(out, json(&results)?.as_bytes(), code),
                Format::Text => emit(out, output::search_results(&results).as_bytes(), code),
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
            let mut t = timing::Timings::default();
            prepare(&cfg, cli, err, *no_refresh)?;
            t.mark("refresh");
            let graph = cfg.retrieval.graph.enabled && !*no_graph;
            let budget = budget.unwrap_or(cfg.pack_budget);
            let (p, warning) = search::with_engine(&cfg, |e| {
                let results = search::search(e, query, &cfg.retrieval, *candidates, graph)?;
                Ok(pack::pack(e, query, &results.results, budget, cfg.settings.tokenizer))
            })?;
            t.mark("search and pack");
            notes(cli, err, Some(&t), warning)?;
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
            prepare(&cfg, cli, err, *no_refresh)?;
            let (hood, warning) = search::with_engine(&cfg, |e| {
                // Ids resolve through the engine; only a path needs the whole sidecar.
                let root = match e.node(id).map(|n| n.id).or_else(|| e.exact_id(id)) {
                    Some(root) => root,
                    None => show::find(&load_index(&cfg)?, id)?.id.clone(),
                };
                Ok(neighbors::neighborhood(e, &root, *depth as usize, edges))
            })?;
            notes(cli, err, None, warning)?;
            let text = match format {
                cli::GraphFormat::Text => neighbors::to_text(&hood),
                cli::GraphFormat::Json => json(&hood)?,
                cli::GraphFormat::Mermaid => neighbors::to_mermaid(&hood),
                cli::GraphFormat::Dot => neighbors::to_dot(&hood),
            };
            out.write_all(text.as_bytes())?;
            Ok(EXIT_OK)
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
            let parsed = eval::parse_queries(&name, &text)?;
            prepare(&cfg, cli, err, *no_refresh)?;
            let loaded = load_index(&cfg)?;
            let keys = eval::Keys::new(&loaded.nodes);
            drop(loaded);
            let graph = cfg.retrieval.graph.enabled && !*no_graph;
            let opts = eval::Options {
                graph,
                no_graph: !graph || *compare,
                budgets: if budget.is_empty() {
                    vec![cfg.pack_budget]
                } else {
                    budget.clone()
                },
                candidates: *candidates,
                tokenizer: cfg.settings.tokenizer,
            };
            let (report, warning) = search::with_engine(&cfg, |e| {
                eval::evaluate(e, &cfg.retrieval, &keys, &name, &parsed, &opts)
            })?;
            notes(cli, err, None, warning)?;
            if !cli.quiet {
                for w in &report.warnings {
                    writeln!(err, "mdgraph: warning: {w}")?;
                }
            }
            match format {
                Format::Json => emit(out, json(&report)?.as_bytes(), EXIT_OK),
                Format::Text => emit(out, eval::to_text(&report, &name, *per_query).as_bytes(), EXIT_OK),
            }
        }
        Command::Show { id, no_refresh, format } => {
            prepare(&cfg, cli, err, *no_refresh)?;
            let loaded = load_index(&cfg)?;
            let view = show::show(&loaded, id)?;
            match format {
                Format::Json => out.write_all(json(&view)?.as_bytes())?,
                Format::Text => out.write_all(output::shown(&view).as_bytes())?,
            }
            Ok(EXIT_OK)
        }
    }
}
