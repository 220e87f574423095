//! `halfperf model speedup`: Lamanna's eq. 13 `T = a + b U/N + c N` from the
//! `speedup` kernel's card rows (or, with `--bursts`/`--receivers`, eq. 11
//! `T = mu + b U/N + c N B R` fitted to the kernel's own points, whose
//! pattern is B = 1, R = N - 1), the optimal N (eq. 15) and the U for an
//! efficiency at N (eq. 18), each with a Monte Carlo 95 % interval over the
//! coefficients' intervals, and the kernel's measured points at that N beside
//! the prediction.
//!
//! Eq. 10, the thesis's message-checking term `C` (for N > 2): the kernel
//! measures the cost `p` of a probe that finds no message (`probe_empty_ms`,
//! with its bootstrap interval), and its exchange probes every missing source
//! once a pass, so `C = (N - 1) p` ([`checking_ms`]). The coefficients of
//! eqs. 13 and 11 are fitted to the benchmark's own times, which include the
//! checking (the thesis says so of its 10.64 ms a node), so `T` holds `C`
//! already; the prediction prints `C` as an input with its interval and `T - C`,
//! the time of the same program without the checking (what the thesis's
//! simulation, calibrated without eq. 10, gives).

use anyhow::{Context, Result, bail};
use halfperf::analysis::{Input, input_marks, prediction_rows};
use halfperf::model::hockney_program::{Estimate, monte_carlo};
use halfperf::model::interval::t_interval;
use halfperf::model::speedup::{SpeedupRecord, fit_eq11};
use halfperf::results::{self, CardRow, KernelResult};
use halfperf::text::prediction::{ci, input_line};
use serde::Serialize;
use std::path::PathBuf;

/// `halfperf model speedup` (see `--help`).
#[derive(clap::Args)]
pub(crate) struct SpeedupArgs {
    /// Result file with a `speedup` kernel result.
    #[arg(long, value_name = "FILE")]
    from: PathBuf,
    /// Uniprocessor time U of the whole process, ms.
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    u_ms: f64,
    /// Nodes N (default: the optimal N of eq. 15, rounded).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    nodes: Option<f64>,
    /// Bursts per node B (with --receivers: eq. 11 instead of eq. 13).
    #[arg(long, value_name = "B", allow_negative_numbers = true)]
    bursts: Option<f64>,
    /// Receivers of each burst's message R (default with --bursts: N - 1).
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    receivers: Option<f64>,
    /// Target efficiency E = U / (N T) for eq. 18, in (0, 1).
    #[arg(
        long,
        value_name = "E",
        default_value_t = 0.8,
        allow_negative_numbers = true
    )]
    efficiency: f64,
    /// The speedup kernel's transport (`mailbox`, `channel`; default: the first).
    #[arg(long, value_name = "NAME")]
    transport: Option<String>,
    /// Print the prediction as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// A model's time in ms from its drawn coefficients and U.
type TimeFn = Box<dyn Fn(&[f64], f64) -> f64>;

/// A measured point of the kernel at the prediction's N, with the
/// prediction at its U.
#[derive(Debug, Serialize)]
struct Check {
    u_ms: f64,
    measured_ms: f64,
    predicted_ms: f64,
    ci95_ms: [f64; 2],
    inside: bool,
}

#[derive(Debug, Serialize)]
struct SpeedupReport {
    from: String,
    kernel: String,
    model: String,
    u_ms: f64,
    nodes: f64,
    t_ms: f64,
    ci95_ms: [f64; 2],
    /// Eq. 10's checking term `C = (N - 1) p` (0 for N <= 2), ms; `None`
    /// when the file has no `probe_empty_ms`.
    checking_ms: Option<f64>,
    checking_ci95_ms: Option<[f64; 2]>,
    /// `T - C`: the program without eq. 10's checking.
    t_without_checking_ms: Option<f64>,
    t_without_checking_ci95_ms: Option<[f64; 2]>,
    optimal_nodes: f64,
    optimal_nodes_ci95: [f64; 2],
    efficiency: f64,
    u_for_efficiency_ms: f64,
    u_for_efficiency_ci95_ms: [f64; 2],
    marks: Vec<String>,
    inputs: Vec<Input>,
    checks: Vec<Check>,
}

