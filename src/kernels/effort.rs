//! The effort policy: how much every kernel measures, as one struct of named
//! budgets with two values, [`QUICK`] (`run --quick`) and [`FULL`]. The
//! kernels read their points, rounds, trials, batch target, sizes and
//! repetitions here ([`RunConfig::effort`](super::RunConfig::effort)) instead
//! of writing `if quick { a } else { b }` in place, and the plan
//! ([`super::plan`]) computes each kernel's time from the same fields, so
//! that a budget changed here changes the run and its estimate together.
//!
//! The fields, by the papers they come from:
//! - `trials`, `batch_target`: scibench's NUMREPS and `getreps` (trials per
//!   point; the least length of a timed batch, so that the clock's resolution
//!   costs well under 0.1 %); every batched kernel reads them.
//! - `single_round_trips`: ping-pong's round trips timed one at a time per
//!   size, for the distribution beside the batches' minimum.
//! - `sync_points`: Hockney's grains per synchronisation method (s_1/2 and
//!   t0 are fitted over them); `vector_*`: Hockney's vector lengths (the
//!   paper's lengths in steps of `vector_paper_step` up to 400, then
//!   `vector_per_level` lengths in every memory level up to
//!   `vector_max_working_set` bytes).
//! - `decomposition_*`: Krumme and Greenfield's repetitions of the whole
//!   experiment, NOTIMES (timed iterations per experiment and size), and the
//!   message sizes.
//! - `interference_*`: the length of one computation under traffic, the
//!   trials, and the timed computations of each.
//! - `comet_*`: CoMet's echo sizes (dense, for breakpoints), the coarse
//!   sizes of the kernels that repeat them per load or processor count, the
//!   collectives' base processor counts, the matrix kernels' local orders and
//!   processor counts, the global sum's vector lengths, the overlap's sizes
//!   and vector lengths, and the echo's longest chain of hops.
//! - `sci_sizes`: scibench's size sweep of Fig. 12.
//! - `speedup_*`: Lamanna's matrix order M, loads and runs per point.
//!
//! Invariant: [`QUICK`] never measures more than [`FULL`] in any field
//! (tests/plan_check.rs checks it), and `--trials`, `--sizes` still override
//! the policy where the kernel reads them.

use std::time::Duration;

/// One value of the effort policy: every budget a kernel reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Effort {
    /// `quick` or `full`.
    pub name: &'static str,
    /// Trials per point.
    pub trials: usize,
    /// The least length of a timed batch (raised to the clock's floor).
    pub batch_target: Duration,
    /// Ping-pong's single round trips per size.
    pub single_round_trips: u64,
    /// Grains per synchronisation method (hockney-sync, hockney-program).
    pub sync_points: usize,
    /// Step of the paper's vector lengths (1..=400 elements).
    pub vector_paper_step: usize,
    /// Vector lengths per memory level beyond the paper's.
    pub vector_per_level: usize,
    /// The largest vector working set, bytes.
    pub vector_max_working_set: u64,
    /// Repetitions of the whole decomposition experiment.
    pub decomposition_repetitions: usize,
    /// Timed iterations of each decomposition experiment and size (NOTIMES).
    pub decomposition_notimes: u64,
    /// Rounds the decomposition's iterations are spread over, each block of
    /// them behind one untimed iteration (a third of a quick run's
    /// iterations at 25 rounds of two; a sixth at 10 of five).
    pub decomposition_rounds: usize,
    /// The decomposition's message sizes, bytes.
    pub decomposition_sizes: &'static [usize],
    /// One interference computation, ms.
    pub interference_duration_ms: u64,
    /// Trials of the interference kernel (unless `--trials`).
    pub interference_trials: usize,
    /// Timed computations of each interference trial.
    pub interference_reps: u64,
    /// CoMet's echo sizes, bytes.
    pub comet_echo_sizes: &'static [usize],
    /// CoMet's coarse sizes, bytes.
    pub comet_coarse_sizes: &'static [usize],
    /// The CoMet collectives' base processor counts.
    pub comet_processors: &'static [usize],
    /// The matrix kernels' local orders.
    pub comet_local_orders: &'static [usize],
    /// The matrix kernels' processor counts.
    pub comet_matrix_processors: &'static [usize],
    /// The global sum's vector lengths, doubles.
    pub comet_sum_lengths: &'static [usize],
    /// The overlap's message sizes, bytes.
    pub comet_overlap_sizes: &'static [usize],
    /// The overlap's vector lengths, doubles.
    pub comet_overlap_lengths: &'static [usize],
    /// The echo kernel's longest chain, hops.
    pub comet_echo_hops: usize,
    /// scibench's size sweep (sci-topology), bytes.
    pub sci_sizes: &'static [usize],
    /// Lamanna's matrix order M.
    pub speedup_order: usize,
    /// Lamanna's loads (units per rank count).
    pub speedup_loads: &'static [u32],
    /// Runs per (load, N).
    pub speedup_runs: usize,
}

