//! Lamanna, "A Performance Study of the Hypercube Architecture" (AFIT thesis, 1988),
//! chapter III "Benchmark" and Appendix A: the matrix-squaring benchmark on this
//! machine, and the speedup model of chapter IV fitted to it.
//!
//! # The benchmark (Appendix A)
//!
//! `C = A x A` of order `M` is split by block rows over `N` ranks; each rank computes
//! its `M/N` rows, recomputing them `x` times to set the computational load (steps
//! 1-6). Then (steps 7-10) every rank sends its block to every other rank and keeps a
//! flag vector, one flag per rank: it probes each rank whose flag is still unset,
//! receives a block that has arrived straight into its place in `C`, sets the flag,
//! and stops when every flag is set. Sends go with `try_send` interleaved with the
//! probes, so no rank blocks on a full queue while blocks wait for it. Every rank then
//! checks the whole `C` against a serial product (exact: the elements are small
//! integers), outside the timed part; a mismatch fails the kernel.
//!
//! The run's time is the **mean computation time plus the largest message-processing
//! time** (steps 7-10), the thesis's definition. Runs start together behind a
//! gather-release barrier. Five runs per (load, N), two with `--quick`.
//!
//! # The model (chapter IV, eqs. 13-18)
//!
//! The uniprocessor time `U` of a load is the mean time of its `N = 1` runs. Every run
//! is a record `(U, N, T)`; eq. 13, `T = a + b U/N + c N`, is fitted by least squares
//! with `b` free and with `b = 1` (as the thesis does), and from the free fit come the
//! optimal number of ranks `N* = sqrt(b U / c)` for each measured load (eq. 15) and the
//! uniprocessor time at which `N` ranks reach 80% efficiency (eqs. 17-18, derived again
//! in [`crate::model::speedup`]).
//!
//! Rank counts are the powers of two up to the CPUs, then virtual processors up to 8
//! (labelled: co-hosted ranks share a CPU, and the fit's `c` absorbs it).
//!
//! # The validation (chapter IV)
//!
//! With two CPUs or more the simulator is calibrated to this machine and compared
//! with the benchmark (the `calibrate` module): measured are the message latency's `t_l`,
//! `t_c`, `t_i` (eqs. 7-9) and the sender's share of `t_l` (rank 0's send call,
//! `MSG_INIT`, Appendix B listing lines 302-303); the destination's share
//! (`OVERHEAD`, lines 321-322) is the rest of `t_l`. Assumed: the listing's
//! placement of each cost (node held from `AWAIT` to `FREE`, lines 275-308;
//! transmit queues by dimension, line 31), and the listing's ratio 1.667 : 0.6158
//! where the send call cannot split `t_l` (a warning says so).
//!
//! The calibration's chain crosses the first two CPUs on every link, so its
//! costs move with the machine's state: it is probed before and after
//! ([`crate::kernels::harness::probe`]; the headline `probe_round_trip_ns`), and
//! `compare` judges `t_l` and `t_i` against the probe; `t_c` against the copy
//! probe (`copy_probe_ns_per_byte`, a plain cross-core copy's time per byte
//! on the same two CPUs, before and after), since the rate of copies moves on a
//! shared host while the round trip holds still (on a VM, `t_c` moved by a
//! quarter between runs with the same round trip, and fourfold with its state).
//!
//! # Over MPI
//!
//! With `--transport mpi` the ranks are the world's processes and the same rank
//! body runs on them, the probe-checked exchange on `MPI_Iprobe`. One world
//! sweeps `N` = 1 up to its size (the divisors of `M` among them) with groups of
//! its first `N` processes, the others sleeping at a barrier meanwhile, so the
//! eq. 13 fit covers only the `N` one world gives (a warning says so); there is
//! no simulation, as its calibration runs on chains of threads.

mod calibrate;
mod matrix;
#[cfg(feature = "mpi")]
mod over_mpi;
mod validation;

pub(crate) use calibrate::MAX_HOPS;

use std::sync::Arc;

use super::harness::calls::{f64_bytes, f64_bytes_mut};
use super::harness::probe;
use super::harness::timing::Timer;
use super::harness::transports::each_transport;
use super::work::{Budgets, Estimate};
use super::{KernelError, KernelSpec, RunContext};
use crate::control::{Placement, RankError};
use crate::model::speedup::{Eq13Fit, SpeedupRecord, fit_eq13, speedup};
use crate::model::stats::summarize;
use crate::results::{FitResult, KernelResult, Point};
use crate::team::{RankCtx, Team};
use crate::transport::{Endpoint, Transport, TransportConfig};