fn whole(v: f64, flag: &str) -> Result<f64> {
    if !(v >= 1.0 && v.fract() == 0.0 && v < 1e9) {
        bail!("{flag} {v} must be a whole number of at least 1");
    }
    Ok(v)
}

/// The kernel's points as records (B = 1, R = N - 1: every node sends once
/// to every other), the median time of each.
fn records(k: &KernelResult) -> Vec<SpeedupRecord> {
    k.points
        .iter()
        .filter_map(|p| {
            let n = p.number("processors")?;
            Some(SpeedupRecord {
                uniprocessor_ms: p.number("uniprocessor_ms")?,
                nodes: n as u32,
                bursts: 1,
                receivers: (n as u32).saturating_sub(1),
                time_ms: p.stats("time_ms")?.median,
            })
        })
        .collect()
}

/// Eq. 11's coefficients `mu, b, c` fitted to the kernel's points, as inputs.
fn eq11_inputs(k: &KernelResult, kernel: &str, trust: &str) -> Result<Vec<Input>> {
    let fit = fit_eq11(&records(k), None).context("eq. 11 on the speedup kernel's points")?;
    let dof = fit.fit.degrees_of_freedom;
    let coef = |term: Option<&halfperf::model::regression::Coefficient>, name: &str, unit: &str| {
        let c = term.with_context(|| format!("eq. 11 fit has no {name}"))?;
        Ok::<_, anyhow::Error>(Input {
            kernel: kernel.into(),
            name: name.into(),
            of: Some("eq. 11 refitted to the kernel's points".into()),
            value: c.value,
            unit: unit.into(),
            ci95: t_interval(c.value, c.standard_error, dof),
            trust: trust.into(),
        })
    };
    Ok(vec![
        coef(fit.fit.intercept.as_ref(), "mu_ms", "ms")?,
        coef(fit.fit.coefficient("U/N"), "b", "")?,
        coef(fit.fit.coefficient("NBR"), "c_ms_per_message", "ms")?,
    ])
}

/// Eq. 10's checking term at `nodes`: a pass of `N - 1` probes that find
/// nothing, `C = (N - 1) p`, for N > 2 (the thesis fitted it for N > 2; with
/// two nodes the one source is waited for, not polled among others), ms.
pub(crate) fn checking_ms(nodes: f64, probe_ms: f64) -> f64 {
    match nodes > 2.0 {
        true => (nodes - 1.0) * probe_ms,
        false => 0.0,
    }
}

/// The arguments checked: U and E in range, and N, B and R whole numbers
/// where given.
fn checked_args(args: &SpeedupArgs) -> Result<(Option<f64>, Option<f64>, Option<f64>)> {
    if !(args.u_ms > 0.0 && args.u_ms.is_finite()) {
        bail!("--u-ms {} must be a positive number of ms", args.u_ms);
    }
    if !(args.efficiency > 0.0 && args.efficiency < 1.0) {
        bail!(
            "--efficiency {} must lie strictly between 0 and 1",
            args.efficiency
        );
    }
    let nodes = args.nodes.map(|n| whole(n, "--nodes")).transpose()?;
    let bursts = args.bursts.map(|b| whole(b, "--bursts")).transpose()?;
    let receivers = args
        .receivers
        .map(|r| whole(r, "--receivers"))
        .transpose()?;
    Ok((nodes, bursts, receivers))
}

/// The speedup kernel the prediction reads: `speedup/TRANSPORT` with
/// --transport, else the first on the card, else `speedup/mailbox`.
fn speedup_kernel(args: &SpeedupArgs, rows: &[CardRow]) -> String {
    match &args.transport {
        Some(t) => format!("speedup/{t}"),
        None => rows
            .iter()
            .find(|r| r.kernel.starts_with("speedup/"))
            .map(|r| r.kernel.clone())
            .unwrap_or_else(|| "speedup/mailbox".into()),
    }
}

