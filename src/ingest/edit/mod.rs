//! The short cut for edits: when the stat cache shows that only the contents of some
//! indexed files changed (no file added, removed or renamed, no folder or ignore file
//! touched), and each edited file keeps what other files' references see of it (its id,
//! whether the id is derived, its uid, its line, whether its state yields the id; see
//! [`crate::store::doctable`]), the edit is applied where it lands:
//!
//! - only the edited files are read and parsed;
//! - they are resolved against the document table, not the graph
//!   ([`crate::ingest::resolve::resolve_changed`], `among.rs`): other files' edges and
//!   diagnostics cannot change;
//! - the three JSON-lines files are patched (their records of the edited files replaced
//!   in sorted order, the rest copied in the kernel; `records.rs` finds them,
//!   [`crate::store::patch`] writes), and their digests follow from the old ones;
//! - the SQLite mirror changes the edited documents' rows in place, or moves them when
//!   their sections changed ([`mirror::update_docs`]).
//!
//! A spec folder's file yields several documents (its own and its items, see
//! [`crate::ingest::spec`]): they are replaced together (`file.rs`), and its items must
//! keep their ids as its own document keeps its surface.
//!
//! The result is byte for byte what a full build writes (the property test in
//! `tests/suite/incremental.rs` checks this over random edits, renames and deletions,
//! `tests/suite/spec_edits.rs` over spec-folder edits). Anything else (a new file, a
//! changed id, an item added or removed, a parent edge added or retargeted, which can
//! make or break a cycle, or moved to another line while the index has a cycle, a
//! mirror that is not the sidecar's) returns `None`, and the caller takes the full
//! incremental path.

mod among;
mod file;
mod records;

use crate::config::Config;
use crate::error::Error;
use crate::ingest::parse::{ParsedFile, parse_file};
use crate::ingest::report::{BuildReport, Edits, count_tokens};
use crate::model::diag::{Diagnostic, Severity};
use crate::model::{Edge, Graph, Kind};
use crate::progress::Progress;
use crate::store::doctable::DocTable;
use crate::store::files::{self, LineDigest};
use crate::store::mirror;
use crate::store::patch::{Patch, Sorted};
use crate::store::sidecar::{self, Meta, MetaCounts, Removal};
use crate::store::statcache::{self, Stamp};
use crate::timing::Timings;
use among::{resolve_among, same_file_surface, same_surface};
use file::{FileDocs, Patched, patch_outputs, same_parents};
use rayon::prelude::*;
use records::{Old, Patches, edges_of, parse, replaced};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;

/// At most this many edited files take the short cut (each costs a few reads per output
/// file; past this a full incremental run is about as fast).
const MAX_EDITED: usize = 256;

/// What the stat cache says of the sources, from stats alone: taken under the index lock
/// before `meta.json` is read (the cache's text and the meta record are the two largest
/// things such a run holds; they are never held together).
pub(crate) struct Probe {
    /// When the stats were taken (the stat cache's racy window starts here).
    scan_start: i128,
    delta: statcache::Delta,
}

/// [`Probe`] of the index; None when more than edits may have changed (see
/// [`statcache::delta`]).
pub(crate) fn probe(cfg: &Config) -> Option<Probe> {
    let scan_start = statcache::now_ns();
    let delta = statcache::delta(&cfg.index_dir, &cfg.root, &cfg.settings.digest(), &cfg.settings.scan)?;
    Some(Probe { scan_start, delta })
}

