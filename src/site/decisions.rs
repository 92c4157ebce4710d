//! The decisions page (`decisions.html`): every ADR by date and state, and each chain
//! of supersedes edges drawn as a graph (older above the decision that replaces it).

use super::model::{Doc, Site};
use super::shell::{badge, link, page};
use super::svg::{self, GEdge, GNode, Style};
use crate::model::{EdgeType, Kind};
use maud::html;
use std::collections::BTreeMap;

/// The date of a decision: its `date` field (or `created`, `decided`, `accepted`), as
/// written; else a `Date:` line of its body (`**Date:** 2024-05-01`, `- Date: …`, as
/// adr-tools and MADR write it).
pub fn date(site: &Site, d: &Doc) -> String {
    if let Some(v) = ["date", "created", "decided", "accepted"]
        .iter()
        .find_map(|k| d.node.field_values(k).into_iter().next())
    {
        return v;
    }
    site.sections(&d.node.id)
        .iter()
        .filter_map(|s| s.text.as_deref())
        .flat_map(str::lines)
        .find_map(body_date)
        .unwrap_or_default()
}

/// The date a body line gives: `Date: X` with any bold, list marker or spaces around.
fn body_date(line: &str) -> Option<String> {
    let l = line.trim().trim_start_matches(['-', '*', '+', ' ']);
    let l = l.trim_start_matches('*').trim_start_matches('_');
    let rest = l
        .get(..5)
        .filter(|p| p.eq_ignore_ascii_case("date:"))
        .map(|_| &l[5..])?;
    let v = rest
        .trim()
        .trim_start_matches(['*', '_'])
        .trim()
        .trim_end_matches(['*', '_'])
        .trim();
    (!v.is_empty()).then(|| v.chars().take(40).collect())
}

/// What replaces `d`: the decisions that supersede it.
pub fn successors<'s, 'a>(site: &'s Site<'a>, d: &Doc) -> Vec<&'s Doc<'a>> {
    replacements(site, d)
        .into_iter()
        .filter(|(_, v)| *v == "superseded by")
        .map(|(x, _)| x)
        .collect()
}

/// The decisions page.
pub fn render(site: &Site) -> String {
    let mut adrs: Vec<(String, &Doc)> = site
        .order
        .iter()
        .filter_map(|id| site.docs.get(id))
        .filter(|d| d.node.kind == Kind::Adr)
        .map(|d| (date(site, d), d))
        .collect();
    // Newest first; undated last, by id.
    adrs.sort_by(|a, b| (a.0.is_empty(), std::cmp::Reverse(&a.0)).cmp(&(b.0.is_empty(), std::cmp::Reverse(&b.0))));
    let chains = chains(site, &adrs);
    let body = html! {
        h1 { "Decisions (" (adrs.len()) ")" }
        @if adrs.is_empty() { p.none { "No decision records." } }
        table.decisions {
            thead { tr { th { "date" } th { "id" } th { "title" } th { "state" } th { "supersedes / superseded by" } } }
            tbody {
                @for (date, d) in &adrs {
                    tr data-id=(d.node.id) {
                        td.date { (date) } td { (link(d, "")) } td.title dir="auto" { (d.item.title) } td { (badge(d)) }
                        td { @for (other, verb) in replacements(site, d) { span.rel { (verb) " " (link(other, "")) } " " } }
                    }
                }
            }
        }
        h2 { "Supersedes chains (" (chains.len()) ")" }
        @if chains.is_empty() { p.none { "No decision supersedes another." } }
        @else { (svg::legend("lines: a decision → the one that supersedes it")) }
        @for (nodes, edges) in &chains { (svg::figure(nodes, edges, "")) }
    };
    page("Decisions", "", "decisions.html", body)
}

/// What `d` supersedes and what supersedes it, each once.
fn replacements<'s, 'a>(site: &'s Site<'a>, d: &Doc) -> Vec<(&'s Doc<'a>, &'static str)> {
    let id = d.node.id.as_str();
    let mut out: Vec<(&str, &'static str)> = Vec::new();
    for l in site.links(id) {
        let (old, new) = match l.edge.r#type {
            EdgeType::Supersedes => (l.target, l.source),
            EdgeType::SupersededBy => (l.source, l.target),
            _ => continue,
        };
        let entry = if old == id {
            (new, "superseded by")
        } else {
            (old, "supersedes")
        };
        if !out.contains(&entry) {
            out.push(entry);
        }
    }
    out.into_iter()
        .filter_map(|(o, v)| site.docs.get(o).map(|d| (d, v)))
        .collect()
}

type Chain<'s, 'a> = (Vec<GNode<'s, 'a>>, Vec<GEdge>);

/// The connected groups of decisions along supersedes edges, each with its edges (older
/// above newer).
fn chains<'s, 'a>(site: &'s Site<'a>, adrs: &[(String, &'s Doc<'a>)]) -> Vec<Chain<'s, 'a>> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for (_, d) in adrs {
        for (other, verb) in replacements(site, d) {
            if verb == "supersedes" {
                pairs.push((other.node.id.as_str(), d.node.id.as_str()));
            }
        }
    }
    // Union-find over the ids in the pairs.
    let ids: Vec<&str> = {
        let mut v: Vec<&str> = pairs.iter().flat_map(|(a, b)| [*a, *b]).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let at: BTreeMap<&str, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let mut root: Vec<usize> = (0..ids.len()).collect();
    fn find(r: &mut [usize], mut x: usize) -> usize {
        while r[x] != x {
            r[x] = r[r[x]];
            x = r[x];
        }
        x
    }
    for (a, b) in &pairs {
        let (x, y) = (find(&mut root, at[a]), find(&mut root, at[b]));
        root[x.max(y)] = x.min(y);
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..ids.len() {
        let r = find(&mut root, i);
        groups.entry(r).or_default().push(i);
    }
    groups
        .into_values()
        .map(|members| {
            let local: BTreeMap<usize, usize> = members.iter().enumerate().map(|(k, &i)| (i, k)).collect();
            let nodes = members
                .iter()
                .filter_map(|&i| site.docs.get(ids[i]))
                .map(GNode::plain)
                .collect();
            let edges = pairs
                .iter()
                .filter_map(|(a, b)| Some((*local.get(&at[a])?, *local.get(&at[b])?)))
                .map(|(from, to)| GEdge {
                    from,
                    to,
                    style: Style::Other,
                })
                .collect();
            (nodes, edges)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::body_date;

    #[test]
    fn a_date_line_of_the_body_is_read() {
        assert_eq!(body_date("**Date:** 2024-05-01").as_deref(), Some("2024-05-01"));
        assert_eq!(body_date("- Date: 2023-01-02").as_deref(), Some("2023-01-02"));
        assert_eq!(body_date("Date: __2022-12-31__").as_deref(), Some("2022-12-31"));
        assert_eq!(body_date("Dated: x"), None);
        assert_eq!(body_date("Date:"), None);
    }
}
