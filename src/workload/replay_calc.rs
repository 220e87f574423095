//! The replay's `calc`: real work, a dependent chain of integer multiply-adds
//! whose count per nanosecond is calibrated once before the trials (the fastest
//! of several short batches, so that a preempted batch does not slow every
//! `calc` down), and checked against the clock in the warm-up trial.
//!
//! Work rather than a wait on the clock: a rank that shares its CPU with another
//! (oversubscribed) takes longer to do the same work, as a real computation does,
//! where a clock-driven wait would end on time whoever else ran meanwhile.

use std::hint::black_box;
use std::time::Instant;

/// Steps of the chain per nanosecond on this machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CalcRate {
    /// Steps per nanosecond.
    pub(crate) steps_per_ns: f64,
}

/// Batches timed to calibrate, and the steps of each.
const BATCHES: usize = 25;
const BATCH_STEPS: u64 = 20_000;

/// Runs `steps` of the chain; the result only keeps the work from being removed.
#[inline(never)]
pub(crate) fn chain(steps: u64) -> u64 {
    let mut x: u64 = black_box(0x9e37_79b9_7f4a_7c15);
    for _ in 0..black_box(steps) {
        // A linear congruential step: each depends on the one before, so the
        // loop cannot be vectorised or shortened, and it touches no memory.
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
    }
    black_box(x)
}

impl CalcRate {
    /// Calibrates on the calling thread's CPU.
    pub(crate) fn calibrate() -> CalcRate {
        chain(BATCH_STEPS); // warm up the code and the frequency
        let best = (0..BATCHES)
            .map(|_| {
                let t = Instant::now();
                chain(BATCH_STEPS);
                t.elapsed().as_nanos().max(1) as f64
            })
            .fold(f64::INFINITY, f64::min);
        CalcRate {
            steps_per_ns: BATCH_STEPS as f64 / best,
        }
    }

    /// The steps that take `ns` nanoseconds.
    pub(crate) fn steps(&self, ns: u64) -> u64 {
        (ns as f64 * self.steps_per_ns).round() as u64
    }

    /// Does `ns` nanoseconds of work.
    #[inline]
    pub(crate) fn work(&self, ns: u64) {
        if ns > 0 {
            chain(self.steps(ns));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibrated_work_takes_about_the_time_asked() {
        let rate = CalcRate::calibrate();
        assert!(
            rate.steps_per_ns > 0.01 && rate.steps_per_ns < 100.0,
            "{rate:?}"
        );
        // The fastest of several runs of 2 ms of work, against the clock: within
        // a generous band on a loaded machine (a run preempted lasts longer, the
        // fastest is the work's own time).
        let best = (0..5)
            .map(|_| {
                let t = Instant::now();
                rate.work(2_000_000);
                t.elapsed().as_nanos() as f64
            })
            .fold(f64::INFINITY, f64::min);
        assert!(
            best > 1_500_000.0 && best < 4_000_000.0,
            "2 ms of work took {best} ns"
        );
        assert_eq!(rate.steps(0), 0);
    }
}
