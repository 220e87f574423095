//! Least-squares straight line `y = intercept + slope * x`, ordinary or relative to `y`.
//!
//! Every timing model in halfperf reduces to a straight line: Hockney's
//! `t = t0 + n / r_inf` ("(r_inf, n_1/2, s_1/2) measurements on the 2-CPU Cray X-MP",
//! section 3.1: "fitting the best straight line through the values of TMIN versus N"),
//! the CoMet echo model `t(N) = t_startup + N t_per_byte` (CoMet, section 4.1) and
//! Krumme & Greenfield's `X0 + X1 n` (NCUBE communication timing, section 3.5 and
//! Appendix B, routine `fit`). This module fits such a line and reports how well it fits.
//!
//! With `n` points, means `x̄`, `ȳ` and
//! `Sxx = Σ(x−x̄)²`, `Sxy = Σ(x−x̄)(y−ȳ)`, `SS_tot = Σ(y−ȳ)²`:
//!
//! * `slope = Sxy / Sxx`, `intercept = ȳ − slope·x̄` (normal equations);
//! * residual `r_i = y_i − (intercept + slope·x_i)` (observed minus predicted),
//!   `SS_res = Σ r_i²`;
//! * `R² = 1 − SS_res / SS_tot` (coefficient of determination about the mean of `y`).
//!   When `SS_tot = 0` (all `y` equal) the line passes through every point and `R² = 1`.
//!   Rounding can push the value a hair outside `[0, 1]`; it is clamped to that range;
//! * with `s² = SS_res / (n − 2)`: `se_slope = sqrt(s² / Sxx)` and
//!   `se_intercept = sqrt(s² · (1/n + x̄² / Sxx))`. With exactly two points the line
//!   is exact and there are no degrees of freedom left; the standard errors are then
//!   reported as `0.0` (not NaN, which JSON cannot carry).
//!
//! [`fit_line_relative`] weighs each point by `w_i = 1 / y_i²`, so that it
//! fits the residuals relative to `y`: the sums become `W = Σw`, `x̄ = Σw x / W`,
//! `Sxx = Σw(x−x̄)²`, `Sxy = Σw(x−x̄)(y−ȳ)`, `SS_tot = Σw(y−ȳ)²`, `SS_res =
//! Σw r²`, and `se_intercept = sqrt(s² · (1/W + x̄² / Sxx))` (with `w = 1` these
//! are the formulas above). A ping-pong's times from 1 B to 64 KiB spread by a
//! few per cent of themselves at every size (3 ns at 8 B, 200 to 700 ns at 64
//! KiB, 2-vCPU EPYC VM): by ordinary least squares the largest sizes' scatter
//! alone decides the intercept, which then moved 52 to 108 ns between
//! repetitions whose 1 to 8 B points all read 53 to 60.
//!
//! The units of `intercept` are those of `y`; the units of `slope` are those of `y`
//! per unit of `x`. The sums are taken about the first point to keep rounding small
//! when `x` or `y` carry a large offset (for example times in nanoseconds since boot).
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A least-squares straight line `y = intercept + slope * x` with its goodness of fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineFit {
    /// Value of the line at `x = 0`, in units of `y`.
    pub intercept: f64,
    /// Change of `y` per unit of `x`.
    pub slope: f64,
    /// Coefficient of determination `1 − SS_res / SS_tot`, in `[0, 1]`.
    pub r2: f64,
    /// Standard error of `intercept` (`0.0` when fitted to exactly two points).
    pub se_intercept: f64,
    /// Standard error of `slope` (`0.0` when fitted to exactly two points).
    pub se_slope: f64,
    /// Number of points fitted.
    pub n_points: usize,
    /// `y_i − predict(x_i)` for each point, in input order.
    pub residuals: Vec<f64>,
}

impl LineFit {
    /// The line's value `intercept + slope * x`.
    pub fn predict(&self, x: f64) -> f64 {
        self.intercept + self.slope * x
    }
}

