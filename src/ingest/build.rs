//! Index: the scan → parse → resolve → sidecar → SQLite mirror pipeline, incremental by
//! content hash ([`build_index`] runs all of it; [`build`] stops at the sidecar).
//!
//! Unchanged files (same path, same blake3) are not re-parsed: their parse is rebuilt from
//! the previous sidecar (the document node keeps its fields and raw references, chunk
//! nodes keep the sections, parse-stage diagnostics are kept). Resolution always runs over
//! all files, so the result is byte-identical to a full rebuild.

use crate::config::Config;
use crate::error::Error;
use crate::ingest::markdown::Section;
use crate::ingest::parse::{ParsedFile, parse_file};
use crate::ingest::resolve::{Resolved, resolve, resolve_lean};
use crate::ingest::scan::{Scan, scan};
use crate::model::diag::{Counts, Diagnostic};
use crate::model::{Kind, Node};
use crate::progress::Progress;
use crate::store::sidecar::{self, Meta, MetaCounts};
use crate::store::statcache::{self, Stamp, StatCache};
use crate::store::{files, mirror};
use crate::timing::Timings;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// How to build.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuildOptions {
    /// Ignore the previous index and parse every file.
    pub full: bool,
    /// Write the result to the index folder (false: compute only, as `check` does).
    pub write: bool,
}

/// What a build did.
#[derive(Debug, Clone, Default)]
pub struct BuildReport {
    /// The index was already up to date; nothing was computed or written.
    pub up_to_date: bool,
    /// Files parsed in this run.
    pub parsed: usize,
    /// Files whose previous parse was reused.
    pub reused: usize,
    /// Output files that were (re)written.
    pub written: Vec<String>,
    /// The meta record of the result.
    pub meta: Meta,
    /// All diagnostics of the result, sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// How long each phase took.
    pub timings: Timings,
    /// When the edit short cut made the index: what it changed (an index held in memory
    /// applies it, see `Index::apply_edits`).
    pub(crate) edits: Option<Edits>,
}

/// The edit short cut's change of the index.
#[derive(Debug, Clone)]
pub(crate) struct Edits {
    /// The sidecar digest of the index they were applied to.
    pub(crate) from: String,
    /// The edited documents as the new index holds them.
    pub(crate) docs: Vec<crate::store::mirror::DocEdit>,
}

impl BuildReport {
    /// The report of a run that found the index up to date (`meta` and its diagnostics).
    pub(crate) fn unchanged(meta: Meta, diagnostics: Vec<Diagnostic>, timings: Timings) -> BuildReport {
        BuildReport {
            up_to_date: true,
            reused: meta.files.len(),
            meta,
            diagnostics,
            timings,
            ..BuildReport::default()
        }
    }
}

/// The (path → hash) map of a scan.
pub fn file_map(scan: &Scan) -> BTreeMap<String, String> {
    scan.files.iter().map(|f| (f.rel.clone(), f.hash.clone())).collect()
}

/// Build or refresh the index and its SQLite mirror (when `cfg.sqlite`), incrementally
/// unless `full`: the whole of `mdgraph index`, and of [`build_with_progress`] with
/// `write` plus the mirror. `spec` says what the mirror is made for (its backlog table is
/// computed by the query layer, above this one).
pub fn build_index(
    cfg: &Config,
    full: bool,
    spec: &mirror::Spec,
    progress: Option<&Progress>,
) -> Result<BuildReport, Error> {
    if !full && let Some(report) = crate::ingest::edit::apply(cfg, cfg.sqlite.then_some(spec), progress)? {
        return Ok(report);
    }
    // The mirror is updated in place from the graph when it can be (it compares every
    // row, see `same_rows` in `build_inner`); else it is rebuilt, as by `--full`, from
    // the files just written, a batch at a time, once the resolved backlog is dropped.
    let update_in_place = cfg.sqlite && !full && mirror::db_path(&cfg.index_dir).is_file();
    let Built {
        mut report,
        resolved,
        stamps,
    } = build_inner(
        cfg,
        BuildOptions { full, write: true },
        progress,
        false,
        update_in_place,
    )?;
    if cfg.sqlite {
        let mut phase = "sqlite";
        if report.up_to_date {
            mirror::sync(&cfg.index_dir, spec)?;
        } else if !mirror::is_fresh(&cfg.index_dir, &report.meta.outputs, spec) {
            if let Some(p) = progress {
                p.phase("writing the SQLite mirror", 0);
            }
            let (dir, meta) = (&cfg.index_dir, &report.meta);
            let updated = resolved.is_some_and(|r| {
                let graph = r.into_graph();
                mirror::update(dir, meta, &graph.nodes, &graph.edges, spec).unwrap_or(false)
            });
            if updated {
                phase = "sqlite (updated in place)";
            } else {
                mirror::rebuild_from_files(dir, meta, spec, &stamps)?;
            }
        }
        report.timings.mark(phase);
    }
    Ok(report)
}

