//! `soak`: data integrity under load. Two pinned ranks exchange `n` messages in
//! each direction per size class and transport, both sending and receiving at once
//! (so the mailbox's ring wraps, credits flow both ways, and a full ring makes a
//! sender take in the other's messages). Every message carries its sequence number
//! and a checksum of its content; sizes vary pseudo-randomly within the class and
//! are recomputed by the receiver from the sequence number. The receiver counts:
//! - lost: sequence numbers skipped;
//! - reordered: a sequence number below the one expected;
//! - corrupted: a wrong length or checksum.

use super::super::{KernelError, KernelSpec, RunContext};
use crate::kernels::scibench::choose_pair;
use crate::results::{KernelResult, Point};
use crate::team::{RankError, Team};
use crate::transport::channel::Channel;
use crate::transport::mailbox::{INLINE_BYTES, Mailbox};
use crate::transport::{Endpoint, Transport, TransportConfig, TransportKind};
use std::time::Instant;

pub(super) const SOAK: KernelSpec = KernelSpec {
    name: "soak",
    method: "reliability",
    paper: "data-integrity check of the transports (no paper)",
    about: "long two-way message streams per size class with sequence numbers and checksums; counts lost, corrupted, reordered",
    in_quick_suite: false,
    run,
};

/// The default number of messages per class, direction and transport.
const DEFAULT_MESSAGES: u64 = 1_000_000;

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

/// FNV-1a over the bytes.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Fills `buf` with message `seq`: inline, `seq` (u32) and a check of it; longer,
/// `seq` (u64), content derived from it, and the FNV checksum of the rest in the
/// last 8 bytes.
fn fill(buf: &mut [u8], seq: u64) {
    if buf.len() == INLINE_BYTES {
        let s = seq as u32;
        buf[..4].copy_from_slice(&s.to_le_bytes());
        buf[4..].copy_from_slice(&(mix(u64::from(s)) as u32).to_le_bytes());
        return;
    }
    let n = buf.len();
    buf[..8].copy_from_slice(&seq.to_le_bytes());
    let mut state = mix(seq);
    for chunk in buf[8..n - 8].chunks_mut(8) {
        state = mix(state);
        chunk.copy_from_slice(&state.to_le_bytes()[..chunk.len()]);
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

/// Both ranks: send message i, then receive the peer's message i, n times.
fn exchange<E: Endpoint>(
    ep: &mut E,
    rank: usize,
    class: SizeClass,
    n: u64,
) -> Result<Counters, RankError> {
    let peer = 1 - rank;
    let mut out = vec![0u8; class.max];
    let mut inbuf = vec![0u8; class.max];
    let mut counters = Counters::default();
    let mut expected = 0u64;
    for seq in 0..n {
        let len = size_of(class, rank, seq);
        fill(&mut out[..len], seq);
        ep.send(peer, &out[..len])?;
        let got = ep.recv(peer, &mut inbuf)?;
        expected = check(&inbuf, got, expected, class, peer, &mut counters);
    }
    counters.lost += n.saturating_sub(expected.max(counters.received));
    Ok(counters)
}

fn run_class<T: Transport>(team: &Team, class: SizeClass, n: u64) -> Result<Counters, KernelError> {
    let eps = T::endpoints(team.control(), &TransportConfig::for_messages(class.max));
    let per_rank = team.run("soak", eps, |ctx, ep| exchange(ep, ctx.rank, class, n))?;
    Ok(per_rank.iter().fold(Counters::default(), |a, c| Counters {
        received: a.received + c.received,
        lost: a.lost + c.lost,
        reordered: a.reordered + c.reordered,
        corrupted: a.corrupted + c.corrupted,
    }))
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let cpus = choose_pair(ctx, "soak")?;
    let team = Team::new(&ctx.team_spec(cpus.clone(), 2, false))?;
    let n = ctx.config.soak_messages.unwrap_or(DEFAULT_MESSAGES);
    ctx.progress
        .begin("soak", (CLASSES.len() * ctx.config.transports.len()) as u64);
    let mut out = Vec::new();
    for &transport in &ctx.config.transports {
        let mut points = Vec::new();
        let mut warnings = Vec::new();
        for class in CLASSES {
            if ctx.cancelled() {
                return Err(KernelError::Interrupted);
            }
            let start = Instant::now();
            let c = match transport {
                TransportKind::Mailbox => run_class::<Mailbox>(&team, class, n)?,
                TransportKind::Channel => run_class::<Channel>(&team, class, n)?,
            };
            let seconds = start.elapsed().as_secs_f64();
            let sent = 2 * n;
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
                    .with("rate_msg_per_s", sent as f64 / seconds),
            );
            ctx.progress.step(&format!("{transport} {}", class.name));
        }
        let failed = !warnings.is_empty();
        out.push(KernelResult {
            kernel: "soak".into(),
            method: "reliability".into(),
            transport: Some(transport.name().into()),
            cpus: cpus.clone(),
            distance_class: (cpus.len() == 2)
                .then(|| ctx.topology.distance(cpus[0], cpus[1]))
                .flatten(),
            placement: team.placement(),
            ranks: 2,
            points,
            fits: Vec::new(),
            warnings: warnings.clone(),
            load: None,
            elapsed_s: 0.0,
        });
        if failed {
            ctx.progress.end();
            return Err(KernelError::Failed {
                kernel: "soak".into(),
                reason: warnings.join("; "),
            });
        }
    }
    ctx.progress.end();
    Ok(out)
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
}
