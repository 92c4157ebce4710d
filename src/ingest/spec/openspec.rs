//! OpenSpec (Fission-AI/OpenSpec, 0.x `openspec/project.md` and 1.x
//! `openspec/config.yaml`): where a file sits, and what its folder makes of it.
//!
//! - A change, `openspec/changes/<id>/`, is a feature: `proposal.md` stands for it (id
//!   `<id>`, type Feature), `design.md` and `tasks.md` hang under it (`<id>/design`,
//!   `<id>/tasks`), and so does each delta spec `specs/<capability>/spec.md`
//!   (`<id>/specs/<capability>`). An archived change, `changes/archive/YYYY-MM-DD-<id>/`,
//!   keeps its id `<id>` and is done.
//! - A capability, `openspec/specs/<capability>/spec.md`, is a document `specs/<capability>`
//!   whose requirements are items (`items/openspec.rs`).
//!
//! An archived change's ids (its documents' and items') yield: a change archived twice, or
//! archived under the name of a change in progress, steps aside to `ID@path` as files
//! named alike do, never a duplicate; and each reference inside a change names the file
//! it means (`ID@openspec/changes/<folder>/tasks.md`), so that it finds its own change's
//! item whatever else shares the id.

pub use super::items::openspec::Part;
use super::items::{Item, openspec as scan};
use super::{Format, STRUCTURE_KEY, Scope};
use crate::ingest::markdown::Section;
use crate::model::{EdgeType, Node, RawRef, RefForm};
use std::collections::BTreeSet;

/// The key of a reference a spec folder's history makes (an archived OpenSpec change's
/// requirement to the one in `specs/` now): a `structure` edge when its target is there,
/// nothing without complaint when it is not (renamed or removed since).
pub const SOFT_KEY: &str = "(spec history)";

/// A reference the folder's structure makes.
fn structure(edge: EdgeType, target: String, line: u32, key: &str) -> RawRef {
    RawRef {
        edge,
        target,
        form: RefForm::Id,
        line,
        key: Some(key.to_string()),
        label: None,
    }
}

/// The innermost `openspec/changes` or `openspec/specs` of a path's parts (without
/// `.md`): `Some(scope)` for a file of a change or a capability, `Some(None)` for another
/// file there (`openspec/changes/IMPLEMENTATION_ORDER.md`, never a Spec Kit feature),
/// none outside.
pub(super) fn scope_of(parts: &[&str]) -> Option<Option<Scope>> {
    let i = parts
        .windows(2)
        .rposition(|w| w[0] == "openspec" && matches!(w[1], "changes" | "specs"))?;
    let named = |s: &&str| super::is_name(s);
    let scope = |part, name: String, file: &[&str]| Scope {
        format: Format::OpenSpec(part),
        name,
        file: file.join("/"),
    };
    Some(match &parts[i + 1..] {
        ["specs", cap @ .., file] if !cap.is_empty() && cap.iter().all(named) => {
            Some(scope(Part::Capability, format!("specs/{}", cap.join("/")), &[file]))
        }
        ["changes", "archive", dated, file @ ..] if !file.is_empty() && named(dated) => {
            Some(scope(Part::Archived, undated(dated).to_string(), file))
        }
        ["changes", id, file @ ..] if !file.is_empty() && *id != "archive" && named(id) => {
            Some(scope(Part::Change, id.to_string(), file))
        }
        _ => None,
    })
}

/// `2025-01-11-add-update-command` → `add-update-command`: the archive's date prefix.
fn undated(folder: &str) -> &str {
    let b = folder.as_bytes();
    let dated = b.len() > 11
        && b[..10].iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
        && b[10] == b'-';
    if dated { &folder[11..] } else { folder }
}

/// The id of a change's or capability's other file: a delta spec is the capability it
/// changes under the change (`add-2fa/specs/user-auth`, as the capability is
/// `specs/user-auth`), any other file `<scope>/<file>`.
pub(super) fn doc_id(scope: &Scope) -> String {
    match scope.file.strip_suffix("/spec").filter(|f| f.starts_with("specs/")) {
        Some(delta) => scope.id(delta),
        None => scope.id(&scope.file),
    }
}

