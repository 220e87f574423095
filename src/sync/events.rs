//! EVENTS (Hockney, Fig. 5): `EVPOST`, `EVWAIT` and `EVCLEAR` on two events, one
//! each way. Each processor does its half of the segment, posts its own event and
//! waits for (then clears) the other's: the two meet at the end of every segment.
//!
//! Two builds of the same event:
//! - [`Event`]: a flag under a parking_lot `Mutex` with a `Condvar`, the textbook
//!   event (the waiter sleeps in the condition variable at once, no spinning).
//! - [`ParkEvent`]: an atomic flag and the waiting thread's `Thread::unpark` /
//!   `thread::park` (on Linux a futex word per thread): the cheapest blocking
//!   hand-off the standard library offers.
//!
//! # Order of the calls
//! Fig. 5 has the master post, then wait and clear, and the worker the same. Read
//! literally that can lose a post: after the master's `EVPOST(1)` the worker may
//! finish its next half and post `2` again before the master's `EVCLEAR(2)` wipes
//! it, and both then wait forever. The kernels therefore keep the worker's order
//! (post, wait, clear) and give the master wait, clear, post: the same three calls
//! per segment, and a post can no longer be cleared before it is seen, because
//! each side clears its event before it posts the one that lets the other post
//! again.
//!
//! # Memory ordering
//! A post releases (the mutex, or `Release` on the flag) and a wait that sees it
//! acquires (the mutex, or `Acquire`), so each side sees the other's half of the
//! result vector after the wait.

use crate::control::{RankError, TeamControl};
use crate::primitive::{AtomicBool, Ordering};
use crossbeam_utils::CachePadded;
use parking_lot::{Condvar, Mutex};
use std::sync::OnceLock;
use std::thread::Thread;

/// An event on a parking_lot mutex and condition variable.
#[derive(Debug, Default)]
pub struct Event {
    posted: Mutex<bool>,
    changed: Condvar,
    /// A copy of `posted` that a waiter may read without the mutex
    /// ([`Event::peek`]): a hint of when to call `wait`, never what orders
    /// the data (the mutex does).
    seen: AtomicBool,
}

impl Event {
    /// A clear event.
    pub fn new() -> Event {
        Event::default()
    }

    /// `EVPOST`: sets the event and wakes its waiter.
    pub fn post(&self) {
        let mut posted = self.posted.lock();
        *posted = true;
        // Relaxed: a hint only; the waiter's `wait` takes the mutex.
        self.seen.store(true, Ordering::Relaxed);
        self.changed.notify_one();
    }

    /// `EVWAIT`: returns once the event is set (it stays set). `peer` names the
    /// processor expected to post it, for the deadline error.
    pub fn wait(&self, control: &TeamControl, peer: usize) -> Result<(), RankError> {
        let mut posted = self.posted.lock();
        let mut started = None;
        while !*posted {
            self.changed.wait_for(&mut posted, super::POLL_SLICE);
            if !*posted {
                control.check(peer, &mut started)?;
            }
        }
        Ok(())
    }

    /// `EVCLEAR`: clears the event.
    pub fn clear(&self) {
        let mut posted = self.posted.lock();
        *posted = false;
        // Relaxed: as in `post`, under the same mutex.
        self.seen.store(false, Ordering::Relaxed);
    }

    /// Whether the event looks set, read without the mutex: a waiter kept
    /// awake polls it before its `wait`, which then returns at once.
    #[inline]
    pub fn peek(&self) -> bool {
        // Relaxed: a hint; `wait` acquires the mutex before it returns.
        self.seen.load(Ordering::Relaxed)
    }

    /// Whether the event is set.
    pub fn is_posted(&self) -> bool {
        *self.posted.lock()
    }
}

/// An event on an atomic flag and thread park/unpark. Only the thread that
/// [`register`](ParkEvent::register)ed may wait on it.
#[derive(Debug, Default)]
pub struct ParkEvent {
    posted: CachePadded<AtomicBool>,
    waiter: OnceLock<Thread>,
}

impl ParkEvent {
    /// A clear event with no waiter yet.
    pub fn new() -> ParkEvent {
        ParkEvent::default()
    }

