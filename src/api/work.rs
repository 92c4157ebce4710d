//! The work questions answered from the backlog rather than by search: what is left or
//! can start, in the whole backlog or in the scope a question names ("what is still
//! open in the billing spec?", "is the login feature finished?").

use super::Index;
use crate::error::Error;
use crate::model::backlog::{Group, Item};
use crate::query::backlog::{Filter, Scope};
use crate::query::intent::{Intent, WorkAsked};
use crate::query::search::{self, Results};
use std::collections::HashSet;

impl Index {
    /// For a question about the work left that names nothing to search for ("what
    /// remains to be done?"), or only the scope of that work ("what is still open in
    /// the billing spec?"), the items under way, those `ready` offers and (for what is
    /// left) the rest unfinished, within that scope, and the scope's documents last;
    /// `None` for any other question, when the words name no scope, or when there is
    /// nothing to answer with (the search answers then).
    pub(super) fn work_left(&self, query: &str, limit: usize) -> Result<Option<Results>, Error> {
        let (asked, words, parts) = match Intent::asks_open_work(query) {
            Some(asked) => (asked, None, false),
            None => match Intent::asks_scoped_work(query) {
                Some(s) => (s.asked, Some(s.words), s.parts),
                None => return Ok(None),
            },
        };
        let backlog = self.backlog_graph(false)?;
        let scope: Vec<String> = match words.map(|w| backlog.scope_named(query, &w)) {
            None | Some(Scope::Whole) => Vec::new(),
            Some(Scope::Named(ids)) => ids,
            Some(Scope::Unnamed) => return Ok(None),
        };
        // "What is left in epic X" where X's parts are documents of their own (its story
        // files): the parts answer ranks them, each with its text.
        if parts && scope.iter().any(|s| backlog.has_work_documents_below(s)) {
            return Ok(None);
        }
        let within: Option<HashSet<String>> = (!scope.is_empty()).then(|| backlog.under(&scope));
        let inside = |i: &Item| within.as_ref().is_none_or(|w| w.contains(&i.id));
        let filter = |states: &[&str]| Filter {
            states: states.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let in_progress: Vec<Item> = self
            .list(&filter(&["in_progress"]))?
            .items
            .into_iter()
            .filter(|i| inside(i))
            .collect();
        let ready = self.ready()?;
        // Each item once: `ready` offers work under way too.
        let mut seen: HashSet<&str> = in_progress.iter().map(|i| i.id.as_str()).collect();
        let can_start: Vec<&Item> = ready
            .items
            .iter()
            .map(|r| &r.item)
            .filter(|i| inside(i) && seen.insert(i.id.as_str()))
            .collect();
        let mut listed = vec![
            ("in progress", in_progress.iter().collect::<Vec<_>>()),
            ("ready", can_start),
        ];
        // Unfinished work beyond those: items with a type and a state (a document
        // without a state lists as open, and a decision record has no type), and not the
        // open boxes of a finished story (`ready` leaves them out too).
        let rest: Vec<Item> = match asked {
            WorkAsked::Next => Vec::new(),
            WorkAsked::Left => self.list(&filter(&["open", "blocked"]))?.items,
        };
        // A finished story the question names shows its open boxes too: they are what
        // "what is still unchecked in X" asks for (in a wider scope they are no work).
        let rest: Vec<&Item> = rest
            .iter()
            .filter(|i| inside(i) && i.r#type.is_some() && i.state.is_some())
            .filter(|i| seen.insert(i.id.as_str()))
            .collect();
        let finished = |i: &Item| backlog.in_finished_document(&i.id);
        let in_named = |i: &Item| {
            backlog
                .file_document_of(&i.id)
                .is_some_and(|d| scope.iter().any(|s| s == d))
        };
        let of = |pick: &dyn Fn(&Item) -> bool| rest.iter().copied().filter(|i| pick(i)).collect::<Vec<_>>();
        listed.push(("waiting", of(&|i| !finished(i) && i.group != Group::Blocked)));
        listed.push(("blocked", of(&|i| !finished(i) && i.group == Group::Blocked)));
        listed.push(("unticked in a finished document", of(&|i| finished(i) && in_named(i))));
        // Nothing left in a scope the question names ("is the lists feature done?", every
        // box ticked): the answer is the scope's own documents, which the search ranks
        // with their text (its spec, its ticked plan), not the scope's bare record.
        if !scope.is_empty() && listed.iter().all(|(_, items)| items.is_empty()) {
            return Ok(None);
        }
        // The scope itself: what the work belongs to, and the answer to "is it
        // finished?". A scope with a state of its own whose work is documents of their
        // own (a feature with a status and its stories) says so first; one whose work is
        // written inside it (a story's boxes, which its text repeats) or that has no state
        // (a spec folder's feature: its state is its tasks') comes after its work. Then
        // what it is part of (its epic).
        let scope_items: Vec<Item> = scope.iter().filter_map(|id| backlog.item_of(id)).collect();
        let work_inside = listed
            .iter()
            .flat_map(|(_, items)| items.iter())
            .any(|i| scope_items.iter().any(|s| s.path == i.path));
        if !scope_items.is_empty() && !work_inside && scope_items.iter().all(|i| i.state.is_some()) {
            listed.insert(0, (search::SCOPE, scope_items.iter().collect()));
        } else {
            listed.push((search::SCOPE, scope_items.iter().collect()));
        }
        let parents: Vec<Item> = scope_items
            .iter()
            .filter_map(|i| i.parent.as_deref())
            .filter(|p| !scope.iter().any(|s| s == p) && seen.insert(p))
            .filter_map(|p| backlog.item_of(p))
            .collect();
        listed.push((search::SCOPE_PARENT, parents.iter().collect()));
        let engine = self.with_engine(|e| Ok(e.kind()))?;
        let work = search::work_left(query, engine, &listed, &scope, limit);
        Ok((!work.results.is_empty()).then_some(work))
    }
}
