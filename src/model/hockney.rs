//! Hockney's two-parameter timing model `(r_inf, n_1/2)` and its MIMD form `(r_inf, s_1/2)`.
//!
//! Source: R. W. Hockney, "(r_inf, n_1/2, s_1/2) measurements on the 2-CPU Cray X-MP",
//! section 2, equations (1)-(3) and (7)-(13), and section 3 (Tables I and II).
//!
//! The time for an operation on `n` units of work (vector length, flop, bytes, …) is
//!
//! * eq. (1): `t = (n + n_half) / r_inf`, equivalently
//! * eq. (2): `t = t0 + n / r_inf` with `t0 = n_half / r_inf`,
//!
//! so a least-squares line `t = intercept + slope · n` gives `r_inf = 1 / slope`,
//! `t0 = intercept` and `n_half = t0 · r_inf = intercept / slope` (the negative of the
//! line's intercept with the `n` axis, as in section 3.1).
//! The average rate is eq. (3): `r = n / t = r_inf / (1 + n_half / n)`.
//!
//! For work split between processors (eqs. (7), (10a), (10b)) the same line in the
//! grain size `s` gives the synchronisation overhead `s_half = t0 · r_inf`, the
//! amount of work that could have been done during the overhead, and the
//! specific performance `pi0 = 1 / t0 = r_inf / s_half` (eq. (13)). The fields of
//! [`HockneyFit`] are named after the vector case; read `n_half` as `s_half` then.
//!
//! Fraction of `r_inf` (derived from eq. (3)): `r / r_inf = n / (n + n_half)`, so the
//! length reaching a fraction `f` is `n_f = n_half · f / (1 − f)`; `f = 1/2` gives
//! `n_half`, and `n = 10 n_half` gives `10/11 ≈ 91 %`, the paper's "ten times
//! n_1/2 is required to reach 91 % of the maximum".
//!
//! Units: `n` in the caller's unit of work ("units", e.g. flop), times in nanoseconds.
//! Then `r_inf_per_ns` is in units/ns (flop/ns = Gflop/s), `n_half` in units, `t0_ns`
//! in ns, `pi0_per_ns` in 1/ns; [`HockneyFit::r_inf_per_s`] and
//! [`HockneyFit::pi0_per_s`] convert to per second.
#![forbid(unsafe_code)]

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::fit::{FitError, LineFit, fit_line};

/// Nanoseconds per second.
const NS_PER_S: f64 = 1e9;

/// Hockney's parameters from a straight-line fit of time against work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HockneyFit {
    /// Asymptotic rate `r_inf = 1 / slope`, in units of work per ns.
    pub r_inf_per_ns: f64,
    /// Half-performance length `n_half = t0 · r_inf` (`s_half` for a grain-size fit), in units of work.
    pub n_half: f64,
    /// Startup (or synchronisation) time `t0`, the line's intercept, in ns.
    pub t0_ns: f64,
    /// Specific performance `pi0 = 1 / t0`, per ns.
    pub pi0_per_ns: f64,
    /// Coefficient of determination of the line.
    pub r2: f64,
    /// The fitted line `t_ns = t0_ns + n / r_inf_per_ns`.
    pub line: LineFit,
}

/// Why Hockney's parameters could not be obtained.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum HockneyError {
    /// The straight-line fit itself failed.
    #[error("straight-line fit of time against work failed: {0}")]
    Fit(#[from] FitError),
    /// Time does not grow with work, so `r_inf` would be infinite or negative.
    #[error(
        "fitted time per unit of work is {slope_ns} ns, not positive: measure over a wider range of sizes or with more repetitions"
    )]
    NonPositiveSlope {
        /// The fitted slope, ns per unit of work.
        slope_ns: f64,
    },
    /// The line's intercept is not positive, so `n_half` and `pi0` are meaningless.
    #[error(
        "fitted startup time t0 is {t0_ns} ns, not positive: include smaller sizes or take the minimum of more repetitions"
    )]
    NonPositiveStartup {
        /// The fitted intercept, ns.
        t0_ns: f64,
    },
    /// A fraction of `r_inf` outside the open interval (0, 1) was asked for.
    #[error("fraction of r_inf must lie strictly between 0 and 1, got {fraction}")]
    FractionOutOfRange {
        /// The fraction asked for.
        fraction: f64,
    },
}

