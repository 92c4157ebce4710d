//! The syntax of a spec-folder line: list markers, checkboxes, task and requirement ids.

/// The list marker's end and whether it is ordered: `- `, `* `, `+ `, `1. `, `1) `.
pub(super) fn list_marker(text: &str) -> Option<(usize, bool)> {
    let b = text.as_bytes();
    if matches!(b.first(), Some(b'-' | b'*' | b'+')) && b.get(1) == Some(&b' ') {
        return Some((2, false));
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    (digits > 0 && digits < 10 && matches!(b.get(digits), Some(b'.' | b')')) && b.get(digits + 1) == Some(&b' '))
        .then_some((digits + 2, true))
}

/// `[ ] rest` → ("open", rest); `[x]`/`[X]` done; Kiro's `[-]` and `[~]` in progress.
pub(super) fn checkbox(s: &str) -> Option<(&'static str, &str)> {
    let b = s.as_bytes();
    if b.len() < 3 || b[0] != b'[' || b[2] != b']' {
        return None;
    }
    let state = match b[1] {
        b' ' => "open",
        b'x' | b'X' => "done",
        b'-' | b'~' => "in progress",
        _ => return None,
    };
    // Kiro marks an optional task `- [ ]* 2.1`.
    let rest = s[3..].strip_prefix('*').unwrap_or(&s[3..]);
    (rest.is_empty() || rest.starts_with(' ')).then(|| (state, rest.trim_start()))
}

/// A task id at the start: `T012`, `**T012**:`, `CHK001`, Kiro's `2.1` or `2.`.
pub(super) fn task_id(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start_matches("**");
    let end = s
        .find(|c: char| c.is_whitespace() || c == '*' || c == ':')
        .unwrap_or(s.len());
    let word = &s[..end];
    let tail = s[end..].trim_start_matches("**");
    let letters = word.bytes().take_while(u8::is_ascii_uppercase).count();
    let digits = &word[letters..];
    // A letter may follow the number: `T006a`, Kiro's `10.2a`.
    let numeral = |p: &str| {
        let p = p.strip_suffix(|c: char| c.is_ascii_lowercase()).unwrap_or(p);
        !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit())
    };
    let is_prefixed = matches!(&word[..letters], "T" | "CHK" | "TASK") && digits.len() >= 2 && numeral(digits);
    let number = word.trim_end_matches('.');
    let is_number =
        letters == 0 && !number.is_empty() && number.split('.').all(|p| p.len() <= 4 && numeral(p)) && !tail.is_empty();
    (is_prefixed || is_number).then_some((if is_number { number } else { word }, tail))
}

/// `FR-001`, `SC-002`, `NFR-003` at the start.
pub(super) fn requirement_id(s: &str) -> Option<(&str, &str)> {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(s.len());
    let word = &s[..end];
    let (prefix, num) = word.split_once('-')?;
    // A letter may name the part before the number: `FR-B001` (backend), `FR-F001`.
    let digits = num.trim_start_matches(|c: char| c.is_ascii_uppercase());
    let letters = num.len() - digits.len();
    (matches!(prefix, "FR" | "SC" | "NFR")
        && letters <= 2
        && !digits.is_empty()
        && digits.bytes().all(|c| c.is_ascii_digit()))
    .then(|| (word, &s[end..]))
}

/// `Phase 3: …` with word `phase` → `3`; `User Story 2 - …` with `user story` → `2`.
pub(super) fn numbered_word(text: &str, word: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let rest = lower.strip_prefix(word)?.trim_start();
    // A letter may follow the number: `Phase 5A`.
    let n: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
    n.starts_with(|c: char| c.is_ascii_digit()).then_some(n)
}
