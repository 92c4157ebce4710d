//! Retrieval evaluation over a labeled query file (`mdgraph eval QUERIES.jsonl`).
//!
//! One query per line: `{"id": "q1", "query": "…", "relevant": {"ADR-0011": 3, "docs/x.md": 2}}`.
//! Keys are node ids or root-relative paths; grades are integers, 3 answers the query, 2 is
//! a load-bearing neighbor, 1 is background, 0 is not relevant. Other fields are ignored.
//!
//! Metrics, averaged over queries:
//! - nDCG@10: gain 2^grade − 1, discount log2(rank + 1), normalised by the ideal ordering
//!   of the graded documents;
//! - Recall@10 and Recall@20: share of the graded documents in the top 10 / 20;
//! - MRR: 1 / rank of the first grade-3 document in the ranking (0 when absent), over the
//!   queries that have a grade-3 document;
//! - pack recall: share of the graded documents present in the context pack at the budget
//!   (in any mode: full, excerpt or reference), content recall (full or excerpt only), and
//!   token precision (the share of the items' tokens spent on graded documents).
//!
//! A graded key that names no document stays in the query's denominators (the index is
//! missing something relevant) and is reported as a warning.

use crate::error::Error;
use crate::query::search::{Engine, Hit};
use serde::Serialize;
use std::collections::HashMap;

/// Ranks the metrics look at: nDCG and the first recall at 10, the second recall at 20.
const K: usize = 10;
const K2: usize = 20;

/// One labeled query.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// The query's id (its line number, `line N`, when the file gives none).
    pub id: String,
    /// The question.
    pub query: String,
    /// Graded keys (node ids or root-relative paths) with grade > 0, in file order.
    pub relevant: Vec<(String, u32)>,
    /// 1-based line in the query file.
    pub line: usize,
    /// The query's kind, when the file gives one (`"kind": "title"`): averages are also
    /// reported per kind.
    pub kind: Option<String>,
}

/// Parse a labeled query file. `name` is used in messages. A malformed line is an error
/// naming the line; blank lines are skipped.
pub fn parse_queries(name: &str, text: &str) -> Result<Vec<Query>, Error> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let bad = |msg: String| Error::Other(format!("{name}:{line}: {msg}"));
        let v: serde_json::Value = serde_json::from_str(raw).map_err(|e| bad(format!("not a JSON object: {e}")))?;
        let obj = v
            .as_object()
            .ok_or_else(|| bad("expected a JSON object with `query` and `relevant`".into()))?;
        let query = match obj.get("query") {
            Some(serde_json::Value::String(s)) if !s.trim().is_empty() => s.clone(),
            Some(serde_json::Value::String(_)) => return Err(bad("`query` is empty".into())),
            Some(_) => return Err(bad("`query` must be a string".into())),
            None => return Err(bad("missing `query`".into())),
        };
        let id = match obj.get("id") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Number(n)) => n.to_string(),
            None => format!("line {line}"),
            Some(_) => return Err(bad("`id` must be a string".into())),
        };
        let grades = obj
            .get("relevant")
            .ok_or_else(|| bad("missing `relevant`".into()))?
            .as_object()
            .ok_or_else(|| bad("`relevant` must be an object of key → grade".into()))?;
        let mut relevant = Vec::new();
        for (key, g) in grades {
            let grade = g
                .as_u64()
                .filter(|&g| g <= 10)
                .ok_or_else(|| bad(format!("grade of `{key}` must be an integer 0..=10, not {g}")))?;
            if grade > 0 {
                relevant.push((key.clone(), grade as u32));
            }
        }
        if relevant.is_empty() {
            return Err(bad(format!("query `{id}` has no graded document (grade > 0)")));
        }
        let kind = obj.get("kind").and_then(|k| k.as_str()).map(str::to_string);
        out.push(Query {
            id,
            query,
            relevant,
            line,
            kind,
        });
    }
    if out.is_empty() {
        return Err(Error::Other(format!("{name}: no queries")));
    }
    Ok(out)
}

