//! Parse: one source file → a document node (id as written, kind, title, state, fields,
//! raw references) plus its sections and the diagnostics that depend only on that file.
//!
//! Everything here is a function of the file's bytes and the settings, which is what lets
//! an incremental run reuse the result for unchanged files.

use crate::config::Settings;
use crate::ingest::frontmatter::{self, KeyLines, Parsed};
use crate::ingest::markdown::{self, Section};
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::model::{EdgeType, Kind, Node, RawRef, RefForm};
pub use crate::text::path::file_stem;
use serde_json::{Map, Value};
use yaml_rust2::Yaml;

/// The parse of one file.
#[derive(Debug, Clone)]
pub struct ParsedFile {
    /// The document node; `id` is still the id as written (resolve disambiguates it).
    pub doc: Node,
    /// Its sections, in order.
    pub sections: Vec<Section>,
    /// Diagnostics that depend only on this file (see [`Code::is_parse_stage`]).
    pub diagnostics: Vec<Diagnostic>,
}

/// Parse a file's text. `rel` is the root-relative path, `hash` its content hash.
pub fn parse_file(rel: &str, hash: &str, text: &str, s: &Settings) -> ParsedFile {
    let mut diags = Vec::new();
    let split = frontmatter::split(text);
    if split.unclosed {
        diags.push(Diagnostic::new(
            rel,
            1,
            Severity::Warning,
            Code::UnclosedFrontmatter,
            "frontmatter opened with `---` is never closed; read as body",
        ));
    }
    let mut yaml_doc: Option<Yaml> = None;
    if let Some(y) = split.yaml {
        match frontmatter::parse_yaml(y) {
            Parsed::Mapping(m) => yaml_doc = Some(m),
            Parsed::NotMapping(what) => diags.push(Diagnostic::new(
                rel,
                2,
                Severity::Error,
                Code::FrontmatterNotMapping,
                format!("frontmatter is {what}, not a mapping of fields; ignored"),
            )),
            Parsed::Invalid { error, recovered } => {
                let how = if recovered.is_some() {
                    "fields read leniently by quoting the value; quote it in the file"
                } else {
                    "frontmatter ignored; the file is indexed from its body and filename"
                };
                diags.push(
                    Diagnostic::new(
                        rel,
                        error.line + 1,
                        Severity::Error,
                        Code::InvalidYaml,
                        format!("invalid YAML: {} ({how})", error.message),
                    )
                    .at_col(error.col),
                );
                yaml_doc = recovered;
            }
        }
    }
    let body = markdown::parse_body(split.body, split.body_line);
    let key_lines = KeyLines::new(split.yaml.unwrap_or(""));
    // Lines inside the YAML block are offset by the opening `---`.
    let fm_line = |key: &str, value: &str| key_lines.value_line(key, value) + 1;

    let stem = file_stem(rel);
    let empty = Yaml::Hash(Default::default());
    let y = yaml_doc.as_ref().unwrap_or(&empty);
    // Integers keep their written form (`id: 0042` is `0042`, not `42`).
    let first_scalar = |keys: &[String]| {
        keys.iter().find_map(|k| {
            let v = frontmatter::get_path(y, k)?;
            let text = match v {
                Yaml::Integer(_) => key_lines
                    .raw_scalar(k)
                    .map(str::to_string)
                    .or_else(|| frontmatter::scalar_text(v)),
                _ => frontmatter::scalar_text(v),
            }?;
            Some((k.clone(), text.trim().to_string())).filter(|(_, v)| !v.is_empty())
        })
    };
    let fm_id = first_scalar(&s.ids.keys);
    let from_filename = filename_id(stem);
    let raw_id = fm_id
        .as_ref()
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| from_filename.clone());
    let id_line = fm_id.as_ref().map(|(k, v)| fm_line(k, v)).unwrap_or(1);
    let uid = first_scalar(&s.ids.uid_keys).map(|(_, v)| v);
    let ty = first_scalar(&s.fields.r#type);
    let state = first_scalar(&s.fields.state);
    let title = first_scalar(&s.fields.title)
        .map(|(_, v)| v)
        .or_else(|| {
            body.sections
                .iter()
                .find(|s| s.level > 0 && !s.heading.is_empty())
                .map(|s| s.heading.clone())
        })
        .unwrap_or_else(|| stem.to_string());

    let has_fm = yaml_doc.is_some();
    let ci_in = |list: &[String], v: &str| list.iter().any(|x| x.eq_ignore_ascii_case(v));
    let in_dir = |d: &str| rel.split('/').rev().skip(1).any(|c| c.eq_ignore_ascii_case(d));
    // Byte comparison: `raw_id` may start with multi-byte characters.
    let adr_like = raw_id
        .as_bytes()
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case(b"adr-"))
        && raw_id.as_bytes().get(4).is_some_and(u8::is_ascii_digit);
    let kind =
        if ty.as_ref().is_some_and(|(_, t)| ci_in(&s.kinds.item_types, t)) || (has_fm && in_dir(&s.kinds.items_dir)) {
            Kind::WorkItem
        } else if (has_fm && in_dir(&s.kinds.decisions_dir)) || adr_like {
            Kind::Adr
        } else {
            Kind::Doc
        };

    // File-local consistency checks.
    if matches!(kind, Kind::WorkItem | Kind::Adr) && fm_id.is_none() {
        diags.push(Diagnostic::new(
            rel,
            1,
            Severity::Warning,
            Code::MissingId,
            format!("no `{}` field; using `{raw_id}` from the filename", s.ids.keys[0]),
        ));
    }
    if let Some((_, id)) = &fm_id
        && looks_like_id(&from_filename)
        && !same_id(&from_filename, id)
    {
        diags.push(
            Diagnostic::new(
                rel,
                id_line,
                Severity::Warning,
                Code::IdMismatch,
                format!("id `{id}` disagrees with the filename, which says `{from_filename}`"),
            )
            .about(id),
        );
    }
    if kind == Kind::WorkItem {
        match &ty {
            Some((k, t)) if !ci_in(&s.kinds.item_types, t) => diags.push(
                Diagnostic::new(
                    rel,
                    fm_line(k, t),
                    Severity::Warning,
                    Code::UnknownType,
                    format!(
                        "unknown work item type `{t}` (known: {})",
                        s.kinds.item_types.join(", ")
                    ),
                )
                .about(t),
            ),
            None => diags.push(Diagnostic::new(
                rel,
                1,
                Severity::Warning,
                Code::UnknownType,
                format!(
                    "work item has no `{}` field",
                    s.fields.r#type.first().map(String::as_str).unwrap_or("type")
                ),
            )),
            _ => {}
        }
    }
    if let Some((k, st)) = &state {
        let known = match kind {
            Kind::WorkItem => Some(&s.kinds.item_states),
            Kind::Adr => Some(&s.kinds.adr_states),
            _ => None,
        };
        if let Some(list) = known.filter(|l| !ci_in(l, st)) {
            diags.push(
                Diagnostic::new(
                    rel,
                    fm_line(k, st),
                    Severity::Warning,
                    Code::UnknownState,
                    format!(
                        "unknown {} state `{st}` (known: {})",
                        kind.as_str().replace('_', " "),
                        list.join(", ")
                    ),
                )
                .about(st),
            );
        }
    }

    // References: frontmatter keys in config order, then body links in file order.
    let mut refs = Vec::new();
    for (key, &edge) in &s.edges {
        let Some(v) = frontmatter::get_path(y, key) else {
            continue;
        };
        let raw_int = matches!(v, Yaml::Integer(_))
            .then(|| key_lines.raw_scalar(key))
            .flatten();
        let targets = ref_values(v, &mut |what| {
            diags.push(
                Diagnostic::new(
                    rel,
                    fm_line(key, ""),
                    Severity::Warning,
                    Code::BadReference,
                    format!("`{key}` holds {what}; expected an id, a list of ids or a comma-separated string"),
                )
                .about(key),
            )
        });
        // An integer reference keeps its written form, like an integer id.
        let targets = match raw_int {
            Some(raw) => vec![raw.to_string()],
            None => targets,
        };
        let lines = key_lines.value_lines(key, &targets);
        for (target, line) in targets.into_iter().zip(lines) {
            refs.push(RawRef {
                edge,
                target,
                form: RefForm::Id,
                line: line + 1,
                key: Some(key.clone()),
            });
        }
    }
    for link in &body.links {
        if link.wiki {
            refs.push(RawRef {
                edge: EdgeType::LinksTo,
                target: link.target.trim().to_string(),
                form: RefForm::Wiki,
                line: link.line,
                key: None,
            });
            continue;
        }
        match join_link(rel, &link.target) {
            Some(path) => refs.push(RawRef {
                edge: EdgeType::LinksTo,
                target: path,
                form: RefForm::Path,
                line: link.line,
                key: None,
            }),
            None => diags.push(
                Diagnostic::new(
                    rel,
                    link.line,
                    Severity::Warning,
                    Code::LinkOutsideRoot,
                    format!("link `{}` leads outside the root; ignored", link.target),
                )
                .about(&link.target),
            ),
        }
    }

    let fields = match yaml_doc.as_ref().map(frontmatter::to_json) {
        Some(v @ Value::Object(_)) => serde_json::value::to_raw_value(&v).ok(),
        _ => None,
    }
    .or_else(|| serde_json::value::to_raw_value(&Map::new()).ok());
    let doc = Node {
        id: raw_id.clone(),
        kind,
        path: rel.to_string(),
        raw_id: Some(raw_id),
        r#type: ty.map(|(_, t)| t),
        title: Some(title),
        state: state.map(|(_, v)| v),
        uid,
        hash: Some(hash.to_string()),
        id_derived: fm_id.is_none(),
        fields,
        refs: Some(refs),
        line: Some(id_line),
        ..Node::default()
    };
    ParsedFile {
        doc,
        sections: body.sections,
        diagnostics: diags,
    }
}

