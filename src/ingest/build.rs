//! Index: the scan → parse → resolve → sidecar → SQLite mirror pipeline, incremental by
//! content hash ([`build_index`] runs all of it; [`build`] stops at the sidecar).
//!
//! Unchanged files (same path, same blake3) are not re-parsed: their parse is rebuilt from
//! the previous sidecar (the document node keeps its fields and raw references, chunk
//! nodes keep the sections, parse-stage diagnostics are kept). Resolution always runs over
//! all files, so the result is byte-identical to a full rebuild.

use crate::config::Config;
use crate::error::Error;
use crate::ingest::edit::{self, Applied};
use crate::ingest::parse::{ParsedFile, parse_file};
use crate::ingest::previous::previous_parses;
use crate::ingest::report::count_tokens;
use crate::ingest::resolve::{Resolved, resolve_lean};
use crate::ingest::scan::{Scan, scan};
use crate::model::diag::{Counts, Diagnostic};
use crate::progress::Progress;
use crate::store::sidecar::{self, Meta, MetaCounts};
use crate::store::statcache::{self, Stamp, StatCache};
use crate::store::{files, lock, mirror};
use crate::timing::Timings;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// What a build returns (its home is below this file and the edit short cut's).
pub use crate::ingest::report::BuildReport;

/// How to build.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuildOptions {
    /// Ignore the previous index and parse every file.
    pub full: bool,
    /// Write the result to the index folder (false: compute only, as `check` does).
    pub write: bool,
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
    // The mirror is updated in place from the graph when it can be (it compares every
    // row, see `same_rows` in `Run::build`); else it is rebuilt, as by `--full`, from
    // the files just written, a batch at a time, once the resolved backlog is dropped.
    let update_in_place = cfg.sqlite && !full && mirror::db_path(&cfg.index_dir).is_file();
    let run = Run {
        cfg,
        opts: BuildOptions { full, write: true },
        progress,
    };
    match run.run((!full).then_some(cfg.sqlite.then_some(spec)), update_in_place)? {
        Made::Edit(report) => Ok(report),
        Made::Build(built) if cfg.sqlite => sync_mirror(cfg, spec, built, progress),
        Made::Build(built) => Ok(built.report),
    }
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
    let run = Run { cfg, opts, progress };
    let shortcut = (opts.write && !opts.full).then_some(None);
    Ok(match run.run(shortcut, false)? {
        Made::Edit(report) => report,
        Made::Build(built) => built.report,
    })
}

/// Bring the mirror in line with what the build made: from the resolved graph in place
/// when the build kept it, else rebuilt from the files just written.
fn sync_mirror(
    cfg: &Config,
    spec: &mirror::Spec,
    built: Built,
    progress: Option<&Progress>,
) -> Result<BuildReport, Error> {
    let Built {
        mut report,
        resolved,
        stamps,
    } = built;
    let mut phase = "sqlite";
    let (dir, meta) = (&cfg.index_dir, &report.meta);
    if report.up_to_date {
        mirror::sync_with(dir, meta, spec)?;
    } else if !mirror::is_fresh(dir, &meta.outputs, spec) {
        if let Some(p) = progress {
            p.phase("writing the SQLite mirror", 0);
        }
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
    Ok(report)
}

/// One run: what to build, and where to draw its progress.
struct Run<'a> {
    cfg: &'a Config,
    opts: BuildOptions,
    progress: Option<&'a Progress>,
}

/// What a run made: the edit short cut's report, or a build's.
enum Made {
    Edit(BuildReport),
    Build(Built),
}

/// What [`Run::build`] made.
struct Built {
    report: BuildReport,
    /// The resolved backlog, when asked for and one was made.
    resolved: Option<Resolved>,
    /// The stamps of the output files written (their digests are the report's).
    stamps: Vec<(String, Stamp)>,
}

/// The scan of the root, and what it says of the sources.
struct Scanned {
    scan: Scan,
    /// When the scan started (the stat cache's racy window starts here).
    start: i128,
    /// Path → content hash of every source file.
    files: BTreeMap<String, String>,
    /// The digest of `files`.
    source_digest: String,
}

