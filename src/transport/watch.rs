//! The watch word of a blocking wait: how a thread that blocks in a call it
//! cannot interrupt (the mpi transport's `MPI_Recv` and `MPI_Send`) still
//! keeps a deadline. The waiting thread writes one word as it enters the call
//! ([`WatchWord::arm`]: a sequence number and the peer it waits for) and as
//! it leaves ([`WatchWord::disarm`]: the sequence number alone); a watchdog
//! thread samples the word every tick ([`Watcher::sample`]) and reports a
//! stall when it has seen the same armed value for at least the deadline.
//!
//! Each arm takes a new sequence number, so an unchanged armed value is one
//! wait, never two alike in a row. The watcher dates a value from the first
//! sample that saw it, which is after the wait began: it never reports a
//! wait shorter than the deadline, and reports a stuck one at most one tick
//! after the deadline has passed.
//!
//! The hot path is two plain stores and a load of the thread's own last store
//! (no read-modify-write, no fence): on x86 and AArch64 each is one ordinary
//! `mov`/`str`. Only the thread that arms writes the word. Built always (not
//! only with `--features mpi`) so that `tests/loom_watch.rs` models it.

use crate::primitive::{AtomicU64, Ordering};
use std::time::Duration;

/// Bits of the word that hold the peer (plus one; zero: no wait).
const PEER_BITS: u32 = 24;
const PEER_MASK: u64 = (1 << PEER_BITS) - 1;

/// The peer a stalled wait names when its rank does not fit the word (or
/// when it waits for no one rank).
pub const UNKNOWN_PEER: usize = PEER_MASK as usize - 1;

/// One thread's blocking waits, as a watchdog sees them (see the module doc).
#[derive(Debug)]
pub struct WatchWord {
    word: AtomicU64,
}

impl Default for WatchWord {
    fn default() -> WatchWord {
        WatchWord::new()
    }
}

impl WatchWord {
    /// A word with no wait in it.
    #[cfg(not(loom))]
    pub const fn new() -> WatchWord {
        WatchWord {
            word: AtomicU64::new(0),
        }
    }

    /// A word with no wait in it.
    #[cfg(loom)]
    pub fn new() -> WatchWord {
        WatchWord {
            word: AtomicU64::new(0),
        }
    }

    /// Marks the start of a blocking wait for `peer`; returns the wait's
    /// sequence number, for [`WatchWord::disarm`]. Only one thread may arm a
    /// given word.
    #[inline(always)]
    pub fn arm(&self, peer: usize) -> u64 {
        // Relaxed: only this thread writes the word, so the load returns its
        // own last store. The store publishes nothing but itself: the watchdog
        // acts only on a value it has seen unchanged for a whole deadline,
        // and coherence makes a later store visible to it long before that.
        let seq = (self.word.load(Ordering::Relaxed) >> PEER_BITS) + 1;
        let field = peer.min(UNKNOWN_PEER) as u64 + 1;
        self.word
            .store((seq << PEER_BITS) | field, Ordering::Relaxed);
        seq
    }

    /// Marks the end of wait `seq` (from [`WatchWord::arm`]).
    #[inline(always)]
    pub fn disarm(&self, seq: u64) {
        // Relaxed: as in `arm`.
        self.word.store(seq << PEER_BITS, Ordering::Relaxed);
    }

    /// The word as the watchdog reads it.
    #[inline]
    fn read(&self) -> u64 {
        // Relaxed: see `arm`; a stale value only delays a report.
        self.word.load(Ordering::Relaxed)
    }
}

/// A wait the watchdog found stuck.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stalled {
    /// The peer it waits for ([`UNKNOWN_PEER`] when not known).
    pub peer: usize,
    /// Its sequence number.
    pub seq: u64,
    /// How long the watchdog has seen it, at least.
    pub waited: Duration,
}

/// The watchdog's view of a [`WatchWord`]: the value it saw last and since
/// when (time on any clock that only moves forward, as a [`Duration`] from its
/// origin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watcher {
    value: u64,
    since: Duration,
}

impl Watcher {
    /// A watcher that has seen no wait, at time `now`.
    pub fn new(now: Duration) -> Watcher {
        Watcher {
            value: 0,
            since: now,
        }
    }