/// nDCG@k of `ranked` ids against `grades` (id → grade).
pub fn ndcg(ranked: &[&str], grades: &HashMap<String, u32>, k: usize) -> f64 {
    let gain = |g: u32| 2f64.powi(g as i32) - 1.0;
    let discount = |i: usize| (i as f64 + 2.0).log2();
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, id)| gain(grades.get(*id).copied().unwrap_or(0)) / discount(i))
        .sum();
    let mut ideal: Vec<u32> = grades.values().copied().collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, &g)| gain(g) / discount(i))
        .sum();
    if idcg > 0.0 { dcg / idcg } else { 0.0 }
}

/// Share of the graded ids found in the first `k` of `ranked`.
pub fn recall(ranked: &[&str], grades: &HashMap<String, u32>, k: usize) -> f64 {
    if grades.is_empty() {
        return 0.0;
    }
    let found = ranked.iter().take(k).filter(|id| grades.contains_key(**id)).count();
    found as f64 / grades.len() as f64
}

/// 1 / rank of the first grade-3 id in `ranked`; 0 when none is ranked. None when the
/// query has no grade-3 document.
pub fn reciprocal_rank(ranked: &[&str], grades: &HashMap<String, u32>) -> Option<f64> {
    let top = grades.values().copied().max()?;
    if top < 3 {
        return None;
    }
    Some(
        ranked
            .iter()
            .position(|id| grades.get(*id).is_some_and(|&g| g >= 3))
            .map_or(0.0, |i| 1.0 / (i as f64 + 1.0)),
    )
}

/// One query's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Scores {
    /// nDCG@10.
    pub ndcg10: f64,
    /// Recall@10.
    pub recall10: f64,
    /// Recall@20.
    pub recall20: f64,
    /// Reciprocal rank of the first grade-3 document (None: the query has none).
    pub rr: Option<f64>,
    /// Pack recall at each budget, in the order of [`Options::budgets`].
    pub packs: Vec<PackScore>,
}

/// Pack recall at one budget.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct PackScore {
    /// Budget in tokens.
    pub budget: u32,
    /// Share of graded documents in the pack (any mode: full, excerpt or reference).
    pub recall: f64,
    /// Share of graded documents in the pack in full or as an excerpt.
    pub content_recall: f64,
    /// Share of the items' tokens spent on graded documents.
    pub precision: f64,
    /// Tokens the pack used.
    pub used: u32,
}

/// Averages over queries.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Summary {
    /// Mean nDCG@10.
    pub ndcg10: f64,
    /// Mean Recall@10.
    pub recall10: f64,
    /// Mean Recall@20.
    pub recall20: f64,
    /// Mean reciprocal rank of the first grade-3 document.
    pub mrr: f64,
    /// Mean pack recall at each budget (`used` is the mean of the tokens used).
    pub packs: Vec<PackScore>,
}

impl Summary {
    fn of(scores: &[Scores]) -> Summary {
        let n = scores.len().max(1) as f64;
        let mean = |f: fn(&Scores) -> f64| scores.iter().map(f).sum::<f64>() / n;
        let rrs: Vec<f64> = scores.iter().filter_map(|s| s.rr).collect();
        Summary {
            ndcg10: mean(|s| s.ndcg10),
            recall10: mean(|s| s.recall10),
            recall20: mean(|s| s.recall20),
            mrr: if rrs.is_empty() {
                0.0
            } else {
                rrs.iter().sum::<f64>() / rrs.len() as f64
            },
            packs: (0..scores.first().map_or(0, |s| s.packs.len()))
                .map(|i| PackScore {
                    budget: scores[0].packs[i].budget,
                    recall: scores.iter().map(|s| s.packs[i].recall).sum::<f64>() / n,
                    content_recall: scores.iter().map(|s| s.packs[i].content_recall).sum::<f64>() / n,
                    precision: scores.iter().map(|s| s.packs[i].precision).sum::<f64>() / n,
                    used: (scores.iter().map(|s| s.packs[i].used as f64).sum::<f64>() / n).round() as u32,
                })
                .collect(),
        }
    }

