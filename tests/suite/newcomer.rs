//! A newcomer's answers on a Backlog.md board (tests/fixtures/backlog-md): ids typed
//! as people type them, never a document of another id family; paths as pasted from
//! the repository root or the backlog root; `ID@fragment` for duplicated ids.

use crate::common::*;

fn board() -> Fixture {
    let f = Fixture::new("tests/fixtures/backlog-md");
    let out = f.run(&["index", "-q"]);
    assert!(out.code <= 1, "{}", out.stderr);
    f
}

/// The id of the document `show` prints (its first word), or the failure.
fn shown(f: &Fixture, q: &str) -> Result<String, (i32, String)> {
    let out = f.run(&["show", q]);
    match out.code {
        0 => Ok(out.stdout.split_whitespace().next().unwrap_or_default().to_string()),
        code => {
            assert!(
                out.stdout.is_empty(),
                "{q}: printed a document on failure:\n{}",
                out.stdout
            );
            Err((code, out.stderr))
        }
    }
}

#[test]
fn a_typed_id_of_another_family_names_nothing() {
    let f = board();
    for q in ["epic-6", "foo-11", "EPIC 6", "decision-6"] {
        let (code, err) = shown(&f, q).unwrap_err();
        assert_eq!(code, 1, "{q}: {err}");
        assert!(err.contains(&format!("no node matches `{q}`")), "{q}: {err}");
        assert!(err.contains("closest: "), "{q}: {err}");
    }
    // The closest real ids are named: the same number in the other family.
    let (_, err) = shown(&f, "epic-6").unwrap_err();
    assert!(err.contains("task-6"), "{err}");
}

#[test]
fn ids_that_exist_resolve_as_people_type_them() {
    let f = board();
    for q in [
        "task-6",
        "TASK-6",
        "task 6",
        "Task_6",
        "6",
        "task-06",
        "task-11.1",
        "TASK 11.1",
        "11.1",
    ] {
        let id = shown(&f, q).unwrap_or_else(|e| panic!("{q}: {e:?}"));
        assert!(
            id.eq_ignore_ascii_case(if q.contains("11") { "task-11.1" } else { "task-6" }),
            "{q}: {id}"
        );
    }
    // A bare number two files share is a choice, not a guess.
    let (code, err) = shown(&f, "12").unwrap_err();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("matches several nodes"), "{err}");
}

#[test]
fn paths_as_people_paste_them() {
    let f = board();
    for q in [
        "tasks/task-6 - Add-C-language-support.md",
        "backlog/tasks/task-6 - Add-C-language-support.md",
        "./backlog/tasks/task-6 - Add-C-language-support.md",
        "task-6 - Add-C-language-support.md",
    ] {
        assert_eq!(shown(&f, q).unwrap_or_else(|e| panic!("{q}: {e:?}")), "task-6", "{q}");
    }
    // Not a suffix at a folder boundary: nothing.
    assert!(shown(&f, "ks/task-6 - Add-C-language-support.md").is_err());
}

#[test]
fn a_duplicated_id_is_chosen_by_any_fragment_of_its_path() {
    let f = board();
    let (_, err) = shown(&f, "task-12").unwrap_err();
    assert!(err.contains("task-12@archive/"), "{err}");
    let archived = shown(&f, "task-12@archive").unwrap();
    assert!(archived.starts_with("task-12@archive/"), "{archived}");
    let live = shown(&f, "task-12@Incremental-reparse").unwrap();
    assert!(live.starts_with("task-12@tasks/"), "{live}");
    let (code, err) = shown(&f, "task-12@nowhere").unwrap_err();
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("closest: task-12@"), "{err}");
}

/// Copy a fixture to a temp dir, `init` and `index` there; the folder.
fn init_and_index(fixture: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join(fixture), dir.path());
    let init = run_in(dir.path(), &["init"]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    assert!(init.stderr.contains("decision records"), "{}", init.stderr);
    let index = run_in(dir.path(), &["index", "-q"]);
    assert_eq!(index.code, 0, "{}", index.stderr);
    dir
}

type Triple = (String, String, String);

