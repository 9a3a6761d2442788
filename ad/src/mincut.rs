//! The cheapest set of values to record: a minimum vertex cut.
//!
//! The reverse needs a value `v` that it cannot recompute from what it
//! already has. Recording `v` itself is one choice; recording some of the
//! values `v` is computed from, and recomputing `v` from them, is another.
//! The candidates form a DAG: an edge `u → w` where `w` is a pure
//! instruction (or a load the reverse may repeat) with operand `u`. Values
//! that cannot be recomputed at all (a call's result, a load of memory the
//! function overwrites, a block parameter) hang off a source; `v` feeds the
//! sink. Every set of recorded values that leaves no path from the source
//! to the sink lets the reverse rebuild `v`, and a cheapest such set is a
//! minimum cut of the graph with each value split into `in → out` carrying
//! its cost (Enzyme's min-cut caching). Several needed values may feed the
//! sink (what one reverse block will need): the cut then serves them all.
//!
//! Among cheapest sets this picks the one nearest the source: on a tie
//! (one overwritten load `x` under `t = x·x` and `w = t·x`) it records the
//! inputs rather than what they compute, since later needs of the same
//! reverse block can reuse them (the reverse needs `t` first, then `x`).
//!
//! Max-flow is petgraph's Dinic.

use petgraph::algo::dinics;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use std::collections::VecDeque;

/// A capacity larger than any cut (edges that must not be cut).
const INFINITE: u64 = 1 << 40;

/// A DAG of candidate values `0..costs.len()`: `costs[i]` is what
/// recording value `i` costs, `edges` go from an operand to a value
/// computed from it, `sources` cannot be recomputed, `sinks` are the
/// needed values. Returns the values of a cheapest cut nearest the
/// sources, sorted.
pub fn cheapest_records(
    costs: &[u64],
    edges: &[(usize, usize)],
    sources: &[usize],
    sinks: &[usize],
) -> Vec<usize> {
    let n = costs.len();
    let mut g: DiGraph<(), u64> =
        DiGraph::with_capacity(2 * n + 2, n + edges.len() + sources.len() + sinks.len());
    let nodes: Vec<NodeIndex> = (0..2 * n + 2).map(|_| g.add_node(())).collect();
    let (inn, out) = (|i: usize| nodes[2 * i], |i: usize| nodes[2 * i + 1]);
    let (s, t) = (nodes[2 * n], nodes[2 * n + 1]);
    for (i, &c) in costs.iter().enumerate() {
        g.add_edge(inn(i), out(i), c.min(INFINITE));
    }
    for &(u, w) in edges {
        g.add_edge(out(u), inn(w), INFINITE);
    }
    for &u in sources {
        g.add_edge(s, inn(u), INFINITE);
    }
    for &k in sinks {
        g.add_edge(out(k), t, INFINITE);
    }
    let (_, flows) = dinics(&g, s, t);
    // What the source still reaches in the residual graph.
    let mut seen = vec![false; g.node_count()];
    let mut queue = VecDeque::from([s]);
    seen[s.index()] = true;
    while let Some(x) = queue.pop_front() {
        for e in g.edges_directed(x, petgraph::Direction::Outgoing) {
            if flows[e.id().index()] < *e.weight() && !seen[e.target().index()] {
                seen[e.target().index()] = true;
                queue.push_back(e.target());
            }
        }
        for e in g.edges_directed(x, petgraph::Direction::Incoming) {
            if flows[e.id().index()] > 0 && !seen[e.source().index()] {
                seen[e.source().index()] = true;
                queue.push_back(e.source());
            }
        }
    }
    (0..n)
        .filter(|&i| seen[inn(i).index()] && !seen[out(i).index()])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::cheapest_records;

    #[test]
    fn one_input_under_two_values_is_recorded_instead_of_them() {
        // x (overwritten) → t = x·x → w = t·x; the reverse needs w.
        let (x, t, w) = (0, 1, 2);
        let cut = cheapest_records(&[1, 1, 1], &[(x, t), (t, w), (x, w)], &[x], &[w]);
        assert_eq!(cut, [x]);
    }

    #[test]
    fn two_inputs_of_one_value_record_the_value() {
        // a, b (both overwritten) → w = a + b: one record beats two.
        let (a, b, w) = (0, 1, 2);
        let cut = cheapest_records(&[1, 1, 1], &[(a, w), (b, w)], &[a, b], &[w]);
        assert_eq!(cut, [w]);
    }

    #[test]
    fn costs_decide() {
        // x → y → w: recording y is cheaper than x or w.
        let cut = cheapest_records(&[5, 2, 7], &[(0, 1), (1, 2)], &[0], &[2]);
        assert_eq!(cut, [1]);
        // A diamond x → {y, z} → w with y and z cheap: still x, one record.
        let cut = cheapest_records(&[1, 1, 1, 3], &[(0, 1), (0, 2), (1, 3), (2, 3)], &[0], &[3]);
        assert_eq!(cut, [0]);
    }

    #[test]
    fn needs_of_one_block_share_a_cut() {
        // x, y (overwritten) → u = x·y, v = x + y, w = x - y, all needed:
        // alone, each is its own cheapest record (1 < 2); together, x and y.
        let (x, y, u, v, w) = (0, 1, 2, 3, 4);
        let edges = [(x, u), (y, u), (x, v), (y, v), (x, w), (y, w)];
        let cut = cheapest_records(&[1; 5], &edges, &[x, y], &[u]);
        assert_eq!(cut, [u]);
        let cut = cheapest_records(&[1; 5], &edges, &[x, y], &[u, v, w]);
        assert_eq!(cut, [x, y]);
    }
}
