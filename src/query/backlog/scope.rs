//! The scope a work question names ("the live cost and validation feedback spec", "the
//! sign-up and sign-in feature", "the MVP"): the documents with work below them whose
//! id or title the question's words name best, and the work items under them.

use super::graph::Backlog;
use crate::model::Kind;
use crate::model::backlog::PHASE;
use crate::text::tokenize;
use std::collections::{BTreeSet, HashSet};

/// Most scopes one question may name at once (every P1 phase of a few features is "the
/// MVP"); a word that names more names nothing in particular.
const MAX_SCOPES: usize = 5;

/// Which documents a work question's scope words name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// These documents (sorted), each with work items below it.
    Named(Vec<String>),
    /// The whole backlog ("what is left for the MVP" where no document is marked MVP).
    Whole,
    /// Nothing with work below it is named: the question is a search.
    Unnamed,
}

/// The words of a document's name: its id cut at its separators and its title, stemmed.
/// The MVP of a spec folder is its P1 story (Spec Kit's "MVP First (User Story 1 Only)").
fn name_terms(id: &str, title: &str) -> HashSet<String> {
    let id_words = id.replace(['-', '_', '/', '.', '@'], " ");
    let mut out: HashSet<String> = tokenize::terms(&id_words).into_iter().collect();
    out.extend(tokenize::terms(title));
    if out.contains("p1") {
        out.insert("mvp".to_string());
    }
    out
}

/// The types of documents that scope work: features, epics, stories, specs and changes,
/// a Spec Kit phase, and a document with no type (a spec folder's tasks file). A task
/// with subtasks is work, not a scope: "what MCP work is still open" asks about a topic.
fn is_scope_type(ty: Option<&str>) -> bool {
    let Some(ty) = ty else { return true };
    let folded: String = ty
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    matches!(
        folded.as_str(),
        "feature"
            | "epic"
            | "story"
            | "userstory"
            | "change"
            | "spec"
            | "specification"
            | "phase"
            | "capability"
            | "milestone"
            | "doc"
    )
}

impl<'a> Backlog<'a> {
    /// Whether document `id` has work below it: a work item among its descendants
    /// that is not a Spec Kit phase.
    fn has_work_below(&self, id: &str) -> bool {
        let mut frontier = vec![id];
        let mut seen = BTreeSet::from([id]);
        while let Some(cur) = frontier.pop() {
            for &c in self.children.get(cur).map(Vec::as_slice).unwrap_or_default() {
                if !seen.insert(c) {
                    continue;
                }
                if let Some(n) = self.node(c)
                    && n.kind == Kind::WorkItem
                    && n.r#type.as_deref() != Some(PHASE)
                {
                    return true;
                }
                frontier.push(c);
            }
        }
        false
    }

