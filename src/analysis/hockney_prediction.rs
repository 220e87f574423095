//! Hockney's program time from a result file's card (`halfperf model
//! hockney`): eqs. (4)-(9) of Hockney's "Performance parameters and
//! benchmarking of supercomputers" ([`crate::model::hockney_program`]) fed
//! by the card's `hockney-vector` `(r_inf, n_1/2)` per level and
//! `hockney-sync` `(r_inf, t_0, s_1/2)` per method.
//!
//! A program is vector operations (eq. 4), scalar work at a given rate
//! (eq. 5) and synchronised segments split between P processors (eqs. 8-9,
//! with Kuck's scheduling efficiency E_p). Per method, the prediction gives
//! the time with its 95 % interval (Monte Carlo over the inputs' intervals,
//! a fixed seed), the segments' efficiency and the grain for a target
//! efficiency. Every prediction lists its inputs ([`super::Input`], card
//! rows with their intervals and trust) and its marks (the inputs that are
//! not `ok`).
//!
//! Invariants: a pure function of the program and the file; a method is
//! predicted only on the P it was measured on; a level without a
//! resolvable start-up takes n_1/2 = 0 and says so in a note.

#![forbid(unsafe_code)]

use super::{Input, PredictionError, input_marks, prediction_rows};
use crate::model::hockney_program::{self as hp, Estimate, Program};
use crate::results::{CardRow, ResultFile};
use serde::Serialize;
use std::path::Path;

/// One method's prediction.
#[derive(Debug, Serialize)]
pub struct MethodPrediction {
    /// The synchronisation method.
    pub method: String,
    /// The processors P the method was measured on.
    pub processors: usize,
    /// The program's time, ns.
    pub t_ns: f64,
    /// Its 95 % interval (Monte Carlo over the inputs).
    pub ci95_ns: [f64; 2],
    /// The segments' part of it, eqs. 8-9, ns.
    pub t_segments_ns: f64,
    /// The segments' efficiency E (NaN without segments).
    pub efficiency: f64,
    /// Its 95 % interval.
    pub efficiency_ci95: [f64; 2],
    /// The grain for the target efficiency, flop.
    pub grain_flop: Option<f64>,
    /// Its 95 % interval from s_1/2's.
    pub grain_ci95_flop: Option<[f64; 2]>,
    /// The inputs that are not `ok`.
    pub marks: Vec<String>,
    /// The inputs, the vector ones first.
    pub inputs: Vec<Input>,
}

/// The whole prediction: the program, its vector and scalar parts, and each
/// method's time.
#[derive(Debug, Serialize)]
pub struct HockneyReport {
    /// The result file read.
    pub from: String,
    /// The program, one statement a line.
    pub program: Vec<String>,
    /// The segments' work s, flop.
    pub segment_flop: f64,
    /// Their count q.
    pub segments: f64,
    /// The scheduling efficiency E_p given, if any.
    pub e_p: Option<f64>,
    /// The target efficiency of the grain column.
    pub target_efficiency: f64,
    /// The vector part T_v, eq. 4, ns.
    pub t_vector_ns: f64,
    /// The scalar part T_s, eq. 5, ns.
    pub t_scalar_ns: f64,
    /// The vector part's inputs.
    pub vector_inputs: Vec<Input>,
    /// What was assumed (an n_1/2 taken as 0, a scalar rate given).
    pub notes: Vec<String>,
    /// One prediction per method (none without segments).
    pub predictions: Vec<MethodPrediction>,
}

