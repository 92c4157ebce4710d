//! Ranking: a query's full-text seeds from an [`Engine`], walked along the graph to
//! their neighbors and re-ranked by document type, state and the question's relations.

use super::hits::{SectionHit, make_seed, neighbor_hit, round};
use super::named::{ItemContext, in_scope_context, item_in_scope, named_ids};
use super::scoped::{TAKE_UP, named_folder};
use super::successor::{add_successors, successors_first};
use super::{Engine, Hit, NAV_WEIGHT, Results, Why};
use crate::config::Retrieval;
use crate::error::Error;
use crate::model::EdgeType;
use crate::model::graph::GraphEdge;
use crate::query::backlog::{Group, group_of};
use crate::query::bm25;
use crate::query::expand::{self, Step};
use crate::query::intent::{Ask, Intent};
use crate::store::postings::{Corpus, Posting};
use crate::text::tokenize;
use crate::text::tokenize::QueryTerm;
use std::collections::{BTreeMap, HashMap, HashSet};

/// How much a spec folder the question names as its scope weighs its documents' scores.
const FOLDER_FOCUS: f64 = 1.5;

/// Rank documents for `query`: full-text seeds, then (when `graph`) their neighbors
/// along the graph, re-ranked by document type and state.
pub fn search(engine: &dyn Engine, query: &str, r: &Retrieval, limit: usize, graph: bool) -> Result<Results, Error> {
    let (exact, text) = named_ids(engine, query, r);
    // The question's intent: the words of its relation frame are no search terms.
    let intent = Intent::parse(query);
    let mut terms = tokenize::query_terms(&text);
    // When only frame words are left, they are what there is to search for, unless the
    // question names its item ("what replaced ADR-2": the item and its edges answer).
    if !exact.is_empty() || terms.iter().any(|t| !intent.is_frame_word(&t.word)) {
        terms.retain(|t| !intent.is_frame_word(&t.word));
    }
    let (within, described) = taken_up(engine, query, &exact, &mut terms);
    let mut within = within;
    // The MVP of a spec folder is its P1 story (Spec Kit's "MVP First (User Story 1
    // Only)"): the question's "MVP" also searches "P1".
    if terms.iter().any(|t| t.word == "mvp") && !terms.iter().any(|t| t.word == "p1") {
        terms.extend(tokenize::query_terms("P1"));
    }
    let postings = terms
        .iter()
        .map(|t| engine.postings(&t.stem))
        .collect::<Result<Vec<_>, _>>()?;
    let corpus = engine.corpus();
    let hits = section_hits(corpus, &postings, r);
    let (mut docs, matched) = documents(corpus, &hits);
    if described
        && let Some(cx) = &within
        && named_folder(engine, docs.iter().map(|d| d.1), query).is_some_and(|f| !cx.in_folder(&f))
    {
        within = None;
    }
    if let Some(cx) = &within {
        docs.retain(|d| in_scope_context(engine, d.1, cx));
    }
    // A spec folder the question names by a word of its name ("the chatbot's MVP"):
    // its documents count that word as matched, though their own text rarely says it.
    if let Some(folder) = named_folder(engine, docs.iter().map(|d| d.1), query) {
        for d in docs.iter_mut() {
            if engine.doc(d.1).is_some_and(|x| x.path.starts_with(&folder)) {
                d.0 *= FOLDER_FOCUS;
            }
        }
        docs.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    }
    let wanted = if graph { r.seeds } else { limit };
    let (pivots, best) = set_aside_pivots(engine, &mut docs, &exact, wanted, r);

    // Seeds: ids named in the query first (in query order), then full-text matches.
    let top = best.max(0.0) + 1.0;
    let mut seeds: Vec<Hit> = Vec::new();
    for (i, id) in exact.iter().enumerate() {
        let found = docs.iter().find(|d| d.1 == id);
        seeds.push(make_seed(
            engine,
            id,
            top + (exact.len() - i) as f64,
            true,
            found.map(|d| (d.2, d.3)),
            &terms,
        ));
    }
    // Only as many seeds as can be shown (or expanded) are explained: explaining reads
    // and tokenizes the best section.
    for (score, doc, best_hit, n) in &docs {
        if seeds.len() >= wanted {
            break;
        }
        if !exact.iter().any(|e| e == doc) {
            seeds.push(make_seed(engine, doc, *score, false, Some((best_hit, *n)), &terms));
        }
    }
    seeds.retain(|h| !h.path.is_empty());
    // A pivot scores at most as the best content does (its own score when nothing else
    // matched).
    let pivots: Vec<Hit> = pivots
        .iter()
        .map(|(score, doc, best_hit, n)| {
            let score = if best > 0.0 { score.min(best) } else { *score };
            make_seed(engine, doc, score, false, Some((best_hit, *n)), &terms)
        })
        .filter(|h| !h.path.is_empty())
        .collect();

    let mut results = if graph {
        expand_and_rank(engine, &intent, seeds, pivots, &matched, r, limit)
    } else {
        rank_without_graph(seeds, pivots, limit)
    };
    // The item first, then what it is tied to (its phase, story, the requirement it
    // cites, what it waits on), then the context its words found.
    if let (Some(_), [item]) = (&within, exact.as_slice()) {
        super::implement::rank_for_item(engine, item, described, &mut results);
        results.truncate(limit);
    }
    Ok(Results {
        schema: "mdgraph.search/1",
        query: query.to_string(),
        engine: engine.kind(),
        terms: terms.iter().map(|t| t.stem.clone()).collect(),
        results,
    })
}

