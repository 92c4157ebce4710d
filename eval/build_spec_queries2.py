#!/usr/bin/env python3
"""Write spec2-queries.jsonl (and per-corpus copies) from the hand-written questions below.

A second spec-folder set (issue 43, "your own set") over four public repositories that no
other set covers: a Spec Kit, a Kiro, a BMAD and an OpenSpec one (eval/spec2-README.md says which, at which
commit, and how the set was made). The questions and grades were written from the repositories'
documents alone, before mdgraph was run on them. The split is not chosen per question: every
third question of each corpus, in the order below, is heldout. Judgments added after pooling
(eval/spec2-README.md, "Pooling") are marked `# pooled` where they are written.
Re-running this script reproduces the files byte for byte.
"""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def rng(prefix, lo, hi, extra=()):
    """Task ids T<lo>..T<hi> of one feature (zero-padded to three digits), plus extra ids."""
    return [f"{prefix}/T{i:03d}" for i in range(lo, hi + 1)] + [f"{prefix}/{e}" for e in extra]


def grade(keys, g):
    return {k: g for k in keys}


# ---------------------------------------------------------------- Spec Kit: rkSlalom/ae-infinity-context
A1, A2, A3 = "001-user-authentication", "002-user-profile-management", "003-shopping-lists-crud"
A4, A5, A6 = "004-list-items-management", "005-categories-system", "006-basic-search"
P = {a: f"specs/{a}/" for a in (A1, A2, A3, A4, A5, A6)}

SPECKIT = [
    # 1 work left in one user story
    ("work",
     "What's still open for the password reset flow in the auth feature?",
     {**grade(rng(A1, 27, 36), 3), f"{A1}/US4": 2, f"{A1}/T042": 2}),
    # 2 implement a task by id
    ("implement",
     "implement T044 in auth, the login rate limiter",
     {f"{A1}/T044": 3, f"{A1}/FR-024": 2, f"{A1}/T045": 2, P[A1] + "data-model.md": 2,
      P[A1] + "plan.md": 1, P[A1] + "IMPLEMENTATION_SUMMARY.md": 1}),
    # 3 is X done (every task ticked; only definition-of-done boxes are open)
    ("status",
     "Is the shopping lists CRUD feature done?",
     {P[A3] + "IMPLEMENTATION_COMPLETE.md": 3, P[A3] + "tasks.md": 3, P[A3] + "spec.md": 2}),
    # 4 work left in one user story
    ("work",
     "what's left to do on the sign-up story before registration is finished?",
     {**grade(rng(A1, 21, 24, ("T021a", "T021b", "T021c")), 3), f"{A1}/US2": 2}),
    # 5 why X over Y (research.md)
    ("decision",
     "Why did we go with @dnd-kit instead of react-beautiful-dnd for reordering list items?",
     {P[A4] + "research.md": 3, f"{A4}/T094": 1, f"{A4}/US5": 1}),
    # 6 implement a task by id
    ("implement",
     "Implement T091 in list items: the handler that saves a drag-and-drop reorder",
     {f"{A4}/T091": 3, P[A4] + "research.md": 2, P[A4] + "data-model.md": 2, f"{A4}/US5": 2,
      f"{A4}/FR-034": 2, f"{A4}/T090": 2, f"{A4}/T084": 2, f"{A4}/FR-036": 1, f"{A4}/T101a": 1}),
    # 7 blocker
    ("ready",
     "In list items, is anything in the foundation phase still holding up the user stories?",
     {f"{A4}/T014d": 3, f"{A4}/phase-2": 2}),
    # 8 work left in one user story
    ("work",
     "What do I still need to do for the activity statistics on the user profile?",
     # T031 is also written in 002's IMPLEMENTATION_SUMMARY.md: the key names the tasks.md line
     # (validation, after labelling: the plain id was ambiguous).
     {**grade([f"{A2}/T031@specs/{A2}/tasks.md:223", f"{A2}/T032", f"{A2}/T033", f"{A2}/T037", f"{A2}/T038"], 3),
      f"{A2}/US3": 2}),
    # 9 why (research.md)
    ("decision",
     "Why can't someone delete a category that items are still using?",
     {P[A5] + "research.md": 3, f"{A5}/FR-021": 2, f"{A5}/T107g": 2, f"{A5}/T107c": 1}),
    # 10 what can I pick up next in a named story
    ("work",
     "what can I pick up next on creating custom categories?",
     {**grade(rng(A5, 34, 55), 3), f"{A5}/US2": 2}),
    # 11 why X over Y (research.md)
    ("decision",
     "Why does search use plain LIKE queries instead of full-text search or Elasticsearch?",
     {P[A6] + "research.md": 3, P[A6] + "plan.md": 1}),
    # 12 work left in one user story
    ("work",
     "What's still open on letting people view other users' public profiles?",
     {**grade(rng(A2, 39, 46), 3), f"{A2}/US4": 2}),
    # 13 lookup of a rule and its reason
    ("lookup",
     "Are category names unique regardless of upper/lower case, and why only per user?",
     {P[A5] + "research.md": 3, f"{A5}/FR-004": 2, f"{A5}/T045": 2, f"{A5}/T035": 1}),
]

