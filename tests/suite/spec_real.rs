//! Real spec-folder repositories, untouched (ignored: they are not in this repository).
//! Each is copied to a temp dir, `mdgraph init` and `mdgraph index` run there, and what
//! mdgraph reports is held against a count this test makes itself from the raw Markdown by
//! plain line scanning: every checkbox line with a task id (Spec Kit `- [ ] T012 …` and
//! `1.  **T012**: [ ] …`, Kiro `- [ ] 2.1 …`, every box of a BMAD story's
//! `## Tasks / Subtasks`) is a Task item at its line with its box's state and the parent
//! the file's structure gives it, as is every task heading (Spec Kit `### T001: …`, BMAD
//! `### Task 1: …`) with the state of the boxes under it; `list`, `ready` and `tree` agree with the count (`ready`
//! lists only tasks, open or in progress; of a BMAD story, exactly the unfinished boxes
//! with no unfinished box under them, none of a story whose status is done); `check`
//! reports exactly the errors that are real defects of the repository.
//!
//! Where the repositories are: the two shared corpora by their `../shared/corpora/` path,
//! the others (and the corpora too) in the folder `MDGRAPH_SPEC_REPOS` names, one subfolder
//! per repository as `scripts/fetch_spec_repos.sh DIR` writes them. A repository found in
//! neither place is skipped, and the test says so.
//!
//! `cargo test --test suite -- --ignored spec_real --nocapture` prints each one's figures.

use crate::common::*;
use serde_json::Value;
mod openspec_count;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A real repository: its folder name, its source at a commit, where the shared corpora
/// hold it (if they do), the errors `check` must report, each real (`path:line code`), and
/// the tasks of features counted by hand (so that a form the count misses fails too).
struct Real {
    name: &'static str,
    source: &'static str,
    corpus: Option<&'static str>,
    errors: &'static [&'static str],
    tasks: &'static [(&'static str, usize)],
}

const REAL: [Real; 12] = [
    Real {
        name: "speckit-toastmasters",
        source: "danscarf/toastmasters-ai-companion@1f9f7f57849b54fe31135c25ec35daacb5a6ac02",
        corpus: Some("speckit-toastmasters"),
        errors: &[],
        tasks: &[],
    },
    Real {
        name: "evolution-of-todo",
        source: "ibrahimgem/evolution-of-todo@8a227abef2b36fcdf6d3fad7484a5a1b02858beb",
        corpus: None,
        // Two prompt records whose frontmatter is the unfilled template (`{{FILES_YAML}}` on
        // a line of its own under `files:`): not YAML, said once each, and indexed anyway.
        errors: &[
            "history/prompts/002-fullstack-web-app/0001-create-phase-ii-implementation-tasks.tasks.prompt.md:20 invalid-yaml",
            "history/prompts/002-fullstack-web-app/0002-phase-ii-implementation-complete.green.prompt.md:20 invalid-yaml",
        ],
        // 005 writes its tasks as `### T001: …` headings over boxes without ids: T001–T060.
        tasks: &[("005-cloud-deployment", 60)],
    },
    Real {
        name: "SpaceWeirdos",
        source: "RockyBoyRC/SpaceWeirdos@1666df89b89b590f4ea738d4d29a40a857da80a5",
        corpus: None,
        errors: &[
            // Four tasks written twice in one tasks.md, once ticked and once not (`- [x] 2.5
            // Write tests …` and, a few lines on, `- [ ] 2.5 Write tests …`): one id, two
            // boxes that disagree.
            ".kiro/specs/1-ui-design-system/tasks.md:57 duplicate-id",
            ".kiro/specs/1-ui-design-system/tasks.md:64 duplicate-id",
            ".kiro/specs/_archived/npm-package-upgrade-fixes/tasks.md:345 duplicate-id",
            ".kiro/specs/_archived/npm-package-upgrade-fixes/tasks.md:349 duplicate-id",
            ".kiro/specs/_archived/test-suite-remediation/tasks.md:475 duplicate-id",
            ".kiro/specs/_archived/test-suite-remediation/tasks.md:480 duplicate-id",
            ".kiro/specs/_archived/warband-ability-cost-display-bug/tasks.md:44 duplicate-id",
            ".kiro/specs/_archived/warband-ability-cost-display-bug/tasks.md:48 duplicate-id",
            // `_Requirements: 6.2, 6.4, 6.7_`, and that feature's Requirement 6 has six
            // acceptance criteria: 6.7 is none of them.
            ".kiro/specs/5-realtime-feedback-polish/tasks.md:24 dangling-reference",
            ".kiro/specs/5-realtime-feedback-polish/tasks.md:224 dangling-reference",
            // `_Requirements: All, 6.1-6.7, 7.1-7.7_`: the range names 6.7 too.
            ".kiro/specs/5-realtime-feedback-polish/tasks.md:384 dangling-reference",
        ],
        tasks: &[],
    },
    Real {
        name: "jack",
        source: "hashpass-tech/jack@eebf4aaf1a5465e99afb506909c00f4b31be196f",
        corpus: None,
        // Kiro features grouped in `finished/` and `in-progress/`; `- [ ] 1.1` under
        // `## Phase 1: …` with no `- [ ] 1.` box. Two tasks written twice, the second
        // copy indented under the first (`- [x] 5. Implement …` over `- [ ] 5. Implement
        // …`): one id, two boxes.
        errors: &[
            ".kiro/specs/uniswap-v4-prize-track-integration/tasks.md:115 duplicate-id",
            ".kiro/specs/uniswap-v4-prize-track-integration/tasks.md:116 duplicate-id",
            ".kiro/specs/uniswap-v4-prize-track-integration/tasks.md:203 duplicate-id",
            ".kiro/specs/uniswap-v4-prize-track-integration/tasks.md:204 duplicate-id",
        ],
        tasks: &[("dashboard-sdk-integration", 110)],
    },
    Real {
        name: "ferrocodex",
        // The last commit with its stories (the next one deletes `docs/stories/`).
        source: "HillviewCap/ferrocodex@099f36f9a4af102ec330dbfff605f15ced528cc7",
        corpus: None,
        // Story 1.4 has five acceptance criteria, and three of its tasks cite `(AC: 6)`.
        errors: &[
            "docs/stories/completed/1.4.story.md:191 dangling-reference",
            "docs/stories/completed/1.4.story.md:238 dangling-reference",
            "docs/stories/completed/1.4.story.md:261 dangling-reference",
        ],
        tasks: &[],
    },
    Real {
        name: "bmad-security-design-assistant",
        source: "7-central/security-design-assistant@9d2aeb9b8267c4b090fac29ef308e5b88dc9ec30",
        corpus: Some("bmad-security-design-assistant"),
        errors: &[],
        tasks: &[],
    },
    Real {
        // 36 of its 37 stories are Done, 6 of them over open boxes (228 of them were
        // `ready`); tasks cite ranges of criteria (`(AC: 1-9)`).
        name: "HarshJudge",
        source: "HuskyDanny/HarshJudge@15b9109df9baf03da5e3a019ecb9c02d5467c00b",
        corpus: None,
        errors: &[],
        tasks: &[],
    },
    Real {
        // BMAD v6: stories named by their key (`docs/stories/1-2-deploy-….md`), with
        // `Status: review` lines (`init` took the folder for 8 ADRs).
        name: "locatrix",
        source: "xvanov/locatrix@3e5e6eaeb5a7d94f3729ab74242d4e1f3444a637",
        corpus: None,
        errors: &[],
        tasks: &[],
    },
    Real {
        // OpenSpec 1.x: 3 changes in progress, 57 archived, 79 capabilities; tasks under
        // `### 1.1 …` subgroups, `## Phase A:` groups, boxes without numbers.
        name: "norish",
        source: "23492/norish@3e197bb1006de0d4674cacfb05e39f2c115b105a",
        corpus: None,
        errors: &[],
        tasks: &[("fix-mobile-bugs-and-import-reliability", 34)],
    },
    Real {
        // OpenSpec's own repository: 23 changes in progress, 83 archived, 37 capabilities.
        name: "OpenSpec",
        source: "Fission-AI/OpenSpec@f1b521dffac38ed6638689cd28b0c204b1eef0f1",
        corpus: None,
        // simplify-skill-installation modifies 16 requirements that cli-init's and
        // cli-update's specs do not have (their headers match none): OpenSpec's archive
        // of it fails, "MODIFIED failed for header … - not found".
        errors: &[
            "openspec/changes/simplify-skill-installation/specs/cli-init/spec.md:7 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-init/spec.md:23 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-init/spec.md:42 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-init/spec.md:58 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-init/spec.md:114 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-init/spec.md:129 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-init/spec.md:151 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-init/spec.md:170 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-init/spec.md:192 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-update/spec.md:7 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-update/spec.md:44 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-update/spec.md:68 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-update/spec.md:78 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-update/spec.md:132 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-update/spec.md:154 dangling-reference",
            "openspec/changes/simplify-skill-installation/specs/cli-update/spec.md:163 dangling-reference",
        ],
        tasks: &[],
    },
    Real {
        // OpenSpec 0.x and 1.x side by side (`project.md` and `config.yaml`): 7 changes in
        // progress, 19 archived, 8 capabilities; tasks and requirements written in Chinese.
        name: "Modulus",
        source: "AGIBuild/Modulus@ff4a5b4e893088997ebf328379658affd2892057",
        corpus: None,
        errors: &[],
        tasks: &[],
    },
    Real {
        // Spec Kit written with a Japanese template (`### ユーザーストーリー 1 - …
        // (優先度: P1)`, `## フェーズ 3: …`), 102 features, 48 of them under
        // `specs/archive/`; its last commit with `specs/` (the next ones move them out).
        name: "gwt",
        source: "akiojin/gwt@b752e99d385e014e9a238254dd47028989dde4ab",
        corpus: None,
        errors: GWT_ERRORS,
        tasks: &[],
    },
];

