//! Multiple linear least squares `y = X beta + error`, as used by the regression
//! analyses of Lamanna, "A Performance Study of the Hypercube Architecture" (AFIT
//! thesis, 1988), chapter IV (equations 13, 16 and 19).
//!
//! The caller supplies the response `y` and the regressor columns of `X`, each with a
//! name; an intercept column of ones is added when asked for. Any coefficient can be
//! fixed at a known value (the thesis fixes the coefficient of `U/N` at 1 in eq. 13):
//! its term is subtracted from `y` and only the free coefficients are estimated.
//!
//! The free coefficients are found by a Householder QR factorisation of the design
//! matrix (numerically safer than the normal equations when columns such as `U/N` and
//! `N B R` differ by orders of magnitude). Reported quantities:
//!
//! - `value`: the estimate (or the fixed value), in the unit of `y` per unit of the column;
//! - `standard_error`: `s * sqrt(((X'X)^-1)_jj)` with `s^2 = SSE / (n - p)`, `p` the
//!   number of free coefficients (0 for a fixed coefficient);
//! - `r_squared`: `1 - SSE / SST`. With an intercept `SST = sum (y_i - mean y)^2` (R^2
//!   about the mean). Without an intercept `SST = sum y_i^2` (the uncentred R^2, the
//!   usual convention for a model through the origin; it is not comparable with the
//!   centred value). `y` is always the original response, before fixed terms are
//!   subtracted, so the R^2 describes the whole model;
//! - `residuals`: `y_i - yhat_i` in the unit of `y`.
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};

/// Relative size below which a diagonal element of R marks a column as linearly
/// dependent on the columns before it.
const RANK_TOLERANCE: f64 = 1e-10;

/// Name given to the intercept coefficient.
pub const INTERCEPT: &str = "intercept";

/// One column of the design matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Regressor<'a> {
    /// Name of the coefficient (used in errors and in the result).
    pub name: &'a str,
    /// Values of the column, one per observation.
    pub values: &'a [f64],
    /// `Some(v)` fixes the coefficient at `v` instead of estimating it.
    pub fixed: Option<f64>,
}

impl<'a> Regressor<'a> {
    /// A column whose coefficient is estimated.
    pub fn free(name: &'a str, values: &'a [f64]) -> Self {
        Self {
            name,
            values,
            fixed: None,
        }
    }

    /// A column whose coefficient is fixed at `value`.
    pub fn fixed(name: &'a str, values: &'a [f64], value: f64) -> Self {
        Self {
            name,
            values,
            fixed: Some(value),
        }
    }
}

/// One estimated (or fixed) coefficient.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coefficient {
    /// Name of the column (`"intercept"` for the intercept).
    pub name: String,
    /// Estimate, or the fixed value.
    pub value: f64,
    /// Standard error of the estimate; 0 for a fixed coefficient.
    pub standard_error: f64,
    /// Whether the value was fixed by the caller.
    pub fixed: bool,
}

/// Result of a least-squares fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinearFit {
    /// The intercept, when the model has one.
    pub intercept: Option<Coefficient>,
    /// The coefficients of the caller's columns, in the caller's order.
    pub coefficients: Vec<Coefficient>,
    /// Coefficient of determination (centred with an intercept, uncentred without).
    pub r_squared: f64,
    /// Residual standard error `s = sqrt(SSE / (n - p))`, in the unit of `y`.
    pub residual_std_error: f64,
    /// Residual degrees of freedom `n - p` (`p` = number of free coefficients).
    pub degrees_of_freedom: usize,
    /// Residuals `y_i - yhat_i`, in the unit of `y`.
    pub residuals: Vec<f64>,
}

impl LinearFit {
    /// The coefficient with the given name (`"intercept"` for the intercept).
    pub fn coefficient(&self, name: &str) -> Option<&Coefficient> {
        self.intercept
            .iter()
            .chain(&self.coefficients)
            .find(|c| c.name == name)
    }
}

