//! Decision logs as people write them (tests/fixtures/adr-styles): statuses led by an
//! emoji, in bold, dated before or after, in a table; "Superseded by" as a typed edge; an
//! unknown word where the status belongs reported, never taken; a first `check` whose
//! every warning is real.

use crate::common::*;
use std::path::Path;

/// A copy of the fixture with a config beside it naming its `docs/` the root (the
/// fixture is the repository) and the log's folder; indexed.
fn configured() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("tests/fixtures/adr-styles"), dir.path());
    std::fs::write(
        dir.path().join("mdgraph.toml"),
        "root = \"docs\"\nindex_dir = \"_index\"\n[kinds]\ndecisions_dir = \"architecture-decision-record\"\n",
    )
    .unwrap();
    let index = run_in(dir.path(), &["index", "-q"]);
    assert!(index.code <= 1, "{}", index.stderr);
    dir
}

fn read_jsonl(dir: &Path, name: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("_index").join(name))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn s(v: &serde_json::Value) -> String {
    v.as_str().unwrap_or("-").to_string()
}

/// (id, kind, state) of the documents.
fn nodes(dir: &Path) -> Vec<(String, String, String)> {
    read_jsonl(dir, "graph_nodes.jsonl")
        .iter()
        .filter(|n| n["kind"] != "chunk")
        .map(|n| (s(&n["id"]), s(&n["kind"]), s(&n["state"])))
        .collect()
}

/// (source, type, target) of the edges other than body links, sections and mentions.
fn typed_edges(dir: &Path) -> Vec<(String, String, String)> {
    read_jsonl(dir, "graph_edges.jsonl")
        .iter()
        .filter(|e| !["section_of", "links_to", "mentions"].contains(&e["type"].as_str().unwrap()))
        .map(|e| (s(&e["source"]), s(&e["type"]), s(&e["target"])))
        .collect()
}

/// (path, line, code, subject) of the diagnostics.
fn diagnostics(dir: &Path) -> Vec<(String, u64, String, String)> {
    read_jsonl(dir, "diagnostics.jsonl")
        .iter()
        .map(|d| {
            (
                s(&d["path"]),
                d["line"].as_u64().unwrap(),
                s(&d["code"]),
                s(&d["subject"]),
            )
        })
        .collect()
}

