//! A team method's batches: the gate through which the master starts a batch
//! on the workers, and the batch function that times it, for segments of a
//! grain, for the pair probe on the method's own threads ([`PROBE_GRAIN`]),
//! and for the rate probe with every processor computing at once
//! ([`RATE_GRAIN`]). A grain with the [`ASLEEP`] bit runs its segments in
//! the asleep regime, the others in the awake one ([`Regime`]).

use super::rate_probe::Serial;
use super::sync_plan::{ASLEEP, Method, SERIAL_ELEMENTS};
use super::sync_work::Work;
use crate::control::{RankError, TeamControl};
use crate::kernels::KernelError;
use crate::kernels::harness::flags::FlagPair;
use crate::kernels::harness::timing::Timer;
use crate::sync::Poll;
use crate::sync::team_method::{Regime, TeamMethod};
use crate::team::{RankCtx, Team};
use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// The command that starts a batch on the workers of a team method.
#[derive(Default)]
struct Gate {
    generation: CachePadded<AtomicU64>,
    grain: AtomicUsize,
    reps: AtomicU64,
    stop: AtomicBool,
    ready: CachePadded<AtomicUsize>,
    done: CachePadded<AtomicUsize>,
}

impl Gate {
    /// The master's command: `reps` of `grain` to the workers, returned once
    /// every worker has taken it (their set-up done); the command's number.
    fn issue(
        &self,
        c: &TeamControl,
        poll: Poll,
        workers: usize,
        grain: usize,
        reps: u64,
    ) -> Result<usize, RankError> {
        // Relaxed: published by the Release bump of the generation.
        self.grain.store(grain, Ordering::Relaxed);
        self.reps.store(reps, Ordering::Relaxed);
        // Release: publishes the command (and the master's prefilled vector).
        let g = self.generation.fetch_add(1, Ordering::Release) as usize + 1;
        // Acquire: pairs with the workers' Release (their set-up is done).
        poll.until(c, 1, || self.ready.load(Ordering::Acquire) >= g * workers)?;
        Ok(g)
    }

    /// Waits until every worker has done command `g`.
    fn await_done(
        &self,
        c: &TeamControl,
        poll: Poll,
        workers: usize,
        g: usize,
    ) -> Result<(), RankError> {
        // Acquire: pairs with the workers' Release; their results are visible.
        poll.until(c, 1, || self.done.load(Ordering::Acquire) >= g * workers)
    }
}

/// A batch: `(grain, reps) -> time of the reps segments`.
pub type Batch<'a> = dyn FnMut(usize, u64) -> Result<Duration, RankError> + 'a;

/// The grain that asks a team method's batch for the probe instead of
/// segments: `reps` round trips of the two-flag ping-pong between ranks 0 and
/// 1 of the method's own team ([`crate::kernels::harness::probe`]), on the same
/// threads and CPUs as the segments, while the other ranks wait at the gate.
/// Only team methods on CPUs of their own take it ([`Method::probes_in_team`]);
/// the master's side is in `drive_team`'s batch.
pub(crate) const PROBE_GRAIN: usize = usize::MAX;

/// The grain that asks a team method's batch for the rate probe: every
/// processor of the team runs `reps` passes of the serial dyadic multiply on
/// vectors of its own ([`Serial`], [`SERIAL_ELEMENTS`] elements) at once, and
/// the master times its own passes and the wait for the last of the others.
/// So the rate is one processor's while all of them compute, as in a
/// segment: where the host placed two vCPUs on one core's two hardware
/// threads, a processor alone computed at 4.4 flop/ns and a segment's
/// `r_inf` at P = 2 fell to 4.1 to 4.2 Gflop/s (a 2-vCPU EPYC VM, its round
/// trip 54 ns against 100 in its other states), which a master computing
/// alone does not see. The TASKS take the same grain in their own batch
/// (`tasks_rate_probe` in `rate_probe.rs`).
pub(crate) const RATE_GRAIN: usize = usize::MAX - 1;

/// The regime of a batch's grain and the grain itself (see [`ASLEEP`]).
#[inline]
pub(crate) fn regime_of(grain: usize) -> (Regime, usize) {
    match grain & ASLEEP {
        0 => (Regime::Awake, grain),
        _ => (Regime::Asleep, grain & !ASLEEP),
    }
}

