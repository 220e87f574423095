//! `predict`: a GOAL schedule's time on this machine simulated under LogGOPS
//! ([`crate::model::simulator::simulate_goal`]) with the costs a result file
//! measured, with a 95 % interval propagated from theirs, for the placement the
//! replay ([`super::replay`]) uses, so that prediction and replay are one thing.
//!
//! # Each symbol and the measurement that defines it (per transport)
//! - `o`, CPU overhead a message: Krumme & Greenfield's `S0` and `R0` (the
//!   send call's CPU time, the receive call's on an arrived message), from the
//!   `overheads` kernel, measured on a pinned pair as the replay runs: LogGOPS
//!   charges one `o` at each end, so `o = (S0 + R0)/2`. Only where no pinned row
//!   exists, the decomposition's (hosted virtual nodes, whose CPUs carry other
//!   nodes' work), and a note says so. `o` is at most half the ping-pong's
//!   start-up, which is `o + L + o` (below): a receiver that polls pulls a
//!   message's lines while it flies (`L`), one that computes pulls them in its
//!   receive call, so `S0 + R0` may exceed the start-up; `o` is then cut, and
//!   a note says so.
//! - `O`, CPU overhead a byte: LogGOPS charges a byte `O` at the sender and
//!   `max(O, G)` at the receiver (the receive waits for the data), so the CPU
//!   time a message costs both ends, `S1 + R1` a byte, fixes
//!   `O = max(0, S1 + R1 - G)` (or `(S1 + R1)/2` above `2G`). Not resolved:
//!   `O = 0`, the least the data allow.
//! - `L`: scibench's ping-pong start-up `t_startup` (half the round trip, the
//!   line's intercept) is LogP's `o + L + o` for a small message, so
//!   `L = t_startup - 2o`, at least 0.
//! - `g`: scibench's one-way stream, its 8-byte time a message: a stream is
//!   paced by the gap between messages, `max(g, o)` in LogGOPS.
//! - `G`: the ping-pong line's `t_per_byte`: a message of `s` bytes adds
//!   `(s-1) max(O, G)` from send to receive, the slope of the one-way time.
//! - A message after an idle wait (`overheads`' cold line `C0`, where
//!   present): `L_cold = C0 - 2o` flies a message whose sender has sent or
//!   taken none for [`COLD_IDLE_NS`] (the kernel's idle wait); others `L`.
//! - `S` (rendezvous threshold): none; the thread transports send every
//!   message eagerly (the replay's buffers hold its largest), so `S` is above it.
//! - Ranks sharing a CPU ([`Placement::shared`], `--oversubscribe`, rank `r`
//!   on CPU `r mod C`) wait by yielding: their CPU work is serialised and a
//!   turn of the CPU to another rank costs a yield turn ([`switch_input`],
//!   measured on the CPU by [`crate::platform::yield_turns`]; no kernel has it).
//! - A `//@ sync` meeting: its method's `t0_ns` (awake), `predict_sync`.
//!
//! # What is simulated: the replay's trial
//! The replay's rank 0 sends an 8-byte `go` to every rank in turn, runs its ops,
//! and stops its clock when every rank's `done` has arrived; [`framed`] adds
//! these messages, and the clock reads on the path (each other rank's after
//! `go` and before `done`, rank 0's: the file's `read_overhead_ns`), to the
//! schedule: the prediction is rank 0's finish in it, what the replay times.
//! A rank starts its ready ops before it polls, so a message that waits for a
//! busy CPU goes behind them (`Charges::ops_first`): an exchange sends first.
//!
//! # Intervals
//! Every input is drawn from a split normal through its 95 % interval
//! ([`crate::model::hockney_program::monte_carlo`], independent draws, fixed
//! seed) and the schedule simulated for each draw; the interval is the 2.5th and
//! 97.5th percentiles of rank 0's finish. An input without an interval is held.
//!
//! # Inputs and their marks
//! Inputs are the card rows of the result files given ([`gather`]): a later
//! file's row replaces an earlier one's (the validation's own measurements
//! replace the file's). Each keeps its trust mark (`virtual`, `noisy`,
//! `flagged fit`, `busy`); the prediction lists every input that is not `ok`.
//! A missing input is a [`PredictError::Missing`] that names the kernel to run.
#![forbid(unsafe_code)]

