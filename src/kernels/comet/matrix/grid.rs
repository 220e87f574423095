//! The block-decomposed matrix of CoMet's matrix kernels (section 2.2.2, Figs. 9
//! and 10; section 3.3): the processor grid (the "adjacency matrix"), each
//! rank's local block with its one-element guard wrapper, the setup module that
//! fills known values, the verification module that checks every element, and
//! the sweep that times an operation against the local matrix order.
//!
//! Grid shape (section 3.3): `sqrt(P) x sqrt(P)` when P is a perfect square,
//! otherwise `proc_dim2` rows by `proc_dim1 = sqrt(2P)` columns with `proc_dim1 =
//! 2 proc_dim2` (P = 2: 1 x 2; P = 8: 2 x 4); other P get the most square
//! factorisation. Mapping: Gray codes when both sides are powers of two, so that
//! grid neighbours are hypercube neighbours as on the iPSC/860 (the rank at row
//! `i`, column `j` is `gray(i) << log2(cols) | gray(j)`); row-major otherwise.
//! Neighbours wrap around (a torus): `top`, `bottom`, `pred` (west), `succ`
//! (east), as the paper names them.
//!
//! Every rank's local block is `ld x ld` doubles (the paper's local dimension)
//! inside an `(ld + 2) x (ld + 2)` row-major array whose outer ring is the guard
//! wrapper. The global matrix is `rows * ld` by `cols * ld`; element `(g, h)` has
//! the value `g * 65536 + h + 1`, so every element is distinct and exact.

use super::super::super::{KernelError, RunContext};
use super::super::common::{
    self, Check, Plan, RankBody, RankSamples, Samples, Sweep, drive, push_line,
};
pub use super::block::{GUARD_UNSET, Grid, LocalMatrix, MatrixOp, value};
use crate::control::RankError;
use crate::kernels::harness::calls::dissemination;
use crate::results::{KernelResult, Point};
use crate::team::RankCtx;
use crate::transport::Endpoint;

impl MatrixOp {
    /// Applies the operation once.
    #[inline]
    pub fn apply<E: Endpoint>(self, m: &mut LocalMatrix, ep: &mut E) -> Result<(), RankError> {
        match self {
            MatrixOp::UpdateGuard => super::update_guard::update_guard(m, ep)?,
            MatrixOp::ShiftNorth => super::shift::shift(m, ep, super::shift::Direction::North)?,
            MatrixOp::ShiftEast => super::shift::shift(m, ep, super::shift::Direction::East)?,
            MatrixOp::Transpose => super::transpose::transpose(m, ep)?,
            MatrixOp::RowBroadcast => super::row_col_broadcast::row_broadcast(m, ep)?,
            MatrixOp::ColBroadcast => super::row_col_broadcast::col_broadcast(m, ep)?,
        }
        m.count += 1;
        Ok(())
    }

    /// Checks the state after `m.count` operations since setup.
    pub fn check(self, m: &LocalMatrix) -> Result<(), RankError> {
        match self {
            MatrixOp::UpdateGuard => super::update_guard::check(m),
            MatrixOp::ShiftNorth => super::shift::check(m, super::shift::Direction::North),
            MatrixOp::ShiftEast => super::shift::check(m, super::shift::Direction::East),
            MatrixOp::Transpose => super::transpose::check(m),
            MatrixOp::RowBroadcast => super::row_col_broadcast::check_row(m),
            MatrixOp::ColBroadcast => super::row_col_broadcast::check_col(m),
        }
    }
}

#[inline(never)]
fn batch<E: Endpoint>(
    op: MatrixOp,
    m: &mut LocalMatrix,
    ep: &mut E,
    reps: u64,
) -> Result<(), RankError> {
    for _ in 0..reps {
        op.apply(m, ep)?;
        if op == MatrixOp::Transpose {
            // Ranks on the grid's diagonal keep their block and would time only
            // their local transpose: the barrier makes the test node's time that
            // of the whole transpose.
            dissemination(ep)?;
        }
    }
    Ok(())
}

/// A matrix kernel's rank body: `op` over the local orders `dims` on `grid`,
/// the same on threads and MPI processes ([`rank_sweep`]).
pub(super) struct MatrixBody<'a> {
    op: MatrixOp,
    grid: Grid,
    dims: &'a [usize],
    plan: Plan<'a>,
}

