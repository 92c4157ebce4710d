//! The hits a ranking is made of: a seed (a named id or a full-text match, with the
//! section that matched best) and a neighbor (reached along the graph, with its path).

use super::{Engine, Hit, Why};
use crate::query::expand::Step;
use crate::text::tokenize::QueryTerm;

/// A matching section: row, document ordinal, weighted score.
pub(super) struct SectionHit {
    pub(super) row: u32,
    pub(super) doc: u32,
    pub(super) score: f64,
}

/// A neighbor's hit, scored 0 (the caller scores it): `path` from its seed, `paths` the
/// number of walks that reached it.
pub(super) fn neighbor_hit(engine: &dyn Engine, id: &str, path: Vec<Step>, paths: usize) -> Option<Hit> {
    let info = engine.doc(id)?;
    let seed = path.first().map(|s| s.from.clone()).unwrap_or_default();
    Some(Hit {
        id: id.to_string(),
        path: info.path,
        title: info.title,
        kind: info.kind,
        r#type: info.r#type,
        state: info.state,
        score: 0.0,
        nav: info.nav,
        why: Why::Neighbor { seed, path, paths },
    })
}

pub(super) fn make_seed(
    engine: &dyn Engine,
    id: &str,
    score: f64,
    exact_id: bool,
    best: Option<(&SectionHit, usize)>,
    terms: &[QueryTerm],
) -> Hit {
    let info = engine.doc(id);
    let (matched, section, section_id, section_score, n) = match best {
        Some((h, n)) => {
            let have = engine.row_terms(h.row);
            let matched = terms
                .iter()
                .filter(|t| have.contains(&t.stem))
                .map(|t| t.word.clone())
                .collect();
            let row = engine.row(h.row);
            (
                matched,
                row.as_ref().map(|r| r.heading.clone()).unwrap_or_default(),
                row.map(|r| r.chunk),
                round(h.score),
                n,
            )
        }
        None => (Vec::new(), String::new(), None, 0.0, 0),
    };
    Hit {
        id: id.to_string(),
        path: info.as_ref().map(|i| i.path.clone()).unwrap_or_default(),
        title: info.as_ref().map(|i| i.title.clone()).unwrap_or_default(),
        kind: info.as_ref().map(|i| i.kind).unwrap_or_default(),
        r#type: info.as_ref().and_then(|i| i.r#type.clone()),
        state: info.as_ref().and_then(|i| i.state.clone()),
        score: round(score),
        nav: info.as_ref().is_some_and(|i| i.nav),
        why: Why::Seed {
            exact_id,
            matched,
            section,
            section_id,
            section_score,
            sections_matched: n,
            also_reached: 0,
        },
    }
}

/// Scores are reported to 6 decimals so text and JSON output are stable across engines.
pub(super) fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}
