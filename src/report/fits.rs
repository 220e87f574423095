//! The fitted models a report can draw: which quantity a fit is of, over what
//! range, its curve evaluated on the plot's axis, and the axis labels.

use super::plot;
use super::series::{GROUP_PREFERENCE, group_text, names};
use crate::results::{FitResult, Point, num};
use std::collections::BTreeSet;

/// A readable axis label from a field name, unit from its suffix:
/// `one_way_ns` → "one-way latency (ns)", `size_bytes` → "message size (bytes)".
pub fn axis_label(name: &str) -> String {
    const UNITS: [(&str, &str); 14] = [
        ("_mb_per_s", "MB/s"),
        ("_gb_per_s", "GB/s"),
        ("_flop_per_s", "flop/s"),
        ("_bytes_per_s", "bytes/s"),
        ("_per_s", "1/s"),
        ("_ns", "ns"),
        ("_us", "µs"),
        ("_ms", "ms"),
        ("_s", "s"),
        ("_bytes", "bytes"),
        ("_flop", "flop"),
        ("_elements", "elements"),
        ("_percent", "%"),
        ("_hops", "hops"),
    ];
    const WORDS: [(&str, &str); 12] = [
        ("one_way", "one-way latency"),
        ("single_round_trip", "single round-trip time"),
        ("round_trip", "round-trip time"),
        ("size", "message size"),
        ("bandwidth", "bandwidth"),
        ("n", "vector length n"),
        ("grain", "grain"),
        ("time", "time"),
        ("processors", "processors P"),
        ("matrix_order", "matrix order"),
        ("nodes", "nodes"),
        ("hops", "hops"),
    ];
    // A ratio has no unit, whatever its name ends with (`slowdown_r_plus_s`).
    let ratio = ["slowdown", "ratio", "speedup", "efficiency", "_over_"]
        .iter()
        .any(|w| name.contains(w));
    let (stem, unit) = UNITS
        .iter()
        .filter(|_| !ratio)
        .find(|(s, _)| name.ends_with(s) && name.len() > s.len())
        .map_or((name, None), |(s, u)| {
            (&name[..name.len() - s.len()], Some(*u))
        });
    let words = WORDS
        .iter()
        .find(|(w, _)| *w == stem)
        .map_or_else(|| stem.replace('_', " "), |(_, t)| t.to_string());
    match unit {
        Some(u) => format!("{words} ({u})"),
        None => words,
    }
}

/// A fitted model as a function of the fit's own x, and a caveat to print under
/// the figure when it is drawn with one.
pub(crate) struct Model<'a> {
    /// y from x, in the plotted quantity's unit.
    pub(crate) f: Box<dyn Fn(f64) -> f64 + 'a>,
    /// What the reader should know about the line.
    pub(crate) note: Option<String>,
}

/// The factor from seconds to the unit of a time quantity's name, if it is one.
pub(super) fn time_scale(quantity: &str) -> Option<f64> {
    [("_ns", 1e9), ("_us", 1e6), ("_ms", 1e3), ("_s", 1.0)]
        .iter()
        .find(|(u, _)| quantity.ends_with(u))
        .map(|(_, f)| *f)
}

/// The divisor of a fitted quantity written `time_ns.min / 2` (the fit is of the
/// quantity over 2), else 1.
pub(super) fn y_divisor(y: &str) -> f64 {
    y.split_once(" / ")
        .and_then(|(_, d)| d.trim().parse::<f64>().ok())
        .filter(|d| d.is_finite() && *d > 0.0)
        .unwrap_or(1.0)
}

