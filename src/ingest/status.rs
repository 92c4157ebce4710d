//! Statuses as people write them in a document's body: the first status line of a
//! `## Status` section, a `Status: X` line or a status table row under the title, read
//! past emoji, bold and list markers and a date on either side. A word where a status
//! belongs that is no known state is reported, never taken as one.
//!
//! Read on real decision logs: "✅ Accepted" and "⌛️ Superseded [0019](…)"
//! (ministryofjustice/modernisation-platform), "* Accepted (2021-09-01)" and a dated
//! history list (ministryofjustice/opg-lpa), `|Status|Implemented|` rows
//! (nats-io/nats-architecture-and-design), a `| Status | Date |` header over its values
//! (DependencyTrack/hyades), `- Status: accepted` (log4brains) and adr-tools' plain
//! lines. docs/adr.md lists them with their commits.

use crate::ingest::markdown::Section;
use crate::model::EdgeType;
use crate::model::backlog::{Group, fold_state};
use crate::model::diag::{Code, Diagnostic, Severity};

/// Statuses decision logs commonly write beyond the configured ones and the state
/// names every backlog uses ([`Group::builtin`]): read as written, without configuring.
const COMMON: [&str; 7] = [
    "draft",
    "approved",
    "implemented",
    "partiallyimplemented",
    "pending",
    "declined",
    "amended",
];

/// Words that end the status a line starts with ("Reverted *by* …", "Accepted *on* …").
const STOP: [&str; 16] = [
    "by", "on", "in", "since", "at", "from", "with", "and", "as", "per", "for", "the", "to", "of", "is", "was",
];

/// A status read from a document's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyStatus {
    /// The state, spelled as the configured state it matches (else as written,
    /// capitalised); None when the word where the status belongs is no known state.
    pub state: Option<String>,
    /// Read from a `Status: X` line or a table row (not a `## Status` section).
    pub from_line: bool,
    /// The word where the status belongs when it is no known state, with its line.
    pub unknown: Option<(u32, String)>,
    /// The status as written, decoration and all (`✅ Complete - October 4, 2025`), when
    /// a state was read from it.
    pub written: Option<String>,
    /// The status lines (1-based file line, text without its decoration, lowercase):
    /// the links on them are typed.
    lines: Vec<(u32, String)>,
}

impl BodyStatus {
    /// The edge type of a link on `line`, when it sits on a status line that says how:
    /// "superseded by" (or a line whose status is Superseded, "⌛️ Superseded [0019](…)")
    /// → `superseded_by`, "supersedes" → `supersedes`, "amended by", "amends",
    /// "supplemented by", "supplements" → `amends`.
    pub fn edge_on(&self, line: u32, amends: EdgeType) -> Option<EdgeType> {
        let (_, text) = self.lines.iter().find(|(l, _)| *l == line)?;
        let has = |words: &[&str]| words.iter().any(|w| text.contains(w));
        if has(&["superseded by", "superceded by", "replaced by"]) {
            Some(EdgeType::SupersededBy)
        } else if has(&["supersedes", "replaces"]) {
            Some(EdgeType::Supersedes)
        } else if has(&["amended by", "amends", "supplemented by", "supplements"]) {
            Some(amends)
        } else if text.starts_with("superseded") || text.starts_with("superceded") {
            Some(EdgeType::SupersededBy)
        } else {
            None
        }
    }

    /// The warning for a word where the status belongs that is no known state:
    /// `what` names the kind of document ("ADR", "work item"), `known` the configured
    /// states.
    pub fn unknown_state(&self, path: &str, what: &str, known: &[String]) -> Option<Diagnostic> {
        let (line, word) = self.unknown.as_ref()?;
        Some(
            Diagnostic::new(
                path,
                *line,
                Severity::Warning,
                Code::UnknownState,
                format!(
                    "`{word}` stands where the status belongs but is no known {what} state (known: {}); not read as one (add it to the configured states if it is one)",
                    known.join(", ")
                ),
            )
            .about(word.as_str()),
        )
    }
}

