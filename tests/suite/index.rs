//! `mdgraph index`: sidecar contents, determinism, no-op reruns, bad input.

use crate::common::*;
use crate::snap;

#[test]
fn fixtures_sidecar_snapshot() {
    let f = Fixture::new("backlog-fixtures");
    let out = f.run(&["index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    snap!("fixtures_graph_nodes", f.read_index("graph_nodes.jsonl"));
    snap!("fixtures_graph_edges", f.read_index("graph_edges.jsonl"));
    snap!("fixtures_diagnostics", f.read_index("diagnostics.jsonl"));
    snap!("fixtures_meta", f.read_index("meta.json"));
}

#[test]
fn broken_fixture_is_indexed_with_diagnostics() {
    let f = Fixture::new("tests/fixtures/broken");
    let out = f.run(&["index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    snap!("broken_index_stderr", out.stderr);
    snap!("broken_diagnostics", f.read_index("diagnostics.jsonl"));
    // The file with invalid YAML is still a node, with fields read leniently.
    let nodes = f.read_index("graph_nodes.jsonl");
    let bad: serde_json::Value = nodes
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|n| n["id"] == "BRK-TSK-0001")
        .expect("the invalid-YAML file is indexed");
    assert_eq!(bad["fields"]["assignee"], "@dana");
    assert_eq!(bad["title"], "Render the PDF");
}

#[test]
fn rebuild_is_byte_identical_across_folders() {
    let a = Fixture::new("backlog-fixtures");
    let b = Fixture::new("backlog-fixtures");
    assert_eq!(a.run(&["index"]).code, 0);
    assert_eq!(b.run(&["index", "--full"]).code, 0);
    // The local caches (the stat cache: inode numbers, times; the document table) and the
    // SQLite mirror are not part of the byte-identical contract.
    let contract = |f: &Fixture| {
        let mut h = tree_hashes(&f.index());
        h.remove(".stat-cache");
        h.remove(".doc-table");
        h.remove("index.sqlite");
        h.remove(".lock");
        h
    };
    let first = contract(&a);
    // graph_nodes, graph_edges, diagnostics, meta, .gitignore (a local index: no
    // .gitattributes).
    assert_eq!(first.len(), 5, "{first:?}");
    assert_eq!(first, contract(&b));
    // A full rebuild in place produces the same bytes again.
    std::fs::remove_dir_all(a.index()).unwrap();
    assert_eq!(a.run(&["index", "--full"]).code, 0);
    assert_eq!(first, contract(&a));
}

#[test]
fn second_index_rewrites_nothing() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    // Every file but the stat cache, which records files as settled once the racy window
    // has passed since they changed (the suite's window is short: the next run may be
    // past it).
    let mtimes = |f: &Fixture| -> Vec<(String, std::time::SystemTime)> {
        let mut v: Vec<_> = std::fs::read_dir(f.index())
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_name() != ".stat-cache")
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    e.metadata().unwrap().modified().unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let before = mtimes(&f);
    let out = f.run(&["index"]);
    assert_eq!(out.code, 0);
    assert!(out.stderr.contains("index is up to date"), "{}", out.stderr);
    assert_eq!(before, mtimes(&f));
    // --full recomputes but writes nothing when the bytes are the same.
    let out = f.run(&["index", "--full"]);
    assert!(out.stderr.contains("nothing changed"), "{}", out.stderr);
    assert_eq!(before, mtimes(&f));
}

#[test]
fn incremental_reparses_only_changed_files() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let adr = std::fs::read_dir(f.root().join("decisions"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut text = std::fs::read_to_string(&adr).unwrap();
    text.push_str("\nAn added line.\n");
    std::fs::write(&adr, text).unwrap();
    let out = f.run(&["index", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["parsed"], 1, "{}", out.stdout);
    assert!(v["reused"].as_u64().unwrap() > 40);
}

#[test]
fn config_errors_name_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mdgraph.toml"),
        "root = \".\"\n\n[ids]\ncase_insensitve = true\n",
    )
    .unwrap();
    let out = run_in(dir.path(), &["index"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("mdgraph.toml:4:"), "{}", out.stderr);
    assert!(out.stderr.contains("case_insensitve"), "{}", out.stderr);
}

#[test]
fn missing_root_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["--root", "nope", "index"]);
    assert_eq!(out.code, 2);
    assert!(
        !dir.path().join("nope").exists(),
        "nothing is created for a missing root"
    );
    assert!(out.stderr.contains("nope: backlog root not found"), "{}", out.stderr);
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_root_and_loops_are_skipped() {
    let f = Fixture::new("backlog-fixtures");
    let outside = f.dir.path().join("outside.md");
    std::fs::write(&outside, "---\nid: OUT-1\n---\n# Outside\n").unwrap();
    std::os::unix::fs::symlink(&outside, f.root().join("escape.md")).unwrap();
    std::os::unix::fs::symlink(f.root().join("items"), f.root().join("items/loop")).unwrap();
    std::os::unix::fs::symlink("README.md", f.root().join("alias.md")).unwrap();
    // An absolute link leads elsewhere in a clone elsewhere: no checkout would read it.
    std::os::unix::fs::symlink(f.root().join("README.md"), f.root().join("alias-abs.md")).unwrap();
    let out = f.run(&["index"]);
    assert!(
        out.stderr
            .contains("alias-abs.md:1:1: warning[symlink-outside-root]: symlink to an absolute path"),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("escape.md:1:1: warning[symlink-outside-root]"),
        "{}",
        out.stderr
    );
    let nodes = f.read_index("graph_nodes.jsonl");
    assert!(!nodes.contains("\"OUT-1\""), "a file outside the root was indexed");
    assert!(!nodes.contains("items/loop/"), "a symlinked folder was walked twice");
    assert!(
        nodes.contains("\"path\":\"alias.md\""),
        "a relative symlink to a file inside the root is indexed"
    );
    assert!(!nodes.contains("alias-abs.md"), "an absolute symlink is indexed");
}

#[test]
fn gitignore_and_globs_are_honoured() {
    let f = Fixture::new("backlog-fixtures");
    std::fs::create_dir_all(f.root().join("drafts")).unwrap();
    std::fs::write(f.root().join("drafts/D-1_draft.md"), "# Draft\n").unwrap();
    std::fs::write(f.root().join("notes.txt"), "not markdown").unwrap();
    std::fs::write(f.root().join(".gitignore"), "drafts/\n").unwrap();
    assert_eq!(f.run(&["index"]).code, 0);
    let meta = f.read_index("meta.json");
    assert!(!meta.contains("drafts/") && !meta.contains("notes.txt"), "{meta}");
    // An exclude glob in the config drops the ADRs.
    std::fs::write(
        f.dir.path().join("mdgraph.toml"),
        "root = \"backlog\"\n[scan]\nexclude = [\"decisions/**\"]\n",
    )
    .unwrap();
    let out = run_in(f.dir.path(), &["index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let meta = std::fs::read_to_string(f.root().join("_index/meta.json")).unwrap();
    assert!(!meta.contains("decisions/ADR-"), "exclude glob ignored");
    // References to the excluded ADRs now dangle, and say so.
    assert!(
        out.stderr
            .contains("error[dangling-reference]: `decisions` refers to `ADR-"),
        "{}",
        out.stderr
    );
}

#[test]
fn oversized_file_is_skipped_with_a_diagnostic() {
    let f = Fixture::new("backlog-fixtures");
    std::fs::write(
        f.dir.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n[scan]\nmax_file_size = 1000\n",
    )
    .unwrap();
    std::fs::write(f.root().join("SMALL.md"), "# Small\n").unwrap();
    let out = run_in(f.dir.path(), &["index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("README.md:1:1: warning[file-too-large]"),
        "{}",
        out.stderr
    );
    // Small files are still indexed.
    assert!(f.read_index("graph_nodes.jsonl").contains("\"path\":\"SMALL.md\""));
}

#[test]
fn readme_config_reference_is_valid_and_complete() {
    // docs/configuration.md documents every key with its default: it must load, and it
    // must give the same settings as no config at all.
    let readme = std::fs::read_to_string(repo().join("docs/configuration.md")).unwrap();
    let reference = readme.split("## Configuration (`mdgraph.toml`)").nth(1).unwrap();
    let block = reference
        .split("```toml\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("r")).unwrap();
    std::fs::write(dir.path().join("mdgraph.toml"), block).unwrap();
    let ov = mdgraph::Overrides::default();
    let documented = mdgraph::Config::load(dir.path(), &ov).unwrap();
    let bare_dir = tempfile::tempdir().unwrap();
    let defaults = mdgraph::Config::load(bare_dir.path(), &ov).unwrap();
    assert_eq!(documented.settings, defaults.settings);
    assert_eq!(documented.retrieval, defaults.retrieval);
    assert_eq!(documented.sqlite, defaults.sqlite);
    assert_eq!(
        documented.baseline.strip_prefix(dir.path()).unwrap(),
        defaults.baseline.strip_prefix(bare_dir.path()).unwrap()
    );
}

#[test]
fn concurrent_runs_take_turns_and_leftovers_are_cleaned() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    // Leftovers of a killed run: a temporary file and a lock file nobody holds.
    std::fs::write(f.index().join(".graph_nodes.jsonl.tmp-999999"), "partial").unwrap();
    assert!(f.index().join(".lock").is_file());
    std::fs::write(f.root().join("NEW.md"), "# New\nfresh text\n").unwrap();
    let children: Vec<_> = (0..4)
        .map(|i| {
            let args: Vec<&str> = if i % 2 == 0 {
                vec!["index"]
            } else {
                vec!["index", "--full"]
            };
            std::process::Command::new(BIN)
                .args(["--root", "backlog", "--index-dir", "_index"])
                .args(args)
                .current_dir(f.dir.path())
                .env_clear()
                .env(RACY_ENV, RACY_MS.to_string())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert_eq!(c.wait().unwrap().code(), Some(0));
    }
    assert_eq!(f.run(&["check"]).code, 0, "the index is complete and fresh");
    assert!(
        !f.index().join(".graph_nodes.jsonl.tmp-999999").exists(),
        "leftover removed"
    );
    assert_eq!(f.run(&["search", "fresh text", "--no-refresh"]).code, 0);
    // A writer killed with `kill -9` (a pid no longer running): the next reader removes
    // its temporary files, as the next writer would.
    if std::path::Path::new("/proc/self").exists() {
        let dead = f.index().join(".graph_edges.jsonl.tmp-999998");
        std::fs::write(&dead, "partial").unwrap();
        assert_eq!(f.run(&["search", "fresh text", "--no-refresh"]).code, 0);
        assert!(!dead.exists(), "a dead writer's temporary file outlived the next run");
    }
}

#[test]
fn usage_errors_exit_2_without_escape_codes() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["bogus"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("unrecognized subcommand 'bogus'"), "{}", out.stderr);
    assert!(!out.stderr.contains('\u{1b}'), "no colour codes on a pipe");
    let help = run_in(dir.path(), &["--help"]);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("Usage: mdgraph") && !help.stdout.contains('\u{1b}'));
}

#[test]
fn completions_and_man_page() {
    // They need no configuration, not even a valid one.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mdgraph.toml"), "not = [valid").unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let out = run_in(dir.path(), &["completions", shell]);
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        for cmd in ["index", "check", "search", "pack", "neighbors", "show"] {
            assert!(out.stdout.contains(cmd), "{shell} completion lacks {cmd}");
        }
    }
    snap!("completions_bash", run_in(dir.path(), &["completions", "bash"]).stdout);
    let man = run_in(dir.path(), &["man"]);
    assert_eq!(man.code, 0);
    // No version in snapshots: it changes with every release.
    snap!("man_page", man.stdout.replace(env!("CARGO_PKG_VERSION"), "[VERSION]"));
}

/// `index --watch` keeps the index fresh: an edit makes `check` pass again within 3 s
/// with no other command, and Ctrl-C (SIGINT) stops it cleanly.
#[cfg(unix)]
#[test]
fn watch_keeps_the_index_fresh_and_stops_on_ctrl_c() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let f = Fixture::committed("backlog-fixtures");
    let mut child = std::process::Command::new(BIN)
        .args(["--root", "backlog", "--index-dir", "_index", "index", "--watch"])
        .current_dir(f.dir.path())
        .env_clear()
        .env(RACY_ENV, RACY_MS.to_string())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // Wait until it watches.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let line = rx.recv_timeout(deadline - Instant::now()).expect("watching line");
        if line.starts_with("watching ") {
            break;
        }
    }
    let item = f
        .root()
        .join("items/task/0000/QRY-TSK-0004_build-signature-pad-with-vector-stroke-capture.md");
    let text = std::fs::read_to_string(&item).unwrap();
    // As an editor saves: write a temporary file, rename it over the original.
    let tmp = item.with_extension("md.tmp~");
    std::fs::write(&tmp, text.replace("Drawing latency", "Drawing latency (measured)")).unwrap();
    std::fs::rename(&tmp, &item).unwrap();
    let edited = Instant::now();
    let mut fresh = false;
    while edited.elapsed() < Duration::from_secs(3) {
        if f.run(&["check"]).code == 0 {
            fresh = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let refreshed = rx.recv_timeout(Duration::from_secs(5)).unwrap_or_default();
    assert!(fresh, "check did not pass within 3 s of the edit ({refreshed})");
    assert!(refreshed.starts_with("refreshed in"), "{refreshed}");
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let rest: Vec<String> = rx.try_iter().collect();
    assert!(rest.iter().any(|l| l == "stopped watching"), "{rest:?}");
}
