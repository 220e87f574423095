//! Lamanna's benchmark between MPI processes (`--transport mpi`, built with
//! `--features mpi`): the rank body of the thread version ([`rank_body`],
//! generic over the endpoint) on groups of the world's first `N` processes,
//! `N` = 1 up to the world's size (those that divide the matrix order), so
//! that one job gives the several `N` that eq. 13 needs; the processes outside
//! a group sleep at a barrier until it ends ([`Processes::run_group`]). Each
//! group's rank sends its per-run times to rank 0 after the runs, outside the
//! timed part, and rank 0 forms the thesis's totals and the fit as between
//! threads. Sends are buffered (two blocks per peer), so the exchange's
//! `try_send` of a whole block goes without waiting for its receiver, and its
//! `probe` is `MPI_Iprobe`.

use super::{
    NAME, RankTimes, SPEEDUP, SpeedupPlan, f64_bytes, f64_bytes_mut, finish, matrix, rank_body,
    run_totals,
};
use crate::control::RankError;
use crate::kernels::{KernelError, RunContext};
use crate::results::KernelResult;
use crate::team::mpi::Processes;
use crate::transport::Endpoint;

/// The transport name the results carry.
const TRANSPORT: &str = "mpi";

/// The rank counts one world of `world` processes gives for matrix order
/// `order`: 1 to `world`, those dividing the order.
fn group_sizes(order: usize, world: usize) -> Vec<usize> {
    (1..=world).filter(|&n| order.is_multiple_of(n)).collect()
}

/// The benchmark over the world's processes: on rank 0 one result with the
/// points and eq. 13 fits of the thread version, over `N` = 1 up to the world's
/// size; nothing on the other ranks.
pub(super) fn run(
    ctx: &RunContext<'_>,
    procs: &Processes,
) -> Result<Vec<KernelResult>, KernelError> {
    let world = procs.size();
    let mut plan = SpeedupPlan::for_run(ctx);
    plan.processors = group_sizes(plan.order, world);
    let m = plan.order;
    let a = matrix::matrix_a(m);
    let want = matrix::serial_product(&a, m);
    ctx.progress.begin(NAME, plan.processors.len() as u64);
    let mut totals = Vec::with_capacity(plan.processors.len());
    for &n in &plan.processors {
        ctx.progress.step(&format!("{TRANSPORT} N={n}"));
        let block_bytes = m / n * m * std::mem::size_of::<f64>();
        let per_rank = procs.run_group(NAME, n, Some(block_bytes), |rc, ep| {
            let times = rank_body(rc, ep, &plan, &a, &want)?;
            gather_times(ep, &times)
        })?;
        if let Some(per_rank) = per_rank.filter(|_| procs.rank() == 0) {
            totals.push(run_totals(&per_rank, &plan));
        }
    }
    ctx.progress.end();
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    if procs.rank() != 0 {
        return Ok(Vec::new());
    }
    let mut result = KernelResult::new(NAME, SPEEDUP.method, procs.placement(), procs.cpus())
        .with_transport(Some(TRANSPORT))
        .with_ranks(plan.processors.last().copied().unwrap_or(1));
    finish(&mut result, &plan, &totals, procs.distinct_cpus());
    result.warnings.push(format!(
        "over MPI: N = {:?}, groups of the first N of this world's {world} processes (the others sleep at a barrier); eq. 13 is fitted over these N only, so a world of more processes fits it over more",
        plan.processors
    ));
    result.warnings.push(
        "over MPI: no simulation (its calibration measures message latency over chains of threads, which does not run between processes)".into(),
    );
    Ok(vec![result])
}

/// Every rank's times at rank 0, rank order (the others get an empty list):
/// each sends its `(computation, messages)` pairs as doubles.
fn gather_times<E: Endpoint>(
    ep: &mut E,
    times: &[RankTimes],
) -> Result<Vec<Vec<RankTimes>>, RankError> {
    let flat: Vec<f64> = times
        .iter()
        .flat_map(|t| [t.computation_ms, t.messages_ms])
        .collect();
    if ep.rank() != 0 {
        ep.send(0, f64_bytes(&flat))?;
        return Ok(Vec::new());
    }
    let mut all = vec![times.to_vec()];
    let mut buf = vec![0.0; flat.len()];
    for from in 1..ep.size() {
        let len = ep.recv(from, f64_bytes_mut(&mut buf))?;
        if len != std::mem::size_of_val(buf.as_slice()) {
            return Err(RankError::Failed(format!(
                "rank {from} sent {len} bytes of times, expected {}",
                std::mem::size_of_val(buf.as_slice())
            )));
        }
        all.push(
            buf.chunks_exact(2)
                .map(|p| RankTimes {
                    computation_ms: p[0],
                    messages_ms: p[1],
                })
                .collect(),
        );
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::group_sizes;

    #[test]
    fn a_world_gives_the_rank_counts_that_divide_the_order() {
        assert_eq!(group_sizes(64, 2), vec![1, 2]);
        assert_eq!(group_sizes(64, 4), vec![1, 2, 4]);
        assert_eq!(group_sizes(128, 6), vec![1, 2, 4]);
    }
}
