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
