//! Ping-pong latency per transport and message size, and the two-atomic-flag
//! baseline on the same CPU pair, so that anyone can check what the mailbox adds;
//! and the copy every message makes, between line-aligned buffers (as all the
//! buffers messages are copied between) and between buffers 16 bytes apart within
//! a line (what an allocator's alignment can give), to show why they are aligned.
//!
//! Run with: `cargo bench --bench transport` (HTML in target/criterion/report).
//! Each measurement times round trips on a pinned two-rank team (rank 0 times, as
//! in the `pingpong` kernel); the reported time is one round trip (= 2 x the
//! one-way latency the CLI prints). `mailbox/8` and `atomic-flags/8` are measured
//! in paired batches, and the group ends by printing the median paired ratio of
//! the two, the mailbox's cost over the hardware floor, then each transport's
//! `t_startup`, `t_per_byte` and `n_1/2` fitted by the `pingpong` kernel's own
//! latency line on the one-way times the bench measured (half its round
//! trips), with the two-flag round trips as the probe. The copy group (1 to
//! 16 KiB) ends in each alignment's `t_startup`, `t_per_byte` and `n_1/2`
//! and the misaligned per-byte cost over the aligned one
//! (`t_per_byte_over_aligned`). Both groups' parameters print together after
//! the copies, as `halfperf card` prints them, and go to
//! target/criterion/halfperf.json.

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use halfperf::benchfit::budget::{COPY_SIZES, PINGPONG_SIZES, Part};
use halfperf::benchfit::fits::{PairSite, copy_result, latency_result};
use halfperf::benchfit::{self, Recorder};
use halfperf::kernels::harness::flags::atomic_flag_round_trip;
use halfperf::kernels::harness::pair::round_trip_time;
use halfperf::platform::{LineAligned, Topology, allowed_cpus, pin_current_thread};
use halfperf::results::KernelResult;
use halfperf::team::{Team, TeamSpec};
use halfperf::transport::TransportKind;
use std::hint::black_box;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn pair_team() -> (Team, PairSite) {
    let allowed = allowed_cpus();
    let topo = Topology::detect().expect("topology");
    let (cpus, distance) = match topo.pairs_by_class(&allowed).last() {
        Some((class, a, b)) => (vec![*a, *b], Some(*class)),
        None => (vec![allowed[0]], None),
    };
    let team = Team::new(&TeamSpec {
        ranks: 2,
        oversubscribe: cpus.len() < 2,
        virtual_ok: false,
        cpus: cpus.clone(),
        wait_timeout: Duration::from_secs(10),
    })
    .expect("a two-rank team");
    let site = PairSite {
        cpus,
        placement: team.placement(),
        distance,
    };
    (team, site)
}

/// The paired ratios mailbox / two bare flags at 8 B, one per batch pair, from
/// both 8-byte rows.
static PAIRED: Mutex<Vec<f64>> = Mutex::new(Vec::new());

/// One batch of `iters` 8-byte mailbox round trips and one of two bare flags,
/// back to back on the same pair, the order alternating from call to call so
/// that neither always runs first; returns both times and records their ratio.
/// Measured apart, the two rows of a 2-vCPU VM can come from different host
/// states minutes apart (73 against 130 ns once); measured in pairs, each row's
/// samples see the same states as the other's.
fn paired_batches(team: &Team, iters: u64) -> (Duration, Duration) {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let mailbox = || round_trip_time(team, TransportKind::Mailbox, 8, iters).expect("ping-pong");
    let flags = || atomic_flag_round_trip(team, iters).expect("baseline");
    // Relaxed: a counter that only alternates the order, never synchronises.
    let (m, f) = if CALLS.fetch_add(1, Ordering::Relaxed).is_multiple_of(2) {
        let m = mailbox();
        (m, flags())
    } else {
        let f = flags();
        (mailbox(), f)
    };
    if !f.is_zero() {
        PAIRED
            .lock()
            .expect("ratios")
            .push(m.as_secs_f64() / f.as_secs_f64());
    }
    (m, f)
}

/// Prints the median and the 10th and 90th percentiles of the paired ratios:
/// the mailbox's cost over the hardware floor, the figure `halfperf run
/// pingpong` reports as `mailbox_over_baseline`.
fn print_paired_ratio() {
    let mut r = std::mem::take(&mut *PAIRED.lock().expect("ratios"));
    if r.is_empty() {
        return;
    }
    r.sort_by(f64::total_cmp);
    let at = |q: f64| r[((r.len() - 1) as f64 * q).round() as usize];
    println!(
        "scibench/pingpong mailbox/8 over atomic-flags/8, paired batches: median {:.3} (p10 {:.3}, p90 {:.3}) over {} pairs",
        at(0.5),
        at(0.1),
        at(0.9),
        r.len()
    );
}