/// What [`Run::write`] wrote.
struct Written {
    /// The meta record of the result.
    meta: Meta,
    /// The files written.
    names: Vec<String>,
    /// The stamps of the output files written.
    stamps: Vec<(String, Stamp)>,
    /// Without `write`: the blake3 of each file's bytes.
    bytes: BTreeMap<String, blake3::Hash>,
}

impl Run<'_> {
    fn phase(&self, name: &'static str, total: usize) {
        if let Some(p) = self.progress {
            p.phase(name, total);
        }
    }

    /// The run, under the index lock when it writes. `meta.json` is read once, here,
    /// and handed down. With `shortcut` (`Some(mirror spec, if any)`), an edit takes
    /// the short cut of [`edit::apply`] (its stat probe comes first, so that the stat
    /// cache and the meta record are never held together); with `keep`, a build keeps
    /// its resolved backlog.
    fn run(&self, shortcut: Option<Option<&mirror::Spec>>, keep: bool) -> Result<Made, Error> {
        let cfg = self.cfg;
        // Before the lock, which creates the index folder (often inside the root).
        if !cfg.root.is_dir() {
            return Err(Error::NoRoot(cfg.root.clone()));
        }
        let _lock = match self.opts.write {
            true => Some(lock::IndexLock::acquire(&cfg.index_dir)?),
            false => None,
        };
        let timings = Timings::default();
        let probe = shortcut.and_then(|_| edit::probe(cfg));
        let mut prev = sidecar::read_meta(&cfg.index_dir);
        if let (Some(spec), Some(probe)) = (shortcut, probe)
            && let Some(meta) = prev.take()
        {
            match edit::apply(cfg, probe, meta, spec, self.progress, timings.clone())? {
                Applied::Done(report) => return Ok(Made::Edit(*report)),
                // Back when the short cut did not make it over, else read again.
                Applied::No(meta) => prev = meta.or_else(|| sidecar::read_meta(&cfg.index_dir)),
            }
        }
        self.build(prev, timings, keep).map(Made::Build)
    }

    /// The build over the index `prev` (its `meta.json`, if any): the stat cache's
    /// probe, the scan, the parse of the changed files, the resolution of all, the
    /// outputs written.
    fn build(&self, mut prev: Option<Meta>, mut timings: Timings, keep: bool) -> Result<Built, Error> {
        let cfg = self.cfg;
        // A committed index (`commit_index`) is reused only when this machine wrote it (the
        // stat cache holds its outputs' stamps): one that git wrote (a checkout, a merge, a
        // clone) may hold records no build of these sources makes, so it is rebuilt.
        let compatible = prev.as_ref().is_some_and(|m| {
            !self.opts.full
                && m.schema == sidecar::SCHEMA_VERSION
                && m.config_digest == cfg.settings.digest()
                && (!cfg.commit_index || own_outputs(cfg, m))
        });
        // When the stat cache vouches for every file, folder and output, the index is
        // the answer: nothing to scan (the probe queries run before they read the index).
        if let Some(m) = prev.take_if(|m| compatible && vouched(cfg, m)) {
            return self.unchanged(m, None, timings, "probe");
        }
        let (mut scanned, cache) = self.scan(compatible)?;
        timings.mark("scan");
        if let Some(cache) = &cache
            && let Some(m) = prev.take_if(|m| {
                m.source_digest == scanned.source_digest
                    && sidecar::damaged_outputs(&cfg.index_dir, m, cache).is_empty()
            })
        {
            return self.unchanged(m, Some(&scanned), timings, "verify");
        }
        drop(cache);
        let mut previous = match prev.as_ref().filter(|_| compatible) {
            Some(m) => previous_parses(&cfg.index_dir, m)
                .map(|(parses, _)| parses)
                .unwrap_or_default(),
            None => HashMap::new(),
        };
        timings.mark("load previous");
        let (parsed, reused, n_parsed) = self.parse(&mut scanned.scan, &mut previous);
        drop(previous);
        timings.mark("parse");
        let (resolved, diagnostics) = self.resolve(&scanned.scan, parsed);
        timings.mark("resolve");
        let Written {
            meta,
            names,
            stamps,
            bytes,
        } = self.write(prev.as_ref(), scanned, &resolved, &diagnostics)?;
        timings.mark("write");
        // An update in place needs the same sections of the same documents: with other
        // files (added, removed, renamed) or another count of sections, it would fail once
        // the graph is made, so none is kept for it; nor past `UPDATE_MAX_NODES`.
        let same_rows = prev.is_some_and(|m| {
            (m.counts.documents, m.counts.chunks) == (meta.counts.documents, meta.counts.chunks)
                && meta.counts.documents + meta.counts.chunks <= mirror::UPDATE_MAX_NODES
                && m.files.keys().eq(meta.files.keys())
        });
        let report = BuildReport {
            up_to_date: false,
            parsed: n_parsed,
            reused,
            written: names,
            meta,
            diagnostics,
            timings,
            edits: None,
            bytes,
        };
        Ok(Built {
            report,
            resolved: (keep && same_rows).then_some(resolved),
            stamps,
        })
    }

    /// The index `meta` is the answer: its diagnostics, the folder's own files written
    /// and, after a scan, the stat cache.
    fn unchanged(
        &self,
        meta: Meta,
        scanned: Option<&Scanned>,
        mut timings: Timings,
        phase: &'static str,
    ) -> Result<Built, Error> {
        let cfg = self.cfg;
        let diagnostics = sidecar::read_jsonl(&cfg.index_dir.join(files::DIAGNOSTICS))?;
        if self.opts.write {
            files::write_folder_files(&cfg.index_dir, cfg.commit_index)?;
            if let Some(s) = scanned {
                let _ = save_cache(cfg, &s.scan, s.start, &meta);
            }
        }
        timings.mark(phase);
        Ok(Built {
            report: BuildReport::unchanged(meta, diagnostics, timings),
            resolved: None,
            stamps: Vec::new(),
        })
    }

    /// Walk the root, hashing what the stat cache cannot vouch for. The cache may stand
    /// in for reading a file only when the previous index is `compatible` (its parse is
    /// then reused; otherwise every file is read): then it is loaded, and returned.
    fn scan(&self, compatible: bool) -> Result<(Scanned, Option<StatCache>), Error> {
        let cfg = self.cfg;
        self.phase("scanning", 0);
        let start = statcache::now_ns();
        // Without a previous index to reuse every file is parsed and counted: the token
        // counter loads while the files are walked and read.
        if !compatible {
            crate::text::tokens::preload(cfg.settings.tokenizer);
        }
        let cache = compatible.then(|| StatCache::load(&cfg.index_dir));
        let scan = scan(&cfg.root, &cfg.index_dir, &cfg.settings.scan, cache.as_ref(), true)?;
        let files = file_map(&scan);
        let source_digest = sidecar::source_digest(&files);
        let scanned = Scanned {
            scan,
            start,
            files,
            source_digest,
        };
        Ok((scanned, cache))
    }

    /// Each indexable file's parse: the previous one when its hash is the same, else
    /// parsed now. Returns the parses, how many were reused and how many parsed.
    fn parse(&self, scan: &mut Scan, previous: &mut HashMap<String, ParsedFile>) -> (Vec<ParsedFile>, usize, usize) {
        let cfg = self.cfg;
        let mut reused = 0;
        let mut to_parse = vec![false; scan.files.len()];
        let mut parsed: Vec<ParsedFile> = Vec::with_capacity(scan.files.len());
        for (i, f) in scan.files.iter_mut().enumerate().filter(|(_, f)| f.indexable()) {
            match previous.remove(f.rel.as_str()) {
                Some(p) if p.doc.hash.as_deref() == Some(f.hash.as_str()) => {
                    parsed.push(p);
                    reused += 1;
                    f.text = None;
                }
                _ => to_parse[i] = true,
            }
        }
        self.phase("parsing", to_parse.iter().filter(|&&p| p).count());
        // Each file's text is dropped once it is parsed: the sections hold what is needed
        // of it, and the whole corpus (157 MB at 100k items) is never held next to the
        // parses.
        let fresh: Vec<ParsedFile> = scan
            .files
            .par_iter_mut()
            .zip(to_parse.par_iter())
            .filter(|(_, parse)| **parse)
            .filter_map(|(f, _)| {
                // Read now if the scan took the hash from the stat cache; a file that
                // changed since the scan is indexed as it was scanned (its hash), then
                // seen as stale.
                let text = match f.text.take() {
                    Some(t) => t,
                    None => f.load_text()?.into_owned(),
                };
                let mut p = parse_file(&f.rel, &f.hash, &text, &cfg.settings);
                count_tokens(&mut p, cfg.settings.tokenizer);
                if let Some(pr) = self.progress {
                    pr.inc();
                }
                Some(p)
            })
            .collect();
        let n_parsed = fresh.len();
        parsed.extend(fresh);
        (parsed, reused, n_parsed)
    }

    /// Resolve every parse; returns the backlog and all diagnostics, as `[check]`
    /// records them (ignored paths and codes turned off left out, severities as
    /// configured, so `index`, the sidecar and `check` agree), sorted.
    fn resolve(&self, scan: &Scan, mut parsed: Vec<ParsedFile>) -> (Resolved, Vec<Diagnostic>) {
        self.phase("resolving", 0);
        let mut diagnostics = scan.diagnostics.clone();
        for p in &mut parsed {
            diagnostics.append(&mut p.diagnostics);
        }
        let (resolved, resolve_diags) = resolve_lean(parsed, &self.cfg.settings);
        diagnostics.extend(resolve_diags);
        self.cfg.settings.check.apply(&mut diagnostics);
        diagnostics.sort();
        diagnostics.dedup();
        (resolved, diagnostics)
    }

    /// Serialize, digest and (with `write`) commit the outputs and `meta.json`, then save
    /// the caches. Each
    /// output is written a window of lines at a time: memory holds the resolved backlog
    /// and one window, never a serialized file.
    fn write(
        &self,
        prev: Option<&Meta>,
        scanned: Scanned,
        resolved: &Resolved,
        diagnostics: &[Diagnostic],
    ) -> Result<Written, Error> {
        let (cfg, write) = (self.cfg, self.opts.write);
        self.phase("writing", 0);
        if write {
            std::fs::create_dir_all(&cfg.index_dir).map_err(|e| Error::io(&cfg.index_dir, e))?;
        }
        // All changed files are staged, then switched in together (meta.json last).
        let mut commit = sidecar::Commit::new(&cfg.index_dir);
        let mut outputs = BTreeMap::new();
        let mut bytes = BTreeMap::new();
        let mut emit = |name: &str,
                        fill: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<files::LineDigest>|
         -> Result<(), Error> {
            let digest = match write {
                true => commit.stage_stream(name, prev.and_then(|m| m.outputs.get(name)), fill)?,
                false => {
                    let mut hasher = blake3::Hasher::new();
                    let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut hasher);
                    let digest = fill(&mut out)
                        .and_then(|d| std::io::Write::flush(&mut out).map(|()| d))
                        .map_err(|e| Error::io(cfg.index_dir.join(name), e))?;
                    drop(out);
                    bytes.insert(name.to_string(), hasher.finalize());
                    digest.hex()
                }
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
        let meta = meta_of(
            cfg,
            scanned.files,
            scanned.source_digest,
            outputs,
            resolved,
            diagnostics,
        );
        let mut meta_bytes = serde_json::to_vec_pretty(&meta).map_err(|e| Error::Other(e.to_string()))?;
        meta_bytes.push(b'\n');
        if !write {
            bytes.insert(files::META.to_string(), blake3::hash(&meta_bytes));
            return Ok(Written {
                meta,
                names: Vec::new(),
                stamps: Vec::new(),
                bytes,
            });
        }
        // Bytes that parse to another record than the file's are not the file's: only
        // the same record is compared with the file (a re-read).
        if prev == Some(&meta) {
            commit.stage_bytes(files::META, &meta_bytes)?;
        } else {
            commit.stage_with(files::META, |f| std::io::Write::write_all(f, &meta_bytes))?;
        }
        let names = commit.apply()?;
        files::write_folder_files(&cfg.index_dir, cfg.commit_index)?;
        let stamps = save_cache(cfg, &scanned.scan, scanned.start, &meta);
        crate::store::doctable::DocTable::of(resolved.docs(), &mirror::sidecar_digest(&meta.outputs))
            .save(&cfg.index_dir);
        Ok(Written {
            meta,
            names,
            stamps,
            bytes,
        })
    }
}

