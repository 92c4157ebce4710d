//! Small items do not flood a pack: a feature's requirements that a question matches go
//! in as one block under the best of them, each as its own line, not as ten items with
//! ten headers; each is still named in the pack's items (`members`) and counted by eval.

use crate::common::*;
use std::fmt::Write as _;

#[test]
fn requirements_of_one_spec_are_one_block_not_an_item_each() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("backlog/specs/007-audit-log");
    std::fs::create_dir_all(&dir).unwrap();
    let mut spec = String::from("# Feature Specification: Audit Log\n\n## Requirements\n\n");
    for (i, what) in [
        "record every sign-in in the audit log",
        "record every role change in the audit log",
        "keep audit log entries for a year",
        "export the audit log as CSV",
        "show the audit log to administrators only",
        "sign each audit log entry",
    ]
    .iter()
    .enumerate()
    {
        let _ = writeln!(spec, "- **FR-{:03}**: System MUST {what}.", i + 1);
    }
    std::fs::write(dir.join("spec.md"), spec).unwrap();
    std::fs::write(
        dir.join("tasks.md"),
        "# Tasks: Audit Log\n\n## Phase 1: Setup\n\n- [ ] T001 Create the audit table per FR-001\n",
    )
    .unwrap();
    let args = [
        "--root",
        "backlog",
        "--index-dir",
        "_index",
        "pack",
        "what must the audit log record and keep?",
        "--budget",
        "2000",
        "--format",
        "json",
    ];
    let v = json(&run_in(tmp.path(), &args));
    let items = v["items"].as_array().unwrap();
    let requirement = |id: &str| id.contains("/FR-");
    let headed: Vec<&str> = items
        .iter()
        .filter_map(|i| i["id"].as_str())
        .filter(|id| requirement(id))
        .collect();
    assert_eq!(headed.len(), 1, "one block for the spec's requirements: {headed:?}");
    let block = items.iter().find(|i| requirement(i["id"].as_str().unwrap())).unwrap();
    let members: Vec<&str> = block["members"]
        .as_array()
        .expect("the other requirements are members of the block")
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(members.len() >= 2, "{members:?}");
    let text = block["text"].as_str().unwrap();
    // Each member is its line in the block, under the one header.
    for m in &members {
        let local = m.rsplit('/').next().unwrap();
        assert!(text.contains(&format!("**{local}**")), "{m} in {text}");
    }
    assert_eq!(
        text.matches("\n## ").count() + usize::from(text.starts_with("## ")),
        1,
        "{text}"
    );
    // The tokens of the members are part of the block's.
    let in_members: u64 = block["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["tokens"].as_u64().unwrap())
        .sum();
    assert!(in_members < block["tokens"].as_u64().unwrap());
}
