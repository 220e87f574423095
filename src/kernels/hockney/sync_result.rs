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

use super::rate_probe::rate_probe;
use super::sync::{GrainSamples, MethodSweep, NAME, SyncPlan, sub_batches};
use super::{Fitted, hockney_fit_result};
use crate::control::Placement;
use crate::model::hockney::{HockneyFit, fit_hockney, fit_split_with_intervals};
use crate::model::interval;
use crate::results::{BLOCKS_PARAM, KernelResult, PREEMPTED_PARAM, Param, Point, num};

/// The rounds' blocks per segment at the short grains may differ by this
/// much before a warning says the method changed mode within the run.
const MODE_SPREAD: f64 = 0.25;

/// A method's result: points, eq. (10b) from the split fit, its check line,
/// warnings, and the headline `r_inf`, `t_0`, `s_1/2` with bootstrap intervals.
pub(super) fn method_result(s: &MethodSweep, plan: &SyncPlan, t0_clock_ns: f64) -> KernelResult {
    let mut warnings = Vec::new();
    let mut trials = super::TrialSummaries::new("grains", "rounds", "median");
    let mut points = Vec::new();
    let x: Vec<f64> = s.grains.iter().map(|g| g.grain as f64).collect();
    let times: Vec<Vec<f64>> = s.grains.iter().map(|g| g.samples_ns.clone()).collect();
    let mut y = Vec::new();
    for g in &s.grains {
        let summary = trials.summarize(&g.samples_ns, &format!("s = {}", g.grain));
        y.push(summary.median);
        points.push(
            Point::new()
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
                .with("preempted_per_s", median(&g.preempted_per_s)),
        );
    }
    warnings.extend(trials.warning());
    let short_blocks = short_rounds(s, |g| &g.blocks_per_segment);
    let short_preempted = short_rounds(s, |g| &g.preempted_per_s);
    if let Some((_, [lo, hi])) = short_blocks
        && hi - lo > MODE_SPREAD
    {
        warnings.push(format!(
            "the short grains' hand-overs slept {lo:.2} to {hi:.2} times a segment from round to round: t0 mixes hand-overs that block and that do not"
        ));
    }
    let model = "t = t0 + s/r_inf (eq. 10b)";
    let mut fits = Vec::new();
    let mut headline = Vec::new();
    let line = fit_hockney(&x, &y);
    let long = s.grains.len() - s.short;
    let split = if long >= 2 && s.short >= 1 {
        Some(fit_split_with_intervals(&x, &times, s.short))
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
        let resid: Vec<f64> = x.iter().zip(&y).map(|(s, t)| t - t0 - s * slope).collect();
        let r2 = check.map_or(0.0, |l| l.r2);
        let n_half = t0 * r_inf;
        let full = HockneyFit {
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
        };
        let mut f = hockney_fit_result(
            &Fitted::Full(full),
            model,
            "",
            "grain_flop",
            "time_ns.median",
            0.0,
            Some(t0_clock_ns),
            &mut warnings,
        );
        f.params
            .insert("serial_r_flop_per_s".into(), s.serial_flop_per_ns * 1e9);
        if let Some((b, _)) = short_blocks {
            f.params.insert(BLOCKS_PARAM.into(), b);
        }
        if let Some((p, _)) = short_preempted {
            f.params.insert(PREEMPTED_PARAM.into(), p);
        }
        if let Some(l) = check {
            f.params
                .insert("line_r_inf_flop_per_s".into(), l.r_inf_per_s());
            f.params.insert("line_t0_ns".into(), l.t0_ns);
            if split.is_some() && (l.r_inf_per_ns / r_inf - 1.0).abs() > 0.25 {
                warnings.push(format!(
                    "{model}: one line through all grains gives r_inf = {} Gflop/s, {} from the long grains' {}",
                    num(l.r_inf_per_ns),
                    pct(l.r_inf_per_ns / r_inf - 1.0),
                    num(r_inf)
                ));
            }
        }
        let of = Some(s.method.name());
        let (ci, how) = match &split {
            Some(Ok((_, ci))) => (*ci, interval::BOOTSTRAP_ROUNDS),
            _ => ([None; 3], interval::BOOTSTRAP_ROUNDS),
        };
        let per_s = |c: Option<[f64; 2]>| c.map(|[a, b]| [a * 1e9, b * 1e9]);
        headline.push(Param::new("r_inf_flop_per_s", of, r_inf * 1e9).with_ci(per_s(ci[0]), how));
        headline.push(Param::new("t0_ns", of, t0).with_ci(ci[1], how));
        headline.push(Param::new("s_half_flop", of, n_half).with_ci(ci[2], how));
        headline.extend(rate_probe(
            &s.serial_rounds,
            plan.parts,
            Some(s.method.name()),
            &mut warnings,
        ));
        fits.push(f);
    }
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

/// The median of `v`, NaN when empty.
fn median(v: &[f64]) -> f64 {
    interval::median_in_place(&mut v.to_vec()).unwrap_or(f64::NAN)
}

/// A signed percentage.
fn pct(x: f64) -> String {
    format!("{:+.0} %", x * 100.0)
}
