//! Krumme & Greenfield's derived patterns from a result file (`halfperf model
//! kg`): the six lines `X = X0 + X1 n` of Table 3 (E, R, S, F, U, A, fitted
//! by the `decomposition` kernel over integer Q, 16-2000 B) with their 95 %
//! intervals and trust marks; the echo at distance d (`T_d = 2F + 2dE + 2U`)
//! beside the kernel's measured echoes; forwarding through k nodes; and
//! section 5.2's stream period and slowdown beside the `interference`
//! kernel's. The equations are [`crate::model::kg`]'s.
//!
//! Marks: `flagged` (the fit was flagged), `noisy` (an interval wider than
//! [`NOISY`] of the value either side, or none), `virtual` (ranks shared
//! CPUs, so wake-ups, not the lines, set the times).
//!
//! Invariants: a pure function of the file; a missing line refuses with the
//! run that records it.

#![forbid(unsafe_code)]

use super::PredictionError;
use crate::control::Placement;
use crate::model::interval::t_interval;
use crate::model::kg::{self, Estimate, KgModelError, Line, SixLines, Stage};
use crate::results::{FitResult, KernelResult, Point, ResultFile};

/// A prediction's input is noisy when its interval is wider than this
/// fraction of its value either side.
pub const NOISY: f64 = 0.25;

/// Why a paper's prediction cannot be made from a file.
#[derive(Debug, thiserror::Error)]
pub enum PaperError {
    /// The file lacks what the prediction needs; says what and the run.
    #[error(transparent)]
    Missing(#[from] PredictionError),
    /// A derived pattern refused its input.
    #[error(transparent)]
    Model(#[from] KgModelError),
}

fn missing(text: String) -> PaperError {
    PaperError::Missing(PredictionError::Missing(text))
}

/// The first result of kernel `name` in `file`, over `transport` if given.
pub fn kernel<'a>(
    file: &'a ResultFile,
    name: &str,
    transport: Option<&str>,
) -> Option<&'a KernelResult> {
    file.kernels
        .iter()
        .find(|k| k.kernel == name && transport.is_none_or(|t| k.transport.as_deref() == Some(t)))
}

/// A coefficient of `fit` with its Student-t interval (none when absent or
/// not finite).
pub fn coefficient(fit: &FitResult, name: &str) -> Option<Estimate> {
    let value = *fit.params.get(name)?;
    if !value.is_finite() {
        return None;
    }
    let dof = fit.n_points.saturating_sub(2);
    let ci = fit
        .std_errors
        .get(name)
        .and_then(|&se| t_interval(value, se, dof));
    Some(Estimate::new(value, ci))
}

/// The marks of an input: flagged fit, noisy interval, virtual processors.
pub fn marks(e: &Estimate, flagged: bool, virtual_: bool) -> Vec<&'static str> {
    let mut m = Vec::new();
    if flagged {
        m.push("flagged");
    }
    let noisy = e.ci95.is_none_or(|[lo, hi]| {
        let half = (hi - lo) / 2.0;
        half > NOISY * e.value.abs()
    });
    if noisy {
        m.push("noisy");
    }
    if virtual_ {
        m.push("virtual");
    }
    m
}

/// The measured median of the first of `names` a point has.
pub fn median(p: &Point, names: &[&str]) -> Option<f64> {
    names.iter().find_map(|n| p.stats(n)).map(|s| s.median)
}

/// One of the six lines: `X = at0 + per_byte n` ns.
#[derive(Debug, Clone, PartialEq)]
pub struct KgInput {
    /// The paper's letter (E, R, S, F, U, A).
    pub letter: String,
    /// `X0`, ns.
    pub at0: Estimate,
    /// `X1`, ns a byte.
    pub per_byte: Estimate,
    /// The line's R^2.
    pub r2: f64,
    /// Its marks (of `X0`).
    pub marks: Vec<&'static str>,
}

/// An echo at distance `d`, predicted and measured.
#[derive(Debug, Clone, PartialEq)]
pub struct EchoRow {
    /// Message size, bytes.
    pub bytes: f64,
    /// Distance, hops.
    pub d: u32,
    /// `T_d`, ns.
    pub predicted: Estimate,
    /// `T_d` with the forwarders' receive and send added back, ns.
    pub with_forward_ns: f64,
    /// The measured median, ns.
    pub measured_ns: f64,
}

