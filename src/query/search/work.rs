//! The answer to a question about the work left that names nothing to search for, or
//! only the scope of the work: the items under way, those `ready` offers, then (for what
//! is left) the rest unfinished, then the scope's own documents, as ranked results a
//! pack can fill.

use super::{EngineKind, Hit, Results, Why};
use crate::model::Kind;
use crate::model::backlog::{Item, PHASE};

/// The status of the scope's own documents, listed after its work.
pub const SCOPE: &str = "scope";

/// The status of what the scope is part of (its epic), listed last.
pub const SCOPE_PARENT: &str = "the scope's parent";

/// How far the last item's score falls below the first's: the order is kept, and no
/// item of the answer falls under a pack's relevance cliff (0.15 of the best).
const SPREAD: f64 = 0.8;

/// Results for `query` from `listed`: each status (`in progress`, `ready`, `waiting`,
/// `blocked`) with its items in order, at most `limit` in all, scored from 1 down to 0.2 so
/// a pack keeps their order. Spec Kit phases are left out: their state is their tasks'.
/// `scope` names the documents a question about their work names (empty for the whole
/// backlog).
pub fn work_left(
    query: &str,
    engine: EngineKind,
    listed: &[(&'static str, Vec<&Item>)],
    scope: &[String],
    limit: usize,
) -> Results {
    // (A phase the question names as its scope, "the MVP", is listed after its tasks.)
    let is_work =
        |status: &str, i: &Item| status == SCOPE || status == SCOPE_PARENT || i.r#type.as_deref() != Some(PHASE);
    let listed: Vec<(&'static str, Vec<&Item>)> = listed
        .iter()
        .map(|(status, items)| (*status, items.iter().copied().filter(|i| is_work(status, i)).collect()))
        .collect();
    let total: usize = listed
        .iter()
        .map(|(_, items)| items.len())
        .sum::<usize>()
        .min(limit)
        .max(1);
    let results = listed
        .iter()
        .flat_map(|(status, items)| {
            let of = items.len();
            items
                .iter()
                .enumerate()
                .map(move |(i, item)| (*status, i + 1, of, *item))
        })
        .take(limit)
        .enumerate()
        .map(|(rank, (status, place, of, item))| Hit {
            id: item.id.clone(),
            path: item.path.clone(),
            title: item.title.clone(),
            kind: Kind::WorkItem,
            r#type: item.r#type.clone(),
            state: item.state.clone(),
            score: super::hits::round(1.0 - SPREAD * rank as f64 / total as f64),
            nav: false,
            why: Why::Work {
                status,
                place,
                of,
                scope: scope.to_vec(),
            },
        })
        .collect();
    Results {
        schema: "mdgraph.search/1",
        query: query.to_string(),
        engine,
        terms: Vec::new(),
        results,
    }
}
