//! The backlog questions (`list`, `ready`, `tree`, what holds an item, an id as typed):
//! answered from the SQLite mirror's backlog table when it can, else from the documents
//! and their parent and blocking edges, read once and kept.

use super::{Index, mirror_spec, no_index};
use crate::error::Error;
use crate::model::{EdgeType, Node};
use crate::query::backlog::{self, Backlog, Filter as ListFilter, Hold, ListReport, ReadyReport, TreeReport};
use crate::query::show;
use crate::store::{mirror, sidecar};

impl Index {
    /// The documents and their parent and blocking edges, for the backlog questions: the
    /// whole graph when it is loaded already, else only those records (read once, kept):
    /// from the SQLite mirror when it is current, the documents' columns only unless
    /// `fields` asks for their frontmatter too; else from the JSONL files.
    pub(super) fn backlog_graph(&self, fields: bool) -> Result<Backlog<'_>, Error> {
        let states = &self.config.states;
        if let Some(g) = self.graph.get() {
            return Ok(Backlog::new(&g.nodes, &g.edges, states));
        }
        let docs: &mirror::Docs = match (self.docs_with_fields.get(), self.docs.get()) {
            (Some(d), _) => d,
            (None, Some(d)) if !fields => d,
            _ => {
                const TYPES: [EdgeType; 4] = mirror::BACKLOG_TYPES;
                let dir = &self.config.index_dir;
                let loaded = self
                    .config
                    .sqlite
                    .then(|| mirror::load_docs(dir, &TYPES, &mirror_spec(&self.config), fields))
                    .flatten()
                    .or_else(|| {
                        sidecar::load_docs(dir, |t| TYPES.iter().any(|x| x.as_str() == t)).map(|(nodes, edges)| {
                            mirror::Docs {
                                nodes,
                                links: edges.iter().map(mirror::Link::from).collect(),
                                priorities: None,
                                elsewhere: Vec::new(),
                            }
                        })
                    })
                    .ok_or_else(|| no_index(&self.config))?;
                let slot = if loaded.priorities.is_none() {
                    &self.docs_with_fields
                } else {
                    &self.docs
                };
                slot.get_or_init(|| loaded)
            }
        };
        Ok(Backlog::of_docs(docs, states))
    }

    /// The documents for resolving an id typed by a person (no frontmatter needed).
    fn backlog_nodes(&self) -> Result<&[Node], Error> {
        self.backlog_graph(false)?;
        Ok(match (self.graph.get(), self.docs_with_fields.get(), self.docs.get()) {
            (Some(g), _, _) => &g.nodes,
            (None, Some(d), _) | (None, None, Some(d)) => &d.nodes,
            (None, None, None) => return Err(no_index(&self.config)),
        })
    }

    /// The mirror for the backlog questions' fast paths, which read only the rows they
    /// answer with: None without one, or when the whole graph is loaded already.
    fn fast_mirror(&self) -> Option<(&std::path::Path, mirror::Spec<'_>)> {
        (self.config.sqlite && self.graph.get().is_none())
            .then(|| (self.config.index_dir.as_path(), mirror_spec(&self.config)))
    }

    /// The documents matching `filter` (`mdgraph list`).
    pub fn list(&self, filter: &ListFilter) -> Result<ListReport, Error> {
        // The mirror's backlog table answers unless a frontmatter field is asked for.
        let fast = self.fast_mirror().and_then(|(dir, spec)| {
            let rows = mirror::load_list(dir, &spec, &backlog::list_query(filter)?)?;
            Some(backlog::list_from_rows(rows, filter))
        });
        let items = match fast {
            Some(items) => items,
            None => self.backlog_graph(Backlog::needs_fields(filter))?.list(filter),
        };
        // Nothing matched: a type or state nobody has is a usage error, not "none".
        if items.is_empty() && (!filter.types.is_empty() || !filter.states.is_empty()) {
            let all = self.list(&ListFilter::default())?.items;
            if let Some(message) = backlog::unknown_values(filter, &all) {
                return Err(Error::Usage(message));
            }
        }
        Ok(ListReport::new(items))
    }

    /// The id of the document `typed` names (any form `show` accepts), without loading
    /// the sections.
    pub fn resolve_id(&self, typed: &str) -> Result<String, Error> {
        // A document's exact id names it (as `show::find` says first), without loading
        // the documents.
        if let Some((dir, spec)) = self.fast_mirror()
            && mirror::is_document(dir, &spec, typed)
        {
            return Ok(typed.to_string());
        }
        let n = self.backlog_nodes()?;
        Ok(show::find(n, typed, &self.config.settings.ids.prefix_aliases)?
            .id
            .clone())
    }

    /// Work that can start now (`mdgraph ready`).
    pub fn ready(&self) -> Result<ReadyReport, Error> {
        // The answer is in the mirror's backlog table, made when the mirror was.
        let fast = self.fast_mirror().and_then(|(dir, spec)| {
            let (rows, cycles) = mirror::load_ready(dir, &spec)?;
            Some(backlog::ready_from_rows(rows, cycles))
        });
        match fast {
            Some(report) => Ok(report),
            None => Ok(self.backlog_graph(false)?.ready()),
        }
    }

    /// What keeps `id` from starting (empty when it can), and the node's id.
    pub fn holds(&self, id: &str) -> Result<(String, Vec<Hold>), Error> {
        let node = show::find(self.backlog_nodes()?, id, &self.config.settings.ids.prefix_aliases)?;
        Ok((node.id.clone(), self.backlog_graph(false)?.holds(&node.id)))
    }

    /// `id` with its descendants along parent edges and their roll-up (`mdgraph tree`).
    pub fn tree(&self, id: &str) -> Result<TreeReport, Error> {
        // An exact id: only its subtree is read from the mirror, and the same code walks it.
        if let Some((dir, spec)) = self.fast_mirror()
            && let Some(docs) = mirror::load_subtree(dir, &spec, id)
        {
            let links = docs
                .links
                .iter()
                .map(|l| (l.source.as_str(), l.target.as_str(), l.r#type));
            let b = Backlog::with_priorities(&docs.nodes, docs.priorities.as_deref(), links, &self.config.states);
            if let Some(root) = b.tree(id) {
                return Ok(TreeReport::new(root));
            }
        }
        let node = show::find(self.backlog_nodes()?, id, &self.config.settings.ids.prefix_aliases)?;
        let root = self
            .backlog_graph(false)?
            .tree(&node.id)
            .ok_or_else(|| Error::NotFound {
                query: id.to_string(),
                close: Vec::new(),
            })?;
        Ok(TreeReport::new(root))
    }
}
