//! The kernels' results from a bench's samples, by the kernels' own fits.
//!
//! * Vector operations (Hockney, section 3.1, Table I): the samples of each
//!   length go through `hockney-vector`'s own
//!   [`operation_result`]:
//!   the Fig. 1 line on the paper's lengths and one line per memory level,
//!   `t = (n + n_1/2)/r_inf` on the minima, with Student-t intervals from the
//!   fits' standard errors ([`crate::kernels::headline::fill_from_fits`]).
//! * Synchronisation methods (eq. (10b), Table II): each sample a round of
//!   `hockney-sync` over one grain with its probes, fitted by the kernel's own
//!   result ([`crate::kernels::hockney::sync_bench`]): `t0` from the
//!   near-zero grains' awake samples, `t_wake` from the others, `r_inf` from
//!   the long grains' line or the rate probe where they slept, `s_1/2 = t0
//!   r_inf`, with percentile-bootstrap intervals over the samples.
//! * Transports (scibench, CoMet): `pingpong`'s latency line `t_startup + N
//!   t_per_byte` on the one-way minima, relative to the times, `n_1/2 =
//!   t_startup / t_per_byte`, with the two-flag round trips as the probe.
//! * Barriers (CoMet): the median barrier time per P with a bootstrap
//!   interval; the line `a + b log2 P` only through three P or more, flagged
//!   where it takes in virtual processors.
//! * The copy a message makes: per alignment the line `t_startup + N
//!   t_per_byte`, and the misaligned per-byte cost over the aligned one.

use crate::control::Placement;
use crate::kernels::harness::timing::summarize_trials;
use crate::kernels::headline::fill_from_fits;
use crate::kernels::hockney::sync::Method;
use crate::kernels::hockney::vector::{LengthSamples, VectorPlan, operation_result};
use crate::kernels::hockney::vector::{Level, NAME as VECTOR, OperationSweep};
use crate::kernels::hockney::{Operation, Simd};
use crate::kernels::scibench::{PINGPONG, PairLayout, PairSamples, SizeSamples};
use crate::model::fit::{LineFit, fit_line, fit_line_relative};
use crate::model::interval::median_bootstrap;
use crate::platform::DistanceClass;
use crate::results::{KernelResult, Param, Point};
use std::time::Duration;

/// How the bench's bootstrap intervals are described in its results.
pub const BOOTSTRAP_SAMPLES: &str = "percentile bootstrap over Criterion's samples";

/// The paper's lengths the vector bench measures (Fig. 1 runs to 400).
pub const PAPER_LENGTHS: [usize; 8] = [16, 32, 64, 128, 200, 256, 320, 400];

/// The paper's lengths in the quick mode.
pub const QUICK_PAPER_LENGTHS: [usize; 5] = [16, 64, 128, 256, 400];

/// The vector bench's lengths of one operation on one CPU: each length in
/// elements with its bench id's parameter, and the memory levels they
/// reach with the breakpoints between them (in elements, at the cache
/// sizes), as `hockney-vector` has them.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorLengths {
    /// `(n, parameter)`, ascending in `n`.
    pub lengths: Vec<(usize, String)>,
    /// The levels, `L1` first.
    pub levels: Vec<Level>,
    /// The breakpoints between the levels, elements.
    pub breaks: Vec<f64>,
}

/// The vector bench's lengths of an operation of `bytes_per_element` (all
/// its arrays) on a CPU of data caches `caches` (`(level, bytes)`): the
/// paper's (Fig. 1's 16 to 400, named by their length), then
/// `hockney-vector`'s own lengths past them inside each memory level
/// ([`VectorPlan::lengths`]: 3 a level quick, 6 otherwise, log-spaced from
/// 1.5 times the cache below, 1.25 times the paper's longest for L1, to 0.6
/// of the level's cache; memory from twice the last cache to four times it,
/// at most 64 MiB quick and 2 GiB otherwise, so a quick pass stops inside
/// a last cache of 30 MiB or more, as a quick run does), named by their
/// level and rank in it (`L2-1` the shortest in L2, `memory-6`), so that
/// the ids line up between machines whose caches differ.
pub fn vector_lengths(
    quick: bool,
    bytes_per_element: usize,
    caches: &[(u8, u64)],
) -> VectorLengths {
    let mut plan = VectorPlan::for_run(quick, caches, 1, Duration::ZERO);
    plan.paper_step = plan.paper_max;
    let (ns, levels, breaks) = plan.lengths(bytes_per_element, caches);
    let paper = if quick {
        &QUICK_PAPER_LENGTHS[..]
    } else {
        &PAPER_LENGTHS[..]
    };
    let mut lengths: Vec<(usize, String)> = paper.iter().map(|&n| (n, n.to_string())).collect();
    let mut rank = vec![0usize; levels.len()];
    for n in ns.into_iter().filter(|&n| n > plan.paper_max) {
        let level = breaks.partition_point(|&b| b < n as f64);
        rank[level] += 1;
        lengths.push((n, format!("{}-{}", levels[level].name, rank[level])));
    }
    VectorLengths {
        lengths,
        levels,
        breaks,
    }
}

