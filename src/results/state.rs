//! The machine's state in a comparison: how `compare` tells a parameter that
//! changed from one that moved with the machine.
//!
//! A kernel that probes records the CPU pair's two-flag round trip as the
//! headline [`PROBE_PARAM`] (its median, and the probes' range as its interval).
//! On a shared or virtualised machine that round trip takes different states for
//! milliseconds to minutes, and every latency built on line transfers moves with
//! it; a run's own intervals cannot cover a change of state between two runs. So
//! when two values' intervals do not overlap, [`judge`] looks at the probes:
//!
//! 1. the intervals overlap: not marked ([`Why::IntervalsOverlap`]);
//! 2. they do not, and both files carry the kernel's probe, the probes' intervals
//!    do not overlap either (the machine moved), and the parameter is latency-like
//!    (it has a `*_over_probe` ratio in its kernel's headline, or it is a time in
//!    ns or a half-performance length, whose ratio to the probe's one-way time is
//!    formed here with [`ratio_to_probe`]): the ratios' intervals are compared.
//!    Overlapping, the value is marked `~` ([`Why::MachineMoved`]): the parameter
//!    moved with the machine, by no more than the probe did. Apart, `*`;
//! 3. otherwise `*` ([`Why::IntervalsDisjoint`]): a change that the probe does
//!    not explain, such as a busy loop beside the measured CPU, which inflates a
//!    blocking hand-off while the two-flag round trip holds still.
//!
//! A value or an interval missing on either side gives no mark
//! ([`Why::NoInterval`]). The rule never turns an overlap into a mark, and it
//! excuses a difference only when the machine's own probe moved and the ratio to
//! it held: a parameter that moved while the probe did not, or moved more than
//! the probe, is still `*`.

use super::{KernelResult, Param, num, unit_of};
use serde::{Deserialize, Serialize};

/// The headline parameter that carries a kernel's probes of the machine's state:
/// their median, and their range as its interval.
pub const PROBE_PARAM: &str = "probe_round_trip_ns";

/// Why a value is, or is not, marked against the first file's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Why {
    /// The two 95 % intervals overlap: no mark.
    IntervalsOverlap,
    /// The intervals do not overlap, and the probes do not explain it: `*`.
    IntervalsDisjoint,
    /// The intervals do not overlap, but the probes' do not either, and the
    /// ratios to the probe overlap: the machine moved and the parameter with it,
    /// `~`.
    MachineMoved,
    /// A value or an interval is missing on one side: no mark.
    NoInterval,
}

impl Why {
    /// The mark printed beside the change: `*`, `~` or nothing.
    pub fn mark(self) -> &'static str {
        match self {
            Why::IntervalsDisjoint => "*",
            Why::MachineMoved => "~",
            Why::IntervalsOverlap | Why::NoInterval => "",
        }
    }

    /// The mark in CSV: `*`, `~`, `=` (intervals overlap) or empty.
    pub fn csv_mark(self) -> &'static str {
        match self {
            Why::IntervalsOverlap => "=",
            other => other.mark(),
        }
    }

    /// The words of the JSON and CSV.
    pub fn words(self) -> &'static str {
        match self {
            Why::IntervalsOverlap => "intervals overlap",
            Why::IntervalsDisjoint => "intervals disjoint",
            Why::MachineMoved => "machine moved, ratio to probe holds",
            Why::NoInterval => "no interval",
        }
    }
}

/// A value with its 95 % interval, and the probe of its kernel where it has one.
#[derive(Debug, Clone, PartialEq)]
pub struct Probed {
    /// The value.
    pub value: f64,
    /// Its 95 % interval.
    pub ci95: Option<[f64; 2]>,
    /// The kernel's probe: round trip and its interval, ns.
    pub probe: Option<(f64, [f64; 2])>,
    /// The value over the probe's one-way time, with its interval.
    pub ratio: Option<(f64, [f64; 2])>,
}

