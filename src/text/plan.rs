//! The run plan on the terminal (`halfperf run --plan`): one line per kernel
//! with its estimated time, processor counts, pairs and CPUs, the repeated
//! kernels' time, the run's fixed costs, the total against the budget and
//! what was sampled to fit it. The plan itself, and how its estimates are
//! counted, is [`crate::kernels::plan`]'s.

#![forbid(unsafe_code)]

use crate::kernels::plan::RunPlan;
use std::fmt::Write;
use std::time::Duration;

/// `plan` as text: one line per kernel, the total and what was sampled.
pub fn plan_text(p: &RunPlan) -> String {
    let mut s = String::from("plan:\n");
    for k in &p.kernels {
        let pairs = k
            .pairs
            .map(|(n, all)| format!(", {n}/{all} pairs"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  {:<24} {:>8}  P {:?}{pairs}, {} CPUs",
            k.kernel,
            fmt_secs(k.estimate_s),
            k.processors,
            k.cpus.len()
        );
    }
    if p.repeat > 1 {
        let each: f64 = p.kernels.iter().map(|k| k.estimate_s).sum();
        let _ = writeln!(
            s,
            "  {:<24} {:>8}  {} repetitions of {}",
            "kernels, repeated",
            fmt_secs(each * f64::from(p.repeat)),
            p.repeat,
            fmt_secs(each)
        );
    }
    for f in &p.fixed {
        let _ = writeln!(s, "  {:<24} {:>8}", f.what, fmt_secs(f.seconds));
    }
    let _ = writeln!(
        s,
        "  total {} of a {} budget",
        fmt_secs(p.total_s),
        fmt_secs(p.budget_s)
    );
    for line in &p.sampled {
        let _ = writeln!(s, "  sampled: {line}");
    }
    s
}

fn fmt_secs(s: f64) -> String {
    humantime_like(Duration::from_secs_f64(s.max(0.0)))
}

fn humantime_like(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 60.0 {
        format!("{s:.1} s")
    } else {
        format!("{:.1} min", s / 60.0)
    }
}
