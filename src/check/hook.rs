//! `mdgraph hook install`: a plain git pre-commit hook that runs `mdgraph check`, for
//! repositories that do not use the pre-commit framework (which has
//! `.pre-commit-hooks.yaml` at the top of this repository).
//!
//! The hooks folder is what git itself uses: `git rev-parse --git-path hooks`, which
//! honours `core.hooksPath` and linked worktrees (they share the main repository's
//! hooks). Without a `git` executable the `.git` file or folder is read directly. The
//! hook calls `mdgraph` from PATH (the hook outlives any one build of mdgraph) and
//! passes the configuration the install was run with, relative to the top of the
//! working tree, where git runs hooks.

use crate::config::{Config, Overrides};
use crate::error::Error;
use crate::text::path::{absolute, relative_to};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The line that marks the pre-commit hook written by mdgraph (such a hook is replaced
/// without `--force`); the other hooks are marked `# mdgraph <name> hook`.
pub const MARKER: &str = "# mdgraph pre-commit hook";

/// The merge driver `_index/.gitattributes` names for the index files. Defined in the
/// repository's git config by [`install`] as `true`: it keeps this side's index files,
/// which the post-merge and post-rewrite hooks then rebuild from the merged backlog.
pub const MERGE_DRIVER: &str = "mdgraph";

/// What [`install`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Wrote a new hook.
    Installed,
    /// The same hook was already there.
    Unchanged,
    /// Replaced an older mdgraph hook, or another hook under `--force`.
    Replaced,
    /// A post-merge or post-rewrite hook not written by mdgraph was left alone (without
    /// `--force`); the index is then not rebuilt after merges by that hook.
    Kept,
}

/// What [`install`] wrote: each hook with its outcome, and whether the merge driver was
/// registered in the repository's git config (it needs a `git` executable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// `(hook name, path, outcome)` for pre-commit, post-merge and post-rewrite.
    pub hooks: Vec<(&'static str, PathBuf, Outcome)>,
    /// Whether `merge.mdgraph.driver` was set.
    pub merge_driver: bool,
}

/// Where git looks for hooks and where it runs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitPaths {
    /// The hooks folder.
    pub hooks: PathBuf,
    /// The top of the working tree.
    pub toplevel: PathBuf,
    /// The repository's (common) git folder, when known.
    pub git_dir: Option<PathBuf>,
}

/// Ask git (or, without git, the `.git` entry) where the hooks of the repository
/// holding `cwd` are.
pub fn git_paths(cwd: &Path) -> Result<GitPaths, Error> {
    let git = |dir: &Path, args: &[&str]| -> Result<Option<String>, Error> {
        match Command::new("git").args(args).current_dir(dir).output() {
            Ok(out) if out.status.success() => Ok(Some(String::from_utf8_lossy(&out.stdout).trim_end().to_string())),
            Ok(out) => Err(Error::Other(format!(
                "{}: not in a git working tree ({})",
                dir.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ))),
            // No git executable.
            Err(_) => Ok(None),
        }
    };
    let Some(top) = git(cwd, &["rev-parse", "--show-toplevel"])? else {
        return find_git_dir(cwd)
            .ok_or_else(|| Error::Other(format!("{}: not in a git repository (no .git found)", cwd.display())));
    };
    let toplevel = PathBuf::from(top);
    // From the top: a relative core.hooksPath is relative to it, and so is the answer.
    let hooks = git(&toplevel, &["rev-parse", "--git-path", "hooks"])?
        .ok_or_else(|| Error::Other("git stopped answering".into()))?;
    let git_dir = git(&toplevel, &["rev-parse", "--git-common-dir"])?.map(|d| toplevel.join(d));
    Ok(GitPaths {
        hooks: toplevel.join(hooks),
        toplevel,
        git_dir,
    })
}

/// The hooks folder found from the `.git` entry alone: a folder, or a file
/// `gitdir: …` (a linked worktree or submodule), whose `commondir` leads to the shared
/// folder. `core.hooksPath` needs git to be read.
pub fn find_git_dir(cwd: &Path) -> Option<GitPaths> {
    for dir in cwd.ancestors() {
        let dot = dir.join(".git");
        let git_dir = if dot.is_dir() {
            dot
        } else if dot.is_file() {
            let text = std::fs::read_to_string(&dot).ok()?;
            let target = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
            dir.join(target)
        } else {
            continue;
        };
        let common = match std::fs::read_to_string(git_dir.join("commondir")) {
            Ok(c) => git_dir.join(c.trim()),
            Err(_) => git_dir,
        };
        return Some(GitPaths {
            hooks: common.join("hooks"),
            toplevel: dir.to_path_buf(),
            git_dir: Some(common),
        });
    }
    None
}