/// One length's samples: its length, the most repetitions a sample had, and
/// the samples' time per repetition in ns.
pub type Samples = (usize, u64, Vec<f64>);

/// Where a vector bench ran.
#[derive(Debug, Clone, Copy)]
pub struct VectorSite<'a> {
    /// The SIMD level the operations ran at.
    pub simd: Simd,
    /// The CPU the bench is pinned to.
    pub cpu: usize,
    /// That CPU's data caches, `(level, bytes)`.
    pub caches: &'a [(u8, u64)],
    /// The clock's read cost subtracted from every batch, ns.
    pub t0_clock_ns: f64,
    /// Whether the lengths are the quick pass's ([`vector_lengths`]).
    pub quick: bool,
}

/// `hockney-vector`'s result of `op` in `precision` (`f64` or `f32`, of
/// `element_bytes`) from its lengths' samples, fitted by the kernel's own
/// [`operation_result`] on the levels of [`vector_lengths`], the headline
/// from its fits.
pub fn vector_result(
    op: Operation,
    precision: &'static str,
    element_bytes: usize,
    lengths: Vec<Samples>,
    site: &VectorSite<'_>,
) -> KernelResult {
    let mut lengths = lengths;
    lengths.retain(|l| !l.2.is_empty());
    lengths.sort_by_key(|l| l.0);
    let at = vector_lengths(site.quick, op.arrays() * element_bytes, site.caches);
    let trials = lengths.iter().map(|l| l.2.len()).max().unwrap_or(0);
    let sweep = OperationSweep {
        op,
        precision,
        element_bytes,
        lengths: lengths
            .into_iter()
            .map(|(n, reps, samples_ns)| LengthSamples {
                n,
                reps,
                samples_ns,
            })
            .collect(),
        levels: at.levels,
        breaks: at.breaks,
        probe_rates: Vec::new(),
    };
    let plan = VectorPlan {
        paper_step: PAPER_LENGTHS[0],
        paper_max: *PAPER_LENGTHS.last().expect("lengths"),
        per_level: 0,
        max_working_set: 0,
        trials,
        target: Duration::ZERO,
    };
    let mut r = operation_result(
        &sweep,
        &plan,
        site.simd,
        site.cpu,
        Placement::Pinned,
        site.t0_clock_ns,
    );
    r.warnings
        .retain(|w| !w.contains("rate probe") && !w.contains("rate_probe"));
    fill_from_fits(&mut r);
    debug_assert_eq!(r.kernel, VECTOR);
    r
}

/// The synchronisation bench's grains for `method`, flop, the short ones and
/// the long ones, the same on every machine (so that bench ids line up) and
/// laid out as `halfperf run hockney-sync` lays out its own: four near-zero
/// grains (16 to 64 flop, a few ns of work against a hand-over of 50 ns or
/// more) whose overheads give `t0` as their median, then short grains below
/// the method's `s_1/2` and long ones far above it. The spinning methods'
/// `s_1/2` is 0.5 to 2 kflop on recent x86 (a hand-over of 80 to 250 ns at 7
/// Gflop/s), so their long grains run from 4 to 64 kflop; a blocking method
/// (an event, the std barrier) hands over in 0.4 to 1.2 us when nobody
/// sleeps (`s_1/2` 3 to 9 kflop) and in tens of us when a waiter sleeps, so
/// its long grains run to 1 Mflop; a new thread's start is tens of us
/// awake or not (`s_1/2` of hundreds of kflop), so its short grains reach
/// 64 kflop and its long ones 16 Mflop. The quick mode leaves out one
/// short grain and one long one.
pub fn sync_grains(method: Method, quick: bool) -> (Vec<usize>, Vec<usize>) {
    let near_zero = [16, 32, 48, 64];
    let (mut short, mut long): (Vec<usize>, Vec<usize>) = if method == Method::TasksSpawn {
        (
            vec![16, 16 << 10, 64 << 10],
            vec![4 << 20, 8 << 20, 16 << 20],
        )
    } else if method.spins_at_short_grains() {
        (
            near_zero.iter().copied().chain([256]).collect(),
            vec![4 << 10, 16 << 10, 32 << 10, 64 << 10],
        )
    } else {
        (
            near_zero.iter().copied().chain([1024]).collect(),
            vec![16 << 10, 256 << 10, 512 << 10, 1 << 20],
        )
    };
    if quick {
        short.remove(short.len() - 2);
        long.remove(long.len() - 2);
    }
    (short, long)
}