/// The status a document's body states: the first status line of a `Status` section
/// (or the status cell of a table or a `Status:` line in it), else a `Status: X` line
/// or a status table row in the text before the second heading.
pub fn read(sections: &[Section], known: &[String]) -> Option<BodyStatus> {
    // The metadata under the title first: a later `## Status` may describe something
    // else (nats' ADRs have a `Status` table row and a section on a `Status` interface).
    if let Some(st) = under_title(sections, known) {
        return Some(st);
    }
    let sec = sections.iter().find(|s| is_status_key(&s.heading))?;
    let lines = content_lines(sec);
    let st = match keyed(&lines) {
        Some((n, value, english)) => single(n, &value, false, known).reported(english),
        None => from_section(&lines, known),
    };
    Some(st.reported(is_english_key(&sec.heading)))
}

/// A decision's status as `status` read it, with what its prose says of its successor: a
/// line "This decision has been superseded by [X](…)", "Superseded by [X](…)" or
/// "Replaced by [X](…)" in the text before the second heading makes the links on it
/// `superseded_by`, and when no status was read, its status Superseded.
pub fn with_prose(status: Option<BodyStatus>, sections: &[Section], known: &[String]) -> Option<BodyStatus> {
    let stated = status.as_ref().is_some_and(|st| st.state.is_some());
    let Some((n, text)) = sections.iter().take(2).flat_map(content_lines).find_map(|(n, l)| {
        let text = clean(l).text.to_lowercase();
        is_successor_line(&text).then_some((n, text))
    }) else {
        return status;
    };
    match status {
        Some(mut st) if stated => {
            st.lines.push((n, text));
            Some(st)
        }
        _ => Some(BodyStatus {
            state: spelled("Superseded", known),
            from_line: true,
            unknown: None,
            written: None,
            lines: vec![(n, text)],
        }),
    }
}

/// A line of prose that names a decision's successor.
fn is_successor_line(text: &str) -> bool {
    let t = text
        .strip_prefix("this decision")
        .or_else(|| text.strip_prefix("this adr"))
        .or_else(|| text.strip_prefix("this record"))
        .map(|r| {
            let r = r.trim_start();
            let r = r
                .strip_prefix("has been")
                .or_else(|| r.strip_prefix("is"))
                .or_else(|| r.strip_prefix("was"));
            r.unwrap_or("").trim_start()
        })
        .unwrap_or(text);
    ["superseded by", "superceded by", "replaced by"]
        .iter()
        .any(|p| t.starts_with(p))
}

/// The status a `Status: X` line or a status table row states in the text before the
/// second heading (a `Status` section aside).
pub fn under_title(sections: &[Section], known: &[String]) -> Option<BodyStatus> {
    let head: Vec<(u32, &str)> = sections
        .iter()
        .take(2)
        .filter(|s| !is_status_key(&s.heading))
        .flat_map(content_lines)
        .collect();
    keyed(&head).map(|(n, value, english)| single(n, &value, true, known).reported(english))
}

/// The status phrase a log writes where a status belongs when it is no known state, if
/// it reads as a status and not as prose ("Pending", "Partly superseded", "Reverted by
/// […]", but not "June 2020 Update"): what `init` adds to the configured states.
pub fn learnable(sections: &[Section], known: &[String]) -> Option<String> {
    let st = read(sections, known)?;
    let (line, word) = st.unknown?;
    let (_, text) = st.lines.iter().find(|(l, _)| *l == line)?;
    let rest = text.get(word.len()..)?.trim_start_matches(['*', '_', ' ']);
    let next = rest.split_whitespace().next().unwrap_or("");
    let clean = rest.is_empty()
        || rest.starts_with(['(', ',', ':', ';', '.', '[', '-', '–', '—'])
        || ["by", "on", "since"].contains(&next)
        || is_date(next);
    clean.then_some(word)
}

/// A heading or key that names a status (`Status`, `state:`, `1. Status ✅`), in the
/// languages spec templates are written in too (`Estado`, `Statut`, `ステータス`).
fn is_status_key(h: &str) -> bool {
    let t = h.trim_matches(|c: char| !c.is_alphabetic()).to_lowercase();
    is_english_key(h) || LOCAL_KEYS.contains(&t.as_str())
}

