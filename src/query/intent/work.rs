//! A question about the backlog as a whole: what is left, what can start, what to work
//! on next, naming nothing to search for ("what remains to be done?", "what should I
//! pick up next?"). Its answer is the work itself, not documents that use its words.

use super::words;

/// The words such a question may be made of: question and helper words, the words of
/// what is left or ready, and the backlog's generic nouns. Any other word names a topic
/// ("what is left for the export feature") and makes it a search.
const WORK_WORDS: &[&str] = &[
    // question and helper words
    "what",
    "which",
    "is",
    "are",
    "be",
    "being",
    "been",
    "was",
    "were",
    "do",
    "does",
    "to",
    "the",
    "a",
    "an",
    "i",
    "we",
    "me",
    "us",
    "can",
    "could",
    "should",
    "shall",
    "must",
    "may",
    "there",
    "any",
    "anything",
    "all",
    "of",
    "in",
    "on",
    "for",
    "up",
    "now",
    "right",
    "yet",
    "show",
    "list",
    "give",
    "tell",
    "that",
    "it",
    // what is left, what can start
    "left",
    "remain",
    "remains",
    "remaining",
    "open",
    "still",
    "unfinished",
    "outstanding",
    "pending",
    "next",
    "start",
    "ready",
    "pick",
    "begin",
    "done",
    "undone",
    "work",
    "working",
    // the backlog's generic nouns
    "task",
    "tasks",
    "todo",
];

/// What a question about the work asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkAsked {
    /// What can start now ("what should I work on next?"): the items under way and
    /// those `ready` offers.
    Next,
    /// What is left ("what remains to be done?"): every unfinished item, those under way
    /// and ready first.
    Left,
}

/// What `question` asks of the work, when it asks for the work left or ready and for
/// nothing else.
pub(super) fn asks_open_work(question: &str) -> Option<WorkAsked> {
    let clauses = words::clauses(question);
    let all: Vec<&String> = clauses.iter().flatten().collect();
    if !all.iter().all(|w| WORK_WORDS.contains(&w.as_str())) {
        return None;
    }
    let has = |set: &[&str]| all.iter().any(|w| set.contains(&w.as_str()));
    if has(&["next", "start", "ready", "pick", "begin"]) {
        Some(WorkAsked::Next)
    } else if has(&[
        "left",
        "remain",
        "remains",
        "remaining",
        "open",
        "unfinished",
        "outstanding",
        "pending",
        "undone",
    ]) {
        Some(WorkAsked::Left)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{WorkAsked, asks_open_work};

    #[test]
    fn a_question_about_the_work_left_names_nothing_else() {
        for q in [
            "what remains to be done",
            "What is left to do?",
            "what's still open?",
            "which tasks are still open",
            "show me the open tasks",
        ] {
            assert_eq!(asks_open_work(q), Some(WorkAsked::Left), "{q}");
        }
        for q in [
            "what can I start now?",
            "what should I work on next?",
            "anything ready to pick up?",
            "what is left that I can start?",
        ] {
            assert_eq!(asks_open_work(q), Some(WorkAsked::Next), "{q}");
        }
        for q in [
            "what is left for the export feature",
            "which tasks are still open in the login spec",
            "what is done",
            "open questions about caching",
            "implement T012",
            "",
        ] {
            assert_eq!(asks_open_work(q), None, "{q}");
        }
    }
}