/// The item a question takes up (the context its words search in), and whether the
/// question describes it in words of its own.
///
/// "implement T012", "start work on T012": an item named with only the words of taking
/// it up asks for the item and what it needs, not for every text that says "implement".
/// An item written inside a spec folder has no text beyond its line: what it needs is in
/// its folder's other documents (the plan, the data model, the research), so its title's
/// words search those.
///
/// Question form "implement T009: the route that strips names … which story and design
/// notes apply?": the item is taken up, and the rest of the question describes it; its
/// words search the item's own folder, unless it names another folder ("does the timer
/// spec allow it?", checked once the documents are found).
fn taken_up(
    engine: &dyn Engine,
    query: &str,
    exact: &[String],
    terms: &mut Vec<QueryTerm>,
) -> (Option<ItemContext>, bool) {
    if !exact.is_empty() && terms.iter().all(|t| TAKE_UP.contains(&t.word.as_str())) {
        terms.clear();
        if let [only] = exact
            && let Some(cx) = item_in_scope(engine, only)
        {
            *terms = tokenize::query_terms(&cx.title);
            return (Some(cx), false);
        }
        return (None, false);
    }
    if let [only] = exact
        && opens_with_take_up(query)
        && let Some(cx) = item_in_scope(engine, only)
    {
        return (Some(cx), true);
    }
    (None, false)
}

/// Whether the question's first word is one of taking an item up ("implement T009: …",
/// "start on 7.7/2 …"): the form that asks for an item's context whatever follows.
fn opens_with_take_up(query: &str) -> bool {
    let first = query.split_whitespace().next().unwrap_or("");
    let first = first.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    matches!(
        first.as_str(),
        "implement" | "implementing" | "start" | "build" | "finish"
    )
}

/// A document that matched: its score, id, best section and how many sections matched.
type DocHit<'a> = (f64, &'a str, &'a SectionHit, usize);

/// The best `max_sections` rows by BM25, then section weights (Decision up, Worklog
/// down), best first.
fn section_hits(corpus: &Corpus, postings: &[impl AsRef<[Posting]>], r: &Retrieval) -> Vec<SectionHit> {
    let name_weight: Vec<f64> = corpus
        .names
        .iter()
        .map(|n| r.weights.section.get(n).copied().unwrap_or(1.0))
        .collect();
    let mut hits: Vec<SectionHit> = bm25::score(corpus, postings, r.weights.field, r.max_sections)
        .into_iter()
        .map(|(row, score)| {
            let w = corpus
                .row_name
                .get(row as usize)
                .and_then(|&n| name_weight.get(n as usize))
                .copied()
                .unwrap_or(1.0);
            SectionHit {
                row,
                doc: corpus.row_doc.get(row as usize).copied().unwrap_or(0),
                score: score * w,
            }
        })
        .collect();
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(corpus.rank(a.row).cmp(&corpus.rank(b.row)))
    });
    hits
}

