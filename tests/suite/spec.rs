//! Spec folders (`tests/fixtures/spec-folders`: Spec Kit, Kiro, BMAD v4 and v6 stories,
//! Spec Kit Plus prompt records): checkbox tasks and Spec Kit tasks written as headings
//! (`003-deploy`) are items with their state and parent, Kiro features grouped in folders
//! (`shipped/`, `in-progress/`) are features of their own, ids are scoped by their
//! feature, `list`, `ready` and `tree`
//! follow each format's rules, and `check` reports what is wrong in them and nothing else.

use crate::common::*;

#[test]
fn tasks_are_items_with_state_parent_and_scoped_ids() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let open = json(&f.run(&["list", "--type", "Task", "--state", "open", "--format", "json"]));
    let got = ids(&open);
    for id in [
        "001-chat/T003",
        "001-chat/T009",
        "002-export/T001",
        "login/2.2",
        "login/3",
        "1.2/1.2",
        "1.2/2",
        "2.1/2",
        "2.1/2.1",
        "2.1/3",
        // Open in a story whose status is done: `list` shows the box's own state.
        "2.2/2",
    ] {
        assert!(got.contains(&id.to_string()), "{id} is open: {got:?}");
    }
    for id in ["001-chat/T001", "login/2.1", "1.1/1"] {
        assert!(!got.contains(&id.to_string()), "{id} is done: {got:?}");
    }
    // Every box counted: the fixture's open boxes with a task id (Spec Kit 7 + 3, Kiro 3 +
    // 2, BMAD 2 + v6 4), and 003-deploy's open tasks (two headings with no output ticked,
    // a box) and its heading with no state (`list` puts an item with none in the open group).
    assert_eq!(got.len(), 25, "{got:?}");
    let nodes = f.read_index("graph_nodes.jsonl");
    let t005: serde_json::Value = nodes
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|n| n["id"] == "001-chat/T005")
        .unwrap();
    assert_eq!(t005["path"], "specs/001-chat/tasks.md");
    assert_eq!(t005["line"], 15);
    assert_eq!(t005["inline"], true);
    let edges = f.read_index("graph_edges.jsonl");
    for (src, ty, dst) in [
        ("001-chat/T005", "parent", "001-chat/phase-3"),
        ("001-chat/T005", "relates", "001-chat/US1"),
        ("001-chat/T005", "relates", "001-chat/FR-001"),
        ("001-chat/T004", "depends_on", "001-chat/T003"),
        ("001-chat/phase-3", "depends_on", "001-chat/phase-2"),
        ("001-chat/tasks", "parent", "001-chat"),
        ("login/2.1", "parent", "login/2"),
        ("login/2.1", "relates", "login/R1.2"),
        ("login/2.2", "depends_on", "login/2.1"),
        ("1.2/1", "relates", "1.2/AC1"),
        ("1.2", "parent", "epic-1"),
        // BMAD v6: `2-1-export-invoice.md` in `_bmad-output/implementation-artifacts/` is
        // story 2.1; `(AC: 1-2)`, `(AC: #3)` and `(AC: all)` cite each criterion.
        ("2.1/1", "relates", "2.1/AC1"),
        ("2.1/1", "relates", "2.1/AC2"),
        ("2.1/2", "relates", "2.1/AC3"),
        ("2.1/3", "relates", "2.1/AC1"),
        ("2.1/3", "relates", "2.1/AC3"),
        ("2.2/2", "relates", "2.2/AC2"),
    ] {
        let want = format!("\"source\":\"{src}\",\"target\":\"{dst}\",\"type\":\"{ty}\"");
        assert!(edges.contains(&want), "missing {src} -{ty}-> {dst}");
    }
    // A v6 story's `Status: review` and `Status: done` lines are its state.
    assert_eq!(node(&f, "2.1")["state"], "Review");
    assert_eq!(node(&f, "2.2")["state"], "Done");
    assert_eq!(node(&f, "2.2")["path"], "docs/sprint-artifacts/2-2-share-link.md");
}

/// The node `id` of the fixture's index.
fn node(f: &Fixture, id: &str) -> serde_json::Value {
    f.read_index("graph_nodes.jsonl")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|n| n["id"] == id)
        .unwrap_or_else(|| panic!("no node {id}"))
}

