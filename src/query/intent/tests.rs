//! The intent grammar against phrasings people use, and against look-alikes that ask
//! for no relation.

use super::*;
use Ask::*;

fn asks(q: &str) -> Vec<Ask> {
    Intent::parse(q).asks
}

/// Every question of `qs` asks for `want` (and maybe more).
fn all_ask(want: Ask, qs: &[&str]) {
    for q in qs {
        assert!(
            asks(q).contains(&want),
            "{q:?} should ask for {want:?}, reads {:?}",
            asks(q)
        );
    }
}

/// No question of `qs` asks for `not`.
fn none_ask(not: Ask, qs: &[&str]) {
    for q in qs {
        assert!(
            !asks(q).contains(&not),
            "{q:?} should not ask for {not:?}, reads {:?}",
            asks(q)
        );
    }
}

#[test]
fn a_need_before_a_hold_up_or_a_stranded_wait_asks_for_blockers() {
    let qs = [
        "what is blocking the PDF export",
        "What stands in the way of the offline sync release?",
        "what do we need before we can turn on SSO",
        "What has to be finished before the importer can run incrementally?",
        "What must land before we can ship the mobile beta?",
        "what needs to be done before the data-flow tests can be written",
        "What's holding up the billing migration?",
        "what is holding the release up",
        "What is the reports endpoint waiting on before it can be merged?",
        "The old GUI draft - what was it waiting on?",
        "what does the search rewrite depend on",
        "The idea of a graph canvas - what does it build on / depend on?",
        "Before we start the pilot, what has to happen first?",
        "BACK-12 (export): which other task has to be settled first?",
        "which earlier change was a prerequisite for fast loading",
        "what are the blockers for the v2 API",
        "is the upload rework blocked",
        "why is the migration stuck",
        "why can't the manager web app go live yet",
        "Is anything blocking the theme picker?",
        "what would unblock the desktop build",
        "What's in the way of releasing 2.0?",
        "what's blocking the release?",
        "what are we waiting on for the SSO rollout?",
        "what does the exporter need before it can ship?",
        "anything stopping us from turning on offline mode?",
        "what's keeping the migration from finishing?",
        "what are the prerequisites for the v3 API",
        "why is the payments epic still blocked?",
        "which tickets must be closed before we can cut 2.0",
        "what is gating the launch",
    ];
    all_ask(Blockers, &qs);
    none_ask(Dependents, &qs);
}

#[test]
fn the_question_word_as_subject_of_a_wait_asks_for_what_an_item_holds_up() {
    let qs = [
        "which tasks had to wait for the CRDT merge logic to be finished",
        "what can't move forward until the renderer stops running out of memory",
        "what depends on the auth service",
        "Which stories are blocked by the schema change?",
        "what does the parser rewrite block",
        "what is the token refresh bug holding up",
        "What would the new exporter unblock?",
        "what gets unblocked once the parser lands?",
        "what is the schema change a prerequisite for?",
        "which tasks are waiting on the auth rewrite",
        "what would be unblocked by fixing the memory leak",
    ];
    all_ask(Dependents, &qs);
    none_ask(Blockers, &qs);
}

#[test]
fn part_nouns_made_of_and_what_is_left_ask_for_parts() {
    let qs = [
        "Which pieces make up the plan to cache analysis on disk?",
        "what is the onboarding epic made of",
        "What does the reporting feature consist of?",
        "which sub-tasks made up the first MCP release",
        "What were the slices of the summary field rollout?",
        "Which per-language pieces are in the grammar effort?",
        "is anything under the call-analysis split still open",
        "what is left in epic 7",
        "What's left to do for the search revamp?",
        "what still needs doing for the web hierarchy view",
        "what remains of the migration",
        "Which of the Python bugs found by scanning the repo are still unfixed?",
        "What bugs were uncovered while strengthening the integration tests?",
        "In the web server epic (task 100), which subtask never got done?",
        "list the children of the sync epic",
        "how is the importer broken down",
        "what's left on the billing epic?",
        "how much is left of the search revamp",
        "what's still outstanding for the mobile beta?",
        "which items remain in milestone 4?",
        "what are the remaining tasks for the importer",
        "list the open subtasks of the sync epic",
        "what tasks belong to the reporting epic",
        "what are the steps of the data migration plan",
        "what work is under the observability epic",
    ];
    all_ask(Parts, &qs);
}

