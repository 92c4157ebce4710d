//! Question intent: what a question asks for (an item's blockers, what it holds up, its
//! parts, the decision behind it, what replaced it) and whether it asks what is still
//! open, read from the shape of its clauses ([`frames`]) rather than from a list of
//! keywords: "which pieces make up X", "is anything under X still open" and "what is
//! left in epic X" all ask for X's parts. Parsing is one pass over the question's words.

mod blocking;
mod clause;
mod frames;
mod parts;
mod words;
mod work;

pub use work::{ScopedWork, WorkAsked};

use crate::model::EdgeType;
use crate::model::graph::GraphEdge;
use std::collections::BTreeMap;

/// A relation a question asks about, from the named item's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Ask {
    /// What the item waits on: its blockers and dependencies.
    Blockers,
    /// What waits on the item: the items it blocks or that depend on it.
    Dependents,
    /// Its parts: an epic's or a parent task's children.
    Parts,
    /// The decision behind it.
    Decision,
    /// What replaced it, or what it replaced or duplicates.
    Replacement,
}

impl Ask {
    /// The name configuration uses (`[retrieval.weights.intent]`).
    pub fn as_str(self) -> &'static str {
        match self {
            Ask::Blockers => "blockers",
            Ask::Dependents => "dependents",
            Ask::Parts => "parts",
            Ask::Decision => "decision",
            Ask::Replacement => "replacement",
        }
    }
}

/// What a question asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Intent {
    /// The relations asked about, in the order the question asks them.
    pub asks: Vec<Ask>,
    /// The question asks what is left, still open or not done.
    pub open: bool,
}

impl Intent {
    /// Read the intent of `question`. A text that is no question (it neither contains a
    /// question mark nor opens with a question word, an inverted auxiliary or a request)
    /// asks for nothing: an abstract that says "which must be approved before" is no
    /// question about blockers.
    pub fn parse(question: &str) -> Intent {
        let clauses = words::clauses(question);
        let mut out = Intent::default();
        if !asking(question, &clauses) {
            return out;
        }
        let before = clauses
            .iter()
            .any(|c| clause::opening(c).is_none() && matches!(c.first().map(String::as_str), Some("before" | "until")));
        for c in &clauses {
            let read = frames::read(c, before);
            for a in read.asks {
                if !out.asks.contains(&a) {
                    out.asks.push(a);
                }
            }
            out.open |= read.open;
        }
        out
    }

    /// Whether `question` asks for the work that is left or can start and names nothing
    /// to search for ("what remains to be done?", "what should I work on next?").
    pub fn asks_open_work(question: &str) -> Option<WorkAsked> {
        work::asks_open_work(question)
    }

    /// What `question` asks of the work of a scope it names ("what is still open in the
    /// billing spec?", "is the login feature finished?"), with the words naming it.
    pub fn asks_scoped_work(question: &str) -> Option<ScopedWork> {
        // A question read as one about other relations ("what is blocking X": X's
        // blockers) is answered along them; one about X's parts says so, for the caller
        // to answer along them when X's parts are documents of their own.
        if !Intent::is_question(question) {
            return None;
        }
        let intent = Intent::parse(question);
        if intent.asks.iter().any(|a| *a != Ask::Parts) {
            return None;
        }
        work::asks_scoped_work(question).map(|s| ScopedWork {
            parts: intent.asks(Ask::Parts),
            ..s
        })
    }

    /// Whether `text` is a question: it contains a question mark or opens with a
    /// question word, an inverted auxiliary or a request ("list", "show me").
    pub fn is_question(text: &str) -> bool {
        asking(text, &words::clauses(text))
    }

    /// Whether the question asks about `a`.
    pub fn asks(&self, a: Ask) -> bool {
        self.asks.contains(&a)
    }

    /// The edge types the asked relations travel, in the order asked, without repeats.
    pub fn edge_types(&self) -> Vec<EdgeType> {
        use EdgeType::*;
        let mut out: Vec<EdgeType> = Vec::new();
        for a in &self.asks {
            let types: &[EdgeType] = match a {
                Ask::Blockers | Ask::Dependents => &[BlockedBy, Blocks, DependsOn],
                Ask::Parts => &[Parent],
                Ask::Decision => &[DecisionRef],
                Ask::Replacement => &[Supersedes, SupersededBy],
            };
            for t in types {
                if !out.contains(t) {
                    out.push(*t);
                }
            }
        }
        out
    }

    /// True when the other end of `e`, read from a ranked item, answers the question: a
    /// blocker of the item (not what it blocks) for blockers and the other way round for
    /// dependents, the item's decision (not every item a decision covers), an epic's
    /// children (not its parent), either side of a replacement.
    pub fn answers(&self, e: &GraphEdge) -> bool {
        let (blockers, dependents) = (self.asks(Ask::Blockers), self.asks(Ask::Dependents));
        match e.r#type {
            EdgeType::BlockedBy | EdgeType::DependsOn => (e.forward && blockers) || (!e.forward && dependents),
            EdgeType::Blocks => (!e.forward && blockers) || (e.forward && dependents),
            EdgeType::DecisionRef => e.forward,
            EdgeType::Parent => !e.forward,
            _ => true,
        }
    }

    /// The factor on a document of type `doctype` (normalized, as the doctype weights
    /// key it) from `[retrieval.weights.intent]`: the largest over the asks, a type an
    /// ask does not list counting 1.0 there; 1.0 for a question that asks nothing.
    pub fn doctype_factor(&self, doctype: &str, weights: &BTreeMap<String, BTreeMap<String, f64>>) -> f64 {
        self.asks
            .iter()
            .map(|a| {
                weights
                    .get(a.as_str())
                    .and_then(|t| t.get(doctype))
                    .copied()
                    .unwrap_or(1.0)
            })
            .reduce(f64::max)
            .unwrap_or(1.0)
    }

    /// Whether `word` (lowercase) belongs to the frame of an asked relation rather than
    /// to what the question is about: in "what has to happen first before X" or "which
    /// pieces make up X" only X says what to search for, and in "what replaced X" the
    /// answer is X's successor by its typed edge, not every text that says "replaced".
    /// Words of a decision stay (a record says "Decision" in its text), and so do "open"
    /// and "still" unless the question asks for parts (a status written in the text can
    /// be what matches).
    pub fn is_frame_word(&self, word: &str) -> bool {
        let blocking = self.asks(Ask::Blockers) || self.asks(Ask::Dependents);
        (blocking && blocking::BLOCKING_FRAME.contains(&word))
            || (self.asks(Ask::Replacement) && frames::replacement_frame_word(word))
            || (self.asks(Ask::Parts) && parts::PARTS_FRAME.contains(&word))
            || (self.open && !self.asks(Ask::Replacement) && parts::OPEN_FRAME.contains(&word))
    }

    /// Whether the items that answer should come open first: the question asks what is
    /// left, or what stands in an item's way now (a finished blocker no longer does;
    /// "what had to be finished before X" asks for finished ones too).
    pub fn open_first(&self) -> bool {
        self.open
    }
}

/// Whether `text`, cut into `clauses`, is a question.
fn asking(text: &str, clauses: &[Vec<String>]) -> bool {
    text.contains('?') || clauses.first().is_some_and(|c| clause::opening(c).is_some())
}

#[cfg(test)]
mod tests;
