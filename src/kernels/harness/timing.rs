//! Timing in batches, as CoMet and the NCUBE programs did for coarse clocks and as
//! scibench's `getreps` does: a batch of `reps` repetitions is timed as a whole,
//! the clock's read overhead (Hockney's T0) is subtracted, and the time is divided
//! by `reps`. The batch size doubles (or scales) until a batch lasts at least the
//! target, so the clock's resolution costs well under 0.1%. Each point is then
//! measured over several trials; fits use the minimum (Hockney, scibench), and
//! the spread is checked against scibench's ACCURACY bound.
//!
//! Every clock read of the harness and the kernels on it goes through one
//! type, [`Timer`] (as divan and criterion read theirs): a stamp, the time
//! since it, and that time less the clock's read overhead that
//! [`crate::platform::measure_clock`] calibrated at start.

use crate::model::stats::{Summary, summarize};
use crate::platform::ClockInfo;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The time of the calibration batches no trial keeps (the batches that
/// grew to the target, and a second look), ns, summed over the process:
/// the harness's share of a kernel beside its trials, which a run prints
/// per kernel with `HALFPERF_PHASES` set (`crate::suite`).
pub static CALIBRATION_NS: AtomicU64 = AtomicU64::new(0);

/// Adds `took` to [`CALIBRATION_NS`].
fn count_calibration(took: Duration) {
    // Relaxed: a tally, read after the kernel's threads have joined.
    CALIBRATION_NS.fetch_add(took.as_nanos() as u64, Ordering::Relaxed);
}

/// A clock stamp: [`Timer::start`] reads the clock, [`Timer::elapsed`] reads
/// it again. One read each, inlined, so that a timed loop pays only the
/// clock's own cost (the `read_overhead_ns` of [`ClockInfo`], taken off by
/// [`Timer::elapsed_net_ns`] and [`per_rep_ns`]).
#[derive(Debug, Clone, Copy)]
pub struct Timer {
    start: Instant,
}

impl Timer {
    /// Reads the clock.
    #[inline(always)]
    pub fn start() -> Timer {
        Timer {
            start: Instant::now(),
        }
    }

    /// The time since [`Timer::start`], as the clock read it.
    #[inline(always)]
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The time from this stamp to a `later` one, ns: events timed back to
    /// back share their stamps, one clock read each.
    #[inline(always)]
    pub fn ns_to(&self, later: &Timer) -> f64 {
        later.start.duration_since(self.start).as_nanos() as f64
    }

    /// The time since [`Timer::start`] less the clock's calibrated read
    /// overhead, ns: one event's own time (not below zero).
    #[inline(always)]
    pub fn elapsed_net_ns(&self, clock: &ClockInfo) -> f64 {
        (self.elapsed().as_nanos() as f64 - clock.read_overhead_ns).max(0.0)
    }
}

/// scibench's ACCURACY: a warning when (max - min) / min over the trials exceeds it.
pub const ACCURACY: f64 = 0.10;

/// Below this many repetitions a batch that reaches the target is timed again
/// before calibration stops (see [`measure`]), unless the batch before it
/// predicted its length ([`CONSISTENT_WITHIN`]).
pub const CONFIRM_BELOW_REPS: u64 = 1000;

/// A batch that reached the target is taken as it is, under
/// [`CONFIRM_BELOW_REPS`] repetitions too, when it lasted at most this
/// multiple of what the calibration's previous batch predicted (that
/// batch's time per repetition times its repetitions): a preemption that
/// made it look long enough would have made it longer than that.
pub const CONSISTENT_WITHIN: f64 = 1.5;

/// How long a calibrated batch lasts, in targets: the calibration's last
/// batch aims 20 % past the target ([`next_reps`]), so that it reaches the
/// target at its first try, and the batches after it are trimmed to this
/// ([`trimmed_reps`]), which the target's purpose (the clock's cost well
/// under 0.1 %) does not need. The quick result files' batches lasted 1.2
/// to 1.4 targets before the trim.
pub const TRIM_AIM: f64 = 1.08;

/// The repetitions of the batches after a calibration of `reps`
/// repetitions, whose fastest batch took `per_rep_ns` a repetition, against
/// `target`: enough to last [`TRIM_AIM`] targets at that speed, never more
/// than `reps` nor fewer than one. The fastest, not the last: a last batch
/// that a preemption lengthened would otherwise trim the trials far below
/// the target.
pub fn trimmed_reps(reps: u64, per_rep_ns: f64, target: Duration) -> u64 {
    let want = TRIM_AIM * target.as_nanos() as f64 / per_rep_ns;
    if target.is_zero() || want.is_nan() || want >= reps as f64 {
        return reps;
    }
    // A hair under, so that an exact product rounds to itself.
    ((want - 1e-6).ceil() as u64).clamp(1, reps)
}

/// The repetition count for the next calibration batch, given that `reps`
/// repetitions took `took` and the target is `target`: scale towards the target
/// with 20% to spare, at least doubling and at most multiplying by 100.
pub fn next_reps(reps: u64, took: Duration, target: Duration) -> u64 {
    let took_ns = took.as_nanos().max(1) as f64;
    let factor = (target.as_nanos() as f64 * 1.2 / took_ns).clamp(2.0, 100.0);
    ((reps as f64 * factor).ceil() as u64).max(reps + 1)
}

/// How far a batch may stray from its target, either way, before
/// [`resized_reps`] resizes it.
pub const STRAY_FACTOR: u32 = 4;

/// The repetitions of a point's batch in the next round of an interleaved
/// sweep, after a batch of `reps` took `elapsed` against its `target`:
/// unchanged while it took a quarter to four times the target
/// ([`STRAY_FACTOR`]), else scaled to
/// the target, at least `least` (or the `calibrated` count, if fewer) and at
/// most the `calibrated` count. A hand-over that was calibrated fast and then
/// slept made a round last fifty to eighty times its plan (`hockney-sync`'s
/// events-park, 16-flop grain: 13,506 segments of 74 ns calibrated, then 60
/// us each, 5.9 to 9.8 s of rounds where 0.12 s were planned; 2-vCPU EPYC
/// VM). A repetition's time is its batch's over its count, so a round with
/// fewer repetitions measures the same quantity.
pub fn resized_reps(
    reps: u64,
    calibrated: u64,
    least: u64,
    elapsed: Duration,
    target: Duration,
) -> u64 {
    let ratio = elapsed.as_secs_f64() / target.as_secs_f64().max(1e-9);
    let stray = f64::from(STRAY_FACTOR);
    if (1.0 / stray..=stray).contains(&ratio) || target.is_zero() {
        return reps;
    }
    let scaled = (reps as f64 / ratio.max(1e-9)).round() as u64;
    let most = calibrated.max(1);
    scaled.clamp(least.clamp(1, most), most)
}

/// One point's batch in an interleaved sweep: its repetitions calibrated at
/// the first batch, then resized after a batch that strayed ([`resized_reps`],
/// at least one repetition).
#[derive(Debug, Clone, Copy, Default)]
pub struct RoundBatch {
    reps: u64,
    calibrated: u64,
}

impl RoundBatch {
    /// Whether no batch has been calibrated yet.
    pub fn is_new(&self) -> bool {
        self.calibrated == 0
    }

    /// The repetitions found by the calibration (0 before it).
    pub fn calibrated(&self) -> u64 {
        self.calibrated
    }

    /// Times one batch with `batch(reps) -> time` and returns its
    /// per-repetition time in ns. The point's first is its calibration's
    /// last batch ([`calibrate_timed`]): a batch of the calibrated
    /// repetitions that reached the target, timed as every later one is.
    pub fn time<E>(
        &mut self,
        target: Duration,
        clock: &ClockInfo,
        mut batch: impl FnMut(u64) -> Result<Duration, E>,
    ) -> Result<f64, E> {
        if self.is_new() {
            let c = calibrate_trimmed(target, &mut batch)?;
            // The batches after it trimmed to about the target.
            self.calibrated = c.trimmed;
            self.reps = c.trimmed;
            return Ok(per_rep_ns(c.took, c.reps, clock));
        }
        let took = batch(self.reps)?;
        let ns = per_rep_ns(took, self.reps, clock);
        self.reps = resized_reps(self.reps, self.calibrated, 1, took, target);
        Ok(ns)
    }
}

/// Per-repetition time of a batch in ns, with the clock overhead subtracted.
pub fn per_rep_ns(took: Duration, reps: u64, clock: &ClockInfo) -> f64 {
    ((took.as_nanos() as f64 - clock.read_overhead_ns).max(0.0)) / reps as f64
}

/// Calibrates a batch size with `batch(reps) -> time`, then runs `trials` batches
/// (each resized by [`resized_reps`] after one that strayed far from the
/// target) and returns the calibrated repetitions and the per-repetition times
/// in ns.
pub fn measure<E>(
    trials: usize,
    target: Duration,
    clock: &ClockInfo,
    mut batch: impl FnMut(u64) -> Result<Duration, E>,
) -> Result<(u64, Vec<f64>), E> {
    let mut point = RoundBatch::default();
    let mut samples = Vec::with_capacity(trials);
    if trials == 0 {
        point.calibrated = calibrate(target, &mut batch)?;
    }
    for _ in 0..trials {
        samples.push(point.time(target, clock, &mut batch)?);
    }
    Ok((point.calibrated, samples))
}

/// The repetitions per batch that make `batch(reps) -> time` last at least
/// `target`, trimmed to about [`TRIM_AIM`] targets (the calibration of
/// [`measure`], for callers that then interleave several points in rounds).
pub fn calibrate<E>(
    target: Duration,
    batch: impl FnMut(u64) -> Result<Duration, E>,
) -> Result<u64, E> {
    calibrate_trimmed(target, batch).map(|c| c.trimmed)
}

/// [`calibrate`], returning with the repetitions the time of the last batch
/// of them (a batch that reached the target, or the second of two that
/// both did), so that a point's first trial need not be timed again.
pub fn calibrate_timed<E>(
    target: Duration,
    batch: impl FnMut(u64) -> Result<Duration, E>,
) -> Result<(u64, Duration), E> {
    calibrate_trimmed(target, batch).map(|c| (c.reps, c.took))
}

/// What a calibration found ([`calibrate_trimmed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Calibrated {
    /// The repetitions of its last batch, which reached the target.
    pub reps: u64,
    /// That batch's time.
    pub took: Duration,
    /// The repetitions of the batches after it ([`trimmed_reps`]).
    pub trimmed: u64,
}