# ---------------------------------------------------------------- Kiro: caraseli02/MoldovaDirect
K = ".kiro/specs/"
SC, AD, CO, CR = "shopping-cart", "admin-dashboard", "checkout", "code-refactoring"
IG, PC, PR, UA, WL = "invoice-generation", "product-catalog", "product-recommendations", "user-authentication", "wishlist"


def kreq(f):
    return f"{K}{f}/requirements.md"


def kt(f, *ns):
    return [f"{f}/{n}" for n in ns]


KIRO = [
    # 1 work left in a named feature
    ("work",
     "What's still left to do on the shopping cart before it's finished?",
     {**grade(kt(SC, 15, 16, 17, 19, 20), 3), kreq(SC): 2}),
    # 2 implement a task named by what it does
    ("implement",
     "implement the invoice number generator (the INV-YYYY-NNNNNN format)",
     {f"{IG}/2": 3, f"{IG}/R1.4": 2, f"{K}{IG}/design.md": 2, f"{IG}/R1": 1, f"{IG}/1": 1}),
    # 3 why X over Y
    ("decision",
     "Why does checkout only offer cash on delivery when Stripe and PayPal are already built?",
     {f"{K}{CO}/PAYMENT_SYSTEM.md": 3, f"{K}{CO}/design.md": 2, f"{CO}/5": 1, f"{K}{CO}/tasks.md": 1}),
    # 4 what can I pick up next in a named feature
    ("work",
     "What can I pick up next in the admin dashboard?",
     {**grade(kt(AD, 8, 8.1, 8.2, 9, 9.1, 9.2, 10, 11, 12), 3), kreq(AD): 2}),
    # 5 implement a task by its number
    ("implement",
     "Implement task 6 of product recommendations, the frequently bought together suggestions",
     {f"{PR}/6": 3, f"{PR}/R2": 2, **grade(kt(PR, "R2.1", "R2.2", "R2.3", "R2.4", "R2.5"), 2),
      f"{K}{PR}/design.md": 2, f"{PR}/5": 1}),
    # 6 is X done
    ("status",
     "Is the login and sign-up feature done, or is something still missing?",
     {**grade(kt(UA, 1, 9), 3), kreq(UA): 2}),
    # 7 why
    ("decision",
     "Why are we breaking the cart store up into separate modules?",
     {f"{K}{CR}/design.md": 3, kreq(CR): 2, f"{CR}/R1": 2}),
    # 8 blocker
    ("ready",
     "What has to be done before I can build the customer invoice dashboard components?",
     {f"{IG}/9": 3, f"{IG}/10": 2, f"{IG}/1": 1, f"{IG}/4": 1}),
    # 9 work left: a plan with nothing ticked
    ("work",
     "Nothing has been ticked in the wishlist plan yet. What's the full list of work there?",
     {**grade(kt(WL, *range(1, 21)), 3), kreq(WL): 2}),
    # 10 lookup
    ("lookup",
     "Which task covers tracking failed admin logins and rate limiting the admin API?",
     {f"{AD}/8.2": 3, f"{AD}/R5.6": 2, f"{AD}/8": 1}),
    # 11 implement a task named by what it does
    ("implement",
     "implement the order review step in checkout",
     {f"{CO}/6": 3, f"{CO}/R4": 2, **grade(kt(CO, "R4.1", "R4.2", "R4.3", "R4.4", "R4.5", "R4.6"), 2),
      f"{K}{CO}/design.md": 2, f"{CO}/5": 1, f"{CO}/7": 1}),
    # 12 why (and a requirement that says otherwise)
    ("decision",
     "Why can't customers check out as guests without an account?",
     {f"{K}{UA}/design.md": 3, f"{UA}/R10": 2, f"{CO}/R1.4": 2, f"{UA}/1": 1}),
    # 13 work left in a named feature
    ("work",
     "Which parts of the product catalog are still unfinished?",
     {**grade(kt(PC, 8, 8.1, 8.2, 8.3, 9, 9.1, 9.2, 9.3, 9.4), 3), kreq(PC): 2}),
]

