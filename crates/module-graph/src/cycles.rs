//! The circles of a directed graph: its strongly connected components of more than one node
//! (Tarjan's algorithm, iterative so that a deep tree cannot overflow the stack).

use std::collections::BTreeMap;

/// Each component of more than one node, its nodes in ascending order.
pub fn circles<E>(graph: &[BTreeMap<usize, E>]) -> Vec<Vec<usize>> {
    let n = graph.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, its successors not yet visited)
        let mut work: Vec<(usize, Vec<usize>)> = Vec::new();
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        work.push((root, graph[root].keys().rev().copied().collect()));
        while let Some((node, successors)) = work.last_mut() {
            let node = *node;
            if let Some(succ) = successors.pop() {
                if index[succ] == usize::MAX {
                    index[succ] = next;
                    low[succ] = next;
                    next += 1;
                    stack.push(succ);
                    on_stack[succ] = true;
                    work.push((succ, graph[succ].keys().rev().copied().collect()));
                } else if on_stack[succ] {
                    low[node] = low[node].min(index[succ]);
                }
                continue;
            }
            work.pop();
            if let Some((parent, _)) = work.last() {
                low[*parent] = low[*parent].min(low[node]);
            }
            if low[node] == index[node] {
                let mut component = Vec::new();
                while let Some(top) = stack.pop() {
                    on_stack[top] = false;
                    component.push(top);
                    if top == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort_unstable();
                    out.push(component);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(usize, usize)], n: usize) -> Vec<BTreeMap<usize, ()>> {
        let mut g = vec![BTreeMap::new(); n];
        for &(a, b) in edges {
            g[a].insert(b, ());
        }
        g
    }

    #[test]
    fn a_chain_has_no_circle_and_a_loop_back_makes_one() {
        assert!(circles(&graph(&[(0, 1), (1, 2), (0, 2)], 3)).is_empty());
        assert_eq!(
            circles(&graph(&[(0, 1), (1, 2), (2, 0), (3, 0)], 4)),
            vec![vec![0, 1, 2]]
        );
    }

    #[test]
    fn two_separate_circles_are_two() {
        let found = circles(&graph(&[(0, 1), (1, 0), (2, 3), (3, 2), (1, 2)], 4));
        assert_eq!(found.len(), 2, "{found:?}");
    }
}
