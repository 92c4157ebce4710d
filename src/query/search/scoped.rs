//! Ids as a question names them beyond exact ids: a spec-folder task's id inside its
//! scope (`T012` for `003-chat/T012`), and the words of taking an item up
//! ("implement T012"), which are no search terms beside an id.

use super::Engine;
use crate::text::tokenize;

/// The words of taking up a task: with an id, no search terms.
pub(super) const TAKE_UP: [&str; 14] = [
    "implement",
    "implementing",
    "start",
    "starting",
    "work",
    "working",
    "on",
    "do",
    "build",
    "finish",
    "task",
    "need",
    "know",
    "what",
];

/// The spec-folder items a task id names (`T012` is `003-chat/T012`): those of the
/// scopes another word of the query names (`003`, `chat`), else all of them, at most
/// five; none when it names more (a bare `1` in a sentence is no id). Returns the items
/// and the words that named their scope (they are part of the id as typed, no search
/// terms).
pub(super) fn scoped(engine: &dyn Engine, query: &str, tok: &str) -> (Vec<String>, Vec<String>) {
    if tok.contains('/') || !tok.bytes().any(|b| b.is_ascii_digit()) {
        return (Vec::new(), Vec::new());
    }
    let all = engine.scoped_ids(tok);
    let words: Vec<String> = tokenize::query_terms(query)
        .into_iter()
        .map(|t| t.word)
        .filter(|w| w.len() >= 3 && !w.eq_ignore_ascii_case(tok))
        .collect();
    let naming = |id: &str, w: &str| {
        let scope = id.rsplit_once('/').map_or("", |(s, _)| s).to_lowercase();
        scope.split(['-', '/', '.', '_']).any(|part| part == w)
    };
    let named: Vec<String> = all
        .iter()
        .filter(|id| words.iter().any(|w| naming(id, w)))
        .cloned()
        .collect();
    let scope_words: Vec<String> = words
        .iter()
        .filter(|w| named.iter().any(|id| naming(id, w)))
        .cloned()
        .collect();
    let pick = if named.is_empty() { all } else { named };
    if pick.len() <= 5 {
        (pick, scope_words)
    } else {
        (Vec::new(), Vec::new())
    }
}

/// The words that name an item inside a document by its number (`task 2 of story 2.1`
/// is `2.1/2`), and the prefix its local id takes (`acceptance criterion 3` is `2.1/AC3`).
const ITEM_WORDS: [(&str, &str); 6] = [
    ("task", ""),
    ("subtask", ""),
    ("step", ""),
    ("ac", "AC"),
    ("criterion", "AC"),
    ("criteria", "AC"),
];

/// The words that name a document whose id is a bare number (`story 2.1` is `2.1`).
const DOC_WORDS: [&str; 3] = ["story", "epic", "feature"];

/// The items a question names inside a document it also names: "task 2 of story 2.1",
/// "story 2.1's acceptance criterion 3" (`2.1/2`, `2.1/AC3`, BMAD's stories; any
/// document whose items are numbered inside it). `spaced` is the question's word-number
/// pairs ([`crate::text::ids::spaced`]), `named` the documents it names. Returns the
/// pairs that name a document (`story 2.1`) and those that name an item in one, each
/// with its id.
pub(super) fn items_of_named<'q>(
    engine: &dyn Engine,
    spaced: &[(&'q str, String)],
    named: &[String],
) -> (Named<'q>, Named<'q>) {
    let (mut docs, mut out) = (Vec::new(), Vec::new());
    let mut named = named.to_vec();
    // "Story 2.1": a document whose id is a bare number (BMAD's stories), named by its kind.
    for (pair, typed) in spaced {
        if let Some((word, num)) = typed.split_once('-')
            && DOC_WORDS.contains(&word.to_ascii_lowercase().as_str())
            && let Some(id) = engine.exact_id(num)
        {
            docs.push((*pair, id.clone()));
            named.push(id);
        }
    }
    for (pair, typed) in spaced {
        let Some((word, num)) = typed.split_once('-') else {
            continue;
        };
        let word = word.to_ascii_lowercase();
        let Some((_, prefix)) = ITEM_WORDS.iter().find(|(w, _)| *w == word) else {
            continue;
        };
        let found = named
            .iter()
            .filter(|doc| !doc.ends_with(&format!("/{num}")) && doc.as_str() != num)
            .find_map(|doc| engine.exact_id(&format!("{doc}/{prefix}{num}")));
        if let Some(id) = found {
            out.push((*pair, id));
        }
    }
    (docs, out)
}

/// Word-number pairs of a question, each with the id it names.
pub(super) type Named<'q> = Vec<(&'q str, String)>;
