//! A graph of documents drawn as SVG: laid out in layers (`layout.rs`), each node a box
//! coloured by its state group that links to its page and shows its title on hover;
//! blocked items and open blockers marked; parent, blocking and other edges drawn apart.

use super::layout::{self, NODE_H, NODE_W};
use super::model::Doc;
use super::shell::isolated;
use maud::{Markup, html};
use std::collections::HashSet;
use std::fmt::Write as _;

/// A node to draw.
pub struct GNode<'s, 'a> {
    /// The document.
    pub doc: &'s Doc<'a>,
    /// The page the graph is about (drawn bold).
    pub focus: bool,
    /// Outside the drawn subtree (a blocker from elsewhere): drawn dashed.
    pub outside: bool,
}

impl<'s, 'a> GNode<'s, 'a> {
    /// A document drawn plain: neither the page's own nor from outside.
    pub fn plain(doc: &'s Doc<'a>) -> GNode<'s, 'a> {
        GNode {
            doc,
            focus: false,
            outside: false,
        }
    }
}

/// A graph in its box on a page (scrolled when wider than the page).
pub fn figure(nodes: &[GNode], edges: &[GEdge], up: &str) -> Markup {
    html! { div.graphbox { (draw(nodes, edges, up)) } }
}

/// The key above a graph: the boxes' colours by state group, then what its marks and
/// lines mean (`lines`).
pub fn legend(lines: &str) -> Markup {
    html! {
        p.legend {
            span.key.g-open { "open" } span.key.g-in_progress { "in progress" } span.key.g-blocked { "blocked" }
            span.key.g-done { "done" } span.key.g-dropped { "dropped" }
            " · " (lines)
        }
    }
}

/// How an edge is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Parent above child.
    Parent,
    /// Blocker above blocked.
    Blocks,
    /// Any other relation, source above target.
    Other,
}

/// An edge to draw: `from` is laid out above `to`.
pub struct GEdge {
    /// Upper node (index into the nodes).
    pub from: usize,
    /// Lower node.
    pub to: usize,
    /// How it looks.
    pub style: Style,
}

/// Shorten `s` to `max` characters with an ellipsis.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
    t.push('…');
    t
}

/// Characters of an id on one line of a box.
const ID_LINE: usize = 26;

/// An id as a box shows it: whole on one line, or on two (in a smaller font); an id
/// longer than two lines keeps its end (what tells `001-agenda-pii-handling/T012`
/// from its siblings), after an ellipsis.
pub fn id_lines(id: &str) -> Vec<String> {
    let chars: Vec<char> = id.chars().collect();
    if chars.len() <= ID_LINE - 4 {
        return vec![id.to_string()];
    }
    let kept: Vec<char> = if chars.len() > 2 * ID_LINE {
        std::iter::once('…')
            .chain(chars[chars.len() - (2 * ID_LINE - 1)..].iter().copied())
            .collect()
    } else {
        chars
    };
    kept.chunks(ID_LINE).map(|c| c.iter().collect()).collect()
}

