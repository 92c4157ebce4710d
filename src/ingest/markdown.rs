//! Markdown bodies: split into sections at headings and extract body links (wikilinks and
//! Markdown links to `.md` files) with pulldown-cmark. One function builds the parser
//! options so every caller sees the same dialect.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

/// The CommonMark extensions mdgraph understands.
pub fn cmark_options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_WIKILINKS
}

/// One section of a body: the text under a heading up to the next heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Heading text ("" for text before the first heading).
    pub heading: String,
    /// 1–6, 0 for text before the first heading.
    pub level: u8,
    /// 1-based line in the file.
    pub line: u32,
    /// 1-based line where `text` starts.
    pub text_line: u32,
    /// The Markdown under the heading, trimmed, without HTML comments (Backlog.md's
    /// `<!-- SECTION:…:BEGIN -->` markers among them).
    pub text: String,
    /// Tokens of the section as a pack prints it (set at index time).
    pub tokens: u32,
}

/// A link found in the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// `[[target]]` (true) or `[text](target)` (false).
    pub wiki: bool,
    /// The destination as written (anchor removed).
    pub target: String,
    /// 1-based line in the file.
    pub line: u32,
    /// The text of a `[text](target)` link (empty for a wikilink or another form).
    pub text: String,
}

/// Sections and links of a body.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Body {
    /// Sections in order.
    pub sections: Vec<Section>,
    /// Links in order.
    pub links: Vec<Link>,
    /// How much of the body is navigation.
    pub nav: NavStats,
}

/// How much of a body is navigation (links and queries rather than prose), for the
/// navigation-page rule in `parse`.
///
/// Counted are the non-empty lines outside code blocks that are not headings, table
/// separator rows or thematic breaks; each code block counts as one line. A *link line*
/// is a list item or table row holding a link (a wikilink or a Markdown link to a
/// local `.md` file) and at most [`NAV_LINE_WORDS`] words besides its links, or any line
/// that is links and at most 3 other words. A query block (a fenced block in
/// `dataview`, `dataviewjs`, `query` or `tasks`: Obsidian lists computed at view time)
/// counts as a link line.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct NavStats {
    /// Lines counted.
    pub lines: u32,
    /// Link lines and query blocks among them.
    pub nav_lines: u32,
    /// Links on the link lines.
    pub links: u32,
    /// Query blocks.
    pub queries: u32,
}

/// Most words besides its links a list item or table row may have to be a link line: room
/// for a title after the link (`- [EIP-2780](eip-2780.md): Reduce intrinsic transaction
/// gas`), not for a sentence.
pub const NAV_LINE_WORDS: usize = 10;

/// Languages of fenced blocks that Obsidian plugins replace by a computed list.
const QUERY_LANGUAGES: [&str; 4] = ["dataview", "dataviewjs", "query", "tasks"];

/// Byte offset → 1-based line, for one text.
struct Lines {
    starts: Vec<usize>,
    first: u32,
}

impl Lines {
    fn new(text: &str, first: u32) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { starts, first }
    }
    fn line(&self, offset: usize) -> u32 {
        let idx = self.starts.partition_point(|&s| s <= offset);
        idx as u32 - 1 + self.first
    }
}

