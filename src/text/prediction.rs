//! The inputs of the papers' predictions on the terminal (`halfperf model
//! hockney`, `model speedup`): an input as one line (kernel, parameter and
//! qualifier, value, unit, 95 % interval, trust mark) and an interval whose
//! ends may be unbounded. The inputs themselves are
//! [`crate::analysis::prediction_rows`]'s.

#![forbid(unsafe_code)]

use crate::analysis::Input;
use crate::results::num;

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
