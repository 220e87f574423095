//! The simplest honest baseline for the 8-byte ping-pong: two cache-padded
//! `AtomicU64` flags bounced between two pinned threads. Whatever the mailbox adds
//! to this (headers, lengths, credits, deadline checks) shows as the difference.
//! The same loop is the probe of the machine's state ([`crate::kernels::probe`])
//! that the ping-pong times once a round beside its messages.

use crate::control::RankError;
use crate::team::{RankCtx, Team, TeamError};
use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

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
        let start = Instant::now();
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
        Ok(start.elapsed())
    }
}

/// Untimed round trips before the timed ones, as many as the transports'
/// [`super::round_trip_time`] runs at 8 bytes (one lap of the mailbox's 64-slot
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