fn level_num(l: HeadingLevel) -> u8 {
    match l {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Parse a body whose first line is line `first_line` of the file.
pub fn parse_body(body: &str, first_line: u32) -> Body {
    let lines = Lines::new(body, first_line);
    let mut out = Body::default();
    // (heading, level, line, body start offset)
    let mut current: (String, u8, u32, usize) = (String::new(), 0, 0, 0);
    let mut in_heading: Option<(u8, usize)> = None;
    let mut heading_text = String::new();
    let mut link_depth = 0usize;
    // For the navigation count: byte ranges of code blocks (and whether each is a query),
    // of headings, and of the counted links.
    let mut blocks: Vec<(std::ops::Range<usize>, bool)> = Vec::new();
    let mut headings: Vec<std::ops::Range<usize>> = Vec::new();
    let mut link_spans: Vec<std::ops::Range<usize>> = Vec::new();
    let comments = html_comments(body);

    let close = |out: &mut Body, cur: &(String, u8, u32, usize), end: usize| {
        let start = cur.3.min(end);
        let kept = without_comments(body, start..end, &comments);
        let text = kept.text.trim();
        let text_line = lines.line(kept.first_kept);
        if cur.1 == 0 && text.is_empty() {
            // No text before the first heading.
            return;
        }
        let line = if cur.1 == 0 { text_line } else { cur.2 };
        out.sections.push(Section {
            heading: cur.0.clone(),
            level: cur.1,
            line,
            text_line,
            text: text.to_string(),
            tokens: 0,
        });
    };

    for (event, range) in Parser::new_ext(body, cmark_options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let query = match kind {
                    CodeBlockKind::Fenced(info) => {
                        let lang = info.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
                        QUERY_LANGUAGES.contains(&lang.as_str())
                    }
                    CodeBlockKind::Indented => false,
                };
                blocks.push((range.clone(), query));
            }
            Event::Start(Tag::Heading { level, .. }) => {
                headings.push(range.clone());
                close(&mut out, &current, range.start);
                in_heading = Some((level_num(level), range.start));
                heading_text.clear();
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, start)) = in_heading.take() {
                    let text = heading_text.split_whitespace().collect::<Vec<_>>().join(" ");
                    current = (text, level, lines.line(start), range.end);
                }
            }
            Event::Text(t) | Event::Code(t) if in_heading.is_some() => heading_text.push_str(&t),
            Event::SoftBreak | Event::HardBreak if in_heading.is_some() => heading_text.push(' '),
            Event::Start(Tag::Link {
                link_type, dest_url, ..
            }) => {
                link_depth += 1;
                if link_depth > 1 {
                    continue;
                }
                let wiki = matches!(link_type, LinkType::WikiLink { .. });
                let dest = dest_url.split('#').next().unwrap_or("").trim();
                if dest.is_empty() {
                    continue;
                }
                if !wiki && !is_local_markdown(dest) {
                    continue;
                }
                out.links.push(Link {
                    wiki,
                    target: dest.to_string(),
                    line: lines.line(range.start),
                    text: if wiki {
                        String::new()
                    } else {
                        inline_text(&body[range.clone()])
                    },
                });
                link_spans.push(range.clone());
            }
            Event::End(TagEnd::Link) => link_depth = link_depth.saturating_sub(1),
            _ => {}
        }
    }
    if let Some((level, start)) = in_heading {
        // Unterminated heading at end of input (cannot normally happen): keep it.
        current = (heading_text.trim().to_string(), level, lines.line(start), body.len());
    }
    close(&mut out, &current, body.len());
    out.nav = nav_stats(body, &blocks, &headings, &link_spans);
    out
}

/// Byte ranges of the HTML comments of a body (`<!-- … -->` in HTML blocks and inline
/// HTML, never in code), in order.
fn html_comments(body: &str) -> Vec<std::ops::Range<usize>> {
    if !body.contains("<!--") {
        return Vec::new();
    }
    let mut html: Vec<std::ops::Range<usize>> = Vec::new();
    for (event, range) in Parser::new_ext(body, cmark_options()).into_offset_iter() {
        if let Event::Html(_) | Event::InlineHtml(_) = event {
            match html.last_mut() {
                Some(last) if last.end >= range.start => last.end = last.end.max(range.end),
                _ => html.push(range),
            }
        }
    }
    let mut out = Vec::new();
    for r in html {
        let mut at = r.start;
        while let Some(open) = body[at..r.end].find("<!--") {
            let from = at + open;
            let end = match body[from + 4..r.end].find("-->") {
                Some(close) => from + 4 + close + 3,
                None => r.end,
            };
            out.push(from..end);
            at = end;
        }
    }
    out
}

/// A section's text with its HTML comments cut out.
struct Kept {
    text: String,
    /// Offset of the first byte kept that is not whitespace (the end when none is).
    first_kept: usize,
}

