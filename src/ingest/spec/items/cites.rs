//! What a task's text cites: its story, requirements, criteria and the tasks it waits for.

use super::*;

/// `[US2]` in a phase heading or a task line.
pub(super) fn story_refs(text: &str, line: u32) -> Vec<ItemRef> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("[US") {
        let tail = &rest[i + 3..];
        let n: String = tail.chars().take_while(|c| c.is_ascii_digit()).collect();
        if !n.is_empty() && tail[n.len()..].starts_with(']') {
            push_ref(&mut out, EdgeType::Relates, format!("US{n}"), line);
        }
        rest = tail;
    }
    let named = text.split_once([':', '：']).map_or("", |(_, t)| t).trim();
    if let Some(n) = numbered_word(named, "user story") {
        push_ref(&mut out, EdgeType::Relates, format!("US{n}"), line);
    }
    // `## Phase 3: US11 - Export (P1)`: the story by its id.
    let first = named.split(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or("");
    if let Some(n) = first
        .strip_prefix("US")
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    {
        push_ref(&mut out, EdgeType::Relates, format!("US{n}"), line);
    }
    out
}

pub(in crate::ingest::spec) fn push_ref(out: &mut Vec<ItemRef>, edge: EdgeType, target: String, line: u32) {
    if !out.iter().any(|r| r.edge == edge && r.target == target) {
        out.push(ItemRef { edge, target, line });
    }
}

/// What a task's text cites: its user story, requirements, Kiro's `_Requirements: 1.1_`,
/// BMAD's `(AC: 1, 3)`, and "depends on / after / blocked by T012".
pub(super) fn cites(scope: &Scope, text: &str, first: u32) -> Vec<ItemRef> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let no = first + i as u32;
        match scope.format {
            Format::SpecKit => {
                out.extend(story_refs(line, no));
                for w in words(line) {
                    if let Some((id, _)) = requirement_id(w)
                        && id.len() == w.len()
                    {
                        push_ref(&mut out, EdgeType::Relates, id.to_string(), no);
                    }
                }
            }
            Format::Kiro => {
                if let Some(start) = requirements_cue(line) {
                    for w in words(&line[start..]) {
                        for n in requirement_numbers(w) {
                            push_ref(&mut out, EdgeType::Relates, format!("R{n}"), no);
                        }
                    }
                }
            }
            Format::BmadStory => {
                if let Some(i) = line.find("(AC:").or_else(|| line.find("(AC ")) {
                    let inner = line[i + 4..].split(')').next().unwrap_or("");
                    for target in criteria(inner) {
                        push_ref(&mut out, EdgeType::Relates, target, no);
                    }
                }
            }
            Format::BmadEpic | Format::OpenSpec(_) => {}
        }
        for target in dependencies(line) {
            push_ref(&mut out, EdgeType::DependsOn, target, no);
        }
    }
    out
}

/// The criteria a BMAD task's `(AC: …)` names, up to the first word that names none
/// (`(AC #1-3, Task #2)` cites no criterion 2): numbers (`1, 3`, `#1 & #2`, `AC1`) as
/// `AC1`, ranges (`1-9`, `#1-4`, `1 – 4`, `1 to 4`) and `all` as markers that
/// [`expand_criteria`] makes the story's criteria once its items are read.
fn criteria(inner: &str) -> Vec<String> {
    let inner = inner.replace(['–', '—'], "-");
    let tokens: Vec<&str> = inner
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '&' | '/'))
        .map(|t| t.trim_matches(['[', ']', '*', '_', '`']).trim_end_matches(['.', ':']))
        .filter(|t| !t.is_empty())
        .collect();
    fn number(t: &str) -> Option<&str> {
        let t = t.strip_prefix("AC").unwrap_or(t).trim_start_matches('#');
        (!t.is_empty() && t.bytes().all(|c| c.is_ascii_digit())).then_some(t)
    }
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        i += 1;
        if let Some(n) = number(t) {
            // `1 - 4`, `1 to 4`: a range written with spaces.
            let dash = tokens
                .get(i)
                .is_some_and(|d| matches!(d.to_lowercase().as_str(), "-" | "to" | "through"));
            if let Some(m) = tokens.get(i + 1).copied().and_then(number).filter(|_| dash) {
                out.push(range_marker(n, m));
                i += 2;
            } else {
                out.push(format!("AC{n}"));
            }
        } else if let Some((a, b)) = t.split_once('-').and_then(|(a, b)| Some((number(a)?, number(b)?))) {
            out.push(range_marker(a, b));
        } else if t.eq_ignore_ascii_case("all") {
            out.push(ALL_CRITERIA.to_string());
        } else if !(matches!(t.to_lowercase().as_str(), "and" | "ac" | "acs") || t.chars().all(|c| c == '#')) {
            break;
        }
    }
    out
}

/// The marker `(AC: all)` leaves among a task's references until [`expand_criteria`].
const ALL_CRITERIA: &str = "AC*";

/// `1-9` → the marker `AC1-9`.
fn range_marker(a: &str, b: &str) -> String {
    format!("AC{a}-{b}")
}

