//! The unavoidable parts of a cold `mdgraph index`, each timed on its own, on all cores
//! where the index runs it on all cores: walk, read, hash, parse, token counts, and one
//! write (serialize + write + fsync) of each output. BENCHMARKS.md ("Cold index at 10k:
//! where the time goes") compares a cold index with their sum.
//!
//! ```sh
//! cargo run --release --example floors -- ROOT [RUNS] [MIRROR]
//! ```
//!
//! ROOT is a backlog (e.g. one written by `bench/gen_backlog.py`), RUNS how often each
//! part is timed (default 5; min and max are printed), MIRROR an `index.sqlite` whose
//! bytes are written once as the floor of the mirror's write (optional). Scratch files go
//! to a temporary folder.

use mdgraph::internal::{index, parse, postings, render, sidecar};
use mdgraph::{Config, Overrides};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Time `f` `runs` times; (min, max) in ms and the last result.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64, T) {
    let (mut lo, mut hi, mut last) = (f64::MAX, 0.0f64, None);
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        let d = ms(t);
        lo = lo.min(d);
        hi = hi.max(d);
        last = Some(r);
    }
    (lo, hi, last.expect("at least one run"))
}

/// Write `blocks` to a new file and fsync it (what the sidecar commit does per output).
fn write_synced(path: &Path, blocks: &[Vec<u8>]) {
    let mut f = std::fs::File::create(path).expect("create");
    for b in blocks {
        f.write_all(b).expect("write");
    }
    f.sync_all().expect("fsync");
}

fn main() {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().expect("usage: floors ROOT [RUNS] [MIRROR]"));
    let runs: usize = args.next().map_or(5, |r| r.parse().expect("RUNS is a number"));
    let mirror = args.next().map(PathBuf::from);
    let scratch = tempfile::tempdir().expect("temp dir");
    let ov = Overrides {
        root: Some(root.clone()),
        index_dir: Some(scratch.path().join("_index")),
        ..Default::default()
    };
    let cfg = Config::load(Path::new("."), &ov).expect("config");
    let mut rows: Vec<(&str, f64, f64)> = Vec::new();

    // Walk: the scan's walker, one thread (as the scan walks).
    let (lo, hi, paths) = time(runs, || {
        let mut paths = Vec::new();
        for e in ignore::WalkBuilder::new(&root)
            .follow_links(false)
            .require_git(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .build()
            .flatten()
        {
            if e.file_type().is_some_and(|t| t.is_file()) && e.path().extension().is_some_and(|x| x == "md") {
                paths.push(e.into_path());
            }
        }
        paths
    });
    rows.push(("walk (1 thread)", lo, hi));
    // Read: every file, on all cores.
    let (lo, hi, texts) = time(runs, || {
        paths
            .par_iter()
            .map(|p| String::from_utf8(std::fs::read(p).expect("read")).expect("UTF-8"))
            .collect::<Vec<String>>()
    });
    rows.push(("read", lo, hi));
    // Hash: blake3 of every file, on all cores.
    let (lo, hi, hashes) = time(runs, || {
        texts
            .par_iter()
            .map(|t| blake3::hash(t.as_bytes()).to_hex().to_string())
            .collect::<Vec<String>>()
    });
    rows.push(("hash", lo, hi));
    // Parse: frontmatter, Markdown sections and links, on all cores.
    let rels: Vec<String> = paths
        .iter()
        .map(|p| p.strip_prefix(&root).unwrap_or(p).to_string_lossy().replace('\\', "/"))
        .collect();
    let (lo, hi, parsed) = time(runs, || {
        (0..texts.len())
            .into_par_iter()
            .map(|i| parse::parse_file(&rels[i], &hashes[i], &texts[i], &cfg.settings))
            .collect::<Vec<_>>()
    });
    rows.push(("parse", lo, hi));
    // Token counts of every header and section as a pack prints them, on all cores (the
    // tokenizer's load is timed apart: it happens once per process).
    let t = Instant::now();
    cfg.settings.tokenizer.count("warm up");
    let load = ms(t);
    rows.push(("tokenizer load (once)", load, load));
    let (lo, hi, _) = time(runs, || {
        parsed
            .par_iter()
            .map(|p| {
                let mut n = cfg.settings.tokenizer.count(&render::doc_header(&p.doc));
                for s in &p.sections {
                    n += cfg
                        .settings
                        .tokenizer
                        .count(&render::section_block(&s.heading, &s.text));
                }
                n as u64
            })
            .sum::<u64>()
    });
    rows.push(("token counts", lo, hi));
    drop((texts, parsed));

    // The outputs as the index makes them, the graph as it reads them back.
    let report = index::build(
        &cfg,
        index::BuildOptions {
            full: true,
            write: true,
        },
    )
    .expect("build");
    let index = mdgraph::Index::open_as_is(cfg.clone()).expect("open the index");
    let graph = index.graph().expect("load the graph");
    let out = scratch.path().join("out");
    std::fs::create_dir_all(&out).expect("out dir");
    let (lo, hi, _) = time(runs, || {
        write_synced(&out.join("n"), &sidecar::to_jsonl_blocks(&graph.nodes).0)
    });
    rows.push(("write graph_nodes.jsonl", lo, hi));
    let (lo, hi, _) = time(runs, || {
        write_synced(&out.join("e"), &sidecar::to_jsonl_blocks(&graph.edges).0)
    });
    rows.push(("write graph_edges.jsonl", lo, hi));
    let (lo, hi, _) = time(runs, || {
        write_synced(&out.join("d"), &sidecar::to_jsonl_blocks(&report.diagnostics).0)
    });
    rows.push(("write diagnostics.jsonl", lo, hi));
    let (lo, hi, _) = time(runs, || {
        write_synced(
            &out.join("m"),
            &[serde_json::to_vec_pretty(&report.meta).expect("meta")],
        )
    });
    rows.push(("write meta.json", lo, hi));
    if let Some(m) = mirror {
        let bytes = std::fs::read(&m).expect("read the mirror");
        let (lo, hi, _) = time(runs, || write_synced(&out.join("s"), std::slice::from_ref(&bytes)));
        rows.push(("write index.sqlite's bytes", lo, hi));
    }

    // Not floors, timed for the breakdown: the search postings the mirror stores.
    let (lo, hi, _) = time(runs, || postings::build(&graph.nodes).postings.len());
    let extra = [("postings (not a floor)", lo, hi)];

    println!(
        "{} files, {} threads, {runs} runs each",
        paths.len(),
        rayon::current_num_threads()
    );
    let (mut sum_lo, mut sum_hi) = (0.0, 0.0);
    for (name, lo, hi) in &rows {
        println!("{name:<28} {lo:>8.1} – {hi:>8.1} ms");
        sum_lo += lo;
        sum_hi += hi;
    }
    println!("{:<28} {sum_lo:>8.1} – {sum_hi:>8.1} ms", "sum");
    for (name, lo, hi) in extra {
        println!("{name:<28} {lo:>8.1} – {hi:>8.1} ms");
    }
}
