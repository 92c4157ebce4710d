//! Expansion: from the seed documents, a bounded breadth-first walk over allowlisted
//! edges brings in their load-bearing neighbors (the parent feature, the deciding ADR,
//! the blocker), remembering the path that pulled each one in.
//!
//! Neighbor score = seed score × edge weight × hop_decay^hop, divided from the second hop
//! on by ln(e + b − 1)^hub_damping where b is the branching of the step: how many edges
//! leave the node stepped out of in the direction walked (its requirements when walking
//! forward, what requires it when walking backward). Strong edges first, far hops and
//! fans damped, and a seed's own parent, decision or dependency undamped however popular
//! it is (evaluation on the EIPs: damping by the neighbor's degree pushed exactly those
//! load-bearing documents down; damping by the whole degree of the node stepped out of
//! cut the requirements of a popular requirement, EVAL.md). Edges walked backwards weigh
//! [`BACKWARD`] of their type's weight. Per seed
//! at most `max_neighbors_per_seed`
//! (strongest edges first, ties by id), at most `max_neighbors` in all, `k_hop` ≤ 4:
//! the walk is bounded however dense the graph (a hub's edges are read once and cut).

use crate::config::GraphSettings;
use crate::model::EdgeType;
pub use crate::model::graph::GraphEdge;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

/// Where the graph comes from (the SQLite mirror or the sidecar in memory).
pub trait GraphSource {
    /// Document-level edges touching `id`, either direction (no `section_of`).
    fn edges(&self, id: &str) -> Cow<'_, [GraphEdge]>;
}

/// One step of a path, as walked: `from —edge→ to`. Walking an edge backwards is named
/// for the reverse relation (`parent` backwards is `child`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// Node walked from.
    pub from: String,
    /// Relation walked.
    pub edge: &'static str,
    /// Node reached.
    pub to: String,
}

/// A total order on f64 for ranking keys.
#[derive(Debug, Clone, Copy, PartialEq)]
struct OrdF64(f64);
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// The name of an edge walked against its direction.
pub fn reverse_name(t: EdgeType) -> &'static str {
    match t {
        EdgeType::Parent => "child",
        EdgeType::DecisionRef => "decides",
        EdgeType::Relates => "relates",
        EdgeType::Blocks => "blocked_by",
        EdgeType::BlockedBy => "blocks",
        EdgeType::DependsOn => "required_by",
        EdgeType::Supersedes => "superseded_by",
        EdgeType::SupersededBy => "supersedes",
        EdgeType::LinksTo => "linked_from",
        EdgeType::Mentions => "mentioned_by",
        EdgeType::SectionOf => "section",
    }
}

/// A document reached from a seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbor {
    /// Node id.
    pub id: String,
    /// Best score over the paths that reach it.
    pub score: f64,
    /// The path of that best score, from its seed.
    pub path: Vec<Step>,
    /// How many seeds' walks reached it.
    pub paths: usize,
}

/// How the walk takes the links out of a navigation page, which are many and of equal
/// weight: those to documents that matched the query by themselves first.
pub struct NavOrder<'a> {
    /// Whether a document is a navigation page.
    pub is_nav: &'a dyn Fn(&str) -> bool,
    /// How well a document matched the query by itself (0 when it did not).
    pub relevance: &'a dyn Fn(&str) -> f64,
}

/// Weight factor of an edge walked against its direction (a feature's children, the
/// documents that require this one), unless the question asks about its type: what a
/// document declares (its parent, requirements, blockers, decision) is load-bearing for
/// it; what points at it is context. On equal terms the declared relation wins.
pub const BACKWARD: f64 = 0.9;

/// Weight factor of an edge type the question asks about ([`Intent::edge_types`](crate::query::intent::Intent::edge_types)).
pub const FOCUS_BOOST: f64 = 1.5;

/// Walk from `seeds` ((id, score), best first). Returns every document reached,
/// including seeds reached from other seeds, keyed by id.
///
/// For a question about the `focus` edge types (none: a plain walk), those edges are taken first
/// and weigh [`FOCUS_BOOST`] times more (at most 1), have their own per-seed cap,
/// and are walked one hop further than `k_hop` (at least two hops: the blocker of the
/// feature's task). Out of a navigation page, edges of equal weight go by `nav`'s
/// relevance before their ids.
pub fn expand_focused(
    src: &dyn GraphSource,
    seeds: &[(String, f64)],
    g: &GraphSettings,
    focus: &[EdgeType],
    nav: Option<&NavOrder>,
) -> BTreeMap<String, Neighbor> {
    let walk = Walk::new(src, g, focus, nav);
    let mut reached: BTreeMap<String, Neighbor> = BTreeMap::new();
    for (seed, seed_score) in seeds {
        walk.walk_from(seed, *seed_score, &mut reached);
    }
    // Global cap, best first (ties by id); seeds reached from other seeds always stay,
    // since they are in the results anyway.
    let seed_ids: HashSet<&String> = seeds.iter().map(|(s, _)| s).collect();
    let mut others: Vec<&Neighbor> = reached.values().filter(|n| !seed_ids.contains(&n.id)).collect();
    others.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    let keep: HashSet<String> = others.iter().take(g.max_neighbors).map(|n| n.id.clone()).collect();
    reached.retain(|id, _| keep.contains(id) || seed_ids.contains(id));
    reached
}

