//! The CoMet kernels' estimates for the run plan ([`crate::kernels::work`]
//! says how they count): each a function its `KernelSpec` carries. The
//! collectives sweep the processor counts of
//! [`collective_processors`](crate::kernels::effort::collective_processors)
//! up to the plan's largest.

use super::super::effort::collective_processors;
use super::super::work::{Budgets, Estimate, LOADED_HANDOVER_S, LOADED_OVERRUN, per_p_teams};

/// `comet-echo`: the pairs' curves, then the chain of `hops + 1` ranks.
pub(super) fn echo(b: &Budgets<'_>) -> Estimate {
    let hops = b.effort.comet_echo_hops;
    let (dense, coarse) = match &b.config.sizes {
        Some(s) => (s.len(), s.len()),
        None => (
            b.effort.comet_echo_sizes.len(),
            b.effort.comet_coarse_sizes.len(),
        ),
    };
    let classes = b.shape.topology.pairs_by_class(b.shape.cpus).len().max(1);
    let chain = b.batched(b.t * (hops * coarse) as f64);
    Estimate::pair(
        b.batched(b.t * (classes * dense) as f64)
            .and(if hops + 1 > b.cpus {
                chain.shared(b.trials)
            } else {
                chain
            })
            .plus(0.0, classes + 1)
            .and(b.around()),
    )
}

/// `comet-exchange`: every size per transport on one team.
pub(super) fn exchange(b: &Budgets<'_>) -> Estimate {
    let sizes = b.user(b.effort.comet_echo_sizes);
    Estimate::pair(
        b.batched(b.t * sizes.len() as f64)
            .plus(0.0, 1)
            .and(b.around()),
    )
}

/// `comet-contention`: the unloaded curve on a pair, then the sizes on a
/// team of four under no load, 50 % and 90 %.
pub(super) fn contention(b: &Budgets<'_>) -> Estimate {
    let sizes = b.user(b.effort.comet_coarse_sizes);
    let curve = b.effort.comet_echo_sizes.len();
    let shared = 4 > b.cpus;
    let sizes = sizes.len() as f64;
    let (unloaded, loaded) = (b.batched(b.t * sizes), b.batched(2.0 * b.t * sizes));
    let team = match shared {
        true => {
            let handovers = loaded.calibrations * (3 * b.trials + 3) as f64;
            unloaded
                .shared(b.trials)
                .and(loaded.overrun(LOADED_OVERRUN))
                .plus(handovers * LOADED_HANDOVER_S, 0)
        }
        false => unloaded.and(loaded),
    };
    Estimate::pair(
        b.batched(b.t * curve as f64)
            .and(team)
            .plus(0.0, 2)
            .and(b.around()),
    )
}

/// `comet-overlap`: every size by every length, synchronous then
/// asynchronous.
pub(super) fn overlap(b: &Budgets<'_>) -> Estimate {
    let sizes = b.user(b.effort.comet_overlap_sizes);
    let n = 2 * sizes.len() * b.effort.comet_overlap_lengths.len();
    Estimate::pair(b.batched(b.t * n as f64).plus(0.0, 1).and(b.around()))
}

/// A collective of `params` points per algorithm: two algorithms, a team
/// per processor count.
fn collective(b: &Budgets<'_>, params: usize) -> Estimate {
    let ps = collective_processors(b.config.quick, b.processors_up_to());
    let teams = 2 * b.t as usize * ps.len();
    let per_p = 2.0 * b.t * params as f64;
    let work = per_p_teams(&ps, b.cpus, b.trials, |_| b.batched(per_p))
        .plus(0.0, teams)
        .and(b.around());
    Estimate::over(ps, work)
}

/// `comet-broadcast`: its sizes.
pub(super) fn broadcast(b: &Budgets<'_>) -> Estimate {
    let params = match &b.config.sizes {
        Some(s) => s.len(),
        None => b.effort.comet_coarse_sizes.len(),
    };
    collective(b, params)
}

/// `comet-global-sum`: its vector lengths.
pub(super) fn global_sum(b: &Budgets<'_>) -> Estimate {
    let params = match &b.config.sizes {
        Some(s) => s.len(),
        None => b.effort.comet_sum_lengths.len(),
    };
    collective(b, params)
}

/// `comet-barrier`: central, dissemination per transport, std: a point per
/// processor count.
pub(super) fn barrier(b: &Budgets<'_>) -> Estimate {
    let ps = collective_processors(b.config.quick, b.processors_up_to());
    let kinds = 2 + b.t as usize;
    let work = per_p_teams(&ps, b.cpus, b.trials, |_| b.batched(kinds as f64))
        .plus(0.0, kinds * ps.len())
        .and(b.around());
    Estimate::over(ps, work)
}

/// A matrix kernel of `ops` operations over the grid's processor counts
/// and local orders. Its plan entry is a pair's: the processor counts it
/// sweeps are the effort's, not sampled.
fn matrix(b: &Budgets<'_>, ops: usize) -> Estimate {
    let ps = b.effort.comet_matrix_processors;
    let teams = ops * b.t as usize * ps.len();
    let per_p = (ops * b.t as usize * b.effort.comet_local_orders.len()) as f64;
    Estimate::pair(
        per_p_teams(ps, b.cpus, b.trials, |_| b.batched(per_p))
            .plus(0.0, teams)
            .and(b.around()),
    )
}

/// `comet-update-guard`: one operation.
pub(super) fn update_guard(b: &Budgets<'_>) -> Estimate {
    matrix(b, 1)
}

/// `comet-transpose`: one operation.
pub(super) fn transpose(b: &Budgets<'_>) -> Estimate {
    matrix(b, 1)
}

/// `comet-shift`: north and east.
pub(super) fn shift(b: &Budgets<'_>) -> Estimate {
    matrix(b, 2)
}

/// `comet-row-col-broadcast`: a row and a column.
pub(super) fn row_col_broadcast(b: &Budgets<'_>) -> Estimate {
    matrix(b, 2)
}
