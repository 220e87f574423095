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
//! 0. each interval is first widened to at least the run-to-run floor,
//!    `value (1 ± floor)` (`compare --floor`, [`DEFAULT_FLOOR`] by default): a
//!    run's own intervals share the machine's frequency, placement and page
//!    colouring, and cannot cover what changes between runs;
//! 1. the intervals overlap: not marked ([`Why::IntervalsOverlap`], or
//!    [`Why::WithinFloor`] where they overlap only once widened);
//! 2. they do not, the probes' intervals do not overlap either (the machine
//!    moved), and the parameter is built of line transfers (a time, a
//!    half-performance length, a time per byte): `t = c + k p` with `c, k >= 0`
//!    changes by a factor between 1 and the probe's `f = p2 / p1`, and, since a
//!    kernel's own loop may take the other of the floor's phase modes in one state
//!    and not the other (see the transport's README), on to `f` times
//!    `min(f, PHASE_MODES)` ([`explained`]). Where the parameter's change (from
//!    opposite bounds of its widened intervals, a positive value cut at zero)
//!    reaches that range, the value is `~` ([`Why::MachineMoved`]), else `*`.
//!    Each parameter is judged against the probe it moves with: a sync method's
//!    `r_inf` against the rate probe ([`RATE_PROBE_PARAM`](crate::results::RATE_PROBE_PARAM)), its `s_1/2 = r_inf
//!    t0` against the product of both probes ([`ProbeKind::Product`]), a time per
//!    byte against the copy probe ([`COPY_PROBE_PARAM`](crate::results::COPY_PROBE_PARAM)), a ratio over
//!    `pingpong`'s two-flag baseline against the baseline's reciprocal
//!    ([`ProbeKind::Baseline`]), a vector level's `n_1/2` against the rate probe
//!    either way ([`moves_both_ways`]);
//! 3. the probes' intervals overlap, but one run's probes span more than
//!    [`STATE_SPAN`] (the machine changed state while that run measured, and
//!    its values mix the states), and the parameter, built of line transfers,
//!    changed by no more than the probes' opposite bounds allow: `~`
//!    ([`Why::MachineMoved`]), with both runs' probe ranges in the note;
//! 4. otherwise `*` ([`Why::IntervalsDisjoint`]): a change that the probe does
//!    not explain, such as a busy loop beside the measured CPU, which inflates a
//!    blocking hand-off while the two-flag round trip holds still, or moves it
//!    against the probe or by more.
//!
//! Before the probes, a synchronisation method's `t0_ns` and `s_half_flop`
//! are judged by how often its hand-overs slept ([`BLOCKS_PARAM`]). Where the two
//! runs' figures differ by more than [`MODE_SHIFT`] and the parameter moved the
//! same way (more sleep, a longer hand-over) by no more than [`MAX_SLEEP_NS`] of
//! `t0` a sleep ([`Mode::changed`]), the value is `~` ([`Why::ModeChanged`]): the
//! method took its other mode, which the files show.
//!
//! A value or an interval missing on either side gives no mark
//! ([`Why::NoInterval`]). The rule never turns an overlap into a mark, and it
//! excuses a difference only when the machine's own probe moved and the
//! parameter moved within what the probe explains, or when the method's
//! hand-overs slept differently and the parameter moved their way.

use crate::results::{
    BLOCKS_PARAM, KernelResult, PROBE_PARAM, Param, SLEEPS_PARAM, SYSCALL_PROBE_PARAM, num,
    recorded, recorded_copy_probe, recorded_probe, recorded_rate_probe, unit_of,
};
use serde::{Deserialize, Serialize};

