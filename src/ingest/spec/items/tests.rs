//! Unit tests of the spec-folder item scanner, one per convention.

use super::*;
use crate::ingest::spec::scope_of;

pub(super) fn ids(items: &[Item]) -> Vec<(&str, &str, Option<&str>, Option<&str>)> {
    items
        .iter()
        .map(|i| (i.local.as_str(), i.r#type, i.state, i.parent.as_deref()))
        .collect()
}

pub(super) fn refs(item: &Item) -> Vec<(EdgeType, &str)> {
    item.refs.iter().map(|r| (r.edge, r.target.as_str())).collect()
}

#[test]
fn speckit_tasks_phases_and_order() {
    let scope = scope_of("specs/003-chat/tasks.md").unwrap();
    let body = "# Tasks\n\n## Phase 1: Setup\n\n- [x] T001 Create project\n- [X] T002 [P] Add linting\n\n\
## Phase 2: Foundational\n\n- [ ] T003 Models, depends on T001\n  - detail line\n\n\
## Phase 3: User Story 1 - Chat (Priority: P1)\n\n- [ ] T004 [P] [US1] Build UI per FR-002\n- [ ] T005 [US1] Wire API\n\n\
```\n- [ ] T999 not a task\n```\n\n## Phase 4: Polish\n\n- [-] T006 Docs\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("phase-1", "Phase", Some("done"), None),
            ("T001", "Task", Some("done"), Some("phase-1")),
            ("T002", "Task", Some("done"), Some("phase-1")),
            ("phase-2", "Phase", Some("open"), None),
            ("T003", "Task", Some("open"), Some("phase-2")),
            ("phase-3", "Phase", Some("open"), None),
            ("T004", "Task", Some("open"), Some("phase-3")),
            ("T005", "Task", Some("open"), Some("phase-3")),
            ("phase-4", "Phase", Some("in progress"), None),
            ("T006", "Task", Some("in progress"), Some("phase-4")),
        ]
    );
    let t = |id: &str| items.iter().find(|i| i.local == id).unwrap();
    assert_eq!(t("T002").title, "Add linting");
    assert!(t("T002").parallel);
    assert_eq!(t("T003").text, "- [ ] T003 Models, depends on T001\n- detail line");
    assert_eq!(refs(t("T003")), vec![(EdgeType::DependsOn, "T001")]);
    assert_eq!(
        refs(t("T004")),
        vec![(EdgeType::Relates, "US1"), (EdgeType::Relates, "FR-002")]
    );
    // Without [P], T005 waits for T004 before it in its phase.
    assert_eq!(
        refs(t("T005")),
        vec![(EdgeType::Relates, "US1"), (EdgeType::DependsOn, "T004")]
    );
    // Story phases wait for setup and foundational; polish for the phase before it.
    assert_eq!(
        refs(t("phase-3")),
        vec![
            (EdgeType::Relates, "US1"),
            (EdgeType::DependsOn, "phase-1"),
            (EdgeType::DependsOn, "phase-2")
        ]
    );
    assert_eq!(refs(t("phase-4")), vec![(EdgeType::DependsOn, "phase-3")]);
    assert_eq!(t("phase-3").priority.as_deref(), Some("P1"));
}

#[test]
fn speckit_numbered_task_lines() {
    let scope = scope_of("specs/002-timer/tasks.md").unwrap();
    let body = "## Phase 1: Logic\n\n1.  **T018**: [x] Create a context\n2.  **T019**: [ ] Engine (`FR-010`)\n";
    let items = crate::ingest::spec::items(&scope, body, 5);
    assert_eq!(
        ids(&items)[1..],
        [
            ("T018", "Task", Some("done"), Some("phase-1")),
            ("T019", "Task", Some("open"), Some("phase-1"))
        ]
    );
    assert_eq!(items[1].title, "Create a context");
    assert_eq!(items[2].line, 8);
    assert_eq!(refs(&items[2])[0], (EdgeType::Relates, "FR-010"));
}

