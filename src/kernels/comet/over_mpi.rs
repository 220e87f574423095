//! CoMet's collective kernels between MPI processes (`--transport mpi`, built
//! with `--features mpi`): the same command-driven sweep ([`drive`](super::common::drive),
//! generic over the endpoint) on every rank of the world, so P is the number of
//! processes; beside each hand-written algorithm, MPI's own collective as a
//! variant (`-mpi`: `MPI_Bcast`, `MPI_Allreduce`, `MPI_Barrier`), so that a
//! user sees whether the library's collectives beat the linear and tree ones.
//! Every variant is checked against the same expected values before and after
//! timing, so the hand-written collectives and MPI's agree on what they compute.
//!
//! A blocking MPI collective cannot keep a deadline; its batches start with
//! an untimed [`MpiEndpoint::meet`] under the deadline, after which every rank
//! is inside the batch.

use super::broadcast::add_fits;
use super::common::{self, Samples, Sweep};
use crate::control::RankError;
use crate::kernels::{KernelError, RunContext};
use crate::results::{KernelResult, Point};
use crate::team::RankCtx;
use crate::team::mpi::Processes;
use crate::transport::mpi::MpiEndpoint;

/// The transport name the results carry.
const TRANSPORT: &str = "mpi";

/// A collective kernel over MPI: per variant, named in `variants` (its
/// result's name), one command-driven sweep over `params` on every rank, with
/// sends buffered for messages of up to `max_bytes` (as the thread transports
/// are for CoMet's kernels); `body(i, ...)` is every rank's part of variant
/// `i`. Rank 0 returns a result per variant: a point per sample with the
/// statistics of `quantity` (`describe` adds the point's parameter, its label
/// and size in bytes) and the line in size over the minima; the others
/// nothing.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_variants(
    ctx: &RunContext<'_>,
    procs: &Processes,
    kernel: &str,
    variants: &[&str],
    params: &[u64],
    max_bytes: usize,
    quantity: &str,
    describe: impl Fn(Point, &Samples) -> (Point, String, usize),
    body: impl Fn(usize, &RankCtx<'_>, &mut MpiEndpoint, &Sweep<'_>) -> Result<Vec<Samples>, RankError>,
) -> Result<Vec<KernelResult>, KernelError> {
    let p = procs.size();
    ctx.progress
        .begin(kernel, (variants.len() * params.len()) as u64);
    let mut out = Vec::new();
    for (i, &name) in variants.iter().enumerate() {
        let on_point = |q: u64| ctx.progress.step(&format!("{name} P={p} {q}"));
        let cancelled = || ctx.cancelled();
        let sweep = Sweep::new(ctx, params, p, &on_point, &cancelled);
        let samples =
            procs.run_buffered(kernel, Some(max_bytes), |rc, ep| body(i, rc, ep, &sweep))?;
        common::interrupted(ctx)?;
        if procs.rank() == 0 {
            out.push(collective_result(
                procs, name, quantity, &samples, &describe,
            ));
        }
    }
    ctx.progress.end();
    Ok(out)
}

/// The untimed start of a batch of MPI's own collective (`mpi`): every rank
/// meets under the deadline; nothing for a hand-written one.
pub(super) fn meet_if(ep: &mut MpiEndpoint, mpi: bool) -> Result<(), RankError> {
    if mpi { ep.meet() } else { Ok(()) }
}

fn collective_result(
    procs: &Processes,
    name: &str,
    quantity: &str,
    samples: &[Samples],
    describe: impl Fn(Point, &Samples) -> (Point, String, usize),
) -> KernelResult {
    let p = procs.size();
    let mut r = KernelResult::new(name, "comet", procs.placement(), procs.cpus())
        .with_transport(Some(TRANSPORT))
        .with_ranks(p);
    let mut mins = Vec::with_capacity(samples.len());
    for s in samples {
        let (point, label, size) = describe(common::processors_point(p, p), s);
        let (point, min) = common::stats_point(
            point.with("reps", s.reps as f64),
            quantity,
            &s.samples_ns,
            &format!("P = {p}, {label}"),
            &mut r.warnings,
        );
        r.points.push(point);
        mins.push((p, size, min));
    }
    add_fits(&mut r, &mins, &format!("{quantity}.min"));
    r
}
