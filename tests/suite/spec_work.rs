//! Work questions about a named scope ("what is still open in the billing spec?"), and
//! every id mdgraph prints as an id to `pack`, `search`, `show` and `neighbors`, on the
//! command line and over MCP.

use crate::common::*;
use std::path::Path;

/// The ids `search` ranks for `q` with the reason of each, best first.
fn answer(f: &Fixture, q: &str) -> Vec<(String, serde_json::Value)> {
    let out = json(&f.run(&["search", q, "--limit", "50", "--format", "json"]));
    out["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap().to_string(), r["why"].clone()))
        .collect()
}

/// The spec fixture with two features named in several words, each with open work.
fn fixture() -> Fixture {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let kiro = f.root().join(".kiro/specs/live-cost-validation-feedback");
    std::fs::create_dir_all(&kiro).unwrap();
    std::fs::write(
        kiro.join("requirements.md"),
        "# Requirements Document\n\n### Requirement 1: Cost\n\n#### Acceptance Criteria\n\n\
         1. WHEN a weirdo changes THEN the system SHALL show the new cost\n",
    )
    .unwrap();
    std::fs::write(
        kiro.join("tasks.md"),
        "# Implementation Plan\n\n- [x] 1. Add the cost engine\n  - _Requirements: 1.1_\n\
         - [ ] 2. Show the cost as it changes\n  - _Requirements: 1.1_\n\
         - [ ] 3. Warn near the point limit\n",
    )
    .unwrap();
    let sk = f.root().join("specs/004-auth-signup-signin");
    std::fs::create_dir_all(&sk).unwrap();
    std::fs::write(
        sk.join("spec.md"),
        "# Feature Specification: Accounts\n\n## User Scenarios\n\n### User Story 1 - Sign up (Priority: P2)\n\nA member signs up.\n",
    )
    .unwrap();
    std::fs::write(
        sk.join("tasks.md"),
        "# Tasks: Accounts\n\n## Phase 1: Setup\n\n- [x] T001 Add the auth client\n\n\
         ## Phase 2: User Story 1 - Sign up (Priority: P2)\n\n- [ ] T002 [US1] Build the sign-up form\n\
         - [ ] T003 [US1] Confirm the e-mail address\n",
    )
    .unwrap();
    f
}

#[test]
fn a_work_question_about_a_named_scope_is_answered_from_that_scopes_backlog() {
    let f = fixture();
    for (q, scope, open) in [
        (
            "What is still open in the live cost and validation feedback spec?",
            "live-cost-validation-feedback",
            &["live-cost-validation-feedback/2", "live-cost-validation-feedback/3"][..],
        ),
        (
            "What is still unchecked in the sign-up and sign-in feature before we can call it finished?",
            "004-auth-signup-signin",
            &["004-auth-signup-signin/T002", "004-auth-signup-signin/T003"][..],
        ),
    ] {
        let got = answer(&f, q);
        let ids: Vec<&str> = got.iter().map(|(id, _)| id.as_str()).collect();
        // Every item is the scope's work, saying why, then the scope itself (a feature
        // with no state of its own), last.
        assert!(got.iter().all(|(_, why)| why["kind"] == "work"), "{q}: {got:?}");
        assert!(got.iter().all(|(_, why)| why["scope"][0] == scope), "{q}: {got:?}");
        assert!(ids.iter().all(|id| id.starts_with(scope)), "{q}: {ids:?}");
        assert_eq!(ids.last(), Some(&scope), "{q}: {ids:?}");
        for id in open {
            assert!(ids.contains(id), "{q}: {id} is open work: {ids:?}");
        }
        // Ready first, in `ready`'s order, then what waits.
        assert_eq!(got[0].1["status"], "ready", "{q}: {got:?}");
    }
    // What can start: only what `ready` offers in the scope.
    let next = answer(
        &f,
        "What can I start next in the live cost and validation feedback spec?",
    );
    let ids: Vec<&str> = next.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        ["live-cost-validation-feedback/2", "live-cost-validation-feedback"],
        "{next:?}"
    );
    // "Is X finished?" of a story marked done: its open box, what is left, then the
    // story with its state (its text repeats its boxes: it comes after them).
    let done = answer(&f, "Is story 2.2 finished?");
    let ids: Vec<&str> = done.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["2.2/2", "2.2"], "{done:?}");
    assert_eq!(done[0].1["status"], "unticked in a finished document", "{done:?}");
    // The pack says why, naming the scope.
    let pack = f.run(&[
        "pack",
        "What is still open in the live cost and validation feedback spec?",
        "--budget",
        "1500",
    ]);
    assert!(
        pack.stdout
            .contains("why: work left in live-cost-validation-feedback: ready (1 of "),
        "{}",
        pack.stdout
    );
    // Words that name no scope make it a search, as before.
    let topic = answer(&f, "what is left for the payments export");
    assert!(topic.iter().all(|(_, why)| why["kind"] != "work"), "{topic:?}");
}

