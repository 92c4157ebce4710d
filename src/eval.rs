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
//!   (in any mode: full, excerpt or reference), and content recall (full or excerpt only).
//!
//! A graded key that names no document stays in the query's denominators (the index is
//! missing something relevant) and is reported as a warning.

use crate::error::Error;
use crate::search::{Engine, Hit};
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
        out.push(Query {
            id,
            query,
            relevant,
            line,
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
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Scores {
    /// nDCG@10.
    pub ndcg10: f64,
    /// Recall@10.
    pub recall10: f64,
    /// Recall@20.
    pub recall20: f64,
    /// Reciprocal rank of the first grade-3 document (None: the query has none).
    pub rr: Option<f64>,
    /// Share of graded documents in the pack (any mode).
    pub pack_recall: f64,
    /// Share of graded documents in the pack in full or as an excerpt.
    pub pack_content_recall: f64,
}

/// Averages over queries.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Summary {
    /// Mean nDCG@10.
    pub ndcg10: f64,
    /// Mean Recall@10.
    pub recall10: f64,
    /// Mean Recall@20.
    pub recall20: f64,
    /// Mean reciprocal rank of the first grade-3 document.
    pub mrr: f64,
    /// Mean pack recall (any mode).
    pub pack_recall: f64,
    /// Mean pack recall counting full and excerpt items only.
    pub pack_content_recall: f64,
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
            pack_recall: mean(|s| s.pack_recall),
            pack_content_recall: mean(|s| s.pack_content_recall),
        }
    }

    /// The metrics as (name, value) rows, in report order.
    pub fn rows(&self) -> [(&'static str, f64); 6] {
        [
            ("nDCG@10", self.ndcg10),
            ("Recall@10", self.recall10),
            ("Recall@20", self.recall20),
            ("MRR", self.mrr),
            ("Pack recall", self.pack_recall),
            ("Pack content recall", self.pack_content_recall),
        ]
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
    /// The top of the ranking with the graph, or without it when only that was run.
    pub top: Vec<String>,
}

/// The evaluation of a query file.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Queries evaluated.
    pub queries: usize,
    /// Pack budget in tokens.
    pub budget: u32,
    /// Averages with the graph (None when not evaluated).
    pub graph: Option<Summary>,
    /// Averages without the graph (None when not evaluated).
    pub no_graph: Option<Summary>,
    /// Per-query figures.
    pub per_query: Vec<QueryReport>,
    /// Graded keys that name no document: `file:line: query id: key`.
    pub warnings: Vec<String>,
}

/// What to evaluate.
#[derive(Debug, Clone)]
pub struct Options {
    /// Evaluate with the graph.
    pub graph: bool,
    /// Evaluate without the graph.
    pub no_graph: bool,
    /// Pack budget in tokens.
    pub budget: u32,
    /// Candidates a pack considers (as `mdgraph pack --candidates`).
    pub candidates: usize,
    /// Token counter of the index.
    pub tokenizer: crate::tokens::Tokenizer,
}

/// Resolve a graded key to a document id: an id, then a root-relative path, then an id
/// in any case or `ID@uid` form. None when it names no document.
pub fn resolve_key(engine: &dyn Engine, paths: &HashMap<String, String>, key: &str) -> Option<String> {
    if engine.doc(key).is_some() {
        return Some(key.to_string());
    }
    let path = key.trim().trim_start_matches("./");
    if let Some(id) = paths.get(path) {
        return Some(id.clone());
    }
    engine.exact_id(key.trim())
}

