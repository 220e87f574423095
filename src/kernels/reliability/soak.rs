//! `soak`: data integrity under load. Two pinned ranks stream messages to each
//! other in every size class and on every transport, both sending and receiving at
//! once with non-blocking calls (so the mailbox's ring wraps and fills, credits flow
//! both ways, and many messages are in flight). Every message carries its sequence
//! number and a checksum of its content; sizes vary pseudo-randomly within the
//! class and are recomputed by the receiver from the sequence number. The receiver
//! counts:
//! - lost: sequence numbers skipped;
//! - reordered: a sequence number below the one expected;
//! - corrupted: a wrong length or checksum.
//!
//! `--messages N` is the total over the whole run: it is split evenly over the
//! transports and size classes, and each share over the two directions.

use super::super::work::{Budgets, Estimate, Work};
use super::super::{KernelError, KernelSpec, RunContext};
use crate::control::RankError;
use crate::kernels::harness::pair::choose_pair;
use crate::kernels::harness::timing::Timer;
use crate::kernels::harness::transports::each_transport;
use crate::results::{KernelResult, Point};
use crate::team::{RankCtx, Team};
use crate::transport::mailbox::INLINE_BYTES;
use crate::transport::{Endpoint, Transport, TransportConfig};

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "soak";

pub(super) const SOAK: KernelSpec = KernelSpec {
    name: NAME,
    method: "reliability",
    paper: "data-integrity check of the transports (no paper)",
    about: "long two-way message streams per size class with sequence numbers and checksums; counts lost, corrupted, reordered",
    in_quick_suite: false,
    over_mpi: crate::kernels::OverMpi::THREAD_DELIVERY,
    card: &[],
    run,
    plan: estimate,
};

/// One soak message of its mixed sizes, s (a full soak took about a minute
/// on the reference machine).
const SOAK_MESSAGE_S: f64 = 5e-6;

/// The plan's estimate ([`crate::kernels::work`]): its messages (the soak
/// sets no target), each sent, checked and received.
fn estimate(b: &Budgets<'_>) -> Estimate {
    let messages = b.config.soak_messages.unwrap_or(DEFAULT_MESSAGES) as f64;
    Estimate::pair(Work::default().plus(messages * SOAK_MESSAGE_S, 1))
}

/// The default total number of messages (10^6 per direction, class and transport
/// when both transports run).
pub(crate) const DEFAULT_MESSAGES: u64 = 12_000_000;

/// Rank 0 reports progress every this many messages it receives (about 10^6
/// messages exchanged in both directions).
const PROGRESS_EVERY: u64 = 500_000;

/// A size class: the range of message sizes in it.
#[derive(Debug, Clone, Copy)]
struct SizeClass {
    name: &'static str,
    min: usize,
    max: usize,
}

/// Inline messages are exactly 8 bytes: a 32-bit sequence number and a 32-bit
/// check of it. One-slot messages fit a 2 KiB slot; many-slot ones span up to 32.
const CLASSES: [SizeClass; 3] = [
    SizeClass {
        name: "inline",
        min: INLINE_BYTES,
        max: INLINE_BYTES,
    },
    SizeClass {
        name: "one_slot",
        min: 16,
        max: 2048,
    },
    SizeClass {
        name: "many_slots",
        min: 2049,
        max: 64 * 1024,
    },
];

/// What a receiver saw.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counters {
    received: u64,
    lost: u64,
    reordered: u64,
    corrupted: u64,
}

/// SplitMix64: the size and the content of message `seq` from `rank`.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn size_of(class: SizeClass, rank: usize, seq: u64) -> usize {
    let span = (class.max - class.min + 1) as u64;
    class.min + (mix(seq ^ ((rank as u64) << 56)) % span) as usize
}

