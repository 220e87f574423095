//! The repeat spread: how far each headline parameter moved over the
//! repetitions of `run --repeat K` (DESIGN's "statistics that hold still"),
//! and whether the machine explains the move.
//!
//! Each parameter's values over the repetitions are set beside a figure of
//! the machine's state in each repetition: the pair probe its result recorded
//! (the cache-line round trip, scibench's ping-pong between the two CPUs), a
//! rate or copy probe, or a product or ratio of them where the parameter is
//! one (`s_1/2 = r_inf t0`, `n_1/2 = t_startup / t_per_byte`). The verdict
//! ([`Verdict`]) follows the rule: a coefficient of variation within
//! [`TARGET_CV`] is stable; one within the probe's CV plus
//! [`MOVED_ALLOWANCE`] moved with the machine; beyond both, each repetition
//! is judged against the median one as `compare` judges two runs
//! ([`super::judge`]), which tells a sync method that changed mode, a
//! parameter that moved with its probe by no more than the probe explains,
//! and one no wider than its own intervals from one that is unstable.
//!
//! Invariants: a pure function of the kernel results given (no clock, no
//! machine); the parameters keep the order in which they first appear; the
//! running of the repetitions themselves is `suite`'s.

#![forbid(unsafe_code)]

use super::{
    DEFAULT_FLOOR, Mode, Probed, Why, judge, moves_with_copy, moves_with_mode, moves_with_rate,
};
use crate::results::KernelResult;

/// One headline parameter over the repetitions of `run --repeat K`.
#[derive(Debug, Clone, PartialEq)]
pub struct RepeatSpread {
    /// Kernel, transport (or method) and parameter, as in [`crate::results::Param`].
    pub kernel: String,
    /// The transport or method.
    pub transport: Option<String>,
    /// The parameter's name.
    pub name: String,
    /// Its qualifier.
    pub of: Option<String>,
    /// The values, in repetition order.
    pub values: Vec<f64>,
    /// The machine's state beside each value: the probe its result recorded
    /// ([`crate::kernels::harness::probe`]), else the median of the probes of its
    /// repetition; NaN where the repetition has none. For a sync method's
    /// `r_inf`, the rate probe its result recorded
    /// ([`crate::results::RATE_PROBE_PARAM`]); for a time per byte, the copy
    /// probe ([`crate::results::COPY_PROBE_PARAM`]) where there is one; for
    /// a ping-pong's `n_half_bytes`, the round trip over the copy probe
    /// where there is one (its start-up moves with the first, its time per
    /// byte with the second: a repetition of a `--quick --repeat 5` whose
    /// round trip read x0.59 the others' had its copy probe at x0.26 and its
    /// `n_1/2` at x1.77); for a sync method's `s_half_flop = r_inf t0`, the
    /// round trip times the rate probe, flop, as `compare` judges it.
    pub probes: Vec<f64>,
    /// For a sync method's `t0_ns`, the system-call probe beside each value
    /// ([`crate::results::SYSCALL_PROBE_PARAM`]), which `compare` sets a
    /// `t0` beside where the round trip does not explain it; else empty.
    pub syscall: Vec<f64>,
    /// Their median.
    pub median: f64,
    /// Smallest and largest.
    pub range: [f64; 2],
    /// Coefficient of variation: sample standard deviation over the mean (0 for
    /// one value; NaN when the mean is 0).
    pub cv: f64,
    /// The probes' coefficient of variation (NaN without probes).
    pub probe_cv: f64,
    /// Where the parameter is a sync method's `t0_ns` or `s_half_flop`: each
    /// repetition's mode, how often its short grains' hand-overs slept
    /// and the `t0` they gave ([`Mode`]); else empty.
    pub modes: Vec<Mode>,
    /// Each repetition set beside the reference one (the repetition of the
    /// median value, the lower of two for an even count) as `compare` sets
    /// two runs ([`judge`], with the default floor): why it
    /// is marked or not. The reference's own is
    /// [`Why::IntervalsOverlap`].
    pub marks: Vec<Why>,
    /// The parameter's CV judged against the target and the probe's CV.
    pub verdict: Verdict,
}

