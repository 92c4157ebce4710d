//! Configuration: `mdgraph.toml` (found in the working directory or its ancestors),
//! validated into a typed [`Config`] before any work starts.
//!
//! Unknown keys and bad values are errors naming the file, line and key. Everything that
//! changes what the index contains lives in [`Settings`], whose digest is stored in
//! `meta.json` so a config change makes the index stale.

use crate::error::Error;
use crate::model::EdgeType;
use crate::model::diag::{Code, Diagnostic, Severity};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file name searched for.
pub const CONFIG_FILE: &str = "mdgraph.toml";

/// The raw file, as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    root: Option<PathBuf>,
    index_dir: Option<PathBuf>,
    #[serde(default)]
    scan: ScanSettings,
    #[serde(default)]
    ids: IdSettings,
    #[serde(default)]
    fields: FieldSettings,
    #[serde(default)]
    kinds: KindSettings,
    /// Frontmatter key path → edge type name, or `"ignore"`; merged over the defaults.
    #[serde(default)]
    edges: BTreeMap<String, String>,
    /// Keep the SQLite mirror (default true).
    sqlite: Option<bool>,
    /// Add an FTS5 table to the mirror for SQL users (default false).
    sqlite_fts: Option<bool>,
    #[serde(default)]
    retrieval: Retrieval,
    #[serde(default)]
    pack: Pack,
    #[serde(default)]
    states: StateGroups,
    #[serde(default)]
    check: CheckFile,
}

/// Which states count as open, in progress, blocked, done or dropped, for `list`,
/// `ready` and `tree`. Each list is added to the built-in names (matched ignoring case,
/// spaces, `-` and `_`); a state in no group is open.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StateGroups {
    /// Not started (besides the built-in `todo`, `planned`, `proposed`, `ready`, …).
    pub open: Vec<String>,
    /// Being worked on (besides `inprogress`, `doing`, `review`, …).
    pub in_progress: Vec<String>,
    /// Waiting on something (besides `blocked`, `onhold`, …).
    pub blocked: Vec<String>,
    /// Finished (besides `done`, `closed`, `resolved`, `final`, …).
    pub done: Vec<String>,
    /// Will not be done (besides `dropped`, `cancelled`, `wontdo`, `rejected`, …).
    pub dropped: Vec<String>,
    /// Globs of root-relative paths → the group every file they match is in, whatever
    /// its state says (`open`, `in_progress`, `blocked`, `done`, `dropped`), or `draft`:
    /// the state's group, but never ready. Backlog.md moves finished tasks to
    /// `completed/`, archived ones to `archive/` and keeps ideas in `drafts/` without
    /// changing their status. When several globs match, the first in sorted order wins.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub paths: BTreeMap<String, String>,
}

/// The values `[states] paths` accepts.
pub const PATH_STATES: [&str; 6] = ["open", "in_progress", "blocked", "done", "dropped", "draft"];

impl StateGroups {
    fn validate(&self) -> Result<(), String> {
        for (glob, group) in &self.paths {
            globset::Glob::new(glob).map_err(|e| format!("states.paths: bad glob `{glob}`: {e}"))?;
            if !PATH_STATES.contains(&group.as_str()) {
                return Err(format!(
                    "states.paths.\"{glob}\": `{group}` is not a state group (use {})",
                    PATH_STATES.join(", ")
                ));
            }
        }
        Ok(())
    }
}

/// The `[check]` table as written; values keep their position so an error can name the
/// line.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckFile {
    /// Diagnostic code → `error`, `warning` or `off`.
    #[serde(default)]
    severity: BTreeMap<String, toml::Spanned<String>>,
    /// Globs of root-relative paths whose diagnostics are dropped.
    #[serde(default)]
    ignore: Vec<toml::Spanned<String>>,
    /// The baseline file, relative to the config file's folder.
    baseline: Option<PathBuf>,
}

