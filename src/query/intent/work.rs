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
    if has(NEXT_WORDS) {
        Some(WorkAsked::Next)
    } else if has(OPEN_WORDS) {
        Some(WorkAsked::Left)
    } else {
        None
    }
}

/// A work question about a scope it names ("what is still open in the billing spec?",
/// "what can I start next in 003?", "is the login feature finished?"): what it asks,
/// and the words that name the scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopedWork {
    /// What is asked of the scope's work.
    pub asked: WorkAsked,
    /// The words naming the scope, lowercase as written (`sign-up` as `signup`), in
    /// order: the question without its work, question and scope words.
    pub words: Vec<String>,
    /// The question also reads as one about the scope's parts ("what is left in epic
    /// X"), which the relations answer when those parts are documents of their own.
    pub parts: bool,
}

/// The words that ask what is left or unfinished, of the whole backlog or of a scope.
const OPEN_WORDS: &[&str] = &[
    "left",
    "remain",
    "remains",
    "remaining",
    "open",
    "unfinished",
    "outstanding",
    "pending",
    "undone",
];

/// More words that ask what is left in a scope (beyond [`OPEN_WORDS`]).
const MORE_LEFT_WORDS: &[&str] = &["unchecked", "unticked", "incomplete", "blocks", "blocking", "todo"];

/// The words that ask whether a scope is finished ("is X finished?", "is X done yet?").
const FINISHED_WORDS: &[&str] = &["finished", "done", "complete", "completed"];

/// The words that ask what can start ("what can I start next in X").
const NEXT_WORDS: &[&str] = &["next", "start", "ready", "pick", "begin"];

/// Words that name no scope: what a scope is (feature, spec, story…), the states asked
/// about, and the glue of a sentence about the work ("before we can call it finished").
const NOT_SCOPE: &[&str] = &[
    "feature",
    "features",
    "spec",
    "specs",
    "specification",
    "story",
    "stories",
    "epic",
    "epics",
    "change",
    "changes",
    "module",
    "part",
    "area",
    "folder",
    "requirements",
    "items",
    "item",
    "boxes",
    "box",
    "checkbox",
    "checkboxes",
    "things",
    "thing",
    "else",
    "and",
    "or",
    "but",
    "with",
    "without",
    "our",
    "my",
    "this",
    "these",
    "those",
    "its",
    "their",
    "they",
    "you",
    "nobody",
    "anyone",
    "someone",
    "before",
    "after",
    "so",
    "call",
    "called",
    "calling",
    "consider",
    "mark",
    "marked",
    "not",
    "no",
    "nothing",
    "actually",
    "really",
    "already",
    "how",
    "much",
    "many",
    "has",
    "have",
    "had",
    "started",
    "checked",
    "ticked",
    "finish",
    "finished",
    "complete",
    "completed",
    "from",
    "at",
    "by",
    "about",
    "will",
    "would",
    "need",
    "needs",
    "needed",
    "get",
    "got",
    "make",
    "happen",
    "stop",
    "stops",
    "blocks",
    "blocking",
    "unchecked",
    "unticked",
    "incomplete",
    "if",
    "yet",
    "else",
    "more",
    "which",
    "who",
    "whom",
    "whose",
    "when",
    "where",
    "why",
    "one",
    "ones",
    "here",
    "time",
];

/// What `question` asks of the work in a scope it names, with the words naming it:
/// a question (it asks, [`super::asking`]) about what is left, still open or blocking,
/// what can start, or whether something is finished, whose other words name something.
pub(super) fn asks_scoped_work(question: &str) -> Option<ScopedWork> {
    let clauses = words::clauses(question);
    let all: Vec<&String> = clauses.iter().flatten().collect();
    let has = |set: &[&str]| all.iter().any(|w| set.contains(&w.as_str()));
    // "Is X finished", "has X been done": an auxiliary opens the question.
    let opens_finished = matches!(
        all.first().map(|w| w.as_str()),
        Some("is" | "are" | "has" | "have" | "was")
    ) && has(FINISHED_WORDS);
    let not_done = all
        .windows(2)
        .any(|p| p[0] == "not" && FINISHED_WORDS.contains(&p[1].as_str()));
    let asked = if has(OPEN_WORDS) || has(MORE_LEFT_WORDS) || not_done || opens_finished {
        WorkAsked::Left
    } else if has(NEXT_WORDS) {
        WorkAsked::Next
    } else {
        return None;
    };
    let words: Vec<String> = all
        .iter()
        .filter(|w| {
            let w = w.as_str();
            !WORK_WORDS.contains(&w)
                && !NOT_SCOPE.contains(&w)
                && !OPEN_WORDS.contains(&w)
                && !MORE_LEFT_WORDS.contains(&w)
        })
        .map(|w| w.to_string())
        .collect();
    (!words.is_empty()).then_some(ScopedWork {
        asked,
        words,
        parts: false,
    })
}

#[cfg(test)]
mod tests {
    use super::{ScopedWork, WorkAsked, asks_open_work, asks_scoped_work};

    #[test]
    fn a_work_question_about_a_named_scope_keeps_the_words_that_name_it() {
        let scoped = |q: &str| asks_scoped_work(q).map(|s: ScopedWork| (s.asked, s.words.join(" ")));
        let left = |w: &str| Some((WorkAsked::Left, w.to_string()));
        assert_eq!(
            scoped("What is still open in the live cost and validation feedback spec?"),
            left("live cost validation feedback")
        );
        assert_eq!(
            scoped("What is still unchecked in the sign-up and sign-in feature before we can call it finished?"),
            left("signup signin")
        );
        assert_eq!(scoped("what remains for the MVP"), left("mvp"));
        assert_eq!(scoped("is the login feature finished?"), left("login"));
        assert_eq!(scoped("what still blocks the export?"), left("export"));
        assert_eq!(
            scoped("What can I start next in 003?"),
            Some((WorkAsked::Next, "003".to_string()))
        );
        // Nothing named: the backlog's own work left; no work asked: a search.
        assert_eq!(scoped("what is left to do?"), None);
        assert_eq!(scoped("why did we choose the BFF?"), None);
    }

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
