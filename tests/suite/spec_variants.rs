//! Spec folders as people and agents write them (`tests/fixtures/spec-variants`): a
//! Japanese and a Spanish Spec Kit template, a grouped feature folder, Kiro plans written
//! as headings with optional tasks and requirement ranges, BMAD statuses written with
//! dates and notes, nested task numbers, an archive and reports named after a story or an
//! epic; and decision logs that name a successor in prose (`tests/fixtures/adr-prose`).
//! Each is read as its own tool reads it, and `check` finds no error in them.

use crate::common::*;

/// The fixture, indexed.
fn indexed() -> Fixture {
    let f = Fixture::new("tests/fixtures/spec-variants");
    let out = f.run(&["index", "-q"]);
    assert!(out.code <= 1, "{}", out.stderr);
    f
}

fn node(f: &Fixture, id: &str) -> serde_json::Value {
    f.read_index("graph_nodes.jsonl")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|n| n["id"] == id)
        .unwrap_or_else(|| panic!("no node {id}"))
}

fn has_edge(f: &Fixture, src: &str, ty: &str, dst: &str) -> bool {
    let want = format!("\"source\":\"{src}\",\"target\":\"{dst}\",\"type\":\"{ty}\"");
    f.read_index("graph_edges.jsonl").contains(&want)
}

#[test]
fn check_finds_no_error_in_the_variants() {
    let f = indexed();
    let out = f.run(&["check", "--format", "json"]);
    let v = json(&out);
    let diags: Vec<String> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{}:{} {}",
                d["path"].as_str().unwrap(),
                d["line"],
                d["code"].as_str().unwrap()
            )
        })
        .collect();
    // The two Done stories with an open box are what `check` warns of, and nothing else:
    // no dangling `[US1]` (the stories are read in their language), no second phase, no
    // duplicate story from the archive or the report, no second `epic-1`.
    assert_eq!(
        diags,
        [
            "docs/stories/1.1.story.md:1 done-with-open-children",
            "docs/stories/1.2.story.md:15 done-with-open-children",
        ],
        "{}",
        out.stdout
    );
}

#[test]
fn localized_spec_kit_templates_are_read_by_role() {
    let f = indexed();
    for (id, title) in [
        ("001-historial/US1", "変更履歴を自動記録する (優先度: P1)"),
        ("001-historial/US2", "履歴を確認する（優先度: P2）"),
        // A feature grouped under `specs/in-progress/` keeps its own name.
        ("002-limpieza/US1", "Limpiar ramas fusionadas (Prioridad: P1)"),
    ] {
        assert_eq!(node(&f, id)["title"], title, "{id}");
    }
    assert_eq!(node(&f, "001-historial/US1")["fields"]["priority"], "P1");
    for (src, ty, dst) in [
        ("001-historial/T003", "relates", "001-historial/US1"),
        ("001-historial/T005", "relates", "001-historial/US2"),
        ("001-historial/phase-3", "relates", "001-historial/US1"),
        // `## フェーズ 4: US2 - …`: a story phase, which waits for setup and foundation.
        ("001-historial/phase-4", "relates", "001-historial/US2"),
        ("001-historial/phase-4", "depends_on", "001-historial/phase-2"),
        ("002-limpieza/T001", "relates", "002-limpieza/US1"),
        ("002-limpieza/phase-1", "relates", "002-limpieza/US1"),
    ] {
        assert!(has_edge(&f, src, ty, dst), "missing {src} -{ty}-> {dst}");
    }
    // `## Phase 3 completion (…)` reports on phase 3: no second phase.
    let tree = f.run(&["tree", "001-historial"]);
    assert_eq!(tree.stdout.matches("phase-3").count(), 1, "{}", tree.stdout);
}

