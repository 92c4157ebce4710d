//! The overview page (`index.html`): counts by type and state group, each epic and
//! feature with the roll-up `tree` computes as a progress bar, what is blocked and by
//! what, the work `ready` answers, and the diagnostics `check` reports.

use super::model::{Doc, Site, blocking_pair, is_epic_or_feature};
use super::paged;
use super::shell::{badge, entry, link, page, plan, progress};
use crate::model::backlog::Group;
use crate::model::diag::Severity;
use maud::{Markup, html};
use std::collections::BTreeMap;

/// Counts per (kind, type) and state group.
pub type Counts = BTreeMap<(String, String), [usize; 6]>;

/// The documents counted by kind and type, and by state group.
pub fn counts(site: &Site) -> Counts {
    let mut c: Counts = BTreeMap::new();
    for id in &site.order {
        let d = &site.docs[id];
        let key = (d.node.kind.as_str().to_string(), d.kind_label().to_string());
        // Where it stands (blocked by an open blocker counts as blocked); a document
        // without a state (a requirement, a criterion, a plan) is counted apart.
        let i = match d.item.state {
            None => Group::ALL.len(),
            Some(_) => Group::ALL.iter().position(|g| *g == d.column()).unwrap_or(0),
        };
        c.entry(key).or_default()[i] += 1;
    }
    c
}

/// The overview page, and the pages of its long lists' rest.
pub fn render(site: &Site) -> (String, paged::Pages) {
    let mut rest = Vec::new();
    let body = html! {
        h1 { "Overview" }
        p.lead {
            (site.order.len()) " documents · " (site.work_items().count()) " work items · "
            (site.ready.count) " ready · " (site.index.diagnostics.len()) " diagnostics"
        }
        (count_table(site))
        (epics(site, &mut rest))
        (blocked(site, &mut rest))
        (ready(site, &mut rest))
        (diagnostics(site))
        (others(site, &mut rest))
    };
    (page("Overview", "", "index.html", body), rest)
}

fn count_table(site: &Site) -> Markup {
    let c = counts(site);
    html! {
        h2 { "By type and state" }
        table.counts {
            thead { tr { th { "kind" } th { "type" } @for g in Group::ALL { th { (g.as_str()) } } th { "no state" } th { "total" } } }
            tbody {
                @for ((kind, ty), n) in &c {
                    tr data-kind=(kind) data-type=(ty) data-count=(n.iter().sum::<usize>()) {
                        td { (kind) } td { (ty) }
                        @for (i, g) in Group::ALL.iter().enumerate() {
                            td class={ "num" @if n[i] > 0 { " g-" (g.as_str()) } } data-group=(g.as_str()) { @if n[i] > 0 { (n[i]) } }
                        }
                        td.num data-group="none" { @if n[5] > 0 { (n[5]) } }
                        td.num { (n.iter().sum::<usize>()) }
                    }
                }
            }
        }
    }
}

fn epics(site: &Site, rest: &mut paged::Pages) -> Markup {
    let containers = site.containers();
    let epics: Vec<_> = containers.iter().filter(|d| is_epic_or_feature(d)).collect();
    // Without epics or features (a spec folder, Backlog.md), the top-level parents.
    let shown: Vec<_> = if epics.is_empty() {
        containers.iter().collect()
    } else {
        epics
    };
    let all: Vec<&Doc> = shown.iter().map(|d| **d).collect();
    rest.extend(paged::pages("epics", "Epics and features", &all));
    html! {
        h2 { "Epics and features (" (all.len()) ")" }
        @if shown.is_empty() { p.none { "No epics, features or parents." } }
        table.rollups {
            @for d in shown.iter().take(paged::IN_PLACE) {
                @if let Some(t) = site.backlog.tree(&d.node.id) {
                    tr.rollup data-id=(d.node.id) {
                        td { (link(d, "")) } td.title dir="auto" { (d.item.title) } td { (badge(d)) }
                        td { (progress(d, &t.rollup)) }
                        td { a href={ "graphs/" (super::model::slug(&d.node.id)) ".html" } { "graph" } }
                    }
                }
            }
        }
        (paged::more("epics", all.len(), ""))
    }
}

/// Each blocked item with what blocks it: its unfinished blockers, or its own state.
fn blocked(site: &Site, rest: &mut paged::Pages) -> Markup {
    // The board's Blocked column, card for card.
    let blocked: Vec<_> = site
        .board_items()
        .into_iter()
        .filter(|d| d.column() == Group::Blocked)
        .collect();
    rest.extend(paged::pages("blocked", "Blocked", &blocked));
    html! {
        h2 { "Blocked (" (blocked.len()) ")" }
        @if blocked.is_empty() { p.none { "Nothing is blocked." } }
        ul.blocked {
            @for d in blocked.iter().take(paged::IN_PLACE) {
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
        (paged::more("blocked", blocked.len(), ""))
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

fn ready(site: &Site, rest: &mut paged::Pages) -> Markup {
    let docs: Vec<&Doc> = site
        .ready
        .items
        .iter()
        .filter_map(|r| site.docs.get(r.item.id.as_str()))
        .collect();
    rest.extend(paged::pages("ready", "Ready to start", &docs));
    html! {
        h2 { "Ready to start (" (site.ready.count) ")" }
        ol.ready {
            @for r in site.ready.items.iter().take(paged::IN_PLACE) {
                @if let Some(d) = site.docs.get(r.item.id.as_str()) {
                    li data-id=(d.node.id) { (entry(d, "")) " " (plan(d)) span.why { (r.why) } }
                }
            }
        }
        (paged::more("ready", docs.len(), ""))
        @for c in &site.ready.cycles { p.warn { "Blocker cycle: " (c.join(" → ")) } }
    }
}

/// The documents neither the board nor the decisions page shows (plans, notes,
/// milestones, stateless documents), so that every page is reached from here.
fn others(site: &Site, pages: &mut paged::Pages) -> Markup {
    let on_board: std::collections::HashSet<&str> = site.board_items().iter().map(|d| d.node.id.as_str()).collect();
    let rest: Vec<&Doc> = site
        .order
        .iter()
        .filter_map(|id| site.docs.get(id))
        .filter(|d| d.node.kind != crate::model::Kind::Adr && !on_board.contains(d.node.id.as_str()))
        .collect();
    pages.extend(paged::pages("others", "Other documents", &rest));
    html! {
        @if !rest.is_empty() {
            details.others {
                summary { h2 { "Other documents (" (rest.len()) ")" } }
                ul { @for d in rest.iter().take(paged::IN_PLACE) { li { (entry(d, "")) } } }
                (paged::more("others", rest.len(), ""))
            }
        }
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
