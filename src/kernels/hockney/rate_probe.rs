//! The rate probe: a processor's serial rate on the dyadic multiply, sampled
//! beside a kernel's own measurements, so that `compare` can tell an `r_inf`
//! that moved because the processor computed more slowly from one that moved
//! alone ([`crate::results::RATE_PROBE_PARAM`]).
//!
//! The CPU pair's round trip ([`crate::kernels::harness::probe`]) cannot see the
//! processors' own speed, which on a shared host moves between runs as the line
//! transfers do: on a VM a thread alone on a virtual CPU runs the dyadic multiply
//! at a rate that holds for seconds and then dips by a few per cent, or by a
//! seventh with a second copy busy on the other virtual CPU.

use super::simd::{Simd, dyadic_f64};
use super::sync_plan::{SERIAL_ELEMENTS, SyncPlan};
use crate::control::RankError;
use crate::kernels::harness::probe::sampled_probe;
use crate::kernels::harness::timing::{Timer, calibrate, measure, per_rep_ns};
use crate::platform::ClockInfo;
use crate::results::{Param, RATE_PROBE_PARAM, num};
use crate::sync::tasks::{Pool, spawn_join};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// The dyadic multiply `A = B * C` on vectors of a fixed length, timed alone
/// on the calling thread.
pub(super) struct Serial {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    simd: Simd,
}

impl Serial {
    /// Vectors of `elements` f64 each (`24 elements` bytes in all).
    pub(super) fn new(elements: usize) -> Serial {
        Serial {
            a: vec![0.0; elements],
            b: vec![1.5; elements],
            c: vec![0.75; elements],
            simd: Simd::detect(),
        }
    }

    /// Times `reps` passes.
    pub(super) fn batch(&mut self, reps: u64) -> Duration {
        let start = Timer::start();
        for _ in 0..reps {
            let (a, b, c) = std::hint::black_box((&mut self.a[..], &self.b[..], &self.c[..]));
            // SAFETY: `simd` comes from `Simd::detect`.
            unsafe { dyadic_f64(self.simd, a, b, c) };
        }
        start.elapsed()
    }

    /// The passes of a batch about `target` long.
    pub(super) fn reps_for(&mut self, target: Duration) -> u64 {
        calibrate::<()>(target, |r| Ok(self.batch(r))).expect("infallible")
    }

    /// The rate of a batch of `reps` passes that took `took`, flop/ns.
    pub(super) fn rate(&self, took: Duration, reps: u64, clock: &ClockInfo) -> f64 {
        self.a.len() as f64 / per_rep_ns(took, reps, clock).max(1e-3)
    }
}

/// The rate probe of `samples` (flop/ns each) on `parts` processors: `parts`
/// times their median, flop/s, with the percentile bootstrap of the median
/// over the samples as its interval, and a warning when the middle half of
/// the samples spans more than [`crate::kernels::harness::probe::PROBE_MOVED`]
/// ([`crate::kernels::harness::probe::sampled_probe`]).
pub(super) fn rate_probe(
    samples: &[f64],
    parts: usize,
    of: Option<&str>,
    warnings: &mut Vec<String>,
) -> Option<Param> {
    let rates = samples.iter().map(|r| r * parts as f64 * 1e9).collect();
    sampled_probe(RATE_PROBE_PARAM, of, rates, warnings, |q1, q3, n| {
        format!(
            "the processor's own rate moved during the kernel: P times the serial rate's middle half ranged {} to {} Gflop/s over {n} samples",
            num(q1 / 1e9),
            num(q3 / 1e9)
        )
    })
}

/// One processor's rate on the dyadic multiply of [`SERIAL_ELEMENTS`]
/// elements, flop/ns: the fastest of three batches.
pub(super) fn serial_rate(clock: &ClockInfo, target: Duration) -> f64 {
    let mut serial = Serial::new(SERIAL_ELEMENTS);
    let (_, samples) =
        measure::<()>(3, target, clock, |reps| Ok(serial.batch(reps))).expect("infallible");
    SERIAL_ELEMENTS as f64
        / samples
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
            .max(1e-3)
}

