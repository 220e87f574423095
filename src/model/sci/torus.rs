//! Point-to-point and average latency on a D-dimensional SCI torus (chapter 4 of
//! Gonzalez 2000, eqs. 1-17) and the one-to-all multi-unicast of section 6.
//!
//! Every dimension is a unidirectional SCI ring of `n` nodes. A request from source `s`
//! to destination `d` travels `h_k = (d_k - s_k) mod n` hops forward on the ring of
//! dimension `k`, dimension by dimension; the response travels back from `d` to `s` the
//! same way, i.e. `(n - h_k) mod n` hops: the rest of each ring. Along one packet's
//! path (eq. 8):
//! - the sender and the receiver each add an overhead `o` (2 per packet);
//! - each hop adds a propagation delay `l_p`;
//! - each node passed on the same ring adds a forwarding delay `l_f`
//!   (`h_k - 1` per used dimension);
//! - each change of ring adds a switching delay `l_s` at the agent
//!   (used dimensions minus 1).
//!
//! So `L_request = 2 o + sum h_k l_p + sum (h_k - min(h_k,1)) l_f + (sum min(h_k,1) - 1) l_s`
//! and eq. 9 is the same expression for the return hops `min(h_k,1) (n - h_k)`.
//!
//! Averaging over the `N - 1 = n^D - 1` destinations of a fixed source (eqs. 14-16,
//! re-derived here because the transcription is damaged; the sum over all `n^D`
//! offset vectors of `h_k` is `n^(D-1) n (n-1) / 2`, and `n^(D-1) (n-1)` of them have
//! `h_k != 0`):
//! - hops: `D n^D (n-1) / (2 (n^D - 1))`, the same for requests and responses (eq. 14);
//! - dimension switches: `D n^(D-1) (n-1) / (n^D - 1) - 1`, which equals the paper's
//!   `sum_i (i-1) C(D,i) (n-1)^i / (n^D - 1)` (eq. 15);
//! - forwarding delays: hops minus used dimensions,
//!   `D n^(D-1) (n-1) (n-2) / (2 (n^D - 1))` (eq. 16);
//! - eq. 17 is `2 o` plus these averages weighted by `l_p`, `l_f`, `l_s`.
//!
//! The one-to-all multi-unicast (section 6: a fixed source sends one unicast to every
//! other node; its cost is the sum of those point-to-point request latencies) is
//! therefore exactly `(n^D - 1)` times the average latency. The closed forms accept a
//! real `n >= 2`, which chapter 6 uses to extrapolate between realisable sizes.

use super::{ComponentCounts, SciComponents, SciModelError};
use serde::{Deserialize, Serialize};

/// Request, response and whole-transaction latency between two nodes (ns).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PointToPointLatency {
    /// Request packet latency, eq. 8 (ns).
    pub request_ns: f64,
    /// Response packet latency, eq. 9 (ns).
    pub response_ns: f64,
    /// Transaction latency `L_request + L_response`, eq. 1 (ns).
    pub transaction_ns: f64,
}

/// Component counts of the request packet from `source` to `destination` on a torus
/// with `nodes_per_dim` nodes per ring (eq. 8); coordinates give one entry per
/// dimension, each in `0..nodes_per_dim`.
pub fn request_counts(
    nodes_per_dim: u32,
    source: &[u32],
    destination: &[u32],
) -> Result<ComponentCounts, SciModelError> {
    Ok(path_counts(&hops(nodes_per_dim, source, destination)?))
}

/// Component counts of the response packet that the destination returns to the source
/// (eq. 9): the request counts of the reverse path, `min(h_k,1) (n - h_k)` hops per ring.
pub fn response_counts(
    nodes_per_dim: u32,
    source: &[u32],
    destination: &[u32],
) -> Result<ComponentCounts, SciModelError> {
    request_counts(nodes_per_dim, destination, source)
}

