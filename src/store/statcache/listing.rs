//! A walked folder whose stamp changed, listed: does it still hold only what the walk
//! took from it (a save by rename changes the folder, not the tree)?

use super::Tree;
use super::format::{Line, parse_line};
use crate::config::ScanSettings;
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::Path;

/// Whether the folders `restamped` (walked, their stamps changed since the cache was
/// written) hold nothing the walk would take but what the cache holds: each entry is a
/// cached file, a walked folder, the index folder, or something the walk leaves out (a
/// hidden name, a file the `[scan]` globs do not take, an ignore file already watched).
/// Anything else, or a folder that cannot be listed, is a change of the tree. A cached
/// file that is gone is seen by its own stat. Entries the ignore files leave out (a
/// `node_modules/`, a git-ignored `.md`) cannot be told from new ones: they count as
/// changes.
pub(super) fn same_entries(
    restamped: &[&str],
    tree: &Tree<'_>,
    root: &Path,
    index_dir: &Path,
    watched: &HashSet<&Path>,
    scan: &ScanSettings,
) -> bool {
    let folders: HashSet<&str> = restamped.iter().copied().collect();
    let cached: HashSet<&str> = tree
        .files
        .lines()
        .filter_map(|l| match parse_line(l) {
            Some(Line::File(path, ..)) => Some(path),
            _ => None,
        })
        .filter(|p| folders.contains(p.rsplit_once('/').map_or("", |(d, _)| d)))
        .collect();
    let filter = scan.filter();
    let index_abs = index_dir.canonicalize().ok();
    let kept = |dir: &str, entry: std::fs::DirEntry| -> Option<bool> {
        let name = entry.file_name().into_string().ok()?;
        let rel = if dir.is_empty() {
            name.clone()
        } else {
            format!("{dir}/{name}")
        };
        if crate::config::walk::hidden_left_out(&name) || crate::config::walk::hidden_path_left_out(&rel) {
            return Some(match name.as_str() {
                ".gitignore" | ".ignore" => watched.contains(root.join(&rel).as_path()),
                // A folder below the root holding `.git` is a repository of its own,
                // which the walk does not enter.
                ".git" => dir.is_empty(),
                _ => true,
            });
        }
        if entry.file_type().ok()?.is_dir() {
            let index = index_abs.is_some() && entry.path().canonicalize().ok() == index_abs;
            return Some(tree.walked.contains(rel.as_str()) || index);
        }
        Some(cached.contains(rel.as_str()) || !filter.takes(&rel))
    };
    restamped.par_iter().all(|dir| {
        std::fs::read_dir(root.join(dir)).is_ok_and(|entries| {
            entries
                .into_iter()
                .all(|e| e.ok().and_then(|e| kept(dir, e)) == Some(true))
        })
    })
}