/// Build or refresh the index's JSONL files (not the SQLite mirror: see `build_index`).
pub fn build(cfg: &Config, opts: BuildOptions) -> Result<BuildReport, Error> {
    build_with_progress(cfg, opts, None)
}

/// [`build`], reporting its phases (and each parsed file) to a progress line. An edit
/// takes the short cut of [`crate::ingest::edit`] (the SQLite mirror, which this does not
/// write, is then left for the next query to bring up to date).
pub fn build_with_progress(
    cfg: &Config,
    opts: BuildOptions,
    progress: Option<&Progress>,
) -> Result<BuildReport, Error> {
    build_inner(cfg, opts, progress, opts.write && !opts.full, false).map(|b| b.report)
}

/// What [`build_inner`] made.
struct Built {
    report: BuildReport,
    /// The resolved backlog, when asked for and one was made.
    resolved: Option<Resolved>,
    /// The stamps of the output files written (their digests are the report's).
    stamps: Vec<(String, Stamp)>,
}

impl Built {
    fn unchanged(report: BuildReport) -> Built {
        Built {
            report,
            resolved: None,
            stamps: Vec::new(),
        }
    }
}

/// The build; with `keep`, the resolved backlog too (when one was made).
fn build_inner(
    cfg: &Config,
    opts: BuildOptions,
    progress: Option<&Progress>,
    try_edit: bool,
    keep: bool,
) -> Result<Built, Error> {
    if try_edit && let Some(report) = crate::ingest::edit::apply(cfg, None, progress)? {
        return Ok(Built::unchanged(report));
    }
    let phase = |name: &'static str, total: usize| {
        if let Some(p) = progress {
            p.phase(name, total);
        }
    };
    // Before the lock, which creates the index folder (often inside the root).
    if !cfg.root.is_dir() {
        return Err(Error::NoRoot(cfg.root.clone()));
    }
    let _lock = if opts.write {
        Some(crate::store::lock::IndexLock::acquire(&cfg.index_dir)?)
    } else {
        None
    };
    let mut timings = Timings::default();
    // When the stat cache vouches for every file, folder and output, the index is the
    // answer: nothing to scan (the probe queries run before they read the index).
    if !opts.full
        && unchanged(cfg)
        && let Some(meta) = sidecar::read_meta(&cfg.index_dir)
    {
        let diagnostics = sidecar::read_jsonl(&cfg.index_dir.join(files::DIAGNOSTICS))?;
        if opts.write {
            sidecar::write_folder_files(&cfg.index_dir, cfg.commit_index)?;
        }
        timings.mark("probe");
        return Ok(Built::unchanged(BuildReport::unchanged(meta, diagnostics, timings)));
    }
    phase("scanning", 0);
    let scan_start = statcache::now_ns();
    let config_digest = cfg.settings.digest();
    let prev_meta = sidecar::read_meta(&cfg.index_dir);
    let compatible = prev_meta
        .as_ref()
        .is_some_and(|m| !opts.full && m.schema == sidecar::SCHEMA_VERSION && m.config_digest == config_digest);
    // Without a previous index to reuse every file is parsed and counted: the token
    // counter loads while the files are walked and read.
    if !compatible {
        crate::text::tokens::preload(cfg.settings.tokenizer);
    }
    // The stat cache may stand in for reading a file only when its previous parse can
    // be reused; otherwise every file is read.
    let old_cache = StatCache::load(&cfg.index_dir);
    let mut scanned = scan(
        &cfg.root,
        &cfg.index_dir,
        &cfg.settings.scan,
        compatible.then_some(&old_cache),
        true,
    )?;
    let files = file_map(&scanned);
    let source_digest = sidecar::source_digest(&files);
    timings.mark("scan");

    if let Some(m) = prev_meta.as_ref().filter(|m| {
        compatible
            && m.source_digest == source_digest
            && sidecar::damaged_outputs(&cfg.index_dir, m, &old_cache).is_empty()
    }) {
        let diagnostics = sidecar::read_jsonl(&cfg.index_dir.join(files::DIAGNOSTICS))?;
        if opts.write {
            sidecar::write_folder_files(&cfg.index_dir, cfg.commit_index)?;
            let _ = save_cache(cfg, &scanned, scan_start, m);
        }
        timings.mark("verify");
        return Ok(Built::unchanged(BuildReport::unchanged(
            m.clone(),
            diagnostics,
            timings,
        )));
    }
    let mut prev = match compatible {
        true => previous_parses(&cfg.index_dir)
            .map(|(parses, _)| parses)
            .unwrap_or_default(),
        false => HashMap::new(),
    };
    timings.mark("load previous");

    let mut reused = 0;
    let mut to_parse = vec![false; scanned.files.len()];
    let mut parsed: Vec<ParsedFile> = Vec::with_capacity(scanned.files.len());
    for (i, f) in scanned.files.iter_mut().enumerate().filter(|(_, f)| f.indexable()) {
        match prev.remove(f.rel.as_str()) {
            Some(p) if p.doc.hash.as_deref() == Some(f.hash.as_str()) => {
                parsed.push(p);
                reused += 1;
                f.text = None;
            }
            _ => to_parse[i] = true,
        }
    }
    drop(prev);
    phase("parsing", to_parse.iter().filter(|&&p| p).count());
    // Each file's text is dropped once it is parsed: the sections hold what is needed of
    // it, and the whole corpus (157 MB at 100k items) is never held next to the parses.
    let fresh: Vec<ParsedFile> = scanned
        .files
        .par_iter_mut()
        .zip(to_parse.par_iter())
        .filter(|(_, parse)| **parse)
        .filter_map(|(f, _)| {
            // Read now if the scan took the hash from the stat cache; a file that changed
            // since the scan is indexed as it was scanned (its hash), then seen as stale.
            let text = match f.text.take() {
                Some(t) => t,
                None => f.load_text()?.into_owned(),
            };
            let mut p = parse_file(&f.rel, &f.hash, &text, &cfg.settings);
            count_tokens(&mut p, cfg.settings.tokenizer);
            if let Some(pr) = progress {
                pr.inc();
            }
            Some(p)
        })
        .collect();
    let n_parsed = fresh.len();
    parsed.extend(fresh);
    timings.mark("parse");

    phase("resolving", 0);
    let mut diagnostics = scanned.diagnostics.clone();
    for p in &mut parsed {
        diagnostics.append(&mut p.diagnostics);
    }
    let (resolved, resolve_diags) = resolve_lean(parsed, &cfg.settings);
    diagnostics.extend(resolve_diags);
    // `[check]`: ignored paths and codes turned off are not recorded, and severities are
    // as configured, so `index`, the sidecar and `check` agree.
    cfg.settings.check.apply(&mut diagnostics);
    diagnostics.sort();
    diagnostics.dedup();
    timings.mark("resolve");

    // Each output is serialized, hashed and written a window of lines at a time: memory
    // holds the resolved backlog and one window, never a serialized file.
    phase("writing", 0);
    // All changed files are staged, then switched in together (meta.json last).
    let mut outputs = std::collections::BTreeMap::new();
    if opts.write {
        std::fs::create_dir_all(&cfg.index_dir).map_err(|e| Error::io(&cfg.index_dir, e))?;
    }
    let mut commit = sidecar::Commit::new(&cfg.index_dir);
    let mut emit = |name: &str,
                    fill: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<files::LineDigest>|
     -> Result<(), Error> {
        let digest = match opts.write {
            true => commit.stage_stream(name, prev_meta.as_ref().and_then(|m| m.outputs.get(name)), fill)?,
            false => fill(&mut std::io::sink())
                .map_err(|e| Error::io(cfg.index_dir.join(name), e))?
                .hex(),
        };
        outputs.insert(name.to_string(), digest);
        Ok(())
    };
    emit(files::NODES, &|out| resolved.write_nodes(out))?;
    emit(files::EDGES, &|out| resolved.write_edges(out))?;
    emit(files::DIAGNOSTICS, &|out| {
        crate::ingest::resolved::write_lines(out, diagnostics.len(), |i, buf| {
            serde_json::to_writer(buf, &diagnostics[i])
        })
    })?;
    let counts = Counts::of(&diagnostics);
    let (documents, chunks, edges) = resolved.counts();
    let meta = Meta {
        schema: sidecar::SCHEMA_VERSION,
        config_digest,
        source_digest,
        counts: MetaCounts {
            files: files.len(),
            documents,
            chunks,
            edges,
            errors: counts.errors,
            warnings: counts.warnings,
        },
        outputs,
        files,
    };
    let (mut written, mut stamps) = (Vec::new(), Vec::new());
    if opts.write {
        let mut meta_bytes = serde_json::to_vec_pretty(&meta).map_err(|e| Error::Other(e.to_string()))?;
        meta_bytes.push(b'\n');
        commit.stage_bytes(files::META, &meta_bytes)?;
        written = commit.apply()?;
        sidecar::write_folder_files(&cfg.index_dir, cfg.commit_index)?;
        stamps = save_cache(cfg, &scanned, scan_start, &meta);
        crate::store::doctable::DocTable::of(resolved.docs(), &mirror::sidecar_digest(&meta.outputs))
            .save(&cfg.index_dir);
    }
    timings.mark("write");
    // An update in place needs the same sections of the same documents: with other
    // files (added, removed, renamed) or another count of sections, it would fail once
    // the graph is made, so none is kept for it; nor past `UPDATE_MAX_NODES`.
    let same_rows = prev_meta.is_some_and(|m| {
        (m.counts.documents, m.counts.chunks) == (documents, chunks)
            && documents + chunks <= mirror::UPDATE_MAX_NODES
            && m.files.keys().eq(meta.files.keys())
    });
    let report = BuildReport {
        up_to_date: false,
        parsed: n_parsed,
        reused,
        written,
        meta,
        diagnostics,
        timings,
        edits: None,
    };
    Ok(Built {
        report,
        resolved: (keep && same_rows).then_some(resolved),
        stamps,
    })
}

