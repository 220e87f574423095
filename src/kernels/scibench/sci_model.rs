//! From the `sci-topology` measurements to the paper's results (Gonzalez 2000):
//!
//! - `sci-topology`: the measured PP latencies of Figs. 10, 11 (and 13b's rings).
//! - `sci-decomposition` (sections 5.2, 5.3, Fig. 12, Table 1): `o`, `l_f`, `l_s` per
//!   message size from eqs. 18-20 ([`solve_components`]) with `l_p` the measured 8-byte
//!   cache-line ping-pong between the two CPUs (one-way) instead of a cable's speed of
//!   light; a size whose `l_f` or `l_s` solves below zero (noise larger than the
//!   component) keeps its values, with a warning. Then the Table 1 estimates: `l_p`,
//!   and `l_f` and `l_s` as the median over the sizes up to 512 bytes (Fig. 12's
//!   range; the paper's "Avg=60ns", "Avg=670ns" are means, but on a shared machine one
//!   size's noise can exceed `l_f`), and
//!   `o(m) = o_64 + b (m - 64)` fitted by least squares on 64..512 bytes. A line fit of
//!   `l_s` against the size shows how far the agent's payload copy makes switching
//!   depend on the size (the paper found it flat). `l_p`, `l_f` and `l_s` carry
//!   95 % intervals propagated from the trials by the bootstrap
//!   ([`component_intervals`]: every measurement's minimum re-taken from a
//!   resample, the sizes solved and the medians taken again), recorded as the
//!   result's headline; an interval reaching zero makes the card say "not
//!   resolved".
//! - `sci-validation` (section 5.4, Fig. 13): the model fed with those estimates
//!   against the measured PP of the 3-hop ring over sizes (eq. 21) and of rings of
//!   2..9 nodes at 64 bytes (eqs. 22-25 and the odd rings between), with the error per
//!   point; the paper's claim is under 5 %. Sizes below 64 bytes are evaluated with
//!   the overhead of 64 bytes: a message smaller than one packet (one cache line here)
//!   costs a whole one, as the flat start of Fig. 12's overhead (2085 ns) shows,
//!   where the Table 1 line extrapolated downwards would not.
//! - `sci-projection` (chapter 6, Table 2): crossover sizes between 1..4 dimensions for
//!   average latency and one-to-all multi-unicast, with this machine's components, the
//!   paper's, and each with `l_s` halved (the enhanced system).

use super::super::RunContext;
use super::experiment::{ExperimentResult, Measured, Measurements, NAME as KERNEL};
use crate::model::fit::fit_line;
use crate::model::sci::{
    PingPongSet, SciApplication, SciComponents, SciModelError, SolvedComponents, model_report,
    solve_components,
};
use crate::results::{FitResult, KernelResult, Point, ResultFile};
use crate::team::Team;
use std::collections::BTreeMap;

/// Kernel name of the decomposition result.
pub const DECOMPOSITION: &str = "sci-decomposition";
/// Kernel name of the validation result.
pub const VALIDATION: &str = "sci-validation";
/// Kernel name of the projection result.
pub const PROJECTION: &str = "sci-projection";
/// The model string of the Table 1 fit, which `halfperf model sci --from` reads.
pub const TABLE1_MODEL: &str =
    "Table 1: o(m) = overhead_o_ns + overhead_per_byte_ns (m - 64); l_p, l_f, l_s constant";
/// The paper's validation bound (percent).
pub const VALIDATION_BOUND_PCT: f64 = 5.0;
/// Largest system size of the projections (nodes): the paper's 1000 and beyond, far
/// enough to reach its 3D -> 4D crossover.
pub const PROJECTION_MAX_NODES: u32 = 4096;
/// Message size of the projections (bytes), the paper's 64-byte packet payload.
pub const PROJECTION_SIZE_BYTES: u32 = 64;
/// Total sizes at which each projected curve is kept in the result (log-spaced).
const PROJECTION_CURVE_POINTS: u32 = 24;
/// Largest size (bytes) that enters the Table 1 averages and the overhead line.
const TABLE1_MAX_SIZE: usize = 512;
/// Smallest size (bytes) of the overhead line.
const TABLE1_MIN_SIZE: usize = 64;
/// Below this R^2 a fit is flagged.
const R2_THRESHOLD: f64 = 0.9;

/// Builds the four results from the measurements.
pub(super) fn results(ctx: &RunContext<'_>, team: &Team, m: &Measurements) -> Vec<KernelResult> {
    let base = KernelResult::new(KERNEL, "scibench", team.placement(), m.cpus.clone())
        .with_transport(Some("mailbox"))
        .with_distance_class(ctx.topology.distance(m.cpus[0], m.cpus[1]))
        .with_ranks(team.size());
    let topology = topology_result(&base, m);
    let (decomposition, components) = decomposition_result(&base, m);
    let mut out = vec![topology, decomposition];
    if let Some(c) = components {
        out.push(validation_result(&base, m, &c));
        out.push(projection_result(&base, &c));
    }
    out
}

