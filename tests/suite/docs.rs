//! The docs stay true: the library example quoted in the README is the compiled one, and
//! `.pre-commit-hooks.yaml` declares the hooks docs/git.md describes, running real commands.

use crate::common::*;
use yaml_rust2::YamlLoader;

#[test]
fn readme_quotes_the_compiled_library_example() {
    let example = std::fs::read_to_string(repo().join("examples/library.rs")).unwrap();
    let start = example.find("// README:start\n").unwrap() + "// README:start\n".len();
    let end = example.find("    // README:end").unwrap();
    let body: Vec<&str> = example[start..end]
        .lines()
        .map(|l| l.strip_prefix("    ").unwrap_or(l))
        .collect();
    let quoted = format!("```rust\n{}\n```", body.join("\n").trim_end());
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(
        readme.contains(&quoted),
        "README.md does not quote examples/library.rs:\n{quoted}"
    );
}

#[test]
fn pre_commit_hooks_manifest_declares_both_hooks() {
    let text = std::fs::read_to_string(repo().join(".pre-commit-hooks.yaml")).unwrap();
    let docs = YamlLoader::load_from_str(&text).unwrap();
    let hooks = docs[0].as_vec().expect("a list of hooks");
    let ids: Vec<&str> = hooks.iter().filter_map(|h| h["id"].as_str()).collect();
    assert_eq!(ids, ["mdgraph-check", "mdgraph-index"]);
    let dir = tempfile::tempdir().unwrap();
    for h in hooks {
        assert_eq!(h["language"].as_str(), Some("rust"));
        assert_eq!(h["pass_filenames"].as_bool(), Some(false));
        // Every commit is judged: one that only deletes an item, or changes the baseline or
        // an ignore file, matches no `files` filter (pre-commit filters no deleted file).
        assert_eq!(h["always_run"].as_bool(), Some(true));
        // The entry is a real command line of this binary.
        let entry = h["entry"].as_str().unwrap();
        let args: Vec<&str> = entry.split_whitespace().collect();
        assert_eq!(args[0], "mdgraph");
        let mut help = args[1..].to_vec();
        help.push("--help");
        let out = run_in(dir.path(), &help);
        assert_eq!(out.code, 0, "{entry}: {}", out.stderr);
    }
}

/// The contributors' commit-msg hook (CONTRIBUTING.md, "Commits") takes `area: summary`
/// under 72 characters and refuses the rest, naming why.
#[test]
fn commit_msg_hook_checks_the_subject() {
    let dir = tempfile::tempdir().unwrap();
    let msg = dir.path().join("COMMIT_EDITMSG");
    let judge = |text: &str| -> (bool, String) {
        std::fs::write(&msg, text).unwrap();
        let out = std::process::Command::new("sh")
            .arg(repo().join("scripts/commit-msg"))
            .arg(&msg)
            .output()
            .unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    for good in [
        "walk: one set of walk rules\n\nThe body, with figures.\n",
        "store, check: keep the findings\n",
        "# a comment git strips\nci: time every step\n",
        "Merge branch 'openspec'\n",
    ] {
        assert_eq!(judge(good), (true, String::new()), "{good:?}");
    }
    for (bad, why) in [
        ("Walk rules in one place\n", "not 'area: summary'"),
        (&format!("ci: {}\n", "x".repeat(70)), "74 characters"),
        ("docs: a subject\nrunning on\n", "not blank"),
    ] {
        let (ok, stderr) = judge(bad);
        assert!(!ok && stderr.contains(why), "{bad:?}: {stderr}");
    }
}
