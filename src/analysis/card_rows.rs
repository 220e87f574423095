//! The card's rows of a kernel that recorded no `headline`: the same parameters,
//! taken from its fits and points, each row saying how its interval was computed.

use super::kernel_key;
use super::trust::{is_signed, trust};
use crate::kernels::card::CardRows;
use crate::kernels::card_rows_of;
use crate::model::stats::Summary;
use crate::platform::DistanceClass;
use crate::results::{CardRow, FitResult, KernelResult, Point, unit_of};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The asymptotic standard error of a median of normal samples, in standard
/// deviations over `sqrt(n)`: `sqrt(pi / 2)`.
const MEDIAN_SE_FACTOR: f64 = 1.253_314_137_315_500_3;

/// An estimate with its interval.
struct Est {
    value: f64,
    ci95: Option<[f64; 2]>,
    interval: String,
    flagged: bool,
    /// Measured on real processors (a point with `virtual` 0).
    real_point: bool,
}

/// Student's t quantile for a two-sided 95 % interval, `None` without a degree
/// of freedom.
pub(super) fn t975(dof: usize) -> Option<f64> {
    (dof >= 1).then(|| {
        StudentsT::new(0.0, 1.0, dof as f64)
            .expect("a positive number of degrees of freedom")
            .inverse_cdf(0.975)
    })
}

/// The degrees of freedom of a fit: points less the parameters with errors.
fn dof(fit: &FitResult) -> usize {
    fit.n_points.saturating_sub(fit.std_errors.len().max(1))
}

/// A fitted parameter with `value ± t se`.
fn fitted(fit: &FitResult, name: &str) -> Option<Est> {
    let value = *fit.params.get(name)?;
    let se = fit.std_errors.get(name).copied().filter(|s| s.is_finite());
    let t = t975(dof(fit));
    let (ci95, interval) = match (se, t) {
        (Some(se), Some(t)) if is_rate_of_slope(name) && value > 0.0 => {
            reciprocal(value, se, t, dof(fit))
        }
        (Some(se), Some(t)) => (
            Some([value - t * se, value + t * se]),
            format!("fit standard error x t({})", dof(fit)),
        ),
        _ => (None, "none: the fit gives no standard error".into()),
    };
    Some(Est {
        value,
        ci95,
        interval,
        flagged: fit.flagged,
        real_point: false,
    })
}

/// Whether a fitted parameter is the reciprocal of a line's slope: a rate
/// `r_inf = 1 / slope` (Hockney's eq. 1), whose standard error the fit gives
/// by the delta method, `se_slope r_inf^2`.
fn is_rate_of_slope(name: &str) -> bool {
    name.ends_with("r_inf_flop_per_s")
}

/// The 95 % interval of a rate `value = 1 / slope` from its slope's: the fit
/// knows the slope to `slope ± t se_slope`, and `se / value` (the rate's
/// relative error by the delta method) is `se_slope / slope`, so the rate
/// lies in `[value / (1 + t rel), value / (1 - t rel)]`, positive, and
/// wider above than below as a reciprocal is. Where the slope's interval
/// reaches zero (`t rel >= 1`) the rate has no upper bound: no interval.
fn reciprocal(value: f64, se: f64, t: f64, dof: usize) -> (Option<[f64; 2]>, String) {
    let k = t * se / value;
    if k < 1.0 {
        (
            Some([value / (1.0 + k), value / (1.0 - k)]),
            format!("reciprocal of the slope's interval (fit standard error x t({dof}))"),
        )
    } else {
        (
            None,
            format!(
                "none: the slope's interval (standard error x t({dof})) reaches zero, so the rate has no upper bound"
            ),
        )
    }
}