/// Request, response and transaction latency (eqs. 1, 8, 9) for a `size_bytes`-byte
/// message between two nodes given by their coordinates.
pub fn point_to_point_ns(
    components: &SciComponents,
    size_bytes: u32,
    nodes_per_dim: u32,
    source: &[u32],
    destination: &[u32],
) -> Result<PointToPointLatency, SciModelError> {
    let request_ns =
        request_counts(nodes_per_dim, source, destination)?.latency_ns(components, size_bytes)?;
    let response_ns =
        response_counts(nodes_per_dim, source, destination)?.latency_ns(components, size_bytes)?;
    Ok(PointToPointLatency {
        request_ns,
        response_ns,
        transaction_ns: request_ns + response_ns,
    })
}

/// Total component counts of a one-to-all multi-unicast: the sum of the request counts
/// from one source to each of the other `n^D - 1` nodes. Closed form, valid for real
/// `nodes_per_dim >= 2`.
pub fn multi_unicast_counts(
    nodes_per_dim: f64,
    dims: u32,
) -> Result<ComponentCounts, SciModelError> {
    let n = nodes_per_dim;
    let (nodes, nodes_per_face) = system_size(n, dims)?;
    let d = f64::from(dims);
    let used_dims = d * nodes_per_face * (n - 1.0);
    Ok(ComponentCounts {
        overhead_count: 2.0 * (nodes - 1.0),
        propagation_lp_count: d * nodes * (n - 1.0) / 2.0,
        forwarding_lf_count: used_dims * (n - 2.0) / 2.0,
        switching_ls_count: used_dims - (nodes - 1.0),
    })
}

/// Average component counts of a request (equally, a response) to a uniformly random
/// other node (eqs. 14, 15, 16 in `propagation_lp_count`, `switching_ls_count`,
/// `forwarding_lf_count`; `overhead_count` is 2). Valid for real `nodes_per_dim >= 2`.
pub fn average_counts(nodes_per_dim: f64, dims: u32) -> Result<ComponentCounts, SciModelError> {
    let total = multi_unicast_counts(nodes_per_dim, dims)?;
    let destinations = system_size(nodes_per_dim, dims)?.0 - 1.0;
    Ok(ComponentCounts {
        overhead_count: total.overhead_count / destinations,
        propagation_lp_count: total.propagation_lp_count / destinations,
        forwarding_lf_count: total.forwarding_lf_count / destinations,
        switching_ls_count: total.switching_ls_count / destinations,
    })
}

/// `(n^D, n^(D-1))` after checking `n >= 2` finite, `D >= 1` and a finite size.
fn system_size(nodes_per_dim: f64, dims: u32) -> Result<(f64, f64), SciModelError> {
    if !(nodes_per_dim.is_finite() && nodes_per_dim >= 2.0) {
        return Err(SciModelError::NodesPerDimOutOfRange { nodes_per_dim });
    }
    if dims == 0 {
        return Err(SciModelError::ZeroDimensions);
    }
    let too_large = SciModelError::SystemTooLarge {
        nodes_per_dim,
        dims,
    };
    let exponent = i32::try_from(dims).map_err(|_| too_large.clone())?;
    let nodes = nodes_per_dim.powi(exponent);
    if !nodes.is_finite() {
        return Err(too_large);
    }
    Ok((nodes, nodes_per_dim.powi(exponent - 1)))
}

/// Hops per dimension from `from` to `to` on unidirectional rings of `n` nodes.
fn hops(n: u32, from: &[u32], to: &[u32]) -> Result<Vec<u32>, SciModelError> {
    if n < 2 {
        return Err(SciModelError::NodesPerDimOutOfRange {
            nodes_per_dim: f64::from(n),
        });
    }
    if from.is_empty() {
        return Err(SciModelError::ZeroDimensions);
    }
    if from.len() != to.len() {
        return Err(SciModelError::CoordinateCountMismatch {
            source_dims: from.len(),
            destination_dims: to.len(),
        });
    }
    if let Some(&coordinate) = from.iter().chain(to).find(|&&c| c >= n) {
        return Err(SciModelError::CoordinateOutOfRange {
            coordinate,
            nodes_per_dim: n,
        });
    }
    if from == to {
        return Err(SciModelError::SameNode);
    }
    Ok(from
        .iter()
        .zip(to)
        .map(|(&f, &t)| (t + n - f) % n)
        .collect())
}

