//! The ids a question names, and the rest of it as search text: exact ids, ids typed in
//! another form (`EIP 1559`, `ADR 21`), a spec-folder task inside its scope (`T012 in
//! 003`), an item numbered inside a story ("task 2 of story 2.1"); and the context a
//! spec-folder item is searched in when it is named with only the words of taking it up.

use super::Engine;
use super::scoped::{TAKE_UP, items_of_named, scoped};
use crate::config::Retrieval;
use crate::model::Kind;
use crate::query::intent::Intent;
use crate::text::ids::{self, Form};
use crate::text::mentions::mention_candidates;
use std::collections::{BTreeMap, HashSet};

/// The ids named in the query (seeds by themselves, in query order) and the rest of the
/// query, the full text.
pub(super) fn named_ids(engine: &dyn Engine, query: &str, r: &Retrieval) -> (Vec<String>, String) {
    let mut exact: Vec<String> = Vec::new();
    let mut text = query.to_string();
    // The ids mdgraph prints (`feature/2`, `7.7/2.1`, `003-x/T012`, `T012@chat`,
    // `ID@path`) name their item whole: read first, and blanked out of what the readings
    // below see, so the feature in `feature/2` is not taken for the id and `2` for a word.
    let (printed, blanked) = printed_ids(engine, query);
    for (word, id) in printed {
        text = remove_token(&text, word);
        if !exact.contains(&id) {
            exact.push(id);
        }
    }
    let query = blanked.as_str();
    // An id typed in another form (`EIP-1559` for `1559`) is a lookup only in a short
    // query; in a sentence it is context (an abstract citing the EIPs it builds on).
    // A word and a number typed apart (`ADR 21`) count as one word here. A question
    // names what it asks about, however long it is ("what came instead of ADR 2?").
    let spaced = ids::spaced(query);
    let short = query.split_whitespace().count() - spaced.len() <= 4 || Intent::is_question(query);
    for (tok, _) in mention_candidates(query) {
        let found = engine
            .exact_id(tok)
            .or_else(|| short.then(|| exact_typed_id(engine, tok, &r.id_aliases)).flatten());
        let (found, scope_words) = match found {
            Some(id) => (vec![id], Vec::new()),
            None => scoped(engine, query, tok),
        };
        take(&mut text, &mut exact, tok, found, &scope_words);
    }
    // A Kiro task's bare number ("3.2 in the warband editor"): an id only where other
    // words of the question name its scope (a bare number alone is no id).
    for tok in dotted_numbers(query) {
        let (found, scope_words) = scoped(engine, query, tok);
        if !scope_words.is_empty() {
            take(&mut text, &mut exact, tok, found, &scope_words);
        }
    }
    // "Task 2 of story 2.1": the item numbered inside a document the question names.
    let mut spaced = spaced;
    // The item comes before the document it is in: it is what the question asks about.
    let (docs, items) = items_of_named(engine, &spaced, &exact);
    for (pair, id) in docs.into_iter().chain(items.iter().cloned()) {
        text = remove_token(&text, pair);
        spaced.retain(|(p, _)| *p != pair);
        if !exact.contains(&id) {
            exact.push(id);
        }
    }
    if !items.is_empty() {
        exact.sort_by_key(|id| !items.iter().any(|(_, item)| item == id));
    }
    // A spec folder named beside one of its items is the item's scope, written out in
    // full ("implement T012 in 001-jwt-auth" as "T012 in jwt"): the item is what is asked
    // about, and is searched in its context as when its scope is a word of its folder's.
    let scoped_items: Vec<String> = exact.clone();
    exact.retain(|id| {
        !scoped_items.iter().any(|other| {
            other
                .strip_prefix(id.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
        })
    });
    // `ADR 21`, `task 88`: the id they spell, never a bare number (`version 2` is no
    // EIP-2).
    for (pair, typed) in spaced.iter().filter(|_| short) {
        let found = ids::forms(typed, &r.id_aliases).into_iter().find_map(|f| match f {
            Form::Id(k) => engine.exact_id(&k),
            Form::Number(n) => family_id(engine, typed, &n, &r.id_aliases),
        });
        if let Some(id) = found {
            text = remove_token(&text, pair);
            if !exact.contains(&id) {
                exact.push(id);
            }
        }
    }
    (exact, text)
}

/// The words of `query` that are ids as mdgraph prints them, each with the document it
/// names, and the query with those words blanked out. A word holding `/` or `@` is such
/// an id when it names one document: exactly (any case, `ID@uidprefix`), else as `show`
/// reads a scope written beside a local id (`003/T012`, `T012@chat`: the items whose id
/// is the local one in a scope whose name holds the written one). Any other word is one
/// only when it is a document's exact id and every other word is a word of taking work
/// up ("implement 1.1", "implement login").
fn printed_ids<'q>(engine: &dyn Engine, query: &'q str) -> (Vec<(&'q str, String)>, String) {
    let words: Vec<&str> = query.split_whitespace().collect();
    fn bare(w: &str) -> &str {
        w.trim_start_matches(['(', '[', '"', '\'', '`', '<'])
            .trim_end_matches([')', ']', '"', '\'', '`', '>', ',', ';', ':', '?', '!', '.'])
    }
    let only_take_up = |i: usize| {
        words.iter().enumerate().all(|(j, w)| {
            j == i || {
                let w = bare(w).to_lowercase();
                TAKE_UP.contains(&w.as_str()) || matches!(w.as_str(), "the" | "a" | "item" | "story" | "please")
            }
        })
    };
    let mut found: Vec<(&str, String)> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let written = bare(w);
        if written.is_empty() || !written.bytes().any(|b| b.is_ascii_alphanumeric()) {
            continue;
        }
        let id = if written.contains(['/', '@']) {
            engine
                .exact_id(w)
                .or_else(|| engine.exact_id(written))
                .or_else(|| scoped_local(engine, written))
        } else if only_take_up(i) {
            engine.exact_id(written)
        } else {
            None
        };
        if let Some(id) = id {
            found.push((written, id));
        }
    }
    let mut blanked = query.to_string();
    for (w, _) in &found {
        blanked = blanked.replace(w, &" ".repeat(w.len()));
    }
    (found, blanked)
}

