//! `list`, `ready` and `tree` on the fixtures and on `tests/fixtures/ready` (a blocker
//! cycle, a chain of three blockers, an epic with mixed states, a blocked parent, a
//! `blocks` edge, a `relates` edge that must not block), and on
//! `tests/fixtures/backlog-md-folders` (Backlog.md's archive/, completed/ and drafts/).

use crate::common::*;

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", out.stdout, out.stderr))
}

fn ids(v: &serde_json::Value) -> Vec<String> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn list_filters_compose_and_match_the_graph_files() {
    let f = Fixture::new("backlog-fixtures");
    let out = f.run(&["list", "--type", "Task", "--state", "InProgress", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = json(&out);
    assert_eq!(v["schema"], "mdgraph.list/1");
    // What the graph files say: every Task node whose state is InProgress.
    let nodes = f.read_index("graph_nodes.jsonl");
    let mut want: Vec<String> = nodes
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|n| n["type"] == "Task" && n["state"] == "InProgress")
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect();
    want.sort();
    assert!(!want.is_empty());
    assert_eq!(ids(&v), want);
    assert_eq!(v["count"], want.len());
    // A group name takes every state of the group.
    let group = json(&f.run(&["list", "--type", "task", "--state", "in_progress", "--format", "json"]));
    assert!(ids(&group).len() > want.len(), "Review is in progress too");
    // Any frontmatter field, lists by member; children of a parent, deep or not.
    let tagged = json(&f.run(&["list", "--where", "tags=pdf", "--format", "json"]));
    assert!(ids(&tagged).contains(&"QRY-TSK-0013".to_string()), "{tagged}");
    let direct = json(&f.run(&["list", "--parent", "QRY-EPIC-0003", "--format", "json"]));
    let deep = json(&f.run(&["list", "--parent", "QRY-EPIC-0003", "--deep", "--format", "json"]));
    assert!(ids(&direct).contains(&"QRY-FTR-0006".to_string()));
    assert!(!ids(&direct).contains(&"QRY-TSK-0013".to_string()));
    assert!(ids(&deep).contains(&"QRY-TSK-0013".to_string()));
    // Nothing matches: exit 1.
    assert_eq!(f.run(&["list", "--type", "Nope"]).code, 1);
}

#[test]
fn ready_follows_blockers_parents_and_reports_cycles() {
    let f = Fixture::new("tests/fixtures/ready");
    let out = f.run(&["ready", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = json(&out);
    assert_eq!(v["schema"], "mdgraph.ready/1");
    let got = ids(&v);
    // Priority first, then what it unblocks.
    assert_eq!(got, ["RDY-TSK-0009", "RDY-TSK-0002", "RDY-TSK-0010"], "{v}");
    // Not ready: the top of a chain of three (its blocker is in progress), both ends of
    // a cycle, the child of a blocked parent, the target of a `blocks` edge, the epic
    // and feature whose work is in unfinished children.
    for id in [
        "RDY-TSK-0003",
        "RDY-TSK-0004",
        "RDY-TSK-0005",
        "RDY-TSK-0007",
        "RDY-TSK-0011",
        "RDY-EPIC-0001",
    ] {
        assert!(!got.contains(&id.to_string()), "{id} is not ready");
    }
    assert_eq!(v["cycles"], serde_json::json!([["RDY-TSK-0004", "RDY-TSK-0005"]]));
    // Every item is open and none of its blockers is unfinished (checked from the edges).
    for item in v["items"].as_array().unwrap() {
        assert!(["open", "in_progress"].contains(&item["group"].as_str().unwrap()));
    }
    let text = f.run(&["ready"]);
    assert!(
        text.stderr
            .contains("blocker cycle: RDY-TSK-0004 → RDY-TSK-0005 → RDY-TSK-0004"),
        "{}",
        text.stderr
    );
    let explain = f.run(&["ready", "--explain", "RDY-TSK-0003"]);
    assert_eq!(explain.code, 1);
    assert!(
        explain.stdout.contains("blocker RDY-TSK-0002 is InProgress"),
        "{}",
        explain.stdout
    );
    let child = f.run(&["ready", "--explain", "rdy-tsk-0007"]);
    assert!(
        child.stdout.contains("its ancestor RDY-TSK-0008 is Blocked"),
        "{}",
        child.stdout
    );
    assert_eq!(f.run(&["ready", "--explain", "RDY-TSK-0002"]).code, 0);
}

#[test]
fn tree_rolls_up_states_per_level() {
    let f = Fixture::new("tests/fixtures/ready");
    let v = json(&f.run(&["tree", "RDY-EPIC-0001", "--format", "json"]));
    assert_eq!(v["schema"], "mdgraph.tree/1");
    let r = &v["root"]["rollup"];
    // 8 descendants: 2 done, 1 dropped, 2 in progress, 3 open; 2 of 7 live are done.
    assert_eq!(
        (
            r["total"].as_u64(),
            r["done"].as_u64(),
            r["dropped"].as_u64(),
            r["in_progress"].as_u64(),
            r["open"].as_u64()
        ),
        (Some(8), Some(2), Some(1), Some(2), Some(3)),
        "{r}"
    );
    assert_eq!(r["done_fraction"].as_f64(), Some(0.286));
    let ftr = v["root"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "RDY-FTR-0002")
        .unwrap();
    assert_eq!(ftr["rollup"]["total"], 3);
    let text = f.run(&["tree", "RDY-EPIC-0001"]);
    assert!(text.stdout.contains("[2/7 done (29 %)"), "{}", text.stdout);
    let mermaid = f.run(&["tree", "RDY-EPIC-0001", "--format", "mermaid"]);
    assert!(mermaid.stdout.starts_with("flowchart TD") && mermaid.stdout.contains("-->"));
    let dot = f.run(&["tree", "RDY-EPIC-0001", "--format", "dot"]);
    assert!(
        dot.stdout.starts_with("digraph") && dot.stdout.contains("\"RDY-EPIC-0001\" -> \"RDY-FTR-0002\""),
        "{}",
        dot.stdout
    );
    assert_eq!(f.run(&["tree", "NOPE-1"]).code, 1);
}

#[test]
fn every_json_output_names_its_schema() {
    let f = Fixture::new("backlog-fixtures");
    let q = repo().join("backlog-fixtures/queries.jsonl");
    let runs: Vec<Vec<&str>> = vec![
        vec!["index", "--format", "json"],
        vec!["check", "--format", "json"],
        vec!["search", "photo upload", "--format", "json"],
        vec!["pack", "photo upload", "--format", "json"],
        vec!["show", "QRY-TSK-0007", "--format", "json"],
        vec!["neighbors", "QRY-TSK-0007", "--format", "json"],
        vec!["list", "--format", "json"],
        vec!["ready", "--format", "json"],
        vec!["tree", "QRY-EPIC-0001", "--format", "json"],
        vec!["eval", q.to_str().unwrap(), "--format", "json"],
    ];
    for args in runs {
        let out = f.run(&args);
        let v = json(&out);
        let schema = v["schema"].as_str().unwrap_or_else(|| panic!("{args:?}: no schema"));
        assert!(
            schema.starts_with("mdgraph.") && schema.contains('/'),
            "{args:?}: {schema}"
        );
    }
}

/// Backlog.md moves tasks to `archive/` and `completed/` without changing their status,
/// and keeps ideas in `drafts/`: with the `[states] paths` that `mdgraph init` writes for
/// that layout, none of them is ready, and list, ready and tree agree on their groups.
#[test]
fn backlog_md_archive_completed_and_drafts_are_not_ready() {
    let f = Fixture::new("tests/fixtures/backlog-md-folders");
    let init = run_in(f.dir.path(), &["init"]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    let toml = std::fs::read_to_string(f.dir.path().join("mdgraph.toml")).unwrap();
    assert!(
        toml.contains(r#"paths = { "archive/**" = "dropped", "completed/**" = "done", "drafts/**" = "draft" }"#),
        "{toml}"
    );
    // The config `init` wrote names the root and index folder itself.
    let run = |args: &[&str]| run_in(f.dir.path(), args);
    let ready = json(&run(&["ready", "--format", "json"]));
    // BACK-2's blocker is archived (dropped), BACK-5's only child completed.
    assert_eq!(ids(&ready), ["BACK-1", "BACK-2", "BACK-5"], "{ready}");
    let group = |state: &str| ids(&json(&run(&["list", "--state", state, "--format", "json"])));
    assert_eq!(group("dropped"), ["BACK-3"]);
    assert_eq!(group("done"), ["BACK-4", "BACK-6"]);
    // A draft keeps its state's group in listings; it is only never ready.
    assert_eq!(group("open"), ["BACK-1", "BACK-2", "BACK-5", "DRAFT-1"]);
    // ready ⊆ list's open and in-progress items.
    let live = ids(&json(&run(&[
        "list",
        "--state",
        "open",
        "--state",
        "in_progress",
        "--format",
        "json",
    ])));
    assert!(ids(&ready).iter().all(|id| live.contains(id)), "{ready}");
    let archived = run(&["ready", "--explain", "BACK-3"]);
    assert_eq!(archived.code, 1);
    assert!(
        archived.stdout.contains("it is under archive/** (dropped)"),
        "{}",
        archived.stdout
    );
    let draft = run(&["ready", "--explain", "DRAFT-1"]);
    assert_eq!(draft.code, 1);
    assert!(
        draft.stdout.contains("it is a draft (under drafts/**)"),
        "{}",
        draft.stdout
    );
    let tree = json(&run(&["tree", "BACK-5", "--format", "json"]));
    assert_eq!(tree["root"]["rollup"]["done"], 1, "{tree}");
    // Without the rules, the archived task would be ready.
    std::fs::write(f.dir.path().join("plain.toml"), "").unwrap();
    let plain = json(&f.run(&["--config", "plain.toml", "ready", "--format", "json"]));
    assert!(ids(&plain).contains(&"BACK-3".to_string()), "{plain}");
    // A value that is no group is an error naming the key.
    std::fs::write(
        f.dir.path().join("bad.toml"),
        "[states]\npaths = { \"archive/**\" = \"gone\" }\n",
    )
    .unwrap();
    let bad = f.run(&["--config", "bad.toml", "ready"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("states.paths.\"archive/**\": `gone` is not a state group"),
        "{}",
        bad.stderr
    );
}
