//! A running watcher vouches for the index, as git's fsmonitor daemon does for git's
//! index: `mdgraph index --watch` and `mdgraph mcp` listen on a Unix socket in the index
//! folder ([`SOCKET`]), and a query asks them to sync instead of stat'ing every source
//! file.
//!
//! A sync: the client connects and sends `mdgraph-watch 1 sync <key>` (the [`config_key`]
//! of what it is about to read). The watcher creates a cookie file in the index folder,
//! which its own listener watches, and waits until that listener sees the cookie's event.
//! One listener gets events in the order they happened, so every change made before the
//! client connected has been seen by then. The watcher applies whatever is pending (it
//! says `building` first when that takes a build) and answers `token <run> <seq>
//! <digest>`: its run (unique per start), a sequence number, and the digest of the index
//! it vouches for (the digest of the sidecar files `meta.json` records, as the SQLite
//! mirror and the stat cache record it). Or it answers `no <reason>`.
//!
//! The client trusts a token only when its run is the one the watcher published in
//! [`RUN_FILE`] and the index it is about to read has the vouched digest. Anything else
//! (no watcher, a stale socket, a refusal, a malformed answer, a token from another run,
//! another digest, no answer within [`ANSWER_WAIT`]) means "everything may have changed":
//! the client runs the stat probe, as without a watcher.

use mdgraph::Config;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The watcher's socket, in the index folder.
pub const SOCKET: &str = ".watch.sock";
/// The run of the watcher serving [`SOCKET`] (`<run> <pid>`), in the index folder.
pub const RUN_FILE: &str = ".watch.run";
/// Cookie files (`.watch-cookie-<run>-<n>`), in the index folder, removed once seen.
pub const COOKIE_PREFIX: &str = ".watch-cookie-";
/// First words of a request.
const MAGIC: &str = "mdgraph-watch 1";
/// How long a client waits for the watcher's first answer before it runs the probe
/// instead. An idle watcher answers in well under a millisecond (a cookie file made and
/// its event read); the probe it replaces takes about 10 ms at 10k items and 100 ms at
/// 100k, so waiting longer than that would cost more than it saves.
pub const ANSWER_WAIT: Duration = Duration::from_millis(100);
/// [`ANSWER_WAIT`], or `MDGRAPH_WATCH_WAIT_MS` milliseconds when set (at most a minute):
/// for a machine too loaded to answer in 100 ms, and for tests that must not depend on
/// timing.
fn answer_wait() -> Duration {
    std::env::var("MDGRAPH_WATCH_WAIT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(ANSWER_WAIT, |ms| Duration::from_millis(ms.clamp(1, 60_000)))
}

/// How long a client waits once the watcher said `building`: the probe would find the
/// same change and build it too (waiting for the watcher's lock), so waiting costs
/// nothing more; past this the watcher is taken for stuck.
pub const BUILD_WAIT: Duration = Duration::from_secs(60);
/// How long a watcher waits for its own cookie's event before it answers `no`.
pub const COOKIE_WAIT: Duration = Duration::from_secs(1);
/// Longest line either side accepts.
const MAX_LINE: usize = 512;
/// Connections served at once; more are closed unanswered (their clients probe).
const MAX_CLIENTS: usize = 16;

/// What a watcher vouches for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The watcher's run (unique per start).
    pub run: String,
    /// Index states (digests) this run has vouched for so far: a new one, a new number.
    pub seq: u64,
    /// The digest of the sidecar files of the index it vouches for.
    pub digest: String,
}

/// A watcher's answer to a sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Changes are being applied; the token follows.
    Building,
    /// The index with this digest is fresh.
    Token(Token),
    /// No token, and why.
    No(String),
}

impl Answer {
    fn line(&self) -> String {
        match self {
            Answer::Building => "building\n".to_string(),
            Answer::Token(t) => format!("token {} {} {}\n", t.run, t.seq, t.digest),
            Answer::No(why) => format!("no {}\n", one_line(why)),
        }
    }

    fn parse(line: &str) -> Option<Answer> {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "building" if rest.is_empty() => Some(Answer::Building),
            "no" => Some(Answer::No(rest.to_string())),
            "token" => {
                let mut it = rest.split(' ');
                let (run, seq, digest) = (it.next()?, it.next()?, it.next()?);
                let hex = |s: &str| !s.is_empty() && s.len() <= 128 && s.bytes().all(|b| b.is_ascii_hexdigit());
                (it.next().is_none() && hex(run) && hex(digest)).then_some(())?;
                Some(Answer::Token(Token {
                    run: run.to_string(),
                    seq: seq.parse().ok()?,
                    digest: digest.to_string(),
                }))
            }
            _ => None,
        }
    }
}

/// A reason on one short line.
fn one_line(s: &str) -> String {
    let s: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    s.chars().take(MAX_LINE - 8).collect()
}

