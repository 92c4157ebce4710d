//! The short cut for edits: when the stat cache shows that only the contents of some
//! indexed files changed (no file added, removed or renamed, no folder or ignore file
//! touched), and each edited file keeps what other files' references see of it (its id,
//! whether the id is derived, its uid, its line, whether its state yields the id; see
//! [`crate::store::doctable`]), the edit is applied where it lands:
//!
//! - only the edited files are read and parsed;
//! - they are resolved against the document table, not the graph
//!   ([`resolve_changed`]): other files' edges and diagnostics cannot change;
//! - the three JSON-lines files are patched (their records of the edited files replaced
//!   in sorted order, the rest copied in the kernel; [`crate::store::patch`]), and their
//!   digests follow from the old ones;
//! - the SQLite mirror changes the edited documents' rows in place, or moves them when
//!   their sections changed ([`mirror::update_docs`]).
//!
//! The result is byte for byte what a full build writes (the property test in
//! `tests/suite/incremental.rs` checks this over random edits, renames and deletions).
//! Anything else (a new file, a changed id, a parent edge added or moved, which can make
//! or break a cycle, a changed `backlog` row, a mirror that is not the sidecar's) returns
//! `None`, and the caller takes the full incremental path.

use crate::config::{Config, Settings};
use crate::error::Error;
use crate::ingest::build::{BuildReport, count_tokens};
use crate::ingest::parse::{ParsedFile, parse_file};
use crate::ingest::resolve::{Wanted, resolve_changed};
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::model::{Edge, EdgeType, Kind, Node};
use crate::progress::Progress;
use crate::store::doctable::{DocTable, Row};
use crate::store::files::{self, LineDigest};
use crate::store::patch::{Patch, Sorted};
use crate::store::sidecar;
use crate::store::statcache::{self, Stamp};
use crate::store::{lock, mirror};
use crate::timing::Timings;
use rayon::prelude::*;
use serde::Deserialize;
use std::collections::HashSet;
use std::io::Write;

/// At most this many edited files take the short cut (each costs a few reads per output
/// file; past this a full incremental run is about as fast).
const MAX_EDITED: usize = 256;

/// Apply the edits since the last build, when they are only edits (see the module docs).
/// `spec` is the mirror's, when there is one. `Ok(None)`: not an edit this can apply;
/// nothing was written.
pub fn apply(
    cfg: &Config,
    spec: Option<&mirror::Spec>,
    progress: Option<&Progress>,
) -> Result<Option<BuildReport>, Error> {
    if !cfg.root.is_dir() {
        return Ok(None);
    }
    let _lock = lock::IndexLock::acquire(&cfg.index_dir)?;
    Ok(try_apply(cfg, spec, progress))
}

/// An edited file, read.
struct Edited {
    rel: String,
    hash: String,
    text: String,
}

