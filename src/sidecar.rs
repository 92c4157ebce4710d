//! The index folder: `graph_nodes.jsonl`, `graph_edges.jsonl`, `diagnostics.jsonl` and
//! `meta.json`. Writes are atomic (temporary file + rename) and skipped when the bytes
//! would not change; `meta.json` is written last and records the digest of every output,
//! so a torn or hand-edited index is detected and rebuilt.

use crate::diag::Diagnostic;
use crate::error::Error;
use crate::model::{Edge, Node};
use crate::statcache::{Stamp, StatCache};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_jsonlines::JsonLinesWriter;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// Version of the on-disk format; a different version makes the index stale.
pub const SCHEMA_VERSION: u32 = 4;
/// Node file name.
pub const NODES: &str = "graph_nodes.jsonl";
/// Edge file name.
pub const EDGES: &str = "graph_edges.jsonl";
/// Diagnostics file name.
pub const DIAGNOSTICS: &str = "diagnostics.jsonl";
/// Meta file name.
pub const META: &str = "meta.json";
/// The output files whose digests `meta.json` records.
pub const OUTPUTS: [&str; 3] = [NODES, EDGES, DIAGNOSTICS];
/// The index folder's own `.gitignore`: local caches and the SQLite mirror stay out of git.
pub const GITIGNORE: &str = "# Written by mdgraph: local caches are not part of the index.\n.stat-cache\n.lock\n*.sqlite\n*.sqlite-*\n.*.tmp-*\n";

/// Totals recorded in `meta.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetaCounts {
    /// Source files seen (including skipped ones).
    pub files: usize,
    /// Document nodes.
    pub documents: usize,
    /// Chunk (section) nodes.
    pub chunks: usize,
    /// Edges.
    pub edges: usize,
    /// Error diagnostics.
    pub errors: usize,
    /// Warning diagnostics.
    pub warnings: usize,
}

/// `meta.json`: what the index was built from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// Format version.
    pub schema: u32,
    /// Digest of the index-shaping settings.
    pub config_digest: String,
    /// Digest over every source path and content hash.
    pub source_digest: String,
    /// Totals.
    pub counts: MetaCounts,
    /// blake3 of each output file.
    pub outputs: BTreeMap<String, String>,
    /// Root-relative path → content hash of every source file.
    pub files: BTreeMap<String, String>,
}

/// Digest of a set of (path, hash) pairs, independent of their order of discovery.
pub fn source_digest(files: &BTreeMap<String, String>) -> String {
    let mut h = blake3::Hasher::new();
    for (p, hash) in files {
        h.update(p.as_bytes());
        h.update(b"\0");
        h.update(hash.as_bytes());
        h.update(b"\n");
    }
    h.finalize().to_hex().to_string()
}

/// A serialized file as a sequence of byte blocks (concatenated, they are the file).
#[derive(Debug, Default)]
pub struct Blocks(pub Vec<Vec<u8>>);

impl Blocks {
    /// blake3 of the concatenation.
    pub fn digest(&self) -> String {
        let mut h = blake3::Hasher::new();
        for b in &self.0 {
            h.update(b);
        }
        h.finalize().to_hex().to_string()
    }

    /// Total length in bytes.
    pub fn len(&self) -> usize {
        self.0.iter().map(Vec::len).sum()
    }

    /// True when there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Serialize records as JSON lines, in parallel blocks; the bytes are those of one
/// sequential pass.
pub fn to_jsonl_blocks<T: Serialize + Sync>(items: &[T]) -> Blocks {
    Blocks(
        items
            .par_chunks(2048)
            .map(|chunk| {
                let mut w = JsonLinesWriter::new(Vec::with_capacity(chunk.len() * 256));
                for it in chunk {
                    // Serializing plain data into a Vec cannot fail.
                    let _ = w.write(it);
                }
                w.into_inner()
            })
            .collect(),
    )
}

/// Write `blocks` to `path` atomically unless the file already holds these bytes (same
/// length and digest, compared by streaming). Returns whether the file was written.
pub fn write_blocks_if_changed(path: &Path, blocks: &Blocks) -> Result<bool, Error> {
    let same_len = std::fs::metadata(path)
        .map(|m| m.len() == blocks.len() as u64)
        .unwrap_or(false);
    if same_len && file_digest(path).is_some_and(|d| d == blocks.digest()) {
        return Ok(false);
    }
    atomic_write(path, |f| {
        for b in &blocks.0 {
            f.write_all(b)?;
        }
        Ok(())
    })?;
    Ok(true)
}

/// Write through a temporary file in the same folder, fsync, rename over `path`.
fn atomic_write(path: &Path, fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>) -> Result<(), Error> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        fill(&mut f)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

/// True when the file at `path` holds exactly `bytes` (compared in blocks, without
/// reading the whole file into memory).
fn same_contents(path: &Path, bytes: &[u8]) -> bool {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    if f.metadata().map(|m| m.len()).ok() != Some(bytes.len() as u64) {
        return false;
    }
    let mut buf = vec![0u8; 1 << 16];
    let mut pos = 0;
    loop {
        match f.read(&mut buf) {
            Ok(0) => return pos == bytes.len(),
            Ok(n) => {
                if pos + n > bytes.len() || buf[..n] != bytes[pos..pos + n] {
                    return false;
                }
                pos += n;
            }
            Err(_) => return false,
        }
    }
}

/// Write `bytes` to `path` atomically unless the file already holds exactly these bytes.
/// Returns whether the file was written.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<bool, Error> {
    if same_contents(path, bytes) {
        return Ok(false);
    }
    atomic_write(path, |f| f.write_all(bytes))?;
    Ok(true)
}