    /// The metrics as (name, value) rows, in report order.
    pub fn rows(&self) -> Vec<(String, f64)> {
        let mut rows = vec![
            ("nDCG@10".to_string(), self.ndcg10),
            ("Recall@10".to_string(), self.recall10),
            ("Recall@20".to_string(), self.recall20),
            ("MRR".to_string(), self.mrr),
        ];
        for p in &self.packs {
            rows.push((format!("Pack recall @{}", p.budget), p.recall));
            rows.push((format!("  content recall @{}", p.budget), p.content_recall));
            rows.push((format!("  token precision @{}", p.budget), p.precision));
        }
        rows
    }
}

/// One query's result in the report.
#[derive(Debug, Clone, Serialize)]
pub struct QueryReport {
    /// Query id.
    pub id: String,
    /// The question.
    pub query: String,
    /// Figures with the graph (None when not evaluated).
    pub graph: Option<Scores>,
    /// Figures without the graph (None when not evaluated).
    pub no_graph: Option<Scores>,
    /// The query's kind, when given.
    pub kind: Option<String>,
    /// The top of the ranking with the graph, or without it when only that was run.
    pub top: Vec<String>,
}

/// Averages over the queries of one kind.
#[derive(Debug, Clone, Serialize)]
pub struct KindReport {
    /// Queries of this kind.
    pub queries: usize,
    /// Averages with the graph.
    pub graph: Option<Summary>,
    /// Averages without the graph.
    pub no_graph: Option<Summary>,
}

/// The evaluation of a query file.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// Queries evaluated.
    pub queries: usize,
    /// Pack budgets in tokens.
    pub budgets: Vec<u32>,
    /// Averages with the graph (None when not evaluated).
    pub graph: Option<Summary>,
    /// Averages without the graph (None when not evaluated).
    pub no_graph: Option<Summary>,
    /// Ranking depth: how many results each query asks for (MRR looks this deep).
    pub depth: usize,
    /// Averages per query kind, when the file gives kinds.
    pub by_kind: std::collections::BTreeMap<String, KindReport>,
    /// Per-query figures.
    pub per_query: Vec<QueryReport>,
    /// Graded keys that name no document: `file:line: query id: key`.
    pub warnings: Vec<String>,
}

impl Report {
    /// The report as text: a table of the averages (side by side with the change when
    /// both modes ran), the averages per query kind when the file gives kinds, then
    /// per-query rows when `per_query`.
    pub fn to_text(&self, name: &str, per_query: bool) -> String {
        to_text(self, name, per_query)
    }
}

/// What to evaluate.
#[derive(Debug, Clone)]
pub struct Options {
    /// Evaluate with the graph.
    pub graph: bool,
    /// Evaluate without the graph.
    pub no_graph: bool,
    /// Pack budgets in tokens (pack recall is measured at each).
    pub budgets: Vec<u32>,
    /// Candidates a pack considers (as `mdgraph pack --candidates`).
    pub candidates: usize,
    /// Token counter of the index.
    pub tokenizer: crate::text::tokens::Tokenizer,
    /// The pack's relevance cliff (`[pack] cliff`; 0 fills the budget).
    pub cliff: f64,
}

/// What graded keys can name: document ids, root-relative paths, and raw ids that several
/// documents share (a duplicated id names all of them; any one counts).
#[derive(Debug, Default)]
pub struct Keys {
    paths: HashMap<String, String>,
    raw_ids: HashMap<String, Vec<String>>,
}

impl Keys {
    /// Index the documents of `nodes` (chunks are skipped).
    pub fn new(nodes: &[crate::model::Node]) -> Keys {
        let mut k = Keys::default();
        for n in nodes.iter().filter(|n| !n.is_chunk()) {
            // A path names its file's own document, never an item written inside it
            // (a spec folder's task shares its file's path).
            if !n.inline {
                k.paths.insert(n.path.clone(), n.id.clone());
            }
            if let Some(raw) = &n.raw_id {
                k.raw_ids.entry(raw.to_lowercase()).or_default().push(n.id.clone());
            }
        }
        k
    }