/// The severity `[check] severity` gives a diagnostic code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Report it as an error (fails `mdgraph check`).
    Error,
    /// Report it as a warning (fails `mdgraph check --strict` only).
    Warning,
    /// Do not report it.
    Off,
}

/// `[check]`: which diagnostics the index records, and at which severity. Applied when
/// the index is built, so `index`, `diagnostics.jsonl` and `check` agree; it is part of
/// [`Settings`], so changing it makes the index stale.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CheckSettings {
    /// Severity by code; codes not listed keep their own.
    pub severity: BTreeMap<Code, Level>,
    /// Globs (relative to the root) of files whose diagnostics are dropped; the files
    /// are still indexed.
    pub ignore: Vec<String>,
}

impl CheckSettings {
    /// True when nothing is configured (the settings digest leaves it out then, so an
    /// index built before `[check]` existed stays fresh).
    pub fn is_empty(&self) -> bool {
        self.severity.is_empty() && self.ignore.is_empty()
    }

    /// Drop the diagnostics of ignored paths and of codes turned off; give the others
    /// their configured severity. Idempotent (diagnostics kept from a previous build
    /// pass through it again).
    pub fn apply(&self, diags: &mut Vec<Diagnostic>) {
        if self.is_empty() {
            return;
        }
        let mut b = globset::GlobSetBuilder::new();
        for g in &self.ignore {
            // Validated when the config was loaded.
            if let Ok(glob) = globset::GlobBuilder::new(g).literal_separator(false).build() {
                b.add(glob);
            }
        }
        let ignore = b.build().unwrap_or_else(|_| globset::GlobSet::empty());
        diags.retain_mut(|d| {
            if ignore.is_match(&d.path) {
                return false;
            }
            match self.severity.get(&d.code) {
                Some(Level::Off) => false,
                Some(Level::Error) => {
                    d.severity = Severity::Error;
                    true
                }
                Some(Level::Warning) => {
                    d.severity = Severity::Warning;
                    true
                }
                None => true,
            }
        });
    }
}

/// The default name of the baseline file, beside `mdgraph.toml`.
pub const BASELINE_FILE: &str = "mdgraph-baseline.json";

/// Context pack settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Pack {
    /// Default token budget of `mdgraph pack`.
    pub budget: usize,
    /// `o200k` (exact) or `approx` (bytes / 4); counts are stored in the index, so
    /// changing it makes the index stale.
    pub tokenizer: crate::text::tokens::Tokenizer,
}

impl Default for Pack {
    fn default() -> Self {
        Pack {
            budget: 4000,
            tokenizer: crate::text::tokens::Tokenizer::default(),
        }
    }
}

/// Query-time settings (they do not change the index, so they are not in its digest).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Retrieval {
    /// Most seed documents kept from full-text search.
    pub seeds: usize,
    /// Seeds scoring below this share of the best seed are dropped (the relevance cliff).
    pub cliff: f64,
    /// Most matching sections considered per query (best first).
    pub max_sections: usize,
    /// Weights.
    pub weights: Weights,
    /// Graph expansion.
    pub graph: GraphSettings,
    /// Prefix aliases of ids typed in a query (`task` → `back`), from `[ids]`.
    #[serde(skip)]
    pub id_aliases: BTreeMap<String, String>,
}

