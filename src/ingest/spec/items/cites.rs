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
    if let Some(n) = numbered_word(text.split_once(':').map_or("", |(_, t)| t).trim(), "user story") {
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
                let lower = line.to_lowercase();
                if let Some(i) = lower.find("requirements:") {
                    for w in words(&line[i + 13..]) {
                        if w.split('.')
                            .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
                        {
                            push_ref(&mut out, EdgeType::Relates, format!("R{w}"), no);
                        }
                    }
                }
            }
            Format::BmadStory => {
                if let Some(i) = line.find("(AC:").or_else(|| line.find("(AC ")) {
                    let inner = line[i + 4..].split(')').next().unwrap_or("");
                    for w in words(inner) {
                        if w.bytes().all(|c| c.is_ascii_digit()) {
                            push_ref(&mut out, EdgeType::Relates, format!("AC{w}"), no);
                        }
                    }
                }
            }
            Format::BmadEpic => {}
        }
        for target in dependencies(line) {
            push_ref(&mut out, EdgeType::DependsOn, target, no);
        }
    }
    out
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
