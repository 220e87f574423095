//! Paired-difference t test, as used by Lamanna, "A Performance Study of the
//! Hypercube Architecture" (AFIT thesis, 1988), chapter IV and Appendix D, to decide
//! whether the simulation model and the benchmark differ (research hypothesis H1).
//!
//! For `n` pairs with differences `d_i = first_i - second_i` (any unit, e.g. ms):
//!
//! - `mean_difference` `dbar = sum d_i / n`;
//! - `sd_difference` `S_d = sqrt(sum (d_i - dbar)^2 / (n - 1))`;
//! - `t = dbar / (S_d / sqrt(n))` with `n - 1` degrees of freedom;
//! - `p_value`: two-sided, `2 P(T_{n-1} > |t|)`;
//! - the null hypothesis "mean difference is zero" is rejected at level `alpha` when
//!   `p_value < alpha`, i.e. when `|t|` exceeds the `1 - alpha/2` quantile
//!   `critical_t`. The thesis uses `alpha = 0.1` ([`THESIS_ALPHA`]).
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Significance level of the thesis's test of H1 ("a confidence level of 0.1").
pub const THESIS_ALPHA: f64 = 0.1;

/// Result of a paired-difference t test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedTTest {
    /// Number of pairs `n`.
    pub pairs: usize,
    /// Mean difference `dbar`, in the unit of the data.
    pub mean_difference: f64,
    /// Sample standard deviation of the differences `S_d`, in the unit of the data.
    pub sd_difference: f64,
    /// Standard error of the mean difference `S_d / sqrt(n)`.
    pub standard_error: f64,
    /// Test statistic `t = dbar / (S_d / sqrt(n))`.
    pub t: f64,
    /// Degrees of freedom `n - 1`.
    pub degrees_of_freedom: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Significance level used for the decision.
    pub alpha: f64,
    /// Two-sided critical value `t_{1 - alpha/2, n - 1}`.
    pub critical_t: f64,
    /// Whether "no mean difference" is rejected at `alpha`.
    pub reject_null: bool,
}

/// Why a paired t test could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TTestError {
    /// Fewer than two pairs.
    #[error("a paired t test needs at least 2 pairs, got {pairs}")]
    TooFewPairs {
        /// Pairs supplied.
        pairs: usize,
    },
    /// The two samples have different lengths.
    #[error(
        "samples are not paired: {first} values against {second}; supply one value of each per pair"
    )]
    LengthMismatch {
        /// Length of the first sample.
        first: usize,
        /// Length of the second sample.
        second: usize,
    },
    /// A value is NaN or infinite.
    #[error("difference {index} is not finite; remove or repair that pair")]
    NonFiniteValue {
        /// Index of the offending pair.
        index: usize,
    },
    /// All differences are equal, so `S_d = 0` and `t` is undefined.
    #[error("all differences are equal (S_d = 0), so t is undefined")]
    ZeroVariance,
    /// `alpha` is not strictly between 0 and 1.
    #[error("significance level alpha = {alpha} must lie strictly between 0 and 1")]
    AlphaOutOfRange {
        /// The rejected level.
        alpha: f64,
    },
}

/// Paired t test on `first_i - second_i`.
pub fn paired_t_test(first: &[f64], second: &[f64], alpha: f64) -> Result<PairedTTest, TTestError> {
    if first.len() != second.len() {
        return Err(TTestError::LengthMismatch {
            first: first.len(),
            second: second.len(),
        });
    }
    let differences: Vec<f64> = first.iter().zip(second).map(|(a, b)| a - b).collect();
    t_test_differences(&differences, alpha)
}

