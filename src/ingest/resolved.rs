//! A resolved backlog before its nodes are made: the parsed files under their node ids,
//! each section's chunk id, and the edges between documents. The sidecar's node and edge
//! files are written straight from it ([`Resolved::write_nodes`], [`Resolved::write_edges`]),
//! so a cold index holds every section's text once, in the parses, and never a chunk
//! node per section (at 100k generated items those were about 300 MB over the text
//! itself). [`Resolved::into_graph`] makes the graph when a caller needs one.
//!
//! Below `resolve`, which hands it the files, their node ids and the edges between them.

use crate::ingest::markdown::Section;
use crate::ingest::parse::ParsedFile;
use crate::model::{Edge, EdgeType, Graph, Kind, Node, Origin};
use crate::store::files::LineDigest;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
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
    /// The files sorted by path, `ids` their node ids, `edges` the edges between them:
    /// each document takes its node id, and each section a chunk id.
    pub(crate) fn new(mut files: Vec<ParsedFile>, ids: Vec<String>, edges: FileEdges) -> Resolved {
        let hashed = ids_with_hash(&ids);
        let chunk_ids = files
            .iter()
            .zip(&ids)
            .map(|(f, id)| chunk_ids(id, &f.sections, &hashed))
            .collect();
        drop(hashed);
        for (f, id) in files.iter_mut().zip(ids) {
            f.doc.id = id;
        }
        Resolved {
            files,
            chunk_ids,
            edges,
        }
    }

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
        build_graph(self.files.into_iter().enumerate(), &ids, self.edges)
    }
}

/// Nodes (documents and their sections) and edges, sorted, of `files` (with their
/// numbers among all files, which `ids` and `edges` use).
pub(crate) fn build_graph(files: impl Iterator<Item = (usize, ParsedFile)>, ids: &[String], edges: FileEdges) -> Graph {
    let mut nodes = Vec::with_capacity(files.size_hint().0 * 7);
    let mut out_edges: Vec<Edge> = edges
        .into_iter()
        .map(|((a, t, b), (origin, line, path))| Edge {
            source: ids[a].clone(),
            target: ids[b].clone(),
            r#type: t,
            origin,
            path,
            line,
            weight: t.weight(),
        })
        .collect();
    let hashed = ids_with_hash(ids);
    for (i, f) in files {
        let mut doc = f.doc;
        doc.id = ids[i].clone();
        let chunks = chunk_ids(&doc.id, &f.sections, &hashed);
        for (sec, chunk_id) in f.sections.into_iter().zip(chunks) {
            out_edges.push(Edge {
                source: chunk_id.clone(),
                target: doc.id.clone(),
                r#type: EdgeType::SectionOf,
                origin: Origin::Structure,
                path: doc.path.clone(),
                line: sec.line,
                weight: EdgeType::SectionOf.weight(),
            });
            nodes.push(Node {
                id: chunk_id,
                kind: Kind::Chunk,
                path: doc.path.clone(),
                doc: Some(doc.id.clone()),
                heading: Some(sec.heading),
                level: Some(sec.level),
                line: Some(sec.line),
                text_line: Some(sec.text_line),
                tokens: Some(sec.tokens),
                text: Some(sec.text),
                ..Node::default()
            });
        }
        nodes.push(doc);
    }
    nodes.par_sort_unstable_by(|a, b| a.id.cmp(&b.id));
    out_edges.par_sort_unstable_by(|a, b| {
        (&a.source, a.r#type, &a.target, a.line).cmp(&(&b.source, b.r#type, &b.target, b.line))
    });
    Graph {
        nodes,
        edges: out_edges,
    }
}

/// Document ids that contain `#` (`id: X#goal`): a chunk id must not take one.
fn ids_with_hash(ids: &[String]) -> HashSet<&str> {
    ids.iter().filter(|id| id.contains('#')).map(String::as_str).collect()
}

/// The chunk ids of a document's sections. Section slugs are unique within the document:
/// a repeated heading gets `-2`, `-3`, … skipping any suffix another heading already took
/// ("Phase 2") and any that would make the id of another document (`hashed`). (Slugs hold
/// no `#`, so chunks of different documents never collide.)
fn chunk_ids(doc_id: &str, sections: &[Section], hashed: &HashSet<&str>) -> Vec<String> {
    let mut taken: HashSet<String> = HashSet::new();
    sections
        .iter()
        .map(|sec| {
            let base = slug(&sec.heading, sec.level);
            let mut name = base.clone();
            let mut n = 1;
            while !taken.insert(name.clone()) || hashed.contains(format!("{doc_id}#{name}").as_str()) {
                n += 1;
                name = format!("{base}-{n}");
            }
            format!("{doc_id}#{name}")
        })
        .collect()
}

/// A chunk id slug: `Acceptance Criteria` → `acceptance-criteria`; text before the first
/// heading is `preamble`.
pub fn slug(heading: &str, level: u8) -> String {
    if level == 0 {
        return "preamble".into();
    }
    let mut out = String::new();
    for c in heading.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "section".into()
    } else {
        out.chars().take(80).collect()
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

    #[test]
    fn slugs() {
        assert_eq!(slug("Acceptance Criteria", 1), "acceptance-criteria");
        assert_eq!(slug("Risks / Dependencies", 1), "risks-dependencies");
        assert_eq!(slug("", 0), "preamble");
        assert_eq!(slug("!!!", 2), "section");
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
