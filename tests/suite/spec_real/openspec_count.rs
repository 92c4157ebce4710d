//! The independent count of an OpenSpec tree (`openspec/changes/<id>/tasks.md`,
//! `changes/archive/YYYY-MM-DD-<id>/`, `openspec/specs/<capability>/spec.md`), from the
//! raw Markdown by OpenSpec's own reading of a task: every line its parser counts
//! (`^\s*[-*]\s*\[([\sxX])\]`), outside fenced code, is a Task with its box's state (done
//! in an archived change), under the box it is indented under, else the heading above it
//! (not a `#` title), else the file. `ready` offers, of the changes in progress, the open
//! tasks with no open task under them whose earlier siblings (tasks and groups with
//! tasks, under one parent) are done, and those of each of their parents.

use super::{Count, Under, Want, heading, unfenced};
use std::collections::{BTreeMap, BTreeSet};

/// What the OpenSpec trees of a repository hold, for `init` and `ready`.
#[derive(Default)]
pub(super) struct Census {
    /// Change folders in progress and archived, capabilities (folders with `spec.md`).
    active: BTreeSet<String>,
    archived: BTreeSet<String>,
    capabilities: BTreeSet<String>,
    /// The tasks `ready` must offer: (path, line).
    pub ready: BTreeSet<(String, u32)>,
}

impl Census {
    /// What `init` must say.
    pub fn said(&self) -> Option<String> {
        let (a, z, c) = (self.active.len(), self.archived.len(), self.capabilities.len());
        let n = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        (a + z + c > 0).then(|| {
            format!(
                "OpenSpec: {} ({a} active, {z} archived), {}",
                n(a + z, "change", "changes"),
                n(c, "capability", "capabilities")
            )
        })
    }
}

/// Where a path is in an OpenSpec tree: (change folder, change id, archived, file in it),
/// or a capability's folder; none outside.
enum Place<'a> {
    Change {
        folder: String,
        id: &'a str,
        archived: bool,
        file: String,
    },
    Capability(String),
    Other,
}

fn place(rel: &str) -> Option<Place<'_>> {
    let parts: Vec<&str> = rel.split('/').collect();
    let i = (0..parts.len().saturating_sub(1))
        .rev()
        .find(|&i| parts[i] == "openspec" && matches!(parts[i + 1], "changes" | "specs"))?;
    let folder = |n: usize| parts[..n].join("/");
    Some(match &parts[i + 1..] {
        ["specs", cap @ .., "spec.md"] if !cap.is_empty() => Place::Capability(folder(parts.len() - 1)),
        ["changes", "archive", dated, rest @ ..] if !rest.is_empty() => {
            let undated = dated.get(11..).filter(|_| {
                dated.len() > 11 && dated.as_bytes()[10] == b'-' && dated[..4].bytes().all(|c| c.is_ascii_digit())
            });
            Place::Change {
                folder: folder(i + 4),
                id: undated.unwrap_or(dated),
                archived: true,
                file: rest.join("/"),
            }
        }
        ["changes", id, rest @ ..] if !rest.is_empty() && *id != "archive" => Place::Change {
            folder: folder(i + 3),
            id,
            archived: false,
            file: rest.join("/"),
        },
        _ => Place::Other,
    })
}

/// A path in an OpenSpec tree (never a Spec Kit feature).
pub(super) fn is_openspec(rel: &str) -> bool {
    place(rel).is_some()
}

/// OpenSpec's task line: its box done or not.
fn task_line(line: &str) -> Option<bool> {
    let t = line.trim_start();
    let rest = t.strip_prefix('-').or_else(|| t.strip_prefix('*'))?.trim_start();
    let mut chars = rest.strip_prefix('[')?.chars();
    let c = chars.next()?;
    chars.as_str().starts_with(']').then_some(())?;
    match c {
        'x' | 'X' => Some(true),
        c if c.is_whitespace() => Some(false),
        _ => None,
    }
}

