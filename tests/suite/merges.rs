//! Commit mode (`commit_index = true`) after merges, cherry-picks and rebases, with real
//! git and the merge driver: every merge either leaves an index that `check` passes and
//! that equals `index --full` byte for byte, or one that `check` fails naming `mdgraph
//! index`, in the working tree and in a `git archive` of HEAD. The cases are those of
//! issue 35: effects across files (a deleted id, an added id, a body mention, a config
//! rule), a cherry-picked hotfix merged twice, one new id on both sides, garbage handed
//! to the driver, an index folder whose name starts with `-`.

use crate::common::*;
use crate::hook::{Repo, TASK, TASK8, TASK9, git_available, mdgraph_with_git};
use std::path::Path;
use std::process::Command;

const SPARE: &str = "items/task/0000/QRY-TSK-0099_spare-task.md";

fn item(id: &str, body: &str) -> String {
    format!(
        "---\nid: {id}\ntype: Task\ntitle: \"Task {id}\"\nstate: Open\nparent: QRY-FTR-0004\n---\n\n# Context\n\n{body}\n"
    )
}

/// A committed repository with the merge driver defined (no hooks: some branches below
/// commit errors on purpose, and the post-merge hook would rebuild the merged index) and a spare item nobody references.
fn driver_repo() -> Repo {
    let r = Repo::committed();
    assert_eq!(r.mdgraph(&["hook", "install"]).code, 0);
    for hook in ["pre-commit", "pre-merge-commit", "post-merge", "post-rewrite"] {
        std::fs::remove_file(r.path().join(".git/hooks").join(hook)).unwrap();
    }
    write(&r, SPARE, &item("QRY-TSK-0099", "A spare task."));
    commit(&r, "spare");
    r
}

fn write(r: &Repo, rel: &str, text: &str) {
    std::fs::write(r.path().join("backlog").join(rel), text).unwrap();
}

/// Re-index, stage everything and commit.
fn commit(r: &Repo, msg: &str) {
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    r.git_ok(&["add", "-A"]);
    r.git_ok(&["commit", "-q", "-m", msg]);
}

