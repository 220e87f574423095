//! The Hockney kernels' estimates for the run plan ([`crate::kernels::work`]
//! says how they count): each a function its `KernelSpec` carries.

use super::super::work::{Budgets, Estimate, Work};
use super::sync_plan::{LONG_GRAINS, Method, ROUNDS_AT_LEAST};
use super::sync_sweep::ASLEEP_GRAINS;

/// `hockney-sync` and `hockney-program`: per method, a round of every
/// grain, the asleep grains, the pair probe (a quarter), the system-call
/// probe (an eighth), the rate probe (a quarter), calibrated apart; first
/// two pilots of three batches.
pub(super) fn sync(b: &Budgets<'_>) -> Estimate {
    let rounds = b.trials.max(ROUNDS_AT_LEAST);
    let mut w = Work::default();
    for m in Method::ALL {
        let grains = (b.effort.sync_points + LONG_GRAINS) as f64;
        let asleep = if m.two_regimes() {
            ASLEEP_GRAINS as f64
        } else {
            0.0
        };
        let per_round = grains + asleep + 0.625;
        w = w
            .and(Work::calibrated_apart(per_round, rounds, b.tgt))
            .and(Work::batched(2.0, 3, b.tgt));
    }
    Estimate::pair(w.plus(0.0, 1))
}
