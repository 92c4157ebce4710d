//! Edits to spec-folder files (`tests/fixtures/spec-folders`: Spec Kit, Kiro, BMAD): a
//! tick, an untick, a changed `[USn]`, a line under a task, a tick and a precondition
//! under a task written as a heading, a tick under a Kiro phase heading, an edit to a
//! spec, plan or story (a v6 story reopened, its boxes ready again; a criteria range), and
//! tasks added,
//! removed and renamed. After each, the incremental index (the
//! edit short cut where it applies) is byte for byte a full build's, mirror included;
//! the edits that keep a file's items take the short cut.

use crate::common::*;
use crate::incremental::{assert_same_mirror_as_full, index_answers};
use mdgraph::{Config, Overrides};
use std::path::Path;

const TASKS: &str = "specs/001-chat/tasks.md";
const SPEC: &str = "specs/001-chat/spec.md";
const KIRO: &str = ".kiro/specs/login/tasks.md";
/// Kiro tasks under `## Phase N` headings with no parent box, in a grouped feature.
const KIRO_PHASES: &str = ".kiro/specs/in-progress/billing/tasks.md";
const STORY: &str = "docs/stories/1.2.story.md";
/// A BMAD v6 story (`epic-story-slug.md`) whose status is done over an open box.
const STORY_V6: &str = "docs/sprint-artifacts/2-2-share-link.md";
/// Tasks written as headings, their outputs as boxes.
const HEADINGS: &str = "specs/003-deploy/tasks.md";

/// One edit: a name, the file, the change, and whether it takes the short cut.
type Edit = (&'static str, &'static str, fn(&str) -> String, bool);

const EDITS: &[Edit] = &[
    ("tick", TASKS, |t| t.replacen("- [ ] T003", "- [x] T003", 1), true),
    ("untick", TASKS, |t| t.replacen("- [x] T001", "- [ ] T001", 1), true),
    (
        "tick with X",
        TASKS,
        |t| t.replacen("- [ ] T009", "- [X] T009", 1),
        true,
    ),
    (
        "change [USn]",
        TASKS,
        |t| t.replacen("T008 [US3]", "T008 [US2]", 1),
        true,
    ),
    (
        "a [USn] that resolves to nothing",
        TASKS,
        |t| t.replacen("T007 [US2]", "T007 [US7]", 1),
        true,
    ),
    ("drop [P]", TASKS, |t| t.replacen("T005 [P]", "T005", 1), true),
    (
        "a task's title",
        TASKS,
        |t| t.replacen("Write the quickstart", "Write the quickstart and FAQ", 1),
        true,
    ),
    (
        "a line under a task",
        TASKS,
        |t| {
            t.replacen(
                "  - uses the embeddings",
                "  - cached per member\n  - uses the embeddings",
                1,
            )
        },
        true,
    ),
    (
        "a dependency",
        TASKS,
        |t| t.replacen("Write the quickstart", "Write the quickstart, after T007", 1),
        true,
    ),
    (
        "the spec's story",
        SPEC,
        |t| t.replacen("grounded in our handbook", "grounded in the handbook", 1),
        true,
    ),
    (
        "the spec's line shift",
        SPEC,
        |t| t.replacen("**Status**: Draft", "**Status**: Draft\n\nA note.", 1),
        true,
    ),
    (
        "research",
        "specs/001-chat/research.md",
        |t| format!("{t}\nA new finding, see FR-001.\n"),
        true,
    ),
    (
        "checklist tick",
        "specs/001-chat/checklists/ux.md",
        |t| t.replacen("- [ ] CHK002", "- [x] CHK002", 1),
        true,
    ),
    (
        "tick an output of a task heading",
        HEADINGS,
        |t| t.replacen("- [ ] autoscaling configured", "- [x] autoscaling configured", 1),
        true,
    ),
    (
        "a task heading's precondition",
        HEADINGS,
        |t| {
            t.replacen(
                "**Preconditions**: T002 complete",
                "**Preconditions**: T003 complete",
                1,
            )
        },
        true,
    ),
    ("kiro tick", KIRO, |t| t.replacen("- [ ] 2.2", "- [x] 2.2", 1), true),
    (
        "kiro tick under a phase heading",
        KIRO_PHASES,
        |t| t.replacen("- [ ] 2.1", "- [x] 2.1", 1),
        true,
    ),
    (
        "kiro requirement",
        KIRO,
        |t| t.replacen("_Requirements: 2.1_", "_Requirements: 1.2_", 1),
        true,
    ),
    (
        "bmad tick",
        STORY,
        |t| t.replacen("- [ ] Store the file", "- [x] Store the file", 1),
        true,
    ),
    (
        "bmad status",
        STORY,
        |t| t.replacen("**In Progress**", "**Done**", 1),
        true,
    ),
    (
        "bmad v6 status: a done story reopened",
        STORY_V6,
        |t| t.replacen("Status: done", "Status: in-progress", 1),
        true,
    ),
    (
        "bmad v6 criteria range",
        STORY_V6,
        |t| {
            t.replacen("(AC: 1-2)", "(AC: all)", 1)
                .replacen("(AC: 1)", "(AC: 1-2)", 1)
        },
        true,
    ),
    ("add a task", TASKS, |t| format!("{t}- [ ] T010 Write the FAQ\n"), false),
    (
        "remove a task",
        TASKS,
        |t| t.replacen("- [ ] T007 [US2] Store each question per FR-002\n", "", 1),
        false,
    ),
    (
        "rename a task id",
        TASKS,
        |t| t.replacen("T009 Write", "T019 Write", 1),
        false,
    ),
    (
        "a duplicate task id",
        TASKS,
        |t| t.replacen("T006 [US1]", "T005 [US1]", 1),
        false,
    ),
    (
        "kiro add a sub-task",
        KIRO,
        |t| t.replacen("- [ ] 3.", "- [ ] 2.3 Expire sessions\n\n- [ ] 3.", 1),
        false,
    ),
    (
        "kiro write the task a phase heading stood for",
        KIRO_PHASES,
        |t| t.replacen("- [ ] 2.1", "- [ ] 2. Invoices\n- [ ] 2.1", 1),
        false,
    ),
    (
        "bmad add a subtask",
        STORY,
        |t| format!("{t}- [ ] Log the upload\n"),
        false,
    ),
    (
        "a spec's new story",
        SPEC,
        |t| {
            t.replacen(
                "## Requirements",
                "### User Story 3 - Export (Priority: P3)\n\nAs a member I export.\n\n## Requirements",
                1,
            )
        },
        false,
    ),
];

