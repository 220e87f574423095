//! The run plan: for this machine and these options, which kernels run, on
//! which processors and pairs, and how long each takes, before anything is
//! timed (`halfperf run --plan`, and the head of every run); and the sampling
//! that keeps a plan within its budget (`--max-minutes`; by default a minute
//! for `--quick`, twenty for a full run).
//!
//! Each kernel's estimate is [`budget`]'s: the kernel's points on this shape
//! (from the same sweep functions the kernel runs: its pairs, its processor
//! counts, its sizes) times the cost of a point. A point costs `trials x
//! batch target` (the kernel's own [`RunConfig::trials`] and
//! [`RunConfig::batch_target`]) plus a set-up of [`POINT_SETUP_S`]; the
//! per-kernel constant that turns points into seconds was calibrated on
//! quick runs of a 2-CPU machine (the 2-vCPU result files in `results/`,
//! median of five repetitions) and is scaled from there by points and by the
//! cost of a point. So the estimate of a quick run on a 2-CPU machine is the
//! calibration itself, and a 128-CPU machine's differs by what its pairs
//! and processor counts add.
//!
//! The total adds the run's own costs outside its kernels ([`fixed_costs`]:
//! the preheat, the clock measurements, the load check's idle samples); a
//! kernel's calibration is its `elapsed_s`, which holds its team's start,
//! probes, warm-ups and fits. `scripts/plan-check.sh` sets the plan beside a
//! timed quick run, kernel by kernel, to check (and recalibrate) it.
//!
//! Sampling, in order, until the plan fits: c2c's pairs per kind (distance
//! class and core types) down to one; the CoMet collectives' processor
//! counts down to their base list. A plan whose smallest form does not fit is
//! refused. Invariants: sampling never removes a kernel or a distance class;
//! the plan's c2c pairs are the kernel's ([`c2c_pairs`] serves both).

use super::{KernelSpec, RunConfig};
use crate::platform::{ClockInfo, PairKind, Topology};
use serde::Serialize;
use std::time::Duration;

/// The set-up of one point (a team's start, its first round), s.
pub const POINT_SETUP_S: f64 = 0.01;

/// c2c's pairs per kind in a quick run.
pub const C2C_QUICK_PER_KIND: usize = 2;

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
    /// Estimated time, s.
    pub estimate_s: f64,
}

/// The whole plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunPlan {
    /// The kernels in order.
    pub kernels: Vec<KernelPlan>,
    /// The budget, s.
    pub budget_s: f64,
    /// The run's own costs around the kernels ([`fixed_costs`]).
    pub fixed: Vec<FixedCost>,
    /// The sum of the kernels' estimates and the fixed costs, s.
    pub total_s: f64,
    /// What was sampled to fit, one line each.
    pub sampled: Vec<String>,
    /// c2c's pairs per kind (`None`: every pair).
    pub c2c_per_kind: Option<usize>,
    /// The largest processor count of the CoMet collectives.
    pub max_processors: usize,
}

/// The processor counts of the CoMet collectives: the base list (2, 4, 8;
/// with 9 and 16 in a full run), then the powers of two up to `cpus`.
pub fn collective_processors(quick: bool, cpus: usize) -> Vec<usize> {
    let mut v = if quick {
        vec![2, 4, 8]
    } else {
        vec![2, 4, 8, 9, 16]
    };
    let mut p = 32;
    while p <= cpus {
        v.push(p);
        p *= 2;
    }
    v
}

