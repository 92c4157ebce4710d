//! `mdgraph init`: each layout is recognised in a small backlog built here, the written
//! config loads with the config loader and `mdgraph index` then works; an existing config
//! is never overwritten. On the real corpora (when present) the written config equals the
//! hand-written example configs.

use crate::common::*;
use mdgraph::{Config, Overrides};
use std::path::Path;

fn write(base: &Path, rel: &str, text: &str) {
    let p = base.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// `mdgraph init` in `dir`, then load the config it wrote.
fn init_here(dir: &Path) -> (Output, Config) {
    let out = run_in(dir, &["init"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let cfg = Config::load(dir, &Overrides::default()).unwrap_or_else(|e| {
        panic!(
            "{e}\n{}",
            std::fs::read_to_string(dir.join("mdgraph.toml")).unwrap_or_default()
        )
    });
    (out, cfg)
}

fn index_clean(dir: &Path) -> Output {
    let out = run_in(dir, &["index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let check = run_in(dir, &["check", "--strict"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    out
}

fn item(id: &str, ty: &str, state: &str, parent: &str) -> String {
    format!(
        "---\nid: {id}\ntype: {ty}\ntitle: \"{id} title\"\nstate: {state}\nparent: {parent}\n---\n\n# Context\n\nAbout {id}.\n"
    )
}

#[test]
fn init_detects_a_kano_backlog_in_a_subfolder() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("docs/backlog");
    write(
        &b,
        "items/epic/0000/DEMO-EPIC-0001_sync.md",
        &item("DEMO-EPIC-0001", "Epic", "InProgress", "null"),
    );
    // A type and a state outside the defaults: init adds them, so no warnings.
    write(
        &b,
        "items/spike/0000/DEMO-SPK-0001_crdt.md",
        &item("DEMO-SPK-0001", "Spike", "Icebox", "DEMO-EPIC-0001"),
    );
    write(
        &b,
        "decisions/ADR-0001_use-crdts.md",
        "---\nid: ADR-0001\ntitle: Use CRDTs\nstatus: Accepted\nrelated_items: [DEMO-SPK-0001]\n---\n\n# Decision\n\nCRDTs.\n",
    );
    write(dir.path(), "README.md", "# Project\n");

    let (out, cfg) = init_here(dir.path());
    assert_eq!(
        out.stderr,
        "detected a kano-style backlog in docs/backlog (2 work items under items/, 1 ADR under decisions/)\n\
         wrote mdgraph.toml; next: `mdgraph index`\n"
    );
    assert_eq!(cfg.root, b);
    assert_eq!(cfg.index_dir, dir.path().join("_index"));
    assert!(cfg.settings.kinds.item_types.iter().any(|t| t == "Spike"));
    assert!(cfg.settings.kinds.item_states.iter().any(|t| t == "Icebox"));
    let text = std::fs::read_to_string(dir.path().join("mdgraph.toml")).unwrap();
    assert!(
        text.starts_with("# mdgraph configuration, written by `mdgraph init`."),
        "{text}"
    );

    let out = index_clean(dir.path());
    assert!(out.stderr.contains("3 documents"), "{}", out.stderr);
    assert!(out.stderr.contains("0 errors, 0 warnings"), "{}", out.stderr);
    let edges = std::fs::read_to_string(dir.path().join("_index/graph_edges.jsonl")).unwrap();
    assert!(edges.contains(r#""source":"DEMO-SPK-0001","target":"DEMO-EPIC-0001","type":"parent""#));
}

#[test]
fn init_detects_backlog_md_prefix_and_statuses() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("backlog");
    write(
        &b,
        "config.yml",
        "project_name: \"Demo\"\nstatuses: [\"To Do\", \"Doing\", \"Done\"]\ntask_prefix: \"back\"\n",
    );
    write(
        &b,
        "tasks/back-1 - First.md",
        "---\nid: BACK-1\ntitle: First\nstatus: Doing\n---\n\n## Description\n\nOne.\n",
    );
    // The older prefix, as Backlog.md's own backlog still writes it.
    write(
        &b,
        "completed/back-2 - Second.md",
        "---\nid: BACK-2\ntitle: Second\nstatus: Done\ndependencies: [task-1]\nparent_task_id: task-1\n---\n\n## Description\n\nTwo, after task-1.\n",
    );

    let (out, cfg) = init_here(dir.path());
    assert!(
        out.stderr.starts_with(
            "detected a Backlog.md backlog in backlog (2 Markdown files; task prefix `back`; statuses To Do, Doing, Done)\n"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(cfg.root, b);
    assert_eq!(
        cfg.settings.ids.prefix_aliases.get("task").map(String::as_str),
        Some("back")
    );
    assert_eq!(cfg.settings.kinds.item_states, ["To Do", "Doing", "Done"]);

    index_clean(dir.path());
    let edges = std::fs::read_to_string(dir.path().join("_index/graph_edges.jsonl")).unwrap();
    assert!(
        edges.contains(r#""source":"BACK-2","target":"BACK-1","type":"depends_on""#),
        "{edges}"
    );
    assert!(
        edges.contains(r#""source":"BACK-2","target":"BACK-1","type":"parent""#),
        "{edges}"
    );
}

#[test]
fn init_detects_eip_style_ids_and_moved_stubs() {
    let dir = tempfile::tempdir().unwrap();
    let eip = |n: u32, extra: &str| {
        format!("---\neip: {n}\ntitle: Proposal {n}\nstatus: Final\n{extra}---\n\n## Abstract\n\nProposal {n}.\n")
    };
    write(dir.path(), "EIPS/eip-1.md", &eip(1, ""));
    write(dir.path(), "EIPS/eip-2.md", &eip(2, "requires: 1\n"));
    write(
        dir.path(),
        "EIPS/eip-3.md",
        "---\neip: 3\ncategory: ERC\nstatus: Moved\n---\n\nThis file was moved.\n",
    );
    write(dir.path(), "ERCS/erc-3.md", &eip(3, "requires: 1, 2\n"));

    let (out, cfg) = init_here(dir.path());
    assert!(
        out.stderr.starts_with(
            "detected EIP-style documents in . (4 with an `eip:` id, 1 `status: Moved` stub, of 4 Markdown files)\n"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(cfg.settings.ids.keys, ["eip"]);
    assert_eq!(cfg.settings.ids.yield_states, ["Moved"]);
    assert_eq!(cfg.settings.fields.state, ["status"]);

    // The stub steps aside: no duplicate id, and `requires` resolves to the real ERC.
    index_clean(dir.path());
    let edges = std::fs::read_to_string(dir.path().join("_index/graph_edges.jsonl")).unwrap();
    assert_eq!(edges.matches(r#""type":"depends_on""#).count(), 3, "{edges}");
}

#[test]
fn init_writes_a_generic_config_for_other_folders_and_honours_root() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "notes/notes/a.md", "# A\n\nSee [b](b.md).\n");
    write(dir.path(), "notes/notes/b.md", "---\ntitle: B\n---\n\nB.\n");
    let out = run_in(dir.path(), &["--root", "notes", "init"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .starts_with("detected no known layout in notes (2 Markdown files): wrote a generic configuration\n"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("wrote notes/mdgraph.toml; next: `mdgraph --config notes/mdgraph.toml index`")
    );
    let notes = dir.path().join("notes");
    let cfg = Config::load(&notes, &Overrides::default()).unwrap();
    assert_eq!(cfg.root, notes);
    assert_eq!(cfg.settings, mdgraph::Settings::default());
    index_clean(&notes);
}

#[test]
fn init_never_overwrites_a_config() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mdgraph.toml"), "root = \"mine\"\n").unwrap();
    let out = run_in(dir.path(), &["init"]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr,
        "mdgraph: error: mdgraph.toml: a configuration already exists; edit it, or remove it and run `mdgraph init` again\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mdgraph.toml")).unwrap(),
        "root = \"mine\"\n"
    );
    let out = run_in(dir.path(), &["--root", "nowhere", "init"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
}

/// On the real corpora, init (writing its config elsewhere with `--config`) gives the
/// index settings of the example configs, which the corpora tests check end to end.
#[test]
fn init_on_the_real_corpora_matches_the_example_configs() {
    for (corpus, example, detected) in [
        ("backlog-md", "backlog-md.toml", "a Backlog.md backlog"),
        ("eips", "eips.toml", "EIP-style documents"),
    ] {
        let root = repo().join("../shared/corpora").join(corpus);
        if !root.is_dir() {
            eprintln!("skipping {corpus}: {} not found", root.display());
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let out = run_in(
            dir.path(),
            &["--root", root.to_str().unwrap(), "--config", "cfg/mdgraph.toml", "init"],
        );
        assert_eq!(out.code, 0, "{corpus}: {}", out.stderr);
        assert!(
            out.stderr.starts_with(&format!("detected {detected}")),
            "{}",
            out.stderr
        );
        let ours = Config::load(
            dir.path(),
            &Overrides {
                config: Some("cfg/mdgraph.toml".into()),
                ..Default::default()
            },
        )
        .unwrap();
        let example = Config::load(
            dir.path(),
            &Overrides {
                config: Some(repo().join("examples").join(example)),
                ..Default::default()
            },
        )
        .unwrap();
        // Where each root sits in its repository is not configuration.
        let (mut ours_s, mut example_s) = (ours.settings.clone(), example.settings.clone());
        ours_s.repo_prefix.clear();
        example_s.repo_prefix.clear();
        assert_eq!(ours_s, example_s, "{corpus}");
        assert_eq!(ours_s.digest(), example_s.digest());
        let expected_root = if corpus == "backlog-md" {
            root.join("backlog")
        } else {
            root.clone()
        };
        assert_eq!(ours.root.canonicalize().unwrap(), expected_root.canonicalize().unwrap());
    }
}

/// More work items than the detection samples: every one is counted (it said 2000 for
/// 10,000).
#[test]
fn init_counts_every_work_item() {
    let dir = tempfile::tempdir().unwrap();
    for i in 1..=2100 {
        let id = format!("BIG-TSK-{i:04}");
        write(
            dir.path(),
            &format!("items/task/{}/{id}.md", i / 500),
            &item(&id, "Task", "Open", "null"),
        );
    }
    let (out, _) = init_here(dir.path());
    assert!(out.stderr.contains("(2100 work items under items/"), "{}", out.stderr);
}