/// What a parameter's spread over repetitions says, by the rule: at most
/// [`TARGET_CV`], or, where the machine itself moved, at most the probe's CV
/// plus [`MOVED_ALLOWANCE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// CV within [`TARGET_CV`].
    Stable,
    /// CV above the target but within the probe's CV plus [`MOVED_ALLOWANCE`]:
    /// the machine moved, and the parameter with it.
    MachineMoved,
    /// CV above both, and the method's hand-overs slept more in some
    /// repetitions than in others (by more than
    /// [`super::MODE_SHIFT`] a segment): the method changed mode.
    ModeChanged,
    /// CV above both, but `compare` marks no repetition against the
    /// median one (`*`), and the machine moved under at least one (`~`):
    /// every repetition lies within the run-to-run floor of the median one
    /// or moved with its probe by no more than the probe explains
    /// ([`RepeatSpread::marks`]). A single repetition in another state of
    /// the machine can take a CV far beyond the probe's when the parameter
    /// moves by more than the probe (a spin hand-over x4.4 with the round
    /// trip x3.2), which the CV rule cannot tell from a parameter that moved
    /// on its own.
    MovedWithProbe,
    /// CV above both, but `compare` marks nothing against the median
    /// repetition, and the machine did not move: every repetition's 95 %
    /// interval overlaps the median one's (or does within the run-to-run
    /// floor). The spread is no wider than the run's own intervals say; the
    /// parameter is known only as well as its interval, which is the figure
    /// to quote. So are a value near zero and a weakly determined one: the
    /// decomposition's `A` slope over five quick repetitions read 0.045,
    /// 0.036, 0.008, 0.009 and -0.011 ns/B, CV 130 %, with intervals 0.02
    /// to 0.27 ns/B wide on either side.
    WithinIntervals,
    /// CV above both: the parameter moved by more than the machine did.
    Unstable,
}

impl Verdict {
    /// As the summary prints it.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Stable => "stable",
            Verdict::MachineMoved => "machine moved",
            Verdict::ModeChanged => "mode changed",
            Verdict::MovedWithProbe => "moved with the probe",
            Verdict::WithinIntervals => "within its intervals",
            Verdict::Unstable => "unstable",
        }
    }

    /// The verdict on a CV `cv` beside a probe's CV `probe_cv` (NaN: no probe).
    pub fn of(cv: f64, probe_cv: f64) -> Verdict {
        if cv <= TARGET_CV {
            Verdict::Stable
        } else if cv <= probe_cv + MOVED_ALLOWANCE {
            Verdict::MachineMoved
        } else {
            Verdict::Unstable
        }
    }
}

/// A ping-pong's half-performance length, `t_startup / t_per_byte`.
const N_HALF_BYTES: &str = "n_half_bytes";

/// A sync method's half-performance grain, flop.
const S_HALF_FLOP: &str = "s_half_flop";

/// The CV over repetitions a headline parameter should stay within.
pub const TARGET_CV: f64 = 0.10;

/// How far above the probe's CV a parameter's CV may be when the machine moved.
pub const MOVED_ALLOWANCE: f64 = 0.05;

