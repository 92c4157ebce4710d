#!/usr/bin/env python3
"""Write spec-queries.jsonl (and per-corpus copies) from the hand-written questions below.

The questions and grades were written from the corpus documents alone, before any retrieval ran.
The split is not chosen per question: every third question of each corpus, in the order below,
is heldout. Re-running this script reproduces the files byte for byte.
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
A, B, C, D = "001-agenda-pii-handling", "002-smart-timer-module", "003-user-authentication", "004-ui-ux-improvements"
SA, SB, SC_, SD = (f"specs/{x}/" for x in (A, B, C, D))


def st(sid):
    return f"docs/stories/{sid}.story.md"


EPIC1 = "docs/prd/epic-1-minimal-working-pipeline.md"
EPIC2 = "docs/prd/epic-2-accuracy-context-enhancement.md"
EPIC3 = "docs/prd/epic-3-production-infrastructure-serverless-architecture.md"
EPIC4 = "docs/prd/epic-4-testing-documentation-phase-1-completion.md"

SPECKIT = [
    # --- implement: what does this task need me to know
    ("implement",
     "implement T009: the server route that strips names, calls Gemini and puts the names back. Which story, requirements and design notes apply, and is what it calls already built?",
     {f"{A}/T009": 3, f"{A}/US1": 2, f"{A}/FR-002": 2, f"{A}/FR-004": 2, f"{A}/FR-009": 2,
      SA + "research.md": 2, SA + "plan.md": 2, SA + "data-model.md": 2, f"{A}/T005": 2, f"{A}/T006": 2,
      f"{A}/T017": 1, SA + "threat-modeling.md": 1}),
    ("implement",
     "What must the custom green/yellow/red threshold input check before accepting values, and which requirement asks for it?",
     {f"{B}/T025": 3, f"{B}/FR-013": 3, f"{B}/FR-002": 2, f"{B}/US1": 2, f"{B}/T024": 1}),
    ("implement",
     "Picking up T026, the list of logged times: how do I decide whether a speech finished within its allowed time?",
     {f"{B}/FR-014": 3, f"{B}/T026": 2, f"{B}/T020": 2, f"{B}/FR-001": 1, f"{B}/US1": 1}),
    # --- decision
    ("decision",
     "Why do we swap member names for placeholders with a find-and-replace map instead of detecting names with an NLP entity recogniser?",
     {SA + "research.md": 3, f"{A}/T005": 2, f"{A}/T007": 1, SA + "threat-modeling.md": 1}),
    ("decision",
     "Why doesn't the agenda route stream the model's answer back?",
     {SA + "research.md": 3, f"{A}/T006": 1, f"{A}/T009": 1}),
    ("decision",
     "Why were the name placeholders changed from numbered PERSON labels to random-looking tokens?",
     {f"{A}/T007": 3, SA + "threat-modeling.md": 2, SA + "research.md": 2, f"{A}/T005": 1}),
    ("decision",
     "Why does the agenda feature take pasted text rather than an uploaded PDF?",
     {SA + "spec.md": 3, SA + "plan.md": 2, f"{A}/FR-001": 2, SA + "quickstart.md": 1}),
    ("decision",
     "Why does sign-in rely on a hosted auth provider instead of our own password storage?",
     {SC_ + "spec.md": 3, f"{C}/T040": 2, f"{C}/T042": 2, f"{C}/FR-006": 1}),
    ("decision",
     "What was decided about a timer that someone forgets to stop, and which task built it?",
     {f"{B}/FR-012": 3, f"{B}/T032": 3, SB + "spec.md": 2, f"{B}/T019": 1}),
    # --- ready / blocking
    ("ready",
     "What had to be finished before anyone could start on the agenda feature's user story?",
     {f"{A}/T005": 3, f"{A}/T006": 3, f"{A}/T007": 3, f"{A}/T008": 3, f"{A}/US1": 2}),
    ("ready",
     "Which agenda tasks gate the runtime security phase (the CSP and CORS headers)?",
     {f"{A}/T009": 3, f"{A}/T010": 3, f"{A}/T011": 3, f"{A}/T012": 3, f"{A}/T013": 3, f"{A}/T014": 3,
      f"{A}/T015": 3, f"{A}/T016": 2, f"{A}/T017": 2}),
    ("ready",
     "Which agenda tasks can be built at the same time as the process-agenda API route?",
     {f"{A}/T010": 3, f"{A}/T011": 3, f"{A}/T012": 3, f"{A}/T009": 2}),
    ("ready",
     "What has to exist before the timer page can be assembled and wrapped in its state provider?",
     {f"{B}/T018": 3, f"{B}/T027": 3, f"{B}/T022": 3, f"{B}/T023": 3, f"{B}/T024": 3, f"{B}/T025": 3,
      f"{B}/T026": 3, f"{B}/T033": 3, f"{B}/T034": 3, f"{B}/T028": 2}),
    # --- status
    ("status",
     "Across all the spec folders, which checkboxes are still unticked?",
     {SB + "checklists/requirements.md": 3, SA + "threat-modeling.md": 3, SA + "plan.md": 3, f"{C}/T039": 1}),
    ("status",
     "Has the timer module's spec passed its quality checklist yet?",
     {SB + "checklists/requirements.md": 3, SB + "spec.md": 1}),
    ("status",
     "Is the threat model for agenda processing actually finished, or are mitigations still open?",
     {SA + "threat-modeling.md": 3, f"{A}/T002": 2, f"{A}/FR-017": 2, f"{A}/T008": 1, f"{A}/FR-005": 1}),
    ("status",
     "Is anything still left to do for login and accounts?",
     {SC_ + "tasks.md": 3, f"{C}/T039": 2, SC_ + "spec.md": 1, f"{C}/FR-008": 1}),
    ("status",
     "Which project principle did the agenda plan fail at its gate check?",
     {SA + "plan.md": 3, ".specify/memory/constitution.md": 2}),
    # --- structure
    ("structure",
     "Which tasks deliver the first user story of the agenda feature?",
     {f"{A}/T009": 3, f"{A}/T010": 3, f"{A}/T011": 3, f"{A}/T012": 3, f"{A}/T013": 3, f"{A}/T014": 3,
      f"{A}/T015": 3, f"{A}/US1": 2}),
    ("structure",
     "List the security-hardening tasks in the agenda feature.",
     {f"{A}/T004": 3, f"{A}/T007": 3, f"{A}/T008": 3, f"{A}/T016": 3, f"{A}/T017": 3, f"{A}/T002": 1,
      SA + "threat-modeling.md": 1}),
    ("structure",
     "What work makes up the UI/UX improvements feature, and is it done?",
     {SD + "tasks.md": 3}),
    # --- trace: which task does this behaviour, across features
    ("trace",
     "Which tasks put one navigation bar on every page, and which earlier task had added a link to the timer from the home page?",
     {f"{D}/T035": 3, f"{D}/T036": 3, f"{B}/T029": 2, f"{D}/T037": 1, f"{D}/T038": 1}),
    ("trace",
     "Which task made the timer page reachable only by signed-in users?",
     {f"{C}/T043": 3, f"{B}/T027": 2, f"{C}/T042": 1, f"{C}/US1": 1}),
    ("trace",
     "Where does the Gemini key live once accounts were added, and which task had first put it in a local env file?",
     {f"{C}/T044": 3, f"{A}/T003": 2, f"{C}/T045": 2, SA + "research.md": 1, SA + "quickstart.md": 1}),
    # --- implement (cross-feature)
    ("implement",
     "implement T047: saving timer sessions to the database. What does it build on, and does the timer spec even allow keeping past sessions?",
     {f"{C}/T047": 3, f"{C}/T046": 2, f"{B}/T018": 2, SB + "spec.md": 2, f"{B}/FR-006": 1}),
    ("implement",
     "What should the T005 sanitiser take and return, and which privacy rules does it serve?",
     {f"{A}/T005": 3, SA + "research.md": 2, f"{A}/FR-003": 2, f"{A}/FR-004": 2, f"{A}/T007": 2,
      SA + "data-model.md": 1}),
    # --- lookup
    ("lookup",
     "Which requirement says a full name beats a partial one like \"Dan S.\", and did any task take care of it?",
     {f"{A}/FR-008": 3, f"{A}/T005": 1}),
    ("lookup",
     "What time budget is set for pulling the roles out of pasted agenda text?",
     {f"{A}/SC-003": 3, SA + "plan.md": 1, f"{A}/SC-004": 1}),
    ("lookup",
     "In the agenda feature, what did T001 set up?",
     {f"{A}/T001": 3, SA + "plan.md": 1}),
    ("lookup",
     "Is there a task that protects sign-in against password guessing?",
     {f"{C}/FR-008": 3, f"{C}/T042": 1}),
]

BMAD = [
    # --- implement
    ("implement",
     "I'm building the dead-letter-queue processor Lambda in the Lambda error-handling story. Which acceptance criterion is it for, and what from the queue story does it build on?",
     {"3.2/4": 3, "3.2/AC6": 3, "3.1/1": 2, "3.1/7": 1, "3.1/AC6": 1}),
    ("trace",
     "Which acceptance criterion does task 2 of story 2.1 serve?",
     {"2.1/AC2": 3, "2.1/2": 2}),
    ("implement",
     "Picking up task 2 of the Lambda error-handling story (progress tracking): which fields must the job record carry, and what table does it extend?",
     {"3.2/2": 3, "3.2/AC2": 2, "3.1/2": 2, "3.1/AC4": 1}),
    ("implement",
     "For the smart context filtering in the drawing-analysis story: which keywords, what token cap, and which criterion does it satisfy?",
     {"2.2/2": 3, "2.2/AC3": 2, "2.1/AC6": 1}),
    ("implement",
     "What inputs must the AI judge's evaluation receive, and which criteria define the shape of its verdict?",
     {"2.3/3": 3, "2.3/AC1": 3, "2.3/AC4": 2, "2.3/AC3": 2, "2.3/4": 1}),
    # --- ready / blocking
    ("ready",
     "In the serverless queue story, what had to exist before the upload endpoint could hand jobs off asynchronously?",
     {"3.1/1": 3, "3.1/2": 3, "3.1/3": 3, "3.1/4": 2}),
    ("ready",
     "What did the team have to finish before any other AI agent work could continue?",
     {st("0.1"): 3, "docs/SPRINT-BACKLOG-EMERGENCY-UPDATE.md": 2, "docs/TEAM-COMMUNICATION-SDK-MIGRATION.md": 2,
      EPIC1: 1, st("1.3"): 1}),
    ("ready",
     "Before prompt versions could be tracked in the optimisation sprint, what prerequisite fix was required?",
     {"2.4/1": 3, "2.4/2": 2, st("2.4"): 1}),
    ("ready",
     "Which task in the integration-testing story had to come first because of failures left over from the unit-test story?",
     {"4.2/1": 3, "4.2/8": 2, st("4.1"): 1}),
    # --- status
    ("status",
     "Which stories are marked done even though boxes in their task list are still unticked?",
     {st("2.3"): 3, st("2.4"): 3, st("4.3.2"): 3}),
    ("status",
     "What is still unchecked in the CI/CD and E2E fixes story?",
     {"4.3.2/5": 3, "4.3.2/5.1": 2, "4.3.2/5.2": 2, "4.3.2/5.3": 2, "4.3.2/5.4": 2}),
    ("status",
     "Was the AI judge actually built? None of its task boxes are ticked.",
     {st("2.3"): 3, st("2.4"): 1}),
    ("status",
     "What follow-up suggestions did QA leave open on the spreadsheet generation story?",
     {st("1.4"): 3}),
    ("status",
     "What is left in the testing and documentation epic that nobody has started yet?",
     {EPIC4: 3, "docs/prd/index.md": 1}),
    ("status",
     "Is the essential documentation story finished, and how was it completed?",
     {st("4.4"): 3, "docs/ARCHITECTURE_CHANGE.md": 2, EPIC4: 1}),
    # --- decision
    ("decision",
     "Why did the project abandon the Vertex AI SDK?",
     {st("0.1"): 3, "docs/TEAM-COMMUNICATION-SDK-MIGRATION.md": 3, "docs/architecture/gemini-sdk-migration-plan.md": 2,
      "docs/SPRINT-BACKLOG-EMERGENCY-UPDATE.md": 1, "docs/architecture/ARCHITECT-ACTION-REQUIRED.md": 1}),
    ("decision",
     "Why not use LocalStack or mock everything for the end-to-end tests?",
     {"docs/stories/4.3.1-course-correction-request.md": 3, st("4.3.1"): 2, st("4.3"): 1}),
    ("decision",
     "Why was the multi-environment pipeline with staging dropped?",
     {"docs/ARCHITECTURE_CHANGE.md": 3, "docs/deployment/README.md": 2,
      "docs/architecture/test-strategy-and-standards.md": 2, st("4.4"): 1}),
    ("decision",
     "Why were hundreds of integration tests deleted?",
     {st("4.3"): 3, "4.3/AC4": 2, EPIC4: 1, st("4.2"): 1, "docs/architecture/test-strategy-and-standards.md": 1,
      "docs/stories/4.3.1-course-correction-request.md": 1}),
    ("decision",
     "Why was the placeholder judge agent rewritten in place rather than as a new version?",
     {st("2.3"): 3}),
    ("decision",
     "Why must every agent run on gemini-2.5-pro and not the flash or experimental models?",
     {"2.4/1": 3, st("2.4"): 2, "2.1/AC7": 1, "2.1/3.6": 1}),
    # --- trace
    ("trace",
     "Which epic does the AWS and GitHub account setup story belong to?",
     {EPIC3: 3, st("3.4"): 2, "docs/prd/epic-list.md": 1, "docs/prd/index.md": 1}),
    ("trace",
     "Which epic is the SDK migration story part of?",
     {EPIC1: 3, st("0.1"): 2, "docs/prd/epic-list.md": 1}),
    ("trace",
     "Which acceptance criterion does deleting the old test infrastructure serve in the pragmatic test suite story?",
     {"4.3/AC4": 3, "4.3/4": 2}),
    ("trace",
     "Which task in the monitoring story turns on request tracing through the Lambdas, and which criterion does it meet?",
     {"3.3/6": 3, "3.3/AC6": 3, "3.3/9.6": 1}),
    ("trace",
     "Which task delivers the alarm for messages piling up in the dead-letter queue?",
     {"3.1/7": 3, "3.1/AC7": 2, "3.3/5": 1, "3.2/4": 1}),
    # --- structure
    ("structure",
     "What stories make up the accuracy and context epic?",
     {st("2.1"): 3, st("2.2"): 3, st("2.3"): 3, st("2.4"): 3, st("2.5"): 3, EPIC2: 2}),
    # --- lookup
    ("lookup",
     "Where was the pytest collection error \"'Package' object has no attribute 'obj'\" fixed?",
     {"4.3.2/1": 3, st("4.3.1"): 1}),
    ("lookup",
     "Which story set up separate local, dev and prod environment templates?",
     {st("4.3.1"): 3, "4.3.1/3": 2, "4.3.1/AC4": 2}),
    ("ready",
     "In the serverless queue story, which tasks had no prerequisites and could start straight away?",
     {"3.1/1": 3, "3.1/2": 3, "3.1/6": 1}),
]


def rows(corpus, prefix, qs):
    out = []
    for i, (kind, q, rel) in enumerate(qs, 1):
        out.append({"id": f"{prefix}{i:03d}", "query": q, "relevant": rel, "kind": kind,
                    "split": "heldout" if i % 3 == 0 else "tune", "corpus": corpus})
    return out


def write(path, rs):
    with open(path, "w", encoding="utf-8") as f:
        for r in rs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


sk = rows("speckit-toastmasters", "s", SPECKIT)
bm = rows("bmad-security-design-assistant", "m", BMAD)
write(os.path.join(HERE, "spec-queries.jsonl"), sk + bm)
write(os.path.join(HERE, "spec-queries-speckit.jsonl"), sk)
write(os.path.join(HERE, "spec-queries-bmad.jsonl"), bm)
print(len(sk), "Spec Kit,", len(bm), "BMAD")
