//! The board (`board.html`): one column per state group, one card per work item (id,
//! title, type, parent, priority, owner, milestone, due date, labels, blocked marker;
//! without work items, per document with a state), each column by priority then id,
//! and a filter by text, type, owner, priority and parent (the parent's whole subtree)
//! that `assets/site.js` runs in the page.

use super::model::{Doc, Site};
use super::paged;
use super::shell::{isolated, page, plan};
use crate::model::backlog::Group;
use crate::query::backlog::{natural, priority_rank};
use maud::{Markup, html};
use std::collections::BTreeSet;

/// The board page, and the pages of the columns' rest (past [`paged::IN_PLACE`] cards
/// a column links to them; the filter works on the cards of the page).
pub fn render(site: &Site) -> (String, paged::Pages) {
    let mut items = site.board_items();
    items.sort_by_cached_key(|d| {
        (
            priority_rank(d.item.priority.as_deref()),
            natural(&d.node.id),
            d.node.id.clone(),
        )
    });
    let types: BTreeSet<&str> = items.iter().map(|d| d.kind_label()).collect();
    let owners: BTreeSet<&str> = items
        .iter()
        .flat_map(|d| d.plan.owner.iter().map(String::as_str))
        .collect();
    let mut priorities: Vec<&str> = items
        .iter()
        .filter_map(|d| d.item.priority.as_deref())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    priorities.sort_by_key(|p| (priority_rank(Some(p)), *p));
    let ups: Vec<Vec<&str>> = items.iter().map(|d| site.ancestors(&d.node.id)).collect();
    let parents: BTreeSet<&str> = ups.iter().flatten().copied().collect();
    let body = html! {
        h1 { "Board" }
        form.filters id="board-filter" {
            input #q type="search" placeholder="Filter by id or title" aria-label="filter by text";
            (choice("type", "every type", types.iter().map(|t| (*t, isolated(t)))))
            (choice("owner", "every owner", owners.iter().map(|o| (*o, isolated(o)))))
            (choice("priority", "every priority", priorities.iter().map(|p| (*p, isolated(p)))))
            (choice("parent", "every parent", parents.iter().map(|p| (*p, match site.docs.get(p) {
                Some(d) => format!("{} — {}", isolated(p), isolated(&super::svg::truncate(&d.item.title, 40))),
                None => isolated(p),
            }))))
            span #shown {}
        }
        div.board {
            @for g in Group::ALL {
                @let col: Vec<_> = items.iter().zip(&ups).filter(|(d, _)| d.column() == g).collect();
                section class={ "column g-" (g.as_str()) } data-group=(g.as_str()) {
                    h2 { (g.as_str().replace('_', " ")) " " span.count { (col.len()) } }
                    @for (d, up) in col.iter().take(paged::IN_PLACE) { (card(d, up)) }
                    (paged::more(&format!("board-{}", g.as_str()), col.len(), ""))
                }
            }
        }
    };
    let mut rest = Vec::new();
    for g in Group::ALL {
        let col: Vec<&Doc> = items.iter().copied().filter(|d| d.column() == g).collect();
        let title = format!("Board: {}", g.as_str().replace('_', " "));
        rest.extend(paged::pages(&format!("board-{}", g.as_str()), &title, &col));
    }
    (page("Board", "", "board.html", body), rest)
}

/// A select of the filter: `(value, label)` options after the one that means any.
fn choice<'v>(id: &str, any: &str, options: impl Iterator<Item = (&'v str, String)>) -> Markup {
    html! {
        select id=(id) aria-label=(id) {
            option value="" { (any) }
            @for (value, label) in options { option value=(value) { (label) } }
        }
    }
}

/// One card; `up` its ancestors (the parent filter matches any of them).
fn card(d: &Doc, up: &[&str]) -> Markup {
    html! {
        a class={ "card" @if d.blocked { " is-blocked" } } href=(d.href) data-id=(d.node.id)
            data-type=(d.kind_label()) data-parent=[d.item.parent.as_deref()]
            data-up=(up.join("\n")) data-owner=(d.plan.owner.join("\n"))
            data-priority=(d.item.priority.as_deref().unwrap_or(""))
            data-text={ (d.node.id.to_lowercase()) " " (d.item.title.to_lowercase()) } {
            span.cid {
                bdi { (d.node.id) }
                @if d.blocked { " " span.flag-blocked title="blocked" { "⊘" } }
                @if d.waiting { " " span.flag-waiting title="waiting for the step before it" { "⧗ waiting" } }
            }
            bdi.ctitle { (d.item.title) }
            span.cmeta {
                span.ctype { (d.kind_label()) } " · " bdi { (d.state()) }
                @if let Some(p) = &d.item.parent { " · ↑ " bdi { (p) } }
            }
            @if d.item.priority.is_some() || !d.plan.is_empty() { span.cplan { (plan(d)) } }
        }
    }
}
