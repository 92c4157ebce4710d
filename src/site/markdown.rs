//! A document's Markdown as safe HTML: its sections put back together, rendered with the
//! index's own dialect (pulldown-cmark), then cleaned by ammonia's allow-list. Backlog
//! text is untrusted: raw HTML, scripts, event attributes and `javascript:` links are
//! dropped by the sanitizer, never by hand-written escaping. Images become links (a page
//! that opens from `file://` must load nothing from the network), task boxes become text
//! (ammonia drops `<input>`), and links to other documents go to their pages.

use crate::ingest::markdown::cmark_options;
use crate::model::Node;
use pulldown_cmark::{CowStr, Event, LinkType, Parser, Tag, TagEnd};
use std::collections::HashSet;
use std::sync::LazyLock;

/// The sanitizer: ammonia's default allow-list without `<img>`, links only to web and
/// mail addresses (and relative ones), each with `rel="noopener noreferrer"`.
static CLEANER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut b = ammonia::Builder::default();
    b.rm_tags(["img"])
        .url_schemes(HashSet::from(["http", "https", "mailto"]))
        .link_rel(Some("noopener noreferrer nofollow"));
    b
});

/// Clean a fragment of HTML with the site's sanitizer.
pub fn sanitize(html: &str) -> String {
    CLEANER.clean(html).to_string()
}

/// The Markdown of a document's sections, headings included, in file order.
pub fn source(chunks: &[Node]) -> String {
    let mut md = String::new();
    for c in chunks {
        let level = usize::from(c.level.unwrap_or(0).min(6));
        if level > 0 {
            md.push_str(&"#".repeat(level));
            md.push(' ');
            md.push_str(c.heading.as_deref().unwrap_or(""));
            md.push_str("\n\n");
        }
        md.push_str(c.text.as_deref().unwrap_or(""));
        md.push_str("\n\n");
    }
    md
}

/// Render `md` as sanitized HTML. `resolve(dest, wiki)` gives the page a link leads to
/// when it names another document (None: the link is kept as written, and the
/// sanitizer decides).
pub fn render(md: &str, resolve: &dyn Fn(&str, bool) -> Option<String>) -> String {
    let events = Parser::new_ext(md, cmark_options()).map(|e| match e {
        Event::Start(Tag::Image {
            dest_url, title, id, ..
        }) => Event::Start(Tag::Link {
            link_type: LinkType::Inline,
            dest_url,
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        Event::TaskListMarker(done) => Event::Text(CowStr::Borrowed(if done { "☑ " } else { "☐ " })),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let wiki = matches!(link_type, LinkType::WikiLink { .. });
            let dest_url = match resolve(&dest_url, wiki) {
                Some(href) => CowStr::from(href),
                None => dest_url,
            };
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            })
        }
        other => other,
    });
    let mut html = String::with_capacity(md.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events);
    sanitize(&html)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(md: &str) -> String {
        render(md, &|_, _| None)
    }

    #[test]
    fn scripts_handlers_and_script_links_never_survive() {
        let hostile = "# T\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n\
                       [click](javascript:alert(3)) <a href=\"javascript:alert(4)\" onclick=\"alert(5)\">a</a>\n\n\
                       <iframe src=\"https://evil.example\"></iframe><svg onload=alert(6)></svg>\n\n\
                       [x](JaVaScRiPt:alert(7)) <div style=\"background:url(https://evil.example)\">d</div>";
        let html = plain(hostile);
        for bad in [
            "<script",
            "onerror",
            "onclick",
            "onload",
            "javascript:",
            "JaVaScRiPt",
            "<iframe",
            "<img",
            "style=",
        ] {
            assert!(!html.contains(bad), "{bad} survived in {html}");
        }
        assert!(html.contains("<h1>T</h1>"), "{html}");
    }

    #[test]
    fn images_become_links_boxes_text_and_document_links_pages() {
        let html = render(
            "![plan](https://example.com/p.png)\n\n- [x] done\n- [ ] open\n\nsee [[ADR-1]] and [b](../b.md)",
            &|dest, wiki| match (dest, wiki) {
                ("ADR-1", true) => Some("ADR-1.html".into()),
                ("../b.md", false) => Some("B.html".into()),
                _ => None,
            },
        );
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("href=\"https://example.com/p.png\""), "{html}");
        assert!(html.contains("☑ done") && html.contains("☐ open"), "{html}");
        assert!(
            html.contains("href=\"ADR-1.html\"") && html.contains("href=\"B.html\""),
            "{html}"
        );
    }
}
