//! `hockney-sync` between MPI processes (`--transport mpi`, built with
//! `--features mpi`): Hockney's `t = t_0 + s / r_inf` for a dyadic segment
//! split over the job's P processes, one row per synchronisation method of
//! [`Method::OVER_MPI`]: `MPI_Barrier`, `MPI_Allreduce` of one word, the
//! dissemination barrier on point-to-point messages, and the master's
//! start and done messages to and from every worker (Hockney's fork/join).
//! So a cross-node prediction has a barrier's cost to start from.
//!
//! The sweep, its calibration, rounds, probes and fit are the threads'
//! ([`super::sync_sweep::sweep_methods`], `method_result`): only the
//! instantiation differs ([`Processes`] implements
//! [`Instances`]). Rank 0, the master, drives; before every batch it sends
//! each other rank a command (method, grain, segments), untimed, and all
//! meet under the deadline (`MPI_Ibarrier`: a blocking collective cannot
//! keep one), then rank 0 times the batch. Every process has vectors of its
//! own and computes its share of each segment in them (`Work::share`, the
//! same split as between threads); after the batch every worker checks its
//! part and sends rank 0 one status byte, so a method that lets a process
//! skip its work fails the kernel instead of posting a low time.
//!
//! The probes: the pair probe is the plain `MPI_Send`/`MPI_Recv` round trip
//! between ranks 0 and 1 ([`MpiEndpoint::raw_round_trips`]) at the start of
//! every round, the rate probe every process's serial batch at once, timed
//! to the last status byte. With more processes than CPUs, the rate probe is
//! rank 0's alone and there is no pair probe (as for threads).
//!
//! The results carry the method's name as their transport (`mpi-barrier`,
//! ...), the world's size as their ranks and the distance class of ranks 0
//! and 1; the other ranks return none.

use super::rate_probe::Serial;
use super::sync_plan::{Method, NAME, SERIAL_ELEMENTS, SyncPlan, run_plan};
use super::sync_result::method_result;
use super::sync_sweep::{Instances, sweep_methods};
use super::sync_work::{Work, with_work};
use super::team_batch::{Batch, PROBE_GRAIN, RATE_GRAIN};
use crate::control::{Placement, RankError};
use crate::kernels::harness::calls::dissemination;
use crate::kernels::harness::timing::Timer;
use crate::kernels::{KernelError, RunContext};
use crate::results::KernelResult;
use crate::team::mpi::Processes;
use crate::transport::Endpoint;
use crate::transport::mpi::MpiEndpoint;
use std::time::Duration;

/// A command from rank 0: a batch of `reps` of `grain` with `method`, or,
/// with `reps` 0, the end of the instantiation (`grain` 1: of the kernel).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Command {
    method: usize,
    grain: u64,
    reps: u64,
}

impl Command {
    const END: Command = Command {
        method: 0,
        grain: 0,
        reps: 0,
    };
    const FINISH: Command = Command {
        method: 0,
        grain: 1,
        reps: 0,
    };

    fn bytes(self) -> [u8; 24] {
        let mut b = [0u8; 24];
        b[..8].copy_from_slice(&(self.method as u64).to_le_bytes());
        b[8..16].copy_from_slice(&self.grain.to_le_bytes());
        b[16..].copy_from_slice(&self.reps.to_le_bytes());
        b
    }

    fn from_bytes(b: &[u8; 24]) -> Command {
        let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        Command {
            method: word(0) as usize,
            grain: word(8),
            reps: word(16),
        }
    }

    /// To every other rank, under the deadline.
    fn send(self, ep: &mut MpiEndpoint) -> Result<(), RankError> {
        let b = self.bytes();
        (1..ep.size()).try_for_each(|r| ep.send(r, &b))
    }
}

