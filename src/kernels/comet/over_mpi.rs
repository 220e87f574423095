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
use super::common::{self, RankBody, Samples, Sweep};
use super::contention::Stop;
use crate::control::RankError;
use crate::kernels::{KernelError, RunContext};
use crate::results::{KernelResult, Point};
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
/// [`sweep_team`](common::sweep_team) is between threads: `body` on every
/// rank of the world (the ranks outside its plan only join the start gate and
/// the endpoint), sends buffered for the plan's largest message where
/// `buffered` (two ranks send to each other at once), else returning when MPI
/// is done with them, as a C program's `MPI_Send`. Rank 0 returns its
/// samples, the others none.
pub(super) fn sweep<B: RankBody<MpiEndpoint> + ?Sized>(
    ctx: &RunContext<'_>,
    procs: &Processes,
    body: &B,
    buffered: bool,
) -> Result<Vec<Samples>, KernelError> {
    let plan = body.plan();
    let on_point = |q: u64| ctx.progress.step(&(plan.label)(q));
    let cancelled = || ctx.cancelled();
    let sweep = Sweep::new(ctx, &plan.params, plan.ranks, &on_point, &cancelled);
    let buffer = buffered.then_some(plan.max_bytes);
    let samples = procs.run_buffered(body.kernel(), buffer, |rc, ep| body.run(rc, ep, &sweep))?;
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
/// buffered [`sweep`] of `body`, and on rank 0 one result, `finish`ed from
/// [`pair_result`] and the samples.
pub(super) fn run_pair<B: RankBody<MpiEndpoint>>(
    ctx: &RunContext<'_>,
    procs: &Processes,
    body: &B,
    finish: impl FnOnce(KernelResult, &[Samples]) -> KernelResult,
) -> Result<Vec<KernelResult>, KernelError> {
    let kernel = body.kernel();
    run_kernel(ctx, kernel, body.plan().params.len(), || {
        let samples = sweep(ctx, procs, body, true)?;
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
/// result's name), one buffered [`sweep`] of its body in `bodies` on every
/// rank. Rank 0 returns a result per variant: a point per sample with the
/// statistics of `quantity` (`describe` adds the point's parameter, its label
/// and size in bytes) and the line in size over the minima; the others
/// nothing.
pub(super) fn run_variants(
    ctx: &RunContext<'_>,
    procs: &Processes,
    kernel: &str,
    variants: &[&str],
    bodies: &[&dyn RankBody<MpiEndpoint>],
    quantity: &str,
    describe: impl Fn(Point, &Samples) -> (Point, String, usize),
) -> Result<Vec<KernelResult>, KernelError> {
    let points: usize = bodies.iter().map(|b| b.plan().params.len()).sum();
    run_kernel(ctx, kernel, points, || {
        let mut out = Vec::new();
        for (&name, &body) in variants.iter().zip(bodies) {
            let samples = sweep(ctx, procs, body, true)?;
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

    fn load_bytes(&self, ep: &mut MpiEndpoint, load_bytes: usize) -> Result<usize, RankError> {
        Ok(from_rank0(ep, load_bytes as u64, &[2, 3])? as usize)
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
