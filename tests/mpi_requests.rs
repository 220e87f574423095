//! The mpi transport's posted requests (`isend`, `irecv`, `test_recv` and the
//! waits) between two MPI processes (`--features mpi`): messages of every
//! size arrive whole and in order with four requests in flight, a fifth is
//! refused, a wait out of order is refused, and a receive left posted is
//! cancelled when the endpoint drops, without a hang. And its blocking `send`
//! and `recv`: messages of every length arrive whole, with their length.
//!
//! Each test starts itself under `mpirun` (under `timeout`, as every MPI test):
//! the copy that runs outside MPI launches `mpirun -n NP` of this test binary,
//! filtered to that one test, and checks that every process passed; the
//! copies under `mpirun` (`OMPI_COMM_WORLD_SIZE` is set) run the exchange on
//! ranks 0 and 1, the others idle.
#![cfg(feature = "mpi")]

mod common;

use common::mpirun::{have_mpirun, np, timeout_mpirun};
use halfperf::control::RankError;
use halfperf::team::mpi::Processes;
use halfperf::transport::Endpoint;
use halfperf::transport::mpi::{MpiEndpoint, REQUESTS_IN_FLIGHT};
use std::time::Duration;

const TEST: &str = "posted_requests_arrive_in_order_and_are_bounded";

/// The messages rank 0 posts to rank 1, one per slot of the ring: eager and
/// long sizes, up to the endpoint's buffers.
const SIZES: [usize; REQUESTS_IN_FLIGHT] = [8, 3000, 20_000, 65_536];

/// Byte `i` of message `m`.
fn byte(m: usize, i: usize) -> u8 {
    (i.wrapping_mul(31) ^ (m * 97)) as u8
}

#[test]
fn posted_requests_arrive_in_order_and_are_bounded() {
    if std::env::var_os("OMPI_COMM_WORLD_SIZE").is_some() {
        return under_mpirun();
    }
    launch(TEST);
}

const BLOCKING: &str = "send_and_recv_carry_every_length";

/// The sizes of `send` and `recv`'s messages: empty, short, the eager limit
/// and past it (a long `MPI_Send` waits for its receive), into a buffer larger
/// than each.
const LENGTHS: [usize; 8] = [0, 1, 7, 8, 1000, 4096, 20_000, 65_536];

/// `send` and `recv` (blocking calls under the watchdog on ranks alone on
/// their CPUs, polled waits on ranks that share one): each message arrives
/// whole, its length as sent, into a larger buffer, and its reply too.
#[test]
fn send_and_recv_carry_every_length() {
    if std::env::var_os("OMPI_COMM_WORLD_SIZE").is_some() {
        let procs = Processes::init(Duration::from_secs(20), None).expect("the team forms");
        let alone = procs.members().iter().all(|m| {
            procs
                .members()
                .iter()
                .all(|o| o.rank == m.rank || o.host != m.host || o.cpu != m.cpu)
        });
        procs
            .run(BLOCKING, |rc, ep| {
                assert_eq!(ep.blocks(), alone, "rank {}", rc.rank);
                match rc.rank {
                    0 | 1 => lengths(ep, rc.rank),
                    _ => Ok(()),
                }
            })
            .expect("every rank's part passes");
        return;
    }
    launch(BLOCKING);
}

/// Rank 0 sends each of [`LENGTHS`] and checks the reply (each byte plus
/// one); rank 1 receives, checks and replies.
fn lengths(ep: &mut MpiEndpoint, rank: usize) -> Result<(), RankError> {
    let mut buf = vec![0u8; 70_000];
    for (m, &n) in LENGTHS.iter().enumerate() {
        let msg: Vec<u8> = (0..n)
            .map(|i| byte(m, i).wrapping_add(rank as u8))
            .collect();
        if rank == 0 {
            ep.send(1, &msg)?;
        }
        let got = ep.recv(1 - rank, &mut buf)?;
        assert_eq!(got, n, "rank {rank}, message {m}");
        let from = 1 - rank;
        assert!(
            buf[..n]
                .iter()
                .enumerate()
                .all(|(i, &x)| x == byte(m, i).wrapping_add(from as u8)),
            "rank {rank}, message {m} differs"
        );
        if rank == 1 {
            ep.send(0, &msg)?;
        }
    }
    Ok(())
}

/// Runs `test` of this binary under `mpirun` and checks that every process
/// passed it.
fn launch(test: &str) {
    if !have_mpirun(test) {
        return;
    }
    let _turn = common::measuring();
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let out = timeout_mpirun(dir.path(), np())
        .arg(exe)
        .args(["--exact", test, "--test-threads=1", "--nocapture"])
        .output()
        .expect("timeout and mpirun run");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    // Every process ran the test and it passed.
    assert_eq!(text.matches("1 passed").count(), np(), "{text}");
}

