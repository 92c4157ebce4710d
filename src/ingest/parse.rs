//! Parse: one source file → a document node (id as written, kind, title, state, fields,
//! raw references) plus its sections and the diagnostics that depend only on that file.
//!
//! Everything here is a function of the file's bytes and the settings, which is what lets
//! an incremental run reuse the result for unchanged files.

use crate::config::{PathKind, Settings};
use crate::ingest::adr;
pub use crate::ingest::adr::adr_file_number;
use crate::ingest::frontmatter::{self, KeyLines, Parsed};
use crate::ingest::markdown::{self, Link, Section};
use crate::ingest::status;
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::model::{EdgeType, Kind, Node, RawRef, RefForm};
pub use crate::text::path::file_stem;
use serde_json::value::RawValue;
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
    /// The items written inside the file (a spec folder's tasks: [`Node::inline`]), each
    /// a document with its one section, resolved beside the file's own.
    pub items: Vec<ParsedFile>,
}

impl ParsedFile {
    /// A document with its sections and diagnostics, and no items.
    pub fn new(doc: Node, sections: Vec<Section>, diagnostics: Vec<Diagnostic>) -> ParsedFile {
        let items = Vec::new();
        ParsedFile {
            doc,
            sections,
            diagnostics,
            items,
        }
    }
}

/// Parse a file's text. `rel` is the root-relative path, `hash` its content hash.
///
/// A list of steps, each a function of what the steps before it found; each step
/// returns its diagnostics, which are kept in step order.
pub fn parse_file(rel: &str, hash: &str, text: &str, s: &Settings) -> ParsedFile {
    let front = read_frontmatter(rel, text);
    let body = markdown::parse_body(front.body, front.body_line);
    let ids = ids(rel, &front, s);
    let class = kind_and_type(rel, &front, &ids, s);
    let state = state(rel, &front, class.kind, &body.sections, s);
    // References: frontmatter keys in config order, then body links in file order.
    let mut refs = frontmatter_refs(rel, &front, s);
    refs.refs.extend(body_refs(&body.links, state.in_body.as_ref(), s));
    if ids.template {
        // Its links are placeholders (`[NNNN](NNNN-title.md)`).
        refs.refs.clear();
    }
    let mut doc = Node {
        id: ids.raw.clone(),
        kind: class.kind,
        path: rel.to_string(),
        r#type: class.ty.map(|(_, t)| t),
        title: Some(title(rel, &front, &body.sections, s)),
        state: state.value.map(|(_, v)| v),
        uid: ids.uid,
        hash: Some(hash.to_string()),
        id_derived: ids.declared.is_none(),
        nav: is_nav_page(rel, class.kind, &body.nav),
        fields: fields(&front),
        refs: Some(refs.refs),
        line: Some(ids.line),
        raw_id: Some(ids.raw),
        ..Node::default()
    };
    let diagnostics = [
        front.diagnostics,
        ids.diagnostics,
        class.diagnostics,
        state.diagnostics,
        refs.diagnostics,
    ];
    let items = crate::ingest::spec::shape_file(&mut doc, &body.sections, front.body, front.body_line);
    let mut parsed = ParsedFile::new(doc, body.sections, diagnostics.into_iter().flatten().collect());
    parsed.items = items
        .into_iter()
        .map(|(n, sec)| ParsedFile::new(n, vec![sec], Vec::new()))
        .collect();
    parsed
}

/// The frontmatter step: the fields as parsed, where their keys were written, and the
/// body after them.
struct Front<'t> {
    /// The fields; None without frontmatter, or when it is no mapping or is unreadable.
    yaml: Option<Yaml>,
    /// Where keys and values were written in the YAML block.
    key_lines: KeyLines<'t>,
    body: &'t str,
    /// 1-based line number of the body's first line.
    body_line: u32,
    diagnostics: Vec<Diagnostic>,
}

impl Front<'_> {
    /// The value at a dotted key path.
    fn get(&self, key: &str) -> Option<&Yaml> {
        frontmatter::get_path(self.yaml.as_ref()?, key)
    }

    /// The file line of a key's value; lines inside the YAML block are offset by the
    /// opening `---`.
    fn line(&self, key: &str, value: &str) -> u32 {
        self.key_lines.value_line(key, value) + 1
    }

    /// The first of `keys` holding a non-empty scalar, with that key. Integers keep their
    /// written form (`id: 0042` is `0042`, not `42`).
    fn first_scalar(&self, keys: &[String]) -> Option<(String, String)> {
        keys.iter().find_map(|k| {
            let v = self.get(k)?;
            let text = match v {
                Yaml::Integer(_) => self
                    .key_lines
                    .raw_scalar(k)
                    .map(str::to_string)
                    .or_else(|| frontmatter::scalar_text(v)),
                _ => frontmatter::scalar_text(v),
            }?;
            Some((k.clone(), text.trim().to_string())).filter(|(_, v)| !v.is_empty())
        })
    }
}

