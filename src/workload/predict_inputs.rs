//! The inputs of a prediction: measured parameters, each a card row with its
//! interval, trust mark and file, and why a prediction cannot be made. Apart
//! from `predict` so that the parts that add rows (`predict_vector`,
//! `predict_sync`) and the one that uses them import this and not each other.
#![forbid(unsafe_code)]

use crate::model::simulator::GoalSimError;
use serde::Serialize;

/// One measured parameter a prediction uses: a card row and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Input {
    /// The LogGOPS symbol it feeds (`o`, `L`, `g`, `G`, `O`, `switch`,
    /// `L_cold`), or `r_inf` and `n_half` of a vector calc, `t0` of a meeting,
    /// `clock` for the replay's clock reads.
    pub symbol: &'static str,
    /// The card row's kernel key (`pingpong/mailbox`).
    pub kernel: String,
    /// The parameter (`t_startup_ns`).
    pub name: String,
    /// Its value.
    pub value: f64,
    /// Its unit.
    pub unit: String,
    /// Its 95 % interval.
    pub ci95: Option<[f64; 2]>,
    /// Its trust mark as the card prints it.
    pub trust: String,
    /// The result file it was read from.
    pub file: String,
}

/// The inputs of a prediction, one per measured parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inputs {
    /// The transport they describe.
    pub transport: String,
    /// `S0, R0, S1, R1` (pinned or hosted), `t_startup, t_per_byte, one-way
    /// 8 B`, for ranks sharing CPUs the switch (a yield turn), where measured
    /// the cold `C0`, then each vector calc's `r_inf` and `n_1/2`
    /// ([`super::gather_vectors`]) and each meeting method's `t_0`
    /// ([`super::gather_syncs`]), in this order.
    pub rows: Vec<Input>,
}

/// Why a prediction cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum PredictError {
    /// A result file lacks a parameter the prediction needs.
    #[error(
        "{files}: no {name} of {kernel} (LogGOPS {symbol}); run `halfperf run {run}` and predict from its result file"
    )]
    Missing {
        /// The files searched.
        files: String,
        /// The parameter.
        name: String,
        /// The card's kernel key.
        kernel: String,
        /// The symbol it defines.
        symbol: &'static str,
        /// The command's arguments that measure it.
        run: String,
    },
    /// The schedule cannot be simulated.
    #[error(transparent)]
    Sim(#[from] GoalSimError),
}