fn cfg(dir: &Path, index: &str) -> Config {
    let ov = Overrides {
        root: Some("backlog".into()),
        index_dir: Some(index.into()),
        ..Overrides::default()
    };
    Config::load(dir, &ov).unwrap()
}

/// Index after the edit; true when the short cut took it.
fn index(cfg: &Config) -> bool {
    let report = mdgraph::Index::build(cfg, false, None).unwrap();
    report.timings.phases.iter().any(|(p, _)| *p == "patch")
}

/// The incremental index in `_index` is a full build's, bytes and mirror.
fn assert_full(dir: &Path, what: &str) {
    let _ = std::fs::remove_dir_all(dir.join("_full"));
    mdgraph::Index::build(&cfg(dir, "_full"), true, None).unwrap();
    let differ = differing_outputs(&dir.join("_index"), &dir.join("_full"));
    assert!(differ.is_empty(), "{what}: {differ:?} differ from a full build");
    assert_same_mirror_as_full(dir, what);
}

/// Each edit on a fresh copy of the fixture, compared with a full build.
#[test]
fn each_spec_folder_edit_equals_a_full_build() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let dir = f.dir.path();
    let inc = cfg(dir, "_index");
    mdgraph::Index::build(&inc, false, None).unwrap();
    settle(&inc);
    let originals: Vec<(&str, String)> = EDITS
        .iter()
        .map(|(_, p, _, _)| (*p, std::fs::read_to_string(f.root().join(p)).unwrap()))
        .collect();
    for (name, path, change, short) in EDITS {
        edit_file(&f.root().join(path), &|t| change(t));
        let took = index(&inc);
        assert_full(dir, name);
        assert_eq!(took, *short, "{name}: short cut taken {took}, expected {short}");
        // Back to the fixture as it was (an edit too), for the next.
        for (p, text) in &originals {
            std::fs::write(f.root().join(p), text).unwrap();
        }
        index(&inc);
        assert_full(dir, &format!("{name}, undone"));
    }
}