/// Reference targets in a frontmatter value: a string (comma-separated allowed), an int, or
/// a list of those. `[[wikilink]]` brackets are removed. Other shapes are reported.
fn ref_values(v: &Yaml, bad: &mut dyn FnMut(&str)) -> Vec<String> {
    let mut out = Vec::new();
    let push_str = |s: &str, out: &mut Vec<String>| {
        for part in s.split(',') {
            let t = part.trim().trim_start_matches("[[").trim_end_matches("]]").trim();
            if !t.is_empty() {
                out.push(t.to_string());
            }
        }
    };
    match v {
        Yaml::Null => {}
        Yaml::String(s) => push_str(s, &mut out),
        Yaml::Integer(_) | Yaml::Real(_) => out.extend(frontmatter::scalar_text(v)),
        Yaml::Array(items) => {
            for item in items {
                match item {
                    Yaml::String(s) => push_str(s, &mut out),
                    Yaml::Integer(_) | Yaml::Real(_) => out.extend(frontmatter::scalar_text(item)),
                    Yaml::Null => {}
                    Yaml::Hash(_) | Yaml::Array(_) => bad("a nested list or mapping"),
                    _ => bad("a boolean"),
                }
            }
        }
        Yaml::Hash(_) => bad("a mapping"),
        Yaml::Boolean(_) => bad("a boolean"),
        Yaml::Alias(_) | Yaml::BadValue => bad("an alias"),
    }
    out
}

