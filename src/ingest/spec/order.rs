//! Each spec format's order, written as `depends_on` edges and rolled-up states: Spec
//! Kit's phases and `[P]` tasks (box or heading), Kiro's siblings, BMAD's tasks written
//! as headings.

use super::items::cites::push_ref;
use super::items::{Item, roll};
use super::{Format, Scope};
use crate::model::EdgeType;

/// Spec Kit's order, written as edges: within a phase a task without `[P]` waits for the
/// tasks before it (since the last one without `[P]`); a user-story phase waits for the
/// phases before the first story phase (setup, foundational); a later phase that is no
/// story's waits for all before it; a phase is done when all its tasks are. Kiro: a task
/// waits for its earlier siblings, and so does a phase.
pub fn order_rules(scope: &Scope, items: &mut [Item]) {
    match scope.format {
        Format::SpecKit if scope.file == "tasks" => speckit_order(items),
        Format::Kiro => {
            // A task heading with no outputs and no status line is its sub-tasks' work
            // (`## Task 1:` over `- [ ] 1.1`), deepest first; then the phases.
            let heads: Vec<usize> = (0..items.len())
                .rev()
                .filter(|&i| items[i].state.is_none() && items[i].r#type == "Task")
                .collect();
            for h in heads {
                items[h].state = required_state(items, h);
            }
            let phases: Vec<usize> = (0..items.len())
                .filter(|&i| items[i].r#type == crate::model::backlog::PHASE)
                .collect();
            for p in phases {
                items[p].state = required_state(items, p);
            }
            sibling_order(items);
        }
        Format::BmadStory => {
            let heads: Vec<usize> = (0..items.len())
                .filter(|&i| items[i].state.is_none() && items[i].r#type == "Task")
                .collect();
            // A task heading with no boxes under it (`### Task 1: …` over a plain list)
            // has nothing that says its state: no work, as a phase without tasks.
            for h in heads {
                items[h].state = rolled_state(items, h);
            }
        }
        _ => {}
    }
}

/// The state of an item without a box of its own from the items under it that have a
/// state ([`roll`]); none when none has.
fn rolled_state(items: &[Item], at: usize) -> Option<&'static str> {
    let local = &items[at].local;
    let under: Vec<&str> = items
        .iter()
        .filter(|t| t.parent.as_deref() == Some(local))
        .filter_map(|t| t.state)
        .collect();
    roll(&under)
}

/// A Kiro phase's state (a heading over tasks whose parent number has no task): done when
/// its tasks are, optional ones aside (unless it holds no other), as Kiro's parent task.
fn required_state(items: &[Item], at: usize) -> Option<&'static str> {
    let local = &items[at].local;
    let under: Vec<&Item> = items.iter().filter(|t| t.parent.as_ref() == Some(local)).collect();
    let required: Vec<&str> = under.iter().filter(|t| !t.optional).filter_map(|t| t.state).collect();
    let all: Vec<&str> = under.iter().filter_map(|t| t.state).collect();
    roll(&required).or_else(|| roll(&all))
}

fn speckit_order(items: &mut [Item]) {
    // A phase is its tasks' work: one without tasks that have a state (no tasks, or task
    // headings with nothing that says their state) is no work of its own, never ready nor
    // counted, and nothing waits for it.
    let phases: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].r#type == crate::model::backlog::PHASE)
        .collect();
    let work: Vec<bool> = phases.iter().map(|&p| rolled_state(items, p).is_some()).collect();
    let is_story = |it: &Item| it.refs.iter().any(|r| r.target.starts_with("US"));
    let first_story = phases.iter().position(|&p| is_story(&items[p]));
    for (k, &p) in phases.iter().enumerate() {
        let before: Vec<String> = match first_story {
            Some(fs) if is_story(&items[p]) => (0..fs)
                .filter(|&j| work[j])
                .map(|j| items[phases[j]].local.clone())
                .collect(),
            _ => (0..k)
                .rev()
                .find(|&j| work[j])
                .map(|j| items[phases[j]].local.clone())
                .into_iter()
                .collect(),
        };
        let line = items[p].line;
        for b in before {
            push_ref(&mut items[p].refs, EdgeType::DependsOn, b, line);
        }
        items[p].state = rolled_state(items, p);
    }
    // Within a phase: wait for the tasks since the last one without [P] (tasks with a
    // state: a task heading with nothing that says its state is no work to wait for).
    let mut run: Vec<String> = Vec::new();
    let mut phase: Option<String> = None;
    for it in items.iter_mut().filter(|t| t.r#type == "Task" && t.state.is_some()) {
        if it.parent != phase {
            phase = it.parent.clone();
            run.clear();
        }
        if !it.parallel {
            for b in &run {
                push_ref(&mut it.refs, EdgeType::DependsOn, b.clone(), it.line);
            }
            run.clear();
        }
        run.push(it.local.clone());
    }
}

/// Kiro: a task waits for its previous sibling, and a phase for the task or phase before
/// it (a phase is the top-level task its heading stands for). An optional task (`- [ ]*`)
/// holds nothing: the task after it waits for the required one before it.
fn sibling_order(items: &mut [Item]) {
    let mut last: std::collections::HashMap<Option<String>, String> = std::collections::HashMap::new();
    for it in items
        .iter_mut()
        .filter(|t| t.r#type == "Task" || t.r#type == crate::model::backlog::PHASE)
    {
        let prev = if it.optional {
            last.get(&it.parent).cloned()
        } else {
            last.insert(it.parent.clone(), it.local.clone())
        };
        if let Some(prev) = prev {
            push_ref(&mut it.refs, EdgeType::DependsOn, prev, it.line);
        }
    }
}
