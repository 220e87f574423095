//! From the decomposition's timed iterations to its parameters: the solve per
//! size and repetition, the points, the lines `X0 + X1 n`, and the warnings.

use super::super::background::QKind;
use super::lanes::{Probe, slots_for};
use super::plan::MAX_DISTANCE;
use super::rank0::{NeighbourTimes, Repetition, SizeTimes};
use crate::model::decomposition::{ExperimentTimes, ParameterLines, Parameters, fit_lines, solve};
use crate::model::fit::LineFit;
use crate::model::interval::t_interval;
use crate::model::stats::summarize;
use crate::results::{FitResult, KernelResult, Point, num};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Below this R^2 a line of E, F or U is flagged.
pub(super) const R2_THRESHOLD: f64 = 0.9;

/// One repetition at one size, solved: the parameters (`E` from the idle echo,
/// whose hops are those of test 6) and `E` from the busy echo; `F + S` with
/// test 6's write call ([`f_plus_s_of_test_6`]).
pub(super) fn solve_size(s: &SizeTimes) -> Option<(Parameters, f64)> {
    let n = &s.neighbour;
    let times = ExperimentTimes {
        size_bytes: s.size as f64,
        echo_ns: s.echo_idle.clone(),
        r_ns: n.r_ns,
        a_plus_u_ns: n.a_plus_u_ns,
        f_plus_s_ns: f_plus_s_of_test_6(s),
        r_plus_s_ns: s.forward.r_plus_s_ns,
        twice_f_e_u_ns: s.twice_f_e_u,
    };
    let p = solve(&times).ok()?;
    let busy = solve(&ExperimentTimes {
        echo_ns: s.echo_busy.clone(),
        ..times
    })
    .ok()?;
    Some((p, busy.e_ns))
}

/// `F + S` as test 6 pays it: test 4's figure (its write call and what the
/// `Q(SENDTIME)` after it lost) with that write call replaced by the one that
/// opens test 6's echo, on the same lane; test 4's where either call is
/// missing.
///
/// The paper solves `F = (F + S) − S` and then `U = T6/2 − E − F`: the `F`
/// that `U` is taken from must be the `F` that test 6's round trip holds.
/// `F` is the write call's cost and `S` what the computation loses after it
/// (section 2), so only the call's part of `F + S` can differ between the
/// two tests. Where the two calls cost the same this is test 4's figure;
/// where one operation costs by the state it finds (an `MPI_Isend` into a
/// socket took 7 to 45 µs in test 4 and 6 to 7 µs opening test 6), test 4's
/// call would put its excess into `F`, out of `U` (below zero) and into `A`.
pub(super) fn f_plus_s_of_test_6(s: &SizeTimes) -> f64 {
    let (n, call_6) = (&s.neighbour, s.send_call_test_6);
    if n.send_call_ns.is_finite() && call_6.is_finite() {
        n.f_plus_s_ns - n.send_call_ns + call_6
    } else {
        n.f_plus_s_ns
    }
}

/// Reads one parameter.
pub(super) type Getter = fn(&Parameters) -> f64;

/// The parameters by name, in the paper's order.
pub(super) const PARAMS: [(&str, Getter); 6] = [
    ("e", |p| p.e_ns),
    ("r", |p| p.r_ns),
    ("s", |p| p.s_ns),
    ("f", |p| p.f_ns),
    ("u", |p| p.u_ns),
    ("a", |p| p.a_ns),
];

