//! `mdgraph search`: ranking output, adversarial queries, engine parity, self-repair.

use crate::common::*;
use crate::snap;
use mdgraph::internal::search::{self, MemoryEngine, SqliteEngine};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchJson {
    schema: String,
    query: String,
    engine: String,
    terms: Vec<String>,
    results: Vec<HitJson>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct HitJson {
    id: String,
    path: String,
    title: String,
    kind: String,
    r#type: Option<String>,
    state: Option<String>,
    score: f64,
    /// Only on navigation pages.
    #[serde(default)]
    nav: bool,
    why: WhyJson,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
#[allow(dead_code)]
enum WhyJson {
    Seed {
        exact_id: bool,
        matched: Vec<String>,
        section: String,
        section_id: Option<String>,
        section_score: f64,
        sections_matched: usize,
        also_reached: usize,
    },
    Neighbor {
        seed: String,
        path: Vec<StepJson>,
        paths: usize,
    },
    Work {
        status: String,
        place: usize,
        of: usize,
        #[serde(default)]
        scope: Vec<String>,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepJson {
    from: String,
    edge: String,
    to: String,
}

impl WhyJson {
    fn exact_id(&self) -> bool {
        matches!(self, WhyJson::Seed { exact_id: true, .. })
    }
}

fn search_json(f: &Fixture, args: &[&str]) -> (i32, SearchJson) {
    let mut a = vec!["search"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--format", "json"]);
    let out = f.run(&a);
    let parsed: SearchJson =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", out.stdout, out.stderr));
    assert_eq!(parsed.schema, "mdgraph.search/1");
    (out.code, parsed)
}

#[test]
fn search_output_snapshots() {
    let f = Fixture::new("backlog-fixtures");
    let q = "how are photo uploads resumed after losing signal";
    let out = f.run(&["search", q]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    snap!("search_text", out.stdout);
    let json = f.run(&["search", q, "--format", "json", "--limit", "5"]);
    snap!("search_json", json.stdout);
    let v: SearchJson = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v.query, q);
    assert_eq!(v.engine, "sqlite");
    assert!(v.results.len() <= 5);
    assert!(
        v.results.windows(2).all(|w| w[0].score >= w[1].score),
        "ranked by score"
    );
    assert!(f.index().join("index.sqlite").is_file());
}

#[test]
fn exact_id_in_any_case_is_the_top_seed() {
    let f = Fixture::new("backlog-fixtures");
    for q in [
        "qry-tsk-0010 acceptance criteria",
        "QRY-TSK-0010",
        "what about QRY-TSK-0010@019a",
    ] {
        let (code, v) = search_json(&f, &[q]);
        assert_eq!(code, 0);
        assert_eq!(v.results[0].id, "QRY-TSK-0010", "{q}");
        assert!(v.results[0].why.exact_id());
    }
}

#[test]
fn adversarial_queries_never_error() {
    let f = Fixture::new("backlog-fixtures");
    let long = "sync ".repeat(2000);
    let queries = [
        "KABSD-FTR-0023",
        "graph-assisted",
        "what is k-hop?",
        "\"unbalanced quote",
        "NEAR(",
        "*",
        "AND OR NOT",
        "🦀 emoji 🚀",
        "",
        "col:title ^x -y +z (a OR b)",
        long.as_str(),
    ];
    for q in queries {
        for extra in [&[][..], &["--no-sqlite"]] {
            let mut args = vec!["search", q, "--format", "json"];
            args.extend_from_slice(extra);
            let out = f.run(&args);
            assert!(
                out.code == 0 || out.code == 1,
                "{q:?} {extra:?}: exit {} {}",
                out.code,
                out.stderr
            );
            let v: SearchJson = serde_json::from_str(&out.stdout).unwrap();
            assert_eq!(out.code == 1, v.results.is_empty(), "{q:?}: exit 1 means no results");
        }
    }
}

#[test]
fn sqlite_and_memory_engines_agree_on_labeled_queries() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let cfg = f.config();
    mdgraph::internal::store::sync(&cfg.index_dir, &mdgraph::internal::store::mirror_spec(&cfg)).unwrap();
    let sql = SqliteEngine::open(&cfg.index_dir).unwrap();
    let mem: MemoryEngine = search::memory_engine(&cfg.index_dir).unwrap();
    let queries = std::fs::read_to_string(repo().join("backlog-fixtures/queries.jsonl")).unwrap();
    let mut n = 0;
    for line in queries.lines() {
        let q: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = q["query"].as_str().unwrap();
        let a = search::search(&sql, text, &cfg.retrieval, 10, true).unwrap();
        let b = search::search(&mem, text, &cfg.retrieval, 10, true).unwrap();
        let ids = |r: &search::Results| r.results.iter().map(|h| (h.id.clone(), h.score)).collect::<Vec<_>>();
        assert_eq!(ids(&a), ids(&b), "{text}");
        assert_eq!(
            a.results.iter().map(|h| &h.why).collect::<Vec<_>>(),
            b.results.iter().map(|h| &h.why).collect::<Vec<_>>()
        );
        n += 1;
    }
    assert!(n >= 20, "{n} labeled queries");
}

#[test]
fn corrupt_or_truncated_mirror_is_rebuilt() {
    let f = Fixture::new("backlog-fixtures");
    let (_, good) = search_json(&f, &["conflict resolution for checklists"]);
    let db = f.index().join("index.sqlite");
    let bytes = std::fs::read(&db).unwrap();
    for damage in [
        bytes[..bytes.len() / 3].to_vec(),
        b"not a database at all".to_vec(),
        Vec::new(),
    ] {
        std::fs::write(&db, &damage).unwrap();
        let (code, v) = search_json(&f, &["conflict resolution for checklists"]);
        assert_eq!(code, 0);
        assert_eq!(v.engine, "sqlite", "rebuilt and used");
        let ids = |r: &SearchJson| r.results.iter().map(|h| h.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&v), ids(&good));
        assert!(std::fs::metadata(&db).unwrap().len() > 10_000, "the mirror was rebuilt");
    }
}

#[test]
fn no_sqlite_uses_the_sidecar_and_writes_no_database() {
    let f = Fixture::new("backlog-fixtures");
    let (code, v) = search_json(&f, &["--no-sqlite", "tenant isolation"]);
    assert_eq!(code, 0);
    assert_eq!(v.engine, "memory");
    assert!(!f.index().join("index.sqlite").exists());
    std::fs::write(
        f.dir.path().join("mdgraph.toml"),
        "root = \"backlog\"\nsqlite = false\n",
    )
    .unwrap();
    let out = run_in(f.dir.path(), &["search", "tenant isolation", "--format", "json"]);
    let v: SearchJson = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v.engine, "memory");
    assert!(!f.root().join("_index/index.sqlite").exists());
    assert!(!v.terms.is_empty());
}

#[test]
fn search_refreshes_a_stale_index_unless_told_not_to() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    std::fs::write(f.root().join("ZEBRA.md"), "# Zebra crossings\nStriped zebra notes.\n").unwrap();
    let (code, v) = search_json(&f, &["--no-refresh", "zebra"]);
    assert_eq!((code, v.results.len()), (1, 0), "stale index searched as is");
    let (code, v) = search_json(&f, &["zebra"]);
    assert_eq!(code, 0);
    assert_eq!(v.results[0].path, "ZEBRA.md");
}

/// Does the mirror have the FTS5 table?
fn has_fts_table(index: &std::path::Path) -> bool {
    let conn = rusqlite::Connection::open(index.join("index.sqlite")).unwrap();
    conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE name = 'sections_fts'",
        [],
        |r| r.get::<_, i64>(0),
    )
    .unwrap()
        == 1
}

