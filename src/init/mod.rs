//! `mdgraph init`: look at a folder, recognise the backlog layout, and write a commented
//! starter `mdgraph.toml` for it. Never overwrites a file.
//!
//! Layouts recognised, first match wins:
//! - **Backlog.md**: a `backlog/` (or `.backlog/`) folder with `config.yml` or `tasks/`;
//!   its `task_prefix` and `statuses` go into the config (older `task-N` references
//!   then find `BACK-N`).
//! - **kano**: `items/` folders holding work items with `id:` and `type:` frontmatter,
//!   and `decisions/ADR-NNNN_*.md`; the root is the folder holding them (the common
//!   ancestor when there are several). Types and states outside the defaults are added.
//! - **decision records** (adr-tools, MADR, log4brains): folders of numbered Markdown
//!   files, by their name (`doc/adr`, `docs/decisions`) or, whatever they are called, by
//!   their statuses; statuses the log writes outside the defaults are added.
//! - **EIP-style**: most files carry an `eip:` number; `eip` becomes the id key, and
//!   `status: Moved` stubs yield their id.
//! - **spec folders** (OpenSpec `openspec/changes/`, `openspec/specs/`; GitHub Spec Kit `specs/NNN-*/`, Kiro `.kiro/specs/*/`, BMAD
//!   `docs/stories/`, v6's `docs/sprint-artifacts/` and
//!   `_bmad-output/implementation-artifacts/`): read with no configuration
//!   (`ingest/spec`); the config says so. A story folder is never a decision log.
//! - anything else: a generic config over the whole folder.

use crate::config::KindSettings;
use crate::error::Error;
use crate::ingest::frontmatter::{self, Parsed};
use crate::ingest::{adr, markdown, parse, status};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

mod render;
pub use render::render;
use yaml_rust2::Yaml;

/// Most Markdown files read while detecting (a sample is enough to tell a layout).
const SAMPLE: usize = 2000;
/// How deep below the folder `items/` and `decisions/` are looked for.
const DEPTH: usize = 5;

/// The layout found, with what the config needs to know about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// A Backlog.md `backlog/` folder.
    BacklogMd {
        /// The task id prefix from `config.yml` (`task_prefix`), lowercase.
        prefix: Option<String>,
        /// The statuses from `config.yml`.
        statuses: Vec<String>,
    },
    /// kano-style `items/` and `decisions/` folders.
    Kano {
        /// Work items found.
        items: usize,
        /// ADRs found.
        adrs: usize,
        /// Work item types outside the defaults.
        extra_types: Vec<String>,
        /// Work item states outside the defaults.
        extra_states: Vec<String>,
        /// ADR statuses outside the defaults.
        extra_adr_states: Vec<String>,
    },
    /// Spec folders, read as they are.
    SpecFolders(crate::ingest::spec::Census),
    /// EIP-style documents identified by `eip:`.
    Eip {
        /// Documents with an `eip:` key among those read.
        with_eip: usize,
        /// `status: Moved` stubs among them.
        moved: usize,
    },
    /// A collection of decision records (adr-tools, MADR, log4brains): numbered
    /// Markdown files in a folder such as `doc/adr` or `docs/decisions`.
    Adrs {
        /// The folders holding them, relative to the folder looked at.
        dirs: Vec<String>,
        /// The name those folders share (`adr`, `decisions`): the config's `decisions_dir`.
        name: String,
        /// Decision records found.
        adrs: usize,
        /// Statuses the log writes outside the defaults (`Pending`, `Reverted`), as
        /// written where a status belongs: added to `adr_states`.
        extra_states: Vec<String>,
    },
    /// No known layout.
    Generic,
}

/// What `init` found: the layout and the folder that is the backlog root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    /// The layout.
    pub layout: Layout,
    /// The backlog root (the folder looked at, or a folder below it).
    pub root: PathBuf,
    /// Markdown files under the root.
    pub markdown_files: usize,
}