/// The id a filename carries: `QRY-TSK-0007_slug` → `QRY-TSK-0007`,
/// `back-12.3 - Title` → `back-12.3`, `back-196-add-nix` → `back-196`, `eip-1559` →
/// `eip-1559`; a name without such a prefix is its own id (`README`).
pub fn filename_id(stem: &str) -> String {
    let head = stem.split(['_', ' ']).next().unwrap_or(stem);
    let groups: Vec<&str> = head.split('-').collect();
    let numeric = |g: &str| {
        !g.is_empty()
            && g.split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    let alpha = |g: &str| g.bytes().any(|b| b.is_ascii_alphabetic());
    if let Some(i) = groups.iter().position(|g| numeric(g))
        && i > 0
        && groups[..i].iter().all(|g| alpha(g))
    {
        return groups[..=i].join("-");
    }
    if head.is_empty() {
        stem.to_string()
    } else {
        head.to_string()
    }
}

/// A filename-derived id that really is an id (letters then a number), not a plain name.
fn looks_like_id(fid: &str) -> bool {
    fid.contains('-')
        && fid
            .rsplit('-')
            .next()
            .is_some_and(|g| g.starts_with(|c: char| c.is_ascii_digit()))
}

/// Whether a filename id and a frontmatter id agree: equal ignoring case, or the filename
/// ends with `-<id>` (`eip-1559` and `1559`).
fn same_id(fid: &str, id: &str) -> bool {
    let (f, i) = (fid.to_ascii_lowercase(), id.to_ascii_lowercase());
    f == i || f.ends_with(&format!("-{i}"))
}

/// Resolve a Markdown link target against the linking file; None when it climbs out of
/// the root. A leading `/` means root-relative.
pub fn join_link(rel: &str, target: &str) -> Option<String> {
    let target = markdown::percent_decode(target.split('?').next().unwrap_or(""));
    let mut parts: Vec<&str> = Vec::new();
    if !target.starts_with('/') {
        parts.extend(rel.split('/'));
        parts.pop();
    }
    for c in target.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filename_ids() {
        assert_eq!(filename_id("QRY-TSK-0007_resumable-upload"), "QRY-TSK-0007");
        assert_eq!(filename_id("ADR-0004_tus"), "ADR-0004");
        assert_eq!(filename_id("back-100.9 - Integrate-TaskDetail"), "back-100.9");
        assert_eq!(filename_id("back-196-add-nixos-packaging-support"), "back-196");
        assert_eq!(filename_id("eip-1559"), "eip-1559");
        assert_eq!(filename_id("README"), "README");
        assert_eq!(filename_id("2026-01-05-notes"), "2026-01-05-notes");
        assert_eq!(filename_id("getting-started"), "getting-started");
    }

    #[test]
    fn id_agreement() {
        assert!(same_id("back-12", "BACK-12"));
        assert!(same_id("eip-1559", "1559"));
        assert!(!same_id("QRY-TSK-0007", "QRY-TSK-0008"));
    }

    #[test]
    fn links_join() {
        assert_eq!(
            join_link("items/task/0000/a.md", "../../../decisions/ADR-1.md").as_deref(),
            Some("decisions/ADR-1.md")
        );
        assert_eq!(join_link("items/a.md", "b.md").as_deref(), Some("items/b.md"));
        assert_eq!(join_link("items/a.md", "/x/y.md").as_deref(), Some("x/y.md"));
        assert_eq!(join_link("a.md", "../../etc/passwd.md"), None);
    }

    #[test]
    fn refs_from_every_shape() {
        let s = Settings::default();
        let text = "---\nid: T-1\nparent: F-1\nrequires: 155, 1559\ndependencies: [task-8, 12]\nlinks:\n  relates:\n    - \"[[R-1]]\"\n    - R-2@0192ab\n---\n# Goal\nSee [[W-1]] and [x](../other/O-1_x.md).\n";
        let p = parse_file("notes/T-1_x.md", "h", text, &s);
        let got: Vec<(String, String, u32)> = p
            .doc
            .refs
            .unwrap()
            .iter()
            .map(|r| (r.edge.to_string(), r.target.clone(), r.line))
            .collect();
        let want = [
            ("depends_on", "task-8", 5),
            ("depends_on", "12", 5),
            ("relates", "R-1", 8),
            ("relates", "R-2@0192ab", 9),
            ("parent", "F-1", 3),
            ("depends_on", "155", 4),
            ("depends_on", "1559", 4),
            ("links_to", "W-1", 12),
            ("links_to", "other/O-1_x.md", 12),
        ];
        let want: Vec<(String, String, u32)> = want
            .iter()
            .map(|(a, b, c)| (a.to_string(), b.to_string(), *c))
            .collect();
        assert_eq!(got, want);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    }

    #[test]
    fn integer_ids_keep_their_written_form() {
        let s = Settings::default();
        let p = parse_file("x.md", "h", "---\nid: 0042  # padded\n---\n", &s);
        assert_eq!(p.doc.id, "0042");
        let p = parse_file("y.md", "h", "---\nid: 7\nparent: 0042\n---\n", &s);
        assert_eq!(p.doc.id, "7");
        assert_eq!(p.doc.refs.unwrap()[0].target, "0042");
    }

    #[test]
    fn non_ascii_ids_do_not_panic() {
        // Regression: the ADR prefix test sliced the id by bytes inside a character.
        let s = Settings::default();
        for (path, text) in [
            ("a.md", "---\nid: aéé\n---\nx\n"),
            ("aéé.md", "x\n"),
            ("日本語-1.md", "---\nid: 日本語-1\n---\n"),
        ] {
            let p = parse_file(path, "h", text, &s);
            assert_eq!(p.doc.kind, Kind::Doc, "{path}");
        }
        assert_eq!(parse_file("ADR-7_x.md", "h", "x\n", &s).doc.kind, Kind::Adr);
    }

    #[test]
    fn invalid_yaml_keeps_body_and_filename_id() {
        let s = Settings::default();
        let text = "---\nid: [unclosed\n---\n# Heading\ntext\n";
        let p = parse_file("notes/N-7_thing.md", "h", text, &s);
        assert_eq!(p.doc.id, "N-7");
        assert_eq!(p.doc.title.as_deref(), Some("Heading"));
        assert_eq!(p.diagnostics.len(), 1);
        assert_eq!(p.diagnostics[0].code, Code::InvalidYaml);
        assert_eq!(p.diagnostics[0].line, 3);
    }
}