/// The sections aggregated to documents (best + 0.3 · Σ(others) / √n), best first; and
/// how well each document matched by itself (its best section: the walk from a pivot
/// takes the links to matching documents first).
fn documents<'a>(corpus: &'a Corpus, hits: &'a [SectionHit]) -> (Vec<DocHit<'a>>, HashMap<&'a str, f64>) {
    let mut per_doc: BTreeMap<u32, Vec<&SectionHit>> = BTreeMap::new();
    for h in hits {
        per_doc.entry(h.doc).or_default().push(h);
    }
    let doc_id = |d: u32| corpus.docs.get(d as usize).unwrap_or("");
    let mut docs: Vec<DocHit> = per_doc
        .iter()
        .map(|(&doc, hs)| {
            let best = hs[0];
            let others: f64 = hs[1..].iter().map(|h| h.score).sum();
            let n = hs.len() - 1;
            let score = best.score + if n > 0 { 0.3 * others / n as f64 } else { 0.0 };
            (score, doc_id(doc), best, hs.len())
        })
        .collect();
    docs.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let matched = per_doc.iter().map(|(&d, hs)| (doc_id(d), hs[0].score)).collect();
    (docs, matched)
}

/// Navigation pages are no seeds on their text: among the documents that could be seeds,
/// they are set aside as pivots (the walk starts from them too), and the cliff is
/// measured from the best document with content. Returns the pivots and that best score.
fn set_aside_pivots<'a>(
    engine: &dyn Engine,
    docs: &mut Vec<DocHit<'a>>,
    exact: &[String],
    wanted: usize,
    r: &Retrieval,
) -> (Vec<DocHit<'a>>, f64) {
    let mut pivots: Vec<DocHit> = Vec::new();
    let mut content = 0;
    docs.retain(|d| {
        if content >= wanted + exact.len() {
            return true;
        }
        let nav = !exact.iter().any(|e| e == d.1) && engine.is_nav(d.1);
        if nav {
            if pivots.len() < r.seeds {
                pivots.push(*d);
            }
            return false;
        }
        content += 1;
        true
    });
    let best = docs.first().map(|d| d.0).unwrap_or(0.0);
    docs.retain(|d| d.0 >= r.cliff * best && d.0 > 0.0);
    pivots.retain(|d| d.0 >= r.cliff * best && d.0 > 0.0);
    (pivots, best)
}

/// The seeds in rank order, without the graph: a demoted pivot goes below those that
/// outscore it (a stable sort keeps the rest as it was).
fn rank_without_graph(seeds: Vec<Hit>, pivots: Vec<Hit>, limit: usize) -> Vec<Hit> {
    let mut all = seeds;
    for mut p in pivots {
        p.score = round(p.score * NAV_WEIGHT);
        all.push(p);
    }
    all.sort_by(|a, b| {
        let exact = |h: &Hit| matches!(h.why, Why::Seed { exact_id: true, .. });
        exact(b).cmp(&exact(a)).then_with(|| b.score.total_cmp(&a.score))
    });
    truncate(all, limit)
}

fn truncate(mut v: Vec<Hit>, limit: usize) -> Vec<Hit> {
    v.truncate(limit);
    v
}

