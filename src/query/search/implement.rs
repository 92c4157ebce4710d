//! What a question that takes up one spec-folder item ("implement 003-x/T012", "implement
//! 7.7/2") ranks: the item, its parent chain, what it is tied to, then the documents of
//! its folder its words found, and no other item of the folder.

use super::hits::neighbor_hit;
use super::{Engine, Hit, Why};
use crate::model::backlog::PHASE;
use crate::model::{EdgeType, Kind};
use crate::query::expand::Step;
use std::collections::HashSet;

/// How far up its parents an item's chain is followed (a subtask, its task, the phase,
/// the tasks file, the feature).
const CHAIN: usize = 5;

/// The item's parents, nearest first, each with the step that reaches it.
fn parent_chain(engine: &dyn Engine, item: &str) -> Vec<(String, Step)> {
    let mut out: Vec<(String, Step)> = Vec::new();
    let mut cur = item.to_string();
    for _ in 0..CHAIN {
        let parent = engine
            .edges(&cur)
            .iter()
            .filter(|e| e.r#type == EdgeType::Parent && e.forward)
            .map(|e| e.other.clone())
            .min();
        let Some(p) = parent.filter(|p| p != item && !out.iter().any(|(o, _)| o == p)) else {
            break;
        };
        let step = Step {
            from: cur.clone(),
            edge: EdgeType::Parent.as_str(),
            to: p.clone(),
        };
        out.push((p.clone(), step));
        cur = p;
    }
    out
}

/// Rank `results` for taking up `item`: the item first, then its parent, then what it is
/// tied to by an edge either way (the story, requirements and criteria it cites, the
/// tasks it waits on and those waiting on it, its subtasks; for a subtask, what its task
/// cites), then the rest of its parent
/// chain (the tasks file, the feature; brought in when the walk did not reach them),
/// then the rest as ranked. Another work item written inside a file that is none of
/// those (another task, a checklist box), or a requirement it neither cites nor
/// matches, is left out: it is another item's answer, and a pack would spend on it the
/// room the item's own context needs.
///
/// When the question describes the item in words of its own (`described`: "implement
/// T009: the route that strips names …"), the requirements and criteria those words
/// reach through the graph stay too: they are what the description is about.
pub(super) fn rank_for_item(engine: &dyn Engine, item: &str, described: bool, results: &mut Vec<Hit>) {
    let chain = parent_chain(engine, item);
    let mut tied: HashSet<String> = engine.edges(item).iter().map(|e| e.other.clone()).collect();
    // A subtask serves what its task cites: the task's criteria are its own.
    for (p, _) in &chain {
        let is_task = engine
            .node(p)
            .is_some_and(|n| n.inline && n.kind == Kind::WorkItem && n.r#type.as_deref() != Some(PHASE));
        if !is_task {
            break;
        }
        let cites = engine.edges(p);
        tied.extend(
            cites
                .iter()
                .filter(|e| e.r#type == EdgeType::Relates)
                .map(|e| e.other.clone()),
        );
    }
    let in_chain = |id: &str| chain.iter().position(|(p, _)| p == id);
    // Of the items written inside the folder's files, the requirements and criteria its
    // words matched stay (a task may name what it validates in words only).
    let keep = |h: &Hit| match engine.node(&h.id) {
        Some(n) if n.inline => n.kind != Kind::WorkItem && (described || matches!(h.why, Why::Seed { .. })),
        _ => true,
    };
    results.retain(|h| h.id == item || tied.contains(&h.id) || in_chain(&h.id).is_some() || keep(h));
    let top = results.iter().map(|h| h.score).fold(0.0, f64::max);
    let mut steps: Vec<Step> = Vec::new();
    for (id, step) in &chain {
        steps.push(step.clone());
        if !results.iter().any(|h| &h.id == id)
            && let Some(mut h) = neighbor_hit(engine, id, steps.clone(), 1)
        {
            h.score = top;
            results.push(h);
        }
    }
    results.sort_by_key(|h| match in_chain(&h.id) {
        _ if h.id == item => 0,
        Some(0) => 1,
        _ if tied.contains(&h.id) => 2,
        Some(_) => 3,
        None => 4,
    });
}
