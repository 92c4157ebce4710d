//! A resolved backlog before its nodes are made: the parsed files under their node ids,
//! each section's chunk id, and the edges between documents. The sidecar's node and edge
//! files are written straight from it ([`Resolved::write_nodes`], [`Resolved::write_edges`]),
//! so a cold index holds every section's text once, in the parses, and never a chunk
//! node per section (at 100k generated items those were about 300 MB over the text
//! itself). [`Resolved::into_graph`] makes the graph when a caller needs one.

use crate::ingest::parse::ParsedFile;
use crate::model::{EdgeType, Graph, Kind, Node, Origin};
use crate::store::files::LineDigest;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// Where an edge was written: (origin, line, path).
pub(crate) type EdgeSite = (Origin, u32, String);
/// Edges between file indexes, keyed (source, type, target).
pub(crate) type FileEdges = BTreeMap<(usize, EdgeType, usize), EdgeSite>;

/// The parsed files sorted by path, each document under its node id, each section's chunk
/// id, and the edges between files (see the module docs).
pub struct Resolved {
    pub(crate) files: Vec<ParsedFile>,
    /// Per file, its sections' chunk ids.
    pub(crate) chunk_ids: Vec<Vec<String>>,
    pub(crate) edges: FileEdges,
}

/// A chunk node as the sidecar writes it: the fields of a [`Node`] of kind `chunk`, in
/// its order (a test checks the bytes are the same).
#[derive(Serialize)]
struct ChunkOut<'a> {
    id: &'a str,
    kind: Kind,
    path: &'a str,
    doc: &'a str,
    heading: &'a str,
    level: u8,
    line: u32,
    tokens: u32,
    text_line: u32,
    text: &'a str,
}

/// An edge as the sidecar writes it: the fields of an [`Edge`], borrowed.
#[derive(Serialize)]
struct EdgeOut<'a> {
    source: &'a str,
    target: &'a str,
    r#type: EdgeType,
    origin: Origin,
    path: &'a str,
    line: u32,
    weight: f64,
}

/// Marks a document (not a section) in a node key.
const DOC: u32 = u32::MAX;

impl Resolved {
    /// Documents, sections and edges (`section_of` included) the graph has.
    pub fn counts(&self) -> (usize, usize, usize) {
        let chunks: usize = self.chunk_ids.iter().map(Vec::len).sum();
        (self.files.len(), chunks, self.edges.len() + chunks)
    }

    /// The documents, in path order.
    pub fn docs(&self) -> impl Iterator<Item = &Node> {
        self.files.iter().map(|f| &f.doc)
    }

    /// Every node as (id, file, section or [`DOC`]), sorted by id as the sidecar is.
    fn node_order(&self) -> Vec<(&str, u32, u32)> {
        let mut order: Vec<(&str, u32, u32)> = Vec::with_capacity(self.files.len() + self.counts().1);
        for (i, (f, chunks)) in self.files.iter().zip(&self.chunk_ids).enumerate() {
            order.push((f.doc.id.as_str(), i as u32, DOC));
            order.extend(
                chunks
                    .iter()
                    .enumerate()
                    .map(|(k, id)| (id.as_str(), i as u32, k as u32)),
            );
        }
        // Node ids are unique (resolve makes them so), so the order is total.
        order.par_sort_unstable_by(|a, b| a.0.cmp(b.0));
        order
    }