    /// The documents a graded key names: an id, then a root-relative path, then an id in
    /// any case or `ID@uid` form, then every document declaring it as its raw id. Empty
    /// when it names none.
    pub fn resolve(&self, engine: &dyn Engine, key: &str) -> Vec<String> {
        if engine.doc(key).is_some() {
            return vec![key.to_string()];
        }
        let key = key.trim();
        if let Some(id) = self.paths.get(key.trim_start_matches("./")) {
            return vec![id.clone()];
        }
        if let Some(id) = engine.exact_id(key) {
            return vec![id];
        }
        self.raw_ids.get(&key.to_lowercase()).cloned().unwrap_or_default()
    }
}

/// How many results each query is ranked to: the depth of the measures, and at least the
/// pack's candidates.
pub fn depth(opts: &Options) -> usize {
    K2.max(opts.candidates)
}

/// Run every query through search (and pack) and score the rankings. `keys` resolves the
/// graded keys (ids or paths) to documents; `name` names the query file in warnings.
/// `given` holds, by query, the answer the backlog gives instead of a search (a
/// question about the work left), ranked to [`depth`].
pub fn evaluate(
    engine: &dyn Engine,
    retrieval: &crate::config::Retrieval,
    keys: &Keys,
    name: &str,
    queries: &[Query],
    given: &[Option<crate::query::search::Results>],
    opts: &Options,
) -> Result<Report, Error> {
    let mut warnings = Vec::new();
    let mut per_query = Vec::new();
    let (mut on, mut off) = (Vec::new(), Vec::new());
    let limit = depth(opts);
    for (i, q) in queries.iter().enumerate() {
        let graded = Graded::new(engine, keys, name, q, &mut warnings);
        let answer = given.get(i).and_then(Option::as_ref);
        let run = |graph: bool| score(engine, retrieval, q, &graded, limit, opts, graph, answer);
        let g = if opts.graph { Some(run(true)?) } else { None };
        let ng = if opts.no_graph { Some(run(false)?) } else { None };
        let top = g.as_ref().or(ng.as_ref()).map(|r| r.1.clone()).unwrap_or_default();
        if let Some((s, _)) = &g {
            on.push(s.clone());
        }
        if let Some((s, _)) = &ng {
            off.push(s.clone());
        }
        per_query.push(QueryReport {
            id: q.id.clone(),
            query: q.query.clone(),
            graph: g.map(|r| r.0),
            no_graph: ng.map(|r| r.0),
            kind: q.kind.clone(),
            top,
        });
    }
    Ok(Report {
        schema: "mdgraph.eval/1",
        depth: limit,
        by_kind: by_kind(&per_query),
        queries: queries.len(),
        budgets: opts.budgets.clone(),
        graph: opts.graph.then(|| Summary::of(&on)),
        no_graph: opts.no_graph.then(|| Summary::of(&off)),
        per_query,
        warnings,
    })
}

/// One query's grades by key; rankings are mapped from document ids to the keys naming
/// them (first occurrence kept). An unknown key still counts, but never matches.
struct Graded {
    grades: HashMap<String, u32>,
    key_of: HashMap<String, String>,
}

impl Graded {
    /// The grades of `q`, with a warning for each key that names no document or the same
    /// document as an earlier key.
    fn new(engine: &dyn Engine, keys: &Keys, name: &str, q: &Query, warnings: &mut Vec<String>) -> Graded {
        let mut grades: HashMap<String, u32> = HashMap::new();
        let mut key_of: HashMap<String, String> = HashMap::new();
        for (key, grade) in &q.relevant {
            let ids = keys.resolve(engine, key);
            // Two keys for one document (an id and its path) are one graded document.
            if let Some(first) = ids.iter().find_map(|id| key_of.get(id)).cloned() {
                if first != *key {
                    warnings.push(format!(
                        "{name}:{}: query {}: `{key}` names the same document as `{first}`; counted once",
                        q.line, q.id
                    ));
                }
                let g = grades.entry(first).or_insert(0);
                *g = (*g).max(*grade);
                continue;
            }
            if ids.is_empty() {
                warnings.push(format!(
                    "{name}:{}: query {}: `{key}` is not in the index",
                    q.line, q.id
                ));
            }
            for id in ids {
                key_of.entry(id).or_insert_with(|| key.clone());
            }
            let g = grades.entry(key.clone()).or_insert(0);
            *g = (*g).max(*grade);
        }
        Graded { grades, key_of }
    }

