//! `c2c`: the core-to-core latency matrix: 8-byte mailbox ping-pong between every
//! pair of the CPUs in use (each pair its own two-rank team).

use super::super::timing::summarize_trials;
use super::super::{KernelError, KernelSpec, RunContext};
use super::pair::{OVER_PROBE_STAT, PairPlan, Pattern, over_probe_by_round, run_on};
use crate::control::Placement;
use crate::kernels::headline;
use crate::kernels::probe::{PROBE_MOVED, PROBE_PARAM, probe_of};
use crate::model::interval;
use crate::model::stats::{Summary, summarize};
use crate::platform::DistanceClass;
use crate::results::{KernelResult, Param, Point, num};
use crate::team::Team;
use crate::transport::TransportConfig;
use crate::transport::mailbox::Mailbox;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "c2c";

pub(super) const C2C: KernelSpec = KernelSpec {
    name: NAME,
    method: "scibench",
    paper: "Gonzalez 2000, section 5.1 (PP), over all CPU pairs",
    about: "core-to-core 8-byte ping-pong latency matrix over every pair of CPUs (mailbox)",
    in_quick_suite: true,
    run,
};

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let cpus = ctx.cpus();
    let pairs: Vec<(usize, usize)> = cpus
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| cpus[i + 1..].iter().map(move |&b| (a, b)))
        .collect();
    if pairs.is_empty() {
        return Err(KernelError::NotRunnable {
            kernel: NAME.into(),
            reason: format!("it needs at least 2 CPUs and has {cpus:?}"),
        });
    }
    ctx.progress.begin(NAME, pairs.len() as u64);
    let mut points = Vec::new();
    let mut warnings = Vec::new();
    let sizes = [8usize];
    for &(a, b) in &pairs {
        if ctx.cancelled() {
            return Err(KernelError::Interrupted);
        }
        let team = Team::new(&ctx.team_spec(vec![a, b], 2, false))?;
        let plan = PairPlan {
            pattern: Pattern::PingPong,
            sizes: &sizes,
            trials: ctx.config.trials(),
            target: ctx.config.batch_target(ctx.clock),
            clock: ctx.clock,
            fault: ctx.config.fault,
            single_round_trips: 1_000,
            on_size: &|_| {},
            cancelled: &|| false,
        };
        let samples = run_on::<Mailbox>(&team, NAME, &TransportConfig::for_messages(16), &plan)?;
        let (summary, warning) =
            summarize_trials(&samples.sizes[0].samples_ns, &format!("CPUs {a}-{b}"));
        warnings.extend(warning);
        let class = ctx.topology.distance(a, b).map_or(-1.0, |c| c as u8 as f64);
        let mut point = Point::new()
            .with("cpu_a", a as f64)
            .with("cpu_b", b as f64)
            .with("distance_class_index", class)
            .with("size_bytes", 8.0)
            .with_stats("one_way_ns", summary);
        if let Ok(probes) = summarize(&samples.probes_ns) {
            point = point.with_stats(PROBE_PARAM, probes);
        }
        if let Some(ratio) = over_probe_by_round(&samples.sizes[0].samples_ns, &samples.probes_ns) {
            point = point.with_stats(OVER_PROBE_STAT, ratio);
        }
        points.push(point);
        ctx.progress.step(&format!("CPUs {a}-{b}"));
    }
    ctx.progress.end();
    let headline = class_headline(&points, &pairs, ctx);
    Ok(vec![
        KernelResult::new(NAME, "scibench", Placement::Pinned, cpus)
            .with_transport(Some("mailbox"))
            .with_ranks(2)
            .with_points(points)
            .with_warnings(warnings)
            .with_headline(headline),
    ])
}

