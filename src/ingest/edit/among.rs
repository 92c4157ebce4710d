//! The edited files resolved among the others as the document table shows them (not
//! the graph): only the documents their references and mentions can reach are made
//! stubs, and each edited file must show the others what it showed them before.

use crate::config::Settings;
use crate::ingest::parse::ParsedFile;
use crate::ingest::resolve::{Wanted, resolve_changed};
use crate::model::diag::Diagnostic;
use crate::model::{Graph, Kind, Node};
use crate::store::doctable::{DocTable, Row};
use std::collections::HashSet;

/// Resolve the `changed` files (parsed) among the others as the document table has
/// them: their nodes and edges, and their diagnostics (the parse's, then the references').
/// Only the documents the files can reach are made stubs ([`Wanted`]), with every
/// document sharing an id with one of them or with a changed file.
pub(super) fn resolve_among(
    table: &DocTable,
    changed: &HashSet<&str>,
    mut parsed: Vec<ParsedFile>,
    s: &Settings,
) -> (Graph, Vec<Diagnostic>) {
    let wanted = Wanted::of(&parsed, s);
    let others = || table.rows.iter().filter(|r| !changed.contains(r.path.as_str()));
    let mut groups: HashSet<std::borrow::Cow<'_, str>> = parsed
        .iter()
        .flat_map(|p| std::iter::once(p).chain(&p.items))
        .map(|p| {
            Wanted::id_group(p.doc.raw_id.as_deref().unwrap_or(&p.doc.id))
                .into_owned()
                .into()
        })
        .collect();
    groups.extend(
        others()
            .filter(|r| wanted.wants(&r.path, &r.raw, &r.node))
            .map(|r| Wanted::id_group(&r.raw)),
    );
    let stubs: Vec<ParsedFile> = others()
        .filter(|r| groups.contains(&Wanted::id_group(&r.raw)))
        .map(stub)
        .collect();
    let mut diags: Vec<Diagnostic> = Vec::new();
    for p in &mut parsed {
        diags.append(&mut p.diagnostics);
    }
    let (graph, ref_diags) = resolve_changed(stubs, parsed, s);
    diags.extend(ref_diags);
    (graph, diags)
}

/// The document as references see it: a stub for [`resolve_changed`].
fn stub(r: &Row) -> ParsedFile {
    ParsedFile {
        doc: Node {
            id: r.raw.clone(),
            kind: Kind::Doc,
            path: r.path.clone(),
            state: r.state.clone(),
            uid: r.uid.clone(),
            id_derived: r.derived,
            line: r.line,
            inline: r.inline,
            ..Node::default()
        },
        sections: Vec::new(),
        diagnostics: Vec::new(),
        items: Vec::new(),
    }
}

/// Does the parsed document show other files what `row` says it showed them?
pub(super) fn same_surface(row: &Row, doc: &Node, s: &Settings) -> bool {
    let yields = |st: Option<&str>| st.is_some_and(|st| s.ids.yield_states.iter().any(|y| y.eq_ignore_ascii_case(st)));
    doc.raw_id.as_deref() == Some(row.raw.as_str())
        && doc.id_derived == row.derived
        && doc.uid == row.uid
        && doc.line == row.line
        && yields(doc.state.as_deref()) == yields(row.state.as_deref())
}