/// One segment of `grain` flop with `method`, on every rank.
#[inline]
fn segment(
    method: Method,
    ep: &mut MpiEndpoint,
    work: &Work<'_>,
    grain: usize,
) -> Result<(), RankError> {
    let (rank, p) = (ep.rank(), ep.size());
    let mut word = [0u8; 8];
    match method {
        Method::MpiLinear if rank == 0 => {
            (1..p).try_for_each(|r| ep.send(r, &word))?;
            work.share(grain, 0);
            for r in 1..p {
                ep.recv(r, &mut word)?;
            }
        }
        Method::MpiLinear => {
            ep.recv(0, &mut word)?;
            work.share(grain, rank);
            ep.send(0, &word)?;
        }
        Method::MpiBarrier => {
            work.share(grain, rank);
            ep.barrier();
        }
        Method::MpiAllreduce => {
            work.share(grain, rank);
            let mut sum = [0.0];
            ep.allreduce_sum(&[1.0], &mut sum);
            if sum[0] != p as f64 {
                return Err(RankError::Failed(format!(
                    "MPI_Allreduce summed {} over {p} processes",
                    sum[0]
                )));
            }
        }
        Method::MpiDissemination => {
            work.share(grain, rank);
            dissemination(ep)?;
        }
        other => {
            return Err(RankError::Failed(format!(
                "{} does not synchronise MPI processes",
                other.name()
            )));
        }
    }
    Ok(())
}

/// One batch on any rank: `reps` segments (or the probes' grains), after
/// the untimed meeting; rank 0's time (the workers' is not used).
fn batch_body(
    method: Method,
    ep: &mut MpiEndpoint,
    work: &Work<'_>,
    serial: &mut Serial,
    grain: usize,
    reps: u64,
) -> Result<Duration, RankError> {
    let rank = ep.rank();
    if grain != PROBE_GRAIN && grain != RATE_GRAIN {
        work.prefill(grain);
    }
    ep.meet()?;
    let start = Timer::start();
    match grain {
        PROBE_GRAIN if rank < 2 => {
            return ep.raw_round_trips(1 - rank, rank == 0, reps);
        }
        PROBE_GRAIN => {}
        RATE_GRAIN => {
            serial.batch(reps);
        }
        _ => (0..reps).try_for_each(|_| segment(method, ep, work, grain))?,
    }
    Ok(start.elapsed())
}

/// Every worker's status byte after a batch: an error naming the first
/// worker whose part failed its check.
fn statuses(ep: &mut MpiEndpoint, method: Method) -> Result<(), RankError> {
    for r in 1..ep.size() {
        let mut status = [0u8; 1];
        ep.recv(r, &mut status)?;
        if status[0] != 0 {
            return Err(RankError::Failed(format!(
                "verification failed for {} on rank {r}: its part of a segment was not computed",
                method.name()
            )));
        }
    }
    Ok(())
}

