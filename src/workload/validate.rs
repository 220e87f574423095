//! `validate`: a replay set beside the prediction of the same schedule, the
//! check Gonzalez (scibench, model against measurement) and Lamanna (simulator
//! against benchmark) made of their models, as one figure: the error of the
//! prediction against the replay's median, and whether the replay's 95 %
//! interval of the median covers the prediction.
//!
//! # The same machine on both sides
//! A machine that changes state between the measurement of the parameters and
//! the replay compares two machines. The validation measures the message
//! parameters it predicts from just before the replay and again just after,
//! each with the probe of the CPU pair's round trip, and probes the pair
//! once more right before and right after the replay itself. It predicts
//! from both sets and says the state changed when the two sets' probes moved
//! by more than [`STATE_MOVED`] or the two predictions' intervals do not
//! overlap.
//!
//! The headline prediction is the one from the measurements before the
//! replay, unless the state changed and the replay's own two probes both
//! lie within [`STATE_MOVED`] of the probe after and nearer to it than to
//! the one before: then the replay ran in the state measured after it, and
//! the headline is the prediction from after ([`Source::After`]). The rule
//! reads only probes, never the replay's time, so it cannot pick the
//! prediction that happens to agree. Where the replay's probes disagree with
//! each other by more than [`STATE_MOVED`], the replay itself spanned a
//! change of state, and the validation says so.
#![forbid(unsafe_code)]

use super::predict::Prediction;
use super::replay::ReplayOutcome;
use serde::Serialize;

/// The relative move of the probe (after over before, either way) that counts
/// as a change of the machine's state.
pub const STATE_MOVED: f64 = 0.25;

/// Which measurement of the message parameters the headline prediction used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The parameters measured just before the replay (or the `--from` files).
    Before,
    /// The parameters measured just after it: the replay's probes matched them.
    After,
}

/// A replay against its prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validation {
    /// The replay's median time, ns.
    pub measured_ns: f64,
    /// Its 95 % interval.
    pub measured_ci95_ns: Option<[f64; 2]>,
    /// The replay's fastest trial, ns.
    pub measured_min_ns: f64,
    /// The headline prediction, ns.
    pub predicted_ns: f64,
    /// Its 95 % interval.
    pub predicted_ci95_ns: [f64; 2],
    /// Which measurement the headline prediction used.
    pub predicted_from: Source,
    /// `(predicted - measured) / measured`.
    pub error: f64,
    /// `(predicted - fastest) / fastest`.
    pub error_vs_min: f64,
    /// The measured interval contains the prediction.
    pub covered: bool,
    /// The intervals of measurement and prediction overlap.
    pub overlap: bool,
    /// The prediction from the measurements before the replay, ns, and its interval.
    pub predicted_before_ns: (f64, [f64; 2]),
    /// The prediction from the measurements after the replay, ns, and its interval.
    pub predicted_after_ns: Option<(f64, [f64; 2])>,
    /// The error of the prediction the headline did not use, where there is one.
    pub error_other: Option<f64>,
    /// The probe's round trip in the measurements before and after, ns.
    pub probe_ns: Option<[f64; 2]>,
    /// The probe's round trip right before and right after the replay, ns.
    pub replay_probe_ns: Option<[f64; 2]>,
    /// Why the two sides may describe different states of the machine.
    pub state_changed: Vec<String>,
}

/// Whether two intervals share a point.
fn overlap(a: [f64; 2], b: [f64; 2]) -> bool {
    a[0] <= b[1] && b[0] <= a[1]
}

/// How far apart two probes are: the larger over the smaller, minus one.
fn moved(a: f64, b: f64) -> f64 {
    (a / b).max(b / a) - 1.0
}

/// The headline's source: [`Source::After`] only where the parameters' probes
/// moved beyond [`STATE_MOVED`] and both of the replay's probes sit within it
/// of the probe after and nearer to it than to the one before.
pub fn headline_from(probe_ns: Option<[f64; 2]>, replay_probe_ns: Option<[f64; 2]>) -> Source {
    let (Some([b, a]), Some(r)) = (probe_ns, replay_probe_ns) else {
        return Source::Before;
    };
    let after = moved(a, b) > STATE_MOVED
        && r.iter()
            .all(|&x| moved(x, a) <= STATE_MOVED && moved(x, a) < moved(x, b));
    match after {
        true => Source::After,
        false => Source::Before,
    }
}

