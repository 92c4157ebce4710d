//! The one walk: which folders under a backlog root hold the backlog. The scan, `init`,
//! the stat cache's folder listing and the watcher behind `mcp` and `index --watch` all
//! take their rules from here, so they cannot disagree about a folder (a watcher that
//! walked without `.kiro/` once served stale answers after a tick in a Kiro plan).
//!
//! The rules: ignore files honoured (`.gitignore`, `.ignore`, git's excludes; in a git
//! repository none above its top), entries in
//! name order, no symlink followed, hidden names left out but for the spec folders agents
//! write ([`HIDDEN_TAKEN`]), no folder that is a repository of its own (a submodule), and
//! never the index folder.

use std::path::{Path, PathBuf};

/// Hidden folders the walk enters: Kiro keeps its specs in `.kiro/specs/`.
pub const HIDDEN_TAKEN: &[&str] = &[".kiro"];

/// Hidden folders the walk enters for one folder of theirs: Spec Kit's constitution,
/// `.specify/memory/constitution.md`, which every plan's Constitution Check cites (its
/// templates and scripts beside it are the tool's, not the backlog).
pub const HIDDEN_PART_TAKEN: &[(&str, &str)] = &[(".specify", "memory")];

/// Whether the walk leaves out an entry named `name` below the root for being hidden.
pub fn hidden_left_out(name: &str) -> bool {
    name.starts_with('.') && !HIDDEN_TAKEN.contains(&name) && !HIDDEN_PART_TAKEN.iter().any(|(d, _)| *d == name)
}

/// Whether the walk leaves out the entry at root-relative `rel` (with `/`) for being
/// hidden or in a hidden folder: [`hidden_left_out`] of each of its names, and inside a
/// folder of [`HIDDEN_PART_TAKEN`], everything but its one folder.
pub fn hidden_path_left_out(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    parts.iter().enumerate().any(|(i, name)| {
        if hidden_left_out(name) {
            return true;
        }
        match HIDDEN_PART_TAKEN.iter().find(|(d, _)| d == name) {
            Some((_, part)) => parts.get(i + 1).is_some_and(|next| next != part),
            None => false,
        }
    })
}

/// Whether `dir`, a folder below the root, is a repository of its own (it holds `.git`):
/// git does not track its files here, so neither does the backlog.
pub fn own_repository(dir: &Path) -> bool {
    dir.join(".git").exists()
}

/// The walk of `root` with the rules above; `index_abs` is the canonical path of the
/// index folder (left out with everything in it). Callers may narrow it further (a depth
/// limit) before building it.
pub fn builder(root: &Path, index_abs: Option<PathBuf>) -> ignore::WalkBuilder {
    let mut b = ignore::WalkBuilder::new(root);
    let root_dir = root.to_path_buf();
    // In a git repository the ignore files stop at its top, as git's do: a `.gitignore`
    // above the repository is no rule of it (a `*.md` there emptied the backlog).
    // Outside one (a `git archive` extract, a plain folder) they are read all the way up.
    let in_git = crate::text::path::absolute(root)
        .ancestors()
        .any(|d| d.join(".git").exists());
    b.follow_links(false)
        .require_git(in_git)
        .sort_by_file_name(|a, b| a.cmp(b))
        .hidden(false)
        .filter_entry(move |e| {
            if e.depth() == 0 {
                return true;
            }
            let rel = e
                .path()
                .strip_prefix(&root_dir)
                .map(|p| p.to_string_lossy().replace('\\', "/"));
            if hidden_left_out(&e.file_name().to_string_lossy()) || rel.is_ok_and(|r| hidden_path_left_out(&r)) {
                return false;
            }
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            if is_dir && own_repository(e.path()) {
                return false;
            }
            match (&index_abs, is_dir) {
                (Some(ix), true) => e.path().canonicalize().map(|p| &p != ix).unwrap_or(true),
                _ => true,
            }
        });
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walked(root: &Path, index: Option<PathBuf>) -> Vec<String> {
        builder(root, index)
            .build()
            .flatten()
            .filter(|e| e.depth() > 0)
            .map(|e| crate::text::path::rel_of(root, e.path()))
            .collect()
    }

    #[test]
    fn takes_kiro_leaves_other_hidden_folders_submodules_and_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in [
            ".kiro/specs/login",
            ".github",
            "vendor/lib/.git",
            "_index",
            "docs",
            ".specify/memory",
            ".specify/templates",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for f in [
            ".kiro/specs/login/tasks.md",
            ".specify/memory/constitution.md",
            ".specify/templates/spec-template.md",
            ".github/x.md",
            "vendor/lib/a.md",
            "_index/n.md",
            "docs/a.md",
        ] {
            std::fs::write(root.join(f), "# x\n").unwrap();
        }
        let index = root.join("_index").canonicalize().ok();
        assert_eq!(
            walked(root, index),
            [
                ".kiro",
                ".kiro/specs",
                ".kiro/specs/login",
                ".kiro/specs/login/tasks.md",
                ".specify",
                ".specify/memory",
                ".specify/memory/constitution.md",
                "docs",
                "docs/a.md",
                "vendor"
            ]
        );
    }
}
