//! `pingpong` and `oneway` between two MPI processes (`--transport mpi`, built
//! with `--features mpi`): the same sweep as between threads ([`pair_body`],
//! generic over the endpoint), on ranks 0 and 1 of the world; any further ranks
//! wait at the next kernel's start gate.
//!
//! The probe timed once a round is the plain `MPI_Send`/`MPI_Recv` ping-pong on
//! the same pair ([`MpiEndpoint::raw_round_trips`]), what the two bare flags are
//! between threads. So every round pairs a batch of the `mpi` transport's
//! 8-byte messages with a batch of the raw MPI ping-pong milliseconds apart,
//! and `pingpong` reports the transport's 8-byte one-way time over the raw one
//! as the median of those per-round ratios (`mpi_over_baseline`), in a result
//! of its own with transport `mpi-raw`, as the `atomic-flags` row is for the
//! mailbox.

use super::super::timing::summarize_trials;
use super::super::{KernelError, RunContext, convert};
use super::pair::{
    PairLayout, PairPlan, PairSamples, Pattern, Probe, default_sizes, latency_result, pair_body,
};
use crate::control::RankError;
use crate::model::stats::summarize;
use crate::platform::DistanceClass;
use crate::results::{KernelResult, Point};
use crate::team::RankCtx;
use crate::team::mpi::Processes;
use crate::transport::mpi::MpiEndpoint;
use std::time::Duration;

/// The transport name the results carry.
pub(crate) const TRANSPORT: &str = "mpi";

/// The baseline's name in the results: the plain MPI ping-pong.
pub(crate) const RAW: &str = "mpi-raw";

/// How far above the raw MPI ping-pong the transport's 8-byte latency may be
/// before the result says so (the target).
const BASELINE_MARGIN: f64 = 0.05;

/// The raw MPI ping-pong as a sweep's probe.
struct RawMpi;

impl Probe<MpiEndpoint> for RawMpi {
    fn round_trips(
        &self,
        _: &RankCtx<'_>,
        ep: &mut MpiEndpoint,
        _: u64,
        reps: u64,
    ) -> Result<Duration, RankError> {
        ep.raw_round_trips(reps)
    }
}

/// The distance class of ranks `a` and `b`.
pub(crate) fn distance(procs: &Processes, a: usize, b: usize) -> DistanceClass {
    if procs.same_node(a, b) {
        DistanceClass::OtherProcess
    } else {
        DistanceClass::OtherNode
    }
}

fn layout(procs: &Processes) -> PairLayout {
    PairLayout {
        placement: procs.placement(),
        ranks: procs.size(),
        distance: Some(distance(procs, 0, 1)),
    }
}

/// Sweeps `sizes` with `pattern` between ranks 0 and 1; rank 0 returns the
/// samples, every other rank nothing.
fn measure(
    ctx: &RunContext<'_>,
    procs: &Processes,
    kernel: &str,
    pattern: Pattern,
    sizes: &[usize],
) -> Result<PairSamples, KernelError> {
    let on_size = |size: usize| ctx.progress.step(&format!("{TRANSPORT} {size} B"));
    let cancelled = || ctx.cancelled();
    let plan = PairPlan {
        pattern,
        sizes,
        trials: ctx.config.trials(),
        target: ctx.config.batch_target(ctx.clock),
        clock: ctx.clock,
        fault: ctx.config.fault,
        single_round_trips: if ctx.config.quick { 2_000 } else { 20_000 },
        on_size: &on_size,
        cancelled: &cancelled,
    };
    let samples = procs.run(kernel, |rctx, ep| {
        if rctx.rank < 2 {
            pair_body(rctx, ep, &RawMpi, &plan)
        } else {
            Ok(PairSamples::default())
        }
    })?;
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    Ok(samples)
}

/// `pingpong` or `oneway` over MPI: the sweep's result on rank 0 (nothing on
/// the others), and for `pingpong` the raw MPI baseline beside it.
pub(crate) fn latency(
    ctx: &RunContext<'_>,
    procs: &Processes,
    kernel: &str,
    pattern: Pattern,
) -> Result<Vec<KernelResult>, KernelError> {
    let sizes = ctx.config.sizes.clone().unwrap_or_else(default_sizes);
    let with_8 = sizes.contains(&8);
    ctx.progress.begin(
        kernel,
        (sizes.len() + usize::from(pattern == Pattern::PingPong && !with_8)) as u64,
    );
    let samples = measure(ctx, procs, kernel, pattern, &sizes)?;
    // The paired baseline needs 8-byte batches beside the probe's; a sweep
    // without 8 bytes times them in a sweep of their own.
    let paired = match pattern {
        Pattern::PingPong if with_8 => Some(samples.clone()),
        Pattern::PingPong => Some(measure(ctx, procs, kernel, pattern, &[8])?),
        Pattern::OneWay => None,
    };
    ctx.progress.end();
    if procs.rank() != 0 {
        return Ok(Vec::new());
    }
    let cpus = procs.cpus()[..2].to_vec();
    let layout = layout(procs);
    let mut result = latency_result(kernel, Some(TRANSPORT), &layout, &cpus, &samples);
    let Some(paired) = paired else {
        return Ok(vec![result]);
    };
    let base = baseline(kernel, &layout, &cpus, &paired);
    if let Some(ratio) = base.points[0].number(&format!("{TRANSPORT}_over_baseline"))
        && ratio > 1.0 + BASELINE_MARGIN
    {
        result.warnings.push(format!(
            "8-byte one-way latency is {:.0}% above plain MPI_Send/MPI_Recv on the same pair (median of paired batches)",
            (ratio - 1.0) * 100.0
        ));
    }
    Ok(vec![result, base])
}

/// The raw MPI ping-pong's 8-byte one-way time (each round's probe, halved)
/// and the transport's 8-byte one-way time over it, round by round: median,
/// smallest and largest of the ratios.
fn baseline(
    kernel: &str,
    layout: &PairLayout,
    cpus: &[usize],
    paired: &PairSamples,
) -> KernelResult {
    let raw_one_way = convert::one_way_samples(&paired.probes_ns);
    let mut point = Point::new().with("size_bytes", 8.0);
    if let Some(eight) = paired.sizes.iter().find(|s| s.size == 8) {
        point = point.with("reps", eight.reps as f64);
        let ratios: Vec<f64> = eight
            .samples_ns
            .iter()
            .zip(&raw_one_way)
            .map(|(t, raw)| t / raw)
            .collect();
        if let Ok(r) = summarize(&ratios) {
            let name = format!("{TRANSPORT}_over_baseline");
            point = point
                .with(&name, r.median)
                .with(&format!("{name}_min"), r.min)
                .with(&format!("{name}_max"), r.max);
        }
    }
    let (summary, warning) = summarize_trials(&raw_one_way, "raw MPI 8 B");
    KernelResult::new(kernel, "scibench", layout.placement, cpus.to_vec())
        .with_transport(Some(RAW))
        .with_distance_class(layout.distance)
        .with_ranks(layout.ranks)
        .with_points(vec![point.with_stats("one_way_ns", summary)])
        .with_warnings(warning.into_iter().collect())
}
