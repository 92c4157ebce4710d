//! `list`: the documents matching filters on type, state, frontmatter fields and
//! parent, sorted; and the same answer from the mirror's `backlog` table.

use super::graph::Backlog;
use super::order::{natural, priority_rank};
use super::states::fold;
use crate::model::Node;
use crate::model::backlog::{Item, ListQuery};
use serde::Serialize;
use std::collections::BTreeSet;

/// Version of the JSON shape of `list`.
pub const LIST_SCHEMA: &str = "mdgraph.list/1";

/// Filters of [`Backlog::list`]; empty filters match everything.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Types (case-insensitive; `adr` and `doc` name node kinds).
    pub types: Vec<String>,
    /// States or group names (`open`, `in_progress`, `blocked`, `done`, `dropped`).
    pub states: Vec<String>,
    /// `KEY=VALUE` on any frontmatter field (a list matches by member; case-insensitive).
    pub fields: Vec<(String, String)>,
    /// Items under this parent (direct children unless `deep`).
    pub parent: Option<String>,
    /// With `parent`: every descendant.
    pub deep: bool,
    /// Sort by this field (`id` by default; `priority`, `state`, `title`, `type`, or any
    /// frontmatter field).
    pub sort: Option<String>,
}

/// The answer of `list`.
#[derive(Debug, Clone, Serialize)]
pub struct ListReport {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// Items that match.
    pub count: usize,
    /// The items (all of them unless a limit or a budget cut the list).
    pub items: Vec<Item>,
    /// Matching items not listed (`count` − the items listed).
    pub more: usize,
}

impl ListReport {
    /// The report listing every item of `items`.
    pub fn new(items: Vec<Item>) -> ListReport {
        ListReport {
            schema: LIST_SCHEMA,
            count: items.len(),
            items,
            more: 0,
        }
    }
}

/// Work (an item with a state) is kept before documents and requirements.
impl crate::query::bound::Bounded for ListReport {
    fn entries(&self) -> usize {
        self.items.len()
    }

    fn keep(&mut self, n: usize) {
        let cut = keep_work_first(&mut self.items, n, |i| i.state.is_some());
        self.more += cut;
    }
}

/// Keep `n` of `items`: those that `work` says are work first, in their order, then the
/// others; shown in the list's order. Returns how many were left out.
pub(crate) fn keep_work_first<T>(items: &mut Vec<T>, n: usize, work: impl Fn(&T) -> bool) -> usize {
    if items.len() <= n {
        return 0;
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| (!work(&items[i]), i));
    let mut keep = vec![false; items.len()];
    for &i in &order[..n] {
        keep[i] = true;
    }
    let before = items.len();
    let mut at = 0;
    items.retain(|_| {
        at += 1;
        keep[at - 1]
    });
    before - items.len()
}

impl<'a> Backlog<'a> {
    /// Descendants of `id` along parent edges, breadth first (each once).
    fn descendants(&self, id: &str, deep: bool) -> Vec<&'a str> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::from([id]);
        let mut frontier = vec![id];
        while let Some(cur) = frontier.pop() {
            for &c in self.children.get(cur).map(Vec::as_slice).unwrap_or_default() {
                if seen.insert(c) {
                    out.push(c);
                    if deep {
                        frontier.push(c);
                    }
                }
            }
        }
        out
    }

    /// Does `f` read frontmatter fields beyond the ones every document carries (a
    /// `--where`, or a sort on another field)? Documents read without their frontmatter
    /// ([`Backlog::with_priorities`]) cannot answer it.
    pub fn needs_fields(f: &Filter) -> bool {
        !f.fields.is_empty()
            || f.sort
                .as_deref()
                .is_some_and(|k| !["id", "title", "state", "type", "priority"].contains(&k.to_lowercase().as_str()))
    }

    /// The items matching `f`, sorted.
    pub fn list(&self, f: &Filter) -> Vec<Item> {
        let under: Option<BTreeSet<&str>> = f
            .parent
            .as_deref()
            .map(|p| self.descendants(p, f.deep).into_iter().collect());
        let types: Vec<String> = f.types.iter().map(|t| t.to_lowercase()).collect();
        let states: Vec<(String, &str)> = f.states.iter().map(|s| (fold(s), s.as_str())).collect();
        let out: Vec<(Option<&Node>, Item)> = self
            .docs
            .values()
            .filter(|d| under.as_ref().is_none_or(|u| u.contains(d.node.id.as_str())))
            .filter(|d| {
                types.is_empty()
                    || types.iter().zip(&f.types).any(|(lower, t)| {
                        d.node.r#type.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(t))
                            || d.node.kind.as_str() == lower
                    })
            })
            .filter(|d| {
                states.is_empty()
                    || states.iter().any(|(folded, s)| {
                        // The state as written; a group by its lowercase name (`in_progress`).
                        d.node.state.as_deref().is_some_and(|x| fold(x) == *folded) || d.group.as_str() == *s
                    })
            })
            .filter(|d| {
                f.fields
                    .iter()
                    .all(|(k, v)| field(d.node, k).iter().any(|x| x.eq_ignore_ascii_case(v)))
            })
            .map(|d| (Some(d.node), self.item(d)))
            .collect();
        sort_items(out, f)
    }
}

