//! Nothing is lost: every command, on success and on every error path, leaves every byte,
//! permission and modification time outside the index folder as it was, creates nothing
//! outside it (not in the working directory, not in `$HOME`, not in `$TMPDIR`), and
//! never touches a source file.

use crate::common::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Everything under `dir` except the folder `skip`: files (content hash, size, mode,
/// mtime), folders and symlinks (their target), by relative path.
fn state(dir: &Path, skip: &Path) -> BTreeMap<String, String> {
    use std::os::unix::fs::MetadataExt;
    let mut out = BTreeMap::new();
    fn walk(base: &Path, dir: &Path, skip: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p == skip {
                continue;
            }
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            let md = std::fs::symlink_metadata(&p).unwrap();
            let what = if md.file_type().is_symlink() {
                format!("link {}", std::fs::read_link(&p).unwrap().display())
            } else if md.is_dir() {
                walk(base, &p, skip, out);
                format!("dir {:o} {}", md.mode(), md.mtime_nsec() + md.mtime() * 1_000_000_000)
            } else {
                let hash = blake3::hash(&std::fs::read(&p).unwrap()).to_hex().to_string();
                format!(
                    "file {hash} {} {:o} {}.{}",
                    md.len(),
                    md.mode(),
                    md.mtime(),
                    md.mtime_nsec()
                )
            };
            out.insert(rel, what);
        }
    }
    walk(dir, dir, skip, &mut out);
    out
}

/// Run the binary in `cwd` with only HOME and TMPDIR set (to folders that must stay empty).
fn run_env(cwd: &Path, home: &Path, tmp: &Path, args: &[&str]) -> Output {
    let out = std::process::Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env(RACY_ENV, RACY_MS.to_string())
        .env("HOME", home)
        .env("TMPDIR", tmp)
        .output()
        .unwrap();
    out.into()
}

/// Every command (and error path) of the CLI, for a backlog whose config is in `cwd`.
fn commands(id: &str) -> Vec<Vec<String>> {
    let q = "what is blocking the export";
    let cmds: Vec<Vec<&str>> = vec![
        vec!["index"],
        vec!["index", "--full"],
        vec!["index", "--format", "json"],
        vec!["--no-sqlite", "index", "--full"],
        vec!["check"],
        vec!["check", "--strict"],
        vec!["check", "--format", "json"],
        vec!["search", q],
        vec!["search", q, "--no-graph", "--format", "json"],
        vec!["--no-sqlite", "search", q],
        vec!["search", "zzzqqq nothing matches"],
        vec!["search", "\"unbalanced NEAR( *"],
        vec!["pack", q],
        vec!["pack", q, "--budget", "50", "--format", "json"],
        vec!["neighbors", id],
        vec!["neighbors", id, "--depth", "2", "--format", "mermaid"],
        vec!["neighbors", id, "--format", "dot"],
        vec!["neighbors", id, "--format", "json"],
        vec!["show", id],
        vec!["show", id, "--format", "json"],
        vec!["completions", "bash"],
        vec!["completions", "zsh"],
        vec!["completions", "fish"],
        vec!["completions", "elvish"],
        vec!["completions", "powershell"],
        vec!["man"],
        vec!["eval", "backlog/queries.jsonl"],
        // Error paths. (`init` and `hook install` write outside the index folder by
        // design, when asked; here a config exists and there is no git repository, so
        // they must refuse and touch nothing.)
        vec!["init"],
        vec!["hook", "install"],
        vec!["eval", "no-such-queries.jsonl"],
        vec!["show", "NO-SUCH-ID"],
        vec!["neighbors", "NO-SUCH-ID"],
        vec!["neighbors", id, "--depth", "99"],
        vec!["bogus-command"],
        vec!["--config", "missing.toml", "index"],
        vec!["--root", "no-such-root", "index"],
        vec!["--root", "no-such-root", "check"],
        vec!["pack", q, "--budget", "0"],
        vec!["search", q, "--no-refresh"],
        vec!["--index-dir", "mdgraph.toml", "index"],
    ];
    cmds.into_iter()
        .map(|c| c.into_iter().map(String::from).collect())
        .collect()
}

fn assert_untouched(fixture: &str, index_inside_root: bool) {
    let f = Fixture::new(fixture);
    let top = f.dir.path();
    let (home, tmp) = (top.join("home"), top.join("tmp"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let index = if index_inside_root {
        std::fs::write(top.join("mdgraph.toml"), "root = \"backlog\"\n").unwrap();
        f.root().join("_index")
    } else {
        std::fs::write(top.join("mdgraph.toml"), "root = \"backlog\"\nindex_dir = \"_index\"\n").unwrap();
        top.join("_index")
    };
    // Sources that must survive too: a read-only file and a symlink.
    let ro = f.root().join("READONLY.md");
    std::fs::write(&ro, "---\nid: RO-1\n---\n# Read-only\n").unwrap();
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&ro, perms).unwrap();
    std::os::unix::fs::symlink("READONLY.md", f.root().join("link.md")).unwrap();

    // The index folder exists before the first run, so its creation does not count as a
    // change of its parent folder's mtime.
    std::fs::create_dir_all(&index).unwrap();
    let id = if fixture.contains("broken") {
        "BRK-FTR-0001"
    } else {
        "ADR-0001"
    };
    let before = state(top, &index);
    let mut codes = Vec::new();
    for args in commands(id) {
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_env(top, &home, &tmp, &argv);
        assert!(
            !out.stderr.contains("panicked"),
            "{fixture}: mdgraph {argv:?} panicked: {}",
            out.stderr
        );
        codes.push(out.code);
        let after = state(top, &index);
        let changed: Vec<&String> = before
            .keys()
            .chain(after.keys())
            .filter(|k| before.get(*k) != after.get(*k))
            .collect();
        assert!(
            changed.is_empty(),
            "{fixture} (index inside root: {index_inside_root}): mdgraph {argv:?} changed {changed:?} outside the index folder"
        );
    }
    // The error paths really were errors (the loop above covered them, not skipped them).
    assert!(
        codes.contains(&2) && codes.contains(&1) && codes.contains(&0),
        "{codes:?}"
    );
    assert!(std::fs::read_dir(&home).unwrap().next().is_none(), "wrote to $HOME");
    assert!(std::fs::read_dir(&tmp).unwrap().next().is_none(), "wrote to $TMPDIR");
}

#[test]
fn every_command_leaves_everything_outside_the_index_untouched() {
    assert_untouched("backlog-fixtures", false);
    assert_untouched("tests/fixtures/broken", false);
}

#[test]
fn index_inside_the_root_touches_nothing_else() {
    assert_untouched("backlog-fixtures", true);
}
