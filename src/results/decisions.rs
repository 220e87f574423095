//! Decisions drawn from the card's parameters: which primitive wins below which
//! grain, which transport up to which size, which torus beyond which size, what
//! work a process needs for a given efficiency. Each is a formula of the rows'
//! values; its interval is the formula's smallest and largest value over the
//! corners of the rows' 95 % intervals (the formulas are monotone in each
//! parameter over the ranges that matter), so it is as wide as the parameters
//! allow and no narrower.

use super::card::{CardRow, Decision};
use super::{num, quantity};
use crate::model::sci::{SciApplication, SciComponents, crossover_nodes};

/// The largest system the torus crossover looks at.
const TORUS_MAX_NODES: u32 = 1 << 20;

/// The efficiency and team size of the eq. 13 decision.
const EFFICIENCY: f64 = 0.8;
const TEAM: f64 = 8.0;

/// A parameter for a formula: its value and interval (the value twice without one).
#[derive(Clone, Copy)]
struct Input {
    value: f64,
    range: [f64; 2],
}

fn find(rows: &[CardRow], kernel: &str, name: &str) -> Option<Input> {
    rows.iter()
        .find(|r| r.kernel == kernel && r.name == name)
        .map(|r| Input {
            value: r.value,
            range: r.ci95.unwrap_or([r.value, r.value]),
        })
}

/// `f` at the inputs' values, and its smallest and largest finite value over the
/// corners of their intervals.
fn evaluate(inputs: &[Input], f: impl Fn(&[f64]) -> Option<f64>) -> Option<(f64, [f64; 2])> {
    let values: Vec<f64> = inputs.iter().map(|i| i.value).collect();
    let value = f(&values)?;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for corner in 0..1u32 << inputs.len() {
        let x: Vec<f64> = inputs
            .iter()
            .enumerate()
            .map(|(i, p)| p.range[(corner >> i & 1) as usize])
            .collect();
        if let Some(y) = f(&x).filter(|y| y.is_finite()) {
            lo = lo.min(y);
            hi = hi.max(y);
        }
    }
    let ci = [lo.min(value), hi.max(value)];
    ci.iter().all(|x| x.is_finite()).then_some((value, ci))
}

fn decision(text: String, value: f64, unit: &str, ci: [f64; 2], kernels: &[&str]) -> Decision {
    Decision {
        text,
        value: Some(value),
        unit: unit.into(),
        ci95: Some(ci),
        kernels: kernels.iter().map(|k| k.to_string()).collect(),
    }
}

/// `value` with its interval in words, in engineering units.
fn with_interval(value: f64, ci: [f64; 2], unit: &str) -> String {
    format!(
        "{} (95 %: {} to {})",
        quantity(value, unit),
        quantity(ci[0], unit),
        quantity(ci[1], unit)
    )
}