/// Saved as editors that save atomically do (a new file renamed over the old one: the
/// folder's stamp and the file's inode change), right after the first build: the short
/// cut still takes it, with a full build's bytes; what an editor leaves beside the file
/// does not count, a new Markdown file beside it does.
#[test]
fn a_save_by_rename_right_after_a_build_is_an_edit() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let dir = f.dir.path();
    let inc = cfg(dir, "_index");
    mdgraph::Index::build(&inc, false, None).unwrap();
    let file = f.root().join(TASKS);
    let save = |text: String| {
        let tmp = file.with_extension("md.tmp");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, &file).unwrap();
    };
    let text = std::fs::read_to_string(&file).unwrap();
    save(text.replacen("- [ ] T003", "- [x] T003", 1));
    assert!(index(&inc), "a tick saved by rename takes the short cut");
    assert_full(dir, "tick saved by rename");
    std::fs::write(file.with_file_name(".tasks.md.swp"), "swap").unwrap();
    std::fs::write(file.with_file_name("tasks.md~"), text.as_str()).unwrap();
    save(text.clone());
    assert!(index(&inc), "an untick beside an editor's files takes the short cut");
    assert_full(dir, "untick saved by rename");
    std::fs::write(file.with_file_name("notes.md"), "# Notes\n").unwrap();
    save(text.replacen("- [ ] T003", "- [x] T003", 1));
    assert!(!index(&inc), "a new file is not an edit");
    assert_full(dir, "tick beside a new file");
}

/// Edits piled up, one index after each: a walk over the edits with a fixed seed, each
/// step compared with a full build, and most steps on the short cut.
#[test]
fn many_spec_folder_edits_in_a_row_equal_full_builds() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let dir = f.dir.path();
    let inc = cfg(dir, "_index");
    mdgraph::Index::build(&inc, false, None).unwrap();
    settle(&inc);
    let mut seed = 0x2545_f491_u64;
    let mut short = 0;
    for step in 0..40 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let (name, path, change, _) = EDITS[(seed % EDITS.len() as u64) as usize];
        let file = f.root().join(path);
        let text = std::fs::read_to_string(&file).unwrap();
        // Every other step toggles the boxes of a random line instead.
        let changed = if step % 2 == 0 {
            change(&text)
        } else {
            toggle(&text, (seed >> 8) as usize)
        };
        if changed == text {
            continue;
        }
        std::fs::write(&file, changed).unwrap();
        short += usize::from(index(&inc));
        assert_full(dir, &format!("step {step}: {name}"));
    }
    assert!(short >= 10, "only {short} edits took the short cut");
}

/// Tick or untick the `n`th checkbox line of `text`.
fn toggle(text: &str, n: usize) -> String {
    let boxes: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("- ["))
        .map(|(i, _)| i)
        .collect();
    if boxes.is_empty() {
        return text.to_string();
    }
    let at = boxes[n % boxes.len()];
    let mut out: Vec<String> = text.lines().map(str::to_string).collect();
    let l = &out[at];
    out[at] = if l.contains("- [ ]") {
        l.replacen("- [ ]", "- [x]", 1)
    } else {
        l.replacen("- [x]", "- [ ]", 1).replacen("- [X]", "- [ ]", 1)
    };
    out.join("\n") + "\n"
}

/// An index held in memory (the watcher's, `mcp`'s) takes in a spec-folder edit as a
/// freshly opened one answers: searches, packs, the graph, each node, `ready` and `list`.
#[test]
fn an_index_in_memory_takes_in_a_tick_as_a_fresh_one_answers() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let dir = f.dir.path();
    let inc = cfg(dir, "_index");
    mdgraph::Index::build(&inc, false, None).unwrap();
    settle(&inc);
    let open = || {
        let index = mdgraph::Index::open_as_is(inc.clone()).unwrap().in_memory();
        index.warm().unwrap();
        index
    };
    let mut held = open();
    let answers = |index: &mdgraph::Index| -> Vec<String> {
        let mut out = index_answers(
            index,
            &["implement T005", "what is left for the chat MVP", "session store"],
        );
        out.push(format!("{:?}", index.ready().unwrap()));
        out.push(format!("{:?}", index.list(&mdgraph::ListFilter::default()).unwrap()));
        out
    };
    for (name, path, change, _) in EDITS.iter().filter(|e| e.3) {
        edit_file(&f.root().join(path), &|t| change(t));
        let report = mdgraph::Index::build(&inc, false, None).unwrap();
        assert!(
            report.timings.phases.iter().any(|(p, _)| *p == "patch"),
            "{name}: not the short cut"
        );
        assert!(held.apply_edits(&report), "{name}: not applied");
        assert_eq!(answers(&held), answers(&open()), "{name}");
    }
}