#[test]
fn speckit_tasks_written_as_headings() {
    // evolution-of-todo's `005-cloud-deployment`: a task per `### T001:` heading, its
    // outputs as boxes without ids under it; none of its 60 tasks was an item.
    let scope = scope_of("specs/005-cloud/tasks.md").unwrap();
    let body = "# Tasks\n\n## Phase 5A: Infrastructure\n\n### T001: Create Terraform Structure\n\
**Priority**: P1 | **From**: plan.md\n**Preconditions**: Terraform installed\n**Outputs**:\n\
- [x] `terraform/main.tf` - Provider\n- [x] `terraform/variables.tf`\n\n\
### T002 - Provision Cluster\n**Preconditions**: T001 complete\n- [x] cluster up\n- [ ] 3 nodes\n\n\
### T003 [P] Set Up Registry\n**Status**: Done\n\n#### Notes\n- [ ] registry created\n\n\
### T004 Configure DNS\nNo boxes, no status.\n\n### T008 Wire it\n**Status**: Done\n\n\
## Phase 5B: Kafka\n\n### T005: Deploy Kafka\n\
**Status**: In progress\n- [ ] T006 [P] Topics, a task of its own\n\n\
```\n### T999: in a fence\n```\n## Summary\n\n### T007: Out of any phase\n- [ ] done later\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("phase-5a", "Phase", Some("in progress"), None),
            ("T001", "Task", Some("done"), Some("phase-5a")),
            ("T002", "Task", Some("in progress"), Some("phase-5a")),
            ("T003", "Task", Some("open"), Some("phase-5a")),
            ("T004", "Task", None, Some("phase-5a")),
            ("T008", "Task", Some("done"), Some("phase-5a")),
            ("phase-5b", "Phase", Some("in progress"), None),
            ("T005", "Task", Some("in progress"), Some("phase-5b")),
            ("T006", "Task", Some("open"), Some("phase-5b")),
            ("T007", "Task", Some("open"), None),
        ]
    );
    let t = |id: &str| items.iter().find(|i| i.local == id).unwrap();
    assert_eq!(t("T001").title, "Create Terraform Structure");
    assert_eq!(t("T001").priority.as_deref(), Some("P1"));
    assert_eq!(t("T001").line, 5);
    assert_eq!(
        t("T001").text,
        "### T001: Create Terraform Structure\n**Priority**: P1 | **From**: plan.md\n\
**Preconditions**: Terraform installed\n**Outputs**:\n- [x] `terraform/main.tf` - Provider\n\
- [x] `terraform/variables.tf`"
    );
    assert_eq!(t("T002").title, "Provision Cluster");
    assert_eq!(
        (t("T003").title.as_str(), t("T003").parallel),
        ("Set Up Registry", true)
    );
    // Its preconditions, and its phase's order as for box tasks: [P] waits for none, a
    // task after one with no state waits for the one before it.
    assert_eq!(refs(t("T002")), vec![(EdgeType::DependsOn, "T001")]);
    assert_eq!(refs(t("T003")), vec![]);
    assert_eq!(
        refs(t("T008")),
        vec![(EdgeType::DependsOn, "T002"), (EdgeType::DependsOn, "T003")]
    );
    // A box under a subheading is the task's (T003 is open, whatever its status line
    // says); a `**Status**:` line counts without boxes (T005's one box is a task of its
    // own, not its output); a heading with neither is no work, and nothing waits for it.
    assert!(!items.iter().any(|i| refs(i).contains(&(EdgeType::DependsOn, "T004"))));
    assert_eq!(refs(t("T006")), vec![]);
}

#[test]
fn a_task_written_both_ways_is_one_item() {
    let scope = scope_of("specs/005-cloud/tasks.md").unwrap();
    let body = "## Phase 1: Setup\n\n### T001: Create project\n- [ ] repo\n\n### T002: Lint\n- [x] linter\n\n\
## Checklist\n- [x] T001 Create project\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("phase-1", "Phase", Some("done"), None),
            ("T002", "Task", Some("done"), Some("phase-1")),
            ("T001", "Task", Some("done"), None),
        ]
    );
}