/// `Status` or `State`: a word where such a key's status belongs that is no known state
/// is reported; under another language's key (whose decision words, `Aceptado`, no
/// configuration lists) it is only not read.
fn is_english_key(h: &str) -> bool {
    let t = h.trim_matches(|c: char| !c.is_alphabetic()).to_lowercase();
    t == "status" || t == "state"
}

/// The status keys of other languages, lowercase.
const LOCAL_KEYS: [&str; 10] = [
    "estado",
    "statut",
    "stato",
    "situação",
    "zustand",
    "ステータス",
    "状態",
    "状态",
    "狀態",
    "상태",
];

impl BodyStatus {
    /// Without its unknown word unless `report`.
    fn reported(mut self, report: bool) -> BodyStatus {
        if !report {
            self.unknown = None;
        }
        self
    }
}

/// The non-empty lines of a section outside fenced code, with their file lines.
fn content_lines(sec: &Section) -> Vec<(u32, &str)> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for (i, l) in sec.text.lines().enumerate() {
        let t = l.trim();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if let Some(f) = ["```", "~~~"].into_iter().find(|f| t.starts_with(f)) {
            fence = Some(f);
            continue;
        }
        if !t.is_empty() {
            out.push((sec.text_line + i as u32, t));
        }
    }
    out
}

/// A status given by key: a `Status: X` line (list marker and bold allowed), a table
/// row `| Status | X |`, or a table whose header has a Status column (its first row's
/// cell). The file line, the value and whether its key is English.
fn keyed(lines: &[(u32, &str)]) -> Option<(u32, String, bool)> {
    let cells = |l: &str| -> Vec<String> {
        let l = l.trim().trim_start_matches('|').trim_end_matches('|');
        l.split('|').map(|c| c.replace("**", "").trim().to_string()).collect()
    };
    let separator = |l: &str| l.starts_with('|') && l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
    for (i, &(n, l)) in lines.iter().enumerate() {
        if l.starts_with('|') {
            let row = cells(l);
            let header_below = lines.get(i + 1).is_some_and(|(_, next)| separator(next));
            if header_below {
                let Some(col) = row.iter().position(|c| is_status_key(c)) else {
                    continue;
                };
                if let Some(&(m, data)) = lines.get(i + 2).filter(|(_, d)| d.starts_with('|')) {
                    let value = cells(data).get(col).cloned().unwrap_or_default();
                    return Some((m, value, is_english_key(&row[col])));
                }
            } else if row.len() >= 2 && is_status_key(&row[0]) && !separator(l) {
                return Some((n, row[1].clone(), is_english_key(&row[0])));
            }
            continue;
        }
        let t = strip_list(l).0.replace("**", "").replace("__", "");
        if let Some((key, value)) = t.split_once([':', '：'])
            && is_status_key(key)
        {
            return Some((n, value.trim().to_string(), is_english_key(key)));
        }
    }
    None
}

/// A status given as one value (a `Status:` line, a table cell).
fn single(n: u32, value: &str, from_line: bool, known: &[String]) -> BodyStatus {
    let c = clean(value);
    let (state, unknown) = match lead(&c.text, known) {
        Lead::Known(s) => (Some(s), None),
        Lead::Unknown(w) => (None, Some((n, w))),
        Lead::Nothing => (None, None),
    };
    BodyStatus {
        written: state.as_ref().map(|_| value.trim().to_string()),
        state,
        from_line,
        unknown,
        lines: vec![(n, c.text.to_lowercase())],
    }
}

