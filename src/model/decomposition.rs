//! Krumme & Greenfield's six communication times E, R, S, F, U, A.
//!
//! Source: D. W. Krumme and M. Greenfield, "Communication Timing on the NCUBE
//! Multiprocessor", Tufts TR 88-1 (1988), section 2 (definitions), section 3
//! (experiments and the order of solution), section 4 (Tables 1 and 3) and
//! Appendix B (the analysis program). All times here are in nanoseconds.
//!
//! Parameters, each for one message of `n` bytes between neighbours:
//! * `F` (format): sender's time from before the write call until the message is
//!   copied into a system buffer and ready to go;
//! * `S` (send): computation time the sender loses while the message goes out
//!   (interrupts, DMA contention, cleanup);
//! * `R` (receive): computation time the receiver loses until the message sits in a
//!   system buffer;
//! * `A` (accept): the part of the read call that can run before the message arrives;
//! * `U` (unformat): the rest of the read call (copy to the user, free the buffer, return);
//! * `E` (elapsed): time across processors from the end of `F` on the sender to the
//!   message lying in the receiver's system buffer; added once per hop.
//!
//! Experiments (section 3), with `Q` a fixed computation and `X` a fixed delay on the
//! echoing node, and what each measures:
//! * echo at distance `d` (3.2): `T_d = 2F + 2dE + 2U + X`, so
//!   `E = (T_{d+1} − T_d) / 2`, averaged over `d` (Appendix B divides the sum of the four
//!   differences by 8), i.e. `E = (T_D − T_1) / (2 (D − 1))` for distances `1..=D`;
//! * long `Q` during which an echoed message arrives (3.3): excess time `= R`;
//! * timed read of a message that has already arrived (3.4, first): `A + U`;
//! * timed write followed by `Q`, less `Q`'s own time (3.4, second): `F + S`;
//! * long `Q` while a message is forwarded through the node (3.4, third): `R + S`;
//! * write, then an early read while the neighbour echoes, less `X` (3.4, fourth):
//!   `2 (F + E + U)`.
//!
//! Solved in the paper's order (section 3.5, Appendix B), one new unknown per step:
//! `E`, `R`, `S = (R + S) − R`, `F = (F + S) − S`, `U = 2(F + E + U)/2 − E − F`,
//! `A = (A + U) − U`. Errors accumulate along this chain, as the paper warns.
//! Each parameter is then fitted against the message size as `X0 + X1 n` (Table 3).
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::fit::{FitError, LineFit, fit_line};

/// Mean times of the experiments of section 3 for one message size, in ns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentTimes {
    /// Message size `n`, in bytes.
    pub size_bytes: f64,
    /// Echo times `T_d` for distances `d = 1, 2, …` hops in order (`echo_ns[0]` is
    /// `d = 1`); `T_d = 2F + 2dE + 2U + X` (section 3.2). At least two distances.
    pub echo_ns: Vec<f64>,
    /// Excess time of a long `Q` while an echoed message is received: `R` (section 3.3).
    pub r_ns: f64,
    /// Timed read of a message already held by the operating system: `A + U` (section 3.4).
    pub a_plus_u_ns: f64,
    /// Timed write followed by `Q`, less the time of `Q` alone: `F + S` (section 3.4).
    pub f_plus_s_ns: f64,
    /// Excess time of a long `Q` while a message is forwarded through the node:
    /// `R + S` (section 3.4).
    pub r_plus_s_ns: f64,
    /// Write, `Q`, then a read issued before the neighbour echoes the message, less the
    /// neighbour's delay `X`: `2 (F + E + U)` (section 3.4).
    pub twice_f_e_u_ns: f64,
}

/// The six times of section 2 for one message size, in ns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameters {
    /// Message size `n`, in bytes.
    pub size_bytes: f64,
    /// Elapsed transfer time per hop `E`.
    pub e_ns: f64,
    /// Receiver's lost computation time `R`.
    pub r_ns: f64,
    /// Sender's lost computation time `S`.
    pub s_ns: f64,
    /// Format time `F` of the write call.
    pub f_ns: f64,
    /// Unformat time `U` of the read call.
    pub u_ns: f64,
    /// Accept time `A` of the read call.
    pub a_ns: f64,
}