/// Quoted for sh when it has to be.
fn sh_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ',' | ':' | '=' | '@' | '+'));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The arguments that make `mdgraph` started at `top` load the configuration `cfg`:
/// the config file, plus `--root`/`--index-dir` when they were given or differ.
pub fn args_for(cfg: &Config, top: &Path) -> Vec<String> {
    let mut args = Vec::new();
    let same = |a: &Path, b: &Path| relative_to(top, a) == relative_to(top, b);
    // The file mdgraph finds by itself at the top needs no `--config`.
    let found = Config::load(top, &Overrides::default()).ok();
    let mut ov = Overrides::default();
    let found_same = match (&cfg.config_file, found.as_ref().and_then(|c| c.config_file.as_ref())) {
        (Some(a), Some(b)) => same(a, b),
        (None, None) => true,
        _ => false,
    };
    if !found_same && let Some(file) = &cfg.config_file {
        let rel = relative_to(top, file);
        ov.config = Some(PathBuf::from(&rel));
        args.extend(["--config".to_string(), rel]);
    }
    let from_top = Config::load(top, &ov).ok();
    if !from_top.as_ref().is_some_and(|c| same(&c.root, &cfg.root)) {
        args.extend(["--root".to_string(), relative_to(top, &cfg.root)]);
    }
    if !from_top.as_ref().is_some_and(|c| same(&c.index_dir, &cfg.index_dir)) {
        args.extend(["--index-dir".to_string(), relative_to(top, &cfg.index_dir)]);
    }
    args
}

/// `mdgraph` with the install's arguments, quoted for sh.
fn command_line(args: &[String]) -> String {
    let mut cmd = String::from("mdgraph");
    for a in args {
        cmd.push(' ');
        cmd.push_str(&sh_quote(a));
    }
    cmd
}

/// The pre-commit hook script.
pub fn script(args: &[String], index_dir: &str) -> String {
    let cmd = command_line(args);
    let stage = sh_quote(index_dir);
    format!(
        r#"#!/bin/sh
{MARKER} (written by `mdgraph hook install`).
# Refuses a commit whose mdgraph index is stale or whose backlog has errors. It checks
# what is staged (git's index), never the working tree. Skip it once with
# `git commit --no-verify`; remove this file to stop.
if ! command -v mdgraph >/dev/null 2>&1; then
  echo "mdgraph pre-commit hook: mdgraph is not on PATH; install it (cargo install --path <mdgraph checkout>) or remove $0" >&2
  exit 1
fi
{cmd} check --staged
status=$?
if [ "$status" -ne 0 ]; then
  cat >&2 <<'MDGRAPH_EOF'

mdgraph: commit refused: the index is stale or the backlog has errors (see above).
Fix the errors, run `{cmd} index`, stage the index (git add {stage}) and commit again.
MDGRAPH_EOF
fi
exit "$status"
"#
    )
}

/// Shell functions for the hooks below. `clean` holds when the backlog (`$root`, less
/// the index folder, which may sit inside it) has no uncommitted or untracked change, so an index rebuilt from the working tree is the
/// index of HEAD; `unpushed` when no remote-tracking branch holds HEAD (a commit already
/// pushed is never rewritten); `fold` replaces HEAD by the same commit (parents,
/// author, message) with the rebuilt index, by plumbing: `git commit --amend` is refused
/// while git still holds the merge's state (post-merge runs before it is cleared). A
/// signed commit is left alone (its signature would be lost). `$stage` names the index
/// folder.
const FOLD: &str = r#"clean() {
  git diff --quiet HEAD -- "$root" ":(exclude)$stage" &&
    [ -z "$(git ls-files --others --exclude-standard -- "$root" ":(exclude)$stage")" ]
}
unpushed() {
  [ -z "$(git for-each-ref --contains HEAD refs/remotes 2>/dev/null)" ]
}
fold() {
  old=$(git rev-parse -q --verify HEAD) || return 1
  git cat-file commit "$old" | grep -q '^gpgsig' && return 1
  git add -- "$stage" || return 1
  tree=$(git write-tree) || return 1
  parents=$(git rev-list --parents -n 1 "$old" | cut -d' ' -f2- | sed 's/[^ ][^ ]*/-p &/g')
  author=$(git cat-file commit "$old" | sed -n '/^$/q; s/^author //p')
  new=$(git cat-file commit "$old" | sed '1,/^$/d' |
    GIT_AUTHOR_NAME=$(printf '%s\n' "$author" | sed 's/ <.*//') \
    GIT_AUTHOR_EMAIL=$(printf '%s\n' "$author" | sed 's/.*<\(.*\)>.*/\1/') \
    GIT_AUTHOR_DATE=$(printf '%s\n' "$author" | sed 's/.*> //') \
    git commit-tree "$tree" $parents) || return 1
  git update-ref -m "mdgraph: rebuilt index" HEAD "$new" "$old"
}"#;