/// One process's part: the exchange on ranks 0 and 1, under a deadline of
/// 20 s per wait, so a failure ends in an error, not a hang.
fn under_mpirun() {
    let procs = Processes::init(Duration::from_secs(20), None).expect("the team forms");
    let largest = *SIZES.iter().max().unwrap();
    procs
        .run_buffered("requests", Some(largest), |rc, ep| match rc.rank {
            0 => rank0(ep),
            1 => rank1(ep),
            _ => Ok(()),
        })
        .expect("every rank's part passes");
}

/// Posts the four messages at once and waits for them in order; then posts
/// four receives and is refused a fifth; then checks the replies.
fn rank0(ep: &mut MpiEndpoint) -> Result<(), RankError> {
    let msgs: Vec<Vec<u8>> = SIZES
        .iter()
        .enumerate()
        .map(|(m, &n)| (0..n).map(|i| byte(m, i)).collect())
        .collect();
    let sends = msgs
        .iter()
        .map(|m| ep.isend(1, m))
        .collect::<Result<Vec<_>, _>>()?;
    let refused = ep.isend(1, &msgs[0]).map(|_| ()).unwrap_err();
    assert!(refused.to_string().contains("in flight"), "{refused}");
    for s in sends {
        ep.wait_send(s)?;
    }
    // The replies: the same sizes back, each byte plus one.
    let mut bufs: Vec<Vec<u8>> = SIZES.iter().map(|&n| vec![0u8; n]).collect();
    let mut recvs = Vec::new();
    for b in bufs.iter_mut() {
        recvs.push(ep.irecv(1, b)?);
    }
    let mut spare = [0u8; 8];
    let refused = ep.irecv(1, &mut spare).map(|_| ()).unwrap_err();
    assert!(refused.to_string().contains("in flight"), "{refused}");
    for (m, r) in recvs.into_iter().enumerate() {
        assert_eq!(ep.wait_recv(r)?, SIZES[m]);
    }
    for (m, b) in bufs.iter().enumerate() {
        assert!(
            b.iter()
                .enumerate()
                .all(|(i, &x)| x == byte(m, i).wrapping_add(1)),
            "reply {m} differs"
        );
    }
    // One last message, for the receive rank 1 waits for out of order.
    ep.send(1, &[42u8; 8])
}

/// Receives the four messages (the first by `test_recv` until it is in),
/// checks them, replies, then refuses a wait out of order and leaves one
/// receive posted for the endpoint's drop to cancel.
fn rank1(ep: &mut MpiEndpoint) -> Result<(), RankError> {
    let mut bufs: Vec<Vec<u8>> = SIZES.iter().map(|&n| vec![0u8; n]).collect();
    let mut recvs = Vec::new();
    for b in bufs.iter_mut() {
        recvs.push(ep.irecv(0, b)?);
    }
    let mut first = recvs.remove(0);
    let started = std::time::Instant::now();
    while !ep.test_recv(&mut first)? {
        assert!(started.elapsed() < Duration::from_secs(20), "never in");
        std::hint::spin_loop();
    }
    assert_eq!(ep.wait_recv(first)?, SIZES[0]);
    for (m, r) in recvs.into_iter().enumerate() {
        assert_eq!(ep.wait_recv(r)?, SIZES[m + 1]);
    }
    for (m, b) in bufs.iter_mut().enumerate() {
        assert!(
            b.iter().enumerate().all(|(i, &x)| x == byte(m, i)),
            "message {m} differs"
        );
        b.iter_mut().for_each(|x| *x = x.wrapping_add(1));
    }
    let sends = bufs
        .iter()
        .map(|b| ep.isend(0, b))
        .collect::<Result<Vec<_>, _>>()?;
    for s in sends {
        ep.wait_send(s)?;
    }
    // Two receives posted, one message coming: waiting for the second first
    // is refused; the first gets the message; the second stays posted.
    let (mut a, mut b) = ([0u8; 8], [0u8; 8]);
    let ra = ep.irecv(0, &mut a)?;
    let rb = ep.irecv(0, &mut b)?;
    let refused = ep.wait_recv(rb).unwrap_err();
    assert!(refused.to_string().contains("in the order"), "{refused}");
    assert_eq!(ep.wait_recv(ra)?, 8);
    assert_eq!(a, [42u8; 8]);
    Ok(())
}
