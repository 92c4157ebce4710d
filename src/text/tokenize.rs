//! Text → search terms, shared by the SQLite mirror and the in-memory fallback so both
//! see exactly the same tokens: runs of letters and digits, lowercased, English-stemmed
//! (Snowball). Markdown link destinations are skipped (paths are not words). Queries are
//! tokenized the same way, minus stop words; user text never reaches FTS syntax.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::OnceLock;

/// Longest token kept (longer runs are cut; they are never words).
const MAX_TOKEN: usize = 64;
/// Most distinct terms taken from one query.
pub const MAX_QUERY_TERMS: usize = 64;

fn stemmer() -> &'static Stemmer {
    static S: OnceLock<Stemmer> = OnceLock::new();
    S.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Words too common to rank by (queries only; documents keep them so lengths are real).
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "before", "but", "by",
    "can", "could", "did", "do", "does", "doing", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into",
    "is", "it", "its", "me", "my", "no", "not", "of", "on", "or", "our", "should", "so", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "to", "too", "us", "was", "we", "were", "what", "when",
    "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your",
    // What is left of contractions split at the apostrophe ("can't", "it's", "we'll").
    "aren", "couldn", "d", "didn", "doesn", "don", "isn", "ll", "m", "re", "s", "shouldn", "t", "ve", "wasn", "won",
    "wouldn",
];

/// Call `f` with each raw word (lowercased, not stemmed) of `text`, skipping Markdown
/// link destinations `](...)`.
fn words(text: &str, mut f: impl FnMut(&str)) {
    let mut word = String::new();
    let mut chars = text.chars().peekable();
    let mut prev = '\0';
    while let Some(c) = chars.next() {
        if c == '(' && prev == ']' {
            // A link destination: skip to the closing parenthesis on this line.
            for d in chars.by_ref() {
                if d == ')' || d == '\n' {
                    break;
                }
            }
            prev = ')';
            continue;
        }
        prev = c;
        // ASCII first (most text): the same test and case mapping, without the Unicode
        // tables.
        let alnum = match c.is_ascii() {
            true => c.is_ascii_alphanumeric(),
            false => c.is_alphanumeric(),
        };
        if alnum {
            if word.len() < MAX_TOKEN {
                match c.is_ascii() {
                    true => word.push(c.to_ascii_lowercase()),
                    false => word.extend(c.to_lowercase()),
                }
            }
        } else if !word.is_empty() {
            f(&word);
            word.clear();
        }
    }
    if !word.is_empty() {
        f(&word);
    }
}

/// Call `f` with the stem of a lowercased word. Stems are memoized per thread: a
/// backlog's vocabulary is small next to its token count, and stemming dominates
/// tokenizing.
fn with_stem<R>(word: &str, f: impl FnOnce(&str) -> R) -> R {
    use std::cell::RefCell;
    use std::collections::HashMap;
    thread_local! {
        static CACHE: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
    }
    if word.bytes().all(|b| b.is_ascii_digit()) {
        return f(word);
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() > 200_000 {
            c.clear();
        }
        if !c.contains_key(word) {
            c.insert(word.to_string(), stemmer().stem(word).into_owned());
        }
        f(&c[word])
    })
}

/// The term of a word as [`each_word`] gives it: its stem.
pub fn stem(word: &str) -> String {
    with_stem(word, str::to_string)
}

/// Call `f` with each word of `text` in order, lowercased and not yet stemmed: the index
/// terms are their [`stem`]s. For callers that key their own memo by the word, and so
/// stem and allocate once per distinct word instead of once per word.
pub fn each_word(text: &str, f: impl FnMut(&str)) {
    words(text, f)
}

/// Index terms of a text, in order (repeats kept: they are term frequencies).
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    words(text, |w| out.push(stem(w)));
    out
}

/// A query term: its stem and the first word of the query that produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTerm {
    /// The stemmed term matched against the index.
    pub stem: String,
    /// The word as the user wrote it (lowercased), for explanations.
    pub word: String,
}

/// Distinct query terms in query order, stop words removed, at most
/// [`MAX_QUERY_TERMS`]. A query of only stop words keeps them (so "what is it" still
/// finds something).
pub fn query_terms(query: &str) -> Vec<QueryTerm> {
    let mut all = Vec::new();
    words(query, |w| all.push(w.to_string()));
    let content: Vec<&String> = all.iter().filter(|w| !STOP_WORDS.contains(&w.as_str())).collect();
    let pick: Vec<&String> = if content.is_empty() {
        all.iter().collect()
    } else {
        content
    };
    let mut out: Vec<QueryTerm> = Vec::new();
    for w in pick {
        let s = stem(w);
        if !out.iter().any(|t| t.stem == s) {
            out.push(QueryTerm {
                stem: s,
                word: w.clone(),
            });
        }
        if out.len() == MAX_QUERY_TERMS {
            break;
        }
    }
    out
}

/// An FTS5 MATCH expression: the terms quoted and joined with OR. Terms are letters
/// and digits only, so quoting cannot be escaped; None when there are no terms.
pub fn fts_expression(terms: &[QueryTerm]) -> Option<String> {
    if terms.is_empty() {
        return None;
    }
    let parts: Vec<String> = terms
        .iter()
        .map(|t| format!("\"{}\"", t.stem.replace('"', "")))
        .collect();
    Some(parts.join(" OR "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_stemmed_and_skip_link_targets() {
        assert_eq!(
            terms("Uploads resumed [see](../../a/QRY-TSK-0001_x.md) QRY-FTR-0023"),
            ["upload", "resum", "see", "qri", "ftr", "0023"]
        );
    }

    #[test]
    fn ascii_shortcut_agrees_with_unicode() {
        for b in 0u8..128 {
            let c = b as char;
            assert_eq!(c.is_ascii_alphanumeric(), c.is_alphanumeric(), "{c:?}");
            assert_eq!(c.to_lowercase().collect::<String>(), c.to_ascii_lowercase().to_string());
        }
        assert_eq!(terms("ÀB Straße İx ΣΑΣ"), ["àb", "straße", "i̇x", "σασ"]);
    }

    #[test]
    fn adversarial_queries_become_plain_terms() {
        for q in [
            "\"unbalanced quote",
            "NEAR(",
            "*",
            "AND OR NOT",
            "🦀🦀",
            "",
            "   ",
            "^col:x",
        ] {
            let t = query_terms(q);
            if let Some(e) = fts_expression(&t) {
                assert!(
                    e.split(" OR ")
                        .all(|p| p.starts_with('"') && p.ends_with('"') && p.len() > 2),
                    "{q:?} -> {e}"
                );
            }
        }
        assert_eq!(
            fts_expression(&query_terms("AND OR NOT")).unwrap(),
            "\"and\" OR \"or\" OR \"not\""
        );
        let long = "graph ".repeat(2000) + &(0..200).map(|i| format!("w{i} ")).collect::<String>();
        assert_eq!(query_terms(&long).len(), MAX_QUERY_TERMS);
    }

    #[test]
    fn stop_words_dropped_but_not_all() {
        let t: Vec<String> = query_terms("what is k-hop?").into_iter().map(|t| t.stem).collect();
        assert_eq!(t, ["k", "hop"]);
        let t: Vec<String> = query_terms("what is it").into_iter().map(|t| t.stem).collect();
        assert_eq!(t, ["what", "is", "it"]);
    }
}
