//! Linking: the steps from parsed files to node ids, edges and the diagnostics of what
//! does not resolve. Ids first (`ids.rs`), then the lookup tables (`lookup.rs`), the
//! edges the references write, the mentions of known ids in section text, and the
//! parent cycles (`cycles.rs`).

use super::cycles::cycle_diagnostics;
use super::ids::{NodeIds, node_ids};
use super::lookup::{Found, Lookup};
use crate::config::Settings;
use crate::ingest::parse::ParsedFile;
use crate::ingest::resolved::FileEdges;
use crate::ingest::spec::{SOFT_KEY, STRUCTURE_KEY};
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::model::{EdgeType, Origin, RawRef, RefForm};
use crate::text::mentions::mention_candidates;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// Node ids, edges and diagnostics for files sorted by path.
pub(super) fn link(files: &[&ParsedFile], s: &Settings) -> (Vec<String>, FileEdges, Vec<Diagnostic>) {
    let NodeIds {
        ids,
        by_raw,
        diagnostics: duplicates,
    } = node_ids(files, s);
    let lookup = Lookup::new(files, &ids, by_raw, s);
    let (mut edges, unresolved) = reference_edges(files, &lookup, &ids);
    let mentions = mention_edges(files, &lookup, &edges);
    edges.extend(mentions);
    let cycles = cycle_diagnostics(files, &edges, &ids);
    let diagnostics = [duplicates, unresolved, cycles].into_iter().flatten().collect();
    (ids, edges, diagnostics)
}

/// The edges the references write (one per source, type and target: the first
/// reference's line), and a diagnostic for each reference that does not resolve to one
/// file. A reference to its own file is dropped, unless it is a `parent` (a cycle).
fn reference_edges(files: &[&ParsedFile], lookup: &Lookup, ids: &[String]) -> (FileEdges, Vec<Diagnostic>) {
    let mut edges: FileEdges = BTreeMap::new();
    let mut diagnostics = Vec::new();
    for (i, f) in files.iter().enumerate() {
        for r in f.doc.refs.as_deref().unwrap_or_default() {
            let t = match lookup.resolve(r, &f.doc.path) {
                Found::One(t) => t,
                Found::Many(cands) => {
                    diagnostics.push(ambiguous(f, r, &cands, ids));
                    cands[0]
                }
                Found::Outside => {
                    diagnostics.push(outside(f, r));
                    continue;
                }
                Found::Elsewhere => continue,
                // A spec folder's file hangs under its feature when there is one.
                Found::None(_) if r.key.as_deref() == Some(STRUCTURE_KEY) && !f.doc.inline => continue,
                Found::None(_) if r.key.as_deref() == Some(SOFT_KEY) => continue,
                Found::None(why) => match by_label(lookup, r) {
                    // "Superseded by [ADR-0028](renamed.md)": the broken link is still
                    // reported, and the typed edge goes to the id its text names.
                    Some(t) => {
                        let why = format!(
                            "{why}; its text `{}` names {}, linked by id",
                            r.label.as_deref().unwrap_or_default(),
                            ids[t]
                        );
                        diagnostics.push(dangling(f, r, &why));
                        t
                    }
                    None => {
                        diagnostics.push(dangling(f, r, &why));
                        continue;
                    }
                },
            };
            if t == i && r.edge != EdgeType::Parent {
                continue;
            }
            let origin = if matches!(r.key.as_deref(), Some(STRUCTURE_KEY | SOFT_KEY)) {
                Origin::Structure
            } else if r.key.is_some() {
                Origin::Frontmatter
            } else {
                Origin::Body
            };
            edges
                .entry((i, r.edge, t))
                .or_insert((origin, r.line, f.doc.path.clone()));
        }
    }
    (edges, diagnostics)
}

/// The one document a typed link's text names as its id, when there is one.
fn by_label(lookup: &Lookup, r: &RawRef) -> Option<usize> {
    match lookup.by_id(r.label.as_deref()?) {
        Found::One(t) => Some(t),
        _ => None,
    }
}

/// A reference that matches several files: the first is used.
fn ambiguous(f: &ParsedFile, r: &RawRef, cands: &[usize], ids: &[String]) -> Diagnostic {
    let names: Vec<&str> = cands.iter().map(|&c| ids[c].as_str()).collect();
    Diagnostic::new(
        &f.doc.path,
        r.line,
        Severity::Warning,
        Code::AmbiguousReference,
        format!(
            "`{}` matches {} files ({}); using the first. Write `ID@` and a part of its path (or its uid) to choose",
            r.target,
            cands.len(),
            names.join(", ")
        ),
    )
    .about(&r.target)
}

/// A Markdown link that leads outside the repository (or the root, when the root is the
/// repository).
fn outside(f: &ParsedFile, r: &RawRef) -> Diagnostic {
    Diagnostic::new(
        &f.doc.path,
        r.line,
        Severity::Warning,
        Code::LinkOutsideRoot,
        format!("link `{}` leads outside the root; ignored", r.target),
    )
    .about(&r.target)
}

/// A reference that finds no file, `why`: an error for an id, a warning for a link.
fn dangling(f: &ParsedFile, r: &RawRef, why: &str) -> Diagnostic {
    let (sev, code) = match r.form {
        RefForm::Id => (Severity::Error, Code::DanglingReference),
        _ => (Severity::Warning, Code::BrokenLink),
    };
    let what = match &r.key {
        Some(k) if k == STRUCTURE_KEY => "cites".to_string(),
        Some(k) => format!("`{k}` refers to"),
        None => "link to".to_string(),
    };
    Diagnostic::new(&f.doc.path, r.line, sev, code, format!("{what} `{}`, {why}", r.target)).about(&r.target)
}

/// `mentions` edges: known ids written in section text, at the first line each file
/// mentions each other file, unless a reference already links the two.
fn mention_edges(files: &[&ParsedFile], lookup: &Lookup, linked: &FileEdges) -> FileEdges {
    let linked: BTreeSet<(usize, usize)> = linked.keys().map(|&(a, _, b)| (a, b)).collect();
    let found: Vec<Vec<(usize, usize, u32)>> = files
        .par_iter()
        .enumerate()
        .map(|(i, f)| {
            let mut buf = String::new();
            let mut hits = Vec::new();
            for sec in &f.sections {
                for (tok, line_off) in mention_candidates(&sec.text) {
                    if let Some(t) = lookup.mention(tok, &mut buf)
                        && t != i
                        && !linked.contains(&(i, t))
                    {
                        hits.push((i, t, sec.text_line + line_off));
                    }
                }
            }
            hits
        })
        .collect();
    let mut mentions: BTreeMap<(usize, usize), u32> = BTreeMap::new();
    for (a, b, line) in found.into_iter().flatten() {
        mentions.entry((a, b)).or_insert(line);
    }
    mentions
        .into_iter()
        .map(|((a, b), line)| {
            (
                (a, EdgeType::Mentions, b),
                (Origin::Body, line, files[a].doc.path.clone()),
            )
        })
        .collect()
}
