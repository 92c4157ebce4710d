//! The answer to a question about the work left that names nothing to search for: the
//! items under way, those `ready` offers, then (for what is left) the rest unfinished,
//! as ranked results a pack can fill.

use super::{EngineKind, Hit, Results, Why};
use crate::model::Kind;
use crate::model::backlog::{Item, PHASE};

/// Results for `query` from `listed`: each status (`in progress`, `ready`, `waiting`,
/// `blocked`) with its items in order, at most `limit` in all, scored from 1 down so a
/// pack keeps their order. Spec Kit phases are left out: their state is their tasks'.
pub fn work_left(query: &str, engine: EngineKind, listed: &[(&'static str, Vec<&Item>)], limit: usize) -> Results {
    let is_work = |i: &&Item| i.r#type.as_deref() != Some(PHASE);
    let listed: Vec<(&'static str, Vec<&Item>)> = listed
        .iter()
        .map(|(status, items)| (*status, items.iter().copied().filter(is_work).collect()))
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
            score: super::hits::round(1.0 - rank as f64 / total as f64),
            nav: false,
            why: Why::Work { status, place, of },
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