pub use super::predict_inputs::{Input, Inputs, PredictError};
use super::predict_sync::{meeting_costs, meeting_rows};
use super::predict_vector::{timed, vector_rows};
use crate::analysis::{card_of, kernel_key};
use crate::model::goal::{Op, OpKind, RankSchedule, Schedule};
use crate::model::hockney_program::{Estimate, monte_carlo};
use crate::model::simulator::{Charges, ColdLatency, LogGops, Placement, simulate_goal_charged};
use crate::results::{ResultFile, Trust, unit_of};
use crate::transport::TransportKind;
use serde::Serialize;

/// The tag of the replay's `go` and `done` messages.
pub const FRAME_TAG: u32 = u32::MAX;
/// The bytes of a `go` or `done` message.
pub const FRAME_BYTES: u64 = 8;
/// The name of the switch input: a turn of a CPU between two yielding threads.
pub const SWITCH_NAME: &str = "t_turn_ns";

/// The switch input from batches' times a turn (`yield_turns` on `cpu`): their
/// median, with the batches' range as its interval (with 5 batches or more,
/// the range holds the median with 94 % or more, whatever their spread).
pub fn switch_input(turn_ns: &[f64], cpu: usize) -> Option<Input> {
    let mut t: Vec<f64> = turn_ns.iter().copied().filter(|v| v.is_finite()).collect();
    t.sort_by(f64::total_cmp);
    let value = *t.get(t.len() / 2)?;
    Some(Input {
        symbol: "switch",
        kernel: format!("platform/yield-turn cpu {cpu}"),
        name: SWITCH_NAME.into(),
        value,
        unit: "ns".into(),
        ci95: (t.len() >= 5).then(|| [t[0], t[t.len() - 1]]),
        trust: crate::results::Trust::Ok.mark().into(),
        file: "measured before predicting".into(),
    })
}

/// `inputs` with the switch `s` after the message rows (replacing one there).
pub fn with_switch(inputs: &mut Inputs, s: Input) {
    inputs.rows.retain(|r| r.symbol != "switch");
    let at = inputs
        .rows
        .iter()
        .position(|r| !matches!(r.symbol, "o" | "O" | "L" | "G" | "g"))
        .unwrap_or(inputs.rows.len());
    inputs.rows.insert(at, s);
}

/// What a row to look for is.
struct Need {
    symbol: &'static str,
    kernel: String,
    name: &'static str,
    run: String,
}

/// The kernel whose pinned `S` and `R` give `o` and `O`.
pub const OVERHEADS: &str = "overheads";
/// The kernel whose hosted nodes' `S` and `R` stand in where no pinned ones exist.
pub const HOSTED_OVERHEADS: &str = "decomposition";

fn need(symbol: &'static str, kernel: String, name: &'static str, run: String) -> Need {
    Need {
        symbol,
        kernel,
        name,
        run,
    }
}

/// The rows of `S0, R0, S1, R1` over `t`: the pinned pair's (`overheads`), or
/// with `hosted` the decomposition's.
fn overhead_needs(t: &str, hosted: bool) -> Vec<Need> {
    let (kernel, names) = match hosted {
        true => (
            HOSTED_OVERHEADS,
            [
                "int_s0_ns",
                "int_r0_ns",
                "int_s1_ns_per_byte",
                "int_r1_ns_per_byte",
            ],
        ),
        false => (
            OVERHEADS,
            ["s0_ns", "r0_ns", "s1_ns_per_byte", "r1_ns_per_byte"],
        ),
    };
    let run = format!("{kernel} --transport {t}");
    names
        .into_iter()
        .zip(["o", "o", "O", "O"])
        .map(|(name, symbol)| need(symbol, format!("{kernel}/{t}"), name, run.clone()))
        .collect()
}

/// The rows after the overheads a prediction over `t` needs.
fn message_needs(t: &str) -> Vec<Need> {
    let pp = format!("pingpong --transport {t}");
    vec![
        need("L", format!("pingpong/{t}"), "t_startup_ns", pp.clone()),
        need("G", format!("pingpong/{t}"), "t_per_byte_ns", pp),
        need(
            "g",
            format!("oneway/{t}"),
            "one_way_ns",
            format!("oneway --transport {t}"),
        ),
    ]
}