/// Why a least-squares fit could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RegressionError {
    /// Fewer observations than free coefficients plus one.
    #[error(
        "too few points: {points} observations for {parameters} free coefficients; \
         supply at least {parameters} + 1 observations or fix some coefficients"
    )]
    TooFewPoints {
        /// Observations supplied.
        points: usize,
        /// Free coefficients to estimate.
        parameters: usize,
    },
    /// A column's length differs from the length of `y`.
    #[error(
        "column `{column}` has {found} values but y has {expected}; \
         give every column one value per observation"
    )]
    LengthMismatch {
        /// Column name.
        column: String,
        /// Length of `y`.
        expected: usize,
        /// Length of the column.
        found: usize,
    },
    /// A value (or a fixed coefficient) is NaN or infinite.
    #[error(
        "`{column}` holds a non-finite value at index {index}; remove or repair that observation"
    )]
    NonFiniteValue {
        /// Column name (`"y"` for the response, `"fixed value"` index for fixed coefficients).
        column: String,
        /// Observation index (the column index for a fixed coefficient value).
        index: usize,
    },
    /// A column is (numerically) a linear combination of the columns before it.
    #[error(
        "singular design: column `{column}` is a linear combination of the preceding \
         columns; drop it or fix its coefficient"
    )]
    SingularDesign {
        /// Column name.
        column: String,
    },
    /// A weight is not a positive finite number.
    #[error(
        "weight {index} is not a positive finite number; weigh every observation by more than zero"
    )]
    BadWeight {
        /// Observation index.
        index: usize,
    },
    /// The total sum of squares is zero, so R^2 is undefined.
    #[error("the response has no variation (total sum of squares is zero), so R^2 is undefined")]
    ConstantResponse,
}