/// The folder of the change a file at `path` is in, with its slash
/// (`openspec/changes/archive/2025-01-11-add-update-command/`).
fn change_folder(path: &str) -> Option<&str> {
    let at = path.rfind("openspec/changes/")? + "openspec/changes/".len();
    let rest = &path[at..];
    let skip = if rest.starts_with("archive/") {
        "archive/".len()
    } else {
        0
    };
    let end = rest[skip..].find('/')? + skip + 1;
    Some(&path[..at + end])
}

/// What the folder makes of `doc`, a file in OpenSpec `scope` whose body starts at
/// `body_line` (its id and type are set): an archived change is done; a change's other
/// files hang under it, a capability's under its spec; and its items.
/// `item_node` makes an item a document of the file (`shape.rs`).
pub(super) fn shape(
    doc: &mut Node,
    scope: &Scope,
    part: Part,
    (body, body_line): (&str, u32),
    item_node: impl Fn(&Node, &str, &Scope, Item) -> (Node, Section),
) -> Vec<(Node, Section)> {
    let change = part != Part::Capability;
    let archived = part == Part::Archived;
    if archived && scope.is_feature_file() && doc.state.is_none() {
        doc.state = Some("done".to_string());
    }
    // An archived change yields its ids to a change of its name in progress, and to one
    // archived at another date: its documents and items step aside, never duplicates.
    if change {
        doc.id_derived = archived;
    }
    // References name the file they mean (`ID@path`, a part of its path), so that they
    // find their own change's documents whatever else shares an id.
    let proposal = change_folder(&doc.path)
        .filter(|_| change)
        .map(|f| format!("{}@{f}{}.md", scope.name, part.feature_file()));
    let refs = doc.refs.get_or_insert_with(Vec::new);
    if !scope.is_feature_file() && !refs.iter().any(|r| r.edge == EdgeType::Parent) {
        let parent = proposal.unwrap_or_else(|| scope.name.clone());
        refs.push(structure(EdgeType::Parent, parent, 1, STRUCTURE_KEY));
    }
    // A proposal opens with the template's `## Why`, a delta spec with `## ADDED
    // Requirements`: the change's name, the capability's, say more.
    let generic = ["why", "what changes", "purpose"];
    let untitled = doc.title.as_deref().is_none_or(|t| {
        let t = t.trim().to_lowercase();
        generic.contains(&t.as_str()) || t.ends_with(" requirements")
    });
    if change && untitled {
        let delta = scope.file.strip_prefix("specs/").and_then(|f| f.strip_suffix("/spec"));
        match delta {
            Some(cap) => doc.title = Some(format!("{cap} (delta)")),
            None if scope.is_feature_file() => doc.title = Some(scope.name.clone()),
            None => {}
        }
    }
    let own = doc.raw_id.clone().unwrap_or_else(|| doc.id.clone());
    let mut out = Vec::new();
    for found in scan::scan(scope, part, body, body_line) {
        let (mut node, section) = item_node(doc, &own, scope, found.item);
        if change {
            for r in node.refs.iter_mut().flatten() {
                r.target = format!("{}@{}", r.target, doc.path);
            }
            node.id_derived = archived;
        }
        if let Some(op) = found.delta {
            set_field(&mut node, "delta", op);
        }
        for (target, line, must) in found.touches {
            // An archived change's requirement may since have been renamed or removed, and
            // an added one is only in `specs/` once its change is archived: those find
            // nothing without complaint. What a change in progress modifies is in `specs/`
            // now, or its archive fails ("MODIFIED failed … not found").
            let key = if must && !archived { STRUCTURE_KEY } else { SOFT_KEY };
            node.refs
                .get_or_insert_with(Vec::new)
                .push(structure(EdgeType::Relates, target, line, key));
        }
        out.push((node, section));
    }
    out
}

/// Add `key: value` to a node's fields.
fn set_field(node: &mut Node, key: &str, value: &str) {
    let mut fields: serde_json::Map<String, serde_json::Value> = node
        .fields
        .as_ref()
        .and_then(|f| serde_json::from_str(f.get()).ok())
        .unwrap_or_default();
    fields.insert(key.into(), value.into());
    node.fields = serde_json::value::to_raw_value(&fields).ok();
}

/// OpenSpec trees among root-relative paths, for `init`: changes (active and archived)
/// and capabilities, by folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Census {
    /// Changes in progress, by folder.
    pub active: BTreeSet<String>,
    /// Archived changes, by folder.
    pub archived: BTreeSet<String>,
    /// Capabilities with a `spec.md`, by folder.
    pub capabilities: BTreeSet<String>,
    /// An `openspec/project.md` (0.x) or `openspec/config.yaml` (1.x) was seen.
    pub marker: bool,
}

