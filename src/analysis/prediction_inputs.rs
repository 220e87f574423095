//! The inputs of the papers' predictions from a result file (`halfperf model
//! hockney`, `model speedup`): the card rows a prediction reads, each with
//! its interval and trust mark, and the marks that make a prediction say
//! which of its inputs it should not be believed on.
//!
//! [`prediction_rows`] is the card ([`super::card_of`]) followed by a row for
//! every headline parameter the card leaves out (kernels off its short list,
//! such as `hockney-program`, and a synthetic file's kernels without fits),
//! each marked by the card's own rule ([`super::trust`]), so that a
//! prediction can read any headline a file holds. [`Input`] is one row as a
//! prediction lists it; [`input_marks`] are the inputs that are not `ok`.
//!
//! Invariants: a pure function of the file read; a row the card has is
//! never repeated, and keeps the card's order ahead of the added ones.

#![forbid(unsafe_code)]

use crate::model::hockney_program::{Estimate, ProgramError};
use crate::model::speedup::SpeedupError;
use crate::results::{self, CardRow, ResultFile, Trust};
use serde::Serialize;

/// Why a prediction cannot be made from a file; each says what is missing
/// or out of range, and how to get it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PredictionError {
    /// The file lacks a row the prediction needs; says which and the run
    /// that records it.
    #[error("{0}")]
    Missing(String),
    /// The processors asked for are not those the method was measured on.
    #[error("{0}")]
    Processors(String),
    /// The target efficiency is out of its range.
    #[error("{0}")]
    Efficiency(String),
    /// Eq. 15 has no optimum to take N from.
    #[error("eq. 15 has no optimum (b or c not positive): give --nodes N")]
    NoOptimum,
    /// The program itself (its scheduling efficiency) is out of range.
    #[error(transparent)]
    Program(#[from] ProgramError),
    /// Eq. 11 does not fit the kernel's points.
    #[error("eq. 11 on the speedup kernel's points")]
    Eq11(#[source] SpeedupError),
}

/// A card row used by a prediction.
#[derive(Debug, Clone, Serialize)]
pub struct Input {
    /// The row's kernel key (`kernel` or `kernel/transport`).
    pub kernel: String,
    /// The parameter's name, with its unit.
    pub name: String,
    /// Its qualifier (a level, a method, a fit's origin).
    pub of: Option<String>,
    /// Its value.
    pub value: f64,
    /// Its unit.
    pub unit: String,
    /// Its 95 % interval, where there is one.
    pub ci95: Option<[f64; 2]>,
    /// Its trust mark ([`Trust::mark`]).
    pub trust: String,
}

impl Input {
    /// The card row `r` as an input.
    pub fn of_row(r: &CardRow) -> Input {
        Input {
            kernel: r.kernel.clone(),
            name: r.name.clone(),
            of: r.of.clone(),
            value: r.value,
            unit: r.unit.clone(),
            ci95: r.ci95,
            trust: r.trust.mark().into(),
        }
    }

    /// Its value and interval, to draw from.
    pub fn estimate(&self) -> Estimate {
        Estimate::new(self.value, self.ci95)
    }
}

/// The marks of a prediction: every input that is not `ok`, as `MARK NAME`,
/// a run of equal marks once.
pub fn input_marks(inputs: &[Input]) -> Vec<String> {
    let mut m: Vec<String> = inputs
        .iter()
        .filter(|i| i.trust != Trust::Ok.mark())
        .map(|i| format!("{} {}", i.trust, i.name))
        .collect();
    m.dedup();
    m
}

/// The card's rows, and after them a row for every headline parameter the
/// card leaves out (kernels off its short list, such as `hockney-program`,
/// and a synthetic file's kernels without fits), marked by the card's rule:
/// busy, then virtual, then a flagged fit, then noisy (an interval wider than
/// a fifth of the value either way).
pub fn prediction_rows(file: &ResultFile) -> Vec<CardRow> {
    let mut rows = super::card_of(file).rows;
    for k in &file.kernels {
        let key = match &k.transport {
            Some(t) => format!("{}/{t}", k.kernel),
            None => k.kernel.clone(),
        };
        for p in &k.headline {
            if rows
                .iter()
                .any(|r| r.kernel == key && r.name == p.name && r.of == p.of)
            {
                continue;
            }
            let flagged = k
                .fits
                .iter()
                .any(|f| f.flagged && f.params.contains_key(&p.name));
            let trust = super::trust(k, flagged, p.value, p.ci95, false);
            rows.push(CardRow {
                method: k.method.clone(),
                line: String::new(),
                kernel: key.clone(),
                name: p.name.clone(),
                of: p.of.clone(),
                value: p.value,
                unit: results::unit_of(&p.name).into(),
                ci95: p.ci95,
                interval: p.interval.clone().unwrap_or_default(),
                signed: super::is_signed(&p.name),
                trust,
                repetitions: None,
            });
        }
    }
    rows
}
