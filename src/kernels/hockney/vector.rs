//! `hockney-vector`: Hockney's `(r_inf, n_1/2)` for one processor (section 3.1,
//! Fig. 1, Fig. 2, Table I) on the four operations of Table I, in f64 and f32.
//!
//! As in Fig. 1 the time of one operation of length `n` is measured for
//! `n = 2, 4, ..., 400` (every 8th with `--quick`), the minimum over trials is
//! kept with the maximum and mean beside it, the clock's own cost (T0) is
//! subtracted, and the line `t = (n + n_1/2) / r_inf` is fitted on the minima; a
//! triad's time is halved first, so that `t` is the time per vector instruction
//! and `n_1/2` counts the elements (= flop) of one instruction, as in the paper.
//!
//! The paper's lengths are all L1-resident here, so the sweep continues through
//! every cache level into memory (sizes from the platform's cache table, a few
//! lengths inside each level) and one line is fitted per level, with the
//! breakpoints at the cache sizes (Hockney, section 2 after eq. (4): group the
//! operations so the parameters are constant within a group). The levels'
//! lines are fitted relative to the times (weights `1 / t²`,
//! [`crate::model::piecewise::fit_with_breakpoints_relative`]): a time's
//! spread grows with it, and by ordinary least squares the L1 level's longest
//! lengths set its intercept, so that `n_1/2` moved from 29 to 131 flop
//! between six quick runs of the f32 dyadic where it now takes 38 to 40 (2-vCPU
//! EPYC VM). The Fig. 1 line stays the paper's ordinary least squares. Each level's `r_inf`
//! is also given in GB/s (the bytes the operation names, as STREAM counts them),
//! and a STREAM-style triad over the largest vectors is run in the same process
//! to check the top level against (a warning when they differ by over 10%).
//! The sweep reaches 4 x the last cache, at most 2 GiB of working set (64 MiB
//! with `--quick`, which therefore stops inside a large last cache and says so).
//!
//! Departures: a single operation of a few ns cannot be timed with a clock that
//! costs tens, so each trial times a batch of back-to-back operations and divides
//! (the batch sized from the clock); `n_1/2` is then the start-up cost of an
//! operation in a stream of them (call, loop set-up, remainder), not of one in
//! isolation. The vector code is chosen at run time for the widest SIMD level the
//! CPU has (recorded as `simd_width_bits` in every point and in the table).
//!
//! Measurement design: the lengths of all four operations of a precision are
//! timed in rounds, one batch of each length a round (batch sizes calibrated
//! in the first), and each length keeps its minimum over the rounds, so that
//! a change of the processor's speed lasting a second lands on every
//! operation and length alike instead of on one operation's whole sweep.
//! Swept operation by operation, one run's sweep of an operation could be slow
//! throughout, and the L1 `n_1/2` varied by half or more between runs; in
//! rounds, by a few per cent for most operations.
//!
//! The rate probe: after each operation's lengths in every round one batch
//! of the same operation on 256 elements (L1-resident, a quarter of the
//! batch target) is timed, and each operation's result records their median
//! as `rate_probe_flop_per_s` (a
//! bootstrap over the samples as its interval), against which `compare`
//! judges the levels' `r_inf`: a processor that ran slower through one run
//! moves both (`crate::results::RATE_PROBE_PARAM`). The operation's own, not
//! the dyadic multiply's: in two of five quick runs on a 2-vCPU EPYC VM the
//! L1 triad ran at 11 to 12 Gflop/s where it ran at 16.5 in the others, all
//! lengths alike, while the dyadic multiply's probe read 10.0 against 9.1:
//! what slowed one operation's instruction mix left the other's alone.

use super::super::work::{Budgets, Estimate, Work};
use super::rate_probe::rate_probe;
use super::simd::{Element, Operation, Simd, Vectors};
use super::{Fitted, hockney_fit_result, level_fit_result, pick_cpu, rate};
use crate::control::{Placement, RankError};
use crate::kernels::convert;
use crate::kernels::harness::timing::{
    Timer, calibrate, calibrate_trimmed, per_rep_ns, summarize_trials,
};
use crate::kernels::{KernelError, KernelSpec, RunContext};
use crate::model::hockney::fit_hockney;
use crate::model::piecewise::fit_with_breakpoints_relative;
use crate::results::{KernelResult, Point};
use crate::team::Team;
use std::time::Duration;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "hockney-vector";

