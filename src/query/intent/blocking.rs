//! The blocking frame: a clause that asks for an item's blockers or for what the item
//! holds up. A need with `before`/`first`, a hold-up, a wait or dependence with the
//! preposition left at the end ("what is X waiting on") ask for blockers; the same verbs
//! with an object after them and the question word as subject ("which tasks wait for X")
//! ask for what X holds up.

use super::Ask;
use super::clause::{Clause, WH};

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

/// Blockers or what an item holds up, from the frame of need, hold-up, wait or dependence:
/// the first step that reads the clause answers.
pub(super) fn blocking(c: &Clause, before: bool) -> Option<Ask> {
    // "why can't X go live", "why isn't X done yet", "why is X stuck".
    if c.opener() == "why" {
        return why_held(c);
    }
    until(c)
        .or_else(|| wait(c))
        .or_else(|| unblocked(c))
        .or_else(|| stopped(c))
        .or_else(|| held(c))
        .or_else(|| in_the_way(c))
        .or_else(|| needed(c, before))
        .or_else(|| noun(c))
}

/// A `why` about a hold-up: negated ("why can't X go live") or naming one ("why is X stuck").
fn why_held(c: &Clause) -> Option<Ask> {
    let negated = c.at(2) == "not"
        && matches!(
            c.at(1),
            "can" | "is" | "are" | "has" | "have" | "was" | "were" | "will" | "could"
        );
    (negated || c.has(&["stuck", "delayed", "blocked", "late", "slipping", "waiting", "held"])).then_some(Ask::Blockers)
}

/// "what can't move forward until X": the question word waits on X.
fn until(c: &Clause) -> Option<Ask> {
    (matches!(c.opener(), "what" | "which") && c.pair(&["not", "never"], &["until", "till"], 6).is_some())
        .then_some(Ask::Dependents)
}

/// A wait or dependence: stranded preposition → X waits (blockers); an object after it
/// with the question word as subject → the question word waits on X.
fn wait(c: &Clause) -> Option<Ask> {
    let op = c.opener();
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
            return Some(if c.ends_after(v + 1) || !c.subject_is_wh(v) || yes_no {
                Ask::Blockers
            } else {
                Ask::Dependents
            });
        }
    }
    None
}

/// "what gets unblocked once X lands", "what would be unblocked by X": the question word
/// is what X holds up.
fn unblocked(c: &Clause) -> Option<Ask> {
    let v = c.find(&["unblocked"])?;
    (matches!(c.opener(), "what" | "which") && c.subject_is_wh(v)).then_some(Ask::Dependents)
}

/// "what is stopping X", "anything preventing X", "what is keeping X from Y".
fn stopped(c: &Clause) -> Option<Ask> {
    let stops = c
        .find(&["stopping", "preventing", "prevents", "delaying", "delays"])
        .filter(|&v| c.subject_is_wh(v));
    let keeps = c
        .pair(&["keeping", "keeps"], &["from"], 6)
        .filter(|&v| c.subject_is_wh(v));
    stops.or(keeps).map(|_| Ask::Blockers)
}

/// "what blocks X", "what is holding up X", "what is holding the release up" ask for
/// blockers; "what does X block", "what is X holding up" for what X holds up.
fn held(c: &Clause) -> Option<Ask> {
    let op = c.opener();
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
    let v = c.find(HOLDS)?;
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
    None
}

/// "what is blocked", "what stands in the way".
fn in_the_way(c: &Clause) -> Option<Ask> {
    let way = c.pair(&["in", "the"], &["way"], 1).is_some() && c.has(&["stands", "stand", "standing", "is", "what"]);
    (c.has(&["blocked"]) || way).then_some(Ask::Blockers)
}

/// "what has to be finished before X", "what do we need first", "what does X need".
fn needed(c: &Clause, before: bool) -> Option<Ask> {
    let op = c.opener();
    if !matches!(
        op,
        "what" | "which" | "who" | "anything" | "any" | "is" | "are" | "do" | "does" | "did"
    ) {
        return None;
    }
    let n = c
        .pair(&["has", "have", "had", "needs", "need", "ought"], &["to"], 1)
        .or_else(|| {
            c.find(&[
                "must", "needed", "required", "should", "need", "needs", "requires", "require",
            ])
        })?;
    if before
        || c.w[n..]
            .iter()
            .any(|x| matches!(x.as_str(), "before" | "first" | "prior" | "beforehand"))
    {
        return Some(Ask::Blockers);
    }
    // "what does X need", "what does X require": the verb last.
    (op == "what" && matches!(c.at(1), "does" | "do" | "did" | "would" | "will") && c.ends_after(n))
        .then_some(Ask::Blockers)
}

/// "what are its blockers", "which change was a prerequisite for X".
fn noun(c: &Clause) -> Option<Ask> {
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
    let n = c.find(NOUNS).filter(|_| c.wh_object())?;
    // "what is X a prerequisite for": the question word needs X.
    let stranded = c.w[n + 1..]
        .iter()
        .position(|x| x == "for")
        .is_some_and(|i| c.ends_after(n + 1 + i));
    Some(if stranded { Ask::Dependents } else { Ask::Blockers })
}
