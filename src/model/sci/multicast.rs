//! The one-to-all multi-unicast with a sender that does not wait (Gonzalez 2000,
//! section 6, derived again): what one source overlaps when it sends `N - 1` requests.
//!
//! The thesis charges a multi-unicast the sum of its `N - 1` ping-request latencies
//! ([`super::torus::multi_unicast_counts`]): each request waits for the one before to be
//! taken off at its destination. That sum is `(N - 1)` times the average of eq. 17, so
//! it ranks topologies as the average does. A sender that posts its requests back to
//! back overlaps most of that. Per request, the resources that cannot overlap are:
//! - the sender's own overhead `o(m)`: its processor puts one packet out at a time;
//! - the ring's occupancy: a packet holds a link for its symbols, `40` symbols of
//!   `5` ns (16-bit path) for each 64-byte packet, `200` ns ([`link_occupancy_ns`]).
//!   On a ring every link carries each transaction once (request `h` hops, response
//!   `n - h`), so the busiest link holds one packet per destination; on a torus the
//!   sender's links carry at most that;
//! - the agents: a change of ring is store-and-forward, `l_s` per packet, and requests
//!   sent one after the other to neighbouring destinations cross the same agent.
//!
//! So request `k` (`k = 0 .. N-2`) leaves at `k g`, `g = max(o, t_link, l_s)`
//! ([`issue_gap_ns`]); the responses come back over the rings and are taken off by the
//! sender's adapter, not its processor, as the ping-pong analysis (Fig. 9) keeps them
//! off the critical path. With no queueing (each resource idle again within `g`, true
//! for Table 1: `g = o = 2085 ns` against `t_link = 200` and `l_s = 670`) the last
//! request is taken off at `max_k (k g + L_k)`, `L_k` its eq. 8 latency. The order of
//! the destinations decides it:
//! - counted by their offsets (`h_1, ..., h_D`, the loop a program writes), the last is
//!   the farthest and no earlier one ends later: `T = (N - 2) g + L_far`, with
//!   `L_far = 2 o + D (n-1) l_p + D (n-2) l_f + (D-1) l_s` ([`pipelined_multi_unicast_ns`]);
//! - farthest first, the last is a neighbour: `T = (N - 2) g + 2 o + l_p` on every
//!   torus whenever `g` exceeds the latency step between consecutive destinations, and
//!   no topology wins.
//!
//! At equal `N` the `(N - 2) g` cancels: the offset-order crossovers are those of the
//! farthest request, not of the average. [`multi_unicast_by_order_ns`] enumerates an
//! integer torus to check both closed forms.

use super::torus::request_counts;
use super::{ComponentCounts, SciComponents, SciModelError};

/// Symbols of a 64-byte SCI packet (chapter 4: "assuming a 40-symbol packet").
pub const PACKET_SYMBOLS: f64 = 40.0;
/// One symbol (16 bits) per link cycle of 5 ns (chapter 4).
pub const LINK_CYCLE_NS: f64 = 5.0;
/// Payload bytes of one packet.
pub const PACKET_PAYLOAD_BYTES: u32 = 64;

/// Order in which the sender visits its destinations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DestinationOrder {
    /// By offset vector, last dimension fastest: the farthest node comes last.
    ByOffset,
    /// Longest request first (ties by offset).
    FarthestFirst,
}

/// Time an `size_bytes`-byte message holds one link: `ceil(m / 64)` packets of
/// 40 symbols at 5 ns (ns); 200 ns for one 64-byte packet.
pub fn link_occupancy_ns(size_bytes: u32) -> f64 {
    f64::from(size_bytes.max(1).div_ceil(PACKET_PAYLOAD_BYTES)) * PACKET_SYMBOLS * LINK_CYCLE_NS
}

/// Interval between two requests of a sender that does not wait,
/// `g = max(o(m), t_link(m), l_s)` (ns).
pub fn issue_gap_ns(components: &SciComponents, size_bytes: u32) -> Result<f64, SciModelError> {
    Ok(components
        .overhead_ns(size_bytes)?
        .max(link_occupancy_ns(size_bytes))
        .max(components.switching_ls_ns))
}

/// Counts of the farthest request on a torus (offset `n - 1` in every dimension):
/// `2` overheads, `D (n-1)` hops, `D (n-2)` forwards, `D - 1` switches. Real `n >= 2`.
pub fn farthest_request_counts(
    nodes_per_dim: f64,
    dims: u32,
) -> Result<ComponentCounts, SciModelError> {
    if !(nodes_per_dim.is_finite() && nodes_per_dim >= 2.0) {
        return Err(SciModelError::NodesPerDimOutOfRange { nodes_per_dim });
    }
    if dims == 0 {
        return Err(SciModelError::ZeroDimensions);
    }
    let d = f64::from(dims);
    Ok(ComponentCounts {
        overhead_count: 2.0,
        propagation_lp_count: d * (nodes_per_dim - 1.0),
        forwarding_lf_count: d * (nodes_per_dim - 2.0),
        switching_ls_count: d - 1.0,
    })
}

