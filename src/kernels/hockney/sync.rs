//! `hockney-sync`: Hockney's `(r_inf, s_1/2)` for work split between processors
//! (section 3.2, Figs. 3-6, Table II), one row per synchronisation method.
//!
//! A work segment is the dyadic multiply `A = B * C` of length `s` (`s` flop),
//! split evenly between `P` processors (`P = 2` unless `--cpus` names more); the
//! master (processor 0, the only one that times) starts the others, does its own
//! part, and waits until all are done, and the time of a segment as the master sees
//! it is fitted to eq. (10b), `t = t_0 + s / r_inf`, giving `s_1/2 = t_0 r_inf`
//! and `pi_0 = 1 / t_0` (eq. (13)), and the grains for 50% and 91% of `r_inf`.
//!
//! The methods ([`Method`]) are those of [`crate::sync`]: TASKS as new threads
//! (Fig. 3) and as a persistent pool's fork/join, LOCKS (Fig. 4), EVENTS on a
//! condition variable and on park/unpark (Fig. 5), the spin flag of Fig. 6 with and
//! without the spin-loop hint, and two barriers (barrier-spin, the dissemination
//! barrier of [`crate::sync::barrier`], polled bare: a hinted waiter sees the flag
//! up to a pause late). The same segment loop is timed for every method, the
//! clock's cost subtracted (Fig. 1); the vectors fill half of each L2.
//!
//! Grains: the paper swept `s = 2 .. 400`; here the overheads span 100 ns to
//! 50 µs, so each method first estimates `s_1/2` from a pilot, then measures
//! short grains (up to `s_1/2 / 2`, mostly overhead, four near zero for most
//! methods) and three long ones up to 32 `s_1/2` (mostly work).
//!
//! Two regimes: a blocking hand-over (LOCKS, EVENTS, the std barrier) costs a
//! line transfer to an awake waiter and a wake-up to a sleeping one, each its own
//! parameter in a regime built by construction (`crate::sync::team_method`'s
//! `Regime`): the grains timed with the waiter kept polling (`t_0`, `s_1/2`,
//! `r_inf`: awake), the two shortest again with every post held back 100 µs
//! (`t0_asleep_ns`, `t_wake_ns`), each with its share of waits that slept.
//! The pool (tasks-pool) too: asleep, each fork is held back, outside the
//! segment's clock, until every worker has announced its sleep and 100 µs more
//! (`Pool::hold_until_asleep`). An asleep segment is timed alone, one a
//! sub-batch, begun with both sides awake: in a run of them a wake-up after the
//! master's clock stops is paid inside the next segment, or hidden by the other
//! side's hold, and `t_wake` would move with the batch's length.
//!
//! Design and invariants:
//! - Every grain is calibrated once, then all grains are timed once per round,
//!   the methods interleaved ([`super::sweep_methods`]), each visit on a fresh
//!   team: a change of the machine's state lands on every grain and method
//!   alike. Each grain's time is its median over the rounds.
//! - `r_inf` is the slope of the long grains (the rate probe's where they
//!   slept), `t_0` the shortest grains' median less their work at `r_inf`
//!   ([`crate::model::hockney::fit_split`]), with percentile bootstraps over
//!   the rounds; the goodness is that line's through every grain.
//! - A batch in a round is up to [`SUB_BATCHES`] sub-batches and the round keeps
//!   their median: one stray sleep in a batch moves no point.
//! - The CPU pair's two-flag round trip is probed around the sweep and at the start
//!   of every round; a round whose probe lies more than 20 % from the method's
//!   median is left out of the fit, with a warning.
//! - Every round ends with a rate probe (one serial batch on every processor at
//!   once, timed to the last: [`crate::results::RATE_PROBE_PARAM`]), which sees the
//!   processors compute more slowly where the round trip cannot, and a batch of
//!   system calls that wake nobody ([`crate::platform::futex_wakes`]), which a
//!   blocking hand-over's `t_0` follows.
//!
//! Verification: before every batch the first `s` elements of `A` are set to NaN,
//! and after it each must equal `B * C` exactly: a method that skips a part, or
//! lets the master go on early, fails the kernel instead of posting a low time.

