//! `check --staged`: judge exactly what is being committed, never the working tree, so
//! unstaged and untracked edits neither fail nor pass a commit.
//!
//! With a local index (the default) the cost follows the change: git says which staged
//! files differ from the working tree (`ls-files -s`, `diff-files`, which honour the
//! temporary index of `git commit <path>`); the local index is brought up to date with
//! the working tree, every file whose staged content equals it comes from there, and
//! only the others are read from git (`cat-file --batch`, nothing written to disk) and
//! parsed, and the graph resolved with them. The staged baseline judges the errors.
//!
//! When the staged config shapes the index differently from the working tree's, the
//! staged backlog, config and baseline are written out of git's index (`checkout-index`)
//! into a temporary folder and checked there. Commit mode is `commit_staged.rs`.

use crate::check::baseline::Baseline;
use crate::check::git::{
    EMPTY_BLOB, Staged, blob_text, blobs, committed, differing, git, in_repo, outside, pathspec, staged_files, text_of,
    toplevel,
};
use crate::check::tracked::Tracked;
use crate::check::{self, CheckOptions, CheckReport};
use crate::config::{Config, Overrides};
use crate::error::Error;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Check the staged content of the backlog with a local index (local mode).
pub fn check_staged(cfg: &Config, opts: CheckOptions) -> Result<CheckReport, Error> {
    match local(cfg, opts)? {
        Some(report) => Ok(report),
        None => checked_out(cfg, opts),
    }
}

/// The staged check with a local index: `None` when the staged config shapes the index
/// differently from the working tree's (then the checkout path judges).
fn local(cfg: &Config, opts: CheckOptions) -> Result<Option<CheckReport>, Error> {
    let top = toplevel(cfg)?;
    let outside = |what: &str, p: &Path| outside(cfg, &top, what, p);
    let root = in_repo(&top, &cfg.root).ok_or_else(|| outside("root", &cfg.root))?;
    let index = in_repo(&top, &cfg.index_dir);
    let config = cfg.config_file.as_deref().and_then(|f| in_repo(&top, f));
    let baseline = in_repo(&top, &cfg.baseline);
    let specs = specs(&root, None, config.as_deref(), baseline.as_deref());
    let staged = staged_files(&top, &specs)?;
    let differ = differing(&top, &specs)?;
    if config_differs(cfg, &top, config.as_deref(), &staged, &differ)? {
        return Ok(None);
    }
    // The local index, up to date with the working tree (incremental; nothing is
    // scanned when the stat cache vouches for every file).
    let report = check::refresh(cfg)?;
    let prefix = if root.is_empty() {
        String::new()
    } else {
        format!("{root}/")
    };
    let index_prefix = index.map(|i| format!("{i}/"));
    let worktree = &report.meta.files;
    let tracked = Tracked::new(&top, &prefix, &cfg.settings.scan, &staged, &differ)?;
    let overlay_blobs = overlay_blobs(
        &top,
        &prefix,
        index_prefix.as_deref(),
        &staged,
        &differ,
        worktree,
        &tracked,
    );
    let diagnostics = if overlay_blobs.is_empty() {
        report.diagnostics
    } else {
        overlay_diagnostics(cfg, &top, &overlay_blobs)?
    };
    let loaded = staged_baseline(cfg, &top, opts, baseline.as_deref(), &staged, &differ)?;
    let report = check::verdict(cfg, opts, true, diagnostics, loaded, true);
    Ok(Some(committed_first(report, &top, &root, &prefix, &staged)))
}

/// The pathspecs a staged check reads: the root, the index folder (commit mode), every
/// ignore file, the config and the baseline.
pub(crate) fn specs(root: &str, index: Option<&str>, config: Option<&str>, baseline: Option<&str>) -> Vec<String> {
    let mut specs = vec![pathspec(root)];
    specs.extend(index.map(pathspec));
    specs.extend([":(glob)**/.gitignore".to_string(), ":(glob)**/.ignore".to_string()]);
    specs.extend(config.iter().chain(baseline.iter()).map(|p| format!(":(literal){p}")));
    specs
}

