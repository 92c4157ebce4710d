//! Choosing an engine: the SQLite mirror when the configuration enables it and it can be
//! read, else the in-memory engine over the sidecar.

use super::Engine;
use super::memory::memory_engine;
use super::sqlite::SqliteEngine;
use crate::error::Error;

/// The engine a configuration asks for: the SQLite mirror when enabled and readable,
/// else the in-memory fallback. The caller keeps the mirror in sync (see
/// [`crate::store::mirror::sync`]); when it cannot be used the fallback answers and the reason is
/// returned as a warning.
pub fn open_engine(cfg: &crate::config::Config) -> Result<(Box<dyn Engine + Send>, Option<String>), Error> {
    if cfg.sqlite {
        match SqliteEngine::open(&cfg.index_dir) {
            Ok(e) => return Ok((Box::new(e), None)),
            Err(err) => {
                let e = memory_engine(&cfg.index_dir)?;
                return Ok((
                    Box::new(e),
                    Some(format!("SQLite mirror unusable ({err}); searched the JSONL sidecar")),
                ));
            }
        }
    }
    Ok((Box::new(memory_engine(&cfg.index_dir)?), None))
}

#[cfg(test)]
mod tests {
    use super::super::{EngineKind, MemoryEngine, search};
    use super::*;
    use crate::config::{Retrieval, StateGroups};
    use crate::model::{Edge, EdgeType, Kind, Node, Origin};
    use crate::query::expand::GraphSource;
    use crate::store::mirror;
    use crate::store::sidecar::Meta;

    fn doc(id: &str, kind: Kind, title: &str, state: &str, nav: bool) -> Node {
        Node {
            id: id.to_string(),
            kind,
            path: format!("{id}.md"),
            title: Some(title.to_string()),
            state: Some(state.to_string()),
            nav,
            tokens: Some(12),
            ..Node::default()
        }
    }

    fn section(doc: &str, line: u32, heading: &str, text: &str) -> Node {
        Node {
            id: format!("{doc}#{}", heading.to_lowercase()),
            kind: Kind::Chunk,
            path: format!("{doc}.md"),
            doc: Some(doc.to_string()),
            heading: Some(heading.to_string()),
            level: Some(2),
            line: Some(line),
            tokens: Some(text.len() as u32 / 4),
            text: Some(text.to_string()),
            ..Node::default()
        }
    }

    fn edge(source: &str, r#type: EdgeType, target: &str) -> Edge {
        Edge {
            source: source.to_string(),
            target: target.to_string(),
            r#type,
            origin: Origin::Frontmatter,
            path: format!("{source}.md"),
            line: 2,
            weight: 1.0,
        }
    }

