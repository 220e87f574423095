//! One sweep's plan, as both command-driven sweeps carry it: CoMet's (rank 0
//! commands the other ranks point by point) and scibench's two-rank sweep of
//! message sizes. A plan names the points (in the kernel's encoding: a
//! message size, a processor count, an algorithm and a size packed in one
//! word), how many trials each gets (each trial a round over every point, so
//! that a change of the machine's state lands on every point alike), the
//! least length of a timed batch, the clock whose read overhead is taken off,
//! the fault a test injects, the hook rank 0 calls when a point's last trial
//! is done (the progress bar), and the user's cancel check, read between
//! batches and never inside a timed loop.

use crate::control::RankError;
use crate::kernels::{Fault, RunContext};
use crate::platform::ClockInfo;
use crate::team::RankCtx;
use std::time::Duration;

/// One sweep's points, trials, batch target, clock, injected fault,
/// progress hook and cancel check.
pub(crate) struct SweepPlan<'a, K> {
    /// The points, in the kernel's encoding.
    pub(crate) points: &'a [K],
    /// Trials per point: rounds over every point.
    pub(crate) trials: usize,
    /// Least duration of a timed batch.
    pub(crate) target: Duration,
    /// The clock (its read overhead is subtracted).
    pub(crate) clock: &'a ClockInfo,
    /// A fault to inject (tests only).
    pub(crate) fault: Option<Fault>,
    /// Called on rank 0 when a point's last trial is done.
    pub(crate) on_point: &'a (dyn Fn(K) + Sync),
    /// Whether the user interrupted the run.
    pub(crate) cancelled: &'a (dyn Fn() -> bool + Sync),
}

impl<'a, K> SweepPlan<'a, K> {
    /// A sweep over `points` with the run's trials, batch target, clock and
    /// fault.
    pub(crate) fn new(
        ctx: &'a RunContext<'_>,
        points: &'a [K],
        on_point: &'a (dyn Fn(K) + Sync),
        cancelled: &'a (dyn Fn() -> bool + Sync),
    ) -> SweepPlan<'a, K> {
        SweepPlan {
            points,
            trials: ctx.config.trials(),
            target: ctx.config.batch_target(ctx.clock),
            clock: ctx.clock,
            fault: ctx.config.fault,
            on_point,
            cancelled,
        }
    }

    /// Whether the user interrupted the run.
    pub(crate) fn is_cancelled(&self) -> bool {
        (self.cancelled)()
    }

    /// The injected fault, if it is `ctx`'s rank's: a stall waits (without
    /// spinning) until the team is stopped and returns its error; a panic
    /// panics. Every other rank goes on.
    pub(crate) fn inject_fault(&self, ctx: &RankCtx<'_>) -> Result<(), RankError> {
        match self.fault {
            Some(Fault::Stall { rank }) if rank == ctx.rank => {
                while !ctx.control.aborted() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(RankError::Aborted)
            }
            Some(Fault::Panic { rank }) if rank == ctx.rank => {
                panic!("injected fault: rank {rank} panics")
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{clock, two_ranks};
    use super::*;
    use crate::kernels::RunConfig;

    /// A quick run's plan: 5 trials, a 1 ms target (or the clock's least
    /// batch), the run's fault; the hooks are the caller's.
    #[test]
    fn a_plan_takes_the_run_s_settings() {
        let topology = crate::platform::Topology::detect().expect("a topology");
        let allowed = crate::platform::allowed_cpus();
        let clock = clock(20.0);
        let config = RunConfig {
            quick: true,
            fault: Some(Fault::Stall { rank: 1 }),
            ..RunConfig::default()
        };
        let ctx = RunContext::quiet(&topology, &allowed, &clock, &config);
        let seen = std::sync::Mutex::new(Vec::new());
        let on_point = |p: u64| seen.lock().unwrap().push(p);
        let cancelled = || true;
        let plan = SweepPlan::new(&ctx, &[8, 64], &on_point, &cancelled);
        assert_eq!(plan.points, &[8, 64]);
        assert_eq!(plan.trials, 5);
        assert_eq!(plan.target, Duration::from_millis(1));
        assert_eq!(plan.fault, Some(Fault::Stall { rank: 1 }));
        assert!(plan.is_cancelled());
        (plan.on_point)(64);
        assert_eq!(*seen.lock().unwrap(), vec![64]);
    }

    /// Rank 1 of two stalls until rank 0's error stops the team; rank 0 goes
    /// on and fails on its own: the team's error is rank 0's, not a hang.
    #[test]
    fn an_injected_stall_waits_for_the_team_to_stop() {
        let team = two_ranks();
        let clock = clock(0.0);
        let plan = SweepPlan::<u64> {
            points: &[],
            trials: 1,
            target: Duration::ZERO,
            clock: &clock,
            fault: Some(Fault::Stall { rank: 1 }),
            on_point: &|_| {},
            cancelled: &|| false,
        };
        let err = team
            .run("sweep-fault", vec![(); 2], |ctx, _| {
                plan.inject_fault(ctx)?;
                Err::<(), _>(RankError::Failed("rank 0 gives up".into()))
            })
            .unwrap_err();
        assert!(err.to_string().contains("rank 0 gives up"), "{err}");
    }
}