/// The report with the errors of the files being committed first, the others counted
/// (`elsewhere`).
pub(crate) fn committed_first(
    mut report: CheckReport,
    top: &Path,
    root: &str,
    prefix: &str,
    staged: &BTreeMap<String, Staged>,
) -> CheckReport {
    // Nothing to order (the common case): no need to ask git what the commit changes.
    if report.diagnostics.is_empty() {
        return report;
    }
    let changed = committed(top, root, prefix, staged);
    report.diagnostics.sort_by_key(|d| !changed.contains(&d.path));
    report.elsewhere = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::model::diag::Severity::Error && !changed.contains(&d.path))
        .count();
    report
}

/// Whether the config is staged differently from the working tree's in a way that
/// changes the index (its settings, `commit_index` or the baseline's place): then the
/// local index cannot judge what is staged. (Ignore files staged differently are the
/// staged rules of [`Tracked`].)
pub(crate) fn config_differs(
    cfg: &Config,
    top: &Path,
    config: Option<&str>,
    staged: &BTreeMap<String, Staged>,
    differ: &BTreeSet<String>,
) -> Result<bool, Error> {
    if let Some(c) = config
        && differ.contains(c)
    {
        let Some(entry) = staged.get(c) else { return Ok(true) };
        let text = blob_text(top, &entry.blob)?.unwrap_or_default();
        let ov = crate::config::Overrides {
            config: None,
            root: Some(cfg.root.clone()),
            index_dir: Some(cfg.index_dir.clone()),
            no_sqlite: true,
        };
        let file = cfg
            .config_file
            .as_deref()
            .unwrap_or(Path::new(crate::config::CONFIG_FILE));
        match Config::from_text(&cfg.cwd, Some((file, &text)), &ov) {
            // The staged config's own baseline path, too (not the working tree's).
            Ok(s)
                if s.settings.digest() == cfg.settings.digest()
                    && s.commit_index == cfg.commit_index
                    && s.baseline == cfg.baseline => {}
            _ => return Ok(true),
        }
    }
    Ok(false)
}

/// What the staged backlog has that the working tree's index (`worktree`: its files) does
/// not, by root-relative path: a staged blob, or None for a file the commit does not hold.
/// The set of files is git's staged tree as [`Tracked`] judges it: an ignore rule that
/// is not staged (untracked, `info/exclude`, above the repository) hides no staged file.
pub(crate) fn overlay_blobs(
    top: &Path,
    prefix: &str,
    index_prefix: Option<&str>,
    staged: &BTreeMap<String, Staged>,
    differ: &BTreeSet<String>,
    worktree: &BTreeMap<String, String>,
    tracked: &Tracked,
) -> BTreeMap<String, Option<String>> {
    let rules = tracked.has_rules();
    let mut overlay_blobs: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (path, entry) in staged {
        let Some(rel) = path.strip_prefix(prefix) else {
            continue;
        };
        if index_prefix.is_some_and(|i| path.starts_with(i)) {
            continue;
        }
        // Submodules are not files of the backlog; a symlink is judged as it is.
        if entry.mode == "160000" || entry.mode == "120000" {
            continue;
        }
        let on_disk = top.join(path);
        if differ.contains(path) {
            // `git add -N`: staged empty, not really staged.
            let intent = entry.blob == EMPTY_BLOB && on_disk.metadata().is_ok_and(|m| m.len() > 0);
            if intent {
                if worktree.contains_key(rel) {
                    overlay_blobs.insert(rel.to_string(), None);
                }
            } else if tracked.takes(path) || (worktree.contains_key(rel) && !(rules && tracked.ignored(path))) {
                overlay_blobs.insert(rel.to_string(), Some(entry.blob.clone()));
            } else if worktree.contains_key(rel) {
                overlay_blobs.insert(rel.to_string(), None);
            }
        } else if !worktree.contains_key(rel) {
            // Left out of the working tree's scan (a sparse checkout, a rule that is not
            // staged) but staged: from git, when the staged rules take it.
            if tracked.takes(path) {
                overlay_blobs.insert(rel.to_string(), Some(entry.blob.clone()));
            }
        } else if rules && tracked.ignored(path) {
            // Taken by the working tree's scan, ignored by a staged rule.
            overlay_blobs.insert(rel.to_string(), None);
        }
    }
    // In the working tree, not staged: untracked.
    for rel in worktree.keys() {
        if !staged.contains_key(&format!("{prefix}{rel}")) {
            overlay_blobs.insert(rel.clone(), None);
        }
    }
    overlay_blobs
}