/// A heading OpenSpec's template numbers (`## 1. Setup`, `### 1.1 …`, `### A1. …`,
/// `## Phase A: …`): a group even with no task right under it.
fn numbered(text: &str) -> bool {
    let lower = text.to_lowercase();
    if let Some(rest) = lower.strip_prefix("phase ") {
        let n: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
        if n.starts_with(|c: char| c.is_ascii_digit()) || n.chars().count() == 1 {
            return true;
        }
    }
    let word = text.split([' ', ':', ')']).next().unwrap_or("").trim_matches('*');
    let n = word.trim_end_matches('.');
    let letters = n.bytes().take_while(u8::is_ascii_uppercase).count();
    let parts: Vec<&str> = n[letters..].split('.').collect();
    letters <= 3
        && parts
            .iter()
            .all(|p| (1..=4).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_digit()))
        && (parts.len() > 1 || word.ends_with('.') || letters > 0)
}

/// One task or group of a tasks file: its line, its parent's line (none: the file), its
/// box (none: a group), and whether it holds any task.
struct Entry {
    line: u32,
    parent: Option<u32>,
    done: Option<bool>,
}

/// Count a file of an OpenSpec tree; false when it is in none.
pub(super) fn count_file(rel: &str, text: &str, count: &mut Count) -> bool {
    let Some(p) = place(rel) else { return false };
    let (id, archived) = match p {
        Place::Capability(folder) => {
            count.openspec.capabilities.insert(folder);
            return true;
        }
        Place::Other => return true,
        Place::Change {
            folder,
            id,
            archived,
            file,
        } => {
            let set = if archived {
                &mut count.openspec.archived
            } else {
                &mut count.openspec.active
            };
            set.insert(folder);
            if file != "tasks.md" {
                return true;
            }
            (id, archived)
        }
    };
    let entries = entries(&unfenced(text));
    for e in entries.iter().filter(|e| e.done.is_some()) {
        let state = if archived || e.done == Some(true) {
            "done"
        } else {
            "open"
        };
        let under = e.parent.map_or(Under::File, Under::Line);
        let want = Want {
            feature: id.to_string(),
            state,
            under,
        };
        count.tasks.insert((rel.to_string(), e.line), want);
    }
    if !archived {
        count
            .openspec
            .ready
            .extend(ready(&entries).into_iter().map(|l| (rel.to_string(), l)));
    }
    true
}

/// The tasks and groups of a tasks file, in line order.
fn entries(lines: &[(u32, &str)]) -> Vec<Entry> {
    // Headings above: (level, line, numbered, made a group).
    let mut heads: Vec<(usize, u32, bool)> = Vec::new();
    let mut groups: BTreeMap<u32, Option<u32>> = BTreeMap::new();
    // Boxes open above by indentation: (indent, line).
    let mut stack: Vec<(usize, u32)> = Vec::new();
    let mut out = Vec::new();
    let is_list = |t: &str| {
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        ["- ", "* ", "+ "].iter().any(|m| t.starts_with(m))
            || (digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") ")))
    };
    for &(no, line) in lines {
        let t = line.trim_start();
        let indent = line.len() - t.len() + line[..line.len() - t.len()].matches('\t').count() * 3;
        if let Some((level, text)) = heading(t) {
            stack.clear();
            heads.retain(|h| h.0 < level);
            let num = numbered(text);
            if level > 1 || num {
                heads.push((level, no, num));
                if num {
                    let parent = enclosing_group(&heads, &groups);
                    groups.insert(no, parent);
                }
            }
            continue;
        }
        let Some(done) = task_line(t) else {
            if is_list(t) {
                stack.retain(|(i, _)| *i < indent);
            }
            continue;
        };
        stack.retain(|(i, _)| *i < indent);
        if let Some(&(_, h, _)) = heads.last()
            && !groups.contains_key(&h)
        {
            let parent = enclosing_group(&heads, &groups);
            groups.insert(h, parent);
        }
        let parent = stack.last().map(|s| s.1).or(heads.last().map(|h| h.1));
        stack.push((indent, no));
        out.push(Entry {
            line: no,
            parent,
            done: Some(done),
        });
    }
    out.extend(groups.into_iter().map(|(line, parent)| Entry {
        line,
        parent,
        done: None,
    }));
    out.sort_by_key(|e| e.line);
    out
}