/// Per distance class: the minimum, median and maximum over its pairs of each
/// pair's median one-way time, and the same of each pair's median ratio to its
/// probe ([`OVER_PROBE_STAT`], the latency in units of the machine's cache-line
/// transfer of the moment). One pair: its median with the trials' range; more:
/// percentile bootstrap over the pairs. Then the probe over all pairs.
fn class_headline(points: &[Point], pairs: &[(usize, usize)], ctx: &RunContext<'_>) -> Vec<Param> {
    let mut out = Vec::new();
    for class in DistanceClass::ALL {
        let of = class.to_string();
        let in_class: Vec<&Point> = points
            .iter()
            .zip(pairs)
            .filter(|(_, (a, b))| ctx.topology.distance(*a, *b) == Some(class))
            .map(|(p, _)| p)
            .collect();
        for (quantity, prefix) in [
            ("one_way_ns", "one_way_ns"),
            (OVER_PROBE_STAT, OVER_PROBE_STAT),
        ] {
            let stats: Vec<&Summary> = in_class.iter().filter_map(|p| p.stats(quantity)).collect();
            out.extend(spread_over_pairs(&stats, prefix, &of));
        }
    }
    let probes: Vec<f64> = points
        .iter()
        .filter_map(|p| p.stats(PROBE_PARAM))
        .map(|s| s.median)
        .collect();
    if let Ok(s) = summarize(&probes) {
        out.push(headline::median_with_range(PROBE_PARAM, None, &s));
    }
    out
}

/// `{prefix}_min`, `_median` and `_max` over the pairs of one class, of each
/// pair's median.
fn spread_over_pairs(stats: &[&Summary], prefix: &str, of: &str) -> Vec<Param> {
    let names = ["min", "median", "max"].map(|s| format!("{prefix}_{s}"));
    match stats {
        [] => Vec::new(),
        [one] => names
            .iter()
            .map(|name| headline::median_with_range(name, Some(of), one))
            .collect(),
        many => {
            let v: Vec<f64> = many.iter().map(|s| s.median).collect();
            let stats = |idx: &[usize]| {
                let mut x: Vec<f64> = idx.iter().map(|&i| v[i]).collect();
                let med = interval::median_in_place(&mut x)?;
                Some(vec![x[0], med, x[x.len() - 1]])
            };
            let all: Vec<usize> = (0..v.len()).collect();
            let value = stats(&all).expect("finite medians");
            let ci = interval::bootstrap(v.len(), 3, interval::RESAMPLES, interval::SEED, stats);
            names
                .iter()
                .enumerate()
                .map(|(k, name)| {
                    Param::new(name, Some(of), value[k])
                        .with_ci(ci[k], "percentile bootstrap over the class's CPU pairs")
                })
                .collect()
        }
    }
}

/// Sets `c2c`'s figure for the pair that `pingpong` measured beside `pingpong`'s
/// 8-byte mailbox point (same repetition), and warns on the `c2c` result where
/// the two do not agree within their trials' ranges.
///
/// Both kernels time the same loop on the same pair, seconds apart; on a machine
/// whose cross-core cost changes state (a VM's host moving its virtual CPUs) they
/// can see different states. The check therefore reads them twice: in ns, and in
/// units of each round's probe (`one_way_over_probe`). Ranges that overlap in ns
/// agree; ranges that overlap only in probe units were measured in different
/// states, and the warning says so with both probes; ranges that overlap in
/// neither disagree.
pub fn check_against_pingpong(results: &mut [KernelResult]) {
    let mut warnings: Vec<(usize, String)> = Vec::new();
    for (i, c2c) in results.iter().enumerate().filter(|(_, r)| r.kernel == NAME) {
        let Some(pp) = results.iter().find(|r| {
            r.kernel == super::pingpong::NAME
                && r.transport.as_deref() == Some("mailbox")
                && r.repetition == c2c.repetition
                && r.cpus.len() == 2
        }) else {
            continue;
        };
        let (a, b) = (pp.cpus[0] as f64, pp.cpus[1] as f64);
        let pair = c2c.points.iter().find(|p| {
            let (x, y) = (p.number("cpu_a"), p.number("cpu_b"));
            (x, y) == (Some(a), Some(b)) || (x, y) == (Some(b), Some(a))
        });
        let eight = pp
            .points
            .iter()
            .find(|p| p.number("size_bytes") == Some(8.0));
        let probe = probe_of(pp, None).unwrap_or(f64::NAN);
        if let Some(w) = pair
            .zip(eight)
            .and_then(|(c, p)| disagreement(c, (p, probe), (a, b)))
        {
            warnings.push((i, w));
        }
    }
    for (i, w) in warnings {
        results[i].warnings.push(w);
    }
}