/// A Fletcher-style sum over the bytes taken as little-endian 64-bit words (the
/// last one zero-padded): a flipped bit changes the first sum, swapped words the
/// second. Word-wide, so checking a 64 KiB message costs about as much as copying it.
fn checksum(bytes: &[u8]) -> u64 {
    let mut a = 0x243F_6A88_85A3_08D3u64;
    let mut b = 0x1319_8A2E_0370_7344u64;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        a = a.wrapping_add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        b = b.wrapping_add(a);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        a = a.wrapping_add(u64::from_le_bytes(last));
        b = b.wrapping_add(a);
    }
    a ^ b.rotate_left(32) ^ bytes.len() as u64
}

/// Fills `buf` with message `seq`: inline, `seq` (u32) and a check of it; longer,
/// `seq` (u64), content derived from it, and the checksum of the rest in the last
/// 8 bytes.
fn fill(buf: &mut [u8], seq: u64) {
    if buf.len() == INLINE_BYTES {
        let s = seq as u32;
        buf[..4].copy_from_slice(&s.to_le_bytes());
        buf[4..].copy_from_slice(&(mix(u64::from(s)) as u32).to_le_bytes());
        return;
    }
    let n = buf.len();
    buf[..8].copy_from_slice(&seq.to_le_bytes());
    let base = mix(seq);
    for (k, chunk) in buf[8..n - 8].chunks_mut(8).enumerate() {
        let word = base ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        chunk.copy_from_slice(&word.to_le_bytes()[..chunk.len()]);
    }
    let sum = checksum(&buf[..n - 8]);
    buf[n - 8..].copy_from_slice(&sum.to_le_bytes());
}

/// Checks a received message against the one expected next and updates the
/// counters; returns the next sequence number expected.
fn check(
    buf: &[u8],
    len: usize,
    expected: u64,
    class: SizeClass,
    from: usize,
    c: &mut Counters,
) -> u64 {
    c.received += 1;
    let msg = &buf[..len];
    let seq = if len == INLINE_BYTES && class.max == INLINE_BYTES {
        let s = u32::from_le_bytes(msg[..4].try_into().expect("4 bytes"));
        let tag = u32::from_le_bytes(msg[4..].try_into().expect("4 bytes"));
        if tag != mix(u64::from(s)) as u32 {
            c.corrupted += 1;
            return expected + 1;
        }
        // Extend the 32-bit sequence number near the expected one.
        (expected & !0xFFFF_FFFF) | u64::from(s)
    } else if len >= 16 {
        let seq = u64::from_le_bytes(msg[..8].try_into().expect("8 bytes"));
        let sum = u64::from_le_bytes(msg[len - 8..].try_into().expect("8 bytes"));
        if sum != checksum(&msg[..len - 8]) {
            c.corrupted += 1;
            return expected + 1;
        }
        seq
    } else {
        c.corrupted += 1;
        return expected + 1;
    };
    if len != size_of(class, from, seq) {
        c.corrupted += 1;
    }
    match seq.cmp(&expected) {
        std::cmp::Ordering::Equal => expected + 1,
        std::cmp::Ordering::Greater => {
            c.lost += seq - expected;
            seq + 1
        }
        std::cmp::Ordering::Less => {
            c.reordered += 1;
            expected
        }
    }
}

/// How many messages each rank sends in one transport and class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Share {
    /// Messages rank 0 sends (and rank 1 receives).
    from0: u64,
    /// Messages rank 1 sends.
    from1: u64,
}

impl Share {
    fn sends(self, rank: usize) -> u64 {
        if rank == 0 { self.from0 } else { self.from1 }
    }
}

/// Splits `total` messages evenly over `cells` (transport, class) pairs, the first
/// ones taking the remainder, and each cell's share over the two directions.
fn split(total: u64, cells: usize) -> Vec<Share> {
    let cells = cells as u64;
    (0..cells)
        .map(|i| {
            let m = total / cells + u64::from(i < total % cells);
            Share {
                from0: m.div_ceil(2),
                from1: m / 2,
            }
        })
        .collect()
}

