//! Parent cycles: a chain of `parent` edges that comes back to where it started is an
//! error, reported once, at the first of its documents in id order.

use crate::ingest::parse::ParsedFile;
use crate::ingest::resolved::FileEdges;
use crate::model::EdgeType;
use crate::model::diag::{Code, Diagnostic, Severity};
use std::collections::BTreeMap;

/// A `parent-cycle` error for each cycle among the `parent` edges of `edges`, between
/// `files` sorted by path under their node ids `ids`.
pub(super) fn cycle_diagnostics(files: &[&ParsedFile], edges: &FileEdges, ids: &[String]) -> Vec<Diagnostic> {
    let parents: Vec<(usize, usize, u32)> = edges
        .iter()
        .filter(|((_, t, _), _)| *t == EdgeType::Parent)
        .map(|(&(a, _, b), (_, line, _))| (a, b, *line))
        .collect();
    let mut diagnostics = Vec::new();
    for cycle in parent_cycles(files.len(), &parents, ids) {
        let first = cycle[0];
        let line = parents.iter().find(|p| p.0 == first).map(|p| p.2).unwrap_or(1);
        let mut names: Vec<&str> = cycle.iter().map(|&c| ids[c].as_str()).collect();
        names.push(&ids[first]);
        diagnostics.push(
            Diagnostic::new(
                &files[first].doc.path,
                line,
                Severity::Error,
                Code::ParentCycle,
                format!("parent cycle: {}", names.join(" → ")),
            )
            .about(names.join(" → ")),
        );
    }
    diagnostics
}

/// Cycles among `parent` edges, each listed once starting at its smallest node id.
fn parent_cycles(n: usize, parents: &[(usize, usize, u32)], ids: &[String]) -> Vec<Vec<usize>> {
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b, _) in parents {
        adj[a].push(b);
    }
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut cycles: BTreeMap<Vec<usize>, ()> = BTreeMap::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        // Iterative DFS keeping the current path.
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        let mut path: Vec<usize> = vec![start];
        state[start] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if *next < adj[v].len() {
                let w = adj[v][*next];
                *next += 1;
                match state[w] {
                    0 => {
                        state[w] = 1;
                        stack.push((w, 0));
                        path.push(w);
                    }
                    1 => {
                        let pos = path.iter().position(|&x| x == w).unwrap_or(0);
                        let mut cyc = path[pos..].to_vec();
                        let min = (0..cyc.len())
                            .min_by(|&a, &b| ids[cyc[a]].cmp(&ids[cyc[b]]))
                            .unwrap_or(0);
                        cyc.rotate_left(min);
                        cycles.insert(cyc, ());
                    }
                    _ => {}
                }
            } else {
                state[v] = 2;
                stack.pop();
                path.pop();
            }
        }
    }
    cycles.into_keys().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycle_found_once() {
        let ids: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let c = parent_cycles(3, &[(0, 1, 1), (1, 2, 1), (2, 0, 1)], &ids);
        assert_eq!(c, vec![vec![0, 1, 2]]);
        let self_loop = parent_cycles(3, &[(1, 1, 1)], &ids);
        assert_eq!(self_loop, vec![vec![1]]);
    }
}
