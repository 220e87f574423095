//! GOAL workloads on the terminal: a replay's table (`halfperf replay`), a
//! prediction with its LogGOPS parameters, inputs and marks (`halfperf
//! predict`), and a replay measured against its prediction (`predict --run`).
//! Times are shown in microseconds with two decimals; the data are
//! [`crate::workload`]'s.

#![forbid(unsafe_code)]

use crate::model::goal::Schedule;
use crate::results::num;
use crate::workload::predict::{Inputs, Prediction};
use crate::workload::replay::ReplayOutcome;
use crate::workload::validate::{Source, Validation};
use std::fmt::Write as _;

/// `ns` in microseconds, two decimals.
fn us(ns: f64) -> String {
    format!("{:.2}", ns / 1e3)
}

/// The terminal table of one replay.
pub fn replay(o: &ReplayOutcome) -> String {
    let ci = o
        .summary
        .ci95_ns
        .map_or("-".to_string(), |[a, b]| format!("[{}, {}]", us(a), us(b)));
    let mut s = format!(
        "replay {} (hash {}) over {}: {} ranks {} on CPUs {:?}, {} trials\n  time (rank 0, us): min {}  median {}  95% CI {}  max {}\n",
        o.schedule,
        o.hash,
        o.transport_name(),
        o.num_ranks,
        o.placement,
        o.hosts,
        o.trials.len(),
        us(o.summary.min_ns),
        us(o.summary.median_ns),
        ci,
        us(o.summary.max_ns)
    );
    s.push_str("  finish (us):");
    for (r, m) in o.summary.finish_median_ns.iter().enumerate() {
        let _ = write!(s, " r{r} {}", us(*m));
    }
    let _ = write!(
        s,
        "  (median)\n  {} messages a trial, each received once and checked\n",
        o.messages_per_trial
    );
    s
}

/// The prediction, its inputs and marks.
pub fn prediction(s: &Schedule, p: &Prediction) -> String {
    let g = &p.loggops;
    let mut o = format!(
        "predict {} (hash {}), {} ranks on {} CPU(s){}, over {}\n  predicted time (rank 0, go to last done): {} us, 95% [{}, {}]\n  LogGOPS: L {:.1} ns, o {:.1} ns, g {:.1} ns, G {:.4} ns/B, O {:.4} ns/B, all eager{}\n  inputs:\n",
        s.name,
        s.hash,
        s.num_ranks,
        distinct(&p.cpu_of_rank),
        if p.switch_ns > 0.0 {
            ", sharing"
        } else {
            ", one a CPU"
        },
        p.inputs.transport,
        us(p.time_ns),
        us(p.ci95_ns[0]),
        us(p.ci95_ns[1]),
        g.l_ns,
        g.o_ns,
        g.g_ns,
        g.big_g_ns_per_byte,
        g.big_o_ns_per_byte,
        match p.switch_ns > 0.0 {
            true => format!(", CPU switch {:.0} ns", p.switch_ns),
            false => String::new(),
        }
    );
    o.push_str(&inputs(&p.inputs));
    for m in &p.marks {
        let _ = writeln!(o, "  marked: {m}");
    }
    for n in &p.notes {
        let _ = writeln!(o, "  note: {n}");
    }
    o
}

/// One line an input: symbol, kernel, parameter, value, unit, interval,
/// trust mark and the file it came from.
fn inputs(i: &Inputs) -> String {
    i.rows
        .iter()
        .map(|r| {
            let ci = r.ci95.map_or("no interval".into(), |[lo, hi]| {
                format!("[{}, {}]", num(lo), num(hi))
            });
            format!(
                "    {:<6} {} {} = {} {} {} {} ({})\n",
                r.symbol,
                r.kernel,
                r.name,
                num(r.value),
                r.unit,
                ci,
                r.trust,
                r.file
            )
        })
        .collect()
}

/// The number of distinct CPUs in `cpus`.
fn distinct(cpus: &[u32]) -> usize {
    let mut c = cpus.to_vec();
    c.sort_unstable();
    c.dedup();
    c.len()
}

/// A replay measured against its prediction: the error, the coverage, the
/// other prediction, the CPU pair's probes and the machine's state.
pub fn validation(r: &ReplayOutcome, v: &Validation, remeasure: bool) -> String {
    let ci = v
        .measured_ci95_ns
        .map_or("-".into(), |[a, b]| format!("[{}, {}]", us(a), us(b)));
    let mut o = format!(
        "replay over {} ({}, CPUs {:?}, {} trials)\n  measured median {} us, 95% {ci}, min {} us\n  predicted       {} us, 95% [{}, {}]\n  error {:+.1} % against the median ({:+.1} % against the min); the measured interval {} the prediction\n",
        r.transport,
        r.placement,
        r.hosts,
        r.trials.len(),
        us(v.measured_ns),
        us(v.measured_min_ns),
        us(v.predicted_ns),
        us(v.predicted_ci95_ns[0]),
        us(v.predicted_ci95_ns[1]),
        v.error * 100.0,
        v.error_vs_min * 100.0,
        if v.covered {
            "covers"
        } else {
            "does not cover"
        }
    );
    let other = |(t, [a, b]): (f64, [f64; 2]), when: &str| {
        format!(
            "  predicted from the parameters measured {when} the replay: {} us [{}, {}], error {:+.1} %\n",
            us(t),
            us(a),
            us(b),
            v.error_other.unwrap_or(f64::NAN) * 100.0
        )
    };
    match (v.predicted_from, v.predicted_after_ns) {
        (Source::After, _) => {
            o.push_str("  the headline is predicted from the parameters measured after the replay: the replay's probes match their state\n");
            o.push_str(&other(v.predicted_before_ns, "before"));
        }
        (Source::Before, Some(a)) => o.push_str(&other(a, "after")),
        (Source::Before, None) => {}
    }
    if let Some([b, a]) = v.probe_ns {
        let _ = write!(
            o,
            "  CPU pair round trip: {b:.0} ns before, {a:.0} ns after"
        );
        if let Some([rb, ra]) = v.replay_probe_ns {
            let _ = write!(o, "; {rb:.0} and {ra:.0} ns right around the replay");
        }
        o.push('\n');
    }
    if !remeasure {
        o.push_str("  parameters from the --from files only: the machine's state at the replay is not checked\n");
    }
    match v.state_changed.is_empty() {
        true if remeasure => o.push_str("  machine state: unchanged across the replay\n"),
        true => {}
        false => {
            for s in &v.state_changed {
                let _ = writeln!(o, "  STATE CHANGED: {s}");
            }
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds_and_distinct_cpus() {
        assert_eq!(us(1234.0), "1.23");
        assert_eq!(us(0.0), "0.00");
        assert_eq!(us(1_000_000.0), "1000.00");
        assert_eq!(distinct(&[0, 1, 0, 1, 3]), 3);
        assert_eq!(distinct(&[]), 0);
    }
}
