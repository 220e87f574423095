//! A `hockney-sync` method's result from its sweep: the points, eq. (10b)
//! from the split fit with its check line, the warnings, and the headline
//! `r_inf`, `t_0` and `s_1/2` with their bootstrap intervals.
//!
//! Beside each point's time, `blocks_per_segment`: the process's voluntary
//! context switches per segment (`crate::platform::context_switches`), the
//! median over the rounds. A hand-over that sleeps (a futex wait) is one; a
//! spin is none. A method that blocks on some hand-overs and not on others
//! has two modes whose costs differ a hundredfold on a VM (a line transfer
//! against a wake-up of a sleeping virtual CPU), and which mode a run's short
//! grains took decides its `t_0`; the short grains' figure goes into the fit
//! as `short_blocks_per_segment` (`crate::results::BLOCKS_PARAM`), so that `compare` can say when two runs'
//! `t_0` differ because their hand-overs slept differently, and a warning
//! gives the rounds' range when they disagreed within the run. Beside it,
//! `preempted_per_s`: the involuntary context switches per second of the
//! batches (another task took a CPU from a runnable thread), per point and
//! as the fit's `short_preempted_per_s`: the record that a run's machine was
//! busy, which a change of mode is not.
//!
//! A method with two regimes ([`super::sync::Method::two_regimes`]) has its
//! grains timed with the waiter kept awake, so `t_0` is the awake hand-over's
//! by construction, and its two shortest grains again with the waiter made to
//! sleep: `t0_asleep_ns`, their time less the posts held back and their work,
//! and `t_wake_ns = t0_asleep - t_0`, what the sleep adds to a segment, each
//! with a bootstrap interval ([`asleep_regime`]); `blocks_over_waits` says, per
//! grain and per regime, what share of the segment's blocking waits slept.
//!
//! Where a method's short grains slept in some rounds and not in others
//! (the EVENTS and the std barrier on a VM: a round's batch either races,
//! every wait finding its event posted, or sleeps once or twice a segment),
//! `t_0` is taken from the rounds that did not sleep ([`awake_rounds`]), and
//! what a sleep adds, `t_wake_ns`, from those that did: per round, its time
//! less its work and the awake `t_0`, divided by its sleeps per segment, the
//! median over the short grains' sleeping rounds. The median over all rounds took whichever
//! mode held the majority, and which one did moved from run to run: six
//! quick runs on the 2-vCPU EPYC VM gave events-condvar's all-rounds median
//! 1.36, 5.70, 51.1, 1.46, 1.54 and 56.2 us, where its awake rounds gave
//! 1.16 to 1.45 us and a sleep 23 to 31 us in every run (events-park's awake
//! rounds 0.53 to 0.95 us, a sleep 27 to 33 us; the std barrier's 0.54 to 0.71
//! us, a sleep 23 to 39 us). So `t_0` and `s_1/2` are the hand-over's when
//! nobody sleeps, as LOCKS' sub-batches make them; the all-rounds median is
//! kept in the fit (`t0_all_rounds_ns`) with the awake rounds' share, and a
//! segment that sleeps `b` times costs about `t_0 + b t_wake`.

use super::rate_probe::rate_probe;
use super::sync_plan::{
    GrainSamples, Method, MethodSweep, NAME, NEAR_ZERO_GRAINS, SyncPlan, sub_batches,
};
use super::{Fitted, hockney_fit_result};
use crate::control::Placement;
use crate::kernels::harness::probe::{PROBE_MOVED, over_probe, probe_param, syscall_probe};
use crate::model::hockney::{
    HockneyFit, RateFrom, fit_hockney, fit_split_all_rounds, fit_split_with_intervals,
};
use crate::model::interval;
use crate::results::{BLOCKS_PARAM, FitResult, KernelResult, PREEMPTED_PARAM, Param, Point, num};
use crate::sync::team_method::ASLEEP_HOLD;

/// The rounds' blocks per segment at the short grains may differ by this
/// much before a warning says the method changed mode within the run; the
/// long grains' by this much before `r_inf` comes from the rate probe.
const MODE_SPREAD: f64 = 0.25;

/// The long grains slept at all where one of them slept this often a
/// segment (its median over the rounds): one sleep in fifty segments adds
/// 0.4 to 0.8 µs a segment, a few per cent of the shortest long grains'
/// work. Locks' long grains slept 0, 0.011 and 0.246 times a segment in
/// one default run, and their line gave 5.4 Gflop/s where the rate probe
/// read 7.4 (2-vCPU EPYC VM).
const LONG_SLEPT: f64 = 0.02;

/// The model a method's fit is of.
const MODEL: &str = "t = t0 + s/r_inf (eq. 10b)";

