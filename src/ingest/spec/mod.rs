//! Spec folders, the backlogs coding agents write (GitHub Spec Kit `specs/NNN-feature/`,
//! Kiro `.kiro/specs/<feature>/`, BMAD stories `docs/stories/N.M.*.md` and v6's
//! `N-M-slug.md`): where a file sits in one,
//! the id and type its folder gives it, and the items written inside it (`items.rs`:
//! checkbox tasks, phases, user stories, requirements and acceptance criteria).
//!
//! Everything here depends on the file's path and text only, so a file's parse stays a
//! function of its bytes: the feature a file belongs to is its folder's name, and a
//! reference to a sibling (a task's user story in `spec.md`) is an id resolved later.

mod items;
mod openspec;
mod order;
mod shape;

pub use items::Item;

/// The items of a file in `scope` whose body starts at `first_line`, with its format's
/// order.
pub fn items(scope: &Scope, body: &str, first_line: u32) -> Vec<Item> {
    let mut out = items::scan(scope, body, first_line);
    order::order_rules(scope, &mut out);
    out
}
pub use openspec::SOFT_KEY;
pub use shape::{STRUCTURE_KEY, shape_file};

/// Which spec-folder convention a file follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// GitHub Spec Kit: `specs/NNN-feature/{spec,plan,tasks,research,…}.md`.
    SpecKit,
    /// Kiro: `.kiro/specs/<feature>/{requirements,design,tasks}.md`.
    Kiro,
    /// A BMAD story: `docs/stories/N.M.<name>.md`, or v6's `N-M-<slug>.md` in
    /// `docs/stories/`, `docs/sprint-artifacts/` or
    /// `_bmad-output/implementation-artifacts/` (its scope is the story number, `N.M`).
    BmadStory,
    /// A BMAD epic: `docs/prd/epic-N-….md` or `docs/epics/epic-N….md`.
    BmadEpic,
    /// OpenSpec: a change `openspec/changes/<id>/` (archived under
    /// `changes/archive/YYYY-MM-DD-<id>/`) or a capability `openspec/specs/<capability>/`.
    OpenSpec(openspec::Part),
}

/// Where a file sits in a spec folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The convention.
    pub format: Format,
    /// The scope of the ids written inside: the feature folder's name (`003-ai-chatbot`),
    /// a story's number (`2.1`), an epic's id (`epic-2`).
    pub name: String,
    /// The file's path inside the feature folder without `.md` (`tasks`,
    /// `checklists/requirements`); the file name for BMAD.
    pub file: String,
}

impl Scope {
    /// The id a scoped name gets: `003-ai-chatbot/T012`.
    pub fn id(&self, local: &str) -> String {
        format!("{}/{local}", self.name)
    }

    /// The id of the file's own document, when its folder decides it: a feature's spec
    /// (Spec Kit `spec.md`, Kiro `requirements.md`) is the feature itself; its other files
    /// are `feature/file`; a BMAD story is its number, an epic `epic-N`.
    pub fn doc_id(&self) -> String {
        match self.format {
            Format::SpecKit | Format::Kiro | Format::OpenSpec(_) if self.is_feature_file() => self.name.clone(),
            Format::OpenSpec(_) => openspec::doc_id(self),
            Format::SpecKit | Format::Kiro => self.id(&self.file),
            Format::BmadStory | Format::BmadEpic => self.name.clone(),
        }
    }

    /// True for the file that stands for the feature.
    pub fn is_feature_file(&self) -> bool {
        match self.format {
            Format::SpecKit => self.file == "spec",
            Format::Kiro => self.file == "requirements",
            Format::BmadStory | Format::BmadEpic => true,
            Format::OpenSpec(part) => self.file == part.feature_file(),
        }
    }

    /// The work-item type of the file's own document, when it has one.
    pub fn doc_type(&self) -> Option<&'static str> {
        match self.format {
            Format::SpecKit | Format::Kiro if self.is_feature_file() => Some("Feature"),
            Format::SpecKit | Format::Kiro => None,
            Format::BmadStory => Some("UserStory"),
            Format::BmadEpic => Some("Epic"),
            Format::OpenSpec(part) => part.doc_type().filter(|_| self.is_feature_file()),
        }
    }

    /// The parent the file's document hangs under: a feature's other files under the
    /// feature, a story under its epic (`2.1` → `epic-2`).
    pub fn doc_parent(&self) -> Option<String> {
        match self.format {
            Format::SpecKit | Format::Kiro if !self.is_feature_file() => Some(self.name.clone()),
            Format::BmadStory => {
                let epic = self.name.split('.').next()?;
                Some(format!("epic-{epic}"))
            }
            _ => None,
        }
    }
}