/// How seeds are expanded along the graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GraphSettings {
    /// Expand seeds at all (`--no-graph` turns it off for one query).
    pub enabled: bool,
    /// How many hops from a seed.
    pub k_hop: usize,
    /// Edge types walked (either direction when `backwards`).
    pub edge_allowlist: Vec<EdgeType>,
    /// Walk edges against their direction too (a feature's children, an ADR's items).
    pub backwards: bool,
    /// Most neighbors taken per seed (strongest edges first, ties by id).
    pub max_neighbors_per_seed: usize,
    /// Most neighbors in all.
    pub max_neighbors: usize,
    /// Score factor per hop: a neighbor scores seed score × edge weight × hop_decay^hop,
    /// below the seed that brought it in before the path bonus and the type and state
    /// weights (0 < hop_decay ≤ 1).
    pub hop_decay: f64,
    /// Added to a result's score for each further seed whose walk reached it (the
    /// document several matches lead to).
    pub path_bonus: f64,
    /// Damping of walks through hubs: from the second hop on, a step out of a node with
    /// b edges in the direction walked is divided by ln(e + b − 1)^hub_damping (0 turns
    /// it off). The first hop is never damped: a seed's own parent, decision or
    /// dependency is load-bearing however popular it is.
    pub hub_damping: f64,
}

impl Default for GraphSettings {
    fn default() -> Self {
        use EdgeType::*;
        GraphSettings {
            enabled: true,
            // Two hops: the requirement of a requirement, the blocker of the feature's
            // task (EVAL.md: nDCG@10 and pack recall up on the EIPs and Backlog.md).
            k_hop: 2,
            // Every document edge but bare mentions (too weak to pull a neighbor in).
            edge_allowlist: crate::model::EDGE_TYPES
                .into_iter()
                .filter(|t| !matches!(t, Mentions | SectionOf))
                .collect(),
            backwards: true,
            max_neighbors_per_seed: 8,
            max_neighbors: 30,
            hop_decay: 0.75,
            path_bonus: 0.03,
            hub_damping: 1.0,
        }
    }
}

impl Default for Retrieval {
    fn default() -> Self {
        Retrieval {
            seeds: 10,
            cliff: 0.2,
            max_sections: 1000,
            weights: Weights::default(),
            graph: GraphSettings::default(),
            id_aliases: BTreeMap::new(),
        }
    }
}

/// Ranking weights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Weights {
    /// BM25 column weights.
    pub field: FieldWeights,
    /// Section weights by heading (lowercase, e.g. `"acceptance criteria"`); others 1.0.
    pub section: BTreeMap<String, f64>,
    /// Weights by work item type or node kind (lowercase: `epic`, `adr`, `doc`); others 1.0.
    pub doctype: BTreeMap<String, f64>,
    /// Weights by state or status (lowercase: `inprogress`, `done`, `superseded`); others 1.0.
    pub state: BTreeMap<String, f64>,
}

impl Default for Weights {
    fn default() -> Self {
        let map = |xs: &[(&str, f64)]| xs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        Weights {
            field: FieldWeights::default(),
            section: map(&[
                ("decision", 1.5),
                ("acceptance criteria", 1.2),
                ("context", 1.0),
                ("goal", 1.0),
                ("worklog", 0.3),
            ]),
            doctype: map(&[("adr", 1.1), ("epic", 0.9), ("doc", 0.8)]),
            state: map(&[
                ("inprogress", 1.2),
                ("ready", 1.1),
                ("review", 1.1),
                ("blocked", 1.1),
                ("done", 0.8),
                ("dropped", 0.5),
                ("superseded", 0.5),
                ("deprecated", 0.6),
                ("rejected", 0.5),
            ]),
        }
    }
}

/// BM25 column weights: a match in the title counts more than in a heading, which counts
/// more than in the body.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FieldWeights {
    /// Document id and title.
    pub title: f64,
    /// Section heading.
    pub heading: f64,
    /// Section text.
    pub body: f64,
}

impl Default for FieldWeights {
    fn default() -> Self {
        FieldWeights {
            title: 4.0,
            heading: 2.0,
            body: 1.0,
        }
    }
}