/// A parameter that is a product or ratio of fitted ones (`n_1/2 = t_startup /
/// t_per_byte`, `s_1/2 = t0 r_inf`): its value as the fit gives it, its relative
/// error the fitted parameters' relative errors in quadrature (their covariance
/// unknown), times `t`, scaled by `power` (1/2 for a square root), taken on
/// the log scale: `[value e^-(t rel), value e^(t rel)]`. A product or ratio
/// of positive quantities is positive, and its error is relative: on the
/// linear scale, `value (1 ± t rel)` reached below zero wherever `t rel`
/// passed 1.
fn propagated(fit: &FitResult, value: f64, parts: &[&str], power: f64) -> Est {
    let rel: Option<f64> = parts
        .iter()
        .map(|p| {
            let v = fit.params.get(*p)?;
            let se = fit.std_errors.get(*p).filter(|s| s.is_finite())?;
            (*v != 0.0).then(|| (se / v).powi(2))
        })
        .sum::<Option<f64>>()
        .map(|s| power * s.sqrt());
    let (ci95, interval) = match (rel, t975(dof(fit))) {
        (Some(rel), Some(t)) if value > 0.0 => (
            Some([value * (-t * rel).exp(), value * (t * rel).exp()]),
            format!(
                "log scale: the relative standard errors of {} in quadrature x t({})",
                parts.join(", "),
                dof(fit)
            ),
        ),
        (Some(rel), Some(t)) => {
            let half = t * rel * value.abs();
            (
                Some([value - half, value + half]),
                format!(
                    "propagated from the standard errors of {} x t({})",
                    parts.join(", "),
                    dof(fit)
                ),
            )
        }
        _ => (
            None,
            format!("none: {} have no standard errors", parts.join(", ")),
        ),
    };
    Est {
        value,
        ci95,
        interval,
        flagged: fit.flagged,
        real_point: false,
    }
}

/// The median over trials with `t(n-1) 1.2533 s / sqrt(n)`, cut to the
/// trials' range: the normal samples the standard error assumes are not
/// what a run that crossed a change of the machine's state gives (a
/// ping-pong's 8 bytes took 53 ns in two trials and about 220 in three,
/// 2-vCPU EPYC VM), where the interval reached below zero. The range is
/// itself the order statistics' interval for the median (coverage `1 -
/// 2^(1-n)`, 93.75 % at five trials, whatever the distribution).
fn over_trials(s: &Summary) -> Est {
    let n = s.count;
    let (ci95, interval) = match t975(n.saturating_sub(1)) {
        Some(t) => {
            let half = t * MEDIAN_SE_FACTOR * s.std_dev / (n as f64).sqrt();
            (
                Some([(s.median - half).max(s.min), (s.median + half).min(s.max)]),
                format!(
                    "median of {n} trials, its standard error x t({}), cut to the trials' range",
                    n - 1
                ),
            )
        }
        None => (None, "none: a single trial".into()),
    };
    Est {
        value: s.median,
        ci95,
        interval,
        flagged: false,
        real_point: false,
    }
}

/// Builds rows for one kernel.
struct Rows<'a> {
    k: &'a KernelResult,
    key: String,
    out: Vec<CardRow>,
}

impl<'a> Rows<'a> {
    fn new(k: &'a KernelResult) -> Rows<'a> {
        Rows {
            k,
            key: kernel_key(k),
            out: Vec::new(),
        }
    }

    fn push(&mut self, line: &str, name: &str, of: Option<String>, est: Option<Est>) {
        let Some(mut e) = est.filter(|e| e.value.is_finite()) else {
            return;
        };
        // JSON has no infinity or NaN: an interval that is not finite is none.
        e.ci95 = e.ci95.filter(|c| c.iter().all(|x| x.is_finite()));
        self.out.push(CardRow {
            method: self.k.method.clone(),
            line: line.into(),
            kernel: self.key.clone(),
            name: name.into(),
            of,
            value: e.value,
            unit: unit_of(name).into(),
            ci95: e.ci95,
            interval: e.interval,
            signed: is_signed(name),
            trust: trust(self.k, e.flagged, e.value, e.ci95, e.real_point),
            repetitions: None,
        });
    }

    fn fit(&self, model_starts: &str) -> Option<&'a FitResult> {
        self.k
            .fits
            .iter()
            .find(|f| f.model.starts_with(model_starts))
    }

