//! Big backlogs: a list longer than a page should hold (the board's columns, ready
//! work, blocked items, other documents at 10,000 items) shows its first entries where
//! it is and the rest on numbered pages (`lists/NAME-N.html`) that link to each other,
//! so that no page grows past about a megabyte and every document's page is still
//! reached from `index.html`.

use super::model::Doc;
use super::shell::{entry, page, plan};
use maud::{Markup, html};

/// Entries a list shows in place before the rest go to its pages.
pub const IN_PLACE: usize = 150;
/// Entries per page of a list's rest.
const PER_PAGE: usize = 1000;

/// The pages of the rest of a list: (file from the site's root, HTML).
pub type Pages = Vec<(String, String)>;

/// The first page of `name`'s rest, from the site's root.
pub fn first(name: &str) -> String {
    format!("lists/{name}-1.html")
}

/// What a list shows after its first [`IN_PLACE`] entries: a link to the pages of the
/// rest (`up` leads to the site's root); nothing when there is no rest.
pub fn more(name: &str, total: usize, up: &str) -> Markup {
    html! {
        @if total > IN_PLACE {
            p.more { "… and " (total - IN_PLACE) " more: " a href={ (up) (first(name)) } { "see them all" } }
        }
    }
}

/// The pages of the whole list `docs` of `name` (titled `title`) when it is longer than
/// [`IN_PLACE`], each entry with its planning fields.
pub fn pages(name: &str, title: &str, docs: &[&Doc]) -> Pages {
    if docs.len() <= IN_PLACE {
        return Vec::new();
    }
    let chunks: Vec<&[&Doc]> = docs.chunks(PER_PAGE).collect();
    let n = chunks.len();
    chunks
        .iter()
        .enumerate()
        .map(|(i, chunk)| {
            let at = |k: usize| format!("{name}-{k}.html");
            let body = html! {
                h1 { (title) " (" (docs.len()) ") · page " (i + 1) " of " (n) }
                p.pager {
                    @if i > 0 { a href=(at(i)) { "← previous" } " " }
                    @if i + 1 < n { a href=(at(i + 2)) { "next →" } }
                }
                ol start=(i * PER_PAGE + 1) { @for d in *chunk { li { (entry(d, "../")) " " (plan(d)) } } }
            };
            (format!("lists/{}", at(i + 1)), page(title, "../", "", body))
        })
        .collect()
}
