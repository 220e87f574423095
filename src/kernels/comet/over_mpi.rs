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

use super::broadcast::{add_fits, push_points};
use super::common::{self, Samples, Sweep};
use super::contention::Stop;
use crate::control::RankError;
use crate::kernels::{KernelError, RunContext};
use crate::results::{KernelResult, Point};
use crate::team::RankCtx;
use crate::team::mpi::Processes;
use crate::transport::Endpoint;
use crate::transport::mpi::MpiEndpoint;

/// The transport name the results carry.
const TRANSPORT: &str = "mpi";

/// One kernel over MPI: the progress bar counts `points`, `body` measures and
/// returns its results (rank 0's; the other ranks return none), and an
/// interrupted run ends in `KernelError::Interrupted`, as between threads.
pub(super) fn run_kernel(
    ctx: &RunContext<'_>,
    kernel: &str,
    points: usize,
    body: impl FnOnce() -> Result<Vec<KernelResult>, KernelError>,
) -> Result<Vec<KernelResult>, KernelError> {
    ctx.progress.begin(kernel, points as u64);
    let out = body()?;
    ctx.progress.end();
    common::interrupted(ctx)?;
    Ok(out)
}

/// One command-driven sweep of a CoMet kernel over MPI, what
/// [`sweep_team`](common::sweep_team) is between threads: the points `params`
/// on ranks `0..ranks` of the world (the others only join the start gate and
/// the endpoint), each named in the progress line by `label`; sends buffered
/// for messages of up to `buffer` bytes where two ranks send to each other at
/// once (`None`: a send returns when MPI is done with it, as a C program's
/// `MPI_Send`); `body` is every rank's part (its [`drive`](common::drive)).
/// Rank 0 returns its samples, the others none.
#[allow(clippy::too_many_arguments)]
pub(super) fn sweep(
    ctx: &RunContext<'_>,
    procs: &Processes,
    kernel: &str,
    params: &[u64],
    ranks: usize,
    buffer: Option<usize>,
    label: impl Fn(u64) -> String + Sync,
    body: impl FnOnce(&RankCtx<'_>, &mut MpiEndpoint, &Sweep<'_>) -> Result<Vec<Samples>, RankError>,
) -> Result<Vec<Samples>, KernelError> {
    let on_point = |q: u64| ctx.progress.step(&label(q));
    let cancelled = || ctx.cancelled();
    let sweep = Sweep::new(ctx, params, ranks, &on_point, &cancelled);
    let samples = procs.run_buffered(kernel, buffer, |rc, ep| body(rc, ep, &sweep))?;
    common::interrupted(ctx)?;
    Ok(samples)
}

/// A CoMet result over MPI: transport `mpi`, the team's placement, `cpus`,
/// and the world's size as its ranks (the processes outside a pair wait at
/// the start gates, as for `pingpong` over MPI).
pub(super) fn result(procs: &Processes, name: &str, cpus: Vec<usize>) -> KernelResult {
    KernelResult::new(name, "comet", procs.placement(), cpus)
        .with_transport(Some(TRANSPORT))
        .with_ranks(procs.size())
}

/// The result of a kernel between ranks 0 and 1: their CPUs and the distance
/// class of the pair (`other_process` on one node, `other_node` across).
pub(super) fn pair_result(procs: &Processes, name: &str) -> KernelResult {
    result(procs, name, procs.cpus()[..2].to_vec()).with_distance_class(Some(procs.distance(0, 1)))
}

/// A kernel between ranks 0 and 1 over MPI (the other ranks idle): one
/// [`sweep`] over `params` on the pair, and on rank 0 one result, `finish`ed
/// from [`pair_result`] and the samples.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_pair(
    ctx: &RunContext<'_>,
    procs: &Processes,
    kernel: &str,
    params: &[u64],
    buffer: Option<usize>,
    label: impl Fn(u64) -> String + Sync,
    body: impl FnOnce(&RankCtx<'_>, &mut MpiEndpoint, &Sweep<'_>) -> Result<Vec<Samples>, RankError>,
    finish: impl FnOnce(KernelResult, &[Samples]) -> KernelResult,
) -> Result<Vec<KernelResult>, KernelError> {
    run_kernel(ctx, kernel, params.len(), || {
        let samples = sweep(ctx, procs, kernel, params, 2, buffer, label, body)?;
        Ok(match procs.rank() {
            0 => vec![finish(pair_result(procs, kernel), &samples)],
            _ => Vec::new(),
        })
    })
}

/// `value` as rank 0 has it, on rank 0 and the ranks `to` (sent under the
/// deadline, before the timing): what a rank outside the timed pair needs
/// of what rank 0 measured, such as the contention kernel's load size.
pub(super) fn from_rank0(ep: &mut MpiEndpoint, value: u64, to: &[usize]) -> Result<u64, RankError> {
    if ep.rank() == 0 {
        for &r in to {
            ep.send(r, &value.to_le_bytes())?;
        }
        return Ok(value);
    }
    if !to.contains(&ep.rank()) {
        return Ok(value);
    }
    let mut b = [0u8; 8];
    ep.recv(0, &mut b)?;
    Ok(u64::from_le_bytes(b))
}

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
    run_kernel(ctx, kernel, variants.len() * params.len(), || {
        let mut out = Vec::new();
        for (i, &name) in variants.iter().enumerate() {
            let samples = sweep(
                ctx,
                procs,
                kernel,
                params,
                p,
                Some(max_bytes),
                |q| format!("{name} P={p} {q}"),
                |rc, ep, s| body(i, rc, ep, s),
            )?;
            if procs.rank() == 0 {
                out.push(collective_result(
                    procs, name, quantity, &samples, &describe,
                ));
            }
        }
        Ok(out)
    })
}

/// Stops the contention kernel's load between processes: rank 0 sends rank 2
/// one word when its echo sweep is done; rank 2 probes for it between two
/// load messages (`MPI_Iprobe`, outside the echo's timing on ranks 0 and 1).
pub(super) struct ByMessage;

impl Stop<MpiEndpoint> for ByMessage {
    fn signal(&self, ep: &mut MpiEndpoint) -> Result<(), RankError> {
        ep.send(2, &[0u8; 8])
    }

    fn stopped(&self, ep: &mut MpiEndpoint) -> Result<bool, RankError> {
        if !ep.probe(0) {
            return Ok(false);
        }
        let mut word = [0u8; 8];
        ep.recv(0, &mut word)?;
        Ok(true)
    }
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
    let mut r = result(procs, name, procs.cpus());
    let mut mins = Vec::with_capacity(samples.len());
    push_points(&mut r, &mut mins, (p, p), samples, quantity, describe);
    add_fits(&mut r, &mins, &format!("{quantity}.min"));
    r
}
