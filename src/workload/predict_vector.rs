//! The `//@ vector` calcs of a schedule timed from the card: Hockney's eq. (4),
//! `(FLOP + vi n_1/2) / r_inf` with the `r_inf` and `n_1/2` that
//! `hockney-vector` fitted for the operation on the named memory level (its
//! per-level lines, `t = (n + n_half)/r_inf on LEVEL`), each an [`Input`] with
//! the interval `1.96` standard errors wide, so the Monte Carlo draws them too.
//! A level whose fit has no `n_1/2` (the line's intercept not resolved) takes
//! 0 and is marked `flagged fit`.
#![forbid(unsafe_code)]

use super::predict_inputs::{Input, Inputs, PredictError};
use crate::model::goal::Schedule;
use crate::results::{ResultFile, Trust};
use std::collections::BTreeMap;

/// The kernel whose fits time a vector calc.
const KERNEL: &str = "hockney-vector";

/// Appends to `inputs` the `r_inf` and `n_1/2` of every (operation, level) the
/// schedule's vector calcs name, from the last of `files` that has them.
pub fn gather_vectors(
    files: &[(&str, &ResultFile)],
    schedule: &Schedule,
    inputs: &mut Inputs,
) -> Result<(), PredictError> {
    let mut wanted: Vec<(String, String)> = schedule
        .ranks
        .iter()
        .flat_map(|r| &r.ops)
        .filter_map(|o| o.vector.as_ref())
        .map(|v| (v.operation.clone(), v.level.clone()))
        .collect();
    wanted.sort();
    wanted.dedup();
    for (op, level) in wanted {
        let l = level.to_lowercase();
        let (rate, half) = (format!("{l}_r_inf_flop_per_s"), format!("{l}_n_half_flop"));
        let model = format!("t = (n + n_half)/r_inf on {level}");
        let found = files.iter().rev().find_map(|(file, doc)| {
            let k = doc
                .kernels
                .iter()
                .find(|k| k.kernel == KERNEL && k.transport.as_deref() == Some(op.as_str()))?;
            let fit = k.fits.iter().find(|f| f.model == model)?;
            let busy = k.load.as_ref().is_some_and(|l| l.busy);
            let row = |name: &str, symbol: &'static str, unit: &str| {
                let value = *fit.params.get(name)?;
                let se = fit.std_errors.get(name).copied().filter(|s| s.is_finite());
                let trust = match (busy, fit.flagged) {
                    (true, _) => Trust::Busy,
                    (_, true) => Trust::FlaggedFit,
                    _ => Trust::Ok,
                };
                Some(Input {
                    symbol,
                    kernel: format!("{KERNEL}/{op}"),
                    name: name.to_owned(),
                    value,
                    unit: unit.into(),
                    ci95: se.map(|s| [value - 1.96 * s, value + 1.96 * s]),
                    trust: trust.mark().into(),
                    file: (*file).into(),
                })
            };
            let r = row(&rate, "r_inf", "flop/s")?;
            let h = row(&half, "n_half", "flop").unwrap_or(Input {
                value: 0.0,
                ci95: None,
                trust: Trust::FlaggedFit.mark().into(),
                ..row(&rate, "n_half", "flop")?
            });
            let h = Input {
                name: half.clone(),
                ..h
            };
            Some([r, h])
        });
        match found.filter(|[r, _]| r.value.is_finite() && r.value > 0.0) {
            Some(rows) => inputs.rows.extend(rows),
            None => {
                return Err(PredictError::Missing {
                    files: files.iter().map(|f| f.0).collect::<Vec<_>>().join(", "),
                    name: rate,
                    kernel: format!("{KERNEL}/{op}"),
                    symbol: "r_inf",
                    run: KERNEL.into(),
                });
            }
        }
    }
    Ok(())
}

/// `schedule` with every vector calc timed by Hockney's eq. (4) at the values
/// of `inputs`' rows ([`gather_vectors`]'s), as `predict` times it at its
/// central values: `simulate --from` uses it. Unchanged without vector calcs.
pub fn vectors_timed(schedule: &Schedule, inputs: &Inputs) -> Schedule {
    let x: Vec<f64> = inputs.rows.iter().map(|r| r.value).collect();
    timed(schedule, &vector_rows(inputs), &x).unwrap_or_else(|| schedule.clone())
}

/// Where each (operation, level)'s `r_inf` and `n_1/2` sit in the rows.
pub(super) fn vector_rows(inputs: &Inputs) -> BTreeMap<(String, String), [usize; 2]> {
    let mut out = BTreeMap::new();
    for (i, r) in inputs.rows.iter().enumerate() {
        if r.symbol != "r_inf" {
            continue;
        }
        let op = r.kernel.trim_start_matches(KERNEL).trim_start_matches('/');
        let level = r.name.trim_end_matches("_r_inf_flop_per_s");
        let half = format!("{level}_n_half_flop");
        let h = (i + 1..inputs.rows.len())
            .find(|&j| inputs.rows[j].name == half && inputs.rows[j].kernel == r.kernel)
            .unwrap_or(i);
        let level = crate::model::goal::VECTOR_LEVELS
            .iter()
            .find(|l| l.eq_ignore_ascii_case(level))
            .map_or(level.to_owned(), |l| (*l).to_owned());
        out.insert((op.to_owned(), level), [i, h]);
    }
    out
}

/// `schedule` with every vector calc's time from the draw `x` of the rows
/// (`rows` from [`vector_rows`]); `None` when it has no vector calc.
pub(super) fn timed(
    schedule: &Schedule,
    rows: &BTreeMap<(String, String), [usize; 2]>,
    x: &[f64],
) -> Option<Schedule> {
    if rows.is_empty() {
        return None;
    }
    let mut out = schedule.clone();
    for op in out.ranks.iter_mut().flat_map(|r| r.ops.iter_mut()) {
        let Some(v) = &op.vector else { continue };
        let Some(&[r, h]) = rows.get(&(v.operation.clone(), v.level.clone())) else {
            continue;
        };
        let n_half = if h == r { 0.0 } else { x[h] };
        let ns = v.time_ns(x[r].max(f64::MIN_POSITIVE), n_half.max(0.0));
        op.kind = crate::model::goal::OpKind::Calc {
            ns: ns.round().clamp(0.0, u64::MAX as f64) as u64,
        };
    }
    Some(out)
}