impl Retrieval {
    fn validate(mut self) -> Result<Retrieval, String> {
        let bad = |k: &str, v: f64| format!("retrieval.{k}: {v} is not a finite number >= 0");
        let f = self.weights.field;
        for (k, v) in [
            ("weights.field.title", f.title),
            ("weights.field.heading", f.heading),
            ("weights.field.body", f.body),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err(bad(k, v));
            }
        }
        if !(0.0..=1.0).contains(&self.cliff) {
            return Err(format!("retrieval.cliff: {} must be between 0 and 1", self.cliff));
        }
        if self.seeds == 0 || self.max_sections == 0 {
            return Err("retrieval.seeds and retrieval.max_sections must be at least 1".into());
        }
        // Keys are matched normalized: lowercase, single spaces.
        let norm = |table: &str, m: BTreeMap<String, f64>| -> Result<BTreeMap<String, f64>, String> {
            let mut out = BTreeMap::new();
            for (k, v) in m {
                if !v.is_finite() || v < 0.0 {
                    return Err(bad(&format!("weights.{table}.\"{k}\""), v));
                }
                out.insert(crate::model::section::section_name(&k), v);
            }
            Ok(out)
        };
        self.weights.section = norm("section", self.weights.section)?;
        self.weights.doctype = norm("doctype", self.weights.doctype)?;
        self.weights.state = norm("state", self.weights.state)?;
        if self.graph.k_hop > 4 {
            return Err(format!(
                "retrieval.graph.k_hop: {} is more than 4 (the walk must stay bounded)",
                self.graph.k_hop
            ));
        }
        let g = &self.graph;
        if !(g.hop_decay > 0.0 && g.hop_decay <= 1.0) {
            return Err(format!(
                "retrieval.graph.hop_decay: {} must be above 0 and at most 1",
                g.hop_decay
            ));
        }
        for (k, v) in [("path_bonus", g.path_bonus), ("hub_damping", g.hub_damping)] {
            if !v.is_finite() || v < 0.0 {
                return Err(bad(&format!("graph.{k}"), v));
            }
        }
        if self.graph.edge_allowlist.contains(&EdgeType::SectionOf) {
            return Err("retrieval.graph.edge_allowlist: section_of links sections, not documents".into());
        }
        Ok(self)
    }
}

/// What to scan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScanSettings {
    /// Globs (relative to the root) of files to index.
    pub include: Vec<String>,
    /// Globs of files to leave out.
    pub exclude: Vec<String>,
    /// Files larger than this many bytes are skipped with a diagnostic.
    pub max_file_size: u64,
}

impl Default for ScanSettings {
    fn default() -> Self {
        ScanSettings {
            include: vec!["**/*.md".into(), "**/*.markdown".into()],
            exclude: vec![],
            max_file_size: 8 * 1024 * 1024,
        }
    }
}

/// How documents are identified.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IdSettings {
    /// Frontmatter keys holding the id, first present wins.
    pub keys: Vec<String>,
    /// Frontmatter keys holding the uid used by `ID@uidprefix` references.
    pub uid_keys: Vec<String>,
    /// Match ids case-insensitively (`back-12` finds `BACK-12`).
    pub case_insensitive: bool,
    /// Older id prefixes and the prefix they now are: `{ task = "back" }` makes a
    /// reference to `task-12` find `BACK-12` (Backlog.md renamed its prefix).
    pub prefix_aliases: BTreeMap<String, String>,
    /// States whose documents do not claim their id when another document has it
    /// (`Moved` stubs left behind when a document moved): references go to the other.
    pub yield_states: Vec<String>,
}

impl Default for IdSettings {
    fn default() -> Self {
        IdSettings {
            keys: vec!["id".into()],
            uid_keys: vec!["uid".into()],
            case_insensitive: true,
            prefix_aliases: BTreeMap::new(),
            yield_states: Vec::new(),
        }
    }
}

/// Which frontmatter keys hold the title, state and type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FieldSettings {
    /// Title keys, first present wins.
    pub title: Vec<String>,
    /// State keys, first present wins.
    pub state: Vec<String>,
    /// Type keys, first present wins.
    pub r#type: Vec<String>,
}

