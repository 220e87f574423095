//! The synchronisation methods under test: the ways two or more processors meet
//! at the end (and start) of a work segment, whose cost Hockney measures as
//! `s_1/2` ("(r_inf, n_1/2, s_1/2) measurements on the 2-CPU Cray X-MP", section
//! 3.2, Table II). One module per method of the paper, each porting its figure:
//!
//! - [`tasks`]: TASKS (Fig. 3), a new thread per segment started and joined, and a
//!   persistent pinned pool's fork/join, the modern form of the same idea.
//! - [`locks`]: LOCKS (Fig. 4), a binary lock set by one processor and cleared by
//!   the other (Cray `LOCKON`/`LOCKOFF`), the waiter blocking in the lock.
//! - [`events`]: EVENTS (Fig. 5), post / wait / clear on an event built on a
//!   parking_lot mutex and condition variable, and on thread park/unpark (futex).
//! - [`spin`]: the simplified LOCKS of Fig. 6 (Larson's CAL code), a flag in shared
//!   memory polled by the waiter, with and without the spin-loop hint.
//! - [`barrier`]: the dissemination spin barrier the kernels time, and the
//!   central sense-reversing one beside it (the std barrier is used as is).
//!
//! Every wait that can be lost checks the team's abort flag and deadline (from
//! [`TeamControl`]), so a lost peer ends the kernel with
//! an error naming the rank waited for, never a hang. The exceptions are said where
//! they are (the std barrier, which has no timeout, and a pool's join, which must
//! not return while a worker still runs the caller's closure).

pub mod barrier;
pub mod events;
pub mod locks;
pub mod spin;
pub mod tasks;
pub(crate) mod team_method;

use crate::control::{RankError, TeamControl, WaitStrategy};
use std::time::Duration;

/// How long a blocking wait sleeps before it looks at the abort flag and the
/// deadline again.
pub(crate) const POLL_SLICE: Duration = Duration::from_millis(5);

/// How a waiter that finds its condition unmet spends the time until it looks again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poll {
    /// Busy-poll with the CPU's spin-loop hint (`pause` on x86).
    Hint,
    /// Busy-poll with no hint at all: the tightest loop.
    Bare,
    /// Give the CPU away between polls (`sched_yield`): for threads that share a
    /// CPU, where spinning would starve the thread being waited for.
    Yield,
}

impl Poll {
    /// How rank `rank` of a team waits: with the spin-loop hint alone on its
    /// CPU, giving the CPU away when it shares it (so the ranks it waits for
    /// can run).
    pub fn for_rank(control: &TeamControl, rank: usize) -> Poll {
        match control.wait_strategy(rank) {
            WaitStrategy::Spin => Poll::Hint,
            WaitStrategy::Block => Poll::Yield,
        }
    }

    /// How rank `rank` of a team waits in a meeting that is itself timed (a
    /// barrier under test): bare alone on its CPU, giving the CPU away when
    /// it shares it. With the hint a waiter sees the flag it polls up to a
    /// pause late, and where a pause is a quarter of a line's round trip
    /// (recent x86) the meeting's time took one of levels a pause apart,
    /// each for seconds: a level a run, not the barrier's time (see
    /// [`barrier`]).
    pub fn for_meeting(control: &TeamControl, rank: usize) -> Poll {
        match control.wait_strategy(rank) {
            WaitStrategy::Spin => Poll::Bare,
            WaitStrategy::Block => Poll::Yield,
        }
    }

    /// One pause between two polls (under loom, a loom yield whatever the kind, so
    /// the model checker schedules the thread being waited for).
    #[inline(always)]
    pub fn pause(self) {
        #[cfg(loom)]
        {
            let _ = self;
            crate::primitive::spin_hint();
        }
        #[cfg(not(loom))]
        match self {
            Poll::Hint => std::hint::spin_loop(),
            Poll::Bare => {}
            Poll::Yield => std::thread::yield_now(),
        }
    }

    /// What one pause of [`Poll::Hint`] takes on the calling thread's CPU, ns:
    /// the median of five batches of 20,000 (a few milliseconds in all). The
    /// hint is the granularity at which a waiter with it sees a flag change:
    /// a few cycles on older x86, tens of nanoseconds on recent cores, which
    /// is a good part of a cross-core hand-over.
    pub fn hint_pause_ns() -> f64 {
        const BATCH: u32 = 20_000;
        let mut batches: Vec<f64> = (0..5)
            .map(|_| {
                let start = std::time::Instant::now();
                for _ in 0..BATCH {
                    // The hint itself, as `Poll::Hint` pauses outside loom.
                    std::hint::spin_loop();
                }
                start.elapsed().as_nanos() as f64 / f64::from(BATCH)
            })
            .collect();
        batches.sort_by(f64::total_cmp);
        batches[batches.len() / 2]
    }

    /// Polls until `done` returns true, pausing as this says between reads and
    /// looking at `control`'s abort flag and deadline every 1024 reads; `peer`
    /// names the rank waited for in the deadline error.
    #[inline(always)]
    pub fn until(
        self,
        control: &TeamControl,
        peer: usize,
        mut done: impl FnMut() -> bool,
    ) -> Result<(), RankError> {
        let mut polls: u32 = 0;
        let mut started = None;
        while !done() {
            self.pause();
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(1024) {
                control.check(peer, &mut started)?;
            }
        }
        Ok(())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Poll;
    use crate::control::{TeamControl, WaitStrategy};

    /// A rank alone on its CPU polls a timed meeting bare and waits
    /// elsewhere with the hint; one that shares its CPU yields in both.
    #[test]
    fn a_timed_meeting_is_polled_bare_on_a_cpu_of_its_own() {
        let control = TeamControl::new(
            vec![WaitStrategy::Spin, WaitStrategy::Block],
            std::time::Duration::from_secs(1),
        );
        assert_eq!(Poll::for_meeting(&control, 0), Poll::Bare);
        assert_eq!(Poll::for_rank(&control, 0), Poll::Hint);
        assert_eq!(Poll::for_meeting(&control, 1), Poll::Yield);
        assert_eq!(Poll::for_rank(&control, 1), Poll::Yield);
    }

    /// A pause is at least a cycle and far less than a time slice, whatever
    /// the CPU (the x86 `pause` takes 3 to about 150 cycles).
    #[test]
    fn a_hint_pause_takes_between_a_cycle_and_a_few_microseconds() {
        let ns = Poll::hint_pause_ns();
        assert!(ns.is_finite() && ns > 0.05 && ns < 5_000.0, "{ns} ns");
    }
}
