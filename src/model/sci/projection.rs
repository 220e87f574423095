//! Topology projections of the SCI model (Gonzalez 2000, chapter 6): latency against
//! total system size `N` for tori of `D` dimensions, extrapolated to a real number of
//! nodes per dimension `n = N^(1/D)`, and the crossover sizes beyond which a torus of
//! more dimensions is faster.
//!
//! Three applications are compared: the paper's two, the average latency of a request
//! to a uniformly random node (eq. 17) and the one-to-all multi-unicast (a fixed source
//! sends a unicast to each of the other `N - 1` nodes; the sum of the request
//! latencies), and the same multi-unicast by a sender that does not wait
//! ([`super::multicast`]). The paper's sum is exactly `(N - 1)` times the average, so at
//! equal `N` it ranks the topologies alike and has the same crossover sizes; the
//! pipelined one ends with the farthest request and crosses over where that request's
//! latency does. The paper's Table 2 lists different sizes for its two; see the tests.
//!
//! A crossover from `D` to `D' > D` is searched on `N` in `[2^D', max_nodes]`, where
//! both tori have at least 2 nodes per dimension: a log-spaced scan finds the first
//! size at which the `D'`-dimensional torus becomes strictly faster, and bisection
//! refines it.

use super::multicast::pipelined_multi_unicast_ns;
use super::torus::{average_counts, multi_unicast_counts};
use super::{SciComponents, SciModelError};
use serde::{Deserialize, Serialize};

/// Log-spaced sizes scanned for a change of sign before bisection.
const SCAN_POINTS: u32 = 2000;
/// Bisection steps (each halves the bracket).
const BISECTION_STEPS: u32 = 100;
/// Most integer-`n` points kept per curve (beyond that they are thinned geometrically).
const MAX_INTEGER_POINTS: u32 = 1024;
/// Log-spaced real-`n` points added per curve for plotting.
const PLOT_POINTS: u32 = 64;

/// Application (traffic pattern) whose latency is compared across topologies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SciApplication {
    /// Average request latency to a uniformly random other node (eq. 17).
    AverageLatency,
    /// One-to-all multi-unicast: sum of request latencies to all other nodes.
    MultiUnicast,
    /// One-to-all multi-unicast by a sender that does not wait, destinations by offset:
    /// `(N - 2) g + L_far` ([`super::multicast`]).
    PipelinedMultiUnicast,
}

impl SciApplication {
    /// Latency (ns) of this application on a `dims`-dimensional torus of `nodes` nodes in
    /// total, with `n = nodes^(1/dims)` nodes per dimension (real `n` extrapolates).
    pub fn latency_ns(
        self,
        components: &SciComponents,
        size_bytes: u32,
        nodes: f64,
        dims: u32,
    ) -> Result<f64, SciModelError> {
        if dims == 0 {
            return Err(SciModelError::ZeroDimensions);
        }
        let n = nodes_per_dim(nodes, dims);
        let counts = match self {
            Self::AverageLatency => average_counts(n, dims)?,
            Self::MultiUnicast => multi_unicast_counts(n, dims)?,
            Self::PipelinedMultiUnicast => {
                return pipelined_multi_unicast_ns(components, size_bytes, n, dims);
            }
        };
        counts.latency_ns(components, size_bytes)
    }
}

/// Crossover between two dimension counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Crossover {
    /// The lower dimension count `D`.
    pub from_dims: u32,
    /// The higher dimension count `D'`.
    pub to_dims: u32,
    /// Total nodes `N` beyond which the `D'`-dimensional torus is faster; `None` if it
    /// does not overtake within `[2^D', max_nodes]` (slower throughout, or already
    /// faster at `N = 2^D'`).
    pub nodes: Option<f64>,
}

/// Crossovers of both applications, one entry per consecutive pair of dimensions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrossoverSet {
    /// Average-latency crossovers.
    pub average: Vec<Crossover>,
    /// One-to-all multi-unicast crossovers (the paper's sum).
    pub multi_unicast: Vec<Crossover>,
    /// Crossovers of the multi-unicast by a sender that does not wait.
    #[serde(default)]
    pub pipelined_multi_unicast: Vec<Crossover>,
}

