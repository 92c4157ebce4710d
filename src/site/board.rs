//! The board (`board.html`): one column per state group, one card per work item (id,
//! title, type, parent, blocked marker; without work items, per document with a state),
//! and a filter by text, type and parent that
//! `assets/site.js` runs in the page.

use super::model::Site;
use super::shell::{isolated, page};
use crate::model::backlog::Group;
use maud::html;
use std::collections::BTreeSet;

/// The board page.
pub fn render(site: &Site) -> String {
    let items = site.board_items();
    let types: BTreeSet<&str> = items.iter().map(|d| d.kind_label()).collect();
    let parents: BTreeSet<&str> = items.iter().filter_map(|d| d.item.parent.as_deref()).collect();
    let body = html! {
        h1 { "Board" }
        form.filters id="board-filter" {
            input #q type="search" placeholder="Filter by id or title" aria-label="filter by text";
            select #type aria-label="type" {
                option value="" { "every type" }
                @for t in &types { option value=(t) { (t) } }
            }
            select #parent aria-label="parent" {
                option value="" { "every parent" }
                @for p in &parents {
                    option value=(p) {
                        (isolated(p)) @if let Some(d) = site.docs.get(p) { " — " (isolated(&super::svg::truncate(&d.item.title, 40))) }
                    }
                }
            }
            span #shown { (items.len()) " of " (items.len()) " cards" }
        }
        div.board {
            @for g in Group::ALL {
                @let col: Vec<_> = items.iter().filter(|d| d.item.group == g).collect();
                section class={ "column g-" (g.as_str()) } data-group=(g.as_str()) {
                    h2 { (g.as_str().replace('_', " ")) " " span.count { (col.len()) } }
                    @for d in col {
                        a class={ "card" @if d.blocked { " is-blocked" } } href=(d.href) data-id=(d.node.id)
                            data-type=(d.kind_label()) data-parent=[d.item.parent.as_deref()]
                            data-text={ (d.node.id.to_lowercase()) " " (d.item.title.to_lowercase()) } {
                            span.cid { bdi { (d.node.id) } @if d.blocked { " " span.flag-blocked title="blocked" { "⊘" } } }
                            bdi.ctitle { (d.item.title) }
                            span.cmeta {
                                span.ctype { (d.kind_label()) } " · " (d.state())
                                @if let Some(p) = &d.item.parent { " · ↑ " bdi { (p) } }
                            }
                        }
                    }
                }
            }
        }
    };
    page("Board", "", "board.html", body)
}
