//! Where the mailbox's 8-byte ping-pong spends what two bare flags do not: the
//! mailbox, and a ladder of flag variants that add one of its features at a time,
//! timed in interleaved batches on one pair of pinned threads that stay up for
//! the whole run. Every batch's time is divided by the two-flag batch of the same
//! round (paired ratios, as `pingpong`'s baseline row), and the rounds are split
//! by the machine's state, read off the two-flag round trip of the round.
//!
//! ```text
//! cargo run --release --example floor -- [ROUNDS] [ROUND_TRIPS_PER_BATCH] [CPU_A,CPU_B] [SHIFT] [PAUSES]
//! ```
//!
//! The variants, each timed as round trips of two messages:
//! - `flags`: one cache-padded `AtomicU64` per direction, whose value is the
//!   round trip's number (`pingpong`'s atomic-flags row);
//! - `ring-N`: as `flags`, but message `i` goes to line `i mod N` of a ring of
//!   `N` padded lines per direction, as the mailbox's slot headers do;
//! - `ring-64+3`: as `ring-64`, with the mailbox's three stores to the line
//!   (payload word, length, flag) and the receiver's two loads after the flag;
//! - `mailbox-N`: the mailbox transport's `send` and `recv` with a ring of `N`
//!   slots (64 is the default);
//! - `flags-b`: two bare flags again, written as `pingpong`'s baseline writes
//!   them (each rank's two lines chosen once, 128 bytes apart in one
//!   allocation): the same protocol as `flags` in other code at other
//!   addresses, so its distance from `flags` is the floor's own spread on the
//!   machine, which a ratio to `flags` cannot be read closer than.
//!
//! `SHIFT` bytes are allocated before the variants' memory, which moves it on
//! the heap (default 0): a ratio that moves with it depends on where the lines
//! lie, not on the code.
//!
//! `PAUSES` spin-loop hints (default 0) are spent before every first poll of
//! `flags-b` and of the mailbox variants, after the rank's own send: the
//! round trip against how late the poll starts.
//!
//! It prints per state and variant the median round trip and, over the rounds,
//! the median and the 10th and 90th percentiles of the ratio to `flags` of the
//! same round.

use halfperf::control::RankError;
use halfperf::team::{RankCtx, Team, TeamSpec};
use halfperf::transport::mailbox::{Mailbox, MailboxEndpoint};
use halfperf::transport::{Endpoint, Transport, TransportConfig};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// 128 bytes of words, aligned as `CachePadded`.
#[repr(C, align(128))]
struct Block([AtomicU64; 16]);

/// A ring of `lines` slot headers of `stride` bytes each: flag, length, word.
struct Ring {
    blocks: Box<[Block]>,
    lines: usize,
    stride_words: usize,
}

/// One slot header.
struct Line<'a> {
    flag: &'a AtomicU64,
    len: &'a AtomicU64,
    word: &'a AtomicU64,
}

impl Ring {
    fn new(lines: usize, stride: usize) -> Ring {
        assert!(lines.is_power_of_two() && stride >= 16 && stride.is_power_of_two());
        let stride_words = stride / 8;
        Ring {
            blocks: (0..(lines * stride_words).div_ceil(16))
                .map(|_| Block(std::array::from_fn(|_| AtomicU64::new(0))))
                .collect(),
            lines,
            stride_words,
        }
    }
}

/// A flag variant's memory: per direction a ring of lines.
struct Flags {
    /// Rank 0 writes, rank 1 polls.
    ping: Ring,
    /// Rank 1 writes, rank 0 polls.
    pong: Ring,
    /// Whether a message also stores the length and word, as the mailbox does.
    three: bool,
}

impl Flags {
    fn new(lines: usize, stride: usize, three: bool) -> Flags {
        Flags {
            ping: Ring::new(lines, stride),
            pong: Ring::new(lines, stride),
            three,
        }
    }