/// (id, kind, state) of every document, and (source, type, target) of every edge
/// between documents other than body links.
fn graph(dir: &std::path::Path) -> (Vec<Triple>, Vec<Triple>) {
    let read = |name: &str| -> Vec<serde_json::Value> {
        std::fs::read_to_string(dir.join("_index").join(name))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let s = |v: &serde_json::Value| v.as_str().unwrap_or("-").to_string();
    let nodes = read("graph_nodes.jsonl")
        .iter()
        .filter(|n| n["kind"] != "chunk")
        .map(|n| (s(&n["id"]), s(&n["kind"]), s(&n["state"])))
        .collect();
    let edges = read("graph_edges.jsonl")
        .iter()
        .filter(|e| !["section_of", "links_to", "mentions"].contains(&e["type"].as_str().unwrap()))
        .map(|e| (s(&e["source"]), s(&e["type"]), s(&e["target"])))
        .collect();
    (nodes, edges)
}

fn triples(xs: &[(&str, &str, &str)]) -> Vec<Triple> {
    xs.iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

#[test]
fn adr_tools_records_are_typed_with_their_status_and_links() {
    let dir = init_and_index("tests/fixtures/adr-tools");
    let (nodes, edges) = graph(dir.path());
    assert_eq!(
        nodes,
        triples(&[
            ("ADR-0001", "adr", "Accepted"),
            ("ADR-0002", "adr", "Superseded"),
            ("ADR-0003", "adr", "Accepted"),
            ("ADR-0004", "adr", "Accepted"),
            ("README", "doc", "-"),
        ])
    );
    assert_eq!(
        edges,
        triples(&[
            ("ADR-0002", "superseded_by", "ADR-0003"),
            ("ADR-0003", "relates", "ADR-0004"),
            ("ADR-0003", "supersedes", "ADR-0002"),
            ("ADR-0004", "relates", "ADR-0003"),
        ])
    );
    // Typed as people say them.
    let show = run_in(dir.path(), &["show", "adr 2"]);
    assert!(show.stdout.starts_with("ADR-0002"), "{}", show.stderr);
}

#[test]
fn madr_status_lines_are_read() {
    let dir = init_and_index("tests/fixtures/madr");
    let (nodes, edges) = graph(dir.path());
    assert_eq!(
        nodes,
        triples(&[
            ("ADR-0001", "adr", "Accepted"),
            ("ADR-0002", "adr", "Superseded"),
            ("ADR-0003", "adr", "Proposed"),
        ])
    );
    // The link on the status line is typed; the one in the prose stays a body link.
    assert_eq!(edges, triples(&[("ADR-0002", "superseded_by", "ADR-0003")]));
}

#[test]
fn packs_carry_no_section_markers() {
    let f = board();
    let out = f.run(&["pack", "C language support lexer", "--budget", "4000"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("Parse C sources with the new lexer"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("<!--"), "{}", out.stdout);
    assert!(!out.stdout.contains("SECTION:"), "{}", out.stdout);
}

/// The board with the config `init` writes for it (beside `backlog/`), indexed.
fn initialized_board() -> Fixture {
    let f = Fixture::new("tests/fixtures/backlog-md");
    let init = run_in(f.dir.path(), &["init"]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    assert!(init.stderr.contains("Backlog.md"), "{}", init.stderr);
    let index = run_in(f.dir.path(), &["index", "-q"]);
    assert!(index.code <= 1, "{}", index.stderr);
    f
}

#[test]
fn backlog_md_tasks_are_typed_and_unknown_filters_are_usage_errors() {
    let f = initialized_board();
    let list = |args: &[&str]| {
        let mut full = vec!["list"];
        full.extend_from_slice(args);
        run_in(f.dir.path(), &full)
    };
    let tasks = list(&["--type", "Task"]);
    assert_eq!(tasks.code, 0, "{}", tasks.stderr);
    let ids: Vec<&str> = tasks
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for id in ["task-6", "task-11", "task-11.1", "task-3", "draft-1"] {
        assert!(ids.contains(&id), "{id} not a Task:\n{}", tasks.stdout);
    }
    assert!(
        !ids.iter().any(|i| i.starts_with("doc-") || i.starts_with("decision-")),
        "{}",
        tasks.stdout
    );
    // A task written without frontmatter: typed by its folder, its state from the body.
    let done = list(&["--state", "done", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&done.stdout).unwrap();
    let t20 = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == "task-20")
        .cloned();
    let t20 = t20.unwrap_or_else(|| panic!("{}", done.stdout));
    assert_eq!(
        (t20["type"].as_str(), t20["state"].as_str()),
        (Some("Task"), Some("Completed"))
    );
    let adrs = list(&["--type", "adr"]);
    assert!(adrs.stdout.starts_with("decision-1 "), "{}", adrs.stdout);
    // Parents from `parent_task_id`.
    let tree = run_in(f.dir.path(), &["tree", "task-11"]);
    assert!(tree.stdout.contains("task-11.1"), "{}{}", tree.stdout, tree.stderr);
    // Archived and completed tasks are not ready; drafts are not work yet.
    let ready = run_in(f.dir.path(), &["ready"]);
    assert!(ready.stdout.contains("task-12"), "{}", ready.stdout);
    for id in ["task-3 ", "task-12@archive", "draft-1"] {
        assert!(!ready.stdout.contains(id), "{id}:\n{}", ready.stdout);
    }
    // A type or state nobody has: exit 2, naming the known values with their counts.
    let bad = list(&["--type", "Nonsense"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("unknown type `Nonsense`"), "{}", bad.stderr);
    assert!(bad.stderr.contains("Task ("), "{}", bad.stderr);
    let bad = list(&["--state", "Finished"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("To Do ("), "{}", bad.stderr);
}

#[test]
fn root_from_another_folder_uses_the_backlogs_config_and_writes_nothing_there() {
    let f = initialized_board();
    let here = run_in(f.dir.path(), &["ready"]);
    assert_eq!(here.code, 0, "{}", here.stderr);
    let before = tree_hashes(&f.root());
    let elsewhere = tempfile::tempdir().unwrap();
    let root = f.root();
    let there = run_in(elsewhere.path(), &["--root", root.to_str().unwrap(), "ready"]);
    assert_eq!(there.code, 0, "{}", there.stderr);
    assert_eq!(there.stdout, here.stdout);
    assert_eq!(tree_hashes(&f.root()), before, "something was written into the backlog");
    assert!(!f.root().join("_index").exists());
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
}