/// Expand the best seeds along the graph and re-rank seeds and neighbors together:
/// score (relative to the best seed) + `path_bonus` per extra path, × doctype weight × state
/// weight. A superseded ADR in the results pulls in its successor. Ties break by id.
fn expand_and_rank(
    engine: &dyn Engine,
    intent: &Intent,
    mut seeds: Vec<Hit>,
    pivots: Vec<Hit>,
    matched: &HashMap<&str, f64>,
    r: &Retrieval,
    limit: usize,
) -> Vec<Hit> {
    let best = seeds.iter().chain(&pivots).map(|h| h.score).fold(0.0, f64::max);
    if best <= 0.0 {
        return truncate(seeds, limit);
    }
    seeds.truncate(r.seeds.max(1));
    let w = Weights::new(intent, r);
    let weight = |h: &Hit| w.of(h);
    // A seed demoted by its state walks with the demotion: a superseded ADR's items do
    // not outrank the decision that replaced it.
    // Pivots (navigation pages that matched) walk as seeds do.
    let seed_scores: Vec<(String, f64)> = seeds
        .iter()
        .chain(&pivots)
        .map(|h| (h.id.clone(), h.score / best * w.state(h).min(1.0)))
        .collect();
    let focus = intent.edge_types();
    let pivot_ids: HashSet<&str> = pivots.iter().map(|h| h.id.as_str()).collect();
    let is_nav = |id: &str| pivot_ids.contains(id) || engine.is_nav(id);
    let relevance = |id: &str| matched.get(id).copied().unwrap_or(0.0);
    let nav = expand::NavOrder {
        is_nav: &is_nav,
        relevance: &relevance,
    };
    let mut reached = expand::expand_focused(engine, &seed_scores, &r.graph, &focus, Some(&nav));
    // A pivot another seed reached along a typed relation ranks as that neighbor.
    let mut pivots = pivots;
    pivots.retain(|p| {
        reached
            .get(&p.id)
            .is_none_or(|n| n.path.last().is_none_or(|st| body_link(st.edge)))
    });
    let mut out = rank_seeds(seeds, pivots, &mut reached, best, r, &weight);
    rank_neighbors(engine, reached, &focus, r, &weight, &mut out);
    add_successors(engine, &mut out, &weight);
    if !focus.is_empty() {
        let best_match = matched.values().copied().fold(0.0, f64::max);
        let relevance = |id: &str| {
            if best_match > 0.0 {
                matched.get(id).copied().unwrap_or(0.0) / best_match
            } else {
                0.0
            }
        };
        pull_focus(engine, &mut out, intent, &focus, r, limit, &weight, &relevance);
    }
    for h in &mut out {
        h.score = round(h.score);
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    // Ids named in the query stay on top whatever their weights.
    out.sort_by_key(|h| !matches!(h.why, Why::Seed { exact_id: true, .. }));
    if intent.asks(Ask::Replacement) {
        successors_first(engine, &mut out, &weight);
    }
    out.truncate(limit);
    out
}

/// What a hit's score is multiplied by: its document type's weight (as the question
/// asks it), its state's, and a closed one's in a question about what is left.
struct Weights<'a> {
    intent: &'a Intent,
    r: &'a Retrieval,
    defaults: crate::config::StateGroups,
    open_only: bool,
}

impl<'a> Weights<'a> {
    fn new(intent: &'a Intent, r: &'a Retrieval) -> Self {
        Weights {
            intent,
            r,
            defaults: crate::config::StateGroups::default(),
            open_only: intent.open && !intent.asks(Ask::Replacement),
        }
    }

    /// The weight of a hit's state.
    fn state(&self, h: &Hit) -> f64 {
        h.state
            .as_deref()
            .map(crate::model::section::section_name)
            .and_then(|s| self.r.weights.state.get(&s).copied())
            .unwrap_or(1.0)
    }

    /// Everything a hit's score is multiplied by.
    fn of(&self, h: &Hit) -> f64 {
        let (r, intent) = (self.r, self.intent);
        let ty = h.r#type.as_deref().map(crate::model::section::section_name);
        let dt = ty
            .as_ref()
            .and_then(|t| r.weights.doctype.get(t).copied())
            .or_else(|| r.weights.doctype.get(h.kind.as_str()).copied())
            .unwrap_or(1.0);
        // Doctype weights follow the question: an ADR is context in a question about
        // an item's blockers or parts.
        let asked = if intent.asks.is_empty() {
            1.0
        } else {
            let by_type = ty.as_deref().map(|t| intent.doctype_factor(t, &r.weights.intent));
            match by_type {
                Some(f) if f != 1.0 => f,
                _ => intent.doctype_factor(h.kind.as_str(), &r.weights.intent),
            }
        };
        // A question about what is left packs the open items first (not in a question
        // about replacement, which asks for the old record too).
        let closed = self.open_only && h.state.is_some() && group_of(h.state.as_deref(), &self.defaults).is_closed();
        let open_q = if closed { OPEN_CLOSED } else { 1.0 };
        dt * asked * open_q * self.state(h)
    }
}

