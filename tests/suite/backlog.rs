//! `list`, `ready` and `tree` on the fixtures and on `tests/fixtures/ready` (a blocker
//! cycle, a chain of three blockers, an epic with mixed states, a blocked parent, a
//! `blocks` edge, a `relates` edge that must not block), and on
//! `tests/fixtures/backlog-md-folders` (Backlog.md's archive/, completed/ and drafts/).

use crate::common::*;

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
    // A type nobody has: a usage error (exit 2) naming the known ones.
    let nope = f.run(&["list", "--type", "Nope"]);
    assert_eq!(nope.code, 2, "{}", nope.stderr);
    assert!(nope.stderr.contains("Task ("), "{}", nope.stderr);
    // Known values that match nothing together: exit 1.
    assert_eq!(f.run(&["list", "--type", "adr", "--state", "in_progress"]).code, 1);
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
    // 8 descendants: 2 done, 1 dropped, 2 in progress, 3 blocked (open by their state,
    // each held by an unfinished blocker: blocked, as the site's board says); 2 of 7
    // live are done.
    assert_eq!(
        (
            r["total"].as_u64(),
            r["done"].as_u64(),
            r["dropped"].as_u64(),
            r["in_progress"].as_u64(),
            r["open"].as_u64(),
            r["blocked"].as_u64()
        ),
        (Some(8), Some(2), Some(1), Some(2), Some(0), Some(3)),
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

/// Every answer of `list`, `ready` and `tree` three ways: from the mirror's backlog table
/// (the fast paths), from the whole graph loaded, and from the JSONL files without a
/// mirror. They must be the same bytes.
fn assert_paths_agree(cfg: mdgraph::Config, parents: &[&str]) {
    use mdgraph::{Index, ListFilter};
    let fast = Index::open(cfg.clone()).unwrap();
    let whole = Index::open(cfg.clone()).unwrap();
    // With the graph loaded, the questions walk it.
    whole.graph().unwrap();
    let jsonl = Index::open(mdgraph::Config { sqlite: false, ..cfg }).unwrap();
    let f = |types: &[&str], states: &[&str], parent: Option<&str>, deep: bool, sort: Option<&str>| ListFilter {
        types: types.iter().map(|s| s.to_string()).collect(),
        states: states.iter().map(|s| s.to_string()).collect(),
        parent: parent.map(str::to_string),
        deep,
        sort: sort.map(str::to_string),
        ..ListFilter::default()
    };
    let mut filters = vec![
        f(&[], &[], None, false, None),
        f(&["Task"], &["InProgress"], None, false, None),
        f(&["task", "BUG"], &["in_progress", "blocked"], None, false, None),
        f(&["adr"], &[], None, false, None),
        f(&["doc", "work_item"], &["open"], None, false, None),
        f(&[], &["done", "Won't Do", "parked"], None, false, Some("state")),
        f(&[], &["dropped"], None, false, Some("title")),
        f(&["Task"], &[], None, false, Some("priority")),
        f(&[], &["open"], None, false, Some("TYPE")),
    ];
    for p in parents {
        filters.push(f(&[], &[], Some(p), false, None));
        filters.push(f(&[], &[], Some(p), true, Some("priority")));
        filters.push(f(&[], &["open", "done"], Some(p), true, None));
    }
    let json = |v: &dyn erased::Json| v.json();
    let mut listed = 0;
    // A type or state this corpus does not have is the same usage error three ways.
    let answer = |r: Result<mdgraph::ListReport, mdgraph::Error>| match r {
        Ok(v) => json(&v),
        Err(e) => format!("error: {e}"),
    };
    for filter in &filters {
        let want = answer(fast.list(filter));
        assert_eq!(want, answer(whole.list(filter)), "{filter:?}");
        assert_eq!(want, answer(jsonl.list(filter)), "{filter:?}");
        listed += fast.list(filter).map(|r| r.count).unwrap_or(0);
    }
    assert!(listed > 0);
    let ready = json(&fast.ready().unwrap());
    assert_eq!(ready, json(&whole.ready().unwrap()));
    assert_eq!(ready, json(&jsonl.ready().unwrap()));
    for p in parents {
        let tree = json(&fast.tree(p).unwrap());
        assert_eq!(tree, json(&whole.tree(p).unwrap()), "{p}");
        assert_eq!(tree, json(&jsonl.tree(p).unwrap()), "{p}");
    }
}

mod erased {
    /// A report as JSON text, for comparing reports of different types alike.
    pub trait Json {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap()
        }
    }
}