/// The one item `scope/local` or `local@scope` names: an item whose id is `local` inside
/// a scope whose name holds `scope` (any case), as `show` reads it.
fn scoped_local(engine: &dyn Engine, written: &str) -> Option<String> {
    let (scope, local) = match written.rsplit_once('@') {
        Some((local, scope)) => (scope, local),
        None => written.rsplit_once('/')?,
    };
    if local.is_empty() || scope.is_empty() || !local.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let scope = scope.to_lowercase();
    let hits: Vec<String> = engine
        .scoped_ids(local)
        .into_iter()
        .filter(|id| {
            id.rsplit_once('/')
                .is_some_and(|(s, _)| s.to_lowercase().contains(&scope))
        })
        .collect();
    match hits.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The document an id-like token of a query names: as written, under a prefix alias
/// (`task-200` → `BACK-200`), or by the number after a written prefix (`EIP-1559` →
/// `1559`, `ERC-721` → `721`; only with a separator, so `sha256` is not EIP 256).
fn exact_typed_id(engine: &dyn Engine, tok: &str, aliases: &BTreeMap<String, String>) -> Option<String> {
    let separated = tok
        .find(|c: char| c.is_ascii_digit())
        .is_some_and(|i| i > 0 && tok[..i].ends_with(['-', '_']));
    ids::forms(tok, aliases).into_iter().find_map(|f| match f {
        Form::Id(k) => engine.exact_id(&k),
        Form::Number(n) if separated => engine.exact_id(&n).or_else(|| family_id(engine, tok, &n, aliases)),
        Form::Number(_) => None,
    })
}

/// The document whose id is `number` within the family `typed` is written in, spelled
/// as documents spell ids (`ADR-21` → `ADR-0021`, `ADR021`), or under the family's
/// prefix alias: what `show` finds by number.
fn family_id(engine: &dyn Engine, typed: &str, number: &str, aliases: &BTreeMap<String, String>) -> Option<String> {
    let family = ids::family(&ids::unify(typed))?;
    let mut families = vec![family.clone()];
    families.extend(aliases.get(&family).cloned());
    families
        .iter()
        .flat_map(|f| ids::spellings(f, number))
        .find_map(|k| engine.exact_id(&k))
}

/// The context an item written in a spec folder (`003-chat/T012`: an id below a document
/// that is its feature or story) is searched in: its scope, its file, and its title
/// without paths and ids (the ids it cites are edges already).
pub(super) struct ItemContext {
    pub(super) scope: String,
    path: String,
    pub(super) title: String,
}

impl ItemContext {
    /// Whether the item's file is under the folder path prefix `folder`.
    pub(super) fn in_folder(&self, folder: &str) -> bool {
        self.path.starts_with(folder)
    }
}

pub(super) fn item_in_scope(engine: &dyn Engine, id: &str) -> Option<ItemContext> {
    let (scope, _) = id.split_once('/')?;
    let item = engine.doc(id)?;
    if item.kind != Kind::WorkItem || engine.doc(scope).is_none() {
        return None;
    }
    let ids: HashSet<&str> = mention_candidates(&item.title).into_iter().map(|(t, _)| t).collect();
    let title = item
        .title
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.contains('/') && !ids.contains(w))
        .collect::<Vec<_>>()
        .join(" ");
    Some(ItemContext {
        scope: scope.to_string(),
        path: item.path,
        title,
    })
}

