//! `mdgraph index`: build or refresh the index. Text output is the diagnostics and a
//! summary on stderr; JSON is [`IndexJson`] on stdout.

use super::EXIT_OK;
use super::common::{Ctx, Failure, Format, build_summary, diagnostics, json};
use super::watch::{file_stamp, settle};
use mdgraph::model::diag::{Diagnostic, Severity};
use mdgraph::{Config, Index, MetaCounts, Overrides};
use notify::event::CreateKind;
use notify::{EventKind, RecursiveMode, Watcher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant, SystemTime};

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
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .map_err(|e| Failure::Error(mdgraph::Error::Other(format!("cannot catch Ctrl-C: {e}"))))?;
    let (tx, rx) = mpsc::channel::<Msg>();
    let mut w = Watch::new(ctx, cfg, &tx)?;
    while !stop.load(Ordering::SeqCst) {
        w.follow_root(err)?;
        w.follow_outside_folders();
        #[cfg(unix)]
        w.serve(err)?;
        if w.first && !ctx.cli.quiet {
            writeln!(err, "watching {} (Ctrl-C to stop)", w.cfg.display(&w.cfg.root))?;
        }
        w.first = false;
        match rx.recv_timeout(w.wait()) {
            Ok(Msg::Fs(Ok(event))) => w.on_event(&event, err)?,
            Ok(Msg::Fs(Err(e))) => w.on_watch_error(&e, err)?,
            #[cfg(unix)]
            Ok(Msg::Sync(asked, reply)) => w.on_sync(asked, reply),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        #[cfg(unix)]
        w.vouch.expire_cookies();
        w.refresh_if_due(err)?;
        #[cfg(unix)]
        w.vouch_for_ready(err)?;
    }
    // The socket and the run file go first: a query from now on probes.
    #[cfg(unix)]
    drop(w.vouch.server.take());
    if !ctx.cli.quiet {
        writeln!(err, "stopped watching")?;
    }
    Ok(EXIT_OK)
}

/// The watch loop's state: what is watched, what waits to be applied and (Unix) what the
/// watcher vouches for.
struct Watch<'a> {
    ctx: &'a Ctx<'a>,
    /// The global flags' overrides, for loading an edited config again.
    ov: Overrides,
    cfg: Config,
    watcher: notify::RecommendedWatcher,
    /// The folder (its inode) being watched as the root; None while there is none.
    watched: Option<(PathBuf, u64)>,
    config_stamp: Option<(u64, u64, SystemTime)>,
    config_dir: Option<PathBuf>,
    /// The index folder's own watch, when it is outside the root (the cookies are there).
    index_watch: Option<PathBuf>,
    first: bool,
    pending: bool,
    /// When the edits gathered so far are applied.
    due: Option<Instant>,
    /// A folder was created since the last refresh: refresh once more after it, for files
    /// made in it before the new folder's own watch was set up.
    new_folder: bool,
    /// Canonical root and index folder (for telling events apart), made again when the
    /// config is loaded again.
    root_canon: PathBuf,
    index_canon: PathBuf,
    #[cfg(unix)]
    vouch: Vouching,
}

/// What the watcher vouches for to queries (Unix).
#[cfg(unix)]
struct Vouching {
    run: String,
    /// True while the loop builds: a sync waiting behind a build is told `building` at
    /// once (the query waits for this build rather than probe and build it again).
    building: Arc<AtomicBool>,
    handler: Arc<super::vouch::Handler>,
    /// The socket, and the index folder it was tried in (a failure is not tried again
    /// for the same folder).
    server: Option<super::vouch::Server>,
    tried: Option<PathBuf>,
    key: String,
    seq: u64,
    cookies: u64,
    /// The digest of the index this run last made or found fresh; None: doubt (a full
    /// refresh comes before the next token).
    vouched: Option<String>,
    /// False once the file watch reported an error (it may miss events): no tokens until
    /// the root is watched again.
    sound: bool,
    waiting: Vec<Waiting>,
    ready: Vec<Waiting>,
}

