//! Resolve: give every document a unique node id, turn raw references into edges between
//! node ids, find bare id mentions in section text, and report what does not resolve
//! (duplicates, dangling references, broken links, ambiguity, parent cycles).
//!
//! `link.rs` runs the steps, over all files or over an edit's files among stubs of the
//! others (`wanted.rs` says which): node ids (`ids.rs`), the lookups (`lookup.rs`), the
//! edges, the mentions, the parent cycles (`cycles.rs`). What it hands on, the files
//! under their node ids and the edges between them, is [`Resolved`], one level down.

mod cycles;
mod ids;
mod link;
mod lookup;
mod wanted;

use crate::config::Settings;
use crate::ingest::parse::ParsedFile;
pub use crate::ingest::resolved::Resolved;
use crate::ingest::resolved::build_graph;
use crate::model::Graph;
use crate::model::diag::{Code, Diagnostic};
use link::link;
pub use wanted::Wanted;

/// Build the graph from parsed files (any order; output is sorted).
/// The parsed files are consumed: their fields and section texts move into the nodes.
pub fn resolve(owned: Vec<ParsedFile>, s: &Settings) -> (Graph, Vec<Diagnostic>) {
    let (resolved, diags) = resolve_lean(owned, s);
    (resolved.into_graph(), diags)
}

/// [`resolve`] without making the nodes: the files under their node ids, each section's
/// chunk id and the edges between files, from which the sidecar is written.
pub fn resolve_lean(files: Vec<ParsedFile>, s: &Settings) -> (Resolved, Vec<Diagnostic>) {
    let mut files = flatten(files);
    files.sort_by(|a, b| a.doc.path.cmp(&b.doc.path));
    let (ids, edges, diags) = link(&files.iter().collect::<Vec<_>>(), s);
    (Resolved::new(files, ids, edges), diags)
}

/// Resolve the `changed` files among the others, given as `stubs`: documents holding
/// only what references resolve against (path, id as written, whether it is derived,
/// state, uid, line; no references, no sections). Returns the nodes and edges of the
/// changed files (sorted as `resolve` sorts them), and the diagnostics of their
/// references: what `resolve` over all files gives for them, as long as every stub is
/// what its file holds, and the stubs are all the other documents or those [`Wanted`]
/// picks. Not returned: duplicate ids and parent cycles, which depend on every file.
pub fn resolve_changed(stubs: Vec<ParsedFile>, changed: Vec<ParsedFile>, s: &Settings) -> (Graph, Vec<Diagnostic>) {
    let mut all: Vec<(bool, ParsedFile)> = stubs
        .into_iter()
        .map(|f| (false, f))
        .chain(flatten(changed).into_iter().map(|f| (true, f)))
        .collect();
    all.sort_by(|a, b| a.1.doc.path.cmp(&b.1.doc.path));
    let (ids, edges, mut diags) = link(&all.iter().map(|(_, f)| f).collect::<Vec<_>>(), s);
    diags.retain(|d| !matches!(d.code, Code::DuplicateId | Code::ParentCycle));
    let graph = build_graph(
        all.into_iter()
            .enumerate()
            .filter(|(_, (c, _))| *c)
            .map(|(i, (_, f))| (i, f)),
        &ids,
        edges,
    );
    (graph, diags)
}