/// A count of streams through one node, measured and predicted.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRow {
    /// Streams k.
    pub streams: u32,
    /// The measured period's median, ns.
    pub period_ns: Option<f64>,
    /// The measured slowdown's median.
    pub slowdown: Option<f64>,
    /// The lines' slowdown with the predicted period (none: saturated).
    pub lines: Option<f64>,
    /// The lines' slowdown with the measured period (none: saturated).
    pub lines_measured_period: Option<f64>,
}

/// Section 5.2 beside the `interference` kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct Interference {
    /// One row a count of streams.
    pub rows: Vec<StreamRow>,
    /// Sources and sinks shared CPUs (or the lines' kernel did).
    pub virtual_: bool,
}

/// Everything `model kg` prints.
#[derive(Debug, Clone, PartialEq)]
pub struct KgReport {
    /// The decomposition's transport.
    pub transport: Option<String>,
    /// The decomposition's placement.
    pub placement: Placement,
    /// The six lines, in the order E, R, S, F, U, A.
    pub inputs: Vec<KgInput>,
    /// The echoes of the points at integer Q (none: the file keeps none).
    pub echoes: Vec<EchoRow>,
    /// One-way time through k = 0..=4 forwarding nodes at 2000 B.
    pub chain: Vec<Estimate>,
    /// `R + S` a message at 2000 B.
    pub forward_cost: Estimate,
    /// Section 5.2's stages at 2000 B.
    pub stages: Vec<(Stage, Estimate)>,
    /// The stage that limits the period.
    pub limit: Stage,
    /// The predicted period, ns.
    pub period: Estimate,
    /// The period's marks.
    pub period_marks: Vec<&'static str>,
    /// The `interference` kernel beside section 5.2, when the file has one.
    pub interference: Option<Interference>,
}

/// `model kg` from `file` (named `from` in refusals) over `transport`.
pub fn predict_kg(
    file: &ResultFile,
    from: &str,
    transport: Option<&str>,
) -> Result<KgReport, PaperError> {
    let dec = kernel(file, "decomposition", transport).ok_or_else(|| {
        missing(format!(
            "{from} has no decomposition kernel{}: run `halfperf run decomposition interference` first",
            transport.map(|t| format!(" over {t}")).unwrap_or_default()
        ))
    })?;
    let virtual_ = dec.placement != Placement::Pinned;
    let mut inputs = Vec::new();
    for letter in ["e", "r", "s", "f", "u", "a"] {
        let upper = letter.to_uppercase();
        let fit = dec
            .fits
            .iter()
            .find(|f| f.model.starts_with(&format!("{upper} = ")) && f.model.contains("integer Q, 16-2000 B"))
            .ok_or_else(|| missing(format!("{from}: the decomposition has no line of {upper} (integer Q, 16-2000 B); rerun `halfperf run decomposition`")))?;
        let (c0, c1) = (
            format!("int_{letter}0_ns"),
            format!("int_{letter}1_ns_per_byte"),
        );
        let (Some(at0), Some(per)) = (coefficient(fit, &c0), coefficient(fit, &c1)) else {
            return Err(missing(format!(
                "{from}: the line of {upper} lacks {c0} or {c1}; rerun `halfperf run decomposition`"
            )));
        };
        inputs.push(KgInput {
            letter: upper,
            at0,
            per_byte: per,
            r2: fit.r2,
            marks: marks(&at0, fit.flagged, virtual_),
        });
    }
    let line = |i: usize| Line {
        at0_ns: inputs[i].at0,
        per_byte_ns: inputs[i].per_byte,
    };
    let six = SixLines {
        e: line(0),
        r: line(1),
        s: line(2),
        f: line(3),
        u: line(4),
        a: line(5),
    };
    let n = 2000.0;
    let (limit, period) = six.stream_period_ns(n)?;
    let forward_cost = six.forward_cost_ns(n)?;
    Ok(KgReport {
        transport: dec.transport.clone(),
        placement: dec.placement,
        echoes: echoes(dec, &six)?,
        chain: (0..=4)
            .map(|k| six.forward_chain_ns(k, n))
            .collect::<Result<_, _>>()?,
        forward_cost,
        stages: six.stages(n)?.to_vec(),
        limit,
        period,
        period_marks: marks(&period, false, virtual_),
        interference: interference(file, transport, forward_cost, period, virtual_)?,
        inputs,
    })
}