/// What a kernel's probe measured, for [`judge`]'s sentences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProbeKind {
    /// The CPU pair's two-flag round trip, ns ([`PROBE_PARAM`]).
    #[default]
    RoundTrip,
    /// `P` times a processor's serial rate, flop/s ([`RATE_PROBE_PARAM`](crate::results::RATE_PROBE_PARAM)).
    Rate,
    /// The round trip times the rate probe, ns flop/s: what a sync method's
    /// `s_1/2 = r_inf t0` moves with, its `t0` with the one and its `r_inf`
    /// with the other.
    Product,
    /// A plain cross-core copy's time per byte, ns/B ([`COPY_PROBE_PARAM`](crate::results::COPY_PROBE_PARAM)).
    Copy,
    /// The reciprocal of `pingpong`'s two-flag baseline, its 8-byte one-way
    /// time (1/ns): what a ratio over that baseline (`mailbox_over_baseline`)
    /// moves with. The baseline takes the floor's phase modes and the
    /// machine's states, and the ratio moves against it: the channel's 8
    /// bytes took 320 then 991 ns where the flags took 50.5 then 220, and
    /// `channel_over_baseline` went from 6.27 to 4.43 (2-vCPU EPYC VM).
    Baseline,
    /// A system call's time on the master's CPU, ns ([`SYSCALL_PROBE_PARAM`]).
    Syscall,
}

impl ProbeKind {
    /// How the probe is named, the scale and unit its values are printed in,
    /// and what they are.
    fn words(self) -> (&'static str, f64, &'static str, &'static str) {
        match self {
            ProbeKind::RoundTrip => ("probe", 1.0, "ns", "round trip"),
            ProbeKind::Rate => ("rate probe", 1e-9, "Gflop/s", "serial rate times P"),
            ProbeKind::Product => ("probes' product", 1e-9, "flop", "of round trip x rate"),
            ProbeKind::Copy => ("copy probe", 1.0, "ns/B", "copied one way"),
            ProbeKind::Baseline => ("two-flag baseline", 1.0, "ns", "one way"),
            ProbeKind::Syscall => ("system-call probe", 1.0, "ns", "a futex wake"),
        }
    }

    /// A probe's value as it is printed: scaled, and for the baseline the
    /// one-way time it is the reciprocal of.
    fn shown(self, v: f64) -> f64 {
        match self {
            ProbeKind::Baseline => 1.0 / v,
            _ => v * self.words().1,
        }
    }

    /// Two probes' values in words: `100.3 then 95.6 ns round trip`.
    fn then(self, a: f64, b: f64) -> String {
        let (_, _, unit, what) = self.words();
        format!(
            "{} then {} {unit} {what}",
            num(self.shown(a)),
            num(self.shown(b))
        )
    }

    /// A run's probes' range in words: `99.00 to 456.5 ns`.
    fn range(self, [lo, hi]: [f64; 2]) -> String {
        let (_, _, unit, _) = self.words();
        let (a, b) = (self.shown(lo), self.shown(hi));
        format!("{} to {} {unit}", num(a.min(b)), num(a.max(b)))
    }

    /// That the probe moved from `a` to `b`: `the probe went from 100 to 440 ns`.
    fn moved(self, a: f64, b: f64) -> String {
        let (name, _, unit, _) = self.words();
        format!(
            "the {name} went from {} to {} {unit}",
            num(self.shown(a)),
            num(self.shown(b))
        )
    }

    /// The probe's factor `f` and its interval in words, `x1.276 [1.164,
    /// 1.363]`; the baseline's the other way up.
    fn factor(self, f: f64, [lo, hi]: [f64; 2]) -> String {
        match self {
            ProbeKind::Baseline => {
                format!("x{} [{}, {}]", num(1.0 / f), num(1.0 / hi), num(1.0 / lo))
            }
            _ => format!("x{} [{}, {}]", num(f), num(lo), num(hi)),
        }
    }
}

/// Whether a parameter is a rate that moves with the processors' own rate
/// ([`RATE_PROBE_PARAM`](crate::results::RATE_PROBE_PARAM)) rather than with the round trip: an `r_inf` (a
/// sync method's, the rate of its long grains, which are work with a
/// hand-over too short beside it to matter; `hockney-vector`'s per level).
/// Its time per flop is the work's time per flop plus a share of the
/// hand-over, so, as a latency against the round trip, it changes by a factor
/// between 1 and the probe's.
pub fn moves_with_rate(name: &str) -> bool {
    name.ends_with("r_inf_flop_per_s")
}

/// The run-to-run floor `compare` widens every interval to by default: 5 % of
/// the value on each side, so that two values closer than about 10 % are never
/// marked. On a quiet VM a sync method's `r_inf` moves by a few per cent
/// between runs against within-run intervals of under one; the stability
/// target is a CV of at most 10 % between runs.
pub const DEFAULT_FLOOR: f64 = 0.05;

