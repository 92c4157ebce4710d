//! Successors: a superseded record brings the record that replaced it, and in a
//! question about what replaced a named item ("what replaced ADR-0002", "what came
//! instead of X") that successor is the answer, ranked first.

use super::hits::neighbor_hit;
use super::{Engine, Hit, Why};
use crate::model::EdgeType;
use crate::model::graph::GraphEdge;
use crate::query::expand::Step;

/// Whether `e`, read from a record, leads to the record that replaced it.
fn to_successor(e: &GraphEdge) -> bool {
    (e.forward && e.r#type == EdgeType::SupersededBy) || (!e.forward && e.r#type == EdgeType::Supersedes)
}

/// A successor's hit, reached from `id`.
fn successor_hit(engine: &dyn Engine, id: &str, successor: &str) -> Option<Hit> {
    let step = Step {
        from: id.to_string(),
        edge: "superseded_by",
        to: successor.to_string(),
    };
    neighbor_hit(engine, successor, vec![step], 1)
}

/// A superseded ADR brings its successor (scored as itself, then weighted).
pub(super) fn add_successors(engine: &dyn Engine, out: &mut Vec<Hit>, weight: &dyn Fn(&Hit) -> f64) {
    let superseded: Vec<(String, f64)> = out
        .iter()
        .filter(|h| h.state.as_deref().is_some_and(|s| s.eq_ignore_ascii_case("superseded")))
        .map(|h| (h.id.clone(), h.score))
        .collect();
    for (id, score) in superseded {
        for e in engine.edges(&id).iter().filter(|e| to_successor(e)) {
            if !out.iter().any(|h| h.id == e.other)
                && let Some(mut h) = successor_hit(engine, &id, &e.other)
            {
                h.score = score * weight(&h);
                out.push(h);
            }
        }
    }
}

/// The records that replaced the items the question names come first, above the named
/// items themselves (brought in when the ranking did not reach them): "what replaced X"
/// is answered by X's successor, with X just below for what it was. An item named that
/// was replaced by nothing keeps its place ("what did ADR-0006 replace").
pub(super) fn successors_first(engine: &dyn Engine, out: &mut Vec<Hit>, weight: &dyn Fn(&Hit) -> f64) {
    let named: Vec<(String, f64)> = out
        .iter()
        .filter(|h| matches!(h.why, Why::Seed { exact_id: true, .. }))
        .map(|h| (h.id.clone(), h.score))
        .collect();
    let mut first: Vec<String> = Vec::new();
    for (id, score) in named {
        for e in engine.edges(&id).iter().filter(|e| to_successor(e)) {
            if first.contains(&e.other) {
                continue;
            }
            let Some(mut h) = successor_hit(engine, &id, &e.other) else {
                continue;
            };
            // First as the successor, whatever reached it before.
            match out.iter_mut().find(|o| o.id == e.other) {
                Some(o) => o.why = h.why,
                None => {
                    h.score = score * weight(&h);
                    out.push(h);
                }
            }
            first.push(e.other.clone());
        }
    }
    out.sort_by_key(|h| first.iter().position(|f| *f == h.id).unwrap_or(first.len()));
}