impl Default for FieldSettings {
    fn default() -> Self {
        FieldSettings {
            title: vec!["title".into()],
            state: vec!["state".into(), "status".into()],
            r#type: vec!["type".into()],
        }
    }
}

/// How documents are classified and which values are known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KindSettings {
    /// `type` values that make a work item (matched case-insensitively).
    pub item_types: Vec<String>,
    /// Known work item states (matched case-insensitively).
    pub item_states: Vec<String>,
    /// Known ADR statuses (matched case-insensitively).
    pub adr_states: Vec<String>,
    /// Folder name that holds work items (kano: `items`); type and state are checked there.
    pub items_dir: String,
    /// Folder name that holds ADRs (kano: `decisions`).
    pub decisions_dir: String,
}

impl Default for KindSettings {
    fn default() -> Self {
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect();
        KindSettings {
            item_types: v(&["Epic", "Feature", "UserStory", "Task", "Bug"]),
            item_states: v(&[
                "Proposed",
                "Planned",
                "Ready",
                "InProgress",
                "Review",
                "Done",
                "Blocked",
                "Dropped",
            ]),
            adr_states: v(&["Proposed", "Accepted", "Deprecated", "Superseded", "Rejected"]),
            items_dir: "items".into(),
            decisions_dir: "decisions".into(),
        }
    }
}

/// The default frontmatter key → edge type mapping (kano plus common variants).
pub fn default_edges() -> BTreeMap<String, EdgeType> {
    use EdgeType::*;
    [
        ("parent", Parent),
        ("parent_task_id", Parent),
        ("links.relates", Relates),
        ("links.blocks", Blocks),
        ("links.blocked_by", BlockedBy),
        ("decisions", DecisionRef),
        ("related_items", Relates),
        ("related", Relates),
        ("relates", Relates),
        ("blocks", Blocks),
        ("blocked_by", BlockedBy),
        ("supersedes", Supersedes),
        ("superseded_by", SupersededBy),
        ("dependencies", DependsOn),
        ("depends_on", DependsOn),
        ("requires", DependsOn),
    ]
    .into_iter()
    .map(|(k, t)| (k.to_string(), t))
    .collect()
}

/// Everything that decides what the index contains. Its digest goes into `meta.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Settings {
    /// What to scan.
    pub scan: ScanSettings,
    /// Id keys and matching.
    pub ids: IdSettings,
    /// Title, state and type keys.
    pub fields: FieldSettings,
    /// Classification.
    pub kinds: KindSettings,
    /// Effective frontmatter key path → edge type.
    pub edges: BTreeMap<String, EdgeType>,
    /// Token counter for pack sizes (counts are stored in the index).
    pub tokenizer: crate::text::tokens::Tokenizer,
    /// `[check]`: severities and ignored paths.
    #[serde(skip_serializing_if = "CheckSettings::is_empty")]
    pub check: CheckSettings,
    /// Where the root sits below the repository root (`/`-separated, `""` when the root
    /// is the repository root): body links written from the repository root
    /// (`[x](_kano/backlog/items/a.md)`, `[x](/docs/c.md)`) are resolved with it. Not a
    /// key of `mdgraph.toml`: [`Config::load`] finds it (see [`repo_prefix`]). It changes
    /// which links resolve, so it is part of the digest.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub repo_prefix: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            scan: ScanSettings::default(),
            ids: IdSettings::default(),
            fields: FieldSettings::default(),
            kinds: KindSettings::default(),
            edges: default_edges(),
            tokenizer: crate::text::tokens::Tokenizer::default(),
            check: CheckSettings::default(),
            repo_prefix: String::new(),
        }
    }
}

impl Settings {
    /// blake3 digest of the canonical JSON form of the settings.
    pub fn digest(&self) -> String {
        let json = serde_json::to_vec(self).unwrap_or_default();
        blake3::hash(&json).to_hex().to_string()
    }
}