/// How much further than the probe, at most, a latency may move with the
/// machine ([`explained`]): the floor's phase modes. On a 2-vCPU AMD EPYC VM
/// the same two-flag ping-pong in two codes took 64 and 100 ns a round trip
/// in the fast state and the same in the slow one, and latencies that crossed a
/// change of state moved by up to about twice more than the probe.
pub const PHASE_MODES: f64 = 2.0;

/// The widest range a run's probes may span, highest over lowest, and still
/// be one state of the machine: 1.5. Within a state the per-round probes of
/// a run lie within 10 % of each other on the 2-vCPU VM; a change of state
/// moves them x1.6 (the fast state's two modes) to x4.5 (fast to slow).
pub const STATE_SPAN: f64 = 1.5;

/// The costliest a sleep of a hand-over may be for [`judge`] to call a change
/// of `t0` a change of mode: 1 ms. Waking a thread that sleeps on an idle
/// CPU costs 5 to 60 us on the 2-vCPU VM (t0's change over the sleeps' in
/// quiet runs: locks 45, events 27, tasks-spawn 17 us a sleep); a
/// millisecond or more a sleep is a thread that woke to find its CPU taken
/// by another task for a scheduler slice (a busy loop beside the measured
/// CPU: locks 4.4 ms, tasks-spawn 3.9 ms a sleep), which is the machine
/// being busy, not the method's mode.
pub const MAX_SLEEP_NS: f64 = 1e6;

/// A method's mode in one run: how often its waits slept and the time they
/// gave. For a `hockney-sync` method, its short grains' hand-overs' sleeps
/// per segment ([`BLOCKS_PARAM`]) and its `t0`; for a `comet-barrier`
/// barrier, its sleeps per barrier at one `P` ([`SLEEPS_PARAM`]) and its
/// time there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mode {
    /// Sleeps per segment, or per barrier.
    pub blocks: f64,
    /// The fit's `t0_ns`, or the barrier's time, ns.
    pub t0_ns: f64,
    /// Whose waits they are.
    pub of: ModeOf,
}

/// Whose waits a [`Mode`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeOf {
    /// A `hockney-sync` method's hand-overs, per segment.
    Segment,
    /// A `comet-barrier` barrier's waiters, per barrier.
    Barrier,
}

impl Mode {
    /// Whether runs whose sleeps a segment differ by `slept` and whose `t0`
    /// by `t0_ns` took different modes: the sleeps by more than
    /// [`MODE_SHIFT`], `t0` by no more than [`MAX_SLEEP_NS`] a sleep.
    pub fn changed(slept: f64, t0_ns: f64) -> bool {
        slept.abs() > MODE_SHIFT && t0_ns.abs() <= MAX_SLEEP_NS * slept.abs()
    }

    /// The mode a kernel's fits record, if any.
    pub fn of(fits: &[crate::results::FitResult]) -> Option<Mode> {
        fits.iter().find_map(|f| {
            Some(Mode {
                blocks: *f.params.get(BLOCKS_PARAM)?,
                t0_ns: *f.params.get("t0_ns")?,
                of: ModeOf::Segment,
            })
        })
    }

    /// The mode of a barrier's point at `of` (`P = 2`) whose time is
    /// `time_ns`, where the point records its sleeps ([`SLEEPS_PARAM`]).
    pub fn of_barrier(k: &KernelResult, of: Option<&str>, time_ns: f64) -> Option<Mode> {
        let p: f64 = of?.strip_prefix("P = ")?.trim().parse().ok()?;
        let point = k
            .points
            .iter()
            .find(|pt| pt.number("processors") == Some(p))?;
        Some(Mode {
            blocks: point.number(SLEEPS_PARAM)?,
            t0_ns: time_ns,
            of: ModeOf::Barrier,
        })
    }
}

/// How far two runs' [`BLOCKS_PARAM`] must lie apart for `compare` to call
/// their hand-overs different modes: a quarter of a sleep per segment. Within
/// one mode the figure holds to a few hundredths (spin methods 0.00 to 0.01,
/// the events about 2 at P = 2); between modes it moves by 0.5 or more.
pub const MODE_SHIFT: f64 = 0.25;