/// Apply the edits the `probe` found since the index whose `meta.json` is `prev` was
/// built, when they are only edits (see the module docs). The caller holds the index
/// lock and read `prev` under it; `spec` is the mirror's, when there is one; `timings`
/// runs from the start of the run. Once the patched files are being switched in, a
/// failure is the run's error, as in a full build.
pub(crate) fn apply(
    cfg: &Config,
    probe: Probe,
    prev: Meta,
    spec: Option<&mirror::Spec>,
    progress: Option<&Progress>,
    mut timings: Timings,
) -> Result<Applied, Error> {
    let Some(changes) = what_changed(cfg, probe, &prev, spec, &mut timings) else {
        return Ok(Applied::No(Some(prev)));
    };
    if changes.edited.is_empty() {
        let Some(diagnostics) = touched_only(cfg, &changes) else {
            return Ok(Applied::No(Some(prev)));
        };
        timings.mark("verify");
        return Ok(Applied::Done(Box::new(BuildReport::unchanged(
            prev,
            diagnostics,
            timings,
        ))));
    }
    let Some(Prepared {
        mut table,
        old,
        patched,
        next,
    }) = prepare(cfg, &prev, &changes, progress, &mut timings)
    else {
        return Ok(Applied::No(Some(prev)));
    };
    let new_sidecar = mirror::sidecar_digest(&next.outputs);
    // The mirror first: if it cannot take the edit, nothing has been written. (Killed
    // between the two, the mirror names a sidecar that is not there: it is rebuilt.)
    if let Some(sp) = spec
        && !patch_mirror(cfg, (&changes.sidecar, &new_sidecar), &patched, sp, &mut timings)
    {
        return Ok(Applied::No(Some(prev)));
    }
    let meta = next.into_meta(prev, &changes.edited);
    let Some((written, _removal)) = commit(&cfg.index_dir, &old, patched.files, &meta, &mut timings)? else {
        return Ok(Applied::No(None));
    };
    table.sidecar = new_sidecar;
    let diagnostics = save_caches(cfg, &changes, &table, &meta)?;
    timings.mark("caches");
    Ok(Applied::Done(Box::new(BuildReport {
        up_to_date: false,
        parsed: changes.edited.len(),
        reused: meta.files.len().saturating_sub(changes.edited.len()),
        written,
        meta,
        diagnostics,
        timings,
        edits: Some(Edits {
            from: changes.sidecar,
            docs: patched.docs,
        }),
        bytes: Default::default(),
    })))
}

/// What [`apply`] made of the run.
pub(crate) enum Applied {
    /// The index, edited (or only the stamps of touched files refreshed).
    Done(Box<BuildReport>),
    /// Not an edit this can apply; nothing was written. The meta record read comes back
    /// for the build, unless the edit had made it over (then the build reads it again).
    No(Option<Meta>),
}

/// The edit worked out, nothing written yet.
struct Prepared {
    /// The document table with the edited documents' new rows.
    table: DocTable,
    old: Old,
    patched: Patched,
    next: NextMeta,
}

/// Parse and resolve the edited files and work out the patches and the new meta record;
/// None when the short cut does not apply.
fn prepare(
    cfg: &Config,
    prev: &Meta,
    changes: &Changes,
    progress: Option<&Progress>,
    timings: &mut Timings,
) -> Option<Prepared> {
    let mut table = DocTable::load(&cfg.index_dir, &changes.sidecar)?;
    let parsed = reparse(cfg, &changes.edited, &table, progress)?;
    timings.mark("parse");
    let changed: HashSet<&str> = changes.edited.iter().map(|f| f.rel.as_str()).collect();
    let files: Vec<FileDocs> = parsed.iter().map(FileDocs::of).collect();
    let (graph, new_diags) = reresolve(cfg, &table, &changed, parsed);
    timings.mark("resolve");
    let old = Old::open(&cfg.index_dir)?;
    let patched = patch_outputs(&old, &files, &graph, &new_diags, &mut table)?;
    // Diagnostics of other paths (a reference's finding is its own file's) are none.
    if new_diags.iter().any(|d| !changed.contains(d.path.as_str())) {
        return None;
    }
    timings.mark("patch");
    let next = next_meta(prev, &graph, &patched, &new_diags)?;
    Some(Prepared {
        table,
        old,
        patched,
        next,
    })
}

/// An edited file, read.
struct Edited {
    rel: String,
    hash: String,
    text: String,
}

/// What changed since the index was built, when it may be only edits.
struct Changes {
    /// When the stats were taken (the stat cache's racy window starts here).
    scan_start: i128,
    /// The sidecar digest of the index the edits apply to.
    sidecar: String,
    /// (path, stamp, hash) of every touched file.
    stamps: Vec<(String, Stamp, String)>,
    /// The touched files whose bytes changed.
    edited: Vec<Edited>,
}