/// `run --quick`: a suite of about 20 s on two CPUs.
pub const QUICK: Effort = Effort {
    name: "quick",
    trials: 5,
    batch_target: Duration::from_millis(1),
    single_round_trips: 2_000,
    sync_points: 10,
    vector_paper_step: 8,
    vector_per_level: 3,
    vector_max_working_set: 64 << 20,
    decomposition_repetitions: 3,
    decomposition_notimes: 50,
    decomposition_rounds: 10,
    decomposition_sizes: &[16, 1000, 2000, 65_536],
    interference_duration_ms: 10,
    interference_trials: 3,
    interference_reps: 10,
    comet_echo_sizes: &[
        0, 8, 32, 64, 100, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 85000,
    ],
    comet_coarse_sizes: &[0, 64, 1024, 8192, 65536],
    comet_processors: &[2, 4, 8],
    comet_local_orders: &[8, 16, 32, 64],
    comet_matrix_processors: &[2, 4],
    comet_sum_lengths: &[1, 16, 256, 4096],
    comet_overlap_sizes: &[0, 2536, 65536],
    comet_overlap_lengths: &[0, 10_000, 100_000],
    comet_echo_hops: 3,
    sci_sizes: &[1, 8, 64, 256, 512, 4096],
    speedup_order: 64,
    speedup_loads: &[4, 16, 64, 400],
    speedup_runs: 2,
};

/// A full run.
pub const FULL: Effort = Effort {
    name: "full",
    trials: 15,
    batch_target: Duration::from_millis(10),
    single_round_trips: 20_000,
    sync_points: 30,
    vector_paper_step: 2,
    vector_per_level: 6,
    vector_max_working_set: 2 << 30,
    decomposition_repetitions: 5,
    decomposition_notimes: 100,
    decomposition_rounds: 25,
    decomposition_sizes: &[16, 500, 1000, 1500, 2000, 4096, 16_384, 65_536],
    interference_duration_ms: 50,
    interference_trials: 5,
    interference_reps: 100,
    comet_echo_sizes: &[
        0, 8, 16, 32, 48, 64, 80, 100, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
        6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 85000,
    ],
    comet_coarse_sizes: &[0, 8, 64, 256, 1024, 4096, 16384, 65536, 85000],
    comet_processors: &[2, 4, 8, 9, 16],
    comet_local_orders: &[8, 16, 24, 32, 48, 64, 96],
    comet_matrix_processors: &[2, 4, 8, 9],
    comet_sum_lengths: &[1, 8, 64, 512, 2048, 4096, 8192],
    comet_overlap_sizes: &[0, 2536, 16384, 85000],
    comet_overlap_lengths: &[0, 1000, 10_000, 100_000, 200_000],
    comet_echo_hops: 4,
    sci_sizes: &[
        1, 8, 64, 128, 192, 256, 320, 384, 448, 512, 1024, 4096, 16384,
    ],
    speedup_order: 128,
    speedup_loads: &[2, 6, 20, 64, 256],
    speedup_runs: 5,
};

/// The policy of a run: [`QUICK`] or [`FULL`].
pub fn of(quick: bool) -> &'static Effort {
    if quick { &QUICK } else { &FULL }
}

/// c2c's pairs per kind in a quick run.
pub const C2C_QUICK_PER_KIND: usize = 2;

/// The processor counts of the CoMet collectives: the base list (2, 4, 8;
/// with 9 and 16 in a full run), then the powers of two up to `cpus`.
pub fn collective_processors(quick: bool, cpus: usize) -> Vec<usize> {
    let mut v = of(quick).comet_processors.to_vec();
    let mut p = 32;
    while p <= cpus {
        v.push(p);
        p *= 2;
    }
    v
}