/// Why a value is, or is not, marked against the first file's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Why {
    /// The two 95 % intervals overlap: no mark.
    IntervalsOverlap,
    /// The intervals do not overlap, and the probes do not explain it: `*`.
    IntervalsDisjoint,
    /// The intervals overlap only once widened to the run-to-run floor: no
    /// mark.
    WithinFloor,
    /// The intervals do not overlap, but the probes' do not either, and the
    /// parameter changed in the probe's direction, by no more than
    /// [`explained`] allows; or one run's probes spanned a change of state
    /// ([`STATE_SPAN`]) and the parameter changed within their bounds: the
    /// machine moved and the parameter with it, `~`.
    MachineMoved,
    /// The intervals do not overlap, but the method's hand-overs slept
    /// differently (by more than [`MODE_SHIFT`] a segment) and the parameter
    /// moved their way: the method changed mode, `~`.
    ModeChanged,
    /// A value or an interval is missing on one side: no mark.
    NoInterval,
}

impl Why {
    /// The mark printed beside the change: `*`, `~` or nothing.
    pub fn mark(self) -> &'static str {
        match self {
            Why::IntervalsDisjoint => "*",
            Why::MachineMoved | Why::ModeChanged => "~",
            Why::IntervalsOverlap | Why::WithinFloor | Why::NoInterval => "",
        }
    }

    /// The mark in CSV: `*`, `~`, `=` (intervals overlap) or empty.
    pub fn csv_mark(self) -> &'static str {
        match self {
            Why::IntervalsOverlap | Why::WithinFloor => "=",
            other => other.mark(),
        }
    }

    /// The words of the JSON and CSV.
    pub fn words(self) -> &'static str {
        match self {
            Why::IntervalsOverlap => "intervals overlap",
            Why::IntervalsDisjoint => "intervals disjoint",
            Why::WithinFloor => "within the run-to-run floor",
            Why::MachineMoved => "machine moved, within what the probe explains",
            Why::ModeChanged => "the hand-overs slept differently",
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
    /// The kernel's probe and its interval: the round trip (ns), or for a rate
    /// the rate probe (flop/s), as `probe_kind` says.
    pub probe: Option<(f64, [f64; 2])>,
    /// Which probe `probe` is.
    pub probe_kind: ProbeKind,
    /// Whether the value is built of line transfers and may move with the
    /// probe: a latency ([`latency_like`], or one with a recorded
    /// `*_over_probe`) or a time per byte.
    pub moves_with_probe: bool,
    /// Where the value is a sync method's `t0_ns` or `s_half_flop`: its
    /// kernel's mode.
    pub mode: Option<Mode>,
    /// Whether the value is built of two quantities that each move with
    /// the probe, by different factors, so that it may move either way with
    /// it: a ping-pong's `n_half_bytes = t_startup / t_per_byte`, a vector
    /// level's `n_half_flop = r_inf t0` ([`moves_both_ways`]).
    pub both_ways: bool,
    /// A second probe to judge the value against where the first does not
    /// explain its change, and its interval: for a sync method's `t0_ns`,
    /// the system-call probe ([`SYSCALL_PROBE_PARAM`]).
    pub also: Option<(f64, [f64; 2])>,
}

impl Probed {
    /// A value without a probe.
    pub fn plain(value: f64, ci95: Option<[f64; 2]>) -> Probed {
        Probed {
            value,
            ci95,
            probe: None,
            probe_kind: ProbeKind::RoundTrip,
            moves_with_probe: false,
            mode: None,
            both_ways: false,
            also: None,
        }
    }

