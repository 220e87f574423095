//! CoMet's kernels predicted from the echo's lines (`halfperf model comet`):
//! `t(N) = t_startup + N t_per_byte` fitted by `comet-echo` (one hop, on the
//! minimum over trials; a piecewise fit gives a line a size range), the hop
//! cost `h` from `comet-echo-hops` (unused: every pair of threads is one hop
//! here), and each collective and matrix kernel the file holds predicted
//! point by point with the counts of [`crate::model::comet`] ([`CASES`] says
//! which count and why), beside the measured minimum.
//!
//! Marks: an input as in [`super::kg_prediction::marks`]; a point `virtual`
//! (more ranks than CPUs) or `noisy` (its trials spread more than
//! [`ACCURACY`]). The interval of a prediction is the count at both ends of
//! the lines' intervals.
//!
//! Invariants: a pure function of the file; the error summary is the median
//! |error| on own CPUs and on virtual processors apart.

#![forbid(unsafe_code)]

use super::PredictionError;
use super::kg_prediction::{PaperError, coefficient, kernel, marks};
use crate::control::Placement;
use crate::model::comet::{self as cm, EchoLines};
use crate::model::kg::Estimate;
use crate::results::{FitResult, KernelResult, Point, ResultFile};

/// A measured point is noisy when its trials spread more than this ((max -
/// min) / min), scibench's ACCURACY.
pub const ACCURACY: f64 = 0.10;

/// What one kernel's points are predicted from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CometCase {
    /// The kernel.
    pub kernel: &'static str,
    /// Its measured quantity.
    pub measured: &'static str,
    /// The count's assumption.
    pub why: &'static str,
}

const fn case(kernel: &'static str, measured: &'static str, why: &'static str) -> CometCase {
    CometCase {
        kernel,
        measured,
        why,
    }
}

/// The kernels predicted, in the order shown.
pub const CASES: [CometCase; 12] = [
    case(
        "comet-exchange",
        "exchange_ns",
        "full duplex assumed: both sends at once cost one t(N)",
    ),
    case(
        "comet-broadcast-linear",
        "broadcast_ns",
        "no overlap assumed: P - 1 whole one-way times, then a dissemination barrier",
    ),
    case(
        "comet-broadcast-tree",
        "broadcast_ns",
        "ceil(log2 P) rounds of t(N), then the barrier",
    ),
    case(
        "comet-global-sum-doubling",
        "global_sum_ns",
        "log2 P exchanges, the additions free",
    ),
    case(
        "comet-global-sum-tree",
        "global_sum_ns",
        "reduce then broadcast: 2 ceil(log2 P) t(N)",
    ),
    case(
        "comet-barrier-dissemination",
        "barrier_ns",
        "ceil(log2 P) empty messages",
    ),
    case(
        "comet-shift-north",
        "time_ns",
        "one exchange of the array with guard, 8 (ld+2)^2 B; none on a side of one rank",
    ),
    case(
        "comet-shift-east",
        "time_ns",
        "one exchange of the array with guard; none on a side of one rank",
    ),
    case(
        "comet-transpose",
        "time_ns",
        "one exchange with the transposed position, the local transpose free, then the barrier",
    ),
    case(
        "comet-update-guard",
        "time_ns",
        "four strips of 8 ld B in sequence",
    ),
    case(
        "comet-row-broadcast",
        "time_ns",
        "(rows - 1) x (t(8 ld) + an empty acknowledgement)",
    ),
    case(
        "comet-col-broadcast",
        "time_ns",
        "(cols - 1) x (t(8 ld) + an empty acknowledgement), the packing free",
    ),
];

/// One of the echo's lines.
#[derive(Debug, Clone, PartialEq)]
pub struct EchoInput {
    /// The fit's model (its size range).
    pub model: String,
    /// `t_startup`, ns.
    pub startup: Estimate,
    /// `t_per_byte`, ns a byte.
    pub per_byte: Estimate,
    /// Marks of `t_startup`.
    pub marks: Vec<&'static str>,
}

/// A point predicted and measured.
#[derive(Debug, Clone, PartialEq)]
pub struct CometRow {
    /// The point's swept values, short names (`B=8 P=4`).
    pub label: String,
    /// Predicted, ns.
    pub predicted: Estimate,
    /// The measured minimum, ns.
    pub measured_ns: f64,
    /// `virtual`, `noisy`.
    pub marks: Vec<&'static str>,
}

/// One kernel's points with the median |error|, percent.
#[derive(Debug, Clone, PartialEq)]
pub struct CometKernel {
    /// What it is predicted from.
    pub case: CometCase,
    /// Its points.
    pub rows: Vec<CometRow>,
    /// Median |error| on own CPUs, percent.
    pub median_error_own: Option<f64>,
    /// Median |error| on virtual processors, percent.
    pub median_error_virtual: Option<f64>,
}

