//! Loom models of the mailbox handoff: the payload written by the sender is the
//! payload the receiver reads (no data race on the slot), messages arrive in order
//! across slot reuse, and credits never let the sender overwrite an unread slot.
//!
//! Run with (a separate target directory: the cfg reaches every crate):
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --test loom_mailbox --target-dir target-loom -- --nocapture`
//! (each model prints how many executions loom explored).
#![cfg(loom)]

use halfperf::control::{TeamControl, WaitStrategy};
use halfperf::transport::mailbox::Mailbox;
use halfperf::transport::{Endpoint, Transport, TransportConfig};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Runs `model` under loom and prints how many executions it explored.
fn counted(name: &str, model: impl Fn() + Sync + Send + 'static) {
    let runs = Arc::new(AtomicUsize::new(0));
    let r = Arc::clone(&runs);
    loom::model(move || {
        // Relaxed: a counter read after the model ends.
        r.fetch_add(1, Ordering::Relaxed);
        model();
    });
    let n = runs.load(Ordering::Relaxed);
    println!("loom model {name}: {n} executions");
    assert!(n > 1, "{name}: loom explored a single execution");
}

fn pair(
    slots: usize,
) -> (
    halfperf::transport::mailbox::MailboxEndpoint,
    halfperf::transport::mailbox::MailboxEndpoint,
) {
    let control = TeamControl::new(vec![WaitStrategy::Spin; 2], Duration::from_secs(3600));
    let config = TransportConfig {
        max_message_bytes: 512,
        slots,
        slot_bytes: 128,
    };
    let mut eps = Mailbox::endpoints(&control, &config);
    let b = eps.pop().unwrap();
    let a = eps.pop().unwrap();
    (a, b)
}

#[test]
fn inline_messages_arrive_in_order_across_slot_reuse() {
    counted("inline_messages_arrive_in_order_across_slot_reuse", || {
        let (mut a, mut b) = pair(2);
        let sender = loom::thread::spawn(move || {
            for i in 0..3u8 {
                a.send(1, &[i, i + 1, i + 2]).unwrap();
            }
        });
        let mut buf = [0u8; 8];
        for i in 0..3u8 {
            assert_eq!(b.recv(0, &mut buf).unwrap(), 3);
            assert_eq!(&buf[..3], &[i, i + 1, i + 2]);
        }
        sender.join().unwrap();
    });
}

#[test]
fn a_message_longer_than_the_ring_streams_through_it_intact() {
    counted(
        "a_message_longer_than_the_ring_streams_through_it_intact",
        || {
            // 3 chunks of 128 bytes through 2 slots: the third chunk needs the
            // receiver's credit for the first.
            let (mut a, mut b) = pair(2);
            let sender = loom::thread::spawn(move || {
                let msg: Vec<u8> = (0..300u32).map(|i| (i % 251) as u8).collect();
                a.send(1, &msg).unwrap();
            });
            let mut buf = vec![0u8; 512];
            assert_eq!(b.recv(0, &mut buf).unwrap(), 300);
            assert!(
                buf[..300]
                    .iter()
                    .enumerate()
                    .all(|(i, &v)| v == (i % 251) as u8)
            );
            sender.join().unwrap();
        },
    );
}

#[test]
fn probe_and_try_recv_see_only_published_messages() {
    counted("probe_and_try_recv_see_only_published_messages", || {
        let (mut a, mut b) = pair(2);
        let sender = loom::thread::spawn(move || {
            a.send(1, &[7u8; 130]).unwrap(); // two chunks
        });
        let mut buf = vec![0u8; 512];
        // Whatever the interleaving, a probe that succeeds is followed by an intact
        // receive, and a failed try_recv consumes nothing.
        let got = match b.try_recv(0, &mut buf).unwrap() {
            Some(n) => n,
            None => b.recv(0, &mut buf).unwrap(),
        };
        assert_eq!(got, 130);
        assert!(buf[..130].iter().all(|&v| v == 7));
        assert!(!b.probe(0));
        sender.join().unwrap();
    });
}

#[test]
fn two_ranks_exchanging_more_than_the_ring_take_each_other_in() {
    counted(
        "two_ranks_exchanging_more_than_the_ring_take_each_other_in",
        || {
            // Both send 3 chunks through 2 slots before receiving: each must take in
            // the other's chunks while blocked for credit, or neither finishes.
            let (mut a, mut b) = pair(2);
            let other = loom::thread::spawn(move || {
                a.send(1, &[1u8; 300]).unwrap();
                let mut buf = vec![0u8; 512];
                assert_eq!(a.recv(1, &mut buf).unwrap(), 300);
                assert!(buf[..300].iter().all(|&v| v == 2));
            });
            b.send(0, &[2u8; 300]).unwrap();
            let mut buf = vec![0u8; 512];
            assert_eq!(b.recv(0, &mut buf).unwrap(), 300);
            assert!(buf[..300].iter().all(|&v| v == 1));
            other.join().unwrap();
        },
    );
}
