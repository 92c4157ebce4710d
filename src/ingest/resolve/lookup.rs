//! Looking references up: an id, a node id (`ID@uid`, `ID@path`), an id under an aliased
//! prefix, a Markdown link's path (from the file, then from the repository root) or a
//! wikilink's id, path or file name, each to the file it names.

use super::ids::norm;
use crate::config::Settings;
use crate::ingest::markdown::percent_decode;
use crate::ingest::parse::{ParsedFile, file_stem};
use crate::model::{RawRef, RefForm};
use std::collections::HashMap;

/// The root-relative paths a Markdown link `target` written in the file `from` may lead
/// to, in the order they are tried ([`Lookup::link`]), and whether the link read as
/// written (from the file, or from the top for `/`) stays inside the root: a missing file
/// inside the root is a broken link, one outside is outside (or elsewhere in the
/// repository: [`Lookup::link`]).
pub(super) fn link_paths(target: &str, from: &str, prefix: &[&str]) -> (Vec<String>, Where) {
    let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
    let from_file = (!target.starts_with('/'))
        .then(|| join_link(prefix.iter().copied().chain(dir.split('/')), target))
        .flatten();
    let from_repo = join_link(std::iter::empty(), target);
    let from_root = join_link(std::iter::empty(), target);
    // Repository paths to root-relative ones (None: outside the root).
    let in_root = |p: &str| -> Option<String> {
        let mut rest = p;
        for c in prefix {
            rest = rest.strip_prefix(c)?;
            rest = match rest {
                "" => return None,
                r => r.strip_prefix('/')?,
            };
        }
        Some(rest.to_string())
    };
    let tried: Vec<String> = [
        from_file.as_deref().and_then(in_root),
        from_repo.as_deref().and_then(in_root),
        from_root.filter(|_| !prefix.is_empty()),
    ]
    .into_iter()
    .flatten()
    .filter(|p| !p.is_empty())
    .collect();
    let written = if target.starts_with('/') { from_repo } else { from_file };
    let inside = written.as_deref().and_then(in_root).is_some_and(|p| !p.is_empty());
    // The scan skips hidden folders (`.claude/skills/x.md`): never a file of the index.
    // Spec Kit's constitution (`.specify/memory/`) is one.
    let hidden = |p: &str| {
        let constitution = p.trim_start_matches("./").starts_with(".specify/memory/");
        p.split('/').any(|c| c.starts_with('.')) && !constitution
    };
    let place = match (inside, written) {
        (_, Some(p)) if hidden(&p) => Where::Repository,
        (true, _) => Where::Root,
        // A file of the repository beside the root (`../src/main.rs` from `backlog/`).
        (false, Some(_)) if !prefix.is_empty() => Where::Repository,
        _ => Where::Outside,
    };
    (tried, place)
}

/// Where a Markdown link read as written leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Where {
    /// Inside the root.
    Root,
    /// Inside the repository where the index does not look (beside the root, or in a
    /// hidden folder): not the index's to check.
    Repository,
    /// Above the repository (or above the root, when the root is the repository).
    Outside,
}

/// Join a Markdown link target (`%XX` decoded, `?query` dropped) onto the folder `base`
/// (`/`-separated components); None when it climbs above `base`'s top. A target starting
/// with `/` starts at the top instead of at `base`.
fn join_link<'a>(base: impl IntoIterator<Item = &'a str>, target: &str) -> Option<String> {
    let target = percent_decode(target.split('?').next().unwrap_or(""));
    let mut parts: Vec<String> = Vec::new();
    if !target.starts_with('/') {
        parts.extend(base.into_iter().filter(|c| !c.is_empty()).map(str::to_string));
    }
    for c in target.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other.to_string()),
        }
    }
    Some(parts.join("/"))
}

/// What a reference finds.
pub(super) enum Found {
    One(usize),
    Many(Vec<usize>),
    None(String),
    /// A Markdown link that leads outside the repository wherever it is read from.
    Outside,
    /// A Markdown link to a file of the repository outside the root: no edge, and no
    /// diagnostic (the root is what is indexed and checked).
    Elsewhere,
}