/// The seeds and pivots scored relative to the best seed, with `path_bonus` for each
/// other seed's walk that reached them (taken out of `reached`).
fn rank_seeds(
    seeds: Vec<Hit>,
    pivots: Vec<Hit>,
    reached: &mut BTreeMap<String, expand::Neighbor>,
    best: f64,
    r: &Retrieval,
    weight: &dyn Fn(&Hit) -> f64,
) -> Vec<Hit> {
    let mut out: Vec<Hit> = Vec::new();
    for (pivot, mut h) in seeds
        .into_iter()
        .map(|h| (false, h))
        .chain(pivots.into_iter().map(|h| (true, h)))
    {
        let extra = reached.remove(&h.id).map_or(0, |n| n.paths);
        if let Why::Seed { also_reached, .. } = &mut h.why {
            *also_reached = extra;
        }
        let nav = if pivot { NAV_WEIGHT } else { 1.0 };
        h.score = (h.score / best + r.graph.path_bonus * extra as f64) * weight(&h) * nav;
        out.push(h);
    }
    out
}

/// The neighbors the walk reached, scored, into `out`.
fn rank_neighbors(
    engine: &dyn Engine,
    reached: BTreeMap<String, expand::Neighbor>,
    focus: &[EdgeType],
    r: &Retrieval,
    weight: &dyn Fn(&Hit) -> f64,
    out: &mut Vec<Hit>,
) {
    for n in reached.into_values() {
        // In a question about relations, a neighbor reached along none of them is context,
        // not answer: it steps back behind those that are.
        let off_focus = !focus.is_empty()
            && !n.path.iter().any(|st| {
                focus
                    .iter()
                    .any(|t| st.edge == t.as_str() || st.edge == expand::reverse_name(*t))
            });
        let damp = if off_focus { OFF_FOCUS } else { 1.0 };
        // A navigation page reached along a body link is not content either.
        let by_link = n.path.last().is_some_and(|st| body_link(st.edge));
        if let Some(mut h) = neighbor_hit(engine, &n.id, n.path, n.paths) {
            let nav = if h.nav && by_link { NAV_WEIGHT } else { 1.0 };
            h.score = (n.score * damp + r.graph.path_bonus * n.paths.saturating_sub(1) as f64) * weight(&h) * nav;
            out.push(h);
        }
    }
}

/// A step along a body link or mention, either way (not a typed relation).
fn body_link(edge: &str) -> bool {
    matches!(edge, "links_to" | "linked_from" | "mentions" | "mentioned_by")
}

/// Factor on a finished or dropped result in a question about what is left or still
/// open. Swept on the tuning sets at 4000 tokens: 0.8, 0.7 and 0.6 all raise ariadne
/// tune and Backlog.md; 0.7 is the value that lowers no figure (EVAL.md, stop 23).
const OPEN_CLOSED: f64 = 0.7;

/// Factor on a neighbor reached along no edge a question about relations asks about.
const OFF_FOCUS: f64 = 0.75;

/// Score of a document pulled in by [`pull_focus`], relative to the result it hangs off:
/// from [`PULL_UNMATCHED`] for one that shares no word with the question up to [`PULL`]
/// for the best match.
const PULL: f64 = 0.9;
const PULL_UNMATCHED: f64 = 0.75;

/// Factor on a pulled document that is finished or dropped when the question asks what
/// is left or what holds an item up now.
const PULL_CLOSED: f64 = 0.8;

/// Most answering edges of one result whose targets' states are looked up to put open
/// ones first (each lookup is a query on the SQLite engine; an epic with more children
/// orders them by relevance, weight and id only).
const ORDERED_PULLS: usize = 32;