/// The optional row of a message after an idle wait (`overheads`' `C0`).
fn cold_need(t: &str) -> Need {
    need(
        "L_cold",
        format!("{OVERHEADS}/{t}"),
        "c0_ns",
        format!("{OVERHEADS} --transport {t}"),
    )
}

/// The row `need` from the last of `files` that has it (card row, else a
/// recorded headline parameter); `None` without a finite one.
fn find(
    files: &[(&str, &ResultFile)],
    cards: &[(&str, Vec<crate::results::CardRow>)],
    need: &Need,
) -> Option<Input> {
    let found = cards.iter().rev().find_map(|(file, rows)| {
        let r = rows
            .iter()
            .find(|r| r.kernel == need.kernel && r.name == need.name)?;
        Some(Input {
            symbol: need.symbol,
            kernel: r.kernel.clone(),
            name: r.name.clone(),
            value: r.value,
            unit: r.unit.clone(),
            ci95: r.ci95,
            trust: r.trust.mark().into(),
            file: (*file).into(),
        })
    });
    // An unresolved row (a flagged fit, an interval through zero) is used
    // and marked: the prediction lists the inputs it rests on.
    found
        .or_else(|| headline_input(files, need))
        .filter(|i| i.value.is_finite())
}

/// The inputs for `transport` from `files` (name, document), a later file's
/// row replacing an earlier one's (the switch of ranks sharing CPUs is
/// measured, [`with_switch`]). `o` and `O` come from the pinned pair's `S` and `R`
/// whenever every one of their rows is in the files, else from the
/// decomposition's hosted nodes (never mixed).
pub fn gather(
    files: &[(&str, &ResultFile)],
    transport: TransportKind,
) -> Result<Inputs, PredictError> {
    let t = transport.name();
    let cards: Vec<_> = files.iter().map(|(n, f)| (*n, card_of(f).rows)).collect();
    let missing = |need: Need| PredictError::Missing {
        files: files.iter().map(|f| f.0).collect::<Vec<_>>().join(", "),
        name: need.name.into(),
        kernel: need.kernel,
        symbol: need.symbol,
        run: need.run,
    };
    let all = |needs: Vec<Need>| -> Result<Vec<Input>, Need> {
        needs
            .into_iter()
            .map(|n| find(files, &cards, &n).ok_or(n))
            .collect()
    };
    let mut rows = match all(overhead_needs(t, false)) {
        Ok(pinned) => pinned,
        // Neither set whole: the pinned kernel is the one to run.
        Err(first) => all(overhead_needs(t, true)).map_err(|_| missing(first))?,
    };
    rows.extend(all(message_needs(t)).map_err(missing)?);
    rows.extend(find(files, &cards, &cold_need(t)));
    rows.extend(clock_input(files));
    Ok(Inputs {
        transport: t.into(),
        rows,
    })
}

/// The clock's read overhead of the last of `files` that measured it: the
/// replay's reads on the path of a trial ([`clocked_frame`]).
fn clock_input(files: &[(&str, &ResultFile)]) -> Option<Input> {
    let (file, doc) = files
        .iter()
        .rev()
        .find(|(_, d)| d.machine.clock.read_overhead_ns > 0.0)?;
    Some(Input {
        symbol: "clock",
        kernel: "machine".into(),
        name: "clock_read_overhead_ns".into(),
        value: doc.machine.clock.read_overhead_ns,
        unit: "ns".into(),
        ci95: None,
        trust: Trust::Ok.mark().into(),
        file: (*file).into(),
    })
}

/// A recorded headline parameter the card leaves out (a file whose kernel has
/// no fit to derive the card's row from), marked by the card's rule: busy,
/// virtual, then noisy (an interval wider than a fifth of the value).
fn headline_input(files: &[(&str, &ResultFile)], need: &Need) -> Option<Input> {
    files.iter().rev().find_map(|(file, doc)| {
        let k = doc.kernels.iter().find(|k| kernel_key(k) == need.kernel)?;
        let p = k.headline.iter().find(|p| p.name == need.name)?;
        let trust = crate::analysis::trust(k, false, p.value, p.ci95, false);
        Some(Input {
            symbol: need.symbol,
            kernel: need.kernel.clone(),
            name: p.name.clone(),
            value: p.value,
            unit: unit_of(&p.name).into(),
            ci95: p.ci95,
            trust: trust.mark().into(),
            file: (*file).into(),
        })
    })
}

