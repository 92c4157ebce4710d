//! A layered layout of a small directed graph, in the steps of Sugiyama's method: break
//! cycles (a depth-first search turns back edges around), give each node the layer of
//! its longest path from a source, order each layer by the barycentre of its neighbours
//! in sweeps down and up (fewer crossings), then place the layers as rows. A layer wider
//! than [`MAX_ROW`] nodes wraps onto several rows, so a feature with sixty tasks stays
//! readable. An edge that spans more than one row goes through a narrow dummy slot in
//! each row between its ends (edges from one node share them, a trunk), so that no
//! edge crosses a box: between two rows it stays in the gap, within a row it runs
//! down its slot.

/// Width of a node's box.
pub const NODE_W: f64 = 172.0;
/// Height of a node's box.
pub const NODE_H: f64 = 46.0;
const GAP_X: f64 = 22.0;
const GAP_Y: f64 = 54.0;
/// Most nodes in one row.
pub const MAX_ROW: usize = 8;
/// Margin around the drawing.
pub const MARGIN: f64 = 12.0;
/// Width of a dummy slot an edge runs down through a row.
const DUMMY_W: f64 = 12.0;

/// Most dummy slots a graph of `n` nodes gets.
const fn most_dummies(n: usize) -> usize {
    3 * n + 24
}

/// Where each node's box goes (its top-left corner) and the drawing's size.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Top-left corner of each node's box, by node index.
    pub pos: Vec<(f64, f64)>,
    /// Width of the drawing.
    pub width: f64,
    /// Height of the drawing.
    pub height: f64,
    /// For each edge given, the points it runs through between its ends, from its
    /// `from` end: the top and bottom of its dummy slot in each row it crosses.
    pub routes: Vec<Vec<(f64, f64)>>,
}

/// Lay out `n` nodes with `edges` (from, to): `from` goes above `to` unless that would
/// close a cycle. Deterministic: the same input gives the same layout.
pub fn layered(n: usize, edges: &[(usize, usize)]) -> Layout {
    let dag = acyclic(n, edges);
    let layer = longest_path(n, &dag);
    let depth = layer.iter().copied().max().map_or(0, |m| m + 1);
    let mut layers: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for (v, &l) in layer.iter().enumerate() {
        layers[l].push(v);
    }
    order(&mut layers, n, &dag);
    let rows: Vec<Vec<usize>> = layers
        .iter()
        .flat_map(|l| l.chunks(MAX_ROW).map(<[usize]>::to_vec))
        .collect();
    let plain: Vec<Vec<Slot>> = rows
        .iter()
        .map(|r| r.iter().map(|&v| Slot::Node(v)).collect())
        .collect();
    let first = place(n, &plain, 0);
    let mut row_of = vec![0usize; n];
    for (ri, r) in rows.iter().enumerate() {
        for &v in r {
            row_of[v] = ri;
        }
    }
    // The dummies: one per (upper node, row crossed), placed in the row where the
    // straight line from its upper node to its first lower node crosses it.
    let mut dummies: Vec<(usize, usize)> = Vec::new();
    let mut dummy_at: std::collections::HashMap<(usize, usize), usize> = std::collections::HashMap::new();
    let mut keyed: Vec<Vec<(f64, Slot)>> = rows
        .iter()
        .map(|r| r.iter().map(|&v| (first.pos[v].0, Slot::Node(v))).collect())
        .collect();
    let spans = |&(a, b): &(usize, usize)| -> Option<(usize, usize)> {
        let (a, b) = (a.min(n), b.min(n));
        if a == n || b == n || row_of[a] == row_of[b] {
            return None;
        }
        Some(if row_of[a] < row_of[b] { (a, b) } else { (b, a) })
    };
    // A graph that would need more dummies than [`most_dummies`] allows (thousands of
    // boxes over hundreds of rows) keeps its long edges as plain curves: its slots
    // would make it many times wider and its page many megabytes.
    let needed: std::collections::HashSet<(usize, usize)> = edges
        .iter()
        .filter_map(spans)
        .flat_map(|(u, w)| (row_of[u] + 1..row_of[w]).map(move |r| (u, r)))
        .collect();
    let routed = needed.len() <= most_dummies(n);
    for (u, w) in edges.iter().filter_map(spans).filter(|_| routed) {
        let rows_crossed = keyed.iter_mut().enumerate().take(row_of[w]).skip(row_of[u] + 1);
        for (r, row) in rows_crossed {
            if dummy_at.contains_key(&(u, r)) {
                continue;
            }
            dummy_at.insert((u, r), dummies.len());
            let t = (r - row_of[u]) as f64 / (row_of[w] - row_of[u]) as f64;
            let x = first.pos[u].0 + t * (first.pos[w].0 - first.pos[u].0);
            row.push((x, Slot::Dummy(dummies.len())));
            dummies.push((u, r));
        }
    }
    let slots: Vec<Vec<Slot>> = keyed
        .into_iter()
        .map(|mut r| {
            r.sort_by(|a, b| a.0.total_cmp(&b.0));
            r.into_iter().map(|(_, s)| s).collect()
        })
        .collect();
    let lay = place(n, &slots, dummies.len());
    let routes = edges
        .iter()
        .map(|e| {
            let Some((u, w)) = spans(e).filter(|_| routed) else {
                return Vec::new();
            };
            let mut pts = Vec::new();
            for r in row_of[u] + 1..row_of[w] {
                if let Some(&k) = dummy_at.get(&(u, r)) {
                    let (x, y) = lay.dummy[k];
                    pts.extend([(x, y), (x, y + NODE_H)]);
                }
            }
            if e.0 != u {
                pts.reverse();
            }
            pts
        })
        .collect();
    Layout {
        pos: lay.pos,
        width: lay.width,
        height: lay.height,
        routes,
    }
}

