//! Headline parameters from a kernel's fits, for the kernels that do not compute
//! their own from rounds or trials: every fitted coefficient that has a standard
//! error, with its Student-t 95 % interval, and every half-performance length
//! (`n_half_*`, `s_half_*`) derived from two such coefficients, with the bounds
//! their two intervals give.
//!
//! Naming follows [`Param`]: `name` is the key in `FitResult::params`, `of` the
//! fit's qualifier (`L1` from `... on L1`, `P = 4` from `... at P = 4`, `50%
//! load` from `... under 50% load`), else the fit's model when a kernel reports
//! the name in several fits.

use crate::model::interval::{FIT_STD_ERROR, t_interval};
use crate::model::stats::Summary;
use crate::results::{FitResult, KernelResult, Param, Point, PointValue, is_probe};

/// How a half-length's interval is described.
pub const FROM_TWO_INTERVALS: &str =
    "bounds from the fit-standard-error intervals of its two coefficients";

/// How an interval from the trials' range is described.
pub const ORDER_STATISTICS: &str = "range over the trials: an order-statistic interval for the median, coverage 1 - 2^(1-n) >= 93.75 % for n >= 5 trials";

/// How an interval of a ratio from its trials' range is described.
pub const RATIO_RANGE: &str = "range of the ratio over the trials";

/// Fills `r.headline` when the kernel left it empty: from its fits, or, for a
/// kernel without fits and with at most [`FEW_POINTS`] points, from the points.
/// A kernel's probes ([`is_probe`]) alone do not count as its headline: they
/// stay, after the parameters.
pub fn fill_from_fits(r: &mut KernelResult) {
    if !r.headline.iter().all(|p| is_probe(&p.name)) {
        return;
    }
    let probes = std::mem::take(&mut r.headline);
    r.headline = from_fits(&r.fits);
    if r.headline.is_empty() && r.fits.is_empty() && r.points.len() <= FEW_POINTS {
        r.headline = from_points(&r.points);
    }
    r.headline.extend(probes);
}

/// The most points a kernel without fits may have for its points to be headlines.
pub const FEW_POINTS: usize = 2;

/// The median of a point's trials with the trials' range as its interval
/// (`None` below 5 trials, where the range covers the median less than 93.75 % of
/// the time).
pub fn median_with_range(name: &str, of: Option<&str>, s: &Summary) -> Param {
    let ci = (s.count >= 5).then_some([s.min, s.max]);
    Param::new(name, of, s.median).with_ci(ci, ORDER_STATISTICS)
}

