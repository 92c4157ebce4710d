//! Property: after any sequence of edits, renames, deletions and additions, an incremental
//! index is byte-identical to a full rebuild (run through the library API for speed).

use crate::common::*;
use mdgraph::config::{Config, Overrides};
use mdgraph::index::{BuildOptions, build};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
enum Op {
    Append(usize, String),
    SetParent(usize, usize),
    ChangeId(usize, u16),
    Rename(usize),
    Delete(usize),
    Add(u16, usize),
    BreakYaml(usize),
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
    ]
}

fn md_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out)
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p)
            }
        }
    }
    walk(root, &mut out);
    out.sort();
    out
}

fn id_of(p: &Path) -> String {
    mdgraph::parse::filename_id(&p.file_stem().unwrap().to_string_lossy())
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
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
        for name in ["graph_nodes.jsonl", "graph_edges.jsonl", "diagnostics.jsonl", "meta.json"] {
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