    fn params(&mut self, line: &str, model_starts: &str, names: &[&str], of: Option<&str>) {
        if let Some(fit) = self.fit(model_starts) {
            for n in names {
                self.push(line, n, of.map(str::to_string), fitted(fit, n));
            }
        }
    }
}

/// The point whose swept `name` equals `value`.
fn point_at<'a>(k: &'a KernelResult, name: &str, value: f64) -> Option<&'a Point> {
    k.points.iter().find(|p| p.number(name) == Some(value))
}

/// The card rows derived from a kernel's fits and points, by the presenter
/// its registry entry names ([`card_rows_of`]); none for a result the card
/// does not show.
pub(super) fn derived_rows(k: &KernelResult) -> Vec<CardRow> {
    let mut r = Rows::new(k);
    let Some(rows) = card_rows_of(&k.kernel, k.transport.as_deref()) else {
        return r.out;
    };
    match rows {
        CardRows::Baseline { what, ratios } => baseline(&mut r, what, ratios),
        CardRows::TransportLine { eight, line } => transport_line(&mut r, eight, line),
        CardRows::CoreToCore => c2c(&mut r),
        CardRows::FitParams { line, model, names } => r.params(line, model, names, None),
        CardRows::VectorLevels => triad(&mut r),
        CardRows::SyncMethods => sync_method(&mut r),
        CardRows::MessageCosts => message_costs(&mut r),
        CardRows::Barrier => barrier(&mut r),
        CardRows::Speedup => speedup(&mut r),
        // Nothing derived: the card shows the recorded headline.
        CardRows::Headline => {}
    }
    r.out
}

/// A synchronisation method's `t = t0 + s/r_inf`: `t0`, `s_1/2` (its
/// interval propagated from both), `r_inf`, and what a sleep adds.
fn sync_method(r: &mut Rows<'_>) {
    if let Some(fit) = r.fit("t = t0 + s/r_inf") {
        let line = "t0, s_1/2 and r_inf";
        r.push(line, "t0_ns", None, fitted(fit, "t0_ns"));
        let est = fit
            .params
            .get("s_half_flop")
            .map(|&v| propagated(fit, v, &["t0_ns", "r_inf_flop_per_s"], 1.0));
        r.push(line, "s_half_flop", None, est);
        r.push(
            line,
            "r_inf_flop_per_s",
            None,
            fitted(fit, "r_inf_flop_per_s"),
        );
        // What a sleep adds, where t0 is the awake rounds'.
        r.push(line, "t_wake_ns", None, fitted(fit, "t_wake_ns"));
    }
}

/// Krumme & Greenfield's six lines `X = X0 + X1 n`, integer payloads; a line
/// the kernel says is not resolved (its model ends `; not resolved: why`)
/// gives rows not resolved for that reason.
fn message_costs(r: &mut Rows<'_>) {
    for letter in ["F", "S", "R", "A", "U", "E"] {
        let l = letter.to_lowercase();
        let model = format!("{letter} = {letter}0 + {letter}1 n (integer Q, 16-2000 B");
        let first = r.out.len();
        r.params(
            &format!("{letter} = {letter}0 + {letter}1 n"),
            &model,
            &[&format!("int_{l}0_ns"), &format!("int_{l}1_ns_per_byte")],
            None,
        );
        let why = r
            .fit(&model)
            .and_then(|f| f.model.split_once("; not resolved: "))
            .map(|(_, why)| why.to_string());
        if let Some(why) = why {
            for row in &mut r.out[first..] {
                row.trust = crate::results::Trust::Unresolved;
                row.interval = format!("not resolved: {why}");
            }
        }
    }
}