impl Detected {
    /// One line for the user: what was found where.
    pub fn describe(&self, shown_root: &str) -> String {
        let files = counted(self.markdown_files, "Markdown file", "Markdown files");
        match &self.layout {
            Layout::BacklogMd { prefix, statuses } => {
                let mut s = format!("a Backlog.md backlog in {shown_root} ({files}");
                if let Some(p) = prefix {
                    let _ = write!(s, "; task prefix `{p}`");
                }
                if !statuses.is_empty() {
                    let _ = write!(s, "; statuses {}", statuses.join(", "));
                }
                s + ")"
            }
            Layout::Kano { items, adrs, .. } => format!(
                "a kano-style backlog in {shown_root} ({} under items/, {} under decisions/)",
                counted(*items, "work item", "work items"),
                counted(*adrs, "ADR", "ADRs")
            ),
            Layout::Eip { with_eip, moved } => format!(
                "EIP-style documents in {shown_root} ({with_eip} with an `eip:` id, {}, of {files})",
                counted(*moved, "`status: Moved` stub", "`status: Moved` stubs")
            ),
            Layout::Adrs { dirs, adrs, .. } => format!(
                "decision records in {shown_root} ({} in {}; {files} in all)",
                counted(*adrs, "numbered ADR", "numbered ADRs"),
                dirs.join(", ")
            ),
            Layout::SpecFolders(c) => format!(
                "spec folders in {shown_root} ({}Spec Kit: {}; Kiro: {}; BMAD: {}{}; {}; {files})",
                if c.openspec.any() {
                    format!("{}; ", c.openspec.describe())
                } else {
                    String::new()
                },
                counted(c.speckit, "feature", "features"),
                counted(c.kiro, "feature", "features"),
                counted(c.bmad, "story", "stories"),
                match c.archived {
                    0 => String::new(),
                    n => format!(
                        ", not counting {} in an archive folder, read as documents",
                        counted(n, "story file", "story files")
                    ),
                },
                counted(c.prompts, "prompt record", "prompt records")
            ),
            Layout::Generic => {
                format!("no known layout in {shown_root} ({files}): wrote a generic configuration")
            }
        }
    }
}

/// `1 feature`, `0 features`, `2 features`.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Look at `dir` and tell its layout.
pub fn detect(dir: &Path) -> Detected {
    let detected = |layout, root: PathBuf| {
        let markdown_files = markdown_files(&root, usize::MAX).len();
        Detected {
            layout,
            root,
            markdown_files,
        }
    };
    if let Some((root, layout)) = backlog_md(dir) {
        return detected(layout, root);
    }
    if let Some((root, layout)) = kano(dir) {
        return detected(layout, root);
    }
    let sample = markdown_files(dir, SAMPLE);
    let rels: Vec<String> = sample
        .iter()
        .filter_map(|p| p.strip_prefix(dir).ok())
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .collect();
    let mut census = crate::ingest::spec::Census::of(rels.iter().map(String::as_str));
    // OpenSpec 1.x says so in `openspec/config.yaml` (0.x in `openspec/project.md`).
    census.openspec.marker |= dir.join("openspec/config.yaml").is_file();
    if census.any() {
        return detected(Layout::SpecFolders(census), dir.to_path_buf());
    }
    if let Some(layout) = adr_collection(dir) {
        return detected(layout, dir.to_path_buf());
    }
    let (mut with_fm, mut with_eip, mut moved) = (0, 0, 0);
    for p in &sample {
        let Some(y) = read_frontmatter(p) else { continue };
        with_fm += 1;
        if frontmatter::get_path(&y, "eip").is_some() {
            with_eip += 1;
            let status = frontmatter::get_path(&y, "status").and_then(frontmatter::scalar_text);
            if status.is_some_and(|s| s.eq_ignore_ascii_case("moved")) {
                moved += 1;
            }
        }
    }
    if with_eip > 0 && with_eip * 2 >= with_fm {
        return detected(Layout::Eip { with_eip, moved }, dir.to_path_buf());
    }
    detected(Layout::Generic, dir.to_path_buf())
}

