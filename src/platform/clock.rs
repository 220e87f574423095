//! The clock, and what reading it costs.
//!
//! halfperf times with [`std::time::Instant`] (on Linux x86_64 a vDSO
//! `clock_gettime(CLOCK_MONOTONIC)`, which reads the TSC when the kernel's clock
//! source is `tsc`). Hockney's T0 and CoMet's loop overhead are the same idea: the
//! time of an empty timed region, measured at start and subtracted from every batch.
//! The resolution (the smallest non-zero step between two reads) sets how long a
//! batch of repetitions must last.

use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The clock's measured properties, recorded in every result file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClockInfo {
    /// Which clock: the Rust API and the kernel's clock source.
    pub source: String,
    /// Minimum over trials of the time between two back-to-back reads, in ns
    /// (Hockney's T0 for an empty timed region).
    pub read_overhead_ns: f64,
    /// Smallest non-zero difference seen between consecutive reads, in ns.
    pub resolution_ns: f64,
}

impl ClockInfo {
    /// The shortest batch whose timing error from the clock stays under 0.1%:
    /// a thousand resolution steps, and at least 50 µs.
    pub fn min_batch(&self) -> Duration {
        Duration::from_nanos(
            ((self.resolution_ns + self.read_overhead_ns) * 1000.0).max(50_000.0) as u64,
        )
    }
}

/// Measures the clock's read overhead and resolution (a few milliseconds).
pub fn measure_clock() -> ClockInfo {
    let kernel_source =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown".into());
    // Overhead: a batch of back-to-back reads, divided, minimum over trials.
    const READS: u32 = 10_000;
    let mut overhead = f64::INFINITY;
    for _ in 0..20 {
        let start = Instant::now();
        for _ in 0..READS {
            black_box(Instant::now());
        }
        let per_read = start.elapsed().as_nanos() as f64 / f64::from(READS);
        overhead = overhead.min(per_read);
    }
    // Resolution: the smallest positive step between consecutive reads.
    let mut resolution = u128::MAX;
    let mut last = Instant::now();
    for _ in 0..100_000 {
        let now = Instant::now();
        let step = now.duration_since(last).as_nanos();
        if step > 0 {
            resolution = resolution.min(step);
        }
        last = now;
    }
    ClockInfo {
        source: format!("std::time::Instant (CLOCK_MONOTONIC, kernel clocksource {kernel_source})"),
        read_overhead_ns: overhead,
        resolution_ns: if resolution == u128::MAX {
            1.0
        } else {
            resolution as f64
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_overhead_and_resolution_are_plausible() {
        let info = measure_clock();
        assert!(
            info.read_overhead_ns > 0.0 && info.read_overhead_ns < 10_000.0,
            "{info:?}"
        );
        assert!(
            info.resolution_ns >= 1.0 && info.resolution_ns < 1e6,
            "{info:?}"
        );
        assert!(info.min_batch() >= Duration::from_micros(50));
    }
}
