//! `comet-shift` (CoMet sections 2.2.2 and 3.3, Fig. 12; Fig. 29): every rank
//! sends its whole local array, guard wrapper included, to its `top` (north) or
//! `succ` (east) neighbour and receives its `bottom` or `pred` neighbour's into
//! the same array: the distributed matrix moves one block (N/P elements in that
//! direction). A grid one rank wide in the direction shifts onto itself.

use super::super::super::{KernelError, KernelSpec, RunContext};
use super::super::common::{f64_bytes, f64_bytes_mut};
use super::block::{GUARD_UNSET, LocalMatrix, MatrixOp, value};
use crate::control::RankError;
use crate::results::KernelResult;
use crate::transport::Endpoint;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "comet-shift";

pub(in super::super) const SHIFT: KernelSpec = KernelSpec {
    name: NAME,
    method: "comet",
    paper: "Ganapati, Otto & Walpole 1994 (CoMet), sections 2.2.2 (Fig. 12), 3.3 and 4.2 (Fig. 29)",
    about: "shift a block-decomposed matrix one block north and one block east (whole local array with guard), verified, vs matrix order",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::OnGrid {
        run: crate::kernels::mpi_run!(|ctx, procs| super::run_over_mpi(ctx, procs, NAME, OPS)),
    },
    card: &[],
    run,
    plan: super::super::estimate::shift,
};

/// The direction of a shift.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    /// Upward: to `top`, from `bottom`.
    North,
    /// Sideways: to `succ`, from `pred`.
    East,
}

/// One shift.
#[inline]
pub(super) fn shift<E: Endpoint>(
    m: &mut LocalMatrix,
    ep: &mut E,
    dir: Direction,
) -> Result<(), RankError> {
    let (top, bottom, pred, succ) = m.grid.neighbours(m.rank);
    let (to, from) = match dir {
        Direction::North => (top, bottom),
        Direction::East => (succ, pred),
    };
    if to == m.rank {
        return Ok(());
    }
    ep.send(to, f64_bytes(&m.a))?;
    ep.recv(from, f64_bytes_mut(&mut m.a))?;
    Ok(())
}

/// After `k` shifts north a rank holds the block first set up `k` rows below it;
/// after `k` east, the block `k` columns to its west. The guard travels along and
/// stays unset.
pub(super) fn check(m: &LocalMatrix, dir: Direction) -> Result<(), RankError> {
    let ld = m.ld;
    let g = &m.grid;
    let (i, j) = g.pos(m.rank);
    let k = m.count as usize;
    let (si, sj) = match dir {
        Direction::North => ((i + k) % g.rows, j),
        Direction::East => (i, (j + g.cols - k % g.cols) % g.cols),
    };
    m.verify(
        match dir {
            Direction::North => "shift north",
            Direction::East => "shift east",
        },
        |r, c| value(si * ld + r - 1, sj * ld + c - 1),
        Some(&|_, _| Some(GUARD_UNSET)),
    )
}

/// The operations it times, in order.
pub(super) const OPS: &[MatrixOp] = &[MatrixOp::ShiftNorth, MatrixOp::ShiftEast];

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    super::run(ctx, NAME, OPS)
}
