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

/// The line that marks a hook written by mdgraph (such a hook is replaced without
/// `--force`).
pub const MARKER: &str = "# mdgraph pre-commit hook";

/// What [`install`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Wrote a new hook.
    Installed,
    /// The same hook was already there.
    Unchanged,
    /// Replaced an older mdgraph hook, or another hook under `--force`.
    Replaced,
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

/// The hook script.
pub fn script(args: &[String], index_dir: &str) -> String {
    let mut cmd = String::from("mdgraph");
    for a in args {
        cmd.push(' ');
        cmd.push_str(&sh_quote(a));
    }
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

/// Write the pre-commit hook for the repository holding `cfg.cwd`. An existing hook not
/// written by mdgraph is kept unless `force`.
pub fn install(cfg: &Config, force: bool) -> Result<(PathBuf, Outcome), Error> {
    let paths = git_paths(&cfg.cwd)?;
    let args = args_for(cfg, &paths.toplevel);
    let text = script(&args, &relative_to(&paths.toplevel, &cfg.index_dir));
    let hook = paths.hooks.join("pre-commit");
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
    // Ours only when written by us: the marker opens the second line (a hook that merely
    // contains our lines, pasted into a longer script, is the user's).
    let ours = |old: &[u8]| {
        String::from_utf8_lossy(old)
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with(MARKER))
    };
    let outcome = match std::fs::read(&hook) {
        Ok(old) if old == text.as_bytes() => {
            make_executable(&hook)?;
            return Ok((hook, Outcome::Unchanged));
        }
        Ok(old) if force || ours(&old) => Outcome::Replaced,
        Ok(_) => {
            return Err(Error::Other(format!(
                "{}: a pre-commit hook already exists; keep it and add `mdgraph check` to it, \
                 or replace it with `mdgraph hook install --force`",
                cfg.display(&hook)
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Outcome::Installed,
        Err(e) => return Err(Error::io(&hook, e)),
    };
    std::fs::create_dir_all(&paths.hooks).map_err(|e| Error::io(&paths.hooks, e))?;
    std::fs::write(&hook, text.as_bytes()).map_err(|e| Error::io(&hook, e))?;
    make_executable(&hook)?;
    Ok((hook, outcome))
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
}