/// What the stat cache says may have changed, read: None unless the index is of this
/// format and config, the stat cache and the mirror (when `spec`) are of its sidecar, and
/// at most [`MAX_EDITED`] indexed files changed, each a regular file of UTF-8 text.
fn what_changed(
    cfg: &Config,
    Probe { scan_start, delta }: Probe,
    prev: &Meta,
    spec: Option<&mirror::Spec>,
    timings: &mut Timings,
) -> Option<Changes> {
    if prev.schema != sidecar::SCHEMA_VERSION
        || prev.config_digest != cfg.settings.digest()
        || mirror::sidecar_digest(&prev.outputs) != delta.sidecar
        || spec.is_some_and(|sp| !mirror::mirrors(&cfg.index_dir, &delta.sidecar, sp))
    {
        return None;
    }
    timings.mark("probe");
    // Stat first, then read, as the scan does (an edit between the two is seen by the
    // next run).
    let max = cfg.settings.scan.max_file_size;
    let mut stamps: Vec<(String, Stamp, String)> = Vec::with_capacity(delta.touched.len());
    let mut edited: Vec<Edited> = Vec::new();
    for rel in &delta.touched {
        let abs = cfg.root.join(rel);
        let md = std::fs::symlink_metadata(&abs).ok()?;
        if !md.is_file() || md.len() > max {
            return None;
        }
        let bytes = crate::text::eol::lf(std::fs::read(&abs).ok()?);
        let hash = blake3::hash(&bytes).to_hex().to_string();
        stamps.push((rel.clone(), Stamp::of(&md), hash.clone()));
        if prev.files.get(rel) != Some(&hash) {
            let mut text = String::from_utf8(bytes).ok()?;
            if text.starts_with('\u{feff}') {
                text.drain(..3);
            }
            edited.push(Edited {
                rel: rel.clone(),
                hash,
                text,
            });
        }
    }
    if edited.len() > MAX_EDITED {
        return None;
    }
    timings.mark("read");
    Some(Changes {
        scan_start,
        sidecar: delta.sidecar,
        stamps,
        edited,
    })
}

/// Files touched, none changed: only the stamps are new. Returns the index's
/// diagnostics.
fn touched_only(cfg: &Config, changes: &Changes) -> Option<Vec<Diagnostic>> {
    let dir = &cfg.index_dir;
    let diagnostics = sidecar::read_jsonl(&dir.join(files::DIAGNOSTICS)).ok()?;
    files::write_folder_files(dir, cfg.commit_index).ok()?;
    if !changes.stamps.is_empty()
        && !statcache::patch_file(dir, changes.scan_start, &changes.stamps, &changes.sidecar, &[])
    {
        let _ = std::fs::remove_file(dir.join(statcache::FILE));
    }
    Some(diagnostics)
}

/// Parse the edited files; None unless each shows the others what it showed them before
/// (its row of the document table).
fn reparse(cfg: &Config, edited: &[Edited], table: &DocTable, progress: Option<&Progress>) -> Option<Vec<ParsedFile>> {
    if let Some(p) = progress {
        p.phase("parsing", edited.len());
    }
    let parsed: Vec<ParsedFile> = edited
        .par_iter()
        .map(|f| {
            let mut p = parse_file(&f.rel, &f.hash, &f.text, &cfg.settings);
            count_tokens(&mut p, cfg.settings.tokenizer);
            p
        })
        .collect();
    for p in &parsed {
        if !same_file_surface(table.rows_of(&p.doc.path), p, &cfg.settings) {
            return None;
        }
    }
    Some(parsed)
}

/// The edited files' nodes, edges and diagnostics (as `[check]` records them), resolved
/// among the documents of the table.
fn reresolve(
    cfg: &Config,
    table: &DocTable,
    changed: &HashSet<&str>,
    parsed: Vec<ParsedFile>,
) -> (Graph, Vec<Diagnostic>) {
    let (graph, mut new_diags) = resolve_among(table, changed, parsed, &cfg.settings);
    cfg.settings.check.apply(&mut new_diags);
    new_diags.sort();
    new_diags.dedup();
    (graph, new_diags)
}

