//! Ping-pong (PP) configurations and the decomposition of measured PP latencies into
//! SCI latency components (Gonzalez 2000, sections 5.2-5.4, eqs. 18-25).
//!
//! The PP latency (half the round trip) equals the latency of one ping request (Fig. 9),
//! so each configuration is modelled by the request counts of eq. 8:
//! - Fig. 10, ring tests: a symmetric path of `k` hops on a ring of `2k` nodes (the
//!   three-hop test is the "6-node ring" of Fig. 13a), so ping and pong both travel `k`
//!   hops: `PP_k = 2 o + (k-1) l_f + k l_p` (eqs. 18, 19, 21-25).
//! - Fig. 11, torus tests on the nine-node testbed, a 3x3 torus: the non-switching path
//!   goes 2 hops along one ring, `PP = 2 o + l_f + 2 l_p`; the switching path goes 2 hops
//!   then 1 hop on the other ring, `PP = 2 o + l_f + 3 l_p + l_s` (eq. 20). The exact
//!   nodes of Fig. 11 are not legible in the transcription; these coordinates are the
//!   ones consistent with eq. 20. As the paper notes, the non-switching pong travels
//!   only 1 hop back, so eq. 20 is a close approximation there.
//!
//! With `l_p` known (7 ns from the cable length), eqs. 18-20 give
//! `o = (PP_1 - l_p) / 2`, `l_f = (PP_4 - PP_1) / 3 - l_p` and
//! `l_s = PP_switching - PP_non-switching - l_p` (all ns, at the measured message size).

use super::torus::request_counts;
use super::{ComponentCounts, SciComponents, SciModelError};
use serde::{Deserialize, Serialize};

/// A ping-pong test configuration of the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PingPongPath {
    /// Symmetric ring test (Fig. 10): `hops` hops on a ring of `2 * hops` nodes.
    Ring {
        /// Hops from source to destination (>= 1).
        hops: u32,
    },
    /// Torus test without a change of dimension (Fig. 11a): 2 hops on a 3x3 torus.
    TorusNonSwitching,
    /// Torus test with one change of dimension (Fig. 11b): 2 + 1 hops on a 3x3 torus.
    TorusSwitching,
}

impl PingPongPath {
    /// Component counts of the ping request of this configuration (eq. 8).
    pub fn counts(&self) -> Result<ComponentCounts, SciModelError> {
        match *self {
            Self::Ring { hops: 0 } => Err(SciModelError::ZeroHops),
            Self::Ring { hops } => {
                let ring_nodes = hops.checked_mul(2).ok_or(SciModelError::SystemTooLarge {
                    nodes_per_dim: 2.0 * f64::from(hops),
                    dims: 1,
                })?;
                request_counts(ring_nodes, &[0], &[hops])
            }
            Self::TorusNonSwitching => request_counts(3, &[0, 0], &[2, 0]),
            Self::TorusSwitching => request_counts(3, &[0, 0], &[2, 1]),
        }
    }
}

/// Model PP latency (ns) of one configuration for a `size_bytes`-byte message.
pub fn ping_pong_ns(
    components: &SciComponents,
    size_bytes: u32,
    path: PingPongPath,
) -> Result<f64, SciModelError> {
    path.counts()?.latency_ns(components, size_bytes)
}

/// The four PP latencies that eqs. 18-20 use (ns, one message size).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PingPongSet {
    /// One-hop ring test, Fig. 10a (ns).
    pub one_hop_ns: f64,
    /// Four-hop ring test (ns).
    pub four_hop_ns: f64,
    /// Torus test without switching, Fig. 11a (ns).
    pub torus_non_switching_ns: f64,
    /// Torus test with one switch, Fig. 11b (ns).
    pub torus_switching_ns: f64,
}

/// Components solved from one message size's PP latencies (ns).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SolvedComponents {
    /// Propagation latency `l_p`, as given (ns).
    pub propagation_lp_ns: f64,
    /// Forwarding latency `l_f`, eq. 19 (ns).
    pub forwarding_lf_ns: f64,
    /// Switching latency `l_s`, eq. 20 (ns).
    pub switching_ls_ns: f64,
    /// Overhead `o` at the measured message size, eq. 18 (ns).
    pub overhead_o_ns: f64,
}