/// Both ranks at once: send the next message whenever it can go, take in the
/// peer's whenever one has arrived, until all are sent and the peer's last one
/// has been seen. A rank that makes no progress yields its CPU and watches the
/// team's abort flag, the run's cancel flag and the wait deadline.
fn exchange<E: Endpoint>(
    ep: &mut E,
    rank_ctx: &RankCtx<'_>,
    class: SizeClass,
    share: Share,
    ctx: &RunContext<'_>,
    label: &str,
) -> Result<Counters, RankError> {
    let rank = rank_ctx.rank;
    let peer = 1 - rank;
    let to_send = share.sends(rank);
    let to_recv = share.sends(peer);
    let mut out = vec![0u8; class.max];
    let mut inbuf = vec![0u8; class.max];
    let mut counters = Counters::default();
    let mut expected = 0u64;
    let mut sent = 0u64;
    let mut staged = false;
    let mut idle: u32 = 0;
    let mut started = None;
    while sent < to_send || (expected < to_recv && counters.received < to_recv) {
        let mut progressed = false;
        if sent < to_send {
            let len = size_of(class, rank, sent);
            if !staged {
                fill(&mut out[..len], sent);
                staged = true;
            }
            if ep.try_send(peer, &out[..len])? {
                sent += 1;
                staged = false;
                progressed = true;
            }
        }
        if let Some(got) = ep.try_recv(peer, &mut inbuf)? {
            expected = check(&inbuf, got, expected, class, peer, &mut counters);
            progressed = true;
            if rank == 0 && counters.received.is_multiple_of(PROGRESS_EVERY) {
                ctx.progress.step(&format!(
                    "{label}: {} M",
                    (counters.received * 2) / 1_000_000
                ));
            }
        }
        if progressed {
            idle = 0;
            started = None;
            continue;
        }
        idle = idle.wrapping_add(1);
        std::hint::spin_loop();
        if idle.is_multiple_of(1024) {
            if ctx.cancelled() {
                return Err(RankError::Failed("interrupted".into()));
            }
            rank_ctx.control.check(peer, &mut started)?;
            // A correctness run, not a timing: on a loaded machine, give the CPU
            // to whoever is not idle (possibly the peer).
            std::thread::yield_now();
        }
    }
    counters.lost += to_recv.saturating_sub(expected.max(counters.received));
    Ok(counters)
}