/// A fit parameter, 1 where `r_inf` is the rate probe's and not the long
/// grains' slope ([`long_sleeps`]).
const R_INF_FROM_PROBE: &str = "r_inf_from_rate_probe";

/// A method's result: points, eq. (10b) from the split fit, its check line,
/// warnings, and the headline `r_inf`, `t_0`, `s_1/2` with bootstrap intervals.
/// `round_probes` holds the CPU pair's round trip of every round (the
/// method's own probe, or the round's median over the team methods' for
/// the TASKS); the rounds the machine spent in another state are left out
/// ([`rounds_in_state`]). The probe recorded beside `t0` is that of the
/// rounds that gave it, with those of `around` (the probes before and after
/// the sweep) that were in the same state ([`fit_probes`]).
pub(super) fn method_result(
    s: &MethodSweep,
    plan: &SyncPlan,
    t0_clock_ns: f64,
    round_probes: &[f64],
    around: &[f64],
) -> KernelResult {
    let mut warnings = Vec::new();
    let rounds = rounds_of(s);
    let in_state = rounds_in_state(round_probes, rounds);
    let kept;
    let s = match &in_state {
        Some(state) => {
            warnings.push(state.warning(rounds));
            kept = keep_rounds(s, &state.keep);
            &kept
        }
        None => s,
    };
    let x: Vec<f64> = s.grains.iter().map(|g| g.grain as f64).collect();
    let times: Vec<Vec<f64>> = s.grains.iter().map(|g| g.samples_ns.clone()).collect();
    let (mut points, y) = grain_points(s, plan, &mut warnings);
    let short_blocks = short_rounds(s, |g| &g.blocks_per_segment);
    let short_preempted = short_rounds(s, |g| &g.preempted_per_s);
    if let Some((_, [lo, hi])) = short_blocks
        && hi - lo > MODE_SPREAD
    {
        warnings.push(format!(
            "the short grains' hand-overs slept {lo:.2} to {hi:.2} times a segment from round to round: t0 mixes hand-overs that block and that do not"
        ));
    }
    let mut fits = Vec::new();
    let mut headline = Vec::new();
    let line = fit_hockney(&x, &y);
    let long = s.grains.len() - s.short;
    let probed: Vec<f64> = s
        .serial_rounds
        .iter()
        .map(|r| r * plan.parts as f64)
        .collect();
    let rate = rate_from(s, plan.parts, &probed, &mut warnings);
    let awake = awake_rounds(s);
    let (fit_x, fit_times, fit_short) = match &awake {
        Some(a) => (&a.grains, &a.times, a.short),
        None => (&x, &times, s.short),
    };
    let split = if (long >= 2 || matches!(rate, RateFrom::Probe(_))) && fit_short >= 1 {
        Some(fit_split_with_intervals(fit_x, fit_times, fit_short, rate))
    } else {
        None
    };
    let fitted = match (&split, &line) {
        (Some(Ok((f, _))), _) => Some((f.r_inf_per_ns, f.t0_ns, line.as_ref().ok())),
        (Some(Err(e)), _) => {
            warnings.push(format!(
                "no (r_inf, s_1/2) from the long and short grains: {e}"
            ));
            None
        }
        (None, Ok(l)) => Some((l.r_inf_per_ns, l.t0_ns, Some(l))),
        (None, Err(e)) => {
            warnings.push(format!("no (r_inf, s_1/2) fit: {e}"));
            None
        }
    };
    if let Some((r_inf, t0, check)) = fitted {
        if let Ok(l) = line.as_ref() {
            for (p, r) in points.iter_mut().zip(&l.line.residuals) {
                *p = p.clone().with("fit_residual_ns", *r);
            }
        }
        let slope = 1.0 / r_inf;
        let full = full_fit(&x, &y, r_inf, t0, check);
        let n_half = full.n_half;
        let mut f = hockney_fit_result(
            &Fitted::Full(full),
            MODEL,
            "",
            "grain_flop",
            "time_ns.median",
            0.0,
            Some(t0_clock_ns),
            &mut warnings,
        );
        f.params
            .insert("serial_r_flop_per_s".into(), s.serial_flop_per_ns * 1e9);
        mode_params(
            &mut f,
            s,
            awake.as_ref(),
            short_blocks,
            short_preempted,
            rate,
        );
        if let Some(state) = &in_state {
            let n = state.keep.iter().filter(|&&k| k).count();
            f.params.insert(IN_STATE_PARAM.into(), n as f64);
        }
        if let Some(l) = check {
            check_line(&mut f, l, split.is_some(), r_inf, rate, &mut warnings);
        }
        let of = Some(s.method.name());
        let ci = match &split {
            Some(Ok((_, ci))) => *ci,
            _ => [None; 3],
        };
        let how = interval::BOOTSTRAP_ROUNDS;
        if let RateFrom::Probe(_) = rate {
            f.params.insert(R_INF_FROM_PROBE.into(), 1.0);
        }
        let per_s = |c: Option<[f64; 2]>| c.map(|[a, b]| [a * 1e9, b * 1e9]);
        headline.push(Param::new("r_inf_flop_per_s", of, r_inf * 1e9).with_ci(per_s(ci[0]), how));
        headline.push(Param::new("t0_ns", of, t0).with_ci(ci[1], how));
        headline.push(Param::new("s_half_flop", of, n_half).with_ci(ci[2], how));
        if let Some(asleep) = asleep_regime(s, t0, slope, of) {
            for (name, v) in asleep.params(s, plan.parts) {
                f.params.insert(name.into(), v);
            }
            headline.extend(asleep.headline);
        } else if let Some(w) = awake.as_ref().and_then(|a| a.wake(t0, slope, of)) {
            f.params.insert(WAKE_PARAM.into(), w.value);
            headline.push(w);
        }
        headline.extend(rate_probe(
            &s.serial_rounds,
            plan.parts,
            Some(s.method.name()),
            &mut warnings,
        ));
        fits.push(f);
    }
    let probes = fit_probes(in_state.as_ref(), round_probes, around);
    add_probes(s, &probes, &mut fits, &mut headline, &mut warnings);
    if s.placement != Placement::Pinned {
        warnings.push(format!(
            "processors share CPUs ({}): waits yield or block, so times include scheduling",
            s.placement
        ));
    }
    KernelResult::new(NAME, "hockney", s.placement, plan.cpus.clone())
        .with_transport(Some(s.method.name()))
        .with_ranks(plan.parts)
        .with_points(points)
        .with_fits(fits)
        .with_warnings(warnings)
        .with_headline(headline)
}