/// One point of a latency-versus-size curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Total nodes `N = n^D`.
    pub nodes: f64,
    /// Nodes per dimension `n` (integer for realisable tori, real for extrapolation).
    pub nodes_per_dim: f64,
    /// Average request latency, eq. 17 (ns).
    pub average_latency_ns: f64,
    /// One-to-all multi-unicast latency, the paper's sum (ns).
    pub multi_unicast_ns: f64,
    /// One-to-all multi-unicast by a sender that does not wait (ns).
    #[serde(default)]
    pub pipelined_multi_unicast_ns: f64,
}

/// Latency curve of one dimension count, points sorted by size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SciCurve {
    /// Number of dimensions `D`.
    pub dims: u32,
    /// Points at every integer `n >= 2` with `n^D <= max_nodes` (thinned geometrically
    /// beyond 1024 of them) plus log-spaced real-`n` points up to `max_nodes`.
    pub points: Vec<CurvePoint>,
}

/// Result of `halfperf model sci`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SciModelReport {
    /// Model inputs.
    pub components: SciComponents,
    /// Message size (bytes) at which the overhead is evaluated.
    pub size_bytes: u32,
    /// Crossover sizes between consecutive requested dimension counts.
    pub crossovers: CrossoverSet,
    /// Latency curves, one per requested dimension count (ascending).
    pub curves: Vec<SciCurve>,
}

/// Smallest total size `N` in `[2^to_dims, max_nodes]` beyond which a `to_dims`-
/// dimensional torus beats a `from_dims`-dimensional one for `application`, or `None`.
pub fn crossover_nodes(
    components: &SciComponents,
    size_bytes: u32,
    application: SciApplication,
    from_dims: u32,
    to_dims: u32,
    max_nodes: u32,
) -> Result<Option<f64>, SciModelError> {
    if from_dims == 0 {
        return Err(SciModelError::ZeroDimensions);
    }
    if from_dims >= to_dims {
        return Err(SciModelError::CrossoverDimsNotIncreasing { from_dims, to_dims });
    }
    components.overhead_ns(size_bytes)?;
    let higher_faster = |nodes: f64| -> Result<bool, SciModelError> {
        let lower = application.latency_ns(components, size_bytes, nodes, from_dims)?;
        let higher = application.latency_ns(components, size_bytes, nodes, to_dims)?;
        Ok(higher < lower)
    };
    let grid = log_grid(f64::from(to_dims).exp2(), f64::from(max_nodes), SCAN_POINTS);
    for pair in grid.windows(2) {
        if !higher_faster(pair[0])? && higher_faster(pair[1])? {
            let (mut slower, mut faster) = (pair[0], pair[1]);
            for _ in 0..BISECTION_STEPS {
                let mid = 0.5 * (slower + faster);
                if higher_faster(mid)? {
                    faster = mid;
                } else {
                    slower = mid;
                }
            }
            return Ok(Some(0.5 * (slower + faster)));
        }
    }
    Ok(None)
}

/// Builds the report of `halfperf model sci`: crossovers between consecutive entries of
/// `dims` (sorted, duplicates dropped) for both applications, and latency curves up to
/// `max_nodes` total nodes, all for `size_bytes`-byte messages.
pub fn model_report(
    components: &SciComponents,
    size_bytes: u32,
    max_nodes: u32,
    dims: &[u32],
) -> Result<SciModelReport, SciModelError> {
    components.overhead_ns(size_bytes)?;
    let mut dims = dims.to_vec();
    dims.sort_unstable();
    dims.dedup();
    match dims.first() {
        None => return Err(SciModelError::NoDimensions),
        Some(0) => return Err(SciModelError::ZeroDimensions),
        Some(_) => {}
    }
    if let Some(&d) = dims
        .iter()
        .find(|&&d| f64::from(d).exp2() > f64::from(max_nodes))
    {
        return Err(SciModelError::MaxNodesTooSmall { max_nodes, dims: d });
    }
    let crossovers_of = |application| -> Result<Vec<Crossover>, SciModelError> {
        dims.windows(2)
            .map(|pair| {
                let (from_dims, to_dims) = (pair[0], pair[1]);
                let nodes = crossover_nodes(
                    components,
                    size_bytes,
                    application,
                    from_dims,
                    to_dims,
                    max_nodes,
                )?;
                Ok(Crossover {
                    from_dims,
                    to_dims,
                    nodes,
                })
            })
            .collect()
    };
    Ok(SciModelReport {
        components: *components,
        size_bytes,
        crossovers: CrossoverSet {
            average: crossovers_of(SciApplication::AverageLatency)?,
            multi_unicast: crossovers_of(SciApplication::MultiUnicast)?,
            pipelined_multi_unicast: crossovers_of(SciApplication::PipelinedMultiUnicast)?,
        },
        curves: dims
            .iter()
            .map(|&d| curve(components, size_bytes, d, max_nodes))
            .collect::<Result<_, _>>()?,
    })
}

