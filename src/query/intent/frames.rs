//! The intent grammar: a clause that opens as a question (an interrogative, an inverted
//! auxiliary or a request such as `list`) is read for the frame it puts its object in.
//! A need with `before`/`first`, a hold-up, a wait or dependence with the preposition
//! left at the end ("what is X waiting on") ask for blockers; the same verbs with an
//! object after them and the question word as subject ("which tasks wait for X") ask for
//! what X holds up. Parts are asked by a part noun, `make up` / `made of`, what is left
//! or remains, or what a piece of work turned up; decisions by `why` (not about a
//! symptom or a hold-up) and by deciding; replacement by replacing, merging into or
//! moving under another item, or by asking which record is current.

use super::Ask;

/// Question words.
const WH: &[&str] = &["what", "which", "who", "why", "how", "where", "when"];
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

/// Words of a blocking frame, left out of the full-text search ([`super::Intent::is_frame_word`]).
/// Not the nouns (a "dependency graph" can be the subject).
pub(super) const BLOCKING_FRAME: &[&str] = &[
    "finished",
    "finish",
    "done",
    "land",
    "lands",
    "happen",
    "happens",
    "exist",
    "first",
    "need",
    "needs",
    "needed",
    "must",
    "required",
    "holding",
    "hold",
    "held",
    "up",
    "waiting",
    "wait",
    "waits",
    "waited",
    "depend",
    "depends",
    "depended",
    "rely",
    "relies",
    "blocked",
    "blocking",
    "unblock",
    "stands",
    "way",
    "settled",
    "prerequisite",
];
/// Words of a parts frame, left out of the full-text search.
pub(super) const PARTS_FRAME: &[&str] = &[
    "pieces",
    "piece",
    "sub",
    "subtasks",
    "subtask",
    "slices",
    "slice",
    "children",
    "child",
    "make",
    "makes",
    "made",
    "up",
    "consist",
    "consists",
    "left",
    "remaining",
    "remain",
    "remains",
];
/// Words that ask what is open, left out of the full-text search.
pub(super) const OPEN_FRAME: &[&str] = &[
    "still",
    "open",
    "unfixed",
    "undone",
    "unfinished",
    "outstanding",
    "left",
    "remaining",
    "never",
    "got",
];

/// What one clause asks: its relations, and whether it asks what is left or open.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Read {
    pub(super) asks: Vec<Ask>,
    pub(super) open: bool,
}

/// A clause's words from its question word on.
struct Clause<'a> {
    w: &'a [String],
}

