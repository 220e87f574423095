//! `pingpong`, `oneway` and `c2c` between MPI processes (`--transport mpi`,
//! built with `--features mpi`): the same sweep as between threads
//! ([`pair_body`], generic over the endpoint), on ranks 0 and 1 of the world
//! (`pingpong`, `oneway`) or on every pair of ranks in turn (`c2c`); the ranks
//! outside the pair wait at the next start gate. A pair's first rank times;
//! when that is not rank 0, it sends its samples to rank 0, which alone
//! reports.
//!
//! The probe timed once a round is the plain `MPI_Send`/`MPI_Recv` ping-pong on
//! the same pair ([`MpiEndpoint::raw_round_trips`]), what the two bare flags are
//! between threads. So every round pairs a batch of the `mpi` transport's
//! 8-byte messages with a batch of the raw MPI ping-pong milliseconds apart,
//! and `pingpong` reports the transport's 8-byte one-way time over the raw one
//! as the median of those per-round ratios (`mpi_over_baseline`), in a result
//! of its own with transport `mpi-raw`, as the `atomic-flags` row is for the
//! mailbox.

use super::super::harness::sweep::SweepPlan;
use super::super::harness::timing::summarize_trials;
use super::super::{KernelError, RunContext, convert};
use super::c2c_headline::class_headline;
use super::pair::{
    PairLayout, PairPlan, PairSamples, Pattern, Probe, SizeSamples, default_sizes, latency_result,
    pair_body,
};
use crate::control::RankError;
use crate::model::stats::summarize;
use crate::platform::DistanceClass;
use crate::results::{KernelResult, Point};
use crate::team::RankCtx;
use crate::team::mpi::Processes;
use crate::transport::mpi::MpiEndpoint;
use crate::transport::{Endpoint, PendingRequests};
use std::time::Duration;

/// The transport name the results carry.
pub(crate) const TRANSPORT: &str = "mpi";

/// The baseline's name in the results: the plain MPI ping-pong.
pub(crate) const RAW: &str = "mpi-raw";

/// How far above the raw MPI ping-pong the transport's 8-byte latency may be
/// before the result says so (the target).
const BASELINE_MARGIN: f64 = 0.05;

/// Ranks `pair[0]` and `pair[1]` of the world as ranks 0 and 1 of a two-rank
/// team, so that the sweep written for ranks 0 and 1 runs between any pair.
struct PairOf<'e> {
    ep: &'e mut MpiEndpoint,
    pair: [usize; 2],
    /// This process's index in `pair`.
    me: usize,
    pending: PendingRequests,
}

impl PairOf<'_> {
    #[inline]
    fn world(&self, rank: usize) -> usize {
        self.pair.get(rank).copied().unwrap_or(usize::MAX)
    }
}

impl Endpoint for PairOf<'_> {
    fn rank(&self) -> usize {
        self.me
    }

    fn size(&self) -> usize {
        2
    }

    #[inline]
    fn send(&mut self, to: usize, data: &[u8]) -> Result<(), RankError> {
        let to = self.world(to);
        self.ep.send(to, data)
    }

    #[inline]
    fn recv(&mut self, from: usize, buf: &mut [u8]) -> Result<usize, RankError> {
        let from = self.world(from);
        self.ep.recv(from, buf)
    }

    fn try_send(&mut self, to: usize, data: &[u8]) -> Result<bool, RankError> {
        let to = self.world(to);
        self.ep.try_send(to, data)
    }

    fn try_recv(&mut self, from: usize, buf: &mut [u8]) -> Result<Option<usize>, RankError> {
        let from = self.world(from);
        self.ep.try_recv(from, buf)
    }

    fn probe(&self, from: usize) -> bool {
        self.ep.probe(self.world(from))
    }

    fn pending_mut(&mut self) -> &mut PendingRequests {
        &mut self.pending
    }
}