    /// `name`'s value in `k` with the kernel's probe for `of`; it may move
    /// with the probe when the kernel recorded its `*_over_probe` or its name
    /// says it is built of line transfers ([`moves_with_probe`]).
    pub fn in_kernel(
        k: &KernelResult,
        name: &str,
        of: Option<&str>,
        value: f64,
        ci95: Option<[f64; 2]>,
    ) -> Probed {
        let mode = match name {
            "barrier_ns" => Mode::of_barrier(k, of, value),
            _ => moves_with_mode(name).then(|| Mode::of(&k.fits)).flatten(),
        };
        let with_ci = |p: &Param| Some((p.value, p.ci95?));
        let round_trip = recorded_probe(k, of).and_then(with_ci);
        let rate = recorded_rate_probe(k, of).and_then(with_ci);
        // A sync method's t0 may move with the way into the kernel too.
        let also = (name == "t0_ns")
            .then(|| recorded(k, SYSCALL_PROBE_PARAM, of).and_then(with_ci))
            .flatten();
        // A parameter judged against a probe of its own kind, in its direction.
        let against = |probe: (f64, [f64; 2]), probe_kind| Probed {
            value,
            ci95,
            probe: Some(probe),
            probe_kind,
            moves_with_probe: true,
            mode,
            both_ways: false,
            also: None,
        };
        // s_1/2 = r_inf t0: against the product of the two probes, whose
        // interval is the product of their bounds (both positive).
        if name == "s_half_flop"
            && let (Some((t, [t_lo, t_hi])), Some((r, [r_lo, r_hi]))) = (round_trip, rate)
        {
            return against((t * r, [t_lo * r_lo, t_hi * r_hi]), ProbeKind::Product);
        }
        if name.ends_with("_over_baseline")
            && let Some((b, [lo, hi])) = recorded(k, BASELINE_PARAM, of).and_then(with_ci)
            && lo > 0.0
        {
            return against((1.0 / b, [1.0 / hi, 1.0 / lo]), ProbeKind::Baseline);
        }
        if moves_with_copy(name)
            && let Some(copy) = recorded_copy_probe(k, of).and_then(with_ci)
        {
            return against(copy, ProbeKind::Copy);
        }
        if moves_with_rate(name)
            && let Some(rate) = rate
        {
            return against(rate, ProbeKind::Rate);
        }
        // A vector level's n_1/2 = r_inf t0: r_inf moves with the rate probe
        // and t0 against it, so n_1/2 either way.
        if moves_both_ways(name)
            && let Some(rate) = rate
        {
            return Probed {
                both_ways: true,
                ..against(rate, ProbeKind::Rate)
            };
        }
        let probe = round_trip;
        let stem = name.strip_suffix("_ns").unwrap_or(name);
        let recorded = k.headline.iter().any(|p| {
            p.name == format!("{stem}_over_probe")
                && (of.is_none() || p.of.as_deref() == of)
                && p.ci95.is_some()
        });
        Probed {
            value,
            ci95,
            probe,
            probe_kind: ProbeKind::RoundTrip,
            moves_with_probe: probe.is_some() && (recorded || moves_with_probe(name)),
            mode,
            both_ways: moves_both_ways(name),
            also,
        }
    }
}

/// Whether a parameter is built of two quantities that move with the
/// machine by different factors, and so moves either way with it:
/// `n_half_bytes`, a ping-pong's `t_startup / t_per_byte` (the start-up
/// moves with the round trip, the time per byte with the copies, which move
/// by more: a 2-vCPU EPYC VM whose round trip fell x0.55 saw `t_per_byte`
/// fall x0.30 and `n_half` rise x2.3); and `hockney-vector`'s `n_half_flop`
/// per level, `r_inf t0`, judged against the rate probe, with which `r_inf`
/// moves and against which `t0` does (the f64 L1 triad's probe fell x0.55,
/// its `r_inf` x0.57, its `t0` rose x3.5 and `n_1/2` x2.1).
pub fn moves_both_ways(name: &str) -> bool {
    name == "n_half_bytes" || name.ends_with("n_half_flop")
}

/// Whether a parameter is a time per byte that moves with the copy probe
/// ([`COPY_PROBE_PARAM`](crate::results::COPY_PROBE_PARAM)) where its kernel recorded one: `t_per_byte_ns`,
/// `T_ML`'s `tc_ms_per_byte` and any other `ns/B` or `ms/B` figure but the
/// probe itself.
pub fn moves_with_copy(name: &str) -> bool {
    !name.contains("probe") && matches!(unit_of(name), "ns/B" | "ms/B")
}

/// Whether a parameter moves with a synchronisation method's mode (see
/// [`BLOCKS_PARAM`]): its `t0_ns`, and what is built on it, `s_half_flop =
/// r_inf t0` and `t0_over_probe`.
pub fn moves_with_mode(name: &str) -> bool {
    matches!(name, "t0_ns" | "s_half_flop" | "t0_over_probe")
}

