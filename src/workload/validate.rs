//! `validate`: a replay set beside the prediction of the same schedule, the
//! check Gonzalez (scibench, model against measurement) and Lamanna (simulator
//! against benchmark) made of their models, as one figure: the error of the
//! prediction against the replay's median, and whether the replay's 95 %
//! interval of the median covers the prediction.
//!
//! # The same machine on both sides
//! A machine that changes state between the measurement of the parameters and
//! the replay compares two machines. The validation measures the message
//! parameters it predicts from just before the replay and again just after
//! (each with the probe of the CPU pair's round trip), predicts from each, and
//! says the state changed when the probes moved by more than [`STATE_MOVED`]
//! or the two predictions' intervals do not overlap. The headline prediction
//! is the one from the measurements before the replay.
#![forbid(unsafe_code)]

use super::predict::Prediction;
use super::replay::ReplayOutcome;
use serde::Serialize;

/// The relative move of the probe (after over before, either way) that counts
/// as a change of the machine's state.
pub const STATE_MOVED: f64 = 0.25;

/// A replay against its prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validation {
    /// The replay's median time, ns.
    pub measured_ns: f64,
    /// Its 95 % interval.
    pub measured_ci95_ns: Option<[f64; 2]>,
    /// The replay's fastest trial, ns.
    pub measured_min_ns: f64,
    /// The prediction, ns.
    pub predicted_ns: f64,
    /// Its 95 % interval.
    pub predicted_ci95_ns: [f64; 2],
    /// `(predicted - measured) / measured`.
    pub error: f64,
    /// `(predicted - fastest) / fastest`.
    pub error_vs_min: f64,
    /// The measured interval contains the prediction.
    pub covered: bool,
    /// The intervals of measurement and prediction overlap.
    pub overlap: bool,
    /// The prediction from the measurements after the replay, ns, and its interval.
    pub predicted_after_ns: Option<(f64, [f64; 2])>,
    /// The probe's round trip before and after, ns.
    pub probe_ns: Option<[f64; 2]>,
    /// Why the two sides may describe different states of the machine.
    pub state_changed: Vec<String>,
}

/// Compares `replay` with `before` (predicted from measurements taken before
/// it) and, where measured, `after` and the probes `[before, after]`.
pub fn validate(
    replay: &ReplayOutcome,
    before: &Prediction,
    after: Option<&Prediction>,
    probe_ns: Option<[f64; 2]>,
) -> Validation {
    let s = &replay.summary;
    let p = before.time_ns;
    let within = |ci: [f64; 2], x: f64| ci[0] <= x && x <= ci[1];
    let overlap = |a: [f64; 2], b: [f64; 2]| a[0] <= b[1] && b[0] <= a[1];
    let mut state_changed = Vec::new();
    if let Some([b, a]) = probe_ns {
        let moved = (a / b).max(b / a) - 1.0;
        if moved > STATE_MOVED {
            state_changed.push(format!(
                "the CPU pair's round trip moved from {b:.0} ns before the replay to {a:.0} ns after ({:.0} %)",
                moved * 100.0
            ));
        }
    }
    if let Some(a) = after
        && !overlap(a.ci95_ns, before.ci95_ns)
    {
        state_changed.push(format!(
            "the prediction from the parameters measured after the replay, {:.0} ns [{:.0}, {:.0}], is outside the one from before, [{:.0}, {:.0}]",
            a.time_ns, a.ci95_ns[0], a.ci95_ns[1], before.ci95_ns[0], before.ci95_ns[1]
        ));
    }
    Validation {
        measured_ns: s.median_ns,
        measured_ci95_ns: s.ci95_ns,
        measured_min_ns: s.min_ns,
        predicted_ns: p,
        predicted_ci95_ns: before.ci95_ns,
        error: (p - s.median_ns) / s.median_ns,
        error_vs_min: (p - s.min_ns) / s.min_ns,
        covered: s.ci95_ns.is_some_and(|ci| within(ci, p)),
        overlap: s.ci95_ns.is_some_and(|ci| overlap(ci, before.ci95_ns)),
        predicted_after_ns: after.map(|a| (a.time_ns, a.ci95_ns)),
        probe_ns,
        state_changed,
    }
}
