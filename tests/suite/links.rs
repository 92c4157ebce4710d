//! Body links written relative to the repository root (the nearest folder with `.git`),
//! in a full index and in an incremental one.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// (source, target) of a `links_to` edge.
type Link = (String, String);
/// (path, line, code) of a diagnostic.
type Diag = (String, u64, String);

/// The `links_to` edges and the diagnostics of an index.
fn graph(index: &Path) -> (Vec<Link>, Vec<Diag>) {
    let read = |name: &str| -> Vec<Value> {
        std::fs::read_to_string(index.join(name))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let edges = read("graph_edges.jsonl")
        .into_iter()
        .filter(|e| e["type"] == "links_to")
        .map(|e| {
            (
                e["source"].as_str().unwrap().into(),
                e["target"].as_str().unwrap().into(),
            )
        })
        .collect();
    let diags = read("diagnostics.jsonl")
        .into_iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().into(),
                d["line"].as_u64().unwrap(),
                d["code"].as_str().unwrap().into(),
            )
        })
        .collect();
    (edges, diags)
}

#[test]
fn links_from_the_repository_root_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    std::fs::create_dir(repo.join(".git")).unwrap();
    write(
        &repo.join("docs/a/b.md"),
        "# B\n\nFrom the repository root: [c](docs/c.md).\nWith a slash: [c](/docs/c.md).\nMissing: [m](docs/missing.md).\n",
    );
    write(&repo.join("docs/c.md"), "# C\n");
    let out = run_in(repo, &["index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (edges, diags) = graph(&repo.join("_index"));
    assert_eq!(edges, [("b".to_string(), "c".to_string())]);
    assert_eq!(diags, [("docs/a/b.md".to_string(), 5, "broken-link".to_string())]);
    assert!(
        out.stderr
            .contains("docs/a/b.md:5:1: warning[broken-link]: link to `docs/missing.md`"),
        "{}",
        out.stderr
    );
}

#[test]
fn links_from_the_repository_root_into_a_backlog_folder() {
    // The root is `backlog/` inside the repository; the config sits at the top.
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    std::fs::create_dir(repo.join(".git")).unwrap();
    write(
        &repo.join("mdgraph.toml"),
        "root = \"backlog\"\nindex_dir = \"_index\"\n",
    );
    write(
        &repo.join("backlog/items/deep/T-1_a.md"),
        "---\nid: T-1\ntype: Task\n---\nSee [T-2](backlog/items/T-2_b.md), [again](/backlog/items/T-2_b.md)\n\
         and [beside](../../../README.md) and [gone](backlog/items/T-9_gone.md)\n\
         and [out](../../../../x.md).\n",
    );
    write(
        &repo.join("backlog/items/T-2_b.md"),
        "---\nid: T-2\ntype: Task\n---\n# B\n",
    );
    write(&repo.join("README.md"), "# Repo\n");
    let out = run_in(repo, &["index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (edges, diags) = graph(&repo.join("_index"));
    assert_eq!(edges, [("T-1".to_string(), "T-2".to_string())]);
    let mut codes: Vec<&str> = diags.iter().map(|d| d.2.as_str()).collect();
    codes.sort();
    // The repository's README beside the root is not the index's to check; a link out of
    // the repository is reported.
    assert_eq!(codes, ["broken-link", "link-outside-root"], "{diags:?}");
    assert!(
        diags.iter().any(|d| d.2 == "link-outside-root" && d.1 == 7),
        "{diags:?}"
    );
    // `check` computes the same graph: the index is fresh.
    let out = run_in(repo, &["check"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

#[test]
fn incremental_index_resolves_repository_root_links_like_a_full_one() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    std::fs::create_dir(repo.join(".git")).unwrap();
    write(&repo.join("docs/a/b.md"), "# B\n[c](docs/c.md) and [d](/docs/d.md)\n");
    write(&repo.join("docs/c.md"), "# C\n");
    assert_eq!(run_in(repo, &["index"]).code, 0);
    let (edges, diags) = graph(&repo.join("_index"));
    assert_eq!(edges, [("b".to_string(), "c".to_string())]);
    assert_eq!(diags.len(), 1, "{diags:?}");
    // The target appears: b.md is unchanged (its parse is reused), and its link resolves.
    write(&repo.join("docs/d.md"), "# D\n");
    let out = run_in(repo, &["index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (edges, diags) = graph(&repo.join("_index"));
    assert_eq!(
        edges,
        [("b".to_string(), "c".to_string()), ("b".to_string(), "d".to_string())]
    );
    assert!(diags.is_empty(), "{diags:?}");
    let inc = tree_hashes(&repo.join("_index"));
    assert_eq!(run_in(repo, &["index", "--full"]).code, 0);
    let full = tree_hashes(&repo.join("_index"));
    for name in OUTPUTS {
        assert!(inc.contains_key(name), "{name}");
        assert_eq!(inc.get(name), full.get(name), "{name}");
    }
}