    #[inline(always)]
    fn line(ring: &Ring, i: u64) -> Line<'_> {
        let w = (i as usize & (ring.lines - 1)) * ring.stride_words;
        let words = &ring.blocks[w / 16].0;
        let at = w % 16;
        // A 16-byte header keeps the length in the flag's line as its second word
        // and has no third: the word shares the length's place.
        let third = if ring.stride_words >= 3 {
            at + 2
        } else {
            at + 1
        };
        Line {
            flag: &words[at],
            len: &words[at + 1],
            word: &words[third],
        }
    }

    #[inline(always)]
    fn put(&self, ring: &Ring, i: u64) {
        let line = Flags::line(ring, i);
        if self.three {
            // Relaxed: published by the Release store of the flag below.
            line.word.store(black_box(7), Ordering::Relaxed);
            // Relaxed: as `word`.
            line.len.store(8, Ordering::Relaxed);
        }
        // Release: as the mailbox's `seq`.
        line.flag.store(i, Ordering::Release);
    }

    #[inline(always)]
    fn take(&self, ctx: &RankCtx<'_>, ring: &Ring, i: u64) -> Result<u64, RankError> {
        let line = Flags::line(ring, i);
        // Acquire: pairs with the Release store of the flag.
        let seen = || (line.flag.load(Ordering::Acquire) == i).then_some(());
        ctx.control.spin_until(1 - ctx.rank, seen)?;
        Ok(if self.three {
            // Relaxed: ordered after the Acquire load above.
            line.len.load(Ordering::Relaxed) + line.word.load(Ordering::Relaxed)
        } else {
            0
        })
    }

    /// Rank `ctx.rank`'s side of round trips `from..from + reps`.
    #[inline(never)]
    fn round_trips(&self, ctx: &RankCtx<'_>, from: u64, reps: u64) -> Result<Duration, RankError> {
        let start = Instant::now();
        let mut sink = 0;
        for i in from..from + reps {
            if ctx.rank == 0 {
                self.put(&self.ping, i);
                sink += self.take(ctx, &self.pong, i)?;
            } else {
                sink += self.take(ctx, &self.ping, i)?;
                self.put(&self.pong, i);
            }
        }
        black_box(sink);
        Ok(start.elapsed())
    }
}

/// Two bare flags as `pingpong`'s baseline writes them: each rank picks its
/// line and its peer's once, and the loop stores and polls them.
struct FlagsB {
    /// Rank 0 writes block 0, rank 1 block 1.
    blocks: Box<[Block]>,
}

impl FlagsB {
    fn new() -> FlagsB {
        FlagsB {
            blocks: (0..2)
                .map(|_| Block(std::array::from_fn(|_| AtomicU64::new(0))))
                .collect(),
        }
    }

    #[inline(never)]
    fn round_trips(
        &self,
        ctx: &RankCtx<'_>,
        from: u64,
        reps: u64,
        pauses: u32,
    ) -> Result<Duration, RankError> {
        let mine = &self.blocks[ctx.rank].0[0];
        let theirs = &self.blocks[1 - ctx.rank].0[0];
        let start = Instant::now();
        for i in from..from + reps {
            if ctx.rank == 0 {
                // Release: as the mailbox's `seq`.
                mine.store(i, Ordering::Release);
            }
            late(pauses);
            // Acquire: pairs with the peer's Release store.
            let seen = || (theirs.load(Ordering::Acquire) == i).then_some(());
            ctx.control.spin_until(1 - ctx.rank, seen)?;
            if ctx.rank == 1 {
                // Release: as above.
                mine.store(i, Ordering::Release);
            }
        }
        Ok(start.elapsed())
    }
}

#[inline(never)]
fn mailbox_round_trips(
    ctx: &RankCtx<'_>,
    ep: &mut MailboxEndpoint,
    reps: u64,
    pauses: u32,
) -> Result<Duration, RankError> {
    let out = black_box([7u8; 8]);
    let mut inbuf = [0u8; 16];
    let start = Instant::now();
    for _ in 0..reps {
        if ctx.rank == 0 {
            ep.send(1, &out)?;
            late(pauses);
            ep.recv(1, &mut inbuf)?;
        } else {
            late(pauses);
            ep.recv(0, &mut inbuf)?;
            ep.send(0, &out)?;
        }
    }
    black_box(inbuf);
    Ok(start.elapsed())
}

/// `pauses` spin-loop hints: a first poll made that much later.
#[inline(always)]
fn late(pauses: u32) {
    for _ in 0..pauses {
        std::hint::spin_loop();
    }
}

/// The flag variants: name, lines per direction, bytes per line, three stores.
const FLAGS: [(&str, usize, usize, bool); 6] = [
    ("flags", 1, 128, false),
    ("ring-8", 8, 128, false),
    ("ring-64", 64, 128, false),
    ("ring-64+3", 64, 128, true),
    ("ring-64/32B", 64, 32, true),
    ("ring-64/16B", 64, 16, true),
];

/// The mailbox variants: name, ring slots.
const MAILBOXES: [(&str, usize); 2] = [("mailbox-16", 16), ("mailbox-64", 64)];