/// The raw MPI ping-pong between the pair as a sweep's probe; the pair's first
/// rank leads.
struct RawMpi;

impl Probe<PairOf<'_>> for RawMpi {
    fn round_trips(
        &self,
        _: &RankCtx<'_>,
        ep: &mut PairOf<'_>,
        _: u64,
        reps: u64,
    ) -> Result<Duration, RankError> {
        let peer = ep.pair[1 - ep.me];
        ep.ep.raw_round_trips(peer, ep.me == 0, reps)
    }
}

fn layout(procs: &Processes) -> PairLayout {
    PairLayout {
        placement: procs.placement(),
        ranks: procs.size(),
        distance: Some(procs.distance(0, 1)),
    }
}

/// Sweeps `sizes` with `pattern` between ranks `pair`; rank 0 returns the
/// samples (sent to it by the pair's first rank when that is another), every
/// other rank nothing; and whether this rank's endpoint made blocking calls
/// ([`MpiEndpoint::blocks`]).
fn measure(
    ctx: &RunContext<'_>,
    procs: &Processes,
    kernel: &str,
    plan: &PairPlan<'_>,
    pair: [usize; 2],
) -> Result<(PairSamples, bool), KernelError> {
    let mut blocks = false;
    let samples = procs.run(kernel, |rctx, ep| {
        blocks = ep.blocks();
        let mut samples = match pair.iter().position(|&r| r == rctx.rank) {
            Some(me) => {
                let pctx = RankCtx {
                    rank: me,
                    size: 2,
                    cpu: rctx.cpu,
                    control: rctx.control,
                };
                let mut pe = PairOf {
                    ep: &mut *ep,
                    pair,
                    me,
                    pending: PendingRequests::new(2),
                };
                pair_body(&pctx, &mut pe, &RawMpi, plan)?
            }
            None => PairSamples::default(),
        };
        if pair[0] != 0 {
            forward_to_rank0(rctx.rank, pair[0], ep, &mut samples, plan)?;
        }
        Ok(samples)
    })?;
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    Ok((samples, blocks))
}

/// Moves the samples of a pair's first rank `timer` to rank 0: every size's
/// trials as little-endian `f64`s, then the probes, one message each.
fn forward_to_rank0(
    rank: usize,
    timer: usize,
    ep: &mut MpiEndpoint,
    samples: &mut PairSamples,
    plan: &PairPlan<'_>,
) -> Result<(), RankError> {
    if rank == timer {
        let send = |ep: &mut MpiEndpoint, v: &[f64]| {
            let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            ep.send(0, &bytes)
        };
        for s in &samples.sizes {
            send(ep, &s.samples_ns)?;
        }
        send(ep, &samples.probes_ns)?;
    } else if rank == 0 {
        let mut buf = vec![0u8; 8 * plan.sweep.trials.max(1)];
        let mut recv = |ep: &mut MpiEndpoint| -> Result<Vec<f64>, RankError> {
            let n = ep.recv(timer, &mut buf)?;
            Ok(buf[..n]
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect())
        };
        let mut sizes = Vec::with_capacity(plan.sweep.points.len());
        for &size in plan.sweep.points {
            sizes.push(SizeSamples {
                size,
                reps: 0,
                samples_ns: recv(ep)?,
                single_round_trip_ns: None,
            });
        }
        samples.probes_ns = recv(ep)?;
        samples.sizes = sizes;
    }
    Ok(())
}

