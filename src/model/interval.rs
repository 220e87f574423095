//! 95 % confidence intervals for headline parameters, from a run's own data.
//!
//! Two methods, chosen per parameter by what the data allow:
//!
//! * **Percentile bootstrap over independent units** (Efron & Tibshirani, *An
//!   Introduction to the Bootstrap*, ch. 13): the units are the rounds of an
//!   interleaved sweep (one measurement of every point per round) or the trials of
//!   a point. Draw `B` resamples of the units with replacement, recompute the
//!   estimate from each, and report the 2.5th and 97.5th percentiles of the `B`
//!   estimates. Resampling whole rounds keeps what a round shares (the machine's
//!   state while it ran) together, so the interval includes the drift between
//!   rounds. The generator is seeded: the same data give the same interval.
//! * **Student t from a fit's standard error**: `value ± t_{0.975, dof} · se`, with
//!   `dof = n − k` for `k` fitted coefficients. Honest only when the residuals are
//!   independent and of one spread; the kernels use it where the points of a fit
//!   are not rounds of one sweep (a line over message sizes measured once each).
//!
//! Percentiles of the bootstrap estimates use the same nearest-rank rule as
//! [`crate::model::stats`] (`k = ceil(P n / 100)`).
#![forbid(unsafe_code)]

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Resamples drawn by [`bootstrap`] unless the caller asks otherwise: enough that
/// the 2.5 % tails hold 25 estimates each.
pub const RESAMPLES: usize = 1000;

/// The seed of every bootstrap in the kernels: a result is reproducible from its data.
pub const SEED: u64 = 0x4a1f_9e2f;

/// How a [`bootstrap`] interval is described in results.
pub const BOOTSTRAP_ROUNDS: &str = "percentile bootstrap over rounds";

/// How a [`bootstrap`] interval over trials is described in results.
pub const BOOTSTRAP_TRIALS: &str = "percentile bootstrap over trials";

/// How a [`t_interval`] is described in results.
pub const FIT_STD_ERROR: &str = "fit standard error, Student t";

/// Percentile-bootstrap 95 % intervals of `k` estimates computed jointly from
/// `units` independent units.
///
/// `estimate(indices)` receives a resample (`units` indices drawn with replacement)
/// and returns the `k` estimates, or `None` when that resample gives none (a fit
/// that fails on it); such resamples are skipped. The result has one entry per
/// estimate, `None` when fewer than half the resamples gave a finite value or when
/// there are fewer than 2 units.
pub fn bootstrap(
    units: usize,
    k: usize,
    resamples: usize,
    seed: u64,
    mut estimate: impl FnMut(&[usize]) -> Option<Vec<f64>>,
) -> Vec<Option<[f64; 2]>> {
    if units < 2 || resamples == 0 {
        return vec![None; k];
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut draws: Vec<Vec<f64>> = vec![Vec::with_capacity(resamples); k];
    let mut idx = vec![0usize; units];
    for _ in 0..resamples {
        idx.iter_mut().for_each(|i| *i = rng.random_range(0..units));
        if let Some(est) = estimate(&idx) {
            for (d, v) in draws.iter_mut().zip(est) {
                if v.is_finite() {
                    d.push(v);
                }
            }
        }
    }
    draws
        .into_iter()
        .map(|mut d| {
            if d.len() * 2 < resamples {
                return None;
            }
            d.sort_by(f64::total_cmp);
            Some([percentile(&d, 2.5), percentile(&d, 97.5)])
        })
        .collect()
}

/// Nearest-rank percentile `p` (0 < p <= 100) of sorted, non-empty `sorted`.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let k = ((p / 100.0 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[k - 1]
}

/// `value ± t_{0.975, dof} · se`: the 95 % interval of a fitted coefficient with
/// standard error `se` and `dof` residual degrees of freedom. `None` when there are
/// no degrees of freedom left or the error is not a finite, non-negative number.
pub fn t_interval(value: f64, se: f64, dof: usize) -> Option<[f64; 2]> {
    if dof == 0 || !se.is_finite() || se < 0.0 || !value.is_finite() {
        return None;
    }
    let t = StudentsT::new(0.0, 1.0, dof as f64)
        .expect("dof >= 1")
        .inverse_cdf(0.975);
    Some([value - t * se, value + t * se])
}

/// The percentile-bootstrap 95 % interval of the median of `samples`, each
/// sample a unit ([`bootstrap`] with [`RESAMPLES`] and [`SEED`]); `None`
/// for fewer than two samples.
pub fn median_bootstrap(samples: &[f64]) -> Option<[f64; 2]> {
    let mut buf = Vec::with_capacity(samples.len());
    bootstrap(samples.len(), 1, RESAMPLES, SEED, |idx| {
        buf.clear();
        buf.extend(idx.iter().map(|&i| samples[i]));
        median_in_place(&mut buf).map(|m| vec![m])
    })[0]
}

