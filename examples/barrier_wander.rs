//! How far a spin barrier's own meeting wanders on a machine, with no kernel
//! around it. This times halfperf's two spin barriers between two pinned
//! threads: the central sense-reversing barrier
//! ([`halfperf::sync::barrier::CentralBarrier`]) and the dissemination
//! barrier ([`halfperf::sync::barrier::SpinBarrier`]), both polled with the
//! spin-loop hint, and both polled bare, as `hockney-sync`'s barrier-spin
//! and `comet-barrier`'s central barrier poll them, in batches alternating
//! with a batch of the two-flag round trip (the probe every kernel records),
//! for as long as asked. It prints what one hint takes, then all five, and
//! each barrier over the round trip of the same batch quintuple, as the medians
//! of windows as long as a quick
//! `hockney-sync` run, their CV over the windows, and each barrier's
//! autocorrelation at lags from one batch to a thousand. Where the machine
//! changes state all move and the ratios hold; a ratio that moves from
//! window to window while the round trip holds is the primitive on this
//! machine, not the harness, and no run as short as a window can average it
//! away.
//!
//! ```text
//! cargo run --release --example barrier_wander -- [SECONDS] [WINDOW_SECONDS] [CPU_A,CPU_B]
//! ```
//!
//! Defaults: 60 s, windows of 3.5 s, CPUs 0 and 1. Each batch is 20,000
//! meetings or round trips.

use halfperf::sync::Poll;
use halfperf::sync::barrier::{CentralBarrier, Episode, LocalSense, SpinBarrier};
use halfperf::team::{Team, TeamSpec};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Meetings or round trips a batch.
const BATCH: u64 = 20_000;

/// One batch quintuple's times, per meeting or round trip.
struct Batch {
    central_ns: f64,
    central_bare_ns: f64,
    dissemination_ns: f64,
    bare_ns: f64,
    round_trip_ns: f64,
}

/// One cache-padded word per direction of the round trip.
#[repr(align(128))]
#[derive(Default)]
struct Padded(AtomicU64);

/// A window's median of `xs` (sorted in place).
fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Mean and CV (%) of `xs`.
fn mean_cv(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, 100.0 * var.sqrt() / mean)
}

