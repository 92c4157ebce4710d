//! `mdgraph eval`: the fixtures' labeled set (snapshotted), JSON output, bad query files,
//! keys given as paths, unknown keys.

use crate::common::*;
use crate::snap;

#[test]
fn fixtures_labeled_set_compare_and_per_query() {
    let f = Fixture::new("backlog-fixtures");
    let q = repo().join("backlog-fixtures/queries.jsonl");
    let q = q.to_str().unwrap();
    let out = f.run(&["-q", "eval", q, "--compare", "--per-query"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The header names the file as given; keep the snapshot independent of the checkout.
    let text = out.stdout.replace(q, "queries.jsonl");
    snap!("eval_fixtures_compare", text);
}

#[test]
fn json_report_and_graph_beats_plain_search() {
    let f = Fixture::new("backlog-fixtures");
    let q = repo().join("backlog-fixtures/queries.jsonl");
    let out = f.run(&["eval", q.to_str().unwrap(), "--compare", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["queries"], 34);
    assert_eq!(v["budgets"], serde_json::json!([4000]));
    let on = &v["graph"];
    let off = &v["no_graph"];
    for m in ["ndcg10", "recall10", "recall20", "mrr"] {
        let (a, b) = (on[m].as_f64().unwrap(), off[m].as_f64().unwrap());
        assert!((0.0..=1.0).contains(&a) && (0.0..=1.0).contains(&b), "{m}: {a} {b}");
    }
    // The graph's purpose: more of the graded neighbors in the top 10, and not at the
    // expense of the ranking as a whole.
    assert!(on["recall10"].as_f64() > off["recall10"].as_f64());
    let pack = &on["packs"][0];
    assert_eq!(pack["budget"], 4000);
    assert!(pack["used"].as_u64().unwrap() <= 4000);
    let (any, content) = (
        pack["recall"].as_f64().unwrap(),
        pack["content_recall"].as_f64().unwrap(),
    );
    assert!(0.0 < content && content <= any && any <= 1.0, "{any} {content}");
    assert!(on["ndcg10"].as_f64() >= off["ndcg10"].as_f64());
    assert_eq!(v["per_query"].as_array().unwrap().len(), 34);
    assert!(v["warnings"].as_array().unwrap().is_empty());
    // Only one mode: the other is null.
    let plain = f.run(&["eval", q.to_str().unwrap(), "--no-graph", "--format", "json"]);
    let p: serde_json::Value = serde_json::from_str(&plain.stdout).unwrap();
    assert!(p["graph"].is_null());
    assert_eq!(p["no_graph"], v["no_graph"]);
}

#[test]
fn paths_as_keys_unknown_keys_and_malformed_lines() {
    let f = Fixture::new("backlog-fixtures");
    let by_id = r#"{"id": "a", "query": "checklist sync conflicts", "relevant": {"ADR-0006": 3, "QRY-FTR-0002": 2}}"#;
    let by_path = r#"{"id": "a", "query": "checklist sync conflicts", "relevant": {"decisions/ADR-0006-checklist-sync-merge-strategy.md": 3, "QRY-FTR-0002": 2}}"#;
    let adr = std::fs::read_dir(f.root().join("decisions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|n| n.starts_with("ADR-0006"))
        .unwrap();
    let by_path = by_path.replace("ADR-0006-checklist-sync-merge-strategy.md", &adr);
    std::fs::write(f.dir.path().join("ids.jsonl"), format!("{by_id}\n")).unwrap();
    std::fs::write(f.dir.path().join("paths.jsonl"), format!("{by_path}\n")).unwrap();
    let a = f.run(&["eval", "ids.jsonl", "--format", "json"]);
    let b = f.run(&["eval", "paths.jsonl", "--format", "json"]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert_eq!(a.stdout, b.stdout, "a path key counts as the document it names");
    assert!(b.stderr.is_empty(), "{}", b.stderr);

    // The same document under two keys counts once, with a warning.
    let both = by_path.replace(r#""QRY-FTR-0002": 2"#, r#""QRY-FTR-0002": 2, "adr-0006": 2"#);
    std::fs::write(f.dir.path().join("both.jsonl"), format!("{both}\n")).unwrap();
    let d = f.run(&["eval", "both.jsonl", "--format", "json"]);
    let (va, vd): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(&a.stdout).unwrap(),
        serde_json::from_str(&d.stdout).unwrap(),
    );
    assert_eq!(
        va["graph"], vd["graph"],
        "a second key for one document changes nothing"
    );
    assert!(d.stderr.contains("names the same document as"), "{}", d.stderr);

    // An unknown key is a warning naming it, and still counts as relevant (recall ≤ 1/2).
    let unknown = by_id.replace("QRY-FTR-0002", "QRY-NOPE-0001");
    std::fs::write(f.dir.path().join("unknown.jsonl"), format!("\n{unknown}\n")).unwrap();
    let c = f.run(&["eval", "unknown.jsonl", "--format", "json"]);
    assert_eq!(c.code, 0);
    assert!(
        c.stderr
            .contains("warning: unknown.jsonl:2: query a: `QRY-NOPE-0001` is not in the index"),
        "{}",
        c.stderr
    );
    let v: serde_json::Value = serde_json::from_str(&c.stdout).unwrap();
    assert!(v["graph"]["recall20"].as_f64().unwrap() <= 0.5);

    // A malformed line is an error naming the file and line; exit 2.
    std::fs::write(f.dir.path().join("bad.jsonl"), format!("{by_id}\n{{\"query\": 3}}\n")).unwrap();
    let d = f.run(&["eval", "bad.jsonl"]);
    assert_eq!(d.code, 2);
    assert!(
        d.stderr.contains("bad.jsonl:2: `query` must be a string"),
        "{}",
        d.stderr
    );
    let e = f.run(&["eval", "missing.jsonl"]);
    assert_eq!(e.code, 2);
    assert!(e.stderr.contains("missing.jsonl"), "{}", e.stderr);
}