/// Model predictions of the four PP latencies of eqs. 18-20 (the inverse of
/// [`solve_components`]).
pub fn predict_ping_pong(
    components: &SciComponents,
    size_bytes: u32,
) -> Result<PingPongSet, SciModelError> {
    let pp = |path| ping_pong_ns(components, size_bytes, path);
    Ok(PingPongSet {
        one_hop_ns: pp(PingPongPath::Ring { hops: 1 })?,
        four_hop_ns: pp(PingPongPath::Ring { hops: 4 })?,
        torus_non_switching_ns: pp(PingPongPath::TorusNonSwitching)?,
        torus_switching_ns: pp(PingPongPath::TorusSwitching)?,
    })
}

/// Solves `o`, `l_f` and `l_s` from measured PP latencies with `l_p` given, as the paper
/// does (eqs. 18-20).
pub fn solve_components(
    measured: &PingPongSet,
    propagation_lp_ns: f64,
) -> Result<SolvedComponents, SciModelError> {
    let inputs = [
        ("one_hop_ns", measured.one_hop_ns),
        ("four_hop_ns", measured.four_hop_ns),
        ("torus_non_switching_ns", measured.torus_non_switching_ns),
        ("torus_switching_ns", measured.torus_switching_ns),
        ("propagation_lp_ns", propagation_lp_ns),
    ];
    if let Some(&(name, value)) = inputs.iter().find(|(_, v)| !(v.is_finite() && *v >= 0.0)) {
        return Err(SciModelError::InvalidMeasurement { name, value });
    }
    let lp = propagation_lp_ns;
    let solved = SolvedComponents {
        propagation_lp_ns: lp,
        overhead_o_ns: (measured.one_hop_ns - lp) / 2.0,
        forwarding_lf_ns: (measured.four_hop_ns - measured.one_hop_ns) / 3.0 - lp,
        switching_ls_ns: measured.torus_switching_ns - measured.torus_non_switching_ns - lp,
    };
    let outputs = [
        ("overhead_o_ns", solved.overhead_o_ns),
        ("forwarding_lf_ns", solved.forwarding_lf_ns),
        ("switching_ls_ns", solved.switching_ls_ns),
    ];
    match outputs.iter().find(|(_, v)| *v < 0.0) {
        Some(&(name, value)) => Err(SciModelError::NegativeSolution { name, value }),
        None => Ok(solved),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(p: f64, f: f64, s: f64) -> ComponentCounts {
        ComponentCounts {
            overhead_count: 2.0,
            propagation_lp_count: p,
            forwarding_lf_count: f,
            switching_ls_count: s,
        }
    }

    #[test]
    fn configurations_reproduce_equations_18_to_25() {
        // Eqs. 18/22: 2o + l_p; 23: 2o + l_f + 2 l_p; 21/24: 2o + 2 l_f + 3 l_p;
        // 19/25: 2o + 3 l_f + 4 l_p; eq. 20: 2o + l_f + 2 l_p and 2o + l_f + 3 l_p + l_s.
        let ring = |hops| PingPongPath::Ring { hops }.counts().unwrap();
        assert_eq!(ring(1), counts(1.0, 0.0, 0.0));
        assert_eq!(ring(2), counts(2.0, 1.0, 0.0));
        assert_eq!(ring(3), counts(3.0, 2.0, 0.0));
        assert_eq!(ring(4), counts(4.0, 3.0, 0.0));
        assert_eq!(
            PingPongPath::TorusNonSwitching.counts().unwrap(),
            counts(2.0, 1.0, 0.0)
        );
        assert_eq!(
            PingPongPath::TorusSwitching.counts().unwrap(),
            counts(3.0, 1.0, 1.0)
        );
        // The ring paths are symmetric: the pong (response direction) has the same counts.
        for hops in 1..=4 {
            let n = 2 * hops;
            assert_eq!(
                request_counts(n, &[hops], &[0]).unwrap(),
                ring(hops),
                "{hops}-hop pong"
            );
        }
    }

    #[test]
    fn differences_of_equations_19_and_20() {
        // Eq. 19: PP_4 - PP_1 = 3 l_f + 3 l_p; eq. 20: PP_sw - PP_nsw = l_s + l_p,
        // whatever the components.
        let c = SciComponents::new(5.0, 41.0, 333.0, 1500.0, 3.0).unwrap();
        for size in [0, 64, 300] {
            let pp = predict_ping_pong(&c, size).unwrap();
            assert!((pp.four_hop_ns - pp.one_hop_ns - 3.0 * (41.0 + 5.0)).abs() < 1e-9);
            assert!((pp.torus_switching_ns - pp.torus_non_switching_ns - 338.0).abs() < 1e-9);
        }
    }

    #[test]
    fn table1_predictions_and_figure_13b() {
        // Table 1 at 64 bytes (o = 2085 ns): the ring tests of Fig. 13b (1-4 hops on rings
        // of 2, 4, 6, 8 nodes) are 4177, 4244, 4311 (eq. 21) and 4378 ns, rising by
        // l_f + l_p = 67 ns per hop; the torus tests are 4244 and 4921 ns.
        let c = SciComponents::paper_table1();
        let ring: Vec<f64> = (1..=4)
            .map(|hops| ping_pong_ns(&c, 64, PingPongPath::Ring { hops }).unwrap())
            .collect();
        assert_eq!(ring, [4177.0, 4244.0, 4311.0, 4378.0]);
        let pp = predict_ping_pong(&c, 64).unwrap();
        assert_eq!(pp.torus_non_switching_ns, 4244.0);
        assert_eq!(pp.torus_switching_ns, 4921.0);
        // Fig. 13a: the three-hop test at 512 bytes, 2 * 7281.8 + 2 * 60 + 3 * 7 ns.
        let three_hop_512 = ping_pong_ns(&c, 512, PingPongPath::Ring { hops: 3 }).unwrap();
        assert!((three_hop_512 - 14_704.6).abs() < 1e-9);
    }

    #[test]
    fn round_trip_components_to_ping_pong_and_back() {
        let components = [
            SciComponents::paper_table1(),
            SciComponents::paper_table1().enhanced(),
            SciComponents::new(3.5, 12.0, 95.0, 800.0, 0.7).unwrap(),
            SciComponents::new(0.0, 0.0, 0.0, 1.0, 0.0).unwrap(),
        ];
        for c in components {
            for size in [1, 64, 128, 512, 4096] {
                let solved =
                    solve_components(&predict_ping_pong(&c, size).unwrap(), c.propagation_lp_ns)
                        .unwrap();
                let o = c.overhead_ns(size).unwrap();
                assert!((solved.overhead_o_ns - o).abs() < 1e-9 * o.max(1.0));
                assert!((solved.forwarding_lf_ns - c.forwarding_lf_ns).abs() < 1e-9);
                assert!((solved.switching_ls_ns - c.switching_ls_ns).abs() < 1e-9);
                assert_eq!(solved.propagation_lp_ns, c.propagation_lp_ns);
            }
        }
    }

    #[test]
    fn bad_measurements_are_rejected() {
        assert_eq!(
            PingPongPath::Ring { hops: 0 }.counts(),
            Err(SciModelError::ZeroHops)
        );
        assert!(matches!(
            PingPongPath::Ring { hops: u32::MAX }.counts(),
            Err(SciModelError::SystemTooLarge { .. })
        ));
        let good = predict_ping_pong(&SciComponents::paper_table1(), 64).unwrap();
        let nan = PingPongSet {
            four_hop_ns: f64::NAN,
            ..good
        };
        assert!(matches!(
            solve_components(&nan, 7.0),
            Err(SciModelError::InvalidMeasurement {
                name: "four_hop_ns",
                ..
            })
        ));
        assert!(matches!(
            solve_components(&good, -7.0),
            Err(SciModelError::InvalidMeasurement { .. })
        ));
        let swapped = PingPongSet {
            torus_switching_ns: good.torus_non_switching_ns,
            torus_non_switching_ns: good.torus_switching_ns,
            ..good
        };
        assert!(matches!(
            solve_components(&swapped, 7.0),
            Err(SciModelError::NegativeSolution {
                name: "switching_ls_ns",
                ..
            })
        ));
    }
}
