//! Backlog hygiene: what the graph's states contradict. Three rules, each a warning with
//! its own code (turned off or made an error by `[check] severity`):
//!
//! - `done-with-open-children`: an item in the done group with children still open,
//!   in progress or blocked (drafts are ideas, not work, documents with no state are no
//!   work, and optional children need not be done: they do not count);
//! - `superseded-without-successor`: a record whose state is Superseded with no
//!   `superseded_by` edge from it and no `supersedes` edge to it;
//! - `depends-on-dropped`: an unfinished item that waits (`depends_on`, `blocked_by`,
//!   or another's `blocks`) on one whose state says it will never be done (Rejected,
//!   Deprecated, Withdrawn, Cancelled, Superseded, …): the wait can never end.
//!
//! They read the whole graph, so `check` judges them where the whole graph is (never the
//! merge driver, which sees one file).

use super::graph::Backlog;
use super::states::PathState;
use crate::config::StateGroups;
use crate::model::backlog::{Group, fold_state};
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::model::{Edge, EdgeType, Kind, Node};
use std::collections::HashSet;

/// States that say an item will never be done, folded: waiting on one never ends. Not
/// the lifecycle states that may come back (an EIP's Stagnant) or step aside (Moved).
const NEVER: [&str; 12] = [
    "rejected",
    "deprecated",
    "withdrawn",
    "cancelled",
    "canceled",
    "dropped",
    "wontdo",
    "wontfix",
    "abandoned",
    "obsolete",
    "superseded",
    "duplicate",
];

/// The hygiene warnings of a graph's documents (`nodes` may hold chunks; they are
/// skipped) and edges, with the state groups of `[states]`; sorted by path and line.
pub fn hygiene(nodes: &[Node], edges: &[Edge], groups: &StateGroups) -> Vec<Diagnostic> {
    let b = Backlog::new(nodes, edges, groups);
    let mut out = done_with_open_children(&b);
    out.extend(superseded_without_successor(&b, edges));
    out.extend(depends_on_dropped(&b, edges));
    out.sort_by(|a, b| (a.path.as_str(), a.line, a.code).cmp(&(b.path.as_str(), b.line, b.code)));
    out
}

/// The state a document shows, for messages.
fn shown(n: &Node) -> &str {
    n.state.as_deref().unwrap_or("no state")
}

fn done_with_open_children(b: &Backlog) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for d in b.docs.values().filter(|d| d.group == Group::Done) {
        let Some(children) = b.children.get(d.node.id.as_str()) else {
            continue;
        };
        let open: Vec<String> = children
            .iter()
            .filter_map(|c| b.docs.get(c))
            .filter(|c| !c.group.is_closed() && !matches!(c.rule, Some((_, PathState::Draft))))
            // A document with no state (a story's acceptance criterion, a feature's plan)
            // is no work, as `tree` counts it: nothing to finish.
            .filter(|c| c.node.state.is_some() || c.node.kind != Kind::Doc)
            // An optional child (Kiro's `- [ ]* 2.1`, `optional: true`) need not be done.
            .filter(|c| c.node.field_values("optional").first().map(String::as_str) != Some("true"))
            .filter(|c| !in_cycle(b, d.node.id.as_str(), c.node.id.as_str()))
            .map(|c| format!("{} ({})", c.node.id, shown(c.node)))
            .collect();
        if open.is_empty() {
            continue;
        }
        out.push(
            Diagnostic::new(
                &d.node.path,
                d.node.line.unwrap_or(1),
                Severity::Warning,
                Code::DoneWithOpenChildren,
                format!(
                    "`{}` is {} but {} of its {} children {} not finished: {}",
                    d.node.id,
                    shown(d.node),
                    open.len(),
                    children.len(),
                    if open.len() == 1 { "is" } else { "are" },
                    open.join(", ")
                ),
            )
            .about(&d.node.id),
        );
    }
    out
}

/// Whether `child` is also among `parent`'s ancestors: a parent cycle, which is an
/// error of its own (`parent-cycle`), not a question of states.
fn in_cycle(b: &Backlog, parent: &str, child: &str) -> bool {
    let mut at = parent;
    for _ in 0..b.parent.len() {
        match b.parent.get(at) {
            Some(&up) if up == child => return true,
            Some(&up) if up != at => at = up,
            _ => return false,
        }
    }
    false
}

fn superseded_without_successor(b: &Backlog, edges: &[Edge]) -> Vec<Diagnostic> {
    let replaced: HashSet<&str> = edges
        .iter()
        .filter_map(|e| match e.r#type {
            EdgeType::SupersededBy => Some(e.source.as_str()),
            EdgeType::Supersedes => Some(e.target.as_str()),
            _ => None,
        })
        .collect();
    b.docs
        .values()
        .filter(|d| d.node.state.as_deref().is_some_and(|s| fold_state(s) == "superseded"))
        .filter(|d| !replaced.contains(d.node.id.as_str()))
        .map(|d| {
            Diagnostic::new(
                &d.node.path,
                d.node.line.unwrap_or(1),
                Severity::Warning,
                Code::SupersededWithoutSuccessor,
                format!(
                    "`{}` is {} but names no successor: link it (\"Superseded by [ADR-…](…)\", or `superseded_by:`)",
                    d.node.id,
                    shown(d.node)
                ),
            )
            .about(&d.node.id)
        })
        .collect()
}

