//! What the MCP server keeps between calls, and keeping it fresh: the index with the
//! watch on the backlog, the refresh before a call, the thread that applies edits as they
//! come, and vouching for the index to queries on the index folder's socket.

use crate::cmd::common::{Ctx, Failure, build_summary};
use crate::cmd::watch::Watch;
use mdgraph::{Config, Error, Index};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// While the watch on the backlog works, apply edits as they come (looked for every
/// [`KEEP_FRESH`]) rather than at the next call or query: the index on disk, which CLI
/// queries read, stays fresh, and a call or sync after a quiet moment has nothing to do.
pub(super) fn keep_fresh(shared: &Arc<Mutex<State>>) {
    let state = Arc::downgrade(shared);
    let _ = std::thread::Builder::new()
        .name("mdgraph-mcp-fresh".into())
        .spawn(move || {
            // At start too: the index was just built.
            let mut settle = Some(std::time::Instant::now() + crate::cmd::watch::settle());
            loop {
                std::thread::sleep(KEEP_FRESH);
                let Some(state) = state.upgrade() else { return };
                let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
                if !st.watch.active() {
                    return;
                }
                if st.watch.changed() {
                    st.stale = true;
                    // A failure is the next call's to report (it refreshes again).
                    let _ = st.refresh();
                    settle = Some(std::time::Instant::now() + crate::cmd::watch::settle());
                    continue;
                }
                // Past the stat cache's racy window after a change, one more run records
                // what it could not vouch for, so the next edit takes the short cut.
                if settle.is_some_and(|t| t <= std::time::Instant::now()) {
                    settle = None;
                    // Through `refresh`, so that whatever the run finds is also what the
                    // server answers from.
                    st.stale = true;
                    let _ = st.refresh();
                    continue;
                }
                // Quiet, and serving from the mirror since an edit: load the index into
                // memory without the lock, and swap it in unless the index changed
                // meanwhile.
                if st.index.is_in_memory() || st.stale || st.vouched.is_none() {
                    continue;
                }
                let (cfg, digest, stamp) = (st.index.config().clone(), st.vouched.clone(), st.config_stamp);
                drop(st);
                let Ok(warm) = Index::open_as_is(cfg).map(Index::in_memory) else {
                    continue;
                };
                if warm.warm().is_err() || Index::digest(warm.config()) != digest {
                    continue;
                }
                let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
                let same = !st.stale && st.config_stamp == stamp && st.vouched == digest;
                if same && Index::digest(st.index.config()) == digest {
                    st.index = warm;
                }
            }
        });
}

/// How often the MCP server looks for edits between calls.
const KEEP_FRESH: std::time::Duration = std::time::Duration::from_millis(250);

/// Serve syncs on the index folder's socket while the watch on the backlog works (see
/// [`crate::cmd::vouch`]); None when it does not, or the socket cannot be served (a warning).
#[cfg(unix)]
pub(super) fn vouch(
    ctx: &Ctx,
    shared: &Arc<Mutex<State>>,
    err: &mut dyn Write,
) -> Result<Option<crate::cmd::vouch::Server>, Failure> {
    use crate::cmd::vouch::{self, Answer};
    let st = shared.lock().unwrap_or_else(|p| p.into_inner());
    if !st.watch.active() {
        return Ok(None);
    }
    let index_dir = st.index.config().index_dir.clone();
    drop(st);
    let run = vouch::new_run();
    let state = shared.clone();
    let handler: Arc<vouch::Handler> = Arc::new({
        let run = run.clone();
        move |key: &str, answer: &mut dyn FnMut(Answer) -> bool| {
            // Busy (a refresh, or a call): say so at once, so the query waits for the
            // refresh rather than probe and build it again, then wait for the state.
            let mut st = match state.try_lock() {
                Ok(st) => st,
                Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {
                    if !answer(Answer::Building) {
                        return;
                    }
                    state.lock().unwrap_or_else(|p| p.into_inner())
                }
            };
            let last = st.vouch(key, &run, answer);
            answer(last);
        }
    });
    match vouch::Server::start(&index_dir, &run, handler) {
        Ok(s) => {
            if ctx.cli.verbose {
                writeln!(
                    err,
                    "mdgraph: vouching for the index on {} (run {run})",
                    index_dir.join(vouch::SOCKET).display()
                )?;
            }
            Ok(Some(s))
        }
        Err(e) => {
            ctx.warn(err, &format!("not vouching for the index to queries: {e}"))?;
            Ok(None)
        }
    }
}

/// What the server keeps between calls.
pub(super) struct State {
    /// Loads the configuration again, as at start (the same flags and folder).
    reload: Box<dyn Fn() -> Result<Config, Error> + Send>,
    /// The config file's stamp when it was last loaded.
    config_stamp: Option<(u64, u64, std::time::SystemTime)>,
    pub(super) index: Index,
    watch: Watch,
    /// The watch saw a change that no refresh has taken in yet.
    stale: bool,
    /// The default pack budget (`pack.budget`).
    pub(super) budget: u32,
    quiet: bool,
    /// The digest of the index on disk when this server last made it fresh (None: not
    /// since the start or the last config change).
    vouched: Option<String>,
    /// Index states vouched for so far (the tokens' sequence number).
    seq: u64,
    /// Cookies made so far (their names).
    cookies: u64,
}

