//! How long a whole `cargo bench` takes: every group's Criterion settings in
//! one table ([`Part::settings`]), its bench count from the same grids the
//! benches loop over ([`Part::benches`]), and the wall time they add up to
//! ([`expected_s`]).
//!
//! A Criterion bench costs its warm-up and its measurement time, then its
//! analysis (a synchronisation bench, whose samples are rounds of the
//! kernel, its rounds instead: [`Part::wall_per_bench_s`]): Criterion bootstraps its own estimates ([`RESAMPLES`] resamples)
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
use crate::kernels::hockney::{Element, Method, Operation};
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

/// A synchronisation sample's set-up, seconds, beside its batch: a fresh
/// team, its vectors, the probes (about 0.3 ms of them) and the batch's
/// calibration in a grain's first sample; an upper bound.
pub const SYNC_SETUP_S: f64 = 0.004;

/// Criterion's warm-up calls of a synchronisation bench at most: it doubles
/// its count of iterations from one until the times it is told (a segment's
/// time per iteration) add up to its warm-up, which takes 24 doublings for a
/// segment of 20 ns against 0.3 s.
pub const SYNC_WARM_UP_CALLS: usize = 24;

/// The kernel's batch target, seconds (`RunConfig::batch_target`): a
/// synchronisation sample's batch lasts that long.
pub fn kernel_target_s(quick: bool) -> f64 {
    if quick { 0.001 } else { 0.010 }
}

/// The ping-pong bench's message sizes, bytes.
pub const PINGPONG_SIZES: [usize; 5] = [8, 64, 1024, 16 * 1024, 64 * 1024];

/// The copy bench's sizes, bytes: four, so that each alignment's line has
/// two degrees of freedom.
pub const COPY_SIZES: [usize; 4] = [1024, 4096, 8192, 16 * 1024];

/// The plain triad loops' lengths, L1-resident (the quick mode takes the
/// first and the last).
pub const PLAIN_LENGTHS: [usize; 5] = [16, 64, 256, 1024, 4096];