/// Where `r_inf` comes from: the long grains' line, or the rate probe
/// (`probed`, the serial rate times the `parts`) where the long grains'
/// hand-overs slept, with a warning where they slept unevenly.
fn rate_from<'a>(
    s: &MethodSweep,
    parts: usize,
    probed: &'a [f64],
    warnings: &mut Vec<String>,
) -> RateFrom<'a> {
    match long_sleeps(s) {
        _ if probed.is_empty() => RateFrom::LongLine,
        Some([lo, hi]) if hi - lo > MODE_SPREAD => {
            warnings.push(format!(
                "the long grains' hand-overs slept {lo:.2} to {hi:.2} times a segment: their overheads differ, so r_inf is the rate probe's ({parts} times the serial rate, all processors at once), not their line's slope"
            ));
            RateFrom::Probe(probed)
        }
        Some([_, hi]) if hi >= LONG_SLEPT => RateFrom::Probe(probed),
        _ => RateFrom::LongLine,
    }
}

/// The line through all grains beside the fit (its `r_inf` and `t_0`),
/// and a warning where its `r_inf` is a quarter or more from the fit's,
/// which took its slope from `rate` (`split`: a split fit gave it).
fn check_line(
    f: &mut FitResult,
    l: &HockneyFit,
    split: bool,
    r_inf: f64,
    rate: RateFrom<'_>,
    warnings: &mut Vec<String>,
) {
    f.params
        .insert("line_r_inf_flop_per_s".into(), l.r_inf_per_s());
    f.params.insert("line_t0_ns".into(), l.t0_ns);
    if split && (l.r_inf_per_ns / r_inf - 1.0).abs() > 0.25 {
        let from = match rate {
            RateFrom::LongLine => "the long grains'",
            RateFrom::Probe(_) => "the rate probe's",
        };
        warnings.push(format!(
            "{MODEL}: one line through all grains gives r_inf = {} Gflop/s, {} from {from} {}",
            num(l.r_inf_per_ns),
            pct(l.r_inf_per_ns / r_inf - 1.0),
            num(r_inf)
        ));
    }
}

