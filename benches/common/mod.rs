//! What the benches share: Criterion's configuration and each group's
//! settings from `halfperf::benchfit::budget`, in the quick mode
//! (`HALFPERF_BENCH_QUICK=1` or `CI=true`) or not.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion};
use halfperf::benchfit::{self, budget};

/// Criterion's configuration: [`budget::RESAMPLES`] bootstrap resamples
/// ([`budget::QUICK_RESAMPLES`] in the quick mode) instead of its 100,000,
/// whose analysis and plots cost several times the measurement; a command
/// line's `--nresamples` still wins.
pub(crate) fn config() -> Criterion {
    let resamples = if benchfit::quick() {
        budget::QUICK_RESAMPLES
    } else {
        budget::RESAMPLES
    };
    Criterion::default().nresamples(resamples)
}

/// The value the bench's command line gives `flag` (`--flag v` or
/// `--flag=v`), if it gives one.
fn command_line(flag: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .enumerate()
        .find_map(|(i, a)| match a.strip_prefix(flag) {
            Some("") => args.get(i + 1).cloned(),
            Some(v) => v.strip_prefix('=').map(str::to_owned),
            None => None,
        })
}

/// Sets a group's samples, warm-up and measurement time to `part`'s
/// ([`budget::Part::settings`]), except those the command line sets
/// (`--sample-size`, `--warm-up-time`, `--measurement-time`), which win.
/// Returns the samples a bench takes.
pub(crate) fn settings(group: &mut BenchmarkGroup<'_, WallTime>, part: budget::Part) -> usize {
    let s = part.settings(benchfit::quick());
    if command_line("--warm-up-time").is_none() {
        group.warm_up_time(s.warm_up);
    }
    if command_line("--measurement-time").is_none() {
        group.measurement_time(s.measurement);
    }
    match command_line("--sample-size").and_then(|n| n.parse().ok()) {
        Some(n) => n,
        None => {
            group.sample_size(s.samples);
            s.samples
        }
    }
}