#[test]
fn tasks_written_as_headings_are_items_with_state_from_their_outputs() {
    // evolution-of-todo's 005-cloud-deployment writes its tasks as `### T001: …` headings
    // over output boxes without ids (tests/fixtures/spec-folders/specs/003-deploy).
    let f = Fixture::new("tests/fixtures/spec-folders");
    let open =
        ids(&json(&f.run(&[
            "list", "--type", "Task", "--state", "open", "--format", "json",
        ])));
    for (id, state, title, line) in [
        ("003-deploy/T001", Some("done"), "Create the Terraform project", 7),
        ("003-deploy/T002", Some("in progress"), "Provision the cluster", 14),
        ("003-deploy/T003", Some("open"), "Set up the image registry", 21),
        ("003-deploy/T004", Some("open"), "Deploy Prometheus", 29),
        // No boxes: a `**Status**:` line says it, or nothing does (no work).
        ("003-deploy/T005", Some("done"), "Write the on-call runbook", 34),
        ("003-deploy/T006", None, "Notes on alert noise", 37),
        // A box with its own id under a heading task is a task as ever, not an output.
        ("003-deploy/T007", Some("open"), "Load test the cluster, after T004", 40),
    ] {
        let n = node(&f, id);
        assert_eq!(
            (
                n["type"].as_str(),
                n["state"].as_str(),
                n["title"].as_str(),
                n["line"].as_u64()
            ),
            (Some("Task"), state, Some(title), Some(line)),
            "{id}"
        );
        assert_eq!(n["inline"], true, "{id}");
        assert_eq!(
            open.contains(&id.to_string()),
            state != Some("done") && state != Some("in progress"),
            "{id}: {open:?}"
        );
    }
    assert_eq!(node(&f, "003-deploy/T001")["kind"], "work_item");
    assert_eq!(node(&f, "003-deploy/T006")["kind"], "doc");
    assert_eq!(node(&f, "003-deploy/T001")["fields"]["priority"], "P2");
    assert_eq!(node(&f, "003-deploy/T003")["fields"]["parallel"], true);
    let edges = f.read_index("graph_edges.jsonl");
    let has = |src: &str, ty: &str, dst: &str| {
        edges.contains(&format!(
            "\"source\":\"003-deploy/{src}\",\"target\":\"003-deploy/{dst}\",\"type\":\"{ty}\""
        ))
    };
    for (src, ty, dst) in [
        ("T001", "parent", "phase-1"),
        ("T003", "parent", "phase-1"),
        ("T004", "parent", "phase-2"),
        ("T007", "parent", "phase-2"),
        ("T003", "relates", "US1"),
        // `**Preconditions**: T001 complete`, and the phase's order as for box tasks.
        ("T002", "depends_on", "T001"),
        ("T003", "depends_on", "T001"),
        ("T004", "depends_on", "T002"),
        ("T005", "depends_on", "T004"),
        ("T007", "depends_on", "T004"),
        ("T007", "depends_on", "T005"),
        ("phase-2", "depends_on", "phase-1"),
    ] {
        assert!(has(src, ty, dst), "missing {src} -{ty}-> {dst}");
    }
    // [P] waits for nothing in its phase; nothing waits for a task with no state.
    assert!(!has("T003", "depends_on", "T002"));
    assert!(!edges.contains("\"target\":\"003-deploy/T006\",\"type\":\"depends_on\""));
    // The output boxes are no items.
    let boxes = f
        .read_index("graph_nodes.jsonl")
        .matches("\"title\":\"registry created\"")
        .count();
    assert_eq!(boxes, 0);

    // `ready`: the unfinished tasks of the first phase whose blockers are done; the second
    // phase waits for the first.
    let ready = ids(&json(&f.run(&["ready", "--format", "json"])));
    let ours: Vec<&String> = ready.iter().filter(|id| id.starts_with("003-deploy/")).collect();
    assert_eq!(ours, ["003-deploy/T002", "003-deploy/T003"], "{ready:?}");

    // `tree`: six tasks with a state; the heading without one is no work, and the two
    // phases count their tasks, not themselves.
    let tree = f.run(&["tree", "003-deploy"]);
    assert_eq!(tree.code, 0, "{}", tree.stderr);
    assert!(
        tree.stdout.contains("003-deploy/phase-1  Phase  in progress"),
        "{}",
        tree.stdout
    );
    assert!(
        tree.stdout
            .contains("003-deploy  Feature  -  Feature Specification: Cloud Deployment  [2/6 done"),
        "{}",
        tree.stdout
    );
}

