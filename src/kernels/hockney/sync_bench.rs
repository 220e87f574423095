//! `hockney-sync` one Criterion sample at a time: what `cargo bench` measures
//! of a synchronisation method (Hockney, section 3.2, eq. (10b), Table II), and
//! the kernel's own result from it.
//!
//! A sample is one round of the kernel's (`sync_sweep`) over a single
//! grain, on a fresh instantiation of the method (team, synchronisation
//! objects, vectors of half the L2, as `halfperf run hockney-sync` sizes
//! them): the pair probe on the method's own threads where it takes one, the
//! grain's batch timed as the kernel times it (its segments calibrated once
//! to the kernel's batch target, 1 ms quick and 10 ms otherwise, then split
//! into up to [`super::sync::SUB_BATCHES`] sub-batches, an asleep grain's a
//! segment each, whose median time and sleeps per segment the sample keeps),
//! the system-call probe, and the rate probe on every processor at once. So
//! a sample carries what a round of the kernel carries for that grain, and
//! [`bench_result`] hands the samples to the kernel's own result
//! (`method_result`): the awake rounds' `t0` and `t_wake` where the short
//! grains slept in some samples and not in others, `r_inf` from the rate
//! probe where the long grains slept, the split fit's bootstrap intervals,
//! the probes beside them.
//!
//! Criterion's count of iterations does not set the batch: a sample tells
//! Criterion the segment time times its count ([`criterion_time`]). Batches
//! of Criterion's length (up to 50 ms of segments in a quick pass against
//! the kernel's 1 ms) timed a run of asleep segments where the kernel times
//! one, which moved `t_wake` (events 34 us against 24 on a 2-vCPU VM).
//!
//! Departures from the kernel, because Criterion takes a grain's samples one
//! after the other: a "round" of the fit is a sample index, whose samples of
//! different grains were taken at different times, so the rounds are not
//! filtered by the machine's state (the pair probes of all samples stand
//! beside `t0` instead); the probes' repetitions are fixed ([`PROBES`]), not
//! calibrated; the grains are the bench's, the same on every machine, not a
//! pilot's; a batch is not resized after one that strayed.

use super::rate_probe::Serial;
use super::sync_method::with_method;
use super::sync_plan::{GrainSamples, Method, MethodSweep, SERIAL_ELEMENTS, SyncPlan, max_grain};
use super::sync_result::method_result;
use super::sync_sweep::{Calibration, one_round};
use crate::control::Placement;
use crate::kernels::KernelError;
use crate::kernels::harness::timing::calibrate;
use crate::model::interval;
use crate::platform::{ClockInfo, Topology};
use crate::results::KernelResult;
use std::time::Duration;

/// The probes' repetitions in a sample: two-flag round trips (about 0.1 ms
/// spinning), passes of the serial multiply on every processor (about 0.1
/// ms) and system calls (about 0.05 ms).
pub const PROBES: [u64; 3] = [1000, 100, 200];

/// What one sample of a method at a grain measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyncSample {
    /// A segment's time, ns, the median over the sub-batches (the clock's
    /// read cost subtracted).
    pub time_ns: f64,
    /// Voluntary context switches per segment, the median over the
    /// sub-batches: how often a hand-over slept.
    pub blocks_per_segment: f64,
    /// Involuntary context switches per second of the sub-batches.
    pub preempted_per_s: f64,
    /// The rate probe: one processor's rate on the serial multiply while
    /// every processor runs it, flop/ns.
    pub serial_flop_per_ns: f64,
    /// The two-flag round trip on the method's own threads, ns, where the
    /// method takes it ([`Method::probes_in_team`] on CPUs of their own).
    pub pair_ns: Option<f64>,
    /// One system call that wakes nobody, ns.
    pub syscall_ns: f64,
}

/// The plan of the bench's samples on `cpus` (P = their number, at least 2,
/// sharing CPUs when fewer): vectors of half the L2 as the kernel's, each
/// grain's batch calibrated to `target` (the kernel's batch target, see
/// `RunConfig::batch_target`), waits of at most ten seconds.
pub fn bench_plan(topology: &Topology, cpus: &[usize], target: Duration) -> SyncPlan {
    let parts = cpus.len().max(2);
    SyncPlan {
        cpus: cpus.to_vec(),
        parts,
        grains: None,
        points: 1,
        max_grain: max_grain(topology, cpus[0], parts),
        trials: 1,
        target,
        wait_timeout: Duration::from_secs(10),
        oversubscribe: cpus.len() < parts,
        skip_part: None,
    }
}

/// The bit of a grain that asks for its segments in the asleep regime (the
/// kernel's: every post held back so that every blocking wait sleeps), for
/// the methods with [`Method::two_regimes`]; [`bench_result`] takes the
/// grains with it as the asleep ones.
pub const ASLEEP: usize = super::sync_plan::ASLEEP;