/// The decisions the rows allow.
pub(super) fn decisions(rows: &[CardRow]) -> Vec<Decision> {
    [
        spin_or_park(rows),
        mailbox_or_channel(rows),
        torus(rows),
        efficiency(rows),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Hockney's eq. 10b per method, `t(s) = t0 + s / r_inf`: the grain below which
/// spinning's smaller t0 wins over parking, or, where the lines do not cross, the
/// grain below which the saving is more than a tenth of the work.
fn spin_or_park(rows: &[CardRow]) -> Option<Decision> {
    let (spin, park) = ("hockney-sync/spin-hint", "hockney-sync/events-park");
    let inputs = [
        find(rows, spin, "t0_ns")?,
        find(rows, park, "t0_ns")?,
        find(rows, spin, "r_inf_flop_per_s")?,
        find(rows, park, "r_inf_flop_per_s")?,
    ];
    let saving = inputs[1].value - inputs[0].value;
    if saving <= 0.0 {
        let text = format!(
            "parking (events-park) costs no more than spinning (spin-hint) per synchronisation: t0 {} against {}",
            quantity(inputs[1].value, "ns"),
            quantity(inputs[0].value, "ns")
        );
        return Some(decision(
            text,
            saving,
            "ns",
            [saving, saving],
            &[spin, park],
        ));
    }
    let crossing = |x: &[f64]| {
        let slope = 1.0 / x[2] - 1.0 / x[3];
        let s = (x[1] - x[0]) / slope * 1e9;
        (slope > 0.0 && s > 0.0).then_some(s)
    };
    let (value, ci, how) = match evaluate(&inputs, crossing) {
        Some((v, ci)) => (v, ci, "the two lines cross"),
        None => {
            let tenth = |x: &[f64]| Some(10.0 * (x[1] - x[0]) * 1e-9 * x[3]);
            let (v, ci) = evaluate(&inputs, tenth)?;
            (v, ci, "the saving falls under 10 % of the work")
        }
    };
    let text = format!(
        "spinning (spin-hint) beats parking (events-park) for work below about {} per synchronisation ({how}; t0 {} against {})",
        with_interval(value, ci, "flop"),
        quantity(inputs[0].value, "ns"),
        quantity(inputs[1].value, "ns")
    );
    Some(decision(text, value, "flop", ci, &[spin, park]))
}

/// The ping-pong lines `t(n) = t_startup + n t_per_byte` of the two transports:
/// the size up to which the mailbox is faster.
fn mailbox_or_channel(rows: &[CardRow]) -> Option<Decision> {
    let (m, c) = ("pingpong/mailbox", "pingpong/channel");
    let inputs = [
        find(rows, m, "t_startup_ns")?,
        find(rows, c, "t_startup_ns")?,
        find(rows, m, "t_per_byte_ns")?,
        find(rows, c, "t_per_byte_ns")?,
    ];
    let kernels = [m, c];
    if inputs[0].value >= inputs[1].value {
        let text = format!(
            "the channel starts a message no slower than the mailbox (t_startup {} against {})",
            quantity(inputs[1].value, "ns"),
            quantity(inputs[0].value, "ns")
        );
        return Some(decision(text, 0.0, "B", [0.0, 0.0], &kernels));
    }
    let crossing = |x: &[f64]| {
        let n = (x[1] - x[0]) / (x[2] - x[3]);
        (x[2] > x[3] && n > 0.0).then_some(n)
    };
    match evaluate(&inputs, crossing) {
        Some((n, ci)) => Some(decision(
            format!(
                "the mailbox beats the channel at every size up to about {}",
                with_interval(n, ci, "B")
            ),
            n,
            "B",
            ci,
            &kernels,
        )),
        // No crossing: no figure (JSON has no infinity).
        None => Some(Decision {
            text: format!(
                "the mailbox beats the channel at every size: a smaller start-up ({} against {}) and no larger cost per byte",
                quantity(inputs[0].value, "ns"),
                quantity(inputs[1].value, "ns")
            ),
            value: None,
            unit: "B".into(),
            ci95: None,
            kernels: kernels.iter().map(|k| k.to_string()).collect(),
        }),
    }
}

/// The SCI model (Gonzalez 2000) with this machine's o, l_p, l_f, l_s: the size
/// beyond which a 3-D torus has a smaller average latency than a 2-D one, for
/// 64-byte messages.
fn torus(rows: &[CardRow]) -> Option<Decision> {
    let k = "sci-decomposition/mailbox";
    let inputs = [
        find(rows, k, "propagation_lp_ns")?,
        find(rows, k, "forwarding_lf_ns")?,
        find(rows, k, "switching_ls_ns")?,
        find(rows, k, "overhead_o_ns")?,
    ];
    let cross = |x: &[f64]| {
        // Components below zero (noise) are where the model is undefined.
        let c = SciComponents::new(x[0], x[1], x[2], x[3], 0.0).ok()?;
        crossover_nodes(
            &c,
            64,
            SciApplication::AverageLatency,
            2,
            3,
            TORUS_MAX_NODES,
        )
        .ok()
        .flatten()
    };
    let (n, ci) = evaluate(&inputs, cross)?;
    Some(decision(
        format!(
            "a 3-D torus beats a 2-D one beyond about {} (average latency, 64 B, this machine's components; the interval carries only theirs that have one)",
            with_interval(n, ci, "nodes")
        ),
        n,
        "nodes",
        ci,
        &[k],
    ))
}

/// Lamanna's eq. 13, `T = a + b U/N + c N` with efficiency `U / (N T)`: the
/// uniprocessor time `U` from which `N = 8` reaches 80 %.
fn efficiency(rows: &[CardRow]) -> Option<Decision> {
    let k = ["speedup/mailbox", "speedup/channel"]
        .into_iter()
        .find(|k| find(rows, k, "b").is_some())?;
    let inputs = [
        find(rows, k, "a_ms")?,
        find(rows, k, "b")?,
        find(rows, k, "c_ms_per_node")?,
    ];
    // U / (N a + b U + c N^2) >= E  <=>  U >= E (N a + c N^2) / (1 - E b).
    let needed = |x: &[f64]| {
        let room = 1.0 - EFFICIENCY * x[1];
        (room > 0.0).then(|| (EFFICIENCY * (TEAM * x[0] + x[2] * TEAM * TEAM) / room).max(0.0))
    };
    let Some((u, ci)) = evaluate(&inputs, needed) else {
        return Some(Decision {
            text: format!(
                "{:.0} % efficiency is out of reach at N = {TEAM}: eq. 13's b = {} leaves no room (b must be below {})",
                EFFICIENCY * 100.0,
                num(inputs[1].value),
                num(1.0 / EFFICIENCY)
            ),
            value: None,
            unit: "ms".into(),
            ci95: None,
            kernels: vec![k.into()],
        });
    };
    Some(decision(
        format!(
            "{:.0} % efficiency needs U of at least {} at N = {TEAM} ({k})",
            EFFICIENCY * 100.0,
            with_interval(u, ci, "ms")
        ),
        u,
        "ms",
        ci,
        &[k],
    ))
}