/// Whether a parameter may move with the machine's probe: a time (ns, us, ms
/// or s: a start-up, an overhead, a one-way time; not a time per byte), or a
/// half-performance length (a start-up in units of work). Rates and ratios
/// are not: they are judged on their intervals alone.
pub fn latency_like(name: &str) -> bool {
    // c2c's spread over a distance class's pairs: `one_way_ns_min`, `_median`
    // and `_max` are times in ns.
    let stem = ["_min", "_median", "_max"]
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(name);
    name != PROBE_PARAM
        && !name.contains("probe")
        && (matches!(unit_of(stem), "ns" | "us" | "ms" | "s") || name.contains("_half_"))
}

/// Whether a parameter is built of line transfers, so that it may move with
/// the probe by a factor between 1 and the probe's: a latency
/// ([`latency_like`]) or a time per byte in any unit (`t_per_byte_ns`, the
/// decomposition's `int_f1_ns_per_byte`, T_ML's `tc_ms_per_byte`).
pub fn moves_with_probe(name: &str) -> bool {
    latency_like(name) || (!name.contains("probe") && matches!(unit_of(name), "ns/B" | "ms/B"))
}

/// The headline of `pingpong`'s two-flag baseline, beside its ratios over it
/// (`mailbox_over_baseline`): the flags' 8-byte one-way time.
const BASELINE_PARAM: &str = "one_way_ns";

fn overlap([a, b]: [f64; 2], [c, d]: [f64; 2]) -> bool {
    !(b < c || d < a)
}

/// `ci` widened to at least `value (1 ± floor)`.
fn widened([lo, hi]: [f64; 2], value: f64, floor: f64) -> [f64; 2] {
    let d = value.abs() * floor;
    [lo.min(value - d), hi.max(value + d)]
}

/// The factor from `[a, b]` to `[c, d]` (both positive), from opposite bounds:
/// `[c / b, d / a]`; `None` where a bound is not above zero.
fn factor([a, b]: [f64; 2], [c, d]: [f64; 2]) -> Option<[f64; 2]> {
    (a > 0.0 && c > 0.0).then(|| [c / b, d / a])
}

/// A parameter's factor from `base` to `other` (each its value and its
/// interval), as [`factor`], but where both values are positive an interval
/// that reaches zero or below is cut at zero: a time or a time per byte is
/// not negative, and the part of a fit's interval below zero says only that
/// the value may be near it. The factor then reaches 0 (`other`'s) or
/// infinity (`base`'s): the change may be any that far. `None` where a value
/// is not above zero.
fn change_factor(
    (base, [a, b]): (f64, [f64; 2]),
    (other, [c, d]): (f64, [f64; 2]),
) -> Option<[f64; 2]> {
    if !(base > 0.0 && other > 0.0) {
        return None;
    }
    let (a, c) = (a.max(0.0), c.max(0.0));
    Some([c / b, if a > 0.0 { d / a } else { f64::INFINITY }])
}

/// The factors by which a latency may change with the machine when the
/// probe changed by `probe` (its interval, from opposite bounds, apart from
/// 1), rising or falling: from 1 to the probe's far bound `f` (a fixed cost
/// plus line transfers), and on to `f min(f, PHASE_MODES)` (the floor's phase
/// modes, [`PHASE_MODES`]); falling, the same below 1.
pub fn explained(probe: [f64; 2], rising: bool) -> [f64; 2] {
    let [lo, hi] = with_phase_modes(probe);
    if rising { [1.0, hi] } else { [lo, 1.0] }
}

/// A range of factors widened by the floor's phase modes on the far side of
/// 1: a bound `f > 1` to `f min(f, PHASE_MODES)`, a bound `f < 1` to `f
/// max(f, 1 / PHASE_MODES)`.
fn with_phase_modes([lo, hi]: [f64; 2]) -> [f64; 2] {
    [
        if lo < 1.0 {
            lo * lo.max(1.0 / PHASE_MODES)
        } else {
            lo
        },
        if hi > 1.0 {
            hi * hi.min(PHASE_MODES)
        } else {
            hi
        },
    ]
}