/// What the edit changes in the meta record but the sources: the outputs' digests, which
/// follow from the old ones and the patches, and the counts, from what the patches
/// remove and add.
struct NextMeta {
    outputs: BTreeMap<String, String>,
    counts: MetaCounts,
}

fn next_meta(prev: &Meta, graph: &Graph, patched: &Patched, new_diags: &[Diagnostic]) -> Option<NextMeta> {
    let p = &patched.files;
    let digest =
        |name: &str, p: &Patch| -> Option<String> { Some(p.digest(LineDigest::parse(prev.outputs.get(name)?)?).hex()) };
    let mut outputs = prev.outputs.clone();
    outputs.insert(files::NODES.into(), digest(files::NODES, &p.nodes)?);
    outputs.insert(files::EDGES.into(), digest(files::EDGES, &p.edges)?);
    outputs.insert(files::DIAGNOSTICS.into(), digest(files::DIAGNOSTICS, &p.diags)?);
    let new_chunks = graph.nodes.iter().filter(|n| n.kind == Kind::Chunk).count();
    let severity_delta = |sev: Severity| -> isize {
        let removed = p
            .diags
            .removed()
            .filter_map(parse::<Diagnostic>)
            .filter(|d| d.severity == sev)
            .count() as isize;
        new_diags.iter().filter(|d| d.severity == sev).count() as isize - removed
    };
    let add = |n: usize, d: isize| n.checked_add_signed(d);
    let mut counts = prev.counts.clone();
    counts.chunks = add(counts.chunks, new_chunks as isize - patched.old_chunks as isize)?;
    counts.edges = add(counts.edges, p.edges.line_delta())?;
    counts.errors = add(counts.errors, severity_delta(Severity::Error))?;
    counts.warnings = add(counts.warnings, severity_delta(Severity::Warning))?;
    Some(NextMeta { outputs, counts })
}

impl NextMeta {
    /// The meta record after the edit, made over from the one before (not a copy: at
    /// 10k items the map of source files is 1.4 MB on disk).
    fn into_meta(self, mut meta: Meta, edited: &[Edited]) -> Meta {
        meta.outputs = self.outputs;
        meta.counts = self.counts;
        meta.unproven = None;
        for f in edited {
            meta.files.insert(f.rel.clone(), f.hash.clone());
        }
        meta.source_digest = sidecar::source_digest(&meta.files);
        meta
    }
}

/// Take the edited documents into the mirror (moved from the `sidecars` (old, new));
/// false when it cannot, and then nothing was written.
fn patch_mirror(
    cfg: &Config,
    sidecars: (&str, &str),
    patched: &Patched,
    spec: &mirror::Spec,
    timings: &mut Timings,
) -> bool {
    if !mirror::update_docs(&cfg.index_dir, sidecars, &patched.docs, patched.backlog, spec) {
        return false;
    }
    timings.mark(if patched.backlog {
        "sqlite (edited rows, backlog)"
    } else {
        "sqlite (edited rows)"
    });
    true
}

/// Stage the patched files and `meta.json`, then switch them in: `Ok(None)` when staging
/// fails (nothing was switched in), else the names written and the old files, removed in
/// the background until dropped.
fn commit(
    dir: &std::path::Path,
    old: &Old,
    patches: Patches,
    meta: &Meta,
    timings: &mut Timings,
) -> Result<Option<(Vec<String>, Removal)>, Error> {
    let mut commit = sidecar::Commit::new(dir);
    for (name, file, patch) in [
        (files::NODES, &old.nodes, patches.nodes),
        (files::EDGES, &old.edges, patches.edges),
        (files::DIAGNOSTICS, &old.diags, patches.diags),
    ] {
        if !patch.is_empty() && commit.stage_with(name, |out| patch.write(file, out)).is_err() {
            return Ok(None);
        }
    }
    let Ok(mut meta_bytes) = serde_json::to_vec_pretty(meta) else {
        return Ok(None);
    };
    meta_bytes.push(b'\n');
    // An edited file's hash changed: so did `meta.json` (not compared first).
    if commit.stage_with(files::META, |f| f.write_all(&meta_bytes)).is_err() {
        return Ok(None);
    }
    timings.mark("write");
    let (written, old_files) = commit.apply_keeping_old()?;
    // The old files' pages are freed while the caches are written.
    let removal = old_files.remove_in_background();
    timings.mark("switch");
    Ok(Some((written, removal)))
}