/// The text of `range` without the comments in it; a line that held only comments (and
/// whitespace) goes with them.
fn without_comments(body: &str, range: std::ops::Range<usize>, comments: &[std::ops::Range<usize>]) -> Kept {
    let raw = &body[range.clone()];
    let inside: Vec<&std::ops::Range<usize>> = comments
        .iter()
        .filter(|c| c.start < range.end && c.end > range.start)
        .collect();
    if inside.is_empty() {
        return Kept {
            text: raw.to_string(),
            first_kept: range.start + (raw.len() - raw.trim_start().len()),
        };
    }
    let mut text = String::with_capacity(raw.len());
    let mut first = None;
    let mut at = range.start;
    for line in raw.split_inclusive('\n') {
        let (ls, le) = (at, at + line.len());
        at = le;
        let mut kept = String::with_capacity(line.len());
        let mut pos = ls;
        let mut cut = false;
        for c in inside.iter().filter(|c| c.start < le && c.end > ls) {
            if c.start > pos {
                kept.push_str(&body[pos..c.start]);
            }
            pos = pos.max(c.end.min(le));
            cut = true;
        }
        if pos < le {
            kept.push_str(&body[pos..le]);
        }
        if cut && kept.trim().is_empty() {
            continue;
        }
        if first.is_none() && !kept.trim().is_empty() {
            // The first kept non-blank byte of this line.
            let lead = kept.len() - kept.trim_start().len();
            first = Some(if cut { ls } else { ls + lead });
        }
        text.push_str(&kept);
    }
    Kept {
        text,
        first_kept: first.unwrap_or(range.end),
    }
}

/// Count the lines of a body as [`NavStats`] says, from the byte ranges the parser
/// reported (all in order).
fn nav_stats(
    body: &str,
    blocks: &[(std::ops::Range<usize>, bool)],
    headings: &[std::ops::Range<usize>],
    links: &[std::ops::Range<usize>],
) -> NavStats {
    let mut st = NavStats::default();
    for (_, query) in blocks {
        st.lines += 1;
        if *query {
            st.nav_lines += 1;
            st.queries += 1;
        }
    }
    // Lines, blocks, headings and links are all in order: one cursor each.
    let (mut bi, mut hi, mut li) = (0, 0, 0);
    let mut start = 0;
    for line in body.split_inclusive('\n') {
        let at = start;
        start += line.len();
        let end = start;
        let text = line.trim();
        let first = at + (line.len() - line.trim_start().len());
        while blocks.get(bi).is_some_and(|(r, _)| r.end <= first) {
            bi += 1;
        }
        while headings.get(hi).is_some_and(|r| r.end <= first) {
            hi += 1;
        }
        while links.get(li).is_some_and(|r| r.end <= at) {
            li += 1;
        }
        let in_block = blocks.get(bi).is_some_and(|(r, _)| r.contains(&first));
        let in_heading = headings.get(hi).is_some_and(|r| r.contains(&first));
        if text.is_empty() || in_block || in_heading || is_rule_or_separator(text) {
            continue;
        }
        st.lines += 1;
        let on_line: Vec<&std::ops::Range<usize>> = links[li.min(links.len())..]
            .iter()
            .take_while(|r| r.start < end)
            .collect();
        if on_line.is_empty() {
            continue;
        }
        // Words outside the links (the list marker and table pipes are not words).
        let mut rest = String::with_capacity(line.len());
        let mut pos = at;
        for r in &on_line {
            if r.start > pos {
                rest.push_str(body.get(pos..r.start).unwrap_or(""));
            }
            rest.push(' ');
            pos = pos.max(r.end);
        }
        if pos < end {
            rest.push_str(body.get(pos..end).unwrap_or(""));
        }
        let words = rest
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .count();
        let listed = text.starts_with('|') || list_marker(text);
        if words <= 3 || (listed && words <= NAV_LINE_WORDS) {
            st.nav_lines += 1;
            st.links += on_line.len() as u32;
        }
    }
    st
}

/// `- `, `* `, `+ `, `1. `, `1) ` at the start of a trimmed line.
fn list_marker(text: &str) -> bool {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &text.as_bytes()[digits..];
    matches!(
        (digits, rest),
        (0, [b'-' | b'*' | b'+', b' ' | b'\t', ..]) | (1..=9, [b'.' | b')', b' ' | b'\t', ..])
    )
}