/// `nodes^(1/dims)`, snapped to the nearest integer when within rounding error of it so
/// that `N = 2^D` gives exactly `n = 2`.
fn nodes_per_dim(nodes: f64, dims: u32) -> f64 {
    let n = nodes.powf(1.0 / f64::from(dims));
    let rounded = n.round();
    if (n - rounded).abs() <= 1e-9 * rounded {
        rounded
    } else {
        n
    }
}

/// `count` log-spaced values from `lo` to `hi` inclusive (empty if `hi < lo`).
fn log_grid(lo: f64, hi: f64, count: u32) -> Vec<f64> {
    if hi < lo {
        return Vec::new();
    }
    let last = count.max(2) - 1;
    (0..=last)
        .map(|i| match i {
            0 => lo,
            i if i == last => hi,
            i => lo * (hi / lo).powf(f64::from(i) / f64::from(last)),
        })
        .collect()
}

fn curve(
    components: &SciComponents,
    size_bytes: u32,
    dims: u32,
    max_nodes: u32,
) -> Result<SciCurve, SciModelError> {
    let largest_n = nodes_per_dim(f64::from(max_nodes), dims).floor();
    let integer_n: Vec<f64> = if largest_n - 1.0 <= f64::from(MAX_INTEGER_POINTS) {
        (2..=largest_n as u32).map(f64::from).collect()
    } else {
        log_grid(2.0, largest_n, MAX_INTEGER_POINTS)
            .into_iter()
            .map(f64::round)
            .collect()
    };
    let realisable = integer_n.into_iter().map(|n| (n.powi(dims as i32), n));
    let plot = log_grid(f64::from(dims).exp2(), f64::from(max_nodes), PLOT_POINTS)
        .into_iter()
        .map(|nodes| (nodes, nodes_per_dim(nodes, dims)));
    let mut sizes: Vec<(f64, f64)> = realisable.chain(plot).collect();
    sizes.sort_by(|a, b| a.0.total_cmp(&b.0));
    sizes.dedup_by(|a, b| (a.0 - b.0).abs() <= 1e-9 * b.0);
    let points = sizes
        .into_iter()
        .map(|(nodes, n)| {
            Ok(CurvePoint {
                nodes,
                nodes_per_dim: n,
                average_latency_ns: average_counts(n, dims)?.latency_ns(components, size_bytes)?,
                multi_unicast_ns: multi_unicast_counts(n, dims)?
                    .latency_ns(components, size_bytes)?,
                pipelined_multi_unicast_ns: pipelined_multi_unicast_ns(
                    components, size_bytes, n, dims,
                )?,
            })
        })
        .collect::<Result<_, SciModelError>>()?;
    Ok(SciCurve { dims, points })
}

#[cfg(test)]
mod tests {
    use super::*;
    use SciApplication::{AverageLatency, MultiUnicast, PipelinedMultiUnicast};

    const PAPER_RANGE: u32 = 1000;

    fn crossovers(c: &SciComponents, application: SciApplication) -> [f64; 3] {
        [1, 2, 3].map(|d| {
            crossover_nodes(c, 64, application, d, d + 1, 100_000)
                .unwrap()
                .unwrap()
        })
    }