/// Everything `model comet` prints.
#[derive(Debug, Clone, PartialEq)]
pub struct CometReport {
    /// The echo's transport.
    pub transport: Option<String>,
    /// The echo's lines.
    pub inputs: Vec<EchoInput>,
    /// `h` and its marks, when the file has `comet-echo-hops`.
    pub h: Option<(Estimate, Vec<&'static str>)>,
    /// The kernels predicted (empty: the file has none; see [`no_cases`]).
    pub kernels: Vec<CometKernel>,
}

/// The refusal of a file with the echo but none of [`CASES`].
pub fn no_cases(from: &str, transport: Option<&str>) -> PredictionError {
    PredictionError::Missing(format!(
        "{from} has no CoMet collective or matrix kernel over {}: run `halfperf run comet-broadcast comet-global-sum comet-barrier comet-shift comet-transpose`",
        transport.unwrap_or("its transport")
    ))
}

/// `model comet` from `file` (named `from` in refusals) over `transport`
/// (default: the echo's first).
pub fn predict_comet(
    file: &ResultFile,
    from: &str,
    transport: Option<&str>,
) -> Result<CometReport, PaperError> {
    let echo = kernel(file, "comet-echo", transport).ok_or_else(|| {
        PredictionError::Missing(format!(
            "{from} has no comet-echo kernel{}: run `halfperf run comet-echo` (and the collectives to compare)",
            transport.map(|t| format!(" over {t}")).unwrap_or_default()
        ))
    })?;
    let transport = echo.transport.clone();
    let echo_virtual = echo.placement != Placement::Pinned;
    let inputs = echo
        .fits
        .iter()
        .filter(|f| f.params.contains_key("t_startup_ns"))
        .filter_map(|fit| {
            let ts = coefficient(fit, "t_startup_ns")?;
            let tb = coefficient(fit, "t_per_byte_ns")?;
            Some(EchoInput {
                model: fit.model.clone(),
                startup: ts,
                per_byte: tb,
                marks: marks(&ts, fit.flagged, echo_virtual),
            })
        })
        .collect();
    let hops = kernel(file, "comet-echo-hops", transport.as_deref());
    let h = hops
        .and_then(|k| k.fits.iter().find_map(|f| coefficient(f, "h_ns")))
        .unwrap_or(Estimate::exact(0.0));
    let kernels = CASES
        .iter()
        .filter_map(|case| {
            let k = kernel(file, case.kernel, transport.as_deref())?;
            Some(kernel_case(case, k, echo, h))
        })
        .collect();
    Ok(CometReport {
        h: hops.map(|k| (h, marks(&h, false, k.placement != Placement::Pinned))),
        transport,
        inputs,
        kernels,
    })
}

/// The echo's line covering `bytes` (a piecewise fit has several segments).
pub fn echo_line(echo: &KernelResult, bytes: f64) -> Option<(&FitResult, Estimate, Estimate)> {
    let segments: Vec<&FitResult> = echo
        .fits
        .iter()
        .filter(|f| f.params.contains_key("t_startup_ns") && f.params.contains_key("t_per_byte_ns"))
        .collect();
    let within = |f: &&FitResult| {
        let lo = f.params.get("x_min_bytes").copied().unwrap_or(0.0);
        let hi = f
            .params
            .get("x_max_bytes")
            .copied()
            .unwrap_or(f64::INFINITY);
        bytes >= lo && bytes <= hi
    };
    let fit = segments
        .iter()
        .copied()
        .find(within)
        .or_else(|| segments.last().copied())?;
    Some((
        fit,
        coefficient(fit, "t_startup_ns")?,
        coefficient(fit, "t_per_byte_ns")?,
    ))
}

/// Predicted time of `case` at point `p` from echo lines `e`.
pub fn predict(case: &CometCase, e: &EchoLines, p: &Point) -> Option<f64> {
    let num_at = |n: &str| p.number(n);
    let procs = num_at("processors").map(|v| v as u32);
    let ld = num_at("local_order").map(|v| v as u32);
    let (rows, cols) = (
        num_at("grid_rows").map(|v| v as u32),
        num_at("grid_cols").map(|v| v as u32),
    );
    let size = num_at("size_bytes");
    let r = match case.kernel {
        "comet-exchange" => e.one_way_ns(size?, 1),
        "comet-broadcast-linear" => e.broadcast_linear_ns(size?, procs?),
        "comet-broadcast-tree" => e.broadcast_tree_ns(size?, procs?),
        "comet-global-sum-doubling" => e.global_sum_doubling_ns(size?, procs?),
        "comet-global-sum-tree" => e.global_sum_tree_ns(size?, procs?),
        "comet-barrier-dissemination" => e.barrier_ns(procs?),
        "comet-shift-north" => e.shift_ns(ld?, rows?),
        "comet-shift-east" => e.shift_ns(ld?, cols?),
        "comet-transpose" => e.transpose_ns(ld?, rows?, cols?),
        "comet-update-guard" => e.update_guard_ns(ld?),
        "comet-row-broadcast" => e.line_broadcast_ns(ld?, rows?.saturating_sub(1)),
        "comet-col-broadcast" => e.line_broadcast_ns(ld?, cols?.saturating_sub(1)),
        _ => return None,
    };
    r.ok()
}

/// The bytes whose echo segment applies to a point.
pub fn bytes_of(case: &CometCase, p: &Point) -> f64 {
    match (p.number("size_bytes"), p.number("local_order")) {
        (Some(b), _) => b,
        (None, Some(ld)) if case.kernel.contains("shift") || case.kernel.contains("transpose") => {
            cm::block_bytes(ld as u32)
        }
        (None, Some(ld)) => 8.0 * ld,
        (None, None) => 0.0,
    }
}

fn short(name: &str) -> &str {
    match name {
        "size_bytes" => "B",
        "processors" => "P",
        "local_order" => "ld",
        "n_elements" => "n",
        other => other,
    }
}

/// One kernel's points predicted, measured and marked.
fn kernel_case(
    case: &CometCase,
    k: &KernelResult,
    echo: &KernelResult,
    h: Estimate,
) -> CometKernel {
    let mut out = Vec::new();
    let mut errors = (Vec::new(), Vec::new());
    for p in &k.points {
        let Some(stats) = p.stats(case.measured) else {
            continue;
        };
        let Some((_, ts, tb)) = echo_line(echo, bytes_of(case, p)) else {
            continue;
        };
        // h is unused at one hop: its value stands in for its bounds.
        let lines = |f: fn(&Estimate) -> Option<f64>| {
            Some(EchoLines {
                t_startup_ns: f(&ts)?,
                t_per_byte_ns: f(&tb)?,
                h_ns: h.value,
            })
        };
        let Some(mid) = lines(|e| Some(e.value)).and_then(|l| predict(case, &l, p)) else {
            continue;
        };
        let lo = lines(|e| e.ci95.map(|c| c[0])).and_then(|l| predict(case, &l, p));
        let hi = lines(|e| e.ci95.map(|c| c[1])).and_then(|l| predict(case, &l, p));
        let virtual_p = p.number("virtual").unwrap_or(0.0) != 0.0;
        let spread = (stats.max - stats.min) / stats.min;
        let mut m = Vec::new();
        if virtual_p {
            m.push("virtual");
        }
        if spread > ACCURACY {
            m.push("noisy");
        }
        let label: Vec<String> = p
            .swept()
            .filter(|(n, _)| {
                !matches!(
                    *n,
                    "log2_processors" | "matrix_order" | "grid_rows" | "grid_cols" | "virtual"
                )
            })
            .map(|(n, v)| format!("{}={v}", short(n)))
            .collect();
        let err = mid / stats.min - 1.0;
        if stats.min > 0.0 && mid > 0.0 {
            if virtual_p {
                &mut errors.1
            } else {
                &mut errors.0
            }
            .push(err.abs() * 100.0);
        }
        out.push(CometRow {
            label: label.join(" "),
            predicted: Estimate::new(mid, lo.zip(hi).map(|(a, b)| [a, b])),
            measured_ns: stats.min,
            marks: m,
        });
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    };
    CometKernel {
        case: *case,
        rows: out,
        median_error_own: med(&mut errors.0),
        median_error_virtual: med(&mut errors.1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::PointValue;

    #[test]
    fn cases_are_distinct_kernels_and_short_names_read() {
        for (i, a) in CASES.iter().enumerate() {
            assert!(CASES[i + 1..].iter().all(|b| b.kernel != a.kernel));
        }
        assert_eq!(short("size_bytes"), "B");
        assert_eq!(short("local_order"), "ld");
        assert_eq!(short("streams"), "streams");
    }

    #[test]
    fn exchange_is_one_one_way_time() {
        // t(1000) = 500 + 1000 * 0.25 = 750 ns at one hop.
        let e = EchoLines {
            t_startup_ns: 500.0,
            t_per_byte_ns: 0.25,
            h_ns: 0.0,
        };
        let p = Point(
            [("size_bytes".to_string(), PointValue::Number(1000.0))]
                .into_iter()
                .collect(),
        );
        assert_eq!(predict(&CASES[0], &e, &p), Some(750.0));
        assert_eq!(bytes_of(&CASES[0], &p), 1000.0);
        let unknown = case("comet-nothing", "time_ns", "");
        assert_eq!(predict(&unknown, &e, &p), None);
    }
}