    /// A tiny backlog: a blocked task, its blocker, the decision it follows, and a
    /// navigation page linking to all three.
    fn corpus() -> (Vec<Node>, Vec<Edge>) {
        let mut nodes = vec![
            doc(
                "T-1",
                Kind::WorkItem,
                "PDF export fails on large files",
                "Blocked",
                false,
            ),
            // Sorted by id, these sections are out of file order: the engines put them back.
            section("T-1", 9, "Acceptance", "Large files export without a time out."),
            section("T-1", 4, "Goal", "Export the monthly report to PDF."),
            doc("T-2", Kind::WorkItem, "Upgrade the PDF renderer", "InProgress", false),
            section("T-2", 4, "Goal", "The renderer crashes on wide tables."),
            doc(
                "ADR-1",
                Kind::Adr,
                "Render PDF with a headless browser",
                "Accepted",
                false,
            ),
            section("ADR-1", 4, "Decision", "We render PDF pages in a headless browser."),
            doc("README", Kind::Doc, "Index", "-", true),
        ];
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let mut edges = vec![
            edge("T-1", EdgeType::BlockedBy, "T-2"),
            edge("T-1", EdgeType::DecisionRef, "ADR-1"),
            edge("README", EdgeType::LinksTo, "T-1"),
            edge("README", EdgeType::LinksTo, "T-2"),
            edge("README", EdgeType::LinksTo, "ADR-1"),
        ];
        // Each section's `section_of` edge, as every sidecar has.
        for n in nodes.iter().filter(|n| n.is_chunk()) {
            edges.push(Edge {
                r#type: EdgeType::SectionOf,
                weight: EdgeType::SectionOf.weight(),
                ..edge(&n.id, EdgeType::SectionOf, n.doc.as_deref().unwrap_or(""))
            });
        }
        edges.sort_by(|a, b| (&a.source, a.r#type, &a.target).cmp(&(&b.source, b.r#type, &b.target)));
        (nodes, edges)
    }

    /// The in-memory fallback is only a fallback because it answers as the mirror does:
    /// the same hits, scores and reasons, and the same facts for the pack.
    #[test]
    fn both_engines_answer_alike() {
        let (nodes, edges) = corpus();
        let dir = tempfile::tempdir().unwrap();
        let states = StateGroups::default();
        let spec = mirror::Spec {
            fts: false,
            states: &states,
            backlog: |_, _, _| crate::model::backlog::BacklogTable::default(),
            backlog_docs: |_, _| crate::model::backlog::BacklogTable::default(),
        };
        mirror::rebuild(dir.path(), &Meta::default(), &nodes, &edges, &spec).unwrap();
        let sql = SqliteEngine::open(dir.path()).unwrap();
        let mem = MemoryEngine::new(&nodes, &edges);
        assert_eq!(sql.kind(), EngineKind::Sqlite);
        assert_eq!(mem.kind(), EngineKind::Memory);
        assert_eq!(sql.corpus(), mem.corpus());
        let r = Retrieval::default();
        for query in [
            "pdf export",
            "what is blocking the PDF export",
            "T-2",
            "t-1 renderer",
            "headless browser",
            "index",
            "nothing matches this",
        ] {
            for graph in [true, false] {
                let a = search(&sql, query, &r, 10, graph).unwrap();
                let b = search(&mem, query, &r, 10, graph).unwrap();
                assert_eq!(a.results, b.results, "{query:?} graph={graph}");
                assert_eq!(a.terms, b.terms, "{query:?}");
            }
        }
        let hits = search(&sql, "pdf export", &r, 10, true).unwrap().results;
        assert!(hits.iter().any(|h| h.id == "T-1"), "{hits:?}");
        for id in ["T-1", "T-2", "ADR-1", "README", "missing"] {
            assert_eq!(format!("{:?}", sql.doc(id)), format!("{:?}", mem.doc(id)), "{id}");
            assert_eq!(sql.is_nav(id), mem.is_nav(id), "{id}");
            assert_eq!(sql.state(id), mem.state(id), "{id}");
            assert_eq!(sql.sections_of(id), mem.sections_of(id), "{id}");
            assert_eq!(sql.node(id).map(|n| n.id), mem.node(id).map(|n| n.id), "{id}");
            let mut se = sql.edges(id).into_owned();
            let mut me = mem.edges(id).into_owned();
            se.sort_by(|a, b| (&a.other, a.forward).cmp(&(&b.other, b.forward)));
            me.sort_by(|a, b| (&a.other, a.forward).cmp(&(&b.other, b.forward)));
            assert_eq!(se, me, "{id}");
        }
        let goal = sql.sections_of("T-1");
        assert_eq!(
            goal.iter().map(|s| s.heading.as_str()).collect::<Vec<_>>(),
            ["Goal", "Acceptance"]
        );
        assert!(sql.is_nav("README") && !sql.is_nav("T-1"));
        for token in ["t-1", "T-2", "adr-1", "T-3"] {
            assert_eq!(sql.exact_id(token), mem.exact_id(token), "{token}");
        }
        assert_eq!(mem.exact_id("t-1").as_deref(), Some("T-1"));
        for row in 0..sql.corpus().row_doc.len() as u32 + 1 {
            assert_eq!(sql.row(row), mem.row(row), "row {row}");
            assert_eq!(sql.row_terms(row), mem.row_terms(row), "row {row}");
        }
    }
}