    /// Dimension count (1-4) with the lowest latency at `nodes` total nodes.
    fn best_dims(c: &SciComponents, application: SciApplication, nodes: f64) -> u32 {
        (1..=4u32)
            .filter(|&d| f64::from(d).exp2() <= nodes)
            .min_by(|&a, &b| {
                let la = application.latency_ns(c, 64, nodes, a).unwrap();
                let lb = application.latency_ns(c, 64, nodes, b).unwrap();
                la.total_cmp(&lb)
            })
            .unwrap()
    }

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn current_system_average_latency_section_6_1() {
        // Section 6.1: "a one-dimensional topology offering the best latency performance
        // for systems having fewer than [withheld] nodes ... The two-dimensional topology
        // continues to lead latency performance up to [withheld] nodes ... The
        // three-dimensional topology continues to lead latency performance up to 1000
        // nodes and beyond." The transcription withholds Table 2 except its last row,
        // "3D 4D 1831 2050 232 18", read as the 3D -> 4D crossover for current average,
        // current multi-unicast, enhanced average and enhanced multi-unicast (the last
        // cut off). This model gives 18.2, 190.8 and 1832.6 nodes (0.09 % above 1831).
        // The 1D -> 2D crossover has a closed form: equating the ring's
        // N/2 l_p + (N-2)/2 l_f with the n x n torus's
        // (n^2 l_p + n (n-2) l_f + (n-1) l_s) / (n+1) leaves
        // (n-1) (n^2 (l_p + l_f) + 2 l_f - 2 l_s) = 0, so N = 2 (l_s - l_f) / (l_p + l_f)
        // = 1220 / 67 = 18.209 nodes (8.209 for the enhanced system).
        let c = SciComponents::paper_table1();
        let [c12, c23, c34] = crossovers(&c, AverageLatency);
        assert!(rel(c12, 1220.0 / 67.0) < 1e-9, "{c12}");
        assert!(rel(c23, 190.84) < 1e-4, "{c23}");
        assert!(rel(c34, 1831.0) < 0.002, "{c34} vs Table 2's 1831");
        assert!(c34 > f64::from(PAPER_RANGE));
        for (nodes, best) in [(9.0, 1), (16.0, 1), (64.0, 2), (100.0, 2), (500.0, 3)] {
            assert_eq!(best_dims(&c, AverageLatency, nodes), best, "N = {nodes}");
        }
        assert_eq!(best_dims(&c, AverageLatency, 1000.0), 3);
    }

    #[test]
    fn enhanced_system_average_latency_section_6_2() {
        // Section 6.2: "The one-dimensional topology is now outperformed by the
        // two-dimensional topology for a system size above [withheld] nodes. The
        // two-dimensional topology leads latency performance until [withheld] nodes, at
        // which point the three-dimensional topology leads latency performance up to
        // [withheld] nodes. The four-dimensional topology ... provides the best latency
        // performance up to 1000 nodes and beyond." Table 2: 232 nodes for 3D -> 4D.
        // This model gives 8.2, 44.7 and 228.9 nodes (1.3 % below 232).
        let current = SciComponents::paper_table1();
        let enhanced = current.enhanced();
        let [e12, e23, e34] = crossovers(&enhanced, AverageLatency);
        assert!(rel(e12, 2.0 * (335.0 - 60.0) / 67.0) < 1e-9, "{e12}");
        assert!(rel(e23, 44.716) < 1e-4, "{e23}");
        assert!(rel(e34, 232.0) < 0.02, "{e34} vs Table 2's 232");
        assert_eq!(best_dims(&enhanced, AverageLatency, 1000.0), 4);
        assert_eq!(best_dims(&enhanced, AverageLatency, 100.0), 3);
        // Every crossover moves to a smaller size with the faster switch.
        let cur = crossovers(&current, AverageLatency);
        assert!(cur.iter().zip([e12, e23, e34]).all(|(c, e)| e < *c));
    }