/// The spec folders among root-relative paths: features per convention (Spec Kit, Kiro,
/// BMAD stories) and Spec Kit Plus prompt records, for `init` to say what it found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Census {
    /// Spec Kit feature folders.
    pub speckit: usize,
    /// Kiro feature folders.
    pub kiro: usize,
    /// BMAD story files.
    pub bmad: usize,
    /// Spec Kit Plus prompt records.
    pub prompts: usize,
    /// OpenSpec ([`openspec::Census`]).
    pub openspec: openspec::Census,
    /// BMAD story files in an archive folder (`stories/archive/`), read as documents.
    pub archived: usize,
}

impl Census {
    /// Count the spec folders of `paths`.
    pub fn of<'a>(paths: impl IntoIterator<Item = &'a str>) -> Census {
        let mut speckit = std::collections::BTreeSet::new();
        // Kiro's feature folders by path, with their names.
        let mut kiro = std::collections::BTreeMap::new();
        let mut c = Census::default();
        for p in paths {
            c.openspec.add(p);
            c.prompts += usize::from(is_prompt_record(p));
            c.archived += usize::from(is_archived_story(p));
            match scope_of(p) {
                Some(s) if s.format == Format::BmadStory => c.bmad += 1,
                Some(s) if s.format == Format::SpecKit => {
                    speckit.insert(s.name);
                }
                Some(s) if s.format == Format::Kiro => {
                    let folder = p.rsplit_once('/').map_or("", |(f, _)| f);
                    kiro.insert(format!("{folder}/"), s.name);
                }
                _ => {}
            }
        }
        // A folder that holds feature folders groups them (`finished/`), whatever files
        // of its own it has (a README); features of one name are one scope.
        let features: std::collections::BTreeSet<&String> = kiro
            .iter()
            .filter(|(folder, _)| !kiro.keys().any(|k| k.len() > folder.len() && k.starts_with(*folder)))
            .map(|(_, name)| name)
            .collect();
        c.speckit = speckit.len();
        c.kiro = features.len();
        c
    }

    /// True when any spec folder was found.
    pub fn any(&self) -> bool {
        self.speckit + self.kiro + self.bmad > 0 || self.openspec.any()
    }
}

/// The spec folder `rel` (a root-relative path with `/`) belongs to, if any.
pub fn scope_of(rel: &str) -> Option<Scope> {
    let stem_path = rel.strip_suffix(".md").or_else(|| rel.strip_suffix(".markdown"))?;
    let parts: Vec<&str> = stem_path.split('/').collect();
    // OpenSpec's `openspec/specs/<capability>/spec.md` is no Spec Kit feature folder.
    if let Some(scope) = openspec::scope_of(&parts) {
        return scope;
    }
    // The innermost `specs/<feature>/<file…>`.
    if let Some(mut i) = parts.iter().rposition(|p| *p == "specs")
        && parts.len() >= i + 3
    {
        let kiro = i > 0 && parts[i - 1] == ".kiro";
        // An archive of features (`specs/_archived/<feature>/`) holds features; a file
        // of its own (`specs/_archived/README.md`) is in none.
        let archive = is_archive(parts[i + 1]);
        let archive_file = archive && parts.len() == i + 3;
        if kiro {
            // Kiro writes a feature's files side by side, never in subfolders: the folder
            // a file sits in is its feature, at any depth, and the folders above it group
            // features (`finished/`, `in-progress/`, `_archived/`). A feature keeps its
            // ids when it moves from one group to another.
            let feature = parts[parts.len() - 2];
            return (is_name(feature) && !archive_file).then(|| Scope {
                format: Format::Kiro,
                name: feature.to_string(),
                file: parts[parts.len() - 1].to_string(),
            });
        }
        // A folder grouping features by their state (`specs/in-progress/003-x/`) too.
        let grouped =
            parts.len() >= i + 4 && is_group(parts[i + 1]) && parts[i + 2].starts_with(|c: char| c.is_ascii_digit());
        if parts.len() >= i + 4 && (archive || grouped) {
            i += 1;
        }
        let feature = parts[i + 1];
        if is_name(feature) && !archive_file {
            return Some(Scope {
                format: Format::SpecKit,
                name: feature.to_string(),
                file: parts[i + 2..].join("/"),
            });
        }
    }
    let (folder, file) = match parts.as_slice() {
        [.., folder, file] => (*folder, *file),
        _ => return None,
    };
    // Stories may sit in a subfolder of their folder (`stories/completed/`); an archive
    // of them (`stories/archive/`) is history, whose numbers a later set reuses: its
    // files are documents, not the stories of those numbers.
    let in_stories = parts[..parts.len() - 1].iter().any(|p| STORY_DIRS.contains(p));
    let archived = parts[..parts.len() - 1].iter().any(|p| is_old(p));
    if in_stories
        && !archived
        && let Some(n) = story_number(file)
    {
        return Some(Scope {
            format: Format::BmadStory,
            name: n,
            file: file.to_string(),
        });
    }
    if matches!(folder, "prd" | "epics")
        && let Some(n) = epic_number(file)
    {
        return Some(Scope {
            format: Format::BmadEpic,
            name: format!("epic-{n}"),
            file: file.to_string(),
        });
    }
    None
}