/// Token counts of a document's header and sections as a pack prints them.
pub(crate) fn count_tokens(p: &mut ParsedFile, t: crate::text::tokens::Tokenizer) {
    p.doc.tokens = Some(crate::text::tokens::count(t, &crate::text::render::doc_header(&p.doc)));
    for s in &mut p.sections {
        s.tokens = crate::text::tokens::count(t, &crate::text::render::section_block(&s.heading, &s.text));
    }
    for item in &mut p.items {
        count_tokens(item, t);
    }
}

/// Record the stamps of the scanned sources, the walked folders and the index files;
/// returns the output files' stamps.
fn save_cache(cfg: &Config, scanned: &Scan, scan_start: i128, meta: &Meta) -> Vec<(String, Stamp)> {
    let mut outputs: Vec<(&str, Stamp, String)> = files::OUTPUTS
        .iter()
        .filter_map(|name| {
            let st = Stamp::of_path(&cfg.index_dir.join(name))?;
            Some((*name, st, meta.outputs.get(*name)?.clone()))
        })
        .collect();
    let stamps = outputs.iter().map(|(name, st, _)| (name.to_string(), *st)).collect();
    // meta.json too, so the probe notices it missing or replaced.
    if let Some(st) = Stamp::of_path(&cfg.index_dir.join(files::META)) {
        outputs.push((files::META, st, "-".into()));
    }
    let cache = StatCache::from_snapshot(statcache::Snapshot {
        scan_start,
        root: &cfg.root,
        files: scanned
            .files
            .iter()
            .filter_map(|f| Some((f.rel.as_str(), f.stamp?, f.hash.as_str())))
            .collect(),
        dirs: &scanned.dirs,
        config_digest: &meta.config_digest,
        sidecar_digest: &mirror::sidecar_digest(&meta.outputs),
        outputs,
        skipped: scanned.files.iter().filter(|f| f.stamp.is_none()).count(),
    });
    cache.save(&cfg.index_dir);
    stamps
}