pub(super) const VECTOR: KernelSpec = KernelSpec {
    name: NAME,
    method: "hockney",
    paper: "Hockney 1985, (r_inf, n_1/2, s_1/2) on the Cray X-MP, section 3.1, Fig. 1, Table I",
    about: "r_inf and n_1/2 of the dyadic, triad, scalar-triad and scalar loops (f64, f32), per memory level",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::ONE_PROCESS,
    card: &[crate::kernels::card::CardEntry::over(
        NAME,
        "triad-f64",
        crate::kernels::card::CardRows::VectorLevels,
    )],
    run,
    plan: estimate,
};

/// One memory level of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    /// `L1`, `L2`, ..., `memory`.
    pub name: String,
    /// The cache size that ends the level, in bytes (`None` for memory).
    pub cache_bytes: Option<u64>,
}

/// What a vector sweep measures.
#[derive(Debug, Clone)]
pub struct VectorPlan {
    /// The paper's lengths: `step, 2 step, ..., max` (Fig. 1: 2 to 400 by 2).
    pub paper_step: usize,
    /// The largest of the paper's lengths.
    pub paper_max: usize,
    /// Lengths inside each memory level beyond the paper's.
    pub per_level: usize,
    /// The largest working set (all arrays of an operation), in bytes.
    pub max_working_set: u64,
    /// Trials per length.
    pub trials: usize,
    /// How long a timed batch lasts at least.
    pub target: Duration,
}

impl VectorPlan {
    /// The plan for a run: the paper's lengths, then 3 (quick) or 6 lengths per
    /// level up to 4 x the last cache, at most 64 MiB (quick) or 2 GiB.
    pub fn for_run(quick: bool, caches: &[(u8, u64)], trials: usize, target: Duration) -> Self {
        let last = caches.last().map_or(32 << 20, |c| c.1);
        let effort = crate::kernels::effort::of(quick);
        VectorPlan {
            paper_step: effort.vector_paper_step,
            paper_max: 400,
            per_level: effort.vector_per_level,
            max_working_set: (4 * last).min(effort.vector_max_working_set),
            trials,
            target,
        }
    }

    /// The lengths to measure for an operation touching `bytes_per_element` bytes
    /// per element, the levels they fall in, and the breakpoints between levels
    /// (in elements, at the cache sizes), for `caches` as `(level, bytes)`.
    pub fn lengths(
        &self,
        bytes_per_element: usize,
        caches: &[(u8, u64)],
    ) -> (Vec<usize>, Vec<Level>, Vec<f64>) {
        let bpe = bytes_per_element as f64;
        let mut n: Vec<usize> = (1..=self.paper_max / self.paper_step)
            .map(|i| i * self.paper_step)
            .collect();
        let mut levels = Vec::new();
        let mut breaks = Vec::new();
        let mut lo = self.paper_max as f64 * bpe * 1.25;
        let cap = self.max_working_set as f64;
        let mut bounds: Vec<(String, Option<u64>)> = caches
            .iter()
            .map(|(l, b)| (format!("L{l}"), Some(*b)))
            .collect();
        bounds.push(("memory".into(), None));
        for (i, (name, cache)) in bounds.iter().enumerate() {
            let hi = match cache {
                Some(b) => (0.6 * *b as f64).min(cap),
                None => cap,
            };
            let lengths = log_spaced(lo, hi, self.per_level, bpe);
            let present = i == 0 || lengths.len() >= 2;
            if present {
                if i > 0 {
                    let boundary = bounds[i - 1].1.expect("only the last level is memory");
                    breaks.push(boundary as f64 / bpe);
                }
                levels.push(Level {
                    name: name.clone(),
                    cache_bytes: *cache,
                });
                n.extend(lengths);
            } else {
                break;
            }
            lo = match cache {
                Some(b) if i + 1 < caches.len() => 1.5 * *b as f64,
                Some(b) => 2.0 * *b as f64,
                None => break,
            };
        }
        n.sort_unstable();
        n.dedup();
        (n, levels, breaks)
    }
}

/// `count` lengths (multiples of 8 elements) log-spaced over `[lo, hi]` bytes.
fn log_spaced(lo: f64, hi: f64, count: usize, bpe: f64) -> Vec<usize> {
    if hi <= lo * 1.05 || count == 0 {
        return Vec::new();
    }
    let mut v: Vec<usize> = (0..count)
        .map(|i| {
            let f = if count == 1 {
                0.5
            } else {
                i as f64 / (count - 1) as f64
            };
            let bytes = lo * (hi / lo).powf(f);
            ((bytes / bpe / 8.0).floor() as usize).max(1) * 8
        })
        .collect();
    v.dedup();
    v
}

