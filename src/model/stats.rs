//! Exact summaries of repeated timing samples.
//!
//! Hockney ("(r_inf, n_1/2, s_1/2) measurements on the 2-CPU Cray X-MP", section 3.1,
//! Fig. 1) records the minimum, maximum and average of 100 trials at each vector
//! length and fits the minimum; Krumme & Greenfield (NCUBE communication timing,
//! section 3.5 and Table 1) report means and standard deviations of repeated trials.
//! This module gives those numbers, exactly, from a slice of samples (any unit; the
//! results carry the unit of the samples).
//!
//! Definitions (n samples, sorted ascending as `x_(1) ≤ … ≤ x_(n)`):
//! * `median`: the middle sample for odd `n`, the mean of the two middle samples for even `n`;
//! * `p90`, `p99`: nearest-rank percentiles: the `P`-th percentile is `x_(k)` with
//!   `k = ceil(P · n / 100)`, always one of the samples (no interpolation);
//! * `mean = Σx / n`; `std_dev` is the sample standard deviation
//!   `sqrt(Σ(x − mean)² / (n − 1))`, defined as `0.0` for a single sample.
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Summary of a set of samples, in the unit of the samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Summary {
    /// Number of samples.
    pub count: usize,
    /// Smallest sample.
    pub min: f64,
    /// Median (mean of the two middle samples when `count` is even).
    pub median: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Largest sample.
    pub max: f64,
    /// Sample standard deviation (divisor `count − 1`; `0.0` for one sample).
    pub std_dev: f64,
    /// 90th percentile by nearest rank.
    pub p90: f64,
    /// 99th percentile by nearest rank.
    pub p99: f64,
}

impl Summary {
    /// `(max − min) / min`: how far apart the repetitions are, relative to the best.
    ///
    /// A run is accepted when this is below a tolerance (the ACCURACY check of the
    /// scibench methodology). Returns `0.0` when all samples are equal and
    /// `f64::INFINITY` when `min ≤ 0` with `max > min`, so such a run never passes.
    pub fn relative_spread(&self) -> f64 {
        if self.max == self.min {
            0.0
        } else if self.min <= 0.0 {
            f64::INFINITY
        } else {
            (self.max - self.min) / self.min
        }
    }
}

/// Why samples could not be summarised.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StatsError {
    /// No samples were given.
    #[error("no samples to summarise: run at least one repetition")]
    Empty,
    /// A sample is NaN or infinite.
    #[error("sample {index} is NaN or infinite: drop or re-measure it")]
    NonFinite {
        /// Index of the first offending sample.
        index: usize,
    },
}

fn check(samples: &[f64]) -> Result<(), StatsError> {
    if samples.is_empty() {
        return Err(StatsError::Empty);
    }
    match samples.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(StatsError::NonFinite { index }),
        None => Ok(()),
    }
}

/// Mean and sample standard deviation (divisor `n − 1`, `0.0` for one sample).
pub fn mean_std(samples: &[f64]) -> Result<(f64, f64), StatsError> {
    check(samples)?;
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    if samples.len() == 1 {
        return Ok((mean, 0.0));
    }
    let ss: f64 = samples.iter().map(|v| (v - mean) * (v - mean)).sum();
    Ok((mean, (ss / (n - 1.0)).sqrt()))
}

/// Nearest-rank percentile `x_(ceil(P·n/100))` of sorted, non-empty samples, `P` in 1..=100.
fn nearest_rank(sorted: &[f64], percent: usize) -> f64 {
    let rank = (percent * sorted.len()).div_ceil(100);
    sorted[rank.max(1) - 1]
}

/// Summarises samples exactly by sorting a copy (definitions in the module doc).
pub fn summarize(samples: &[f64]) -> Result<Summary, StatsError> {
    let (mean, std_dev) = mean_std(samples)?;
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    Ok(Summary {
        count: n,
        min: sorted[0],
        median,
        mean,
        max: sorted[n - 1],
        std_dev,
        p90: nearest_rank(&sorted, 90),
        p99: nearest_rank(&sorted, 99),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand computation for 3, 1, 4, 1, 5, 9, 2, 6, 5, 3 (n = 10):
    /// sorted 1 1 2 3 3 4 5 5 6 9; median (3 + 4)/2 = 3.5; mean 39/10 = 3.9;
    /// squared deviations 8.41 8.41 3.61 0.81 0.81 0.01 1.21 1.21 4.41 26.01, sum 54.9,
    /// variance 54.9/9 = 6.1; p90 rank ceil(9.0) = 9 → 6; p99 rank ceil(9.9) = 10 → 9;
    /// relative spread (9 − 1)/1 = 8.
    #[test]
    fn hand_computed_ten_samples() {
        let s = summarize(&[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0]).unwrap();
        assert_eq!((s.count, s.min, s.median, s.max), (10, 1.0, 3.5, 9.0));
        assert!((s.mean - 3.9).abs() < 1e-12);
        assert!((s.std_dev - 6.1f64.sqrt()).abs() < 1e-12);
        assert_eq!((s.p90, s.p99), (6.0, 9.0));
        assert_eq!(s.relative_spread(), 8.0);
    }

    /// Nearest rank, not interpolation: for 1..=100 the 90th percentile is the 90th
    /// value and the 99th the 99th; for 7 samples ceil(0.9·7) = ceil(6.3) = 7 → max,
    /// where linear interpolation would give 6.4 for 1..=7.
    #[test]
    fn percentiles_are_nearest_rank() {
        let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = summarize(&hundred).unwrap();
        assert_eq!((s.median, s.p90, s.p99), (50.5, 90.0, 99.0));
        let seven: Vec<f64> = (1..=7).rev().map(f64::from).collect();
        let s = summarize(&seven).unwrap();
        assert_eq!((s.median, s.p90, s.p99), (4.0, 7.0, 7.0));
    }

    #[test]
    fn single_sample() {
        let s = summarize(&[42.0]).unwrap();
        assert_eq!((s.min, s.median, s.mean, s.max), (42.0, 42.0, 42.0, 42.0));
        assert_eq!((s.std_dev, s.p90, s.p99), (0.0, 42.0, 42.0));
        assert_eq!(s.relative_spread(), 0.0);
    }

    /// mean_std of 2, 4, 4, 4, 5, 5, 7, 9: mean 5, Σ(x − 5)² = 9+1+1+1+0+0+4+16 = 32,
    /// sample variance 32/7.
    #[test]
    fn mean_std_uses_n_minus_one() {
        let (mean, std) = mean_std(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(mean, 5.0);
        assert!((std - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn relative_spread_edge_cases() {
        let mut s = summarize(&[0.0, 1.0]).unwrap();
        assert_eq!(s.relative_spread(), f64::INFINITY);
        s = summarize(&[100.0, 103.0, 101.0]).unwrap();
        assert!((s.relative_spread() - 0.03).abs() < 1e-12);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert_eq!(summarize(&[]), Err(StatsError::Empty));
        assert_eq!(mean_std(&[]), Err(StatsError::Empty));
        assert_eq!(
            summarize(&[1.0, f64::NAN]),
            Err(StatsError::NonFinite { index: 1 })
        );
        assert_eq!(
            mean_std(&[f64::NEG_INFINITY]),
            Err(StatsError::NonFinite { index: 0 })
        );
    }
}