/// What differs between the post-merge and post-rewrite hooks; [`post_script`] writes
/// the rest (rebuild the index, fold it when `when` holds and the commit is local and
/// clean, say what happened, check).
struct PostHook {
    name: &'static str,
    /// Comment lines saying what the hook is for.
    about: &'static str,
    /// Lines before anything is done (an early exit, reading stdin).
    early: &'static str,
    /// Lines after the rebuild that decide whether to fold.
    decide: &'static str,
    /// The shell condition for folding, besides `unpushed && clean`.
    when: &'static str,
    /// What happened: `merged` / `rebased`, `merge` / `rebase`, and the commit folded into.
    done: &'static str,
    after: &'static str,
    into: &'static str,
}

/// A post-merge or post-rewrite hook script.
fn post_script(hook: &PostHook, args: &[String], index_dir: &str, root: &str) -> String {
    let cmd = command_line(args);
    let stage = sh_quote(index_dir);
    let root = sh_quote(root);
    let PostHook {
        name,
        about,
        early,
        decide,
        when,
        done,
        after,
        into,
    } = hook;
    format!(
        r#"#!/bin/sh
# mdgraph {name} hook (written by `mdgraph hook install`).
{about}
stage={stage}
root={root}
{FOLD}
{early}if ! command -v mdgraph >/dev/null 2>&1; then
  printf 'mdgraph {name} hook: mdgraph is not on PATH; run `mdgraph index` and commit %s\n' "$stage" >&2
  exit 0
fi
{cmd} --quiet index || exit 0
[ -n "$(git status --porcelain -- "$stage")" ] || exit 0
{decide}if {when} && unpushed && clean && fold; then
  echo "mdgraph: rebuilt the index from the {done} backlog and folded it into {into}" >&2
else
  printf 'mdgraph: the index was rebuilt after the {after}; commit it (git add %s)\n' "$stage" >&2
fi
{cmd} --quiet check >&2 || true
exit 0
"#
    )
}

/// The post-merge hook script: rebuild the index from the merged backlog and fold it
/// into the merge commit that this merge just made (not after a fast-forward, not into a
/// commit a remote already has, not when the backlog has uncommitted edits).
pub fn post_merge_script(args: &[String], index_dir: &str, root: &str) -> String {
    let hook = PostHook {
        name: "post-merge",
        about: "# The merge driver `mdgraph` (see the .gitattributes of the index folder) keeps one
# side's index files instead of conflicting; this rebuilds the index from the merged
# backlog and folds it into the merge commit this merge just made. Remove this file to stop.",
        early: "",
        decide: r#"if [ "$1" = 1 ]; then
  # A squash merge: nothing is committed yet; stage the index with the rest.
  git add -- "$stage"
  exit 0
fi
case "$(git reflog -1 --format=%gs HEAD)" in
  *Fast-forward*) made=no ;;
  *) made=yes ;;
esac
"#,
        when: r#"[ "$made" = yes ] && git rev-parse -q --verify HEAD^2 >/dev/null"#,
        done: "merged",
        after: "merge",
        into: "the merge commit",
    };
    post_script(&hook, args, index_dir, root)
}