/// A walk's graph and rules, the same from every seed.
struct Walk<'a> {
    src: &'a dyn GraphSource,
    g: &'a GraphSettings,
    focus: &'a [EdgeType],
    nav: Option<&'a NavOrder<'a>>,
    /// The allowed edge types as a bit set (asked of every edge the walk sees).
    mask: u64,
    max_hop: usize,
}

impl<'a> Walk<'a> {
    fn new(
        src: &'a dyn GraphSource,
        g: &'a GraphSettings,
        focus: &'a [EdgeType],
        nav: Option<&'a NavOrder<'a>>,
    ) -> Self {
        const _: () = assert!(crate::model::EDGE_TYPES.len() <= 64);
        let mask = g
            .edge_allowlist
            .iter()
            .chain(focus)
            .fold(0u64, |m, &t| m | 1 << t as u64);
        let max_hop = if focus.is_empty() {
            g.k_hop
        } else {
            (g.k_hop + 1).clamp(2, 4)
        };
        Walk {
            src,
            g,
            focus,
            nav,
            mask,
            max_hop,
        }
    }

    fn allowed(&self, t: EdgeType) -> bool {
        self.mask & (1 << t as u64) != 0
    }

    /// The breadth-first walk from one seed, hop by hop, into `reached`.
    fn walk_from(&self, seed: &str, seed_score: f64, reached: &mut BTreeMap<String, Neighbor>) {
        let g = self.g;
        let mut visited: HashSet<String> = HashSet::from([seed.to_string()]);
        let mut frontier: Vec<(String, Vec<Step>)> = vec![(seed.to_string(), Vec::new())];
        let (mut taken, mut taken_focus) = (0usize, 0usize);
        for hop in 1..=self.max_hop {
            let mut next = Vec::new();
            for (node, path) in &frontier {
                let (cands, fan_out, fan_in) = self.candidates(node, hop, &visited);
                for (e, _) in cands {
                    let counter = if self.focus.contains(&e.r#type) {
                        &mut taken_focus
                    } else {
                        &mut taken
                    };
                    if *counter >= g.max_neighbors_per_seed {
                        continue;
                    }
                    *counter += 1;
                    visited.insert(e.other.clone());
                    let damping = self.damping(hop, if e.forward { fan_out } else { fan_in });
                    let score = seed_score * e.weight * g.hop_decay.powi(hop as i32) / damping;
                    let mut p = path.clone();
                    p.push(Step {
                        from: node.clone(),
                        edge: if e.forward {
                            e.r#type.as_str()
                        } else {
                            reverse_name(e.r#type)
                        },
                        to: e.other.clone(),
                    });
                    let entry = reached.entry(e.other.clone()).or_insert(Neighbor {
                        id: e.other.clone(),
                        score: f64::MIN,
                        path: Vec::new(),
                        paths: 0,
                    });
                    entry.paths += 1;
                    if score > entry.score {
                        entry.score = score;
                        entry.path = p.clone();
                    }
                    next.push((e.other, p));
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
    }

    /// The edges to take out of `node` at `hop`, in the order they are taken, each with
    /// its relevance out of a navigation page; and the node's branching forward and
    /// backward.
    fn candidates(&self, node: &str, hop: usize, visited: &HashSet<String>) -> (Vec<(GraphEdge, f64)>, usize, usize) {
        let (g, focus) = (self.g, self.focus);
        // The strongest edge to each other document.
        let mut best: BTreeMap<&str, GraphEdge> = BTreeMap::new();
        let edges = self.src.edges(node);
        // The branching of a step out of this node, in the direction walked.
        let fan = |forward: bool| {
            edges
                .iter()
                .filter(|e| e.forward == forward && self.allowed(e.r#type))
                .count()
        };
        let (fan_out, fan_in) = (fan(true), fan(false));
        for edge in edges.iter() {
            let focused = focus.contains(&edge.r#type);
            if !self.allowed(edge.r#type)
                || (!edge.forward && !g.backwards)
                || visited.contains(&edge.other)
                || (hop > g.k_hop && !focused)
            {
                continue;
            }
            let mut e = edge.clone();
            if focused {
                // As strong as the strongest edges, never above the seed.
                e.weight = (e.weight * FOCUS_BOOST).min(1.0);
            } else if !e.forward {
                e.weight *= BACKWARD;
            }
            // Strongest edge; equal weights by type, then forward first, so both
            // engines (which list edges in different orders) pick the same one.
            let rank = |x: &GraphEdge| (std::cmp::Reverse(OrdF64(x.weight)), x.r#type, !x.forward);
            let keep = best.get(edge.other.as_str()).is_none_or(|b| rank(&e) < rank(b));
            if keep {
                best.insert(edge.other.as_str(), e);
            }
        }
        let by_relevance = self.nav.filter(|n| (n.is_nav)(node));
        let mut cands: Vec<(GraphEdge, f64)> = best
            .into_values()
            .map(|e| {
                let r = by_relevance.map_or(0.0, |n| (n.relevance)(&e.other));
                (e, r)
            })
            .collect();
        // Edges the question asks about first, then the strongest (ties by id, or
        // out of a navigation page by relevance, then id).
        cands.sort_by(|(a, ra), (b, rb)| {
            let fa = focus.contains(&a.r#type);
            let fb = focus.contains(&b.r#type);
            fb.cmp(&fa)
                .then_with(|| b.weight.total_cmp(&a.weight))
                .then_with(|| rb.total_cmp(ra))
                .then_with(|| a.other.cmp(&b.other))
        });
        (cands, fan_out, fan_in)
    }

    /// Hub damping applies to steps out of a node reached by the walk (hop ≥ 2), never
    /// to the seed's own edges, and counts the branching `n` in the direction walked: a
    /// popular requirement (many documents require it) still passes its own few
    /// requirements on.
    fn damping(&self, hop: usize, n: usize) -> f64 {
        if hop > 1 && self.g.hub_damping > 0.0 {
            (std::f64::consts::E + n.saturating_sub(1) as f64)
                .ln()
                .powf(self.g.hub_damping)
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain walk: no focus, no navigation order.
    fn expand(src: &dyn GraphSource, seeds: &[(String, f64)], g: &GraphSettings) -> BTreeMap<String, Neighbor> {
        expand_focused(src, seeds, g, &[], None)
    }

    use std::collections::HashMap;

    struct Map(HashMap<String, Vec<GraphEdge>>);
    impl GraphSource for Map {
        fn edges(&self, id: &str) -> Cow<'_, [GraphEdge]> {
            Cow::Borrowed(self.0.get(id).map_or(&[], Vec::as_slice))
        }
    }

    fn graph(edges: &[(&str, &str, EdgeType)]) -> Map {
        let mut m: HashMap<String, Vec<GraphEdge>> = HashMap::new();
        for (a, b, t) in edges {
            m.entry(a.to_string()).or_default().push(GraphEdge {
                other: b.to_string(),
                r#type: *t,
                forward: true,
                weight: t.weight(),
            });
            m.entry(b.to_string()).or_default().push(GraphEdge {
                other: a.to_string(),
                r#type: *t,
                forward: false,
                weight: t.weight(),
            });
        }
        Map(m)
    }

    #[test]
    fn allowlist_direction_and_names() {
        use EdgeType::*;
        let g = graph(&[
            ("T", "F", Parent),
            ("F", "E", Parent),
            ("T", "X", Mentions),
            ("A", "F", DecisionRef),
        ]);
        let mut s = GraphSettings {
            k_hop: 1,
            ..GraphSettings::default()
        };
        let r = expand(&g, &[("F".into(), 1.0)], &s);
        let ids: Vec<&str> = r.keys().map(String::as_str).collect();
        assert_eq!(ids, ["A", "E", "T"]);
        assert_eq!(r["T"].path[0].edge, "child");
        assert_eq!(r["A"].path[0].edge, "decides");
        s.backwards = false;
        let r = expand(&g, &[("F".into(), 1.0)], &s);
        assert_eq!(r.keys().map(String::as_str).collect::<Vec<_>>(), ["E"]);
        // Mentions are not in the default allowlist; two hops reach the epic from the task.
        let s2 = GraphSettings {
            k_hop: 2,
            ..GraphSettings::default()
        };
        let r = expand(&g, &[("T".into(), 1.0)], &s2);
        assert!(!r.contains_key("X"));
        assert_eq!(r["E"].path.len(), 2);
    }

    #[test]
    fn hub_with_ten_thousand_children_is_capped() {
        use EdgeType::*;
        let kids: Vec<String> = (0..10_000).map(|i| format!("K{i:05}")).collect();
        let edges: Vec<(&str, &str, EdgeType)> = kids.iter().map(|k| (k.as_str(), "HUB", Parent)).collect();
        let g = graph(&edges);
        let s = GraphSettings {
            k_hop: 3,
            max_neighbors_per_seed: 4,
            max_neighbors: 10,
            ..GraphSettings::default()
        };
        let r = expand(&g, &[("HUB".into(), 1.0), ("K00042".into(), 0.5)], &s);
        assert!(r.len() <= 10 + 2, "{}", r.len());
        // Per-seed cap, ties broken by id: the first children by name.
        let kids: Vec<&String> = r.keys().filter(|k| k.starts_with('K') && *k != "K00042").collect();
        assert!(
            !kids.is_empty() && kids.iter().all(|k| k.as_str() < "K00004"),
            "{kids:?}"
        );
        // The first hop is not damped: a child's parent is load-bearing, hub or not.
        let only_child = expand(&g, &[("K00042".into(), 0.5)], &GraphSettings { k_hop: 2, ..s.clone() });
        let hub = &only_child["HUB"];
        assert!((hub.score - 0.5 * 0.75).abs() < 1e-12, "{}", hub.score);
        // Walking on through the hub to its other children (backwards) is damped by their
        // number: 0.5 · BACKWARD · 0.75² / ln(e + 9999).
        let sibling = only_child.values().find(|n| n.path.len() == 2).unwrap();
        let want = 0.5 * BACKWARD * 0.75 * 0.75 / (std::f64::consts::E + 9999.0).ln();
        assert!((sibling.score - want).abs() < 1e-12, "{}", sibling.score);
        let undamped = expand(
            &g,
            &[("K00042".into(), 0.5)],
            &GraphSettings {
                k_hop: 2,
                hub_damping: 0.0,
                ..s.clone()
            },
        );
        let sibling = undamped.values().find(|n| n.path.len() == 2).unwrap();
        assert!(
            (sibling.score - 0.5 * BACKWARD * 0.75 * 0.75).abs() < 1e-12,
            "{}",
            sibling.score
        );
    }

    #[test]
    fn a_popular_requirement_passes_its_own_requirements_on() {
        // S requires R; R is required by 500 others and itself requires A and B. The step
        // from R to A is damped by R's two requirements, not by its 500 dependents, and
        // the requirement chain outranks the documents that merely require R too.
        use EdgeType::*;
        let users: Vec<String> = (0..500).map(|i| format!("U{i:03}")).collect();
        let mut edges: Vec<(&str, &str, EdgeType)> = users.iter().map(|u| (u.as_str(), "R", DependsOn)).collect();
        edges.extend([("S", "R", DependsOn), ("R", "A", DependsOn), ("R", "B", DependsOn)]);
        let g = graph(&edges);
        let r = expand(&g, &[("S".into(), 1.0)], &GraphSettings::default());
        let w = DependsOn.weight();
        let want = w * 0.75 * 0.75 / (std::f64::consts::E + 1.0).ln();
        assert!((r["A"].score - want).abs() < 1e-12, "{}", r["A"].score);
        let user = r.values().find(|n| n.id.starts_with('U')).unwrap();
        assert!(user.score < r["A"].score, "{} vs {}", user.score, r["A"].score);
    }

    #[test]
    fn equal_weight_edges_pick_the_same_path_in_any_order() {
        // Regression: SQLite and the sidecar list a pair's edges in different orders.
        use EdgeType::*;
        let a = graph(&[("A", "B", Blocks), ("B", "A", DependsOn)]);
        let mut b = graph(&[("B", "A", DependsOn), ("A", "B", Blocks)]);
        for es in b.0.values_mut() {
            es.reverse();
        }
        let s = GraphSettings::default();
        let pa = expand(&a, &[("B".into(), 1.0)], &s);
        let pb = expand(&b, &[("B".into(), 1.0)], &s);
        assert_eq!(pa["A"].path, pb["A"].path);
    }

    #[test]
    fn cycles_terminate() {
        use EdgeType::*;
        let g = graph(&[("A", "B", Relates), ("B", "C", Relates), ("C", "A", Relates)]);
        let s = GraphSettings {
            k_hop: 4,
            ..GraphSettings::default()
        };
        let r = expand(&g, &[("A".into(), 1.0)], &s);
        assert_eq!(r.keys().map(String::as_str).collect::<Vec<_>>(), ["B", "C"]);
    }
}