/// A Spec Kit Plus prompt history record (`history/prompts/<feature>/*.md`).
pub fn is_prompt_record(rel: &str) -> bool {
    rel.split('/')
        .collect::<Vec<_>>()
        .windows(2)
        .any(|w| w == ["history", "prompts"])
}

/// A BMAD story file kept in an archive folder (`docs/stories/archive/1.1.story.md`).
fn is_archived_story(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    let (dirs, file) = parts.split_at(parts.len().saturating_sub(1));
    let stem = file.first().and_then(|f| f.strip_suffix(".md")).unwrap_or("");
    dirs.iter().any(|p| STORY_DIRS.contains(p)) && dirs.iter().any(|p| is_old(p)) && story_number(stem).is_some()
}

/// A folder of history a story set no longer uses: `archive`, `_archived`, `old`.
fn is_old(name: &str) -> bool {
    let n = name.trim_start_matches('_').to_lowercase();
    matches!(
        n.as_str(),
        "archive" | "archived" | "archives" | "old" | "legacy" | "obsolete" | "deprecated"
    )
}

/// A folder that groups features by their state: `in-progress`, `active`, `planned`.
fn is_group(name: &str) -> bool {
    let n = crate::model::backlog::fold_state(name);
    matches!(
        n.as_str(),
        "inprogress"
            | "active"
            | "current"
            | "planned"
            | "backlog"
            | "todo"
            | "wip"
            | "review"
            | "drafts"
            | "draft"
            | "proposed"
            | "next"
            | "future"
            | "shipped"
            | "implemented"
            | "blocked"
            | "paused"
    )
}

/// A folder of old features: `_archived`, `archive`, `done`.
fn is_archive(name: &str) -> bool {
    let n = name.trim_start_matches('_').to_lowercase();
    name.starts_with('_') || matches!(n.as_str(), "archive" | "archived" | "done" | "completed")
}

/// A feature folder's name: no spaces, not hidden.
fn is_name(s: &str) -> bool {
    !s.is_empty() && !s.starts_with('.') && !s.contains(char::is_whitespace)
}

/// The folders BMAD keeps its stories in: v4's `docs/stories/` (v6's first alphas
/// too), v6's `sprint_artifacts` (`docs/sprint-artifacts/`) and, from v6.0,
/// `implementation_artifacts` (`_bmad-output/implementation-artifacts/`), each its
/// installer's default.
const STORY_DIRS: [&str; 3] = ["stories", "sprint-artifacts", "implementation-artifacts"];

/// A folder BMAD keeps its stories in (by its name: `stories`, `sprint-artifacts`,
/// `implementation-artifacts`): its numbered files are stories, never decision records.
pub fn is_story_folder(name: &str) -> bool {
    STORY_DIRS.contains(&name)
}

/// A story's number from its file name: v4's `2.1.story` → `2.1` (only `N.M[.K].story…`
/// and `N.M.<name>`: `4.3.1-course-correction` is none), v6's `2-1-deploy-api` → `2.1`
/// (its story key, `epic-story-slug`).
fn story_number(file: &str) -> Option<String> {
    dotted_story_number(file)
        .map(str::to_string)
        .or_else(|| dashed_story_number(file))
}

