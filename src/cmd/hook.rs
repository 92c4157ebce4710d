//! `mdgraph hook`: git hooks. Output is one line on stderr.

use super::EXIT_OK;
use super::common::{Ctx, Failure};
use mdgraph::{Config, HookOutcome};
use std::io::Write;

/// Git hooks: `mdgraph hook install` checks commits, and rebuilds the index after merges
/// and rebases.
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
    /// a commit whose index is stale or whose backlog has errors; post-merge and
    /// post-rewrite rebuild the index after a merge or rebase; and define the merge
    /// driver `mdgraph` so the index files never conflict.
    Install {
        /// Replace existing hooks that mdgraph did not write.
        #[arg(long)]
        force: bool,
    },
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
            "post-merge" => "rebuilds the index after a merge and folds it into the merge commit",
            _ => "rebuilds the index after a rebase and folds it into the last commit",
        };
        match outcome {
            HookOutcome::Unchanged => writeln!(err, "the {name} hook {path} is already installed")?,
            HookOutcome::Installed => writeln!(err, "installed the {name} hook {path}: {what}")?,
            HookOutcome::Replaced => writeln!(err, "replaced the {name} hook {path}: {what}")?,
            HookOutcome::Kept => writeln!(
                err,
                "kept your {name} hook {path} (not written by mdgraph): add `mdgraph index` to it to rebuild the index after merges and rebases, or replace it with --force"
            )?,
        }
    }
    if done.merge_driver {
        writeln!(
            err,
            "defined the merge driver `mdgraph` in .git/config: merges keep one side's index files instead of conflicting"
        )?;
    } else {
        writeln!(
            err,
            "git is not on PATH: the merge driver `mdgraph` is not defined, so merges of the index may conflict"
        )?;
    }
    Ok(EXIT_OK)
}