    /// The key a document ranks as. Documents that are not graded keep their id, marked
    /// so no key can equal it.
    fn as_key(&self, id: &str) -> String {
        self.key_of.get(id).cloned().unwrap_or_else(|| format!("\u{0}{id}"))
    }
}

/// One query's scores in one mode (with the graph or without), and its top ids: of the
/// backlog's `answer` when it gives one, else of the search.
#[allow(clippy::too_many_arguments)]
fn score(
    engine: &dyn Engine,
    retrieval: &crate::config::Retrieval,
    q: &Query,
    graded: &Graded,
    limit: usize,
    opts: &Options,
    graph: bool,
    answer: Option<&crate::query::search::Results>,
) -> Result<(Scores, Vec<String>), Error> {
    let results = match answer {
        Some(r) => r.clone(),
        None => crate::query::search::search(engine, &q.query, retrieval, limit, graph)?,
    };
    let mut ranked_keys: Vec<String> = Vec::new();
    for h in &results.results {
        let k = graded.as_key(&h.id);
        if !ranked_keys.contains(&k) {
            ranked_keys.push(k);
        }
    }
    let ranked: Vec<&str> = ranked_keys.iter().map(String::as_str).collect();
    let candidates: Vec<Hit> = results.results.iter().take(opts.candidates).cloned().collect();
    let packs = opts
        .budgets
        .iter()
        .map(|&budget| {
            let pack = crate::query::pack::pack(engine, &q.query, &candidates, budget, opts.tokenizer, opts.cliff);
            pack_score(graded, &pack, budget)
        })
        .collect();
    let grades = &graded.grades;
    let scores = Scores {
        ndcg10: ndcg(&ranked, grades, K),
        recall10: recall(&ranked, grades, K),
        recall20: recall(&ranked, grades, K2),
        rr: reciprocal_rank(&ranked, grades),
        packs,
    };
    let top = results.results.iter().take(K).map(|h| h.id.clone()).collect();
    Ok((scores, top))
}

/// How much of the graded documents a pack at `budget` holds, and how much of it they are.
fn pack_score(graded: &Graded, pack: &crate::query::pack::Pack, budget: u32) -> PackScore {
    let grades = &graded.grades;
    // An item's block may hold small items of its document (`members`): each is in the
    // pack with its text, and its tokens are its own.
    let ids = |it: &crate::query::pack::PackItem| {
        std::iter::once(graded.as_key(&it.id))
            .chain(it.members.iter().map(|m| graded.as_key(&m.id)))
            .collect::<Vec<_>>()
    };
    let full: std::collections::HashSet<String> = pack
        .items
        .iter()
        .filter(|it| it.mode != crate::query::pack::Mode::Reference)
        .flat_map(ids)
        .collect();
    let any: std::collections::HashSet<String> = pack.items.iter().flat_map(ids).collect();
    let share = |set: &std::collections::HashSet<String>| {
        grades.keys().filter(|k| set.contains(*k)).count() as f64 / grades.len() as f64
    };
    let item_tokens: u32 = pack.items.iter().map(|it| it.tokens).sum();
    let relevant = |id: &str| grades.contains_key(&graded.as_key(id));
    let relevant_tokens: u32 = pack
        .items
        .iter()
        .map(|it| {
            let in_members: u32 = it.members.iter().map(|m| m.tokens).sum();
            let own = it.tokens.saturating_sub(in_members);
            let members: u32 = it.members.iter().filter(|m| relevant(&m.id)).map(|m| m.tokens).sum();
            if relevant(&it.id) { own + members } else { members }
        })
        .sum();
    PackScore {
        budget,
        recall: share(&any),
        content_recall: share(&full),
        precision: if item_tokens == 0 {
            0.0
        } else {
            f64::from(relevant_tokens) / f64::from(item_tokens)
        },
        used: pack.used,
    }
}

