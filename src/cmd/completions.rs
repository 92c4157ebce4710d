//! `mdgraph completions` and `mdgraph man`: generated from the command-line definition,
//! before any configuration is read.

use super::common::{Failure, emit};
use super::{Cli, EXIT_OK};
use clap::CommandFactory;
use mdgraph::Error;
use std::io::Write;

/// Print a shell completion script (bash, zsh, fish, elvish, powershell).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell.
    shell: clap_complete::Shell,
}

/// Print the man page (roff) to stdout: `mdgraph man > mdgraph.1`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {}

/// Print the completion script for `args.shell`.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<i32, Failure> {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "mdgraph", &mut buf);
    emit(out, &buf, EXIT_OK)
}

/// Print the man page.
pub fn run_man(out: &mut dyn Write) -> Result<i32, Failure> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut buf)
        .map_err(|e| Failure::Error(Error::io("<stdout>", e)))?;
    emit(out, &buf, EXIT_OK)
}
