//! CoMet's matrix kernels (section 2.2.2; implementation in section 3.3; results
//! in section 4.2, Figs. 28-31): operations on a two-dimensional block-decomposed
//! matrix with a one-element guard wrapper over a processor grid. Every point is
//! set up with known values and verified element by element before and after
//! timing; a failed verification is an error of the kernel.
//!
//! - `comet-update-guard`: fill the N, S, E, W guard strips from the neighbours,
//!   packing overlapped with the posted sends (Fig. 15);
//! - `comet-shift`: shift the matrix one block north and one block east (Fig. 12);
//! - `comet-transpose`: exchange with the transposed grid position, then transpose
//!   locally (Fig. 13);
//! - `comet-row-col-broadcast`: multicast one global row down the grid columns and
//!   one global column (packed first) along the grid rows, with acknowledgements
//!   (Figs. 14, 16).
//!
//! Between threads they sweep the processor counts (2 and 4 with `--quick`,
//! else 2, 4, 8, 9); over MPI processes (`--transport mpi`) P is the number of
//! processes, which must form one of section 3.3's grids (`over_mpi`).

mod block;
pub mod grid;
#[cfg(feature = "mpi")]
mod over_mpi;
mod row_col_broadcast;
mod shift;
mod transpose;
mod update_guard;

#[cfg(feature = "mpi")]
pub(crate) use over_mpi::grid_refusal;
pub(super) use row_col_broadcast::ROW_COL_BROADCAST;
pub(super) use shift::SHIFT;
pub(super) use transpose::TRANSPOSE;
pub(super) use update_guard::UPDATE_GUARD;

use super::super::{KernelError, RunContext};
use crate::results::KernelResult;
use grid::MatrixOp;

/// Runs the matrix kernel `name` over `processors`.
pub(super) fn run_named(
    name: &str,
    ctx: &RunContext<'_>,
    processors: &[usize],
) -> Option<Result<Vec<KernelResult>, KernelError>> {
    let ops: &[MatrixOp] = match name {
        update_guard::NAME => update_guard::OPS,
        shift::NAME => shift::OPS,
        transpose::NAME => transpose::OPS,
        row_col_broadcast::NAME => row_col_broadcast::OPS,
        _ => return None,
    };
    Some(grid::sweep(ctx, name, ops, processors))
}

/// The kernel's run between MPI processes, which its `OverMpi` names (here,
/// so that the kernels' files do not import `over_mpi`, which imports
/// `grid`, which calls them).
#[cfg(feature = "mpi")]
pub(super) fn run_over_mpi(
    ctx: &RunContext<'_>,
    procs: &crate::team::mpi::Processes,
    kernel: &str,
    ops: &[MatrixOp],
) -> Result<Vec<KernelResult>, KernelError> {
    over_mpi::run(ctx, procs, kernel, ops)
}

/// The kernel's run between threads, over the processor counts of
/// [`grid::processor_counts`] (over MPI processes the registry runs the
/// kernel's `run_over_mpi` instead).
pub(super) fn run(
    ctx: &RunContext<'_>,
    kernel: &str,
    ops: &[MatrixOp],
) -> Result<Vec<KernelResult>, KernelError> {
    crate::kernels::harness::probe::around(ctx, || {
        grid::sweep(ctx, kernel, ops, &grid::processor_counts(ctx.config.quick))
    })
}
