//! A program's time predicted from Hockney's parameters: section 2 of R. W.
//! Hockney, "(r_inf, n_1/2, s_1/2) measurements on the 2-CPU Cray X-MP",
//! equations (4)-(6) and (8)-(9), derived again from the text.
//!
//! * Eq. (4), the vector part: `q_v` vector operations of lengths `n_j`, each
//!   taking eq. (1)'s `(n_j + n_1/2) / r_inf`, sum to
//!   `T_v = (s_v + n_1/2 q_v) / r_inf` with `s_v = sum n_j`; operations whose
//!   `(r_inf, n_1/2)` differ (here: a memory level each) form groups, each
//!   with its own pair.
//! * Eq. (5), the scalar part: `T_s = s / r_inf,s` (scalar `n_1/2` taken as 0).
//! * Eq. (6): `T = T_v + T_s`.
//! * Eq. (8): `q` synchronised segments of `s_i` flop, each by eq. (7)
//!   `(s_i + s_1/2) / r_inf` (`r_inf` the rate of the `P` processors together),
//!   sum to `T = (s + s_1/2 q) / r_inf` with `s = sum s_i`.
//! * Eq. (9), imperfect scheduling: `T = (s / E_p + s_1/2 q) / r_inf`, `E_p`
//!   Kuck's average efficiency; [`balance_efficiency`] gives it for segments
//!   split in whole flop, `s / sum_i P ceil(s_i / P)`.
//! * The fraction of `r_inf` the segments reach (the efficiency printed):
//!   `E = s / (s / E_p + s_1/2 q)`; the mean grain `s/q` that reaches `E` is
//!   `s = E s_1/2 / (1 - E / E_p)` (eq. (12) inverted; `E_p = 1`, `E = 1/2`
//!   gives `s_1/2`, `E = 10/11` gives `10 s_1/2`, the paper's 91 %).
//!
//! Since `s_1/2 = t_0 r_inf`, eq. (9) is `T = s / (E_p r_inf) + q t_0`: the
//! parallel part is computed from `r_inf` and `t_0`, which halfperf measures
//! separately (long grains and short ones), not from `s_1/2`, which is their
//! product; the vector part from `r_inf` and `n_1/2` as the card gives them.
//!
//! Intervals ([`monte_carlo`]): every parameter is drawn from a split normal
//! whose halves reach its 95 % interval's ends at 1.96 sigma, independently
//! (the card keeps no covariances, so a correlation between, say, `r_inf` and
//! `n_1/2` of one fit is ignored), [`DRAWS`] draws from a fixed seed; the
//! interval is the 2.5th and 97.5th percentiles of the drawn times. A
//! parameter without an interval is held at its value.
#![forbid(unsafe_code)]

use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use rand_xoshiro::Xoshiro256PlusPlus;
use thiserror::Error;

/// Draws of the Monte Carlo propagation.
pub const DRAWS: usize = 4000;

/// Its seed: the same card gives the same interval.
pub const SEED: u64 = 0x4b48_0048;

/// Why a program's time cannot be predicted.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ProgramError {
    /// A size, count or rate that must be positive is not.
    #[error("{what} must be positive, got {value}")]
    NotPositive {
        /// What it is.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// A program statement that does not parse.
    #[error("program line {line}: {message}")]
    Syntax {
        /// The line, from 1 (0 for a command-line flag).
        line: usize,
        /// What is wrong, and the form expected.
        message: String,
    },
    /// A target efficiency outside (0, E_p).
    #[error("efficiency {efficiency} must lie strictly between 0 and E_p = {e_p}")]
    Efficiency {
        /// The target.
        efficiency: f64,
        /// The scheduling efficiency bounding it.
        e_p: f64,
    },
}

fn positive(what: &'static str, value: f64) -> Result<f64, ProgramError> {
    match value > 0.0 && value.is_finite() {
        true => Ok(value),
        false => Err(ProgramError::NotPositive { what, value }),
    }
}

/// Eq. (4): `q` vector operations holding `s_v` flop in all, at
/// `(r_inf, n_1/2)`; seconds when `r_inf` is per second.
pub fn vector_time(r_inf: f64, n_half: f64, s_v: f64, q: f64) -> f64 {
    (s_v + n_half * q) / r_inf
}

/// Eq. (5): `s` scalar flop at `r_inf,s`.
pub fn scalar_time(r_inf_s: f64, s: f64) -> f64 {
    s / r_inf_s
}

/// Eq. (9) (eq. (8) when `e_p = 1`): `q` segments holding `s` flop in all.
pub fn segmented_time(r_inf: f64, s_half: f64, s: f64, q: f64, e_p: f64) -> f64 {
    (s / e_p + s_half * q) / r_inf
}