/// The plan of a sweep of `sizes` with `pattern` over MPI.
fn plan<'a>(
    ctx: &'a RunContext<'_>,
    pattern: Pattern,
    sizes: &'a [usize],
    single_round_trips: u64,
    on_size: &'a (dyn Fn(usize) + Sync),
    cancelled: &'a (dyn Fn() -> bool + Sync),
) -> PairPlan<'a> {
    PairPlan {
        sweep: SweepPlan::new(ctx, sizes, on_size, cancelled),
        pattern,
        single_round_trips,
    }
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
    let on_size = |size: usize| ctx.progress.step(&format!("{TRANSPORT} {size} B"));
    let cancelled = || ctx.cancelled();
    let singles = ctx.config.effort().single_round_trips;
    let sweep = plan(ctx, pattern, &sizes, singles, &on_size, &cancelled);
    let (samples, blocks) = measure(ctx, procs, kernel, &sweep, [0, 1])?;
    // The paired baseline needs 8-byte batches beside the probe's; a sweep
    // without 8 bytes times them in a sweep of their own.
    let paired = match pattern {
        Pattern::PingPong if with_8 => Some(samples.clone()),
        Pattern::PingPong => {
            let eight = plan(ctx, pattern, &[8], singles, &on_size, &cancelled);
            Some(measure(ctx, procs, kernel, &eight, [0, 1])?.0)
        }
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
    let base = baseline(kernel, &layout, &cpus, &paired, blocks);
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
/// smallest and largest of the ratios; and how the transport waited
/// (`blocking_waits`: 1 for `MPI_Send`/`MPI_Recv` under the watchdog, 0 for
/// `MPI_Test` polled).
fn baseline(
    kernel: &str,
    layout: &PairLayout,
    cpus: &[usize],
    paired: &PairSamples,
    blocks: bool,
) -> KernelResult {
    let raw_one_way = convert::one_way_samples(&paired.probes_ns);
    let mut point = Point::new()
        .with("size_bytes", 8.0)
        .with("blocking_waits", f64::from(u8::from(blocks)));
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

/// `c2c` over MPI: the 8-byte ping-pong between every pair of ranks in turn,
/// each pair's samples at rank 0, the pairs grouped by distance class (other
/// process on the node, other node).
pub(crate) fn c2c(
    ctx: &RunContext<'_>,
    procs: &Processes,
) -> Result<Vec<KernelResult>, KernelError> {
    let kernel = super::C2C;
    let n = procs.size();
    let pairs: Vec<[usize; 2]> = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| [a, b]))
        .collect();
    ctx.progress.begin(kernel, pairs.len() as u64);
    let cancelled = || ctx.cancelled();
    let cpus = procs.cpus();
    let mut points = Vec::with_capacity(pairs.len());
    let mut classes = Vec::with_capacity(pairs.len());
    let mut warnings = Vec::new();
    for &[a, b] in &pairs {
        let sweep = plan(ctx, Pattern::PingPong, &[8], 1_000, &|_| {}, &cancelled);
        let (samples, _) = measure(ctx, procs, kernel, &sweep, [a, b])?;
        ctx.progress.step(&format!("ranks {a}-{b}"));
        let Some(eight) = samples.sizes.first() else {
            continue; // not rank 0
        };
        let (summary, warning) = summarize_trials(&eight.samples_ns, &format!("ranks {a}-{b}"));
        warnings.extend(warning);
        let class = procs.distance(a, b);
        let index = DistanceClass::ALL.iter().position(|c| *c == class);
        points.push(
            Point::new()
                .with("rank_a", a as f64)
                .with("rank_b", b as f64)
                .with("cpu_a", cpus[a] as f64)
                .with("cpu_b", cpus[b] as f64)
                .with("distance_class_index", index.map_or(-1.0, |i| i as f64))
                .with("size_bytes", 8.0)
                .with_stats("one_way_ns", summary),
        );
        classes.push(Some(class));
    }
    ctx.progress.end();
    if procs.rank() != 0 {
        return Ok(Vec::new());
    }
    let headline = class_headline(&points, &classes);
    Ok(vec![
        KernelResult::new(kernel, "scibench", procs.placement(), cpus)
            .with_transport(Some(TRANSPORT))
            .with_ranks(n)
            .with_points(points)
            .with_warnings(warnings)
            .with_headline(headline),
    ])
}
