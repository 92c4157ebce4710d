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
//! In commit mode (`commit_index = true`), or when the staged config shapes the index
//! differently from the working tree's, the staged backlog, config, baseline and index
//! are written out of git's index (`checkout-index`) into a temporary folder and checked
//! there, the staged index against the staged sources.

use crate::check::baseline::Baseline;
use crate::check::{self, CheckOptions, CheckReport};
use crate::config::{Config, Overrides};
use crate::error::Error;
use crate::text::path::{absolute, relative_to};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use crate::check::git::git;

/// A path below `top` as git names it (`/` separators, no leading `./`); None outside.
fn in_repo(top: &Path, p: &Path) -> Option<String> {
    let rel = relative_to(top, p);
    (!rel.starts_with("..") && !Path::new(&rel).is_absolute()).then(|| if rel == "." { String::new() } else { rel })
}

/// Check the staged content of the backlog (and, in commit mode, the staged index).
pub fn check_staged(cfg: &Config, opts: CheckOptions) -> Result<CheckReport, Error> {
    if cfg.commit_index {
        return checked_out(cfg, opts);
    }
    match local(cfg, opts)? {
        Some(report) => Ok(report),
        None => checked_out(cfg, opts),
    }
}

/// The blob id of the empty file (what `git add -N` stages).
const EMPTY_BLOB: &str = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

/// One staged file: its mode and blob id.
struct Staged {
    mode: String,
    blob: String,
}

/// `git ls-files -s -z` of the pathspecs: top-relative path → staged entry.
fn staged_files(top: &Path, specs: &[String]) -> Result<BTreeMap<String, Staged>, Error> {
    let mut args = vec!["ls-files", "-s", "-z", "--"];
    args.extend(specs.iter().map(String::as_str));
    let out = git(top, &args, None)?;
    let mut files = BTreeMap::new();
    for rec in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        // `<mode> <blob> <stage>\t<path>`
        let rec = String::from_utf8_lossy(rec);
        let Some((head, path)) = rec.split_once('\t') else {
            continue;
        };
        let mut parts = head.split(' ');
        let (Some(mode), Some(blob), Some(stage)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        // An unmerged path: the commit is refused by git itself.
        if stage != "0" {
            continue;
        }
        files.insert(
            path.to_string(),
            Staged {
                mode: mode.to_string(),
                blob: blob.to_string(),
            },
        );
    }
    Ok(files)
}

/// Top-relative paths whose working-tree content differs from the staged one
/// (`git diff-files`), deleted ones included.
fn differing(top: &Path, specs: &[String]) -> Result<BTreeSet<String>, Error> {
    let mut args = vec!["diff-files", "--name-only", "-z", "--"];
    args.extend(specs.iter().map(String::as_str));
    let out = git(top, &args, None)?;
    Ok(out
        .split(|&b| b == 0)
        .filter(|r| !r.is_empty())
        .map(|r| String::from_utf8_lossy(r).into_owned())
        .collect())
}

/// The contents of blobs, by id, in one `git cat-file --batch`.
fn blobs(top: &Path, ids: &BTreeSet<&str>) -> Result<BTreeMap<String, Vec<u8>>, Error> {
    let mut out = BTreeMap::new();
    if ids.is_empty() {
        return Ok(out);
    }
    let input: String = ids.iter().map(|id| format!("{id}\n")).collect();
    let bytes = git(top, &["cat-file", "--batch"], Some(input.as_bytes()))?;
    let mut at = 0;
    while at < bytes.len() {
        let Some(nl) = bytes[at..].iter().position(|&b| b == b'\n') else {
            break;
        };
        let header = String::from_utf8_lossy(&bytes[at..at + nl]).into_owned();
        at += nl + 1;
        let mut h = header.split(' ');
        let (Some(id), Some(kind)) = (h.next(), h.next()) else {
            break;
        };
        // `<id> missing` (or `ambiguous`): no body follows.
        let Some(size) = h.next() else {
            continue;
        };
        let Ok(size) = size.parse::<usize>() else { break };
        let end = (at + size).min(bytes.len());
        if kind == "blob" {
            out.insert(id.to_string(), bytes[at..end].to_vec());
        }
        // The content is followed by a newline.
        at = end + 1;
    }
    Ok(out)
}

/// Text as the scan reads it: UTF-8 without a byte-order mark; None otherwise.
fn text_of(bytes: Vec<u8>) -> Option<String> {
    let mut s = String::from_utf8(bytes).ok()?;
    if s.starts_with('\u{feff}') {
        s.drain(..3);
    }
    Some(s)
}

/// The text of one blob (None when it is missing or not text).
fn blob_text(top: &Path, id: &str) -> Result<Option<String>, Error> {
    Ok(blobs(top, &BTreeSet::from([id]))?.remove(id).and_then(text_of))
}

/// The top of the git working tree holding `cfg.cwd`.
fn toplevel(cfg: &Config) -> Result<PathBuf, Error> {
    let top = String::from_utf8_lossy(&git(&cfg.cwd, &["rev-parse", "--show-toplevel"], None)?)
        .trim_end()
        .to_string();
    Ok(absolute(Path::new(&top)))
}