    /// Makes the calling thread the event's waiter. Must happen before any post
    /// that should wake it (the kernels register before their first batch);
    /// returns false if another thread registered first.
    pub fn register(&self) -> bool {
        let me = std::thread::current();
        let id = me.id();
        self.waiter.get_or_init(|| me).id() == id
    }

    /// `EVPOST`: sets the event and unparks the waiter (a futex wake only if it
    /// sleeps).
    #[inline]
    pub fn post(&self) {
        // Release: publishes this thread's writes to the waiter's Acquire load.
        self.posted.store(true, Ordering::Release);
        if let Some(t) = self.waiter.get() {
            t.unpark();
        }
    }

    /// `EVWAIT`: parks until the event is set. Called by the registered waiter.
    #[inline]
    pub fn wait(&self, control: &TeamControl, peer: usize) -> Result<(), RankError> {
        let mut started = None;
        // Acquire: pairs with the Release in `post`.
        while !self.posted.load(Ordering::Acquire) {
            // Under loom the waiter polls with a loom yield: the model checks the
            // flag's hand-off, not the futex.
            #[cfg(loom)]
            crate::primitive::spin_hint();
            #[cfg(not(loom))]
            std::thread::park_timeout(super::POLL_SLICE);
            if !self.posted.load(Ordering::Acquire) {
                control.check(peer, &mut started)?;
            }
        }
        Ok(())
    }

    /// Whether the event is set, without waiting: a waiter kept awake
    /// polls it before its `wait`, which then returns at once.
    #[inline]
    pub fn peek(&self) -> bool {
        // Relaxed: a hint; `wait` loads the flag with Acquire before it
        // returns.
        self.posted.load(Ordering::Relaxed)
    }

    /// `EVCLEAR`: clears the event.
    #[inline]
    pub fn clear(&self) {
        // Relaxed: only the waiter clears, and the protocol orders every later
        // post after this clear through the other event's Release/Acquire.
        self.posted.store(false, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::WaitStrategy;
    use std::time::Duration;

    /// The kernels' order (worker: post, wait, clear; master: wait, clear, post)
    /// over many segments never loses a post.
    fn ping<E: Sync>(
        a: &E,
        b: &E,
        post: fn(&E),
        wait: fn(&E, &TeamControl, usize) -> Result<(), RankError>,
        clear: fn(&E),
        register: fn(&E) -> bool,
    ) {
        let control = TeamControl::new(vec![WaitStrategy::Block; 2], Duration::from_secs(5));
        let ready = std::sync::Barrier::new(2);
        std::thread::scope(|s| {
            s.spawn(|| {
                assert!(register(a));
                ready.wait();
                for _ in 0..2000 {
                    post(b);
                    wait(a, &control, 0).unwrap();
                    clear(a);
                }
            });
            assert!(register(b));
            ready.wait();
            for _ in 0..2000 {
                wait(b, &control, 1).unwrap();
                clear(b);
                post(a);
            }
        });
    }

    #[test]
    fn condvar_events_hand_over_without_losing_a_post() {
        let (a, b) = (Event::new(), Event::new());
        ping(&a, &b, Event::post, Event::wait, Event::clear, |_| true);
        assert!(!b.is_posted());
    }

    #[test]
    fn park_events_hand_over_without_losing_a_post() {
        let (a, b) = (ParkEvent::new(), ParkEvent::new());
        ping(
            &a,
            &b,
            ParkEvent::post,
            ParkEvent::wait,
            ParkEvent::clear,
            ParkEvent::register,
        );
    }

    #[test]
    fn an_event_nobody_posts_ends_at_the_deadline() {
        let control = TeamControl::new(vec![WaitStrategy::Block], Duration::from_millis(30));
        let e = Event::new();
        assert!(matches!(
            e.wait(&control, 3),
            Err(RankError::Deadline { peer: 3, .. })
        ));
        let p = ParkEvent::new();
        assert!(p.register());
        assert!(matches!(
            p.wait(&control, 3),
            Err(RankError::Deadline { peer: 3, .. })
        ));
    }
}