/// Every headline parameter's spread over the repetitions in `results` (those
/// with `repetition` set), in the order the parameters first appear, each value
/// with the probe of its repetition beside it.
pub fn repeat_spread(results: &[KernelResult]) -> Vec<RepeatSpread> {
    use crate::kernels::harness::probe::{PROBE_PARAM, probe_of};
    // The machine's state in each repetition: the median of every probe in it.
    let mut in_rep: std::collections::BTreeMap<u32, Vec<f64>> = Default::default();
    for r in results {
        if let Some(rep) = r.repetition {
            let probes = r.headline.iter().filter(|p| p.name == PROBE_PARAM);
            in_rep
                .entry(rep)
                .or_default()
                .extend(probes.map(|p| p.value));
        }
    }
    let rep_probe = |rep: u32| {
        in_rep
            .get(&rep)
            .and_then(|v| crate::model::stats::summarize(v).ok())
            .map_or(f64::NAN, |s| s.median)
    };
    let mut out: Vec<RepeatSpread> = Vec::new();
    // Each value as `compare` would judge it, beside `out`'s rows.
    let mut probed: Vec<Vec<Probed>> = Vec::new();
    for r in results {
        let Some(rep) = r.repetition else { continue };
        for p in &r.headline {
            // A rate moves with the processors' own rate where the kernel
            // probed it, a latency with the CPU pair's round trip.
            let rate = moves_with_rate(&p.name)
                .then(|| crate::results::recorded_rate_probe(r, p.of.as_deref()))
                .flatten();
            // A time per byte with the copy probe, where the kernel took one.
            let copy = moves_with_copy(&p.name)
                .then(|| crate::results::recorded_copy_probe(r, p.of.as_deref()))
                .flatten();
            let probe = match rate.or(copy) {
                Some(own) => own.value,
                None => probe_of(r, p.of.as_deref()).unwrap_or_else(|| rep_probe(rep)),
            };
            // A ping-pong's n_1/2 = t_startup / t_per_byte moves with the
            // round trip over the copy probe, where the kernel took both.
            let copy_for_n_half = (p.name == N_HALF_BYTES)
                .then(|| crate::results::recorded_copy_probe(r, p.of.as_deref()))
                .flatten()
                .filter(|c| c.value > 0.0);
            let probe = copy_for_n_half.map_or(probe, |c| probe / c.value);
            // A sync method's s_1/2 = r_inf t0 moves with the round trip
            // times the rate probe, as `compare` judges it: the flop the
            // processors do in one round trip.
            let rate_for_s_half = (p.name == S_HALF_FLOP)
                .then(|| crate::results::recorded_rate_probe(r, p.of.as_deref()))
                .flatten();
            let probe = rate_for_s_half.map_or(probe, |rate| probe * rate.value * 1e-9);
            // A probe is the machine's state: its own figure.
            let probe = match crate::results::is_probe(&p.name) {
                true => p.value,
                false => probe,
            };
            let same = |s: &RepeatSpread| {
                s.kernel == r.kernel
                    && s.transport == r.transport
                    && s.name == p.name
                    && s.of == p.of
            };
            let mode = moves_with_mode(&p.name)
                .then(|| Mode::of(&r.fits))
                .flatten();
            let judged = Probed::in_kernel(r, &p.name, p.of.as_deref(), p.value, p.ci95);
            let syscall = judged.also.map(|(v, _)| v);
            match out.iter().position(same) {
                Some(i) => {
                    let s = &mut out[i];
                    s.values.push(p.value);
                    s.probes.push(probe);
                    s.syscall.extend(syscall);
                    s.modes.extend(mode);
                    probed[i].push(judged);
                }
                None => {
                    out.push(RepeatSpread {
                        kernel: r.kernel.clone(),
                        transport: r.transport.clone(),
                        name: p.name.clone(),
                        of: p.of.clone(),
                        values: vec![p.value],
                        probes: vec![probe],
                        syscall: syscall.into_iter().collect(),
                        median: 0.0,
                        range: [0.0; 2],
                        cv: 0.0,
                        probe_cv: f64::NAN,
                        modes: mode.into_iter().collect(),
                        marks: Vec::new(),
                        verdict: Verdict::Stable,
                    });
                    probed.push(vec![judged]);
                }
            }
        }
    }
    for (s, judged) in out.iter_mut().zip(&probed) {
        match crate::model::stats::summarize(&s.values) {
            Ok(m) => {
                s.median = m.median;
                s.range = [m.min, m.max];
                s.cv = cv(&s.values);
            }
            Err(_) => {
                s.median = f64::NAN;
                s.range = [f64::NAN; 2];
                s.cv = f64::NAN;
            }
        }
        let probes: Vec<f64> = s.probes.iter().copied().filter(|p| p.is_finite()).collect();
        s.probe_cv = if probes.len() == s.values.len() {
            cv(&probes)
        } else {
            f64::NAN
        };
        // A probe is the machine's state, which the marks judge against.
        if !crate::results::is_probe(&s.name) {
            s.marks = marks_against_median(&s.values, judged);
        }
        s.verdict = Verdict::of(s.cv, s.probe_cv);
        if s.verdict == Verdict::Unstable && changed_mode(&s.modes) {
            s.verdict = Verdict::ModeChanged;
        }
        if s.verdict == Verdict::Unstable && moved_with_probe(&s.marks) {
            s.verdict = Verdict::MovedWithProbe;
        }
        if s.verdict == Verdict::Unstable && within_intervals(&s.marks, s.values.len()) {
            s.verdict = Verdict::WithinIntervals;
        }
    }
    out
}