/// The echoes at integer Q, each distance the point measured.
fn echoes(dec: &KernelResult, six: &SixLines) -> Result<Vec<EchoRow>, KgModelError> {
    let mut rows = Vec::new();
    for p in &dec.points {
        if p.number("q_float").unwrap_or(0.0) != 0.0 {
            continue;
        }
        let Some(n) = p.number("size_bytes") else {
            continue;
        };
        for d in 1..=5u32 {
            let measured = median(
                p,
                &[&format!("echo_idle_d{d}_ns"), &format!("echo_d{d}_ns")],
            );
            let Some(measured) = measured else { continue };
            let pred = six.echo_ns(d, n)?;
            let fwd = median(p, &["forward_ns"])
                .or_else(|| p.number("forward_ns"))
                .unwrap_or(0.0);
            rows.push(EchoRow {
                bytes: n,
                d,
                predicted: pred,
                with_forward_ns: pred.value + 2.0 * f64::from(d - 1) * fwd,
                measured_ns: measured,
            });
        }
    }
    Ok(rows)
}

/// Section 5.2's slowdowns beside the `interference` kernel's points.
fn interference(
    file: &ResultFile,
    transport: Option<&str>,
    cost: Estimate,
    period: Estimate,
    virtual_: bool,
) -> Result<Option<Interference>, KgModelError> {
    let Some(inter) = kernel(file, "interference", transport) else {
        return Ok(None);
    };
    let mut rows = Vec::new();
    for p in &inter.points {
        let k = p.number("streams").unwrap_or(0.0);
        if k < 1.0 {
            continue;
        }
        let k_u = k as u32;
        let period_ns = median(p, &["period_ns"]);
        let (lines, _) = kg::slowdown_estimate(k_u, cost, period)?;
        let lines_measured_period = match period_ns {
            Some(mp) => kg::slowdown(k_u, cost.value, mp)?,
            None => None,
        };
        rows.push(StreamRow {
            streams: k_u,
            period_ns,
            slowdown: median(p, &["slowdown"]),
            lines,
            lines_measured_period,
        });
    }
    Ok(Some(Interference {
        rows,
        virtual_: inter.placement != Placement::Pinned || virtual_,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn fit(value: f64, se: f64, n_points: usize) -> FitResult {
        FitResult {
            model: "m".into(),
            x: "size_bytes".into(),
            y: "t".into(),
            params: BTreeMap::from([("x".to_string(), value)]),
            std_errors: BTreeMap::from([("x".to_string(), se)]),
            r2: 1.0,
            n_points,
            flagged: false,
        }
    }

    #[test]
    fn coefficient_has_the_student_t_interval() {
        // 12 points, 10 degrees of freedom: t = 2.228.
        let e = coefficient(&fit(100.0, 10.0, 12), "x").unwrap();
        let [lo, hi] = e.ci95.unwrap();
        assert!((lo - 77.72).abs() < 0.05, "{lo}");
        assert!((hi - 122.28).abs() < 0.05, "{hi}");
        assert_eq!(coefficient(&fit(f64::NAN, 1.0, 12), "x"), None);
        assert_eq!(coefficient(&fit(1.0, 1.0, 12), "y"), None);
    }

    #[test]
    fn marks_flag_noise_and_virtual_processors() {
        let tight = Estimate::new(100.0, Some([90.0, 110.0]));
        let wide = Estimate::new(100.0, Some([40.0, 160.0]));
        assert!(marks(&tight, false, false).is_empty());
        assert_eq!(marks(&wide, false, false), ["noisy"]);
        assert_eq!(
            marks(&Estimate::new(1.0, None), true, true),
            ["flagged", "noisy", "virtual"]
        );
    }
}
