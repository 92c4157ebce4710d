//! `check` of a committed index (`commit_index = true`): is it, byte for byte, what
//! `mdgraph index --full` makes of the sources?
//!
//! Where exactness comes from: an index this machine wrote (or an edit it patched, which
//! equals a rebuild byte for byte) is vouched for by the stat cache, which records the
//! stamps of the outputs it wrote and of every source; when the cache vouches for every
//! source, folder and output, nothing changed since and the index is the answer. Any
//! other index folder (a clone, a checkout, a merge git made with or without the merge
//! driver, a `git archive`, an edit by hand) is rebuilt in memory from the sources, with
//! nothing of the committed index reused, and compared byte for byte, file by file. No
//! merge, cherry-pick or rebase can then pass a wrong index: the merge driver only
//! spares the conflicts, it is never trusted.

use crate::config::Config;
use crate::error::Error;
use crate::ingest::build::{BuildOptions, build, unchanged};
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::store::{files, sidecar};

/// Whether the committed index is exact, and the diagnostics: the staleness findings
/// first, then the graph's (those the sources give now).
pub(crate) fn verify(cfg: &Config) -> Result<(bool, Vec<Diagnostic>), Error> {
    let index_name = cfg.display(&cfg.index_dir);
    let head = sidecar::read_meta_head(&cfg.index_dir);
    let current = head
        .as_ref()
        .is_some_and(|h| h.schema == sidecar::SCHEMA_VERSION && h.config_digest == cfg.settings.digest());
    // Written here and unchanged since: the stat cache vouches (the probe queries run).
    if current && head.as_ref().is_some_and(|h| h.unproven.is_none()) && unchanged(cfg) {
        return Ok((true, sidecar::read_jsonl(&cfg.index_dir.join(files::DIAGNOSTICS))?));
    }
    let want = build(
        cfg,
        BuildOptions {
            full: true,
            write: false,
        },
    )?;
    let stale_diag = |path: String, msg: String| Diagnostic::new(path, 0, Severity::Error, Code::StaleIndex, msg);
    let mut stale = Vec::new();
    let meta = sidecar::read_meta(&cfg.index_dir);
    let meta_at = format!("{index_name}/{}", files::META);
    match (&head, &meta) {
        (None, _) | (_, None) => stale.push(stale_diag(
            meta_at.clone(),
            "no index here (missing or unreadable); run `mdgraph index`".into(),
        )),
        (Some(head), Some(meta)) => {
            if let Some(why) = &meta.unproven {
                stale.push(stale_diag(
                    meta_at.clone(),
                    format!("{why}; run `mdgraph index` and commit the index"),
                ));
            }
            if head.schema != sidecar::SCHEMA_VERSION {
                stale.push(stale_diag(
                    meta_at.clone(),
                    format!(
                        "index format {} is not the current {}; run `mdgraph index`",
                        head.schema,
                        sidecar::SCHEMA_VERSION
                    ),
                ));
            }
            if head.config_digest != cfg.settings.digest() {
                let at = cfg
                    .config_file
                    .as_ref()
                    .map(|p| cfg.display(p))
                    .unwrap_or_else(|| "mdgraph.toml".into());
                stale.push(stale_diag(
                    at,
                    "configuration changed since the index was built; run `mdgraph index`".into(),
                ));
            }
            stale.extend(
                sources_changed(&meta.files, &want.meta.files)
                    .into_iter()
                    .map(|(p, m)| stale_diag(p, m)),
            );
        }
    }
    // Byte for byte, file by file: a merge of records that each side made right can
    // still be wrong as a whole (an edge to an id the other side removed).
    if stale.is_empty() || meta.is_some() {
        for name in files::OUTPUTS.iter().chain([&files::META]) {
            let path = cfg.index_dir.join(name);
            let have = std::fs::read(&path).ok().map(|b| blake3::hash(&b));
            if have.is_some() && have.as_ref() == want.bytes.get(*name) {
                continue;
            }
            let what = if have.is_none() {
                "missing"
            } else {
                "not what the sources give (a merge git made, or an edit by hand)"
            };
            stale.push(stale_diag(
                format!("{index_name}/{name}"),
                format!("index file is {what}; run `mdgraph index`"),
            ));
        }
    }
    let fresh = stale.is_empty();
    let mut diagnostics = stale;
    diagnostics.extend(want.diagnostics);
    Ok((fresh, diagnostics))
}

/// The source files whose content the index does not record as they are: (path, message).
pub(crate) fn sources_changed(
    indexed: &std::collections::BTreeMap<String, String>,
    now: &std::collections::BTreeMap<String, String>,
) -> Vec<(String, String)> {
    let mut all: Vec<&String> = now.keys().chain(indexed.keys()).collect();
    all.sort();
    all.dedup();
    all.into_iter()
        .filter_map(|path| {
            let msg = match (indexed.get(path), now.get(path)) {
                (Some(a), Some(b)) if a != b => "changed since the index was built",
                (None, Some(_)) => "new file, not in the index",
                (Some(_), None) => "deleted, but still in the index",
                _ => return None,
            };
            Some((path.clone(), format!("{msg}; run `mdgraph index`")))
        })
        .collect()
}
