//! `check --staged` in commit mode (`commit_index = true`), the pre-commit hook: is the
//! staged index, byte for byte, what the staged backlog gives, and does that graph have
//! new errors? Its cost follows the change, as in local mode, and nothing is written but
//! the local index: the working tree's index is brought up to date (incrementally; it is
//! then exact, see `committed.rs`); when every staged source equals the working tree's,
//! the staged index must be that index (git says whether its files differ from the
//! working tree's, nothing is read); otherwise the index the staged sources give is
//! computed in memory from the local one with the staged blobs in place of the files that
//! differ (`cat-file --batch`), and compared with the staged index files' blobs.

use crate::check::committed::sources_changed;
use crate::check::git::{blobs, differing, in_repo, outside, staged_files, toplevel};
use crate::check::staged::{committed_first, config_differs, overlay_blobs, specs, staged_baseline};
use crate::check::tracked::Tracked;
use crate::check::{self, CheckOptions, CheckReport};
use crate::config::Config;
use crate::error::Error;
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::store::files;
use std::collections::{BTreeMap, BTreeSet};

/// The staged check of a committed index. A refused commit leaves the working tree as it
/// was: the committed index files the refresh rewrote get their bytes back (a `git
/// checkout` of another branch, or `git merge --abort` after a refused merge, would
/// otherwise stop on them); the local caches, which git ignores, stay as refreshed.
pub(crate) fn check(cfg: &Config, opts: CheckOptions) -> Result<CheckReport, Error> {
    // The files as they are, held open, not read: a refresh never writes an index file
    // in place (it switches a new file in), so an open file keeps the old bytes, and an
    // accepted commit reads none of them (5 MB at 10,000 items).
    let names: Vec<&str> = files::OUTPUTS.iter().copied().chain([files::META]).collect();
    let before: Vec<(std::path::PathBuf, std::fs::File)> = names
        .iter()
        .map(|n| cfg.index_dir.join(n))
        .filter_map(|p| std::fs::File::open(&p).ok().map(|f| (p, f)))
        .collect();
    let result = judge(cfg, opts);
    if !result.as_ref().is_ok_and(|r| r.ok) {
        for (path, mut file) in before {
            if same_file(&path, &file) {
                continue;
            }
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut bytes).map_err(|e| Error::io(&path, e))?;
            if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
                files::atomic_write(&path, |f| std::io::Write::write_all(f, &bytes))?;
            }
        }
    }
    result
}

/// Whether `path` is still the file `file` was opened as (never on a platform without
/// inodes: there the bytes are compared).
fn same_file(path: &std::path::Path, file: &std::fs::File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let (Ok(now), Ok(then)) = (std::fs::metadata(path), file.metadata()) else {
            return false;
        };
        now.ino() == then.ino() && now.dev() == then.dev() && now.mtime_nsec() == then.mtime_nsec()
    }
    #[cfg(not(unix))]
    {
        let _ = (path, file);
        false
    }
}