/// The TASKS' rate probe ([`super::team_batch::RATE_GRAIN`]): the master's `reps` passes of the
/// serial multiply, timed while every other processor computes passes of
/// its own, each started as the method starts its tasks (a fork of the
/// pool, or new threads) and kept busy until the master's passes are done;
/// the master starts its clock once every task has started, so that
/// neither a start-up nor a join is in the time.
pub(super) fn tasks_rate_probe(
    pool: Option<&Pool>,
    plan: &SyncPlan,
    reps: u64,
) -> Result<Duration, RankError> {
    let others = plan.parts - 1;
    let started = AtomicUsize::new(0);
    let done = AtomicBool::new(false);
    let took = std::sync::Mutex::new(Duration::ZERO);
    let share = |p: usize| {
        let mut serial = Serial::new(SERIAL_ELEMENTS);
        // One untimed pass: the vectors' pages are touched before the clock.
        serial.batch(1);
        if p == 0 {
            // Relaxed: a count; no data depends on it.
            while started.load(Ordering::Relaxed) < others {
                std::hint::spin_loop();
            }
            let t = serial.batch(reps);
            *took.lock().expect("no panic holds it") = t;
            // Relaxed: a signal to stop; no data depends on it.
            done.store(true, Ordering::Relaxed);
        } else {
            // Relaxed: as the master's load.
            started.fetch_add(1, Ordering::Relaxed);
            // Relaxed: as the master's store.
            while !done.load(Ordering::Relaxed) {
                serial.batch(1);
            }
        }
    };
    match pool {
        Some(pool) => pool
            .fork_join(&share)
            .map_err(|e| RankError::Failed(e.to_string()))?,
        None => spawn_join(&plan.cpus, plan.parts, &share),
    }
    Ok(*took.lock().expect("no panic holds it"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nine samples at 4.0 to 4.7 flop/ns on P = 2: the probe is 2 x the
    /// median 4.1 = 8.2 Gflop/s, its bootstrap interval of the median lies
    /// within the samples' 8.0 to 9.4, and their middle half (quartiles 4.05
    /// and 4.15) does not warn; six samples whose quartiles are 3.0 and 4.2
    /// (40 %) warn with that range. No samples, no probe.
    #[test]
    fn the_rate_probe_is_p_times_the_median_serial_rate() {
        let mut warnings = Vec::new();
        let samples = [4.0, 4.1, 4.2, 4.7, 4.0, 4.1, 4.15, 4.05, 4.1];
        let p = rate_probe(&samples, 2, Some("spin-hint"), &mut warnings).unwrap();
        assert_eq!(p.name, RATE_PROBE_PARAM);
        assert_eq!(p.of.as_deref(), Some("spin-hint"));
        assert!((p.value - 8.2e9).abs() < 1.0, "{}", p.value);
        let [lo, hi] = p.ci95.unwrap();
        assert!(8.0e9 - 1.0 <= lo && lo <= p.value && p.value <= hi && hi <= 9.4e9 + 1.0);
        assert!(warnings.is_empty(), "{warnings:?}");
        rate_probe(&[3.0, 3.0, 3.0, 4.2, 4.2, 4.2], 2, None, &mut warnings).unwrap();
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("ranged 6.000 to 8.400 Gflop/s over 6 samples"),
            "{warnings:?}"
        );
        assert!(rate_probe(&[], 2, None, &mut warnings).is_none());
    }

    /// A pass over 1024 elements timed as a batch gives a finite, positive
    /// rate (flop/ns) with a clock that costs nothing.
    #[test]
    fn a_serial_batch_has_a_positive_rate() {
        let mut s = Serial::new(1024);
        let took = s.batch(100);
        let clock = ClockInfo {
            source: "test".into(),
            read_overhead_ns: 0.0,
            resolution_ns: 1.0,
        };
        let r = s.rate(took, 100, &clock);
        assert!(r.is_finite() && r > 0.0, "{r}");
    }
}
