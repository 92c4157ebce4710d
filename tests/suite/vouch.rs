//! A running watcher vouches for the index (issue 25): `index --watch` and `mcp` answer
//! a query's sync on `_index/.watch.sock`, and a query that gets a token it can trust
//! skips the stat probe. `-v` names the path a query took (`freshness: watcher` or
//! `freshness: probe (why)`). No timing assertions: the client's wait for a first
//! answer is raised with `MDGRAPH_WATCH_WAIT_MS` so a loaded machine cannot turn a
//! watcher path into a probe.
#![cfg(unix)]

use crate::common::*;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const ITEM: &str = "items/task/0000/QRY-TSK-0004_build-signature-pad-with-vector-stroke-capture.md";

/// Run a query with a generous wait for the watcher's first answer.
fn query(f: &Fixture, args: &[&str]) -> Output {
    let mut full = vec!["--root", "backlog", "--index-dir", "_index"];
    full.extend_from_slice(args);
    run_env(f.dir.path(), &full, &[("MDGRAPH_WATCH_WAIT_MS", OsStr::new("30000"))])
}

/// Append a word no document has to the task, as an editor saves: a temporary file
/// renamed over the original.
fn edit(f: &Fixture, word: &str) {
    let item = f.root().join(ITEM);
    let text = std::fs::read_to_string(&item).unwrap();
    let tmp = item.with_extension("md.tmp~");
    std::fs::write(&tmp, format!("{text}\nNoted: {word}.\n")).unwrap();
    std::fs::rename(&tmp, &item).unwrap();
}

/// A watcher process and its stderr lines.
struct Watcher {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Watcher {
    /// `index --watch -v`, once it has bound its socket and watches.
    fn index(f: &Fixture) -> Watcher {
        Watcher::index_in(f, "_index")
    }

    /// The same with another index folder.
    fn index_in(f: &Fixture, index_dir: &str) -> Watcher {
        let child = Command::new(BIN)
            .args(["--root", "backlog", "--index-dir", index_dir, "-v", "index", "--watch"])
            .current_dir(f.dir.path())
            .env_clear()
            .env(RACY_ENV, RACY_MS.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        Watcher::started(child, "watching ")
    }

    /// `mcp -v` (stdin kept open), once it has bound its socket.
    fn mcp(f: &Fixture) -> Watcher {
        let child = Command::new(BIN)
            .args(["--root", "backlog", "--index-dir", "_index", "-v", "mcp"])
            .current_dir(f.dir.path())
            .env_clear()
            .env(RACY_ENV, RACY_MS.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        Watcher::started(child, "mdgraph: vouching for the index on ")
    }

    fn started(mut child: Child, ready: &str) -> Watcher {
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) if line.starts_with(ready) => break,
                Ok(line) => seen.push(line),
                Err(_) => {
                    let _ = child.kill();
                    panic!("the watcher never said {ready:?}: {seen:?}");
                }
            }
        }
        Watcher { child, lines }
    }