/// The samples of one length.
#[derive(Debug, Clone)]
pub struct LengthSamples {
    /// Vector length.
    pub n: usize,
    /// Repetitions per batch.
    pub reps: u64,
    /// Time of one operation per trial, ns, T0 subtracted.
    pub samples_ns: Vec<f64>,
}

/// One operation's sweep.
#[derive(Debug, Clone)]
pub struct OperationSweep {
    /// The operation.
    pub op: Operation,
    /// `f64` or `f32`.
    pub precision: &'static str,
    /// Bytes per element of one array.
    pub element_bytes: usize,
    /// The lengths measured.
    pub lengths: Vec<LengthSamples>,
    /// The memory levels reached.
    pub levels: Vec<Level>,
    /// Breakpoints between levels, in elements.
    pub breaks: Vec<f64>,
    /// The rate probe's samples, flop/ns: the same operation on
    /// `PROBE_ELEMENTS` (256) elements, one batch after the operation's lengths in every round.
    pub probe_rates: Vec<f64>,
}

/// Elements of the rate probe's batch: 6 to 8 KiB in all (three or four
/// vectors), well inside L1 as the shortest lengths, whose rate is the
/// processor's own, and long beside every operation's `n_1/2` (8 to 25
/// elements). At 1024 elements (24 KiB for the triad's three f64 vectors)
/// the triad already ran at 11.6 Gflop/s where its L1 fit gave 16.2.
const PROBE_ELEMENTS: usize = 256;

struct Stream {
    precision: &'static str,
    n: usize,
    samples_ns: Vec<f64>,
}

