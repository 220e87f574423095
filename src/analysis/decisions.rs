//! Decisions drawn from the card's parameters: which primitive wins below which
//! grain, which transport up to which size, which torus beyond which size, what
//! work a process needs for a given efficiency. Each is a formula of the rows'
//! values, and says no more than its inputs allow:
//!
//! - a crossing of two lines that lies beyond everything measured (or that does
//!   not exist) is said as "at every grain measured (up to G)", not as a number
//!   the run never saw;
//! - an interval is the formula's smallest and largest value over the corners of
//!   the inputs' 95 % intervals (the formulas are monotone in each input over the
//!   ranges that matter); where an input has no interval, the decision prints
//!   none and names the inputs that had none, since a range over the others alone
//!   would look tighter than the data allow;
//! - eq. 18's work for an efficiency, `U = E (N a + c N^2) / (1 - E b)`, takes
//!   eq. 13's coefficients together with their covariance, rebuilt from the
//!   speedup points, in Fieller's interval: corners taken independently reach a
//!   negative overhead (the intercept `a` and the slope `c` move against each
//!   other) and were cut at zero, and a denominator `1 - E b` whose interval
//!   reaches zero has no upper end, which the interval now says.

use super::card_rows::t975;
use super::eq13_interval::{WorkInterval, eq13_covariance};
use super::kernel_key;
use crate::model::sci::{SciApplication, SciComponents, crossover_nodes};
use crate::results::{CardRow, Decision, KernelResult, num, quantity};

/// The largest system the torus crossover looks at.
const TORUS_MAX_NODES: u32 = 1 << 20;

/// The efficiency and team size of the eq. 13 decision.
const EFFICIENCY: f64 = 0.8;
const TEAM: f64 = 8.0;

/// A parameter for a formula: its value and its interval, where it has one.
#[derive(Clone, Copy)]
struct Input {
    label: &'static str,
    value: f64,
    range: Option<[f64; 2]>,
}

fn find(rows: &[CardRow], kernel: &str, name: &str, label: &'static str) -> Option<Input> {
    rows.iter()
        .find(|r| r.kernel == kernel && r.name == name)
        .map(|r| Input {
            label,
            value: r.value,
            range: r.ci95,
        })
}

fn values(inputs: &[Input]) -> Vec<f64> {
    inputs.iter().map(|i| i.value).collect()
}

/// The labels of the inputs without an interval.
fn without_interval(inputs: &[Input]) -> Vec<&'static str> {
    inputs
        .iter()
        .filter(|i| i.range.is_none())
        .map(|i| i.label)
        .collect()
}

/// "no interval: l_p, l_f have none".
fn no_interval(labels: &[&str]) -> String {
    let verb = if labels.len() == 1 { "has" } else { "have" };
    format!("no interval: {} {verb} none", labels.join(", "))
}

/// `f`'s smallest and largest value over the corners of the inputs' intervals
/// (NaN where `f` is undefined is skipped), `None` when an input has no interval
/// or no corner is defined.
fn corners(inputs: &[Input], f: impl Fn(&[f64]) -> f64) -> Option<[f64; 2]> {
    let ranges: Vec<[f64; 2]> = inputs.iter().map(|i| i.range).collect::<Option<_>>()?;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for corner in 0..1u32 << inputs.len() {
        let x: Vec<f64> = ranges
            .iter()
            .enumerate()
            .map(|(i, r)| r[(corner >> i & 1) as usize])
            .collect();
        let y = f(&x);
        if !y.is_nan() {
            lo = lo.min(y);
            hi = hi.max(y);
        }
    }
    (lo <= hi).then_some([lo, hi])
}