#[test]
fn show_finds_a_task_by_its_id_as_typed() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    // T001 is in two features: both are named.
    let both = f.run(&["show", "T001"]);
    assert_eq!(both.code, 2, "{}{}", both.stdout, both.stderr);
    assert!(
        both.stderr.contains("001-chat/T001") && both.stderr.contains("002-export/T001"),
        "{}",
        both.stderr
    );
    for typed in ["001/T001", "001 T001", "T001@chat", "001-chat/T001"] {
        let one = f.run(&["show", typed, "--format", "json"]);
        assert_eq!(one.code, 0, "{typed}: {}", one.stderr);
        assert_eq!(json(&one)["node"]["id"], "001-chat/T001", "{typed}");
    }
}

#[test]
fn a_path_names_its_files_own_document_not_the_items_in_it() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    for (path, id) in [
        ("docs/stories/1.1.story.md", "1.1"),
        ("specs/001-chat/tasks.md", "001-chat/tasks"),
    ] {
        let one = f.run(&["show", path, "--format", "json"]);
        assert_eq!(one.code, 0, "{path}: {}", one.stderr);
        assert_eq!(json(&one)["node"]["id"], id, "{path}");
    }
    // A graded path in an eval file counts the file's document, not its last item.
    let queries = f.dir.path().join("q.jsonl");
    std::fs::write(
        &queries,
        r#"{"id":"p","query":"project setup health endpoint","relevant":{"docs/stories/1.1.story.md":3}}"#,
    )
    .unwrap();
    let out = f.run(&["eval", queries.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(json(&out)["graph"]["mrr"], 1.0, "{}", out.stdout);
}

/// The ids `search` ranks for `q`, best first (at most 30).
fn found(f: &Fixture, q: &str) -> Vec<String> {
    json(&f.run(&["search", q, "--limit", "30", "--format", "json"]))["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_question_names_an_item_by_its_number_inside_a_story() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    for (q, first) in [
        ("which acceptance criterion does task 2 of story 1.1 serve?", "1.1/2"),
        ("what does acceptance criterion 2 of story 1.1 ask for", "1.1/AC2"),
    ] {
        let got = found(&f, q);
        assert_eq!(got.first().map(String::as_str), Some(first), "{q}: {got:?}");
        assert!(got.contains(&"1.1".to_string()), "{q}: the story is named too: {got:?}");
    }
}

/// A task id in a sentence naming its feature in several words: the feature most of them
/// name, not every feature one of them names.
#[test]
fn a_task_id_is_scoped_by_the_feature_most_words_name() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    std::fs::create_dir_all(f.root().join("specs/003-chat-export")).unwrap();
    std::fs::write(
        f.root().join("specs/003-chat-export/tasks.md"),
        "# Tasks: Chat export\n\n## Phase 1: Setup\n\n- [ ] T001 Write the transcript exporter\n",
    )
    .unwrap();
    let got = found(&f, "implement T001 in the chat export feature");
    assert_eq!(got.first().map(String::as_str), Some("003-chat-export/T001"), "{got:?}");
    let got = found(&f, "implement T001 in chat");
    assert_eq!(got.first().map(String::as_str), Some("001-chat/T001"), "{got:?}");
}

/// Kiro numbers its tasks `2.2`: a bare dotted number is that task where other words
/// name its spec, and no id at all where none does.
#[test]
fn a_kiro_task_number_is_named_with_its_spec() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let exact = |q: &str| -> Vec<String> {
        let out = json(&f.run(&["search", q, "--format", "json"]));
        let results = out["results"].as_array().unwrap().clone();
        results
            .iter()
            .filter(|r| r["why"]["exact_id"] == true)
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(exact("implement 2.2 in the login spec"), ["login/2.2"]);
    assert!(exact("what changed in version 2.2").is_empty());
}