#[test]
fn speckit_spec_stories_and_requirements() {
    let scope = scope_of("specs/003-chat/spec.md").unwrap();
    let body = "# Feature\n\n### User Story 1 - Secure Chat (Priority: P1)\n\nAs a user…\n\n### User Story 2 - Export (Priority: P2)\n\nText\n\n## Requirements\n\n- **FR-001**: System MUST log in.\n- **SC-001**: 95% succeed\n- plain item\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("US1", "UserStory", None, None),
            ("US2", "UserStory", None, None),
            ("FR-001", "Requirement", None, None),
            ("SC-001", "Criterion", None, None),
        ]
    );
    assert_eq!(items[0].title, "Secure Chat (Priority: P1)");
    assert_eq!(items[0].priority.as_deref(), Some("P1"));
    assert_eq!(
        items[0].text,
        "### User Story 1 - Secure Chat (Priority: P1)\n\nAs a user…"
    );
    assert_eq!(items[2].title, "System MUST log in.");
}

#[test]
fn only_the_spec_declares_requirements_and_criteria() {
    // As Spec Kit plans and checklists restate them (Hackathon-II-Todo-Cli's plan.md
    // `- **SC-001** (Setup in <5 min): …`, a checklist's `- FR-011 and FR-012 reference …`).
    let lines = "- **SC-001** (Setup in <5 min): verified\n- FR-011 and FR-012 reference the API\n";
    for file in ["plan.md", "research.md", "checklists/requirements.md"] {
        let scope = scope_of(&format!("specs/001-env/{file}")).unwrap();
        assert_eq!(ids(&crate::ingest::spec::items(&scope, lines, 1)), vec![], "{file}");
    }
    let scope = scope_of("specs/001-env/spec.md").unwrap();
    assert_eq!(
        ids(&crate::ingest::spec::items(&scope, lines, 1)),
        vec![
            ("SC-001", "Criterion", None, None),
            ("FR-011", "Requirement", None, None)
        ]
    );
    // A letter may name the part (`FR-B001` backend, `FR-F001` frontend); a word may not.
    let lines = "- **FR-B001**: Backend MUST verify\n- **FR-F001**: UI MUST show\n- FR-ABC001 no\n";
    assert_eq!(
        ids(&crate::ingest::spec::items(&scope, lines, 1)),
        vec![
            ("FR-B001", "Requirement", None, None),
            ("FR-F001", "Requirement", None, None)
        ]
    );
}