fn topology_result(base: &KernelResult, m: &Measurements) -> KernelResult {
    let mut r = KernelResult {
        points: Vec::new(),
        ..base.clone()
    };
    for e in m.size_sweep.iter().chain(&m.ring_sweep) {
        let ping = e.experiment.ping_counts();
        let pong = e.experiment.pong_counts();
        let local = e.experiment.local_hops(e.workers);
        if local > 0 {
            r.warnings.push(format!(
                "{}: {local} hop(s) stay on one CPU (an odd ring cannot alternate two CPUs)",
                e.experiment.name
            ));
        }
        for p in &e.points {
            r.warnings.extend(p.warning.clone());
            r.points.push(
                Point::new()
                    .with("nodes", e.experiment.shape.nodes() as f64)
                    .with("dims", e.experiment.shape.sizes().len() as f64)
                    .with("hops", ping.propagation_lp_count)
                    .with("forwards", ping.forwarding_lf_count)
                    .with("switches", ping.switching_ls_count)
                    .with("return_hops", pong.propagation_lp_count)
                    .with("local_hops", local as f64)
                    .with("size_bytes", p.size as f64)
                    .with("reps", p.reps as f64)
                    .with_stats("ping_pong_ns", p.ping_pong_ns.clone()),
            );
        }
    }
    if !crate::transport::fabric::FLUSHES_PAYLOAD {
        r.warnings.push(
            "payload lines are not flushed on this architecture: a destination on the source's CPU reads its payload from cache, so o differs between odd- and even-hop tests".into(),
        );
    }
    r
}

/// The measurement of `name` at `size`, if any.
fn at_size<'a>(sweep: &'a [ExperimentResult], name: &str, size: usize) -> Option<&'a Measured> {
    sweep
        .iter()
        .find(|e| e.experiment.name == name)?
        .points
        .iter()
        .find(|p| p.size == size)
}

/// Components solved at each size (eqs. 18-20), and a warning per size that failed,
/// from each measurement's minimum over its trials.
fn solve_per_size(m: &Measurements) -> (Vec<(usize, SolvedComponents)>, Vec<String>) {
    solve_sizes_with(m, m.propagation.ping_pong_ns.min, |p| p.ping_pong_ns.min)
}

/// [`solve_per_size`] with `l_p` and each point's PP latency given: the run's
/// minima, or a bootstrap resample's ([`component_intervals`]).
fn solve_sizes_with(
    m: &Measurements,
    lp: f64,
    pp: impl Fn(&Measured) -> f64,
) -> (Vec<(usize, SolvedComponents)>, Vec<String>) {
    let sizes: Vec<usize> = m
        .size_sweep
        .first()
        .map(|e| e.points.iter().map(|p| p.size).collect())
        .unwrap_or_default();
    let mut solved = Vec::new();
    let mut warnings = Vec::new();
    for size in sizes {
        let get = |name: &str| at_size(&m.size_sweep, name, size).map(&pp);
        let set = match (
            get("ring-1-hop"),
            get("ring-4-hop"),
            get("torus-non-switching"),
            get("torus-switching"),
        ) {
            (Some(a), Some(b), Some(c), Some(d)) => PingPongSet {
                one_hop_ns: a,
                four_hop_ns: b,
                torus_non_switching_ns: c,
                torus_switching_ns: d,
            },
            _ => continue,
        };
        match solve_keeping_noise(set, lp) {
            Ok((s, below_zero)) => {
                for (name, value) in below_zero {
                    warnings.push(format!(
                        "{name} at {size} B solves to {value:.1} ns < 0: timing noise larger than the component (kept for the median)"
                    ));
                }
                solved.push((size, s));
            }
            Err(e) => warnings.push(format!("decomposition at {size} B left out: {e}")),
        }
    }
    (solved, warnings)
}

/// Table 1's `l_f` and `l_s`: the medians over the sizes decomposed up to
/// [`TABLE1_MAX_SIZE`] (over every size decomposed when none is), before a
/// negative one is taken as 0; and whether any size was in that range.
fn table1_lf_ls(solved: &[(usize, SolvedComponents)]) -> (f64, f64, bool) {
    let in_range: Vec<&SolvedComponents> = solved
        .iter()
        .filter(|(size, _)| *size <= TABLE1_MAX_SIZE)
        .map(|(_, s)| s)
        .collect();
    let used: Vec<&SolvedComponents> = match in_range.is_empty() {
        true => solved.iter().map(|(_, s)| s).collect(),
        false => in_range,
    };
    let column =
        |f: fn(&SolvedComponents) -> f64| -> Vec<f64> { used.iter().map(|s| f(s)).collect() };
    (
        median(&column(|s| s.forwarding_lf_ns)),
        median(&column(|s| s.switching_ls_ns)),
        solved.iter().any(|(size, _)| *size <= TABLE1_MAX_SIZE),
    )
}