/// The SVG of `nodes` and `edges`, links relative to `up` (`""` from the site's root,
/// `"../"` from a page one folder down).
fn draw(nodes: &[GNode], edges: &[GEdge], up: &str) -> Markup {
    let pairs: Vec<(usize, usize)> = edges.iter().map(|e| (e.from, e.to)).collect();
    let lay = layout::layered(nodes.len(), &pairs);
    let (w, h) = (lay.width.ceil(), lay.height.ceil());
    html! {
        svg.graph xmlns="http://www.w3.org/2000/svg" width=(w) height=(h) viewBox={"0 0 " (w) " " (h)} role="img" {
            @for (e, d) in edges.iter().zip(paths(edges, &lay)) {
                @if let (Some(a), Some(b)) = (lay.pos.get(e.from), lay.pos.get(e.to)) {
                    path class=(edge_class(e.style)) d=(d) {}
                    polygon class=(edge_class(e.style)) points=(arrow(*a, *b)) {}
                }
            }
            @for (i, n) in nodes.iter().enumerate() {
                @let (x, y) = lay.pos[i];
                @let d = n.doc;
                a.node href={ (up) (d.href) } data-id=(d.node.id) {
                    title { (isolated(&d.node.id)) " — " (isolated(&d.item.title)) " (" (d.state()) ")" @if d.blocked { " · blocked" } @if d.blocking > 0 { " · blocks " (d.blocking) " open" } }
                    rect x=(x) y=(y) width=(NODE_W) height=(NODE_H) rx="6" class=(node_class(n)) {}
                    @let lines = id_lines(&d.node.id);
                    @let two = lines.len() > 1;
                    text class=(if two { "nid long" } else { "nid" }) x=(x + 8.0) y=(y + if two { 14.0 } else { 18.0 }) {
                        @for (k, l) in lines.iter().enumerate() {
                            tspan x=(x + 8.0) dy=(if k == 0 { "0" } else { "12" }) { (isolated(l)) }
                        }
                        @if d.blocked { tspan.mark-blocked { " ⊘" } }
                        @if d.blocking > 0 { tspan.mark-blocker { " ▲" (d.blocking) } }
                    }
                    text.ntitle x=(x + 8.0) y=(y + if two { 40.0 } else { 36.0 }) { (isolated(&truncate(&d.item.title, 25))) }
                }
            }
        }
    }
}

fn edge_class(s: Style) -> &'static str {
    match s {
        Style::Parent => "e e-parent",
        Style::Blocks => "e e-blocks",
        Style::Other => "e e-other",
    }
}

fn node_class(n: &GNode) -> String {
    let d = n.doc;
    let mut c = format!("g-{}", d.item.group.as_str());
    for (on, name) in [
        (n.focus, " focus"),
        (n.outside, " outside"),
        (d.blocked, " blocked"),
        (d.blocking > 0, " blocker"),
    ] {
        if on {
            c.push_str(name);
        }
    }
    c
}

/// The end points of an edge from box `a` to box `b`: bottom to top when `b` is lower,
/// top to bottom when higher, side to side on one row.
fn ends(a: (f64, f64), b: (f64, f64)) -> ((f64, f64), (f64, f64)) {
    let (ax, bx) = (a.0 + NODE_W / 2.0, b.0 + NODE_W / 2.0);
    if b.1 > a.1 {
        ((ax, a.1 + NODE_H), (bx, b.1))
    } else if b.1 < a.1 {
        ((ax, a.1), (bx, b.1 + NODE_H))
    } else if b.0 > a.0 {
        ((a.0 + NODE_W, a.1 + NODE_H / 2.0), (b.0, b.1 + NODE_H / 2.0))
    } else {
        ((a.0, a.1 + NODE_H / 2.0), (b.0 + NODE_W, b.1 + NODE_H / 2.0))
    }
}

/// Each edge's path. Edges from one node share the dummy slots of their trunk: a
/// stretch drawn already in the same style is not drawn again (a parent of sixty
/// tasks wrapped onto eight rows would otherwise repeat its trunk sixty times).
fn paths(edges: &[GEdge], lay: &layout::Layout) -> Vec<String> {
    let mut drawn: HashSet<(u8, String)> = HashSet::new();
    edges
        .iter()
        .zip(&lay.routes)
        .map(|(e, route)| match (lay.pos.get(e.from), lay.pos.get(e.to)) {
            (Some(a), Some(b)) => curve(*a, *b, route, &mut |piece| {
                drawn.insert((e.style as u8, piece.to_string()))
            }),
            _ => String::new(),
        })
        .collect()
}

