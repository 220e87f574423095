//! `hockney-program`: a program of synchronised segments of mixed grains,
//! predicted by Hockney's eq. (9) from the method's own `(r_inf, t_0)` and
//! then run, per synchronisation method ([`crate::model::hockney_program`]).
//!
//! For each method the kernel first measures `(r_inf, t_0, s_1/2)` with
//! `hockney-sync`'s sweep ([`super::sweep_methods`], `method_result`:
//! the same grains, rounds, probes and bootstrap intervals), then runs the
//! program on a fresh instantiation of the method: a chain of groups, each
//! `count` consecutive segments of one grain, the groups in order, timed as
//! one batch a group (the batch of `hockney-sync`, so a group's first
//! segment pays the workers' start as a sweep's batch does), the clock's
//! cost subtracted once a batch. The program runs once a round; its time is
//! the median over the rounds, the bootstrap of the median its interval.
//! The chain's hand-overs run in the awake regime, the waiter kept polling,
//! as the sweep's grains that give `t_0` do (`crate::sync::team_method`):
//! a blocking method's chain once slept where its `t_0` had not, and
//! measured 3 to 37 times its prediction.
//!
//! The prediction is `T = s / (E_p r_inf) + q t_0` (eq. (9), `s_1/2 = t_0
//! r_inf`), its 95 % interval propagated by Monte Carlo from the intervals
//! of `r_inf` and `t_0`; `E_p` is the balance of the grains split in whole
//! flop (1: every grain is a multiple of `8 P`). Beside it the result keeps
//! two wrong equations' predictions, `s / r_inf` (no synchronisation, eq.
//! (9) with `s_1/2` dropped) and `q / 2` segments, so that a reader (and the
//! test) sees that the agreement is not loose enough to pass them.
//!
//! Invariant: a grain is a multiple of `8 P` flop, so that every processor's
//! share starts on a line of its own, as in `hockney-sync`.

use super::sync_method::with_method;
use super::sync_plan::{Method, NAME as SYNC_NAME, SyncPlan};
use super::sync_result::method_result;
use super::team_batch::Batch;
use super::{Threads, sweep_methods};
use crate::control::RankError;
use crate::kernels::{KernelError, KernelSpec, RunContext};
use crate::model::hockney_program::{self as hp, Estimate};
use crate::model::interval;
use crate::platform::ClockInfo;
use crate::results::{FitResult, KernelResult, Param, Point};
use std::collections::BTreeMap;
use std::time::Duration;

/// The kernel's name.
pub const NAME: &str = "hockney-program";

pub(super) const PROGRAM: KernelSpec = KernelSpec {
    name: NAME,
    method: "hockney",
    paper: "Hockney 1985, section 2, eqs. (4)-(9): a program's time from (r_inf, s_1/2)",
    about: "a chain of segments of mixed grains per sync method, measured beside eq. (9)'s prediction from the method's own r_inf and t_0",
    in_quick_suite: false,
    over_mpi: crate::kernels::OverMpi::ONE_PROCESS,
    card: &[],
    run,
    plan: super::estimate::sync,
};

/// The default program, in units of `8 P` flop: (grain, segments), in order:
/// near-zero grains, grains about `s_1/2` of the spinning methods, and long
/// ones whose time is mostly work.
pub const DEFAULT_GROUPS: &[(usize, u64)] = &[(2, 64), (64, 32), (512, 16), (4096, 8), (32768, 2)];

/// measured / predicted may lie this far from 1 (either way, as a factor)
/// for the prediction to agree: the grains' batches are timed as in
/// `hockney-sync`, so only the model's error and the machine's drift between
/// the sweep and the program remain.
pub const AGREEMENT_FACTOR: f64 = 1.5;

/// The program's groups in flop: `(grain, segments)`.
pub fn groups_flop(units: &[(usize, u64)], parts: usize) -> Vec<(usize, u64)> {
    units.iter().map(|&(u, c)| (u * 8 * parts, c)).collect()
}

/// What one method's program gave.
#[derive(Debug, Clone)]
pub struct ProgramRun {
    /// The method.
    pub method: Method,
    /// `hockney-sync`'s result for the method, from its sweep.
    pub sync: KernelResult,
    /// The program's time per round, ns.
    pub rounds_ns: Vec<f64>,
    /// The measured time: median over rounds, ns, and its bootstrap interval.
    pub measured_ns: (f64, Option<[f64; 2]>),
    /// Eq. (9)'s prediction and its Monte Carlo interval, ns.
    pub predicted_ns: (f64, [f64; 2]),
    /// `s / r_inf`: eq. (9) with `s_1/2` dropped, ns.
    pub without_sync_ns: f64,
    /// Eq. (9) with `q / 2` segments, ns.
    pub q_halved_ns: f64,
}