/// One-to-all multi-unicast by a sender that does not wait, destinations by offset:
/// `(N - 2) g + L_far` (ns), for real `nodes_per_dim >= 2`.
pub fn pipelined_multi_unicast_ns(
    components: &SciComponents,
    size_bytes: u32,
    nodes_per_dim: f64,
    dims: u32,
) -> Result<f64, SciModelError> {
    let far = farthest_request_counts(nodes_per_dim, dims)?.latency_ns(components, size_bytes)?;
    let exponent = i32::try_from(dims).map_err(|_| SciModelError::SystemTooLarge {
        nodes_per_dim,
        dims,
    })?;
    let nodes = nodes_per_dim.powi(exponent);
    if !nodes.is_finite() {
        return Err(SciModelError::SystemTooLarge {
            nodes_per_dim,
            dims,
        });
    }
    Ok((nodes - 2.0) * issue_gap_ns(components, size_bytes)? + far)
}

/// `max_k (k g + L_k)` over the destinations of node 0 of an integer torus in `order`
/// (ns): the enumeration the closed forms are checked against.
pub fn multi_unicast_by_order_ns(
    components: &SciComponents,
    size_bytes: u32,
    nodes_per_dim: u32,
    dims: u32,
    order: DestinationOrder,
) -> Result<f64, SciModelError> {
    let n = nodes_per_dim;
    let nodes = n.checked_pow(dims).ok_or(SciModelError::SystemTooLarge {
        nodes_per_dim: f64::from(n),
        dims,
    })?;
    let source = vec![0; dims as usize];
    let mut latencies = (1..nodes)
        .map(|i| {
            // Offset vector of destination i, last dimension fastest.
            let to: Vec<u32> = (0..dims).rev().map(|k| i / n.pow(k) % n).collect();
            request_counts(n, &source, &to)?.latency_ns(components, size_bytes)
        })
        .collect::<Result<Vec<f64>, _>>()?;
    if order == DestinationOrder::FarthestFirst {
        latencies.sort_by(|a, b| b.total_cmp(a));
    }
    let gap = issue_gap_ns(components, size_bytes)?;
    Ok(latencies
        .iter()
        .enumerate()
        .map(|(k, l)| k as f64 * gap + l)
        .fold(f64::NEG_INFINITY, f64::max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_occupancy_and_gap_of_table1() {
        // Chapter 4: 40 symbols x 5 ns = 200 ns for a 64-byte packet.
        assert_eq!(link_occupancy_ns(64), 200.0);
        assert_eq!(link_occupancy_ns(1), 200.0);
        assert_eq!(link_occupancy_ns(65), 400.0);
        assert_eq!(link_occupancy_ns(512), 1600.0);
        let c = SciComponents::paper_table1();
        // The sender's overhead binds: 2085 ns > 670 (l_s) > 200 (link).
        assert_eq!(issue_gap_ns(&c, 64).unwrap(), 2085.0);
        // A sender ten times faster is held by the agents' store-and-forward.
        let fast = SciComponents::new(7.0, 60.0, 670.0, 208.5, 0.0).unwrap();
        assert_eq!(issue_gap_ns(&fast, 64).unwrap(), 670.0);
        let faster = SciComponents::new(7.0, 60.0, 100.0, 50.0, 0.0).unwrap();
        assert_eq!(issue_gap_ns(&faster, 64).unwrap(), 200.0);
    }

    #[test]
    fn closed_forms_match_the_enumeration() {
        // Hand-worked: a 4-node ring, g = 2085: requests of 1, 2, 3 hops,
        // L = 4170 + 7, 4170 + 74, 4170 + 141; by offset the last (3 hops) ends at
        // 2 x 2085 + 4311 = 8481 ns; farthest first the neighbour ends at
        // 2 x 2085 + 4177 = 8347 ns.
        let c = SciComponents::paper_table1();
        let ring4 = |order| multi_unicast_by_order_ns(&c, 64, 4, 1, order).unwrap();
        assert_eq!(ring4(DestinationOrder::ByOffset), 8481.0);
        assert_eq!(ring4(DestinationOrder::FarthestFirst), 8347.0);
        for c in [c, c.enhanced()] {
            let g = issue_gap_ns(&c, 64).unwrap();
            for (n, dims) in [(2, 1), (9, 1), (2, 2), (6, 2), (3, 3), (4, 3), (3, 4)] {
                let nodes = f64::from(n).powi(dims as i32);
                let by_offset =
                    multi_unicast_by_order_ns(&c, 64, n, dims, DestinationOrder::ByOffset).unwrap();
                let closed = pipelined_multi_unicast_ns(&c, 64, f64::from(n), dims).unwrap();
                assert!((by_offset - closed).abs() < 1e-6, "{n}^{dims}");
                let first =
                    multi_unicast_by_order_ns(&c, 64, n, dims, DestinationOrder::FarthestFirst)
                        .unwrap();
                let neighbour = 2.0 * c.overhead_ns(64).unwrap() + c.propagation_lp_ns;
                assert!(
                    (first - ((nodes - 2.0) * g + neighbour)).abs() < 1e-6,
                    "{n}^{dims}"
                );
            }
        }
    }

    #[test]
    fn farthest_request_is_eq8_at_offset_n_minus_1() {
        let c = SciComponents::paper_table1();
        for (n, dims) in [(5u32, 1u32), (4, 2), (3, 3)] {
            let far = vec![n - 1; dims as usize];
            let eq8 = request_counts(n, &vec![0; dims as usize], &far).unwrap();
            assert_eq!(farthest_request_counts(f64::from(n), dims).unwrap(), eq8);
        }
        assert!(farthest_request_counts(1.5, 2).is_err());
        assert!(farthest_request_counts(3.0, 0).is_err());
        assert!(pipelined_multi_unicast_ns(&c, 64, 1e300, 4).is_err());
    }
}
