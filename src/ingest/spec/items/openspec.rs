//! OpenSpec's items: a change's tasks (`tasks.md`: `- [ ] 1.1 …` boxes under `## 1. …`
//! groups) and the requirements of a spec (`### Requirement: …` with its `#### Scenario:
//! …` criteria), a capability's as they are and a change's delta as it changes them
//! (`## ADDED / MODIFIED / REMOVED / RENAMED Requirements`).
//!
//! A task is every line OpenSpec counts as one (its parser's `^\s*[-*]\s*\[([\sxX])\]`,
//! outside fenced code), numbered or not: its id is the number it writes (`1.1`, `A1.1`),
//! else its place (`1.3` for the third task of group `1`). A group is a heading over
//! tasks, its id its number (`## 1. Setup` → `1`) or, unnumbered, its words. OpenSpec's
//! rule ("order tasks by dependency", then work through pending tasks in order) is
//! written as edges: a task waits for the task before it in its group, a group for the
//! group before it. A requirement's id is its name's words (`### Requirement: User can
//! export data` → `user-can-export-data`), as OpenSpec matches a delta's requirement to
//! the spec's by name. Ids a file writes twice are told apart (`1.1-2`): OpenSpec reads
//! no ids, so a repeated number is no error of the format.

use super::*;
use std::collections::{BTreeMap, BTreeSet};

/// Which part of an OpenSpec tree a file is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// A change in progress: `openspec/changes/<id>/`.
    Change,
    /// An archived change: `openspec/changes/archive/YYYY-MM-DD-<id>/`.
    Archived,
    /// A capability's current spec: `openspec/specs/<capability>/`.
    Capability,
}

impl Part {
    /// The file that stands for the change or capability.
    pub fn feature_file(self) -> &'static str {
        match self {
            Part::Change | Part::Archived => "proposal",
            Part::Capability => "spec",
        }
    }

    /// The work-item type of that file: a change is a feature; a capability is a
    /// document (what changes change), no work of its own.
    pub fn doc_type(self) -> Option<&'static str> {
        match self {
            Part::Change | Part::Archived => Some("Feature"),
            Part::Capability => None,
        }
    }
}

/// An item with what OpenSpec adds to it.
pub(in crate::ingest::spec) struct Found {
    pub item: Item,
    /// The delta operation of a change's requirement: added, modified, removed, renamed.
    pub delta: Option<&'static str>,
    /// The requirements of `specs/` a change's requirement changes (full ids), each with
    /// the line that names it and whether it must be there (a modified one must, unless
    /// it is renamed too; OpenSpec's archive takes a removed one that is gone, and a
    /// rename whose new name is there, as synced already).
    pub touches: Vec<(String, u32, bool)>,
}

/// The items of a file of OpenSpec `scope` (`part` of the tree).
pub(in crate::ingest::spec) fn scan(scope: &Scope, part: Part, body: &str, first_line: u32) -> Vec<Found> {
    let lines = lines(body, first_line);
    let plain = |item| Found {
        item,
        delta: None,
        touches: Vec::new(),
    };
    match part {
        Part::Capability if scope.file == "spec" => requirements(&scope.name, None, &lines),
        Part::Capability => Vec::new(),
        _ if scope.file == "tasks" => tasks(part == Part::Archived, &lines).into_iter().map(plain).collect(),
        _ => match scope.file.strip_prefix("specs/").and_then(|f| f.strip_suffix("/spec")) {
            Some(cap) => requirements(&format!("specs/{cap}"), Some(&format!("specs/{cap}/")), &lines),
            None => Vec::new(),
        },
    }
}

/// Local ids handed out in one file: each once.
#[derive(Default)]
struct Ids {
    used: BTreeSet<String>,
}

impl Ids {
    /// `want`, or `want-2`, `want-3`… when it is taken.
    fn claim(&mut self, want: &str) -> String {
        let mut id = want.to_string();
        let mut n = 2;
        while !self.used.insert(id.clone()) {
            id = format!("{want}-{n}");
            n += 1;
        }
        id
    }
}

/// A task line as OpenSpec's parser reads one: `-` or `*`, a box of a blank or `x`/`X`,
/// the text after it. Done or not, and the text.
fn task_box(text: &str) -> Option<(bool, &str)> {
    let rest = text.strip_prefix(['-', '*'])?.trim_start();
    let mut chars = rest.strip_prefix('[')?.chars();
    let done = match chars.next()? {
        'x' | 'X' => true,
        c if c.is_whitespace() => false,
        _ => return None,
    };
    Some((done, chars.as_str().strip_prefix(']')?.trim()))
}