/// Measures every operation of one precision on the calling (pinned) thread,
/// in rounds: each round times one batch of every length of every operation
/// (each batch size calibrated in the first round), then the operation's
/// rate probe, so that a change of the processor's speed lasting a second
/// falls on every operation and length alike rather than on one operation's
/// whole sweep, and the minimum over the rounds finds each length's fast
/// state.
fn sweep_precision<T: Element>(
    ctx: &RunContext<'_>,
    plan: &VectorPlan,
    caches: &[(u8, u64)],
    simd: Simd,
    out: &mut Vec<OperationSweep>,
    ran: &mut Vec<Simd>,
) -> Result<Option<Stream>, RankError> {
    let min_bpe = 3 * T::BYTES as u64;
    let mut v = Vectors::<T>::new((plan.max_working_set / min_bpe) as usize);
    let probe_n = PROBE_ELEMENTS.min(v.len());
    let first = out.len();
    for op in Operation::ALL {
        let (ns, levels, breaks) = plan.lengths(op.arrays() * T::BYTES, caches);
        out.push(OperationSweep {
            op,
            precision: T::NAME,
            element_bytes: T::BYTES,
            lengths: ns
                .into_iter()
                .map(|n| LengthSamples {
                    n: n.min(v.len()),
                    reps: 0,
                    samples_ns: Vec::with_capacity(plan.trials),
                })
                .collect(),
            levels,
            breaks,
            probe_rates: Vec::with_capacity(plan.trials),
        });
    }
    // The rate probe's batch size per operation: a quarter of the target.
    let mut probe_reps = vec![0u64; Operation::ALL.len()];
    // Per operation, the level every batch's dispatch said it ran; one
    // that said otherwise once fails the kernel (it cannot, as written).
    let mut paths: Vec<Option<Simd>> = vec![None; Operation::ALL.len()];
    for round in 0..plan.trials {
        for (i, sweep) in out[first..].iter_mut().enumerate() {
            let op = sweep.op;
            for l in &mut sweep.lengths {
                if ctx.cancelled() {
                    return Ok(None);
                }
                let n = l.n;
                let path = &mut paths[i];
                let mut batch = |reps: u64| {
                    let start = Timer::start();
                    let did = v.run(simd, op, n, reps);
                    let took = start.elapsed();
                    match path.replace(did) {
                        Some(before) if before != did => Err(RankError::Failed(format!(
                            "{} {}: the dispatch ran {before:?} and then {did:?}",
                            op.name(),
                            T::NAME
                        ))),
                        _ => Ok(took),
                    }
                };
                // The first round's batch is the calibration's last; the
                // later rounds' are trimmed to about the target.
                let ns = if l.reps == 0 {
                    let c = calibrate_trimmed(plan.target, &mut batch)?;
                    l.reps = c.trimmed;
                    per_rep_ns(c.took, c.reps, ctx.clock)
                } else {
                    per_rep_ns(batch(l.reps)?, l.reps, ctx.clock)
                };
                l.samples_ns.push(ns);
                if !v.check(op, n) {
                    return Err(RankError::Failed(format!(
                        "{} {}: the result vector of length {n} is wrong",
                        op.name(),
                        T::NAME
                    )));
                }
            }
            // The rate probe: one batch of the operation on the vectors'
            // first `PROBE_ELEMENTS`, a quarter of the target long.
            let mut probe = |reps: u64| {
                let start = Timer::start();
                v.run(simd, op, probe_n, reps);
                Ok::<_, RankError>(start.elapsed())
            };
            if probe_reps[i] == 0 {
                probe_reps[i] = calibrate(plan.target / 4, &mut probe)?;
            }
            let per_rep = per_rep_ns(probe(probe_reps[i])?, probe_reps[i], ctx.clock);
            sweep
                .probe_rates
                .push((op.flop_per_element() * probe_n) as f64 / per_rep.max(1e-3));
        }
        ctx.progress
            .step(&format!("{} round {}", T::NAME, round + 1));
    }
    ran.extend(paths.into_iter().map(|p| p.unwrap_or(simd)));
    if T::BYTES != 8 {
        return Ok(None);
    }
    // STREAM-style triad over the full vectors: the largest scalar-triad working set.
    let n = v.len();
    let trials = plan.trials.max(3);
    let samples_ns = (0..trials)
        .map(|_| {
            let start = Timer::start();
            v.run(simd, Operation::ScalarTriad, n, 1);
            start.elapsed().as_nanos() as f64
        })
        .collect();
    Ok(Some(Stream {
        precision: T::NAME,
        n,
        samples_ns,
    }))
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let cpu = pick_cpu(ctx, NAME)?;
    let team = Team::new(&ctx.team_spec(vec![cpu], 1, false))?;
    let caches = ctx.topology.data_cache_sizes(cpu);
    let plan = VectorPlan::for_run(
        ctx.config.quick,
        &caches,
        ctx.config.trials(),
        ctx.config.batch_target(ctx.clock),
    );
    let simd = Simd::chosen().map_err(|reason| KernelError::NotRunnable {
        kernel: NAME.into(),
        reason,
    })?;
    ctx.progress.begin(NAME, 2 * ctx.config.trials() as u64);
    let mut per_rank = team.run(NAME, vec![()], |_, _| {
        let (mut sweeps, mut ran) = (Vec::new(), Vec::new());
        let stream = sweep_precision::<f64>(ctx, &plan, &caches, simd, &mut sweeps, &mut ran)?;
        sweep_precision::<f32>(ctx, &plan, &caches, simd, &mut sweeps, &mut ran)?;
        Ok((sweeps, ran, stream))
    })?;
    ctx.progress.end();
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    let (sweeps, ran, stream) = per_rank.swap_remove(0);
    // Each operation's points record the level its dispatch ran, not the
    // one asked for.
    let mut results: Vec<KernelResult> = sweeps
        .iter()
        .zip(ran)
        .map(|(s, ran)| {
            operation_result(
                s,
                &plan,
                ran,
                cpu,
                team.placement(),
                ctx.clock.read_overhead_ns,
            )
        })
        .collect();
    if let Some(stream) = stream {
        let triad = results
            .iter()
            .find(|r| r.transport.as_deref() == Some("scalar-triad-f64"));
        let top_gb_per_s = triad.and_then(top_level_gb_per_s);
        results.push(stream_result(
            &stream,
            top_gb_per_s,
            simd,
            cpu,
            team.placement(),
        ));
    }
    if plan.max_working_set <= caches.last().map_or(0, |c| c.1) {
        let w = format!(
            "the sweep stops at {} MiB, inside the last cache ({} MiB): no memory-level fit{}",
            plan.max_working_set >> 20,
            caches.last().map_or(0, |c| c.1 >> 20),
            if ctx.config.quick {
                "; run without --quick to reach memory"
            } else {
                ""
            }
        );
        for r in &mut results {
            r.warnings.push(w.clone());
        }
    }
    Ok(results)
}