/// A place in a row: a node's box or a dummy slot.
#[derive(Debug, Clone, Copy)]
enum Slot {
    Node(usize),
    Dummy(usize),
}

/// Where the slots went: the nodes' boxes, each dummy's centre line (x, row top).
struct Placed {
    pos: Vec<(f64, f64)>,
    dummy: Vec<(f64, f64)>,
    width: f64,
    height: f64,
}

/// The edges with each back edge of a depth-first search (in node order) reversed, and
/// self-loops and repeats dropped.
fn acyclic(n: usize, edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in edges.iter().filter(|(a, b)| a != b && *a < n && *b < n) {
        succ[a].push(b);
    }
    for s in &mut succ {
        s.sort_unstable();
        s.dedup();
    }
    // 0: unseen, 1: on the stack, 2: done.
    let mut state = vec![0u8; n];
    let mut out = Vec::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        state[start] = 1;
        while let Some(top) = stack.last_mut() {
            let v = top.0;
            if let Some(&w) = succ[v].get(top.1) {
                top.1 += 1;
                match state[w] {
                    0 => {
                        out.push((v, w));
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => out.push((w, v)),
                    _ => out.push((v, w)),
                }
            } else {
                state[v] = 2;
                stack.pop();
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Each node's layer: 0 for sources, else one below its lowest predecessor.
fn longest_path(n: usize, dag: &[(usize, usize)]) -> Vec<usize> {
    let mut indeg = vec![0usize; n];
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in dag {
        indeg[b] += 1;
        succ[a].push(b);
    }
    let mut layer = vec![0usize; n];
    let mut queue: std::collections::VecDeque<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
    while let Some(v) = queue.pop_front() {
        for &w in &succ[v] {
            layer[w] = layer[w].max(layer[v] + 1);
            indeg[w] -= 1;
            if indeg[w] == 0 {
                queue.push_back(w);
            }
        }
    }
    layer
}

/// Order each layer by the mean relative position of each node's neighbours in the
/// layers above (sweeping down), then below (sweeping up), four times each way.
fn order(layers: &mut [Vec<usize>], n: usize, dag: &[(usize, usize)]) {
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in dag {
        pred[b].push(a);
        succ[a].push(b);
    }
    let mut at = vec![0.0f64; n];
    let mark = |layers: &[Vec<usize>], at: &mut [f64]| {
        for l in layers {
            for (i, &v) in l.iter().enumerate() {
                at[v] = (i as f64 + 0.5) / l.len() as f64;
            }
        }
    };
    mark(layers, &mut at);
    for round in 0..8 {
        let down = round % 2 == 0;
        let idx: Vec<usize> = if down {
            (1..layers.len()).collect()
        } else {
            (0..layers.len().saturating_sub(1)).rev().collect()
        };
        for li in idx {
            let near = if down { &pred } else { &succ };
            let mut keyed: Vec<(f64, usize, usize)> = layers[li]
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    let ns = &near[v];
                    let key = if ns.is_empty() {
                        at[v]
                    } else {
                        ns.iter().map(|&u| at[u]).sum::<f64>() / ns.len() as f64
                    };
                    (key, i, v)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            layers[li] = keyed.into_iter().map(|(_, _, v)| v).collect();
            mark(&layers[li..=li], &mut at);
        }
    }
}

/// The rows one under another, each centred: boxes and dummy slots side by side.
fn place(n: usize, rows: &[Vec<Slot>], dummies: usize) -> Placed {
    let w = |s: &Slot| match s {
        Slot::Node(_) => NODE_W,
        Slot::Dummy(_) => DUMMY_W,
    };
    let row_w = |r: &[Slot]| (r.iter().map(|s| w(s) + GAP_X).sum::<f64>() - GAP_X).max(0.0);
    let widest = rows.iter().map(|r| row_w(r)).fold(0.0, f64::max);
    let width = widest.max(NODE_W) + 2.0 * MARGIN;
    let (mut pos, mut dummy) = (vec![(0.0, 0.0); n], vec![(0.0, 0.0); dummies]);
    for (ri, row) in rows.iter().enumerate() {
        let y = MARGIN + ri as f64 * (NODE_H + GAP_Y);
        let mut x = (width - row_w(row)) / 2.0;
        for s in row {
            match *s {
                Slot::Node(v) => pos[v] = (x, y),
                Slot::Dummy(k) => dummy[k] = (x + DUMMY_W / 2.0, y),
            }
            x += w(s) + GAP_X;
        }
    }
    let height = (rows.len() as f64 * (NODE_H + GAP_Y) - GAP_Y).max(NODE_H) + 2.0 * MARGIN;
    Placed {
        pos,
        dummy,
        width,
        height,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_point_down_and_cycles_still_lay_out() {
        // 0 → 1 → 2, 0 → 2, and a cycle 3 → 4 → 3.
        let l = layered(5, &[(0, 1), (1, 2), (0, 2), (3, 4), (4, 3), (2, 2)]);
        assert!(l.pos[0].1 < l.pos[1].1 && l.pos[1].1 < l.pos[2].1);
        assert_ne!(l.pos[3].1, l.pos[4].1);
        let again = layered(5, &[(0, 1), (1, 2), (0, 2), (3, 4), (4, 3), (2, 2)]);
        assert_eq!(again, l);
        // The long edge 0 → 2 runs down a slot in the row of 1; the loop has no route.
        assert_eq!(l.routes[2].len(), 2);
        assert!(l.routes[5].is_empty());
    }

    #[test]
    fn wide_layers_wrap_and_boxes_never_overlap() {
        let edges: Vec<(usize, usize)> = (1..30).map(|c| (0, c)).collect();
        let l = layered(30, &edges);
        // At most a row of boxes and the trunk's slot to the rows below.
        assert!(l.width <= MAX_ROW as f64 * (NODE_W + GAP_X) + DUMMY_W + GAP_X + 2.0 * MARGIN);
        // A graph that would need too many slots keeps plain curves.
        let chain: Vec<(usize, usize)> = (0..40)
            .map(|v| (v, v + 1))
            .chain((0..31).map(|v| (v, v + 10)))
            .collect();
        let big = layered(41, &chain);
        assert!(big.routes.iter().all(Vec::is_empty));
        assert!(big.width < 2.0 * (NODE_W + GAP_X) + 2.0 * MARGIN);
        for a in 0..30 {
            for b in a + 1..30 {
                let (pa, pb) = (l.pos[a], l.pos[b]);
                let apart = (pa.0 - pb.0).abs() >= NODE_W || (pa.1 - pb.1).abs() >= NODE_H;
                assert!(apart, "{a} and {b} overlap");
            }
        }
        assert_eq!(layered(0, &[]).pos.len(), 0);
    }

    #[test]
    fn crossings_are_undone_by_the_sweeps() {
        // Two chains given crossed: 0 → 3, 1 → 2; the second layer is reordered.
        let l = layered(4, &[(0, 3), (1, 2)]);
        assert!(l.pos[3].0 < l.pos[2].0);
    }

    /// Whether the segment from `p` to `q` passes through the box at `b`.
    fn hits(p: (f64, f64), q: (f64, f64), b: (f64, f64)) -> bool {
        (0..=100).any(|i| {
            let t = f64::from(i) / 100.0;
            let (x, y) = (p.0 + t * (q.0 - p.0), p.1 + t * (q.1 - p.1));
            x > b.0 && x < b.0 + NODE_W && y > b.1 && y < b.1 + NODE_H
        })
    }

    #[test]
    fn long_edges_run_through_dummy_slots_and_cross_no_box() {
        // 0 → 1 → 2 → 3 and 0 → 3: the long edge crosses the rows of 1 and 2; and a
        // parent of twenty children, wrapped onto three rows.
        let l = layered(4, &[(0, 1), (1, 2), (2, 3), (0, 3)]);
        assert!(l.routes[0].is_empty() && l.routes[1].is_empty());
        assert_eq!(l.routes[3].len(), 4, "{:?}", l.routes);
        let mut edges: Vec<(usize, usize)> = (1..21).map(|c| (0, c)).collect();
        edges.push((21, 0));
        let wide = layered(22, &edges);
        for (l, n, es) in [(&l, 4, vec![(0, 1), (1, 2), (2, 3), (0, 3)]), (&wide, 22, edges)] {
            for (i, &(a, b)) in es.iter().enumerate() {
                // The edge from the bottom of the upper box to the top of the lower one,
                // through its route, as straight stretches (the drawn curves stay within
                // the same bands: gaps between rows and the slots within them).
                let (up, down) = if l.pos[a].1 < l.pos[b].1 { (a, b) } else { (b, a) };
                let mut pts = vec![(l.pos[up].0 + NODE_W / 2.0, l.pos[up].1 + NODE_H)];
                let mut route = l.routes[i].clone();
                if up != a {
                    route.reverse();
                }
                pts.extend(route);
                pts.push((l.pos[down].0 + NODE_W / 2.0, l.pos[down].1));
                for w in pts.windows(2) {
                    for v in (0..n).filter(|&v| v != a && v != b) {
                        assert!(!hits(w[0], w[1], l.pos[v]), "edge {a}→{b} crosses {v}");
                    }
                }
            }
        }
        // Edges from one node share their slots: the second row of children is
        // reached through one trunk slot in the first.
        assert!(wide.width < (MAX_ROW as f64 + 1.0) * (NODE_W + GAP_X) + 2.0 * MARGIN);
    }
}