/// A point per grain (its rounds' median time and rate, sleeps and
/// pre-emptions per segment, the share of its waits that slept) and the
/// medians the fits take, with the rounds' spread warning.
fn grain_points(
    s: &MethodSweep,
    plan: &SyncPlan,
    warnings: &mut Vec<String>,
) -> (Vec<Point>, Vec<f64>) {
    let mut trials = super::TrialSummaries::new("grains", "rounds", "median");
    let mut points = Vec::new();
    let mut y = Vec::new();
    for g in &s.grains {
        let summary = trials.summarize(&g.samples_ns, &format!("s = {}", g.grain));
        y.push(summary.median);
        let point = Point::new()
            .with("grain_flop", g.grain as f64)
            .with("processors", plan.parts as f64)
            .with("reps", g.reps as f64)
            .with("batches_per_round", sub_batches(g.reps).0 as f64)
            .with("rounds", g.samples_ns.len() as f64)
            .with(
                "rate_flop_per_s",
                super::rate(g.grain as f64, summary.median),
            )
            .with_stats("time_ns", summary)
            .with("blocks_per_segment", median(&g.blocks_per_segment))
            .with("preempted_per_s", median(&g.preempted_per_s));
        // The share of its waits that slept, for a method whose waits block.
        let slept = slept_fraction(s.method, plan.parts, median(&g.blocks_per_segment));
        points.push(match slept.is_finite() {
            true => point.with(SLEPT_PARAM, slept),
            false => point,
        });
    }
    warnings.extend(trials.warning());
    (points, y)
}

/// Eq. (10b) through every grain's median with the split fit's `r_inf` and
/// `t_0`, and the standard errors of the `check` line through all grains.
fn full_fit(x: &[f64], y: &[f64], r_inf: f64, t0: f64, check: Option<&HockneyFit>) -> HockneyFit {
    let slope = 1.0 / r_inf;
    let resid: Vec<f64> = x.iter().zip(y).map(|(s, t)| t - t0 - s * slope).collect();
    // The goodness of the line reported, through every grain's median.
    // Not the check line's: where t0 is tens of ns against long grains
    // of hundreds of µs, that line's intercept is the long grains' noise,
    // fell below zero on a quiet machine, and no line was fitted at all.
    let r2 = goodness(y, &resid);
    let n_half = t0 * r_inf;
    HockneyFit {
        r_inf_per_ns: r_inf,
        n_half,
        t0_ns: t0,
        pi0_per_ns: 1.0 / t0,
        r2,
        line: crate::model::fit::LineFit {
            intercept: t0,
            slope,
            r2,
            se_intercept: check.map_or(0.0, |l| l.line.se_intercept),
            se_slope: check.map_or(0.0, |l| l.line.se_slope),
            n_points: x.len(),
            residuals: resid,
        },
    }
}

/// The fit's record of the hand-overs' mode: the sleeps per segment of the
/// rounds that gave `t_0` (and, where only the awake rounds did, their share
/// and the all-rounds `t_0`), and the short grains' pre-emptions.
fn mode_params(
    f: &mut FitResult,
    s: &MethodSweep,
    awake: Option<&Awake>,
    short_blocks: Option<(f64, [f64; 2])>,
    short_preempted: Option<(f64, [f64; 2])>,
    rate: RateFrom<'_>,
) {
    match (awake, short_blocks) {
        // The sleeps of the rounds that gave t0: none, or nearly.
        (Some(a), _) => {
            f.params.insert(BLOCKS_PARAM.into(), a.blocks);
            f.params.insert("awake_rounds_share".into(), a.share);
            let x: Vec<f64> = s.grains.iter().map(|g| g.grain as f64).collect();
            let times: Vec<Vec<f64>> = s.grains.iter().map(|g| g.samples_ns.clone()).collect();
            if let Ok(all) = fit_split_all_rounds(&x, &times, s.short, rate) {
                f.params.insert("t0_all_rounds_ns".into(), all.t0_ns);
            }
        }
        (None, Some((b, _))) => {
            f.params.insert(BLOCKS_PARAM.into(), b);
        }
        (None, None) => {}
    }
    if let Some((p, _)) = short_preempted {
        f.params.insert(PREEMPTED_PARAM.into(), p);
    }
}

/// The system-call probe and the pair's round trip `probes` beside the fit
/// and in the headline, with `t_0` over the round trip.
fn add_probes(
    s: &MethodSweep,
    probes: &[f64],
    fits: &mut [FitResult],
    headline: &mut Vec<Param>,
    warnings: &mut Vec<String>,
) {
    let of = Some(s.method.name());
    if let Some(p) = syscall_probe(&s.syscall_rounds, of, warnings) {
        // Beside the fit, as the round trip is (`pp_round_trip_ns`).
        if let Some(f) = fits.first_mut() {
            f.params.insert(p.name.clone(), p.value);
        }
        headline.push(p);
    }
    if let Some(p) = probe_param(probes, of) {
        if let Some(f) = fits.first_mut() {
            f.params.insert("pp_round_trip_ns".into(), p.value);
        }
        let ratio = headline
            .iter()
            .find(|h| h.name == "t0_ns")
            .and_then(|t0| over_probe(t0, &p));
        headline.extend(ratio);
        headline.push(p);
    }
}

/// A fit parameter: how many rounds gave the fit, where some were left out
/// as taken in another state of the machine ([`rounds_in_state`]).
const IN_STATE_PARAM: &str = "rounds_in_probe_state";