    /// The run id it published.
    fn run(&self, f: &Fixture) -> String {
        let text = std::fs::read_to_string(f.index().join(".watch.run")).unwrap();
        text.split_whitespace().next().unwrap().to_string()
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The `freshness:` line of a query's stderr.
fn freshness(out: &Output) -> String {
    out.stderr
        .lines()
        .find(|l| l.starts_with("freshness: "))
        .unwrap_or_else(|| panic!("no freshness line: {}", out.stderr))
        .to_string()
}

/// With `index --watch` running, a search right after an edit (no wait at all) finds the
/// edit, through the watcher's token; so do later ones, and `--no-refresh` does not ask.
#[test]
fn a_search_right_after_an_edit_finds_it_through_the_watcher() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let w = Watcher::index(&f);
    let run = w.run(&f);
    for (i, word) in ["zanzibarquux", "frobnicatewombat", "plughxyzzy"].iter().enumerate() {
        edit(&f, word);
        let out = query(&f, &["-v", "search", word, "--format", "json"]);
        assert_eq!(out.code, 0, "edit {i}: {out:?}");
        assert!(out.stdout.contains("\"QRY-TSK-0004\""), "edit {i}: {}", out.stdout);
        let line = freshness(&out);
        assert!(
            line.starts_with(&format!("freshness: watcher (run {run}, seq ")),
            "{line}"
        );
    }
    // Nothing changed: still the watcher, and the same answer.
    let again = query(&f, &["-v", "search", "plughxyzzy"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(freshness(&again).starts_with("freshness: watcher"), "{}", again.stderr);
    // `--no-refresh` reads the index as it is: no sync, no probe.
    let as_is = query(&f, &["-v", "search", "plughxyzzy", "--no-refresh"]);
    assert_eq!(as_is.code, 0, "{as_is:?}");
    assert!(!as_is.stderr.contains("freshness:"), "{}", as_is.stderr);
    drop(w);
}

/// A watcher killed with SIGKILL leaves its socket and run file; a query falls back to
/// the probe and still sees an edit made meanwhile. A new watcher replaces the stale
/// socket and vouches under a run of its own.
#[test]
fn a_killed_watcher_leaves_a_stale_socket_and_queries_probe() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let mut w = Watcher::index(&f);
    let first = w.run(&f);
    w.kill();
    assert!(
        f.index().join(".watch.sock").exists(),
        "the socket should be left behind"
    );
    assert!(f.index().join(".watch.run").exists());
    edit(&f, "stalesocketword");
    let out = query(&f, &["-v", "search", "stalesocketword", "--format", "json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("\"QRY-TSK-0004\""), "{}", out.stdout);
    let line = freshness(&out);
    assert!(line.starts_with("freshness: probe (no watcher answers"), "{line}");

    let w2 = Watcher::index(&f);
    let second = w2.run(&f);
    assert_ne!(first, second, "a new start is a new run");
    edit(&f, "secondrunword");
    let out = query(&f, &["-v", "search", "secondrunword", "--format", "json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("\"QRY-TSK-0004\""), "{}", out.stdout);
    assert!(
        freshness(&out).starts_with(&format!("freshness: watcher (run {second}")),
        "{}",
        out.stderr
    );
    // A watcher stopped cleanly takes its socket and run file with it.
    let mut w2 = w2;
    let int = Command::new("kill")
        .args(["-INT", &w2.child.id().to_string()])
        .status()
        .unwrap();
    assert!(int.success());
    assert!(w2.child.wait().unwrap().success());
    let rest: Vec<String> = w2.lines.try_iter().collect();
    assert!(rest.iter().any(|l| l == "stopped watching"), "{rest:?}");
    assert!(!f.index().join(".watch.sock").exists());
    assert!(!f.index().join(".watch.run").exists());
}

/// A stand-in watcher on the socket that answers every connection with `reply` (after
/// reading the request), published as run `run`.
fn fake_watcher(index: &Path, run: &str, reply: Vec<u8>) -> std::thread::JoinHandle<()> {
    let _ = std::fs::remove_file(index.join(".watch.sock"));
    let listener = UnixListener::bind(index.join(".watch.sock")).unwrap();
    std::fs::write(index.join(".watch.run"), format!("{run} 1\n")).unwrap();
    std::thread::spawn(move || {
        // One connection per query below; the listener goes with the thread.
        if let Ok((mut s, _)) = listener.accept() {
            let mut buf = [0u8; 256];
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = s.read(&mut buf);
            let _ = s.write_all(&reply);
        }
    })
}

/// A token is trusted only from the published run and for the index on disk; another
/// run's token, another digest, a refusal or a malformed answer means the probe, which
/// still finds an edit the stand-in never took in. The right run and digest are trusted
/// (the stand-in speaks the protocol, so the refusals above are the checks' doing).
#[test]
fn a_token_from_another_run_or_for_another_index_is_not_trusted() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let run = "00112233aabbccdd";
    let digest = mdgraph::Index::digest(&f.config()).expect("an index digest");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            format!("token ffeeddccbbaa9988 7 {digest}\n").into_bytes(),
            "a token from another run",
        ),
        (
            format!("token {run} 7 {}\n", "0".repeat(64)).into_bytes(),
            "not the one the watcher vouched for",
        ),
        (b"no busy\n".to_vec(), "the watcher did not vouch: busy"),
        (b"token \xff\xfe\n".to_vec(), "not UTF-8"),
        (vec![b'x'; 4096], "too long"),
        (b"building\nhello\n".to_vec(), "malformed"),
        (Vec::new(), "the connection closed"),
    ];
    for (i, (reply, why)) in cases.into_iter().enumerate() {
        // Each case edits first: only a probe can see it.
        let word = format!("untrustedword{}", ["a", "b", "c", "d", "e", "f", "g"][i]);
        edit(&f, &word);
        let t = fake_watcher(&f.index(), run, reply);
        let out = query(&f, &["-v", "search", &word, "--format", "json"]);
        t.join().unwrap();
        assert_eq!(out.code, 0, "case {i}: {out:?}");
        assert!(out.stdout.contains("\"QRY-TSK-0004\""), "case {i}: {}", out.stdout);
        let line = freshness(&out);
        assert!(
            line.starts_with("freshness: probe (") && line.contains(why),
            "case {i}: {line}"
        );
    }
    // The index is fresh now (the last probe refreshed it): the right run and digest are
    // trusted.
    let digest = mdgraph::Index::digest(&f.config()).unwrap();
    let t = fake_watcher(&f.index(), run, format!("token {run} 3 {digest}\n").into_bytes());
    let out = query(&f, &["-v", "search", "untrustedwordg"]);
    t.join().unwrap();
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        freshness(&out).starts_with(&format!("freshness: watcher (run {run}, seq 3)")),
        "{}",
        out.stderr
    );
}