/// The speedup kernels.
pub static KERNELS: &[KernelSpec] = &[SPEEDUP];

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "speedup";

const SPEEDUP: KernelSpec = KernelSpec {
    name: NAME,
    method: "speedup",
    paper: "Lamanna 1988 (AFIT thesis), ch. III benchmark, Appendix A steps 7-10, ch. IV eqs. 13-18",
    about: "matrix squaring by block rows with all-to-all exchange checked by probe and flag vector, verified; eq. 13 fit, optimal N and work for 80% efficiency",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::pair(crate::kernels::mpi_run!(over_mpi::run)),
    card: &[crate::kernels::card::CardEntry::of(
        NAME,
        crate::kernels::card::CardRows::Speedup,
    )],
    run,
    plan: estimate,
};

/// The plan's estimate ([`crate::kernels::work`]): every rank count
/// computes the product `load` times, split over N ranks sharing the CPUs;
/// and `T_ML`: every round builds a chain per hop count and times a batch of
/// every size (the blocks of N > 1 and 64 B) on it, around it the pair and
/// copy probes twice each.
fn estimate(b: &Budgets<'_>) -> Estimate {
    let ps = speedup_processors(b.config.quick, b.processors_up_to());
    let m = b.effort.speedup_order as f64;
    let units: f64 = b.effort.speedup_loads.iter().map(|&x| f64::from(x)).sum();
    let products: f64 = ps
        .iter()
        .map(|&n| units * 2.0 * m * m * m / b.r.flop_per_s / n.min(b.cpus) as f64)
        .sum();
    let computing = b.t * b.effort.speedup_runs as f64 * products;
    let sizes = ps.iter().filter(|&&n| n > 1).count() as f64 + 1.0;
    let chains = b
        .batched(MAX_HOPS as f64 * sizes)
        .plus(0.0, b.trials * MAX_HOPS)
        .and(b.around())
        .and(b.around());
    let work = chains.times(b.t).plus(computing, (b.t as usize) * ps.len());
    Estimate::over(ps, work)
}

/// Efficiency whose work requirement is reported (eqs. 17-18).
const TARGET_EFFICIENCY: f64 = 0.8;

/// What one benchmark sweep runs.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeedupPlan {
    /// Matrix order `M` (divisible by every rank count).
    pub order: usize,
    /// Recomputations `x` of each block (the loads).
    pub loads: Vec<u32>,
    /// Rank counts `N`.
    pub processors: Vec<usize>,
    /// Runs per (load, N).
    pub runs: usize,
}

impl SpeedupPlan {
    /// The plan of a run: `M` = 64 and loads 4..400 (quick), else `M` = 128 and loads
    /// 2..256, each spanning about two decades of uniprocessor time; rank counts
    /// [`speedup_processors`].
    pub fn for_run(ctx: &RunContext<'_>) -> SpeedupPlan {
        let effort = ctx.config.effort();
        SpeedupPlan {
            order: effort.speedup_order,
            loads: effort.speedup_loads.to_vec(),
            processors: speedup_processors(ctx.config.quick, ctx.sweep_cpus()),
            runs: effort.speedup_runs,
        }
    }
}

/// The rank counts of a run on `cpus` CPUs: the powers of two from 1 up to
/// `max(8, cpus)`, and at most the matrix order `M` (64 quick, 128 full),
/// which every rank count must divide.
pub fn speedup_processors(quick: bool, cpus: usize) -> Vec<usize> {
    let order = crate::kernels::effort::of(quick).speedup_order;
    let mut processors = vec![1];
    while processors
        .last()
        .is_some_and(|&n| n < 8.max(cpus) && n < order)
    {
        processors.push(processors.last().copied().unwrap_or(1) * 2);
    }
    processors
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    run_with(ctx, &SpeedupPlan::for_run(ctx))
}

/// Per-rank times of one run, ms.
#[derive(Debug, Clone, Copy)]
struct RankTimes {
    computation_ms: f64,
    messages_ms: f64,
}

