//! `mdgraph check`: freshness by content hash, graph errors, strictness, JSON shape.

use crate::common::*;
use crate::snap;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckJson {
    schema: String,
    ok: bool,
    fresh: bool,
    errors: usize,
    warnings: usize,
    baseline: Option<String>,
    known: usize,
    new: usize,
    fixed: usize,
    diagnostics: Vec<DiagJson>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct DiagJson {
    path: String,
    line: u32,
    col: u32,
    severity: String,
    code: String,
    message: String,
    subject: Option<String>,
}

#[test]
fn fresh_index_passes() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let out = f.run(&["check"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    // Its one finding is real: a feature marked Done while a bug under it is open.
    assert_eq!(
        out.stdout,
        "items/feature/0000/QRY-FTR-0008_company-sso-login-with-oidc.md:2:1: warning[done-with-open-children]: \
         `QRY-FTR-0008` is Done but 1 of its 2 children is not finished: QRY-BUG-0004 (Ready)\n"
    );
    let out = f.run(&["check", "--format", "json"]);
    let v: CheckJson = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v.schema, "mdgraph.check/2");
    assert!(v.ok && v.fresh && v.errors == 0, "{v:?}");
    // No baseline file: nothing known or fixed; the one warning is new.
    assert_eq!((v.baseline, v.known, v.new, v.fixed), (None, 0, 1, 0));
}

#[test]
fn edited_file_makes_index_stale_until_reindexed() {
    let f = Fixture::committed("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let readme = f.root().join("README.md");
    let mut text = std::fs::read_to_string(&readme).unwrap();
    text.push_str("\nEdited.\n");
    std::fs::write(&readme, text).unwrap();
    let out = f.run(&["check"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("README.md:1:1: error[stale-index]: changed since the index was built"),
        "{}",
        out.stdout
    );
    // A new and a deleted file are named too.
    std::fs::write(f.root().join("NEW.md"), "# New\n").unwrap();
    let out = f.run(&["check"]);
    assert!(
        out.stdout.contains("NEW.md:1:1: error[stale-index]: new file"),
        "{}",
        out.stdout
    );
    assert_eq!(f.run(&["index"]).code, 0);
    assert_eq!(f.run(&["check"]).code, 0);
    std::fs::remove_file(f.root().join("NEW.md")).unwrap();
    let out = f.run(&["check"]);
    assert!(
        out.stdout.contains("NEW.md:1:1: error[stale-index]: deleted"),
        "{}",
        out.stdout
    );
}

#[test]
fn damaged_or_missing_index_fails() {
    let f = Fixture::committed("backlog-fixtures");
    let out = f.run(&["check"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("_index/meta.json:1:1: error[stale-index]: no index"),
        "{}",
        out.stdout
    );
    assert_eq!(f.run(&["index"]).code, 0);
    let edges = f.index().join("graph_edges.jsonl");
    let text = std::fs::read_to_string(&edges).unwrap();
    std::fs::write(&edges, &text[..text.len() / 2]).unwrap();
    let out = f.run(&["check"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("_index/graph_edges.jsonl:1:1: error[stale-index]"),
        "{}",
        out.stdout
    );
    // index repairs it even though no source changed.
    assert_eq!(f.run(&["index"]).code, 0);
    assert_eq!(f.run(&["check"]).code, 0);
}

#[test]
fn broken_graph_fails_with_compiler_style_diagnostics() {
    let f = Fixture::new("tests/fixtures/broken");
    assert_eq!(f.run(&["index"]).code, 0);
    let out = f.run(&["check"]);
    assert_eq!(out.code, 1);
    snap!("broken_check_stdout", out.stdout);
    assert!(out.stderr.contains("check FAILED: index is fresh;"), "{}", out.stderr);
    let v: CheckJson = serde_json::from_str(&f.run(&["check", "--format", "json"]).stdout).unwrap();
    assert!(!v.ok && v.fresh && v.errors > 0 && v.warnings > 0);
    let codes: std::collections::BTreeSet<&str> = v.diagnostics.iter().map(|d| d.code.as_str()).collect();
    for code in [
        "invalid-yaml",
        "duplicate-id",
        "dangling-reference",
        "parent-cycle",
        "id-mismatch",
        "broken-link",
    ] {
        assert!(codes.contains(code), "missing {code} in {codes:?}");
    }
}

#[test]
fn stale_check_reports_current_problems() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    std::fs::write(f.root().join("BAD.md"), "---\nid: X-1\nparent: NOPE-1\n---\n# x\n").unwrap();
    let out = f.run(&["check"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("BAD.md:3:1: error[dangling-reference]: `parent` refers to `NOPE-1`"),
        "{}",
        out.stdout
    );
}

/// Backlog hygiene: each rule finds its contradiction on the whole graph, `--strict`
/// fails on it, `[check.severity]` turns it off or makes it an error, and the hook's
/// `check --staged` (which judges a change) leaves it out.
#[test]
fn hygiene_rules_judge_the_whole_graph_and_follow_the_config() {
    let f = Fixture::new("backlog-fixtures");
    let root = f.root();
    std::fs::write(
        root.join("decisions/ADR-0090_old.md"),
        "---\nid: ADR-0090\nstatus: Superseded\n---\n# Old\n",
    )
    .unwrap();
    std::fs::write(
        root.join("decisions/ADR-0091_no.md"),
        "---\nid: ADR-0091\nstatus: Rejected\n---\n# No\n",
    )
    .unwrap();
    std::fs::write(
        root.join("items/task/0000/QRY-TSK-0090_wait.md"),
        "---\nid: QRY-TSK-0090\ntype: Task\nstate: Ready\ndepends_on: [ADR-0091]\n---\n# Wait\n",
    )
    .unwrap();
    assert_eq!(f.run(&["index"]).code, 0);
    let out = f.run(&["check", "--format", "json"]);
    assert_eq!(out.code, 0, "warnings only: {}", out.stdout);
    let v: CheckJson = serde_json::from_str(&out.stdout).unwrap();
    let got: Vec<(&str, u32, &str)> = v
        .diagnostics
        .iter()
        .map(|d| (d.path.as_str(), d.line, d.code.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("decisions/ADR-0090_old.md", 2, "superseded-without-successor"),
            (
                "items/feature/0000/QRY-FTR-0008_company-sso-login-with-oidc.md",
                2,
                "done-with-open-children"
            ),
            ("items/task/0000/QRY-TSK-0090_wait.md", 5, "depends-on-dropped"),
        ]
    );
    assert_eq!(f.run(&["check", "--strict"]).code, 1);
    std::fs::write(
        f.dir.path().join("mdgraph.toml"),
        "[check.severity]\ndone-with-open-children = \"off\"\ndepends-on-dropped = \"error\"\n",
    )
    .unwrap();
    assert!(f.run(&["index"]).code <= 1);
    let out = f.run(&["check"]);
    assert_eq!(out.code, 1, "depends-on-dropped is an error now: {}", out.stdout);
    assert!(!out.stdout.contains("done-with-open-children"), "{}", out.stdout);
    assert!(out.stdout.contains("error[depends-on-dropped]"), "{}", out.stdout);
}

/// The hygiene warnings of an unchanged index are judged once and kept in `.findings`:
/// the next `check` reads them back, and they follow an edit, a `[states]` change and a
/// damaged cache exactly as a fresh judgment does.
#[test]
fn hygiene_findings_are_kept_and_follow_every_change() {
    let f = Fixture::new("backlog-fixtures");
    let task = f.root().join("items/task/0000/QRY-TSK-0090_wait.md");
    std::fs::write(
        f.root().join("decisions/ADR-0091_no.md"),
        "---\nid: ADR-0091\nstatus: Rejected\n---\n# No\n",
    )
    .unwrap();
    std::fs::write(
        &task,
        "---\nid: QRY-TSK-0090\ntype: Task\nstate: Ready\ndepends_on: [ADR-0091]\n---\n# Wait\n",
    )
    .unwrap();
    let codes = |f: &Fixture| -> Vec<String> {
        let out = f.run(&["check", "--format", "json"]);
        let v: CheckJson = serde_json::from_str(&out.stdout).unwrap();
        v.diagnostics.iter().map(|d| format!("{}:{}", d.path, d.code)).collect()
    };
    let wait = "items/task/0000/QRY-TSK-0090_wait.md:depends-on-dropped";
    let sso = "items/feature/0000/QRY-FTR-0008_company-sso-login-with-oidc.md:done-with-open-children";
    assert_eq!(f.run(&["index"]).code, 0);
    wait_racy();
    let first = codes(&f);
    assert_eq!(first, [sso, wait]);
    let cache = f.index().join(".findings");
    assert!(cache.is_file(), "a settled index's findings are kept");
    assert_eq!(codes(&f), first, "read back");
    // An edit that ends the wait: the graph files are new, so the findings are judged again.
    edit_file(&task, &|s| s.replace("depends_on: [ADR-0091]\n", ""));
    assert_eq!(codes(&f), [sso]);
    // A [states] change (no part of the index) is a new key too.
    std::fs::write(f.dir.path().join("mdgraph.toml"), "[states]\nopen = [\"Done\"]\n").unwrap();
    assert_eq!(codes(&f), Vec::<String>::new(), "Done is an open state now");
    std::fs::remove_file(f.dir.path().join("mdgraph.toml")).unwrap();
    // A damaged cache is judged again.
    wait_racy();
    assert_eq!(codes(&f), [sso]);
    std::fs::write(&cache, "mdgraph-findings 1\ngarbage\n{not json\n").unwrap();
    assert_eq!(codes(&f), [sso]);
}

#[test]
fn strict_fails_on_warnings() {
    let f = Fixture::new("backlog-fixtures");
    std::fs::write(f.root().join("LINK.md"), "# Note\nSee [[does-not-exist]].\n").unwrap();
    assert_eq!(f.run(&["index"]).code, 0);
    let out = f.run(&["check"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout.contains("LINK.md:2:1: warning[broken-link]"),
        "{}",
        out.stdout
    );
    assert_eq!(f.run(&["check", "--strict"]).code, 1);
}

/// Set every file's mtime an hour back so the stat cache trusts them.
pub fn age_files(dir: &std::path::Path) {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            age_files(&p);
        } else {
            std::fs::File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
    }
}

#[test]
fn stat_cache_never_hides_an_edit() {
    let f = Fixture::committed("backlog-fixtures");
    age_files(&f.root());
    // Setting the mtime makes the ctime "now"; files changed within 2 s are never cached.
    wait_racy();
    assert_eq!(f.run(&["index"]).code, 0);
    let cache = std::fs::read_to_string(f.index().join(".stat-cache")).unwrap();
    assert!(cache.contains(" README.md\n"), "aged files are cached:\n{cache}");
    // The cache vouches for the whole tree, so check answers from stats alone.
    assert!(cache.starts_with("mdgraph-stat-cache 4 1 "), "{cache}");
    assert_eq!(f.run(&["check"]).code, 0);
    // A damaged index file.
    let edges = f.index().join("graph_edges.jsonl");
    let saved = std::fs::read(&edges).unwrap();
    std::fs::write(&edges, [saved.as_slice(), b"\n"].concat()).unwrap();
    let out = f.run(&["check"]);
    assert!(out.stdout.contains("not what the sources give"), "{}", out.stdout);
    std::fs::write(&edges, &saved).unwrap();
    assert_eq!(f.run(&["index"]).code, 0);
    let cache = std::fs::read_to_string(f.index().join(".stat-cache")).unwrap();
    assert!(cache.starts_with("mdgraph-stat-cache 4 1 "), "{cache}");
    // A new file in a folder the cache vouches for.
    std::fs::write(f.root().join("decisions/NOTE.md"), "# Note\n").unwrap();
    let out = f.run(&["check"]);
    assert!(
        out.stdout
            .contains("decisions/NOTE.md:1:1: error[stale-index]: new file"),
        "{}",
        out.stdout
    );
    std::fs::remove_file(f.root().join("decisions/NOTE.md")).unwrap();
    // Same size, same mtime, different bytes: the ctime gives it away.
    let readme = f.root().join("README.md");
    let text = std::fs::read_to_string(&readme).unwrap();
    let mtime = std::fs::metadata(&readme).unwrap().modified().unwrap();
    std::fs::write(&readme, text.replacen('Q', "X", 1)).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&readme)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let out = f.run(&["check"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("README.md:1:1: error[stale-index]"),
        "{}",
        out.stdout
    );
    // Deleting the cache changes nothing but speed.
    assert_eq!(f.run(&["index"]).code, 0);
    std::fs::remove_file(f.index().join(".stat-cache")).unwrap();
    assert_eq!(f.run(&["check"]).code, 0);
}

#[test]
fn closed_pipe_keeps_the_exit_code() {
    // Regression: `mdgraph check | head -1` exited 0 for a failing check.
    use std::process::{Command, Stdio};
    let f = Fixture::new("tests/fixtures/broken");
    assert_eq!(f.run(&["index"]).code, 0);
    let mut child = Command::new(BIN)
        .args(["--root", "backlog", "--index-dir", "_index", "check"])
        .current_dir(f.dir.path())
        .env_clear()
        .env(RACY_ENV, RACY_MS.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

#[test]
fn quiet_check_prints_errors_only() {
    let f = Fixture::new("tests/fixtures/broken");
    assert_eq!(f.run(&["index"]).code, 0);
    let loud = f.run(&["check"]);
    assert!(
        loud.stdout.contains("warning["),
        "the fixture has warnings: {}",
        loud.stdout
    );
    let quiet = f.run(&["--quiet", "check"]);
    assert_eq!(quiet.code, loud.code);
    assert!(
        quiet.stdout.contains("error[") && !quiet.stdout.contains("warning["),
        "{}",
        quiet.stdout
    );
    assert!(quiet.stderr.is_empty(), "{}", quiet.stderr);
}

/// `check` refreshes a local index, and its SQLite mirror with it: the next query does
/// not spend a rebuild on it.
#[test]
fn check_leaves_the_mirror_fresh() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let cfg = f.config();
    let fresh = || {
        let meta = mdgraph::internal::sidecar::read_meta(&cfg.index_dir).unwrap();
        mdgraph::internal::store::is_fresh(
            &cfg.index_dir,
            &meta.outputs,
            &mdgraph::internal::store::mirror_spec(&cfg),
        )
    };
    assert!(fresh());
    let task = f
        .root()
        .join("items/task/0000/QRY-TSK-0007_implement-resumable-photo-upload-client.md");
    edit_file(&task, &|t| format!("{t}\nA new line about resumable uploads.\n"));
    assert_eq!(f.run(&["check"]).code, 0);
    assert!(fresh(), "check refreshed the index but left the mirror stale");
}

/// A `meta.json` the merge driver marked unproven fails `check` naming the fix, and a
/// plain `mdgraph index` clears it.
#[test]
fn an_unproven_merge_says_stale_until_indexed() {
    let f = Fixture::committed("backlog-fixtures");
    assert_eq!(f.run(&["index"]).code, 0);
    let meta = f.index().join("meta.json");
    // As the driver writes it: in field order, before the file map.
    let text = std::fs::read_to_string(&meta).unwrap();
    let note =
        "\n  \"unproven\": \"merged by the merge driver, which cannot prove graph_nodes.jsonl exact\",\n  \"files\": {";
    std::fs::write(&meta, text.replacen("\n  \"files\": {", note, 1)).unwrap();
    let out = f.run(&["check"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("cannot prove graph_nodes.jsonl exact; run `mdgraph index`"),
        "{}",
        out.stdout
    );
    assert_eq!(f.run(&["index"]).code, 0);
    assert_eq!(f.run(&["check"]).code, 0);
    assert!(!std::fs::read_to_string(&meta).unwrap().contains("unproven"));
}
