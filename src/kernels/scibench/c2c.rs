//! `c2c`: the core-to-core latency matrix: 8-byte mailbox ping-pong between every
//! pair of the CPUs in use (each pair its own two-rank team).

use super::super::timing::summarize_trials;
use super::super::{KernelError, KernelSpec, RunContext};
use super::pair::{PairPlan, Pattern, run_on};
use crate::control::Placement;
use crate::kernels::headline;
use crate::model::interval;
use crate::model::stats::Summary;
use crate::platform::DistanceClass;
use crate::results::{KernelResult, Param, Point};
use crate::team::Team;
use crate::transport::TransportConfig;
use crate::transport::mailbox::Mailbox;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "c2c";

pub(super) const C2C: KernelSpec = KernelSpec {
    name: NAME,
    method: "scibench",
    paper: "Gonzalez 2000, section 5.1 (PP), over all CPU pairs",
    about: "core-to-core 8-byte ping-pong latency matrix over every pair of CPUs (mailbox)",
    in_quick_suite: true,
    run,
};

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    #[cfg(feature = "mpi")]
    if let Some(procs) = ctx.processes {
        return super::over_mpi::c2c(ctx, procs.get());
    }
    let cpus = ctx.cpus();
    let pairs: Vec<(usize, usize)> = cpus
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| cpus[i + 1..].iter().map(move |&b| (a, b)))
        .collect();
    if pairs.is_empty() {
        return Err(KernelError::NotRunnable {
            kernel: NAME.into(),
            reason: format!("it needs at least 2 CPUs and has {cpus:?}"),
        });
    }
    ctx.progress.begin(NAME, pairs.len() as u64);
    let mut points = Vec::new();
    let mut warnings = Vec::new();
    let sizes = [8usize];
    for &(a, b) in &pairs {
        if ctx.cancelled() {
            return Err(KernelError::Interrupted);
        }
        let team = Team::new(&ctx.team_spec(vec![a, b], 2, false))?;
        let plan = PairPlan {
            pattern: Pattern::PingPong,
            sizes: &sizes,
            trials: ctx.config.trials(),
            target: ctx.config.batch_target(ctx.clock),
            clock: ctx.clock,
            fault: ctx.config.fault,
            single_round_trips: 1_000,
            on_size: &|_| {},
            cancelled: &|| false,
        };
        let samples = run_on::<Mailbox>(&team, NAME, &TransportConfig::for_messages(16), &plan)?;
        let (summary, warning) =
            summarize_trials(&samples.sizes[0].samples_ns, &format!("CPUs {a}-{b}"));
        warnings.extend(warning);
        let class = ctx.topology.distance(a, b).map_or(-1.0, |c| c as u8 as f64);
        points.push(
            Point::new()
                .with("cpu_a", a as f64)
                .with("cpu_b", b as f64)
                .with("distance_class_index", class)
                .with("size_bytes", 8.0)
                .with_stats("one_way_ns", summary),
        );
        ctx.progress.step(&format!("CPUs {a}-{b}"));
    }
    ctx.progress.end();
    let classes: Vec<Option<DistanceClass>> = pairs
        .iter()
        .map(|&(a, b)| ctx.topology.distance(a, b))
        .collect();
    let headline = class_headline(&points, &classes);
    Ok(vec![
        KernelResult::new(NAME, "scibench", Placement::Pinned, cpus)
            .with_transport(Some("mailbox"))
            .with_ranks(2)
            .with_points(points)
            .with_warnings(warnings)
            .with_headline(headline),
    ])
}

/// Per distance class: the minimum, median and maximum over its pairs of each
/// pair's median one-way time (`classes[i]` the class of `points[i]`'s pair).
/// One pair: its median with the trials' range; more: percentile bootstrap over
/// the pairs.
pub(super) fn class_headline(points: &[Point], classes: &[Option<DistanceClass>]) -> Vec<Param> {
    let mut out = Vec::new();
    for class in DistanceClass::ALL {
        let of = class.to_string();
        let in_class: Vec<&Summary> = points
            .iter()
            .zip(classes)
            .filter(|(_, c)| **c == Some(class))
            .filter_map(|(p, _)| p.stats("one_way_ns"))
            .collect();
        match in_class.as_slice() {
            [] => {}
            [one] => {
                for name in ["one_way_ns_min", "one_way_ns_median", "one_way_ns_max"] {
                    out.push(headline::median_with_range(name, Some(&of), one));
                }
            }
            many => {
                let v: Vec<f64> = many.iter().map(|s| s.median).collect();
                let stats = |idx: &[usize]| {
                    let mut x: Vec<f64> = idx.iter().map(|&i| v[i]).collect();
                    let med = interval::median_in_place(&mut x)?;
                    Some(vec![x[0], med, x[x.len() - 1]])
                };
                let all: Vec<usize> = (0..v.len()).collect();
                let value = stats(&all).expect("finite medians");
                let ci =
                    interval::bootstrap(v.len(), 3, interval::RESAMPLES, interval::SEED, stats);
                for (k, name) in ["one_way_ns_min", "one_way_ns_median", "one_way_ns_max"]
                    .into_iter()
                    .enumerate()
                {
                    out.push(
                        Param::new(name, Some(&of), value[k])
                            .with_ci(ci[k], "percentile bootstrap over the class's CPU pairs"),
                    );
                }
            }
        }
    }
    out
}
