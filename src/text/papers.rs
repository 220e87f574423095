//! The papers' derived predictions on the terminal (`halfperf model kg`,
//! `model comet`): each input with its 95 % interval and marks, then the
//! predictions beside the measurements with the error. The numbers are
//! [`crate::analysis::kg_prediction`]'s and
//! [`crate::analysis::comet_prediction`]'s.

#![forbid(unsafe_code)]

use crate::analysis::comet_prediction::{CometKernel, CometReport};
use crate::analysis::kg_prediction::KgReport;
use crate::model::kg::Estimate;
use crate::results::sig as num;
use std::fmt::Write as _;

/// An interval as `[LO, HI]`, `[LO, unbounded]` or `(no interval)`.
fn ci_text(e: &Estimate) -> String {
    match e.ci95 {
        Some([lo, hi]) if hi.is_finite() => format!("[{}, {}]", num(lo), num(hi)),
        Some([lo, _]) => format!("[{}, unbounded]", num(lo)),
        None => "(no interval)".into(),
    }
}

/// Marks as ` [a, b]`, nothing when there are none.
/// A value and its interval: `V [lo, hi]`.
fn with_ci(e: &Estimate) -> String {
    format!("{} {}", num(e.value), ci_text(e))
}

/// A time and its interval: `V ns [lo, hi]`.
fn ns_ci(e: &Estimate) -> String {
    format!("{} ns {}", num(e.value), ci_text(e))
}

fn marks(m: &[&str]) -> String {
    match m.is_empty() {
        true => String::new(),
        false => format!(" [{}]", m.join(", ")),
    }
}

/// The error of `pred` against `meas`, whole percent with its sign.
fn pct(pred: f64, meas: f64) -> String {
    format!("{:+.0} %", (pred / meas - 1.0) * 100.0)
}

/// `model kg` from the file named `from`.
pub fn kg(r: &KgReport, from: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "Krumme & Greenfield's derived patterns from {from} (decomposition over {}, placement {:?})",
        r.transport.as_deref().unwrap_or("-"),
        r.placement
    );
    let _ = writeln!(
        o,
        "inputs: the lines X0 + X1 n of Table 3 (integer Q, 16-2000 B), 95 % intervals:"
    );
    for i in &r.inputs {
        let _ = writeln!(
            o,
            "  {} = {} + {} n ns  (R^2 {:.3}){}",
            i.letter,
            with_ci(&i.at0),
            with_ci(&i.per_byte),
            i.r2,
            marks(&i.marks)
        );
    }
    kg_echoes(r, &mut o);
    kg_section_5_2(r, &mut o);
    o
}

fn kg_echoes(r: &KgReport, o: &mut String) {
    o.push_str("\necho at distance d: T_d = 2F + 2dE + 2U (E itself was solved from these echoes, (T_5 - T_1)/8, so the check is on F and U)\n");
    o.push_str("  where forwarding ranks are user code the kernel took their receive + send (forward_ns) out of E: +fwd adds 2(d - 1) forward_ns back\n");
    let _ = writeln!(
        o,
        "  {:>7} {:>2} {:>12} {:>28} {:>12} {:>12} {:>7}",
        "size B", "d", "predicted ns", "95 % interval", "+fwd ns", "measured ns", "error"
    );
    for e in &r.echoes {
        let _ = writeln!(
            o,
            "  {:>7} {:>2} {:>12} {:>28} {:>12} {:>12} {:>7}",
            e.bytes,
            e.d,
            num(e.predicted.value),
            ci_text(&e.predicted),
            num(e.with_forward_ns),
            num(e.measured_ns),
            pct(e.with_forward_ns, e.measured_ns)
        );
        if e.bytes > 2000.0 && e.d == 1 {
            o.push_str("          (beyond the lines' 16-2000 B: extrapolated)\n");
        }
    }
    if r.echoes.is_empty() {
        o.push_str("  (the file keeps no echo times; rerun `halfperf run decomposition`)\n");
    }
    o.push_str("\nforwarding through k nodes (one way F + (k+1)E + U; each forwarder loses R + S), at 2000 B:\n");
    for (k, t) in r.chain.iter().enumerate() {
        let _ = writeln!(o, "  k = {k}: {}", ns_ci(t));
    }
    let _ = writeln!(o, "  R + S per message = {}", ns_ci(&r.forward_cost));
}