/// Adds the points, fits and warnings of one `Q` to `result`, in stages: per
/// size the solve of every repetition ([`solve_size`]), the parameters'
/// statistics and the warnings of those below zero ([`with_parameters`]), the
/// figures they are solved from ([`with_figures`]) and the late echoes; then
/// the state of the machine over the run ([`state_change`]) and the lines
/// ([`add_lines`]).
pub(super) fn add_q(
    result: &mut KernelResult,
    kind: QKind,
    reps: &[Repetition],
    lane_span: usize,
    rounds: usize,
) {
    let sizes: Vec<usize> = reps
        .first()
        .map(|r| r.sizes.iter().map(|s| s.size).collect())
        .unwrap_or_default();
    let mut every: Vec<Parameters> = Vec::new();
    for (i, &size) in sizes.iter().enumerate() {
        let at: Vec<&SizeTimes> = reps.iter().filter_map(|r| r.sizes.get(i)).collect();
        let solved: Vec<(Parameters, f64)> = at.iter().filter_map(|s| solve_size(s)).collect();
        every.extend(solved.iter().map(|s| s.0.clone()).filter(|p| {
            [p.e_ns, p.r_ns, p.s_ns, p.f_ns, p.u_ns, p.a_ns]
                .iter()
                .all(|v| v.is_finite())
        }));
        let point = Point::new()
            .with("q_float", f64::from(u8::from(kind == QKind::Float)))
            .with("size_bytes", size as f64)
            .with("slots_per_lane", slots_for(size, lane_span) as f64)
            .with("rounds", rounds as f64)
            .with("repetitions", solved.len() as f64);
        let at_size = AtSize {
            kind,
            size,
            at: &at,
        };
        let point = with_parameters(point, &at_size, &solved, &mut result.warnings);
        let mut point = with_figures(point, &at, &solved);
        let late: u64 = at.iter().map(|s| s.neighbour.late + s.forward.late).sum();
        point = point.with("late_echoes", late as f64);
        if late > 0 {
            result.warnings.push(format!(
                "{} Q, {size} B: {late} echoes or forwards came after Q(COMPTIME) ended and were left out of R, A + U and R + S",
                kind.name()
            ));
        }
        result.points.push(point);
    }
    if let Some(w) = state_change(kind, reps) {
        result.warnings.push(w);
    }
    add_lines(result, kind, &every);
}

/// The lines `X0 + X1 n` of `every` repetition's solve at every size (each
/// repetition of a size is a team run of its own): over the paper's sizes
/// (Table 3), and over all sizes where there are more.
///
/// Fitted to the medians over repetitions instead, three sizes with `--quick`
/// left one degree of freedom, t = 12.7, and intervals such as S0 [-197, 268]
/// ns around a spread between repetitions of 10 to 20 ns. The residuals now
/// hold both that spread and the lines' lack of fit; the medians stay in the
/// points.
fn add_lines(result: &mut KernelResult, kind: QKind, every: &[Parameters]) {
    let paper: Vec<Parameters> = every
        .iter()
        .filter(|p| p.size_bytes <= 2000.0)
        .cloned()
        .collect();
    if let Ok(lines) = fit_lines(&paper) {
        push_fits(result, kind, &lines, "16-2000 B, Table 3", "");
    }
    if every.len() > paper.len()
        && let Ok(lines) = fit_lines(every)
    {
        push_fits(result, kind, &lines, "all sizes", "_all_sizes");
    }
}

/// One size of one `Q`: its repetitions' figures.
struct AtSize<'a> {
    kind: QKind,
    size: usize,
    at: &'a [&'a SizeTimes],
}

/// Mean, standard deviation and median of the finite `values` added to
/// `point` as `name`'s statistics (nothing added when none is finite).
fn with_stat(point: Point, name: &str, values: Vec<f64>) -> (Point, Option<(f64, f64, f64)>) {
    let finite: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
    match summarize(&finite) {
        Ok(s) => {
            let c = (s.mean, s.std_dev, s.median);
            (point.with_stats(name, s), Some(c))
        }
        Err(_) => (point, None),
    }
}

/// The median of `values`, NaN when there are none.
fn median(values: Vec<f64>) -> f64 {
    summarize(&values).map_or(f64::NAN, |s| s.median)
}

/// The idle echo's half-increments `(T_{d+1} − T_d) / 2` from `d` to `d + 1`
/// (1-based), whose mean is `E`, one a repetition.
fn half_steps(at: &[&SizeTimes], d: usize) -> Vec<f64> {
    at.iter()
        .filter_map(|s| Some((s.echo_idle.get(d)? - s.echo_idle.get(d - 1)?) / 2.0))
        .collect()
}

/// The six parameters' statistics over the repetitions `solved` at one size,
/// added to `point`; a warning in `warnings` for each whose mean is below
/// zero by more than its standard deviation (for `A`, with what it is made
/// of: [`Shortfall`]).
fn with_parameters(
    mut point: Point,
    at_size: &AtSize<'_>,
    solved: &[(Parameters, f64)],
    warnings: &mut Vec<String>,
) -> Point {
    let mut median_of = BTreeMap::new();
    for (name, get) in PARAMS {
        let (p, ms) = with_stat(
            point,
            &format!("{name}_ns"),
            solved.iter().map(|s| get(&s.0)).collect(),
        );
        point = p;
        let Some((m, sd, med)) = ms else {
            continue;
        };
        median_of.insert(name, med);
        if m + sd < 0.0 {
            // A is solved last: the medians of E, F and U are in.
            let why = if name == "a" {
                shortfall(at_size.at, &median_of).explain()
            } else {
                String::new()
            };
            warnings.push(format!(
                "{} Q, {} B: {} = {} ns is below zero by more than its standard deviation {}{}{}",
                at_size.kind.name(),
                at_size.size,
                name.to_uppercase(),
                num(m),
                num(sd),
                probed_at(at_size.at),
                why
            ));
        }
    }
    point
}

