//! The items written inside a spec-folder file: checkbox tasks with an id (Spec Kit
//! `T012`, Kiro `2.1`, checklist `CHK001`, BMAD's story tasks by their place), tasks
//! written as headings (Spec Kit `### T001: …`, BMAD `### Task 1: …`), Spec Kit's
//! `## Phase N` headings, the user stories and `FR-001`/`SC-001` lines of a spec, Kiro's
//! requirements and acceptance criteria, BMAD's acceptance criteria; and what each cites.
//!
//! A plain line scanner (fenced code skipped): these are line conventions, and a task's
//! body is the indented lines under its line, which a Markdown tree would reshape.

use super::{Format, Scope};
use crate::ingest::markdown::Section;
use crate::ingest::status;
use crate::model::EdgeType;
use crate::model::backlog::{Group, fold_state};

/// One item inside a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Its id inside the scope (`T012`, `2.1`, `phase-3`, `US1`, `FR-001`, `AC2`, `R1.2`).
    pub local: String,
    /// Its type: Task, Check, Phase, UserStory, Requirement, Criterion.
    pub r#type: &'static str,
    /// `open`, `done`, `in progress` or `blocked` for boxes and phases; none for
    /// stories and requirements.
    pub state: Option<&'static str>,
    /// The line's text without box, id and markers.
    pub title: String,
    /// 1-based line of the item.
    pub line: u32,
    /// The item as Markdown: its line and the lines under it, dedented.
    pub text: String,
    /// The local id of the item it hangs under (phase, parent task), none for the file.
    pub parent: Option<String>,
    /// What it cites, by local id.
    pub refs: Vec<ItemRef>,
    /// `P1`… for a user story.
    pub priority: Option<String>,
    /// Marked `[P]`: may run beside the tasks before it.
    pub parallel: bool,
    /// Kiro's optional task (`- [ ]* 2.1`): its parent may be done without it.
    pub optional: bool,
}

/// A reference from an item to another item of its scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemRef {
    /// The edge it makes.
    pub edge: EdgeType,
    /// The target's local id.
    pub target: String,
    /// 1-based line.
    pub line: u32,
}

/// A line of the body with its number and indentation.
struct Line<'a> {
    no: u32,
    indent: usize,
    text: &'a str,
    in_fence: bool,
}

/// The items of a file in `scope` whose body (after frontmatter) starts at `first_line`.
/// The items of a file in `scope` as written, before its format's order is added
/// ([`super::items`] adds it).
pub fn scan(scope: &Scope, body: &str, first_line: u32) -> Vec<Item> {
    let lines = lines(body, first_line);
    let mut out = Vec::new();
    let mut ctx = Ctx::default();
    for (i, l) in lines.iter().enumerate() {
        if l.in_fence {
            continue;
        }
        if let Some((level, heading)) = heading(l.text) {
            ctx.heading(scope, level, heading, l, &lines[i + 1..], &mut out);
            continue;
        }
        if scope.format == Format::Kiro && tasks_file(scope, false) {
            kiro::late_cites(scope, &ctx.stack, l, &mut out);
        }
        if let Some(item) = ctx.list_item(scope, l, &lines[i + 1..]) {
            out.push(item);
        }
    }
    let mut out = drop_boxed_heads(out, &ctx.heads);
    match scope.format {
        Format::Kiro => kiro::hang_orphans(out, &ctx.headings),
        Format::BmadStory => {
            expand_criteria(&mut out);
            out
        }
        _ => out,
    }
}

/// A file that writes a task both ways (a `### T001:` heading and a `- [ ] T001` box)
/// keeps the box's task: the heading's is left out rather than made a duplicate id.
fn drop_boxed_heads(items: Vec<Item>, heads: &[usize]) -> Vec<Item> {
    let boxed: std::collections::BTreeSet<String> = (0..items.len())
        .filter(|i| items[*i].r#type == "Task" && !heads.contains(i))
        .map(|i| items[i].local.clone())
        .collect();
    (0..)
        .zip(items)
        .filter(|(i, it)| !(heads.contains(i) && boxed.contains(&it.local)))
        .map(|(_, it)| it)
        .collect()
}

fn lines(body: &str, first_line: u32) -> Vec<Line<'_>> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for (i, raw) in body.lines().enumerate() {
        let trimmed = raw.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        let in_fence = fence.is_some() || marker.is_some();
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m && trimmed.trim_end() == m => fence = None,
            _ => {}
        }
        let indent = raw.len() - trimmed.len() + raw[..raw.len() - trimmed.len()].matches('\t').count() * 3;
        out.push(Line {
            no: first_line + i as u32,
            indent,
            text: trimmed.trim_end(),
            in_fence,
        });
    }
    out
}

