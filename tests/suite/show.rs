//! `mdgraph show`: a node with its sections and edges.

use crate::common::*;
use crate::snap;

#[test]
fn show_feature_and_adr() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let out = f.run(&["show", "ADR-0006"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    snap!("show_adr_0006", out.stdout);
    // Any case, and by path.
    let lower = f.run(&["show", "adr-0006"]);
    assert_eq!(lower.stdout, out.stdout);
    let json = f.run(&["show", "ADR-0006", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let path = v["node"]["path"].as_str().unwrap().to_string();
    assert_eq!(f.run(&["show", &path]).stdout, out.stdout);
    // Every edge shown is a real edge of the sidecar.
    let edges = f.read_index("graph_edges.jsonl");
    for e in v["outgoing"].as_array().unwrap() {
        let needle = format!(
            "{{\"source\":\"ADR-0006\",\"target\":\"{}\",\"type\":\"{}\"",
            e["id"].as_str().unwrap(),
            e["type"].as_str().unwrap()
        );
        assert!(edges.contains(&needle), "{needle}");
    }
}

#[test]
fn show_builds_a_missing_index() {
    let f = Fixture::new("backlog-fixtures");
    let out = f.run(&["show", "QRY-FTR-0001"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("QRY-FTR-0001  "), "{}", out.stdout);
    assert!(f.index().join("meta.json").is_file());
}

#[test]
fn show_unknown_id_exits_1() {
    let f = Fixture::new("backlog-fixtures");
    let out = f.run(&["show", "NOPE-404"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("no node matches `NOPE-404`"), "{}", out.stderr);
}

#[test]
fn neighbors_in_every_format() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let text = f.run(&["neighbors", "QRY-FTR-0004"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    snap!("neighbors_text", text.stdout);
    snap!(
        "neighbors_mermaid",
        f.run(&[
            "neighbors",
            "adr-0004",
            "--edges",
            "decision_ref,relates",
            "--format",
            "mermaid"
        ])
        .stdout
    );
    snap!(
        "neighbors_dot",
        f.run(&[
            "neighbors",
            "QRY-TSK-0013",
            "--edges",
            "blocked_by,blocks,parent",
            "--depth",
            "2",
            "--format",
            "dot"
        ])
        .stdout
    );
    let json = f.run(&["neighbors", "QRY-TSK-0007", "--depth", "2", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let ids: Vec<&str> = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids[0], "QRY-TSK-0007");
    for e in v["edges"].as_array().unwrap() {
        assert!(ids.contains(&e["source"].as_str().unwrap()) && ids.contains(&e["target"].as_str().unwrap()));
    }
    let bad = f.run(&["neighbors", "QRY-FTR-0004", "--edges", "child_of"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("unknown edge type `child_of`"), "{}", bad.stderr);
}

#[test]
fn neighbors_by_path_and_unknown_id_leaves_the_mirror_alone() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let by_id = f.run(&["neighbors", "ADR-0004"]);
    let by_path = f.run(&["neighbors", "decisions/ADR-0004_resumable-photo-uploads-with-tus.md"]);
    assert_eq!(by_path.code, 0, "{}", by_path.stderr);
    assert_eq!(by_id.stdout, by_path.stdout);
    // Regression: an unknown id was taken for a failing mirror, which was then rebuilt.
    let db = f.index().join("index.sqlite");
    let before = std::fs::metadata(&db).unwrap().modified().unwrap();
    let out = f.run(&["neighbors", "NOPE-404"]);
    assert_eq!(out.code, 1);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
    assert_eq!(std::fs::metadata(&db).unwrap().modified().unwrap(), before);
}

#[test]
fn ids_as_people_type_them() {
    let f = Fixture::new("backlog-fixtures");
    // Spaces for dashes and any case name the same item.
    let out = f.run(&["show", "qry tsk 0004"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("QRY-TSK-0004 "), "{}", out.stdout);
    // A number several items end with is listed, not guessed.
    let out = f.run(&["show", "0004"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("matches several nodes") && out.stderr.contains("QRY-TSK-0004"),
        "{}",
        out.stderr
    );
    // The file name works too.
    let out = f.run(&[
        "neighbors",
        "QRY-TSK-0004_build-signature-pad-with-vector-stroke-capture",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}