/// Whether the index is of this format and config and the stat cache vouches for every
/// source file, folder and output (the probe queries run): then nothing changed and no
/// scan is needed.
pub fn unchanged(cfg: &Config) -> bool {
    sidecar::read_meta_head(&cfg.index_dir).is_some_and(|head| {
        head.schema == sidecar::SCHEMA_VERSION
            && head.config_digest == cfg.settings.digest()
            && statcache::probe(&cfg.index_dir, &cfg.root, &head.config_digest)
                .is_some_and(|sidecar| sidecar == mirror::sidecar_digest(&head.outputs))
    })
}

/// The diagnostics of the graph the root gives with some files' text replaced (`Some`)
/// or removed (`None`), every other file as the index in `cfg.index_dir` holds it (it
/// must be fresh): what `check --staged` judges when the staged backlog differs from the
/// working tree. Only the replaced files are parsed; resolution runs over all of them.
/// Scan-stage findings (a file too large, unreadable) are the index's.
pub fn diagnostics_with(cfg: &Config, overlay: &BTreeMap<String, Option<String>>) -> Result<Vec<Diagnostic>, Error> {
    if let Some(diagnostics) = crate::ingest::edit::diagnostics_with(cfg, overlay) {
        return Ok(diagnostics);
    }
    resolved_with(cfg, overlay)
}