fn run_class<T: Transport>(
    team: &Team,
    class: SizeClass,
    share: Share,
    ctx: &RunContext<'_>,
    label: &str,
) -> Result<Counters, KernelError> {
    let eps = T::endpoints(team.control(), &TransportConfig::for_messages(class.max));
    let per_rank = team.run(NAME, eps, |rank_ctx, ep| {
        exchange(ep, rank_ctx, class, share, ctx, label)
    })?;
    Ok(per_rank.iter().fold(Counters::default(), |a, c| Counters {
        received: a.received + c.received,
        lost: a.lost + c.lost,
        reordered: a.reordered + c.reordered,
        corrupted: a.corrupted + c.corrupted,
    }))
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let cpus = choose_pair(ctx, NAME)?;
    let team = Team::new(&ctx.team_spec(cpus.clone(), 2, false))?;
    let total = ctx.config.soak_messages.unwrap_or(DEFAULT_MESSAGES);
    let shares = split(total, CLASSES.len() * ctx.config.transports.len());
    let steps: u64 = shares.iter().map(|s| s.from1 / PROGRESS_EVERY + 1).sum();
    let mut shares = shares.into_iter();
    each_transport(ctx, NAME, steps as usize, &[()], |(), transport| {
        let mut points = Vec::new();
        let mut warnings = Vec::new();
        for class in CLASSES {
            let share = shares.next().expect("one share per transport and class");
            if ctx.cancelled() {
                return Err(KernelError::Interrupted);
            }
            let label = format!("{transport} {}", class.name);
            let start = Timer::start();
            let c = crate::with_transport!(transport, run_class(&team, class, share, ctx, &label));
            if ctx.cancelled() {
                return Err(KernelError::Interrupted);
            }
            let c = c?;
            let seconds = start.elapsed().as_secs_f64();
            let sent = share.from0 + share.from1;
            if c.lost + c.reordered + c.corrupted > 0 || c.received != sent {
                warnings.push(format!(
                    "{} {}: {} sent, {} received, {} lost, {} reordered, {} corrupted",
                    transport, class.name, sent, c.received, c.lost, c.reordered, c.corrupted
                ));
            }
            points.push(
                Point::new()
                    .with("size_class_min_bytes", class.min as f64)
                    .with("size_class_max_bytes", class.max as f64)
                    .with("messages_sent", sent as f64)
                    .with("messages_received", c.received as f64)
                    .with("lost", c.lost as f64)
                    .with("reordered", c.reordered as f64)
                    .with("corrupted", c.corrupted as f64)
                    .with("time_s", seconds)
                    .with("rate_msg_per_s", sent as f64 / seconds),
            );
            ctx.progress.step(&label);
        }
        if !warnings.is_empty() {
            ctx.progress.end();
            return Err(KernelError::Failed {
                kernel: NAME.into(),
                reason: warnings.join("; "),
            });
        }
        Ok(Some(
            KernelResult::new(NAME, "reliability", team.placement(), cpus.clone())
                .with_transport(Some(transport.name()))
                .with_pair_distance(ctx.topology)
                .with_ranks(2)
                .with_points(points),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checker_counts_lost_reordered_and_corrupted_messages() {
        let class = CLASSES[1];
        let mut c = Counters::default();
        let mut buf = vec![0u8; 4096];
        let mut msg = |seq: u64| {
            let len = size_of(class, 0, seq);
            fill(&mut buf[..len], seq);
            (buf.clone(), len)
        };
        let mut expected = 0;
        for seq in [0u64, 1, 3, 2, 4] {
            let (b, len) = msg(seq);
            expected = check(&b, len, expected, class, 0, &mut c);
        }
        assert_eq!((c.received, c.lost, c.reordered, c.corrupted), (5, 1, 1, 0));
        assert_eq!(expected, 5);
        let (mut b, len) = msg(5);
        b[len / 2] ^= 1;
        check(&b, len, expected, class, 0, &mut c);
        assert_eq!(c.corrupted, 1);
        // Inline: a flipped bit in the check word is corruption.
        let inline = CLASSES[0];
        let mut ib = [0u8; 8];
        fill(&mut ib, 7);
        let mut ci = Counters::default();
        assert_eq!(check(&ib, 8, 7, inline, 0, &mut ci), 8);
        ib[5] ^= 4;
        check(&ib, 8, 8, inline, 0, &mut ci);
        assert_eq!(ci.corrupted, 1);
    }

    #[test]
    fn sizes_stay_in_their_class() {
        for class in CLASSES {
            for seq in 0..1000 {
                let n = size_of(class, 1, seq);
                assert!(n >= class.min && n <= class.max);
            }
        }
    }

    #[test]
    fn the_total_is_split_over_cells_and_directions_without_loss() {
        let shares = split(100_000_000, 6);
        let sum: u64 = shares.iter().map(|s| s.from0 + s.from1).sum();
        assert_eq!(sum, 100_000_000);
        // 10^8 = 6 x 16_666_666 + 4: the first four cells take one more.
        assert_eq!(
            shares[0],
            Share {
                from0: 8_333_334,
                from1: 8_333_333
            }
        );
        assert_eq!(
            shares[5],
            Share {
                from0: 8_333_333,
                from1: 8_333_333
            }
        );
        assert_eq!(
            split(5, 3)
                .iter()
                .map(|s| s.from0 + s.from1)
                .collect::<Vec<_>>(),
            [2, 2, 1]
        );
    }

    #[test]
    fn the_checksum_sees_a_flipped_bit_and_swapped_words() {
        let mut buf = vec![0u8; 1000];
        fill(&mut buf, 42);
        let sum = checksum(&buf);
        let mut flipped = buf.clone();
        flipped[999] ^= 0x80;
        assert_ne!(checksum(&flipped), sum);
        let mut swapped = buf.clone();
        swapped.copy_within(8..16, 800);
        swapped[8..16].copy_from_slice(&buf[800..808]);
        assert_ne!(checksum(&swapped), sum);
    }
}
