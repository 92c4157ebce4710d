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
/// five; none when it names more (a bare `1` in a sentence is no id).
pub(super) fn scoped(engine: &dyn Engine, query: &str, tok: &str) -> Vec<String> {
    if tok.contains('/') || !tok.bytes().any(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    let all = engine.scoped_ids(tok);
    let words: Vec<String> = tokenize::query_terms(query)
        .into_iter()
        .map(|t| t.word)
        .filter(|w| w.len() >= 3 && !w.eq_ignore_ascii_case(tok))
        .collect();
    let named: Vec<String> = all
        .iter()
        .filter(|id| {
            let scope = id.rsplit_once('/').map_or("", |(s, _)| s).to_lowercase();
            words
                .iter()
                .any(|w| scope.split(['-', '/', '.', '_']).any(|part| part == w))
        })
        .cloned()
        .collect();
    let pick = if named.is_empty() { all } else { named };
    if pick.len() <= 5 { pick } else { Vec::new() }
}
