//! The flag primitives: two cache-padded `AtomicU64` flags bounced between
//! two pinned threads (`FlagPair`), and the copy round trip beside it
//! ([`CopyPair`]). The two flags are the simplest honest baseline for the
//! 8-byte ping-pong (scibench's `pingpong` reports them beside every
//! transport: whatever the mailbox adds, headers, lengths, credits and
//! deadline checks, shows as the difference), the probe of the machine's
//! state ([`super::probe`]) that kernels time beside their own measurements,
//! and the line probe of the decomposition.

use super::timing::Timer;
use crate::control::RankError;
use crate::primitive::{AtomicU64, Ordering, UnsafeCell};
use crate::team::{RankCtx, Team, TeamError};
use crossbeam_utils::CachePadded;
use std::hint::black_box;
use std::time::Duration;

/// The two flags, each on its own cache lines; each rank writes one and polls
/// the other.
#[derive(Default)]
pub(crate) struct FlagPair {
    /// Written by rank 0: the number of the round trip it started last.
    ping: CachePadded<AtomicU64>,
    /// Written by rank 1: the number of the round trip it answered last.
    pong: CachePadded<AtomicU64>,
}

impl FlagPair {
    /// Rank `ctx.rank`'s side of round trips `done + 1 ..= done + reps` (both
    /// ranks count the round trips done on this pair alike); returns its time.
    #[inline(never)]
    pub(crate) fn round_trips(
        &self,
        ctx: &RankCtx<'_>,
        done: u64,
        reps: u64,
    ) -> Result<Duration, RankError> {
        let (mine, theirs) = if ctx.rank == 0 {
            (&self.ping, &self.pong)
        } else {
            (&self.pong, &self.ping)
        };
        let timer = Timer::start();
        for i in done + 1..=done + reps {
            if ctx.rank == 0 {
                // Release/Acquire: the same pairing the mailbox uses for its flag.
                mine.store(i, Ordering::Release);
            }
            ctx.control.spin_until(1 - ctx.rank, || {
                (theirs.load(Ordering::Acquire) == i).then_some(())
            })?;
            if ctx.rank == 1 {
                mine.store(i, Ordering::Release);
            }
        }
        Ok(timer.elapsed())
    }
}

/// Untimed round trips before the timed ones, as many as the transports'
/// [`super::pair::round_trip_time`] runs at 8 bytes (one lap of the mailbox's 64-slot
/// ring): they also absorb the ranks' start, so that neither side of a paired
/// batch times the other rank's thread coming up (tens of microseconds, which
/// in batches of a few round trips made the flags look hundreds of times slower).
const WARM_UP_ROUND_TRIPS: u64 = 64;

/// Times `reps` round trips of the two-flag ping-pong on the team's two ranks,
/// after 64 untimed ones (`WARM_UP_ROUND_TRIPS`); returns rank 0's time.
pub fn atomic_flag_round_trip(team: &Team, reps: u64) -> Result<Duration, TeamError> {
    let flags = FlagPair::default();
    let times = team.run("pingpong-baseline", vec![(); 2], |ctx, _| {
        flags.round_trips(ctx, 0, WARM_UP_ROUND_TRIPS)?;
        flags.round_trips(ctx, WARM_UP_ROUND_TRIPS, reps)
    })?;
    Ok(times[0])
}

/// Times `reps` round trips of `copy` on the team's two ranks, after 64
/// untimed ones (`WARM_UP_ROUND_TRIPS`), numbered on from `done` (both ranks
/// count alike), which it advances past them; returns rank 0's time.
pub fn copy_round_trip(
    team: &Team,
    copy: &CopyPair,
    done: &mut u64,
    reps: u64,
) -> Result<Duration, TeamError> {
    let from = *done;
    let times = team.run("copy-probe", vec![(); 2], |ctx, _| {
        copy.round_trips(ctx, from, WARM_UP_ROUND_TRIPS)?;
        copy.round_trips(ctx, from + WARM_UP_ROUND_TRIPS, reps)
    })?;
    *done = from + WARM_UP_ROUND_TRIPS + reps;
    Ok(times[0])
}