/// The status of a `Status` section: its first status line, past lines that hold only a
/// date, a badge or another key (`Date: …`). A list of dated statuses is a history,
/// oldest first: its last item is the status ("* Proposed (2021-06-16)", "* Rejected
/// (2022-09-26)").
fn from_section(lines: &[(u32, &str)], known: &[String]) -> BodyStatus {
    let cleaned: Vec<(u32, Cleaned)> = lines
        .iter()
        .filter(|(_, l)| !l.starts_with("!["))
        .map(|&(n, l)| (n, clean(l)))
        .collect();
    // A `Key: value` line is another field (`Date: …`) unless its key is a state.
    let mut content = cleaned
        .iter()
        .filter(|(_, c)| !c.text.is_empty() && (!c.keyed || matches!(lead(&c.text, known), Lead::Known(_))));
    let (mut state, mut unknown, mut at) = (None, None, None);
    if let Some((n, first)) = content.next() {
        match lead(&first.text, known) {
            Lead::Known(s) => {
                (state, at) = (Some(s), Some(*n));
                if first.list && first.dated {
                    for (m, c) in content {
                        match lead(&c.text, known) {
                            Lead::Known(s) if c.list && c.dated => (state, at) = (Some(s), Some(*m)),
                            _ => break,
                        }
                    }
                }
            }
            Lead::Unknown(w) => unknown = Some((*n, w)),
            Lead::Nothing => {}
        }
    }
    let written = at
        .and_then(|at| lines.iter().find(|(n, _)| *n == at))
        .map(|(_, l)| l.to_string());
    BodyStatus {
        state,
        from_line: false,
        unknown,
        written,
        lines: cleaned.into_iter().map(|(n, c)| (n, c.text.to_lowercase())).collect(),
    }
}

/// A line without its decoration.
#[derive(Debug)]
struct Cleaned {
    /// The text from its first word (emoji, markers and a leading date removed).
    text: String,
    /// It was a list item.
    list: bool,
    /// It holds a date.
    dated: bool,
    /// It reads `Key: value` (`Date: 2020-01-01`, `Accepted: 16/11/2022`).
    keyed: bool,
}

/// Remove a line's list marker, emoji, bold and italic markers and a leading date.
fn clean(line: &str) -> Cleaned {
    let (rest, list) = strip_list(line);
    let skip = |s: &str| s.trim_start_matches(|c: char| !c.is_alphanumeric()).to_string();
    let mut text = skip(rest);
    let mut dated = false;
    if let Some(first) = text.split_whitespace().next()
        && is_date(first.trim_end_matches(|c: char| !c.is_ascii_digit()))
    {
        dated = true;
        text = skip(&text[first.len()..]);
    }
    dated |= text
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ':' | ',' | '[' | ']' | '*' | '_'))
        .any(is_date);
    let keyed = text.split_once(':').is_some_and(|(k, _)| {
        let k = k.trim();
        !k.is_empty() && k.len() <= 20 && k.chars().all(|c| c.is_alphabetic() || c == ' ')
    });
    Cleaned {
        text,
        list,
        dated,
        keyed,
    }
}

/// A line without its list marker (`-`, `*`, `+`, `1.`, `1)`), and whether it had one.
fn strip_list(line: &str) -> (&str, bool) {
    let t = line.trim_start();
    for m in ["- ", "* ", "+ "] {
        if let Some(r) = t.strip_prefix(m) {
            return (r, true);
        }
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=3).contains(&digits) && t[digits..].starts_with([')', '.']) && t[digits + 1..].starts_with(' ') {
        return (&t[digits + 1..], true);
    }
    (t, false)
}

/// A numeric date: `2021-09-01`, `2021/09/01`, `2021-12`, `19/04/2022`, `01.02.2020`.
fn is_date(tok: &str) -> bool {
    let parts: Vec<&str> = tok.split(['-', '/', '.']).collect();
    (2..=3).contains(&parts.len())
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit()))
        && parts.iter().any(|p| p.len() == 4)
}

/// What a cleaned line starts with.
#[derive(Debug, PartialEq)]
enum Lead {
    /// A known state, spelled as configured (else as written, capitalised).
    Known(String),
    /// A word that is no known state (a phrase of up to two words, before a word such
    /// as "by" or "on").
    Unknown(String),
    /// No word at all.
    Nothing,
}