    /// Samples `word` at time `now`: the wait it holds, if that wait has been
    /// seen armed and unchanged for at least `deadline`.
    pub fn sample(
        &mut self,
        word: &WatchWord,
        now: Duration,
        deadline: Duration,
    ) -> Option<Stalled> {
        let value = word.read();
        if value != self.value {
            self.value = value;
            self.since = now;
            return None;
        }
        let field = value & PEER_MASK;
        let waited = now.saturating_sub(self.since);
        (field != 0 && waited >= deadline).then_some(Stalled {
            peer: (field - 1) as usize,
            seq: value >> PEER_BITS,
            waited,
        })
    }
}

/// How often a watchdog samples for `deadline`: a quarter of it, between
/// 1 ms and 250 ms (a stall is then reported at most that long after the
/// deadline, and the watchdog wakes at most four times a second on long
/// deadlines).
pub fn tick(deadline: Duration) -> Duration {
    (deadline / 4).clamp(Duration::from_millis(1), Duration::from_millis(250))
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// Each arm takes the next sequence number and names its peer; a disarm
    /// leaves the number with no peer; a rank too large for the word is named
    /// unknown.
    #[test]
    fn arms_count_and_name_the_peer() {
        let w = WatchWord::new();
        assert_eq!(w.read(), 0);
        assert_eq!(w.arm(1), 1);
        assert_eq!(w.read(), (1 << PEER_BITS) | 2);
        w.disarm(1);
        assert_eq!(w.read(), 1 << PEER_BITS);
        assert_eq!(w.arm(0), 2);
        assert_eq!(w.read(), (2 << PEER_BITS) | 1);
        w.disarm(2);
        assert_eq!(w.arm(usize::MAX), 3);
        assert_eq!(w.read() & PEER_MASK, UNKNOWN_PEER as u64 + 1);
    }

    /// A deadline of 100 ms sampled every 25 ms: a wait armed between the
    /// samples at 500 and 525 ms is first seen at 525 and reported at 625 ms
    /// (seen for 100 ms), not before; a wait that ends and a new one that
    /// starts between two samples restart the count; a disarmed word is never
    /// reported however long it stays.
    #[test]
    fn a_stall_is_reported_once_seen_for_the_deadline() {
        let deadline = 100 * MS;
        let w = WatchWord::new();
        let mut watcher = Watcher::new(Duration::ZERO);
        assert_eq!(watcher.sample(&w, Duration::ZERO, deadline), None);
        assert_eq!(watcher.sample(&w, 500 * MS, deadline), None, "no wait");
        let first = w.arm(1);
        let seen: Vec<bool> = (1..=5)
            .map(|k| {
                watcher
                    .sample(&w, 500 * MS + k * 25 * MS, deadline)
                    .is_some()
            })
            .collect();
        assert_eq!(seen, [false, false, false, false, true]);
        assert_eq!(
            watcher.sample(&w, 650 * MS, deadline),
            Some(Stalled {
                peer: 1,
                seq: first,
                waited: 125 * MS
            })
        );
        // Ends, and the next wait (for rank 3) begins before the next sample.
        w.disarm(first);
        let second = w.arm(3);
        assert_eq!(watcher.sample(&w, 675 * MS, deadline), None);
        assert_eq!(watcher.sample(&w, 750 * MS, deadline), None);
        assert_eq!(
            watcher
                .sample(&w, 775 * MS, deadline)
                .map(|s| (s.peer, s.seq)),
            Some((3, second))
        );
        w.disarm(second);
        for k in 0..10 {
            assert_eq!(watcher.sample(&w, (800 + 100 * k) * MS, deadline), None);
        }
    }

    /// Waits shorter than a tick, one after another, are never reported: every
    /// sample sees a new sequence number.
    #[test]
    fn short_waits_in_a_row_are_never_reported() {
        let w = WatchWord::new();
        let mut watcher = Watcher::new(Duration::ZERO);
        for k in 1..=1000u32 {
            let seq = w.arm(1);
            assert_eq!(watcher.sample(&w, k * 50 * MS, 10 * MS), None, "wait {seq}");
            w.disarm(seq);
        }
    }

    /// A quarter of the deadline, within 1 and 250 ms.
    #[test]
    fn the_tick_is_a_quarter_of_the_deadline_within_bounds() {
        assert_eq!(tick(Duration::from_millis(2000)), 250 * MS);
        assert_eq!(tick(Duration::from_millis(10_000)), 250 * MS);
        assert_eq!(tick(Duration::from_millis(400)), 100 * MS);
        assert_eq!(tick(Duration::from_millis(2)), MS);
    }
}
