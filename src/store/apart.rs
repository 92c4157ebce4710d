//! The index read for `mdgraph site`: documents, edges and diagnostics parsed, each
//! document's sections left in the node file, where they are read back only for the
//! pages being rendered (most pages of a run after an edit are not rendered at all). The
//! files are streamed through one buffer and checked against their digests as they go:
//! the section texts that make up most of the index are neither kept nor decoded.

use super::files::{DIAGNOSTICS, EDGES, LineDigest, NODES};
use super::sidecar::{Meta, SCHEMA_VERSION, parse_jsonl, read_meta, read_verified};
use crate::model::diag::Diagnostic;
use crate::model::{Edge, Node};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Where a document's records sit in the node file: its own line and its sections'
/// lines, one run of lines, with their digest (a part of the file's [`LineDigest`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// Offset of its first line.
    pub at: u64,
    /// Length of its lines, newlines included.
    pub len: u64,
    /// The digest of its lines.
    pub digest: LineDigest,
}

/// The index with its sections left in the node file.
pub struct Apart {
    /// Meta.
    pub meta: Meta,
    /// The documents, sorted by id.
    pub docs: Vec<Node>,
    /// The node file.
    nodes: PathBuf,
    /// Each document's section records: (offset, length) of their lines in the node
    /// file, by document id.
    sections: HashMap<String, Vec<(u64, usize)>>,
    /// The edges but `section_of`, sorted.
    pub edges: Vec<Edge>,
    /// Diagnostics, sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// Each document's [`Block`], by id, when its lines are one run (they are, but for
    /// an id that sorts between a document and its sections).
    pub blocks: HashMap<String, Block>,
}

impl Apart {
    /// The JSONL lines of document `id`'s sections, in file order, read from the node
    /// file (none when it cannot be read: a page then shows no body).
    pub fn section_lines(&self, id: &str) -> Vec<String> {
        let Some(spans) = self.sections.get(id) else {
            return Vec::new();
        };
        let Ok(mut f) = std::fs::File::open(&self.nodes) else {
            return Vec::new();
        };
        spans
            .iter()
            .filter_map(|&(at, len)| {
                f.seek(SeekFrom::Start(at)).ok()?;
                let mut buf = vec![0u8; len];
                f.read_exact(&mut buf).ok()?;
                String::from_utf8(buf).ok()
            })
            .collect()
    }
}

/// The value of the first `key` of a JSON record line (the first `"key":` of a record
/// is the key itself: string values escape their quotes).
fn value_of<'l>(line: &'l str, key: &str) -> Option<&'l str> {
    let at = line.find(key)? + key.len();
    let rest = line[at..].strip_prefix('"')?;
    Some(&rest[..rest.find('"')?])
}

/// Stream the output `name` line by line (offset, line without its newline, the line's
/// digest) through `each`; None when it cannot be read, is not UTF-8 or does not match
/// its digest.
fn stream(dir: &Path, name: &str, meta: &Meta, mut each: impl FnMut(u64, &str, LineDigest)) -> Option<()> {
    let file = std::fs::File::open(dir.join(name)).ok()?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let (mut digest, mut line, mut at) = (LineDigest::default(), Vec::new(), 0u64);
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).ok()?;
        if n == 0 {
            break;
        }
        let one = LineDigest::of(&line);
        digest = digest.plus(one);
        let text = std::str::from_utf8(&line).ok()?;
        each(at, text.strip_suffix('\n').unwrap_or(text), one);
        at += n as u64;
    }
    (*meta.outputs.get(name)? == digest.hex()).then_some(())
}

/// Parse JSONL `text` in parallel; None when a line is damaged (its digest matched,
/// so only a record of another version is).
fn parse_lines<T: serde::de::DeserializeOwned + Send>(text: &str) -> Option<Vec<T>> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines.par_iter().map(|l| serde_json::from_str(l).ok()).collect()
}

/// The documents, each one's section spans, and each one's block, from the node file.
type NodeParts = (String, HashMap<String, Vec<(u64, usize)>>, HashMap<String, Block>);