/// `flags-b` comes last.
const VARIANTS: usize = FLAGS.len() + MAILBOXES.len() + 1;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.first().map_or(1000, |a| a.parse().expect("ROUNDS"));
    let reps: u64 = args
        .get(1)
        .map_or(1000, |a| a.parse().expect("ROUND_TRIPS"));
    let cpus: Vec<usize> = args.get(2).map_or(vec![0, 1], |a| {
        a.split(',').map(|c| c.parse().expect("CPU")).collect()
    });
    let shift: usize = args.get(3).map_or(0, |a| a.parse().expect("SHIFT"));
    let pauses: u32 = args.get(4).map_or(0, |a| a.parse().expect("PAUSES"));
    let _shift = black_box(vec![0u8; shift]);
    let team = Team::new(&TeamSpec {
        cpus,
        ranks: 2,
        virtual_ok: false,
        oversubscribe: false,
        wait_timeout: Duration::from_secs(10),
    })
    .expect("a team of two");
    let flags: Vec<Flags> = FLAGS
        .iter()
        .map(|&(_, n, stride, three)| Flags::new(n, stride, three))
        .collect();
    let flags_b = FlagsB::new();
    // Per rank, one endpoint of each mailbox variant.
    let mut endpoints: Vec<Vec<MailboxEndpoint>> = vec![Vec::new(), Vec::new()];
    for &(_, slots) in &MAILBOXES {
        let config = TransportConfig {
            slots,
            ..TransportConfig::for_messages(16)
        };
        for (rank, ep) in Mailbox::endpoints(team.control(), &config)
            .into_iter()
            .enumerate()
        {
            endpoints[rank].push(ep);
        }
    }
    let times = team
        .run("floor", endpoints, |ctx, eps| {
            let mut done = [1u64; FLAGS.len()];
            let mut done_b = 1u64;
            let mut times = vec![[0f64; VARIANTS]; rounds];
            // Round 0 is untimed: it warms every line and both threads.
            for round in 0..=rounds {
                for k in 0..VARIANTS {
                    // Rotate the order so that no variant always runs first.
                    let v = (k + round) % VARIANTS;
                    let took = match flags.get(v) {
                        Some(f) => {
                            let t = f.round_trips(ctx, done[v], reps)?;
                            done[v] += reps;
                            t
                        }
                        None if v == VARIANTS - 1 => {
                            let t = flags_b.round_trips(ctx, done_b, reps, pauses)?;
                            done_b += reps;
                            t
                        }
                        None => mailbox_round_trips(ctx, &mut eps[v - FLAGS.len()], reps, pauses)?,
                    };
                    if round > 0 {
                        times[round - 1][v] = took.as_nanos() as f64 / reps as f64;
                    }
                }
            }
            Ok(times)
        })
        .expect("the run");
    let times = &times[0];
    let names: Vec<&str> = FLAGS
        .iter()
        .map(|f| f.0)
        .chain(MAILBOXES.iter().map(|m| m.0))
        .chain(["flags-b"])
        .collect();
    println!(
        "{rounds} rounds of {reps} round trips per variant, interleaved: ns per round trip, and the ratio to flags of the same round"
    );
    // A VM's host places the virtual CPUs near or far: the rounds are read per
    // state, by the two-flag round trip of the round.
    let states = [
        ("fast", 0.0, 150.0),
        ("middle", 150.0, 350.0),
        ("slow", 350.0, f64::INFINITY),
    ];
    for (state, lo, hi) in states {
        let rows: Vec<&[f64; VARIANTS]> =
            times.iter().filter(|t| t[0] >= lo && t[0] < hi).collect();
        if rows.is_empty() {
            continue;
        }
        println!(
            "{state} state (flags round trip {lo} to {hi} ns): {} rounds",
            rows.len()
        );
        for (v, name) in names.iter().enumerate() {
            let mut own: Vec<f64> = rows.iter().map(|t| t[v]).collect();
            let mut ratio: Vec<f64> = rows.iter().map(|t| t[v] / t[0]).collect();
            own.sort_by(f64::total_cmp);
            ratio.sort_by(f64::total_cmp);
            println!(
                "  {name:10} {:7.1} ns (p10 {:7.1}, p90 {:7.1})   / flags {:.3} (p10 {:.3}, p90 {:.3})",
                percentile(&own, 0.5),
                percentile(&own, 0.1),
                percentile(&own, 0.9),
                percentile(&ratio, 0.5),
                percentile(&ratio, 0.1),
                percentile(&ratio, 0.9),
            );
        }
    }
}