impl Probed {
    /// A value without a probe.
    pub fn plain(value: f64, ci95: Option<[f64; 2]>) -> Probed {
        Probed {
            value,
            ci95,
            probe: None,
            ratio: None,
        }
    }

    /// `name`'s value in `k` with the kernel's probe for `of` and the ratio to
    /// it: the kernel's own `*_over_probe` where it recorded one with an
    /// interval, else formed by [`ratio_to_probe`] when `name` is latency-like
    /// ([`latency_like`]).
    pub fn in_kernel(
        k: &KernelResult,
        name: &str,
        of: Option<&str>,
        value: f64,
        ci95: Option<[f64; 2]>,
    ) -> Probed {
        let probe = recorded_probe(k, of).and_then(|p| Some((p.value, p.ci95?)));
        let stem = name.strip_suffix("_ns").unwrap_or(name);
        let recorded = k
            .headline
            .iter()
            .find(|p| {
                p.name == format!("{stem}_over_probe") && (of.is_none() || p.of.as_deref() == of)
            })
            .and_then(|p| Some((p.value, p.ci95?)));
        let formed = || {
            let (p, pci) = probe?;
            latency_like(name).then_some(())?;
            let (r, rci) = ratio_to_probe(value, ci95, p, Some(pci))?;
            Some((r, rci?))
        };
        Probed {
            value,
            ci95,
            probe,
            ratio: recorded.or_else(formed),
        }
    }
}

/// Whether a parameter may move with the machine's probe: a time in ns (a
/// start-up, an overhead, a one-way time; not a time per byte), or a
/// half-performance length (a start-up in units of work). Rates and ratios
/// are not: they are judged on their intervals alone.
pub fn latency_like(name: &str) -> bool {
    name != PROBE_PARAM
        && !name.contains("probe")
        && (unit_of(name) == "ns" || name.contains("_half_"))
}

/// `value` over the probe's one-way time (half of `round_trip_ns`), and the
/// interval from the value's bounds over the probe's opposite bounds: low over
/// the probes' highest one-way time, high over their lowest (conservative). The
/// interval is `None` without both intervals or with a probe bound not above
/// zero; the whole is `None` without a positive probe.
pub fn ratio_to_probe(
    value: f64,
    ci95: Option<[f64; 2]>,
    round_trip_ns: f64,
    probe_ci: Option<[f64; 2]>,
) -> Option<(f64, Option<[f64; 2]>)> {
    let one_way = round_trip_ns / 2.0;
    if !(one_way > 0.0 && value.is_finite()) {
        return None;
    }
    let ci = match (ci95, probe_ci) {
        (Some([a, b]), Some([c, d])) if c > 0.0 => Some([2.0 * a / d, 2.0 * b / c]),
        _ => None,
    };
    Some((value / one_way, ci))
}

/// The probe `k` recorded for the parameters `of` qualifies: the [`PROBE_PARAM`]
/// with the same qualifier, else the result's only one.
pub fn recorded_probe<'a>(k: &'a KernelResult, of: Option<&str>) -> Option<&'a Param> {
    let probes: Vec<&Param> = k
        .headline
        .iter()
        .filter(|p| p.name == PROBE_PARAM)
        .collect();
    probes
        .iter()
        .find(|p| p.of.as_deref() == of)
        .or(match probes.as_slice() {
            [one] => Some(one),
            _ => None,
        })
        .copied()
}

fn overlap([a, b]: [f64; 2], [c, d]: [f64; 2]) -> bool {
    !(b < c || d < a)
}