#[test]
fn what_is_left_and_what_is_still_open_ask_for_open_items() {
    for q in [
        "what is left in epic 7",
        "is anything under the split still open",
        "Which TUI improvements are still in the to-do column?",
        "What open tasks are there for the content viewer?",
        "which subtask never got done",
        "what remains of the migration",
        "what is still in progress or open for PDF reports",
        "What's holding up the billing migration?",
        "what is the reports endpoint waiting on",
    ] {
        assert!(Intent::parse(q).open, "{q:?} asks what is open");
    }
    for q in [
        "which subtasks made up the MCP release",
        "why did we pick tus",
        "Is the work to follow variable types across files done yet?",
        "what is in the left panel",
        "how do pending photos keep uploading in the background",
        "What had to be finished before the project object could stop being mutated?",
        "The old GUI draft - what was it waiting on?",
    ] {
        assert!(!Intent::parse(q).open, "{q:?} does not ask what is open");
    }
}

#[test]
fn why_and_deciding_ask_for_decisions() {
    let qs = [
        "Why did we pick tus?",
        "why are inspection reports rendered on the server",
        "why not just use LaunchDarkly",
        "Why is CI pinned back to Bun 1.2.23?",
        "How do we give every function a unique id, and why that format?",
        "What was decided about two processes editing one task?",
        "How did we decide to handle concurrent edits?",
        "What was the owner ruling on cross-branch reads?",
        "what's the rationale for one shared schema",
        "Should an empty --dep clear dependencies? What was decided?",
        "which library did we choose for prompts",
        "what led us to drop sharding",
        "why was Postgres chosen over MySQL?",
        "what was the reasoning behind dropping sharding",
        "did we ever decide on a date format",
        "how come we render PDFs on the server?",
    ];
    all_ask(Decision, &qs);
}

#[test]
fn replacing_merging_into_another_item_or_asking_which_is_current_asks_for_replacement() {
    let qs = [
        "which ADR superseded ADR-0002",
        "What replaced the old prompts library?",
        "What did we turn the pending-calls store into?",
        "Was the file-path task merged into another task?",
        "There's an archived kanban task - was that done under another task?",
        "The async loading work was re-filed under a different ID - which record is the authoritative one?",
        "Is the agent skill task still live, or did something supersede it?",
        "which tickets are duplicates and which is still open?",
        "What happened to the plugin prototype?",
        "were there earlier tickets for this, and which one is current?",
        "what was the old uploader replaced by?",
        "is the legacy sync ticket obsolete?",
        "what took over from the prompts library",
        "what came instead of ADR-0002",
    ];
    all_ask(Replacement, &qs);
}

#[test]
fn the_words_of_a_replacement_frame_are_not_searched() {
    let i = Intent::parse("what replaced ADR-0002");
    assert!(i.is_frame_word("replaced"));
    let i = Intent::parse("what came instead of the sync decision?");
    assert!(i.is_frame_word("came") && i.is_frame_word("instead") && !i.is_frame_word("sync"));
    // Words an item says of itself stay: "deprecated" can be what matches.
    let i = Intent::parse("which deprecated endpoint replaced the upload API?");
    assert!(!i.is_frame_word("deprecated") && !i.is_frame_word("upload"));
    // "X instead of Y" in a why-question asks for a decision, and "instead" is searched.
    let i = Intent::parse("why are reports rendered on the server instead of on the phone");
    assert!(!i.asks(Replacement) && !i.is_frame_word("instead"));
    // Not asked about replacement: the words are searched.
    assert!(!Intent::parse("the replaced parser crashes").is_frame_word("replaced"));
}

