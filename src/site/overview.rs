//! The overview page (`index.html`): counts by type and state group, each epic and
//! feature with the roll-up `tree` computes as a progress bar, the work `ready` answers,
//! and the diagnostics `check` reports.

use super::model::{Site, is_epic_or_feature};
use super::shell::{badge, entry, link, page, progress};
use crate::model::backlog::Group;
use crate::model::diag::Severity;
use maud::{Markup, html};
use std::collections::BTreeMap;

/// Counts per (kind, type) and state group.
pub type Counts = BTreeMap<(String, String), [usize; 5]>;

/// The documents counted by kind and type, and by state group.
pub fn counts(site: &Site) -> Counts {
    let mut c: Counts = BTreeMap::new();
    for id in &site.order {
        let d = &site.docs[id];
        let key = (d.node.kind.as_str().to_string(), d.kind_label().to_string());
        let i = Group::ALL.iter().position(|g| *g == d.item.group).unwrap_or(0);
        c.entry(key).or_default()[i] += 1;
    }
    c
}

/// The overview page.
pub fn render(site: &Site) -> String {
    let body = html! {
        h1 { "Overview" }
        p.lead {
            (site.order.len()) " documents · " (site.work_items().count()) " work items · "
            (site.ready.count) " ready · " (site.index.diagnostics.len()) " diagnostics"
        }
        (count_table(site))
        (epics(site))
        (ready(site))
        (diagnostics(site))
    };
    page("Overview", "", "index.html", body)
}

fn count_table(site: &Site) -> Markup {
    let c = counts(site);
    html! {
        h2 { "By type and state" }
        table.counts {
            thead { tr { th { "kind" } th { "type" } @for g in Group::ALL { th { (g.as_str()) } } th { "total" } } }
            tbody {
                @for ((kind, ty), n) in &c {
                    tr data-kind=(kind) data-type=(ty) data-count=(n.iter().sum::<usize>()) {
                        td { (kind) } td { (ty) }
                        @for (i, g) in Group::ALL.iter().enumerate() {
                            td class={ "num" @if n[i] > 0 { " g-" (g.as_str()) } } data-group=(g.as_str()) { @if n[i] > 0 { (n[i]) } }
                        }
                        td.num { (n.iter().sum::<usize>()) }
                    }
                }
            }
        }
    }
}

fn epics(site: &Site) -> Markup {
    let containers = site.containers();
    let epics: Vec<_> = containers.iter().filter(|d| is_epic_or_feature(d)).collect();
    // Without epics or features (a spec folder, Backlog.md), the top-level parents.
    let shown: Vec<_> = if epics.is_empty() {
        containers.iter().collect()
    } else {
        epics
    };
    html! {
        h2 { "Epics and features" }
        @if shown.is_empty() { p.none { "No epics, features or parents." } }
        table.rollups {
            @for d in shown {
                @if let Some(t) = site.backlog.tree(&d.node.id) {
                    tr.rollup data-id=(d.node.id) {
                        td { (link(d, "")) } td.title { (d.item.title) } td { (badge(d)) }
                        td { (progress(&t.rollup)) }
                        td { a href={ "graphs/" (super::model::slug(&d.node.id)) ".html" } { "graph" } }
                    }
                }
            }
        }
    }
}

fn ready(site: &Site) -> Markup {
    html! {
        h2 { "Ready to start (" (site.ready.count) ")" }
        ol.ready {
            @for r in &site.ready.items {
                @if let Some(d) = site.docs.get(r.item.id.as_str()) {
                    li data-id=(d.node.id) { (entry(d, "")) " " span.why { (r.why) } }
                }
            }
        }
        @for c in &site.ready.cycles { p.warn { "Blocker cycle: " (c.join(" → ")) } }
    }
}

fn diagnostics(site: &Site) -> Markup {
    const SHOWN: usize = 500;
    let diags = &site.index.diagnostics;
    html! {
        h2 { "Hygiene (" (diags.len()) ")" }
        @if diags.is_empty() { p.none { "No errors or warnings: `mdgraph check` is clean." } }
        ul.diags {
            @for d in diags.iter().take(SHOWN) {
                li class=(if d.severity == Severity::Error { "error" } else { "warning" }) {
                    code { (d.location()) } " " b { (d.label()) } " " (d.message)
                }
            }
        }
        @if diags.len() > SHOWN { p { "… and " (diags.len() - SHOWN) " more (`mdgraph check`)." } }
    }
}
