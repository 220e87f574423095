//! `c2c`'s headline, over threads and over MPI processes alike: per
//! distance class, the spread over its CPU pairs of each pair's one-way time
//! and of its ratio to the pair's two-flag probe.

use crate::kernels::harness::probe::PROBE_PARAM;
use crate::kernels::headline;
use crate::model::interval;
use crate::model::stats::{Summary, summarize};
use crate::platform::DistanceClass;
use crate::results::{Param, Point};

/// The point quantity of `c2c`'s one-way time over its round's probe.
pub(super) const OVER_PROBE: &str = "one_way_over_probe";

/// Per distance class: the minimum, median and maximum over its pairs of each
/// pair's median one-way time (`classes[i]` the class of `points[i]`'s pair),
/// and the median over its pairs of each pair's ratio to its probe
/// (`one_way_over_probe_median`). One pair: its median with the trials' range,
/// as `one_way_ns_median` alone (the ratio without an interval); more: percentile bootstrap over the pairs.
/// Then the probe: one pair's over its rounds (their range its interval), or
/// the median over the pairs of each pair's (their range its interval from
/// five pairs on).
pub(super) fn class_headline(points: &[Point], classes: &[Option<DistanceClass>]) -> Vec<Param> {
    let mut out = Vec::new();
    for class in DistanceClass::ALL {
        let of = class.to_string();
        let in_class: Vec<&Point> = points
            .iter()
            .zip(classes)
            .filter(|(_, c)| **c == Some(class))
            .map(|(p, _)| p)
            .collect();
        let stats: Vec<&Summary> = in_class
            .iter()
            .filter_map(|p| p.stats("one_way_ns"))
            .collect();
        out.extend(spread_over_pairs(&stats, "one_way_ns", &of));
        let ratios: Vec<f64> = in_class
            .iter()
            .filter_map(|p| p.number(OVER_PROBE))
            .collect();
        if let Some(median) = interval::median_in_place(&mut ratios.clone()) {
            let ci = interval::median_bootstrap(&ratios);
            out.push(
                Param::new(&format!("{OVER_PROBE}_median"), Some(&of), median)
                    .with_ci(ci, "percentile bootstrap over the class's CPU pairs"),
            );
        }
    }
    // One pair: its probes over the rounds, so that the probe has the range
    // of its rounds as its interval, as every other kernel's; more: the
    // pairs' medians.
    let per_pair: Vec<&Summary> = points.iter().filter_map(|p| p.stats(PROBE_PARAM)).collect();
    let probes = match per_pair.as_slice() {
        [one] => Some((*one).clone()),
        many => summarize(&many.iter().map(|s| s.median).collect::<Vec<_>>()).ok(),
    };
    if let Some(s) = probes {
        out.push(headline::median_with_range(PROBE_PARAM, None, &s));
    }
    out
}

/// `{prefix}_min`, `_median` and `_max` over the pairs of one class, of each
/// pair's median; for a class of one pair, `{prefix}_median` alone.
fn spread_over_pairs(stats: &[&Summary], prefix: &str, of: &str) -> Vec<Param> {
    let names = ["min", "median", "max"].map(|s| format!("{prefix}_{s}"));
    match stats {
        [] => Vec::new(),
        // One pair: its smallest, median and largest are one measurement.
        [one] => vec![headline::median_with_range(&names[1], Some(of), one)],
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
