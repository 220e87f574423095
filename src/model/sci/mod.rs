//! Analytic latency model of SCI (Scalable Coherent Interface) rings and tori.
//!
//! Source: D. M. Gonzalez, "Performance Modeling and Evaluation of Topologies for
//! Low-Latency SCI Systems", M.S. thesis, University of Florida, 2000.
//!
//! - [`torus`]: chapter 4, point-to-point request and response latency on a
//!   D-dimensional torus of unidirectional SCI rings (eqs. 1-9) and the averages over
//!   uniformly random destinations (eqs. 10-17), plus the one-to-all multi-unicast of
//!   section 6 (sum of point-to-point request latencies from one source).
//! - [`pingpong`]: sections 5.2-5.4, the ring and torus ping-pong configurations
//!   (Figs. 10, 11) and the decomposition of measured ping-pong latencies into the
//!   components (eqs. 18-25).
//! - [`multicast`]: section 6's multi-unicast by a sender that does not wait: what it
//!   overlaps of its `N - 1` requests (derived again; the paper sums their latencies).
//! - [`projection`]: chapter 6, latency against system size with a real number of
//!   nodes per dimension, crossover sizes between dimensionalities, and the report
//!   printed by `halfperf model sci`.
//!
//! Parameters (all in nanoseconds, see [`SciComponents`]):
//! - `l_p` (`propagation_lp_ns`): propagation latency of the head of a packet over one
//!   link (one hop).
//! - `l_f` (`forwarding_lf_ns`): forwarding latency through an intermediate node on the
//!   same ring (header check and routing back out the same link controller).
//! - `l_s` (`switching_ls_ns`): switching latency at an agent node that moves the packet
//!   from one ring (dimension) to the next.
//! - `o`: processing overhead at the sender, and again at the receiver, of one packet;
//!   Table 1 models it as `o(m) = 2085 + 11.6 (m - 64)` ns for an `m`-byte message,
//!   i.e. `overhead_o_ns` at the reference size of [`OVERHEAD_REFERENCE_SIZE_BYTES`]
//!   = 64 bytes plus `overhead_per_byte_ns` per byte beyond it.
//!
//! A torus has `D` dimensions (`dims`) and `n` nodes in each (`nodes_per_dim`), so
//! `N = n^D` nodes in total. Contention is not modelled (unloaded latency), and the
//! echo packets are off the critical path, as in the paper.
#![forbid(unsafe_code)]

pub mod multicast;
pub mod pingpong;
pub mod projection;
pub mod torus;

pub use multicast::{
    DestinationOrder, issue_gap_ns, link_occupancy_ns, multi_unicast_by_order_ns,
    pipelined_multi_unicast_ns,
};
pub use pingpong::{
    PingPongPath, PingPongSet, SolvedComponents, ping_pong_ns, predict_ping_pong, solve_components,
};
pub use projection::{
    Crossover, CrossoverSet, CurvePoint, SciApplication, SciCurve, SciModelReport, crossover_nodes,
    model_report,
};
pub use torus::{
    PointToPointLatency, average_counts, multi_unicast_counts, point_to_point_ns, request_counts,
    response_counts,
};

use serde::{Deserialize, Serialize};

/// Message size (bytes) at which `overhead_o_ns` applies: Table 1 writes the overhead as
/// `2085 + 11.6 x (m - 64)` ns, anchored at the 64-byte SCI packet payload.
pub const OVERHEAD_REFERENCE_SIZE_BYTES: u32 = 64;

/// Latency components of the SCI model, in nanoseconds (Table 1 of the paper).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SciComponents {
    /// Propagation latency per hop, `l_p` (ns).
    pub propagation_lp_ns: f64,
    /// Forwarding latency through an intermediate node of a ring, `l_f` (ns).
    pub forwarding_lf_ns: f64,
    /// Switching latency from one ring (dimension) to the next at an agent, `l_s` (ns).
    pub switching_ls_ns: f64,
    /// Sender (and, equally, receiver) overhead `o` for a message of
    /// [`OVERHEAD_REFERENCE_SIZE_BYTES`] bytes (ns).
    pub overhead_o_ns: f64,
    /// Growth of the overhead per byte of message beyond the reference size (ns/byte).
    pub overhead_per_byte_ns: f64,
}