/// Runs `driver` on the master with a batch function of a team method `m`.
pub(super) fn drive_team<M: TeamMethod, R: Send>(
    team: &Team,
    m: &M,
    work: &Work<'_>,
    method: Method,
    driver: &(dyn Fn(&mut Batch<'_>) -> Result<R, RankError> + Sync),
) -> Result<R, KernelError> {
    let gate = Gate::default();
    let flags = FlagPair::default();
    let workers = team.size() - 1;
    let mut out = team.run(
        method.name(),
        vec![(); team.size()],
        |ctx: &RankCtx<'_>, _| {
            let c = ctx.control;
            let poll = Poll::for_rank(c, ctx.rank);
            m.setup(ctx.rank);
            let mut local = M::Local::default();
            let mut serial = Serial::new(SERIAL_ELEMENTS);
            // One untimed pass: the vectors' pages are touched before any
            // rate probe's clock.
            serial.batch(1);
            // Round trips done on the probe's flags; both ranks count alike.
            let mut probed = 0u64;
            if ctx.rank == 0 {
                let mut batch = |grain: usize, reps: u64| -> Result<Duration, RankError> {
                    if grain == PROBE_GRAIN {
                        let g = gate.issue(c, poll, workers, grain, reps)?;
                        let took = flags.round_trips(ctx, probed, reps)?;
                        probed += reps;
                        gate.await_done(c, poll, workers, g)?;
                        return Ok(took);
                    }
                    if grain == RATE_GRAIN {
                        let g = gate.issue(c, poll, workers, grain, reps)?;
                        let start = Timer::start();
                        serial.batch(reps);
                        gate.await_done(c, poll, workers, g)?;
                        return Ok(start.elapsed());
                    }
                    let (regime, grain_flop) = regime_of(grain);
                    work.prefill(grain_flop);
                    let g = gate.issue(c, poll, workers, grain, reps)?;
                    let start = Timer::start();
                    for _ in 0..reps {
                        m.master_begin(&mut local, c, regime)?;
                        work.share(grain_flop, 0);
                        m.master_end(&mut local, c, regime)?;
                    }
                    let took = start.elapsed();
                    gate.await_done(c, poll, workers, g)?;
                    work.verify(grain_flop, method)?;
                    Ok(took)
                };
                let r = driver(&mut batch);
                // Relaxed: published by the Release bump.
                gate.stop.store(true, Ordering::Relaxed);
                gate.generation.fetch_add(1, Ordering::Release);
                return r.map(Some);
            }
            let mut seen = 0u64;
            loop {
                // Acquire: pairs with the master's Release bump.
                poll.until(c, 0, || gate.generation.load(Ordering::Acquire) > seen)?;
                seen += 1;
                if gate.stop.load(Ordering::Relaxed) {
                    return Ok(None);
                }
                let grain = gate.grain.load(Ordering::Relaxed);
                let reps = gate.reps.load(Ordering::Relaxed);
                // Release: the worker's set-up happens before the master's timing.
                gate.ready.fetch_add(1, Ordering::Release);
                if grain == PROBE_GRAIN {
                    if ctx.rank == 1 {
                        flags.round_trips(ctx, probed, reps)?;
                        probed += reps;
                    }
                    // Release: as below (nothing to publish but the count).
                    gate.done.fetch_add(1, Ordering::Release);
                    continue;
                }
                if grain == RATE_GRAIN {
                    serial.batch(reps);
                    // Release: as above.
                    gate.done.fetch_add(1, Ordering::Release);
                    continue;
                }
                let (regime, grain) = regime_of(grain);
                for _ in 0..reps {
                    m.worker_begin(&mut local, ctx.rank, c, regime)?;
                    work.share(grain, ctx.rank);
                    m.worker_end(&mut local, ctx.rank, c, regime)?;
                }
                // Release: publishes this worker's part of the results.
                gate.done.fetch_add(1, Ordering::Release);
            }
        },
    )?;
    Ok(out
        .swap_remove(0)
        .expect("rank 0 returns the driver's result"))
}