/// Eq. 8 for a path with `hops[k]` hops in dimension `k` (not all zero).
fn path_counts(hops: &[u32]) -> ComponentCounts {
    let total_hops: u32 = hops.iter().sum();
    let used_dims = hops.iter().filter(|&&h| h > 0).count() as u32;
    ComponentCounts {
        overhead_count: 2.0,
        propagation_lp_count: f64::from(total_hops),
        forwarding_lf_count: f64::from(total_hops - used_dims),
        switching_ls_count: f64::from(used_dims - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (n, D) tori enumerated by brute force: rings 2..9, 2-D up to 6x6, 3-D up to
    /// 4x4x4, 4-D up to 3x3x3x3.
    fn tori() -> Vec<(u32, u32)> {
        let mut t: Vec<_> = (2..=9).map(|n| (n, 1)).collect();
        t.extend((2..=6).map(|n| (n, 2)));
        t.extend((2..=4).map(|n| (n, 3)));
        t.extend((2..=3).map(|n| (n, 4)));
        t
    }

    fn all_nodes(n: u32, dims: u32) -> Vec<Vec<u32>> {
        (0..n.pow(dims))
            .map(|i| (0..dims).map(|k| i / n.pow(k) % n).collect())
            .collect()
    }

    fn counts(o: f64, p: f64, f: f64, s: f64) -> ComponentCounts {
        ComponentCounts {
            overhead_count: o,
            propagation_lp_count: p,
            forwarding_lf_count: f,
            switching_ls_count: s,
        }
    }

    /// Independent reference: move the packet one hop at a time in dimension order and
    /// charge, at every node it leaves except the source, a forwarding delay if it stays
    /// on the same ring or a switching delay if it changes ring.
    fn walk(n: u32, from: &[u32], to: &[u32]) -> ComponentCounts {
        let mut at = from.to_vec();
        let mut c = counts(2.0, 0.0, 0.0, 0.0);
        let mut last_dim = None;
        for dim in 0..at.len() {
            while at[dim] != to[dim] {
                match last_dim {
                    Some(d) if d == dim => c.forwarding_lf_count += 1.0,
                    Some(_) => c.switching_ls_count += 1.0,
                    None => {}
                }
                at[dim] = (at[dim] + 1) % n;
                c.propagation_lp_count += 1.0;
                last_dim = Some(dim);
            }
        }
        c
    }

    fn assert_close(a: ComponentCounts, b: ComponentCounts) {
        let pairs = [
            (a.overhead_count, b.overhead_count),
            (a.propagation_lp_count, b.propagation_lp_count),
            (a.forwarding_lf_count, b.forwarding_lf_count),
            (a.switching_ls_count, b.switching_ls_count),
        ];
        for (x, y) in pairs {
            assert!((x - y).abs() <= 1e-12 * y.abs().max(1.0), "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn request_and_response_match_hop_by_hop_walk() {
        for (n, dims) in tori() {
            let nodes = all_nodes(n, dims);
            for s in &nodes {
                for d in nodes.iter().filter(|d| *d != s) {
                    assert_eq!(request_counts(n, s, d).unwrap(), walk(n, s, d));
                    assert_eq!(response_counts(n, s, d).unwrap(), walk(n, d, s));
                }
            }
        }
    }

    #[test]
    fn paper_equations_2_to_7_as_printed() {
        let c = SciComponents::paper_table1();
        let (o, lp, lf, ls) = (2085.0, 7.0, 60.0, 670.0);
        // Eqs. 2-3, a ring of n nodes, request h hops.
        for n in 2..=9u32 {
            for h in 1..n {
                let l = point_to_point_ns(&c, 64, n, &[0], &[h]).unwrap();
                let (h, n) = (f64::from(h), f64::from(n));
                assert_eq!(l.request_ns, o + h * lp + (h - 1.0) * lf + o);
                assert_eq!(l.response_ns, o + (n - h) * lp + (n - h - 1.0) * lf + o);
            }
        }
        // Eqs. 6-7 (the min() form), a 5x5 torus.
        let n = 5u32;
        let nf = f64::from(n);
        for h1 in 0..n {
            for h2 in (0..n).filter(|&h2| h1 + h2 > 0) {
                let l = point_to_point_ns(&c, 64, n, &[0, 0], &[h1, h2]).unwrap();
                let [h1, h2] = [f64::from(h1), f64::from(h2)];
                let (m1, m2) = (h1.min(1.0), h2.min(1.0));
                let request =
                    2.0 * o + (h1 + h2) * lp + ((h1 - m1) + (h2 - m2)) * lf + (m1 + m2 - 1.0) * ls;
                let response = 2.0 * o
                    + (m1 * (nf - h1) + m2 * (nf - h2)) * lp
                    + (m1 * (nf - h1 - 1.0) + m2 * (nf - h2 - 1.0)) * lf
                    + (m1 + m2 - 1.0) * ls;
                assert_eq!(l.request_ns, request);
                assert_eq!(l.response_ns, response);
                assert_eq!(l.transaction_ns, request + response);
            }
        }
    }

    #[test]
    fn figure_3_transaction_on_3x3_torus() {
        // Fig. 3: request steps 1-9 are o, l_p, l_f, l_p, l_s, l_p, l_f, l_p, o (two hops
        // on each ring); response steps 10-14 are o, l_p, l_s, l_p, o (one hop back on
        // each ring). That is h = (2, 2) on a 3x3 torus.
        assert_eq!(
            request_counts(3, &[0, 0], &[2, 2]).unwrap(),
            counts(2.0, 4.0, 2.0, 1.0)
        );
        assert_eq!(
            response_counts(3, &[0, 0], &[2, 2]).unwrap(),
            counts(2.0, 2.0, 0.0, 1.0)
        );
    }

    #[test]
    fn averages_and_multi_unicast_match_brute_force() {
        for (n, dims) in tori() {
            let nodes = all_nodes(n, dims);
            let pairs = (nodes.len() * (nodes.len() - 1)) as f64;
            let mut request_sum = counts(0.0, 0.0, 0.0, 0.0);
            let mut response_sum = request_sum;
            for s in &nodes {
                let mut per_source = counts(0.0, 0.0, 0.0, 0.0);
                for d in nodes.iter().filter(|d| *d != s) {
                    add(&mut per_source, request_counts(n, s, d).unwrap());
                    add(&mut response_sum, response_counts(n, s, d).unwrap());
                }
                assert_close(
                    per_source,
                    multi_unicast_counts(f64::from(n), dims).unwrap(),
                );
                add(&mut request_sum, per_source);
            }
            let average = average_counts(f64::from(n), dims).unwrap();
            assert_close(scale(request_sum, 1.0 / pairs), average);
            assert_close(scale(response_sum, 1.0 / pairs), average);
        }
    }

    fn add(sum: &mut ComponentCounts, c: ComponentCounts) {
        sum.overhead_count += c.overhead_count;
        sum.propagation_lp_count += c.propagation_lp_count;
        sum.forwarding_lf_count += c.forwarding_lf_count;
        sum.switching_ls_count += c.switching_ls_count;
    }

    fn scale(c: ComponentCounts, k: f64) -> ComponentCounts {
        counts(
            c.overhead_count * k,
            c.propagation_lp_count * k,
            c.forwarding_lf_count * k,
            c.switching_ls_count * k,
        )
    }

    #[test]
    fn hand_computed_small_averages() {
        // Ring of 3: destinations at 1 and 2 hops -> 1.5 hops, 0.5 forwards, 0 switches.
        assert_close(average_counts(3.0, 1).unwrap(), counts(2.0, 1.5, 0.5, 0.0));
        // 2x2 torus: (1,0), (0,1), (1,1) -> hops 4/3, forwards 0, switches 1/3.
        assert_close(
            average_counts(2.0, 2).unwrap(),
            counts(2.0, 4.0 / 3.0, 0.0, 1.0 / 3.0),
        );
        // Eqs. 10 and 12 for D = 1, 2: n/2 and n^2 (n-1) / (n^2 - 1) = n^2 / (n+1).
        for n in [2.0, 3.5, 7.0, 31.6] {
            let ring = average_counts(n, 1).unwrap().propagation_lp_count;
            let torus = average_counts(n, 2).unwrap().propagation_lp_count;
            assert!((ring - n / 2.0).abs() < 1e-12);
            assert!((torus - n * n / (n + 1.0)).abs() < 1e-12);
        }
    }

    #[test]
    fn equation_15_binomial_form() {
        // The transcription's eq. 15/16 fragments show sum_i (i-1) C(D,i) (n-1)^i / (n^D-1):
        // group destinations by their number i of used dimensions.
        for (n, dims) in [(2.0, 1), (3.0, 2), (4.5, 3), (10.0, 4), (2.2, 6)] {
            let mut binomial = 1.0;
            let mut sum = 0.0;
            for i in 1..=dims {
                binomial = binomial * f64::from(dims - i + 1) / f64::from(i);
                sum += f64::from(i - 1) * binomial * (n - 1.0_f64).powi(i as i32);
            }
            let expected = sum / (n.powi(dims as i32) - 1.0);
            let got = average_counts(n, dims).unwrap().switching_ls_count;
            assert!((got - expected).abs() < 1e-12, "n={n} D={dims}");
        }
    }

    #[test]
    fn equation_17_on_10x10_torus() {
        // By hand, 10x10 with Table 1 at 64 bytes: hops 2*100*9/(2*99) = 9.0909,
        // switches 2*10*9/99 - 1 = 0.8182, forwards 2*10*9*8/(2*99) = 7.2727, so
        // 2*2085 + 7*9.0909 + 60*7.2727 + 670*0.8182 = 5218.18 ns.
        let c = SciComponents::paper_table1();
        let l = average_counts(10.0, 2).unwrap().latency_ns(&c, 64).unwrap();
        assert!((l - 5218.1818).abs() < 1e-3, "{l}");
        let mu = multi_unicast_counts(10.0, 2)
            .unwrap()
            .latency_ns(&c, 64)
            .unwrap();
        assert!((mu - 99.0 * l).abs() < 1e-6);
    }

    #[test]
    fn invalid_inputs_are_rejected() {
        use SciModelError as E;
        assert!(matches!(
            request_counts(1, &[0], &[0]),
            Err(E::NodesPerDimOutOfRange { .. })
        ));
        assert_eq!(request_counts(4, &[], &[]), Err(E::ZeroDimensions));
        assert!(matches!(
            request_counts(4, &[0, 1], &[1]),
            Err(E::CoordinateCountMismatch { .. })
        ));
        assert!(matches!(
            request_counts(4, &[0, 4], &[1, 1]),
            Err(E::CoordinateOutOfRange { coordinate: 4, .. })
        ));
        assert_eq!(request_counts(4, &[1, 2], &[1, 2]), Err(E::SameNode));
        assert!(matches!(
            average_counts(1.9, 2),
            Err(E::NodesPerDimOutOfRange { .. })
        ));
        assert!(matches!(
            average_counts(f64::NAN, 2),
            Err(E::NodesPerDimOutOfRange { .. })
        ));
        assert_eq!(average_counts(4.0, 0), Err(E::ZeroDimensions));
        assert!(matches!(
            average_counts(2.0, 5000),
            Err(E::SystemTooLarge { .. })
        ));
        let bad = SciComponents {
            switching_ls_ns: -1.0,
            ..SciComponents::paper_table1()
        };
        assert!(matches!(
            average_counts(4.0, 2).unwrap().latency_ns(&bad, 64),
            Err(E::InvalidComponent { .. })
        ));
    }
}
