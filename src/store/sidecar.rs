//! The index folder: `graph_nodes.jsonl`, `graph_edges.jsonl`, `diagnostics.jsonl` and
//! `meta.json`. `meta.json` records the digest of every output, so a hand-edited or
//! damaged index is detected and rebuilt.
//!
//! The files of one build switch together ([`Commit`]): every changed file is first
//! written in full to a temporary file (not fsynced: see `files::write_temp`), then a
//! journal (`.commit`) naming them and their inodes is renamed into place (the commit
//! point), then the temporary files are switched in over the outputs
//! ([`files::switch_in`]), `meta.json` last, and the journal is removed; then the old
//! files are. A run killed before the journal exists leaves the previous index untouched
//! (its temporary files are removed by the next run); a run killed after it is finished
//! by the next reader or writer ([`recover`], under the index lock; an output that
//! already has its staged file's inode was switched), so the folder always holds the
//! previous or the new complete index, never a mix. Files whose bytes would not change
//! are not written.

use crate::error::Error;
use crate::model::diag::Diagnostic;
use crate::model::{Edge, Node};
use crate::store::files::{self, DIAGNOSTICS, EDGES, META, NODES, OUTPUTS, atomic_write, same_contents, write_temp};
use crate::store::statcache::{Stamp, StatCache};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_jsonlines::JsonLinesWriter;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// Version of the on-disk format; a different version makes the index stale.
/// 6: diagnostics carry a `subject` (the key of a baseline entry).
/// 7: a Markdown link's raw reference keeps the destination as written (resolved from
/// the file, then the repository root, at resolve time; it was the file-joined path), and
/// documents carry `nav` (navigation pages).
/// 8: an output's digest is the sum of its lines' digests (mergeable by the merge driver).
/// 9: a typed link's raw reference carries its text (`label`), the id a broken
/// destination falls back to.
/// 10: spec folders read as the real-repository count has them (a BMAD story's first task
/// list and criteria to their heading's end, a phase or task heading without boxes has
/// no state, Kiro's `optional`): a file parsed before reads differently now.
/// 11: a Kiro requirement headed only by its number takes its user story as its title;
/// Spec Kit tasks written as headings (`### T001: …`) are items, and a `Preconditions:`
/// line is a dependency.
/// 12: a Kiro feature is the folder its files sit in, at any depth under `.kiro/specs/`
/// (folders above it group features), and a Kiro task whose parent number has no task
/// hangs under its heading, made a phase, or the file.
/// 13: OpenSpec: `openspec/changes/<id>/` and `openspec/specs/<capability>/` are read as
/// their own layout (changes, tasks, groups, requirements and scenarios as items), no
/// longer as Spec Kit feature folders; the document table marks items whose id yields.
/// Spec files as written in their variants and languages (status lines read past dates
/// and notes, localized role words, Kiro task headings and late `_Requirements_` lines,
/// BMAD ids as written, archived stories as documents), ADR prose successors.
/// A file that is not UTF-8 is an error (`not-utf8`), not a warning.
/// 14: CRLF line ends are read as LF (hash and text), as git stores them under `autocrlf`.
pub const SCHEMA_VERSION: u32 = 14;
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
    /// Set by the merge driver when it merged index files it cannot prove exact (both
    /// sides changed an output): why. `mdgraph index` never writes it, and `check` says
    /// the index is stale while it is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unproven: Option<String>,
    /// Root-relative path → content hash of every source file.
    pub files: BTreeMap<String, String>,
}

/// Digest of a set of (path, hash) pairs, independent of their order of discovery.
pub fn source_digest(files: &BTreeMap<String, String>) -> String {
    // One buffer, hashed at once: four small updates a file took 21 ms at 100k files.
    let mut buf = Vec::with_capacity(files.iter().map(|(p, h)| p.len() + h.len() + 2).sum());
    for (p, hash) in files {
        buf.extend_from_slice(p.as_bytes());
        buf.push(b'\0');
        buf.extend_from_slice(hash.as_bytes());
        buf.push(b'\n');
    }
    blake3::hash(&buf).to_hex().to_string()
}

