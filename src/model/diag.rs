//! Diagnostics: what mdgraph found wrong with its input, with file, line and a stable code.
//!
//! A bad file never aborts a run: every stage records diagnostics and goes on. They are
//! written to `diagnostics.jsonl`, printed compiler-style (`path:line:col: error[code]: …`)
//! and decide the exit code of `mdgraph check`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How serious a diagnostic is. `error` fails `mdgraph check`; `warning` fails it only
/// under `--strict`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something the graph cannot represent correctly (dangling parent, duplicate id, …).
    Error,
    /// Something suspicious that does not break the graph.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// Stable diagnostic codes. The string form (kebab-case) is part of the JSON contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Code {
    // --- scan stage: decided while walking and reading, recomputed on every run ---
    /// A file larger than `scan.max_file_size`.
    FileTooLarge,
    /// A file whose bytes are not UTF-8.
    NotUtf8,
    /// A symlink whose target lies outside the root.
    SymlinkOutsideRoot,
    /// The walker could not read a directory entry.
    WalkError,
    /// A file could not be read.
    ReadError,
    // --- parse stage: a property of one file's bytes, cached with the file ---
    /// Frontmatter that is not valid YAML.
    InvalidYaml,
    /// Frontmatter that is valid YAML but not a mapping (a list or a scalar).
    FrontmatterNotMapping,
    /// A `---` frontmatter block that is never closed.
    UnclosedFrontmatter,
    /// A frontmatter reference value of an unusable type (a mapping, a float, …).
    BadReference,
    /// A link that leads outside the repository (outside the root when the root is the
    /// repository) from the file and from the repository root.
    /// Listed here for its place in the code order, but found at resolve time (where a
    /// link leads is decided with the other files).
    LinkOutsideRoot,
    /// The frontmatter id disagrees with the id in the filename.
    IdMismatch,
    /// A work item or ADR without an id; one was derived from the filename.
    MissingId,
    /// A work item `type` that is not one of the configured types.
    UnknownType,
    /// A `state`/`status` that is not one of the configured states.
    UnknownState,
    // --- resolve stage: depends on the whole set of files ---
    /// Two or more files share one id (declared, or a decision record's number taken
    /// from its file name).
    DuplicateId,
    /// A frontmatter reference to an id that no file has.
    DanglingReference,
    /// A body link (wikilink or Markdown link) to a file or id that does not exist.
    BrokenLink,
    /// A reference that matches several files; resolved to the first by path.
    AmbiguousReference,
    /// A cycle of `parent` edges.
    ParentCycle,
    // --- check stage ---
    /// The index does not match the sources (or is missing or damaged).
    StaleIndex,
    // --- backlog hygiene: judged by `check` on the whole graph, with `[states]` ---
    /// An item in the done group with children that are not finished.
    DoneWithOpenChildren,
    /// A record whose state is Superseded that names no successor.
    SupersededWithoutSuccessor,
    /// An unfinished item waiting on one whose state says it will never be done.
    DependsOnDropped,
}

impl Code {
    /// Every code, in declaration order.
    pub const ALL: [Code; 23] = [
        Code::FileTooLarge,
        Code::NotUtf8,
        Code::SymlinkOutsideRoot,
        Code::WalkError,
        Code::ReadError,
        Code::InvalidYaml,
        Code::FrontmatterNotMapping,
        Code::UnclosedFrontmatter,
        Code::BadReference,
        Code::LinkOutsideRoot,
        Code::IdMismatch,
        Code::MissingId,
        Code::UnknownType,
        Code::UnknownState,
        Code::DuplicateId,
        Code::DanglingReference,
        Code::BrokenLink,
        Code::AmbiguousReference,
        Code::ParentCycle,
        Code::StaleIndex,
        Code::DoneWithOpenChildren,
        Code::SupersededWithoutSuccessor,
        Code::DependsOnDropped,
    ];