impl Inputs {
    /// Whether the start-up (`S0`, `R0`) and per-byte (`S1`, `R1`) lines of
    /// `S` and `R` are resolved: neither row marked `not resolved`.
    fn resolved(&self) -> [bool; 2] {
        let ok = |i: usize| {
            self.rows
                .get(i)
                .is_none_or(|r| r.trust != Trust::Unresolved.mark())
        };
        [ok(0) && ok(1), ok(2) && ok(3)]
    }

    /// The LogGOPS parameters and the switch cost from one draw `x` of the
    /// rows' values, in [`Inputs::rows`]' order; whether resolved `S0 + R0`
    /// exceeded the ping-pong's start-up, so that `o` was cut to its half.
    pub fn loggops(&self, x: &[f64]) -> (LogGops, f64, bool) {
        let [o_known, big_o_known] = self.resolved();
        let g_pb = x[5].max(0.0);
        let sr0 = ((x[0] + x[1]) / 2.0).max(0.0);
        // A small message's ping-pong time is o + L + o: o at most its half,
        // whether S0 + R0 exceed it or are unknown.
        let o = sr0.min(x[4].max(0.0) / 2.0);
        let l = x[4] - 2.0 * o;
        // LogGOPS charges a byte O at the sender and max(O, G) at the
        // receiver: O + max(O, G) = S1 + R1. Unknown: the least, 0.
        let sr = (x[2] + x[3]).max(0.0);
        let big_o = match (big_o_known, sr <= 2.0 * g_pb) {
            (false, _) => 0.0,
            (true, true) => (sr - g_pb).max(0.0),
            (true, false) => sr / 2.0,
        };
        let p = LogGops {
            l_ns: l.max(0.0),
            o_ns: o,
            g_ns: x[6].max(0.0),
            big_g_ns_per_byte: g_pb,
            big_o_ns_per_byte: big_o,
            s_bytes: u64::MAX,
        };
        let switch = self.rows.iter().position(|r| r.symbol == "switch");
        let switch = switch.and_then(|i| x.get(i)).copied().unwrap_or(0.0);
        (p, switch.max(0.0), o_known && sr0 > o)
    }

    fn estimates(&self) -> Vec<Estimate> {
        self.rows
            .iter()
            // Krumme & Greenfield's differences may fall below zero.
            .map(|r| match r.kernel.starts_with("decomposition") {
                true => Estimate::signed(r.value, r.ci95),
                false => Estimate::new(r.value, r.ci95),
            })
            .collect()
    }

    /// Every input that is not `ok`: `mark name`.
    pub fn marks(&self) -> Vec<String> {
        self.rows
            .iter()
            .filter(|r| r.trust != Trust::Ok.mark())
            .map(|r| format!("{} {} ({})", r.trust, r.name, r.kernel))
            .collect()
    }
}

/// `schedule` with the replay's trial around it: rank 0 sends `go` to ranks
/// 1.. in turn before its own ops, every other rank's ops wait for its `go`,
/// and every other rank sends `done` to rank 0 after its ops, which rank 0
/// receives after its own.
pub fn framed(schedule: &Schedule) -> Schedule {
    clocked_frame(schedule, 0)
}