impl SciComponents {
    /// Builds a validated set of components (all finite and non-negative).
    pub fn new(
        propagation_lp_ns: f64,
        forwarding_lf_ns: f64,
        switching_ls_ns: f64,
        overhead_o_ns: f64,
        overhead_per_byte_ns: f64,
    ) -> Result<Self, SciModelError> {
        let components = Self {
            propagation_lp_ns,
            forwarding_lf_ns,
            switching_ls_ns,
            overhead_o_ns,
            overhead_per_byte_ns,
        };
        components.validate()?;
        Ok(components)
    }

    /// The paper's estimates (Table 1): `l_p = 7`, `l_f = 60`, `l_s = 670` and
    /// `o = 2085 + 11.6 (m - 64)` ns, measured on Dolphin/Scali Wulfkit adapters.
    pub fn paper_table1() -> Self {
        Self {
            propagation_lp_ns: 7.0,
            forwarding_lf_ns: 60.0,
            switching_ls_ns: 670.0,
            overhead_o_ns: 2085.0,
            overhead_per_byte_ns: 11.6,
        }
    }

    /// The "enhanced system" of section 6.2: the same components with the switching
    /// latency halved ("the original value (670 ns) is halved (335 ns)"); nothing else
    /// changes.
    pub fn enhanced(&self) -> Self {
        Self {
            switching_ls_ns: self.switching_ls_ns / 2.0,
            ..*self
        }
    }

    /// Checks that every component is finite and non-negative.
    pub fn validate(&self) -> Result<(), SciModelError> {
        let fields = [
            ("propagation_lp_ns", self.propagation_lp_ns),
            ("forwarding_lf_ns", self.forwarding_lf_ns),
            ("switching_ls_ns", self.switching_ls_ns),
            ("overhead_o_ns", self.overhead_o_ns),
            ("overhead_per_byte_ns", self.overhead_per_byte_ns),
        ];
        match fields.iter().find(|(_, v)| !(v.is_finite() && *v >= 0.0)) {
            Some(&(name, value)) => Err(SciModelError::InvalidComponent { name, value }),
            None => Ok(()),
        }
    }

    /// Overhead `o(m) = overhead_o_ns + overhead_per_byte_ns (m - 64)` for an
    /// `m`-byte message (ns). Validates the components; below 64 bytes the line is
    /// extrapolated downwards and an error is returned if it goes negative.
    pub fn overhead_ns(&self, size_bytes: u32) -> Result<f64, SciModelError> {
        self.validate()?;
        let extra_bytes = f64::from(size_bytes) - f64::from(OVERHEAD_REFERENCE_SIZE_BYTES);
        let overhead_ns = self.overhead_o_ns + self.overhead_per_byte_ns * extra_bytes;
        if overhead_ns < 0.0 {
            return Err(SciModelError::NegativeOverhead {
                size_bytes,
                overhead_ns,
            });
        }
        Ok(overhead_ns)
    }
}

/// How many times each latency component lies on the critical path of a packet (or,
/// for averages, the mean number of times; for multi-unicast, the total).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ComponentCounts {
    /// Number of overheads `o` (2 per packet: sender and receiver).
    pub overhead_count: f64,
    /// Number of propagation delays `l_p` (one per hop).
    pub propagation_lp_count: f64,
    /// Number of forwarding delays `l_f` (one per intermediate node on a ring).
    pub forwarding_lf_count: f64,
    /// Number of switching delays `l_s` (one per change of dimension).
    pub switching_ls_count: f64,
}

impl ComponentCounts {
    /// Latency (ns) of these counts for an `size_bytes`-byte message:
    /// `count_o o(m) + count_p l_p + count_f l_f + count_s l_s`.
    pub fn latency_ns(
        &self,
        components: &SciComponents,
        size_bytes: u32,
    ) -> Result<f64, SciModelError> {
        Ok(self.overhead_count * components.overhead_ns(size_bytes)?
            + self.propagation_lp_count * components.propagation_lp_ns
            + self.forwarding_lf_count * components.forwarding_lf_ns
            + self.switching_ls_count * components.switching_ls_ns)
    }
}