/// [`diagnostics_with`] by resolving every file.
pub(crate) fn resolved_with(
    cfg: &Config,
    overlay: &BTreeMap<String, Option<String>>,
) -> Result<Vec<Diagnostic>, Error> {
    let (mut prev, all) = previous_parses(&cfg.index_dir)
        .ok_or_else(|| Error::Other(format!("{}: the index cannot be read", cfg.display(&cfg.index_dir))))?;
    let mut diagnostics: Vec<Diagnostic> = all
        .iter()
        .filter(|d| {
            use crate::model::diag::Code;
            matches!(
                d.code,
                Code::FileTooLarge | Code::SymlinkOutsideRoot | Code::WalkError | Code::ReadError
            ) && !overlay.contains_key(&d.path)
        })
        .cloned()
        .collect();
    let mut parsed: Vec<ParsedFile> = Vec::with_capacity(prev.len() + overlay.len());
    for (path, text) in overlay {
        prev.remove(path.as_str());
        if let Some(text) = text {
            let hash = blake3::hash(text.as_bytes()).to_hex().to_string();
            parsed.push(parse_file(path, &hash, text, &cfg.settings));
        }
    }
    parsed.extend(prev.into_values());
    parsed.sort_by(|a, b| a.doc.path.cmp(&b.doc.path));
    for p in &mut parsed {
        diagnostics.append(&mut p.diagnostics);
    }
    let (_, resolve_diags) = resolve(parsed, &cfg.settings);
    diagnostics.extend(resolve_diags);
    cfg.settings.check.apply(&mut diagnostics);
    diagnostics.sort();
    diagnostics.dedup();
    Ok(diagnostics)
}

/// Each file's parse as the index in `index_dir` holds it, keyed by path, and all its
/// diagnostics; None when there is no index of this schema or a file does not match its
/// digest. The node file is read a batch at a time, its records moved into the parses.
fn previous_parses(index_dir: &std::path::Path) -> Option<(HashMap<String, ParsedFile>, Vec<Diagnostic>)> {
    let meta = sidecar::read_meta(index_dir).filter(|m| m.schema == sidecar::SCHEMA_VERSION)?;
    let bytes = sidecar::read_verified(index_dir, files::DIAGNOSTICS, &meta)?;
    let all: Vec<Diagnostic> = sidecar::parse_jsonl(&index_dir.join(files::DIAGNOSTICS), &bytes).ok()?;
    let mut diags: HashMap<String, Vec<Diagnostic>> = HashMap::new();
    for d in all.iter().filter(|d| d.code.is_parse_stage()) {
        diags.entry(d.path.clone()).or_default().push(d.clone());
    }
    let mut sections: HashMap<String, Vec<Section>> = HashMap::new();
    let mut docs: Vec<Node> = Vec::new();
    sidecar::read_batches(
        index_dir,
        files::NODES,
        &meta,
        mirror::BATCH,
        None,
        |batch: Vec<Node>| {
            for n in batch {
                if n.kind == Kind::Chunk {
                    sections
                        .entry(n.doc.clone().unwrap_or_default())
                        .or_default()
                        .push(Section {
                            heading: n.heading.unwrap_or_default(),
                            level: n.level.unwrap_or(0),
                            line: n.line.unwrap_or(0),
                            text_line: n.text_line.unwrap_or(0),
                            text: n.text.unwrap_or_default(),
                            tokens: n.tokens.unwrap_or(0),
                        });
                } else {
                    docs.push(n);
                }
            }
            Ok(())
        },
    )
    .ok()?;
    let (items, docs): (Vec<Node>, Vec<Node>) = docs.into_iter().partition(|d| d.inline);
    let mut parses: HashMap<String, ParsedFile> = docs
        .into_iter()
        .map(|mut doc| {
            let mut secs = sections.remove(&doc.id).unwrap_or_default();
            doc.id = doc.raw_id.clone().unwrap_or_default();
            secs.sort_by_key(|s| s.line);
            let mut ds = diags.remove(&doc.path).unwrap_or_default();
            // Parse diagnostics are produced in file order; the sidecar stores them sorted,
            // and the merged list is sorted again, so order here does not matter.
            ds.sort();
            let path = doc.path.clone();
            (path, ParsedFile::new(doc, secs, ds))
        })
        .collect();
    // Items go back inside their files, in file order.
    for mut item in items {
        let secs = sections.remove(&item.id).unwrap_or_default();
        item.id = item.raw_id.clone().unwrap_or_default();
        if let Some(file) = parses.get_mut(&item.path) {
            file.items.push(ParsedFile::new(item, secs, Vec::new()));
        }
    }
    for file in parses.values_mut() {
        file.items.sort_by_key(|i| i.doc.line);
    }
    Some((parses, all))
}
