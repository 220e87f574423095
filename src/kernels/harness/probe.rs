//! The probe of the machine's state: the CPU pair's two-flag round trip
//! ([`super::flags::atomic_flag_round_trip`]), timed during a kernel
//! beside its own measurements.
//!
//! On a shared or virtualised machine the cost of crossing between cores takes
//! different states for milliseconds to minutes. A kernel that probes records the
//! probes' median and range as the headline parameter [`PROBE_PARAM`], so that a
//! parameter that moved between two runs can be set beside the probe that moved
//! with it (`run --repeat K` does: [`crate::analysis::repeat_spread`]), and warns
//! ([`probe_warning`]) when the probes moved by more than [`PROBE_MOVED`] within
//! the kernel.
//!
//! Kernels that probe between their own measurements (the ping-pong kernels,
//! `hockney-sync`, the decomposition) record each probe beside what it
//! qualifies. The others that run between threads on two CPUs or more (CoMet's
//! kernels) are probed around their whole run (`around`): one probe of the kernel's
//! first CPU pair before it and one after, so that `compare` can tell a
//! barrier that slowed with the machine from one that slowed alone.
//! `speedup` probes the pair around its `T_ML` calibration, whose chain of
//! hosted nodes crosses the same two CPUs on every link.

use super::flags::{CopyPair, atomic_flag_round_trip, copy_round_trip};
use super::timing::{Timer, measure};
use crate::kernels::headline::median_with_range;
use crate::kernels::{KernelError, RunContext};
use crate::model::stats::summarize;
pub use crate::results::{COPY_PROBE_PARAM, PROBE_PARAM, SYSCALL_PROBE_PARAM};
use crate::results::{KernelResult, Param, num, ratio_to_probe, recorded_probe};
use crate::team::TeamError;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The time of the pair and copy probes (their teams, calibrations and
/// batches), ns, summed over the process: printed per kernel with
/// `HALFPERF_PHASES` set (`crate::suite`).
pub static PROBE_NS: AtomicU64 = AtomicU64::new(0);

/// The two-flag round trip of the first two of `cpus`, ns: one sample per
/// trial, each a batch of the run's target length; empty with fewer than two
/// CPUs, or one CPU named twice.
pub fn pair_round_trips_ns(ctx: &RunContext<'_>, cpus: &[usize]) -> Result<Vec<f64>, KernelError> {
    pair_samples(ctx, cpus, atomic_flag_round_trip)
}

/// Per-repetition times, ns, of `batch(team, reps)` on a team of the first two
/// of `cpus`: one sample per trial, each a batch of the run's target length;
/// empty with fewer than two CPUs, or one CPU named twice.
fn pair_samples(
    ctx: &RunContext<'_>,
    cpus: &[usize],
    mut batch: impl FnMut(&crate::team::Team, u64) -> Result<Duration, TeamError>,
) -> Result<Vec<f64>, KernelError> {
    let [a, b, ..] = cpus else {
        return Ok(Vec::new());
    };
    if a == b {
        return Ok(Vec::new());
    }
    let start = Timer::start();
    let team = crate::team::Team::new(&ctx.team_spec(vec![*a, *b], 2, false))?;
    let (_, samples) = measure(
        ctx.config.trials(),
        ctx.config.batch_target(ctx.clock),
        ctx.clock,
        |reps| batch(&team, reps),
    )?;
    // Relaxed: a tally, read after the kernel's threads have joined.
    PROBE_NS.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    Ok(samples)
}

/// The copy probe of the first two of `cpus`, ns per byte one way
/// ([`CopyPair`]): one sample per trial, each a
/// batch of the run's target length; empty with fewer than two CPUs, or one
/// CPU named twice.
pub(crate) fn pair_copy_ns_per_byte(
    ctx: &RunContext<'_>,
    cpus: &[usize],
) -> Result<Vec<f64>, KernelError> {
    // One pair of buffers for every batch, its round trips numbered on.
    let copy = CopyPair::default();
    let mut done = 0;
    let samples = pair_samples(ctx, cpus, |team, reps| {
        copy_round_trip(team, &copy, &mut done, reps)
    })?;
    Ok(samples.into_iter().map(|ns| copy.ns_per_byte(ns)).collect())
}

/// Runs `kernel` between two probes of the run's first CPU pair and records
/// them on every result it returns that carries no probe of its own
/// ([`record`]). With fewer than two CPUs nothing is probed.
pub(crate) fn around(
    ctx: &RunContext<'_>,
    kernel: impl FnOnce() -> Result<Vec<KernelResult>, KernelError>,
) -> Result<Vec<KernelResult>, KernelError> {
    let (mut results, probes) = between(ctx, &ctx.cpus(), kernel)?;
    for r in &mut results {
        if !r.headline.iter().any(|h| h.name == PROBE_PARAM) {
            record(r, &probes);
        }
    }
    Ok(results)
}

/// Runs `work` between two probes of the first two of `cpus`; returns what
/// it returned and both probes' batches (none with fewer than two CPUs).
pub(crate) fn between<T>(
    ctx: &RunContext<'_>,
    cpus: &[usize],
    work: impl FnOnce() -> Result<T, KernelError>,
) -> Result<(T, Vec<f64>), KernelError> {
    let before = pair_round_trips_ns(ctx, cpus)?;
    let out = work()?;
    let after = pair_round_trips_ns(ctx, cpus)?;
    Ok((out, before.into_iter().chain(after).collect()))
}

/// Records `probes` on `r`: the headline [`PROBE_PARAM`] (their median, their
/// range as its interval), and [`probe_warning`]'s warning when they moved by
/// more than [`PROBE_MOVED`].
pub(crate) fn record(r: &mut KernelResult, probes: &[f64]) {
    r.headline.extend(probe_param(probes, None));
    r.warnings.extend(probe_warning(probes));
}

/// The system-call probe of a method ([`SYSCALL_PROBE_PARAM`]) from its
/// rounds' samples, ns, as [`sampled_probe`] gives it. None without samples.
pub(crate) fn syscall_probe(
    rounds: &[f64],
    of: Option<&str>,
    warnings: &mut Vec<String>,
) -> Option<Param> {
    sampled_probe(
        SYSCALL_PROBE_PARAM,
        of,
        rounds.to_vec(),
        warnings,
        |q1, q3, n| {
            format!(
                "system calls changed speed during the kernel: a futex wake's middle half ranged {} to {} ns over {n} rounds",
                num(q1),
                num(q3)
            )
        },
    )
}

/// A probe sampled once a round (`samples`, those finite and above zero
/// kept): their median as the headline `name`, the percentile bootstrap of
/// the median over them as its interval (their range would judge a median
/// by its extremes); and `moved(q1, q3, count)` in `warnings` when their
/// middle half spans more than [`PROBE_MOVED`]: single batches stray by
/// tens of per cent (an interrupt, the host taking the vCPU for a moment),
/// while a change of the machine's state moves the middle half. None
/// without samples.
pub(crate) fn sampled_probe(
    name: &str,
    of: Option<&str>,
    mut samples: Vec<f64>,
    warnings: &mut Vec<String>,
    moved: impl FnOnce(f64, f64, usize) -> String,
) -> Option<Param> {
    samples.retain(|v| v.is_finite() && *v > 0.0);
    let median = crate::model::interval::median_in_place(&mut samples)?;
    let quartile = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    let (q1, q3) = (quartile(0.25), quartile(0.75));
    if q3 / q1 - 1.0 > PROBE_MOVED {
        warnings.push(moved(q1, q3, samples.len()));
    }
    let ci = crate::model::interval::median_bootstrap(&samples);
    Some(Param::new(name, of, median).with_ci(ci, crate::model::interval::BOOTSTRAP_ROUNDS))
}

/// How far (relative) the round-trip probes may move before [`probe_warning`] warns.
pub const PROBE_MOVED: f64 = 0.2;

/// A warning when the probes of the CPU pair's round trip moved by more than
/// [`PROBE_MOVED`] (max/min - 1) during a kernel: the machine changed state.
pub fn probe_warning(probes: &[f64]) -> Option<String> {
    let lo = probes.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = probes.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (probes.len() >= 2 && lo > 0.0 && hi / lo - 1.0 > PROBE_MOVED).then(|| {
        format!(
            "the machine changed state during the kernel: the CPU pair's two-flag round trip ranged {} to {} ns over {} probes",
            num(lo),
            num(hi),
            probes.len()
        )
    })
}

/// The headline [`PROBE_PARAM`] of `probes` (their median, and their range as the
/// interval from five probes on), or `None` without a finite probe.
pub fn probe_param(probes: &[f64], of: Option<&str>) -> Option<Param> {
    let finite: Vec<f64> = probes.iter().copied().filter(|p| p.is_finite()).collect();
    let s = summarize(&finite).ok()?;
    Some(median_with_range(PROBE_PARAM, of, &s))
}

/// The headline [`COPY_PROBE_PARAM`] of a sweep's copy probes (ns per byte one
/// way, one a round): their median, and their range as the interval from
/// five on; `None` without a finite one.
pub fn copy_probe_param(per_byte: &[f64]) -> Option<Param> {
    let finite: Vec<f64> = per_byte.iter().copied().filter(|p| p.is_finite()).collect();
    let s = summarize(&finite).ok()?;
    Some(median_with_range(COPY_PROBE_PARAM, None, &s))
}

/// The probe a result recorded for the parameters `of` qualifies: the
/// [`PROBE_PARAM`] with the same qualifier, else the result's only one.
pub fn probe_of(r: &KernelResult, of: Option<&str>) -> Option<f64> {
    recorded_probe(r, of).map(|p| p.value)
}

/// A latency-like parameter over the probe's one-way time (half its round trip):
/// `name_over_probe`, a ratio that holds still when the machine's state moves
/// both alike. Its interval divides the parameter's bounds by the probe's
/// opposite bounds; `None` when the probe is missing or not positive.
pub fn over_probe(p: &Param, probe: &Param) -> Option<Param> {
    let (ratio, ci) = ratio_to_probe(p.value, p.ci95, probe.value, probe.ci95)?;
    let name = format!("{}_over_probe", p.name.trim_end_matches("_ns"));
    Some(Param::new(&name, p.of.as_deref(), ratio).with_ci(ci, OVER_PROBE))
}

/// How an [`over_probe`] interval is described.
pub const OVER_PROBE: &str =
    "bounds from the parameter's interval and the range of the probes' one-way time";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::Placement;

    /// Probes 100, 110, 130 ns: moved 30 % > 20 %, the warning names 100 to 130;
    /// 100 and 115 (15 %) and a single probe do not warn.
    #[test]
    fn a_probe_that_moved_a_fifth_warns_with_its_range() {
        let w = probe_warning(&[100.0, 110.0, 130.0]).unwrap();
        assert!(w.contains("ranged 100.0 to 130.0 ns over 3 probes"), "{w}");
        assert_eq!(probe_warning(&[100.0, 115.0]), None);
        assert_eq!(probe_warning(&[100.0]), None);
    }

    /// Five probes 120, 118, 440, 122, 125: median 122, interval their range
    /// 118..440; NaN probes are left out; none at all gives none.
    #[test]
    fn the_probe_param_is_the_median_with_the_range() {
        let p = probe_param(&[120.0, 118.0, 440.0, f64::NAN, 122.0, 125.0], None).unwrap();
        assert_eq!(p.name, PROBE_PARAM);
        assert_eq!(p.value, 122.0);
        assert_eq!(p.ci95, Some([118.0, 440.0]));
        assert!(probe_param(&[f64::NAN], None).is_none());
    }

    /// t_startup 120 ns [110, 130] over a probe of 120 ns round trip [100, 140]:
    /// 120 / 60 = 2, bounds 110 / 70 and 130 / 50.
    #[test]
    fn a_latency_over_the_probe_is_over_its_one_way_time() {
        let t = Param::new("t_startup_ns", None, 120.0).with_ci(Some([110.0, 130.0]), "x");
        let probe = Param::new(PROBE_PARAM, None, 120.0).with_ci(Some([100.0, 140.0]), "y");
        let r = over_probe(&t, &probe).unwrap();
        assert_eq!(r.name, "t_startup_over_probe");
        assert_eq!(r.value, 2.0);
        let [lo, hi] = r.ci95.unwrap();
        assert!((lo - 110.0 / 70.0).abs() < 1e-12 && (hi - 130.0 / 50.0).abs() < 1e-12);
        let mut result = KernelResult::new("pingpong", "scibench", Placement::Pinned, vec![0, 1]);
        result.headline = vec![t, probe];
        assert_eq!(probe_of(&result, Some("spin-hint")), Some(120.0));
    }
}
