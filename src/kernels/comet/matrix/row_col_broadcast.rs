//! `comet-row-col-broadcast` (CoMet sections 2.2.2 and 3.3, Figs. 14 and 16;
//! Fig. 30): the ranks holding part of global row `rows ld / 2` send their piece
//! (contiguous in the row-major local array) to every other rank of their grid
//! column, which store it over their own row of the same local index and answer
//! with an empty acknowledgement that the senders collect (Fig. 16's GOTIT); the
//! column broadcast does the same with global column `cols ld / 2` along the grid
//! rows, but the column must first be packed from its stride into a buffer and
//! unpacked at the receivers (the paper's extra cost of columns in C). The time
//! is the rate at which broadcasts can be initiated.

use super::super::super::{KernelError, KernelSpec, RunContext};
use super::super::common::{f64_bytes, f64_bytes_mut};
use super::block::{GUARD_UNSET, LocalMatrix, MatrixOp, value};
use crate::control::RankError;
use crate::results::KernelResult;
use crate::transport::Endpoint;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "comet-row-col-broadcast";

pub(in super::super) const ROW_COL_BROADCAST: KernelSpec = KernelSpec {
    name: NAME,
    method: "comet",
    paper: "Ganapati, Otto & Walpole 1994 (CoMet), sections 2.2.2 (Fig. 14), 3.3 (Fig. 16) and 4.2 (Fig. 30)",
    about: "multicast one global row down the grid columns and one packed column along the grid rows, with acknowledgements, verified, vs matrix order",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::OnGrid {
        run: crate::kernels::mpi_run!(|ctx, procs| super::run_over_mpi(ctx, procs, NAME, OPS)),
    },
    card: &[],
    run,
    plan: super::super::estimate::row_col_broadcast,
};

/// The broadcast row's owner grid row and its local array row.
fn row_of(m: &LocalMatrix) -> (usize, usize, usize) {
    let gr = m.grid.rows * m.ld / 2;
    (gr, gr / m.ld, gr % m.ld + 1)
}

/// The broadcast column's owner grid column and its local array column.
fn col_of(m: &LocalMatrix) -> (usize, usize, usize) {
    let gc = m.grid.cols * m.ld / 2;
    (gc, gc / m.ld, gc % m.ld + 1)
}

/// One row broadcast (Fig. 16).
#[inline]
pub(super) fn row_broadcast<E: Endpoint>(m: &mut LocalMatrix, ep: &mut E) -> Result<(), RankError> {
    let (ld, w) = (m.ld, m.ld + 2);
    let (_, oi, lr) = row_of(m);
    let g = &m.grid;
    let (i, j) = g.pos(m.rank);
    let row = lr * w + 1..lr * w + 1 + ld;
    if i == oi {
        for k in (0..g.rows).filter(|&k| k != oi) {
            ep.send(g.rank_at(k, j), f64_bytes(&m.a[row.clone()]))?;
        }
        for k in (0..g.rows).filter(|&k| k != oi) {
            ep.recv(g.rank_at(k, j), &mut [])?;
        }
    } else {
        let owner = g.rank_at(oi, j);
        ep.recv(owner, f64_bytes_mut(&mut m.a[row]))?;
        ep.send(owner, &[])?;
    }
    Ok(())
}

/// One column broadcast: pack, multicast along the grid row, unpack.
#[inline]
pub(super) fn col_broadcast<E: Endpoint>(m: &mut LocalMatrix, ep: &mut E) -> Result<(), RankError> {
    let w = m.ld + 2;
    let (_, oj, lc) = col_of(m);
    let (i, j) = m.grid.pos(m.rank);
    let LocalMatrix {
        grid: g,
        a,
        send_strips,
        recv_strips,
        ..
    } = m;
    if j == oj {
        let packed = &mut send_strips[0];
        for (r, x) in packed.iter_mut().enumerate() {
            *x = a[(r + 1) * w + lc];
        }
        for k in (0..g.cols).filter(|&k| k != oj) {
            ep.send(g.rank_at(i, k), f64_bytes(packed))?;
        }
        for k in (0..g.cols).filter(|&k| k != oj) {
            ep.recv(g.rank_at(i, k), &mut [])?;
        }
    } else {
        let owner = g.rank_at(i, oj);
        let packed = &mut recv_strips[0];
        ep.recv(owner, f64_bytes_mut(packed))?;
        for (r, x) in packed.iter().enumerate() {
            a[(r + 1) * w + lc] = *x;
        }
        ep.send(owner, &[])?;
    }
    Ok(())
}

/// After a row broadcast every rank's local row `lr` holds the broadcast global
/// row's elements of its columns; all else is as set up.
pub(super) fn check_row(m: &LocalMatrix) -> Result<(), RankError> {
    let ld = m.ld;
    let (gr, _, lr) = row_of(m);
    let (i, j) = m.grid.pos(m.rank);
    let done = m.count > 0;
    m.verify(
        "row_broadcast",
        |r, c| {
            let g = if done && r == lr { gr } else { i * ld + r - 1 };
            value(g, j * ld + c - 1)
        },
        Some(&|_, _| Some(GUARD_UNSET)),
    )
}

/// After a column broadcast every rank's local column `lc` holds the broadcast
/// global column's elements of its rows; all else is as set up.
pub(super) fn check_col(m: &LocalMatrix) -> Result<(), RankError> {
    let ld = m.ld;
    let (gc, _, lc) = col_of(m);
    let (i, j) = m.grid.pos(m.rank);
    let done = m.count > 0;
    m.verify(
        "col_broadcast",
        |r, c| {
            let h = if done && c == lc { gc } else { j * ld + c - 1 };
            value(i * ld + r - 1, h)
        },
        Some(&|_, _| Some(GUARD_UNSET)),
    )
}

/// The operations it times, in order.
pub(super) const OPS: &[MatrixOp] = &[MatrixOp::RowBroadcast, MatrixOp::ColBroadcast];

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    super::run(ctx, NAME, OPS)
}
