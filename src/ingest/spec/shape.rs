//! What a spec folder makes of one file: its document's id, type, state and parent as
//! the folder gives them (when the file does not say), and its items as documents of
//! their own, each with its one section (its text) and its references.

use super::{Format, Item, Scope, items};
use crate::ingest::markdown::Section;
use crate::model::{EdgeType, Kind, Node, RawRef, RefForm};

/// The frontmatter-like key a reference made by a spec folder's structure carries: its
/// edges are `structure`, and a feature's parent reference that finds no `spec.md` is
/// not a dangling reference (a feature folder need not have one).
pub const STRUCTURE_KEY: &str = "(spec folder)";

/// What a spec folder makes of the file of `doc` (whose body starts at `body_line`):
/// [`shape`] in a spec folder; a Spec Kit Plus prompt record's id is its file name
/// (records number themselves per folder: `id: 1` in each), so records sharing one
/// step aside as files without ids do.
pub fn shape_file(doc: &mut Node, sections: &[Section], body: &str, body_line: u32) -> Vec<(Node, Section)> {
    if super::is_prompt_record(&doc.path) {
        let stem = doc.path.rsplit('/').next().unwrap_or("").trim_end_matches(".md");
        doc.id = stem.to_string();
        doc.raw_id = Some(doc.id.clone());
        doc.id_derived = true;
    }
    match super::scope_of(&doc.path) {
        Some(scope) => shape(doc, sections, &scope, body, body_line),
        None => Vec::new(),
    }
}

/// Give `doc` (a file in `scope`, whose body starts at `body_line`) what its folder says
/// of it, and return its items as documents with their sections.
pub fn shape(doc: &mut Node, sections: &[Section], scope: &Scope, body: &str, body_line: u32) -> Vec<(Node, Section)> {
    if doc.id_derived {
        let id = scope.doc_id();
        doc.id = id.clone();
        doc.raw_id = Some(id);
    }
    if let Some(t) = scope.doc_type()
        && doc.kind == Kind::Doc
    {
        doc.kind = Kind::WorkItem;
        doc.r#type.get_or_insert_with(|| t.to_string());
    }
    if let Format::OpenSpec(part) = scope.format {
        return super::openspec::shape(doc, scope, part, (body, body_line), item_node);
    }
    if scope.format == Format::BmadStory
        && doc.state.is_none()
        && let Some((state, written)) = story_status(sections)
    {
        doc.state = Some(state);
        if let Some(w) = written {
            with_field(doc, "status_text", &w);
        }
    }
    let refs = doc.refs.get_or_insert_with(Vec::new);
    if let Some(parent) = scope.doc_parent()
        && !refs.iter().any(|r| r.edge == EdgeType::Parent)
    {
        refs.push(structure_ref(EdgeType::Parent, parent, 1));
    }
    let own = doc.raw_id.clone().unwrap_or_else(|| doc.id.clone());
    items(scope, body, body_line)
        .into_iter()
        .map(|it| item_node(doc, &own, scope, it))
        .collect()
}

fn structure_ref(edge: EdgeType, target: String, line: u32) -> RawRef {
    RawRef {
        edge,
        target,
        form: RefForm::Id,
        line,
        key: Some(STRUCTURE_KEY.to_string()),
        label: None,
    }
}