/// Hockney's prediction of `p` from the result file `file` (read from
/// `from`, which the errors name): the vector part from the card's
/// `hockney-vector` rows, and with segments, one prediction per method
/// (`p`'s, else every method on the card) with the grain for `efficiency`.
pub fn predict_hockney(
    p: &Program,
    file: &ResultFile,
    from: &Path,
    efficiency: f64,
) -> Result<HockneyReport, PredictionError> {
    let rows = prediction_rows(file);
    let (vector, mut notes) = vector_part(p, &rows, from)?;
    let values: Vec<f64> = vector.iter().map(|i| i.value).collect();
    let t_vector_ns = t_vector_ns(p, &values);
    let t_scalar_ns = p
        .scalar
        .map_or(0.0, |(flop, rate)| hp::scalar_time(rate / 1e9, flop));
    let methods = match &p.method {
        Some(m) => vec![m.clone()],
        None => card_methods(&rows),
    };
    let (s, q) = p.segment_work();
    let mut predictions = Vec::new();
    if q > 0.0 && methods.is_empty() {
        return Err(PredictionError::Missing(format!(
            "{} has no hockney-sync rows for the segments: run `halfperf run hockney-sync`",
            from.display()
        )));
    }
    if q > 0.0 {
        for m in &methods {
            predictions.push(predict_method(
                p, file, &rows, m, &vector, efficiency, from,
            )?);
        }
    } else if !(efficiency > 0.0 && efficiency < 1.0) {
        return Err(PredictionError::Efficiency(format!(
            "--efficiency {efficiency} must lie strictly between 0 and 1"
        )));
    }
    if p.scalar.is_some() {
        notes.push("the scalar rate is the one given (the card has none)".into());
    }
    Ok(HockneyReport {
        from: from.display().to_string(),
        program: describe(p),
        segment_flop: s,
        segments: q,
        e_p: p.e_p,
        target_efficiency: efficiency,
        t_vector_ns,
        t_scalar_ns,
        vector_inputs: vector,
        notes,
        predictions,
    })
}

/// The card rows of `kernel` (exact, or any `kernel/...` when it has no `/`).
fn row<'a>(rows: &'a [CardRow], kernel: &str, name: &str, of: Option<&str>) -> Option<&'a CardRow> {
    rows.iter().find(|r| {
        let k = match kernel.contains('/') {
            true => r.kernel == kernel,
            false => r.kernel.split('/').next() == Some(kernel),
        };
        k && r.name == name
            && of.is_none_or(|o| r.of.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(o)))
    })
}

/// The vector part: eq. (4) per group, its inputs and notes.
fn vector_part(
    p: &Program,
    rows: &[CardRow],
    from: &Path,
) -> Result<(Vec<Input>, Vec<String>), PredictionError> {
    let mut inputs = Vec::new();
    let mut notes = Vec::new();
    for v in &p.vector {
        let (kernel, level) = match v.level.split_once('/') {
            Some((variant, level)) => (format!("hockney-vector/{variant}"), level),
            None => ("hockney-vector".to_string(), v.level.as_str()),
        };
        let prefix = level.to_ascii_lowercase();
        let r = row(
            rows,
            &kernel,
            &format!("{prefix}_r_inf_flop_per_s"),
            Some(level),
        )
        .ok_or_else(|| {
            PredictionError::Missing(format!(
                "{} has no r_inf for {} on its card: run `halfperf run hockney-vector`",
                from.display(),
                v.level
            ))
        })?;
        let kernel = r.kernel.clone();
        inputs.push(Input::of_row(r));
        match row(rows, &kernel, &format!("{prefix}_n_half_flop"), Some(level)) {
            Some(n) => inputs.push(Input::of_row(n)),
            None => {
                notes.push(format!(
                    "{kernel} gives no n_1/2 for {level} (its line has no resolvable start-up): taken as 0"
                ));
                inputs.push(Input {
                    kernel: kernel.clone(),
                    name: format!("{prefix}_n_half_flop"),
                    of: Some(level.into()),
                    value: 0.0,
                    unit: "flop".into(),
                    ci95: None,
                    trust: "ok".into(),
                });
            }
        }
    }
    Ok((inputs, notes))
}

/// `T_v` in ns from drawn `(r_inf per s, n_1/2)` pairs, one per vector group.
fn t_vector_ns(p: &Program, x: &[f64]) -> f64 {
    p.vector
        .iter()
        .zip(x.chunks(2))
        .map(|(v, rn)| hp::vector_time(rn[0] / 1e9, rn[1], v.flop * v.count as f64, v.count as f64))
        .sum()
}

/// The `hockney-sync` (or `hockney-program`) methods on the card, in its order.
fn card_methods(rows: &[CardRow]) -> Vec<String> {
    let mut m: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| r.name == "t0_ns") {
        let name = match r.kernel.split_once('/') {
            Some(("hockney-sync" | "hockney-program", m)) => m.to_string(),
            _ => continue,
        };
        if !m.contains(&name) {
            m.push(name);
        }
    }
    m
}

/// The processors `hockney-sync` ran `method` on.
fn sync_processors(file: &ResultFile, method: &str) -> Option<usize> {
    file.kernels
        .iter()
        .find(|k| {
            (k.kernel == "hockney-sync" || k.kernel == "hockney-program")
                && k.transport.as_deref() == Some(method)
        })
        .map(|k| k.ranks.max(k.cpus.len()))
}