# ---------------------------------------------------------------- BMAD: Bobert39/voice-agent
D = "docs/"


def story(s):
    return f"{D}stories/{s}.story.md"


S51 = f"{D}stories/5.1-fix-build-system.story.md"
S52 = f"{D}stories/5.2-remove-elderly-requirements.story.md"
EPIC1 = f"{D}prd/epic-1-foundation-core-infrastructure.md"
EPIC4 = f"{D}prd/epic-4-production-operations-staff-integration.md"

BMAD = [
    # 1 work left in a named story
    ("work",
     "What's still unfinished in the system configuration and maintenance tools story?",
     {**grade(["4.5/8", "4.5/8.2", "4.5/8.3", "4.5/8.5"], 3), story("4.5"): 2, EPIC4: 1}),
    # 2 implement an open subtask named by what it does
    ("implement",
     "implement the Playwright end-to-end tests that the configuration tools story still lacks",
     {"4.5/8.3": 3, "4.5/8": 2, "4.5/AC6": 2, story("4.5"): 2,
      f"{D}architecture/test-strategy-and-standards.md": 1}),
    # 3 is X done
    ("status",
     "Is the staff dashboard story finished?",
     {story("4.2"): 3, EPIC4: 1}),
    # 4 work left in a named story without a task list
    ("work",
     "What's left to do for removing the elderly-specific requirements?",
     {S52: 3, S51: 2, f"{D}sprint-change-proposal.md": 2}),
    # 5 why
    ("decision",
     "Why are we dropping the elderly-specific features from the voice agent?",
     {f"{D}sprint-change-proposal.md": 3, S52: 2}),
    # 6 blocker
    ("ready",
     "Can the elderly requirements removal start yet, or is it waiting on something?",
     {S51: 3, S52: 2, f"{D}sprint-change-proposal.md": 1}),
    # 7 what next, project-wide
    ("work",
     "What's the highest-priority work remaining before we can go to production?",
     {f"{D}remaining-tasks-prioritization.md": 3, f"{D}staff-training-curriculum.md": 1,
      f"{D}escalation-slas-monitoring-framework.md": 1}),
    # 8 why X over Y
    ("decision",
     "Why does the backend run on Lambda functions rather than always-on servers?",
     {f"{D}architecture.md": 3, f"{D}architecture/high-level-architecture.md": 3,
      f"{D}architecture/infrastructure-and-deployment.md": 1}),
    # 9 is X done (status Done, review boxes open)
    ("status",
     "The OpenEMR connectivity story says Done. Is anything in it still open?",
     {story("1.3"): 3, EPIC1: 1}),
    # 10 implement a task named by what it does
    ("implement",
     "implement the cancellation policy checks (minimum notice, limits on how often) for appointment cancellations",
     {"3.4/5": 3, "3.4/AC4": 2, story("3.4"): 2, "3.4/11": 1}),
    # 11 lookup
    ("lookup",
     "Where is it written down how the AI decides to hand a caller over to a human?",
     {"2.5/1": 3, "2.5/AC1": 2, story("2.5"): 2, f"{D}escalation-slas-monitoring-framework.md": 1}),
    # 12 work left in a named story
    ("work",
     "What does the build-fix story still need before the build counts as fixed?",
     {S51: 3, f"{D}sprint-change-proposal.md": 1}),
    # 13 why X over Y
    ("decision",
     "Why PostgreSQL for the appointment and patient data?",
     {f"{D}architecture/tech-stack.md": 3, f"{D}architecture.md": 3}),
]