/// Fits `y = [intercept] + sum_j beta_j x_j` by least squares.
///
/// `regressors` are the caller's columns; `intercept` adds a free column of ones
/// before them. Fixed coefficients are subtracted from `y` before the fit.
pub fn least_squares(
    y: &[f64],
    regressors: &[Regressor<'_>],
    intercept: bool,
) -> Result<LinearFit, RegressionError> {
    fit(y, regressors, intercept, None)
}

/// [`least_squares`] weighing observation `i` by `weights[i] > 0`: minimises
/// `sum w_i (y_i - yhat_i)^2`, each row of the design and `y` scaled by
/// `sqrt(w_i)` before the QR factorisation. With `w_i = 1 / y_i^2` the fit is
/// relative to the observations, for times whose spread grows with them.
/// `r_squared` is the weighted one (`1 - SSE_w / SST_w`, centred on the
/// weighted mean with an intercept), `residual_std_error` is in the unit of
/// `sqrt(w) y` (a relative error for `w = 1 / y^2`), and the standard errors
/// are `s sqrt(((X' W X)^-1)_jj)`; `residuals` stay in the unit of `y`.
pub fn weighted_least_squares(
    y: &[f64],
    regressors: &[Regressor<'_>],
    intercept: bool,
    weights: &[f64],
) -> Result<LinearFit, RegressionError> {
    if weights.len() != y.len() {
        return Err(RegressionError::LengthMismatch {
            column: "weights".into(),
            expected: y.len(),
            found: weights.len(),
        });
    }
    if let Some(index) = weights.iter().position(|w| !(w.is_finite() && *w > 0.0)) {
        return Err(RegressionError::BadWeight { index });
    }
    fit(y, regressors, intercept, Some(weights))
}

fn fit(
    y: &[f64],
    regressors: &[Regressor<'_>],
    intercept: bool,
    weights: Option<&[f64]>,
) -> Result<LinearFit, RegressionError> {
    validate(y, regressors)?;
    let ones = vec![1.0; y.len()];
    let w: Vec<f64> = weights.map_or_else(|| ones.clone(), <[f64]>::to_vec);
    let mut free: Vec<Regressor<'_>> = Vec::with_capacity(regressors.len() + 1);
    if intercept {
        free.push(Regressor::free(INTERCEPT, &ones));
    }
    free.extend(regressors.iter().filter(|r| r.fixed.is_none()).copied());
    if y.len() <= free.len() {
        return Err(RegressionError::TooFewPoints {
            points: y.len(),
            parameters: free.len(),
        });
    }

    let adjusted: Vec<f64> = (0..y.len())
        .map(|i| {
            let fixed_part: f64 = regressors
                .iter()
                .filter_map(|r| r.fixed.map(|v| v * r.values[i]))
                .sum();
            y[i] - fixed_part
        })
        .collect();
    // Rows scaled by sqrt(w): ordinary least squares of the scaled system is
    // the weighted fit of the original one.
    let root: Vec<f64> = w.iter().map(|w| w.sqrt()).collect();
    let scale = |v: &[f64]| -> Vec<f64> { v.iter().zip(&root).map(|(v, r)| v * r).collect() };
    let scaled_columns: Vec<Vec<f64>> = free.iter().map(|r| scale(r.values)).collect();
    let scaled: Vec<Regressor<'_>> = free
        .iter()
        .zip(&scaled_columns)
        .map(|(r, c)| Regressor::free(r.name, c))
        .collect();
    let (beta, unscaled_variance) = solve_qr(&scaled, &scale(&adjusted))?;

    let residuals: Vec<f64> = (0..y.len())
        .map(|i| {
            adjusted[i]
                - free
                    .iter()
                    .zip(&beta)
                    .map(|(r, b)| b * r.values[i])
                    .sum::<f64>()
        })
        .collect();
    let sse: f64 = residuals.iter().zip(&w).map(|(r, w)| w * r * r).sum();
    let sst = total_sum_of_squares(y, &w, intercept);
    if sst == 0.0 {
        return Err(RegressionError::ConstantResponse);
    }
    let degrees_of_freedom = y.len() - free.len();
    let residual_std_error = (sse / degrees_of_freedom as f64).sqrt();

    let mut estimates =
        free.iter()
            .zip(beta.iter().zip(&unscaled_variance))
            .map(|(r, (&value, &v))| Coefficient {
                name: r.name.to_string(),
                value,
                standard_error: residual_std_error * v.sqrt(),
                fixed: false,
            });
    let intercept_coefficient = if intercept { estimates.next() } else { None };
    let coefficients = regressors
        .iter()
        .map(|r| match r.fixed {
            Some(value) => Coefficient {
                name: r.name.to_string(),
                value,
                standard_error: 0.0,
                fixed: true,
            },
            None => estimates.next().expect("one estimate per free column"),
        })
        .collect();

    Ok(LinearFit {
        intercept: intercept_coefficient,
        coefficients,
        r_squared: 1.0 - sse / sst,
        residual_std_error,
        degrees_of_freedom,
        residuals,
    })
}

fn validate(y: &[f64], regressors: &[Regressor<'_>]) -> Result<(), RegressionError> {
    let non_finite = |column: &str, index: usize| RegressionError::NonFiniteValue {
        column: column.to_string(),
        index,
    };
    if let Some(i) = y.iter().position(|v| !v.is_finite()) {
        return Err(non_finite("y", i));
    }
    for (j, r) in regressors.iter().enumerate() {
        if r.values.len() != y.len() {
            return Err(RegressionError::LengthMismatch {
                column: r.name.to_string(),
                expected: y.len(),
                found: r.values.len(),
            });
        }
        if let Some(i) = r.values.iter().position(|v| !v.is_finite()) {
            return Err(non_finite(r.name, i));
        }
        if r.fixed.is_some_and(|v| !v.is_finite()) {
            return Err(non_finite("fixed value", j));
        }
    }
    Ok(())
}

fn total_sum_of_squares(y: &[f64], w: &[f64], centred: bool) -> f64 {
    let centre = if centred {
        y.iter().zip(w).map(|(y, w)| w * y).sum::<f64>() / w.iter().sum::<f64>()
    } else {
        0.0
    };
    y.iter().zip(w).map(|(v, w)| w * (v - centre).powi(2)).sum()
}

/// Householder QR of the free columns. Returns the coefficients and the diagonal of
/// `(X'X)^-1 = R^-1 R^-T`.
fn solve_qr(columns: &[Regressor<'_>], y: &[f64]) -> Result<(Vec<f64>, Vec<f64>), RegressionError> {
    let p = columns.len();
    let mut a: Vec<Vec<f64>> = columns.iter().map(|c| c.values.to_vec()).collect();
    let mut qty = y.to_vec();
    for j in 0..p {
        let column_norm = norm(columns[j].values);
        let x_norm = norm(&a[j][j..]);
        if x_norm <= RANK_TOLERANCE * column_norm {
            return Err(RegressionError::SingularDesign {
                column: columns[j].name.to_string(),
            });
        }
        let alpha = if a[j][j] > 0.0 { -x_norm } else { x_norm };
        let mut v = a[j][j..].to_vec();
        v[0] -= alpha;
        let v_norm2: f64 = v.iter().map(|x| x * x).sum();
        let reflect = |col: &mut [f64]| {
            let dot: f64 = v.iter().zip(&col[j..]).map(|(a, b)| a * b).sum();
            let f = 2.0 * dot / v_norm2;
            col[j..].iter_mut().zip(&v).for_each(|(c, vi)| *c -= f * vi);
        };
        for col in a.iter_mut().skip(j) {
            reflect(col);
        }
        reflect(&mut qty);
    }
    // R[i][j] = a[j][i] for i <= j.
    let r = |i: usize, j: usize| a[j][i];
    let mut beta = vec![0.0; p];
    for i in (0..p).rev() {
        let s: f64 = (i + 1..p).map(|k| r(i, k) * beta[k]).sum();
        beta[i] = (qty[i] - s) / r(i, i);
    }
    // Columns of R^-1 by back substitution; (X'X)^-1_jj = sum_col (R^-1)_j,col^2.
    let r_inv: Vec<Vec<f64>> = (0..p)
        .map(|col| {
            let mut x = vec![0.0; col + 1];
            for i in (0..=col).rev() {
                let unit = if i == col { 1.0 } else { 0.0 };
                let s: f64 = (i + 1..=col).map(|k| r(i, k) * x[k]).sum();
                x[i] = (unit - s) / r(i, i);
            }
            x
        })
        .collect();
    let variance = (0..p)
        .map(|j| r_inv[j..].iter().map(|column| column[j] * column[j]).sum())
        .collect();
    Ok((beta, variance))
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Simple regression y = a + b x on five points, checked against the textbook
    /// closed forms: b = Sxy/Sxx, a = ybar - b xbar, se(b) = s/sqrt(Sxx),
    /// se(a) = s sqrt(1/n + xbar^2/Sxx), R^2 = 1 - SSE/SST.
    /// x = 1..5, y = 2.1, 3.9, 6.2, 7.8, 10.1: xbar = 3, ybar = 6.02, Sxx = 10,
    /// Sxy = 19.9, b = 1.99, a = 0.05; residuals .06 -.13 .18 -.21 .10,
    /// SSE = .107, s^2 = .107/3, SST = 39.708.
    #[test]
    fn simple_regression_matches_closed_form() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        let y = [2.1, 3.9, 6.2, 7.8, 10.1];
        let fit = least_squares(&y, &[Regressor::free("x", &x)], true).unwrap();
        let a = fit.intercept.as_ref().unwrap();
        let b = &fit.coefficients[0];
        assert!(close(b.value, 1.99, 1e-12));
        assert!(close(a.value, 0.05, 1e-12));
        let s = (0.107f64 / 3.0).sqrt();
        assert!(close(b.standard_error, s / 10f64.sqrt(), 1e-12));
        assert!(close(
            a.standard_error,
            s * (0.2 + 9.0 / 10.0f64).sqrt(),
            1e-12
        ));
        assert!(close(fit.r_squared, 1.0 - 0.107 / 39.708, 1e-12));
        let expected = [0.06, -0.13, 0.18, -0.21, 0.10];
        for (r, e) in fit.residuals.iter().zip(expected) {
            assert!(close(*r, e, 1e-12));
        }
        assert_eq!(fit.degrees_of_freedom, 3);
    }

    /// Exact data from y = 3 - 2 x1 + 0.5 x2 is recovered exactly; the fit with x1
    /// fixed at -2 gives the same intercept and x2 coefficient.
    #[test]
    fn exact_two_column_model_and_fixed_coefficient() {
        let x1 = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let x2 = [10.0, 3.0, 7.0, 1.0, 8.0, 2.0];
        let y: Vec<f64> = x1
            .iter()
            .zip(&x2)
            .map(|(a, b)| 3.0 - 2.0 * a + 0.5 * b)
            .collect();
        let free = least_squares(
            &y,
            &[Regressor::free("x1", &x1), Regressor::free("x2", &x2)],
            true,
        )
        .unwrap();
        assert!(close(
            free.coefficient("intercept").unwrap().value,
            3.0,
            1e-10
        ));
        assert!(close(free.coefficient("x1").unwrap().value, -2.0, 1e-10));
        assert!(close(free.coefficient("x2").unwrap().value, 0.5, 1e-10));
        assert!(close(free.r_squared, 1.0, 1e-12));

        let fixed = least_squares(
            &y,
            &[
                Regressor::fixed("x1", &x1, -2.0),
                Regressor::free("x2", &x2),
            ],
            true,
        )
        .unwrap();
        let x1c = fixed.coefficient("x1").unwrap();
        assert!(x1c.fixed && x1c.value == -2.0 && x1c.standard_error == 0.0);
        assert!(close(fixed.coefficient("x2").unwrap().value, 0.5, 1e-10));
        assert!(close(fixed.intercept.unwrap().value, 3.0, 1e-10));
        assert_eq!(fixed.degrees_of_freedom, 4);
    }

    /// Through the origin: y = b x with x = 1, 2, 3 and y = 1, 2, 4 gives
    /// b = sum xy / sum x^2 = 17/14, SSE = sum y^2 - b * sum xy = 21 - 289/14,
    /// uncentred R^2 = 1 - SSE/21.
    #[test]
    fn no_intercept_uses_uncentred_r_squared() {
        let x = [1.0, 2.0, 3.0];
        let y = [1.0, 2.0, 4.0];
        let fit = least_squares(&y, &[Regressor::free("x", &x)], false).unwrap();
        assert!(fit.intercept.is_none());
        assert!(close(fit.coefficients[0].value, 17.0 / 14.0, 1e-12));
        let sse = 21.0 - 289.0 / 14.0;
        assert!(close(fit.r_squared, 1.0 - sse / 21.0, 1e-12));
        assert!(close(
            fit.coefficients[0].standard_error,
            (sse / 2.0 / 14.0).sqrt(),
            1e-12
        ));
    }

    #[test]
    fn typed_errors() {
        let x = [1.0, 2.0, 3.0];
        let y = [1.0, 2.0, 3.5];
        assert!(matches!(
            least_squares(&y[..2], &[Regressor::free("x", &x[..2])], true),
            Err(RegressionError::TooFewPoints {
                points: 2,
                parameters: 2
            })
        ));
        let twice: Vec<f64> = x.iter().map(|v| 2.0 * v).collect();
        assert_eq!(
            least_squares(
                &y,
                &[Regressor::free("x", &x), Regressor::free("2x", &twice)],
                false
            ),
            Err(RegressionError::SingularDesign {
                column: "2x".to_string()
            })
        );
        assert!(matches!(
            least_squares(&y, &[Regressor::free("x", &x[..2])], true),
            Err(RegressionError::LengthMismatch { .. })
        ));
        assert!(matches!(
            least_squares(&[1.0, f64::NAN, 2.0], &[Regressor::free("x", &x)], true),
            Err(RegressionError::NonFiniteValue { index: 1, .. })
        ));
        assert_eq!(
            least_squares(&[2.0, 2.0, 2.0], &[Regressor::free("x", &x)], true),
            Err(RegressionError::ConstantResponse)
        );
        assert!(matches!(
            least_squares(&[], &[], true),
            Err(RegressionError::TooFewPoints { .. })
        ));
        let zeros = [0.0; 3];
        assert!(matches!(
            least_squares(&y, &[Regressor::free("zero", &zeros)], true),
            Err(RegressionError::SingularDesign { .. })
        ));
    }

    /// y = 1, 2, 4 at x = 0, 1, 2, weighed 1, 1, 4. By hand from the
    /// weighted normal equations (sum w = 6, sum w x = 9, sum w x^2 = 17,
    /// sum w y = 19, sum w x y = 34, determinant 21): a = 17/21 = 0.809524,
    /// b = 33/21 = 1.571429; SSE_w = 4/21, s = sqrt(4/21) = 0.436436 on one
    /// degree of freedom, se(a) = s sqrt(17/21) = 0.392676, se(b) = s
    /// sqrt(6/21) = 0.233285; about the weighted mean 19/6, SST_w = 8.833333
    /// and R^2 = 1 - (4/21) / 8.833333 = 0.978437. Weights of one give the
    /// ordinary fit; a weight of zero is refused.
    #[test]
    fn weighted_fit_by_hand() {
        let (x, y) = ([0.0, 1.0, 2.0], [1.0, 2.0, 4.0]);
        let fit = weighted_least_squares(&y, &[Regressor::free("x", &x)], true, &[1.0, 1.0, 4.0])
            .unwrap();
        let a = fit.coefficient(INTERCEPT).unwrap();
        let b = fit.coefficient("x").unwrap();
        assert!(close(a.value, 17.0 / 21.0, 1e-12) && close(b.value, 33.0 / 21.0, 1e-12));
        assert!(close(fit.residual_std_error, (4.0f64 / 21.0).sqrt(), 1e-12));
        assert!(close(a.standard_error, 0.392676, 1e-6));
        assert!(close(b.standard_error, 0.233285, 1e-6));
        assert!(close(fit.r_squared, 0.978437, 1e-6));
        assert!(close(fit.residuals[1], 2.0 - 50.0 / 21.0, 1e-12));
        let plain = least_squares(&y, &[Regressor::free("x", &x)], true).unwrap();
        let ones =
            weighted_least_squares(&y, &[Regressor::free("x", &x)], true, &[1.0; 3]).unwrap();
        assert_eq!(plain, ones);
        assert!(matches!(
            weighted_least_squares(&y, &[Regressor::free("x", &x)], true, &[1.0, 0.0, 1.0]),
            Err(RegressionError::BadWeight { index: 1 })
        ));
    }
}