/// [`framed`] with the replay's clock reads of `clock_ns` each, where above
/// 0: every other rank reads its clock after `go` (its start) and before
/// `done` (its finish), and rank 0's two reads around the trial cost about
/// one, after its last `done`.
pub fn clocked_frame(schedule: &Schedule, clock_ns: u64) -> Schedule {
    let n = schedule.num_ranks;
    let mut out = schedule.clone();
    if n < 2 {
        return out;
    }
    let op = |label: String, kind, requires: Vec<u32>| Op {
        label: label.into(),
        kind,
        requires: requires.into(),
        irequires: Default::default(),
        line: 0,
        vector: None,
        sync: None,
    };
    for (r, rank) in out.ranks.iter_mut().enumerate() {
        let own = rank.ops.len() as u32;
        let mut ops: Vec<Op> = Vec::new();
        // The frame's opening ops come first; the schedule's ops shift by them.
        let opening: Vec<Op> = match r {
            0 => (1..n)
                .map(|p| {
                    let kind = OpKind::Send {
                        bytes: FRAME_BYTES,
                        peer: p,
                        tag: FRAME_TAG,
                    };
                    let prev = if p > 1 { vec![p - 2] } else { Vec::new() };
                    op(format!("#go{p}"), kind, prev)
                })
                .collect(),
            _ => {
                let go = OpKind::Recv {
                    bytes: FRAME_BYTES,
                    peer: 0,
                    tag: FRAME_TAG,
                };
                let mut v = vec![op("#go".into(), go, Vec::new())];
                if clock_ns > 0 {
                    v.push(op("#start".into(), OpKind::Calc { ns: clock_ns }, vec![0]));
                }
                v
            }
        };
        let k = opening.len() as u32;
        ops.extend(opening);
        for o in &rank.ops {
            let mut o = o.clone();
            o.requires.iter_mut().for_each(|d| *d += k);
            o.irequires.iter_mut().for_each(|d| *d += k);
            o.requires.push(k - 1);
            ops.push(o);
        }
        let mut all: Vec<u32> = (0..k + own).collect();
        let clock = OpKind::Calc { ns: clock_ns };
        match r {
            0 => {
                ops.extend((1..n).map(|p| {
                    let kind = OpKind::Recv {
                        bytes: FRAME_BYTES,
                        peer: p,
                        tag: FRAME_TAG,
                    };
                    op(format!("#done{p}"), kind, all.clone())
                }));
                if clock_ns > 0 {
                    let every: Vec<u32> = (0..ops.len() as u32).collect();
                    ops.push(op("#stop".into(), clock, every));
                }
            }
            _ => {
                if clock_ns > 0 {
                    ops.push(op("#finish".into(), clock, all));
                    all = vec![ops.len() as u32 - 1];
                }
                let kind = OpKind::Send {
                    bytes: FRAME_BYTES,
                    peer: 0,
                    tag: FRAME_TAG,
                };
                ops.push(op("#done".into(), kind, all));
            }
        }
        *rank = RankSchedule { ops };
    }
    out
}

/// A predicted time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// Rank 0's time in the framed schedule at the inputs' values, ns.
    pub time_ns: f64,
    /// Its 95 % interval from the inputs' intervals, ns.
    pub ci95_ns: [f64; 2],
    /// Each rank's finish at the inputs' values, ns (framed schedule).
    pub finish_ns: Vec<f64>,
    /// The LogGOPS parameters at the inputs' values.
    pub loggops: LogGops,
    /// The cost of a CPU's turn to another rank, ns (0 when pinned).
    pub switch_ns: f64,
    /// The CPU of each rank.
    pub cpu_of_rank: Vec<u32>,
    /// The inputs.
    pub inputs: Inputs,
    /// The inputs that are not `ok`.
    pub marks: Vec<String>,
    /// What the reader should know (a cut `o`, hosted `S` and `R`, an `O` above `G`).
    pub notes: Vec<String>,
}