/// Where a task hangs, as the file's structure says: a line of the file (a phase heading,
/// a parent task's box), or the file's own document.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Under {
    Line(u32),
    File,
}

/// One task as the raw Markdown writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Want {
    /// The feature (Spec Kit, Kiro: its folder) or the story (BMAD: its number).
    feature: String,
    state: &'static str,
    under: Under,
}

/// The independent count of one repository: tasks by (path, line), and per feature the
/// checklist boxes (`tree` counts them as work too; a phase groups its tasks and counts
/// as none of its own).
#[derive(Default)]
struct Count {
    tasks: BTreeMap<(String, u32), Want>,
    /// The feature folders (Spec Kit, Kiro) and story files (BMAD) `init` should name.
    census: [BTreeSet<String>; 3],
    /// Per feature: (done, total) of `CHK` boxes.
    other: BTreeMap<String, (usize, usize)>,
    /// The BMAD stories whose status is done or dropped.
    finished: BTreeSet<String>,
    /// OpenSpec's changes and capabilities, and the tasks `ready` offers of them.
    openspec: openspec_count::Census,
    files: usize,
}

impl Count {
    fn open(&self) -> usize {
        self.tasks.values().filter(|w| w.state == "open").count()
    }
    fn done(&self) -> usize {
        self.tasks.values().filter(|w| w.state == "done").count()
    }
}

/// The state a box writes: `[ ]` open, `[x]`/`[X]` done, `[-]`/`[~]` in progress.
fn box_state(c: u8) -> Option<&'static str> {
    match c {
        b' ' => Some("open"),
        b'x' | b'X' => Some("done"),
        b'-' | b'~' => Some("in progress"),
        _ => None,
    }
}

/// A bullet line's indentation and the text after `- `/`* `/`+ ` or `1. `/`1) `.
fn bullet(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start();
    let indent = line.len() - t.len();
    if let Some(rest) = t.strip_prefix("- ").or(t.strip_prefix("* ")).or(t.strip_prefix("+ ")) {
        return Some((indent, rest.trim_start()));
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = t.get(digits..)?;
    (digits > 0)
        .then(|| rest.strip_prefix(". ").or(rest.strip_prefix(") ")))
        .flatten()
        .map(|r| (indent, r.trim_start()))
}

/// `[x] rest` → ("done", rest); Kiro's optional `[ ]*` too.
fn checkbox(s: &str) -> Option<(&'static str, &str)> {
    let b = s.as_bytes();
    if b.len() < 3 || b[0] != b'[' || b[2] != b']' {
        return None;
    }
    let rest = &s[3..];
    let rest = rest.strip_prefix('*').unwrap_or(rest);
    (rest.is_empty() || rest.starts_with(' ')).then_some(())?;
    Some((box_state(b[1])?, rest.trim_start()))
}

/// `## Phase 3: …` → (2, "Phase 3: …").
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    let rest = line.get(level..)?;
    ((1..=6).contains(&level) && rest.starts_with(' ')).then(|| (level, rest.trim()))
}

/// The first word of `s` if it is `T` and digits (`T012`, `T006a`), emphasis aside.
fn t_id(s: &str) -> Option<&str> {
    let s = s.trim_start_matches("**");
    let word = s.split([' ', ':', '*']).next()?;
    let digits = word.strip_prefix('T')?;
    let digits = digits.strip_suffix(|c: char| c.is_ascii_lowercase()).unwrap_or(digits);
    (digits.len() >= 2 && digits.bytes().all(|c| c.is_ascii_digit())).then_some(word)
}

/// A Spec Kit task line: `- [x] T001 …` or `1.  **T018**: [x] …` → its state and id.
fn speckit_task(rest: &str) -> Option<(&'static str, &str)> {
    if let Some((state, body)) = checkbox(rest) {
        return t_id(body).map(|id| (state, id));
    }
    let id = t_id(rest)?;
    let after = rest.trim_start_matches("**")[id.len()..].trim_start_matches(['*', ':', ' ']);
    checkbox(after).map(|(s, _)| (s, id))
}

/// A Kiro task line: `- [ ] 2.1 …`, `- [x] 3. …`, `- [ ]* 2.2 …` → (state, id); a
/// number without a dot (`- [x] 4 cards …`) is a count, no id.
fn kiro_task(rest: &str) -> Option<(&'static str, String)> {
    let (state, body) = checkbox(rest)?;
    let written = body.split(' ').next()?;
    let word = written.trim_end_matches('.');
    let ok = !word.is_empty()
        && written.contains('.')
        && word.split('.').all(|p| {
            let p = p.strip_suffix(|c: char| c.is_ascii_lowercase()).unwrap_or(p);
            !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit())
        });
    (ok && body.len() > word.len() + 1).then(|| (state, word.to_string()))
}

