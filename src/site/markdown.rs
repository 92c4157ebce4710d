//! A document's Markdown as safe HTML: its sections put back together, rendered with the
//! index's own dialect (pulldown-cmark), then cleaned by ammonia's allow-list. Backlog
//! text is untrusted: raw HTML, scripts, event attributes and `javascript:` links are
//! dropped by the sanitizer, never by hand-written escaping. Images become links (a page
//! that opens from `file://` must load nothing from the network), task boxes become text
//! (ammonia drops `<input>`), links to other documents go to their pages, and so do
//! the ids of documents it relates to where its prose names them (not in code, not
//! inside a link); the sanitizer still sees every link last.

use crate::ingest::markdown::cmark_options;
use crate::model::Node;
use crate::text::mentions::mention_candidates;
use pulldown_cmark::{CowStr, Event, LinkType, Parser, Tag, TagEnd, TextMergeStream};
use std::collections::HashSet;
use std::sync::LazyLock;

/// The sanitizer: ammonia's default allow-list without `<img>`, links only to web and
/// mail addresses (and relative ones), each with `rel="noopener noreferrer"`.
static CLEANER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut b = ammonia::Builder::default();
    b.rm_tags(["img"])
        .add_tag_attributes("h1", ["id"])
        .add_tag_attributes("h2", ["id"])
        .add_tag_attributes("h3", ["id"])
        .add_tag_attributes("h4", ["id"])
        .add_tag_attributes("h5", ["id"])
        .add_tag_attributes("h6", ["id"])
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
/// sanitizer decides); `mention(token)` the page an id-like word of the prose names.
pub fn render(
    md: &str,
    resolve: &dyn Fn(&str, bool) -> Option<String>,
    mention: &dyn Fn(&str) -> Option<String>,
) -> String {
    // Inside a link or a code block, words are left as they are.
    let (mut in_link, mut in_code) = (0usize, 0usize);
    // Per open link or image: whether it stays a link. One to a file that is no page of
    // the site (`../images/x.png`, a document the index does not know) would be dead
    // from `file://`: its text stays, the link goes.
    let mut kept: Vec<bool> = Vec::new();
    let dead = |dest: &str| !dest.contains(':') && !dest.starts_with('#');
    let events = TextMergeStream::new(Parser::new_ext(md, cmark_options())).flat_map(|e| {
        let one = match e {
            Event::Start(Tag::Image {
                dest_url, title, id, ..
            }) => {
                in_link += 1;
                kept.push(!dead(&dest_url));
                if dead(&dest_url) {
                    return Vec::new();
                }
                Event::Start(Tag::Link {
                    link_type: LinkType::Inline,
                    dest_url,
                    title,
                    id,
                })
            }
            Event::End(TagEnd::Image) => {
                in_link = in_link.saturating_sub(1);
                if !kept.pop().unwrap_or(true) {
                    return Vec::new();
                }
                Event::End(TagEnd::Link)
            }
            Event::TaskListMarker(done) => Event::Text(CowStr::Borrowed(if done { "☑ " } else { "☐ " })),
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                in_link += 1;
                let wiki = matches!(link_type, LinkType::WikiLink { .. });
                let dest_url = match (dest_url.strip_prefix('#'), resolve(&dest_url, wiki)) {
                    (Some(frag), _) => CowStr::from(fragment(frag)),
                    (None, Some(href)) => CowStr::from(href),
                    (None, None) if dead(&dest_url) => {
                        kept.push(false);
                        return Vec::new();
                    }
                    (None, None) => dest_url,
                };
                kept.push(true);
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                })
            }
            Event::End(TagEnd::Link) => {
                in_link = in_link.saturating_sub(1);
                if !kept.pop().unwrap_or(true) {
                    return Vec::new();
                }
                Event::End(TagEnd::Link)
            }
            Event::Start(Tag::CodeBlock(k)) => {
                in_code += 1;
                Event::Start(Tag::CodeBlock(k))
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code = in_code.saturating_sub(1);
                Event::End(TagEnd::CodeBlock)
            }
            // A link written as HTML counts as a link too.
            Event::InlineHtml(tag) => {
                let t = tag.trim_start().to_ascii_lowercase();
                if t.starts_with("<a ") || t.starts_with("<a>") {
                    in_link += 1;
                } else if t.starts_with("</a") {
                    in_link = in_link.saturating_sub(1);
                }
                Event::InlineHtml(tag)
            }
            Event::Text(text) if in_link == 0 && in_code == 0 => return linked(text, mention),
            other => other,
        };
        vec![one]
    });
    let mut events: Vec<Event> = events.collect();
    anchor_headings(&mut events);
    let mut html = String::with_capacity(md.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    sanitize(&html)
}

/// The prefix of a heading's anchor: a heading never takes an id the page's own
/// elements use (`q`, `board-filter`), and a link's `#name` is read as `#h-name`.
pub const ANCHOR: &str = "h-";