/// A parameter of the sync result's headline.
fn param(r: &KernelResult, name: &str) -> Option<Param> {
    r.headline.iter().find(|p| p.name == name).cloned()
}

/// A method whose sweep gave no `(r_inf, t_0)`: its program is not run.
#[derive(Debug, Clone)]
pub struct NoPrediction {
    /// The method.
    pub method: Method,
    /// Why: the parameter the sweep did not give.
    pub reason: String,
    /// `hockney-sync`'s result for the method, with its warnings.
    pub sync: KernelResult,
}

/// Measures `(r_inf, t_0)` of each method, then its program of `groups`
/// (flop, segments) once a round for `plan.trials` rounds.
pub fn run_program(
    methods: &[Method],
    plan: &SyncPlan,
    groups: &[(usize, u64)],
    clock: &ClockInfo,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<Result<ProgramRun, NoPrediction>>, KernelError> {
    let sweeps = sweep_methods(&Threads, methods, plan, clock, cancelled, &|_| {})?;
    let grains: Vec<u64> = groups
        .iter()
        .flat_map(|&(g, c)| std::iter::repeat_n(g as u64, c as usize))
        .collect();
    let e_p =
        hp::balance_efficiency(&grains, plan.parts as u64).map_err(|e| KernelError::Failed {
            kernel: NAME.into(),
            reason: e.to_string(),
        })?;
    let s: f64 = grains.iter().map(|&g| g as f64).sum();
    let q = grains.len() as f64;
    let mut out = Vec::new();
    for sweep in &sweeps {
        let sync = method_result(sweep, plan, clock.read_overhead_ns, &sweep.pair_rounds, &[]);
        let (Some(r), Some(t0)) = (param(&sync, "r_inf_flop_per_s"), param(&sync, "t0_ns")) else {
            out.push(Err(NoPrediction {
                method: sweep.method,
                reason: "the sweep gave no r_inf or no t0 (its fit failed)".into(),
                sync,
            }));
            continue;
        };
        let rounds_ns = time_program(sweep.method, plan, groups, clock, cancelled)?;
        let measured = interval::median_in_place(&mut rounds_ns.clone()).unwrap_or(f64::NAN);
        let per_ns = |x: f64| x / 1e9;
        let est = [
            Estimate::new(per_ns(r.value), r.ci95.map(|c| c.map(per_ns))),
            Estimate::new(t0.value, t0.ci95),
        ];
        let t = |x: &[f64]| hp::segmented_time_t0(x[0], x[1], s, q, e_p);
        out.push(Ok(ProgramRun {
            method: sweep.method,
            measured_ns: (measured, interval::median_bootstrap(&rounds_ns)),
            rounds_ns,
            predicted_ns: (t(&[est[0].value, est[1].value]), hp::monte_carlo(&est, t)),
            without_sync_ns: s / (e_p * est[0].value),
            q_halved_ns: hp::segmented_time_t0(est[0].value, est[1].value, s, q / 2.0, e_p),
            sync,
        }));
    }
    Ok(out)
}

/// The program's time once a round, ns: each group one batch, the clock's
/// cost taken off once a batch, after one untimed pass.
fn time_program(
    method: Method,
    plan: &SyncPlan,
    groups: &[(usize, u64)],
    clock: &ClockInfo,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<f64>, KernelError> {
    let driver = |batch: &mut Batch<'_>| -> Result<Vec<f64>, RankError> {
        let mut rounds = Vec::with_capacity(plan.trials);
        for &(g, c) in groups {
            batch(g, c)?;
        }
        for _ in 0..plan.trials {
            let mut total = Duration::ZERO;
            for &(g, c) in groups {
                total += batch(g, c)?;
            }
            let clock_ns = clock.read_overhead_ns * groups.len() as f64;
            rounds.push(total.as_secs_f64() * 1e9 - clock_ns);
            if cancelled() {
                break;
            }
        }
        Ok(rounds)
    };
    Ok(with_method(method, plan, &driver)?.0)
}

/// Whether `measured / predicted` lies within [`AGREEMENT_FACTOR`] of 1.
pub fn agrees(measured: f64, predicted: f64) -> bool {
    let ratio = measured / predicted;
    (1.0 / AGREEMENT_FACTOR..=AGREEMENT_FACTOR).contains(&ratio)
}

/// One method's result: the groups as points, eq. (9) against the
/// measurement as a fit, and the headline with the sweep's parameters.
fn result_of(p: &ProgramRun, plan: &SyncPlan, groups: &[(usize, u64)]) -> KernelResult {
    let name = p.method.name();
    let mut r = KernelResult::new(NAME, "hockney", p.sync.placement, plan.cpus.clone())
        .with_transport(Some(name))
        .with_ranks(plan.parts);
    r.points = groups
        .iter()
        .map(|&(g, c)| {
            Point::new()
                .with("grain_flop", g as f64)
                .with("segments", c as f64)
                .with("processors", plan.parts as f64)
        })
        .collect();
    let (m, mci) = p.measured_ns;
    let (t, tci) = p.predicted_ns;
    let params = BTreeMap::from([
        ("measured_ns".to_string(), m),
        ("predicted_ns".to_string(), t),
        ("measured_over_predicted".to_string(), m / t),
        ("predicted_without_s_half_ns".to_string(), p.without_sync_ns),
        ("predicted_q_halved_ns".to_string(), p.q_halved_ns),
        ("rounds".to_string(), p.rounds_ns.len() as f64),
    ]);
    let agrees = agrees(m, t);
    r.fits.push(FitResult {
        model: "T = s/(E_p r_inf) + q t0 (eq. 9) against the measured chain".into(),
        x: "program".into(),
        y: "time_ns".into(),
        params,
        std_errors: BTreeMap::new(),
        r2: f64::NAN,
        n_points: groups.len(),
        flagged: !agrees,
    });
    if !agrees {
        r.warnings.push(format!(
            "{name}: the program took {m:.0} ns against {t:.0} predicted by eq. 9, outside a factor {AGREEMENT_FACTOR}"
        ));
    }
    r.warnings
        .extend(p.sync.warnings.iter().map(|w| format!("sweep: {w}")));
    let of = Some(name);
    r.headline = vec![
        Param::new("program_ns", of, m).with_ci(mci, interval::BOOTSTRAP_ROUNDS),
        Param::new("predicted_ns", of, t)
            .with_ci(Some(tci), "Monte Carlo over the intervals of r_inf and t0"),
    ];
    for n in ["r_inf_flop_per_s", "t0_ns", "s_half_flop"] {
        r.headline.extend(param(&p.sync, n));
    }
    r
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let cpus = super::pick_cpu_set(ctx, SYNC_NAME)?;
    let parts = cpus.len().max(2);
    let l2 = ctx
        .topology
        .data_cache_sizes(cpus[0])
        .iter()
        .find(|c| c.0 == 2)
        .map_or(1 << 20, |c| c.1);
    // As `hockney-sync`: half of each processor's L2 for its share of A, B, C.
    let max_grain = (parts * (l2 as usize / 2) / 24) / (8 * parts) * (8 * parts);
    let plan = SyncPlan {
        cpus,
        parts,
        grains: None,
        points: ctx.config.effort().sync_points,
        max_grain,
        trials: ctx.config.trials().max(9),
        target: ctx.config.batch_target(ctx.clock),
        wait_timeout: ctx.config.wait_timeout,
        oversubscribe: ctx.config.oversubscribe,
        skip_part: None,
    };
    let groups = groups_flop(DEFAULT_GROUPS, parts);
    ctx.progress.begin(NAME, 1);
    let cancelled = || ctx.cancelled();
    let runs = run_program(&Method::ALL, &plan, &groups, ctx.clock, &cancelled)?;
    ctx.progress.end();
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    Ok(runs
        .iter()
        .map(|run| match run {
            Ok(p) => result_of(p, &plan, &groups),
            Err(n) => {
                let mut r = KernelResult::new(NAME, "hockney", n.sync.placement, plan.cpus.clone())
                    .with_transport(Some(n.method.name()))
                    .with_ranks(plan.parts);
                r.warnings.push(format!(
                    "{}: {}: no prediction, program not run",
                    n.method.name(),
                    n.reason
                ));
                r.warnings
                    .extend(n.sync.warnings.iter().map(|w| format!("sweep: {w}")));
                r
            }
        })
        .collect())
}