/// Parse JSONL bytes into records (in parallel); a bad line is an error naming the file
/// and line.
pub fn parse_jsonl<T: serde::de::DeserializeOwned + Send>(path: &Path, bytes: &[u8]) -> Result<Vec<T>, Error> {
    let lines: Vec<(usize, &[u8])> = bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
        .collect();
    lines
        .par_iter()
        .map(|(n, line)| {
            serde_json::from_slice(line)
                .map_err(|e| Error::Other(format!("{}:{}: damaged index record: {e}", path.display(), n + 1)))
        })
        .collect()
}

/// Read a JSONL file into records.
pub fn read_jsonl<T: serde::de::DeserializeOwned + Send>(path: &Path) -> Result<Vec<T>, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    parse_jsonl(path, &bytes)
}

/// Read `meta.json`, None when absent or unreadable (treated as no index).
pub fn read_meta(index_dir: &Path) -> Option<Meta> {
    let bytes = std::fs::read(index_dir.join(META)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The bytes of an output file if they match the digest recorded in `meta.json`.
fn read_verified(index_dir: &Path, name: &str, meta: &Meta) -> Option<Vec<u8>> {
    let bytes = std::fs::read(index_dir.join(name)).ok()?;
    (meta.outputs.get(name)? == blake3::hash(&bytes).to_hex().as_str()).then_some(bytes)
}

/// The blake3 digest of a file, computed by streaming.
pub fn file_digest(path: &Path) -> Option<String> {
    let f = std::fs::File::open(path).ok()?;
    let mut h = blake3::Hasher::new();
    h.update_reader(f).ok()?;
    Some(h.finalize().to_hex().to_string())
}

/// Output files whose bytes no longer match the digest in `meta.json`. A file whose stat
/// is unchanged since mdgraph wrote it (per the stat cache) is not re-hashed.
pub fn damaged_outputs(index_dir: &Path, meta: &Meta, cache: &StatCache) -> Vec<String> {
    OUTPUTS
        .iter()
        .filter(|name| {
            let path = index_dir.join(name);
            let want = meta.outputs.get(**name);
            let stamp = std::fs::metadata(&path).ok().map(|m| Stamp::of(&m));
            if let (Some(st), Some(w)) = (stamp, want)
                && cache.output(name, &st) == Some(w.as_str())
            {
                return false;
            }
            file_digest(&path).as_ref() != want
        })
        .map(|s| s.to_string())
        .collect()
}

/// The whole index as loaded from disk.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// Meta.
    pub meta: Meta,
    /// Nodes, sorted by id.
    pub nodes: Vec<Node>,
    /// Edges, sorted.
    pub edges: Vec<Edge>,
    /// Diagnostics, sorted.
    pub diagnostics: Vec<Diagnostic>,
}

/// Load a complete, undamaged index; None when there is none, it has another schema
/// version, or a file does not match its recorded digest.
pub fn load(index_dir: &Path) -> Option<Loaded> {
    load_parts(index_dir, true)
}

/// Like [`load`], optionally without the edges (an incremental run does not need them).
pub fn load_parts(index_dir: &Path, with_edges: bool) -> Option<Loaded> {
    let meta = read_meta(index_dir)?;
    if meta.schema != SCHEMA_VERSION {
        return None;
    }
    let get = |name: &str| read_verified(index_dir, name, &meta);
    let (nodes, diags) = (get(NODES)?, get(DIAGNOSTICS)?);
    let edges = if with_edges {
        parse_jsonl(&index_dir.join(EDGES), &get(EDGES)?).ok()?
    } else {
        Vec::new()
    };
    Some(Loaded {
        nodes: parse_jsonl(&index_dir.join(NODES), &nodes).ok()?,
        edges,
        diagnostics: parse_jsonl(&index_dir.join(DIAGNOSTICS), &diags).ok()?,
        meta,
    })
}
