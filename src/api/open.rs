//! Opening the index: brought up to date first (built when missing, refreshed when the
//! sources changed) or as it is, held in memory or not; and the entry points that build,
//! check or recover an index without opening it.

use super::{Index, mirror_spec, no_index};
use crate::check::{self, BaselineReport, CheckOptions, CheckReport};
use crate::config::Config;
use crate::error::Error;
use crate::ingest::build::{self, BuildReport};
use crate::progress::Progress;
use crate::store::sidecar;
use crate::store::{files, mirror, statcache};

impl Index {
    /// Bring the index up to date (build it when missing; re-parse only what changed;
    /// a stat-only probe when nothing did) and open it.
    pub fn open(config: Config) -> Result<Index, Error> {
        Index::open_with(config, None).map(|(index, _)| index)
    }

    /// Like [`Index::open`], drawing `progress` while it builds; also returns the build
    /// report when something was rebuilt.
    pub fn open_with(config: Config, progress: Option<&Progress>) -> Result<(Index, Option<BuildReport>), Error> {
        let report = Index::refresh(&config, progress)?;
        Ok((Index::new(config), report))
    }

    /// Open the index as it is, without looking at the sources (`--no-refresh`). The
    /// SQLite mirror is still brought in line with the JSONL files.
    pub fn open_as_is(config: Config) -> Result<Index, Error> {
        // A commit a killed run left half done is finished first (never a mix of builds).
        crate::store::lock::finish_pending(&config.index_dir)?;
        if !config.index_dir.join(files::META).is_file() {
            return Err(no_index(&config));
        }
        let index = Index::new(config);
        if index.config.sqlite
            && let Err(e) = mirror::sync(&index.config.index_dir, &mirror_spec(&index.config))
        {
            index.warn(format!("cannot update the SQLite mirror: {e}"));
        }
        Ok(index)
    }

    /// Search and pack from the whole index loaded into memory (read once from the JSONL
    /// files, on the first query) instead of through the SQLite mirror, which stays as the
    /// configuration says. For a long-lived process: at 10k items the first query pays
    /// ≈0.3 s to load, then a search takes a third of the mirror's time (BENCHMARKS.md,
    /// the MCP server).
    pub fn in_memory(mut self) -> Index {
        self.in_memory = true;
        self
    }

    /// Whether this index searches in memory ([`Index::in_memory`]).
    pub fn is_in_memory(&self) -> bool {
        self.in_memory
    }

    /// Load now what the first query would (the search engine and the graph), so that
    /// it costs nothing later: for a server that opens an index off its callers' path.
    pub fn warm(&self) -> Result<(), Error> {
        self.with_engine(|_| Ok(()))?;
        self.graph().map(|_| ())
    }

    /// Make the index and its mirror current. Returns the build report when something
    /// was rebuilt, `None` when the index was already up to date.
    pub fn refresh(config: &Config, progress: Option<&Progress>) -> Result<Option<BuildReport>, Error> {
        crate::store::lock::finish_pending(&config.index_dir)?;
        if let Some(sidecar) = statcache::probe(
            &config.index_dir,
            &config.root,
            &config.settings.digest(),
            &config.settings.scan,
        ) && (!config.sqlite || mirror::mirrors(&config.index_dir, &sidecar, &mirror_spec(config)))
        {
            return Ok(None);
        }
        Index::build(config, false, progress).map(Some)
    }

    /// Build the index (incrementally unless `full`) and its SQLite mirror, as
    /// `mdgraph index` does.
    pub fn build(config: &Config, full: bool, progress: Option<&Progress>) -> Result<BuildReport, Error> {
        build::build_index(config, full, &mirror_spec(config), progress)
    }

    /// Is the index fresh and the graph free of errors (and warnings, when `strict`)?
    /// The same answer as `mdgraph check` (`--strict` when `strict`), with the baseline
    /// file when there is one.
    pub fn check(config: &Config, strict: bool) -> Result<CheckReport, Error> {
        check::check(
            config,
            CheckOptions {
                strict,
                ..CheckOptions::default()
            },
        )
    }

    /// [`Index::check`] with every option (`mdgraph check --no-baseline`, `--staged`).
    pub fn check_with(config: &Config, opts: CheckOptions) -> Result<CheckReport, Error> {
        check::check(config, opts)
    }

    /// Record the current diagnostics in the baseline file ([`Config::baseline`]), as
    /// `mdgraph baseline` does; with `prune`, only drop from the existing baseline what
    /// has been fixed. The index is not touched.
    pub fn baseline(config: &Config, prune: bool) -> Result<BaselineReport, Error> {
        check::record(config, prune)
    }

    /// [`Index::check`] of what is staged in git (the backlog, config and index in git's
    /// index, never the working tree), as the pre-commit hook runs it.
    pub fn check_staged(config: &Config, strict: bool) -> Result<CheckReport, Error> {
        check::check(
            config,
            CheckOptions {
                strict,
                staged: true,
                ..CheckOptions::default()
            },
        )
    }

    /// True when `config`'s index folder holds an index (it may be stale).
    pub fn exists(config: &Config) -> bool {
        config.index_dir.join(files::META).is_file()
    }

    /// The digest of the index on disk: of its sidecar files, as `meta.json` records
    /// them (the digest the SQLite mirror and the stat cache record). None when there is
    /// no index or `meta.json` cannot be read. A watcher vouches for an index by it.
    pub fn digest(config: &Config) -> Option<String> {
        sidecar::read_meta_head(&config.index_dir).map(|h| mirror::sidecar_digest(&h.outputs))
    }

    /// Finish a commit that a killed run left half done, so nothing reads a mix of two
    /// builds. Every other entry point does this itself; front ends call it once early.
    pub fn recover(config: &Config) -> Result<(), Error> {
        crate::store::lock::finish_pending(&config.index_dir)
    }
}