/// The averages per query kind, for the queries that give one.
fn by_kind(per_query: &[QueryReport]) -> std::collections::BTreeMap<String, KindReport> {
    let mut by_kind = std::collections::BTreeMap::new();
    let kinds: std::collections::BTreeSet<&String> = per_query.iter().filter_map(|q| q.kind.as_ref()).collect();
    for kind in kinds {
        let of = |f: fn(&QueryReport) -> Option<&Scores>| {
            let v: Vec<Scores> = per_query
                .iter()
                .filter(|q| q.kind.as_ref() == Some(kind))
                .filter_map(|q| f(q).cloned())
                .collect();
            (!v.is_empty()).then(|| Summary::of(&v))
        };
        by_kind.insert(
            kind.clone(),
            KindReport {
                queries: per_query.iter().filter(|q| q.kind.as_ref() == Some(kind)).count(),
                graph: of(|q| q.graph.as_ref()),
                no_graph: of(|q| q.no_graph.as_ref()),
            },
        );
    }
    by_kind
}

/// The report as text: a table of the averages (side by side with the change when both
/// modes ran), the averages per query kind when the file gives kinds, then per-query rows
/// when asked.
pub fn to_text(report: &Report, name: &str, per_query: bool) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let budgets: Vec<String> = report.budgets.iter().map(u32::to_string).collect();
    let _ = writeln!(
        s,
        "{name}: {} queries · ranking depth {} · pack budget {} tokens",
        report.queries,
        report.depth,
        budgets.join(", ")
    );
    let _ = writeln!(s);
    table(&mut s, "metric", report.graph.as_ref(), report.no_graph.as_ref());
    for (kind, k) in &report.by_kind {
        let _ = writeln!(s);
        table(
            &mut s,
            &format!("kind {kind} ({})", k.queries),
            k.graph.as_ref(),
            k.no_graph.as_ref(),
        );
    }
    if per_query {
        let _ = writeln!(s);
        let both = report.graph.is_some() && report.no_graph.is_some();
        let _ = write!(
            s,
            "{:<10} {:>7} {:>6} {:>6} {:>6} {:>6}",
            "query", "nDCG10", "R@10", "R@20", "RR", "pack"
        );
        if both {
            let _ = write!(s, " {:>8} {:>7}", "ΔnDCG10", "ΔR@10");
        }
        let _ = writeln!(s, "  top 3");
        for q in &report.per_query {
            let Some(x) = q.graph.as_ref().or(q.no_graph.as_ref()) else {
                continue;
            };
            let rr = x.rr.map_or("-".to_string(), |r| format!("{r:.3}"));
            let pack = x.packs.first().map_or(0.0, |p| p.recall);
            let _ = write!(
                s,
                "{:<10} {:>7.3} {:>6.3} {:>6.3} {rr:>6} {pack:>6.3}",
                q.id, x.ndcg10, x.recall10, x.recall20
            );
            if let (true, Some(g), Some(n)) = (both, &q.graph, &q.no_graph) {
                let _ = write!(s, " {:>+8.3} {:>+7.3}", g.ndcg10 - n.ndcg10, g.recall10 - n.recall10);
            }
            let _ = writeln!(s, "  {}", q.top.iter().take(3).cloned().collect::<Vec<_>>().join(", "));
        }
    }
    s
}

