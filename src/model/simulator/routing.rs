//! Deterministic store-and-forward routing, computed arithmetically from node numbers.
//!
//! - Hypercube (Lamanna, ch. III "Model Construction", Appendix B `USERF(1)`): e-cube
//!   routing; the next node flips the lowest bit in which the current node and the
//!   destination differ, so a route has as many hops as the Hamming distance.
//! - Ring (bidirectional): the shorter way round, ties (distance N/2) going up.
//! - 2-D torus (`k x k`, node `id = x + k y`): dimension order, first x then y, each
//!   dimension routed as a ring.
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};

use super::SimConfigError;

/// Interconnection network of the simulated machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Topology {
    /// Binary n-cube of `2^n` nodes with e-cube routing (the thesis's iPSC).
    Hypercube,
    /// Bidirectional ring.
    Ring,
    /// Square 2-D torus (`k x k` nodes) with dimension-order routing.
    Torus2D,
}

/// Next-hop function of one topology and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Router {
    topology: Topology,
    nodes: u32,
    /// Side `k` of the torus (unused otherwise).
    side: u32,
}

impl Router {
    /// Router for `nodes` nodes, checking that the topology admits that size.
    pub fn new(topology: Topology, nodes: u32) -> Result<Self, SimConfigError> {
        if nodes == 0 {
            return Err(SimConfigError::ZeroNodes);
        }
        let side = nodes.isqrt();
        match topology {
            Topology::Hypercube if !nodes.is_power_of_two() => {
                Err(SimConfigError::NodesNotPowerOfTwo { nodes })
            }
            Topology::Torus2D if side * side != nodes => {
                Err(SimConfigError::NodesNotSquare { nodes })
            }
            _ => Ok(Self {
                topology,
                nodes,
                side,
            }),
        }
    }

    /// The node after `current` on the route to `destination` (`current` itself when
    /// they are equal).
    pub fn next_hop(&self, current: u32, destination: u32) -> u32 {
        match self.topology {
            Topology::Hypercube => {
                let differ = current ^ destination;
                current ^ (differ & differ.wrapping_neg())
            }
            Topology::Ring => ring_step(current, destination, self.nodes),
            Topology::Torus2D => {
                let k = self.side;
                let (x, y) = (current % k, current / k);
                let (dx, dy) = (destination % k, destination / k);
                if x != dx {
                    ring_step(x, dx, k) + k * y
                } else {
                    x + k * ring_step(y, dy, k)
                }
            }
        }
    }

    /// The dimension of the link from `current` towards `destination` (`current !=
    /// destination`): on the hypercube the bit that the hop flips (Appendix B,
    /// `USERF(1)` sets `ATRIB(9) = POS + 1`, the transmit files' ranking attribute);
    /// on the torus 0 for x and 1 for y; 0 on the ring.
    pub fn dimension(&self, current: u32, destination: u32) -> u32 {
        match self.topology {
            Topology::Hypercube => (current ^ destination).trailing_zeros(),
            Topology::Ring => 0,
            Topology::Torus2D => u32::from(current % self.side == destination % self.side),
        }
    }

    /// Number of links on the route from `source` to `destination`.
    pub fn hops(&self, source: u32, destination: u32) -> u32 {
        let ring = |a: u32, b: u32, n: u32| {
            let up = (b + n - a) % n;
            up.min(n - up)
        };
        match self.topology {
            Topology::Hypercube => (source ^ destination).count_ones(),
            Topology::Ring => ring(source, destination, self.nodes),
            Topology::Torus2D => {
                let k = self.side;
                ring(source % k, destination % k, k) + ring(source / k, destination / k, k)
            }
        }
    }
}

