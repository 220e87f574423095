//! The decomposition's transport lanes (buffers and slots a size gets) and the
//! probes of the two CPUs' round trips that say which state of the machine a
//! size was measured in.

use super::super::protocol::cache_sizes;
use crate::kernels::KernelError;
use crate::platform::Topology;
use crate::team::Team;
use crate::transport::{TransportConfig, TransportKind};

/// Transport buffers for messages up to `max` bytes, `slots` of them per lane,
/// each holding a whole message: a message is then handed over whole (store and
/// forward, as the NCUBE's system buffers), where smaller slots would let a
/// receiver copy one chunk out while the next arrives.
pub(in crate::kernels::decomposition) fn store_and_forward(
    max: usize,
    slots: usize,
) -> TransportConfig {
    let max = max.max(32);
    TransportConfig {
        max_message_bytes: max,
        slots,
        slot_bytes: max.div_ceil(128) * 128,
    }
}

/// Transport slots per lane for messages of `size` bytes: two up to
/// [`TWO_SLOTS_UP_TO`], beyond it enough to span `span` bytes (a power of two;
/// [`lane_span`]: a sixteenth of the L2).
///
/// Never more than one message is in flight on a lane, but a hand-over's cost
/// depends on where the slot's lines are when it is written and read again: in
/// the other CPU's private caches since its last use, or gone from them. Between
/// two uses of a slot a CPU touches every lane of the echo and the nodes'
/// buffers, more the longer the echo, so the state a slot is found in, and the
/// cost of a hop, can change with the distance `d`, while the paper's `E` is the
/// same for every hop. Test 6's echo again with rank 1 forwarding in its system
/// (`twice_f_e_u_system_ns`) shows where: by the model it is `2E + F + (A + U)`.
/// On the two-CPU Xeon this was measured on (median excess over 2 runs, both
/// transports, both `Q`s):
///
/// | size | 2 slots | 4 | 8 | 16 | 32 |
/// |---|---|---|---|---|---|
/// | 4 KiB | −80 to +35 ns | +200 to +230 | +180 to +280 | | −235 to −300 |
/// | 8 KiB | +610 to +740 | +580 to +660 | +380 to +470 | −260 to −330 | |
/// | 32 KiB | +2.7 to +2.9 µs | −80 to −235 ns | −180 to +40 | | |
///
/// A positive excess is a first link dearer than the hops `E` comes from; the
/// solve puts it into `U` and `A` goes below zero by as much (at 32 KiB with two
/// slots, `A` = −1.4 µs). From 8 KiB on, lanes that span 128 KiB (16 slots at
/// 8 KiB, 8 at 16 KiB, 4 at 32 KiB, 2 at 64 KiB) keep the excess within 0.35 µs
/// (at 64 KiB −0.9 to +0.3 µs, within 5% of the echo); at 4 KiB and below two
/// slots do (the paper's sizes: −180 to +210 ns), where lanes of 16 to 128 KiB
/// missed by 0.2 to 0.3 µs either way. A machine with other caches may need
/// other spans: the one-link check says so.
///
/// These figures predate the wash between iterations (see the module doc). With
/// it and this rule, two sweeps from 4 to 64 KiB left one point below zero by
/// more than its deviation (channel `U` at 8 KiB, −66 ± 60 ns) and the check
/// at −730 to +340 ns, within 10% of the echo at 32 KiB, where it is widest.
///
/// The Xeon's L2 holds 2 MiB; the two-vCPU AMD EPYC VM (Zen 3) has 512 KiB, and
/// there lanes of 128 KiB missed the other way: at 16 KiB, the points measured
/// in the near state of the module doc's probes, from 12 interleaved runs with
/// 2 and 8 slots and 4 with 4 and 16 (both transports, both `Q`s, medians over
/// points):
///
/// | 16 KiB on the EPYC | 2 slots | 4 | 8 | 16 |
/// |---|---|---|---|---|
/// | one-link excess, mailbox / channel | +18 / +13 ns | −943 / −605 | −956 / −822 | −1219 / −946 |
/// | `(T2 − T1)/2 − (T5 − T4)/2` | 192 / 88 ns | 298 / 351 | 382 / 594 | 684 / 117 |
/// | points below zero by more than their sd | 2 of 29 | 3 of 11 | 8 of 31 | 0 of 9 |
///
/// A negative excess is a first link cheaper than the hops `E` comes from, and
/// the solve takes it from `U` (at 8 slots `U` = −39 and −89 ns against a timed
/// `(A + U) − A alone` of 530). Lanes of a sixteenth of the L2 give both
/// machines the span that did best on them: 128 KiB on the Xeon, 32 KiB (two
/// slots at 16 KiB) on the EPYC. It is a rule drawn from two machines; the
/// one-link check says where it misses.
pub(super) fn slots_for(size: usize, span: usize) -> usize {
    if size <= TWO_SLOTS_UP_TO {
        return 2;
    }
    let slot = store_and_forward(size, 2).slot_bytes;
    span.div_ceil(slot).next_power_of_two().max(2)
}