/// The `[states] paths` of a Backlog.md backlog: its folders of finished, archived and
/// draft tasks.
const BACKLOG_MD_PATHS: &str = r#"{ "archive/**" = "dropped", "completed/**" = "done", "drafts/**" = "draft" }"#;

/// The `[kinds] paths` of a Backlog.md backlog: tasks wherever they were moved, its
/// decisions and its docs.
const BACKLOG_MD_KINDS: &str = r#"{ "tasks/**" = "Task", "completed/**" = "Task", "archive/tasks/**" = "Task", "drafts/**" = "Task", "archive/drafts/**" = "Task", "decisions/**" = "adr", "docs/**" = "doc" }"#;

/// A `backlog/` or `.backlog/` folder of Backlog.md (or `dir` itself being one).
fn backlog_md(dir: &Path) -> Option<(PathBuf, Layout)> {
    let is_backlog = |d: &Path| d.join("config.yml").is_file() && d.join("tasks").is_dir();
    let root = [dir.join("backlog"), dir.join(".backlog"), dir.to_path_buf()]
        .into_iter()
        .find(|d| is_backlog(d))?;
    let text = std::fs::read_to_string(root.join("config.yml")).unwrap_or_default();
    let yaml = yaml_rust2::YamlLoader::load_from_str(&text)
        .ok()
        .and_then(|mut docs| (!docs.is_empty()).then(|| docs.swap_remove(0)));
    let prefix = yaml
        .as_ref()
        .and_then(|y| y["task_prefix"].as_str())
        .map(|p| p.trim().to_ascii_lowercase())
        .filter(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    let statuses = yaml
        .as_ref()
        .and_then(|y| y["statuses"].as_vec().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(frontmatter::scalar_text)
        .filter(|s| !s.trim().is_empty())
        .collect();
    Some((root, Layout::BacklogMd { prefix, statuses }))
}

/// kano `items/` and `decisions/` folders below `dir`.
fn kano(dir: &Path) -> Option<(PathBuf, Layout)> {
    let kinds = KindSettings::default();
    let mut roots: Vec<PathBuf> = Vec::new();
    let (mut items, mut adrs) = (0, 0);
    let mut types = BTreeSet::new();
    let mut states = BTreeSet::new();
    let mut adr_states = BTreeSet::new();
    for entry in folders_below(dir) {
        let name = entry.file_name().to_string_lossy();
        let path = entry.path();
        let (is_items, is_decisions) = (
            name.eq_ignore_ascii_case(&kinds.items_dir),
            name.eq_ignore_ascii_case(&kinds.decisions_dir),
        );
        if !is_items && !is_decisions {
            continue;
        }
        let mut found = 0;
        // Every file, not a sample: the count is shown ("10000 work items"), and reading
        // the frontmatter of 10,000 items takes a fraction of a second, once.
        for p in markdown_files(path, usize::MAX) {
            let Some(y) = read_frontmatter(&p) else { continue };
            let text = |k: &str| frontmatter::get_path(&y, k).and_then(frontmatter::scalar_text);
            if text("id").is_none() {
                continue;
            }
            if is_items && let Some(t) = text("type") {
                found += 1;
                types.insert(t);
                states.extend(text("state").or_else(|| text("status")));
            } else if is_decisions
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().to_ascii_uppercase().starts_with("ADR-"))
            {
                found += 1;
                adr_states.extend(text("status").or_else(|| text("state")));
            }
        }
        if found > 0 {
            if is_items {
                items += found;
            } else {
                adrs += found;
            }
            if let Some(parent) = path.parent() {
                roots.push(parent.to_path_buf());
            }
        }
    }
    if items == 0 {
        return None;
    }
    let root = roots
        .iter()
        .skip(1)
        .fold(roots[0].clone(), |acc, r| common_ancestor(&acc, r));
    let extra = |seen: BTreeSet<String>, known: &[String]| -> Vec<String> {
        seen.into_iter()
            .filter(|s| !known.iter().any(|k| k.eq_ignore_ascii_case(s)))
            .collect()
    };
    Some((
        root,
        Layout::Kano {
            items,
            adrs,
            extra_types: extra(types, &kinds.item_types),
            extra_states: extra(states, &kinds.item_states),
            extra_adr_states: extra(adr_states, &kinds.adr_states),
        },
    ))
}

/// Folder names that hold decision records in the common tools' layouts (adr-tools
/// `doc/adr`, MADR `docs/decisions`, log4brains `docs/adr`, `docs/architecture/adr`).
const ADR_DIRS: [&str; 6] = [
    "adr",
    "adrs",
    "decisions",
    "decision-records",
    "architecture-decisions",
    "architecture-decision-records",
];

/// What one folder of numbered Markdown files holds.
struct AdrFolder {
    /// Its path relative to the folder looked at.
    rel: String,
    /// Its name, lowercase.
    name: String,
    /// Numbered Markdown files in it (templates aside).
    numbered: usize,
    /// Those with a status: a frontmatter `status`, a Status section, line or table row.
    with_status: usize,
    /// Status phrases written where a status belongs that are no known state.
    unknown: Vec<String>,
}

/// Folders below `dir` that are decision logs: at least two numbered Markdown files
/// (`0001-title.md`, `ADR023-title.md`) in a folder named as [`ADR_DIRS`], or, whatever
/// the folder is called (`architecture-decision-record/`, `doc/architecture/decisions`
/// under another name), numbered files of which at least half state a status. The name
/// holding the most ADRs wins; its folders are the log.
fn adr_collection(dir: &Path) -> Option<Layout> {
    let known = KindSettings::default().adr_states;
    let folders: Vec<AdrFolder> = folders_below(dir)
        .filter_map(|entry| adr_folder(dir, entry.path(), &known))
        .filter(|f| f.numbered >= 2 && (ADR_DIRS.contains(&f.name.as_str()) || f.with_status * 2 >= f.numbered))
        .collect();
    let mut by_name: Vec<(&str, usize)> = Vec::new();
    for f in &folders {
        match by_name.iter_mut().find(|(n, _)| *n == f.name) {
            Some((_, count)) => *count += f.numbered,
            None => by_name.push((&f.name, f.numbered)),
        }
    }
    // The first of the names holding the most (folders come in name order).
    let (name, _) = by_name.iter().copied().rev().max_by_key(|(_, count)| *count)?;
    let log: Vec<&AdrFolder> = folders.iter().filter(|f| f.name == name).collect();
    let mut extra_states: Vec<String> = Vec::new();
    for w in log.iter().flat_map(|f| &f.unknown) {
        if !extra_states.iter().any(|x| x.eq_ignore_ascii_case(w)) {
            extra_states.push(w.clone());
        }
    }
    Some(Layout::Adrs {
        dirs: log.iter().map(|f| f.rel.clone()).collect(),
        name: name.to_string(),
        adrs: log.iter().map(|f| f.numbered).sum(),
        extra_states,
    })
}

/// The numbered Markdown files directly in `path` and what their statuses say.
fn adr_folder(dir: &Path, path: &Path, known: &[String]) -> Option<AdrFolder> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    // BMAD v6 numbers its stories `1-2-slug.md`, and writes a `Status:` line in each
    // (xvanov/locatrix's `docs/stories/` was taken for 8 ADRs): a story folder is none.
    if crate::ingest::spec::is_story_folder(&name) {
        return None;
    }
    let mut f = AdrFolder {
        rel: path
            .strip_prefix(dir)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/"),
        name,
        numbered: 0,
        with_status: 0,
        unknown: Vec::new(),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("md")))
        .filter(|p| {
            p.file_stem()
                .and_then(|s| s.to_str())
                .is_some_and(|s| parse::adr_file_number(s).is_some() && !adr::is_boilerplate(s))
        })
        .collect();
    files.sort();
    for p in files.iter().take(SAMPLE) {
        f.numbered += 1;
        let Ok(text) = std::fs::read_to_string(p) else { continue };
        let split = frontmatter::split(&text);
        let fm_status = split
            .yaml
            .and_then(|y| match frontmatter::parse_yaml(y) {
                Parsed::Mapping(m) => Some(m),
                _ => None,
            })
            .and_then(|y| frontmatter::get_path(&y, "status").and_then(frontmatter::scalar_text));
        if fm_status.is_some() {
            f.with_status += 1;
            continue;
        }
        let sections = markdown::parse_body(split.body, split.body_line).sections;
        if let Some(st) = status::read(&sections, known) {
            f.with_status += usize::from(st.state.is_some() || st.unknown.is_some());
            f.unknown.extend(status::learnable(&sections, known));
        }
    }
    Some(f)
}

