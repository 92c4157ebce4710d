//! Property: after any sequence of edits, renames, deletions and additions, an incremental
//! index is byte-identical to a full rebuild (run through the library API for speed).

use crate::common::*;
use mdgraph::internal::index::{BuildOptions, build};
use mdgraph::{Config, Overrides};
use proptest::prelude::*;
use std::path::Path;

#[derive(Debug, Clone)]
enum Op {
    Append(usize, String),
    SetParent(usize, usize),
    ChangeId(usize, u16),
    Rename(usize),
    Delete(usize),
    Add(u16, usize),
    BreakYaml(usize),
    InsertLine(usize, String),
    SetState(usize, u8),
    Touch(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<usize>(), "[a-z ]{0,40}").prop_map(|(i, s)| Op::Append(i, s)),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Op::SetParent(i, j)),
        (any::<usize>(), any::<u16>()).prop_map(|(i, n)| Op::ChangeId(i, n)),
        any::<usize>().prop_map(Op::Rename),
        any::<usize>().prop_map(Op::Delete),
        (any::<u16>(), any::<usize>()).prop_map(|(n, j)| Op::Add(n, j)),
        any::<usize>().prop_map(Op::BreakYaml),
        (any::<usize>(), "[a-z ]{0,20}").prop_map(|(i, s)| Op::InsertLine(i, s)),
        (any::<usize>(), 0u8..4).prop_map(|(i, n)| Op::SetState(i, n)),
        any::<usize>().prop_map(Op::Touch),
    ]
}

fn id_of(p: &Path) -> String {
    mdgraph::internal::parse::filename_id(&p.file_stem().unwrap().to_string_lossy())
}

