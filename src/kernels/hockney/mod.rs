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
//!
//! Both print tables in the shape of the paper's (see [`summary_table`]) and put
//! every measured point (minimum, maximum, mean and percentiles over the trials)
//! and every fit in the JSON.

mod simd;
pub mod sync;
pub mod vector;

pub use simd::{Element, LineAligned, Operation, Simd, Vectors};
pub use sync::{Method, SyncPlan, sweep_method, sync_batch_time};
pub use vector::VectorPlan;

use super::{KernelError, KernelSpec, RunContext};
use crate::model::fit::LineFit;
use crate::model::hockney::{HockneyFit, length_for_fraction};
use crate::results::{FitResult, KernelResult};
use crate::text::num;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The Hockney kernels.
pub static KERNELS: [KernelSpec; 2] = [vector::VECTOR, sync::SYNC];

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
    if time_ns > 0.0 {
        work / time_ns * 1e9
    } else {
        0.0
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

/// A parameter of a fit by the end of its name.
fn param(f: &FitResult, suffix: &str) -> Option<f64> {
    f.params
        .iter()
        .find(|(k, _)| k.ends_with(suffix))
        .map(|(_, v)| *v)
}

fn cell(v: Option<f64>) -> String {
    v.map_or("-".into(), num)
}

/// The paper-shaped table of a Hockney result (Table I for `hockney-vector`,
/// Table II for `hockney-sync`), or `None` for other kernels.
pub fn summary_table(r: &KernelResult) -> Option<String> {
    match r.kernel.as_str() {
        "hockney-vector" => Some(table_i(r)),
        "hockney-sync" => Some(table_ii(r)),
        _ => None,
    }
}

fn table_i(r: &KernelResult) -> String {
    let mut s = String::new();
    let label = r.transport.as_deref().unwrap_or("");
    let width = r
        .points
        .first()
        .and_then(|p| p.number("simd_width_bits"))
        .unwrap_or(0.0);
    if let Some(p) = label
        .starts_with("stream-triad")
        .then(|| r.points.first())
        .flatten()
    {
        let _ = writeln!(
            s,
            "   STREAM-style triad a = b + q*c over {} elements ({} MiB): {} GB/s (best of {}); top-level fit of scalar-triad-f64: {} GB/s (ratio {})",
            cell(p.number("n_elements")),
            cell(p.number("working_set_bytes").map(|b| b / 1048576.0)),
            cell(p.number("bandwidth_gb_per_s")),
            p.stats("time_ns").map_or(0, |t| t.count),
            cell(p.number("fit_bandwidth_gb_per_s")),
            cell(p.number("fit_to_stream_ratio")),
        );
        return s;
    }
    let op = simd::Operation::ALL
        .into_iter()
        .find(|o| label.starts_with(&format!("{}-", o.name())))
        .map_or("", |o| o.statement());
    let _ = writeln!(
        s,
        "   Table I: {label}  {op}  ({width} bit)\n   {:<22} {:>13} {:>11} {:>10} {:>9} {:>7}",
        "level", "r_inf Gflop/s", "n_1/2 flop", "t_0 ns", "GB/s", "R^2"
    );
    for f in &r.fits {
        let level = f
            .model
            .split_once(" on ")
            .map_or(f.model.as_str(), |(_, l)| l);
        let level = level
            .strip_prefix("Fig. 1 lengths ")
            .map_or(level.to_string(), |rest| format!("Fig. 1 {rest}"));
        let _ = writeln!(
            s,
            "   {:<22} {:>13} {:>11} {:>10} {:>9} {:>7.4}{}",
            level,
            cell(param(f, "r_inf_flop_per_s").map(|v| v / 1e9)),
            cell(param(f, "n_half_flop")),
            cell(param(f, "t0_ns")),
            cell(param(f, "bandwidth_gb_per_s")),
            f.r2,
            if f.flagged { " !" } else { "" }
        );
    }
    s
}

fn table_ii(r: &KernelResult) -> String {
    let mut s = String::new();
    let label = r.transport.as_deref().unwrap_or("");
    let figure = sync::Method::from_name(label).map_or("", |m| m.figure());
    let grains = |f: fn(f64, f64) -> f64| {
        r.points
            .iter()
            .filter_map(|p| p.number("grain_flop"))
            .reduce(f)
    };
    let _ = writeln!(
        s,
        "   Table II: {label} ({figure}), P = {}, grains {}..{} flop\n   {:>13} {:>11} {:>10} {:>11} {:>11} {:>11} {:>7}",
        r.ranks,
        cell(grains(f64::min)),
        cell(grains(f64::max)),
        "r_inf Gflop/s",
        "s_1/2 flop",
        "t_0 ns",
        "pi_0 /s",
        "s(50%)",
        "s(91%)",
        "R^2"
    );
    match r.fits.first() {
        Some(f) => {
            let _ = writeln!(
                s,
                "   {:>13} {:>11} {:>10} {:>11} {:>11} {:>11} {:>7.4}{}",
                cell(param(f, "r_inf_flop_per_s").map(|v| v / 1e9)),
                cell(param(f, "s_half_flop")),
                cell(param(f, "t0_ns")),
                cell(param(f, "pi0_per_s")),
                cell(param(f, "s_50pct_flop")),
                cell(param(f, "s_91pct_flop")),
                f.r2,
                if f.flagged { " !" } else { "" }
            );
        }
        None => s.push_str("   (no fit)\n"),
    }
    if let Some(rt) = r
        .fits
        .first()
        .and_then(|f| f.params.get("pp_round_trip_ns"))
    {
        let _ = writeln!(
            s,
            "   ping-pong round trip on the same CPUs (two atomic flags): {} ns",
            num(*rt)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::Placement;
    use crate::model::hockney::fit_hockney;
    use crate::results::Point;

    fn result(kernel: &str, transport: &str, fits: Vec<FitResult>) -> KernelResult {
        KernelResult {
            kernel: kernel.into(),
            method: "hockney".into(),
            transport: Some(transport.into()),
            cpus: vec![0, 1],
            distance_class: None,
            placement: Placement::Pinned,
            ranks: 2,
            points: vec![
                Point::new().with("grain_flop", 2.0),
                Point::new().with("grain_flop", 400.0),
            ],
            fits,
            warnings: Vec::new(),
            load: None,
            elapsed_s: 0.0,
        }
    }

    /// Eq. (11), t = 45 + 3.2 s/400 µs (TASKS), through the kernel's own
    /// conversion: r_inf 125 Mflop/s, s_1/2 5625 flop, pi_0 22.2 k/s, 50% at
    /// s = 5625 and 91% at 5625 x 0.91/0.09 = 56875 flop.
    #[test]
    fn table_ii_row_from_the_papers_tasks_line() {
        let fit = fit_hockney(&[0.0, 400.0], &[45_000.0, 48_200.0]).unwrap();
        let mut w = Vec::new();
        let f = hockney_fit_result(
            &Fitted::Full(fit),
            "t = t0 + s/r_inf (eq. 10b)",
            "",
            "grain_flop",
            "time_ns.min",
            0.0,
            None,
            &mut w,
        );
        assert!((f.params["r_inf_flop_per_s"] - 125e6).abs() < 1e-3);
        assert!((f.params["s_half_flop"] - 5625.0).abs() < 1e-9);
        assert!((f.params["t0_ns"] - 45_000.0).abs() < 1e-9);
        assert!((f.params["pi0_per_s"] - 22_222.2).abs() < 0.1);
        assert!((f.params["s_50pct_flop"] - 5625.0).abs() < 1e-9);
        assert!((f.params["s_91pct_flop"] - 56_875.0).abs() < 1e-6);
        let table = table_ii(&result("hockney-sync", "tasks-spawn", vec![f]));
        assert!(
            table.contains("0.1250") && table.contains("5625.0"),
            "{table}"
        );
        assert!(
            table.contains("45000.0") && table.contains("56875.0"),
            "{table}"
        );
    }

    /// Table I's dyadic row: r_inf 70 Mflop/s, n_1/2 53 gives t_0 = 757 ns (the
    /// paper prints 0.75 µs), and the bandwidth at 24 bytes per flop 1.68 GB/s.
    #[test]
    fn table_i_row_from_the_papers_dyadic_numbers() {
        let t = |n: f64| (n + 53.0) / 0.07;
        let fit = fit_hockney(&[2.0, 400.0], &[t(2.0), t(400.0)]).unwrap();
        let mut w = Vec::new();
        let f = hockney_fit_result(
            &Fitted::Full(fit),
            "t = (n + n_half)/r_inf on Fig. 1 lengths (n <= 400)",
            "",
            "n_elements",
            "time_ns.min / 1",
            24.0,
            Some(20.0),
            &mut w,
        );
        assert!((f.params["t0_ns"] - 757.142857).abs() < 1e-3);
        assert!((f.params["n_half_flop"] - 53.0).abs() < 1e-9);
        assert!((f.params["bandwidth_gb_per_s"] - 1.68).abs() < 1e-9);
        assert_eq!(f.params["timer_t0_subtracted_ns"], 20.0);
        let table = table_i(&result("hockney-vector", "dyadic-f64", vec![f]));
        assert!(
            table.contains("A = B*C") && table.contains("757.1"),
            "{table}"
        );
        assert!(w.is_empty(), "{w:?}");
    }
}