/// The same in the form halfperf measures, `s / (E_p r_inf) + q t_0`.
pub fn segmented_time_t0(r_inf: f64, t0: f64, s: f64, q: f64, e_p: f64) -> f64 {
    s / (e_p * r_inf) + q * t0
}

/// The fraction of `r_inf` that `q` segments of `s` flop in all reach.
pub fn segment_efficiency(s_half: f64, s: f64, q: f64, e_p: f64) -> f64 {
    s / (s / e_p + s_half * q)
}

/// The mean grain per segment that reaches `efficiency` of `r_inf`.
pub fn grain_for_efficiency(s_half: f64, efficiency: f64, e_p: f64) -> Result<f64, ProgramError> {
    positive("s_1/2", s_half)?;
    if !(efficiency > 0.0 && efficiency < e_p && e_p <= 1.0) {
        return Err(ProgramError::Efficiency { efficiency, e_p });
    }
    Ok(efficiency * s_half / (1.0 - efficiency / e_p))
}

/// Kuck's average efficiency of segments of `grains` flop, each split between
/// `parts` processors in whole flop: `sum s_i / sum_i P ceil(s_i / P)`.
pub fn balance_efficiency(grains: &[u64], parts: u64) -> Result<f64, ProgramError> {
    positive("processors", parts as f64)?;
    let mut work = 0u64;
    let mut spent = 0u64;
    for &g in grains {
        positive("a segment's grain", g as f64)?;
        work += g;
        spent += parts * g.div_ceil(parts);
    }
    positive("the segments' total work", work as f64)?;
    Ok(work as f64 / spent as f64)
}

/// A parameter with its 95 % interval, if known.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The value.
    pub value: f64,
    /// The 95 % interval.
    pub ci95: Option<[f64; 2]>,
    /// True when it may be zero or negative (an intercept); else draws stay positive.
    pub signed: bool,
}

impl Estimate {
    /// A value with an interval.
    pub fn new(value: f64, ci95: Option<[f64; 2]>) -> Self {
        Self {
            value,
            ci95,
            signed: false,
        }
    }

    /// A value with an interval that may reach zero or below.
    pub fn signed(value: f64, ci95: Option<[f64; 2]>) -> Self {
        Self {
            signed: true,
            ..Self::new(value, ci95)
        }
    }

    /// A draw: a split normal through the interval's ends at 1.96 sigma, and
    /// kept positive (a draw at or below zero is drawn again, at most 100 times).
    fn draw(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        let Some([lo, hi]) = self.ci95 else {
            return self.value;
        };
        for _ in 0..100 {
            let z: f64 = StandardNormal.sample(rng);
            let half = match z < 0.0 {
                true => self.value - lo,
                false => hi - self.value,
            };
            let x = self.value + z * half.max(0.0) / 1.96;
            if x > 0.0 || self.signed {
                return x;
            }
        }
        self.value
    }
}

/// The 95 % interval of `f(parameters)` over [`DRAWS`] independent draws of
/// the parameters (see the module doc). Draws where `f` is NaN are left out;
/// an infinite `f` (no bound: an optimum that does not exist) is kept.
pub fn monte_carlo(params: &[Estimate], f: impl Fn(&[f64]) -> f64) -> [f64; 2] {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(SEED);
    let mut x = vec![0.0; params.len()];
    let mut out: Vec<f64> = (0..DRAWS)
        .map(|_| {
            for (xi, p) in x.iter_mut().zip(params) {
                *xi = p.draw(&mut rng);
            }
            f(&x)
        })
        .filter(|t| !t.is_nan())
        .collect();
    out.sort_by(f64::total_cmp);
    let at = |p: f64| {
        let k = ((p * out.len() as f64).ceil() as usize).clamp(1, out.len().max(1));
        out.get(k - 1).copied().unwrap_or(f64::NAN)
    };
    [at(0.025), at(0.975)]
}

/// `count` vector operations of `flop` each, at the `(r_inf, n_1/2)` of `level`.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorOps {
    /// The memory level (or `variant/level`) whose parameters apply (`L1`).
    pub level: String,
    /// Flop per operation (its length times its flop per element).
    pub flop: f64,
    /// Operations.
    pub count: u64,
}

/// `count` synchronised segments of `grain` flop each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segments {
    /// Flop per segment, split between the processors.
    pub grain: u64,
    /// Segments.
    pub count: u64,
}

