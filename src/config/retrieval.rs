//! Query-time settings: `[retrieval]` (seeds, ranking weights, graph expansion) and
//! `[states]` (the state groups of `list`, `ready` and `tree`). They do not change what
//! the index contains, so they are not in its digest.

use crate::model::EdgeType;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Query-time settings (they do not change the index, so they are not in its digest).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Retrieval {
    /// Most seed documents kept from full-text search.
    pub seeds: usize,
    /// Seeds scoring below this share of the best seed are dropped (the relevance cliff).
    pub cliff: f64,
    /// Most matching sections considered per query (best first).
    pub max_sections: usize,
    /// Weights.
    pub weights: Weights,
    /// Graph expansion.
    pub graph: GraphSettings,
    /// Prefix aliases of ids typed in a query (`task` → `back`), from `[ids]`.
    #[serde(skip)]
    pub id_aliases: BTreeMap<String, String>,
}

/// How seeds are expanded along the graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GraphSettings {
    /// Expand seeds at all (`--no-graph` turns it off for one query).
    pub enabled: bool,
    /// How many hops from a seed.
    pub k_hop: usize,
    /// Edge types walked (either direction when `backwards`).
    pub edge_allowlist: Vec<EdgeType>,
    /// Walk edges against their direction too (a feature's children, an ADR's items).
    pub backwards: bool,
    /// Most neighbors taken per seed (strongest edges first, ties by id).
    pub max_neighbors_per_seed: usize,
    /// Most neighbors in all.
    pub max_neighbors: usize,
    /// Score factor per hop: a neighbor scores seed score × edge weight × hop_decay^hop,
    /// below the seed that brought it in before the path bonus and the type and state
    /// weights (0 < hop_decay ≤ 1).
    pub hop_decay: f64,
    /// Added to a result's score for each further seed whose walk reached it (the
    /// document several matches lead to).
    pub path_bonus: f64,
    /// Damping of walks through hubs: from the second hop on, a step out of a node with
    /// b edges in the direction walked is divided by ln(e + b − 1)^hub_damping (0 turns
    /// it off). The first hop is never damped: a seed's own parent, decision or
    /// dependency is load-bearing however popular it is.
    pub hub_damping: f64,
}

impl Default for GraphSettings {
    fn default() -> Self {
        use EdgeType::*;
        GraphSettings {
            enabled: true,
            // Two hops: the requirement of a requirement, the blocker of the feature's
            // task (EVAL.md: nDCG@10 and pack recall up on the EIPs and Backlog.md).
            k_hop: 2,
            // Every document edge but bare mentions (too weak to pull a neighbor in).
            edge_allowlist: crate::model::EDGE_TYPES
                .into_iter()
                .filter(|t| !matches!(t, Mentions | SectionOf))
                .collect(),
            backwards: true,
            max_neighbors_per_seed: 8,
            max_neighbors: 30,
            hop_decay: 0.75,
            path_bonus: 0.03,
            hub_damping: 1.0,
        }
    }
}

impl Default for Retrieval {
    fn default() -> Self {
        Retrieval {
            seeds: 10,
            cliff: 0.2,
            max_sections: 1000,
            weights: Weights::default(),
            graph: GraphSettings::default(),
            id_aliases: BTreeMap::new(),
        }
    }
}

/// Ranking weights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Weights {
    /// BM25 column weights.
    pub field: FieldWeights,
    /// Section weights by heading (lowercase, e.g. `"acceptance criteria"`); others 1.0.
    pub section: BTreeMap<String, f64>,
    /// Weights by work item type or node kind (lowercase: `epic`, `adr`, `doc`); others 1.0.
    pub doctype: BTreeMap<String, f64>,
    /// Weights by state or status (lowercase: `inprogress`, `done`, `superseded`); others 1.0.
    pub state: BTreeMap<String, f64>,
    /// Factors on the doctype weights by what a question asks (`blockers`, `dependents`,
    /// `parts`, `decision`, `replacement`): in a question about an item's blockers or
    /// parts a decision record is context, not answer. A question asking two things
    /// takes the larger factor of the two (a type unlisted for an ask has 1.0 there).
    pub intent: BTreeMap<String, BTreeMap<String, f64>>,
}

/// What a question can ask, as `weights.intent` names it (the query side's intent).
pub const INTENTS: &[&str] = &["blockers", "dependents", "parts", "decision", "replacement"];

