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

use super::common::{
    self, Check, Plan, RankBody, RankSamples, Samples, Sweep, add_fits, push_points,
};
use crate::control::RankError;
use crate::kernels::{KernelError, RunContext};
use crate::results::{KernelResult, Point};
use crate::team::RankCtx;
use crate::team::mpi::Processes;
use crate::transport::Endpoint;
use crate::transport::mpi::MpiEndpoint;
use std::marker::PhantomData;

/// The transport name the results carry.
const TRANSPORT: &str = "mpi";

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
    crate::kernels::harness::transports::interrupted(ctx)?;
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
    common::with_progress(ctx, kernel, body.plan().params.len(), || {
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

/// A collective kernel over MPI: per variant in `variants` (its result's
/// name and its body), one buffered [`sweep`] of the body on every rank. Rank 0 returns a result per variant: a point per sample with the
/// statistics of `quantity` (`describe` adds the point's parameter, its label
/// and size in bytes) and the line in size over the minima; the others
/// nothing.
pub(super) fn run_variants(
    ctx: &RunContext<'_>,
    procs: &Processes,
    kernel: &str,
    variants: &[(&str, &dyn RankBody<MpiEndpoint>)],
    quantity: &str,
    describe: impl Fn(Point, &Samples) -> (Point, String, usize),
) -> Result<Vec<KernelResult>, KernelError> {
    let points: usize = variants.iter().map(|(_, b)| b.plan().params.len()).sum();
    common::with_progress(ctx, kernel, points, || {
        let mut out = Vec::new();
        for &(name, body) in variants {
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

/// A point's progress line of variant `name` on `p` processes.
pub(super) fn label(name: &'static str, p: usize) -> impl Fn(u64) -> String + Sync {
    move |q| format!("{name} P={p} {q}")
}

/// MPI's own collective beside a kernel's hand-written ones: a rank's
/// buffers, one repetition of the library's call, and the kernel's check of
/// a point (the buffers cleared, one call, what it computed verified), as
/// the hand-written algorithms are checked.
pub(super) trait MpiCollective {
    /// A rank's buffers.
    type State;
    /// Whether the state the timed repetitions left is verified too.
    const CHECK_AFTER: bool;
    /// Rank `rank`'s buffers for messages of up to `max_bytes`.
    fn state(rank: usize, max_bytes: usize) -> Self::State;
    /// One repetition of the library's collective at the point's parameter.
    fn call(ep: &mut MpiEndpoint, state: &mut Self::State, param: usize);
    /// Clears what the call computes on rank `rank`, before the checked call.
    fn clear(rank: usize, state: &mut Self::State);
    /// Verifies what the calls computed on rank `rank` of `ranks`.
    fn verify(
        rank: usize,
        state: &Self::State,
        param: usize,
        ranks: usize,
    ) -> Result<(), RankError>;
}

/// MPI's own collective `C` as a rank body over its plan: every batch starts
/// with an untimed meeting under the deadline, then one `C::call` a
/// repetition.
pub(super) struct MpiBody<'a, C>(Plan<'a>, PhantomData<fn() -> C>);

impl<'a, C> MpiBody<'a, C> {
    /// The body of `C` over `plan`.
    pub(super) fn new(plan: Plan<'a>) -> Self {
        MpiBody(plan, PhantomData)
    }
}

impl<C: MpiCollective> RankBody<MpiEndpoint> for MpiBody<'_, C> {
    fn plan(&self) -> &Plan<'_> {
        &self.0
    }

    fn run(&self, rc: &RankCtx<'_>, ep: &mut MpiEndpoint, sweep: &Sweep<'_>) -> RankSamples {
        let ranks = self.0.ranks;
        let calls = |ep: &mut MpiEndpoint,
                     s: &mut C::State,
                     param: u64,
                     reps: u64|
         -> Result<(), RankError> {
            for _ in 0..reps {
                C::call(ep, s, param as usize);
            }
            Ok(())
        };
        let mut state = C::state(rc.rank, self.0.max_bytes);
        common::drive_with_prologue(
            rc,
            ep,
            sweep,
            &mut state,
            |ep, s, param, check| {
                match check {
                    Check::Before => {
                        C::clear(ep.rank(), s);
                        ep.meet()?;
                        calls(ep, s, param, 1)?;
                    }
                    Check::After if !C::CHECK_AFTER => return Ok(()),
                    Check::After => {}
                }
                C::verify(ep.rank(), s, param as usize, ranks)
            },
            |ep, _, _| ep.meet(),
            calls,
        )
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
