//! Where a Kiro task hangs when the task its number names is not written: `- [ ] 1.1`
//! under `## Phase 1: Setup` with no `- [ ] 1.` box (hashpass-tech/jack, and the Japanese
//! `### フェーズ1` plans of cc-sdd). Its parent is the nearest task its number names
//! further up (`1.1.1` under `1` when `1.1` is missing), else the heading it sits under,
//! made a phase as Spec Kit's `## Phase N`, else the file, as a top-level task's.
//!
//! And the plans Kiro users write by hand: a task as a heading (`### ✅ Tarea 1.1: …`,
//! `### Task PWA-1: …`, `## Task 1: …`, `### - [x] 1. …`) over its outputs as boxes
//! without ids; a `_Requirements: …_` line written after a task's sub-tasks.

use super::*;
use std::collections::{BTreeMap, HashSet};

/// `items` (a Kiro file's, in line order) with every parent a task of the file, the
/// phases made of headings (`headings`: line, level, text) among them before their tasks.
pub(super) fn hang_orphans(mut items: Vec<Item>, headings: &[(u32, usize, String)]) -> Vec<Item> {
    let tasks: HashSet<String> = items
        .iter()
        .filter(|it| it.r#type == "Task")
        .map(|it| it.local.clone())
        .collect();
    // The phase each heading became (by its line), none where its id was taken. A task
    // written as a heading is no heading its siblings hang under.
    let task_lines: HashSet<u32> = items
        .iter()
        .filter(|it| it.r#type == "Task")
        .map(|it| it.line)
        .collect();
    let headings: Vec<(u32, usize, String)> = headings
        .iter()
        .filter(|h| !task_lines.contains(&h.0))
        .cloned()
        .collect();
    let headings = &headings[..];
    let mut made: BTreeMap<u32, Option<Item>> = BTreeMap::new();
    for it in items.iter_mut().filter(|it| it.r#type == "Task") {
        let Some(parent) = it.parent.take() else { continue };
        let mut up = Some(parent.as_str());
        while let Some(p) = up.filter(|p| !tasks.contains(*p)) {
            up = p.rsplit_once('.').map(|(q, _)| q);
        }
        it.parent = match up {
            Some(p) => Some(p.to_string()),
            None => heading_phase(it, headings, &mut made),
        };
    }
    let mut phases = made.into_values().flatten().peekable();
    let mut out = Vec::with_capacity(items.len() + 4);
    for it in items {
        while let Some(p) = phases.next_if(|p| p.line < it.line) {
            out.push(p);
        }
        out.push(it);
    }
    out.extend(phases);
    out
}

/// The phase `task` hangs under: the heading above it (below the title), as `phase-N`
/// by its `Phase N` (Spec Kit's headings), else by the task's first number (`フェーズ1`
/// over `1.1` is `phase-1`). None under the title or no heading, or when another
/// heading has that id.
fn heading_phase(
    task: &Item,
    headings: &[(u32, usize, String)],
    made: &mut BTreeMap<u32, Option<Item>>,
) -> Option<String> {
    let (line, level, text) = headings.iter().take_while(|h| h.0 < task.line).last()?;
    if *level < 2 {
        return None;
    }
    if let Some(done) = made.get(line) {
        return done.as_ref().map(|p| p.local.clone());
    }
    let n =
        numbered_word(text, "phase").unwrap_or_else(|| task.local.split('.').next().unwrap_or_default().to_string());
    let local = format!("phase-{n}");
    let free = !made.values().flatten().any(|p| p.local == local);
    let item = free.then(|| phase(local, text, *line, Vec::new()));
    let id = item.as_ref().map(|p| p.local.clone());
    made.insert(*line, item);
    id
}

/// A box whose text opens with a bare count (`- [x] 4 cards con iconos correctos`): a
/// Kiro id is written `4.` or `4.1`, so a number with no dot is no id.
pub(super) fn a_count(body: &str, id: &str) -> bool {
    let written = body.trim_start_matches("**");
    id.bytes().all(|b| b.is_ascii_digit()) && !written[id.len().min(written.len())..].starts_with('.')
}

/// A Kiro task written as a heading below the title: `### - [x] 1. Title` (its own box
/// says its state), `### ✅ Tarea 1.1: Title`, `## Task 1: Title`, `### Task PWA-1:
/// Title`, and `### 1.1 Title` over boxes without ids. Its outputs are the boxes without
/// ids in its section (to the next heading of its level or above): its state is theirs
/// rolled up, else a `**Status:**` line's, else its sub-tasks' (the order rules roll it up).
/// Its parent is the task its number names (`1` for `1.1`), as a box's.
pub(super) fn heading_task(scope: &Scope, level: usize, text: &str, l: &Line<'_>, rest: &[Line<'_>]) -> Option<Item> {
    if level < 2 {
        return None;
    }
    let section = section_lines(level, rest);
    let outputs: Vec<&str> = section.iter().filter_map(|r| output(r, false)).collect();
    let (local, title, own) = heading_id(
        text,
        outputs.len() == section.iter().filter_map(|r| output(r, true)).count(),
    )?;
    let body = section_body(level, l, rest);
    let state = own.or_else(|| roll(&outputs)).or_else(|| status_line(&body, l.no));
    let parent = local.rsplit_once('.').map(|(p, _)| p.to_string());
    Some(Item {
        refs: cites(scope, &body, l.no),
        local,
        r#type: "Task",
        state,
        title: clean_title(&title).0,
        line: l.no,
        text: body,
        parent,
        priority: None,
        parallel: false,
        optional: false,
    })
}

/// The id, title and own box state of a task heading's text. A heading that is only a
/// number (`1.1 Title`) is a task when `no_sub_tasks` (its section has no boxes with
/// ids): over numbered boxes it is the heading a phase is made of.
fn heading_id(text: &str, no_sub_tasks: bool) -> Option<(String, String, Option<&'static str>)> {
    if let Some((end, _)) = list_marker(text)
        && let Some((state, body)) = checkbox(text[end..].trim_start())
        && let Some((id, tail)) = task_id(body).filter(|(id, _)| !a_count(body, id))
        && id.starts_with(|c: char| c.is_ascii_digit())
    {
        return Some((id.to_string(), tail.to_string(), Some(state)));
    }
    if let Some(n) = numbered_word(text, "task") {
        return Some((n.clone(), strip_number_lead(text, "task", &n), None));
    }
    if let Some((start, len)) = role_word(text, "task") {
        let rest = text[start + len..].trim_start();
        let end = rest.find(|c: char| c.is_whitespace() || c == ':').unwrap_or(rest.len());
        let (word, tail) = rest.split_at(end);
        let (prefix, num) = word.split_once('-')?;
        let named = !prefix.is_empty()
            && prefix.bytes().all(|b| b.is_ascii_alphanumeric())
            && !num.is_empty()
            && num.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        return named.then(|| {
            (
                word.to_string(),
                tail.trim_start_matches([':', ' ', '-', '—']).to_string(),
                None,
            )
        });
    }
    let t = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    let (id, tail) = task_id(t).filter(|(id, _)| id.starts_with(|c: char| c.is_ascii_digit()))?;
    (no_sub_tasks && !a_count(t, id)).then(|| (id.to_string(), tail.to_string(), None))
}

/// The state of a box line in a Kiro task heading's section: one without a task id
/// (an output), or any box when `any`.
fn output(l: &Line<'_>, any: bool) -> Option<&'static str> {
    let (end, _) = list_marker(l.text).filter(|_| !l.in_fence)?;
    let (state, body) = checkbox(l.text[end..].trim_start())?;
    let id = task_id(body).is_some_and(|(id, _)| !a_count(body, id));
    (any || !id).then_some(state)
}

/// A `_Requirements: 1.1_` line written after a task's sub-tasks (at their indentation,
/// past the end of the last one's text) cites for the task: added to its item in `out`.
/// `stack` holds the open boxes by indentation.
pub(super) fn late_cites(scope: &Scope, stack: &[(usize, String)], l: &Line<'_>, out: &mut [Item]) {
    if l.in_fence || is_box_line(l.text) || !cites_requirements(l.text) {
        return;
    }
    let Some((_, owner)) = stack.iter().rev().find(|(ind, _)| *ind < l.indent) else {
        return;
    };
    // The line is in the text of the last box when that box is its owner.
    let last_task = out.iter().rev().find(|it| it.r#type == "Task");
    if last_task.is_none_or(|t| t.local == *owner) {
        return;
    }
    if let Some(it) = out
        .iter_mut()
        .rev()
        .find(|it| it.r#type == "Task" && it.local == *owner)
    {
        for r in cites(scope, l.text, l.no) {
            push_ref(&mut it.refs, r.edge, r.target, r.line);
        }
    }
}

/// A requirement written as a numbered heading (`### 1. Replace intent calls`) whose
/// section numbers its criteria after it (`- 1.1 …`): its number.
pub(super) fn numbered_requirement(text: &str, section: &[Line<'_>]) -> Option<String> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let n = &text[..digits];
    let titled = digits > 0 && text[digits..].starts_with(". ");
    let criteria = section.iter().any(|r| {
        list_marker(r.text).is_some_and(|(end, ordered)| !ordered && criterion_number(&r.text[end..], n).is_some())
    });
    (titled && criteria).then(|| n.to_string())
}

/// `1.2 Replace …` under requirement `1` → `2`.
pub(super) fn criterion_number<'t>(after: &'t str, req: &str) -> Option<&'t str> {
    let rest = after.strip_prefix(req)?.strip_prefix('.')?;
    let k = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
    (!k.is_empty() && rest[k.len()..].starts_with(' ')).then_some(k)
}
