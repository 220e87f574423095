//! Hockney, "(r_inf, n_1/2, s_1/2) measurements on the 2-CPU Cray X-MP" (1985):
//! the two-parameter description of a vector pipeline and of a synchronisation
//! method, measured on this machine's cores.
//!
//! - `hockney-vector` ([`vector`]): `t = (n + n_1/2) / r_inf` for the dyadic, the
//!   all-vector triad, the scalar (Cyber 205) triad and scalar code, in f64 and
//!   f32, on the paper's lengths (Fig. 1) and per memory level; Table I.
//! - `hockney-sync` ([`sync`]): `t = t_0 + s / r_inf` for a dyadic segment split
//!   over P processors, per synchronisation method of [`crate::sync`]; Table II,
//!   with the grains that reach 50% and 91% of `r_inf`.
//!   Over MPI (`--transport mpi`) the processors are the job's processes and
//!   the methods `MPI_Barrier`, `MPI_Allreduce` and barriers over messages
//!   (`sync_mpi`), fitted by the same code.
//! - `hockney-program` ([`program`]): a chain of segments of mixed grains per
//!   method, measured beside eq. (9)'s prediction from the method's own sweep.
//!
//! Both print tables in the shape of the paper's (see [`crate::text::hockney`]) and put
//! every measured point (minimum, maximum, mean and percentiles over the trials)
//! and every fit in the JSON.

mod estimate;
pub mod program;
mod rate_probe;
mod simd;
pub mod sync;
pub mod sync_bench;
mod sync_method;
#[cfg(feature = "mpi")]
mod sync_mpi;
mod sync_plan;
mod sync_result;
mod sync_sweep;
mod sync_work;
mod team_batch;
pub mod vector;

pub use simd::{Element, LineAligned, Operation, SIMD_ENV, Simd, Vectors};
pub use sync_plan::{Method, SyncPlan};
pub use sync_sweep::{Instances, Threads, sweep_method, sweep_methods};
pub use team_batch::Batch;
pub use vector::VectorPlan;

use super::{KernelError, KernelSpec, RunContext};
use crate::model::fit::LineFit;
use crate::model::hockney::{HockneyFit, length_for_fraction};
use crate::results::FitResult;
use crate::results::num;
use std::collections::BTreeMap;

/// The Hockney kernels.
pub static KERNELS: &[KernelSpec] = &[vector::VECTOR, sync::SYNC, program::PROGRAM];

/// Below this R^2 a fit is flagged.
const R2_THRESHOLD: f64 = 0.9;

/// The CPU of a one-processor kernel: the user's first, else the last allowed
/// (CPU 0 takes most interrupts).
fn pick_cpu(ctx: &RunContext<'_>, kernel: &str) -> Result<usize, KernelError> {
    let cpus = ctx.cpus();
    let chosen = if ctx.config.cpus.is_some() {
        cpus.first()
    } else {
        cpus.last()
    };
    chosen.copied().ok_or_else(|| KernelError::NotRunnable {
        kernel: kernel.into(),
        reason: "no CPU to run on".into(),
    })
}

/// The CPUs of a P-processor kernel: all the user gave (P = their number), else
/// the most distant pair of allowed CPUs (P = 2). One CPU only with
/// `--oversubscribe` (two processors then share it).
fn pick_cpu_set(ctx: &RunContext<'_>, kernel: &str) -> Result<Vec<usize>, KernelError> {
    let not_runnable = |reason: String| KernelError::NotRunnable {
        kernel: kernel.into(),
        reason,
    };
    let cpus = match &ctx.config.cpus {
        Some(c) => c.clone(),
        None => match ctx.topology.pairs_by_class(ctx.allowed).last() {
            Some((_, a, b)) => vec![*a, *b],
            None => ctx.allowed.iter().take(1).copied().collect(),
        },
    };
    match cpus.len() {
        0 => Err(not_runnable("no CPUs given".into())),
        1 if ctx.config.oversubscribe => Ok(cpus),
        1 => Err(not_runnable(format!(
            "it splits work between 2 processors and has only CPU {}; give two CPUs, or pass --oversubscribe to share one (waits then yield)",
            cpus[0]
        ))),
        _ => Ok(cpus),
    }
}

/// `work` per second done in `time_ns`; 0 when the time is not positive (so
/// that the JSON never holds an infinity).
fn rate(work: f64, time_ns: f64) -> f64 {
    super::convert::per_second(work, time_ns)
}

/// The trials of a sweep's points, summarised one point at a time, with one
/// warning at the end for the points whose (max - min)/min exceeds
/// [`ACCURACY`](super::harness::timing::ACCURACY) instead of one a point.
struct TrialSummaries {
    /// What a point is (`lengths`), what its trials are (`trials`), and which
    /// statistic the fit uses (`minimum`).
    words: (&'static str, &'static str, &'static str),
    points: usize,
    noisy: usize,
}

impl TrialSummaries {
    fn new(what: &'static str, trials: &'static str, statistic: &'static str) -> Self {
        TrialSummaries {
            words: (what, trials, statistic),
            points: 0,
            noisy: 0,
        }
    }