/// One step on a ring of `n` nodes from `a` towards `b`, the shorter way round.
fn ring_step(a: u32, b: u32, n: u32) -> u32 {
    let up = (b + n - a) % n;
    if up == 0 {
        a
    } else if up <= n / 2 {
        (a + 1) % n
    } else {
        (a + n - 1) % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Physical neighbours, written from the topology's definition (not from the
    /// routing code).
    fn neighbours(topology: Topology, nodes: u32, v: u32) -> Vec<u32> {
        match topology {
            Topology::Hypercube => (0..nodes.trailing_zeros()).map(|b| v ^ (1 << b)).collect(),
            Topology::Ring => vec![(v + 1) % nodes, (v + nodes - 1) % nodes],
            Topology::Torus2D => {
                let k = nodes.isqrt();
                let (x, y) = (v % k, v / k);
                vec![
                    (x + 1) % k + k * y,
                    (x + k - 1) % k + k * y,
                    x + k * ((y + 1) % k),
                    x + k * ((y + k - 1) % k),
                ]
            }
        }
    }

    fn bfs(topology: Topology, nodes: u32, source: u32) -> Vec<u32> {
        let mut dist = vec![u32::MAX; nodes as usize];
        dist[source as usize] = 0;
        let mut queue = VecDeque::from([source]);
        while let Some(v) = queue.pop_front() {
            for w in neighbours(topology, nodes, v) {
                if dist[w as usize] == u32::MAX {
                    dist[w as usize] = dist[v as usize] + 1;
                    queue.push_back(w);
                }
            }
        }
        dist
    }

    /// Follows the route hop by hop: every hop must go to a physical neighbour and
    /// the route must be a shortest path (length = BFS distance = `hops`).
    fn check_all_routes(topology: Topology, nodes: u32) {
        let router = Router::new(topology, nodes).unwrap();
        for s in 0..nodes {
            let dist = bfs(topology, nodes, s);
            for d in 0..nodes {
                let (mut v, mut steps) = (s, 0);
                while v != d {
                    let w = router.next_hop(v, d);
                    assert!(
                        neighbours(topology, nodes, v).contains(&w),
                        "{s}->{d}: {v}->{w}"
                    );
                    v = w;
                    steps += 1;
                    assert!(steps <= nodes, "route {s}->{d} loops");
                }
                assert_eq!(steps, dist[d as usize], "{topology:?} {nodes}: {s}->{d}");
                assert_eq!(router.hops(s, d), steps);
            }
        }
    }

    #[test]
    fn hypercube_routes_are_ecube_with_hamming_length() {
        for nodes in [1, 2, 4, 8, 16, 32, 64] {
            check_all_routes(Topology::Hypercube, nodes);
        }
        // e-cube order: bits corrected from the lowest up (Appendix B, USERF(1)).
        let r = Router::new(Topology::Hypercube, 32).unwrap();
        let mut route = vec![0b00000];
        while *route.last().unwrap() != 0b10110 {
            route.push(r.next_hop(*route.last().unwrap(), 0b10110));
        }
        assert_eq!(route, vec![0b00000, 0b00010, 0b00110, 0b10110]);
        // The hops' dimensions, the rank of Appendix B's transmit files: 1, 2, 4.
        let dims: Vec<u32> = route
            .windows(2)
            .map(|w| r.dimension(w[0], 0b10110))
            .collect();
        assert_eq!(dims, vec![1, 2, 4]);
        let t = Router::new(Topology::Torus2D, 16).unwrap();
        assert_eq!((t.dimension(0, 5), t.dimension(1, 5)), (0, 1));
        for s in 0..32u32 {
            for d in 0..32 {
                assert_eq!(r.hops(s, d), (s ^ d).count_ones());
            }
        }
    }

    #[test]
    fn ring_and_torus_routes_are_shortest() {
        for nodes in [1, 2, 3, 4, 7, 8, 16] {
            check_all_routes(Topology::Ring, nodes);
        }
        for nodes in [1, 4, 9, 16, 25, 36] {
            check_all_routes(Topology::Torus2D, nodes);
        }
        // x first: on a 4x4 torus 0 -> 5 goes through 1.
        let t = Router::new(Topology::Torus2D, 16).unwrap();
        assert_eq!(t.next_hop(0, 5), 1);
        assert_eq!(t.next_hop(1, 5), 5);
    }

    #[test]
    fn sizes_are_validated() {
        assert_eq!(
            Router::new(Topology::Hypercube, 12),
            Err(SimConfigError::NodesNotPowerOfTwo { nodes: 12 })
        );
        assert_eq!(
            Router::new(Topology::Torus2D, 8),
            Err(SimConfigError::NodesNotSquare { nodes: 8 })
        );
        assert_eq!(
            Router::new(Topology::Ring, 0),
            Err(SimConfigError::ZeroNodes)
        );
        assert!(Router::new(Topology::Ring, 5).is_ok());
    }
}