/// The result of one operation: points, the Fig. 1 fit and one fit per level.
pub fn operation_result(
    s: &OperationSweep,
    plan: &VectorPlan,
    simd: Simd,
    cpu: usize,
    placement: Placement,
    t0_clock_ns: f64,
) -> KernelResult {
    let label = format!("{}-{}", s.op.name(), s.precision);
    let vi = s.op.vector_instructions() as f64;
    let bytes_per_element = s.op.arrays() * s.element_bytes;
    let width = if s.op == Operation::Scalar {
        8 * s.element_bytes as u32
    } else {
        simd.width_bits()
    };
    let mut warnings = Vec::new();
    let mut trials = super::TrialSummaries::new("lengths", "trials", "minimum");
    let mut points = Vec::with_capacity(s.lengths.len());
    let x: Vec<f64> = s.lengths.iter().map(|l| l.n as f64).collect();
    let mut y = Vec::with_capacity(s.lengths.len());
    for l in &s.lengths {
        let summary = trials.summarize(&l.samples_ns, &format!("n = {}", l.n));
        y.push(convert::per_instruction_ns(
            summary.min,
            s.op.vector_instructions(),
        ));
        let level = s.breaks.partition_point(|&b| b < l.n as f64) + 1;
        let flop = (l.n * s.op.flop_per_element()) as f64;
        points.push(
            Point::new()
                .with("n_elements", l.n as f64)
                .with("flop", flop)
                .with("working_set_bytes", (l.n * bytes_per_element) as f64)
                .with("level", level as f64)
                .with("reps", l.reps as f64)
                .with("simd_width_bits", f64::from(width))
                .with("rate_flop_per_s", rate(flop, summary.min))
                .with_stats("time_ns", summary),
        );
    }
    warnings.extend(trials.warning());
    let mut fits = Vec::new();
    // Fig. 1: the paper's lengths only.
    let paper: Vec<usize> = (0..x.len())
        .filter(|&i| x[i] <= plan.paper_max as f64)
        .collect();
    let (px, py): (Vec<f64>, Vec<f64>) = paper.iter().map(|&i| (x[i], y[i])).unzip();
    match fit_hockney(&px, &py) {
        Ok(fit) => {
            for (k, &i) in paper.iter().enumerate() {
                points[i] = points[i]
                    .clone()
                    .with("paper_fit_residual_ns", fit.line.residuals[k]);
            }
            fits.push(hockney_fit_result(
                &Fitted::Full(fit),
                &format!(
                    "t = (n + n_half)/r_inf on Fig. 1 lengths (n <= {})",
                    plan.paper_max
                ),
                "",
                "n_elements",
                &format!("time_ns.min / {vi}"),
                bytes_per_element as f64 / vi,
                Some(t0_clock_ns),
                &mut warnings,
            ));
        }
        Err(e) => warnings.push(format!("no fit on the Fig. 1 lengths: {e}")),
    }
    // One line per memory level.
    match fit_with_breakpoints_relative(&x, &y, &s.breaks) {
        Ok(pw) => {
            for (seg, level) in pw.segments.iter().zip(&s.levels) {
                let prefix = format!("{}_", level.name.to_lowercase());
                fits.extend(level_fit_result(
                    &seg.line,
                    &format!("t = (n + n_half)/r_inf on {}", level.name),
                    &prefix,
                    &format!("time_ns.min / {vi}"),
                    bytes_per_element as f64 / vi,
                    &mut warnings,
                ));
            }
            for (i, p) in points.iter_mut().enumerate() {
                *p = p
                    .clone()
                    .with("level_fit_residual_ns", y[i] - pw.predict(x[i]));
            }
        }
        Err(e) => warnings.push(format!("no per-level fit: {e}")),
    }
    let probe = rate_probe(&s.probe_rates, 1, None, &mut warnings);
    KernelResult::new(NAME, "hockney", placement, vec![cpu])
        .with_transport(Some(label))
        .with_points(points)
        .with_fits(fits)
        .with_warnings(warnings)
        .with_headline(probe.into_iter().collect())
}

/// The bandwidth of the last level fitted, GB/s.
fn top_level_gb_per_s(r: &KernelResult) -> Option<f64> {
    r.fits.last().and_then(|f| {
        f.params
            .iter()
            .find(|(k, _)| k.ends_with("bandwidth_gb_per_s"))
            .map(|(_, v)| *v)
    })
}