/// A model curve evaluated from a fit, or why it cannot be drawn. `group` is the
/// second swept variable and its value, for a fit over two (`size_bytes, hops`).
pub(crate) fn evaluate_fit<'a>(
    fit: &'a FitResult,
    group: Option<(&str, f64)>,
) -> Result<Model<'a>, String> {
    let p = |k: &str| fit.params.get(k).copied();
    // The parameter named `suffix`, else one a prefix qualifies
    // (`l2_r_inf_flop_per_s`); never the check line's (`line_t0_ns`, which
    // `hockney-sync` records beside its split fit's `t0_ns`).
    let ends = |suffix: &str| {
        p(suffix).or_else(|| {
            fit.params
                .iter()
                .find(|(k, _)| k.ends_with(suffix) && !k.starts_with("line_"))
                .map(|(_, v)| *v)
        })
    };
    let div = y_divisor(&fit.y);
    let ok = |f: Box<dyn Fn(f64) -> f64 + 'a>| Model { f, note: None };
    // A fit over two variables: the second's term added per group.
    let extra = match fit.x.split_once(", ") {
        None => 0.0,
        Some((_, second)) => match (group, p("h_ns")) {
            (Some((g, v)), Some(h)) if g == second => (v - 1.0) * h,
            _ => {
                return Err(format!(
                    "fit {} not drawn: it is over ({}) and the plot has no {} series",
                    fit.model,
                    fit.x,
                    fit.x.split_once(", ").map_or("", |x| x.1)
                ));
            }
        },
    };
    // scibench / CoMet latency line: t = t_startup + N t_per_byte.
    if let (Some(t0), Some(tb)) = (p("t_startup_ns"), p("t_per_byte_ns")) {
        return Ok(ok(Box::new(move |x| t0 + tb * x + extra)));
    }
    // A generic line: intercept* and slope* parameters.
    let find = |prefix: &str| {
        fit.params
            .iter()
            .find(|(k, _)| k.starts_with(prefix))
            .map(|(_, v)| *v)
    };
    if let (Some(a), Some(b)) = (find("intercept"), find("slope")) {
        return Ok(ok(Box::new(move |x| a + b * x)));
    }
    // Hockney: t = t0 + x / r_inf (= (x + x_1/2) / r_inf), parameters possibly
    // prefixed by a memory level (`l2_r_inf_flop_per_s`), the fitted time possibly
    // divided by the vector instructions per element (`time_ns.min / 2`).
    if let Some(r) = ends("r_inf_flop_per_s") {
        let Some(scale) = time_scale(fit_quantity(fit)) else {
            return Err(format!(
                "fit {} not drawn: the unit of {} is not a time",
                fit.model, fit.y
            ));
        };
        if r > 0.0 {
            let t0 = ends("t0_ns").map(|t| t * scale / 1e9).or_else(|| {
                ends("n_half_flop")
                    .or_else(|| ends("s_half_flop"))
                    .map(|h| h / r * scale)
            });
            return Ok(match t0 {
                Some(t0) => ok(Box::new(move |x| div * (t0 + x / r * scale))),
                None => Model {
                    f: Box::new(move |x| div * x / r * scale),
                    note: Some(format!(
                        "{}: r_inf only (no positive start-up), drawn through the origin",
                        fit.model
                    )),
                },
            });
        }
    }
    // A line of two parameters: an intercept in a time unit and a slope `_per_`.
    if fit.params.len() == 2 {
        let slope = fit.params.iter().find(|(k, _)| k.contains("_per_"));
        let icept = fit.params.iter().find(|(k, _)| {
            !k.contains("_per_") && ["_ns", "_us", "_ms"].iter().any(|u| k.contains(u))
        });
        if let (Some((_, &b)), Some((_, &a))) = (slope, icept) {
            return Ok(ok(Box::new(move |x| a + b * x)));
        }
    }
    Err(format!(
        "fit {} not drawn: the report does not know how to evaluate its parameters ({})",
        fit.model,
        fit.params.keys().cloned().collect::<Vec<_>>().join(", ")
    ))
}

/// The fitted quantity's name without the statistic (`one_way_ns.min` → `one_way_ns`,
/// `time_ns.min / 2` → `time_ns`, `time_ms (every run)` → `time_ms`).
pub(super) fn fit_quantity(fit: &FitResult) -> &str {
    fit.y.split(['.', ' ']).next().unwrap_or(&fit.y)
}

