//! A question as the intent grammar reads it: clauses (split at punctuation and at a
//! spaced dash) of lowercase words, contractions spelled out (`what's` → `what is`,
//! `can't` → `can not`) and hyphens inside a word dropped (`sub-tasks` → `subtasks`).

/// The clauses of `q`, each a list of words; empty clauses are left out.
pub(super) fn clauses(q: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut chars = q.chars().peekable();
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        let next = chars.peek().copied().unwrap_or(' ');
        let c = if c == '\u{2019}' { '\'' } else { c };
        // A clause ends at a question mark, a stop before a space (not inside `11.154`),
        // a colon, semicolon, comma, bracket, quote, slash, a long dash or a spaced dash.
        let ends = matches!(
            c,
            '?' | '!' | ';' | ':' | ',' | '(' | ')' | '[' | ']' | '"' | '/' | '—' | '–'
        ) || (c == '.' && next.is_whitespace())
            || (c == '-' && prev.is_whitespace() && next.is_whitespace());
        if ends || c.is_whitespace() {
            push_word(&mut cur, &mut word);
            if ends && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else if c.is_alphanumeric() || c == '\'' {
            word.extend(c.to_lowercase());
        } else if c == '-' || c == '.' {
            // Inside a word: `sub-tasks`, `to-do`, `11.154`.
        } else {
            push_word(&mut cur, &mut word);
        }
        prev = c;
    }
    push_word(&mut cur, &mut word);
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Words that take `'s` as `is` (`what's left`), not as a possessive (`epic's`).
const IS_BEFORE: &[&str] = &[
    "what", "who", "where", "how", "it", "that", "there", "here", "which", "when",
];

/// Push `word` (taken) onto `clause` with its contraction spelled out.
fn push_word(clause: &mut Vec<String>, word: &mut String) {
    let w = std::mem::take(word);
    let w = w.trim_matches('\'');
    if w.is_empty() {
        return;
    }
    let split = |base: &str, rest: &str, clause: &mut Vec<String>| {
        if !base.is_empty() {
            clause.push(base.to_string());
        }
        clause.push(rest.to_string());
    };
    if w == "cannot" {
        split("can", "not", clause);
    } else if w == "won't" {
        split("will", "not", clause);
    } else if w == "can't" {
        split("can", "not", clause);
    } else if let Some(base) = w.strip_suffix("n't") {
        split(base, "not", clause);
    } else if let Some(base) = w.strip_suffix("'s") {
        if IS_BEFORE.contains(&base) {
            split(base, "is", clause);
        } else {
            clause.push(base.to_string());
        }
    } else if let Some(base) = w.strip_suffix("'re") {
        split(base, "are", clause);
    } else if let Some(base) = w.strip_suffix("'ve") {
        split(base, "have", clause);
    } else if let Some((base, _)) = w.split_once('\'') {
        // `'ll`, `'d` and stray apostrophes: the word alone.
        clause.push(base.to_string());
    } else {
        clause.push(w.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(q: &str) -> Vec<String> {
        clauses(q).iter().map(|c| c.join(" ")).collect()
    }

    #[test]
    fn clauses_split_at_punctuation_and_spaced_dashes_only() {
        assert_eq!(
            c("The old GUI draft - what was it waiting on?"),
            ["the old gui draft", "what was it waiting on"]
        );
        assert_eq!(
            c("In the sub-task 11.154 plan, what's left to-do?"),
            ["in the subtask 11154 plan", "what is left todo"]
        );
        assert_eq!(
            c("Why can't it ship. Who won't?"),
            ["why can not it ship", "who will not"]
        );
        assert_eq!(c("the epic's children"), ["the epic children"]);
        assert_eq!(c("it’s done"), ["it is done"]);
        assert!(clauses("").is_empty() && clauses(" ?? - ,").is_empty());
    }
}