impl Census {
    /// Count the file at root-relative `path`.
    pub fn add(&mut self, path: &str) {
        if path == "openspec/project.md" || path.ends_with("/openspec/project.md") {
            self.marker = true;
        }
        let Some(Some(scope)) = path
            .strip_suffix(".md")
            .and_then(|stem| scope_of(&stem.split('/').collect::<Vec<_>>()))
        else {
            return;
        };
        let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
        match scope.format {
            Format::OpenSpec(Part::Capability) if scope.file == "spec" => {
                self.capabilities.insert(folder.to_string());
            }
            Format::OpenSpec(Part::Change | Part::Archived) => {
                if let Some(f) = change_folder(path) {
                    let set = match scope.format {
                        Format::OpenSpec(Part::Archived) => &mut self.archived,
                        _ => &mut self.active,
                    };
                    set.insert(f.to_string());
                }
            }
            _ => {}
        }
    }

    /// True when an OpenSpec tree was found.
    pub fn any(&self) -> bool {
        self.marker || !(self.active.is_empty() && self.archived.is_empty() && self.capabilities.is_empty())
    }

    /// `OpenSpec: 60 changes (3 active, 57 archived), 79 capabilities`.
    pub fn describe(&self) -> String {
        let (a, z, c) = (self.active.len(), self.archived.len(), self.capabilities.len());
        let n = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        format!(
            "OpenSpec: {} ({a} active, {z} archived), {}",
            n(a + z, "change", "changes"),
            n(c, "capability", "capabilities")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::scope_of as scope;
    use super::*;

    #[test]
    fn scopes_by_path() {
        let s = scope("openspec/changes/add-2fa/tasks.md").unwrap();
        assert_eq!(
            (s.format, s.name.as_str(), s.doc_id().as_str()),
            (Format::OpenSpec(Part::Change), "add-2fa", "add-2fa/tasks")
        );
        let s = scope("openspec/changes/add-2fa/proposal.md").unwrap();
        assert_eq!((s.doc_id().as_str(), s.doc_type()), ("add-2fa", Some("Feature")));
        let s = scope("openspec/changes/add-2fa/specs/user-auth/spec.md").unwrap();
        assert_eq!(s.doc_id(), "add-2fa/specs/user-auth");
        let s = scope("openspec/changes/archive/2025-01-11-add-2fa/tasks.md").unwrap();
        assert_eq!(
            (s.format, s.doc_id().as_str()),
            (Format::OpenSpec(Part::Archived), "add-2fa/tasks")
        );
        let s = scope("openspec/specs/user-auth/spec.md").unwrap();
        assert_eq!(
            (s.format, s.doc_id().as_str(), s.doc_type()),
            (Format::OpenSpec(Part::Capability), "specs/user-auth", None)
        );
        assert_eq!(
            scope("openspec/specs/identity/login/spec.md").unwrap().name,
            "specs/identity/login"
        );
        // Neither OpenSpec scopes nor Spec Kit features.
        for p in [
            "openspec/changes/IMPLEMENTATION_ORDER.md",
            "openspec/changes/archive/README.md",
            "openspec/specs/README.md",
            "openspec/project.md",
        ] {
            assert!(scope(p).is_none(), "{p}");
        }
        assert_eq!(undated("2025-1-11-x"), "2025-1-11-x");
        assert_eq!(
            change_folder("x/openspec/changes/archive/2025-01-11-a/specs/b/spec.md"),
            Some("x/openspec/changes/archive/2025-01-11-a/")
        );
    }

    #[test]
    fn counts_changes_and_capabilities() {
        let mut c = Census::default();
        for p in [
            "openspec/project.md",
            "openspec/changes/a/proposal.md",
            "openspec/changes/a/tasks.md",
            "openspec/changes/archive/2025-01-01-b/tasks.md",
            "openspec/changes/archive/2025-02-01-b/tasks.md",
            "openspec/specs/auth/spec.md",
            "openspec/specs/auth/notes.md",
            "openspec/specs/README.md",
        ] {
            c.add(p);
        }
        assert_eq!(c.describe(), "OpenSpec: 3 changes (1 active, 2 archived), 1 capability");
    }
}