/// The criteria numbers a marker stands for, lowest and highest: `AC1-9` → (1, 9), `AC*`
/// → all; none for a criterion's own id (`AC3`).
fn marker_range(target: &str) -> Option<(u64, u64)> {
    if target == ALL_CRITERIA {
        return Some((0, u64::MAX));
    }
    let (a, b) = target.strip_prefix("AC")?.split_once('-')?;
    let (a, b) = (a.parse::<u64>().ok()?, b.parse::<u64>().ok()?);
    Some((a.min(b), a.max(b)))
}

/// A BMAD story's tasks that cite a range of criteria (`(AC: 1-9)`) or all of them
/// (`(AC: all)`) cite each criterion of the story in it, in order; a range's numbers
/// that are no criterion of the story are left out (a single number that is none is
/// kept, and resolves to nothing: a `dangling-reference`).
pub(in crate::ingest::spec) fn expand_criteria(items: &mut [Item]) {
    let numbers: Vec<(u64, String)> = items
        .iter()
        .filter(|it| it.r#type == "Criterion")
        .filter_map(|it| Some((it.local.strip_prefix("AC")?.parse().ok()?, it.local.clone())))
        .collect();
    for it in items.iter_mut() {
        if !it.refs.iter().any(|r| marker_range(&r.target).is_some()) {
            continue;
        }
        let mut refs = Vec::new();
        for r in std::mem::take(&mut it.refs) {
            match marker_range(&r.target) {
                Some((lo, hi)) => {
                    for (_, local) in numbers.iter().filter(|(n, _)| (lo..=hi).contains(n)) {
                        push_ref(&mut refs, r.edge, local.clone(), r.line);
                    }
                }
                None => push_ref(&mut refs, r.edge, r.target, r.line),
            }
        }
        it.refs = refs;
    }
}

/// Words of a line: runs of letters, digits, `-`, `.` (a trailing `.` dropped).
pub(super) fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty())
}

/// `depends on T012`, `after T012 and T013`, `blocked by T012`, `requires T012`,
/// `**Preconditions**: T001, T002 complete`: the task ids after such words.
pub(super) fn dependencies(line: &str) -> Vec<String> {
    let lower = line.to_lowercase();
    let mut out = Vec::new();
    for cue in [
        "depends on",
        "dependent on",
        "after",
        "blocked by",
        "requires",
        "waits for",
        "preconditions",
        "precondition",
    ] {
        let mut from = 0;
        while let Some(i) = lower[from..].find(cue) {
            let start = from + i + cue.len();
            from = start;
            for w in words(&line[start..]).take(6) {
                let w = w.trim_start_matches("**");
                match task_id(&format!("{w} x")) {
                    Some((id, _)) if id.starts_with('T') || id.starts_with("CHK") => out.push(id.to_string()),
                    _ if matches!(w.to_lowercase().as_str(), "and" | "or" | "tasks" | "task") => continue,
                    _ => break,
                }
            }
        }
    }
    out
}

/// Where the requirement numbers a Kiro task cites start on `line`: after
/// `_Requirements: …_` (and its translations, `_Requisitos: …_`, `_要件: …_`) or
/// `**Validates: Requirements …**`, as newer Kiro builds write it.
fn requirements_cue(line: &str) -> Option<usize> {
    let lower = line.to_lowercase();
    const CUES: [&str; 10] = [
        "validates: requirements",
        "validates: requirement",
        "requirements:",
        "requirement:",
        "requisitos:",
        "requerimientos:",
        "exigences :",
        "exigences:",
        "anforderungen:",
        "要件:",
    ];
    CUES.iter()
        .find_map(|c| lower.find(c).map(|i| i + c.len()))
        .or_else(|| lower.find("要件：").map(|i| i + "要件：".len()))
}

/// True when `line` cites requirements as a Kiro task does.
pub(super) fn cites_requirements(line: &str) -> bool {
    requirements_cue(line).is_some()
}

/// The requirement numbers a word names: `1.2` → `1.2`; a range of one requirement's
/// criteria, `1.1-1.15`, → each of `1.1` … `1.15`; `2-4` → `2`, `3`, `4`.
fn requirement_numbers(w: &str) -> Vec<String> {
    let number = |p: &str| {
        p.split('.')
            .all(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
    };
    if number(w) {
        return vec![w.to_string()];
    }
    let Some((a, b)) = w.split_once('-').filter(|(a, b)| number(a) && number(b)) else {
        return Vec::new();
    };
    let (ha, la) = a.rsplit_once('.').map_or(("", a), |(h, l)| (h, l));
    let (hb, lb) = b.rsplit_once('.').map_or(("", b), |(h, l)| (h, l));
    let (Ok(from), Ok(to)) = (la.parse::<u32>(), lb.parse::<u32>()) else {
        return Vec::new();
    };
    if ha != hb || from > to || to - from > 200 {
        return vec![a.to_string(), b.to_string()];
    }
    (from..=to)
        .map(|n| {
            if ha.is_empty() {
                n.to_string()
            } else {
                format!("{ha}.{n}")
            }
        })
        .collect()
}