/// In a question about relations (what blocks, what decided, what is left in an epic,
/// what replaced), the other end of such an edge from a ranked result is part of the
/// answer: it scores at least as its edge from that result would make it, and is
/// brought in when the walk did not reach it (the blocker of a matching task). Of one
/// result's answering edges, those to documents that match the question come first,
/// then (when the question asks what is left, or what holds an item up now) open ones,
/// then the strongest; finished ones then weigh [`PULL_CLOSED`]. States are read with
/// the built-in state groups, as relations lines read them. What blocks an item includes
/// its blocked children (an epic waits on them). Two rounds, so a chain of two blockers
/// is followed; three for blockers, so a blocked child's blocked child and its
/// blockers are.
#[allow(clippy::too_many_arguments)]
fn pull_focus(
    engine: &dyn Engine,
    out: &mut Vec<Hit>,
    intent: &Intent,
    focus: &[EdgeType],
    r: &Retrieval,
    limit: usize,
    weight: &dyn Fn(&Hit) -> f64,
    relevance: &dyn Fn(&str) -> f64,
) {
    let open_first = intent.open_first();
    let defaults = crate::config::StateGroups::default();
    let group = |id: &str| group_of(engine.state(id).as_deref(), &defaults);
    let closed = |id: &str| group(id).is_closed();
    let blockers = intent.asks(Ask::Blockers);
    // A blocked part adds a step: the feature, its blocked story, the story's blockers.
    let rounds = if blockers { 3 } else { 2 };
    for _ in 0..rounds {
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        let mut pulled: BTreeMap<String, (f64, Step)> = BTreeMap::new();
        for h in out.iter().take(limit) {
            let all = engine.edges(&h.id);
            // What stands in the way of an item includes its blocked parts: a blocked
            // child is pulled, and its own blockers with it in the next round.
            let children = all
                .iter()
                .filter(|e| e.r#type == EdgeType::Parent && !e.forward)
                .count();
            let blocked_part = |e: &GraphEdge| {
                blockers
                    && e.r#type == EdgeType::Parent
                    && !e.forward
                    && children <= ORDERED_PULLS
                    && group(&e.other) == Group::Blocked
            };
            let edges: Vec<GraphEdge> = all
                .iter()
                .filter(|e| e.other != h.id && ((focus.contains(&e.r#type) && intent.answers(e)) || blocked_part(e)))
                .cloned()
                .collect();
            let states = open_first && edges.len() <= ORDERED_PULLS;
            let mut keyed: Vec<(f64, bool, GraphEdge)> = edges
                .into_iter()
                .map(|e| (relevance(&e.other), states && closed(&e.other), e))
                .collect();
            keyed.sort_by(|a, b| {
                b.0.total_cmp(&a.0)
                    .then(a.1.cmp(&b.1))
                    .then_with(|| b.2.weight.total_cmp(&a.2.weight))
                    .then_with(|| a.2.other.cmp(&b.2.other))
            });
            for (rel, is_closed, e) in keyed.into_iter().take(r.graph.max_neighbors_per_seed) {
                // Just below the result it hangs off, so the two are read together.
                let mut score = h.score * (PULL_UNMATCHED + (PULL - PULL_UNMATCHED) * rel);
                if is_closed {
                    score *= PULL_CLOSED;
                }
                let step = Step {
                    from: h.id.clone(),
                    edge: if e.forward {
                        e.r#type.as_str()
                    } else {
                        expand::reverse_name(e.r#type)
                    },
                    to: e.other.clone(),
                };
                let keep = pulled.get(&e.other).is_none_or(|(s, _)| score > *s);
                if keep {
                    pulled.insert(e.other, (score, step));
                }
            }
        }
        for (id, (score, step)) in pulled {
            match out.iter_mut().find(|h| h.id == id) {
                Some(h) => h.score = h.score.max(score),
                None => {
                    if let Some(mut h) = neighbor_hit(engine, &id, vec![step], 1) {
                        h.score = score * weight(&h);
                        out.push(h);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_rounded_to_six_decimals() {
        assert_eq!(round(0.123_456_789), 0.123_457);
        assert_eq!(round(2.0), 2.0);
        assert!(body_link("mentioned_by") && !body_link("blocked_by"));
    }
}