/// A serialized file as a sequence of byte blocks (concatenated, they are the file).
#[derive(Debug, Default)]
pub struct Blocks(pub Vec<Vec<u8>>);

impl Blocks {
    /// The [`LineDigest`](files::LineDigest) of the concatenation (blocks end at line ends).
    pub fn digest(&self) -> String {
        let mut d = files::LineDigest::default();
        for b in &self.0 {
            d.add(b);
        }
        d.hex()
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

/// The journal of a commit in progress (see the module docs).
pub const JOURNAL: &str = ".commit";

/// The output files of one build, switched in together (see the module docs): stage each
/// file, then [`Commit::apply`]. Dropped without `apply`, the staged files are removed
/// and the index is left as it was.
#[derive(Debug)]
pub struct Commit {
    dir: std::path::PathBuf,
    /// The staged files, in staging order.
    staged: Vec<Staged>,
}

/// A staged file: its temporary name, the output it becomes, and (on Unix) its inode, by
/// which a recovery tells whether it was switched in (after an exchange, the temporary
/// name holds the old file).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Staged {
    tmp: String,
    name: String,
    ino: Option<u64>,
}

impl Staged {
    fn new(tmp: &Path, name: &str) -> Staged {
        Staged {
            tmp: tmp
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default(),
            name: name.to_string(),
            ino: inode(tmp),
        }
    }
}

/// The inode of the file at `path` (not following a link), where there are inodes.
fn inode(path: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(path).ok().map(|m| m.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The old files a commit switched out ([`files::switch_in`]), removed when dropped.
/// Removing a large file frees its cached pages, which takes time (70 ms for the 330 MB
/// node file of a 100k-item backlog): a caller with other work to do lets a thread do it
/// ([`OldFiles::remove_in_background`]).
#[derive(Debug, Default)]
pub struct OldFiles(Vec<std::path::PathBuf>);

impl OldFiles {
    /// Remove the files on a thread; the returned handle waits for it when dropped.
    pub fn remove_in_background(mut self) -> Removal {
        let files = std::mem::take(&mut self.0);
        if files.is_empty() {
            return Removal(None);
        }
        let (tx, rx) = std::sync::mpsc::channel::<Vec<std::path::PathBuf>>();
        let remove = move || {
            if let Ok(files) = rx.recv() {
                drop(OldFiles(files));
            }
        };
        match std::thread::Builder::new().spawn(remove) {
            Ok(handle) => {
                let _ = tx.send(files);
                Removal(Some(handle))
            }
            // No thread: removed here.
            Err(_) => {
                drop(OldFiles(files));
                Removal(None)
            }
        }
    }
}

impl Drop for OldFiles {
    fn drop(&mut self) {
        for f in &self.0 {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// Old files being removed on a thread ([`OldFiles::remove_in_background`]); dropping
/// this waits until they are.
#[derive(Debug)]
pub struct Removal(Option<std::thread::JoinHandle<()>>);

impl Drop for Removal {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            let _ = h.join();
        }
    }
}

impl Commit {
    /// A commit into the index folder `dir`.
    pub fn new(dir: &Path) -> Commit {
        Commit {
            dir: dir.to_path_buf(),
            staged: Vec::new(),
        }
    }

    fn stage(&mut self, name: &str, fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>) -> Result<(), Error> {
        let tmp = write_temp(&self.dir, name, fill)?;
        self.staged.push(Staged::new(&tmp, name));
        Ok(())
    }

    /// Stage what `fill` writes as `name` (it returns the digest of what it wrote)
    /// unless the file already holds these bytes; returns the digest. The bytes go to the
    /// temporary file as they are made and, when their digest is the file's `previous`
    /// one, are compared with it there, never held whole.
    pub fn stage_stream(
        &mut self,
        name: &str,
        previous: Option<&String>,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<files::LineDigest>,
    ) -> Result<String, Error> {
        let mut digest = files::LineDigest::default();
        let tmp = write_temp(&self.dir, name, |f| {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, f);
            digest = fill(&mut out)?;
            out.flush()
        })?;
        if previous == Some(&digest.hex()) && files::same_files(&tmp, &self.dir.join(name)) {
            let _ = std::fs::remove_file(&tmp);
        } else {
            self.staged.push(Staged::new(&tmp, name));
        }
        Ok(digest.hex())
    }

    /// Stage what `fill` writes as `name`.
    pub fn stage_with(
        &mut self,
        name: &str,
        fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    ) -> Result<(), Error> {
        self.stage(name, fill)
    }

    /// Stage `bytes` as `name` unless the file already holds exactly these bytes. Returns
    /// whether it was staged.
    pub fn stage_bytes(&mut self, name: &str, bytes: &[u8]) -> Result<bool, Error> {
        if same_contents(&self.dir.join(name), bytes) {
            return Ok(false);
        }
        self.stage(name, |f| f.write_all(bytes))?;
        Ok(true)
    }

    /// Switch every staged file in: write the journal (the commit point), switch the
    /// staged files in, in staging order, remove the journal, then the old files.
    /// Returns the names written.
    pub fn apply(self) -> Result<Vec<String>, Error> {
        self.apply_keeping_old().map(|(names, _old)| names)
    }

    /// [`Commit::apply`], leaving the removal of the old files to the caller.
    pub fn apply_keeping_old(mut self) -> Result<(Vec<String>, OldFiles), Error> {
        let staged = std::mem::take(&mut self.staged);
        if staged.is_empty() {
            return Ok((Vec::new(), OldFiles::default()));
        }
        let journal: String = staged
            .iter()
            .map(|s| match s.ino {
                Some(ino) => format!("{}\t{}\t{ino}\n", s.tmp, s.name),
                None => format!("{}\t{}\n", s.tmp, s.name),
            })
            .collect();
        let journal_path = self.dir.join(JOURNAL);
        if let Err(e) = atomic_write(&journal_path, |f| f.write_all(journal.as_bytes())) {
            for s in &staged {
                let _ = std::fs::remove_file(self.dir.join(&s.tmp));
            }
            return Err(e);
        }
        let old = finish(&self.dir, &staged)?;
        Ok((staged.into_iter().map(|s| s.name).collect(), old))
    }
}

impl Drop for Commit {
    fn drop(&mut self) {
        for s in &self.staged {
            let _ = std::fs::remove_file(self.dir.join(&s.tmp));
        }
    }
}

/// Switch in the staged files that are still waiting, then remove the journal; returns
/// the old files switched out. Idempotent: a run killed here is finished by the next one.
/// A staged file whose inode the output already has was switched in: its temporary name,
/// if still there, holds the old file.
fn finish(dir: &Path, staged: &[Staged]) -> Result<OldFiles, Error> {
    let mut old = OldFiles::default();
    for s in staged {
        let (from, to) = (dir.join(&s.tmp), dir.join(&s.name));
        match s.ino {
            Some(_) if inode(&to) == s.ino => old.0.push(from),
            Some(_) if inode(&from) == s.ino => {
                let exchanged = files::switch_in(&from, &to).map_err(|e| Error::io(&to, e))?;
                old.0.extend(exchanged.then_some(from));
            }
            Some(_) => {}
            // A journal without inodes (an older mdgraph's, or no inodes here): renamed,
            // never exchanged, so that the temporary name is left holding nothing a
            // second recovery could take for the staged file.
            None if from.exists() => std::fs::rename(&from, &to).map_err(|e| Error::io(&to, e))?,
            None => {}
        }
    }
    let journal = dir.join(JOURNAL);
    std::fs::remove_file(&journal).map_err(|e| Error::io(journal, e))?;
    Ok(old)
}

/// A journal entry names a temporary file of this folder and one of the index's own
/// files, and (written on Unix) the temporary file's inode; anything else (a hand-made
/// or damaged journal) is never acted on.
fn journal_entry(line: &str) -> Option<Staged> {
    let mut fields = line.split('\t');
    let (tmp, name) = (fields.next()?, fields.next()?);
    let ino = match fields.next() {
        Some(n) => Some(n.parse().ok()?),
        None => None,
    };
    let own = OUTPUTS.contains(&name) || name == META;
    let temp = tmp.starts_with(&format!(".{name}.tmp-")) && !tmp.contains(['/', '\\']);
    (own && temp && fields.next().is_none()).then(|| Staged {
        tmp: tmp.to_string(),
        name: name.to_string(),
        ino,
    })
}

/// Finish a commit that a killed run left half done (call with the index lock held,
/// before temporary files are cleaned up). Returns whether there was one. A journal that
/// cannot be read is removed: the outputs then do not match `meta.json`, which readers
/// detect and `index` repairs.
pub fn recover(dir: &Path) -> Result<bool, Error> {
    let path = dir.join(JOURNAL);
    let text = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(Error::io(path, e)),
    };
    let text = String::from_utf8_lossy(&text);
    let entries: Option<Vec<Staged>> = text.lines().map(journal_entry).collect();
    match entries {
        Some(staged) => drop(finish(dir, &staged)?),
        None => std::fs::remove_file(&path).map_err(|e| Error::io(path, e))?,
    }
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

/// Read the index output `name` in batches of `lines` records, in order, checking it
/// against its digest in `meta` as it goes (unless the open file has the stamp `known`,
/// that of the file this process just wrote with that digest): `f` gets each batch. A
/// damaged line, or a file that does not match its digest, is an error (after the
/// batches before it): what was made of them must be thrown away. Memory holds one
/// batch, not the file.
pub fn read_batches<T: serde::de::DeserializeOwned + Send>(
    index_dir: &Path,
    name: &str,
    meta: &Meta,
    lines: usize,
    known: Option<&Stamp>,
    mut f: impl FnMut(Vec<T>) -> Result<(), Error>,
) -> Result<(), Error> {
    use std::io::BufRead;
    let path = index_dir.join(name);
    let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
    let stamp = file.metadata().ok().map(|m| Stamp::of(&m));
    let verify = known.is_none_or(|k| stamp.as_ref() != Some(k));
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut digest = files::LineDigest::default();
    let mut buf: Vec<u8> = Vec::new();
    let mut first_line = 0;
    loop {
        buf.clear();
        let mut n = 0;
        while n < lines.max(1) {
            let read = reader.read_until(b'\n', &mut buf).map_err(|e| Error::io(&path, e))?;
            if read == 0 {
                break;
            }
            n += 1;
        }
        if n == 0 {
            break;
        }
        let (records, d) = rayon::join(
            || {
                parse_jsonl::<T>(&path, &buf).map_err(|_| {
                    // The batch's own line number, made the file's.
                    let bad = buf
                        .split(|&b| b == b'\n')
                        .position(|l| !l.iter().all(u8::is_ascii_whitespace) && serde_json::from_slice::<T>(l).is_err())
                        .unwrap_or(0);
                    Error::Other(format!(
                        "{}:{}: damaged index record; run `mdgraph index --full`",
                        path.display(),
                        first_line + bad + 1
                    ))
                })
            },
            || verify.then(|| files::LineDigest::of(&buf)),
        );
        digest = digest.plus(d.unwrap_or_default());
        f(records?)?;
        first_line += n;
    }
    if verify && meta.outputs.get(name) != Some(&digest.hex()) {
        return Err(Error::Other(format!(
            "{}: does not match its digest in meta.json; run `mdgraph index --full`",
            path.display()
        )));
    }
    Ok(())
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

/// Whether the index folder holds a `meta.json` that is no index record (`{}`, cut
/// short, not JSON): the index is then rebuilt from the sources, as if it had none.
pub fn meta_damaged(index_dir: &Path) -> bool {
    index_dir.join(META).is_file() && read_meta_head(index_dir).is_none()
}

/// The head of `meta.json`: everything but the map of source files, which it skips
/// without building (what a query, and a check that finds nothing changed, need).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MetaHead {
    /// Format version.
    pub schema: u32,
    /// Digest of the index-shaping settings.
    pub config_digest: String,
    /// blake3 of each output file.
    pub outputs: BTreeMap<String, String>,
    /// Why the merge driver could not prove the index exact, if it could not.
    #[serde(default)]
    pub unproven: Option<String>,
}

/// Read the head of `meta.json`; None when absent or unreadable.
///
/// Every query asks this, and at 10k items the file is 1.4 MB, nearly all of it the map
/// of source files, written last (`mdgraph index` writes it pretty-printed in field
/// order): the head is read from the file's first bytes, up to where that map starts.
/// A file written otherwise is read whole.
pub fn read_meta_head(index_dir: &Path) -> Option<MetaHead> {
    use std::io::Read;
    const FILES: &[u8] = b",\n  \"files\":";
    let mut f = std::fs::File::open(index_dir.join(META)).ok()?;
    let mut bytes = Vec::new();
    (&mut f).take(16 * 1024).read_to_end(&mut bytes).ok()?;
    if let Some(at) = bytes.windows(FILES.len()).position(|w| w == FILES) {
        let mut head = bytes[..at].to_vec();
        head.extend_from_slice(b"\n}");
        if let Ok(h) = serde_json::from_slice(&head) {
            return Some(h);
        }
    }
    f.read_to_end(&mut bytes).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The bytes of an output file if they match the digest recorded in `meta.json`.
pub(crate) fn read_verified(index_dir: &Path, name: &str, meta: &Meta) -> Option<Vec<u8>> {
    let bytes = std::fs::read(index_dir.join(name)).ok()?;
    (*meta.outputs.get(name)? == files::LineDigest::of(&bytes).hex()).then_some(bytes)
}

/// The [`LineDigest`](files::LineDigest) of an output file.
pub fn file_digest(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    Some(files::LineDigest::of(&bytes).hex())
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
    load_with(index_dir, read_meta(index_dir)?, with_edges)
}

/// [`load_parts`] of the index whose `meta.json` the caller read: `meta`.
pub fn load_with(index_dir: &Path, meta: Meta, with_edges: bool) -> Option<Loaded> {
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

/// The documents (without their sections) and the edges whose `type` passes `keep_edge`:
/// what the backlog questions (list, ready, tree) read. Lines are filtered before they
/// are parsed, so the section texts that make up most of the index are never decoded.
pub fn load_docs(index_dir: &Path, keep_edge: impl Fn(&str) -> bool + Sync) -> Option<(Vec<Node>, Vec<Edge>)> {
    let meta = read_meta(index_dir)?;
    if meta.schema != SCHEMA_VERSION {
        return None;
    }
    let get = |name: &str| read_verified(index_dir, name, &meta);
    let (nodes, edges) = (get(NODES)?, get(EDGES)?);
    // The first `"key":` of a record is the key itself: string values escape quotes.
    let value_of = |line: &[u8], key: &str| -> Option<String> {
        let text = std::str::from_utf8(line).ok()?;
        let at = text.find(key)? + key.len();
        let rest = text[at..].strip_prefix('"')?;
        Some(rest[..rest.find('"')?].to_string())
    };
    let pick = |bytes: &[u8], keep: &(dyn Fn(&[u8]) -> bool + Sync)| -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len() / 4);
        for line in bytes.split(|&b| b == b'\n').filter(|l| keep(l)) {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
        out
    };
    let docs = pick(&nodes, &|l: &[u8]| {
        value_of(l, "\"kind\":").is_some_and(|k| k != "chunk")
    });
    let edges = pick(&edges, &|l: &[u8]| {
        value_of(l, "\"type\":").is_some_and(|t| keep_edge(&t))
    });
    Some((
        parse_jsonl(&index_dir.join(NODES), &docs).ok()?,
        parse_jsonl(&index_dir.join(EDGES), &edges).ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_head_is_read_from_the_first_bytes_and_agrees_with_the_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let files: BTreeMap<String, String> = (0..2000)
            .map(|i| (format!("items/t-{i}.md"), format!("{i:064x}")))
            .collect();
        let meta = Meta {
            schema: 7,
            config_digest: "c".repeat(64),
            source_digest: source_digest(&files),
            counts: MetaCounts::default(),
            outputs: BTreeMap::from([("graph_nodes.jsonl".to_string(), "d".repeat(64))]),
            unproven: None,
            files,
        };
        let whole = |bytes: &[u8]| -> MetaHead { serde_json::from_slice(bytes).unwrap() };
        // As `mdgraph index` writes it (pretty), and written otherwise (compact): the same.
        for bytes in [
            serde_json::to_vec_pretty(&meta).unwrap(),
            serde_json::to_vec(&meta).unwrap(),
        ] {
            assert!(bytes.len() > 16 * 1024);
            std::fs::write(tmp.path().join(META), &bytes).unwrap();
            assert_eq!(read_meta_head(tmp.path()), Some(whole(&bytes)));
        }
        std::fs::write(tmp.path().join(META), b"{\"schema\": 7,\n  \"files\": {}").unwrap();
        assert_eq!(read_meta_head(tmp.path()), None);
    }

    fn read(dir: &Path, name: &str) -> String {
        std::fs::read_to_string(dir.join(name)).unwrap_or_default()
    }

    #[test]
    fn commit_switches_staged_files_and_skips_unchanged_ones() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join(NODES), "old nodes\n").unwrap();
        std::fs::write(d.join(EDGES), "same edges\n").unwrap();
        let mut c = Commit::new(d);
        assert!(c.stage_bytes(NODES, b"new nodes\n").unwrap());
        let same = c
            .stage_stream(
                EDGES,
                Some(&files::LineDigest::of(b"same edges\n").hex()),
                |out: &mut dyn Write| {
                    out.write_all(b"same ")?;
                    out.write_all(b"edges\n")?;
                    Ok(files::LineDigest::of(b"same edges\n"))
                },
            )
            .unwrap();
        assert_eq!(same, files::LineDigest::of(b"same edges\n").hex());
        assert!(c.stage_bytes(META, b"{}\n").unwrap());
        // Nothing is visible before apply.
        assert_eq!(read(d, NODES), "old nodes\n");
        assert_eq!(c.apply().unwrap(), [NODES, META]);
        assert_eq!(read(d, NODES), "new nodes\n");
        assert_eq!(read(d, META), "{}\n");
        let left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "journal or temporary files left: {left:?}");
    }

    #[test]
    fn dropped_commit_leaves_the_index_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(NODES), "old\n").unwrap();
        let mut c = Commit::new(dir.path());
        c.stage_bytes(NODES, b"new\n").unwrap();
        drop(c);
        assert_eq!(read(dir.path(), NODES), "old\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn recover_finishes_a_commit_killed_between_renames() {
        // The state a run killed after renaming the nodes leaves: journal, nodes renamed,
        // edges and meta still staged.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for (name, text) in [(NODES, "new nodes"), (EDGES, "old edges"), (META, "old meta")] {
            std::fs::write(d.join(name), text).unwrap();
        }
        std::fs::write(d.join(".graph_edges.jsonl.tmp-42"), "new edges").unwrap();
        std::fs::write(d.join(".meta.json.tmp-42"), "new meta").unwrap();
        std::fs::write(
            d.join(JOURNAL),
            ".graph_nodes.jsonl.tmp-42\tgraph_nodes.jsonl\n.graph_edges.jsonl.tmp-42\tgraph_edges.jsonl\n.meta.json.tmp-42\tmeta.json\n",
        )
        .unwrap();
        assert!(recover(d).unwrap());
        assert_eq!(
            [read(d, NODES), read(d, EDGES), read(d, META)],
            ["new nodes", "new edges", "new meta"]
        );
        assert!(!d.join(JOURNAL).exists());
        assert!(!recover(d).unwrap(), "nothing left to recover");
    }