/// One table of averages: one column per mode that ran, and the change when both did.
fn table(s: &mut String, title: &str, graph: Option<&Summary>, no_graph: Option<&Summary>) {
    use std::fmt::Write as _;
    match (graph, no_graph) {
        (Some(g), Some(n)) => {
            let _ = writeln!(s, "{title:<24} {:>8} {:>9} {:>8} {:>8}", "graph", "no graph", "Δ", "Δ%");
            for ((name, a), (_, b)) in g.rows().iter().zip(n.rows().iter()) {
                let rel = if *b > 0.0 {
                    format!("{:+.1}%", (a - b) / b * 100.0)
                } else {
                    String::new()
                };
                let _ = writeln!(s, "{name:<24} {a:>8.3} {b:>9.3} {:>+8.3} {rel:>8}", a - b);
            }
        }
        (Some(one), None) | (None, Some(one)) => {
            let label = if graph.is_some() { "graph" } else { "no graph" };
            let _ = writeln!(s, "{title:<24} {label:>8}");
            for (name, v) in one.rows() {
                let _ = writeln!(s, "{name:<24} {v:>8.3}");
            }
        }
        (None, None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grades(g: &[(&str, u32)]) -> HashMap<String, u32> {
        g.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn ndcg_by_hand() {
        let g = grades(&[("A", 3), ("B", 2), ("C", 1)]);
        // Ideal: 7/1 + 3/log2(3) + 1/2 = 7 + 1.892789 + 0.5 = 9.392789.
        let idcg = 7.0 + 3.0 / 3f64.log2() + 0.5;
        assert!(close(ndcg(&["A", "B", "C"], &g, 10), 1.0));
        // Ranked B, X, A: 3/1 + 0 + 7/2 = 6.5.
        assert!(close(ndcg(&["B", "X", "A"], &g, 10), 6.5 / idcg));
        // A beyond k does not count: k = 2 sees B, X only → 3 / (7 + 3/log2 3).
        assert!(close(ndcg(&["B", "X", "A"], &g, 2), 3.0 / (7.0 + 3.0 / 3f64.log2())));
        assert!(close(ndcg(&[], &g, 10), 0.0));
        assert!(close(ndcg(&["A"], &HashMap::new(), 10), 0.0));
    }

    #[test]
    fn recall_and_rr_by_hand() {
        let g = grades(&[("A", 3), ("B", 2), ("C", 1), ("D", 1)]);
        let ranked = ["X", "B", "Y", "A"];
        assert!(close(recall(&ranked, &g, 10), 0.5));
        assert!(close(recall(&ranked, &g, 2), 0.25));
        assert_eq!(reciprocal_rank(&ranked, &g), Some(0.25));
        assert_eq!(reciprocal_rank(&["X"], &g), Some(0.0));
        // No grade-3 document: the query does not count towards MRR.
        assert_eq!(reciprocal_rank(&ranked, &grades(&[("B", 2)])), None);
        let s = Summary::of(&[
            Scores {
                rr: Some(1.0),
                ndcg10: 1.0,
                ..Scores::default()
            },
            Scores {
                rr: None,
                ndcg10: 0.5,
                ..Scores::default()
            },
            Scores {
                rr: Some(0.5),
                ..Scores::default()
            },
        ]);
        assert!(close(s.mrr, 0.75));
        assert!(close(s.ndcg10, 0.5));
    }

    #[test]
    fn malformed_lines_name_the_line() {
        let ok = r#"{"id": "q1", "query": "sync", "relevant": {"A": 3, "docs/b.md": 1, "C": 0}, "kind": "x"}"#;
        let q = parse_queries("q.jsonl", &format!("\n{ok}\n")).unwrap();
        assert_eq!(q.len(), 1);
        assert_eq!(q[0].line, 2);
        assert_eq!(q[0].relevant, vec![("A".to_string(), 3), ("docs/b.md".to_string(), 1)]);
        let cases = [
            ("{not json", "q.jsonl:2: not a JSON object"),
            ("[1, 2]", "q.jsonl:2: expected a JSON object"),
            (r#"{"relevant": {"A": 3}}"#, "q.jsonl:2: missing `query`"),
            (r#"{"query": "x"}"#, "q.jsonl:2: missing `relevant`"),
            (r#"{"query": "x", "relevant": {"A": -1}}"#, "q.jsonl:2: grade of `A`"),
            (r#"{"query": "x", "relevant": {"A": 2.5}}"#, "q.jsonl:2: grade of `A`"),
            (
                r#"{"query": "x", "relevant": {"A": 0}}"#,
                "q.jsonl:2: query `line 2` has no graded",
            ),
            (r#"{"query": " ", "relevant": {"A": 1}}"#, "q.jsonl:2: `query` is empty"),
        ];
        for (line, want) in cases {
            let e = parse_queries("q.jsonl", &format!("{ok}\n{line}\n"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{line}: {e}");
        }
        assert!(
            parse_queries("q.jsonl", "\n\n")
                .unwrap_err()
                .to_string()
                .contains("no queries")
        );
    }
}