/// The x range a fit covers where it says so: a memory level's points (`l2_`
/// parameters), or `x_min_*` / `x_max_*`.
pub(super) fn fit_range(fit: &FitResult, points: &[&Point], x: &str) -> Option<(f64, f64)> {
    let lo = fit.params.iter().find(|(k, _)| k.starts_with("x_min"));
    let hi = fit.params.iter().find(|(k, _)| k.starts_with("x_max"));
    if let (Some((_, &lo)), Some((_, &hi))) = (lo, hi) {
        return Some((lo, hi));
    }
    // A range in the model's name: `16-2000 B`, `(n <= 400)`.
    let words: Vec<&str> = fit
        .model
        .split([' ', '(', ')', ',', ';'])
        .filter(|w| !w.is_empty())
        .collect();
    for w in words.windows(3) {
        if let Some((a, b)) = w[0].split_once('-')
            && matches!(w[1], "B" | "bytes")
            && let (Ok(a), Ok(b)) = (a.parse::<f64>(), b.parse::<f64>())
        {
            return Some((a, b));
        }
        if w[1] == "<="
            && let Ok(b) = w[2].parse::<f64>()
        {
            let lo = points
                .iter()
                .filter_map(|p| p.number(x))
                .fold(f64::INFINITY, f64::min);
            return lo.is_finite().then_some((lo, b));
        }
    }
    let level = fit.params.keys().find_map(|k| {
        let rest = k.strip_prefix('l')?;
        let (digits, _) = rest.split_once('_')?;
        digits.parse::<f64>().ok()
    })?;
    let xs: Vec<f64> = points
        .iter()
        .filter(|p| p.number("level") == Some(level))
        .filter_map(|p| p.number(x))
        .collect();
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo <= hi).then_some((lo, hi))
}

/// A fit's x variable at a point: a number the point carries, or the block size
/// `B = 8 (ld + 2)^2` of the matrix kernels from their local order.
pub(super) fn fit_x_at(p: &Point, fit_x: &str) -> Option<f64> {
    p.number(fit_x).or_else(|| {
        (fit_x == "block_bytes")
            .then(|| p.number("local_order"))
            .flatten()
            .map(|ld| 8.0 * (ld + 2.0) * (ld + 2.0))
    })
}

/// The points a fit is of: those with the value its model names (`at P = 4`) of
/// any grouping variable, else all.
pub(super) fn fit_subset<'p>(fit: &FitResult, points: &[&'p Point]) -> Vec<&'p Point> {
    for g in GROUP_PREFERENCE {
        let values: BTreeSet<u64> = points
            .iter()
            .filter_map(|p| p.number(g))
            .map(f64::to_bits)
            .collect();
        if values.len() < 2 {
            continue;
        }
        if let Some(v) = values
            .iter()
            .map(|b| f64::from_bits(*b))
            .find(|v| names(&fit.model, &group_text(g, *v)))
        {
            return points
                .iter()
                .copied()
                .filter(|p| p.number(g) == Some(v))
                .collect();
        }
    }
    points.to_vec()
}

/// Marks a fit's breakpoints (`breakpoint_1_bytes`, ...) when it is against the
/// plot's x.
pub(super) fn add_breakpoints(plot: &mut plot::XyPlot, f: &FitResult, same_x: bool, colour: usize) {
    if !same_x {
        return;
    }
    for (k, v) in &f.params {
        if k.starts_with("breakpoint_") && !plot.markers.iter().any(|m| m.x == *v) {
            plot.markers.push(plot::Marker {
                x: *v,
                label: format!("break {}", num(*v)),
                colour,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `hockney-sync` fit records its check line (`line_t0_ns`,
    /// `line_r_inf_flop_per_s`) beside the split fit, and the keys sort
    /// before it: the curve is the split fit's, `t = 1200 + s / 6` ns at 6
    /// Gflop/s (2200 ns at 6000 flop), not the line's `19 000 + s / 5`.
    #[test]
    fn a_sync_fit_is_drawn_from_its_split_not_its_check_line() {
        let params = [
            ("line_r_inf_flop_per_s", 5e9),
            ("line_t0_ns", 19_000.0),
            ("r_inf_flop_per_s", 6e9),
            ("t0_all_rounds_ns", 30_000.0),
            ("t0_ns", 1200.0),
        ];
        let fit = FitResult {
            model: "t = t0 + s/r_inf (eq. 10b)".into(),
            x: "grain_flop".into(),
            y: "time_ns.median".into(),
            params: params.iter().map(|&(k, v)| (k.to_string(), v)).collect(),
            std_errors: Default::default(),
            r2: 0.99,
            n_points: 13,
            flagged: false,
        };
        let m = evaluate_fit(&fit, None).unwrap();
        assert!(((m.f)(0.0) - 1200.0).abs() < 1e-9);
        assert!(((m.f)(6000.0) - 2200.0).abs() < 1e-9);
    }
}
