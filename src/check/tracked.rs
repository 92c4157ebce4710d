//! Which staged files the scan of a fresh clone takes, judged from git's index alone: a
//! Markdown name under the root that the include and exclude globs take, no hidden
//! folder or file (`.kiro/` aside, as the walk has it), and not ignored by an ignore file
//! that is staged (`.gitignore`, `.ignore`; a deeper one first, `.ignore` before
//! `.gitignore` in one folder, as the walk reads them). An untracked ignore file,
//! `.git/info/exclude`, a global excludes file or a `.gitignore` above the repository
//! changes nothing here: a fresh clone has none of them.

use crate::check::git::{Staged, blobs, candidates};
use crate::error::Error;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The staged rules, and what the scan takes by name.
pub(crate) struct Tracked {
    /// The top of the working tree.
    top: PathBuf,
    /// The root, top-relative, with a trailing `/` ("" for the top).
    root: String,
    /// (the folder, top-relative with a trailing `/`, its rules): deepest first.
    rules: Vec<(String, Gitignore)>,
    /// A root-relative path the scan takes by its name.
    candidate: Box<dyn Fn(&str) -> bool>,
}

impl Tracked {
    /// The rules of the ignore files in `staged` (their staged content: the working
    /// tree's when git says it is the same, else the blob).
    pub(crate) fn new(
        top: &Path,
        root: &str,
        scan: &crate::config::ScanSettings,
        staged: &BTreeMap<String, Staged>,
        differ: &BTreeSet<String>,
    ) -> Result<Tracked, Error> {
        let name_of = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
        let files: Vec<(&String, &Staged)> = staged
            .iter()
            .filter(|(p, e)| matches!(name_of(p).as_str(), ".gitignore" | ".ignore") && e.mode.starts_with("100"))
            .collect();
        let ids: BTreeSet<&str> = files
            .iter()
            .filter(|(p, _)| differ.contains(*p))
            .map(|(_, e)| e.blob.as_str())
            .collect();
        let contents = blobs(top, &ids)?;
        let mut rules: Vec<(usize, bool, String, Gitignore)> = Vec::new();
        for (path, entry) in files {
            let bytes = match differ.contains(path) {
                true => contents.get(&entry.blob).cloned(),
                false => std::fs::read(top.join(path)).ok(),
            };
            let Some(bytes) = bytes else { continue };
            let folder = path.rsplit_once('/').map(|(d, _)| format!("{d}/")).unwrap_or_default();
            let mut b = GitignoreBuilder::new(top.join(&folder));
            for line in String::from_utf8_lossy(&bytes).lines() {
                let _ = b.add_line(None, line);
            }
            if let Ok(gi) = b.build() {
                let depth = folder.matches('/').count();
                rules.push((depth, name_of(path) == ".gitignore", folder, gi));
            }
        }
        // Deepest first; in one folder `.ignore` (false) before `.gitignore`.
        rules.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        Ok(Tracked {
            top: top.to_path_buf(),
            root: root.to_string(),
            rules: rules.into_iter().map(|(_, _, f, g)| (f, g)).collect(),
            candidate: Box::new(candidates(scan)),
        })
    }

    /// Whether any staged ignore file has a rule.
    pub(crate) fn has_rules(&self) -> bool {
        self.rules.iter().any(|(_, g)| g.num_ignores() + g.num_whitelists() > 0)
    }

    /// Whether a staged ignore file ignores the top-relative `path`.
    pub(crate) fn ignored(&self, path: &str) -> bool {
        for (folder, gi) in &self.rules {
            if !path.starts_with(folder.as_str()) {
                continue;
            }
            let m = gi.matched_path_or_any_parents(self.top.join(path), false);
            if m.is_ignore() {
                return true;
            }
            if m.is_whitelist() {
                return false;
            }
        }
        false
    }

    /// Whether the scan of a fresh clone takes the staged file at top-relative `path`.
    pub(crate) fn takes(&self, path: &str) -> bool {
        let Some(rel) = path.strip_prefix(self.root.as_str()) else {
            return false;
        };
        let hidden = crate::config::walk::hidden_path_left_out(rel);
        !hidden && (self.candidate)(rel) && !self.ignored(path)
    }
}
