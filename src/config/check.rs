//! `[check]`: which diagnostics the index records and at which severity, validated from
//! the table as written (a bad code or glob names its line).

use crate::model::diag::{Code, Diagnostic, Severity};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The default name of the baseline file, beside `mdgraph.toml`.
pub const BASELINE_FILE: &str = "mdgraph-baseline.json";

/// The `[check]` table as written; values keep their position so an error can name the
/// line.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CheckFile {
    /// Diagnostic code → `error`, `warning` or `off`.
    #[serde(default)]
    severity: BTreeMap<String, toml::Spanned<String>>,
    /// Globs of root-relative paths whose diagnostics are dropped.
    #[serde(default)]
    ignore: Vec<toml::Spanned<String>>,
    /// The baseline file, relative to the config file's folder.
    pub(super) baseline: Option<PathBuf>,
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
/// the index settings (`Settings`), so changing it makes the index stale.
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

/// Validate `[check]`; an error is the 1-based line (0 when unknown) and a message naming
/// the key.
pub(super) fn validate_check(raw: &CheckFile, text: &str) -> Result<CheckSettings, (u32, String)> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The `[check]` table of `text` (a whole config file), parsed as the loader does.
    fn table(text: &str) -> CheckFile {
        #[derive(Deserialize)]
        struct File {
            check: CheckFile,
        }
        toml::from_str::<File>(text).unwrap().check
    }

    #[test]
    fn severities_and_globs_are_read() {
        let text =
            "[check]\nignore = [\"drafts/**\"]\n[check.severity]\nbroken-link = \"off\"\nunknown-state = \"error\"\n";
        let s = validate_check(&table(text), text).unwrap();
        assert_eq!(s.ignore, ["drafts/**"]);
        assert_eq!(s.severity[&Code::BrokenLink], Level::Off);
        assert_eq!(s.severity[&Code::UnknownState], Level::Error);
        assert_eq!(s.severity.len(), 2);
        assert!(!s.is_empty());
    }

    #[test]
    fn a_bad_code_severity_or_glob_names_its_line() {
        let text = "[check.severity]\nbroken-link = \"off\"\nno-such-code = \"off\"\n";
        let (line, msg) = validate_check(&table(text), text).unwrap_err();
        assert_eq!(line, 3);
        assert!(msg.contains("no-such-code") && msg.contains("broken-link"), "{msg}");

        let text = "[check.severity]\n\nbroken-link = \"fatal\"\n";
        let (line, msg) = validate_check(&table(text), text).unwrap_err();
        assert_eq!(line, 3);
        assert!(msg.contains("`fatal` is not a severity"), "{msg}");

        let text = "[check]\nignore = [\n  \"ok/**\",\n  \"bad[\",\n]\n";
        let (line, msg) = validate_check(&table(text), text).unwrap_err();
        assert_eq!(line, 4);
        assert!(msg.starts_with("check.ignore: bad glob `bad[`"), "{msg}");
    }

    #[test]
    fn stale_index_cannot_be_turned_down() {
        let text = "[check.severity]\nstale-index = \"warning\"\n";
        let (line, msg) = validate_check(&table(text), text).unwrap_err();
        assert_eq!(line, 2);
        assert!(msg.contains("always fails"), "{msg}");
    }

    #[test]
    fn apply_drops_ignored_and_off_and_sets_severity_idempotently() {
        let d = |path: &str, code| Diagnostic::new(path, 1, Severity::Warning, code, "m");
        let s = CheckSettings {
            severity: [(Code::BrokenLink, Level::Off), (Code::UnknownState, Level::Error)].into(),
            ignore: vec!["drafts/**".into()],
        };
        let mut diags = vec![
            d("drafts/a.md", Code::UnknownType),
            d("items/a.md", Code::BrokenLink),
            d("items/a.md", Code::UnknownState),
            d("items/b.md", Code::UnknownType),
        ];
        s.apply(&mut diags);
        let got: Vec<(&str, Code, Severity)> = diags.iter().map(|d| (d.path.as_str(), d.code, d.severity)).collect();
        let want = [
            ("items/a.md", Code::UnknownState, Severity::Error),
            ("items/b.md", Code::UnknownType, Severity::Warning),
        ];
        assert_eq!(got, want);
        let once = diags.clone();
        s.apply(&mut diags);
        assert_eq!(diags, once);
    }
}
