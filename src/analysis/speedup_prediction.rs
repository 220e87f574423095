//! Lamanna's speedup model from a result file (`halfperf model speedup`):
//! eq. 13 `T = a + b U/N + c N` from the `speedup` kernel's card rows (or,
//! with bursts or receivers, eq. 11 `T = mu + b U/N + c N B R` refitted to
//! the kernel's own points, whose pattern is B = 1, R = N - 1), the optimal
//! N (eq. 15) and the U for an efficiency at N (eq. 18), each with a Monte
//! Carlo 95 % interval over the coefficients' intervals, and the kernel's
//! measured points at that N beside the prediction.
//!
//! Eq. 10, the thesis's message-checking term `C` (for N > 2): the kernel
//! measures the cost `p` of a probe that finds no message (`probe_empty_ms`,
//! with its bootstrap interval), and its exchange probes every missing source
//! once a pass, so `C = (N - 1) p` ([`checking_ms`]). The coefficients of
//! eqs. 13 and 11 are fitted to the benchmark's own times, which include the
//! checking (the thesis says so of its 10.64 ms a node), so `T` holds `C`
//! already; the prediction gives `C` as an input with its interval and
//! `T - C`, the time of the same program without the checking (what the
//! thesis's simulation, calibrated without eq. 10, gives).
//!
//! Invariants: a pure function of the query and the file; the intervals
//! draw the inputs independently (the card keeps no covariances), with a
//! fixed seed.

#![forbid(unsafe_code)]

use super::{Input, PredictionError, input_marks, prediction_rows};
use crate::model::hockney_program::{Estimate, monte_carlo};
use crate::model::interval::t_interval;
use crate::model::speedup::{SpeedupRecord, fit_eq11};
use crate::results::{CardRow, KernelResult, ResultFile};
use serde::Serialize;
use std::path::Path;

/// What `model speedup` asks: U, and N, B, R and E where given (checked
/// whole numbers and ranges), and the kernel's transport.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeedupQuery {
    /// Uniprocessor time U of the whole process, ms.
    pub u_ms: f64,
    /// Nodes N (default: eq. 15's optimum, rounded).
    pub nodes: Option<f64>,
    /// Bursts per node B (with receivers: eq. 11 instead of eq. 13).
    pub bursts: Option<f64>,
    /// Receivers of each burst's message R (default with bursts: N - 1).
    pub receivers: Option<f64>,
    /// Target efficiency E = U / (N T) for eq. 18, in (0, 1).
    pub efficiency: f64,
    /// The speedup kernel's transport (default: the first on the card).
    pub transport: Option<String>,
}

/// A model's time in ms from its drawn coefficients and U.
type TimeFn = Box<dyn Fn(&[f64], f64) -> f64>;

/// A measured point of the kernel at the prediction's N, with the
/// prediction at its U.
#[derive(Debug, Serialize)]
pub struct Check {
    /// The point's U, ms.
    pub u_ms: f64,
    /// Its measured median time, ms.
    pub measured_ms: f64,
    /// The model's time at its U, ms.
    pub predicted_ms: f64,
    /// That time's 95 % band.
    pub ci95_ms: [f64; 2],
    /// Whether the measured time lies inside the band.
    pub inside: bool,
}

