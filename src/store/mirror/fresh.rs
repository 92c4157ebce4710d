//! Which mirror is wanted and whether the one on disk is it: its file, schema and
//! tokenizer, the [`Spec`] it is made for, and the digest of the sidecar it mirrors.

use crate::config::StateGroups;
use crate::error::Error;
use crate::model::backlog::BacklogTable;
use crate::model::{Edge, Node};
use rusqlite::{Connection, OpenFlags};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// File name of the mirror inside the index folder.
pub const DB_FILE: &str = "index.sqlite";
/// Version of the mirror's tables; another version is rebuilt. 8: `nodes` has `raw_id`
/// and `priority` columns and covering indexes for the backlog questions (`nodes_backlog`,
/// `edges_links`), which read those (`read::load_docs`) instead of every document's JSON
/// (10 MB at 10k items). 9: `nodes.nav` (navigation pages, which search follows but does
/// not rank). 10: no `degree` column (expansion counts the walked edges itself; a new link
/// rewrote the rows of both its ends). 11: the edge indexes cover what the graph walk and
/// a pack's relations read (no table row per edge), and the sections' index is in line
/// order (no sort per document); the corpus's document ids are one blob
/// ([`crate::store::postings::Strings`]); the navigation pages have an index of their own. 12: the
/// `backlog` table, made under the `[states]` config named by the `states` meta key
/// ([`Spec`]).
pub const DB_SCHEMA: i64 = 12;

/// What the terms in a mirror depend on: the mdgraph version and the terms the tokenizer
/// makes of a fixed text (case folding, diacritics, scripts, the stemmer). A mirror
/// written under another is rebuilt: its terms would not match the queries', and an
/// update in place removes a changed row's old terms by tokenizing its old text again.
pub fn tokenizer_id() -> String {
    // Made once a process: an edit checks the mirror twice (the probe, then the update).
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        const SAMPLE: &str =
            "Running runners ran; Ünïcödé CAFÉ naïve — straße İstanbul ΣΊΣΥΦΟΣ 東京 ﬁnal x86_64 can't 42nd";
        let terms = crate::text::tokenize::terms(SAMPLE).join(" ");
        format!(
            "{} {}",
            env!("CARGO_PKG_VERSION"),
            blake3::hash(terms.as_bytes()).to_hex()
        )
    })
    .clone()
}

/// Path of the mirror.
pub fn db_path(index_dir: &Path) -> PathBuf {
    index_dir.join(DB_FILE)
}

pub(super) fn sql_err(path: &Path, e: rusqlite::Error) -> Error {
    Error::Other(format!("{}: sqlite: {e}", path.display()))
}

/// What a mirror is made for besides the sidecar it mirrors: with the FTS5 table or
/// not, and the `backlog` table under which `[states]` config.
#[derive(Clone, Copy)]
pub struct Spec<'a> {
    /// Add the FTS5 table (`sqlite_fts`).
    pub fts: bool,
    /// The state groups the `backlog` table is made under. They are query-time config,
    /// outside the config digest the sidecar records: the mirror records their digest,
    /// and a mirror made under other groups is stale.
    pub states: &'a StateGroups,
    /// Makes the `backlog` table from the graph: the backlog questions' own code, which
    /// lives a layer above this one.
    pub backlog: fn(&[Node], &[Edge], &StateGroups) -> BacklogTable,
    /// The same from the documents' columns and their backlog links, as
    /// [`load_docs`](super::load_docs) reads them (an edit's update in place).
    pub backlog_docs: fn(&super::Docs, &StateGroups) -> BacklogTable,
}

impl Spec<'_> {
    /// The digest of the state groups (the `states` meta key).
    pub(super) fn states_digest(&self) -> String {
        let json = serde_json::to_vec(self.states).unwrap_or_default();
        blake3::hash(&json).to_hex().to_string()
    }
}

/// True when the mirror exists, opens, has the current schema, has the FTS5 table exactly
/// when `spec` asks for it, was made under its state groups, and mirrors exactly the
/// sidecar described by `meta`. Any error (corrupt or truncated file) means "not fresh".
pub fn is_fresh(index_dir: &Path, outputs: &BTreeMap<String, String>, spec: &Spec) -> bool {
    mirrors(index_dir, &sidecar_digest(outputs), spec)
}

/// True when the mirror exists, opens, has the current schema and tokenizer
/// ([`tokenizer_id`]), has the FTS5 table exactly when `spec` asks for it, was made under
/// its state groups, and was built from the sidecar with this digest.
pub fn mirrors(index_dir: &Path, sidecar: &str, spec: &Spec) -> bool {
    let path = db_path(index_dir);
    path.is_file()
        && Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .ok()
            .is_some_and(|conn| {
                let _ = conn.busy_timeout(std::time::Duration::from_secs(2));
                current(&conn, sidecar, spec)
            })
}

/// Is the open mirror the one `spec` asks for, built from the sidecar `sidecar`?
pub(super) fn current(conn: &Connection, sidecar: &str, spec: &Spec) -> bool {
    built_from(conn, spec.fts).is_some_and(|d| d == sidecar) && meta_value(conn, "states") == Some(spec.states_digest())
}

pub(super) fn meta_value(conn: &Connection, key: &str) -> Option<String> {
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| {
        r.get::<_, String>(0)
    })
    .ok()
}

/// The value of the `fts` meta key: whether the mirror has the FTS5 table.
pub(super) fn fts_flag(fts: bool) -> &'static str {
    if fts { "1" } else { "0" }
}

/// The digest of the sidecar an open mirror was built from, when its schema, tokenizer
/// and FTS5 table (present exactly when `fts`) are the ones asked for (None otherwise, or
/// when it cannot be read).
pub(super) fn built_from(conn: &Connection, fts: bool) -> Option<String> {
    let get = |k: &str| meta_value(conn, k);
    (get("schema")? == DB_SCHEMA.to_string() && get("tokenizer")? == tokenizer_id() && get("fts")? == fts_flag(fts))
        .then(|| get("sidecar"))
        .flatten()
}

/// One string naming the sidecar state a mirror was built from (a digest over the
/// output digests in `meta.json`).
pub fn sidecar_digest(outputs: &BTreeMap<String, String>) -> String {
    let mut h = blake3::Hasher::new();
    for (name, d) in outputs {
        h.update(name.as_bytes());
        h.update(d.as_bytes());
    }
    h.finalize().to_hex().to_string()
}