/// A barrier's time at the largest team of real processors: virtual ones
/// time the scheduler.
fn barrier(r: &mut Rows<'_>) {
    let k = r.k;
    let p = k
        .points
        .iter()
        .filter(|p| p.number("virtual") != Some(1.0))
        .max_by(|a, b| {
            let n = |p: &Point| p.number("processors").unwrap_or(0.0);
            n(a).total_cmp(&n(b))
        });
    if let Some(p) = p {
        let of = p.number("processors").map(|n| format!("P = {n}"));
        let est = p.stats("barrier_ns").map(|s| Est {
            real_point: p.number("virtual") == Some(0.0),
            ..over_trials(s)
        });
        r.push("barrier time", "barrier_ns", of, est);
    }
}

/// A transport's 8-byte time (the median over trials) and its line `t_startup + N
/// t_per_byte` with `n_1/2 = t_startup / t_per_byte`: ping-pong's half round trip,
/// or one-way streaming's time per message. A negative `n_1/2` (a line through a
/// negative start-up) is left out.
fn transport_line(r: &mut Rows<'_>, eight: &str, line: &str) {
    let p8 = point_at(r.k, "size_bytes", 8.0);
    let est = p8.and_then(|p| p.stats("one_way_ns")).map(over_trials);
    r.push(eight, "one_way_ns", None, est);
    if let Some(fit) = r.fit("t_startup + N t_per_byte") {
        for n in ["t_startup_ns", "t_per_byte_ns"] {
            r.push(line, n, None, fitted(fit, n));
        }
        // A line through a negative start-up (streaming overlaps messages) has no
        // half-performance length.
        let est = fit
            .params
            .get("n_half_bytes")
            .filter(|&&v| v > 0.0)
            .map(|&v| propagated(fit, v, &["t_startup_ns", "t_per_byte_ns"], 1.0));
        r.push(line, "n_half_bytes", None, est);
    }
}

/// `pingpong/atomic-flags` (two bare flags) or `pingpong/mpi-raw` (the plain MPI
/// ping-pong): the baseline, `what`, and the transports' ratios to it, `ratios`.
fn baseline(r: &mut Rows<'_>, what: &str, ratios: &[&str]) {
    let Some(p) = r.k.points.first() else {
        return;
    };
    let est = p.stats("one_way_ns").map(over_trials);
    r.push("8 B one-way latency", "one_way_ns", Some(what.into()), est);
    for &name in ratios {
        let est = p.number(name).map(|value| {
            let range = p
                .number(&format!("{name}_min"))
                .zip(p.number(&format!("{name}_max")));
            Est {
                value,
                ci95: range.map(|(lo, hi)| [lo, hi]),
                interval: "range of the trials' ratios".into(),
                flagged: false,
                real_point: false,
            }
        });
        r.push(&format!("8 B one-way against {what}"), name, None, est);
    }
}

/// `c2c`: per distance class, the smallest, median and largest pair (each pair's
/// median over trials); a class of one pair, its median alone.
fn c2c(r: &mut Rows<'_>) {
    for (i, class) in DistanceClass::ALL.iter().enumerate() {
        let mut pairs: Vec<&Summary> =
            r.k.points
                .iter()
                .filter(|p| p.number("distance_class_index") == Some(i as f64))
                .filter_map(|p| p.stats("one_way_ns"))
                .collect();
        if pairs.is_empty() {
            continue;
        }
        pairs.sort_by(|a, b| a.median.total_cmp(&b.median));
        let line = format!("core to core, {} pair(s)", pairs.len());
        let of = Some(class.to_string());
        let picks = [
            ("one_way_ns_min", pairs[0]),
            ("one_way_ns_median", pairs[pairs.len() / 2]),
            ("one_way_ns_max", pairs[pairs.len() - 1]),
        ];
        // One pair: its smallest, median and largest are one measurement,
        // given once.
        let picks = match pairs.len() {
            1 => &picks[1..2],
            _ => &picks[..],
        };
        for &(name, s) in picks {
            r.push(&line, name, of.clone(), Some(over_trials(s)));
        }
    }
}