/// An item as a document: `scope/local`, in the file's path, with its line.
fn item_node(file: &Node, file_id: &str, scope: &Scope, it: Item) -> (Node, Section) {
    let id = scope.id(&it.local);
    let parent = it
        .parent
        .as_deref()
        .map_or_else(|| file_id.to_string(), |p| scope.id(p));
    let mut refs = vec![structure_ref(EdgeType::Parent, parent, it.line)];
    refs.extend(
        it.refs
            .iter()
            .map(|r| structure_ref(r.edge, scope.id(&r.target), r.line)),
    );
    let mut fields = serde_json::Map::new();
    if let Some(p) = &it.priority {
        fields.insert("priority".into(), p.clone().into());
    }
    if it.parallel {
        fields.insert("parallel".into(), true.into());
    }
    if it.optional {
        fields.insert("optional".into(), true.into());
    }
    // Stories, requirements and criteria of a spec are what tasks serve: they have no box
    // of their own, so they are documents, not work that a roll-up would count as open.
    let kind = if it.state.is_some() { Kind::WorkItem } else { Kind::Doc };
    let node = Node {
        id: id.clone(),
        kind,
        path: file.path.clone(),
        raw_id: Some(id),
        r#type: Some(it.r#type.to_string()),
        title: Some(it.title),
        state: it.state.map(str::to_string),
        hash: file.hash.clone(),
        inline: true,
        fields: serde_json::value::to_raw_value(&fields).ok(),
        refs: Some(refs),
        line: Some(it.line),
        ..Node::default()
    };
    let section = Section {
        heading: String::new(),
        level: 0,
        line: it.line,
        text_line: it.line,
        text: it.text,
        tokens: 0,
    };
    (node, section)
}

/// A BMAD story's status: a `Status:` line under its title (v6's template writes
/// `Status: ready-for-dev`; a common variant of v4's, `- **Status:** Done`, whose later
/// `### Status` sections report on something else), else the first line of its
/// `## Status` section (v4), read as any status line is ([`crate::ingest::status`]):
/// emoji, bold, dates, percentages and a trailing note make no state of their own
/// (`✅ Complete - October 4, 2025` and `COMPLETE - 100% (All 9 tasks completed)` are
/// `Complete`), and the line as written is kept beside it. v6's statuses are states every
/// backlog knows ([`crate::model::backlog::Group::builtin`]): backlog, drafted and
/// ready-for-dev open, in-progress and review in progress, done done. A line that starts
/// with no state word keeps its first words (`Awaiting sign-off`).
fn story_status(sections: &[Section]) -> Option<(String, Option<String>)> {
    if let Some(st) = crate::ingest::status::read(sections, &[])
        && let Some(state) = st.state
    {
        let written = st.written.filter(|w| *w != state);
        return Some((state, written));
    }
    let sec = sections
        .iter()
        .find(|s| s.heading.trim().eq_ignore_ascii_case("status"))?;
    let line = sec.text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let word: String = line
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == ' ' || *c == '-')
        .collect();
    let word = word.trim();
    let mut chars = word.chars();
    let first = chars.next()?;
    let state: String = first.to_uppercase().chain(chars.flat_map(char::to_lowercase)).collect();
    let written = (state != line).then(|| line.to_string());
    Some((state, written))
}