#[test]
fn implement_a_task_brings_what_it_is_tied_to_then_its_features_context() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let out = json(&f.run(&["search", "implement T005 in 001", "--format", "json"]));
    let results = out["results"].as_array().unwrap();
    let got: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(got.first(), Some(&"001-chat/T005"), "{got:?}");
    // Its phase, its story and the requirement it cites come before anything its words
    // found, and nothing of another feature comes at all.
    let tied = ["001-chat/phase-3", "001-chat/US1", "001-chat/FR-001", "001-chat/T006"];
    let at = |id: &str| got.iter().position(|g| *g == id).unwrap_or(usize::MAX);
    for id in tied {
        assert!(at(id) <= tied.len(), "{id}: {got:?}");
    }
    assert!(got.iter().all(|id| id.starts_with("001-chat")), "{got:?}");
    // "001" named the feature: it is no search term.
    assert!(
        !out["terms"].as_array().unwrap().iter().any(|t| t == "001"),
        "{}",
        out["terms"]
    );
    // The feature's id written out in full is its scope as well, not a second item asked
    // about (which left the task's context unsearched).
    let full = json(&f.run(&["search", "implement T005 in 001-chat", "--format", "json"]));
    let ids = |o: &serde_json::Value| -> Vec<String> {
        let results = o["results"].as_array().unwrap();
        results.iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(ids(&full), ids(&out));
}

#[test]
fn still_open_asks_for_a_state_not_for_the_word_open() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    // A guide that says "open" and "still" often: before, it ranked first on those words.
    std::fs::write(
        f.root().join("setup-guide.md"),
        "# Chat setup guide\n\nOpen the chat dashboard. If the port is still open, open it again; the chat log stays open.\n",
    )
    .unwrap();
    // The question names the chat feature as its scope: its open work answers, from the
    // backlog, and the feature itself last; the guide does not come at all.
    let got = found(&f, "which chat tasks are still open");
    assert_eq!(got.first().map(String::as_str), Some("001-chat/T003"), "{got:?}");
    assert!(got.contains(&"001-chat/T005".to_string()), "{got:?}");
    assert_eq!(got.last().map(String::as_str), Some("001-chat"), "{got:?}");
    assert!(!got.contains(&"setup-guide".to_string()), "{got:?}");
    // The guide does match "chat": a search finds it.
    assert!(found(&f, "chat").contains(&"setup-guide".to_string()));
}

#[test]
fn what_is_left_for_the_mvp_is_the_open_work_of_the_p1_story() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    // The P1 phase is the scope: its open tasks, then the phase (written in the same
    // file) and the tasks file it is part of.
    let got = found(&f, "what is left for the MVP");
    assert_eq!(
        got,
        ["001-chat/T005", "001-chat/T006", "001-chat/phase-3", "001-chat/tasks"]
    );
}

/// Two features with an MVP: a word of one's folder name, said as a scope ("of the
/// chat", "report tasks"), puts that feature's work first, whichever it is.
#[test]
fn a_feature_named_as_a_scope_comes_first() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    std::fs::create_dir_all(f.root().join("specs/003-report")).unwrap();
    std::fs::write(
        f.root().join("specs/003-report/tasks.md"),
        "# Tasks: Monthly summaries\n\n## Phase 1: User Story 1 - Send the summary (Priority: P1)\n\n\
         - [ ] T001 [US1] Render the summary email\n- [ ] T002 [US1] Schedule the monthly job\n",
    )
    .unwrap();
    let first = |q: &str| found(&f, q).first().cloned().unwrap_or_default();
    for (q, feature) in [
        ("what is left for the MVP of the report", "003-report"),
        ("which report tasks are left for the MVP", "003-report"),
        ("what is left for the MVP of the chat", "001-chat"),
    ] {
        assert!(first(q).starts_with(feature), "{q}: {}", first(q));
    }
}