/// Predicts the replay's time of `schedule` with `inputs` on `cpus` CPUs (one
/// rank a CPU when the ranks fit, else shared round robin).
pub fn predict(
    schedule: &Schedule,
    inputs: &Inputs,
    cpus: u32,
) -> Result<Prediction, PredictError> {
    let clock = inputs.rows.iter().find(|r| r.symbol == "clock");
    let framed = clocked_frame(
        schedule,
        clock.map_or(0, |c| c.value.max(0.0).round() as u64),
    );
    let n = schedule.num_ranks;
    let shared = n > cpus.max(1);
    let placement = |switch: f64| match shared {
        true => Placement::shared(n, cpus, switch),
        false => Placement::dedicated(n),
    };
    let values: Vec<f64> = inputs.rows.iter().map(|r| r.value).collect();
    let (p, switch_ns, cut) = inputs.loggops(&values);
    // Vector calcs timed from each draw's r_inf and n_1/2, meetings from its t_0.
    let rows = vector_rows(inputs);
    let meetings = meeting_rows(schedule, inputs);
    let at = |x: &[f64], p: &LogGops, s: f64| {
        let t = timed(&framed, &rows, x);
        let costs = meeting_costs(&meetings, x);
        let charges = Charges {
            meeting_ns: &costs,
            cold: cold(inputs, x, p),
            ops_first: true,
        };
        simulate_goal_charged(
            t.as_ref().unwrap_or(&framed),
            p,
            Some(&placement(s)),
            &charges,
        )
    };
    let central = at(&values, &p, switch_ns)?;
    let ci95_ns = monte_carlo(&inputs.estimates(), |x| {
        let (p, s, _) = inputs.loggops(x);
        at(x, &p, s).map_or(f64::NAN, |r| r.finish_ns[0])
    });
    let mut notes = Vec::new();
    let source = inputs.rows.first().map_or("", |r| r.kernel.as_str());
    let hosted = source.starts_with(HOSTED_OVERHEADS);
    if hosted {
        notes.push(format!(
            "o and O: no pinned S and R (`halfperf run {OVERHEADS} --transport {}`) in the files; the decomposition's hosted virtual nodes stand in, whose CPUs carry other nodes' work",
            inputs.transport
        ));
    }
    if cut {
        notes.push(format!(
            "o: S0 + R0 = {:.1} ns ({source}) exceed the ping-pong's start-up, {:.1} ns, the whole of o + L + o: a receiver that polls takes a message's lines in its flight, one that computes in R0; o = t_startup / 2 = {:.1} ns and L = 0",
            values[0] + values[1],
            values[4],
            p.o_ns
        ));
    }
    let [o_known, big_o_known] = inputs.resolved();
    if !o_known {
        notes.push(format!(
            "o: S0 and R0 ({source}) are not resolved; o = {:.1} ns, at most t_startup / 2",
            p.o_ns
        ));
    }
    if !big_o_known {
        notes.push(format!(
            "O: S1 and R1 ({source}) are not resolved; O = 0, the receiver's CPU pays G a byte"
        ));
    }
    if p.big_o_ns_per_byte > p.big_g_ns_per_byte {
        notes.push(format!(
            "O = {:.4} ns/B exceeds G = {:.4}: a long message costs the CPUs more than the ping-pong's slope",
            p.big_o_ns_per_byte, p.big_g_ns_per_byte
        ));
    }
    notes.extend(cold_note(inputs, &values, &p));
    notes.extend(super::predict_sync::meeting_note(schedule));
    if shared && !inputs.rows.iter().any(|r| r.symbol == "switch") {
        notes.push("ranks share CPUs but no CPU switch was given: switches cost 0".into());
    }
    Ok(Prediction {
        time_ns: central.finish_ns[0],
        ci95_ns,
        finish_ns: central.finish_ns,
        loggops: p,
        switch_ns: if shared { switch_ns } else { 0.0 },
        cpu_of_rank: placement(switch_ns).cpu_of_rank,
        marks: inputs.marks(),
        inputs: inputs.clone(),
        notes,
    })
}

/// The idle wait before the `overheads` kernel's cold round trip, ns: a
/// message whose sender has not sent or taken one for longer is cold.
pub const COLD_IDLE_NS: f64 = 10_000.0;

/// The cold latency at the draw `x`: `L_cold = C0 - 2o` (at least 0) beyond
/// [`COLD_IDLE_NS`], where the files hold `overheads`' `C0`.
fn cold(inputs: &Inputs, x: &[f64], p: &LogGops) -> Option<ColdLatency> {
    let i = inputs.rows.iter().position(|r| r.symbol == "L_cold")?;
    Some(ColdLatency {
        idle_ns: COLD_IDLE_NS,
        l_ns: (x[i] - 2.0 * p.o_ns).max(0.0),
    })
}

/// The note on a message after an idle wait: `L_cold = C0 - 2o`, charged to
/// every message sent after an idle gap, against the ping-pong's `L`, where
/// they differ by more than a fifth of the ping-pong's start-up.
fn cold_note(inputs: &Inputs, x: &[f64], p: &LogGops) -> Option<String> {
    let c = cold(inputs, x, p)?;
    let i = inputs.rows.iter().position(|r| r.symbol == "L_cold")?;
    ((c.l_ns - p.l_ns).abs() > 0.2 * x[4].abs()).then(|| format!(
        "a message sent after {:.0} us without one: C0 = {:.1} ns, so L_cold = C0 - 2o = {:.1} ns, charged instead of L = {:.1} ns",
        COLD_IDLE_NS / 1000.0,
        x[i],
        c.l_ns,
        p.l_ns
    ))
}

#[cfg(test)]
#[path = "predict_tests.rs"]
mod tests;
