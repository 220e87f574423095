//! Lamanna's chapter IV validation, made sound: the simulator, calibrated with
//! this machine's message latency ([`super::calibrate`]), against the
//! benchmark by the thesis's paired difference t test (Appendix D, alpha 0.1),
//! each simulation of the placement the benchmark ran on.
//!
//! # The placement simulated
//! `N` ranks on `C >= N` CPUs are pinned, one a CPU: the thesis's `N`
//! dedicated processors, simulated as they are. `N > C` ranks are virtual
//! processors: `k = ceil(N / C)` of them share a CPU, and the scheduler gives
//! each runnable rank its share of it (processor sharing). Every cost the
//! simulator charges here is CPU work (the burst, `t_l`'s parts at sender and
//! destination, `t_c`'s copy, `t_i`'s forwarding: shared memory has no wire),
//! so `N` virtual processors are `N` processors each `k` times slower: the
//! simulation of `N` nodes with every time of the calibration and the load
//! multiplied by `k`. Comparing them with `N` dedicated processors (as the
//! thesis's machine had, and as this kernel did before) set a benchmark that
//! waited for its CPU against a simulation that never did.
//!
//! # The tests
//! Two paired t tests, each a point and a warning line: over the pinned points
//! only (the thesis's own comparison, simulator and benchmark on dedicated
//! processors; on a quiet machine it must not reject), and over every point
//! with the virtual ones simulated shared. Both pair `N > 1` only, as the
//! thesis's Appendix D (cube sizes 2 to 32): at `N = 1` the simulation is
//! given `U`, the benchmark's own mean, so its pair is no evidence and would
//! only shrink the differences' spread. Each simulated point records `virtual` and
//! `ranks_per_cpu`; a warning names the virtual `N`.

use super::{SpeedupPlan, calibrate};
use crate::model::stats::summarize;
use crate::results::{FitResult, KernelResult, Point};

/// Ranks a CPU for `n` ranks on `cpus` CPUs: 1 when pinned.
pub(super) fn ranks_per_cpu(n: usize, cpus: usize) -> usize {
    n.div_ceil(cpus.max(1)).max(1)
}

/// Calibrates the simulator with the measured T_ML (eqs. 7-9) and the start-up's split
/// between sender and destination, simulates every (load, N) on a hypercube in the
/// listing's model and compares with the benchmark by the paired t test (see
/// [`calibrate`]), with `cpus` CPUs under the ranks (see the module doc).
pub(super) fn validate(
    result: &mut KernelResult,
    plan: &SpeedupPlan,
    totals: &[Vec<Vec<f64>>],
    chain: &calibrate::ChainTimes,
    cpus: usize,
) {
    let latencies = &chain.latencies;
    for l in latencies {
        result.points.push(
            Point::new()
                .with("size_bytes", l.size as f64)
                .with("hops", l.hops as f64)
                .with("one_way_ms", l.one_way_ms),
        );
    }
    for c in &chain.send_calls {
        result.points.push(
            Point::new()
                .with("size_bytes", c.size as f64)
                .with("send_call_ms", c.call_ms),
        );
    }
    let Some(fit) = calibrate::fit_message_latency(latencies) else {
        result
            .warnings
            .push("no T_ML fit: the simulator was not calibrated".into());
        return;
    };
    let coefficient = |name: &str| {
        fit.coefficient(name)
            .map_or((f64::NAN, f64::NAN), |c| (c.value, c.standard_error))
    };
    let terms = [
        ("tl_ms", coefficient(crate::model::regression::INTERCEPT)),
        ("tc_ms_per_byte", coefficient("L H")),
        ("ti_ms", coefficient("I")),
    ];
    let (tl_ms, tc_ms_per_byte, ti_ms) = (
        terms[0].1.0.max(0.0),
        terms[1].1.0.max(0.0),
        terms[2].1.0.max(0.0),
    );
    for (name, (value, se)) in terms {
        if value < -se {
            result.warnings.push(format!(
                "T_ML fit: {name} = {value:.3e} is negative beyond its standard error; the simulator takes 0"
            ));
        }
    }
    let split = calibrate::split_startup(tl_ms, terms[0].1.1, &chain.send_calls)
        .unwrap_or_else(|why| {
            result.warnings.push(format!(
                "start-up split not measured ({why}): t_l split in the listing's ratio MSG_INIT : OVERHEAD = 1.667 : 0.6158"
            ));
            calibrate::StartupSplit::listing_ratio(tl_ms, terms[0].1.1)
        });
    let split_terms = [
        ("tl_send_ms", (split.send_ms, split.send_se_ms)),
        ("tl_receive_ms", (split.receive_ms, split.receive_se_ms)),
        ("tl_split_measured", (f64::from(split.measured), 0.0)),
    ];
    result.warnings.push(format!(
        "t_l = {:.3e} ms split {}: sender {:.3e} +/- {:.1e} ms (MSG_INIT: {}), destination {:.3e} +/- {:.1e} ms (OVERHEAD: the rest of t_l)",
        tl_ms,
        if split.measured { "as measured" } else { "in the listing's ratio" },
        split.send_ms,
        split.send_se_ms,
        if split.measured {
            "rank 0's send call and fence, median of each size's calls less the clock, intercept over L"
        } else {
            "1.667 / 2.2828 of t_l"
        },
        split.receive_ms,
        split.receive_se_ms,
    ));
    let probe_term = chain.empty_probe_ms.map(|p| ("probe_empty_ms", (p, 0.0)));
    if let Some(p) = chain.empty_probe_ms {
        // Eq. 10's per-probe cost as a card row with its interval, for `model speedup`.
        let mut row = crate::results::Param::new("probe_empty_ms", None, p);
        row.ci95 = chain.empty_probe_ci95_ms;
        row.interval = Some(format!(
            "percentile bootstrap of the median over {} batches of {} probes",
            calibrate::PROBE_BATCHES,
            calibrate::EMPTY_PROBES
        ));
        result.headline.push(row);
    }
    result
        .warnings
        .extend(calibrate::checking_note(chain, plan, tl_ms, tc_ms_per_byte));
    let all_terms = terms.iter().chain(&split_terms).chain(probe_term.iter());
    result.fits.push(FitResult {
        model: "eqs. 7-9: T_ML = t_l + L H t_c + I t_i, one-way over a chain of H links with I = H - 1 store-and-forward nodes; t_l = tl_send_ms (rank 0's send call) + tl_receive_ms (the rest)".into(),
        x: "size_bytes, hops".into(),
        y: "one_way_ms".into(),
        params: all_terms
            .clone()
            .map(|(n, (v, _))| (n.to_string(), *v))
            .collect(),
        std_errors: all_terms.map(|(n, (_, e))| (n.to_string(), *e)).collect(),
        r2: fit.r_squared,
        n_points: latencies.len(),
        flagged: fit.r_squared < 0.9,
    });
    let (pairs, shared_n) = simulate_points(
        result,
        plan,
        totals,
        chain,
        cpus,
        &split,
        tc_ms_per_byte,
        ti_ms,
    );
    paired_tests(result, &pairs, &shared_n, cpus);
}