/// Why a straight line could not be fitted.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FitError {
    /// Fewer points than a line needs.
    #[error("a straight line needs at least {needed} points but got {got}: measure more sizes")]
    TooFewPoints {
        /// Minimum number of points.
        needed: usize,
        /// Number of points given.
        got: usize,
    },
    /// `x` and `y` differ in length.
    #[error("x has {x} values but y has {y}: pass one y per x")]
    LengthMismatch {
        /// Length of `x`.
        x: usize,
        /// Length of `y`.
        y: usize,
    },
    /// A coordinate is NaN or infinite.
    #[error("point {index} has a NaN or infinite coordinate: drop or re-measure it")]
    NonFinite {
        /// Index of the first offending point.
        index: usize,
    },
    /// A relative fit's `y` is zero or negative.
    #[error(
        "point {index} has a time of zero or less, which a fit relative to the time cannot weigh: re-measure it"
    )]
    NonPositive {
        /// Index of the first offending point.
        index: usize,
    },
    /// All `x` are equal, so the slope is undefined.
    #[error(
        "all x values are equal, so no slope can be fitted: measure at least two different sizes"
    )]
    ConstantX,
}

/// `R² = 1 − SS_res / SS_tot` of any model whose residual sum of squares on the
/// points `y` is `ss_res`; 1 when every `y` is equal. Not clamped: a model worse
/// than the mean of `y` has a negative R².
pub fn r_squared(y: &[f64], ss_res: f64) -> f64 {
    let mean = y.iter().sum::<f64>() / y.len() as f64;
    let ss_tot: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
    if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        1.0
    }
}

/// Fits `y = intercept + slope * x` by ordinary least squares (formulas in the module doc).
///
/// Errors: different lengths, fewer than 2 points, a NaN or infinite value, or all `x` equal.
pub fn fit_line(x: &[f64], y: &[f64]) -> Result<LineFit, FitError> {
    fit_weighted(x, y, |_| 1.0)
}

/// Fits `y = intercept + slope * x` by least squares on the residuals relative to
/// `y` (weights `1 / y²`, formulas in the module doc): the fit for times whose
/// spread grows with the time itself, as a message's does from 1 B to 64 KiB.
/// `r2` and the standard errors are the weighted ones.
///
/// Errors: those of [`fit_line`], and [`FitError::NonPositive`] for a `y` that
/// is not above zero.
pub fn fit_line_relative(x: &[f64], y: &[f64]) -> Result<LineFit, FitError> {
    if let Some(index) = y.iter().position(|&v| v <= 0.0) {
        return Err(FitError::NonPositive { index });
    }
    fit_weighted(x, y, |y| 1.0 / (y * y))
}

