//! Loom models of the watch word that keeps a blocking wait's deadline
//! (`halfperf::transport::watch`, the mpi transport's `MPI_Recv`/`MPI_Send`):
//! one thread arms and disarms the word around its waits while a watchdog
//! samples it. Loom has no clock, so the models give the watchdog a clock
//! that advances a whole deadline every sample, the harshest case: any value
//! it sees twice in a row it reports. The models check that whatever it
//! reports is a wait that was armed, with that wait's own peer (never a
//! disarmed word, never a sequence number paired with another wait's peer),
//! that a wait that never ends is reported once the watchdog can see it, and
//! that nothing is reported once every wait has ended.
//!
//! Run with (a separate target directory: the cfg reaches every crate):
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --test loom_watch --target-dir target-loom -- --nocapture`
#![cfg(loom)]

use halfperf::transport::watch::{Stalled, WatchWord, Watcher};
use std::sync::Arc;
use std::time::Duration;

const DEADLINE: Duration = Duration::from_millis(100);

/// The waits the waiting thread makes, in order: (peer, ends).
const WAITS: [(usize, bool); 3] = [(1, true), (4, true), (5, false)];

/// Runs `model` under loom and prints the number of executions it explored.
fn explore(name: &str, model: impl Fn() + Sync + Send + 'static) {
    let counted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let c = Arc::clone(&counted);
    let mut builder = loom::model::Builder::new();
    builder.max_branches = 100_000;
    builder.check(move || {
        // Relaxed: a counter read after the model ends.
        c.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        model();
    });
    let n = counted.load(std::sync::atomic::Ordering::Relaxed);
    assert!(n > 1, "{name}: loom explored only {n} execution");
    println!("loom model {name}: {n} executions");
}

/// The waiting thread makes `waits` (the last left armed unless it ends) while
/// this thread samples three times, a deadline apart; then, after joining it,
/// twice more. Returns every report, the first three from during the waits.
fn run(waits: &'static [(usize, bool)]) -> (Vec<Stalled>, Vec<Stalled>) {
    let word = Arc::new(WatchWord::new());
    let waiter = {
        let word = Arc::clone(&word);
        loom::thread::spawn(move || {
            for &(peer, ends) in waits {
                let seq = word.arm(peer);
                if ends {
                    word.disarm(seq);
                }
            }
        })
    };
    let mut watcher = Watcher::new(Duration::ZERO);
    let mut now = Duration::ZERO;
    let mut during = Vec::new();
    for _ in 0..3 {
        now += DEADLINE;
        during.extend(watcher.sample(&word, now, DEADLINE));
        loom::thread::yield_now();
    }
    waiter.join().unwrap();
    let mut after = Vec::new();
    for _ in 0..2 {
        now += DEADLINE;
        after.extend(watcher.sample(&word, now, DEADLINE));
    }
    (during, after)
}

/// A report names a wait that was armed (sequence numbers count from 1 in
/// `waits`' order) with its own peer, seen for at least the deadline.
fn check_armed(reports: &[Stalled], waits: &[(usize, bool)]) {
    for r in reports {
        let k = r.seq as usize;
        assert!(k >= 1 && k <= waits.len(), "{r:?}: no such wait");
        assert_eq!(r.peer, waits[k - 1].0, "{r:?}: another wait's peer");
        assert!(r.waited >= DEADLINE, "{r:?}: reported early");
    }
}

#[test]
fn a_wait_that_never_ends_is_reported_with_its_peer() {
    explore("watch word, last wait stuck", || {
        let (during, after) = run(&WAITS);
        check_armed(&during, &WAITS);
        check_armed(&after, &WAITS);
        // Once the waiter's stores are visible (joined), the stuck wait is
        // seen unchanged across the two samples and reported.
        let last = after.last().expect("the stuck wait reported");
        assert_eq!((last.seq, last.peer), (3, 5));
    });
}

#[test]
fn nothing_is_reported_once_every_wait_has_ended() {
    const ENDED: [(usize, bool); 3] = [(1, true), (4, true), (5, true)];
    explore("watch word, every wait ends", || {
        let (during, after) = run(&ENDED);
        check_armed(&during, &ENDED);
        assert!(after.is_empty(), "{after:?}");
    });
}