/// The CPU pairs c2c measures among `cpus`: every pair, or `per_kind` of each
/// kind spread over the kind's pairs.
pub fn c2c_pairs(
    topology: &Topology,
    cpus: &[usize],
    per_kind: Option<usize>,
) -> Vec<(Option<PairKind>, usize, usize)> {
    let known: Vec<usize> = cpus
        .iter()
        .copied()
        .filter(|&c| topology.cpu(c).is_some())
        .collect();
    if per_kind.is_none() || known.len() < cpus.len() {
        // Every pair, in the order given (CPUs the topology does not know
        // have no kind to sample by).
        return cpus
            .iter()
            .enumerate()
            .flat_map(|(i, &a)| cpus[i + 1..].iter().map(move |&b| (a, b)))
            .map(|(a, b)| (topology.pair_kind(a, b), a, b))
            .collect();
    }
    topology
        .representative_pairs(cpus, per_kind)
        .into_iter()
        .map(|(k, a, b)| (Some(k), a, b))
        .collect()
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
/// `kernels_s`: the preheat (`config.preheat_ms`), the two clock
/// measurements, and the idle samples of the load check (one, and one more
/// for every [`super::IDLE_SAMPLE_REUSE`] the kernels last; on a quiet
/// machine the check reuses its sample that long).
pub fn fixed_costs(shape: &Shape<'_>, kernels_s: f64) -> Vec<FixedCost> {
    let samples = 1.0 + (kernels_s / super::IDLE_SAMPLE_REUSE.as_secs_f64()).floor();
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

/// The per-kernel calibration: seconds of a quick run on the 2-CPU reference
/// (2 transports), and its points there.
fn reference(kernel: &str) -> (f64, usize) {
    match kernel {
        "pingpong" => (0.58, 1),
        "oneway" => (0.31, 1),
        "c2c" => (0.02, 1),
        "sci-topology" => (0.45, 1),
        "hockney-vector" => (4.2, 1),
        "hockney-sync" => (2.8, 1),
        "decomposition" => (6.1, 1),
        "overheads" => (0.3, 1),
        "interference" => (0.45, 1),
        "comet-echo" => (0.73, 1),
        "comet-exchange" => (0.30, 1),
        "comet-broadcast" | "comet-global-sum" | "comet-barrier" => {
            let s = match kernel {
                "comet-broadcast" => 0.97,
                "comet-global-sum" => 0.67,
                _ => 0.24,
            };
            (s, collective_processors(true, 2).len())
        }
        "comet-contention" => (1.7, 1),
        "comet-overlap" => (0.37, 1),
        "comet-update-guard" => (0.18, 1),
        "comet-shift" => (0.45, 1),
        "comet-transpose" => (0.18, 1),
        "comet-row-col-broadcast" => (0.35, 1),
        "speedup" => (0.75, 1000),
        "soak" => (60.0, 1),
        _ => (1.0, 1),
    }
}

/// What a plan is computed for.
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    /// The machine.
    pub topology: &'a Topology,
    /// The CPUs the run may use.
    pub cpus: &'a [usize],
    /// The run's settings.
    pub config: &'a RunConfig,
    /// The clock (for the batch target's floor).
    pub clock: &'a ClockInfo,
}

/// The cost of one point in `config`'s mode over that of a quick point.
fn point_factor(shape: &Shape<'_>) -> f64 {
    let quick = RunConfig {
        quick: true,
        trials: None,
        ..shape.config.clone()
    };
    let cost = |c: &RunConfig| {
        c.trials() as f64 * c.batch_target(shape.clock).as_secs_f64() + POINT_SETUP_S
    };
    let transports = shape.config.transports.len().max(1) as f64 / 2.0;
    cost(shape.config) / cost(&quick) * transports
}

/// The budget of `kernel` on `shape` with c2c's `per_kind` and the
/// collectives' `max_p`: one entry of the plan.
pub fn budget(
    kernel: &'static str,
    shape: &Shape<'_>,
    per_kind: Option<usize>,
    max_p: usize,
) -> KernelPlan {
    let order = shape.topology.sweep_order(shape.cpus);
    let (ref_s, ref_points) = reference(kernel);
    let per_point = ref_s / ref_points as f64 * point_factor(shape);
    let (processors, points, pairs) = match kernel {
        "c2c" => {
            let all = order.len() * order.len().saturating_sub(1) / 2;
            let n = c2c_pairs(shape.topology, &order, per_kind).len();
            // With `--home third` every pair is timed twice.
            let homes = match shape.config.home {
                crate::platform::Home::Third => 2,
                _ => 1,
            };
            (vec![2], n * homes, Some((n, all)))
        }
        "comet-broadcast" | "comet-global-sum" | "comet-barrier" => {
            let ps = collective_processors(shape.config.quick, order.len().min(max_p));
            let n = ps.len();
            (ps, n, None)
        }
        "speedup" => {
            let ps = super::speedup::speedup_processors(shape.config.quick, order.len().min(max_p));
            let base = super::speedup::speedup_processors(shape.config.quick, 2).len();
            // Each rank count costs about the same (U split N ways, plus
            // the messages): the reference's points are its 4 counts.
            let n = ps.len();
            (ps, n.max(base) * 1000 / base, None)
        }
        _ => (vec![2], 1, None),
    };
    let used = processors
        .iter()
        .copied()
        .max()
        .unwrap_or(2)
        .min(order.len());
    KernelPlan {
        kernel,
        cpus: match kernel {
            "c2c" => order.clone(),
            _ => order[..used].to_vec(),
        },
        processors,
        pairs,
        points,
        estimate_s: per_point * points as f64,
    }
}

/// The plan of `kernels` on `shape` within `max_minutes` (default: 1 for a
/// quick run, 20 otherwise), sampling as the module says.
pub fn plan(
    kernels: &[&KernelSpec],
    shape: &Shape<'_>,
    max_minutes: Option<f64>,
) -> Result<RunPlan, PlanError> {
    let budget_min = max_minutes.unwrap_or(if shape.config.quick { 1.0 } else { 20.0 });
    if !(budget_min > 0.0 && budget_min.is_finite()) {
        return Err(PlanError::BadBudget(budget_min));
    }
    let budget_s = budget_min * 60.0;
    let build = |per_kind: Option<usize>, max_p: usize| {
        let ks: Vec<KernelPlan> = kernels
            .iter()
            .map(|k| budget(k.name, shape, per_kind, max_p))
            .collect();
        let total = ks.iter().map(|k| k.estimate_s).sum::<f64>();
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
        let fixed = fixed_costs(shape, kernels_s);
        let total = kernels_s + fixed.iter().map(|f| f.seconds).sum::<f64>();
        smallest = smallest.min(total);
        if total <= budget_s {
            let sampled = describe_sampling(&ks, per_kind, first, max_p, full_p);
            return Ok(RunPlan {
                kernels: ks,
                budget_s,
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
    if let Some(c2c) = ks.iter().find(|k| k.kernel == "c2c")
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

/// `plan` as text: one line per kernel, the total and what was sampled.
pub fn plan_text(p: &RunPlan) -> String {
    use std::fmt::Write;
    let mut s = String::from("plan:\n");
    for k in &p.kernels {
        let pairs = k
            .pairs
            .map(|(n, all)| format!(", {n}/{all} pairs"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  {:<24} {:>8}  P {:?}{pairs}, {} CPUs",
            k.kernel,
            fmt_secs(k.estimate_s),
            k.processors,
            k.cpus.len()
        );
    }
    for f in &p.fixed {
        let _ = writeln!(s, "  {:<24} {:>8}", f.what, fmt_secs(f.seconds));
    }
    let _ = writeln!(
        s,
        "  total {} of a {} budget",
        fmt_secs(p.total_s),
        fmt_secs(p.budget_s)
    );
    for line in &p.sampled {
        let _ = writeln!(s, "  sampled: {line}");
    }
    s
}

fn fmt_secs(s: f64) -> String {
    humantime_like(Duration::from_secs_f64(s.max(0.0)))
}

fn humantime_like(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 60.0 {
        format!("{s:.1} s")
    } else {
        format!("{:.1} min", s / 60.0)
    }
}
