//! The hook and `check` judge files as git stores them, with real git: in an `autocrlf`
//! checkout the committed index is the one an LF clone computes (CRLF is read as LF), and
//! an absolute symlink, whose blob is a path that leads elsewhere in a clone elsewhere, is
//! no document in any checkout; a relative one is the staged file it names.

use crate::common::*;
use crate::hook::{Repo, TASK, git_available, mdgraph_with_git};

/// A clone of `r` (no `autocrlf`: the test's git has no user config) and its `check`.
fn clone_check(r: &Repo) -> (tempfile::TempDir, Output) {
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join("clone");
    let src = r.path().to_str().unwrap();
    r.git_ok(&["clone", "-q", src, dst.to_str().unwrap()]);
    let out = mdgraph_with_git(&dst, &["check"]);
    (dir, out)
}

/// Commit everything (index rebuilt first): accepted.
fn commit_all(r: &Repo, what: &str) {
    assert_eq!(r.mdgraph(&["index"]).code, 0, "{what}");
    r.git_ok(&["add", "-A"]);
    let out = r.git(&["commit", "-q", "-m", what]);
    assert_eq!(out.code, 0, "{what}: {}{}", out.stdout, out.stderr);
}

#[test]
fn an_autocrlf_commit_holds_the_index_an_lf_clone_computes() {
    if !git_available() {
        return;
    }
    let r = Repo::new();
    r.git_ok(&["config", "core.autocrlf", "true"]);
    to_crlf(md_files(&r.path().join("backlog")));
    commit_all(&r, "backlog, CRLF in the working tree");
    assert_eq!(r.mdgraph(&["hook", "install"]).code, 0);
    // git stored LF: the clone's `check` finds the committed index exact.
    let (_keep, out) = clone_check(&r);
    assert_eq!(
        out.code, 0,
        "an LF clone sees the committed index stale: {}",
        out.stdout
    );

    // An edit (CRLF) committed with its index: accepted, and exact in a clone.
    let task = r.path().join("backlog").join(TASK);
    let text = std::fs::read_to_string(&task).unwrap();
    assert!(text.contains("\r\n"));
    std::fs::write(
        &task,
        text.replacen("# Context\r\n", "# Context\r\n\r\nResumes.\r\n", 1),
    )
    .unwrap();
    commit_all(&r, "an edit");
    let (_keep, out) = clone_check(&r);
    assert_eq!(out.code, 0, "{}", out.stdout);

    // An edit committed without its index: refused.
    std::fs::write(&task, text.replacen("# Context\r\n", "# Context\r\n\r\nAgain.\r\n", 1)).unwrap();
    r.git_ok(&["add", "backlog"]);
    let out = r.git(&["commit", "-q", "-m", "stale"]);
    assert_ne!(out.code, 0, "a stale index went through");
    assert!(format!("{}{}", out.stdout, out.stderr).contains("stale-index"));
}

#[test]
fn a_symlink_is_judged_as_git_stores_it() {
    if !git_available() {
        return;
    }
    let r = Repo::new();
    let notes = r.path().join("backlog/notes.md");
    std::fs::write(&notes, "# Notes\n\nShared notes.\n").unwrap();
    // An absolute link into the repository: a clone elsewhere has it lead elsewhere.
    std::os::unix::fs::symlink(&notes, r.path().join("backlog/notes-abs.md")).unwrap();
    // A relative one: the same file in every checkout.
    std::os::unix::fs::symlink("notes.md", r.path().join("backlog/notes-rel.md")).unwrap();
    commit_all(&r, "links");
    assert_eq!(r.mdgraph(&["hook", "install"]).code, 0);
    let nodes = std::fs::read_to_string(r.path().join("_index/graph_nodes.jsonl")).unwrap();
    assert!(!nodes.contains("notes-abs.md"), "an absolute symlink is read");
    assert!(nodes.contains("notes-rel.md"), "a relative symlink is not read");
    let diags = std::fs::read_to_string(r.path().join("_index/diagnostics.jsonl")).unwrap();
    assert!(
        diags.contains("notes-abs.md") && diags.contains("absolute path"),
        "{diags}"
    );
    assert!(
        !diags.contains(r.path().to_str().unwrap()),
        "an absolute path in the index: {diags}"
    );
    let (_keep, out) = clone_check(&r);
    assert_eq!(out.code, 0, "a clone sees the committed index stale: {}", out.stdout);

    // The target's staged text is what the relative link holds: staged with a dangling
    // reference, the working tree put back, the commit is refused in both modes.
    std::fs::write(&notes, "---\ndecisions: [ADR-0404]\n---\n# Notes\n").unwrap();
    r.git_ok(&["add", "backlog/notes.md"]);
    std::fs::write(&notes, "# Notes\n\nShared notes.\n").unwrap();
    let out = r.mdgraph(&["check", "--staged"]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout.contains("notes-rel.md") && out.stdout.contains("`ADR-0404`"),
        "{}",
        out.stdout
    );
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n",
    )
    .unwrap();
    r.git_ok(&["add", "mdgraph.toml"]);
    let out = r.mdgraph(&["check", "--staged"]);
    assert_ne!(out.code, 0, "local mode: {}", out.stdout);
    assert!(
        out.stdout.contains("notes-rel.md") && out.stdout.contains("`ADR-0404`"),
        "{}",
        out.stdout
    );
}
