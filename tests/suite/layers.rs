//! The layout's promise: stages import only from the layers below them (model/text →
//! config → store → ingest | query → check/init → api), so there is no import cycle and
//! ingest and query never import each other. Read from the sources: a `crate::x` path
//! anywhere in a stage (code or doc link) is a dependency on `x`.

use crate::common::repo;
use std::collections::BTreeMap;
use std::path::Path;

/// Layer of each top-level module of the library; a module may use only lower layers.
const LAYERS: &[(&str, u32)] = &[
    ("model", 0),
    ("progress", 0),
    ("timing", 0),
    ("error", 1),
    ("text", 1),
    ("config", 2),
    ("store", 3),
    ("ingest", 4),
    ("query", 4),
    ("check", 5),
    ("init", 5),
    ("api", 6),
    ("internal", 7),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `crate::name` references in `text`.
fn crate_refs(text: &str) -> Vec<String> {
    path_refs(text, "crate::")
}

/// The names that follow `prefix` (a path such as `crate::`) in `text`.
fn path_refs(text: &str, prefix: &str) -> Vec<String> {
    text.match_indices(prefix)
        .map(|(i, m)| {
            text[i + m.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn stages_import_only_lower_layers() {
    let src = repo().join("src");
    let layer: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let mut violations = Vec::new();
    let mut seen = 0;
    for (module, rank) in LAYERS {
        let mut files = Vec::new();
        let dir = src.join(module);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        } else {
            files.push(src.join(format!("{module}.rs")));
        }
        for f in files {
            seen += 1;
            let text = std::fs::read_to_string(&f).unwrap();
            for r in crate_refs(&text) {
                if r == *module {
                    continue;
                }
                match layer.get(r.as_str()) {
                    Some(other) if other < rank => {}
                    Some(_) => violations.push(format!("{} uses crate::{r}", f.display())),
                    None => violations.push(format!("{} uses crate::{r}, which has no layer", f.display())),
                }
            }
        }
    }
    assert!(seen > 30, "only {seen} files found under src/");
    assert!(violations.is_empty(), "layering violations:\n{}", violations.join("\n"));
}

#[test]
fn every_library_module_has_a_layer_and_the_binary_stays_out() {
    let src = repo().join("src");
    let layer: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("mod ")
                .or_else(|| l.trim().strip_prefix("pub mod "))
        })
        .filter_map(|l| l.strip_suffix(';'))
        .collect();
    assert!(declared.len() >= LAYERS.len(), "{declared:?}");
    for m in &declared {
        assert!(
            layer.contains_key(m),
            "src/lib.rs declares `{m}` without a layer in this test"
        );
    }
    let public = lib.lines().filter(|l| l.trim_start().starts_with("pub mod ")).count();
    assert!(public <= 8, "src/lib.rs declares {public} public modules");
    assert!(!lib.contains("clap"), "the library knows no clap");
    // The command line reaches the library only through its public API.
    let mut files = Vec::new();
    rust_files(&src.join("cmd"), &mut files);
    files.push(src.join("main.rs"));
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for r in crate_refs(&text) {
            assert!(
                r == "cmd",
                "{} uses crate::{r}: the binary's modules are under cmd",
                f.display()
            );
        }
        for r in path_refs(&text, "mdgraph::") {
            assert!(r != "internal", "{} uses the library's internals", f.display());
        }
    }
}