/// The whole prediction: the model's time at U and N, eq. 10's checking
/// term, eqs. 15 and 18, the inputs and the kernel's own points at N.
#[derive(Debug, Serialize)]
pub struct SpeedupReport {
    /// The result file read.
    pub from: String,
    /// The speedup kernel read (`speedup/TRANSPORT`).
    pub kernel: String,
    /// The model, eq. 13 or eq. 11 with its B and R.
    pub model: String,
    /// The uniprocessor time U, ms.
    pub u_ms: f64,
    /// The nodes N predicted for.
    pub nodes: f64,
    /// The time T at U and N, ms.
    pub t_ms: f64,
    /// Its 95 % interval.
    pub ci95_ms: [f64; 2],
    /// Eq. 10's checking term `C = (N - 1) p` (0 for N <= 2), ms; `None`
    /// when the file has no `probe_empty_ms`.
    pub checking_ms: Option<f64>,
    /// Its 95 % band.
    pub checking_ci95_ms: Option<[f64; 2]>,
    /// `T - C`: the program without eq. 10's checking.
    pub t_without_checking_ms: Option<f64>,
    /// Its 95 % band.
    pub t_without_checking_ci95_ms: Option<[f64; 2]>,
    /// Eq. 15's optimal N.
    pub optimal_nodes: f64,
    /// Its 95 % interval.
    pub optimal_nodes_ci95: [f64; 2],
    /// The target efficiency of eq. 18.
    pub efficiency: f64,
    /// Eq. 18's U for that efficiency at N, ms.
    pub u_for_efficiency_ms: f64,
    /// Its 95 % interval.
    pub u_for_efficiency_ci95_ms: [f64; 2],
    /// The inputs that are not `ok`.
    pub marks: Vec<String>,
    /// The inputs, the model's first.
    pub inputs: Vec<Input>,
    /// The kernel's measured points at N beside the prediction.
    pub checks: Vec<Check>,
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
fn eq11_inputs(k: &KernelResult, kernel: &str, trust: &str) -> Result<Vec<Input>, PredictionError> {
    let fit = fit_eq11(&records(k), None).map_err(PredictionError::Eq11)?;
    let dof = fit.fit.degrees_of_freedom;
    let coef = |term: Option<&crate::model::regression::Coefficient>, name: &str, unit: &str| {
        let c =
            term.ok_or_else(|| PredictionError::Missing(format!("eq. 11 fit has no {name}")))?;
        Ok::<_, PredictionError>(Input {
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
pub fn checking_ms(nodes: f64, probe_ms: f64) -> f64 {
    match nodes > 2.0 {
        true => (nodes - 1.0) * probe_ms,
        false => 0.0,
    }
}

/// The speedup kernel the prediction reads: `speedup/TRANSPORT` with
/// --transport, else the first on the card, else `speedup/mailbox`.
fn speedup_kernel(q: &SpeedupQuery, rows: &[CardRow]) -> String {
    match &q.transport {
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

/// Lamanna's prediction for `q` from the result file `file` (read from
/// `from`, which the errors name): eq. 13 from the speedup kernel's card
/// rows, or eq. 11 refitted to its points when `q` gives bursts or
/// receivers.
pub fn predict_speedup(
    q: &SpeedupQuery,
    file: &ResultFile,
    from: &Path,
) -> Result<SpeedupReport, PredictionError> {
    let rows = prediction_rows(file);
    let kernel = speedup_kernel(q, &rows);
    let missing = || {
        format!(
            "{} has no eq. 13 fit for {kernel}: run `halfperf run speedup`",
            from.display()
        )
    };
    let find = |name: &str| -> Result<&CardRow, PredictionError> {
        rows.iter()
            .find(|r| r.kernel == kernel && r.name == name)
            .ok_or_else(|| PredictionError::Missing(missing()))
    };
    let eq13: Vec<Input> = ["a_ms", "b", "c_ms_per_node"]
        .iter()
        .map(|n| find(n).map(Input::of_row))
        .collect::<Result<_, _>>()?;
    let est = |i: &[Input]| -> Vec<Estimate> {
        vec![
            Estimate::signed(i[0].value, i[0].ci95),
            Estimate::signed(i[1].value, i[1].ci95),
            Estimate::signed(i[2].value, i[2].ci95),
        ]
    };
    let e13 = est(&eq13);
    let u = q.u_ms;
    let optimal = |x: &[f64]| match x[1] > 0.0 && x[2] > 0.0 {
        true => (x[1] * u / x[2]).sqrt(),
        false => f64::INFINITY,
    };
    let values: Vec<f64> = e13.iter().map(|e| e.value).collect();
    let optimal_nodes = optimal(&values);
    let n = match q.nodes {
        Some(n) => n,
        None if optimal_nodes.is_finite() => optimal_nodes.round().max(1.0),
        None => return Err(PredictionError::NoOptimum),
    };
    let e = q.efficiency;
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
        .ok_or_else(|| PredictionError::Missing(missing()))?;
    let (model, inputs, time): (String, Vec<Input>, TimeFn) = match (q.bursts, q.receivers) {
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
    if q.bursts.is_some() || q.receivers.is_some() {
        all_inputs.extend(eq13.iter().cloned());
    }
    let probe = find("probe_empty_ms").ok().map(Input::of_row);
    let (checking, t_without) = match &probe {
        Some(p) => eq10(p, n, u, &ein, &time),
        None => (None, None),
    };
    all_inputs.extend(probe);
    Ok(SpeedupReport {
        from: from.display().to_string(),
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
    })
}
