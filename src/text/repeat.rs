//! The spread of every headline parameter over the repetitions of `run --repeat K`,
//! with the machine's probe beside each repetition.

use crate::results::num;
use crate::suite::{MOVED_ALLOWANCE, RepeatSpread, TARGET_CV};
use std::fmt::Write;

/// Two lines per parameter: kernel, transport, name and qualifier, the median, the
/// range, the coefficient of variation over the repetitions, the probe's CV and
/// the verdict; then each repetition's value with its probe beside it.
pub fn repeat_spread(rows: &[RepeatSpread], repeat: u32) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Headline parameters over {repeat} repetitions (median, range, CV = std dev / mean), beside the probe of each repetition (the CPU pair's two-flag round trip, ns; for an r_inf, its kernel's rate probe, P times the serial rate; for a time per byte, the copy probe, ns/B; for a ping-pong's n_half_bytes, the round trip over the copy probe, B):"
    );
    let _ = writeln!(
        s,
        "  stable: CV <= {:.0} %; machine moved: CV <= the probe's CV + {:.0} points; mode changed: a sync method's hand-overs slept in some repetitions and not in others (times a segment in brackets); else unstable",
        TARGET_CV * 100.0,
        MOVED_ALLOWANCE * 100.0
    );
    for r in rows {
        let what = match (&r.transport, &r.of) {
            (Some(t), Some(o)) => format!("{} {t} {} [{o}]", r.kernel, r.name),
            (Some(t), None) => format!("{} {t} {}", r.kernel, r.name),
            (None, Some(o)) => format!("{} {} [{o}]", r.kernel, r.name),
            (None, None) => format!("{} {}", r.kernel, r.name),
        };
        let probe_cv = if r.probe_cv.is_finite() {
            format!("{:>5.1} %", r.probe_cv * 100.0)
        } else {
            "    - ".into()
        };
        let _ = writeln!(
            s,
            "  {what:<60} {:>12}  {:>12} .. {:<12} CV {:>5.1} %  probe CV {probe_cv}  {}",
            num(r.median),
            num(r.range[0]),
            num(r.range[1]),
            r.cv * 100.0,
            r.verdict.label()
        );
        let each: Vec<String> = r
            .values
            .iter()
            .zip(&r.probes)
            .enumerate()
            .map(|(i, (v, p))| {
                let slept = r
                    .modes
                    .get(i)
                    .filter(|_| r.modes.len() == r.values.len())
                    .map_or(String::new(), |m| format!(" [slept {:.2}]", m.blocks));
                if p.is_finite() {
                    format!("{} (probe {}){slept}", num(*v), num(*p))
                } else {
                    format!("{}{slept}", num(*v))
                }
            })
            .collect();
        let _ = writeln!(s, "      {}", each.join(", "));
    }
    s
}