impl<'a> MatrixBody<'a> {
    /// The body of `op` (of kernel `kernel`) on `p` ranks over `dims`.
    pub(super) fn new(kernel: &'a str, op: MatrixOp, p: usize, dims: &'a [usize]) -> Self {
        let max_ld = dims.iter().copied().max().unwrap_or(1);
        MatrixBody {
            op,
            grid: Grid::for_processors(p),
            dims,
            plan: Plan {
                kernel,
                params: dims.iter().map(|&d| d as u64).collect(),
                ranks: p,
                max_bytes: op.max_message(max_ld),
                label: Box::new(move |d| format!("{} P={p} ld={d}", op.name())),
            },
        }
    }
}

impl<E: Endpoint> RankBody<E> for MatrixBody<'_> {
    fn plan(&self) -> &Plan<'_> {
        &self.plan
    }

    fn run(&self, rc: &RankCtx<'_>, ep: &mut E, sweep: &Sweep<'_>) -> RankSamples {
        rank_sweep(rc, ep, sweep, self.op, &self.grid, self.dims)
    }
}

/// One rank's part of the sweep of `op` over the local orders `dims` on
/// `grid` (threads and MPI processes alike): the command-driven sweep, every
/// point set up afresh and verified before and after timing; rank 0's samples.
pub(super) fn rank_sweep<E: Endpoint>(
    rc: &RankCtx<'_>,
    ep: &mut E,
    sweep: &Sweep<'_>,
    op: MatrixOp,
    grid: &Grid,
    dims: &[usize],
) -> Result<Vec<Samples>, RankError> {
    let max_ld = dims.iter().copied().max().unwrap_or(1);
    let first = dims.first().copied().unwrap_or(1);
    let mut m = LocalMatrix::setup(grid.clone(), rc.rank, first, max_ld);
    drive(
        rc,
        ep,
        sweep,
        &mut m,
        |ep, m, ld, check| {
            if check == Check::Before {
                m.grid = grid.clone();
                m.reset(ld as usize);
                op.check(m)?;
                op.apply(m, ep)?;
            }
            op.check(m)
        },
        |ep, m, _, reps| batch(op, m, ep, reps),
    )
}

/// The local orders the matrix kernels sweep.
pub(super) fn local_orders(quick: bool) -> Vec<usize> {
    crate::kernels::effort::of(quick)
        .comet_local_orders
        .to_vec()
}

/// Times `ops` over the local dimensions and processor counts, every transport.
pub(super) fn sweep(
    ctx: &RunContext<'_>,
    kernel: &str,
    ops: &[MatrixOp],
    processors: &[usize],
) -> Result<Vec<KernelResult>, KernelError> {
    common::require_two_cpus(ctx, kernel)?;
    let dims = local_orders(ctx.config.quick);
    common::sweep_processors(
        ctx,
        kernel,
        ops,
        MatrixOp::name,
        processors,
        dims.len(),
        |team, op, t| {
            let body = MatrixBody::new(op.name(), op, team.size(), &dims);
            crate::with_transport!(t, common::sweep_team(ctx, team, &body))
        },
        |r, mins, p, samples| add_points(r, mins, p, ctx.cpus().len(), samples),
        |r, op, mins| finish(r, op, mins, processors),
    )
}

/// A point per sample of a sweep on `p` ranks (virtual when more than `cpus`),
/// with its minimum time added to `mins` as `(P, local order, min)`.
pub(super) fn add_points(
    r: &mut KernelResult,
    mins: &mut Vec<(usize, usize, f64)>,
    p: usize,
    cpus: usize,
    samples: &[Samples],
) {
    let grid = Grid::for_processors(p);
    for s in samples {
        let ld = s.param as usize;
        let point = Point::new()
            .with("processors", p as f64)
            .with("grid_rows", grid.rows as f64)
            .with("grid_cols", grid.cols as f64)
            .with("virtual", f64::from(p > cpus))
            .with("local_order", ld as f64)
            .with("matrix_order", (grid.rows * ld) as f64)
            .with("verified", 1.0)
            .with("reps", s.reps as f64);
        let (point, min) = common::stats_point(
            point,
            "time_ns",
            &s.samples_ns,
            &format!("P = {p}, local order {ld}"),
            &mut r.warnings,
        );
        r.points.push(point);
        mins.push((p, ld, min));
    }
}

