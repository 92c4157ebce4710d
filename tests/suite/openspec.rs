//! OpenSpec (`tests/fixtures/openspec`: a 1.x `config.yaml`, a change in progress with
//! proposal, design, tasks and a delta spec that adds, modifies, removes and renames, a
//! change with only tasks, two archived changes (one reusing the name of the change in
//! progress), two capability specs): ids, states and parents of tasks, groups,
//! requirements and scenarios; the delta's edges to the requirements it changes; `ready`
//! by OpenSpec's order; `init`'s census; `check` with nothing false; and a tick in a
//! change an edit whose index is a full build's.

use crate::common::*;
use crate::incremental::assert_same_mirror_as_full;
use mdgraph::{Config, Overrides};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

const FIXTURE: &str = "tests/fixtures/openspec";
const TASKS: &str = "openspec/changes/add-2fa/tasks.md";
const DELTA: &str = "openspec/changes/add-2fa/specs/auth/spec.md";
const ARCHIVED_DELTA: &str = "openspec/changes/archive/2025-06-01-add-login/specs/auth/spec.md";

/// The index's documents by id.
fn nodes(f: &Fixture) -> BTreeMap<String, Value> {
    f.read_index("graph_nodes.jsonl")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|n| n["kind"] != "chunk")
        .map(|n| (n["id"].as_str().unwrap().to_string(), n))
        .collect()
}

/// The index's edges as (source, type, target).
fn edges(f: &Fixture) -> Vec<(String, String, String)> {
    f.read_index("graph_edges.jsonl")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap().to_string();
            (s("source"), s("type"), s("target"))
        })
        .collect()
}