/// `hockney-vector/triad-f64`: r_inf and n_1/2 per memory level.
fn triad(r: &mut Rows<'_>) {
    const PREFIX: &str = "t = (n + n_half)/r_inf on ";
    let fits: Vec<&FitResult> =
        r.k.fits
            .iter()
            .filter(|f| f.model.starts_with(PREFIX) && !f.model.contains("Fig. 1"))
            .collect();
    for fit in fits {
        let level = fit.model[PREFIX.len()..].to_string();
        let l = level.to_lowercase();
        let (rate, half, t0) = (
            format!("{l}_r_inf_flop_per_s"),
            format!("{l}_n_half_flop"),
            format!("{l}_t0_ns"),
        );
        let line = "triad r_inf and n_1/2";
        r.push(line, &rate, Some(level.clone()), fitted(fit, &rate));
        let est = fit
            .params
            .get(&half)
            .map(|&v| propagated(fit, v, &[&t0, &rate], 1.0));
        r.push(line, &half, Some(level), est);
    }
}

/// `speedup`: T_ML's components, eq. 13's coefficients and the N that minimises
/// eq. 13's time for the largest uniprocessor time measured.
fn speedup(r: &mut Rows<'_>) {
    r.params(
        "T_ML = t_l + L H t_c + I t_i",
        "eqs. 7-9",
        &["tl_ms", "tc_ms_per_byte", "ti_ms"],
        None,
    );
    let Some(fit) = r.fit("eq. 13: T = a + b U/N + c N") else {
        return;
    };
    let line = "eq. 13: T = a + b U/N + c N";
    for n in ["a_ms", "b", "c_ms_per_node"] {
        r.push(line, n, None, fitted(fit, n));
    }
    let u =
        r.k.points
            .iter()
            .filter_map(|p| p.number("uniprocessor_ms"))
            .fold(f64::NAN, f64::max);
    let (b, c) = (fit.params.get("b"), fit.params.get("c_ms_per_node"));
    if let (Some(&b), Some(&c)) = (b, c)
        && u.is_finite()
        && b > 0.0
        && c > 0.0
    {
        // dT/dN = -b U / N^2 + c = 0.
        let n = (b * u / c).sqrt();
        let est = propagated(fit, n, &["b", "c_ms_per_node"], 0.5);
        r.push(
            "optimal N (eq. 13)",
            "optimal_nodes",
            Some(format!("U = {} ms", crate::results::num(u))),
            Some(est),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::stats::summarize;

    /// Five trials of a ping-pong's 8 bytes that crossed a change of state
    /// (53 and 54 ns, then about 220): median 220, s = 91.75, so the
    /// standard error's interval, 220 ± 2.776 x 1.2533 x 91.75 / sqrt(5) =
    /// 220 ± 142.8, would reach 77.2 to 362.8, beyond the slowest trial:
    /// [77.2, 222]. Fifteen trials of 100 to 114 ns, one each (s = 4.472,
    /// t(14) = 2.1448), keep it: 107 ± 3.104, inside [100, 114].
    #[test]
    fn the_median_over_trials_stays_within_their_range() {
        let mixed = over_trials(&summarize(&[53.0, 54.0, 220.0, 221.0, 222.0]).unwrap());
        let [lo, hi] = mixed.ci95.unwrap();
        assert_eq!(mixed.value, 220.0);
        assert!((lo - 77.22).abs() < 0.01 && hi == 222.0, "{lo} {hi}");
        assert!(mixed.interval.contains("cut to the trials' range"));
        let even: Vec<f64> = (100..115).map(f64::from).collect();
        let [lo, hi] = over_trials(&summarize(&even).unwrap()).ci95.unwrap();
        assert!(
            (lo - 103.896).abs() < 0.01 && (hi - 110.104).abs() < 0.01,
            "{lo} {hi}"
        );
    }

    /// A rate of 2 flop/ns from a slope of 0.5 ns/flop known to ±20 % at
    /// t = 2 (`se / value` = 0.1): the slope lies in [0.4, 0.6], so the rate
    /// in [1/0.6, 1/0.4] = [1.667, 2.5], as `[2/1.2, 2/0.8]`. At ±100 % the
    /// slope's interval reaches zero and the rate has none. A product with
    /// relative error 0.5 at t = 2 lies in [v/e, v e].
    #[test]
    fn a_rate_takes_its_slopes_interval_and_a_product_the_log_scale() {
        let (ci, how) = reciprocal(2.0, 0.2, 2.0, 5);
        let [lo, hi] = ci.unwrap();
        assert!((lo - 2.0 / 1.2).abs() < 1e-12 && (hi - 2.5).abs() < 1e-12);
        assert!(how.contains("reciprocal"), "{how}");
        assert_eq!(reciprocal(2.0, 1.0, 2.0, 5).0, None);
        let mut fit = hockney_fit(10.0, 0.5, 0.5, 0.1, 8);
        fit.params.insert("s_half_flop".into(), 20.0);
        fit.std_errors
            .insert("t0_ns".into(), 5.0 / 2.0 / 2.0_f64.sqrt() / 0.5);
        let t = t975(6).unwrap();
        let rel_t0 = fit.std_errors["t0_ns"] / 10.0;
        let rel_r = fit.std_errors["r_inf_flop_per_s"] / fit.params["r_inf_flop_per_s"];
        let rel = (rel_t0.powi(2) + rel_r.powi(2)).sqrt();
        let e = propagated(&fit, 20.0, &["t0_ns", "r_inf_flop_per_s"], 1.0);
        let [lo, hi] = e.ci95.unwrap();
        assert!((lo - 20.0 * (-t * rel).exp()).abs() < 1e-9, "{lo}");
        assert!((hi - 20.0 * (t * rel).exp()).abs() < 1e-9, "{hi}");
        assert!(e.interval.starts_with("log scale"), "{}", e.interval);
    }

    /// A Hockney fit as the kernels record it: `t = t0 + slope n` with the
    /// standard errors of the intercept and the slope, `r_inf` = 1 / slope
    /// in flop/s with the delta method's `se_slope r_inf^2`.
    fn hockney_fit(t0: f64, slope: f64, se_t0: f64, se_slope: f64, n: usize) -> FitResult {
        let r = 1.0 / slope;
        let mut params = std::collections::BTreeMap::new();
        let mut std_errors = std::collections::BTreeMap::new();
        params.insert("r_inf_flop_per_s".to_string(), r * 1e9);
        std_errors.insert("r_inf_flop_per_s".to_string(), se_slope * r * r * 1e9);
        params.insert("t0_ns".to_string(), t0);
        std_errors.insert("t0_ns".to_string(), se_t0);
        FitResult {
            model: "t = (n + n_half)/r_inf on L3".into(),
            x: "n_elements".into(),
            y: "time_ns.min / 2".into(),
            params,
            std_errors,
            r2: 0.9,
            n_points: n,
            flagged: false,
        }
    }

    /// A decomposition whose lines but E's say they are not resolved (the
    /// model's `; not resolved: why`): R's rows are not resolved, with that
    /// reason, which `resolve` keeps; E's stand, with their interval.
    #[test]
    fn a_line_not_resolved_gives_rows_not_resolved_for_its_reason() {
        let line = |letter: &str, why: &str| {
            let l = letter.to_lowercase();
            let (p0, p1) = (format!("int_{l}0_ns"), format!("int_{l}1_ns_per_byte"));
            FitResult {
                model: format!("{letter} = {letter}0 + {letter}1 n (integer Q, 16-2000 B){why}"),
                x: "size_bytes".into(),
                y: format!("{l}_ns (every repetition)"),
                params: [(p0.clone(), 200.0), (p1.clone(), 0.5)].into(),
                std_errors: [(p0, 10.0), (p1, 0.01)].into(),
                r2: 0.99,
                n_points: 6,
                flagged: !why.is_empty(),
            }
        };
        let k = KernelResult::new(
            "decomposition",
            "krumme-greenfield",
            crate::control::Placement::Hosted,
            vec![0, 1],
        )
        .with_transport(Some("mpi"))
        .with_fits(vec![line("E", ""), line("R", "; not resolved: it yields")]);
        let mut rows = derived_rows(&k);
        rows.iter_mut().for_each(crate::analysis::resolve);
        let of = |name: &str| rows.iter().find(|r| r.name == name).unwrap();
        for name in ["int_r0_ns", "int_r1_ns_per_byte"] {
            assert_eq!(of(name).trust, crate::results::Trust::Unresolved);
            assert_eq!(of(name).interval, "not resolved: it yields");
        }
        let e0 = of("int_e0_ns");
        assert_ne!(e0.trust, crate::results::Trust::Unresolved);
        // 200 +- t(4) 10 = 200 +- 27.76.
        let [lo, hi] = e0.ci95.unwrap();
        assert!(
            (lo - 172.24).abs() < 0.01 && (hi - 227.76).abs() < 0.01,
            "{lo} {hi}"
        );
    }

    proptest::proptest! {
        /// Synthetic samples of a vector operation's time, `t = (n + n_1/2)
        /// / r_inf` with up to -90 % .. +300 % noise per point, fitted as
        /// the kernel fits a level (a line, `r_inf` its slope's reciprocal,
        /// `n_1/2` their ratio): every card row of a positive quantity has
        /// an interval above zero, or none and says it is not resolved.
        #[test]
        fn a_positive_quantitys_interval_never_reaches_zero(
            r_inf in 0.1f64..50.0,
            n_half in 1.0f64..500.0,
            noise in proptest::collection::vec(-0.9f64..3.0, 3..12),
        ) {
            let x: Vec<f64> = (0..noise.len()).map(|i| 64.0 * (i + 1) as f64).collect();
            let y: Vec<f64> = x
                .iter()
                .zip(&noise)
                .map(|(n, e)| (n + n_half) / r_inf * (1.0 + e))
                .collect();
            let line = crate::model::fit::fit_line(&x, &y).unwrap();
            proptest::prop_assume!(line.slope > 0.0);
            let mut fit = hockney_fit(
                line.intercept,
                line.slope,
                line.se_intercept,
                line.se_slope,
                line.n_points,
            );
            let rename = |m: std::collections::BTreeMap<String, f64>| {
                m.into_iter().map(|(k, v)| (format!("l3_{k}"), v)).collect()
            };
            fit.params = rename(fit.params);
            fit.std_errors = rename(fit.std_errors);
            if line.intercept > 0.0 {
                fit.params
                    .insert("l3_n_half_flop".into(), line.intercept / line.slope);
            }
            let k = KernelResult::new(
                "hockney-vector",
                "hockney",
                crate::control::Placement::Pinned,
                vec![0],
            )
            .with_transport(Some("triad-f64"))
            .with_fits(vec![fit]);
            let mut rows = derived_rows(&k);
            proptest::prop_assert!(!rows.is_empty());
            for row in &mut rows {
                crate::analysis::resolve(row);
                if !row.signed {
                    match row.ci95 {
                        Some([lo, hi]) => proptest::prop_assert!(
                            lo > 0.0 && lo <= row.value && row.value <= hi,
                            "{row:?}"
                        ),
                        None => proptest::prop_assert!(
                            row.trust == crate::results::Trust::Unresolved
                                && row.interval.starts_with("not resolved"),
                            "{row:?}"
                        ),
                    }
                }
            }
        }
    }
}