/// For a parameter built of two quantities that each move with the machine
/// within `[lo, hi]` (`both`), as their ratio or as the product of one and
/// the other's reciprocal: the range `[lo / hi, hi / lo]`, which holds 1 and
/// reaches either way. Otherwise the range itself.
fn both_ways([lo, hi]: [f64; 2], both: bool) -> [f64; 2] {
    if !both {
        return [lo, hi];
    }
    let (lo, hi) = (lo.min(1.0), hi.max(1.0));
    [lo / hi, hi / lo]
}

/// Whether a run's probe interval spans a change of the machine's state.
fn unsettled([lo, hi]: [f64; 2]) -> bool {
    lo > 0.0 && hi / lo > STATE_SPAN
}

/// Judges `other` against `base` (see the module doc) with the run-to-run
/// `floor` (a fraction of the value): why it is marked or not, and, where the
/// probes moved, a sentence with the figures.
pub fn judge(base: &Probed, other: &Probed, floor: f64) -> (Why, Option<String>) {
    let first = judge_once(base, other, floor);
    // Where the first probe does not explain the change, the second may.
    if first.0 == Why::IntervalsDisjoint
        && let (Some(b), Some(o)) = (base.also, other.also)
    {
        let against = |p: &Probed, probe| Probed {
            probe: Some(probe),
            probe_kind: ProbeKind::Syscall,
            moves_with_probe: true,
            both_ways: false,
            also: None,
            ..p.clone()
        };
        let second = judge_once(&against(base, b), &against(other, o), floor);
        if second.0 == Why::MachineMoved {
            return second;
        }
    }
    first
}

/// [`judge`] against the first probe alone.
fn judge_once(base: &Probed, other: &Probed, floor: f64) -> (Why, Option<String>) {
    let (Some(bci), Some(oci)) = (base.ci95, other.ci95) else {
        return (Why::NoInterval, None);
    };
    if overlap(bci, oci) {
        return (Why::IntervalsOverlap, None);
    }
    if overlap(
        widened(bci, base.value, floor),
        widened(oci, other.value, floor),
    ) {
        return (
            Why::WithinFloor,
            Some(format!(
                "{} then {}: apart by their own intervals, within {}% of each other's run-to-run floor",
                num(base.value),
                num(other.value),
                num(100.0 * floor)
            )),
        );
    }
    if let Some(judged) = mode_changed(base, other) {
        return judged;
    }
    let (Some(bprobe), Some(oprobe)) = (base.probe, other.probe) else {
        return (Why::IntervalsDisjoint, None);
    };
    if base.probe_kind != other.probe_kind {
        // One file has the rate probe and the other not: nothing to set the
        // change beside.
        return (Why::IntervalsDisjoint, None);
    }
    // The parameter's factor from the intervals widened to the floor, as in
    // step 0: each run's value is uncertain by the floor, whatever its rounds
    // say, and so is their ratio.
    let change = change_factor(
        (base.value, widened(bci, base.value, floor)),
        (other.value, widened(oci, other.value, floor)),
    );
    let step = ProbeStep {
        base,
        other,
        change,
        b: bprobe,
        o: oprobe,
    };
    if overlap(bprobe.1, oprobe.1) {
        step.within_probes()
    } else {
        step.probes_moved()
    }
}

/// What steps 2 and 3 of the module doc judge by: the two runs, the
/// parameter's change factor from their widened intervals, and each run's
/// probe with its interval.
#[derive(Clone, Copy)]
struct ProbeStep<'a> {
    base: &'a Probed,
    other: &'a Probed,
    change: Option<[f64; 2]>,
    b: (f64, [f64; 2]),
    o: (f64, [f64; 2]),
}

/// Before the probes: the method's hand-overs slept a different number of
/// times in the two runs, in the direction the parameter moved, by enough to
/// explain it ([`Mode::changed`]).
fn mode_changed(base: &Probed, other: &Probed) -> Option<(Why, Option<String>)> {
    let (Some(b), Some(o)) = (base.mode, other.mode) else {
        return None;
    };
    if (o.blocks > b.blocks) != (other.value > base.value)
        || !Mode::changed(o.blocks - b.blocks, o.t0_ns - b.t0_ns)
    {
        return None;
    }
    let per_sleep = num((o.t0_ns - b.t0_ns) / (o.blocks - b.blocks));
    Some((
        Why::ModeChanged,
        Some(match o.of {
            ModeOf::Segment => format!(
                "the short grains' hand-overs slept {:.2} then {:.2} times a segment: the method waited in its other mode ({per_sleep} ns of t0 a sleep)",
                b.blocks, o.blocks
            ),
            ModeOf::Barrier => format!(
                "the barrier's waiters slept {:.2} then {:.2} times a barrier: it waited in its other mode ({per_sleep} ns a sleep)",
                b.blocks, o.blocks
            ),
        }),
    ))
}