/// The validated configuration of one run.
#[derive(Debug, Clone)]
pub struct Config {
    /// The backlog root.
    pub root: PathBuf,
    /// The index folder.
    pub index_dir: PathBuf,
    /// The config file that was read, if any.
    pub config_file: Option<PathBuf>,
    /// The working directory of the run (paths in messages are shown relative to it).
    pub cwd: PathBuf,
    /// Index-shaping settings.
    pub settings: Settings,
    /// Keep the SQLite mirror.
    pub sqlite: bool,
    /// Give the mirror an FTS5 table over the sections (for SQL users' own `MATCH`
    /// queries; mdgraph's search does not read it). Toggling it rebuilds the mirror.
    pub sqlite_fts: bool,
    /// Query-time settings.
    pub retrieval: Retrieval,
    /// Default token budget of `mdgraph pack` (the tokenizer is in `settings`).
    pub pack_budget: u32,
    /// State groups for `list`, `ready` and `tree` (query time).
    pub states: StateGroups,
    /// The baseline file of `mdgraph baseline` and `mdgraph check`: `[check] baseline`,
    /// else `mdgraph-baseline.json` beside the config file (in the working directory
    /// without one).
    pub baseline: PathBuf,
}

/// Command-line overrides applied on top of the file.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--config FILE`.
    pub config: Option<PathBuf>,
    /// `--root DIR`.
    pub root: Option<PathBuf>,
    /// `--index-dir DIR`.
    pub index_dir: Option<PathBuf>,
    /// `--no-sqlite`.
    pub no_sqlite: bool,
}

impl Config {
    /// Find and load the configuration for a run started in `cwd`.
    ///
    /// `--config` names the file; otherwise `mdgraph.toml` is searched in `cwd` and its
    /// ancestors. Paths in the file are relative to the file's folder; `--root` and
    /// `--index-dir` are relative to `cwd`. Without a file the root is `.` and the index
    /// folder `<root>/_index`.
    pub fn load(cwd: &Path, ov: &Overrides) -> Result<Config, Error> {
        let file = match &ov.config {
            Some(p) => {
                let p = cwd.join(p);
                if !p.is_file() {
                    return Err(Error::Config {
                        path: p.display().to_string(),
                        line: 0,
                        message: "config file not found".into(),
                    });
                }
                Some(p)
            }
            None => cwd.ancestors().map(|d| d.join(CONFIG_FILE)).find(|p| p.is_file()),
        };
        let text = match &file {
            Some(p) => Some(std::fs::read_to_string(p).map_err(|e| Error::Config {
                path: p.display().to_string(),
                line: 0,
                message: e.to_string(),
            })?),
            None => None,
        };
        let mut cfg = Config::from_text(cwd, file.as_deref().zip(text.as_deref()), ov)?;
        cfg.settings.repo_prefix = repo_prefix(&cfg.root, cfg.config_file.as_deref());
        Ok(cfg)
    }