/// Paired t test on already computed differences.
pub fn t_test_differences(differences: &[f64], alpha: f64) -> Result<PairedTTest, TTestError> {
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(TTestError::AlphaOutOfRange { alpha });
    }
    let n = differences.len();
    if n < 2 {
        return Err(TTestError::TooFewPairs { pairs: n });
    }
    if let Some(index) = differences.iter().position(|d| !d.is_finite()) {
        return Err(TTestError::NonFiniteValue { index });
    }
    let mean = differences.iter().sum::<f64>() / n as f64;
    let ss: f64 = differences.iter().map(|d| (d - mean).powi(2)).sum();
    let sd = (ss / (n - 1) as f64).sqrt();
    if sd == 0.0 {
        return Err(TTestError::ZeroVariance);
    }
    let standard_error = sd / (n as f64).sqrt();
    let t = mean / standard_error;
    let dof = (n - 1) as f64;
    let dist = StudentsT::new(0.0, 1.0, dof).expect("n - 1 >= 1 degrees of freedom");
    let p_value = (2.0 * dist.sf(t.abs())).min(1.0);
    Ok(PairedTTest {
        pairs: n,
        mean_difference: mean,
        sd_difference: sd,
        standard_error,
        t,
        degrees_of_freedom: dof,
        p_value,
        alpha,
        critical_t: dist.inverse_cdf(1.0 - alpha / 2.0),
        reject_null: p_value < alpha,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appendix D, "Paired-Difference t Test": simulation average minus benchmark
    /// average for the 20 (uniprocessor load, cube size) cells of Table 6, as listed
    /// in the Difference column.
    const APPENDIX_D_DIFFERENCES_MS: [f64; 20] = [
        0.0, -8.8, -17.8, 15.3, 2.8, 0.5, -2.6, -17.2, 23.2, -15.8, 1.8, 6.1, 6.6, 7.0, 12.6, -0.2,
        -8.4, -5.8, 7.4, 3.8,
    ];

    /// The thesis reports dbar = 0.525, S_d = 10.73 and t = 0.219 (0.22 in ch. IV),
    /// and does not reject H1 at 0.1. The two-sided critical value for 19 degrees of
    /// freedom at alpha = 0.1 is 1.729 (standard t tables).
    #[test]
    fn appendix_d_reproduces_t_of_0_22() {
        let r = t_test_differences(&APPENDIX_D_DIFFERENCES_MS, THESIS_ALPHA).unwrap();
        assert_eq!(r.pairs, 20);
        assert!((r.mean_difference - 0.525).abs() < 1e-12);
        assert!((r.sd_difference - 10.73).abs() < 0.005);
        assert!((r.t - 0.219).abs() < 0.0005);
        assert_eq!(r.degrees_of_freedom, 19.0);
        assert!((r.critical_t - 1.729).abs() < 0.001);
        assert!(r.p_value > 0.8 && r.p_value < 0.86);
        assert!(!r.reject_null);
    }

    /// With two pairs the t distribution has 1 degree of freedom (Cauchy), whose
    /// two-sided tail is 1 - (2/pi) atan(|t|). d = 1, 3: dbar = 2, S_d = sqrt 2,
    /// t = 2 / (sqrt 2 / sqrt 2) = 2, p = 1 - (2/pi) atan 2 = 0.29517.
    #[test]
    fn one_degree_of_freedom_matches_cauchy_tail() {
        let r = paired_t_test(&[11.0, 13.0], &[10.0, 10.0], 0.3).unwrap();
        assert!((r.t - 2.0).abs() < 1e-12);
        let p = 1.0 - 2.0 / std::f64::consts::PI * 2f64.atan();
        assert!((r.p_value - p).abs() < 1e-9);
        assert!(r.reject_null, "p = {p:.4} < 0.3");
        // Critical value of the Cauchy at 1 - 0.3/2: tan(pi (0.85 - 0.5)).
        let crit = (std::f64::consts::PI * 0.35).tan();
        assert!((r.critical_t - crit).abs() < 1e-6);
    }

    #[test]
    fn typed_errors() {
        assert_eq!(
            t_test_differences(&[1.0], 0.1),
            Err(TTestError::TooFewPairs { pairs: 1 })
        );
        assert_eq!(
            t_test_differences(&[2.0, 2.0, 2.0], 0.1),
            Err(TTestError::ZeroVariance)
        );
        assert_eq!(
            t_test_differences(&[1.0, 2.0], 1.0),
            Err(TTestError::AlphaOutOfRange { alpha: 1.0 })
        );
        assert!(matches!(
            t_test_differences(&[1.0, f64::INFINITY], 0.1),
            Err(TTestError::NonFiniteValue { index: 1 })
        ));
        assert_eq!(
            paired_t_test(&[1.0, 2.0], &[1.0], 0.1),
            Err(TTestError::LengthMismatch {
                first: 2,
                second: 1
            })
        );
        assert!(matches!(
            t_test_differences(&[1.0, 2.0], f64::NAN),
            Err(TTestError::AlphaOutOfRange { .. })
        ));
    }
}