impl Clause<'_> {
    fn at(&self, i: usize) -> &str {
        self.w.get(i).map_or("", String::as_str)
    }
    fn opener(&self) -> &str {
        self.at(0)
    }
    /// First index of any of `words`.
    fn find(&self, words: &[&str]) -> Option<usize> {
        self.w.iter().position(|x| words.contains(&x.as_str()))
    }
    fn has(&self, words: &[&str]) -> bool {
        self.find(words).is_some()
    }
    /// Where `a` is followed within `gap` words by one of `b`: the index of `a`.
    fn pair(&self, a: &[&str], b: &[&str], gap: usize) -> Option<usize> {
        (0..self.w.len()).find(|&i| {
            a.contains(&self.at(i))
                && (i + 1..=(i + gap).min(self.w.len().saturating_sub(1))).any(|j| b.contains(&self.at(j)))
        })
    }
    /// The word after `i` ends the clause or leaves it stranded.
    fn ends_after(&self, i: usize) -> bool {
        i + 1 >= self.w.len() || STRANDED.contains(&self.at(i + 1))
    }
    /// The question word is the subject of the verb at `v`: nothing but the verb group
    /// stands between them ("what is blocked"), or the question word leads a noun
    /// phrase ("which tasks had to wait"); an inverted auxiliary followed by another
    /// subject ("what does the export wait on") is not.
    fn subject_is_wh(&self, v: usize) -> bool {
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
    fn wh_object(&self) -> bool {
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

/// Read one clause (its words); nothing unless it opens as a question. `before`: another
/// clause of the question sets a time before something ("Before X can start, which
/// pieces had to be in place?").
pub(super) fn read(words: &[String], before: bool) -> Read {
    let Some(w) = opening(words) else {
        return Read::default();
    };
    let c = Clause { w };
    let mut out = Read::default();
    let mut ask = |a: Ask| {
        if !out.asks.contains(&a) {
            out.asks.push(a);
        }
    };
    let blocking = blocking(&c, before);
    if let Some(a) = blocking {
        ask(a);
    }
    let (parts, open) = parts(&c);
    if parts {
        ask(Ask::Parts);
    }
    if decision(&c, blocking.is_some()) {
        ask(Ask::Decision);
    }
    if replacement(&c) {
        ask(Ask::Replacement);
    }
    // What holds an item up now: its open blockers ("what is holding up X", "what is X
    // waiting on"), not the finished ones of "what had to be finished before X".
    let now = blocking == Some(Ask::Blockers)
        && !c.has(&["had", "was", "were", "did", "been"])
        && c.has(&["holding", "blocking", "blocked", "waiting", "way", "stuck", "held"]);
    out.open = open || now;
    out
}

/// Blockers or what an item holds up, from the frame of need, hold-up, wait or dependence.
fn blocking(c: &Clause, before: bool) -> Option<Ask> {
    let op = c.opener();
    // "why can't X go live", "why isn't X done yet", "why is X stuck".
    if op == "why" {
        let negated = c.at(2) == "not"
            && matches!(
                c.at(1),
                "can" | "is" | "are" | "has" | "have" | "was" | "were" | "will" | "could"
            );
        if negated || c.has(&["stuck", "delayed", "blocked", "late", "slipping", "waiting", "held"]) {
            return Some(Ask::Blockers);
        }
        return None;
    }
    // "what can't move forward until X": the question word waits on X.
    if matches!(op, "what" | "which") && c.pair(&["not", "never"], &["until", "till"], 6).is_some() {
        return Some(Ask::Dependents);
    }
    // A wait or dependence: stranded preposition → X waits (blockers); an object after
    // it with the question word as subject → the question word waits on X.
    const WAITS: &[&str] = &[
        "wait",
        "waits",
        "waiting",
        "waited",
        "depend",
        "depends",
        "depending",
        "depended",
        "rely",
        "relies",
        "relying",
        "relied",
        "build",
        "builds",
        "building",
        "built",
        "hinge",
        "hinges",
        "hinged",
        "blocked",
        "gated",
    ];
    if matches!(
        op,
        "what" | "which" | "who" | "is" | "are" | "was" | "were" | "do" | "does" | "did" | "has" | "have" | "anything"
    ) {
        // "build on top of" is no dependence.
        let wait = c
            .pair(WAITS, &["on", "upon", "for", "by"], 1)
            .filter(|&v| c.at(v + 2) != "top");
        if let Some(v) = wait {
            let yes_no = !WH.contains(&op) && op != "anything";
            if c.ends_after(v + 1) || !c.subject_is_wh(v) || yes_no {
                return Some(Ask::Blockers);
            }
            return Some(Ask::Dependents);
        }
    }
    // "what gets unblocked once X lands", "what would be unblocked by X": the question
    // word is what X holds up.
    if let Some(v) = c.find(&["unblocked"])
        && matches!(op, "what" | "which")
        && c.subject_is_wh(v)
    {
        return Some(Ask::Dependents);
    }
    // "what is stopping X", "anything preventing X", "what is keeping X from Y".
    let stops = c
        .find(&["stopping", "preventing", "prevents", "delaying", "delays"])
        .filter(|&v| c.subject_is_wh(v));
    let keeps = c
        .pair(&["keeping", "keeps"], &["from"], 6)
        .filter(|&v| c.subject_is_wh(v));
    if stops.or(keeps).is_some() {
        return Some(Ask::Blockers);
    }
    // "what blocks X", "what is holding up X", "what is holding the release up" ask
    // for blockers; "what does X block", "what is X holding up" for what X holds up.
    const HOLDS: &[&str] = &[
        "block",
        "blocks",
        "blocking",
        "unblock",
        "unblocks",
        "unblocking",
        "hold",
        "holds",
        "holding",
        "held",
        "gates",
        "gating",
    ];
    if let Some(v) = c.find(HOLDS) {
        let end = if matches!(c.at(v + 1), "up" | "back") { v + 1 } else { v };
        let inside_up = c
            .pair(&["holding", "hold", "holds", "held"], &["up"], 4)
            .is_some_and(|i| c.at(i + 1) != "up");
        if WH.contains(&op) && c.ends_after(end) && !inside_up && !c.subject_is_wh(v) {
            return Some(Ask::Dependents);
        }
        let verb = c.at(v);
        // A bare "block" or "gates" is a verb only next to its subject or at the end
        // ("what blocks X", "what does X block"), not in "the block explorer".
        let bare = matches!(verb, "block" | "blocks" | "gates");
        let as_verb = !bare || c.subject_is_wh(v) || c.ends_after(v);
        if as_verb && (verb.contains("block") || verb.starts_with("gat") || end > v || inside_up) {
            return Some(Ask::Blockers);
        }
    }
    if c.has(&["blocked"])
        || (c.pair(&["in", "the"], &["way"], 1).is_some() && c.has(&["stands", "stand", "standing", "is", "what"]))
    {
        return Some(Ask::Blockers);
    }
    // "what has to be finished before X", "what do we need first".
    if matches!(
        op,
        "what" | "which" | "who" | "anything" | "any" | "is" | "are" | "do" | "does" | "did"
    ) {
        let need = c
            .pair(&["has", "have", "had", "needs", "need", "ought"], &["to"], 1)
            .or_else(|| {
                c.find(&[
                    "must", "needed", "required", "should", "need", "needs", "requires", "require",
                ])
            });
        if let Some(n) = need {
            if before
                || c.w[n..]
                    .iter()
                    .any(|x| matches!(x.as_str(), "before" | "first" | "prior" | "beforehand"))
            {
                return Some(Ask::Blockers);
            }
            // "what does X need", "what does X require": the verb last.
            if op == "what" && matches!(c.at(1), "does" | "do" | "did" | "would" | "will") && c.ends_after(n) {
                return Some(Ask::Blockers);
            }
        }
    }
    // "what are its blockers", "which change was a prerequisite for X".
    const NOUNS: &[&str] = &[
        "blocker",
        "blockers",
        "prerequisite",
        "prerequisites",
        "dependency",
        "dependencies",
        "predecessor",
        "predecessors",
    ];
    if let Some(n) = c.find(NOUNS).filter(|_| c.wh_object()) {
        // "what is X a prerequisite for": the question word needs X.
        let stranded = c.w[n + 1..]
            .iter()
            .position(|x| x == "for")
            .is_some_and(|i| c.ends_after(n + 1 + i));
        return Some(if stranded { Ask::Dependents } else { Ask::Blockers });
    }
    None
}

/// Parts (children) of an item, and whether the clause asks what is left or open.
fn parts(c: &Clause) -> (bool, bool) {
    const PART: &[&str] = &[
        "pieces",
        "piece",
        "subtasks",
        "subtask",
        "slices",
        "slice",
        "children",
        "child",
        "subissues",
        "subissue",
        "subtickets",
        "phases",
    ];
    let noun = c.has(PART);
    let made = c
        .pair(&["make", "makes", "made"], &["up"], 1)
        .is_some_and(|i| c.at(i + 2) != "for")
        || c.pair(&["made", "consist", "consists", "consisted", "composed"], &["of"], 1)
            .is_some()
        || c.has(&["comprise", "comprises", "comprised"])
        || c.pair(&["broken", "break"], &["down", "into"], 1).is_some()
        || c.pair(&["belong", "belongs", "belonging"], &["to"], 1).is_some()
        || c.pair(&["steps", "stages"], &["of", "in"], 1).is_some();
    // "what tasks are in the reporting epic", "which work is under the milestone".
    let work = matches!(c.opener(), "what" | "which" | "list" | "show")
        && matches!(
            c.at(1),
            "tasks" | "items" | "work" | "tickets" | "stories" | "issues" | "bugs"
        )
        && c.has(&["epic", "milestone", "initiative", "feature", "project"]);
    // What a piece of work turned up: "bugs found by scanning", "uncovered while testing".
    let found = matches!(c.opener(), "what" | "which")
        && c.pair(
            &[
                "found",
                "uncovered",
                "discovered",
                "surfaced",
                "spun",
                "came",
                "arose",
                "raised",
            ],
            &["by", "while", "during", "from", "in", "out", "off", "when", "of"],
            1,
        )
        .is_some();
    // "what is left (to do) in X", "anything left", not "the left panel".
    let left = c.w.iter().enumerate().any(|(i, x)| {
        x == "left"
            && (i > 0
                && matches!(
                    c.at(i - 1),
                    "is" | "are"
                        | "was"
                        | "were"
                        | "anything"
                        | "something"
                        | "nothing"
                        | "what"
                        | "much"
                        | "still"
                        | "work"
                        | "tasks"
                        | "items"
                )
                || matches!(c.at(i + 1), "todo" | "to" | "over" | "undone" | "open"))
            && !(i > 0
                && matches!(
                    c.at(i - 1),
                    "the" | "a" | "on" | "top" | "bottom" | "far" | "upper" | "lower"
                ))
    });
    let remain = c.has(&["remaining", "remain", "remains", "outstanding"])
        || c.pair(&["still"], &["needs", "need", "needed"], 1).is_some();
    let open = left
        || remain
        || c.has(&[
            "unfixed",
            "undone",
            "unfinished",
            "unresolved",
            "incomplete",
            "unshipped",
        ])
        || c.pair(
            &["still", "yet"],
            &[
                "open", "todo", "to", "unfixed", "undone", "missing", "needed", "needs", "need", "pending", "progress",
            ],
            2,
        )
        .is_some()
        || c.pair(
            &["not", "never"],
            &[
                "done",
                "finished",
                "shipped",
                "implemented",
                "fixed",
                "completed",
                "started",
            ],
            2,
        )
        .is_some()
        || c.pair(
            &["open"],
            &[
                "work", "tasks", "items", "issues", "bugs", "tickets", "subtasks", "children", "pieces",
            ],
            1,
        )
        .is_some()
        || c.pair(&["the", "in"], &["todo"], 1).is_some();
    let contained = c.has(&["under", "within"]) || c.pair(&["which", "what"], &["of"], 1).is_some();
    (
        noun || made || work || found || left || remain || (open && contained),
        open,
    )
}

/// The decision behind something: `why` (not about a symptom), deciding, a ruling.
fn decision(c: &Clause, blocking: bool) -> bool {
    const SYMPTOM: &[&str] = &[
        "crash",
        "crashes",
        "crashing",
        "crashed",
        "fail",
        "fails",
        "failing",
        "failed",
        "break",
        "breaks",
        "breaking",
        "broke",
        "broken",
        "hang",
        "hangs",
        "freeze",
        "freezes",
        "frozen",
        "error",
        "errors",
        "leak",
        "leaks",
        "slow",
        "timeout",
        "timeouts",
        "wrong",
        "missing",
        "disappear",
        "disappears",
        "vanish",
        "vanished",
        "flaky",
    ];
    // "how come" asks why.
    if c.opener() == "why" || (c.opener() == "how" && c.at(1) == "come") {
        return !blocking && !c.has(SYMPTOM);
    }
    const DECIDE: &[&str] = &[
        "decide",
        "decided",
        "decides",
        "deciding",
        "chose",
        "choose",
        "chosen",
        "choosing",
        "opted",
        "ruled",
        "decision",
        "decisions",
        "rationale",
        "reasoning",
        "reason",
        "reasons",
        "ruling",
        "verdict",
        "adr",
        "adrs",
        "tradeoff",
        "tradeoffs",
        "motivation",
        "justification",
    ];
    // "picked" as chosen, not "picked up" (started).
    let picked =
        c.w.iter()
            .enumerate()
            .any(|(i, x)| x == "picked" && c.at(i + 1) != "up");
    c.has(DECIDE)
        || picked
        || c.pair(&["go", "went", "going", "settled", "settle"], &["with", "on"], 1)
            .is_some_and(|i| c.at(i) != "go" || c.opener() != "where")
        || c.pair(&["what"], &["led", "made", "drove", "prompted"], 1).is_some()
}

/// What replaced, absorbed or duplicates an item, or which of several is current.
fn replacement(c: &Clause) -> bool {
    const REPLACED: &[&str] = &[
        "replaced",
        "replace",
        "replaces",
        "replacing",
        "superseded",
        "supersede",
        "supersedes",
        "superseding",
        "obsoleted",
        "subsumed",
        "deprecated",
        "successor",
        "successors",
        "replacement",
        "replacements",
        "duplicates",
        "dupes",
        "dupe",
        "refiled",
        "renamed",
        "reopened",
        "obsolete",
    ];
    let into = c
        .pair(
            &[
                "merged",
                "merge",
                "folded",
                "absorbed",
                "turned",
                "turn",
                "converted",
                "moved",
                "became",
                "rolled",
                "consolidated",
                "done",
                "tracked",
                "filed",
            ],
            &["into", "under", "as", "in"],
            12,
        )
        .is_some_and(|i| {
            // Into another item: "merged into another task", "done under another task".
            matches!(
                c.at(i),
                "merged" | "folded" | "absorbed" | "turned" | "turn" | "converted" | "became" | "consolidated"
            ) || c
                .pair(
                    &["another", "different", "new", "other"],
                    &["task", "id", "ticket", "issue", "record", "number", "item"],
                    1,
                )
                .is_some()
        });
    let current = c.has(&["which"]) && c.has(&["current", "authoritative", "canonical", "latest"]);
    let live = c
        .pair(&["still"], &["live", "current", "valid", "relevant", "alive"], 1)
        .is_some();
    // "what took over from X".
    let took_over = c
        .pair(&["took", "take", "takes", "taken", "taking"], &["over"], 1)
        .is_some();
    let happened = c.pair(&["happened"], &["to"], 1).is_some()
        || (c.opener() == "where" && c.w.last().is_some_and(|l| l == "go" || l == "went"));
    let duplicate_of =
        c.w.iter()
            .enumerate()
            .any(|(i, x)| x == "duplicate" && (c.at(i + 1) == "of" || i + 1 == c.w.len()));
    c.has(REPLACED) || into || current || live || happened || duplicate_of || took_over
}