    /// Build the configuration from the text of a config file (`Some((path, text))`, the
    /// path only names the file in errors and anchors its relative paths) or from the
    /// defaults (`None`), without reading anything: [`Config::load`] after the file was
    /// found and read. Any text gives a configuration or an [`Error::Config`]; never a
    /// panic (fuzzed).
    pub fn from_text(cwd: &Path, file: Option<(&Path, &str)>, ov: &Overrides) -> Result<Config, Error> {
        let (raw, base) = match file {
            Some((p, text)) => {
                let raw = parse_file(text).map_err(|(line, message)| Error::Config {
                    path: p.display().to_string(),
                    line,
                    message,
                })?;
                (
                    raw,
                    p.parent().map(Path::to_path_buf).unwrap_or_else(|| cwd.to_path_buf()),
                )
            }
            None => (ConfigFile::default(), cwd.to_path_buf()),
        };
        let check = validate_check(&raw.check, file.map(|(_, t)| t).unwrap_or("")).map_err(|(line, message)| {
            Error::Config {
                path: file.map(|(p, _)| p.display().to_string()).unwrap_or_default(),
                line,
                message,
            }
        })?;
        let file = file.map(|(p, _)| p.to_path_buf());
        let cfg_name = file.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
        let mut settings =
            validate(raw.scan, raw.ids, raw.fields, raw.kinds, raw.edges).map_err(|message| Error::Config {
                path: cfg_name.clone(),
                line: 0,
                message,
            })?;
        let mut retrieval = raw.retrieval.validate().map_err(|message| Error::Config {
            path: cfg_name.clone(),
            line: 0,
            message,
        })?;
        retrieval.id_aliases = settings.ids.prefix_aliases.clone();
        raw.states.validate().map_err(|message| Error::Config {
            path: cfg_name.clone(),
            line: 0,
            message,
        })?;
        settings.check = check;
        let sqlite = !ov.no_sqlite && raw.sqlite.unwrap_or(true);
        let sqlite_fts = raw.sqlite_fts.unwrap_or(false);
        settings.tokenizer = raw.pack.tokenizer;
        if raw.pack.budget == 0 {
            return Err(Error::Config {
                path: cfg_name.clone(),
                line: 0,
                message: "pack.budget: must be at least 1".into(),
            });
        }
        let root = match (&ov.root, &raw.root) {
            (Some(r), _) => cwd.join(r),
            (None, Some(r)) => base.join(r),
            (None, None) => base.clone(),
        };
        let index_dir = match (&ov.index_dir, &raw.index_dir) {
            (Some(d), _) => cwd.join(d),
            (None, Some(d)) if ov.root.is_none() => base.join(d),
            _ => root.join("_index"),
        };
        let baseline = base.join(raw.check.baseline.as_deref().unwrap_or(Path::new(BASELINE_FILE)));
        Ok(Config {
            baseline: clean(&baseline),
            root: clean(&root),
            index_dir: clean(&index_dir),
            config_file: file,
            cwd: cwd.to_path_buf(),
            settings,
            sqlite,
            sqlite_fts,
            retrieval,
            pack_budget: raw.pack.budget.min(u32::MAX as usize) as u32,
            states: raw.states,
        })
    }

    /// A path for messages: relative to the working directory when below it.
    pub fn display(&self, p: &Path) -> String {
        crate::text::path::shown_from(&self.cwd, p)
    }
}

/// Where `root` sits below the repository root, `/`-separated (`""` when it is the
/// repository root). The repository root is the nearest folder from `root` up that holds
/// `.git` (a folder, or a file in a worktree or submodule); without one, the folder of
/// the config file when that folder holds the root, else the root itself.
pub fn repo_prefix(root: &Path, config_file: Option<&Path>) -> String {
    let root = crate::text::path::absolute(root);
    let repo = root
        .ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
        .or_else(|| {
            config_file
                .and_then(Path::parent)
                .map(crate::text::path::absolute)
                .filter(|d| root.starts_with(d))
        });
    match repo {
        Some(repo) => crate::text::path::rel_of(&repo, &root),
        None => String::new(),
    }
}

/// Parse the TOML text; errors carry the 1-based line and the key.
fn parse_file(text: &str) -> Result<ConfigFile, (u32, String)> {
    toml::from_str::<ConfigFile>(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() as u32 + 1)
            .unwrap_or(0);
        (line, e.message().trim().to_string())
    })
}