    #[test]
    fn multi_unicast_sections_6_1_and_6_2() {
        // "one-dimensional topologies lead latency performance for system sizes smaller
        // than [withheld] nodes, at which point ... the two-dimensional topology ...
        // up to [withheld] nodes. The three-dimensional topology then offers the best
        // latency performance up to 1000 nodes and beyond." (current) and "The
        // four-dimensional topology dominates latency performance for the remaining range
        // of system sizes." (enhanced). Those orderings hold for the paper's sum. The
        // sum of the N - 1 ping-request latencies is (N - 1) x the average, so its
        // crossovers coincide with the average ones (1832.6 and 228.9 nodes here).
        for c in [
            SciComponents::paper_table1(),
            SciComponents::paper_table1().enhanced(),
        ] {
            let average = crossovers(&c, AverageLatency);
            let multi = crossovers(&c, MultiUnicast);
            for (a, m) in average.iter().zip(multi) {
                assert!(rel(m, *a) < 1e-9, "{m} vs {a}");
            }
        }
        let current = SciComponents::paper_table1();
        assert_eq!(best_dims(&current, MultiUnicast, 1000.0), 3);
        assert_eq!(best_dims(&current.enhanced(), MultiUnicast, 1000.0), 4);
        // "The savings achieved in going from one to two dimensions is pronounced, but for
        // higher dimensions, the relative latency performance does not vary much": at
        // 1000 nodes the ring is 5.6x the 2-D torus, 2-D to 3-D saves 10 %, 3-D to 4-D
        // differ by 1.2 %.
        let mu = |d| MultiUnicast.latency_ns(&current, 64, 1000.0, d).unwrap();
        assert!(mu(1) / mu(2) > 5.0);
        assert!((0.05..0.15).contains(&(1.0 - mu(3) / mu(2))));
        assert!(rel(mu(4), mu(3)) < 0.02);
    }

    /// The paper's sum on realisable tori only, joined by straight lines in `N` (the way
    /// a figure drawn from integer `n` joins its points), at `nodes`.
    fn realisable_sum_ns(c: &SciComponents, nodes: f64, dims: u32) -> f64 {
        let n = nodes.powf(1.0 / f64::from(dims)).floor();
        let (lo, hi) = (n.powi(dims as i32), (n + 1.0).powi(dims as i32));
        let at = |n: f64| {
            let counts = multi_unicast_counts(n, dims).unwrap();
            counts.latency_ns(c, 64).unwrap()
        };
        at(n) + (nodes - lo) / (hi - lo) * (at(n + 1.0) - at(n))
    }

    #[test]
    fn table_2_multi_unicast_2050_is_not_the_sum() {
        // Table 2's legible row gives 3D -> 4D at 2050 nodes for the current system's
        // multi-unicast against 1831 for its average. With n = N^(1/D) real (the
        // paper: "An extrapolation of the higher-dimensional topologies was used to
        // fill in the gaps") the sum crosses at 1832.6, with the average. Joining the
        // sums of the realisable tori by straight lines instead (3-D: 12^3 = 1728 and
        // 13^3 = 2197; 4-D: 6^4 = 1296 and 7^4 = 2401) moves it to 1954.9 nodes, and
        // that is the 1955 such an interpolation prints: 95 nodes (4.6 %) short of
        // 2050, and no choice between these two reaches 2050 (real 3-D against joined
        // 4-D gives 1998). Neither does the pipelined sender (1141.9). The average
        // column's 1831 and 232 are met within 0.1 % and 1.3 %; 2050 stays
        // unexplained, and no test here is tuned to it.
        let c = SciComponents::paper_table1();
        let (mut slower, mut faster) = (1728.0, 2197.0);
        for _ in 0..100 {
            let mid = 0.5 * (slower + faster);
            if realisable_sum_ns(&c, mid, 4) < realisable_sum_ns(&c, mid, 3) {
                faster = mid;
            } else {
                slower = mid;
            }
        }
        assert!((slower - 1954.85).abs() < 0.01, "{slower}");
        assert!((2050.0 - slower) / 2050.0 > 0.04);
        let real = crossover_nodes(&c, 64, MultiUnicast, 3, 4, 100_000)
            .unwrap()
            .unwrap();
        assert!((real - 1832.6).abs() < 0.1, "{real}");
    }

