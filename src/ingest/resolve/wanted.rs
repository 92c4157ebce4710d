//! What an edit's references and mentions can reach: the other documents that
//! `resolve_changed` needs stubs of, a superset found from the changed files alone.

use super::lookup::link_paths;
use crate::config::Settings;
use crate::ingest::parse::{ParsedFile, file_stem};
use crate::model::RefForm;
use crate::text::mentions::mention_candidates;
use std::borrow::Cow;
use std::collections::HashSet;

/// The other documents that some changed files' references and mentions can reach (as
/// the resolver's lookup tables find them), so that `resolve_changed` needs stubs of
/// only these, not of every document: a document is wanted when its id, node id or file
/// stem is a key the files may look up, or its path one a link may lead to, or its node
/// id holds a `#` (a section's id must not take it). A superset: keys are compared
/// lowercase, whatever `ids.case_insensitive` says. Stubs must also hold every document
/// that shares its id with a wanted one or a changed one ([`Wanted::id_group`]), for the
/// node ids the resolver gives them.
#[derive(Debug, Default)]
pub struct Wanted {
    /// Lowercase: ids as written, node ids (`ID@…`) and their id parts, file stems.
    keys: HashSet<String>,
    /// Root-relative paths.
    paths: HashSet<String>,
}

impl Wanted {
    /// What the references and mentions of `files` may look up.
    pub fn of(files: &[ParsedFile], s: &Settings) -> Wanted {
        let aliases: Vec<(String, String)> = s
            .ids
            .prefix_aliases
            .iter()
            .map(|(k, v)| (k.to_lowercase(), v.clone()))
            .collect();
        let prefix: Vec<&str> = s.repo_prefix.split('/').filter(|c| !c.is_empty()).collect();
        let mut w = Wanted::default();
        // A spec folder's file: its items' references and sections too.
        for f in files.iter().flat_map(|f| std::iter::once(f).chain(&f.items)) {
            for r in f.doc.refs.as_deref().unwrap_or_default() {
                if let Some(label) = &r.label {
                    w.id(label, &aliases);
                }
                match r.form {
                    RefForm::Id => w.id(&r.target, &aliases),
                    RefForm::Path => w.paths.extend(link_paths(&r.target, &f.doc.path, &prefix).0),
                    RefForm::Wiki => {
                        // As `Lookup::resolve` tries it: an id, a path, a file stem.
                        let t = r.target.trim_start_matches("./").trim_start_matches('/');
                        w.id(t, &aliases);
                        w.paths.insert(t.to_string());
                        w.paths.insert(format!("{t}.md"));
                        let stem = t.rsplit('/').next().unwrap_or(t);
                        w.keys.insert(stem.strip_suffix(".md").unwrap_or(stem).to_lowercase());
                    }
                }
            }
            for sec in &f.sections {
                for (tok, _) in mention_candidates(&sec.text) {
                    w.id(tok, &aliases);
                }
            }
        }
        w
    }

    /// An id as the resolver looks it up: whole, by its part before `@`, and under an
    /// aliased prefix.
    fn id(&mut self, target: &str, aliases: &[(String, String)]) {
        let lower = target.to_lowercase();
        for (old, new) in aliases {
            if let Some(rest) = lower.strip_prefix(old.as_str()).and_then(|r| r.strip_prefix('-')) {
                self.exact(format!("{new}-{rest}").to_lowercase());
            }
        }
        self.exact(lower);
    }

    fn exact(&mut self, lower: String) {
        if let Some((id, _)) = lower.split_once('@') {
            self.keys.insert(id.to_string());
        }
        self.keys.insert(lower);
    }

    /// Whether the document at `path`, with the id `raw` as written and the node id
    /// `node`, may be reached.
    pub fn wants(&self, path: &str, raw: &str, node: &str) -> bool {
        node.contains('#')
            || self.paths.contains(path)
            || [raw, node, file_stem(path)]
                .into_iter()
                .any(|k| self.keys.contains(lowercase(k).as_ref()))
    }

    /// The key of the documents that share the id `raw` (as written) in the resolver's
    /// grouping of ids, or in more than it: the id, lowercase.
    pub fn id_group(raw: &str) -> Cow<'_, str> {
        lowercase(raw)
    }
}

/// `s` lowercase, borrowed when it already is (plain ASCII without capitals).
fn lowercase(s: &str) -> Cow<'_, str> {
    if s.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(s.to_lowercase())
    }
}
