//! The overview page (`index.html`): counts by type and state group, each epic and
//! feature with the roll-up `tree` computes as a progress bar, what is blocked and by
//! what, the work `ready` answers, and the diagnostics `check` reports.

use super::model::{Doc, Site, blocking_pair, is_epic_or_feature};
use super::shell::{badge, entry, link, page, plan, progress};
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
        (blocked(site))
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
                        td { (link(d, "")) } td.title dir="auto" { (d.item.title) } td { (badge(d)) }
                        td { (progress(&t.rollup)) }
                        td { a href={ "graphs/" (super::model::slug(&d.node.id)) ".html" } { "graph" } }
                    }
                }
            }
        }
    }
}

/// Each blocked item with what blocks it: its unfinished blockers, or its own state.
fn blocked(site: &Site) -> Markup {
    let blocked: Vec<_> = site.work_items().filter(|d| d.blocked).collect();
    html! {
        h2 { "Blocked (" (blocked.len()) ")" }
        @if blocked.is_empty() { p.none { "Nothing is blocked." } }
        ul.blocked {
            @for d in &blocked {
                @let by = blockers(site, &d.node.id);
                li data-id=(d.node.id) {
                    (entry(d, "")) " " (plan(d))
                    @if by.is_empty() { " " span.why { "its state says so" } }
                    @else {
                        " " span.why { "by" }
                        @for b in by { " " (link(b, "")) " " (badge(b)) }
                    }
                }
            }
        }
    }
}

/// The unfinished blockers of `id`, each once, by id.
fn blockers<'s, 'a>(site: &'s Site<'a>, id: &str) -> Vec<&'s Doc<'a>> {
    let mut out: Vec<&Doc> = site
        .links(id)
        .filter_map(|l| blocking_pair(l.source, l.target, l.edge.r#type))
        .filter(|(blocked, _)| *blocked == id)
        .filter_map(|(_, blocker)| site.docs.get(blocker))
        .filter(|b| !b.item.group.is_closed())
        .collect();
    out.sort_by(|a, b| a.node.id.cmp(&b.node.id));
    out.dedup_by(|a, b| a.node.id == b.node.id);
    out
}

fn ready(site: &Site) -> Markup {
    html! {
        h2 { "Ready to start (" (site.ready.count) ")" }
        ol.ready {
            @for r in &site.ready.items {
                @if let Some(d) = site.docs.get(r.item.id.as_str()) {
                    li data-id=(d.node.id) { (entry(d, "")) " " (plan(d)) span.why { (r.why) } }
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
                    code dir="ltr" { (d.location()) } " " b { (d.label()) } " " bdi { (d.message) }
                }
            }
        }
        @if diags.len() > SHOWN { p { "… and " (diags.len() - SHOWN) " more (`mdgraph check`)." } }
    }
}
