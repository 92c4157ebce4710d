//! Ids as people type them: `eip-721`, `EIP 721`, `ERC-721` for the document whose id is
//! `721`, `task-200` for `BACK-200` under a prefix alias, a bare `200` when one document
//! owns that number. [`forms`] lists what a typed id may mean, most literal first; the
//! caller takes the first form that names a document.

use std::collections::BTreeMap;

/// One reading of a typed id (lowercase).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// The id as typed, separators unified to `-` (`EIP 721` → `eip-721`).
    Id(String),
    /// The number it ends with (`erc-721` → `721`, `back-24.1` → `24.1`): an id of its
    /// own, or the numeric tail of exactly one document's id.
    Number(String),
}

/// The readings of `typed`, most literal first; `aliases` are the configured prefix
/// aliases (`task` → `back`).
pub fn forms(typed: &str, aliases: &BTreeMap<String, String>) -> Vec<Form> {
    let t = typed.trim().to_lowercase();
    let mut out: Vec<Form> = Vec::new();
    let mut push = |f: Form| {
        if !out.contains(&f) {
            out.push(f);
        }
    };
    if t.is_empty() {
        return Vec::new();
    }
    push(Form::Id(t.clone()));
    let unified = unify(&t);
    push(Form::Id(unified.clone()));
    let split = unified
        .find(|c: char| c.is_ascii_digit())
        .map(|i| (unified[..i].trim_end_matches('-'), &unified[i..]));
    if let Some((prefix, rest)) = split {
        let numeric = rest.chars().all(|c| c.is_ascii_digit() || c == '.') && !rest.ends_with('.');
        if let Some(alias) = aliases.get(prefix) {
            push(Form::Id(format!("{}-{rest}", alias.to_lowercase())));
        }
        // A prefix of words (`qry-tsk-7` → 7 of the family `qry-tsk`).
        let words = prefix
            .split('-')
            .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphabetic()));
        if numeric && (prefix.is_empty() || words) {
            push(Form::Number(rest.to_string()));
        }
    }
    out
}

/// The family an id belongs to: what comes before its number, lowercase, separators
/// dropped at the end (`BACK-24.1` → `back`, `EIP 721` → `eip`, `721` → ``). `None` when
/// the id does not end with a number.
pub fn family(id: &str) -> Option<String> {
    let tail = number_tail(id)?;
    let head = &id[..id.len() - tail.len()];
    Some(
        head.trim_end_matches(|c: char| c == '-' || c == '_' || c == '.' || c.is_whitespace())
            .to_lowercase(),
    )
}