/// The known state a cleaned line starts with (the longest of up to three words), or
/// the phrase standing in its place.
fn lead(text: &str, known: &[String]) -> Lead {
    // Words up to three, ending at punctuation ("Wobbly, see …" is `Wobbly`).
    let mut words: Vec<&str> = Vec::new();
    for raw in text.split_whitespace().take(3) {
        let w = raw.trim_matches(['*', '_', '`', '~']);
        let mut bare = w.trim_end_matches([',', ';', ':', '.', '!', '?']);
        // Scripts written without spaces end a word where its letters end: `完了（2025-10-04）`.
        if bare.starts_with(is_cjk) {
            bare = &bare[..bare.find(|c: char| !c.is_alphabetic()).unwrap_or(bare.len())];
        }
        if !bare.starts_with(char::is_alphabetic) || !bare.chars().all(|c| c.is_alphabetic() || c == '-' || c == '\'') {
            break;
        }
        words.push(bare);
        if bare.len() < w.len() {
            break;
        }
    }
    if words.is_empty() {
        return Lead::Nothing;
    }
    for k in (1..=words.len()).rev() {
        let phrase = words[..k].join(" ");
        if let Some(s) = spelled(&phrase, known) {
            return Lead::Known(s);
        }
    }
    let second = words.get(1).filter(|w| !STOP.contains(&w.to_lowercase().as_str()));
    Lead::Unknown(match second {
        Some(w) => format!("{} {w}", words[0]),
        None => words[0].to_string(),
    })
}

/// A letter of a script written without spaces between words (kana, CJK ideographs,
/// hangul).
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{9fff}' | '\u{ac00}'..='\u{d7af}' | '\u{f900}'..='\u{faff}')
}

