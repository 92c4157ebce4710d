//! Bounded MCP answers: on the largest feature of a backlog, every tool's answer with
//! its default arguments is at most 10,000 o200k tokens, sent once, as the official
//! Python client receives it (`tests/mcp_answers.py`). Over a generated Spec Kit feature
//! of 600 tasks and 150 requirements (always), and over the largest feature or epic of
//! the real spec corpora in `../shared/corpora/` (or `$MDGRAPH_CORPORA`; skipped when
//! absent).

use crate::common::*;
use mdgraph::{Index, Overrides, Tokenizer};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// The default bound of an MCP answer.
const BOUND: u32 = 10_000;

/// A Spec Kit feature far larger than any answer may be: 8 stories with acceptance
/// scenarios, 150 requirements, 40 criteria, 12 phases of 50 tasks (the first six done),
/// and a plan and research notes of many sections.
fn write_large_feature(root: &Path) {
    let dir = root.join("specs/001-inventory-sync");
    std::fs::create_dir_all(&dir).unwrap();
    let para = "The warehouse clerk scans the shelf label, the handheld shows what the \
                ledger expects there, and any difference is queued for the nightly \
                reconciliation together with the photo the clerk took.";
    let mut spec = String::from("# Feature Specification: Inventory Sync\n\n**Status**: Draft\n\n");
    spec.push_str("## User Scenarios & Testing\n\n");
    for s in 1..=8 {
        let _ = writeln!(
            spec,
            "### User Story {s} - Reconcile shelf {s} (Priority: P{})\n",
            1 + s % 3
        );
        let _ = writeln!(spec, "{para}\n\n**Acceptance Scenarios**:\n");
        for a in 1..=6 {
            let _ = writeln!(
                spec,
                "{a}. **Given** shelf {s} holds {a} cartons, **When** the clerk scans it, **Then** the ledger shows {a} cartons."
            );
        }
        spec.push('\n');
    }
    spec.push_str("## Requirements\n\n");
    for r in 1..=150 {
        let _ = writeln!(
            spec,
            "- **FR-{r:03}**: System MUST reconcile bin {r} against the ledger and keep the scan photo for audit."
        );
    }
    spec.push_str("\n## Success Criteria\n\n");
    for c in 1..=40 {
        let _ = writeln!(spec, "- **SC-{c:03}**: {c} percent fewer manual recounts per week.");
    }
    std::fs::write(dir.join("spec.md"), spec).unwrap();
    let mut tasks = String::from("# Tasks: Inventory Sync\n\n");
    for p in 1..=12 {
        let _ = writeln!(tasks, "## Phase {p}: Shelf group {p}\n");
        for t in 1..=50 {
            let n = (p - 1) * 50 + t;
            let mark = if p <= 6 { "x" } else { " " };
            let _ = writeln!(
                tasks,
                "- [{mark}] T{n:03} [US{}] Reconcile bin {n} in src/sync/bin_{n}.rs per FR-{:03}",
                1 + n % 8,
                1 + n % 150
            );
        }
        tasks.push('\n');
    }
    std::fs::write(dir.join("tasks.md"), tasks).unwrap();
    for (name, title) in [("plan.md", "Implementation Plan"), ("research.md", "Research")] {
        let mut doc = format!("# {title}: Inventory Sync\n\n");
        for s in 1..=30 {
            let _ = writeln!(doc, "## Decision {s}\n\n{para} {para}\n");
        }
        std::fs::write(dir.join(name), doc).unwrap();
    }
}

/// The largest feature, epic or story of the index (by the nodes of its tree) and its
/// title.
fn largest_feature(index: &Index) -> (String, String) {
    let all = index.list(&mdgraph::ListFilter::default()).unwrap();
    let mut best: Option<(usize, String, String)> = None;
    for item in &all.items {
        let kind = item.r#type.as_deref().unwrap_or_default().to_lowercase();
        if !["feature", "epic", "userstory", "story"].contains(&kind.as_str()) {
            continue;
        }
        let tree = index.tree(&item.id).unwrap();
        let size = mdgraph::Bounded::entries(&tree);
        if best.as_ref().is_none_or(|b| size > b.0) {
            best = Some((size, item.id.clone(), item.title.clone()));
        }
    }
    let (size, id, title) = best.expect("a feature, epic or story");
    eprintln!("largest: {id} ({size} nodes)");
    (id, title)
}

/// One answer as the client received it.
struct Answer {
    tool: String,
    args: serde_json::Value,
    text: String,
    structured: serde_json::Value,
}