/// `node`'s fields with `key` set to `value` (a JSON object made when it has none).
fn with_field(node: &mut Node, key: &str, value: &str) {
    let mut map: serde_json::Map<String, serde_json::Value> = node
        .fields
        .as_ref()
        .and_then(|f| serde_json::from_str(f.get()).ok())
        .unwrap_or_default();
    map.entry(key.to_string()).or_insert_with(|| value.into());
    node.fields = serde_json::value::to_raw_value(&map).ok();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::spec::scope_of;
    use crate::model::backlog::{Group, fold_state};

    fn status(text: &str) -> Option<String> {
        let sec = Section {
            heading: "Status".into(),
            level: 2,
            line: 1,
            text_line: 2,
            text: text.into(),
            tokens: 0,
        };
        story_status(&[sec]).map(|(state, _)| state)
    }

    #[test]
    fn story_statuses() {
        assert_eq!(status("Done").as_deref(), Some("Done"));
        assert_eq!(status("✅ **COMPLETED** (August 2024)").as_deref(), Some("Completed"));
        assert_eq!(status("**COMPLETED ✅**:").as_deref(), Some("Completed"));
        assert_eq!(status("Ready for Review").as_deref(), Some("Ready for Review"));
        // Dates, percentages and notes after the state make no state of their own; the
        // line as written is kept beside it.
        for (line, state) in [
            ("✅ Complete - October 4, 2025", "Complete"),
            ("COMPLETE - 100% (All 9 tasks completed)", "Complete"),
            ("✅ **Completed via Story 6.2** — October 21, 2025", "Completed"),
            ("✅ Complete - Fully Tested and Production Ready", "Complete"),
            ("Completado (2025-03-01)", "Completado"),
            ("✅ 完了（2025-10-04）", "完了"),
            ("Terminé", "Terminé"),
        ] {
            assert_eq!(status(line).as_deref(), Some(state), "{line}");
            assert!(Group::builtin(&fold_state(state)) == Some(Group::Done), "{line}");
        }
        let sec = |text: &str| Section {
            heading: "Status".into(),
            level: 2,
            line: 1,
            text_line: 2,
            text: text.into(),
            tokens: 0,
        };
        assert_eq!(
            story_status(&[sec("✅ Complete - October 4, 2025")]),
            Some(("Complete".into(), Some("✅ Complete - October 4, 2025".into())))
        );
        assert_eq!(story_status(&[sec("Done")]), Some(("Done".into(), None)));
        // Another language's key under the title.
        let sections = crate::ingest::markdown::parse_body("# Historia 1.1\n\n**Estado:** En progreso\n", 1).sections;
        assert_eq!(story_status(&sections).map(|s| s.0).as_deref(), Some("En progreso"));
        assert_eq!(Group::builtin(&fold_state("En progreso")), Some(Group::InProgress));
        assert_eq!(status("").as_deref(), None);
        // The metadata under the title before a later `### Status` report.
        let body = "# Story 5.3A: Intake\n\n## Story Information\n\n- **Story:** 5.3A\n- **Status:** Done\n- **Points:** 8\n\n## Notes\n\n### Status\n\nReady\n";
        let sections = crate::ingest::markdown::parse_body(body, 1).sections;
        assert_eq!(story_status(&sections).map(|s| s.0).as_deref(), Some("Done"));
        // BMAD v6 (xvanov/locatrix): `Status: review` under the title, in its own words.
        for (written, state, group) in [
            ("backlog", "Backlog", Group::Open),
            ("drafted", "Drafted", Group::Open),
            ("ready-for-dev", "Ready-for-dev", Group::Open),
            ("in-progress", "In-progress", Group::InProgress),
            ("review", "Review", Group::InProgress),
            ("done", "Done", Group::Done),
        ] {
            let body = format!("# Story 1.2: Deploy\n\nStatus: {written}\n\n## Story\n\nAs a developer\n");
            let sections = crate::ingest::markdown::parse_body(&body, 1).sections;
            let got = story_status(&sections).map(|s| s.0);
            assert_eq!(got.as_deref(), Some(state), "{written}");
            assert_eq!(Group::builtin(&fold_state(state)), Some(group), "{written}");
        }
    }

    #[test]
    fn items_become_documents() {
        let scope = scope_of("specs/003-chat/tasks.md").unwrap();
        let mut doc = Node {
            id: "tasks".into(),
            raw_id: Some("tasks".into()),
            path: "specs/003-chat/tasks.md".into(),
            id_derived: true,
            ..Node::default()
        };
        let body = "## Phase 1: Setup\n- [ ] T001 [US1] Do it\n";
        let items = shape(&mut doc, &[], &scope, body, 3);
        assert_eq!(doc.id, "003-chat/tasks");
        assert_eq!(doc.refs.as_ref().unwrap()[0].target, "003-chat");
        let (t, sec) = &items[1];
        assert_eq!(
            (t.id.as_str(), t.line, t.state.as_deref()),
            ("003-chat/T001", Some(4), Some("open"))
        );
        let targets: Vec<&str> = t.refs.as_ref().unwrap().iter().map(|r| r.target.as_str()).collect();
        assert_eq!(targets, ["003-chat/phase-1", "003-chat/US1"]);
        assert_eq!(sec.text, "- [ ] T001 [US1] Do it");
        assert_eq!(items[0].0.refs.as_ref().unwrap()[0].target, "003-chat/tasks");
    }
}
