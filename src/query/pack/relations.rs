//! Relations: an item's frontmatter relations with their targets' states, and the
//! relations line that shows them.

use super::{MAX_TARGETS, Relation};
use crate::config::StateGroups;
use crate::model::EdgeType;
use crate::query::backlog::group_of;
use crate::query::search::Engine;
use crate::text::render;
use std::collections::BTreeMap;

/// `blocked_by QRY-TSK-0004 (InProgress), QRY-BUG-0005 (InProgress) · parent …`, with
/// `+N more` where a relation has more targets than listed (`more`).
pub fn relations_line(relations: &[Relation], more: &BTreeMap<&'static str, usize>) -> String {
    let mut groups: Vec<(&str, Vec<&Relation>)> = Vec::new();
    for r in relations {
        match groups.iter_mut().find(|(k, _)| *k == r.rel) {
            Some((_, v)) => v.push(r),
            None => groups.push((r.rel, vec![r])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(rel, v)| {
            let mut shown: Vec<String> = v
                .iter()
                .map(|r| match &r.state {
                    Some(s) => format!("{} ({})", r.id, render::one_line(s)),
                    None => r.id.clone(),
                })
                .collect();
            if let Some(n) = more.get(rel).filter(|n| **n > 0) {
                shown.push(format!("+{n} more"));
            }
            format!("{rel} {}", shown.join(", "))
        })
        .collect();
    parts.join(" · ")
}

/// The relation of an edge as read from `id`'s side, for the relations line; None for
/// body links, mentions and `relates` (which never block and rarely matter to a reader).
fn relation_name(t: EdgeType, forward: bool) -> Option<(&'static str, u8)> {
    use EdgeType::*;
    Some(match (t, forward) {
        (Parent, true) => ("parent", 0),
        (BlockedBy, true) | (Blocks, false) => ("blocked_by", 1),
        (DependsOn, true) => ("depends_on", 2),
        (Blocks, true) | (BlockedBy, false) => ("blocks", 3),
        (DependsOn, false) => ("required_by", 4),
        (DecisionRef, true) => ("decisions", 5),
        (Supersedes, true) | (SupersededBy, false) => ("supersedes", 6),
        (SupersededBy, true) | (Supersedes, false) => ("superseded_by", 7),
        (Parent, false) => ("children", 8),
        (DecisionRef, false) => ("decides", 9),
        _ => return None,
    })
}

/// Most targets of one relation whose states are looked up to order them (open first):
/// an epic with more children lists its first ones by id. Each lookup is a query on the
/// SQLite engine: with 256, `pack` at 10k items went from 4.3 to 6.4 ms p50; with 32,
/// 4.4 ms (BENCHMARKS.md, stop 22).
const ORDERED_TARGETS: usize = 32;

/// A document's relations with their targets' states, grouped in a fixed order: at most
/// [`MAX_TARGETS`] of each relation, open targets first (by id), finished ones after, so an
/// open child is never hidden behind "+N more" while a finished one is listed; and how
/// many more each relation has.
pub fn relations(engine: &dyn Engine, id: &str) -> (Vec<Relation>, BTreeMap<&'static str, usize>) {
    let edges = engine.edges(id);
    let mut seen: BTreeMap<(u8, &str), &'static str> = BTreeMap::new();
    for e in edges.iter() {
        if let Some((rel, order)) = relation_name(e.r#type, e.forward) {
            seen.entry((order, e.other.as_str())).or_insert(rel);
        }
    }
    // Targets per relation, in the fixed order of relations and by id within one.
    let mut groups: Vec<(&'static str, Vec<&str>)> = Vec::new();
    for ((_, other), rel) in seen {
        match groups.last_mut() {
            Some((r, v)) if *r == rel => v.push(other),
            _ => groups.push((rel, vec![other])),
        }
    }
    let defaults = StateGroups::default();
    let mut more: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut list = Vec::new();
    for (rel, targets) in groups {
        // States only for the targets that can be shown or ordered: an epic with a
        // thousand children would otherwise cost a thousand lookups per pack item.
        let mut with: Vec<(bool, &str, Option<String>)> = if targets.len() <= ORDERED_TARGETS {
            targets
                .iter()
                .map(|t| {
                    let state = engine.state(t);
                    (group_of(state.as_deref(), &defaults).is_closed(), *t, state)
                })
                .collect()
        } else {
            targets
                .iter()
                .take(MAX_TARGETS)
                .map(|t| (false, *t, engine.state(t)))
                .collect()
        };
        // Open first, then by id with its numbers by value (`phase-7` before `phase-10`).
        with.sort_by_cached_key(|(closed, t, _)| (*closed, crate::query::backlog::natural(t), *t));
        let n = targets.len();
        if n > MAX_TARGETS {
            more.insert(rel, n - MAX_TARGETS);
        }
        list.extend(with.into_iter().take(MAX_TARGETS).map(|(_, t, state)| Relation {
            rel,
            state,
            id: t.to_string(),
        }));
    }
    (list, more)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relations_line_names_states_and_counts_the_rest() {
        let r = |rel, id: &str, state: Option<&str>| Relation {
            rel,
            id: id.to_string(),
            state: state.map(str::to_string),
        };
        let list = [
            r("blocked_by", "T-4", Some("InProgress")),
            r("blocked_by", "B-5", Some("In progress")),
            r("children", "S-1", None),
        ];
        let more = BTreeMap::from([("children", 92)]);
        assert_eq!(
            relations_line(&list, &more),
            "blocked_by T-4 (InProgress), B-5 (In progress) · children S-1, +92 more"
        );
        assert_eq!(
            relations_line(&list[..1], &BTreeMap::new()),
            "blocked_by T-4 (InProgress)"
        );
    }
    #[test]
    fn relation_names_read_an_edge_from_its_side() {
        assert_eq!(relation_name(EdgeType::BlockedBy, true), Some(("blocked_by", 1)));
        assert_eq!(relation_name(EdgeType::Blocks, false), Some(("blocked_by", 1)));
        assert_eq!(relation_name(EdgeType::Blocks, true), Some(("blocks", 3)));
        assert_eq!(relation_name(EdgeType::Parent, false), Some(("children", 8)));
        assert_eq!(relation_name(EdgeType::DependsOn, false), Some(("required_by", 4)));
        // Body links and mentions are no relation a reader is told about.
        assert_eq!(relation_name(EdgeType::LinksTo, true), None);
        assert_eq!(relation_name(EdgeType::Mentions, false), None);
    }
}