/// The weighted least-squares line, each point's weight `weight(y_i)`.
fn fit_weighted(x: &[f64], y: &[f64], weight: impl Fn(f64) -> f64) -> Result<LineFit, FitError> {
    if x.len() != y.len() {
        return Err(FitError::LengthMismatch {
            x: x.len(),
            y: y.len(),
        });
    }
    let n = x.len();
    if n < 2 {
        return Err(FitError::TooFewPoints { needed: 2, got: n });
    }
    if let Some(index) = (0..n).find(|&i| !x[i].is_finite() || !y[i].is_finite()) {
        return Err(FitError::NonFinite { index });
    }
    let w: Vec<f64> = y.iter().map(|&v| weight(v)).collect();
    let total: f64 = w.iter().sum();
    // Shift the origin to the first point: exact for constant data, smaller rounding.
    let (x0, y0) = (x[0], y[0]);
    let count = n as f64;
    let mean =
        |v: &[f64], v0: f64| v.iter().zip(&w).map(|(v, w)| w * (v - v0)).sum::<f64>() / total;
    let (mean_dx, mean_dy) = (mean(x, x0), mean(y, y0));
    let (mut sxx, mut sxy, mut ss_tot) = (0.0, 0.0, 0.0);
    for ((xi, yi), wi) in x.iter().zip(y).zip(&w) {
        let (dx, dy) = (xi - x0 - mean_dx, yi - y0 - mean_dy);
        sxx += wi * dx * dx;
        sxy += wi * dx * dy;
        ss_tot += wi * dy * dy;
    }
    if sxx == 0.0 {
        return Err(FitError::ConstantX);
    }
    let slope = sxy / sxx;
    let residuals: Vec<f64> = x
        .iter()
        .zip(y)
        .map(|(xi, yi)| (yi - y0 - mean_dy) - slope * (xi - x0 - mean_dx))
        .collect();
    let ss_res: f64 = residuals.iter().zip(&w).map(|(r, w)| w * r * r).sum();
    let r2 = if ss_tot == 0.0 {
        1.0
    } else {
        (1.0 - ss_res / ss_tot).clamp(0.0, 1.0)
    };
    let mean_x = x0 + mean_dx;
    let (se_intercept, se_slope) = if n == 2 {
        (0.0, 0.0)
    } else {
        let s2 = ss_res / (count - 2.0);
        (
            (s2 * (1.0 / total + mean_x * mean_x / sxx)).sqrt(),
            (s2 / sxx).sqrt(),
        )
    };
    Ok(LineFit {
        intercept: y0 + mean_dy - slope * mean_x,
        slope,
        r2,
        se_intercept,
        se_slope,
        n_points: n,
        residuals,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// (0, 1), (1, 2), (2, 4) weighed by 1/y²: W = 1 + 1/4 + 1/16 = 21/16,
    /// x̄ = (1/4 + 2/16) / W = 2/7, ȳ = (1 + 2/4 + 4/16) / W = 4/3, Sxx =
    /// 11/28, Sxy = 1/2: slope 14/11, intercept 4/3 - (14/11)(2/7) = 32/33;
    /// SS_res = 1/33 over SS_tot = 22/33 gives R² = 21/22; with s² = 1/33,
    /// se_slope = sqrt(28/363) and se_intercept = sqrt(32/1089). Ordinary
    /// least squares gives slope 3/2 and intercept 5/6 on the same points.
    #[test]
    fn relative_fit_by_hand() {
        let (x, y) = ([0.0, 1.0, 2.0], [1.0, 2.0, 4.0]);
        let f = fit_line_relative(&x, &y).unwrap();
        assert!(close(f.slope, 14.0 / 11.0, 1e-12), "{}", f.slope);
        assert!(close(f.intercept, 32.0 / 33.0, 1e-12), "{}", f.intercept);
        assert!(close(f.r2, 21.0 / 22.0, 1e-12), "{}", f.r2);
        assert!(close(f.se_slope, (28.0f64 / 363.0).sqrt(), 1e-12));
        assert!(close(f.se_intercept, (32.0f64 / 1089.0).sqrt(), 1e-12));
        let o = fit_line(&x, &y).unwrap();
        assert!(close(o.slope, 1.5, 1e-12) && close(o.intercept, 5.0 / 6.0, 1e-12));
        assert!(matches!(
            fit_line_relative(&x, &[1.0, 0.0, 2.0]),
            Err(FitError::NonPositive { index: 1 })
        ));
    }

    /// A ping-pong on `t = 60 + 0.15 n` ns from 1 B to 64 KiB whose times
    /// each read 3 % high or low (alternately, so that no size is spared):
    /// relative to the time, the intercept is 59.99 ns and the slope 0.1500;
    /// by ordinary least squares the largest sizes' 300 ns of scatter take
    /// the intercept to 48.8 ns.
    #[test]
    fn relative_fit_keeps_the_start_up_of_times_that_spread_in_proportion() {
        let x: Vec<f64> = (0..17).map(|k| f64::from(1u32 << k)).collect();
        let y: Vec<f64> = x
            .iter()
            .enumerate()
            .map(|(i, n)| (60.0 + 0.15 * n) * if i % 2 == 0 { 1.03 } else { 0.97 })
            .collect();
        let rel = fit_line_relative(&x, &y).unwrap();
        let ols = fit_line(&x, &y).unwrap();
        assert!((rel.intercept - 60.0).abs() < 0.05, "{}", rel.intercept);
        assert!((ols.intercept - 48.77).abs() < 0.05, "{}", ols.intercept);
        assert!((rel.slope / 0.15 - 1.0).abs() < 1e-3, "{}", rel.slope);
    }

    /// Hand computation for x = 1..5, y = 2, 4, 5, 4, 5:
    /// x̄ = 3, ȳ = 4, Sxx = 4+1+0+1+4 = 10,
    /// Sxy = (−2)(−2) + (−1)(0) + 0·1 + 1·0 + 2·1 = 6, so slope = 0.6,
    /// intercept = 4 − 0.6·3 = 2.2.
    /// Predictions 2.8, 3.4, 4.0, 4.6, 5.2; residuals −0.8, 0.6, 1.0, −0.6, −0.2;
    /// SS_res = 0.64+0.36+1+0.36+0.04 = 2.4; SS_tot = 4+0+1+0+1 = 6; R² = 1 − 2.4/6 = 0.6.
    /// s² = 2.4/3 = 0.8; se_slope = sqrt(0.8/10) = sqrt(0.08) = 0.282842712…;
    /// se_intercept = sqrt(0.8·(1/5 + 9/10)) = sqrt(0.88) = 0.938083151….
    #[test]
    fn hand_computed_five_points() {
        let fit = fit_line(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 4.0, 5.0, 4.0, 5.0]).unwrap();
        assert!(close(fit.slope, 0.6, 1e-12));
        assert!(close(fit.intercept, 2.2, 1e-12));
        assert!(close(fit.r2, 0.6, 1e-12));
        assert!(close(fit.se_slope, 0.08f64.sqrt(), 1e-12));
        assert!(close(fit.se_intercept, 0.88f64.sqrt(), 1e-12));
        assert_eq!(fit.n_points, 5);
        for (r, want) in fit.residuals.iter().zip([-0.8, 0.6, 1.0, -0.6, -0.2]) {
            assert!(close(*r, want, 1e-12));
        }
        assert!(close(fit.predict(10.0), 8.2, 1e-12));
    }

    /// R² is taken about the mean of y: a line far above the origin that fits
    /// badly must not score well. Hand computation for x = 0, 1, 2, 3 and
    /// y = 1000, 1003, 1000, 1003: x̄ = 1.5, ȳ = 1001.5, Sxx = 5,
    /// Sxy = (−1.5)(−1.5) + (−0.5)(1.5) + (0.5)(−1.5) + (1.5)(1.5) = 3, slope = 0.6,
    /// SS_tot = 4·2.25 = 9, SS_res = SS_tot − Sxy²/Sxx = 9 − 1.8 = 7.2, R² = 0.2.
    #[test]
    fn r2_is_about_the_mean_of_y() {
        let fit = fit_line(&[0.0, 1.0, 2.0, 3.0], &[1000.0, 1003.0, 1000.0, 1003.0]).unwrap();
        assert!(close(fit.slope, 0.6, 1e-12));
        assert!(close(fit.intercept, 1000.6, 1e-9));
        assert!(close(fit.r2, 0.2, 1e-12));
    }

    #[test]
    fn two_points_give_zero_standard_errors_that_serialize() {
        let fit = fit_line(&[0.0, 400.0], &[45.0, 48.2]).unwrap();
        assert!(close(fit.slope, 0.008, 1e-15));
        assert_eq!((fit.se_intercept, fit.se_slope, fit.r2), (0.0, 0.0, 1.0));
        let json = serde_json::to_string(&fit).unwrap();
        let back: LineFit = serde_json::from_str(&json).unwrap();
        assert_eq!(back, fit);
    }

    #[test]
    fn constant_y_has_r2_one_and_zero_slope() {
        let fit = fit_line(&[1.0, 2.0, 3.0], &[0.1, 0.1, 0.1]).unwrap();
        assert_eq!((fit.slope, fit.intercept, fit.r2), (0.0, 0.1, 1.0));
        assert_eq!(fit.residuals, vec![0.0; 3]);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert_eq!(
            fit_line(&[1.0], &[1.0, 2.0]),
            Err(FitError::LengthMismatch { x: 1, y: 2 })
        );
        assert_eq!(
            fit_line(&[1.0], &[1.0]),
            Err(FitError::TooFewPoints { needed: 2, got: 1 })
        );
        assert_eq!(
            fit_line(&[], &[]),
            Err(FitError::TooFewPoints { needed: 2, got: 0 })
        );
        assert_eq!(
            fit_line(&[1.0, 2.0, 3.0], &[1.0, f64::NAN, 3.0]),
            Err(FitError::NonFinite { index: 1 })
        );
        assert_eq!(
            fit_line(&[1.0, 2.0, f64::INFINITY], &[1.0, 2.0, 3.0]),
            Err(FitError::NonFinite { index: 2 })
        );
        assert_eq!(
            fit_line(&[2.0, 2.0, 2.0], &[1.0, 2.0, 3.0]),
            Err(FitError::ConstantX)
        );
    }

    proptest! {
        #[test]
        fn exact_lines_are_recovered(
            intercept in -1e6f64..1e6,
            slope in -1e3f64..1e3,
            xs in prop::collection::vec(0u32..100_000, 3..40),
        ) {
            let mut x: Vec<f64> = xs.iter().map(|&v| f64::from(v)).collect();
            x.push(x[0] + 1.0); // guarantees two distinct x
            let y: Vec<f64> = x.iter().map(|&v| intercept + slope * v).collect();
            let fit = fit_line(&x, &y).unwrap();
            let scale = intercept.abs() + slope.abs() * 1e5 + 1.0;
            prop_assert!(close(fit.slope, slope, 1e-9 * (slope.abs() + 1.0)));
            prop_assert!(close(fit.intercept, intercept, 1e-9 * scale));
            prop_assert!(fit.se_slope <= 1e-9 * (slope.abs() + 1.0));
            prop_assert!(fit.residuals.iter().all(|r| r.abs() <= 1e-9 * scale));
            if slope.abs() > 1e-3 {
                prop_assert!(fit.r2 > 1.0 - 1e-9);
            }
        }

        /// The fit agrees with a plain two-pass fit written here from the
        /// module's formulas (means first, then the centred sums): the same
        /// slope, intercept, residuals and `R^2 = 1 - SS_res / SS_tot`, and a
        /// least-squares line leaves no more than the total, `SS_res <= SS_tot`.
        /// (The fit clamps R^2 into [0, 1], so a range check could not fail.)
        #[test]
        fn the_fit_agrees_with_a_two_pass_fit(
            points in prop::collection::vec((-1e6f64..1e6, -1e6f64..1e6), 3..40),
        ) {
            let (x, y): (Vec<f64>, Vec<f64>) = points.into_iter().unzip();
            let n = x.len() as f64;
            let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
            let sxx: f64 = x.iter().map(|v| (v - mx).powi(2)).sum();
            let sxy: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
            let ss_tot: f64 = y.iter().map(|v| (v - my).powi(2)).sum();
            prop_assume!(sxx > 1e-6 * n && ss_tot > 1e-6 * n);
            let slope = sxy / sxx;
            let intercept = my - slope * mx;
            let ss_res: f64 = x
                .iter()
                .zip(&y)
                .map(|(a, b)| (b - intercept - slope * a).powi(2))
                .sum();
            let fit = fit_line(&x, &y).unwrap();
            let scale = 1e-9 * (1.0 + slope.abs());
            prop_assert!(close(fit.slope, slope, scale), "{} vs {slope}", fit.slope);
            prop_assert!(
                close(fit.intercept, intercept, 1e-9 * (1.0 + my.abs()) + scale * 1e6),
                "{} vs {intercept}",
                fit.intercept
            );
            prop_assert!(ss_res <= ss_tot * (1.0 + 1e-9));
            let fit_ss_res: f64 = fit.residuals.iter().map(|r| r * r).sum();
            prop_assert!(close(fit_ss_res, ss_res, 1e-9 * ss_tot));
            prop_assert!(close(fit.r2, 1.0 - ss_res / ss_tot, 1e-9), "{} vs {}", fit.r2, 1.0 - ss_res / ss_tot);
            prop_assert!(fit.se_slope >= 0.0 && fit.se_intercept >= 0.0);
        }
    }
}
