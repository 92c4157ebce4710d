//! `mdgraph hook`: git hooks. Output is one line on stderr.

use super::EXIT_OK;
use super::common::{Ctx, Failure};
use mdgraph::{Config, HookOutcome};
use std::io::Write;

/// Git hooks: `mdgraph hook install` writes a pre-commit hook running `mdgraph check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    action: Action,
}

/// `mdgraph hook` actions.
#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Write the git pre-commit hook (in `git rev-parse --git-path hooks`: worktrees and
    /// core.hooksPath are honoured); it runs `mdgraph check` and refuses a commit whose
    /// index is stale or whose backlog has errors.
    Install {
        /// Replace an existing pre-commit hook.
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

/// `mdgraph hook install`.
fn install(ctx: &Ctx, cfg: &Config, force: bool, err: &mut dyn Write) -> Result<i32, Failure> {
    let (path, outcome) = mdgraph::install_hook(cfg, force)?;
    let path = cfg.display(&path);
    if !ctx.cli.quiet {
        match outcome {
            HookOutcome::Unchanged => writeln!(err, "the pre-commit hook {path} is already installed")?,
            HookOutcome::Installed | HookOutcome::Replaced => writeln!(
                err,
                "{} the pre-commit hook {path}: `mdgraph check --staged` runs before each commit (mdgraph must be on PATH)",
                if outcome == HookOutcome::Installed {
                    "installed"
                } else {
                    "replaced"
                }
            )?,
        }
    }
    Ok(EXIT_OK)
}
