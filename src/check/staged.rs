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
//! graph of git's staged tree is built in memory under the staged config (the working
//! tree's files where git says they are the staged ones, blobs for the others), nothing
//! written to disk. Commit mode is `commit_staged.rs`.

use crate::check::baseline::Baseline;
use crate::check::git::{
    EMPTY_BLOB, Staged, blob_text, blobs, committed, differing, in_repo, outside, pathspec, staged_files, staged_links,
    text_of, toplevel,
};
use crate::check::tracked::Tracked;
use crate::check::{self, CheckOptions, CheckReport};
use crate::config::{Config, Overrides};
use crate::error::Error;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Check the staged content of the backlog with a local index (local mode).
pub fn check_staged(cfg: &Config, opts: CheckOptions) -> Result<CheckReport, Error> {
    match local(cfg, opts)? {
        Some(report) => Ok(report),
        None => with_staged_config(cfg, opts),
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
    let differ = differing(&top, &specs, &staged)?;
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
    )?;
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
        // A stale index is no error a baseline records (`mdgraph index` fixes it): it is
        // not counted among the errors the advice sends to `mdgraph baseline`.
        .filter(|d| {
            d.severity == crate::model::diag::Severity::Error
                && d.code != crate::model::diag::Code::StaleIndex
                && !changed.contains(&d.path)
        })
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
        // The repository prefix is found from the folders, never from the text: the
        // staged config's is the working tree's.
        let staged = Config::from_text(&cfg.cwd, Some((file, &text)), &ov).map(|mut s| {
            s.settings.repo_prefix = cfg.settings.repo_prefix.clone();
            s
        });
        match staged {
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
) -> Result<BTreeMap<String, Option<String>>, Error> {
    let rules = tracked.has_rules();
    let links = staged_links(top, staged, &|p| p.starts_with(prefix) && tracked.takes(p))?;
    let mut overlay_blobs: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (path, entry) in staged {
        let Some(rel) = path.strip_prefix(prefix) else {
            continue;
        };
        if index_prefix.is_some_and(|i| path.starts_with(i)) {
            continue;
        }
        // Submodules are not files of the backlog.
        if entry.mode == "160000" {
            continue;
        }
        if entry.mode == "120000" {
            // A symlink as git stores it: the staged file its stored path names.
            let to = links.get(path).cloned().flatten().filter(|q| q.starts_with(prefix));
            match to
                .as_ref()
                .and_then(|q| staged.get(q).filter(|e| e.mode.starts_with("100")).map(|e| (q, e)))
            {
                Some((q, e)) if differ.contains(path) || differ.contains(q) || !worktree.contains_key(rel) => {
                    overlay_blobs.insert(rel.to_string(), Some(e.blob.clone()));
                }
                Some(_) => {}
                None if worktree.contains_key(rel) => {
                    overlay_blobs.insert(rel.to_string(), None);
                }
                None => {}
            }
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
    Ok(overlay_blobs)
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
    // A staged blob that is not UTF-8 is no document, as the scan leaves such a file out,
    // and the scan's error for it (found as the scan finds it).
    let mut scan_errors = Vec::new();
    let overlay: BTreeMap<String, Option<String>> = overlay_blobs
        .iter()
        .map(|(rel, blob)| {
            // Two paths may stage one blob: it is read once.
            let bytes = blob.as_ref().and_then(|id| contents.get(id).cloned());
            let text = bytes.clone().and_then(text_of);
            if let (Some(bytes), None) = (bytes, &text) {
                let max = cfg.settings.scan.max_file_size;
                let (_, d) = crate::ingest::scan::from_bytes(rel.clone(), cfg.root.join(rel), bytes, max);
                scan_errors.extend(d);
            }
            (rel.clone(), text)
        })
        .collect();
    let mut diagnostics = crate::ingest::overlay::diagnostics_with(cfg, &overlay)?;
    if !scan_errors.is_empty() {
        cfg.settings.check.apply(&mut scan_errors);
        diagnostics.extend(scan_errors);
        diagnostics.sort();
        diagnostics.dedup();
    }
    Ok(diagnostics)
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

/// The staged check when the staged config shapes the index differently from the working
/// tree's (local mode): the graph of git's staged tree under the staged config, built in
/// memory (every file parsed, as a cold index: this is rare), nothing written to disk.
/// Files whose staged content equals the working tree's are read from there, the others
/// from git's blobs.
fn with_staged_config(cfg: &Config, opts: CheckOptions) -> Result<CheckReport, Error> {
    let top = toplevel(cfg)?;
    let root = in_repo(&top, &cfg.root).ok_or_else(|| outside(cfg, &top, "root", &cfg.root))?;
    let index = in_repo(&top, &cfg.index_dir);
    let config = cfg.config_file.as_deref().and_then(|f| in_repo(&top, f));
    let prefix = if root.is_empty() {
        String::new()
    } else {
        format!("{root}/")
    };
    let staged_cfg = staged_config(cfg, &top, config.as_deref())?;
    let baseline = in_repo(&top, &staged_cfg.baseline);
    let specs = specs(&root, None, config.as_deref(), baseline.as_deref());
    let staged = staged_files(&top, &specs)?;
    let differ = differing(&top, &specs, &staged)?;
    let tracked = Tracked::new(&top, &prefix, &staged_cfg.settings.scan, &staged, &differ)?;
    let index_prefix = index.map(|i| format!("{i}/"));
    let links = staged_links(&top, &staged, &|p| p.starts_with(prefix.as_str()) && tracked.takes(p))?;
    let mut from_disk: Vec<(String, std::path::PathBuf)> = Vec::new();
    let mut from_git: Vec<(String, &str)> = Vec::new();
    for (path, entry) in &staged {
        let Some(rel) = path.strip_prefix(prefix.as_str()) else {
            continue;
        };
        let on_disk = top.join(path);
        let intent = entry.blob == EMPTY_BLOB && differ.contains(path) && on_disk.metadata().is_ok_and(|m| m.len() > 0);
        if entry.mode == "160000"
            || intent
            || index_prefix.as_ref().is_some_and(|i| path.starts_with(i.as_str()))
            || !tracked.takes(path)
        {
            continue;
        }
        if entry.mode == "120000" {
            // A symlink as git stores it: the staged file inside the root its path names.
            let to = links
                .get(path)
                .cloned()
                .flatten()
                .filter(|q| q.starts_with(prefix.as_str()));
            if let Some((q, e)) = to.and_then(|q| staged.get(&q).filter(|e| e.mode.starts_with("100")).map(|e| (q, e)))
            {
                match differ.contains(&q) {
                    true => from_git.push((rel.to_string(), e.blob.as_str())),
                    false => from_disk.push((rel.to_string(), top.join(&q))),
                }
            }
        } else if differ.contains(path) {
            from_git.push((rel.to_string(), entry.blob.as_str()));
        } else {
            from_disk.push((rel.to_string(), on_disk));
        }
    }
    let ids: BTreeSet<&str> = from_git.iter().map(|(_, id)| *id).collect();
    let contents = blobs(&top, &ids)?;
    let max = staged_cfg.settings.scan.max_file_size;
    let mut scan = crate::ingest::scan::Scan::default();
    let read = from_disk
        .into_iter()
        .map(|(rel, abs)| (rel, std::fs::read(&abs).unwrap_or_default(), abs));
    let blobbed = from_git.into_iter().map(|(rel, id)| {
        (
            rel.clone(),
            contents.get(id).cloned().unwrap_or_default(),
            staged_cfg.root.join(&rel),
        )
    });
    for (rel, bytes, abs) in read.chain(blobbed) {
        let (file, skipped) = crate::ingest::scan::from_bytes(rel, abs, bytes, max);
        scan.diagnostics.extend(skipped);
        scan.files.push(file);
    }
    scan.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    let built = crate::ingest::build::compute(&staged_cfg, scan, std::collections::HashMap::new())?;
    let loaded = staged_baseline(&staged_cfg, &top, opts, baseline.as_deref(), &staged, &differ)?;
    let report = check::verdict(&staged_cfg, opts, true, built.diagnostics, loaded, true);
    Ok(committed_first(report, &top, &root, &prefix, &staged))
}

/// The staged config (the working tree's root and index folder kept), or the working
/// tree's when the config is not staged.
fn staged_config(cfg: &Config, top: &Path, config: Option<&str>) -> Result<Config, Error> {
    let entry = config.and_then(|c| staged_files(top, &[format!(":(literal){c}")]).ok()?.remove(c));
    let (Some(file), Some(entry)) = (cfg.config_file.as_deref(), entry) else {
        return Ok(cfg.clone());
    };
    let text = blob_text(top, &entry.blob)?.unwrap_or_default();
    let ov = Overrides {
        config: None,
        root: Some(cfg.root.clone()),
        index_dir: Some(cfg.index_dir.clone()),
        no_sqlite: true,
    };
    let mut staged = Config::from_text(&cfg.cwd, Some((file, &text)), &ov)?;
    staged.settings.repo_prefix = cfg.settings.repo_prefix.clone();
    Ok(staged)
}

/// The configuration `check --staged` judges with: the one git will commit. `loaded` is
/// [`Config::load`]'s answer from the working tree. It stands when its file is staged (a
/// difference in the working tree is then the staged checks' to judge, or to name); a
/// config file that is not staged (untracked, never committed) is not the commit's, so
/// the staged one further up, or none, is used instead; a working-tree config that is
/// broken or deleted gives way to the staged one, so an unstaged change never refuses a
/// correct commit. Outside a git working tree, `loaded` as it is.
pub fn staged_config_of(cwd: &Path, ov: &Overrides, loaded: Result<Config, Error>) -> Result<Config, Error> {
    let Ok(out) = crate::check::git::git(cwd, &["rev-parse", "--show-toplevel"], None) else {
        return loaded;
    };
    let top = crate::text::path::absolute(Path::new(String::from_utf8_lossy(&out).trim_end()));
    // The config files the load would look at, nearest first, as git names them.
    let candidates: Vec<std::path::PathBuf> = match &ov.config {
        Some(p) => vec![cwd.join(p)],
        None => {
            let from_root = ov.root.as_ref().map(|r| cwd.join(r));
            from_root
                .iter()
                .flat_map(|r| r.ancestors())
                .chain(cwd.ancestors())
                .map(|d| d.join(crate::config::CONFIG_FILE))
                .collect()
        }
    };
    let named: Vec<(std::path::PathBuf, String)> = candidates
        .into_iter()
        .filter_map(|p| in_repo(&top, &crate::text::path::absolute(&p)).map(|g| (p, g)))
        .collect();
    let specs: Vec<String> = named.iter().map(|(_, g)| format!(":(literal){g}")).collect();
    let staged = staged_files(&top, &specs)?;
    if let Ok(cfg) = &loaded {
        let file = cfg.config_file.as_deref().map(crate::text::path::absolute);
        let tracked = match &file {
            Some(f) => in_repo(&top, f).is_some_and(|g| staged.contains_key(&g)) || in_repo(&top, f).is_none(),
            // No config file at all: nothing staged to prefer.
            None => staged.is_empty(),
        };
        if tracked {
            return loaded;
        }
    }
    let found = named.iter().find(|(_, g)| staged.contains_key(g));
    let Some((path, git_path)) = found else {
        // Nothing staged: a fresh clone has no config (the defaults, with the flags).
        return match (&loaded, &ov.config) {
            (Err(_), Some(_)) => loaded,
            _ => {
                let mut cfg = Config::from_text(cwd, None, ov)?;
                cfg.settings.repo_prefix = crate::config::repo_prefix(&cfg.root, None);
                Ok(cfg)
            }
        };
    };
    let text = blob_text(&top, &staged[git_path].blob)?.unwrap_or_default();
    let mut cfg = Config::from_text(cwd, Some((path, &text)), ov)?;
    cfg.settings.repo_prefix = crate::config::repo_prefix(&cfg.root, cfg.config_file.as_deref());
    Ok(cfg)
}