#[test]
fn kiro_plans_as_written() {
    let f = indexed();
    // `### ✅ Tarea 1.1: …` over criteria boxes: a task with their state; the box
    // `- [x] 4 cards con iconos correctos` is one of them, not task 4.
    for (id, state, parent) in [
        ("landing/1.1", "done", "landing/phase-1"),
        ("landing/1.2", "in progress", "landing/phase-1"),
        ("landing/1.3", "open", "landing/phase-1"),
        ("pwa/4", "open", "pwa/tasks"),
        ("pwa/4.1", "open", "pwa/4"),
    ] {
        assert_eq!(node(&f, id)["state"], state, "{id}");
        assert!(has_edge(&f, id, "parent", parent), "{id} under {parent}");
    }
    let list = ids(&json(&f.run(&["list", "--type", "Task", "--format", "json"])));
    assert!(!list.iter().any(|i| i == "landing/4"), "{list:?}");
    // Ranges, late `_Requirements_` lines and `**Validates: …**` cite what they name.
    for (src, dst) in [
        ("landing/1.1", "landing/R1.1"),
        ("landing/1.1", "landing/R1.2"),
        ("pwa/1", "pwa/R1.2"),
        ("pwa/1", "pwa/R1.3"),
        ("pwa/3", "pwa/R1.1"),
        ("pwa/4", "pwa/R2.1"),
    ] {
        assert!(has_edge(&f, src, "relates", dst), "missing {src} -relates-> {dst}");
    }
    // Optional tasks hold nothing: 3 waits for 1, 3.3 for 3.1; they are offered, said so.
    assert!(has_edge(&f, "pwa/3", "depends_on", "pwa/1"));
    assert!(!has_edge(&f, "pwa/3", "depends_on", "pwa/2"));
    assert!(!has_edge(&f, "pwa/3.3", "depends_on", "pwa/3.2"));
    let ready = json(&f.run(&["ready", "--format", "json"]));
    let why = |id: &str| {
        ready["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == id)
            .map(|i| i["why"].as_str().unwrap().to_string())
    };
    assert!(why("pwa/3.3").is_some_and(|w| !w.starts_with("optional")), "{ready}");
    assert!(why("pwa/3.2").is_some_and(|w| w.starts_with("optional")), "{ready}");
    assert!(why("pwa/2").is_some_and(|w| w.starts_with("optional")), "{ready}");
}

#[test]
fn bmad_statuses_numbers_and_what_is_not_a_story() {
    let f = indexed();
    // Dates, percentages and notes after the state: the state, the line kept beside it.
    let s = node(&f, "1.1");
    assert_eq!(
        (s["state"].as_str(), s["path"].as_str()),
        (Some("Complete"), Some("docs/stories/1.1.story.md"))
    );
    assert_eq!(s["fields"]["status_text"], "✅ Complete - October 4, 2025");
    assert_eq!(node(&f, "1.2")["state"], "Complete");
    assert_eq!(node(&f, "2.1")["state"], "In Progress");
    // Nested numbers as written, at every depth.
    for id in ["1.2/2.1", "1.2/2.1.1", "1.2/2.1.2", "1.2/2.2", "1.2/2.2.1", "1.1/1.1"] {
        node(&f, id);
    }
    // Finished stories offer nothing; the archive and the report are no stories.
    let ready = ids(&json(&f.run(&["ready", "--format", "json"])));
    assert!(ready.contains(&"2.1/2".to_string()), "{ready:?}");
    assert!(
        !ready.iter().any(|i| i.starts_with("1.1/") || i.starts_with("1.2/")),
        "{ready:?}"
    );
    assert_eq!(node(&f, "epic-1")["path"], "docs/prd/epic-1-accounts.md");
    assert!(has_edge(&f, "1.1", "parent", "epic-1"));
    let init = run_in(&f.root(), &["init"]);
    assert!(
        format!("{}{}", init.stdout, init.stderr)
            .contains("BMAD: 3 stories, not counting 1 story file in an archive folder"),
        "{}{}",
        init.stdout,
        init.stderr
    );
}

#[test]
fn adr_prose_names_the_successor() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("tests/fixtures/adr-prose"), dir.path());
    std::fs::write(
        dir.path().join("mdgraph.toml"),
        "root = \"docs\"\nindex_dir = \"_index\"\n[kinds]\ndecisions_dir = \"adr\"\n",
    )
    .unwrap();
    let out = run_in(dir.path(), &["index", "-q"]);
    assert!(out.code <= 1, "{}", out.stderr);
    let edges = std::fs::read_to_string(dir.path().join("_index/graph_edges.jsonl")).unwrap();
    for (src, dst) in [
        ("ADR-0001", "ADR-0003"),
        ("ADR-0002", "ADR-0004"),
        ("ADR-0004", "ADR-0005"),
    ] {
        let want = format!("\"source\":\"{src}\",\"target\":\"{dst}\",\"type\":\"superseded_by\"");
        assert!(edges.contains(&want), "missing {src} superseded_by {dst}:\n{edges}");
    }
    // "Replaced by nothing yet" in a record's context names no successor.
    assert!(!edges.contains("\"source\":\"ADR-0003\",\"target\":\"ADR-0001\",\"type\":\"superseded_by\""));
    let nodes = std::fs::read_to_string(dir.path().join("_index/graph_nodes.jsonl")).unwrap();
    let state = |id: &str| {
        nodes
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|n| n["id"] == id)
            .map(|n| n["state"].clone())
    };
    assert_eq!(state("ADR-0001"), Some("Superseded".into()));
    assert_eq!(state("ADR-0005"), Some(serde_json::Value::Null));
}

#[test]
fn the_spec_kit_constitution_is_indexed_and_its_templates_are_not() {
    let f = indexed();
    let nodes = f.read_index("graph_nodes.jsonl");
    assert!(
        nodes.contains("\"path\":\".specify/memory/constitution.md\""),
        "{nodes}"
    );
    assert!(!nodes.contains(".specify/templates/"), "{nodes}");
    // The plan's Constitution Check links to it: an edge, no broken link.
    let edges = f.read_index("graph_edges.jsonl");
    assert!(
        edges.contains("\"source\":\"001-historial/plan\",\"target\":\"constitution\",\"type\":\"links_to\""),
        "{edges}"
    );
}
