//! CoMet (Ganapati, Otto & Walpole, *CoMet: A Synthetic Benchmark for
//! Message-Passing Architectures*, 1994): communication kernels and matrix
//! kernels on a team of pinned processors.
//!
//! Basic communication kernels (section 2.2.1), analysed as in section 4.1:
//! - `comet-echo`: echo one-way time against size, per CPU distance class and per
//!   logical hop count; `t(N) = t_startup + N t_per_byte + (n - 1) h`, piecewise
//!   with breakpoints from the data; peak bandwidth and the 50% / 90% sizes.
//! - `comet-exchange`: pairwise exchange (both send, then receive).
//! - `comet-broadcast`: linear and binomial-tree broadcast, then a barrier,
//!   against size and P (and `log2 P`).
//! - `comet-global-sum`: element-wise vector sum onto every rank, recursive
//!   doubling and tree + broadcast, checked against the serial sum.
//! - `comet-barrier`: the minimum barrier time against P for a central
//!   sense-reversing barrier, a dissemination barrier and `std::sync::Barrier`.
//! - `comet-contention`: echo while two other ranks stream at the 50% and 90%
//!   peak-bandwidth sizes.
//! - `comet-overlap`: exchange + DAXPY, synchronous against asynchronous.
//!
//! Matrix kernels (section 2.2.2), in [`matrix`]: `comet-update-guard`,
//! `comet-shift`, `comet-transpose`, `comet-row-col-broadcast`, on a Gray-coded
//! processor grid, every result verified element by element.
//!
//! `halfperf run comet` runs them all. Reference, the iPSC/860 (section 4.1):
//! `t_startup` 79 us and `t_per_byte` 0.63 us below 100 bytes, 156 us and 0.41 us
//! above, `h` = 25 us, peak 2.5 MB/s, half-peak at 486 bytes, 90% near 5000 bytes.
//!
//! As in the paper, time is taken on the test node (rank 0) only, over batches of
//! repetitions with the clock's overhead subtracted, minimum over trials. Runs
//! with more processors than CPUs use virtual processors (labelled). Every kernel
//! checks its data before timing; a failed check is an error, not a warning.

mod barrier;
mod broadcast;
mod common;
mod contention;
mod echo;
mod estimate;
mod exchange;
mod global_sum;
pub mod matrix;
#[cfg(feature = "mpi")]
mod over_mpi;
mod overlap;

pub use crate::kernels::harness::calls::dissemination;
pub use barrier::barrier_time;
pub use broadcast::tree_broadcast;
pub use common::message_curve_fits;
pub use echo::hop_fit;

use super::{KernelError, KernelSpec, RunContext};

use crate::results::KernelResult;
#[cfg(feature = "mpi")]
pub(crate) use matrix::grid_refusal;

/// The CoMet kernels.
pub static KERNELS: &[KernelSpec] = &[
    echo::ECHO,
    exchange::EXCHANGE,
    broadcast::BROADCAST,
    global_sum::GLOBAL_SUM,
    barrier::BARRIER,
    contention::CONTENTION,
    overlap::OVERLAP,
    matrix::UPDATE_GUARD,
    matrix::SHIFT,
    matrix::TRANSPOSE,
    matrix::ROW_COL_BROADCAST,
];

/// Runs the CoMet kernel `name` with `processors` ranks (or counts of ranks, for
/// the kernels that sweep P), for tests and for checking a kernel on team sizes
/// other than its defaults: `comet-echo` with `processors - 1` hops at most,
/// `comet-exchange` between rank 0 and the last rank, the sweeping kernels over
/// the counts given.
pub fn run_on_processors(
    name: &str,
    ctx: &RunContext<'_>,
    processors: &[usize],
) -> Result<Vec<KernelResult>, KernelError> {
    let max = processors.iter().copied().max().unwrap_or(2);
    match name {
        echo::NAME => echo::run_with(ctx, max - 1),
        exchange::NAME => exchange::run_with(ctx, max),
        broadcast::NAME => broadcast::run_with(ctx, processors),
        global_sum::NAME => global_sum::run_with(ctx, processors),
        barrier::NAME => barrier::run_with(ctx, processors),
        contention::NAME => contention::run_with(ctx, max),
        overlap::NAME => overlap::run_with(ctx, max),
        other => matrix::run_named(other, ctx, processors).unwrap_or_else(|| {
            Err(KernelError::NotRunnable {
                kernel: name.into(),
                reason: "not a CoMet kernel".into(),
            })
        }),
    }
}