/// The warning of [`check_against_pingpong`] for one pair, `None` when the two
/// points' one-way ranges overlap; `pingpong` is its 8-byte point and the median
/// round trip of its probes.
fn disagreement(
    c2c: &Point,
    (pingpong, probe): (&Point, f64),
    (a, b): (f64, f64),
) -> Option<String> {
    let overlap = |q: &str| {
        let (x, y) = (c2c.stats(q)?, pingpong.stats(q)?);
        Some(x.min <= y.max && y.min <= x.max)
    };
    if overlap("one_way_ns")? {
        return None;
    }
    let ns = |p: &Point| p.stats("one_way_ns").map_or(f64::NAN, |s| s.median);
    let ratio = |p: &Point| p.stats(OVER_PROBE_STAT).map_or(f64::NAN, |s| s.median);
    let c2c_probe = c2c.stats(PROBE_PARAM).map_or(f64::NAN, |s| s.median);
    let moved = (c2c_probe.max(probe) / c2c_probe.min(probe) - 1.0) > PROBE_MOVED;
    let figures = format!(
        "c2c's CPUs {a}-{b} at {} ns one way against pingpong's 8-byte mailbox point at {} ns (the two-flag probe's round trip {} against {} ns)",
        num(ns(c2c)),
        num(ns(pingpong)),
        num(c2c_probe),
        num(probe),
    );
    Some(match overlap(OVER_PROBE_STAT) {
        Some(true) if moved => format!(
            "{figures}: measured in different machine states; in units of the probe's one-way time they agree ({} against {})",
            num(ratio(c2c)),
            num(ratio(pingpong)),
        ),
        _ => format!(
            "{figures}: they disagree beyond their trials' ranges{}; see the accuracy warnings",
            if moved {
                ", in ns and in units of the probe"
            } else {
                " while the probe held still"
            },
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::stats::summarize;

    /// A point of 8-byte one-way times `ns`, ratios to the probe `ratios` and
    /// probe round trips `probes`.
    fn point(ns: &[f64], ratios: &[f64], probes: &[f64]) -> Point {
        Point::new()
            .with("size_bytes", 8.0)
            .with_stats("one_way_ns", summarize(ns).unwrap())
            .with_stats(OVER_PROBE_STAT, summarize(ratios).unwrap())
            .with_stats(PROBE_PARAM, summarize(probes).unwrap())
    }

    /// Each round's time over half its probe: 50 ns against a 100 ns round trip
    /// and 100 against 200 are both one probe one-way; a missing probe per round
    /// gives nothing.
    #[test]
    fn the_ratio_to_the_probe_is_taken_round_by_round() {
        let s = over_probe_by_round(&[50.0, 100.0, 75.0], &[100.0, 200.0, 100.0]).unwrap();
        assert_eq!((s.min, s.median, s.max), (1.0, 1.0, 1.5));
        assert!(over_probe_by_round(&[50.0, 100.0], &[100.0]).is_none());
    }

    /// Overlapping one-way ranges agree; ranges apart in ns but overlapping in
    /// probe units, with probes more than a fifth apart, were two machine
    /// states; apart in both, or apart in ns with the probe unmoved (a kernel
    /// that lost its CPU for a while), they disagree.
    #[test]
    fn c2c_and_pingpong_are_read_in_ns_then_in_probe_units() {
        let pp = point(&[45.0, 48.0, 51.0], &[1.00, 1.05, 1.10], &[90.0]);
        let same = point(&[49.0, 60.0, 70.0], &[1.0, 1.1, 1.2], &[100.0]);
        assert_eq!(disagreement(&same, (&pp, 90.0), (0.0, 1.0)), None);
        let moved = point(&[200.0, 210.0, 220.0], &[1.04, 1.08, 1.12], &[390.0]);
        let w = disagreement(&moved, (&pp, 90.0), (0.0, 1.0)).unwrap();
        assert!(w.contains("different machine states"), "{w}");
        assert!(w.contains("c2c's CPUs 0-1 at 210.0 ns"), "{w}");
        let off = point(&[200.0, 210.0, 220.0], &[2.0, 2.1, 2.2], &[390.0]);
        let w = disagreement(&off, (&pp, 90.0), (0.0, 1.0)).unwrap();
        assert!(
            w.contains("they disagree") && w.contains("in units of the probe"),
            "{w}"
        );
        let noisy = point(&[53.0, 272.0, 690.0], &[1.04, 5.4, 13.7], &[100.0]);
        let w = disagreement(&noisy, (&pp, 96.0), (0.0, 1.0)).unwrap();
        assert!(w.contains("while the probe held still"), "{w}");
    }
}