# ---------------------------------------------------------------- OpenSpec: lizTheDeveloper/docusign_clone
# mdgraph has no OpenSpec items at the commit this set was written against, so every key here is
# a file: a change's tasks.md stands for its open tasks, its proposal.md for the change.
OC = "openspec/changes/"


def oc(change, f):
    return f"{OC}add-{change}/{f}"


def ospec(change):
    return oc(change, f"specs/{change}/spec.md")


OPENSPEC = [
    # 1 work left in a named change
    ("work",
     "What's still left to do for envelope management?",
     {oc("envelope-management", "tasks.md"): 3, oc("envelope-management", "proposal.md"): 2,
      ospec("envelope-management"): 1}),
    # 2 implement a task named by what it does
    ("implement",
     "implement the upload checks for documents: the 50MB limit and only PDF or Word files",
     {oc("document-management", "tasks.md"): 3, ospec("document-management"): 2,
      oc("document-management", "proposal.md"): 1, "DOCUMENT_MANAGEMENT.md": 1}),
    # 3 is X done (every box open, a summary says it was built)
    ("status",
     "Is document management done? None of its tasks are ticked.",
     {"DOCUMENT_MANAGEMENT.md": 3, oc("document-management", "tasks.md"): 3,
      oc("document-management", "proposal.md"): 1}),
    # 4 what can I pick up next in a named change
    ("work",
     "What can I pick up next on the signing workflow?",
     {oc("signing-workflow", "tasks.md"): 3, oc("signing-workflow", "proposal.md"): 2,
      ospec("signing-workflow"): 1}),
    # 5 why
    ("decision",
     "Why do we need a tamper-proof audit trail at all?",
     {oc("audit-trail-compliance", "proposal.md"): 3, ospec("audit-trail-compliance"): 2,
      oc("audit-trail-compliance", "tasks.md"): 1}),
    # 6 is X done (every box ticked)
    ("status",
     "Is authentication finished?",
     {oc("authentication", "tasks.md"): 3, "AUTHENTICATION_STATUS.md": 3,
      oc("authentication", "proposal.md"): 1}),
    # 7 why (a roadmap's reasoning)
    ("decision",
     "Why is drag-and-drop placement of signature fields part of the MVP?",
     {"ROADMAP.md": 3, oc("signature-field-editor", "proposal.md"): 2}),
    # 8 implement a task named by what it does
    ("implement",
     "implement letting a signer decline to sign, with a reason",
     {oc("signing-workflow", "tasks.md"): 3, ospec("signing-workflow"): 2}),
    # 9 blocker stated in a proposal's Impact section
    ("ready",
     "What has to be in place before envelopes can be built?",
     {oc("document-management", "proposal.md"): 3, oc("notification-system", "proposal.md"): 3,
      oc("envelope-management", "proposal.md"): 2, oc("document-management", "tasks.md"): 2,
      oc("notification-system", "tasks.md"): 2}),
    # 10 lookup
    ("lookup",
     "Where is the limit on how big an uploaded document can be?",
     {ospec("document-management"): 3, oc("document-management", "tasks.md"): 2,
      "openspec/project.md": 2, "openspec/specs/rest-api.md": 1, "openspec/specs/data-models.md": 1}),
    # 11 work left in part of a named change
    ("work",
     "What's left to build for the SMS side of notifications?",
     {oc("notification-system", "tasks.md"): 3, ospec("notification-system"): 2}),
    # 12 why X before Y
    ("decision",
     "Why does sequential signing come in the first phase and parallel signing only later?",
     {"ROADMAP.md": 3}),
]