/// Each parameter as a line `X0 + X1 n` in the message size (Table 3): `intercept` in
/// ns, `slope` in ns per byte.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParameterLines {
    /// `E0 + E1 n`.
    pub e: LineFit,
    /// `R0 + R1 n`.
    pub r: LineFit,
    /// `S0 + S1 n`.
    pub s: LineFit,
    /// `F0 + F1 n`.
    pub f: LineFit,
    /// `U0 + U1 n`.
    pub u: LineFit,
    /// `A0 + A1 n`.
    pub a: LineFit,
}

/// Why the parameters could not be obtained.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DecompositionError {
    /// Fewer than two echo distances, so `E` cannot be separated.
    #[error(
        "E needs echo times at two or more distances but got {got}: echo at distances 1, 2, … hops"
    )]
    TooFewEchoDistances {
        /// Number of echo times given.
        got: usize,
    },
    /// A measured time or the size is NaN or infinite.
    #[error("{field} is NaN or infinite: re-measure it")]
    NonFinite {
        /// Name of the offending field.
        field: &'static str,
    },
    /// A line against message size could not be fitted.
    #[error("fitting a parameter against message size failed: {0}")]
    Fit(#[from] FitError),
}

/// Solves `E, R, S, F, U, A` from one size's experiment times, in the paper's order.
pub fn solve(times: &ExperimentTimes) -> Result<Parameters, DecompositionError> {
    let scalars = [
        ("size_bytes", times.size_bytes),
        ("r_ns", times.r_ns),
        ("a_plus_u_ns", times.a_plus_u_ns),
        ("f_plus_s_ns", times.f_plus_s_ns),
        ("r_plus_s_ns", times.r_plus_s_ns),
        ("twice_f_e_u_ns", times.twice_f_e_u_ns),
    ];
    if let Some((field, _)) = scalars.iter().find(|(_, v)| !v.is_finite()) {
        return Err(DecompositionError::NonFinite { field });
    }
    if times.echo_ns.iter().any(|v| !v.is_finite()) {
        return Err(DecompositionError::NonFinite { field: "echo_ns" });
    }
    let steps = times.echo_ns.len().saturating_sub(1);
    if steps == 0 {
        return Err(DecompositionError::TooFewEchoDistances {
            got: times.echo_ns.len(),
        });
    }
    let half_differences: f64 = times.echo_ns.windows(2).map(|w| (w[1] - w[0]) / 2.0).sum();
    let e_ns = half_differences / steps as f64;
    let r_ns = times.r_ns;
    let s_ns = times.r_plus_s_ns - r_ns;
    let f_ns = times.f_plus_s_ns - s_ns;
    let u_ns = times.twice_f_e_u_ns / 2.0 - e_ns - f_ns;
    let a_ns = times.a_plus_u_ns - u_ns;
    Ok(Parameters {
        size_bytes: times.size_bytes,
        e_ns,
        r_ns,
        s_ns,
        f_ns,
        u_ns,
        a_ns,
    })
}

/// Fits each parameter against the message size as `X0 + X1 n` (section 3.5, Table 3).
pub fn fit_lines(parameters: &[Parameters]) -> Result<ParameterLines, DecompositionError> {
    let sizes: Vec<f64> = parameters.iter().map(|p| p.size_bytes).collect();
    let line = |value: fn(&Parameters) -> f64| {
        let values: Vec<f64> = parameters.iter().map(value).collect();
        fit_line(&sizes, &values)
    };
    Ok(ParameterLines {
        e: line(|p| p.e_ns)?,
        r: line(|p| p.r_ns)?,
        s: line(|p| p.s_ns)?,
        f: line(|p| p.f_ns)?,
        u: line(|p| p.u_ns)?,
        a: line(|p| p.a_ns)?,
    })
}