/// What a negative `A` at one size is made of, from the repetitions `at` and
/// the medians of the parameters solved before it.
fn shortfall(at: &[&SizeTimes], median_of: &BTreeMap<&str, f64>) -> Shortfall {
    let of = |n| median_of.get(n).copied().unwrap_or(f64::NAN);
    let a_plus_u = median(at.iter().map(|s| s.neighbour.a_plus_u_ns).collect());
    let a_alone = median(at.iter().map(|s| s.neighbour.a_alone_ns).collect());
    let one_link = median(at.iter().map(|s| s.twice_f_e_u_system).collect());
    let test_6 = median(at.iter().map(|s| s.twice_f_e_u).collect());
    Shortfall {
        u: of("u"),
        a_plus_u,
        a_alone,
        one_link_excess: one_link - 2.0 * of("e") - of("f") - a_plus_u,
        f: of("f"),
        f_echo: test_6 / 2.0 - of("e") - (a_plus_u - a_alone),
        e: of("e"),
        e_first: median(half_steps(at, 1)),
        e_last: median(half_steps(at, MAX_DISTANCE - 1)),
    }
}

/// The figures the parameters are solved from, and those beside them, over
/// the repetitions `at` at one size, added to `point`: the ends of both
/// echoes (`E = (T_5 − T_1) / 8` is solved from the idle one's, `e_busy_ns`
/// from the busy one's), the idle one at every distance and its first and
/// last half-increments (whether `T_d` is a line), tests 2 to 6 and the
/// probes.
fn with_figures(mut point: Point, at: &[&SizeTimes], solved: &[(Parameters, f64)]) -> Point {
    let of = |get: fn(&SizeTimes) -> f64| at.iter().map(|s| get(s)).collect::<Vec<f64>>();
    let nb = |get: fn(&NeighbourTimes) -> f64| at.iter().map(|s| get(&s.neighbour)).collect();
    let echo = |busy: bool, d: usize| -> Vec<f64> {
        at.iter()
            .filter_map(|s| if busy { &s.echo_busy } else { &s.echo_idle }.get(d - 1))
            .copied()
            .collect()
    };
    let probes = |get: fn(&Probe) -> f64| -> Vec<f64> {
        at.iter().flat_map(|s| s.probes.iter().map(get)).collect()
    };
    let raw: [(&str, Vec<f64>); 25] = [
        ("echo_idle_d1_ns", echo(false, 1)),
        ("echo_idle_d2_ns", echo(false, 2)),
        ("echo_idle_d3_ns", echo(false, 3)),
        ("echo_idle_d4_ns", echo(false, 4)),
        ("echo_idle_d5_ns", echo(false, MAX_DISTANCE)),
        ("e_d1_d2_ns", half_steps(at, 1)),
        ("e_d4_d5_ns", half_steps(at, MAX_DISTANCE - 1)),
        ("echo_busy_d1_ns", echo(true, 1)),
        ("echo_busy_d5_ns", echo(true, MAX_DISTANCE)),
        ("e_busy_ns", solved.iter().map(|s| s.1).collect()),
        ("r_plus_s_ns", of(|s| s.forward.r_plus_s_ns)),
        ("r_plus_s_whole_q_ns", of(|s| s.forward.r_plus_s_whole_q_ns)),
        ("r_whole_q_ns", nb(|n| n.r_whole_q_ns)),
        ("r_own_polls_ns", nb(|n| n.r_own_polls_ns)),
        ("a_plus_u_ns", nb(|n| n.a_plus_u_ns)),
        ("a_alone_ns", nb(|n| n.a_alone_ns)),
        ("clock_ns", nb(|n| n.clock_ns)),
        ("f_plus_s_ns", nb(|n| n.f_plus_s_ns)),
        ("f_plus_s_whole_q_ns", nb(|n| n.f_plus_s_whole_q_ns)),
        ("send_call_ns", nb(|n| n.send_call_ns)),
        ("send_call_test_6_ns", of(|s| s.send_call_test_6)),
        ("twice_f_e_u_ns", of(|s| s.twice_f_e_u)),
        ("twice_f_e_u_system_ns", of(|s| s.twice_f_e_u_system)),
        ("cpu_round_trip_ns", probes(|p| p.line_ns)),
        ("cpu_round_trip_64k_ns", probes(|p| p.bulk_ns)),
    ];
    for (name, values) in raw {
        point = with_stat(point, name, values).0;
    }
    point
}