/// A path as the file system resolves it, or as given when it cannot.
fn canon(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The inode of the folder at `p`; None when there is none.
fn identity(p: &Path) -> Option<u64> {
    file_stamp(Some(p).filter(|p| p.is_dir())).map(|(ino, _, _)| ino)
}

/// Moves the non-recursive watch kept in `slot` to `want`.
fn follow(watcher: &mut notify::RecommendedWatcher, slot: &mut Option<PathBuf>, want: Option<PathBuf>) {
    if want == *slot {
        return;
    }
    if let Some(old) = slot.take() {
        let _ = watcher.unwatch(&old);
    }
    if let Some(d) = &want {
        let _ = watcher.watch(d, RecursiveMode::NonRecursive);
    }
    *slot = want;
}

impl<'a> Watch<'a> {
    fn new(ctx: &'a Ctx<'a>, cfg: &Config, tx: &mpsc::Sender<Msg>) -> Result<Self, Failure> {
        let fs_tx = tx.clone();
        let watcher = notify::recommended_watcher(move |ev| {
            let _ = fs_tx.send(Msg::Fs(ev));
        })
        .map_err(|e| Failure::Error(mdgraph::Error::Other(format!("cannot watch files: {e}"))))?;
        let cfg = cfg.clone();
        Ok(Watch {
            ctx,
            ov: super::overrides(ctx.cli),
            watcher,
            watched: None,
            config_stamp: file_stamp(cfg.config_file.as_deref()),
            config_dir: None,
            index_watch: None,
            first: true,
            pending: false,
            due: None,
            new_folder: false,
            root_canon: canon(&cfg.root),
            index_canon: canon(&cfg.index_dir),
            #[cfg(unix)]
            vouch: Vouching::new(&cfg, tx),
            cfg,
        })
    }

    /// (Re)watches the root when it is new, back, or another folder now.
    fn follow_root(&mut self, err: &mut dyn Write) -> Result<(), Failure> {
        let now = identity(&self.cfg.root).map(|ino| (self.cfg.root.clone(), ino));
        if now == self.watched {
            return Ok(());
        }
        if let Some((old, _)) = self.watched.take() {
            let _ = self.watcher.unwatch(&old);
            // Unwatching a folder drops the watches below it, the config's among them.
            self.config_dir = None;
        }
        let Some((root, ino)) = now else {
            if self.first {
                return Err(Failure::Error(mdgraph::Error::NoRoot(self.cfg.root.clone())));
            }
            return Ok(());
        };
        match self.watcher.watch(&root, RecursiveMode::Recursive) {
            Ok(()) => {
                self.watched = Some((root, ino));
                #[cfg(unix)]
                {
                    self.vouch.sound = true;
                    self.vouch.vouched = None;
                }
            }
            Err(e) if self.first => {
                return Err(Failure::Error(mdgraph::Error::Other(format!(
                    "cannot watch {}: {e}",
                    self.cfg.display(&self.cfg.root)
                ))));
            }
            Err(e) => self
                .ctx
                .warn(err, &format!("cannot watch {}: {e}", self.cfg.display(&self.cfg.root)))?,
        }
        if !self.first {
            self.pending = true;
            self.due.get_or_insert(Instant::now());
        }
        Ok(())
    }

    /// Watches the config file's folder and the index folder when they are outside the
    /// root. The config file shapes the index too: its folder is watched (an editor
    /// replaces the file, which would end a watch on the file itself). A config folder in
    /// the root is already watched (recursively): a second, non-recursive watch on it
    /// would replace the root's and stop new folders from being watched. The same holds
    /// for the index folder, watched for the cookies.
    fn follow_outside_folders(&mut self) {
        let root_canon = &self.root_canon;
        let outside_root = |d: &PathBuf| !canon(d).starts_with(root_canon);
        let dir = self
            .cfg
            .config_file
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .filter(outside_root);
        follow(&mut self.watcher, &mut self.config_dir, dir);
        let ix = Some(self.cfg.index_dir.clone())
            .filter(outside_root)
            .filter(|d| self.config_dir.as_ref() != Some(d));
        follow(&mut self.watcher, &mut self.index_watch, ix);
    }

    /// Starts the socket in the index folder, or moves it with the folder.
    #[cfg(unix)]
    fn serve(&mut self, err: &mut dyn Write) -> Result<(), Failure> {
        let v = &mut self.vouch;
        if self.watched.is_none() || v.tried.as_ref() == Some(&self.cfg.index_dir) {
            return Ok(());
        }
        v.server = None;
        v.tried = Some(self.cfg.index_dir.clone());
        match super::vouch::Server::start(&self.cfg.index_dir, &v.run, v.handler.clone()) {
            Ok(s) => {
                if self.ctx.cli.verbose {
                    writeln!(
                        err,
                        "vouching for the index on {} (run {})",
                        self.cfg.display(&self.cfg.index_dir.join(super::vouch::SOCKET)),
                        s.run()
                    )?;
                }
                v.server = Some(s);
            }
            Err(e) => self
                .ctx
                .warn(err, &format!("not vouching for the index to queries: {e}"))?,
        }
        Ok(())
    }

    /// How long to wait for the next message.
    fn wait(&self) -> Duration {
        let mut wait = Duration::from_millis(200);
        if let Some(d) = self.due {
            wait = wait.min(d.saturating_duration_since(Instant::now()));
        }
        #[cfg(unix)]
        if !self.vouch.waiting.is_empty() {
            wait = wait.min(Duration::from_millis(10));
        }
        wait
    }

    /// Takes in a file event: a cookie seen, the config edited, a change to refresh for.
    fn on_event(&mut self, event: &notify::Event, err: &mut dyn Write) -> Result<(), Failure> {
        #[cfg(unix)]
        self.vouch.cookies_seen(event);
        self.reload_config(err)?;
        // The index folder's own writes (it may live under the root) are not
        // changes; nor are other files beside the config, nor reads.
        let outside = |p: &Path| {
            let c = canon(p);
            !c.starts_with(&self.index_canon)
                && !p.starts_with(&self.cfg.index_dir)
                && (c.starts_with(&self.root_canon) || p.starts_with(&self.cfg.root))
        };
        let change = !matches!(event.kind, EventKind::Access(_)) && event.paths.iter().any(|p| outside(p));
        if change || event.need_rescan() {
            self.pending = true;
            self.due.get_or_insert(Instant::now() + COALESCE);
            self.new_folder |= matches!(event.kind, EventKind::Create(CreateKind::Folder | CreateKind::Any));
        }
        Ok(())
    }

    /// Loads the config again when its file changed (reading a file is an event too: the
    /// stamp tells an edit).
    fn reload_config(&mut self, err: &mut dyn Write) -> Result<(), Failure> {
        let now = file_stamp(self.cfg.config_file.as_deref());
        if now == self.config_stamp {
            return Ok(());
        }
        self.config_stamp = now;
        match mdgraph::Config::load(self.ctx.cwd, &self.ov) {
            Ok(new) => {
                if !self.ctx.cli.quiet {
                    writeln!(err, "config changed: loaded it again")?;
                }
                // The stamp read before loading stays: a write during the load
                // is then seen as the next change (a stamp read after it would
                // hide it). Another config file is stamped afresh.
                if new.config_file != self.cfg.config_file {
                    self.config_stamp = file_stamp(new.config_file.as_deref());
                }
                self.cfg = new;
                (self.root_canon, self.index_canon) = (canon(&self.cfg.root), canon(&self.cfg.index_dir));
                self.pending = true;
                self.due = Some(Instant::now());
                #[cfg(unix)]
                {
                    self.vouch.key = super::vouch::config_key(&self.cfg);
                    self.vouch.vouched = None;
                }
            }
            Err(e) => self.ctx.warn(err, &format!("config not loaded again: {e}"))?,
        }
        Ok(())
    }

    /// The file watch failed: it may have missed events, so refresh.
    fn on_watch_error(&mut self, e: &notify::Error, err: &mut dyn Write) -> Result<(), Failure> {
        self.ctx.warn(err, &format!("file watch: {e}"))?;
        self.pending = true;
        self.due.get_or_insert(Instant::now() + COALESCE);
        #[cfg(unix)]
        {
            self.vouch.sound = false;
        }
        Ok(())
    }

    /// A query asks for a sync: a cookie is written for it, or it is refused at once.
    #[cfg(unix)]
    fn on_sync(&mut self, asked: String, reply: mpsc::Sender<super::vouch::Answer>) {
        use super::vouch::{Answer, COOKIE_PREFIX};
        let v = &mut self.vouch;
        let refused = if self.watched.is_none() {
            Some("the root is not being watched".to_string())
        } else if !v.sound {
            Some("the file watch failed; restart the watcher".to_string())
        } else if asked != v.key {
            Some("this watcher watches another root, index folder or configuration".to_string())
        } else {
            v.cookies += 1;
            let cookie = format!("{COOKIE_PREFIX}{}-{}", v.run, v.cookies);
            let file = self.cfg.index_dir.join(&cookie);
            match std::fs::File::create(&file) {
                Ok(_) => {
                    v.waiting.push(Waiting {
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

    /// Applies the gathered edits when they are due, or when a query waits for them.
    fn refresh_if_due(&mut self, err: &mut dyn Write) -> Result<(), Failure> {
        #[cfg(unix)]
        let asked = !self.vouch.ready.is_empty();
        #[cfg(not(unix))]
        let asked = false;
        let time = self.due.is_some_and(|d| d <= Instant::now());
        if !(self.pending && self.watched.is_some() && (time || asked)) {
            return Ok(());
        }
        #[cfg(unix)]
        for w in &self.vouch.ready {
            let _ = w.reply.send(super::vouch::Answer::Building);
        }
        self.pending = false;
        self.due = None;
        if std::mem::take(&mut self.new_folder) {
            self.pending = true;
            self.due = Some(Instant::now() + COALESCE);
        }
        let started = Instant::now();
        #[cfg(unix)]
        self.vouch.building.store(true, Ordering::SeqCst);
        let built = Index::build(&self.cfg, false, None);
        #[cfg(unix)]
        self.vouch.building.store(false, Ordering::SeqCst);
        match built {
            Ok(report) => {
                #[cfg(unix)]
                self.vouch.made(Index::digest(&self.cfg));
                // What changed in the stat cache's racy window (2 s) it cannot vouch
                // for: once that has passed, one more (cheap) run records it, so the
                // next edit takes the short cut (`mdgraph index` docs).
                if !report.up_to_date && self.due.is_none() {
                    self.pending = true;
                    self.due = Some(Instant::now() + settle());
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
                    self.vouch.vouched = None;
                }
                self.ctx.warn(err, &format!("refresh failed: {e}"))?
            }
        }
        Ok(())
    }

    /// Every event before the ready cookies has been taken in: vouches for the index,
    /// after a full refresh (the probe) when this run has not made or seen it.
    #[cfg(unix)]
    fn vouch_for_ready(&mut self, err: &mut dyn Write) -> Result<(), Failure> {
        use super::vouch::{Answer, Token};
        let v = &mut self.vouch;
        for w in std::mem::take(&mut v.ready) {
            if v.vouched.is_none() || Index::digest(&self.cfg) != v.vouched {
                let _ = w.reply.send(Answer::Building);
                v.building.store(true, Ordering::SeqCst);
                let refreshed = Index::refresh(&self.cfg, None);
                v.building.store(false, Ordering::SeqCst);
                match refreshed {
                    Ok(_) => v.made(Index::digest(&self.cfg)),
                    Err(e) => {
                        v.vouched = None;
                        self.ctx.warn(err, &format!("refresh failed: {e}"))?;
                    }
                }
            }
            let answer = match &v.vouched {
                // The config was loaded again since the query asked.
                Some(_) if w.key != v.key => {
                    Answer::No("this watcher watches another root, index folder or configuration".into())
                }
                Some(digest) => Answer::Token(Token {
                    run: v.run.clone(),
                    seq: v.seq,
                    digest: digest.clone(),
                }),
                None => Answer::No("the index could not be refreshed".into()),
            };
            let _ = w.reply.send(answer);
            let _ = std::fs::remove_file(&w.file);
        }
        Ok(())
    }
}

#[cfg(unix)]
impl Vouching {
    fn new(cfg: &Config, tx: &mpsc::Sender<Msg>) -> Self {
        let building = Arc::new(AtomicBool::new(false));
        Vouching {
            run: super::vouch::new_run(),
            handler: sync_handler(tx.clone(), building.clone()),
            building,
            server: None,
            tried: None,
            key: super::vouch::config_key(cfg),
            seq: 0,
            cookies: 0,
            vouched: None,
            sound: true,
            waiting: Vec::new(),
            ready: Vec::new(),
        }
    }

    /// This run made or found the index with this digest: a new one is a new sequence.
    fn made(&mut self, now: Option<String>) {
        self.seq += u64::from(now != self.vouched);
        self.vouched = now;
    }

    /// The syncs whose cookies this event shows are ready to be answered.
    fn cookies_seen(&mut self, event: &notify::Event) {
        for p in &event.paths {
            let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if let Some(i) = self.waiting.iter().position(|w| w.cookie == name) {
                self.ready.push(self.waiting.swap_remove(i));
            }
        }
    }

    /// Cookies never seen: the watch on the index folder is not working.
    fn expire_cookies(&mut self) {
        self.waiting.retain(|w| {
            let late = w.since.elapsed() > super::vouch::COOKIE_WAIT;
            if late {
                let _ = w
                    .reply
                    .send(super::vouch::Answer::No("its cookie was never seen".into()));
                let _ = std::fs::remove_file(&w.file);
            }
            !late
        });
    }
}

/// The socket's side of a sync: it asks the loop (through `tx`) and relays the loop's
/// answer, telling the query `building` while a build runs.
#[cfg(unix)]
fn sync_handler(tx: mpsc::Sender<Msg>, building: Arc<AtomicBool>) -> Arc<super::vouch::Handler> {
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
}