/// `2.1.story` → `2.1`, `5.1A.story` → `5.1A`, `4.3.1-course-correction` → none.
fn dotted_story_number(file: &str) -> Option<&str> {
    let mut end = file
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(file.len());
    // A letter may follow the number: `5.1A.story`.
    if file[end..].starts_with(|c: char| c.is_ascii_alphabetic()) && file[end + 1..].starts_with('.') {
        end += 1;
    }
    let num = file[..end].trim_end_matches('.');
    let rest = &file[end..];
    let dotted = num.split('.').count() >= 2 && num.split('.').all(|p| !p.is_empty());
    (dotted && (rest.is_empty() || file[num.len()..].starts_with('.')) && !is_side_file(rest)).then_some(num)
}

/// v6's story key: `1-2-deploy-api` (or `1-2`) → `1.2`. Numbers of one to three digits,
/// so that a dated note (`2025-01-15-retro`) is none.
fn dashed_story_number(file: &str) -> Option<String> {
    let mut parts = file.splitn(3, '-');
    let (epic, story) = (parts.next()?, parts.next()?);
    let number = |p: &str| (1..=3).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_digit());
    (number(epic) && number(story) && parts.next().is_none_or(|slug| !slug.is_empty()))
        .then(|| format!("{epic}.{story}"))
}

/// The name after a story's number that says the file is not the story but a report on
/// it: in capitals (`7.5.AUTH_FIX`), or ending in a report's word (`2.1.qa-review`).
fn is_side_file(rest: &str) -> bool {
    let letters = || rest.chars().filter(char::is_ascii_alphabetic);
    let capitals = letters().count() > 1 && letters().all(|c| c.is_ascii_uppercase());
    capitals || ends_in_report(rest)
}

/// A name whose last word names a report: `-review`, `_summary`, `.notes`, `-retro`.
pub(crate) fn ends_in_report(name: &str) -> bool {
    let last = name.rsplit(['-', '_', '.']).next().unwrap_or("").to_lowercase();
    matches!(
        last.as_str(),
        "review" | "summary" | "report" | "notes" | "qa" | "completion" | "handoff" | "retro" | "retrospective"
    )
}