/// The median of `v` (mean of the two middle values for an even count); `None` for
/// an empty or non-finite input. Sorts `v`.
pub fn median_in_place(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() || v.iter().any(|x| !x.is_finite()) {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fit::fit_line;
    use rand_distr::{Distribution, Normal};

    /// The bootstrap of a mean from N(10, 2^2) samples of 100: the textbook
    /// interval is mean ± 1.96 · 2/sqrt(100) = mean ± 0.392; the percentile
    /// bootstrap's half-width must agree within 15 %, and the interval must
    /// contain the true mean in about 95 % of 200 seeded samples.
    #[test]
    fn bootstrap_of_a_normal_mean_matches_the_textbook_interval() {
        let normal = Normal::new(10.0, 2.0).unwrap();
        let mut covered = 0;
        let mut widths = Vec::new();
        for seed in 0..200u64 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let x: Vec<f64> = (0..100).map(|_| normal.sample(&mut rng)).collect();
            let ci = bootstrap(x.len(), 1, RESAMPLES, seed, |idx| {
                Some(vec![
                    idx.iter().map(|&i| x[i]).sum::<f64>() / idx.len() as f64,
                ])
            })[0]
                .unwrap();
            covered += usize::from(ci[0] <= 10.0 && 10.0 <= ci[1]);
            widths.push((ci[1] - ci[0]) / 2.0);
        }
        let mean_half = widths.iter().sum::<f64>() / widths.len() as f64;
        // The bootstrap uses the plug-in variance (divisor n), so its half-width is
        // 0.392 · sqrt(99/100) = 0.390 on average.
        assert!(
            (mean_half / 0.392 - 1.0).abs() < 0.15,
            "mean half-width {mean_half}"
        );
        // Binomial(200, 0.95): 190 expected, standard deviation 3.1.
        assert!((180..=198).contains(&covered), "covered {covered} of 200");
    }

    /// The bootstrap is reproducible from its seed, and a resample that gives no
    /// estimate is skipped rather than poisoning the percentiles.
    #[test]
    fn bootstrap_is_seeded_and_skips_failed_resamples() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
        let mean = |idx: &[usize]| Some(vec![idx.iter().map(|&i| x[i]).sum::<f64>() / 7.0]);
        let a = bootstrap(7, 1, 500, 7, mean);
        let b = bootstrap(7, 1, 500, 7, mean);
        assert_eq!(a, b);
        let [lo, hi] = a[0].unwrap();
        assert!(lo < 4.0 && hi > 4.0 && lo >= 1.0 && hi <= 7.0, "{lo} {hi}");
        // Every resample fails: no interval.
        assert_eq!(bootstrap(7, 2, 100, 1, |_| None), vec![None, None]);
        // One unit: nothing to resample.
        assert_eq!(bootstrap(1, 1, 100, 1, mean), vec![None]);
    }

    /// The five-point line of `fit::tests::hand_computed_five_points`: slope 0.6,
    /// se_slope = sqrt(0.08) = 0.282843, 3 degrees of freedom, t_{0.975,3} =
    /// 3.182446 (tables): 0.6 ± 0.900132 = [-0.300132, 1.500132]. Intercept 2.2,
    /// se sqrt(0.88) = 0.938083: 2.2 ± 2.985399.
    #[test]
    fn t_interval_of_a_hand_computed_line() {
        let fit = fit_line(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 4.0, 5.0, 4.0, 5.0]).unwrap();
        let [lo, hi] = t_interval(fit.slope, fit.se_slope, fit.n_points - 2).unwrap();
        assert!((lo + 0.300132).abs() < 1e-5 && (hi - 1.500132).abs() < 1e-5);
        let [lo, hi] = t_interval(fit.intercept, fit.se_intercept, 3).unwrap();
        assert!((lo - (2.2 - 2.985399)).abs() < 1e-5 && (hi - (2.2 + 2.985399)).abs() < 1e-5);
        // Large dof tends to the normal 1.959964.
        let [lo, _] = t_interval(0.0, 1.0, 100_000).unwrap();
        assert!((lo + 1.959964).abs() < 1e-4);
        assert_eq!(t_interval(1.0, 0.1, 0), None);
        assert_eq!(t_interval(1.0, f64::NAN, 3), None);
    }

    #[test]
    fn medians() {
        assert_eq!(median_in_place(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median_in_place(&mut [4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median_in_place(&mut []), None);
        assert_eq!(median_in_place(&mut [1.0, f64::NAN]), None);
    }

    /// The median of 1..=9 is 5; its bootstrap interval lies within the
    /// samples' range and holds it, and is the same on a second call (the
    /// seed); one sample has none.
    #[test]
    fn the_median_bootstrap_brackets_the_median() {
        let v: Vec<f64> = (1..=9).map(f64::from).collect();
        let [lo, hi] = median_bootstrap(&v).unwrap();
        assert!(
            (1.0..=5.0).contains(&lo) && (5.0..=9.0).contains(&hi),
            "{lo} {hi}"
        );
        assert_eq!(median_bootstrap(&v), Some([lo, hi]));
        assert_eq!(median_bootstrap(&[3.0]), None);
    }
}