/// What a client is about to read, which the watcher must be watching: the root and the
/// index folder (canonical) and the digest of the settings that shape the index.
pub fn config_key(cfg: &Config) -> String {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut h = blake3::Hasher::new();
    for part in [
        canon(&cfg.root).as_os_str().as_encoded_bytes(),
        &[0],
        canon(&cfg.index_dir).as_os_str().as_encoded_bytes(),
        &[0],
        cfg.settings.digest().as_bytes(),
    ] {
        h.update(part);
    }
    h.finalize().to_hex()[..32].to_string()
}

/// A new run id: unique per watcher start (process id, clock, a random-ish address).
pub fn new_run() -> String {
    let mut h = blake3::Hasher::new();
    h.update(&std::process::id().to_le_bytes());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    h.update(&now.to_le_bytes());
    let local = 0u8;
    h.update(&(std::ptr::addr_of!(local) as usize).to_le_bytes());
    h.finalize().to_hex()[..16].to_string()
}

/// The run a watcher published in `index_dir`, if any.
fn published_run(index_dir: &Path) -> Option<String> {
    let mut text = String::new();
    std::fs::File::open(index_dir.join(RUN_FILE))
        .ok()?
        .take(256)
        .read_to_string(&mut text)
        .ok()?;
    let run = text.split_whitespace().next()?;
    run.bytes().all(|b| b.is_ascii_hexdigit()).then(|| run.to_string())
}

/// Run `f` on a path naming `name` in `dir` that fits a Unix socket address (about 100
/// bytes): the path itself, or on Linux, for a longer one, the same file through the
/// folder's descriptor (`/proc/self/fd/N/name`), held open while `f` runs.
fn socket_path<T>(dir: &Path, name: &str, f: impl FnOnce(&Path) -> std::io::Result<T>) -> std::io::Result<T> {
    let path = dir.join(name);
    #[cfg(target_os = "linux")]
    if path.as_os_str().len() >= 100 {
        use std::os::fd::AsRawFd;
        let folder = std::fs::File::open(dir)?;
        return f(Path::new(&format!("/proc/self/fd/{}/{name}", folder.as_raw_fd())));
    }
    f(&path)
}