/// One sample: a round over `grain` flop (rounded up to a multiple of P;
/// with the [`ASLEEP`] bit, in the asleep regime) with `method`, verified,
/// and the probes. Its batch is `*segments` segments, or where that is 0
/// the batch calibrated in this sample to `plan.target`, as the kernel
/// calibrates a grain before its rounds, and left in `*segments` for the
/// grain's next samples.
pub fn sync_sample(
    method: Method,
    plan: &SyncPlan,
    grain: usize,
    segments: &mut u64,
    clock: &ClockInfo,
) -> Result<SyncSample, KernelError> {
    let asleep = grain & ASLEEP;
    let grain = ((grain & !ASLEEP).div_ceil(plan.parts).max(1) * plan.parts) | asleep;
    let given = *segments;
    let own_cpus = !plan.shared_cpus() && matches!(plan.cpus.as_slice(), [a, b, ..] if a != b);
    let in_team = method.probes_in_team() && own_cpus;
    let driver = |batch: &mut super::team_batch::Batch<'_>| {
        let mut probe = Serial::new(SERIAL_ELEMENTS);
        probe.batch(1);
        let reps = match given {
            0 => calibrate(plan.target, |r| batch(grain, r))?,
            n => n,
        };
        let cal = Calibration::fixed(grain, reps, PROBES);
        let round = one_round(
            &cal,
            &mut [reps],
            in_team,
            own_cpus,
            clock,
            batch,
            &mut probe,
        )?;
        let [time_ns, blocks_per_segment, preempted_per_s] = round.grains[0];
        let sample = SyncSample {
            time_ns,
            blocks_per_segment,
            preempted_per_s,
            serial_flop_per_ns: round.serial,
            pair_ns: round.pair,
            syscall_ns: round.syscall,
        };
        Ok((sample, reps))
    };
    let ((sample, reps), _) = with_method(method, plan, &driver)?;
    *segments = reps;
    Ok(sample)
}

/// What a sample tells Criterion for `iters` iterations: its segment time
/// times `iters`.
pub fn criterion_time(sample: &SyncSample, iters: u64) -> Duration {
    Duration::from_secs_f64((sample.time_ns * iters as f64).max(0.0) * 1e-9)
}

/// One grain's samples: the grain (flop), the most segments a sample had,
/// and the samples.
pub type GrainRun = (usize, u64, Vec<SyncSample>);

/// `hockney-sync`'s result of `method` from its grains' samples (ascending,
/// the first `short` the short grains; those with the [`ASLEEP`] bit, of a
/// method with two regimes, its asleep grains), by the kernel's own
/// result (`method_result`). Sample `r` of every grain is round `r`; a round's rate
/// and system-call probes are their medians over its grains. The pair probes
/// of all samples stand beside `t0`, or `others` (another method's) where
/// this method took none (the TASKS).
pub fn bench_result(
    method: Method,
    grains: &[GrainRun],
    short: usize,
    plan: &SyncPlan,
    t0_clock_ns: f64,
    others: &[f64],
) -> KernelResult {
    let grains: Vec<&GrainRun> = grains.iter().filter(|g| !g.2.is_empty()).collect();
    let rounds = grains.iter().map(|g| g.2.len()).min().unwrap_or(0);
    let per_round = |of: fn(&SyncSample) -> f64| -> Vec<f64> {
        (0..rounds)
            .filter_map(|r| {
                let mut v: Vec<f64> = grains.iter().map(|g| of(&g.2[r])).collect();
                interval::median_in_place(&mut v)
            })
            .collect()
    };
    let serial_rounds = per_round(|s| s.serial_flop_per_ns);
    let mut serial = serial_rounds.clone();
    let samples_of = |asleep: bool| -> Vec<GrainSamples> {
        grains
            .iter()
            .filter(|g| (g.0 & ASLEEP != 0) == asleep)
            .map(|(grain, reps, samples)| GrainSamples {
                grain: *grain & !ASLEEP,
                reps: *reps,
                samples_ns: samples.iter().map(|s| s.time_ns).collect(),
                blocks_per_segment: samples.iter().map(|s| s.blocks_per_segment).collect(),
                preempted_per_s: samples.iter().map(|s| s.preempted_per_s).collect(),
            })
            .collect()
    };
    let awake = samples_of(false);
    let sweep = MethodSweep {
        method,
        short: short.min(awake.len()),
        grains: awake,
        asleep: samples_of(true),
        serial_flop_per_ns: interval::median_in_place(&mut serial).unwrap_or(f64::NAN),
        serial_rounds,
        pair_rounds: Vec::new(),
        syscall_rounds: per_round(|s| s.syscall_ns),
        placement: match plan.shared_cpus() {
            true => Placement::Oversubscribed,
            false => Placement::Pinned,
        },
    };
    let own = pair_probes(grains.iter().map(|g| &g.2[..]));
    let around = if own.is_empty() { others } else { &own };
    method_result(&sweep, plan, t0_clock_ns, &[], around)
}

/// The pair probes of a method's samples, ns.
pub fn pair_probes<'a>(samples: impl Iterator<Item = &'a [SyncSample]>) -> Vec<f64> {
    samples.flatten().filter_map(|s| s.pair_ns).collect()
}

#[cfg(test)]
#[path = "sync_bench_tests.rs"]
mod tests;