/// Split the frontmatter from the body and read its YAML, leniently: what cannot be read
/// is a diagnostic, and the file is indexed from what can.
fn read_frontmatter<'t>(rel: &str, text: &'t str) -> Front<'t> {
    let mut diagnostics = Vec::new();
    let split = frontmatter::split(text);
    if split.unclosed {
        diagnostics.push(Diagnostic::new(
            rel,
            1,
            Severity::Warning,
            Code::UnclosedFrontmatter,
            "frontmatter opened with `---` is never closed; read as body",
        ));
    }
    let mut yaml = None;
    if let Some(y) = split.yaml {
        match frontmatter::parse_yaml(y) {
            Parsed::Mapping(m) => yaml = Some(m),
            Parsed::NotMapping(what) => diagnostics.push(Diagnostic::new(
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
                diagnostics.push(
                    Diagnostic::new(
                        rel,
                        error.line + 1,
                        Severity::Error,
                        Code::InvalidYaml,
                        format!("invalid YAML: {} ({how})", error.message),
                    )
                    .at_col(error.col),
                );
                yaml = recovered;
            }
        }
    }
    Front {
        yaml,
        key_lines: KeyLines::new(split.yaml.unwrap_or("")),
        body: split.body,
        body_line: split.body_line,
        diagnostics,
    }
}

/// The ids step: the file's id as written and where, its uid.
struct Ids {
    /// The id the frontmatter declares, with its key.
    declared: Option<(String, String)>,
    /// The id as written: the declared one, else the one the file name gives.
    raw: String,
    /// The line of the declared id (1 without one).
    line: u32,
    uid: Option<String>,
    /// A decision record written without an id (adr-tools, MADR, log4brains): a
    /// numbered file in the decisions folder.
    bare_adr: bool,
    /// A template or a log's index page (`0000-template`, `000-index`): no item.
    template: bool,
    diagnostics: Vec<Diagnostic>,
}

/// The file's id: the first id key the frontmatter has, else the one its file name gives.
fn ids(rel: &str, front: &Front, s: &Settings) -> Ids {
    let stem = file_stem(rel);
    let declared = front.first_scalar(&s.ids.keys);
    let template = adr::is_boilerplate(stem);
    let bare_adr =
        declared.is_none() && !template && in_dir(rel, &s.kinds.decisions_dir) && adr_file_number(stem).is_some();
    // `0005-use-x` is `ADR-0005`; `ADR023-use-x` is `ADR023` (the name up to its number);
    // `20200924-use-x` (log4brains) is its slug.
    let from_filename = match adr_file_number(stem) {
        Some(n) if bare_adr && adr::is_date_number(n) => stem.to_string(),
        Some(n) if bare_adr && stem.starts_with(|c: char| c.is_ascii_digit()) => format!("ADR-{n}"),
        Some(n) if bare_adr => {
            let end = stem.find(n).map_or(stem.len(), |i| i + n.len());
            stem[..end].to_string()
        }
        _ => filename_id(stem),
    };
    let mut diagnostics = Vec::new();
    let line = declared.as_ref().map(|(k, v)| front.line(k, v)).unwrap_or(1);
    if let Some((_, id)) = &declared
        && looks_like_id(&from_filename)
        && !same_id(&from_filename, id)
    {
        diagnostics.push(
            Diagnostic::new(
                rel,
                line,
                Severity::Warning,
                Code::IdMismatch,
                format!("id `{id}` disagrees with the filename, which says `{from_filename}`"),
            )
            .about(id),
        );
    }
    Ids {
        raw: declared.as_ref().map_or(from_filename, |(_, v)| v.clone()),
        declared,
        line,
        uid: front.first_scalar(&s.ids.uid_keys).map(|(_, v)| v),
        bare_adr,
        template,
        diagnostics,
    }
}

/// The kind and type step.
struct Class {
    kind: Kind,
    /// The type with the key it was read from (empty when the folder gives it).
    ty: Option<(String, String)>,
    diagnostics: Vec<Diagnostic>,
}