fn pingpong(c: &mut Criterion, rec: &mut Recorder) -> (usize, Vec<KernelResult>) {
    let (team, site) = pair_team();
    let mut group = c.benchmark_group("scibench/pingpong");
    let samples = common::settings(&mut group, Part::PingPong);
    // The baseline as `mailbox/8`: one round trip of 8 bytes each way, so that
    // the two rows read in the same units side by side; both are measured in
    // paired batches (see `paired_batches`).
    group.throughput(Throughput::Bytes(2 * 8));
    group.bench_function(BenchmarkId::new("atomic-flags", 8), |b| {
        b.iter_custom(|iters| {
            let f = paired_batches(&team, iters).1;
            rec.record("atomic-flags/8", iters, f);
            f
        })
    });
    let mailbox = TransportKind::Mailbox.name();
    group.bench_function(BenchmarkId::new(mailbox, 8), |b| {
        b.iter_custom(|iters| {
            let m = paired_batches(&team, iters).0;
            rec.record("mailbox/8", iters, m);
            m
        })
    });
    for transport in TransportKind::ALL {
        for size in PINGPONG_SIZES {
            if transport == TransportKind::Mailbox && size == 8 {
                continue; // measured above, paired with the flags
            }
            let id = format!("{}/{size}", transport.name());
            group.throughput(Throughput::Bytes(2 * size as u64));
            group.bench_with_input(
                BenchmarkId::new(transport.name(), size),
                &size,
                |b, &size| {
                    b.iter_custom(|iters| {
                        rec.time(&id, iters, |iters| {
                            round_trip_time(&team, transport, size, iters).expect("ping-pong")
                        })
                    })
                },
            );
        }
    }
    group.finish();
    print_paired_ratio();
    let probes = rec.samples("atomic-flags/8", samples);
    let results = TransportKind::ALL
        .iter()
        .map(|t| {
            let sizes: Vec<_> = PINGPONG_SIZES
                .iter()
                .map(|&size| {
                    let id = format!("{}/{size}", t.name());
                    (size, rec.reps(&id, samples), rec.samples(&id, samples))
                })
                .collect();
            latency_result(t.name(), &site, &sizes, &probes)
        })
        .collect();
    (samples, results)
}

/// One copy of `size` bytes, warm in L1, between two places of one buffer 64 KiB
/// and `apart` bytes apart: line-aligned (0), or 16 bytes past a line (1040, also
/// 1 KiB off in the page, so that the loads do not alias the stores in flight in
/// their low 12 address bits), on the last allowed CPU. See
/// `halfperf::platform::LineAligned`. Ends in each alignment's copy line and
/// the misaligned per-byte cost over the aligned one
/// (`halfperf::benchfit::fits::copy_result`).
fn copies(c: &mut Criterion, rec: &mut Recorder) -> KernelResult {
    const PAGE: usize = 4096;
    const FAR: usize = 64 * 1024;
    const ALIGNMENTS: [(&str, usize); 2] = [("line-aligned", 0), ("16-bytes-past-a-line", 1040)];
    let cpu = allowed_cpus().last().copied().unwrap_or(0);
    let _ = pin_current_thread(cpu);
    let mut group = c.benchmark_group("copy");
    let samples = common::settings(&mut group, Part::Copy);
    let mut region = LineAligned::filled(2 * FAR + 3 * PAGE, 1u8);
    let src = region.as_ptr().align_offset(PAGE);
    for size in COPY_SIZES {
        group.throughput(Throughput::Bytes(size as u64));
        for (name, apart) in ALIGNMENTS {
            let dst = src + FAR + apart;
            let id = format!("{name}/{size}");
            group.bench_function(BenchmarkId::new(name, size), |b| {
                b.iter_custom(|iters| {
                    rec.time(&id, iters, |iters| {
                        let start = Instant::now();
                        for _ in 0..iters {
                            let (from, to) = region.split_at_mut(dst);
                            to[..size].copy_from_slice(black_box(&from[src..src + size]));
                            black_box(&mut to[..size]);
                        }
                        start.elapsed()
                    })
                })
            });
        }
    }
    group.finish();
    let measured: Vec<_> = ALIGNMENTS
        .iter()
        .map(|&(name, _)| {
            let sizes = COPY_SIZES
                .iter()
                .map(|&size| {
                    let id = format!("{name}/{size}");
                    (size, rec.reps(&id, samples), rec.samples(&id, samples))
                })
                .collect();
            (name, sizes)
        })
        .collect();
    copy_result(cpu, &measured)
}

/// The ping-pong and the copy groups, ending in their parameters together.
fn transport(c: &mut Criterion) {
    let mut rec = Recorder::new();
    let (samples, mut results) = pingpong(c, &mut rec);
    results.push(copies(c, &mut rec));
    benchfit::finish_group(&mut rec, "transport", samples, results);
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = transport
}
criterion_main!(benches);