fn indexed(src: &str) -> Fixture {
    let f = Fixture::new(src);
    let out = f.run(&["index"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    f
}

#[test]
fn tasks_groups_and_requirements_are_items_with_state_and_parent() {
    let f = indexed(FIXTURE);
    let n = nodes(&f);
    let has = |id: &str, ty: &str, state: Option<&str>| {
        let node = n.get(id).unwrap_or_else(|| panic!("no node {id}: {:?}", n.keys()));
        assert_eq!(node["type"].as_str(), Some(ty), "{id}");
        assert_eq!(node["state"].as_str(), state, "{id}");
    };
    // The change is a feature; its tasks by the numbers they write, or their place.
    has("add-2fa", "Feature", None);
    has("add-2fa/1", "Phase", Some("in progress"));
    has("add-2fa/1.1", "Task", Some("done"));
    has("add-2fa/1.2", "Task", Some("open"));
    has("add-2fa/1.2.1", "Task", Some("open"));
    has("add-2fa/2.2", "Task", Some("open"));
    has("add-2fa/verification", "Phase", Some("open"));
    has("add-2fa/verification.1", "Task", Some("open"));
    assert_eq!(n["add-2fa/2.2"]["title"], "Show an error on a wrong code");
    assert_eq!(n["add-2fa/1.2.1"]["line"], 7);
    // An archived change keeps its id without the date, and is done, its unticked box too.
    has("add-login", "Feature", Some("done"));
    has("add-login/1.2", "Task", Some("done"));
    has("add-login/1", "Phase", Some("done"));
    // Capabilities: requirements and their scenarios, scoped by the capability.
    has("specs/auth/user-login", "Requirement", None);
    has("specs/auth/user-login/invalid-password", "Criterion", None);
    has("specs/export/csv-export/successful-export", "Criterion", None);
    assert!(
        !n.keys().any(|k| k.contains("an-example-in-a-fence")),
        "a fenced example is no requirement"
    );
    assert_eq!(n["specs/auth"]["kind"], "doc");
    // The delta's requirements, each with its operation.
    for (id, op) in [
        ("add-2fa/specs/auth/two-factor-login", "added"),
        ("add-2fa/specs/auth/session-expiry", "modified"),
        ("add-2fa/specs/auth/account-recovery", "modified"),
        ("add-2fa/specs/auth/legacy-token", "removed"),
        ("add-2fa/specs/auth/password-reset", "renamed"),
    ] {
        has(id, "Requirement", None);
        assert_eq!(n[id]["fields"]["delta"], op, "{id}");
    }
    let e = edges(&f);
    for (src, ty, dst) in [
        ("add-2fa/1.1", "parent", "add-2fa/1"),
        ("add-2fa/1.2.1", "parent", "add-2fa/1.2"),
        ("add-2fa/2.2", "parent", "add-2fa/2"),
        ("add-2fa/1", "parent", "add-2fa/tasks"),
        ("add-2fa/tasks", "parent", "add-2fa"),
        ("add-2fa/design", "parent", "add-2fa"),
        ("add-2fa/specs/auth", "parent", "add-2fa"),
        ("add-2fa/specs/auth/session-expiry", "parent", "add-2fa/specs/auth"),
        // OpenSpec's order: a task after the one before it, a group after the one before.
        ("add-2fa/1.2", "depends_on", "add-2fa/1.1"),
        ("add-2fa/2.2", "depends_on", "add-2fa/2.1"),
        ("add-2fa/2", "depends_on", "add-2fa/1"),
        ("add-2fa/verification", "depends_on", "add-2fa/2"),
        // What the delta changes in `specs/`; a modified requirement by its new name is
        // the one renamed.
        (
            "add-2fa/specs/auth/session-expiry",
            "relates",
            "specs/auth/session-expiry",
        ),
        ("add-2fa/specs/auth/legacy-token", "relates", "specs/auth/legacy-token"),
        (
            "add-2fa/specs/auth/password-reset",
            "relates",
            "specs/auth/password-reset",
        ),
        (
            "add-2fa/specs/auth/account-recovery",
            "relates",
            "specs/auth/password-reset",
        ),
        // An archived change's added requirement is in `specs/` now.
        ("add-login/specs/auth/user-login", "relates", "specs/auth/user-login"),
        (
            "specs/auth/user-login/valid-credentials",
            "parent",
            "specs/auth/user-login",
        ),
        ("specs/auth/user-login", "parent", "specs/auth"),
    ] {
        let want = (src.to_string(), ty.to_string(), dst.to_string());
        assert!(e.contains(&want), "no edge {want:?}");
    }
    // An added requirement is not in `specs/` yet: no edge, and no error.
    assert!(
        !e.iter()
            .any(|(s, t, _)| s == "add-2fa/specs/auth/two-factor-login" && t == "relates")
    );
    let check = f.run(&["check"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    let said = format!("{}{}", check.stdout, check.stderr);
    assert!(said.contains("0 errors, 0 warnings"), "{said}");
}

#[test]
fn an_archived_change_of_a_name_in_progress_steps_aside() {
    let f = indexed(FIXTURE);
    let n = nodes(&f);
    // The change in progress keeps `add-export-filters/1.1`; the archived one of that
    // name (an earlier try) steps aside, its own items under its own groups.
    assert_eq!(
        n["add-export-filters/1.1"]["path"],
        "openspec/changes/add-export-filters/tasks.md"
    );
    assert_eq!(n["add-export-filters/1.1"]["state"], "open");
    let old = "add-export-filters/1.1@openspec/changes/archive/2025-05-01-add-export-filters/tasks.md";
    assert_eq!(n[old]["state"], "done");
    let e = edges(&f);
    let parent_of = |id: &str| {
        e.iter()
            .find(|(s, t, _)| s == id && t == "parent")
            .map(|(_, _, d)| d.clone())
    };
    assert_eq!(
        parent_of("add-export-filters/1.1").as_deref(),
        Some("add-export-filters/1")
    );
    assert_eq!(
        parent_of(old).as_deref(),
        Some("add-export-filters/1@openspec/changes/archive/2025-05-01-add-export-filters/tasks.md")
    );
    let check = f.run(&["check"]);
    assert!(!check.stdout.contains("duplicate-id"), "{}", check.stdout);
}

#[test]
fn ready_offers_the_next_task_of_each_change_in_progress() {
    let f = indexed(FIXTURE);
    let ready = json(&f.run(&["ready", "--format", "json"]));
    // add-2fa: 1.1 is done, 1.2 holds 1.2.1 (its only open part); group 2 waits for group
    // 1, Verification for 2. add-export-filters: 1.1, then 1.2. Nothing archived.
    // In `ready`'s order: add-export-filters/1.1 unblocks a task, add-2fa/1.2.1 none.
    assert_eq!(ids(&ready), ["add-export-filters/1.1", "add-2fa/1.2.1"]);
    let open = json(&f.run(&["list", "--type", "Task", "--state", "open", "--format", "json"]));
    assert_eq!(open["count"], 7, "{open}");
    let tree = json(&f.run(&["tree", "add-2fa", "--format", "json"]));
    let rollup = &tree["root"]["rollup"];
    assert_eq!((rollup["done"].as_u64(), rollup["total"].as_u64()), (Some(1), Some(6)));
    let tree = json(&f.run(&["tree", "add-login", "--format", "json"]));
    let rollup = &tree["root"]["rollup"];
    assert_eq!((rollup["done"].as_u64(), rollup["total"].as_u64()), (Some(3), Some(3)));
}

#[test]
fn init_says_openspec_never_spec_kit() {
    let f = Fixture::new(FIXTURE);
    let out = run_in(&f.root(), &["init"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains("OpenSpec: 4 changes (2 active, 2 archived), 2 capabilities; Spec Kit: 0 features;"),
        "{said}"
    );
}

#[test]
fn a_delta_that_changes_what_is_not_there_is_an_error_only_in_progress() {
    let f = Fixture::new(FIXTURE);
    let wrong = "## MODIFIED Requirements\n\n### Requirement: Remember me\nThe system SHALL remember.\n";
    for path in [DELTA, ARCHIVED_DELTA] {
        let file = f.root().join(path);
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::write(&file, format!("{text}\n{wrong}")).unwrap();
    }
    assert_eq!(f.run(&["index"]).code, 0);
    let check = f.run(&["check"]);
    let errors: Vec<&str> = check.stdout.lines().filter(|l| l.contains(": error[")).collect();
    // Only the change in progress: OpenSpec's archive would fail on it; an archived
    // change's requirement may have been renamed since.
    assert_eq!(errors.len(), 1, "{}", check.stdout);
    assert!(
        errors[0].starts_with(DELTA) && errors[0].contains("specs/auth/remember-me"),
        "{}",
        errors[0]
    );
}

fn cfg(dir: &Path, index: &str) -> Config {
    let ov = Overrides {
        root: Some("backlog".into()),
        index_dir: Some(index.into()),
        ..Default::default()
    };
    Config::load(dir, &ov).unwrap()
}

/// Index after an edit; true when the short cut took it.
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

/// An edit: a name, the file, the change, and whether it takes the short cut.
type Edit = (&'static str, &'static str, fn(&str) -> String, bool);

const EDITS: &[Edit] = &[
    ("tick", TASKS, |t| t.replacen("- [ ] 1.2.1", "- [x] 1.2.1", 1), true),
    ("untick", TASKS, |t| t.replacen("- [x] 1.1", "- [ ] 1.1", 1), true),
    (
        "tick an unnumbered task",
        TASKS,
        |t| t.replacen("- [ ] Show an error", "- [x] Show an error", 1),
        true,
    ),
    (
        "a task's title",
        TASKS,
        |t| t.replacen("Run the full test suite", "Run the full test suite twice", 1),
        true,
    ),
    (
        "a tick in an archived change",
        "openspec/changes/archive/2025-06-01-add-login/tasks.md",
        |t| t.replacen("- [ ] 1.2", "- [x] 1.2", 1),
        true,
    ),
    (
        "a scenario's text",
        DELTA,
        |t| t.replacen("after 7 days", "after 14 days", 1),
        true,
    ),
    (
        "a requirement renamed",
        DELTA,
        |t| t.replacen("Requirement: Session expiry", "Requirement: Session lifetime", 1),
        false,
    ),
    (
        "a task added",
        TASKS,
        |t| t.replacen("- [ ] Run the full", "- [ ] 3.1 Check the logs\n- [ ] Run the full", 1),
        false,
    ),
];

#[test]
fn each_openspec_edit_equals_a_full_build() {
    let f = Fixture::new(FIXTURE);
    let dir = f.dir.path();
    let inc = cfg(dir, "_index");
    mdgraph::Index::build(&inc, false, None).unwrap();
    settle(&inc);
    for (name, path, change, short) in EDITS {
        let file = f.root().join(path);
        let original = std::fs::read_to_string(&file).unwrap();
        let edited = change(&original);
        assert_ne!(edited, original, "{name}: the edit changes nothing");
        edit_file(&file, &|t| change(t));
        let took = index(&inc);
        assert_full(dir, name);
        assert_eq!(took, *short, "{name}: short cut taken {took}, expected {short}");
        std::fs::write(&file, &original).unwrap();
        index(&inc);
        assert_full(dir, &format!("{name}, undone"));
    }
    // The tick shows: 1.2.1 done, so 1.2 (still open) is next.
    edit_file(&f.root().join(TASKS), &|t| t.replacen("- [ ] 1.2.1", "- [x] 1.2.1", 1));
    index(&inc);
    let ready = json(&f.run(&["ready", "--format", "json"]));
    assert_eq!(ids(&ready), ["add-export-filters/1.1", "add-2fa/1.2"]);
}