fn own<const N: usize>(xs: [(&str, &str, &str); N]) -> Vec<(String, String, String)> {
    xs.iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

#[test]
fn statuses_are_read_as_people_write_them() {
    let dir = configured();
    let got: Vec<_> = nodes(dir.path())
        .into_iter()
        .filter(|(id, _, _)| {
            ["ADR-0001", "ADR-0002", "ADR-0003", "ADR-0004", "ADR-0005", "ADR-0006"].contains(&id.as_str())
        })
        .collect();
    assert_eq!(
        got,
        own([
            ("ADR-0001", "adr", "Accepted"),   // ✅ Accepted
            ("ADR-0002", "adr", "Superseded"), // ⌛️ Superseded by [0004](…)
            ("ADR-0003", "adr", "Accepted"),   // **Accepted** (2021-03-04), then **June 2020 Update**
            ("ADR-0004", "adr", "Accepted"),   // | Status | Date | over | Accepted | 2022-05-01 |
            ("ADR-0005", "adr", "Rejected"),   // a dated history: the last item
            ("ADR-0006", "adr", "-"),          // Wobbly: no state
        ])
    );
    // The second link's file was renamed: its text names the id, which gives the edge.
    for (from, to) in [("ADR-0002", "ADR-0004"), ("ADR-0008", "ADR-0009")] {
        assert!(
            typed_edges(dir.path()).contains(&(from.into(), "superseded_by".into(), to.into())),
            "{from} → {to}: {:?}",
            typed_edges(dir.path())
        );
    }
}

#[test]
fn a_first_check_warns_only_of_real_problems() {
    let dir = configured();
    let log = "architecture-decision-record";
    let want: Vec<(String, u64, String, String)> = [
        // A link out of the repository.
        (
            "0003-keep-secrets-in-a-vault.md",
            13,
            "link-outside-root",
            "../../../runbooks/secrets.md",
        ),
        // The unknown word, named with its file and line.
        ("0006-split-the-monolith.md", 5, "unknown-state", "Wobbly"),
        // Two records numbered 7.
        ("0007-keep-logs-a-year.md", 1, "duplicate-id", "ADR-0007"),
        ("0007-log-to-stdout.md", 1, "duplicate-id", "ADR-0007"),
        // A renamed file: still a broken link, though its text gave the edge.
        ("0008-ship-tarballs.md", 7, "broken-link", "0009-ship-docker-images.md"),
    ]
    .iter()
    .map(|(f, l, c, s)| (format!("{log}/{f}"), *l, c.to_string(), s.to_string()))
    .collect();
    // Not: a missing-id per record (adr-tools names records by their files), the
    // template's placeholder link, the link to the repository's README beside the root.
    assert_eq!(diagnostics(dir.path()), want);
    let check = run_in(dir.path(), &["check"]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert!(check.stderr.contains("0 errors, 5 warnings"), "{}", check.stderr);
    // The template is a doc, not ADR-0000.
    let template: Vec<_> = nodes(dir.path()).into_iter().filter(|n| n.0.contains("0000")).collect();
    assert_eq!(template, own([("0000-template", "doc", "-")]));
}

#[test]
fn init_finds_a_log_by_its_contents_and_learns_its_statuses() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("tests/fixtures/adr-styles"), dir.path());
    let init = run_in(dir.path(), &["init"]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    assert!(
        init.stderr.contains("decision records") && init.stderr.contains("architecture-decision-record"),
        "{}",
        init.stderr
    );
    let config = std::fs::read_to_string(dir.path().join("mdgraph.toml")).unwrap();
    assert!(
        config.contains("decisions_dir = \"architecture-decision-record\""),
        "{config}"
    );
    // "Wobbly, see the thread" is how this log writes a status; "June 2020 Update" is not.
    assert!(
        config.contains(r#"adr_states = ["Proposed", "Accepted", "Deprecated", "Superseded", "Rejected", "Wobbly"]"#),
        "{config}"
    );
    let index = run_in(dir.path(), &["index", "-q"]);
    assert!(index.code <= 1, "{}", index.stderr);
    let states: Vec<_> = nodes(dir.path()).into_iter().filter(|n| n.0 == "ADR-0006").collect();
    assert_eq!(states, own([("ADR-0006", "adr", "Wobbly")]));
    assert!(
        !diagnostics(dir.path()).iter().any(|d| d.2 == "unknown-state"),
        "{:?}",
        diagnostics(dir.path())
    );
}

#[test]
fn ids_typed_as_words_are_exact_ids_everywhere() {
    let dir = configured();
    // `show adr 4`, unquoted: the words are one id as typed.
    for args in [&["show", "adr", "4"][..], &["show", "ADR", "0004"], &["show", "adr-4"]] {
        let out = run_in(dir.path(), args);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(out.stdout.starts_with("ADR-0004 "), "{args:?}: {}", out.stdout);
    }
    // Search and pack take the same spellings as the exact id.
    for q in ["ADR 4", "ADR-4", "adr 004", "what replaced ADR 2"] {
        let out = run_in(dir.path(), &["search", q, "--format", "json"]);
        assert_eq!(out.code, 0, "{q}: {}", out.stderr);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let want = if q.ends_with('2') { "ADR-0002" } else { "ADR-0004" };
        // What replaced ADR 2 is its successor, first; ADR 2 follows as named.
        let named = &v["results"][usize::from(q.ends_with('2'))];
        assert_eq!(
            (named["id"].as_str(), named["why"]["exact_id"].as_bool()),
            (Some(want), Some(true)),
            "{q}"
        );
        let pack = run_in(dir.path(), &["pack", q, "--format", "json"]);
        assert_eq!(pack.code, 0, "{q}: {}", pack.stderr);
        assert!(pack.stdout.contains(want), "{q}: {}", pack.stdout);
    }
    // A word and a number that spell no id stay words (`version 2` is no document).
    let out = run_in(dir.path(), &["search", "cron version 2", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        v["results"][0]["why"]["exact_id"].as_bool(),
        Some(false),
        "{}",
        out.stdout
    );
}

#[test]
fn show_task_88_unquoted_on_a_board() {
    let f = Fixture::new("tests/fixtures/backlog-md");
    let out = f.run(&["show", "task", "6"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("task-6 "), "{}", out.stdout);
    let out = f.run(&["show", "TASK", "11.1"]);
    assert!(out.stdout.starts_with("task-11.1 "), "{}{}", out.stdout, out.stderr);
}

#[test]
fn dated_log4brains_names_are_slugs_not_clashing_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let adr = dir.path().join("docs/adr");
    std::fs::create_dir_all(&adr).unwrap();
    for (name, status) in [
        ("20200925-use-lerna", "accepted"),
        ("20200925-use-prettier", "proposed"),
    ] {
        std::fs::write(
            adr.join(format!("{name}.md")),
            format!("# {name}\n\n- Status: {status}\n- Date: 2020-09-25\n\nSee [the skill](../../.claude/skill.md).\n"),
        )
        .unwrap();
    }
    std::fs::write(
        adr.join("template.md"),
        "# Title\n\n- Status: [draft | superseded by [xxx](yyyymmdd-xxx.md)]\n",
    )
    .unwrap();
    assert_eq!(run_in(dir.path(), &["init"]).code, 0);
    let index = run_in(dir.path(), &["index", "-q"]);
    assert_eq!(index.code, 0, "{}", index.stderr);
    let got: Vec<_> = nodes(dir.path()).into_iter().filter(|n| n.1 == "adr").collect();
    assert_eq!(
        got,
        own([
            ("20200925-use-lerna", "adr", "Accepted"),
            ("20200925-use-prettier", "adr", "Proposed"),
        ])
    );
    // No clash, no missing id, no template link, no link into a hidden folder.
    assert_eq!(diagnostics(dir.path()), []);
}

/// An edit of the record whose link is broken takes the short cut and still gives the
/// edge its text names: byte for byte what a full index writes.
#[test]
fn an_edit_keeps_the_edge_a_broken_links_text_gives() {
    let dir = configured();
    let cfg = mdgraph::Config::load(dir.path(), &mdgraph::Overrides::default()).unwrap();
    settle(&cfg);
    let file = dir
        .path()
        .join("docs/architecture-decision-record/0008-ship-tarballs.md");
    edit_file(&file, &|t| t.replace("copied by hand", "copied by hand, twice"));
    let report = mdgraph::Index::build(&cfg, false, None).unwrap();
    let phases: Vec<&str> = report.timings.phases.iter().map(|(p, _)| *p).collect();
    assert!(phases.contains(&"patch"), "not the short cut: {phases:?}");
    let full = run_in(dir.path(), &["--index-dir", "_full", "index", "-q", "--full"]);
    assert!(full.code <= 1, "{}", full.stderr);
    assert_eq!(
        differing_outputs(&dir.path().join("_index"), &dir.path().join("_full")),
        Vec::<&str>::new()
    );
    assert!(typed_edges(dir.path()).contains(&("ADR-0008".into(), "superseded_by".into(), "ADR-0009".into())));
}

/// A task file without frontmatter whose name starts with its id (as agents write them,
/// with bold `**Status:**` lines) is named by its file: no `missing-id`, which on one
/// real board was 478 of its 651 warnings. A file with frontmatter but no id still gets
/// one: it has a place for the id.
#[test]
fn a_task_named_by_its_file_without_frontmatter_is_no_missing_id() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("backlog/tasks");
    std::fs::create_dir_all(&tasks).unwrap();
    std::fs::write(
        dir.path().join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n[kinds]\npaths = { \"tasks/**\" = \"Task\" }\n",
    )
    .unwrap();
    std::fs::write(
        tasks.join("task-110 - Support-edges.md"),
        "# Task 110: Support edges\n\n**Status:** To Do\n",
    )
    .unwrap();
    std::fs::write(
        tasks.join("task-111 - Track-types.md"),
        "---\ntitle: Track types\nstatus: To Do\n---\n# Track types\n",
    )
    .unwrap();
    let out = run_in(dir.path(), &["index", "-q"]);
    assert!(out.code <= 1, "{}", out.stderr);
    let missing: Vec<String> = read_jsonl(dir.path(), "diagnostics.jsonl")
        .iter()
        .filter(|d| d["code"] == "missing-id")
        .map(|d| s(&d["path"]))
        .collect();
    assert_eq!(missing, ["tasks/task-111 - Track-types.md"]);
}