/// The kernel's measured points at N, each beside the model's time at its U
/// (`vals`, the inputs' values) and that time's 95 % band (drawn from `ein`).
fn checks_at(
    k: &KernelResult,
    n: f64,
    ein: &[Estimate],
    vals: &[f64],
    time: &TimeFn,
) -> Vec<Check> {
    records(k)
        .iter()
        .filter(|r| f64::from(r.nodes) == n)
        .map(|r| {
            let band = monte_carlo(ein, |x| time(x, r.uniprocessor_ms));
            Check {
                u_ms: r.uniprocessor_ms,
                measured_ms: r.time_ms,
                predicted_ms: time(vals, r.uniprocessor_ms),
                ci95_ms: band,
                inside: band[0] <= r.time_ms && r.time_ms <= band[1],
            }
        })
        .collect()
}

/// A value in ms and its 95 % band.
type Banded = Option<(f64, [f64; 2])>;

/// Eq. 10 at N and U: the checking term C and the program without it, T - C,
/// each with its band. The probe's row is drawn with the model's inputs
/// (`ein`) so that T - C keeps their correlation.
fn eq10(probe: &Input, n: f64, u: f64, ein: &[Estimate], time: &TimeFn) -> (Banded, Banded) {
    let vals: Vec<f64> = ein.iter().map(|e| e.value).collect();
    let with_probe = |x: &[f64]| checking_ms(n, x[x.len() - 1]);
    let mut all = ein.to_vec();
    all.push(probe.estimate());
    let c = checking_ms(n, probe.value);
    let without = |x: &[f64]| time(&x[..x.len() - 1], u) - with_probe(x);
    (
        Some((c, monte_carlo(&all, with_probe))),
        Some((time(&vals, u) - c, monte_carlo(&all, without))),
    )
}

/// `halfperf model speedup`.
pub(crate) fn model_speedup(args: &SpeedupArgs) -> Result<()> {
    let (nodes, bursts, receivers) = checked_args(args)?;
    let file = results::read(&args.from)?;
    let rows = prediction_rows(&file);
    let kernel = speedup_kernel(args, &rows);
    let missing = || {
        format!(
            "{} has no eq. 13 fit for {kernel}: run `halfperf run speedup`",
            args.from.display()
        )
    };
    let find = |name: &str| -> Result<&CardRow> {
        rows.iter()
            .find(|r| r.kernel == kernel && r.name == name)
            .with_context(missing)
    };
    let eq13: Vec<Input> = ["a_ms", "b", "c_ms_per_node"]
        .iter()
        .map(|n| find(n).map(Input::of_row))
        .collect::<Result<_>>()?;
    let est = |i: &[Input]| -> Vec<Estimate> {
        vec![
            Estimate::signed(i[0].value, i[0].ci95),
            Estimate::signed(i[1].value, i[1].ci95),
            Estimate::signed(i[2].value, i[2].ci95),
        ]
    };
    let e13 = est(&eq13);
    let u = args.u_ms;
    let optimal = |x: &[f64]| match x[1] > 0.0 && x[2] > 0.0 {
        true => (x[1] * u / x[2]).sqrt(),
        false => f64::INFINITY,
    };
    let values: Vec<f64> = e13.iter().map(|e| e.value).collect();
    let optimal_nodes = optimal(&values);
    let n = match nodes {
        Some(n) => n,
        None if optimal_nodes.is_finite() => optimal_nodes.round().max(1.0),
        None => bail!("eq. 15 has no optimum (b or c not positive): give --nodes N"),
    };
    let e = args.efficiency;
    let u_for = |x: &[f64]| match e * x[1] < 1.0 {
        true => e * (x[0] * n + x[2] * n * n) / (1.0 - e * x[1]),
        false => f64::INFINITY,
    };
    let k = file
        .kernels
        .iter()
        .find(|k| {
            k.kernel == "speedup"
                && format!("speedup/{}", k.transport.as_deref().unwrap_or("")) == kernel
        })
        .with_context(missing)?;
    let (model, inputs, time): (String, Vec<Input>, TimeFn) = match (bursts, receivers) {
        (None, None) => (
            "eq. 13: T = a + b U/N + c N".into(),
            eq13.clone(),
            Box::new(move |x: &[f64], u: f64| x[0] + x[1] * u / n + x[2] * n),
        ),
        (b, r) => {
            let (b, r) = (b.unwrap_or(1.0), r.unwrap_or(n - 1.0));
            (
                format!("eq. 11: T = mu + b U/N + c N B R, B = {b}, R = {r}"),
                eq11_inputs(k, &kernel, &eq13[0].trust)?,
                Box::new(move |x: &[f64], u: f64| x[0] + x[1] * u / n + x[2] * n * b * r),
            )
        }
    };
    let ein = est(&inputs);
    let vals: Vec<f64> = ein.iter().map(|e| e.value).collect();
    let checks = checks_at(k, n, &ein, &vals, &time);
    let mut all_inputs = inputs.clone();
    if bursts.is_some() || receivers.is_some() {
        all_inputs.extend(eq13.iter().cloned());
    }
    let probe = find("probe_empty_ms").ok().map(Input::of_row);
    let (checking, t_without) = match &probe {
        Some(p) => eq10(p, n, u, &ein, &time),
        None => (None, None),
    };
    all_inputs.extend(probe);
    let report = SpeedupReport {
        from: args.from.display().to_string(),
        kernel: kernel.clone(),
        model,
        u_ms: u,
        nodes: n,
        t_ms: time(&vals, u),
        ci95_ms: monte_carlo(&ein, |x| time(x, u)),
        checking_ms: checking.map(|c| c.0),
        checking_ci95_ms: checking.map(|c| c.1),
        t_without_checking_ms: t_without.map(|t| t.0),
        t_without_checking_ci95_ms: t_without.map(|t| t.1),
        optimal_nodes,
        optimal_nodes_ci95: monte_carlo(&e13, optimal),
        efficiency: e,
        u_for_efficiency_ms: u_for(&values),
        u_for_efficiency_ci95_ms: monte_carlo(&e13, u_for),
        marks: input_marks(&all_inputs),
        inputs: all_inputs,
        checks,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text(&report));
    }
    Ok(())
}

