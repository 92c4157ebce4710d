//! A layered layout of a small directed graph, in the steps of Sugiyama's method: break
//! cycles (a depth-first search turns back edges around), give each node the layer of
//! its longest path from a source, order each layer by the barycentre of its neighbours
//! in sweeps down and up (fewer crossings), then place the layers as rows. A layer wider
//! than [`MAX_ROW`] nodes wraps onto several rows, so a feature with sixty tasks stays
//! readable. Long edges get no dummy nodes: they are drawn as curves over the rows.

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

/// Where each node's box goes (its top-left corner) and the drawing's size.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Top-left corner of each node's box, by node index.
    pub pos: Vec<(f64, f64)>,
    /// Width of the drawing.
    pub width: f64,
    /// Height of the drawing.
    pub height: f64,
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
    place(n, &layers)
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

/// Rows of at most [`MAX_ROW`] nodes, each centred, one layer after another.
fn place(n: usize, layers: &[Vec<usize>]) -> Layout {
    let rows: Vec<&[usize]> = layers.iter().flat_map(|l| l.chunks(MAX_ROW)).collect();
    let widest = rows.iter().map(|r| r.len()).max().unwrap_or(0) as f64;
    let width = (widest * (NODE_W + GAP_X) - GAP_X).max(NODE_W) + 2.0 * MARGIN;
    let mut pos = vec![(0.0, 0.0); n];
    for (ri, row) in rows.iter().enumerate() {
        let row_w = row.len() as f64 * (NODE_W + GAP_X) - GAP_X;
        let x0 = (width - row_w) / 2.0;
        for (i, &v) in row.iter().enumerate() {
            pos[v] = (x0 + i as f64 * (NODE_W + GAP_X), MARGIN + ri as f64 * (NODE_H + GAP_Y));
        }
    }
    let height = (rows.len() as f64 * (NODE_H + GAP_Y) - GAP_Y).max(NODE_H) + 2.0 * MARGIN;
    Layout { pos, width, height }
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
        assert_eq!(layered(5, &[(0, 1), (1, 2), (0, 2), (3, 4), (4, 3)]), l);
    }

    #[test]
    fn wide_layers_wrap_and_boxes_never_overlap() {
        let edges: Vec<(usize, usize)> = (1..30).map(|c| (0, c)).collect();
        let l = layered(30, &edges);
        assert!(l.width <= MAX_ROW as f64 * (NODE_W + GAP_X) + 2.0 * MARGIN);
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
}