/// `hockney-sync`'s result of a method from its grains' samples, by the
/// kernel's own fit: the bench's name for
/// [`crate::kernels::hockney::sync_bench::bench_result`].
pub use crate::kernels::hockney::sync_bench::bench_result as sync_result;

/// Where a ping-pong bench ran: its two CPUs, how its ranks sat on them, and
/// their distance class.
#[derive(Debug, Clone)]
pub struct PairSite {
    /// The two ranks' CPUs (one when they share it).
    pub cpus: Vec<usize>,
    /// How the ranks sit on them.
    pub placement: Placement,
    /// The distance class of the two CPUs.
    pub distance: Option<DistanceClass>,
}

/// `pingpong`'s result over `transport` from its sizes' round-trip samples
/// (`(bytes, reps, round trips in ns)`), fitted by the kernel's own latency
/// line (one-way = half a round trip), with `probe_round_trips_ns` (the
/// two-flag round trips, in ns) as its probe.
pub fn latency_result(
    transport: &str,
    site: &PairSite,
    sizes: &[Samples],
    probe_round_trips_ns: &[f64],
) -> KernelResult {
    let measured = PairSamples {
        sizes: sizes
            .iter()
            .filter(|s| !s.2.is_empty())
            .map(|(size, reps, rt)| SizeSamples {
                size: *size,
                reps: *reps,
                samples_ns: rt.iter().map(|t| t / 2.0).collect(),
                single_round_trip_ns: None,
            })
            .collect(),
        probes_ns: probe_round_trips_ns.to_vec(),
        copy_ns_per_byte: Vec::new(),
        home: None,
    };
    let layout = PairLayout {
        placement: site.placement,
        ranks: 2,
        distance: site.distance,
    };
    crate::kernels::scibench::latency_result(
        PINGPONG,
        Some(transport),
        &layout,
        &site.cpus,
        &measured,
    )
}

/// The barrier bench's processor counts on a machine of `cpus` CPUs: 2 and 4,
/// then the powers of two up to `cpus` and `cpus` itself, so that every P
/// from 2 to the CPUs' count that a power of two reaches is timed on real
/// processors and a machine of fewer than four CPUs times 4 as virtual ones.
/// The same counts on machines of the same size, so their ids line up.
pub fn barrier_processors(cpus: usize) -> Vec<usize> {
    let mut v = vec![2, 4];
    let mut p = 8;
    while p <= cpus {
        v.push(p);
        p *= 2;
    }
    if cpus > 4 && !v.contains(&cpus) {
        v.push(cpus);
    }
    v
}

/// The barrier line's model, naming the virtual P it takes in.
pub const BARRIER_LINE: &str = "t_barrier = a + b log2 P";

/// A CoMet barrier's result (`kernel`: `comet-barrier-central` or
/// `comet-barrier-dissemination` with its `transport`) from the samples of
/// each processor count `(P, reps, barrier times in ns)`: per P the median
/// with a bootstrap interval, as `barrier_ns` of `P = p`; and the line
/// `a + b log2 P` on the minima only where there are three counts or more
/// (two points leave a line no degree of freedom, so no interval). A line
/// through a P of more ranks than CPUs (virtual processors, whose barrier
/// waits for the scheduler) says which in its model and is flagged.
pub fn barrier_result(
    kernel: &str,
    transport: Option<&str>,
    cpus: &[usize],
    placement: Placement,
    per_p: &[Samples],
) -> KernelResult {
    let mut warnings = Vec::new();
    let (mut points, mut headline) = (Vec::new(), Vec::new());
    let (mut x, mut y, mut virt) = (Vec::new(), Vec::new(), Vec::new());
    for (p, reps, samples) in per_p.iter().filter(|s| !s.2.is_empty()) {
        let (summary, warning) = summarize_trials(samples, &format!("P = {p}"));
        warnings.extend(warning);
        x.push((*p as f64).log2());
        y.push(summary.min);
        if *p > cpus.len() {
            virt.push(p.to_string());
        }
        let of = format!("P = {p}");
        headline.push(
            Param::new("barrier_ns", Some(&of), summary.median)
                .with_ci(median_bootstrap(samples), BOOTSTRAP_SAMPLES),
        );
        points.push(
            Point::new()
                .with("processors", *p as f64)
                .with("log2_processors", (*p as f64).log2())
                .with("virtual", f64::from(*p > cpus.len()))
                .with("reps", *reps as f64)
                .with_stats("barrier_ns", summary),
        );
    }
    let mut r = KernelResult::new(kernel, "comet", placement, cpus.to_vec())
        .with_transport(transport)
        .with_points(points)
        .with_warnings(warnings)
        .with_headline(headline);
    if x.len() >= 3
        && let Ok(line) = fit_line(&x, &y)
    {
        let model = match virt.is_empty() {
            true => BARRIER_LINE.to_owned(),
            false => format!("{BARRIER_LINE} (P = {} virtual)", virt.join(", ")),
        };
        let mut f = line_fit(model, "log2_processors", "barrier_ns.min", &line);
        f.params.insert("a_ns".into(), line.intercept);
        f.params.insert("b_ns_per_doubling".into(), line.slope);
        f.std_errors.insert("a_ns".into(), line.se_intercept);
        f.std_errors
            .insert("b_ns_per_doubling".into(), line.se_slope);
        f.flagged = !virt.is_empty();
        r.fits.push(f);
    }
    r.ranks = per_p.iter().map(|s| s.0).max().unwrap_or(0);
    r
}

