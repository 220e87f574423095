//! Loom models of the spinning synchronisation of Hockney's kernels (src/sync):
//! the dissemination and the sense-reversing spin barriers (two parties: three
//! spinning threads take hours), the spin flag of Fig. 6, and the atomic flag
//! of the park/unpark event; and of the ping-pong sweeps' copy probe. The data each side writes before a hand-off lives in
//! loom cells, so loom reports any read that the hand-off does not order after the
//! write (weakening the Release of a post or of the sense flip, or the Acquire of a
//! poll, to Relaxed fails these models).
//!
//! Run with (a separate target directory: the cfg reaches every crate):
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --test loom_sync --target-dir target-loom -- --nocapture`
//! (each model prints how many executions loom explored).
#![cfg(loom)]

use halfperf::control::{TeamControl, WaitStrategy};
use halfperf::kernels::harness::flags::CopyPair;
use halfperf::sync::Poll;
use halfperf::sync::barrier::{CentralBarrier, Episode, LocalSense, SpinBarrier};
use halfperf::sync::events::ParkEvent;
use halfperf::sync::spin::{DONE, GO, SpinFlag};
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Cells written by one thread and read by another only after a hand-off.
struct Cells<const N: usize>([UnsafeCell<u64>; N]);

// SAFETY: the models touch a cell from two threads only with a hand-off between
// the write and the read; loom checks exactly that and fails the model otherwise.
unsafe impl<const N: usize> Sync for Cells<N> {}

impl<const N: usize> Cells<N> {
    fn new() -> Cells<N> {
        Cells(std::array::from_fn(|_| UnsafeCell::new(0)))
    }
    fn set(&self, i: usize, v: u64) {
        // SAFETY: loom tracks the access; a racing one fails the model.
        self.0[i].with_mut(|p| unsafe { *p = v });
    }
    fn get(&self, i: usize) -> u64 {
        // SAFETY: as in `set`.
        self.0[i].with(|p| unsafe { *p })
    }
}

fn control() -> Arc<TeamControl> {
    // Wait strategies are not used by these structures; the deadline is far away.
    TeamControl::new(vec![WaitStrategy::Spin; 3], Duration::from_secs(3600))
}

/// Runs `model` under loom and prints the number of executions it explored.
fn explore(name: &str, model: impl Fn() + Sync + Send + 'static) {
    let counted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let c = std::sync::Arc::clone(&counted);
    // Waiters that poll with a loom yield take many branches: raise the cap (the
    // environment's LOOM_MAX_PREEMPTIONS still bounds the search).
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

/// Two parties meet twice at a barrier (`wait(rank, local)`), each writing a
/// cell before every meeting and checking after it that the other has arrived
/// and that its cell is visible.
fn barrier_model<L: Default>(wait: impl Fn(usize, &mut L) + Send + Sync + 'static) {
    let wait = Arc::new(wait);
    // Cell [rank * 2 + episode - 1]: written once, before meeting `episode`.
    let cells = Arc::new(Cells::<4>::new());
    // Relaxed counters of arrivals: a meeting that let a party through before
    // the other arrived would show a count below the episode.
    let arrived = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let handles: Vec<_> = (0..2)
        .map(|rank| {
            let (wait, cells, arrived) =
                (Arc::clone(&wait), Arc::clone(&cells), Arc::clone(&arrived));
            loom::thread::spawn(move || {
                let mut local = L::default();
                for episode in 1..=2u64 {
                    cells.set(rank * 2 + episode as usize - 1, 10 * rank as u64 + episode);
                    arrived[rank].store(episode, Ordering::Relaxed);
                    wait(rank, &mut local);
                    let other = 1 - rank;
                    let seen = arrived[other].load(Ordering::Relaxed);
                    assert!(seen >= episode, "episode {episode}: peer at {seen}");
                    assert_eq!(
                        cells.get(other * 2 + episode as usize - 1),
                        10 * other as u64 + episode
                    );
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn dissemination_barrier_episodes_do_not_overtake_and_publish_every_write() {
    explore("dissemination barrier (2 parties, 2 episodes)", || {
        let (control, barrier) = (control(), SpinBarrier::new(2));
        barrier_model(move |rank, e: &mut Episode| {
            barrier.wait(rank, e, Poll::Hint, &control).unwrap()
        });
    });
}

#[test]
fn central_barrier_episodes_do_not_overtake_and_publish_every_write() {
    explore("central barrier (2 parties, 2 episodes)", || {
        let (control, barrier) = (control(), CentralBarrier::new(2));
        barrier_model(move |rank, s: &mut LocalSense| {
            barrier.wait(s, Poll::Hint, &control, 1 - rank).unwrap()
        });
    });
}

#[test]
fn spin_flag_post_and_wait_hand_data_both_ways() {
    explore("spin_flag (2 round trips)", || {
        let control = control();
        let flag = Arc::new(SpinFlag::new());
        // Cells 0, 1: the master's input per round; 2, 3: the worker's result.
        let cells = Arc::new(Cells::<4>::new());
        let worker = {
            let (control, flag, cells) =
                (Arc::clone(&control), Arc::clone(&flag), Arc::clone(&cells));
            loom::thread::spawn(move || {
                for round in 0..2 {
                    flag.wait_for(GO, Poll::Hint, &control, 0).unwrap();
                    let input = cells.get(round);
                    cells.set(2 + round, input * 2);
                    flag.post(DONE);
                }
            })
        };
        for round in 0..2 {
            cells.set(round, round as u64 + 5);
            flag.post(GO);
            flag.wait_for(DONE, Poll::Hint, &control, 1).unwrap();
            assert_eq!(cells.get(2 + round), 2 * (round as u64 + 5));
        }
        worker.join().unwrap();
    });
}

#[test]
fn park_event_post_wait_clear_hands_data_over_without_losing_a_post() {
    explore("park_event (kernels' order, 2 segments)", || {
        let control = control();
        // a: the worker waits on it; b: the master waits on it.
        let (a, b) = (Arc::new(ParkEvent::new()), Arc::new(ParkEvent::new()));
        // Cells 0, 1: the worker's half per segment; 2, 3: the master's.
        let cells = Arc::new(Cells::<4>::new());
        let worker = {
            let (control, a, b, cells) = (
                Arc::clone(&control),
                Arc::clone(&a),
                Arc::clone(&b),
                Arc::clone(&cells),
            );
            loom::thread::spawn(move || {
                for seg in 0..2 {
                    cells.set(seg, 100 + seg as u64);
                    b.post();
                    a.wait(&control, 0).unwrap();
                    a.clear();
                    assert_eq!(cells.get(2 + seg), 200 + seg as u64);
                }
            })
        };
        for seg in 0..2 {
            b.wait(&control, 1).unwrap();
            b.clear();
            assert_eq!(cells.get(seg), 100 + seg as u64);
            cells.set(2 + seg, 200 + seg as u64);
            a.post();
        }
        worker.join().unwrap();
    });
}

/// The copy probe of the ping-pong sweeps (`kernels::harness::flags::CopyPair`):
/// two round trips of a 16-byte copy each way, in loom cells. Every copy a
/// rank takes must carry the round trip its peer put it in, and loom fails
/// the model on a take that the flags do not order after the put: weakening
/// the Release of `put`'s flag or the Acquire of `arrived` to Relaxed does.
#[test]
fn copy_probe_hands_every_word_over() {
    explore("copy_probe (16 bytes, 2 round trips)", || {
        let copy = Arc::new(CopyPair::with_bytes(16));
        let peer = {
            let copy = Arc::clone(&copy);
            loom::thread::spawn(move || {
                let (mut message, mut into) = ([0u8; 16], [0u8; 16]);
                for i in 1..=2 {
                    while !copy.arrived(1, i) {
                        loom::thread::yield_now();
                    }
                    // SAFETY: rank 1's side, after `arrived`, then its put
                    // after the take, as the contracts ask.
                    assert!(unsafe { copy.take(1, i, &mut into) }, "round trip {i}");
                    unsafe { copy.put(1, i, &mut message) };
                }
            })
        };
        let (mut message, mut into) = ([0u8; 16], [0u8; 16]);
        for i in 1..=2 {
            // SAFETY: rank 0's side: a put after taking the previous round
            // trip, a take after `arrived`.
            unsafe { copy.put(0, i, &mut message) };
            while !copy.arrived(0, i) {
                loom::thread::yield_now();
            }
            assert!(unsafe { copy.take(0, i, &mut into) }, "round trip {i}");
        }
        peer.join().unwrap();
    });
}