fn read_nodes(dir: &Path, meta: &Meta) -> Option<NodeParts> {
    let (mut docs, mut sections) = (String::new(), HashMap::<String, Vec<(u64, usize)>>::new());
    let mut blocks = Blocks::default();
    let mut bad = false;
    stream(dir, NODES, meta, |at, line, one| match value_of(line, "\"kind\":") {
        _ if line.trim().is_empty() => {}
        Some("chunk") => match value_of(line, "\"doc\":") {
            Some(doc) => {
                blocks.section(doc, line, one);
                match sections.get_mut(doc) {
                    Some(v) => v.push((at, line.len())),
                    None => {
                        sections.insert(doc.to_string(), vec![(at, line.len())]);
                    }
                }
            }
            None => bad = true,
        },
        _ => {
            blocks.doc(value_of(line, "\"id\":"), at, line, one);
            docs.push_str(line);
            docs.push('\n');
        }
    })?;
    (!bad).then_some((docs, sections, blocks.done))
}

/// The blocks of the node file as it is read: the open one grows by its document's
/// section lines; a section line of another document breaks that document's block.
#[derive(Default)]
struct Blocks {
    open: Option<(String, Block)>,
    done: HashMap<String, Block>,
    broken: std::collections::HashSet<String>,
}

impl Blocks {
    fn close(&mut self) {
        if let Some((id, b)) = self.open.take()
            && !self.broken.contains(&id)
        {
            self.done.insert(id, b);
        }
    }

    /// A document's line (its id, when it needs no JSON escape).
    fn doc(&mut self, id: Option<&str>, at: u64, line: &str, one: LineDigest) {
        self.close();
        if let Some(id) = id.filter(|id| !id.contains('\\')) {
            let len = line.len() as u64 + 1;
            self.open = Some((id.to_string(), Block { at, len, digest: one }));
        }
    }

    /// A section line of document `doc`.
    fn section(&mut self, doc: &str, line: &str, one: LineDigest) {
        match &mut self.open {
            Some((id, b)) if id == doc => {
                b.len += line.len() as u64 + 1;
                b.digest = b.digest.plus(one);
            }
            _ => {
                self.done.remove(doc);
                self.broken.insert(doc.to_string());
            }
        }
    }
}

fn read_edges(dir: &Path, meta: &Meta) -> Option<String> {
    let mut kept = String::new();
    stream(dir, EDGES, meta, |_, line, _| {
        if value_of(line, "\"type\":") != Some("section_of") {
            kept.push_str(line);
            kept.push('\n');
        }
    })?;
    Some(kept)
}

/// Load the index as [`Apart`]; None when there is none, it has another schema version,
/// or a file does not match its recorded digest.
pub fn load_apart(index_dir: &Path) -> Option<Apart> {
    let meta = read_meta(index_dir)?;
    if meta.schema != SCHEMA_VERSION {
        return None;
    }
    let (nodes, edges) = rayon::join(|| read_nodes(index_dir, &meta), || read_edges(index_dir, &meta));
    let ((docs, sections, mut blocks), edges) = (nodes?, edges?);
    let (docs, edges) = rayon::join(|| parse_lines(&docs), || parse_lines(&edges));
    let diags = read_verified(index_dir, DIAGNOSTICS, &meta)?;
    // The last line of a file without a final newline is one byte shorter.
    let size = std::fs::metadata(index_dir.join(NODES)).ok()?.len();
    blocks.retain(|_, b| b.at + b.len <= size);
    Some(Apart {
        blocks,
        docs: docs?,
        edges: edges?,
        diagnostics: parse_jsonl(&index_dir.join(DIAGNOSTICS), &diags).ok()?,
        nodes: index_dir.join(NODES),
        sections,
        meta,
    })
}

/// Read again, after an edit, the records of the documents `wanted` (each with its
/// block as the node file last held it, sorted by offset), given that nothing else in
/// the node file changed: each block is read where the file now holds it (its old
/// place shifted by how much the blocks before it grew), and the file's digest must be
/// `old_total` with the old blocks' digests taken out and the new ones put in, which
/// proves every other line is the one `old_total` covered. The result holds those
/// documents, their sections (left in the file), their new blocks and the edges that
/// have an end in them (or in a section of theirs); None when anything does not hold.
pub fn load_delta(index_dir: &Path, meta: Meta, old_total: LineDigest, wanted: &[(&str, Block)]) -> Option<Apart> {
    let nodes = index_dir.join(NODES);
    let mut file = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(&nodes).ok()?);
    let (mut docs, mut sections, mut blocks) = (Vec::new(), HashMap::new(), HashMap::new());
    let (mut total, mut shift) = (old_total, 0i64);
    for &(id, old) in wanted {
        let at = u64::try_from(old.at as i64 + shift).ok()?;
        let (doc, spans, new) = read_block(&mut file, id, at)?;
        shift += new.len as i64 - old.len as i64;
        total = total.merged(new.digest, old.digest);
        docs.push(doc);
        sections.insert(id.to_string(), spans);
        blocks.insert(id.to_string(), new);
    }
    if meta.outputs.get(NODES).and_then(|h| LineDigest::parse(h)) != Some(total) {
        return None;
    }
    docs.sort_by(|a: &Node, b| a.id.cmp(&b.id));
    let ids: std::collections::HashSet<&str> = wanted.iter().map(|(id, _)| *id).collect();
    let edges = edges_touching(index_dir, &ids)?;
    Some(Apart {
        meta,
        docs,
        nodes,
        sections,
        edges,
        diagnostics: Vec::new(),
        blocks,
    })
}

