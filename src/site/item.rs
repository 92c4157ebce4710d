//! One page per document (`items/ID.html`): its Markdown rendered and sanitized, its
//! relations with their states as links and where each was written (file and line), and
//! the graph of its neighbourhood. [`key`] sums up everything a page shows, so that an
//! unchanged page is not rendered again.

use super::markdown;
use super::model::{Doc, Link, Site, blocking_pair};
use super::shell::{badge, entry, link, page, plan};
use super::svg::{self, GEdge, GNode, Style};
use crate::model::EdgeType;
use maud::{Markup, PreEscaped, html};
use std::collections::BTreeMap;

/// Most neighbours drawn in the local graph.
const MAX_DRAWN: usize = 40;

/// The page's relations: (outgoing?, link), outgoing first, each in edge order.
fn relations<'s, 'a>(site: &'s Site<'a>, id: &str) -> Vec<(bool, &'s Link<'a>)> {
    let out = site.out.get(id).into_iter().flatten().map(|l| (true, l));
    let inc = site.inc.get(id).into_iter().flatten().map(|l| (false, l));
    out.chain(inc).collect()
}

/// A digest of everything the page of `d` shows: its file's hash and the index settings
/// (for its sections), its edges with their file and line, and the id, title, type,
/// state and flags of it and its neighbours.
pub fn key(site: &Site, d: &Doc) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    let put = |h: &mut blake3::Hasher, s: &str| {
        h.update(s.as_bytes());
        h.update(&[0]);
    };
    h.update(d.digest.as_bytes());
    // The sections come from the file's bytes and the index settings.
    put(&mut h, &site.index.meta.config_digest);
    match &d.node.hash {
        Some(hash) => put(&mut h, hash),
        None => site.index.section_lines(&d.node.id).iter().for_each(|l| put(&mut h, l)),
    }
    for (outgoing, l) in relations(site, &d.node.id) {
        let e = l.edge;
        for s in [
            if outgoing { ">" } else { "<" },
            e.r#type.as_str(),
            e.origin.as_str(),
            &e.path,
        ] {
            put(&mut h, s);
        }
        h.update(&e.line.to_le_bytes());
        let other = if outgoing { l.target } else { l.source };
        if let Some(x) = site.docs.get(other) {
            h.update(x.digest.as_bytes());
        }
    }
    h.finalize()
}

/// The page of `d`.
pub fn render(site: &Site, d: &Doc) -> String {
    let rels = relations(site, &d.node.id);
    let sections = site.sections(&d.node.id);
    let resolve = |dest: &str, wiki: bool| target_page(site, d, &rels, dest, wiki);
    // An id in the prose links to its page when the document relates to it (the index
    // found the mention, or another edge, so it is a document of the index).
    let mention = |tok: &str| {
        rels.iter()
            .filter(|(out, _)| *out)
            .filter_map(|(_, l)| site.docs.get(l.target))
            .find(|t| t.node.id.eq_ignore_ascii_case(tok))
            .map(|t| format!("../{}", t.href))
    };
    let body_html = markdown::render(&markdown::source(&sections), &resolve, &mention);
    let parent = d.item.parent.as_deref().and_then(|p| site.docs.get(p));
    let body = html! {
        h1 { bdi.id { (d.node.id) } " " bdi { (d.item.title) } }
        p.meta {
            span.ctype { (d.kind_label()) } " " (badge(d))
            @if d.blocked { " " span.flag-blocked { "⊘ blocked" } }
            @if d.blocking > 0 { " " span.flag-blocker { "▲ holds up " (d.blocking) " open" } }
            @if let Some(p) = parent { " · parent " (link(p, "../")) }
            @if let Some(g) = site.graph_of(d) { " · " a.graphlink href={ "../" (g) } { "dependency graph" } }
            @if d.item.priority.is_some() || !d.plan.is_empty() { " · " (plan(d)) }
            @if let Some(u) = &d.plan.updated { " · " span.updated { "updated " bdi { (u) } } }
            " · " code.src dir="ltr" { (d.node.path) @if let Some(l) = d.node.line { ":" (l) } }
        }
        @if d.node.kind == crate::model::Kind::Adr {
            @let next = super::decisions::successors(site, d);
            @if !next.is_empty() {
                div.banner.superseded role="note" {
                    "Superseded by "
                    @for (i, n) in next.iter().enumerate() { @if i > 0 { ", " } (link(n, "../")) " " bdi.title { (n.item.title) } " " (badge(n)) }
                }
            }
            @let date = super::decisions::date(site, d);
            @if !date.is_empty() { p.meta.adrdate { "Decided " bdi { (date) } } }
        }
        section.body { (PreEscaped(body_html)) }
        (relations_table(site, &rels))
        h2 { "Neighbourhood" }
        (neighbourhood(site, d, &rels))
    };
    page(&d.node.id, "../", "", body)
}