impl Default for Weights {
    fn default() -> Self {
        let map = |xs: &[(&str, f64)]| xs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        Weights {
            field: FieldWeights::default(),
            section: map(&[
                ("decision", 1.5),
                ("acceptance criteria", 1.2),
                ("context", 1.0),
                ("goal", 1.0),
                ("worklog", 0.3),
            ]),
            doctype: map(&[("adr", 1.1), ("epic", 0.9), ("doc", 0.8)]),
            state: map(&[
                ("inprogress", 1.2),
                ("ready", 1.1),
                ("review", 1.1),
                ("blocked", 1.1),
                ("done", 0.8),
                ("dropped", 0.5),
                ("superseded", 0.5),
                ("deprecated", 0.6),
                ("rejected", 0.5),
            ]),
            // Measured on the fixtures (EVAL.md, stop 23): ADRs ×0.6 in structure
            // questions, nDCG@10 +0.004 and token precision +0.011 at 4000; the other
            // sets have few ADRs and did not move.
            intent: ["blockers", "dependents", "parts"]
                .iter()
                .map(|k| (k.to_string(), map(&[("adr", 0.6)])))
                .collect(),
        }
    }
}

/// BM25 column weights: a match in the title counts more than in a heading, which counts
/// more than in the body.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FieldWeights {
    /// Document id and title.
    pub title: f64,
    /// Section heading.
    pub heading: f64,
    /// Section text.
    pub body: f64,
}

impl Default for FieldWeights {
    fn default() -> Self {
        FieldWeights {
            title: 4.0,
            heading: 2.0,
            body: 1.0,
        }
    }
}

impl Retrieval {
    pub(super) fn validate(mut self) -> Result<Retrieval, String> {
        let bad = |k: &str, v: f64| format!("retrieval.{k}: {v} is not a finite number >= 0");
        let f = self.weights.field;
        for (k, v) in [
            ("weights.field.title", f.title),
            ("weights.field.heading", f.heading),
            ("weights.field.body", f.body),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err(bad(k, v));
            }
        }
        if !(0.0..=1.0).contains(&self.cliff) {
            return Err(format!("retrieval.cliff: {} must be between 0 and 1", self.cliff));
        }
        if self.seeds == 0 || self.max_sections == 0 {
            return Err("retrieval.seeds and retrieval.max_sections must be at least 1".into());
        }
        // Keys are matched normalized: lowercase, single spaces.
        let norm = |table: &str, m: BTreeMap<String, f64>| -> Result<BTreeMap<String, f64>, String> {
            let mut out = BTreeMap::new();
            for (k, v) in m {
                if !v.is_finite() || v < 0.0 {
                    return Err(bad(&format!("weights.{table}.\"{k}\""), v));
                }
                out.insert(crate::model::section::section_name(&k), v);
            }
            Ok(out)
        };
        self.weights.section = norm("section", self.weights.section)?;
        self.weights.doctype = norm("doctype", self.weights.doctype)?;
        self.weights.state = norm("state", self.weights.state)?;
        let mut intent = BTreeMap::new();
        for (ask, types) in std::mem::take(&mut self.weights.intent) {
            if !INTENTS.contains(&ask.as_str()) {
                return Err(format!(
                    "retrieval.weights.intent: `{ask}` is not an intent (one of {})",
                    INTENTS.join(", ")
                ));
            }
            let types = norm(&format!("intent.{ask}"), types)?;
            intent.insert(ask, types);
        }
        self.weights.intent = intent;
        if self.graph.k_hop > 4 {
            return Err(format!(
                "retrieval.graph.k_hop: {} is more than 4 (the walk must stay bounded)",
                self.graph.k_hop
            ));
        }
        let g = &self.graph;
        if !(g.hop_decay > 0.0 && g.hop_decay <= 1.0) {
            return Err(format!(
                "retrieval.graph.hop_decay: {} must be above 0 and at most 1",
                g.hop_decay
            ));
        }
        for (k, v) in [("path_bonus", g.path_bonus), ("hub_damping", g.hub_damping)] {
            if !v.is_finite() || v < 0.0 {
                return Err(bad(&format!("graph.{k}"), v));
            }
        }
        if self.graph.edge_allowlist.contains(&EdgeType::SectionOf) {
            return Err("retrieval.graph.edge_allowlist: section_of links sections, not documents".into());
        }
        Ok(self)
    }
}

