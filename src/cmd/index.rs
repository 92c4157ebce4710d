//! `mdgraph index`: build or refresh the index. Text output is the diagnostics and a
//! summary on stderr; JSON is [`IndexJson`] on stdout.

use super::EXIT_OK;
use super::common::{Ctx, Failure, Format, build_summary, diagnostics, json};
use mdgraph::model::diag::{Diagnostic, Severity};
use mdgraph::{Config, Index, MetaCounts};
use std::io::Write;

/// Build or refresh the index (incremental; unchanged files are not re-parsed).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Re-parse every file instead of reusing unchanged ones.
    #[arg(long)]
    full: bool,
    /// Keep the index fresh: refresh it whenever files under the root change, one line
    /// per refresh, until Ctrl-C.
    #[arg(long, conflicts_with = "format")]
    watch: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// `mdgraph index --format json`.
#[derive(serde::Serialize)]
struct IndexJson<'a> {
    schema: &'static str,
    up_to_date: bool,
    parsed: usize,
    reused: usize,
    written: &'a [String],
    counts: &'a MetaCounts,
    diagnostics: &'a [Diagnostic],
}

/// Build the index and report on it.
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let cli = ctx.cli;
    let progress = ctx.progress();
    let report = Index::build(&cfg, args.full, progress.as_ref())?;
    drop(progress);
    match args.format {
        Format::Json => {
            out.write_all(
                json(&IndexJson {
                    schema: "mdgraph.index/1",
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
            // What the baseline file covers is not listed again (`mdgraph check -v` lists
            // it); a baseline that cannot be read is `check`'s error, a warning here.
            let baseline = mdgraph::Baseline::load(&cfg.baseline, &cfg.display(&cfg.baseline)).unwrap_or_else(|e| {
                let _ = ctx.warn(err, &e.to_string());
                None
            });
            let (listed, known) = match &baseline {
                Some(b) => {
                    let split = b.split(report.diagnostics.clone());
                    (split.new, Some(split.known.len()))
                }
                None => (report.diagnostics.clone(), None),
            };
            let shown: Vec<Diagnostic> = listed
                .into_iter()
                .filter(|d| !cli.quiet || d.severity == Severity::Error)
                .collect();
            err.write_all(diagnostics(&shown, ctx.err_paint).as_bytes())?;
            if !cli.quiet {
                let mut line = build_summary(&report);
                if let Some(n) = known {
                    line.push_str(&format!("; {n} known (baseline {})", cfg.display(&cfg.baseline)));
                }
                writeln!(err, "{line}")?;
            }
        }
    }
    if cli.verbose {
        writeln!(err, "{}", report.timings.render())?;
    }
    if args.watch {
        return watch(ctx, &cfg, err);
    }
    Ok(EXIT_OK)
}

/// Refresh the index whenever files under the root change (debounced, so an editor's
/// write-to-temp-and-rename is one change), until Ctrl-C or SIGTERM. An edited config is
/// loaded again (and the root it names watched); a root deleted and created again is
/// watched again.
fn watch(ctx: &Ctx, cfg: &Config, err: &mut dyn Write) -> Result<i32, Failure> {
    use notify_debouncer_mini::{new_debouncer, notify::RecursiveMode};
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, mpsc};
    use std::time::{Duration, Instant};

    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .map_err(|e| Failure::Error(mdgraph::Error::Other(format!("cannot catch Ctrl-C: {e}"))))?;
    let (tx, rx) = mpsc::channel();
    let mut debouncer = new_debouncer(Duration::from_millis(250), tx)
        .map_err(|e| Failure::Error(mdgraph::Error::Other(format!("cannot watch files: {e}"))))?;
    let ov = super::overrides(ctx.cli);
    let mut cfg = cfg.clone();
    // The folder (its inode) being watched as the root; None while there is none.
    let identity = |p: &Path| file_stamp(Some(p).filter(|p| p.is_dir())).map(|(ino, _, _)| ino);
    let mut watched: Option<(PathBuf, u64)> = None;
    let mut config_stamp = file_stamp(cfg.config_file.as_deref());
    let mut config_dir: Option<PathBuf> = None;
    let mut first = true;
    let mut pending = false;
    // Canonical root and index folder (for telling events apart), made again when the
    // config is loaded again.
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (mut root_canon, mut index_canon) = (canon(&cfg.root), canon(&cfg.index_dir));
    while !stop.load(Ordering::SeqCst) {
        // (Re)watch the root when it is new, back, or another folder now.
        let now = identity(&cfg.root).map(|ino| (cfg.root.clone(), ino));
        if now != watched {
            if let Some((old, _)) = watched.take() {
                let _ = debouncer.watcher().unwatch(&old);
                // Unwatching a folder drops the watches below it, the config's among them.
                config_dir = None;
            }
            if let Some((root, ino)) = now {
                match debouncer.watcher().watch(&root, RecursiveMode::Recursive) {
                    Ok(()) => watched = Some((root, ino)),
                    Err(e) if first => {
                        return Err(Failure::Error(mdgraph::Error::Other(format!(
                            "cannot watch {}: {e}",
                            cfg.display(&cfg.root)
                        ))));
                    }
                    Err(e) => ctx.warn(err, &format!("cannot watch {}: {e}", cfg.display(&cfg.root)))?,
                }
                pending |= !first;
            } else if first {
                return Err(Failure::Error(mdgraph::Error::NoRoot(cfg.root.clone())));
            }
        }
        // The config file shapes the index too: its folder is watched (an editor
        // replaces the file, which would end a watch on the file itself).
        // A config folder in the root is already watched (recursively): a second,
        // non-recursive watch on it would replace the root's and stop new folders from
        // being watched.
        let dir = cfg
            .config_file
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .filter(|d| !canon(d).starts_with(&root_canon));
        if dir != config_dir {
            if let Some(old) = config_dir.take() {
                let _ = debouncer.watcher().unwatch(&old);
            }
            if let Some(d) = &dir {
                let _ = debouncer.watcher().watch(d, RecursiveMode::NonRecursive);
            }
            config_dir = dir;
        }
        if first && !ctx.cli.quiet {
            writeln!(err, "watching {} (Ctrl-C to stop)", cfg.display(&cfg.root))?;
        }
        first = false;
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(Ok(events)) => {
                // Reading a file is an event too: the stamp tells an edit.
                let now = file_stamp(cfg.config_file.as_deref());
                if now != config_stamp {
                    config_stamp = now;
                    match mdgraph::Config::load(ctx.cwd, &ov) {
                        Ok(new) => {
                            if !ctx.cli.quiet {
                                writeln!(err, "config changed: loaded it again")?;
                            }
                            cfg = new;
                            (root_canon, index_canon) = (canon(&cfg.root), canon(&cfg.index_dir));
                            config_stamp = file_stamp(cfg.config_file.as_deref());
                            pending = true;
                            continue;
                        }
                        Err(e) => ctx.warn(err, &format!("config not loaded again: {e}"))?,
                    }
                }
                // The index folder's own writes (it may live under the root) are not
                // changes; nor are other files beside the config.
                let outside = |p: &Path| {
                    let c = canon(p);
                    !c.starts_with(&index_canon)
                        && !p.starts_with(&cfg.index_dir)
                        && (c.starts_with(&root_canon) || p.starts_with(&cfg.root))
                };
                pending |= events.iter().any(|e| outside(&e.path));
            }
            Ok(Err(e)) => ctx.warn(err, &format!("file watch: {e}"))?,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if !pending || watched.is_none() {
            continue;
        }
        pending = false;
        let started = Instant::now();
        match Index::build(&cfg, false, None) {
            Ok(report) if report.up_to_date => {}
            Ok(report) => {
                let errors = report
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == Severity::Error)
                    .count();
                writeln!(
                    err,
                    "refreshed in {} ms: {} parsed, {} unchanged; {errors} errors",
                    started.elapsed().as_millis(),
                    report.parsed,
                    report.reused
                )?;
            }
            // A bad moment (a file half written, the config mid-edit) is reported and
            // the watch goes on.
            Err(e) => ctx.warn(err, &format!("refresh failed: {e}"))?,
        }
    }
    if !ctx.cli.quiet {
        writeln!(err, "stopped watching")?;
    }
    Ok(EXIT_OK)
}

/// A file's identity and last change (inode, size, modification time), to tell when a
/// config file was edited or replaced; None when there is no file.
pub(crate) fn file_stamp(file: Option<&std::path::Path>) -> Option<(u64, u64, std::time::SystemTime)> {
    let md = std::fs::metadata(file?).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&md);
    #[cfg(not(unix))]
    let ino = 0;
    Some((ino, md.len(), md.modified().ok()?))
}