impl HockneyFit {
    /// Reads Hockney's parameters off a line `t_ns = intercept + slope · n` (eq. (2)).
    pub fn from_line(line: LineFit) -> Result<Self, HockneyError> {
        if line.slope <= 0.0 {
            return Err(HockneyError::NonPositiveSlope {
                slope_ns: line.slope,
            });
        }
        if line.intercept <= 0.0 {
            return Err(HockneyError::NonPositiveStartup {
                t0_ns: line.intercept,
            });
        }
        let r_inf_per_ns = 1.0 / line.slope;
        Ok(Self {
            r_inf_per_ns,
            n_half: line.intercept * r_inf_per_ns,
            t0_ns: line.intercept,
            pi0_per_ns: 1.0 / line.intercept,
            r2: line.r2,
            line,
        })
    }

    /// `r_inf` in units of work per second (flop/s when the work is counted in flop).
    pub fn r_inf_per_s(&self) -> f64 {
        self.r_inf_per_ns * NS_PER_S
    }

    /// Specific performance `pi0 = 1 / t0`, per second (eq. (13)).
    pub fn pi0_per_s(&self) -> f64 {
        self.pi0_per_ns * NS_PER_S
    }

    /// Average rate at length `n`, eq. (3): `r = r_inf / (1 + n_half / n)`, in units per ns.
    pub fn rate_per_ns(&self, n: f64) -> f64 {
        self.r_inf_per_ns * fraction_of_r_inf(self.n_half, n)
    }

    /// Length (or grain) needed to reach the fraction `f` of `r_inf`: `n_half · f / (1 − f)`.
    pub fn length_for_fraction(&self, fraction: f64) -> Result<f64, HockneyError> {
        length_for_fraction(self.n_half, fraction)
    }
}

/// Fits `t_ns = t0 + n / r_inf` to measured times (Hockney, section 3.1).
///
/// `n`: work per measurement (vector length, flop, grain size); `t_ns`: its time in ns,
/// typically the minimum over repetitions as in the paper.
pub fn fit_hockney(n: &[f64], t_ns: &[f64]) -> Result<HockneyFit, HockneyError> {
    HockneyFit::from_line(fit_line(n, t_ns)?)
}

/// Fraction of `r_inf` reached at length `n`, from eq. (3): `n / (n + half)`.
pub fn fraction_of_r_inf(half: f64, n: f64) -> f64 {
    n / (n + half)
}

/// Length reaching the fraction `f` of `r_inf`, eq. (3) solved for `n`: `half · f / (1 − f)`.
///
/// `half` is `n_half` (vector length) or `s_half` (grain size); `f` must lie in (0, 1).
pub fn length_for_fraction(half: f64, fraction: f64) -> Result<f64, HockneyError> {
    if !(fraction > 0.0 && fraction < 1.0) {
        return Err(HockneyError::FractionOutOfRange { fraction });
    }
    Ok(half * fraction / (1.0 - fraction))
}

/// The largest share of a short segment's time that its work at `r_inf` may be
/// for the segment to give `t0` in [`fit_split`].
pub const NEAR_ZERO_WORK: f64 = 0.1;

/// Hockney's MIMD parameters taken apart: `r_inf` from long segments, `t0` from
/// short ones (see [`fit_split`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitFit {
    /// `r_inf`, units of work per ns: the slope of the long segments' line.
    pub r_inf_per_ns: f64,
    /// `t0`, ns: the shortest segments' time less their work at `r_inf`.
    pub t0_ns: f64,
    /// `s_half = t0 r_inf`, units of work (eq. 13).
    pub s_half: f64,
}

impl SplitFit {
    /// The three estimates in the order `[r_inf_per_ns, t0_ns, s_half]`.
    pub fn to_array(self) -> [f64; 3] {
        [self.r_inf_per_ns, self.t0_ns, self.s_half]
    }
}

/// `(r_inf, t0, s_half)` of eq. (10b) with each parameter taken where it
/// dominates, so that one noisy line does not decide both.
///
/// `long`: `(s, t)` of segments far beyond `s_half` (their time is mostly work):
/// `r_inf = 1 / slope` of their least-squares line, which does not depend on `t0`
/// at all as long as `t0` is the same for all of them. `short`: `(s, t)` of
/// segments below `s_half`: `t0 = median_i (t_i - s_i / r_inf)` over those whose
/// work at `r_inf` is at most [`NEAR_ZERO_WORK`] of their time (the shortest
/// always), where what `r_inf` gets wrong is a small part of a small work term.
/// Over all the short segments it need not be small: where they reach past
/// `s_half`, their work is several times `t0`, and a rate a few per cent off
/// (long segments from L2, short ones from L1) takes `t0` towards zero. A single line through both would instead let the
/// scatter of the overhead-dominated points tilt the slope, and the slope then
/// moves `t0` and `s_half = t0 r_inf` with it.
pub fn fit_split(short: &[(f64, f64)], long: &[(f64, f64)]) -> Result<SplitFit, HockneyError> {
    fit_split_drawing(short, long_slope(long)?, None)
}