    /// The code named `name` (kebab-case, as [`Code::as_str`] writes it).
    pub fn parse(name: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The kebab-case name used in text output and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::FileTooLarge => "file-too-large",
            Code::NotUtf8 => "not-utf8",
            Code::SymlinkOutsideRoot => "symlink-outside-root",
            Code::WalkError => "walk-error",
            Code::ReadError => "read-error",
            Code::InvalidYaml => "invalid-yaml",
            Code::FrontmatterNotMapping => "frontmatter-not-mapping",
            Code::UnclosedFrontmatter => "unclosed-frontmatter",
            Code::BadReference => "bad-reference",
            Code::LinkOutsideRoot => "link-outside-root",
            Code::DuplicateId => "duplicate-id",
            Code::DanglingReference => "dangling-reference",
            Code::BrokenLink => "broken-link",
            Code::AmbiguousReference => "ambiguous-reference",
            Code::ParentCycle => "parent-cycle",
            Code::IdMismatch => "id-mismatch",
            Code::MissingId => "missing-id",
            Code::UnknownType => "unknown-type",
            Code::UnknownState => "unknown-state",
            Code::StaleIndex => "stale-index",
            Code::DoneWithOpenChildren => "done-with-open-children",
            Code::SupersededWithoutSuccessor => "superseded-without-successor",
            Code::DependsOnDropped => "depends-on-dropped",
        }
    }

    /// True for diagnostics that depend only on one file's bytes (and the config), so
    /// they can be kept for unchanged files on an incremental run.
    pub fn is_parse_stage(self) -> bool {
        matches!(
            self,
            Code::InvalidYaml
                | Code::FrontmatterNotMapping
                | Code::UnclosedFrontmatter
                | Code::BadReference
                | Code::IdMismatch
                | Code::MissingId
                | Code::UnknownType
                | Code::UnknownState
        )
    }
}

/// One finding, anchored to a root-relative path and a 1-based line and column
/// (0 when the finding concerns the whole file).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Diagnostic {
    /// Root-relative path with `/` separators.
    pub path: String,
    /// 1-based line, 0 for the whole file.
    pub line: u32,
    /// 1-based column, 0 when unknown.
    pub col: u32,
    /// `error` or `warning`.
    pub severity: Severity,
    /// Stable code.
    pub code: Code,
    /// Human explanation.
    pub message: String,
    /// What the finding is about, when it names something: the reference or link target
    /// that does not resolve, the duplicated or mismatched id, the unknown type or state,
    /// the cycle. Together with `path` and `code` it keys a diagnostic in a baseline, so
    /// the key survives line moves and rewordings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
}

impl Diagnostic {
    /// A new diagnostic.
    pub fn new(path: impl Into<String>, line: u32, severity: Severity, code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            path: path.into(),
            line,
            col: 0,
            severity,
            code,
            message: message.into(),
            subject: None,
        }
    }

    /// Same diagnostic about `subject` (see [`Diagnostic::subject`]).
    pub fn about(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// Same diagnostic with a column.
    pub fn at_col(mut self, col: u32) -> Self {
        self.col = col;
        self
    }
}

impl Diagnostic {
    /// `path:line:col`; line and column are 1 when unknown so editors and CI annotators
    /// can still jump to the file.
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.path, self.line.max(1), self.col.max(1))
    }

    /// `severity[code]`.
    pub fn label(&self) -> String {
        format!("{}[{}]", self.severity, self.code.as_str())
    }
}

impl fmt::Display for Diagnostic {
    /// `path:line:col: severity[code]: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.location(), self.label(), self.message)
    }
}

/// Counts of errors and warnings in a list of diagnostics.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Number of errors.
    pub errors: usize,
    /// Number of warnings.
    pub warnings: usize,
}

impl Counts {
    /// Count the diagnostics by severity.
    pub fn of(diags: &[Diagnostic]) -> Counts {
        let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
        Counts {
            errors,
            warnings: diags.len() - errors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_parses_back_from_its_name() {
        for c in Code::ALL {
            assert_eq!(Code::parse(c.as_str()), Some(c));
            // The serde name is the same string.
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{}\"", c.as_str()));
        }
        assert_eq!(Code::parse("no-such-code"), None);
    }
}