/// Which states count as open, in progress, blocked, done or dropped, for `list`,
/// `ready` and `tree`. Each list is added to the built-in names (matched ignoring case,
/// spaces, `-` and `_`); a state in no group is open.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StateGroups {
    /// Not started (besides the built-in `todo`, `planned`, `proposed`, `ready`, …).
    pub open: Vec<String>,
    /// Being worked on (besides `inprogress`, `doing`, `review`, …).
    pub in_progress: Vec<String>,
    /// Waiting on something (besides `blocked`, `onhold`, …).
    pub blocked: Vec<String>,
    /// Finished (besides `done`, `closed`, `resolved`, `final`, …).
    pub done: Vec<String>,
    /// Will not be done (besides `dropped`, `cancelled`, `wontdo`, `rejected`, …).
    pub dropped: Vec<String>,
    /// Globs of root-relative paths → the group every file they match is in, whatever
    /// its state says (`open`, `in_progress`, `blocked`, `done`, `dropped`), or `draft`:
    /// the state's group, but never ready. Backlog.md moves finished tasks to
    /// `completed/`, archived ones to `archive/` and keeps ideas in `drafts/` without
    /// changing their status. When several globs match, the first in sorted order wins.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub paths: BTreeMap<String, String>,
}

/// The values `[states] paths` accepts.
pub const PATH_STATES: [&str; 6] = ["open", "in_progress", "blocked", "done", "dropped", "draft"];

impl StateGroups {
    pub(super) fn validate(&self) -> Result<(), String> {
        for (glob, group) in &self.paths {
            globset::Glob::new(glob).map_err(|e| format!("states.paths: bad glob `{glob}`: {e}"))?;
            if !PATH_STATES.contains(&group.as_str()) {
                return Err(format!(
                    "states.paths.\"{glob}\": `{group}` is not a state group (use {})",
                    PATH_STATES.join(", ")
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retrieval(text: &str) -> Result<Retrieval, String> {
        toml::from_str::<Retrieval>(text).unwrap().validate()
    }

    #[test]
    fn weight_keys_are_normalized_and_defaults_kept() {
        let r =
            retrieval("seeds = 5\n[weights.section]\n\"Acceptance   Criteria\" = 2.0\n[graph]\nk_hop = 1\n").unwrap();
        assert_eq!(r.seeds, 5);
        assert_eq!(r.weights.section["acceptance criteria"], 2.0);
        assert!(
            !r.weights.section.contains_key("decision"),
            "a written table replaces the default one"
        );
        assert_eq!(r.graph.k_hop, 1);
        assert_eq!(r.graph.max_neighbors, GraphSettings::default().max_neighbors);
        assert_eq!(r.weights.field, FieldWeights::default());
        assert_eq!(r.weights.intent["parts"]["adr"], 0.6, "the default intent factors stay");
        let r = retrieval("[weights.intent]\ndecision = { ADR = 1.3 }\n").unwrap();
        assert_eq!(r.weights.intent.len(), 1);
        assert_eq!(r.weights.intent["decision"]["adr"], 1.3);
    }

    #[test]
    fn out_of_range_values_are_named() {
        for (text, key) in [
            ("cliff = 1.5", "retrieval.cliff"),
            ("seeds = 0", "retrieval.seeds"),
            ("[weights.field]\ntitle = -1.0", "weights.field.title"),
            ("[weights.state]\ndone = -0.5", "weights.state.\"done\""),
            ("[graph]\nk_hop = 5", "retrieval.graph.k_hop"),
            ("[graph]\nhop_decay = 0.0", "retrieval.graph.hop_decay"),
            ("[graph]\nhub_damping = -1.0", "graph.hub_damping"),
            (
                "[weights.intent]\nblocking = { adr = 0.5 }",
                "`blocking` is not an intent",
            ),
            (
                "[weights.intent]\nparts = { adr = -1.0 }",
                "weights.intent.parts.\"adr\"",
            ),
            (
                "[graph]\nedge_allowlist = [\"parent\", \"section_of\"]",
                "edge_allowlist",
            ),
        ] {
            let err = retrieval(text).unwrap_err();
            assert!(err.contains(key), "{text}: {err}");
        }
    }

    #[test]
    fn state_paths_take_only_known_groups_and_good_globs() {
        let ok = StateGroups {
            paths: [("completed/**".to_string(), "done".to_string())].into(),
            ..StateGroups::default()
        };
        assert_eq!(ok.validate(), Ok(()));
        let bad_group = StateGroups {
            paths: [("completed/**".to_string(), "finished".to_string())].into(),
            ..StateGroups::default()
        };
        let err = bad_group.validate().unwrap_err();
        assert!(err.contains("`finished` is not a state group"), "{err}");
        let bad_glob = StateGroups {
            paths: [("a[".to_string(), "done".to_string())].into(),
            ..StateGroups::default()
        };
        assert!(bad_glob.validate().unwrap_err().contains("bad glob `a[`"));
    }
}