/// "What is left for the MVP" where no phase or story is marked P1 or MVP: the work
/// left of the whole backlog, not a design excerpt.
#[test]
fn the_mvp_of_a_backlog_without_p1_work_is_its_work_left() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    for gone in ["specs", "docs", "_bmad-output", "history"] {
        std::fs::remove_dir_all(f.root().join(gone)).unwrap();
    }
    let got = answer(&f, "what remains for the MVP?");
    assert!(!got.is_empty());
    assert!(
        got.iter().all(|(id, why)| why["kind"] == "work" && id.contains('/')),
        "{got:?}"
    );
}

/// The ids `list` and `ready` print for the backlog at `root`, sorted, once each.
fn printed_ids(run: &dyn Fn(&[&str]) -> Output) -> Vec<String> {
    let mut all = ids(&json(&run(&["list", "--format", "json"])));
    all.extend(ids(&json(&run(&["ready", "--format", "json"]))));
    all.sort();
    all.dedup();
    all
}

/// `pack "implement <id>"` has that item first, for each of `ids`, on the command line.
fn implement_puts_it_first(run: &dyn Fn(&[&str]) -> Output, ids: &[String]) -> Vec<String> {
    let mut wrong = Vec::new();
    for id in ids {
        let q = format!("implement {id}");
        let out = run(&["pack", &q, "--budget", "2000", "--format", "json"]);
        let first = serde_json::from_str::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|p| p["items"][0]["id"].as_str().map(str::to_string));
        if first.as_deref() != Some(id.as_str()) {
            wrong.push(format!("{q}: first {first:?}"));
        }
    }
    wrong
}

/// The same for every id over MCP (`tests/mcp_ids.py`, with `show` and `neighbors`);
/// false when the Python client is missing.
fn over_mcp(root: &Path, index: &Path, ids: &[String]) -> bool {
    if tool_missing(
        "the MCP Python client (python3 -m pip install mcp)",
        &["python3", "-c", "import mcp"],
    ) {
        return false;
    }
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("ids.json");
    std::fs::write(&list, serde_json::to_string(ids).unwrap()).unwrap();
    let out = std::process::Command::new("python3")
        .arg(repo().join("tests").join("mcp_ids.py"))
        .arg("--bin")
        .arg(BIN)
        .arg("--root")
        .arg(root)
        .arg("--index-dir")
        .arg(index)
        .arg(&list)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("mcp_ids: ok"), "{stdout}");
    true
}

#[test]
fn every_id_list_and_ready_print_is_an_id_to_pack_on_the_spec_fixture() {
    let f = fixture();
    let run = |args: &[&str]| f.run(args);
    let ids = printed_ids(&run);
    // The forms the issue names: Kiro's `feature/2`, BMAD's `2.1/1.1`, Spec Kit's
    // `feature/T005`, and `ID@path` for a repeated id.
    for form in [
        "login/2",
        "2.1/1.1",
        "001-chat/T005",
        "002-export/T002@specs/002-export/tasks.md:6",
    ] {
        assert!(ids.iter().any(|id| id == form), "{form}: {ids:?}");
    }
    let wrong = implement_puts_it_first(&run, &ids);
    assert!(wrong.is_empty(), "{} of {}: {wrong:#?}", wrong.len(), ids.len());
    // A scope written short beside a local id (`show` reads it so too).
    let out = json(&f.run(&["pack", "implement 003/T004", "--format", "json"]));
    assert_eq!(out["items"][0]["id"], "003-deploy/T004", "{out}");
    over_mcp(&f.root(), &f.index(), &ids);
}