/// How the components' intervals are computed, for the results.
const COMPONENT_INTERVAL: &str = "percentile bootstrap over trials: every measurement's minimum re-taken from a resample of its trials, then eqs. 18-20 and the median over sizes as for the value";

/// The 95 % intervals of `l_p`, `l_f` and `l_s`, propagated from the trials
/// by the bootstrap ([`crate::model::interval::bootstrap`]): a resample of
/// trial indices, each measurement's minimum over the trials drawn (the
/// same indices in every measurement: trial `i` is round `i` of each), the
/// sizes solved again, Table 1's medians taken again. The intervals are of
/// the unclamped medians, so a component that noise can put below zero has
/// an interval that reaches zero, and the card calls it not resolved. The
/// bootstrap of a minimum cannot go below the least trial: `l_p`'s lower
/// end is its value.
fn component_intervals(m: &Measurements) -> [Option<[f64; 2]>; 3] {
    use crate::model::interval::{RESAMPLES, SEED, bootstrap};
    let all = std::iter::once(&m.propagation).chain(m.size_sweep.iter().flat_map(|e| &e.points));
    let trials = all.map(|p| p.trials_ns.len()).max().unwrap_or(0);
    let least = |p: &Measured, idx: &[usize]| match p.trials_ns.len() {
        0 => f64::NAN,
        n => idx
            .iter()
            .map(|&i| p.trials_ns[i % n])
            .fold(f64::INFINITY, f64::min),
    };
    let got = bootstrap(trials, 3, RESAMPLES, SEED, |idx| {
        let lp = least(&m.propagation, idx);
        let (solved, _) = solve_sizes_with(m, lp, |p| least(p, idx));
        if solved.is_empty() {
            return None;
        }
        let (lf, ls, _) = table1_lf_ls(&solved);
        Some(vec![lp, lf, ls])
    });
    [got[0], got[1], got[2]]
}

/// Added to a replaced measurement so that the zeroed component is not rounded below
/// zero (ns); the component's reported value is the negative one anyway.
const NUDGE_NS: f64 = 1e-6;