/// A heading's anchor as GitHub makes it: lower case, letters, digits, `-` and `_`
/// kept, spaces as `-`, the rest dropped.
pub fn anchor(text: &str) -> String {
    text.trim()
        .chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A `#fragment` of a link as the site's anchors name it (see [`ANCHOR`]).
pub fn fragment(frag: &str) -> String {
    format!("#{ANCHOR}{}", anchor(frag))
}

/// Give each heading its anchor (`h-` and its text as GitHub makes it; `-1`, `-2` on
/// repeats), so that `#section` links and the site's own links land on it.
fn anchor_headings(events: &mut [Event]) {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading { .. }) = &events[i] {
            let mut text = String::new();
            let mut j = i + 1;
            while j < events.len() && !matches!(events[j], Event::End(TagEnd::Heading(_))) {
                if let Event::Text(t) | Event::Code(t) = &events[j] {
                    text.push_str(t);
                }
                j += 1;
            }
            let base = anchor(&text);
            let n = seen.entry(base.clone()).or_insert(0);
            let name = if *n == 0 { base } else { format!("{base}-{n}") };
            *n += 1;
            if let Event::Start(Tag::Heading { id, .. }) = &mut events[i] {
                *id = Some(CowStr::from(format!("{ANCHOR}{name}")));
            }
            i = j;
        }
        i += 1;
    }
}

/// `text` with each id-like word that `mention` knows made a link to its page.
fn linked<'e>(text: CowStr<'e>, mention: &dyn Fn(&str) -> Option<String>) -> Vec<Event<'e>> {
    let mut out = Vec::new();
    let mut from = 0;
    for (tok, _) in mention_candidates(&text) {
        let Some(href) = mention(tok) else { continue };
        // The words are slices of `text`: where each starts in it.
        let at = tok.as_ptr() as usize - text.as_ptr() as usize;
        if at < from {
            continue;
        }
        out.push(Event::Text(CowStr::from(text[from..at].to_string())));
        out.push(Event::Start(Tag::Link {
            link_type: LinkType::Inline,
            dest_url: CowStr::from(href),
            title: CowStr::from(""),
            id: CowStr::from(""),
        }));
        out.push(Event::Text(CowStr::from(tok.to_string())));
        out.push(Event::End(TagEnd::Link));
        from = at + tok.len();
    }
    if out.is_empty() {
        return vec![Event::Text(text)];
    }
    out.push(Event::Text(CowStr::from(text[from..].to_string())));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(md: &str) -> String {
        render(md, &|_, _| None, &|_| None)
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
        assert!(html.contains("<h1 id=\"h-t\">T</h1>"), "{html}");
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
            &|_| None,
        );
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("href=\"https://example.com/p.png\""), "{html}");
        assert!(html.contains("☑ done") && html.contains("☐ open"), "{html}");
        assert!(
            html.contains("href=\"ADR-1.html\"") && html.contains("href=\"B.html\""),
            "{html}"
        );
    }

    #[test]
    fn ids_in_prose_link_to_known_pages_but_not_in_code_or_links() {
        let known = |tok: &str| {
            tok.eq_ignore_ascii_case("TASK-12")
                .then(|| "../items/TASK-12.html".to_string())
        };
        let html = render(
            "See TASK-12, task-12 and TASK-13.\n\n`TASK-12` [TASK-12 here](https://example.com/x) \
             [[TASK-12]]\n\n```\nTASK-12\n```\n\n<b>TASK-12</b> <a href=\"javascript:x\">TASK-12</a>",
            &|_, _| None,
            &known,
        );
        let links = html.matches("href=\"../items/TASK-12.html\"").count();
        // Two in the first line, one in the bold text; none in code, in a link's text
        // or in a wikilink (which resolve leaves as written), none for TASK-13.
        assert_eq!(links, 3, "{html}");
        assert!(html.contains(">task-12</a>") && !html.contains("TASK-13</a>"), "{html}");
        assert!(
            html.contains("<code>TASK-12</code>") && html.contains("<pre><code>TASK-12"),
            "{html}"
        );
        assert!(!html.contains("javascript:"), "{html}");
    }

    #[test]
    fn headings_get_anchors_and_dead_relative_links_lose_their_link() {
        let html =
            plain("# A b\n\n## A b\n\n## q\n\n[up](#a-b) [gone](../x.png) ![shot](img/s.png) [web](https://e.x/y)");
        for want in [
            "<h1 id=\"h-a-b\">",
            "<h2 id=\"h-a-b-1\">",
            "<h2 id=\"h-q\">",
            "href=\"#h-a-b\"",
        ] {
            assert!(html.contains(want), "{want} not in {html}");
        }
        assert!(!html.contains("x.png") && !html.contains("s.png"), "{html}");
        assert!(html.contains(">gone<") || html.contains(" gone "), "{html}");
        assert!(html.contains("href=\"https://e.x/y\""), "{html}");
    }
}
