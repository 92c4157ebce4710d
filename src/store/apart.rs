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

/// Stream the output `name` line by line (offset, line without its newline) through
/// `each`; None when it cannot be read, is not UTF-8 or does not match its digest.
fn stream(dir: &Path, name: &str, meta: &Meta, mut each: impl FnMut(u64, &str)) -> Option<()> {
    let file = std::fs::File::open(dir.join(name)).ok()?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let (mut digest, mut line, mut at) = (LineDigest::default(), Vec::new(), 0u64);
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).ok()?;
        if n == 0 {
            break;
        }
        digest.add(&line);
        let text = std::str::from_utf8(&line).ok()?;
        each(at, text.strip_suffix('\n').unwrap_or(text));
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

/// The documents and each one's section spans, from the node file.
type NodeParts = (String, HashMap<String, Vec<(u64, usize)>>);

fn read_nodes(dir: &Path, meta: &Meta) -> Option<NodeParts> {
    let (mut docs, mut sections) = (String::new(), HashMap::<String, Vec<(u64, usize)>>::new());
    let mut bad = false;
    stream(dir, NODES, meta, |at, line| match value_of(line, "\"kind\":") {
        _ if line.trim().is_empty() => {}
        Some("chunk") => match value_of(line, "\"doc\":") {
            Some(doc) => match sections.get_mut(doc) {
                Some(v) => v.push((at, line.len())),
                None => {
                    sections.insert(doc.to_string(), vec![(at, line.len())]);
                }
            },
            None => bad = true,
        },
        _ => {
            docs.push_str(line);
            docs.push('\n');
        }
    })?;
    (!bad).then_some((docs, sections))
}

fn read_edges(dir: &Path, meta: &Meta) -> Option<String> {
    let mut kept = String::new();
    stream(dir, EDGES, meta, |_, line| {
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
    let ((docs, sections), edges) = (nodes?, edges?);
    let (docs, edges) = rayon::join(|| parse_lines(&docs), || parse_lines(&edges));
    let diags = read_verified(index_dir, DIAGNOSTICS, &meta)?;
    Some(Apart {
        docs: docs?,
        edges: edges?,
        diagnostics: parse_jsonl(&index_dir.join(DIAGNOSTICS), &diags).ok()?,
        nodes: index_dir.join(NODES),
        sections,
        meta,
    })
}