#[test]
fn look_alikes_ask_for_nothing() {
    for q in [
        // No question: an abstract, a report, a title.
        "block gas limit of the beacon chain blocks",
        "A token standard whose transfers must be approved before execution, which requires a hook",
        "the left sidebar collapses when I click a task",
        "the app shuts down by itself a few seconds after I get signal back",
        "QRY-TSK-0010 acceptance criteria",
        // Questions about no relation.
        "how long do we have to wait before retrying an upload",
        "what happens before the build step runs",
        "is the left panel resizable?",
        "How do I keep backlog browser running in the background and starting on boot?",
        "Which task covers converting rich-text pastes into markdown?",
        "Where did we work on warning humans about duplicate task IDs?",
        "Which parts of the config are read at startup?",
        "What does the upload part size default to?",
        "how do we make up for lost sync time",
        "Has anyone started on Go, Java or C# support?",
        "What did we do before the release?",
        "What could people actually build on top of the library?",
        "Where is the build on Windows documented?",
        "Is there a task for linking doc-N and decision-N mentions?",
        "Which task added due dates to tasks and milestones?",
        "how do I configure the exporter",
        "where is the retry logic for uploads",
        "what does the sync status icon mean",
        "what is the max upload size",
        "how are photos compressed before upload",
        "what happens to drafts when a task is archived",
        "is there a ticket for left-handed mode",
        "what does the block explorer show for pending transactions",
        "which parts of the UI use the old theme",
    ] {
        assert_eq!(asks(q), [], "{q:?}");
    }
    // A symptom asks why something breaks, not what was decided.
    none_ask(
        Decision,
        &[
            "why does the app crash when signal comes back",
            "why are my photos missing",
        ],
    );
    // Picked up is started, an agreed set is no decision.
    none_ask(
        Decision,
        &[
            "What has to land before the init integration can be picked up?",
            "Which pieces emit one agreed set of tag names?",
        ],
    );
}

#[test]
fn asks_map_to_edge_types_and_answering_ends() {
    use EdgeType::*;
    let i = Intent::parse("what is blocking the PDF export?");
    assert_eq!(i.asks, [Blockers]);
    assert_eq!(i.edge_types(), [BlockedBy, Blocks, DependsOn]);
    let both = Intent::parse("Which ADR superseded ADR-0002 and why?");
    assert_eq!(both.edge_types(), [DecisionRef, Supersedes, SupersededBy]);
    let e = |r#type, forward| GraphEdge {
        other: "X".to_string(),
        r#type,
        forward,
        weight: 1.0,
    };
    // What blocks an item answers a blockers question; what it blocks does not.
    assert!(i.answers(&e(BlockedBy, true)) && !i.answers(&e(BlockedBy, false)));
    assert!(i.answers(&e(Blocks, false)) && !i.answers(&e(Blocks, true)));
    // The other way round for what an item holds up.
    let d = Intent::parse("what depends on the auth service");
    assert!(d.answers(&e(DependsOn, false)) && !d.answers(&e(DependsOn, true)));
    assert!(d.answers(&e(Blocks, true)));
    // An epic's children answer "what is left in it"; its parent does not.
    let p = Intent::parse("what is left in the sync epic");
    assert_eq!(p.edge_types(), [Parent]);
    assert!(p.answers(&e(Parent, false)) && !p.answers(&e(Parent, true)));
    assert!(p.open_first() && i.open_first() && !both.open_first());
    assert!(!Intent::parse("what had to land before the export").open_first());
    assert!(Intent::parse("").asks.is_empty() && Intent::parse("??? - , ;").edge_types().is_empty());
}

#[test]
fn doctype_factors_follow_the_asks() {
    let w: BTreeMap<String, BTreeMap<String, f64>> = [
        ("blockers".to_string(), [("adr".to_string(), 0.6)].into()),
        ("parts".to_string(), [("adr".to_string(), 0.5)].into()),
    ]
    .into();
    let f = |q: &str| Intent::parse(q).doctype_factor("adr", &w);
    assert_eq!(f("what is holding up the export?"), 0.6);
    assert_eq!(f("which pieces make up the export epic?"), 0.5);
    // Blockers and a decision: the decision keeps the record whole.
    assert_eq!(f("What has to be decided first before we build the loop?"), 1.0);
    assert_eq!(f("how does sync work"), 1.0);
    assert_eq!(Intent::parse("what is blocking X?").doctype_factor("task", &w), 1.0);
    // Every ask has the name configuration knows.
    for a in [Blockers, Dependents, Parts, Decision, Replacement] {
        assert!(crate::config::INTENTS.contains(&a.as_str()), "{a:?}");
    }
}

#[test]
fn hostile_input_parses_without_panicking() {
    let long = "what is blocking ".repeat(5000);
    for q in [
        "'",
        "n't",
        "'s's's",
        "can't'",
        "- - -",
        "—?—?",
        "what",
        "why",
        "which of",
        "is",
        "holding up",
        "…what’s left…",
        "ÄÖÜ? was blockiert Ä",
        "🙂 what's blocking 🙂?",
        "what\u{301} is left",
        long.as_str(),
    ] {
        let i = Intent::parse(q);
        let _ = (i.edge_types(), i.open_first(), i.is_frame_word("up"));
    }
    assert!(Intent::parse(&long).asks(Blockers));
}