/// What a lane's slots span together for messages beyond [`TWO_SLOTS_UP_TO`]
/// on `cpus` ([`slots_for`]): a sixteenth of their smallest L2, or
/// [`LANE_SPAN_UNKNOWN`] where the machine reports none.
pub(super) fn lane_span(topology: &Topology, cpus: &[usize]) -> usize {
    cache_sizes(topology, cpus, 2)
        .map(|size| usize::try_from(size / 16).unwrap_or(usize::MAX))
        .min()
        .unwrap_or(LANE_SPAN_UNKNOWN)
}

/// The longest message whose lanes have two slots, bytes.
pub(super) const TWO_SLOTS_UP_TO: usize = 4096;

/// A lane's span where the machine reports no L2, bytes: a sixteenth of the
/// Xeon's 2 MiB, the span of the transports' default ring (64 slots of 2 KiB).
pub(super) const LANE_SPAN_UNKNOWN: usize = 128 * 1024;

/// Batches a probe takes the least of ([`probe`]).
pub(super) const PROBE_BATCHES: usize = 3;
/// Cache-line round trips in a batch.
pub(super) const PROBE_LINE_TRIPS: u64 = 500;
/// Round trips of [`PROBE_BULK_BYTES`] in a batch.
pub(super) const PROBE_BULK_TRIPS: u64 = 10;
/// The bulk probe's message, bytes: the longest of the default sweep.
pub(super) const PROBE_BULK_BYTES: usize = 65_536;

/// The two CPUs' round trips at one moment, ns ([`probe`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Probe {
    /// A cache line there and back: the two-flag ping-pong.
    pub(super) line_ns: f64,
    /// 64 KiB there and back through the mailbox.
    pub(super) bulk_ns: f64,
}

impl Probe {
    /// No probe (one CPU).
    pub(super) const NONE: Probe = Probe {
        line_ns: f64::NAN,
        bulk_ns: f64::NAN,
    };
}

/// The two CPUs' round trips now, on `team`'s two CPUs: the least mean of
/// [`PROBE_BATCHES`] batches of the two-flag ping-pong
/// ([`crate::kernels::harness::flags::atomic_flag_round_trip`]) and of the mailbox's
/// ping-pong of 64 KiB ([`crate::kernels::harness::pair::round_trip_time`]), about
/// half a millisecond in all.
///
/// A virtual machine's host can move its virtual CPUs or load the machine
/// under them while it runs, and the message costs move with that: on a
/// two-vCPU AMD EPYC VM (Zen 3) the decomposition took states that lasted
/// milliseconds to minutes, a hop of 64 KiB 4.2 µs in one and 13 µs in the
/// other, while a copy within a CPU (the timed read `A + U` at 64 KiB, 1.45 to
/// 1.64 µs) cost the same in both. The probes before and after each size's
/// team run say which state that size was measured in.
pub(super) fn probe(team: &Team) -> Result<Probe, KernelError> {
    let mut p = Probe {
        line_ns: f64::INFINITY,
        bulk_ns: f64::INFINITY,
    };
    for _ in 0..PROBE_BATCHES {
        let line = crate::kernels::harness::flags::atomic_flag_round_trip(team, PROBE_LINE_TRIPS)?;
        p.line_ns = p
            .line_ns
            .min(line.as_nanos() as f64 / PROBE_LINE_TRIPS as f64);
        let bulk = crate::kernels::harness::pair::round_trip_time(
            team,
            TransportKind::Mailbox,
            PROBE_BULK_BYTES,
            PROBE_BULK_TRIPS,
        )?;
        p.bulk_ns = p
            .bulk_ns
            .min(bulk.as_nanos() as f64 / PROBE_BULK_TRIPS as f64);
    }
    Ok(p)
}
