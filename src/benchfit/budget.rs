//! How long a whole `cargo bench` takes: every group's Criterion settings in
//! one table ([`Part::settings`]), its bench count from the same grids the
//! benches loop over ([`Part::benches`]), and the wall time they add up to
//! ([`expected_s`]).
//!
//! A Criterion bench costs its warm-up and its measurement time, then its
//! analysis: Criterion bootstraps its own estimates ([`RESAMPLES`] resamples)
//! and draws their plots, which at its default of 100,000 resamples took
//! about 11 s a bench on a loaded 2-CPU machine against 1.1 s at 10,000, and
//! made most of a default pass (halfperf's own intervals come from
//! [`super::fits`], not from Criterion's). The settings keep every fit's
//! points and samples, and the vector and synchronisation benches' sampling
//! as their fits' intervals were first taken; they shorten Criterion's
//! analysis and the 8 s (3 s of warm-up, 5 of measurement) it spends by
//! default on each barrier, ping-pong and copy, whose 100 samples a bench
//! stay.

use super::fits::{barrier_processors, sync_grains, vector_lengths};
use crate::kernels::hockney::{Method, Operation};
use crate::transport::TransportKind;
use std::time::Duration;

/// Criterion's bootstrap resamples outside the quick mode (its default is
/// 100,000): the 2.5 and 97.5 percentiles of 10,000 resamples move by well
/// under a percent of the interval between runs.
pub const RESAMPLES: usize = 10_000;

/// Criterion's bootstrap resamples in the quick mode, a first look.
pub const QUICK_RESAMPLES: usize = 2_000;

/// The analysis and plots of one bench at [`RESAMPLES`], seconds: 1.1 s a
/// bench of 0.4 s measured at a load average of 10 on 2 CPUs, an upper bound.
pub const ANALYSIS_S: f64 = 0.75;

/// The analysis of one bench at [`QUICK_RESAMPLES`], seconds (an upper bound
/// as [`ANALYSIS_S`]).
pub const QUICK_ANALYSIS_S: f64 = 0.4;

/// The ping-pong bench's message sizes, bytes.
pub const PINGPONG_SIZES: [usize; 5] = [8, 64, 1024, 16 * 1024, 64 * 1024];

/// The copy bench's sizes, bytes: four, so that each alignment's line has
/// two degrees of freedom.
pub const COPY_SIZES: [usize; 4] = [1024, 4096, 8192, 16 * 1024];

/// The plain triad loops' lengths, L1-resident (the quick mode takes the
/// first and the last).
pub const PLAIN_LENGTHS: [usize; 5] = [16, 64, 256, 1024, 4096];

/// A group's part of a bench run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// CoMet's barriers, three kinds on each P.
    Barriers,
    /// Hockney's synchronisation methods, each on its grains.
    Sync,
    /// Hockney's vector operations on the vector lengths, f64 and f32.
    Vector,
    /// The plain triad loops, two loops at two SIMD levels.
    PlainLoops,
    /// The STREAM-style triad.
    Stream,
    /// The ping-pong per transport and size, and the two-flag baseline.
    PingPong,
    /// The copy a message makes, two alignments.
    Copy,
}

/// Criterion's settings of one part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Samples a bench.
    pub samples: usize,
    /// Warm-up a bench.
    pub warm_up: Duration,
    /// Measurement a bench.
    pub measurement: Duration,
}

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

impl Part {
    /// Every part, in the order `cargo bench` runs them (bench files by name).
    pub const ALL: [Part; 7] = [
        Part::Barriers,
        Part::Sync,
        Part::Vector,
        Part::PlainLoops,
        Part::Stream,
        Part::PingPong,
        Part::Copy,
    ];

    /// The part's settings. Quick: Criterion's smallest sample, 0.1 s of
    /// warm-up and 0.3 s of measurement (STREAM: 0.2 and 1 s). Default: a
    /// vector length's and a synchronisation grain's sampling as it was
    /// when their fits' intervals were first taken (20 samples in 1 and 2
    /// s after 0.3 s of warm-up), so that the intervals are no wider; 100
    /// samples a barrier, ping-pong and copy in 2 s (0.5 s a copy) after
    /// 0.5 s (0.2 s), not Criterion's 3 and 5 s; 10 STREAM passes of a
    /// vector four times the last cache in 3 s.
    pub fn settings(self, quick: bool) -> Settings {
        let (samples, warm_up, measurement) = match (quick, self) {
            (true, Part::Stream) => (10, ms(200), ms(1000)),
            (true, _) => (super::QUICK_SAMPLES, ms(100), ms(300)),
            (false, Part::Barriers | Part::PingPong) => (100, ms(500), ms(2000)),
            (false, Part::Copy) => (100, ms(200), ms(500)),
            (false, Part::Sync) => (20, ms(300), ms(2000)),
            (false, Part::Vector | Part::PlainLoops) => (20, ms(300), ms(1000)),
            (false, Part::Stream) => (10, ms(500), ms(3000)),
        };
        Settings {
            samples,
            warm_up,
            measurement,
        }
    }