fn stream_result(
    s: &Stream,
    fit_gb_per_s: Option<f64>,
    simd: Simd,
    cpu: usize,
    placement: Placement,
) -> KernelResult {
    let bytes = (3 * 8 * s.n) as f64;
    let (summary, warning) = summarize_trials(&s.samples_ns, "STREAM triad");
    let gb_per_s = rate(bytes, summary.min) / 1e9;
    let mut point = Point::new()
        .with("n_elements", s.n as f64)
        .with("working_set_bytes", bytes)
        .with("simd_width_bits", f64::from(simd.width_bits()))
        .with("bandwidth_gb_per_s", gb_per_s)
        .with_stats("time_ns", summary);
    let mut warnings: Vec<String> = warning.into_iter().collect();
    if let Some(fit) = fit_gb_per_s {
        let ratio = fit / gb_per_s;
        point = point
            .with("fit_bandwidth_gb_per_s", fit)
            .with("fit_to_stream_ratio", ratio);
        if (ratio - 1.0).abs() > 0.10 {
            warnings.push(format!(
                "the top-level fit of scalar-triad-f64 gives {fit:.2} GB/s, {:.0}% away from this STREAM-style triad's {gb_per_s:.2} GB/s",
                (ratio - 1.0) * 100.0
            ));
        }
    }
    KernelResult::new(NAME, "hockney", placement, vec![cpu])
        .with_transport(Some(format!("stream-triad-{}", s.precision)))
        .with_points(vec![point])
        .with_warnings(warnings)
}