/// Grows a batch of `batch(reps) -> time` until it lasts at least `target`
/// and returns its repetitions and time, with the repetitions the batches
/// after it take ([`trimmed_reps`], from the fastest batch's time a
/// repetition).
pub fn calibrate_trimmed<E>(
    target: Duration,
    mut batch: impl FnMut(u64) -> Result<Duration, E>,
) -> Result<Calibrated, E> {
    let mut reps = 1u64;
    // The previous batch's time per repetition, and the fastest batch's, ns.
    let mut per_rep: Option<f64> = None;
    let mut fastest = f64::INFINITY;
    let each = |took: Duration, reps: u64| took.as_nanos() as f64 / reps as f64;
    loop {
        let mut took = batch(reps)?;
        fastest = fastest.min(each(took, reps));
        let mut enough = took >= target;
        let predicted = per_rep.map(|ns| ns * reps as f64);
        let consistent = predicted.is_some_and(|p| took.as_nanos() as f64 <= CONSISTENT_WITHIN * p);
        if enough && reps < CONFIRM_BELOW_REPS && !consistent {
            // One preemption can make a batch of a few repetitions look long
            // enough, and the point would then be timed a repetition at a time,
            // at the clock's resolution: a short batch must reach the target
            // twice, unless the batch before it predicted its length.
            let again = batch(reps)?;
            fastest = fastest.min(each(again, reps));
            enough = again >= target;
            count_calibration(if enough { took } else { took.max(again) });
            took = if enough { again } else { took.min(again) };
        }
        if enough || reps >= 1 << 32 {
            return Ok(Calibrated {
                reps,
                took,
                trimmed: trimmed_reps(reps, fastest, target),
            });
        }
        count_calibration(took);
        per_rep = Some(each(took, reps));
        reps = next_reps(reps, took, target);
    }
}

