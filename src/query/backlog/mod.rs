//! The structured questions people ask a backlog: which items match these filters
//! ([`Backlog::list`]), what can be started now ([`Backlog::ready`]), and how far an
//! epic is ([`Backlog::tree`]).
//!
//! States fall into five groups ([`Group`]) by name, with the config's `[states]` lists
//! added to the built-in names. Blocking follows the graph: an item is blocked by the
//! targets of its `blocked_by` and `depends_on` edges and by the sources of `blocks`
//! edges pointing at it (the same relation read from both ends); `relates` never blocks.
//! A parent that is blocked, or waits on an unfinished blocker, blocks its children.
//!
//! `graph.rs` reads the graph as a backlog; `list.rs`, `ready.rs` (with the blocking
//! rules) and `tree.rs` (with the roll-ups) answer the three questions; `table.rs`
//! makes the SQLite mirror's `backlog` table from the same code, so that its fast paths
//! answer alike (`mirror_edits.rs` tests an edit's update of that table against a
//! rebuild); `states.rs` groups states and `order.rs` ranks priorities and ids.

#[cfg(test)]
mod fixture;
mod graph;
mod hygiene;
mod list;
#[cfg(test)]
mod mirror_edits;
mod order;
mod ready;
mod scope;
mod states;
mod table;
mod tree;

pub use crate::model::backlog::{Group, Item, Ready};
pub use graph::Backlog;
pub use hygiene::hygiene;
pub use list::{Filter, ListReport, list_from_rows, list_query, unknown_values};
pub use order::{natural, priority_rank};
pub use ready::{Hold, ReadyReport, ready_from_rows};
pub use scope::Scope;
pub use states::group_of;
pub use table::{materialize, materialize_docs};
pub use tree::{Rollup, TreeNode, TreeReport};

/// The SQLite mirror as `config` asks for it: with the FTS5 table or not, and the
/// backlog table under its state groups, made by the backlog questions' own code.
pub fn mirror_spec(config: &crate::config::Config) -> crate::store::mirror::Spec<'_> {
    crate::store::mirror::Spec {
        fts: config.sqlite_fts,
        states: &config.states,
        backlog: materialize,
        backlog_docs: materialize_docs,
    }
}
