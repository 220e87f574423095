//! CoMet's matrix kernels between MPI processes (`--transport mpi`, built with
//! `--features mpi`): the P processes of the world form the kernel's processor
//! grid (section 3.3), each owning its block of the distributed matrix, and
//! run the same sweep as the threads do ([`MatrixBody`], generic over the
//! endpoint): every point set up afresh, verified element by element on every
//! rank before and after timing, timed on rank 0 over the local orders.
//!
//! Only P that makes one of section 3.3's grids runs (`sqrt(P) x sqrt(P)` or
//! `sqrt(P/2) x sqrt(2P)`: 2, 4, 8, 9, 16, 18, ...); another world is refused
//! before anything runs ([`grid_refusal`]). Sends are buffered (two whole
//! blocks per peer), as the thread transports are for these kernels, since
//! in a shift or transpose two ranks send each other a block at once.

use super::block::MatrixOp;
use super::grid::{MatrixBody, add_points, finish, forms_grid, local_orders};
use crate::kernels::{KernelError, RunContext};
use crate::results::KernelResult;
use crate::team::mpi::Processes;

/// The transport name the results carry.
const TRANSPORT: &str = "mpi";

/// Why kernel `kernel` cannot form its grid from `p` processes, if it cannot.
pub(crate) fn grid_refusal(kernel: &str, p: usize) -> Option<String> {
    (!forms_grid(p)).then(|| {
        format!(
            "kernel {kernel} over MPI needs a number of processes that forms CoMet's processor grid (section 3.3: P = k^2 for k x k, or 2 k^2 for k x 2k: 2, 4, 8, 9, 16, 18, ...); this world has {p}"
        )
    })
}

/// Runs `ops` of kernel `kernel` on the world's processes: one result per
/// operation on rank 0 (transport `mpi`, the team's placement and CPUs), a
/// point per local order and the fits of the thread version at P = the
/// number of processes; nothing on the other ranks.
pub(super) fn run(
    ctx: &RunContext<'_>,
    procs: &Processes,
    kernel: &str,
    ops: &[MatrixOp],
) -> Result<Vec<KernelResult>, KernelError> {
    let p = procs.size();
    if let Some(reason) = grid_refusal(kernel, p) {
        return Err(KernelError::NotRunnable {
            kernel: kernel.into(),
            reason,
        });
    }
    let dims = local_orders(ctx.config.quick);
    ctx.progress.begin(kernel, (ops.len() * dims.len()) as u64);
    let mut out = Vec::new();
    for &op in ops {
        let body = MatrixBody::new(kernel, op, p, &dims);
        let samples = crate::kernels::comet::over_mpi::sweep(ctx, procs, &body, true)?;
        if procs.rank() != 0 {
            continue;
        }
        let mut r = KernelResult::new(op.name(), "comet", procs.placement(), procs.cpus())
            .with_transport(Some(TRANSPORT))
            .with_ranks(p);
        let mut mins = Vec::with_capacity(samples.len());
        add_points(&mut r, &mut mins, p, procs.distinct_cpus(), &samples);
        finish(&mut r, op, &mins, &[p]);
        out.push(r);
    }
    ctx.progress.end();
    Ok(out)
}
