//! The scibench kernels' estimates for the run plan ([`crate::kernels::work`]
//! says how they count): each a function its `KernelSpec` carries.

use super::super::harness::pair::c2c_pairs;
use super::super::work::{BATCH_OVERRUN, Budgets, Estimate, Work, single_round_trips};
use super::experiment::{RING_SIZES, size_sweep_experiments};

/// Per transport: every size, the pair probe, the copy probe (a quarter
/// target), all in one team.
fn pair_sweep(b: &Budgets<'_>) -> (Vec<usize>, Work) {
    let sizes = b.user(&super::pair::default_sizes());
    let apart = |points: f64| Work::calibrated_apart(points, b.trials, b.tgt);
    let w = apart(sizes.len() as f64 + 1.25).times(b.t).plus(0.0, 1);
    (sizes, w)
}

/// `pingpong`: the pair sweep, its single round trips, and the two-flag
/// baseline: its point, then per transport a transport batch and a flags
/// batch each trial, both of the flags' repetitions (the transport's batch
/// the longer by its round trip over the flags').
pub(super) fn pingpong(b: &Budgets<'_>) -> Estimate {
    let (sizes, w) = pair_sweep(b);
    let singles = single_round_trips(&sizes, b.effort.single_round_trips, b.r);
    let paired = 2.0 * b.t * b.trials as f64;
    let base = b.batched(1.0).and(Work {
        batches: paired,
        batch_targets: paired / 2.0 * (1.0 + b.r.over_flags) * BATCH_OVERRUN,
        ..Work::default()
    });
    Estimate::pair(w.plus(singles * b.t, 1).and(base))
}

/// `oneway`: the pair sweep.
pub(super) fn oneway(b: &Budgets<'_>) -> Estimate {
    Estimate::pair(pair_sweep(b).1)
}

/// `c2c`: every sampled pair (twice with `--home third`), on every CPU.
pub(super) fn c2c(b: &Budgets<'_>) -> Estimate {
    let all = b.order.len() * b.order.len().saturating_sub(1) / 2;
    let n = c2c_pairs(b.shape.topology, &b.order, b.per_kind).len();
    let homes = match b.config.home {
        crate::platform::Home::Third => 2,
        _ => 1,
    };
    let points = n * homes;
    Estimate {
        processors: vec![2],
        points,
        pairs: Some((n, all)),
        every_cpu: true,
        work: Work::calibrated_apart(2.25, b.trials, b.tgt)
            .plus(single_round_trips(&[8], 1_000, b.r), 1)
            .times(points as f64),
    }
}

/// `sci-topology`: `l_p`, an untimed first experiment, the size sweep, the
/// rings.
pub(super) fn sci_topology(b: &Budgets<'_>) -> Estimate {
    let sizes = b.user(b.effort.sci_sizes);
    let experiments = size_sweep_experiments();
    Estimate::pair(
        b.batched(
            1.0 + (1.0 + experiments.len() as f64) * sizes.len() as f64 + RING_SIZES.count() as f64,
        )
        .plus(0.0, 1),
    )
}
