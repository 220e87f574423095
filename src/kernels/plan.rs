//! The run plan: for this machine and these options, which kernels run, on
//! which processors and pairs, and how long each takes, before anything is
//! timed (`halfperf run --plan`, and the head of every run); and the sampling
//! that keeps a plan within its budget (`--max-minutes`; by default a minute
//! for `--quick`, twenty for a full run, each repetition).
//!
//! Each kernel's estimate is its own: its [`KernelSpec`] carries the
//! function ([`super::work`] says how they count). A plan of `--repeat K`
//! repeats every kernel K times. The total adds the run's own costs outside
//! its kernels ([`fixed_costs`]: the preheat, the clock measurements, the
//! load check's idle samples). `scripts/plan-check.sh` sets the plan beside a
//! timed quick run, kernel by kernel.
//!
//! Sampling, in order, until the plan fits: c2c's pairs per kind (distance
//! class and core types) down to one; the CoMet collectives' processor
//! counts down to their base list. A plan whose smallest form does not fit is
//! refused. Invariants: sampling never removes a kernel or a distance class;
//! the plan's c2c pairs are the kernel's ([`c2c_pairs`] serves both).

pub use super::effort::{C2C_QUICK_PER_KIND, collective_processors};
pub use super::harness::pair::c2c_pairs;
pub use super::work::{
    BATCH_OVERRUN, Budgets, CALIBRATION_TARGETS, Estimate, LOADED_HANDOVER_S, LOADED_OVERRUN,
    Rates, SHARED_COMMAND_S, SHARED_OVERRUN, Shape, TEAM_START_S, Work,
};
use super::{KernelSpec, find};
use serde::Serialize;

/// Why no plan fits.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// The budget is not a positive number of minutes.
    #[error("--max-minutes must be above 0 (got {0})")]
    BadBudget(f64),
    /// Even the smallest sampling takes longer than the budget.
    #[error(
        "the plan cannot fit in {budget_min} min: its smallest form (one c2c pair per kind, the base processor counts) takes {smallest_min:.1} min"
    )]
    TooSmall {
        /// The budget, minutes.
        budget_min: f64,
        /// The smallest plan, minutes.
        smallest_min: f64,
    },
}

/// One kernel in the plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelPlan {
    /// The kernel.
    pub kernel: &'static str,
    /// The processor counts it sweeps (2 for a pair kernel).
    pub processors: Vec<usize>,
    /// The CPUs it runs on, in the order it takes them.
    pub cpus: Vec<usize>,
    /// The CPU pairs it measures (c2c), of how many.
    pub pairs: Option<(usize, usize)>,
    /// Its points.
    pub points: usize,
    /// What it does, counted from its budgets.
    pub work: Work,
    /// Estimated time of one repetition, s.
    pub estimate_s: f64,
}

/// The whole plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunPlan {
    /// The kernels in order.
    pub kernels: Vec<KernelPlan>,
    /// The budget, s.
    pub budget_s: f64,
    /// Repetitions of the whole suite (`--repeat`).
    pub repeat: u32,
    /// The run's own costs around the kernels ([`fixed_costs`]).
    pub fixed: Vec<FixedCost>,
    /// The kernels' estimates times the repetitions, and the fixed costs, s.
    pub total_s: f64,
    /// What was sampled to fit, one line each.
    pub sampled: Vec<String>,
    /// c2c's pairs per kind (`None`: every pair).
    pub c2c_per_kind: Option<usize>,
    /// The largest processor count of the CoMet collectives.
    pub max_processors: usize,
}

/// One of a run's costs outside its kernels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixedCost {
    /// What it is.
    pub what: &'static str,
    /// How long it takes, s.
    pub seconds: f64,
}

/// Clock reads of one [`crate::platform::measure_clock`] (20 batches of
/// 10,000 for the overhead, 100,000 for the resolution); a run measures the
/// clock twice (for the plan, then for the kernels).
const CLOCK_READS: f64 = 300_000.0;

/// The run's costs outside its kernels, for kernels estimated at
/// `kernels_s` each, in the order they run (every repetition): the preheat
/// (`config.preheat_ms`), the two clock measurements, and the idle samples
/// of the load check (one before the first kernel, and one before every
/// kernel that starts [`super::IDLE_SAMPLE_REUSE`] or more after the last
/// sample; on a quiet machine the check reuses its sample that long).
pub fn fixed_costs(shape: &Shape<'_>, kernels_s: &[f64]) -> Vec<FixedCost> {
    let reuse = super::IDLE_SAMPLE_REUSE.as_secs_f64();
    let (mut samples, mut age) = (0.0, f64::INFINITY);
    for &k in kernels_s {
        if age >= reuse {
            samples += 1.0;
            age = 0.0;
        }
        age += k;
    }
    vec![
        FixedCost {
            what: "preheat",
            seconds: shape.config.preheat_ms.unwrap_or(0.0) / 1e3,
        },
        FixedCost {
            what: "clock measurement (twice)",
            seconds: 2.0 * CLOCK_READS * shape.clock.read_overhead_ns * 1e-9,
        },
        FixedCost {
            what: "load check's idle samples",
            seconds: samples * super::IDLE_SAMPLE.as_secs_f64(),
        },
    ]
}