/// `phrase` as the state it names: a configured state (as configured; "Superceded" is
/// Superseded misspelt), else a state every backlog or decision log uses, as written
/// with a capital (`in progress` → `In progress`, `DRAFT` → `Draft`).
fn spelled(phrase: &str, known: &[String]) -> Option<String> {
    let mut f = fold_state(phrase);
    if f == "superceded" {
        f = "superseded".into();
    }
    if let Some(k) = known.iter().find(|k| fold_state(k) == f) {
        return Some(k.clone());
    }
    if Group::builtin(&f).is_none() && !COMMON.contains(&f.as_str()) {
        return None;
    }
    let written = match phrase {
        _ if f == "superseded" => "superseded".to_string(),
        p if !p.chars().any(char::is_lowercase) => p.to_lowercase(),
        p => p.to_string(),
    };
    let mut c = written.chars();
    c.next().map(|first| first.to_uppercase().chain(c).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::markdown;

    fn known() -> Vec<String> {
        ["Proposed", "Accepted", "Deprecated", "Superseded", "Rejected"]
            .map(String::from)
            .to_vec()
    }

    fn status(body: &str) -> Option<BodyStatus> {
        read(&markdown::parse_body(body, 1).sections, &known())
    }

    fn state(body: &str) -> Option<String> {
        status(body).and_then(|s| s.state)
    }

    #[test]
    fn plain_sections_and_lines() {
        let st =
            status("# 2. X\n\n## Status\n\n2019-01-01\n\nSuperseded by [3](0003-y.md)\n\n## Context\nC\n").unwrap();
        assert_eq!(st.state.as_deref(), Some("Superseded"));
        assert_eq!(st.edge_on(7, EdgeType::Relates), Some(EdgeType::SupersededBy));
        assert_eq!(st.edge_on(11, EdgeType::Relates), None);
        assert_eq!(
            state("# T\n\n* Status: accepted\n* Date: 2020\n").as_deref(),
            Some("Accepted")
        );
        assert_eq!(
            state("# T\n\n**Status:** Draft\n\n## Context\n").as_deref(),
            Some("Draft")
        );
        assert_eq!(state("# T\n\n- **Status**: Accepted\n").as_deref(), Some("Accepted"));
        let st = status("## Status\n\nAccepted, amended by [4](0004-z.md)\n").unwrap();
        assert_eq!(
            (st.state.as_deref(), st.edge_on(3, EdgeType::Relates)),
            (Some("Accepted"), Some(EdgeType::Relates))
        );
        assert_eq!(status("# T\n\nNo status here.\n"), None);
    }

    #[test]
    fn emoji_bold_and_list_markers_are_skipped() {
        for body in [
            "## Status\n\n✅ Accepted\n",
            "## Status\n\n**Accepted**\n",
            "## Status\n\n_Accepted_\n",
            "## Status\n\n- Accepted\n",
            "## Status\n\n> ✅ **Accepted**\n",
            "## Status ✅\n\nACCEPTED\n",
            "## 1. Status\n\n1. Accepted\n",
        ] {
            assert_eq!(state(body).as_deref(), Some("Accepted"), "{body}");
        }
        let st = status("## Status\n\n⌛️ Superseded by [036](036-x.md)\n").unwrap();
        assert_eq!(st.state.as_deref(), Some("Superseded"));
        assert_eq!(st.edge_on(3, EdgeType::Relates), Some(EdgeType::SupersededBy));
        // "Superseded" and a link, no "by": the link is the successor.
        let st = status("## Status\n\n⌛️ Superseded [0019](0019-x.md)\n").unwrap();
        assert_eq!(st.edge_on(3, EdgeType::Relates), Some(EdgeType::SupersededBy));
    }

    #[test]
    fn a_date_before_or_after() {
        for body in [
            "## Status\n\n2020-06-01 Accepted\n",
            "## Status\n\n2020-06-01: Accepted\n",
            "## Status\n\nAccepted (2021-03-04)\n",
            "## Status\n\nAccepted on 2021-03-04\n",
            "## Status\n\n* Accepted (2021-09-01)\n",
            "## Status\n\nAccepted (19/04/2022)\n",
            "## Status\n\nAccepted: 16/11/2022\n",
            "## Status\n\nAccepted (retrospectively) :29/04/2022\n",
            "## Status\n\nDate: 2020-01-01\n\nAccepted\n",
        ] {
            assert_eq!(state(body).as_deref(), Some("Accepted"), "{body}");
        }
        // A dated history list: the last item is the status.
        let history = "## Status\n\n* Proposed (2021-06-16)\n* Rejected partially (2022-09-26)\n\nWe scaled it back.\n";
        assert_eq!(state(history).as_deref(), Some("Rejected"));
        // Undated: the first line is the status, the next one a relation.
        assert_eq!(
            state("## Status\n\n- Accepted\n- Superseded by [2](2.md)\n").as_deref(),
            Some("Accepted")
        );
    }

    #[test]
    fn table_rows() {
        assert_eq!(
            state("# T\n\n|Metadata|Value|\n|--------|-----|\n|Date    |2020-04-30|\n|Status  |Implemented|\n\n## Context\n")
                .as_deref(),
            Some("Implemented")
        );
        assert_eq!(state("# T\n\n| Status | Accepted |\n").as_deref(), Some("Accepted"));
        let header = "| Status   | Date       |\n|:---------|:-----------|\n| Proposed | 2025-01-07 |\n\n## Context\n";
        let st = status(header).unwrap();
        assert_eq!((st.state.as_deref(), st.from_line), (Some("Proposed"), true));
        assert_eq!(
            state("## 1. Status\n\n| Field | Value |\n|---|---|\n| **Status** | Accepted |\n").as_deref(),
            Some("Accepted")
        );
    }

    #[test]
    fn a_word_from_another_line_is_never_a_status() {
        // The first line is the status; "June" of a later line is not.
        let st = status("## Status\n\n✅ Accepted\n\n**June 2020 Update**\n\nWe changed it.\n").unwrap();
        assert_eq!(st.state.as_deref(), Some("Accepted"));
        // An unknown word where the status belongs: reported, not a state.
        let st = status("## Status\n\n**June 2020 Update**\n\nAccepted later.\n").unwrap();
        assert_eq!(st.state, None);
        assert_eq!(st.unknown, Some((3, "June".to_string())));
        let d = st.unknown_state("adr/1.md", "ADR", &known()).unwrap();
        assert_eq!((d.path.as_str(), d.line, d.code), ("adr/1.md", 3, Code::UnknownState));
        assert!(d.message.contains("`June`"), "{}", d.message);
        let st = status("## Status\n\nReverted by [discussion](https://x.org/1).\n").unwrap();
        assert_eq!((st.state, st.unknown), (None, Some((3, "Reverted".to_string()))));
        assert_eq!(state("# T\n\nStatus: Foo\n"), None);
        let st = status("# T\n\n**Status:** In Design\n").unwrap();
        assert_eq!(st.unknown, Some((3, "In Design".to_string())));
    }

    #[test]
    fn common_words_and_spellings() {
        assert_eq!(state("## Status\n\nPending\n").as_deref(), Some("Pending"));
        assert_eq!(
            state("## Status\n\n* Superceded (2023-04-13)\n").as_deref(),
            Some("Superseded")
        );
        assert_eq!(
            state("# T\n\n|Status  |Partially Implemented|\n").as_deref(),
            Some("Partially Implemented")
        );
        assert_eq!(state("## Status\n\nin progress\n").as_deref(), Some("In progress"));
        assert_eq!(
            state("# T\n\n**Status:** ✅ COMPLETE - All Phases Finished\n").as_deref(),
            Some("Complete")
        );
    }

    #[test]
    fn learnable_phrases() {
        let learn = |body: &str| learnable(&markdown::parse_body(body, 1).sections, &known());
        assert_eq!(
            learn("## Status\n\nPartly superseded\n").as_deref(),
            Some("Partly superseded")
        );
        assert_eq!(
            learn("## Status\n\nReverted by [discussion #1](https://x.org/1).\n").as_deref(),
            Some("Reverted")
        );
        assert_eq!(learn("## Status\n\n**June 2020 Update**\n"), None);
        assert_eq!(learn("## Status\n\nAccepted\n"), None);
        assert_eq!(
            learn("## Status\n\nWobbly, see the thread\n").as_deref(),
            Some("Wobbly")
        );
    }

    #[test]
    fn the_metadata_under_the_title_comes_before_a_later_status_section() {
        let body = "# KV\n\n|Metadata|Value|\n|--------|-----|\n|Status  |Implemented|\n\n## Context\n\nC\n\n## Status\n\nThe `Status` interface gets a property.\n";
        let st = status(body).unwrap();
        assert_eq!((st.state.as_deref(), st.unknown), (Some("Implemented"), None));
    }

    #[test]
    fn prose_names_the_successor() {
        let prose = |body: &str| {
            let sections = markdown::parse_body(body, 1).sections;
            with_prose(read(&sections, &known()), &sections, &known())
        };
        for (body, line) in [
            (
                "# 12. Queue\n\nThis decision has been superseded by decision: [0022 Streams](0022-streams.md)\n\n## Context\n",
                3,
            ),
            (
                "# 12. Queue\n\nSuperseded by [0022](0022-streams.md)\n\n## Context\n",
                3,
            ),
            ("# 12. Queue\n\n> Replaced by [ADR-22](0022-streams.md).\n", 3),
        ] {
            let st = prose(body).unwrap();
            assert_eq!(st.state.as_deref(), Some("Superseded"), "{body}");
            assert_eq!(
                st.edge_on(line, EdgeType::Relates),
                Some(EdgeType::SupersededBy),
                "{body}"
            );
        }
        // A status stated elsewhere stays; the prose line's link is still the successor.
        let st = prose("# 12. Queue\n\nSuperseded by [0022](0022-streams.md)\n\n## Status\n\nAccepted\n").unwrap();
        assert_eq!(st.state.as_deref(), Some("Accepted"));
        assert_eq!(st.edge_on(3, EdgeType::Relates), Some(EdgeType::SupersededBy));
        // Prose further on, or that only mentions replacing, says nothing.
        assert_eq!(
            prose("# 12. Queue\n\n## Context\n\nC\n\n## Decision\n\nSuperseded by [x](x.md)\n"),
            None
        );
        assert_eq!(prose("# 12. Queue\n\nWe replaced the old queue by [x](x.md).\n"), None);
    }

    #[test]
    fn localized_status_keys() {
        assert_eq!(state("# T\n\n**Estado:** Completado\n").as_deref(), Some("Completado"));
        assert_eq!(state("# T\n\nステータス: 完了\n").as_deref(), Some("完了"));
        // An unknown word under another language's key is not read, nor reported.
        let st = status("# T\n\nEstado: Aceptado\n").unwrap();
        assert_eq!((st.state, st.unknown), (None, None));
    }

    #[test]
    fn fenced_code_is_not_read() {
        let body = "## Status\n\n```\n| Status | Date |\n|---|---|\n| Accepted | x |\n```\n\nProposed\n";
        assert_eq!(state(body).as_deref(), Some("Proposed"));
    }
}
