//! `mdgraph init`: a starter `mdgraph.toml`. It runs before any configuration is read;
//! its output is a few lines on stderr.

use super::EXIT_OK;
use super::common::{Ctx, Failure};
use std::io::Write;
use std::path::Path;

/// Write a commented starter mdgraph.toml here (or in --root, or at --config FILE),
/// detecting the layout: kano items/decisions, Backlog.md, EIP-style `eip:` ids.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// The config goes to `--config FILE`, else `mdgraph.toml` in `--root`, else in the
/// working directory; the layout is looked for in `--root` (or the file's folder).
pub fn run(ctx: &Ctx, err: &mut dyn Write) -> Result<i32, Failure> {
    let cli = ctx.cli;
    let cwd = ctx.cwd;
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