/// A document read again: its node, its sections' spans, its block.
type ReadBlock = (Node, Vec<(u64, usize)>, Block);

/// A document's block read at `at`: its line (which must be document `id`'s), then
/// the section lines of `id` that follow.
fn read_block(file: &mut std::io::BufReader<std::fs::File>, id: &str, at: u64) -> Option<ReadBlock> {
    file.seek(SeekFrom::Start(at)).ok()?;
    let mut line = Vec::new();
    let n = file.read_until(b'\n', &mut line).ok()?;
    let doc: Node = serde_json::from_slice(&line).ok()?;
    if doc.id != id || doc.is_chunk() || line.last() != Some(&b'\n') {
        return None;
    }
    let mut block = Block {
        at,
        len: n as u64,
        digest: LineDigest::of(&line),
    };
    let mut spans = Vec::new();
    loop {
        line.clear();
        let n = file.read_until(b'\n', &mut line).ok()?;
        let text = std::str::from_utf8(&line).ok()?;
        let ours = value_of(text, "\"kind\":") == Some("chunk") && value_of(text, "\"doc\":") == Some(id);
        if n == 0 || !ours || line.last() != Some(&b'\n') {
            break;
        }
        spans.push((at + block.len, n - 1));
        block.len += n as u64;
        block.digest = block.digest.plus(LineDigest::of(&line));
    }
    Some((doc, spans, block))
}

/// The edges (but `section_of`) with an end in one of the documents `ids` or in a
/// section of one, in file order. The edge file is read as it is (the caller knows its
/// digest is the one it last read and checked), a piece per core.
fn edges_touching(index_dir: &Path, ids: &std::collections::HashSet<&str>) -> Option<Vec<Edge>> {
    let path = index_dir.join(EDGES);
    let size = std::fs::metadata(&path).ok()?.len();
    let n = (rayon::current_num_threads() * 2).max(1) as u64;
    let pieces: Vec<(u64, u64)> = (0..n).map(|k| (size * k / n, size * (k + 1) / n)).collect();
    let found = pieces
        .par_iter()
        .map(|&(from, to)| edges_in(&path, from, to, ids))
        .collect::<Option<Vec<Vec<Edge>>>>()?;
    Some(found.into_iter().flatten().collect())
}

/// [`edges_touching`] over the lines that start in `from..to` of the edge file.
fn edges_in(path: &Path, from: u64, to: u64, ids: &std::collections::HashSet<&str>) -> Option<Vec<Edge>> {
    let mut reader = std::io::BufReader::with_capacity(1 << 18, std::fs::File::open(path).ok()?);
    let (mut line, mut kept, mut at) = (Vec::new(), Vec::new(), from);
    if from > 0 {
        // The line that starts before the piece belongs to the piece before it.
        reader.seek(SeekFrom::Start(from - 1)).ok()?;
        at = from - 1 + reader.read_until(b'\n', &mut line).ok()? as u64;
    }
    let touches = |end: Option<&str>| {
        end.is_some_and(|e| ids.contains(e) || e.rsplit_once('#').is_some_and(|(d, _)| ids.contains(d)))
    };
    while at < to {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).ok()?;
        if n == 0 {
            break;
        }
        at += n as u64;
        let text = std::str::from_utf8(&line).ok()?;
        if value_of(text, "\"type\":") != Some("section_of")
            && (touches(value_of(text, "\"source\":")) || touches(value_of(text, "\"target\":")))
        {
            kept.push(serde_json::from_str(text.trim_end()).ok()?);
        }
    }
    Some(kept)
}
