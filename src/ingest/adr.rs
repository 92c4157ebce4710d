//! What makes a numbered file a decision record and not boilerplate: templates and a
//! log's index page are no records, and two records numbered alike by their file names
//! (adr-tools, MADR and log4brains write no ids) are reported.

use crate::model::diag::{Code, Diagnostic, Severity};
use crate::text::path::file_stem;

/// Words a template's or index page's name may carry beside `template` or `index`.
const GENERIC: [&str; 17] = [
    "adr",
    "adrs",
    "decision",
    "decisions",
    "record",
    "records",
    "architecture",
    "architectural",
    "madr",
    "nygard",
    "empty",
    "blank",
    "short",
    "long",
    "bare",
    "minimal",
    "default",
];

/// Whether a file named `stem` is a template (`template`, `0000-template`,
/// `adr-template`, `ADR000-template`, `000-ADR-template`) or a log's numbered index page
/// (`000-index`, `0000-readme`): boilerplate, not a record. Its placeholder links are
/// not references.
pub fn is_boilerplate(stem: &str) -> bool {
    let lower = stem.to_lowercase();
    let words: Vec<&str> = lower
        .split(['-', '_', ' ', '.'])
        .filter(|w| !w.is_empty())
        .filter(|w| !w.bytes().all(|b| b.is_ascii_digit()))
        .filter(|w| !(w.starts_with("adr") && w[3..].bytes().all(|b| b.is_ascii_digit())))
        .filter(|w| !GENERIC.contains(w))
        .collect();
    let numbered = adr_file_number(stem).is_some();
    match words.as_slice() {
        ["template"] => true,
        ["index" | "readme"] => numbered,
        _ => false,
    }
}

/// Whether a file's number is a date (`20200924`: log4brains names records by day, and
/// two of one day are two records): its id is then the whole name, its slug.
pub fn is_date_number(n: &str) -> bool {
    let num = |r: std::ops::Range<usize>| n.get(r).and_then(|p| p.parse::<u32>().ok()).unwrap_or(0);
    n.len() == 8 && (1970..=2100).contains(&num(0..4)) && (1..=12).contains(&num(4..6)) && (1..=31).contains(&num(6..8))
}

/// Warnings for documents that share a raw id taken from a numbered file name
/// (`0011-a.md` and `0011-b.md` are both `ADR-0011`): each such document, given as
/// (path, raw id, node id, id derived from the name), when another document of the
/// group holds the same id. Documents that declare the id are reported by the duplicate
/// id rule; READMEs, other names without a number and log4brains' dated names step aside
/// without complaint.
pub fn number_clash(group: &[(&str, &str, &str, bool)]) -> Vec<Diagnostic> {
    // A date (log4brains) is no sequence number: the same slug in two folders is fine.
    let numbered =
        |path: &str, derived: bool| derived && adr_file_number(file_stem(path)).is_some_and(|n| !is_date_number(n));
    let counted = group.iter().filter(|(p, _, _, d)| numbered(p, *d) || !d).count();
    if counted < 2 {
        return Vec::new();
    }
    group
        .iter()
        .filter(|(p, _, _, d)| numbered(p, *d))
        .map(|&(path, raw, node, _)| {
            let others: Vec<&str> = group.iter().map(|g| g.0).filter(|p| *p != path).collect();
            Diagnostic::new(
                path,
                1,
                Severity::Warning,
                Code::DuplicateId,
                format!(
                    "decision record number `{raw}` (from the file name) is also taken by {}; this file is node `{node}`: renumber one",
                    others.join(", ")
                ),
            )
            .about(raw)
        })
        .collect()
}

/// The number of a decision record's file name: `0005-use-postgres` → `0005`,
/// `ADR023-title` → `023`, `adr-0005_x` → `0005`, `decision-3 - Title` → `3`.
pub fn adr_file_number(stem: &str) -> Option<&str> {
    let lower = stem.to_ascii_lowercase();
    let skip = ["adr", "decision"]
        .iter()
        .find(|p| lower.starts_with(*p))
        .map_or(0, |p| p.len());
    let rest = stem[skip..].trim_start_matches(['-', '_', ' ']);
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let after = rest[digits..].chars().next();
    (digits > 0 && after.is_none_or(|c| matches!(c, '-' | '_' | ' ' | '.'))).then(|| &rest[..digits])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_and_index_pages() {
        for stem in [
            "template",
            "0000-template",
            "adr-template",
            "ADR000-template",
            "000-ADR-template",
            "adr_template",
            "000-index",
            "0000-README",
        ] {
            assert!(is_boilerplate(stem), "{stem}");
        }
        for stem in [
            "QRY-TSK-0013_build-report-template-with-photo-grid",
            "tasks-template",
            "0001-use-templates",
            "index",
            "README",
            "0001-record-architecture-decisions",
        ] {
            assert!(!is_boilerplate(stem), "{stem}");
        }
    }

    #[test]
    fn dates_are_no_sequence_numbers() {
        assert!(is_date_number("20200925"));
        assert!(!is_date_number("0001"));
        assert!(!is_date_number("12345678"));
    }

    #[test]
    fn numbers_taken_twice() {
        let d = number_clash(&[
            ("adrs/0011-a.md", "ADR-0011", "ADR-0011@adrs/0011-a.md", true),
            ("adrs/0011-b.md", "ADR-0011", "ADR-0011@adrs/0011-b.md", true),
        ]);
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].path.as_str(), d[0].code), ("adrs/0011-a.md", Code::DuplicateId));
        assert!(d[0].message.contains("adrs/0011-b.md"), "{}", d[0].message);
        // READMEs share their name-derived id without a number: nothing to report.
        assert!(
            number_clash(&[
                ("a/README.md", "README", "x", true),
                ("b/README.md", "README", "y", true)
            ])
            .is_empty()
        );
    }
}