/// On the real corpora (skipped when absent): every id `ready` prints and every tenth
/// `list` prints, on the command line; every id over MCP.
#[test]
#[ignore = "slow: `.ci/run` runs it (cargo test -- --ignored)"]
fn every_id_printed_is_an_id_to_pack_on_the_spec_corpora() {
    for corpus in ["speckit-toastmasters", "bmad-security-design-assistant"] {
        let root = repo().join("../shared/corpora").join(corpus);
        if !root.is_dir() {
            eprintln!("skipping {corpus}: {} not found", root.display());
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("_index");
        let (r, i) = (root.to_str().unwrap(), index.to_str().unwrap());
        let run = |args: &[&str]| {
            let mut full = vec!["-q", "--root", r, "--index-dir", i];
            full.extend_from_slice(args);
            run_in(dir.path(), &full)
        };
        let all = printed_ids(&run);
        let ready = ids(&json(&run(&["ready", "--format", "json"])));
        let sample: Vec<String> = all
            .iter()
            .enumerate()
            .filter(|(k, id)| k % 10 == 0 || ready.contains(id))
            .map(|(_, id)| id.clone())
            .collect();
        let wrong = implement_puts_it_first(&run, &sample);
        assert!(
            wrong.is_empty(),
            "{corpus}: {} of {}: {wrong:#?}",
            wrong.len(),
            sample.len()
        );
        over_mcp(&root, &index, &all);
    }
}

/// "Implement <task>" packs the task, its phase, what it cites with its text (the user
/// story whole, with its acceptance scenarios) and the folder's documents, and no other
/// item of the folder it is not tied to.
#[test]
fn an_implement_pack_holds_what_the_task_cites_and_no_other_item() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let out = json(&f.run(&[
        "pack",
        "implement 001-chat/T005",
        "--budget",
        "4000",
        "--format",
        "json",
    ]));
    let items = out["items"].as_array().unwrap();
    let got: Vec<&str> = items.iter().map(|i| i["id"].as_str().unwrap()).collect();
    assert_eq!(&got[..2], ["001-chat/T005", "001-chat/phase-3"], "{got:?}");
    for id in [
        "001-chat/US1",
        "001-chat/FR-001",
        "001-chat/T006",
        "001-chat/tasks",
        "001-chat",
    ] {
        assert!(got.contains(&id), "{id}: {got:?}");
    }
    // Another task, a checklist box: another item's answer. (A requirement it does not
    // cite stays when its words match the task's, as FR-002's "member" does.)
    for id in ["001-chat/T001", "001-chat/CHK002", "001-chat/T007", "001-chat/phase-4"] {
        assert!(!got.contains(&id), "{id}: {got:?}");
    }
    let us = items.iter().find(|i| i["id"] == "001-chat/US1").unwrap();
    assert_eq!(us["mode"], "full", "{us}");
}

/// "Implement <task>: <what it does> …": the question's further words describe the
/// task, so the pack is the bare form's (the task, what it is tied to, its folder's
/// documents) and holds no other folder's items; a question that names another folder
/// ("what does the export spec say?") keeps the search across folders.
#[test]
fn an_implement_question_with_more_words_stays_in_the_tasks_folder() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let ids = |q: &str| -> Vec<String> {
        let out = json(&f.run(&["pack", q, "--budget", "4000", "--format", "json"]));
        out["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_str().unwrap().to_string())
            .collect()
    };
    let got = ids("implement T005 in 001-chat: the retrieval endpoint, and which story it serves");
    assert_eq!(&got[..2], ["001-chat/T005", "001-chat/phase-3"], "{got:?}");
    for id in ["001-chat/FR-001", "001-chat/US1", "001-chat/tasks"] {
        assert!(got.contains(&id.to_string()), "{id}: {got:?}");
    }
    assert!(got.iter().all(|id| id.starts_with("001-chat")), "{got:?}");
    let other = ids("implement 001-chat/T005: the retrieval endpoint, and what does the export spec say?");
    assert_eq!(other[0], "001-chat/T005", "{other:?}");
    assert!(other.iter().any(|id| id.starts_with("002-export/")), "{other:?}");
}
