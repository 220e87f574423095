//! What the benches share: Criterion's configuration in the quick mode
//! (`HALFPERF_BENCH_QUICK=1` or `CI=true`, see `halfperf::benchfit`).

use criterion::Criterion;
use halfperf::benchfit;
use std::time::Duration;

/// Criterion's settings: in the quick mode its smallest sample, 0.1 s of
/// warm-up and 0.3 s of measurement a bench and 10,000 bootstrap resamples
/// (a command line's `--warm-up-time` and `--measurement-time` still win);
/// else Criterion's defaults, which the groups refine.
pub(crate) fn config() -> Criterion {
    let c = Criterion::default();
    if benchfit::quick() {
        c.sample_size(benchfit::QUICK_SAMPLES)
            .warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(300))
            .nresamples(10_000)
    } else {
        c
    }
}

/// Sets a group's warm-up and measurement time, except in the quick mode,
/// where the configuration's (or the command line's) hold.
#[allow(dead_code)] // the comet bench keeps the configuration's timing
pub(crate) fn timing(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    warm_up: Duration,
    measurement: Duration,
) {
    if !benchfit::quick() {
        group.warm_up_time(warm_up).measurement_time(measurement);
    }
}