/// Read one line (without its newline) from `s` by `deadline`; `buf` keeps what was read
/// past it. Errors say why (timeout, closed, too long, not UTF-8).
fn read_line(s: &UnixStream, buf: &mut Vec<u8>, deadline: Instant) -> Result<String, String> {
    loop {
        if let Some(i) = buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buf.drain(..=i).take(i).collect();
            return String::from_utf8(line).map_err(|_| "an answer that is not UTF-8".to_string());
        }
        if buf.len() > MAX_LINE {
            return Err("an answer line too long".into());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err("no answer in time".into());
        }
        s.set_read_timeout(Some(left)).map_err(|e| e.to_string())?;
        let mut chunk = [0u8; 256];
        match (&*s).read(&mut chunk) {
            Ok(0) => return Err("the connection closed".into()),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return Err("no answer in time".into());
            }
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// Ask the watcher serving `cfg`'s index folder to vouch for it. `Err` says why the
/// caller must probe instead. The caller still checks that the index it reads has the
/// token's digest.
pub fn ask(cfg: &Config) -> Result<Token, String> {
    let dir = &cfg.index_dir;
    let Some(run) = published_run(dir) else {
        return Err("no watcher".into());
    };
    let mut s =
        socket_path(dir, SOCKET, |p| UnixStream::connect(p)).map_err(|e| format!("no watcher answers ({e})"))?;
    let wait = answer_wait();
    let mut deadline = Instant::now() + wait;
    s.set_write_timeout(Some(wait)).map_err(|e| e.to_string())?;
    s.write_all(format!("{MAGIC} sync {}\n", config_key(cfg)).as_bytes())
        .map_err(|e| format!("cannot ask the watcher ({e})"))?;
    let mut buf = Vec::new();
    loop {
        let line = read_line(&s, &mut buf, deadline).map_err(|e| format!("watcher: {e}"))?;
        match Answer::parse(&line) {
            Some(Answer::Building) => deadline = Instant::now() + BUILD_WAIT,
            Some(Answer::Token(t)) if t.run == run => return Ok(t),
            Some(Answer::Token(t)) => {
                return Err(format!(
                    "a token from another run ({}, the published run is {run})",
                    t.run
                ));
            }
            Some(Answer::No(why)) => return Err(format!("the watcher did not vouch: {why}")),
            None => return Err("a malformed answer from the watcher".into()),
        }
    }
}

/// Answers one sync: gets the client's config key and a way to send answers (false once
/// the client is gone); sends one final answer (a token or `no`), maybe `building` first.
pub type Handler = dyn Fn(&str, &mut dyn FnMut(Answer) -> bool) + Send + Sync;

/// A watcher's socket: bound in the index folder, served by a thread of its own (a
/// thread per connection, at most [`MAX_CLIENTS`]). Dropping it removes the socket and
/// the run file when they are still its own.
pub struct Server {
    dir: PathBuf,
    run: String,
    /// The socket's inode, to remove only our own.
    ino: u64,
    stop: Arc<AtomicBool>,
}

impl Server {
    /// Bind [`SOCKET`] in `index_dir` (replacing a stale one; refusing when another
    /// watcher answers there) and publish `run` in [`RUN_FILE`].
    pub fn start(index_dir: &Path, run: &str, handler: Arc<Handler>) -> Result<Server, String> {
        let path = index_dir.join(SOCKET);
        match std::fs::symlink_metadata(&path) {
            Ok(md) if md.file_type().is_socket() => {
                if socket_path(index_dir, SOCKET, |p| UnixStream::connect(p)).is_ok() {
                    return Err("another watcher serves this index".into());
                }
                // A socket nobody listens on: left by a watcher that was killed.
                std::fs::remove_file(&path).map_err(|e| format!("cannot remove a stale {SOCKET}: {e}"))?;
            }
            Ok(_) => return Err(format!("{} is not a socket; left as it is", path.display())),
            Err(_) => {}
        }
        let listener = socket_path(index_dir, SOCKET, |p| UnixListener::bind(p))
            .map_err(|e| format!("cannot listen on {}: {e}", path.display()))?;
        let ino = std::fs::symlink_metadata(&path).map(|m| m.ino()).unwrap_or(0);
        let server = Server {
            dir: index_dir.to_path_buf(),
            run: run.to_string(),
            ino,
            stop: Arc::new(AtomicBool::new(false)),
        };
        let stop = server.stop.clone();
        std::thread::Builder::new()
            .name("mdgraph-watch-socket".into())
            .spawn(move || accept(listener, handler, stop))
            .map_err(|e| format!("cannot start the socket's thread: {e}"))?;
        // Published after the socket is bound: a client reading this run finds its socket.
        let tmp = index_dir.join(format!(".watch.run.tmp-{}", std::process::id()));
        std::fs::write(&tmp, format!("{run} {}\n", std::process::id()))
            .and_then(|()| std::fs::rename(&tmp, index_dir.join(RUN_FILE)))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                format!("cannot write {RUN_FILE}: {e}")
            })?;
        Ok(server)
    }

    /// This server's run.
    pub fn run(&self) -> &str {
        &self.run
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let path = self.dir.join(SOCKET);
        if published_run(&self.dir).as_deref() == Some(self.run.as_str()) {
            let _ = std::fs::remove_file(self.dir.join(RUN_FILE));
        }
        // Wake the accept loop so it sees the stop flag.
        let _ = socket_path(&self.dir, SOCKET, |p| UnixStream::connect(p));
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.ino() == self.ino) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

fn accept(listener: UnixListener, handler: Arc<Handler>, stop: Arc<AtomicBool>) {
    let active = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = conn else { continue };
        if active.fetch_add(1, Ordering::SeqCst) >= MAX_CLIENTS {
            active.fetch_sub(1, Ordering::SeqCst);
            continue;
        }
        let (handler, done) = (handler.clone(), active.clone());
        let spawned = std::thread::Builder::new()
            .name("mdgraph-watch-sync".into())
            .spawn(move || {
                serve(stream, &*handler);
                done.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            active.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// One connection: one request, its answers.
fn serve(stream: UnixStream, handler: &Handler) {
    let mut buf = Vec::new();
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let line = read_line(&stream, &mut buf, Instant::now() + Duration::from_millis(500));
    let mut send = |a: Answer| (&stream).write_all(a.line().as_bytes()).is_ok();
    let key = match line
        .as_deref()
        .map(|l| l.strip_prefix(MAGIC).and_then(|r| r.strip_prefix(" sync ")))
    {
        Ok(Some(key)) if !key.is_empty() && key.len() <= 128 => key.to_string(),
        _ => {
            send(Answer::No("not a request this watcher understands".into()));
            return;
        }
    };
    handler(&key, &mut send);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_round_trip_and_bad_lines_are_refused() {
        let t = Answer::Token(Token {
            run: "0123abcd".into(),
            seq: 7,
            digest: "ff00".into(),
        });
        for a in [t, Answer::Building, Answer::No("not watching".into())] {
            let line = a.line();
            assert_eq!(Answer::parse(line.trim_end_matches('\n')), Some(a));
        }
        for bad in [
            "",
            "token",
            "token 12 3",
            "token zz 1 ff",
            "token 12 x ff",
            "token 12 1 ff extra",
            "building now",
            "hello",
        ] {
            assert_eq!(Answer::parse(bad), None, "{bad:?}");
        }
        assert_eq!(Answer::No("a\nb".into()).line(), "no a b\n");
    }
}