/// Compares `replay` with `before` (predicted from measurements taken before
/// it) and, where measured, `after`, the parameters' probes `[before, after]`
/// and the replay's own `[before, after]`.
pub fn validate(
    replay: &ReplayOutcome,
    before: &Prediction,
    after: Option<&Prediction>,
    probe_ns: Option<[f64; 2]>,
    replay_probe_ns: Option<[f64; 2]>,
) -> Validation {
    let s = &replay.summary;
    let within = |ci: [f64; 2], x: f64| ci[0] <= x && x <= ci[1];
    let state_changed = state_changes(before, after, probe_ns, replay_probe_ns);
    let from = match after {
        Some(_) => headline_from(probe_ns, replay_probe_ns),
        None => Source::Before,
    };
    let (head, other) = match (from, after) {
        (Source::After, Some(a)) => (a, Some(before)),
        _ => (before, after),
    };
    let p = head.time_ns;
    let err = |x: f64| (x - s.median_ns) / s.median_ns;
    Validation {
        measured_ns: s.median_ns,
        measured_ci95_ns: s.ci95_ns,
        measured_min_ns: s.min_ns,
        predicted_ns: p,
        predicted_ci95_ns: head.ci95_ns,
        predicted_from: from,
        error: err(p),
        error_vs_min: (p - s.min_ns) / s.min_ns,
        covered: s.ci95_ns.is_some_and(|ci| within(ci, p)),
        overlap: s.ci95_ns.is_some_and(|ci| overlap(ci, head.ci95_ns)),
        predicted_before_ns: (before.time_ns, before.ci95_ns),
        predicted_after_ns: after.map(|a| (a.time_ns, a.ci95_ns)),
        error_other: other.map(|o| err(o.time_ns)),
        probe_ns,
        replay_probe_ns,
        state_changed,
    }
}

/// The reasons to think the two sides describe different states.
fn state_changes(
    before: &Prediction,
    after: Option<&Prediction>,
    probe_ns: Option<[f64; 2]>,
    replay_probe_ns: Option<[f64; 2]>,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some([b, a]) = probe_ns
        && moved(a, b) > STATE_MOVED
    {
        out.push(format!(
            "the CPU pair's round trip moved from {b:.0} ns before the replay to {a:.0} ns after ({:.0} %)",
            moved(a, b) * 100.0
        ));
    }
    if let Some([b, a]) = replay_probe_ns
        && moved(a, b) > STATE_MOVED
    {
        out.push(format!(
            "the replay spanned a change: the pair's round trip was {b:.0} ns right before it and {a:.0} ns right after"
        ));
    }
    if let Some(a) = after
        && !overlap(a.ci95_ns, before.ci95_ns)
    {
        out.push(format!(
            "the prediction from the parameters measured after the replay, {:.0} ns [{:.0}, {:.0}], is outside the one from before, [{:.0}, {:.0}]",
            a.time_ns, a.ci95_ns[0], a.ci95_ns[1], before.ci95_ns[0], before.ci95_ns[1]
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{STATE_MOVED, Source, headline_from, moved};

    /// The state held: the headline stays the prediction from before, whatever
    /// the replay's probes say.
    #[test]
    fn a_steady_state_keeps_the_prediction_from_before() {
        assert_eq!(
            headline_from(Some([100.0, 110.0]), Some([300.0, 300.0])),
            Source::Before
        );
        assert_eq!(headline_from(Some([100.0, 100.0]), None), Source::Before);
        assert_eq!(headline_from(None, Some([100.0, 100.0])), Source::Before);
    }

    /// The VM's slow state (about 450 ns) before, its fast state (about 60 ns)
    /// after: a replay probed at 62 and 58 ns ran in the state after.
    #[test]
    fn a_replay_in_the_state_after_takes_the_prediction_from_after() {
        assert_eq!(
            headline_from(Some([450.0, 60.0]), Some([62.0, 58.0])),
            Source::After
        );
        // Nearer to before: before.
        assert_eq!(
            headline_from(Some([450.0, 60.0]), Some([440.0, 430.0])),
            Source::Before
        );
        // One of the replay's probes in each state: the replay spanned the
        // change, and no side is chosen over the default.
        assert_eq!(
            headline_from(Some([450.0, 60.0]), Some([440.0, 61.0])),
            Source::Before
        );
        // Within STATE_MOVED of after but no nearer to it than to before.
        let (b, a) = (100.0, 130.0);
        assert!(moved(a, b) > STATE_MOVED);
        assert_eq!(
            headline_from(Some([b, a]), Some([114.0, 114.0])),
            Source::Before
        );
        assert_eq!(
            headline_from(Some([b, a]), Some([125.0, 128.0])),
            Source::After
        );
    }
}