fn decision(
    text: String,
    value: Option<f64>,
    unit: &str,
    ci: Option<[f64; 2]>,
    kernels: &[&str],
) -> Decision {
    Decision {
        text,
        value,
        unit: unit.into(),
        // JSON has no infinity.
        ci95: ci.filter(|c| c.iter().all(|x| x.is_finite())),
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

/// The decisions the rows allow; `kernels` give what the rows do not (the largest
/// grain or size measured, the speedup points).
pub(super) fn decisions(rows: &[CardRow], kernels: &[KernelResult]) -> Vec<Decision> {
    [
        spin_or_park(rows, kernels),
        mailbox_or_channel(rows, kernels),
        torus(rows),
        efficiency(rows, kernels),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The largest value of the swept `name` over the points of the named kernels.
fn largest(kernels: &[KernelResult], keys: &[&str], name: &str) -> Option<f64> {
    kernels
        .iter()
        .filter(|k| keys.contains(&kernel_key(k).as_str()))
        .flat_map(|k| k.points.iter().filter_map(|p| p.number(name)))
        .reduce(f64::max)
}

/// Where the first of two lines `t = t0 + x / r` (the one that starts lower)
/// stops being the cheaper: inputs `[t0 first, t0 second, slope first, slope
/// second]` with slopes in time per unit of `x`; infinite where the lines do not
/// cross, zero where the first does not start lower.
fn crossing_of(x: &[f64]) -> f64 {
    let (saving, slope) = (x[1] - x[0], x[2] - x[3]);
    if saving <= 0.0 {
        0.0
    } else if slope <= 0.0 {
        f64::INFINITY
    } else {
        saving / slope
    }
}

/// The words of a crossing decision.
struct Crossing<'a> {
    /// "spinning (spin-hint) beats parking (events-park)".
    who: &'a str,
    /// "grain", "size".
    swept: &'a str,
    /// "for work below about", "at every size up to about".
    below: &'a str,
    /// What follows the figure (" per synchronisation").
    per: &'a str,
    /// The parameters behind it, in words ("t0 196 ns against 48.9 us").
    facts: String,
    unit: &'a str,
    /// The largest value of the swept variable the run measured.
    largest: Option<f64>,
}

/// A decision from the crossing of two lines, saying "at every ... measured" where
/// the crossing (at the values) is beyond the largest value measured.
fn crossing_decision(inputs: &[Input], c: Crossing<'_>, kernels: &[&str]) -> Decision {
    let value = crossing_of(&values(inputs));
    let missing = without_interval(inputs);
    let ci = corners(inputs, crossing_of);
    let top = c.largest.unwrap_or(f64::INFINITY);
    if value > top {
        let up_to = c.largest.map_or(String::new(), |g| {
            format!(" (up to {})", quantity(g, c.unit))
        });
        let note = match ci {
            Some([lo, _]) if lo <= top => format!(
                "; within the parameters' 95 % intervals the lines could cross from about {}",
                quantity(lo, c.unit)
            ),
            Some(_) => String::new(),
            None => format!("; {}", no_interval(&missing)),
        };
        let text = format!(
            "{} at every {} measured{up_to}: {}{note}",
            c.who, c.swept, c.facts
        );
        return decision(text, None, c.unit, None, kernels);
    }
    let (figure, ci) = match ci {
        None => (
            format!("{} ({})", quantity(value, c.unit), no_interval(&missing)),
            None,
        ),
        Some([lo, hi]) if hi > top => (
            format!(
                "{} (95 %: {} to beyond the largest {} measured, {})",
                quantity(value, c.unit),
                quantity(lo, c.unit),
                c.swept,
                quantity(top, c.unit)
            ),
            None,
        ),
        Some(ci) => (with_interval(value, ci, c.unit), Some(ci)),
    };
    let text = format!("{} {} {figure}{} ({})", c.who, c.below, c.per, c.facts);
    decision(text, Some(value), c.unit, ci, kernels)
}

/// Hockney's eq. 10b per method, `t(s) = t0 + s / r_inf`: the grain below which
/// spinning's smaller t0 wins over parking.
fn spin_or_park(rows: &[CardRow], kernels: &[KernelResult]) -> Option<Decision> {
    let (spin, park) = ("hockney-sync/spin-hint", "hockney-sync/events-park");
    let r_spin = find(rows, spin, "r_inf_flop_per_s", "r_inf (spin-hint)")?;
    let r_park = find(rows, park, "r_inf_flop_per_s", "r_inf (events-park)")?;
    // Nanoseconds per flop: the lines' slopes; an interval of r_inf gives one of 1/r_inf.
    let per_flop = |r: Input| Input {
        value: 1e9 / r.value,
        range: r.range.map(|[lo, hi]| [1e9 / hi, 1e9 / lo]),
        ..r
    };
    // Where parking's t0 is its awake hand-overs' (the rounds whose waits
    // found their posts made), the parking that a choice between the two is
    // about, a waiter that sleeps, costs t0 + t_wake: the sum, its interval
    // the sum of the ends.
    let t0_park = find(rows, park, "t0_ns", "t0 (events-park)")?;
    let wake = find(rows, park, "t_wake_ns", "t_wake (events-park)");
    let asleep = wake.map(|w| Input {
        label: "t0 + t_wake (events-park)",
        value: t0_park.value + w.value,
        range: t0_park
            .range
            .zip(w.range)
            .map(|([a, b], [c, d])| [a + c, b + d]),
    });
    let inputs = [
        find(rows, spin, "t0_ns", "t0 (spin-hint)")?,
        asleep.unwrap_or(t0_park),
        per_flop(r_spin),
        per_flop(r_park),
    ];
    let park_t0 = match wake {
        Some(w) => format!(
            "{} + {} a sleep",
            quantity(t0_park.value, "ns"),
            quantity(w.value, "ns")
        ),
        None => quantity(t0_park.value, "ns"),
    };
    if inputs[1].value <= inputs[0].value {
        let saving = inputs[1].value - inputs[0].value;
        let text = format!(
            "parking (events-park) costs no more than spinning (spin-hint) per synchronisation: t0 {park_t0} against {}",
            quantity(inputs[0].value, "ns")
        );
        return Some(decision(text, Some(saving), "ns", None, &[spin, park]));
    }
    let facts = format!(
        "t0 {} against {park_t0}, r_inf {} against {}",
        quantity(inputs[0].value, "ns"),
        quantity(r_spin.value, "flop/s"),
        quantity(r_park.value, "flop/s")
    );
    let words = Crossing {
        who: match wake {
            Some(_) => "spinning (spin-hint) beats parking (events-park) with its waiter asleep",
            None => "spinning (spin-hint) beats parking (events-park)",
        },
        swept: "grain",
        below: "for work below about",
        per: " per synchronisation",
        facts,
        unit: "flop",
        largest: largest(kernels, &[spin, park], "grain_flop"),
    };
    Some(crossing_decision(&inputs, words, &[spin, park]))
}

/// The ping-pong lines `t(n) = t_startup + n t_per_byte` of the two transports:
/// the size up to which the mailbox is faster.
fn mailbox_or_channel(rows: &[CardRow], kernels: &[KernelResult]) -> Option<Decision> {
    let (m, c) = ("pingpong/mailbox", "pingpong/channel");
    let inputs = [
        find(rows, m, "t_startup_ns", "t_startup (mailbox)")?,
        find(rows, c, "t_startup_ns", "t_startup (channel)")?,
        find(rows, m, "t_per_byte_ns", "t_per_byte (mailbox)")?,
        find(rows, c, "t_per_byte_ns", "t_per_byte (channel)")?,
    ];
    if inputs[0].value >= inputs[1].value {
        let text = format!(
            "the channel starts a message no slower than the mailbox (t_startup {} against {})",
            quantity(inputs[1].value, "ns"),
            quantity(inputs[0].value, "ns")
        );
        return Some(decision(text, Some(0.0), "B", None, &[m, c]));
    }
    let facts = format!(
        "t_startup {} against {}, t_per_byte {} against {}",
        quantity(inputs[0].value, "ns"),
        quantity(inputs[1].value, "ns"),
        quantity(inputs[2].value, "ns/B"),
        quantity(inputs[3].value, "ns/B")
    );
    let words = Crossing {
        who: "the mailbox beats the channel",
        swept: "size",
        below: "at every size up to about",
        per: "",
        facts,
        unit: "B",
        largest: largest(kernels, &[m, c], "size_bytes"),
    };
    Some(crossing_decision(&inputs, words, &[m, c]))
}

/// The SCI model (Gonzalez 2000) with this machine's o, l_p, l_f, l_s: the size
/// beyond which a 3-D torus has a smaller average latency than a 2-D one, for
/// 64-byte messages.
fn torus(rows: &[CardRow]) -> Option<Decision> {
    let k = "sci-decomposition/mailbox";
    let inputs = [
        find(rows, k, "propagation_lp_ns", "l_p")?,
        find(rows, k, "forwarding_lf_ns", "l_f")?,
        find(rows, k, "switching_ls_ns", "l_s")?,
        find(rows, k, "overhead_o_ns", "o")?,
    ];
    let cross = |x: &[f64]| {
        // Components below zero (noise) are where the model is undefined.
        SciComponents::new(x[0], x[1], x[2], x[3], 0.0)
            .ok()
            .and_then(|c| {
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
            })
            .unwrap_or(f64::NAN)
    };
    let n = cross(&values(&inputs));
    if n.is_nan() {
        return None;
    }
    let (figure, ci, note) = match corners(&inputs, cross) {
        Some(ci) => (with_interval(n, ci, "nodes"), Some(ci), String::new()),
        None => (
            quantity(n, "nodes"),
            None,
            format!("; {}", no_interval(&without_interval(&inputs))),
        ),
    };
    Some(decision(
        format!(
            "a 3-D torus beats a 2-D one beyond about {figure} (average latency, 64 B, this machine's components{note})"
        ),
        Some(n),
        "nodes",
        ci,
        &[k],
    ))
}

/// Lamanna's eq. 13, `T = a + b U/N + c N` with efficiency `U / (N T)`: the
/// uniprocessor time `U` from which `N = 8` reaches 80 % (eq. 18),
/// `U = E (N a + c N^2) / (1 - E b)`, with Fieller's interval from eq. 13's
/// covariance.
fn efficiency(rows: &[CardRow], kernels: &[KernelResult]) -> Option<Decision> {
    let k = ["speedup/mailbox", "speedup/channel"]
        .into_iter()
        .find(|k| rows.iter().any(|r| r.kernel == *k && r.name == "b"))?;
    let x = [
        find(rows, k, "a_ms", "a")?.value,
        find(rows, k, "b", "b")?.value,
        find(rows, k, "c_ms_per_node", "c")?.value,
    ];
    let percent = EFFICIENCY * 100.0;
    let room = 1.0 - EFFICIENCY * x[1];
    if room <= 0.0 {
        return Some(decision(
            format!(
                "{percent:.0} % efficiency is out of reach at N = {TEAM}: eq. 13's b = {} leaves no room (b must be below {})",
                num(x[1]),
                num(1.0 / EFFICIENCY)
            ),
            None,
            "ms",
            None,
            &[k],
        ));
    }
    let overhead = TEAM * x[0] + x[2] * TEAM * TEAM;
    let u = EFFICIENCY * overhead / room;
    if u <= 0.0 {
        return Some(decision(
            format!(
                "{percent:.0} % efficiency at N = {TEAM} needs no least U: eq. 13's overhead a N + c N^2 is {} ({k})",
                quantity(overhead, "ms")
            ),
            None,
            "ms",
            None,
            &[k],
        ));
    }
    // The repetition whose points give the rows' coefficients.
    let same = |a: f64, b: f64| (a - b).abs() <= 1e-6 * a.abs().max(b.abs()) + 1e-12;
    let fit = kernels
        .iter()
        .filter(|r| kernel_key(r) == k)
        .filter_map(eq13_covariance)
        .find(|f| f.coefficients.iter().zip(x).all(|(a, b)| same(*a, b)));
    let interval = fit.and_then(|f| Some(f.work_interval(EFFICIENCY, TEAM, t975(f.dof)?)));
    let (figure, ci) = match interval {
        Some(WorkInterval::Between([lo, hi])) if lo > 0.0 => {
            (with_interval(u, [lo, hi], "ms"), Some([lo, hi]))
        }
        Some(WorkInterval::Between([_, hi])) => (
            format!(
                "{} (95 %: up to {}; the data allow no overhead at all)",
                quantity(u, "ms"),
                quantity(hi, "ms")
            ),
            None,
        ),
        Some(WorkInterval::From(lo)) => (
            format!(
                "{} (95 %: from {}, no upper end: b's interval reaches {}, where {percent:.0} % is out of reach)",
                quantity(u, "ms"),
                quantity(lo, "ms"),
                num(1.0 / EFFICIENCY)
            ),
            None,
        ),
        Some(WorkInterval::Any) => (
            format!(
                "{} (no interval: eq. 13's coefficients allow any work)",
                quantity(u, "ms")
            ),
            None,
        ),
        None => (
            format!(
                "{} (no interval: the points do not reproduce eq. 13's fit)",
                quantity(u, "ms")
            ),
            None,
        ),
    };
    Some(decision(
        format!("{percent:.0} % efficiency needs U of at least {figure} at N = {TEAM} ({k})"),
        Some(u),
        "ms",
        ci,
        &[k],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::Placement;
    use crate::results::{Point, Trust};

    fn row(kernel: &str, name: &str, value: f64, ci95: Option<[f64; 2]>) -> CardRow {
        CardRow {
            method: "test".into(),
            line: String::new(),
            kernel: kernel.into(),
            name: name.into(),
            of: None,
            value,
            unit: String::new(),
            ci95,
            interval: String::new(),
            signed: false,
            trust: Trust::Ok,
            repetitions: None,
        }
    }

    /// A kernel result whose points sweep `name` up to `top`.
    fn swept(kernel: &str, transport: &str, name: &str, top: f64) -> KernelResult {
        let mut k = KernelResult::new(kernel, "test", Placement::Pinned, vec![0, 1])
            .with_transport(Some(transport));
        k.points = Vec::from([16.0, top].map(|x| Point::new().with(name, x)));
        k
    }

    fn sync_rows(r_spin: f64, r_spin_ci: Option<[f64; 2]>) -> Vec<CardRow> {
        let (s, p) = ("hockney-sync/spin-hint", "hockney-sync/events-park");
        vec![
            row(s, "t0_ns", 100.0, Some([90.0, 110.0])),
            row(p, "t0_ns", 1100.0, Some([1000.0, 1200.0])),
            row(s, "r_inf_flop_per_s", r_spin, r_spin_ci),
            row(p, "r_inf_flop_per_s", 2e9, Some([2e9, 2e9])),
        ]
    }

    /// The decision on `rows` over grains up to 10 kflop, which must cross
    /// at 2000 flop [1780, 2220].
    fn crossing_at_2000_flop(rows: &[CardRow]) -> Decision {
        let grains = [swept("hockney-sync", "spin-hint", "grain_flop", 1e4)];
        let d = spin_or_park(rows, &grains).unwrap();
        assert_eq!(d.value, Some(2000.0));
        let [lo, hi] = d.ci95.unwrap();
        assert!(
            (lo - 1780.0).abs() < 1e-6 && (hi - 2220.0).abs() < 1e-6,
            "{d:?}"
        );
        d
    }

    #[test]
    fn spinning_wins_below_the_crossing_of_the_two_lines() {
        // t = t0 + s / r: 100 ns + s / (1 Gflop/s) against 1100 ns + s / (2 Gflop/s)
        // cross where 1000 ns = s (1 - 0.5) ns/flop: s = 2000 flop; the saving's
        // interval 890 to 1110 ns gives 1780 to 2220 flop.
        let d = crossing_at_2000_flop(&sync_rows(1e9, Some([1e9, 1e9])));
        assert!(
            d.text
                .contains("below about 2.00 kflop (95 %: 1.78 kflop to 2.22 kflop)")
        );
    }

    /// Parking's t0 from its awake rounds, 200 ns [100, 250], and a sleep
    /// 900 ns [900, 950]: its waiter asleep costs 1100 ns [1000, 1200], the
    /// line of the test above, crossing at 2000 flop, said with the sleep.
    #[test]
    fn parking_with_an_awake_t0_is_judged_with_its_waiter_asleep() {
        let mut rows = sync_rows(1e9, Some([1e9, 1e9]));
        rows[1] = row(
            "hockney-sync/events-park",
            "t0_ns",
            200.0,
            Some([100.0, 250.0]),
        );
        rows.push(row(
            "hockney-sync/events-park",
            "t_wake_ns",
            900.0,
            Some([900.0, 950.0]),
        ));
        // 100 ns + s / 1 against 1100 ns + s / 2: s = 2000 flop; the saving's
        // interval 1000 - 110 = 890 to 1200 - 90 = 1110 ns: 1780 to 2220 flop.
        let d = crossing_at_2000_flop(&rows);
        assert!(d.text.contains("with its waiter asleep"), "{}", d.text);
        assert!(
            d.text.contains("against 200 ns + 900 ns a sleep"),
            "{}",
            d.text
        );
    }

    #[test]
    fn a_crossing_beyond_every_grain_measured_is_not_a_number() {
        // The same lines, grains up to 1000 flop: the crossing at 2000 flop was
        // never measured.
        let rows = sync_rows(1e9, Some([1e9, 1e9]));
        let grains = [swept("hockney-sync", "events-park", "grain_flop", 1000.0)];
        let d = spin_or_park(&rows, &grains).unwrap();
        assert_eq!((d.value, d.ci95), (None, None));
        assert!(
            d.text
                .contains("at every grain measured (up to 1.00 kflop)"),
            "{}",
            d.text
        );
        assert!(!d.text.contains("could cross"), "{}", d.text);

        // Nearly equal r_inf (2.001 against 2 Gflop/s): spinning's line is the
        // less steep, the lines do not cross. Within the intervals (spin-hint's
        // r_inf 1.9 to 2.1 Gflop/s) they cross from 890 ns / (1/1.9 - 1/2) ns/flop
        // = 33.8 kflop, beyond the 10 kflop measured.
        let rows = sync_rows(2.001e9, Some([1.9e9, 2.1e9]));
        let grains = [swept("hockney-sync", "spin-hint", "grain_flop", 1e4)];
        let d = spin_or_park(&rows, &grains).unwrap();
        assert_eq!(d.value, None);
        assert!(
            d.text
                .contains("at every grain measured (up to 10.0 kflop)"),
            "{}",
            d.text
        );
        assert!(!d.text.contains("Mflop"), "{}", d.text);
        // With grains up to 100 kflop the intervals allow a crossing from 33.8 kflop.
        let grains = [swept("hockney-sync", "spin-hint", "grain_flop", 1e5)];
        let d = spin_or_park(&rows, &grains).unwrap();
        assert!(
            d.text
                .contains("the lines could cross from about 33.8 kflop"),
            "{}",
            d.text
        );
    }

    #[test]
    fn a_decision_from_inputs_without_intervals_prints_none_and_names_them() {
        let k = "sci-decomposition/mailbox";
        let rows = vec![
            row(k, "propagation_lp_ns", 138.74, None),
            row(k, "forwarding_lf_ns", 7.006, None),
            row(k, "switching_ls_ns", 431.79, None),
            row(k, "overhead_o_ns", 175.51, Some([173.0, 178.0])),
        ];
        let d = torus(&rows).unwrap();
        assert!(d.value.unwrap() > 1.0, "{d:?}");
        assert_eq!(d.ci95, None);
        assert!(
            d.text
                .contains("components; no interval: l_p, l_f, l_s have none)"),
            "{}",
            d.text
        );
        assert!(!d.text.contains("95 %"), "{}", d.text);

        let rows = sync_rows(1e9, None);
        let grains = [swept("hockney-sync", "spin-hint", "grain_flop", 1e4)];
        let d = spin_or_park(&rows, &grains).unwrap();
        assert_eq!((d.value, d.ci95), (Some(2000.0), None));
        assert!(
            d.text
                .contains("2.00 kflop (no interval: r_inf (spin-hint) has none)"),
            "{}",
            d.text
        );
    }

    /// Eq. 13's cells (see `eq13_interval`'s tests) and rows for them.
    fn speedup(a: f64) -> (Vec<CardRow>, KernelResult) {
        let k = crate::analysis::eq13_interval::tests::cells(a);
        let kr = "speedup/mailbox";
        // Wide independent intervals, as the fit's standard errors give them: their
        // corners reach a negative overhead 8 a + 64 c.
        let rows = vec![
            row(kr, "a_ms", a, Some([a - 5.0, a + 5.0])),
            row(kr, "b", 1.0, Some([0.9, 1.1])),
            row(kr, "c_ms_per_node", 0.5, Some([0.1, 0.9])),
        ];
        (rows, k)
    }

    #[test]
    fn the_work_for_80_percent_efficiency_has_a_positive_interval() {
        // U = E (N a + c N^2) / (1 - E b) = 0.8 (8 + 32) / 0.2 = 160 ms; Fieller's
        // interval with eq. 13's covariance is 136.316 to 188.425 ms (worked in
        // eq13_interval's test).
        let (rows, k) = speedup(1.0);
        let d = efficiency(&rows, &[k]).unwrap();
        assert!((d.value.unwrap() - 160.0).abs() < 1e-9, "{d:?}");
        let [lo, hi] = d.ci95.unwrap();
        assert!((lo - 136.316).abs() < 1e-3, "{d:?}");
        assert!((hi - 188.425).abs() < 1e-3, "{d:?}");
        assert!(
            d.text.contains("160 ms (95 %: 136 ms to 188 ms) at N = 8"),
            "{}",
            d.text
        );
        // The corners of the three intervals taken one by one reach 0.
        let rows_only = corners(
            &[
                find(&rows, "speedup/mailbox", "a_ms", "a").unwrap(),
                find(&rows, "speedup/mailbox", "c_ms_per_node", "c").unwrap(),
            ],
            |x| 8.0 * x[0] + 64.0 * x[1],
        )
        .unwrap();
        assert!(rows_only[0] < 0.0, "{rows_only:?}");

        // Points that do not give the rows' coefficients: no interval, said so.
        let (rows, mut k) = speedup(1.0);
        k.points.truncate(2);
        let d = efficiency(&rows, &[k]).unwrap();
        assert_eq!(d.ci95, None);
        assert!(d.text.contains("no interval"), "{}", d.text);
    }
}