/// The tables references are looked up in, over files sorted by path.
pub(super) struct Lookup<'a> {
    files: &'a [&'a ParsedFile],
    /// An id as written → the files it resolves to (from the ids step).
    by_raw: HashMap<String, Vec<usize>>,
    by_node_id: HashMap<String, usize>,
    by_path: HashMap<&'a str, usize>,
    by_stem: HashMap<String, Vec<usize>>,
    ci: bool,
    /// The root's folders below the repository root ([`Settings::repo_prefix`]).
    repo_prefix: Vec<&'a str>,
    /// Lowercase old prefix → new prefix (without the `-`).
    aliases: Vec<(String, String)>,
}

impl<'a> Lookup<'a> {
    /// The tables for `files`, sorted by path, under the node ids `ids` the ids step gave
    /// them, with its table of ids as written, `by_raw`.
    pub(super) fn new(
        files: &'a [&'a ParsedFile],
        ids: &[String],
        by_raw: HashMap<String, Vec<usize>>,
        s: &'a Settings,
    ) -> Lookup<'a> {
        let ci = s.ids.case_insensitive;
        let mut by_node_id: HashMap<String, usize> = HashMap::new();
        let mut by_path: HashMap<&str, usize> = HashMap::new();
        let mut by_stem: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, f) in files.iter().enumerate() {
            by_node_id.insert(norm(ci, &ids[i]), i);
            // A path or a file name leads to the file's own document, not an item in it.
            if !f.doc.inline {
                by_path.insert(f.doc.path.as_str(), i);
                by_stem.entry(norm(ci, file_stem(&f.doc.path))).or_default().push(i);
            }
        }
        Lookup {
            files,
            by_raw,
            by_node_id,
            by_path,
            by_stem,
            ci,
            repo_prefix: s.repo_prefix.split('/').filter(|c| !c.is_empty()).collect(),
            aliases: s
                .ids
                .prefix_aliases
                .iter()
                .map(|(k, v)| (k.to_lowercase(), v.clone()))
                .collect(),
        }
    }

    fn norm(&self, x: &str) -> String {
        norm(self.ci, x)
    }

    /// Resolve `r`, written in the file at root-relative path `from`.
    pub(super) fn resolve(&self, r: &RawRef, from: &str) -> Found {
        match r.form {
            RefForm::Id => self.by_id(&r.target),
            RefForm::Path => self.link(&r.target, from),
            RefForm::Wiki => {
                let t = r.target.trim_start_matches("./").trim_start_matches('/');
                if let Found::One(i) = self.by_id(t) {
                    return Found::One(i);
                }
                for p in [t.to_string(), format!("{t}.md")] {
                    if let Some(&i) = self.by_path.get(p.as_str()) {
                        return Found::One(i);
                    }
                }
                let stem = t.rsplit('/').next().unwrap_or(t);
                let stem = stem.strip_suffix(".md").unwrap_or(stem);
                match self.by_stem.get(&self.norm(stem)).map(Vec::as_slice) {
                    Some([i]) => Found::One(*i),
                    Some(many) if many.len() > 1 => Found::Many(many.to_vec()),
                    _ => match self.by_id(t) {
                        Found::Many(m) => Found::Many(m),
                        _ => Found::None("no file has that id, path or name".into()),
                    },
                }
            }
        }
    }

    /// A Markdown link from `from`: relative to the linking file, then to the repository
    /// root, then to the root; a target starting with `/` from the repository root, then
    /// the root. Paths are joined in the repository (so `../backlog/x.md` from the root's
    /// top folder comes back in) and must end inside the root.
    fn link(&self, target: &str, from: &str) -> Found {
        let (tried, place) = link_paths(target, from, &self.repo_prefix);
        if let Some(&i) = tried.iter().find_map(|p| self.by_path.get(p.as_str())) {
            return Found::One(i);
        }
        match place {
            Where::Root => {}
            Where::Repository => return Found::Elsewhere,
            Where::Outside => return Found::Outside,
        }
        let mut names: Vec<String> = Vec::new();
        for p in tried {
            if !names.contains(&p) {
                names.push(p);
            }
        }
        let names: Vec<String> = names.iter().map(|p| format!("`{p}`")).collect();
        Found::None(format!("no such file under the root (tried {})", names.join(", ")))
    }

    /// An id, a node id (`ID@uid…`, `ID@path`) or `ID@fragment` (a uid prefix or a
    /// part of the path); or the same id under an aliased prefix (`task-12` → `back-12`).
    pub(super) fn by_id(&self, target: &str) -> Found {
        let found = self.by_id_exact(target);
        if !matches!(found, Found::None(_)) {
            return found;
        }
        let lower = target.to_lowercase();
        for (old, new) in &self.aliases {
            if let Some(rest) = lower.strip_prefix(old.as_str()).and_then(|r| r.strip_prefix('-')) {
                let renamed = self.by_id_exact(&format!("{new}-{rest}"));
                if !matches!(renamed, Found::None(_)) {
                    return renamed;
                }
            }
        }
        found
    }

    fn by_id_exact(&self, target: &str) -> Found {
        if let Some(&i) = self.by_node_id.get(&self.norm(target)) {
            // A unique raw id or an exact disambiguated node id.
            if self.by_raw.get(&self.norm(target)).is_none_or(|g| g.len() == 1) {
                return Found::One(i);
            }
        }
        let (id, uid) = match target.split_once('@') {
            Some((a, b)) => (a, Some(b)),
            None => (target, None),
        };
        let Some(cands) = self.by_raw.get(&self.norm(id)) else {
            return Found::None("no file has that id".into());
        };
        match uid {
            None if cands.len() == 1 => Found::One(cands[0]),
            None => Found::Many(cands.clone()),
            Some(u) => {
                let u = u.to_lowercase();
                let hits: Vec<usize> = cands
                    .iter()
                    .copied()
                    .filter(|&c| {
                        let doc = &self.files[c].doc;
                        doc.uid.as_ref().is_some_and(|x| x.to_lowercase().starts_with(&u))
                            || doc.path.to_lowercase().contains(&u)
                    })
                    .collect();
                match hits.as_slice() {
                    [one] => Found::One(*one),
                    [] => Found::None(format!(
                        "no file with id `{id}` has a uid starting with `{u}` or a path containing it"
                    )),
                    _ => Found::Many(hits),
                }
            }
        }
    }

    /// A bare mention resolves only to a unique id (never to paths or names). `buf` is
    /// scratch space so the hot loop does not allocate per token.
    pub(super) fn mention(&self, tok: &str, buf: &mut String) -> Option<usize> {
        if tok.contains('@') {
            return match self.by_id(tok) {
                Found::One(i) => Some(i),
                _ => None,
            };
        }
        let key = if self.ci {
            buf.clear();
            buf.extend(tok.chars().flat_map(char::to_lowercase));
            buf.as_str()
        } else {
            tok
        };
        match self.by_raw.get(key).map(Vec::as_slice) {
            Some([one]) => Some(*one),
            Some(_) => None,
            // An aliased prefix (rare path: only tokens that are not ids).
            None if !self.aliases.is_empty() => match self.by_id(tok) {
                Found::One(i) => Some(i),
                _ => None,
            },
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_join() {
        let dir = |rel: &'static str| rel.rsplit_once('/').map_or("", |(d, _)| d).split('/');
        assert_eq!(
            join_link(dir("items/task/0000/a.md"), "../../../decisions/ADR-1.md").as_deref(),
            Some("decisions/ADR-1.md")
        );
        assert_eq!(join_link(dir("items/a.md"), "b.md").as_deref(), Some("items/b.md"));
        assert_eq!(join_link(dir("items/a.md"), "/x/y.md").as_deref(), Some("x/y.md"));
        assert_eq!(join_link(dir("a.md"), "../../etc/passwd.md"), None);
        assert_eq!(
            join_link(dir("a.md"), "my%20file.md?v=2").as_deref(),
            Some("my file.md")
        );
    }
}
