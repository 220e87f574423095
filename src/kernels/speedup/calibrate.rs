//! Chapter IV "Validation": the simulator calibrated with this machine's message
//! costs and compared with the benchmark.
//!
//! `t_l` and `t_c` come from the kernel's own ping-pong of block-sized messages
//! between two ranks (one-way time = half the round trip, the minimum over trials of
//! the mean over a batch), fitted as `T = t_l + L t_c` (eq. 8 with `H = 1`). Every
//! pair of ranks here is one hop apart (shared memory), but the simulator knows only
//! the hypercube, ring and torus: the runs use the hypercube with `t_i = 0`, so a
//! message over `H` links costs `t_l + H L t_c` there against `t_l + L t_c` here; for
//! the small blocks of this benchmark `L t_c` is a small part of a message. Node
//! totals have the spread of the uniprocessor runs divided by `N`; no eq. 10
//! calibration term (it would be fitted to the very data it is compared with).
//!
//! The comparison is the thesis's paired difference t test at alpha = 0.1 (Appendix
//! D) on the mean benchmark time and the mean simulated time of each (load, N).

use std::time::Instant;

use crate::model::fit::{LineFit, fit_line};
use crate::team::{RankError, Team};
use crate::transport::{Endpoint, Transport};

/// Round trips per batch.
const REPS: usize = 64;
/// Batches; the smallest mean is kept.
const TRIALS: usize = 5;

/// One-way time of each size, ms, by ping-pong between the two ranks of `team`.
pub(super) fn pingpong_ms<T: Transport + 'static>(
    team: &Team,
    sizes: &[usize],
) -> Result<Vec<f64>, crate::kernels::KernelError> {
    let max = sizes.iter().copied().max().unwrap_or(8);
    let eps = T::endpoints(team.control(), &super::transport_config::<T>(max));
    let per_rank = team.run("speedup-pingpong", eps, |rc, ep| {
        let mut buf = vec![0u8; max];
        let mut out = Vec::with_capacity(sizes.len());
        for &size in sizes {
            let mut best = f64::INFINITY;
            for _ in 0..TRIALS {
                let start = Instant::now();
                batch(rc.rank, ep, &mut buf[..size])?;
                let one_way = start.elapsed().as_secs_f64() * 1e3 / (2 * REPS) as f64;
                best = best.min(one_way);
            }
            out.push(best);
        }
        Ok::<_, RankError>(out)
    })?;
    Ok(per_rank.into_iter().next().unwrap_or_default())
}

#[inline(never)]
fn batch<E: Endpoint>(rank: usize, ep: &mut E, buf: &mut [u8]) -> Result<(), RankError> {
    for _ in 0..REPS {
        if rank == 0 {
            ep.send(1, buf)?;
            ep.recv(1, buf)?;
        } else {
            ep.recv(0, buf)?;
            ep.send(0, buf)?;
        }
    }
    std::hint::black_box(&mut *buf);
    Ok(())
}

/// `T = t_l + L t_c` over the sizes: intercept `t_l` (ms), slope `t_c` (ms/byte).
pub(super) fn fit_costs(sizes: &[usize], one_way_ms: &[f64]) -> Option<LineFit> {
    let x: Vec<f64> = sizes.iter().map(|&s| s as f64).collect();
    fit_line(&x, one_way_ms).ok()
}