fn apply(root: &Path, op: &Op) {
    let files = md_files(root);
    if files.is_empty() {
        return;
    }
    let pick = |i: usize| &files[i % files.len()];
    let edit = |p: &Path, f: &dyn Fn(String) -> String| {
        let t = std::fs::read_to_string(p).unwrap_or_default();
        std::fs::write(p, f(t)).unwrap();
    };
    match op {
        Op::Append(i, s) => edit(pick(*i), &|t| format!("{t}\n{s} mentions {}\n", id_of(pick(i + 1)))),
        Op::SetParent(i, j) => {
            let parent = id_of(pick(*j));
            edit(pick(*i), &|t| {
                t.lines()
                    .map(|l| {
                        if l.starts_with("parent:") {
                            format!("parent: {parent}")
                        } else {
                            l.to_string()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
                    + "\n"
            })
        }
        Op::ChangeId(i, n) => edit(pick(*i), &|t| {
            t.replacen("\nid: ", &format!("\nid: NEW-{n}\nold_id: "), 1)
        }),
        Op::Rename(i) => {
            let p = pick(*i);
            let _ = std::fs::rename(
                p,
                p.with_file_name(format!("renamed-{}", p.file_name().unwrap().to_string_lossy())),
            );
        }
        Op::Delete(i) => {
            let _ = std::fs::remove_file(pick(*i));
        }
        Op::Add(n, j) => {
            let text = format!(
                "---\nid: ADD-{n}\nparent: {}\n---\n# Added\nSee [[{}]].\n",
                id_of(pick(*j)),
                id_of(pick(j + 1))
            );
            std::fs::write(root.join(format!("ADD-{n}_added.md")), text).unwrap();
        }
        Op::BreakYaml(i) => edit(pick(*i), &|t| t.replacen("\ntitle:", "\nowner: @someone\ntitle:", 1)),
        // A line under the first heading: every later section, link and mention moves
        // down, and the sections stay the same.
        Op::InsertLine(i, s) => edit(pick(*i), &|t| match t.match_indices("\n#").next() {
            Some((at, _)) => {
                let end = t[at + 1..].find('\n').map_or(t.len(), |e| at + 1 + e);
                format!("{}\n{s} [[{}]]{}", &t[..end], id_of(pick(i + 2)), &t[end..])
            }
            None => format!("{t}\n{s}\n"),
        }),
        Op::SetState(i, n) => {
            let state = ["Done", "In Progress", "Blocked", "Superseded"][*n as usize % 4];
            edit(pick(*i), &|t| {
                t.replacen("\nstate: ", &format!("\nstate: {state}\nwas: "), 1)
            })
        }
        // Written again with the same bytes: a new stamp, nothing changed.
        Op::Touch(i) => edit(pick(*i), &|t| t),
    }
}

fn cfg(dir: &Path, index: &str) -> Config {
    let ov = Overrides {
        root: Some("backlog".into()),
        index_dir: Some(index.into()),
        ..Overrides::default()
    };
    Config::load(dir, &ov).unwrap()
}

/// [`cfg`], with the mirror's FTS5 table or without.
fn cfg_fts(dir: &Path, index: &str, fts: bool) -> Config {
    Config {
        sqlite_fts: fts,
        ..cfg(dir, index)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    #[ignore = "slow: `.ci/run` runs it (cargo test -- --ignored)"]
    fn incremental_equals_full(first in prop::collection::vec(op(), 0..5), second in prop::collection::vec(op(), 1..5)) {
        let f = Fixture::new("backlog-fixtures");
        let inc = cfg(f.dir.path(), "_index");
        build(&inc, BuildOptions { full: false, write: true }).unwrap();
        for ops in [&first, &second] {
            for o in ops.iter() {
                apply(&f.root(), o);
            }
            build(&inc, BuildOptions { full: false, write: true }).unwrap();
        }
        let full = cfg(f.dir.path(), "_full");
        build(&full, BuildOptions { full: true, write: true }).unwrap();
        for name in OUTPUTS {
            let a = std::fs::read_to_string(f.dir.path().join("_index").join(name)).unwrap();
            let b = std::fs::read_to_string(f.dir.path().join("_full").join(name)).unwrap();
            if a != b {
                let only_a: Vec<&str> = a.lines().filter(|l| !b.contains(l)).take(5).collect();
                let only_b: Vec<&str> = b.lines().filter(|l| !a.contains(l)).take(5).collect();
                prop_assert!(false, "{} differs after {:?} then {:?}\nincremental only: {:#?}\nfull only: {:#?}", name, first, second, only_a, only_b);
            }
        }
    }
}

/// The quick loop's "patch equals write": a few seeded sequences of edits, renames,
/// deletions and additions on the sample backlog, each batch taken in by an incremental
/// build with the mirror as `mdgraph index` does (edits settled past the racy window, so
/// the short cuts run), give what a full build writes: the JSONL files, `meta.json`, the
/// document table and the SQLite mirror. The random sequences above and the 10k one stay
/// in the slow pass.
#[test]
fn seeded_edits_equal_full_builds() {
    use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestRng, TestRunner};
    let config = RunnerConfig {
        cases: 3,
        failure_persistence: None,
        ..RunnerConfig::default()
    };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let batches = prop::collection::vec(prop::collection::vec(op(), 1..4), 2);
    runner
        .run(&batches, |batches| {
            let f = Fixture::new("backlog-fixtures");
            let inc = cfg(f.dir.path(), "_index");
            build_with_mirror(&inc, false);
            settle(&inc);
            for batch in &batches {
                for o in batch {
                    apply(&f.root(), o);
                }
                build_with_mirror(&inc, false);
            }
            let full = cfg(f.dir.path(), "_full");
            build_with_mirror(&full, true);
            for name in OUTPUTS.iter().chain(&["meta.json", ".doc-table"]) {
                let read = |d: &str| std::fs::read(f.dir.path().join(d).join(name)).unwrap();
                assert!(read("_index") == read("_full"), "{name} differs after {batches:?}");
            }
            assert_same_mirror_as_full(f.dir.path(), &format!("{batches:?}"));
            Ok(())
        })
        .unwrap();
}

/// Everything a query can read from a SQLite mirror, as text: every table in rowid or
/// key order (edges in key order: every query of them goes through an index on their
/// columns, and an edit appends a document's new links) and, when the mirror has the FTS5 table, the full-text index term by term
/// (position by position) and FTS5's own bm25 scores for a few terms.
/// The mirror's contents, with row numbers shown as the rows' chunk ids: an edit that
/// changes a document's sections moves its rows (its old rows left empty, the new ones
/// appended, their places in a rebuild's order in the corpus's `row_rank`), and such a
/// mirror must hold and answer what a rebuilt one does under a rebuild's numbering.
pub(crate) fn mirror_dump(index: &Path) -> Vec<String> {
    use mdgraph::internal::postings::{HOLE, Strings, bytes_to_u32s, decode};
    use rusqlite::types::Value;
    let conn = rusqlite::Connection::open(index.join("index.sqlite")).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = vec![format!("tables: {tables:?}")];
    let rows = |sql: &str| -> Vec<Vec<Value>> {
        let mut st = conn.prepare(sql).unwrap();
        let width = st.column_count();
        st.query_map([], |r| {
            (0..width).map(|i| r.get::<_, Value>(i)).collect::<Result<Vec<_>, _>>()
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    };
    let chunk: std::collections::HashMap<i64, String> = rows("SELECT rowid, id FROM sections")
        .into_iter()
        .map(|r| match (&r[0], &r[1]) {
            (Value::Integer(n), Value::Text(id)) => (*n, id.clone()),
            other => panic!("a sections row: {other:?}"),
        })
        .collect();
    let id_of = |rowid: i64| {
        chunk
            .get(&rowid)
            .cloned()
            .unwrap_or_else(|| format!("<no row {rowid}>"))
    };
    for sql in [
        "SELECT key, value FROM meta ORDER BY key",
        "SELECT * FROM nodes ORDER BY id",
        "SELECT * FROM edges ORDER BY source, type, target, line",
        "SELECT id, doc, heading, level, line, text, tokens FROM sections ORDER BY id",
        "SELECT * FROM backlog ORDER BY id",
    ] {
        out.push(format!("-- {sql}"));
        out.extend(rows(sql).iter().map(|r| format!("{r:?}")));
    }
    out.push("-- postings, by chunk id".into());
    for r in rows("SELECT term, data FROM postings ORDER BY term") {
        let (Value::Text(term), Value::Blob(data)) = (&r[0], &r[1]) else {
            panic!("a postings row: {r:?}");
        };
        let mut list: Vec<(String, [u32; 3])> = decode(data)
            .unwrap()
            .into_iter()
            .map(|p| (id_of(p.row as i64 + 1), p.tf))
            .collect();
        list.sort();
        out.push(format!("{term}: {list:?}"));
    }
    out.push("-- corpus, by chunk id".into());
    let blob = |key: &str| -> Option<Vec<u8>> {
        conn.query_row("SELECT value FROM corpus WHERE key = ?1", [key], |r| r.get(0))
            .ok()
    };
    let u32s = |key: &str| bytes_to_u32s(&blob(key).unwrap_or_default()).unwrap();
    let (len, doc, name, rank) = (u32s("row_len"), u32s("row_doc"), u32s("row_name"), u32s("row_rank"));
    let names: Vec<String> = serde_json::from_slice(&blob("names").unwrap()).unwrap();
    let docs = Strings::from_bytes(&blob("docs").unwrap()).unwrap();
    out.push(format!(
        "docs: {:?}",
        (0..docs.len()).map(|i| docs.get(i)).collect::<Vec<_>>()
    ));
    let live: Vec<usize> = (0..len.len()).filter(|&r| doc[r] != HOLE).collect();
    let mut per_row: Vec<String> = live
        .iter()
        .map(|&r| {
            format!(
                "{} len {} doc {:?} name {:?}",
                id_of(r as i64 + 1),
                len[r],
                docs.get(doc[r] as usize),
                names.get(name[r] as usize)
            )
        })
        .collect();
    per_row.sort();
    out.extend(per_row);
    let mut order = live.clone();
    order.sort_by_key(|&r| rank.get(r).copied().unwrap_or(r as u32));
    out.push(format!(
        "rank order: {:?}",
        order.iter().map(|&r| id_of(r as i64 + 1)).collect::<Vec<_>>()
    ));
    if tables.iter().any(|t| t == "sections_fts") {
        conn.execute_batch("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, sections_fts, instance);")
            .unwrap();
        let mut vocab: Vec<String> = rows("SELECT term, doc, col, offset FROM temp.vocab")
            .iter()
            .map(|r| match &r[1] {
                Value::Integer(n) => format!("{:?} {} {:?} {:?}", r[0], id_of(*n), r[2], r[3]),
                other => panic!("a vocab row: {other:?}"),
            })
            .collect();
        vocab.sort();
        out.push("-- fts vocabulary".into());
        out.extend(vocab);
        let mut scores: Vec<String> = rows(
            "SELECT rowid, bm25(sections_fts) FROM sections_fts WHERE sections_fts MATCH 'sync OR export OR offlin OR pdf'",
        )
        .iter()
        .map(|r| match &r[0] {
            Value::Integer(n) => format!("{} {:?}", id_of(*n), r[1]),
            other => panic!("a bm25 row: {other:?}"),
        })
        .collect();
        scores.sort();
        out.push("-- fts bm25".into());
        out.extend(scores);
    }
    out
}

fn build_with_mirror(cfg: &Config, full: bool) -> bool {
    let report = mdgraph::Index::build(cfg, full, None).unwrap();
    report
        .timings
        .phases
        .iter()
        .any(|(p, _)| p.starts_with("sqlite (updated in place") || p.starts_with("sqlite (edited rows"))
}

fn inc_meta(dir: &Path) -> mdgraph::internal::sidecar::Meta {
    mdgraph::internal::sidecar::read_meta(&dir.join("_index")).unwrap()
}

fn assert_same_mirror(dir: &Path, fts: bool, what: &str) {
    let full = cfg_fts(dir, "_full", fts);
    let _ = std::fs::remove_dir_all(dir.join("_full"));
    build_with_mirror(&full, true);
    assert_same_mirror_as_full(dir, what);
}

/// The mirror of `dir/_index` holds the rows of `dir/_full`'s, in order.
pub(crate) fn assert_same_mirror_as_full(dir: &Path, what: &str) {
    let (a, b) = (mirror_dump(&dir.join("_index")), mirror_dump(&dir.join("_full")));
    assert_eq!(a.len(), b.len(), "{what}: the mirror's row counts differ");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "{what}: the updated mirror differs from a rebuilt one");
    }
}

#[test]
fn mirror_updated_in_place_equals_a_rebuilt_one() {
    in_place_updates_equal_rebuilds(false);
}

#[test]
fn mirror_with_fts5_updated_in_place_equals_a_rebuilt_one() {
    in_place_updates_equal_rebuilds(true);
}

fn in_place_updates_equal_rebuilds(fts: bool) {
    let f = Fixture::new("backlog-fixtures");
    let dir = f.dir.path();
    let inc = cfg_fts(dir, "_index", fts);
    assert!(
        !build_with_mirror(&inc, false),
        "the first build writes the mirror whole"
    );
    let files = md_files(&f.root());
    let edit = |i: usize, change: &dyn Fn(&str) -> String| {
        let text = std::fs::read_to_string(&files[i]).unwrap();
        std::fs::write(&files[i], change(&text)).unwrap();
    };
    // Text appended to a section (a worklog line with new words).
    edit(3, &|t| {
        format!("{t}\nZanzibar quokkas resynchronised the offline export.\n")
    });
    assert!(
        build_with_mirror(&inc, false),
        "an edit inside a section updates in place"
    );
    assert_same_mirror(dir, fts, "appended text");
    // A new title (every row of the document changes its title column) and a state.
    edit(5, &|t| {
        t.replacen("\ntitle: ", "\ntitle: Renamed PDF sync ", 1).replacen(
            "\nstate: ",
            "\nstate: Blocked\nold_state: ",
            1,
        )
    });
    assert!(build_with_mirror(&inc, false));
    assert_same_mirror(dir, fts, "title and state");
    // Words removed: terms that no longer occur anywhere leave the postings.
    edit(3, &|t| {
        t.replace("\nZanzibar quokkas resynchronised the offline export.\n", "\n")
    });
    assert!(build_with_mirror(&inc, false));
    assert_same_mirror(dir, fts, "removed words");
    // A new link: edges and degrees change.
    let edges = std::fs::read_to_string(dir.join("_index/graph_edges.jsonl")).unwrap();
    edit(7, &|t| format!("{t}\nSee also [[ADR-0003]] and QRY-BUG-0001.\n"));
    assert!(build_with_mirror(&inc, false));
    assert_ne!(
        edges,
        std::fs::read_to_string(dir.join("_index/graph_edges.jsonl")).unwrap()
    );
    assert_same_mirror(dir, fts, "new link");
    // A mirror another tokenizer wrote is rebuilt, never updated in place.
    let db = rusqlite::Connection::open(dir.join("_index/index.sqlite")).unwrap();
    db.execute(
        "UPDATE meta SET value = 'another tokenizer' WHERE key = 'tokenizer'",
        [],
    )
    .unwrap();
    drop(db);
    assert!(!mdgraph::internal::store::is_fresh(
        &dir.join("_index"),
        &inc_meta(dir).outputs,
        &mdgraph::internal::store::mirror_spec(&inc)
    ));
    edit(3, &|t| format!("{t}\nOne more line.\n"));
    assert!(
        !build_with_mirror(&inc, false),
        "a mirror of another tokenizer is updated in place"
    );
    assert_same_mirror(dir, fts, "another tokenizer");
    // A new section: an edit that moves the document's rows when the stat cache can
    // vouch for the other files, a full run that rebuilds the mirror while they are within
    // its racy window (timing decides which here; both must hold what a rebuild holds,
    // and `sections_changed_by_edits_answer_as_in_a_rebuild` takes the short cut surely).
    edit(9, &|t| format!("{t}\n## A brand new section\n\nWith words.\n"));
    build_with_mirror(&inc, false);
    assert_same_mirror(dir, fts, "new section");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever the edits, a mirror updated in place (or rebuilt, when it cannot be)
    /// holds what a mirror built from scratch holds.
    #[test]
    #[ignore = "slow: `.ci/run` runs it (cargo test -- --ignored)"]
    fn mirror_after_any_edits_equals_a_rebuilt_one(ops in prop::collection::vec(op(), 1..4), more in prop::collection::vec(op(), 1..4), fts in any::<bool>()) {
        let f = Fixture::new("backlog-fixtures");
        let inc = cfg_fts(f.dir.path(), "_index", fts);
        build_with_mirror(&inc, false);
        for batch in [&ops, &more] {
            for o in batch.iter() {
                apply(&f.root(), o);
            }
            build_with_mirror(&inc, false);
        }
        assert_same_mirror(f.dir.path(), fts, &format!("{ops:?} then {more:?}"));
    }
}

/// The property at scale: random sequences of edits, renames and deletions on a
/// generated backlog of 10,000 items (`bench/gen_backlog.py`), indexed with the mirror
/// after each batch as `mdgraph index` does, give the bytes and the mirror of a full
/// build. Edits take the short cut where they can: the test also checks that some did.
#[test]
#[ignore = "slow: `.ci/run` runs it (cargo test -- --ignored)"]
fn edits_on_a_generated_10k_backlog_equal_full_builds() {
    use proptest::test_runner::{Config as RunnerConfig, TestRunner};
    if tool_missing("python3", &["python3", "--version"]) {
        return;
    }
    let generator = repo().join("bench/gen_backlog.py");
    let mut runner = TestRunner::new(RunnerConfig {
        cases: 2,
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let short_cuts = std::cell::Cell::new(0);
    let batches = prop::collection::vec(prop::collection::vec(op(), 1..6), 3);
    runner
        .run(&batches, |batches| {
            let dir = tempfile::tempdir().unwrap();
            let status = std::process::Command::new("python3")
                .arg(&generator)
                .args(["--items", "10000"])
                .arg(dir.path().join("backlog"))
                .stdout(std::process::Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "gen_backlog.py failed");
            let inc = cfg(dir.path(), "_index");
            build_with_mirror(&inc, false);
            for batch in &batches {
                for o in batch {
                    apply(&dir.path().join("backlog"), o);
                }
                mdgraph::Index::build(&inc, false, None).unwrap();
            }
            // Past the racy window of the folders a rename or deletion touched (within
            // it the stat cache cannot vouch for them), two plain edits take the short
            // cut.
            settle(&inc);
            for o in [Op::Append(7, "short cut".into()), Op::InsertLine(11, "moved".into())] {
                apply(&dir.path().join("backlog"), &o);
            }
            let report = mdgraph::Index::build(&inc, false, None).unwrap();
            if report.timings.phases.iter().any(|(p, _)| *p == "patch") {
                short_cuts.set(short_cuts.get() + 1);
            }
            let full = cfg(dir.path(), "_full");
            build_with_mirror(&full, true);
            let differ = differing_outputs(&dir.path().join("_index"), &dir.path().join("_full"));
            prop_assert!(differ.is_empty(), "{:?} differ after {:?}", differ, batches);
            let (a, b) = (
                mirror_dump(&dir.path().join("_index")),
                mirror_dump(&dir.path().join("_full")),
            );
            prop_assert_eq!(a.len(), b.len());
            prop_assert!(a == b, "the mirror differs after {:?}", batches);
            Ok(())
        })
        .unwrap();
    assert_eq!(short_cuts.get(), 2, "plain edits did not take the short cut");
}

/// An edit that adds, renames or removes sections takes the short cut: the document's
/// rows in the mirror move (its old rows emptied, the new ones appended, their places in
/// a rebuild's order kept in `row_rank`). The mirror then holds what a rebuilt one does
/// under a rebuild's numbering, and searches and packs, through the mirror and in
/// memory, answer as after a rebuild, ties included.
#[test]
fn sections_changed_by_edits_answer_as_in_a_rebuild() {
    for fts in [false, true] {
        let f = Fixture::new("backlog-fixtures");
        let dir = f.dir.path();
        let inc = cfg_fts(dir, "_index", fts);
        build_with_mirror(&inc, false);
        // Past the racy window of the folders just copied, so edits take the short cut.
        settle(&inc);
        let files = md_files(&f.root());
        let edit = |i: usize, change: &dyn Fn(&str) -> String| edit_file(&files[i], change);
        let queries = [
            "zanzibar quokkas offline export",
            "brand new section with words",
            "acceptance criteria",
            "what is blocking the PDF export",
            "sync",
        ];
        let answers = |index: &mdgraph::Index| -> Vec<String> {
            let mut out = Vec::new();
            for q in queries {
                out.push(format!("{:?}", index.search(q).unwrap()));
                out.push(index.pack(q, 2000).unwrap().markdown);
            }
            out
        };
        let rounds: [(&str, &dyn Fn()); 5] = [
            ("a new section", &|| {
                edit(9, &|t| {
                    format!("{t}\n## A brand new section\n\nWith words: zanzibar quokkas.\n")
                })
            }),
            ("a renamed heading", &|| {
                edit(4, &|t| match t.contains("\n## ") {
                    true => t.replacen("\n## ", "\n## Renamed ", 1),
                    false => t.replacen("\n# ", "\n# Renamed ", 1),
                })
            }),
            ("the same document again, and text in place elsewhere", &|| {
                edit(9, &|t| {
                    format!("{t}\n## Acceptance criteria\n\n- sync works offline.\n")
                });
                edit(3, &|t| {
                    format!("{t}\nZanzibar quokkas resynchronised the offline export.\n")
                });
            }),
            ("a section removed", &|| {
                edit(9, &|t| {
                    t.replace("\n## A brand new section\n\nWith words: zanzibar quokkas.\n", "\n")
                })
            }),
            ("every heading of a document removed", &|| {
                edit(6, &|t| t.replace("\n## ", "\n").replace("\n# ", "\n"))
            }),
        ];
        for (what, change) in rounds {
            change();
            let report = mdgraph::Index::build(&inc, false, None).unwrap();
            let phases: Vec<&str> = report.timings.phases.iter().map(|(p, _)| *p).collect();
            assert!(phases.contains(&"patch"), "{what}: not the short cut ({phases:?})");
            assert!(
                phases.iter().any(|p| p.starts_with("sqlite (edited rows")),
                "{what}: the mirror was not updated in place ({phases:?})"
            );
            assert_same_mirror(dir, fts, what);
            let differ = differing_outputs(&dir.join("_index"), &dir.join("_full"));
            assert!(differ.is_empty(), "{what}: {differ:?} differ from a full build");
            let full = cfg_fts(dir, "_full", fts);
            let open = |c: &Config| mdgraph::Index::open_as_is(c.clone()).unwrap();
            let (moved, rebuilt) = (open(&inc), open(&full));
            assert_eq!(answers(&moved), answers(&rebuilt), "{what}: through the mirror");
            let (moved, rebuilt) = (open(&inc).in_memory(), open(&full).in_memory());
            assert_eq!(answers(&moved), answers(&rebuilt), "{what}: in memory");
        }
    }
}

/// An index held in memory (as `mdgraph mcp` holds it) takes in an edit the short cut
/// made, in place, and then answers as an index loaded fresh from the new files does:
/// searches, packs, nodes and the graph.
#[test]
fn an_index_in_memory_takes_in_an_edit_as_a_fresh_one_answers() {
    let f = Fixture::new("backlog-fixtures");
    let dir = f.dir.path();
    let inc = cfg(dir, "_index");
    build_with_mirror(&inc, false);
    // Past the racy window of the folders just copied, so edits take the short cut.
    settle(&inc);
    let open = || {
        let index = mdgraph::Index::open_as_is(inc.clone()).unwrap().in_memory();
        index.warm().unwrap();
        index
    };
    let mut held = open();
    let stale = open();
    let files = md_files(&f.root());
    let queries = [
        "zanzibar quokkas offline export",
        "what is blocking the PDF export",
        "why did we stop using last-write-wins for checklist sync",
        "renamed sync",
    ];
    let answers = |index: &mdgraph::Index| index_answers(index, &queries);
    let edit = |i: usize, change: &dyn Fn(&str) -> String| edit_file(&files[i], change);
    let rounds: [(&str, &dyn Fn()); 6] = [
        ("new words and a link", &|| {
            edit(3, &|t| {
                format!("{t}\nZanzibar quokkas resynchronised the offline export. See [[ADR-0003]].\n")
            })
        }),
        ("a title and a state", &|| {
            edit(5, &|t| {
                t.replacen("\ntitle: ", "\ntitle: Renamed sync ", 1).replacen(
                    "\nstate: ",
                    "\nstate: Blocked\nold_state: ",
                    1,
                )
            })
        }),
        ("words and the link removed", &|| {
            edit(3, &|t| {
                t.replace(
                    "\nZanzibar quokkas resynchronised the offline export. See [[ADR-0003]].\n",
                    "\n",
                )
            })
        }),
        // Sections changed: the rows move (see `sections_changed_by_edits_answer_as_in_a_rebuild`).
        ("a new section", &|| {
            edit(9, &|t| {
                format!("{t}\n## Zanzibar notes\n\nQuokkas resynchronised the offline export.\n")
            })
        }),
        ("a heading renamed, and the same document again", &|| {
            edit(4, &|t| match t.contains("\n## ") {
                true => t.replacen("\n## ", "\n## Renamed ", 1),
                false => t.replacen("\n# ", "\n# Renamed ", 1),
            });
            edit(9, &|t| {
                format!("{t}\n## Acceptance criteria\n\n- the export works offline.\n")
            });
        }),
        ("every heading of a document removed", &|| {
            edit(6, &|t| t.replace("\n## ", "\n").replace("\n# ", "\n"))
        }),
    ];
    for (what, change) in rounds {
        change();
        let report = mdgraph::Index::build(&inc, false, None).unwrap();
        assert!(
            report.timings.phases.iter().any(|(p, _)| *p == "patch"),
            "{what}: not the short cut"
        );
        assert!(held.apply_edits(&report), "{what}: not applied");
        assert_eq!(answers(&held), answers(&open()), "{what}");
    }
    // An index that is not the one the edit was made from does not take it.
    edit(7, &|t| format!("{t}\nOne more line.\n"));
    let report = mdgraph::Index::build(&inc, false, None).unwrap();
    let mut stale = stale;
    assert!(!stale.apply_edits(&report));
}

/// What an index answers, as text to compare: each query's search and pack, the graph,
/// and every document's node.
pub(crate) fn index_answers(index: &mdgraph::Index, queries: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for q in queries {
        out.push(format!("{:?}", index.search(q).unwrap()));
        out.push(index.pack(q, 2000).unwrap().markdown);
    }
    let g = index.graph().unwrap();
    out.push(serde_json::to_string(&g.nodes).unwrap());
    out.push(serde_json::to_string(&g.edges).unwrap());
    out.push(format!("{:?}", g.diagnostics));
    for n in g.nodes.iter().filter(|n| !n.is_chunk()) {
        out.push(format!("{:?}", index.node(&n.id).unwrap()));
    }
    out
}
