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

/// One command-driven sweep over `params` on every rank, with sends buffered
/// for messages of up to `max_bytes` (as the thread transports are for CoMet's
/// kernels), each point named in the progress line by `label`, `body` every
/// rank's part; rank 0's samples.
pub(super) fn sweep(
    ctx: &RunContext<'_>,
    procs: &Processes,
    kernel: &str,
    params: &[u64],
    max_bytes: usize,
    label: impl Fn(u64) -> String + Sync,
    body: impl FnOnce(&RankCtx<'_>, &mut MpiEndpoint, &Sweep<'_>) -> Result<Vec<Samples>, RankError>,
) -> Result<Vec<Samples>, KernelError> {
    let on_point = |q: u64| ctx.progress.step(&label(q));
    let cancelled = || ctx.cancelled();
    let sweep = Sweep::new(ctx, params, procs.size(), &on_point, &cancelled);
    let samples = procs.run_buffered(kernel, Some(max_bytes), |rc, ep| body(rc, ep, &sweep))?;
    common::interrupted(ctx)?;
    Ok(samples)
}

/// The untimed start of a batch of an MPI collective: every rank meets under
/// the deadline.
pub(super) fn meet(ep: &mut MpiEndpoint) -> Result<(), RankError> {
    ep.meet()
}

/// The result of variant `name` at P = the world's size: a point per sample
/// with the statistics of `quantity` (`describe` adds the point's parameter,
/// its label and size in bytes), and the line in size over the minima.
pub(super) fn collective_result(
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