/// Run every query through search (and pack) and score the rankings. `paths` maps
/// root-relative paths to document ids; `name` names the query file in warnings.
pub fn evaluate(
    engine: &dyn Engine,
    retrieval: &crate::config::Retrieval,
    paths: &HashMap<String, String>,
    name: &str,
    queries: &[Query],
    opts: &Options,
) -> Result<Report, Error> {
    let mut warnings = Vec::new();
    let mut per_query = Vec::new();
    let (mut on, mut off) = (Vec::new(), Vec::new());
    let limit = K2.max(opts.candidates);
    for q in queries {
        // Graded ids; an unknown key keeps its own name so it counts but never matches.
        let mut grades: HashMap<String, u32> = HashMap::new();
        for (key, grade) in &q.relevant {
            let id = resolve_key(engine, paths, key).unwrap_or_else(|| {
                warnings.push(format!(
                    "{name}:{}: query {}: `{key}` is not in the index",
                    q.line, q.id
                ));
                format!("\u{0}missing:{key}")
            });
            let g = grades.entry(id).or_insert(0);
            *g = (*g).max(*grade);
        }
        let run = |graph: bool| -> Result<(Scores, Vec<String>), Error> {
            let results = crate::search::search(engine, &q.query, retrieval, limit, graph)?;
            let ranked: Vec<&str> = results.results.iter().map(|h| h.id.as_str()).collect();
            let candidates: Vec<Hit> = results.results.iter().take(opts.candidates).cloned().collect();
            let pack = crate::pack::pack(engine, &q.query, &candidates, opts.budget, opts.tokenizer);
            let in_pack = |content: bool| {
                let n = grades
                    .keys()
                    .filter(|id| {
                        pack.items
                            .iter()
                            .any(|it| &it.id == *id && (!content || it.mode != crate::pack::Mode::Reference))
                    })
                    .count();
                n as f64 / grades.len() as f64
            };
            let scores = Scores {
                ndcg10: ndcg(&ranked, &grades, K),
                recall10: recall(&ranked, &grades, K),
                recall20: recall(&ranked, &grades, K2),
                rr: reciprocal_rank(&ranked, &grades),
                pack_recall: in_pack(false),
                pack_content_recall: in_pack(true),
            };
            Ok((scores, ranked.iter().take(K).map(|s| s.to_string()).collect()))
        };
        let g = if opts.graph { Some(run(true)?) } else { None };
        let ng = if opts.no_graph { Some(run(false)?) } else { None };
        let top = g.as_ref().or(ng.as_ref()).map(|r| r.1.clone()).unwrap_or_default();
        if let Some((s, _)) = &g {
            on.push(*s);
        }
        if let Some((s, _)) = &ng {
            off.push(*s);
        }
        per_query.push(QueryReport {
            id: q.id.clone(),
            query: q.query.clone(),
            graph: g.map(|r| r.0),
            no_graph: ng.map(|r| r.0),
            top,
        });
    }
    Ok(Report {
        queries: queries.len(),
        budget: opts.budget,
        graph: opts.graph.then(|| Summary::of(&on)),
        no_graph: opts.no_graph.then(|| Summary::of(&off)),
        per_query,
        warnings,
    })
}

/// The report as text: a table of the averages (side by side with the change when both
/// modes ran), then per-query rows when asked.
pub fn to_text(report: &Report, name: &str, per_query: bool) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{name}: {} queries · pack budget {} tokens",
        report.queries, report.budget
    );
    let _ = writeln!(s);
    match (&report.graph, &report.no_graph) {
        (Some(g), Some(n)) => {
            let _ = writeln!(
                s,
                "{:<20} {:>8} {:>9} {:>8} {:>8}",
                "metric", "graph", "no graph", "Δ", "Δ%"
            );
            for ((name, a), (_, b)) in g.rows().iter().zip(n.rows().iter()) {
                let rel = if *b > 0.0 {
                    format!("{:+.1}%", (a - b) / b * 100.0)
                } else {
                    String::new()
                };
                let _ = writeln!(s, "{name:<20} {a:>8.3} {b:>9.3} {:>+8.3} {rel:>8}", a - b);
            }
        }
        (Some(one), None) | (None, Some(one)) => {
            let label = if report.graph.is_some() { "graph" } else { "no graph" };
            let _ = writeln!(s, "{:<20} {label:>8}", "metric");
            for (name, v) in one.rows() {
                let _ = writeln!(s, "{name:<20} {v:>8.3}");
            }
        }
        (None, None) => {}
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
            let Some(x) = q.graph.or(q.no_graph) else { continue };
            let rr = x.rr.map_or("-".to_string(), |r| format!("{r:.3}"));
            let _ = write!(
                s,
                "{:<10} {:>7.3} {:>6.3} {:>6.3} {rr:>6} {:>6.3}",
                q.id, x.ndcg10, x.recall10, x.recall20, x.pack_recall
            );
            if let (true, Some(g), Some(n)) = (both, q.graph, q.no_graph) {
                let _ = write!(s, " {:>+8.3} {:>+7.3}", g.ndcg10 - n.ndcg10, g.recall10 - n.recall10);
            }
            let _ = writeln!(s, "  {}", q.top.iter().take(3).cloned().collect::<Vec<_>>().join(", "));
        }
    }
    s
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
