//! BARRIER: all processors meet at the end of every segment, the modern name for
//! what Hockney's EVENTS program (Fig. 5) does with two events. Three builds:
//! `std::sync::Barrier` (a mutex and condition variable: waiters sleep), used as
//! it is by the kernels; [`SpinBarrier`], the dissemination barrier on flags
//! (Hensgen, Finkel and Manber's, as Mellor-Crummey and Scott give it), which
//! `hockney-sync`'s barrier-spin times; and [`CentralBarrier`], the
//! sense-reversing centralised barrier (Mellor-Crummey and Scott's "central
//! barrier with sense reversal"), which `examples/barrier_wander.rs` times beside
//! it.
//!
//! Why the dissemination barrier is the one measured: between two processors it
//! is one flag written by each and read by the other, so a meeting costs one
//! line crossing each way at once, half the two-flag round trip, in whatever
//! state the machine is. The central barrier's meeting is a race of two
//! read-modify-writes on one counter line and a flip of a shared sense, and
//! how the two processors fall into it (which one arrives last, and so leaves
//! first) settles for seconds at a time: on a 2-vCPU VM its meetings took
//! 0.34 to 0.54 of the round trip from one 3.5 s window to the next with the
//! round trip unmoved, so `t_0` measured the race's mode of the run, not the
//! machine (the measurements are in the commit history).
//!
//! How a party waits is the caller's [`Poll`]. `hockney-sync` polls bare:
//! with the spin-loop hint a party looks at its partner's flag once a
//! pause, and where a pause is a quarter of the round trip (recent x86) the
//! meeting took one of three levels a pause or so apart, each for seconds
//! ([`Poll::hint_pause_ns`] measures the pause).
//!
//! `std::sync::Barrier` has no timeout: a stalled processor would hang it. The
//! kernels only wait on it inside a segment loop whose other waits cannot fail.
//!
//! # Memory ordering
//! [`SpinBarrier`]: in round `k` of an episode a party stores the episode's
//! number in its own flag of that round with `Release` and reads its partner's
//! with `Acquire` until it holds at least that number. Each store publishes all
//! the party has written and acquired before it, and happens-before is
//! transitive, so after the last round every party has acquired every other's
//! writes made before the barrier. A flag has one writer and only grows, so a
//! partner already in the next episode cannot hide this one.
//!
//! [`CentralBarrier`]: every arrival decrements the counter with `AcqRel`, so the
//! last arriver has acquired every earlier arriver's writes; it then resets the
//! counter (`Relaxed`: nobody arrives at the next phase before seeing the new
//! sense) and publishes the new sense with `Release`; the waiters read it with
//! `Acquire`. After the barrier every processor sees every other's writes made
//! before it.

use super::Poll;
use crate::control::{RankError, TeamControl};
use crate::primitive::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use crossbeam_utils::CachePadded;

/// The dissemination barrier for a fixed number of parties, on flags: in round
/// `k` (of `ceil(log2 P)`) party `r` signals `r + 2^k` and waits for the signal
/// of `r - 2^k`, mod `P`. At `P = 2`: each party writes its flag and waits for
/// the other's.
#[derive(Debug)]
pub struct SpinBarrier {
    /// `flags[k * parties + r]`: the last episode party `r` signalled in round
    /// `k`. Written by `r` alone, read by `r + 2^k`.
    flags: Box<[CachePadded<AtomicU64>]>,
    parties: usize,
    rounds: usize,
}

/// One party's count of the episodes it has entered; start each party with
/// `Episode::default()`.
#[derive(Debug, Default, Clone, Copy)]
pub struct Episode(u64);

impl SpinBarrier {
    /// A barrier for `parties` (at least 1).
    pub fn new(parties: usize) -> SpinBarrier {
        assert!(parties >= 1, "a barrier needs at least one party");
        let rounds = parties.next_power_of_two().trailing_zeros() as usize;
        SpinBarrier {
            flags: (0..rounds * parties)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            parties,
            rounds,
        }
    }

    /// Party `rank` arrives and waits until all parties have arrived. A deadline
    /// error names the party it was waiting for.
    #[inline]
    pub fn wait(
        &self,
        rank: usize,
        local: &mut Episode,
        poll: Poll,
        control: &TeamControl,
    ) -> Result<(), RankError> {
        local.0 += 1;
        let episode = local.0;
        let p = self.parties;
        let mut dist = 1;
        for k in 0..self.rounds {
            // Release: publishes this party's writes, and all it acquired in the
            // rounds before, to the partner that reads this flag.
            self.flags[k * p + rank].store(episode, Ordering::Release);
            let from = (rank + p - dist) % p;
            let flag = &self.flags[k * p + from];
            // Acquire: pairs with the partner's Release store of its flag.
            poll.until(control, from, || flag.load(Ordering::Acquire) >= episode)?;
            dist *= 2;
        }
        Ok(())
    }
}