/// Headlines from points: each measured distribution as [`median_with_range`], and
/// each ratio (`*_over_*`) with its `_min`/`_max` range; `of` names the point by
/// its swept variables (`8 B` for a size alone).
pub fn from_points(points: &[Point]) -> Vec<Param> {
    let mut out = Vec::new();
    for p in points {
        let swept: Vec<(&str, f64)> = p.swept().collect();
        let of = match swept.as_slice() {
            [] => None,
            [("size_bytes", b)] => Some(format!("{b} B")),
            many => Some(
                many.iter()
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
        };
        for (name, v) in &p.0 {
            match v {
                PointValue::Stats(s) => out.push(median_with_range(name, of.as_deref(), s)),
                PointValue::Number(x)
                    if name.contains("_over_")
                        && !name.ends_with("_min")
                        && !name.ends_with("_max") =>
                {
                    let ci = p
                        .number(&format!("{name}_min"))
                        .zip(p.number(&format!("{name}_max")))
                        .map(|(a, b)| [a, b]);
                    out.push(Param::new(name, of.as_deref(), *x).with_ci(ci, RATIO_RANGE));
                }
                PointValue::Number(_) => {}
            }
        }
    }
    out
}

/// The headline parameters of `fits` (see the module doc).
pub fn from_fits(fits: &[FitResult]) -> Vec<Param> {
    let mut out: Vec<Param> = Vec::new();
    for fit in fits {
        let of = qualifier(&fit.model);
        let coefficients = fit.std_errors.len().max(2);
        let dof = fit.n_points.saturating_sub(coefficients);
        let ci = |name: &str| {
            let v = *fit.params.get(name)?;
            t_interval(v, *fit.std_errors.get(name)?, dof)
        };
        for (name, &value) in &fit.params {
            if fit.std_errors.contains_key(name) {
                out.push(Param::new(name, of, value).with_ci(ci(name), FIT_STD_ERROR));
            } else if let Some(prefix) = half_prefix(name) {
                let p = |k: &str| format!("{prefix}{k}");
                let bounds = match (ci(&p("t_startup_ns")), ci(&p("t_per_byte_ns"))) {
                    (Some([a, b]), Some([c, d])) if a > 0.0 && c > 0.0 => Some([a / d, b / c]),
                    _ => match (ci(&p("t0_ns")), ci(&p("r_inf_flop_per_s"))) {
                        (Some([a, b]), Some([c, d])) if a > 0.0 && c > 0.0 => {
                            Some([a * c * 1e-9, b * d * 1e-9])
                        }
                        _ => None,
                    },
                };
                out.push(Param::new(name, of, value).with_ci(bounds, FROM_TWO_INTERVALS));
            }
        }
    }
    // A name that several fits share and no qualifier tells apart: the model does.
    for i in 0..out.len() {
        let shared = out
            .iter()
            .enumerate()
            .any(|(j, p)| j != i && p.name == out[i].name && p.of == out[i].of);
        if shared && out[i].of.is_none() {
            let model = fits
                .iter()
                .find(|f| f.params.get(&out[i].name) == Some(&out[i].value))
                .map(|f| f.model.clone());
            out[i].of = model;
        }
    }
    out
}

/// The prefix of a half-performance length's name (`l1_` of `l1_n_half_flop`).
fn half_prefix(name: &str) -> Option<&str> {
    ["n_half_bytes", "n_half_flop", "s_half_flop"]
        .iter()
        .find_map(|h| name.strip_suffix(h))
}

/// What a fit's model is of: the text after its last ` on `, ` at ` or ` under `.
fn qualifier(model: &str) -> Option<&str> {
    [" on ", " at ", " under "]
        .iter()
        .filter_map(|w| model.rfind(w).map(|i| (i, &model[i + w.len()..])))
        .max_by_key(|(i, _)| *i)
        .map(|(_, q)| q.trim())
        .filter(|q| !q.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn fit(model: &str, params: &[(&str, f64, Option<f64>)], n: usize) -> FitResult {
        FitResult {
            model: model.into(),
            x: "size_bytes".into(),
            y: "one_way_ns.min".into(),
            params: params.iter().map(|(k, v, _)| (k.to_string(), *v)).collect(),
            std_errors: params
                .iter()
                .filter_map(|(k, _, se)| se.map(|s| (k.to_string(), s)))
                .collect::<BTreeMap<_, _>>(),
            r2: 1.0,
            n_points: n,
            flagged: false,
        }
    }

    /// t_startup 100 ± se 2, t_per_byte 0.5 ± se 0.01 over 7 points (5 dof,
    /// t = 2.570582): [94.858836, 105.141164] and [0.474294, 0.525706]; n_1/2 =
    /// 200 B with bounds 94.858836/0.525706 = 180.44 and 105.141164/0.474294 = 221.68.
    #[test]
    fn a_ping_pong_line_gives_three_parameters_with_intervals() {
        let f = fit(
            "t_startup + N t_per_byte",
            &[
                ("t_startup_ns", 100.0, Some(2.0)),
                ("t_per_byte_ns", 0.5, Some(0.01)),
                ("n_half_bytes", 200.0, None),
                ("asymptotic_bandwidth_mb_per_s", 2000.0, None),
            ],
            7,
        );
        let h = from_fits(&[f]);
        assert_eq!(h.len(), 3);
        let get = |n: &str| h.iter().find(|p| p.name == n).unwrap();
        let [lo, hi] = get("t_startup_ns").ci95.unwrap();
        assert!((lo - 94.858836).abs() < 1e-5 && (hi - 105.141164).abs() < 1e-5);
        let [lo, hi] = get("n_half_bytes").ci95.unwrap();
        assert!(
            (lo - 180.44).abs() < 0.01 && (hi - 221.68).abs() < 0.01,
            "{lo} {hi}"
        );
        assert_eq!(
            get("n_half_bytes").interval.as_deref(),
            Some(FROM_TWO_INTERVALS)
        );
        assert!(h.iter().all(|p| p.of.is_none()));
    }

    #[test]
    fn qualifiers_tell_repeated_names_apart() {
        let a = fit(
            "t_startup + N t_per_byte at P = 2",
            &[("t_startup_ns", 1.0, Some(0.1))],
            5,
        );
        let b = fit(
            "t_startup + N t_per_byte at P = 4",
            &[("t_startup_ns", 2.0, Some(0.1))],
            5,
        );
        let c = fit("E = E0 + E1 n", &[("e0_ns", 2.0, Some(0.1))], 5);
        let h = from_fits(&[a, b, c]);
        let ofs: Vec<_> = h.iter().map(|p| p.of.as_deref()).collect();
        assert_eq!(ofs, vec![Some("P = 2"), Some("P = 4"), None]);
        assert_eq!(qualifier("t = (n + n_half)/r_inf on L1"), Some("L1"));
        assert_eq!(
            qualifier("t_startup + N t_per_byte under 50% load"),
            Some("50% load")
        );
    }
}
