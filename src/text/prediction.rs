//! The inputs of the papers' predictions on the terminal (`halfperf model
//! hockney`, `model speedup`): an input as one line (kernel, parameter and
//! qualifier, value, unit, 95 % interval, trust mark) and an interval whose
//! ends may be unbounded. The inputs themselves are
//! [`crate::analysis::prediction_rows`]'s.

#![forbid(unsafe_code)]

use crate::analysis::Input;
use crate::analysis::hockney_prediction::HockneyReport;
use crate::analysis::speedup_prediction::SpeedupReport;
use crate::model::hockney_program as hp;
use crate::results::num;
use std::fmt::Write;

/// `i` as one line: `KERNEL NAME (OF) = VALUE UNIT [LO, HI] TRUST`.
pub fn input_line(i: &Input) -> String {
    let ci = i.ci95.map_or("no interval".into(), |[lo, hi]| {
        format!("[{}, {}]", num(lo), num(hi))
    });
    let of = i.of.as_deref().map_or(String::new(), |o| format!(" ({o})"));
    format!(
        "{} {}{of} = {} {} {ci} {}",
        i.kernel,
        i.name,
        num(i.value),
        i.unit,
        i.trust
    )
}

/// A 95 % interval as `[LO, HI]`, an infinite end as `unbounded`.
pub fn ci(v: [f64; 2]) -> String {
    let end = |x: f64| match x.is_finite() {
        true => num(x),
        false => "unbounded".into(),
    };
    format!("[{}, {}]", end(v[0]), end(v[1]))
}

/// A Hockney prediction as the terminal shows it: the program, its parts and
/// inputs, and one line per method with its inputs under it.
pub fn hockney(r: &HockneyReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Hockney's program time, eqs. 4-9, from {}", r.from);
    let _ = writeln!(out, "program: {}", r.program.join("; "));
    let _ = writeln!(
        out,
        "segments: s = {} flop in q = {}; T_v = {} ns (eq. 4), T_s = {} ns (eq. 5)",
        num(r.segment_flop),
        r.segments,
        num(r.t_vector_ns),
        num(r.t_scalar_ns)
    );
    for i in &r.vector_inputs {
        let _ = writeln!(out, "  input: {}", input_line(i));
    }
    for n in &r.notes {
        let _ = writeln!(out, "  note: {n}");
    }
    if r.predictions.is_empty() {
        let _ = writeln!(out, "T = {} ns (eq. 6)", num(r.t_vector_ns + r.t_scalar_ns));
        return out;
    }
    let _ = writeln!(
        out,
        "T = T_v + T_s + (s/E_p + s_1/2 q)/r_inf (eqs. 6, 9), 95 % by Monte Carlo over the inputs' intervals ({} draws, fixed seed); E = s/(s/E_p + s_1/2 q); grain for E = {}:",
        hp::DRAWS,
        r.target_efficiency
    );
    for m in &r.predictions {
        let mark = match m.marks.is_empty() {
            true => String::new(),
            false => format!("  ! from {}", m.marks.join(", ")),
        };
        let _ = writeln!(
            out,
            "{:<14} P = {} T = {} ns {}  E = {:.3} {}  grain = {} flop {}{mark}",
            m.method,
            m.processors,
            num(m.t_ns),
            ci(m.ci95_ns),
            m.efficiency,
            ci(m.efficiency_ci95),
            m.grain_flop.map_or("-".into(), num),
            m.grain_ci95_flop.map_or(String::new(), ci),
        );
        for i in m.inputs.iter().skip(r.vector_inputs.len()) {
            let _ = writeln!(out, "    input: {}", input_line(i));
        }
    }
    out
}

/// A speedup prediction as the terminal shows it: the model's time, eq. 10,
/// eqs. 15 and 18, the inputs and the measured points at N.
pub fn speedup(r: &SpeedupReport) -> String {
    let mut out = String::new();
    let mark = match r.marks.is_empty() {
        true => String::new(),
        false => format!("  ! from {}", r.marks.join(", ")),
    };
    let _ = writeln!(
        out,
        "Lamanna's speedup model from {} ({})",
        r.from, r.kernel
    );
    let _ = writeln!(
        out,
        "{}: T(U = {} ms, N = {}) = {} ms {}{mark}",
        r.model,
        num(r.u_ms),
        r.nodes,
        num(r.t_ms),
        ci(r.ci95_ms)
    );
    match (
        r.checking_ms,
        r.checking_ci95_ms,
        r.t_without_checking_ms,
        r.t_without_checking_ci95_ms,
    ) {
        (Some(c), Some(cci), Some(t), Some(tci)) => {
            let _ = writeln!(
                out,
                "eq. 10: message checking C = (N - 1) probe_empty_ms for N > 2 = {} ms {}, inside T (the fit's times include it); T - C = {} ms {}",
                num(c),
                ci(cci),
                num(t),
                ci(tci)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "eq. 10: the file has no probe_empty_ms (a speedup run before it was recorded): the checking term is not separated from T"
            );
        }
    }
    let _ = writeln!(
        out,
        "eq. 15: optimal N = sqrt(b U / c) = {} {}",
        num(r.optimal_nodes),
        ci(r.optimal_nodes_ci95)
    );
    let _ = writeln!(
        out,
        "eq. 18: U for E = {} at N = {}: e (a N + c N^2) / (1 - e b) = {} ms {}",
        r.efficiency,
        r.nodes,
        num(r.u_for_efficiency_ms),
        ci(r.u_for_efficiency_ci95_ms)
    );
    for i in &r.inputs {
        let _ = writeln!(out, "  input: {}", input_line(i));
    }
    let _ = writeln!(
        out,
        "95 % intervals: Monte Carlo over the inputs' intervals, independently (the card keeps no covariances)"
    );
    if r.checks.is_empty() {
        let _ = writeln!(out, "the kernel measured no point at N = {}", r.nodes);
    }
    for c in &r.checks {
        let _ = writeln!(
            out,
            "  measured at U = {} ms, N = {}: {} ms; predicted {} ms {} {}",
            num(c.u_ms),
            r.nodes,
            num(c.measured_ms),
            num(c.predicted_ms),
            ci(c.ci95_ms),
            if c.inside { "inside" } else { "OUTSIDE" }
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: a row with its qualifier and interval, one without either,
    /// and an interval with an unbounded end.
    #[test]
    fn an_input_is_one_line() {
        let mut i = Input {
            kernel: "hockney-sync/locks".into(),
            name: "t0_ns".into(),
            of: Some("locks".into()),
            value: 1000.0,
            unit: "ns".into(),
            ci95: Some([500.0, 1500.0]),
            trust: "noisy".into(),
        };
        assert_eq!(
            input_line(&i),
            format!(
                "hockney-sync/locks t0_ns (locks) = {} ns [{}, {}] noisy",
                num(1000.0),
                num(500.0),
                num(1500.0)
            )
        );
        (i.of, i.ci95) = (None, None);
        assert_eq!(
            input_line(&i),
            format!(
                "hockney-sync/locks t0_ns = {} ns no interval noisy",
                num(1000.0)
            )
        );
        assert_eq!(
            ci([2.0, f64::INFINITY]),
            format!("[{}, unbounded]", num(2.0))
        );
    }
}