/// Judges `other` against `base` (see the module doc): why it is marked or not,
/// and, where the probes moved, a sentence with the figures.
pub fn judge(base: &Probed, other: &Probed) -> (Why, Option<String>) {
    let (Some(bci), Some(oci)) = (base.ci95, other.ci95) else {
        return (Why::NoInterval, None);
    };
    if overlap(bci, oci) {
        return (Why::IntervalsOverlap, None);
    }
    let (Some((bp, bpci)), Some((op, opci))) = (base.probe, other.probe) else {
        return (Why::IntervalsDisjoint, None);
    };
    if overlap(bpci, opci) {
        return (
            Why::IntervalsDisjoint,
            Some(format!(
                "the probes do not show that the machine moved ({} then {} ns round trip, their intervals overlap)",
                num(bp),
                num(op)
            )),
        );
    }
    let moved = format!("the probe went from {} to {} ns", num(bp), num(op));
    let (Some((br, brci)), Some((or, orci))) = (base.ratio, other.ratio) else {
        return (
            Why::IntervalsDisjoint,
            Some(format!("{moved}; the parameter has no ratio to it")),
        );
    };
    let ratios = format!(
        "ratio to its one-way time {} [{}, {}] then {} [{}, {}]",
        num(br),
        num(brci[0]),
        num(brci[1]),
        num(or),
        num(orci[0]),
        num(orci[1])
    );
    if overlap(brci, orci) {
        (
            Why::MachineMoved,
            Some(format!(
                "the machine moved: {moved}, and the parameter moved with it ({ratios})"
            )),
        )
    } else {
        (
            Why::IntervalsDisjoint,
            Some(format!(
                "{moved}, but the parameter moved otherwise ({ratios})"
            )),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probed(value: f64, ci: [f64; 2], probe: Option<(f64, [f64; 2])>) -> Probed {
        let ratio = probe.and_then(|(p, pci)| {
            let (r, rci) = ratio_to_probe(value, Some(ci), p, Some(pci))?;
            Some((r, rci?))
        });
        Probed {
            value,
            ci95: Some(ci),
            probe,
            ratio,
        }
    }

    /// 120 ns [110, 130] over a 120 ns round trip [100, 140]: 2, from 110 / 70
    /// to 130 / 50.
    #[test]
    fn the_ratio_is_over_the_one_way_time_with_opposite_bounds() {
        let (r, ci) =
            ratio_to_probe(120.0, Some([110.0, 130.0]), 120.0, Some([100.0, 140.0])).unwrap();
        let [lo, hi] = ci.unwrap();
        assert_eq!(r, 2.0);
        assert!((lo - 110.0 / 70.0).abs() < 1e-12 && (hi - 2.6).abs() < 1e-12);
        assert!(ratio_to_probe(1.0, None, 0.0, None).is_none());
        assert!(latency_like("t0_ns") && latency_like("s_half_flop"));
        assert!(!latency_like("t_per_byte_ns") && !latency_like(PROBE_PARAM));
        assert!(!latency_like("r_inf_flop_per_s") && !latency_like("t0_over_probe"));
    }

    /// A t_startup of 120 [115, 125] ns beside probes of 120 [118, 124] ns, then
    /// 440 [420, 460] ns beside 440 [430, 450] ns: the intervals are apart, the
    /// probes too, and the ratios (1.85-2.12 and 1.87-2.14) overlap: `~`, with
    /// both probes in the note. The same 440 beside an unmoved probe is `*`.
    #[test]
    fn a_latency_that_moved_with_the_probe_is_the_machine() {
        let a = probed(120.0, [115.0, 125.0], Some((120.0, [118.0, 124.0])));
        let b = probed(440.0, [420.0, 460.0], Some((440.0, [430.0, 450.0])));
        let (why, note) = judge(&a, &b);
        assert_eq!(why, Why::MachineMoved);
        let note = note.unwrap();
        assert!(note.contains("from 120.0 to 440.0 ns"), "{note}");
        let still = probed(440.0, [420.0, 460.0], Some((121.0, [119.0, 125.0])));
        assert_eq!(judge(&a, &still).0, Why::IntervalsDisjoint);
        assert_eq!(Why::MachineMoved.mark(), "~");
    }
}