impl ProbeStep<'_> {
    /// Step 3 of the module doc: the probes' intervals overlap; the machine moved
    /// only if a run's own probes spanned a change of state that bounds the
    /// parameter's change.
    fn within_probes(self) -> (Why, Option<String>) {
        let (base, other) = (self.base, self.other);
        let ((bp, bpci), (op, opci)) = (self.b, self.o);
        let kind = other.probe_kind;
        if base.moves_with_probe
            && other.moves_with_probe
            && (unsettled(bpci) || unsettled(opci))
            && let (Some(change), Some(probes)) = (self.change, factor(bpci, opci))
            && let allowed = both_ways(with_phase_modes(probes), other.both_ways)
            && overlap(change, allowed)
        {
            return (
                Why::MachineMoved,
                Some(format!(
                    "the machine changed state during a run: the probes spanned {} then {}, and the parameter changed by x{} [{}, {}], within their bounds' x[{}, {}] (with the floor's phase modes, x[{}, {}]{})",
                    kind.range(bpci),
                    kind.range(opci),
                    num(other.value / base.value),
                    num(change[0]),
                    num(change[1]),
                    num(probes[0]),
                    num(probes[1]),
                    num(allowed[0]),
                    num(allowed[1]),
                    if other.both_ways { ", either way" } else { "" }
                )),
            );
        }
        (
            Why::IntervalsDisjoint,
            Some(format!(
                "the probes do not show that the machine moved ({}, their intervals overlap)",
                other.probe_kind.then(bp, op)
            )),
        )
    }

    /// Step 2 of the module doc: the probes moved apart; the machine moved if the
    /// parameter's change lies within what the probes' change explains.
    fn probes_moved(self) -> (Why, Option<String>) {
        let (base, other) = (self.base, self.other);
        let ((bp, bpci), (op, opci)) = (self.b, self.o);
        let moved = other.probe_kind.moved(bp, op);
        if !(base.moves_with_probe && other.moves_with_probe) {
            return (
                Why::IntervalsDisjoint,
                Some(format!(
                    "{moved}; the parameter is neither a latency nor a time per byte"
                )),
            );
        }
        let (Some(change), Some(probe)) = (self.change, factor(bpci, opci)) else {
            return (
                Why::IntervalsDisjoint,
                Some(format!(
                    "{moved}; a value is not above zero, so the parameter's change has no factor to set beside the probe's"
                )),
            );
        };
        let explained = both_ways(explained(probe, op > bp), other.both_ways);
        let factors = format!(
            "the parameter changed by x{} [{}, {}], the {} by {}",
            num(other.value / base.value),
            num(change[0]),
            num(change[1]),
            other.probe_kind.words().0,
            other.probe_kind.factor(op / bp, probe)
        );
        if overlap(change, explained) && other.both_ways {
            (
                Why::MachineMoved,
                Some(format!(
                    "the machine moved: {moved}, and the parameter, built of two quantities that move with it by different factors, moved within what that allows either way ({factors}; x[{}, {}])",
                    num(explained[0]),
                    num(explained[1])
                )),
            )
        } else if overlap(change, explained) {
            (
                Why::MachineMoved,
                Some(format!(
                    "the machine moved: {moved}, and the parameter {} ({factors}; with the floor's phase modes up to x{})",
                    match other.probe_kind {
                        ProbeKind::Baseline => "moved against it, as a ratio over it does",
                        _ => "moved with it, in its direction",
                    },
                    num(if op > bp { explained[1] } else { explained[0] })
                )),
            )
        } else {
            (
                Why::IntervalsDisjoint,
                Some(format!(
                    "{moved}, but the parameter moved otherwise ({factors})"
                )),
            )
        }
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