    fn chunk(&self, file: usize, k: usize) -> ChunkOut<'_> {
        let (f, s) = (&self.files[file], &self.files[file].sections[k]);
        ChunkOut {
            id: &self.chunk_ids[file][k],
            kind: Kind::Chunk,
            path: &f.doc.path,
            doc: &f.doc.id,
            heading: &s.heading,
            level: s.level,
            line: s.line,
            tokens: s.tokens,
            text_line: s.text_line,
            text: &s.text,
        }
    }

    /// Every edge, sorted as the sidecar is: (source, type, target, line).
    fn edge_order(&self) -> Vec<EdgeOut<'_>> {
        let id = |i: usize| self.files[i].doc.id.as_str();
        let mut out: Vec<EdgeOut<'_>> = Vec::with_capacity(self.counts().2);
        out.extend(self.edges.iter().map(|(&(a, t, b), (origin, line, path))| EdgeOut {
            source: id(a),
            target: id(b),
            r#type: t,
            origin: *origin,
            path,
            line: *line,
            weight: t.weight(),
        }));
        for (f, chunks) in self.files.iter().zip(&self.chunk_ids) {
            out.extend(f.sections.iter().zip(chunks).map(|(s, chunk)| EdgeOut {
                source: chunk,
                target: &f.doc.id,
                r#type: EdgeType::SectionOf,
                origin: Origin::Structure,
                path: &f.doc.path,
                line: s.line,
                weight: EdgeType::SectionOf.weight(),
            }));
        }
        out.par_sort_unstable_by(|a, b| {
            (a.source, a.r#type, a.target, a.line).cmp(&(b.source, b.r#type, b.target, b.line))
        });
        out
    }

    /// Write the nodes as the sidecar's JSON lines; returns their digest.
    pub fn write_nodes(&self, out: &mut dyn Write) -> std::io::Result<LineDigest> {
        let order = self.node_order();
        write_lines(out, order.len(), |i, buf| {
            let (_, file, k) = order[i];
            match k {
                DOC => serde_json::to_writer(buf, &self.files[file as usize].doc),
                k => serde_json::to_writer(buf, &self.chunk(file as usize, k as usize)),
            }
        })
    }

    /// Write the edges as the sidecar's JSON lines; returns their digest.
    pub fn write_edges(&self, out: &mut dyn Write) -> std::io::Result<LineDigest> {
        let edges = self.edge_order();
        write_lines(out, edges.len(), |i, buf| serde_json::to_writer(buf, &edges[i]))
    }

    /// The graph: nodes sorted by id, edges sorted.
    pub fn into_graph(self) -> Graph {
        let ids: Vec<String> = self.files.iter().map(|f| f.doc.id.clone()).collect();
        crate::ingest::resolve::build_graph(self.files.into_iter().enumerate(), &ids, self.edges)
    }
}

/// Lines serialized on all cores at a time: a window of this many records is held, not
/// the file.
const WINDOW: usize = 32 * LINES_PER_TASK;
const LINES_PER_TASK: usize = 2048;

/// Write `n` records as JSON lines in order, `line(i, buf)` serializing the i-th (without
/// its newline) into `buf`, windows of them on all cores; returns the lines' digest.
pub(crate) fn write_lines(
    out: &mut dyn Write,
    n: usize,
    line: impl Fn(usize, &mut Vec<u8>) -> serde_json::Result<()> + Sync,
) -> std::io::Result<LineDigest> {
    let mut digest = LineDigest::default();
    for start in (0..n).step_by(WINDOW) {
        let end = (start + WINDOW).min(n);
        let blocks: Vec<std::io::Result<(Vec<u8>, LineDigest)>> = (start..end)
            .into_par_iter()
            .chunks(LINES_PER_TASK)
            .map(|idx| {
                let mut buf = Vec::with_capacity(idx.len() * 256);
                for i in idx {
                    line(i, &mut buf).map_err(std::io::Error::other)?;
                    buf.push(b'\n');
                }
                let d = LineDigest::of(&buf);
                Ok((buf, d))
            })
            .collect();
        for block in blocks {
            let (bytes, d) = block?;
            out.write_all(&bytes)?;
            digest = digest.plus(d);
        }
    }
    Ok(digest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;
    use crate::ingest::parse::parse_file;

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
        let (r, _) = crate::ingest::resolve::resolve_lean(parse(), &s);
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
            let (r, _) = crate::ingest::resolve::resolve_lean(parse(), &s);
            let (mut nodes, mut edges) = (Vec::new(), Vec::new());
            r.write_nodes(&mut nodes).unwrap();
            r.write_edges(&mut edges).unwrap();
            let (g, _) = crate::ingest::resolve::resolve(parse(), &s);
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

    /// Windows and tasks split a long file anywhere: the bytes are those of one pass.
    #[test]
    fn write_lines_is_one_pass_whatever_the_windows() {
        let n = WINDOW + LINES_PER_TASK + 7;
        let mut out = Vec::new();
        let d = write_lines(&mut out, n, |i, buf| serde_json::to_writer(buf, &i)).unwrap();
        let want: String = (0..n).map(|i| format!("{i}\n")).collect();
        assert_eq!(String::from_utf8(out).unwrap(), want);
        assert_eq!(d, LineDigest::of(want.as_bytes()));
    }
}