/// Bytes each way of one round trip of the copy probe ([`CopyPair`]): 32 KiB,
/// half of the largest default message, so that the probe crosses the same
/// caches as the messages that decide `t_per_byte` and stays within L2.
pub const COPY_PROBE_BYTES: usize = 32 * 1024;

/// The copy probe: the cross-core copy that a message's bytes make, with no
/// transport. Per direction a flag and a buffer ([`COPY_PROBE_BYTES`]); in a
/// round trip rank 0 copies its message into its buffer and raises its flag,
/// rank 1 copies that buffer out, copies its own message into its own buffer
/// and raises its flag, and rank 0 copies that out: a ping-pong's copies
/// (`copy_nonoverlapping`, as the mailbox's payloads), without slots,
/// headers or credit. Its time per byte one way ([`CopyPair::ns_per_byte`])
/// is what a transport's `t_per_byte` is set beside in `compare`, as a
/// latency beside the two-flag round trip: on a shared host the rate of
/// cross-core copies moves while one line's round trip holds still (a 2-vCPU
/// EPYC VM's mailbox `t_per_byte` took 0.123 to 0.156 ns/B in five quick runs
/// whose round trips all read 100 to 104 ns; a 64 KiB copy between its two
/// threads took 0.127, 0.133 and 0.145 ns/B in three processes, the same
/// within 5 % over 16 buffers in each).
///
/// # Memory ordering
/// A rank's `Release` store of its flag ([`CopyPair::put`]) publishes its
/// copy into its buffer; the peer's `Acquire` load that sees the flag
/// ([`CopyPair::arrived`]) orders its copy out ([`CopyPair::take`]) after it.
/// The loom model `copy_probe_hands_every_word_over` (`tests/loom_sync.rs`)
/// checks it.
pub struct CopyPair {
    /// `flags[r]` is written by rank `r`: the round trip whose copy it put last.
    flags: [CachePadded<AtomicU64>; 2],
    /// `bufs[r]` is written by rank `r` and read by the other.
    bufs: [UnsafeCell<Box<[u8]>>; 2],
    /// Bytes each way: the buffers' length.
    bytes: usize,
}

// SAFETY: a buffer is written only by its rank's `put` and read only by the
// peer's `take`, and `put`'s and `take`'s contracts (one rank per side, a put
// only after taking the peer's previous copy, a take only once `arrived`) keep
// the two apart, ordered by the flags' Release and Acquire.
unsafe impl Sync for CopyPair {}

impl Default for CopyPair {
    fn default() -> CopyPair {
        CopyPair::with_bytes(COPY_PROBE_BYTES)
    }
}

impl CopyPair {
    /// A copy probe of `bytes` each way (at least 16; the loom model's are
    /// small).
    pub fn with_bytes(bytes: usize) -> CopyPair {
        let bytes = bytes.max(16);
        let buf = || UnsafeCell::new(vec![0u8; bytes].into_boxed_slice());
        CopyPair {
            flags: [
                CachePadded::new(AtomicU64::new(0)),
                CachePadded::new(AtomicU64::new(0)),
            ],
            bufs: [buf(), buf()],
            bytes,
        }
    }

    /// Bytes each way.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Rank `me`'s side of round trip `i`: `message` (the probe's size) into
    /// its buffer, with `i` in its first and last eight bytes, then its flag.
    ///
    /// # Safety
    /// Only rank `me` (0 or 1) puts for `me`, and not before it has taken its
    /// peer's copy of round trip `i - 1` (rank 0) or `i` (rank 1), so that the
    /// peer is done reading the buffer.
    #[inline(always)]
    pub unsafe fn put(&self, me: usize, i: u64, message: &mut [u8]) {
        let n = message.len();
        message[..8].copy_from_slice(&i.to_le_bytes());
        message[n - 8..].copy_from_slice(&i.to_le_bytes());
        self.bufs[me].with_mut(|p| {
            // SAFETY: the caller's contract: the peer is not reading; the
            // lengths are checked by the slice copy.
            unsafe { (&mut *p).copy_from_slice(message) }
        });
        // Release: publishes the copy to the peer's Acquire in `arrived`.
        self.flags[me].store(i, Ordering::Release);
    }