# ---------------------------------------------------------------- pooling (after the labels were committed)
# Judged from the documents' text: every unjudged document in the top 10 of `mdgraph search`
# (graph and --no-graph) and the first 10 items of `mdgraph pack --budget 4000`, per question.
# Grades follow the rules above; a pooled document never changed an existing grade.
SA1, SA2, SA4, SA5 = (f"specs/{a}/" for a in (A1, A2, A4, A5))
POOLED = {
    "a001": {f"{A1}/phase-7": 2, SA1 + "spec.md": 1, SA1 + "tasks.md": 1, f"{A1}/SC-006": 1},
    "a002": {f"{A1}/phase-9": 1, SA1 + "tasks.md": 1, SA1 + "spec.md": 1, SA1 + "MVP_TESTING_GUIDE.md": 1},
    "a003": {"003-shopping-lists-crud/README": 1},  # the path alone names two nodes (show)
    "a004": {f"{A1}/FR-023": 2, f"{A1}/phase-5": 2, SA1 + "IMPLEMENTATION_SUMMARY.md": 2,
             SA1 + "tasks.md": 1, SA1 + "spec.md": 1},
    "a005": {SA4 + "plan.md": 1, f"{A4}/T001": 1},
    "a006": {f"{A4}/phase-7": 2, f"{A4}/FR-032": 1, f"{A4}/T083": 1, f"{A4}/T085": 1},
    "a007": {SA4 + "tasks.md": 1, f"{A4}/phase-3": 1},
    "a008": {f"{A2}/phase-4": 2, f"{A2}/FR-009": 1, f"{A2}/SC-005": 1, SA2 + "IMPLEMENTATION_SUMMARY.md": 1,
             SA2 + "tasks.md": 1, SA2 + "spec.md": 1},
    "a009": {SA5 + "data-model.md": 2, f"{A5}/FR-022": 1, SA5 + "spec.md": 1},
    "a010": {f"{A5}/phase-4": 2, f"{A5}/FR-003": 1, SA5 + "research.md": 1, SA5 + "tasks.md": 1, SA5 + "spec.md": 1},
    "a011": {"README@old_documents/features/search/README.md": 1, f"{A6}/FR-001": 1},
    "a012": {f"{A2}/phase-5": 2, SA2 + "IMPLEMENTATION_SUMMARY.md": 2, f"{A2}/FR-019": 1,
             SA2 + "tasks.md": 1, SA2 + "spec.md": 1},
    "a013": {SA5 + "data-model.md": 2, f"{A5}/SC-010": 1},
    "k001": {f"{K}{SC}/design.md": 1, f"{K}{SC}/tasks.md": 1, "KIRO_SPECS_VALIDATION_REPORT.md": 1,
             "PRODUCTION_READINESS_ANALYSIS.md": 1, ".kiro/PROJECT_STATUS.md": 1},
    "k002": {kreq(IG): 1, f"{K}{IG}/tasks.md": 1, f"{IG}/6": 1},
    "k003": {kreq(CO): 1, f"{CO}/R3.1": 1, f"{CO}/R3.2": 1},
    "k004": {f"{K}{AD}/design.md": 1, f"{AD}/R5": 1, f"{AD}/R6": 1, "KIRO_SPECS_VALIDATION_REPORT.md": 1,
             "PRODUCTION_READINESS_ANALYSIS.md": 1, "docs/REMAINING_WORK_SUMMARY.md": 1},
    "k005": {"product-catalog/4.2": 2, f"{PR}/R6.4": 1, kreq(PR): 1, f"{K}{PR}/tasks.md": 1},
    "k006": {"KIRO_SPECS_VALIDATION_REPORT.md": 2, ".kiro/PROJECT_STATUS.md": 1,
             "PRODUCTION_READINESS_ANALYSIS.md": 1, ".kiro/PROGRESS.md": 1},
    "k007": {f"{K}{CR}/IMPLEMENTATION_SUMMARY.md": 2, f"{CR}/R1.1": 2, f"{K}{CR}/MIGRATION_GUIDE.md": 1,
             f"{K}{CR}/tasks.md": 1},
    "k008": {f"{IG}/R2": 1, f"{IG}/R2.1": 1, f"{K}{IG}/design.md": 1, kreq(IG): 1},
    "k009": {f"{K}{WL}/design.md": 1, "KIRO_SPECS_VALIDATION_REPORT.md": 1},
    "k010": {f"{AD}/8.1": 1, f"{AD}/R5": 1, f"{K}{AD}/design.md": 1},
    "k011": {f"{CO}/R3.4": 1, f"{K}{CO}/tasks.md": 1, kreq(CO): 1, f"{K}{CO}/PAYMENT_SYSTEM.md": 1,
             "CHECKOUT_TASK_2_SUMMARY.md": 1},
    "k012": {f"{CO}/R1.5": 2, kreq(CO): 1},
    "k013": {f"{K}{PC}/design.md": 1, "KIRO_SPECS_VALIDATION_REPORT.md": 1},
    "v001": {f"{D}prd.md": 1},
    "v002": {f"{D}architecture.md": 1},
    "v004": {f"{D}prd.md": 1, "2.2/6": 1, "2.3/6.1": 1},
    "v007": {f"{D}phase1-implementation-plans.md": 2, f"{D}reports/implementation-readiness-assessment.md": 1,
             f"{D}project-completion-summary.md": 1, f"{D}development-deployment-checklist.md": 1,
             f"{D}training-implementation-schedule.md": 1},
    "v010": {"3.4/5.1": 2, "3.4/5.3": 2, "3.3/4.1": 2, "3.3/AC4": 1, story("3.3"): 1,
             f"{D}prd/epic-3-appointment-scheduling-core.md": 1, f"{D}prd.md": 1},
    "v011": {f"{D}conversation-context-management-spec.md": 2},
    "v012": {S52: 1},
    "v013": {f"{D}architecture/components.md": 1, story("1.2"): 1},
    "o001": {"SPECS_SUMMARY.md": 1},
    "o002": {"backend/app/domain/README.md": 2, "frontend/DOCUMENT_UI.md": 1,
             "frontend/IMPLEMENTATION_SUMMARY.md": 1, "backend/TEST_SUMMARY.md": 1},
    "o003": {"backend/TEST_SUMMARY.md": 2, "frontend/E2E_TESTS.md": 1},
    "o004": {oc("envelope-management", "tasks.md"): 1, "SPECS_SUMMARY.md": 1},
    "o005": {"openspec/project.md": 1, "SPECS_SUMMARY.md": 1},
    "o006": {ospec("authentication"): 1, "backend/IMPLEMENTATION_SUMMARY.md": 2, "backend/TEST_RESULTS.md": 2},
    "o007": {ospec("signature-field-editor"): 1},
    "o008": {"openspec/specs/rest-api.md": 2, oc("signing-workflow", "proposal.md"): 1},
    "o009": {"DOCUMENT_MANAGEMENT.md": 2, "frontend/IMPLEMENTATION_SUMMARY.md": 1, ospec("envelope-management"): 1},
    "o010": {"frontend/IMPLEMENTATION_SUMMARY.md": 1, "DOCUMENT_MANAGEMENT.md": 1, "frontend/DOCUMENT_UI.md": 1,
             "backend/DOCUMENT_TESTS.md": 1, "QUICK_START.md": 1, "backend/TEST_SUMMARY.md": 1},
    "o011": {"openspec/specs/service-interfaces.md": 1, oc("notification-system", "proposal.md"): 1},
    "o012": {ospec("envelope-management"): 1, oc("envelope-management", "proposal.md"): 1},
}