/// `## Phase 3: …` → (2, "Phase 3: …").
fn heading(text: &str) -> Option<(usize, &str)> {
    let level = text.bytes().take_while(|&b| b == b'#').count();
    let rest = text.get(level..)?;
    ((1..=6).contains(&level) && (rest.is_empty() || rest.starts_with(' ')))
        .then(|| (level, rest.trim().trim_end_matches('#').trim()))
}

/// Where the scanner is: the section it is in and the open items that new ones hang under.
#[derive(Default)]
struct Ctx {
    /// The current phase (Spec Kit `tasks.md`).
    phase: Option<String>,
    /// The current section's heading, lowercased.
    section: String,
    /// The current Kiro requirement number and its heading's level.
    requirement: Option<(String, usize)>,
    /// Open list items by indentation: (indent, local id).
    stack: Vec<(usize, String)>,
    /// BMAD: top-level task count; subtask count of each task (by its local id).
    ordinal: (u32, std::collections::BTreeMap<String, u32>),
    /// Kiro/BMAD acceptance criteria seen in the current requirement.
    criteria: u32,
    /// BMAD: the story's task list (`## Tasks / Subtasks`).
    tasks_list: Region,
    /// The first Acceptance Criteria section (a BMAD story's numbers its criteria; a later
    /// one, as a QA review repeats it, does not).
    criteria_list: Region,
    /// Spec Kit: where the tasks written as headings are in the scan's output.
    heads: Vec<usize>,
    /// Spec Kit: the requirement and criterion ids the spec declared so far.
    declared: std::collections::BTreeSet<String>,
    /// Kiro's tasks file: the headings passed (line, level, text), which a task whose
    /// parent number has no task hangs under.
    headings: Vec<(u32, usize, String)>,
}

/// The first section whose heading names something, down to the next heading of its
/// level: its subheadings stay in it (`### Task 1: …`, `### Functional Requirements`),
/// and a later section so named (a dev agent's `### Tasks / Subtasks Completion Status`,
/// a QA review's criteria) repeats it, and is not it.
#[derive(Default)]
struct Region {
    level: Option<usize>,
    seen: bool,
}

impl Region {
    /// Pass a heading of `level` that `names` the section or not.
    fn heading(&mut self, level: usize, names: bool) {
        if self.level.is_some_and(|lv| level <= lv) {
            self.level = None;
        }
        if self.level.is_none() && names && !self.seen {
            self.seen = true;
            self.level = Some(level);
        }
    }
    fn open(&self) -> bool {
        self.level.is_some()
    }
    /// A heading of `level` is a subheading of the section.
    fn under(&self, level: usize) -> bool {
        self.level.is_some_and(|lv| level > lv)
    }
}