/// The summary of trial samples, and the scibench accuracy warning for `what` if
/// the spread exceeds [`ACCURACY`].
pub fn summarize_trials(samples: &[f64], what: &str) -> (Summary, Option<String>) {
    let summary = summarize(samples).expect("at least one finite trial");
    let spread = summary.relative_spread();
    let warning = (spread > ACCURACY).then(|| {
        format!(
            "{what}: insufficient accuracy, (max - min)/min = {spread:.2} over {} trials exceeds {ACCURACY}",
            summary.count
        )
    });
    (summary, warning)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock of 1 ns resolution whose read costs `overhead_ns`.
    fn test_clock(overhead_ns: f64) -> ClockInfo {
        ClockInfo {
            source: "test".into(),
            read_overhead_ns: overhead_ns,
            resolution_ns: 1.0,
        }
    }

    #[test]
    fn a_batch_far_from_its_target_is_resized_for_the_next_round() {
        let ms = Duration::from_millis;
        let us = Duration::from_micros;
        // Within a quarter to four times the target: unchanged.
        assert_eq!(resized_reps(13_506, 13_506, 7, ms(3), ms(1)), 13_506);
        assert_eq!(resized_reps(100, 13_506, 7, us(300), ms(1)), 100);
        // Hand-overs that slept: 13,506 segments took 810 ms; 17 fill 1 ms.
        assert_eq!(resized_reps(13_506, 13_506, 7, ms(810), ms(1)), 17);
        // Never below `least`, nor above the calibration.
        assert_eq!(resized_reps(100, 100, 7, ms(1000), ms(1)), 7);
        assert_eq!(resized_reps(100, 100, 1, ms(1000), ms(1)), 1);
        assert_eq!(resized_reps(3, 3, 7, ms(1000), ms(1)), 3);
        assert_eq!(resized_reps(17, 13_506, 7, us(2), ms(1)), 8_500);
        assert_eq!(resized_reps(100, 120, 7, us(2), ms(1)), 120);
    }

    #[test]
    fn calibration_reaches_the_target_and_subtracts_the_overhead() {
        let clock = test_clock(20.0);
        // A fake batch: 100 ns per rep plus the clock's 20 ns.
        let (reps, samples) = measure::<()>(3, Duration::from_micros(100), &clock, |r| {
            Ok(Duration::from_nanos(100 * r + 20))
        })
        .unwrap();
        assert!(reps * 100 >= 100_000, "reps {reps}");
        assert!(reps * 100 <= 100_000 * 3, "overshoot: reps {reps}");
        assert_eq!(samples, vec![100.0; 3]);
        assert_eq!(
            next_reps(1, Duration::from_nanos(10), Duration::from_millis(1)),
            100
        );
        assert_eq!(
            next_reps(10, Duration::from_micros(900), Duration::from_millis(1)),
            20
        );
    }

    /// A preempted first batch (5 ms for one repetition) does not end the
    /// calibration: the next batch of one repetition takes 100 ns, so the batch
    /// size still grows to the 100 us target.
    #[test]
    fn one_preempted_short_batch_does_not_end_calibration() {
        let clock = test_clock(0.0);
        let mut first = true;
        let (reps, samples) = measure::<()>(3, Duration::from_micros(100), &clock, |r| {
            let extra = if std::mem::take(&mut first) {
                5_000_000
            } else {
                0
            };
            Ok(Duration::from_nanos(100 * r + extra))
        })
        .unwrap();
        assert!(reps >= 1000, "reps {reps}");
        assert_eq!(samples, vec![100.0; 3]);
    }

    /// A point's first trial is its calibration's last batch: three trials
    /// of a point cost the calibration's batches and two more, each of them
    /// of the calibrated repetitions after the first.
    #[test]
    fn the_calibrations_last_batch_is_the_first_trial() {
        let clock = test_clock(0.0);
        let mut calls = Vec::new();
        let mut point = RoundBatch::default();
        let target = Duration::from_micros(100);
        let mut samples = Vec::new();
        for _ in 0..3 {
            samples.push(
                point
                    .time::<()>(target, &clock, |r| {
                        calls.push(r);
                        Ok(Duration::from_nanos(100 * r))
                    })
                    .unwrap(),
            );
        }
        assert_eq!(samples, vec![100.0; 3]);
        // 1, 100, then 1,200 repetitions (120 us) reach the target; two
        // more batches, trimmed to 1.08 targets: 1,080.
        assert_eq!(calls, vec![1, 100, 1200, 1080, 1080]);
        assert_eq!(point.calibrated(), 1080);
        // Under a thousand repetitions the target must be reached twice,
        // and the second batch is the one kept.
        let mut times = vec![150_000u64, 120_000].into_iter();
        let (reps, took) =
            calibrate_timed::<()>(target, |_| Ok(Duration::from_nanos(times.next().unwrap())))
                .unwrap();
        assert_eq!((reps, took), (1, Duration::from_nanos(120_000)));
    }

    /// A calibration of 1,200 repetitions whose fastest batch took 100 ns
    /// a repetition, against 100 us: the batches after it take 1,080 (108
    /// us). One of 3 at 1 ms a repetition takes 1 (never fewer than one);
    /// one whose aim is above its count keeps its count.
    #[test]
    fn batches_after_the_calibration_are_trimmed_to_the_aim() {
        let us = Duration::from_micros;
        assert_eq!(trimmed_reps(1200, 100.0, us(100)), 1080);
        assert_eq!(trimmed_reps(3, 1e6, us(100)), 1);
        assert_eq!(trimmed_reps(3, 50e3, us(100)), 3);
        assert_eq!(trimmed_reps(1000, 107.0, us(100)), 1000);
        assert_eq!(trimmed_reps(1000, 90.0, us(100)), 1000);
        assert_eq!(trimmed_reps(5, 1.0, Duration::ZERO), 5);
        // The measured: 2.5 us a repetition against 1 ms.
        let r = trimmed_reps(500, 2500.0, us(1000));
        assert!((r as f64 * 2.5e-3 - TRIM_AIM).abs() < 0.01, "{r}");
        assert_eq!(
            calibrate::<()>(us(100), |r| Ok(Duration::from_nanos(100 * r))),
            Ok(1080)
        );
    }

    /// A calibration's last batch that a preemption lengthened does not
    /// trim the trials below the target: 90 ns a repetition against 1 ms,
    /// batches of 1, 100, 10,000 (0.9 ms), then 20,000, preempted (6.8 ms
    /// where 1.8 were due). Trimmed from the last batch the trials would
    /// take 3,177 repetitions (0.29 ms); from the fastest, 12,000 (1.08 ms).
    #[test]
    fn a_preempted_last_calibration_batch_does_not_shorten_the_trials() {
        let clock = test_clock(0.0);
        let mut calls = Vec::new();
        let mut point = RoundBatch::default();
        let mut samples = Vec::new();
        for _ in 0..3 {
            let s = point.time::<()>(Duration::from_millis(1), &clock, |r| {
                calls.push(r);
                let preempted = r == 20_000;
                Ok(Duration::from_nanos(
                    90 * r + if preempted { 5_000_000 } else { 0 },
                ))
            });
            samples.push(s.unwrap());
        }
        assert_eq!(calls, vec![1, 100, 10_000, 20_000, 12_000, 12_000]);
        assert_eq!(samples, vec![340.0, 90.0, 90.0]);
        assert_eq!(point.calibrated(), 12_000);
    }

    /// A short batch (under a thousand repetitions) that reached the target
    /// is kept when the batch before it predicted it: 7 us a repetition
    /// against a 1 ms target, batches of 1, 100 (0.7 ms), then 200 (1.4
    /// ms, as the 100 predicted): three batches, where it took four (the
    /// 200 twice) when every short batch was confirmed. One that a
    /// preemption lengthened (the 200 took 6.4 ms, 4.6 times the
    /// prediction) is timed again, and the second kept.
    #[test]
    fn a_short_batch_its_predecessor_predicted_is_not_timed_twice() {
        let target = Duration::from_millis(1);
        let run = |preempt: Option<usize>| {
            let mut calls = Vec::new();
            let got = calibrate_timed::<()>(target, |r| {
                calls.push(r);
                let extra = if Some(calls.len()) == preempt {
                    5000
                } else {
                    0
                };
                Ok(Duration::from_micros(7 * r + extra))
            })
            .unwrap();
            (got, calls)
        };
        let ((reps, took), calls) = run(None);
        assert_eq!(calls, vec![1, 100, 200]);
        assert_eq!((reps, took), (200, Duration::from_micros(1400)));
        let ((reps, took), calls) = run(Some(3));
        assert_eq!(calls, vec![1, 100, 200, 200]);
        assert_eq!((reps, took), (200, Duration::from_micros(1400)));
    }

    /// The batches a calibration does not keep are tallied: 1 and 100
    /// repetitions of 7 us, 707 us (other tests tally alongside).
    #[test]
    fn the_calibrations_unkept_batches_are_tallied() {
        let before = CALIBRATION_NS.load(Ordering::Relaxed);
        calibrate_timed::<()>(Duration::from_millis(1), |r| {
            Ok(Duration::from_micros(7 * r))
        })
        .unwrap();
        let added = CALIBRATION_NS.load(Ordering::Relaxed) - before;
        assert!(added >= 707_000, "{added} ns");
    }

    #[test]
    fn the_histogram_keeps_three_significant_digits_of_the_tail() {
        let mut h = EventHistogram::new();
        assert!(h.summary().is_none());
        for v in 1..=1000 {
            h.record(v as f64 * 10.0);
        }
        let s = h.summary().unwrap();
        assert_eq!(s.count, 1000);
        assert_eq!(s.min, 10.0);
        assert!((s.median - 5000.0).abs() <= 5.0, "{s:?}");
        assert!((s.p90 - 9000.0).abs() <= 9.0, "{s:?}");
        assert!((s.p99 - 9900.0).abs() <= 10.0, "{s:?}");
        assert!((s.max - 10_000.0).abs() <= 10.0, "{s:?}");
        assert!((s.mean - 5005.0).abs() < 10.0, "{s:?}");
    }

    /// A timer read twice 2 ms apart: at least 2 ms elapsed; less a read
    /// overhead of 1 ms, 1 ms less (never below zero with an overhead larger
    /// than the time).
    #[test]
    fn a_timer_takes_the_clock_s_overhead_off() {
        let t = Timer::start();
        std::thread::sleep(Duration::from_millis(2));
        let raw = t.elapsed();
        assert!(raw >= Duration::from_millis(2), "{raw:?}");
        let clock = test_clock;
        let net = t.elapsed_net_ns(&clock(1e6));
        let again = t.elapsed().as_nanos() as f64;
        assert!(
            net >= raw.as_nanos() as f64 - 1e6 && net <= again - 1e6,
            "{net}"
        );
        assert_eq!(t.elapsed_net_ns(&clock(1e12)), 0.0);
    }

    #[test]
    fn spread_beyond_accuracy_warns() {
        let (s, w) = summarize_trials(&[100.0, 101.0, 105.0], "8 B");
        assert_eq!(s.min, 100.0);
        assert!(w.is_none());
        let (_, w) = summarize_trials(&[100.0, 150.0], "8 B");
        assert!(w.unwrap().contains("insufficient accuracy"));
    }
}

