//! The baseline: the diagnostics a backlog already had when it adopted `mdgraph check`,
//! recorded in a committed file (`mdgraph-baseline.json` beside `mdgraph.toml`) so that
//! the check fails only on new ones, as phpstan's and detekt's baselines and eslint's
//! bulk suppressions do.
//!
//! An entry is keyed by file, code and subject (the offending reference, link target or
//! id; see [`Diagnostic::subject`]), never by line, and counts how many diagnostics have
//! that key: inserting lines above an error, or editing elsewhere in the file, leaves it
//! known. The file is JSON with one entry per line, sorted, so that it diffs and merges
//! line by line:
//!
//! ```text
//! {
//!   "version": 1,
//!   "entries": [
//!     {"path":"items/feature/0000/BRK-FTR-0001_export.md","code":"dangling-reference","subject":"BRK-EPIC-0099","count":1},
//!     {"path":"items/task/0000/BRK-TSK-0001_bad-yaml.md","code":"invalid-yaml","count":1}
//!   ]
//! }
//! ```
//!
//! The check never writes it: only `mdgraph baseline` does, so a baseline that grows is
//! always an explicit, reviewable change.

use crate::error::Error;
use crate::model::diag::{Code, Diagnostic, Severity};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Version of the baseline file format.
pub const VERSION: u32 = 1;

/// One key of the baseline with the number of diagnostics it covers.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Root-relative path of the file.
    pub path: String,
    /// The diagnostic code.
    pub code: Code,
    /// The diagnostic's subject, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// How many diagnostics with this key are known.
    pub count: usize,
}

/// The file as written.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    entries: Vec<Entry>,
}

type Key = (String, Code, Option<String>);

fn key(d: &Diagnostic) -> Key {
    (d.path.clone(), d.code, d.subject.clone())
}

/// A set of known diagnostics, counted by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    counts: BTreeMap<Key, usize>,
}

/// Current diagnostics split against a baseline.
#[derive(Debug, Clone, Default)]
pub struct Split {
    /// Diagnostics the baseline does not cover (staleness findings always among them).
    pub new: Vec<Diagnostic>,
    /// Diagnostics the baseline covers.
    pub known: Vec<Diagnostic>,
    /// Baseline entries (with the number of diagnostics) no longer found.
    pub fixed: Vec<Entry>,
}

impl Baseline {
    /// The baseline of these diagnostics (a stale index is never recorded).
    pub fn of(diags: &[Diagnostic]) -> Baseline {
        let mut counts = BTreeMap::new();
        for d in diags.iter().filter(|d| d.code != Code::StaleIndex) {
            *counts.entry(key(d)).or_insert(0) += 1;
        }
        Baseline { counts }
    }

    /// Read the baseline file; `None` when there is none. A file that is not a baseline
    /// is an error naming it and the line.
    pub fn load(path: &Path, shown: &str) -> Result<Option<Baseline>, Error> {
        let text = match crate::text::path::read_regular(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(path, e)),
        };
        Baseline::parse(&text, shown).map(Some)
    }

    /// A baseline from the text of its file (`shown` names the file in errors).
    pub fn parse(text: &str, shown: &str) -> Result<Baseline, Error> {
        let bad = |line: usize, message: String| Error::Other(format!("{shown}:{line}: bad baseline: {message}"));
        let file: File = serde_json::from_str(text).map_err(|e| bad(e.line(), e.to_string()))?;
        if file.version != VERSION {
            return Err(bad(
                0,
                format!(
                    "version {} is not {VERSION}; rewrite it with `mdgraph baseline`",
                    file.version
                ),
            ));
        }
        let mut counts = BTreeMap::new();
        // Entries are summed: a hand-merged file may list a key twice.
        for e in file.entries.into_iter().filter(|e| e.count > 0) {
            *counts.entry((e.path, e.code, e.subject)).or_insert(0) += e.count;
        }
        Ok(Baseline { counts })
    }

    /// The entries, sorted by path, code name and subject.
    pub fn entries(&self) -> Vec<Entry> {
        let mut entries: Vec<Entry> = self
            .counts
            .iter()
            .map(|((path, code, subject), &count)| Entry {
                path: path.clone(),
                code: *code,
                subject: subject.clone(),
                count,
            })
            .collect();
        entries.sort_by(|a, b| (&a.path, a.code.as_str(), &a.subject).cmp(&(&b.path, b.code.as_str(), &b.subject)));
        entries
    }

    /// How many diagnostics it covers.
    pub fn len(&self) -> usize {
        self.counts.values().sum()
    }

    /// True when it covers nothing.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// How many files it names.
    pub fn files(&self) -> usize {
        let mut paths: Vec<&str> = self.counts.keys().map(|k| k.0.as_str()).collect();
        paths.dedup();
        paths.len()
    }

    /// The file's bytes: one entry per line, sorted (same baseline, same bytes).
    pub fn to_text(&self) -> String {
        let lines: Vec<String> = self
            .entries()
            .iter()
            .map(|e| format!("    {}", serde_json::to_string(e).unwrap_or_default()))
            .collect();
        if lines.is_empty() {
            return format!("{{\n  \"version\": {VERSION},\n  \"entries\": []\n}}\n");
        }
        format!(
            "{{\n  \"version\": {VERSION},\n  \"entries\": [\n{}\n  ]\n}}\n",
            lines.join(",\n")
        )
    }

    /// Write the file (through a temporary file and a rename) unless it already holds
    /// these bytes; true when written.
    pub fn save(&self, path: &Path) -> Result<bool, Error> {
        let text = self.to_text();
        if std::fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
            return Ok(false);
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("baseline");
        let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
        std::fs::write(&tmp, text.as_bytes()).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Error::io(path, e)
        })?;
        Ok(true)
    }

    /// Only what both baselines cover, key by key (the smaller count): the baseline
    /// shrunk by what was fixed, with nothing new added.
    pub fn intersect(&self, other: &Baseline) -> Baseline {
        let counts = self
            .counts
            .iter()
            .filter_map(|(k, &n)| other.counts.get(k).map(|&m| (k.clone(), n.min(m))))
            .filter(|(_, n)| *n > 0)
            .collect();
        Baseline { counts }
    }

    /// How many diagnostics `self` has beyond `other`, key by key.
    pub fn beyond(&self, other: &Baseline) -> usize {
        self.counts
            .iter()
            .map(|(k, &n)| n.saturating_sub(other.counts.get(k).copied().unwrap_or(0)))
            .sum()
    }

    /// Split the current diagnostics (sorted) into new and known; of several diagnostics
    /// with one key, the first in order are known, as many as the baseline counts.
    pub fn split(&self, diags: Vec<Diagnostic>) -> Split {
        let mut left = self.counts.clone();
        let mut out = Split::default();
        for d in diags {
            let slot = (d.code != Code::StaleIndex)
                .then(|| left.get_mut(&key(&d)))
                .flatten()
                .filter(|n| **n > 0);
            match slot {
                Some(n) => {
                    *n -= 1;
                    out.known.push(d);
                }
                None => out.new.push(d),
            }
        }
        out.fixed = left
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .map(|((path, code, subject), count)| Entry {
                path,
                code,
                subject,
                count,
            })
            .collect();
        out
    }
}

