//! The backlog hygiene warnings of `check` ([`crate::query::backlog::hygiene`]): judged
//! on the whole graph of a fresh index, with `[states]` and `[check]` applied. Not by
//! `check --staged` (the hook judges the change) nor stored in `diagnostics.jsonl`
//! (they follow `[states]`, which is no part of the index): kept in the local
//! `.findings` cache instead ([`crate::store::findings`]), so an unchanged index is
//! judged once.

use crate::config::Config;
use crate::model::diag::Diagnostic;
use crate::query::backlog::hygiene;
use crate::store::{findings, sidecar};

/// The edge types the rules read.
const TYPES: [&str; 6] = [
    "parent",
    "depends_on",
    "blocked_by",
    "blocks",
    "supersedes",
    "superseded_by",
];

/// Add the hygiene warnings of the index to `diags` when it is `fresh` (a stale index's
/// graph is not what the sources say).
pub(crate) fn add(cfg: &Config, fresh: bool, diags: &mut Vec<Diagnostic>) {
    if !fresh {
        return;
    }
    let rules = format!("{:?}\n{:?}", cfg.states, cfg.settings.check);
    let key = findings::key(&cfg.index_dir, &rules);
    let kept = key.as_ref().and_then(|(k, _)| findings::read(&cfg.index_dir, k));
    let found = match kept {
        Some(found) => found,
        None => {
            let Some((nodes, edges)) = sidecar::load_docs(&cfg.index_dir, |t| TYPES.contains(&t)) else {
                return;
            };
            let mut found = hygiene(&nodes, &edges, &cfg.states);
            cfg.settings.check.apply(&mut found);
            if let Some((k, true)) = &key {
                findings::write(&cfg.index_dir, k, &found);
            }
            found
        }
    };
    diags.extend(found);
    // In file order with the graph's own (a fresh index has no staleness findings).
    diags.sort_by(|a, b| (a.path.as_str(), a.line).cmp(&(b.path.as_str(), b.line)));
}
