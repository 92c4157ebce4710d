//! The parts frame: a clause that asks for an item's parts (children), by a part noun,
//! `make up` / `made of`, the work under an epic, what a piece of work turned up, or what
//! is left or remains; and whether it asks what is still open.

use super::clause::Clause;

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

/// Parts (children) of an item, and whether the clause asks what is left or open.
pub(super) fn parts(c: &Clause) -> (bool, bool) {
    let left = left(c);
    let remain = c.has(&["remaining", "remain", "remains", "outstanding"])
        || c.pair(&["still"], &["needs", "need", "needed"], 1).is_some();
    let open = left || remain || unfinished(c);
    let contained = c.has(&["under", "within"]) || c.pair(&["which", "what"], &["of"], 1).is_some();
    (named(c) || left || remain || (open && contained), open)
}

/// Parts named as such: a part noun, `make up` / `made of`, the work under an epic, or
/// what a piece of work turned up.
fn named(c: &Clause) -> bool {
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
    noun || made || work || found
}

/// "what is left (to do) in X", "anything left", not "the left panel".
fn left(c: &Clause) -> bool {
    c.w.iter().enumerate().any(|(i, x)| {
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
    })
}

/// Work said to be unfinished: "unfixed", "still open", "not done yet", "open tasks",
/// "in the todo".
fn unfinished(c: &Clause) -> bool {
    let word = c.has(&[
        "unfixed",
        "undone",
        "unfinished",
        "unresolved",
        "incomplete",
        "unshipped",
    ]);
    let still = c.pair(
        &["still", "yet"],
        &[
            "open", "todo", "to", "unfixed", "undone", "missing", "needed", "needs", "need", "pending", "progress",
        ],
        2,
    );
    let not_done = c.pair(
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
    );
    let open_work = c.pair(
        &["open"],
        &[
            "work", "tasks", "items", "issues", "bugs", "tickets", "subtasks", "children", "pieces",
        ],
        1,
    );
    let todo = c.pair(&["the", "in"], &["todo"], 1);
    word || still.is_some() || not_done.is_some() || open_work.is_some() || todo.is_some()
}