/// The folders below `dir` (at most [`DEPTH`] deep, ignore files honoured, no links
/// followed), in name order.
fn folders_below(dir: &Path) -> impl Iterator<Item = ignore::DirEntry> {
    crate::config::walk::builder(dir, None)
        .max_depth(Some(DEPTH))
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_dir()))
}

fn common_ancestor(a: &Path, b: &Path) -> PathBuf {
    a.components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect()
}

/// Markdown files below `dir` (gitignore-aware, hidden folders skipped), at most `limit`.
fn markdown_files(dir: &Path, limit: usize) -> Vec<PathBuf> {
    crate::config::walk::builder(dir, None)
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| e.into_path())
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
        })
        .take(limit)
        .collect()
}

/// The frontmatter mapping of a file (repaired when the YAML has common slips).
fn read_frontmatter(p: &Path) -> Option<Yaml> {
    let text = std::fs::read_to_string(p).ok()?;
    match frontmatter::parse_yaml(frontmatter::split(&text).yaml?) {
        Parsed::Mapping(y) => Some(y),
        Parsed::Invalid { recovered, .. } => recovered,
        Parsed::NotMapping(_) => None,
    }
}

/// A TOML string literal.
/// What `init` wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// The config file.
    pub path: PathBuf,
    /// The detection.
    pub detected: Detected,
    /// A config file in an ancestor folder that the new one now shadows.
    pub shadows: Option<PathBuf>,
}