#[test]
fn a_task_line_that_says_blocked_is_blocked() {
    let scope = scope_of("specs/001-env/tasks.md").unwrap();
    let body = "## Phase 1: Setup\n\n- [~] T021 Lint the Dockerfile - BLOCKED: hadolint not installed\n\
                - [ ] T022 Unblock the blocked queue\n- [x] T023 Was BLOCKED, now done\n";
    let states: Vec<_> = crate::ingest::spec::items(&scope, body, 1)
        .into_iter()
        .filter(|it| it.r#type == "Task")
        .map(|it| (it.local, it.state))
        .collect();
    assert_eq!(
        states,
        [
            ("T021".to_string(), Some("blocked")),
            ("T022".to_string(), Some("open")),
            ("T023".to_string(), Some("done"))
        ]
    );
}

#[test]
fn checklist_items() {
    let scope = scope_of("specs/003-chat/checklists/ux.md").unwrap();
    let items = crate::ingest::spec::items(&scope, "- [ ] CHK001 Is it clear? [Clarity]\n- [x] No id here\n", 1);
    assert_eq!(ids(&items), vec![("CHK001", "Check", Some("open"), None)]);
}

#[test]
fn kiro_nested_tasks_and_requirements() {
    let scope = scope_of(".kiro/specs/login/tasks.md").unwrap();
    let body = "# Plan\n\n- [x] 1. Set up\n  - Create dirs\n  - _Requirements: 1.1, 2.3_\n\n- [ ] 2. Build\n  - [-] 2.1 Model\n    - _Requirements: 1.2_\n  - [ ] 2.2 View\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("1", "Task", Some("done"), None),
            ("2", "Task", Some("open"), None),
            ("2.1", "Task", Some("in progress"), Some("2")),
            ("2.2", "Task", Some("open"), Some("2")),
        ]
    );
    assert_eq!(
        refs(&items[0]),
        vec![(EdgeType::Relates, "R1.1"), (EdgeType::Relates, "R2.3")]
    );
    assert_eq!(
        items[0].text,
        "- [x] 1. Set up\n- Create dirs\n- _Requirements: 1.1, 2.3_"
    );
    assert_eq!(refs(&items[1]), vec![(EdgeType::DependsOn, "1")]);
    assert_eq!(refs(&items[3]), vec![(EdgeType::DependsOn, "2.1")]);

    let scope = scope_of(".kiro/specs/login/requirements.md").unwrap();
    let body = "### Requirement 1: Sign in\n\n#### Acceptance Criteria\n\n1. WHEN a user signs in THEN …\n2. IF bad THEN …\n\n### Requirement 2\n\n1. WHEN x\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("R1", "Requirement", None, None),
            ("R1.1", "Criterion", None, Some("R1")),
            ("R1.2", "Criterion", None, Some("R1")),
            ("R2", "Requirement", None, None),
            ("R2.1", "Criterion", None, Some("R2")),
        ]
    );
    // A title after the number; else the user story's want; else the heading.
    let body = "### Requirement 1: Sign in\n\n### Requirement 2\n\n**User Story:** As a player, I want to close the editor, so that I keep my place.\n\n### Requirement 3\n\n1. WHEN x\n";
    let titles: Vec<String> = crate::ingest::spec::items(&scope, body, 1)
        .into_iter()
        .filter(|i| i.r#type == "Requirement")
        .map(|i| i.title)
        .collect();
    assert_eq!(
        titles,
        ["Sign in", "As a player, I want to close the editor", "Requirement 3"]
    );
}

#[test]
fn bmad_story_tasks_and_criteria() {
    let scope = scope_of("docs/stories/2.1.story.md").unwrap();
    let body = "# Story 2.1\n\n## Status\nDone\n\n## Acceptance Criteria\n1. Accept context\n2. Classify it\n\n## Tasks / Subtasks\n- [x] Update API (AC: 1)\n  - [x] Modify routes\n  - [ ] Add param\n\n- [ ] Classifier (AC: 2, 1)\n  - [ ] Detect type\n\n## Dev Notes\n- [ ] not a task\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("AC1", "Criterion", None, None),
            ("AC2", "Criterion", None, None),
            ("1", "Task", Some("done"), None),
            ("1.1", "Task", Some("done"), Some("1")),
            ("1.2", "Task", Some("open"), Some("1")),
            ("2", "Task", Some("open"), None),
            ("2.1", "Task", Some("open"), Some("2")),
        ]
    );
    assert_eq!(refs(&items[2]), vec![(EdgeType::Relates, "AC1")]);
    assert_eq!(
        refs(&items[5]),
        vec![(EdgeType::Relates, "AC2"), (EdgeType::Relates, "AC1")]
    );
    assert_eq!(items[2].title, "Update API (AC: 1)");
}