/// The page a link in the body of `d` leads to, when it names one of the documents it
/// links to: by id or file name for a wikilink, by path (from the file, or from the
/// root with a leading `/`) for a Markdown link.
fn target_page(site: &Site, d: &Doc, rels: &[(bool, &Link)], dest: &str, wiki: bool) -> Option<String> {
    let targets = rels
        .iter()
        .filter(|(out, l)| *out && l.edge.r#type == EdgeType::LinksTo)
        .filter_map(|(_, l)| site.docs.get(l.target));
    let (dest, frag) = match dest.split_once('#') {
        Some((d, f)) => (d, markdown::fragment(f)),
        None => (dest, String::new()),
    };
    if dest.is_empty() || dest.contains(':') {
        return None;
    }
    // A link to its own file: its own page.
    if !wiki && normalize(&d.node.path, dest) == d.node.path {
        return Some(format!("../{}{frag}", d.href));
    }
    let wanted = if wiki {
        None
    } else {
        Some(normalize(&d.node.path, dest))
    };
    for t in targets {
        let p = &t.node.path;
        let stem = p.rsplit('/').next().unwrap_or(p);
        let hit = match &wanted {
            Some(w) => w == p,
            None => {
                t.node.id.eq_ignore_ascii_case(dest)
                    || stem.eq_ignore_ascii_case(dest)
                    || stem.strip_suffix(".md").is_some_and(|s| s.eq_ignore_ascii_case(dest))
                    || p == dest
            }
        };
        if hit {
            return Some(format!("../{}{frag}", t.href));
        }
    }
    None
}

/// `dest` read from the folder of `from` (or from the root, with a leading `/`), with
/// `.` and `..` taken out.
fn normalize(from: &str, dest: &str) -> String {
    let mut parts: Vec<&str> = match dest.strip_prefix('/') {
        Some(_) => Vec::new(),
        None => from.split('/').collect(),
    };
    if dest.starts_with('/') {
        // root-relative
    } else {
        parts.pop();
    }
    for seg in dest.trim_start_matches('/').split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

fn relations_table(site: &Site, rels: &[(bool, &Link)]) -> Markup {
    html! {
        h2 { "Relations (" (rels.len()) ")" }
        @if rels.is_empty() { p.none { "No relations." } }
        table.relations {
            @for (outgoing, l) in rels {
                @let other = if *outgoing { l.target } else { l.source };
                @if let Some(x) = site.docs.get(other) {
                    tr {
                        td.rel { @if *outgoing { (l.edge.r#type.as_str()) " →" } @else { "← " (l.edge.r#type.as_str()) } }
                        td { (entry(x, "../")) }
                        td.origin { (l.edge.origin.as_str()) }
                        td { code.src dir="ltr" { (l.edge.path) ":" (l.edge.line) } }
                    }
                }
            }
        }
    }
}

/// The document and its neighbours, laid out: parents above children, blockers above
/// what they block, other relations from source to target.
fn neighbourhood(site: &Site, d: &Doc, rels: &[(bool, &Link)]) -> Markup {
    let typed = |t: EdgeType| !matches!(t, EdgeType::Mentions | EdgeType::LinksTo);
    let mut idx: BTreeMap<&str, usize> = BTreeMap::from([(d.node.id.as_str(), 0)]);
    let mut nodes = vec![GNode {
        doc: d,
        focus: true,
        outside: false,
    }];
    let mut edges = Vec::new();
    let any_typed = rels.iter().any(|(_, l)| typed(l.edge.r#type));
    for (_, l) in rels.iter().filter(|(_, l)| !any_typed || typed(l.edge.r#type)) {
        let (s, t) = (l.source, l.target);
        for end in [s, t] {
            if !idx.contains_key(end)
                && nodes.len() <= MAX_DRAWN
                && let Some(x) = site.docs.get(end)
            {
                idx.insert(end, nodes.len());
                nodes.push(GNode::plain(x));
            }
        }
        let (Some(&a), Some(&b)) = (idx.get(s), idx.get(t)) else {
            continue;
        };
        let edge = match (l.edge.r#type, blocking_pair(s, t, l.edge.r#type)) {
            (EdgeType::Parent, _) => GEdge {
                from: b,
                to: a,
                style: Style::Parent,
            },
            (_, Some((_, blocker))) if blocker == s => GEdge {
                from: a,
                to: b,
                style: Style::Blocks,
            },
            (_, Some(_)) => GEdge {
                from: b,
                to: a,
                style: Style::Blocks,
            },
            (EdgeType::DecisionRef, _) => GEdge {
                from: b,
                to: a,
                style: Style::Other,
            },
            _ => GEdge {
                from: a,
                to: b,
                style: Style::Other,
            },
        };
        edges.push(edge);
    }
    svg::figure(&nodes, &edges, "../")
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn links_are_read_from_the_linking_file() {
        assert_eq!(normalize("decisions/ADR-1.md", "../items/a.md"), "items/a.md");
        assert_eq!(normalize("a/b/c.md", "./d.md"), "a/b/d.md");
        assert_eq!(normalize("a/b/c.md", "/x/y.md"), "x/y.md");
    }
}
