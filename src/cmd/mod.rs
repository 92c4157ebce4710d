//! The command line. One file per command holds its arguments (a clap `Args` struct whose
//! doc comment is the command's help), its run function, its JSON shape and its text
//! output; [`common`] holds what several commands share (the run's context, writing
//! output, opening the index, diagnostics and the build summary) and [`term`] the
//! terminal manners. This file holds the global flags, the list of commands and the
//! dispatch. Everything here speaks to the library through its public API.

mod baseline;
mod check;
mod common;
mod completions;
mod eval;
mod hook;
mod index;
mod init;
mod list;
mod mcp;
mod neighbors;
mod pack;
mod ready;
mod search;
mod show;
mod site;
pub mod term;
#[cfg(test)]
mod tests;
mod tree;
#[cfg(unix)]
mod vouch;
mod watch;

use clap::{Parser, Subcommand};
use common::{Ctx, Failure};
use mdgraph::{Config, Error, Index, Overrides};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use term::Terminal;

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: a check failed or nothing was found.
pub const EXIT_FAIL: i32 = 1;
/// Exit code: usage or runtime error.
pub const EXIT_ERROR: i32 = 2;

/// Derive a context graph from a Markdown backlog and answer questions from it.
#[derive(Debug, Parser)]
#[command(name = "mdgraph", version, about, propagate_version = true)]
pub struct Cli {
    /// Config file (default: mdgraph.toml in the working directory or an ancestor).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Backlog root (overrides `root` in the config).
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Index folder (overrides `index_dir` in the config).
    #[arg(long, global = true, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
    /// Print only errors.
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Do not build or use the SQLite mirror (search runs from the JSONL sidecar).
    #[arg(long, global = true)]
    pub no_sqlite: bool,
    /// Print phase timings and more detail.
    #[arg(long, short, global = true)]
    pub verbose: bool,
    /// When to use colour: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN")]
    pub color: term::ColorChoice,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands, in the order `--help` lists them. Each one's help text is the doc
/// comment of its `Args` struct, in its own file.
#[derive(Debug, Subcommand)]
pub enum Command {
    Index(index::Args),
    Check(check::Args),
    Baseline(baseline::Args),
    Search(search::Args),
    Pack(pack::Args),
    List(list::Args),
    Ready(ready::Args),
    Tree(tree::Args),
    Neighbors(neighbors::Args),
    Eval(eval::Args),
    Init(init::Args),
    Hook(hook::Args),
    Completions(completions::Args),
    Man(completions::ManArgs),
    Show(show::Args),
    Site(site::Args),
    Mcp(mcp::Args),
    #[command(hide = true)]
    MergeDriver(hook::MergeDriverArgs),
}

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
    mdgraph::record_memory(cli.verbose);
    let ctx = Ctx::new(&cli, cwd, term);
    match execute(&ctx, out, err) {
        Ok(code) => code,
        Err(Failure::Pipe) => EXIT_OK,
        Err(Failure::Error(e)) => {
            let _ = writeln!(err, "mdgraph: {} {e}", ctx.err_paint.error("error:"));
            match e {
                Error::NotFound { .. } => EXIT_FAIL,
                _ => EXIT_ERROR,
            }
        }
    }
}

/// Run the command; completions, man and init need no configuration and run before any
/// is read.
fn execute(ctx: &Ctx, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    match &ctx.cli.command {
        Command::Completions(args) => completions::run(args, out),
        Command::Man(_) => completions::run_man(out),
        Command::MergeDriver(args) => hook::merge_driver(args, err),
        Command::Init(_) => init::run(ctx, err),
        Command::Index(args) => index::run(ctx, args, config(ctx, err)?, out, err),
        Command::Check(args) => check::run(ctx, args, config(ctx, err)?, out, err),
        Command::Baseline(args) => baseline::run(ctx, args, config(ctx, err)?, out, err),
        Command::Search(args) => search::run(ctx, args, config(ctx, err)?, out, err),
        Command::Pack(args) => pack::run(ctx, args, config(ctx, err)?, out, err),
        Command::List(args) => list::run(ctx, args, config(ctx, err)?, out, err),
        Command::Ready(args) => ready::run(ctx, args, config(ctx, err)?, out, err),
        Command::Tree(args) => tree::run(ctx, args, config(ctx, err)?, out, err),
        Command::Neighbors(args) => neighbors::run(ctx, args, config(ctx, err)?, out, err),
        Command::Eval(args) => eval::run(ctx, args, config(ctx, err)?, out, err),
        Command::Show(args) => show::run(ctx, args, config(ctx, err)?, out, err),
        Command::Site(args) => site::run(ctx, args, config(ctx, err)?, out, err),
        Command::Hook(args) => hook::run(ctx, args, config(ctx, err)?, err),
        Command::Mcp(args) => mcp::run(ctx, args, config(ctx, err)?, err),
    }
}

/// The overrides the global flags give (long-running commands, `mcp` and `index
/// --watch`, load the config again with them when the config file changes).
pub(crate) fn overrides(cli: &Cli) -> Overrides {
    Overrides {
        config: cli.config.clone(),
        root: cli.root.clone(),
        index_dir: cli.index_dir.clone(),
        no_sqlite: cli.no_sqlite,
    }
}

/// The configuration the global flags select, validated; a commit a killed run left half
/// done is finished before anything reads the index.
fn config(ctx: &Ctx, err: &mut dyn Write) -> Result<Config, Failure> {
    let cli = ctx.cli;
    let ov = overrides(cli);
    // The hook judges what git will commit: the staged config, never an untracked one, and
    // not stopped by a broken or deleted working-tree one.
    let staged = matches!(&cli.command, Command::Check(a) if a.staged());
    let cfg = match staged {
        true => mdgraph::staged_config_of(ctx.cwd, &ov, Config::load(ctx.cwd, &ov))?,
        false => Config::load(ctx.cwd, &ov)?,
    };
    // Outside any configured backlog a query would index the working directory into a
    // new `_index/` there; say so instead (`index`, `hook` and `--root` ask for it
    // explicitly, and so does the hook's `check --staged`: a commit without a config).
    let explicit = staged
        || cli.root.is_some()
        || cli.index_dir.is_some()
        || matches!(cli.command, Command::Index(_) | Command::Hook(_));
    if cfg.config_file.is_none() && !explicit {
        return Err(Failure::Error(Error::Other(format!(
            "no {} in {} or any folder above it: run `mdgraph init` to set one up, or pass --root",
            mdgraph::CONFIG_FILE,
            mdgraph::shown_from(ctx.cwd, ctx.cwd),
        ))));
    }
    Index::recover(&cfg)?;
    if mdgraph::index_meta_damaged(&cfg.index_dir) {
        // A note, not an error: the index is derived data, rebuilt as if it had none.
        let _ = writeln!(
            err,
            "mdgraph: note: {} is damaged (no index record); the index is rebuilt from the sources",
            cfg.display(&cfg.index_dir.join("meta.json"))
        );
    }
    Ok(cfg)
}