#[test]
fn ranking_equals_fts5_bm25() {
    // mdgraph ranks from its own postings; the FTS5 table in the mirror (asked for with
    // `sqlite_fts`) is the reference implementation of the same formula. Scores must
    // match FTS5's bm25() exactly.
    use mdgraph::internal::search::Engine;
    let f = Fixture::new("backlog-fixtures");
    std::fs::write(f.dir.path().join("mdgraph.toml"), "sqlite_fts = true\n").unwrap();
    assert_eq!(f.run(&["index"]).code, 0);
    let cfg = f.config();
    assert!(cfg.sqlite_fts && has_fts_table(&cfg.index_dir));
    let engine = SqliteEngine::open(&cfg.index_dir).unwrap();
    let conn = rusqlite::Connection::open(cfg.index_dir.join("index.sqlite")).unwrap();
    let fw = cfg.retrieval.weights.field;
    let queries = std::fs::read_to_string(repo().join("backlog-fixtures/queries.jsonl")).unwrap();
    for line in queries.lines() {
        let q: serde_json::Value = serde_json::from_str(line).unwrap();
        let terms = mdgraph::internal::tokenize::query_terms(q["query"].as_str().unwrap());
        let expr = mdgraph::internal::tokenize::fts_expression(&terms).unwrap();
        let mut st = conn
            .prepare("SELECT rowid - 1, -bm25(sections_fts, ?2, ?3, ?4) AS s FROM sections_fts WHERE sections_fts MATCH ?1 ORDER BY s DESC, rowid")
            .unwrap();
        let fts: Vec<(u32, f64)> = st
            .query_map(rusqlite::params![expr, fw.title, fw.heading, fw.body], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let postings: Vec<_> = terms.iter().map(|t| engine.postings(&t.stem).unwrap()).collect();
        let ours = mdgraph::internal::bm25::score(engine.corpus(), &postings, fw, usize::MAX);
        assert_eq!(ours, fts, "{}", q["query"]);
    }
}

#[test]
fn the_fts5_table_is_opt_in_and_toggling_it_rebuilds_the_mirror() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    assert!(!has_fts_table(&f.index()), "no FTS5 table by default");
    let (_, before) = search_json(&f, &["offline sync conflicts"]);
    // The sources are unchanged: only the setting makes the mirror stale, and the next
    // search rebuilds it with the table.
    let config = f.dir.path().join("mdgraph.toml");
    std::fs::write(&config, "sqlite_fts = true\n").unwrap();
    let (code, with) = search_json(&f, &["offline sync conflicts"]);
    assert_eq!((code, with.engine.as_str()), (0, "sqlite"));
    assert!(has_fts_table(&f.index()), "rebuilt with the table");
    let conn = rusqlite::Connection::open(f.index().join("index.sqlite")).unwrap();
    let hits: i64 = conn
        .query_row(
            "SELECT count(*) FROM sections_fts WHERE sections_fts MATCH 'sync'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(hits > 0, "SQL users can MATCH stemmed terms");
    drop(conn);
    // `mdgraph index` with nothing changed drops it again when the setting is turned off.
    std::fs::write(&config, "sqlite_fts = false\n").unwrap();
    assert_eq!(f.run(&["index"]).code, 0);
    assert!(!has_fts_table(&f.index()));
    let (_, after) = search_json(&f, &["offline sync conflicts"]);
    let ids = |r: &SearchJson| r.results.iter().map(|h| h.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&before), ids(&with), "the table does not change the ranking");
    assert_eq!(ids(&before), ids(&after));
    // An unknown key next to it is still an error naming it.
    std::fs::write(&config, "sqlite_ftz = true\n").unwrap();
    let out = f.run(&["index"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("sqlite_ftz"), "{}", out.stderr);
}

#[test]
fn stat_probe_never_hides_a_change() {
    // Once the stat cache trusts every file, search decides freshness from stats alone.
    // New, edited and deleted files must still be seen.
    let f = Fixture::new("backlog-fixtures");
    crate::check::age_files(&f.root());
    wait_racy();
    assert_eq!(f.run(&["index"]).code, 0);
    let (code, _) = search_json(&f, &["quokka"]);
    assert_eq!(code, 1, "nothing about quokkas yet");
    // A new file in an existing folder.
    std::fs::write(f.root().join("decisions/NOTE_quokka.md"), "# Quokka\nA quokka note.\n").unwrap();
    let (_, v) = search_json(&f, &["quokka"]);
    assert_eq!(
        v.results.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(),
        ["decisions/NOTE_quokka.md"]
    );
    // An in-place edit of a file the cache trusted (the folder's mtime does not change).
    crate::check::age_files(&f.root());
    wait_racy();
    assert_eq!(f.run(&["index"]).code, 0);
    let cache = std::fs::read_to_string(f.index().join(".stat-cache")).unwrap();
    assert!(
        cache.starts_with("mdgraph-stat-cache 4 1 "),
        "the cache vouches for every file"
    );
    let readme = f.root().join("README.md");
    let text = std::fs::read_to_string(&readme).unwrap();
    std::fs::write(&readme, text + "\nWombat sightings are tracked here.\n").unwrap();
    let (_, v) = search_json(&f, &["wombat", "--no-graph"]);
    assert_eq!(
        v.results.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(),
        ["README.md"]
    );
    // A deletion.
    std::fs::remove_file(f.root().join("decisions/NOTE_quokka.md")).unwrap();
    let (_, v) = search_json(&f, &["quokka"]);
    assert!(v.results.iter().all(|h| h.path != "decisions/NOTE_quokka.md"));
}

#[test]
fn neighbor_paths_are_real_edges() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let edges: std::collections::HashSet<(String, String, String)> = f
        .read_index("graph_edges.jsonl")
        .lines()
        .map(|l| {
            let e: serde_json::Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| e[k].as_str().unwrap().to_string();
            (s("source"), s("type"), s("target"))
        })
        .collect();
    fn reverse(edge: &str) -> &str {
        match edge {
            "child" => "parent",
            "decides" => "decision_ref",
            "blocked_by" => "blocks",
            "blocks" => "blocked_by",
            "required_by" => "depends_on",
            "superseded_by" => "supersedes",
            "supersedes" => "superseded_by",
            "linked_from" => "links_to",
            "mentioned_by" => "mentions",
            other => other,
        }
    }
    let queries = std::fs::read_to_string(repo().join("backlog-fixtures/queries.jsonl")).unwrap();
    let mut neighbors = 0;
    for line in queries.lines() {
        let q: serde_json::Value = serde_json::from_str(line).unwrap();
        let (_, v) = search_json(&f, &[q["query"].as_str().unwrap(), "--limit", "20"]);
        // A neighbor may outrank its seed after the state weights (a superseded ADR's
        // successor), so the seed is looked for in the whole ranking.
        let (_, all) = search_json(&f, &[q["query"].as_str().unwrap(), "--limit", "1000"]);
        let ids: Vec<&str> = all.results.iter().map(|h| h.id.as_str()).collect();
        for h in &v.results {
            if let WhyJson::Neighbor { seed, path, .. } = &h.why {
                neighbors += 1;
                assert_eq!(&path[0].from, seed);
                assert!(
                    ids.contains(&seed.as_str()) || path[0].edge == "superseded_by",
                    "{seed} not in results"
                );
                assert_eq!(path.last().unwrap().to, h.id);
                for st in path {
                    let fwd = (st.from.clone(), st.edge.clone(), st.to.clone());
                    let back = (st.to.clone(), reverse(&st.edge).to_string(), st.from.clone());
                    assert!(edges.contains(&fwd) || edges.contains(&back), "{st:?} is not an edge");
                }
            }
        }
    }
    assert!(neighbors > 10, "the graph brought in {neighbors} neighbors");
}