#[test]
fn bmad_criteria_ranges_and_all_cite_each_criterion_of_the_story() {
    // HuskyDanny/HarshJudge's story 1.1: `- [x] **Task 9: Verify setup** (AC: 1-9)` made
    // no edge, nor did `(AC: all)` and `(AC: #1-4)`.
    let scope = scope_of("docs/stories/1.1.story.md").unwrap();
    let body = "## Acceptance Criteria\n1. a\n2. b\n3. c\n4. d\n\n## Tasks / Subtasks\n- [ ] Range (AC: 1-3)\n- [ ] Hashes (AC: #2-4)\n- [ ] All (AC: all)\n- [ ] Past the last (AC: 3-9)\n- [ ] Spaced (AC: 1 – 2, #4)\n- [ ] Then a task (AC #1-2, Task #4)\n- [ ] Missing (AC: 7)\n- [ ] None in range (AC: 7-9)\n- [ ] Words (AC: 1 - from architecture)\n- [ ] Placeholder (AC: #)\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    let cited = |local: &str| -> Vec<String> {
        let it = items.iter().find(|i| i.local == local).unwrap();
        refs(it).into_iter().map(|(_, t)| t.to_string()).collect()
    };
    assert_eq!(cited("1"), ["AC1", "AC2", "AC3"]);
    assert_eq!(cited("2"), ["AC2", "AC3", "AC4"]);
    assert_eq!(cited("3"), ["AC1", "AC2", "AC3", "AC4"]);
    assert_eq!(cited("4"), ["AC3", "AC4"]);
    assert_eq!(cited("5"), ["AC1", "AC2", "AC4"]);
    // A word that names no criterion ends the list: `Task #4` is a task.
    assert_eq!(cited("6"), ["AC1", "AC2"]);
    // A number with no criterion is cited as written (a dangling reference, as before); a
    // range with none in it cites nothing.
    assert_eq!(cited("7"), ["AC7"]);
    assert!(cited("8").is_empty());
    assert_eq!(cited("9"), ["AC1"]);
    assert!(cited("10").is_empty());
    // Criteria read after the tasks count too.
    let body = "## Tasks / Subtasks\n- [ ] All (AC: All)\n## Acceptance Criteria\n1. a\n2. b\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        refs(&items[0]),
        vec![(EdgeType::Relates, "AC1"), (EdgeType::Relates, "AC2")]
    );
}

#[test]
fn hostile_lines_do_not_panic() {
    let scope = scope_of("specs/0/tasks.md").unwrap();
    for body in [
        "- [",
        "- [x",
        "1. **",
        "## Phase",
        "- [ ] T",
        "- [ ] 1.",
        "```\n- [ ] T001 x",
        "\t- [ ] T001 é\u{0301}",
        "- [ ] TÄ01 x",
        "# Phase 99999999999999999999: x",
        "- [ ] x (AC: 1-99999999999999999999999)",
        "- [ ] x (AC: 99999999999999999999-1, all, - to)",
    ] {
        let _ = crate::ingest::spec::items(&scope, body, 1);
        let story = scope_of("docs/stories/1-1-x.md").unwrap();
        let _ = crate::ingest::spec::items(&story, &format!("## Tasks\n{body}"), 1);
    }
}

#[test]
fn bmad_task_headings_and_kiro_optional_tasks() {
    let scope = scope_of("docs/stories/completed/5.1A.story.md").unwrap();
    let body = "## Tasks / Subtasks\n\n### Task 1: Model (AC: 1, 2)\n- [x] 1.1. Update the model\n- [ ] 1.2. Add a migration\n\n### Task 2: UI\n- [x] Draw it\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("1", "Task", Some("in progress"), None),
            ("1.1", "Task", Some("done"), Some("1")),
            ("1.2", "Task", Some("open"), Some("1")),
            ("2", "Task", Some("done"), None),
            ("2.1", "Task", Some("done"), Some("2")),
        ]
    );
    assert_eq!(
        refs(&items[0]),
        vec![(EdgeType::Relates, "AC1"), (EdgeType::Relates, "AC2")]
    );
    let scope = scope_of(".kiro/specs/x/tasks.md").unwrap();
    let items = crate::ingest::spec::items(&scope, "- [ ]* 10.2a Optional test\n", 1);
    // No task `10` is written: under the file.
    assert_eq!(ids(&items), vec![("10.2a", "Task", Some("open"), None)]);
    assert!(items[0].optional);
    let items = crate::ingest::spec::items(
        &scope,
        "- [ ] 10.3 Required
",
        1,
    );
    assert!(!items[0].optional);
}