/// A program: Hockney's vector, scalar and segmented parts (see [`Program::parse`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Program {
    /// The vector operations, eq. (4).
    pub vector: Vec<VectorOps>,
    /// Scalar flop and their rate in flop/s, eq. (5).
    pub scalar: Option<(f64, f64)>,
    /// The segments, eqs. (8)-(9), in the order they run.
    pub segments: Vec<Segments>,
    /// Processors `P` the segments are split between.
    pub processors: Option<u64>,
    /// The synchronisation method (a `hockney-sync` method name).
    pub method: Option<String>,
    /// Kuck's `E_p`; by default [`balance_efficiency`] of the segments.
    pub e_p: Option<f64>,
}

/// The statements of a program file, one a line, `#` to the line's end a comment.
pub const SYNTAX: &str = "vector LEVEL FLOP COUNT | scalar FLOP RATE_FLOP_PER_S | \
segment GRAIN_FLOP COUNT | processors P | method NAME | ep E_P";

impl Program {
    /// Parses a program file: one statement a line ([`SYNTAX`]).
    pub fn parse(text: &str) -> Result<Program, ProgramError> {
        let mut p = Program::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if !line.is_empty() {
                p.statement(line, i + 1)?;
            }
        }
        Ok(p)
    }

    /// Adds one statement (`line` numbers the error; 0 for a flag).
    pub fn statement(&mut self, text: &str, line: usize) -> Result<(), ProgramError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let syntax = |message: String| ProgramError::Syntax { line, message };
        let number = |i: usize, what: &'static str| -> Result<f64, ProgramError> {
            let w = words
                .get(i)
                .ok_or_else(|| syntax(format!("{what} missing in {text:?}")))?;
            let v: f64 = w
                .parse()
                .map_err(|_| syntax(format!("{what} {w:?} is not a number")))?;
            positive(what, v).map_err(|e| syntax(e.to_string()))
        };
        let whole = |i: usize, what: &'static str| -> Result<u64, ProgramError> {
            let v = number(i, what)?;
            match v.fract() == 0.0 && v < 1e15 {
                true => Ok(v as u64),
                false => Err(syntax(format!("{what} {v} is not a whole number"))),
            }
        };
        let arity = match words[0] {
            "vector" => 4,
            "scalar" | "segment" => 3,
            "processors" | "method" | "ep" => 2,
            w => {
                return Err(syntax(format!(
                    "unknown statement {w:?}; expected {SYNTAX}"
                )));
            }
        };
        if words.len() != arity {
            return Err(syntax(format!(
                "{text:?} has {} words; expected {SYNTAX}",
                words.len()
            )));
        }
        match words[0] {
            "vector" => self.vector.push(VectorOps {
                level: words[1].into(),
                flop: number(2, "flop per vector operation")?,
                count: whole(3, "vector operations")?,
            }),
            "scalar" => self.scalar = Some((number(1, "scalar flop")?, number(2, "scalar rate")?)),
            "segment" => self.segments.push(Segments {
                grain: whole(1, "a segment's grain")?,
                count: whole(2, "segments")?,
            }),
            "processors" => self.processors = Some(whole(1, "processors")?),
            "method" => self.method = Some(words[1].into()),
            _ => {
                let e = number(1, "E_p")?;
                if e > 1.0 {
                    return Err(syntax(format!("E_p {e} is above 1")));
                }
                self.e_p = Some(e);
            }
        }
        Ok(())
    }

    /// The segments' total work `s` and their number `q`.
    pub fn segment_work(&self) -> (f64, f64) {
        self.segments.iter().fold((0.0, 0.0), |(s, q), g| {
            (s + (g.grain * g.count) as f64, q + g.count as f64)
        })
    }

    /// Every segment's grain, in order.
    pub fn grains(&self) -> Vec<u64> {
        self.segments
            .iter()
            .flat_map(|g| std::iter::repeat_n(g.grain, g.count as usize))
            .collect()
    }

    /// `E_p`: as given, else the balance of the segments on `parts` processors.
    pub fn e_p(&self, parts: u64) -> Result<f64, ProgramError> {
        match self.e_p {
            Some(e) => Ok(e),
            None => {
                let mut work = 0u64;
                let mut spent = 0u64;
                for g in &self.segments {
                    let e = balance_efficiency(&[g.grain], parts)?;
                    work += g.grain * g.count;
                    spent += ((g.grain * g.count) as f64 / e).round() as u64;
                }
                Ok(if spent == 0 {
                    1.0
                } else {
                    work as f64 / spent as f64
                })
            }
        }
    }
}

#[cfg(test)]
#[path = "hockney_program_tests.rs"]
mod tests;