    #[test]
    fn pipelined_multi_unicast_ranks_apart_from_the_sum() {
        // A sender that does not wait (see `multicast`) ends with its farthest request:
        // the crossovers are that request's. 1D -> 2D in closed form: the ring's
        // (N-1) l_p + (N-2) l_f against the n x n torus's 2(n-1) l_p + 2(n-2) l_f + l_s
        // leaves (l_p + l_f)(n - 1)^2 = l_s - l_f, N = (1 + sqrt(610 / 67))^2 = 16.14
        // (9.16 enhanced). Bisection: 140.37 and 1141.93 (current), 50.21 and 262.10
        // (enhanced), against 190.8, 1832.6 and 44.7, 228.9 for the sum.
        let current = SciComponents::paper_table1();
        let enhanced = current.enhanced();
        let [p12, p23, p34] = crossovers(&current, PipelinedMultiUnicast);
        assert!(
            rel(p12, (1.0 + (610.0_f64 / 67.0).sqrt()).powi(2)) < 1e-9,
            "{p12}"
        );
        assert!(rel(p23, 140.372) < 1e-4, "{p23}");
        assert!(rel(p34, 1141.93) < 1e-4, "{p34}");
        let [e12, e23, e34] = crossovers(&enhanced, PipelinedMultiUnicast);
        assert!(
            rel(e12, (1.0 + (275.0_f64 / 67.0).sqrt()).powi(2)) < 1e-9,
            "{e12}"
        );
        assert!(rel(e23, 50.213) < 1e-4, "{e23}");
        assert!(rel(e34, 262.10) < 1e-4, "{e34}");
        // The paper's rankings hold: 3-D leads to 1000 nodes and beyond on the current
        // system; 4-D leads the rest of the range on the enhanced one.
        assert!(p34 > f64::from(PAPER_RANGE) && e34 < f64::from(PAPER_RANGE));
        assert_eq!(best_dims(&current, PipelinedMultiUnicast, 1000.0), 3);
        assert_eq!(best_dims(&enhanced, PipelinedMultiUnicast, 1000.0), 4);
        // "this downward shift is not as significant as that in the average latency
        // case": current / enhanced crossover 4.36, 2.80, 1.76 here against the
        // average's (and the sum's) 8.01, 4.27, 2.22. The sum cannot say this.
        let average = crossovers(&current, AverageLatency);
        let average_enhanced = crossovers(&enhanced, AverageLatency);
        for i in 0..3 {
            let shift = [p12, p23, p34][i] / [e12, e23, e34][i];
            assert!(shift < average[i] / average_enhanced[i], "{i}: {shift}");
        }
        // "The savings achieved in going from one to two dimensions is pronounced" does
        // not hold for this sender: at 1000 nodes the ring takes 1.030x the 2-D torus
        // (2151.9 us against 2089.7), the sum 5.6x. The sender's (N - 2) o is most of it.
        let pipe = |c: &SciComponents, nodes, d| {
            PipelinedMultiUnicast.latency_ns(c, 64, nodes, d).unwrap()
        };
        assert!((pipe(&current, 1000.0, 1) - 2_151_873.0).abs() < 0.5);
        assert!(
            rel(
                pipe(&current, 1000.0, 1) / pipe(&current, 1000.0, 2),
                1.02978
            ) < 1e-4
        );
    }