#[test]
fn a_phase_without_tasks_is_no_work_and_nothing_waits_for_it() {
    // evolution-of-todo's 005-cloud-deployment writes its tasks as `### T001:` headings
    // under `## Phase 5A: …`: before they were tasks, the phase was an open item with
    // nothing in it, `ready` listed it, and the phases after it waited for it forever.
    let scope = scope_of("specs/005-cloud/tasks.md").unwrap();
    let body = "## Phase 1: Setup\n- [x] T001 a\n## Phase 2: Checkpoint\nReview.\n## Phase 3: Polish\n- [ ] T002 b\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    let t = |id: &str| items.iter().find(|i| i.local == id).unwrap();
    assert_eq!(t("phase-2").state, None);
    assert_eq!(refs(t("phase-3")), vec![(EdgeType::DependsOn, "phase-1")]);
    assert_eq!(t("phase-3").state, Some("open"));
}

#[test]
fn a_storys_task_list_ends_at_the_next_heading_of_its_level() {
    // security-design-assistant's story 2.4 repeats its boxes, ticked, under the dev
    // agent's `### Task Completion Status`: those were read as 53 more tasks of the story.
    let scope = scope_of("docs/stories/2.4.story.md").unwrap();
    let body = "## Tasks / Subtasks\n- [ ] Fix models\n  - [ ] Judge\n\n## Dev Agent Record\n\n### Task Completion Status\n- [x] Fix models\n  - [x] Judge\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("1", "Task", Some("open"), None),
            ("1.1", "Task", Some("open"), Some("1"))
        ]
    );
    // A deeper heading inside the list keeps it; a story's first `### Tasks` starts one.
    let body = "## Tasks / Subtasks\n### Task 1: Model\n- [x] a\n## Notes\n- [ ] b\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    let got: Vec<&str> = items.iter().map(|i| i.local.as_str()).collect();
    assert_eq!(got, ["1", "1.1"]);
    let items = crate::ingest::spec::items(&scope, "## Story\n### Tasks\n- [ ] b\n", 1);
    assert_eq!(ids(&items), vec![("1", "Task", Some("open"), None)]);
}

#[test]
fn a_storys_lists_are_its_first_sections_so_headed_with_their_subheadings() {
    // HillviewCap/ferrocodex: story 5.3B repeats its task list, ticked, under the dev
    // record's `### Tasks / Subtasks Completion Status` (32 false duplicate ids); 1.2 writes
    // `### Task 1: …` over a plain list (no box says its state: it was open, and ready);
    // 5.2C numbers its criteria 1–13 under `### Functional Requirements` and two more
    // subheadings of `## Acceptance Criteria` (12 false dangling references).
    let scope = scope_of("docs/stories/5.3B.story.md").unwrap();
    let body = "## Acceptance Criteria\n### Functional\n1. Search\n2. Filter\n### Quality\n3. Fast\n\
## Tasks / Subtasks\n### Task 1: Model\n- [ ] 1.1. Update\n### Task 2: Plain\n- 2.1. Not a box\n\
## Dev Agent Record\n### Tasks / Subtasks Completion Status\n- [x] Task 1: Model\n  - [x] 1.1. Update\n\
## QA Results\n### Acceptance Criteria\n1. Search again\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("AC1", "Criterion", None, None),
            ("AC2", "Criterion", None, None),
            ("AC3", "Criterion", None, None),
            ("1", "Task", Some("open"), None),
            ("1.1", "Task", Some("open"), Some("1")),
            ("2", "Task", None, None),
        ]
    );
}