#[test]
fn ready_follows_each_formats_order() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let got = ids(&json(&f.run(&["ready", "--format", "json"])));
    // Spec Kit: the foundational phase's first task; story phases wait for it, T004 waits
    // for T003. Kiro: 2.2 after its done sibling 2.1; 3 waits for 2. BMAD: the open
    // subtasks of stories that are not Done (1.2 in progress, v6's 2.1 in review), an
    // open box under a ticked one too.
    for id in [
        "001-chat/T003",
        "login/2.2",
        "1.2/1.2",
        "1.2/2",
        "2.1/2.1",
        "2.1/3",
        "002-export/T001",
    ] {
        assert!(got.contains(&id.to_string()), "{id} is ready: {got:?}");
    }
    // A box left open in a story whose status is done is no work to start (HarshJudge:
    // 228 of 293 ready tasks); `ready --explain` says why.
    assert!(!got.iter().any(|g| g.starts_with("2.2/")), "{got:?}");
    let why = f.run(&["ready", "--explain", "2.2/2"]);
    assert_eq!(why.code, 1, "{}", why.stderr);
    assert!(
        why.stdout.contains("it is part of 2.2, which is Done"),
        "{}",
        why.stdout
    );
    for id in [
        "001-chat/T004",
        "001-chat/T005",
        "001-chat/T009",
        "login/3",
        "002-export/T002",
    ] {
        assert!(!got.iter().any(|g| g.starts_with(id)), "{id} waits: {got:?}");
    }
    let tree = f.run(&["tree", "001-chat"]);
    assert_eq!(tree.code, 0, "{}", tree.stderr);
    assert!(tree.stdout.contains("001-chat/phase-1  Phase  done"), "{}", tree.stdout);
    // 9 tasks and 2 checks; phases, stories and requirements are no work of their own.
    assert!(tree.stdout.contains("[3/11 done"), "{}", tree.stdout);
}

#[test]
fn check_reports_spec_errors_and_no_false_ones() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let out = f.run(&["check"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let all = format!("{}{}", out.stdout, out.stderr);
    // A [US3] with no such story; a task id repeated inside one feature.
    assert!(
        all.contains("specs/001-chat/tasks.md:22:1: error[dangling-reference]: cites `001-chat/US3`"),
        "{all}"
    );
    assert!(all.contains("error[duplicate-id]: id `002-export/T002`"), "{all}");
    // Prompt records numbered `id: 1` in each folder are no duplicates; T001 in two
    // features is no duplicate either.
    assert!(!all.contains("`1`") && !all.contains("`001-chat/T001`"), "{all}");
    assert_eq!(all.matches("error[").count(), 3, "{all}");
}

#[test]
fn init_recognises_the_three_layouts() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let out = run_in(&f.root(), &["init"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains("Spec Kit: 3 features; Kiro: 3 features; BMAD: 4 stories; 2 prompt records"),
        "{said}"
    );
    let toml = std::fs::read_to_string(f.root().join("mdgraph.toml")).unwrap();
    assert!(toml.contains("docs/spec-folders.md"), "{toml}");
    // The written config indexes the folders as the tests above do.
    let open = run_in(
        &f.root(),
        &["list", "--type", "Task", "--state", "open", "--format", "json"],
    );
    assert_eq!(json(&open)["count"], 25, "{}", open.stderr);
}

/// hashpass-tech/jack keeps its Kiro features in `finished/` and `in-progress/`, and writes
/// `- [ ] 1.1` under `## Phase 1: …` with no `- [ ] 1.` box: each group was one feature
/// (`finished/1.1`, 104 false duplicate ids, the grouped requirements never read), and
/// each such task's parent `1` a false dangling reference.
#[test]
fn kiro_features_grouped_in_folders_and_tasks_under_phase_headings() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    // No error in them: the groups hold no feature of their own, and nothing is dangling.
    let out = f.run(&["check"]);
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(
        !all.contains(".kiro/specs/in-progress") && !all.contains(".kiro/specs/shipped"),
        "{all}"
    );
    let edges = f.read_index("graph_edges.jsonl");
    for (src, ty, dst) in [
        ("billing/tasks", "parent", "billing"),
        ("billing/1.1", "parent", "billing/phase-1"),
        ("billing/2.2", "parent", "billing/phase-2"),
        ("billing/phase-1", "parent", "billing/tasks"),
        ("billing/2.1", "relates", "billing/R1.1"),
        ("billing/2.2", "relates", "billing/R1.2"),
        // Siblings wait in order; a phase for the phase before it.
        ("billing/1.2", "depends_on", "billing/1.1"),
        ("billing/2.2", "depends_on", "billing/2.1"),
        ("billing/phase-2", "depends_on", "billing/phase-1"),
        ("audit-log/1", "relates", "audit-log/R1.1"),
        ("audit-log/tasks", "parent", "audit-log"),
    ] {
        let want = format!("\"source\":\"{src}\",\"target\":\"{dst}\",\"type\":\"{ty}\"");
        assert!(edges.contains(&want), "missing {src} -{ty}-> {dst}");
    }
    assert!(!edges.contains("\"target\":\"billing/1\""), "no task `1` is written");
    assert_eq!(node(&f, "billing")["type"], "Feature");
    assert_eq!(node(&f, "billing/phase-1")["state"], "done");
    assert_eq!(node(&f, "billing/phase-1")["title"], "Phase 1: Setup");
    assert_eq!(node(&f, "billing/phase-2")["state"], "open");
    let ready = ids(&json(&f.run(&["ready", "--format", "json"])));
    assert!(ready.contains(&"billing/2.1".to_string()), "{ready:?}");
    assert!(!ready.contains(&"billing/2.2".to_string()), "{ready:?}");
    let tree = f.run(&["tree", "billing"]);
    assert_eq!(tree.code, 0, "{}", tree.stderr);
    assert!(
        tree.stdout
            .contains("      billing/2.1  Task  open  Issue the invoice on payment"),
        "{}",
        tree.stdout
    );
    assert!(
        tree.stdout
            .contains("billing  Feature  -  Requirements Document  [2/4 done"),
        "{}",
        tree.stdout
    );
    // A grouped feature's ids as typed: its name, not its group.
    for typed in ["2.1@billing", "billing 2.1", "billing/2.1"] {
        let one = f.run(&["show", typed, "--format", "json"]);
        assert_eq!(one.code, 0, "{typed}: {}", one.stderr);
        assert_eq!(json(&one)["node"]["id"], "billing/2.1", "{typed}");
    }
}