/// Records individually timed events (each already minus the clock overhead) in
/// an HdrHistogram with 3 significant digits, and summarises them. Used for the
/// distribution of single round trips, where the batch minimum hides the tail.
#[derive(Debug)]
pub struct EventHistogram {
    hist: hdrhistogram::Histogram<u64>,
}

impl Default for EventHistogram {
    fn default() -> Self {
        EventHistogram::new()
    }
}

impl EventHistogram {
    /// An empty histogram for events of 1 ns to 1 s.
    pub fn new() -> EventHistogram {
        EventHistogram {
            hist: hdrhistogram::Histogram::new_with_bounds(1, 1_000_000_000, 3)
                .expect("valid bounds"),
        }
    }

    /// Records one event of `ns` nanoseconds (clamped into the histogram's range).
    #[inline]
    pub fn record(&mut self, ns: f64) {
        self.hist.saturating_record(ns.round().max(1.0) as u64);
    }

    /// The distribution as a [`Summary`]; `None` when nothing was recorded.
    pub fn summary(&self) -> Option<Summary> {
        (!self.hist.is_empty()).then(|| Summary {
            count: self.hist.len() as usize,
            min: self.hist.min() as f64,
            median: self.hist.value_at_quantile(0.5) as f64,
            mean: self.hist.mean(),
            max: self.hist.max() as f64,
            std_dev: self.hist.stdev(),
            p90: self.hist.value_at_quantile(0.90) as f64,
            p99: self.hist.value_at_quantile(0.99) as f64,
        })
    }
}
