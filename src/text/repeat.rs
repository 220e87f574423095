//! The spread of every headline parameter over the repetitions of `run --repeat K`.

use crate::results::num;
use crate::suite::RepeatSpread;
use std::fmt::Write;

/// One line per parameter: kernel, transport, name and qualifier, then the median,
/// the range and the coefficient of variation over the repetitions.
pub fn repeat_spread(rows: &[RepeatSpread], repeat: u32) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Headline parameters over {repeat} repetitions (median, range, CV = std dev / mean):"
    );
    for r in rows {
        let what = match (&r.transport, &r.of) {
            (Some(t), Some(o)) => format!("{} {t} {} [{o}]", r.kernel, r.name),
            (Some(t), None) => format!("{} {t} {}", r.kernel, r.name),
            (None, Some(o)) => format!("{} {} [{o}]", r.kernel, r.name),
            (None, None) => format!("{} {}", r.kernel, r.name),
        };
        let _ = writeln!(
            s,
            "  {what:<60} {:>12}  {:>12} .. {:<12} CV {:>5.1} % (n = {})",
            num(r.median),
            num(r.range[0]),
            num(r.range[1]),
            r.cv * 100.0,
            r.values.len()
        );
    }
    s
}