fn depends_on_dropped(b: &Backlog, edges: &[Edge]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for e in edges {
        let (waiting, on) = match e.r#type {
            EdgeType::DependsOn | EdgeType::BlockedBy => (&e.source, &e.target),
            EdgeType::Blocks => (&e.target, &e.source),
            _ => continue,
        };
        let (Some(w), Some(o)) = (b.docs.get(waiting.as_str()), b.docs.get(on.as_str())) else {
            continue;
        };
        let never = o
            .node
            .state
            .as_deref()
            .is_some_and(|s| NEVER.contains(&fold_state(s).as_str()));
        if w.group.is_closed() || !never {
            continue;
        }
        out.push(
            Diagnostic::new(
                &e.path,
                e.line,
                Severity::Warning,
                Code::DependsOnDropped,
                format!(
                    "`{waiting}` ({}) waits on `{on}`, which is {}: it will never be done; drop the dependency or point it at what replaced it",
                    shown(w.node),
                    shown(o.node)
                ),
            )
            .about(on.as_str()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, state: &str) -> Node {
        Node {
            id: id.into(),
            path: format!("{id}.md"),
            kind: Kind::WorkItem,
            state: (!state.is_empty()).then(|| state.to_string()),
            ..Node::default()
        }
    }

    fn edge(s: &str, t: EdgeType, target: &str, line: u32) -> Edge {
        Edge {
            source: s.into(),
            target: target.into(),
            r#type: t,
            origin: crate::model::Origin::Frontmatter,
            path: format!("{s}.md"),
            line,
            weight: 1.0,
        }
    }

    fn codes(d: &[Diagnostic]) -> Vec<(String, u32, &'static str)> {
        d.iter().map(|d| (d.path.clone(), d.line, d.code.as_str())).collect()
    }

    #[test]
    fn each_rule_finds_its_contradiction_and_nothing_else() {
        let nodes = vec![
            node("EPIC", "Done"),
            node("A", "To Do"),
            node("B", "Done"),
            node("OLD", "Superseded"),
            node("GONE", "Superseded"),
            node("NEW", "Accepted"),
            node("NO", "Rejected"),
            node("T", "In Progress"),
            node("FIN", "Done"),
            node("STALE", "Stagnant"),
        ];
        let edges = vec![
            edge("A", EdgeType::Parent, "EPIC", 3),
            edge("B", EdgeType::Parent, "EPIC", 3),
            // A parent cycle is an error of its own: a Done item in one is no finding.
            edge("FIN", EdgeType::Parent, "T", 2),
            edge("T", EdgeType::Parent, "FIN", 2),
            edge("OLD", EdgeType::SupersededBy, "NEW", 5),
            edge("T", EdgeType::DependsOn, "NO", 4),
            // A finished item's old dependency is history, not a problem.
            edge("FIN", EdgeType::DependsOn, "NO", 4),
            // A rejected item that blocks an open one: the wait never ends either.
            edge("NO", EdgeType::Blocks, "A", 7),
            // Stagnant may come back.
            edge("T", EdgeType::DependsOn, "STALE", 6),
        ];
        let got = hygiene(&nodes, &edges, &StateGroups::default());
        assert_eq!(
            codes(&got),
            [
                ("EPIC.md".to_string(), 1, "done-with-open-children"),
                ("GONE.md".to_string(), 1, "superseded-without-successor"),
                ("NO.md".to_string(), 7, "depends-on-dropped"),
                ("T.md".to_string(), 4, "depends-on-dropped"),
            ]
        );
        assert!(
            got[0]
                .message
                .contains("1 of its 2 children is not finished: A (To Do)"),
            "{}",
            got[0].message
        );
    }

    #[test]
    fn a_successor_named_from_the_other_side_counts_and_drafts_are_no_open_children() {
        let mut groups = StateGroups::default();
        groups.paths.insert("drafts/**".into(), "draft".into());
        let mut idea = node("IDEA", "To Do");
        idea.path = "drafts/IDEA.md".into();
        let nodes = vec![
            node("EPIC", "Done"),
            idea,
            node("OLD", "Superseded"),
            node("NEW", "Accepted"),
        ];
        let edges = vec![
            edge("IDEA", EdgeType::Parent, "EPIC", 2),
            edge("NEW", EdgeType::Supersedes, "OLD", 5),
        ];
        assert_eq!(hygiene(&nodes, &edges, &groups), Vec::new());
    }

    #[test]
    fn documents_with_no_state_and_optional_tasks_are_no_open_children() {
        // A Done BMAD story's acceptance criteria (security-design-assistant: 21 stories
        // warned "9 of its 16 children are not finished: 2.1/AC1 (no state), …").
        let mut ac = node("S/AC1", "");
        ac.kind = Kind::Doc;
        // And Kiro's optional tasks (SpaceWeirdos: 31 of 32 warnings were a done task
        // with `- [ ]* 2.1 Write property test …` under it).
        let mut optional = node("S/3", "open");
        optional.fields = serde_json::value::to_raw_value(&serde_json::json!({"optional": true})).ok();
        let nodes = vec![node("S", "Done"), ac, node("S/1", "Done"), node("S/2", ""), optional];
        let edges = vec![
            edge("S/AC1", EdgeType::Parent, "S", 2),
            edge("S/1", EdgeType::Parent, "S", 3),
            edge("S/2", EdgeType::Parent, "S", 4),
            edge("S/3", EdgeType::Parent, "S", 5),
        ];
        let got = hygiene(&nodes, &edges, &StateGroups::default());
        assert_eq!(got.len(), 1);
        assert!(
            got[0]
                .message
                .ends_with("1 of its 4 children is not finished: S/2 (no state)"),
            "{}",
            got[0].message
        );
    }
}