/// What the file is: a work item, a decision record or a document, by its type field, its
/// folder (`[kinds] paths` first, then the items and decisions folders) and its id.
fn kind_and_type(rel: &str, front: &Front, ids: &Ids, s: &Settings) -> Class {
    // `[kinds] paths`: what the folder says the file is, when the file does not say.
    // A folder's README or index page is about the folder, not one of its items.
    let folder_page = ["readme", "index", "_index"]
        .iter()
        .any(|n| file_stem(rel).eq_ignore_ascii_case(n));
    let by_path = s.kinds.paths.lookup(rel).filter(|_| !folder_page);
    let item_by_path = match by_path {
        Some(PathKind::Item(t)) => Some(t),
        _ => None,
    };
    let ty = front
        .first_scalar(&s.fields.r#type)
        .or_else(|| item_by_path.map(|t| (String::new(), t.to_string())));
    let has_fm = front.yaml.is_some();
    // Byte comparison: the id may start with multi-byte characters.
    let raw = ids.raw.as_bytes();
    let adr_like =
        raw.get(..4).is_some_and(|p| p.eq_ignore_ascii_case(b"adr-")) && raw.get(4).is_some_and(u8::is_ascii_digit);
    // The folder says it is a work item (whatever type its own field gives).
    let item_by_path = item_by_path.is_some();
    let kind = if ids.template {
        Kind::Doc
    } else if ty.as_ref().is_some_and(|(_, t)| contains_ci(&s.kinds.item_types, t))
        || (has_fm && in_dir(rel, &s.kinds.items_dir))
        || item_by_path
    {
        Kind::WorkItem
    } else if (has_fm && in_dir(rel, &s.kinds.decisions_dir))
        || adr_like
        || ids.bare_adr
        || by_path == Some(PathKind::Adr)
    {
        Kind::Adr
    } else {
        Kind::Doc
    };

    let mut diagnostics = Vec::new();
    // Numbered decision records of formats that carry no ids are named by their files,
    // and so is a file without frontmatter whose name starts with an id (`task-110 -
    // Title.md`, as agents write task files with bold `**Status:**` lines): it has no
    // place for an id field, its name is where its id is.
    let id_by_name = (kind == Kind::Adr && (ids.bare_adr || (!has_fm && adr_file_number(file_stem(rel)).is_some())))
        || (!has_fm && looks_like_id(&ids.raw));
    if matches!(kind, Kind::WorkItem | Kind::Adr) && ids.declared.is_none() && !id_by_name {
        diagnostics.push(Diagnostic::new(
            rel,
            1,
            Severity::Warning,
            Code::MissingId,
            format!("no `{}` field; using `{}` from the filename", s.ids.keys[0], ids.raw),
        ));
    }
    if kind == Kind::WorkItem && !item_by_path {
        match &ty {
            Some((k, t)) if !contains_ci(&s.kinds.item_types, t) => diagnostics.push(
                Diagnostic::new(
                    rel,
                    front.line(k, t),
                    Severity::Warning,
                    Code::UnknownType,
                    format!(
                        "unknown work item type `{t}` (known: {})",
                        s.kinds.item_types.join(", ")
                    ),
                )
                .about(t),
            ),
            None => diagnostics.push(Diagnostic::new(
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
    Class { kind, ty, diagnostics }
}

/// The state step.
struct State {
    /// The state with the key it was read from (empty when the body states it).
    value: Option<(String, String)>,
    /// The status the body states when the frontmatter has none: links on it are typed.
    in_body: Option<status::BodyStatus>,
    diagnostics: Vec<Diagnostic>,
}

/// The file's state: its state field, else (for decisions and work items) the status its
/// body states; a state field its kind does not know is reported.
fn state(rel: &str, front: &Front, kind: Kind, sections: &[Section], s: &Settings) -> State {
    let mut value = front.first_scalar(&s.fields.state);
    // A decision's or work item's status written in its body (a `## Status` section, a
    // `Status: X` line) when the frontmatter has none; the links on it are typed edges.
    let in_body = match kind {
        Kind::Adr if value.is_none() => {
            let known = &s.kinds.adr_states;
            status::with_prose(status::read(sections, known), sections, known)
        }
        // Work items written without frontmatter (`**Status:** Ready` under the title):
        // a status line, or a Status section that starts with a state word it knows.
        Kind::WorkItem if value.is_none() => {
            status::read(sections, &s.kinds.item_states).filter(|st| st.from_line || st.state.is_some())
        }
        _ => None,
    };
    let mut diagnostics = Vec::new();
    if let Some(st) = &in_body {
        value = st.state.clone().map(|v| (String::new(), v));
        let (what, known) = match kind {
            Kind::Adr => ("ADR", &s.kinds.adr_states),
            _ => ("work item", &s.kinds.item_states),
        };
        diagnostics.extend(st.unknown_state(rel, what, known));
    }
    if let Some((k, st)) = value.as_ref().filter(|(k, _)| !k.is_empty()) {
        let known = match kind {
            Kind::WorkItem => Some(&s.kinds.item_states),
            Kind::Adr => Some(&s.kinds.adr_states),
            _ => None,
        };
        if let Some(list) = known.filter(|l| !contains_ci(l, st)) {
            diagnostics.push(
                Diagnostic::new(
                    rel,
                    front.line(k, st),
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
    State {
        value,
        in_body,
        diagnostics,
    }
}

/// The references step.
struct Refs {
    refs: Vec<RawRef>,
    diagnostics: Vec<Diagnostic>,
}

/// References in the frontmatter's edge keys, in config order, each at the line of its
/// value.
fn frontmatter_refs(rel: &str, front: &Front, s: &Settings) -> Refs {
    let mut refs = Vec::new();
    let mut diagnostics = Vec::new();
    for (key, &edge) in &s.edges {
        let Some(v) = front.get(key) else {
            continue;
        };
        let raw_int = matches!(v, Yaml::Integer(_))
            .then(|| front.key_lines.raw_scalar(key))
            .flatten();
        let targets = ref_values(v, &mut |what| {
            diagnostics.push(
                Diagnostic::new(
                    rel,
                    front.line(key, ""),
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
        let lines = front.key_lines.value_lines(key, &targets);
        for (target, line) in targets.into_iter().zip(lines) {
            refs.push(RawRef {
                edge,
                target,
                form: RefForm::Id,
                line: line + 1,
                key: Some(key.clone()),
                label: None,
            });
        }
    }
    Refs { refs, diagnostics }
}

/// References in the body's links, in file order: `links_to`, or the edge a status line
/// names for the links on it. Paths are kept as written: resolution tries them from the
/// file, then from the repository root (see `resolve`), which needs the other files.
fn body_refs(links: &[Link], status: Option<&status::BodyStatus>, s: &Settings) -> Vec<RawRef> {
    links
        .iter()
        .map(|link| {
            let typed = status.and_then(|st| st.edge_on(link.line, s.kinds.amends));
            // A typed link's text, when it could be an id, stands in for a broken path: a
            // number is the id a record numbered so has (`[0009](…)` → `ADR-0009`).
            let label = typed
                .filter(|_| !link.wiki && !link.text.is_empty() && !link.text.contains(char::is_whitespace))
                .map(|_| match link.text.bytes().all(|b| b.is_ascii_digit()) {
                    true => format!("ADR-{}", link.text),
                    false => link.text.clone(),
                });
            RawRef {
                edge: typed.unwrap_or(EdgeType::LinksTo),
                target: link.target.trim().to_string(),
                form: if link.wiki { RefForm::Wiki } else { RefForm::Path },
                line: link.line,
                key: None,
                label,
            }
        })
        .collect()
}

/// The title: the title field, else the first heading, else the file name.
fn title(rel: &str, front: &Front, sections: &[Section], s: &Settings) -> String {
    front
        .first_scalar(&s.fields.title)
        .map(|(_, v)| v)
        .or_else(|| {
            sections
                .iter()
                .find(|sec| sec.level > 0 && !sec.heading.is_empty())
                .map(|sec| sec.heading.clone())
        })
        .unwrap_or_else(|| file_stem(rel).to_string())
}

/// The frontmatter's fields as JSON: an empty object without a mapping.
fn fields(front: &Front) -> Option<Box<RawValue>> {
    match front.yaml.as_ref().map(frontmatter::to_json) {
        Some(v @ Value::Object(_)) => serde_json::value::to_raw_value(&v).ok(),
        _ => None,
    }
    .or_else(|| serde_json::value::to_raw_value(&Map::new()).ok())
}

/// Whether a folder of the path (not the file itself) is named `dir`, case aside.
fn in_dir(rel: &str, dir: &str) -> bool {
    rel.split('/').rev().skip(1).any(|c| c.eq_ignore_ascii_case(dir))
}

/// Whether `list` holds `v`, case aside.
fn contains_ci(list: &[String], v: &str) -> bool {
    list.iter().any(|x| x.eq_ignore_ascii_case(v))
}

/// Least share of a body's lines that must be link lines or query blocks for a document
/// to be a navigation page ([`is_nav_page`]).
pub const NAV_SHARE: f64 = 0.6;
/// Fewest links on the link lines of a navigation page without a query block: fewer is
/// a short note that links a few things, not an index.
pub const NAV_MIN_LINKS: u32 = 5;

/// Whether a document is a navigation page: an Obsidian Dataview index (`*.index.md`),
/// or a document (not a work item or decision record, whose type and state make them
/// content whatever their body) whose body is mostly navigation: at least [`NAV_SHARE`]
/// of its lines are link lines or query blocks (`NavStats` in the Markdown parser), with at least
/// [`NAV_MIN_LINKS`] links or one query block.
///
/// Tuned on the real corpora: of 2,318 EIPs, 696 Backlog.md files and the fixtures, the
/// only pages it marks are the three Meta EIPs that list a network upgrade's EIPs
/// (7773, 8081: 82–86 % link lines; 7692: 68 %). The next ones down are Meta EIPs with
/// real content (Prague/Electra's activation table and notes: 50 %; Dencun: 43 %), and
/// no Backlog.md README is a list of links.
pub fn is_nav_page(rel: &str, kind: Kind, st: &markdown::NavStats) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if name.len() > 9
        && name.is_char_boundary(name.len() - 9)
        && name[name.len() - 9..].eq_ignore_ascii_case(".index.md")
    {
        return true;
    }
    kind == Kind::Doc
        && st.lines > 0
        && st.nav_lines as f64 >= NAV_SHARE * st.lines as f64
        && (st.links >= NAV_MIN_LINKS || st.queries > 0)
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
    // A review of an epic named after it (`epic-8-review`) mentions the epic; it is not it.
    let report = groups[0].eq_ignore_ascii_case("epic") && crate::ingest::spec::ends_in_report(head);
    if let Some(i) = groups.iter().position(|g| numeric(g))
        && i > 0
        && groups[..i].iter().all(|g| alpha(g))
        && !report
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adr_file_numbers() {
        assert_eq!(adr_file_number("0005-use-postgres"), Some("0005"));
        assert_eq!(adr_file_number("ADR023-title"), Some("023"));
        assert_eq!(adr_file_number("adr-0005_x"), Some("0005"));
        assert_eq!(adr_file_number("decision-3 - Title"), Some("3"));
        assert_eq!(adr_file_number("20200924-use-log4brains"), Some("20200924"));
        assert_eq!(adr_file_number("README"), None);
        assert_eq!(adr_file_number("2fa-login"), None);
        assert_eq!(adr_file_number("adr"), None);
    }

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
        assert_eq!(filename_id("epic-8-review"), "epic-8-review");
        assert_eq!(filename_id("epic-8-accounts"), "epic-8");
    }

    #[test]
    fn id_agreement() {
        assert!(same_id("back-12", "BACK-12"));
        assert!(same_id("eip-1559", "1559"));
        assert!(!same_id("QRY-TSK-0007", "QRY-TSK-0008"));
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
            ("links_to", "../other/O-1_x.md", 12),
        ];
        let want: Vec<(String, String, u32)> = want
            .iter()
            .map(|(a, b, c)| (a.to_string(), b.to_string(), *c))
            .collect();
        assert_eq!(got, want);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    }

    #[test]
    fn navigation_pages() {
        let s = Settings::default();
        let nav = |path: &str, text: &str| parse_file(path, "h", text, &s).doc.nav;
        let links: String = (1..=6).map(|i| format!("- [Item {i}](items/I-{i}.md)\n")).collect();
        assert!(nav("README.md", &format!("# Index\n{links}")));
        assert!(nav(
            "Work.index.md",
            "# Work\nAll the prose you like, and no link at all.\n"
        ));
        assert!(nav(
            "dash.md",
            "```dataview\nLIST\n```\n```dataviewjs\ndv.list()\n```\nNotes.\n"
        ));
        // Too few links, too much prose, or a work item: content.
        assert!(!nav("short.md", "- [a](a.md)\n- [b](b.md)\n"));
        let prose = "A sentence of prose about the design and its trade-offs.\n".repeat(5);
        assert!(!nav("mixed.md", &format!("{links}{prose}")));
        assert!(!nav("items/E-1.md", &format!("---\nid: E-1\ntype: Epic\n---\n{links}")));
        assert!(!nav(
            "notes.md",
            "```dataview\nLIST\n```\nA page of real notes.\nMore notes here.\n"
        ));
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
