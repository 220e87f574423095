//! `sci-topology`'s experiments and what it measures in them: the emulated
//! tori and rings (Gonzalez 2000, Figs. 10, 11 and 13b), a ping-pong
//! configuration on one, and rank 0's latencies per size, which the kernel
//! (`topology.rs`) measures and the model (`sci_model.rs`) reads.

use crate::model::sci::{ComponentCounts, PingPongPath};
use crate::model::stats::Summary;

/// The kernel's name, as users type it and its results carry it.
pub const NAME: &str = "sci-topology";

/// A torus of unidirectional rings, `sizes[k]` nodes along dimension `k`; dimension 0
/// varies fastest in node numbers. A ring is a torus of one dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TorusShape {
    sizes: Vec<usize>,
}

impl TorusShape {
    /// A torus with `sizes[k]` nodes per ring of dimension `k`; each at least 2, at
    /// most 1024 nodes in all.
    pub fn new(sizes: &[usize]) -> Result<TorusShape, String> {
        if sizes.is_empty() || sizes.iter().any(|&s| s < 2) {
            return Err(format!(
                "a torus needs at least one dimension and 2 nodes per ring, got {sizes:?}"
            ));
        }
        let nodes = sizes
            .iter()
            .try_fold(1usize, |acc, &s| acc.checked_mul(s))
            .filter(|&n| n <= 1024);
        match nodes {
            Some(_) => Ok(TorusShape {
                sizes: sizes.to_vec(),
            }),
            None => Err(format!(
                "a torus of {sizes:?} has more than 1024 nodes; emulate a smaller one"
            )),
        }
    }

    /// A ring of `n` nodes.
    pub fn ring(n: usize) -> Result<TorusShape, String> {
        TorusShape::new(&[n])
    }

    /// Nodes per ring of each dimension.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Total number of nodes.
    pub fn nodes(&self) -> usize {
        self.sizes.iter().product()
    }

    /// Coordinates of `node`.
    pub fn coords(&self, mut node: usize) -> Vec<usize> {
        self.sizes
            .iter()
            .map(|&s| {
                let c = node % s;
                node /= s;
                c
            })
            .collect()
    }

    /// The node at `coords` (each taken modulo its ring size).
    pub fn node(&self, coords: &[usize]) -> usize {
        coords
            .iter()
            .zip(&self.sizes)
            .rev()
            .fold(0, |acc, (&c, &s)| acc * s + c % s)
    }

    /// The next hop of a packet at `at` bound for `to`: the next node and the
    /// dimension of the ring it travels (dimension-order routing: the lowest
    /// dimension whose coordinate differs). `None` when `at == to`.
    pub fn next_hop(&self, at: usize, to: usize) -> Option<(usize, usize)> {
        let (mut a, b) = (self.coords(at), self.coords(to));
        let dim = (0..a.len()).find(|&k| a[k] != b[k])?;
        a[dim] = (a[dim] + 1) % self.sizes[dim];
        Some((self.node(&a), dim))
    }

    /// The worker (of `workers`) hosting `node`: alternate placement by the parity
    /// (modulo `workers`) of the coordinate sum.
    pub fn worker_of(&self, node: usize, workers: usize) -> usize {
        self.coords(node).iter().sum::<usize>() % workers.max(1)
    }

    /// Component counts of a packet from `from` to `to` along the emulated route:
    /// 2 overheads, one `l_p` per hop, one `l_f` per node passed on the same ring, one
    /// `l_s` per change of ring (eq. 8 of the paper).
    pub fn route_counts(&self, from: usize, to: usize) -> ComponentCounts {
        let mut counts = ComponentCounts {
            overhead_count: 2.0,
            propagation_lp_count: 0.0,
            forwarding_lf_count: 0.0,
            switching_ls_count: 0.0,
        };
        let mut at = from;
        let mut ring: Option<usize> = None;
        while let Some((next, dim)) = self.next_hop(at, to) {
            match ring {
                Some(prev) if prev == dim => counts.forwarding_lf_count += 1.0,
                Some(_) => counts.switching_ls_count += 1.0,
                None => {}
            }
            counts.propagation_lp_count += 1.0;
            ring = Some(dim);
            at = next;
        }
        counts
    }

    /// Hops of the route from `from` to `to` whose two nodes sit on the same worker.
    pub fn local_hops(&self, from: usize, to: usize, workers: usize) -> usize {
        let mut at = from;
        let mut local = 0;
        while let Some((next, _)) = self.next_hop(at, to) {
            if self.worker_of(at, workers) == self.worker_of(next, workers) {
                local += 1;
            }
            at = next;
        }
        local
    }
}

/// One ping-pong configuration: the source (node 0) pings the client, the client
/// pongs back.
#[derive(Debug, Clone)]
pub struct Experiment {
    /// Short name (`ring-3-hop`, `torus-switching`, `ring-7-nodes`).
    pub name: String,
    /// The emulated topology.
    pub shape: TorusShape,
    /// The client node (the source is node 0).
    pub client: usize,
    /// The paper's configuration this reproduces, if any.
    pub path: Option<PingPongPath>,
}