    #[test]
    fn enhanced_improvement_percentages_section_6_2() {
        // "approx. 5% improvement for a system size of 100 nodes" (average latency) and
        // "approx. 10% improvement for a system size of 1000 nodes" (multi-unicast).
        // With the realisable tori 10x10 and 10x10x10 (best at those sizes on both
        // systems) the model gives 5.25 % and 9.41 %. (With extrapolated real n the best
        // topology at 100 nodes becomes a 3-D torus on the enhanced system and the
        // improvements are 6.9 % and 11.5 %.) The paper's other claim, that the enhanced
        // system "offers no real improvement for medium system sizes" in multi-unicast,
        // cannot hold for the sum, whose improvement equals the average one at every
        // size; it holds for the pipelined sender (0.16 % at 100 nodes), which in turn
        // misses "approx. 10 % ... at 1000 nodes" (0.03 %): neither model of the
        // multi-unicast gives both of the paper's figures.
        let current = SciComponents::paper_table1();
        let enhanced = current.enhanced();
        let gain = |application: SciApplication, nodes: f64, d| {
            let before = application.latency_ns(&current, 64, nodes, d).unwrap();
            1.0 - application.latency_ns(&enhanced, 64, nodes, d).unwrap() / before
        };
        assert!((gain(AverageLatency, 100.0, 2) - 0.0525).abs() < 5e-4);
        assert!((gain(MultiUnicast, 1000.0, 3) - 0.0941).abs() < 5e-4);
        assert!(rel(gain(MultiUnicast, 100.0, 2), gain(AverageLatency, 100.0, 2)) < 1e-12);
        assert!((gain(PipelinedMultiUnicast, 100.0, 2) - 0.00159).abs() < 1e-5);
        assert!((gain(PipelinedMultiUnicast, 1000.0, 3) - 0.00032).abs() < 1e-5);
    }

    #[test]
    fn crossovers_depend_only_on_switching_forwarding_propagation_ratios() {
        // "Crossover points depend primarily upon the relative magnitude of switching and
        // forwarding delays": the overhead (any size) drops out, and scaling l_p, l_f, l_s
        // together leaves the crossovers unchanged.
        let base = crossovers(&SciComponents::paper_table1(), AverageLatency);
        let other_overhead = SciComponents::new(7.0, 60.0, 670.0, 50.0, 0.0).unwrap();
        let scaled = SciComponents::new(17.5, 150.0, 1675.0, 2085.0, 11.6).unwrap();
        for c in [other_overhead, scaled] {
            for (a, b) in crossovers(&c, AverageLatency).iter().zip(base) {
                assert!(rel(*a, b) < 1e-6);
            }
        }
    }

    #[test]
    fn crossover_matches_dense_scan() {
        // Brute force: the first integer N where the higher-dimensional torus is faster
        // is the ceiling of the bisected crossover, and it stays faster up to 5000 nodes.
        for c in [
            SciComponents::paper_table1(),
            SciComponents::paper_table1().enhanced(),
        ] {
            for d in 1..=3 {
                let x = crossover_nodes(&c, 64, AverageLatency, d, d + 1, 5000)
                    .unwrap()
                    .unwrap();
                let faster = |nodes: u32| {
                    let nodes = f64::from(nodes);
                    AverageLatency.latency_ns(&c, 64, nodes, d + 1).unwrap()
                        < AverageLatency.latency_ns(&c, 64, nodes, d).unwrap()
                };
                let first = (2u32.pow(d + 1)..=5000).find(|&n| faster(n)).unwrap();
                assert_eq!(first, x.ceil() as u32);
                assert!((first..=5000).all(faster));
            }
        }
    }

    #[test]
    fn crossover_outside_range_is_none() {
        let c = SciComponents::paper_table1();
        // 3D -> 4D crosses near 1833 nodes: not within 1000 nodes.
        assert_eq!(
            crossover_nodes(&c, 64, AverageLatency, 3, 4, 1000),
            Ok(None)
        );
        // Without switching cost the 2-D torus is already faster at N = 4.
        let free_switch = SciComponents::new(7.0, 60.0, 0.0, 2085.0, 11.6).unwrap();
        assert_eq!(
            crossover_nodes(&free_switch, 64, AverageLatency, 1, 2, 1000),
            Ok(None)
        );
        // max_nodes below the smallest 2-D torus.
        assert_eq!(crossover_nodes(&c, 64, MultiUnicast, 1, 2, 3), Ok(None));
        assert_eq!(
            crossover_nodes(&c, 64, AverageLatency, 2, 2, 1000),
            Err(SciModelError::CrossoverDimsNotIncreasing {
                from_dims: 2,
                to_dims: 2
            })
        );
    }