/// Where a split fit takes `r_inf` from.
#[derive(Debug, Clone, Copy)]
pub enum RateFrom<'a> {
    /// The slope of the long segments' line, which is the work's as long as
    /// their overhead is the same for all of them.
    LongLine,
    /// A rate measured beside the segments, one sample per round (units of
    /// work per ns): `r_inf` is its median over the rounds, and the long
    /// segments are not fitted. For a method whose long segments' overheads
    /// differ (a lock whose waiter sleeps at some long grains and not at
    /// others), where no line through them has the work's slope.
    Probe(&'a [f64]),
}

/// The slope (ns per unit of work) of the long segments' least-squares line.
fn long_slope(long: &[(f64, f64)]) -> Result<f64, HockneyError> {
    let (x, y): (Vec<f64>, Vec<f64>) = long.iter().copied().unzip();
    let line = fit_line(&x, &y)?;
    if line.slope <= 0.0 || !line.slope.is_finite() {
        return Err(HockneyError::NonPositiveSlope {
            slope_ns: line.slope,
        });
    }
    Ok(line.slope)
}

/// Mixed into the bootstrap's seed for the draws of the near-zero segments.
const GRAIN_DRAWS: u64 = 0x9E37_79B9_7F4A_7C15;

/// `t0` from the short segments at a known `slope` (ns per unit of work),
/// with `t0` the median over a resample (with replacement, drawn from
/// `draw`) of the near-zero segments' overheads where `draw` is given: the
/// grains' level of a bootstrap.
fn fit_split_drawing(
    short: &[(f64, f64)],
    slope: f64,
    draw: Option<&mut Xoshiro256PlusPlus>,
) -> Result<SplitFit, HockneyError> {
    let shortest = short.iter().map(|(s, _)| *s).fold(f64::INFINITY, f64::min);
    let mut overhead: Vec<f64> = short
        .iter()
        .filter(|&&(s, t)| s == shortest || s * slope <= NEAR_ZERO_WORK * t)
        .map(|(s, t)| t - s * slope)
        .collect();
    if let Some(rng) = draw {
        let drawn: Vec<f64> = (0..overhead.len())
            .map(|_| overhead[rng.random_range(0..overhead.len())])
            .collect();
        overhead = drawn;
    }
    let t0_ns = super::interval::median_in_place(&mut overhead).ok_or(HockneyError::Fit(
        FitError::TooFewPoints {
            needed: 1,
            got: short.len(),
        },
    ))?;
    if t0_ns <= 0.0 {
        return Err(HockneyError::NonPositiveStartup { t0_ns });
    }
    let r_inf_per_ns = 1.0 / slope;
    Ok(SplitFit {
        r_inf_per_ns,
        t0_ns,
        s_half: t0_ns * r_inf_per_ns,
    })
}

/// [`fit_split`] on interleaved rounds: `grains[i]` was timed once per round,
/// `times[i][r]` in round `r`; the first `short` grains are the short segments,
/// the others the long ones. Each grain's time is its median over the rounds in
/// `rounds` (indices, repeats allowed: a bootstrap resample) whose time is a
/// number (NaN leaves a round out of a grain; a short grain left with none
/// is skipped while another short grain remains, a long one fails the
/// fit), and `r_inf` comes from `rate` (a probe's median over the same rounds).
pub fn fit_split_rounds(
    grains: &[f64],
    times: &[Vec<f64>],
    short: usize,
    rate: RateFrom<'_>,
    rounds: &[usize],
) -> Result<SplitFit, HockneyError> {
    fit_split_rounds_drawing(grains, times, short, rate, rounds, None)
}