/// Runs the benchmark with `plan`, one result per transport.
pub fn run_with(
    ctx: &RunContext<'_>,
    plan: &SpeedupPlan,
) -> Result<Vec<KernelResult>, KernelError> {
    let bad = |reason: String| KernelError::NotRunnable {
        kernel: SPEEDUP.name.into(),
        reason,
    };
    if plan.loads.is_empty() || plan.runs == 0 || plan.processors.first() != Some(&1) {
        return Err(bad(
            "the plan needs loads, runs, and N = 1 first (it gives U)".into(),
        ));
    }
    if let Some(n) = plan
        .processors
        .iter()
        .find(|&&n| n == 0 || !plan.order.is_multiple_of(n))
    {
        return Err(bad(format!(
            "matrix order {} is not divisible by N = {n}",
            plan.order
        )));
    }
    let m = plan.order;
    let a = Arc::new(matrix::matrix_a(m));
    let want = Arc::new(matrix::serial_product(&a, m));
    let cpus = ctx.cpus();
    let steps = ctx.config.transports.len() * plan.processors.len();
    each_transport(ctx, SPEEDUP.name, steps, &[()], |(), t| {
        // totals[n_index][load_index] = run totals, ms.
        let mut totals: Vec<Vec<Vec<f64>>> = Vec::new();
        let mut result = KernelResult::new(
            SPEEDUP.name,
            SPEEDUP.method,
            Placement::Pinned,
            cpus.clone(),
        )
        .with_transport(Some(t.name()))
        .with_ranks(1);
        for &n in &plan.processors {
            if ctx.cancelled() {
                break;
            }
            ctx.progress.step(&format!("{} N={n}", t.name()));
            let team = Team::new(&ctx.team_spec(cpus.clone(), n, true))?;
            if team.placement() != Placement::Pinned {
                if result.placement == Placement::Pinned
                    || team.placement() == Placement::Oversubscribed
                {
                    result.placement = team.placement();
                }
                result.warnings.push(format!(
                    "N = {n} ranks on {} CPUs are virtual processors ({}): co-hosted ranks share a CPU, so their times include waiting for it",
                    cpus.len(),
                    team.placement()
                ));
            }
            if n > result.ranks {
                result.ranks = n;
                result.cpus = team.hosts().to_vec();
            }
            let per_rank = crate::with_transport!(t, run_team(&team, plan, &a, &want))?;
            totals.push(run_totals(&per_rank, plan));
        }
        if totals.is_empty() {
            return Ok(None);
        }
        finish(&mut result, plan, &totals, cpus.len());
        if !ctx.cancelled() && cpus.len() >= 2 {
            let mut sizes: Vec<usize> = plan
                .processors
                .iter()
                .filter(|&&n| n > 1)
                .map(|&n| plan.order / n * plan.order * std::mem::size_of::<f64>())
                .chain([64])
                .collect();
            sizes.sort_unstable();
            sizes.dedup();
            // T_ML's chain crosses the first two CPUs on every link: the
            // pair's round trip, probed before and after it, says which state
            // of the machine its t_l, t_c and t_i were measured in.
            // And its bytes move with the rate of cross-core copies, which
            // moves on a shared host with the round trip still: the copy
            // probe, before and after, is what `compare` sets `t_c` beside.
            let copies_before = probe::pair_copy_ns_per_byte(ctx, &cpus)?;
            let (latencies, probes) = probe::between(ctx, &cpus, || {
                Ok(crate::with_transport!(
                    t,
                    calibrate::message_latencies(ctx, &cpus, &sizes)
                )?)
            })?;
            let copies = [copies_before, probe::pair_copy_ns_per_byte(ctx, &cpus)?].concat();
            validation::validate(&mut result, plan, &totals, &latencies, cpus.len());
            probe::record(&mut result, &probes);
            result.headline.extend(probe::copy_probe_param(&copies));
        } else if cpus.len() < 2 {
            result.warnings.push(
                "one CPU: no message latency T_ML (its forwarding chain needs two spinning workers), so no simulation".into(),
            );
        }
        Ok(Some(result))
    })
}

/// The totals of every run of one N from every rank's times, `[load][run]`:
/// the thesis's mean computation plus largest message processing.
fn run_totals(per_rank: &[Vec<RankTimes>], plan: &SpeedupPlan) -> Vec<Vec<f64>> {
    let n = per_rank.len() as f64;
    let runs = plan.loads.len() * plan.runs;
    let totals: Vec<f64> = (0..runs)
        .map(|k| {
            let comp = per_rank.iter().map(|r| r[k].computation_ms).sum::<f64>() / n;
            let msg = per_rank
                .iter()
                .map(|r| r[k].messages_ms)
                .fold(0.0, f64::max);
            comp + msg
        })
        .collect();
    totals.chunks(plan.runs).map(<[f64]>::to_vec).collect()
}