/// Does the parsed file show other files what its `rows` (its own document's, then its
/// items', as the document table has them) say it showed them? Its own document as
/// [`same_surface`] says; its items (a spec folder's file) the same ids, each as it was
/// but for its line, which only tells apart items that share an id: none of the file's
/// did (each row's node id is its id as written), and the same ids share none now.
pub(super) fn same_file_surface(rows: &[Row], p: &ParsedFile, s: &Settings) -> bool {
    let Some((own, items)) = rows.split_first() else {
        return false;
    };
    if own.inline || !same_surface(own, &p.doc, s) || items.len() != p.items.len() {
        return false;
    }
    if p.items.is_empty() {
        return true;
    }
    let mut by_raw: std::collections::HashMap<&str, &Row> = std::collections::HashMap::with_capacity(items.len());
    for r in items {
        if !r.inline || r.node != r.raw || by_raw.insert(r.raw.as_str(), r).is_some() {
            return false;
        }
    }
    let yields = |st: Option<&str>| st.is_some_and(|st| s.ids.yield_states.iter().any(|y| y.eq_ignore_ascii_case(st)));
    let mut seen: HashSet<&str> = HashSet::with_capacity(items.len());
    p.items.iter().all(|it| {
        let raw = it.doc.raw_id.as_deref().unwrap_or(&it.doc.id);
        by_raw.get(raw).is_some_and(|r| {
            it.doc.inline
                && seen.insert(raw)
                && it.doc.id_derived == r.derived
                && it.doc.uid == r.uid
                && yields(it.doc.state.as_deref()) == yields(r.state.as_deref())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Edge;
    use crate::model::diag::Code;

    /// An edited file resolved among the stubs [`Wanted`] picks gives what resolving
    /// every file gives: shared ids (by uid, by path, README-style derived ones), links
    /// by path (up a folder, from the root), wiki links by stem and by path, aliased
    /// prefixes, ambiguous and dangling references, `ID@…` references, mentions and a
    /// document whose id holds a `#`; case-sensitive and not.
    #[test]
    fn an_edit_resolves_among_the_wanted_stubs_as_among_all() {
        let files: [(&str, &str); 14] = [
            ("a/README.md", "# A\nSee B-1 and b-2.\n"),
            ("b/README.md", "# B\n"),
            (
                "a/one.md",
                "---\nid: B-1\nuid: 0194aaaa-1\n---\n# One\nParent of [[two]].\n",
            ),
            ("b/one.md", "---\nid: B-1\nuid: 0194bbbb-2\n---\n# One again\n"),
            (
                "c/two.md",
                "---\nid: B-2\nparent: B-1@0194aaaa\nlinks:\n  relates: [task-3, B-9]\n---\n# Two\nSee [one](../a/one.md), [[README]], [[b/one]] and BACK-3.\n",
            ),
            (
                "c/three.md",
                "---\nid: BACK-3\nstate: Done\n---\n# Three\nMentions deep and B-2 and back-3.\n",
            ),
            ("deep.md", "# Approach\nA heading.\n## Approach\nAgain.\n"),
            (
                "x.md",
                "---\nid: deep#approach\n---\ntext, see [root](/deep.md) and [out](../../x.md).\n",
            ),
            ("d/dup.md", "---\nid: D-1\n---\n# Dup\n"),
            ("e/dup.md", "---\nid: D-1\n---\n# Dup\nSee D-1 and [[dup]].\n"),
            (
                "f/Mixed.md",
                "---\nid: Mx-1\n---\n# Mixed\nSee mx-1, MX-1 and [m](Mixed.md).\n",
            ),
            ("f/mixed.md", "---\nid: mx-1\nstate: Obsolete\n---\n# mixed\n"),
            ("g/link me.md", "# Spaces\nBack to [two](../c/two.md?x=1#top).\n"),
            (
                "g/ref.md",
                "# Ref\nSee [s](link%20me.md), [[link me]], [[c/three.md]] and [[nothing]].\n",
            ),
        ];
        for ci in [true, false] {
            let mut s = Settings::default();
            s.ids.case_insensitive = ci;
            s.ids.prefix_aliases.insert("task".into(), "back".into());
            let parse = || -> Vec<ParsedFile> {
                files
                    .iter()
                    .map(|(p, t)| crate::ingest::parse::parse_file(p, "h", t, &s))
                    .collect()
            };
            let (full, mut full_diags) = crate::ingest::resolve::resolve(parse(), &s);
            full_diags.retain(|d| !matches!(d.code, Code::DuplicateId | Code::ParentCycle));
            let mut rows: Vec<Row> = full.nodes.iter().filter(|n| !n.is_chunk()).map(Row::of).collect();
            rows.sort_by(|a, b| a.path.cmp(&b.path));
            let table = DocTable {
                sidecar: String::new(),
                rows,
            };
            for f in parse() {
                let path = f.doc.path.clone();
                let changed = HashSet::from([path.as_str()]);
                let (g, mut diags) = resolve_among(&table, &changed, vec![f], &s);
                diags.sort();
                let json = |n: &Node| serde_json::to_string(n).unwrap();
                let nodes: Vec<String> = full.nodes.iter().filter(|n| n.path == path).map(json).collect();
                let edges: Vec<&Edge> = full.edges.iter().filter(|e| e.path == path).collect();
                let mut want: Vec<&Diagnostic> = full_diags.iter().filter(|d| d.path == path).collect();
                want.sort();
                assert_eq!(g.nodes.iter().map(json).collect::<Vec<_>>(), nodes, "{path} (ci {ci})");
                assert_eq!(g.edges.iter().collect::<Vec<_>>(), edges, "{path} (ci {ci})");
                assert_eq!(diags.iter().collect::<Vec<_>>(), want, "{path} (ci {ci})");
            }
        }
    }

    #[test]
    fn a_stub_resolves_as_its_row_says() {
        let row = Row {
            path: "a/t.md".into(),
            raw: "T-1".into(),
            node: "T-1".into(),
            derived: false,
            state: Some("Done".into()),
            uid: None,
            line: Some(2),
            inline: false,
        };
        let s = Settings::default();
        let st = stub(&row);
        assert_eq!(st.doc.path, "a/t.md");
        let mut doc = st.doc.clone();
        doc.raw_id = Some("T-1".into());
        assert!(same_surface(&row, &doc, &s));
        doc.line = Some(3);
        assert!(!same_surface(&row, &doc, &s), "the id moved");
    }
}
