//! The mailbox's inline path (messages of at most 8 bytes between spinning ranks)
//! allocates nothing and takes no lock: the allocator below counts the
//! allocations of the threads that asked for counting, and the only lock the
//! mailbox can take, `parking_lot_core`'s bucket lock (in its wake-ups), builds
//! that crate's hash table on first use, with an allocation these counts see.
//!
//! One test function: the parking-lot detector relies on being the first user
//! of `parking_lot_core` in this process, so nothing else may run beside it.
#![cfg(not(loom))]

use halfperf::control::{RankError, TeamControl, WaitStrategy};
use halfperf::transport::mailbox::{INLINE_BYTES, Mailbox, MailboxEndpoint};
use halfperf::transport::{Endpoint, Transport, TransportConfig};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The system allocator, counting the allocations of threads that are counting.
struct Counting;

/// Allocations (and reallocations) made while a thread was counting.
static COUNTED: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Whether this thread's allocations are counted (const-initialised, so that
    /// reading it does not allocate).
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn note_allocation() {
    if COUNTING.with(Cell::get) {
        // Relaxed: a counter read after the counting threads are joined.
        COUNTED.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counting
// neither allocates nor unwinds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: the caller's guarantees for `layout` are passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: as `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation();
        // SAFETY: `ptr` was allocated by `System` with `layout` (every allocation
        // of this program goes through `Counting`, which forwards to `System`).
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as `realloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` with this thread's allocations counted; returns how many it made.
fn allocations_in(f: impl FnOnce()) -> usize {
    // Relaxed: only this thread counts here.
    let before = COUNTED.load(Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    COUNTED.load(Ordering::Relaxed) - before
}

fn endpoints(waits: [WaitStrategy; 2], deadline: Duration) -> (MailboxEndpoint, MailboxEndpoint) {
    let control = TeamControl::new(waits.to_vec(), deadline);
    let config = TransportConfig {
        max_message_bytes: 4096,
        slots: 8,
        slot_bytes: 128,
    };
    let mut eps = Mailbox::endpoints(&control, &config);
    let b = eps.pop().expect("two endpoints");
    let a = eps.pop().expect("two endpoints");
    (a, b)
}

/// A message of `len` bytes for round `round`.
fn message(len: usize, round: usize) -> [u8; INLINE_BYTES] {
    std::array::from_fn(|i| if i < len { (round * 7 + i) as u8 } else { 0 })
}

#[test]
fn inline_messages_allocate_nothing_and_take_no_lock() {
    // One thread, two spinning endpoints: every message of 0 to 8 bytes, through
    // many turns of the 8-slot ring (credits published and consumed on the way).
    let (mut a, mut b) = endpoints([WaitStrategy::Spin; 2], Duration::from_secs(60));
    let mut buf = [0u8; 16];
    let mut checked = 0usize;
    let allocs = allocations_in(|| {
        for round in 0..2_000 {
            let len = round % (INLINE_BYTES + 1);
            let msg = message(len, round);
            a.send(1, &msg[..len]).expect("send 0 -> 1");
            assert_eq!(b.recv(0, &mut buf).expect("recv 0 -> 1"), len);
            assert_eq!(buf[..len], msg[..len]);
            b.send(0, &msg[..len]).expect("send 1 -> 0");
            assert_eq!(a.recv(1, &mut buf).expect("recv 1 -> 0"), len);
            assert_eq!(buf[..len], msg[..len]);
            checked += 2;
        }
    });
    assert_eq!(checked, 4_000);
    assert_eq!(allocs, 0, "the one-thread inline round trips allocated");

    // Two threads, each spinning for the other's message: the real wait, with its
    // abort and deadline checks every 1024 polls.
    let (mut a, mut b) = endpoints([WaitStrategy::Spin; 2], Duration::from_secs(60));
    const ROUNDS: usize = 20_000;
    let per_thread: Vec<usize> = std::thread::scope(|s| {
        let ping = s.spawn(move || {
            let mut buf = [0u8; 8];
            allocations_in(|| {
                for round in 0..ROUNDS {
                    a.send(1, &message(8, round)).expect("ping");
                    assert_eq!(a.recv(1, &mut buf).expect("pong back"), 8);
                    assert_eq!(buf, message(8, round + 1));
                }
            })
        });
        let pong = s.spawn(move || {
            let mut buf = [0u8; 8];
            allocations_in(|| {
                for round in 0..ROUNDS {
                    assert_eq!(b.recv(0, &mut buf).expect("ping in"), 8);
                    assert_eq!(buf, message(8, round));
                    b.send(0, &message(8, round + 1)).expect("pong");
                }
            })
        });
        vec![ping.join().expect("ping"), pong.join().expect("pong")]
    });
    assert_eq!(per_thread, vec![0, 0], "the two-thread ping-pong allocated");

    // The detector: a rank that parks waiting for a message goes through
    // `parking_lot_core`, whose first use in this process builds its table with
    // an allocation. Had either path above taken that crate's lock, the table
    // would exist already and this count would be zero. (Nobody sends: the wait
    // parks until its deadline.)
    let (_a, mut b) = endpoints(
        [WaitStrategy::Spin, WaitStrategy::Block],
        Duration::from_millis(30),
    );
    let mut buf = [0u8; 8];
    let first_park = allocations_in(|| {
        let waited = b.recv(0, &mut buf);
        assert!(
            matches!(waited, Err(RankError::Deadline { peer: 0, .. })),
            "a wait for a message never sent ended with {waited:?}"
        );
    });
    assert!(
        first_park > 0,
        "a parked wait did not build the parking lot's table: the lock detector saw nothing"
    );
}