    /// The summary of one point's trials (`what` names the point).
    fn summarize(&mut self, samples_ns: &[f64], what: &str) -> crate::model::stats::Summary {
        let (summary, warning) = super::harness::timing::summarize_trials(samples_ns, what);
        self.points += 1;
        self.noisy += usize::from(warning.is_some());
        summary
    }

    /// The one warning, if any point was noisy.
    fn warning(&self) -> Option<String> {
        let (what, trials, statistic) = self.words;
        (self.noisy > 0).then(|| {
            format!(
                "{} of {} {what}: (max - min)/min over the {trials} exceeds {} (the {statistic} is fitted)",
                self.noisy,
                self.points,
                super::harness::timing::ACCURACY
            )
        })
    }
}

/// A line read as Hockney's parameters.
#[derive(Debug, Clone)]
pub enum Fitted {
    /// Positive slope and intercept: every parameter.
    Full(HockneyFit),
    /// Positive slope only: `r_inf`, but no start-up to speak of.
    RateOnly(LineFit),
}

/// The fit's parameters, named with units, each prefixed with `prefix`
/// (`l2_` for a level). `bytes_per_flop` > 0 adds the bandwidth in GB/s; a
/// `timer_t0_ns` records the clock cost subtracted (Fig. 1's T0).
#[allow(clippy::too_many_arguments)]
pub fn hockney_fit_result(
    fitted: &Fitted,
    model: &str,
    prefix: &str,
    x: &str,
    y: &str,
    bytes_per_flop: f64,
    timer_t0_ns: Option<f64>,
    warnings: &mut Vec<String>,
) -> FitResult {
    let sync = x == "grain_flop";
    let line = match fitted {
        Fitted::Full(f) => &f.line,
        Fitted::RateOnly(l) => l,
    };
    let mut params = BTreeMap::new();
    let mut std_errors = BTreeMap::new();
    let p = |name: &str| format!("{prefix}{name}");
    let r_inf = 1.0 / line.slope;
    params.insert(p("r_inf_flop_per_s"), r_inf * 1e9);
    std_errors.insert(p("r_inf_flop_per_s"), line.se_slope * r_inf * r_inf * 1e9);
    if bytes_per_flop > 0.0 {
        params.insert(p("bandwidth_gb_per_s"), r_inf * bytes_per_flop);
    }
    if let Fitted::Full(f) = fitted {
        let half = if sync { "s_half_flop" } else { "n_half_flop" };
        params.insert(p(half), f.n_half);
        params.insert(p("t0_ns"), f.t0_ns);
        std_errors.insert(p("t0_ns"), line.se_intercept);
        if sync {
            params.insert(p("pi0_per_s"), f.pi0_per_s());
            for (name, frac) in [("s_50pct_flop", 0.5), ("s_91pct_flop", 0.91)] {
                if let Ok(s) = length_for_fraction(f.n_half, frac) {
                    params.insert(p(name), s);
                }
            }
        }
    } else {
        warnings.push(format!(
            "{model}: intercept {} ns is not positive, so there is no start-up to resolve (r_inf only)",
            num(line.intercept)
        ));
    }
    if let Some(t0) = timer_t0_ns {
        params.insert(p("timer_t0_subtracted_ns"), t0);
    }
    let flagged = line.r2 < R2_THRESHOLD;
    if flagged {
        warnings.push(format!(
            "{model}: R^2 = {:.3} < {R2_THRESHOLD}, the line does not describe these times",
            line.r2
        ));
    }
    FitResult {
        model: model.into(),
        x: x.into(),
        y: y.into(),
        params,
        std_errors,
        r2: line.r2,
        n_points: line.n_points,
        flagged,
    }
}

/// A memory level's segment as a fit result (prefix `l1_`, `memory_`, ...).
fn level_fit_result(
    line: &LineFit,
    model: &str,
    prefix: &str,
    y: &str,
    bytes_per_flop: f64,
    warnings: &mut Vec<String>,
) -> Option<FitResult> {
    if line.slope <= 0.0 || line.slope.is_nan() {
        warnings.push(format!(
            "{model}: time does not grow with n (slope {} ns), no fit",
            num(line.slope)
        ));
        return None;
    }
    let fitted = match HockneyFit::from_line(line.clone()) {
        Ok(f) => Fitted::Full(f),
        Err(_) => Fitted::RateOnly(line.clone()),
    };
    Some(hockney_fit_result(
        &fitted,
        model,
        prefix,
        "n_elements",
        y,
        bytes_per_flop,
        None,
        warnings,
    ))
}