    #[cfg(unix)]
    #[test]
    fn recover_tells_a_switched_file_by_its_inode() {
        // A run killed after switching the nodes in (on Linux by an exchange: the
        // temporary name then holds the old nodes) and before the edges: the journal names
        // each staged file's inode.
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let ino = |name: &str| std::fs::metadata(d.join(name)).unwrap().ino();
        for (name, text) in [(NODES, "old nodes"), (EDGES, "old edges")] {
            std::fs::write(d.join(name), text).unwrap();
        }
        let (nodes_tmp, edges_tmp) = (".graph_nodes.jsonl.tmp-42", ".graph_edges.jsonl.tmp-42");
        std::fs::write(d.join(nodes_tmp), "new nodes").unwrap();
        std::fs::write(d.join(edges_tmp), "new edges").unwrap();
        let journal = format!(
            "{nodes_tmp}\t{NODES}\t{}\n{edges_tmp}\t{EDGES}\t{}\n",
            ino(nodes_tmp),
            ino(edges_tmp)
        );
        files::switch_in(&d.join(nodes_tmp), &d.join(NODES)).unwrap();
        std::fs::write(d.join(JOURNAL), journal).unwrap();
        assert!(recover(d).unwrap());
        assert_eq!([read(d, NODES), read(d, EDGES)], ["new nodes", "new edges"]);
        let left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "journal, old or temporary files left: {left:?}");
    }

    #[test]
    fn a_journal_without_inodes_is_recovered_by_renames_twice_over() {
        // An older mdgraph's journal (no inodes). A recovery killed after its switch and
        // before the journal went must leave nothing the next one takes for the staged
        // file: a rename, not an exchange (which would leave the old nodes there).
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join(NODES), "old nodes").unwrap();
        std::fs::write(d.join(".graph_nodes.jsonl.tmp-7"), "new nodes").unwrap();
        let journal = ".graph_nodes.jsonl.tmp-7\tgraph_nodes.jsonl\n";
        std::fs::write(d.join(JOURNAL), journal).unwrap();
        let staged = vec![journal_entry(journal.trim_end()).unwrap()];
        assert_eq!(staged[0].ino, None);
        let old = finish(d, &staged).unwrap();
        assert!(!d.join(".graph_nodes.jsonl.tmp-7").exists(), "renamed away");
        drop(old);
        // As if killed before the journal was removed: it is found again.
        std::fs::write(d.join(JOURNAL), journal).unwrap();
        assert!(recover(d).unwrap());
        assert_eq!(read(d, NODES), "new nodes");
    }

    #[test]
    fn recover_never_acts_on_a_foreign_journal() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("victim"), "keep").unwrap();
        std::fs::write(d.join(".x.tmp-1"), "evil").unwrap();
        for journal in [
            ".x.tmp-1\t../victim\n",
            ".x.tmp-1\tvictim\n",
            "../.meta.json.tmp-1\tmeta.json\n",
            "garbage",
        ] {
            std::fs::write(d.join(JOURNAL), journal).unwrap();
            assert!(recover(d).unwrap());
            assert!(!d.join(JOURNAL).exists());
            assert_eq!(read(d, "victim"), "keep", "{journal:?}");
            assert!(d.join(".x.tmp-1").exists());
        }
    }
}