/// Every tool called on the largest feature of `root` with its default arguments; the
/// answers as the Python client received them (the tool list first).
fn answers(root: &Path, index_dir: &Path) -> (String, Vec<Answer>) {
    let ov = Overrides {
        root: Some(root.to_path_buf()),
        index_dir: Some(index_dir.to_path_buf()),
        ..Default::default()
    };
    let config = mdgraph::Config::load(root, &ov).unwrap();
    let index = Index::open(config).unwrap();
    let (id, title) = largest_feature(&index);
    let first_ready = index.ready().unwrap().items.first().map(|r| r.item.id.clone());
    let mut calls = vec![
        serde_json::json!(["tree", {"id": id}]),
        serde_json::json!(["neighbors", {"id": id}]),
        serde_json::json!(["neighbors", {"id": id, "depth": 2}]),
        serde_json::json!(["show", {"id": id}]),
        serde_json::json!(["list", {}]),
        serde_json::json!(["list", {"parent": id}]),
        serde_json::json!(["ready", {}]),
        serde_json::json!(["search", {"query": title}]),
        serde_json::json!(["pack", {"query": title}]),
        serde_json::json!(["pack", {"query": format!("what is left in {title}")}]),
    ];
    if let Some(t) = first_ready {
        calls.push(serde_json::json!(["ready", {"explain": t}]));
        calls.push(serde_json::json!(["show", {"id": t}]));
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("calls.json");
    std::fs::write(&file, serde_json::to_string(&calls).unwrap()).unwrap();
    let out = Command::new("python3")
        .arg(repo().join("tests").join("mcp_answers.py"))
        .arg("--bin")
        .arg(BIN)
        .arg("--root")
        .arg(root)
        .arg("--index-dir")
        .arg(index_dir)
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap());
    let listing = lines.next().expect("the tool list")["text"]
        .as_str()
        .unwrap()
        .to_string();
    let got: Vec<Answer> = lines
        .map(|v| {
            assert_eq!(v["is_error"], false, "{v}");
            Answer {
                tool: v["tool"].as_str().unwrap().to_string(),
                args: v["args"].clone(),
                text: v["text"].as_str().unwrap().to_string(),
                structured: v["structured"].clone(),
            }
        })
        .collect();
    assert_eq!(got.len(), calls.len());
    eprintln!("tools/list: {} bytes", listing.len());
    (listing, got)
}

/// Each answer within the bound, sent once (structured content only beside a pack's
/// Markdown, as its short summary); returns the tree's answer.
fn check_bounded(answers: &[Answer]) -> serde_json::Value {
    let mut tree = serde_json::Value::Null;
    for a in answers {
        let structured = match &a.structured {
            serde_json::Value::Null => String::new(),
            v => v.to_string(),
        };
        let tokens = Tokenizer::O200k.count(&a.text) + Tokenizer::O200k.count(&structured);
        eprintln!("{} {}: {tokens} tokens", a.tool, a.args);
        assert!(tokens <= BOUND, "{} {}: {tokens} tokens", a.tool, a.args);
        if a.tool == "pack" {
            assert!(
                structured.len() * 4 < a.text.len(),
                "a pack's summary is small beside its Markdown"
            );
        } else {
            assert!(structured.is_empty(), "{} sends its answer once, as text", a.tool);
            let v: serde_json::Value = serde_json::from_str(&a.text).unwrap();
            if a.tool == "tree" {
                tree = v;
            }
        }
    }
    tree
}

#[test]
fn every_mcp_answer_on_a_large_generated_feature_is_bounded() {
    if tool_missing(
        "the MCP Python client (python3 -m pip install mcp)",
        &["python3", "-c", "import mcp"],
    ) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("backlog");
    write_large_feature(&root);
    let (_, got) = answers(&root, &tmp.path().join("_index"));
    let tree = check_bounded(&got);
    // The tree was cut, says how much, still counts every task, and lists the tasks
    // before the requirements.
    let root_node = &tree["root"];
    assert_eq!(root_node["id"], "001-inventory-sync");
    assert_eq!(root_node["rollup"]["total"], 600, "{root_node}");
    assert!(tree["more"].as_u64().unwrap() > 0, "the tree was cut: {tree}");
    let first = root_node["children"][0]["id"].as_str().unwrap();
    assert_eq!(
        first, "001-inventory-sync/tasks",
        "tasks first: {}",
        root_node["children"]
    );
    // The open phases' tasks are kept before the done ones.
    let text = tree.to_string();
    assert!(text.contains("001-inventory-sync/T301"), "the first open task is shown");
    // Every answer that lists says how many more there are.
    for a in &got {
        if ["list", "tree"].contains(&a.tool.as_str()) {
            let v: serde_json::Value = serde_json::from_str(&a.text).unwrap();
            assert!(
                v["more"].as_u64().unwrap_or(0) > 0,
                "{} {} says what it left out",
                a.tool,
                a.args
            );
        }
    }
}

#[test]
fn every_mcp_answer_on_the_largest_real_feature_is_bounded() {
    // `MDGRAPH_CORPORA` names the folder when it is not beside the repository.
    let base = std::env::var_os("MDGRAPH_CORPORA").map_or_else(|| repo().join("../shared/corpora"), Into::into);
    let corpora = ["speckit-toastmasters", "bmad-security-design-assistant"];
    let present: Vec<_> = corpora.iter().map(|c| base.join(c)).filter(|p| p.is_dir()).collect();
    if present.is_empty() {
        eprintln!("skipping: no spec corpus under {}", base.display());
        return;
    }
    if tool_missing(
        "the MCP Python client (python3 -m pip install mcp)",
        &["python3", "-c", "import mcp"],
    ) {
        return;
    }
    for root in present {
        let tmp = tempfile::tempdir().unwrap();
        let (_, got) = answers(&root, &tmp.path().join("_index"));
        check_bounded(&got);
    }
}