/// `epic-2-accuracy` → `2`, `epic-10` → `10`; none for a review of the epic
/// (`epic-8-review`), a document that mentions it.
fn epic_number(file: &str) -> Option<&str> {
    let rest = file.strip_prefix("epic-")?;
    let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    (end > 0 && !ends_in_report(rest)).then_some(&rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_by_path() {
        let s = scope_of("specs/003-ai-chatbot/tasks.md").unwrap();
        assert_eq!(
            (s.format, s.name.as_str(), s.file.as_str()),
            (Format::SpecKit, "003-ai-chatbot", "tasks")
        );
        assert_eq!(s.doc_id(), "003-ai-chatbot/tasks");
        assert_eq!(s.doc_parent().as_deref(), Some("003-ai-chatbot"));
        let s = scope_of("specs/003-ai-chatbot/spec.md").unwrap();
        assert_eq!((s.doc_id().as_str(), s.doc_type()), ("003-ai-chatbot", Some("Feature")));
        let s = scope_of("specs/003-x/checklists/requirements.md").unwrap();
        assert_eq!(s.doc_id(), "003-x/checklists/requirements");
        let s = scope_of(".kiro/specs/login/tasks.md").unwrap();
        assert_eq!((s.format, s.name.as_str()), (Format::Kiro, "login"));
        assert!(scope_of("specs/readme.md").is_none());
        let s = scope_of(".kiro/specs/_archived/old-ui/tasks.md").unwrap();
        assert_eq!(
            (s.format, s.name.as_str(), s.file.as_str()),
            (Format::Kiro, "old-ui", "tasks")
        );
        assert!(scope_of("specs/003/tasks.txt").is_none());
        // Features grouped by their state keep their own names.
        let s = scope_of("specs/in-progress/004-export/tasks.md").unwrap();
        assert_eq!((s.name.as_str(), s.file.as_str()), ("004-export", "tasks"));
        // SpaceWeirdos's `.kiro/specs/_archived/README.md` made `init` count 23 features
        // for 22.
        assert!(scope_of(".kiro/specs/_archived/README.md").is_none());
        assert_eq!(
            Census::of([".kiro/specs/_archived/README.md", ".kiro/specs/a/tasks.md"]).kiro,
            1
        );
        // hashpass-tech/jack groups features by state (`finished/`, `in-progress/`): each
        // was one feature per group, 4 for 7, with 104 false duplicate ids.
        for (path, feature, file) in [
            (".kiro/specs/finished/jack-sdk-core/tasks.md", "jack-sdk-core", "tasks"),
            (".kiro/specs/in-progress/pwa/requirements.md", "pwa", "requirements"),
            (".kiro/specs/a/b/c/design.md", "c", "design"),
            (
                ".kiro/specs/finished/yellow/implementation-guide.md",
                "yellow",
                "implementation-guide",
            ),
        ] {
            let s = scope_of(path).unwrap();
            assert_eq!(
                (s.format, s.name.as_str(), s.file.as_str()),
                (Format::Kiro, feature, file)
            );
        }
        assert_eq!(
            scope_of(".kiro/specs/in-progress/pwa/requirements.md")
                .unwrap()
                .doc_id(),
            "pwa"
        );
        // Features of one name in two groups are one scope: their ids are the same ids
        // (a feature moved from `in-progress/` to `finished/` keeps them).
        assert_eq!(
            scope_of(".kiro/specs/finished/pwa/tasks.md").unwrap().id("1.1"),
            scope_of(".kiro/specs/in-progress/pwa/tasks.md").unwrap().id("1.1")
        );
        let grouped = [
            ".kiro/specs/finished/a/tasks.md",
            ".kiro/specs/finished/b/requirements.md",
            ".kiro/specs/finished/README.md",
            ".kiro/specs/in-progress/c/design.md",
            ".kiro/specs/in-progress/a/tasks.md",
            ".kiro/specs/d/tasks.md",
            ".kiro/specs/d-e/notes.md",
        ];
        assert_eq!(Census::of(grouped).kiro, 5);
        let s = scope_of("docs/stories/2.1.story.md").unwrap();
        assert_eq!((s.format, s.doc_id().as_str()), (Format::BmadStory, "2.1"));
        assert_eq!(s.doc_parent().as_deref(), Some("epic-2"));
        assert_eq!(scope_of("docs/stories/4.3.1.story.md").unwrap().name, "4.3.1");
        assert!(scope_of("docs/stories/4.3.1-course-correction-request.md").is_none());
        assert!(scope_of("docs/stories/notes.md").is_none());
        assert_eq!(scope_of("docs/stories/completed/5.1A.story.md").unwrap().name, "5.1A");
        // BMAD v6 names a story by its key, `epic-story-slug` (xvanov/locatrix), in
        // `docs/stories/`, `docs/sprint-artifacts/` or `_bmad-output/implementation-artifacts/`.
        for path in [
            "docs/stories/1-2-deploy-complete-job-management-api.md",
            "docs/sprint-artifacts/1-2-deploy.md",
            "_bmad-output/implementation-artifacts/1-2-deploy.md",
            "docs/stories/1-2.md",
        ] {
            let s = scope_of(path).unwrap();
            assert_eq!((s.format, s.doc_id().as_str()), (Format::BmadStory, "1.2"), "{path}");
            assert_eq!(s.doc_parent().as_deref(), Some("epic-1"));
        }
        assert_eq!(scope_of("docs/stories/12-103-x.md").unwrap().name, "12.103");
        for path in [
            "docs/sprint-artifacts/2025-01-15-retro.md",
            "docs/sprint-artifacts/epic-1-retro-2025-01-15.md",
            "docs/sprint-artifacts/tech-spec-epic-1.md",
            "docs/sprint-artifacts/1-x-notes.md",
            "docs/stories/1-.md",
            "docs/notes/1-2-deploy.md",
        ] {
            assert!(scope_of(path).is_none(), "{path}");
        }
        let s = scope_of("docs/prd/epic-2-accuracy-context-enhancement.md").unwrap();
        assert_eq!((s.format, s.doc_id().as_str()), (Format::BmadEpic, "epic-2"));
        assert!(scope_of("docs/prd/epic-list.md").is_none());
        // An archive of stories, reports named after a story or an epic: documents.
        for path in [
            "docs/stories/archive/1.1.story.md",
            "docs/stories/_archived/2-1-deploy.md",
            "docs/stories/old/3.5.story.md",
            "docs/stories/7.5.AUTH_FIX.md",
            "docs/stories/2.1.qa-review.md",
            "docs/epics/epic-8-review.md",
        ] {
            assert!(scope_of(path).is_none(), "{path}");
        }
        assert_eq!(scope_of("docs/stories/7.5.auth-fix.md").unwrap().name, "7.5");
        let c = Census::of(["docs/stories/1.1.story.md", "docs/stories/archive/1.1.story.md"]);
        assert_eq!((c.bmad, c.archived), (1, 1));
    }
}
