//! Edits in a spec repository of many features (as `bench/spec_bench.py` makes one), each
//! feature a part of the backlog of its own: the mirror's `backlog` table is made again
//! for the feature an edit lands in, and the ready items after it move. After each edit
//! (a tick, an untick, a dependency that makes a blocker cycle and its removal), the
//! index is byte for byte a full build's, mirror included, and the edit took the short
//! cut.

use crate::common::*;
use crate::incremental::assert_same_mirror_as_full;
use mdgraph::{Config, Overrides};
use std::path::Path;

/// `tasks.md` of feature `n`: five phases of `per` tasks, every third in order (the
/// others `[P]`), some ticked.
fn tasks_md(n: usize, per: usize) -> String {
    let phases = [
        "Setup",
        "Foundational",
        "User Story 1 (Priority: P1)",
        "User Story 2 (Priority: P2)",
        "Polish",
    ];
    let mut out = format!("# Tasks: Feature {n}\n\n");
    let mut t = 1;
    for (p, name) in phases.iter().enumerate() {
        out.push_str(&format!("## Phase {}: {name}\n\n", p + 1));
        for i in 0..per {
            let par = if i.is_multiple_of(3) { "" } else { " [P]" };
            let tick = if (t + n).is_multiple_of(4) { "x" } else { " " };
            out.push_str(&format!(
                "- [{tick}] T{t:03}{par} Step {i} of phase {} in feature {n}\n",
                p + 1
            ));
            t += 1;
        }
        out.push('\n');
    }
    out
}

/// Eight features of twenty tasks, with a spec and a plan each.
fn generate(root: &Path) {
    for n in 1..=8 {
        let dir = root.join(format!("specs/{n:03}-feature-{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        let spec = format!(
            "# Feature Specification: Feature {n}\n\n**Status**: Draft\n\n## Requirements\n\n\
             - **FR-001**: System MUST store the records of feature {n}.\n"
        );
        std::fs::write(dir.join("spec.md"), spec).unwrap();
        std::fs::write(
            dir.join("plan.md"),
            format!("# Implementation Plan: Feature {n}\n\nA plan.\n"),
        )
        .unwrap();
        std::fs::write(dir.join("tasks.md"), tasks_md(n, 4)).unwrap();
    }
}

fn cfg(dir: &Path, index: &str) -> Config {
    let ov = Overrides {
        root: Some("repo".into()),
        index_dir: Some(index.into()),
        ..Overrides::default()
    };
    Config::load(dir, &ov).unwrap()
}

/// The `cycles` the mirror lists.
fn cycles(index: &Path) -> String {
    let conn = rusqlite::Connection::open(index.join("index.sqlite")).unwrap();
    conn.query_row("SELECT value FROM meta WHERE key = 'cycles'", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn edits_in_one_feature_of_many_equal_full_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    generate(&dir.join("repo"));
    let inc = cfg(dir, "_index");
    mdgraph::Index::build(&inc, false, None).unwrap();
    settle(&inc);
    let tasks = |n: usize| dir.join(format!("repo/specs/{n:03}-feature-{n}/tasks.md"));
    type Change = fn(&str) -> String;
    let edits: [(&str, usize, Change); 5] = [
        ("tick the first task", 1, |t| t.replacen("- [ ] T001", "- [x] T001", 1)),
        ("tick in another feature", 5, |t| {
            t.replacen("- [ ] T002", "- [x] T002", 1)
        }),
        // T004 waits on T001 to T003 (the tasks before it in its phase): T001 after T004
        // is a cycle.
        ("a cycle", 2, |t| {
            t.replacen("feature 2\n", "feature 2, after T004\n", 1)
        }),
        ("the cycle broken", 2, |t| t.replacen(", after T004", "", 1)),
        ("untick", 1, |t| t.replacen("- [x] T001", "- [ ] T001", 1)),
    ];
    for (name, n, change) in edits {
        edit_file(&tasks(n), &|t| change(t));
        let report = mdgraph::Index::build(&inc, false, None).unwrap();
        assert!(
            report.timings.phases.iter().any(|(p, _)| *p == "patch"),
            "{name}: the short cut was not taken"
        );
        let _ = std::fs::remove_dir_all(dir.join("_full"));
        mdgraph::Index::build(&cfg(dir, "_full"), true, None).unwrap();
        let differ = differing_outputs(&dir.join("_index"), &dir.join("_full"));
        assert!(differ.is_empty(), "{name}: {differ:?} differ from a full build");
        assert_same_mirror_as_full(dir, name);
        let listed = cycles(&dir.join("_index"));
        assert_eq!(listed != "[]", name == "a cycle", "{name}: cycles {listed}");
    }
}