/// What a pass's bench count depends on: the CPUs (the barriers' P) and
/// the data caches of the vector bench's CPU (its lengths per level).
#[derive(Debug, Clone, Copy)]
pub struct Machine<'a> {
    /// The CPUs the benches may use.
    pub cpus: usize,
    /// The vector bench CPU's data caches, `(level, bytes)`.
    pub caches: &'a [(u8, u64)],
}

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

    /// The part's benches on `machine`.
    pub fn benches(self, quick: bool, machine: &Machine<'_>) -> usize {
        match self {
            Part::Barriers => 3 * barrier_processors(machine.cpus).len(),
            Part::Sync => Method::ALL
                .iter()
                .map(|&m| {
                    let (short, long) = sync_grains(m, quick);
                    // The two shortest again, asleep.
                    let asleep = if m.two_regimes() { 2 } else { 0 };
                    short.len() + long.len() + asleep
                })
                .sum(),
            Part::Vector => {
                let precisions: &[usize] = match quick {
                    true => &[<f64 as Element>::BYTES],
                    false => &[<f64 as Element>::BYTES, <f32 as Element>::BYTES],
                };
                precisions
                    .iter()
                    .flat_map(|&bytes| Operation::ALL.map(|op| op.arrays() * bytes))
                    .map(|bpe| vector_lengths(quick, bpe, machine.caches).lengths.len())
                    .sum()
            }
            Part::PlainLoops => 2 * 2 * plain_lengths(quick).len(),
            Part::Stream => 1,
            Part::PingPong => 1 + TransportKind::ALL.len() * PINGPONG_SIZES.len(),
            Part::Copy => 2 * COPY_SIZES.len(),
        }
    }

    /// A bench's wall time before Criterion's analysis, seconds: its warm-up
    /// and measurement; for a synchronisation bench, whose samples are
    /// rounds of the kernel that tell Criterion their segment time times its
    /// count, its warm-up calls and samples each a round of
    /// [`kernel_target_s`] and [`SYNC_SETUP_S`].
    pub fn wall_per_bench_s(self, quick: bool) -> f64 {
        let s = self.settings(quick);
        match self {
            Part::Sync => {
                let round = kernel_target_s(quick) + SYNC_SETUP_S;
                (SYNC_WARM_UP_CALLS + s.samples) as f64 * round
            }
            _ => s.warm_up.as_secs_f64() + s.measurement.as_secs_f64(),
        }
    }

    /// The part's expected wall time on `machine`, seconds: per bench its
    /// wall time ([`Part::wall_per_bench_s`]) and analysis.
    pub fn expected_s(self, quick: bool, machine: &Machine<'_>) -> f64 {
        let analysis = if quick { QUICK_ANALYSIS_S } else { ANALYSIS_S };
        let per_bench = self.wall_per_bench_s(quick) + analysis;
        self.benches(quick, machine) as f64 * per_bench
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

/// A whole `cargo bench`'s expected wall time on `machine`, seconds,
/// without its build.
pub fn expected_s(quick: bool, machine: &Machine<'_>) -> f64 {
    Part::ALL.iter().map(|p| p.expected_s(quick, machine)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 2-vCPU EPYC VM's: 2 CPUs, L1d 32 KiB, L2 1 MiB, L3 32 MiB.
    const CACHES: [(u8, u64); 3] = [(1, 32 << 10), (2, 1 << 20), (3, 32 << 20)];

    fn machine() -> Machine<'static> {
        Machine {
            cpus: 2,
            caches: &CACHES,
        }
    }

    /// The counts the benches loop over, worked out by hand for that
    /// machine.
    #[test]
    fn bench_counts_on_two_cpus() {
        let count = |quick| Part::ALL.map(|p| p.benches(quick, &machine()));
        // Barriers: P = 2 and 4, three kinds. Sync: eight methods of 4 + 1
        // short and 4 long grains, a thread's start 3 + 3, and the four
        // blocking methods' and the pool's two shortest again asleep: 6 + 8
        // x 9 + 5 x 2 = 88 (quick: one short and one long fewer a method, 4
        // + 8 x 7 + 10 = 70). Vector: 4 operations in two precisions, each the 8
        // paper lengths and 6 a level in L1, L2, L3 and memory (every
        // operation's 12 to 32 bytes an element leaves room for six distinct
        // lengths a level): 8 x 32 = 256; quick f64 5 + 3 x 3 (no memory:
        // 64 MiB is not past twice the 32 MiB L3) a operation, 56.
        // Ping-pong: 2 x 5 and the flags.
        assert_eq!(count(false), [6, 88, 256, 20, 1, 11, 8]);
        assert_eq!(count(true), [6, 70, 56, 8, 1, 11, 8]);
        let big = |cpus| Machine {
            cpus,
            caches: &CACHES,
        };
        assert_eq!(Part::Barriers.benches(false, &big(16)), 3 * 4); // 2, 4, 8, 16
        assert_eq!(Part::Barriers.benches(false, &big(12)), 3 * 4); // 2, 4, 8, 12
    }

    /// The documented bounds: a default pass within 20 minutes, a quick one
    /// within 3, on that machine, with the analysis' upper bound.
    #[test]
    fn a_whole_pass_fits_its_bound() {
        let full = expected_s(false, &machine());
        let quick = expected_s(true, &machine());
        // By hand: barriers 6 x 3.25 = 19.5; sync 88 x ((24 + 20) x (0.010 +
        // 0.004) + 0.75) = 88 x 1.366 = 120.208; vector 256 x 2.05 = 524.8;
        // plain loops 20 x 2.05 = 41; STREAM 4.25; ping-pong 11 x 3.25 =
        // 35.75; copy 8 x 1.45 = 11.6: 757.108 s, 12.6 min.
        assert!((full - 757.108).abs() < 0.01, "{full}");
        // Quick: sync 70 x ((24 + 10) x 0.005 + 0.4) = 70 x 0.57 = 39.9;
        // the other 89 benches of 0.8 s and STREAM's 1.6 s.
        assert!((quick - (39.9 + 89.0 * 0.8 + 1.6)).abs() < 0.01, "{quick}");
        assert!(full <= 20.0 * 60.0 && quick <= 3.0 * 60.0);
    }

    /// The kernel's batch targets, which a synchronisation sample's batch
    /// takes: 1 ms quick, 10 ms otherwise, on a clock that allows them.
    #[test]
    fn the_sync_rounds_take_the_kernels_batch_target() {
        let clock = crate::platform::ClockInfo {
            source: "test".into(),
            read_overhead_ns: 20.0,
            resolution_ns: 10.0,
        };
        for quick in [true, false] {
            let run = crate::kernels::RunConfig {
                quick,
                ..Default::default()
            };
            assert_eq!(
                run.batch_target(&clock).as_secs_f64(),
                kernel_target_s(quick)
            );
        }
    }
}