/// Replace `from` with `to` in a backlog file (no staging).
fn change(r: &Repo, rel: &str, from: &str, to: &str) {
    let p = r.path().join("backlog").join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{rel} lacks {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

/// Branch `a` and `b` off the current branch, each made by its closure and committed;
/// back on the current branch, `a` is merged first (fast-forward), then `b`. Returns the
/// output of the second merge.
fn merge_two(r: &Repo, a: impl Fn(&Repo), b: impl Fn(&Repo)) -> Output {
    let main = r.git_ok(&["branch", "--show-current"]).trim().to_string();
    for (name, f) in [("a", &a as &dyn Fn(&Repo)), ("b", &b)] {
        r.git_ok(&["checkout", "-q", "-b", name, &main]);
        f(r);
        commit(r, name);
    }
    r.git_ok(&["checkout", "-q", &main]);
    r.git_ok(&["merge", "-q", "--no-edit", "a"]);
    r.git(&["merge", "-q", "--no-edit", "b"])
}

/// The index files' bytes.
fn index_bytes(dir: &Path) -> Vec<Vec<u8>> {
    [
        "graph_nodes.jsonl",
        "graph_edges.jsonl",
        "diagnostics.jsonl",
        "meta.json",
    ]
    .iter()
    .map(|n| std::fs::read(dir.join("_index").join(n)).unwrap_or_default())
    .collect()
}

/// `check --format json` in `dir`: whether it says the index is fresh, and its output.
fn fresh_in(dir: &Path) -> (bool, String) {
    let out = mdgraph_with_git(dir, &["check", "--format", "json"]);
    assert!(out.code < 2, "{}{}", out.stdout, out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    (v["fresh"].as_bool().unwrap(), out.stdout)
}

/// HEAD unpacked from `git archive` into a temp folder.
fn archive(r: &Repo) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let tar = tmp.path().join("head.tar");
    r.git_ok(&["archive", "-o", tar.to_str().unwrap(), "HEAD"]);
    let status = Command::new("tar")
        .arg("-xf")
        .arg(&tar)
        .arg("-C")
        .arg(tmp.path())
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::remove_file(&tar).unwrap();
    tmp
}

/// The promise after a merge: `check` passes exactly when the committed index is what
/// `index --full` writes, and otherwise names `mdgraph index`, in the working tree and in
/// an archive of HEAD; then a plain `mdgraph index` makes it exact. Returns whether the
/// merge left it exact.
fn exact_or_says_stale(r: &Repo, case: &str) -> bool {
    let (fresh, said) = fresh_in(r.path());
    let head = archive(r);
    let (fresh_archive, said_archive) = fresh_in(head.path());
    let committed = index_bytes(r.path());
    assert_eq!(committed, index_bytes(head.path()), "{case}: the working tree is HEAD");
    // What a full rebuild writes, in the archive (the working tree is left as merged).
    assert_eq!(mdgraph_with_git(head.path(), &["index", "--full"]).code, 0);
    let exact = committed == index_bytes(head.path());
    assert_eq!(fresh, exact, "{case}: check says fresh={fresh}, exact={exact}\n{said}");
    assert_eq!(fresh_archive, exact, "{case} (archive): {said_archive}");
    if !exact {
        assert!(said.contains("run `mdgraph index`"), "{case}: {said}");
    }
    // A plain `index` (not only `--full`) repairs it.
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    assert_eq!(index_bytes(r.path()), index_bytes(head.path()), "{case}: plain index");
    assert!(fresh_in(r.path()).0, "{case}: fresh after `mdgraph index`");
    exact
}

fn relate(r: &Repo, rel: &str, id: &str) {
    change(r, rel, "  relates: [", &format!("  relates: [{id}, "));
}

#[test]
fn a_deleted_id_referenced_on_the_other_side_says_stale() {
    if !git_available() {
        return;
    }
    let r = driver_repo();
    let out = merge_two(
        &r,
        |r| std::fs::remove_file(r.path().join("backlog").join(SPARE)).unwrap(),
        |r| relate(r, TASK8, "QRY-TSK-0099"),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!exact_or_says_stale(&r, "deleted id"), "a dangling reference is new");
    let (_, said) = fresh_in(r.path());
    assert!(said.contains("QRY-TSK-0099"), "{said}");
}

#[test]
fn an_added_id_referenced_or_mentioned_on_the_other_side_says_stale() {
    if !git_available() {
        return;
    }
    // The reference: a false error (the dangling reference of side b) until rebuilt.
    let r = driver_repo();
    let added = "items/task/0000/QRY-TSK-0098_added-task.md";
    let out = merge_two(
        &r,
        |r| write(r, added, &item("QRY-TSK-0098", "Added on one side.")),
        |r| relate(r, TASK8, "QRY-TSK-0098"),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!exact_or_says_stale(&r, "added id, referenced"));
    let (fresh, said) = fresh_in(r.path());
    assert!(fresh && !said.contains("dangling"), "{said}");

    // The mention in a body: the edge is missing until rebuilt.
    let r = driver_repo();
    let added = "items/task/0000/QRY-TSK-0097_mentioned-task.md";
    let out = merge_two(
        &r,
        |r| write(r, added, &item("QRY-TSK-0097", "Added on one side.")),
        |r| change(r, TASK9, "# Context\n", "# Context\n\nSee QRY-TSK-0097 for the rest.\n"),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!exact_or_says_stale(&r, "added id, mentioned"));
    let edges = std::fs::read_to_string(r.path().join("_index/graph_edges.jsonl")).unwrap();
    assert!(
        edges
            .lines()
            .any(|l| l.contains("\"mentions\"") && l.contains("QRY-TSK-0097")),
        "the mention is an edge once rebuilt"
    );
}

#[test]
fn a_rule_turned_off_against_a_new_violation_says_stale() {
    if !git_available() {
        return;
    }
    let r = driver_repo();
    let out = merge_two(
        &r,
        |r| {
            let cfg = r.path().join("mdgraph.toml");
            let text = std::fs::read_to_string(&cfg).unwrap();
            let off = "[check]\nseverity = { \"dangling-reference\" = \"off\" }\n";
            std::fs::write(&cfg, format!("{text}{off}")).unwrap();
        },
        |r| relate(r, TASK8, "QRY-TSK-0404"),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!exact_or_says_stale(&r, "rule off"));
    let out = r.mdgraph(&["check"]);
    assert_eq!(out.code, 0, "the rule is off: {}", out.stdout);
}

#[test]
fn parallel_edits_merge_exact_and_a_cherry_picked_hotfix_is_not_counted_twice() {
    if !git_available() {
        return;
    }
    let r = driver_repo();
    let main = r.git_ok(&["branch", "--show-current"]).trim().to_string();
    r.git_ok(&["branch", "release"]);
    r.git_ok(&["checkout", "-q", "-b", "hotfix"]);
    change(&r, TASK9, "# Context\n", "# Context\n\nHotfix words.\n");
    commit(&r, "hotfix");
    let hotfix = r.git_ok(&["rev-parse", "HEAD"]).trim().to_string();
    // The release branch has its own change, then the hotfix picked onto it.
    r.git_ok(&["checkout", "-q", "release"]);
    change(&r, TASK, "# Context\n", "# Context\n\nRelease words.\n");
    commit(&r, "release");
    let out = r.git(&["cherry-pick", &hotfix]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        exact_or_says_stale(&r, "cherry-pick"),
        "a cherry-pick of one item merges exactly"
    );
    r.git_ok(&["checkout", "-q", &main]);
    change(&r, TASK8, "# Context\n", "# Context\n\nMain words.\n");
    commit(&r, "main");
    let out = r.git(&["merge", "-q", "--no-edit", "hotfix"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(exact_or_says_stale(&r, "hotfix into main"));
    // Both sides now hold the hotfix's records: once in the merge, and in meta.json.
    let out = r.git(&["merge", "-q", "--no-edit", "release"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(exact_or_says_stale(&r, "release into main"));
    let out = r.mdgraph(&["check"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
}

#[test]
fn one_new_id_from_two_files_is_a_conflict_that_names_the_fix() {
    if !git_available() {
        return;
    }
    let r = driver_repo();
    let out = merge_two(
        &r,
        |r| {
            write(
                r,
                "items/task/0000/QRY-TSK-0096_left.md",
                &item("QRY-TSK-0096", "Left."),
            )
        },
        |r| {
            write(
                r,
                "items/task/0000/QRY-TSK-0096_right.md",
                &item("QRY-TSK-0096", "Right."),
            )
        },
    );
    assert_ne!(out.code, 0, "git must stop: {}{}", out.stdout, out.stderr);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(said.contains("Merge conflict in _index/graph_nodes.jsonl"), "{said}");
    assert!(
        said.contains("QRY-TSK-0096") && said.contains("run `mdgraph index`"),
        "{said}"
    );
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    r.git_ok(&["add", "-A"]);
    r.git_ok(&["commit", "-q", "--no-edit"]);
    assert!(fresh_in(r.path()).0);
}

#[test]
fn the_driver_refuses_garbage_and_truncated_files() {
    let tmp = tempfile::tempdir().unwrap();
    let good = std::fs::read(repo().join("_index/graph_edges.jsonl")).unwrap();
    let at = |n: &str| tmp.path().join(n);
    for (case, theirs) in [
        ("garbage", b"not json at all\n".to_vec()),
        ("truncated", good[..good.len() / 2].to_vec()),
    ] {
        std::fs::write(at("base"), &good).unwrap();
        std::fs::write(at("ours"), &good).unwrap();
        std::fs::write(at("theirs"), &theirs).unwrap();
        let out = run_in(
            tmp.path(),
            &[
                "merge-driver",
                "--",
                "base",
                "ours",
                "theirs",
                "_index/graph_edges.jsonl",
            ],
        );
        assert_eq!(out.code, 1, "{case}: {}", out.stderr);
        assert!(out.stderr.contains("run `mdgraph index`"), "{case}: {}", out.stderr);
        assert_eq!(std::fs::read(at("ours")).unwrap(), good, "{case}: ours is left");
    }
}

#[test]
fn an_index_folder_named_with_a_dash_merges() {
    if !git_available() {
        return;
    }
    let r = Repo::new();
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"-idx\"\ncommit_index = true\n",
    )
    .unwrap();
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    r.git_ok(&["add", "-A"]);
    r.git_ok(&["commit", "-q", "-m", "backlog"]);
    let out = r.mdgraph(&["hook", "install"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = merge_two(
        &r,
        |r| change(r, TASK, "# Context\n", "# Context\n\nLeft.\n"),
        |r| change(r, TASK8, "# Context\n", "# Context\n\nRight.\n"),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(r.git_ok(&["status", "--porcelain"]), "");
    let out = r.mdgraph(&["check"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

/// A clean merge whose cross-file effect is an error (an item deleted on one branch,
/// referenced on the other) is refused by the pre-merge-commit hook, in both modes: git
/// runs no pre-commit hook for a merge's commit. Forced through (`--no-verify`), the
/// post-merge hook says the commit just made has new errors, and `check` in the tree fails.
#[test]
fn the_pre_merge_commit_hook_refuses_a_merge_that_dangles() {
    if !git_available() {
        return;
    }
    for commit_mode in [true, false] {
        let r = Repo::committed();
        if !commit_mode {
            std::fs::write(
                r.path().join("mdgraph.toml"),
                "root = \"backlog\"\nindex_dir = \"_index\"\n",
            )
            .unwrap();
            r.git_ok(&["rm", "-q", "-r", "--cached", "_index"]);
            commit(&r, "local index");
        }
        write(&r, SPARE, &item("QRY-TSK-0099", "A spare task."));
        commit(&r, "spare");
        let out = r.mdgraph(&["hook", "install"]);
        assert!(
            out.stderr.contains("installed the pre-merge-commit hook"),
            "{}",
            out.stderr
        );
        let main = r.git_ok(&["branch", "--show-current"]).trim().to_string();
        r.git_ok(&["checkout", "-q", "-b", "a"]);
        std::fs::remove_file(r.path().join("backlog").join(SPARE)).unwrap();
        commit(&r, "a: the spare task goes");
        r.git_ok(&["checkout", "-q", "-b", "b", &main]);
        change(&r, TASK8, "parent:", "depends_on: [QRY-TSK-0099]\nparent:");
        commit(&r, "b: relates to the spare task");
        r.git_ok(&["checkout", "-q", &main]);
        r.git_ok(&["merge", "-q", "--no-edit", "a"]);
        let head = r.git_ok(&["rev-parse", "HEAD"]);
        let out = r.git(&["merge", "-q", "--no-edit", "b"]);
        let said = format!("{}{}", out.stdout, out.stderr);
        assert_ne!(
            out.code, 0,
            "commit_mode={commit_mode}: the dangling merge was committed: {said}"
        );
        assert!(
            said.contains("`QRY-TSK-0099`") || said.contains("stale-index"),
            "{said}"
        );
        assert_eq!(r.git_ok(&["rev-parse", "HEAD"]), head);
        // The refusal left the working tree as the merge made it: nothing but the merge's
        // own changes (`git status` also refreshes git's view of the files' stamps).
        let status = r.git_ok(&["status", "--porcelain", "--", "_index"]);
        assert!(
            status.lines().all(|l| l.starts_with("M ")),
            "commit_mode={commit_mode}: {status}"
        );
        r.git_ok(&["merge", "--abort"]);
        // Forced through: the post-merge hook says so, and the tree's check fails.
        let out = r.git(&["merge", "-q", "--no-edit", "--no-verify", "b"]);
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        assert!(
            out.stderr
                .contains("the commit just made (HEAD) has a stale committed index or new errors"),
            "commit_mode={commit_mode}: {}",
            out.stderr
        );
        assert_eq!(r.mdgraph(&["check"]).code, 1, "commit_mode={commit_mode}");
    }
}