impl State {
    /// The state of a server that just opened `index` and started `watch`.
    pub(super) fn new(ctx: &Ctx, index: Index, watch: Watch, budget: u32) -> State {
        let config_stamp = crate::cmd::watch::file_stamp(index.config().config_file.as_deref());
        State {
            reload: Box::new({
                let (ov, cwd) = (crate::cmd::overrides(ctx.cli), ctx.cwd.to_path_buf());
                move || Config::load(&cwd, &ov)
            }),
            config_stamp,
            index,
            watch,
            // The watch starts after the index was opened: the first call probes, so an edit
            // made in between is not missed.
            stale: true,
            budget,
            quiet: ctx.cli.quiet,
            vouched: None,
            seq: 0,
            cookies: 0,
        }
    }

    /// Bring the index up to date when the backlog may have changed.
    pub(super) fn refresh(&mut self) -> Result<(), Error> {
        // An edited config shapes everything: load it again and start over with it (a
        // config that does not load is the call's error; the next call tries again).
        let now = crate::cmd::watch::file_stamp(self.index.config().config_file.as_deref());
        if now != self.config_stamp {
            let cfg = (self.reload)()?;
            if let Some(report) = Index::refresh(&cfg, None)?
                && !report.up_to_date
                && !self.quiet
            {
                eprintln!("{}", build_summary(&report));
            }
            self.watch = Watch::new(&cfg.root, &cfg.index_dir);
            self.config_stamp = crate::cmd::watch::file_stamp(cfg.config_file.as_deref());
            self.index = Index::open_as_is(cfg)?.in_memory();
            self.stale = false;
            self.note_digest();
            return Ok(());
        }
        self.stale |= self.watch.changed();
        if !self.stale {
            return Ok(());
        }
        let cfg = self.index.config().clone();
        // The watch saw a change: build at once (an edit takes the short cut of
        // `mdgraph index`) rather than stat every file first as `Index::refresh` does.
        // The index is opened again when it is not the one this server last opened (a
        // CLI `index` may have taken the edit in already).
        Index::recover(&cfg)?;
        let report = Index::build(&cfg, false, None)?;
        if !report.up_to_date && !self.quiet {
            eprintln!("{}", build_summary(&report));
        }
        // An edit the short cut took is applied to the index in memory (when this is
        // the index it was made from). Otherwise, with the mirror (which the edit
        // updated in place), the next call reads it at once instead of loading the whole
        // index into memory first (0.3 s at 10k items); `keep_fresh` loads the in-memory
        // index off the callers' path and swaps it in.
        let applied = !report.up_to_date && self.index.apply_edits(&report);
        if !applied && (!report.up_to_date || Index::digest(&cfg) != self.vouched) {
            self.index = match cfg.sqlite {
                true => Index::open_as_is(cfg)?,
                false => Index::open_as_is(cfg)?.in_memory(),
            };
        }
        self.stale = false;
        self.note_digest();
        Ok(())
    }

    /// Record the digest of the index on disk, just made fresh (a new one is a new
    /// sequence number for the tokens).
    fn note_digest(&mut self) {
        let now = Index::digest(self.index.config());
        if now != self.vouched {
            self.seq += 1;
        }
        self.vouched = now;
    }

    /// Answer a query's sync (see [`crate::cmd::vouch`]): read the watch's events up to a
    /// cookie, make the index fresh when anything changed (or when the index on disk is
    /// not the one this server last made fresh), and give the token; `answer` gets
    /// `building` first when that takes a refresh.
    #[cfg(unix)]
    fn vouch(
        &mut self,
        key: &str,
        run: &str,
        answer: &mut dyn FnMut(crate::cmd::vouch::Answer) -> bool,
    ) -> crate::cmd::vouch::Answer {
        use crate::cmd::vouch::{Answer, COOKIE_PREFIX, Token, config_key};
        self.cookies += 1;
        let cookie = format!("{COOKIE_PREFIX}{run}-{}", self.cookies);
        let index_dir = self.index.config().index_dir.clone();
        let Some(changed) = self.watch.sync(&index_dir, &cookie) else {
            return Answer::No("the watch on the backlog is not working".into());
        };
        self.stale |= changed;
        let config = crate::cmd::watch::file_stamp(self.index.config().config_file.as_deref());
        if self.stale || config != self.config_stamp || Index::digest(self.index.config()) != self.vouched {
            if !answer(Answer::Building) {
                return Answer::No("the client went away".into());
            }
            // Made fresh by the probe, not only by what the watch saw.
            self.stale = true;
            if let Err(e) = self.refresh() {
                self.vouched = None;
                return Answer::No(format!("the index could not be refreshed: {e}"));
            }
        }
        if key != config_key(self.index.config()) {
            return Answer::No("this server serves another root, index folder or configuration".into());
        }
        match &self.vouched {
            Some(digest) => Answer::Token(Token {
                run: run.to_string(),
                seq: self.seq,
                digest: digest.clone(),
            }),
            None => Answer::No("no index to vouch for".into()),
        }
    }
}