/// The fewest rounds in the probes' median state for the fit to come from
/// them alone.
const MIN_IN_STATE: usize = 3;

/// The rounds of a sweep that the machine spent in its run's usual state.
struct InState {
    /// Per round, true where its probe lay within [`PROBE_MOVED`] of the
    /// probes' median.
    keep: Vec<bool>,
    /// The probes' median, ns.
    median: f64,
    /// The left-out rounds' probes, their smallest and largest, ns.
    out: [f64; 2],
}

impl InState {
    fn warning(&self, rounds: usize) -> String {
        let n = self.keep.iter().filter(|&&k| k).count();
        let [lo, hi] = self.out;
        let others = match lo == hi {
            true => num(lo),
            false => format!("{} to {}", num(lo), num(hi)),
        };
        format!(
            "t0, r_inf and s_1/2 are from the {n} of {rounds} rounds whose probe of the CPU pair's round trip lay within {:.0} % of its median {} ns; the others' read {others} ns, the machine in another state",
            PROBE_MOVED * 100.0,
            num(self.median),
        )
    }
}

/// The rounds taken in the machine's usual state for the run: those whose
/// probe of the CPU pair's round trip (`probes`, one a round) lay within
/// [`PROBE_MOVED`] of the probes' median. A state that the machine takes
/// for seconds (its round trip 400 ns instead of 125 on the 2-vCPU EPYC VM,
/// every hand-over three times slower) can hold half a quick run's rounds,
/// and each grain's median over the rounds then lands in one state or the
/// other: one quick run gave spin-hint's `t0` as 326 ns beside a probe
/// whose median was 128. With those rounds left out, `t0` and its probe
/// come from the same rounds. `None` where every round was in the state,
/// where there is not one probe a round, or where fewer than
/// [`MIN_IN_STATE`] rounds were.
fn rounds_in_state(probes: &[f64], rounds: usize) -> Option<InState> {
    if probes.len() != rounds || probes.iter().any(|p| !(p.is_finite() && *p > 0.0)) {
        return None;
    }
    let median = median(probes);
    let keep: Vec<bool> = probes
        .iter()
        .map(|p| (p / median - 1.0).abs() <= PROBE_MOVED)
        .collect();
    let n = keep.iter().filter(|&&k| k).count();
    if n == rounds || n < MIN_IN_STATE {
        return None;
    }
    let left_out = probes
        .iter()
        .zip(&keep)
        .filter(|&(_, &k)| !k)
        .map(|(p, _)| *p);
    let out = [
        left_out.clone().fold(f64::INFINITY, f64::min),
        left_out.fold(f64::NEG_INFINITY, f64::max),
    ];
    Some(InState { keep, median, out })
}

/// The rounds every grain of `s` has.
fn rounds_of(s: &MethodSweep) -> usize {
    s.grains
        .iter()
        .map(|g| g.samples_ns.len())
        .min()
        .unwrap_or(0)
}

/// The probes beside [`method_result`]'s fit: those of the rounds that gave
/// it, of `round_probes` (one a round: those in the machine's usual state,
/// [`rounds_in_state`], or all of them), and those of `around` (taken
/// before and after the sweep) that lay within [`PROBE_MOVED`] of their
/// median, or all of `around` where no round had a probe. `state` is
/// [`rounds_in_state`] of `round_probes`.
fn fit_probes(state: Option<&InState>, round_probes: &[f64], around: &[f64]) -> Vec<f64> {
    let mut probes: Vec<f64> = match state {
        Some(state) => round_probes
            .iter()
            .zip(&state.keep)
            .filter(|&(_, &k)| k)
            .map(|(p, _)| *p)
            .collect(),
        None => round_probes.to_vec(),
    };
    let centre = interval::median_in_place(&mut probes.clone());
    probes.extend(
        around
            .iter()
            .filter(|&&p| centre.is_none_or(|c| (p / c - 1.0).abs() <= PROBE_MOVED)),
    );
    probes
}

/// [`fit_probes`] of a sweep's rounds.
#[cfg(test)]
fn probes_of_fit(s: &MethodSweep, round_probes: &[f64], around: &[f64]) -> Vec<f64> {
    let state = rounds_in_state(round_probes, rounds_of(s));
    fit_probes(state.as_ref(), round_probes, around)
}

