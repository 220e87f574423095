//! A synchronisation method instantiated for hockney-sync: the segment's
//! vectors, the team or pool and the method's own state, live while a driver
//! times batches of segments through it.

use super::rate_probe::tasks_rate_probe;
use super::sync_plan::{Method, NAME, SyncPlan};
use super::sync_work::{Work, with_work};
use super::team_batch::{Batch, RATE_GRAIN, drive_team, regime_of};
use crate::control::{Placement, RankError};
use crate::kernels::KernelError;
use crate::kernels::harness::timing::Timer;
use crate::sync::Poll;
use crate::sync::barrier::SpinBarrier;
use crate::sync::events::{Event, ParkEvent};
use crate::sync::spin::SpinFlag;
use crate::sync::tasks::{Pool, spawn_join};
use crate::sync::team_method::{
    ASLEEP_HOLD, Events, Locks, Regime, Spin, SpinBarrierMethod, StdBarrier, TeamMethod,
};
use crate::team::{Team, TeamSpec};
use crossbeam_utils::CachePadded;
use std::time::Duration;

/// Runs `driver` with the batch function of `method` on `plan`'s CPUs: the
/// vectors, the team or pool, and the method's state live for the call.
pub(crate) fn with_method<R: Send>(
    method: Method,
    plan: &SyncPlan,
    driver: &(dyn Fn(&mut Batch<'_>) -> Result<R, RankError> + Sync),
) -> Result<(R, Placement), KernelError> {
    with_work(plan, |work| with_work_method(method, plan, work, driver))
}

fn with_work_method<R: Send>(
    method: Method,
    plan: &SyncPlan,
    work: &Work<'_>,
    driver: &(dyn Fn(&mut Batch<'_>) -> Result<R, RankError> + Sync),
) -> Result<(R, Placement), KernelError> {
    let shared = plan.shared_cpus();
    let spin_poll = |hint: bool| match (shared, hint) {
        (true, _) => Poll::Yield,
        (false, true) => Poll::Hint,
        (false, false) => Poll::Bare,
    };
    let spec = |ranks: usize| TeamSpec {
        cpus: plan.cpus.clone(),
        ranks,
        virtual_ok: false,
        oversubscribe: plan.oversubscribe,
        wait_timeout: plan.wait_timeout,
    };
    let workers = plan.parts - 1;
    let result = match method {
        Method::TasksSpawn | Method::TasksPool => {
            return with_tasks(method, plan, work, &spec, driver);
        }
        Method::Locks => {
            let m = Locks::new(workers, spin_poll(false));
            on_team(&spec(plan.parts), &m, work, method, driver)?
        }
        Method::EventsCondvar => {
            let m = Events::<Event>::new(workers, spin_poll(false));
            on_team(&spec(plan.parts), &m, work, method, driver)?
        }
        Method::EventsPark => {
            let m = Events::<ParkEvent>::new(workers, spin_poll(false));
            on_team(&spec(plan.parts), &m, work, method, driver)?
        }
        Method::SpinHint | Method::SpinBare => {
            let m = Spin {
                flags: (0..workers).map(|_| SpinFlag::new()).collect(),
                poll: spin_poll(method == Method::SpinHint),
            };
            on_team(&spec(plan.parts), &m, work, method, driver)?
        }
        Method::BarrierStd => {
            let m = StdBarrier::new(plan.parts, spin_poll(false));
            on_team(&spec(plan.parts), &m, work, method, driver)?
        }
        Method::BarrierSpin => {
            let m = SpinBarrierMethod {
                barrier: SpinBarrier::new(plan.parts),
                // Bare: a waiter with the hint sees its partner's flag up to
                // a pause late, and how late holds for seconds (module doc).
                poll: spin_poll(false),
            };
            on_team(&spec(plan.parts), &m, work, method, driver)?
        }
        Method::MpiBarrier
        | Method::MpiAllreduce
        | Method::MpiDissemination
        | Method::MpiLinear => {
            return Err(KernelError::NotRunnable {
                kernel: NAME.into(),
                reason: format!(
                    "{} synchronises MPI processes: run it with --transport mpi",
                    method.name()
                ),
            });
        }
    };
    Ok(result)
}

/// The TASKS methods: rank 0 alone on the plan's first CPU forks the work
/// to tasks (a pool of pinned workers, or threads spawned a segment), on
/// the placement a team of the plan's parts would have.
fn with_tasks<R: Send>(
    method: Method,
    plan: &SyncPlan,
    work: &Work<'_>,
    spec: &dyn Fn(usize) -> TeamSpec,
    driver: &(dyn Fn(&mut Batch<'_>) -> Result<R, RankError> + Sync),
) -> Result<(R, Placement), KernelError> {
    let shared = plan.shared_cpus();
    let team = Team::new(&TeamSpec {
        cpus: vec![plan.cpus[0]],
        ..spec(1)
    })?;
    let placement = Team::new(&spec(plan.parts))?.placement();
    let worker_cpus: Vec<usize> = (1..plan.parts)
        .map(|p| plan.cpus[p % plan.cpus.len()])
        .collect();
    let mut out = team.run(method.name(), vec![()], |_, _| {
        let pool = match method {
            Method::TasksPool => Some(
                Pool::new(&worker_cpus, if shared { 0 } else { 4096 })
                    .map_err(|e| RankError::Failed(e.to_string()))?,
            ),
            _ => None,
        };
        let mut batch = |grain: usize, reps: u64| -> Result<Duration, RankError> {
            if grain == RATE_GRAIN {
                return tasks_rate_probe(pool.as_ref(), plan, reps);
            }
            let (regime, grain) = regime_of(grain);
            work.prefill(grain);
            // The job the tasks read, on lines of its own: beside the
            // master's locals, some builds paid a line transfer more.
            let w = work;
            let share = CachePadded::new(move |p: usize| w.share(grain, p));
            let fork = |pool: &Pool| {
                pool.fork_join(&*share)
                    .map_err(|e| RankError::Failed(e.to_string()))
            };
            let start = Timer::start();
            let took = match (&pool, regime) {
                (Some(pool), Regime::Awake) => {
                    for _ in 0..reps {
                        fork(pool)?;
                    }
                    start.elapsed()
                }
                // Each fork timed alone, after an untimed hold until
                // every worker has parked (`Pool::hold_until_asleep`).
                (Some(pool), Regime::Asleep) => {
                    let mut took = Duration::ZERO;
                    for _ in 0..reps {
                        if !pool.hold_until_asleep(ASLEEP_HOLD, plan.wait_timeout) {
                            return Err(RankError::Failed(format!(
                                "{}: the pool's workers did not park within {:?}",
                                method.name(),
                                plan.wait_timeout
                            )));
                        }
                        let start = Timer::start();
                        fork(pool)?;
                        took += start.elapsed();
                    }
                    took
                }
                (None, _) => {
                    for _ in 0..reps {
                        spawn_join(&plan.cpus, plan.parts, &*share);
                    }
                    start.elapsed()
                }
            };
            work.verify(grain, method)?;
            Ok(took)
        };
        driver(&mut batch)
    })?;
    Ok((out.swap_remove(0), placement))
}

/// `m` on a team of `spec`: the driver's result and the team's placement.
fn on_team<M: TeamMethod, R: Send>(
    spec: &TeamSpec,
    m: &M,
    work: &Work<'_>,
    method: Method,
    driver: &(dyn Fn(&mut Batch<'_>) -> Result<R, RankError> + Sync),
) -> Result<(R, Placement), KernelError> {
    let team = Team::new(spec)?;
    Ok((
        drive_team(&team, m, work, method, driver)?,
        team.placement(),
    ))
}