/// [`fit_split_rounds`], drawing the near-zero segments as
/// [`fit_split_drawing`] does.
fn fit_split_rounds_drawing(
    grains: &[f64],
    times: &[Vec<f64>],
    short: usize,
    rate: RateFrom<'_>,
    rounds: &[usize],
    draw: Option<&mut Xoshiro256PlusPlus>,
) -> Result<SplitFit, HockneyError> {
    let mut buf = Vec::with_capacity(rounds.len());
    let mut median_over_rounds = |t: &[f64]| {
        buf.clear();
        // A round that is not a number was left out of that grain (a
        // hand-over that slept, where the fit takes those that did not).
        buf.extend(
            rounds
                .iter()
                .filter_map(|&r| t.get(r))
                .filter(|v| v.is_finite()),
        );
        super::interval::median_in_place(&mut buf)
    };
    // Every long grain and one short grain at least need a time; a short
    // grain whose rounds were all left out of this resample is skipped.
    let short = short.min(grains.len());
    let mut points = Vec::with_capacity(grains.len());
    let mut skipped = 0;
    for (i, (&s, t)) in grains.iter().zip(times).enumerate() {
        match median_over_rounds(t) {
            Some(m) => points.push((s, m)),
            None if i < short && skipped + 1 < short => skipped += 1,
            None => {
                return Err(HockneyError::Fit(FitError::TooFewPoints {
                    needed: grains.len(),
                    got: points.len(),
                }));
            }
        }
    }
    let (a, b) = points.split_at(short - skipped);
    let slope = match rate {
        RateFrom::LongLine => long_slope(b)?,
        RateFrom::Probe(r) => {
            let rate = median_over_rounds(r).unwrap_or(f64::NAN);
            match rate > 0.0 && rate.is_finite() {
                true => 1.0 / rate,
                false => {
                    return Err(HockneyError::NonPositiveSlope {
                        slope_ns: 1.0 / rate,
                    });
                }
            }
        }
    };
    fit_split_drawing(a, slope, draw)
}

/// The 95 % intervals of `[r_inf_per_ns, t0_ns, s_half]`, where the data give them.
pub type SplitIntervals = [Option<[f64; 2]>; 3];

/// [`fit_split_rounds`] over every round that every grain has: the point
/// estimate, without a resample.
pub fn fit_split_all_rounds(
    grains: &[f64],
    times: &[Vec<f64>],
    short: usize,
    rate: RateFrom<'_>,
) -> Result<SplitFit, HockneyError> {
    let rounds = times.iter().map(Vec::len).min().unwrap_or(0);
    let all: Vec<usize> = (0..rounds).collect();
    fit_split_rounds(grains, times, short, rate, &all)
}