/// After the switch: the folder's own files, the edited rows of the document table, the
/// stat cache (new stamps of the edited files and the outputs); returns the index's
/// diagnostics.
fn save_caches(cfg: &Config, changes: &Changes, table: &DocTable, meta: &Meta) -> Result<Vec<Diagnostic>, Error> {
    let dir = &cfg.index_dir;
    files::write_folder_files(dir, cfg.commit_index)?;
    let edited_paths: Vec<&str> = changes.edited.iter().map(|f| f.rel.as_str()).collect();
    table.save_edited(dir, &changes.sidecar, &edited_paths);
    let mut outs: Vec<(&str, Stamp, String)> = files::OUTPUTS
        .iter()
        .filter_map(|name| {
            Some((
                *name,
                Stamp::of_path(&dir.join(name))?,
                meta.outputs.get(*name)?.clone(),
            ))
        })
        .collect();
    let meta_stamp = Stamp::of_path(&dir.join(files::META));
    outs.extend(meta_stamp.map(|st| (files::META, st, "-".into())));
    // Without a cache the next run scans: correct, only slower.
    if meta_stamp.is_none() || !statcache::patch_file(dir, changes.scan_start, &changes.stamps, &table.sidecar, &outs) {
        let _ = std::fs::remove_file(dir.join(statcache::FILE));
    }
    sidecar::read_jsonl(&dir.join(files::DIAGNOSTICS))
}

/// The diagnostics of the fresh index in `cfg.index_dir` with some files' text replaced
/// (`check --staged` judging staged text that differs from the working tree), by the
/// same short cut: when each replaced file is indexed and keeps what others' references
/// see of it and its parent links, only those files are parsed and resolved against the
/// document table. None: not such a change (the caller resolves everything).
pub fn diagnostics_with(
    cfg: &Config,
    overlay: &std::collections::BTreeMap<String, Option<String>>,
) -> Option<Vec<Diagnostic>> {
    let dir = &cfg.index_dir;
    let head = sidecar::read_meta_head(dir)?;
    let table = DocTable::load(dir, &mirror::sidecar_digest(&head.outputs))?;
    let mut parsed = Vec::with_capacity(overlay.len());
    for (path, text) in overlay {
        let text = text.as_deref()?;
        if crate::ingest::spec::scope_of(path).is_some() {
            return None;
        }
        let row = table.get(path)?;
        let hash = blake3::hash(text.as_bytes()).to_hex().to_string();
        let p = parse_file(path, &hash, text, &cfg.settings);
        if !same_surface(row, &p.doc, &cfg.settings) {
            return None;
        }
        parsed.push(p);
    }
    let changed: HashSet<&str> = overlay.keys().map(String::as_str).collect();
    let (graph, new_diags) = resolve_among(&table, &changed, parsed, &cfg.settings);
    let edges_file = Sorted::open(&dir.join(files::EDGES)).ok()?;
    for path in &changed {
        let id = table.get(path)?.node.as_str();
        let old_edges: Vec<Edge> = edges_of(&edges_file, id, path)?
            .into_iter()
            .map(|(_, _, e)| e)
            .collect();
        let new_edges: Vec<Edge> = graph.edges.iter().filter(|e| e.path == *path).cloned().collect();
        if !same_parents(&old_edges, &new_edges, false) {
            return None;
        }
    }
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    for d in sidecar::read_jsonl::<Diagnostic>(&dir.join(files::DIAGNOSTICS)).ok()? {
        if !changed.contains(d.path.as_str()) || !replaced(d.code)? {
            diagnostics.push(d);
        }
    }
    diagnostics.extend(new_diags);
    cfg.settings.check.apply(&mut diagnostics);
    diagnostics.sort();
    diagnostics.dedup();
    Some(diagnostics)
}