/// `s` with only the rounds that `keep` marks, in every per-round record
/// that has one entry a round.
fn keep_rounds(s: &MethodSweep, keep: &[bool]) -> MethodSweep {
    let pick = |v: &[f64]| -> Vec<f64> {
        match v.len() == keep.len() {
            true => v
                .iter()
                .zip(keep)
                .filter(|&(_, &k)| k)
                .map(|(x, _)| *x)
                .collect(),
            false => v.to_vec(),
        }
    };
    let picked = |grains: &[GrainSamples]| -> Vec<GrainSamples> {
        grains
            .iter()
            .map(|g| GrainSamples {
                grain: g.grain,
                reps: g.reps,
                samples_ns: pick(&g.samples_ns),
                blocks_per_segment: pick(&g.blocks_per_segment),
                preempted_per_s: pick(&g.preempted_per_s),
            })
            .collect()
    };
    MethodSweep {
        grains: picked(&s.grains),
        asleep: picked(&s.asleep),
        serial_rounds: pick(&s.serial_rounds),
        pair_rounds: pick(&s.pair_rounds),
        syscall_rounds: pick(&s.syscall_rounds),
        method: s.method,
        short: s.short,
        serial_flop_per_ns: s.serial_flop_per_ns,
        placement: s.placement,
    }
}

/// A round of a short grain whose hand-overs slept fewer times a segment
/// than this (the median over its sub-batches) is an awake round.
const AWAKE_BLOCKS: f64 = 0.25;

/// The fewest awake rounds of the near-zero grains (the shortest and those
/// up to [`NEAR_ZERO_GRAINS`] times it) for `t_0` to come from the awake
/// rounds: with two of nine at one grain, a bootstrap resample holds none
/// one time in ten, and such resamples are skipped.
const MIN_AWAKE: usize = 2;

/// The fewest sleeping rounds for a `t_wake_ns`.
const MIN_ASLEEP: usize = 3;

/// The sweep's grains with the short grains' sleeping rounds left out (NaN),
/// where the short grains slept in some rounds and not in others (module
/// doc); short grains with no awake round are left out whole.
struct Awake {
    /// The grains kept, short then long.
    grains: Vec<f64>,
    /// Their times per round, NaN where a short grain's round slept.
    times: Vec<Vec<f64>>,
    /// How many of `grains` are short.
    short: usize,
    /// The kept rounds' sleeps per segment, their median.
    blocks: f64,
    /// The short grains' rounds that were awake, a fraction.
    share: f64,
    /// The short grains' sleeping rounds: grain (flop), time (ns), sleeps
    /// per segment.
    asleep: Vec<(f64, f64, f64)>,
}

/// The awake rounds of a sweep whose short grains' rounds slept in some
/// rounds and not in others, the near-zero grains awake in at least
/// [`MIN_AWAKE`] rounds in all; `None` where every round of the short
/// grains was awake (a spinning hand-over), or too few were (a method whose
/// hand-overs always sleep, as a new thread's start: its `t_0` is the
/// sleeping one). In one `--quick --repeat 5` the std barrier's 16-flop
/// grain was awake in one round of nine and its 32- to 64-flop grains in
/// others (their fastest rounds 0.59 to 0.89 us, their medians 7 to 26 us).
fn awake_rounds(s: &MethodSweep) -> Option<Awake> {
    let short = &s.grains[..s.short];
    let is_awake = |b: f64| b < AWAKE_BLOCKS;
    let near_zero = short.first()?.grain * NEAR_ZERO_GRAINS;
    let awake_near_zero = short
        .iter()
        .filter(|g| g.grain <= near_zero)
        .flat_map(|g| &g.blocks_per_segment)
        .filter(|&&b| is_awake(b))
        .count();
    let asleep: Vec<(f64, f64, f64)> = short
        .iter()
        .flat_map(|g| {
            g.samples_ns
                .iter()
                .zip(&g.blocks_per_segment)
                .filter(|&(_, &b)| !is_awake(b))
                .map(move |(&t, &b)| (g.grain as f64, t, b))
        })
        .collect();
    if awake_near_zero < MIN_AWAKE || asleep.is_empty() {
        return None;
    }
    let mut grains = Vec::with_capacity(s.grains.len());
    let mut times = Vec::with_capacity(s.grains.len());
    let mut kept_blocks = Vec::new();
    let mut rounds = 0usize;
    for g in short {
        let masked: Vec<f64> = g
            .samples_ns
            .iter()
            .zip(&g.blocks_per_segment)
            .map(|(&t, &b)| if is_awake(b) { t } else { f64::NAN })
            .collect();
        rounds += masked.len();
        if masked.iter().any(|t| t.is_finite()) {
            kept_blocks.extend(
                g.blocks_per_segment
                    .iter()
                    .copied()
                    .filter(|&b| is_awake(b)),
            );
            grains.push(g.grain as f64);
            times.push(masked);
        }
    }
    let kept_short = grains.len();
    for g in &s.grains[s.short..] {
        grains.push(g.grain as f64);
        times.push(g.samples_ns.clone());
    }
    Some(Awake {
        grains,
        times,
        short: kept_short,
        blocks: median(&kept_blocks),
        share: 1.0 - asleep.len() as f64 / rounds as f64,
        asleep,
    })
}