/// [`fit_split_rounds`] over every round, with percentile-bootstrap 95 %
/// intervals over the rounds (resampled whole, [`super::interval::bootstrap`])
/// and, within each resample, over the near-zero segments whose overheads
/// give `t0` (drawn again with replacement), for `[r_inf_per_ns, t0_ns,
/// s_half]`. A spinning hand-over takes one of two modes at each near-zero
/// grain (spin-hint's 16- and 64-flop segments 77 and 78 ns, its 32- and
/// 48-flop ones 63, in one run on a 2-vCPU EPYC VM): the rounds agree on
/// each, and only the grains show how far `t0` is known.
pub fn fit_split_with_intervals(
    grains: &[f64],
    times: &[Vec<f64>],
    short: usize,
    rate: RateFrom<'_>,
) -> Result<(SplitFit, SplitIntervals), HockneyError> {
    let rounds = times.iter().map(Vec::len).min().unwrap_or(0);
    let fit = fit_split_all_rounds(grains, times, short, rate)?;
    // The near-zero segments are drawn again in every resample: each is an
    // estimate of t0, and where they disagree (a spinning hand-over's two
    // modes) the interval says so.
    let mut draw = Xoshiro256PlusPlus::seed_from_u64(super::interval::SEED ^ GRAIN_DRAWS);
    let ci = super::interval::bootstrap(
        rounds,
        3,
        super::interval::RESAMPLES,
        super::interval::SEED,
        |idx| {
            fit_split_rounds_drawing(grains, times, short, rate, idx, Some(&mut draw))
                .ok()
                .map(|f| f.to_array().to_vec())
        },
    );
    Ok((fit, [ci[0], ci[1], ci[2]]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_distr::{Distribution, Normal};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Exact fit through two points of `t = (n + n_half) / r_inf` with `r_inf` in Mflop/s
    /// and times in ns (1 Mflop/s = 1e-3 flop/ns).
    fn from_mflops(r_inf_mflops: f64, n_half: f64) -> HockneyFit {
        let t_ns = |n: f64| (n + n_half) / (r_inf_mflops * 1e-3);
        fit_hockney(&[0.0, 400.0], &[t_ns(0.0), t_ns(400.0)]).unwrap()
    }

    /// Range of a quantity over the four corners of two printed values `a ± da`, `b ± db`.
    fn corner_range(a: f64, da: f64, b: f64, db: f64, f: impl Fn(f64, f64) -> f64) -> (f64, f64) {
        let v = [
            f(a - da, b - db),
            f(a - da, b + db),
            f(a + da, b - db),
            f(a + da, b + db),
        ];
        (
            v.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }

    /// Eq. (11): `t = 45 + 3.2 s / 400 µs` (TASKS). Slope 3.2/400 µs = 8 ns per flop, so
    /// r_inf = 1/8 flop/ns = 125 Mflop/s; s_half = 45 000 ns · 0.125 = 5625 flop;
    /// pi0 = 1/45 µs = 22.2 k/s (Table II prints 22).
    #[test]
    fn paper_eq_11_tasks_line() {
        let fit = fit_hockney(&[0.0, 400.0], &[45_000.0, 48_200.0]).unwrap();
        assert!((fit.r_inf_per_s() - 125e6).abs() < 1e-3);
        assert!((fit.n_half - 5625.0).abs() < 1e-9);
        assert!((fit.t0_ns - 45_000.0).abs() < 1e-9);
        assert_eq!((fit.pi0_per_s() / 1e3).round(), 22.0);
        // Table II prints r_inf = 130 Mflop/s, "rounded to two significant figures".
        assert_eq!((fit.r_inf_per_s() / 1e7).round() * 10.0, 130.0);
    }

    /// Table II prints s_half = 5700 flop for TASKS, while eq. (11) read literally gives
    /// 5625 (which rounds to 5600). Eq. (11) is itself rounded (45 ± 0.5 µs, 3.2 ± 0.05 µs
    /// per 400 flop): over that rounding s_half spans 44.5·400/3.25 = 5477 to
    /// 45.5·400/3.15 = 5778 flop, which contains 5700 ± 50. So the paper is consistent;
    /// its table was computed from the unrounded fit.
    #[test]
    fn paper_table_ii_s_half_within_eq_11_rounding() {
        let (lo, hi) = corner_range(45.0, 0.5, 3.2, 0.05, |t0_us, per400_us| {
            fit_hockney(&[0.0, 400.0], &[t0_us * 1e3, (t0_us + per400_us) * 1e3])
                .unwrap()
                .n_half
        });
        assert!((lo - 5477.0).abs() < 1.0 && (hi - 5778.0).abs() < 1.0);
        assert!(lo <= 5750.0 && hi >= 5650.0);
    }

    /// Table II, pi0 = 1/t0 in k/s from the printed t0 in µs:
    /// 45 → 22.2, 28 → 35.7, 14 → 71.4, 2 → 500, HEP1 490 → 2.04 and 140 → 7.14;
    /// printed 22, 36, 71, 500, (2), (7).
    #[test]
    fn paper_table_ii_pi0_is_inverse_t0() {
        for (t0_us, pi0_k_per_s) in [
            (45.0, 22.0),
            (28.0, 36.0),
            (14.0, 71.0),
            (2.0, 500.0),
            (490.0, 2.0),
            (140.0, 7.0),
        ] {
            let fit = fit_hockney(&[0.0, 1000.0], &[t0_us * 1e3, t0_us * 1e3 + 1e4]).unwrap();
            assert_eq!(
                (fit.pi0_per_s() / 1e3).round(),
                pi0_k_per_s,
                "t0 = {t0_us} µs"
            );
        }
    }

    /// Table I: t0 = n_half / r_inf (µs when r_inf is in Mflop/s). The printed values are
    /// rounded (r_inf and n_half to the unit, t0 to 0.01 µs) and t0 was evidently
    /// computed before rounding: 53/70 = 0.757 and 60/148 = 0.405 are printed 0.75 and
    /// 0.40. So the check is that the range of t0 over the rounding of r_inf and n_half
    /// meets the rounding interval of the printed t0, row by row.
    #[test]
    fn paper_table_i_t0_from_r_inf_and_n_half() {
        let rows = [
            ("dyadic", 70.0, 53.0, 0.75),
            ("dyadic Cray-1", 22.0, 18.0, 0.82),
            ("all vector triad", 107.0, 45.0, 0.42),
            ("Cyber 205 triad", 148.0, 60.0, 0.40),
            ("scalar", 5.0, 4.0, 0.80),
        ];
        for (name, r_inf, n_half, t0_us) in rows {
            let (lo, hi) = corner_range(r_inf, 0.5, n_half, 0.5, |r, n| {
                from_mflops(r, n).t0_ns / 1e3
            });
            assert!(
                lo <= t0_us + 0.005 && hi >= t0_us - 0.005,
                "{name}: {lo}..{hi} vs {t0_us}"
            );
            let mid = from_mflops(r_inf, n_half);
            assert!((mid.n_half - n_half).abs() < 1e-9, "{name}");
            assert!((mid.r_inf_per_s() - r_inf * 1e6).abs() < 1e-3, "{name}");
        }
    }

    /// Section 2: n = n_half gives half of r_inf; ten times n_half gives 10/11 = 91 %;
    /// 91 % needs 0.91/0.09 = 10.1 n_half.
    #[test]
    fn fractions_of_r_inf() {
        let fit = from_mflops(130.0, 5700.0);
        assert!((fit.rate_per_ns(5700.0) - fit.r_inf_per_ns / 2.0).abs() < 1e-15);
        assert_eq!((fraction_of_r_inf(5700.0, 57_000.0) * 100.0).round(), 91.0);
        assert!((fit.length_for_fraction(0.5).unwrap() - 5700.0).abs() < 1e-9);
        let n91 = length_for_fraction(1.0, 0.91).unwrap();
        assert!((n91 - 0.91 / 0.09).abs() < 1e-12 && n91.round() == 10.0);
        for bad in [0.0, 1.0, -0.1, f64::NAN] {
            assert!(matches!(
                length_for_fraction(1.0, bad),
                Err(HockneyError::FractionOutOfRange { .. })
            ));
        }
    }

    /// Dyadic X-MP values (r_inf = 70 Mflop/s = 0.07 flop/ns, n_half = 53 flop, so
    /// t0 = 757 ns), at n = 2, 4, …, 400 as in Fig. 1, with 1 % Gaussian noise (seeded).
    #[test]
    fn synthetic_noisy_data_recovers_parameters() {
        let (r_inf, n_half) = (0.07, 53.0);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1985);
        let noise = Normal::new(0.0, 0.01).unwrap();
        let n: Vec<f64> = (1..=200).map(|i| f64::from(2 * i)).collect();
        let t: Vec<f64> = n
            .iter()
            .map(|&v| (v + n_half) / r_inf * (1.0 + noise.sample(&mut rng)))
            .collect();
        let fit = fit_hockney(&n, &t).unwrap();
        assert!(
            (fit.r_inf_per_ns / r_inf - 1.0).abs() < 0.02,
            "{}",
            fit.r_inf_per_ns
        );
        assert!((fit.n_half / n_half - 1.0).abs() < 0.05, "{}", fit.n_half);
        assert!(fit.r2 > 0.99);
    }

    /// Synthetic interleaved rounds with known `t0 = 300 ns` and `r_inf = 8
    /// flop/ns` (`s_half = 2400 flop`): each round draws a machine state that
    /// scales the overhead (log-normal, sigma 0.15) and the rate (sigma 0.02),
    /// and every time carries 3 % of its own noise. The true values lie inside
    /// the bootstrap intervals in at least 90 % of 200 seeds, and the intervals
    /// are not vacuous (their median width under 40 % of the value).
    #[test]
    fn split_fit_intervals_cover_the_true_values() {
        let (t0, r_inf) = (300.0, 8.0);
        let short: Vec<f64> = (0..10)
            .map(|i| 16.0 + 1184.0 * f64::from(i) / 9.0)
            .collect();
        let grains: Vec<f64> = short
            .iter()
            .copied()
            .chain([19_200.0, 38_400.0, 76_800.0])
            .collect();
        let state = Normal::<f64>::new(0.0, 0.15).unwrap();
        let rate = Normal::<f64>::new(0.0, 0.02).unwrap();
        let own = Normal::new(0.0, 0.03).unwrap();
        let mut covered = [0usize; 3];
        let mut widths: [Vec<f64>; 3] = Default::default();
        let truth = [r_inf, t0, t0 * r_inf];
        for seed in 0..200u64 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut times = vec![Vec::new(); grains.len()];
            for _round in 0..9 {
                let t0_r = t0 * state.sample(&mut rng).exp();
                let r_r = r_inf * rate.sample(&mut rng).exp();
                for (t, s) in times.iter_mut().zip(&grains) {
                    t.push((t0_r + s / r_r) * (1.0 + own.sample(&mut rng)));
                }
            }
            let (_, ci) =
                fit_split_with_intervals(&grains, &times, short.len(), RateFrom::LongLine).unwrap();
            for k in 0..3 {
                let [lo, hi] = ci[k].unwrap();
                covered[k] += usize::from(lo <= truth[k] && truth[k] <= hi);
                widths[k].push((hi - lo) / truth[k]);
            }
        }
        for k in 0..3 {
            assert!(
                covered[k] >= 180,
                "parameter {k}: covered {} of 200",
                covered[k]
            );
            let w = crate::model::interval::median_in_place(&mut widths[k]).unwrap();
            assert!(w < 0.4, "parameter {k}: median relative width {w}");
        }
    }

    /// Short segments at 8 flop/ns past t0 = 120 ns, long ones at a third of
    /// that rate (a slope from noisy long segments, or a slower cache): taking
    /// the work at the long rate off every short segment, 16 to 480 flop, gave
    /// t0 = 120 - s/4 at their median s = 248, 58 ns; only the shortest (16 flop:
    /// 0.375 x 16 = 6 ns of 122 ns is under a tenth) give 122 - 6 = 116 ns.
    #[test]
    fn a_wrong_rate_barely_moves_t0_from_the_shortest_segments() {
        let short: Vec<(f64, f64)> = (0..10)
            .map(|i| 16.0 + 464.0 * f64::from(i) / 9.0)
            .map(|s| (s, 120.0 + s / 8.0))
            .collect();
        let long: Vec<(f64, f64)> = [3e4, 6e4, 1.2e5]
            .iter()
            .map(|&s| (s, 120.0 + s * 3.0 / 8.0))
            .collect();
        let f = fit_split(&short, &long).unwrap();
        assert!((f.r_inf_per_ns - 8.0 / 3.0).abs() < 1e-9);
        assert!((f.t0_ns - 116.0).abs() < 1e-9, "{}", f.t0_ns);
    }

    /// Exact data: the split recovers t0 and r_inf exactly, and a long-segment
    /// line that does not rise is an error.
    #[test]
    fn split_fit_on_exact_data() {
        let t = |s: f64| 250.0 + s / 4.0;
        let short: Vec<(f64, f64)> = [16.0, 64.0, 256.0].iter().map(|&s| (s, t(s))).collect();
        let long: Vec<(f64, f64)> = [1e4, 2e4, 4e4].iter().map(|&s| (s, t(s))).collect();
        let f = fit_split(&short, &long).unwrap();
        assert!((f.r_inf_per_ns - 4.0).abs() < 1e-9 && (f.t0_ns - 250.0).abs() < 1e-9);
        assert!((f.s_half - 1000.0).abs() < 1e-6);
        let flat: Vec<(f64, f64)> = [1e4, 2e4].iter().map(|&s| (s, 5.0)).collect();
        assert!(matches!(
            fit_split(&short, &flat),
            Err(HockneyError::NonPositiveSlope { .. })
        ));
    }

    #[test]
    fn bad_lines_are_errors() {
        assert!(matches!(
            fit_hockney(&[1.0, 2.0], &[5.0, 4.0]),
            Err(HockneyError::NonPositiveSlope { .. })
        ));
        assert!(matches!(
            fit_hockney(&[1.0, 2.0], &[0.0, 1.0]),
            Err(HockneyError::NonPositiveStartup { .. })
        ));
        assert!(matches!(
            fit_hockney(&[1.0], &[1.0]),
            Err(HockneyError::Fit(FitError::TooFewPoints { .. }))
        ));
    }

    /// Three near-zero grains whose rounds agree on each but not with each
    /// other (a spinning hand-over's two modes: 77, 63 and 63 ns at 16, 32
    /// and 48 flop, as in a spin-hint run), and long grains on `t = 60 + s /
    /// 8`: r_inf 8 flop/ns, and overheads of 75, 59 and 57 ns (each time less
    /// 2, 4 and 6 ns of work, all within a tenth of their time), whose median
    /// t0 is 59. A draw of three with replacement has a median of 75 with
    /// probability 7/27 (two or three of the 75) and of 57 as often, so the
    /// 95 % interval is [57, 75]; over the rounds alone it would be [59, 59].
    #[test]
    fn t0_s_interval_covers_the_near_zero_grains_disagreement() {
        let grains = [16.0, 32.0, 48.0, 8000.0, 16000.0, 24000.0];
        let times: Vec<Vec<f64>> = grains
            .iter()
            .map(|&s| {
                let t = match s as u32 {
                    16 => 77.0,
                    32 | 48 => 63.0,
                    _ => 60.0 + s / 8.0,
                };
                vec![t; 9]
            })
            .collect();
        let (fit, [_, t0, _]) =
            fit_split_with_intervals(&grains, &times, 3, RateFrom::LongLine).unwrap();
        assert!((fit.t0_ns - 59.0).abs() < 1e-9, "{}", fit.t0_ns);
        let [lo, hi] = t0.unwrap();
        assert!(
            (lo - 57.0).abs() < 1e-9 && (hi - 75.0).abs() < 1e-9,
            "{lo} {hi}"
        );
    }

    /// A lock whose waiter spins at short grains and sleeps at some long
    /// ones: short segments on `t = 120 + s / 8`, long ones of 40 000,
    /// 100 000 and 160 000 flop with overheads of 5, 30 and 30 µs (the last
    /// two slept). Their line has a slope of 1/8 + 25 000 / 120 000 ns per
    /// flop, an `r_inf` of 3 flop/ns where the work runs at 8. With the rate
    /// probe's rounds (7.9, 8.0 and 8.1 flop/ns, three times over) `r_inf`
    /// is their median, 8, and `t0` is 120 ns less nothing: the 16-flop
    /// segment's 2 ns of work come off at 8 flop/ns. Its interval is the
    /// probe's medians over resampled rounds, inside [7.9, 8.1].
    #[test]
    fn a_probed_rate_replaces_long_segments_that_slept_differently() {
        let grains = [16.0, 32.0, 48.0, 40_000.0, 100_000.0, 160_000.0];
        let times: Vec<Vec<f64>> = grains
            .iter()
            .map(|&s| {
                let overhead = match s as u32 {
                    40_000 => 5_000.0,
                    100_000 | 160_000 => 30_000.0,
                    _ => 120.0,
                };
                vec![overhead + s / 8.0; 9]
            })
            .collect();
        let (line, _) = fit_split_with_intervals(&grains, &times, 3, RateFrom::LongLine).unwrap();
        assert!(
            (line.r_inf_per_ns - 3.0).abs() < 1e-9,
            "{}",
            line.r_inf_per_ns
        );
        let probe = [7.9, 8.0, 8.1, 7.9, 8.0, 8.1, 7.9, 8.0, 8.1];
        let (fit, [r, t0, s_half]) =
            fit_split_with_intervals(&grains, &times, 3, RateFrom::Probe(&probe)).unwrap();
        assert!(
            (fit.r_inf_per_ns - 8.0).abs() < 1e-9,
            "{}",
            fit.r_inf_per_ns
        );
        assert!((fit.t0_ns - 120.0).abs() < 1e-9, "{}", fit.t0_ns);
        assert!((fit.s_half - 960.0).abs() < 1e-9, "{}", fit.s_half);
        let [lo, hi] = r.unwrap();
        assert!(lo >= 7.9 && hi <= 8.1 && lo < hi, "{lo} {hi}");
        // t0 moves with the rate only through the 2 to 6 ns of work.
        let [lo, hi] = t0.unwrap();
        assert!(lo > 119.0 && hi < 121.0, "{lo} {hi}");
        let [lo, hi] = s_half.unwrap();
        assert!(lo > 940.0 && hi < 980.0, "{lo} {hi}");
        // A probe that reads nothing is an error, not a rate.
        assert!(matches!(
            fit_split_with_intervals(&grains, &times, 3, RateFrom::Probe(&[0.0; 9])),
            Err(HockneyError::NonPositiveSlope { .. })
        ));
    }

    /// A short grain whose every round is NaN (left out: its hand-overs
    /// slept) is skipped, the shortest too: grains 16 and 32 flop, the 16's
    /// rounds all left out, the 32's at 100 ns; long grains of 10 000 and
    /// 20 000 flop on `t = 100 + s / 10`: `r_inf` 10 flop/ns and
    /// `t0` the 32-flop grain's 100 - 3.2 = 96.8 ns. With no short grain
    /// left the fit fails.
    #[test]
    fn a_short_grain_left_without_rounds_is_skipped() {
        let grains = [16.0, 32.0, 10_000.0, 20_000.0];
        let mut times = vec![
            vec![f64::NAN; 3],
            vec![100.0; 3],
            vec![1100.0; 3],
            vec![2100.0; 3],
        ];
        let f = fit_split_rounds(&grains, &times, 2, RateFrom::LongLine, &[0, 1, 2]).unwrap();
        assert!((f.t0_ns - 96.8).abs() < 1e-9, "{f:?}");
        assert!((f.r_inf_per_ns - 10.0).abs() < 1e-9);
        times[1] = vec![f64::NAN; 3];
        assert!(fit_split_rounds(&grains, &times, 2, RateFrom::LongLine, &[0, 1, 2]).is_err());
    }
}