/// A fit's record of `line` under `model`, without its parameters.
fn line_fit(model: String, x: &str, y: &str, line: &LineFit) -> crate::results::FitResult {
    crate::results::FitResult {
        model,
        x: x.into(),
        y: y.into(),
        params: Default::default(),
        std_errors: Default::default(),
        r2: line.r2,
        n_points: line.n_points,
        flagged: false,
    }
}

/// The copy bench's kernel.
pub const COPY: &str = "copy";

/// Below this R^2 a copy line is flagged, as the latency line is.
pub const COPY_R2: f64 = 0.9;

/// The copy bench's result from each alignment's sizes' samples (`(name,
/// [(bytes, reps, ns a copy)])`, the line-aligned first): per alignment the
/// line `t = t_startup + N t_per_byte` on the minima, relative to the times
/// (as the latency line), its `n_1/2 = t_startup / t_per_byte`, each with
/// the Student-t interval of the fit (three sizes or more); and each other
/// alignment's `t_per_byte_over_aligned`, the ratio of its per-byte cost to
/// the line-aligned one, bounded by the two intervals.
pub fn copy_result(cpu: usize, alignments: &[(&str, Vec<Samples>)]) -> KernelResult {
    let (mut points, mut fits, mut warnings) = (Vec::new(), Vec::new(), Vec::new());
    for (name, sizes) in alignments {
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for (bytes, reps, samples) in sizes.iter().filter(|s| !s.2.is_empty()) {
            let (summary, warning) = summarize_trials(samples, &format!("{name} {bytes} B"));
            warnings.extend(warning);
            x.push(*bytes as f64);
            y.push(summary.min);
            points.push(
                Point::new()
                    .with("size_bytes", *bytes as f64)
                    .with("line_offset_bytes", alignment_offset(name))
                    .with("reps", *reps as f64)
                    .with_stats("copy_ns", summary),
            );
        }
        let Ok(line) = fit_line_relative(&x, &y) else {
            continue;
        };
        let model = format!("t = t_startup + N t_per_byte on {name}");
        let mut f = line_fit(model, "size_bytes", "copy_ns.min", &line);
        f.params.insert("t_startup_ns".into(), line.intercept);
        f.params.insert("t_per_byte_ns".into(), line.slope);
        f.params
            .insert("n_half_bytes".into(), line.intercept / line.slope);
        f.std_errors
            .insert("t_startup_ns".into(), line.se_intercept);
        f.std_errors.insert("t_per_byte_ns".into(), line.se_slope);
        f.flagged = line.r2 < COPY_R2;
        fits.push(f);
    }
    let mut r = KernelResult::new(COPY, "scibench", Placement::Pinned, vec![cpu])
        .with_points(points)
        .with_warnings(warnings);
    r.fits = fits;
    fill_from_fits(&mut r);
    let per_byte: Vec<Param> = r
        .headline
        .iter()
        .filter(|p| p.name == "t_per_byte_ns")
        .cloned()
        .collect();
    let find = |of: &str| per_byte.iter().find(|p| p.of.as_deref() == Some(of));
    let Some(base) = alignments.first().and_then(|a| find(a.0)) else {
        return r;
    };
    for (name, _) in alignments.iter().skip(1) {
        let Some(other) = find(name) else {
            continue;
        };
        let ci = match (other.ci95, base.ci95) {
            (Some([a, b]), Some([c, d])) if a > 0.0 && c > 0.0 => Some([a / d, b / c]),
            _ => None,
        };
        let ratio = Param::new(
            "t_per_byte_over_aligned",
            Some(name),
            other.value / base.value,
        )
        .with_ci(ci, crate::kernels::headline::FROM_TWO_INTERVALS);
        r.headline.push(ratio);
    }
    r
}

/// The offset from a cache line an alignment's name gives: `line-aligned`
/// 0, `16-bytes-past-a-line` 16.
fn alignment_offset(name: &str) -> f64 {
    name.split('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0.0)
}

#[cfg(test)]
#[path = "fits_tests.rs"]
mod tests;
