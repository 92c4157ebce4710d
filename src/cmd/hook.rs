//! `mdgraph hook`: git hooks. Output is one line on stderr.

use super::EXIT_OK;
use super::common::{Ctx, Failure};
use mdgraph::{Config, HookOutcome};
use std::io::Write;

/// Git hooks: `mdgraph hook install` checks commits, and refreshes the local index after
/// merges and rebases (no hook ever commits).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    action: Action,
}

/// `mdgraph hook` actions.
#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Write the git hooks (in `git rev-parse --git-path hooks`: worktrees and
    /// core.hooksPath are honoured): pre-commit runs `mdgraph check --staged` and refuses
    /// a commit whose staged backlog has new errors (or, in commit mode, whose staged
    /// index is stale), and so does pre-merge-commit for a merge's commit; post-merge and
    /// post-rewrite say when the commit just made is stale and refresh the working tree's
    /// index, and never commit. In commit mode, define the merge driver `mdgraph`, which merges the
    /// committed index files record by record.
    Install {
        /// Replace existing hooks that mdgraph did not write.
        #[arg(long)]
        force: bool,
    },
}

/// The merge driver git runs for a committed index (`mdgraph hook install` defines it;
/// the index folder's `.gitattributes` names it): merges one index file's records.
#[derive(Debug, clap::Args)]
pub struct MergeDriverArgs {
    /// The common ancestor's version (`%O`).
    base: std::path::PathBuf,
    /// Ours (`%A`): the merged file is written here.
    ours: std::path::PathBuf,
    /// Theirs (`%B`).
    theirs: std::path::PathBuf,
    /// The file's path in the repository (`%P`).
    path: String,
}

/// Merge one index file; exit 0 when it merged without a guess, else 1 (git then shows
/// the file as conflicted, ours in the working tree) with what to run.
pub fn merge_driver(args: &MergeDriverArgs, err: &mut dyn Write) -> Result<i32, Failure> {
    match mdgraph::run_merge_driver(&args.base, &args.ours, &args.theirs, &args.path)? {
        None => Ok(EXIT_OK),
        Some(why) => {
            writeln!(
                err,
                "mdgraph merge driver: {}: {why}; not merged. Resolve the Markdown conflicts, then run \
                 `mdgraph index` and `git add` the index folder",
                args.path
            )?;
            Ok(super::EXIT_FAIL)
        }
    }
}

/// Run the hook action.
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, err: &mut dyn Write) -> Result<i32, Failure> {
    match args.action {
        Action::Install { force } => install(ctx, &cfg, force, err),
    }
}

/// `mdgraph hook install`: one line per hook, then the merge driver.
fn install(ctx: &Ctx, cfg: &Config, force: bool, err: &mut dyn Write) -> Result<i32, Failure> {
    let done = mdgraph::install_hook(cfg, force)?;
    if ctx.cli.quiet {
        return Ok(EXIT_OK);
    }
    for (name, path, outcome) in &done.hooks {
        let path = cfg.display(path);
        let what = match *name {
            "pre-commit" => "`mdgraph check --staged` runs before each commit (mdgraph must be on PATH)",
            "pre-merge-commit" => "`mdgraph check --staged` runs before git commits a merge it made",
            "post-merge" => {
                "says when a merge's commit is stale or has new errors, and brings the working tree's index up to date (it never commits)"
            }
            _ => {
                "says when a rewritten commit is stale or has new errors, and brings the working tree's index up to date (it never commits)"
            }
        };
        match outcome {
            HookOutcome::Unchanged => writeln!(err, "the {name} hook {path} is already installed")?,
            HookOutcome::Installed => writeln!(err, "installed the {name} hook {path}: {what}")?,
            HookOutcome::Replaced => writeln!(err, "replaced the {name} hook {path}: {what}")?,
            HookOutcome::Kept if *name == "pre-merge-commit" => writeln!(
                err,
                "kept your {name} hook {path} (not written by mdgraph): add `mdgraph check --staged` to it so merges are judged, or replace it with --force"
            )?,
            HookOutcome::Kept => writeln!(
                err,
                "kept your {name} hook {path} (not written by mdgraph): add `mdgraph index` to it to rebuild the index after merges and rebases, or replace it with --force"
            )?,
        }
    }
    if cfg.commit_index {
        if done.merge_driver {
            writeln!(
                err,
                "defined the merge driver `mdgraph` in .git/config: merges of the committed index merge its records"
            )?;
        } else {
            writeln!(
                err,
                "git is not on PATH: the merge driver `mdgraph` is not defined, so merges of the index may conflict"
            )?;
        }
    }
    // Adopting on a backlog with old errors: say so before the first commit is refused.
    let opts = mdgraph::CheckOptions {
        strict: false,
        baseline: true,
        staged: false,
    };
    if let Ok(report) = mdgraph::Index::check_with(cfg, opts)
        && report.new > 0
    {
        let errors = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == mdgraph::model::diag::Severity::Error)
            .count();
        if errors > 0 {
            writeln!(
                err,
                "the backlog has {errors} errors today that no baseline records: a commit is refused while it \
                 has errors; run `mdgraph baseline` (and commit {}) to record them, so that only new ones refuse a commit",
                cfg.display(&cfg.baseline)
            )?;
        }
    }
    Ok(EXIT_OK)
}