/// One method's prediction of the whole program.
fn predict_method(
    p: &Program,
    file: &ResultFile,
    rows: &[CardRow],
    method: &str,
    vector: &[Input],
    target: f64,
    from: &Path,
) -> Result<MethodPrediction, PredictionError> {
    let kernel = ["hockney-sync", "hockney-program"]
        .iter()
        .map(|k| format!("{k}/{method}"))
        .find(|k| row(rows, k, "t0_ns", None).is_some())
        .unwrap_or_else(|| format!("hockney-sync/{method}"));
    let need = |name: &str| {
        row(rows, &kernel, name, None).ok_or_else(|| {
            PredictionError::Missing(format!(
                "{} has no {name} for method {method}: run `halfperf run hockney-sync`",
                from.display()
            ))
        })
    };
    let (r, t0, s_half) = (
        need("r_inf_flop_per_s")?,
        need("t0_ns")?,
        need("s_half_flop")?,
    );
    let parts = sync_processors(file, method).unwrap_or(2);
    if let Some(want) = p.processors
        && want as usize != parts
    {
        return Err(PredictionError::Processors(format!(
            "--processors {want}: {} measured {method} on P = {parts}; run `halfperf run hockney-sync --cpus LIST` with {want} CPUs",
            from.display()
        )));
    }
    let e_p = p.e_p(parts as u64)?;
    if !(target > 0.0 && target < e_p) {
        return Err(PredictionError::Efficiency(format!(
            "--efficiency {target} must lie strictly between 0 and E_p = {e_p}"
        )));
    }
    let (s, q) = p.segment_work();
    let scalar = p
        .scalar
        .map_or(0.0, |(flop, rate)| hp::scalar_time(rate / 1e9, flop));
    let mut inputs: Vec<Input> = vector.to_vec();
    inputs.extend([Input::of_row(r), Input::of_row(t0), Input::of_row(s_half)]);
    let mut est: Vec<Estimate> = vector.iter().map(Input::estimate).collect();
    est.extend([Input::of_row(r).estimate(), Input::of_row(t0).estimate()]);
    let nv = vector.len();
    let total = |x: &[f64]| {
        t_vector_ns(p, &x[..nv])
            + scalar
            + match q > 0.0 {
                true => hp::segmented_time_t0(x[nv] / 1e9, x[nv + 1], s, q, e_p),
                false => 0.0,
            }
    };
    let values: Vec<f64> = est.iter().map(|e| e.value).collect();
    let t_seg = match q > 0.0 {
        true => hp::segmented_time_t0(r.value / 1e9, t0.value, s, q, e_p),
        false => 0.0,
    };
    let half = Estimate::new(s_half.value, s_half.ci95);
    let eff = |sh: f64| hp::segment_efficiency(sh, s, q, e_p);
    let efficiency_ci95 = hp::monte_carlo(&[half], |x| eff(x[0]));
    let grain = hp::grain_for_efficiency(s_half.value, target, e_p).ok();
    let grain_ci95 = s_half.ci95.and_then(|[lo, hi]| {
        let g = |v| hp::grain_for_efficiency(v, target, e_p).ok();
        Some([g(lo.max(f64::MIN_POSITIVE))?, g(hi)?])
    });
    Ok(MethodPrediction {
        method: method.into(),
        processors: parts,
        t_ns: total(&values),
        ci95_ns: hp::monte_carlo(&est, total),
        t_segments_ns: t_seg,
        efficiency: if q > 0.0 { eff(s_half.value) } else { f64::NAN },
        efficiency_ci95,
        grain_flop: grain,
        grain_ci95_flop: grain_ci95,
        marks: input_marks(&inputs),
        inputs,
    })
}

/// The program in words, one statement a line (as its file would say it).
pub fn describe(p: &Program) -> Vec<String> {
    let mut out: Vec<String> = p
        .vector
        .iter()
        .map(|v| format!("vector {} {} {}", v.level, v.flop, v.count))
        .collect();
    if let Some((flop, rate)) = p.scalar {
        out.push(format!("scalar {flop} {rate}"));
    }
    out.extend(
        p.segments
            .iter()
            .map(|g| format!("segment {} {}", g.grain, g.count)),
    );
    out
}
