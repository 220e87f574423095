//! The names under which a kernel records its probes of the machine's state and
//! the figures of its mode (how often its waits slept), and their readers.
//!
//! They are part of the document: a kernel writes them into its `headline` or
//! its fits, and the analysis of results (`compare`'s judging of the machine's
//! state, the card) reads them back by these names.

use super::{KernelResult, Param};

/// The headline parameter that carries a kernel's probes of the machine's state:
/// their median, and their range as its interval.
pub const PROBE_PARAM: &str = "probe_round_trip_ns";

/// The headline parameter that carries a kernel's probes of the processors'
/// own rate: `P` times a processor's serial rate on the dyadic multiply,
/// sampled once a round (`hockney-sync`, with every processor of the team
/// computing at once, or the master alone without a team) or once a round
/// per operation (`hockney-vector`, on the operation itself); their median,
/// with a bootstrap over the samples as its
/// interval. A rate (`r_inf`) is judged against it as a latency is against
/// [`PROBE_PARAM`]: the cache-line round trip cannot say that the processors
/// computed more slowly in one run, this can.
pub const RATE_PROBE_PARAM: &str = "rate_probe_flop_per_s";

/// The headline parameter that carries the copy probe of a ping-pong or
/// one-way sweep, or of `speedup`'s `T_ML` calibration: the time per byte,
/// one way, of a plain cross-core copy of 32 KiB each way between two
/// threads on the kernel's two CPUs, timed once a round (before and after
/// the calibration, a batch per trial, for `speedup`); the median, with the
/// samples' range as its interval. A time per byte (`t_per_byte_ns`,
/// `tc_ms_per_byte`) is judged against it as a latency is against
/// [`PROBE_PARAM`]: on a shared host the rate of cross-core copies moves while
/// one line's round trip holds still.
pub const COPY_PROBE_PARAM: &str = "copy_probe_ns_per_byte";

/// The headline parameter that carries `hockney-sync`'s system-call probe
/// of a method: one `FUTEX_WAKE` that wakes nobody, timed on the master's CPU
/// once a round ([`crate::platform::futex_wakes`]), ns; the median, with a
/// bootstrap over the rounds as its interval. A method's `t0_ns` that moved
/// where the round trip did not is judged against it too ([`Probed::also`](crate::analysis::Probed::also)):
/// on a shared host the way into the kernel slows while the line round trip
/// holds still, and the blocking hand-overs' `t0` follow it (as did the
/// central spin barrier's, which barrier-spin timed before).
pub const SYSCALL_PROBE_PARAM: &str = "syscall_probe_ns";

/// Whether `name` is one of a kernel's probes of the machine's state
/// ([`PROBE_PARAM`], [`RATE_PROBE_PARAM`], [`COPY_PROBE_PARAM`],
/// [`SYSCALL_PROBE_PARAM`]) rather than a parameter measured on it.
pub fn is_probe(name: &str) -> bool {
    [
        PROBE_PARAM,
        RATE_PROBE_PARAM,
        COPY_PROBE_PARAM,
        SYSCALL_PROBE_PARAM,
    ]
    .contains(&name)
}

/// The fit parameter of a `hockney-sync` method with its short grains'
/// voluntary context switches per segment (a segment's hand-overs that
/// slept).
pub const BLOCKS_PARAM: &str = "short_blocks_per_segment";

/// The point field of a `comet-barrier` result with its sleeps per barrier:
/// the process's voluntary context switches over that barrier's sweep at
/// that `P`, per barrier.
pub const SLEEPS_PARAM: &str = "sleeps_per_barrier";

/// The fit parameter of a `hockney-sync` method with its short grains'
/// involuntary context switches per second: how often another task took a
/// CPU from the method's threads.
pub const PREEMPTED_PARAM: &str = "short_preempted_per_s";

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
    recorded(k, PROBE_PARAM, of)
}

/// The rate probe ([`RATE_PROBE_PARAM`]) `k` recorded for the parameters `of`
/// qualifies, as [`recorded_probe`].
pub fn recorded_rate_probe<'a>(k: &'a KernelResult, of: Option<&str>) -> Option<&'a Param> {
    recorded(k, RATE_PROBE_PARAM, of)
}

/// The copy probe ([`COPY_PROBE_PARAM`]) `k` recorded for the parameters `of`
/// qualifies, as [`recorded_probe`].
pub fn recorded_copy_probe<'a>(k: &'a KernelResult, of: Option<&str>) -> Option<&'a Param> {
    recorded(k, COPY_PROBE_PARAM, of)
}

/// The headline parameter `name` of `k` with the qualifier `of`, else the
/// result's only one of that name.
pub fn recorded<'a>(k: &'a KernelResult, name: &str, of: Option<&str>) -> Option<&'a Param> {
    let probes: Vec<&Param> = k.headline.iter().filter(|p| p.name == name).collect();
    probes
        .iter()
        .find(|p| p.of.as_deref() == of)
        .or(match probes.as_slice() {
            [one] => Some(one),
            _ => None,
        })
        .copied()
}