    /// The part's benches on a machine of `cpus` CPUs.
    pub fn benches(self, quick: bool, cpus: usize) -> usize {
        match self {
            Part::Barriers => 3 * barrier_processors(cpus).len(),
            Part::Sync => Method::ALL
                .iter()
                .map(|&m| {
                    let (short, long) = sync_grains(m, quick);
                    short.len() + long.len()
                })
                .sum(),
            Part::Vector => {
                let precisions = if quick { 1 } else { 2 };
                Operation::ALL.len() * precisions * vector_lengths(quick).len()
            }
            Part::PlainLoops => 2 * 2 * plain_lengths(quick).len(),
            Part::Stream => 1,
            Part::PingPong => 1 + TransportKind::ALL.len() * PINGPONG_SIZES.len(),
            Part::Copy => 2 * COPY_SIZES.len(),
        }
    }

    /// The part's expected wall time on `cpus` CPUs, seconds: per bench its
    /// warm-up, measurement and analysis.
    pub fn expected_s(self, quick: bool, cpus: usize) -> f64 {
        let s = self.settings(quick);
        let analysis = if quick { QUICK_ANALYSIS_S } else { ANALYSIS_S };
        let per_bench = s.warm_up.as_secs_f64() + s.measurement.as_secs_f64() + analysis;
        self.benches(quick, cpus) as f64 * per_bench
    }
}

/// The plain loops' lengths: all of [`PLAIN_LENGTHS`], or its first and last
/// in the quick mode.
pub fn plain_lengths(quick: bool) -> Vec<usize> {
    if quick {
        vec![PLAIN_LENGTHS[0], PLAIN_LENGTHS[PLAIN_LENGTHS.len() - 1]]
    } else {
        PLAIN_LENGTHS.to_vec()
    }
}

/// A whole `cargo bench`'s expected wall time on `cpus` CPUs, seconds,
/// without its build.
pub fn expected_s(quick: bool, cpus: usize) -> f64 {
    Part::ALL.iter().map(|p| p.expected_s(quick, cpus)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts the benches loop over, worked out by hand for 2 CPUs.
    #[test]
    fn bench_counts_on_two_cpus() {
        let count = |quick| Part::ALL.map(|p| p.benches(quick, 2));
        // Barriers: P = 2 and 4, three kinds. Sync: eight methods of 4 + 1
        // short and 4 long grains, a thread's start 3 + 3 (quick: one of each
        // fewer). Vector: 4 operations, 8 paper lengths and 14 powers of two,
        // two precisions (quick: f64, 5 and 8). Ping-pong: 2 x 5 and the flags.
        assert_eq!(count(false), [6, 78, 176, 20, 1, 11, 8]);
        assert_eq!(count(true), [6, 60, 52, 8, 1, 11, 8]);
        assert_eq!(Part::Barriers.benches(false, 16), 3 * 4); // 2, 4, 8, 16
        assert_eq!(Part::Barriers.benches(false, 12), 3 * 4); // 2, 4, 8, 12
    }

    /// The documented bounds: a default pass within 20 minutes, a quick one
    /// within 3, on 2 CPUs, with the analysis' upper bound.
    #[test]
    fn a_whole_pass_fits_its_bound() {
        let full = expected_s(false, 2);
        let quick = expected_s(true, 2);
        // By hand: 6 x 3.25 + 78 x 3.05 + 176 x 2.05 + 20 x 2.05 + 4.25
        // + 11 x 3.25 + 8 x 1.45 = 19.5 + 237.9 + 360.8 + 41 + 4.25 + 35.75
        // + 11.6 = 710.8 s, 11.8 min.
        assert!((full - 710.8).abs() < 0.01, "{full}");
        // 145 benches of 0.8 s and STREAM's 1.6 s.
        assert!((quick - (145.0 * 0.8 + 1.6)).abs() < 0.01, "{quick}");
        assert!(full <= 20.0 * 60.0 && quick <= 3.0 * 60.0);
    }
}