/// Errors and warnings among `diags`.
pub fn severities(diags: &[Diagnostic]) -> (usize, usize) {
    let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    (errors, diags.len() - errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(path: &str, line: u32, code: Code, subject: Option<&str>) -> Diagnostic {
        let mut d = Diagnostic::new(path, line, Severity::Error, code, "m");
        d.subject = subject.map(str::to_string);
        d
    }

    #[test]
    fn keys_ignore_lines_and_count_repeats() {
        let before = vec![
            d("a.md", 3, Code::DanglingReference, Some("X-1")),
            d("a.md", 9, Code::DanglingReference, Some("X-1")),
            d("b.md", 1, Code::InvalidYaml, None),
        ];
        let base = Baseline::of(&before);
        assert_eq!(base.len(), 3);
        assert_eq!(base.files(), 2);
        // Lines moved, one repeat fixed, one new subject.
        let now = vec![
            d("a.md", 30, Code::DanglingReference, Some("X-1")),
            d("a.md", 31, Code::DanglingReference, Some("X-2")),
            d("b.md", 4, Code::InvalidYaml, None),
            d("c.md", 0, Code::StaleIndex, None),
        ];
        let split = base.split(now);
        assert_eq!(split.known.len(), 2);
        let new: Vec<_> = split.new.iter().map(|d| (d.path.as_str(), d.line)).collect();
        assert_eq!(new, [("a.md", 31), ("c.md", 0)]);
        assert_eq!(split.fixed.len(), 1);
        assert_eq!(split.fixed[0].count, 1);
    }

    #[test]
    fn text_round_trips_sorted_one_entry_per_line() {
        let base = Baseline::of(&[
            d("b.md", 1, Code::InvalidYaml, None),
            d("a.md", 3, Code::BrokenLink, Some("x \"quoted\"")),
        ]);
        let text = base.to_text();
        assert_eq!(text.lines().count(), 7, "{text}");
        assert!(text.find("a.md").unwrap() < text.find("b.md").unwrap(), "{text}");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("mdgraph-baseline.json");
        assert!(base.save(&p).unwrap());
        assert!(!base.save(&p).unwrap(), "same bytes are not rewritten");
        assert_eq!(Baseline::load(&p, "b").unwrap(), Some(base));
        assert_eq!(Baseline::of(&[]).to_text().lines().count(), 4);
        assert_eq!(Baseline::load(&dir.path().join("none.json"), "n").unwrap(), None);
        std::fs::write(
            &p,
            "{\"version\": 1, \"entries\": [{\"path\": \"a\", \"code\": \"nope\", \"count\": 1}]}",
        )
        .unwrap();
        let err = Baseline::load(&p, "mdgraph-baseline.json").unwrap_err().to_string();
        assert!(err.starts_with("mdgraph-baseline.json:1: bad baseline"), "{err}");
    }

    #[test]
    fn intersect_only_shrinks() {
        let old = Baseline::of(&[
            d("a.md", 1, Code::BrokenLink, Some("x")),
            d("a.md", 2, Code::BrokenLink, Some("x")),
            d("b.md", 1, Code::BrokenLink, Some("y")),
        ]);
        let now = Baseline::of(&[
            d("a.md", 1, Code::BrokenLink, Some("x")),
            d("c.md", 1, Code::BrokenLink, Some("z")),
        ]);
        let pruned = old.intersect(&now);
        assert_eq!(pruned.len(), 1);
        assert_eq!(now.beyond(&old), 1);
        assert_eq!(old.beyond(&now), 2);
    }
}
