//! Check: is the committed index what the sources would produce, and is the graph free of
//! errors? Freshness is decided by content hashes, so it works in a fresh clone; the
//! local stat cache only skips re-hashing files whose stat is unchanged, and when it
//! vouches for every file, folder and index file ([`statcache::probe`]) no scan is done.
//! When the index is stale, the current diagnostics are computed in memory so the user
//! sees the real problems, not the ones recorded in the outdated index.

pub mod hook;
pub mod staged;

use crate::config::Config;
use crate::error::Error;
use crate::ingest::build::{BuildOptions, build, file_map};
use crate::ingest::scan::scan;
use crate::model::diag::{Code, Counts, Diagnostic, Severity};
use crate::store::sidecar;
use crate::store::statcache::{self, StatCache};
use serde::Serialize;

/// The outcome of a check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// True when the check passes (fresh, no errors, and no warnings under `strict`).
    pub ok: bool,
    /// True when the index matches the sources and config.
    pub fresh: bool,
    /// Number of errors (staleness included).
    pub errors: usize,
    /// Number of warnings.
    pub warnings: usize,
    /// Staleness findings first, then the graph's diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// True when what was checked is the content staged in git (`check --staged`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub staged: bool,
}

/// Run the check. `strict` makes warnings fail it too.
pub fn check(cfg: &Config, strict: bool) -> Result<CheckReport, Error> {
    crate::store::lock::finish_pending(&cfg.index_dir)?;
    let mut stale = Vec::new();
    let index_name = cfg.display(&cfg.index_dir);
    let stale_diag = |path: String, msg: String| Diagnostic::new(path, 0, Severity::Error, Code::StaleIndex, msg);
    let no_index = || {
        stale_diag(
            format!("{index_name}/{}", sidecar::META),
            "no index here (missing or unreadable); run `mdgraph index`".into(),
        )
    };
    // The head of meta.json first: when nothing changed it is all that is needed.
    match sidecar::read_meta_head(&cfg.index_dir) {
        None => stale.push(no_index()),
        Some(head) => {
            if head.schema != sidecar::SCHEMA_VERSION {
                stale.push(stale_diag(
                    format!("{index_name}/{}", sidecar::META),
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
            // When the stat cache vouches for every file, folder and output (the probe
            // `search` uses), nothing changed: no scan is needed.
            let unchanged = stale.is_empty()
                && statcache::probe(&cfg.index_dir, &cfg.root, &head.config_digest)
                    .is_some_and(|sidecar| sidecar == crate::store::mirror::sidecar_digest(&head.outputs));
            if unchanged {
                return finish(cfg, strict, stale);
            }
            let Some(meta) = sidecar::read_meta(&cfg.index_dir) else {
                stale.push(no_index());
                return finish(cfg, strict, stale);
            };
            let cache = StatCache::load(&cfg.index_dir);
            for name in sidecar::damaged_outputs(&cfg.index_dir, &meta, &cache) {
                stale.push(stale_diag(
                    format!("{index_name}/{name}"),
                    "index file is missing or does not match meta.json; run `mdgraph index`".into(),
                ));
            }
            let now = file_map(&scan(
                &cfg.root,
                &cfg.index_dir,
                &cfg.settings.scan,
                Some(&cache),
                false,
            )?);
            let mut all: Vec<&String> = now.keys().chain(meta.files.keys()).collect();
            all.sort();
            all.dedup();
            for path in all {
                let msg = match (meta.files.get(path), now.get(path)) {
                    (Some(a), Some(b)) if a != b => "changed since the index was built",
                    (None, Some(_)) => "new file, not in the index",
                    (Some(_), None) => "deleted, but still in the index",
                    _ => continue,
                };
                stale.push(stale_diag(path.clone(), format!("{msg}; run `mdgraph index`")));
            }
        }
    }
    finish(cfg, strict, stale)
}

/// The report, given the staleness findings: the index's diagnostics when it is fresh,
/// else those of the sources as they are now.
fn finish(cfg: &Config, strict: bool, stale: Vec<Diagnostic>) -> Result<CheckReport, Error> {
    let fresh = stale.is_empty();
    let graph_diags = if fresh {
        sidecar::read_jsonl(&cfg.index_dir.join(sidecar::DIAGNOSTICS))?
    } else {
        build(
            cfg,
            BuildOptions {
                full: false,
                write: false,
            },
        )?
        .diagnostics
    };
    let mut diagnostics = stale;
    diagnostics.extend(graph_diags);
    let c = Counts::of(&diagnostics);
    let ok = c.errors == 0 && (!strict || c.warnings == 0);
    Ok(CheckReport {
        schema: "mdgraph.check/1",
        ok,
        fresh,
        errors: c.errors,
        warnings: c.warnings,
        diagnostics,
        staged: false,
    })
}