impl Awake {
    /// `t_wake_ns`: what a sleep added to a short grain's segment, per
    /// sleeping round `(t - t0 - s slope) / b`, the median over the rounds
    /// with a percentile bootstrap over them (`t0` held at its value: its
    /// interval is a few per cent of a sleep's); `None` with fewer than
    /// [`MIN_ASLEEP`] such rounds.
    fn wake(&self, t0: f64, slope: f64, of: Option<&str>) -> Option<Param> {
        let per_sleep: Vec<f64> = self
            .asleep
            .iter()
            .map(|&(s, t, b)| (t - t0 - s * slope) / b)
            .collect();
        if per_sleep.len() < MIN_ASLEEP {
            return None;
        }
        let value = median(&per_sleep);
        let ci = interval::median_bootstrap(&per_sleep);
        Some(Param::new(WAKE_PARAM, of, value).with_ci(ci, interval::BOOTSTRAP_ROUNDS))
    }
}

/// The headline parameter with what a sleep of a hand-over adds to a
/// segment ([`Awake::wake`]).
const WAKE_PARAM: &str = "t_wake_ns";

/// The long grains' sleeps per segment (each grain's median over the
/// rounds): their smallest and largest. A hand-over that sleeps costs a
/// wake-up (tens of µs on a VM) where one that spins costs a line transfer,
/// so long grains that slept differently have different overheads, and the
/// slope of their line is not the work's: locks' long grains slept 0, 1.5
/// and 1.5 times a segment in one quick run, and their line gave 4.3
/// Gflop/s where the rate probe read 8.0 (2-vCPU EPYC VM). Nor is it where
/// they all slept alike, unless their work dwarfs a sleep: a wake-up's cost
/// moves by a third from grain to grain (23 to 39 µs), as much as the work
/// of long grains that a pilot without a sleep placed at 50 to 270 kflop,
/// and the std barrier's line, its grains sleeping 0.6 to 1 times a
/// segment, gave 5.1 to 10.1 Gflop/s over eight quick runs where the rate
/// probe read 7.2 to 7.5. So wherever the long grains slept at all
/// ([`LONG_SLEPT`] a segment or more), `r_inf` is the rate probe's.
fn long_sleeps(s: &MethodSweep) -> Option<[f64; 2]> {
    let sleeps: Vec<f64> = s.grains[s.short..]
        .iter()
        .map(|g| median(&g.blocks_per_segment))
        .collect();
    let lo = sleeps.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = sleeps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo.is_finite() && hi.is_finite()).then_some([lo, hi])
}

/// A per-round figure of the short grains (`of` picks it from a grain): per
/// round its mean over the short grains; the median over the rounds and the
/// rounds' range.
fn short_rounds(s: &MethodSweep, of: fn(&GrainSamples) -> &[f64]) -> Option<(f64, [f64; 2])> {
    let short = &s.grains[..s.short];
    let rounds = short.iter().map(|g| of(g).len()).min()?;
    let per_round: Vec<f64> = (0..rounds)
        .map(|r| short.iter().map(|g| of(g)[r]).sum::<f64>() / short.len() as f64)
        .collect();
    let lo = per_round.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = per_round.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some((median(&per_round), [lo, hi])).filter(|(m, _)| m.is_finite())
}

/// `R^2` of a line whose residuals at the times `y` are `resid`: 1 less
/// their sum of squares over `y`'s about its mean; 0 where `y` does not vary.
fn goodness(y: &[f64], resid: &[f64]) -> f64 {
    let mean = y.iter().sum::<f64>() / y.len().max(1) as f64;
    let total: f64 = y.iter().map(|t| (t - mean).powi(2)).sum();
    let left: f64 = resid.iter().map(|r| r * r).sum();
    match total > 0.0 {
        true => 1.0 - left / total,
        false => 0.0,
    }
}

/// A point's and the fit's parameter: the share of a segment's waits that
/// slept ([`slept_fraction`]).
const SLEPT_PARAM: &str = "blocks_over_waits";

/// The share of a segment's waits that slept: its sleeps (voluntary context
/// switches) per segment over the waits that can block in one (those of
/// [`waits_per_segment`]), at most 1; NaN for a method none of whose waits
/// block.
fn slept_fraction(method: Method, parts: usize, blocks: f64) -> f64 {
    match waits_per_segment(method, parts) {
        0 => f64::NAN,
        w => (blocks / w as f64).min(1.0),
    }
}