# `build_spec_queries2.py --unpooled DIR` writes the labels as first committed (no pooled
# judgments) into DIR instead, to measure what pooling changed.
UNPOOLED = sys.argv[1:2] == ["--unpooled"]
OUT = sys.argv[2] if UNPOOLED else HERE


def rows(corpus, prefix, qs):
    out = []
    for i, (kind, q, rel) in enumerate(qs, 1):
        qid = f"{prefix}{i:03d}"
        extra = {} if UNPOOLED else POOLED.get(qid, {})
        assert not set(extra) & set(rel), qid  # pooling judges only unjudged documents
        out.append({"id": qid, "query": q, "relevant": {**rel, **extra}, "kind": kind,
                    "split": "heldout" if i % 3 == 0 else "tune", "corpus": corpus})
    return out


def write(path, rs):
    with open(path, "w", encoding="utf-8") as f:
        for r in rs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


SETS = [("ae-infinity", "a", SPECKIT, "speckit"), ("moldovadirect", "k", KIRO, "kiro"),
        ("voice-agent", "v", BMAD, "bmad"), ("docusign", "o", OPENSPEC, "openspec")]
everything = []
for corpus, prefix, qs, short in SETS:
    rs = rows(corpus, prefix, qs)
    everything += rs
    write(os.path.join(OUT, f"spec2-queries-{short}.jsonl"), rs)
    for split in ("tune", "heldout"):
        write(os.path.join(OUT, f"spec2-queries-{short}-{split}.jsonl"),
              [r for r in rs if r["split"] == split])
write(os.path.join(OUT, "spec2-queries.jsonl"), everything)
print(", ".join(f"{len(qs)} {short}" for _, _, qs, short in SETS),
      "questions;", sum(len(r["relevant"]) for r in everything), "judgments")
