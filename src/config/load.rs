//! Loading: find `mdgraph.toml`, parse it (errors name the file, line and key), validate
//! each table into the typed [`Config`] of one run, and put the command-line
//! [`Overrides`] on top.

use super::check::{BASELINE_FILE, CheckFile, validate_check};
use super::retrieval::{Retrieval, StateGroups};
use super::settings::{self, FieldSettings, IdSettings, KindSettings, ScanSettings, Settings};
use crate::error::Error;
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
    /// Commit the index folder's graph to git (default false: the index is local and
    /// ignored by git).
    commit_index: Option<bool>,
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

/// The default relevance cliff of a pack (`[pack] cliff`), chosen on the tuning sets
/// (EVAL.md, stop 22).
pub const DEFAULT_CLIFF: f64 = 0.15;

/// Context pack settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Pack {
    /// Default token budget of `mdgraph pack`.
    pub budget: usize,
    /// `o200k` (exact) or `approx` (bytes / 4); counts are stored in the index, so
    /// changing it makes the index stale.
    pub tokenizer: crate::text::tokens::Tokenizer,
    /// The relevance cliff: candidates scoring below this share of the best one are
    /// not packed (0 packs to the budget, as `--fill` does).
    pub cliff: f64,
}

impl Default for Pack {
    fn default() -> Self {
        Pack {
            budget: 4000,
            tokenizer: crate::text::tokens::Tokenizer::default(),
            cliff: DEFAULT_CLIFF,
        }
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
    /// `commit_index`: the index folder's graph files are committed to git (its
    /// `.gitignore` leaves them in, `check` says when they are stale, and the merge
    /// driver merges them). False by default: the index is local, ignored by git, and
    /// refreshed by whoever reads it.
    pub commit_index: bool,
    /// Keep the SQLite mirror.
    pub sqlite: bool,
    /// Give the mirror an FTS5 table over the sections (for SQL users' own `MATCH`
    /// queries; mdgraph's search does not read it). Toggling it rebuilds the mirror.
    pub sqlite_fts: bool,
    /// Query-time settings.
    pub retrieval: Retrieval,
    /// Default token budget of `mdgraph pack` (the tokenizer is in `settings`).
    pub pack_budget: u32,
    /// `[pack] cliff`: candidates scoring below this share of the best are not packed.
    pub pack_cliff: f64,
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
                    let message = match std::fs::metadata(&p) {
                        Ok(m) if m.is_dir() => "is a folder, not a config file",
                        Ok(_) => "not a regular file (a FIFO, socket or device), not a config file",
                        Err(_) => "config file not found",
                    };
                    return Err(Error::Config {
                        path: p.display().to_string(),
                        line: 0,
                        message: message.into(),
                    });
                }
                Some(p)
            }
            // The config that belongs to the root: from `--root` upward first, then from
            // the working directory upward.
            None => {
                let from_root = ov.root.as_ref().map(|r| clean(&cwd.join(r)));
                from_root
                    .iter()
                    .flat_map(|r| r.ancestors())
                    .chain(cwd.ancestors())
                    .map(|d| d.join(CONFIG_FILE))
                    .find(|p| p.is_file())
            }
        };
        let text = match &file {
            Some(p) => Some(crate::text::path::read_regular(p).map_err(|e| Error::Config {
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
            settings::validate(raw.scan, raw.ids, raw.fields, raw.kinds, raw.edges).map_err(|message| {
                Error::Config {
                    path: cfg_name.clone(),
                    line: 0,
                    message,
                }
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
        if !(0.0..=1.0).contains(&raw.pack.cliff) {
            return Err(Error::Config {
                path: cfg_name.clone(),
                line: 0,
                message: "pack.cliff: must be between 0 and 1 (a share of the best candidate's score)".into(),
            });
        }
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
        // The config's index folder serves its own root, also when `--root` names that
        // root from elsewhere; another root gets its own `_index`.
        let own_root = match &raw.root {
            Some(r) => base.join(r),
            None => base.clone(),
        };
        let index_dir = match (&ov.index_dir, &raw.index_dir) {
            (Some(d), _) => cwd.join(d),
            (None, Some(d)) if ov.root.is_none() || same_dir(&own_root, &root) => base.join(d),
            _ => root.join("_index"),
        };
        let index_dir = clean(&index_dir);
        if let Some(message) = misplaced_index(&index_dir, &base, ov.index_dir.is_some()) {
            return Err(Error::Config {
                path: cfg_name.clone(),
                line: 0,
                message,
            });
        }
        let baseline = base.join(raw.check.baseline.as_deref().unwrap_or(Path::new(BASELINE_FILE)));
        Ok(Config {
            baseline: clean(&baseline),
            root: clean(&root),
            index_dir,
            config_file: file,
            commit_index: raw.commit_index.unwrap_or(false),
            cwd: cwd.to_path_buf(),
            settings,
            sqlite,
            sqlite_fts,
            retrieval,
            pack_budget: raw.pack.budget.min(u32::MAX as usize) as u32,
            pack_cliff: raw.pack.cliff,
            states: raw.states,
        })
    }

    /// A path for messages: relative to the working directory when below it.
    pub fn display(&self, p: &Path) -> String {
        crate::text::path::shown_from(&self.cwd, p)
    }
}

/// Why the index folder cannot be where it is, if it cannot: inside a `.git` folder
/// (what mdgraph writes there would break `git gc` and `git fetch`; a config a pull
/// request carries could point there), or outside the repository holding `base` when the
/// config file says so (a checkout would then write into a folder of another project);
/// `--index-dir` on the command line may name a folder outside (`from_cli`).
fn misplaced_index(index_dir: &Path, base: &Path, from_cli: bool) -> Option<String> {
    let abs = crate::text::path::absolute(index_dir);
    let in_git = |p: &Path| p.components().any(|c| c.as_os_str() == ".git");
    if in_git(index_dir) || in_git(&abs) {
        return Some(format!(
            "index_dir {}: inside a `.git` folder, which belongs to git (mdgraph's files there \
             would break `git gc` and `git fetch`); give the index a folder of its own in the \
             working tree, such as `_index`",
            index_dir.display()
        ));
    }
    if from_cli {
        return None;
    }
    let base = crate::text::path::absolute(base);
    let top = base.ancestors().find(|d| d.join(".git").exists())?;
    let inside = index_dir.starts_with(top) || abs.starts_with(top);
    (!inside).then(|| {
        format!(
            "index_dir {}: outside the repository {} (a config file names only folders of its \
             own repository); give a folder inside it, or pass `--index-dir` on the command line \
             to use that folder on purpose",
            index_dir.display(),
            top.display()
        )
    })
}

/// Whether two paths name one folder (compared cleaned, then with symlinks resolved).
fn same_dir(a: &Path, b: &Path) -> bool {
    let (a, b) = (clean(a), clean(b));
    a == b || crate::text::path::absolute(&a) == crate::text::path::absolute(&b)
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
    use crate::config::check::Level;
    use crate::model::EdgeType;
    use crate::model::diag::Code;

    /// A config file at `/repo/mdgraph.toml` holding `text`, loaded from `/repo/sub`.
    fn load(text: &str, ov: &Overrides) -> Result<Config, Error> {
        Config::from_text(
            Path::new("/repo/sub"),
            Some((Path::new("/repo/mdgraph.toml"), text)),
            ov,
        )
    }

    fn message(e: Error) -> (String, u32, String) {
        match e {
            Error::Config { path, line, message } => (path, line, message),
            other => panic!("not a config error: {other}"),
        }
    }

    #[test]
    fn unknown_key_names_line_and_key() {
        let err = parse_file("root = \".\"\n[scan]\nincluded = []\n").unwrap_err();
        assert_eq!(err.0, 3);
        assert!(err.1.contains("included"), "{}", err.1);
        let (path, line, msg) = message(load("[retrieval]\nseeds = 3\nsede = 1\n", &Overrides::default()).unwrap_err());
        assert_eq!((path.as_str(), line), ("/repo/mdgraph.toml", 3));
        assert!(msg.contains("sede"), "{msg}");
    }

    #[test]
    fn without_a_file_everything_is_default() {
        let cfg = Config::from_text(Path::new("/w"), None, &Overrides::default()).unwrap();
        assert_eq!(cfg.root, Path::new("/w"));
        assert_eq!(cfg.index_dir, Path::new("/w/_index"));
        assert_eq!(cfg.baseline, Path::new("/w").join(BASELINE_FILE));
        assert_eq!(cfg.config_file, None);
        assert_eq!(cfg.settings, Settings::default());
        assert_eq!(cfg.retrieval, Retrieval::default());
        assert_eq!(cfg.states, StateGroups::default());
        assert_eq!((cfg.sqlite, cfg.sqlite_fts, cfg.pack_budget), (true, false, 4000));
    }

    #[test]
    fn paths_are_relative_to_the_file_and_overrides_to_the_working_directory() {
        let text = "root = \"backlog\"\nindex_dir = \"./out/../idx\"\n[check]\nbaseline = \"ci/base.json\"\n";
        let cfg = load(text, &Overrides::default()).unwrap();
        assert_eq!(cfg.root, Path::new("/repo/backlog"));
        assert_eq!(cfg.index_dir, Path::new("/repo/idx"));
        assert_eq!(cfg.baseline, Path::new("/repo/ci/base.json"));
        assert_eq!(cfg.config_file.as_deref(), Some(Path::new("/repo/mdgraph.toml")));
        assert_eq!(cfg.cwd, Path::new("/repo/sub"));
        // `--root` wins, and the file's index_dir then follows the root.
        let ov = Overrides {
            root: Some("../other".into()),
            no_sqlite: true,
            ..Overrides::default()
        };
        let cfg = load(text, &ov).unwrap();
        assert_eq!(cfg.root, Path::new("/repo/other"));
        assert_eq!(cfg.index_dir, Path::new("/repo/other/_index"));
        assert!(!cfg.sqlite);
        let ov = Overrides {
            index_dir: Some("i".into()),
            ..Overrides::default()
        };
        assert_eq!(load(text, &ov).unwrap().index_dir, Path::new("/repo/sub/i"));
    }

    #[test]
    fn index_sections_land_in_settings() {
        let text = r#"
[scan]
include = ["**/*.md"]
exclude = ["archive/**"]
max_file_size = 1000
[ids]
keys = ["key", "id"]
prefix_aliases = { task = "back" }
[fields]
title = ["name"]
[kinds]
items_dir = "work"
[edges]
epic = "parent"
requires = "ignore"
[pack]
tokenizer = "approx"
budget = 1200
"#;
        let cfg = load(text, &Overrides::default()).unwrap();
        let s = &cfg.settings;
        assert_eq!(s.scan.exclude, ["archive/**"]);
        assert_eq!(s.scan.max_file_size, 1000);
        assert_eq!(s.ids.keys, ["key", "id"]);
        assert_eq!(s.fields.title, ["name"]);
        assert_eq!(s.fields.state, FieldSettings::default().state);
        assert_eq!(s.kinds.items_dir, "work");
        assert_eq!(s.edges["epic"], EdgeType::Parent);
        assert!(!s.edges.contains_key("requires"));
        assert_eq!(s.tokenizer, crate::text::tokens::Tokenizer::Approx);
        assert_eq!(cfg.pack_budget, 1200);
        // Query-time: the id aliases reach retrieval, and are not a second copy to keep
        // in step by hand.
        assert_eq!(cfg.retrieval.id_aliases["task"], "back");
        assert_ne!(s.digest(), Settings::default().digest());
    }

    #[test]
    fn query_time_sections_stay_out_of_the_digest() {
        let text = r#"
sqlite = false
sqlite_fts = true
[retrieval]
seeds = 4
[retrieval.graph]
backwards = false
[states]
done = ["Shipped"]
paths = { "completed/**" = "done" }
"#;
        let cfg = load(text, &Overrides::default()).unwrap();
        assert_eq!(cfg.retrieval.seeds, 4);
        assert!(!cfg.retrieval.graph.backwards);
        assert_eq!(cfg.states.done, ["Shipped"]);
        assert_eq!(cfg.states.paths["completed/**"], "done");
        assert_eq!((cfg.sqlite, cfg.sqlite_fts), (false, true));
        assert_eq!(cfg.settings.digest(), Settings::default().digest());
    }

    #[test]
    fn check_section_is_part_of_the_settings() {
        let text = "[check]\nignore = [\"drafts/**\"]\n[check.severity]\nbroken-link = \"warning\"\n";
        let cfg = load(text, &Overrides::default()).unwrap();
        assert_eq!(cfg.settings.check.ignore, ["drafts/**"]);
        assert_eq!(cfg.settings.check.severity[&Code::BrokenLink], Level::Warning);
        let (path, line, msg) =
            message(load("# c\n[check.severity]\nbroken-link = \"loud\"\n", &Overrides::default()).unwrap_err());
        assert_eq!((path.as_str(), line), ("/repo/mdgraph.toml", 3));
        assert!(msg.contains("loud"), "{msg}");
    }

    #[test]
    fn a_bad_value_in_each_section_is_an_error_naming_it() {
        for (text, key) in [
            ("[scan]\ninclude = [\"a[\"]", "scan: bad glob"),
            ("[edges]\nx = \"child_of\"", "edges.x"),
            ("[retrieval]\ncliff = 2.0", "retrieval.cliff"),
            ("[states]\npaths = { \"a/**\" = \"gone\" }", "states.paths"),
            ("[pack]\nbudget = 0", "pack.budget"),
        ] {
            let (path, _, msg) = message(load(text, &Overrides::default()).unwrap_err());
            assert_eq!(path, "/repo/mdgraph.toml");
            assert!(msg.contains(key), "{text}: {msg}");
        }
    }

    #[test]
    fn clean_folds_dots_lexically() {
        assert_eq!(clean(Path::new("/a/./b/../c")), Path::new("/a/c"));
        assert_eq!(clean(Path::new("../x/..")), Path::new(".."));
    }
}