    #[test]
    fn report_json_shape_and_curves() {
        let c = SciComponents::paper_table1();
        let report = model_report(&c, 64, PAPER_RANGE, &[4, 2, 1, 3, 2]).unwrap();
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["size_bytes"], 64);
        assert_eq!(json["components"]["switching_ls_ns"], 670.0);
        let average = &json["crossovers"]["average"];
        assert_eq!(average.as_array().unwrap().len(), 3);
        assert_eq!(average[0]["from_dims"], 1);
        assert_eq!(average[0]["to_dims"], 2);
        assert!((average[1]["nodes"].as_f64().unwrap() - 190.84).abs() < 0.01);
        assert!(average[2]["nodes"].is_null());
        assert_eq!(
            json["crossovers"]["multi_unicast"]
                .as_array()
                .unwrap()
                .len(),
            3
        );
        let dims: Vec<u32> = report.curves.iter().map(|curve| curve.dims).collect();
        assert_eq!(dims, [1, 2, 3, 4]);
        for curve in &report.curves {
            let p = &curve.points;
            assert!(p.windows(2).all(|w| w[0].nodes < w[1].nodes));
            assert_eq!(p[0].nodes, f64::from(curve.dims).exp2());
            assert!((p.last().unwrap().nodes - 1000.0).abs() < 1e-6);
            let integer: Vec<f64> = p
                .iter()
                .filter(|q| q.nodes_per_dim.fract() == 0.0)
                .map(|q| q.nodes)
                .collect();
            let expected: Vec<f64> = (2..)
                .map(|n: u32| f64::from(n.pow(curve.dims)))
                .take_while(|&n| n <= 1000.0)
                .collect();
            assert_eq!(integer, expected, "{}D", curve.dims);
            assert!(p.len() >= expected.len() + PLOT_POINTS as usize - 2);
        }
        let torus = &report.curves[1].points;
        let ten = torus.iter().find(|q| q.nodes_per_dim == 10.0).unwrap();
        assert!((ten.average_latency_ns - 5218.1818).abs() < 1e-3);
        assert!((ten.multi_unicast_ns - 99.0 * ten.average_latency_ns).abs() < 1e-6);
        // 98 x 2085 + 4170 + 18 x 7 + 16 x 60 + 670 = 210 256 ns.
        assert!((ten.pipelined_multi_unicast_ns - 210_256.0).abs() < 1e-6);
        assert_eq!(
            json["crossovers"]["pipelined_multi_unicast"][0]["to_dims"],
            2
        );
        let back: SciModelReport = serde_json::from_value(json).unwrap();
        assert_eq!(back, report);
    }

    #[test]
    fn large_ring_curve_is_thinned() {
        let report = model_report(&SciComponents::paper_table1(), 64, 1_000_000, &[1]).unwrap();
        let points = &report.curves[0].points;
        assert!(points.len() <= (MAX_INTEGER_POINTS + PLOT_POINTS) as usize);
        assert_eq!(points[0].nodes, 2.0);
        assert!((points.last().unwrap().nodes - 1e6).abs() < 1e-3);
    }

    #[test]
    fn report_rejects_bad_input() {
        let c = SciComponents::paper_table1();
        assert_eq!(
            model_report(&c, 64, 1000, &[]),
            Err(SciModelError::NoDimensions)
        );
        assert_eq!(
            model_report(&c, 64, 1000, &[0, 1]),
            Err(SciModelError::ZeroDimensions)
        );
        assert_eq!(
            model_report(&c, 64, 10, &[1, 4]),
            Err(SciModelError::MaxNodesTooSmall {
                max_nodes: 10,
                dims: 4
            })
        );
        assert!(matches!(
            model_report(&c, 64, u32::MAX, &[40]),
            Err(SciModelError::MaxNodesTooSmall { .. })
        ));
        let bad = SciComponents {
            forwarding_lf_ns: f64::NAN,
            ..c
        };
        assert!(matches!(
            model_report(&bad, 64, 1000, &[1, 2]),
            Err(SciModelError::InvalidComponent { .. })
        ));
    }
}
