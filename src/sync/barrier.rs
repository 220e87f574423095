//! BARRIER: all processors meet at the end of every segment, the modern name for
//! what Hockney's EVENTS program (Fig. 5) does with two events. Two builds:
//! `std::sync::Barrier` (a mutex and condition variable: waiters sleep), used as
//! it is by the kernels, and [`SpinBarrier`], a sense-reversing centralised barrier
//! (Mellor-Crummey and Scott's "central barrier with sense reversal") whose
//! waiters poll one flag.
//!
//! `std::sync::Barrier` has no timeout: a stalled processor would hang it. The
//! kernels only wait on it inside a segment loop whose other waits cannot fail.
//!
//! # Memory ordering
//! Every arrival decrements the counter with `AcqRel`, so the last arriver has
//! acquired every earlier arriver's writes; it then resets the counter (`Relaxed`:
//! nobody arrives at the next phase before seeing the new sense) and publishes the
//! new sense with `Release`; the waiters read it with `Acquire`. After the barrier
//! every processor sees every other's writes made before it.

use super::Poll;
use crate::control::{RankError, TeamControl};
use crate::primitive::{AtomicBool, AtomicUsize, Ordering};
use crossbeam_utils::CachePadded;

/// A sense-reversing spin barrier for a fixed number of parties.
#[derive(Debug)]
pub struct SpinBarrier {
    remaining: CachePadded<AtomicUsize>,
    sense: CachePadded<AtomicBool>,
    parties: usize,
}

/// One party's private sense; start each party with `LocalSense::default()`.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalSense(bool);

impl SpinBarrier {
    /// A barrier for `parties` (at least 1).
    pub fn new(parties: usize) -> SpinBarrier {
        assert!(parties >= 1, "a barrier needs at least one party");
        SpinBarrier {
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

    #[test]
    fn no_party_leaves_a_phase_before_all_arrive() {
        let control = TeamControl::new(vec![WaitStrategy::Block; 3], Duration::from_secs(5));
        let barrier = SpinBarrier::new(3);
        let arrived = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    let mut sense = LocalSense::default();
                    for phase in 1..=300 {
                        arrived.fetch_add(1, Ordering::Relaxed);
                        barrier.wait(&mut sense, Poll::Yield, &control, 0).unwrap();
                        assert!(arrived.load(Ordering::Relaxed) >= 3 * phase);
                        barrier.wait(&mut sense, Poll::Yield, &control, 0).unwrap();
                    }
                });
            }
        });
    }
}