use super::pick_cpu_set;
use super::sync_sweep::{Threads, sweep_methods};
use crate::kernels::harness::probe::{pair_round_trips_ns, probe_warning};
use crate::kernels::{KernelError, KernelSpec, RunContext};
use crate::model::interval;
use crate::results::KernelResult;
use crate::sync::Poll;

pub(super) const SYNC: KernelSpec = KernelSpec {
    name: NAME,
    method: "hockney",
    paper: "Hockney 1985, (r_inf, n_1/2, s_1/2) on the Cray X-MP, section 3.2, Figs. 3-6, Table II",
    about: "r_inf, s_1/2, t_0 and pi_0 of a dyadic segment split over P CPUs, per synchronisation method",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::pair(crate::kernels::mpi_run!(super::sync_mpi::run)),
    card: &[crate::kernels::card::CardEntry::of(
        NAME,
        crate::kernels::card::CardRows::SyncMethods,
    )],
    run,
    plan: super::estimate::sync,
};

pub(crate) use super::sync_plan::NAME;
use super::sync_plan::run_plan;
pub use super::sync_plan::{
    GrainSamples, Method, MethodSweep, SUB_BATCHES, SyncPlan, grain_sub_batches, linear_grains,
    short_grains, sub_batches,
};
use super::sync_result::method_result;

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let cpus = pick_cpu_set(ctx, NAME)?;
    let parts = cpus.len().max(2);
    let plan = run_plan(ctx, cpus.clone(), parts);
    ctx.progress
        .begin(NAME, (Method::ALL.len() * (plan.trials + 1)) as u64);
    let cancelled = || ctx.cancelled();
    let hint_ns = Poll::hint_pause_ns();
    let before = pair_round_trips_ns(ctx, &cpus)?;
    let step = |m: Method| ctx.progress.step(m.name());
    let sweeps = sweep_methods(&Threads, &Method::ALL, &plan, ctx.clock, &cancelled, &step)?;
    let after = pair_round_trips_ns(ctx, &cpus)?;
    // The machine's state round by round: the median of the round's probes
    // (each method's visit one), and the probes before and after the sweep.
    let rounds = sweeps
        .iter()
        .map(|s| s.pair_rounds.len())
        .max()
        .unwrap_or(0);
    let mut states: Vec<f64> = (0..rounds)
        .filter_map(|r| {
            let mut of_round: Vec<f64> = sweeps
                .iter()
                .filter_map(|s| s.pair_rounds.get(r).copied())
                .collect();
            interval::median_in_place(&mut of_round)
        })
        .collect();
    // Each round's probe for the TASKS, which take none of their own.
    let round_states = states.clone();
    for mut p in [before.clone(), after.clone()] {
        states.extend(interval::median_in_place(&mut p));
    }
    let around: Vec<f64> = before.iter().chain(&after).copied().collect();
    let mut results = Vec::new();
    for sweep in &sweeps {
        let round_probes = match sweep.pair_rounds.is_empty() {
            true => &round_states,
            false => &sweep.pair_rounds,
        };
        let mut r = method_result(
            sweep,
            &plan,
            ctx.clock.read_overhead_ns,
            round_probes,
            &around,
        );
        if let Some(f) = r.fits.first_mut() {
            f.params.insert(HINT_PARAM.into(), hint_ns);
        }
        r.distance_class = (cpus.len() >= 2)
            .then(|| ctx.topology.distance(cpus[0], cpus[1]))
            .flatten();
        results.push(r);
    }
    if let Some(w) = probe_warning(&states) {
        results.iter_mut().for_each(|r| r.warnings.push(w.clone()));
    }
    ctx.progress.end();
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    Ok(results)
}

/// A fit parameter: what one spin-loop hint took on the master's CPU, ns
/// ([`Poll::hint_pause_ns`]), the granularity at which spin-hint's waiter
/// (and parking_lot's spinning lock) sees a flag change.
const HINT_PARAM: &str = "spin_hint_pause_ns";

#[cfg(test)]
#[path = "sync_tests.rs"]
mod tests;
