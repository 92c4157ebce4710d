//! Node ids: every document gets a unique one. A declared id shared by several files is
//! an error, and each of them becomes `ID@uid` or `ID@path`; an id taken from a file name
//! (README.md in every folder) steps aside without complaint.

use crate::config::Settings;
use crate::ingest::parse::ParsedFile;
use crate::model::diag::{Code, Diagnostic, Severity};
use std::collections::{BTreeSet, HashMap};

/// The node ids of files sorted by path, and how ids as written find them.
pub(super) struct NodeIds {
    /// Per file, its node id.
    pub ids: Vec<String>,
    /// An id as written ([`norm`]) → the files it resolves to: those that claim it, or
    /// those whose names give it when none claims it.
    pub by_raw: HashMap<String, Vec<usize>>,
    /// One `duplicate-id` error per file that claims a shared id.
    pub diagnostics: Vec<Diagnostic>,
}

/// An id as the resolver compares it: lowercase when `ids.case_insensitive` says so.
pub(super) fn norm(ci: bool, x: &str) -> String {
    if ci { x.to_lowercase() } else { x.to_string() }
}

/// The id as written in the file (or taken from its name).
pub(super) fn raw_id(f: &ParsedFile) -> &str {
    f.doc.raw_id.as_deref().unwrap_or(&f.doc.id)
}

/// Unique node ids for `files` (sorted by path).
pub(super) fn node_ids(files: &[&ParsedFile], s: &Settings) -> NodeIds {
    let ci = s.ids.case_insensitive;
    let mut diagnostics = Vec::new();
    let mut by_raw: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        by_raw.entry(norm(ci, raw_id(f))).or_default().push(i);
    }
    let mut ids: Vec<String> = files.iter().map(|f| raw_id(f).to_string()).collect();
    // A document claims its id when it declares it and its state does not yield.
    let yields = |f: &ParsedFile| {
        f.doc
            .state
            .as_deref()
            .is_some_and(|st| s.ids.yield_states.iter().any(|y| y.eq_ignore_ascii_case(st)))
    };
    let explicit = |f: &ParsedFile| !f.doc.id_derived && !yields(f);
    for group in by_raw.values().filter(|g| g.len() > 1) {
        // Files that declare the id claim it; files whose id only comes from their name
        // (README.md in every folder) step aside to `name@path` without complaint.
        let (claimed, derived): (Vec<usize>, Vec<usize>) = group.iter().partition(|&&i| explicit(files[i]));
        for &i in &derived {
            ids[i] = format!("{}@{}", raw_id(files[i]), files[i].doc.path);
        }
        let members: Vec<_> = group
            .iter()
            .map(|&i| {
                (
                    files[i].doc.path.as_str(),
                    raw_id(files[i]),
                    ids[i].as_str(),
                    files[i].doc.id_derived,
                )
            })
            .collect();
        diagnostics.extend(crate::ingest::adr::number_clash(&members));
        if claimed.len() >= 2 {
            diagnostics.extend(claim_shared_id(files, &claimed, &mut ids));
        }
    }
    // A raw id resolves to the files that claim it; name-derived ids only when unclaimed.
    for group in by_raw.values_mut() {
        if group.len() > 1 && group.iter().any(|&i| explicit(files[i])) {
            group.retain(|&i| explicit(files[i]));
        }
    }
    NodeIds {
        ids,
        by_raw,
        diagnostics,
    }
}

/// Node ids for the files that all claim one id (`claimed`, two or more): `ID@` and the
/// first 8 characters of their uids when those tell them apart, else `ID@path`. Returns
/// the `duplicate-id` error of each.
fn claim_shared_id(files: &[&ParsedFile], claimed: &[usize], ids: &mut [String]) -> Vec<Diagnostic> {
    let prefixes: Vec<Option<String>> = claimed
        .iter()
        .map(|&i| files[i].doc.uid.as_ref().map(|u| u.chars().take(8).collect()))
        .collect();
    let unique_uids =
        prefixes.iter().all(Option::is_some) && prefixes.iter().collect::<BTreeSet<_>>().len() == prefixes.len();
    let mut diagnostics = Vec::with_capacity(claimed.len());
    for (n, &i) in claimed.iter().enumerate() {
        let f = files[i];
        let raw = raw_id(f);
        ids[i] = match (&prefixes[n], unique_uids) {
            (Some(p), true) => format!("{raw}@{p}"),
            // Items of one file share its path: their line tells them apart.
            _ if f.doc.inline => format!("{raw}@{}:{}", f.doc.path, f.doc.line.unwrap_or(0)),
            _ => format!("{raw}@{}", f.doc.path),
        };
        let others: Vec<&str> = claimed
            .iter()
            .filter(|&&j| j != i)
            .map(|&j| files[j].doc.path.as_str())
            .collect();
        diagnostics.push(
            Diagnostic::new(
                &f.doc.path,
                f.doc.line.unwrap_or(1),
                Severity::Error,
                Code::DuplicateId,
                format!(
                    "id `{raw}` is also declared by {}; this file is node `{}`",
                    others.join(", "),
                    ids[i]
                ),
            )
            .about(raw),
        );
    }
    diagnostics
}