/// [`check`], leaving the refreshed local index as it is.
fn judge(cfg: &Config, opts: CheckOptions) -> Result<CheckReport, Error> {
    let top = toplevel(cfg)?;
    let root = in_repo(&top, &cfg.root).ok_or_else(|| outside(cfg, &top, "root", &cfg.root))?;
    let index = in_repo(&top, &cfg.index_dir).ok_or_else(|| outside(cfg, &top, "index folder", &cfg.index_dir))?;
    let config = cfg.config_file.as_deref().and_then(|f| in_repo(&top, f));
    let baseline = in_repo(&top, &cfg.baseline);
    let specs = specs(&root, Some(&index), config.as_deref(), baseline.as_deref());
    // The local index, up to date with the working tree: exact. Git's index is read
    // meanwhile; which files differ is asked after (the refresh may rewrite the working
    // tree's index files).
    let (report, staged) = std::thread::scope(|s| {
        let staged = s.spawn(|| staged_files(&top, &specs));
        let report = check::refresh(cfg);
        let staged = staged
            .join()
            .unwrap_or_else(|_| Err(Error::Other("git ls-files: the reader panicked".into())));
        (report, staged)
    });
    let (report, staged) = (report?, staged?);
    let differ = differing(&top, &specs, &staged)?;
    let index_name = cfg.display(&cfg.index_dir);
    let stale_diag = |path: String, msg: String| Diagnostic::new(path, 0, Severity::Error, Code::StaleIndex, msg);
    let mut stale = Vec::new();
    if config_differs(cfg, &top, config.as_deref(), &staged, &differ)? {
        // The working tree's config is not the one being committed: `mdgraph index` (which
        // reads the working tree's) would not make the staged index right.
        let shown = cfg.config_file.as_ref().map(|p| cfg.display(p)).unwrap_or_default();
        stale.push(stale_diag(
            shown.clone(),
            format!(
                "the staged {shown} differs from the working tree's in what the index depends on, so the staged \
                 index cannot be judged against it; stage {shown} (git add), or set its unstaged change aside \
                 (git stash --keep-index), then run `mdgraph index` and `git add {index_name}`"
            ),
        ));
    }
    let prefix = if root.is_empty() {
        String::new()
    } else {
        format!("{root}/")
    };
    let index_prefix = format!("{index}/");
    let tracked = Tracked::new(&top, &prefix, &cfg.settings.scan, &staged, &differ)?;
    let worktree = &report.meta.files;
    let overlay = overlay_blobs(&top, &prefix, Some(&index_prefix), &staged, &differ, worktree, &tracked)?;
    // What the staged index must hold: the working tree's, or computed with the overlay.
    let (want, want_files, diagnostics) = if overlay.is_empty() {
        (None, report.meta.files, report.diagnostics)
    } else {
        let ids: BTreeSet<&str> = overlay.values().flatten().map(String::as_str).collect();
        let contents = blobs(&top, &ids)?;
        let bytes: BTreeMap<String, Option<Vec<u8>>> = overlay
            .iter()
            .map(|(rel, id)| {
                (
                    rel.clone(),
                    id.as_ref().map(|id| contents.get(id).cloned().unwrap_or_default()),
                )
            })
            .collect();
        let e = crate::ingest::overlay::expected_with(cfg, &bytes)?;
        (Some(e.bytes), e.meta.files, e.diagnostics)
    };
    let names: Vec<&str> = files::OUTPUTS.iter().copied().chain([files::META]).collect();
    let staged_id = |name: &str| staged.get(&format!("{index_prefix}{name}")).map(|e| e.blob.as_str());
    let staged_ids: BTreeSet<&str> = match &want {
        Some(_) => names.iter().filter_map(|n| staged_id(n)).collect(),
        None => BTreeSet::new(),
    };
    let staged_index = blobs(&top, &staged_ids)?;
    let inexact: Vec<&str> = names
        .iter()
        .copied()
        .filter(|name| match (staged_id(name), &want) {
            (None, _) => true,
            (Some(_), None) => differ.contains(&format!("{index_prefix}{name}")),
            (Some(id), Some(want)) => staged_index.get(id).map(|b| blake3::hash(b)).as_ref() != want.get(*name),
        })
        .collect();
    if !inexact.is_empty() {
        // The sources the staged index records otherwise, when it says; else the files.
        let recorded = staged_id(files::META)
            .and_then(|id| crate::check::git::blob_text(&top, id).ok().flatten())
            .and_then(|t| serde_json::from_str::<crate::store::sidecar::Meta>(&t).ok());
        let sources = recorded
            .map(|m| sources_changed(&m.files, &want_files))
            .unwrap_or_default();
        if sources.is_empty() {
            stale.extend(inexact.iter().map(|name| {
                stale_diag(
                    format!("{index_name}/{name}"),
                    format!(
                        "the staged index file is not what the staged backlog gives; run `mdgraph index` and \
                         `git add {index_name}`"
                    ),
                )
            }));
        }
        stale.extend(sources.into_iter().map(|(p, m)| stale_diag(p, m)));
    }
    let loaded = staged_baseline(cfg, &top, opts, baseline.as_deref(), &staged, &differ)?;
    let fresh = stale.is_empty();
    let mut all = stale;
    all.extend(diagnostics);
    let report = check::verdict(cfg, opts, fresh, all, loaded, true);
    Ok(committed_first(report, &top, &root, &prefix, &staged))
}
