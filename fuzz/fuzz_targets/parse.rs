//! Frontmatter + Markdown parsing, link extraction and resolution: any bytes, as up to
//! four files of a backlog, must parse and resolve without a panic, and the result must
//! keep the index contract (edges join existing nodes, lines point into the file, the
//! JSONL written for it reads back).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mdgraph::Settings;
use mdgraph::model::Node;
use mdgraph::internal::parse::parse_file;
use std::collections::HashSet;

/// Paths the files take: work items, an ADR, a plain doc, deep and odd names.
const PATHS: [&str; 8] = [
    "items/task/0000/T-1_x.md",
    "items/feature/0000/F-1_y.md",
    "decisions/ADR-0001_z.md",
    "README.md",
    "a/b/c/d/e/deep.md",
    "notes/日本語-1 - Title.md",
    "x.md",
    "items/task/0000/T-1_copy.md",
];

fuzz_target!(|data: &[u8]| {
    let settings = Settings::default();
    let (pick, rest) = data.split_first().unwrap_or((&0, &[]));
    // 0xFF never occurs in UTF-8: it separates the files.
    let texts: Vec<String> = rest
        .split(|&b| b == 0xFF)
        .take(4)
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();
    let mut parsed = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let rel = PATHS[(*pick as usize + i * 3) % PATHS.len()];
        let p = parse_file(rel, "hash", text, &settings);
        let lines = text.split('\n').count() as u32;
        for d in &p.diagnostics {
            assert!(d.line <= lines + 1, "{rel}: diagnostic line {} > {lines}: {d:?}", d.line);
            assert_eq!(d.path, rel);
        }
        for s in &p.sections {
            assert!(s.line >= 1 && s.line <= lines + 1, "section line {} of {lines}", s.line);
            assert!(s.text_line <= lines + 1, "text line {} of {lines}", s.text_line);
        }
        for r in p.doc.refs.iter().flatten() {
            assert!(r.line >= 1 && r.line <= lines + 1, "ref line {} of {lines}: {r:?}", r.line);
        }
        parsed.push(p);
    }
    let (graph, diags) = mdgraph::internal::resolve::resolve(parsed, &settings);
    let ids: HashSet<&str> = graph.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids.len(), graph.nodes.len(), "node ids are unique");
    for e in &graph.edges {
        assert!(ids.contains(e.source.as_str()) && ids.contains(e.target.as_str()), "{e:?}");
    }
    for d in &diags {
        assert!(PATHS.contains(&d.path.as_str()), "diagnostic for an unknown file: {d:?}");
    }
    // What the sidecar writes reads back (record by record, as the sidecar's JSONL
    // reader does, without its thread pool).
    for n in &graph.nodes {
        let line = serde_json::to_string(n).expect("node serializes");
        let back: Node = serde_json::from_str(&line).expect("node reads back");
        assert_eq!(back.id, n.id);
    }
    for e in &graph.edges {
        let line = serde_json::to_string(e).expect("edge serializes");
        let back: mdgraph::model::Edge = serde_json::from_str(&line).expect("edge reads back");
        assert_eq!((&back.source, &back.target), (&e.source, &e.target));
    }
    for d in &diags {
        let line = serde_json::to_string(d).expect("diagnostic serializes");
        let _: mdgraph::model::diag::Diagnostic = serde_json::from_str(&line).expect("diagnostic reads back");
    }
});
