//! `mdgraph hook install` for real: a temp git repository with a backlog, the hook
//! installed, and `git commit` refused while the committed index is stale or the backlog
//! has errors, accepted once `mdgraph index` has run and the index is staged. Skipped
//! (with a message) when `git` is not on PATH, except under `CI=true`, where that fails.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A git repository in a temp dir holding `backlog/` (the fixtures) and `mdgraph.toml`.
pub(crate) struct Repo {
    pub(crate) dir: tempfile::TempDir,
}

/// The directory of the binary under test, first on PATH, so the hook's `mdgraph` is it.
fn path_with_mdgraph() -> std::ffi::OsString {
    let bin_dir = Path::new(BIN).parent().unwrap().to_path_buf();
    let mut dirs = vec![bin_dir];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(dirs).unwrap()
}

/// PATH without any `mdgraph`: the folders of `git` and `sh` only.
fn path_without_mdgraph() -> std::ffi::OsString {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for tool in ["git", "sh"] {
        for d in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
            if d.join(tool).is_file() && !d.join("mdgraph").exists() {
                dirs.push(d);
                break;
            }
        }
    }
    std::env::join_paths(dirs).unwrap()
}

pub(crate) fn mdgraph_with_git(cwd: &Path, args: &[&str]) -> Output {
    run_env(cwd, args, &[("PATH", &path_with_mdgraph())])
}

/// False (after a message) when git is missing, off CI; see [`tool_missing`].
pub(crate) fn git_available() -> bool {
    !tool_missing("git", &["git", "--version"])
}

