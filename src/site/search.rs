//! The search page (`search.html`) and its data (`assets/search-data.js`): every
//! document's id, title, type, state and page, searched in the page by
//! `assets/site.js` (every word of the query must occur in the id or the title).

use super::model::Site;
use super::shell::page;
use maud::html;

/// The search page.
pub fn render() -> String {
    let body = html! {
        h1 { "Search" }
        form.filters id="search-form" {
            input #sq type="search" placeholder="ids and titles" aria-label="search" autofocus;
            span #sn {}
        }
        ol #results {}
        script src="assets/search-data.js" {}
    };
    page("Search", "", "search.html", body)
}

/// The data the search runs on: a script that sets `MDGRAPH_DOCS` to rows of [id,
/// title, type, state, group, page] (the page empty when it is `items/ID.html`). A script rather than JSON because a page opened
/// from `file://` may not fetch a file.
pub fn data(site: &Site) -> String {
    let rows: Vec<[&str; 6]> = site
        .order
        .iter()
        .filter_map(|id| site.docs.get(id))
        .map(|d| {
            [
                d.node.id.as_str(),
                d.item.title.as_str(),
                d.kind_label(),
                d.state(),
                d.item.group.as_str(),
                // Most pages are `items/ID.html`: left out (the script makes it).
                if d.href == format!("items/{}.html", d.node.id) {
                    ""
                } else {
                    d.href.as_str()
                },
            ]
        })
        .collect();
    // JSON is a JavaScript literal; `<` is escaped so the data could sit in a page too.
    let json = serde_json::to_string(&rows)
        .unwrap_or_else(|_| "[]".into())
        .replace('<', "\\u003c");
    format!("window.MDGRAPH_DOCS = {json};\n")
}