/// The error for a folder or file of the config that is not in the working tree `top`.
fn outside(cfg: &Config, top: &Path, what: &str, p: &Path) -> Error {
    Error::Other(format!(
        "check --staged: the {what} {} is outside the git working tree {}",
        cfg.display(p),
        top.display()
    ))
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
    let mut specs = vec![pathspec(&root)];
    specs.extend(config.iter().chain(baseline.iter()).map(|p| format!(":(literal){p}")));
    let staged = staged_files(&top, &specs)?;
    let differ = differing(&top, &specs)?;
    if !judged_locally(cfg, &top, config.as_deref(), &staged, &differ)? {
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
    let overlay_blobs = overlay_blobs(cfg, &top, &prefix, index_prefix.as_deref(), &staged, &differ, worktree);
    let diagnostics = if overlay_blobs.is_empty() {
        report.diagnostics
    } else {
        overlay_diagnostics(cfg, &top, &overlay_blobs)?
    };
    let loaded = staged_baseline(cfg, &top, opts, baseline.as_deref(), &staged, &differ)?;
    let changed = committed(&top, &root, &prefix, &staged);
    let mut report = check::verdict(cfg, opts, true, diagnostics, loaded, true);
    // The errors of the files being committed first; then the others.
    report.diagnostics.sort_by_key(|d| !changed.contains(&d.path));
    report.elsewhere = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::model::diag::Severity::Error && !changed.contains(&d.path))
        .count();
    Ok(Some(report))
}

/// Whether the local index can judge what is staged: not when an ignore file or the
/// config is staged differently from the working tree in a way that changes the index.
fn judged_locally(
    cfg: &Config,
    top: &Path,
    config: Option<&str>,
    staged: &BTreeMap<String, Staged>,
    differ: &BTreeSet<String>,
) -> Result<bool, Error> {
    // An ignore file staged differently from the working tree changes what the scan takes:
    // judged from a checkout.
    if differ
        .iter()
        .any(|p| p.ends_with(".gitignore") || p.ends_with(".ignore"))
    {
        return Ok(false);
    }
    // A staged config that differs from the working tree's: judged from a checkout
    // unless it changes nothing the index depends on.
    if let Some(c) = config
        && differ.contains(c)
    {
        let Some(entry) = staged.get(c) else { return Ok(false) };
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
            Ok(s) if s.settings.digest() == cfg.settings.digest() && !s.commit_index && s.baseline == cfg.baseline => {}
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// What the staged backlog has that the working tree's index (`worktree`: its files) does
/// not, by root-relative path: a staged blob, or None for a file the commit does not hold.
fn overlay_blobs(
    cfg: &Config,
    top: &Path,
    prefix: &str,
    index_prefix: Option<&str>,
    staged: &BTreeMap<String, Staged>,
    differ: &BTreeSet<String>,
    worktree: &BTreeMap<String, String>,
) -> BTreeMap<String, Option<String>> {
    let candidate = candidates(&cfg.settings.scan);
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
            } else if worktree.contains_key(rel) || candidate(rel) {
                overlay_blobs.insert(rel.to_string(), Some(entry.blob.clone()));
            }
        } else if !worktree.contains_key(rel) && !on_disk.exists() && candidate(rel) {
            // Not in the working tree at all (a sparse checkout): from git.
            overlay_blobs.insert(rel.to_string(), Some(entry.blob.clone()));
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
    crate::ingest::build::diagnostics_with(cfg, &overlay)
}

/// The staged baseline: none when it is not staged (then every diagnostic is new).
fn staged_baseline(
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

/// What the commit changes under the root, root-relative (against HEAD; everything in a
/// first commit).
fn committed(top: &Path, root: &str, prefix: &str, staged: &BTreeMap<String, Staged>) -> BTreeSet<String> {
    match git(
        top,
        &[
            "diff-index",
            "--cached",
            "--name-only",
            "-z",
            "--no-renames",
            "HEAD",
            "--",
            &pathspec(root),
        ],
        None,
    ) {
        Ok(out) => out
            .split(|&b| b == 0)
            .filter(|r| !r.is_empty())
            .filter_map(|r| String::from_utf8_lossy(r).strip_prefix(prefix).map(str::to_string))
            .collect(),
        Err(_) => staged
            .keys()
            .filter_map(|p| p.strip_prefix(prefix).map(str::to_string))
            .collect(),
    }
}

/// Whether a root-relative path is a file the scan would take by its name: a Markdown
/// extension, the include globs and not the exclude globs.
fn candidates(scan: &crate::config::ScanSettings) -> impl Fn(&str) -> bool {
    let set = |globs: &[String]| {
        let mut b = globset::GlobSetBuilder::new();
        for g in globs {
            if let Ok(glob) = globset::Glob::new(g) {
                b.add(glob);
            }
        }
        b.build().unwrap_or_else(|_| globset::GlobSet::empty())
    };
    let (include, exclude) = (set(&scan.include), set(&scan.exclude));
    let any = scan.include.is_empty();
    move |rel: &str| {
        let lower = rel.to_ascii_lowercase();
        (lower.ends_with(".md") || lower.ends_with(".markdown"))
            && (any || include.is_match(rel))
            && !exclude.is_match(rel)
    }
}

/// The staged backlog, config, baseline and index written out of git's index into a
/// temporary folder and checked there (commit mode, or a staged config that changes
/// what the index holds).
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

/// A pathspec for everything under a folder given relative to the top ("" = all).
fn pathspec(rel: &str) -> String {
    if rel.is_empty() {
        ":(glob)**".into()
    } else {
        format!(":(literal){rel}")
    }
}
