//! The pre-commit hook judges exactly what git tracks, with real git: in commit mode the
//! five setups where a checkout of the staged tree refused every commit (a sparse
//! checkout, `git add -N`, an `autocrlf` clone, a submodule, an absolute symlink) commit,
//! nothing is written outside the index folder (a TMPDIR under a `.gitignore` stays
//! empty), and an unstaged config is named as the cause; in local mode no untracked
//! `.gitignore`, `info/exclude` entry or `.gitignore` above the repository changes which
//! tracked files are judged.

use crate::common::*;
use crate::hook::{Repo, TASK, git_available, mdgraph_with_git};
use std::path::Path;
use std::process::Command;

/// Install the hooks (commit mode: with the merge driver).
fn install(r: &Repo) {
    let out = r.mdgraph(&["hook", "install"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// Edit the task at `root`, re-index, stage everything, commit: accepted. Then a staged
/// dangling decision: refused, named.
fn good_then_bad(r: &Repo, root: &str, what: &str) {
    let task = r.path().join(root).join(TASK);
    let text = std::fs::read_to_string(&task).unwrap();
    std::fs::write(&task, text.replacen("# Context", "# Context, edited", 1)).unwrap();
    assert_eq!(r.mdgraph(&["index"]).code, 0, "{what}");
    r.git_ok(&["add", "-A"]);
    let out = r.git(&["commit", "-q", "-m", "good edit"]);
    assert_eq!(out.code, 0, "{what}: {}{}", out.stdout, out.stderr);
    bad(r, root, what);
}

/// A staged dangling decision (index re-built and staged): refused, named.
fn bad(r: &Repo, root: &str, what: &str) {
    let task = r.path().join(root).join(TASK);
    let text = std::fs::read_to_string(&task).unwrap();
    std::fs::write(
        &task,
        text.replacen("decisions: [ADR-0004]", "decisions: [ADR-0404]", 1),
    )
    .unwrap();
    assert_eq!(r.mdgraph(&["index"]).code, 0, "{what}");
    r.git_ok(&["add", "-A"]);
    let out = r.git(&["commit", "-q", "-m", "bad edit"]);
    assert_ne!(out.code, 0, "{what}: a staged error went through");
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(said.contains("`ADR-0404`"), "{what}: {said}");
    r.git_ok(&["reset", "-q", "--hard"]);
}

/// An unrelated file committed: accepted.
fn unrelated(r: &Repo, name: &str, what: &str) {
    std::fs::write(r.path().join(name), "unrelated\n").unwrap();
    r.git_ok(&["add", name]);
    let out = r.git(&["commit", "-q", "-m", name]);
    assert_eq!(out.code, 0, "{what}: {}{}", out.stdout, out.stderr);
}

#[test]
fn commit_mode_commits_in_the_five_setups() {
    if !git_available() {
        return;
    }
    // An autocrlf clone: the working tree's files end lines with CRLF.
    let r = Repo::new();
    r.git_ok(&["config", "core.autocrlf", "true"]);
    to_crlf(md_files(&r.path().join("backlog")));
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    r.git_ok(&["add", "-A"]);
    r.git_ok(&["commit", "-q", "-m", "backlog"]);
    install(&r);
    good_then_bad(&r, "backlog", "autocrlf");

    // An absolute symlink in the root, and a submodule under it.
    let r = Repo::new();
    std::fs::write(r.path().join("backlog/notes.md"), "# Notes\n\nShared notes.\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        r.path().join("backlog/notes.md"),
        r.path().join("backlog/notes-link.md"),
    )
    .unwrap();
    let sub = Repo::bare("tests/fixtures/nav");
    sub.git_ok(&["add", "-A"]);
    sub.git_ok(&["commit", "-q", "-m", "sub"]);
    let url = sub.path().to_str().unwrap();
    r.git_ok(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        url,
        "backlog/vendor",
    ]);
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    let nodes = std::fs::read_to_string(r.path().join("_index/graph_nodes.jsonl")).unwrap();
    assert!(
        !nodes.contains("\"vendor/"),
        "a submodule's files are not the backlog's"
    );
    r.git_ok(&["add", "-A"]);
    r.git_ok(&["commit", "-q", "-m", "backlog"]);
    install(&r);
    good_then_bad(&r, "backlog", "symlink and submodule");

    // `git add -N`: an item meant to be added, not staged; the commit leaves it out.
    let r = Repo::committed();
    install(&r);
    let meant = "backlog/items/task/0000/QRY-TSK-0990_meant.md";
    std::fs::write(
        r.path().join(meant),
        "---\nid: QRY-TSK-0990\ntype: Task\n---\n# Meant\n",
    )
    .unwrap();
    r.git_ok(&["add", "-N", meant]);
    unrelated(&r, "NOTES.txt", "add -N");
    std::fs::remove_file(r.path().join(meant)).unwrap();
    r.git_ok(&["rm", "-q", "--cached", meant]);
    r.git_ok(&["checkout", "-q", "--", "_index"]);
    good_then_bad(&r, "backlog", "after add -N");

    // A sparse checkout: the bugs are not in the working tree, yet the staged backlog
    // and index have them.
    let r = Repo::committed();
    install(&r);
    r.git_ok(&["sparse-checkout", "set", "--no-cone", "/*", "!/backlog/items/bug/"]);
    assert!(!r.path().join("backlog/items/bug").exists());
    unrelated(&r, "NOTES.txt", "sparse");
    bad(&r, "backlog", "sparse");
}

#[test]
fn commit_mode_hook_writes_nothing_outside_the_index_folder() {
    if !git_available() {
        return;
    }
    let r = Repo::committed();
    install(&r);
    // A TMPDIR under a folder whose `.gitignore` ignores everything, and a large binary
    // file in the repository: nothing lands in TMPDIR.
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join(".gitignore"), "*\n").unwrap();
    let tmp = outer.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(r.path().join("blob.bin"), vec![7u8; 4 << 20]).unwrap();
    let task = r.path().join("backlog").join(TASK);
    let text = std::fs::read_to_string(&task).unwrap();
    std::fs::write(&task, text.replacen("# Context", "# Context, edited", 1)).unwrap();
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    r.git_ok(&["add", "-A"]);
    let out = Command::new("git")
        .args(["commit", "-q", "-m", "with a binary"])
        .current_dir(r.path())
        .env("PATH", path_with_mdgraph())
        .env("HOME", r.path())
        .env("TMPDIR", &tmp)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().map(|e| e.path()).collect();
    assert!(left.is_empty(), "written to TMPDIR: {left:?}");
    assert_eq!(r.git_ok(&["status", "--porcelain"]), "");
}

/// PATH with the binary under test first.
fn path_with_mdgraph() -> std::ffi::OsString {
    let mut dirs = vec![Path::new(BIN).parent().unwrap().to_path_buf()];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(dirs).unwrap()
}

#[test]
fn commit_mode_names_an_unstaged_config_as_the_cause() {
    if !git_available() {
        return;
    }
    let r = Repo::committed();
    let cfg = r.path().join("mdgraph.toml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(
        &cfg,
        format!("{text}[check]\nseverity = {{ \"broken-link\" = \"off\" }}\n"),
    )
    .unwrap();
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    r.git_ok(&["add", "_index"]);
    let out = r.mdgraph(&["check", "--staged"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("stage mdgraph.toml"), "{}", out.stdout);
    // Staged with it: accepted.
    r.git_ok(&["add", "mdgraph.toml"]);
    let out = r.mdgraph(&["check", "--staged"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

/// A repository in local mode (the index is not committed).
fn local(r: &Repo) {
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n",
    )
    .unwrap();
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    r.git_ok(&["add", "-A"]);
    r.git_ok(&["commit", "-q", "-m", "backlog"]);
    install(r);
}

const FEATURE: &str = "items/feature/0000/QRY-FTR-0004_resumable-photo-upload.md";

#[test]
fn local_mode_judges_tracked_files_whatever_the_untracked_ignore_rules() {
    if !git_available() {
        return;
    }
    // An untracked `.gitignore`, and an `info/exclude` entry, naming a tracked file: its
    // staged error is still refused.
    for how in ["untracked .gitignore", "info/exclude"] {
        let r = Repo::new();
        local(&r);
        let rule = format!("/{TASK}\n");
        match how {
            "info/exclude" => std::fs::write(r.path().join(".git/info/exclude"), format!("/backlog{rule}")).unwrap(),
            _ => std::fs::write(r.path().join("backlog/.gitignore"), &rule).unwrap(),
        }
        let task = r.path().join("backlog").join(TASK);
        let text = std::fs::read_to_string(&task).unwrap();
        std::fs::write(
            &task,
            text.replacen("decisions: [ADR-0004]", "decisions: [ADR-0404]", 1),
        )
        .unwrap();
        r.git_ok(&["add", &format!("backlog/{TASK}")]);
        let out = r.git(&["commit", "-q", "-m", "hidden error"]);
        assert_ne!(out.code, 0, "{how}: the staged error went through");
        assert!(format!("{}{}", out.stdout, out.stderr).contains("`ADR-0404`"), "{how}");
    }
    // The reverse: a rule hides a tracked file others refer to; a good commit goes
    // through (nothing dangles).
    let r = Repo::new();
    local(&r);
    std::fs::write(r.path().join("backlog/.gitignore"), format!("/{FEATURE}\n")).unwrap();
    let task = r.path().join("backlog").join(TASK);
    let text = std::fs::read_to_string(&task).unwrap();
    std::fs::write(&task, text.replacen("# Context", "# Context, edited", 1)).unwrap();
    r.git_ok(&["add", &format!("backlog/{TASK}")]);
    let out = r.git(&["commit", "-q", "-m", "good edit"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

#[test]
fn local_mode_ignores_a_gitignore_above_the_repository() {
    if !git_available() {
        return;
    }
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join(".gitignore"), "QRY-FTR-0004*\nQRY-TSK-0007*\n").unwrap();
    let top = outer.path().join("repo");
    copy_dir(&repo().join("backlog-fixtures"), &top.join("backlog"));
    std::fs::write(top.join("mdgraph.toml"), "root = \"backlog\"\nindex_dir = \"_index\"\n").unwrap();
    let r = Repo::new();
    let git = |args: &[&str]| {
        let out = r.git_in(&top, args, &path_with_mdgraph());
        assert_eq!(out.code, 0, "git {args:?}: {}", out.stderr);
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "backlog"]);
    assert_eq!(mdgraph_with_git(&top, &["hook", "install"]).code, 0);
    let task = top.join("backlog").join(TASK);
    let text = std::fs::read_to_string(&task).unwrap();
    std::fs::write(&task, text.replacen("# Context", "# Context, edited", 1)).unwrap();
    git(&["add", "-A"]);
    let out = r.git_in(&top, &["commit", "-q", "-m", "good"], &path_with_mdgraph());
    assert_eq!(out.code, 0, "a correct commit refused: {}{}", out.stdout, out.stderr);
    std::fs::write(
        &task,
        text.replacen("decisions: [ADR-0004]", "decisions: [ADR-0404]", 1),
    )
    .unwrap();
    git(&["add", "-A"]);
    let out = r.git_in(&top, &["commit", "-q", "-m", "bad"], &path_with_mdgraph());
    assert_ne!(
        out.code, 0,
        "a staged error in a file ignored above the repository went through"
    );
    // The working tree's check, too: a `.gitignore` above the repository hides nothing.
    let out = mdgraph_with_git(&top, &["check"]);
    assert_eq!(out.code, 1, "check ok over an error: {}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("`ADR-0404`"), "{}", out.stdout);
    let nodes = std::fs::read_to_string(top.join("_index/graph_nodes.jsonl")).unwrap();
    assert!(
        nodes.contains("\"id\":\"QRY-FTR-0004\""),
        "an item hidden by a rule above the repository"
    );
}

/// The repository in local mode (`commit_index` off), indexed, committed, hooks installed.
fn local_committed(r: Repo) -> Repo {
    local(&r);
    r
}

#[test]
fn bad_input_is_a_message_not_a_stop_or_a_hole() {
    if !git_available() {
        return;
    }
    for commit_mode in [false, true] {
        let what = if commit_mode { "commit mode" } else { "local mode" };
        let r = if commit_mode {
            let r = Repo::committed();
            install(&r);
            r
        } else {
            local_committed(Repo::new())
        };
        // A damaged meta.json is rebuilt with a note, by every command and the hook.
        for damaged in ["{}", "not json", "{\"schema\": 13, \"config_di"] {
            std::fs::write(r.path().join("_index/meta.json"), damaged).unwrap();
            let out = r.mdgraph(&["index"]);
            assert_eq!(out.code, 0, "{what} {damaged}: {}", out.stderr);
            assert!(out.stderr.contains("meta.json is damaged"), "{what}: {}", out.stderr);
            let out = r.mdgraph(&["check"]);
            assert_eq!(out.code, 0, "{what} {damaged}: {}{}", out.stdout, out.stderr);
        }
        assert_eq!(
            r.git_ok(&["status", "--porcelain"]),
            "",
            "{what}: the rebuild is the committed index"
        );
        std::fs::write(r.path().join("_index/meta.json"), "{}").unwrap();
        let task = r.path().join("backlog").join(TASK);
        let text = std::fs::read_to_string(&task).unwrap();
        std::fs::write(&task, text.replacen("# Context", "# Context, edited", 1)).unwrap();
        if commit_mode {
            assert_eq!(r.mdgraph(&["index"]).code, 0);
        }
        r.git_ok(&["add", "-A"]);
        let out = r.git(&["commit", "-q", "-m", "edit over a damaged meta.json"]);
        assert_eq!(out.code, 0, "{what}: {}{}", out.stdout, out.stderr);

        // One invalid UTF-8 byte: an error of that file, in the check and the hook.
        let bytes = std::fs::read(&task).unwrap();
        let mut bad = bytes.clone();
        let at = bad.windows(7).position(|w| w == b"# Conte").unwrap();
        bad[at + 2] = 0xff;
        std::fs::write(&task, &bad).unwrap();
        assert_eq!(r.mdgraph(&["index"]).code, 0);
        let out = r.mdgraph(&["check"]);
        assert_eq!(out.code, 1, "{what}: {}{}", out.stdout, out.stderr);
        assert!(
            out.stdout.contains(&format!("{TASK}:")) && out.stdout.contains("error[not-utf8]"),
            "{what}: {}",
            out.stdout
        );
        r.git_ok(&["add", "-A"]);
        let out = r.git(&["commit", "-q", "-m", "invalid UTF-8"]);
        assert_ne!(out.code, 0, "{what}: a file left out of the graph was committed");
        let said = format!("{}{}", out.stdout, out.stderr);
        assert!(
            said.contains("error[not-utf8]") && said.contains(TASK),
            "{what}: {said}"
        );
        // Staged only (the working tree fixed): still refused, from the blob.
        std::fs::write(&task, &bytes).unwrap();
        if !commit_mode {
            let out = r.git(&["commit", "-q", "-m", "invalid UTF-8 staged"]);
            assert_ne!(out.code, 0, "{what}: a staged blob that is not UTF-8 was committed");
        }
        r.git_ok(&["reset", "-q", "--hard"]);
    }

    // An index folder inside `.git`, or outside the repository, from the config: refused,
    // nothing written there.
    let r = local_committed(Repo::new());
    let tags = r.path().join(".git/refs/tags");
    for (dir, says) in [
        (".git/refs/tags", "inside a `.git` folder"),
        ("../elsewhere", "outside the repository"),
    ] {
        std::fs::write(
            r.path().join("mdgraph.toml"),
            format!("root = \"backlog\"\nindex_dir = \"{dir}\"\n"),
        )
        .unwrap();
        for cmd in ["check", "index"] {
            let out = r.mdgraph(&[cmd]);
            assert_eq!(out.code, 2, "{dir} {cmd}: {}{}", out.stdout, out.stderr);
            assert!(
                out.stderr.contains(says) && out.stderr.contains("mdgraph.toml"),
                "{}",
                out.stderr
            );
        }
        assert_eq!(std::fs::read_dir(&tags).unwrap().count(), 0);
        assert!(!r.path().parent().unwrap().join("elsewhere").exists());
    }
    // Given on the command line, a folder outside is the user's choice.
    let outside = tempfile::tempdir().unwrap();
    let dir = outside.path().join("idx");
    let out = r.mdgraph(&["--index-dir", dir.to_str().unwrap(), "index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(dir.join("graph_nodes.jsonl").is_file());
    let out = r.mdgraph(&["--index-dir", ".git/refs/tags", "index"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
}

#[test]
fn the_hook_reads_the_blob_of_a_file_git_does_not_compare() {
    if !git_available() {
        return;
    }
    let task = format!("backlog/{TASK}");
    for flag in ["--skip-worktree", "--assume-unchanged"] {
        // Local mode: a staged dangling reference under a clean working-tree copy.
        let r = local_committed(Repo::new());
        let path = r.path().join(&task);
        let good = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            good.replacen("decisions: [ADR-0004]", "decisions: [ADR-0404]", 1),
        )
        .unwrap();
        r.git_ok(&["add", &task]);
        r.git_ok(&["update-index", flag, &task]);
        std::fs::write(&path, &good).unwrap();
        let out = r.git(&["commit", "-q", "-m", "staged dangling"]);
        assert_ne!(out.code, 0, "{flag}: the staged error went through");
        assert!(
            format!("{}{}", out.stdout, out.stderr).contains("`ADR-0404`"),
            "{flag}: {}",
            out.stderr
        );

        // The config git does not compare, turned off locally: the staged one judges.
        let r = local_committed(Repo::new());
        r.git_ok(&["update-index", flag, "mdgraph.toml"]);
        std::fs::write(
            r.path().join("mdgraph.toml"),
            "root = \"backlog\"\nindex_dir = \"_index\"\n[check]\nseverity = { \"dangling-reference\" = \"off\" }\n",
        )
        .unwrap();
        let path = r.path().join(&task);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            text.replacen("decisions: [ADR-0004]", "decisions: [ADR-0404]", 1),
        )
        .unwrap();
        r.git_ok(&["add", &task]);
        let out = r.git(&["commit", "-q", "-m", "dangling under a local config"]);
        assert_ne!(out.code, 0, "{flag}: a local config let a staged error through");

        // Commit mode: an index of a local tweak, staged, is stale against the blob.
        let r = Repo::committed();
        install(&r);
        r.git_ok(&["update-index", flag, &task]);
        let path = r.path().join(&task);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("# Context", "# Context, a local tweak", 1)).unwrap();
        assert_eq!(r.mdgraph(&["index"]).code, 0);
        r.git_ok(&["add", "_index"]);
        let out = r.git(&["commit", "-q", "-m", "index of a local tweak"]);
        assert_ne!(out.code, 0, "{flag}: a stale staged index went through");
        assert!(
            format!("{}{}", out.stdout, out.stderr).contains("stale-index"),
            "{flag}: {}",
            out.stderr
        );
    }
}

#[test]
fn the_hook_uses_the_staged_config_never_an_untracked_or_unstaged_one() {
    if !git_available() {
        return;
    }
    let task = format!("backlog/{TASK}");
    let dangle = |r: &Repo| {
        let path = r.path().join(&task);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            text.replacen("decisions: [ADR-0004]", "decisions: [ADR-0404]", 1),
        )
        .unwrap();
        r.git_ok(&["add", &task]);
    };
    // An untracked config, never committed, is no config of the commit.
    let r = local_committed(Repo::new());
    r.git_ok(&["rm", "-q", "--cached", "mdgraph.toml"]);
    r.git_ok(&["commit", "-q", "--no-verify", "-m", "no config"]);
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n[check]\nseverity = { \"dangling-reference\" = \"off\" }\n",
    )
    .unwrap();
    dangle(&r);
    let out = r.git(&["commit", "-q", "-m", "dangling under an untracked config"]);
    assert_ne!(out.code, 0, "an untracked config let a staged error through");
    assert!(
        format!("{}{}", out.stdout, out.stderr).contains("`ADR-0404`"),
        "{}",
        out.stderr
    );

    // An unstaged broken, or deleted, config refuses no correct commit; the staged one
    // still judges.
    for commit_mode in [false, true] {
        for damage in ["broken", "deleted"] {
            let what = format!("{damage}, commit_mode={commit_mode}");
            let r = if commit_mode {
                let r = Repo::committed();
                install(&r);
                r
            } else {
                local_committed(Repo::new())
            };
            let path = r.path().join(&task);
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, text.replacen("# Context", "# Context, edited", 1)).unwrap();
            assert_eq!(r.mdgraph(&["index"]).code, 0);
            r.git_ok(&["add", "-A"]);
            let config = r.path().join("mdgraph.toml");
            match damage {
                "broken" => std::fs::write(&config, "root = [\n").unwrap(),
                _ => std::fs::remove_file(&config).unwrap(),
            }
            let out = r.git(&["commit", "-q", "-m", "good edit"]);
            assert_eq!(
                out.code, 0,
                "{what}: a correct commit refused: {}{}",
                out.stdout, out.stderr
            );
            if !commit_mode {
                dangle(&r);
                let out = r.git(&["commit", "-q", "-m", "bad edit"]);
                assert_ne!(out.code, 0, "{what}: a staged error went through");
            }
        }
    }
}

#[test]
fn a_stale_index_refusal_never_sends_to_the_baseline() {
    if !git_available() {
        return;
    }
    let r = Repo::committed();
    install(&r);
    let nodes = r.path().join("_index/graph_nodes.jsonl");
    let text = std::fs::read_to_string(&nodes).unwrap();
    std::fs::write(&nodes, text.replacen("QRY-TSK-0007", "QRY-TSK-7777", 1)).unwrap();
    r.git_ok(&["add", "_index"]);
    let out = r.git(&["commit", "-q", "-m", "a hand-edited index"]);
    assert_ne!(out.code, 0);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains("stale-index") && said.contains("run `mdgraph index`"),
        "{said}"
    );
    assert!(
        !said.contains("record them with `mdgraph baseline`"),
        "advice that records nothing: {said}"
    );
    // The refusal left the staged bytes in the working tree as they were.
    assert_eq!(
        std::fs::read_to_string(&nodes).unwrap(),
        text.replacen("QRY-TSK-0007", "QRY-TSK-7777", 1)
    );
}
