//! Check: is the committed index what the sources would produce, and is the graph free of
//! errors? Freshness is decided by content hashes, so it works in a fresh clone; the
//! local stat cache only skips re-hashing files whose stat is unchanged, and when it
//! vouches for every file, folder and index file ([`statcache::probe`]) no scan is done.
//! When the index is stale, the current diagnostics are computed in memory so the user
//! sees the real problems, not the ones recorded in the outdated index.
//!
//! With a baseline file ([`baseline`]) only the diagnostics it does not cover decide the
//! verdict; the ones it covers are counted as known, and the entries no longer found as
//! fixed.

pub mod baseline;
mod commit_staged;
mod committed;
mod git;
pub mod hook;
mod hygiene;
pub mod merge;
mod sides;
pub mod staged;
mod tracked;

use crate::config::Config;
use crate::error::Error;
use crate::model::diag::Diagnostic;
use baseline::{Baseline, Entry};
use serde::Serialize;

/// How a check is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckOptions {
    /// Fail on (new) warnings too.
    pub strict: bool,
    /// Use the baseline file when there is one (false: every diagnostic counts).
    pub baseline: bool,
    /// Check what is staged in git (the backlog, config, baseline and index in git's
    /// index), as the pre-commit hook does.
    pub staged: bool,
}

impl Default for CheckOptions {
    /// Not strict, with the baseline, on the working tree.
    fn default() -> Self {
        CheckOptions {
            strict: false,
            baseline: true,
            staged: false,
        }
    }
}

/// The outcome of a check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// True when the check passes: fresh, and no new errors (nor new warnings under
    /// `strict`). Without a baseline every diagnostic is new.
    pub ok: bool,
    /// True when the index matches the sources and config.
    pub fresh: bool,
    /// Number of errors, known ones and staleness included.
    pub errors: usize,
    /// Number of warnings, known ones included.
    pub warnings: usize,
    /// The baseline file in use (as shown to the user), if any.
    pub baseline: Option<String>,
    /// Diagnostics the baseline covers.
    pub known: usize,
    /// Diagnostics it does not cover: the length of `diagnostics`.
    pub new: usize,
    /// Diagnostics of the baseline no longer found (`mdgraph baseline` shrinks it).
    pub fixed: usize,
    /// The diagnostics the baseline does not cover: staleness findings first, then the
    /// graph's.
    pub diagnostics: Vec<Diagnostic>,
    /// True when what was checked is the content staged in git (`check --staged`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub staged: bool,
    /// The diagnostics the baseline covers.
    #[serde(skip)]
    pub known_diagnostics: Vec<Diagnostic>,
    /// The baseline entries no longer found, with how many of each.
    #[serde(skip)]
    pub fixed_entries: Vec<Entry>,
    /// With `staged`: how many of the new errors are in files the staged change does
    /// not touch (old errors nobody recorded; `mdgraph baseline` records them). Its
    /// errors come first in `diagnostics`.
    #[serde(skip_serializing_if = "is_zero")]
    pub elsewhere: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Run the check: the current diagnostics, split against the baseline file when
/// `opts.baseline` and there is one.
pub fn check(cfg: &Config, opts: CheckOptions) -> Result<CheckReport, Error> {
    if opts.staged {
        return match cfg.commit_index {
            true => commit_staged::check(cfg, opts),
            false => staged::check_staged(cfg, opts),
        };
    }
    let (fresh, mut diagnostics) = current(cfg)?;
    hygiene::add(cfg, fresh, &mut diagnostics);
    let loaded = if opts.baseline {
        Baseline::load(&cfg.baseline, &cfg.display(&cfg.baseline))?
    } else {
        None
    };
    Ok(verdict(cfg, opts, fresh, diagnostics, loaded, false))
}

