//! `c2c`: the core-to-core latency matrix: 8-byte mailbox ping-pong between every
//! pair of the CPUs in use (each pair its own two-rank team), the line homed
//! where `--home` says ([`crate::platform::Home`]); with `--home third` a
//! second result (`mailbox-home-third`) times every pair again with its line
//! on a third CPU, chosen as far from the pair as the machine allows.

use super::super::harness::sweep::SweepPlan;
use super::super::harness::timing::summarize_trials;
use super::super::{KernelError, KernelSpec, RunContext};
use super::c2c_headline::{OVER_PROBE, class_headline};
use super::pair::{PairPlan, Pattern, run_on};
use crate::control::Placement;
use crate::kernels::harness::probe::{PROBE_MOVED, PROBE_PARAM, probe_of};
use crate::model::interval;
use crate::model::stats::{Summary, summarize};
use crate::platform::{DistanceClass, Home};
use crate::results::{KernelResult, Point, num};
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
    over_mpi: crate::kernels::OverMpi::pair(crate::kernels::mpi_run!(super::over_mpi::c2c)),
    card: &[crate::kernels::card::CardEntry::of(
        NAME,
        crate::kernels::card::CardRows::CoreToCore,
    )],
    run,
    plan: super::estimate::c2c,
};

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let cpus = ctx.cpus();
    // Every pair, or (quick, or sampled by the plan) a few of every distance
    // class and core-type pair: the same choice the plan estimates.
    let per_kind = ctx.config.c2c_pairs_per_kind.or(ctx
        .config
        .quick
        .then_some(crate::kernels::effort::C2C_QUICK_PER_KIND));
    let pairs: Vec<(usize, usize)> =
        crate::kernels::harness::pair::c2c_pairs(ctx.topology, &cpus, per_kind)
            .into_iter()
            .map(|(_, a, b)| (a, b))
            .collect();
    if pairs.is_empty() {
        return Err(KernelError::NotRunnable {
            kernel: NAME.into(),
            reason: format!("it needs at least 2 CPUs and has {cpus:?}"),
        });
    }
    // With `--home third`, every pair twice, back to back: its line homed
    // on its first CPU, then on a third CPU (a second result, so that the
    // table shows whether the home matters).
    let homes: &[Home] = match ctx.config.home {
        Home::Third => &[Home::Local, Home::Third],
        _ => std::slice::from_ref(&ctx.config.home),
    };
    ctx.progress.begin(NAME, (pairs.len() * homes.len()) as u64);
    let mut points = vec![Vec::new(); homes.len()];
    let mut warnings = vec![Vec::new(); homes.len()];
    for &(a, b) in &pairs {
        for (h, &home) in homes.iter().enumerate() {
            if ctx.cancelled() {
                return Err(KernelError::Interrupted);
            }
            let (point, warning) = measure_pair(ctx, (a, b), home)?;
            points[h].push(point);
            warnings[h].extend(warning);
            ctx.progress.step(&format!("CPUs {a}-{b}, home {home}"));
        }
    }
    ctx.progress.end();
    let classes: Vec<Option<DistanceClass>> = pairs
        .iter()
        .map(|&(a, b)| ctx.topology.distance(a, b))
        .collect();
    let results = homes
        .iter()
        .zip(points.into_iter().zip(warnings))
        .map(|(&home, (points, warnings))| {
            let headline = class_headline(&points, &classes);
            KernelResult::new(NAME, "scibench", Placement::Pinned, cpus.clone())
                .with_transport(Some(transport_name(home)))
                .with_ranks(2)
                .with_points(points)
                .with_warnings(warnings)
                .with_headline(headline)
        })
        .collect();
    Ok(results)
}

/// The transport name of c2c's result with its lines on `home`: `mailbox`,
/// or `mailbox-home-third` for the third-CPU variant.
fn transport_name(home: Home) -> &'static str {
    match home {
        Home::Third => THIRD_VARIANT,
        _ => "mailbox",
    }
}

/// The transport name of c2c's variant with each pair's line homed on a third CPU.
pub(crate) const THIRD_VARIANT: &str = "mailbox-home-third";

/// One pair's point (its one-way time, probe and line's home) and any
/// warning of its trials.
fn measure_pair(
    ctx: &RunContext<'_>,
    (a, b): (usize, usize),
    home: Home,
) -> Result<(Point, Option<String>), KernelError> {
    let team = Team::new(&ctx.team_spec(vec![a, b], 2, false))?;
    let sizes = [8usize];
    let (on_size, cancelled) = (|_: usize| {}, || false);
    let plan = PairPlan {
        sweep: SweepPlan::new(ctx, &sizes, &on_size, &cancelled),
        pattern: Pattern::PingPong,
        single_round_trips: 1_000,
    };
    let home_cpu = home
        .cpu_for(ctx.topology, ctx.allowed, (a, b))
        .map_err(|e| KernelError::NotRunnable {
            kernel: NAME.into(),
            reason: e.to_string(),
        })?;
    let samples = run_on::<Mailbox>(
        &team,
        NAME,
        &TransportConfig::for_messages(16),
        &plan,
        (home_cpu, ctx.topology),
    )?;
    let (summary, mut warning) =
        summarize_trials(&samples.sizes[0].samples_ns, &format!("CPUs {a}-{b}"));
    let class = ctx.topology.distance(a, b).map_or(-1.0, |c| c as u8 as f64);
    let mut point = Point::new()
        .with("cpu_a", a as f64)
        .with("cpu_b", b as f64)
        .with("distance_class_index", class)
        .with("size_bytes", 8.0)
        .with_stats("one_way_ns", summary);
    if let Some(line) = &samples.home {
        point = line.annotate(point);
        warning = warning.or_else(|| line.warning());
    }
    if let Ok(probes) = summarize(&samples.probes_ns) {
        point = point.with_stats(PROBE_PARAM, probes);
    }
    if let Some(ratio) = over_probe_by_round(&samples.sizes[0].samples_ns, &samples.probes_ns) {
        point = point.with(OVER_PROBE, ratio);
    }
    Ok((point, warning))
}

