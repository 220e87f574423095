//! The simulator on the terminal (`halfperf simulate`): Lamanna's experiment
//! (`--experiment lamanna`: eq. 11's coefficients, H3 and the speedup table),
//! one configuration's means over its runs, and a GOAL schedule's finish
//! times under LogGOPS (`simulate SCHEDULE.goal --loggp ...`).

use crate::model::goal::Schedule;
use crate::model::simulator::experiment::counterpart;
use crate::model::simulator::{
    BurstShape, ExperimentReport, GoalSimResult, LogGops, ReceiveAt, SimConfig, SimResult,
};
use crate::results::num;
use std::fmt::Write as _;

/// Human-readable summary: eq. 11 coefficients, H3 and the speedup table.
pub fn experiment(report: &ExperimentReport) -> String {
    let mut out = String::new();
    let m = &report.eq11.model;
    let p = &report.params;
    let _ = writeln!(
        out,
        "Lamanna (1988) simulation experiment: {} runs per unit, seed {}, {:?}",
        report.runs, report.seed, p.topology
    );
    let receive = match p.costs.receive_at {
        ReceiveAt::Destination => "on the destination's CPU",
        ReceiveAt::Sender => "added to the sender's start-up",
    };
    let _ = writeln!(
        out,
        "model {}: start-up t_l = {} ms at the sender ({:?}), receive = {} ms {receive}, \
         t_c = {} ms/byte, t_i = {} ms, L = {} bytes, channels {:?}",
        p.model_name(),
        num(p.costs.tl_ms),
        p.costs.send_hold,
        num(p.costs.receive_ms),
        num(p.costs.tc_ms_per_byte),
        num(p.costs.ti_ms),
        p.message_bytes,
        p.costs.channel_order
    );
    let interval = |ci: Option<[f64; 2]>, digits: usize| {
        ci.map_or_else(String::new, |[lo, hi]| {
            format!(" [{lo:.digits$}, {hi:.digits$}]")
        })
    };
    let ci = report.eq11_ci95;
    let _ = writeln!(
        out,
        "eq. 11 over normal-burst runs ({}; 95 % intervals): T = {:.2}{} + {:.4}{} U/N \
         + {:.4}{} NBR  [ms], R^2 = {:.4}",
        report.eq11.fit.residuals.len(),
        m.mu_ms,
        interval(ci.map(|c| c.mu_ms), 2),
        m.b,
        interval(ci.map(|c| c.b), 4),
        m.c_ms_per_message,
        interval(ci.map(|c| c.c_ms_per_message), 4),
        report.eq11.fit.r_squared
    );
    match &report.h3 {
        Some(t) => {
            let verdict = if t.reject_null {
                "rejected"
            } else {
                "not rejected"
            };
            let _ = writeln!(
                out,
                "H3 (exponential - normal unit means): mean {:.3} ms, t = {:.3}, p = {:.3}: \
                 {verdict} at alpha = {}",
                t.mean_difference, t.t, t.p_value, t.alpha
            );
        }
        None => {
            let _ = writeln!(
                out,
                "H3: no test (fewer than two pairs, or all pairs identical)"
            );
        }
    }
    let _ = writeln!(
        out,
        "{:>8} {:>4} {:>3} {:>4} {:>12} {:>8} {:>6} {:>12}",
        "U(ms)", "N", "B", "R", "T_norm(ms)", "S", "E", "T_exp(ms)"
    );
    for x in report
        .units
        .iter()
        .filter(|x| x.shape == BurstShape::Normal)
    {
        let exp = counterpart(&report.units, x, BurstShape::Exponential);
        let exp = exp.map_or_else(|| "-".to_string(), |e| num(e.mean_ms));
        let _ = writeln!(
            out,
            "{:>8} {:>4} {:>3} {:>4} {:>12} {:>8.2} {:>6.3} {:>12}",
            num(x.uniprocessor_ms),
            x.nodes,
            x.bursts,
            x.receivers,
            num(x.mean_ms),
            x.speedup,
            x.efficiency,
            exp
        );
    }
    let _ = writeln!(
        out,
        "{} events in {:.3} s of simulation",
        report.events, report.wall_seconds
    );
    out
}