fn text(r: &SpeedupReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let num = results::num;
    let mark = match r.marks.is_empty() {
        true => String::new(),
        false => format!("  ! from {}", r.marks.join(", ")),
    };
    let _ = writeln!(
        out,
        "Lamanna's speedup model from {} ({})",
        r.from, r.kernel
    );
    let _ = writeln!(
        out,
        "{}: T(U = {} ms, N = {}) = {} ms {}{mark}",
        r.model,
        num(r.u_ms),
        r.nodes,
        num(r.t_ms),
        ci(r.ci95_ms)
    );
    match (
        r.checking_ms,
        r.checking_ci95_ms,
        r.t_without_checking_ms,
        r.t_without_checking_ci95_ms,
    ) {
        (Some(c), Some(cci), Some(t), Some(tci)) => {
            let _ = writeln!(
                out,
                "eq. 10: message checking C = (N - 1) probe_empty_ms for N > 2 = {} ms {}, inside T (the fit's times include it); T - C = {} ms {}",
                num(c),
                ci(cci),
                num(t),
                ci(tci)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "eq. 10: the file has no probe_empty_ms (a speedup run before it was recorded): the checking term is not separated from T"
            );
        }
    }
    let _ = writeln!(
        out,
        "eq. 15: optimal N = sqrt(b U / c) = {} {}",
        num(r.optimal_nodes),
        ci(r.optimal_nodes_ci95)
    );
    let _ = writeln!(
        out,
        "eq. 18: U for E = {} at N = {}: e (a N + c N^2) / (1 - e b) = {} ms {}",
        r.efficiency,
        r.nodes,
        num(r.u_for_efficiency_ms),
        ci(r.u_for_efficiency_ci95_ms)
    );
    for i in &r.inputs {
        let _ = writeln!(out, "  input: {}", input_line(i));
    }
    let _ = writeln!(
        out,
        "95 % intervals: Monte Carlo over the inputs' intervals, independently (the card keeps no covariances)"
    );
    if r.checks.is_empty() {
        let _ = writeln!(out, "the kernel measured no point at N = {}", r.nodes);
    }
    for c in &r.checks {
        let _ = writeln!(
            out,
            "  measured at U = {} ms, N = {}: {} ms; predicted {} ms {} {}",
            num(c.u_ms),
            r.nodes,
            num(c.measured_ms),
            num(c.predicted_ms),
            ci(c.ci95_ms),
            if c.inside { "inside" } else { "OUTSIDE" }
        );
    }
    out
}
