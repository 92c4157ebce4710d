//! A BMAD story's task ids: by the number a box writes (`Task 2: …`, `Task 2.2: …`,
//! `**Subtask 2.1**`), else by its place among its siblings, at every depth.

use std::collections::BTreeMap;

/// The id of a box in a story's task list with no id of its own, under `parent` (a task's
/// local id, none at the top), and its title (the box's text as written). `ordinal` holds
/// the top-level count and each task's count of sub-tasks. A number the box writes is its
/// id when it fits where the box sits (`2.2` under `2`, `3` at the top, past the numbers
/// already taken); else its place is (`2.5` for the fifth box under task 2).
pub(super) fn box_id<'a>(
    ordinal: &mut (u32, BTreeMap<String, u32>),
    parent: Option<&str>,
    body: &'a str,
) -> (String, &'a str) {
    let written = written_number(body);
    match parent {
        Some(p) => {
            let count = ordinal.1.entry(p.to_string()).or_insert(0);
            if let Some(n) = written
                && let Some(last) = n.strip_prefix(p).and_then(|r| r.strip_prefix('.'))
                && let Ok(k) = last.parse::<u32>()
                && k > *count
            {
                *count = k;
                return (n, body);
            }
            *count += 1;
            (format!("{p}.{count}"), body)
        }
        None => {
            if let Some(n) = written
                && let Ok(k) = n.parse::<u32>()
                && k > ordinal.0
            {
                ordinal.0 = k;
                return (n, body);
            }
            ordinal.0 += 1;
            (ordinal.0.to_string(), body)
        }
    }
}

/// `Task 2.2: Title` → `2.2`; `**Task 3** - …`, `Subtask 2.1: …` too; none for a box
/// that writes no task number.
fn written_number(body: &str) -> Option<String> {
    let t = body.trim_start_matches(['*', '_']).trim_start();
    let lower = t.to_lowercase();
    let word = ["subtask", "sub-task", "task"]
        .into_iter()
        .find(|w| lower.starts_with(w))?;
    let rest = t.get(word.len()..)?.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let n = rest[..end].trim_end_matches('.');
    let numbered = !n.is_empty() && n.split('.').all(|p| !p.is_empty());
    // `Task 2.2` and not `Tasks` or `Task 2x`.
    let ends = rest[end..].starts_with(|c: char| !c.is_alphanumeric()) || rest[end..].is_empty();
    (numbered && ends).then(|| n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_numbers_written_at_every_depth() {
        let mut ord = (0, BTreeMap::new());
        assert_eq!(box_id(&mut ord, None, "Task 1: A"), ("1".into(), "Task 1: A"));
        assert_eq!(
            box_id(&mut ord, Some("1"), "Subtask one"),
            ("1.1".into(), "Subtask one")
        );
        assert_eq!(box_id(&mut ord, Some("1.1"), "deeper"), ("1.1.1".into(), "deeper"));
        assert_eq!(box_id(&mut ord, Some("1"), "next"), ("1.2".into(), "next"));
        assert_eq!(box_id(&mut ord, None, "**Task 2**: B"), ("2".into(), "**Task 2**: B"));
        for _ in 0..4 {
            box_id(&mut ord, Some("2"), "x");
        }
        // Written `2.2` as the fifth box under task 2: its own number, not `2.5`.
        assert_eq!(
            box_id(&mut ord, Some("2"), "Task 2.2: C"),
            ("2.5".into(), "Task 2.2: C")
        );
        let mut ord = (0, BTreeMap::new());
        box_id(&mut ord, None, "Task 2: B");
        assert_eq!(
            box_id(&mut ord, Some("2"), "Task 2.2: C"),
            ("2.2".into(), "Task 2.2: C")
        );
        assert_eq!(box_id(&mut ord, Some("2"), "plain"), ("2.3".into(), "plain"));
        // A number that does not fit where the box sits is its place.
        assert_eq!(
            box_id(&mut ord, Some("2"), "Task 7.1: D"),
            ("2.4".into(), "Task 7.1: D")
        );
    }
}