/// The means of one configuration's runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunMeans {
    /// Total execution time, ms.
    pub time_ms: f64,
    /// Events handled.
    pub events: f64,
    /// Messages sent.
    pub messages: f64,
    /// Events handled a second of the simulator's wall clock.
    pub events_per_second: f64,
}

impl RunMeans {
    /// The means of `runs` (NaN when there are none).
    pub fn of(runs: &[SimResult]) -> Self {
        let n = runs.len() as f64;
        let mean = |f: fn(&SimResult) -> f64| runs.iter().map(f).sum::<f64>() / n;
        Self {
            time_ms: mean(|r| r.time_ms),
            events: mean(|r| r.events as f64),
            messages: mean(|r| r.messages as f64),
            events_per_second: mean(|r| r.events_per_second),
        }
    }
}

/// One configuration of model `model`, `runs` runs from `seed`: the
/// configuration on one line, then the means.
pub fn runs(model: &str, config: &SimConfig, runs: u32, seed: u64, m: &RunMeans) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "model {model}, {:?}, N = {}, B = {}, R = {}, U = {} ms, L = {} bytes, {runs} run(s) from seed {seed}",
        config.topology,
        config.nodes,
        config.bursts,
        config.receivers_per_burst(),
        config.uniprocessor_ms,
        config.message_bytes,
    );
    let _ = writeln!(out, "time (mean)        {:.3} ms", m.time_ms);
    let _ = writeln!(out, "events (mean)      {:.0}", m.events);
    let _ = writeln!(out, "messages (mean)    {:.0}", m.messages);
    let _ = writeln!(out, "events per second  {:.3e}", m.events_per_second);
    out
}

/// A GOAL schedule simulated under `p`: its size and parameters, the
/// meetings read as messages, each rank's finish time and the end, ns.
pub fn goal(schedule: &Schedule, p: &LogGops, r: &GoalSimResult) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({} ranks, {} ops), L={} o={} g={} G={} O={} S={}",
        schedule.name,
        schedule.num_ranks,
        schedule.op_count(),
        p.l_ns,
        p.o_ns,
        p.g_ns,
        p.big_g_ns_per_byte,
        p.big_o_ns_per_byte,
        p.s_bytes
    );
    if !schedule.meetings.is_empty() {
        let _ = writeln!(
            out,
            "{} `//@ sync` meeting(s) read as their messages, as a plain GOAL reader does",
            schedule.meetings.len()
        );
    }
    for (rank, t) in r.finish_ns.iter().enumerate() {
        let _ = writeln!(out, "rank {rank:>6}  finish {t:>16} ns");
    }
    let _ = writeln!(out, "end                {:>16} ns", r.end_ns);
    let _ = writeln!(
        out,
        "events {} ({} messages), {:.3e} events/s",
        r.events, r.messages, r.events_per_second
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::simulator::{ExperimentError, LamannaParams, run_lamanna_experiment};

    #[test]
    fn report_renders_and_serialises() {
        let mut params = LamannaParams::eq9();
        params.uniprocessor_ms = vec![1000.0];
        params.nodes = vec![2, 4, 8];
        let report = run_lamanna_experiment(&params, 2, 1).unwrap();
        let text = experiment(&report);
        assert!(text.contains("eq. 11 over normal-burst runs"));
        assert_eq!(
            text.lines()
                .filter(|l| l.trim_start().starts_with("1000"))
                .count(),
            10
        );
        let json = serde_json::to_string(&report).unwrap();
        let back: ExperimentReport = serde_json::from_str(&json).unwrap();
        assert_eq!(experiment(&back), text);
        assert_eq!(
            run_lamanna_experiment(&params, 0, 1),
            Err(ExperimentError::ZeroRuns)
        );
    }
}