/// The group the innermost heading hangs under: the nearest heading above it made one.
fn enclosing_group(heads: &[(usize, u32, bool)], groups: &BTreeMap<u32, Option<u32>>) -> Option<u32> {
    heads.iter().rev().skip(1).map(|h| h.1).find(|l| groups.contains_key(l))
}

/// The lines of the tasks `ready` offers: open, nothing open under them, and every
/// earlier sibling with tasks done, for them and each of their parents.
fn ready(entries: &[Entry]) -> Vec<u32> {
    let by_line: BTreeMap<u32, &Entry> = entries.iter().map(|e| (e.line, e)).collect();
    let under = |p: Option<u32>| entries.iter().filter(move |e| e.parent == p);
    // Done: a box ticked; a group whose tasks are all done. Work: a box, or a group
    // holding one.
    fn done(e: &Entry, entries: &[Entry]) -> bool {
        match e.done {
            Some(d) => d,
            None => entries
                .iter()
                .filter(|c| c.parent == Some(e.line) && work(c, entries))
                .all(|c| done(c, entries)),
        }
    }
    fn work(e: &Entry, entries: &[Entry]) -> bool {
        e.done.is_some() || entries.iter().any(|c| c.parent == Some(e.line) && work(c, entries))
    }
    let clear = |e: &Entry| {
        under(e.parent)
            .filter(|s| s.line < e.line && work(s, entries))
            .all(|s| done(s, entries))
    };
    entries
        .iter()
        .filter(|e| e.done == Some(false))
        .filter(|e| under(Some(e.line)).all(|c| c.done.is_none() || done(c, entries)))
        .filter(|e| {
            let mut cur = Some(*e);
            while let Some(c) = cur {
                if !clear(c) {
                    return false;
                }
                cur = c.parent.and_then(|p| by_line.get(&p).copied());
            }
            true
        })
        .map(|e| e.line)
        .collect()
}

#[test]
fn the_count_reads_openspec() {
    let text = "# Tasks\n\n## 1. Setup\n\n- [x] 1.1 a\n- [ ] 1.2 b\n  - [ ] 1.2.1 c\n\n## 2. Flow\n\n- [ ] 2.1 d\n\n## Notes\n\n- [ ] e\n```\n- [ ] fenced\n```\n";
    let mut c = Count::default();
    assert!(count_file("openspec/changes/add-2fa/tasks.md", text, &mut c));
    let got: Vec<(u32, &str, Under)> = c
        .tasks
        .iter()
        .map(|((_, l), w)| (*l, w.state, w.under.clone()))
        .collect();
    assert_eq!(
        got,
        [
            (5, "done", Under::Line(3)),
            (6, "open", Under::Line(3)),
            (7, "open", Under::Line(6)),
            (11, "open", Under::Line(9)),
            (15, "open", Under::Line(13)),
        ]
    );
    let ready: Vec<u32> = c.openspec.ready.iter().map(|(_, l)| *l).collect();
    assert_eq!(ready, [7]);
    let mut c = Count::default();
    count_file("openspec/changes/archive/2025-01-01-x/tasks.md", text, &mut c);
    assert!(c.tasks.values().all(|w| w.state == "done" && w.feature == "x"));
    assert!(c.openspec.ready.is_empty());
    assert!(is_openspec("openspec/specs/auth/spec.md"));
    assert!(!is_openspec("specs/001-x/spec.md"));
}