/// The waits in a segment that can block, over the whole team: LOCKS and
/// EVENTS, one each way per worker (the master's for its done, the
/// worker's for its start); the std barrier, every party but the last to
/// arrive; the pool, each worker's wait for its fork (the master's join
/// spins, then yields, and a yield is no sleep); none for the methods that
/// spin, start threads or poll.
fn waits_per_segment(method: Method, parts: usize) -> usize {
    let workers = parts.saturating_sub(1);
    match method {
        Method::Locks | Method::EventsCondvar | Method::EventsPark => 2 * workers,
        Method::BarrierStd | Method::TasksPool => workers,
        _ => 0,
    }
}

/// The asleep regime of a method with two ([`Method::two_regimes`]): its
/// segments' overhead with the waiter made to sleep, `t0_asleep_ns`, and
/// what the sleep adds to the awake `t_0`, `t_wake_ns`.
struct Asleep {
    /// Per round of every asleep grain, the segment's time less its work
    /// at `r_inf` and the posts held back, ns.
    overheads: Vec<f64>,
    /// The headline: `t0_asleep_ns` and `t_wake_ns` with their intervals.
    headline: Vec<Param>,
}

/// A fit parameter and headline name: a segment's overhead in the asleep
/// regime (`t_0` asleep), ns.
const T0_ASLEEP_PARAM: &str = "t0_asleep_ns";

/// The time the posts held back in the asleep regime add to a segment of
/// `method`, ns ([`Method::asleep_holds`]).
pub(super) fn asleep_hold_ns(method: Method) -> f64 {
    f64::from(method.asleep_holds()) * ASLEEP_HOLD.as_nanos() as f64
}

/// The asleep regime's parameters from `s.asleep` (`None` without them):
/// per round and grain `t - d - s slope`, `d` the posts held back on the
/// segment's critical path ([`asleep_hold_ns`]); `t0_asleep` their median with a percentile
/// bootstrap over them, `t_wake = t0_asleep - t0` with the same interval
/// shifted (`t0`'s own is a few per cent of a wake-up's).
fn asleep_regime(s: &MethodSweep, t0: f64, slope: f64, of: Option<&str>) -> Option<Asleep> {
    let delay = asleep_hold_ns(s.method);
    let overheads: Vec<f64> = s
        .asleep
        .iter()
        .flat_map(|g| {
            g.samples_ns
                .iter()
                .map(move |t| t - delay - g.grain as f64 * slope)
        })
        .collect();
    if overheads.len() < MIN_ASLEEP {
        return None;
    }
    let value = median(&overheads);
    let ci = interval::median_bootstrap(&overheads);
    let how = interval::BOOTSTRAP_ROUNDS;
    let shifted = ci.map(|[lo, hi]| [lo - t0, hi - t0]);
    let headline = vec![
        Param::new(T0_ASLEEP_PARAM, of, value).with_ci(ci, how),
        Param::new(WAKE_PARAM, of, value - t0).with_ci(shifted, how),
    ];
    Some(Asleep {
        overheads,
        headline,
    })
}

impl Asleep {
    /// The fit's parameters of the asleep regime: `t0_asleep_ns`,
    /// `t_wake_ns`, the posts held back, the asleep grains' sleeps a segment
    /// and their share of the waits (`blocks_over_waits_asleep`; the awake
    /// grains' is `blocks_over_waits`), and how many rounds gave them.
    fn params(&self, s: &MethodSweep, parts: usize) -> Vec<(&'static str, f64)> {
        let blocks: Vec<f64> = s
            .asleep
            .iter()
            .flat_map(|g| g.blocks_per_segment.iter().copied())
            .collect();
        let awake: Vec<f64> = s.grains[..s.short]
            .iter()
            .flat_map(|g| g.blocks_per_segment.iter().copied())
            .collect();
        let b = median(&blocks);
        vec![
            (T0_ASLEEP_PARAM, self.headline[0].value),
            (WAKE_PARAM, self.headline[1].value),
            ("asleep_hold_ns", asleep_hold_ns(s.method)),
            ("asleep_blocks_per_segment", b),
            (
                "blocks_over_waits_asleep",
                slept_fraction(s.method, parts, b),
            ),
            (SLEPT_PARAM, slept_fraction(s.method, parts, median(&awake))),
            ("asleep_samples", self.overheads.len() as f64),
        ]
    }
}

/// The median of `v`, NaN when empty.
fn median(v: &[f64]) -> f64 {
    interval::median_in_place(&mut v.to_vec()).unwrap_or(f64::NAN)
}

/// A signed percentage.
fn pct(x: f64) -> String {
    format!("{:+.0} %", x * 100.0)
}

#[cfg(test)]
#[path = "sync_result_tests.rs"]
mod tests;
