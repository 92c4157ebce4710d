//! The command line run in-process against a stand-in terminal (the integration tests in
//! `tests/suite` run the real binary; these need to fake a terminal's stderr).

use super::term::Terminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A temp dir holding a copy of `backlog-fixtures/` as `backlog/`.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        fn copy_dir(from: &Path, to: &Path) {
            std::fs::create_dir_all(to).unwrap();
            for e in std::fs::read_dir(from).unwrap() {
                let e = e.unwrap();
                let t = to.join(e.file_name());
                if e.file_type().unwrap().is_dir() {
                    copy_dir(&e.path(), &t);
                } else {
                    std::fs::copy(e.path(), t).unwrap();
                }
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        copy_dir(&repo.join("backlog-fixtures"), &dir.path().join("backlog"));
        Fixture { dir }
    }
    fn index(&self) -> PathBuf {
        self.dir.path().join("_index")
    }
}

/// A buffer that stands in for the terminal's stderr.
fn sink() -> (Arc<Mutex<Vec<u8>>>, mdgraph::ProgressSink) {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let s: mdgraph::ProgressSink = buf.clone();
    (buf, s)
}

fn run_lib(f: &Fixture, term: &Terminal, args: &[&str]) -> (i32, String, String) {
    let mut full = vec!["mdgraph", "--root", "backlog", "--index-dir", "_index"];
    full.extend_from_slice(args);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = super::run_with_terminal(
        full.into_iter().map(Into::into).collect(),
        f.dir.path(),
        &mut out,
        &mut err,
        term,
    );
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

#[test]
fn progress_line_on_a_terminal_is_drawn_and_erased_never_elsewhere() {
    let f = Fixture::new();
    let (buf, s) = sink();
    let tty = Terminal {
        stderr_tty: true,
        progress_sink: Some(s.clone()),
        // As if the run had already taken longer than the delay.
        progress_delay: std::time::Duration::ZERO,
        ..Terminal::default()
    };
    let (code, _, err) = run_lib(&f, &tty, &["index"]);
    assert_eq!(code, 0, "{err}");
    let drawn = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
    assert!(
        drawn.contains("    indexing [") && drawn.contains("/59 parsing"),
        "{drawn:?}"
    );
    assert!(drawn.contains("indexing … writing the SQLite mirror"), "{drawn:?}");
    assert!(drawn.ends_with("\r\x1b[2K"), "the line is erased at the end: {drawn:?}");
    // The messages themselves stay clean.
    assert!(err.starts_with("indexed 59 files") && !err.contains('\r'), "{err:?}");

    // A search that has to build the index draws it too.
    std::fs::remove_dir_all(f.index()).unwrap();
    buf.lock().unwrap().clear();
    let (code, _, _) = run_lib(&f, &tty, &["search", "pdf export"]);
    assert_eq!(code, 0);
    assert!(
        String::from_utf8(buf.lock().unwrap().clone())
            .unwrap()
            .contains("parsing")
    );

    // Not on --quiet, not in CI, not into a pipe.
    for (term, args) in [
        (tty.clone(), vec!["--quiet", "index", "--full"]),
        (
            Terminal {
                ci: true,
                ..tty.clone()
            },
            vec!["index", "--full"],
        ),
        (
            Terminal {
                stderr_tty: false,
                ..tty.clone()
            },
            vec!["index", "--full"],
        ),
    ] {
        buf.lock().unwrap().clear();
        let (code, _, _) = run_lib(&f, &term, &args);
        assert_eq!(code, 0);
        assert!(buf.lock().unwrap().is_empty(), "{term:?} {args:?}");
    }
}