/// A sense-reversing centralised spin barrier for a fixed number of parties.
#[derive(Debug)]
pub struct CentralBarrier {
    remaining: CachePadded<AtomicUsize>,
    sense: CachePadded<AtomicBool>,
    parties: usize,
}

/// One party's private sense; start each party with `LocalSense::default()`.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalSense(bool);

impl CentralBarrier {
    /// A barrier for `parties` (at least 1).
    pub fn new(parties: usize) -> CentralBarrier {
        assert!(parties >= 1, "a barrier needs at least one party");
        CentralBarrier {
            remaining: CachePadded::new(AtomicUsize::new(parties)),
            sense: CachePadded::new(AtomicBool::new(false)),
            parties,
        }
    }

    /// Arrives and waits until all parties have arrived. `peer` names a party
    /// for the deadline error (the barrier cannot tell which one is missing).
    #[inline]
    pub fn wait(
        &self,
        local: &mut LocalSense,
        poll: Poll,
        control: &TeamControl,
        peer: usize,
    ) -> Result<(), RankError> {
        local.0 = !local.0;
        // AcqRel: the last arriver acquires all earlier arrivals' writes and
        // releases its own into the sense flip below.
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Relaxed: ordered before the Release store of the sense.
            self.remaining.store(self.parties, Ordering::Relaxed);
            // Release: publishes all arrivals' writes to the waiters.
            self.sense.store(local.0, Ordering::Release);
            return Ok(());
        }
        let want = local.0;
        // Acquire: pairs with the Release of the sense flip.
        poll.until(control, peer, || self.sense.load(Ordering::Acquire) == want)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::WaitStrategy;
    use std::time::Duration;

    /// Each of `parties` threads meets the others 300 times at `wait` and
    /// checks that nobody left an episode before everyone arrived.
    fn no_party_leaves_early(parties: usize, wait: impl Fn(usize) + Sync) {
        let arrived = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for rank in 0..parties {
                let (arrived, wait) = (&arrived, &wait);
                s.spawn(move || {
                    for phase in 1..=300 {
                        arrived.fetch_add(1, Ordering::Relaxed);
                        wait(rank);
                        assert!(arrived.load(Ordering::Relaxed) >= parties * phase);
                        wait(rank);
                    }
                });
            }
        });
    }

    fn control(parties: usize) -> std::sync::Arc<TeamControl> {
        TeamControl::new(vec![WaitStrategy::Block; parties], Duration::from_secs(5))
    }

    #[test]
    fn the_dissemination_barrier_lets_nobody_leave_early() {
        // 1 and 2 parties, a power of two, and two that are not (whose last
        // round's partners wrap around).
        for parties in [1, 2, 3, 4, 5] {
            let control = control(parties);
            let barrier = SpinBarrier::new(parties);
            let episodes: Vec<_> = (0..parties)
                .map(|_| std::sync::Mutex::new(Episode::default()))
                .collect();
            no_party_leaves_early(parties, |rank| {
                let mut e = episodes[rank].lock().unwrap();
                barrier.wait(rank, &mut e, Poll::Yield, &control).unwrap();
            });
        }
    }

    #[test]
    fn the_central_barrier_lets_nobody_leave_early() {
        let control = control(3);
        let barrier = CentralBarrier::new(3);
        let senses: Vec<_> = (0..3)
            .map(|_| std::sync::Mutex::new(LocalSense::default()))
            .collect();
        no_party_leaves_early(3, |rank| {
            let mut sense = senses[rank].lock().unwrap();
            barrier.wait(&mut sense, Poll::Yield, &control, 0).unwrap();
        });
    }

    #[test]
    fn a_missing_party_is_named_in_the_deadline_error() {
        let control = TeamControl::new(vec![WaitStrategy::Block; 2], Duration::from_millis(50));
        let barrier = SpinBarrier::new(2);
        let err = barrier
            .wait(0, &mut Episode::default(), Poll::Yield, &control)
            .unwrap_err();
        assert!(
            matches!(err, RankError::Deadline { peer: 1, .. }),
            "{err:?}"
        );
    }
}
