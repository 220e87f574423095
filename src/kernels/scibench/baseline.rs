//! The simplest honest baseline for the 8-byte ping-pong: two cache-padded
//! `AtomicU64` flags bounced between two pinned threads. Whatever the mailbox adds
//! to this (headers, lengths, credits, deadline checks) shows as the difference.

use crate::control::RankError;
use crate::team::{Team, TeamError};
use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Times `reps` round trips of the two-flag ping-pong on the team's two ranks;
/// returns rank 0's time.
pub fn atomic_flag_round_trip(team: &Team, reps: u64) -> Result<Duration, TeamError> {
    let ping = CachePadded::new(AtomicU64::new(0));
    let pong = CachePadded::new(AtomicU64::new(0));
    let times = team.run("pingpong-baseline", vec![(); 2], |ctx, _| {
        let (mine, theirs) = if ctx.rank == 0 {
            (&ping, &pong)
        } else {
            (&pong, &ping)
        };
        let start = Instant::now();
        for i in 1..=reps {
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
        Ok::<_, RankError>(start.elapsed())
    })?;
    Ok(times[0])
}
