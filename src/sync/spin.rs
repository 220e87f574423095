//! The simplified LOCKS of Hockney's Fig. 6 (John Larson's CAL code): one word in
//! shared memory (the Cray's shared register `SB0`). The master sets it to 1
//! (`POST1`), does its half, and polls until it reads 0 again (`WAIT2`); the
//! worker polls until it reads 1 (`WAIT1`), does its half, and sets it to 0
//! (`POST2`). The waiting processor does nothing else while it polls, which is why
//! Hockney calls it the least overhead possible but "hardly acceptable as a general
//! method".
//!
//! With more than one worker each has its own flag (the master posts all, then
//! waits for all). The poll loop comes with and without the spin-loop hint
//! ([`Poll`]), since the hint (`pause`, about 40-140 cycles on recent x86) is part
//! of what a hand-off costs.
//!
//! # Memory ordering
//! Both stores are `Release` and both polls `Acquire`: the worker sees the master's
//! writes made before the post, and the master sees the worker's half of the
//! result vector once it reads 0.

use super::Poll;
use crate::control::{RankError, TeamControl};
use crate::primitive::{AtomicU32, Ordering};
use crossbeam_utils::CachePadded;

/// The flag's value while the worker may work.
pub const GO: u32 = 1;
/// The flag's value once the worker is done (and at rest).
pub const DONE: u32 = 0;

/// A cache-padded flag word polled by one side and set by the other.
#[derive(Debug, Default)]
pub struct SpinFlag {
    word: CachePadded<AtomicU32>,
}

impl SpinFlag {
    /// A flag at rest ([`DONE`]).
    pub fn new() -> SpinFlag {
        SpinFlag::default()
    }

    /// Sets the flag (`POST1` with [`GO`], `POST2` with [`DONE`]).
    #[inline(always)]
    pub fn post(&self, value: u32) {
        // Release: publishes this side's writes to the poller's Acquire load.
        self.word.store(value, Ordering::Release);
    }

    /// Polls until the flag reads `want`, pausing as `poll` says between reads,
    /// and looking at the abort flag and deadline every 1024 reads.
    #[inline(always)]
    pub fn wait_for(
        &self,
        want: u32,
        poll: Poll,
        control: &TeamControl,
        peer: usize,
    ) -> Result<(), RankError> {
        // Acquire: pairs with the Release in `post`.
        poll.until(control, peer, || self.word.load(Ordering::Acquire) == want)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::WaitStrategy;
    use std::time::Duration;

    #[test]
    fn the_flag_hands_over_both_ways() {
        let control = TeamControl::new(vec![WaitStrategy::Spin; 2], Duration::from_secs(5));
        let flag = SpinFlag::new();
        let counter = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..1000 {
                    flag.wait_for(GO, Poll::Yield, &control, 0).unwrap();
                    counter.fetch_add(1, Ordering::Relaxed);
                    flag.post(DONE);
                }
            });
            for i in 1..=1000 {
                flag.post(GO);
                flag.wait_for(DONE, Poll::Yield, &control, 1).unwrap();
                assert_eq!(counter.load(Ordering::Relaxed), i);
            }
        });
    }

    #[test]
    fn a_flag_nobody_sets_ends_at_the_deadline() {
        let control = TeamControl::new(vec![WaitStrategy::Spin], Duration::from_millis(20));
        let flag = SpinFlag::new();
        assert!(matches!(
            flag.wait_for(GO, Poll::Hint, &control, 1),
            Err(RankError::Deadline { peer: 1, .. })
        ));
    }
}
