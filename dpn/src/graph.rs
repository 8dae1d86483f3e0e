//! The network as a graph (petgraph) for the questions asked of its shape: the channels
//! between processes, in the order DOT draws them, and which processes of a deadlocked run
//! wait on one another in a cycle.

use crate::ir::Dpn;
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

/// The network: node `i` is process `i`, and each channel an edge from its producer to its
/// consumer weighted by its index, in channel order.
pub fn network(dpn: &Dpn) -> DiGraph<usize, usize> {
    let mut g = DiGraph::with_capacity(dpn.processes.len(), dpn.channels.len());
    for pi in 0..dpn.processes.len() {
        g.add_node(pi);
    }
    for (ci, c) in dpn.channels.iter().enumerate() {
        g.add_edge(NodeIndex::new(c.producer), NodeIndex::new(c.consumer), ci);
    }
    g
}

/// Cycles of a wait-for relation over `n` processes (`waits`: process `a` waits for process
/// `b`): one per strongly connected component that holds a cycle, as the processes along it
/// from its lowest-numbered one, that one repeated at the end. In a deadlock every blocked
/// process waits for another, so there is at least one.
pub fn wait_cycles(n: usize, waits: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, waits.len());
    for _ in 0..n {
        g.add_node(());
    }
    for &(a, b) in waits {
        if a < n && b < n {
            g.update_edge(NodeIndex::new(a), NodeIndex::new(b), ());
        }
    }
    let mut cycles = Vec::new();
    for scc in tarjan_scc(&g) {
        let inside = |x: NodeIndex| scc.contains(&x);
        let Some(&start) = scc.iter().min() else { continue };
        if scc.len() == 1 && g.find_edge(start, start).is_none() {
            continue;
        }
        // Every member waits for another member: following the lowest such edge from the
        // lowest member comes back to a process already on the path.
        let mut path = vec![start];
        loop {
            let here = path[path.len() - 1];
            let Some(next) = g.edges(here).map(|e| e.target()).filter(|&t| inside(t)).min() else { break };
            if let Some(k) = path.iter().position(|&x| x == next) {
                let mut cycle: Vec<usize> = path[k..].iter().map(|x| x.index()).collect();
                cycle.push(next.index());
                cycles.push(cycle);
                break;
            }
            path.push(next);
        }
    }
    cycles.sort();
    cycles
}

#[cfg(test)]
mod tests {
    use super::wait_cycles;

    #[test]
    fn cycles_of_a_wait_for_relation() {
        // 0 → 1 → 2 → 0 and 3 → 3; 4 waits for 0 but is on no cycle; 5 waits for nothing.
        let waits = [(0, 1), (1, 2), (2, 0), (3, 3), (4, 0)];
        assert_eq!(wait_cycles(6, &waits), vec![vec![0, 1, 2, 0], vec![3, 3]]);
        assert!(wait_cycles(3, &[(0, 1), (1, 2)]).is_empty());
    }
}
