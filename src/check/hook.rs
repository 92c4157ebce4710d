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

/// The merge driver `_index/.gitattributes` names for the index files in commit mode.
/// Defined in the repository's git config by [`install`] as `mdgraph merge-driver`,
/// which merges the files record by record (see [`crate::check::merge`]).
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
    /// `(hook name, path, outcome)` for pre-commit, pre-merge-commit, post-merge and
    /// post-rewrite.
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
/// the config file, plus `--root`/`--index-dir` when they were given or differ, each as
/// one `--flag=value` word (a value starting with `-` is not read as a flag).
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
        args.push(format!("--config={rel}"));
    }
    let from_top = Config::load(top, &ov).ok();
    if !from_top.as_ref().is_some_and(|c| same(&c.root, &cfg.root)) {
        args.push(format!("--root={}", relative_to(top, &cfg.root)));
    }
    if !from_top.as_ref().is_some_and(|c| same(&c.index_dir, &cfg.index_dir)) {
        args.push(format!("--index-dir={}", relative_to(top, &cfg.index_dir)));
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

/// The pre-commit hook script. `commit` is commit mode (the staged index is checked
/// too, and must be staged with the backlog).
pub fn script(args: &[String], index_dir: &str, commit: bool) -> String {
    judge_script("pre-commit", args, index_dir, commit)
}

/// The pre-commit hook, or under another name the pre-merge-commit hook: git runs no
/// pre-commit hook for the commit of a merge it made by itself, only that one, over the
/// merge result staged.
pub fn judge_script(name: &str, args: &[String], index_dir: &str, commit: bool) -> String {
    let cmd = command_line(args);
    let stage = sh_quote(index_dir);
    let (what, fix) = if commit {
        (
            "# Refuses a commit whose staged backlog has new errors, or whose staged index is not\n\
             # what the staged backlog gives.",
            format!("Fix the errors, run `{cmd} index`, stage the index (git add {stage}) and commit again."),
        )
    } else {
        (
            "# Refuses a commit whose staged backlog has new errors (the staged files, never the\n\
             # working tree; errors recorded by `mdgraph baseline` do not refuse it).",
            "Fix the errors and stage the fix, or record today's errors with `mdgraph baseline` and stage the baseline file.".to_string(),
        )
    };
    let skip = if name == "pre-commit" {
        "git commit --no-verify"
    } else {
        "git merge --no-verify"
    };
    format!(
        r#"#!/bin/sh
# mdgraph {name} hook (written by `mdgraph hook install`).
{what}
# Skip it once with `{skip}`; remove this file to stop.
if ! command -v mdgraph >/dev/null 2>&1; then
  echo "mdgraph {name} hook: mdgraph is not on PATH; install it (cargo install --path <mdgraph checkout>) or remove $0" >&2
  exit 1
fi
{cmd} check --staged
status=$?
if [ "$status" -ne 0 ]; then
  cat >&2 <<'MDGRAPH_EOF'
mdgraph: commit refused. {fix}
MDGRAPH_EOF
fi
exit "$status"
"#
    )
}

/// A post-merge or post-rewrite hook script: judge the commit git just made (HEAD, which
/// git's index then holds: a merge, a rebase's last commit, an amend) and say plainly when
/// its committed index is stale or it has new errors, then rebuild the working tree's
/// index. It never commits, amends or moves a ref, and never fails (git ignores the
/// exit of these hooks).
pub fn refresh_script(name: &str, args: &[String]) -> String {
    let cmd = command_line(args);
    format!(
        r#"#!/bin/sh
# mdgraph {name} hook (written by `mdgraph hook install`).
# Says when the commit git just made (HEAD) has a stale committed index or new errors,
# then brings the working tree's index up to date. It writes only the index folder: it
# never commits, amends or moves a ref. Remove this file to stop.
command -v mdgraph >/dev/null 2>&1 || exit 0
# Judged only when git's index is HEAD's (nothing else staged).
if git diff-index --cached --quiet HEAD -- 2>/dev/null && ! {cmd} check --staged >/dev/null 2>&1; then
  cat >&2 <<'MDGRAPH_EOF'
mdgraph {name}: the commit just made (HEAD) has a stale committed index or new errors
(`mdgraph check --staged` says which). Fix them, run `mdgraph index`, stage the fix and
the index, and commit them in a new commit.
MDGRAPH_EOF
fi
{cmd} --quiet index >/dev/null 2>&1 || true
exit 0
"#
    )
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
    let wanted: [(&'static str, String); 4] = [
        ("pre-commit", script(&args, &index_dir, cfg.commit_index)),
        (
            "pre-merge-commit",
            judge_script("pre-merge-commit", &args, &index_dir, cfg.commit_index),
        ),
        ("post-merge", refresh_script("post-merge", &args)),
        ("post-rewrite", refresh_script("post-rewrite", &args)),
    ];
    // Decide every hook before writing any. A foreign pre-commit hook stops the install
    // (it is the hook that guards commits); a foreign post-merge or post-rewrite hook is
    // kept and reported (pre-merge-commit too: a merge's commit is then not judged).
    let mut plan = Vec::new();
    for (name, text) in wanted {
        let hook = paths.hooks.join(name);
        // Ours only when written by us: the marker (`# mdgraph <name> hook`, which every
        // hook mdgraph writes has) opens the second line (a hook that
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
        merge_driver: cfg.commit_index && register_merge_driver(&paths.toplevel)?,
    })
}

/// Define the merge driver in the repository's own git config (`.git/config`): `mdgraph
/// merge-driver` merges the records of a committed index. False without git.
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
        "mdgraph index files: merge their records",
    )? && set(
        &format!("merge.{MERGE_DRIVER}.driver"),
        "mdgraph merge-driver -- %O %A %B %P",
    )?)
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
        let s = script(&["--config=it's/mdgraph.toml".into()], "my index", true);
        assert!(s.starts_with("#!/bin/sh\n# mdgraph pre-commit hook"));
        assert!(
            s.contains("mdgraph '--config=it'\\''s/mdgraph.toml' check --staged\n"),
            "{s}"
        );
        assert!(s.contains("git add 'my index'"), "{s}");
        let local = script(&[], "_index", false);
        assert!(local.contains("`mdgraph baseline`"), "{local}");
        assert!(!local.contains("git add"), "{local}");
    }

    #[test]
    fn no_hook_rewrites_history() {
        let args = ["--root=-backlog".to_string()];
        for text in [
            script(&args, "_index", false),
            script(&args, "_index", true),
            refresh_script("post-merge", &args),
            refresh_script("post-rewrite", &args),
        ] {
            // The commands it runs: not its comments, not the message it prints.
            let mut message = false;
            let code: Vec<&str> = text
                .lines()
                .filter(|l| {
                    let inside = message;
                    message = (message || l.contains("<<'MDGRAPH_EOF'")) && *l != "MDGRAPH_EOF";
                    !inside && !l.trim_start().starts_with('#')
                })
                .collect();
            for bad in [
                "commit-tree",
                "update-ref",
                "--amend",
                "git commit",
                "git add",
                "git reset",
            ] {
                assert!(!code.iter().any(|l| l.contains(bad)), "{bad}:\n{text}");
            }
            assert!(
                code.iter()
                    .any(|l| l.contains("'--root=-backlog'") || l.contains("--root=-backlog")),
                "{text}"
            );
        }
    }

    #[test]
    fn hook_message_survives_quotes_and_dollars_in_paths() {
        // The refusal message is printed from a quoted here-document: nothing in the
        // command or the index path is expanded or can break the script.
        let weird = "we\"ird $HOME `x` 'q'";
        let args = [format!("--index-dir={weird}")];
        let text = script(&args, weird, true);
        assert!(text.contains("<<'MDGRAPH_EOF'"), "{text}");
        let merge = refresh_script("post-merge", &args);
        for t in [&text, &merge] {
            if let Ok(out) = std::process::Command::new("sh").arg("-n").arg("-c").arg(t).output() {
                assert!(out.status.success(), "{}\n{t}", String::from_utf8_lossy(&out.stderr));
            }
        }
    }
}