/// Points, fits and notes from the run totals.
fn finish(result: &mut KernelResult, plan: &SpeedupPlan, totals: &[Vec<Vec<f64>>], cpus: usize) {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let uniprocessor: Vec<f64> = totals[0].iter().map(|runs| mean(runs)).collect();
    let mut records = Vec::new();
    for (ni, per_load) in totals.iter().enumerate() {
        let n = plan.processors[ni];
        for (li, runs) in per_load.iter().enumerate() {
            let u = uniprocessor[li];
            for &time_ms in runs {
                records.push(SpeedupRecord {
                    uniprocessor_ms: u,
                    nodes: n as u32,
                    bursts: 1,
                    receivers: n as u32 - 1,
                    time_ms,
                });
            }
            let Ok(stats) = summarize(runs) else { continue };
            let point = Point::new()
                .with("load_recomputations", f64::from(plan.loads[li]))
                .with("matrix_order", plan.order as f64)
                .with("processors", n as f64)
                .with("virtual", f64::from(cpus < n))
                .with("uniprocessor_ms", u)
                .with(NAME, speedup(u, stats.mean))
                .with("efficiency", speedup(u, stats.mean) / n as f64)
                .with("verified", 1.0)
                .with_stats("time_ms", stats);
            result.points.push(point);
        }
    }
    for fixed_b in [None, Some(1.0)] {
        match fit_eq13(&records, fixed_b) {
            Ok(fit) => {
                if fixed_b.is_none() {
                    add_eq13_derivations(result, &fit, &uniprocessor, plan);
                }
                result.fits.push(eq13_result(&fit, fixed_b, records.len()));
            }
            Err(e) => result
                .warnings
                .push(format!("eq. 13 fit (b {fixed_b:?}) failed: {e}")),
        }
    }
    result.warnings.push(format!(
        "every run's C = A x A (order {}) verified on every rank against the serial product; U = mean time of the N = 1 runs; T = mean computation + max message processing (Lamanna's definition)",
        plan.order
    ));
}

fn eq13_result(fit: &Eq13Fit, fixed_b: Option<f64>, n_points: usize) -> FitResult {
    let se = |name: &str| fit.fit.coefficient(name).map_or(0.0, |c| c.standard_error);
    let m = &fit.model;
    let mut params = std::collections::BTreeMap::new();
    let mut std_errors = std::collections::BTreeMap::new();
    params.insert("a_ms".to_string(), m.a_ms);
    std_errors.insert("a_ms".to_string(), se(crate::model::regression::INTERCEPT));
    params.insert("b".to_string(), m.b);
    std_errors.insert("b".to_string(), se("U/N"));
    params.insert("c_ms_per_node".to_string(), m.c_ms_per_node);
    std_errors.insert("c_ms_per_node".to_string(), se("N"));
    FitResult {
        model: match fixed_b {
            None => "eq. 13: T = a + b U/N + c N".into(),
            Some(b) => format!("eq. 13: T = a + {b} U/N + c N (b fixed)"),
        },
        x: "uniprocessor_ms/processors, processors".into(),
        y: "time_ms (every run)".into(),
        params,
        std_errors,
        r2: fit.fit.r_squared,
        n_points,
        flagged: fit.fit.r_squared < 0.9,
    }
}

/// Eq. 15's optimal N for each measured load and eq. 18's work for 80% efficiency,
/// as points of their own.
fn add_eq13_derivations(
    result: &mut KernelResult,
    fit: &Eq13Fit,
    uniprocessor: &[f64],
    plan: &SpeedupPlan,
) {
    for (li, &u) in uniprocessor.iter().enumerate() {
        match fit.model.optimal_nodes(u) {
            Ok(n_opt) => result.points.push(
                Point::new()
                    .with("load_recomputations", f64::from(plan.loads[li]))
                    .with("uniprocessor_ms", u)
                    .with("optimal_processors_eq15", n_opt),
            ),
            Err(e) => result
                .warnings
                .push(format!("eq. 15 at U = {u:.3} ms: {e}")),
        }
    }
    for &n in plan.processors.iter().filter(|&&n| n > 1) {
        match fit
            .model
            .uniprocessor_ms_for_efficiency(n as f64, TARGET_EFFICIENCY)
        {
            Ok(u) => result.points.push(
                Point::new()
                    .with("processors", n as f64)
                    .with("target_efficiency", TARGET_EFFICIENCY)
                    .with("uniprocessor_ms_needed_eq18", u),
            ),
            Err(e) => result.warnings.push(format!("eq. 18 at N = {n}: {e}")),
        }
    }
}

