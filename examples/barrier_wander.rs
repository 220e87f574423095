//! How far the spin barrier's own hand-over wanders on a machine, with no
//! kernel around it: `hockney-sync`'s barrier-spin `t0` is a near-zero
//! segment between two meetings at halfperf's sense-reversing barrier
//! ([`halfperf::sync::barrier::SpinBarrier`], polled with the spin-loop
//! hint), and on a 2-vCPU VM it moved between quick runs when no probe did.
//! This times that barrier alone, between two pinned threads, in batches
//! alternating with a batch of the two-flag round trip (the probe every
//! kernel records), for as long as asked, and prints both, and the barrier
//! over the round trip of the same batch pair, as the medians of windows as
//! long as a quick `hockney-sync` run, their CV over the windows, and the
//! barrier's autocorrelation at lags from one batch to a thousand. Where the
//! machine changes state both move and the ratio holds; a ratio that moves
//! from window to window while the round trip holds is the primitive on
//! this machine, not the harness, and no run as short as a window can
//! average it away.
//!
//! ```text
//! cargo run --release --example barrier_wander -- [SECONDS] [WINDOW_SECONDS] [CPU_A,CPU_B]
//! ```
//!
//! Defaults: 60 s, windows of 3.5 s, CPUs 0 and 1. Each batch is 20,000
//! meetings or round trips.

use halfperf::sync::Poll;
use halfperf::sync::barrier::{LocalSense, SpinBarrier};
use halfperf::team::{Team, TeamSpec};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Meetings or round trips a batch.
const BATCH: u64 = 20_000;

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
    let barrier = SpinBarrier::new(2);
    let (ping, pong) = (Padded::default(), Padded::default());
    // Rank 0's command: the number of the batch pair to run, or `STOP`.
    const STOP: u64 = u64::MAX;
    let go = Padded::default();
    let start = Instant::now();
    let out = team
        .run("barrier-wander", vec![(); 2], |ctx, _| {
            let c = ctx.control;
            let mut sense = LocalSense::default();
            let mut trips = 0u64;
            let mut batches: Vec<(f64, f64, f64)> = Vec::new();
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
                    barrier.wait(&mut sense, Poll::Hint, c, 1 - ctx.rank)?;
                }
                let meet = t.elapsed().as_nanos() as f64 / BATCH as f64;
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
                batches.push((start.elapsed().as_secs_f64(), meet, round_trip));
            }
            Ok(batches)
        })
        .expect("the run");
    let batches = &out[0];
    assert!(!batches.is_empty(), "no batch finished in {seconds} s");
    // At least one window, however short the run.
    let per_window = ((window / (seconds / batches.len() as f64)) as usize).clamp(1, batches.len());
    println!(
        "{} batch pairs in {seconds} s; windows of {per_window} pairs (~{window} s)",
        batches.len()
    );
    println!(
        "{:>8} {:>12} {:>14} {:>14}",
        "window", "barrier ns", "round trip ns", "barrier / rt"
    );
    let (mut meets, mut trips, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for (w, chunk) in batches.chunks_exact(per_window).enumerate() {
        let mut m: Vec<f64> = chunk.iter().map(|b| b.1).collect();
        let mut r: Vec<f64> = chunk.iter().map(|b| b.2).collect();
        let mut q: Vec<f64> = chunk.iter().map(|b| b.1 / b.2).collect();
        meets.push(median(&mut m));
        trips.push(median(&mut r));
        ratios.push(median(&mut q));
        println!(
            "{w:>8} {:>12.1} {:>14.1} {:>14.3}",
            meets[w], trips[w], ratios[w]
        );
    }
    let (m, m_cv) = mean_cv(&meets);
    let (r, r_cv) = mean_cv(&trips);
    let (q, q_cv) = mean_cv(&ratios);
    println!(
        "window medians: barrier {m:.1} ns, CV {m_cv:.1} %; round trip {r:.1} ns, CV {r_cv:.1} %; barrier over the round trip {q:.3}, CV {q_cv:.1} %"
    );
    let series: Vec<f64> = batches.iter().map(|b| b.1).collect();
    let dt = seconds / batches.len() as f64;
    let lags: Vec<String> = [1usize, 10, 100, 1000]
        .iter()
        .filter(|&&l| l < series.len())
        .map(|&l| format!("{:.2} s: {:.2}", l as f64 * dt, autocorrelation(&series, l)))
        .collect();
    println!("the barrier's autocorrelation at {}", lags.join(", "));
}
