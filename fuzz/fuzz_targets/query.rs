//! The query path: any text is tokenized into terms whose FTS5 expression SQLite accepts
//! (user text never reaches FTS syntax), and search + pack over a small real backlog run
//! without a panic and keep the pack within its budget.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mdgraph::Settings;
use mdgraph::internal::config::Retrieval;
use mdgraph::internal::search::MemoryEngine;
use mdgraph::internal::tokenize::{fts_expression, query_terms};
use std::sync::OnceLock;

/// A MemoryEngine over the sample backlog's ADRs, epics and features.
fn engine() -> &'static MemoryEngine {
    static E: OnceLock<MemoryEngine> = OnceLock::new();
    E.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../backlog-fixtures");
        let settings = Settings::default();
        let mut parsed = Vec::new();
        for dir in ["decisions", "items/epic/0000", "items/feature/0000"] {
            let mut files: Vec<_> = std::fs::read_dir(root.join(dir)).unwrap().flatten().collect();
            files.sort_by_key(|e| e.file_name());
            for e in files {
                let text = std::fs::read_to_string(e.path()).unwrap();
                let rel = format!("{dir}/{}", e.file_name().to_string_lossy());
                parsed.push(mdgraph::internal::parse::parse_file(&rel, "h", &text, &settings));
            }
        }
        assert!(parsed.len() > 10, "sample backlog not found under {}", root.display());
        let (graph, _) = mdgraph::internal::resolve::resolve(parsed, &settings);
        MemoryEngine::new(&graph.nodes, &graph.edges)
    })
}

thread_local! {
    static FTS: rusqlite::Connection = {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        c.execute_batch("CREATE VIRTUAL TABLE t USING fts5(body); INSERT INTO t VALUES ('sync checklist and offline');")
            .unwrap();
        c
    };
}

fuzz_target!(|data: &[u8]| {
    let (knobs, rest) = data.split_at(data.len().min(2));
    let query = String::from_utf8_lossy(rest);
    let terms = query_terms(&query);
    assert!(terms.len() <= mdgraph::internal::tokenize::MAX_QUERY_TERMS);
    if let Some(expr) = fts_expression(&terms) {
        FTS.with(|c| {
            let r: Result<i64, _> = c.query_row("SELECT count(*) FROM t WHERE t MATCH ?1", [&expr], |r| r.get(0));
            assert!(r.is_ok(), "FTS5 rejected {expr:?} (query {query:?}): {r:?}");
        });
    } else {
        assert!(terms.is_empty());
    }
    let e = engine();
    let graph = knobs.first().is_some_and(|b| b & 1 == 1);
    let limit = knobs.first().map(|b| (*b >> 1) as usize).unwrap_or(10);
    let results = mdgraph::internal::search::search(e, &query, &Retrieval::default(), limit, graph).expect("search");
    assert!(results.results.len() <= limit);
    // Budgets from tiny to the largest a user can ask for.
    let budget = match knobs.get(1) {
        Some(&b) if b >= 250 => u32::MAX - u32::from(b),
        Some(&b) => u32::from(b) * 40,
        None => 4000,
    };
    let p = mdgraph::internal::pack::pack(e, &query, &results.results, budget, mdgraph::Tokenizer::Approx);
    assert!(p.used <= budget, "pack used {} of {budget}", p.used);
});