/// The post-rewrite hook script: after a rebase, rebuild the index and fold it into the
/// last rebased commit (only when the rebase rewrote HEAD itself, it is not on a remote,
/// and the backlog has no uncommitted edits).
pub fn post_rewrite_script(args: &[String], index_dir: &str, root: &str) -> String {
    let hook = PostHook {
        name: "post-rewrite",
        about: "# After a rebase (the merge driver kept one side's index files in each picked commit),
# rebuilds the index from the rebased backlog and folds it into the last commit; the
# docs/git.md shows how to rebuild it in every rebased commit. Remove this file to stop.",
        early: r#"[ "$1" = rebase ] || exit 0
# Rewritten commits, "old new" per line: fold only into a commit this rebase made.
rewritten=$(cut -d' ' -f2)
"#,
        decide: "head=$(git rev-parse -q --verify HEAD)\n",
        when: r#"printf '%s\n' "$rewritten" | grep -qx "$head""#,
        done: "rebased",
        after: "rebase",
        into: "the last commit",
    };
    post_script(&hook, args, index_dir, root)
}

/// Write the git hooks for the repository holding `cfg.cwd`: pre-commit (`check
/// --staged`), post-merge and post-rewrite (rebuild the index after a merge or rebase),
/// and register the merge driver that `_index/.gitattributes` names. An existing hook
/// not written by mdgraph is kept (and nothing is written) unless `force`.
pub fn install(cfg: &Config, force: bool) -> Result<Installed, Error> {
    let paths = git_paths(&cfg.cwd)?;
    let args = args_for(cfg, &paths.toplevel);
    let index_dir = relative_to(&paths.toplevel, &cfg.index_dir);
    // A hooks folder outside the repository (a global `core.hooksPath`) is shared by every
    // repository: a hook there would run `mdgraph check` in all of them.
    if !force && !inside_repo(&paths) {
        return Err(Error::Other(format!(
            "{}: the hooks folder is outside this repository (core.hooksPath?), so a hook there would \
             run in every repository using it; add `mdgraph check` to your hook yourself, or install \
             it there anyway with `mdgraph hook install --force`",
            paths.hooks.display()
        )));
    }
    let root = relative_to(&paths.toplevel, &cfg.root);
    // A newline would end the comment or the quoted word it is written into.
    if let Some(bad) = args
        .iter()
        .chain([&index_dir, &root])
        .find(|a| a.chars().any(char::is_control))
    {
        return Err(Error::Other(format!(
            "{bad:?}: a path with a control character cannot be written into a hook script"
        )));
    }
    let wanted: [(&'static str, String); 3] = [
        ("pre-commit", script(&args, &index_dir)),
        ("post-merge", post_merge_script(&args, &index_dir, &root)),
        ("post-rewrite", post_rewrite_script(&args, &index_dir, &root)),
    ];
    // Decide every hook before writing any. A foreign pre-commit hook stops the install
    // (it is the hook that guards commits); a foreign post-merge or post-rewrite hook is
    // kept and reported.
    let mut plan = Vec::new();
    for (name, text) in wanted {
        let hook = paths.hooks.join(name);
        // Ours only when written by us: the marker opens the second line (a hook that
        // merely contains our lines, pasted into a longer script, is the user's).
        let marker = format!("# mdgraph {name} hook");
        let ours = |old: &[u8]| {
            String::from_utf8_lossy(old)
                .lines()
                .nth(1)
                .is_some_and(|l| l.starts_with(&marker))
        };
        let outcome = match std::fs::read(&hook) {
            Ok(old) if old == text.as_bytes() => Outcome::Unchanged,
            Ok(old) if force || ours(&old) => Outcome::Replaced,
            Ok(_) if name == "pre-commit" => {
                return Err(Error::Other(format!(
                    "{}: a hook not written by mdgraph already exists; keep it and add `mdgraph check --staged` \
                     to it yourself, or replace it with `mdgraph hook install --force`",
                    cfg.display(&hook)
                )));
            }
            Ok(_) => Outcome::Kept,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Outcome::Installed,
            Err(e) => return Err(Error::io(&hook, e)),
        };
        plan.push((name, hook, text, outcome));
    }
    std::fs::create_dir_all(&paths.hooks).map_err(|e| Error::io(&paths.hooks, e))?;
    let mut hooks = Vec::new();
    for (name, hook, text, outcome) in plan {
        if matches!(outcome, Outcome::Installed | Outcome::Replaced) {
            std::fs::write(&hook, text.as_bytes()).map_err(|e| Error::io(&hook, e))?;
        }
        if outcome != Outcome::Kept {
            make_executable(&hook)?;
        }
        hooks.push((name, hook, outcome));
    }
    Ok(Installed {
        hooks,
        merge_driver: register_merge_driver(&paths.toplevel)?,
    })
}

/// Define the merge driver in the repository's own git config (`.git/config`): `true`
/// keeps this side's index files; the post-merge hook rebuilds them. False without git.
fn register_merge_driver(top: &Path) -> Result<bool, Error> {
    let set = |key: &str, value: &str| -> Result<bool, Error> {
        match Command::new("git")
            .args(["config", "--local", key, value])
            .current_dir(top)
            .output()
        {
            Ok(out) if out.status.success() => Ok(true),
            Ok(out) => Err(Error::Other(format!(
                "git config {key}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))),
            Err(_) => Ok(false),
        }
    };
    Ok(set(
        &format!("merge.{MERGE_DRIVER}.name"),
        "mdgraph index files: keep one side, the post-merge hook rebuilds them",
    )? && set(&format!("merge.{MERGE_DRIVER}.driver"), "true")?)
}

/// Mode 0755 (git skips a hook that is not executable).
fn make_executable(hook: &Path) -> Result<(), Error> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(hook, std::fs::Permissions::from_mode(0o755)).map_err(|e| Error::io(hook, e))?;
    }
    #[cfg(not(unix))]
    let _ = hook;
    Ok(())
}

/// Whether the hooks folder belongs to this repository: below its working tree or its
/// git folder (a linked worktree's hooks live in the main repository's git folder).
fn inside_repo(paths: &GitPaths) -> bool {
    let hooks = absolute(&paths.hooks);
    if hooks.starts_with(absolute(&paths.toplevel)) {
        return true;
    }
    match &paths.git_dir {
        Some(g) => hooks.starts_with(absolute(g)),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_dir_found_without_git_in_a_plain_repo_and_a_worktree() {
        let tmp = tempfile::tempdir().unwrap();
        let main = tmp.path().join("main");
        std::fs::create_dir_all(main.join(".git/worktrees/wt")).unwrap();
        std::fs::create_dir_all(main.join("docs/deep")).unwrap();
        let found = find_git_dir(&main.join("docs/deep")).unwrap();
        assert_eq!(found.hooks, main.join(".git/hooks"));
        assert_eq!(found.toplevel, main);

        let wt = tmp.path().join("wt");
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", main.join(".git/worktrees/wt").display()),
        )
        .unwrap();
        std::fs::write(main.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
        let found = find_git_dir(&wt).unwrap();
        assert_eq!(found.hooks, main.join(".git/worktrees/wt/../..").join("hooks"));
        assert_eq!(found.toplevel, wt);
    }

    #[test]
    fn script_quotes_its_arguments() {
        let s = script(&["--config".into(), "it's/mdgraph.toml".into()], "my index");
        assert!(s.starts_with("#!/bin/sh\n# mdgraph pre-commit hook"));
        assert!(
            s.contains("mdgraph --config 'it'\\''s/mdgraph.toml' check --staged\n"),
            "{s}"
        );
        assert!(s.contains("git add 'my index'"), "{s}");
    }

    #[test]
    fn hook_message_survives_quotes_and_dollars_in_paths() {
        // The refusal message is printed from a quoted here-document: nothing in the
        // command or the index path is expanded or can break the script.
        let text = script(&["--index-dir".into(), "we\"ird $HOME `x`".into()], "we\"ird $HOME `x`");
        assert!(text.contains("<<'MDGRAPH_EOF'"), "{text}");
        let weird = "we\"ird $HOME `x` 'q'";
        let args = ["--index-dir".to_string(), weird.to_string()];
        let merge = post_merge_script(&args, weird, weird);
        let rewrite = post_rewrite_script(&args, weird, weird);
        // The index folder reaches the messages only as "$stage", never re-read by the shell.
        for t in [&merge, &rewrite] {
            assert!(!t.contains("commit we\"ird"), "{t}");
        }
        for t in [&text, &merge, &rewrite] {
            if let Ok(out) = std::process::Command::new("sh").arg("-n").arg("-c").arg(t).output() {
                assert!(out.status.success(), "{}\n{t}", String::from_utf8_lossy(&out.stderr));
            }
        }
    }
}