/// Every rank's times, `[rank][load * runs + run]`.
fn run_team<T: Transport + 'static>(
    team: &Team,
    plan: &SpeedupPlan,
    a: &Arc<Vec<f64>>,
    want: &Arc<Vec<f64>>,
) -> Result<Vec<Vec<RankTimes>>, KernelError> {
    let n = team.size();
    let m = plan.order;
    let block_bytes = m / n * m * std::mem::size_of::<f64>();
    let eps = T::endpoints(team.control(), &TransportConfig::buffered(block_bytes));
    let per_rank = team.run(SPEEDUP.name, eps, |rc, ep| rank_body(rc, ep, plan, a, want))?;
    Ok(per_rank)
}

fn rank_body<E: Endpoint>(
    rc: &RankCtx<'_>,
    ep: &mut E,
    plan: &SpeedupPlan,
    a: &[f64],
    want: &[f64],
) -> Result<Vec<RankTimes>, RankError> {
    let (me, n, m) = (rc.rank, rc.size, plan.order);
    let rows = m / n;
    let mut c = vec![0.0; m * m];
    let mut arrived = vec![false; n];
    let mut times = Vec::with_capacity(plan.loads.len() * plan.runs);
    for &x in &plan.loads {
        for _ in 0..plan.runs {
            c.fill(f64::NAN);
            barrier(ep)?;
            let start = Timer::start();
            compute(
                a,
                m,
                me * rows,
                &mut c[me * rows * m..(me + 1) * rows * m],
                x,
            );
            let computed = start.elapsed();
            exchange(rc, ep, &mut c, rows * m, &mut arrived)?;
            let done = start.elapsed();
            times.push(RankTimes {
                computation_ms: computed.as_secs_f64() * 1e3,
                messages_ms: (done - computed).as_secs_f64() * 1e3,
            });
            if let Some((i, j, got, exp)) = matrix::first_mismatch(&c, want, m) {
                return Err(RankError::Failed(format!(
                    "rank {me} of {n}: C[{i}][{j}] = {got}, the serial product has {exp} (load {x})"
                )));
            }
        }
    }
    Ok(times)
}

/// Steps 1-6: the block computed `x` times.
#[inline(never)]
fn compute(a: &[f64], m: usize, first: usize, block: &mut [f64], x: u32) {
    for _ in 0..x {
        matrix::block_product(std::hint::black_box(a), m, first, block);
        std::hint::black_box(&mut *block);
    }
}

/// Steps 7-10: send the own block to every other rank and collect theirs, checking
/// arrivals with a flag vector and `probe`, each block placed in its rows of `c`.
#[inline(never)]
fn exchange<E: Endpoint>(
    rc: &RankCtx<'_>,
    ep: &mut E,
    c: &mut [f64],
    block: usize,
    arrived: &mut [bool],
) -> Result<(), RankError> {
    let (me, n) = (rc.rank, rc.size);
    arrived.fill(false);
    arrived[me] = true;
    let (mut remaining, mut next) = (n - 1, 1);
    // The deadline runs from the last progress: a peer silent for that long is lost.
    let mut start = Timer::start();
    let deadline = rc.control.wait_timeout();
    while remaining > 0 || next < n {
        let mut progressed = false;
        if next < n {
            let to = (me + next) % n;
            if ep.try_send(to, f64_bytes(&c[me * block..(me + 1) * block]))? {
                next += 1;
                progressed = true;
            }
        }
        for from in 0..n {
            if !arrived[from] && ep.probe(from) {
                ep.recv(
                    from,
                    f64_bytes_mut(&mut c[from * block..(from + 1) * block]),
                )?;
                arrived[from] = true;
                remaining -= 1;
                progressed = true;
            }
        }
        if progressed {
            start = Timer::start();
        } else {
            if rc.control.aborted() {
                return Err(RankError::Aborted);
            }
            if start.elapsed() > deadline {
                let peer = arrived.iter().position(|&f| !f).unwrap_or((me + next) % n);
                return Err(RankError::Deadline {
                    peer,
                    waited_ms: deadline.as_millis() as u64,
                });
            }
            std::thread::yield_now();
        }
    }
    Ok(())
}

/// Gather to rank 0, then release: every rank starts a run together.
fn barrier<E: Endpoint>(ep: &mut E) -> Result<(), RankError> {
    let (me, n) = (ep.rank(), ep.size());
    let mut b = [0u8; 1];
    if me == 0 {
        for r in 1..n {
            ep.recv(r, &mut b)?;
        }
        for r in 1..n {
            ep.send(r, &b)?;
        }
    } else {
        ep.send(0, &b)?;
        ep.recv(0, &mut b)?;
    }
    Ok(())
}