/// Each of `judged` (the repetitions' values with their intervals and
/// probes) set beside the repetition of the median of `values` (the lower of
/// the two middle ones for an even count) as `compare` judges two runs,
/// with its default floor.
fn marks_against_median(values: &[f64], judged: &[Probed]) -> Vec<Why> {
    if values.is_empty() || judged.len() != values.len() || values.iter().any(|v| !v.is_finite()) {
        return Vec::new();
    }
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let reference = order[(order.len() - 1) / 2];
    judged
        .iter()
        .map(|j| judge(&judged[reference], j, DEFAULT_FLOOR).0)
        .collect()
}

/// Whether `marks` hold no `*` and no missing interval, and at least one
/// repetition moved with the machine ([`Verdict::MovedWithProbe`]).
fn moved_with_probe(marks: &[Why]) -> bool {
    marks.contains(&Why::MachineMoved)
        && marks
            .iter()
            .all(|&w| !matches!(w, Why::IntervalsDisjoint | Why::NoInterval))
}

/// Whether `marks`, one for each of `count` repetitions, hold no mark at
/// all: every interval overlaps the median repetition's, or does within the
/// floor ([`Verdict::WithinIntervals`]).
fn within_intervals(marks: &[Why], count: usize) -> bool {
    count > 1
        && marks.len() == count
        && marks
            .iter()
            .all(|&w| matches!(w, Why::IntervalsOverlap | Why::WithinFloor))
}

/// Whether repetitions in `modes` took different modes, judged on their
/// ranges as `compare` judges two runs ([`Mode::changed`]).
fn changed_mode(modes: &[Mode]) -> bool {
    let range = |f: fn(&Mode) -> f64| {
        let v = modes.iter().map(f);
        v.clone().fold(f64::NEG_INFINITY, f64::max) - v.fold(f64::INFINITY, f64::min)
    };
    !modes.is_empty() && Mode::changed(range(|m| m.blocks), range(|m| m.t0_ns))
}