/// A thematic break (`---`, `***`) or a table separator row (`|---|:--:|`).
fn is_rule_or_separator(text: &str) -> bool {
    text.contains(['-', '*', '_'])
        && text
            .chars()
            .all(|c| matches!(c, '-' | '*' | '_' | '|' | ':' | ' ' | '\t'))
}

/// A link destination that names a local Markdown file (no scheme, `.md`/`.markdown`,
/// optional `?query`).
fn is_local_markdown(dest: &str) -> bool {
    if dest.contains("://") || dest.starts_with("mailto:") || dest.starts_with("data:") {
        return false;
    }
    let path = dest.split('?').next().unwrap_or("").to_ascii_lowercase();
    path.ends_with(".md") || path.ends_with(".markdown")
}

/// Decode `%XX` escapes in a link destination (`my%20file.md`); invalid escapes are kept.
pub fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// The text of an inline link written `[text](target)`, trimmed; empty for any other
/// form.
fn inline_text(source: &str) -> String {
    let Some(rest) = source.strip_prefix('[') else {
        return String::new();
    };
    match rest.rfind("](") {
        Some(end) => rest[..end].trim().to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_with_lines() {
        let body = "intro text\n\n# Context\nWhy.\n\n## Detail\nMore\n# Goal\nG\n";
        let b = parse_body(body, 5);
        let got: Vec<(&str, u8, u32, u32, &str)> = b
            .sections
            .iter()
            .map(|s| (s.heading.as_str(), s.level, s.line, s.text_line, s.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("", 0, 5, 5, "intro text"),
                ("Context", 1, 7, 8, "Why."),
                ("Detail", 2, 10, 11, "More"),
                ("Goal", 1, 12, 13, "G")
            ]
        );
    }

    #[test]
    fn links_wiki_and_markdown() {
        let body = "See [[ADR-0006|the CRDT decision]] and [x](../a/B_c.md#h) and [web](https://x.y/a.md)\n\n![img](p.png) [[Foo]]\n";
        let b = parse_body(body, 1);
        let got: Vec<(bool, &str, u32)> = b.links.iter().map(|l| (l.wiki, l.target.as_str(), l.line)).collect();
        assert_eq!(
            got,
            vec![(true, "ADR-0006", 1), (false, "../a/B_c.md", 1), (true, "Foo", 3)]
        );
    }

    #[test]
    fn links_in_code_are_ignored() {
        let b = parse_body("```\n[[A-1]]\n```\n`[[B-2]]`\n", 1);
        assert!(b.links.is_empty());
    }

    #[test]
    fn navigation_lines_are_counted() {
        let body = "# Index\n\nIntro sentence about the backlog and how it is organised.\n\n\
                    - [A](a.md): first\n* [[B-1]]\n1. [C](c.md) a title of a few words\n\
                    - We chose [D](d.md) because resumable uploads on flaky networks need offsets on the server.\n\
                    | [E](e.md) | Open |\n|---|---|\n[F](f.md)\n\n---\n\n\
                    ```dataview\nLIST FROM \"items\"\n```\n\n```rust\n[G](g.md)\n```\n";
        let st = parse_body(body, 1).nav;
        // Counted: intro, 3 list links, the prose list item, the table row, the bare link,
        // and the two code blocks; not the heading, the separator row or the rule.
        assert_eq!(
            st,
            NavStats {
                lines: 9,
                nav_lines: 6,
                links: 5,
                queries: 1
            }
        );
    }

    #[test]
    fn html_comments_are_not_text() {
        let body = "## Description\n\n<!-- SECTION:DESCRIPTION:BEGIN -->\nParse C sources.\n<!-- SECTION:DESCRIPTION:END -->\n\n\
                    ## Notes\nKeep <!-- inline --> this.\n<!--\nmulti\nline\n-->\nEnd.\n```\n<!-- in code -->\n```\n";
        let b = parse_body(body, 1);
        let got: Vec<(&str, u32, &str)> = b
            .sections
            .iter()
            .map(|s| (s.heading.as_str(), s.text_line, s.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("Description", 4, "Parse C sources."),
                ("Notes", 8, "Keep  this.\nEnd.\n```\n<!-- in code -->\n```")
            ]
        );
    }

    #[test]
    fn percent() {
        assert_eq!(percent_decode("a%20b.md"), "a b.md");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
    }
}