/// A stand-in that accepts and never answers: the query gives up after its wait (the
/// default 100 ms here) and probes.
#[test]
fn a_watcher_that_never_answers_is_not_waited_for() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let _ = std::fs::remove_file(f.index().join(".watch.sock"));
    let listener = UnixListener::bind(f.index().join(".watch.sock")).unwrap();
    std::fs::write(f.index().join(".watch.run"), "abcdef 1\n").unwrap();
    edit(&f, "silentwatcherword");
    let out = f.run(&["-v", "search", "silentwatcherword", "--format", "json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("\"QRY-TSK-0004\""), "{}", out.stdout);
    assert!(
        freshness(&out).starts_with("freshness: probe (watcher: no answer in time)"),
        "{}",
        out.stderr
    );
    drop(listener);
}

/// `mdgraph mcp` vouches too (Linux, where its watch is inotify): an edit followed at
/// once by a CLI search is found through its token.
#[cfg(target_os = "linux")]
#[test]
fn the_mcp_server_serves_the_token_too() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let w = Watcher::mcp(&f);
    let run = w.run(&f);
    for word in ["mcpvouchedword", "mcpsecondword"] {
        edit(&f, word);
        let out = query(&f, &["-v", "search", word, "--format", "json"]);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(out.stdout.contains("\"QRY-TSK-0004\""), "{}", out.stdout);
        assert!(
            freshness(&out).starts_with(&format!("freshness: watcher (run {run}, seq ")),
            "{}",
            out.stderr
        );
    }
    drop(w);
}

/// An index folder whose socket path is longer than a Unix socket address holds (about
/// 100 bytes): on Linux the socket is reached through the folder's descriptor, and the
/// watcher still vouches.
#[cfg(target_os = "linux")]
#[test]
fn a_watcher_vouches_in_an_index_folder_with_a_long_path() {
    let f = Fixture::new("backlog-fixtures");
    let long = format!("{}/_index", "a-folder-with-a-rather-long-name".repeat(4));
    assert!(f.dir.path().join(&long).as_os_str().len() > 120);
    assert_eq!(
        run_in(f.dir.path(), &["--root", "backlog", "--index-dir", &long, "index"]).code,
        0
    );
    let w = Watcher::index_in(&f, &long);
    edit(&f, "longfolderword");
    let out = run_env(
        f.dir.path(),
        &[
            "--root",
            "backlog",
            "--index-dir",
            &long,
            "-v",
            "search",
            "longfolderword",
            "--format",
            "json",
        ],
        &[("MDGRAPH_WATCH_WAIT_MS", OsStr::new("30000"))],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("\"QRY-TSK-0004\""), "{}", out.stdout);
    assert!(freshness(&out).starts_with("freshness: watcher ("), "{}", out.stderr);
    drop(w);
}

/// SIGTERM (what a service manager sends) stops `index --watch` as cleanly as Ctrl-C:
/// its socket and run file are removed.
#[test]
fn sigterm_stops_the_watcher_cleanly() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let mut w = Watcher::index(&f);
    assert!(f.index().join(".watch.sock").exists());
    let term = Command::new("kill")
        .args(["-TERM", &w.child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    assert!(w.child.wait().unwrap().success());
    assert!(!f.index().join(".watch.sock").exists());
    assert!(!f.index().join(".watch.run").exists());
}

/// Clients that send garbage, an endless line, nothing, or a request and go away get no
/// token and do not stop the watcher: a real query after them is still vouched for.
#[test]
fn hostile_clients_do_not_stop_the_watcher() {
    use std::os::unix::net::UnixStream;
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let w = Watcher::index(&f);
    let sock = f.index().join(".watch.sock");
    let answer = |s: &mut UnixStream| {
        let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    };
    let mut garbage = UnixStream::connect(&sock).unwrap();
    garbage.write_all(b"\xff\xfe hello\n").unwrap();
    assert!(answer(&mut garbage).starts_with("no "));
    let mut endless = UnixStream::connect(&sock).unwrap();
    let _ = endless.write_all(&[b'x'; 64 * 1024]);
    assert!(answer(&mut endless).starts_with("no "));
    let mut wrong_key = UnixStream::connect(&sock).unwrap();
    wrong_key.write_all(b"mdgraph-watch 1 sync 0123\n").unwrap();
    assert!(answer(&mut wrong_key).starts_with("no this watcher watches another"));
    let silent = UnixStream::connect(&sock).unwrap();
    let mut gone = UnixStream::connect(&sock).unwrap();
    gone.write_all(b"mdgraph-watch 1 sync ").unwrap();
    drop(gone);
    edit(&f, "afterhostileword");
    let out = query(&f, &["-v", "search", "afterhostileword", "--format", "json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("\"QRY-TSK-0004\""), "{}", out.stdout);
    assert!(freshness(&out).starts_with("freshness: watcher ("), "{}", out.stderr);
    drop(silent);
    drop(w);
}