/// Simulates every (load, N) of the benchmark's powers of two with the
/// calibrated costs (`split`, `tc_ms_per_byte`, `ti_ms`), each N's
/// processors `k = ranks_per_cpu` times slower where ranks share CPUs, and
/// puts the simulated time beside the measured point: the (benchmark,
/// simulation, shared) pairs of N > 1, and the N that shared CPUs.
#[allow(clippy::too_many_arguments)]
fn simulate_points(
    result: &mut KernelResult,
    plan: &SpeedupPlan,
    totals: &[Vec<Vec<f64>>],
    chain: &calibrate::ChainTimes,
    cpus: usize,
    split: &calibrate::StartupSplit,
    tc_ms_per_byte: f64,
    ti_ms: f64,
) -> (Vec<(f64, f64, bool)>, Vec<usize>) {
    use crate::model::simulator::{
        BurstDist, MessageCosts, Receivers, SimConfig, Topology, simulate,
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    // (benchmark, simulation, virtual) per (load, N).
    let mut pairs: Vec<(f64, f64, bool)> = Vec::new();
    let mut shared_n = Vec::new();
    for (ni, per_load) in totals.iter().enumerate() {
        let n = plan.processors[ni];
        if !n.is_power_of_two() {
            continue;
        }
        for (li, runs) in per_load.iter().enumerate() {
            let uni = &totals[0][li];
            let u = mean(uni);
            let spread = summarize(uni).map_or(0.0, |s| s.std_dev);
            let k = ranks_per_cpu(n, cpus) as f64;
            if k > 1.0 && !shared_n.contains(&n) {
                shared_n.push(n);
            }
            let mut simulated = Vec::with_capacity(plan.runs);
            for run in 0..plan.runs {
                let config = SimConfig {
                    topology: Topology::Hypercube,
                    nodes: n as u32,
                    bursts: 1,
                    receivers: Receivers::All,
                    burst_dist: BurstDist::Normal {
                        sigma_ms: k * spread / n as f64,
                    },
                    uniprocessor_ms: k * u,
                    costs: MessageCosts {
                        tl_ms: k * split.send_ms,
                        receive_ms: k * split.receive_ms,
                        tc_ms_per_byte: k * tc_ms_per_byte,
                        ti_ms: k * ti_ms,
                        ..MessageCosts::LISTING
                    },
                    message_bytes: (plan.order / n * plan.order * std::mem::size_of::<f64>())
                        as u32,
                    calibration: chain.empty_probe_ms.map(calibrate::checking_calibration),
                    seed: (li * 1_000_000 + n * 1000 + run) as u64,
                };
                match simulate(&config) {
                    Ok(r) => simulated.push(r.time_ms),
                    Err(e) => {
                        result.warnings.push(format!("simulation of N = {n}: {e}"));
                        break;
                    }
                }
            }
            if simulated.is_empty() {
                continue;
            }
            let sim_ms = mean(&simulated);
            let load = f64::from(plan.loads[li]);
            if let Some(p) = result.points.iter_mut().find(|p| {
                p.number("processors") == Some(n as f64)
                    && p.number("load_recomputations") == Some(load)
                    && p.stats("time_ms").is_some()
            }) {
                *p = std::mem::take(p)
                    .with("simulated_ms", sim_ms)
                    .with("ranks_per_cpu", k);
            }
            // N = 1 is U itself, the simulation's input: no evidence either
            // way (the thesis's test pairs N = 2..32 only).
            if n > 1 {
                pairs.push((mean(runs), sim_ms, k > 1.0));
            }
        }
    }
    (pairs, shared_n)
}

/// The paired t tests of benchmark - simulation over every point and over
/// the pinned points only, as points and warnings, and the notes on how the
/// simulation was made.
fn paired_tests(
    result: &mut KernelResult,
    pairs: &[(f64, f64, bool)],
    shared_n: &[usize],
    cpus: usize,
) {
    use crate::model::ttest::{THESIS_ALPHA, paired_t_test};
    // Every point (virtual ones simulated shared) first, then the pinned ones.
    let virtual_pairs = pairs.iter().filter(|p| p.2).count();
    for pinned_only in [false, true] {
        let (bench, sim): (Vec<f64>, Vec<f64>) = pairs
            .iter()
            .filter(|p| !(pinned_only && p.2))
            .map(|p| (p.0, p.1))
            .unzip();
        let which = if pinned_only {
            "pinned points only"
        } else {
            "every point"
        };
        match paired_t_test(&bench, &sim, THESIS_ALPHA) {
            Ok(t) => {
                result.warnings.push(format!(
                    "paired t test (benchmark - simulation, {which}, N > 1): {} pairs, mean difference {:.3e} ms, t = {:.3}, p = {:.3}: {}",
                    t.pairs,
                    t.mean_difference,
                    t.t,
                    t.p_value,
                    if t.reject_null {
                        "equal means rejected at alpha = 0.1"
                    } else {
                        "not rejected at alpha = 0.1"
                    }
                ));
                result.points.push(
                    Point::new()
                        .with("validation_pairs", t.pairs as f64)
                        .with("pinned_only", f64::from(pinned_only))
                        .with(
                            "virtual_pairs",
                            if pinned_only {
                                0.0
                            } else {
                                virtual_pairs as f64
                            },
                        )
                        .with("mean_difference_ms", t.mean_difference)
                        .with("sd_difference_ms", t.sd_difference)
                        .with("t", t.t)
                        .with("p_value", t.p_value)
                        .with("critical_t", t.critical_t)
                        .with("reject_equal_means", f64::from(t.reject_null)),
                )
            }
            Err(e) => result.warnings.push(format!(
                "paired t test (benchmark - simulation, {which}): {e}"
            )),
        }
    }
    if !shared_n.is_empty() {
        result.warnings.push(format!(
            "virtual points: N = {shared_n:?} ranks on {cpus} CPUs share them, simulated so (each of the N processors k = ceil(N / {cpus}) times slower: processor sharing); the paired t test over pinned points only is the thesis's comparison, the one over every point includes them"
        ));
    }
    result.warnings.push(
        "simulated_ms: Lamanna's simulator on a hypercube calibrated with this run's T_ML fit (t_l, t_c, t_i; eq. 10's checking term C = (N - 1) probe_empty_ms for N > 2) in the listing's model (tl_send_ms at the sender, node held; tl_receive_ms on the destination's processor; channels by dimension); the last two points are the paired t tests of benchmark - simulation at alpha = 0.1, over every point and over the pinned points only".into(),
    );
}

#[cfg(test)]
mod tests {
    use super::ranks_per_cpu;

    #[test]
    fn ranks_share_a_cpu_only_when_they_outnumber_them() {
        let k: Vec<usize> = [1, 2, 3, 4, 8]
            .iter()
            .map(|&n| ranks_per_cpu(n, 2))
            .collect();
        assert_eq!(k, vec![1, 1, 2, 2, 4]);
        assert_eq!(ranks_per_cpu(8, 8), 1);
        assert_eq!(ranks_per_cpu(5, 0), 5);
    }
}