/// Kind names `--type` also accepts.
const KIND_NAMES: [&str; 3] = ["work_item", "adr", "doc"];

/// When a type or state of `f` names nothing any item has (`all`: every item), the
/// message that says so and lists the known values with their counts; `None` when every
/// value is known. A typo must not read as "nothing matches".
pub fn unknown_values(f: &Filter, all: &[Item]) -> Option<String> {
    let count = |values: Vec<String>| -> Vec<(String, usize)> {
        let mut m: std::collections::BTreeMap<String, (String, usize)> = Default::default();
        for v in values {
            m.entry(v.to_lowercase()).or_insert_with(|| (v.clone(), 0)).1 += 1;
        }
        let mut out: Vec<(String, usize)> = m.into_values().collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    };
    let shown = |known: &[(String, usize)]| {
        known
            .iter()
            .map(|(v, n)| format!("{v} ({n})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let types = count(all.iter().filter_map(|i| i.r#type.clone()).collect());
    let bad_types: Vec<&String> = f
        .types
        .iter()
        .filter(|t| {
            !types.iter().any(|(k, _)| k.eq_ignore_ascii_case(t))
                && !KIND_NAMES.iter().any(|k| k.eq_ignore_ascii_case(t))
        })
        .collect();
    if let Some(t) = bad_types.first() {
        return Some(format!(
            "unknown type `{t}`; the types here: {} (and the kinds {})",
            if types.is_empty() {
                "none".to_string()
            } else {
                shown(&types)
            },
            KIND_NAMES.join(", ")
        ));
    }
    let states = count(all.iter().filter_map(|i| i.state.clone()).collect());
    let groups: Vec<&str> = crate::model::backlog::Group::ALL.iter().map(|g| g.as_str()).collect();
    let bad_states: Vec<&String> = f
        .states
        .iter()
        .filter(|s| !states.iter().any(|(k, _)| fold(k) == fold(s)) && !groups.contains(&s.as_str()))
        .collect();
    bad_states.first().map(|s| {
        format!(
            "unknown state `{s}`; the states here: {} (and the groups {})",
            if states.is_empty() {
                "none".to_string()
            } else {
                shown(&states)
            },
            groups.join(", ")
        )
    })
}

/// The items of `list` sorted as `f` asks; items in id order come out in id order
/// among equals. A sort on a frontmatter field reads it from the item's node.
fn sort_items(mut items: Vec<(Option<&Node>, Item)>, f: &Filter) -> Vec<Item> {
    // One key per item (a frontmatter field is parsed once, not per comparison).
    let key = f.sort.as_deref().unwrap_or("id").to_lowercase();
    items.sort_by_cached_key(|(n, i)| {
        let k: (u32, String) = match key.as_str() {
            "id" => (0, String::new()),
            "title" => (0, i.title.to_lowercase()),
            "state" => (i.group as u32, i.state.clone().unwrap_or_default().to_lowercase()),
            "type" => (0, i.r#type.clone().unwrap_or_default().to_lowercase()),
            "priority" => (priority_rank(i.priority.as_deref()), String::new()),
            other => match n.map(|n| field(n, other)).unwrap_or_default().into_iter().next() {
                Some(v) => (0, v.to_lowercase()),
                None => (1, String::new()),
            },
        };
        (k, natural(&i.id))
    });
    items.into_iter().map(|(_, i)| i).collect()
}

/// The query on the mirror's `backlog` table that answers `f`, when it can: not when
/// `f` reads other frontmatter fields ([`Backlog::needs_fields`]).
pub fn list_query(f: &Filter) -> Option<ListQuery<'_>> {
    if Backlog::needs_fields(f) {
        return None;
    }
    Some(ListQuery {
        types: f.types.iter().map(|t| (t.as_str(), t.to_lowercase())).collect(),
        states: f.states.iter().map(|s| (fold(s), s.as_str())).collect(),
        parent: f.parent.as_deref().map(|p| (p, f.deep)),
    })
}

/// [`Backlog::list`] from the items [`list_query`] selected (in id order).
pub fn list_from_rows(rows: Vec<Item>, f: &Filter) -> Vec<Item> {
    sort_items(rows.into_iter().map(|i| (None, i)).collect(), f)
}

/// A frontmatter field's values as text (a list gives its members).
pub fn field(n: &Node, key: &str) -> Vec<String> {
    n.field_values(key)
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{edges, item, with_priority};
    use super::*;
    use crate::config::StateGroups;
    use crate::model::{EdgeType, Kind};

    fn typed(mut n: Node, t: &str) -> Node {
        n.r#type = Some(t.into());
        n
    }

    #[test]
    fn filters_match_types_states_and_parents() {
        let groups = StateGroups::default();
        let links = edges(&[
            ("F", EdgeType::Parent, "E"),
            ("T1", EdgeType::Parent, "F"),
            ("T2", EdgeType::Parent, "F"),
        ]);
        let mut adr = item("ADR-1", "Accepted");
        adr.kind = Kind::Adr;
        let nodes = vec![
            adr,
            typed(item("E", "To Do"), "Epic"),
            typed(item("F", "In Progress"), "Feature"),
            with_priority(typed(item("T1", "Done"), "Task"), "P2"),
            with_priority(typed(item("T2", "To-Do"), "task"), "P0"),
        ];
        let b = Backlog::new(&nodes, &links, &groups);
        let ids = |f: Filter| b.list(&f).into_iter().map(|i| i.id).collect::<Vec<_>>();
        let strings = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            ids(Filter {
                types: strings(&["TASK"]),
                ..Filter::default()
            }),
            ["T1", "T2"]
        );
        assert_eq!(
            ids(Filter {
                types: strings(&["adr"]),
                ..Filter::default()
            }),
            ["ADR-1"]
        );
        // A state as written, folded; a group by its name.
        assert_eq!(
            ids(Filter {
                states: strings(&["to do"]),
                ..Filter::default()
            }),
            ["E", "T2"]
        );
        assert_eq!(
            ids(Filter {
                states: strings(&["in_progress"]),
                ..Filter::default()
            }),
            ["F"]
        );
        let under = |deep| Filter {
            parent: Some("E".into()),
            deep,
            ..Filter::default()
        };
        assert_eq!(ids(under(false)), ["F"]);
        assert_eq!(ids(under(true)), ["F", "T1", "T2"]);
        let by_priority = Filter {
            sort: Some("priority".into()),
            ..under(true)
        };
        assert_eq!(ids(by_priority.clone()), ["T2", "T1", "F"]);
        // The mirror's rows come in id order and are sorted alike.
        let rows = b.list(&under(true));
        let sorted: Vec<String> = list_from_rows(rows, &by_priority).into_iter().map(|i| i.id).collect();
        assert_eq!(sorted, ["T2", "T1", "F"]);
    }

    #[test]
    fn a_filter_on_other_fields_cannot_be_asked_of_the_table() {
        let on_field = Filter {
            fields: vec![("owner".into(), "ana".into())],
            ..Filter::default()
        };
        assert!(list_query(&on_field).is_none());
        let sorted_by_field = Filter {
            sort: Some("owner".into()),
            ..Filter::default()
        };
        assert!(list_query(&sorted_by_field).is_none());
        let f = Filter {
            types: vec!["Task".into()],
            states: vec!["Won't Do".into()],
            parent: Some("E".into()),
            deep: true,
            sort: Some("Priority".into()),
            ..Filter::default()
        };
        let q = list_query(&f).expect("the table answers it");
        assert_eq!(q.types, [("Task", "task".to_string())]);
        assert_eq!(q.states, [("wontdo".to_string(), "Won't Do")]);
        assert_eq!(q.parent, Some(("E", true)));
    }
}