/// The fits of `op`'s minimum times per P (a line in the block's bytes for the
/// operations that move whole blocks, else in the local order) and the note
/// on verification and the grids of `processors`.
pub(super) fn finish(
    r: &mut KernelResult,
    op: MatrixOp,
    mins: &[(usize, usize, f64)],
    processors: &[usize],
) {
    let mut ps: Vec<usize> = mins.iter().map(|m| m.0).collect();
    ps.dedup();
    for p in ps {
        let pts = mins.iter().filter(|m| m.0 == p);
        let (x, y): (Vec<f64>, Vec<f64>) = if op.quadratic() {
            pts.map(|m| (((m.1 + 2) * (m.1 + 2) * 8) as f64, m.2))
                .unzip()
        } else {
            pts.map(|m| (m.1 as f64, m.2)).unzip()
        };
        if op.quadratic() {
            push_line(
                &mut r.fits,
                &mut r.warnings,
                &format!("t = t_startup + B t_per_byte, B = 8 (ld + 2)^2, at P = {p}"),
                "block_bytes",
                "time_ns.min",
                &x,
                &y,
                ("t_startup_ns", "t_per_byte_ns"),
            );
        } else {
            push_line(
                &mut r.fits,
                &mut r.warnings,
                &format!("t = a + b ld at P = {p}"),
                "local_order",
                "time_ns.min",
                &x,
                &y,
                ("a_ns", "b_ns_per_order"),
            );
        }
    }
    let grids: Vec<String> = processors
        .iter()
        .map(|&p| {
            let g = Grid::for_processors(p);
            format!(
                "P = {p}: {} x {} {}",
                g.rows,
                g.cols,
                if g.gray { "Gray-coded" } else { "row-major" }
            )
        })
        .collect();
    r.warnings.push(format!(
        "every point verified element by element before and after timing; grids: {}",
        grids.join(", ")
    ));
}

/// Whether `p` processors form one of section 3.3's grids: `sqrt(P) x
/// sqrt(P)`, or `sqrt(P/2) x sqrt(2P)` (the others get the most square
/// factorisation, which the paper does not define).
pub fn forms_grid(p: usize) -> bool {
    let square = |n: usize| n.isqrt() * n.isqrt() == n;
    p >= 2 && (square(p) || (p.is_multiple_of(2) && square(p / 2)))
}

/// The processor counts of the matrix kernels.
pub(super) fn processor_counts(quick: bool) -> Vec<usize> {
    crate::kernels::effort::of(quick)
        .comet_matrix_processors
        .to_vec()
}

#[cfg(test)]
mod tests {
    use super::super::block::gray;
    use super::*;

    #[test]
    fn grids_follow_section_3_3_and_gray_neighbours_are_hypercube_neighbours() {
        let g = Grid::for_processors(8);
        assert_eq!((g.rows, g.cols, g.gray), (2, 4, true));
        let g2 = Grid::for_processors(2);
        assert_eq!((g2.rows, g2.cols), (1, 2));
        let g9 = Grid::for_processors(9);
        assert_eq!((g9.rows, g9.cols, g9.gray), (3, 3, false));
        let g16 = Grid::for_processors(16);
        for r in 0..16 {
            let (t, b, w, e) = g16.neighbours(r);
            for n in [t, b, w, e] {
                assert_eq!((r ^ n).count_ones(), 1, "{r} and {n}");
            }
            assert_eq!(g16.rank_at(g16.pos(r).0, g16.pos(r).1), r);
        }
    }

    #[test]
    fn only_section_3_3s_processor_counts_form_a_grid() {
        let formed: Vec<usize> = (0..=20).filter(|&p| forms_grid(p)).collect();
        assert_eq!(formed, vec![2, 4, 8, 9, 16, 18]);
        for p in formed {
            let g = Grid::for_processors(p);
            assert!(g.cols == g.rows || g.cols == 2 * g.rows, "{p}: {g:?}");
        }
    }

    #[test]
    fn a_wrong_element_fails_verification() {
        for op in [
            MatrixOp::UpdateGuard,
            MatrixOp::ShiftNorth,
            MatrixOp::ShiftEast,
            MatrixOp::Transpose,
            MatrixOp::RowBroadcast,
            MatrixOp::ColBroadcast,
        ] {
            let mut m = LocalMatrix::setup(Grid::for_processors(4), 3, 5, 5);
            op.check(&m).expect("fresh setup verifies");
            let k = m.idx(2, 3);
            m.a[k] += 1.0;
            let err = op.check(&m).expect_err("corrupted element");
            assert!(err.to_string().contains("verification failed"), "{err}");
        }
    }

    #[test]
    fn gray_code_neighbours_differ_in_one_bit() {
        for i in 0..64 {
            assert_eq!((gray(i) ^ gray((i + 1) % 64)).count_ones(), 1);
        }
        assert_eq!(
            (0..8).map(gray).collect::<Vec<_>>(),
            vec![0, 1, 3, 2, 6, 7, 5, 4]
        );
    }
}
