//! Where a Kiro task hangs when the task its number names is not written: `- [ ] 1.1`
//! under `## Phase 1: Setup` with no `- [ ] 1.` box (hashpass-tech/jack, and the Japanese
//! `### フェーズ1` plans of cc-sdd). Its parent is the nearest task its number names
//! further up (`1.1.1` under `1` when `1.1` is missing), else the heading it sits under,
//! made a phase as Spec Kit's `## Phase N`, else the file, as a top-level task's.

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
    // The phase each heading became (by its line), none where its id was taken.
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