fn kg_section_5_2(r: &KgReport, o: &mut String) {
    o.push_str("\nsection 5.2 (2000-byte streams through one node):\n");
    for (s, e) in &r.stages {
        let _ = writeln!(o, "  stage {:<28} {}", s.formula(), ns_ci(e));
    }
    let _ = writeln!(
        o,
        "  predicted period: {} ns, limited by {}{}",
        num(r.period.value),
        r.limit.formula(),
        marks(&r.period_marks)
    );
    let Some(inter) = &r.interference else {
        o.push_str(
            "  (no interference kernel in the file: run `halfperf run interference` to compare)\n",
        );
        return;
    };
    let _ = writeln!(
        o,
        "  {:>7} {:>9} {:>12} {:>7} {:>10} {:>10} {:>10}",
        "streams", "channels", "period ns", "error", "slowdown", "lines", "lines+P"
    );
    let show = |v: Option<f64>| v.map_or("saturated".to_string(), |v| format!("{v:.2}"));
    for s in &inter.rows {
        let _ = writeln!(
            o,
            "  {:>7} {:>9} {:>12} {:>7} {:>10} {:>10} {:>10}",
            s.streams,
            2 * s.streams,
            s.period_ns.map_or("-".into(), num),
            s.period_ns.map_or("-".into(), |m| pct(r.period.value, m)),
            s.slowdown.map_or("-".into(), |v| format!("{v:.2}")),
            show(s.lines),
            show(s.lines_measured_period),
        );
    }
    o.push_str("  (slowdown: measured; lines: 1/(1 - k(R+S)/P) with the predicted period; lines+P: with the measured period)\n");
    if inter.virtual_ {
        o.push_str("  marked virtual: sources and sinks share CPUs, so the period is set by their wake-ups, not by E, and the prediction is not a test of the lines\n");
    }
}

/// `model comet`'s inputs from the file named `from`: the echo's lines and h.
pub fn comet_inputs(r: &CometReport, from: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "CoMet's kernels predicted from the echo's lines in {from} (transport {}):",
        r.transport.as_deref().unwrap_or("-")
    );
    o.push_str(
        "inputs (comet-echo, one hop, fitted on the minimum over trials; 95 % intervals):\n",
    );
    for i in &r.inputs {
        let _ = writeln!(
            o,
            "  {}: t_startup = {}, t_per_byte = {}{}",
            i.model,
            ns_ci(&i.startup),
            ns_ci(&i.per_byte),
            marks(&i.marks)
        );
    }
    match &r.h {
        Some((h, m)) => {
            let _ = writeln!(
                o,
                "  h = {} (comet-echo-hops){}; unused: every pair of threads is one hop here",
                ns_ci(h),
                marks(m)
            );
        }
        None => o.push_str(
            "  h: no comet-echo-hops in the file; unused: every pair of threads is one hop here\n",
        ),
    }
    o
}

/// `model comet`'s kernels, each a table, then where the prediction fails.
pub fn comet_kernels(r: &CometReport) -> String {
    let mut o = String::new();
    for k in &r.kernels {
        comet_kernel(k, &mut o);
    }
    o.push_str("\nwhere the prediction fails and why:\n");
    o.push_str("  - virtual processors (more ranks than CPUs): a message to a rank that is not running waits for a wake-up, microseconds the pinned echo never saw; predictions there are far too fast\n");
    o.push_str("  - overlap: a root's consecutive sends are copies into memory, not whole one-way trips; the no-overlap count is too slow for the linear broadcast and the guard update\n");
    o.push_str("  - contention and store-and-forward: ranks sharing a core, a cache or a forwarding rank serialise what the count runs in parallel; too fast where several messages move at once\n");
    o.push_str("  - computation: additions, packing and the local transpose are left out; too fast for large vectors and blocks\n");
    o
}

/// One kernel's table: each point predicted, measured, the error and marks.
fn comet_kernel(k: &CometKernel, o: &mut String) {
    let _ = writeln!(o, "\n{} ({})", k.case.kernel, k.case.why);
    let _ = writeln!(
        o,
        "  {:>26} {:>12} {:>28} {:>12} {:>8}  marks",
        "point", "predicted ns", "95 % interval", "measured ns", "error"
    );
    for p in &k.rows {
        let mid = p.predicted.value;
        let _ = writeln!(
            o,
            "  {:>26} {:>12} {:>28} {:>12} {:>8}  {}",
            p.label,
            num(mid),
            ci_text(&p.predicted),
            num(p.measured_ns),
            if mid > 0.0 {
                pct(mid, p.measured_ns)
            } else {
                "-".into()
            },
            p.marks.join(", ")
        );
    }
    let _ = writeln!(
        o,
        "  median |error|: {} on own CPUs, {} on virtual processors",
        k.median_error_own
            .map_or("-".into(), |v| format!("{v:.0} %")),
        k.median_error_virtual
            .map_or("-".into(), |v| format!("{v:.0} %"))
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_marks_and_errors_read() {
        assert_eq!(ci_text(&Estimate::new(1.0, None)), "(no interval)");
        let open = ci_text(&Estimate::new(1.0, Some([0.5, f64::INFINITY])));
        assert!(
            open.starts_with("[0.5") && open.ends_with(", unbounded]"),
            "{open}"
        );
        assert_eq!(marks(&[]), "");
        assert_eq!(marks(&["noisy", "virtual"]), " [noisy, virtual]");
        assert_eq!(pct(110.0, 100.0), "+10 %");
        assert_eq!(pct(75.0, 100.0), "-25 %");
    }
}