#[test]
fn fast_paths_agree_with_the_graph_on_the_fixtures() {
    let f = Fixture::new("backlog-fixtures");
    assert_paths_agree(f.config(), &["QRY-EPIC-0001", "QRY-EPIC-0003", "QRY-FTR-0006"]);
    let f = Fixture::new("tests/fixtures/ready");
    assert_paths_agree(f.config(), &["RDY-EPIC-0001", "RDY-TSK-0004"]);
    let f = Fixture::new("tests/fixtures/backlog-md-folders");
    std::fs::write(
        f.dir.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n[states]\n\
         paths = { \"archive/**\" = \"dropped\", \"completed/**\" = \"done\", \"drafts/**\" = \"draft\" }\n",
    )
    .unwrap();
    let cfg = mdgraph::Config::load(f.dir.path(), &mdgraph::Overrides::default()).unwrap();
    assert!(!cfg.states.paths.is_empty());
    assert_paths_agree(cfg, &["BACK-5"]);
}

/// A random backlog: parents (cycles among them too), blockers of three kinds (cycles
/// too, and ids that are no document), priorities, states of every group and one the
/// config adds, and path rules.
#[test]
fn fast_paths_agree_with_the_graph_on_a_generated_backlog() {
    let dir = tempfile::tempdir().unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let n = 240;
    let types = ["Epic", "Feature", "UserStory", "Task", "Bug"];
    let states = [
        "Proposed",
        "Planned",
        "InProgress",
        "Review",
        "Blocked",
        "Done",
        "Dropped",
        "Parked",
        "Won't Do",
        "In Progress",
    ];
    let id = |i: u64| format!("G-{i:04}");
    for i in 0..n {
        let folder = ["items", "items", "items", "items/old", "items/drafts"][next(5) as usize];
        let mut fm = format!(
            "---\nid: {}\ntype: {}\ntitle: \"Item {i}\"\nstate: {}\n",
            id(i),
            types[next(5) as usize],
            states[next(states.len() as u64) as usize]
        );
        if next(3) > 0 {
            fm += &format!("priority: P{}\n", next(4));
        }
        if next(5) > 0 {
            // Mostly an earlier item (a tree), sometimes any (cycles).
            let p = if next(10) == 0 { next(n) } else { next(i.max(1)) };
            fm += &format!("parent: {}\n", id(p));
        }
        let pick = |k: u64| id(k);
        fm += &format!(
            "links:\n  blocked_by: [{}]\n  blocks: [{}]\ndepends_on: [{}]\n---\n\n# Goal\n\nItem {i}.\n",
            (0..next(4) / 3)
                .map(|_| pick(next(n + 5)))
                .collect::<Vec<_>>()
                .join(", "),
            (0..next(6) / 5).map(|_| pick(next(n))).collect::<Vec<_>>().join(", "),
            (0..next(6) / 5).map(|_| pick(next(n))).collect::<Vec<_>>().join(", "),
        );
        let path = dir.path().join("backlog").join(folder).join(format!("{}.md", id(i)));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, fm).unwrap();
    }
    // Two open items blocking each other: a cycle `ready` reports.
    for (a, b) in [(9001, 9002), (9002, 9001)] {
        std::fs::write(
            dir.path().join(format!("backlog/items/{}.md", id(a))),
            format!(
                "---\nid: {}\ntype: Task\nstate: Planned\nlinks:\n  blocked_by: [{}]\n---\n",
                id(a),
                id(b)
            ),
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n[states]\ndone = [\"Parked\"]\n\
         paths = { \"items/old/**\" = \"dropped\", \"items/drafts/**\" = \"draft\" }\n",
    )
    .unwrap();
    let cfg = mdgraph::Config::load(dir.path(), &mdgraph::Overrides::default()).unwrap();
    let ready = mdgraph::Index::open(cfg.clone()).unwrap().ready().unwrap();
    assert!(ready.count > 5 && !ready.cycles.is_empty(), "{ready:?}");
    assert_paths_agree(cfg, &["G-0000", "G-0001", "G-0003", "G-0010"]);
}

/// The `[states]` config is read at query time, outside the config digest the index
/// records: changing it must change `list` and `ready` at once (the mirror's backlog
/// table is made again), with or without `--no-refresh`, and changing it back must
/// bring the first answers back.
#[test]
fn a_states_change_is_never_answered_from_a_stale_backlog_table() {
    let f = Fixture::new("tests/fixtures/ready");
    std::fs::write(f.dir.path().join("plain.toml"), "").unwrap();
    std::fs::write(
        f.dir.path().join("planned-done.toml"),
        "[states]\ndone = [\"Planned\"]\n",
    )
    .unwrap();
    let run = |config: &str, args: &[&str]| {
        let mut full = vec!["--config", config];
        full.extend_from_slice(args);
        full.extend_from_slice(&["--format", "json"]);
        let out = f.run(&full);
        assert!(out.code < 2, "{}", out.stderr);
        ids(&json(&out))
    };
    let answers = |config: &str, extra: &[&str]| {
        let mut ready = vec!["ready"];
        ready.extend_from_slice(extra);
        let mut done = vec!["list", "--state", "done"];
        done.extend_from_slice(extra);
        (run(config, &ready), run(config, &done))
    };
    let (ready, done) = answers("plain.toml", &[]);
    assert!(!done.contains(&"RDY-TSK-0005".to_string()), "{done:?}");
    for extra in [&[][..], &["--no-refresh"][..]] {
        let (ready2, done2) = answers("planned-done.toml", extra);
        assert_ne!(ready, ready2, "{extra:?}");
        assert!(done2.contains(&"RDY-TSK-0005".to_string()), "{extra:?}: {done2:?}");
        // The same answers as without a mirror.
        let mut no_sqlite = vec!["--no-sqlite"];
        no_sqlite.extend_from_slice(extra);
        assert_eq!((ready2, done2), answers("planned-done.toml", &no_sqlite), "{extra:?}");
        assert_eq!((ready.clone(), done.clone()), answers("plain.toml", extra), "{extra:?}");
    }
}