/// The path of an edge from box `a` to box `b` through `route` (the dummy slots it
/// runs down): straight down a slot, a curve with vertical ends between rows. A
/// stretch `fresh` says was drawn before is left out (the path moves past it).
fn curve(a: (f64, f64), b: (f64, f64), route: &[(f64, f64)], fresh: &mut dyn FnMut(&str) -> bool) -> String {
    let ((x1, y1), (x2, y2)) = ends(a, b);
    let mut s = String::new();
    if y1 == y2 {
        let _ = write!(s, "M{x1:.1} {y1:.1} L{x2:.1} {y2:.1}");
        return s;
    }
    let (mut from, mut at) = ((x1, y1), None);
    let last = route.len();
    for (i, &to) in route.iter().chain([(x2, y2)].iter()).enumerate() {
        let ((px, py), (qx, qy)) = (from, to);
        let mut piece = String::new();
        if px == qx {
            let _ = write!(piece, " L{qx:.1} {qy:.1}");
        } else {
            let my = (py + qy) / 2.0;
            let _ = write!(piece, " C{px:.1} {my:.1} {qx:.1} {my:.1} {qx:.1} {qy:.1}");
        }
        // The last stretch, into the box, is the edge's own.
        let start = format!("M{px:.1} {py:.1}");
        if i == last || fresh(&format!("{start}{piece}")) {
            if at != Some(from) {
                s.push_str(&start);
            }
            s.push_str(&piece);
            at = Some(to);
        }
        from = to;
    }
    s
}

/// A small arrowhead at the edge's end, pointing along its last stretch.
fn arrow(a: (f64, f64), b: (f64, f64)) -> String {
    let (_, (x, y)) = ends(a, b);
    let ((x1, y1), _) = ends(a, b);
    let (dx, dy): (f64, f64) = if y1 == y {
        ((x - x1).signum(), 0.0)
    } else {
        (0.0, (y - y1).signum())
    };
    let (bx, by) = (x - 7.0 * dx, y - 7.0 * dy);
    let (px, py) = (-dy * 4.0, dx * 4.0);
    format!(
        "{x:.1},{y:.1} {:.1},{:.1} {:.1},{:.1}",
        bx + px,
        by + py,
        bx - px,
        by - py
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trunk_shared_by_edges_is_drawn_once() {
        // Seventeen children: rows of 8, 8 and 1 under their parent; the edges to the
        // nine below the first row of children all run down one slot in it.
        let edges: Vec<GEdge> = (1..18)
            .map(|c| GEdge {
                from: 0,
                to: c,
                style: Style::Parent,
            })
            .collect();
        let pairs: Vec<(usize, usize)> = edges.iter().map(|e| (e.from, e.to)).collect();
        let lay = layout::layered(18, &pairs);
        let through = lay.routes.iter().filter(|r| !r.is_empty()).count();
        assert_eq!(through, 9, "{:?}", lay.routes);
        let slot = lay.routes.iter().find(|r| !r.is_empty()).unwrap()[1];
        let down = format!(" L{:.1} {:.1}", slot.0, slot.1);
        let drawn = paths(&edges, &lay);
        assert_eq!(drawn.iter().filter(|p| p.contains(&down)).count(), 1, "{drawn:?}");
        // Every edge still ends at its box, each path starting with a move.
        assert!(drawn.iter().all(|p| p.starts_with('M') && p.len() > 10), "{drawn:?}");
    }

    #[test]
    fn ids_are_shown_whole_or_by_their_end() {
        assert_eq!(id_lines("QRY-TSK-0001"), ["QRY-TSK-0001"]);
        let spec = "001-agenda-pii-handling/T012";
        assert_eq!(id_lines(spec).concat(), spec);
        assert_eq!(id_lines(spec).len(), 2);
        let long = format!("{}-T099", "x".repeat(80));
        let lines = id_lines(&long);
        assert_eq!(lines.len(), 2);
        assert!(
            lines.concat().ends_with("-T099") && lines[0].starts_with('…'),
            "{lines:?}"
        );
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate("abc", 5), "abc");
        assert_eq!(truncate("äöüäöü", 4), "äöü…");
    }
}
