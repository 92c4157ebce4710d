//! The intent grammar: a clause that opens as a question (an interrogative, an inverted
//! auxiliary or a request such as `list`, [`super::clause`]) is read for the frame it
//! puts its object in. Blockers and what an item holds up are the blocking frame
//! ([`super::blocking`]), parts and what is left the parts frame ([`super::parts`]); the
//! decision and replacement frames are here: decisions by `why` (not about a symptom or a
//! hold-up) and by deciding; replacement by replacing, merging into or moving under
//! another item, or by asking which record is current.

use super::Ask;
use super::blocking::blocking;
use super::clause::{Clause, opening};
use super::parts::parts;

/// What one clause asks: its relations, and whether it asks what is left or open.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Read {
    pub(super) asks: Vec<Ask>,
    pub(super) open: bool,
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
        "obsoleted",
        "subsumed",
        "deprecated",
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
    // "what came instead of X" (not "why X instead of Y", which asks for a decision).
    let came_instead = c
        .pair(&["came", "come", "comes", "went", "used"], &["instead"], 1)
        .is_some();
    c.has(REPLACING)
        || c.has(REPLACED)
        || into
        || current
        || live
        || happened
        || duplicate_of
        || took_over
        || came_instead
}

/// The words of replacing: they ask for a replacement, and say nothing about what was
/// replaced, so they are not searched in such a question ([`replacement_frame_word`]).
const REPLACING: &[&str] = &[
    "replaced",
    "replace",
    "replaces",
    "replacing",
    "superseded",
    "supersede",
    "supersedes",
    "superseding",
    "successor",
    "successors",
    "replacement",
    "replacements",
];

/// Whether `word` belongs to a replacement frame and says nothing about what was
/// replaced: the words of replacing and of "came instead" ("deprecated", "renamed" and
/// "duplicate" stay, they can be what the item's text says of itself).
pub(super) fn replacement_frame_word(word: &str) -> bool {
    REPLACING.contains(&word) || matches!(word, "instead" | "came" | "come" | "comes")
}