fn try_apply(cfg: &Config, spec: Option<&mirror::Spec>, progress: Option<&Progress>) -> Option<BuildReport> {
    let mut timings = Timings::default();
    let scan_start = statcache::now_ns();
    let config_digest = cfg.settings.digest();
    let delta = statcache::delta(&cfg.index_dir, &cfg.root, &config_digest)?;
    let mut meta = sidecar::read_meta(&cfg.index_dir)?;
    if meta.schema != sidecar::SCHEMA_VERSION
        || meta.config_digest != config_digest
        || mirror::sidecar_digest(&meta.outputs) != delta.sidecar
        || spec.is_some_and(|sp| !mirror::mirrors(&cfg.index_dir, &delta.sidecar, sp))
    {
        return None;
    }
    timings.mark("probe");

    // Read what the stats say may have changed: stat first, then read, as the scan does
    // (an edit between the two is seen by the next run).
    let max = cfg.settings.scan.max_file_size;
    let mut stamps: Vec<(String, Stamp, String)> = Vec::with_capacity(delta.touched.len());
    let mut edited: Vec<Edited> = Vec::new();
    for rel in &delta.touched {
        // A spec folder's file holds items beside its own document: its edit takes the
        // full path (the document table keeps one row per file's own document).
        if crate::ingest::spec::scope_of(rel).is_some() {
            return None;
        }
        let abs = cfg.root.join(rel);
        let md = std::fs::symlink_metadata(&abs).ok()?;
        if !md.is_file() || md.len() > max {
            return None;
        }
        let bytes = std::fs::read(&abs).ok()?;
        let hash = blake3::hash(&bytes).to_hex().to_string();
        stamps.push((rel.clone(), Stamp::of(&md), hash.clone()));
        if meta.files.get(rel) != Some(&hash) {
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
    if edited.is_empty() {
        // Touched, not changed: only the stamps are new.
        let diagnostics = sidecar::read_jsonl(&cfg.index_dir.join(files::DIAGNOSTICS)).ok()?;
        sidecar::write_folder_files(&cfg.index_dir, cfg.commit_index).ok()?;
        if !stamps.is_empty() && !statcache::patch_file(&cfg.index_dir, scan_start, &stamps, &delta.sidecar, &[]) {
            let _ = std::fs::remove_file(cfg.index_dir.join(statcache::FILE));
        }
        timings.mark("verify");
        return Some(BuildReport::unchanged(meta, diagnostics, timings));
    }
    let mut table = DocTable::load(&cfg.index_dir, &delta.sidecar)?;
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
    // Each edited file must show the others what it showed them before.
    for p in &parsed {
        let row = table.get(&p.doc.path)?;
        if !same_surface(row, &p.doc, &cfg.settings) {
            return None;
        }
    }
    timings.mark("parse");

    let changed: HashSet<&str> = edited.iter().map(|f| f.rel.as_str()).collect();
    let (graph, mut new_diags) = resolve_among(&table, &changed, parsed, &cfg.settings);
    cfg.settings.check.apply(&mut new_diags);
    new_diags.sort();
    new_diags.dedup();
    timings.mark("resolve");

    // The old records of the edited files, and the patches that replace them.
    let dir = &cfg.index_dir;
    let nodes_file = Sorted::open(&dir.join(files::NODES)).ok()?;
    let edges_file = Sorted::open(&dir.join(files::EDGES)).ok()?;
    let diags_file = Sorted::open(&dir.join(files::DIAGNOSTICS)).ok()?;
    let mut nodes_patch = Patch::default();
    let mut edges_patch = Patch::default();
    let mut diags_patch = Patch::default();
    let mut old_chunks = 0usize;
    let mut edits: Vec<mirror::DocEdit> = Vec::new();
    let mut backlog = false;
    for f in &edited {
        let row = table.get(&f.rel)?;
        let id = row.node.as_str();
        let doc = graph.nodes.iter().find(|n| n.path == f.rel && !n.is_chunk())?;
        if doc.id != id {
            return None;
        }
        // Nodes: the document's own, and its sections' (`id#…`, of this path).
        let mut old_doc: Option<Node> = None;
        for (start, line) in own_lines(&nodes_file, id, &f.rel, |l| node_key(l).map(|k| (k.id, k.path)))? {
            let n: Node = serde_json::from_slice(&line).ok()?;
            if n.is_chunk() {
                old_chunks += 1;
            } else {
                old_doc = Some(n);
            }
            nodes_patch.remove(start, line);
        }
        let old_doc = old_doc?;
        let new_nodes: Vec<&Node> = graph.nodes.iter().filter(|n| n.path == f.rel).collect();
        for n in &new_nodes {
            let line = jsonl(n)?;
            let pos = nodes_file
                .lower_bound(|l| node_key(l).is_none_or(|k| k.id.as_str() >= n.id.as_str()))
                .ok()?;
            nodes_patch.insert(pos, line);
        }
        // Edges: those whose source is the document or one of its sections.
        let mut old_edges: Vec<Edge> = Vec::new();
        for (start, line, edge) in edges_of(&edges_file, id, &f.rel)? {
            old_edges.push(edge);
            edges_patch.remove(start, line);
        }
        let new_edges: Vec<Edge> = graph.edges.iter().filter(|e| e.path == f.rel).cloned().collect();
        // What the backlog table reads may change: then it is made again.
        if !same_parents(&old_edges, &new_edges) {
            return None;
        }
        backlog |= backlog_view(&old_doc, &old_edges) != backlog_view(doc, &new_edges);
        for e in &new_edges {
            let line = jsonl(e)?;
            let key = (e.source.as_str(), e.r#type, e.target.as_str(), e.line);
            let pos = edges_file
                .lower_bound(|l| {
                    edge_key(l).is_none_or(|k| (k.source.as_str(), k.r#type, k.target.as_str(), k.line) >= key)
                })
                .ok()?;
            edges_patch.insert(pos, line);
        }
        // Diagnostics: this file's, but for those that depend on every file (a shared
        // id, a parent cycle), which cannot have changed.
        let from = diags_file
            .lower_bound(|l| diag_path(l).is_none_or(|p| p.as_str() >= f.rel.as_str()))
            .ok()?;
        let to = diags_file
            .lower_bound(|l| diag_path(l).is_none_or(|p| p.as_str() > f.rel.as_str()))
            .ok()?;
        for (start, line) in diags_file.lines(from, to).ok()? {
            let d: Diagnostic = serde_json::from_slice(&line).ok()?;
            if replaced(d.code)? {
                diags_patch.remove(start, line);
            }
        }
        for d in new_diags.iter().filter(|d| d.path == f.rel) {
            let pos = diags_file
                .lower_bound(|l| parse::<Diagnostic>(l).is_none_or(|x| x >= *d))
                .ok()?;
            diags_patch.insert(pos, jsonl(d)?);
        }
        table.set(Row::of(doc));
        edits.push(mirror::DocEdit {
            nodes: new_nodes.into_iter().cloned().collect(),
            edges: new_edges,
        });
    }
    // Diagnostics of other paths (a reference's finding is its own file's) are none.
    if new_diags.iter().any(|d| !changed.contains(d.path.as_str())) {
        return None;
    }
    timings.mark("patch");

    // The new meta record.
    let digest =
        |name: &str, p: &Patch| -> Option<String> { Some(p.digest(LineDigest::parse(meta.outputs.get(name)?)?).hex()) };
    let mut outputs = meta.outputs.clone();
    outputs.insert(files::NODES.into(), digest(files::NODES, &nodes_patch)?);
    outputs.insert(files::EDGES.into(), digest(files::EDGES, &edges_patch)?);
    outputs.insert(files::DIAGNOSTICS.into(), digest(files::DIAGNOSTICS, &diags_patch)?);
    let new_chunks = graph.nodes.iter().filter(|n| n.kind == Kind::Chunk).count();
    let severity_delta = |sev: Severity| -> isize {
        let count = |p: &Patch| {
            p.removed()
                .filter_map(parse::<Diagnostic>)
                .filter(|d| d.severity == sev)
                .count() as isize
        };
        let added = new_diags.iter().filter(|d| d.severity == sev).count() as isize;
        added - count(&diags_patch)
    };
    let add = |n: usize, d: isize| n.checked_add_signed(d);
    meta.counts.chunks = add(meta.counts.chunks, new_chunks as isize - old_chunks as isize)?;
    meta.counts.edges = add(meta.counts.edges, edges_patch.line_delta())?;
    meta.counts.errors = add(meta.counts.errors, severity_delta(Severity::Error))?;
    meta.counts.warnings = add(meta.counts.warnings, severity_delta(Severity::Warning))?;
    for f in &edited {
        meta.files.insert(f.rel.clone(), f.hash.clone());
    }
    meta.source_digest = sidecar::source_digest(&meta.files);
    meta.outputs = outputs;
    let new_sidecar = mirror::sidecar_digest(&meta.outputs);

    // The mirror first: if it cannot take the edit, nothing has been written. (Killed
    // between the two, the mirror names a sidecar that is not there: it is rebuilt.)
    if let Some(sp) = spec {
        if !mirror::update_docs(dir, (&delta.sidecar, &new_sidecar), &edits, backlog, sp) {
            return None;
        }
        timings.mark(if backlog {
            "sqlite (edited rows, backlog)"
        } else {
            "sqlite (edited rows)"
        });
    }
    let mut commit = sidecar::Commit::new(dir);
    for (name, file, patch) in [
        (files::NODES, &nodes_file, nodes_patch),
        (files::EDGES, &edges_file, edges_patch),
        (files::DIAGNOSTICS, &diags_file, diags_patch),
    ] {
        if !patch.is_empty() {
            commit.stage_with(name, |out| patch.write(file, out)).ok()?;
        }
    }
    let mut meta_bytes = serde_json::to_vec_pretty(&meta).ok()?;
    meta_bytes.push(b'\n');
    // An edited file's hash changed: so did `meta.json` (not compared first).
    commit.stage_with(files::META, |f| f.write_all(&meta_bytes)).ok()?;
    timings.mark("write");
    let (written, old) = commit.apply_keeping_old().ok()?;
    // The old files' pages are freed while the caches are written.
    let _removal = old.remove_in_background();
    timings.mark("switch");
    sidecar::write_folder_files(dir, cfg.commit_index).ok()?;
    table.sidecar = new_sidecar.clone();
    let edited_paths: Vec<&str> = edited.iter().map(|f| f.rel.as_str()).collect();
    table.save_edited(dir, &delta.sidecar, &edited_paths);
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
    outs.push((files::META, Stamp::of_path(&dir.join(files::META))?, "-".into()));
    if !statcache::patch_file(dir, scan_start, &stamps, &new_sidecar, &outs) {
        // Without a cache the next run scans: correct, only slower.
        let _ = std::fs::remove_file(dir.join(statcache::FILE));
    }
    let diagnostics = sidecar::read_jsonl(&dir.join(files::DIAGNOSTICS)).ok()?;
    timings.mark("caches");
    Some(BuildReport {
        up_to_date: false,
        parsed: edited.len(),
        reused: meta.files.len().saturating_sub(edited.len()),
        written,
        meta,
        diagnostics,
        timings,
        edits: Some(crate::ingest::build::Edits {
            from: delta.sidecar,
            docs: edits,
        }),
    })
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
        if !same_parents(&old_edges, &new_edges) {
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

/// Resolve the `changed` files (parsed) among the others as the document table has
/// them: their nodes and edges, and their diagnostics (the parse's, then the references').
/// Only the documents the files can reach are made stubs ([`Wanted`]), with every
/// document sharing an id with one of them or with a changed file.
fn resolve_among(
    table: &DocTable,
    changed: &HashSet<&str>,
    mut parsed: Vec<ParsedFile>,
    s: &Settings,
) -> (crate::model::Graph, Vec<Diagnostic>) {
    let wanted = Wanted::of(&parsed, s);
    let others = || table.rows.iter().filter(|r| !changed.contains(r.path.as_str()));
    let mut groups: HashSet<std::borrow::Cow<'_, str>> = parsed
        .iter()
        .map(|p| {
            Wanted::id_group(p.doc.raw_id.as_deref().unwrap_or(&p.doc.id))
                .into_owned()
                .into()
        })
        .collect();
    groups.extend(
        others()
            .filter(|r| wanted.wants(&r.path, &r.raw, &r.node))
            .map(|r| Wanted::id_group(&r.raw)),
    );
    let stubs: Vec<ParsedFile> = others()
        .filter(|r| groups.contains(&Wanted::id_group(&r.raw)))
        .map(stub)
        .collect();
    let mut diags: Vec<Diagnostic> = Vec::new();
    for p in &mut parsed {
        diags.append(&mut p.diagnostics);
    }
    let (graph, ref_diags) = resolve_changed(stubs, parsed, s);
    diags.extend(ref_diags);
    (graph, diags)
}

/// The document as references see it: a stub for [`resolve_changed`].
fn stub(r: &Row) -> ParsedFile {
    ParsedFile {
        doc: Node {
            id: r.raw.clone(),
            kind: Kind::Doc,
            path: r.path.clone(),
            state: r.state.clone(),
            uid: r.uid.clone(),
            id_derived: r.derived,
            line: r.line,
            inline: r.inline,
            ..Node::default()
        },
        sections: Vec::new(),
        diagnostics: Vec::new(),
        items: Vec::new(),
    }
}

/// Does the parsed document show other files what `row` says it showed them?
fn same_surface(row: &Row, doc: &Node, s: &Settings) -> bool {
    let yields = |st: Option<&str>| st.is_some_and(|st| s.ids.yield_states.iter().any(|y| y.eq_ignore_ascii_case(st)));
    doc.raw_id.as_deref() == Some(row.raw.as_str())
        && doc.id_derived == row.derived
        && doc.uid == row.uid
        && doc.line == row.line
        && yields(doc.state.as_deref()) == yields(row.state.as_deref())
}

/// What the `backlog` table reads of a document and its edges.
fn backlog_view<'a>(doc: &'a Node, edges: &'a [Edge]) -> impl PartialEq + 'a {
    let priority = doc.field_values("priority").into_iter().next();
    let typed = |t| links(edges, t, false);
    (
        (
            doc.kind,
            doc.path.as_str(),
            doc.label(),
            doc.r#type.as_deref(),
            doc.state.as_deref(),
        ),
        priority,
        [
            typed(EdgeType::Parent),
            typed(EdgeType::BlockedBy),
            typed(EdgeType::DependsOn),
            typed(EdgeType::Blocks),
        ],
    )
}

/// The (source, target[, line]) of edges of one type, in order.
fn links(edges: &[Edge], t: EdgeType, with_line: bool) -> Vec<(&str, &str, u32)> {
    edges
        .iter()
        .filter(|e| e.r#type == t)
        .map(|e| (e.source.as_str(), e.target.as_str(), if with_line { e.line } else { 0 }))
        .collect()
}

/// Of an edited file's diagnostics: whether one with this code is the file's own, made
/// again from its new text (its parse's, its references'), or one that depends on every
/// file (a shared id, a parent cycle: it cannot have changed when the file keeps its id
/// surface and parent links) and stays. None for a scan-stage finding, which an indexed
/// file has none of: then the full path.
fn replaced(c: Code) -> Option<bool> {
    match c {
        Code::DuplicateId | Code::ParentCycle => Some(false),
        Code::AmbiguousReference | Code::LinkOutsideRoot | Code::DanglingReference | Code::BrokenLink => Some(true),
        c => c.is_parse_stage().then_some(true),
    }
}

/// The edges the document `id` at `path` wrote: (start, line, record) in the edges file.
fn edges_of(file: &Sorted, id: &str, path: &str) -> Option<Vec<(u64, Vec<u8>, Edge)>> {
    own_lines(file, id, path, |l| edge_key(l).map(|k| (k.source, k.path)))?
        .into_iter()
        .map(|(start, line)| {
            let edge = serde_json::from_slice(&line).ok()?;
            Some((start, line, edge))
        })
        .collect()
}

/// Parent edges (with their lines) decide parent cycles and their diagnostics: an edit
/// takes the short cut only when a file's stay as they were.
fn same_parents(old: &[Edge], new: &[Edge]) -> bool {
    links(old, EdgeType::Parent, true) == links(new, EdgeType::Parent, true)
}

/// The lines of a file sorted by a key that is a node id (nodes by `id`, edges by
/// `source`) belonging to the document `id` at `path`: the one keyed `id` and those keyed
/// `id#…`, whose path is `path` (another document's id may start with `id#`).
fn own_lines(
    file: &Sorted,
    id: &str,
    path: &str,
    key: impl Fn(&[u8]) -> Option<(String, String)>,
) -> Option<Vec<(u64, Vec<u8>)>> {
    let prefix = format!("{id}#");
    let after = format!("{id}$");
    let at = |bound: &str, strict: bool| {
        file.lower_bound(|l| {
            key(l).is_none_or(|(k, _)| {
                if strict {
                    k.as_str() > bound
                } else {
                    k.as_str() >= bound
                }
            })
        })
        .ok()
    };
    let mut out = Vec::new();
    for (from, to) in [
        (at(id, false)?, at(id, true)?),
        (at(&prefix, false)?, at(&after, false)?),
    ] {
        for (start, line) in file.lines(from, to).ok()? {
            let (_, p) = key(&line)?;
            if p == path {
                out.push((start, line));
            }
        }
    }
    Some(out)
}

#[derive(Deserialize)]
struct NodeKey {
    id: String,
    path: String,
}

#[derive(Deserialize)]
struct EdgeKey {
    source: String,
    target: String,
    #[serde(rename = "type")]
    r#type: EdgeType,
    path: String,
    line: u32,
}

#[derive(Deserialize)]
struct DiagPath {
    path: String,
}

fn parse<T: serde::de::DeserializeOwned>(line: &[u8]) -> Option<T> {
    serde_json::from_slice(line).ok()
}

fn node_key(line: &[u8]) -> Option<NodeKey> {
    parse(line)
}

fn edge_key(line: &[u8]) -> Option<EdgeKey> {
    parse(line)
}

fn diag_path(line: &[u8]) -> Option<String> {
    parse::<DiagPath>(line).map(|d| d.path)
}

/// One record as a JSON line, as the sidecar writes it.
fn jsonl<T: serde::Serialize>(v: &T) -> Option<Vec<u8>> {
    let mut out = serde_json::to_vec(v).ok()?;
    out.push(b'\n');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Staged text judged by the short cut gives what resolving every file gives.
    #[test]
    fn staged_text_is_judged_as_a_full_resolution_judges_it() {
        let tmp = tempfile::tempdir().unwrap();
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("backlog-fixtures");
        let ov = crate::config::Overrides {
            root: Some(src.clone()),
            index_dir: Some(tmp.path().join("_index")),
            ..crate::config::Overrides::default()
        };
        let cfg = Config::load(tmp.path(), &ov).unwrap();
        crate::ingest::build::build(
            &cfg,
            crate::ingest::build::BuildOptions {
                full: true,
                write: true,
            },
        )
        .unwrap();
        let table = DocTable::load(&cfg.index_dir, &sidecar_of(&cfg)).unwrap();
        let mut short = 0;
        for (i, row) in table.rows.iter().enumerate().step_by(3) {
            let text = std::fs::read_to_string(src.join(&row.path)).unwrap();
            let other = &table.rows[(i + 5) % table.rows.len()].raw;
            let edits = [
                format!("{text}\nStaged: see {other} and [gone](nowhere.md).\n"),
                text.replacen("\n#", "\nAn early line.\n\n#", 1),
                text.replacen("---\n", "---\nowner: @x\n", 1),
            ];
            for edit in edits {
                let overlay = std::collections::BTreeMap::from([(row.path.clone(), Some(edit))]);
                let full = crate::ingest::build::resolved_with(&cfg, &overlay).unwrap();
                if let Some(fast) = diagnostics_with(&cfg, &overlay) {
                    assert_eq!(fast, full, "{}", row.path);
                    short += 1;
                }
            }
        }
        assert!(short > 10, "the short cut was taken {short} times");
    }

    /// An edited file resolved among the stubs [`Wanted`] picks gives what resolving
    /// every file gives: shared ids (by uid, by path, README-style derived ones), links
    /// by path (up a folder, from the root), wiki links by stem and by path, aliased
    /// prefixes, ambiguous and dangling references, `ID@…` references, mentions and a
    /// document whose id holds a `#`; case-sensitive and not.
    #[test]
    fn an_edit_resolves_among_the_wanted_stubs_as_among_all() {
        let files: [(&str, &str); 14] = [
            ("a/README.md", "# A\nSee B-1 and b-2.\n"),
            ("b/README.md", "# B\n"),
            (
                "a/one.md",
                "---\nid: B-1\nuid: 0194aaaa-1\n---\n# One\nParent of [[two]].\n",
            ),
            ("b/one.md", "---\nid: B-1\nuid: 0194bbbb-2\n---\n# One again\n"),
            (
                "c/two.md",
                "---\nid: B-2\nparent: B-1@0194aaaa\nlinks:\n  relates: [task-3, B-9]\n---\n# Two\nSee [one](../a/one.md), [[README]], [[b/one]] and BACK-3.\n",
            ),
            (
                "c/three.md",
                "---\nid: BACK-3\nstate: Done\n---\n# Three\nMentions deep and B-2 and back-3.\n",
            ),
            ("deep.md", "# Approach\nA heading.\n## Approach\nAgain.\n"),
            (
                "x.md",
                "---\nid: deep#approach\n---\ntext, see [root](/deep.md) and [out](../../x.md).\n",
            ),
            ("d/dup.md", "---\nid: D-1\n---\n# Dup\n"),
            ("e/dup.md", "---\nid: D-1\n---\n# Dup\nSee D-1 and [[dup]].\n"),
            (
                "f/Mixed.md",
                "---\nid: Mx-1\n---\n# Mixed\nSee mx-1, MX-1 and [m](Mixed.md).\n",
            ),
            ("f/mixed.md", "---\nid: mx-1\nstate: Obsolete\n---\n# mixed\n"),
            ("g/link me.md", "# Spaces\nBack to [two](../c/two.md?x=1#top).\n"),
            (
                "g/ref.md",
                "# Ref\nSee [s](link%20me.md), [[link me]], [[c/three.md]] and [[nothing]].\n",
            ),
        ];
        for ci in [true, false] {
            let mut s = Settings::default();
            s.ids.case_insensitive = ci;
            s.ids.prefix_aliases.insert("task".into(), "back".into());
            let parse = || -> Vec<ParsedFile> {
                files
                    .iter()
                    .map(|(p, t)| crate::ingest::parse::parse_file(p, "h", t, &s))
                    .collect()
            };
            let (full, mut full_diags) = crate::ingest::resolve::resolve(parse(), &s);
            full_diags.retain(|d| !matches!(d.code, Code::DuplicateId | Code::ParentCycle));
            let mut rows: Vec<Row> = full.nodes.iter().filter(|n| !n.is_chunk()).map(Row::of).collect();
            rows.sort_by(|a, b| a.path.cmp(&b.path));
            let table = DocTable {
                sidecar: String::new(),
                rows,
            };
            for f in parse() {
                let path = f.doc.path.clone();
                let changed = HashSet::from([path.as_str()]);
                let (g, mut diags) = resolve_among(&table, &changed, vec![f], &s);
                diags.sort();
                let json = |n: &Node| serde_json::to_string(n).unwrap();
                let nodes: Vec<String> = full.nodes.iter().filter(|n| n.path == path).map(json).collect();
                let edges: Vec<&Edge> = full.edges.iter().filter(|e| e.path == path).collect();
                let mut want: Vec<&Diagnostic> = full_diags.iter().filter(|d| d.path == path).collect();
                want.sort();
                assert_eq!(g.nodes.iter().map(json).collect::<Vec<_>>(), nodes, "{path} (ci {ci})");
                assert_eq!(g.edges.iter().collect::<Vec<_>>(), edges, "{path} (ci {ci})");
                assert_eq!(diags.iter().collect::<Vec<_>>(), want, "{path} (ci {ci})");
            }
        }
    }

    fn sidecar_of(cfg: &Config) -> String {
        mirror::sidecar_digest(&sidecar::read_meta_head(&cfg.index_dir).unwrap().outputs)
    }

    #[test]
    fn a_stub_resolves_as_its_row_says() {
        let row = Row {
            path: "a/t.md".into(),
            raw: "T-1".into(),
            node: "T-1".into(),
            derived: false,
            state: Some("Done".into()),
            uid: None,
            line: Some(2),
            inline: false,
        };
        let s = Settings::default();
        let st = stub(&row);
        assert_eq!(st.doc.path, "a/t.md");
        let mut doc = st.doc.clone();
        doc.raw_id = Some("T-1".into());
        assert!(same_surface(&row, &doc, &s));
        doc.line = Some(3);
        assert!(!same_surface(&row, &doc, &s), "the id moved");
    }
}