/// A task's or group's number at the start of `s`: `1.1 …`, `1.1. …`, `**2.3**: …`, `A1.1
/// …`, `1. …`; a bare number is one only with its dot or a letter (`3 brokers` is a count).
fn number(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start_matches("**");
    let end = s
        .find(|c: char| c.is_whitespace() || matches!(c, ':' | '*' | ')'))
        .unwrap_or(s.len());
    let word = &s[..end];
    let rest = s[end..].trim_start_matches(['*', ':', ')', ' ']);
    let n = word.trim_end_matches('.');
    let letters = n.bytes().take_while(u8::is_ascii_uppercase).count();
    let parts: Vec<&str> = n[letters..].split('.').collect();
    let numeric = parts
        .iter()
        .all(|p| (1..=4).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_digit()));
    let marked = parts.len() > 1 || word.ends_with('.') || letters > 0;
    (letters <= 3 && numeric && marked).then_some((n, rest))
}

/// A heading's group number: `1. Setup` → `1`, `1.1 Safe area` → `1.1`, `Phase A: …` →
/// `phase-a`, `Phase 2 - …` → `phase-2`.
fn group_number(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    if let Some(rest) = lower.strip_prefix("phase ") {
        let n: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
        if n.starts_with(|c: char| c.is_ascii_digit()) || n.chars().count() == 1 {
            return Some(format!("phase-{n}"));
        }
    }
    number(text).map(|(n, _)| n.to_string())
}

/// A name's words as an id: lowercase, letters and digits of any script, runs of anything
/// else one `-` (`User can export data (CSV)` → `user-can-export-data-csv`).
pub(in crate::ingest::spec) fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// A heading of a tasks file: its level, its group's id once made, and what makes it.
struct Head {
    level: usize,
    local: Option<String>,
    number: Option<String>,
    title: String,
    line: u32,
}

/// The tasks and groups of a `tasks.md` (all done in an archived change).
fn tasks(archived: bool, lines: &[Line<'_>]) -> Vec<Item> {
    // The ids the file writes, which a task without a number never takes.
    let mut written = BTreeSet::new();
    for l in lines.iter().filter(|l| !l.in_fence) {
        let num = match heading(l.text) {
            Some((_, text)) => group_number(text),
            None => task_box(l.text)
                .and_then(|(_, t)| number(t))
                .map(|(n, _)| n.to_string()),
        };
        written.extend(num);
    }
    let mut ids = Ids::default();
    let mut heads: Vec<Head> = Vec::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut children: BTreeMap<Option<String>, u32> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.in_fence {
            continue;
        }
        if let Some((level, text)) = heading(l.text) {
            stack.clear();
            heads.retain(|h| h.level < level);
            let number = group_number(text);
            // An unnumbered `#` heading is the file's title, no group.
            if level > 1 || number.is_some() {
                let title = match &number {
                    Some(n) if !n.starts_with("phase-") => number_lead(text).to_string(),
                    _ => text.to_string(),
                };
                heads.push(Head {
                    level,
                    local: None,
                    number: number.clone(),
                    title,
                    line: l.no,
                });
                if number.is_some() {
                    make_group(&mut heads, &mut ids, &mut out);
                }
            }
            continue;
        }
        let Some((done, body)) = task_box(l.text) else {
            if list_marker(l.text).is_some() {
                stack.retain(|(ind, _)| *ind < l.indent);
            }
            continue;
        };
        stack.retain(|(ind, _)| *ind < l.indent);
        if heads.last().is_some_and(|h| h.local.is_none()) {
            make_group(&mut heads, &mut ids, &mut out);
        }
        let parent = stack
            .last()
            .map(|(_, id)| id.clone())
            .or_else(|| heads.last().and_then(|h| h.local.clone()));
        let seen = children.entry(parent.clone()).or_default();
        *seen += 1;
        let (local, title) = match number(body) {
            Some((n, rest)) => (ids.claim(n), rest),
            None => {
                let mut k = *seen;
                let place = |k: u32| parent.as_ref().map_or_else(|| k.to_string(), |p| format!("{p}.{k}"));
                while written.contains(&place(k)) || ids.used.contains(&place(k)) {
                    k += 1;
                }
                (ids.claim(&place(k)), body)
            }
        };
        stack.push((l.indent, local.clone()));
        let state = if done || archived { "done" } else { "open" };
        out.push(Item {
            local,
            r#type: "Task",
            state: Some(state),
            title: clean_title(title).0,
            line: l.no,
            text: item_text(l, &lines[i + 1..]),
            parent,
            refs: Vec::new(),
            priority: None,
            parallel: false,
            optional: false,
        });
    }
    roll_groups(&mut out);
    sibling_order(&mut out);
    out
}