fn validate(
    scan: ScanSettings,
    ids: IdSettings,
    fields: FieldSettings,
    kinds: KindSettings,
    edges: BTreeMap<String, String>,
) -> Result<Settings, String> {
    for g in scan.include.iter().chain(&scan.exclude) {
        globset::Glob::new(g).map_err(|e| format!("scan: bad glob `{g}`: {e}"))?;
    }
    if ids.keys.is_empty() {
        return Err("ids.keys: at least one id key is needed".into());
    }
    let mut map = default_edges();
    for (key, value) in edges {
        if key.is_empty() || key.split('.').any(str::is_empty) {
            return Err(format!("edges: bad key `{key}` (use a field name or a dotted path)"));
        }
        if value == "ignore" {
            map.remove(&key);
        } else {
            let t: EdgeType = value.parse().map_err(|e| format!("edges.{key}: {e} (or \"ignore\")"))?;
            if matches!(t, EdgeType::SectionOf | EdgeType::Mentions | EdgeType::LinksTo) {
                return Err(format!(
                    "edges.{key}: `{value}` is made from the body, not from frontmatter"
                ));
            }
            map.insert(key, t);
        }
    }
    Ok(Settings {
        scan,
        ids,
        fields,
        kinds,
        edges: map,
        tokenizer: crate::text::tokens::Tokenizer::default(),
        check: CheckSettings::default(),
        repo_prefix: String::new(),
    })
}

/// Validate `[check]`; an error is the 1-based line (0 when unknown) and a message naming
/// the key.
fn validate_check(raw: &CheckFile, text: &str) -> Result<CheckSettings, (u32, String)> {
    let line = |span: std::ops::Range<usize>| text[..span.start.min(text.len())].matches('\n').count() as u32 + 1;
    let mut severity = BTreeMap::new();
    for (name, level) in &raw.severity {
        let at = line(level.span());
        let code = Code::parse(name).ok_or_else(|| {
            let known: Vec<&str> = Code::ALL
                .iter()
                .filter(|c| **c != Code::StaleIndex)
                .map(|c| c.as_str())
                .collect();
            (
                at,
                format!(
                    "check.severity.\"{name}\": unknown diagnostic code (known: {})",
                    known.join(", ")
                ),
            )
        })?;
        if code == Code::StaleIndex {
            return Err((
                at,
                "check.severity.\"stale-index\": a stale index always fails the check".into(),
            ));
        }
        let v = match level.get_ref().as_str() {
            "error" => Level::Error,
            "warning" => Level::Warning,
            "off" => Level::Off,
            other => {
                return Err((
                    at,
                    format!("check.severity.\"{name}\": `{other}` is not a severity (use error, warning or off)"),
                ));
            }
        };
        severity.insert(code, v);
    }
    let mut ignore = Vec::new();
    for g in &raw.ignore {
        globset::Glob::new(g.get_ref())
            .map_err(|e| (line(g.span()), format!("check.ignore: bad glob `{}`: {e}", g.get_ref())))?;
        ignore.push(g.get_ref().clone());
    }
    Ok(CheckSettings { severity, ignore })
}

/// Lexically normalise a path (drop `.`, fold `..`) without touching the file system.
fn clean(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_line_and_key() {
        let err = parse_file("root = \".\"\n[scan]\nincluded = []\n").unwrap_err();
        assert_eq!(err.0, 3);
        assert!(err.1.contains("included"), "{}", err.1);
    }

    #[test]
    fn edges_merge_and_ignore() {
        let mut e = BTreeMap::new();
        e.insert("requires".to_string(), "ignore".to_string());
        e.insert("epic".to_string(), "parent".to_string());
        let s = validate(
            ScanSettings::default(),
            IdSettings::default(),
            FieldSettings::default(),
            KindSettings::default(),
            e,
        )
        .unwrap();
        assert!(!s.edges.contains_key("requires"));
        assert_eq!(s.edges["epic"], EdgeType::Parent);
        assert_eq!(s.edges["parent"], EdgeType::Parent);
    }

    #[test]
    fn bad_edge_type_is_named() {
        let mut e = BTreeMap::new();
        e.insert("x".to_string(), "child_of".to_string());
        let err = validate(
            ScanSettings::default(),
            IdSettings::default(),
            FieldSettings::default(),
            KindSettings::default(),
            e,
        )
        .unwrap_err();
        assert!(err.contains("edges.x") && err.contains("child_of"), "{err}");
    }
}
