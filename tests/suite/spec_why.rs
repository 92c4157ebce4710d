//! Why-questions keep the decision whole: a research note's decision block (Decision,
//! Rationale, Alternatives considered) is packed as a unit, never cut after its first
//! bullet, even when it is not the pack's first item.

use crate::common::*;
use std::fmt::Write as _;

/// A Spec Kit feature whose research note decides, among other things, to move sign-in
/// to a BFF, with the reasons and the rejected alternative further down the block; and a
/// plan and a spec that also talk about tokens, so the note is not alone in the pack (at
/// 1,500 tokens the note was cut after its first bullet before decision blocks were
/// units).
fn write_feature(root: &std::path::Path) {
    let dir = root.join("specs/004-session-tokens");
    std::fs::create_dir_all(&dir).unwrap();
    let mut research = String::from("# Research: Session Tokens\n\n## Sign-in flow\n\n");
    research.push_str("**Decision**: Move sign-in to a backend-for-frontend (BFF) that holds the tokens.\n\n");
    research.push_str("**Rationale**:\n");
    for why in [
        "The browser never sees an access token, so an injected script cannot steal one.",
        "The BFF refreshes tokens on the server, where the refresh token is kept in an encrypted store.",
        "One origin serves the app and its API, so the session cookie is same-site and strict.",
        "The BFF shapes the old API's responses for the screens, which removes three client round trips.",
        "Rotating the signing keys touches the BFF only, not every client release.",
        "Audit logs see every call with the user's identity, which the security review asked for.",
    ] {
        let _ = writeln!(
            research,
            "- {why} The team measured this on the staging stack over two sprints."
        );
    }
    research.push_str("\n**Alternatives considered**:\n");
    research.push_str(
        "- Let the old API accept the identity provider's tokens directly: Rejected because the old API \
         cannot validate audience claims and would need a rewrite of its session layer.\n",
    );
    research.push_str("- Keep tokens in local storage: Rejected because any injected script can read them.\n\n");
    research.push_str(
        "## Caching\n\n**Decision**: Cache profile reads for a minute.\n\n**Rationale**: profiles rarely change.\n",
    );
    std::fs::write(dir.join("research.md"), research).unwrap();
    // The plan matches the question's words best: the research note comes after it, with
    // an item's share of the budget, smaller than its decision block.
    let mut plan = String::from(
        "# Implementation Plan: Move to the BFF\n\n## Summary\n\nWe move to the BFF; the old API stops \
         accepting tokens from the browser.\n\n",
    );
    for i in 1..=12 {
        let _ = writeln!(
            plan,
            "Step {i}: move the old API's token checks to the BFF so the old API no longer has to accept tokens."
        );
    }
    std::fs::write(dir.join("plan.md"), plan).unwrap();
    let spec = "# Feature Specification: Session Tokens\n\n## Requirements\n\n\
                - **FR-001**: System MUST keep access tokens out of the browser.\n\
                - **FR-002**: The old API MUST accept only tokens it can validate.\n";
    std::fs::write(dir.join("spec.md"), spec).unwrap();
    std::fs::write(
        dir.join("tasks.md"),
        "# Tasks: Session Tokens\n\n## Phase 1: Setup\n\n- [ ] T001 Stand up the BFF per FR-001\n- [ ] T002 Point the old API at the BFF's tokens\n",
    )
    .unwrap();
}

#[test]
fn a_why_question_packs_the_decision_with_its_rejected_alternatives() {
    let tmp = tempfile::tempdir().unwrap();
    write_feature(&tmp.path().join("backlog"));
    let q = "Why did we move to the BFF instead of letting the old API accept its tokens?";
    for budget in ["1500", "4000"] {
        let out = run_in(
            tmp.path(),
            &[
                "--root",
                "backlog",
                "--index-dir",
                "_index",
                "pack",
                q,
                "--budget",
                budget,
            ],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        let md = &out.stdout;
        assert!(
            md.contains("**Decision**: Move sign-in to a backend-for-frontend"),
            "{md}"
        );
        // The block is whole: its last rationale bullet and the rejected alternative
        // are there, not cut after the first bullet.
        assert!(md.contains("Audit logs see every call"), "at {budget}: {md}");
        assert!(md.contains("Rejected because the old API"), "at {budget}: {md}");
    }
}
