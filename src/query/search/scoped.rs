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
    // The scopes most of the question's words name ("3.2 in warband properties editor"
    // is `3-warband-properties-editor/3.2`, not `2-warband-list-navigation/3.2`).
    let naming_words = |id: &str| words.iter().filter(|w| naming(id, w)).count();
    let most = all.iter().map(|id| naming_words(id)).max().unwrap_or(0);
    let named: Vec<String> = all
        .iter()
        .filter(|id| most > 0 && naming_words(id) == most)
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

/// The spec folder (`specs/003-ai-chatbot/`, `.kiro/specs/login/`) of a path: its
/// prefix up to the folder's slash, and the folder's name. A Kiro feature is the folder
/// its files sit in, at any depth (`.kiro/specs/finished/login/`: folders group features).
fn spec_folder(path: &str) -> Option<(&str, &str)> {
    // An OpenSpec change is its folder (`openspec/changes/<id>/`, archived
    // `openspec/changes/archive/<date>-<id>/`), delta specs and all.
    if let Some(i) = path
        .find("openspec/changes/")
        .filter(|&i| i == 0 || path[..i].ends_with('/'))
    {
        let mut at = i + "openspec/changes/".len();
        if path[at..].starts_with("archive/") {
            at += "archive/".len();
        }
        let end = at + path[at..].find('/')?;
        return Some((&path[..=end], &path[at..end]));
    }
    let at = path.find("specs/").filter(|&i| i == 0 || path[..i].ends_with('/'))? + "specs/".len();
    let (start, end) = if path[..at].ends_with(".kiro/specs/") {
        let end = path.rfind('/').filter(|&e| e >= at)?;
        (path[..end].rfind('/')? + 1, end)
    } else {
        (at, at + path[at..].find('/')?)
    };
    Some((&path[..=end], &path[start..end]))
}

/// Words of folder names that name no feature by themselves.
const GENERIC: [&str; 10] = [
    "feature", "features", "module", "spec", "specs", "phase", "system", "service", "app", "tasks",
];

/// The words after a word that make it a scope: "the agenda feature", "chatbot tasks",
/// "the chatbot's MVP".
const SCOPE_AFTER: [&str; 14] = [
    "feature",
    "features",
    "spec",
    "specs",
    "module",
    "folder",
    "tasks",
    "task",
    "stories",
    "story",
    "requirements",
    "plan",
    "mvp",
    "s",
];

/// The words before a word that make it a scope: "the MVP of the chatbot", "in agenda".
const SCOPE_BEFORE: [&str; 4] = ["of", "in", "for", "within"];

/// The spec folder a question names by a word of its name, said as a scope ("the MVP
/// of the chatbot", "which chatbot tasks", "the agenda feature"), among the folders of
/// the documents that matched: the folder's path prefix, when exactly one is named. A
/// folder's word said otherwise ("the timer page") may be about another folder's work.
pub(super) fn named_folder<'d>(
    engine: &dyn Engine,
    docs: impl Iterator<Item = &'d str>,
    query: &str,
) -> Option<String> {
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let scopes: Vec<&str> = (0..words.len())
        .filter(|&i| {
            let after = words.get(i + 1).is_some_and(|w| SCOPE_AFTER.contains(&w.as_str()));
            let before = (i >= 1 && SCOPE_BEFORE.contains(&words[i - 1].as_str()))
                || (i >= 2 && words[i - 1] == "the" && SCOPE_BEFORE.contains(&words[i - 2].as_str()));
            after || before
        })
        .map(|i| words[i].as_str())
        .filter(|w| w.len() >= 4 && !GENERIC.contains(w))
        .collect();
    if scopes.is_empty() {
        return None;
    }
    let mut folders: Vec<(String, String)> = docs
        .filter_map(|id| engine.doc(id))
        .filter_map(|d| spec_folder(&d.path).map(|(p, n)| (p.to_string(), n.to_lowercase())))
        .collect();
    folders.sort();
    folders.dedup();
    let named: Vec<&(String, String)> = folders
        .iter()
        .filter(|(_, name)| name.split(['-', '_', '.']).any(|part| scopes.contains(&part)))
        .collect();
    match named.as_slice() {
        [(prefix, _)] => Some(prefix.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::spec_folder;

    #[test]
    fn a_kiro_feature_is_the_folder_its_files_sit_in() {
        assert_eq!(
            spec_folder("specs/003-chat/checklists/ux.md"),
            Some(("specs/003-chat/", "003-chat"))
        );
        assert_eq!(
            spec_folder(".kiro/specs/login/tasks.md"),
            Some((".kiro/specs/login/", "login"))
        );
        // hashpass-tech/jack's features grouped by state.
        assert_eq!(
            spec_folder(".kiro/specs/finished/jack-sdk-core/tasks.md"),
            Some((".kiro/specs/finished/jack-sdk-core/", "jack-sdk-core"))
        );
        assert_eq!(spec_folder(".kiro/specs/README.md"), None);
        assert_eq!(
            spec_folder("openspec/changes/add-2fa/specs/auth/spec.md"),
            Some(("openspec/changes/add-2fa/", "add-2fa"))
        );
        assert_eq!(
            spec_folder("openspec/changes/archive/2025-01-11-add-2fa/tasks.md"),
            Some(("openspec/changes/archive/2025-01-11-add-2fa/", "2025-01-11-add-2fa"))
        );
        assert_eq!(spec_folder("openspec/changes/NOTES.md"), None);
        assert_eq!(
            spec_folder("openspec/specs/auth/spec.md"),
            Some(("openspec/specs/auth/", "auth"))
        );
    }
}
