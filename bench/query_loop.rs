//! Queries answered in one process, as `mdgraph mcp` answers them: search and pack, on
//! the in-memory engine and on the SQLite mirror, each repeated and timed (p50, p90).
//! For profiling the query path without process start-up (`perf record` this).
//!
//! ```sh
//! cargo run --release --example query_loop -- ROOT INDEX_DIR [RUNS] [QUERY]
//! ```
//!
//! QUERY may be `@FILE`, one query per line, asked in turn. Without QUERY, each run asks for the title of another document (every document's
//! title in turn, spread over the index), as `bench/mcp_bench.py` does: a fresh query
//! each time, so nothing is answered from the counts of the run before.

use mdgraph::{Config, Index, Overrides, SearchOptions};
use std::path::PathBuf;
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: query_loop ROOT INDEX_DIR [RUNS] [QUERY]");
        std::process::exit(2);
    }
    let runs: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(50);
    let queries: Vec<String> = match args.get(4) {
        Some(q) if q.starts_with('@') => std::fs::read_to_string(&q[1..])
            .expect("query file")
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect(),
        Some(q) => vec![q.clone()],
        None => titles(&PathBuf::from(&args[2]), 6 * runs),
    };
    let config = Config::load(
        &std::env::current_dir().expect("cwd"),
        &Overrides {
            root: Some(PathBuf::from(&args[1])),
            index_dir: Some(PathBuf::from(&args[2])),
            ..Overrides::default()
        },
    )
    .expect("config");
    let only = std::env::var("QUERY_LOOP_ONLY").unwrap_or_default();
    for memory in [true, false] {
        let index = Index::open_as_is(config.clone()).expect("index");
        let index = if memory { index.in_memory() } else { index };
        let engine = if memory { "memory" } else { "sqlite" };
        // The first query loads what the engine keeps.
        index.search(&queries[0]).expect("search");
        for (phase, budget) in [0, 1000, 4000].into_iter().enumerate() {
            let name = if budget == 0 {
                "search".to_string()
            } else {
                format!("pack {budget}")
            };
            if !only.is_empty() && !format!("{engine} {name}").contains(&only) {
                continue;
            }
            let mut xs: Vec<f64> = (0..runs)
                .map(|i| {
                    // Each phase of each engine asks its own questions.
                    let query = &queries[(i + (phase + 3 * usize::from(!memory)) * runs) % queries.len()];
                    let t = Instant::now();
                    if budget == 0 {
                        index.search_with(query, SearchOptions::default()).expect("search");
                    } else {
                        index.pack(query, budget).expect("pack");
                    }
                    t.elapsed().as_secs_f64() * 1000.0
                })
                .collect();
            xs.sort_by(f64::total_cmp);
            println!(
                "{engine} {name}: p50 {:.2} ms, p90 {:.2} ms",
                xs[xs.len() / 2],
                xs[xs.len() * 9 / 10]
            );
        }
    }
}

/// `n` document titles spread evenly over the index's nodes.
fn titles(index_dir: &std::path::Path, n: usize) -> Vec<String> {
    let text = std::fs::read_to_string(index_dir.join("graph_nodes.jsonl")).expect("graph_nodes.jsonl");
    let all: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["kind"] != "chunk")
        .filter_map(|v| v["title"].as_str().map(str::to_string))
        .collect();
    let step = (all.len() / n.max(1)).max(1);
    all.into_iter().step_by(step).take(n).collect()
}
