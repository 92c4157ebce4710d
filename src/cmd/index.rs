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

/// How long edits are gathered before a refresh (an editor's write-to-temp-and-rename is
/// one change); a sync from a query applies them at once.
const COALESCE: std::time::Duration = std::time::Duration::from_millis(250);

/// What the watch loop receives: file events, and (Unix) syncs from queries.
enum Msg {
    Fs(notify::Result<notify::Event>),
    #[cfg(unix)]
    Sync(String, std::sync::mpsc::Sender<super::vouch::Answer>),
}

/// A query waiting for its cookie's event (Unix).
#[cfg(unix)]
struct Waiting {
    /// The cookie's file name, and the file.
    cookie: String,
    file: std::path::PathBuf,
    /// The config key the query asked with.
    key: String,
    reply: std::sync::mpsc::Sender<super::vouch::Answer>,
    since: std::time::Instant,
}

/// Refresh the index whenever files under the root change (edits coalesced for
/// [`COALESCE`]), until Ctrl-C or SIGTERM. An edited config is loaded again (and the root
/// it names watched); a root deleted and created again is watched again. On Unix the
/// watcher also vouches for the index to queries, on a socket in the index folder (see
/// [`super::vouch`]): a sync's cookie is handled as soon as its event arrives, after
/// every earlier event, and pending edits are applied before the token is given.
fn watch(ctx: &Ctx, cfg: &Config, err: &mut dyn Write) -> Result<i32, Failure> {
    use notify::event::CreateKind;
    use notify::{EventKind, RecursiveMode, Watcher};
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, mpsc};
    use std::time::{Duration, Instant};

    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .map_err(|e| Failure::Error(mdgraph::Error::Other(format!("cannot catch Ctrl-C: {e}"))))?;
    let (tx, rx) = mpsc::channel::<Msg>();
    let fs_tx = tx.clone();
    let mut watcher = notify::recommended_watcher(move |ev| {
        let _ = fs_tx.send(Msg::Fs(ev));
    })
    .map_err(|e| Failure::Error(mdgraph::Error::Other(format!("cannot watch files: {e}"))))?;
    let ov = super::overrides(ctx.cli);
    let mut cfg = cfg.clone();
    // The folder (its inode) being watched as the root; None while there is none.
    let identity = |p: &Path| file_stamp(Some(p).filter(|p| p.is_dir())).map(|(ino, _, _)| ino);
    let mut watched: Option<(PathBuf, u64)> = None;
    let mut config_stamp = file_stamp(cfg.config_file.as_deref());
    let mut config_dir: Option<PathBuf> = None;
    // The index folder's own watch, when it is outside the root (the cookies are there).
    let mut index_watch: Option<PathBuf> = None;
    let mut first = true;
    let mut pending = false;
    // When the edits gathered so far are applied.
    let mut due: Option<Instant> = None;
    // A folder was created since the last refresh: refresh once more after it, for files
    // made in it before the new folder's own watch was set up.
    let mut new_folder = false;
    // Canonical root and index folder (for telling events apart), made again when the
    // config is loaded again.
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (mut root_canon, mut index_canon) = (canon(&cfg.root), canon(&cfg.index_dir));

    // Vouching (Unix): the socket, this run, and the index it vouches for.
    #[cfg(unix)]
    let run = super::vouch::new_run();
    #[cfg(unix)]
    // True while the loop builds: a sync waiting behind a build is told `building` at
    // once (the query waits for this build rather than probe and build it again).
    #[cfg(unix)]
    let building = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    let handler: Arc<super::vouch::Handler> = {
        let (tx, building) = (tx.clone(), building.clone());
        Arc::new(move |key: &str, answer: &mut dyn FnMut(super::vouch::Answer) -> bool| {
            use super::vouch::{Answer, BUILD_WAIT, COOKIE_WAIT};
            let (rtx, rrx) = mpsc::channel();
            if tx.send(Msg::Sync(key.to_string(), rtx)).is_err() {
                answer(Answer::No("the watcher is stopping".into()));
                return;
            }
            let mut deadline = Instant::now() + COOKIE_WAIT + Duration::from_millis(100);
            let mut told = false;
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match rrx.recv_timeout(left.min(Duration::from_millis(10))) {
                    Ok(Answer::Building) => {
                        if !told && !answer(Answer::Building) {
                            return;
                        }
                        told = true;
                        deadline = Instant::now() + BUILD_WAIT;
                    }
                    Ok(a) => {
                        answer(a);
                        return;
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) if building.load(Ordering::SeqCst) => {
                        if !told && !answer(Answer::Building) {
                            return;
                        }
                        told = true;
                        deadline = Instant::now() + BUILD_WAIT;
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) if !left.is_zero() => {}
                    Err(_) => {
                        answer(Answer::No("the watcher did not answer in time".into()));
                        return;
                    }
                }
            }
        })
    };
    // The socket, and the index folder it was tried in (a failure is not tried again
    // for the same folder).
    #[cfg(unix)]
    let mut server: Option<super::vouch::Server> = None;
    #[cfg(unix)]
    let mut tried: Option<PathBuf> = None;
    #[cfg(unix)]
    let mut key = super::vouch::config_key(&cfg);
    #[cfg(unix)]
    let (mut seq, mut cookies): (u64, u64) = (0, 0);
    // The digest of the index this run last made or found fresh; None: doubt (a full
    // refresh comes before the next token).
    #[cfg(unix)]
    let mut vouched: Option<String> = None;
    // False once the file watch reported an error (it may miss events): no tokens until
    // the root is watched again.
    #[cfg(unix)]
    let mut sound = true;
    #[cfg(unix)]
    let (mut waiting, mut ready): (Vec<Waiting>, Vec<Waiting>) = (Vec::new(), Vec::new());

    while !stop.load(Ordering::SeqCst) {
        // (Re)watch the root when it is new, back, or another folder now.
        let now = identity(&cfg.root).map(|ino| (cfg.root.clone(), ino));
        if now != watched {
            if let Some((old, _)) = watched.take() {
                let _ = watcher.unwatch(&old);
                // Unwatching a folder drops the watches below it, the config's among them.
                config_dir = None;
            }
            if let Some((root, ino)) = now {
                match watcher.watch(&root, RecursiveMode::Recursive) {
                    Ok(()) => {
                        watched = Some((root, ino));
                        #[cfg(unix)]
                        {
                            sound = true;
                            vouched = None;
                        }
                    }
                    Err(e) if first => {
                        return Err(Failure::Error(mdgraph::Error::Other(format!(
                            "cannot watch {}: {e}",
                            cfg.display(&cfg.root)
                        ))));
                    }
                    Err(e) => ctx.warn(err, &format!("cannot watch {}: {e}", cfg.display(&cfg.root)))?,
                }
                if !first {
                    pending = true;
                    due.get_or_insert(Instant::now());
                }
            } else if first {
                return Err(Failure::Error(mdgraph::Error::NoRoot(cfg.root.clone())));
            }
        }
        // The config file shapes the index too: its folder is watched (an editor
        // replaces the file, which would end a watch on the file itself).
        // A config folder in the root is already watched (recursively): a second,
        // non-recursive watch on it would replace the root's and stop new folders from
        // being watched. The same holds for the index folder, watched for the cookies.
        let outside_root = |d: &PathBuf| !canon(d).starts_with(&root_canon);
        let dir = cfg
            .config_file
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .filter(outside_root);
        if dir != config_dir {
            if let Some(old) = config_dir.take() {
                let _ = watcher.unwatch(&old);
            }
            if let Some(d) = &dir {
                let _ = watcher.watch(d, RecursiveMode::NonRecursive);
            }
            config_dir = dir;
        }
        let ix = Some(cfg.index_dir.clone())
            .filter(outside_root)
            .filter(|d| config_dir.as_ref() != Some(d));
        if ix != index_watch {
            if let Some(old) = index_watch.take() {
                let _ = watcher.unwatch(&old);
            }
            if let Some(d) = &ix {
                let _ = watcher.watch(d, RecursiveMode::NonRecursive);
            }
            index_watch = ix;
        }
        // The socket lives in the index folder: started there, or moved with it.
        #[cfg(unix)]
        if watched.is_some() && tried.as_ref() != Some(&cfg.index_dir) {
            server = None;
            tried = Some(cfg.index_dir.clone());
            match super::vouch::Server::start(&cfg.index_dir, &run, handler.clone()) {
                Ok(s) => {
                    if ctx.cli.verbose {
                        writeln!(
                            err,
                            "vouching for the index on {} (run {})",
                            cfg.display(&cfg.index_dir.join(super::vouch::SOCKET)),
                            s.run()
                        )?;
                    }
                    server = Some(s);
                }
                Err(e) => ctx.warn(err, &format!("not vouching for the index to queries: {e}"))?,
            }
        }
        if first && !ctx.cli.quiet {
            writeln!(err, "watching {} (Ctrl-C to stop)", cfg.display(&cfg.root))?;
        }
        first = false;
        let mut wait = Duration::from_millis(200);
        if let Some(d) = due {
            wait = wait.min(d.saturating_duration_since(Instant::now()));
        }
        #[cfg(unix)]
        if !waiting.is_empty() {
            wait = wait.min(Duration::from_millis(10));
        }
        match rx.recv_timeout(wait) {
            Ok(Msg::Fs(Ok(event))) => {
                #[cfg(unix)]
                for p in &event.paths {
                    let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
                        continue;
                    };
                    if let Some(i) = waiting.iter().position(|w| w.cookie == name) {
                        ready.push(waiting.swap_remove(i));
                    }
                }
                // Reading a file is an event too: the stamp tells an edit.
                let now = file_stamp(cfg.config_file.as_deref());
                if now != config_stamp {
                    config_stamp = now;
                    match mdgraph::Config::load(ctx.cwd, &ov) {
                        Ok(new) => {
                            if !ctx.cli.quiet {
                                writeln!(err, "config changed: loaded it again")?;
                            }
                            // The stamp read before loading stays: a write during the load
                            // is then seen as the next change (a stamp read after it would
                            // hide it). Another config file is stamped afresh.
                            if new.config_file != cfg.config_file {
                                config_stamp = file_stamp(new.config_file.as_deref());
                            }
                            cfg = new;
                            (root_canon, index_canon) = (canon(&cfg.root), canon(&cfg.index_dir));
                            pending = true;
                            due = Some(Instant::now());
                            #[cfg(unix)]
                            {
                                key = super::vouch::config_key(&cfg);
                                vouched = None;
                            }
                        }
                        Err(e) => ctx.warn(err, &format!("config not loaded again: {e}"))?,
                    }
                }
                // The index folder's own writes (it may live under the root) are not
                // changes; nor are other files beside the config, nor reads.
                let outside = |p: &Path| {
                    let c = canon(p);
                    !c.starts_with(&index_canon)
                        && !p.starts_with(&cfg.index_dir)
                        && (c.starts_with(&root_canon) || p.starts_with(&cfg.root))
                };
                let change = !matches!(event.kind, EventKind::Access(_)) && event.paths.iter().any(|p| outside(p));
                if change || event.need_rescan() {
                    pending = true;
                    due.get_or_insert(Instant::now() + COALESCE);
                    new_folder |= matches!(event.kind, EventKind::Create(CreateKind::Folder | CreateKind::Any));
                }
            }
            Ok(Msg::Fs(Err(e))) => {
                ctx.warn(err, &format!("file watch: {e}"))?;
                pending = true;
                due.get_or_insert(Instant::now() + COALESCE);
                #[cfg(unix)]
                {
                    sound = false;
                }
            }
            #[cfg(unix)]
            Ok(Msg::Sync(asked, reply)) => {
                use super::vouch::{Answer, COOKIE_PREFIX};
                let refused = if watched.is_none() {
                    Some("the root is not being watched".to_string())
                } else if !sound {
                    Some("the file watch failed; restart the watcher".to_string())
                } else if asked != key {
                    Some("this watcher watches another root, index folder or configuration".to_string())
                } else {
                    cookies += 1;
                    let cookie = format!("{COOKIE_PREFIX}{run}-{cookies}");
                    let file = cfg.index_dir.join(&cookie);
                    match std::fs::File::create(&file) {
                        Ok(_) => {
                            waiting.push(Waiting {
                                cookie,
                                file,
                                key: asked,
                                reply: reply.clone(),
                                since: Instant::now(),
                            });
                            None
                        }
                        Err(e) => Some(format!("cannot write a cookie file: {e}")),
                    }
                };
                if let Some(why) = refused {
                    let _ = reply.send(Answer::No(why));
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        // Cookies never seen: the watch on the index folder is not working.
        #[cfg(unix)]
        waiting.retain(|w| {
            let late = w.since.elapsed() > super::vouch::COOKIE_WAIT;
            if late {
                let _ = w
                    .reply
                    .send(super::vouch::Answer::No("its cookie was never seen".into()));
                let _ = std::fs::remove_file(&w.file);
            }
            !late
        });
        #[cfg(unix)]
        let asked = !ready.is_empty();
        #[cfg(not(unix))]
        let asked = false;
        let time = due.is_some_and(|d| d <= Instant::now());
        if pending && watched.is_some() && (time || asked) {
            #[cfg(unix)]
            for w in &ready {
                let _ = w.reply.send(super::vouch::Answer::Building);
            }
            pending = false;
            due = None;
            if std::mem::take(&mut new_folder) {
                pending = true;
                due = Some(Instant::now() + COALESCE);
            }
            let started = Instant::now();
            #[cfg(unix)]
            building.store(true, Ordering::SeqCst);
            let built = Index::build(&cfg, false, None);
            #[cfg(unix)]
            building.store(false, Ordering::SeqCst);
            match built {
                Ok(report) => {
                    #[cfg(unix)]
                    {
                        let now = Index::digest(&cfg);
                        seq += u64::from(now != vouched);
                        vouched = now;
                    }
                    // What changed in the stat cache's racy window (2 s) it cannot vouch
                    // for: once that has passed, one more (cheap) run records it, so the
                    // next edit takes the short cut (`mdgraph index` docs).
                    if !report.up_to_date && due.is_none() {
                        pending = true;
                        due = Some(Instant::now() + SETTLE);
                    }
                    if !report.up_to_date {
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
                }
                // A bad moment (a file half written, the config mid-edit) is reported and
                // the watch goes on.
                Err(e) => {
                    #[cfg(unix)]
                    {
                        vouched = None;
                    }
                    ctx.warn(err, &format!("refresh failed: {e}"))?
                }
            }
        }
        // Every event before these cookies has been taken in: vouch for the index, after
        // a full refresh (the probe) when this run has not made or seen it.
        #[cfg(unix)]
        for w in ready.drain(..) {
            use super::vouch::{Answer, Token};
            if vouched.is_none() || Index::digest(&cfg) != vouched {
                let _ = w.reply.send(Answer::Building);
                building.store(true, Ordering::SeqCst);
                let refreshed = Index::refresh(&cfg, None);
                building.store(false, Ordering::SeqCst);
                match refreshed {
                    Ok(_) => {
                        let now = Index::digest(&cfg);
                        seq += u64::from(now != vouched);
                        vouched = now;
                    }
                    Err(e) => {
                        vouched = None;
                        ctx.warn(err, &format!("refresh failed: {e}"))?;
                    }
                }
            }
            let answer = match &vouched {
                // The config was loaded again since the query asked.
                Some(_) if w.key != key => {
                    Answer::No("this watcher watches another root, index folder or configuration".into())
                }
                Some(digest) => Answer::Token(Token {
                    run: run.clone(),
                    seq,
                    digest: digest.clone(),
                }),
                None => Answer::No("the index could not be refreshed".into()),
            };
            let _ = w.reply.send(answer);
            let _ = std::fs::remove_file(&w.file);
        }
    }
    // The socket and the run file go first: a query from now on probes.
    #[cfg(unix)]
    drop(server);
    if !ctx.cli.quiet {
        writeln!(err, "stopped watching")?;
    }
    Ok(EXIT_OK)
}

/// A file's identity and last change (inode, size, modification time), to tell when a
/// config file was edited or replaced; None when there is no file.
/// How long after a build that changed something the watch runs once more (past the
/// stat cache's racy window, `statcache::RACY_NS`).
pub(crate) const SETTLE: std::time::Duration = std::time::Duration::from_millis(2500);

pub(crate) fn file_stamp(file: Option<&std::path::Path>) -> Option<(u64, u64, std::time::SystemTime)> {
    let md = std::fs::metadata(file?).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&md);
    #[cfg(not(unix))]
    let ino = 0;
    Some((ino, md.len(), md.modified().ok()?))
}