/// The budget of `kernel` (a registered name) on `shape` with c2c's
/// `per_kind` and the collectives' `max_p`: one entry of the plan.
///
/// # Panics
/// If no kernel has that name.
pub fn budget(
    kernel: &'static str,
    shape: &Shape<'_>,
    per_kind: Option<usize>,
    max_p: usize,
) -> KernelPlan {
    let spec = find(kernel).unwrap_or_else(|| panic!("no kernel {kernel}"));
    budget_of(spec, shape, per_kind, max_p)
}

/// The budget of `spec` on `shape` with c2c's `per_kind` and the
/// collectives' `max_p`, from the kernel's own estimate.
pub fn budget_of(
    spec: &KernelSpec,
    shape: &Shape<'_>,
    per_kind: Option<usize>,
    max_p: usize,
) -> KernelPlan {
    let b = Budgets::of(shape, per_kind, max_p);
    let estimate = (spec.plan)(&b);
    let used = estimate
        .processors
        .iter()
        .copied()
        .max()
        .unwrap_or(2)
        .min(b.order.len());
    KernelPlan {
        kernel: spec.name,
        cpus: match estimate.every_cpu {
            true => b.order.clone(),
            false => b.order[..used].to_vec(),
        },
        processors: estimate.processors,
        pairs: estimate.pairs,
        points: estimate.points,
        estimate_s: estimate.work.seconds(),
        work: estimate.work,
    }
}

/// The plan of `kernels` on `shape` within `max_minutes` (default: 1 for a
/// quick run, 20 otherwise, per repetition), sampling as the module says.
pub fn plan(
    kernels: &[&KernelSpec],
    shape: &Shape<'_>,
    max_minutes: Option<f64>,
) -> Result<RunPlan, PlanError> {
    // The default budget is per repetition; `--max-minutes` is the whole
    // run's.
    let per_repetition = if shape.config.quick { 1.0 } else { 20.0 };
    let budget_min = max_minutes.unwrap_or(per_repetition * f64::from(shape.repeat.max(1)));
    if !(budget_min > 0.0 && budget_min.is_finite()) {
        return Err(PlanError::BadBudget(budget_min));
    }
    let budget_s = budget_min * 60.0;
    let repeat = f64::from(shape.repeat.max(1));
    let build = |per_kind: Option<usize>, max_p: usize| {
        let ks: Vec<KernelPlan> = kernels
            .iter()
            .map(|k| budget_of(k, shape, per_kind, max_p))
            .collect();
        let total = repeat * ks.iter().map(|k| k.estimate_s).sum::<f64>();
        (ks, total)
    };
    let full_p = shape.cpus.len().max(2);
    let first = if shape.config.quick {
        Some(
            shape
                .config
                .c2c_pairs_per_kind
                .unwrap_or(C2C_QUICK_PER_KIND),
        )
    } else {
        shape.config.c2c_pairs_per_kind
    };
    // Candidate samplings, largest first.
    let mut candidates: Vec<(Option<usize>, usize)> = vec![(first, full_p)];
    let mut n = first.unwrap_or(usize::MAX / 2).min(4096);
    while n > 1 {
        n /= 2;
        candidates.push((Some(n.max(1)), full_p));
    }
    let mut p = full_p;
    while p > 16 {
        p /= 2;
        candidates.push((Some(1), p));
    }
    let mut smallest = f64::INFINITY;
    for (per_kind, max_p) in candidates {
        let (ks, kernels_s) = build(per_kind, max_p);
        let order: Vec<f64> = (0..shape.repeat.max(1))
            .flat_map(|_| ks.iter().map(|k| k.estimate_s))
            .collect();
        let fixed = fixed_costs(shape, &order);
        let total = kernels_s + fixed.iter().map(|f| f.seconds).sum::<f64>();
        smallest = smallest.min(total);
        if total <= budget_s {
            let sampled = describe_sampling(&ks, per_kind, first, max_p, full_p);
            return Ok(RunPlan {
                kernels: ks,
                budget_s,
                repeat: shape.repeat.max(1),
                fixed,
                total_s: total,
                sampled,
                c2c_per_kind: per_kind,
                max_processors: max_p,
            });
        }
    }
    Err(PlanError::TooSmall {
        budget_min,
        smallest_min: smallest / 60.0,
    })
}

fn describe_sampling(
    ks: &[KernelPlan],
    per_kind: Option<usize>,
    first: Option<usize>,
    max_p: usize,
    full_p: usize,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(c2c) = ks.iter().find(|k| k.pairs.is_some())
        && let Some((n, all)) = c2c.pairs
        && n < all
    {
        let why = if per_kind == first {
            "quick mode"
        } else {
            "to fit the budget"
        };
        out.push(format!(
            "c2c: {n} of {all} pairs ({} per distance class and core types, spread over the machine; {why})",
            per_kind.unwrap_or(0)
        ));
    }
    if max_p < full_p {
        out.push(format!(
            "CoMet collectives: processor counts up to {max_p} of {full_p} CPUs (to fit the budget)"
        ));
    }
    out
}
