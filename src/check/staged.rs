//! `check --staged`: judge exactly what is being committed. The staged backlog, config
//! and index are written out of git's index (`git checkout-index`, which honours the
//! temporary index of `git commit <path>`) into a temporary folder, and checked there;
//! the working tree is never read, so unstaged and untracked edits neither fail nor pass
//! a commit.

use crate::check::{self, CheckOptions, CheckReport};
use crate::config::{Config, Overrides};
use crate::error::Error;
use crate::text::path::{absolute, relative_to};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Run git in `dir`; stdout on success.
fn git(dir: &Path, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>, Error> {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if input.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::Other(format!("check --staged needs git: {e}")))?;
    if let (Some(data), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin.write_all(data).map_err(|e| Error::io("git stdin", e))?;
    }
    let out = child.wait_with_output().map_err(|e| Error::io("git", e))?;
    if !out.status.success() {
        return Err(Error::Other(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}

/// A path below `top` as git names it (`/` separators, no leading `./`); None outside.
fn in_repo(top: &Path, p: &Path) -> Option<String> {
    let rel = relative_to(top, p);
    (!rel.starts_with("..") && !Path::new(&rel).is_absolute()).then(|| if rel == "." { String::new() } else { rel })
}

/// Check the staged content of the backlog against the staged index.
pub fn check_staged(cfg: &Config, opts: CheckOptions) -> Result<CheckReport, Error> {
    let top = String::from_utf8_lossy(&git(&cfg.cwd, &["rev-parse", "--show-toplevel"], None)?)
        .trim_end()
        .to_string();
    let top = absolute(Path::new(&top));
    let outside = |what: &str, p: &Path| {
        Error::Other(format!(
            "check --staged: the {what} {} is outside the git working tree {}",
            cfg.display(p),
            top.display()
        ))
    };
    let root = in_repo(&top, &cfg.root).ok_or_else(|| outside("root", &cfg.root))?;
    let index = in_repo(&top, &cfg.index_dir).ok_or_else(|| outside("index folder", &cfg.index_dir))?;
    let config = match &cfg.config_file {
        Some(f) => Some(in_repo(&top, f).ok_or_else(|| outside("config", f))?),
        None => None,
    };
    // What the check reads: the root, the index, the config and its folder's files (a
    // baseline beside it), and every ignore file (they shape the scan).
    let mut specs: Vec<String> = vec![
        pathspec(&root),
        pathspec(&index),
        ":(glob)**/.gitignore".into(),
        ":(glob)**/.ignore".into(),
    ];
    if let Some(c) = &config {
        specs.push(format!(":(literal){c}"));
        let dir = Path::new(c)
            .parent()
            .map(|d| d.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        specs.push(if dir.is_empty() {
            ":(glob)*".to_string()
        } else {
            format!(":(glob){dir}/*")
        });
    }
    // The baseline, wherever `[check] baseline` puts it.
    let baseline = in_repo(&top, &cfg.baseline);
    if let Some(b) = &baseline {
        specs.push(format!(":(literal){b}"));
    }
    let mut args = vec!["ls-files", "-z", "--"];
    args.extend(specs.iter().map(String::as_str));
    let files = git(&top, &args, None)?;
    let tmp = tempfile::Builder::new()
        .prefix("mdgraph-staged-")
        .tempdir()
        .map_err(|e| Error::io("temporary folder", e))?;
    let prefix = format!("{}/", tmp.path().display());
    git(
        &top,
        &["checkout-index", "-z", "--stdin", "--prefix", &prefix],
        Some(&files),
    )?;
    let at = |rel: &str| -> PathBuf {
        if rel.is_empty() {
            tmp.path().to_path_buf()
        } else {
            tmp.path().join(rel)
        }
    };
    let staged_root = at(&root);
    std::fs::create_dir_all(&staged_root).map_err(|e| Error::io(&staged_root, e))?;
    let ov = Overrides {
        // A config that is not staged (untracked) is read where it is.
        config: config
            .as_deref()
            .map(at)
            .filter(|p| p.is_file())
            .or_else(|| cfg.config_file.clone()),
        root: Some(staged_root),
        index_dir: Some(at(&index)),
        no_sqlite: true,
    };
    let mut staged = Config::load(tmp.path(), &ov)?;
    // The checkout has no `.git`: links from the repository root resolve as in the
    // working tree.
    staged.settings.repo_prefix = cfg.settings.repo_prefix.clone();
    // The staged baseline (none when it is not staged: then every diagnostic is new).
    staged.baseline = baseline
        .as_deref()
        .map(at)
        .unwrap_or_else(|| tmp.path().join(".no-baseline"));
    let mut report = check::check(&staged, CheckOptions { staged: false, ..opts })?;
    report.staged = true;
    Ok(report)
}

/// A pathspec for everything under a folder given relative to the top ("" = all).
fn pathspec(rel: &str) -> String {
    if rel.is_empty() {
        ":(glob)**".into()
    } else {
        format!(":(literal){rel}")
    }
}