    /// The scope `words` name (lowercase words as a question writes them, see
    /// [`crate::query::intent::ScopedWork`]): among the documents with work below them,
    /// those whose name (id and title) holds the most of the words, all but a third
    /// of them at most; of those tied, the ones with no tied ancestor, at most [`MAX_SCOPES`]. Two
    /// words whose join is a word of a name count as that one word ("sign up" for
    /// `signup`). "MVP" named by nothing is the whole backlog.
    ///
    /// A word of `question` that is the id of such a document (`5.1B`, `003-chat`, any
    /// case) names it, before any word does.
    pub fn scope_named(&self, question: &str, words: &[String]) -> Scope {
        let with_work = |id: &str| {
            self.docs
                .get(id)
                .is_some_and(|d| d.node.kind != Kind::Chunk && is_scope_type(d.node.r#type.as_deref()))
                && self.has_work_below(id)
        };
        let mut by_id: Vec<String> = question
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|w| w.bytes().any(|b| b.is_ascii_digit()))
            .filter_map(|w| {
                let (id, _) = self.docs.iter().find(|(id, _)| id.eq_ignore_ascii_case(w))?;
                with_work(id).then(|| id.to_string())
            })
            .collect();
        by_id.sort();
        by_id.dedup();
        if !by_id.is_empty() {
            return Scope::Named(by_id);
        }
        let candidates: Vec<(&'a str, HashSet<String>)> = self
            .children
            .keys()
            .filter_map(|&id| self.docs.get(id))
            .filter(|d| with_work(&d.node.id))
            .map(|d| (d.node.id.as_str(), name_terms(&d.node.id, d.node.label())))
            .collect();
        let known: HashSet<&str> = candidates
            .iter()
            .flat_map(|(_, t)| t.iter().map(String::as_str))
            .collect();
        // The units a name must hold: words, or two words joined when a name has the join.
        let mut units: Vec<String> = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let joined = words
                .get(i + 1)
                .map(|next| tokenize::stem(&format!("{}{next}", words[i])));
            match joined {
                Some(j) if known.contains(j.as_str()) => {
                    units.push(j);
                    i += 2;
                }
                _ => {
                    units.push(tokenize::stem(&words[i]));
                    i += 1;
                }
            }
        }
        units.sort();
        units.dedup();
        let held = |terms: &HashSet<String>| units.iter().filter(|u| terms.contains(u.as_str())).count();
        let best = candidates.iter().map(|(_, t)| held(t)).max().unwrap_or(0);
        if best == 0 || best < units.len() - units.len() / 3 {
            let mvp_only = units.iter().all(|u| u == "mvp");
            return if mvp_only { Scope::Whole } else { Scope::Unnamed };
        }
        let tied: BTreeSet<&str> = candidates
            .iter()
            .filter(|(_, t)| held(t) == best)
            .map(|(id, _)| *id)
            .collect();
        // A document a file holds whole (a feature, a story, an epic) before an item
        // written inside one (a task with subtasks) that holds the same words.
        // (The documents may be read without their `inline` flag: an item is known by its
        // parent in the same file.)
        let inline = |id: &str| self.written_in(id).is_some();
        let whole = tied.iter().any(|id| !inline(id));
        let tops: Vec<String> = tied
            .iter()
            .filter(|id| !(whole && inline(id)))
            .filter(|id| !self.ancestors(id).any(|a| tied.contains(a)))
            .map(|id| id.to_string())
            .collect();
        if tops.len() > MAX_SCOPES {
            return Scope::Unnamed;
        }
        Scope::Named(tops)
    }

    /// The ancestors of `id` along parent edges, nearest first (a cycle is walked once).
    fn ancestors<'s>(&'s self, id: &'s str) -> impl Iterator<Item = &'a str> + 's {
        let mut seen: HashSet<&str> = HashSet::from([id]);
        let mut cur = self.parent.get(id).copied();
        std::iter::from_fn(move || {
            let p = cur.filter(|p| seen.insert(p))?;
            cur = self.parent.get(p).copied();
            Some(p)
        })
    }