/// `hockney-vector`: every length of every operation in both precisions,
/// each operation's rate probe (a quarter target, calibrated apart) once a
/// round; four vectors of a third of the largest working set each, in both
/// precisions, written once; the STREAM triad over them.
fn estimate(b: &Budgets<'_>) -> Estimate {
    let cpu = b.shape.cpus.first().copied().unwrap_or(0);
    let caches = b.shape.topology.data_cache_sizes(cpu);
    let plan = VectorPlan::for_run(
        b.config.quick,
        &caches,
        b.trials,
        b.config.batch_target(b.shape.clock),
    );
    let ops = Operation::ALL;
    let mut w = Work::default();
    for bytes in [8usize, 4] {
        let lengths: usize = ops
            .iter()
            .map(|op| plan.lengths(op.arrays() * bytes, &caches).0.len())
            .sum();
        let probes = 0.25 * ops.len() as f64;
        w = w
            .and(b.batched(lengths as f64))
            .and(Work::calibrated_apart(probes, b.trials, b.tgt));
    }
    let ws = plan.max_working_set as f64;
    let fill = 2.0 * 4.0 / 3.0 * ws / b.r.fill_bytes_per_s;
    let stream = b.trials.max(3) as f64 * ws / b.r.stream_bytes_per_s;
    Estimate::pair(w.plus(fill + stream, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_cover_the_paper_and_each_level_with_breaks_at_the_caches() {
        let caches = [(1u8, 48u64 << 10), (2, 2 << 20), (3, 32 << 20)];
        let plan = VectorPlan::for_run(false, &caches, 3, Duration::from_millis(1));
        assert_eq!(plan.max_working_set, 128 << 20);
        let (n, levels, breaks) = plan.lengths(24, &caches);
        assert_eq!(n[0], 2);
        assert!(n.contains(&400) && n.contains(&398));
        let names: Vec<&str> = levels.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["L1", "L2", "L3", "memory"]);
        assert_eq!(breaks, vec![2048.0, 87381.33333333333, 1398101.3333333333]);
        for (i, b) in breaks.iter().enumerate() {
            let inside = n.iter().filter(|&&v| (v as f64) > *b).count();
            assert!(inside >= 2, "level {} has points", i + 1);
        }
        assert!(*n.last().unwrap() as u64 * 24 <= plan.max_working_set);
        // A cap inside the last cache drops the memory level.
        let quick = VectorPlan::for_run(
            true,
            &[(1, 48 << 10), (2, 2 << 20), (3, 480 << 20)],
            3,
            Duration::from_millis(1),
        );
        let (_, levels, breaks) = quick.lengths(24, &[(1, 48 << 10), (2, 2 << 20), (3, 480 << 20)]);
        assert_eq!(levels.len(), 3);
        assert_eq!(breaks.len(), 2);
    }

    /// An operation timed exactly as Hockney's Table I reports it: every vector
    /// instruction takes `(n + n_1/2) / r_inf`, so one repetition takes that
    /// times the `chained` instructions of the operation, and trials of 1, 1.01 and
    /// 1.02 times it have that minimum.
    fn table_i_sweep(
        op: Operation,
        chained: f64,
        r_inf_flop_per_ns: f64,
        n_half: f64,
    ) -> OperationSweep {
        let lengths = (1..=200)
            .map(|i| {
                let n = 2 * i;
                let t = chained * (n as f64 + n_half) / r_inf_flop_per_ns;
                LengthSamples {
                    n,
                    reps: 100,
                    samples_ns: vec![t * 1.02, t, t * 1.01],
                }
            })
            .collect();
        f64_sweep(op, lengths, &[("L1", Some(48 << 10))], Vec::new())
    }

    /// A sweep of `op` on doubles with the given `lengths`, named levels of
    /// cache size (none for memory) and breaks between them.
    fn f64_sweep(
        op: Operation,
        lengths: Vec<LengthSamples>,
        levels: &[(&str, Option<u64>)],
        breaks: Vec<f64>,
    ) -> OperationSweep {
        OperationSweep {
            op,
            precision: "f64",
            element_bytes: 8,
            lengths,
            levels: levels
                .iter()
                .map(|&(name, cache_bytes)| Level {
                    name: name.into(),
                    cache_bytes,
                })
                .collect(),
            breaks,
            probe_rates: Vec::new(),
        }
    }

    /// Table I's rows through the kernel's arithmetic: the all-vector triad
    /// (107 Mflop/s, n_1/2 = 45, t_0 = 45/107 us = 0.42 us, as printed), the
    /// Cyber 205 triad (148, 60, 0.41 us; the paper prints 0.40) and the dyadic
    /// (70, 53, 0.76 us). The flops and instructions an element are Hockney's,
    /// written here, not read from the code. At n = 400 the triad does 800 flop in
    /// 2 x 445 / 0.107 ns = 8317.76 ns, a rate of 96.18 Mflop/s; its 4 arrays of
    /// 8 bytes move 32 bytes an element in two instructions, so the bandwidth at
    /// r_inf is 16 bytes a flop, 1.712 GB/s.
    #[test]
    fn table_i_rows_come_back_from_their_times() {
        let plan = VectorPlan::for_run(false, &[(1, 48 << 10)], 3, Duration::from_millis(1));
        // (operation, flop and chained instructions an element, r_inf flop/ns,
        // n_1/2, t_0 ns, GB/s at r_inf)
        let rows = [
            (Operation::Triad, 2.0, 0.107, 45.0, 420.56, 1.712),
            (Operation::ScalarTriad, 2.0, 0.148, 60.0, 405.41, 1.776),
            (Operation::Dyadic, 1.0, 0.070, 53.0, 757.14, 1.68),
        ];
        for (op, per_element, r_inf, n_half, t0_ns, gb_per_s) in rows {
            let r = operation_result(
                &table_i_sweep(op, per_element, r_inf, n_half),
                &plan,
                Simd::Avx2,
                0,
                Placement::Pinned,
                20.0,
            );
            let fig1 = &r.fits[0];
            let near = |k: &str, want: f64, tol: f64| {
                let got = fig1.params[k];
                assert!((got - want).abs() <= tol, "{op:?} {k} = {got}, want {want}");
            };
            near("r_inf_flop_per_s", r_inf * 1e9, 1e-3);
            near("n_half_flop", n_half, 1e-6);
            near("t0_ns", t0_ns, 0.01);
            near("bandwidth_gb_per_s", gb_per_s, 1e-9);
            let level = &r.fits[1];
            assert!((level.params["l1_r_inf_flop_per_s"] - r_inf * 1e9).abs() < 1e-3);
            let last = r.points.last().unwrap();
            let flop = 400.0 * per_element;
            let t = per_element * (400.0 + n_half) / r_inf;
            assert_eq!(last.number("flop"), Some(flop), "{op:?}");
            let rate = last.number("rate_flop_per_s").unwrap();
            assert!((rate - flop / t * 1e9).abs() < 1e-3, "{op:?} rate {rate}");
            assert_eq!(last.stats("time_ns").unwrap().min, t, "{op:?}");
        }
        let triad = operation_result(
            &table_i_sweep(Operation::Triad, 2.0, 0.107, 45.0),
            &plan,
            Simd::Avx2,
            0,
            Placement::Pinned,
            20.0,
        );
        let rate = triad
            .points
            .last()
            .unwrap()
            .number("rate_flop_per_s")
            .unwrap();
        assert!(
            (rate - 96_179_775.3).abs() < 1.0,
            "triad rate at n = 400: {rate}"
        );
        assert_eq!(
            triad.points.last().unwrap().number("working_set_bytes"),
            Some(400.0 * 32.0)
        );
    }

    /// `operation_result` on times built from two known lines, L1 (n <= 100):
    /// t = (n + 20)/2 ns per instruction, memory beyond: t = (n + 60)/1: every
    /// point's derived figures by hand, both fits recover their lines, and the
    /// one noisy length is counted in a warning.
    #[test]
    fn operation_result_derives_points_and_fits_from_known_times() {
        let line = |n: usize| {
            if n <= 100 {
                (n as f64 + 20.0) / 2.0
            } else {
                n as f64 + 60.0
            }
        };
        let sweep = |op: Operation| {
            let vi = op.vector_instructions() as f64;
            let lengths = (1..=50)
                .map(|k| 2 * k)
                .chain((6..=15).map(|k| 20 * k))
                .map(|n| {
                    let t = vi * line(n);
                    // n = 4 spreads by 50 % over its trials, beyond ACCURACY.
                    let worst = if n == 4 { 1.5 } else { 1.05 };
                    LengthSamples {
                        n,
                        reps: 10,
                        samples_ns: vec![1.01 * t, t, worst * t],
                    }
                })
                .collect();
            f64_sweep(
                op,
                lengths,
                &[("L1", Some(3200)), ("memory", None)],
                vec![100.0],
            )
        };
        let plan = VectorPlan {
            paper_step: 2,
            paper_max: 100,
            per_level: 3,
            max_working_set: 1 << 20,
            trials: 3,
            target: Duration::from_millis(1),
        };
        let result =
            |s: &OperationSweep| operation_result(s, &plan, Simd::Avx2, 1, Placement::Pinned, 0.0);
        let r = result(&sweep(Operation::Triad));
        assert_eq!(r.transport.as_deref(), Some("triad-f64"));
        assert_eq!(r.points.len(), 60);
        for p in &r.points {
            let n = p.number("n_elements").unwrap();
            assert_eq!(p.number("flop"), Some(2.0 * n));
            assert_eq!(p.number("working_set_bytes"), Some(4.0 * 8.0 * n));
            // n = 100 sits on the break and belongs to L1.
            assert_eq!(
                p.number("level"),
                Some(if n <= 100.0 { 1.0 } else { 2.0 }),
                "n = {n}"
            );
            assert_eq!(p.number("simd_width_bits"), Some(256.0));
            let min_ns = 2.0 * line(n as usize);
            let rate = p.number("rate_flop_per_s").unwrap();
            assert!(
                (rate - 2.0 * n / min_ns * 1e9).abs() <= 1e-9 * rate,
                "n = {n}"
            );
            // The minima lie on the lines, so the per-level fit leaves nothing.
            let residual = p.number("level_fit_residual_ns").unwrap();
            assert!(
                residual.abs() < 1e-6 * min_ns,
                "n = {n}: residual {residual}"
            );
        }
        let noisy: Vec<&String> = r
            .warnings
            .iter()
            .filter(|w| w.starts_with("1 of 60 lengths"))
            .collect();
        assert_eq!(noisy.len(), 1, "{:?}", r.warnings);
        let param = |fit: usize, name: &str| r.fits[fit].params[name];
        // Fig. 1's fit on n <= 100: r_inf 2 per ns per instruction, n_1/2 20.
        assert!((param(0, "r_inf_flop_per_s") - 2e9).abs() < 1e-3 * 2e9);
        assert!((param(0, "n_half_flop") - 20.0).abs() < 1e-6 * 20.0);
        assert_eq!(param(0, "timer_t0_subtracted_ns"), 0.0);
        // One fit per level: L1 at 2 per ns, memory at 1 per ns.
        let level_rate = |prefix: &str| {
            r.fits
                .iter()
                .find_map(|f| f.params.get(&format!("{prefix}_r_inf_flop_per_s")).copied())
                .unwrap_or_else(|| panic!("no {prefix} fit in {:?}", r.fits))
        };
        assert!((level_rate("l1") - 2e9).abs() < 1e-3 * 2e9);
        assert!((level_rate("memory") - 1e9).abs() < 1e-3 * 1e9);
        // Bandwidth = r_inf x 32 bytes per element / 2 instructions: 32 and 16 GB/s.
        for (prefix, gb) in [("", 32.0), ("l1_", 32.0), ("memory_", 16.0)] {
            let key = format!("{prefix}bandwidth_gb_per_s");
            let got = r.fits.iter().find_map(|f| f.params.get(&key)).unwrap();
            assert!((got - gb).abs() < 1e-3 * gb, "{key} {got}");
        }
        // The scalar operation reports the element's width, not the vector's.
        let scalar = result(&sweep(Operation::Scalar));
        assert!(
            scalar
                .points
                .iter()
                .all(|p| p.number("simd_width_bits") == Some(64.0))
        );
        // Without a noisy length there is no count of them.
        let mut quiet = sweep(Operation::Triad);
        for l in &mut quiet.lengths {
            let t = l.samples_ns[1];
            l.samples_ns = vec![t, t, 1.01 * t];
        }
        let quiet = result(&quiet);
        assert!(
            !quiet.warnings.iter().any(|w| w.contains(" lengths: ")),
            "{:?}",
            quiet.warnings
        );
    }
}