impl Repo {
    pub(crate) fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&repo().join("backlog-fixtures"), &dir.path().join("backlog"));
        std::fs::write(
            dir.path().join("mdgraph.toml"),
            "root = \"backlog\"\nindex_dir = \"_index\"\ncommit_index = true\n",
        )
        .unwrap();
        let r = Repo { dir };
        r.git_ok(&["init", "-q"]);
        r
    }

    /// A repository holding `src` as `backlog/`, without a config.
    pub(crate) fn bare(src: &str) -> Repo {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&repo().join(src), &dir.path().join("backlog"));
        let r = Repo { dir };
        r.git_ok(&["init", "-q"]);
        r
    }

    /// A repository whose backlog and fresh index are committed.
    pub(crate) fn committed() -> Repo {
        let r = Repo::new();
        assert_eq!(r.mdgraph(&["index"]).code, 0);
        r.git_ok(&["add", "-A"]);
        r.git_ok(&["commit", "-q", "-m", "backlog and index"]);
        r
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Run git in `cwd` with a clean environment (no user config) and `path` as PATH.
    pub(crate) fn git_in(&self, cwd: &Path, args: &[&str], path: &std::ffi::OsStr) -> Output {
        let out = Command::new("git")
            .args(args)
            .current_dir(cwd)
            .env_clear()
            .env(RACY_ENV, RACY_MS.to_string())
            .env("PATH", path)
            .env("HOME", self.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .output()
            .unwrap();
        out.into()
    }

    pub(crate) fn git(&self, args: &[&str]) -> Output {
        self.git_in(self.path(), args, &path_with_mdgraph())
    }

    pub(crate) fn git_ok(&self, args: &[&str]) -> String {
        let out = self.git(args);
        assert_eq!(out.code, 0, "git {args:?}: {}{}", out.stdout, out.stderr);
        out.stdout
    }

    /// Run mdgraph with PATH set (so it can ask git where the hooks go).
    pub(crate) fn mdgraph(&self, args: &[&str]) -> Output {
        mdgraph_with_git(self.path(), args)
    }

    pub(crate) fn commits(&self) -> usize {
        self.git_ok(&["rev-list", "--count", "HEAD"]).trim().parse().unwrap()
    }

    /// Append a line to a fixture file and stage it.
    pub(crate) fn edit(&self, rel: &str, from: &str, to: &str) {
        let p = self.path().join("backlog").join(rel);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{rel} lacks {from:?}");
        std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
        self.git_ok(&["add", "-A"]);
    }
}

pub(crate) const TASK: &str = "items/task/0000/QRY-TSK-0007_implement-resumable-photo-upload-client.md";

#[test]
fn hook_refuses_a_stale_index_and_accepts_it_once_reindexed() {
    if !git_available() {
        return;
    }
    let r = Repo::committed();

    let out = r.mdgraph(&["hook", "install"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("installed the pre-commit hook .git/hooks/pre-commit"),
        "{}",
        out.stderr
    );
    let hook = r.path().join(".git/hooks/pre-commit");
    let script = std::fs::read_to_string(&hook).unwrap();
    // The config at the top of the repository is found without --config.
    assert!(script.contains("\nmdgraph check --staged\n"), "{script}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&hook).unwrap().permissions().mode() & 0o111, 0o111);
    }

    // A body edit: the committed index no longer matches the sources.
    r.edit(
        TASK,
        "# Context\n",
        "# Context\n\nUploads resume after a dropped connection.\n",
    );
    let out = r.git(&["commit", "-q", "-m", "edit without reindexing"]);
    assert_ne!(out.code, 0, "commit went through: {}{}", out.stdout, out.stderr);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains(&format!(
            "{TASK}:1:1: error[stale-index]: changed since the index was built"
        )),
        "{said}"
    );
    assert!(said.contains("commit refused"), "{said}");
    assert!(
        said.contains("run `mdgraph index`, stage the index (git add _index)"),
        "{said}"
    );
    assert_eq!(r.commits(), 1);

    // Reindex, stage the index: the commit goes through.
    let out = r.mdgraph(&["index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    r.git_ok(&["add", "-A"]);
    let out = r.git(&["commit", "-q", "-m", "edit with the index"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(r.commits(), 2);

    // An error in the backlog is refused even with a fresh index, naming the problem.
    r.edit(TASK, "parent: QRY-USR-0004", "parent: QRY-USR-0999");
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    r.git_ok(&["add", "-A"]);
    let out = r.git(&["commit", "-q", "-m", "dangling parent"]);
    assert_ne!(out.code, 0);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains("error[dangling-reference]: `parent` refers to `QRY-USR-0999`"),
        "{said}"
    );
    assert_eq!(r.commits(), 2);

    // Without mdgraph on PATH the hook says so and refuses.
    let out = r.git_in(r.path(), &["commit", "-q", "-m", "no mdgraph"], &path_without_mdgraph());
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("mdgraph is not on PATH"), "{}", out.stderr);
}

#[test]
fn hook_install_never_replaces_a_foreign_hook_without_force() {
    if !git_available() {
        return;
    }
    let r = Repo::new();
    let hook = r.path().join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\nexec make lint\n").unwrap();
    let out = r.mdgraph(&["hook", "install"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains(".git/hooks/pre-commit: a hook not written by mdgraph already exists")
            && out.stderr.contains("mdgraph hook install --force"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), "#!/bin/sh\nexec make lint\n");

    let out = r.mdgraph(&["hook", "install", "--force"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("replaced the pre-commit hook"), "{}", out.stderr);
    let ours = std::fs::read_to_string(&hook).unwrap();
    // The marker line by which mdgraph knows its own hook.
    assert!(ours.contains("\n# mdgraph pre-commit hook"), "{ours}");
    // Installing again is a no-op, and so needs no --force.
    let out = r.mdgraph(&["hook", "install"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("is already installed"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), ours);

    // A hook that lost its execute bit gets it back (git skips it otherwise).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(r.mdgraph(&["hook", "install"]).code, 0);
        let mode = std::fs::metadata(&hook).unwrap().permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "{mode:o}");
    }

    // The user's own hook that pasted our lines below its own is still the user's.
    let pasted = format!(
        "#!/bin/sh
make lint || exit 1
{ours}"
    );
    std::fs::write(&hook, &pasted).unwrap();
    assert_eq!(r.mdgraph(&["hook", "install"]).code, 2);
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), pasted);
}

#[test]
fn hook_install_refuses_a_hooks_folder_shared_with_other_repositories() {
    if !git_available() {
        return;
    }
    let r = Repo::new();
    // A core.hooksPath outside the repository (as a global setting would be).
    let shared = tempfile::tempdir().unwrap();
    r.git_ok(&["config", "core.hooksPath", shared.path().to_str().unwrap()]);
    let out = r.mdgraph(&["hook", "install"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("outside this repository"), "{}", out.stderr);
    assert!(!shared.path().join("pre-commit").exists());
    let out = r.mdgraph(&["hook", "install", "--force"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(shared.path().join("pre-commit").is_file());
}

#[test]
fn hook_goes_where_git_looks_hooks_path_and_worktrees() {
    if !git_available() {
        return;
    }
    let r = Repo::committed();

    // A linked worktree shares the main repository's hooks; run from a subfolder of it,
    // with the config passed explicitly.
    let wt = r.path().join("wt");
    r.git_ok(&["worktree", "add", "-q", wt.to_str().unwrap()]);
    let out = mdgraph_with_git(&wt.join("backlog"), &["--config", "../mdgraph.toml", "hook", "install"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let hook = r.path().join(".git/hooks/pre-commit");
    let script = std::fs::read_to_string(&hook).unwrap();
    // The worktree's own mdgraph.toml is at its top: no --config needed there either.
    assert!(script.contains("\nmdgraph check --staged\n"), "{script}");
    assert!(wt.join(".git").is_file());

    // Without git on PATH the `.git` file of the worktree is followed to the same hooks.
    // (An unset PATH would not do: the C library then searches /bin and /usr/bin.)
    std::fs::remove_file(&hook).unwrap();
    let empty = tempfile::tempdir().unwrap();
    let out = run_env(&wt, &["hook", "install"], &[("PATH", empty.path().as_os_str())]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), script);

    // core.hooksPath (relative to the top of the working tree) is honoured, and git runs it.
    r.git_ok(&["config", "core.hooksPath", ".githooks"]);
    let out = r.mdgraph(&["hook", "install"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains(".githooks/pre-commit"), "{}", out.stderr);
    r.edit(TASK, "# Context\n", "# Context\n\nEdited.\n");
    let out = r.git(&["commit", "-q", "-m", "stale"]);
    assert_ne!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(format!("{}{}", out.stdout, out.stderr).contains("error[stale-index]"));
}

#[test]
fn hook_install_outside_a_repository_is_an_error() {
    if !git_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // run_in clears the environment; give it PATH so git can be found.
    let ceiling = dir.path().parent().unwrap().as_os_str();
    let out = run_env(
        dir.path(),
        &["hook", "install"],
        &[("PATH", &path_with_mdgraph()), ("GIT_CEILING_DIRECTORIES", ceiling)],
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not in a git"), "{}", out.stderr);
}

/// The hook judges exactly what is being committed: git's index, never the working tree.
#[test]
fn hook_judges_the_staged_content_not_the_working_tree() {
    if !git_available() {
        return;
    }
    let r = Repo::committed();
    assert_eq!(r.mdgraph(&["hook", "install"]).code, 0);
    let task = r.path().join("backlog").join(TASK);
    let original = std::fs::read_to_string(&task).unwrap();

    // A backlog edit sits unstaged (the working tree's index is stale): a commit of an
    // unrelated file is accepted.
    std::fs::write(&task, original.replace("# Context\n", "# Context\n\nUnstaged words.\n")).unwrap();
    std::fs::write(r.path().join("NOTES.txt"), "unrelated\n").unwrap();
    r.git_ok(&["add", "NOTES.txt"]);
    let out = r.git(&["commit", "-q", "-m", "unrelated file"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(r.commits(), 2);

    // Partially staged: the edit is staged, the staged index is the old one (stale), and
    // the working tree's index is fresh. Refused.
    r.git_ok(&["add", &format!("backlog/{TASK}")]);
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    assert_eq!(r.mdgraph(&["check"]).code, 0, "the working tree is fresh");
    let out = r.git(&["commit", "-q", "-m", "stale staged index"]);
    assert_ne!(out.code, 0, "a stale staged index went through");
    assert!(
        format!("{}{}", out.stdout, out.stderr).contains("error[stale-index]"),
        "{}",
        out.stderr
    );

    // Stage the index too: accepted.
    r.git_ok(&["add", "_index"]);
    let out = r.git(&["commit", "-q", "-m", "edit with its index"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(r.commits(), 3);

    // `git commit <path>` commits that path as it is in the working tree, with a
    // temporary index: an edited item without its index is refused ...
    std::fs::write(&task, original.replace("# Context\n", "# Context\n\nPath commit.\n")).unwrap();
    let out = r.git(&["commit", "-q", "-m", "path only", &format!("backlog/{TASK}")]);
    assert_ne!(out.code, 0, "{}{}", out.stdout, out.stderr);
    // ... and accepted with the refreshed index named too.
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    let out = r.git(&[
        "commit",
        "-q",
        "-m",
        "path and index",
        &format!("backlog/{TASK}"),
        "_index",
    ]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);

    // A rename and a deletion, staged with their index: accepted; without it: refused.
    let bug = "items/bug/0000/QRY-BUG-0001_duplicate-photos-after-an-upload-resumes-at-100-percent.md";
    r.git_ok(&[
        "mv",
        &format!("backlog/{bug}"),
        "backlog/items/bug/0000/QRY-BUG-0001_renamed.md",
    ]);
    let out = r.git(&["commit", "-q", "-m", "rename without index"]);
    assert_ne!(out.code, 0, "a rename without its index went through");
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    r.git_ok(&["add", "-A"]);
    let out = r.git(&["commit", "-q", "-m", "rename with index"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

#[test]
fn hook_with_a_baseline_accepts_known_errors_and_refuses_new_ones() {
    if !git_available() {
        return;
    }
    // A backlog with old errors adopts mdgraph: init, index, baseline, hook, one commit.
    let r = Repo::bare("tests/fixtures/broken");
    for args in [&["init"][..], &["index"], &["baseline"], &["hook", "install"]] {
        let out = r.mdgraph(args);
        assert_eq!(out.code, 0, "mdgraph {args:?}: {}", out.stderr);
    }
    assert!(r.path().join("mdgraph.toml").is_file());
    assert!(r.path().join("mdgraph-baseline.json").is_file());
    r.git_ok(&["add", "-A"]);
    let out = r.git(&["commit", "-q", "-m", "adopt mdgraph with a baseline"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains("check ok: staged backlog;") && said.contains(" known, 0 new"),
        "{said}"
    );
    assert_eq!(r.commits(), 1);

    // A new error is refused, named; the old ones are not listed.
    let feature = "items/feature/0000/BRK-FTR-0001_export.md";
    r.edit(feature, "decisions: [ADR-0001]", "decisions: [ADR-0001, ADR-0404]");
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    r.git_ok(&["add", "-A"]);
    let out = r.git(&["commit", "-q", "-m", "a new dangling reference"]);
    assert_ne!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(said.contains("`decisions` refers to `ADR-0404`"), "{said}");
    assert!(!said.contains("BRK-EPIC-0099"), "{said}");
    assert!(said.contains("commit refused"), "{said}");
    assert_eq!(r.commits(), 1);

    // The hook judges against the baseline as staged: without it, the old errors count.
    r.git_ok(&["checkout", "HEAD", "--", "backlog"]);
    r.git_ok(&["rm", "-q", "--cached", "mdgraph-baseline.json"]);
    assert_eq!(r.mdgraph(&["check"]).code, 0, "the working tree still has its baseline");
    let out = r.git(&["commit", "-q", "-m", "drop the baseline"]);
    assert_ne!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(said.contains("`parent` refers to `BRK-EPIC-0099`"), "{said}");
    assert_eq!(r.commits(), 1);
}

/// Replace `from` with `to` in a fixture file, reindex, stage everything and commit
/// (through the pre-commit hook when it is installed).
pub(crate) fn commit_edit(r: &Repo, rel: &str, from: &str, to: &str, msg: &str) {
    r.edit(rel, from, to);
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    r.git_ok(&["add", "-A"]);
    let out = r.git(&["commit", "-q", "-m", msg]);
    assert_eq!(out.code, 0, "{msg}: {}{}", out.stdout, out.stderr);
}

pub(crate) const TASK8: &str = "items/task/0000/QRY-TSK-0008_deploy-tusd-upload-service-with-tenant-scoped-storage.md";
pub(crate) const TASK9: &str = "items/task/0000/QRY-TSK-0009_migrate-lww-field-records-to-the-crdt-change-log.md";

/// Two branches that each edit one item (neighbours in every index file, and both
/// change meta.json's whole-corpus digests).
pub(crate) fn two_branches(r: &Repo) -> String {
    let main = r.git_ok(&["branch", "--show-current"]).trim().to_string();
    r.git_ok(&["checkout", "-q", "-b", "left"]);
    commit_edit(r, TASK, "# Context\n", "# Context\n\nLeft branch words.\n", "left");
    r.git_ok(&["checkout", "-q", &main]);
    r.git_ok(&["checkout", "-q", "-b", "right"]);
    commit_edit(r, TASK8, "# Context\n", "# Context\n\nRight branch words.\n", "right");
    main
}

#[test]
fn merges_and_rebases_of_parallel_edits_never_conflict_and_leave_a_fresh_index() {
    if !git_available() {
        return;
    }
    // Without the driver, git's text merge conflicts in the index.
    let plain = Repo::committed();
    two_branches(&plain);
    let out = plain.git(&["merge", "-q", "--no-edit", "left"]);
    assert_ne!(out.code, 0, "expected a conflict without the driver");
    assert!(
        format!("{}{}", out.stdout, out.stderr).contains("CONFLICT (content): Merge conflict in _index/"),
        "{}{}",
        out.stdout,
        out.stderr
    );

    let r = Repo::committed();
    let out = r.mdgraph(&["hook", "install"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for hook in ["pre-commit", "pre-merge-commit", "post-merge", "post-rewrite"] {
        assert!(
            out.stderr.contains(&format!("installed the {hook} hook")),
            "{}",
            out.stderr
        );
    }
    assert!(out.stderr.contains("defined the merge driver"), "{}", out.stderr);
    assert_eq!(
        r.git_ok(&["config", "merge.mdgraph.driver"]).trim(),
        "mdgraph merge-driver -- %O %A %B %P"
    );
    let attributes = std::fs::read_to_string(r.path().join("_index/.gitattributes")).unwrap();
    assert!(attributes.contains("*.jsonl merge=mdgraph"), "{attributes}");

    // A plain `git merge`: no conflict, HEAD is the merge commit git made (nothing
    // folded into it), a clean working tree, and `check` passes there and in a
    // `git archive` of HEAD.
    let main = two_branches(&r);
    let out = r.git(&["merge", "-q", "--no-edit", "left"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let head = r.git_ok(&["rev-parse", "HEAD"]);
    assert_eq!(
        r.git_ok(&["reflog", "-1", "--format=%H %gs"]).split(' ').next(),
        Some(head.trim())
    );
    r.git_ok(&["rev-parse", "--verify", "HEAD^2"]);
    assert_eq!(
        r.git_ok(&["status", "--porcelain"]),
        "",
        "the merge left changes behind"
    );
    let out = r.mdgraph(&["check"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let archive = tempfile::tempdir().unwrap();
    let tar = archive.path().join("head.tar");
    r.git_ok(&["archive", "-o", tar.to_str().unwrap(), "HEAD"]);
    let unpacked = archive.path().join("head");
    std::fs::create_dir_all(&unpacked).unwrap();
    let untar = Command::new("tar")
        .arg("-xf")
        .arg(&tar)
        .arg("-C")
        .arg(&unpacked)
        .status()
        .unwrap();
    assert!(untar.success());
    let out = mdgraph_with_git(&unpacked, &["check"]);
    assert_eq!(out.code, 0, "in the archive: {}{}", out.stdout, out.stderr);
    for (file, words) in [(TASK, "Left branch words."), (TASK8, "Right branch words.")] {
        let id = &file[16..28];
        let found = r.mdgraph(&["search", words, "--limit", "1"]);
        assert!(found.stdout.contains(id), "{words}: {}", found.stdout);
    }

    // A rebase onto the merge: every picked commit's index merges the same way.
    r.git_ok(&["checkout", "-q", "-b", "later", &main]);
    commit_edit(&r, TASK9, "# Context\n", "# Context\n\nRebased words.\n", "later");
    let out = r.git(&["rebase", "-q", "right"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(r.git_ok(&["status", "--porcelain"]), "");
    let out = r.mdgraph(&["check"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);

    // Both sides change one item: the Markdown conflicts in git, and so does the node
    // file (the driver never guesses), left as ours, a valid file; the driver says what
    // to run.
    r.git_ok(&["checkout", "-q", "-b", "one", &main]);
    commit_edit(&r, TASK9, "# Context\n", "# Context\n\nOne.\n", "one");
    r.git_ok(&["checkout", "-q", "-b", "two", &main]);
    commit_edit(&r, TASK9, "# Context\n", "# Context\n\nTwo.\n", "two");
    let out = r.git(&["merge", "-q", "--no-edit", "one"]);
    assert_ne!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(said.contains(&format!("Merge conflict in backlog/{TASK9}")), "{said}");
    assert!(said.contains("Merge conflict in _index/graph_nodes.jsonl"), "{said}");
    assert!(said.contains("run `mdgraph index`"), "{said}");
    let nodes = std::fs::read_to_string(r.path().join("_index/graph_nodes.jsonl")).unwrap();
    assert!(
        nodes
            .lines()
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
    );
}

#[test]
fn hooks_never_rewrite_history() {
    if !git_available() {
        return;
    }
    // Default mode: the index is local; after a merge the hook refreshes it and no
    // commit is made, moved or amended.
    let r = Repo::new();
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n",
    )
    .unwrap();
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    r.git_ok(&["add", "-A"]);
    r.git_ok(&["commit", "-q", "-m", "backlog"]);
    assert_eq!(r.mdgraph(&["hook", "install"]).code, 0);
    for hook in ["pre-commit", "pre-merge-commit", "post-merge", "post-rewrite"] {
        let text = std::fs::read_to_string(r.path().join(".git/hooks").join(hook)).unwrap();
        for bad in ["commit-tree", "update-ref", "--amend"] {
            assert!(!text.contains(bad), "{hook} holds {bad}:\n{text}");
        }
    }
    let main = two_branches(&r);
    r.git_ok(&["checkout", "-q", &main]);
    r.git_ok(&["merge", "-q", "--no-edit", "left"]);
    let before = r.git_ok(&["rev-parse", "HEAD"]);
    let out = r.git(&["merge", "-q", "--no-edit", "right"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    // The merge commit is git's own: its first parent is where HEAD was.
    assert_eq!(r.git_ok(&["rev-parse", "HEAD^1"]), before);
    assert_eq!(r.git_ok(&["status", "--porcelain"]), "");
    // The post-merge hook refreshed the local index: it already holds both edits.
    let nodes = std::fs::read_to_string(r.path().join("_index/graph_nodes.jsonl")).unwrap();
    assert!(nodes.contains("Left branch words.") && nodes.contains("Right branch words."));
    assert!(
        !r.git_ok(&["ls-files"]).contains("_index/"),
        "the local index was committed"
    );
}

/// A repository in the default (local) mode: backlog committed, the index local.
fn local_repo() -> Repo {
    let r = Repo::new();
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n",
    )
    .unwrap();
    let out = r.mdgraph(&["index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Nothing of the index shows in git.
    assert_eq!(r.git_ok(&["status", "--porcelain", "--", "_index"]), "");
    r.git_ok(&["add", "-A"]);
    r.git_ok(&["commit", "-q", "-m", "backlog"]);
    assert_eq!(r.mdgraph(&["hook", "install"]).code, 0);
    r
}

#[test]
fn local_mode_hook_judges_what_is_staged() {
    if !git_available() {
        return;
    }
    let r = local_repo();
    let task = r.path().join("backlog").join(TASK);
    let original = std::fs::read_to_string(&task).unwrap();
    let dangling = original.replacen("decisions: [ADR-0004]", "decisions: [ADR-0004, ADR-0404]", 1);

    // An unstaged error does not block an unrelated commit.
    std::fs::write(&task, &dangling).unwrap();
    std::fs::write(r.path().join("NOTES.txt"), "unrelated\n").unwrap();
    r.git_ok(&["add", "NOTES.txt"]);
    let out = r.git(&["commit", "-q", "-m", "unrelated file"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);

    // A staged broken link is refused and named, even once the working tree no longer
    // has it.
    r.git_ok(&["add", &format!("backlog/{TASK}")]);
    std::fs::write(&task, &original).unwrap();
    let out = r.git(&["commit", "-q", "-m", "staged broken link"]);
    assert_ne!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(said.contains("refers to `ADR-0404`"), "{said}");
    assert!(said.contains("commit refused"), "{said}");

    // Staged fixed: accepted, though the working tree is as it was.
    r.git_ok(&["add", &format!("backlog/{TASK}")]);
    let out = r.git(&["commit", "-q", "-m", "nothing broken", "--allow-empty"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);

    // An untracked file with an error is not part of the commit; an intent-to-add one
    // (`git add -N`) is not either.
    let untracked = r.path().join("backlog/items/task/0000/QRY-TSK-0990_untracked.md");
    std::fs::write(
        &untracked,
        "---\nid: QRY-TSK-0990\ntype: Task\nparent: QRY-FTR-0404\n---\n# U\n",
    )
    .unwrap();
    std::fs::write(r.path().join("MORE.txt"), "more\n").unwrap();
    r.git_ok(&["add", "MORE.txt"]);
    let out = r.git(&["commit", "-q", "-m", "with an untracked broken file around"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    r.git_ok(&["add", "-N", "backlog/items/task/0000/QRY-TSK-0990_untracked.md"]);
    std::fs::write(r.path().join("EVEN.txt"), "more\n").unwrap();
    r.git_ok(&["add", "EVEN.txt"]);
    let out = r.git(&["commit", "-q", "-m", "intent to add"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    // Staged for real: refused, naming it first.
    r.git_ok(&["add", "backlog/items/task/0000/QRY-TSK-0990_untracked.md"]);
    let out = r.git(&["commit", "-q", "-m", "broken parent"]);
    assert_ne!(out.code, 0, "{}{}", out.stdout, out.stderr);
    // (git shows a hook's output on stderr.)
    let said = format!("{}{}", out.stdout, out.stderr);
    let first = said.lines().find(|l| l.contains(": error[")).unwrap_or_default();
    assert!(first.starts_with("items/task/0000/QRY-TSK-0990_untracked.md"), "{said}");
    r.git_ok(&[
        "rm",
        "-q",
        "--cached",
        "backlog/items/task/0000/QRY-TSK-0990_untracked.md",
    ]);
    std::fs::remove_file(&untracked).unwrap();

    // A staged config that changes what the index holds is judged as staged.
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n[check]\nseverity = { \"broken-link\" = \"off\" }\n",
    )
    .unwrap();
    r.git_ok(&["add", "mdgraph.toml"]);
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n",
    )
    .unwrap();
    let out = r.mdgraph(&["check", "--staged"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

#[test]
fn index_dir_refuses_a_folder_of_other_files() {
    let f = Fixture::new("backlog-fixtures");
    let other = f.dir.path().join("notes");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("meta.json"), "{\"mine\": true}\n").unwrap();
    std::fs::write(other.join(".gitignore"), "secret\n").unwrap();
    std::fs::write(other.join("todo.txt"), "mine\n").unwrap();
    let before = tree_hashes(&other);
    let out = run_in(f.dir.path(), &["--root", "backlog", "--index-dir", "notes", "index"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("not an mdgraph index folder"), "{}", out.stderr);
    assert_eq!(tree_hashes(&other), before, "the folder was touched");
    // Files that merely have an index's names, not written by mdgraph: refused too.
    let named = f.dir.path().join("named");
    std::fs::create_dir_all(&named).unwrap();
    for name in ["graph_nodes.jsonl", "index.sqlite", ".stat-cache"] {
        std::fs::write(named.join(name), "mine\n").unwrap();
    }
    let before = tree_hashes(&named);
    let out = run_in(f.dir.path(), &["--root", "backlog", "--index-dir", "named", "index"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("no mark of mdgraph"), "{}", out.stderr);
    assert_eq!(tree_hashes(&named), before, "the folder was touched");
    // `--index-dir .` in a repository is refused the same way.
    let out = run_in(f.dir.path(), &["--root", "backlog", "--index-dir", ".", "index"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    // An empty or new folder is fine.
    let out = run_in(
        f.dir.path(),
        &["--root", "backlog", "--index-dir", "fresh/idx", "index"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // A first run killed after taking the lock leaves its mark: the next run goes on.
    let killed = f.dir.path().join("killed");
    std::fs::create_dir_all(&killed).unwrap();
    std::fs::copy(f.dir.path().join("fresh/idx/.lock"), killed.join(".lock")).unwrap();
    std::fs::write(killed.join(".graph_nodes.jsonl.tmp-999999"), "half").unwrap();
    let out = run_in(f.dir.path(), &["--root", "backlog", "--index-dir", "killed", "index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// The odd repositories of real teams, in the default mode: each commit of a good edit
/// goes through and a staged error is refused.
fn good_then_bad(r: &Repo, root: &str, what: &str) {
    let task = r.path().join(root).join(TASK);
    let text = std::fs::read_to_string(&task).unwrap();
    let good = text.replacen("# Context", "# Context, edited", 1);
    std::fs::write(&task, &good).unwrap();
    r.git_ok(&["add", "-A"]);
    let out = r.git(&["commit", "-q", "-m", "good edit"]);
    assert_eq!(out.code, 0, "{what}: {}{}", out.stdout, out.stderr);
    std::fs::write(
        &task,
        good.replacen("decisions: [ADR-0004]", "decisions: [ADR-0404]", 1),
    )
    .unwrap();
    r.git_ok(&["add", "-A"]);
    let out = r.git(&["commit", "-q", "-m", "bad edit"]);
    assert_ne!(out.code, 0, "{what}: a staged error went through");
    assert!(
        format!("{}{}", out.stdout, out.stderr).contains("`ADR-0404`"),
        "{what}: {}",
        out.stderr
    );
    r.git_ok(&["reset", "-q", "--hard"]);
}

#[test]
fn odd_paths_crlf_symlinks_submodules_and_sparse_checkouts() {
    if !git_available() {
        return;
    }
    // A root and an index folder whose names start with `-` and hold spaces and
    // unicode, given on the command line to `hook install` (no config).
    let r = Repo::bare("backlog-fixtures");
    std::fs::rename(r.path().join("backlog"), r.path().join("-my backlog é")).unwrap();
    let args = ["--root=-my backlog é", "--index-dir=-index ü"];
    let out = r.mdgraph(&[args[0], args[1], "index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    r.git_ok(&["add", "-A"]);
    r.git_ok(&["commit", "-q", "-m", "backlog"]);
    assert_eq!(r.git_ok(&["status", "--porcelain"]), "", "the local index shows in git");
    let out = r.mdgraph(&[args[0], args[1], "hook", "install"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    good_then_bad(&r, "-my backlog é", "odd names");

    // CRLF checkouts (core.autocrlf): the files in the working tree end lines with CRLF.
    let r = Repo::new();
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n",
    )
    .unwrap();
    r.git_ok(&["config", "core.autocrlf", "true"]);
    r.git_ok(&["add", "-A"]);
    r.git_ok(&["commit", "-q", "-m", "backlog"]);
    to_crlf(walk(&r.path().join("backlog")));
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    assert_eq!(r.mdgraph(&["hook", "install"]).code, 0);
    good_then_bad(&r, "backlog", "crlf");

    // An absolute symlink inside the root, and a submodule under it.
    let r = Repo::new();
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n",
    )
    .unwrap();
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
    r.git_ok(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        sub.path().to_str().unwrap(),
        "backlog/vendor",
    ]);
    r.git_ok(&["add", "-A"]);
    r.git_ok(&["commit", "-q", "-m", "backlog"]);
    assert_eq!(r.mdgraph(&["index"]).code, 0);
    assert_eq!(r.mdgraph(&["hook", "install"]).code, 0);
    good_then_bad(&r, "backlog", "symlink and submodule");

    // A sparse checkout: the bugs are not in the working tree, yet the staged backlog
    // has them (references to them do not dangle).
    let r = local_repo();
    r.git_ok(&["sparse-checkout", "set", "--no-cone", "/*", "!/backlog/items/bug/"]);
    assert!(!r.path().join("backlog/items/bug").exists());
    let out = r.mdgraph(&["check", "--staged"]);
    assert_eq!(out.code, 0, "sparse: {}{}", out.stdout, out.stderr);
    good_then_bad(&r, "backlog", "sparse");
}

/// Every Markdown file below `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_staged_config_names_the_baseline() {
    if !git_available() {
        return;
    }
    // Adopt with a baseline at ci/known.json (staged config), while the working tree's
    // config still names the default place.
    let r = Repo::bare("tests/fixtures/broken");
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n[check]\nbaseline = \"ci/known.json\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(r.path().join("ci")).unwrap();
    assert_eq!(r.mdgraph(&["baseline"]).code, 0);
    assert_eq!(r.mdgraph(&["hook", "install"]).code, 0);
    r.git_ok(&["add", "-A"]);
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n",
    )
    .unwrap();
    let out = r.git(&["commit", "-q", "-m", "adopt with a baseline in ci/"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

#[test]
fn cherry_picks_octopus_merges_and_private_notes() {
    if !git_available() {
        return;
    }
    // Commit mode: a cherry-pick and an octopus merge of branches that each re-indexed
    // merge their index files through the driver; `check` passes after each.
    let r = Repo::committed();
    assert_eq!(r.mdgraph(&["hook", "install"]).code, 0);
    let main = two_branches(&r);
    r.git_ok(&["checkout", "-q", &main]);
    r.git_ok(&["checkout", "-q", "-b", "third"]);
    commit_edit(&r, TASK9, "# Context\n", "# Context\n\nThird words.\n", "third");
    r.git_ok(&["checkout", "-q", &main]);
    let out = r.git(&["cherry-pick", "left"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let out = r.mdgraph(&["check"]);
    assert_eq!(out.code, 0, "after a cherry-pick: {}{}", out.stdout, out.stderr);
    // git's octopus strategy merges files with `merge-one-file`, which runs no merge
    // driver: it stops (nothing is committed), and the branches merge one at a time.
    let head = r.git_ok(&["rev-parse", "HEAD"]);
    let out = r.git(&["merge", "-q", "--no-edit", "right", "third"]);
    if out.code != 0 {
        let _ = r.git(&["merge", "--abort"]);
        r.git_ok(&["reset", "-q", "--hard", head.trim()]);
        for b in ["right", "third"] {
            let out = r.git(&["merge", "-q", "--no-edit", b]);
            assert_eq!(out.code, 0, "{b}: {}{}", out.stdout, out.stderr);
        }
    }
    let out = r.mdgraph(&["check"]);
    assert_eq!(
        out.code, 0,
        "after merging three branches: {}{}",
        out.stdout, out.stderr
    );

    // Default mode: a private note kept out of git by a custom core.excludesFile never
    // reaches a commit, and an unrelated commit goes through.
    let r = local_repo();
    let excludes = r.path().join("private-excludes");
    std::fs::write(&excludes, "private-*.md\n").unwrap();
    r.git_ok(&["config", "core.excludesFile", excludes.to_str().unwrap()]);
    std::fs::write(
        r.path().join("backlog/private-note.md"),
        "# Private\n\nSalary negotiations, do not share.\n",
    )
    .unwrap();
    std::fs::write(r.path().join("NOTES.txt"), "public\n").unwrap();
    r.git_ok(&["add", "-A"]);
    let out = r.git(&["commit", "-q", "-m", "public notes"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let history = r.git_ok(&["log", "-p", "--all"]);
    assert!(!history.contains("Salary"), "a private note reached history");
    assert_eq!(r.git_ok(&["status", "--porcelain"]), "");
}

#[test]
fn many_files_differing_from_the_staged_ones_do_not_hang_the_check() {
    if !git_available() {
        return;
    }
    // 2,000 items committed, then all edited in the working tree and not staged: every
    // staged text is read from git in one `cat-file --batch` (82 KB of ids in, 400 KB
    // out), which must not block on full pipes. Two files share one staged text.
    let r = Repo::bare("tests/fixtures/nav");
    let dir = r.path().join("backlog/many");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..2000 {
        std::fs::write(
            dir.join(format!("M-{i}.md")),
            format!(
                "---\nid: M-{i}\ntype: Task\nparent: SYN-1\n---\n# Item {i}\n\n{}\n",
                "Words. ".repeat(20)
            ),
        )
        .unwrap();
    }
    std::fs::write(dir.join("same-a.md"), "# Same\n\nSee [gone](nowhere.md).\n").unwrap();
    std::fs::write(dir.join("same-b.md"), "# Same\n\nSee [gone](nowhere.md).\n").unwrap();
    std::fs::write(
        r.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n",
    )
    .unwrap();
    r.git_ok(&["add", "-A"]);
    for i in 0..2000 {
        let p = dir.join(format!("M-{i}.md"));
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, text.replace("parent: SYN-1", "parent: SYN-404")).unwrap();
    }
    for f in ["same-a.md", "same-b.md"] {
        std::fs::write(dir.join(f), "# Same\n\nNo links now.\n").unwrap();
    }
    let out = r.mdgraph(&["check", "--staged", "--format", "json"]);
    // The staged texts are judged: no dangling parent, and both copies' broken link.
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stderr));
    let diags = v["diagnostics"].as_array().unwrap();
    assert!(
        !diags
            .iter()
            .any(|d| d["message"].as_str().unwrap_or("").contains("SYN-404")),
        "{}",
        out.stdout
    );
    for f in ["many/same-a.md", "many/same-b.md"] {
        assert!(
            diags.iter().any(|d| d["path"] == f && d["code"] == "broken-link"),
            "{f}: {}",
            out.stdout
        );
    }
}