/// A Kiro task written as a heading: `### - [x] 1. …` (its box's state), `### Task
/// PWA-1: …`, `## Task 1: …`, `### ✅ Tarea 1.1: …` → (own state, id).
fn kiro_heading_task(h: &str) -> Option<(Option<&'static str>, String)> {
    if let Some((_, rest)) = bullet(h) {
        return kiro_task(rest).map(|(s, id)| (Some(s), id));
    }
    let t = h.trim_start_matches(|c: char| !c.is_alphanumeric());
    let rest = t.strip_prefix("Task ").or_else(|| t.strip_prefix("Tarea "))?;
    let id = rest.split([':', ' ']).next()?.trim_end_matches('.');
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit());
    let numbered = id.split('.').all(digits);
    let named = id
        .split_once('-')
        .is_some_and(|(a, b)| !a.is_empty() && a.bytes().all(|c| c.is_ascii_alphanumeric()) && digits(b));
    (numbered || named).then(|| (None, id.to_string()))
}

/// Lines outside fenced code, numbered from 1.
fn unfenced(text: &str) -> Vec<(u32, &str)> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| t.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m && t.trim_end() == m => fence = None,
            (None, None) => out.push((i as u32 + 1, line)),
            _ => {}
        }
    }
    out
}

/// Which convention a root-relative path follows, and its feature (or story).
enum Kind {
    SpecKit(String),
    Kiro(String),
    Bmad(String),
}

fn kind_of(rel: &str) -> Option<Kind> {
    let parts: Vec<&str> = rel.split('/').collect();
    let file = *parts.last()?;
    if let Some(i) = parts.iter().rposition(|p| *p == "specs") {
        let mut rest = &parts[i + 1..];
        let kiro = i > 0 && parts[i - 1] == ".kiro";
        if rest.len() >= 3 && (rest[0].starts_with('_') || rest[0] == "archive") {
            rest = &rest[1..];
        }
        return match (kiro, rest) {
            // Folders above a Kiro feature group features (`finished/`, `in-progress/`).
            (true, [.., feature, "tasks.md"]) => Some(Kind::Kiro(feature.to_string())),
            (false, [feature, _, ..]) => Some(Kind::SpecKit(feature.to_string())),
            _ => None,
        };
    }
    // A BMAD story: `docs/stories/2.1.story.md`, `4.3.1.story.md`; v6's
    // `1-2-deploy-api.md`, also in `sprint-artifacts/` and `implementation-artifacts/`.
    let dir = parts.len() >= 2
        && parts[..parts.len() - 1]
            .iter()
            .any(|p| ["stories", "sprint-artifacts", "implementation-artifacts"].contains(p));
    let key: Vec<&str> = file.trim_end_matches(".md").splitn(3, '-').collect();
    let number = |p: &str| (1..=3).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_digit());
    if dir && file.ends_with(".md") && key.len() >= 2 && number(key[0]) && number(key[1]) {
        return Some(Kind::Bmad(format!("{}.{}", key[0], key[1])));
    }
    // The last number may carry a letter: `5.1A.story.md`.
    let num: Vec<&str> = file
        .split('.')
        .take_while(|p| {
            let p = p.strip_suffix(|c: char| c.is_ascii_uppercase()).unwrap_or(p);
            !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit())
        })
        .collect();
    (dir && num.len() >= 2 && file.ends_with(".story.md")).then(|| Kind::Bmad(num.join(".")))
}

/// Count the tasks of one file.
fn count_file(rel: &str, text: &str, count: &mut Count) {
    if openspec_count::count_file(rel, text, count) {
        return;
    }
    let Some(kind) = kind_of(rel) else { return };
    let lines = unfenced(text);
    let mut put = |feature: &str, line: u32, state, under| {
        let want = Want {
            feature: feature.to_string(),
            state,
            under,
        };
        count.tasks.insert((rel.to_string(), line), want);
    };
    match kind {
        Kind::SpecKit(feature) => {
            let (done, total) = count_speckit(&feature, rel.ends_with("/tasks.md"), lines, &mut put);
            let e = count.other.entry(feature).or_default();
            e.0 += done;
            e.1 += total;
        }
        Kind::Kiro(feature) => count_kiro(&feature, lines, &mut put),
        Kind::Bmad(story) => {
            if story_finished(&lines) {
                count.finished.insert(story.clone());
            }
            count_story(&story, lines, &mut put)
        }
    }
}