/// The meta record of a build: its config and sources, the outputs' digests, the counts.
fn meta_of(
    cfg: &Config,
    files: BTreeMap<String, String>,
    source_digest: String,
    outputs: BTreeMap<String, String>,
    resolved: &Resolved,
    diagnostics: &[Diagnostic],
) -> Meta {
    let counts = Counts::of(diagnostics);
    let (documents, chunks, edges) = resolved.counts();
    Meta {
        schema: sidecar::SCHEMA_VERSION,
        config_digest: cfg.settings.digest(),
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
        unproven: None,
        files,
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

/// Whether the index files in `cfg.index_dir` (whose `meta.json` is `meta`) are the ones
/// mdgraph wrote or verified here: the stat cache holds the stamps they have now, and
/// `meta.json`'s. Files git wrote (a checkout, a merge) have other stamps.
pub fn own_outputs(cfg: &Config, meta: &Meta) -> bool {
    let cache = StatCache::load(&cfg.index_dir);
    let stamp = |name: &str| statcache::Stamp::of_path(&cfg.index_dir.join(name));
    files::OUTPUTS.iter().all(|name| {
        stamp(name).is_some_and(|st| {
            cache
                .output(name, &st)
                .is_some_and(|d| meta.outputs.get(*name).map(String::as_str) == Some(d))
        })
    }) && stamp(files::META).is_some_and(|st| cache.output(files::META, &st).is_some())
}

/// Whether the index is of this format and config and the stat cache vouches for every
/// source file, folder and output (the probe queries run): then nothing changed and no
/// scan is needed.
pub fn unchanged(cfg: &Config) -> bool {
    sidecar::read_meta_head(&cfg.index_dir)
        .is_some_and(|head| probe_vouches(cfg, head.schema, &head.config_digest, &head.outputs))
}

/// [`unchanged`] for the index whose `meta.json` is `meta`.
fn vouched(cfg: &Config, meta: &Meta) -> bool {
    probe_vouches(cfg, meta.schema, &meta.config_digest, &meta.outputs)
}

fn probe_vouches(cfg: &Config, schema: u32, config_digest: &str, outputs: &BTreeMap<String, String>) -> bool {
    schema == sidecar::SCHEMA_VERSION
        && config_digest == cfg.settings.digest()
        && statcache::probe(&cfg.index_dir, &cfg.root, config_digest, &cfg.settings.scan)
            .is_some_and(|sidecar| sidecar == mirror::sidecar_digest(outputs))
}

/// A build of `scan` computed in memory, nothing written, reusing the `previous` parses
/// of files with the same hash (the others are parsed: from their text, else read from
/// disk): the report's `bytes` hold each file's blake3.
pub(crate) fn compute(
    cfg: &Config,
    mut scan: Scan,
    mut previous: HashMap<String, ParsedFile>,
) -> Result<BuildReport, Error> {
    let run = Run {
        cfg,
        opts: BuildOptions {
            full: false,
            write: false,
        },
        progress: None,
    };
    let (parsed, reused, n_parsed) = run.parse(&mut scan, &mut previous);
    drop(previous);
    let (resolved, diagnostics) = run.resolve(&scan, parsed);
    let files = file_map(&scan);
    let source_digest = sidecar::source_digest(&files);
    let scanned = Scanned {
        scan,
        start: 0,
        files,
        source_digest,
    };
    let Written { meta, bytes, .. } = run.write(None, scanned, &resolved, &diagnostics)?;
    Ok(BuildReport {
        parsed: n_parsed,
        reused,
        meta,
        diagnostics,
        bytes,
        ..BuildReport::default()
    })
}
