//! `comet-transpose` (CoMet sections 2.2.2 and 3.3, Fig. 13; Fig. 31): every rank
//! sends its local array to the rank at its transposed grid position, receives
//! the block that belongs at its own position into a buffer, and transposes it
//! locally. The paper's simple algorithm needs square blocks, which every local
//! block is here (`ld x ld`); on a square grid the partners pair up (diagonal
//! ranks keep their block), and on a `rows x cols` grid the transposed matrix
//! lies on the transposed `cols x rows` grid of the same ranks, so the exchange
//! is a permutation (on the 1 x 2 grid of P = 2 every rank keeps its block: no
//! message is needed). The timed repetitions end each transpose with the
//! dissemination barrier: rank 0 sits on the diagonal and would otherwise time
//! only its own local transpose.

use super::super::super::{KernelError, KernelSpec, RunContext};
use super::super::common::{f64_bytes, f64_bytes_mut};
use super::block::{GUARD_UNSET, LocalMatrix, MatrixOp, value};
use crate::control::RankError;
use crate::results::KernelResult;
use crate::transport::Endpoint;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "comet-transpose";

pub(in super::super) const TRANSPOSE: KernelSpec = KernelSpec {
    name: NAME,
    method: "comet",
    paper: "Ganapati, Otto & Walpole 1994 (CoMet), sections 2.2.2 (Fig. 13), 3.3 and 4.2 (Fig. 31)",
    about: "transpose a block-decomposed matrix (exchange with the transposed grid position, local transpose), verified, vs matrix order",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::OnGrid {
        run: crate::kernels::mpi_run!(|ctx, procs| super::run_over_mpi(ctx, procs, NAME, OPS)),
    },
    card: &[],
    run,
    plan: super::super::estimate::transpose,
};

/// One transpose; afterwards the layout is the transposed grid.
#[inline]
pub(super) fn transpose<E: Endpoint>(m: &mut LocalMatrix, ep: &mut E) -> Result<(), RankError> {
    let t = m.grid.transposed();
    let (i, j) = m.grid.pos(m.rank);
    let dest = t.rank_at(j, i);
    let (ti, tj) = t.pos(m.rank);
    let src = m.grid.rank_at(tj, ti);
    if dest == m.rank {
        debug_assert_eq!(src, m.rank);
        m.buf.copy_from_slice(&m.a);
    } else {
        ep.send(dest, f64_bytes(&m.a))?;
        ep.recv(src, f64_bytes_mut(&mut m.buf))?;
    }
    let w = m.ld + 2;
    for r in 1..=m.ld {
        for c in 1..=m.ld {
            m.a[r * w + c] = m.buf[c * w + r];
        }
    }
    m.grid = t;
    Ok(())
}

/// After an even number of transposes the matrix is as set up; after an odd
/// number the rank at position `(i', j')` of the transposed grid holds element
/// `(r, c)` = `A[j' ld + c][i' ld + r]`.
pub(super) fn check(m: &LocalMatrix) -> Result<(), RankError> {
    let ld = m.ld;
    let (i, j) = m.grid.pos(m.rank);
    let odd = m.count % 2 == 1;
    m.verify(
        "transpose",
        |r, c| {
            if odd {
                value(j * ld + c - 1, i * ld + r - 1)
            } else {
                value(i * ld + r - 1, j * ld + c - 1)
            }
        },
        Some(&|_, _| Some(GUARD_UNSET)),
    )
}

/// The operations it times, in order.
pub(super) const OPS: &[MatrixOp] = &[MatrixOp::Transpose];

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    super::run(ctx, NAME, OPS)
}