/// The files' documents, each file's own before its items (in file order): items are
/// documents beside their file's (a stable sort by path keeps them after it).
fn flatten(files: Vec<ParsedFile>) -> Vec<ParsedFile> {
    let mut out = Vec::with_capacity(files.len());
    for mut f in files {
        let items = std::mem::take(&mut f.items);
        out.push(f);
        out.extend(items);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::parse::parse_file;
    use crate::model::EdgeType;
    use crate::text::mentions::mention_candidates;

    #[test]
    fn candidates() {
        let got: Vec<(&str, u32)> =
            mention_candidates("See QRY-TSK-0011. And (ADR-0004's)\n```\nX-1\n```\nv2 and 2026-01-05 and a@b\n");
        assert_eq!(got, vec![("QRY-TSK-0011", 0), ("ADR-0004", 0), ("v2", 4)]);
    }

    #[test]
    fn repeated_headings_get_unique_chunk_ids() {
        // Regression: "Phase 2", "Phase", "Phase" gave `#phase-2` twice.
        let s = crate::config::Settings::default();
        let p = crate::ingest::parse::parse_file(
            "t.md",
            "h",
            "---\nid: T-1\n---\n## Phase 2\na\n## Phase\nb\n## Phase\nc\n## Phase\nd\n",
            &s,
        );
        let (g, _) = resolve(vec![p], &s);
        let ids: Vec<&str> = g.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, ["T-1", "T-1#phase", "T-1#phase-2", "T-1#phase-3", "T-1#phase-4"]);
    }

    #[test]
    fn chunk_ids_never_take_a_document_id() {
        // Regression (fuzz): a document with `id: deep#approach` and a document `deep`
        // with an "Approach" section made two nodes `deep#approach`.
        let s = crate::config::Settings::default();
        let a = crate::ingest::parse::parse_file("x.md", "h", "---\nid: deep#approach\n---\ntext\n", &s);
        let b = crate::ingest::parse::parse_file("deep.md", "h", "# Approach\na\n", &s);
        let (g, _) = resolve(vec![a, b], &s);
        let ids: Vec<&str> = g.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            ids,
            ["deep", "deep#approach", "deep#approach#preamble", "deep#approach-2"]
        );
        let chunk = g.nodes.iter().find(|n| n.id == "deep#approach-2").unwrap();
        assert_eq!(chunk.doc.as_deref(), Some("deep"));
    }

    #[test]
    fn prefix_aliases_find_renamed_ids() {
        let mut s = crate::config::Settings::default();
        s.ids.prefix_aliases.insert("task".into(), "back".into());
        let p = |path: &str, text: &str| crate::ingest::parse::parse_file(path, "h", text, &s);
        let files = vec![
            p("back-12 - A.md", "---\nid: BACK-12\n---\n# A\n"),
            p(
                "back-13 - B.md",
                "---\nid: BACK-13\ndependencies: [task-12, task-99]\n---\nSee TASK-12.\n",
            ),
        ];
        let (g, d) = resolve(files, &s);
        assert!(
            g.edges
                .iter()
                .any(|e| e.source == "BACK-13" && e.target == "BACK-12" && e.r#type == EdgeType::DependsOn)
        );
        // The body mention of TASK-12 is the same document, already linked: no extra edge.
        assert_eq!(
            g.edges
                .iter()
                .filter(|e| e.source == "BACK-13" && e.target == "BACK-12")
                .count(),
            1
        );
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].message.contains("task-99"));
    }

    #[test]
    fn yielding_states_step_aside() {
        let mut s = crate::config::Settings::default();
        s.ids.yield_states.push("Moved".into());
        let p = |path: &str, text: &str| crate::ingest::parse::parse_file(path, "h", text, &s);
        let files = vec![
            p("EIPS/eip-20.md", "---\nid: 20\nstatus: Moved\n---\nMoved.\n"),
            p("ERCS/erc-20.md", "---\nid: 20\nstatus: Final\n---\n# Token\n"),
            p("ERCS/erc-777.md", "---\nid: 777\nrequires: 20\n---\n# X\n"),
        ];
        let (g, d) = resolve(files, &s);
        assert!(d.is_empty(), "{d:?}");
        let dep = g
            .edges
            .iter()
            .find(|e| e.source == "777" && e.r#type == EdgeType::DependsOn)
            .unwrap();
        assert_eq!(dep.target, "20");
        let node = g.nodes.iter().find(|n| n.id == "20").unwrap();
        assert_eq!(node.path, "ERCS/erc-20.md");
    }

    #[test]
    fn links_resolve_from_the_file_then_the_repository_root() {
        // The root is `backlog/` in the repository: links may be written from the file,
        // from the repository root (with or without `/`), or climb out and back in.
        let s = crate::config::Settings {
            repo_prefix: "backlog".into(),
            ..Default::default()
        };
        let p = |path: &str, text: &str| crate::ingest::parse::parse_file(path, "h", text, &s);
        let files = vec![
            p(
                "docs/a/b.md",
                "[1](docs/c.md)\n[2](/backlog/docs/c.md)\n[3](backlog/docs/c.md)\n\
                 [4](../../../backlog/docs/c.md)\n[5](c2.md)\n[6](/docs/c.md)\n[7](../../../README.md)\n[8](nowhere.md)\n\
                 [9](../../../../above.md)\n[10](../../.claude/x.md)\n",
            ),
            p("docs/c.md", "# C\n"),
            p("docs/a/c2.md", "# C2\n"),
        ];
        let (g, d) = resolve(files, &s);
        let targets: Vec<(&str, u32)> = g
            .edges
            .iter()
            .filter(|e| e.source == "b")
            .map(|e| (e.target.as_str(), e.line))
            .collect();
        // Lines 1–4 and 6 are the same file: one edge, at the first line.
        assert_eq!(targets, [("c", 1), ("c2", 5)]);
        let got: Vec<(u32, Code)> = d.iter().map(|x| (x.line, x.code)).collect();
        // Line 7 is a file of the repository beside the root, line 10 one in a hidden
        // folder: not the index's to check.
        assert_eq!(got, [(8, Code::BrokenLink), (9, Code::LinkOutsideRoot)], "{d:?}");
        assert!(d[0].message.contains("`docs/a/nowhere.md`"), "{}", d[0].message);
    }

    /// Written straight from the parses, the node and edge files are the bytes the graph's
    /// nodes and edges serialize to.
    #[test]
    fn writes_what_the_graph_serializes_to() {
        let s = Settings::default();
        let files = [
            (
                "a.md",
                "---\nid: A\ntitle: Alpha\nblocks: [B]\n---\n# Alpha\ntext\n## Goal\nsee B\n## Goal\nagain\n",
            ),
            ("b.md", "---\nid: B\nparent: A\n---\nno heading, \"quoted\" ü\n"),
            ("c.md", "# C\n"),
        ];
        let parse = || files.iter().map(|(p, t)| parse_file(p, "h", t, &s)).collect::<Vec<_>>();
        let (r, _) = resolve_lean(parse(), &s);
        let (mut nodes, mut edges) = (Vec::new(), Vec::new());
        let dn = r.write_nodes(&mut nodes).unwrap();
        let de = r.write_edges(&mut edges).unwrap();
        let graph = r.into_graph();
        let want_nodes = crate::store::sidecar::to_jsonl_blocks(&graph.nodes);
        let want_edges = crate::store::sidecar::to_jsonl_blocks(&graph.edges);
        assert_eq!(
            String::from_utf8(nodes).unwrap(),
            String::from_utf8(want_nodes.0.concat()).unwrap()
        );
        assert_eq!(
            String::from_utf8(edges).unwrap(),
            String::from_utf8(want_edges.0.concat()).unwrap()
        );
        assert_eq!((dn.hex(), de.hex()), (want_nodes.digest(), want_edges.digest()));
        assert!(graph.nodes.iter().filter(|n| n.is_chunk()).count() >= 4);
        assert!(graph.edges.iter().any(|e| e.r#type == EdgeType::Blocks));
    }

    /// The same on every board of the repository's fixtures (duplicate ids, broken
    /// links, ids with `#`, documents without sections).
    #[test]
    fn writes_what_the_graph_serializes_to_on_the_fixtures() {
        let s = Settings::default();
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut boards = vec![repo.join("backlog-fixtures")];
        boards.extend(
            std::fs::read_dir(repo.join("tests/fixtures"))
                .unwrap()
                .map(|e| e.unwrap().path()),
        );
        for board in boards.into_iter().filter(|b| b.is_dir()) {
            let mut files = Vec::new();
            let mut stack = vec![board.clone()];
            while let Some(d) = stack.pop() {
                for e in std::fs::read_dir(&d).unwrap() {
                    let p = e.unwrap().path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if p.extension().is_some_and(|x| x == "md") {
                        let rel = p.strip_prefix(&board).unwrap().to_string_lossy().replace('\\', "/");
                        files.push((rel, std::fs::read_to_string(&p).unwrap_or_default()));
                    }
                }
            }
            let parse = || files.iter().map(|(p, t)| parse_file(p, "h", t, &s)).collect::<Vec<_>>();
            let (r, _) = resolve_lean(parse(), &s);
            let (mut nodes, mut edges) = (Vec::new(), Vec::new());
            r.write_nodes(&mut nodes).unwrap();
            r.write_edges(&mut edges).unwrap();
            let (g, _) = resolve(parse(), &s);
            let want = |b: crate::store::sidecar::Blocks| b.0.concat();
            assert!(!g.nodes.is_empty(), "{}", board.display());
            assert!(
                nodes == want(crate::store::sidecar::to_jsonl_blocks(&g.nodes)),
                "{}",
                board.display()
            );
            assert!(
                edges == want(crate::store::sidecar::to_jsonl_blocks(&g.edges)),
                "{}",
                board.display()
            );
        }
    }
}