/// Table 1 (integer Q), µs: rows 16, 500, 1000, 1500 and 2000 bytes, columns
/// E R S F U A; for the tests here and the kernel's.
#[cfg(test)]
pub(crate) const TABLE_1_US: [[f64; 6]; 5] = [
    [242.0, 178.0, 152.0, 169.0, 137.0, 122.0],
    [864.0, 200.0, 157.0, 465.0, 429.0, 124.0],
    [1506.0, 219.0, 167.0, 762.0, 748.0, 111.0],
    [2149.0, 249.0, 167.0, 1036.0, 1072.0, 97.0],
    [2792.0, 261.0, 175.0, 1372.0, 1343.0, 126.0],
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Forward model of section 3: the experiment times that parameters `p` produce,
    /// with echoes at distances 1..=5 and an echo delay `x_ns`.
    fn experiments(p: &Parameters, x_ns: f64) -> ExperimentTimes {
        ExperimentTimes {
            size_bytes: p.size_bytes,
            echo_ns: (1..=5)
                .map(|d| 2.0 * p.f_ns + 2.0 * f64::from(d) * p.e_ns + 2.0 * p.u_ns + x_ns)
                .collect(),
            r_ns: p.r_ns,
            a_plus_u_ns: p.a_ns + p.u_ns,
            f_plus_s_ns: p.f_ns + p.s_ns,
            r_plus_s_ns: p.r_ns + p.s_ns,
            twice_f_e_u_ns: 2.0 * (p.f_ns + p.e_ns + p.u_ns),
        }
    }

    const SIZES: [f64; 5] = [16.0, 500.0, 1000.0, 1500.0, 2000.0];

    fn table_1() -> Vec<Parameters> {
        SIZES
            .iter()
            .zip(TABLE_1_US)
            .map(|(&size_bytes, [e, r, s, f, u, a])| Parameters {
                size_bytes,
                e_ns: e * 1e3,
                r_ns: r * 1e3,
                s_ns: s * 1e3,
                f_ns: f * 1e3,
                u_ns: u * 1e3,
                a_ns: a * 1e3,
            })
            .collect()
    }

    /// Distinct parameters (one size of Table 1, 1000 bytes) built forward into
    /// experiment times and solved back. A wrong step (E not halved, S taken from
    /// F + S, U without the halving of 2(F + E + U)) would change at least one value by
    /// hundreds of µs.
    #[test]
    fn solve_inverts_the_experiments() {
        let known = table_1()[2].clone();
        let solved = solve(&experiments(&known, 5_000_000.0)).unwrap();
        for (got, want) in [
            (solved.e_ns, 1_506_000.0),
            (solved.r_ns, 219_000.0),
            (solved.s_ns, 167_000.0),
            (solved.f_ns, 762_000.0),
            (solved.u_ns, 748_000.0),
            (solved.a_ns, 111_000.0),
        ] {
            assert!((got - want).abs() < 1e-6, "{got} vs {want}");
        }
        assert_eq!(solved.size_bytes, 1000.0);
    }

    /// A clock whose every read costs `c` puts `c` into each figure timed
    /// directly (the echoes, `A + U`, the write call of `F + S`, test 6) and none
    /// into the differences of timed polls (`R`, `R + S`, the `S` of `F + S`).
    /// Solved in the paper's order that is `F + c`, `U − c/2` and `A + 3c/2`,
    /// with `E`, `R` and `S` untouched: by hand, `U = T6/2 − F − E` takes half of
    /// test 6's `c` less all of `F`'s, and `A = (A + U) − U` gets `c + c/2`. The
    /// decomposition kernel subtracts the clock's read overhead for this reason: at
    /// 17 ns a read it would add 26 ns to an `A` of about 20.
    #[test]
    fn a_clock_read_in_each_timed_figure_goes_into_f_u_and_a() {
        let c = 17.0;
        let known = Parameters {
            size_bytes: 500.0,
            e_ns: 390.0,
            r_ns: 270.0,
            s_ns: 190.0,
            f_ns: 30.0,
            u_ns: 25.0,
            a_ns: 20.0,
        };
        let mut times = experiments(&known, 0.0);
        for t in &mut times.echo_ns {
            *t += c;
        }
        times.a_plus_u_ns += c;
        times.f_plus_s_ns += c;
        times.twice_f_e_u_ns += c;
        let solved = solve(&times).unwrap();
        for (got, want) in [
            (solved.e_ns, 390.0),
            (solved.r_ns, 270.0),
            (solved.s_ns, 190.0),
            (solved.f_ns, 30.0 + c),
            (solved.u_ns, 25.0 - c / 2.0),
            (solved.a_ns, 20.0 + 1.5 * c),
        ] {
            assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        }
    }

    /// Section 3.2 with uneven echo steps: T = 10, 30, 36, 60 µs give half-differences
    /// 10, 3, 12 µs, mean E = 25/3 µs = (60 − 10)/(2·3), as Appendix B's sum/8 does for five
    /// distances.
    #[test]
    fn e_is_the_mean_half_difference() {
        let mut times = experiments(&table_1()[0], 0.0);
        times.echo_ns = vec![10_000.0, 30_000.0, 36_000.0, 60_000.0];
        let solved = solve(&times).unwrap();
        assert!((solved.e_ns - 25_000.0 / 3.0).abs() < 1e-9);
    }

    /// Table 1 solved values fitted against size must reproduce Table 3:
    /// E = 220 + 1.285n, R = 180 + .04n, S = 150 + .01n, F = 160 + .60n,
    /// U = 130 + .61n, A = 120 + 0.0n (µs). The fit gives intercepts 221.3, 178.0, 152.3,
    /// 159.6, 128.9, 119.8 µs, which the paper rounds to two significant figures (the
    /// nearest 10 µs), and slopes 1.28523, 0.0433, 0.0113, 0.5992, 0.6149, −0.0038 µs/B,
    /// rounded to the printed decimals. The paper gives no raw experiment times, so the
    /// table is built forward into experiments and goes through `solve` first.
    #[test]
    fn paper_table_1_gives_table_3() {
        let solved: Vec<Parameters> = table_1()
            .iter()
            .map(|p| solve(&experiments(p, 1_000_000.0)).unwrap())
            .collect();
        let lines = fit_lines(&solved).unwrap();
        let printed = [
            ("E", &lines.e, 220.0, 1.285, 3),
            ("R", &lines.r, 180.0, 0.04, 2),
            ("S", &lines.s, 150.0, 0.01, 2),
            ("F", &lines.f, 160.0, 0.60, 2),
            ("U", &lines.u, 130.0, 0.61, 2),
            ("A", &lines.a, 120.0, 0.0, 1),
        ];
        for (name, line, x0_us, x1_us, decimals) in printed {
            let intercept_us = line.intercept / 1e3;
            let slope_us = line.slope / 1e3;
            let scale = 10f64.powi(decimals);
            assert_eq!(
                (intercept_us / 10.0).round() * 10.0,
                x0_us,
                "{name}0 = {intercept_us}"
            );
            assert_eq!(
                (slope_us * scale).round() / scale,
                x1_us,
                "{name}1 = {slope_us}"
            );
            assert!(
                (intercept_us - x0_us).abs() < 3.0,
                "{name}0 = {intercept_us}"
            );
        }
        assert!((lines.e.intercept / 1e3 - 221.26).abs() < 0.01);
        assert!((lines.e.slope / 1e3 - 1.28523).abs() < 1e-5);
        // Section 6: "Only E, F, and U depend significantly on message size."
        for line in [&lines.e, &lines.f, &lines.u] {
            assert!(line.r2 > 0.999);
        }
        assert!(lines.a.r2 < 0.1);
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut times = experiments(&table_1()[0], 0.0);
        times.echo_ns.truncate(1);
        assert_eq!(
            solve(&times),
            Err(DecompositionError::TooFewEchoDistances { got: 1 })
        );
        times.echo_ns = vec![1.0, f64::NAN];
        assert_eq!(
            solve(&times),
            Err(DecompositionError::NonFinite { field: "echo_ns" })
        );
        times.r_plus_s_ns = f64::INFINITY;
        assert_eq!(
            solve(&times),
            Err(DecompositionError::NonFinite {
                field: "r_plus_s_ns"
            })
        );
        assert_eq!(
            fit_lines(&table_1()[..1]),
            Err(DecompositionError::Fit(FitError::TooFewPoints {
                needed: 2,
                got: 1
            }))
        );
    }
}