impl Ctx {
    fn heading(
        &mut self,
        scope: &Scope,
        level: usize,
        text: &str,
        l: &Line<'_>,
        rest: &[Line<'_>],
        out: &mut Vec<Item>,
    ) {
        self.section = text.to_lowercase();
        self.stack.clear();
        if scope.format == Format::Kiro && tasks_file(scope, false) {
            self.headings.push((l.no, level, text.to_string()));
        }
        // A story's task list is headed `## Tasks / Subtasks` (any `##` heading naming
        // tasks, or a deeper one starting with "Tasks").
        let names_tasks = (level <= 2 && self.section.contains("task")) || self.section.starts_with("tasks");
        self.tasks_list.heading(level, names_tasks);
        self.criteria_list
            .heading(level, names_role(&self.section, "acceptance criteria"));
        if self.requirement.as_ref().is_none_or(|(_, lv)| level <= *lv) {
            self.requirement = None;
            // Criteria under subheadings of their section number on.
            if !self.criteria_list.under(level) {
                self.criteria = 0;
            }
        }
        let section_text = || section_body(level, l, rest);
        match scope.format {
            Format::SpecKit if scope.file == "tasks" => self.tasks_heading(scope, level, text, l, rest, out),
            Format::SpecKit if scope.is_feature_file() => {
                if let Some(n) = numbered_word(text, "user story") {
                    out.push(Item {
                        local: format!("US{n}"),
                        r#type: "UserStory",
                        state: None,
                        title: strip_number_lead(text, "user story", &n),
                        line: l.no,
                        text: section_text(),
                        parent: None,
                        refs: Vec::new(),
                        priority: priority(text),
                        parallel: false,
                        optional: false,
                    });
                }
            }
            // BMAD stories that write a task as a heading (`### Task 1: … (AC: 1, 2)`)
            // with its subtasks as boxes under it.
            Format::BmadStory => {
                self.phase = None;
                let in_tasks = self.tasks_list.under(level);
                if let Some(n) = numbered_word(text, "task").filter(|_| in_tasks) {
                    let local = n.clone();
                    self.phase = Some(local.clone());
                    self.ordinal.0 = n.parse().unwrap_or(self.ordinal.0);
                    self.ordinal.1.remove(&n);
                    out.push(Item {
                        local,
                        r#type: "Task",
                        state: None,
                        title: strip_number_lead(text, "task", &n),
                        line: l.no,
                        text: text.to_string(),
                        parent: None,
                        refs: cites(scope, text, l.no),
                        priority: None,
                        parallel: false,
                        optional: false,
                    });
                }
            }
            Format::Kiro if scope.file == "tasks" => {
                if let Some(task) = kiro::heading_task(scope, level, text, l, rest) {
                    self.heads.push(out.len());
                    out.push(task);
                }
            }
            Format::Kiro if scope.is_feature_file() => {
                let numbered = || kiro::numbered_requirement(text, section_lines(level, rest));
                if let Some(n) = numbered_word(text, "requirement").or_else(numbered) {
                    self.requirement = Some((n.clone(), level));
                    let body = section_text();
                    out.push(Item {
                        local: format!("R{n}"),
                        r#type: "Requirement",
                        state: None,
                        title: requirement_title(text, &n, &body),
                        line: l.no,
                        text: body,
                        parent: None,
                        refs: Vec::new(),
                        priority: None,
                        parallel: false,
                        optional: false,
                    });
                }
            }
            _ => {}
        }
    }

    /// A heading of a Spec Kit `tasks.md`: a phase (`## Phase 3: …`), a task written as a
    /// heading (`### T001: …`, under its phase), or a `##` heading that ends the phase.
    fn tasks_heading(
        &mut self,
        scope: &Scope,
        level: usize,
        text: &str,
        l: &Line<'_>,
        rest: &[Line<'_>],
        out: &mut Vec<Item>,
    ) {
        if let Some(n) = phase_number(text) {
            // A number written twice (three `## フェーズ2: …` over three stories) numbers
            // three phases: the later ones are `phase-2-2`, `phase-2-3`, no duplicate id.
            let taken = |l: &str| out.iter().any(|it| it.local == l);
            let mut local = format!("phase-{n}");
            let mut k = 1;
            while taken(&local) {
                k += 1;
                local = format!("phase-{n}-{k}");
            }
            self.phase = Some(local.clone());
            out.push(phase(local, text, l.no, story_refs(text, l.no)));
            return;
        }
        if level <= 2 {
            self.phase = None;
        }
        if let Some(task) = heading_task(scope, level, text, l, rest, self.phase.clone()) {
            self.heads.push(out.len());
            out.push(task);
        }
    }

    fn list_item(&mut self, scope: &Scope, l: &Line<'_>, rest: &[Line<'_>]) -> Option<Item> {
        let (marker_end, ordered) = list_marker(l.text)?;
        while self.stack.last().is_some_and(|(ind, _)| *ind >= l.indent) {
            self.stack.pop();
        }
        let after = l.text[marker_end..].trim_start();
        let text = item_text(l, rest);
        if let Some((state, body)) = checkbox(after) {
            let optional = after.as_bytes().get(3) == Some(&b'*');
            return self.task(scope, l, state, body, text).map(|it| Item { optional, ..it });
        }
        // Spec Kit's numbered form: `1.  **T018**: [x] Create …`.
        if ordered && let Some((id, tail)) = task_id(after) {
            let tail = tail.trim_start_matches([':', ' ']);
            if let Some((state, body)) = checkbox(tail) {
                return self.task(scope, l, state, &format!("{id} {body}"), text);
            }
        }
        self.criterion_or_requirement(scope, l, after, ordered, text)
    }

    fn task(&mut self, scope: &Scope, l: &Line<'_>, state: &'static str, body: &str, text: String) -> Option<Item> {
        let parent_task = self.stack.last().map(|(_, id)| id.clone());
        let counted = |id: &str| scope.format == Format::Kiro && kiro::a_count(body, id);
        let (local, r#type, title) = match task_id(body).filter(|(id, _)| !counted(id)) {
            Some((id, tail)) => {
                let kind = if id.starts_with("CHK") { "Check" } else { "Task" };
                (id.trim_end_matches('.').to_string(), kind, tail)
            }
            None if scope.format == Format::BmadStory && self.tasks_list.open() => {
                let parent = parent_task.as_ref().or(self.phase.as_ref());
                let (id, title) = bmad::box_id(&mut self.ordinal, parent.map(String::as_str), body);
                (id, "Task", title)
            }
            None => return None,
        };
        // A Kiro/BMAD number is only an id in a tasks file or a story's task list.
        if r#type == "Task"
            && local.starts_with(|c: char| c.is_ascii_digit())
            && !tasks_file(scope, self.tasks_list.open())
        {
            return None;
        }
        let parent = match scope.format {
            Format::Kiro => local.rsplit_once('.').map(|(p, _)| p.to_string()).or(parent_task),
            _ => parent_task.or_else(|| self.phase.clone()),
        };
        let (title, parallel) = clean_title(title);
        let refs = cites(scope, &text, l.no);
        self.stack.push((l.indent, local.clone()));
        // An unfinished task whose line says BLOCKED in capitals (`- [~] T021 … - BLOCKED:
        // hadolint not installed`) is blocked, not under way or ready.
        let blocked = state != "done" && title.split(|c: char| !c.is_ascii_alphabetic()).any(|w| w == "BLOCKED");
        let state = if blocked { "blocked" } else { state };
        Some(Item {
            local,
            r#type,
            state: Some(state),
            title,
            line: l.no,
            text,
            parent,
            refs,
            priority: None,
            parallel,
            optional: false,
        })
    }

    /// Kiro acceptance criteria (`1. WHEN …` under `### Requirement 1`), BMAD's numbered
    /// acceptance criteria, and Spec Kit's `- **FR-001**: …` lines.
    fn criterion_or_requirement(
        &mut self,
        scope: &Scope,
        l: &Line<'_>,
        after: &str,
        ordered: bool,
        text: String,
    ) -> Option<Item> {
        let in_criteria = self.criteria_list.open();
        match scope.format {
            // `- 1.2 Replace the fetch calls` under `### 1. Intents`: numbered as written.
            Format::Kiro if !ordered && l.indent == 0 => {
                let req = self.requirement.clone()?.0;
                let k = kiro::criterion_number(after, &req)?;
                let title = after[req.len() + 1 + k.len()..].trim_start();
                Some(leaf(
                    format!("R{req}.{k}"),
                    "Criterion",
                    title,
                    l.no,
                    text,
                    Some(format!("R{req}")),
                ))
            }
            Format::Kiro if ordered && l.indent == 0 => {
                let req = self.requirement.clone()?.0;
                self.criteria += 1;
                Some(leaf(
                    format!("R{req}.{}", self.criteria),
                    "Criterion",
                    after,
                    l.no,
                    text,
                    Some(format!("R{req}")),
                ))
            }
            Format::BmadStory if ordered && in_criteria && l.indent == 0 => {
                self.criteria += 1;
                Some(leaf(
                    format!("AC{}", self.criteria),
                    "Criterion",
                    after,
                    l.no,
                    text,
                    None,
                ))
            }
            // Only the spec declares its requirements and success criteria: a plan, a
            // checklist or research notes that open a bullet with `SC-001` restate or
            // discuss it (a second declaration would be a false duplicate id).
            Format::SpecKit if scope.is_feature_file() => {
                let plain = after.trim_start_matches('*');
                let (id, tail) = requirement_id(plain)?;
                // A later bullet opening with a declared id, not written as a declaration
                // (`- **FR-001**:`), mentions it: a change summary's `- NFR-001 tightened`.
                let declared = after.starts_with("**") && tail.trim_start_matches('*').starts_with(':');
                if !declared && self.declared.contains(id) {
                    return None;
                }
                self.declared.insert(id.to_string());
                let r#type = if id.starts_with("SC") {
                    "Criterion"
                } else {
                    "Requirement"
                };
                let tail = tail.trim_start_matches(['*', ':', ' ']);
                Some(leaf(id.to_string(), r#type, tail, l.no, text, None))
            }
            _ => None,
        }
    }
}

/// A phase: the heading `text` on `line` as the item `local`, under the file; the order
/// rules roll its state up from its tasks.
fn phase(local: String, text: &str, line: u32, refs: Vec<ItemRef>) -> Item {
    Item {
        local,
        r#type: crate::model::backlog::PHASE,
        state: None,
        title: text.to_string(),
        line,
        text: String::new(),
        parent: None,
        refs,
        priority: priority(text),
        parallel: false,
        optional: false,
    }
}

fn leaf(local: String, r#type: &'static str, title: &str, line: u32, text: String, parent: Option<String>) -> Item {
    Item {
        local,
        r#type,
        state: None,
        title: clean_title(title).0,
        line,
        text,
        parent,
        refs: Vec::new(),
        priority: None,
        parallel: false,
        optional: false,
    }
}

/// True where a bare number is a task id: a tasks file, a story's task list (`in_tasks`).
fn tasks_file(scope: &Scope, in_tasks: bool) -> bool {
    match scope.format {
        // Spec Kit's tasks have a `T` id; a numbered box in its files is a plain list.
        Format::Kiro => scope.file == "tasks",
        Format::SpecKit => false,
        Format::BmadStory => in_tasks,
        Format::BmadEpic | Format::OpenSpec(_) => false,
    }
}

/// A Kiro requirement's title: the heading's words after its number, or (`### Requirement
/// 8` alone, as many write it) its user story, or the heading itself.
fn requirement_title(heading: &str, n: &str, body: &str) -> String {
    let own = strip_number_lead(heading, "requirement", n);
    if !own.is_empty() {
        return own;
    }
    let story = body.lines().find_map(|line| {
        let t = line.trim().trim_start_matches(['*', '_']);
        let rest = t
            .strip_prefix("User Story:")
            .or_else(|| t.strip_prefix("User story:"))?;
        let rest = rest.trim_start_matches(['*', '_']).trim();
        // "As a player, I want X, so that Y": the want is the title.
        let rest = rest.split_once(", so that").map_or(rest, |(want, _)| want);
        (!rest.is_empty()).then(|| clean_title(rest).0)
    });
    story.unwrap_or_else(|| heading.trim().to_string())
}

/// The item's line and the more indented lines under it (blank lines inside kept), up to
/// the next list item at its indentation or less, or a heading.
fn item_text(l: &Line<'_>, rest: &[Line<'_>]) -> String {
    let mut out = vec![l.text.to_string()];
    let mut pending = 0;
    for r in rest {
        if r.text.is_empty() {
            pending += 1;
            continue;
        }
        if r.indent > l.indent && (r.in_fence || !is_box_line(r.text)) {
            out.extend(std::iter::repeat_n(String::new(), pending));
            pending = 0;
            out.push(format!(
                "{}{}",
                " ".repeat(r.indent.saturating_sub(l.indent + 2)),
                r.text
            ));
            continue;
        }
        break;
    }
    out.join("\n")
}

/// A list line with a checkbox (a nested task, not part of its parent's text).
fn is_box_line(text: &str) -> bool {
    list_marker(text).is_some_and(|(end, _)| checkbox(text[end..].trim_start()).is_some())
}

/// The lines under a heading of `level` up to the next heading of its level or above.
fn section_lines<'l, 'a>(level: usize, rest: &'l [Line<'a>]) -> &'l [Line<'a>] {
    let end = rest
        .iter()
        .position(|r| !r.in_fence && heading(r.text).is_some_and(|(lv, _)| lv <= level))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The text under a heading up to the next heading of its level or above.
fn section_body(level: usize, l: &Line<'_>, rest: &[Line<'_>]) -> String {
    let mut out = vec![l.text.to_string()];
    for r in section_lines(level, rest) {
        out.push(format!("{}{}", " ".repeat(r.indent), r.text));
    }
    while out.last().is_some_and(|s| s.trim().is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// A Spec Kit task written as a heading below the title (`### T001: Create the project`,
/// `### T001 - …`, `### T001 …`), its outputs as boxes under it (evolution-of-todo's
/// `005-cloud-deployment`): its text is its section (to the next heading of its level or
/// above), and it cites what a box task's text cites (`**Preconditions**: T001 complete`
/// among them). Its state is rolled up from its outputs, the boxes in its section that are
/// no items of their own (a box with a task id is a task as ever, under the phase); with
/// none, a `**Status**:` line's; else none: a heading with nothing that says its state is
/// no work, as BMAD's `### Task N:` over a plain list.
fn heading_task(
    scope: &Scope,
    level: usize,
    text: &str,
    l: &Line<'_>,
    rest: &[Line<'_>],
    parent: Option<String>,
) -> Option<Item> {
    let spec_kit_id = |id: &str| {
        id.strip_prefix('T')
            .is_some_and(|d| d.starts_with(|c: char| c.is_ascii_digit()))
    };
    let (id, tail) = task_id(text).filter(|(id, _)| level >= 2 && spec_kit_id(id))?;
    let body = section_body(level, l, rest);
    let (title, parallel) = clean_title(tail.trim_start_matches([' ', '-', ':', '—', '–']));
    let outputs: Vec<&str> = section_lines(level, rest).iter().filter_map(output_box).collect();
    let state = roll(&outputs).or_else(|| status_line(&body, l.no));
    Some(Item {
        local: id.to_string(),
        r#type: "Task",
        state,
        title,
        line: l.no,
        refs: cites(scope, &body, l.no),
        priority: body.lines().find_map(|line| priority(&line.replace("**", ""))),
        text: body,
        parent,
        parallel,
        optional: false,
    })
}

/// The state of a box line that is no item of its own, having no task or check id
/// (`- [x] api/main.py written`, `- [ ] 3 brokers running`).
fn output_box(l: &Line<'_>) -> Option<&'static str> {
    let (end, _) = list_marker(l.text).filter(|_| !l.in_fence)?;
    let (state, body) = checkbox(l.text[end..].trim_start())?;
    let item = task_id(body).is_some_and(|(id, _)| id.starts_with(|c: char| c.is_ascii_uppercase()));
    (!item).then_some(state)
}

/// The state of work made of parts in `states`: done when all are, open when none is
/// started or done, else in progress; none without parts.
pub(super) fn roll(states: &[&str]) -> Option<&'static str> {
    let done = states.iter().filter(|s| **s == "done").count();
    Some(match (done, states.len()) {
        (_, 0) => return None,
        (d, n) if d == n => "done",
        (0, _) if !states.contains(&"in progress") => "open",
        _ => "in progress",
    })
}

/// The state a `**Status**: Done` line (or a status table row) in `text`, starting at
/// `line`, states: as the body of a document says one (`status::read`), named by its
/// group as boxes name theirs. Only the states every backlog uses are read: an item, as
/// its file, is a function of the file's bytes, not of the configured states.
fn status_line(text: &str, line: u32) -> Option<&'static str> {
    let section = Section {
        heading: String::new(),
        level: 0,
        line,
        text_line: line,
        text: text.to_string(),
        tokens: 0,
    };
    let state = status::read(std::slice::from_ref(&section), &[])?.state?;
    Some(match Group::builtin(&fold_state(&state))? {
        Group::Open => "open",
        Group::InProgress => "in progress",
        Group::Blocked => "blocked",
        Group::Done => "done",
        Group::Dropped => "dropped",
    })
}

mod bmad;
pub(super) mod cites;
mod kiro;
pub(super) mod openspec;
mod syntax;

use cites::*;
use syntax::*;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod variants;