/// A number with its leading zeros dropped in every dotted part (`0006` → `6`,
/// `024.01` → `24.1`), so `adr-6` reads as `ADR-0006`.
pub fn plain_number(n: &str) -> String {
    n.split('.')
        .map(|p| {
            let t = p.trim_start_matches('0');
            if t.is_empty() { "0" } else { t }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Whether the number read out of `typed` (whose family is `typed_family`) may name the
/// document whose raw id is `doc_id`: its numbers agree, and the typed family is the
/// document's own, a configured alias of it, or empty (a bare number). A typed id of
/// another family never names it (`epic-6` is not `task-6`).
pub fn number_names(typed_family: &str, number: &str, doc_id: &str, aliases: &BTreeMap<String, String>) -> bool {
    let (Some(tail), Some(own)) = (number_tail(doc_id), family(doc_id)) else {
        return false;
    };
    if plain_number(tail) != plain_number(number) {
        return false;
    }
    typed_family.is_empty()
        || typed_family == own
        || aliases.get(typed_family).is_some_and(|a| a.eq_ignore_ascii_case(&own))
}

/// An id with its separators unified to `-` (`EIP 721` → `EIP-721`, `task_6` →
/// `task-6`).
pub fn unify(typed: &str) -> String {
    typed
        .split(|c: char| c.is_whitespace() || c == '_')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// The ids a family and a number may be spelled as in documents, lowercase: `adr`,
/// `21` → `adr-21`, `adr-021`, `adr-0021`, `adr-00021`, then without a separator and
/// with `_` (`adr0021`, `adr_0021`). Empty for an empty family or a dotted number.
pub fn spellings(family: &str, number: &str) -> Vec<String> {
    let plain = plain_number(number);
    if family.is_empty() || plain.contains('.') {
        return Vec::new();
    }
    let mut out = Vec::new();
    for sep in ["-", "", "_"] {
        for width in plain.len()..=5.max(plain.len()) {
            out.push(format!("{}{sep}{plain:0>width$}", family.to_lowercase()));
        }
    }
    out
}

/// A word and a number typed apart (`ADR 21`, `task 88`, `adr 021`): each pair as it
/// stands in `text`, with the id it spells (`ADR-21`). The word is 2 to 12 ASCII
/// letters; the number digits, dotted parts allowed (`task 11.1`).
pub fn spaced(text: &str) -> Vec<(&str, String)> {
    let words: Vec<(usize, &str)> = text
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .collect();
    let mut out = Vec::new();
    for pair in words.windows(2) {
        let ((at, word), (num_at, num)) = (pair[0], pair[1]);
        let num = num.trim_end_matches(|c: char| !c.is_ascii_digit());
        let word_ok = (2..=12).contains(&word.len()) && word.bytes().all(|b| b.is_ascii_alphabetic());
        let num_ok =
            num.starts_with(|c: char| c.is_ascii_digit()) && num.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        if word_ok && num_ok {
            out.push((&text[at..num_at + num.len()], format!("{word}-{num}")));
        }
    }
    out
}

/// The number an id ends with (`BACK-24.1` → `24.1`, `721` → `721`), lowercase.
pub fn number_tail(id: &str) -> Option<&str> {
    let start = id
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_digit() || *c == '.')
        .last()
        .map(|(i, _)| i)?;
    let tail = id[start..].trim_start_matches('.');
    (!tail.is_empty() && tail.starts_with(|c: char| c.is_ascii_digit())).then_some(tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(f: &[Form]) -> Vec<String> {
        f.iter()
            .map(|f| match f {
                Form::Id(s) => s.clone(),
                Form::Number(n) => format!("#{n}"),
            })
            .collect()
    }

    #[test]
    fn typed_forms() {
        let aliases = BTreeMap::from([("task".to_string(), "back".to_string())]);
        assert_eq!(ids(&forms("ERC-721", &aliases)), ["erc-721", "#721"]);
        assert_eq!(ids(&forms("EIP 721", &aliases)), ["eip 721", "eip-721", "#721"]);
        assert_eq!(ids(&forms("task-200", &aliases)), ["task-200", "back-200", "#200"]);
        assert_eq!(ids(&forms("task-24.1", &aliases)), ["task-24.1", "back-24.1", "#24.1"]);
        assert_eq!(ids(&forms("200", &aliases)), ["200", "#200"]);
        assert_eq!(ids(&forms("QRY-TSK-0004", &aliases)), ["qry-tsk-0004", "#0004"]);
        assert!(number_names("qry-tsk", "7", "QRY-TSK-0007", &aliases));
        assert!(!number_names("qry-ftr", "7", "QRY-TSK-0007", &aliases));
        assert!(forms("  ", &aliases).is_empty());
        assert_eq!(number_tail("BACK-24.1"), Some("24.1"));
        assert_eq!(number_tail("721"), Some("721"));
        assert_eq!(number_tail("ADR"), None);
        assert_eq!(family("BACK-24.1").as_deref(), Some("back"));
        assert_eq!(family("721").as_deref(), Some(""));
        assert_eq!(family("ADR"), None);
        assert_eq!(plain_number("0006"), "6");
        assert_eq!(plain_number("024.01"), "24.1");
        assert_eq!(plain_number("0"), "0");
    }

    #[test]
    fn spellings_and_spaced_ids() {
        assert_eq!(
            spellings("ADR", "021"),
            [
                "adr-21",
                "adr-021",
                "adr-0021",
                "adr-00021",
                "adr21",
                "adr021",
                "adr0021",
                "adr00021",
                "adr_21",
                "adr_021",
                "adr_0021",
                "adr_00021"
            ]
        );
        assert!(spellings("", "21").is_empty());
        assert!(spellings("task", "11.1").is_empty());
        let q = "what replaced ADR 21? and task  88, not sha256 or top ten";
        let got: Vec<(&str, String)> = spaced(q);
        assert_eq!(
            got,
            [("ADR 21", "ADR-21".to_string()), ("task  88", "task-88".to_string())]
        );
    }

    #[test]
    fn a_number_names_only_its_own_family() {
        let aliases = BTreeMap::from([("task".to_string(), "back".to_string())]);
        assert!(number_names("task", "6", "task-6", &aliases));
        assert!(number_names("", "6", "task-6", &aliases));
        assert!(number_names("adr", "6", "ADR-0006", &aliases));
        assert!(number_names("task", "200", "BACK-200", &aliases));
        assert!(!number_names("epic", "6", "task-6", &aliases));
        assert!(!number_names("foo", "11", "task-11", &aliases));
        assert!(!number_names("task", "7", "task-6", &aliases));
        assert!(!number_names("back", "6", "BACKLOG", &aliases));
    }
}