/// Whether `doc` gives the item of `cx` its context: its feature or story, or a document
/// of its folder that is no work item, other than the item's own file (whose text is
/// its items).
pub(super) fn in_scope_context(engine: &dyn Engine, doc: &str, cx: &ItemContext) -> bool {
    let inside = doc == cx.scope
        || doc
            .strip_prefix(cx.scope.as_str())
            .is_some_and(|rest| rest.starts_with('/'));
    inside
        && engine
            .doc(doc)
            .is_some_and(|d| d.kind != Kind::WorkItem && d.path != cx.path)
}

/// `text` without the words that are `word` in any case (a word is a run of letters and
/// digits: removing `chat` leaves `chatbot` and `003-chat`'s `003` alone).
fn remove_word(text: &str, word: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if !run.eq_ignore_ascii_case(word) {
            out.push_str(run);
        }
        run.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// `text` without the whole-token occurrences of `tok` (not inside longer tokens: removing
/// `T-1` leaves `T-12` alone).
fn remove_token(text: &str, tok: &str) -> String {
    let is_tok = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || "-_.@".contains(c));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(tok) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + tok.len()..].chars().next();
        out.push_str(&rest[..at]);
        if is_tok(before) || is_tok(after) {
            out.push_str(tok);
        } else {
            out.push(' ');
        }
        rest = &rest[at + tok.len()..];
    }
    out.push_str(rest);
    out
}

/// The ids `tok` named (with the words that named their scope) taken out of the search
/// `text` and added to `exact`, in order, once each.
fn take(text: &mut String, exact: &mut Vec<String>, tok: &str, found: Vec<String>, scope_words: &[String]) {
    if !found.is_empty() {
        *text = remove_token(text, tok);
    }
    for w in scope_words {
        *text = remove_word(text, w);
    }
    for id in found {
        if !exact.contains(&id) {
            exact.push(id);
        }
    }
}

/// The dotted numbers of a question (`3.2`, `1.4.2`), as Kiro numbers its tasks.
fn dotted_numbers(query: &str) -> Vec<&str> {
    query
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map(|t| t.trim_matches('.'))
        .filter(|t| t.contains('.') && t.split('.').all(|p| !p.is_empty()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_numbers_are_kiro_task_numbers() {
        assert_eq!(dotted_numbers("implement 3.2, then 1.4.2."), ["3.2", "1.4.2"]);
        assert_eq!(dotted_numbers("gemini-2.5-pro in 3 days"), ["2.5"]);
        assert!(dotted_numbers("T012 and story 4 ... done").is_empty());
    }

    #[test]
    fn an_id_is_removed_from_the_query_only_as_a_whole_token() {
        assert_eq!(remove_token("T-1 and T-12", "T-1"), "  and T-12");
        assert_eq!(remove_token("see T-1.", "T-1"), "see T-1.");
        assert_eq!(remove_token("(T-1) blocks", "T-1"), "( ) blocks");
        assert_eq!(remove_token("nothing here", "T-1"), "nothing here");
    }

    #[test]
    fn a_word_is_removed_in_any_case_and_only_whole() {
        assert_eq!(
            remove_word("implement T5 in 003, not 0031", "003"),
            "implement T5 in , not 0031"
        );
        assert_eq!(
            remove_word("the Chat tasks of chatbot", "chat"),
            "the  tasks of chatbot"
        );
    }
}