/// Errors of the SCI model; each variant names the violated condition.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SciModelError {
    /// A latency component is negative, NaN or infinite.
    #[error("latency component {name} = {value} must be finite and >= 0 ns")]
    InvalidComponent {
        /// Field name of the component.
        name: &'static str,
        /// The rejected value.
        value: f64,
    },
    /// The linear overhead model is negative at this message size.
    #[error(
        "overhead o = {overhead_ns} ns is negative for a {size_bytes}-byte message; \
         use a larger size or a smaller overhead_per_byte_ns"
    )]
    NegativeOverhead {
        /// Message size (bytes).
        size_bytes: u32,
        /// The negative overhead (ns).
        overhead_ns: f64,
    },
    /// Fewer than two nodes per dimension (or a non-finite value).
    #[error("a torus needs a finite number n >= 2 of nodes per dimension, got {nodes_per_dim}")]
    NodesPerDimOutOfRange {
        /// The rejected number of nodes per dimension.
        nodes_per_dim: f64,
    },
    /// A torus of zero dimensions was asked for.
    #[error("the number of dimensions D must be at least 1 (1 = a single ring)")]
    ZeroDimensions,
    /// The list of dimensions to compare is empty.
    #[error("no dimensions given; pass at least one, e.g. 1,2,3,4")]
    NoDimensions,
    /// `n^D` overflows a finite floating-point number.
    #[error(
        "a torus of {nodes_per_dim}^{dims} nodes is too large to evaluate; use fewer dimensions"
    )]
    SystemTooLarge {
        /// Nodes per dimension.
        nodes_per_dim: f64,
        /// Number of dimensions.
        dims: u32,
    },
    /// Source and destination coordinates have different lengths.
    #[error(
        "source has {source_dims} coordinates but destination has {destination_dims}; give one per dimension"
    )]
    CoordinateCountMismatch {
        /// Number of source coordinates.
        source_dims: usize,
        /// Number of destination coordinates.
        destination_dims: usize,
    },
    /// A coordinate is not in `0..n`.
    #[error("coordinate {coordinate} is outside 0..{nodes_per_dim}")]
    CoordinateOutOfRange {
        /// The rejected coordinate.
        coordinate: u32,
        /// Nodes per dimension.
        nodes_per_dim: u32,
    },
    /// Source equals destination: there is no transaction to model.
    #[error("source and destination are the same node; pick two distinct nodes")]
    SameNode,
    /// A crossover was asked between a dimension count and one not larger.
    #[error("crossover needs from_dims < to_dims, got {from_dims} -> {to_dims}")]
    CrossoverDimsNotIncreasing {
        /// Lower dimension count.
        from_dims: u32,
        /// Higher dimension count.
        to_dims: u32,
    },
    /// The largest system size is below the smallest torus of some requested dimension.
    #[error(
        "max nodes {max_nodes} is below 2^{dims}, the smallest {dims}-dimensional torus; \
         raise max nodes or drop that dimension"
    )]
    MaxNodesTooSmall {
        /// The requested largest system size.
        max_nodes: u32,
        /// The dimension count that does not fit.
        dims: u32,
    },
    /// A ring ping-pong path of zero hops.
    #[error("a ring ping-pong path needs at least 1 hop")]
    ZeroHops,
    /// A measured ping-pong latency is negative, NaN or infinite.
    #[error("measured ping-pong latency {name} = {value} must be finite and >= 0 ns")]
    InvalidMeasurement {
        /// Field name of the measurement.
        name: &'static str,
        /// The rejected value.
        value: f64,
    },
    /// Eqs. 18-20 give a negative component: the measurements are inconsistent.
    #[error(
        "solving eqs. 18-20 gives {name} = {value} ns < 0; the measurements are inconsistent \
         (check that the longer paths were measured slower)"
    )]
    NegativeSolution {
        /// Component name.
        name: &'static str,
        /// The negative solution (ns).
        value: f64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table1_overhead_line() {
        let c = SciComponents::paper_table1();
        assert_eq!(c.overhead_ns(64).unwrap(), 2085.0);
        // Table 1 at 512 bytes: 2085 + 11.6 * 448 = 7281.8 ns. Fig. 12 labels the
        // measured overhead at 512 bytes as 7268 ns; the linear estimate is within 0.2 %,
        // and the labels' own slope (7268 - 2085) / 448 = 11.57 rounds to 11.6 ns/byte.
        let o512 = c.overhead_ns(512).unwrap();
        assert!((o512 - 7281.8).abs() < 1e-9);
        assert!((o512 - 7268.0).abs() / 7268.0 < 0.002);
        assert!((((7268.0 - 2085.0) / 448.0) - 11.6_f64).abs() < 0.05);
        // Below 64 bytes the line goes down: 2085 - 11.6 * 64 = 1342.6 ns at 0 bytes.
        assert!((c.overhead_ns(0).unwrap() - 1342.6).abs() < 1e-9);
    }

    #[test]
    fn propagation_latency_of_one_metre_cable() {
        // Section 5.2: half the speed of light (299,792.5 km/s) over 1 m cables gives
        // l_p = 7 ns: 1 m / 149,896 km/s = 6.67 ns, rounded to 7.
        let lp_ns: f64 = 1.0 / (299_792.5e3 / 2.0) * 1e9;
        assert!((lp_ns - 6.67).abs() < 0.01);
        assert_eq!(
            lp_ns.round(),
            SciComponents::paper_table1().propagation_lp_ns
        );
    }

    #[test]
    fn packet_overlap_ends_after_three_hops() {
        // Chapter 4: a 40-symbol packet on a 16-bit (one symbol) path with a 5 ns cycle
        // takes 200 ns to put on the link; with l_f = 60 and l_p = 7 ns the hop latencies
        // match that "after traversing only 3 hops".
        let c = SciComponents::paper_table1();
        let injection_ns = 40.0 * 5.0;
        let hop_ns = c.forwarding_lf_ns + c.propagation_lp_ns;
        assert_eq!(injection_ns, 200.0);
        assert!(2.0 * hop_ns < injection_ns && 3.0 * hop_ns >= injection_ns);
    }

    #[test]
    fn enhanced_halves_only_switching() {
        let e = SciComponents::paper_table1().enhanced();
        assert_eq!(e.switching_ls_ns, 335.0);
        assert_eq!(
            SciComponents {
                switching_ls_ns: 670.0,
                ..e
            },
            SciComponents::paper_table1()
        );
    }

    #[test]
    fn invalid_components_are_rejected() {
        let bad = [
            SciComponents::new(-1.0, 60.0, 670.0, 2085.0, 11.6),
            SciComponents::new(7.0, f64::NAN, 670.0, 2085.0, 11.6),
            SciComponents::new(7.0, 60.0, f64::INFINITY, 2085.0, 11.6),
            SciComponents::new(7.0, 60.0, 670.0, -0.5, 11.6),
            SciComponents::new(7.0, 60.0, 670.0, 2085.0, -11.6),
        ];
        let names: Vec<_> = bad
            .iter()
            .map(|r| match r {
                Err(SciModelError::InvalidComponent { name, .. }) => *name,
                other => panic!("expected InvalidComponent, got {other:?}"),
            })
            .collect();
        assert_eq!(
            names,
            [
                "propagation_lp_ns",
                "forwarding_lf_ns",
                "switching_ls_ns",
                "overhead_o_ns",
                "overhead_per_byte_ns"
            ]
        );
        let steep = SciComponents::new(7.0, 60.0, 670.0, 100.0, 10.0).unwrap();
        assert!(matches!(
            steep.overhead_ns(0),
            Err(SciModelError::NegativeOverhead { size_bytes: 0, .. })
        ));
    }
}