    /// Whether rank `me`'s peer has put round trip `i`.
    #[inline(always)]
    pub fn arrived(&self, me: usize, i: u64) -> bool {
        // Acquire: pairs with the peer's Release in `put`; its copy is visible.
        self.flags[1 - me].load(Ordering::Acquire) == i
    }

    /// Rank `me` copies its peer's buffer into `into` (the probe's size);
    /// whether its first and last eight bytes hold round trip `i`.
    ///
    /// # Safety
    /// Only rank `me` takes for `me`, and only once [`CopyPair::arrived`] has
    /// seen round trip `i`, so that the peer is done writing the buffer.
    #[inline(always)]
    pub unsafe fn take(&self, me: usize, i: u64, into: &mut [u8]) -> bool {
        self.bufs[1 - me].with(|p| {
            // SAFETY: the caller's contract: the peer is not writing.
            into.copy_from_slice(unsafe { &*p })
        });
        let n = into.len();
        into[..8] == i.to_le_bytes() && into[n - 8..] == i.to_le_bytes()
    }

    /// Rank `ctx.rank`'s side of round trips `done + 1 ..= done + reps` (both
    /// ranks count them alike); returns its time. A copy that does not carry
    /// its round trip's number fails the probe, since its time would then not
    /// be a copy's.
    #[inline(never)]
    pub(crate) fn round_trips(
        &self,
        ctx: &RankCtx<'_>,
        done: u64,
        reps: u64,
    ) -> Result<Duration, RankError> {
        let me = ctx.rank.min(1);
        // Written here, not zeroed: every page is mapped before the clock.
        let mut message = vec![1u8; self.bytes()];
        let mut into = vec![1u8; self.bytes()];
        let timer = Timer::start();
        let mut stale = 0u64;
        for i in done + 1..=done + reps {
            if me == 0 {
                // SAFETY: rank 0 alone puts for 0, after taking round trip
                // i - 1 (the loop's previous pass, or none).
                unsafe { self.put(me, i, &mut message) };
            }
            ctx.control
                .spin_until(1 - me, || self.arrived(me, i).then_some(()))?;
            // SAFETY: this rank alone takes for `me`, once `arrived` saw `i`.
            stale += u64::from(!unsafe { self.take(me, i, &mut into) });
            if me == 1 {
                // SAFETY: rank 1 alone puts for 1, after taking round trip i.
                unsafe { self.put(me, i, &mut message) };
            }
        }
        let took = timer.elapsed();
        black_box(&into);
        if stale > 0 {
            return Err(RankError::Failed(format!(
                "the copy probe read {stale} copies its peer had not written"
            )));
        }
        Ok(took)
    }

    /// A round trip's time over the bytes it moved one way and back: ns per
    /// byte one way.
    pub fn ns_per_byte(&self, round_trip_ns: f64) -> f64 {
        round_trip_ns / (2 * self.bytes) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 65,536 ns a round trip of 32 KiB each way is 1 ns a byte one way.
    #[test]
    fn the_copy_probe_s_time_is_per_byte_one_way() {
        assert_eq!(CopyPair::default().ns_per_byte(65_536.0), 1.0);
    }

    /// Two ranks (on two CPUs where there are two, else oversubscribed on
    /// one, blocking) run 50 copy round trips, then 50 more counted on from
    /// there: every copy each rank takes carries its round trip's number
    /// (else the probe fails), and both batches take some time.
    #[test]
    fn the_copy_probe_moves_every_word_each_round_trip() {
        let team = super::super::test_support::two_ranks();
        let copy = CopyPair::default();
        let times = team
            .run("copy-probe", vec![(); 2], |ctx, _| {
                let a = copy.round_trips(ctx, 0, 50)?;
                let b = copy.round_trips(ctx, 50, 50)?;
                Ok((a, b))
            })
            .unwrap();
        assert!(
            times
                .iter()
                .all(|(a, b)| *a > Duration::ZERO && *b > Duration::ZERO)
        );
        // SAFETY: the team has ended; nobody writes the buffers.
        let last = |r: usize| copy.bufs[r].with(|p| unsafe { (&*p)[..8].to_vec() });
        assert_eq!(last(0), 100u64.to_le_bytes());
        assert_eq!(last(1), 100u64.to_le_bytes());
    }
}