/// Rank 0's side of the instantiations: every [`Instances::with`] is one
/// run of the team, ended by `Command::END`.
impl Instances for Processes {
    fn with<R: Send>(
        &self,
        method: Method,
        plan: &SyncPlan,
        driver: &(dyn Fn(&mut Batch<'_>) -> Result<R, RankError> + Sync),
    ) -> Result<(R, Placement), KernelError> {
        let index = method_index(method);
        let out = self.run(NAME, |_, ep| {
            with_work(plan, |work| {
                let mut serial = Serial::new(SERIAL_ELEMENTS);
                serial.batch(1);
                let mut batch = |grain: usize, reps: u64| -> Result<Duration, RankError> {
                    let command = Command {
                        method: index,
                        grain: grain as u64,
                        reps,
                    };
                    command.send(ep)?;
                    let took = batch_body(method, ep, work, &mut serial, grain, reps)?;
                    // The rate probe is timed to the last processor's end.
                    let took = match grain {
                        RATE_GRAIN => {
                            let start = Timer::start();
                            statuses(ep, method)?;
                            took + start.elapsed()
                        }
                        _ => {
                            statuses(ep, method)?;
                            took
                        }
                    };
                    if grain != PROBE_GRAIN && grain != RATE_GRAIN {
                        work.verify_part(grain, 0, method)?;
                    }
                    Ok(took)
                };
                let out = driver(&mut batch)?;
                Command::END.send(ep)?;
                Ok(out)
            })
        })?;
        Ok((out, self.placement()))
    }
}

fn method_index(method: Method) -> usize {
    Method::OVER_MPI
        .iter()
        .position(|&m| m == method)
        .unwrap_or(0)
}

/// A worker's side: instantiation after instantiation, each running rank
/// 0's commands, until [`Command::FINISH`].
fn follow(procs: &Processes, plan: &SyncPlan) -> Result<(), KernelError> {
    loop {
        let finished = procs.run(NAME, |_, ep| {
            with_work(plan, |work| {
                let mut serial = Serial::new(SERIAL_ELEMENTS);
                serial.batch(1);
                loop {
                    let mut b = [0u8; 24];
                    ep.recv(0, &mut b)?;
                    let c = Command::from_bytes(&b);
                    if c.reps == 0 {
                        return Ok(c == Command::FINISH);
                    }
                    let method = Method::OVER_MPI[c.method % Method::OVER_MPI.len()];
                    let grain = c.grain as usize;
                    batch_body(method, ep, work, &mut serial, grain, c.reps)?;
                    let failed = grain != PROBE_GRAIN
                        && grain != RATE_GRAIN
                        && work.verify_part(grain, ep.rank(), method).is_err();
                    ep.send(0, &[u8::from(failed)])?;
                }
            })
        })?;
        if finished {
            return Ok(());
        }
    }
}

/// The vectors' length as rank 0 chose it, on every rank.
fn shared_max_grain(procs: &Processes, mine: usize) -> Result<usize, KernelError> {
    Ok(procs.run(NAME, |_, ep| {
        let mut b = (mine as u64).to_le_bytes();
        ep.bcast(&mut b);
        Ok(u64::from_le_bytes(b) as usize)
    })?)
}

/// The kernel over MPI: every method of [`Method::OVER_MPI`] swept on the
/// world's processes; rank 0 returns a result per method.
pub(super) fn run(
    ctx: &RunContext<'_>,
    procs: &Processes,
) -> Result<Vec<KernelResult>, KernelError> {
    let p = procs.size();
    let mut cpus = procs.cpus();
    if procs.placement() == Placement::Oversubscribed {
        // Processes share CPUs: the sweep's probes then run as on shared
        // CPUs between threads (the rate probe on rank 0 alone, no pair
        // probe), which a plan with fewer CPUs than processors says.
        cpus.truncate(procs.distinct_cpus().max(1));
    }
    let mut plan = run_plan(ctx, cpus.clone(), p);
    plan.max_grain = shared_max_grain(procs, plan.max_grain)?;
    if procs.rank() != 0 {
        follow(procs, &plan)?;
        return Ok(Vec::new());
    }
    let methods = Method::OVER_MPI;
    ctx.progress
        .begin(NAME, (methods.len() * (plan.trials + 1)) as u64);
    let cancelled = || ctx.cancelled();
    let step = |m: Method| ctx.progress.step(m.name());
    let sweeps = sweep_methods(procs, &methods, &plan, ctx.clock, &cancelled, &step);
    // The workers end whatever the sweep gave; an error ends the job anyway.
    procs.run(NAME, |_, ep| Command::FINISH.send(ep))?;
    let sweeps = sweeps?;
    ctx.progress.end();
    let mut results = Vec::with_capacity(sweeps.len());
    for sweep in &sweeps {
        let mut r = method_result(
            sweep,
            &plan,
            ctx.clock.read_overhead_ns,
            &sweep.pair_rounds,
            &[],
        );
        r.distance_class = Some(procs.distance(0, 1));
        r.warnings.push(format!(
            "over MPI: {p} processes on CPUs {:?} ({}), each with vectors of its own",
            procs.cpus(),
            procs.placement()
        ));
        results.push(r);
    }
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    Ok(results)
}
