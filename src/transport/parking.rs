//! Wake-ups for ranks that share a CPU and wait by parking: the mailbox's third
//! happens-before edge (`src/transport/README.md`, "Wake-up"). The waiter sets
//! its flag, issues a SeqCst fence and re-checks its condition inside
//! `parking_lot_core::park`'s validate callback; the notifier publishes, issues a
//! SeqCst fence and unparks if the flag is set. Parks time out every 10 ms so the
//! team's abort flag and deadline are checked. Spinning ranks never come here.

use crate::control::{RankError, TeamControl};
use crate::primitive::{AtomicU32, Ordering, fence};

/// Wakes the thread parked on `parked`, if any, after a Release publish towards a
/// rank that parks; out of line, so that the spinning ranks' paths do not carry it.
#[inline(never)]
pub(super) fn notify(parked: &AtomicU32) {
    // SeqCst fence: Dekker pairing with the fence in `block_until`. Either this
    // load sees the waiter's flag, or the waiter's re-check sees our publish.
    fence(Ordering::SeqCst);
    // Relaxed: ordered by the fences.
    if parked.load(Ordering::Relaxed) != 0 {
        #[cfg(not(loom))]
        // SAFETY: the key is the address of `parked`, which outlives the call; no
        // other parking_lot object uses that address as a key.
        unsafe {
            parking_lot_core::unpark_all(
                parked as *const AtomicU32 as usize,
                parking_lot_core::DEFAULT_UNPARK_TOKEN,
            );
        }
    }
}

/// Parks on `parked` until woken or 10 ms pass, unless `ready` already holds;
/// returns whether `ready` held. Under loom, checks once and yields.
pub(super) fn park_once(parked: &AtomicU32, mut ready: impl FnMut() -> bool) -> bool {
    if ready() {
        return true;
    }
    #[cfg(loom)]
    {
        let _ = parked;
        loom::thread::yield_now();
        ready()
    }
    #[cfg(not(loom))]
    {
        // Relaxed: ordered by the SeqCst fence that follows.
        parked.store(1, Ordering::Relaxed);
        // SeqCst fence: see `notify`.
        fence(Ordering::SeqCst);
        let key = parked as *const AtomicU32 as usize;
        let timeout = Some(std::time::Instant::now() + std::time::Duration::from_millis(10));
        let mut held = false;
        // SAFETY: the key is the address of `parked` (see `notify`); the validate
        // closure only reads atomics and does not park or panic; the other
        // callbacks do nothing.
        unsafe {
            parking_lot_core::park(
                key,
                || {
                    held = ready();
                    !held
                },
                || {},
                |_, _| {},
                parking_lot_core::DEFAULT_PARK_TOKEN,
                timeout,
            );
        }
        // Relaxed: only this thread parks on this word.
        parked.store(0, Ordering::Relaxed);
        held || ready()
    }
}

/// Parks until `ready` returns `Some`, waking at least every 10 ms to check the
/// team's abort flag and the deadline.
pub(super) fn block_until<T>(
    control: &TeamControl,
    peer: usize,
    parked: &AtomicU32,
    mut ready: impl FnMut() -> Option<T>,
) -> Result<T, RankError> {
    let mut started = None;
    let mut value = None;
    loop {
        if park_once(parked, || {
            value = ready();
            value.is_some()
        }) {
            return Ok(value.take().expect("ready returned Some"));
        }
        control.check(peer, &mut started)?;
    }
}
