//! `comet-update-guard` (CoMet section 2.2.2 and Figs. 11 and 15): every rank
//! packs its northmost, southmost, eastmost and westmost interior rows and columns
//! and posts each to the neighbour on that side as soon as it is packed (the
//! packing of the next strip overlaps the send of the last), posts the four
//! receives, and waits; then it writes the received strips into its guard
//! wrapper: the north guard from `top`'s southmost row, the south guard from
//! `bottom`'s northmost, the west guard from `pred`'s eastmost column, the east
//! guard from `succ`'s westmost. Receives are posted bottom, top, pred, succ, the
//! order in which a neighbour that is both `top` and `bottom` (a grid two rows
//! high) sends them. A side of the grid one rank wide wraps onto the rank itself
//! (a local copy). Corners are not exchanged.

use super::super::super::{KernelError, KernelSpec, RunContext};
use super::super::common::{f64_bytes, f64_bytes_mut};
use super::block::{GUARD_UNSET, LocalMatrix, MatrixOp, value};
use crate::control::RankError;
use crate::results::KernelResult;
use crate::transport::Endpoint;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "comet-update-guard";

pub(in super::super) const UPDATE_GUARD: KernelSpec = KernelSpec {
    name: NAME,
    method: "comet",
    paper: "Ganapati, Otto & Walpole 1994 (CoMet), sections 2.2.2 (Fig. 11), 3.3 (Fig. 15) and 4.2 (Fig. 28)",
    about: "update the N/S/E/W guard wrapper of a block-decomposed matrix from the grid neighbours (non-blocking, packing overlapped), verified, vs matrix order",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::OnGrid {
        run: crate::kernels::mpi_run!(|ctx, procs| super::run_over_mpi(ctx, procs, NAME, OPS)),
    },
    card: &[],
    run,
    plan: super::super::estimate::update_guard,
};

/// One guard update (Fig. 15).
#[inline]
pub(super) fn update_guard<E: Endpoint>(m: &mut LocalMatrix, ep: &mut E) -> Result<(), RankError> {
    let (ld, me) = (m.ld, m.rank);
    let w = ld + 2;
    let (top, bottom, pred, succ) = m.grid.neighbours(me);
    let LocalMatrix {
        a,
        send_strips,
        recv_strips,
        ..
    } = m;
    let [north, south, east, west] = send_strips;
    north.copy_from_slice(&a[w + 1..w + 1 + ld]);
    let sn = (top != me)
        .then(|| ep.isend(top, f64_bytes(north)))
        .transpose()?;
    south.copy_from_slice(&a[ld * w + 1..ld * w + 1 + ld]);
    let ss = (bottom != me)
        .then(|| ep.isend(bottom, f64_bytes(south)))
        .transpose()?;
    for (r, e) in east.iter_mut().enumerate() {
        *e = a[(r + 1) * w + ld];
    }
    let se = (succ != me)
        .then(|| ep.isend(succ, f64_bytes(east)))
        .transpose()?;
    for (r, x) in west.iter_mut().enumerate() {
        *x = a[(r + 1) * w + 1];
    }
    let sw = (pred != me)
        .then(|| ep.isend(pred, f64_bytes(west)))
        .transpose()?;
    let [from_bottom, from_top, from_pred, from_succ] = recv_strips;
    let rb = (bottom != me)
        .then(|| ep.irecv(bottom, f64_bytes_mut(from_bottom)))
        .transpose()?;
    let rt = (top != me)
        .then(|| ep.irecv(top, f64_bytes_mut(from_top)))
        .transpose()?;
    let rp = (pred != me)
        .then(|| ep.irecv(pred, f64_bytes_mut(from_pred)))
        .transpose()?;
    let rs = (succ != me)
        .then(|| ep.irecv(succ, f64_bytes_mut(from_succ)))
        .transpose()?;
    for s in [sn, ss, se, sw].into_iter().flatten() {
        ep.wait_send(s)?;
    }
    for r in [rb, rt, rp, rs].into_iter().flatten() {
        ep.wait_recv(r)?;
    }
    // A side one rank wide wraps onto this rank.
    if bottom == me {
        from_bottom.copy_from_slice(north);
    }
    if top == me {
        from_top.copy_from_slice(south);
    }
    if pred == me {
        from_pred.copy_from_slice(east);
    }
    if succ == me {
        from_succ.copy_from_slice(west);
    }
    a[1..=ld].copy_from_slice(from_top);
    a[(ld + 1) * w + 1..(ld + 1) * w + 1 + ld].copy_from_slice(from_bottom);
    for r in 0..ld {
        a[(r + 1) * w] = from_pred[r];
        a[(r + 1) * w + ld + 1] = from_succ[r];
    }
    Ok(())
}

/// Interior unchanged; after an update every guard strip holds the wrapped
/// neighbouring global elements; corners never written.
pub(super) fn check(m: &LocalMatrix) -> Result<(), RankError> {
    let ld = m.ld;
    let g = &m.grid;
    let (i, j) = g.pos(m.rank);
    let (rows_total, cols_total) = (g.rows * ld, g.cols * ld);
    let updated = m.count > 0;
    let guard = |r: usize, c: usize| -> Option<f64> {
        let corner = (r == 0 || r == ld + 1) && (c == 0 || c == ld + 1);
        if corner {
            return Some(GUARD_UNSET);
        }
        if !updated {
            return Some(GUARD_UNSET);
        }
        // Global row and column of array element (r, c), wrapping.
        let gr = (i * ld + r + rows_total - 1) % rows_total;
        let gc = (j * ld + c + cols_total - 1) % cols_total;
        Some(value(gr, gc))
    };
    m.verify(
        "update_guard",
        |r, c| value(i * ld + r - 1, j * ld + c - 1),
        Some(&guard),
    )
}

/// The operations it times, in order.
pub(super) const OPS: &[MatrixOp] = &[MatrixOp::UpdateGuard];

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    super::run(ctx, NAME, OPS)
}