/// `1.1 Safe area` → `Safe area`.
fn number_lead(text: &str) -> &str {
    number(text).map_or(text, |(_, rest)| rest.trim_start_matches(['-', '—', '–', ' ']))
}

/// Make the innermost heading a group (under the innermost group above it).
fn make_group(heads: &mut [Head], ids: &mut Ids, out: &mut Vec<Item>) {
    let parent = heads.iter().rev().skip(1).find_map(|h| h.local.clone());
    let Some(h) = heads.last_mut() else { return };
    let want = h.number.clone().unwrap_or_else(|| {
        let s = slug(&h.title);
        if s.is_empty() { "section".to_string() } else { s }
    });
    let local = ids.claim(&want);
    h.local = Some(local.clone());
    out.push(Item {
        parent,
        ..phase(local, &h.title, h.line, Vec::new())
    });
}

/// A group's state from the items under it, innermost groups first (a group is made
/// before what it holds).
fn roll_groups(items: &mut [Item]) {
    for g in (0..items.len()).rev() {
        if items[g].r#type != crate::model::backlog::PHASE {
            continue;
        }
        let local = items[g].local.clone();
        let under: Vec<&str> = items
            .iter()
            .filter(|t| t.parent.as_deref() == Some(local.as_str()))
            .filter_map(|t| t.state)
            .collect();
        items[g].state = roll(&under);
    }
}

/// Each task or group with work waits for the one before it under the same parent.
fn sibling_order(items: &mut [Item]) {
    let mut last: BTreeMap<Option<String>, String> = BTreeMap::new();
    for it in items.iter_mut().filter(|t| t.state.is_some()) {
        if let Some(prev) = last.insert(it.parent.clone(), it.local.clone()) {
            push_ref(&mut it.refs, EdgeType::DependsOn, prev, it.line);
        }
    }
}

/// `## ADDED Requirements` → `added`, and so on; none for another section.
fn delta_op(section: &str) -> Option<&'static str> {
    match section.to_lowercase().as_str() {
        "added requirements" => Some("added"),
        "modified requirements" => Some("modified"),
        "removed requirements" => Some("removed"),
        "renamed requirements" => Some("renamed"),
        _ => None,
    }
}

/// `Requirement: Name` (a `###` heading's text, any case) → `Name`.
fn requirement_name(text: &str) -> Option<&str> {
    let head = text.get(..12)?;
    head.eq_ignore_ascii_case("requirement:")
        .then(|| text[12..].trim())
        .filter(|n| !n.is_empty())
}

/// A delta's line naming a requirement after `key` (`FROM:`, `TO:`, or none for a REMOVED
/// bullet): `- FROM: `### Requirement: Old``, `- `### Requirement: Old``.
fn named_line<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let t = text.trim_start_matches('-').trim_start();
    let t = t.strip_prefix(key)?.trim_start().trim_start_matches('`');
    let t = t.strip_prefix("###")?.trim_start().strip_prefix("Requirement:")?;
    Some(t.trim().trim_end_matches('`').trim()).filter(|n| !n.is_empty())
}