/// Where a point's probes stood: the medians of its round trips, or nothing on
/// one CPU.
pub(super) fn probed_at(at: &[&SizeTimes]) -> String {
    let median = |get: fn(&Probe) -> f64| {
        let v: Vec<f64> = at
            .iter()
            .flat_map(|s| s.probes.iter().map(get))
            .filter(|v| v.is_finite())
            .collect();
        summarize(&v).map_or(f64::NAN, |s| s.median)
    };
    let (line, bulk) = (median(|p| p.line_ns), median(|p| p.bulk_ns));
    if line.is_finite() && bulk.is_finite() {
        format!(
            ", with the CPUs' round trips at {:.0} ns (a line) and {:.0} ns (64 KiB)",
            line, bulk
        )
    } else {
        String::new()
    }
}

/// Round trips of 64 KiB further apart than this ratio mean that the machine
/// changed state during a run ([`probe`]).
pub(super) const STATE_CHANGE_RATIO: f64 = 1.5;

/// A warning when the 64 KiB round trips of one `Q`'s run lie further apart than
/// [`STATE_CHANGE_RATIO`]: its repetitions and sizes were measured in different
/// states of the machine.
pub(super) fn state_change(kind: QKind, reps: &[Repetition]) -> Option<String> {
    let trips: Vec<f64> = reps
        .iter()
        .flat_map(|r| &r.sizes)
        .flat_map(|s| s.probes.map(|p| p.bulk_ns))
        .filter(|t| t.is_finite())
        .collect();
    let (lo, hi) = trips.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &t| {
        (lo.min(t), hi.max(t))
    });
    (hi > STATE_CHANGE_RATIO * lo).then(|| {
        format!(
            "{} Q: the two CPUs' round trip of 64 KiB ranged from {:.0} to {:.0} ns over this run (probed before and after each size): the machine changed state while it ran, and points or repetitions measured in different states mix their costs (each point's cpu_round_trip_64k_ns gives its states)",
            kind.name(),
            lo,
            hi
        )
    })
}

/// What a negative `A` is made of (medians over repetitions): the `U` solved from
/// the echo, the timed read `A + U` it exceeds, `A` timed alone and the `F` the
/// echo implies with it, and how far the echo over one link, with rank 1
/// returning the message in its system, is from the model.
///
/// With `A` timed alone, `U = (A + U) − A alone` and test 6 give a second `F`,
/// `T6/2 − E − U`; the solve's `A` is exactly `A alone + F − that F` (in each
/// repetition; about so in the medians). So a negative `A` is an `F + S` and `S`
/// whose difference falls short of what the echo's two ends cost.
///
/// By the model that echo (`twice_f_e_u_system_ns`) is two hops `E` and rank 0's
/// `F` and `A + U`. Where it is longer, the one-link round trip costs more than
/// the echo's marginal hops, the solve puts the difference into `U`, and `A`
/// goes below zero: the costs do not add up as the paper's model assumes (see
/// `slots_for` for the sizes and lanes where they did not on a 2-vCPU Xeon).
#[derive(Debug, Clone, Copy)]
pub(super) struct Shortfall {
    /// `U` solved from the echo.
    pub(super) u: f64,
    /// The timed read of an arrived message.
    pub(super) a_plus_u: f64,
    /// The read call's part before the message, timed by itself.
    pub(super) a_alone: f64,
    /// `twice_f_e_u_system_ns` less `2E + F + (A + U)`: zero where the costs add
    /// up.
    pub(super) one_link_excess: f64,
    /// `F` solved, `(F + S) − S` with test 6's write call.
    pub(super) f: f64,
    /// `F` from test 6 with `A` timed alone: `T6/2 − E − ((A + U) − A alone)`.
    pub(super) f_echo: f64,
    /// `E` solved: the mean of the idle echo's half-increments.
    pub(super) e: f64,
    /// The first half-increment, `(T_2 − T_1) / 2`.
    pub(super) e_first: f64,
    /// The last, `(T_5 − T_4) / 2`.
    pub(super) e_last: f64,
}