/// The report of a check: the diagnostics split against the baseline (when there is
/// one), and whether they pass.
pub(crate) fn verdict(
    cfg: &Config,
    opts: CheckOptions,
    fresh: bool,
    diagnostics: Vec<Diagnostic>,
    loaded: Option<Baseline>,
    staged: bool,
) -> CheckReport {
    let split = loaded.as_ref().unwrap_or(&Baseline::default()).split(diagnostics);
    let (new_errors, new_warnings) = baseline::severities(&split.new);
    let (known_errors, known_warnings) = baseline::severities(&split.known);
    CheckReport {
        schema: "mdgraph.check/2",
        ok: fresh && new_errors == 0 && (!opts.strict || new_warnings == 0),
        fresh,
        errors: new_errors + known_errors,
        warnings: new_warnings + known_warnings,
        baseline: loaded.map(|_| cfg.display(&cfg.baseline)),
        known: split.known.len(),
        new: split.new.len(),
        fixed: split.fixed.iter().map(|e| e.count).sum(),
        diagnostics: split.new,
        staged,
        known_diagnostics: split.known,
        fixed_entries: split.fixed,
        elsewhere: 0,
    }
}

/// What `mdgraph baseline` did.
#[derive(Debug, Clone, Serialize)]
pub struct BaselineReport {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// The baseline file (as shown to the user).
    pub path: String,
    /// False when the file already held this baseline.
    pub written: bool,
    /// Diagnostics recorded.
    pub recorded: usize,
    /// Errors among them.
    pub errors: usize,
    /// Warnings among them.
    pub warnings: usize,
    /// Files they are in.
    pub files: usize,
    /// Diagnostics recorded that the previous baseline did not have.
    pub added: usize,
    /// Diagnostics of the previous baseline no longer recorded.
    pub removed: usize,
    /// Diagnostics left out by `prune` (not in the previous baseline).
    pub left_out: usize,
    /// True when the index is fresh (otherwise the check fails until `mdgraph index`).
    pub fresh: bool,
}

/// Record the current diagnostics of the sources as the baseline (`prune`: only drop
/// what was fixed from the existing one, never add). Never touches the index.
pub fn record(cfg: &Config, prune: bool) -> Result<BaselineReport, Error> {
    let (fresh, mut diagnostics) = current(cfg)?;
    hygiene::add(cfg, fresh, &mut diagnostics);
    let shown = cfg.display(&cfg.baseline);
    let old = Baseline::load(&cfg.baseline, &shown)?.unwrap_or_default();
    let now = Baseline::of(&diagnostics);
    let next = if prune { old.intersect(&now) } else { now.clone() };
    let recorded: Vec<Diagnostic> = next.split(diagnostics).known;
    let (errors, warnings) = baseline::severities(&recorded);
    let written = next.save(&cfg.baseline)?;
    Ok(BaselineReport {
        schema: "mdgraph.baseline/1",
        path: shown,
        written,
        recorded: next.len(),
        errors,
        warnings,
        files: next.files(),
        added: next.beyond(&old),
        removed: old.beyond(&next),
        left_out: now.beyond(&next),
        fresh,
    })
}

/// Bring the local index up to date, SQLite mirror included (when the config keeps one),
/// as any reader would: the next query then finds it fresh.
pub(crate) fn refresh(cfg: &Config) -> Result<crate::ingest::build::BuildReport, Error> {
    let spec = crate::query::backlog::mirror_spec(cfg);
    crate::ingest::build::build_index(cfg, false, &spec, None)
}

/// Whether the index is fresh, and the diagnostics (sorted): the staleness findings
/// first, then the graph's (the index's when it is fresh, else those of the sources as
/// they are now). In local mode (no `commit_index`) the index is refreshed first, so it
/// is always fresh.
fn current(cfg: &Config) -> Result<(bool, Vec<Diagnostic>), Error> {
    crate::store::lock::finish_pending(&cfg.index_dir)?;
    // A local index is nobody's record: bring it up to date (incrementally) and judge
    // the graph. Only a committed index can be stale.
    if !cfg.commit_index {
        return Ok((true, refresh(cfg)?.diagnostics));
    }
    committed::verify(cfg)
}
