//! `mdgraph baseline` and the check against it: known errors pass, new ones fail naming
//! them, fixed ones are reported so the file can shrink, line moves change nothing; and
//! `[check]` severities and ignored paths.

use crate::common::*;
use crate::snap;
use serde::Deserialize;

const FEATURE: &str = "items/feature/0000/BRK-FTR-0001_export.md";

/// `check --format json` with a baseline, read back strictly.
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
    diagnostics: Vec<serde_json::Value>,
}

/// The broken fixture, indexed, with its baseline recorded.
fn baselined() -> Fixture {
    let f = Fixture::committed("tests/fixtures/broken");
    assert_eq!(f.run(&["index"]).code, 0);
    let out = f.run(&["baseline"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stderr,
        "wrote mdgraph-baseline.json: 14 known (7 errors, 7 warnings) in 8 files; 14 added, 0 removed\n"
    );
    f
}

fn edit(f: &Fixture, rel: &str, from: &str, to: &str) {
    let p = f.root().join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{rel} lacks {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

fn check_json(f: &Fixture) -> CheckJson {
    let out = f.run(&["check", "--format", "json"]);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

#[test]
fn baseline_then_check_passes_with_every_error_known() {
    let f = baselined();
    let text = std::fs::read_to_string(f.dir.path().join("mdgraph-baseline.json")).unwrap();
    snap!("broken_baseline", &text);
    assert!(!text.contains("\"line\""), "no line numbers in the keys:\n{text}");

    let out = f.run(&["check"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(out.stdout, "", "known diagnostics are not printed");
    assert_eq!(
        out.stderr,
        "check ok: index is fresh; 7 errors, 7 warnings; 14 known, 0 new (baseline mdgraph-baseline.json)\n"
    );
    let v = check_json(&f);
    assert!(v.ok && v.fresh, "{v:?}");
    assert_eq!(v.schema, "mdgraph.check/2");
    assert_eq!((v.errors, v.warnings, v.known, v.new, v.fixed), (7, 7, 14, 0, 0));
    assert_eq!(v.baseline.as_deref(), Some("mdgraph-baseline.json"));
    assert!(v.diagnostics.is_empty());
    // `--verbose` shows the known ones; `--no-baseline` judges them all again.
    let out = f.run(&["-v", "check"]);
    assert_eq!(out.stdout.lines().count(), 14, "{}", out.stdout);
    assert!(out.stdout.contains("(known: in the baseline)"), "{}", out.stdout);
    let out = f.run(&["check", "--no-baseline"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .starts_with("check FAILED: index is fresh; 7 errors, 7 warnings\n"),
        "{}",
        out.stderr
    );

    // Running it again changes nothing, byte for byte.
    let out = f.run(&["baseline"]);
    assert_eq!(
        out.stderr,
        "mdgraph-baseline.json is up to date: 14 known (7 errors, 7 warnings) in 8 files\n"
    );
    assert_eq!(
        std::fs::read_to_string(f.dir.path().join("mdgraph-baseline.json")).unwrap(),
        text
    );
}

#[test]
fn a_new_dangling_reference_fails_naming_it() {
    let f = baselined();
    edit(&f, FEATURE, "decisions: [ADR-0001]", "decisions: [ADR-0001, ADR-0404]");
    // Stale: the current problems are judged against the baseline too.
    let out = f.run(&["check"]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("error[stale-index]"), "{}", out.stdout);
    assert!(
        out.stdout.contains("`decisions` refers to `ADR-0404`"),
        "{}",
        out.stdout
    );
    // `index` lists only what the baseline does not cover.
    let out = f.run(&["index"]);
    assert_eq!(out.code, 0);
    let listed: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("error[") || l.contains("warning["))
        .collect();
    assert_eq!(listed.len(), 1, "{}", out.stderr);
    assert!(listed[0].contains("`ADR-0404`"), "{}", out.stderr);
    assert!(
        out.stderr.contains("; 14 known (baseline mdgraph-baseline.json)\n"),
        "{}",
        out.stderr
    );
    let out = f.run(&["check"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!("{FEATURE}:12:1: error[dangling-reference]: `decisions` refers to `ADR-0404`, no file has that id\n")
    );
    assert!(
        out.stderr
            .starts_with("check FAILED: index is fresh; 8 errors, 7 warnings; 14 known, 1 new"),
        "{}",
        out.stderr
    );
    let v = check_json(&f);
    assert!(!v.ok);
    assert_eq!((v.known, v.new, v.fixed), (14, 1, 0));
    // The same target in a second place is new too: counts are per key.
    edit(
        &f,
        FEATURE,
        "parent: BRK-EPIC-0099",
        "parent: BRK-EPIC-0099\nrequires: [BRK-EPIC-0099]",
    );
    assert_eq!(f.run(&["index"]).code, 0);
    let v = check_json(&f);
    assert_eq!((v.known, v.new), (14, 2), "{v:?}");
}

#[test]
fn fixing_a_known_error_passes_and_says_the_baseline_can_shrink() {
    let f = baselined();
    edit(&f, FEATURE, "parent: BRK-EPIC-0099\n", "");
    assert_eq!(f.run(&["index"]).code, 0);
    let out = f.run(&["check"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(
        out.stderr,
        "check ok: index is fresh; 6 errors, 7 warnings; 13 known, 0 new (baseline mdgraph-baseline.json)\n\
         1 fixed since the baseline: run `mdgraph baseline` to shrink it\n"
    );
    let out = f.run(&["-v", "check"]);
    assert!(
        out.stderr
            .contains(&format!("fixed: {FEATURE}: dangling-reference `BRK-EPIC-0099` (×1)")),
        "{}",
        out.stderr
    );
    assert_eq!(check_json(&f).fixed, 1);

    // With a new error as well, `--prune` shrinks the baseline without recording it.
    edit(&f, FEATURE, "decisions: [ADR-0001]", "decisions: [ADR-0404]");
    assert_eq!(f.run(&["index"]).code, 0);
    let out = f.run(&["check"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("run `mdgraph baseline --prune`"), "{}", out.stderr);
    let out = f.run(&["baseline", "--prune"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("; 0 added, 1 removed\n"), "{}", out.stderr);
    assert!(
        out.stderr.contains("1 new diagnostics left out (--prune)"),
        "{}",
        out.stderr
    );
    let v = check_json(&f);
    assert_eq!((v.ok, v.known, v.new, v.fixed), (false, 13, 1, 0), "{v:?}");
    // A plain run records it: growing the baseline is always this explicit step.
    let out = f.run(&["baseline"]);
    assert!(out.stderr.contains("; 1 added, 0 removed\n"), "{}", out.stderr);
    assert_eq!(f.run(&["check"]).code, 0);
}

#[test]
fn moving_lines_creates_no_new_errors() {
    let f = baselined();
    let before = f.run(&["check", "--no-baseline"]).stdout;
    // A comment line in the frontmatter above the dangling parent, blank lines above the
    // broken links, and an unrelated edit to a file with errors.
    edit(&f, FEATURE, "type: Feature\n", "type: Feature\n# owner: reports team\n");
    edit(&f, FEATURE, "# Context\n", "\n\n\n# Context\n\nSome new context.\n");
    edit(
        &f,
        "items/task/0000/BRK-TSK-0002_second-copy.md",
        "---\n",
        "---\n# moved down\n",
    );
    assert_eq!(f.run(&["index"]).code, 0);
    let after = f.run(&["check", "--no-baseline"]).stdout;
    assert_ne!(before, after, "the lines did move");
    assert!(
        after.contains(&format!("{FEATURE}:8:1: error[dangling-reference]")),
        "{after}"
    );
    let out = f.run(&["check"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("14 known, 0 new"), "{}", out.stderr);
    assert!(!out.stderr.contains("fixed"), "{}", out.stderr);
}

#[test]
fn a_damaged_baseline_is_an_error_naming_the_file() {
    let f = baselined();
    std::fs::write(
        f.dir.path().join("mdgraph-baseline.json"),
        "{\"version\": 1,\n \"entries\": [\n",
    )
    .unwrap();
    let out = f.run(&["check"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("mdgraph-baseline.json:3: bad baseline"),
        "{}",
        out.stderr
    );
}

/// A config beside `backlog/` with `extra` appended.
fn with_config(f: &Fixture, extra: &str) {
    std::fs::write(
        f.dir.path().join("mdgraph.toml"),
        format!("root = \"backlog\"\nindex_dir = \"_index\"\ncommit_index = true\n{extra}"),
    )
    .unwrap();
}

#[test]
fn check_severity_and_ignore_shape_what_is_reported() {
    let f = Fixture::new("tests/fixtures/broken");
    with_config(
        &f,
        "\n[check]\nseverity = { \"broken-link\" = \"off\", \"duplicate-id\" = \"warning\" }\n\
         ignore = [\"items/task/0000/BRK-TSK-0001_*\", \"decisions/**\"]\n",
    );
    let out = run_in(f.dir.path(), &["index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("broken-link"), "{}", out.stderr);
    let out = run_in(f.dir.path(), &["check", "--format", "json"]);
    let v: CheckJson = serde_json::from_str(&out.stdout).unwrap();
    let codes: Vec<(&str, &str, &str)> = v
        .diagnostics
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap(),
                d["code"].as_str().unwrap(),
                d["severity"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(!codes.iter().any(|c| c.1 == "broken-link"), "{codes:?}");
    assert!(!codes.iter().any(|c| c.0.contains("BRK-TSK-0001")), "{codes:?}");
    let dups: Vec<_> = codes.iter().filter(|c| c.1 == "duplicate-id").collect();
    assert_eq!(dups.len(), 2, "{codes:?}");
    assert!(dups.iter().all(|c| c.2 == "warning"), "{codes:?}");
    // 7 errors: minus invalid-yaml (ignored path) and the two duplicate ids (warnings).
    assert_eq!((v.errors, v.warnings), (4, 7), "{codes:?}");
    assert_eq!(v.baseline, None);
    assert_eq!((v.known, v.new), (0, 11));

    // Changing `[check]` changes what the index records: it is stale until reindexed.
    with_config(&f, "\n[check]\nseverity = { \"broken-link\" = \"error\" }\n");
    let out = run_in(f.dir.path(), &["check"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("mdgraph.toml:1:1: error[stale-index]: configuration changed"),
        "{}",
        out.stdout
    );
    assert_eq!(run_in(f.dir.path(), &["index"]).code, 0);
    let out = run_in(f.dir.path(), &["check"]);
    assert!(out.stdout.contains("error[broken-link]"), "{}", out.stdout);

    // `[check] baseline` moves the file, relative to the config.
    with_config(&f, "\n[check]\nbaseline = \"ci/known-errors.json\"\n");
    std::fs::create_dir_all(f.dir.path().join("ci")).unwrap();
    assert_eq!(run_in(f.dir.path(), &["index"]).code, 0);
    let out = run_in(f.dir.path(), &["baseline"]);
    assert!(
        out.stderr.starts_with("wrote ci/known-errors.json: 14 known"),
        "{}",
        out.stderr
    );
    assert_eq!(run_in(f.dir.path(), &["check"]).code, 0);
}

#[test]
fn bad_check_values_are_config_errors_naming_the_key() {
    let f = Fixture::new("tests/fixtures/broken");
    let cases = [
        (
            "[check]\nseverity = { \"broken-link\" = \"fatal\" }\n",
            "mdgraph.toml:5: config error: check.severity.\"broken-link\": `fatal` is not a severity (use error, warning or off)",
        ),
        (
            "[check]\nseverity = { \"broken-lnk\" = \"off\" }\n",
            "mdgraph.toml:5: config error: check.severity.\"broken-lnk\": unknown diagnostic code (known: file-too-large,",
        ),
        (
            "[check]\nseverity = { \"stale-index\" = \"off\" }\n",
            "check.severity.\"stale-index\": a stale index always fails the check",
        ),
        (
            "[check]\nignore = [\"a/{b\"]\n",
            "mdgraph.toml:5: config error: check.ignore: bad glob `a/{b`",
        ),
        (
            "[check]\nsevere = {}\n",
            "mdgraph.toml:5: config error: unknown field `severe`",
        ),
    ];
    for (extra, want) in cases {
        with_config(&f, extra);
        let out = run_in(f.dir.path(), &["check"]);
        assert_eq!(out.code, 2, "{extra}");
        assert!(out.stderr.contains(want), "{extra}\nwant: {want}\ngot: {}", out.stderr);
    }
}