impl Shortfall {
    /// The figures for a warning, or nothing when `U` or `A + U` is missing.
    pub(super) fn explain(&self) -> String {
        if !(self.u.is_finite() && self.a_plus_u.is_finite()) {
            return String::new();
        }
        let mut why = format!(
            " (U solved from the echo: {:.0} ns; timed read A + U: {:.0} ns",
            self.u, self.a_plus_u
        );
        if self.a_alone.is_finite() {
            let _ = write!(
                why,
                "; the read's part before the message, timed alone: {:.0} ns",
                self.a_alone
            );
            if self.f_echo.is_finite() && self.f.is_finite() {
                let _ = write!(
                    why,
                    "; with U = (A + U) - A alone, test 6 gives F = T6/2 - E - U = {:.0} ns where (F + S) - S gives {:.0} ns, and A is A alone less the difference",
                    self.f_echo, self.f
                );
            }
        }
        if self.one_link_excess.is_finite() {
            let _ = write!(
                why,
                "; the echo over one link with rank 1 returning the message in its system is {:.0} ns longer than 2E + F + (A + U)",
                self.one_link_excess
            );
        }
        if self.e_first.is_finite() && self.e_last.is_finite() && self.e_first > self.e_last {
            let _ = write!(
                why,
                "; the echo's half-increments fall along the chain, from (T2 - T1)/2 = {:.0} ns to (T5 - T4)/2 = {:.0} ns, E = {:.0} ns their mean: its links differ in cost, and test 6's one link need not cost E",
                self.e_first, self.e_last, self.e
            );
        }
        why.push(')');
        why
    }
}

/// The coefficients of `line` whose whole 95 % interval lies below zero,
/// each as `X0 = v [lo, hi] ns` or `X1 = ... ns/B`: every parameter of the
/// decomposition is a cost, so such a line is a difference of figures that
/// moved between their measurements, not a measurement.
fn below_zero(upper: &str, line: &LineFit) -> Vec<String> {
    let dof = line.n_points.saturating_sub(2);
    [
        ("0", line.intercept, line.se_intercept, "ns"),
        ("1", line.slope, line.se_slope, "ns/B"),
    ]
    .into_iter()
    .filter_map(|(k, v, se, unit)| {
        let [lo, hi] = t_interval(v, se, dof)?;
        (hi < 0.0).then(|| format!("{upper}{k} = {v:.3} [{lo:.3}, {hi:.3}] {unit}"))
    })
    .collect()
}

pub(super) fn push_fits(
    result: &mut KernelResult,
    kind: QKind,
    lines: &ParameterLines,
    over: &str,
    suffix: &str,
) {
    let each: [(&str, &LineFit); 6] = [
        ("e", &lines.e),
        ("r", &lines.r),
        ("s", &lines.s),
        ("f", &lines.f),
        ("u", &lines.u),
        ("a", &lines.a),
    ];
    for (name, line) in each {
        let sized = matches!(name, "e" | "f" | "u");
        let poor = sized && line.r2 < R2_THRESHOLD;
        let upper = name.to_uppercase();
        if poor {
            result.warnings.push(format!(
                "{} Q, {over}: the line of {upper} has R^2 = {:.3} < {R2_THRESHOLD}",
                kind.name(),
                line.r2
            ));
        }
        let below = below_zero(&upper, line);
        if !below.is_empty() {
            result.warnings.push(format!(
                "{} Q, {over}: {}: below zero beyond the 95 % interval, which a cost cannot be, so the line of {upper} is flagged (a difference of timed figures that moved between them)",
                kind.name(),
                below.join(" and ")
            ));
        }
        let flagged = poor || !below.is_empty();
        let p0 = format!("{}_{name}0_ns{suffix}", kind.prefix());
        let p1 = format!("{}_{name}1_ns_per_byte{suffix}", kind.prefix());
        let mut params = BTreeMap::new();
        params.insert(p0.clone(), line.intercept);
        params.insert(p1.clone(), line.slope);
        let mut std_errors = BTreeMap::new();
        std_errors.insert(p0, line.se_intercept);
        std_errors.insert(p1, line.se_slope);
        result.fits.push(FitResult {
            model: format!(
                "{upper} = {upper}0 + {upper}1 n ({} Q, {over}{})",
                kind.name(),
                if sized { "" } else { "; flat, R^2 not a test" }
            ),
            x: "size_bytes".into(),
            y: format!("{name}_ns (every repetition)"),
            params,
            std_errors,
            r2: line.r2,
            n_points: line.n_points,
            flagged,
        });
    }
}
