//! LOCKS (Hockney, Fig. 4): a binary lock that one processor sets and another
//! clears, as the Cray's `LOCKON`/`LOCKOFF`. The master holds both locks at the
//! start; for each segment it clears `IVT1` (letting the worker in), does its half,
//! and sets `IVT2`, which blocks until the worker, having done its half, clears it.
//!
//! A std or parking_lot mutex may only be unlocked by the thread that locked it
//! (parking_lot's `RawMutex` allows otherwise only with its `send_guard` feature),
//! so [`BinaryLock`] is the same algorithm as parking_lot's raw mutex built directly
//! on `parking_lot_core`, without an owner: a lock byte, a "parked" bit, a short
//! adaptive spin ([`parking_lot_core::SpinWait`]: a few rounds of `pause`, then
//! `sched_yield`), then parking in the global parking lot until an unlock hands
//! the lock over. That is a binary semaphore, which is what Cray locks were.
//!
//! # State of the lock byte
//! | state              | meaning                                   |
//! |--------------------|-------------------------------------------|
//! | `0`                | clear                                     |
//! | `LOCKED`           | set, nobody parked                        |
//! | `LOCKED \| PARKED` | set, a thread is (or may be) parked on it |
//!
//! # Memory ordering
//! `lock_on` acquires (`Acquire` on the successful compare-exchange) what the
//! thread that cleared the lock released (`Release` in `lock_off`): the worker
//! sees the master's writes before the segment, the master the worker's results.

use crate::control::{RankError, TeamControl};
use parking_lot_core::{DEFAULT_PARK_TOKEN, DEFAULT_UNPARK_TOKEN, SpinWait, UnparkResult};
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Instant;

const LOCKED: u8 = 1;
const PARKED: u8 = 2;

/// A binary lock that any thread may set or clear (Cray `LOCKON` / `LOCKOFF`).
#[derive(Debug)]
pub struct BinaryLock {
    state: AtomicU8,
}

impl BinaryLock {
    /// A lock that is already set, as the master's `LOCKON` calls leave it in Fig. 4.
    pub const fn new_locked() -> BinaryLock {
        BinaryLock {
            state: AtomicU8::new(LOCKED),
        }
    }

    /// A clear lock.
    pub const fn new() -> BinaryLock {
        BinaryLock {
            state: AtomicU8::new(0),
        }
    }

    /// Whether the lock is set (for tests and assertions).
    pub fn is_locked(&self) -> bool {
        // Relaxed: a snapshot, no data depends on it.
        self.state.load(Ordering::Relaxed) & LOCKED != 0
    }

    /// `LOCKON`: sets the lock, waiting (spin, then park) while another has it set.
    /// `peer` names the processor expected to clear it, for the deadline error.
    #[inline]
    pub fn lock_on(&self, control: &TeamControl, peer: usize) -> Result<(), RankError> {
        // Acquire: pairs with the Release of the `lock_off` that cleared it.
        if self
            .state
            .compare_exchange_weak(0, LOCKED, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            return Ok(());
        }
        self.lock_slow(control, peer)
    }

    #[cold]
    fn lock_slow(&self, control: &TeamControl, peer: usize) -> Result<(), RankError> {
        let mut spin = SpinWait::new();
        let mut started = None;
        // Relaxed: only a hint for the next compare-exchange.
        let mut state = self.state.load(Ordering::Relaxed);
        loop {
            if state & LOCKED == 0 {
                // Acquire: as in `lock_on`.
                match self.state.compare_exchange_weak(
                    state,
                    state | LOCKED,
                    Ordering::Acquire,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => return Ok(()),
                    Err(now) => {
                        state = now;
                        continue;
                    }
                }
            }
            if state & PARKED == 0 && spin.spin() {
                state = self.state.load(Ordering::Relaxed);
                continue;
            }
            if state & PARKED == 0 {
                // Relaxed: the parking lot's bucket lock orders this against unlock.
                if let Err(now) = self.state.compare_exchange_weak(
                    state,
                    state | PARKED,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    state = now;
                    continue;
                }
            }
            let key = self as *const BinaryLock as usize;
            // SAFETY: the key is this lock's own address, which no other primitive
            // parks on; `validate` and `timed_out` only read an atomic and cannot
            // unwind or call into parking_lot.
            unsafe {
                parking_lot_core::park(
                    key,
                    || self.state.load(Ordering::Relaxed) == LOCKED | PARKED,
                    || {},
                    |_, _| {},
                    DEFAULT_PARK_TOKEN,
                    Some(Instant::now() + super::POLL_SLICE),
                );
            }
            // Woken, timed out or not parked: look at the abort flag and deadline
            // only if the lock is still set.
            state = self.state.load(Ordering::Relaxed);
            if state & LOCKED != 0 {
                control.check(peer, &mut started)?;
            }
            spin.reset();
        }
    }

    /// `LOCKOFF`: clears the lock and wakes one parked waiter.
    #[inline]
    pub fn lock_off(&self) {
        // Release: publishes this thread's writes to the next `lock_on`.
        if self
            .state
            .compare_exchange(LOCKED, 0, Ordering::Release, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
        self.unlock_slow();
    }

    #[cold]
    fn unlock_slow(&self) {
        let key = self as *const BinaryLock as usize;
        let callback = |result: UnparkResult| {
            // Release: as in `lock_off`. A parked thread that remains keeps the bit.
            let next = if result.have_more_threads { PARKED } else { 0 };
            self.state.store(next, Ordering::Release);
            DEFAULT_UNPARK_TOKEN
        };
        // SAFETY: the key is this lock's own address; the callback only stores an
        // atomic and cannot unwind or call into parking_lot.
        unsafe {
            parking_lot_core::unpark_one(key, callback);
        }
    }
}

impl Default for BinaryLock {
    fn default() -> Self {
        BinaryLock::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::WaitStrategy;
    use std::time::Duration;

    #[test]
    fn a_lock_set_by_one_thread_is_cleared_by_another() {
        let control = TeamControl::new(vec![WaitStrategy::Block; 2], Duration::from_secs(5));
        let go = BinaryLock::new_locked();
        let done = BinaryLock::new_locked();
        let mut value = 0u64;
        let cell = std::sync::Mutex::new(&mut value);
        std::thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..1000 {
                    go.lock_on(&control, 0).unwrap();
                    **cell.lock().unwrap() += 1;
                    done.lock_off();
                }
            });
            for i in 1..=1000 {
                go.lock_off();
                done.lock_on(&control, 1).unwrap();
                assert_eq!(**cell.lock().unwrap(), i);
            }
        });
        assert!(go.is_locked() && done.is_locked());
    }

    #[test]
    fn a_lock_nobody_clears_ends_at_the_deadline() {
        let control = TeamControl::new(vec![WaitStrategy::Block], Duration::from_millis(30));
        let lock = BinaryLock::new_locked();
        let err = lock.lock_on(&control, 7).unwrap_err();
        assert!(matches!(err, RankError::Deadline { peer: 7, .. }), "{err}");
    }
}