#[test]
fn no_graph_gives_plain_full_text_ranking() {
    let f = Fixture::new("backlog-fixtures");
    let (_, plain) = search_json(&f, &["what is blocking the PDF export", "--no-graph", "--limit", "20"]);
    assert!(plain.results.iter().all(|h| matches!(h.why, WhyJson::Seed { .. })));
    assert!(plain.results.windows(2).all(|w| w[0].score >= w[1].score));
    let (_, graph) = search_json(&f, &["what is blocking the PDF export", "--limit", "20"]);
    assert!(graph.results.iter().any(|h| matches!(h.why, WhyJson::Neighbor { .. })));
}

#[test]
fn probe_covers_skipped_files_subfolder_ignores_and_meta() {
    let f = Fixture::new("backlog-fixtures");
    std::fs::create_dir_all(f.root().join("sub")).unwrap();
    std::fs::write(f.root().join("sub/.gitignore"), "hidden.md\n").unwrap();
    std::fs::write(f.root().join("sub/hidden.md"), "# Walrus\nWalrus notes.\n").unwrap();
    std::fs::write(f.root().join("bad.md"), b"# Zebra \xff\n").unwrap();
    crate::check::age_files(&f.root());
    wait_racy();
    assert_eq!(f.run(&["index"]).code, 0);
    let cache = std::fs::read_to_string(f.index().join(".stat-cache")).unwrap();
    assert!(
        cache.starts_with("mdgraph-stat-cache 4 0 "),
        "a skipped file keeps the cache from vouching"
    );
    // Fixing the skipped file in place is seen.
    std::fs::write(f.root().join("bad.md"), "# Zebra\nZebra notes.\n").unwrap();
    let (_, v) = search_json(&f, &["zebra", "--no-graph"]);
    assert_eq!(
        v.results.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(),
        ["bad.md"]
    );
    // With a complete cache, emptying a subfolder's .gitignore in place is seen.
    crate::check::age_files(&f.root());
    wait_racy();
    assert_eq!(f.run(&["index"]).code, 0);
    let cache = std::fs::read_to_string(f.index().join(".stat-cache")).unwrap();
    assert!(cache.starts_with("mdgraph-stat-cache 4 1 "));
    let (code, _) = search_json(&f, &["walrus"]);
    assert_eq!(code, 1, "hidden.md is ignored");
    std::fs::write(f.root().join("sub/.gitignore"), "").unwrap();
    let (_, v) = search_json(&f, &["walrus", "--no-graph"]);
    assert_eq!(
        v.results.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(),
        ["sub/hidden.md"]
    );
    // A deleted meta.json is noticed too (the index is rebuilt, show works).
    crate::check::age_files(&f.root());
    wait_racy();
    assert_eq!(f.run(&["index"]).code, 0);
    std::fs::remove_file(f.index().join("meta.json")).unwrap();
    assert_eq!(f.run(&["show", "ADR-0001"]).code, 0);
}

