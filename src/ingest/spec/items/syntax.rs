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

/// `Phase 3: …` with word `phase` → `3`; `User Story 2 - …` with `user story` → `2`;
/// the word in any language a template ships it in (`ユーザーストーリー 2`, `Fase 3`),
/// after a leading emoji or emphasis (`✅ Tarea 1.1`).
pub(super) fn numbered_word(text: &str, word: &str) -> Option<String> {
    let (start, len) = role_word(text, word)?;
    let rest = text[start + len..].trim_start();
    // A letter may follow the number: `Phase 5A`.
    let n: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
        .collect();
    let n = n.trim_end_matches('.');
    // Dotted numbers are a Kiro task's (`Tarea 1.1`) or a sub-phase's (`Phase 7.1`);
    // elsewhere the first part.
    let n = if word == "task" || word == "phase" {
        n
    } else {
        n.split('.').next().unwrap_or("")
    };
    let n: String = n.chars().map(|c| c.to_ascii_lowercase()).collect();
    n.starts_with(|c: char| c.is_ascii_digit()).then_some(n)
}

/// Where the role `word` (English, as [`ROLES`] lists it) starts `text` in any of its
/// languages, past a leading emoji or emphasis: the start and length of the word.
pub(super) fn role_word(text: &str, word: &str) -> Option<(usize, usize)> {
    let start = text.len() - text.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
    let t = &text[start..];
    let words = ROLES.iter().find(|(w, _)| *w == word).map_or(&[][..], |(_, ws)| *ws);
    std::iter::once(word)
        .chain(words.iter().copied())
        .find(|w| t.get(..w.len()).is_some_and(|p| p.to_lowercase() == *w))
        .map(|w| (start, w.len()))
}

/// The role words of spec templates in the languages they ship in (Spec Kit's
/// translations, Kiro and BMAD as teams write them), lowercase: what a heading names.
pub(super) const ROLES: [(&str, &[&str]); 5] = [
    (
        "user story",
        &[
            "ユーザーストーリー",
            "ユーザー ストーリー",
            "historia de usuario",
            "historia del usuario",
            "história de usuário",
            "história do usuário",
            "récit utilisateur",
            "histoire utilisateur",
            "user-story",
            "benutzergeschichte",
            "storia utente",
            "用户故事",
            "使用者故事",
            "사용자 스토리",
        ],
    ),
    ("phase", &["フェーズ", "fase", "étape", "阶段", "階段", "단계"]),
    (
        "task",
        &[
            "tarea",
            "tâche",
            "tarefa",
            "aufgabe",
            "attività",
            "タスク",
            "任务",
            "任務",
            "작업",
        ],
    ),
    (
        "requirement",
        &["要件", "requisito", "exigence", "anforderung", "需求", "요구사항"],
    ),
    (
        "acceptance criteria",
        &[
            "受け入れ基準",
            "受入基準",
            "criterios de aceptación",
            "criterios de aceptacion",
            "critères d'acceptation",
            "critérios de aceitação",
            "akzeptanzkriterien",
            "criteri di accettazione",
            "验收标准",
            "인수 기준",
        ],
    ),
];

/// True when `section` (a heading, lowercase) names `word` (a [`ROLES`] word) anywhere.
pub(super) fn names_role(section: &str, word: &str) -> bool {
    let words = ROLES.iter().find(|(w, _)| *w == word).map_or(&[][..], |(_, ws)| *ws);
    section.contains(word) || words.iter().any(|w| section.contains(w))
}

/// `text` after the role `word` and its number: `User Story 1 - Secure Agenda (Priority:
/// P1)` → `Secure Agenda (Priority: P1)`.
pub(super) fn strip_number_lead(text: &str, word: &str, n: &str) -> String {
    let rest = match role_word(text, word) {
        Some((start, len)) => &text[start + len..],
        None => text,
    };
    let rest = rest.trim_start();
    let rest = match rest.get(..n.len()) {
        Some(p) if p.eq_ignore_ascii_case(n) => &rest[n.len()..],
        _ => rest,
    };
    rest.trim_start_matches([' ', '-', ':', '—', '–', '：', '.'])
        .trim()
        .to_string()
}

/// A phase heading's number (`Phase 3: …`, `フェーズ 3: …`), unless the heading is a note
/// on the phase: `Phase 3 completion (2026-05-31)`, `Phase 5 prep — …`, `Phase 2 Summary`.
pub(super) fn phase_number(text: &str) -> Option<String> {
    let n = numbered_word(text, "phase")?;
    let (start, len) = role_word(text, "phase")?;
    let after = text[start + len..].trim_start();
    let after = after.get(n.len()..).unwrap_or("").trim_start();
    let next: String = after
        .chars()
        .take_while(|c| c.is_alphabetic() || *c == '-')
        .collect::<String>()
        .to_lowercase();
    const NOTES: [&str; 19] = [
        "completion",
        "complete",
        "completed",
        "prep",
        "preparation",
        "summary",
        "status",
        "review",
        "notes",
        "note",
        "retrospective",
        "retro",
        "report",
        "results",
        "recap",
        "checkpoint",
        "wrap-up",
        "handoff",
        "progress",
    ];
    (!NOTES.contains(&next.as_str())).then_some(n)
}

/// `(Priority: P1)` → `P1`, in the languages templates write it (`（優先度: P1）`,
/// `(Prioridad: P2)`).
pub(super) fn priority(text: &str) -> Option<String> {
    let (i, key) = [
        "Priority",
        "優先度",
        "Prioridad",
        "Prioridade",
        "Priorité",
        "Priorität",
        "优先级",
        "優先級",
        "우선순위",
    ]
    .iter()
    .find_map(|k| text.find(k).map(|i| (i, *k)))?;
    let rest = text[i + key.len()..].trim_start().strip_prefix([':', '：'])?;
    let p: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    (!p.is_empty()).then_some(p)
}

/// The title without `[P]`, `[USn]`, `[Story]` markers and emphasis around it.
pub(super) fn clean_title(s: &str) -> (String, bool) {
    let mut parallel = false;
    let mut rest = s.trim().trim_start_matches(':').trim_start();
    while let Some(r) = rest.strip_prefix("**").filter(|r| r.starts_with('[')) {
        rest = r;
    }
    while rest.starts_with('[')
        && let Some(end) = rest.find(']')
    {
        let tag = &rest[1..end];
        if tag == "P" {
            parallel = true;
        } else if !(tag.starts_with("US") || tag.starts_with("Story")) {
            break;
        }
        rest = rest[end + 1..].trim_start();
    }
    (rest.replace("**", "").trim().to_string(), parallel)
}