/// The requirements and scenarios of a spec: a capability's (`delta` none; ids scoped by
/// it) or a change's delta for capability `cap` (`delta` the local prefix, `specs/<cap>/`;
/// each requirement linked to the one of `specs/` it changes).
fn requirements(cap: &str, delta: Option<&str>, lines: &[Line<'_>]) -> Vec<Found> {
    // RENAMED first (OpenSpec applies it before MODIFIED): a modified requirement named
    // by its new name changes the one its old name is.
    let mut renamed: BTreeMap<String, String> = BTreeMap::new();
    let mut from = None;
    for l in lines.iter().filter(|l| !l.in_fence) {
        if let Some(n) = named_line(l.text, "FROM:") {
            from = Some(n.to_string());
        } else if let (Some(n), Some(f)) = (named_line(l.text, "TO:"), from.take()) {
            renamed.insert(n.to_string(), f);
        }
    }
    let prefix = delta.unwrap_or("");
    let mut ids = Ids::default();
    let mut out: Vec<Found> = Vec::new();
    let mut op: Option<&'static str> = None;
    let mut req: Option<String> = None;
    let mut from: Option<(String, u32)> = None;
    let to = |name: &str| format!("{cap}/{}", slug(name));
    // What a delta's requirement `name` (in section `op`, at `line`) changes in `specs/`.
    let touches = |op: Option<&str>, name: &str, line: u32| -> Vec<(String, u32, bool)> {
        if delta.is_none() {
            return Vec::new();
        }
        match (op, renamed.get(name)) {
            (Some("modified"), None) => vec![(to(name), line, true)],
            (Some("modified"), Some(old)) => vec![(to(old), line, false), (to(name), line, false)],
            _ => vec![(to(name), line, false)],
        }
    };
    for (i, l) in lines.iter().enumerate() {
        if l.in_fence {
            continue;
        }
        let rest = &lines[i + 1..];
        let Some((level, text)) = heading(l.text) else {
            let removed = (op == Some("removed")).then(|| named_line(l.text, "")).flatten();
            if let Some(name) = removed {
                let local = ids.claim(&format!("{prefix}{}", slug(name)));
                let item = leaf(local, "Requirement", name, l.no, l.text.to_string(), None);
                out.push(Found {
                    item,
                    delta: op,
                    touches: touches(op, name, l.no),
                });
            } else if op == Some("renamed") {
                if let Some(n) = named_line(l.text, "FROM:") {
                    from = Some((n.to_string(), l.no));
                } else if let (Some(to_name), Some((old, line))) = (named_line(l.text, "TO:"), from.take()) {
                    let local = ids.claim(&format!("{prefix}{}", slug(&old)));
                    let title = format!("{old} → {to_name}");
                    let item = leaf(local, "Requirement", &title, line, title.clone(), None);
                    out.push(Found {
                        item,
                        delta: op,
                        touches: vec![(to(&old), line, false), (to(to_name), line, false)],
                    });
                }
            }
            continue;
        };
        if level <= 2 {
            op = delta.and_then(|_| delta_op(text));
            req = None;
            continue;
        }
        if level == 3 {
            req = None;
            let in_delta = delta.is_none() || matches!(op, Some("added" | "modified" | "removed"));
            let Some(name) = requirement_name(text).filter(|_| in_delta) else {
                continue;
            };
            let local = ids.claim(&format!("{prefix}{}", slug(name)));
            req = Some(local.clone());
            let item = leaf(local, "Requirement", name, l.no, section_body(3, l, rest), None);
            out.push(Found {
                item,
                delta: op,
                touches: touches(op, name, l.no),
            });
        } else if level == 4
            && let Some(r) = &req
        {
            let name = text
                .get(..9)
                .filter(|h| h.eq_ignore_ascii_case("scenario:"))
                .map_or(text, |_| text[9..].trim());
            let local = ids.claim(&format!("{r}/{}", slug(name)));
            let item = leaf(
                local,
                "Criterion",
                name,
                l.no,
                section_body(4, l, rest),
                Some(r.clone()),
            );
            out.push(Found {
                item,
                delta: None,
                touches: Vec::new(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_boxes() {
        assert_eq!(number("1.1 Create"), Some(("1.1", "Create")));
        assert_eq!(number("1.1. Create"), Some(("1.1", "Create")));
        assert_eq!(number("**2.3**: Test"), Some(("2.3", "Test")));
        assert_eq!(number("A1.1 Add"), Some(("A1.1", "Add")));
        assert_eq!(number("1. Setup"), Some(("1", "Setup")));
        assert_eq!(number("3 brokers"), None);
        assert_eq!(number("2024-01-01 note"), None);
        assert_eq!(group_number("Phase A: Tooling"), Some("phase-a".into()));
        assert_eq!(group_number("Phase 1: Fix (P0)"), Some("phase-1".into()));
        assert_eq!(group_number("Phases overview"), None);
        assert_eq!(task_box("- [x] 1.1 a"), Some((true, "1.1 a")));
        assert_eq!(task_box("* [ ]b"), Some((false, "b")));
        assert_eq!(task_box("-[X] c"), Some((true, "c")));
        assert_eq!(task_box("- [~] c"), None);
        assert_eq!(task_box("**[x]** c"), None);
        assert_eq!(slug("User can export data (CSV)"), "user-can-export-data-csv");
        assert_eq!(slug("用户 登录"), "用户-登录");
        assert_eq!(
            named_line("- FROM: `### Requirement: Old name`", "FROM:"),
            Some("Old name")
        );
        assert_eq!(named_line("- `### Requirement: Gone`", ""), Some("Gone"));
    }
}
