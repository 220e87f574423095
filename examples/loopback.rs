//! An 8-byte ping-pong between two endpoints on one thread, for counting the
//! instructions a round trip executes (no waiting: each message is there before it
//! is received, so every poll succeeds at once).
//!
//! `cargo run --release --example loopback -- mailbox 1000000` runs a million
//! round trips through the mailbox's `send` and `recv`; `flags` instead runs the
//! two-flag baseline's stores and polls (`pingpong`'s atomic-flags row). Under an
//! instruction counter, the difference between two round-trip counts divided by
//! the difference in round trips is the cost of one round trip, without the
//! program's start-up:
//!
//! ```text
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/loopback mailbox 200000
//! ```

use halfperf::control::{TeamControl, WaitStrategy};
use halfperf::transport::mailbox::Mailbox;
use halfperf::transport::{Endpoint, Transport, TransportConfig};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

fn mailbox(control: &Arc<TeamControl>, rounds: u64) -> u64 {
    let mut eps = Mailbox::endpoints(control, &TransportConfig::for_messages(16));
    let (a, b) = eps.split_at_mut(1);
    let (a, b) = (&mut a[0], &mut b[0]);
    let out = black_box([7u8; 8]);
    let mut inbuf = [0u8; 16];
    let mut sum = 0u64;
    for _ in 0..rounds {
        a.send(1, &out).expect("send 0 -> 1");
        sum += b.recv(0, &mut inbuf).expect("recv 0 -> 1") as u64;
        b.send(0, &out).expect("send 1 -> 0");
        sum += a.recv(1, &mut inbuf).expect("recv 1 -> 0") as u64;
    }
    sum + u64::from(inbuf[0])
}

fn flags(control: &TeamControl, rounds: u64) -> u64 {
    let ping = crossbeam_utils::CachePadded::new(AtomicU64::new(0));
    let pong = crossbeam_utils::CachePadded::new(AtomicU64::new(0));
    let mut sum = 0u64;
    for i in 1..=rounds {
        // The baseline's two ranks, one after the other.
        ping.store(i, Ordering::Release);
        control
            .spin_until(1, || (ping.load(Ordering::Acquire) == i).then_some(()))
            .expect("rank 1 polls");
        pong.store(i, Ordering::Release);
        control
            .spin_until(1, || (pong.load(Ordering::Acquire) == i).then_some(()))
            .expect("rank 0 polls");
        sum += 16;
    }
    sum
}

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "mailbox".into());
    let rounds: u64 = args
        .next()
        .map(|s| s.parse().expect("round trips: a number"))
        .unwrap_or(1_000_000);
    let control = TeamControl::new(vec![WaitStrategy::Spin; 2], Duration::from_secs(10));
    let sum = match which.as_str() {
        "mailbox" => mailbox(&control, rounds),
        "flags" => flags(&control, rounds),
        other => panic!("unknown path {other:?}: expected mailbox or flags"),
    };
    black_box(sum);
}
