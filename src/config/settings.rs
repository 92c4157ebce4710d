//! Index settings: everything that decides what the index contains (`[scan]`, `[ids]`,
//! `[fields]`, `[kinds]`, `[edges]`, the tokenizer, `[check]`), gathered in [`Settings`]
//! whose digest `meta.json` records, so a change makes the index stale.

use super::check::CheckSettings;
use crate::model::EdgeType;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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

impl ScanSettings {
    /// The include and exclude globs made into matchers.
    pub fn filter(&self) -> PathFilter {
        let set = |globs: &[String]| {
            let mut b = globset::GlobSetBuilder::new();
            for g in globs {
                // Globs were validated when the config was loaded.
                if let Ok(glob) = globset::GlobBuilder::new(g).literal_separator(false).build() {
                    b.add(glob);
                }
            }
            b.build().unwrap_or_else(|_| globset::GlobSet::empty())
        };
        PathFilter {
            include: set(&self.include),
            exclude: set(&self.exclude),
        }
    }
}

/// Which root-relative file paths a scan takes, by the `[scan]` globs alone (the walk
/// also leaves out hidden names and what ignore files name).
pub struct PathFilter {
    include: globset::GlobSet,
    exclude: globset::GlobSet,
}

impl PathFilter {
    /// Whether the globs take the file at `rel`.
    pub fn takes(&self, rel: &str) -> bool {
        self.include.is_match(rel) && !self.exclude.is_match(rel)
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
    /// Root-relative globs → what the files they match are: a work item type (`Task`),
    /// or `adr` or `doc`; the longest matching glob wins, and a work item's own `type`
    /// field wins over it (Backlog.md: `"tasks/**" = "Task"`).
    #[serde(skip_serializing_if = "PathKinds::is_empty")]
    pub paths: PathKinds,
    /// The edge an ADR's status line makes of its "Amended by", "Amends" and
    /// "Supplemented by" links (`relates` by default).
    #[serde(skip_serializing_if = "is_relates")]
    pub amends: EdgeType,
}

fn is_relates(t: &EdgeType) -> bool {
    *t == EdgeType::Relates
}

/// `[kinds] paths`: globs with what their files are, matched by the longest glob.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PathKinds {
    rules: BTreeMap<String, String>,
    #[serde(skip)]
    compiled: std::sync::OnceLock<Vec<(globset::GlobMatcher, String)>>,
}

impl PartialEq for PathKinds {
    fn eq(&self, other: &Self) -> bool {
        self.rules == other.rules
    }
}

impl PathKinds {
    /// Rules from `(glob, kind or type)` pairs.
    pub fn new(rules: impl IntoIterator<Item = (String, String)>) -> PathKinds {
        PathKinds {
            rules: rules.into_iter().collect(),
            compiled: std::sync::OnceLock::new(),
        }
    }

    /// No rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The rules, by glob.
    pub fn rules(&self) -> &BTreeMap<String, String> {
        &self.rules
    }

    /// What the file at root-relative `rel` is, by the longest glob matching it.
    pub fn lookup(&self, rel: &str) -> Option<PathKind<'_>> {
        if self.rules.is_empty() {
            return None;
        }
        let compiled = self.compiled.get_or_init(|| {
            let mut v: Vec<(globset::GlobMatcher, String)> = self
                .rules
                .iter()
                .filter_map(|(g, k)| {
                    let glob = globset::GlobBuilder::new(g).literal_separator(true).build().ok()?;
                    Some((glob.compile_matcher(), k.clone()))
                })
                .collect();
            // Longest glob first: the most specific rule wins.
            v.sort_by_key(|(g, _)| std::cmp::Reverse(g.glob().glob().len()));
            v
        });
        compiled
            .iter()
            .find(|(g, _)| g.is_match(rel))
            .map(|(_, k)| match k.to_ascii_lowercase().as_str() {
                "adr" => PathKind::Adr,
                "doc" => PathKind::Doc,
                _ => PathKind::Item(k.as_str()),
            })
    }
}

/// What a `[kinds] paths` rule says a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKind<'a> {
    /// A work item of this type.
    Item(&'a str),
    /// A decision record.
    Adr,
    /// Any other document.
    Doc,
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
            paths: PathKinds::default(),
            amends: EdgeType::Relates,
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
    /// key of `mdgraph.toml`: `Config::load` finds it (see `repo_prefix`). It changes
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

/// Validate the index-shaping tables into [`Settings`] (tokenizer, `[check]` and the
/// repository prefix are set by the caller); an error names the key.
pub(super) fn validate(
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
    for (glob, what) in kinds.paths.rules() {
        globset::Glob::new(glob).map_err(|e| format!("kinds.paths: bad glob `{glob}`: {e}"))?;
        if what.trim().is_empty() {
            return Err(format!(
                "kinds.paths.\"{glob}\": empty; use a work item type, `adr` or `doc`"
            ));
        }
    }
    if matches!(kinds.amends, EdgeType::SectionOf | EdgeType::Mentions) {
        return Err(format!(
            "kinds.amends: `{}` is not a relation between documents",
            kinds.amends.as_str()
        ));
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

#[cfg(test)]
mod tests {
    use super::*;

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

    fn with_edges(pairs: &[(&str, &str)]) -> Result<Settings, String> {
        let edges = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        validate(
            ScanSettings::default(),
            IdSettings::default(),
            FieldSettings::default(),
            KindSettings::default(),
            edges,
        )
    }

    #[test]
    fn body_edge_types_and_bad_keys_are_refused() {
        let err = with_edges(&[("see", "links_to")]).unwrap_err();
        assert!(err.contains("made from the body"), "{err}");
        let err = with_edges(&[("links..x", "parent")]).unwrap_err();
        assert!(err.contains("bad key `links..x`"), "{err}");
    }

    #[test]
    fn scan_globs_and_id_keys_are_checked() {
        let scan = ScanSettings {
            exclude: vec!["a[".into()],
            ..ScanSettings::default()
        };
        let err = validate(
            scan,
            IdSettings::default(),
            FieldSettings::default(),
            KindSettings::default(),
            BTreeMap::new(),
        )
        .unwrap_err();
        assert!(err.contains("scan: bad glob `a[`"), "{err}");
        let ids = IdSettings {
            keys: vec![],
            ..IdSettings::default()
        };
        let err = validate(
            ScanSettings::default(),
            ids,
            FieldSettings::default(),
            KindSettings::default(),
            BTreeMap::new(),
        )
        .unwrap_err();
        assert!(err.contains("ids.keys"), "{err}");
    }

    #[test]
    fn digest_follows_the_settings_and_an_empty_check_is_left_out() {
        let base = Settings::default();
        let json = serde_json::to_string(&base).unwrap();
        assert!(!json.contains("\"check\"") && !json.contains("repo_prefix"), "{json}");
        let mut other = base.clone();
        other.scan.max_file_size += 1;
        assert_ne!(base.digest(), other.digest());
        let mut checked = base.clone();
        checked.check.ignore.push("drafts/**".into());
        assert_ne!(base.digest(), checked.digest());
        assert_eq!(base.digest(), Settings::default().digest());
    }
}