/// hashpass-tech/jack writes `- [ ] 1.1` under `## Phase 1: …` with no `- [ ] 1.` box:
/// each task's parent was `1`, which no task is (20 false dangling references in one
/// file), and `tree` showed the feature without them.
#[test]
fn kiro_tasks_whose_parent_number_has_no_task_hang_under_their_heading() {
    let scope = scope_of(".kiro/specs/in-progress/dash/tasks.md").unwrap();
    let body = "# Tasks\n\n## Phase 1: Setup\n\n- [x] 1.1 Client\n  - _Requirements: 1.1_\n  - [x] 1.1.1 File\n\
- [x] 1.2 Services\n- [ ]* 1.3 Optional tests\n\n## Phase 2: Intents\n\n- [ ] 2.1 View\n  - [ ] 2.1.2 Errors\n- [ ] 2.2 List\n\n\
### フェーズ3: 検索\n\n- [ ] 3.1 Search\n\n## Notes\n\n- [ ] 4.1 Phase 2 again\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("phase-1", "Phase", Some("done"), None),
            ("1.1", "Task", Some("done"), Some("phase-1")),
            ("1.1.1", "Task", Some("done"), Some("1.1")),
            ("1.2", "Task", Some("done"), Some("phase-1")),
            ("1.3", "Task", Some("open"), Some("phase-1")),
            ("phase-2", "Phase", Some("open"), None),
            ("2.1", "Task", Some("open"), Some("phase-2")),
            // `2.1.1` is not written: the nearest task its number names.
            ("2.1.2", "Task", Some("open"), Some("2.1")),
            ("2.2", "Task", Some("open"), Some("phase-2")),
            // No `Phase N`: the phase takes the task's first number.
            ("phase-3", "Phase", Some("open"), None),
            ("3.1", "Task", Some("open"), Some("phase-3")),
            ("phase-4", "Phase", Some("open"), None),
            ("4.1", "Task", Some("open"), Some("phase-4")),
        ]
    );
    let t = |id: &str| items.iter().find(|i| i.local == id).unwrap();
    assert_eq!((t("phase-1").title.as_str(), t("phase-1").line), ("Phase 1: Setup", 3));
    assert_eq!(refs(t("1.1")), vec![(EdgeType::Relates, "R1.1")]);
    // Siblings wait for the one before; a phase for the phase before it.
    assert_eq!(refs(t("1.2")), vec![(EdgeType::DependsOn, "1.1")]);
    assert_eq!(refs(t("2.1")), vec![]);
    assert_eq!(refs(t("2.2")), vec![(EdgeType::DependsOn, "2.1")]);
    assert_eq!(refs(t("phase-2")), vec![(EdgeType::DependsOn, "phase-1")]);
    assert_eq!(refs(t("phase-3")), vec![(EdgeType::DependsOn, "phase-2")]);

    // Under the title alone, or no heading: under the file, as top-level tasks. A
    // heading whose phase id another heading took leaves its tasks under the file.
    let body = "# Plan\n\n- [ ] 1.1 A\n- [ ] 1.2 B\n\n## Phase 1: again\n\n- [ ] 5.1 C\n\n## Phase 1: and again\n\n- [ ] 6.1 D\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("1.1", "Task", Some("open"), None),
            ("1.2", "Task", Some("open"), None),
            ("phase-1", "Phase", Some("open"), None),
            ("5.1", "Task", Some("open"), Some("phase-1")),
            ("6.1", "Task", Some("open"), None),
        ]
    );
    assert_eq!(refs(&items[1]), vec![(EdgeType::DependsOn, "1.1")]);
    assert_eq!(refs(&items[2]), vec![(EdgeType::DependsOn, "1.2")]);
    assert_eq!(refs(&items[4]), vec![(EdgeType::DependsOn, "phase-1")]);
    // A written parent keeps its tasks, as ever: no phase.
    let items = crate::ingest::spec::items(&scope, "## Phase 1\n\n- [ ] 1. A\n  - [ ] 1.1 B\n", 1);
    assert_eq!(
        ids(&items),
        vec![
            ("1", "Task", Some("open"), None),
            ("1.1", "Task", Some("open"), Some("1"))
        ]
    );
}