/// The diagnostics of the backlog as staged: the working tree's with the overlay's
/// blobs read from git in place of the files.
fn overlay_diagnostics(
    cfg: &Config,
    top: &Path,
    overlay_blobs: &BTreeMap<String, Option<String>>,
) -> Result<Vec<crate::model::diag::Diagnostic>, Error> {
    let ids: BTreeSet<&str> = overlay_blobs.values().flatten().map(String::as_str).collect();
    let contents = blobs(top, &ids)?;
    let overlay: BTreeMap<String, Option<String>> = overlay_blobs
        .iter()
        .map(|(rel, blob)| {
            // A staged blob that is not text (or missing) is no document, as the scan
            // leaves such a file out. Two paths may stage one blob: it is read once.
            let text = blob.as_ref().and_then(|id| contents.get(id).cloned()).and_then(text_of);
            (rel.clone(), text)
        })
        .collect();
    crate::ingest::overlay::diagnostics_with(cfg, &overlay)
}

/// The staged baseline: none when it is not staged (then every diagnostic is new).
pub(crate) fn staged_baseline(
    cfg: &Config,
    top: &Path,
    opts: CheckOptions,
    baseline: Option<&str>,
    staged: &BTreeMap<String, Staged>,
    differ: &BTreeSet<String>,
) -> Result<Option<Baseline>, Error> {
    let shown = cfg.display(&cfg.baseline);
    Ok(match baseline.and_then(|b| staged.get(b).map(|e| (b, e))) {
        Some(_) if !opts.baseline => None,
        None => None,
        Some((b, entry)) if differ.contains(b) => {
            let text = blob_text(top, &entry.blob)?.unwrap_or_default();
            Some(Baseline::parse(&text, &shown)?)
        }
        Some(_) => Baseline::load(&cfg.baseline, &shown)?,
    })
}

/// The staged backlog, config, baseline and index written out of git's index into a
/// temporary folder and checked there (local mode, a staged config that changes what the
/// index holds).
fn checked_out(cfg: &Config, opts: CheckOptions) -> Result<CheckReport, Error> {
    let top = toplevel(cfg)?;
    let outside = |what: &str, p: &Path| outside(cfg, &top, what, p);
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
    // The baseline, wherever the staged config's `[check] baseline` puts it (the
    // working tree's config may name another place).
    let staged_config_text = config.as_ref().and_then(|c| {
        let blob = git(&top, &["rev-parse", "-q", "--verify", &format!(":{c}")], None).ok()?;
        blob_text(&top, String::from_utf8_lossy(&blob).trim()).ok().flatten()
    });
    let baseline_path = match (&cfg.config_file, &staged_config_text) {
        (Some(file), Some(text)) => {
            let ov = Overrides {
                config: None,
                root: Some(cfg.root.clone()),
                index_dir: Some(cfg.index_dir.clone()),
                no_sqlite: true,
            };
            Config::from_text(&cfg.cwd, Some((file, text)), &ov)
                .map(|c| c.baseline)
                .unwrap_or_else(|_| cfg.baseline.clone())
        }
        _ => cfg.baseline.clone(),
    };
    let baseline = in_repo(&top, &baseline_path);
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