/// Paths of the results of `search QUERY --no-graph` run with `globals` before the command
/// and only `HOME` in the environment.
fn found_with_home(dir: &std::path::Path, home: &std::path::Path, globals: &[&str], query: &str) -> Vec<String> {
    let mut a = globals.to_vec();
    a.extend_from_slice(&["search", query, "--no-graph", "--format", "json"]);
    let out = run_env(dir, &a, &[("HOME", home.as_os_str())]);
    let v: SearchJson =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", out.stdout, out.stderr));
    v.results.into_iter().map(|h| h.path).collect()
}

#[cfg(unix)]
#[test]
fn probe_sees_changes_outside_the_walked_files() {
    use std::os::unix::fs::symlink;
    // One backlog per change, so each change meets a cache that vouches for every file.
    let [a, b, c, d] = [(); 4].map(|_| Fixture::new("backlog-fixtures"));
    let home = |f: &Fixture| f.dir.path().join("home");
    for f in [&a, &b, &c, &d] {
        std::fs::create_dir_all(home(f).join(".config/git")).unwrap();
    }
    // a: a symlinked file whose target sits in a hidden (unwalked) folder.
    std::fs::create_dir_all(a.root().join(".shared/sub")).unwrap();
    std::fs::create_dir_all(a.root().join("notes")).unwrap();
    std::fs::write(a.root().join(".shared/sub/b.md"), "# Zebracorn\nZebracorn notes.\n").unwrap();
    symlink("../.shared/sub/b.md", a.root().join("notes/b.md")).unwrap();
    // b: a .gitignore that is a dangling symlink, beside a file it will come to ignore.
    std::fs::create_dir_all(b.root().join("other")).unwrap();
    symlink(b.dir.path().join("shared.ignore"), b.root().join("other/.gitignore")).unwrap();
    std::fs::write(b.root().join("other/secret.md"), "# Plumbago\nPlumbago notes.\n").unwrap();
    // c: a file git's global excludes file will come to ignore.
    std::fs::write(c.root().join("walrus.md"), "# Walrus\nWalrus notes.\n").unwrap();
    // d: the backlog through a symlinked root.
    symlink("backlog", d.dir.path().join("rootlink")).unwrap();
    let plain = ["--root", "backlog", "--index-dir", "_index"];
    let linked = ["--root", "rootlink", "--index-dir", "_index"];
    let search = |f: &Fixture, globals: &[&str], q: &str| found_with_home(f.dir.path(), &home(f), globals, q);
    // Everything settles past the racy window; then each cache vouches for every file.
    wait_racy();
    for (f, globals) in [(&a, &plain), (&b, &plain), (&c, &plain), (&d, &linked)] {
        let mut args = globals.to_vec();
        args.push("index");
        assert_eq!(run_env(f.dir.path(), &args, &[("HOME", home(f).as_os_str())]).code, 0);
        let cache = std::fs::read_to_string(f.dir.path().join("_index/.stat-cache")).unwrap();
        assert!(cache.starts_with("mdgraph-stat-cache 4 1 "), "{cache}");
    }
    assert_eq!(search(&a, &plain, "zebracorn"), ["notes/b.md"]);
    assert_eq!(search(&b, &plain, "plumbago"), ["other/secret.md"]);
    assert_eq!(search(&c, &plain, "walrus"), ["walrus.md"]);
    let cache = std::fs::read_to_string(d.dir.path().join("_index/.stat-cache")).unwrap();
    assert!(
        cache.lines().any(|l| l.starts_with("D ") && l.ends_with(" - ")),
        "the symlinked root has its stamp"
    );
    // a: the target moves outside the root, the link untouched: the scan now skips the
    // file, and so must search.
    let outside = tempfile::tempdir().unwrap();
    std::fs::rename(a.root().join(".shared/sub"), outside.path().join("sub")).unwrap();
    symlink(outside.path().join("sub"), a.root().join(".shared/sub")).unwrap();
    assert!(
        search(&a, &plain, "zebracorn").is_empty(),
        "a file outside the root is still found"
    );
    // b: the dangling .gitignore's target appears (its folder does not change).
    std::fs::write(b.dir.path().join("shared.ignore"), "secret.md\n").unwrap();
    assert!(
        search(&b, &plain, "plumbago").is_empty(),
        "an ignored file is still found"
    );
    // c: git's global excludes file appears.
    std::fs::write(home(&c).join(".config/git/ignore"), "walrus.md\n").unwrap();
    assert!(
        search(&c, &plain, "walrus").is_empty(),
        "a globally ignored file is still found"
    );
    // d: a new file directly in the symlinked root.
    std::fs::write(d.root().join("quagga.md"), "# Quagga\nQuagga notes.\n").unwrap();
    assert_eq!(search(&d, &linked, "quagga"), ["quagga.md"]);
}

#[test]
fn outside_a_configured_backlog_a_query_says_so_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Notes\nphoto upload\n").unwrap();
    let out = run_in(dir.path(), &["search", "photo"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("no mdgraph.toml") && out.stderr.contains("mdgraph init"),
        "{}",
        out.stderr
    );
    assert!(!dir.path().join("_index").exists(), "nothing is written");
    // `--limit 0` is a usage error, not "no results".
    let f = Fixture::new("backlog-fixtures");
    let out = f.run(&["search", "photo", "--limit", "0"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("at least 1"), "{}", out.stderr);
}