/// Sample standard deviation over the absolute mean: 0 for one value, NaN for
/// none or a mean of 0.
pub fn cv(values: &[f64]) -> f64 {
    match crate::model::stats::summarize(values) {
        Ok(m) if m.count < 2 => 0.0,
        Ok(m) => m.std_dev / m.mean.abs(),
        Err(_) => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::Placement;
    use crate::results::Param;

    fn result(rep: u32, value: f64) -> KernelResult {
        let mut r = KernelResult::new("pingpong", "scibench", Placement::Pinned, vec![0, 1])
            .with_transport(Some("mailbox"))
            .with_headline(vec![Param::new("t_startup_ns", None, value)]);
        r.repetition = Some(rep);
        r
    }

    /// Values 90, 100, 110: median 100, range 90..110, standard deviation 10,
    /// CV 10 / 100 = 0.1; no probes, so no probe CV, and 10 % is within the
    /// target.
    #[test]
    fn spread_over_three_repetitions() {
        let rs = [result(1, 90.0), result(2, 110.0), result(3, 100.0)];
        let s = repeat_spread(&rs);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].values, vec![90.0, 110.0, 100.0]);
        assert_eq!((s[0].median, s[0].range), (100.0, [90.0, 110.0]));
        assert!((s[0].cv - 0.1).abs() < 1e-12);
        assert!(s[0].probe_cv.is_nan() && s[0].probes.iter().all(|p| p.is_nan()));
        assert_eq!(s[0].verdict, Verdict::Stable);
    }

    /// A ping-pong's n_1/2 of 450, 800, 450 B beside round trips of 120, 70,
    /// 120 ns and copy probes of 0.18, 0.047, 0.18 ns/B: its state figure is
    /// their ratio, 666.7, 1489.4, 666.7 B, whose CV (0.505) covers n_1/2's
    /// (0.357): the machine moved, where against the round trip alone (CV
    /// 0.279) it was unstable.
    #[test]
    fn a_ping_pong_n_half_moves_with_the_round_trip_over_the_copy_probe() {
        use crate::kernels::harness::probe::PROBE_PARAM;
        let pp = |rep, n_half, rt, copy| {
            let mut r = KernelResult::new("pingpong", "scibench", Placement::Pinned, vec![0, 1])
                .with_transport(Some("mailbox"))
                .with_headline(vec![
                    Param::new(N_HALF_BYTES, None, n_half),
                    Param::new(PROBE_PARAM, None, rt),
                    Param::new(crate::results::COPY_PROBE_PARAM, None, copy),
                ]);
            r.repetition = Some(rep);
            r
        };
        let rs = [
            pp(1, 450.0, 120.0, 0.18),
            pp(2, 800.0, 70.0, 0.047),
            pp(3, 450.0, 120.0, 0.18),
        ];
        let s = repeat_spread(&rs);
        let n = s.iter().find(|s| s.name == N_HALF_BYTES).unwrap();
        assert!((n.probes[1] - 70.0 / 0.047).abs() < 1e-9, "{:?}", n.probes);
        assert!((n.probes[0] - 120.0 / 0.18).abs() < 1e-9);
        assert!((n.cv - 0.3566).abs() < 1e-3, "{}", n.cv);
        assert!((n.probe_cv - 0.5048).abs() < 1e-3, "{}", n.probe_cv);
        assert_eq!(n.verdict, Verdict::MachineMoved);
        let rt = s.iter().find(|s| s.name == PROBE_PARAM).unwrap();
        assert!((rt.cv - 0.2794).abs() < 1e-3, "{}", rt.cv);
    }

    /// t_startup 120, 440, 120 ns beside probes 60, 220, 60 ns: the values are
    /// twice the probes, so both CVs are 184.75 / 226.67 = 0.815 (deviations
    /// -106.67, 213.33, -106.67; sample variance 34 133): the machine moved. A parameter of a kernel without its
    /// own probe takes the probe of its repetition; one that moved while the
    /// probe held still is unstable.
    #[test]
    fn a_parameter_that_moved_with_the_probe_is_the_machine() {
        use crate::kernels::harness::probe::PROBE_PARAM;
        let with_probe = |rep, value, probe| {
            let mut r = result(rep, value);
            r.headline.push(Param::new(PROBE_PARAM, None, probe));
            r
        };
        let other = |rep, value| {
            let mut r = result(rep, value);
            r.kernel = "hockney-vector".into();
            r
        };
        let rs = [
            with_probe(1, 120.0, 60.0),
            other(1, 5.0),
            with_probe(2, 440.0, 220.0),
            other(2, 9.0),
            with_probe(3, 120.0, 60.0),
            other(3, 5.0),
        ];
        let s = repeat_spread(&rs);
        let t = &s[0];
        assert_eq!(t.probes, vec![60.0, 220.0, 60.0]);
        assert!((t.cv - t.probe_cv).abs() < 1e-12, "{} {}", t.cv, t.probe_cv);
        assert!((t.probe_cv - 0.8151).abs() < 1e-4, "{}", t.probe_cv);
        assert_eq!(t.verdict, Verdict::MachineMoved);
        let v = s.iter().find(|s| s.kernel == "hockney-vector").unwrap();
        assert_eq!(v.probes, vec![60.0, 220.0, 60.0]);
        let steady = [
            with_probe(1, 100.0, 60.0),
            with_probe(2, 200.0, 61.0),
            with_probe(3, 100.0, 60.0),
        ];
        assert_eq!(repeat_spread(&steady)[0].verdict, Verdict::Unstable);
        assert_eq!(Verdict::of(0.3, 0.26).label(), "machine moved");
        // A lock's t0 at 105 ns, 38 us, 110 ns with the probe unmoved: unstable,
        // unless its hand-overs slept 0.02, 1.9, 0.03 times a segment.
        let lock = |rep, value, blocks: Option<f64>| {
            let mut r = KernelResult::new("hockney-sync", "hockney", Placement::Pinned, vec![0, 1])
                .with_transport(Some("locks"))
                .with_headline(vec![
                    Param::new("t0_ns", Some("locks"), value),
                    Param::new(PROBE_PARAM, Some("locks"), 90.0),
                ]);
            if let Some(b) = blocks {
                r.fits.push(crate::results::FitResult {
                    model: "t = t0 + s/r_inf (eq. 10b)".into(),
                    x: "grain_flop".into(),
                    y: "time_ns.median".into(),
                    params: [
                        (crate::results::BLOCKS_PARAM.to_string(), b),
                        ("t0_ns".to_string(), value),
                    ]
                    .into(),
                    std_errors: Default::default(),
                    r2: 1.0,
                    n_points: 3,
                    flagged: false,
                });
            }
            r.repetition = Some(rep);
            r
        };
        let plain = [
            lock(1, 105.0, None),
            lock(2, 38e3, None),
            lock(3, 110.0, None),
        ];
        assert_eq!(repeat_spread(&plain)[0].verdict, Verdict::Unstable);
        let slept = [
            lock(1, 105.0, Some(0.02)),
            lock(2, 38e3, Some(1.9)),
            lock(3, 110.0, Some(0.03)),
        ];
        let t0 = &repeat_spread(&slept)[0];
        let slept: Vec<f64> = t0.modes.iter().map(|m| m.blocks).collect();
        assert_eq!(slept, vec![0.02, 1.9, 0.03]);
        assert_eq!(t0.verdict, Verdict::ModeChanged);
        assert_eq!(t0.verdict.label(), "mode changed");
        assert_eq!(Verdict::of(0.3, 0.24).label(), "unstable");
    }
    /// A spin hand-over's t0 of 80, 82, 360, 76, 81 ns (each +-2 %) beside
    /// round trips of 129, 130, 417, 121, 129 ns (each +-1.5 %): CV 0.923
    /// (mean 135.8, sample standard deviation 125.4) against the probe's
    /// 0.700 (mean 185.2, 129.6), beyond the probe's CV + 5 points. Set
    /// beside the median repetition (81 ns), 80 and 82 ns overlap it, 76 ns
    /// (74.5..77.5 against 79.4..82.6) only within the 5 % floor, and 360 ns moved x[4.02, 4.91] (from the floor-widened bounds
    /// 76.95..85.05 and 342..378) with the probe x[3.13, 3.34], within the
    /// x[1, 6.68] that allows: moved with the probe. With the third probe at
    /// 140 ns (x[1.05, 1.12], allowing x1.25) it is marked `*`, and
    /// without intervals nothing can be judged: unstable.
    #[test]
    fn one_repetition_in_another_state_moved_with_the_probe() {
        use crate::kernels::harness::probe::PROBE_PARAM;
        let spin = |rep, t0: f64, rt: f64, ci: bool| {
            let ci_of = |v: f64, f: f64| ci.then_some([v * (1.0 - f), v * (1.0 + f)]);
            let mut r = KernelResult::new("hockney-sync", "hockney", Placement::Pinned, vec![0, 1])
                .with_transport(Some("spin-hint"))
                .with_headline(vec![
                    Param::new("t0_ns", Some("spin-hint"), t0).with_ci(ci_of(t0, 0.02), "test"),
                    Param::new(PROBE_PARAM, Some("spin-hint"), rt)
                        .with_ci(ci_of(rt, 0.015), "test"),
                ]);
            r.repetition = Some(rep);
            r
        };
        let t0 = [80.0, 82.0, 360.0, 76.0, 81.0];
        let set = |third_probe: f64, ci: bool| {
            let rt = [129.0, 130.0, third_probe, 121.0, 129.0];
            let rs: Vec<KernelResult> = (0..5)
                .map(|i| spin(i as u32 + 1, t0[i], rt[i], ci))
                .collect();
            let rows = repeat_spread(&rs);
            // The probe's own row is not judged against itself.
            assert!(rows[1].name == PROBE_PARAM && rows[1].marks.is_empty());
            rows[0].clone()
        };
        let moved = set(417.0, true);
        assert!((moved.cv - 0.9231).abs() < 1e-3, "{}", moved.cv);
        assert!((moved.probe_cv - 0.6999).abs() < 1e-3, "{}", moved.probe_cv);
        assert_eq!(Verdict::of(moved.cv, moved.probe_cv), Verdict::Unstable);
        use Why::{IntervalsDisjoint, IntervalsOverlap, MachineMoved, WithinFloor};
        assert_eq!(
            moved.marks,
            vec![
                IntervalsOverlap,
                IntervalsOverlap,
                MachineMoved,
                WithinFloor,
                IntervalsOverlap
            ]
        );
        assert_eq!(moved.verdict, Verdict::MovedWithProbe);
        assert_eq!(moved.verdict.label(), "moved with the probe");
        let still = set(140.0, true);
        assert_eq!(still.marks[2], IntervalsDisjoint);
        assert_eq!(still.verdict, Verdict::Unstable);
        let bare = set(417.0, false);
        assert!(bare.marks.iter().all(|&w| w == Why::NoInterval));
        assert_eq!(bare.verdict, Verdict::Unstable);
    }

    /// barrier-spin's t0 of 83, 135, 85 ns (+-3, +-5, +-3) with the round
    /// trip still (127, 129, 128 ns, +-3) and the system-call probe at 304,
    /// 431, 306 ns (+-4, +-6, +-4): the summary keeps the system calls beside
    /// the values, and `compare` sets 135 ns beside the median repetition
    /// (85): x[128.25 / 89.25, 141.75 / 80.75] = x[1.437, 1.755] against the
    /// system call's x[425 / 310, 437 / 302] = x[1.371, 1.447], which allows
    /// up to x2.094: moved with the probe, where the CV rule (0.29 against
    /// the round trip's 0.008) said unstable.
    #[test]
    fn a_t0_that_moved_with_the_system_call_moved_with_the_probe() {
        use crate::kernels::harness::probe::{PROBE_PARAM, SYSCALL_PROBE_PARAM};
        let run = |rep, t0: f64, half: f64, rt: f64, sys: f64, sys_half: f64| {
            let of = Some("barrier-spin");
            let mut r = KernelResult::new("hockney-sync", "hockney", Placement::Pinned, vec![0, 1])
                .with_transport(of)
                .with_headline(vec![
                    Param::new("t0_ns", of, t0).with_ci(Some([t0 - half, t0 + half]), "test"),
                    Param::new(PROBE_PARAM, of, rt).with_ci(Some([rt - 3.0, rt + 3.0]), "test"),
                    Param::new(SYSCALL_PROBE_PARAM, of, sys)
                        .with_ci(Some([sys - sys_half, sys + sys_half]), "test"),
                ]);
            r.repetition = Some(rep);
            r
        };
        let rs = [
            run(1, 83.0, 3.0, 127.0, 304.0, 4.0),
            run(2, 135.0, 5.0, 129.0, 431.0, 6.0),
            run(3, 85.0, 3.0, 128.0, 306.0, 4.0),
        ];
        let rows = repeat_spread(&rs);
        let t0 = &rows[0];
        assert_eq!(t0.syscall, vec![304.0, 431.0, 306.0]);
        assert_eq!(t0.probes, vec![127.0, 129.0, 128.0]);
        assert_eq!(Verdict::of(t0.cv, t0.probe_cv), Verdict::Unstable);
        assert_eq!(t0.marks[1], Why::MachineMoved);
        assert_eq!(t0.verdict, Verdict::MovedWithProbe);
        // Only a t0 carries them.
        assert!(rows.iter().skip(1).all(|r| r.syscall.is_empty()));
    }

    /// A slope near zero, 0.045, 0.036, 0.008, 0.009, -0.011 ns/B, each
    /// +-0.03: mean 0.0174, CV far above any rule, no probe. Beside the
    /// median repetition (0.009, -0.021..0.039) every interval overlaps:
    /// within its intervals. With the first at +-0.001 (0.044..0.046) it
    /// lies apart, `*`: unstable.
    #[test]
    fn a_spread_no_wider_than_the_intervals_is_within_them() {
        let slope = |rep, value: f64, half: f64| {
            let mut r = KernelResult::new(
                "decomposition",
                "decomposition",
                Placement::Pinned,
                vec![0, 1],
            )
            .with_transport(Some("mailbox"))
            .with_headline(vec![
                Param::new("float_a1_ns_per_byte", None, value)
                    .with_ci(Some([value - half, value + half]), "test"),
            ]);
            r.repetition = Some(rep);
            r
        };
        let values = [0.045, 0.036, 0.008, 0.009, -0.011];
        let rows = |first_half: f64| {
            let rs: Vec<KernelResult> = (0..5)
                .map(|i| {
                    let half = if i == 0 { first_half } else { 0.03 };
                    slope(i as u32 + 1, values[i], half)
                })
                .collect();
            repeat_spread(&rs).remove(0)
        };
        let wide = rows(0.03);
        assert!(wide.cv > 1.0 && wide.probe_cv.is_nan(), "{}", wide.cv);
        assert_eq!(Verdict::of(wide.cv, wide.probe_cv), Verdict::Unstable);
        assert!(wide.marks.iter().all(|&w| w == Why::IntervalsOverlap));
        assert_eq!(wide.verdict, Verdict::WithinIntervals);
        assert_eq!(wide.verdict.label(), "within its intervals");
        let apart = rows(0.001);
        assert_eq!(apart.marks[0], Why::IntervalsDisjoint);
        assert_eq!(apart.verdict, Verdict::Unstable);
    }

    /// A sync method's s_1/2 of 8048, 6775, 8396 flop beside round trips of
    /// 126.8, 117.2, 127.2 ns and rate probes of 6.89, 6.27, 7.44 Gflop/s:
    /// its state figure is their product, 873.7, 734.8, 946.4 flop (the
    /// work the processors do in one round trip), CV 0.1262, which covers
    /// s_1/2's 0.1103 (mean 7739.7, sample standard deviation 853.4); against
    /// the round trip alone (CV 0.0458) it was unstable.
    #[test]
    fn s_half_moves_with_the_round_trip_times_the_rate_probe() {
        use crate::kernels::harness::probe::PROBE_PARAM;
        let sync = |rep, s_half, rt, rate| {
            let mut r = KernelResult::new("hockney-sync", "hockney", Placement::Pinned, vec![0, 1])
                .with_transport(Some("events-condvar"))
                .with_headline(vec![
                    Param::new(S_HALF_FLOP, Some("events-condvar"), s_half),
                    Param::new(PROBE_PARAM, Some("events-condvar"), rt),
                    Param::new(
                        crate::results::RATE_PROBE_PARAM,
                        Some("events-condvar"),
                        rate,
                    ),
                ]);
            r.repetition = Some(rep);
            r
        };
        let rs = [
            sync(1, 8048.0, 126.8, 6.89e9),
            sync(2, 6775.0, 117.2, 6.27e9),
            sync(3, 8396.0, 127.2, 7.44e9),
        ];
        let rows = repeat_spread(&rs);
        let s = rows.iter().find(|s| s.name == S_HALF_FLOP).unwrap();
        assert!((s.probes[0] - 873.652).abs() < 1e-6, "{:?}", s.probes);
        assert!((s.probes[1] - 734.844).abs() < 1e-6, "{:?}", s.probes);
        assert!((s.cv - 0.1103).abs() < 1e-3, "{}", s.cv);
        assert!((s.probe_cv - 0.1262).abs() < 1e-3, "{}", s.probe_cv);
        assert_eq!(s.verdict, Verdict::MachineMoved);
        let rt = rows.iter().find(|s| s.name == PROBE_PARAM).unwrap();
        assert!((rt.cv - 0.0458).abs() < 1e-3, "{}", rt.cv);
    }
}