/// A Kiro file's tasks. `2.1` hangs under `2` (the first box with the id its number's
/// prefix names, the nearest such number up: `2.1.1` under `2` when no `2.1` is written);
/// a number without a dot under the box it is indented under, else the file. A dotted
/// number whose prefixes have no box hangs under the heading above it, below the title (a
/// phase), else the file.
fn count_kiro(feature: &str, lines: Vec<(u32, &str)>, put: &mut impl FnMut(&str, u32, &'static str, Under)) {
    // (line, indent, state, id, the heading above: line and level)
    let mut boxes = Vec::new();
    let mut head: Option<(u32, usize)> = None;
    // Tasks written as headings: (index into boxes, level, own box state, the states of
    // the boxes without ids in their section).
    let mut heads: Vec<(usize, usize, Option<&'static str>, Vec<&'static str>)> = Vec::new();
    let mut open_head: Option<usize> = None;
    for (no, line) in lines {
        if let Some((level, h)) = heading(line) {
            if open_head.is_some_and(|i| level <= heads[i].1) {
                open_head = None;
            }
            if let Some((own, id)) = kiro_heading_task(h).filter(|_| level >= 2) {
                open_head = Some(heads.len());
                heads.push((boxes.len(), level, own, Vec::new()));
                boxes.push((no, 0, "-", id, head));
            } else {
                head = Some((no, level));
            }
            continue;
        }
        let Some((indent, rest)) = bullet(line) else { continue };
        let Some((state, id)) = kiro_task(rest) else {
            if let (Some(i), Some((state, _))) = (open_head, checkbox(rest)) {
                heads[i].3.push(state);
            }
            continue;
        };
        boxes.push((no, indent, state, id, head));
    }
    // A heading's state: its own box's, else its outputs' rolled up, else its sub-tasks'.
    for (at, _, own, outputs) in &heads {
        let states: Vec<&str> = if let Some(s) = own {
            vec![*s]
        } else if outputs.is_empty() {
            let id = &boxes[*at].3;
            boxes
                .iter()
                .filter(|b| b.3.rsplit_once('.').is_some_and(|(p, _)| p == id))
                .map(|b| b.2)
                .collect()
        } else {
            outputs.clone()
        };
        let done = states.iter().filter(|s| **s == "done").count();
        boxes[*at].2 = match (done, states.len()) {
            (_, 0) => "-",
            (d, n) if d == n => "done",
            (0, _) if !states.contains(&"in progress") => "open",
            _ => "in progress",
        };
    }
    let mut first: BTreeMap<&str, u32> = BTreeMap::new();
    for (no, _, _, id, _) in &boxes {
        first.entry(id.as_str()).or_insert(*no);
    }
    let mut stack: Vec<(usize, u32)> = Vec::new();
    for (no, indent, state, id, head) in &boxes {
        stack.retain(|&(i, _)| i < *indent);
        let mut up = id.rsplit_once('.').map(|(p, _)| p);
        while let Some(p) = up.filter(|p| !first.contains_key(p)) {
            up = p.rsplit_once('.').map(|(q, _)| q);
        }
        let under = match (up, id.contains('.'), stack.last(), head) {
            (Some(p), ..) => Under::Line(first[p]),
            (None, false, Some(&(_, l)), _) => Under::Line(l),
            (None, true, _, Some((h, level))) if *level >= 2 => Under::Line(*h),
            _ => Under::File,
        };
        stack.push((*indent, *no));
        put(feature, *no, state, under);
    }
}

/// A BMAD story's status says it is finished: a `Status:` line under its title or the
/// heading after it (`Status: done`, a `## Story Information` list's `- **Status:** Done`), else the first line under `## Status`
/// (`✅ **COMPLETED** (August 2024)`), whose first word is done, complete(d), closed or
/// dropped.
fn story_finished(lines: &[(u32, &str)]) -> bool {
    let mut headings = 0;
    let mut status: Option<String> = None;
    for (i, (_, line)) in lines.iter().enumerate() {
        let t = line.trim().replace("**", "");
        if let Some((level, h)) = heading(line.trim()) {
            headings += 1;
            if level <= 3 && h.eq_ignore_ascii_case("status") && status.is_none() {
                status = lines[i + 1..]
                    .iter()
                    .map(|(_, l)| l.trim())
                    .find(|l| !l.is_empty())
                    .map(str::to_string);
                break;
            }
            continue;
        }
        let t = t.trim_start_matches(['-', '*', ' ']);
        if headings <= 2
            && let Some(v) = t.strip_prefix("Status:").or(t.strip_prefix("status:"))
        {
            status = Some(v.to_string());
            break;
        }
    }
    let Some(status) = status else { return false };
    let word: String = status
        .trim_start_matches(|c: char| !c.is_alphabetic())
        .chars()
        .take_while(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect();
    ["done", "complete", "completed", "closed", "dropped", "cancelled"].contains(&word.as_str())
}

/// A task written as a heading, as the count sees it: its line, level and phase (an index
/// into the phases), its id, and the states of its output boxes.
struct Head<'a> {
    no: u32,
    level: usize,
    phase: Option<usize>,
    id: &'a str,
    boxes: Vec<&'static str>,
}

/// A Spec Kit file's tasks (`tasks` when it is a `tasks.md`), and the (done, total) of its
/// `CHK` boxes. Box tasks hang under the `Phase N` heading above
/// them, until a `##` heading that is no phase; a task indented under another task hangs
/// under it. In a `tasks.md`, a heading below the title whose first word is a task id
/// (`### T001: …`, `### T001 - …`) is a task of its phase, down to the next heading of its
/// level or above: done when all the boxes in it that carry no id are ticked, open when
/// none is, else in progress; no state without such boxes (none of the repositories writes
/// a status line under one); none when a box task of the file has its id.
fn count_speckit<'a>(
    feature: &str,
    tasks: bool,
    lines: Vec<(u32, &'a str)>,
    put: &mut impl FnMut(&str, u32, &'static str, Under),
) -> (usize, usize) {
    let mut phase: Option<u32> = None;
    let mut stack: Vec<(usize, u32)> = Vec::new();
    // The phase headings' lines.
    let mut phases: Vec<u32> = Vec::new();
    let mut heads: Vec<Head<'a>> = Vec::new();
    let mut open_head: Option<usize> = None;
    let mut boxed: BTreeSet<&'a str> = BTreeSet::new();
    let mut checks = (0, 0);
    for (no, line) in lines {
        if let Some((level, h)) = heading(line) {
            stack.clear();
            if open_head.is_some_and(|i| level <= heads[i].level) {
                open_head = None;
            }
            let lower = h.to_lowercase();
            // `Phase 3: …`, as the Japanese template writes it `フェーズ 3: …`; a heading
            // that reports on a phase (`Phase 3 completion`) is none.
            let numbered = ["phase ", "フェーズ"]
                .iter()
                .find_map(|p| lower.strip_prefix(p))
                .map(str::trim_start)
                .is_some_and(|r| {
                    let after = r.trim_start_matches(|c: char| c.is_ascii_alphanumeric()).trim_start();
                    let next = after.split(|c: char| !c.is_alphabetic()).next().unwrap_or("");
                    r.starts_with(|c: char| c.is_ascii_digit()) && !["completion", "prep"].contains(&next)
                });
            if numbered && tasks {
                phase = Some(no);
                phases.push(no);
                continue;
            } else if level <= 2 {
                phase = None;
            }
            if let Some(id) = t_id(h).filter(|_| tasks && level >= 2) {
                let at = phase.map(|_| phases.len() - 1);
                open_head = Some(heads.len());
                heads.push(Head {
                    no,
                    level,
                    phase: at,
                    id,
                    boxes: Vec::new(),
                });
            }
            continue;
        }
        let Some((indent, rest)) = bullet(line) else { continue };
        stack.retain(|&(i, _)| i < indent);
        if let Some((state, body)) = checkbox(rest)
            && body.starts_with("CHK")
        {
            checks.1 += 1;
            checks.0 += usize::from(state == "done");
        }
        let Some((state, id)) = speckit_task(rest) else {
            // A box with no id under a task heading is one of its outputs.
            if let (Some(i), Some((state, body))) = (open_head, checkbox(rest))
                && !body.starts_with("CHK")
            {
                heads[i].boxes.push(state);
            }
            continue;
        };
        boxed.insert(id);
        let under = match (stack.last(), phase) {
            (Some(&(_, l)), _) => Under::Line(l),
            (None, Some(p)) => Under::Line(p),
            (None, None) => Under::File,
        };
        stack.push((indent, no));
        put(feature, no, state, under);
    }
    for h in heads.iter().filter(|h| !boxed.contains(h.id)) {
        let done = h.boxes.iter().filter(|s| **s == "done").count();
        let state = match (done, h.boxes.len()) {
            (_, 0) => "-",
            (d, n) if d == n => "done",
            (0, _) if !h.boxes.contains(&"in progress") => "open",
            _ => "in progress",
        };
        let under = h.phase.map_or(Under::File, |p| Under::Line(phases[p]));
        put(feature, h.no, state, under);
    }
    // A phase groups its tasks: `tree` counts them, not it.
    checks
}

/// A BMAD story's tasks: every box of its task list, the first section whose heading
/// names tasks (`## Tasks / Subtasks`, `## Task Breakdown`, `### Tasks`) down to the next
/// heading of its level (a later one, as a dev record's `### Tasks / Subtasks Completion
/// Status`, repeats it). A box indented under another hangs under it; the others under
/// the `### Task N: …` heading above them, a task of its own (done when all its boxes are,
/// open when none is started or done, else in progress; no state without boxes), or under
/// the story.
fn count_story(story: &str, lines: Vec<(u32, &str)>, put: &mut impl FnMut(&str, u32, &'static str, Under)) {
    let mut list: Option<usize> = None;
    let mut seen = false;
    let mut stack: Vec<(usize, u32)> = Vec::new();
    let mut heads: Vec<(u32, Vec<&'static str>)> = Vec::new();
    let mut head: Option<u32> = None;
    for (no, line) in lines {
        if let Some((level, h)) = heading(line) {
            stack.clear();
            head = None;
            let h = h.to_lowercase();
            if list.is_some_and(|lv| level <= lv) {
                list = None;
            }
            if list.is_none() && !seen && ((level <= 2 && h.contains("task")) || h.starts_with("tasks")) {
                (list, seen) = (Some(level), true);
            } else if list.is_some()
                && h.strip_prefix("task ")
                    .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
            {
                head = Some(no);
                heads.push((no, Vec::new()));
            }
            continue;
        }
        let Some((indent, rest)) = bullet(line).filter(|_| list.is_some()) else {
            continue;
        };
        stack.retain(|&(i, _)| i < indent);
        let Some((state, _)) = checkbox(rest) else { continue };
        let under = match (stack.last(), head) {
            (Some(&(_, l)), _) => Under::Line(l),
            (None, Some(h)) => {
                heads.last_mut().expect("a task heading").1.push(state);
                Under::Line(h)
            }
            (None, None) => Under::File,
        };
        stack.push((indent, no));
        put(story, no, state, under);
    }
    for (no, boxes) in heads {
        let done = boxes.iter().filter(|s| **s == "done").count();
        let state = match (done, boxes.len()) {
            (_, 0) => "-",
            (d, n) if d == n => "done",
            (0, _) if !boxes.contains(&"in progress") => "open",
            _ => "in progress",
        };
        put(story, no, state, Under::File);
    }
}

/// The spec folder a Markdown file is in, for `init`'s census: (0, Spec Kit feature),
/// (1, Kiro feature), (2, BMAD story file).
fn folder_of(rel: &str) -> Option<(usize, String)> {
    if openspec_count::is_openspec(rel) {
        return None;
    }
    let parts: Vec<&str> = rel.split('/').collect();
    if let Some(i) = parts.iter().rposition(|p| *p == "specs") {
        let kiro = usize::from(i > 0 && parts[i - 1] == ".kiro");
        let mut rest = &parts[i + 1..];
        // A Kiro feature is a folder holding Kiro's files, at any depth.
        if kiro == 1 {
            return match rest {
                [.., feature, "tasks.md" | "requirements.md" | "design.md"] => Some((1, feature.to_string())),
                _ => None,
            };
        }
        // An archive of features (`_archived/`, `archive/`) holds features.
        if rest.len() >= 3 && (rest[0].starts_with('_') || rest[0] == "archive") {
            rest = &rest[1..];
        }
        return (rest.len() >= 2 && !rest[0].starts_with('_')).then(|| (kiro, rest[0].to_string()));
    }
    matches!(kind_of(rel), Some(Kind::Bmad(_))).then(|| (2, rel.to_string()))
}

/// Count every Markdown file under `root`.
fn count_repo(root: &Path) -> Count {
    let mut count = Count::default();
    for p in md_files(root) {
        let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if rel.starts_with("_index/") {
            continue;
        }
        count.files += 1;
        if let Some((k, name)) = folder_of(&rel) {
            count.census[k].insert(name);
        }
        let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
        count_file(&rel, &text, &mut count);
    }
    count
}

/// A task as mdgraph made it: its id, its state, and where its parent is (path and line).
type Made = (String, String, Option<(String, Under)>);

/// The index's nodes by id, and each source's first parent.
struct Graph {
    nodes: BTreeMap<String, Value>,
    parent: BTreeMap<String, String>,
}

fn graph(dir: &Path) -> Graph {
    let read = |name: &str| std::fs::read_to_string(dir.join("_index").join(name)).unwrap();
    let rows = |text: String| -> Vec<Value> { text.lines().map(|l| serde_json::from_str(l).unwrap()).collect() };
    let nodes = rows(read("graph_nodes.jsonl"))
        .into_iter()
        .filter(|n| n["kind"] != "chunk")
        .map(|n| (n["id"].as_str().unwrap().to_string(), n))
        .collect();
    let mut parent = BTreeMap::new();
    for e in rows(read("graph_edges.jsonl")) {
        if e["type"] == "parent" {
            parent
                .entry(e["source"].as_str().unwrap().to_string())
                .or_insert_with(|| e["target"].as_str().unwrap().to_string());
        }
    }
    Graph { nodes, parent }
}

impl Graph {
    /// Where node `id` is: (path, line), its line none for a file's own document.
    fn place(&self, id: &str) -> Option<(String, Under)> {
        let n = self.nodes.get(id)?;
        let path = n["path"].as_str()?.to_string();
        let under = match (n["inline"].as_bool(), n["line"].as_u64()) {
            (Some(true), Some(l)) => Under::Line(l as u32),
            _ => Under::File,
        };
        Some((path, under))
    }
    /// The tasks mdgraph made: (path, line) → (id, state, where its parent is).
    fn tasks(&self) -> BTreeMap<(String, u32), Made> {
        self.nodes
            .iter()
            .filter(|(_, n)| n["type"] == "Task")
            .map(|(id, n)| {
                let key = (
                    n["path"].as_str().unwrap().to_string(),
                    n["line"].as_u64().unwrap_or(0) as u32,
                );
                let state = n["state"].as_str().unwrap_or("-").to_string();
                let up = self.parent.get(id).and_then(|p| self.place(p));
                (key, (id.clone(), state, up))
            })
            .collect()
    }
}

/// Every task is an item at its line, with its box's state and its parent.
fn same_tasks(name: &str, count: &Count, g: &Graph) -> Vec<String> {
    let got = g.tasks();
    let mut wrong = Vec::new();
    for ((path, line), w) in &count.tasks {
        match got.get(&(path.clone(), *line)) {
            None => wrong.push(format!("{path}:{line}: no Task item (want {w:?})")),
            Some((id, state, up)) => {
                if state != w.state {
                    wrong.push(format!("{path}:{line}: {id} is {state}, the box says {}", w.state));
                }
                if up.as_ref() != Some(&(path.clone(), w.under.clone())) {
                    wrong.push(format!(
                        "{path}:{line}: {id} hangs under {up:?}, the file says {:?}",
                        w.under
                    ));
                }
            }
        }
    }
    for (path, line) in got.keys().filter(|k| !count.tasks.contains_key(*k)) {
        wrong.push(format!("{path}:{line}: a Task item on no task line"));
    }
    wrong.iter().map(|w| format!("{name}: {w}")).collect()
}

/// `ready`: each item an unfinished task; `list --type Task --state open`: the open count.
fn list_and_ready(name: &str, dir: &Path, count: &Count, g: &Graph) -> Vec<String> {
    let mut wrong = Vec::new();
    let open = json(&run_in(
        dir,
        &["list", "--type", "Task", "--state", "open", "--format", "json"],
    ));
    // `list` puts an item with no state in the open group (its rule for every backlog):
    // a task heading without boxes is listed with the open ones (`ready` and `tree` count
    // it as no work).
    let stateless = count.tasks.values().filter(|w| w.state == "-").count();
    if open["count"].as_u64() != Some((count.open() + stateless) as u64) {
        wrong.push(format!(
            "{name}: list --state open counts {}, the boxes {}",
            open["count"],
            count.open()
        ));
    }
    let ready = json(&run_in(dir, &["ready", "--limit", "1000000", "--format", "json"]));
    // BMAD: the unfinished boxes of stories not finished, with no unfinished box under
    // them (a box over open ones is a container of their work).
    let place = |id: &str| {
        g.nodes
            .get(id)
            .and_then(|n| Some((n["path"].as_str()?.to_string(), n["line"].as_u64()? as u32)))
    };
    let got: BTreeSet<(String, u32)> = ids(&ready).iter().filter_map(|id| place(id)).collect();
    let bmad = |path: &str| matches!(kind_of(path), Some(Kind::Bmad(_)));
    let unfinished = |w: &Want| matches!(w.state, "open" | "in progress");
    let want: BTreeSet<(String, u32)> = count
        .tasks
        .iter()
        .filter(|((path, _), w)| bmad(path) && unfinished(w) && !count.finished.contains(&w.feature))
        .filter(|((path, line), _)| {
            !count
                .tasks
                .iter()
                .any(|((p, _), c)| p == path && c.under == Under::Line(*line) && unfinished(c))
        })
        .map(|(k, _)| k.clone())
        .collect();
    // OpenSpec: of each change in progress, the format's next tasks.
    let got_openspec: BTreeSet<(String, u32)> = got
        .iter()
        .filter(|(p, _)| openspec_count::is_openspec(p))
        .cloned()
        .collect();
    for (path, line) in count.openspec.ready.symmetric_difference(&got_openspec) {
        let what = if count.openspec.ready.contains(&(path.clone(), *line)) {
            "not listed by ready, the next task of its change"
        } else {
            "listed by ready, not the next task of a change in progress"
        };
        wrong.push(format!("{name}: {path}:{line}: {what}"));
    }
    let got_bmad: BTreeSet<(String, u32)> = got.iter().filter(|(p, _)| bmad(p)).cloned().collect();
    for (path, line) in want.symmetric_difference(&got_bmad) {
        let what = if want.contains(&(path.clone(), *line)) {
            "not listed by ready"
        } else {
            "listed by ready, no work of an unfinished story"
        };
        wrong.push(format!("{name}: {path}:{line}: {what}"));
    }
    for id in ids(&ready) {
        // `ready` lists work open or in progress whose blockers are done.
        let unfinished_task = g
            .nodes
            .get(&id)
            .and_then(|n| Some((n["path"].as_str()?.to_string(), n["line"].as_u64()? as u32)))
            .and_then(|k| count.tasks.get(&k))
            .is_some_and(|w| matches!(w.state, "open" | "in progress"));
        // An open checklist item (`- [ ] CHK001 …`) is work too.
        let open_check = g
            .nodes
            .get(&id)
            .is_some_and(|n| n["type"] == "Check" && matches!(n["state"].as_str(), Some("open" | "in progress")));
        if !unfinished_task && !open_check {
            wrong.push(format!("{name}: ready lists {id}, no unfinished task"));
        }
    }
    eprintln!(
        "{name}: ready {} ({} of BMAD stories, {} of them finished)",
        ready["count"],
        want.len(),
        count.finished.len()
    );
    wrong
}

/// The Task nodes of a tree (total, done).
fn tree_tasks(node: &Value, into: &mut (usize, usize)) {
    if node["type"] == "Task" {
        into.1 += 1;
        into.0 += usize::from(node["state"] == "done");
    }
    for c in node["children"].as_array().into_iter().flatten() {
        tree_tasks(c, into);
    }
}

/// `tree <feature>`: its tasks and its done/total are the count's.
fn trees(name: &str, dir: &Path, count: &Count) -> Vec<String> {
    // Per feature: (done, total) of the tasks, and the total of those with a state (a
    // task heading without boxes is no work: the roll-up leaves it out).
    let mut per: BTreeMap<&str, ((usize, usize), usize)> = BTreeMap::new();
    for w in count.tasks.values() {
        let e = per.entry(&w.feature).or_default();
        e.0.1 += 1;
        e.0.0 += usize::from(w.state == "done");
        e.1 += usize::from(w.state != "-");
    }
    let mut wrong = Vec::new();
    for (feature, (want, work)) in per {
        // A feature without its spec (`spec.md`, `requirements.md`) is its tasks file.
        let out = [feature.to_string(), format!("{feature}/tasks")]
            .into_iter()
            .map(|root| run_in(dir, &["tree", &root, "--format", "json"]))
            .find(|o| o.code == 0);
        let Some(out) = out else {
            wrong.push(format!("{name}: no tree for {feature}"));
            continue;
        };
        let tree = json(&out);
        let mut got = (0, 0);
        tree_tasks(&tree["root"], &mut got);
        if got != want {
            wrong.push(format!(
                "{name}: tree {feature} holds {got:?} tasks (done, total), the boxes {want:?}"
            ));
        }
        let other = count.other.get(feature).copied().unwrap_or_default();
        let rollup = &tree["root"]["rollup"];
        let rolled = (
            rollup["done"].as_u64().unwrap() as usize,
            rollup["total"].as_u64().unwrap() as usize,
        );
        if rolled != (want.0 + other.0, work + other.1) {
            wrong.push(format!(
                "{name}: tree {feature} rolls up {rolled:?} (done, total), the boxes {want:?} and checks {other:?}"
            ));
        }
    }
    wrong
}

/// The errors `check` reports, as `path:line code`, and its warning count.
fn check_errors(dir: &Path) -> (BTreeSet<String>, usize) {
    let out = run_in(dir, &["check"]);
    assert!(out.code == 0 || out.code == 1, "{}{}", out.stdout, out.stderr);
    let all = format!("{}{}", out.stdout, out.stderr);
    let mut errors = BTreeSet::new();
    for l in all.lines() {
        let Some((at, rest)) = l.split_once(": error[") else {
            continue;
        };
        let code = rest.split(']').next().unwrap_or("");
        let at = at.rsplit_once(':').map_or(at, |(a, _)| a);
        errors.insert(format!("{at} {code}"));
    }
    (errors, all.matches(": warning[").count())
}

/// Where repository `r` is on this machine, if anywhere.
fn find(r: &Real) -> Option<PathBuf> {
    let fetched = std::env::var_os("MDGRAPH_SPEC_REPOS").map(|d| PathBuf::from(d).join(r.name));
    let corpus = r.corpus.map(|c| repo().join("../shared/corpora").join(c));
    fetched.into_iter().chain(corpus).find(|p| p.is_dir())
}

/// Run one repository; the figures and every disagreement.
fn try_repo(r: &Real, src: &Path) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(r.name);
    copy_dir(src, &dir);
    let _ = std::fs::remove_dir_all(dir.join(".git"));
    let count = count_repo(&dir);
    let mut indexed = String::new();
    let mut wrong = Vec::new();
    for step in [&["init"][..], &["index"]] {
        let out = run_in(&dir, step);
        assert_eq!(out.code, 0, "{}: {step:?}: {}{}", r.name, out.stdout, out.stderr);
        let said = format!("{}{}", out.stdout, out.stderr);
        let counted = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let census = format!(
            "Spec Kit: {}; Kiro: {}; BMAD: {};",
            counted(count.census[0].len(), "feature", "features"),
            counted(count.census[1].len(), "feature", "features"),
            counted(count.census[2].len(), "story", "stories")
        );
        if step == ["init"] && !said.contains(&census) {
            wrong.push(format!("{}: init says {said:?}, the folders {census:?}", r.name));
        }
        if let Some(os) = count
            .openspec
            .said()
            .filter(|os| step == ["init"] && !said.contains(os))
        {
            wrong.push(format!("{}: init says {said:?}, the OpenSpec tree {os:?}", r.name));
        }
        if let Some(l) = said.lines().find(|l| l.starts_with("indexed ")) {
            indexed = l.split(" (").next().unwrap_or(l).to_string();
        }
    }
    for (feature, want) in r.tasks {
        let got = count.tasks.values().filter(|w| w.feature == *feature).count();
        if got != *want {
            wrong.push(format!(
                "{}: the count finds {got} tasks in {feature}, not {want}",
                r.name
            ));
        }
    }
    let g = graph(&dir);
    wrong.extend(same_tasks(r.name, &count, &g));
    wrong.extend(list_and_ready(r.name, &dir, &count, &g));
    wrong.extend(trees(r.name, &dir, &count));
    let (errors, warnings) = check_errors(&dir);
    let want: BTreeSet<String> = r.errors.iter().map(|e| e.to_string()).collect();
    if errors != want {
        let extra: Vec<_> = errors.difference(&want).collect();
        let missing: Vec<_> = want.difference(&errors).collect();
        wrong.push(format!(
            "{}: check errors: unexpected {extra:?}, missing {missing:?}",
            r.name
        ));
    }
    let features: BTreeSet<&str> = count.tasks.values().map(|w| w.feature.as_str()).collect();
    eprintln!(
        "{} ({}): {indexed} ({} Markdown files in all), {} features with tasks, {} tasks: {} open, {} done, {} in progress, {} headings without boxes; check: {} errors, {warnings} warnings",
        r.name,
        r.source,
        count.files,
        features.len(),
        count.tasks.len(),
        count.open(),
        count.done(),
        count.tasks.values().filter(|w| w.state == "in progress").count(),
        count.tasks.values().filter(|w| w.state == "-").count(),
        errors.len(),
    );
    wrong
}

#[test]
#[ignore = "needs the real repositories: ../shared/corpora or MDGRAPH_SPEC_REPOS (scripts/fetch_spec_repos.sh)"]
fn spec_real_repositories_agree_with_a_count_of_their_boxes() {
    let mut wrong = Vec::new();
    for r in &REAL {
        match find(r) {
            Some(src) => wrong.extend(try_repo(r, &src)),
            None => eprintln!(
                "skipping {} ({}): not in MDGRAPH_SPEC_REPOS nor ../shared/corpora",
                r.name, r.source
            ),
        }
    }
    assert!(wrong.is_empty(), "{} disagreements:\n{}", wrong.len(), wrong.join("\n"));
}

/// The counted tasks as (line, state, what they hang under), in order.
fn seen(c: &Count) -> Vec<(u32, &str, Under)> {
    c.tasks
        .iter()
        .map(|((_, l), w)| (*l, w.state, w.under.clone()))
        .collect()
}

#[test]
fn the_count_reads_each_form() {
    let mut c = Count::default();
    let speckit = "## Phase 1: Setup\n- [x] T001 a\n  - [ ] T002 b\n1.  **T003**: [X] c\n## Notes\n- [ ] T004 d\n```\n- [ ] T005 e\n```\n";
    count_file("specs/001-a/tasks.md", speckit, &mut c);
    count_file(
        ".kiro/specs/b/tasks.md",
        "- [x] 1. a\n- [ ]* 1.1 b\n- [-] 2. c\n",
        &mut c,
    );
    count_file(
        "docs/stories/2.1.story.md",
        "## Tasks / Subtasks\n- [ ] a\n  - [x] b\n## Dev Notes\n- [ ] c\n",
        &mut c,
    );
    let got = seen(&c);
    assert_eq!(
        got,
        [
            (1, "done", Under::File),
            (2, "open", Under::Line(1)),
            (3, "in progress", Under::File),
            (2, "open", Under::File),
            (3, "done", Under::Line(2)),
            (2, "done", Under::Line(1)),
            (3, "open", Under::Line(2)),
            (4, "done", Under::Line(1)),
            (6, "open", Under::File),
        ]
    );
    assert_eq!(c.other["001-a"], (0, 0));
    // Kiro, grouped: a number whose prefix has no box hangs under the heading above it (a
    // phase, done when its required tasks are), else the file; a number without a dot
    // under the box it is indented under.
    let mut c = Count::default();
    let kiro = "# Plan\n- [ ] 1.1 a\n## Phase 2: B\n- [x] 2.1 b\n- [ ]* 2.2 c\n  - [ ] 2.2.1 d\n\
- [x] 3. e\n  - [x] 3. e again\n  - [ ] 3.1.1 f\n";
    count_file(".kiro/specs/done/x/tasks.md", kiro, &mut c);
    assert_eq!(
        seen(&c),
        [
            (2, "open", Under::File),
            (4, "done", Under::Line(3)),
            (5, "open", Under::Line(3)),
            (6, "open", Under::Line(5)),
            (7, "done", Under::File),
            (8, "done", Under::Line(7)),
            (9, "open", Under::Line(7)),
        ]
    );
    assert!(c.tasks.values().all(|w| w.feature == "x"));
    assert_eq!(folder_of(".kiro/specs/done/x/design.md"), Some((1, "x".to_string())));
    assert_eq!(folder_of(".kiro/specs/done/README.md"), None);
    // Task headings: a state from their boxes, none without; a repeated list is none.
    let mut c = Count::default();
    let story = "## Tasks / Subtasks\n### Task 1: A\n- [x] 1.1 a\n  - [ ] b\n### Task 2: B\n- 2.1 plain\n\
## Dev Agent Record\n### Tasks / Subtasks Completion Status\n- [x] Task 1\n";
    count_file("docs/stories/completed/5.1A.story.md", story, &mut c);
    let got = seen(&c);
    assert_eq!(
        got,
        [
            (2, "done", Under::File),
            (3, "done", Under::Line(2)),
            (4, "open", Under::Line(3)),
            (5, "-", Under::File),
        ]
    );
    assert!(c.tasks.values().all(|w| w.feature == "5.1A"));
    // Spec Kit tasks written as headings: a state from the boxes without ids in them, none
    // without; a box task of the file with the same id keeps it.
    let mut c = Count::default();
    let tasks = "# Tasks\n## Phase 1: A\n### T001: a\n- [x] out\n#### Notes\n- [ ] more\n### T002 - b\n\
- [x] one\n- [x] two\n- [ ] T003 own\n### T004 c\ntext\n## Phase 2: B\n### T005: d\n- [X] x\n\
## Done\n### T006: e\n- [ ] y\n- [x] T006 e\n";
    count_file("specs/005-x/tasks.md", tasks, &mut c);
    assert_eq!(
        seen(&c),
        [
            (3, "in progress", Under::Line(2)),
            (7, "done", Under::Line(2)),
            (10, "open", Under::Line(2)),
            (11, "-", Under::Line(2)),
            (14, "done", Under::Line(13)),
            (19, "done", Under::File),
        ]
    );
    // Phases are no work of their own (`tree` counts their tasks), and no CHK box.
    assert_eq!(c.other["005-x"], (0, 0));
    // BMAD v6 stories by their key, and the statuses that finish a story.
    let mut c = Count::default();
    let v6 = "# Story 1.2: Deploy\n\nStatus: done\n\n## Tasks / Subtasks\n\n- [ ] a\n";
    count_file("docs/sprint-artifacts/1-2-deploy-api.md", v6, &mut c);
    assert_eq!(seen(&c), [(7, "open", Under::File)]);
    for (rel, text, finished) in [
        (
            "docs/stories/2.1.story.md",
            "# S\n\n## Status\n\n✅ **COMPLETED** (August 2024)\n",
            true,
        ),
        ("docs/stories/2.2.story.md", "# S\n\n## Status\nReview\n", false),
        (
            "docs/stories/2.3.story.md",
            "# S\n\n- **Status:** Done\n\n## Notes\n### Status\nReady\n",
            true,
        ),
        (
            "_bmad-output/implementation-artifacts/2-4-x.md",
            "# S\n\nStatus: ready-for-dev\n",
            false,
        ),
    ] {
        count_file(rel, text, &mut c);
        let story = match kind_of(rel) {
            Some(Kind::Bmad(s)) => s,
            _ => panic!("{rel} is a story"),
        };
        assert_eq!(c.finished.contains(&story), finished, "{rel}");
    }
    assert_eq!(c.finished.iter().collect::<Vec<_>>(), ["1.2", "2.1", "2.3"]);
    for rel in [
        "docs/notes/1-2-x.md",
        "docs/stories/2025-01-15-retro.md",
        "docs/stories/notes.md",
    ] {
        assert!(kind_of(rel).is_none(), "{rel}");
    }
}

/// gwt's errors, each real: its checklists and tasks cite requirements and stories their
/// spec does not declare (`CHK003 FR-003: …` where `spec.md` writes FR-004 alone; an
/// archived feature's `tasks.md` citing `[US2]` of a spec with no user story), and
/// tasks written twice in one file (`T1402`–`T1415` in `SPEC-d2f4762a`).
const GWT_ERRORS: &[&str] = &[
    "specs/SPEC-ba3f610c/checklists/requirements.md:13 dangling-reference",
    "specs/SPEC-ba3f610c/checklists/requirements.md:15 dangling-reference",
    "specs/SPEC-ba3f610c/checklists/requirements.md:16 dangling-reference",
    "specs/SPEC-ba3f610c/checklists/requirements.md:17 dangling-reference",
    "specs/SPEC-ba3f610c/checklists/requirements.md:23 dangling-reference",
    "specs/SPEC-ba3f610c/checklists/requirements.md:24 dangling-reference",
    "specs/archive/SPEC-4b893dae/checklists/requirements.md:60 dangling-reference",
    "specs/archive/SPEC-4b893dae/checklists/requirements.md:61 dangling-reference",
    "specs/archive/SPEC-4b893dae/checklists/requirements.md:62 dangling-reference",
    "specs/archive/SPEC-4b893dae/checklists/requirements.md:63 dangling-reference",
    "specs/archive/SPEC-4b893dae/checklists/requirements.md:64 dangling-reference",
    "specs/archive/SPEC-4b893dae/checklists/requirements.md:65 dangling-reference",
    "specs/archive/SPEC-4b893dae/checklists/requirements.md:66 dangling-reference",
    "specs/archive/SPEC-4b893dae/checklists/requirements.md:67 dangling-reference",
    "specs/archive/SPEC-4b893dae/tasks.md:282 duplicate-id",
    "specs/archive/SPEC-4b893dae/tasks.md:283 duplicate-id",
    "specs/archive/SPEC-4b893dae/tasks.md:295 duplicate-id",
    "specs/archive/SPEC-4b893dae/tasks.md:296 duplicate-id",
    "specs/archive/SPEC-86bb4e7c/spec.md:131 duplicate-id",
    "specs/archive/SPEC-86bb4e7c/spec.md:164 duplicate-id",
    "specs/archive/SPEC-86bb4e7c/spec.md:165 duplicate-id",
    "specs/archive/SPEC-86bb4e7c/spec.md:168 duplicate-id",
    "specs/archive/SPEC-b9f5c4a1/tasks.md:11 dangling-reference",
    "specs/archive/SPEC-b9f5c4a1/tasks.md:12 dangling-reference",
    "specs/archive/SPEC-b9f5c4a1/tasks.md:13 dangling-reference",
    "specs/archive/SPEC-b9f5c4a1/tasks.md:14 dangling-reference",
    "specs/archive/SPEC-b9f5c4a1/tasks.md:16 dangling-reference",
    "specs/archive/SPEC-b9f5c4a1/tasks.md:17 dangling-reference",
    "specs/archive/SPEC-b9f5c4a1/tasks.md:18 dangling-reference",
    "specs/archive/SPEC-b9f5c4a1/tasks.md:20 dangling-reference",
    "specs/archive/SPEC-b9f5c4a1/tasks.md:21 dangling-reference",
    "specs/archive/SPEC-b9f5c4a1/tasks.md:22 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:100 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:101 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:102 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:103 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:104 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:108 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:109 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:110 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:111 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:112 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:113 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:114 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:118 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:122 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:130 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:131 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:132 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:133 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:137 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:138 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:139 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:140 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:144 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:145 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:149 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:157 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:158 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:159 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:160 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:161 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:162 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:163 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:164 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:168 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:169 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:170 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:171 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:172 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:173 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:174 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:175 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:179 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:180 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:184 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:185 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:189 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:197 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:201 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:202 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:203 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:60 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:68 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:69 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:73 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:74 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:75 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:76 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:80 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:88 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:89 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:90 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:91 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:92 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:93 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:94 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:98 dangling-reference",
    "specs/archive/SPEC-d27be71b/tasks.md:99 dangling-reference",
    "specs/archive/SPEC-d2f4762a/spec.md:491 duplicate-id",
    "specs/archive/SPEC-d2f4762a/spec.md:493 duplicate-id",
    "specs/archive/SPEC-d2f4762a/spec.md:494 duplicate-id",
    "specs/archive/SPEC-d2f4762a/spec.md:495 duplicate-id",
    "specs/archive/SPEC-d2f4762a/spec.md:588 duplicate-id",
    "specs/archive/SPEC-d2f4762a/spec.md:589 duplicate-id",
    "specs/archive/SPEC-d2f4762a/spec.md:590 duplicate-id",
    "specs/archive/SPEC-d2f4762a/spec.md:593 duplicate-id",
    "specs/archive/SPEC-d2f4762a/spec.md:628 duplicate-id",
    "specs/archive/SPEC-d2f4762a/spec.md:651 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:16 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:17 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:18 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:19 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:20 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:25 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:26 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:27 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:28 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:29 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:436 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:437 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:438 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:439 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:51 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:52 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:53 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:54 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:58 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:583 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:584 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:588 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:589 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:59 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:60 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:61 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:659 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:663 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:664 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:665 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:666 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:671 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:672 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:673 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:674 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:678 duplicate-id",
    "specs/archive/SPEC-d2f4762a/tasks.md:684 dangling-reference",
    "specs/archive/SPEC-d2f4762a/tasks.md:685 dangling-reference",
    "specs/archive/SPEC-d2f4762a/tasks.md:686 dangling-reference",
    "specs/archive/SPEC-d2f4762a/tasks.md:687 dangling-reference",
    "specs/archive/SPEC-d2f4762a/tasks.md:691 dangling-reference",
    "specs/archive/SPEC-d2f4762a/tasks.md:692 dangling-reference",
    "specs/archive/SPEC-d2f4762a/tasks.md:693 dangling-reference",
    "specs/archive/SPEC-f47db390/spec.md:126 duplicate-id",
    "specs/archive/SPEC-f47db390/spec.md:130 duplicate-id",
    "specs/archive/SPEC-f47db390/tasks.md:72 duplicate-id",
    "specs/archive/SPEC-f47db390/tasks.md:73 duplicate-id",
];