/// Write a starter config to `file`, looking at `dir` for the layout. `index_dir` is
/// where the index goes (default `_index` beside the file). Fails when `file` exists.
pub fn init(
    file: &Path,
    dir: &Path,
    index_dir: Option<&Path>,
    shown: impl Fn(&Path) -> String,
) -> Result<Written, Error> {
    if file.exists() {
        return Err(Error::Other(format!(
            "{}: a configuration already exists; edit it, or remove it and run `mdgraph init` again",
            shown(file)
        )));
    }
    if !dir.is_dir() {
        return Err(Error::NoRoot(dir.to_path_buf()));
    }
    let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let detected = detect(dir);
    let relative = |p: &Path| crate::text::path::relative_to(&base, p);
    let root = relative(&detected.root);
    let index = match index_dir {
        Some(d) => relative(d),
        None => "_index".into(),
    };
    let text = render(&detected, &root, &index, &shown(&detected.root));
    std::fs::create_dir_all(&base).map_err(|e| Error::io(&base, e))?;
    // create_new: never replace a file that appeared since the check above.
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(file)
        .map_err(|e| Error::io(file, e))?;
    std::io::Write::write_all(&mut f, text.as_bytes()).map_err(|e| Error::io(file, e))?;
    let shadows = base.parent().and_then(|p| {
        p.ancestors()
            .map(|d| d.join(crate::config::CONFIG_FILE))
            .find(|c| c.is_file())
    });
    Ok(Written {
        path: file.to_path_buf(),
        detected,
        shadows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn a_log_is_found_by_its_statuses_whatever_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        // Numbered chapters without statuses are not a log.
        write(d, "book/01-intro.md", "# Intro\n");
        write(d, "book/02-more.md", "# More\n");
        assert_eq!(adr_collection(d), None);
        write(d, "records/0001-a.md", "# A\n\n## Status\n\n✅ Accepted\n");
        write(d, "records/0002-b.md", "# B\n\n## Status\n\nPending\n");
        write(d, "records/0003-c.md", "# C\n\n## Status\n\nPartly superseded\n");
        let Some(Layout::Adrs {
            dirs,
            name,
            adrs,
            extra_states,
        }) = adr_collection(d)
        else {
            panic!("no log found")
        };
        assert_eq!((dirs, name.as_str(), adrs), (vec!["records".to_string()], "records", 3));
        assert_eq!(extra_states, ["Partly superseded"]);
    }

    /// "Kiro: 1 features": a count of one is said in the singular, in every layout.
    #[test]
    fn one_of_a_kind_is_said_in_the_singular() {
        let c = crate::ingest::spec::Census {
            speckit: 0,
            kiro: 1,
            bmad: 1,
            prompts: 2,
            openspec: Default::default(),
            archived: 0,
        };
        let d = |layout| Detected {
            layout,
            root: PathBuf::from("."),
            markdown_files: 1,
        };
        assert_eq!(
            d(Layout::SpecFolders(c)).describe("."),
            "spec folders in . (Spec Kit: 0 features; Kiro: 1 feature; BMAD: 1 story; 2 prompt records; 1 Markdown file)"
        );
        let adrs = Layout::Adrs {
            dirs: vec!["doc/adr".into()],
            name: "adr".into(),
            adrs: 1,
            extra_states: Vec::new(),
        };
        assert_eq!(
            d(adrs).describe("."),
            "decision records in . (1 numbered ADR in doc/adr; 1 Markdown file in all)"
        );
    }

    #[test]
    fn the_bmad_method_installed_beside_the_stories_is_left_out() {
        // xvanov/locatrix: `bmad/core/`, `bmad/bmm/` hold the method's agents and docs
        // (40 broken links among them); the stories are the backlog.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(
            d,
            "docs/stories/1-1-setup.md",
            "# Story\n\nStatus: done\n\n## Tasks / Subtasks\n\n- [x] a\n",
        );
        write(d, "bmad/core/agents/master.md", "# Master\n");
        write(d, "bmad/bmm/README.md", "# BMM\n\n[gone](./docs/x.md)\n");
        let found = detect(d);
        let text = render(&found, ".", "_index", ".");
        assert!(text.contains("exclude = [\"bmad/**\"]"), "{text}");
        // Without the installed method, the usual commented example.
        std::fs::remove_dir_all(d.join("bmad/core")).unwrap();
        let text = render(&detect(d), ".", "_index", ".");
        assert!(text.contains("# exclude = [\"drafts/**\"]"), "{text}");
    }

    #[test]
    fn a_folder_of_bmad_stories_is_no_decision_log() {
        // xvanov/locatrix: BMAD v6 stories `docs/stories/1-2-deploy-….md`, each with a
        // `Status: review` line, were "8 numbered ADRs in docs/stories".
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for (rel, status) in [
            ("docs/stories/1-1-setup.md", "done"),
            ("docs/stories/1-2-deploy.md", "review"),
            ("docs/sprint-artifacts/2-1-api.md", "ready-for-dev"),
            ("docs/sprint-artifacts/2-2-ws.md", "drafted"),
        ] {
            write(
                d,
                rel,
                &format!("# Story\n\nStatus: {status}\n\n## Tasks / Subtasks\n\n- [ ] a\n"),
            );
        }
        assert_eq!(adr_collection(d), None);
        let found = detect(d);
        let Layout::SpecFolders(census) = &found.layout else {
            panic!("{:?}", found.layout)
        };
        assert_eq!(census.bmad, 4);
        assert!(
            found.describe(".").contains("BMAD: 4 stories"),
            "{}",
            found.describe(".")
        );
    }
}
