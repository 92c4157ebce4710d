//! A clause read as a question: the words that open one (a question word, an inverted
//! auxiliary, a request) and the clause's words with the tests the frames are written in
//! (a word, a pair of words within a gap, a stranded preposition, the question word as
//! subject).

/// Question words.
pub(super) const WH: &[&str] = &["what", "which", "who", "why", "how", "where", "when"];
/// Auxiliaries that open a yes/no question, and the pronouns that open one without.
const AUX: &[&str] = &[
    "is", "are", "was", "were", "has", "have", "had", "do", "does", "did", "can", "could", "should", "will", "would",
    "must", "any", "anything", "anyone", "anybody",
];
/// Requests that ask as a question does.
const REQUEST: &[&str] = &["list", "show", "tell", "give", "find", "name", "explain", "describe"];
/// Words a question may start with before its question word.
const FILLER: &[&str] = &[
    "and", "so", "but", "or", "also", "then", "ok", "okay", "now", "well", "hey", "please",
];
/// Words of the verb group (between a subject question word and its verb).
const VERB_GROUP: &[&str] = &[
    "is",
    "are",
    "was",
    "were",
    "has",
    "have",
    "had",
    "do",
    "does",
    "did",
    "can",
    "could",
    "should",
    "will",
    "would",
    "must",
    "to",
    "not",
    "be",
    "been",
    "being",
    "still",
    "also",
    "already",
    "ever",
    "never",
    "just",
    "currently",
    "now",
    "yet",
    "really",
    "actually",
    "get",
    "got",
];
/// Words after a preposition that leave it stranded ("what is X waiting on before …").
const STRANDED: &[&str] = &[
    "before",
    "so",
    "until",
    "till",
    "to",
    "first",
    "in",
    "now",
    "still",
    "yet",
    "anymore",
    "right",
    "today",
    "currently",
    "again",
    "exactly",
];

/// A clause's words from its question word on.
pub(super) struct Clause<'a> {
    pub(super) w: &'a [String],
}

impl Clause<'_> {
    pub(super) fn at(&self, i: usize) -> &str {
        self.w.get(i).map_or("", String::as_str)
    }
    pub(super) fn opener(&self) -> &str {
        self.at(0)
    }
    /// First index of any of `words`.
    pub(super) fn find(&self, words: &[&str]) -> Option<usize> {
        self.w.iter().position(|x| words.contains(&x.as_str()))
    }
    pub(super) fn has(&self, words: &[&str]) -> bool {
        self.find(words).is_some()
    }
    /// Where `a` is followed within `gap` words by one of `b`: the index of `a`.
    pub(super) fn pair(&self, a: &[&str], b: &[&str], gap: usize) -> Option<usize> {
        (0..self.w.len()).find(|&i| {
            a.contains(&self.at(i))
                && (i + 1..=(i + gap).min(self.w.len().saturating_sub(1))).any(|j| b.contains(&self.at(j)))
        })
    }
    /// The word after `i` ends the clause or leaves it stranded.
    pub(super) fn ends_after(&self, i: usize) -> bool {
        i + 1 >= self.w.len() || STRANDED.contains(&self.at(i + 1))
    }
    /// The question word is the subject of the verb at `v`: nothing but the verb group
    /// stands between them ("what is blocked"), or the question word leads a noun
    /// phrase ("which tasks had to wait"); an inverted auxiliary followed by another
    /// subject ("what does the export wait on") is not.
    pub(super) fn subject_is_wh(&self, v: usize) -> bool {
        let between = &self.w[1.min(v)..v];
        match between.first() {
            None => true,
            Some(first) if VERB_GROUP.contains(&first.as_str()) => {
                between.iter().all(|x| VERB_GROUP.contains(&x.as_str()))
            }
            Some(first) => {
                matches!(self.opener(), "which" | "what" | "anything" | "any")
                    || matches!(first.as_str(), "anything" | "something" | "anyone" | "someone")
            }
        }
    }
    pub(super) fn wh_object(&self) -> bool {
        matches!(self.opener(), "what" | "which" | "who" | "anything" | "any")
            || (matches!(self.opener(), "is" | "are") && self.at(1) == "there")
    }
}

/// The clause's words from its question word on, when it opens as a question.
pub(super) fn opening(words: &[String]) -> Option<&[String]> {
    let skip = words.iter().take_while(|w| FILLER.contains(&w.as_str())).count();
    let w = &words[skip..];
    let first = w.first()?.as_str();
    (WH.contains(&first) || AUX.contains(&first) || REQUEST.contains(&first)).then_some(w)
}