/// The median over rounds of each round's one-way time over that round's
/// two-flag one-way time (half the probe's round trip): the latency in units of
/// the machine's cache-line transfer of the moment. Paired round by round, it
/// holds still when the machine's state moves between rounds, where the times
/// do not; the median, because a round whose probe or batch lost its CPU gives
/// a ratio far off in either direction. `None` without a probe per round.
fn over_probe_by_round(samples_ns: &[f64], probes_ns: &[f64]) -> Option<f64> {
    if samples_ns.len() != probes_ns.len() {
        return None;
    }
    let mut ratios: Vec<f64> = samples_ns
        .iter()
        .zip(probes_ns)
        .filter(|(_, p)| **p > 0.0)
        .map(|(s, p)| s / (p / 2.0))
        .collect();
    interval::median_in_place(&mut ratios)
}

/// Sets `c2c`'s figure for the pair that `pingpong` measured beside `pingpong`'s
/// 8-byte mailbox point (same repetition), and warns on the `c2c` result where
/// the two do not agree within their trials' ranges.
///
/// Both kernels time the same loop on the same pair, seconds apart; on a machine
/// whose cross-core cost changes state (a VM's host moving its virtual CPUs) they
/// can see different states. The check therefore reads them twice: in ns, and in
/// units of the probe's one-way time (for `c2c` the median of its per-round
/// ratios, for `pingpong` its 8-byte median over its probes' median). Ranges that
/// overlap in ns agree. Apart in ns, with probes more than a fifth apart and
/// ratios within the trials' relative spread (at least scibench's 10 %), the two
/// were measured in different machine states, and the warning says so with both
/// probes; otherwise they disagree, and the warning says whether the probe held
/// still.
pub fn check_against_pingpong(results: &mut [KernelResult]) {
    let mut warnings: Vec<(usize, String)> = Vec::new();
    let lines_local =
        |r: &KernelResult| r.kernel == NAME && r.transport.as_deref() != Some(THIRD_VARIANT);
    for (i, c2c) in results.iter().enumerate().filter(|(_, r)| lines_local(r)) {
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
    let (x, y) = (c2c.stats("one_way_ns")?, pingpong.stats("one_way_ns")?);
    if x.min <= y.max && y.min <= x.max {
        return None;
    }
    let c2c_probe = c2c.stats(PROBE_PARAM).map_or(f64::NAN, |s| s.median);
    let moved = c2c_probe.max(probe) / c2c_probe.min(probe) - 1.0 > PROBE_MOVED;
    let c2c_ratio = c2c.number(OVER_PROBE).unwrap_or(f64::NAN);
    let pp_ratio = y.median / (probe / 2.0);
    let spread = |s: &Summary| (s.max - s.min) / s.median;
    let tolerance = spread(x).max(spread(y)).max(ACCURACY);
    let same_in_probe_units = (c2c_ratio / pp_ratio - 1.0).abs() <= tolerance;
    let figures = format!(
        "c2c's CPUs {a}-{b} at {} ns one way against pingpong's 8-byte mailbox point at {} ns (the two-flag probe's round trip {} against {} ns)",
        num(x.median),
        num(y.median),
        num(c2c_probe),
        num(probe),
    );
    Some(if moved && same_in_probe_units {
        format!(
            "{figures}: measured in different machine states; in units of the probe's one-way time they agree ({} against {})",
            num(c2c_ratio),
            num(pp_ratio),
        )
    } else {
        format!(
            "{figures}: they disagree beyond their trials' ranges ({} against {} in units of the probe's one-way time{}); see the accuracy warnings",
            num(c2c_ratio),
            num(pp_ratio),
            if moved {
                ""
            } else {
                ", and the probe held still"
            },
        )
    })
}

/// scibench's ACCURACY: the least relative spread two figures are allowed.
const ACCURACY: f64 = 0.1;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::stats::summarize;
    use crate::results::Param;

    /// A c2c point of one-way times `ns`, probe round trips `probes` and ratio
    /// to the probe `ratio` (a pingpong point has no ratio).
    fn point(ns: &[f64], probes: &[f64], ratio: Option<f64>) -> Point {
        let p = Point::new()
            .with("size_bytes", 8.0)
            .with_stats("one_way_ns", summarize(ns).unwrap())
            .with_stats(PROBE_PARAM, summarize(probes).unwrap());
        match ratio {
            Some(r) => p.with(OVER_PROBE, r),
            None => p,
        }
    }

    /// Each round's time over half its probe: 50 ns against a 100 ns round trip
    /// and 100 against 200 are one probe one-way each, 75 against 100 is 1.5;
    /// their median is 1; a missing probe per round gives nothing.
    #[test]
    fn the_ratio_to_the_probe_is_the_median_over_rounds() {
        let r = over_probe_by_round(&[50.0, 100.0, 75.0], &[100.0, 200.0, 100.0]);
        assert_eq!(r, Some(1.0));
        assert_eq!(over_probe_by_round(&[50.0, 100.0], &[100.0]), None);
    }

    /// Overlapping one-way ranges agree. Apart in ns, with the probe four times
    /// slower and the ratio held (210 / 195 = 1.077 against 48 / 45 = 1.067), two
    /// states; with the ratio doubled, they disagree; apart with the probe
    /// unmoved (a kernel that lost its CPU for a while), they disagree and the
    /// warning says the probe held still.
    #[test]
    fn c2c_and_pingpong_are_read_in_ns_then_in_probe_units() {
        let pp = point(&[45.0, 48.0, 51.0], &[90.0], None);
        let same = point(&[49.0, 60.0, 70.0], &[100.0], Some(1.1));
        assert_eq!(disagreement(&same, (&pp, 90.0), (0.0, 1.0)), None);
        let moved = point(&[205.0, 210.0, 215.0], &[390.0], Some(1.077));
        let w = disagreement(&moved, (&pp, 90.0), (0.0, 1.0)).unwrap();
        assert!(w.contains("different machine states"), "{w}");
        assert!(w.contains("c2c's CPUs 0-1 at 210.0 ns"), "{w}");
        let off = point(&[205.0, 210.0, 215.0], &[390.0], Some(2.15));
        let w = disagreement(&off, (&pp, 90.0), (0.0, 1.0)).unwrap();
        assert!(
            w.contains("they disagree") && !w.contains("held still"),
            "{w}"
        );
        let noisy = point(&[53.0, 272.0, 690.0], &[100.0], Some(5.4));
        let w = disagreement(&noisy, (&pp, 96.0), (0.0, 1.0)).unwrap();
        assert!(w.contains("the probe held still"), "{w}");
    }

    /// One pair whose rounds' probes were 96 to 104 ns: the probe headline is
    /// their median, 100, with their range as its interval. Two pairs: the
    /// median of their medians (100 and 400: 250), without an interval below
    /// five pairs.
    #[test]
    fn one_pair_s_probe_has_its_rounds_range() {
        let rounds = [96.0, 99.0, 100.0, 101.0, 104.0];
        let one = [point(&[48.0, 50.0, 52.0], &rounds, Some(1.0))];
        let classes = [Some(DistanceClass::ALL[0])];
        let probe = |h: Vec<Param>| h.into_iter().find(|p| p.name == PROBE_PARAM).unwrap();
        let p = probe(class_headline(&one, &classes));
        assert_eq!((p.value, p.ci95), (100.0, Some([96.0, 104.0])));
        let slow: Vec<f64> = rounds.iter().map(|r| r * 4.0).collect();
        let two = [
            one[0].clone(),
            point(&[190.0, 200.0, 210.0], &slow, Some(1.0)),
        ];
        let p = probe(class_headline(&two, &[classes[0]; 2]));
        assert_eq!(p.value, 250.0);
    }

    /// A class of one pair gives its one-way time once, as the median with
    /// the trials' range (48 to 52 around 50 ns; five trials); of two pairs
    /// (50 and 200 ns), the smallest, the median (of two, their mean) and
    /// the largest.
    #[test]
    fn one_pair_s_class_gives_its_time_once() {
        let trials = [48.0, 49.0, 50.0, 51.0, 52.0];
        let one = [point(&trials, &[100.0], Some(1.0))];
        let classes = [Some(DistanceClass::ALL[0])];
        let times = |h: Vec<Param>| -> Vec<(String, f64, Option<[f64; 2]>)> {
            h.into_iter()
                .filter(|p| p.name.starts_with("one_way_ns"))
                .map(|p| (p.name, p.value, p.ci95))
                .collect()
        };
        assert_eq!(
            times(class_headline(&one, &classes)),
            [("one_way_ns_median".to_string(), 50.0, Some([48.0, 52.0]))]
        );
        let slow: Vec<f64> = trials.iter().map(|t| t * 4.0).collect();
        let two = [one[0].clone(), point(&slow, &[400.0], Some(1.0))];
        let names: Vec<String> = times(class_headline(&two, &[classes[0]; 2]))
            .into_iter()
            .map(|(n, v, _)| format!("{n} {v}"))
            .collect();
        assert_eq!(
            names,
            [
                "one_way_ns_min 50",
                "one_way_ns_median 125",
                "one_way_ns_max 200"
            ]
        );
    }
}