    /// The id of the document whose file item `id` is written in (a story for its
    /// boxes), when it is an item inside one.
    pub fn file_document_of(&self, id: &str) -> Option<&'a str> {
        self.written_in(id).map(|d| d.node.id.as_str())
    }

    /// Whether a direct child of `id` is a work item that is a document of its own (an
    /// epic's story files, a feature's stories), not an item written inside a file.
    pub fn has_work_documents_below(&self, id: &str) -> bool {
        self.children
            .get(id)
            .into_iter()
            .flatten()
            .any(|c| self.node(c).is_some_and(|n| n.kind == Kind::WorkItem) && self.written_in(c).is_none())
    }

    /// Document `id` as `list` prints it.
    pub fn item_of(&self, id: &str) -> Option<crate::model::backlog::Item> {
        self.docs.get(id).map(|d| self.item(d))
    }

    /// The documents below `scopes` along parent edges, every depth.
    pub fn under(&self, scopes: &[String]) -> HashSet<String> {
        let mut out: HashSet<String> = HashSet::new();
        let mut frontier: Vec<&str> = scopes.iter().map(String::as_str).collect();
        while let Some(cur) = frontier.pop() {
            for &c in self.children.get(cur).map(Vec::as_slice).unwrap_or_default() {
                if out.insert(c.to_string()) {
                    frontier.push(c);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{edges, item};
    use super::*;
    use crate::config::StateGroups;
    use crate::model::{EdgeType, Node};

    fn titled(id: &str, title: &str, kind: Kind, ty: &str) -> Node {
        Node {
            title: Some(title.to_string()),
            kind,
            r#type: Some(ty.to_string()),
            ..item(id, "Open")
        }
    }

    #[test]
    fn a_scope_is_the_document_with_work_below_it_that_its_words_name() {
        let groups = StateGroups::default();
        let nodes = vec![
            titled(
                "live-cost-validation-feedback",
                "Requirements Document",
                Kind::WorkItem,
                "Feature",
            ),
            titled(
                "live-cost-validation-feedback/1",
                "Show the cost",
                Kind::WorkItem,
                "Task",
            ),
            titled(
                "live-cost-validation-feedback/tasks",
                "Implementation Plan",
                Kind::Doc,
                "Doc",
            ),
            titled(
                "002-auth-signup-signin",
                "Sign-up and sign-in",
                Kind::WorkItem,
                "Feature",
            ),
            titled("002-auth-signup-signin/T001", "Add the form", Kind::WorkItem, "Task"),
            titled(
                "002-auth-signup-signin/phase-3",
                "User Story 1 (Priority: P1)",
                Kind::WorkItem,
                PHASE,
            ),
            titled(
                "002-auth-signup-signin/T002",
                "Check the password",
                Kind::WorkItem,
                "Task",
            ),
            titled("login", "Requirements Document", Kind::WorkItem, "Feature"),
            titled("login/R1", "Sign in", Kind::Doc, "Requirement"),
            titled("login/R1.1", "WHEN a user signs in", Kind::Doc, "Criterion"),
        ];
        let links = edges(&[
            (
                "live-cost-validation-feedback/tasks",
                EdgeType::Parent,
                "live-cost-validation-feedback",
            ),
            (
                "live-cost-validation-feedback/1",
                EdgeType::Parent,
                "live-cost-validation-feedback/tasks",
            ),
            (
                "002-auth-signup-signin/T001",
                EdgeType::Parent,
                "002-auth-signup-signin",
            ),
            (
                "002-auth-signup-signin/phase-3",
                EdgeType::Parent,
                "002-auth-signup-signin",
            ),
            (
                "002-auth-signup-signin/T002",
                EdgeType::Parent,
                "002-auth-signup-signin/phase-3",
            ),
            ("login/R1", EdgeType::Parent, "login"),
            ("login/R1.1", EdgeType::Parent, "login/R1"),
        ]);
        let b = Backlog::new(&nodes, &links, &groups);
        let named = |w: &str| b.scope_named(w, &w.split(' ').map(str::to_string).collect::<Vec<_>>());
        let one = |id: &str| Scope::Named(vec![id.to_string()]);
        // The feature, not its tasks file below it, which holds the same words.
        assert_eq!(
            named("live cost validation feedback"),
            one("live-cost-validation-feedback")
        );
        assert_eq!(named("signup signin"), one("002-auth-signup-signin"));
        assert_eq!(named("sign up sign in"), one("002-auth-signup-signin"));
        // The MVP is the P1 phase; where nothing is marked so, the whole backlog.
        assert_eq!(named("mvp"), one("002-auth-signup-signin/phase-3"));
        // A feature with requirements and no work below it is no scope.
        assert_eq!(named("login"), Scope::Unnamed);
        assert_eq!(named("payments export"), Scope::Unnamed);
        let under = b.under(&["002-auth-signup-signin".to_string()]);
        assert!(
            under.contains("002-auth-signup-signin/T002") && under.len() == 3,
            "{under:?}"
        );
        let bare_links = edges(&[(
            "live-cost-validation-feedback/1",
            EdgeType::Parent,
            "live-cost-validation-feedback",
        )]);
        let bare = Backlog::new(&nodes[..2], &bare_links, &groups);
        assert_eq!(bare.scope_named("mvp", &["mvp".to_string()]), Scope::Whole);
        // An id written whole names its document.
        assert_eq!(
            b.scope_named("is 002-AUTH-signup-signin done?", &["x".to_string()]),
            one("002-auth-signup-signin")
        );
    }
}
