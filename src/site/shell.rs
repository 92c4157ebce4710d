//! What every page shares: the head (the stylesheet, the script, a content security
//! policy that lets nothing but the site's own files load or run), the navigation bar,
//! and the small pieces: a state badge, a link to a document's page, a progress bar.

use super::model::Doc;
use crate::query::backlog::{Rollup, priority_rank};
use maud::{DOCTYPE, Markup, html};

/// The policy of every page: only the site's own stylesheet and script, no inline
/// script, no request anywhere (a second guard behind the sanitizer).
pub const CSP: &str = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; \
                       base-uri 'none'; form-action 'none'";

/// The site's pages in the navigation bar: (file, label).
const NAV: [(&str, &str); 4] = [
    ("index.html", "Overview"),
    ("board.html", "Board"),
    ("decisions.html", "Decisions"),
    ("search.html", "Search"),
];

/// A whole page: `up` leads from its folder to the site's root (`""` or `"../"`),
/// `active` is the navigation entry to highlight.
pub fn page(title: &str, up: &str, active: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(CSP);
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · mdgraph" }
                link rel="stylesheet" href={ (up) "assets/site.css" };
                script src={ (up) "assets/site.js" } defer {}
            }
            body {
                nav.top {
                    span.brand { "mdgraph" }
                    @for (file, label) in NAV {
                        a href={ (up) (file) } class=[(file == active).then_some("active")] { (label) }
                    }
                }
                main { (body) }
            }
        }
    }
    .into_string()
}

/// A document's state as a badge coloured by its group.
pub fn badge(d: &Doc) -> Markup {
    // A decision's badge by its own state too: accepted, proposed, superseded and
    // rejected look apart even where their groups are one.
    let adr = (d.node.kind == crate::model::Kind::Adr).then(|| adr_class(d.state()));
    html! { span class={ "badge g-" (d.item.group.as_str()) @if let Some(c) = adr { " " (c) } } { bdi { (d.state()) } } }
}

/// The class of a decision's state: `adr-accepted`, `adr-proposed`, `adr-superseded`,
/// `adr-rejected`, `adr-deprecated`, else `adr-other`.
fn adr_class(state: &str) -> &'static str {
    let s = crate::model::backlog::fold_state(state);
    match s.as_str() {
        "accepted" | "approved" | "adopted" | "decided" | "final" | "living" => "adr-accepted",
        "proposed" | "draft" | "open" | "review" | "inreview" | "discussion" | "lastcall" => "adr-proposed",
        "superseded" | "replaced" => "adr-superseded",
        "rejected" | "declined" | "withdrawn" => "adr-rejected",
        "deprecated" | "obsolete" | "stagnant" | "retired" => "adr-deprecated",
        _ => "adr-other",
    }
}

/// A link to a document's page, its id as the text and its title on hover. The id is
/// isolated for direction (`<bdi>`): a right-to-left override in it cannot reorder
/// what follows it on the line.
pub fn link(d: &Doc, up: &str) -> Markup {
    html! { a href={ (up) (d.href) } title=(isolated(&d.item.title)) { bdi { (d.node.id) } } }
}

/// Backlog text isolated for direction inside one element's text (an SVG `<text>`, a
/// tooltip), where no `<bdi>` can go: between U+2068 FIRST STRONG ISOLATE and U+2069
/// POP DIRECTIONAL ISOLATE, which also closes every embedding or override opened in it.
pub fn isolated(s: &str) -> String {
    format!("\u{2068}{s}\u{2069}")
}

/// A link with the title beside it and the state badge.
pub fn entry(d: &Doc, up: &str) -> Markup {
    html! {
        (link(d, up)) " " bdi.title { (d.item.title) } " " (badge(d))
        @if d.blocked { " " span.flag-blocked title="blocked" { "⊘ blocked" } }
        @if d.waiting { " " span.flag-waiting title="waiting for the step before it" { "⧗ waiting" } }
    }
}

/// What a team plans by, in a line: priority, owners, milestone, due date, labels (each
/// only when the frontmatter has it).
pub fn plan(d: &Doc) -> Markup {
    let p = &d.plan;
    html! {
        @if let Some(pr) = &d.item.priority { span class={ "prio p" (priority_rank(Some(pr)).min(5)) } title="priority" { bdi { (pr) } } " " }
        @for o in &p.owner { span.owner title="owner" { "@" bdi { (o) } } " " }
        @if let Some(m) = &p.milestone { span.milestone title="milestone" { "◷ " bdi { (m) } } " " }
        @if let Some(due) = &p.due { span.due title="due" { "due " bdi { (due) } } " " }
        @for l in &p.labels { span.label { bdi { (l) } } " " }
    }
}

/// A progress bar of a roll-up: done, in progress, blocked and open shares of the work
/// left to do (dropped items aside), with the counts in its attributes and on hover. A
/// parent with nothing counted below it (no children with a state, or all dropped)
/// shows its own state instead of a share of nothing.
pub fn progress(d: &Doc, r: &Rollup) -> Markup {
    let live = (r.total - r.dropped).max(1) as f64;
    if r.total == r.dropped {
        return html! {
            span.progress data-own="1" data-done=(r.done) data-total=(r.total) data-dropped=(r.dropped)
                title={ "no counted children (" (r.dropped) " dropped): its own state" } {
                span class={ "seg g-" (d.column().as_str()) " w100" } {}
            }
            " " span.pct { "own state: " bdi { (d.state()) } }
        };
    }
    html! {
        span.progress data-done=(r.done) data-total=(r.total) data-dropped=(r.dropped)
            title={ (r.done) "/" (r.total - r.dropped) " done: " (r.open) " open, " (r.in_progress) " in progress, " (r.blocked) " blocked, " (r.dropped) " dropped" } {
            @for (n, group) in [(r.done, "done"), (r.in_progress, "in_progress"), (r.blocked, "blocked"), (r.open, "open")] {
                @if n > 0 { span class={ "seg g-" (group) " w" (share(n, live)) } {} }
            }
        }
        " " span.pct { (format!("{:.0} %", r.done_fraction * 100.0)) }
    }
}

/// A share in steps of 2 % (the stylesheet has a width class per step: no inline
/// styles, which the content security policy forbids).
fn share(n: usize, live: f64) -> usize {
    ((n as f64 / live * 50.0).round() as usize).min(50) * 2
}