/// Components that solved below zero: name and value (ns).
type BelowZero = Vec<(&'static str, f64)>;

/// [`solve_components`], but a negative `l_f` or `l_s` (noise around a small
/// component) does not lose the size: the model reports the negative value, the
/// measurement is replaced by the one that makes that component zero (which leaves the
/// other components unchanged: eq. 19 alone holds `PP_4`, eq. 20 alone `PP_switching`),
/// and the negative value is put back in the result. A negative `o` is an error.
fn solve_keeping_noise(
    mut set: PingPongSet,
    lp: f64,
) -> Result<(SolvedComponents, BelowZero), SciModelError> {
    let mut below_zero = Vec::new();
    loop {
        match solve_components(&set, lp) {
            Ok(mut s) => {
                for &(name, value) in &below_zero {
                    match name {
                        "forwarding_lf_ns" => s.forwarding_lf_ns = value,
                        _ => s.switching_ls_ns = value,
                    }
                }
                return Ok((s, below_zero));
            }
            Err(SciModelError::NegativeSolution { name, value })
                if !below_zero.iter().any(|&(n, _)| n == name) =>
            {
                // NUDGE_NS: rounding must not leave the zeroed component at -1e-14.
                match name {
                    "forwarding_lf_ns" => {
                        set.four_hop_ns = set.one_hop_ns + 3.0 * lp + NUDGE_NS;
                    }
                    "switching_ls_ns" => {
                        set.torus_switching_ns = set.torus_non_switching_ns + lp + NUDGE_NS;
                    }
                    _ => return Err(SciModelError::NegativeSolution { name, value }),
                }
                below_zero.push((name, value));
            }
            Err(e) => return Err(e),
        }
    }
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len().is_multiple_of(2) {
        (v[mid - 1] + v[mid]) / 2.0
    } else {
        v[mid]
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn decomposition_result(
    base: &KernelResult,
    m: &Measurements,
) -> (KernelResult, Option<SciComponents>) {
    let mut r = KernelResult {
        kernel: DECOMPOSITION.into(),
        ..base.clone()
    };
    let lp = m.propagation.ping_pong_ns.min;
    r.warnings.extend(m.propagation.warning.clone());
    r.points.push(
        Point::new()
            .with("size_bytes", 8.0)
            .with("reps", m.propagation.reps as f64)
            .with_stats("cache_line_one_way_ns", m.propagation.ping_pong_ns.clone()),
    );
    let (solved, warnings) = solve_per_size(m);
    r.warnings.extend(warnings);
    for (size, s) in &solved {
        r.points.push(
            Point::new()
                .with("size_bytes", *size as f64)
                .with("overhead_o_ns", s.overhead_o_ns)
                .with("forwarding_lf_ns", s.forwarding_lf_ns)
                .with("switching_ls_ns", s.switching_ls_ns)
                .with("propagation_lp_ns", s.propagation_lp_ns),
        );
    }
    if solved.is_empty() {
        r.warnings.push(
            "no message size gave a consistent decomposition: no Table 1 estimates, validation or projection".into(),
        );
        return (r, None);
    }
    // Table 1: constants as the median over Fig. 12's range, o as a line on 64..512 B.
    let (mut lf, mut ls, in_range) = table1_lf_ls(&solved);
    if !in_range {
        r.warnings.push(format!(
            "no size up to {TABLE1_MAX_SIZE} B was decomposed: l_f and l_s are averaged over larger sizes only"
        ));
    }
    for ((name, value), ci95) in ["propagation_lp_ns", "forwarding_lf_ns", "switching_ls_ns"]
        .iter()
        .zip([lp, lf.max(0.0), ls.max(0.0)])
        .zip(component_intervals(m))
    {
        let mut p = crate::results::Param::new(name, None, value);
        p.ci95 = ci95;
        p.interval = Some(COMPONENT_INTERVAL.into());
        r.headline.push(p);
    }
    for (name, value) in [("l_f", &mut lf), ("l_s", &mut ls)] {
        if *value < 0.0 {
            r.warnings.push(format!(
                "{name} = {value:.1} ns < 0 (noise around a small component): the model uses 0"
            ));
            *value = 0.0;
        }
    }
    let (o64, per_byte, overhead) = overhead_line(&solved, (lp, lf, ls), &mut r.warnings);
    r.fits.push(overhead);
    r.fits.extend(switching_line(&solved));
    if ls <= lf {
        r.warnings.push(format!(
            "l_s = {ls:.1} ns is not above l_f = {lf:.1} ns: switching should cost more than forwarding (timing noise?)"
        ));
    }
    match SciComponents::new(lp, lf, ls, o64, per_byte) {
        Ok(c) => (r, Some(c)),
        Err(e) => {
            r.warnings.push(format!("no model inputs: {e}"));
            (r, None)
        }
    }
}

/// Table 1's overhead line `o(m) = o + (m - 64) b` over the decomposed sizes
/// of 64..512 B (every decomposed size, with a warning, where fewer than two
/// fall there), with the components `(l_p, l_f, l_s)` beside it in the fit;
/// a negative slope or intercept (noise) is taken as 0 with a warning.
/// Returns `o`, `b` and the fit.
fn overhead_line(
    solved: &[(usize, SolvedComponents)],
    (lp, lf, ls): (f64, f64, f64),
    warnings: &mut Vec<String>,
) -> (f64, f64, FitResult) {
    let line_points: Vec<&(usize, SolvedComponents)> = solved
        .iter()
        .filter(|(size, _)| (TABLE1_MIN_SIZE..=TABLE1_MAX_SIZE).contains(size))
        .collect();
    let line_points = if line_points.len() >= 2 {
        line_points
    } else {
        warnings.push(format!(
            "fewer than 2 sizes in {TABLE1_MIN_SIZE}..{TABLE1_MAX_SIZE} B were decomposed: the overhead line is fitted on every decomposed size ({} of them; with one, o is taken constant)",
            solved.len()
        ));
        solved.iter().collect()
    };
    let x: Vec<f64> = line_points
        .iter()
        .map(|(size, _)| *size as f64 - 64.0)
        .collect();
    let y: Vec<f64> = line_points.iter().map(|(_, s)| s.overhead_o_ns).collect();
    let (mut o64, mut per_byte, r2, se) = match fit_line(&x, &y) {
        Ok(line) => (
            line.intercept,
            line.slope,
            line.r2,
            Some((line.se_intercept, line.se_slope)),
        ),
        Err(_) => (mean(&y), 0.0, 1.0, None),
    };
    if per_byte < 0.0 {
        warnings.push(format!(
            "the overhead line's slope {per_byte:.3} ns/byte is negative (noise): the model uses 0"
        ));
        per_byte = 0.0;
    }
    if o64 < 0.0 {
        warnings.push(format!(
            "the overhead line gives o(64 B) = {o64:.1} ns < 0 (noise): the model uses 0"
        ));
        o64 = 0.0;
    }
    let flagged = r2 < R2_THRESHOLD;
    if flagged {
        warnings.push(format!(
            "overhead line o(m) has R^2 = {r2:.3} < {R2_THRESHOLD}: the overhead is not linear in the size here"
        ));
    }
    let mut params = BTreeMap::new();
    params.insert("propagation_lp_ns".to_string(), lp);
    params.insert("forwarding_lf_ns".to_string(), lf);
    params.insert("switching_ls_ns".to_string(), ls);
    params.insert("overhead_o_ns".to_string(), o64);
    params.insert("overhead_per_byte_ns".to_string(), per_byte);
    let mut std_errors = BTreeMap::new();
    if let Some((a, b)) = se {
        std_errors.insert("overhead_o_ns".to_string(), a);
        std_errors.insert("overhead_per_byte_ns".to_string(), b);
    }
    let fit = FitResult {
        model: TABLE1_MODEL.into(),
        x: "size_bytes".into(),
        y: "overhead_o_ns".into(),
        params,
        std_errors,
        r2,
        n_points: line_points.len(),
        flagged,
    };
    (o64, per_byte, fit)
}

/// How far switching depends on the size (the agent copies the payload):
/// the line `l_s(m)` over every decomposed size, where one fits.
fn switching_line(solved: &[(usize, SolvedComponents)]) -> Option<FitResult> {
    let sx: Vec<f64> = solved.iter().map(|(size, _)| *size as f64).collect();
    let sy: Vec<f64> = solved.iter().map(|(_, s)| s.switching_ls_ns).collect();
    fit_line(&sx, &sy).ok().map(|line| {
        let mut params = BTreeMap::new();
        params.insert("switching_ls_at_0_bytes_ns".to_string(), line.intercept);
        params.insert("switching_ls_per_byte_ns".to_string(), line.slope);
        let mut std_errors = BTreeMap::new();
        std_errors.insert("switching_ls_at_0_bytes_ns".to_string(), line.se_intercept);
        std_errors.insert("switching_ls_per_byte_ns".to_string(), line.se_slope);
        FitResult {
            model: "l_s(m) = l_s0 + m b_s (the agent's payload copy)".into(),
            x: "size_bytes".into(),
            y: "switching_ls_ns".into(),
            params,
            std_errors,
            r2: line.r2,
            n_points: line.n_points,
            flagged: false,
        }
    })
}

fn validation_result(base: &KernelResult, m: &Measurements, c: &SciComponents) -> KernelResult {
    let mut r = KernelResult {
        kernel: VALIDATION.into(),
        ..base.clone()
    };
    let three_hop = m
        .size_sweep
        .iter()
        .filter(|e| e.experiment.name == "ring-3-hop");
    let rows = three_hop
        .map(|e| (0.0, e))
        .chain(m.ring_sweep.iter().map(|e| (1.0, e)));
    let mut errors = Vec::new();
    let mut measured_all = Vec::new();
    let mut model_all = Vec::new();
    for (sweep, e) in rows {
        let counts = e.experiment.ping_pong_counts();
        for p in &e.points {
            let measured = p.ping_pong_ns.min;
            // Below one 64-byte packet (here a 64-byte cache line) a message costs a
            // whole one: Fig. 12's overhead starts flat at 2085 ns below 64 bytes.
            let model_size = p.size.clamp(TABLE1_MIN_SIZE, u32::MAX as usize) as u32;
            let model = match counts.latency_ns(c, model_size) {
                Ok(v) => v,
                Err(err) => {
                    r.warnings.push(format!(
                        "{} {} B: no model value: {err}",
                        e.experiment.name, p.size
                    ));
                    continue;
                }
            };
            // The model's terms, for the split of each experiment (Fig. 12's shape).
            let parts = c.overhead_ns(model_size).map(|o| {
                [
                    ("model_overhead_ns", counts.overhead_count * o),
                    (
                        "model_propagation_ns",
                        counts.propagation_lp_count * c.propagation_lp_ns,
                    ),
                    (
                        "model_forwarding_ns",
                        counts.forwarding_lf_count * c.forwarding_lf_ns,
                    ),
                    (
                        "model_switching_ns",
                        counts.switching_ls_count * c.switching_ls_ns,
                    ),
                ]
            });
            let error_pct = (model - measured) / measured * 100.0;
            errors.push((error_pct, e.experiment.name.clone(), p.size));
            measured_all.push(measured);
            model_all.push(model);
            let mut point = Point::new()
                .with("sweep", sweep)
                .with("nodes", e.experiment.shape.nodes() as f64)
                .with("hops", e.experiment.ping_counts().propagation_lp_count)
                .with("size_bytes", p.size as f64)
                .with("measured_ping_pong_ns", measured)
                .with("model_ping_pong_ns", model)
                .with("error_pct", error_pct);
            for (name, v) in parts.iter().flatten() {
                point = point.with(name, *v);
            }
            r.points.push(point);
        }
    }
    if errors.is_empty() {
        return r;
    }
    let abs: Vec<f64> = errors.iter().map(|(e, _, _)| e.abs()).collect();
    let (worst, name, size) = errors
        .iter()
        .max_by(|a, b| a.0.abs().total_cmp(&b.0.abs()))
        .cloned()
        .expect("not empty");
    let beyond = abs.iter().filter(|&&a| a > VALIDATION_BOUND_PCT).count();
    if beyond > 0 {
        r.warnings.push(format!(
            "{beyond} of {} points miss the paper's {VALIDATION_BOUND_PCT} % bound; the largest error is {worst:+.1} % ({name}, {size} B)",
            errors.len()
        ));
    }
    if m.ring_sweep
        .iter()
        .any(|e| e.experiment.local_hops(e.workers) > 0)
    {
        r.warnings.push(
            "rings of odd size have a hop that stays on one CPU and costs less than l_p: the model, which charges l_p per hop, overestimates them".into(),
        );
    }
    let mean_measured = mean(&measured_all);
    let ss_tot: f64 = measured_all
        .iter()
        .map(|v| (v - mean_measured).powi(2))
        .sum();
    let ss_res: f64 = measured_all
        .iter()
        .zip(&model_all)
        .map(|(a, b)| (a - b).powi(2))
        .sum();
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        1.0
    };
    let mut params = BTreeMap::new();
    params.insert("max_abs_error_pct".to_string(), worst.abs());
    params.insert("mean_abs_error_pct".to_string(), mean(&abs));
    params.insert(
        "points_within_bound".to_string(),
        (abs.len() - beyond) as f64,
    );
    r.fits.push(FitResult {
        model: "model (Table 1 estimates) vs measured PP, eqs. 21-25".into(),
        x: "size_bytes".into(),
        y: "measured_ping_pong_ns".into(),
        params,
        std_errors: BTreeMap::new(),
        r2,
        n_points: errors.len(),
        flagged: r2 < R2_THRESHOLD,
    });
    r
}

/// The four sets of model inputs of the projections, with their codes.
pub fn projection_inputs(measured: &SciComponents) -> [(u8, &'static str, SciComponents); 4] {
    let paper = SciComponents::paper_table1();
    [
        (0, "this machine", *measured),
        (1, "this machine, l_s halved", measured.enhanced()),
        (2, "paper Table 1", paper),
        (
            3,
            "paper Table 1, l_s halved (enhanced system)",
            paper.enhanced(),
        ),
    ]
}

fn projection_result(base: &KernelResult, c: &SciComponents) -> KernelResult {
    let mut r = KernelResult {
        kernel: PROJECTION.into(),
        ..base.clone()
    };
    for (code, label, inputs) in projection_inputs(c) {
        let report = match model_report(
            &inputs,
            PROJECTION_SIZE_BYTES,
            PROJECTION_MAX_NODES,
            &[1, 2, 3, 4],
        ) {
            Ok(report) => report,
            Err(e) => {
                r.warnings.push(format!("projection with {label}: {e}"));
                continue;
            }
        };
        // The curves of Fig. 14: both applications at log-spaced total sizes from
        // the smallest torus of each dimension count (2 nodes per dimension).
        for dims in 1..=4u32 {
            let lo = f64::from(dims).exp2();
            let hi = f64::from(PROJECTION_MAX_NODES);
            for i in 0..PROJECTION_CURVE_POINTS {
                let nodes =
                    lo * (hi / lo).powf(f64::from(i) / f64::from(PROJECTION_CURVE_POINTS - 1));
                let at = |app: SciApplication| {
                    app.latency_ns(&inputs, PROJECTION_SIZE_BYTES, nodes, dims)
                };
                if let (Ok(avg), Ok(multi)) = (
                    at(SciApplication::AverageLatency),
                    at(SciApplication::MultiUnicast),
                ) {
                    r.points.push(
                        Point::new()
                            .with("inputs", f64::from(code))
                            .with("dims", f64::from(dims))
                            .with("nodes", nodes)
                            .with("average_latency_ns", avg)
                            .with("multi_unicast_ns", multi),
                    );
                }
            }
        }
        let x = &report.crossovers;
        let pipelined = x.pipelined_multi_unicast.iter();
        for ((a, mu), pipe) in x.average.iter().zip(&x.multi_unicast).zip(pipelined) {
            let mut p = Point::new()
                .with("inputs", f64::from(code))
                .with("from_dims", f64::from(a.from_dims))
                .with("to_dims", f64::from(a.to_dims));
            // A crossover outside 2^D'..max nodes is left out (JSON has no NaN).
            if let Some(n) = a.nodes {
                p = p.with("crossover_average_nodes", n);
            }
            if let Some(n) = mu.nodes {
                p = p.with("crossover_multi_unicast_nodes", n);
            }
            if let Some(n) = pipe.nodes {
                p = p.with("crossover_pipelined_multi_unicast_nodes", n);
            }
            r.points.push(p);
        }
    }
    r.warnings.push(format!(
        "inputs: 0 this machine, 1 this machine with l_s halved, 2 the paper's Table 1, 3 the paper's enhanced system; crossovers searched up to {PROJECTION_MAX_NODES} nodes at {PROJECTION_SIZE_BYTES} B; the curves sampled at {PROJECTION_CURVE_POINTS} sizes per dimension count (every size: halfperf model sci --from FILE)"
    ));
    r.warnings.push(
        "multi-unicast as the paper defines it (the sum of the N - 1 request latencies) is (N - 1) x the average, so its crossovers equal the average ones; the pipelined multi-unicast (a sender that does not wait: (N - 2) max(o, link, l_s) + the farthest request) crosses where the farthest request does; the paper's Table 2 lists 2050 nodes against 1831 for 3D -> 4D, which neither gives (1832.6 and 1141.9 with its Table 1)".into(),
    );
    r
}

/// Why a result file gives no model inputs.
#[derive(Debug, thiserror::Error)]
pub enum SciInputsError {
    /// The file has no decomposition.
    #[error(
        "it has no {DECOMPOSITION} result with Table 1 estimates; write one with `halfperf run sci-topology`"
    )]
    NoDecomposition,
    /// A parameter is missing from the Table 1 fit.
    #[error("its {DECOMPOSITION} result lacks the parameter {0}")]
    MissingParameter(&'static str),
    /// The estimates are not valid model inputs.
    #[error(transparent)]
    Invalid(#[from] SciModelError),
}

/// The Table 1 estimates of the first `sci-decomposition` result in `file`, as model
/// inputs (what `halfperf model sci --from FILE` uses).
pub fn components_from_result(file: &ResultFile) -> Result<SciComponents, SciInputsError> {
    let fit = file
        .kernels
        .iter()
        .filter(|k| k.kernel == DECOMPOSITION)
        .flat_map(|k| &k.fits)
        .find(|f| f.model == TABLE1_MODEL)
        .ok_or(SciInputsError::NoDecomposition)?;
    let get = |name: &'static str| {
        fit.params
            .get(name)
            .copied()
            .ok_or(SciInputsError::MissingParameter(name))
    };
    Ok(SciComponents::new(
        get("propagation_lp_ns")?,
        get("forwarding_lf_ns")?,
        get("switching_ls_ns")?,
        get("overhead_o_ns")?,
        get("overhead_per_byte_ns")?,
    )?)
}

#[cfg(test)]
mod tests {
    use super::super::experiment::Experiment;
    use super::*;
    use crate::model::sci::predict_ping_pong;

    /// Measurements of a machine with components `c`, every point's trial
    /// `i` its exact PP latency plus `noise` times a pattern in 0..5 that
    /// differs between measurements (and holds 0 once, so every minimum is
    /// exact).
    fn measurements(c: &SciComponents, noise: f64) -> Measurements {
        let trials = |exact: f64, j: usize| -> Vec<f64> {
            (0..5)
                .map(|i| exact + noise * ((i * 7 + j * 3) % 5) as f64)
                .collect()
        };
        let measured = |size: usize, trials_ns: Vec<f64>| Measured {
            size,
            reps: 1,
            ping_pong_ns: crate::model::stats::summarize(&trials_ns).unwrap(),
            trials_ns,
            warning: None,
        };
        let experiments = [
            Experiment::ring_hops(1),
            Experiment::ring_hops(4),
            Experiment::torus_non_switching(),
            Experiment::torus_switching(),
        ];
        let size_sweep = experiments
            .into_iter()
            .enumerate()
            .map(|(e, experiment)| {
                let points = [64, 128, 256]
                    .iter()
                    .enumerate()
                    .map(|(k, &size)| {
                        let set = predict_ping_pong(c, size as u32).unwrap();
                        let exact = [
                            set.one_hop_ns,
                            set.four_hop_ns,
                            set.torus_non_switching_ns,
                            set.torus_switching_ns,
                        ][e];
                        measured(size, trials(exact, 1 + 3 * e + k))
                    })
                    .collect();
                ExperimentResult {
                    experiment,
                    workers: 2,
                    points,
                }
            })
            .collect();
        Measurements {
            cpus: vec![0, 1],
            propagation: measured(8, trials(c.propagation_lp_ns, 0)),
            size_sweep,
            ring_sweep: Vec::new(),
        }
    }

    /// The components' intervals hold the values, positive ones stay above
    /// zero (l_p's lower end is its least trial, the value), and noise larger
    /// than a small l_f gives it an interval reaching below zero, which the
    /// card shows as not resolved.
    #[test]
    fn component_intervals_come_from_the_trials() {
        let c = SciComponents::new(140.0, 10.0, 400.0, 200.0, 1.5).unwrap();
        let quiet = measurements(&c, 0.5);
        let (solved, warnings) = solve_per_size(&quiet);
        assert!(warnings.is_empty(), "{warnings:?}");
        let (lf, ls, in_range) = table1_lf_ls(&solved);
        assert!(in_range && (lf - 10.0).abs() < 1e-9 && (ls - 400.0).abs() < 1e-9);
        let [lp_ci, lf_ci, ls_ci] = component_intervals(&quiet).map(Option::unwrap);
        assert_eq!(lp_ci[0], 140.0, "{lp_ci:?}");
        assert!(lp_ci[1] > 140.0 && lp_ci[1] <= 142.0, "{lp_ci:?}");
        assert!(
            lf_ci[0] > 0.0 && lf_ci[0] <= 10.0 && lf_ci[1] >= 10.0,
            "{lf_ci:?}"
        );
        assert!(lf_ci[1] < 15.0, "{lf_ci:?}");
        assert!(ls_ci[0] > 390.0 && ls_ci[1] < 410.0, "{ls_ci:?}");
        let noisy = measurements(&c, 40.0);
        let [_, lf_ci, ls_ci] = component_intervals(&noisy).map(Option::unwrap);
        assert!(lf_ci[0] < 0.0 && lf_ci[1] >= 10.0, "{lf_ci:?}");
        assert!(ls_ci[0] > 0.0, "{ls_ci:?}");
        // The result records them, and the card says which are resolved.
        let base = KernelResult::new(
            KERNEL,
            "scibench",
            crate::control::Placement::Pinned,
            vec![0, 1],
        );
        let (r, _) = decomposition_result(&base, &noisy);
        let ci = |name: &str| r.headline.iter().find(|p| p.name == name).unwrap().ci95;
        assert_eq!(ci("forwarding_lf_ns"), Some(lf_ci));
        let mut file =
            crate::results::read(std::path::Path::new("tests/data/fixture-methods.json"))
                .expect("the fixture reads");
        file.kernels = vec![r];
        file.summary = None;
        let card = crate::analysis::card_of(&file);
        let row = |name: &str| card.rows.iter().find(|r| r.name == name).unwrap();
        assert!(
            row("forwarding_lf_ns").interval.starts_with("not resolved"),
            "{:?}",
            row("forwarding_lf_ns")
        );
        assert_eq!(row("switching_ls_ns").ci95, Some(ls_ci));
    }

    #[test]
    fn noise_below_zero_keeps_the_size_and_the_other_components() {
        let c = SciComponents::new(140.0, 10.0, 400.0, 200.0, 1.5).unwrap();
        let exact = predict_ping_pong(&c, 64).unwrap();
        // Noise: the 4-hop test 45 ns too fast (l_f = 10 - 15 = -5 ns), the switching
        // test 420 ns too fast (l_s = -20 ns).
        let noisy = PingPongSet {
            four_hop_ns: exact.four_hop_ns - 45.0,
            torus_switching_ns: exact.torus_switching_ns - 420.0,
            ..exact
        };
        let (s, below) = solve_keeping_noise(noisy, 140.0).unwrap();
        assert!((s.forwarding_lf_ns + 5.0).abs() < 1e-9, "{s:?}");
        assert!((s.switching_ls_ns + 20.0).abs() < 1e-9, "{s:?}");
        assert!((s.overhead_o_ns - 200.0).abs() < 1e-9);
        let names: Vec<&str> = below.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["forwarding_lf_ns", "switching_ls_ns"]);
        // Exact inputs need no repair; a negative overhead is an error.
        let (s, below) = solve_keeping_noise(exact, 140.0).unwrap();
        assert!(below.is_empty() && (s.forwarding_lf_ns - 10.0).abs() < 1e-9);
        let too_fast = PingPongSet {
            one_hop_ns: 100.0,
            ..exact
        };
        assert!(matches!(
            solve_keeping_noise(too_fast, 140.0),
            Err(SciModelError::NegativeSolution {
                name: "overhead_o_ns",
                ..
            })
        ));
        assert_eq!(median(&[3.0, -1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