/// "What should I work on next?" names nothing to search for: the items under way, then
/// those `ready` offers, in its order; "what remains to be done?" goes on with the rest
/// unfinished. Both packs say why each item is there.
#[test]
fn a_question_about_the_work_left_is_answered_from_the_backlog() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let ready = ids(&json(&f.run(&["ready", "--format", "json"])));
    let in_progress = ids(&json(&f.run(&["list", "--state", "in_progress", "--format", "json"])));
    let in_progress: Vec<String> = in_progress.into_iter().filter(|id| !id.contains("/phase-")).collect();
    assert!(
        !in_progress.is_empty() && !ready.is_empty(),
        "{in_progress:?} {ready:?}"
    );
    let next = json(&f.run(&[
        "search",
        "what should I work on next?",
        "--limit",
        "100",
        "--format",
        "json",
    ]));
    let results = next["results"].as_array().unwrap();
    assert!(results.iter().all(|r| r["why"]["kind"] == "work"), "{next}");
    let got: Vec<String> = results.iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
    // Each once: `ready` offers work under way too (003-deploy/T002).
    let want: Vec<String> = in_progress
        .iter()
        .chain(ready.iter().filter(|id| !in_progress.contains(id)))
        .cloned()
        .collect();
    assert!(ready.iter().any(|id| in_progress.contains(id)), "{ready:?}");
    assert_eq!(got, want);
    // What is left: the same first, then the open items `ready` leaves out (T004 waits
    // for T003), and no finished one.
    let left = found(&f, "what remains to be done?");
    assert_eq!(&left[..want.len()], want.as_slice());
    assert!(left.contains(&"001-chat/T004".to_string()), "{left:?}");
    assert!(!left.contains(&"001-chat/T001".to_string()), "{left:?}");
    // Nor an open box of a story that is Done (v6 story 2.2's second task).
    assert!(left.iter().any(|id| id.starts_with("2.1/")), "{left:?}");
    assert!(!left.contains(&"2.2/2".to_string()), "{left:?}");
    // A topic word makes it a search.
    let topic = json(&f.run(&["search", "what is left for the chat export", "--format", "json"]));
    assert!(
        topic["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["why"]["kind"] != "work"),
        "{topic}"
    );
    let pack = f.run(&["pack", "what should I work on next?", "--budget", "800"]);
    assert_eq!(pack.code, 0, "{}", pack.stderr);
    assert!(
        pack.stdout.contains("why: work left: in progress (1 of "),
        "{}",
        pack.stdout
    );
}