/// The autocorrelation of `xs` at `lag` samples.
fn autocorrelation(xs: &[f64], lag: usize) -> f64 {
    let (mean, _) = mean_cv(xs);
    let var: f64 = xs.iter().map(|x| (x - mean).powi(2)).sum();
    let cov: f64 = xs
        .windows(lag + 1)
        .map(|w| (w[0] - mean) * (w[lag] - mean))
        .sum();
    cov / var
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seconds: f64 = args.first().map_or(60.0, |a| a.parse().expect("SECONDS"));
    let window: f64 = args
        .get(1)
        .map_or(3.5, |a| a.parse().expect("WINDOW_SECONDS"));
    let cpus: Vec<usize> = args.get(2).map_or(vec![0, 1], |a| {
        a.split(',').map(|c| c.parse().expect("CPU")).collect()
    });
    let team = Team::new(&TeamSpec {
        cpus,
        ranks: 2,
        virtual_ok: false,
        oversubscribe: false,
        wait_timeout: Duration::from_secs(10),
    })
    .expect("a team of two on CPUs of their own");
    let central = CentralBarrier::new(2);
    let central_bare = CentralBarrier::new(2);
    let dissemination = SpinBarrier::new(2);
    let bare = SpinBarrier::new(2);
    println!("one spin-loop hint: {:.1} ns", Poll::hint_pause_ns());
    let (ping, pong) = (Padded::default(), Padded::default());
    // Rank 0's command: the number of the batch pair to run, or `STOP`.
    const STOP: u64 = u64::MAX;
    let go = Padded::default();
    let start = Instant::now();
    let out = team
        .run("barrier-wander", vec![(); 2], |ctx, _| {
            let c = ctx.control;
            let mut sense = LocalSense::default();
            let mut bare_sense = LocalSense::default();
            let mut episode = Episode::default();
            let mut bare_episode = Episode::default();
            let mut trips = 0u64;
            let mut batches: Vec<Batch> = Vec::new();
            for k in 1u64.. {
                if ctx.rank == 0 {
                    let more = start.elapsed().as_secs_f64() < seconds;
                    // Release: the worker starts its batches after this.
                    go.0.store(if more { k } else { STOP }, Ordering::Release);
                    if !more {
                        break;
                    }
                } else {
                    // Acquire: pairs with the master's Release above.
                    Poll::Hint.until(c, 0, || go.0.load(Ordering::Acquire) >= k)?;
                    if go.0.load(Ordering::Acquire) == STOP {
                        break;
                    }
                }
                let t = Instant::now();
                for _ in 0..BATCH {
                    central.wait(&mut sense, Poll::Hint, c, 1 - ctx.rank)?;
                }
                let central_ns = t.elapsed().as_nanos() as f64 / BATCH as f64;
                let t = Instant::now();
                for _ in 0..BATCH {
                    central_bare.wait(&mut bare_sense, Poll::Bare, c, 1 - ctx.rank)?;
                }
                let central_bare_ns = t.elapsed().as_nanos() as f64 / BATCH as f64;
                let t = Instant::now();
                for _ in 0..BATCH {
                    dissemination.wait(ctx.rank, &mut episode, Poll::Hint, c)?;
                }
                let dissemination_ns = t.elapsed().as_nanos() as f64 / BATCH as f64;
                let t = Instant::now();
                for _ in 0..BATCH {
                    bare.wait(ctx.rank, &mut bare_episode, Poll::Bare, c)?;
                }
                let bare_ns = t.elapsed().as_nanos() as f64 / BATCH as f64;
                let t = Instant::now();
                for _ in 0..BATCH {
                    trips += 1;
                    // Release/Acquire: each side's store is the other's
                    // signal; nothing else is published.
                    if ctx.rank == 0 {
                        ping.0.store(trips, Ordering::Release);
                        Poll::Hint.until(c, 1, || pong.0.load(Ordering::Acquire) == trips)?;
                    } else {
                        Poll::Hint.until(c, 0, || ping.0.load(Ordering::Acquire) == trips)?;
                        pong.0.store(trips, Ordering::Release);
                    }
                }
                let round_trip = t.elapsed().as_nanos() as f64 / BATCH as f64;
                batches.push(Batch {
                    central_ns,
                    central_bare_ns,
                    dissemination_ns,
                    bare_ns,
                    round_trip_ns: round_trip,
                });
            }
            Ok(batches)
        })
        .expect("the run");
    let batches = &out[0];
    assert!(!batches.is_empty(), "no batch finished in {seconds} s");
    // At least one window, however short the run.
    let per_window = ((window / (seconds / batches.len() as f64)) as usize).clamp(1, batches.len());
    println!(
        "{} batch quintuples in {seconds} s; windows of {per_window} (~{window} s)",
        batches.len()
    );
    println!(
        "{:>6} {:>11} {:>6} {:>11} {:>6} {:>11} {:>6} {:>11} {:>6} {:>8}",
        "window",
        "central ns",
        "/ rt",
        "dissem. ns",
        "/ rt",
        "bare ns",
        "/ rt",
        "c. bare ns",
        "/ rt",
        "rt ns"
    );
    // Per window: each barrier and its ratio to the round trip, the round trip.
    let mut windows: Vec<[f64; 9]> = Vec::new();
    for (w, chunk) in batches.chunks_exact(per_window).enumerate() {
        let med = |f: &dyn Fn(&Batch) -> f64| median(&mut chunk.iter().map(f).collect::<Vec<_>>());
        let row = [
            med(&|b| b.central_ns),
            med(&|b| b.central_ns / b.round_trip_ns),
            med(&|b| b.dissemination_ns),
            med(&|b| b.dissemination_ns / b.round_trip_ns),
            med(&|b| b.bare_ns),
            med(&|b| b.bare_ns / b.round_trip_ns),
            med(&|b| b.central_bare_ns),
            med(&|b| b.central_bare_ns / b.round_trip_ns),
            med(&|b| b.round_trip_ns),
        ];
        println!(
            "{w:>6} {:>11.1} {:>6.3} {:>11.1} {:>6.3} {:>11.1} {:>6.3} {:>11.1} {:>6.3} {:>8.1}",
            row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8]
        );
        windows.push(row);
    }
    let column = |i: usize| mean_cv(&windows.iter().map(|r| r[i]).collect::<Vec<_>>());
    let names = [
        "central barrier ns",
        "central over the round trip",
        "dissemination barrier ns",
        "dissemination over the round trip",
        "dissemination, bare, ns",
        "dissemination, bare, over the round trip",
        "central, bare, ns",
        "central, bare, over the round trip",
        "round trip ns",
    ];
    println!("window medians, mean and CV over the windows:");
    for (i, name) in names.iter().enumerate() {
        let (m, cv) = column(i);
        println!("  {name:<41} {m:>9.3}  CV {cv:5.1} %");
    }
    let dt = seconds / batches.len() as f64;
    for (name, f) in [
        ("central", (|b: &Batch| b.central_ns) as fn(&Batch) -> f64),
        ("dissemination", |b: &Batch| b.dissemination_ns),
        ("bare dissemination", |b: &Batch| b.bare_ns),
        ("bare central", |b: &Batch| b.central_bare_ns),
    ] {
        let series: Vec<f64> = batches.iter().map(f).collect();
        let lags: Vec<String> = [1usize, 10, 100, 1000]
            .iter()
            .filter(|&&l| l < series.len())
            .map(|&l| format!("{:.2} s: {:.2}", l as f64 * dt, autocorrelation(&series, l)))
            .collect();
        println!(
            "the {name} barrier's autocorrelation at {}",
            lags.join(", ")
        );
    }
}
