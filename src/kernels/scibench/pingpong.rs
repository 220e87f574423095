//! `pingpong`: scibench's PP test (Fig. 7) between two pinned CPUs, over every
//! transport, with the two-atomic-flag baseline measured on the same pair in the
//! same run.

use super::super::timing::{measure, summarize_trials};
use super::super::{KernelError, KernelSpec, RunContext};
use super::baseline::atomic_flag_round_trip;
use super::pair::{Pattern, choose_pair, sweep};
use crate::results::{KernelResult, Point};
use crate::team::Team;

pub(super) const PINGPONG: KernelSpec = KernelSpec {
    name: "pingpong",
    method: "scibench",
    paper: "Gonzalez 2000, section 5.1, Fig. 7 and Appendix A",
    about: "ping-pong latency (half the round trip) between two CPUs per transport and message size, with t_startup + N t_per_byte",
    in_quick_suite: true,
    run,
};

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let mut results = sweep(ctx, "pingpong", Pattern::PingPong)?;
    results.push(baseline(ctx)?);
    Ok(results)
}

/// The two-flag baseline at 8 bytes, one-way = round trip / 2.
fn baseline(ctx: &RunContext<'_>) -> Result<KernelResult, KernelError> {
    let cpus = choose_pair(ctx, "pingpong")?;
    let team = Team::new(&ctx.team_spec(cpus.clone(), 2, false))?;
    let (reps, samples) = measure(
        ctx.config.trials(),
        ctx.config.batch_target(ctx.clock),
        ctx.clock,
        |reps| atomic_flag_round_trip(&team, reps),
    )?;
    let one_way: Vec<f64> = samples.iter().map(|s| s / 2.0).collect();
    let (summary, warning) = summarize_trials(&one_way, "baseline 8 B");
    Ok(KernelResult {
        kernel: "pingpong".into(),
        method: "scibench".into(),
        transport: Some("atomic-flags".into()),
        cpus: cpus.clone(),
        distance_class: (cpus.len() == 2)
            .then(|| ctx.topology.distance(cpus[0], cpus[1]))
            .flatten(),
        placement: team.placement(),
        ranks: 2,
        points: vec![
            Point::new()
                .with("size_bytes", 8.0)
                .with("reps", reps as f64)
                .with_stats("one_way_ns", summary),
        ],
        fits: Vec::new(),
        warnings: warning.into_iter().collect(),
        load: None,
        elapsed_s: 0.0,
    })
}