impl Experiment {
    /// Fig. 10: `hops` hops on a ring of `2 * hops` nodes.
    pub fn ring_hops(hops: usize) -> Experiment {
        Experiment {
            name: format!("ring-{hops}-hop"),
            shape: TorusShape::ring(2 * hops).expect("hops >= 1"),
            client: hops,
            path: Some(PingPongPath::Ring { hops: hops as u32 }),
        }
    }

    /// Fig. 11a on a 4 x 2 torus: 2 hops on one ring.
    pub fn torus_non_switching() -> Experiment {
        let shape = TorusShape::new(&[4, 2]).expect("valid");
        Experiment {
            name: "torus-non-switching".into(),
            client: shape.node(&[2, 0]),
            shape,
            path: Some(PingPongPath::TorusNonSwitching),
        }
    }

    /// Fig. 11b on a 4 x 2 torus: 2 hops, a switch, 1 hop.
    pub fn torus_switching() -> Experiment {
        let shape = TorusShape::new(&[4, 2]).expect("valid");
        Experiment {
            name: "torus-switching".into(),
            client: shape.node(&[2, 1]),
            shape,
            path: Some(PingPongPath::TorusSwitching),
        }
    }

    /// Fig. 13b: a ring of `nodes` nodes, ping `nodes / 2` hops, pong the rest.
    pub fn ring_nodes(nodes: usize) -> Experiment {
        Experiment {
            name: format!("ring-{nodes}-nodes"),
            shape: TorusShape::ring(nodes).expect("nodes >= 2"),
            client: nodes / 2,
            path: None,
        }
    }

    /// Counts of the ping (source to client).
    pub fn ping_counts(&self) -> ComponentCounts {
        self.shape.route_counts(0, self.client)
    }

    /// Counts of the pong (client to source).
    pub fn pong_counts(&self) -> ComponentCounts {
        self.shape.route_counts(self.client, 0)
    }

    /// Counts of the measured PP latency, half the round trip: the mean of ping and
    /// pong (equal to the ping's on symmetric paths, as the paper assumes).
    pub fn ping_pong_counts(&self) -> ComponentCounts {
        let (a, b) = (self.ping_counts(), self.pong_counts());
        ComponentCounts {
            overhead_count: (a.overhead_count + b.overhead_count) / 2.0,
            propagation_lp_count: (a.propagation_lp_count + b.propagation_lp_count) / 2.0,
            forwarding_lf_count: (a.forwarding_lf_count + b.forwarding_lf_count) / 2.0,
            switching_ls_count: (a.switching_ls_count + b.switching_ls_count) / 2.0,
        }
    }

    /// Hops of ping and pong that stay on one CPU with `workers` workers.
    pub fn local_hops(&self, workers: usize) -> usize {
        self.shape.local_hops(0, self.client, workers)
            + self.shape.local_hops(self.client, 0, workers)
    }
}

/// What rank 0 measured at one size of one experiment.
#[derive(Debug, Clone)]
pub(super) struct Measured {
    pub(super) size: usize,
    pub(super) reps: u64,
    /// PP latency (half the round trip) over the trials, ns.
    pub(super) ping_pong_ns: Summary,
    /// The same, trial by trial in round order, ns: what the components'
    /// intervals are bootstrapped from.
    pub(super) trials_ns: Vec<f64>,
    /// scibench's accuracy warning, if the trials spread too far.
    pub(super) warning: Option<String>,
}

/// An experiment's measurements over sizes.
#[derive(Debug, Clone)]
pub(super) struct ExperimentResult {
    pub(super) experiment: Experiment,
    pub(super) workers: usize,
    pub(super) points: Vec<Measured>,
}

/// Everything the kernel measured.
#[derive(Debug, Clone)]
pub(super) struct Measurements {
    pub(super) cpus: Vec<usize>,
    /// `l_p`: the one-way latency of the 8-byte flag ping-pong.
    pub(super) propagation: Measured,
    /// Figs. 10 and 11 over message sizes.
    pub(super) size_sweep: Vec<ExperimentResult>,
    /// Fig. 13b: rings of 2..9 nodes at 64 bytes.
    pub(super) ring_sweep: Vec<ExperimentResult>,
}

/// Ring sizes of the Fig. 13b sweep.
pub(crate) const RING_SIZES: std::ops::RangeInclusive<usize> = 2..=9;

/// The experiments of the size sweep, in the order the decomposition reads them.
pub fn size_sweep_experiments() -> Vec<Experiment> {
    let mut v: Vec<Experiment> = (1..=4).map(Experiment::ring_hops).collect();
    v.push(Experiment::torus_non_switching());
    v.push(Experiment::torus_switching());
    v
}
