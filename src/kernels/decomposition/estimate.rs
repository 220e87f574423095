//! The Krumme & Greenfield kernels' estimates for the run plan
//! ([`crate::kernels::work`] says how they count): each kernel's
//! `KernelSpec` carries one, with the constants of its own file.

use super::super::work::{Budgets, Estimate, Work, single_round_trips};
use std::time::Duration;

/// Rank 0's `Q(SENDTIME)`s in one iteration of each experiment at a size
/// (`rank0.rs`): five busy echoes of three, five idle echoes of two, tests
/// 2 to 4 with three and two `Q(COMPTIME)`s (13), test 5 with two and two
/// (12), test 6 and its system variant one each.
const DECOMPOSITION_SENDTIMES: [u64; 14] = [3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 13, 12, 1, 1];

/// `decomposition`, whose `Q(SENDTIME)` lasts `sendtime`: per transport,
/// both Q loops, every repetition and size; a pair probe after each (3
/// batches of 500 flag round trips and 10 of 64 KiB: its `PROBE_*`).
pub(super) fn decomposition(b: &Budgets<'_>, sendtime: Duration) -> Estimate {
    let sizes = b.user(b.effort.decomposition_sizes);
    let reps = b
        .config
        .trials
        .unwrap_or(b.effort.decomposition_repetitions) as f64;
    let per_round = b
        .effort
        .decomposition_notimes
        .div_ceil(b.effort.decomposition_rounds as u64)
        + 1;
    let iterations = (DECOMPOSITION_SENDTIMES.len() as u64 * per_round) as f64;
    let q: f64 = DECOMPOSITION_SENDTIMES.iter().sum::<u64>() as f64
        * per_round as f64
        * sendtime.as_secs_f64();
    let per_size = b.effort.decomposition_rounds as f64 * (q + iterations * b.r.hosted_iteration_s);
    let runs = b.t * 2.0 * reps * sizes.len() as f64;
    let probe =
        3.0 * single_round_trips(&[0], 500, b.r) + 3.0 * single_round_trips(&[65_536], 10, b.r);
    Estimate::pair(Work::default().plus(runs * (per_size + probe), 2 + runs as usize))
}

/// `interference`, over its `streams` per computation, with test 5's
/// `Q(SENDTIME)` of `sendtime`: each stream stretches the computation
/// (what the kernel measures; a third of its length a stream on the
/// reference).
pub(super) fn interference(b: &Budgets<'_>, streams: &[usize], sendtime: Duration) -> Estimate {
    let trials = b.config.trials.unwrap_or(b.effort.interference_trials) as f64;
    let stretched: f64 = streams
        .iter()
        .map(|&k| 1.0 + b.r.stream_slowdown * k as f64)
        .sum();
    let computations = trials * stretched;
    let test5 = (b.effort.interference_reps + 1) as f64 * 12.0 * sendtime.as_secs_f64();
    let duration = b.effort.interference_duration_ms as f64 * 1e-3;
    Estimate::pair(Work::default().plus(b.t * (computations * duration + test5), 1 + b.t as usize))
}

/// `overheads` over its default `sizes`: per transport, an untimed warm-up
/// round and every trial: each size's send, receive and cold batches, each
/// bursts until the target (no calibration), inside one probed team.
pub(super) fn overheads(b: &Budgets<'_>, sizes: &[usize]) -> Estimate {
    let sizes = b.user(sizes);
    let batches = b.t * (b.trials + 1) as f64 * sizes.len() as f64 * 3.0;
    Estimate::pair(
        Work::of_batches(0.0, batches, b.tgt)
            .plus(0.0, 1)
            .and(b.around().times(b.t)),
    )
}
